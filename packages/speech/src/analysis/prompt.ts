/**
 * Prompt to voice: an English or Chinese description read for gender, age, pitch, pace, accent or
 * language and tone words, then turned into a profile on the best-matching base voice of one model.
 * Repeated previews of one prompt differ by a small seeded variation.
 */
import type { Gender, VoiceInfo, VoiceProfile } from '../core/types.ts';

export type Age = 'child' | 'young' | 'adult' | 'senior';
export const TONES = ['deep', 'warm', 'bright', 'breathy', 'raspy', 'whisper', 'calm', 'energetic'] as const;
export type Tone = (typeof TONES)[number];

export interface PromptTraits {
  gender?: Gender;
  age?: Age;
  /** -1 (very low) .. 1 (very high). */
  pitch?: number;
  /** -1 (very slow) .. 1 (very fast). */
  pace?: number;
  /** A BCP-47 tag named by the description (accent or language). */
  language?: string;
  tones: Tone[];
}

/** English words are matched as whole words (so "female" is not "male"); Chinese as substrings. */
interface Rule {
  en?: RegExp;
  zh?: string[];
  apply(t: PromptTraits): void;
}

const w = (words: string): RegExp => new RegExp(`\\b(?:${words})\\b`, 'i');
const tone = (name: Tone) => (t: PromptTraits) => void (t.tones.includes(name) || t.tones.push(name));

// Checked in order: later rules refine earlier ones (an "old woman" is female and senior).
const RULES: Rule[] = [
  {
    en: w('male|man|men|boy|guy|gentleman|father|dad|husband|he|his|masculine'),
    zh: ['男', '他', '先生', '爸', '叔', '爷', '哥', '伯'],
    apply: (t) => void (t.gender = 'male'),
  },
  {
    en: w('female|woman|women|girl|lady|mother|mom|wife|she|her|feminine'),
    zh: ['女', '她', '姐', '妈', '阿姨', '姑娘', '奶奶', '婆', '妹', '姥'],
    apply: (t) => void (t.gender = 'female'),
  },
  { en: w('neutral|androgynous|genderless|robot|robotic'), zh: ['中性'], apply: (t) => void (t.gender = 'neutral') },
  {
    en: w('young|youthful|teen|teenage|teenager|student|boy|girl'),
    zh: ['年轻', '青年', '少年', '少女', '学生'],
    apply: (t) => void (t.age = 'young'),
  },
  {
    en: w('child|children|kid|kids|toddler|childlike|little girl|little boy|baby'),
    zh: ['孩', '儿童', '童声', '小朋友', '宝宝', '萝莉', '正太'],
    apply: (t) => void (t.age = 'child'),
  },
  { en: w('adult|middle-aged|mature'), zh: ['中年', '成熟', '成年'], apply: (t) => void (t.age = 'adult') },
  {
    en: w('old|older|elderly|senior|aged|grandfather|grandmother|grandpa|grandma'),
    zh: ['老', '老人', '老年', '年老', '老爷爷', '老奶奶', '爷爷', '奶奶', '苍老', '老者', '老先生', '老太'],
    apply: (t) => void (t.age = 'senior'),
  },
  {
    en: w('low|low-pitched|bass|baritone'),
    zh: ['低音', '低沉', '浑厚'],
    apply: (t) => void (t.pitch = Math.min(t.pitch ?? 0, -0.6)),
  },
  {
    en: w('high|high-pitched|squeaky|soprano|shrill'),
    zh: ['高音', '尖', '高亢'],
    apply: (t) => void (t.pitch = Math.max(t.pitch ?? 0, 0.6)),
  },
  {
    en: w('slow|slowly|unhurried|leisurely|measured|deliberate'),
    zh: ['慢', '缓慢', '从容'],
    apply: (t) => void (t.pace = -0.6),
  },
  { en: w('fast|quick|quickly|rapid|brisk|hurried'), zh: ['快', '急促', '语速快'], apply: (t) => void (t.pace = 0.6) },
  { en: w('deep|husky|resonant|booming'), zh: ['低沉', '深沉', '浑厚', '磁性'], apply: tone('deep') },
  { en: w('warm|gentle|soft|kind|friendly|soothing|mellow'), zh: ['温暖', '温柔', '温和', '亲切', '柔和'], apply: tone('warm') },
  {
    en: w('bright|clear|crisp|cheerful|sunny|sweet'),
    zh: ['明亮', '清脆', '清亮', '甜美', '开朗', '阳光'],
    apply: tone('bright'),
  },
  { en: w('breathy|airy|soft-spoken|sultry'), zh: ['气声', '气息', '轻柔'], apply: tone('breathy') },
  { en: w('raspy|hoarse|gravelly|rough|gruff|husky'), zh: ['沙哑', '嘶哑', '粗犷', '烟嗓'], apply: tone('raspy') },
  { en: w('whisper|whispering|whispered|whispery'), zh: ['耳语', '悄悄', '低语', '轻声'], apply: tone('whisper') },
  {
    en: w('calm|relaxed|peaceful|serene|steady|soothing|composed|sad|somber|sombre|sympathetic|monotone|flat'),
    zh: ['平静', '冷静', '沉稳', '安静', '平和', '舒缓'],
    apply: tone('calm'),
  },
  {
    en: w('energetic|lively|excited|enthusiastic|dynamic|vibrant|upbeat|animated|happy|joyful|positive|expressive'),
    zh: ['活力', '活泼', '热情', '激情', '兴奋', '元气'],
    apply: tone('energetic'),
  },
];

