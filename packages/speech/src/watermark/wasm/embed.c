/*
 * The embedder's kernels (embed-kernel.ts): its resampling filters and a slot's FFTs (below).
 *
 * The filters (resample.ts, `Kernel`): at the rates that are multiples of 8 kHz the folded down filter
 * (`decimate`'s pairs) and the mirrored up filter (`mirrored`), two outputs at a time in the lanes of
 * a WebAssembly f64x2 vector; at any other ratio (`decimate`, `interpolate`) one output at a time, its
 * even taps' running sum in one lane and its odd taps' in the other, as resample.ts's loops keep them.
 * Every addition and product of the JavaScript, in the same order, in double precision, so every
 * sample is the same to the bit; lanes never hold parts of one sum that JavaScript adds as one.
 *
 * Built by scripts/build-watermark-wasm.mjs (clang --target=wasm32, -msimd128, wasm-ld) into
 * embed-wasm.ts; the build itself never needs clang. `npm test` (scripts/check-watermark-wasm.mjs) builds it again
 * and fails unless the committed module is what this file builds to: rebuild and commit both after any change.
 */
#include <stdint.h>
#include <wasm_simd128.h>

/* Outputs a call computes at most (resample.ts cuts longer runs into blocks). */
#define BLOCK 4096
/* The down filter's pairs at 48 kHz; the up filter's phases at 48 kHz. */
#define MAX_HALF 24
#define MAX_UP 6
/* The most taps of a filter's phases together (22,050 and 44,100 Hz: 3,840 down, 3,528 up). */
#define TAPS 4096

/* Down: the output-rate audio from output 0's first tap, the 8 kHz outputs, the folded taps. */
float downIn[BLOCK * MAX_UP + 2 * MAX_HALF];
double downOut[BLOCK];
double pairs[MAX_HALF];
/* Every phase's taps, `width` a phase (resample.ts `taps`), for `decimate`. */
double downTaps[TAPS];
/* Up: the 8 kHz difference from group 0's first tap, the audio and the output at the output rate,
   every phase's 8 taps, then per phase p ≤ up / 2 the mirrored sums and differences (resample.ts). */
double upIn[BLOCK + 8];
float upAudio[BLOCK];
float upOut[BLOCK];
double upTaps[TAPS];
double mirrorSum[4 * MAX_UP];
double mirrorDiff[4 * MAX_UP];

#define EXPORT(name) __attribute__((export_name(name)))

EXPORT("downIn") float *down_in_at(void) { return downIn; }
EXPORT("downOut") double *down_out_at(void) { return downOut; }
EXPORT("pairs") double *pairs_at(void) { return pairs; }
EXPORT("downTaps") double *down_taps_at(void) { return downTaps; }
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

/*
 * A slot's frames (embed.ts `markSlot`): the 256-point real FFT of fft.ts (`RealFft`: a complex FFT of
 * half the size, its stages fused in pairs, then the split step), two frames at a time in the lanes
 * of f64x2 vectors, every operation of the JavaScript in the same order on the same tables (which
 * embed.ts copies in from a RealFft), so every bin and sample is the same to the bit.
 */
#define FRAME 256
#define HALF 128
#define BINS 129
#define HOP 128
#define FRAMES 8
/* A slot's span at 8 kHz: 8 frames a hop apart. */
#define SPAN (7 * HOP + FRAME)

/* The slot's 8 kHz audio from its first frame's start; its changes, overlap-added in place. */
double slotIn[SPAN];
double slotOut[SPAN];
/* Per frame, its spectrum (bins 0 … 128). */
double specRe[FRAMES * BINS];
double specIm[FRAMES * BINS];
/* Per bin, the slot's gain times the bin's correction; the first and one past the last bin it scales. */
double scale[BINS];
/* The sine window and fft.ts's tables. */
double window[FRAME];
double cosT[HALF / 2], sinT[HALF / 2], sinInvT[HALF / 2];
double splitCos[HALF + 1], splitSin[HALF + 1];
uint16_t rev[HALF];

