/*
 * The coarse pass's sync-unit terms (coarse.ts, `SyncTable`), four slots at a time in the lanes of
 * two WebAssembly f64x2 vectors: every sum, product, division and maximum of the JavaScript it
 * replaced, in the same order, in double precision, so every term is the same to the bit. Only the
 * two table look-ups a unit (the mantissa's log and the cosine) are read lane by lane.
 *
 * Built by scripts/build-watermark-wasm.mjs (clang --target=wasm32, -msimd128, wasm-ld) into
 * unit-terms-wasm.ts; the build itself never needs clang.
 */
#include <stdint.h>
#include <wasm_simd128.h>

#define PERIOD 96
#define MAX_SYNC (PERIOD * 8)
#define MAX_QUADS 8
#define BANDS 32
#define MANTISSA_BITS 14

/* Filled by coarse.ts: the tables, the pattern's sync layout, the pitch's floors, the constants. */
double mantissa[1 << MANTISSA_BITS];
double cosine[4096 + 1];
/* Per sync unit: its two raised then its two lowered bands (b · 32, byte offsets into a quad's energies). */
uint16_t bands[4 * MAX_SYNC];
int32_t first[PERIOD + 1];
/* Per sync unit: the floors of its raised and its lowered bands, each times the reading's floor, its dither. */
double units[5 * MAX_SYNC];
/* spread, base spread, weight, steps per octave, bias. */
double constants[5];
/* Per four slots, per band: the four slots' energies side by side. */
double energies[MAX_QUADS * BANDS * 4];
/* Per slot (quad p's slots are 4p … 4p + 3), per pattern slot: Σ w·cos θ and Σ w². */
double terms[MAX_QUADS * 4 * PERIOD];
double weights[MAX_QUADS * 4 * PERIOD];
/* A quad's energies plus 1e-20 (a unit's first term on each side), per band. */
static double lifted[BANDS * 4];

#define EXPORT(name) __attribute__((export_name(name)))

EXPORT("mantissa") double *mantissa_at(void) { return mantissa; }
EXPORT("cosine") double *cosine_at(void) { return cosine; }
EXPORT("bands") uint16_t *bands_at(void) { return bands; }
EXPORT("first") int32_t *first_at(void) { return first; }
EXPORT("units") double *units_at(void) { return units; }
EXPORT("constants") double *constants_at(void) { return constants; }
EXPORT("energies") double *energies_at(void) { return energies; }
EXPORT("terms") double *terms_at(void) { return terms; }
EXPORT("weights") double *weights_at(void) { return weights; }

struct constants {
  v128_t spread_by, base, weight, octave, bias, twentieth, magic_bits, magic_exponent, magic, mantissa_mask, cosine_mask;
};

/* One sync unit's terms in two slots (the lanes): w·cos θ into *sum, w² into *norm. */
static inline void unit(const struct constants *k, v128_t u, v128_t d, v128_t nu, v128_t nd, v128_t fnu, v128_t fnd,
                        v128_t dither, v128_t *sum, v128_t *norm) {
  /* w = 1 / (1 + WEIGHT·spread²) with spread = BASE_SPREAD + spreadBy·(nu/u + nd/d), over one division. */
  const v128_t ud = wasm_f64x2_mul(u, d);
  const v128_t spread = wasm_f64x2_add(wasm_f64x2_mul(k->base, ud),
                                       wasm_f64x2_mul(k->spread_by, wasm_f64x2_add(wasm_f64x2_mul(nu, d), wasm_f64x2_mul(nd, u))));
  const v128_t ud2 = wasm_f64x2_mul(ud, ud);
  const v128_t w = wasm_f64x2_div(ud2, wasm_f64x2_add(ud2, wasm_f64x2_mul(wasm_f64x2_mul(k->weight, spread), spread)));
  /* clean(u, nu) / clean(d, nd). A twentieth of a side is positive (the side is at least 1e-20), so pmax
     (b < a ? a : b … the larger, NaN never arising) is Math.max. */
  const v128_t ratio = wasm_f64x2_div(wasm_f64x2_pmax(wasm_f64x2_sub(u, fnu), wasm_f64x2_mul(k->twentieth, u)),
                                      wasm_f64x2_pmax(wasm_f64x2_sub(d, fnd), wasm_f64x2_mul(k->twentieth, d)));
  /* log₂ of the ratio in cosine-table steps: its exponent (an integer made a double exactly: OR-ed into
     2⁵²'s mantissa, then 2⁵² + 1023 subtracted), plus its mantissa's first bits' log from the table. */
  const v128_t exponent = wasm_f64x2_sub(wasm_v128_or(wasm_u64x2_shr(ratio, 52), k->magic_bits), k->magic_exponent);
  /* The mantissa's first MANTISSA_BITS bits, as a byte offset into the table. */
  const v128_t m = wasm_v128_and(wasm_u64x2_shr(ratio, 52 - MANTISSA_BITS - 3), k->mantissa_mask);
  const v128_t logs = wasm_f64x2_make(*(const double *)((const char *)mantissa + (uint32_t)wasm_i64x2_extract_lane(m, 0)),
                                      *(const double *)((const char *)mantissa + (uint32_t)wasm_i64x2_extract_lane(m, 1)));
  const v128_t at = wasm_f64x2_sub(wasm_f64x2_add(wasm_f64x2_mul(exponent, k->octave), logs), dither);
  /* JavaScript's `(at + bias) & mask`: at + bias is positive and under 2³¹, so ToInt32 truncates; the
     truncated value plus 2⁵² is exact and carries it in its low bits, masked to a byte offset below. */
  const v128_t index = wasm_i64x2_shl(
      wasm_v128_and(wasm_f64x2_add(wasm_f64x2_trunc(wasm_f64x2_add(at, k->bias)), k->magic), k->cosine_mask), 3);
  const v128_t c = wasm_f64x2_make(*(const double *)((const char *)cosine + (uint32_t)wasm_i64x2_extract_lane(index, 0)),
                                   *(const double *)((const char *)cosine + (uint32_t)wasm_i64x2_extract_lane(index, 1)));
  *sum = wasm_f64x2_add(*sum, wasm_f64x2_mul(w, c));
  *norm = wasm_f64x2_add(*norm, wasm_f64x2_mul(w, w));
}

