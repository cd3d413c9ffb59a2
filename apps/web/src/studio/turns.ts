import { DIALOGUE_LIMITS } from '@polyvox/contracts';

/** A dialogue's turns on the page: each a voice and a text, at most ten distinct voices. */

export interface Turn {
  /** The page's own key for the turn (React keys, test ids): not sent. */
  key: string;
  voiceId: string;
  text: string;
}

let nextKey = 0;
export function newTurn(voiceId: string, text = ''): Turn {
  nextKey += 1;
  return { key: `turn-${nextKey}`, voiceId, text };
}

/** The turns as `inputs`: those with a voice and some text. */
export function dialogueInputs(turns: readonly Turn[]): { text: string; voice_id: string }[] {
  return turns.filter((t) => t.voiceId && t.text.trim() !== '').map((t) => ({ text: t.text, voice_id: t.voiceId }));
}

export function distinctVoices(turns: readonly Turn[]): number {
  return new Set(turns.map((t) => t.voiceId).filter(Boolean)).size;
}

/** Whether giving turn `index` this voice keeps the dialogue within ten distinct voices. */
export function voiceFits(turns: readonly Turn[], index: number, voiceId: string): boolean {
  const next = turns.map((t, i) => (i === index ? { ...t, voiceId } : t));
  return distinctVoices(next) <= DIALOGUE_LIMITS.maxVoices;
}

/** A new turn's voice: the one two turns back (a conversation alternates), else the last one's. */
export function nextVoice(turns: readonly Turn[]): string {
  return turns[turns.length - 2]?.voiceId ?? turns[turns.length - 1]?.voiceId ?? '';
}

/** The turns with the one at `from` moved to `to`. */
export function moveTurn<T>(turns: readonly T[], from: number, to: number): T[] {
  if (to < 0 || to >= turns.length || from === to) return [...turns];
  const next = [...turns];
  const [moved] = next.splice(from, 1);
  next.splice(to, 0, moved!);
  return next;
}
