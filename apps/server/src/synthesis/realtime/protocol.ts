/**
 * ElevenLabs' realtime text-to-speech protocol (`/v1/text-to-speech/{voice_id}/stream-input` and
 * `/multi-stream-input`), the parts that need no socket: what a client's messages and query may hold, how text that
 * arrives in pieces is cut into the pieces that are spoken (`chunk_length_schedule`, `auto_mode`, `flush`,
 * `try_trigger_generation`); a spoken piece cut into audio messages is audio-parts.ts.
 */
import { z } from 'zod';
import { LIMITS, PronunciationLocator } from '@polyvox/contracts';
import { elevenLabsFormat, ELEVENLABS_FORMATS, VoiceSettings } from '../output/formats.js';

/** ElevenLabs' default schedule: the first piece is spoken once 120 characters wait, the next once 160 more do … */
export const DEFAULT_SCHEDULE = [120, 160, 250, 290] as const;
/** `try_trigger_generation` speaks what waits once this much does (ElevenLabs' smallest schedule step). */
export const TRIGGER_MIN = 50;
/** The longest message a socket takes, in characters of JSON; longer ones are refused and the socket closed. */
export const MAX_MESSAGE_CHARS = 64 * 1024;
/** Contexts open at once on one multi-stream socket (ElevenLabs' limit). */
export const MAX_CONTEXTS = 5;
/**
 * The fewest characters a spoken piece is charged for, however short (a one-character flush): a piece costs its
 * characters or this many, whichever is more, so short pieces cannot buy more of the server's work per credit than
 * ordinary text does.
 */
export const MIN_PIECE_CHARACTERS = 20;
/** ElevenLabs' default and largest `inactivity_timeout`, in seconds. */
export const DEFAULT_INACTIVITY = 20;
export const MAX_INACTIVITY = 180;

const flag = z
  .enum(['true', 'false', 'True', 'False', '1', '0'])
  .transform((v) => v === 'true' || v === 'True' || v === '1')
  .optional();

/** The query of the socket's URL; what this platform has no use for (`enable_logging`, `seed` …) is accepted. */
export const RealtimeQuery = z
  .object({
    model_id: z.string().max(128).optional(),
    language_code: z.string().max(35).optional(),
    output_format: z
      .string()
      .max(32)
      .refine((f) => elevenLabsFormat(f) !== null, `must be one of: ${ELEVENLABS_FORMATS.join(', ')}`)
      .optional(),
    inactivity_timeout: z.coerce.number().int().min(1).max(MAX_INACTIVITY).optional(),
    sync_alignment: flag,
    auto_mode: flag,
    enable_logging: z.string().max(8).optional(),
    enable_ssml_parsing: z.string().max(8).optional(),
    apply_text_normalization: z.string().max(8).optional(),
    /** ElevenLabs' key in the query (a browser cannot set headers on a WebSocket): a Polyvox key. */
    xi_api_key: z.string().max(256).optional(),
  })
  .passthrough();
export type RealtimeQuery = z.infer<typeof RealtimeQuery>;

export const RealtimeParams = z.object({ voice_id: z.string().min(1).max(128) });

/**
 * One message from the client. Every field is optional: the opening message (`text: " "` with `voice_settings`
 * and `generation_config`), text as it comes, `flush`, `try_trigger_generation`, the closing empty text, and on a
 * multi-stream socket `context_id`, `close_context` and `close_socket`. Unknown fields are ignored, as ElevenLabs
 * ignores them.
 */
