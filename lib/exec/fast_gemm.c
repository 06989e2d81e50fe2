/* fast_gemm.c - every BLAS gemm of the fast path goes through here.  A gemm,
 * a batch of them at fixed strides, or a sum of them into one output, is cut
 * into tiles of whole output blocks (chosen from the shape alone, never from
 * the thread count), and the exec's thread pool runs the tiles, each with one
 * single-threaded OpenBLAS call per product.  The library owns its threads:
 * OpenBLAS's own workers busy-wait (sched_yield) for a while after every
 * call and took the cores from the kernels that run between gemms (measured
 * on mobilenet_v2: a third of the process's CPU time was system time).
 * Every output element is computed by one call over the whole K, so the
 * result does not depend on the tiling or on the thread count. */
#include <cblas.h>

#include "exec/fast.h"

/* Below this many multiply-adds a gemm runs on the calling thread. */
#define GEMM_PAR_MIN ((int64_t)1 << 21)
/* Tile edge: large enough that re-packing the shared operand for every tile
 * costs a few percent, small enough for a few tiles per thread. */
#define GEMM_TILE 256

void hlo_fast_blas_threads(int n) { openblas_set_num_threads(n); }

/* Rows and columns per tile of one product of g. */
static void tile_of(const hlo_gemm *g, int64_t *rb, int64_t *cb) {
  *rb = g->M;
  *cb = g->N;
  int64_t sum = g->nsum > 0 ? g->nsum : 1;
  if ((double)g->M * (double)g->N * (double)g->K * (double)sum < (double)GEMM_PAR_MIN) return;
  if (g->M >= 2 * GEMM_TILE) {
    int64_t n = (g->M + GEMM_TILE - 1) / GEMM_TILE;
    *rb = ((g->M + n - 1) / n + 63) / 64 * 64;
  } else if (g->N >= 2 * GEMM_TILE) {
    int64_t n = (g->N + GEMM_TILE - 1) / GEMM_TILE;
    *cb = ((g->N + n - 1) / n + 63) / 64 * 64;
  } else if (g->M >= 128) {
    *rb = (g->M / 2 + 31) / 32 * 32;
  } else if (g->N >= 128) {
    *cb = (g->N / 2 + 31) / 32 * 32;
  }
}

static int64_t esize(int kind) {
  return kind == HLO_GEMM_S ? 4 : kind == HLO_GEMM_Z ? 16 : 8;
}

/* One product: C[m, n] (+)= alpha op(A) op(B), sizes and pointers final. */
static void gemm1(const hlo_gemm *g, int m, int n, const char *A, const char *B, bool acc,
                  char *C) {
  enum CBLAS_TRANSPOSE TA = g->ta ? CblasTrans : CblasNoTrans;
  enum CBLAS_TRANSPOSE TB = g->tb ? CblasTrans : CblasNoTrans;
  int K = (int)g->K, lda = (int)g->lda, ldb = (int)g->ldb, ldc = (int)g->ldc;
  switch (g->kind) {
  case HLO_GEMM_S:
    cblas_sgemm(CblasRowMajor, TA, TB, m, n, K, (float)g->alpha, (const float *)A, lda,
                (const float *)B, ldb, acc ? 1.0f : 0.0f, (float *)C, ldc);
    break;
  case HLO_GEMM_D:
    cblas_dgemm(CblasRowMajor, TA, TB, m, n, K, g->alpha, (const double *)A, lda,
                (const double *)B, ldb, acc ? 1.0 : 0.0, (double *)C, ldc);
    break;
  case HLO_GEMM_C: {
    const float al[2] = {(float)g->alpha, 0}, be[2] = {acc ? 1.0f : 0.0f, 0};
    cblas_cgemm(CblasRowMajor, TA, TB, m, n, K, al, A, lda, B, ldb, be, C, ldc);
    break;
  }
  default: {
    const double al[2] = {g->alpha, 0}, be[2] = {acc ? 1.0 : 0.0, 0};
    cblas_zgemm(CblasRowMajor, TA, TB, m, n, K, al, A, lda, B, ldb, be, C, ldc);
    break;
  }
  }
}

typedef struct gemm_job {
  const hlo_gemm *g;
  int64_t rb, cb, tr, tc; /* tile size, tiles per row and column of one product */
  int64_t parts, per;     /* the sum in `parts` runs of `per` terms */
  char *part;             /* runs 1..parts-1 of each batch element, [M, N] each */
} gemm_job;

/* Item i: tile t of batch element b, terms of run q of the sum (run 0 into
 * C itself, the others into their own part of j->part). */
