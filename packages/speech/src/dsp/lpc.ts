/** Linear prediction by the autocorrelation method: shared by the formant measure and the formant warp. */

/** Levinson-Durbin on autocorrelations r[0..order]: predictor a[0..order] (a[0] = 1), or undefined if degenerate. */
export function levinson(r: Float64Array, order: number): Float64Array | undefined {
  if (!(r[0]! > 1e-12)) return undefined;
  const a = new Float64Array(order + 1);
  a[0] = 1;
  let err = r[0]! * (1 + 1e-9);
  const tmp = new Float64Array(order + 1);
  for (let i = 1; i <= order; i++) {
    let acc = r[i]!;
    for (let j = 1; j < i; j++) acc += a[j]! * r[i - j]!;
    const k = -acc / err;
    tmp.set(a);
    for (let j = 1; j < i; j++) a[j] = tmp[j]! + k * tmp[i - j]!;
    a[i] = k;
    err *= 1 - k * k;
    if (err <= 0) return undefined;
  }
  return a;
}

/** Predictor coefficients of a windowed frame, or undefined if silent. */
export function lpcCoefficients(frame: Float64Array, order: number): Float64Array | undefined {
  const r = new Float64Array(order + 1);
  for (let lag = 0; lag <= order; lag++) {
    let s = 0;
    for (let i = lag; i < frame.length; i++) s += frame[i]! * frame[i - lag]!;
    r[lag] = s;
  }
  return levinson(r, order);
}
