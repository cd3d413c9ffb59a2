/** The official library: at least 500 distinct real engine voices, all of them able to speak. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import data from '../src/catalogue/espeak-data.json' with { type: 'json' };
import { loadEspeakData } from '../src/engines/espeak-runtime.ts';
import { createLocalEngines } from '../src/engines/local.ts';
import { estimateF0 } from '../src/dsp/f0.ts';
import { WorkerPool } from '../src/pool/pool.ts';
import type { VoiceInfo } from '../src/core/types.ts';

const engines = [...createLocalEngines({}).values()];
const voices = engines.flatMap((e) => e.listVoices());
const models = engines.flatMap((e) => e.listModels());
const BCP47 = /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|\d{3}))?(-[a-z0-9]{5,8})*(-x(-[a-z0-9]{1,8})+)?$/;

describe('voice library', () => {
  it('holds at least 500 distinct voices, each a real engine voice or variant', () => {
    expect(voices.length).toBeGreaterThanOrEqual(500);
    expect(new Set(voices.map((v) => v.id)).size).toBe(voices.length);
    expect(new Set(voices.map((v) => `${v.engine}/${v.variant}`)).size).toBe(voices.length);
    expect(new Set(voices.map((v) => v.name)).size).toBe(voices.length);
  });

  it('describes every voice in the normalized schema', () => {
    const modelIds = new Set(models.map((m) => m.id));
    for (const v of voices) {
      expect(['male', 'female', 'neutral']).toContain(v.gender);
      expect(v.languages.length).toBeGreaterThan(0);
      for (const l of v.languages) expect(l, `${v.id} ${l}`).toMatch(BCP47);
      expect(modelIds.has(v.model)).toBe(true);
      expect(v.name.length).toBeGreaterThan(2);
      expect(v.profile.pitchHz).toBeGreaterThan(40);
      expect(v.previewText.length).toBeGreaterThan(4);
    }
    for (const m of models) expect(m.voiceCount).toBe(voices.filter((v) => v.model === m.id).length);
  });

  it('covers every eSpeak language, Mandarin and Cantonese included, with both genders', () => {
    const espeak = voices.filter((v) => v.engine === 'espeak');
    const languages = new Set(espeak.map((v) => v.languages[0]));
    expect(languages.size).toBe(data.languages.length);
    expect(languages.size).toBeGreaterThanOrEqual(130);
    for (const l of ['zh-CN', 'yue', 'en-US', 'ja', 'ar', 'hi']) {
      const these = espeak.filter((v) => v.languages[0] === l);
      expect(new Set(these.map((v) => v.gender))).toEqual(new Set(['male', 'female']));
    }
    expect(voices.find((v) => v.id === 'espeak:cmn')?.languages).toContain('zh-CN');
    expect(voices.find((v) => v.id === 'espeak:yue')?.languages).toContain('yue');
  });

  it('matches what the installed eSpeak NG package ships', async () => {
    const live = await loadEspeakData();
    expect(live.languages.map((l) => l.identifier)).toEqual(data.languages.map((l) => l.identifier));
    const ids = new Set(live.variants.map((v) => v.id));
    for (const v of voices.filter((x) => x.engine === 'espeak' && x.variant.includes('+')))
      expect(ids.has(v.variant.split('+')[1]!)).toBe(true);
  });
});

describe('previews', () => {
  let pool: WorkerPool;
  beforeAll(() => {
    pool = new WorkerPool({ size: 2 });
  });
  afterAll(() => pool.close());

  it('speaks the preview of one voice per language and of every Flite and GnuSpeech voice', async () => {
    const seen = new Set<string>();
    const sample: VoiceInfo[] = [];
    for (const v of voices) {
      const key = v.engine === 'espeak' ? v.languages[0]! : v.id;
      if (seen.has(key)) continue;
      seen.add(key);
      // Alternate variants so the sample is not only default voices.
      sample.push(
        v.engine === 'espeak' && sample.length % 2
          ? (voices.find((x) => x.languages[0] === key && x.variant.endsWith('+f3')) ?? v)
          : v,
      );
    }
    expect(sample.length).toBeGreaterThan(140);
    const results = await Promise.all(
      sample.map((voice) =>
        pool.synthesize({
          engine: voice.engine,
          voice,
          text: voice.previewText,
          speed: 1,
          pitch: 0,
          profile: voice.profile,
          sampleRate: 16000,
          loudness: true,
        }),
      ),
    );
    results.forEach((r, i) => {
      const seconds = r.samples.length / r.sampleRate;
      expect(seconds, sample[i]!.id).toBeGreaterThan(0.8);
      expect(estimateF0(r.samples, r.sampleRate, { maxHz: 600 }).voicedFraction, sample[i]!.id).toBeGreaterThan(0.1);
    });
  }, 120_000);
});
