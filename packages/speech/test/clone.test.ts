/**
 * Cloning fidelity, judged by the analysis module on synthesized audio: clones of jfk.wav and of
 * the LJ speaker on the default English voice (Flite slt, the library's first English voice) must
 * land within a semitone of the sample's F0 median and at most half the base voice's LTAS
 * distance, and still read the text. Also: the plain path untouched, and the zero-shot path.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeSample, cloneProfile, referenceFromSample, type VoiceMeasures } from '../src/analysis/index.ts';
import { LTAS_BANDS, ltasDistance } from '../src/analysis/ltas.ts';
import { conversionOf, convertVoice } from '../src/dsp/convert.ts';
import { measurePcm } from '../src/analysis/measure.ts';
import { runEngine } from '../src/pipeline/run-engine.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import type { Engine, EngineRequest, PcmChunk, VoiceInfo } from '../src/core/types.ts';
import { fixture, JFK_TEXT, joinedLj } from './support/fixtures.ts';
import { envelopeCorrelation, measureWav, semitones } from './support/judge.ts';
import { writeTinyZipVoice } from './support/tiny-models.ts';

/** The library's default English voice (the server ranks Flite slt first: voices/ranking.ts). */
const DEFAULT_ENGLISH = 'flite:slt';
const TEXT = `${JFK_TEXT} Printing, in the only sense with which we are at present concerned, differs from most if not from all the arts and crafts.`;
const OTHER_TEXT =
  'The morning train left the station slowly, carrying travellers towards the distant mountains and the sea beyond them.';

let speech: Speech;
let base: VoiceInfo;
beforeAll(async () => {
  speech = await createSpeech({ poolSize: 2, cache: false });
  base = speech.getVoice(DEFAULT_ENGLISH)!;
}, 90_000);
afterAll(() => speech.close());

const render = async (text: string, profile?: VoiceInfo['profile']) =>
  measureWav((await speech.synthesize({ text, voice: base, ...(profile ? { profile } : {}), format: 'wav' })).audio);

describe.each([
  ['jfk.wav (adult male)', () => fixture('jfk.wav')],
  ['the LJ speaker (eight files joined)', () => joinedLj()],
])('a clone of %s on the default English voice', (_, sample) => {
  let measures: VoiceMeasures;
  let plain: Awaited<ReturnType<typeof render>>;
  let clone: Awaited<ReturnType<typeof render>>;
  let rate: number;
  beforeAll(async () => {
    measures = (await analyzeSample(sample())).measures;
    const profile = cloneProfile(measures, base);
    rate = profile.rate;
    [plain, clone] = await Promise.all([render(TEXT), render(TEXT, profile)]);
  });

  it("speaks within 1 semitone of the sample's F0 median", () => {
    const error = semitones(clone.f0MedianHz, measures.f0MedianHz);
    console.log(
      `F0: sample ${measures.f0MedianHz.toFixed(1)} Hz, clone ${clone.f0MedianHz.toFixed(1)} Hz (${error.toFixed(2)} st), base ${plain.f0MedianHz.toFixed(1)} Hz`,
    );
    expect(Math.abs(error)).toBeLessThan(1);
    // The base voice was not already there: the clone moved.
    expect(Math.abs(semitones(plain.f0MedianHz, measures.f0MedianHz))).toBeGreaterThan(1.5);
  });

  it("has at most half the base voice's LTAS distance to the sample", () => {
    const before = ltasDistance(plain.ltas, measures.ltas);
    const after = ltasDistance(clone.ltas, measures.ltas);
    console.log(
      `LTAS distance: base ${before.toFixed(2)} dB, clone ${after.toFixed(2)} dB, ratio ${(after / before).toFixed(3)}`,
    );
    expect(after).toBeLessThanOrEqual(0.5 * before);
  });

  it('still reads the text: the same syllables, rising and falling with the base voice reading it', async () => {
    // Its duration is the base's over the clone's rate, give or take a tenth.
    const expected = plain.durationSec / rate;
    expect(Math.abs(clone.durationSec - expected) / expected).toBeLessThan(0.12);
    // As many energy nuclei (syllables) as the base voice finds in the same text, within a fifth.
    const syllables = (m: typeof plain) => m.speakingRate * m.speechSec;
    expect(Math.abs(syllables(clone) - syllables(plain)) / syllables(plain)).toBeLessThan(0.2);
    const same = envelopeCorrelation(plain.samples, plain.sampleRate, clone.samples, clone.sampleRate);
    const other = await render(OTHER_TEXT);
    const different = envelopeCorrelation(plain.samples, plain.sampleRate, other.samples, other.sampleRate);
    console.log(`envelope correlation with the base reading: same text ${same.toFixed(2)}, another text ${different.toFixed(2)}`);
    expect(same).toBeGreaterThan(0.6);
    expect(same).toBeGreaterThan(different + 0.3);
  });
});

