/**
 * The GB 45438-2025 implicit label (the `AIGC` metadata field) in each container the platform writes, and read back:
 * - mp3: an ID3v2.4 tag in front of the frames with a `TXXX` frame described `AIGC` (UTF-8);
 * - wav: a `LIST` chunk of type `INFO` before `data` with an entry whose id is `AIGC` (ffprobe and players show
 *   INFO entries as tags; a reader that does not know the chunk skips it by its size, as RIFF requires);
 * - Ogg Opus: a comment `AIGC=…` in the OpusTags header packet (the stream's second page, rewritten);
 * - raw PCM and G.711 have no container: the server sends the same JSON in a response header.
 * The value is the standard's JSON object with its seven keys in the standard's order. Plain Uint8Array, no Node
 * APIs: the console reads labels with the same code.
 */

/** The standard's keys, in its order: the contract's one list (a file of no imports, as the formats are). */
import { AIGC_KEYS, type AigcKey } from '@polyvox/contracts/aigc-keys';

export { AIGC_KEYS, type AigcKey };
export type AigcRecord = Record<AigcKey, string>;

/** The field's name in every container. */
export const AIGC_FIELD = 'AIGC';

/** `Label` 1: the content is AI-generated (2 and 3 are for content that may be, or is suspected to be). */
export const AIGC_LABEL_GENERATED = '1';

import { oggCrc } from './ogg.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** The record as the standard's JSON: every key present, in order, strings only. */
export function aigcJson(record: AigcRecord): string {
  const ordered: Record<string, string> = {};
  for (const k of AIGC_KEYS) ordered[k] = String(record[k] ?? '');
  return JSON.stringify(ordered);
}

/** A label's JSON read back; null unless it is an object with the seven keys as strings (extra keys are dropped). */
export function parseAigc(text: string): AigcRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  // Some writers nest it as {"AIGC": {…}}.
  const obj = (Object.hasOwn(value, AIGC_FIELD) ? (value as Record<string, unknown>)[AIGC_FIELD] : value) as Record<
    string,
    unknown
  >;
  if (!obj || typeof obj !== 'object') return null;
  const out = {} as AigcRecord;
  for (const k of AIGC_KEYS) {
    const v = Object.hasOwn(obj, k) ? obj[k] : undefined;
    if (typeof v !== 'string') return null;
    out[k] = v;
  }
  return out;
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  let s = '';
  for (let i = 0; i < length && at + i < bytes.length; i++) s += String.fromCharCode(bytes[at + i]!);
  return s;
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// ---------------------------------------------------------------- mp3: ID3v2.4

function syncsafe(n: number): Uint8Array {
  return Uint8Array.of((n >>> 21) & 0x7f, (n >>> 14) & 0x7f, (n >>> 7) & 0x7f, n & 0x7f);
}

function readSyncsafe(b: Uint8Array, at: number): number {
  return ((b[at]! & 0x7f) << 21) | ((b[at + 1]! & 0x7f) << 14) | ((b[at + 2]! & 0x7f) << 7) | (b[at + 3]! & 0x7f);
}

/** One ID3v2.4 `TXXX` frame (UTF-8): description, NUL, value. */
export function id3TxxxFrame(description: string, value: string): Uint8Array {
  const body = concat([Uint8Array.of(3), encoder.encode(description), Uint8Array.of(0), encoder.encode(value)]);
  return concat([encoder.encode('TXXX'), syncsafe(body.length), Uint8Array.of(0, 0), body]);
}

/** An ID3v2.4 tag holding the given frames (already encoded), with no padding. */
export function id3Tag(frames: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const body = concat(frames);
  return concat([encoder.encode('ID3'), Uint8Array.of(4, 0, 0), syncsafe(body.length), body]);
}

/** The tag that labels an mp3 file or stream: written in front of its first frame. */
export function mp3AigcTag(record: AigcRecord): Uint8Array<ArrayBuffer> {
  return id3Tag([id3TxxxFrame(AIGC_FIELD, aigcJson(record))]);
}

/** The length of an ID3v2 tag at the start (header, body and footer), 0 without one. */
function id3Length(b: Uint8Array): number {
  if (b.length < 10 || ascii(b, 0, 3) !== 'ID3') return 0;
  return 10 + readSyncsafe(b, 6) + (b[5]! & 0x10 ? 10 : 0);
}

