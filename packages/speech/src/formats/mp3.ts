/**
 * MPEG audio Layer III frame headers: walking a file frame by frame (the check that an encoder's
 * output is whole frames), the LAME "Info" frame that tells decoders the encoder's delay and
 * padding, so a decoded file is exactly as long as what was encoded, and the length of a
 * constant-bitrate stream from its first frame (the console's progress while a stream arrives).
 */

const BITRATES_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** LAME's own delay in samples (its MDCT), reported in the Info frame; decoders add their 529. */
export const LAME_ENCODER_DELAY = 576;

export interface FrameHeader {
  mpeg1: boolean;
  mono: boolean;
  sampleRate: number;
  bitrate: number;
  length: number;
  samples: number;
}

/** The Layer III frame header at byte `at`, or undefined if there is none there. */
export function parseHeader(b: Uint8Array, at: number): FrameHeader | undefined {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return undefined;
  const version = (b[at + 1]! >> 3) & 3;
  const layer = (b[at + 1]! >> 1) & 3;
  const brIndex = b[at + 2]! >> 4;
  const srIndex = (b[at + 2]! >> 2) & 3;
  if (version === 1 || layer !== 1 || brIndex === 0 || brIndex === 15 || srIndex === 3) return undefined;
  const mpeg1 = version === 3;
  const bitrate = (mpeg1 ? BITRATES_V1 : BITRATES_V2)[brIndex]! * 1000;
  const sampleRate = RATES[version]![srIndex]!;
  const padding = (b[at + 2]! >> 1) & 1;
  const length = Math.floor(((mpeg1 ? 144 : 72) * bitrate) / sampleRate) + padding;
  return { mpeg1, mono: b[at + 3]! >> 6 === 3, sampleRate, bitrate, length, samples: mpeg1 ? 1152 : 576 };
}

/** Counts the frames of a stream of Layer III frames; undefined unless it is whole frames only. */
export function countFrames(b: Uint8Array): { frames: number; first: FrameHeader } | undefined {
  let at = 0;
  let frames = 0;
  let first: FrameHeader | undefined;
  while (at < b.length) {
    const h = parseHeader(b, at);
    if (!h || at + h.length > b.length) return undefined;
    first ??= h;
    at += h.length;
    frames++;
  }
  return first ? { frames, first } : undefined;
}

function crc16(b: Uint8Array, length: number): number {
  let crc = 0;
  for (let i = 0; i < length; i++) {
    crc ^= b[i]!;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

/**
 * A silent frame shaped like `h` holding a Xing "Info" tag with LAME's extension: the encoder delay
 * always, and, when the file is known whole, its frame count, byte count and end padding.
 */
export function infoFrame(h: FrameHeader, whole?: { frames: number; bytes: number; samples: number }): Uint8Array {
  const f = new Uint8Array(h.length);
  const v = new DataView(f.buffer);
  // Same version, rate, bitrate and mode as the audio; no CRC, no padding bit.
  const brIndex = (h.mpeg1 ? BITRATES_V1 : BITRATES_V2).indexOf(h.bitrate / 1000);
  const version = h.mpeg1 ? 3 : RATES[2]!.includes(h.sampleRate) ? 2 : 0;
  const srIndex = RATES[version]!.indexOf(h.sampleRate);
  f[0] = 0xff;
  f[1] = 0xe0 | (version << 3) | (1 << 1) | 1;
  f[2] = (brIndex << 4) | (srIndex << 2);
  f[3] = h.mono ? 0xc0 : 0x00;
  let p = 4 + (h.mpeg1 ? (h.mono ? 17 : 32) : h.mono ? 9 : 17);
  f.set(new TextEncoder().encode('Info'), p);
  v.setUint32(p + 4, whole ? 0x3 : 0, false); // flags: frame and byte counts present
  p += 8;
  if (whole) {
    // Audio frames only (as LAME counts them); the byte count includes this frame.
    v.setUint32(p, whole.frames, false);
    v.setUint32(p + 4, whole.bytes + h.length, false);
    p += 8;
  }
  const lame = p;
  f.set(new TextEncoder().encode('LAME3.100'), p);
  p += 9;
  f[p++] = 0x01; // tag revision 0, CBR
  f[p++] = 0; // lowpass unknown
  p += 4 + 2 + 2; // peak, radio and audiophile gain: none
  f[p++] = 0; // flags, ATH
  f[p++] = Math.min(255, h.bitrate / 1000);
  const padding = whole ? Math.max(0, whole.frames * h.samples - whole.samples - LAME_ENCODER_DELAY) : 0;
  f[p++] = LAME_ENCODER_DELAY >> 4;
  f[p++] = ((LAME_ENCODER_DELAY & 0xf) << 4) | ((padding >> 8) & 0xf);
  f[p++] = padding & 0xff;
  p += 1 + 1 + 2; // misc, mp3 gain, preset
  v.setUint32(p, whole ? whole.bytes + h.length : 0, false);
  p += 4 + 2; // music length, music CRC (not computed)
  if (p + 2 > f.length || lame < 13) throw new Error('frame too small for an Info tag');
  // LAME's tag CRC covers the frame up to the CRC itself.
  v.setUint16(p, crc16(f, p), false);
  return f;
}

/** Bytes taken by an ID3v2 tag at the start (0 when there is none). */
export function id3Size(bytes: Uint8Array): number {
  if (bytes.length < 10 || bytes[0] !== 0x49 || bytes[1] !== 0x44 || bytes[2] !== 0x33) return 0;
  const size = ((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f);
  const footer = bytes[5]! & 0x10 ? 10 : 0;
  return 10 + size + footer;
}

export interface Mp3Frame {
  offset: number;
  bitrateKbps: number;
  sampleRate: number;
}

/** The first Layer III frame header after any ID3 tag, or null if the bytes do not hold one yet. */
export function firstMp3Frame(bytes: Uint8Array): Mp3Frame | null {
  for (let at = id3Size(bytes); at + 4 <= bytes.length; at++) {
    const h = parseHeader(bytes, at);
    if (h) return { offset: at, bitrateKbps: h.bitrate / 1000, sampleRate: h.sampleRate };
  }
  return null;
}

/** Seconds of audio in `totalBytes` of a CBR MP3 whose first bytes are `head`. */
export function mp3Seconds(head: Uint8Array, totalBytes: number): number | null {
  const frame = firstMp3Frame(head);
  if (!frame) return null;
  return Math.max(0, totalBytes - frame.offset) / ((frame.bitrateKbps * 1000) / 8);
}
