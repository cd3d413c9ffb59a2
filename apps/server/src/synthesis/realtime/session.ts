/**
 * One realtime socket of ElevenLabs' protocol: its contexts (one on `stream-input`, up to five open on
 * `multi-stream-input`), the text each buffers, and the pieces each speaks in order. Every piece is priced (at least
 * `MIN_PIECE_CHARACTERS`), held, synthesized with its timings, labelled and sent as audio messages; it is settled for
 * the characters of the messages the socket wrote (all of them, or those written before it dropped), and what no
 * message carried is released. Text never cut into a piece is never held or charged.
 */
import { errorMessage, type MessageLocale } from '@polyvox/contracts';
import type { Provenance } from '../../provenance/service.js';
import { AppError, isAppError } from '../../platform/errors.js';
import type { ElevenLabsFormat, VoiceSettings } from '../output/formats.js';
import { PCM_RATE, voiceSettingsInput } from '../output/formats.js';
import { originOf } from '../origin.js';
import { withAigc, type AigcRecord } from '@polyvox/speech/formats';
import type { LexiconRule } from '@polyvox/speech';
import { wavHeader } from '../output/pcm-stream.js';
import { FAILED, FATAL, isUnread, NORMAL, POLICY, readClientMessage } from './messages.js';
import {
  audioParts,
  ClientMessage,
  DEFAULT_SCHEDULE,
  MAX_CONTEXTS,
  MIN_PIECE_CHARACTERS,
  partCharacters,
  TextBuffer,
} from './protocol.js';
import { b64, reshape, spelled } from './shaping.js';
import type { SynthesisService } from '../service.js';
import type { HeldWork } from '../held-work.js';
import type { Charge, Prepared, ResolvedVoice } from '../types.js';

/** What the session needs of its socket; the route adapts a `ws` socket to it. */
export interface RealtimeSocket {
  /**
   * Resolves once the message is handed to the connection; rejects when the socket is gone, or with `unread()` when
   * the client does not read what it is sent (too many bytes wait unsent, or a message waits too long).
   */
  send(message: Record<string, unknown>): Promise<void>;
  close(code: number, reason: string): void;
}

export interface RealtimeSessionOptions {
  synthesis: Pick<SynthesisService, 'prepareFor' | 'render' | 'price' | 'rulesOf' | 'track'>;
  provenance: Pick<Provenance, 'markFile' | 'header'>;
  socket: RealtimeSocket;
  /** `multi-stream-input`: messages name their context and replies carry it. */
  multi: boolean;
  voice: ResolvedVoice;
  voiceId: string;
  charge: Charge;
  format: ElevenLabsFormat;
  language?: string;
  autoMode: boolean;
  /**
   * `sync_alignment`: every audio message carries the alignment of its own audio. Either way each piece is made
   * whole with its timings, which tell what characters each message carries and so what it is paid for.
   */
  syncAlignment: boolean;
  inactivitySeconds: number;
  locale: MessageLocale;
  requestId: string;
  /** The plan's longest text: what one context may hold unspoken. */
  maxTextLength: number;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** The context of a `stream-input` socket, which names none. */
const SINGLE = '';

interface Context {
  id: string;
  buffer: TextBuffer;
  speed: number;
  /** Its `voice_settings` (stability, style, speaker boost), from its opening message and any later one. */
  settings: VoiceSettings | null;
  /** Its pieces, spoken one after another: audio leaves in the order its text came. */
  tail: Promise<void>;
  /** Pieces cut and not yet spoken (or failed). */
  queued: number;
  closing: boolean;
  failed: boolean;
  /** `multi-stream-input`: its own inactivity timer (a message naming it, or a piece of it spoken, restarts it). */
  idle: NodeJS.Timeout | null;
  /** WAV: the file's header has gone out (on the context's first audio message; the rest is its samples). */
  headed: boolean;
  /**
   * The pronunciation rules its pieces apply: the dictionaries its opening message names, else the account's default;
   * read as its first step, before any piece.
   */
  rules: LexiconRule[];
}

export class RealtimeSession {
  /** The open contexts, by id: at most `MAX_CONTEXTS`. */
  private readonly contexts = new Map<string, Context>();
  /**
   * `multi-stream-input`: contexts closed (`close_context`) whose pieces are still being spoken. They hold no slot:
   * their id may open a new context at once, whose audio follows theirs.
   */
  private readonly draining = new Set<Context>();
  private readonly stop = new AbortController();
  private done = false;
  private idle: NodeJS.Timeout | null = null;
  private readonly o: RealtimeSessionOptions;
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

