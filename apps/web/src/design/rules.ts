/**
 * The console's own checks of the design forms. They catch the obvious before a request (and
 * before a charge); the server stays the judge: a file that passes here may still be refused.
 */
import { LIMITS } from '@polyvox/contracts';
import type { ModelInfo, TtsConfig } from '../speech/types';
import type { MixEntry, PreviewType } from './types';

export const CLONE_EXTENSIONS = ['mp3', 'm4a', 'wav'] as const;
const CLONE_MIME = new Set([
  'audio/mpeg',
  'audio/mp3',
  'audio/mpeg3',
  'audio/x-mpeg-3',
  'audio/mp4',
  'audio/x-m4a',
  'audio/m4a',
  'audio/aac',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/vnd.wave',
]);
export const CLONE_ACCEPT = '.mp3,.m4a,.wav,audio/mpeg,audio/mp4,audio/x-m4a,audio/wav,audio/x-wav';

/** At most this many models previewed side by side. */
export const AB_MAX = 3;

export type FileProblem = 'type' | 'size' | 'empty';

/** Type by name or declared type (the server sniffs the bytes); size within the contract's 20 MB. */
export function checkCloneFile(file: { name: string; type: string; size: number }): FileProblem | null {
  const ext = file.name.toLowerCase().split('.').pop() ?? '';
  const named = (CLONE_EXTENSIONS as readonly string[]).includes(ext);
  const declared = CLONE_MIME.has(file.type.toLowerCase());
  if (!named && !declared) return 'type';
  if (file.size === 0) return 'empty';
  if (file.size > LIMITS.cloneMaxBytes) return 'size';
  return null;
}

export interface DesignForm {
  prompt: string;
  previewText: string;
  models: string[];
  language: string | null;
  name: string;
}

export type DesignField = 'prompt' | 'previewText' | 'models' | 'language' | 'name';

/** Which required fields are missing: a prompt form needs all five, a clone form all but the prompt. */
export function missingFields(form: DesignForm, type: PreviewType): DesignField[] {
  const out: DesignField[] = [];
  if (type === 'prompt' && !form.prompt.trim()) out.push('prompt');
  if (!form.previewText.trim()) out.push('previewText');
  if (form.models.length === 0) out.push('models');
  if (!form.language) out.push('language');
  if (!form.name.trim()) out.push('name');
  return out;
}

/**
 * The models a kind of design runs on: a mix only on the models `/tts/config` marks `mixing`; a
 * prompt or a clone on every model (a clone's profile is reproduced on any engine's base voice).
 */
export function modelsFor(config: TtsConfig | undefined, kind: 'prompt' | 'clone' | 'mixing'): ModelInfo[] {
  const models = config?.models ?? [];
  return kind === 'mixing' ? models.filter((m) => m.type.includes('mixing')) : models;
}

/** The languages the chosen models share, else all of theirs. */
export function languagesOf(config: TtsConfig | undefined, models: readonly string[]): string[] {
  const chosen = (config?.models ?? []).filter((m) => models.includes(m.model));
  if (chosen.length === 0) return [];
  const shared = chosen[0]!.languages.filter((l) => chosen.every((m) => m.languages.includes(l)));
  return shared.length > 0 ? shared : [...new Set(chosen.flatMap((m) => m.languages))];
}

/** The default language: the UI's, its primary subtag, English, else the first. */
export function defaultLanguage(languages: readonly string[], ui: string): string | null {
  const primary = ui.split('-')[0]!;
  const candidates = [ui, primary, ui === 'zh-CN' ? 'cmn' : ui === 'zh-TW' ? 'yue' : '', 'en-US', 'en'];
  for (const c of candidates) if (c && languages.includes(c)) return c;
  return languages[0] ?? null;
}

/** Slider weights (any positive numbers) as the fractions sent, summing to 1; the heaviest first stays first. */
export function mixPayload(entries: readonly MixEntry[]): MixEntry[] {
  const positive = entries.filter((e) => e.weight > 0);
  const sum = positive.reduce((s, e) => s + e.weight, 0);
  if (sum <= 0) return [];
  const out = positive.map((e) => ({ voice_id: e.voice_id, weight: Math.round((e.weight / sum) * 1000) / 1000 }));
  // Rounding may leave the sum at 0.999 or 1.001: the heaviest takes the difference.
  const drift = Math.round((1 - out.reduce((s, e) => s + e.weight, 0)) * 1000) / 1000;
  if (drift !== 0) {
    const heaviest = out.reduce((best, e, i) => (e.weight > out[best]!.weight ? i : best), 0);
    out[heaviest]!.weight = Math.round((out[heaviest]!.weight + drift) * 1000) / 1000;
  }
  return out;
}

/** The voice whose base a mix keeps: the heaviest (the first of equals). */
export function baseVoice(entries: readonly MixEntry[]): string | null {
  let best: MixEntry | null = null;
  for (const e of entries) if (e.weight > 0 && (!best || e.weight > best.weight)) best = e;
  return best?.voice_id ?? null;
}

/**
 * Whole percentages of the weights, for display, that add up to 100 (largest remainder: each share rounded down,
 * then the points left go one each to the shares that lost the most, the first of equals first), so three equal
 * voices read 34/33/33 %, never 35/32/32 % or 33/33/33 %.
 */
export function weightPercents(entries: readonly MixEntry[]): number[] {
  const sum = entries.reduce((s, e) => s + Math.max(0, e.weight), 0);
  if (sum <= 0) return entries.map(() => 0);
  const exact = entries.map((e) => (Math.max(0, e.weight) / sum) * 100);
  const out = exact.map(Math.floor);
  const left = 100 - out.reduce((s, p) => s + p, 0);
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order.slice(0, left)) out[i]! += 1;
  return out;
}

/**
 * A name for a version activated with none typed (the form's name is gone after a reload): the opening of its prompt,
 * cut at a word where words are spaced, within the name limit; `fallback` when it has no prompt.
 */
export function nameFromPrompt(prompt: string | null | undefined, fallback: string): string {
  const text = (prompt ?? '').replace(/\s+/g, ' ').trim();
  if (!text) return fallback;
  const chars = [...text];
  if (chars.length <= LIMITS.nameMaxLength) return text;
  const cut = chars.slice(0, LIMITS.nameMaxLength - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > cut.length / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:，。；：、]+$/u, '')}…`;
}