EXPORT("slotIn") double *slot_in_at(void) { return slotIn; }
EXPORT("slotOut") double *slot_out_at(void) { return slotOut; }
EXPORT("specRe") double *spec_re_at(void) { return specRe; }
EXPORT("specIm") double *spec_im_at(void) { return specIm; }
EXPORT("scale") double *scale_at(void) { return scale; }
EXPORT("window") double *window_at(void) { return window; }
EXPORT("cosT") double *cos_at(void) { return cosT; }
EXPORT("sinT") double *sin_at(void) { return sinT; }
EXPORT("sinInvT") double *sin_inv_at(void) { return sinInvT; }
EXPORT("splitCos") double *split_cos_at(void) { return splitCos; }
EXPORT("splitSin") double *split_sin_at(void) { return splitSin; }
EXPORT("rev") uint16_t *rev_at(void) { return rev; }

static v128_t zr[HALF], zi[HALF];

static inline v128_t sub(v128_t a, v128_t b) { return wasm_f64x2_sub(a, b); }
static inline v128_t vmul(v128_t a, v128_t b) { return wasm_f64x2_mul(a, b); }
static inline v128_t splat(double x) { return wasm_f64x2_splat(x); }

/* (r + i·j) times the twiddle (wr + wi·j), as fft.ts writes it. */
static inline void rotate(v128_t r, v128_t i, v128_t wr, v128_t wi, v128_t *xr, v128_t *xi) {
  *xr = sub(vmul(r, wr), vmul(i, wi));
  *xi = add(vmul(r, wi), vmul(i, wr));
}

/* Points lo and hi from b ± x. */
static inline void butterfly(int lo, int hi, v128_t br, v128_t bi, v128_t xr, v128_t xi) {
  zr[hi] = sub(br, xr);
  zi[hi] = sub(bi, xi);
  zr[lo] = add(br, xr);
  zi[lo] = add(bi, xi);
}

/* fft.ts `complex`: in place on zr/zi, forward or inverse, unscaled. */
static void complex(int inverse) {
  const double *sn = inverse ? sinInvT : sinT;
  const int n = HALF;
  int hl = 2, step = n >> 2;
  for (; hl << 1 < n; hl <<= 2, step >>= 2) {
    const int h2 = hl << 1, s2 = step >> 1;
    for (int k = 0; k < hl; k++) {
      const v128_t w1r = splat(cosT[k * step]), w1i = splat(sn[k * step]), w2r = splat(cosT[k * s2]),
                   w2i = splat(sn[k * s2]), w3r = splat(cosT[(k + hl) * s2]), w3i = splat(sn[(k + hl) * s2]);
      for (int a0 = k; a0 < n; a0 += h2 << 1) {
        const int a1 = a0 + hl, a2 = a0 + h2, a3 = a2 + hl;
        v128_t xr, xi;
        /* Stage hl: (a0, a1) and (a2, a3). */
        rotate(zr[a1], zi[a1], w1r, w1i, &xr, &xi);
        const v128_t b1r = sub(zr[a0], xr), b1i = sub(zi[a0], xi), b0r = add(zr[a0], xr), b0i = add(zi[a0], xi);
        rotate(zr[a3], zi[a3], w1r, w1i, &xr, &xi);
        const v128_t b3r = sub(zr[a2], xr), b3i = sub(zi[a2], xi), b2r = add(zr[a2], xr), b2i = add(zi[a2], xi);
        /* Stage 2·hl: (a0, a2) and (a1, a3). */
        rotate(b2r, b2i, w2r, w2i, &xr, &xi);
        butterfly(a0, a2, b0r, b0i, xr, xi);
        rotate(b3r, b3i, w3r, w3i, &xr, &xi);
        butterfly(a1, a3, b1r, b1i, xr, xi);
      }
    }
  }
  for (; hl < n; hl <<= 1, step >>= 1) {
    for (int k = 0; k < hl; k++) {
      const v128_t wr = splat(cosT[k * step]), wi = splat(sn[k * step]);
      for (int a = k; a < n; a += hl << 1) {
        v128_t xr, xi;
        rotate(zr[a + hl], zi[a + hl], wr, wi, &xr, &xi);
        butterfly(a, a + hl, zr[a], zi[a], xr, xi);
      }
    }
  }
}

