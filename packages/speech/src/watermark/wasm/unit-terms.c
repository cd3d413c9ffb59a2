/*
 * The coarse pass's sync-unit terms (coarse.ts, `SyncTable`), four slots at a time in the lanes of
 * two WebAssembly f64x2 vectors: every sum, product, division and maximum of the JavaScript it
 * replaced, in the same order, in double precision, so every term is the same to the bit. Only the
 * two table look-ups a unit (the mantissa's log and the cosine) are read lane by lane. The units
 * go through three passes (weights and ratios, phases, sums per pattern slot) rather than one, so
 * that the look-ups' long chains overlap. The grids' sums over every pattern offset are here too.
 *
 * Built by scripts/build-watermark-wasm.mjs (clang --target=wasm32, -msimd128, wasm-ld) into
 * unit-terms-wasm.ts; the build itself never needs clang. `npm test` (scripts/check-watermark-wasm.mjs) builds it again
 * and fails unless the committed module is what this file builds to: rebuild and commit both after any change.
 */
#include <stdint.h>
#include <wasm_simd128.h>

#define PERIOD 96
#define MAX_SYNC (PERIOD * 8)
#define MAX_QUADS 8
#define COARSE_SLOTS 32
/* The slots starting at frames the coarse grids reach: 32 slots at up to 6 % slower, from an 8 ms start. */
#define MAX_FRAMES 1280
#define BANDS 32
#define MANTISSA_BITS 14

/* Filled by coarse.ts: the tables, the pattern's sync layout, the pitch's floors, the constants. */
double mantissa[1 << MANTISSA_BITS];
double cosine[4096 + 1];
/* Per sync unit: its two raised then its two lowered bands (b · 32, byte offsets into a quad's energies). */
uint16_t bands[4 * MAX_SYNC];
int32_t first[PERIOD + 1];
/* Per sync unit: the floors of its raised and its lowered bands, each times the reading's floor (which is
   also its spread, ½: coarse.ts checks), then its dither. */
double units[3 * MAX_SYNC];
/* base spread, weight, steps per octave, bias. */
double constants[4];
/* Per four slots, per band: the four slots' energies side by side. */
double energies[MAX_QUADS * BANDS * 4];
/* Per staged slot (quad p's are 4p … 4p + 3): where its row goes in its table (in doubles). */
int32_t staged[MAX_QUADS * 4];
/* Two tables of rows, per slot, per pattern slot: its sync units' Σ w·cos θ and Σ w². Table 0 holds
   the laid grid's slots, table 1 the slots starting at each frame (coarse.ts: `fill` and `place`). */
double slot_terms[COARSE_SLOTS * PERIOD], slot_weights[COARSE_SLOTS * PERIOD];
double frame_terms[MAX_FRAMES * PERIOD], frame_weights[MAX_FRAMES * PERIOD];
/* The grid being scored: per slot, its row in the table, and whether it is loud; then its scores. */
int32_t rows[COARSE_SLOTS];
uint8_t active[COARSE_SLOTS];
double scores[PERIOD];
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
EXPORT("staged") int32_t *staged_at(void) { return staged; }
EXPORT("slotTerms") double *slot_terms_at(void) { return slot_terms; }
EXPORT("slotWeights") double *slot_weights_at(void) { return slot_weights; }
EXPORT("frameTerms") double *frame_terms_at(void) { return frame_terms; }
EXPORT("frameWeights") double *frame_weights_at(void) { return frame_weights; }
EXPORT("rows") int32_t *rows_at(void) { return rows; }
EXPORT("active") uint8_t *active_at(void) { return active; }
EXPORT("scores") double *scores_at(void) { return scores; }

/* Per unit of the four slots being computed (two vectors of two lanes each): w, the mantissa's byte
   offset into its table, the exponent in cosine-table steps; then the cosine's byte offset. */
static v128_t unit_w[2 * MAX_SYNC], unit_m[2 * MAX_SYNC], unit_e[2 * MAX_SYNC], unit_c[2 * MAX_SYNC];

