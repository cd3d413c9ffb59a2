/**
 * sherpa-onnx with models the test builds itself (see support/tiny-models.ts), loaded through the
 * same manifest an operator writes, by the real native engine.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mixVoices } from '../src/catalogue/mix.ts';
import { estimateF0, semitonesBetween } from '../src/dsp/f0.ts';
import { concatFloat32 } from '../src/dsp/pcm.ts';
import { ManifestError, parseManifest, readManifest } from '../src/engines/sherpa-manifest.ts';
import { SherpaEngine } from '../src/engines/sherpa.ts';
import { espeakPhonemeInput } from '../src/engines/sherpa-frontend.ts';
import { ipaToEspeak } from '../src/text/phonemes.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import { decodeAudio } from '../src/audio/ffmpeg.ts';
import type { EngineRequest, VoiceInfo, VoiceProfile } from '../src/core/types.ts';
import { tone } from './support/audio.ts';
import {
  MATCHA_HZ,
  TINY_SECONDS_PER_TOKEN,
  vitsSpeakerHz,
  writeTinyKokoro,
  writeTinyMatcha,
  writeTinyPiper,
  writeTinyVits,
  writeTinyZipVoice,
  ZIPVOICE_SECONDS_PER_TOKEN,
} from './support/tiny-models.ts';

let dir: string;
let engine: SherpaEngine;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'polyvox-models-'));
  writeTinyVits(path.join(dir, 'tiny-vits'), 3);
  writeTinyPiper(path.join(dir, 'tiny-piper'), 'model', [], true);
  writeTinyKokoro(path.join(dir, 'tiny-kokoro'), [120, 240]);
  writeTinyMatcha(path.join(dir, 'tiny-matcha'));
  writeTinyZipVoice(path.join(dir, 'tiny-zipvoice'));
  writeFileSync(
    path.join(dir, 'manifest.json'),
    JSON.stringify({
      models: [
        {
          id: 'tiny-vits',
          name: 'Tiny VITS',
          type: 'vits',
          languages: ['en-US', 'en'],
          files: { model: 'tiny-vits/model.onnx', tokens: 'tiny-vits/tokens.txt' },
          speakers: [
            { sid: 0, name: 'Low', gender: 'male', pitchHz: 110 },
            { sid: 1, name: 'Mid', gender: 'male', pitchHz: 170 },
            { sid: 2, name: 'High', gender: 'female', pitchHz: 230 },
          ],
        },
        {
          id: 'tiny-piper',
          name: 'Tiny Piper',
          type: 'vits',
          languages: ['en-US', 'en'],
          files: { model: 'tiny-piper/model.onnx', tokens: 'tiny-piper/tokens.txt' },
          speakers: [{ sid: 0, name: 'Piper', gender: 'female', pitchHz: 110 }],
        },
        {
          id: 'tiny-kokoro',
          name: 'Tiny Kokoro',
          type: 'kokoro',
          languages: ['en-US', 'en'],
          files: { model: 'tiny-kokoro/model.onnx', voices: 'tiny-kokoro/voices.bin', tokens: 'tiny-kokoro/tokens.txt' },
          speakers: [
            { sid: 0, name: 'Kai', gender: 'male', pitchHz: 120 },
            { sid: 1, name: 'Kim', gender: 'female', pitchHz: 240 },
          ],
        },
        {
          id: 'tiny-matcha',
          name: 'Tiny Matcha',
          type: 'matcha',
          languages: ['en-US', 'en'],
          files: {
            acousticModel: 'tiny-matcha/acoustic.onnx',
            vocoder: 'tiny-matcha/hifigan.onnx',
            tokens: 'tiny-matcha/tokens.txt',
          },
          speakers: [{ sid: 0, name: 'Matcha', gender: 'female', pitchHz: 200 }],
        },
        {
          id: 'tiny-zipvoice',
          name: 'Zero-shot',
          type: 'zipvoice',
          languages: ['en', 'zh-CN'],
          files: {
            encoder: 'tiny-zipvoice/encoder.onnx',
            decoder: 'tiny-zipvoice/decoder.onnx',
            vocoder: 'tiny-zipvoice/vocoder.onnx',
            tokens: 'tiny-zipvoice/tokens.txt',
            lexicon: 'tiny-zipvoice/lexicon.txt',
          },
        },
      ],
    }),
  );
  engine = SherpaEngine.fromModelsDir(dir)!;
});

afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

async function speak(
  voice: VoiceInfo,
  text: string,
  opts: { pitch?: number; speed?: number; profile?: VoiceProfile; reference?: EngineRequest['reference'] } = {},
): Promise<{ samples: Float32Array; rate: number }> {
  const parts: Float32Array[] = [];
  let rate = 0;
  for await (const c of engine.synthesize({
    text,
    voice,
    pitch: opts.pitch ?? 0,
    speed: opts.speed ?? 1,
    profile: opts.profile ?? voice.profile,
    ...(opts.reference ? { reference: opts.reference } : {}),
  })) {
    parts.push(c.samples);
    rate = c.sampleRate;
  }
  return { samples: concatFloat32(parts), rate };
}

const byId = (id: string): VoiceInfo => engine.listVoices().find((v) => v.id === id)!;

describe('manifest', () => {
  it('lists models, speakers and what each model can do', () => {
    expect(engine.listVoices().map((v) => v.id)).toEqual([
      'sherpa:tiny-vits:0',
      'sherpa:tiny-vits:1',
      'sherpa:tiny-vits:2',
      'sherpa:tiny-piper:0',
      'sherpa:tiny-kokoro:0',
      'sherpa:tiny-kokoro:1',
      'sherpa:tiny-matcha:0',
    ]);
    expect(engine.listModels().map((m) => [m.id, m.type])).toEqual([
      ['tiny-vits', 'standard'],
      ['tiny-piper', 'standard'],
      ['tiny-kokoro', 'mixing'],
      ['tiny-matcha', 'standard'],
      ['tiny-zipvoice', 'cloning'],
    ]);
    expect(engine.capabilities.mixable && engine.capabilities.nativeCloning).toBe(true);
  });
  it('refuses bad entries in JavaScript, before native code sees them', () => {
    const entry = {
      id: 'x',
      type: 'vits',
      languages: ['en'],
      files: { model: 'tiny-vits/model.onnx', tokens: 'tiny-vits/tokens.txt' },
    };
    expect(parseManifest({ models: [entry] }, dir)).toHaveLength(1);
    expect(() => parseManifest({ models: [{ ...entry, files: { model: 'tiny-vits/model.onnx' } }] }, dir)).toThrow(
      /needs files.tokens/,
    );
    expect(() => parseManifest({ models: [{ ...entry, files: { ...entry.files, model: 'nope.onnx' } }] }, dir)).toThrow(
      /does not exist/,
    );
    expect(() => parseManifest({ models: [{ ...entry, files: { ...entry.files, model: '../../etc/passwd' } }] }, dir)).toThrow(
      /leaves the models folder/,
    );
    expect(() => parseManifest({ models: [{ ...entry, type: 'tacotron' }] }, dir)).toThrow(ManifestError);
    expect(readManifest(path.join(dir, 'tiny-vits'))).toBeUndefined();
  });
});

describe('VITS', () => {
  it('speaks each speaker at its own pitch, for as long as the text', async () => {
    for (const sid of [0, 1, 2]) {
      const r = await speak(byId(`sherpa:tiny-vits:${sid}`), 'hello world');
      expect(estimateF0(r.samples, r.rate).median).toBeCloseTo(vitsSpeakerHz(sid), -0.5);
    }
    const short = await speak(byId('sherpa:tiny-vits:0'), 'hello world');
    const long = await speak(byId('sherpa:tiny-vits:0'), 'hello world, hello world, hello world');
    // One token per character (plus boundary tokens): the tiny model makes 50 ms per token.
    expect(short.samples.length / short.rate).toBeGreaterThanOrEqual('hello world'.length * TINY_SECONDS_PER_TOKEN);
    expect(long.samples.length / short.samples.length).toBeGreaterThan(2.8);
  });
  it('follows speed through the model and pitch through the DSP stage', async () => {
    const v = byId('sherpa:tiny-vits:1');
    const normal = await speak(v, 'a sentence to time');
    const fast = await speak(v, 'a sentence to time', { speed: 2 });
    expect(fast.samples.length / normal.samples.length).toBeCloseTo(0.5, 1);
    const up = await speak(v, 'a sentence to time', { pitch: 5 });
    expect(semitonesBetween(vitsSpeakerHz(1), estimateF0(up.samples, up.rate).median)).toBeCloseTo(5, 0);
  });
});

describe('Kokoro voice vectors', () => {
  it('speaks with each voice vector, and a mix is the weighted mean of the vectors', async () => {
    const kai = byId('sherpa:tiny-kokoro:0');
    const kim = byId('sherpa:tiny-kokoro:1');
    expect(estimateF0((await speak(kai, 'hello there')).samples, 16000).median).toBeCloseTo(120, -0.5);
    expect(estimateF0((await speak(kim, 'hello there')).samples, 16000).median).toBeCloseTo(240, -0.5);
    for (const [wKai, expected] of [
      [1, 180],
      [3, 150],
    ] as const) {
      const { base, profile } = mixVoices([
        { voice: kai, weight: wKai },
        { voice: kim, weight: 1 },
      ]);
      expect(profile.blend).toHaveLength(2);
      const r = await speak(base, 'hello there', { profile });
      expect(estimateF0(r.samples, r.rate).median).toBeCloseTo(expected, -0.5);
    }
  });
});

describe('Matcha', () => {
  it('runs the acoustic model and the vocoder, phonemizing with the bundled eSpeak data', async () => {
    const v = byId('sherpa:tiny-matcha:0');
    const short = await speak(v, 'hello world');
    const long = await speak(v, 'hello world, hello world, hello world');
    // The vocoder reads the pitch the acoustic model wrote into the mel: the two are wired together.
    expect(estimateF0(short.samples, short.rate).median).toBeCloseTo(MATCHA_HZ, -0.5);
    expect(long.samples.length / short.samples.length).toBeGreaterThan(2.5);
    const fast = await speak(v, 'hello world, hello world, hello world', { speed: 2 });
    expect(fast.samples.length / long.samples.length).toBeCloseTo(0.5, 1);
  });
});

describe('zero-shot cloning model', () => {
  it('speaks in the pitch of the reference sample, for as long as the text', async () => {
    const v = engine.cloneVoice('tiny-zipvoice', 'My clone');
    for (const hz of [120, 260]) {
      const reference = { samples: tone(hz, 2, 16000, 0.3), sampleRate: 16000, text: 'hello world' };
      const r = await speak(v, 'hello world, hello world', { reference });
      expect(Math.abs(semitonesBetween(hz, estimateF0(r.samples, r.rate).median))).toBeLessThan(1);
      expect(r.samples.length / r.rate).toBeGreaterThan('hello world, hello world'.length * ZIPVOICE_SECONDS_PER_TOKEN * 0.5);
      const fast = await speak(v, 'hello world, hello world', { reference, speed: 2 });
      expect(fast.samples.length / r.samples.length).toBeCloseTo(0.5, 1);
    }
  });
  it('asks for a reference sample and its transcript, and only clones with a cloning model', async () => {
    const v = engine.cloneVoice('tiny-zipvoice', 'My clone');
    await expect(speak(v, 'hello')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', params: { field: 'reference' } });
    const reference = { samples: tone(150, 1, 16000), sampleRate: 16000 };
    await expect(speak(v, 'hello', { reference })).rejects.toMatchObject({ params: { field: 'reference.text' } });
    expect(() => engine.cloneVoice('tiny-vits', 'x')).toThrow(/cannot clone/);
  });
});

describe('a model that sherpa-onnx rejects', () => {
  it('fails its own requests without taking the process down, and the engine recovers', async () => {
    // A voices file of the wrong size makes sherpa-onnx exit the process it runs in.
    copyFileSync(path.join(dir, 'tiny-kokoro/model.onnx'), path.join(dir, 'tiny-kokoro/broken.onnx'));
    writeFileSync(path.join(dir, 'tiny-kokoro/broken.bin'), Buffer.alloc(100));
    const models = parseManifest(
      {
        models: [
          {
            id: 'broken',
            type: 'kokoro',
            languages: ['en'],
            files: { model: 'tiny-kokoro/broken.onnx', voices: 'tiny-kokoro/broken.bin', tokens: 'tiny-kokoro/tokens.txt' },
          },
          {
            id: 'fine',
            type: 'vits',
            languages: ['en'],
            files: { model: 'tiny-vits/model.onnx', tokens: 'tiny-vits/tokens.txt' },
          },
        ],
      },
      dir,
    );
    const own = new SherpaEngine(models);
    const [broken, fine] = own.listVoices();
    const run = async (voice: VoiceInfo): Promise<number> => {
      let n = 0;
      for await (const c of own.synthesize({ text: 'hello', voice, pitch: 0, speed: 1, profile: voice.profile }))
        n += c.samples.length;
      return n;
    };
    try {
      await expect(run(broken!)).rejects.toMatchObject({
        code: 'INTERNAL',
        message: expect.stringContaining('sherpa-onnx stopped'),
      });
      expect(await run(fine!)).toBeGreaterThan(0);
    } finally {
      await own.close();
    }
  });
});

describe('through the pool and the pipeline', () => {
  let speech: Speech;
  beforeAll(async () => {
    speech = await createSpeech({ modelsDir: dir, poolSize: 1, warmup: false });
  });
  afterAll(() => speech.close());

  it('lists the models next to the built-in engines and synthesizes in a worker thread', async () => {
    expect(speech.listModels().map((m) => m.id)).toEqual(
      expect.arrayContaining(['espeak-ng', 'flite', 'gnuspeech', 'tiny-vits', 'tiny-kokoro', 'tiny-zipvoice']),
    );
    const r = await speech.synthesize({
      text: 'Hello world. This is the second sentence.',
      voiceId: 'sherpa:tiny-vits:2',
      format: 'wav',
    });
    expect(r.sentences).toBe(2);
    const pcm = await decodeAudio(r.audio, 'wav');
    expect(pcm.sampleRate).toBe(24000);
    expect(Math.abs(pcm.samples.length / 24000 - r.durationSec)).toBeLessThan(0.01);
    expect(estimateF0(pcm.samples, 24000).median).toBeCloseTo(vitsSpeakerHz(2), -0.5);
  });

  it('speaks a phoneme rule as eSpeak NG mnemonics on the models eSpeak NG phonemizes for; the others fall back', async () => {
    // The tiny models' length follows the phoneme ids sherpa-onnx gives them: /həˈloʊ/ is eSpeak's "hello" (six
    // phones), "Bo" spelled is four, and the rule's mnemonics read as letters (`[[h@l'oU]]`) would be far more.
    const lexicon = [{ type: 'phoneme' as const, string_to_replace: 'Bo', phoneme: 'həˈloʊ', alphabet: 'ipa' }];
    const seconds = async (voiceId: string, text: string, rules = lexicon) => {
      const r = await speech.synthesize({ text, voiceId, format: 'wav', lexicon: rules });
      return (await decodeAudio(r.audio, 'wav')).samples.length;
    };
    for (const voiceId of ['sherpa:tiny-piper:0', 'sherpa:tiny-kokoro:0', 'sherpa:tiny-matcha:0']) {
      expect(speech.prepare({ text: 'Say Bo now.', voiceId, lexicon }).pronunciationFallbacks).toEqual([]);
      const ruled = await seconds(voiceId, 'Say Bo now.');
      expect(ruled).toBe(await seconds(voiceId, 'Say hello now.', []));
      expect(ruled).not.toBe(await seconds(voiceId, 'Say Bo now.', []));
    }
    // A voice carried by the request as stored before it had `phonemes` (a job queued then, a designed voice's
    // base): the engine's own voice says it takes phonemes, and the rule is spoken as them.
    const { phonemes, ...stored } = speech.getVoice('sherpa:tiny-piper:0')!;
    expect(phonemes).toBe('espeak');
    const old = speech.prepare({ text: 'Say Bo now.', voice: stored, lexicon });
    expect(old.pronunciationFallbacks).toEqual([]);
    expect(old.text).toBe("Say [[h@l'oU]] now.");
    const r = await speech.synthesize({ text: 'Say Bo now.', voice: stored, format: 'wav', lexicon });
    expect((await decodeAudio(r.audio, 'wav')).samples.length).toBe(await seconds('sherpa:tiny-piper:0', 'Say hello now.', []));
    // A copy that claims phonemes for a model that takes none is corrected the other way.
    const claimed = { ...speech.getVoice('sherpa:tiny-vits:0')!, phonemes: 'espeak' as const };
    expect(speech.prepare({ text: 'Say Bo now.', voice: claimed, lexicon }).pronunciationFallbacks).toEqual(['Bo']);
    // A character model takes no phonemes: the rule falls back to the words as written, and is named.
    const chars = 'sherpa:tiny-vits:0';
    expect(speech.prepare({ text: 'Say Bo now.', voiceId: chars, lexicon }).pronunciationFallbacks).toEqual(['Bo']);
    expect(await seconds(chars, 'Say Bo now.')).toBe(await seconds(chars, 'Say Bo now.', []));
    // The text's own control characters cannot open phonemes: only a rule's `[[…]]` does.
    expect(espeakPhonemeInput("[\u0002h@l'oU]] [[h@l'oU]]")).toBe("[ h@l'oU]] [\u0002h@l'oU]]");
  });

  it('clones through the pool: the reference sample crosses into the worker', async () => {
    const voice = speech.cloneVoice('tiny-zipvoice', 'Clone');
    const reference = { samples: tone(200, 2, 16000, 0.3), sampleRate: 16000, text: 'hello world' };
    const r = await speech.synthesize({ text: 'hello world. hello world.', voice, reference, format: 'wav' });
    expect(r.cached).toBe(false);
    const pcm = await decodeAudio(r.audio, 'wav');
    expect(Math.abs(semitonesBetween(200, estimateF0(pcm.samples, 24000).median))).toBeLessThan(1);
  });
});

describe('phoneme rules on Kokoro v1.0 and later (its multi-language lexicon frontend)', () => {
  let own: string;
  let speech: Speech;
  beforeAll(async () => {
    own = mkdtempSync(path.join(tmpdir(), 'polyvox-kokoro-v1-'));
    // A v1.0 export (metadata version 2, read with a lexicon) beside a v0.19 one; speakers of other languages too.
    writeTinyKokoro(path.join(own, 'v1'), [120], undefined, 2);
    writeTinyKokoro(path.join(own, 'v0'), [120]);
    // A German Piper voice: sherpa-onnx phonemizes its text with eSpeak NG's German.
    writeTinyPiper(path.join(own, 'de'), 'model', [], true, 'de');
    const model = (id: string, lexicon: boolean) => ({
      id,
      type: 'kokoro',
      languages: ['zh-CN', 'en-US'],
      files: {
        model: `${id}/model.onnx`,
        voices: `${id}/voices.bin`,
        tokens: `${id}/tokens.txt`,
        ...(lexicon ? { lexicon: `${id}/lexicon.txt` } : {}),
      },
      speakers: [{ sid: 0, name: id, gender: 'female' }],
    });
    const german = {
      id: 'de',
      type: 'vits',
      languages: ['de-DE'],
      files: { model: 'de/model.onnx', tokens: 'de/tokens.txt' },
      speakers: [{ sid: 0, name: 'de', gender: 'female' }],
    };
    writeFileSync(path.join(own, 'manifest.json'), JSON.stringify({ models: [model('v1', true), model('v0', false), german] }));
    speech = await createSpeech({ modelsDir: own, poolSize: 1, warmup: false, cache: false });
  });
  afterAll(async () => {
    await speech?.close();
    rmSync(own, { recursive: true, force: true });
  });

  // The tiny model's length follows the phoneme ids sherpa-onnx gives it (one token, one slice of time).
  const samples = async (voiceId: string, text: string, phoneme?: string) => {
    const lexicon = phoneme ? [{ type: 'phoneme' as const, string_to_replace: 'Bo', phoneme, alphabet: 'ipa' }] : [];
    const r = await speech.synthesize({ text, voiceId, format: 'wav', lexicon, checkLanguage: false });
    return (await decodeAudio(r.audio, 'wav')).samples.length;
  };

  it('writes the rule in the eSpeak NG voice the frontend uses, whatever the speaker’s language', () => {
    for (const id of ['sherpa:v1:0', 'sherpa:v0:0']) {
      expect(speech.getVoice(id)).toMatchObject({ phonemes: 'espeak', phonemeLanguage: 'en-us' });
      const plan = speech.prepare({
        text: 'Say Bo now.',
        voiceId: id,
        checkLanguage: false,
        lexicon: [{ type: 'phoneme', string_to_replace: 'Bo', phoneme: 'ˈsiːt', alphabet: 'ipa' }],
      });
      expect(plan.pronunciationFallbacks).toEqual([]);
      // English mnemonics, not the Mandarin table of the speaker's first language.
      expect(plan.text).toBe("Say [[s'i:t]] now.");
    }
  });

  it('reaches eSpeak NG: the phonemes are spoken, long vowels and a last long vowel included', async () => {
    for (const id of ['sherpa:v1:0', 'sherpa:v0:0']) {
      expect(await samples(id, 'Say Bo now.', 'həˈloʊ')).toBe(await samples(id, 'Say hello now.'));
      expect(await samples(id, 'Say Bo now.', 'həˈloʊ')).not.toBe(await samples(id, 'Say Bo now.'));
      // v1.0's frontend turns `:` into `,`: written `：`, the length mark comes through (seat, not sit).
      expect(await samples(id, 'Say Bo now.', 'ˈsiːt')).toBe(await samples(id, 'Say seat now.'));
      expect(await samples(id, 'Say Bo now.', 'ˈsiːt')).toBeGreaterThan(await samples(id, 'Say sit now.'));
      // A long vowel just before the closing `]]`.
      expect(await samples(id, 'Say Bo now.', 'ˈsiː')).toBe(await samples(id, 'Say see now.'));
    }
  });

  it('writes a rule on a model of another language in that language’s eSpeak NG table', async () => {
    expect(speech.getVoice('sherpa:de:0')).toMatchObject({ phonemes: 'espeak', phonemeLanguage: 'de' });
    const rule = 'ˈʃʏtsə';
    const plan = speech.prepare({
      text: 'Sag Bo jetzt.',
      voiceId: 'sherpa:de:0',
      lexicon: [{ type: 'phoneme', string_to_replace: 'Bo', phoneme: rule, alphabet: 'ipa' }],
    });
    // German's ʏ (eSpeak NG's `y` there): the English table has no such vowel, and the rule would fall back.
    expect(ipaToEspeak(rule)).toBeNull();
    expect(plan.pronunciationFallbacks).toEqual([]);
    expect(plan.text).toBe("Sag [[S'y|ts|@]] jetzt.");
    // Spoken as eSpeak NG's German reads "Schütze" itself (ʃ ˈʏ ts ə).
    const ruled = await samples('sherpa:de:0', 'Sag Bo jetzt.', rule);
    expect(ruled).toBe(await samples('sherpa:de:0', 'Sag Schütze jetzt.'));
    expect(ruled).not.toBe(await samples('sherpa:de:0', 'Sag Bo jetzt.'));
  });

  it('writes the length mark as each frontend needs it', () => {
    expect(espeakPhonemeInput("[[s'i:t]] [[s'i:]]", { fullwidthColon: true })).toBe("[\u0002s'i\uff1at]] [\u0002s'i\uff1a|]]");
    expect(espeakPhonemeInput("[[s'i:t]] [[s'i:]]")).toBe("[\u0002s'i:t]] [\u0002s'i:|]]");
  });
});