/** Every `TXXX` frame of the ID3v2.3/2.4 tags at the start of a file, by description. */
export function readId3Txxx(b: Uint8Array): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let start = 0;
  // A file may carry more than one tag in a row (a tagger that prepends its own).
  while (start + 10 <= b.length && ascii(b, start, 3) === 'ID3') {
    const version = b[start + 3]!;
    const end = Math.min(b.length, start + id3Length(b.subarray(start)));
    let at = start + 10;
    if (b[start + 5]! & 0x40) at += version === 4 ? readSyncsafe(b, at) : 4 + new DataView(b.buffer, b.byteOffset).getUint32(at);
    while (at + 10 <= end && b[at] !== 0) {
      const id = ascii(b, at, 4);
      const size = version === 4 ? readSyncsafe(b, at + 4) : new DataView(b.buffer, b.byteOffset + at + 4, 4).getUint32(0, false);
      const body = b.subarray(at + 10, Math.min(end, at + 10 + size));
      if (id === 'TXXX' && body.length > 1) {
        const enc = body[0]!;
        const text = decodeText(body.subarray(1), enc);
        const nul = text.indexOf('\u0000');
        const description = nul < 0 ? text : text.slice(0, nul);
        let value = nul < 0 ? '' : text.slice(nul + 1);
        // A writer may end the value with NULs (its terminator, or padding).
        while (value.endsWith('\u0000')) value = value.slice(0, -1);
        const list = found.get(description) ?? [];
        list.push(value);
        found.set(description, list);
      }
      if (size <= 0) break;
      at += 10 + size;
    }
    if (end <= start) break;
    start = end;
  }
  return found;
}

function decodeText(bytes: Uint8Array, encoding: number): string {
  if (encoding === 1 || encoding === 2) {
    // UTF-16 (with a BOM, or big-endian): NUL separators are two bytes.
    const le = encoding === 1 ? !(bytes[0] === 0xfe && bytes[1] === 0xff) : false;
    const skip = encoding === 1 && (bytes[0] === 0xff || bytes[0] === 0xfe) ? 2 : 0;
    let s = '';
    for (let i = skip; i + 1 < bytes.length; i += 2) {
      const code = le ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!;
      if (code === 0 && i > skip) {
        // The separator: the value's own BOM follows.
        s += '\u0000';
        if (bytes[i + 2] === 0xff || bytes[i + 2] === 0xfe) i += 2;
        continue;
      }
      s += String.fromCharCode(code);
    }
    return s;
  }
  if (encoding === 0) return ascii(bytes, 0, bytes.length);
  return decoder.decode(bytes);
}

// ---------------------------------------------------------------- wav: LIST/INFO

/** A `LIST` chunk of type `INFO` with one entry per id (four characters), each value NUL-terminated, padded even. */
export function wavInfoChunk(entries: [string, string][]): Uint8Array<ArrayBuffer> {
  const subs = entries.map(([id, value]) => {
    if (id.length !== 4) throw new Error(`INFO ids have four characters: ${id}`);
    const text = concat([encoder.encode(value), Uint8Array.of(0)]);
    const head = new Uint8Array(8);
    for (let i = 0; i < 4; i++) head[i] = id.charCodeAt(i);
    new DataView(head.buffer).setUint32(4, text.length, true);
    return concat([head, text, text.length % 2 ? Uint8Array.of(0) : new Uint8Array(0)]);
  });
  const body = concat([encoder.encode('INFO'), ...subs]);
  const head = new Uint8Array(8);
  head.set(encoder.encode('LIST'));
  new DataView(head.buffer).setUint32(4, body.length, true);
  return concat([head, body]);
}

/**
 * The WAV (whole, or a stream's first bytes up to its `data` chunk header) with a LIST/INFO chunk in front of `data`.
 * The RIFF size grows by the chunk's length unless it is a stream's largest value.
 */
