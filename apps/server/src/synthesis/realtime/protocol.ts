/**
 * ElevenLabs' realtime text-to-speech protocol (`/v1/text-to-speech/{voice_id}/stream-input` and
 * `/multi-stream-input`), the parts that need no socket: what a client's messages and query may hold, how text that
 * arrives in pieces is cut into the pieces that are spoken (`chunk_length_schedule`, `auto_mode`, `flush`,
 * `try_trigger_generation`), and a spoken piece's timings as the character alignment each audio message carries.
 */
import { z } from 'zod';
import { LIMITS, PronunciationLocator } from '@polyvox/contracts';
import type { CharacterAlignment, Timings } from '@polyvox/speech';
import { id3Size, LAME_ENCODER_DELAY, parseMp3Header } from '@polyvox/speech/formats';
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

/** A piece of an alignment as ElevenLabs' realtime messages carry it: times in milliseconds from the message's audio. */
export interface ChunkAlignment {
  chars: string[];
  charStartTimesMs: number[];
  charDurationsMs: number[];
}

/**
 * The characters of `a` that start in [from, to) seconds, timed from `from` (ElevenLabs times each message's
 * characters from the start of that message's audio).
 */
export function chunkAlignment(a: CharacterAlignment, from: number, to: number, first: boolean, last: boolean): ChunkAlignment {
  const out: ChunkAlignment = { chars: [], charStartTimesMs: [], charDurationsMs: [] };
  a.characters.forEach((c, i) => {
    const start = a.character_start_times_seconds[i]!;
    const end = a.character_end_times_seconds[i]!;
    if ((!first && start < from) || (!last && start >= to)) return;
    out.chars.push(c);
    out.charStartTimesMs.push(Math.max(0, Math.round((start - from) * 1000)));
    out.charDurationsMs.push(Math.max(0, Math.round((end - start) * 1000)));
  });
  return out;
}

/** One audio message's share of a spoken piece. */
export interface AudioPart {
  audio: Buffer;
  alignment: ChunkAlignment | null;
  normalizedAlignment: ChunkAlignment | null;
}

/** About this much audio per message: a long piece is sent as several messages, each with its own characters. */
const PART_SECONDS = 1;

/**
 * A spoken piece as audio messages of about a second each, each with the characters that start in it: PCM and G.711
 * cut by samples; mp3 at frame boundaries (`mp3Parts`, each message's times from the frames before it); any other
 * encoding by bytes.
 */
export function audioParts(
  audio: Buffer,
  durationSec: number,
  timings: Timings | undefined,
  /** Bytes of one sample frame (PCM 2, G.711 1) so a cut never splits a sample; 1 for other encodings; or mp3. */
  frame: number | 'mp3',
): AudioPart[] {
  if (frame === 'mp3') return mp3Parts(audio, durationSec, timings) ?? audioParts(audio, durationSec, timings, 1);
  const count = Math.max(1, Math.ceil(durationSec / PART_SECONDS));
  const frames = Math.floor(audio.length / frame);
  const parts: AudioPart[] = [];
  for (let k = 0; k < count; k++) {
    const a = k === 0 ? 0 : Math.floor((k * frames) / count) * frame;
    const b = k === count - 1 ? audio.length : Math.floor(((k + 1) * frames) / count) * frame;
    parts.push(
      part(audio.subarray(a, b), timings, (k * durationSec) / count, ((k + 1) * durationSec) / count, k === 0, k === count - 1),
    );
  }
  return parts;
}

function part(audio: Buffer, timings: Timings | undefined, from: number, to: number, first: boolean, last: boolean): AudioPart {
  return {
    audio,
    alignment: timings ? chunkAlignment(timings.alignment, from, to, first, last) : null,
    normalizedAlignment: timings ? chunkAlignment(timings.normalizedAlignment, from, to, first, last) : null,
  };
}

/** Samples an mp3 decoder's own filter bank delays its output by, on top of the encoder delay an Info frame gives. */
const DECODER_DELAY = 529;

/**
 * An mp3 file as messages cut between frames, about a second each: a message's audio starts where its first frame's
 * samples start once decoded (the frames before it times their samples, less the delay the Info frame tells decoders
 * to skip), so its characters are timed from there exactly. The first message holds the tags and the Info frame.
 * Null when the file is not Layer III frames after its tags.
 */
export function mp3Parts(audio: Buffer, durationSec: number, timings: Timings | undefined): AudioPart[] | null {
  const starts: number[] = [];
  let at = id3Size(audio);
  let head = parseMp3Header(audio, at);
  if (!head) return null;
  const { samples, sampleRate } = head;
  // The Info (or Xing) frame: no audio for a decoder, which then skips the encoder's delay and its own.
  const tag = audio.subarray(at + 4, at + Math.min(head.length, 48)).toString('latin1');
  const delay = tag.includes('Info') || tag.includes('Xing') ? LAME_ENCODER_DELAY + DECODER_DELAY : 0;
  if (delay) at += head.length;
  for (head = parseMp3Header(audio, at); head && at + head.length <= audio.length; head = parseMp3Header(audio, at)) {
    starts.push(at);
    at += head.length;
  }
  const n = starts.length;
  const timeAt = (k: number) => Math.min(durationSec, Math.max(0, (k * samples - delay) / sampleRate));
  const count = Math.max(1, Math.ceil(durationSec / PART_SECONDS));
  const cuts = [0];
  for (let j = 1; j < count; j++) {
    const k = Math.round((((j * durationSec) / count) * sampleRate + delay) / samples);
    if (k > cuts.at(-1)! && k < n) cuts.push(k);
  }
  // Anything after the last whole frame (a tag at the end) goes with the last message.
  const byteAt = (j: number) => (j === 0 ? 0 : j === cuts.length ? audio.length : starts[cuts[j]!]!);
  return cuts.map((k, j) => {
    const last = j === cuts.length - 1;
    return part(
      audio.subarray(byteAt(j), byteAt(j + 1)),
      timings,
      j ? timeAt(k) : 0,
      last ? durationSec : timeAt(cuts[j + 1]!),
      !j,
      last,
    );
  });
}

/** Markup in a piece's text (ElevenLabs' `<break time="1s" />`, SSML's tags): never priced. */
const TAG = /<\/?[a-z][^<>]*>/gi;

/**
 * The characters each audio message of a piece pays for: the priced characters (not whitespace, not markup) its
 * alignment covers, the alignment being that of the piece's own text (`text`). Without one (a voice with no timings)
 * the piece's `characters` are shared out across its messages in order, as evenly as whole characters go.
 */
export function partCharacters(text: string, parts: readonly AudioPart[], characters: number): number[] {
  const n = parts.length;
  const even = () => parts.map((_, k) => Math.floor((characters * (k + 1)) / n) - Math.floor((characters * k) / n));
  if (parts.some((p) => !p.alignment)) return even();
  const tagged = new Uint8Array(text.length);
  for (const m of text.matchAll(TAG)) tagged.fill(1, m.index, m.index + m[0].length);
  // The alignments cover the text in order, each character once; were they anything else, markup is not told apart.
  const aligned = parts.map((p) => p.alignment!.chars.join('')).join('') === text;
  let at = 0;
  return parts.map((p) => {
    let count = 0;
    for (const c of p.alignment!.chars) {
      if (!/^\s*$/u.test(c) && !(aligned && tagged[at])) count += 1;
      at += c.length;
    }
    return count;
  });
}
