/**
 * Models found by their layout in MODELS_DIR, without a manifest: tiny models written the way
 * sherpa-onnx's releases and Piper lay them out (see docs/models.md), found, loaded and spoken
 * by the real native engine; incomplete folders reported and skipped; the manifest over them;
 * models added and removed while running.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { estimateF0 } from '../src/dsp/f0.ts';
import { concatFloat32 } from '../src/dsp/pcm.ts';
import { ensureEspeakDataDir } from '../src/engines/espeak-data-dir.ts';
import { readOnnxMetadata } from '../src/engines/onnx-metadata.ts';
import { discoverModels, scanModelsDir } from '../src/engines/sherpa-discover.ts';
import { kokoroVoice } from '../src/engines/sherpa-names.ts';
import { SherpaEngine } from '../src/engines/sherpa.ts';
import { createSpeech } from '../src/speech.ts';
import { decodeAudio } from '../src/audio/ffmpeg.ts';
import type { VoiceInfo } from '../src/core/types.ts';
import { DataType, encodeModel } from './support/onnx-writer.ts';
import {
  TINY_RATE,
  vitsSpeakerHz,
  writeTinyKokoro,
  writeTinyMatcha,
  writeTinyPiper,
  writeTinyVits,
  writeTinyZipVoice,
} from './support/tiny-models.ts';

let dir: string;
let cache: string;
let espeakData: string;

/** A model file that only carries metadata (discovery never loads it). */
function metadataOnly(file: string, metadata: Record<string, string | number>): void {
  writeFileSync(
    file,
    encodeModel({
      inputs: [{ name: 'x', type: DataType.FLOAT, shape: [1] }],
      outputs: [{ name: 'y', type: DataType.FLOAT, shape: [1] }],
      nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }],
      metadata,
    }),
  );
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'polyvox-discover-'));
  cache = mkdtempSync(path.join(tmpdir(), 'polyvox-discover-cache-'));
  espeakData = await ensureEspeakDataDir();
  // sherpa-onnx's vits-piper-* release: the converted model, its Piper JSON, tokens.txt, espeak-ng-data.
  const piperRelease = path.join(dir, 'vits-piper-en_US-tiny-medium');
  writeTinyPiper(piperRelease, 'en_US-tiny-medium', ['alice', 'bob', 'carol'], true);
  symlinkSync(espeakData, path.join(piperRelease, 'espeak-ng-data'));
  // A Piper voice as Piper distributes it, loose in MODELS_DIR.
  writeTinyPiper(dir, 'en_GB-solo-low');
  // A vits-piper release's model and JSON moved out of their folder, without its tokens.txt.
  const moved = mkdtempSync(path.join(tmpdir(), 'polyvox-discover-moved-'));
  writeTinyPiper(moved, 'de_DE-moved-low', ['eva', 'jan'], true);
  for (const f of ['de_DE-moved-low.onnx', 'de_DE-moved-low.onnx.json']) cpSync(path.join(moved, f), path.join(dir, f));
  rmSync(moved, { recursive: true, force: true });
  // A sherpa-onnx VITS export (Coqui-style characters): model.onnx, tokens.txt.
  writeTinyVits(path.join(dir, 'vits-coqui-en-tiny'), 2);
  // Kokoro releases: English v0.19, and multi-lingual v1.0 with its lexicons, jieba dictionary and rule FSTs.
  writeTinyKokoro(path.join(dir, 'kokoro-en-v0_19'), [120, 240], ['af_heart', 'bm_george']);
  const multi = path.join(dir, 'kokoro-multi-lang-v1_0');
  writeTinyKokoro(multi, [120, 240, 200], ['zf_xiaobei', 'jm_kumo', 'ef_dora']);
  writeFileSync(path.join(multi, 'lexicon-us-en.txt'), 'hello h ə l oʊ\n');
  writeFileSync(path.join(multi, 'lexicon-zh.txt'), '你 n i3\n');
  mkdirSync(path.join(multi, 'dict'));
  writeFileSync(path.join(multi, 'dict', 'jieba.dict.utf8'), '');
  for (const f of ['number-zh.fst', 'date-zh.fst', 'phone-zh.fst']) writeFileSync(path.join(multi, f), '');
  // Kitten: model.fp16.onnx with its metadata, voices.bin, tokens.txt.
  const kitten = path.join(dir, 'kitten-nano-en-v0_1-fp16');
  mkdirSync(kitten);
  metadataOnly(path.join(kitten, 'model.fp16.onnx'), {
    model_type: 'kitten-tts',
    language: 'English',
    voice: 'en-us',
    sample_rate: 24000,
    n_speakers: 2,
    speaker_names: 'expr-voice-2-m,expr-voice-2-f',
  });
  writeFileSync(path.join(kitten, 'voices.bin'), Buffer.alloc(64));
  writeFileSync(path.join(kitten, 'tokens.txt'), 'a 0\n');
  // Matcha with its vocoder put beside it; ZipVoice with its vocoder.
  writeTinyMatcha(path.join(dir, 'matcha-icefall-en_US-ljspeech'));
  writeTinyZipVoice(path.join(dir, 'sherpa-onnx-zipvoice-distill-zh-en-emilia'));
  // Incomplete or unreadable: skipped, each reported with the file at fault.
  writeTinyKokoro(path.join(dir, 'kokoro-no-voices'), [120]);
  unlinkSync(path.join(dir, 'kokoro-no-voices', 'voices.bin'));
  const partialEspeak = path.join(dir, 'vits-piper-en_US-broken-low');
  writeTinyPiper(partialEspeak, 'en_US-broken-low', [], true);
  mkdirSync(path.join(partialEspeak, 'espeak-ng-data'));
  for (const f of ['phontab', 'phonindex', 'intonations']) writeFileSync(path.join(partialEspeak, 'espeak-ng-data', f), '');
  mkdirSync(path.join(dir, 'garbage'));
  writeFileSync(path.join(dir, 'garbage', 'model.onnx'), 'this is not a model');
  writeFileSync(path.join(dir, 'garbage', 'tokens.txt'), 'a 0\n');
  const noVocoder = path.join(dir, 'matcha-icefall-zh-baker');
  writeTinyMatcha(noVocoder);
  unlinkSync(path.join(noVocoder, 'hifigan.onnx'));
  mkdirSync(path.join(dir, 'empty-folder'));
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

