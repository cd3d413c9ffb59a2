/** Sample-rate conversion with the Speex resampler (WASM). */
import initSpeex from '@echogarden/speex-resampler-wasm';

let loading: Promise<any> | undefined;
const getSpeex = (): Promise<any> => (loading ??= initSpeex());

export async function resample(samples: Float32Array, from: number, to: number, quality = 6): Promise<Float32Array> {
  if (from === to || samples.length === 0) return samples;
  const m = await getSpeex();
  const errPtr = m._malloc(4);
  const st = m._speex_resampler_init(1, from, to, quality, errPtr);
  m._free(errPtr);
  if (!st) throw new Error(`speex resampler: cannot convert ${from} Hz to ${to} Hz`);
  try {
    // Feed a tail of zeros so the filter's latency does not cut the end off.
    const latency = m._speex_resampler_get_input_latency(st) as number;
    const input = new Float32Array(samples.length + latency);
    input.set(samples);
    const expected = Math.round((samples.length * to) / from);
    const outCap = Math.ceil((input.length * to) / from) + 64;
    const inPtr = m._malloc(input.length * 4);
    const outPtr = m._malloc(outCap * 4);
    const inLenPtr = m._malloc(4);
    const outLenPtr = m._malloc(4);
    m.HEAPF32.set(input, inPtr / 4);
    m.HEAPU32[inLenPtr / 4] = input.length;
    m.HEAPU32[outLenPtr / 4] = outCap;
    m._speex_resampler_skip_zeros(st);
    m._speex_resampler_process_float(st, 0, inPtr, inLenPtr, outPtr, outLenPtr);
    const produced = m.HEAPU32[outLenPtr / 4] as number;
    const out = new Float32Array(m.HEAPF32.buffer, outPtr, Math.min(produced, expected)).slice();
    for (const p of [inPtr, outPtr, inLenPtr, outLenPtr]) m._free(p);
    return out;
  } finally {
    m._speex_resampler_destroy(st);
  }
}
