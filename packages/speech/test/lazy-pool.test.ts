import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createSpeech, type AudioCache, type Speech } from '../src/index.ts';

describe('engines start with the first synthesis', () => {
  let speech: Speech | undefined;
  afterEach(async () => {
    await speech?.close();
  });

  it('prepares and lists voices without starting the worker threads, then starts them to synthesize', async () => {
    speech = await createSpeech({ poolSize: 1, warmup: false, cache: false });
    expect(speech.enginesStarted).toBe(false);
    expect(speech.poolSize).toBe(1);
    const voice = speech.getVoice('espeak:en-us')!;
    expect(speech.prepare({ text: 'Nothing is spoken yet.', voice }).characters).toBeGreaterThan(0);
    expect(speech.listVoices().length).toBeGreaterThan(100);
    expect(speech.enginesStarted).toBe(false);
    const result = await speech.synthesize({ text: 'Now it speaks.', voice, format: 'wav' });
    expect(result.durationSec).toBeGreaterThan(0.3);
    expect(speech.enginesStarted).toBe(true);
  });

  it('starts them at once when warmed up', async () => {
    speech = await createSpeech({ poolSize: 1, cache: false });
    expect(speech.enginesStarted).toBe(true);
  });

  it("warms the first request's paths (a stream, a one-sentence file) without reading or filling the cache", async () => {
    const calls: string[] = [];
    const cache: AudioCache = {
      get: (key) => void calls.push(`get ${key}`),
      set: (key) => void calls.push(`set ${key}`),
    };
    speech = await createSpeech({ poolSize: 1, cache });
    // Warm-up spoke (streams and one-sentence files) through the cache-aware functions, and left the cache alone:
    // at scale it is shared, and no request's audio was made.
    expect(calls).toEqual([]);
    const voice = speech.getVoice('espeak:en-us')!;
    const chunks: Buffer[] = [];
    for await (const c of speech.synthesizeStream({ text: 'A real stream. Two sentences.', voice, format: 'mp3' }))
      chunks.push(c);
    expect(Buffer.concat(chunks).length).toBeGreaterThan(1000);
    expect(calls.map((c) => c.split(' ')[0])).toEqual(['get', 'set']);
    // A warm-up takes seconds on a quiet machine and can take minutes on a loaded one.
  }, 300_000);

  it('runs exactly poolSize engine threads without the interactive lane (a worker process), and still speaks a waited-on sentence', async () => {
    // Each engine is a worker thread, an OS thread of this process (Linux /proc).
    const threads = () => fs.readdirSync('/proc/self/task').length;
    const grown = async (interactiveLane: boolean) => {
      const before = threads();
      speech = await createSpeech({ poolSize: 1, cache: false, interactiveLane });
      const voice = speech.getVoice('espeak:en-us')!;
      // One sentence a caller waits on (the lane's work when there is one) and a longer text at once.
      const [one, more] = await Promise.all([
        speech.synthesize({ text: 'One sentence.', voice, format: 'wav' }),
        speech.synthesize({ text: 'A first sentence. A second sentence. A third one.', voice, format: 'wav' }),
      ]);
      expect(one.durationSec).toBeGreaterThan(0.3);
      expect(more.durationSec).toBeGreaterThan(one.durationSec);
      const grew = threads() - before;
      await speech.close();
      speech = undefined;
      for (let i = 0; i < 100 && threads() > before; i++) await new Promise((r) => setTimeout(r, 20));
      return grew;
    };
    const withoutLane = await grown(false);
    const withLane = await grown(true);
    expect(withLane).toBeGreaterThan(withoutLane);
  }, 300_000); // two pools warm up one after the other, on a machine other work keeps busy
});

describe('a start that is stopped', () => {
  it('stops the warmup when its signal aborts, ends the threads it started, and rejects with the reason', async () => {
    const threads = () => fs.readdirSync('/proc/self/task').length;
    const before = threads();
    const controller = new AbortController();
    const starting = createSpeech({ poolSize: 1, cache: false, signal: controller.signal });
    starting.then((s) => s.close()).catch(() => {});
    // The warmup has begun (the pool's threads exist) and runs for seconds: stop it now.
    expect(threads()).toBeGreaterThan(before);
    controller.abort(new Error('shutting down'));
    await expect(starting).rejects.toThrow('shutting down');
    // Nothing of it is left running: its worker threads and the encoder thread end.
    for (let i = 0; threads() > before; i++) {
      if (i > 2000) throw new Error(`threads left: ${threads() - before}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it('does not start at all when its signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('already gone'));
    await expect(createSpeech({ poolSize: 1, cache: false, signal: controller.signal })).rejects.toThrow('already gone');
  });
});