  constructor(options: RealtimeSessionOptions) {
    this.o = options;
    const f = options.format;
    const wav = f.format === 'wav' || f.encoding === 'wav';
    this.wavRate = wav ? (f.resampleTo ?? PCM_RATE) : null;
    this.format = wav ? { format: 'pcm', resampleTo: f.resampleTo, encoding: 'pcm', contentType: null } : f;
    this.arm();
  }

  /** The WAV header of a context's audio, labelled with its first piece's record. */
  private wavHead(record: AigcRecord): Buffer {
    return Buffer.from(withAigc(wavHeader(this.wavRate!, 0xffffffff - 36), 'wav', record));
  }

  /** Whether the socket is still served (not closed by either side). */
  get open(): boolean {
    return !this.done;
  }

  /** A message from the client. Never throws: bad input is answered with an error message and a close. */
  onMessage(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    if (this.done) return;
    this.arm();
    const read = readClientMessage(data, isBinary);
    if (!read) return;
    if ('error' in read) return this.fatal(read.error, read.code);
    try {
      this.handle(read.message);
    } catch (e) {
      this.fatal(e);
    }
  }

  /** The socket closed (the client left, or we closed it): everything in flight stops and releases its hold. */
  onClose(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    for (const ctx of this.contexts.values()) this.quiet(ctx);
    for (const ctx of this.draining) this.quiet(ctx);
    this.done = true;
    this.stop.abort(new Error('socket closed'));
  }

  private handle(m: ClientMessage): void {
    if (m.close_socket) {
      if (!this.o.multi) return;
      for (const ctx of this.contexts.values()) this.closeContext(ctx);
      void this.whenAllDone().then(() => this.end(NORMAL, 'closed by the client'));
      return;
    }
    const id = this.o.multi ? (m.context_id ?? 'default') : SINGLE;
    let ctx = this.contexts.get(id);
    if (m.close_context) {
      if (ctx && this.o.multi) this.closeContext(ctx);
      return;
    }
    if (!ctx) {
      // A context opens with a message whose text is blank (ElevenLabs' " "), with its settings; an id that was closed
      // or failed opens anew so, and anything else for it is answered with an error, never ignored.
      if (typeof m.text !== 'string' || m.text.trim() !== '') {
        const error = new AppError('VALIDATION_FAILED', { field: 'text', rule: 'must open the stream with " " first' });
        return this.o.multi ? this.contextError(id, error) : this.fatal(error);
      }
      if (this.contexts.size >= MAX_CONTEXTS)
        return this.contextError(
          id,
          new AppError('VALIDATION_FAILED', { field: 'context_id', rule: `must have at most ${MAX_CONTEXTS} items` }),
        );
      ctx = {
        id,
        buffer: new TextBuffer(m.generation_config?.chunk_length_schedule ?? DEFAULT_SCHEDULE, this.o.autoMode),
        speed: m.voice_settings?.speed ?? 1,
        settings: m.voice_settings ?? null,
        tail: Promise.resolve(),
        queued: 0,
        closing: false,
        failed: false,
        idle: null,
        headed: false,
        rules: [],
      };
      // A context opened again under the id of one still draining speaks after it: its audio follows the other's isFinal.
      const before = [...this.draining].find((c) => c.id === id);
      if (before) ctx.tail = before.tail;
      this.contexts.set(id, ctx);
      this.touch(ctx);
      const opened = ctx;
      const locators = m.pronunciation_dictionary_locators ?? undefined;
      // A dictionary it may not read, or a fourth, fails the context (NOT_FOUND, VALIDATION_FAILED) before any piece.
      this.after(opened, async () => {
        opened.rules = await this.o.synthesis.rulesOf({ accountId: this.o.charge.accountId, pronunciationLocators: locators });
      });
      if (m.text === '' && !this.o.multi) {
        // An empty opening closes at once (nothing was said).
        this.closeContext(ctx, true);
      }
      return;
    }
    if (ctx.closing || ctx.failed) return;
    // Any message naming a context keeps it alive (ElevenLabs' keep-alive is `{"context_id": …, "text": ""}`).
    this.touch(ctx);
    if (m.voice_settings?.speed != null) ctx.speed = m.voice_settings.speed;
    if (m.voice_settings) ctx.settings = { ...ctx.settings, ...m.voice_settings };
    if (m.generation_config?.chunk_length_schedule) ctx.buffer.setSchedule(m.generation_config.chunk_length_schedule);
    const text = m.text ?? '';
    // The closing message of `stream-input`: what waits is spoken, then the last message and the close.
    if (!this.o.multi && m.text === '') return this.closeContext(ctx, true);
    if (text !== '') {
      for (const piece of ctx.buffer.push(text)) this.speakLater(ctx, piece);
      if (ctx.buffer.pending.length > this.o.maxTextLength * 2)
        return this.contextFailed(ctx, new AppError('TEXT_TOO_LONG', { maxLength: this.o.maxTextLength }));
    }
    if (m.flush) {
      const rest = ctx.buffer.flush();
      if (rest) this.speakLater(ctx, rest);
      if (this.o.multi) this.after(ctx, () => this.send({ type: 'flush_done', flush_done: true, ...this.tag(ctx.id) }));
    } else if (m.try_trigger_generation) {
      const piece = ctx.buffer.trigger();
      if (piece) this.speakLater(ctx, piece);
    }
  }

