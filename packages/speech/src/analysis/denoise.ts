/**
 * Noise suppression by RNNoise (WebAssembly), for samples whose SNR says the noise would colour
 * the measures. RNNoise works on 480-sample frames at 48 kHz, in 16-bit range.
 */
import initRnnoise from '@echogarden/rnnoise-wasm';
import { resamplePolyphase } from '../formats/polyphase.ts';

const rnnoise: any = await initRnnoise();
const RATE = 48_000;
const FRAME = 480;

export function denoise(samples: Float32Array, sampleRate: number): Float32Array {
  const x = resamplePolyphase(samples, sampleRate, RATE);
  const out = new Float32Array(x.length);
  const state = rnnoise._rnnoise_create(0) as number;
  const inPtr = rnnoise._malloc(FRAME * 4) as number;
  const outPtr = rnnoise._malloc(FRAME * 4) as number;
  try {
    const frame = new Float32Array(FRAME);
    for (let o = 0; o < x.length; o += FRAME) {
      frame.fill(0);
      for (let i = 0; i < FRAME && o + i < x.length; i++) frame[i] = x[o + i]! * 32768;
      (rnnoise.HEAPF32 as Float32Array).set(frame, inPtr >> 2);
      rnnoise._rnnoise_process_frame(state, outPtr, inPtr);
      const y = (rnnoise.HEAPF32 as Float32Array).subarray(outPtr >> 2, (outPtr >> 2) + FRAME);
      for (let i = 0; i < FRAME && o + i < x.length; i++) out[o + i] = y[i]! / 32768;
    }
  } finally {
    rnnoise._free(inPtr);
    rnnoise._free(outPtr);
    rnnoise._rnnoise_destroy(state);
  }
  return resamplePolyphase(out, RATE, sampleRate);
}
