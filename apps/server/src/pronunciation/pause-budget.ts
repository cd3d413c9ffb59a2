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
import { PAUSE_MS, type MarkupDocument } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';

export const PAUSE_BUDGET = LIMITS.pauseBudget;

/** The pauses `characters` priced characters pay for, in milliseconds, before the ceiling: none without any. */
function earnedMs(characters: number): number {
  return characters > 0 ? PAUSE_BUDGET.baseMs + PAUSE_BUDGET.perCharacterMs * characters : 0;
}

/** The pauses a document with `characters` priced characters may ask for, in milliseconds: none without any. */
export function pauseBudgetMs(characters: number): number {
  return Math.min(PAUSE_BUDGET.maxMs, earnedMs(characters));
}

/**
 * The silence a document asks for: every part's pause (a break at the very start is the first part's), and where a
 * part ends an SSML `<s>` or `<p>` with no break, the sentence's or paragraph's pause the speech plan puts there (so
 * `<p>a</p>` repeated is held to the budget as its breaks would be).
 */
export function pausedMs(doc: Pick<MarkupDocument, 'parts'>): number {
  let ms = 0;
  for (const part of doc.parts) ms += part.pauseMs ?? (part.boundary ? PAUSE_MS[part.boundary] : 0);
  return ms;
}

/**
 * What the earlier pieces of one stream (a realtime socket, whose text is cut into pieces of its own) have spoken: the
 * stream is held to the budget as a whole, each piece to the ceiling, so a piece of breaks alone is spoken when the
 * words before it paid for them.
 */
export interface PauseTally {
  characters: number;
  pausedMs: number;
}

/** Counts a spoken piece in its stream's tally. */
export function spendPauses(tally: PauseTally, characters: number, doc?: Pick<MarkupDocument, 'parts'>): void {
  tally.characters += characters;
  tally.pausedMs += doc ? pausedMs(doc) : 0;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * The document, or `400 VALIDATION_FAILED` on `text` naming the limit when its pauses are over it (with `spent`, the
 * pieces of its stream before it count too).
 */
export function withinPauseBudget<T extends Pick<MarkupDocument, 'parts' | 'characters'>>(doc: T, spent?: PauseTally): T {
  const asked = pausedMs(doc);
  const characters = (spent?.characters ?? 0) + doc.characters;
  const allowed = Math.max(0, Math.min(PAUSE_BUDGET.maxMs, earnedMs(characters) - (spent?.pausedMs ?? 0)));
  if (asked <= allowed) return doc;
  throw new AppError('VALIDATION_FAILED', {
    field: 'text',
    rule:
      `pauses may last at most ${seconds(allowed)} in all for ${characters} characters ` +
      `(${seconds(PAUSE_BUDGET.baseMs)} and ${seconds(PAUSE_BUDGET.perCharacterMs)} per character, ` +
      `${seconds(PAUSE_BUDGET.maxMs)} at most); these last ${seconds(asked)}`,
  });
}