  /** What replies of a context carry: its id, spelled as clients read it, on a multi-stream socket. */
  private tag(id: string): Record<string, string> {
    return this.o.multi ? { contextId: id, context_id: id } : {};
  }

  /** Queues a step of a context after its pieces so far; a step that fails ends the context, never the process. */
  private after(ctx: Context, step: () => Promise<void>): void {
    ctx.tail = ctx.tail
      .then(async () => {
        if (this.done || ctx.failed) return;
        await step();
      })
      .catch((e: unknown) => this.contextFailed(ctx, e));
  }

  private speakLater(ctx: Context, text: string): void {
    ctx.queued += 1;
    this.after(ctx, async () => {
      try {
        // In flight until settled or released: a shutdown (and `drain`) waits for it.
        await this.o.synthesis.track(this.speak(ctx, text));
      } catch (e) {
        this.contextFailed(ctx, e);
      } finally {
        ctx.queued -= 1;
        this.arm();
        this.touch(ctx);
      }
    });
  }

  /**
   * Closes a context: text that waits unflushed is dropped (never spoken, never charged) unless `speakRest` (the
   * closing message of `stream-input`), pieces already cut are spoken, then `isFinal` is sent.
   */
  private closeContext(ctx: Context, speakRest = false): void {
    if (ctx.closing) return;
    ctx.closing = true;
    if (speakRest) {
      const rest = ctx.buffer.flush();
      if (rest) this.speakLater(ctx, rest);
    } else ctx.buffer.clear();
    // Its slot is free at once (ElevenLabs'): what it still speaks drains beside the open contexts.
    this.quiet(ctx);
    if (this.o.multi && this.contexts.get(ctx.id) === ctx) {
      this.contexts.delete(ctx.id);
      this.draining.add(ctx);
    }
    this.after(ctx, async () => {
      await this.send({ isFinal: true, is_final: true, ...this.tag(ctx.id) });
      if (!this.o.multi) this.end(NORMAL, 'done');
    });
    // However it ends (spoken, failed, the socket gone), it drains no more.
    void ctx.tail.finally(() => this.draining.delete(ctx));
  }

  /** Resolves once every context's pieces (and its `isFinal`) are out. */
  private async whenAllDone(): Promise<void> {
    await Promise.all([...this.contexts.values(), ...this.draining].map((c) => c.tail));
  }

