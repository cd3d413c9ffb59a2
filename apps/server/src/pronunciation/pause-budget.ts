/**
 * How much silence a request's markup may ask for: the one rule every speech route applies (through `readMarkup`).
 *
 * A pause costs nothing to ask for and as much to make as speech: 300 `<break time="10s"/>` around two priced
 * characters would be 50 minutes of audio. So the pauses of a document (its breaks, ElevenLabs' breaks in plain text,
 * its paragraphs' ends) may add up to a base of 3 s (one of ElevenLabs' longest breaks) once there is a priced
 * character, and half a second for every priced character, and never more than 60 s in one request. Natural speech seldom pauses more than
 * a few seconds, and a character is spoken in a tenth to a quarter of a second, so the silence stays within a few
 * times the speech it stands between. Everything else a request makes is bounded by its characters already: the
 * slowest rate (`speed` × `<prosody rate>`) is a quarter of the normal one.
 */
import { LIMITS } from '@polyvox/contracts';
import type { MarkupDocument } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';

export const PAUSE_BUDGET = LIMITS.pauseBudget;

/** The pauses a document with `characters` priced characters may ask for, in milliseconds: none without any. */
export function pauseBudgetMs(characters: number): number {
  if (!(characters > 0)) return 0;
  return Math.min(PAUSE_BUDGET.maxMs, PAUSE_BUDGET.baseMs + PAUSE_BUDGET.perCharacterMs * characters);
}

/** The silence a document asks for: every part's pause (a break at the very start is the first part's). */
export function pausedMs(doc: Pick<MarkupDocument, 'parts'>): number {
  let ms = 0;
  for (const part of doc.parts) ms += part.pauseMs ?? 0;
  return ms;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** The document, or `400 VALIDATION_FAILED` on `text` naming the limit when its pauses are over it. */
export function withinPauseBudget<T extends Pick<MarkupDocument, 'parts' | 'characters'>>(doc: T): T {
  const asked = pausedMs(doc);
  const allowed = pauseBudgetMs(doc.characters);
  if (asked <= allowed) return doc;
  throw new AppError('VALIDATION_FAILED', {
    field: 'text',
    rule:
      `pauses may last at most ${seconds(allowed)} in all for ${doc.characters} characters ` +
      `(${seconds(PAUSE_BUDGET.baseMs)} and ${seconds(PAUSE_BUDGET.perCharacterMs)} per character, ` +
      `${seconds(PAUSE_BUDGET.maxMs)} at most); these last ${seconds(asked)}`,
  });
}
