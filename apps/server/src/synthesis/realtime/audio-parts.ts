/**
 * A piece's audio cut into the messages a realtime socket sends (about a second each, an mp3 on its frames), each with
 * the alignment of its own audio, and the characters of the text each message is paid for.
 */
import type { CharacterAlignment, Timings } from '@polyvox/speech';
import { id3Size, LAME_ENCODER_DELAY, parseMp3Header } from '@polyvox/speech/formats';

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
