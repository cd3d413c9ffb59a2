import { describe, expect, it } from 'vitest';
import { LIMITS } from '@polyvox/contracts';
import type { TtsConfig } from '../speech/types';
import {
  baseVoice,
  checkCloneFile,
  defaultLanguage,
  languagesOf,
  missingFields,
  mixPayload,
  modelsFor,
  nameFromPrompt,
  weightPercents,
  type DesignForm,
} from './rules';

const model = (id: string, type: string[], languages: string[]) => ({
  model: id,
  model_name: id,
  type,
  url: '',
  icon: '',
  description: '',
  languages,
  sexs: [],
  voice_count: 1,
  credits_per_character: 1,
});
const config: TtsConfig = {
  models: [
    model('espeak-ng', ['tts', 'mixing'], ['en', 'en-US', 'zh-CN', 'fr']),
    model('flite', ['tts'], ['en', 'en-US']),
    model('kokoro', ['tts', 'mixing'], ['en-US', 'ja']),
  ],
  limits: { max_text_length: 5000, mix_max: 3, preview_versions: 50, job_threshold: 1000 },
  activation_fees: { text_to_voice: 500, clone: 1000 },
};

describe('checkCloneFile', () => {
  it('takes mp3, m4a and wav by name or by declared type', () => {
    expect(checkCloneFile({ name: 'jfk.wav', type: '', size: 100 })).toBeNull();
    expect(checkCloneFile({ name: 'VOICE.MP3', type: '', size: 100 })).toBeNull();
    expect(checkCloneFile({ name: 'memo.m4a', type: '', size: 100 })).toBeNull();
    expect(checkCloneFile({ name: 'recording', type: 'audio/x-wav', size: 100 })).toBeNull();
  });

  it('refuses other types, empty files and files over 20 MB', () => {
    expect(checkCloneFile({ name: 'notes.txt', type: 'text/plain', size: 100 })).toBe('type');
    expect(checkCloneFile({ name: 'song.flac', type: 'audio/flac', size: 100 })).toBe('type');
    expect(checkCloneFile({ name: 'a.wav', type: 'audio/wav', size: 0 })).toBe('empty');
    expect(checkCloneFile({ name: 'a.wav', type: 'audio/wav', size: LIMITS.cloneMaxBytes })).toBeNull();
    expect(checkCloneFile({ name: 'a.wav', type: 'audio/wav', size: LIMITS.cloneMaxBytes + 1 })).toBe('size');
  });

  it('leaves a renamed file to the server (the bytes are judged there)', () => {
    expect(checkCloneFile({ name: 'really-text.mp3', type: 'text/plain', size: 10 })).toBeNull();
  });
});

describe('missingFields', () => {
  const full: DesignForm = { prompt: 'a deep calm voice', previewText: 'Hello', models: ['flite'], language: 'en', name: 'Deep' };

  it('asks for all five fields of a prompt form', () => {
    expect(missingFields(full, 'prompt')).toEqual([]);
    expect(missingFields({ prompt: ' ', previewText: '', models: [], language: null, name: '\t' }, 'prompt')).toEqual([
      'prompt',
      'previewText',
      'models',
      'language',
      'name',
    ]);
  });

  it('does not ask a clone form for a prompt', () => {
    expect(missingFields({ ...full, prompt: '' }, 'clone')).toEqual([]);
    expect(missingFields({ ...full, prompt: '' }, 'prompt')).toEqual(['prompt']);
  });
});

describe('models and languages', () => {
  it('mixes only on models marked mixing; designs and clones on any', () => {
    expect(modelsFor(config, 'mixing').map((m) => m.model)).toEqual(['espeak-ng', 'kokoro']);
    expect(modelsFor(config, 'clone')).toHaveLength(3);
    expect(modelsFor(undefined, 'mixing')).toEqual([]);
  });

  it('offers the languages the chosen models share, else all of theirs', () => {
    expect(languagesOf(config, ['espeak-ng', 'flite'])).toEqual(['en', 'en-US']);
    expect(languagesOf(config, ['flite'])).toEqual(['en', 'en-US']);
    expect(languagesOf(config, ['flite', 'kokoro']).sort()).toEqual(['en-US']);
    expect(languagesOf(config, [])).toEqual([]);
    expect(languagesOf(config, ['__proto__'])).toEqual([]);
  });

  it("starts on the UI's language, its primary subtag, then English", () => {
    expect(defaultLanguage(['en', 'zh-CN'], 'zh-CN')).toBe('zh-CN');
    expect(defaultLanguage(['en', 'fr'], 'fr-CA')).toBe('fr');
    expect(defaultLanguage(['ja', 'en-US'], 'zh-TW')).toBe('en-US');
    expect(defaultLanguage(['ja'], 'en')).toBe('ja');
    expect(defaultLanguage([], 'en')).toBeNull();
  });
});