const LANGUAGES: [RegExp | string, string][] = [
  [w('british|english accent|london|uk'), 'en-GB'],
  [w('american|us accent|usa'), 'en-US'],
  [w('scottish'), 'en-GB'],
  [w('mandarin|chinese'), 'zh-CN'],
  [w('cantonese'), 'yue'],
  [w('taiwanese'), 'zh-TW'],
  [w('french'), 'fr'],
  [w('german'), 'de'],
  [w('spanish'), 'es'],
  [w('italian'), 'it'],
  [w('japanese'), 'ja'],
  [w('korean'), 'ko'],
  [w('russian'), 'ru'],
  [w('portuguese|brazilian'), 'pt'],
  ['英式', 'en-GB'],
  ['英国', 'en-GB'],
  ['美式', 'en-US'],
  ['美国', 'en-US'],
  ['英语', 'en'],
  ['普通话', 'zh-CN'],
  ['中文', 'zh-CN'],
  ['汉语', 'zh-CN'],
  ['粤语', 'yue'],
  ['广东话', 'yue'],
  ['台湾', 'zh-TW'],
  ['法语', 'fr'],
  ['德语', 'de'],
  ['西班牙语', 'es'],
  ['日语', 'ja'],
  ['韩语', 'ko'],
  ['俄语', 'ru'],
];

export function readPrompt(prompt: string): PromptTraits {
  const raw = typeof prompt === 'string' ? prompt.normalize('NFKC').slice(0, 2000) : '';
  const t: PromptTraits = { tones: [] };
  // 老 alone says old, but not in 老师 (teacher), 老板 (boss), 老公/老婆 (husband/wife) and the like.
  const text = raw.replace(/老(?=[师板公婆乡虎鼠外兄弟])/g, '');
  for (const r of RULES) if (r.en?.test(text) || r.zh?.some((z) => text.includes(z))) r.apply(t);
  // "very"/"非常" strengthens a pitch or pace word.
  if (/\b(?:very|extremely|really)\b|非常|很|特别/i.test(text)) {
    if (t.pitch !== undefined) t.pitch = Math.sign(t.pitch);
    if (t.pace !== undefined) t.pace = Math.sign(t.pace) * 0.9;
  }
  for (const [k, tag] of LANGUAGES)
    if (typeof k === 'string' ? text.includes(k) : k.test(text)) {
      t.language = tag;
      break;
    }
  return t;
}

