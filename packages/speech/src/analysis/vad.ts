/**
 * Voice activity by the WebRTC detector (libfvad, WebAssembly): 30 ms frames at 16 kHz, marked
 * speech or not, then gaps shorter than a pause closed and short blips dropped. Loaded once, at
 * import, so measuring stays synchronous.
 */
import initFvad from '@echogarden/fvad-wasm';

const fvad: any = await initFvad();

export const VAD_RATE = 16_000;
export const VAD_FRAME = 480; // 30 ms at 16 kHz

/**
 * One flag per 30 ms frame of 16 kHz audio. `mode` 0..3 is the detector's aggressiveness (3
 * rejects the most non-speech); 2 keeps quiet word endings in clean recordings.
 */
export function vadFrames(samples: Float32Array, mode = 2): Uint8Array {
  const frames = Math.floor(samples.length / VAD_FRAME);
  const flags = new Uint8Array(frames);
  if (frames === 0) return flags;
  const handle = fvad._fvad_new() as number;
  const ptr = fvad._malloc(VAD_FRAME * 2) as number;
  try {
    fvad._fvad_set_mode(handle, mode);
    fvad._fvad_set_sample_rate(handle, VAD_RATE);
    const frame = new Int16Array(VAD_FRAME);
    for (let f = 0; f < frames; f++) {
      const o = f * VAD_FRAME;
      for (let i = 0; i < VAD_FRAME; i++) {
        const v = samples[o + i]! * 32767;
        frame[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      }
      // HEAP16 can be replaced when memory grows: look it up for every frame.
      (fvad.HEAP16 as Int16Array).set(frame, ptr >> 1);
      flags[f] = fvad._fvad_process(handle, ptr, VAD_FRAME) === 1 ? 1 : 0;
    }
  } finally {
    fvad._free(ptr);
    fvad._fvad_free(handle);
  }
  return smoothFlags(flags);
}

/** Closes gaps under 150 ms (within words) and drops bursts under 60 ms (clicks). */
function smoothFlags(flags: Uint8Array): Uint8Array {
  const out = flags.slice();
  const run = (value: number, maxLen: number, fill: number): void => {
    let i = 0;
    while (i < out.length) {
      if (out[i] !== value) {
        i++;
        continue;
      }
      let j = i;
      while (j < out.length && out[j] === value) j++;
      const inner = i > 0 && j < out.length;
      if (inner && j - i <= maxLen) out.fill(fill, i, j);
      i = j;
    }
  };
  run(0, 5, 1);
  run(1, 2, 0);
  return out;
}
