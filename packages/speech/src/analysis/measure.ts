/**
 * The measures of a voice, taken the same way on an uploaded sample and on synthesized audio (that
 * is how a clone, a mix or a designed voice is judged): speech found by the WebRTC VAD, then F0,
 * speaking rate, LPC formants, LTAS, loudness and an SNR estimate. A noisy sample is denoised
 * (RNNoise) before anything but the SNR is measured.
 */
import { estimateF0 } from '../dsp/f0.ts';
import { integratedLoudness } from '../dsp/loudness.ts';
import { resamplePolyphase } from '../formats/polyphase.ts';
import { denoise } from './denoise.ts';
import { frameFormants, LPC_RATE } from './lpc.ts';
import { ltas } from './ltas.ts';
import { VAD_FRAME, VAD_RATE, vadFrames } from './vad.ts';
import { voiceprint } from './voiceprint.ts';

export interface VoiceMeasures {
  f0MedianHz: number;
  f0P10Hz: number;
  f0P90Hz: number;
  /** 12·log2(p90/p10). */
  f0RangeSemitones: number;
  /** Syllables (energy nuclei) per second of speech. */
  speakingRate: number;
  /** Median F1..F3 over voiced frames (LPC). */
  formantsHz: [number, number, number];
  /** Long-term average spectrum of the speech, dB on LTAS_BANDS. */
  ltas: number[];
  loudnessLufs: number;
  snrDb: number;
  /** snrDb under NOISY_SNR_DB. */
  noisy: boolean;
  /** Seconds of speech the VAD found. */
  speechSec: number;
  durationSec: number;
  /** Harmonics-to-noise ratio of voiced frames (from the autocorrelation peak), dB. */
  hnrDb: number;
  /** The measures (except SNR and loudness) were taken on the RNNoise-denoised sample. */
  denoised: boolean;
  /** Whose voice it is (`voiceprint.ts`); absent from measures taken before it existed, empty for too little speech. */
  voiceprint?: number[];
}

/**
 * A speech spectrum falls 20 to 30 dB from its strongest bands (300 Hz to 1 kHz) to the 4 to 6 kHz
 * bands. With less than 20 dB between speech and noise, those upper bands hold more noise than
 * voice, so the LTAS (and the equalizer built from it) would copy the noise: such a sample is
 * called noisy, the user is warned, and it is denoised before it is measured.
 */
export const NOISY_SNR_DB = 20;

const median = (xs: number[]): number => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Concatenates the frames the VAD marked as speech. */
function speechOnly(x: Float32Array, flags: Uint8Array): Float32Array {
  let n = 0;
  for (const f of flags) n += f;
  const out = new Float32Array(n * VAD_FRAME);
  let o = 0;
  for (let f = 0; f < flags.length; f++)
    if (flags[f]) {
      out.set(x.subarray(f * VAD_FRAME, (f + 1) * VAD_FRAME), o);
      o += VAD_FRAME;
    }
  return out;
}

/** Frame powers of 30 ms frames. */
function framePowers(x: Float32Array): Float64Array {
  const frames = Math.floor(x.length / VAD_FRAME);
  const p = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    let s = 0;
    for (let i = f * VAD_FRAME; i < (f + 1) * VAD_FRAME; i++) s += x[i]! * x[i]!;
    p[f] = s / VAD_FRAME;
  }
  return p;
}

/** Quiet runs at least this many 30 ms frames long inside what the VAD kept are pauses (210 ms). */
const PAUSE_FRAMES = 7;
/** A frame within this many dB of the noise floor is quiet. */
const GATE_OVER_FLOOR_DB = 6;
/** …and never a frame within this many dB of the speech's loud frames (its 90th percentile). */
const GATE_UNDER_SPEECH_DB = 20;

/**
 * Pauses the VAD kept taken out of its speech. The WebRTC detector calls a steady hiss speech, so
 * a recording with audible background marks its pauses as speech, and the speaking rate (syllables
 * per second of speech) then counts them: a speaker with long pauses measures as a slow one. The
 * noise floor is the 10th percentile of the frame powers (digital silence aside); a run of frames
 * within GATE_OVER_FLOOR_DB of it (and GATE_UNDER_SPEECH_DB under the speech) lasting
 * PAUSE_FRAMES or more is a pause, so what is left is articulation: the rate is the articulation
 * rate, and the F0, formants and LTAS are read on the voice, not on the hiss between phrases.
 */