describe('mix weights', () => {
  it('sends fractions that sum to exactly 1', () => {
    const out = mixPayload([
      { voice_id: 'a', weight: 1 },
      { voice_id: 'b', weight: 1 },
      { voice_id: 'c', weight: 1 },
    ]);
    expect(out.map((e) => e.voice_id)).toEqual(['a', 'b', 'c']);
    expect(out.reduce((s, e) => s + e.weight, 0)).toBeCloseTo(1, 9);
    expect(Math.max(...out.map((e) => e.weight)) - Math.min(...out.map((e) => e.weight))).toBeLessThanOrEqual(0.0011);
  });

  it('keeps the proportions of the sliders', () => {
    expect(
      mixPayload([
        { voice_id: 'low', weight: 75 },
        { voice_id: 'high', weight: 25 },
      ]),
    ).toEqual([
      { voice_id: 'low', weight: 0.75 },
      { voice_id: 'high', weight: 0.25 },
    ]);
  });

  it('drops zero weights and gives nothing for no weight at all', () => {
    expect(mixPayload([{ voice_id: 'a', weight: 0 }])).toEqual([]);
    expect(
      mixPayload([
        { voice_id: 'a', weight: 0 },
        { voice_id: 'b', weight: 30 },
      ]),
    ).toEqual([{ voice_id: 'b', weight: 1 }]);
  });

  it('names the heaviest voice as the base, the first of equals', () => {
    expect(
      baseVoice([
        { voice_id: 'a', weight: 20 },
        { voice_id: 'b', weight: 60 },
        { voice_id: 'c', weight: 20 },
      ]),
    ).toBe('b');
    expect(
      baseVoice([
        { voice_id: 'a', weight: 50 },
        { voice_id: 'b', weight: 50 },
      ]),
    ).toBe('a');
    expect(baseVoice([])).toBeNull();
  });

  it('shows whole percentages that add up to 100, by largest remainder', () => {
    const weights = (...w: number[]) => w.map((weight, i) => ({ voice_id: String(i), weight }));
    expect(weightPercents(weights(1, 1, 1))).toEqual([34, 33, 33]);
    expect(weightPercents(weights(0.35, 0.325, 0.325))).toEqual([35, 33, 32]);
    expect(weightPercents(weights(1.1, 1, 1))).toEqual([36, 32, 32]);
    expect(weightPercents(weights(2, 1, 1, 1, 1, 1))).toEqual([29, 15, 14, 14, 14, 14]);
    for (const w of [weights(0.2, 0.3, 0.5), weights(7, 11, 13), weights(1, 2, 2), weights(3, 3, 3, 1)]) {
      expect(weightPercents(w).reduce((s, p) => s + p, 0)).toBe(100);
    }
    expect(weightPercents(weights(0, 0))).toEqual([0, 0]);
  });

  it('shows whole percentages', () => {
    expect(
      weightPercents([
        { voice_id: 'a', weight: 50 },
        { voice_id: 'b', weight: 50 },
      ]),
    ).toEqual([50, 50]);
    expect(
      weightPercents([
        { voice_id: 'a', weight: 1 },
        { voice_id: 'b', weight: 3 },
      ]),
    ).toEqual([25, 75]);
  });
});

describe('a name from the prompt', () => {
  it('is the prompt when it fits, its opening cut at a word when not, the fallback without one', () => {
    expect(nameFromPrompt('deep calm male voice', 'x')).toBe('deep calm male voice');
    const long = nameFromPrompt('a warm and friendly female voice, speaking slowly, with a light accent', 'x');
    expect([...long].length).toBeLessThanOrEqual(40);
    expect(long).toBe('a warm and friendly female voice…');
    expect([...nameFromPrompt('温柔的女声，'.repeat(10), 'x')].length).toBeLessThanOrEqual(40);
    expect(nameFromPrompt('  ', 'My voice, version 2')).toBe('My voice, version 2');
    expect(nameFromPrompt(null, 'My voice, version 2')).toBe('My voice, version 2');
  });
});
