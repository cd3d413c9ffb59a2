/**
 * The embedder's WebAssembly kernels (wasm/embed.c): the resampling filters at the rates that are
 * multiples of 8 kHz (resample.ts) and a slot's FFTs (embed.ts), two outputs or two frames at a time in
 * SIMD lanes, each computed as the JavaScript computed it (the same operations in the same order in
 * double precision, so the same bits). One instance per thread, made on first use; the filters' taps
 * are given at each call, the FFT's tables (a RealFft's) and the window once.
 */
import { EMBED_WASM } from './wasm/embed-wasm.ts';
import { instantiate } from './wasm/load.ts';
import { RealFft } from '../dsp/fft.ts';
import { FRAME, FRAMES_PER_SLOT, HOP, WINDOW } from './grid.ts';

/** embed.c's block: the most outputs one filter call computes. */
export const BLOCK = 4096;
/** embed.c's tables of taps: the most of every phase's taps together. */
export const TAPS = 4096;
const BINS = FRAME / 2 + 1;
/** A slot's span at 8 kHz: its frames a hop apart. */
export const SPAN = (FRAMES_PER_SLOT - 1) * HOP + FRAME;

export interface EmbedKernel {
  /** At every rate with one phase, half = 4·step (embed.c specializes each step). */
  decimatePairs: (count: number, step: number) => void;
  mirrored: (groups: number, up: number) => void;
  /** Any ratio: `count` outputs, the first in phase `rem` with its first tap at downIn[0]. */
  decimate: (count: number, width: number, up: number, whole: number, frac: number, rem: number) => void;
  /** Any ratio, 8 taps: `count` outputs added to upAudio, the first in phase `rem` with its first tap at upIn[0]. */
  interpolate: (count: number, up: number, down: number, rem: number) => void;
  downTaps: Float64Array;
  downIn: Float32Array;
  downOut: Float64Array;
  pairs: Float64Array;
  upIn: Float64Array;
  upAudio: Float32Array;
  upOut: Float32Array;
  upTaps: Float64Array;
  mirrorSum: Float64Array;
  mirrorDiff: Float64Array;
  /** slotIn's frames' spectra into specRe/specIm (per frame, bins 0 … FRAME / 2). */
  analyse: () => void;
  /** The spectra times `scale` over bins first … last − 1, back to samples, overlap-added into slotOut. */
  synthesise: (first: number, last: number) => void;
  slotIn: Float64Array;
  slotOut: Float64Array;
  specRe: Float64Array;
  specIm: Float64Array;
  scale: Float64Array;
}

let instance: EmbedKernel | undefined;

export function embedKernel(): EmbedKernel {
  if (instance) return instance;
  const { exports: x, buffer, at, f64 } = instantiate(EMBED_WASM);
  const f32 = (name: string, length: number) => new Float32Array(buffer, at(name), length);
  const fft = new RealFft(FRAME);
  f64('window', FRAME).set(WINDOW);
  f64('cosT', FRAME / 4).set(fft.cos);
  f64('sinT', FRAME / 4).set(fft.sin);
  f64('sinInvT', FRAME / 4).set(fft.sinInv);
  f64('splitCos', BINS).set(fft.splitCos);
  f64('splitSin', BINS).set(fft.splitSin);
  new Uint16Array(buffer, at('rev'), FRAME / 2).set(fft.rev);
  return (instance = {
    decimatePairs: x.decimatePairs as EmbedKernel['decimatePairs'],
    mirrored: x.mirrored as EmbedKernel['mirrored'],
    decimate: x.decimate as EmbedKernel['decimate'],
    interpolate: x.interpolate as EmbedKernel['interpolate'],
    downTaps: f64('downTaps', TAPS),
    downIn: f32('downIn', BLOCK * 6 + 48),
    downOut: f64('downOut', BLOCK),
    pairs: f64('pairs', 24),
    upIn: f64('upIn', BLOCK + 8),
    upAudio: f32('upAudio', BLOCK),
    upOut: f32('upOut', BLOCK),
    upTaps: f64('upTaps', TAPS),
    mirrorSum: f64('mirrorSum', 24),
    mirrorDiff: f64('mirrorDiff', 24),
    analyse: x.analyse as EmbedKernel['analyse'],
    synthesise: x.synthesise as EmbedKernel['synthesise'],
    slotIn: f64('slotIn', SPAN),
    slotOut: f64('slotOut', SPAN),
    specRe: f64('specRe', FRAMES_PER_SLOT * BINS),
    specIm: f64('specIm', FRAMES_PER_SLOT * BINS),
    scale: f64('scale', BINS),
  });
}
