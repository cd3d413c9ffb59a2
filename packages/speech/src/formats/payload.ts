/**
 * The sound of a file without its metadata: the bytes a hash binds a label to. The label, a C2PA manifest, a
 * tagger's tags all live outside them, so labelling or signing a file leaves them as they were, and a label copied
 * onto other audio sits beside other bytes.
 * - mp3: everything after the ID3v2 tags at the start, but an ID3v1 tag (`TAG`, 128 bytes) at the end;
 * - wav: the `data` chunk's bytes (to the end of the file when its size is a stream's largest value);
 * - Ogg Opus: the bodies of the pages after the two header packets (page headers carry sequence numbers and CRCs
 *   that a rewritten OpusTags page may shift).
 * Read as a stream (`push` each chunk, then `end`), holding at most a header or an Ogg page; a whole file is one push.
 */
import type { LabelledContainer } from './aigc.ts';
import { id3Size } from './mp3.ts';

const ID3V1 = 128;
const MAX_U32 = 0xffffffff;

function ascii(b: Uint8Array, at: number, length: number): string {
  let s = '';
  for (let i = 0; i < length && at + i < b.length; i++) s += String.fromCharCode(b[at + i]!);
  return s;
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

const u32le = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

export class AudioPayload {
  /** Bytes not yet judged (a header in parts, an Ogg page in parts, an mp3's possible ID3v1 tail). */
  private held: Uint8Array = new Uint8Array(0);
  /** Bytes still to pass over (the rest of a tag or chunk), or (wav `data`) still to take. */
  private skip = 0;
  private take = 0;
  /** mp3: past the leading tags; wav: inside `data`; Ogg: how many packets have ended so far. */
  private inAudio = false;
  private packets = 0;
  /** wav: its RIFF header read; the pad byte after an odd-sized `data`. */
  private riff = false;
  private pad = 0;

  constructor(private readonly container: LabelledContainer) {}

  /** The payload's parts in this chunk (views of it, or of bytes held from before). */
  push(chunk: Uint8Array): Uint8Array[] {
    let b = join(this.held, chunk);
    this.held = new Uint8Array(0);
    if (this.skip > 0) {
      const n = Math.min(this.skip, b.length);
      this.skip -= n;
      b = b.subarray(n);
      if (this.skip > 0) return [];
    }
    if (this.container === 'mp3') return this.mp3(b);
    if (this.container === 'wav') return this.wav(b);
    return this.ogg(b);
  }

  /** What is left at the end: an mp3's last bytes unless they are an ID3v1 tag. */
  end(): Uint8Array[] {
    const rest = this.held;
    this.held = new Uint8Array(0);
    if (this.container !== 'mp3' || !this.inAudio) return [];
    return rest.length === ID3V1 && ascii(rest, 0, 3) === 'TAG' ? [] : [rest];
  }

  private mp3(b: Uint8Array): Uint8Array[] {
    while (!this.inAudio) {
      if (b.length < 10) {
        // Too short to tell whether a tag starts here.
        if ('ID3'.startsWith(ascii(b, 0, Math.min(3, b.length)))) {
          this.held = b;
          return [];
        }
        this.inAudio = true;
        break;
      }
      if (ascii(b, 0, 3) !== 'ID3') {
        this.inAudio = true;
        break;
      }
      const length = id3Size(b);
      if (length > b.length) {
        this.skip = length - b.length;
        return [];
      }
      b = b.subarray(length);
    }
    // The last 128 bytes wait: they may be an ID3v1 tag.
    const all = b;
    if (all.length <= ID3V1) {
      this.held = all;
      return [];
    }
    this.held = all.slice(all.length - ID3V1);
    return [all.subarray(0, all.length - ID3V1)];
  }

  private wav(b: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (;;) {
      if (this.inAudio) {
        if (this.take === MAX_U32) {
          if (b.length > 0) out.push(b);
          return out;
        }
        const n = Math.min(this.take, b.length);
        if (n > 0) out.push(b.subarray(0, n));
        this.take -= n;
        if (this.take > 0) return out;
        // Past `data` (and its pad byte): a chunk after it (a manifest, tags) is not sound.
        this.inAudio = false;
        const pad = Math.min(this.pad, b.length - n);
        this.skip = this.pad - pad;
        b = b.subarray(n + pad);
        if (this.skip > 0) return out;
      }
      if (!this.riff) {
        if (b.length < 12) {
          this.held = b;
          return out;
        }
        if (ascii(b, 0, 4) !== 'RIFF' || ascii(b, 8, 4) !== 'WAVE') return out;
        this.riff = true;
        b = b.subarray(12);
      }
      if (b.length < 8) {
        this.held = b;
        return out;
      }
      const id = ascii(b, 0, 4);
      const size = u32le(b, 4);
      b = b.subarray(8);
      if (id === 'data') {
        this.inAudio = true;
        this.take = size;
        this.pad = size === MAX_U32 ? 0 : size % 2;
        continue;
      }
      const length = size + (size % 2);
      if (length > b.length) {
        this.skip = length - b.length;
        return out;
      }
      b = b.subarray(length);
    }
  }

  private ogg(b: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (;;) {
      if (b.length < 27 || b.length < 27 + b[26]!) {
        this.held = b;
        return out;
      }
      if (ascii(b, 0, 4) !== 'OggS') return out;
      const n = b[26]!;
      let body = 0;
      let ended = 0;
      for (let k = 0; k < n; k++) {
        const lace = b[27 + k]!;
        body += lace;
        if (lace < 255) ended++;
      }
      const end = 27 + n + body;
      if (end > b.length) {
        this.held = b;
        return out;
      }
      // A page that begins once the header packets (OpusHead, OpusTags) have ended holds sound.
      if (this.packets >= 2 && body > 0) out.push(b.subarray(27 + n, end));
      this.packets += ended;
      b = b.subarray(end);
    }
  }
}

/** A whole file's payload parts. */
export function audioPayload(bytes: Uint8Array, container: LabelledContainer): Uint8Array[] {
  const reader = new AudioPayload(container);
  return [...reader.push(bytes), ...reader.end()];
}
