/** Enough of MPEG audio to tell how many seconds a stream of constant-bitrate MP3 bytes holds. */
const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

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
    if (bytes[at] !== 0xff || (bytes[at + 1]! & 0xe0) !== 0xe0) continue;
    const version = (bytes[at + 1]! >> 3) & 0x03; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    const layer = (bytes[at + 1]! >> 1) & 0x03; // 1: Layer III
    const bitrateIndex = bytes[at + 2]! >> 4;
    const rateIndex = (bytes[at + 2]! >> 2) & 0x03;
    if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) continue;
    const bitrateKbps = (version === 3 ? BITRATES_V1_L3 : BITRATES_V2_L3)[bitrateIndex]!;
    return { offset: at, bitrateKbps, sampleRate: SAMPLE_RATES[version]![rateIndex]! };
  }
  return null;
}

/** Seconds of audio in `totalBytes` of a CBR MP3 whose first bytes are `head`. */
export function mp3Seconds(head: Uint8Array, totalBytes: number): number | null {
  const frame = firstMp3Frame(head);
  if (!frame) return null;
  return Math.max(0, totalBytes - frame.offset) / ((frame.bitrateKbps * 1000) / 8);
}
