/**
 * The check page's own logic: which files it sends, which headline an answer gets, and how a
 * false-alarm rate reads in plain words. The server stays the judge of the file.
 */
import { LIMITS } from '@polyvox/contracts';
import type { AudioFormat } from '../speech/types';
import type { Verification } from './types';

const AUDIO_EXTENSIONS = new Set([
  'mp3',
  'wav',
  'wave',
  'ogg',
  'oga',
  'opus',
  'm4a',
  'mp4',
  'aac',
  'flac',
  'webm',
  'weba',
  'amr',
]);
export const AUDIO_ACCEPT = 'audio/*,.mp3,.wav,.ogg,.oga,.opus,.m4a,.mp4,.aac,.flac,.webm';

export type AudioFileProblem = 'type' | 'size' | 'empty';

/** Audio by name or declared type; within the contract's 20 MB (checked here so a large file is never sent). */
export function checkAudioFile(file: { name: string; type: string; size: number }): AudioFileProblem | null {
  const ext = file.name.toLowerCase().split('.').pop() ?? '';
  if (!AUDIO_EXTENSIONS.has(ext) && !file.type.toLowerCase().startsWith('audio/')) return 'type';
  if (file.size === 0) return 'empty';
  if (file.size > LIMITS.provenanceMaxBytes) return 'size';
  return null;
}

/**
 * The headline: made here (the server's verdict); an AIGC label the server does not vouch for, with
 * nothing else tying the file to this platform ("copied": the label does not match this sound, as
 * one copied from other audio, edited, or another service's); labelled as AI by a manifest this
 * platform cannot vouch for; or nothing found. Nothing found never means "made by a person": the page
 * says so.
 */
export type Verdict = 'ours' | 'copied' | 'labelled' | 'none';

export function chooseVerdict(answer: Pick<Verification, 'ai_generated' | 'aigc' | 'aigc_valid' | 'c2pa'>): Verdict {
  if (answer.ai_generated) return 'ours';
  if (answer.aigc && !answer.aigc_valid) return 'copied';
  if (answer.aigc || answer.c2pa?.present) return 'labelled';
  return 'none';
}

/**
 * A false-alarm rate as odds a reader takes in: "about 1 in 3 million" for a small rate, a
 * percentage once it is large enough that the score means little, and "less than 1 in a trillion"
 * below what a detector's threshold can honestly claim.
 */
export type Odds = { kind: 'oneIn'; n: number } | { kind: 'below'; n: number } | { kind: 'percent'; percent: number };

export const ODDS_FLOOR = 1e-12;

export function falseAlarmOdds(rate: number): Odds | null {
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) return null;
  if (rate < ODDS_FLOOR) return { kind: 'below', n: 1 / ODDS_FLOOR };
  if (rate >= 0.1) return { kind: 'percent', percent: Math.round(rate * 100) };
  return { kind: 'oneIn', n: roundSignificant(1 / rate, 2) };
}

function roundSignificant(value: number, digits: number): number {
  const scale = 10 ** (Math.floor(Math.log10(value)) - digits + 1);
  return Math.round(value / scale) * scale;
}

/** A large count in words the language uses: "3.1 million", "310万", "310萬"; small ones as plain numbers. */
export function formatCount(n: number, locale: string): string {
  if (n < 10_000) return new Intl.NumberFormat(locale).format(n);
  return new Intl.NumberFormat(locale, { notation: 'compact', compactDisplay: 'long', maximumSignificantDigits: 2 }).format(n);
}

/** What a downloaded file of this format carries: pcm has no container, so only the watermark in the samples. */
export type Mark = 'metadata' | 'watermark' | 'c2pa';

/** `streamed`: the audio came as it was made, so it is labelled but not signed (only whole files carry C2PA). */
export function downloadMarks(format: AudioFormat, streamed = false): Mark[] {
  switch (format) {
    case 'mp3':
    case 'wav':
      return streamed ? ['metadata', 'watermark'] : ['metadata', 'watermark', 'c2pa'];
    case 'opus':
      return ['metadata', 'watermark'];
    case 'pcm':
      return ['watermark'];
  }
}
