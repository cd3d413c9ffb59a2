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
});