static void gemm_tile(void *ctx, int64_t i) {
  const gemm_job *j = ctx;
  const hlo_gemm *g = j->g;
  int64_t es = esize(g->kind), per = j->tr * j->tc * j->parts;
  int64_t b = i / per, t = i % per / j->parts, q = i % j->parts;
  int64_t m0 = t / j->tc * j->rb, n0 = t % j->tc * j->cb;
  int64_t m = g->M - m0 < j->rb ? g->M - m0 : j->rb, n = g->N - n0 < j->cb ? g->N - n0 : j->cb;
  int64_t sum = g->nsum > 0 ? g->nsum : 1, k0 = q * j->per, k1 = k0 + j->per < sum ? k0 + j->per : sum;
  const char *A = (const char *)g->A + (b * g->sa + (g->ta ? m0 : m0 * g->lda)) * es;
  const char *B = (const char *)g->B + (b * g->sb + (g->tb ? n0 * g->ldb : n0)) * es;
  char *C = (char *)g->C + (b * g->sc + m0 * g->ldc + n0) * es;
  hlo_gemm h = *g;
  if (q > 0) { /* a run of its own: [M, N] at pitch N */
    C = j->part + ((b * (j->parts - 1) + q - 1) * g->M * g->N + m0 * g->N + n0) * es;
    h.ldc = g->N;
  }
  for (int64_t k = k0; k < k1; k++)
    gemm1(&h, (int)m, (int)n, A + k * g->ua * es, B + k * g->ub * es, (q == 0 && g->acc) || k > k0,
          C);
}

/* C_b += each run's part, in run order (real and imaginary parts alike). */
static void add_parts(const gemm_job *j) {
  const hlo_gemm *g = j->g;
  int64_t nb = g->nbatch > 0 ? g->nbatch : 1, w = g->kind == HLO_GEMM_C || g->kind == HLO_GEMM_Z ? 2 : 1;
  bool dbl = g->kind == HLO_GEMM_D || g->kind == HLO_GEMM_Z;
  for (int64_t b = 0; b < nb; b++)
    for (int64_t q = 1; q < j->parts; q++) {
      int64_t po = (b * (j->parts - 1) + q - 1) * g->M * g->N * w;
      for (int64_t m = 0; m < g->M; m++) {
        int64_t co = (b * g->sc + m * g->ldc) * w, ro = po + m * g->N * w;
        if (dbl)
          for (int64_t x = 0; x < g->N * w; x++) ((double *)g->C)[co + x] += ((double *)j->part)[ro + x];
        else
          for (int64_t x = 0; x < g->N * w; x++) ((float *)g->C)[co + x] += ((float *)j->part)[ro + x];
      }
    }
}

/* A sum of products whose output is a few tiles (a weight gradient: small
 * [M, N], long K, many terms) is split into runs of terms, added in order
 * at the end: the split, like the tiles, follows from the shape alone, with
 * or without threads. */
#define GEMM_SUM_PARTS 8
#define GEMM_PART_BYTES ((int64_t)64 << 20)

int hlo_fast_gemm(hlo_fast_pool *pool, const hlo_gemm *g) {
  int64_t nb = g->nbatch > 0 ? g->nbatch : 1, sum = g->nsum > 0 ? g->nsum : 1;
  if (g->M <= 0 || g->N <= 0) return HLO_OK;
  gemm_job j = {g, 0, 0, 0, 0, 1, sum, NULL};
  tile_of(g, &j.rb, &j.cb);
  j.tr = (g->M + j.rb - 1) / j.rb;
  j.tc = (g->N + j.cb - 1) / j.cb;
  double work = (double)g->M * (double)g->N * (double)g->K * (double)sum * (double)nb; /* no overflow */
  if (g->split_sum && work >= GEMM_PAR_MIN && nb * j.tr * j.tc < 4 && sum >= 2 * GEMM_SUM_PARTS) {
    j.per = (sum + GEMM_SUM_PARTS - 1) / GEMM_SUM_PARTS;
    j.parts = (sum + j.per - 1) / j.per;
    int64_t bytes = nb * (j.parts - 1) * g->M * g->N * esize(g->kind);
    if (bytes > GEMM_PART_BYTES) {
      j.parts = 1;
      j.per = sum;
    } else if (!(j.part = hlo_malloc(g->alloc, (size_t)bytes))) {
      return HLO_ERR;
    }
  }
  hlo_fast_parallel(work >= GEMM_PAR_MIN ? pool : NULL, nb * j.tr * j.tc * j.parts, gemm_tile, &j);
  if (j.part) {
    add_parts(&j);
    hlo_free(g->alloc, j.part);
  }
  return HLO_OK;
}