/** mulberry32: a small seeded generator, so a (prompt, seed) pair always gives the same voice. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashText(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
/**
 * Bounds of a designed voice's pitch: under about 75 Hz the engines fall into creak (eSpeak's
 * Mandarin goes below 60 Hz and breaks up), and over 420 Hz into a whistle.
 */
const PITCH_FLOOR_HZ = 75;
const PITCH_CEILING_HZ = 420;
const family = (tag: string): string => tag.toLowerCase().split('-')[0]!.replace(/^cmn$/, 'zh');

/** How well a candidate fits the traits; the best base voice has the highest score. */
function score(v: VoiceInfo, t: PromptTraits, language: string | undefined): number {
  let s = 0;
  if (language) {
    const exact = v.languages.some((l) => l.toLowerCase() === language.toLowerCase());
    const fam = v.languages.some((l) => family(l) === family(language));
    s += exact ? 8 : fam ? 6 : 0;
    if (family(v.languages[0] ?? '') === family(language)) s += 1;
    // A main dialect before a regional one (en-US before en-US-x-nyc).
    if ((v.languages[0] ?? '').toLowerCase() === language.toLowerCase()) s += 1;
  }
  const child = v.age === 'child' || v.age === 'baby';
  if (t.gender) s += v.gender === t.gender ? 4 : v.gender === 'neutral' ? 1 : 0;
  if (t.age === 'child') s += child ? 3 : 0;
  else if (child) s -= 3;
  // Plain voices before variants with effects of their own (eSpeak's whisper, croak…).
  if (v.profile.breathiness > 0 && !t.tones.includes('breathy') && !t.tones.includes('whisper')) s -= 1;
  return s;
}

/** Semitones from the base voice's own pitch for the traits. */
function pitchShift(t: PromptTraits, base: VoiceInfo): number {
  let st = (t.pitch ?? 0) * 5;
  if (t.tones.includes('deep')) st -= 3;
  if (t.tones.includes('bright')) st += 2;
  if (t.tones.includes('energetic')) st += 1;
  if (t.tones.includes('calm')) st -= 0.5;
  const baseChild = base.age === 'child' || base.age === 'baby';
  if (t.age === 'child' && !baseChild) st += 6;
  if (t.age === 'young') st += 1;
  if (t.age === 'senior') st += t.gender === 'male' || base.gender === 'male' ? -1.5 : -2.5;
  // A gender the base voice lacks is reached by pitch (and formants, below).
  if (t.gender === 'female' && base.gender === 'male') st += 8;
  if (t.gender === 'male' && base.gender === 'female') st -= 8;
  return st;
}