EXPORT("unitTerms") void unit_terms(int quads) {
  struct constants k;
  k.spread_by = wasm_f64x2_splat(constants[0]);
  k.base = wasm_f64x2_splat(constants[1]);
  k.weight = wasm_f64x2_splat(constants[2]);
  k.octave = wasm_f64x2_splat(constants[3]);
  k.bias = wasm_f64x2_splat(constants[4]);
  k.twentieth = wasm_f64x2_splat(0.05);
  k.magic_bits = wasm_i64x2_splat(0x4330000000000000LL);
  k.magic_exponent = wasm_f64x2_splat(4503599627370496.0 + 1023.0);
  k.magic = wasm_f64x2_splat(4503599627370496.0);
  k.mantissa_mask = wasm_i64x2_splat(((1 << MANTISSA_BITS) - 1) << 3);
  k.cosine_mask = wasm_i64x2_splat(4095);
  const v128_t tiny = wasm_f64x2_splat(1e-20);
  for (int p = 0; p < quads; p++) {
    const double *e = energies + p * BANDS * 4;
    for (int i = 0; i < BANDS * 4; i += 2) wasm_v128_store(lifted + i, wasm_f64x2_add(tiny, wasm_v128_load(e + i)));
    const char *lo = (const char *)lifted, *hi = (const char *)e;
    double *t = terms + 4 * p * PERIOD, *w = weights + 4 * p * PERIOD;
    for (int q = 0; q < PERIOD; q++) {
      v128_t sum0 = wasm_f64x2_splat(0.0), norm0 = sum0, sum1 = sum0, norm1 = sum0;
      for (int j = first[q], end = first[q + 1]; j < end; j++) {
        const uint16_t *b = bands + 4 * j;
        const double *n = units + 5 * j;
        const v128_t nu = wasm_v128_load64_splat(n), nd = wasm_v128_load64_splat(n + 1);
        const v128_t fnu = wasm_v128_load64_splat(n + 2), fnd = wasm_v128_load64_splat(n + 3);
        const v128_t dither = wasm_v128_load64_splat(n + 4);
        /* u = 1e-20 + E[up₀] + E[up₁], d likewise, added in that order. */
        const uint32_t u0 = b[0], u1 = b[1], d0 = b[2], d1 = b[3];
        unit(&k, wasm_f64x2_add(wasm_v128_load(lo + u0), wasm_v128_load(hi + u1)),
             wasm_f64x2_add(wasm_v128_load(lo + d0), wasm_v128_load(hi + d1)), nu, nd, fnu, fnd, dither, &sum0, &norm0);
        unit(&k, wasm_f64x2_add(wasm_v128_load(lo + u0 + 16), wasm_v128_load(hi + u1 + 16)),
             wasm_f64x2_add(wasm_v128_load(lo + d0 + 16), wasm_v128_load(hi + d1 + 16)), nu, nd, fnu, fnd, dither, &sum1,
             &norm1);
      }
      t[q] = wasm_f64x2_extract_lane(sum0, 0);
      t[PERIOD + q] = wasm_f64x2_extract_lane(sum0, 1);
      t[2 * PERIOD + q] = wasm_f64x2_extract_lane(sum1, 0);
      t[3 * PERIOD + q] = wasm_f64x2_extract_lane(sum1, 1);
      w[q] = wasm_f64x2_extract_lane(norm0, 0);
      w[PERIOD + q] = wasm_f64x2_extract_lane(norm0, 1);
      w[2 * PERIOD + q] = wasm_f64x2_extract_lane(norm1, 0);
      w[3 * PERIOD + q] = wasm_f64x2_extract_lane(norm1, 1);
    }
  }
}
