/**
 * A realtime socket's History: one item per context that delivered audio (ElevenLabs lists each generation; a context
 * is one), holding exactly the audio its messages carried (each piece labelled and marked as it was sent, a WAV
 * context's header included), the text they spoke and the credits they were charged. Written to storage as the
 * messages go, so nothing piles up in memory; a context that delivered nothing leaves nothing.
 */
import type { HistoryCapture, HistoryEntry, HistoryRecorder } from '../../history/types.js';
import type { Prepared } from '../types.js';

/** What the history reads of a context (context.ts): its steps so far, and its voice settings. */
interface Context {
  tail: Promise<void>;
  settings: object | null;
}

/** What every item of the socket says: who, by which route, with what settings. */
export interface RealtimeHistoryBase {
  accountId: string;
  apiKeyId: string | null;
  requestId: string;
  route: string;
  settings: Record<string, unknown>;
  outputFormat: string;
}

interface Recording {
  entry: HistoryEntry;
  capture: HistoryCapture;
  texts: string[];
  ended: boolean;
}

export class RealtimeHistory {
  private readonly open = new Map<Context, Recording>();

  constructor(
    private readonly recorder: HistoryRecorder,
    private readonly base: RealtimeHistoryBase,
  ) {}

  /** An audio message of the context was written to the socket: its bytes, exactly as they left. */
  async written(ctx: Context, audio: Buffer, prepared: Prepared, contentType: string): Promise<void> {
    let rec = this.open.get(ctx);
    if (rec?.ended) return;
    if (!rec) {
      const entry: HistoryEntry = {
        ...this.base,
        holdId: null,
        text: '',
        voiceId: prepared.voiceId ?? prepared.voice.id,
        voiceName: prepared.voice.name,
        voiceType: prepared.origin.voiceType,
        modelId: prepared.voice.model,
        settings: { ...this.base.settings, ...(ctx.settings ? { voice_settings: ctx.settings } : {}) },
        contentType,
        characters: 0,
        credits: 0,
      };
      rec = { entry, capture: this.recorder.capture(entry), texts: [], ended: false };
      this.open.set(ctx, rec);
    }
    await rec.capture.add(audio);
  }

  /** A piece of the context was settled: the text its written messages spoke, the characters and credits charged. */
  paid(ctx: Context, text: string, characters: number, credits: number): void {
    const rec = this.open.get(ctx);
    if (!rec || rec.ended) return;
    rec.texts.push(text);
    rec.entry.characters += characters;
    rec.entry.credits += credits;
  }

  /**
   * The context ended (its last message queued, it failed, or the socket is gone): once the steps queued so far have
   * run (`tail`: its pieces settled), its item is recorded with what it delivered. Called again, nothing more happens.
   */
  end(ctx: Context): void {
    void ctx.tail
      .catch(() => {})
      .then(async () => {
        const rec = this.open.get(ctx);
        if (!rec || rec.ended) return;
        rec.ended = true;
        this.open.delete(ctx);
        rec.entry.text = rec.texts.join('').trim();
        // Audio went out (and was charged) only where a piece settled: an item for it; otherwise nothing is kept.
        await rec.capture.finish(rec.texts.length > 0);
      });
  }

  /** The socket closed: every context still recording ends once its pieces have settled. */
  endAll(): void {
    for (const ctx of [...this.open.keys()]) this.end(ctx);
  }
}
