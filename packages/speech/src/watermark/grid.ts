/**
 * The watermark's time–frequency grid, in seconds and hertz so that one detector reads it at any
 * sample rate: the embedder and the detector both work on the audio resampled to 8 kHz, in frames
 * of 32 ms every 16 ms (a sine window, so analysis times synthesis sums to one). A slot is 8 frames
 * (128 ms); the 12 bands are 250 Hz wide from 344 to 3344 Hz (the telephone band, which mp3, Opus and
 * 8 kHz resampling all keep). Each slot carries two units of 6 bands (3 raised, 3 lowered); a unit
 * holds one quantized value (spread-transform dither modulation), either a sync value the key fixes
 * or one bit of the coded payload. The pattern repeats every PERIOD slots (12.3 s), so any crop
 * holds it at some offset.
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
export const BANDS = 12;
export const BAND_BINS = 8;
export const FIRST_BIN = 11;
export const UNITS_PER_SLOT = 2;
export const BANDS_PER_UNIT = BANDS / UNITS_PER_SLOT;
export const PERIOD = 96;
export const UNITS = PERIOD * UNITS_PER_SLOT;
/**
 * Quantizer step of a unit's value: the natural log of its raised bands' energy over its lowered
 * bands' (a ratio, so gain and the slot's loudness cancel). The value moves by at most half a step
 * (±1.6 dB), mostly on the weaker side; larger steps resist noise better but cost energy, and this
 * one, with the embedder's per-slot budget, leaves the mark 30–41 dB under the speech (bench).
 */
export const STEP = 0.75;

/** The sine window: its square is a Hann window, and the squares of frames HOP apart sum to one. */
export const WINDOW: Float64Array = (() => {
  const w = new Float64Array(FRAME);
  for (let i = 0; i < FRAME; i++) w[i] = Math.sin((Math.PI * (i + 0.5)) / FRAME);
  return w;
})();

/** First sample (at RATE, from the start of the audio) of frame j. */
export const frameStart = (j: number): number => j * HOP - HOP / 2;