const byId = (id: string) => {
  const m = discoverModels(dir, cache).models.find((x) => x.id === id);
  if (!m) throw new Error(`${id} not found`);
  return m;
};

describe('reading a model', () => {
  it('reads the ONNX metadata without loading the model', () => {
    const meta = readOnnxMetadata(path.join(dir, 'kokoro-en-v0_19', 'model.onnx'));
    expect(meta).toMatchObject({ model_type: 'kokoro', sample_rate: String(TINY_RATE), speaker_names: 'af_heart,bm_george' });
    expect(() => readOnnxMetadata(path.join(dir, 'garbage', 'model.onnx'))).toThrow();
  });
  it('reads language and gender from Kokoro voice names', () => {
    expect(kokoroVoice('af_heart')).toEqual({ name: 'Heart', gender: 'female', languages: ['en-US', 'en'] });
    expect(kokoroVoice('bm_george')).toMatchObject({ name: 'George', gender: 'male', languages: ['en-GB', 'en'] });
    expect(kokoroVoice('zf_xiaobei')).toMatchObject({ gender: 'female', languages: ['zh-CN', 'zh'] });
    expect(kokoroVoice('pm_alex').languages).toEqual(['pt-BR', 'pt']);
    expect(kokoroVoice('zm_010').name).toBe('zm_010');
    expect(kokoroVoice('af')).toEqual({ name: 'af', gender: 'female', languages: ['en-US', 'en'] });
  });
});