export function promptVoice(
  prompt: string,
  candidates: VoiceInfo[],
  seed: number,
  language?: string,
): { base: VoiceInfo; profile: VoiceProfile; traits: PromptTraits } {
  if (!candidates.length) throw new Error('promptVoice needs at least one candidate voice');
  const traits = readPrompt(prompt);
  const lang = language ?? traits.language;
  const rnd = random(hashText(prompt) ^ Math.imul(seed | 0, 0x9e3779b1));
  const scored = candidates.map((v, i) => ({ v, s: score(v, traits, lang), i }));
  const top = Math.max(...scored.map((x) => x.s));
  // Among equally good voices the seed chooses, so versions of one prompt can differ in base too.
  const best = scored.filter((x) => x.s === top);
  const base = best[Math.floor(rnd() * best.length) % best.length]!.v;
  const own = base.profile;

  const st = pitchShift(traits, base) + (rnd() - 0.5) * 1.0;
  let rate = own.rate * (1 + (traits.pace ?? 0) * 0.3);
  if (traits.tones.includes('calm')) rate *= 0.93;
  if (traits.tones.includes('energetic')) rate *= 1.08;
  if (traits.age === 'senior') rate *= 0.92;
  rate *= 1 + (rnd() - 0.5) * 0.06;

  let formantScale = own.formantScale;
  if (traits.tones.includes('deep')) formantScale *= 0.94;
  if (traits.tones.includes('bright')) formantScale *= 1.03;
  const baseChild = base.age === 'child' || base.age === 'baby';
  if (traits.age === 'child' && !baseChild) formantScale *= 1.15;
  if (traits.gender === 'female' && base.gender === 'male') formantScale *= 1.12;
  if (traits.gender === 'male' && base.gender === 'female') formantScale *= 0.89;
  formantScale *= 1 + (rnd() - 0.5) * 0.04;

  let breathiness = own.breathiness;
  if (traits.tones.includes('breathy')) breathiness = Math.max(breathiness, 0.45);
  if (traits.tones.includes('raspy')) breathiness = Math.max(breathiness, 0.25);
  if (traits.tones.includes('whisper')) breathiness = Math.max(breathiness, 0.9);
  if (traits.age === 'senior') breathiness = Math.max(breathiness, 0.12);

  let range = own.range;
  if (traits.tones.includes('calm')) range *= 0.75;
  if (traits.tones.includes('energetic')) range *= 1.3;
  let tiltDb = 0;
  if (traits.tones.includes('warm')) tiltDb -= 1.5;
  if (traits.tones.includes('deep')) tiltDb -= 1;
  if (traits.tones.includes('bright')) tiltDb += 1.5;
  if (traits.tones.includes('raspy')) tiltDb += 1;

  const profile: VoiceProfile = {
    pitchHz: Math.round(clamp(own.pitchHz * 2 ** (st / 12), PITCH_FLOOR_HZ, PITCH_CEILING_HZ) * 10) / 10,
    range: Math.round(range * 10) / 10,
    rate: Math.round(clamp(rate, 0.6, 1.6) * 1000) / 1000,
    formantScale: Math.round(clamp(formantScale, 0.8, 1.25) * 1000) / 1000,
    breathiness: Math.round(clamp(breathiness, 0, 1) * 1000) / 1000,
    gainDb: own.gainDb,
    ...(own.blend ? { blend: own.blend } : {}),
    ...(tiltDb ? { tiltDb } : {}),
    seed: (hashText(prompt) ^ seed) >>> 0,
  };
  return { base, profile, traits };
}

/** ElevenLabs' `voice_settings`, the parts read for delivery (speed is the request's own). */
export interface VoiceSettingsInput {
  /** 0–1, default 0.5: lower varies the pitch more (a wider range), higher keeps it steadier. */
  stability?: number | null | undefined;
  /** 0–1, default 0.75: accepted; no engine here has a knob for it (see `settingsProfile`). */
  similarityBoost?: number | null | undefined;
  /** 0–1, default 0: more is more expressive (a wider range still). */
  style?: number | null | undefined;
  /** Default true; false takes away a little of the voice's presence (a duller tilt). */
  speakerBoost?: boolean | null | undefined;
}

/** ElevenLabs' defaults: settings equal to them leave a voice exactly as it is. */
export const DEFAULT_VOICE_SETTINGS = { stability: 0.5, similarityBoost: 0.75, style: 0, speakerBoost: true } as const;

const unit = (v: number | null | undefined, fallback: number): number =>
  typeof v === 'number' && Number.isFinite(v) ? clamp(v, 0, 1) : fallback;

/**
 * ElevenLabs' `voice_settings` on a voice's profile, as the pipeline's traits: `stability` sets how much the pitch
 * moves (the range times 1.8 at 0, times 0.4 at 1, unchanged at the default 0.5), `style` widens the range further
 * (times 1 + 0.6 · style, so more expressive), and `use_speaker_boost: false` tilts the spectrum 1.5 dB per octave
 * darker (the boost, on by default, is the voice as it is: its presence). `similarity_boost` is accepted and has no
 * effect: the conversion towards a cloned voice's sample always goes as far as it can. The defaults (0.5, 0.75, 0,
 * true) return the profile itself, so such a request sounds exactly as one without settings. The range acts where
 * an engine renders it (eSpeak NG, Flite); a neural voice keeps its own intonation.
 */
