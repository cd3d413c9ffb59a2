/**
 * Reading languages, voice names and genders from what sherpa-onnx's and Piper's releases carry: eSpeak voice
 * codes and language names in the ONNX metadata, locale codes in file names (`en_US-lessac-medium`), Kokoro's and
 * Kitten's voice names. Used by the layout recognisers (sherpa-layouts.ts).
 */
import type { Gender } from '../core/types.ts';
import { canonicalTag, espeakLanguageTags } from '../catalogue/languages.ts';
import type { SherpaSpeaker } from './sherpa-manifest.ts';

/** Kokoro voice names: first letter the language, second the gender (af_heart, bm_george, zf_xiaobei). */
const KOKORO_LANGUAGES: Record<string, string[]> = {
  a: ['en-US', 'en'],
  b: ['en-GB', 'en'],
  e: ['es'],
  f: ['fr-FR', 'fr'],
  h: ['hi'],
  i: ['it'],
  j: ['ja'],
  p: ['pt-BR', 'pt'],
  z: ['zh-CN', 'zh'],
};

/** Language names as sherpa-onnx's export scripts write them in the `language` metadata. */
const LANGUAGE_NAMES: Record<string, string> = {
  english: 'en',
  chinese: 'zh-CN',
  mandarin: 'zh-CN',
  cantonese: 'yue',
  german: 'de',
  french: 'fr',
  spanish: 'es',
  italian: 'it',
  japanese: 'ja',
  korean: 'ko',
  portuguese: 'pt',
  russian: 'ru',
  dutch: 'nl',
  polish: 'pl',
  arabic: 'ar',
  hindi: 'hi',
  persian: 'fa',
  farsi: 'fa',
  vietnamese: 'vi',
  turkish: 'tr',
  ukrainian: 'uk',
  czech: 'cs',
  swedish: 'sv',
  finnish: 'fi',
  danish: 'da',
  norwegian: 'no',
  greek: 'el',
  hungarian: 'hu',
  catalan: 'ca',
  romanian: 'ro',
  kazakh: 'kk',
  nepali: 'ne',
  swahili: 'sw',
  welsh: 'cy',
  icelandic: 'is',
  luxembourgish: 'lb',
  serbian: 'sr',
  slovak: 'sk',
  slovenian: 'sl',
  georgian: 'ka',
  latvian: 'lv',
  indonesian: 'id',
  malayalam: 'ml',
  thai: 'th',
  bengali: 'bn',
  telugu: 'te',
  tamil: 'ta',
  urdu: 'ur',
};

export const uniq = (xs: string[]): string[] => [...new Set(xs)];

/** A tag and its primary language (en-US → en-US, en). */
export function withFamily(tag: string): string[] {
  const t = canonicalTag(tag);
  const primary = t.split('-')[0]!;
  return t === primary ? [t] : [t, primary];
}

/** eSpeak voice codes as the metadata gives them: `en-us`, `zh en-us` (several, space-separated). */
export function voiceTags(voice: string | undefined): string[] {
  if (!voice?.trim()) return [];
  return uniq(
    voice
      .trim()
      .split(/\s+/)
      .flatMap((v) => (v === 'zh' || v === 'cmn' ? ['zh-CN', 'zh'] : espeakLanguageTags(v))),
  );
}

export function nameTags(language: string | undefined): string[] {
  if (!language) return [];
  return uniq(
    language
      .toLowerCase()
      .split(/[^a-z]+/)
      .flatMap((w) => (LANGUAGE_NAMES[w] ? withFamily(LANGUAGE_NAMES[w]) : [])),
  );
}

/** `vits-piper-en_US-lessac-medium`, `en_GB-alan-low` → en-US / en-GB. */
export function tagsFromName(name: string): string[] {
  const m = /(?:^|[-_])([a-z]{2,3})_([A-Z]{2})(?:[-_.]|$)/.exec(name);
  return m ? withFamily(`${m[1]}-${m[2]}`) : [];
}

export function titleCase(s: string): string {
  return s
    .split(/[_\s-]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/** A voice name of Kokoro: `af_heart` → Heart, female, American English. */
export function kokoroVoice(name: string): { name: string; gender: Gender; languages?: string[] } {
  // v0.19 also has bare prefixes (`af`: its default American female voice); v1.1-zh numbered ones (`zf_001`).
  const m = /^([a-z])([fm])(?:_(.+))?$/.exec(name);
  if (!m) return { name, gender: 'neutral' };
  const languages = KOKORO_LANGUAGES[m[1]!];
  return {
    name: !m[3] || /^\d+$/.test(m[3]) ? name : titleCase(m[3]),
    gender: m[2] === 'f' ? 'female' : 'male',
    ...(languages ? { languages } : {}),
  };
}

/** A voice name of Kitten: `expr-voice-2-f` → female. */
export function kittenVoice(name: string): { name: string; gender: Gender } {
  const g = /[-_]([fm])$/.exec(name)?.[1];
  return { name, gender: g === 'f' ? 'female' : g === 'm' ? 'male' : 'neutral' };
}

export function numbered(count: number, name: string, gender: Gender = 'neutral'): SherpaSpeaker[] {
  if (count <= 1) return [{ sid: 0, name, gender }];
  return Array.from({ length: count }, (_, sid) => ({ sid, name: `${name} ${sid}`, gender }));
}