describe('each layout, without a manifest', () => {
  it('finds every complete model and nothing else', () => {
    expect(
      discoverModels(dir, cache)
        .models.map((m) => [m.id, m.type])
        .sort(),
    ).toEqual(
      [
        ['de_DE-moved-low', 'vits'],
        ['en_GB-solo-low', 'vits'],
        ['kitten-nano-en-v0_1-fp16', 'kitten'],
        ['kokoro-en-v0_19', 'kokoro'],
        ['kokoro-multi-lang-v1_0', 'kokoro'],
        ['matcha-icefall-en_US-ljspeech', 'matcha'],
        ['sherpa-onnx-zipvoice-distill-zh-en-emilia', 'zipvoice'],
        ['vits-coqui-en-tiny', 'vits'],
        ['vits-piper-en_US-tiny-medium', 'vits'],
      ].sort(),
    );
  });

  it('vits-piper release: speakers from the Piper JSON, its own espeak-ng-data, language and rate', () => {
    const m = byId('vits-piper-en_US-tiny-medium');
    expect(m.languages).toEqual(['en-US', 'en']);
    expect(m.sampleRate).toBe(TINY_RATE);
    expect(m.speakers.map((s) => [s.sid, s.name])).toEqual([
      [0, 'alice'],
      [1, 'bob'],
      [2, 'carol'],
    ]);
    expect(m.files.dataDir).toBe(path.join(dir, 'vits-piper-en_US-tiny-medium', 'espeak-ng-data'));
    expect(m.files.model).toBe(path.join(dir, 'vits-piper-en_US-tiny-medium', 'en_US-tiny-medium.onnx'));
  });

  it("a Piper voice as Piper ships it: metadata and tokens made from its JSON, the voice's name from the file", () => {
    const m = byId('en_GB-solo-low');
    expect(m).toMatchObject({ type: 'vits', languages: ['en-US', 'en'], sampleRate: TINY_RATE, source: 'en_GB-solo-low.onnx' });
    expect(m.speakers).toEqual([{ sid: 0, name: 'Solo', gender: 'neutral' }]);
    expect(m.files.model!.startsWith(cache)).toBe(true);
    expect(readOnnxMetadata(m.files.model!)).toMatchObject({ comment: 'piper', n_speakers: '1', sample_rate: String(TINY_RATE) });
  });

  it('a sherpa-onnx Piper export out of its folder keeps its model; its tokens come from the JSON', () => {
    const m = byId('de_DE-moved-low');
    expect(m.files.model).toBe(path.join(dir, 'de_DE-moved-low.onnx'));
    expect(m.files.tokens!.startsWith(cache)).toBe(true);
    expect(m.speakers.map((s) => s.name)).toEqual(['eva', 'jan']);
  });

  it('sherpa-onnx VITS export: speakers counted from the metadata, language from its name', () => {
    const m = byId('vits-coqui-en-tiny');
    expect(m.languages).toEqual(['en']);
    expect(m.speakers.map((s) => s.sid)).toEqual([0, 1]);
  });

  it('Kokoro: voices named, gendered and given languages by their names; multi-lingual lexicons and rules', () => {
    const en = byId('kokoro-en-v0_19');
    expect(en.speakers).toEqual([
      { sid: 0, name: 'Heart', gender: 'female', languages: ['en-US', 'en'] },
      { sid: 1, name: 'George', gender: 'male', languages: ['en-GB', 'en'] },
    ]);
    expect(en.languages).toEqual(['en-US', 'en', 'en-GB']);
    const multi = byId('kokoro-multi-lang-v1_0');
    expect(multi.languages).toEqual(['zh-CN', 'zh', 'ja', 'es']);
    expect(multi.speakers.map((s) => [s.name, s.gender])).toEqual([
      ['Xiaobei', 'female'],
      ['Kumo', 'male'],
      ['Dora', 'female'],
    ]);
    const f = (n: string) => path.join(dir, 'kokoro-multi-lang-v1_0', n);
    expect(multi.files.lexicon).toBe(`${f('lexicon-us-en.txt')},${f('lexicon-zh.txt')}`);
    expect(multi.files.dictDir).toBe(f('dict'));
    expect(multi.files.ruleFsts).toBe([f('phone-zh.fst'), f('date-zh.fst'), f('number-zh.fst')].join(','));
  });

  it('Kitten, Matcha with its vocoder, ZipVoice', () => {
    const kitten = byId('kitten-nano-en-v0_1-fp16');
    expect(kitten).toMatchObject({ languages: ['en-US', 'en'], sampleRate: 24000 });
    expect(kitten.speakers.map((s) => s.gender)).toEqual(['male', 'female']);
    const matcha = byId('matcha-icefall-en_US-ljspeech');
    expect(matcha.files.vocoder).toBe(path.join(dir, 'matcha-icefall-en_US-ljspeech', 'hifigan.onnx'));
    expect(matcha.languages).toEqual(['en-US', 'en']);
    const zip = byId('sherpa-onnx-zipvoice-distill-zh-en-emilia');
    expect(zip.languages).toEqual(['zh-CN', 'zh', 'en']);
    expect(zip.sampleRate).toBe(24000);
  });

  it('reports each incomplete or unreadable folder with the file at fault, and skips it', () => {
    const problems = Object.fromEntries(discoverModels(dir, cache).problems.map((p) => [p.folder, p.message]));
    expect(problems).toEqual({
      'kokoro-no-voices': 'voices.bin is missing',
      'vits-piper-en_US-broken-low': 'espeak-ng-data/phondata is missing',
      garbage: expect.stringMatching(/^model\.onnx is not readable/),
      'matcha-icefall-zh-baker': expect.stringMatching(/vocoder .* is missing/),
      'empty-folder': 'no .onnx model in the folder',
    });
  });
});