export function wavWithInfo(bytes: Uint8Array, entries: [string, string][]): Uint8Array<ArrayBuffer> {
  if (bytes.length < 12 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WAVE') throw new Error('not a WAV file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 12;
  while (at + 8 <= bytes.length && ascii(bytes, at, 4) !== 'data')
    at += 8 + view.getUint32(at + 4, true) + (view.getUint32(at + 4, true) % 2);
  if (at + 8 > bytes.length) throw new Error('WAV file without a data chunk header');
  const chunk = wavInfoChunk(entries);
  const out = concat([bytes.subarray(0, at), chunk, bytes.subarray(at)]);
  const riff = view.getUint32(4, true);
  if (riff !== 0xffffffff) new DataView(out.buffer).setUint32(4, Math.min(0xffffffff, riff + chunk.length), true);
  return out;
}

/** Every INFO entry of a WAV file's LIST chunks, by id. */
export function readWavInfo(bytes: Uint8Array): Map<string, string[]> {
  const found = new Map<string, string[]>();
  if (bytes.length < 12 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WAVE') return found;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = ascii(bytes, at, 4);
    const size = view.getUint32(at + 4, true);
    if (id === 'data') break;
    if (id === 'LIST' && ascii(bytes, at + 8, 4) === 'INFO') {
      const end = Math.min(bytes.length, at + 8 + size);
      let p = at + 12;
      while (p + 8 <= end) {
        const sub = ascii(bytes, p, 4);
        const len = view.getUint32(p + 4, true);
        const raw = bytes.subarray(p + 8, Math.min(end, p + 8 + len));
        const nul = raw.indexOf(0);
        const value = decoder.decode(nul < 0 ? raw : raw.subarray(0, nul));
        const list = found.get(sub) ?? [];
        list.push(value);
        found.set(sub, list);
        p += 8 + len + (len % 2);
      }
    }
    at += 8 + size + (size % 2);
  }
  return found;
}

// ---------------------------------------------------------------- Ogg Opus: OpusTags

interface OggPage {
  start: number;
  end: number;
  headerType: number;
  granule: Uint8Array;
  serial: number;
  seq: number;
  segments: number[];
  bodyStart: number;
}

function readPage(b: Uint8Array, at: number): OggPage | null {
  if (at + 27 > b.length || ascii(b, at, 4) !== 'OggS') return null;
  const n = b[at + 26]!;
  if (at + 27 + n > b.length) return null;
  const segments = Array.from(b.subarray(at + 27, at + 27 + n));
  const bodyStart = at + 27 + n;
  const end = bodyStart + segments.reduce((s, x) => s + x, 0);
  if (end > b.length) return null;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return {
    start: at,
    end,
    headerType: b[at + 5]!,
    granule: b.slice(at + 6, at + 14),
    serial: view.getUint32(at + 14, true),
    seq: view.getUint32(at + 18, true),
    segments,
    bodyStart,
  };
}

/** One Ogg page holding one whole packet (which may take up to 255 × 255 bytes). */
function writePage(packet: Uint8Array, page: Pick<OggPage, 'headerType' | 'granule' | 'serial' | 'seq'>): Uint8Array {
  const lacing: number[] = [];
  let left = packet.length;
  while (left >= 255) {
    lacing.push(255);
    left -= 255;
  }
  lacing.push(left);
  if (lacing.length > 255) throw new Error('OpusTags packet too large for one page');
  const out = new Uint8Array(27 + lacing.length + packet.length);
  const view = new DataView(out.buffer);
  out.set(encoder.encode('OggS'));
  out[4] = 0;
  out[5] = page.headerType;
  out.set(page.granule, 6);
  view.setUint32(14, page.serial, true);
  view.setUint32(18, page.seq, true);
  out[26] = lacing.length;
  out.set(lacing, 27);
  out.set(packet, 27 + lacing.length);
  view.setUint32(22, oggCrc(out), true);
  return out;
}

function opusTagsPacket(vendor: string, comments: string[]): Uint8Array {
  const v = encoder.encode(vendor);
  const cs = comments.map((c) => encoder.encode(c));
  const out = new Uint8Array(8 + 4 + v.length + 4 + cs.reduce((n, c) => n + 4 + c.length, 0));
  const view = new DataView(out.buffer);
  out.set(encoder.encode('OpusTags'));
  view.setUint32(8, v.length, true);
  out.set(v, 12);
  let at = 12 + v.length;
  view.setUint32(at, cs.length, true);
  at += 4;
  for (const c of cs) {
    view.setUint32(at, c.length, true);
    out.set(c, at + 4);
    at += 4 + c.length;
  }
  return out;
}

function parseOpusTags(packet: Uint8Array): { vendor: string; comments: string[] } | null {
  if (packet.length < 16 || ascii(packet, 0, 8) !== 'OpusTags') return null;
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  const vlen = view.getUint32(8, true);
  if (12 + vlen + 4 > packet.length) return null;
  const vendor = decoder.decode(packet.subarray(12, 12 + vlen));
  let at = 12 + vlen;
  const count = view.getUint32(at, true);
  at += 4;
  const comments: string[] = [];
  for (let i = 0; i < count && at + 4 <= packet.length; i++) {
    const len = view.getUint32(at, true);
    if (at + 4 + len > packet.length) break;
    comments.push(decoder.decode(packet.subarray(at + 4, at + 4 + len)));
    at += 4 + len;
  }
  return { vendor, comments };
}

/**
 * The Ogg Opus file (whole, or a stream's first bytes holding both header pages) with `comments` added to its
 * OpusTags packet. The platform's writer puts OpusTags alone on the second page, so the page is rewritten in place
 * with its sequence number; a file whose OpusTags spans pages is refused.
 */
export function opusWithComments(bytes: Uint8Array, comments: string[]): Uint8Array<ArrayBuffer> {
  const head = readPage(bytes, 0);
  const tags = head && readPage(bytes, head.end);
  if (!head || !tags) throw new Error('not an Ogg Opus file with its header pages');
  const last = tags.segments[tags.segments.length - 1];
  if (last === 255) throw new Error('OpusTags continues on another page');
  const parsed = parseOpusTags(bytes.subarray(tags.bodyStart, tags.end));
  if (!parsed) throw new Error('the second Ogg page is not OpusTags');
  const page = writePage(opusTagsPacket(parsed.vendor, [...parsed.comments, ...comments]), tags);
  return concat([bytes.subarray(0, tags.start), page, bytes.subarray(tags.end)]);
}

/** The OpusTags comments of an Ogg Opus file as `NAME` → values (names upper-cased, as Vorbis comments compare). */
export function readOpusComments(bytes: Uint8Array): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const head = readPage(bytes, 0);
  if (!head) return found;
  // The packet may span pages: gather the second packet's segments.
  const parts: Uint8Array[] = [];
  let at = head.end;
  for (let guard = 0; guard < 64; guard++) {
    const page = readPage(bytes, at);
    if (!page) break;
    parts.push(bytes.subarray(page.bodyStart, page.end));
    if (page.segments[page.segments.length - 1] !== 255) break;
    at = page.end;
  }
  const parsed = parseOpusTags(concat(parts));
  for (const c of parsed?.comments ?? []) {
    const eq = c.indexOf('=');
    if (eq <= 0) continue;
    const name = c.slice(0, eq).toUpperCase();
    const list = found.get(name) ?? [];
    list.push(c.slice(eq + 1));
    found.set(name, list);
  }
  return found;
}

