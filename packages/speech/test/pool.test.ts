/**
 * The pool when callers leave: work waiting in the queue may outlive its caller (a request that was
 * aborted, or refused for its price while its sentence already waited). Such work leaves the queue,
 * and work that can no longer be handed to a worker fails alone; the pool keeps serving.
 */
import { once } from 'node:events';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EspeakEngine } from '../src/engines/espeak.ts';
import { WorkerPool } from '../src/pool/pool.ts';
import type { SynthesisJob } from '../src/pool/protocol.ts';

const engine = new EspeakEngine();
const voice = engine.listVoices().find((v) => v.id === 'espeak:en-us')!;
const job = (text: string): SynthesisJob => ({
  engine: 'espeak',
  voice,
  text,
  speed: 1,
  pitch: 0,
  profile: voice.profile,
  sampleRate: 24000,
  loudness: true,
});
const long = 'A long sentence that keeps the only worker of the pool busy while others wait in its queue, '.repeat(2);

describe('the synthesis pool when callers leave', () => {
  // One engine thread and no interactive lane: the second piece of work always waits in the queue.
  let pool: WorkerPool;
  beforeAll(() => {
    pool = new WorkerPool({ size: 1, interactiveLane: false });
  });
  afterAll(() => pool.close());

  it('fails a waiting file sentence whose encoder end was closed, and keeps serving', async () => {
    const busy = pool.synthesize(job(long));
    const { port1, port2 } = new MessageChannel();
    const sentence = pool.synthesizeInto(job('A sentence nobody waits for.'), port2);
    sentence.catch(() => {});
    expect(pool.queued).toBe(1);
    // The encoder drops the file (its caller left, or was refused): its end closes, and so does this one.
    const closed = once(port2, 'close');
    port1.close();
    await closed;
    expect((await busy).samples.length).toBeGreaterThan(0);
    // The worker came free with the dead port first in line: that task fails, nothing is thrown.
    await expect(sentence).rejects.toThrow(/could not be started/);
    expect(pool.busy).toBe(0);
    const next = await pool.synthesize(job('The next caller is served.'));
    expect(next.samples.length).toBeGreaterThan(0);
  });

  it('takes waiting work out of the queue when its caller leaves, and never runs it', async () => {
    const busy = pool.synthesize(job(long));
    const controller = new AbortController();
    const waiting = pool.synthesize(job('A sentence whose caller leaves.'), { signal: controller.signal });
    const { port1, port2 } = new MessageChannel();
    const file = pool.synthesizeInto(job('A file whose caller leaves.'), port2, controller.signal);
    const kept = pool.synthesize(job('A sentence whose caller stays.'));
    expect(pool.queued).toBe(3);
    const portClosed = once(port1, 'close');
    controller.abort(new Error('caller left'));
    // Out of the queue at once, not when a worker would have reached them.
    expect(pool.queued).toBe(1);
    await expect(waiting).rejects.toThrow('caller left');
    await expect(file).rejects.toThrow('caller left');
    // The sink given up with it is closed: the encoder's end learns that no samples will come.
    await portClosed;
    await busy;
    expect((await kept).samples.length).toBeGreaterThan(0);
    expect(pool.queued).toBe(0);
  });

  it('refuses work whose caller has already left', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone before asking'));
    await expect(pool.synthesize(job('Never queued.'), { signal: controller.signal })).rejects.toThrow('gone before asking');
    expect(pool.queued).toBe(0);
  });
});

describe('a helper process whose channel is gone', () => {
  it('fails the request that could not be written, instead of throwing from the channel, and starts a new process', async () => {
    const { ChildHost, HostExit } = await import('../src/engines/child-host.ts');
    const host = new ChildHost(new URL('./support/echo-host.mjs', import.meta.url));
    try {
      expect(await host.request({ echo: 1 })).toMatchObject({ echo: 1 });
      // The process is going away and its channel is closed, but its exit has not been seen yet:
      // the next write fails (ERR_IPC_CHANNEL_CLOSED; EPIPE when the process died under it).
      const child = (host as unknown as { child: import('node:child_process').ChildProcess }).child;
      const exited = once(child, 'exit');
      child.disconnect();
      await expect(host.request({ echo: 2 })).rejects.toBeInstanceOf(HostExit);
      // Once the exit is seen, a retried request gets a new process.
      await exited;
      expect(await host.request({ echo: 3 }, true)).toMatchObject({ echo: 3 });
    } finally {
      await host.close();
    }
  });
});
