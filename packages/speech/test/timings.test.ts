/** Timings: the alignment of a request's text to its audio, from eSpeak NG's word events through the whole pipeline. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '../src/dsp/pcm.ts';
import { LABEL_GAP_SEC, rhythmCue } from '../src/pipeline/ai-label.ts';
import {
  buildTimings,
  mapText,
  timingsOf,
  trimWordSilences,
  type SentenceTiming,
  type Timings,
} from '../src/pipeline/timings.ts';
import { alignByReference } from '../src/pipeline/dtw-align.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import { expectWellFormed, pauses } from './support/timings.ts';
import { referenceBuildTimings, referenceCoveredPrefix } from './support/timings-reference.ts';

describe('timings without an engine', () => {
  it('give each word its interval and the characters between words the gaps', () => {
    const text = 'Hello  world, again.';
    const t = buildTimings(
      text,
      'Hello world, again.',
      [
        {
          text: 'Hello world, again.',
          start: 0.5,
          duration: 2,
          words: [
            { word: 'Hello', start: 0.1, end: 0.5 },
            { word: 'world', start: 0.5, end: 1.0 },
            { word: 'again', start: 1.4, end: 1.9 },
          ],
        },
      ],
      3,
    );
    expectWellFormed(t, text);
    expect(t.words.map((w) => [w.word, w.start, w.end])).toEqual([
      ['Hello', 0.6, 1],
      ['world', 1, 1.5],
      ['again', 1.9, 2.4],
    ]);
    const comma = t.alignment.characters.indexOf(',');
    expect(t.alignment.character_start_times_seconds[comma]).toBeGreaterThanOrEqual(1.5);
    expect(t.alignment.character_end_times_seconds[comma]).toBeLessThanOrEqual(1.9);
    // 'H' takes the first fifth of its word.
    expect(t.alignment.character_end_times_seconds[0]).toBeCloseTo(0.68, 3);
  });

  it('map a number written out to the digits the request sent', () => {
    const original = 'It costs 25 dollars.';
    const normalized = 'It costs twenty-five dollars.';
    const map = mapText(original, normalized);
    const two = original.indexOf('25');
    expect(normalized.slice(map.from[two]!, map.to[two]!)).toContain('twenty');
    const t = buildTimings(
      original,
      normalized,
      [
        {
          text: normalized,
          start: 0,
          duration: 2,
          words: [
            { word: 'It', start: 0, end: 0.2 },
            { word: 'costs', start: 0.2, end: 0.6 },
            { word: 'twenty-five', start: 0.6, end: 1.3 },
            { word: 'dollars', start: 1.3, end: 1.8 },
          ],
        },
      ],
      2,
    );
    expectWellFormed(t, original);
    const w = t.words.find((x) => x.word === '25')!;
    expect(w.start).toBeCloseTo(0.6, 2);
    expect(w.end).toBeCloseTo(1.3, 2);
  });

  it('give CJK characters each their share of the word eSpeak reports', () => {
    const text = '你好世界';
    const t = buildTimings(
      text,
      text,
      [
        {
          text,
          start: 0,
          duration: 1,
          words: [
            { word: '你好', start: 0, end: 0.4 },
            { word: '世界', start: 0.4, end: 0.8 },
          ],
        },
      ],
      1,
    );
    expectWellFormed(t, text);
    expect(t.words.map((w) => w.start)).toEqual([0, 0.2, 0.4, 0.6]);
  });

  it('bring a word end back over the pause that follows it', () => {
    const rate = 1000;
    const samples = new Float32Array(1000);
    for (let i = 0; i < 300; i++) samples[i] = Math.sin(i);
    for (let i = 700; i < 1000; i++) samples[i] = Math.sin(i);
    const [a, b] = trimWordSilences(samples, rate, [
      { word: 'a', start: 0, end: 0.7 },
      { word: 'b', start: 0.7, end: 1 },
    ]);
    expect(a!.end).toBeCloseTo(0.3, 2);
    expect(b!.start).toBeCloseTo(0.7, 2);
  });
});

describe("timings built as a stream goes (the text's part made once)", () => {
  /** A small seeded generator, so a failure can be run again. */
  const random = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const cases: {
    original: string;
    normalized: string;
    spoken?: Parameters<typeof timingsOf>[2];
    marks?: { name: string; at: number }[];
  }[] = [
    {
      original: 'It costs 25 dollars.  Then 3 more!\nDr. Smith said: "fine"; ok?',
      normalized: 'It costs twenty-five dollars. Then three more! Doctor Smith said: "fine"; ok?',
    },
    { original: '你好，世界。我们在2024年5月3日见面。好的！', normalized: '你好，世界。我们在二零二四年五月三日见面。好的！' },
    {
      original: 'Emoji 😀 here. Pairs 𝒳 and \u{1F600}\u{1F601} too. End.',
      normalized: 'Emoji 😀 here. Pairs 𝒳 and 😀😁 too. End.',
    },
    {
      original: 'Call ACME now. Then leave, please.',
      normalized: 'Call Acme Corporation now. Then leave, please.',
      spoken: {
        text: 'Call Acme Corporation now. Then leave, please.',
        spans: [{ from: 5, to: 9, spokenFrom: 5, spokenTo: 21 }],
      },
      marks: [
        { name: 'a', at: 5 },
        { name: 'b', at: 15 },
        { name: 'end', at: 99 },
      ],
    },
  ];

  it('give, call for call, what building them whole gave: every alignment, word, mark and known count', () => {
    for (const [n, c] of cases.entries()) {
      for (let seed = 1; seed <= 12; seed++) {
        const rand = random(seed * 7919 + n);
        const sentences = c.normalized
          .match(/[^.!?。！？]+[.!?。！？]*\s*/gu)!
          .map((t) => t.trim())
          .filter(Boolean);
        const builder = timingsOf(c.original, c.normalized, c.spoken, c.marks);
        const placed: SentenceTiming[] = [];
        let at = rand() * 0.5;
        for (const text of sentences) {
          const duration = 0.3 + rand() * 2;
          // The engine's words: most of the sentence's, some missing, some a little past its end, in its own times.
          const words = (text.match(/[\p{L}\p{N}'-]+/gu) ?? [])
            .filter(() => rand() > 0.15)
            .map((word, i, all) => {
              const start = (duration * i) / all.length + rand() * 0.05;
              return { word, start, end: start + (duration / all.length) * (0.6 + rand() * 0.7) };
            });
          placed.push({ text, start: at, duration, words });
          at += duration;
          const toCome = sentences.slice(placed.length).map((t) => ({ text: t, start: at, duration: 0, words: [] }));
          const all = [...placed, ...toCome];
          const label = `case ${n}, seed ${seed}, sentence ${placed.length}`;
          expect(builder.build(all, at), label).toEqual(
            referenceBuildTimings(c.original, c.normalized, all, at, c.spoken, c.marks),
          );
          expect(builder.covered(placed), label).toEqual(referenceCoveredPrefix(c.original, c.normalized, placed, c.spoken));
        }
        // A whole file's (one call, a label before the speech, the file longer than it).
        expect(buildTimings(c.original, c.normalized, placed, at + 0.4, c.spoken, c.marks)).toEqual(
          referenceBuildTimings(c.original, c.normalized, placed, at + 0.4, c.spoken, c.marks),
        );
      }
    }
  });
});

describe('timings of eSpeak NG speech', () => {
  let speech: Speech;
  beforeAll(async () => {
    speech = await createSpeech({ poolSize: 1, warmup: false, cache: false, sampleRate: 24000 });
  });
  afterAll(() => speech?.close());

  const text = 'The quick brown fox, who was very tired, went home. Then it slept for 3 hours!';
  const voiceId = 'espeak:en-us';

  it('lie inside the audio, in order, with pauses between the right words', async () => {
    const r = await speech.synthesize({ text, voiceId, format: 'wav', timings: true });
    const t = r.timings!;
    expectWellFormed(t, text);
    expect(t.durationSec).toBeCloseTo(r.durationSec, 3);
    expect(t.words.map((w) => w.word)).toEqual(text.match(/[\p{L}\p{N}]+/gu));
    expect(t.normalizedAlignment.characters.join('')).toContain('three');
    const { samples, sampleRate } = decodeWav(r.audio);
    // eSpeak pauses about 150 ms at a comma; anything over 100 ms counts here.
    const found = pauses(samples, sampleRate, 0.1);
    expect(found.length).toBeGreaterThanOrEqual(2);
    for (const p of found) {
      // No word reaches into a pause by more than a frame or two.
      const inside = t.words.filter((w) => w.start < p.end - 0.03 && w.end > p.start + 0.03);
      expect(inside, `pause ${p.start}–${p.end}`).toEqual([]);
    }
    // The commas' pauses lie between 'fox' and 'who', and between 'tired' and 'went'.
    const word = (w: string) => t.words.find((x) => x.word === w)!;
    for (const [before, after] of [
      ['fox', 'who'],
      ['tired', 'went'],
    ] as const)
      expect(found.some((p) => p.start >= word(before).end - 0.02 && p.end <= word(after).start + 0.02)).toBe(true);
  });

  it('of a one-sentence mp3, encoded as its engine runs, match those of the same sentence made whole', async () => {
    const one = 'The quick brown fox, who was very tired, went home.';
    const fast = await speech.synthesize({ text: one, voiceId, format: 'mp3', timings: true });
    const whole = await speech.synthesize({ text: one, voiceId, format: 'wav', timings: true });
    expectWellFormed(fast.timings!, one);
    expect(fast.timings!.words.map((w) => w.word)).toEqual(whole.timings!.words.map((w) => w.word));
    fast.timings!.words.forEach((w, i) => {
      const other = whole.timings!.words[i]!;
      expect(Math.abs(w.start - other.start), w.word).toBeLessThan(0.03);
      expect(Math.abs(w.end - other.end), w.word).toBeLessThan(0.03);
    });
  });

  it('halve, roughly, at twice the speed', async () => {
    const normal = (await speech.synthesize({ text, voiceId, format: 'wav', timings: true })).timings!;
    const fast = (await speech.synthesize({ text, voiceId, format: 'wav', timings: true, speed: 2 })).timings!;
    expectWellFormed(fast, text);
    const last = (t: Timings) => t.words.at(-1)!.start;
    const ratio = last(fast) / last(normal);
    expect(ratio).toBeGreaterThan(0.35);
    expect(ratio).toBeLessThan(0.65);
  });

  it('shift by the length of an AI label put before the speech', async () => {
    const plain = (await speech.synthesize({ text, voiceId, format: 'wav', timings: true })).timings!;
    const labelled = await speech.synthesize({
      text,
      voiceId,
      format: 'wav',
      timings: true,
      aiLabel: { kind: 'rhythm', position: 'start' },
    });
    const t = labelled.timings!;
    expectWellFormed(t, text);
    const shift = rhythmCue(24000).length / 24000 + LABEL_GAP_SEC;
    t.words.forEach((w, i) => {
      expect(w.start - plain.words[i]!.start, w.word).toBeCloseTo(shift, 2);
      expect(w.end - plain.words[i]!.end, w.word).toBeCloseTo(shift, 2);
    });
  });

  it('shift after a spoken notice, in mp3 at its own rate', async () => {
    const r = await speech.synthesize({
      text: 'Hello there.',
      voiceId,
      format: 'mp3',
      timings: true,
      aiLabel: { kind: 'speech', position: 'start' },
    });
    const t = r.timings!;
    expectWellFormed(t, 'Hello there.');
    // The notice ("This content was generated by AI.") and its gap come first.
    expect(t.words[0]!.start).toBeGreaterThan(1.2);
  });

  it('are refused for a language eSpeak NG does not speak, on an engine without word times, before any work', () => {
    // A provider's voice (no word times of its own) in a language eSpeak NG has no rendering of.
    const voice = { ...speech.listVoices({ engine: 'flite' })[0]!, engine: 'openai', languages: ['qaa'] };
    expect(() => speech.prepare({ text: 'Hello.', voice, timings: true })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });

  it("by the generic aligner land near eSpeak's own word events for another voice, accent and speed", async () => {
    const sentence = 'The quick brown fox, who was very tired, went home to sleep for a long while.';
    const errors: number[] = [];
    for (const [id, speed] of [
      ['espeak:en+f3', 1],
      ['espeak:en-gb-scotland+m3', 1.3],
      ['espeak:en-029+f1', 0.8],
    ] as const) {
      const produced = await speech.synthesize({ text: sentence, voiceId: id, format: 'wav', speed, checkLanguage: false });
      const reference = await speech.synthesize({ text: sentence, voiceId, format: 'wav' });
      const p = decodeWav(produced.audio);
      const r = decodeWav(reference.audio);
      const t0 = performance.now();
      const found = alignByReference(p, { ...r, words: reference.words });
      const ms = performance.now() - t0;
      expect(found).toHaveLength(produced.words.length);
      const mae = found.reduce((n, w, i) => n + Math.abs(w.start - produced.words[i]!.start), 0) / found.length;
      errors.push(mae);
      console.log(
        `aligner ${id} ×${speed}: word-start MAE ${(mae * 1000).toFixed(0)} ms, DTW ${ms.toFixed(0)} ms for ${produced.durationSec.toFixed(1)} s`,
      );
    }
    const mean = errors.reduce((a, b) => a + b, 0) / errors.length;
    expect(mean).toBeLessThan(0.08);
  });

  it("come with a stream, a sentence at a time before its audio, and end as the whole file's", async () => {
    for (const v of [voiceId, 'flite:slt']) {
      const seen: Timings[] = [];
      let bytesAtFirst = -1;
      let bytes = 0;
      for await (const chunk of speech.synthesizeStream({
        text,
        voiceId: v,
        format: 'mp3',
        timings: true,
        onTimings: (t) => {
          if (bytesAtFirst < 0) bytesAtFirst = bytes;
          seen.push(t);
        },
      }))
        bytes += chunk.length;
      // One call per sentence, the first before any audio of the speech left.
      expect(seen, v).toHaveLength(2);
      expect(bytesAtFirst, v).toBeLessThan(bytes / 4);
      const [first, last] = [seen[0]!, seen.at(-1)!];
      expect(first.durationSec).toBeLessThan(last.durationSec);
      // The first sentence's words are timed inside its own audio; the second's wait at its end.
      const home = first.words.find((w) => w.word === 'home')!;
      expect(home.end).toBeLessThanOrEqual(first.durationSec + 1e-3);
      expect(Math.abs(first.words.find((w) => w.word === 'slept')!.start - first.durationSec)).toBeLessThan(0.01);
      // What is final: the first sentence's characters, then all of them.
      expect(first.known).toEqual({
        characters: text.indexOf('home.') + 5,
        normalized: first.normalizedAlignment.characters.join('').indexOf('home.') + 5,
      });
      expect(last.known!.characters).toBe(text.length);
      expectWellFormed(last, text);
      // The same times as a whole file's (the same audio, the same sentences).
      const whole = (await speech.synthesize({ text, voiceId: v, format: 'mp3', timings: true })).timings!;
      last.words.forEach((w, i) => expect(Math.abs(w.start - whole.words[i]!.start), `${v} ${w.word}`).toBeLessThan(0.03));
    }
  });
});