export function gatePauses(powers: Float64Array, flags: Uint8Array): Uint8Array {
  const audible: number[] = [];
  const speech: number[] = [];
  for (let f = 0; f < flags.length; f++) {
    if (powers[f]! > 1e-9) audible.push(powers[f]!);
    if (flags[f]) speech.push(powers[f]!);
  }
  if (audible.length < 10 || speech.length < 10) return flags;
  audible.sort((a, b) => a - b);
  speech.sort((a, b) => a - b);
  const floor = audible[Math.floor(audible.length / 10)]!;
  const loud = speech[Math.floor(speech.length * 0.9)]!;
  const gate = Math.min(floor * 10 ** (GATE_OVER_FLOOR_DB / 10), loud * 10 ** (-GATE_UNDER_SPEECH_DB / 10));
  const out = flags.slice();
  for (let f = 0; f < out.length;) {
    if (!out[f] || powers[f]! > gate) {
      f++;
      continue;
    }
    let j = f;
    while (j < out.length && out[j] && powers[j]! <= gate) j++;
    if (j - f >= PAUSE_FRAMES) out.fill(0, f, j);
    f = j;
  }
  return out;
}

/**
 * SNR: mean power of speech frames over that of the noise. The noise is the non-speech frames when
 * the VAD found enough of them (≥ 0.3 s), else the quietest tenth of all frames (pauses between
 * words); a noise floor of zero (digital silence) counts as 60 dB.
 */
function estimateSnr(powers: Float64Array, flags: Uint8Array): number {
  const speech: number[] = [];
  const rest: number[] = [];
  for (let f = 0; f < powers.length; f++) (flags[f] ? speech : rest).push(powers[f]!);
  if (!speech.length) return 0;
  let noise: number;
  if (rest.length >= 10) noise = rest.reduce((a, v) => a + v, 0) / rest.length;
  else {
    const sorted = [...powers].sort((a, b) => a - b);
    const q = sorted.slice(0, Math.max(1, Math.floor(sorted.length / 10)));
    noise = q.reduce((a, v) => a + v, 0) / q.length;
  }
  const signal = speech.reduce((a, v) => a + v, 0) / speech.length;
  if (noise <= 1e-12) return 60;
  return Math.min(60, 10 * Math.log10(Math.max(signal - noise, 1e-12) / noise));
}

/**
 * Syllables as energy nuclei: the 10 ms energy envelope of the 300–3000 Hz region (a first
 * difference and a moving sum make a cheap band-pass), smoothed over 50 ms, in dB; a peak counts
 * when it stands 3 dB above the valleys on both sides, within 25 dB of the loudest, and at least
 * 100 ms from the previous one.
 */
function countNuclei(x: Float32Array, rate: number): number {
  const hop = Math.round(rate / 100);
  const n = Math.floor(x.length / hop);
  if (n < 3) return 0;
  const env = new Float64Array(n);
  let prev = 0;
  for (let f = 0; f < n; f++) {
    let s = 0;
    for (let i = f * hop; i < (f + 1) * hop; i++) {
      // Two-point moving average of the difference: rejects DC/low rumble and the top octave.
      const d = x[i]! - prev;
      prev = x[i]!;
      s += d * d;
    }
    env[f] = s;
  }
  const sm = new Float64Array(n);
  for (let f = 0; f < n; f++) {
    let s = 0;
    let c = 0;
    for (let k = Math.max(0, f - 2); k <= Math.min(n - 1, f + 2); k++) {
      s += env[k]!;
      c++;
    }
    sm[f] = 10 * Math.log10(s / c + 1e-12);
  }
  let top = -Infinity;
  for (const v of sm) top = Math.max(top, v);
  let count = 0;
  let last = -Infinity;
  let valley = sm[0]!;
  for (let f = 1; f < n - 1; f++) {
    valley = Math.min(valley, sm[f]!);
    if (!(sm[f]! >= sm[f - 1]! && sm[f]! > sm[f + 1]!)) continue;
    if (sm[f]! < top - 25 || sm[f]! - valley < 3) continue;
    // The valley after the peak, up to the next higher point.
    let after = sm[f]!;
    for (let k = f + 1; k < n && sm[k]! <= sm[f]!; k++) after = Math.min(after, sm[k]!);
    if (sm[f]! - after < 3 && f + 1 < n - 1) continue;
    if (f - last < 10) continue;
    count++;
    last = f;
    valley = sm[f]!;
  }
  return count;
}

/**
 * Median F1..F3 over at most 400 voiced frames spread evenly (a median settles long before that).
 * Only those frames are brought to the LPC rate, each with a margin for the resampling filter.
 */
