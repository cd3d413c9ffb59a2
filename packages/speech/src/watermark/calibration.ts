/**
 * The detection threshold and the false-alarm rate a score means, from the null model (see
 * bench/watermark.ts, which measures it): for one hypothesis the score of unmarked audio is standard
 * normal; the search takes the maximum over many correlated hypotheses, which behaves like the
 * maximum of EFFECTIVE independent ones, EFFECTIVE fitted to the maxima measured on unmarked audio.
 */
export const EFFECTIVE = 20000;
export const THRESHOLD = 6.5;

/** Upper tail of the standard normal (Abramowitz–Stegun 7.1.26 on erfc, good to 1e-7 relative here). */
export function normalTail(z: number): number {
  if (z < 0) return 1 - normalTail(-z);
  const x = z / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  // Numerical Recipes' erfc, fractional error < 1.2e-7 everywhere.
  const r =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return r / 2;
}

export function falseAlarmRate(score: number, seconds: number): number {
  void seconds;
  return Math.min(1, EFFECTIVE * normalTail(score));
}

/** The largest z with normalTail(z) ≥ p (bisection: the tail is monotone). */
export function normalQuantile(p: number): number {
  let lo = 0,
    hi = 40;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (normalTail(mid) > p) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Fits the null model to the search maxima of unmarked windows: if the maximum behaves like that of
 * M independent standard normals, P(max ≤ m) = Φ(m)^M, so −ln Φ(mᵢ) are exponential with mean 1/M
 * and the maximum-likelihood M is n / Σ −ln Φ(mᵢ). Gives the threshold for a false-alarm rate of
 * 1e-6 under that M and the rate the constant THRESHOLD means.
 */
export function nullModel(maxima: number[]): { effective: number; thresholdFor1e6: number; farAtThreshold: number } {
  let sum = 0;
  for (const m of maxima) sum += -Math.log1p(-normalTail(m));
  const effective = maxima.length / sum;
  return {
    effective,
    thresholdFor1e6: normalQuantile(1e-6 / effective),
    farAtThreshold: -Math.expm1(effective * Math.log1p(-normalTail(THRESHOLD))),
  };
}
