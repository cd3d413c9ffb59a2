import { describe, expect, it } from 'vitest';
import { GnuSpeechEngine } from '../src/engines/gnuspeech.ts';
import { makePlan } from '../src/pipeline/plan.ts';
import { isSpeechError } from '../src/core/errors.ts';
import type { PcmChunk } from '../src/core/types.ts';

const gnuspeech = new GnuSpeechEngine();
const male = gnuspeech.listVoices().find((v) => v.id === 'gnuspeech:male')!;

async function collect(text: string): Promise<PcmChunk[]> {
  const chunks: PcmChunk[] = [];
  for await (const c of gnuspeech.synthesize({ text, voice: male, pitch: 0, speed: 1, profile: male.profile })) chunks.push(c);
  return chunks;
}

describe('text without words', () => {
  it('refuses a whole text of punctuation as VALIDATION_FAILED on text, and plans text with words', () => {
    const ctx = { findVoice: () => male, maxTextLength: 5000 };
    for (const text of ['?', '...', ' !? ', '。？']) {
      let caught: unknown;
      try {
        makePlan({ text, voiceId: 'x' }, ctx);
      } catch (e) {
        caught = e;
      }
      expect(isSpeechError(caught) && caught.code, text).toBe('VALIDATION_FAILED');
      expect(isSpeechError(caught) && caught.params).toMatchObject({ field: 'text', rule: 'must contain words' });
    }
    expect(makePlan({ text: 'Hello. ... World.', voiceId: 'x' }, ctx).sentences.length).toBeGreaterThan(1);
  });

  it('lets GnuSpeech read a sentence of punctuation inside a text as a short pause', async () => {
    for (const text of ['...', '?!', '?']) {
      const chunks = await collect(text);
      const samples = chunks.reduce((n, c) => n + c.samples.length, 0);
      expect(samples, text).toBeGreaterThan(0);
      expect(samples / chunks[0]!.sampleRate).toBeLessThan(1);
      expect(chunks.every((c) => c.samples.every((s) => s === 0))).toBe(true);
    }
    const spoken = await collect('Hello.');
    expect(spoken.some((c) => c.samples.some((s) => s !== 0))).toBe(true);
  });
});
