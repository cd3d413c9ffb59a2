/**
 * The formats entry's PCM and WAV writers with Node Buffers out, for the engine's Node side: each Buffer is a view of
 * the bytes the formats code wrote (one ArrayBuffer of its own, so it can be transferred), never a copy.
 */
import { floatToInt16 as int16 } from '../formats/pcm.ts';
import { encodeWav as wav, int16FromParts as int16Parts, wavHeader as header } from '../formats/wav.ts';

export { concatFloat32, int16ToFloat, trimSilence } from '../formats/pcm.ts';
export { decodeWav } from '../formats/wav.ts';

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export const floatToInt16 = (samples: Float32Array): Buffer => asBuffer(int16(samples));
export const encodeWav = (samples: Float32Array, sampleRate: number): Buffer => asBuffer(wav(samples, sampleRate));
/** A 16-bit mono WAV header; `dataBytes` 0xffffffff marks a stream of unknown length. */
export const wavHeader = (sampleRate: number, dataBytes: number): Buffer => asBuffer(header(sampleRate, dataBytes));
export const int16FromParts = (parts: Float32Array[], sampleRate: number, wav: boolean): Buffer =>
  asBuffer(int16Parts(parts, sampleRate, wav));