function formants(x16k: Float32Array, voicedStarts: number[]): [number, number, number] {
  const size = Math.round(0.025 * LPC_RATE);
  const margin = 64;
  const span = Math.ceil((size * VAD_RATE) / LPC_RATE) + 2 * margin;
  const step = Math.max(1, Math.ceil(voicedStarts.length / 400));
  const f: [number[], number[], number[]] = [[], [], []];
  for (let i = 0; i < voicedStarts.length; i += step) {
    const start = Math.round(voicedStarts[i]! * VAD_RATE) - margin;
    if (start < 0 || start + span > x16k.length) continue;
    const chunk = resamplePolyphase(x16k.subarray(start, start + span), VAD_RATE, LPC_RATE);
    const offset = Math.round((margin * LPC_RATE) / VAD_RATE);
    if (offset + size > chunk.length) continue;
    const fs = frameFormants(chunk, offset, size);
    // F1 of speech lies above 200 Hz: a lower root is the glottal source, not a formant.
    const cand = fs.filter((v) => v > 200);
    if (cand.length < 3) continue;
    f[0].push(cand[0]!);
    f[1].push(cand[1]!);
    f[2].push(cand[2]!);
  }
  return [median(f[0]), median(f[1]), median(f[2])];
}

export function measurePcm(samples: Float32Array, sampleRate: number): VoiceMeasures {
  const durationSec = samples.length / sampleRate;
  const loudnessLufs = samples.length ? integratedLoudness(samples, sampleRate) : -Infinity;
  let x = sampleRate === VAD_RATE ? samples : resamplePolyphase(samples, sampleRate, VAD_RATE);
  let powers = framePowers(x);
  let flags = gatePauses(powers, vadFrames(x));
  const snrDb = estimateSnr(powers, flags);
  const noisy = snrDb < NOISY_SNR_DB;
  if (noisy) {
    x = denoise(x, VAD_RATE);
    powers = framePowers(x);
    flags = gatePauses(powers, vadFrames(x));
  }
  const speech = speechOnly(x, flags);
  const speechSec = speech.length / VAD_RATE;

  // Percentiles of F0 settle long before 3,000 frames: a long sample is read at a wider hop.
  const hopSec = Math.max(0.02, speechSec / 3000);
  const f0 = estimateF0(speech, VAD_RATE, { minHz: 60, maxHz: 500, hopSec, targetRate: 4000, voicingThreshold: 0.5 });
  // Formants are read on vowels: the loud, low-pitched frames of the speech.
  const voicedStarts = vowelFrames(speech);
  const strengths = f0.strengths.map((r) => Math.min(0.999, Math.max(0.001, r)));
  const hnrDb = strengths.length ? median(strengths.map((r) => 10 * Math.log10(r / (1 - r)))) : 0;
  const p10 = f0.p10;
  const p90 = f0.p90;
  return {
    f0MedianHz: f0.median,
    f0P10Hz: p10,
    f0P90Hz: p90,
    f0RangeSemitones: p10 > 0 ? 12 * Math.log2(p90 / p10) : 0,
    speakingRate: speechSec > 0 ? countNuclei(speech, VAD_RATE) / speechSec : 0,
    formantsHz: formants(speech, voicedStarts),
    ltas: ltas(speech, VAD_RATE, 1024, 4000),
    loudnessLufs,
    snrDb,
    noisy,
    speechSec,
    durationSec,
    hnrDb,
    denoised: noisy,
    voiceprint: voiceprint(speech, f0.median),
  };
}

/**
 * Start times (s) of 25 ms frames, every 20 ms, that are loud (within 15 dB of the 90th percentile)
 * and dominated by low frequencies (zero crossings as of a tone under 1.5 kHz): vowels, where formants are.
 */
function vowelFrames(x: Float32Array): number[] {
  const size = Math.round(0.025 * VAD_RATE);
  const hop = Math.round(0.02 * VAD_RATE);
  const powers: number[] = [];
  const zcr: number[] = [];
  for (let o = 0; o + size <= x.length; o += hop) {
    let s = 0;
    let z = 0;
    for (let i = o; i < o + size; i++) {
      s += x[i]! * x[i]!;
      if (i > o && x[i]! >= 0 !== x[i - 1]! >= 0) z++;
    }
    powers.push(s / size);
    zcr.push((z * VAD_RATE) / (2 * size));
  }
  const sorted = [...powers].sort((a, b) => a - b);
  const ref = sorted[Math.floor(sorted.length * 0.9)] ?? 0;
  const out: number[] = [];
  for (let i = 0; i < powers.length; i++) if (powers[i]! > ref * 10 ** -1.5 && zcr[i]! < 1500) out.push((i * hop) / VAD_RATE);
  return out;
}
