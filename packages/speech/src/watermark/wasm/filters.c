/*
 * The embedder's resampling filters at the rates that are multiples of 8 kHz (resample.ts, `Kernel`):
 * the folded down filter (`decimate`'s pairs) and the mirrored up filter (`mirrored`), two outputs at
 * a time in the lanes of a WebAssembly f64x2 vector. Each output is summed with every addition and
 * product of the JavaScript, in the same order, in double precision, so every sample is the same to
 * the bit; the lanes are independent outputs, never parts of one sum.
 *
 * Built by scripts/build-watermark-wasm.mjs (clang --target=wasm32, -msimd128, wasm-ld) into
 * filters-wasm.ts; the build itself never needs clang.
 */
#include <stdint.h>
#include <wasm_simd128.h>

/* Outputs a call computes at most (resample.ts cuts longer runs into blocks). */
#define BLOCK 4096
/* The down filter's pairs at 48 kHz; the up filter's phases at 48 kHz. */
#define MAX_HALF 24
#define MAX_UP 6

/* Down: the output-rate audio from output 0's first tap, the 8 kHz outputs, the folded taps. */
float downIn[BLOCK * MAX_UP + 2 * MAX_HALF];
double downOut[BLOCK];
double pairs[MAX_HALF];
/* Up: the 8 kHz difference from group 0's first tap, the audio and the output at the output rate,
   the 8 taps of phase 0, then per phase p ≤ up / 2 the mirrored sums and differences (resample.ts). */
double upIn[BLOCK / 2 + 8];
float upAudio[BLOCK];
float upOut[BLOCK];
double upTaps[8];
double mirrorSum[4 * MAX_UP];
double mirrorDiff[4 * MAX_UP];

#define EXPORT(name) __attribute__((export_name(name)))

EXPORT("downIn") float *down_in_at(void) { return downIn; }
EXPORT("downOut") double *down_out_at(void) { return downOut; }
EXPORT("pairs") double *pairs_at(void) { return pairs; }
EXPORT("upIn") double *up_in_at(void) { return upIn; }
EXPORT("upAudio") float *up_audio_at(void) { return upAudio; }
EXPORT("upOut") float *up_out_at(void) { return upOut; }
EXPORT("upTaps") double *up_taps_at(void) { return upTaps; }
EXPORT("mirrorSum") double *mirror_sum_at(void) { return mirrorSum; }
EXPORT("mirrorDiff") double *mirror_diff_at(void) { return mirrorDiff; }

/* Per phase of the down filter's step (inputs i with i mod step = r), its inputs widened to double in
   turn, PHASE apart: output j's inputs at c + d (c = half − 1 + j·step) are phase (half − 1 + d) mod
   step's, so outputs j and j + 1 read two neighbours there, one vector load. */
#define PHASE (BLOCK + 32)
double phases[MAX_UP * PHASE];
/* Input k of output 0's window (0 … 2·half − 2) in phases. */
#define WHERE(k) (((k) % step) * PHASE + (k) / step)

/* Pair q of the folded taps about output j's centre: (x[c − q] + x[c + q]) · pairs[q]. */
#define PAIR(q) \
  wasm_f64x2_mul(wasm_f64x2_add(wasm_v128_load(x + WHERE(half - 1 - (q))), wasm_v128_load(x + WHERE(half - 1 + (q)))), \
                 wasm_f64x2_splat(pairs[q]))

/* Pairs q … q + 3, summed left to right (resample.ts had them so). */
#define FOUR(q) wasm_f64x2_add(wasm_f64x2_add(wasm_f64x2_add(PAIR(q), PAIR((q) + 1)), PAIR((q) + 2)), PAIR((q) + 3))

/*
 * Outputs 0 … count − 1 of the folded down filter, output j's centre at downIn[half − 1 + j·step]. At
 * every such rate half = 4·step (the filter reaches ½ ms each side), so each step gets its own copy
 * with every offset a constant. From 12 pairs on, pairs 0–11 as resample.ts summed them (three fours,
 * left to right) and the rest four at a time; under 12, four at a time from zero.
 */