describe.each(['espeak:en-us+f4', 'gnuspeech:female', 'flite:awb'])('a clone of jfk.wav on %s, another engine', (id) => {
  it('lands within 1 semitone of the F0 median and at most half the LTAS distance', async () => {
    const voice = speech.getVoice(id)!;
    const { measures } = await analyzeSample(fixture('jfk.wav'));
    const [plain, clone] = await Promise.all(
      [undefined, cloneProfile(measures, voice)].map(async (profile) =>
        measureWav((await speech.synthesize({ text: TEXT, voice, ...(profile ? { profile } : {}), format: 'wav' })).audio),
      ),
    );
    expect(Math.abs(semitones(clone!.f0MedianHz, measures.f0MedianHz))).toBeLessThan(1);
    expect(ltasDistance(clone!.ltas, measures.ltas)).toBeLessThanOrEqual(0.5 * ltasDistance(plain!.ltas, measures.ltas));
  });
});

describe('the plain path', () => {
  it('a profile without conversion fields gives byte-identical audio to none at all', async () => {
    const text = 'Nothing about this voice was changed.';
    const plain = await speech.synthesize({ text, voiceId: DEFAULT_ENGLISH, format: 'wav' });
    const same = await speech.synthesize({ text, voice: base, profile: { ...base.profile }, format: 'wav' });
    expect(same.audio.equals(plain.audio)).toBe(true);
    // GnuSpeech is deterministic too (eSpeak is not: two identical requests differ in their noise).
    const gnu = speech.getVoice('gnuspeech:female')!;
    const a = await speech.synthesize({ text, voiceId: gnu.id, format: 'wav' });
    const b = await speech.synthesize({ text, voice: gnu, profile: JSON.parse(JSON.stringify(gnu.profile)), format: 'wav' });
    expect(b.audio.equals(a.audio)).toBe(true);
  });

  it('no library voice asks for conversion with its own profile', () => {
    const asking = speech.listVoices().filter((v) => conversionOf(v.profile, v.profile));
    expect(asking.map((v) => v.id)).toEqual([]);
  });

  it('a clone profile from damaged stored measures is still a valid profile', () => {
    const damaged = [
      JSON.parse('{"f0MedianHz": null, "ltas": "x", "formantsHz": {"__proto__": 1}, "hnrDb": "loud"}'),
      {
        f0MedianHz: Number.NaN,
        f0RangeSemitones: Infinity,
        speakingRate: -3,
        formantsHz: [1e9, -1, 0],
        ltas: [1, 2],
        hnrDb: Number.NaN,
      },
      {
        f0MedianHz: 9000,
        f0RangeSemitones: 300,
        speakingRate: 1e6,
        formantsHz: [500, 1500, 2500],
        ltas: LTAS_BANDS.map(() => Number.NaN),
        hnrDb: -50,
      },
      {},
    ] as unknown as VoiceMeasures[];
    for (const m of damaged) {
      const p = cloneProfile(m, base);
      for (const v of [p.pitchHz, p.range, p.rate, p.formantScale, p.breathiness, p.gainDb])
        expect(Number.isFinite(v)).toBe(true);
      expect(p.pitchHz).toBeGreaterThanOrEqual(50);
      expect(p.pitchHz).toBeLessThanOrEqual(500);
      expect(p.ltasDb === undefined || p.ltasDb.every((v) => Number.isFinite(v))).toBe(true);
      expect(JSON.parse(JSON.stringify(p))).toEqual(p);
    }
  });

  it('a clone profile is plain JSON and survives a round trip unchanged', async () => {
    const { measures } = await analyzeSample(fixture('jfk.wav'));
    const profile = cloneProfile(measures, base);
    expect(JSON.parse(JSON.stringify(profile))).toEqual(profile);
    expect(conversionOf(profile, base.profile)).toBeDefined();
    // The same sample gives the same profile.
    expect(cloneProfile(measures, base)).toEqual(profile);
  });
});