/* Sample i of frames f and f + 1 (a hop apart in slotIn). */
static inline v128_t frames(int f, int i) { return wasm_f64x2_make(slotIn[f * HOP + i], slotIn[(f + 1) * HOP + i]); }

static inline void store2(double *p, int f, v128_t v) {
  p[f * BINS] = wasm_f64x2_extract_lane(v, 0);
  p[(f + 1) * BINS] = wasm_f64x2_extract_lane(v, 1);
}

/* Every frame's spectrum (fft.ts `forward` on the windowed frame) into specRe/specIm. */
EXPORT("analyse") void analyse(void) {
  const v128_t halfV = splat(0.5);
  for (int f = 0; f < FRAMES; f += 2) {
    for (int i = 0; i < HALF / 2; i++) {
      const int j = rev[i], a = 2 * i, b = a + HALF;
      const v128_t ar = vmul(frames(f, a), splat(window[2 * i])), ai = vmul(frames(f, a + 1), splat(window[2 * i + 1])),
                   br = vmul(frames(f, b), splat(window[2 * i + HALF])),
                   bi = vmul(frames(f, b + 1), splat(window[2 * i + HALF + 1]));
      zr[j + 1] = sub(ar, br);
      zi[j + 1] = sub(ai, bi);
      zr[j] = add(ar, br);
      zi[j] = add(ai, bi);
    }
    complex(0);
    double *re = specRe + f * BINS, *im = specIm + f * BINS;
    store2(re, 0, add(zr[0], zi[0]));
    store2(im, 0, splat(0.0));
    store2(re + HALF, 0, sub(zr[0], zi[0]));
    store2(im + HALF, 0, splat(0.0));
    for (int k = 1; k <= HALF / 2; k++) {
      const v128_t ar = zr[k], ai = zi[k], br = zr[HALF - k], bi = wasm_f64x2_neg(zi[HALF - k]);
      const v128_t er = vmul(add(ar, br), halfV), ei = vmul(add(ai, bi), halfV);
      const v128_t or = vmul(sub(ai, bi), halfV), oi = vmul(wasm_f64x2_neg(sub(ar, br)), halfV);
      const v128_t wr = splat(splitCos[k]), wi = splat(splitSin[k]);
      const v128_t tr = sub(vmul(or, wr), vmul(oi, wi)), ti = add(vmul(or, wi), vmul(oi, wr));
      store2(re + HALF - k, 0, sub(er, tr));
      store2(im + HALF - k, 0, sub(ti, ei));
      store2(re + k, 0, add(er, tr));
      store2(im + k, 0, add(ei, ti));
    }
  }
}

/* Bin k of frames f and f + 1 times scale[k] inside [first, last), zero outside (embed.ts's dre/dim). */
static inline v128_t scaled(const double *p, int f, int k, int first, int last) {
  if (k < first || k >= last) return splat(0.0);
  return vmul(wasm_f64x2_make(p[f * BINS + k], p[(f + 1) * BINS + k]), splat(scale[k]));
}

/*
 * Every frame's change (its spectrum times `scale` over bins first … last − 1) back to samples (fft.ts
 * `inverseAdd`: the inverse, times the window), overlap-added into slotOut in frame order.
 */