static inline __attribute__((always_inline)) void decimate_step(int count, const int step) {
  const int half = 4 * step, total = (count - 1) * step + 2 * half - 1;
  for (int r = 0; r < step; r++)
    for (int i = r, m = r * PHASE; i < total; i += step, m++) phases[m] = (double)downIn[i];
  /* An odd last output shares its vector with one past it, which reads a stale input there and is dropped. */
  for (int j = 0; j < count; j += 2) {
    const double *x = phases + j;
    v128_t s;
    if (half >= 12) {
      s = wasm_f64x2_add(wasm_f64x2_add(FOUR(0), FOUR(4)), FOUR(8));
      for (int q = 12; q < half; q += 4) s = wasm_f64x2_add(s, FOUR(q));
    } else {
      s = wasm_f64x2_splat(0.0);
      for (int q = 0; q < half; q += 4) s = wasm_f64x2_add(s, FOUR(q));
    }
    downOut[j] = wasm_f64x2_extract_lane(s, 0);
    if (j + 1 < count) downOut[j + 1] = wasm_f64x2_extract_lane(s, 1);
  }
}

/* `decimate_step` at 16, 24, 32, 40 and 48 kHz (step 2 … 6, half 4·step). */
EXPORT("decimatePairs") void decimate_pairs(int count, int step) {
  switch (step) {
    case 2: decimate_step(count, 2); break;
    case 3: decimate_step(count, 3); break;
    case 4: decimate_step(count, 4); break;
    case 5: decimate_step(count, 5); break;
    case 6: decimate_step(count, 6); break;
  }
}

static inline v128_t ld(const double *p) { return wasm_v128_load(p); }
static inline v128_t mul(v128_t a, double t) { return wasm_f64x2_mul(a, wasm_f64x2_splat(t)); }
static inline v128_t add(v128_t a, v128_t b) { return wasm_f64x2_add(a, b); }

/* The audio at positions o and o + up plus the two lanes of r, rounded to float as JavaScript stores
   (the second lane only when its group is one of the run's). */
static inline void put(int o, int up, v128_t r, int both) {
  upOut[o] = (float)((double)upAudio[o] + wasm_f64x2_extract_lane(r, 0));
  if (both) upOut[o + up] = (float)((double)upAudio[o + up] + wasm_f64x2_extract_lane(r, 1));
}

/*
 * `groups` whole groups of `up` outputs of the mirrored up filter (resample.ts `mirrored`), two groups
 * a step: group g reads upIn[g … g + 7] and writes upOut[g·up …]. An odd last group's partner lane
 * reads one input past the run's and is dropped.
 */
EXPORT("mirrored") void mirrored(int groups, int up) {
  const double t0 = upTaps[0], t1 = upTaps[1], t2 = upTaps[2], t3 = upTaps[3], t4 = upTaps[4], t5 = upTaps[5],
               t6 = upTaps[6], t7 = upTaps[7];
  const int pairCount = (up - 1) >> 1, middle = up % 2 == 0 ? up / 2 : 0;
  for (int g = 0; g < groups; g += 2) {
    const double *x = upIn + g;
    const v128_t x0 = ld(x), x1 = ld(x + 1), x2 = ld(x + 2), x3 = ld(x + 3), x4 = ld(x + 4), x5 = ld(x + 5),
                 x6 = ld(x + 6), x7 = ld(x + 7);
    const int j = g * up, both = g + 1 < groups;
    put(j, up,
        add(add(add(add(mul(x0, t0), mul(x2, t2)), mul(x4, t4)), mul(x6, t6)),
            add(add(add(mul(x1, t1), mul(x3, t3)), mul(x5, t5)), mul(x7, t7))),
        both);
    const v128_t a0 = add(x0, x7), a1 = add(x1, x6), a2 = add(x2, x5), a3 = add(x3, x4);
    const v128_t b0 = wasm_f64x2_sub(x0, x7), b1 = wasm_f64x2_sub(x1, x6), b2 = wasm_f64x2_sub(x2, x5),
                 b3 = wasm_f64x2_sub(x3, x4);
    for (int p = 1; p <= pairCount; p++) {
      const double *s = mirrorSum + 4 * p, *d = mirrorDiff + 4 * p;
      const v128_t u = add(add(add(mul(a0, s[0]), mul(a1, s[1])), mul(a2, s[2])), mul(a3, s[3]));
      const v128_t v = add(add(add(mul(b0, d[0]), mul(b1, d[1])), mul(b2, d[2])), mul(b3, d[3]));
      put(j + p, up, add(u, v), both);
      put(j + up - p, up, wasm_f64x2_sub(u, v), both);
    }
    if (middle) {
      const double *s = mirrorSum + 4 * middle;
      put(j + middle, up, add(add(add(mul(a0, s[0]), mul(a1, s[1])), mul(a2, s[2])), mul(a3, s[3])), both);
    }
  }
}
