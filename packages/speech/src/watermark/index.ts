/**
 * @polyvox/speech/watermark: an inaudible watermark keyed by the server's secret, in the sound itself,
 * so that it survives re-encoding, resampling, cropping and speed changes that strip any metadata.
 * A zero-bit mark ("made here") shows in a few seconds; a 32-bit payload in about 15.
 */
export { WatermarkEmbedder, embedWatermark } from './embed.ts';
export { detectWatermark } from './detect.ts';
export { detectInThread, detectionsQueued } from './thread.ts';
export type { WatermarkResult } from './detect.ts';
export { THRESHOLD as WATERMARK_THRESHOLD } from './calibration.ts';

/** 32 bytes the server derives from its secret. */
export interface WatermarkKey {
  key: Uint8Array;
}