/* The terms of `quads` fours of staged slots, into table `table`. */
EXPORT("unitTerms") void unit_terms(int quads, int table) {
  double *const to_terms = table ? frame_terms : slot_terms, *const to_weights = table ? frame_weights : slot_weights;
  const v128_t base = wasm_f64x2_splat(constants[0]), weight = wasm_f64x2_splat(constants[1]),
               octave = wasm_f64x2_splat(constants[2]), bias = wasm_f64x2_splat(constants[3]);
  const v128_t tiny = wasm_f64x2_splat(1e-20), twentieth = wasm_f64x2_splat(0.05);
  const v128_t magic_bits = wasm_i64x2_splat(0x4330000000000000LL), magic = wasm_f64x2_splat(4503599627370496.0),
               magic_exponent = wasm_f64x2_splat(4503599627370496.0 + 1023.0);
  const v128_t mantissa_mask = wasm_i64x2_splat(((1 << MANTISSA_BITS) - 1) << 3), cosine_mask = wasm_i64x2_splat(4095);
  const int units_count = first[PERIOD];
  /* The work is split in passes over the units, each with short chains of dependent operations, so
     that many units are in flight at once (one pass doing all of it waited on its table look-ups). */
  for (int p = 0; p < quads; p++) {
    const double *e = energies + p * BANDS * 4;
    for (int i = 0; i < BANDS * 4; i += 2) wasm_v128_store(lifted + i, wasm_f64x2_add(tiny, wasm_v128_load(e + i)));
    const char *lo = (const char *)lifted, *hi = (const char *)e;
    /* Each unit's weight, and its ratio's exponent and mantissa. */
    for (int j = 0; j < units_count; j++) {
      const uint16_t *b = bands + 4 * j;
      const double *n = units + 3 * j;
      const v128_t fnu = wasm_v128_load64_splat(n), fnd = wasm_v128_load64_splat(n + 1);
      const uint32_t u0 = b[0], u1 = b[1], d0 = b[2], d1 = b[3];
      for (int h = 0; h < 2; h++) {
        /* u = 1e-20 + E[up₀] + E[up₁], d likewise, added in that order. */
        const v128_t u = wasm_f64x2_add(wasm_v128_load(lo + u0 + 16 * h), wasm_v128_load(hi + u1 + 16 * h));
        const v128_t d = wasm_f64x2_add(wasm_v128_load(lo + d0 + 16 * h), wasm_v128_load(hi + d1 + 16 * h));
        /* w = 1 / (1 + WEIGHT·spread²) with spread = BASE_SPREAD + spreadBy·(nu/u + nd/d), over one division:
           spreadBy·(nu·d + nd·u) as (½nu)·d + (½nd)·u, the same number: halving commutes with rounding
           unless a product falls under 2⁻¹⁰²¹, and a floor times a side of at least 1e-20 is either 0 or
           far above that (the smallest float sample squared is about 2e-90). */
        const v128_t ud = wasm_f64x2_mul(u, d);
        const v128_t spread = wasm_f64x2_add(wasm_f64x2_mul(base, ud), wasm_f64x2_add(wasm_f64x2_mul(fnu, d), wasm_f64x2_mul(fnd, u)));
        const v128_t ud2 = wasm_f64x2_mul(ud, ud);
        unit_w[2 * j + h] = wasm_f64x2_div(ud2, wasm_f64x2_add(ud2, wasm_f64x2_mul(wasm_f64x2_mul(weight, spread), spread)));
        /* clean(u, nu) / clean(d, nd). A twentieth of a side is positive (the side is at least 1e-20), so
           pmax (b < a ? a : b: the larger, NaN never arising) is Math.max. */
        const v128_t ratio = wasm_f64x2_div(wasm_f64x2_pmax(wasm_f64x2_sub(u, fnu), wasm_f64x2_mul(twentieth, u)),
                                            wasm_f64x2_pmax(wasm_f64x2_sub(d, fnd), wasm_f64x2_mul(twentieth, d)));
        /* log₂ of the ratio in cosine-table steps: its exponent (an integer made a double exactly: OR-ed
           into 2⁵²'s mantissa, then 2⁵² + 1023 subtracted) times the steps per octave, plus (next pass) its
           mantissa's first bits' log from the table, here their byte offset into it. */
        unit_e[2 * j + h] =
            wasm_f64x2_mul(wasm_f64x2_sub(wasm_v128_or(wasm_u64x2_shr(ratio, 52), magic_bits), magic_exponent), octave);
        unit_m[2 * j + h] = wasm_v128_and(wasm_u64x2_shr(ratio, 52 - MANTISSA_BITS - 3), mantissa_mask);
      }
    }
    /* The phase, to the cosine's byte offset: JavaScript's `(at + bias) & mask`; at + bias is positive
       and under 2³¹, so ToInt32 truncates, and the truncated value plus 2⁵² is exact and holds it in its
       low bits. */
    for (int j = 0; j < units_count; j++) {
      const v128_t dither = wasm_v128_load64_splat(units + 3 * j + 2);
      for (int h = 0; h < 2; h++) {
        const uint32_t *m = (const uint32_t *)&unit_m[2 * j + h];
        const v128_t logs = wasm_v128_load64_lane((const char *)mantissa + m[2],
                                                  wasm_v128_load64_splat((const char *)mantissa + m[0]), 1);
        const v128_t at = wasm_f64x2_sub(wasm_f64x2_add(unit_e[2 * j + h], logs), dither);
        unit_c[2 * j + h] =
            wasm_i64x2_shl(wasm_v128_and(wasm_f64x2_add(wasm_f64x2_trunc(wasm_f64x2_add(at, bias)), magic), cosine_mask), 3);
      }
    }
    /* Per pattern slot, its units' w·cos θ and w², added in order. */
    double *t0 = to_terms + staged[4 * p], *t1 = to_terms + staged[4 * p + 1], *t2 = to_terms + staged[4 * p + 2],
           *t3 = to_terms + staged[4 * p + 3];
    double *w0 = to_weights + staged[4 * p], *w1 = to_weights + staged[4 * p + 1], *w2 = to_weights + staged[4 * p + 2],
           *w3 = to_weights + staged[4 * p + 3];
    for (int q = 0; q < PERIOD; q++) {
      v128_t sum0 = wasm_f64x2_splat(0.0), norm0 = sum0, sum1 = sum0, norm1 = sum0;
      for (int j = first[q], end = first[q + 1]; j < end; j++) {
        const uint32_t *c0 = (const uint32_t *)&unit_c[2 * j], *c1 = (const uint32_t *)&unit_c[2 * j + 1];
        const v128_t wa = unit_w[2 * j], wb = unit_w[2 * j + 1];
        const v128_t cos0 = wasm_v128_load64_lane((const char *)cosine + c0[2], wasm_v128_load64_splat((const char *)cosine + c0[0]), 1);
        const v128_t cos1 = wasm_v128_load64_lane((const char *)cosine + c1[2], wasm_v128_load64_splat((const char *)cosine + c1[0]), 1);
        sum0 = wasm_f64x2_add(sum0, wasm_f64x2_mul(wa, cos0));
        norm0 = wasm_f64x2_add(norm0, wasm_f64x2_mul(wa, wa));
        sum1 = wasm_f64x2_add(sum1, wasm_f64x2_mul(wb, cos1));
        norm1 = wasm_f64x2_add(norm1, wasm_f64x2_mul(wb, wb));
      }
      /* A four's empty places (copies of its first slot) write over that slot's row with the same numbers. */
      t0[q] = wasm_f64x2_extract_lane(sum0, 0);
      t1[q] = wasm_f64x2_extract_lane(sum0, 1);
      t2[q] = wasm_f64x2_extract_lane(sum1, 0);
      t3[q] = wasm_f64x2_extract_lane(sum1, 1);
      w0[q] = wasm_f64x2_extract_lane(norm0, 0);
      w1[q] = wasm_f64x2_extract_lane(norm0, 1);
      w2[q] = wasm_f64x2_extract_lane(norm1, 0);
      w3[q] = wasm_f64x2_extract_lane(norm1, 1);
    }
  }
}

/* The grid's score at every pattern offset into `scores`, as coarse.ts's `score` sums them (slot by
   slot in order, each offset its own sum), over table `table`. */
EXPORT("offsetScores") void offset_scores(int slots, int table) {
  const double *from = table ? frame_terms : slot_terms, *from_weights = table ? frame_weights : slot_weights;
  double sums[PERIOD], norms[PERIOD];
  for (int o = 0; o < PERIOD; o++) sums[o] = norms[o] = 0;
  for (int k = 0; k < slots; k++) {
    if (!active[k]) continue;
    /* Offset o reads pattern slot k + o (mod PERIOD): two runs, before and after the wrap. */
    const double *t = from + rows[k], *w = from_weights + rows[k];
    const int wrap = PERIOD - k;
    for (int o = 0; o < wrap; o++) {
      sums[o] += t[k + o];
      norms[o] += w[k + o];
    }
    for (int o = wrap; o < PERIOD; o++) {
      sums[o] += t[k + o - PERIOD];
      norms[o] += w[k + o - PERIOD];
    }
  }
  for (int o = 0; o < PERIOD; o++) scores[o] = norms[o] > 0 ? sums[o] / __builtin_sqrt(norms[o] / 2) : 0;
}
