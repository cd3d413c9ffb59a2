/**
 * The loudness gain each voice (with its profile, language, speed and pitch) needed, smoothed over its recent
 * sentences: a one-sentence file is gained with it while its engine still runs (pool/streamed.ts).
 */
import type { Plan } from '../pipeline/plan.ts';

/** How far each sentence moves a voice's learnt loudness gain (an exponential average). */
export const GAIN_SMOOTHING = 0.25;
/** Voices remembered before the memory starts again. */
const MAX_VOICES = 4096;

export class GainMemory {
  private readonly gains = new Map<string, number>();

  private keyOf(plan: Plan): string {
    return JSON.stringify([plan.voice.id, plan.profile, plan.language, plan.speed, plan.pitch]);
  }

  /** The gain (dB) learnt for the plan's voice, if any. */
  get(plan: Plan): number | undefined {
    return this.gains.get(this.keyOf(plan));
  }

  /** Learns a sentence's gain (dB); a missing or non-finite one teaches nothing. */
  learn(plan: Plan, db: number | undefined): void {
    if (db === undefined || !Number.isFinite(db)) return;
    const key = this.keyOf(plan);
    const before = this.gains.get(key);
    if (this.gains.size >= MAX_VOICES && before === undefined) this.gains.clear();
    this.gains.set(key, before === undefined ? db : before + GAIN_SMOOTHING * (db - before));
  }
}
