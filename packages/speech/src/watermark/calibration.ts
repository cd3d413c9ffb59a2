/**
 * The detection threshold and the false-alarm rate a score means, from the null model: for one
 * alignment, the score of unmarked audio is a weighted sum of the cosines of a few hundred unit
 * phases that are uniform and independent there (the keyed pattern knows nothing of the audio), so
 * it is standard normal. The search returns the best of at most HYPOTHESES alignments on its fine
 * grid (speeds every 0.25 % within ±6.5 %, tempo alone or speed and pitch together; the slot's start
 * every 2 ms; every one of the PERIOD offsets), and the union bound over them gives the false-alarm
 * rate of a score: at most HYPOTHESES · Q(score). The polish within 2 ms adds alignments so close to
 * their neighbours that they are nearly the same statistic. bench/watermark.ts checks the bound on
 * unmarked windows (the fitted number of independent alignments comes out far below it).
 */
export const HYPOTHESES = 2 * 53 * 64 * 96;
/** Q⁻¹(1e-6 / HYPOTHESES) = 6.97, rounded up: a false-alarm rate under 1e-6 per clip. */
export const THRESHOLD = 7;

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
  return Math.min(1, HYPOTHESES * normalTail(score));
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
