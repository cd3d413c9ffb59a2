/**
 * The watermark's time–frequency grid (v2's, kept by v3), in seconds and hertz so that one detector
 * reads it at any sample rate: the embedder and the detector both work on the audio resampled to
 * 8 kHz, in frames of 32 ms every 16 ms (a sine window, so analysis times synthesis sums to one). A
 * slot is 8 frames (128 ms); the 32 bands are 94 Hz wide (3 FFT bins) from 344 to 3344 Hz (the
 * telephone band, which mp3, Opus and 8 kHz resampling all keep). Each slot carries eight units of
 * 4 bands (2 raised, 2 lowered); a unit holds one quantized value (spread-transform dither
 * modulation), either a sync value the key fixes or one bit of the coded payload (three sync units
 * for each data unit since v3, one for one in v2: pattern.ts). The pattern repeats every PERIOD
 * slots (12.3 s), so any crop holds it at some offset.
 *
 * v1 had 12 bands of 250 Hz and two units of 6 bands per slot. The quantizer's cost does not depend
 * on how many bands a unit spans (every unit moves by up to half a step whatever its size), so four
 * times the units in the same energy raise a clean clip's score by about two (a score grows with the
 * square root of the units), which buys the margin every attack eats into (bench, 10 clips: mean
 * clean score 9.1 → 18.3, mp3 6.4 → 14.3, tempo ±5 % 5.4 → 12.7, music 4.0 → 9.7).
 */
export const RATE = 8000;
export const FRAME = 256;
export const HOP = 128;
export const FRAMES_PER_SLOT = 8;
/** Frames of a slot whose energies count: the edge frames overlap the neighbouring slots' changes. */
export const INNER_FIRST = 1;
export const INNER_LAST = 6;
export const SLOT = HOP * FRAMES_PER_SLOT;
export const SLOT_SECONDS = SLOT / RATE;
export const BANDS = 32;
export const BAND_BINS = 3;
export const FIRST_BIN = 11;
export const UNITS_PER_SLOT = 8;
export const BANDS_PER_UNIT = BANDS / UNITS_PER_SLOT;
export const PERIOD = 96;
export const UNITS = PERIOD * UNITS_PER_SLOT;
/**
 * Quantizer step of a unit's value: the natural log of its raised bands' energy over its lowered
 * bands' (a ratio, so gain and the slot's loudness cancel). The value moves by at most half a step
 * (±2.8 dB), mostly on the weaker side, within the embedder's per-slot budget, which caps the costly
 * moves; larger steps resist noise and codecs better (1.3 against v1's 0.75, 10 clips: Opus 24 kb/s
 * mean score 6.3 → 7.5 at the same budget), and the budget keeps the mark 30 dB or more under the speech.
 */
export const STEP = 1.3;

/** The sine window: its square is a Hann window, and the squares of frames HOP apart sum to one. */
export const WINDOW: Float64Array = (() => {
  const w = new Float64Array(FRAME);
  for (let i = 0; i < FRAME; i++) w[i] = Math.sin((Math.PI * (i + 0.5)) / FRAME);
  return w;
})();

/** First sample (at RATE, from the start of the audio) of frame j. */
export const frameStart = (j: number): number => j * HOP - HOP / 2;