  /**
   * One piece: priced (at least `MIN_PIECE_CHARACTERS`) and held, synthesized with its timings, labelled and sent as
   * messages of about a second; then settled for the characters of the messages the socket wrote, the rest released.
   */
  private async speak(ctx: Context, text: string): Promise<void> {
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
    if (this.done || ctx.failed) return;
    // However short, a piece is held (and, once any of it is out, charged) for at least the minimum.
    prepared = { ...prepared, credits: synthesis.price(prepared, Math.max(MIN_PIECE_CHARACTERS, prepared.characters)) };
    const { result, work } = await synthesis.render(prepared, charge, { signal: this.stop.signal, reqId: this.o.requestId });
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
        if (this.done || work.signal.aborted) throw new Error('socket closed');
        const head = k === 0 && this.wavRate !== null && !ctx.headed ? this.wavHead(mark.record) : null;
        await this.send({
          audio: b64(head ? Buffer.concat([head, part.audio]) : part.audio),
          isFinal: false,
          normalizedAlignment: aligned ? spelled(part.normalizedAlignment) : null,
          alignment: aligned ? spelled(part.alignment) : null,
          // The characters of the text its audio speaks: what this message is paid for, with or without alignment.
          characters: characters[k],
          ...this.tag(ctx.id),
          ...(k === 0 && label !== null ? { aigc: label } : {}),
        });
        // Written to the connection: its characters are the client's, and paid for.
        written += 1;
        paid += characters[k]!;
        if (head) ctx.headed = true;
      }
    } catch (e) {
      await this.settleWritten(work, prepared, written, paid);
      throw e;
    }
    await work.settle();
  }

  /**
   * A piece cut short (the socket dropped, or the client stopped reading): the characters of the messages written are
   * charged (at least the minimum, once any was), and the rest of the hold returns; nothing written, all of it does.
   */
  private async settleWritten(work: HeldWork, prepared: Prepared, written: number, characters: number): Promise<void> {
    if (written === 0) return work.release(this.done ? 'socket closed before the audio was out' : 'not delivered');
    const counted = Math.max(MIN_PIECE_CHARACTERS, Math.min(prepared.characters, characters));
    await work.settle({ amount: this.o.synthesis.price(prepared, counted), characters: counted });
  }

  private send(message: Record<string, unknown>): Promise<void> {
    if (this.done) return Promise.reject(new Error('socket closed'));
    return this.o.socket.send(message);
  }

  /** A context that cannot go on: its error, then (a fatal one, or `stream-input`) the socket's close. */
  private contextFailed(ctx: Context, e: unknown): void {
    if (this.done) return;
    ctx.failed = true;
    ctx.buffer.clear();
    this.quiet(ctx);
    const error = this.appError(e);
    // A client that does not read stops the whole socket: its other contexts could not be read either.
    if (!this.o.multi || FATAL.has(error.code) || isUnread(error)) return this.fatal(error);
    if (this.contexts.get(ctx.id) === ctx) this.contexts.delete(ctx.id);
    this.contextError(ctx.id, error);
  }

  private contextError(id: string, error: AppError): void {
    void this.send({ ...this.errorBody(error), ...this.tag(id) }).catch(() => {});
  }

  private appError(e: unknown): AppError {
    if (isAppError(e)) return e;
    if (!this.done) this.o.log.error({ err: e }, 'realtime synthesis failed');
    return new AppError('INTERNAL');
  }

  private errorBody(error: AppError): Record<string, unknown> {
    const message = errorMessage(error.code, this.o.locale, error.code === 'INTERNAL' ? {} : error.params);
    return { error: error.code, message, code: error.status, request_id: this.o.requestId };
  }

  /** An error the whole socket stops on: its message, then a close with a reason. */
  private fatal(e: unknown, code?: number): void {
    if (this.done) return;
    const error = this.appError(e);
    const close = code ?? (error.code === 'INTERNAL' ? FAILED : POLICY);
    const body = this.errorBody(error);
    // A client that does not read would not read this either: the close follows at once.
    const sent = isUnread(error) ? Promise.resolve() : this.send(body).catch(() => {});
    // The reason is at most 123 bytes: the code, and the start of the message.
    const reason = Buffer.from(`${error.code}: ${String(body.message)}`)
      .subarray(0, 120)
      .toString('utf8')
      .replace(/\uFFFD+$/, '');
    this.done = true;
    this.stop.abort(error);
    void sent.then(() => this.o.socket.close(close, reason));
  }

  private end(code: number, reason: string): void {
    if (this.done) return;
    this.done = true;
    this.o.socket.close(code, reason);
  }

  private idleError(): AppError {
    return new AppError('VALIDATION_FAILED', { field: 'text', rule: `no text for ${this.o.inactivitySeconds} seconds` });
  }

  /**
   * The socket's inactivity timeout: no message for that long while nothing is being spoken closes it. On
   * `multi-stream-input` each context times out alone (`touch`), as ElevenLabs documents; the socket closes once it
   * has no context left and no message came for that long.
   */
  private arm(): void {
    if (this.done) return;
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = null;
      if ([...this.contexts.values(), ...this.draining].some((c) => c.queued > 0)) return this.arm();
      if (this.o.multi && this.contexts.size > 0) return this.arm();
      this.fatal(this.idleError());
    }, this.o.inactivitySeconds * 1000);
    this.idle.unref();
  }

  /**
   * `multi-stream-input`: a context that got no message for the inactivity timeout while none of its pieces was
   * being spoken ends alone: the text it held unflushed is dropped (never charged), and its error is sent with its
   * `contextId`. The others, and the socket, go on.
   */
  private touch(ctx: Context): void {
    if (!this.o.multi || this.done || ctx.closing || ctx.failed) return;
    if (ctx.idle) clearTimeout(ctx.idle);
    ctx.idle = setTimeout(() => {
      ctx.idle = null;
      if (this.done || ctx.closing || ctx.failed || this.contexts.get(ctx.id) !== ctx) return;
      if (ctx.queued > 0) return this.touch(ctx);
      this.contextFailed(ctx, this.idleError());
    }, this.o.inactivitySeconds * 1000);
    ctx.idle.unref();
  }

  /** Stops a context's inactivity timer. */
  private quiet(ctx: Context): void {
    if (ctx.idle) clearTimeout(ctx.idle);
    ctx.idle = null;
  }
}
