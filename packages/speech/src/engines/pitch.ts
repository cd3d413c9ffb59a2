/** Shared pitch arithmetic: requested semitones plus the profile's offset from the voice's own pitch. */
import type { EngineRequest } from '../core/types.ts';

export function totalSemitones(req: EngineRequest): number {
  const own = req.voice.profile.pitchHz;
  const wanted = req.profile.pitchHz;
  const profileShift = own > 0 && wanted > 0 ? 12 * Math.log2(wanted / own) : 0;
  return req.pitch + profileShift;
}

export function totalSpeed(req: Pick<EngineRequest, 'voice' | 'profile' | 'speed'>): number {
  const rel = req.voice.profile.rate > 0 ? req.profile.rate / req.voice.profile.rate : 1;
  return req.speed * rel;
}

/**
 * A request's speed shared between an engine and the DSP stage: the engine's part within its native range
 * (`EngineCapabilities.speedRange`), given to it as `speed` (so its own `totalSpeed` is that part), and the rest,
 * which the DSP stage applies by time-stretching. An engine without native speed leaves all of it to the DSP stage.
 */
export function splitSpeed(
  req: Pick<EngineRequest, 'voice' | 'profile' | 'speed'>,
  capabilities: { nativeSpeed: boolean; speedRange?: readonly [number, number] | undefined },
): { speed: number; rest: number } {
  const total = totalSpeed(req);
  if (!capabilities.nativeSpeed) return { speed: req.speed, rest: total };
  const range = capabilities.speedRange;
  if (!range || !(total > 0)) return { speed: req.speed, rest: 1 };
  const native = Math.min(range[1], Math.max(range[0], total));
  if (Math.abs(native - total) < 1e-6) return { speed: req.speed, rest: 1 };
  return { speed: (req.speed * native) / total, rest: total / native };
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