export const ClientMessage = z
  .object({
    text: z
      .string()
      .max(LIMITS.maxTextLength * 2)
      .optional(),
    voice_settings: VoiceSettings.nullish(),
    generation_config: z
      .object({ chunk_length_schedule: z.array(z.number().int().min(1).max(500)).min(1).max(16).optional() })
      .passthrough()
      .nullish(),
    flush: z.boolean().nullish(),
    try_trigger_generation: z.boolean().nullish(),
    context_id: z.string().min(1).max(128).nullish(),
    close_context: z.boolean().nullish(),
    close_socket: z.boolean().nullish(),
    xi_api_key: z.string().max(256).nullish(),
    authorization: z.string().max(512).nullish(),
    /** On the opening message (of the socket, or of a context): the dictionaries its pieces apply (more than 3 are refused when read). */
    pronunciation_dictionary_locators: z.array(PronunciationLocator).max(16).nullish(),
  })
  .passthrough();
export type ClientMessage = z.infer<typeof ClientMessage>;

/** Characters (code points), as ElevenLabs counts them for its schedule and its alignment. */
const length = (s: string): number => {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
};

const SENTENCE_END = /[.!?…。！？；;:\n]["'”’)\]]*(?=\s|$)/g;

/**
 * The text a context has been sent and not yet spoken, cut into pieces to speak: by the schedule (a piece once its
 * step's characters wait, cut after the last whole word), by sentence (`auto_mode`), or all of it (`flush`).
 */
export class TextBuffer {
  private text = '';
  private step = 0;

  constructor(
    private schedule: readonly number[] = DEFAULT_SCHEDULE,
    private readonly auto = false,
  ) {}

  setSchedule(schedule: readonly number[]): void {
    this.schedule = schedule;
  }

  get pending(): string {
    return this.text;
  }

  /** Adds text and returns the pieces it completes. */
  push(text: string): string[] {
    this.text += text;
    const out: string[] = [];
    for (;;) {
      const cut = this.auto ? this.sentenceCut() : this.scheduleCut();
      if (cut <= 0) break;
      out.push(this.take(cut));
    }
    return out.filter((p) => p.trim() !== '');
  }

  /** Whatever waits, at once (a flush, the closing message); the schedule starts over. */
  flush(): string | null {
    const rest = this.take(this.text.length);
    this.step = 0;
    return rest.trim() !== '' ? rest : null;
  }

  /** `try_trigger_generation`: the words that wait, if there are enough of them. */
  trigger(): string | null {
    if (length(this.text) < TRIGGER_MIN) return null;
    const cut = this.wordCut();
    if (cut <= 0) return null;
    const piece = this.take(cut);
    return piece.trim() !== '' ? piece : null;
  }

  /** Drops what waits (a closed context): nothing of it is spoken or charged. */
  clear(): void {
    this.text = '';
  }

  private take(cut: number): string {
    const piece = this.text.slice(0, cut);
    this.text = this.text.slice(cut);
    return piece;
  }

  /**
   * After the last whitespace that follows a word: a piece never splits a word, nor a tag still being written (an
   * ElevenLabs `<break time="1s" />` has spaces in it): the cut then comes before the tag.
   */
  private wordCut(): number {
    const m = /\s+(?=\S*$)/.exec(this.text);
    if (!m) return 0;
    const cut = m.index + m[0].length;
    const open = this.text.lastIndexOf('<', cut - 1);
    if (open >= 0 && /^<[a-z][^>]*$/i.test(this.text.slice(open, cut))) return open;
    return cut;
  }

  private scheduleCut(): number {
    const need = this.schedule[Math.min(this.step, this.schedule.length - 1)]!;
    if (length(this.text) < need) return 0;
    let cut = this.wordCut();
    // One endless word (no space in 500 characters and more): cut anyway rather than wait for ever.
    if (cut <= 0 && length(this.text) > 2 * MAX_STEP) cut = this.text.length;
    if (cut > 0) this.step += 1;
    return cut;
  }

  private sentenceCut(): number {
    let cut = 0;
    for (const m of this.text.matchAll(SENTENCE_END)) cut = m.index + m[0].length;
    if (cut <= 0) return 0;
    // The whitespace after the sentence goes with it.
    const rest = /^\s*/.exec(this.text.slice(cut))![0];
    return cut + rest.length;
  }
}
const MAX_STEP = 500;
