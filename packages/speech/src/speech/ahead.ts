/** The messages of a stream's first sentence, as a pool worker sends them while its engine runs. */
import { MessageChannel } from 'node:worker_threads';
import type { ToFileSink } from '../audio/encoder-protocol.ts';
import type { WorkerPool } from '../pool/pool.ts';
import type { SynthesisJob as SentenceJob, SynthesisResult as PoolResult } from '../pool/protocol.ts';
import { FIRST_SLICE_SEC } from './context.ts';

/**
 * A stream's first sentence from a pool worker (`pool/streamed.ts`, `synthesizeAhead`): its first FIRST_SLICE_SEC
 * seconds as the engine makes them, then the rest once the sentence is complete and measured (`end`), or the whole
 * sentence at once (`whole`). Returns the worker's result (words, length, the gain to learn).
 */
export async function* aheadMessages(
  pool: WorkerPool,
  job: SentenceJob,
  signal?: AbortSignal,
): AsyncGenerator<ToFileSink, PoolResult> {
  const { port1, port2 } = new MessageChannel();
  const queue: ToFileSink[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  let failed = false;
  const poke = (): void => wake?.();
  port1.on('message', (m: ToFileSink) => {
    queue.push(m);
    poke();
  });
  port1.on('close', () => {
    closed = true;
    poke();
  });
  signal?.addEventListener('abort', poke, { once: true });
  const result = pool.synthesizeAhead(job, port2, FIRST_SLICE_SEC, signal);
  // The sink's messages and the result come on different ports, in no set order: the result is read last.
  result.catch(() => {
    failed = true;
    poke();
  });
  try {
    for (;;) {
      signal?.throwIfAborted();
      const m = queue.shift();
      if (m) {
        if (m.type === 'fail') break;
        yield m;
        if (m.type === 'end' || m.type === 'whole') break;
        continue;
      }
      if (closed || failed) break;
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
    const r = await result;
    signal?.throwIfAborted();
    return r;
  } finally {
    signal?.removeEventListener('abort', poke);
    port1.close();
  }
}
