/**
 * The silence between two sentences on every built-in engine, against the engine's own rendering of the same text in
 * one call: each sentence is synthesized apart, so its edges are the pipeline's to join (`pipeline/pauses.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '../src/dsp/pcm.ts';
import { createLocalEngines } from '../src/engines/local.ts';
import { endOf, PAUSE_MS, sentenceEnds } from '../src/pipeline/pauses.ts';
import { makePlan, type SynthesisRequest } from '../src/pipeline/plan.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import type { MarkupDocument } from '../src/text/markup.ts';
import { longestPause, nativeRendering } from './support/pauses.ts';

const TEXTS = {
  sentence: 'The train left the station. We waited for the next one.',
  // A semicolon ends a piece the pipeline speaks apart; a comma does not (the engine pauses there itself).
  clause: 'The train left the station; we waited for the next one.',
  comma: 'The train left the station, we waited for the next one.',
  paragraph: 'The train left the station.\n\nWe waited for the next one.',
};
type Kind = keyof typeof TEXTS;

let speech: Speech;
const engines = createLocalEngines({});
beforeAll(async () => {
  speech = await createSpeech({ poolSize: 1, cache: false, warmup: false });
}, 90_000);
afterAll(async () => {
  await speech.close();
  await Promise.all([...engines.values()].map((e) => e.close?.()));
});

/** A request through the pipeline, as a file with timings: the pause between its sentences and the words around it. */
async function rendered(req: SynthesisRequest) {
  const r = await speech.synthesize({ format: 'wav', timings: true, ...req });
  const { samples, sampleRate } = decodeWav(r.audio);
  const pause = longestPause(samples, sampleRate);
  const words = r.timings!.words;
  const before = words.filter((w) => w.end <= pause.start + 0.03).at(-1);
  const after = words.find((w) => w.start >= pause.end - 0.03);
  return { pause, words, before, after };
}

describe.each(['espeak:en-us', 'flite:slt', 'gnuspeech:male'])('the pause between sentences on %s', (voiceId) => {
  it('is at least the engine’s own, by punctuation: a comma < a sentence < a paragraph', async () => {
    const voice = speech.getVoice(voiceId)!;
    const engine = engines.get(voice.engine)!;
    const native: Partial<Record<Kind, number>> = {};
    for (const kind of ['sentence', 'paragraph'] as const) {
      const { samples, sampleRate } = await nativeRendering(engine, voice, TEXTS[kind]);
      native[kind] = longestPause(samples, sampleRate).sec;
    }
    const runs = {} as Record<Kind, Awaited<ReturnType<typeof rendered>>>;
    for (const kind of Object.keys(TEXTS) as Kind[]) runs[kind] = await rendered({ text: TEXTS[kind], voiceId });
    const ours = Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r.pause.sec])) as Record<Kind, number>;
    const seen = JSON.stringify({ native, ours });
    expect(ours.sentence, seen).toBeGreaterThanOrEqual(Math.max(0.25, 0.7 * native.sentence!));
    expect(ours.sentence, seen).toBeLessThanOrEqual(Math.max(0.6, 2 * native.sentence!));
    expect(ours.paragraph, seen).toBeGreaterThanOrEqual(0.7 * native.paragraph!);
    expect(ours.comma, seen).toBeLessThan(ours.sentence);
    expect(ours.clause, seen).toBeLessThan(ours.sentence);
    expect(ours.clause, seen).toBeGreaterThanOrEqual(0.1);
    expect(ours.paragraph, seen).toBeGreaterThan(ours.sentence + 0.15);
    // The timings follow the audio: the pause lies between the last word of one sentence and the first of the next.
    for (const [kind, r] of Object.entries(runs)) {
      expect(r.before?.word, kind).toBe('station');
      expect(r.after?.word.toLowerCase(), kind).toBe('we');
      expect(r.after!.start - r.before!.end, kind).toBeGreaterThanOrEqual(r.pause.sec - 0.04);
    }
  }, 180_000);
});

describe('pauses follow the request', () => {
  it('a faster speed pauses for less', async () => {
    const slow = await rendered({ text: TEXTS.sentence, voiceId: 'espeak:en-us' });
    const fast = await rendered({ text: TEXTS.sentence, voiceId: 'espeak:en-us', speed: 2 });
    expect(fast.pause.sec).toBeLessThan(slow.pause.sec * 0.75);
    expect(fast.after!.start - fast.before!.end).toBeGreaterThanOrEqual(fast.pause.sec - 0.04);
  }, 120_000);

  it('a break at a sentence’s end replaces its pause; a paragraph’s end (</p>) gets a paragraph’s', async () => {
    const written = 'The train left the station. We waited for the next one.';
    const doc = (part: MarkupDocument['parts'][number]): MarkupDocument => ({
      written,
      characters: written.replace(/\s/g, '').length,
      spans: [],
      rules: [],
      parts: [part, { end: written.length }],
      marks: [],
    });
    const first = { end: 'The train left the station.'.length };
    const broken = await rendered({ text: written, voiceId: 'espeak:en-us', markup: doc({ ...first, pauseMs: 1000 }) });
    expect(broken.pause.sec).toBeGreaterThanOrEqual(0.95);
    expect(broken.pause.sec).toBeLessThan(1.1);
    const paragraph = await rendered({
      text: written,
      voiceId: 'espeak:en-us',
      markup: doc({ ...first, boundary: 'paragraph' }),
    });
    expect(paragraph.pause.sec).toBeGreaterThanOrEqual(PAUSE_MS.paragraph / 1000 - 0.05);
    expect(paragraph.after!.start - paragraph.before!.end).toBeGreaterThanOrEqual(paragraph.pause.sec - 0.04);
  }, 120_000);
});

describe('how a sentence ends', () => {
  it('by its punctuation, Western and CJK, closing quotes looked through; a line break makes a paragraph', () => {
    expect(['Yes.', 'Really?"', '好。', '真的吗？', 'wait,', 'so;', '如下：', 'and then'].map(endOf)).toEqual([
      'sentence',
      'sentence',
      'sentence',
      'sentence',
      'clause',
      'clause',
      'clause',
      'word',
    ]);
    const text = 'One. Two;\nThree.\n\n第四。第五';
    expect(sentenceEnds(text, ['One.', 'Two;', 'Three.', '第四。', '第五'])).toEqual([
      'sentence',
      'paragraph',
      'paragraph',
      'sentence',
      'word',
    ]);
    const ctx = { findVoice: () => undefined, maxTextLength: 5000 };
    const voice = speech.getVoice('espeak:en-us')!;
    expect(makePlan({ text: 'A first one.\n\nA second one, then; a third.', voice }, ctx).ends).toEqual([
      'paragraph',
      'clause',
      'sentence',
    ]);
  });
});