EXPORT("synthesise") void synthesise(int first, int last) {
  static double signal[2][FRAME];
  for (int f = 0; f < FRAMES; f += 2) {
    for (int k = 0; k <= HALF / 2; k++) {
      const v128_t ar = scaled(specRe, f, k, first, last), ai = scaled(specIm, f, k, first, last),
                   br = scaled(specRe, f, HALF - k, first, last),
                   bi = wasm_f64x2_neg(scaled(specIm, f, HALF - k, first, last));
      const v128_t er = add(ar, br), ei = add(ai, bi), dr = sub(ar, br), di = sub(ai, bi);
      const v128_t wr = splat(splitCos[k]), wi = splat(-splitSin[k]);
      const v128_t or = sub(vmul(dr, wr), vmul(di, wi)), oi = add(vmul(dr, wi), vmul(di, wr));
      if (k) {
        zr[rev[HALF - k]] = add(er, oi);
        zi[rev[HALF - k]] = sub(or, ei);
      }
      zr[rev[k]] = sub(er, oi);
      zi[rev[k]] = add(ei, or);
    }
    for (int a = 0; a < HALF; a += 2) {
      const v128_t br = zr[a + 1], bi = zi[a + 1];
      zr[a + 1] = sub(zr[a], br);
      zi[a + 1] = sub(zi[a], bi);
      zr[a] = add(zr[a], br);
      zi[a] = add(zi[a], bi);
    }
    complex(1);
    for (int i = 0; i < HALF; i++) {
      const v128_t r = vmul(zr[i], splat(window[2 * i])), m = vmul(zi[i], splat(window[2 * i + 1]));
      signal[0][2 * i] = wasm_f64x2_extract_lane(r, 0);
      signal[1][2 * i] = wasm_f64x2_extract_lane(r, 1);
      signal[0][2 * i + 1] = wasm_f64x2_extract_lane(m, 0);
      signal[1][2 * i + 1] = wasm_f64x2_extract_lane(m, 1);
    }
    for (int g = 0; g < 2; g++)
      for (int i = 0; i < FRAME; i++) slotOut[(f + g) * HOP + i] = slotOut[(f + g) * HOP + i] + signal[g][i];
  }
}

/*
 * Any ratio (22,050 and 44,100 Hz above all): one output at a time, its even taps' sum in one lane and
 * its odd taps' in the other, each 8 taps a step as resample.ts's loops sum them (four products left to
 * right, added to the running sum from zero), then the two lanes added.
 */
static inline v128_t f32pair(const float *p) { return wasm_f64x2_promote_low_f32x4(wasm_v128_load64_zero(p)); }

/* Taps k … k + 7 against inputs x[k …]: lanes (x0·t0 + x2·t2 + x4·t4 + x6·t6, x1·t1 + … + x7·t7). */
#define EIGHT(P)                                                                                                   \
  add(add(add(wasm_f64x2_mul(P(0), wasm_v128_load(t + k)), wasm_f64x2_mul(P(2), wasm_v128_load(t + k + 2))),      \
          wasm_f64x2_mul(P(4), wasm_v128_load(t + k + 4))),                                                        \
      wasm_f64x2_mul(P(6), wasm_v128_load(t + k + 6)))

/*
 * Down: outputs 0 … count − 1 from downIn (output 0's first tap at 0, in phase rem), each next one
 * whole + (rem + frac ≥ up) inputs on.
 */
EXPORT("decimate") void decimate(int count, int width, int up, int whole, int frac, int rem) {
  int start = 0;
  for (int j = 0; j < count; j++) {
    const double *t = downTaps + rem * width;
    const float *x = downIn + start;
#define DOWN_AT(o) f32pair(x + k + (o))
    v128_t s = wasm_f64x2_splat(0.0);
    for (int k = 0; k < width; k += 8) s = add(s, EIGHT(DOWN_AT));
    downOut[j] = wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1);
    start += whole;
    rem += frac;
    if (rem >= up) {
      rem -= up;
      start++;
    }
  }
}

/* Up, added to the audio: upOut[j] = upAudio[j] + output j from upIn (output 0's first tap at 0, in phase rem). */
EXPORT("interpolate") void interpolate(int count, int up, int down, int rem) {
  int i = 0;
  const int k = 0;
  for (int j = 0; j < count; j++) {
    const double *t = upTaps + rem * 8;
#define UP_AT(o) wasm_v128_load(upIn + i + (o))
    const v128_t s = EIGHT(UP_AT);
    upOut[j] = (float)((double)upAudio[j] + (wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1)));
    rem += down;
    if (rem >= up) {
      rem -= up;
      i++;
    }
  }
}
