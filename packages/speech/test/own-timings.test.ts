/**
 * Flite's and GnuSpeech's own word times (Flite's printed segments matched with each word's phones, GnuSpeech's
 * postures and rule durations) through the whole pipeline, and the phone matching they share.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '../src/dsp/pcm.ts';
import { FliteEngine, fliteSegments } from '../src/engines/flite.ts';
import { gnuspeechWords } from '../src/engines/gnuspeech.ts';
import { textTokens, wordsFromPhones } from '../src/engines/phone-timing.ts';
import { LABEL_GAP_SEC, rhythmCue } from '../src/pipeline/ai-label.ts';
import type { Timings } from '../src/pipeline/timings.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import type { PcmChunk } from '../src/core/types.ts';
import { openAIServer, type ProviderServer } from './support/provider-servers.ts';
import { expectWellFormed, pauses } from './support/timings.ts';

const TEXTS = [
  'The quick brown fox, who was very tired, went home. Then it slept for three hours!',
  'Please bring your passport, your tickets and a warm coat. Have you ever wondered why the sky turns orange?',
];

describe('own word times of Flite and GnuSpeech', () => {
  let speech: Speech;
  let provider: ProviderServer;
  beforeAll(async () => {
    provider = await openAIServer();
    speech = await createSpeech({
      poolSize: 1,
      warmup: false,
      cache: false,
      sampleRate: 24000,
      remote: { openai: { url: provider.url, key: 'good', model: 'tts-1' } },
    });
  });
  afterAll(async () => {
    await speech?.close();
    await provider?.close();
  });

  for (const voiceId of ['flite:slt', 'flite:kal', 'gnuspeech:female'])
    it(`${voiceId}: every word inside the audio, in order, and the pauses over 150 ms between the words the text parts`, async () => {
      for (const text of TEXTS) {
        const r = await speech.synthesize({ text, voiceId, format: 'wav', timings: true });
        const t = r.timings!;
        expectWellFormed(t, text);
        // The engine's own words (the generic aligner's never reach `words`), one for each word of the text.
        expect(r.words.map((w) => w.word)).toEqual(text.match(/[\p{L}\p{N}]+/gu));
        const { samples, sampleRate } = decodeWav(r.audio);
        const found = pauses(samples, sampleRate, 0.15);
        // At least the sentence end between the two sentences.
        expect(found.length, voiceId).toBeGreaterThanOrEqual(1);
        for (const p of found) {
          expect(
            t.words.filter((w) => w.start < p.end - 0.03 && w.end > p.start + 0.03),
            `${voiceId}: pause ${p.start}–${p.end}`,
          ).toEqual([]);
          const before = t.words.filter((w) => w.end <= p.start + 0.03).at(-1)!;
          const after = t.words.find((w) => w.start >= p.end - 0.03)!;
          expect(
            Array.from(text).slice(before.charEnd, after.charStart).join(''),
            `${voiceId}: ${before.word} | ${after.word}`,
          ).toMatch(/[,.!?]/u);
        }
        // The second sentence starts after the first one's last word, past its pause.
        const second = text.indexOf('. ') + 2;
        const first = t.words.find((w) => w.charStart >= second)!;
        const last = t.words.filter((w) => w.charEnd < second).at(-1)!;
        expect(first.start - last.end, voiceId).toBeGreaterThan(0.1);
      }
    });

  it('time a word Flite has not met, between words it has, from what it spoke between them: no run of the phones', async () => {
    const engine = new FliteEngine();
    try {
      const voice = engine.listVoices().find((v) => v.variant === 'kal16')!;
      const timed = async (text: string) => {
        const chunks: PcmChunk[] = [];
        for await (const c of engine.synthesize({ text, voice, speed: 1, pitch: 0, profile: voice.profile, words: true }))
          chunks.push(c);
        return chunks[0]!.words!;
      };
      const known = await timed('The quick brown fox, who was very tired, went home.');
      expect(engine.phonesRuns).toBe(1);
      const words = await timed('The quick brown fox, who was very zorbulatic, went home.');
      expect(engine.phonesRuns).toBe(1);
      expect(words.map((w) => w.word)).toEqual([
        'The',
        'quick',
        'brown',
        'fox',
        'who',
        'was',
        'very',
        'zorbulatic',
        'went',
        'home',
      ]);
      // The words before it as they were; it starts where "very" ends, lasts its four syllables, and ends before the
      // comma's pause; every word in order.
      words.slice(0, 7).forEach((w, i) => expect(Math.abs(w.start - known[i]!.start), w.word).toBeLessThan(0.02));
      const [very, coined, went] = [words[6]!, words[7]!, words[8]!];
      expect(coined.start).toBeCloseTo(very.end, 6);
      expect(coined.end - coined.start).toBeGreaterThan(0.35);
      expect(went.start - coined.end).toBeGreaterThan(0.1);
      words.slice(1).forEach((w, i) => expect(w.start, w.word).toBeGreaterThanOrEqual(words[i]!.end));
      // Learnt: next to another new word it needs no run either.
      await timed('The zorbulatic quarnified fox went home.');
      expect(engine.phonesRuns).toBe(1);
    } finally {
      await engine.close();
    }
  });

  it('follow Flite past its native speed (the rest time-stretched) and shift after an AI label', async () => {
    const text = TEXTS[0]!;
    const at = (t: Timings) => t.words.at(-1)!.start;
    const normal = (await speech.synthesize({ text, voiceId: 'flite:slt', format: 'wav', timings: true })).timings!;
    const fast = (await speech.synthesize({ text, voiceId: 'flite:slt', format: 'wav', timings: true, speed: 3.5 })).timings!;
    expectWellFormed(fast, text);
    expect(at(fast) / at(normal)).toBeGreaterThan(0.18);
    expect(at(fast) / at(normal)).toBeLessThan(0.4);
    const labelled = await speech.synthesize({
      text,
      voiceId: 'flite:slt',
      format: 'wav',
      timings: true,
      aiLabel: { kind: 'rhythm', position: 'start' },
    });
    expectWellFormed(labelled.timings!, text);
    const shift = rhythmCue(24000).length / 24000 + LABEL_GAP_SEC;
    labelled.timings!.words.forEach((w, i) => expect(w.start - normal.words[i]!.start, w.word).toBeCloseTo(shift, 2));
  });

  it('of a one-sentence mp3 (encoded as the engine runs) match those of the same sentence made whole', async () => {
    const one = 'The quick brown fox, who was very tired, went home.';
    for (const voiceId of ['flite:kal16', 'gnuspeech:male']) {
      const fast = (await speech.synthesize({ text: one, voiceId, format: 'mp3', timings: true })).timings!;
      const whole = (await speech.synthesize({ text: one, voiceId, format: 'wav', timings: true })).timings!;
      expectWellFormed(fast, one);
      fast.words.forEach((w, i) => expect(Math.abs(w.start - whole.words[i]!.start), `${voiceId} ${w.word}`).toBeLessThan(0.03));
    }
  });

  it('follow GnuSpeech at twice the speed', async () => {
    const text = TEXTS[1]!;
    const at = (t: Timings) => t.words.at(-1)!.start;
    const normal = (await speech.synthesize({ text, voiceId: 'gnuspeech:male', format: 'wav', timings: true })).timings!;
    const fast = (await speech.synthesize({ text, voiceId: 'gnuspeech:male', format: 'wav', timings: true, speed: 2 })).timings!;
    expectWellFormed(fast, text);
    expect(at(fast) / at(normal)).toBeGreaterThan(0.35);
    expect(at(fast) / at(normal)).toBeLessThan(0.65);
  });

  it('leave engines with none of their own (a remote provider) to the generic aligner, in shape', async () => {
    const text = TEXTS[0]!;
    const r = await speech.synthesize({ text, voiceId: 'openai:nova', format: 'wav', timings: true });
    expect(r.words).toEqual([]);
    expectWellFormed(r.timings!, text);
    expect(r.timings!.words.at(-1)!.start).toBeGreaterThan(r.durationSec / 2);
  });
});

describe('phone matching', () => {
  const timed = (names: string[], step = 0.1) => names.map((name, i) => ({ name, start: i * step, end: (i + 1) * step }));

  it("carries a phone the engine added, dropped or changed to the right word, moving no other word's bounds", () => {
    // "towards the": the engine adds a devoiced "qz" after "z", drops "ax" of "the" and says "iy" for "ih".
    const spoken = timed(['t', 'ax', 'w', 'ao', 'r', 'd', 'z', 'qz', 'dh', 'd', 'ih', 's', 't']);
    const words = wordsFromPhones(spoken, [
      { word: 'towards', phones: ['t', 'ax', 'w', 'ao', 'r', 'd', 'z'] },
      { word: 'the', phones: ['dh', 'ax'] },
      { word: 'distant', phones: ['d', 'iy', 's', 't'] },
    ]);
    expect(words.map((w) => [w.word, +w.start.toFixed(2), +w.end.toFixed(2)])).toEqual([
      ['towards', 0, 0.8],
      ['the', 0.8, 0.9],
      ['distant', 0.9, 1.3],
    ]);
  });

  it('guesses a word whose phones are unknown between the words it knows, and leaves out one no phone matched', () => {
    const spoken = timed(['hh', 'ax', 'l', 'ow', 'k', 'w', 'ah', 'r', 'k', 's', 'w', 'er', 'l', 'd']);
    const words = wordsFromPhones(spoken, [
      { word: 'hello', phones: ['hh', 'ax', 'l', 'ow'] },
      { word: 'quarks', phones: ['?', '?', '?', '?', '?', '?'] },
      { word: 'world', phones: ['w', 'er', 'l', 'd'] },
    ]);
    expect(words.map((w) => [w.word, +w.start.toFixed(2), +w.end.toFixed(2)])).toEqual([
      ['hello', 0, 0.4],
      ['quarks', 0.4, 1],
      ['world', 1, 1.4],
    ]);
    expect(
      wordsFromPhones(timed(['a']), [
        { word: 'a', phones: ['a'] },
        { word: 'b', phones: [] },
      ]),
    ).toHaveLength(1);
    expect(wordsFromPhones([], [{ word: 'a', phones: ['a'] }])).toEqual([]);
  });

  it('places words of unknown phones on what was spoken between the words it knows, a run of them parted on a pause', () => {
    const at = (ws: { word: string; start: number; end: number }[]) =>
      ws.map((w) => [w.word, +w.start.toFixed(2), +w.end.toFixed(2)]);
    const spoken = timed(['hh', 'ax', 'l', 'ow', 'b', 'aa', 'k', 'ow', 'm', 'iy', 'w', 'er', 'l', 'd']);
    expect(
      at(
        wordsFromPhones(spoken, [
          { word: 'hello', phones: ['hh', 'ax', 'l', 'ow'] },
          { word: 'bakomi', phones: null },
          { word: 'world', phones: ['w', 'er', 'l', 'd'] },
        ]),
      ),
    ).toEqual([
      ['hello', 0, 0.4],
      ['bakomi', 0.4, 1],
      ['world', 1, 1.4],
    ]);
    // Two unknown words with a pause between them: their guessed lengths (6 and 5) would part them at the 6th phone,
    // the pause after the 4th does.
    const paused = timed(['dh', 'eh', 'n', 'z', 'ao', 'r', 'b', 'k', 'w', 'ih', 'n', 't', 'aa', 'r', 'd', 'ah', 'n']).map(
      (p, i) => (i >= 7 ? { ...p, start: p.start + 0.3, end: p.end + 0.3 } : p),
    );
    expect(
      at(
        wordsFromPhones(paused, [
          { word: 'then', phones: ['dh', 'eh', 'n'] },
          { word: 'zorb', phones: null, weight: 6 },
          { word: 'quinthar', phones: null, weight: 5 },
          { word: 'done', phones: ['d', 'ah', 'n'] },
        ]),
      ),
    ).toEqual([
      ['then', 0, 0.3],
      ['zorb', 0.3, 0.7],
      ['quinthar', 1, 1.7],
      ['done', 1.7, 2],
    ]);
    // Fewer phones than unknown words, or none between known words: words left out, the rest in order.
    const few = wordsFromPhones(timed(['a', 'x', 'y', 'b']), [
      { word: 'a', phones: ['a'] },
      { word: 'p', phones: null },
      { word: 'q', phones: null },
      { word: 'r', phones: null },
      { word: 'b', phones: ['b'] },
    ]);
    expect(few.map((w) => w.word)).toEqual(['a', 'p', 'r', 'b']);
    few.slice(1).forEach((w, i) => expect(w.start).toBeGreaterThanOrEqual(few[i]!.end));
    expect(
      wordsFromPhones(timed(['a', 'b']), [
        { word: 'a', phones: ['a'] },
        { word: 'p', phones: null },
        { word: 'b', phones: ['b'] },
      ]).map((w) => w.word),
    ).toEqual(['a', 'b']);
  });

  it("reads Flite's segments utterance after utterance, pauses left out, brought to the audio's length", () => {
    const printed = 'pau:0.100 hh:0.200 ay:0.300 pau:0.500 \npau:0.100 y:0.200 eh:0.300 s:0.400 pau:0.500 \n';
    const phones = fliteSegments(printed, 1.1);
    expect(phones.map((p) => p.name)).toEqual(['hh', 'ay', 'y', 'eh', 's']);
    expect(phones.map((p) => +p.start.toFixed(3))).toEqual([0.11, 0.22, 0.66, 0.77, 0.88]);
    expect(phones.at(-1)!.end).toBeCloseTo(0.99, 6);
  });

  it("reads GnuSpeech's postures and rules, chunk after chunk, words named by the text", () => {
    const lines = [
      'lookup_word word: hi',
      'lookup_word word: yes',
      'Speaking "/c // /0 # /w /_h_ah_i # // /c // /0 # /w /*y_e_s # // /c "',
      'Postures 5',
      '0  "^" tempo: 1',
      '1  "#" tempo: 1',
      '2  "h" tempo: 1',
      '3  "ah" tempo: 1',
      '4  "i\'" tempo: 1',
      'Rules 3',
      'Number: 43  start: 0  end: 1  duration 100.0',
      'Number: 27  start: 1  end: 3  duration 200.0',
      'Number: 3  start: 3  end: 4  duration 100.0',
      'Speaking "/c // /0 # /w /*y_e_s # // /c "',
      'Postures 4',
      '0  "#" tempo: 1',
      '1  "y" tempo: 1',
      '2  "e" tempo: 1',
      '3  "s" tempo: 1',
      'Rules 2',
      'Number: 1  start: 0  end: 1  duration 100.0',
      'Number: 2  start: 1  end: 3  duration 200.0',
    ];
    // Chunk one lasts 0.4 s: "h" at 0.2 (half way through the rule from "#"), "i" from 0.4 to the chunk's end; the
    // second chunk follows it.
    const words = gnuspeechWords(lines, 'Hi! Yes.', 0.7);
    expect(words.map((w) => [w.word, +w.start.toFixed(3), +w.end.toFixed(3)])).toEqual([
      ['Hi', 0.2, 0.4],
      ['Yes', 0.5, 0.7],
    ]);
    expect(textTokens("  “Dr. Smith's” 3.5 — ok!")).toEqual(['Dr', "Smith's", '3.5', 'ok']);
  });
});
