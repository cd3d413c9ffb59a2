/**
 * The eSpeak NG part of the official library: every language it ships with a curated set of
 * variants; more variants for the widely used languages. Each entry is a distinct engine voice
 * (language × variant), so every one sounds different and renders its own preview.
 */
import type { Gender, VoiceInfo } from '../core/types.ts';
import data from './espeak-data.json' with { type: 'json' };
import { espeakLanguageTags, previewTextFor } from './languages.ts';

/** A language as eSpeak NG lists it (read by engines/espeak-runtime.ts, kept in espeak-data.json). */
export interface EspeakLanguageData {
  identifier: string;
  name: string;
  languages: string[];
  /** `pitch <base> <top>` of the language file, when it sets one. */
  pitch?: [number, number];
}

/** A voice variant as eSpeak NG lists it. */
export interface EspeakVariantData {
  id: string;
  name: string;
  gender: 'male' | 'female' | 'neutral';
  pitch?: [number, number];
  breath: boolean;
  klatt: boolean;
}

export const ESPEAK_MODEL = 'espeak-ng';

/** Variants every language gets ('' is the language's own default voice). */
const EVERY_LANGUAGE = ['', 'm3', 'f1', 'f3'];
/** More for widely used languages. */
const WIDELY_USED = ['m2', 'm4', 'm7', 'f2', 'f4', 'f5', 'klatt', 'klatt3', 'grandma', 'travis'];
const WIDELY_USED_LANGUAGES = new Set([
  'gmw/en-US',
  'gmw/en-GB-x-rp',
  'sit/cmn',
  'sit/yue',
  'roa/es',
  'roa/es-419',
  'roa/fr',
  'gmw/de',
  'jpx/ja',
  'ko',
  'zle/ru',
  'roa/pt-BR',
  'roa/it',
  'inc/hi',
  'sem/ar',
  'aav/vi',
  'trk/tr',
  'gmw/nl',
]);
/** English gets the character voices too. */
const ENGLISH_EXTRA = [
  'Alicia',
  'Andrea',
  'belinda',
  'linda',
  'steph',
  'victor',
  'michel',
  'antonio',
  'miguel',
  'grandpa',
  'announcer',
  'david',
  'ian',
  'quincy',
];
const ENGLISH_LANGUAGES = new Set(['gmw/en-US', 'gmw/en-GB-x-rp']);

const DEFAULT_PITCH: [number, number] = [82, 118];

const languages = data.languages as EspeakLanguageData[];
const variants = new Map((data.variants as EspeakVariantData[]).map((v) => [v.id, v]));

function variantGender(v: EspeakVariantData | undefined, pitchHz: number): Gender {
  if (v && v.gender !== 'neutral') return v.gender;
  return pitchHz >= 155 ? 'female' : 'male';
}

function label(v: EspeakVariantData | undefined, id: string): string {
  if (!v) return 'Default';
  const m = /^(male|female)(\d+)$/i.exec(v.name);
  if (m) return `${m[1]![0]!.toUpperCase()}${m[1]!.slice(1)} ${m[2]}`;
  if (/^klatt/.test(id)) return `Klatt ${id.slice(5) || '1'}`;
  return v.name.charAt(0).toUpperCase() + v.name.slice(1);
}

function languageName(l: EspeakLanguageData): string {
  return l.name.replace(/, latin as English/i, '').replace(/_/g, ' ');
}

const NATURAL = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** The plain voice first, then its variants by label in natural order (Female 1, 2, …, 10). */
function variantsFor(identifier: string): string[] {
  const list = [...EVERY_LANGUAGE];
  if (WIDELY_USED_LANGUAGES.has(identifier)) list.push(...WIDELY_USED);
  if (ENGLISH_LANGUAGES.has(identifier)) list.push(...ENGLISH_EXTRA);
  const [plain, ...rest] = list;
  const labelOf = (id: string) => label(variants.get(id), id);
  return [plain!, ...rest.sort((a, b) => NATURAL.compare(labelOf(a), labelOf(b)) || a.localeCompare(b))];
}

/** The espeak voice name to pass to `set_voice`. */
export function espeakVoiceName(identifier: string, variant: string): string {
  return variant ? `${identifier}+${variant}` : identifier;
}

let cached: VoiceInfo[] | undefined;

export function espeakVoices(): VoiceInfo[] {
  if (cached) return cached;
  const out: VoiceInfo[] = [];
  for (const l of languages) {
    const tags = espeakLanguageTags(l.identifier);
    const slug = l.identifier.split('/').pop()!.toLowerCase();
    for (const id of variantsFor(l.identifier)) {
      const v = id ? variants.get(id) : undefined;
      if (id && !v) continue;
      const [lo, hi] = v?.pitch ?? l.pitch ?? DEFAULT_PITCH;
      const pitchHz = Math.round((lo + hi) / 2);
      const gender = variantGender(v, pitchHz);
      out.push({
        id: `espeak:${slug}${id ? `+${id}` : ''}`,
        name: `${languageName(l)} · ${label(v, id)}`,
        gender,
        languages: tags,
        model: ESPEAK_MODEL,
        engine: 'espeak',
        variant: espeakVoiceName(l.identifier, id),
        age: 'adult',
        profile: { pitchHz, range: 50, rate: 1, formantScale: 1, breathiness: v?.breath ? 0.3 : 0, gainDb: 0 },
        previewText: previewTextFor(tags[0]!),
      });
    }
  }
  cached = out;
  return out;
}
