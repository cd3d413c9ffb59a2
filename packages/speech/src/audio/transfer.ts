import * as workerThreads from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';

// Node 21+ throws "Cannot transfer object of unsupported type" for an ArrayBuffer marked untransferable
// (Buffer's shared pool, some internal allocations) in a transfer list; Node 20 copied it instead. The check
// exists from Node 21 on (worker_threads.isMarkedAsUntransferable); on Node 20 nothing needs filtering.
const isUntransferable = (workerThreads as { isMarkedAsUntransferable?: (o: unknown) => boolean }).isMarkedAsUntransferable;

/** What a message may move, once each; buffers that cannot move are copied with the message, as Node 20 did. */
export function transferList(items: ArrayBufferLike[]): ArrayBuffer[];
export function transferList(items: (ArrayBufferLike | MessagePort)[]): (ArrayBuffer | MessagePort)[];
export function transferList(items: (ArrayBufferLike | MessagePort)[]): (ArrayBuffer | MessagePort)[] {
  const out = new Set<ArrayBuffer | MessagePort>();
  for (const item of items) {
    if (item instanceof ArrayBuffer) {
      if (item.byteLength > 0 && !isUntransferable?.(item)) out.add(item);
    } else if (!(item instanceof SharedArrayBuffer)) {
      out.add(item);
    }
  }
  return [...out];
}