async function speak(engine: SherpaEngine, voice: VoiceInfo, text: string): Promise<{ samples: Float32Array; rate: number }> {
  const parts: Float32Array[] = [];
  let rate = 0;
  for await (const c of engine.synthesize({ text, voice, pitch: 0, speed: 1, profile: voice.profile })) {
    parts.push(c.samples);
    rate = c.sampleRate;
  }
  return { samples: concatFloat32(parts), rate };
}

describe('found models speak', () => {
  let engine: SherpaEngine;
  beforeAll(() => {
    engine = SherpaEngine.fromModelsDir(dir);
  });
  afterAll(() => engine.close());

  it('a vits-piper release, a raw Piper voice and a Kokoro release, each with its own speakers', async () => {
    const voice = (id: string) => engine.listVoices().find((v) => v.id === id)!;
    expect(voice('sherpa:vits-piper-en_US-tiny-medium:2').name).toBe('carol');
    const carol = await speak(engine, voice('sherpa:vits-piper-en_US-tiny-medium:2'), 'hello world');
    expect(carol.rate).toBe(TINY_RATE);
    expect(estimateF0(carol.samples, carol.rate).median).toBeCloseTo(vitsSpeakerHz(2), -0.5);
    const solo = await speak(engine, voice('sherpa:en_GB-solo-low:0'), 'hello world');
    expect(estimateF0(solo.samples, solo.rate).median).toBeCloseTo(vitsSpeakerHz(0), -0.5);
    const jan = await speak(engine, voice('sherpa:de_DE-moved-low:1'), 'hallo welt');
    expect(estimateF0(jan.samples, jan.rate).median).toBeCloseTo(vitsSpeakerHz(1), -0.5);
    const george = await speak(engine, voice('sherpa:kokoro-en-v0_19:1'), 'hello there');
    expect(estimateF0(george.samples, george.rate).median).toBeCloseTo(240, -0.5);
    expect(engine.problems.map((p) => p.folder)).toContain('kokoro-no-voices');
  }, 60_000);
});

describe('manifest.json over what is found', () => {
  let own: string;
  beforeAll(() => {
    own = mkdtempSync(path.join(tmpdir(), 'polyvox-discover-manifest-'));
    writeTinyKokoro(path.join(own, 'kokoro-en-v0_19'), [120, 240], ['af_heart', 'bm_george']);
    writeTinyVits(path.join(own, 'vits-a'), 2);
    writeTinyVits(path.join(own, 'vits-b'), 1);
  });
  afterAll(() => rmSync(own, { recursive: true, force: true }));

  it('an entry with a found id changes only what it gives; an entry over a folder replaces its model', () => {
    writeFileSync(
      path.join(own, 'manifest.json'),
      JSON.stringify({
        models: [
          { id: 'kokoro-en-v0_19', speakers: [{ sid: 1, name: 'George', gender: 'male', pitchHz: 118 }] },
          {
            id: 'my-vits',
            type: 'vits',
            languages: ['de'],
            files: { model: 'vits-a/model.onnx', tokens: 'vits-a/tokens.txt' },
            speakers: [{ sid: 1, name: 'Anna', gender: 'female' }],
          },
        ],
      }),
    );
    const scan = scanModelsDir(own, cache);
    expect(scan.models.map((m) => m.id)).toEqual(['kokoro-en-v0_19', 'my-vits', 'vits-b']);
    const kokoro = scan.models[0]!;
    expect(kokoro).toMatchObject({ type: 'kokoro', languages: ['en-US', 'en', 'en-GB'], sampleRate: TINY_RATE });
    expect(kokoro.speakers).toEqual([{ sid: 1, name: 'George', gender: 'male', pitchHz: 118 }]);
    expect(kokoro.files.voices).toBe(path.join(own, 'kokoro-en-v0_19', 'voices.bin'));
    expect(scan.models[1]!.languages).toEqual(['de']);
  });

  it('a manifest that does not parse is reported, and the found models stay', () => {
    writeFileSync(path.join(own, 'manifest.json'), '{ not json');
    const scan = scanModelsDir(own, cache);
    expect(scan.models.map((m) => m.id)).toEqual(['kokoro-en-v0_19', 'vits-a', 'vits-b']);
    expect(scan.problems).toEqual([{ folder: 'manifest.json', message: expect.stringMatching(/not readable/) }]);
    rmSync(path.join(own, 'manifest.json'));
  });
});

