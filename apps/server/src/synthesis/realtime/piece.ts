/**
 * The pieces a realtime socket speaks: each priced (at least `MIN_PIECE_CHARACTERS`) and held, synthesized with its
 * timings, labelled and sent as messages of about a second, then settled for the characters of the messages the
 * socket wrote, the rest released.
 */
import { AppError, isAppError } from '../../platform/errors.js';
import type { ElevenLabsFormat } from '../output/formats.js';
import { PCM_RATE, voiceSettingsInput } from '../output/formats.js';
import { originOf } from '../origin.js';
import { withAigc, type AigcRecord } from '@polyvox/speech/formats';
import { wavHeader } from '../output/pcm-stream.js';
import { MIN_PIECE_CHARACTERS } from './protocol.js';
import { audioParts, partCharacters } from './audio-parts.js';
import { b64, reshape, spelled } from './shaping.js';
import type { HeldWork } from '../held-work.js';
import type { Prepared } from '../types.js';
import type { Context, RealtimeSessionOptions } from './context.js';

/** What a piece needs of its session: whether the socket is gone, its stop, its sender and its context tags. */
export interface PieceLine {
  readonly done: boolean;
  readonly signal: AbortSignal;
  send(message: Record<string, unknown>): Promise<void>;
  tag(id: string): Record<string, string>;
}

export class PieceSpeaker {
  /** Whether the voice gives timings (true until one refuses them): the alignment each message is paid by. */
  private timings = true;
  /**
   * What each piece is synthesized as. A `wav_*` socket's pieces are its PCM: the context's audio is one WAV file,
   * whose header (sizes unknown, as a streamed WAV's; the AIGC label of its first piece inside) leads its first audio
   * message, every later message being samples only.
   */
  private readonly format: ElevenLabsFormat;
  private readonly wavRate: number | null;
  /** The pauses and characters its pieces have asked for: the pause budget holds the socket as a whole. */
  private readonly pauses = { characters: 0, pausedMs: 0 };

  constructor(
    private readonly o: RealtimeSessionOptions,
    private readonly line: PieceLine,
  ) {
    const f = o.format;
    const wav = f.format === 'wav' || f.encoding === 'wav';
    this.wavRate = wav ? (f.resampleTo ?? PCM_RATE) : null;
    this.format = wav ? { format: 'pcm', resampleTo: f.resampleTo, encoding: 'pcm', contentType: null } : f;
  }

  /** The WAV header of a context's audio, labelled with its first piece's record. */
  private wavHead(record: AigcRecord): Buffer {
    return Buffer.from(withAigc(wavHeader(this.wavRate!, 0xffffffff - 36), 'wav', record));
  }

  /**
   * One piece: priced (at least `MIN_PIECE_CHARACTERS`) and held, synthesized with its timings, labelled and sent as
   * messages of about a second; then settled for the characters of the messages the socket wrote, the rest released.
   */
  async speak(ctx: Context, text: string): Promise<void> {
    const { synthesis, provenance, charge, voice } = this.o;
    const format = this.format;
    const prepare = () =>
      synthesis.prepareFor(voice, {
        voiceId: this.o.voiceId,
        text,
        format: format.format,
        speed: ctx.speed,
        pitch: 0,
        ...voiceSettingsInput(ctx.settings),
        ...(this.o.language ? { language: this.o.language } : {}),
        ...(this.timings ? { timings: true } : {}),
        lexicon: ctx.rules,
        pauses: this.pauses,
        review: { accountId: charge.accountId, route: 'realtime', purpose: 'synthesis' },
      });
    let prepared: Prepared;
    try {
      prepared = await prepare();
    } catch (e) {
      // A voice without timings (an engine that reports none, in a language eSpeak NG does not speak) is spoken
      // without alignment: its audio messages carry none, and share the piece's characters evenly.
      if (!this.timings || !isAppError(e) || e.code !== 'VALIDATION_FAILED' || e.params.field !== 'voice_id') throw e;
      this.timings = false;
      prepared = await prepare();
    }
    if (prepared.characters > this.o.maxTextLength) throw new AppError('TEXT_TOO_LONG', { maxLength: this.o.maxTextLength });
    if (this.line.done || ctx.failed) return;
    // However short, a piece is held (and, once any of it is out, charged) for at least the minimum.
    prepared = { ...prepared, credits: synthesis.price(prepared, Math.max(MIN_PIECE_CHARACTERS, prepared.characters)) };
    const { result, work } = await synthesis.render(prepared, charge, { signal: this.line.signal, reqId: this.o.requestId });
    const aligned = this.o.syncAlignment && result.alignment !== undefined;
    let written = 0;
    let paid = 0;
    try {
      const contentType = format.contentType ?? prepared.contentType;
      const { mark, audio } = await provenance.markFile(
        reshape(result.audio, format),
        contentType,
        originOf(prepared, charge, result, { holdId: work.hold.id, requestId: this.o.requestId }),
      );
      const frame = format.encoding === 'pcm' || format.encoding === 'wav' ? 2 : format.format === 'mp3' ? 'mp3' : 1;
      // Raw samples carry their label beside them, on the piece's first message (HTTP sends it as `x-aigc`).
      const label = provenance.header(contentType, mark);
      const parts = audioParts(audio, result.durationSec, result.alignment, frame);
      const characters = partCharacters(text, parts, prepared.characters);
      for (const [k, part] of parts.entries()) {
        if (this.line.done || work.signal.aborted) throw new Error('socket closed');
        const head = k === 0 && this.wavRate !== null && !ctx.headed ? this.wavHead(mark.record) : null;
        const sent = head ? Buffer.concat([head, part.audio]) : part.audio;
        await this.line.send({
          audio: b64(sent),
          isFinal: false,
          normalizedAlignment: aligned ? spelled(part.normalizedAlignment) : null,
          alignment: aligned ? spelled(part.alignment) : null,
          // The characters of the text its audio speaks: what this message is paid for, with or without alignment.
          characters: characters[k],
          ...this.line.tag(ctx.id),
          ...(k === 0 && label !== null ? { aigc: label } : {}),
        });
        // Written to the connection: its characters are the client's, and paid for.
        written += 1;
        paid += characters[k]!;
        if (head) ctx.headed = true;
        // The bytes as they left, for the context's History item.
        await this.o.history?.written(ctx, sent, prepared, contentType);
      }
    } catch (e) {
      const counted = await this.settleWritten(work, prepared, written, paid);
      if (counted) this.o.history?.paid(ctx, Array.from(text).slice(0, paid).join(''), counted.characters, counted.amount);
      throw e;
    }
    await work.settle();
    this.o.history?.paid(ctx, text, prepared.characters, prepared.credits);
  }

  /**
   * A piece cut short (the socket dropped, or the client stopped reading): the characters of the messages written are
   * charged (at least the minimum, once any was), and the rest of the hold returns; nothing written, all of it does.
   * Answers what was charged (null: nothing).
   */
  private async settleWritten(
    work: HeldWork,
    prepared: Prepared,
    written: number,
    characters: number,
  ): Promise<{ amount: number; characters: number } | null> {
    if (written === 0) {
      await work.release(this.line.done ? 'socket closed before the audio was out' : 'not delivered');
      return null;
    }
    const counted = Math.max(MIN_PIECE_CHARACTERS, Math.min(prepared.characters, characters));
    const part = { amount: Math.min(this.o.synthesis.price(prepared, counted), prepared.credits), characters: counted };
    await work.settle(part);
    return part;
  }
}