// ---------------------------------------------------------------- any of them

export type LabelledContainer = 'mp3' | 'wav' | 'opus';

/** The file (or a stream's first bytes) with its `AIGC` field written in its container's place. */
export function withAigc(bytes: Uint8Array, container: LabelledContainer, record: AigcRecord): Uint8Array<ArrayBuffer> {
  const json = aigcJson(record);
  if (container === 'mp3') return concat([mp3AigcTag(record), bytes]);
  if (container === 'wav') return wavWithInfo(bytes, [[AIGC_FIELD, json]]);
  return opusWithComments(bytes, [`${AIGC_FIELD}=${json}`]);
}

/** Which container the bytes are, by their first bytes. */
export function sniffContainer(bytes: Uint8Array): LabelledContainer | null {
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE') return 'wav';
  if (ascii(bytes, 0, 4) === 'OggS') return 'opus';
  if (ascii(bytes, 0, 3) === 'ID3') return 'mp3';
  if (bytes.length > 1 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0) return 'mp3';
  return null;
}

/** Every `AIGC` value the file carries in its container's place (a well-labelled file has exactly one). */
export function readAigcValues(bytes: Uint8Array): string[] {
  const container = sniffContainer(bytes);
  if (container === 'mp3') return readId3Txxx(bytes).get(AIGC_FIELD) ?? [];
  if (container === 'wav') return readWavInfo(bytes).get(AIGC_FIELD) ?? [];
  if (container === 'opus') return readOpusComments(bytes).get(AIGC_FIELD) ?? [];
  return [];
}
