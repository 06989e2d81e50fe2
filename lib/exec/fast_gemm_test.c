/* fast_gemm_test.c - hlo_fast_gemm (fast_gemm.c): every element kind,
 * transposes, batches, sums of products, accumulation and alpha, on shapes
 * that are one tile, many row or column tiles, and sums split into runs.
 * Operands are small integers, so every product and sum is exact in each
 * kind and the result must equal a plain triple loop in int64 exactly;
 * then random floats must give the same bits on 1, 2 and 3 threads. */
#include <stdint.h>

#include "exec/fast.h"
#include "testing.h"

static uint64_t seed = 88172645463325252ull;
static int64_t small_int(void) {
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return (int64_t)(seed % 7) - 3;
}

typedef struct gcase {
  int kind;
  bool ta, tb, acc;
  int64_t M, N, K, nbatch, nsum;
  double alpha;
} gcase;

static int64_t esz(int kind) { return kind == HLO_GEMM_S ? 4 : kind == HLO_GEMM_Z ? 16 : 8; }
static int64_t width(int kind) { return kind == HLO_GEMM_C || kind == HLO_GEMM_Z ? 2 : 1; }
static bool dbl(int kind) { return kind == HLO_GEMM_D || kind == HLO_GEMM_Z; }

static void put(int kind, void *p, int64_t i, double v) {
  if (dbl(kind)) ((double *)p)[i] = v;
  else ((float *)p)[i] = (float)v;
}
static double get(int kind, const void *p, int64_t i) {
  return dbl(kind) ? ((const double *)p)[i] : ((const float *)p)[i];
}

/* The operands of c laid out as the gemm reads them: per batch element b
 * and term k, A is [M, K] (or [K, M] when ta) at b * sa + k * ua. */
typedef struct layout { int64_t nb, ns, lda, ldb, ldc, sa, sb, sc, ua, ub, na, nb_, nc; } layout;
static layout layout_of(const gcase *c) {
  layout l;
  l.nb = c->nbatch > 0 ? c->nbatch : 1;
  l.ns = c->nsum > 0 ? c->nsum : 1;
  l.lda = (c->ta ? c->M : c->K) + 1; /* padded leading dimensions */
  l.ldb = (c->tb ? c->K : c->N) + 2;
  l.ldc = c->N + 3;
  int64_t ra = c->ta ? c->K : c->M, rb = c->tb ? c->N : c->K;
  l.ua = ra * l.lda;
  l.ub = rb * l.ldb;
  l.sa = l.ns * l.ua;
  l.sb = l.ns * l.ub;
  l.sc = c->M * l.ldc;
  l.na = l.nb * l.sa;
  l.nb_ = l.nb * l.sb;
  l.nc = l.nb * l.sc;
  return l;
}

static hlo_gemm gemm_of(const gcase *c, const layout *l, const void *A, const void *B, void *C) {
  hlo_gemm g = {.kind = c->kind, .ta = c->ta, .tb = c->tb, .acc = c->acc, .M = c->M, .N = c->N,
                .K = c->K, .alpha = c->alpha, .A = A, .B = B, .C = C, .lda = l->lda,
                .ldb = l->ldb, .ldc = l->ldc, .nbatch = c->nbatch, .sa = l->sa, .sb = l->sb,
                .sc = l->sc, .nsum = c->nsum, .ua = l->ua, .ub = l->ub};
  return g;
}

/* Exact check of case c on pool (alloc lets the sum be split). */
static void exact_case(int line, const gcase *c, hlo_fast_pool *pool, bool split) {
  layout l = layout_of(c);
  int64_t w = width(c->kind), es = esz(c->kind) / w;
  void *A = calloc((size_t)(l.na * w), (size_t)es), *B = calloc((size_t)(l.nb_ * w), (size_t)es);
  void *C = calloc((size_t)(l.nc * w), (size_t)es);
  int64_t *want = calloc((size_t)(l.nc * w), sizeof *want);
  if (!A || !B || !C || !want) {
    t_fail++;
    printf("fast_gemm_test.c:%d: out of memory\n", line);
    goto done;
  }
  for (int64_t i = 0; i < l.na * w; i++) put(c->kind, A, i, (double)small_int());
  for (int64_t i = 0; i < l.nb_ * w; i++) put(c->kind, B, i, (double)small_int());
  for (int64_t i = 0; i < l.nc * w; i++) {
    int64_t v = small_int();
    put(c->kind, C, i, (double)v);
    want[i] = c->acc ? v : 0;
  }
  int64_t al = (int64_t)c->alpha;
  for (int64_t b = 0; b < l.nb; b++)
    for (int64_t m = 0; m < c->M; m++)
      for (int64_t n = 0; n < c->N; n++) {
        int64_t re = 0, im = 0;
        for (int64_t k = 0; k < l.ns; k++)
          for (int64_t q = 0; q < c->K; q++) {
            int64_t ai = b * l.sa + k * l.ua + (c->ta ? q * l.lda + m : m * l.lda + q);
            int64_t bi = b * l.sb + k * l.ub + (c->tb ? n * l.ldb + q : q * l.ldb + n);
            int64_t ar = (int64_t)get(c->kind, A, ai * w), br = (int64_t)get(c->kind, B, bi * w);
            if (w == 1) {
              re += ar * br;
            } else {
              int64_t ai2 = (int64_t)get(c->kind, A, ai * 2 + 1);
              int64_t bi2 = (int64_t)get(c->kind, B, bi * 2 + 1);
              re += ar * br - ai2 * bi2;
              im += ar * bi2 + ai2 * br;
            }
          }
        int64_t ci = (b * l.sc + m * l.ldc + n) * w;
        want[ci] += al * re;
        if (w == 2) want[ci + 1] += al * im;
      }
  hlo_gemm g = gemm_of(c, &l, A, B, C);
  g.split_sum = split;
  hlo_fast_gemm(pool, &g);
  int64_t bad = 0, first = -1;
  for (int64_t b = 0; b < l.nb; b++)
    for (int64_t m = 0; m < c->M; m++)
      for (int64_t n = 0; n < c->N * w; n++) {
        int64_t i = (b * l.sc + m * l.ldc) * w + n;
        if (get(c->kind, C, i) != (double)want[i]) {
          if (first < 0) first = i;
          bad++;
        }
      }
  if (bad) {
    t_fail++;
    printf("fast_gemm_test.c:%d: %lld of the results differ, first at %lld: expected %lld got %g\n",
           line, (long long)bad, (long long)first, (long long)want[first],
           get(c->kind, C, first));
  } else {
    t_pass++;
  }
done:
  free(A);
  free(B);
  free(C);
  free(want);
}

