/** Shared pitch arithmetic: requested semitones plus the profile's offset from the voice's own pitch. */
import type { EngineRequest } from '../types.ts';

export function totalSemitones(req: EngineRequest): number {
  const own = req.voice.profile.pitchHz;
  const wanted = req.profile.pitchHz;
  const profileShift = own > 0 && wanted > 0 ? 12 * Math.log2(wanted / own) : 0;
  return req.pitch + profileShift;
}

export function totalSpeed(req: EngineRequest): number {
  const rel = req.voice.profile.rate > 0 ? req.profile.rate / req.voice.profile.rate : 1;
  return req.speed * rel;
}

/** Piecewise-linear interpolation through sorted (x, y) points, clamped at the ends. */
export function interpolate(points: readonly (readonly [number, number])[], x: number): number {
  if (x <= points[0]![0]) return points[0]![1];
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1]!;
    const [x1, y1] = points[i]!;
    if (x <= x1) return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return points[points.length - 1]![1];
}
