/** The realtime session's shapes: its socket, its options, and one context of the socket with what it buffers. */
import type { MessageLocale } from '@polyvox/contracts';
import type { LexiconRule } from '@polyvox/speech';
import type { Provenance } from '../../provenance/service.js';
import type { ElevenLabsFormat, VoiceSettings } from '../output/formats.js';
import { DEFAULT_SCHEDULE, TextBuffer, type ClientMessage } from './protocol.js';
import type { SynthesisService } from '../service.js';
import type { Charge, ResolvedVoice } from '../types.js';
import type { RealtimeHistory } from './history.js';

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
  /** Where each context's delivered audio is kept as a History item (none: nothing is kept). */
  history?: RealtimeHistory;
}

/** The context of a `stream-input` socket, which names none. */
export const SINGLE = '';

export interface Context {
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

/** A context opened by message `m` (its settings and chunk schedule), nothing buffered or spoken yet. */
export function newContext(id: string, m: ClientMessage, autoMode: boolean): Context {
  return {
    id,
    buffer: new TextBuffer(m.generation_config?.chunk_length_schedule ?? DEFAULT_SCHEDULE, autoMode),
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
}
