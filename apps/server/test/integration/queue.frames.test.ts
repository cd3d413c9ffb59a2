import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/platform/errors.js';
import { QueuedSynthesizer } from '../../src/synthesis/queue/synthesizer.js';
import { frame, Msg, QueueFrameError } from '../../src/synthesis/queue/frames.js';
import { connection, outChannel, TTS_QUEUE, type QueueSettings } from '../../src/synthesis/queue/redis.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * An API process's queued synthesizer against a stand-in worker (a BullMQ worker on the `tts` queue under a prefix of
 * this run's own) that answers each request with the frames its text names: a worker of another release, or a damaged
 * message, fails that request with `INTERNAL` and a log line; the synthesizer goes on answering the next one.
 */
describe('frames a worker sends back (Redis)', () => {
  const run = Math.random().toString(36).slice(2, 10);
  const settings: QueueSettings = {
    redisUrl: REDIS_URL,
    prefix: `polyvox-test-frames-${run}`,
    stalledSeconds: 5,
    maxAttempts: 1,
  };
  const answers: Record<string, Buffer[]> = {
    'bad done': [frame(Msg.Chunk, Buffer.from([1, 2])), frame(Msg.Done, '{"durationSec": 1,')],
    'wrong done': [frame(Msg.Done, JSON.stringify({ durationSec: 'long', cached: false }))],
    'unknown code': [frame(Msg.Failed, JSON.stringify({ code: 'FROM_THE_FUTURE', params: {} }))],
    'bad progress': [frame(Msg.Progress, 'nope'), frame(Msg.Done, JSON.stringify({ durationSec: 1, cached: false }))],
    'bad timings': [frame(Msg.Timings, JSON.stringify({ words: 'none' })), frame(Msg.Chunk, Buffer.from([3]))],
    refused: [frame(Msg.Failed, JSON.stringify({ code: 'RATE_LIMITED', params: { seconds: 2 } }))],
    fine: [
      frame(Msg.Progress, JSON.stringify({ done: 1, total: 1 })),
      frame(Msg.Chunk, Buffer.from([7, 7])),
      frame(Msg.Done, JSON.stringify({ durationSec: 0.5, cached: false, mark: null })),
    ],
  };
  let worker: Worker;
  let pub: Redis;
  let queued: QueuedSynthesizer;
  const logged: Array<Record<string, unknown>> = [];
  const log = {
    error: (obj: Record<string, unknown>, msg: string) => logged.push({ msg, ...obj }),
    warn: () => {},
    info: () => {},
  };

  beforeAll(async () => {
    pub = new Redis(REDIS_URL);
    worker = new Worker(
      TTS_QUEUE,
      async (job) => {
        const text = (job.data as { request: { text: string } }).request.text;
        const channel = outChannel(settings.prefix, job.id!);
        // Started without a worker id: the API process watches no heartbeat for it.
        await pub.publish(channel, frame(Msg.Started));
        for (const message of answers[text] ?? []) await pub.publish(channel, message);
      },
      { connection: connection(REDIS_URL), prefix: settings.prefix },
    );
    await worker.waitUntilReady();
    queued = new QueuedSynthesizer({ settings, log: log as never });
  });

  afterAll(async () => {
    await queued?.close();
    await worker?.close();
    const keys = await pub.keys(`${settings.prefix}:*`);
    if (keys.length > 0) await pub.del(...keys);
    pub.disconnect();
  });

  async function failure(work: () => Promise<unknown>): Promise<unknown> {
    try {
      await work();
    } catch (e) {
      return e;
    }
    throw new Error('expected the request to fail');
  }

  it('fails a whole file whose done, failed or progress message is unreadable with INTERNAL, saying why', async () => {
    for (const [text, name] of [
      ['bad done', 'done'],
      ['wrong done', 'done'],
      ['unknown code', 'failed'],
      ['bad progress', 'progress'],
    ] as const) {
      const error = await failure(() => queued.synthesize({ text, onProgress: () => {} }, { reqId: `req-${name}` }));
      expect(isAppError(error) && error.code).toBe('INTERNAL');
      expect((error as Error).cause).toBeInstanceOf(QueueFrameError);
      expect((error as Error).cause).toMatchObject({ frame: name });
      expect(logged.at(-1)).toMatchObject({
        msg: 'worker message unreadable; request failed',
        frame: name,
        reqId: `req-${name}`,
      });
    }
  });

  it('fails a stream whose timings are unreadable, after the audio before them', async () => {
    const chunks: Buffer[] = [];
    const error = await failure(async () => {
      for await (const chunk of queued.synthesizeStream({ text: 'bad timings', timings: true, onTimings: () => {} }))
        chunks.push(chunk);
    });
    expect(isAppError(error) && error.code).toBe('INTERNAL');
    expect((error as Error).cause).toMatchObject({ frame: 'timings' });
    expect(chunks).toEqual([]);
  });

  it('reads what a worker of this release sends as before, and answers on after the failures', async () => {
    const refused = await failure(() => queued.synthesize({ text: 'refused' }));
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', params: { seconds: 2 } });
    const progress: unknown[] = [];
    const result = await queued.synthesize({ text: 'fine', onProgress: (p) => progress.push(p) });
    expect(result).toEqual({ audio: Buffer.from([7, 7]), durationSec: 0.5, cached: false, mark: null });
    expect(progress).toEqual([{ done: 1, total: 1 }]);
  });
});