describe('while running', () => {
  it('a model copied into MODELS_DIR is picked up, spoken through the pool, and gone once removed', async () => {
    const live = mkdtempSync(path.join(tmpdir(), 'polyvox-discover-live-'));
    const speech = await createSpeech({ modelsDir: live, poolSize: 1, warmup: false, modelsPollMs: 50 });
    const changes: string[][] = [];
    speech.onModelsChange((c) => changes.push([...c.added, ...c.removed.map((r) => `-${r}`)]));
    try {
      expect(speech.listModels().some((m) => m.engine === 'sherpa')).toBe(false);
      // Copied in as an operator would: written elsewhere, then the folder put in place.
      const staging = mkdtempSync(path.join(tmpdir(), 'polyvox-discover-staging-'));
      writeTinyPiper(path.join(staging, 'vits-piper-en_US-live-medium'), 'en_US-live-medium', ['x', 'y'], true);
      cpSync(path.join(staging, 'vits-piper-en_US-live-medium'), path.join(live, 'vits-piper-en_US-live-medium'), {
        recursive: true,
      });
      rmSync(staging, { recursive: true, force: true });
      await vi.waitFor(() => expect(speech.getVoice('sherpa:vits-piper-en_US-live-medium:1')?.name).toBe('y'), {
        timeout: 10_000,
        interval: 50,
      });
      expect(changes).toEqual([['vits-piper-en_US-live-medium']]);
      const r = await speech.synthesize({ text: 'hello world', voiceId: 'sherpa:vits-piper-en_US-live-medium:1', format: 'wav' });
      const pcm = await decodeAudio(r.audio, 'wav');
      expect(estimateF0(pcm.samples, pcm.sampleRate).median).toBeCloseTo(vitsSpeakerHz(1), -0.5);

      rmSync(path.join(live, 'vits-piper-en_US-live-medium'), { recursive: true, force: true });
      await vi.waitFor(() => expect(speech.getVoice('sherpa:vits-piper-en_US-live-medium:1')).toBeUndefined(), {
        timeout: 10_000,
        interval: 50,
      });
      expect(changes.at(-1)).toEqual(['-vits-piper-en_US-live-medium']);
      expect(speech.listVoices({ engine: 'sherpa' })).toEqual([]);
      // The operator's explicit rescan: nothing changed, nothing to report.
      expect(speech.rescanModels()).toMatchObject({ added: [], removed: [], changed: [] });
    } finally {
      await speech.close();
      rmSync(live, { recursive: true, force: true });
    }
  }, 60_000);

  it('a model replaced under the same name is loaded anew, and a removed one refuses its voices', async () => {
    const own = mkdtempSync(path.join(tmpdir(), 'polyvox-discover-swap-'));
    writeTinyVits(path.join(own, 'swap'), 1);
    const engine = SherpaEngine.fromModelsDir(own);
    try {
      const first = await speak(engine, engine.listVoices()[0]!, 'hello world');
      expect(estimateF0(first.samples, first.rate).median).toBeCloseTo(vitsSpeakerHz(0), -0.5);
      rmSync(path.join(own, 'swap'), { recursive: true });
      writeTinyKokoro(path.join(own, 'swap'), [240], ['af_nova']);
      expect(engine.rescan()).toMatchObject({ added: [], removed: [], changed: ['swap'] });
      const voice = engine.listVoices()[0]!;
      expect(voice).toMatchObject({ name: 'Nova', gender: 'female' });
      const second = await speak(engine, voice, 'hello world');
      expect(estimateF0(second.samples, second.rate).median).toBeCloseTo(240, -0.5);
      rmSync(path.join(own, 'swap'), { recursive: true });
      await expect(speak(engine, voice, 'hello world')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(engine.listVoices()).toEqual([]);
    } finally {
      await engine.close();
      rmSync(own, { recursive: true, force: true });
    }
  }, 60_000);
});
