/**
 * One realtime socket of ElevenLabs' protocol: its contexts (one on `stream-input`, up to five open on
 * `multi-stream-input`), the text each buffers, and the pieces each speaks in order. Every piece is priced (at least
 * `MIN_PIECE_CHARACTERS`), held, synthesized with its timings, labelled and sent as audio messages; it is settled for
 * the characters of the messages the socket wrote (all of them, or those written before it dropped), and what no
 * message carried is released. Text never cut into a piece is never held or charged.
 */
import { AppError, isAppError } from '../../platform/errors.js';
import { closeReason, errorBody, FAILED, FATAL, idleError, isUnread, NORMAL, POLICY, readClientMessage } from './messages.js';
import { ClientMessage, MAX_CONTEXTS } from './protocol.js';
import { newContext, SINGLE, type Context, type RealtimeSessionOptions } from './context.js';
import { PieceSpeaker } from './piece.js';

export type { RealtimeSessionOptions, RealtimeSocket } from './context.js';

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
  /** Speaks its pieces. */
  private readonly pieces: PieceSpeaker;

  constructor(options: RealtimeSessionOptions) {
    this.o = options;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the line reads the session's state as it changes
    const session = this;
    this.pieces = new PieceSpeaker(options, {
      get done() {
        return session.done;
      },
      signal: this.stop.signal,
      send: (message) => this.send(message),
      tag: (id) => this.tag(id),
    });
    this.arm();
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
    // Each context that delivered audio leaves its History item, once its pieces have settled.
    this.o.history?.endAll();
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
      ctx = newContext(id, m, this.o.autoMode);
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
        await this.o.synthesis.track(this.pieces.speak(ctx, text));
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
    this.o.history?.end(ctx);
  }

  /** Resolves once every context's pieces (and its `isFinal`) are out. */
  private async whenAllDone(): Promise<void> {
    await Promise.all([...this.contexts.values(), ...this.draining].map((c) => c.tail));
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
    // What it delivered before it failed is kept as its History item.
    this.o.history?.end(ctx);
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
    return errorBody(error, this.o.locale, this.o.requestId);
  }

  /** An error the whole socket stops on: its message, then a close with a reason. */
  private fatal(e: unknown, code?: number): void {
    if (this.done) return;
    const error = this.appError(e);
    const close = code ?? (error.code === 'INTERNAL' ? FAILED : POLICY);
    const body = this.errorBody(error);
    // A client that does not read would not read this either: the close follows at once.
    const sent = isUnread(error) ? Promise.resolve() : this.send(body).catch(() => {});
    const reason = closeReason(error.code, String(body.message));
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
    return idleError(this.o.inactivitySeconds);
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