describe('a zero-shot cloning model gets the sample itself', () => {
  /** An engine that clones natively, at the engine interface: it records what it was given. */
  class FakeZeroShot implements Engine {
    readonly id = 'fake-zero-shot';
    readonly capabilities = {
      quality: 30,
      languages: ['en'],
      mixable: false,
      nativeCloning: true,
      ssml: false,
      wordTimings: false,
      nativePitch: true,
      nativeSpeed: true,
    };
    seen: EngineRequest[] = [];
    output = new Float32Array(24000).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 180 * i) / 24000));
    listVoices = () => [];
    listModels = () => [];
    async *synthesize(req: EngineRequest): AsyncIterable<PcmChunk> {
      this.seen.push(req);
      yield { samples: this.output.slice(), sampleRate: 24000 };
    }
  }

  it('passes the decoded, trimmed sample and its transcript through EngineRequest.reference, unconverted', async () => {
    const reference = await referenceFromSample(fixture('jfk.wav'), { transcript: ` ${JFK_TEXT} ` });
    expect(reference.sampleRate).toBe(24000);
    expect(reference.text).toBe(JFK_TEXT);
    // At most 15 s, and the leading silence gone (jfk.wav starts with a breath of quiet).
    expect(reference.samples.length / 24000).toBeLessThanOrEqual(15);
    expect(reference.samples.length / 24000).toBeGreaterThan(9);

    const engine = new FakeZeroShot();
    const voice: VoiceInfo = { ...base, id: 'fake-zero-shot:clone', engine: engine.id, model: 'fake', variant: 'clone' };
    const { measures } = await analyzeSample(fixture('jfk.wav'));
    const profile = cloneProfile(measures, voice);
    const job = {
      engine: engine.id,
      voice,
      text: 'Hello there.',
      speed: 1,
      pitch: 0,
      profile,
      sampleRate: 24000,
      loudness: false,
    };
    const withRef = await runEngine(engine, { ...job, reference });
    expect(engine.seen[0]!.reference).toBe(reference);
    expect(engine.seen[0]!.reference!.text).toBe(JFK_TEXT);
    // The model imitates the sample itself: no conversion on top of it.
    expect(Buffer.from(withRef.samples.buffer).equals(Buffer.from(engine.output.buffer))).toBe(true);
    // Without a reference, the same profile goes through the conversion stage.
    const converted = await runEngine(engine, job);
    expect(engine.seen[1]!.reference).toBeUndefined();
    expect(Buffer.from(converted.samples.buffer).equals(Buffer.from(engine.output.buffer))).toBe(false);
  });

  it('no transcript means no text, and an undecodable sample is refused as a file type', async () => {
    const reference = await referenceFromSample(fixture('jfk.mp3'), { transcript: '   ', sampleRate: 16000 });
    expect(reference.text).toBeUndefined();
    expect(reference.sampleRate).toBe(16000);
    await expect(referenceFromSample(new URL(import.meta.url).pathname)).rejects.toMatchObject({
      code: 'UNSUPPORTED_FILE_TYPE',
    });
  });
});

describe('a zero-shot model in MODELS_DIR, through the pool (a tiny ZipVoice the test builds)', () => {
  let dir: string;
  let zs: Speech;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'polyvox-zeroshot-'));
    writeTinyZipVoice(path.join(dir, 'tiny-zipvoice'));
    const files = ['encoder', 'decoder', 'vocoder'].map((f) => [f, `tiny-zipvoice/${f}.onnx`]);
    writeFileSync(
      path.join(dir, 'manifest.json'),
      JSON.stringify({
        models: [
          {
            id: 'tiny-zipvoice',
            name: 'Tiny ZipVoice',
            type: 'zipvoice',
            languages: ['en'],
            files: {
              ...Object.fromEntries(files),
              tokens: 'tiny-zipvoice/tokens.txt',
              lexicon: 'tiny-zipvoice/lexicon.txt',
            },
          },
        ],
      }),
    );
    zs = await createSpeech({ modelsDir: dir, poolSize: 1, warmup: false, cache: false });
  });
  afterAll(async () => {
    await zs.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes the uploaded sample and its transcript, and no conversion is stacked on the model', async () => {
    const voice = zs.cloneVoice('tiny-zipvoice', 'My clone');
    const reference = await referenceFromSample(fixture('jfk.wav'), { transcript: JFK_TEXT });
    const { measures } = await analyzeSample(fixture('jfk.wav'));
    const profile = cloneProfile(measures, voice);
    expect(conversionOf(profile, voice.profile)).toBeDefined();
    const text = 'hello world. hello world.';
    const alone = await zs.synthesize({ text, voice, reference, format: 'wav' });
    const withProfile = await zs.synthesize({
      text,
      voice,
      reference,
      profile: { ...voice.profile, ...profile, pitchHz: voice.profile.pitchHz, rate: voice.profile.rate },
      format: 'wav',
    });
    expect(measureWav(alone.audio).speechSec).toBeGreaterThan(0.3);
    // The tiny model starts from random noise, so two renderings differ a little: compare spectra.
    const a = measureWav(alone.audio);
    const b = measureWav(withProfile.audio);
    const unchanged = ltasDistance(a.ltas, b.ltas);
    // What the conversion stage would have done to the same audio, for scale.
    const converted = convertVoice(a.samples, a.sampleRate, conversionOf(profile, voice.profile)!);
    const wouldMove = ltasDistance(a.ltas, measurePcm(converted, a.sampleRate).ltas);
    console.log(
      `zero-shot: LTAS change with the clone profile ${unchanged.toFixed(2)} dB; converting would move it ${wouldMove.toFixed(2)} dB`,
    );
    expect(wouldMove).toBeGreaterThan(3);
    expect(unchanged).toBeLessThan(wouldMove / 4);
  });
});
