/** Speed and pitch change with Sonic (WASM): pitch in semitones keeps duration; speed keeps pitch. */
import initSonic from '@echogarden/sonic-wasm';

let loading: Promise<any> | undefined;
const getSonic = (): Promise<any> => (loading ??= initSonic());

export async function changeSpeedPitch(
  samples: Float32Array,
  sampleRate: number,
  speed: number,
  semitones: number,
): Promise<Float32Array> {
  if (samples.length === 0 || (Math.abs(speed - 1) < 1e-3 && Math.abs(semitones) < 1e-3)) return samples;
  const m = await getSonic();
  const stream = m._sonicCreateStream(sampleRate, 1);
  try {
    m._sonicSetSpeed(stream, speed);
    m._sonicSetPitch(stream, Math.pow(2, semitones / 12));
    m._sonicSetQuality(stream, 1);
    const inPtr = m._malloc(samples.length * 4);
    m.HEAPF32.set(samples, inPtr / 4);
    m._sonicWriteFloatToStream(stream, inPtr, samples.length);
    m._sonicFlushStream(stream);
    m._free(inPtr);
    const available = m._sonicSamplesAvailable(stream) as number;
    const outPtr = m._malloc(Math.max(1, available) * 4);
    const read = m._sonicReadFloatFromStream(stream, outPtr, available) as number;
    const out = new Float32Array(m.HEAPF32.buffer, outPtr, read).slice();
    m._free(outPtr);
    return out;
  } finally {
    m._sonicDestroyStream(stream);
  }
}