/* Random floats: the same bits without a pool and on pools of 2 and 3. */
static void threads_case(int line, const gcase *c, hlo_fast_pool *p2, hlo_fast_pool *p3) {
  layout l = layout_of(c);
  int64_t w = width(c->kind), es = esz(c->kind) / w;
  size_t cb = (size_t)(l.nc * w * es);
  void *A = malloc((size_t)(l.na * w * es)), *B = malloc((size_t)(l.nb_ * w * es));
  void *C[3] = {malloc(cb), malloc(cb), malloc(cb)};
  if (!A || !B || !C[0] || !C[1] || !C[2]) {
    t_fail++;
    printf("fast_gemm_test.c:%d: out of memory\n", line);
  } else {
    for (int64_t i = 0; i < l.na * w; i++) put(c->kind, A, i, (double)small_int() / 3.0);
    for (int64_t i = 0; i < l.nb_ * w; i++) put(c->kind, B, i, (double)small_int() / 7.0);
    for (int64_t i = 0; i < l.nc * w; i++) put(c->kind, C[0], i, (double)small_int() / 5.0);
    memcpy(C[1], C[0], cb);
    memcpy(C[2], C[0], cb);
    hlo_fast_pool *pools[3] = {NULL, p2, p3};
    for (int t = 0; t < 3; t++) {
      hlo_gemm g = gemm_of(c, &l, A, B, C[t]);
      g.split_sum = true;
      hlo_fast_gemm(pools[t], &g);
    }
    bool same = memcmp(C[0], C[1], cb) == 0 && memcmp(C[0], C[2], cb) == 0;
    if (same) t_pass++;
    else {
      t_fail++;
      printf("fast_gemm_test.c:%d: results differ between thread counts\n", line);
    }
  }
  free(A);
  free(B);
  for (int t = 0; t < 3; t++) free(C[t]);
}

int main(void) {
  hlo_fast_pool *p2 = hlo_fast_pool_new(2, NULL);
  hlo_fast_pool *p3 = hlo_fast_pool_new(3, NULL);
  static const gcase cases[] = {
    /* one tile, every kind and transpose */
    {HLO_GEMM_S, false, false, false, 7, 5, 3, 0, 0, 1},
    {HLO_GEMM_D, true, false, true, 6, 9, 4, 0, 0, 2},
    {HLO_GEMM_C, false, true, false, 5, 4, 6, 0, 0, 1},
    {HLO_GEMM_Z, true, true, true, 3, 8, 5, 0, 0, 3},
    /* row tiles (M >= 512), column tiles (N >= 512), halves */
    {HLO_GEMM_S, false, false, false, 1100, 70, 40, 0, 0, 1},
    {HLO_GEMM_S, true, true, true, 60, 1300, 30, 0, 0, 1},
    {HLO_GEMM_D, false, true, false, 300, 200, 50, 0, 0, 2},
    {HLO_GEMM_S, true, false, false, 40, 300, 200, 0, 0, 1},
    {HLO_GEMM_C, false, false, true, 600, 40, 50, 0, 0, 1},
    /* batches of products, tiled and not */
    {HLO_GEMM_S, false, false, false, 33, 17, 9, 12, 0, 1},
    {HLO_GEMM_D, true, true, true, 200, 150, 80, 3, 0, 1},
    /* sums of products into a small output: split into runs */
    {HLO_GEMM_S, false, true, false, 6, 5, 3000, 0, 64, 1},
    {HLO_GEMM_D, true, false, true, 9, 4, 2000, 0, 37, 2},
    {HLO_GEMM_Z, false, true, false, 3, 5, 1500, 0, 40, 1},
    {HLO_GEMM_S, false, false, true, 7, 3, 1200, 2, 50, 1},
    /* sums with tiles */
    {HLO_GEMM_S, false, true, false, 520, 20, 30, 0, 5, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    exact_case(__LINE__, &cases[i], NULL, false);
    exact_case(__LINE__, &cases[i], p2, false);
    exact_case(__LINE__, &cases[i], p3, true);
    threads_case(__LINE__, &cases[i], p2, p3);
  }
  hlo_fast_pool_free(p2);
  hlo_fast_pool_free(p3);
  TEST_MAIN_END("fast_gemm");
}
