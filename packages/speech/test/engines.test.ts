import { afterAll, describe, expect, it } from 'vitest';
import { estimateF0, semitonesBetween } from '../src/dsp/f0.ts';
import { concatFloat32 } from '../src/dsp/pcm.ts';
import { EspeakEngine } from '../src/engines/espeak.ts';
import { FliteEngine } from '../src/engines/flite.ts';
import { GnuSpeechEngine } from '../src/engines/gnuspeech.ts';
import type { Engine, VoiceInfo, WordTiming } from '../src/core/types.ts';

const espeak = new EspeakEngine();
const flite = new FliteEngine();
const gnuspeech = new GnuSpeechEngine();
afterAll(async () => {
  await flite.close();
});

async function speak(
  engine: Engine,
  voice: VoiceInfo,
  text: string,
  pitch = 0,
  speed = 1,
): Promise<{ samples: Float32Array; rate: number; seconds: number; words: WordTiming[] }> {
  const parts: Float32Array[] = [];
  const words: WordTiming[] = [];
  let rate = 0;
  for await (const c of engine.synthesize({ text, voice, pitch, speed, profile: voice.profile })) {
    parts.push(c.samples);
    rate = c.sampleRate;
    words.push(...(c.words ?? []));
  }
  const samples = concatFloat32(parts);
  return { samples, rate, seconds: samples.length / rate, words };
}

const voice = (e: Engine, id: string): VoiceInfo => {
  const v = e.listVoices().find((x) => x.id === id);
  if (!v) throw new Error(`no voice ${id}`);
  return v;
};

const SENTENCE = 'The quick brown fox jumps over the lazy dog, and then it runs far away.';
const SHORT = 'Hello there.';

const cases: [string, Engine, string][] = [
  ['eSpeak (male)', espeak, 'espeak:en-us'],
  ['eSpeak (female variant)', espeak, 'espeak:en-gb-x-rp+f3'],
  ['Flite slt', flite, 'flite:slt'],
  ['Flite kal16', flite, 'flite:kal16'],
  ['Flite rms (pitch by DSP)', flite, 'flite:rms'],
  ['GnuSpeech male', gnuspeech, 'gnuspeech:male'],
  ['GnuSpeech female', gnuspeech, 'gnuspeech:female'],
];

describe.each(cases)('%s', (_name, engine, id) => {
  const v = voice(engine, id);

  it('makes audio whose length fits the text and the speed', async () => {
    const long = await speak(engine, v, SENTENCE);
    const short = await speak(engine, v, SHORT);
    // Speech runs at roughly 8–25 characters a second.
    expect(long.seconds).toBeGreaterThan(SENTENCE.length / 25);
    expect(long.seconds).toBeLessThan(SENTENCE.length / 8);
    expect(long.seconds / short.seconds).toBeGreaterThan(2.5);
    const fast = await speak(engine, v, SENTENCE, 0, 2);
    expect(fast.seconds / long.seconds).toBeGreaterThan(0.35);
    expect(fast.seconds / long.seconds).toBeLessThan(0.7);
  });

  it('speaks at its own pitch, and follows the requested pitch', async () => {
    const maxHz = 700;
    const minHz = 40;
    const base = estimateF0((await speak(engine, v, SENTENCE)).samples, (await speak(engine, v, SHORT)).rate, {
      maxHz,
      minHz,
    }).median;
    // The profile's pitch is the voice's typical F0; intonation moves a sentence's median around it.
    expect(Math.abs(semitonesBetween(v.profile.pitchHz, base))).toBeLessThan(4);
    for (const st of [-5, 6]) {
      const r = await speak(engine, v, SENTENCE, st);
      const f = estimateF0(r.samples, r.rate, { maxHz, minHz }).median;
      expect(semitonesBetween(base, f)).toBeGreaterThan(st - 1.5);
      expect(semitonesBetween(base, f)).toBeLessThan(st + 1.5);
    }
  });
});

describe('eSpeak specifics', () => {
  it('reads Chinese on a Mandarin voice, word by word, with word timings', async () => {
    const text = '今天天气很好我们一起去公园散步';
    const r = await speak(espeak, voice(espeak, 'espeak:cmn'), text);
    // eSpeak's Mandarin dictionary reads words (我们, 一起) or single characters: never the letters of another language.
    expect(r.words.length).toBeGreaterThanOrEqual(text.length / 2);
    expect(r.words.length).toBeLessThanOrEqual(text.length);
    expect(r.words.map((w) => w.word).join('')).toBe(text);
    expect(r.seconds).toBeGreaterThan(text.length * 0.12);
    expect(r.seconds).toBeLessThan(text.length * 0.6);
    for (let i = 1; i < r.words.length; i++) expect(r.words[i]!.start).toBeGreaterThanOrEqual(r.words[i - 1]!.start);
    expect(r.words.at(-1)!.end).toBeLessThanOrEqual(r.seconds + 1e-6);
    // An English voice has no readings for Han characters and spells each one out ("Chinese letter").
    const english = await speak(espeak, voice(espeak, 'espeak:en-us'), text);
    expect(r.seconds).toBeLessThan(english.seconds * 0.6);
  });

  it('reads Cantonese on a Cantonese voice', async () => {
    const r = await speak(espeak, voice(espeak, 'espeak:yue'), '你好，我係廣東人。');
    expect(r.seconds).toBeGreaterThan(1);
    expect(estimateF0(r.samples, r.rate).voicedFraction).toBeGreaterThan(0.2);
  });

  it('gives word timings that follow the speed', async () => {
    const v = voice(espeak, 'espeak:en-us');
    const slow = await speak(espeak, v, SENTENCE, 0, 0.5);
    const normal = await speak(espeak, v, SENTENCE);
    expect(slow.words.map((w) => w.word)).toEqual(normal.words.map((w) => w.word));
    expect(slow.words.at(-1)!.start / normal.words.at(-1)!.start).toBeGreaterThan(1.6);
  });
});