export function settingsProfile(own: VoiceProfile, settings: VoiceSettingsInput): VoiceProfile {
  const stability = unit(settings.stability, DEFAULT_VOICE_SETTINGS.stability);
  const style = unit(settings.style, DEFAULT_VOICE_SETTINGS.style);
  const boost = typeof settings.speakerBoost === 'boolean' ? settings.speakerBoost : DEFAULT_VOICE_SETTINGS.speakerBoost;
  // 1.8 at 0, 1 at 0.5, 0.4 at 1: piecewise linear around the default.
  const steadiness = stability <= 0.5 ? 1.8 - 1.6 * stability : 1 - 1.2 * (stability - 0.5);
  const rangeFactor = steadiness * (1 + 0.6 * style);
  const tilt = boost ? 0 : -1.5;
  if (Math.abs(rangeFactor - 1) < 1e-9 && tilt === 0) return own;
  const tiltDb = (own.tiltDb ?? 0) + tilt;
  const { tiltDb: _, ...rest } = own;
  return {
    ...rest,
    range: Math.round(clamp(own.range * rangeFactor, 0, 100) * 10) / 10,
    ...(tiltDb ? { tiltDb } : {}),
    ...(tilt !== 0 ? { seed: own.seed ?? 1 } : {}),
  };
}

/**
 * A request's spoken-style instructions (OpenAI's `instructions`) applied to a voice as it is: the same words a
 * design prompt is read for, but only those about delivery move it (pitch, pace, range, breathiness, warmth or
 * brightness); words about who speaks (gender, age, accent) leave the voice alone, since the request named it.
 * Returns the profile unchanged when the text says nothing it knows.
 */
export function instructedProfile(own: VoiceProfile, instructions: string): { profile: VoiceProfile; traits: PromptTraits } {
  const traits = readPrompt(instructions);
  const has = (t: Tone) => traits.tones.includes(t);
  let st = (traits.pitch ?? 0) * 4;
  if (has('deep')) st -= 2;
  if (has('bright')) st += 1.5;
  if (has('energetic')) st += 1;
  if (has('calm')) st -= 0.5;
  let rate = own.rate * (1 + (traits.pace ?? 0) * 0.35);
  if (has('calm')) rate *= 0.93;
  if (has('energetic')) rate *= 1.08;
  let range = own.range;
  if (has('calm')) range *= 0.7;
  if (has('energetic')) range *= 1.35;
  let breathiness = own.breathiness;
  if (has('breathy')) breathiness = Math.max(breathiness, 0.45);
  if (has('raspy')) breathiness = Math.max(breathiness, 0.25);
  if (has('whisper')) breathiness = Math.max(breathiness, 0.9);
  let tiltDb = own.tiltDb ?? 0;
  if (has('warm')) tiltDb -= 1.5;
  if (has('deep')) tiltDb -= 1;
  if (has('bright')) tiltDb += 1.5;
  if (has('raspy')) tiltDb += 1;
  const moved =
    st !== 0 || rate !== own.rate || range !== own.range || breathiness !== own.breathiness || tiltDb !== (own.tiltDb ?? 0);
  if (!moved) return { profile: own, traits };
  return {
    traits,
    profile: {
      ...own,
      pitchHz: Math.round(clamp(own.pitchHz * 2 ** (st / 12), PITCH_FLOOR_HZ, PITCH_CEILING_HZ) * 10) / 10,
      range: Math.round(clamp(range, 0, 100) * 10) / 10,
      rate: Math.round(clamp(rate, 0.5, 2) * 1000) / 1000,
      breathiness: Math.round(clamp(breathiness, 0, 1) * 1000) / 1000,
      ...(tiltDb ? { tiltDb } : {}),
      seed: own.seed ?? hashText(instructions),
    },
  };
}
