import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createSpeech, type Speech } from '../src/index.ts';

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
  });
});
