/** SSML's values (SSML 1.1 and the subset docs/pronunciation.md lists): break strengths and times, prosody's rate,
 * pitch and volume, emphasis, each read into the voice settings a markup part carries. */
import { SILENT_DB } from '@polyvox/speech';

/** Break strengths (SSML 1.1) in milliseconds. */
export const STRENGTHS = new Map([
  ['none', 0],
  ['x-weak', 100],
  ['weak', 250],
  ['medium', 500],
  ['strong', 750],
  ['x-strong', 1200],
]);
/** The longest `<break>` an SSML document may ask for; ElevenLabs' breaks in plain text stop at 3 s, as its own do. */
export const SSML_MAX_BREAK_MS = 10_000;
export const PLAIN_MAX_BREAK_MS = 3_000;

const RATES = new Map([
  ['x-slow', 0.5],
  ['slow', 0.75],
  ['medium', 1],
  ['default', 1],
  ['fast', 1.5],
  ['x-fast', 2],
]);
/** Pitch keywords in semitones. */
const PITCHES = new Map([
  ['x-low', -6],
  ['low', -3],
  ['medium', 0],
  ['default', 0],
  ['high', 3],
  ['x-high', 6],
]);
/** Volume keywords in dB (`silent`: the markup's floor, heard as nothing). */
const VOLUMES = new Map([
  ['silent', SILENT_DB],
  ['x-soft', -12],
  ['soft', -6],
  ['medium', 0],
  ['default', 0],
  ['loud', 4],
  ['x-loud', 8],
]);
/** `<emphasis level>`: a little slower, higher and louder (or the reverse), as SSML leaves to the processor. */
export const EMPHASIS = new Map<string, Settings>([
  ['strong', { rate: 0.85, pitch: 2, volume: 4 }],
  ['moderate', { rate: 0.93, pitch: 1, volume: 2 }],
  ['none', {}],
  ['reduced', { rate: 1.07, pitch: -1, volume: -4 }],
]);

export interface Settings {
  rate?: number;
  pitch?: number;
  volume?: number;
  language?: string;
}

const NUMBER = '([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))';

/** `<prosody rate>`: a keyword, a percentage of the normal rate (`80%`), a relative change (`+20%`) or a factor (`1.2`). */
export function readRate(value: string): number | undefined {
  const keyword = RATES.get(value);
  if (keyword !== undefined) return keyword;
  const m = new RegExp(`^${NUMBER}(%)?$`).exec(value);
  if (!m) return undefined;
  const n = Number(m[1]);
  const relative = /^[+-]/.test(m[1]!);
  const rate = m[2] ? (relative ? 1 + n / 100 : n / 100) : n;
  return rate >= 0.25 && rate <= 4 ? rate : undefined;
}

/** `<prosody pitch>` in semitones: a keyword, `+2st`, `-10%` (of the voice's pitch), or Hz against the voice's own. */
export function readPitch(value: string, baseHz: number): number | undefined {
  const keyword = PITCHES.get(value);
  if (keyword !== undefined) return keyword;
  const m = new RegExp(`^${NUMBER}(st|%|Hz)$`, 'i').exec(value);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2]!.toLowerCase();
  const relative = /^[+-]/.test(m[1]!);
  let semis: number;
  if (unit === 'st') semis = n;
  else if (unit === '%') semis = 12 * Math.log2(Math.max(0.01, 1 + n / 100));
  else semis = 12 * Math.log2(Math.max(1, relative ? baseHz + n : n) / baseHz);
  return Math.abs(semis) <= 12 ? semis : undefined;
}

/** `<prosody volume>` in dB: a keyword, `+6dB`, or a relative change of amplitude (`+50%`). */
export function readVolume(value: string): number | undefined {
  const keyword = VOLUMES.get(value);
  if (keyword !== undefined) return keyword;
  const m = new RegExp(`^${NUMBER}(dB|%)$`, 'i').exec(value);
  if (!m) return undefined;
  const n = Number(m[1]);
  const db = m[2]!.toLowerCase() === 'db' ? n : 20 * Math.log10(Math.max(0, 1 + n / 100));
  return db === -Infinity ? SILENT_DB : Math.abs(db) <= 40 ? db : undefined;
}

/** `<break time>`: `1.5s`, `500ms`. */
export function readTime(value: string): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*(s|ms)$/i.exec(value.trim());
  if (!m) return undefined;
  return Number(m[1]) * (m[2]!.toLowerCase() === 's' ? 1000 : 1);
}

/** Line and column (both from 1) of an offset. */
