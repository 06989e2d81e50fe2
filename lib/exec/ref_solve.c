/* ref_solve.c - reference fft (FFT, IFFT, RFFT, IRFFT over up to three
 * innermost axes, a direct DFT in complex double), triangular-solve,
 * cholesky and the three batch-norm ops.  Matrices are batched over the
 * leading dimensions. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "exec/bn_lanes.h"
#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

static double complex ldc(const hlo_val *v, int64_t k) {
  hlo_sc x = hlo_sc_load(v->shape->type, v->data, k);
  return CMPLX(x.f, x.im);
}
static void stc(hlo_val *v, int64_t k, double complex z) {
  hlo_sc x = {creal(z), cimag(z), 0};
  hlo_sc_store(v->shape->type, v->data, k, x);
}

/* In-place DFT of buf along axis ax of a row-major array with dims. */
static int dft_axis(hlo_run *r, double complex *buf, int rank, const int64_t *dims, int ax,
                    bool inverse) {
  int64_t n = dims[ax], st[MAXR], acc = 1;
  for (int d = rank - 1; d >= 0; d--) { st[d] = acc; acc *= dims[d]; }
  if (n <= 1) return HLO_OK;
  double complex *tmp = hlo_malloc(r->alloc, sizeof(double complex) * (size_t)n);
  if (!tmp) return HLO_ERR;
  int64_t total = acc, lines = total / n;
  int64_t idx[MAXR] = {0}, odims[MAXR];
  memcpy(odims, dims, sizeof(int64_t) * (size_t)rank);
  odims[ax] = 1;
  double sign = inverse ? 1.0 : -1.0;
  for (int64_t l = 0; l < lines; l++) {
    int64_t base = 0;
    for (int d = 0; d < rank; d++) base += idx[d] * st[d];
    for (int64_t k = 0; k < n; k++) {
      double complex sum = 0;
      for (int64_t t = 0; t < n; t++) {
        double ang = sign * 2.0 * M_PI * (double)((k * t) % n) / (double)n;
        sum += buf[base + t * st[ax]] * CMPLX(cos(ang), sin(ang));
      }
      tmp[k] = inverse ? sum / (double)n : sum;
    }
    for (int64_t k = 0; k < n; k++) buf[base + k * st[ax]] = tmp[k];
    hlo_index_next(rank, odims, idx);
  }
  hlo_free(r->alloc, tmp);
  return HLO_OK;
}

DECL_KERN(hlo_ref_fft) {
  const hlo_instruction *in = s->in;
  const char *ty = hlo_instr_word(in, HLO_A_FFT_TYPE);
  int nl;
  const int64_t *len = hlo_instr_ints(in, HLO_A_FFT_LENGTH, &nl);
  const hlo_shape *is = args[0]->shape, *os = &in->shape;
  if (!ty || !len || nl < 1 || nl > 3 || nl > is->rank || is->rank != os->rank)
    return hlo_run_errorf(r, in, "needs fft_type= and fft_length= (1 to 3 axes)");
  int kind = strcmp(ty, "FFT") == 0 ? 0 : strcmp(ty, "IFFT") == 0 ? 1
           : strcmp(ty, "RFFT") == 0 ? 2 : strcmp(ty, "IRFFT") == 0 ? 3 : -1;
  if (kind < 0) return hlo_run_errorf(r, in, "unknown fft_type %s", ty);
  int rank = is->rank;
  /* working dims: the logical signal sizes (fft_length) on the fft axes */
  int64_t wd[MAXR], total = 1;
  for (int d = 0; d < rank; d++) {
    wd[d] = d >= rank - nl ? len[d - (rank - nl)] : is->dims[d];
    if (d < rank - nl && is->dims[d] != os->dims[d])
      return hlo_run_errorf(r, in, "batch dims differ");
    if (wd[d] < 0) return hlo_run_errorf(r, in, "fft_length %lld is negative", (long long)wd[d]);
    total *= wd[d];
  }
  /* as XLA's evaluator: fft_length is not tied to the operand or result
     sizes; the operand is zero-padded or truncated to it, result positions
     at or past it are 0, and a zero length leaves the whole result 0 */
  double complex *buf = hlo_malloc(r->alloc, sizeof(double complex) * (size_t)(total ? total : 1));
  if (!buf) return OOM(r, s);
  /* load: copy the operand into the working array (IRFFT: Hermitian
   * extension of the last axis) */
  int64_t wi[MAXR] = {0}, ist[MAXR];
  hlo_strides(is, ist);
  for (int64_t k = 0; k < total; k++) {
    int64_t ii[MAXR];
    bool conj_ = false, ok = true;
    memcpy(ii, wi, sizeof(int64_t) * (size_t)rank);
    if (kind == 3) {
      int64_t n = wd[rank - 1], m = is->dims[rank - 1];
      if (ii[rank - 1] >= m) {
        ii[rank - 1] = n - ii[rank - 1];
        conj_ = true;
        for (int d = rank - nl; d < rank - 1; d++) ii[d] = (wd[d] - ii[d]) % wd[d];
      }
    }
    for (int d = 0; d < rank; d++) if (ii[d] >= is->dims[d]) ok = false;
    double complex z = ok ? ldc(args[0], hlo_index_dot(rank, ii, ist)) : 0;
    buf[k] = conj_ ? conj(z) : z;
    hlo_index_next(rank, wd, wi);
  }
  int rc = HLO_OK;
  for (int a = rank - 1; a >= rank - nl && rc == HLO_OK && total > 0; a--)
    rc = dft_axis(r, buf, rank, wd, a, kind == 1 || kind == 3);
  if (rc) { hlo_free(r->alloc, buf); return OOM(r, s); }
  hlo_val *o = hlo_run_new(r, os);
  if (!o) { hlo_free(r->alloc, buf); return OOM(r, s); }
  int64_t wst[MAXR], oi[MAXR] = {0};
  hlo_strides(is, wst); /* placeholder, recomputed below */
  int64_t acc = 1;
  for (int d = rank - 1; d >= 0; d--) { wst[d] = acc; acc *= wd[d]; }
  for (int64_t k = 0; k < o->nelems; k++) {
    bool inside = total > 0;
    for (int d = 0; d < rank; d++) inside &= oi[d] < wd[d];
    stc(o, k, inside ? buf[hlo_index_dot(rank, oi, wst)] : 0);
    hlo_index_next(rank, os->dims, oi);
  }
  hlo_free(r->alloc, buf);
  *out = o;
  return HLO_OK;
}

/* ---- triangular solve ------------------------------------------------------ */
DECL_KERN(hlo_ref_triangular_solve) {
  const hlo_instruction *in = s->in;
  const hlo_shape *as = args[0]->shape, *bs = args[1]->shape;
  bool left = hlo_instr_bool(in, HLO_A_LEFT_SIDE, false);
  bool lower = hlo_instr_bool(in, HLO_A_LOWER, false);
  bool unit = hlo_instr_bool(in, HLO_A_UNIT_DIAGONAL, false);
  const char *tr = hlo_instr_word(in, HLO_A_TRANSPOSE_A);
  int tmode = !tr || strcmp(tr, "NO_TRANSPOSE") == 0 ? 0 : strcmp(tr, "TRANSPOSE") == 0 ? 1 : 2;
  int rk = as->rank;
  if (rk < 2 || bs->rank != rk) return hlo_run_errorf(r, in, "operands must be [...,M,M], [...,M,K]");
  int64_t M = as->dims[rk - 1];
  int64_t R = bs->dims[rk - 2], C = bs->dims[rk - 1];
  if (as->dims[rk - 2] != M || (left ? R : C) != M) return hlo_run_errorf(r, in, "size mismatch");
  int64_t batch = M ? args[0]->nelems / (M * M) : 0;
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  double complex *A = hlo_malloc(r->alloc, sizeof(double complex) * (size_t)(M * M + 1));
  double complex *X = hlo_malloc(r->alloc, sizeof(double complex) * (size_t)(R * C + 1));
  if (!A || !X) {
    hlo_free(r->alloc, A); hlo_free(r->alloc, X); hlo_run_release(r, o);
    return OOM(r, s);
  }
  /* op(a) with the unread triangle as zero; its triangle flips if transposed */
  bool olower = tmode ? !lower : lower;
  for (int64_t b = 0; b < batch; b++) {
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < M; j++) {
        int64_t si = tmode ? j : i, sj = tmode ? i : j; /* element of a */
        bool inside = lower ? sj <= si : sj >= si;
        double complex v = inside ? ldc(args[0], b * M * M + si * M + sj) : 0;
        if (tmode == 2) v = conj(v);
        if (i == j && unit) v = 1;
        A[i * M + j] = v;
      }
    for (int64_t k = 0; k < R * C; k++) X[k] = ldc(args[1], b * R * C + k);
    if (left) { /* A X = B, column by column */
      for (int64_t c = 0; c < C; c++) {
        for (int64_t t = 0; t < M; t++) {
          int64_t i = olower ? t : M - 1 - t;
          double complex sum = X[i * C + c];
          for (int64_t j = 0; j < M; j++)
            if (olower ? j < i : j > i) sum -= A[i * M + j] * X[j * C + c];
          X[i * C + c] = sum / A[i * M + i];
        }
      }
    } else { /* X A = B, row by row: x[j] depends on x[m] with A[m][j] != 0 */
      for (int64_t rr = 0; rr < R; rr++) {
        for (int64_t t = 0; t < M; t++) {
          int64_t j = olower ? M - 1 - t : t;
          double complex sum = X[rr * C + j];
          for (int64_t m = 0; m < M; m++)
            if (olower ? m > j : m < j) sum -= X[rr * C + m] * A[m * M + j];
          X[rr * C + j] = sum / A[j * M + j];
        }
      }
    }
    for (int64_t k = 0; k < R * C; k++) stc(o, b * R * C + k, X[k]);
  }
  hlo_free(r->alloc, A);
  hlo_free(r->alloc, X);
  *out = o;
  return HLO_OK;
}

/* cholesky: lower=true gives L with a = L L^H from a's lower triangle;
 * otherwise U with a = U^H U from the upper triangle.  The other triangle of
 * the result is zero. */
DECL_KERN(hlo_ref_cholesky) {
  const hlo_instruction *in = s->in;
  const hlo_shape *as = args[0]->shape;
  bool lower = hlo_instr_bool(in, HLO_A_LOWER, false);
  int rk = as->rank;
  if (rk < 2 || as->dims[rk - 1] != as->dims[rk - 2]) return hlo_run_errorf(r, in, "needs [...,N,N]");
  int64_t N = as->dims[rk - 1], batch = N ? args[0]->nelems / (N * N) : 0;
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  double complex *L = hlo_malloc(r->alloc, sizeof(double complex) * (size_t)(N * N + 1));
  if (!L) { hlo_run_release(r, o); return OOM(r, s); }
  for (int64_t b = 0; b < batch; b++) {
    int64_t base = b * N * N;
    memset(L, 0, sizeof(double complex) * (size_t)(N * N));
    for (int64_t j = 0; j < N; j++) {
      for (int64_t i = j; i < N; i++) {
        /* a[i][j] of the lower form */
        double complex aij = lower ? ldc(args[0], base + i * N + j) : conj(ldc(args[0], base + j * N + i));
        double complex sum = aij;
        for (int64_t k = 0; k < j; k++) sum -= L[i * N + k] * conj(L[j * N + k]);
        if (i == j) L[j * N + j] = csqrt(CMPLX(creal(sum), 0)) ;
        else L[i * N + j] = sum / L[j * N + j];
      }
      if (!(creal(L[j * N + j]) > 0)) { /* not positive definite */
        for (int64_t i = j; i < N; i++) L[i * N + j] = NAN;
      }
    }
    for (int64_t i = 0; i < N; i++)
      for (int64_t j = 0; j < N; j++)
        stc(o, base + i * N + j, lower ? L[i * N + j] : conj(L[j * N + i]));
  }
  hlo_free(r->alloc, L);
  *out = o;
  return HLO_OK;
}

/* ---- batch norm (sums in the order of bn_lanes.h) ----------------------------- */
typedef struct bn_geom { int64_t F, inner, outer, m; } bn_geom;

static int bn_geom_of(hlo_run *r, const plan_step *s, const hlo_shape *x, bn_geom *g) {
  int64_t fi = hlo_instr_int(s->in, HLO_A_FEATURE_INDEX, -1);
  if (fi < 0 || fi >= x->rank) return hlo_run_errorf(r, s->in, "bad feature_index");
  g->F = x->dims[fi];
  g->inner = 1;
  g->outer = 1;
  for (int d = 0; d < x->rank; d++) {
    if (d < fi) g->outer *= x->dims[d];
    if (d > fi) g->inner *= x->dims[d];
  }
  g->m = g->inner * g->outer;
  return HLO_OK;
}

#define BN_IDX(g, o, f, i) (((o) * (g).F + (f)) * (g).inner + (i))

static double ldf(const hlo_val *v, int64_t k) { return hlo_sc_load(v->shape->type, v->data, k).f; }
static void stf(hlo_val *v, int64_t k, double x) {
  hlo_sc y = {x, 0, 0};
  hlo_sc_store(v->shape->type, v->data, k, y);
}

DECL_KERN(hlo_ref_batch_norm_training) {
  bn_geom g;
  if (bn_geom_of(r, s, args[0]->shape, &g)) return HLO_ERR;
  double eps = 0;
  const hlo_attr *ea = hlo_instr_attr(s->in, HLO_A_EPSILON);
  if (ea) eps = ea->u.f;
  hlo_val *o = hlo_run_new(r, &s->in->shape);
  if (!o) return OOM(r, s);
  if (o->ntuple != 3) { hlo_run_release(r, o); return hlo_run_errorf(r, s->in, "needs a 3-tuple result"); }
  for (int64_t f = 0; f < g.F; f++) {
    double acc[BN_LANES] = {0}, acc2[BN_LANES] = {0};
    for (int64_t a = 0; a < g.outer; a++)
      for (int64_t i = 0; i < g.inner; i++) acc[i % BN_LANES] += ldf(args[0], BN_IDX(g, a, f, i));
    /* an empty batch gives 0/0: NaN mean and variance, as XLA's expansion */
    double mean = bn_lanes_total(acc) / (double)g.m;
    for (int64_t a = 0; a < g.outer; a++)
      for (int64_t i = 0; i < g.inner; i++) {
        double d = ldf(args[0], BN_IDX(g, a, f, i)) - mean;
        acc2[i % BN_LANES] += d * d;
      }
    double sq = bn_lanes_total(acc2);
    double var = sq / (double)g.m;
    double sc = ldf(args[1], f), off = ldf(args[2], f), inv = 1.0 / sqrt(var + eps);
    for (int64_t a = 0; a < g.outer; a++)
      for (int64_t i = 0; i < g.inner; i++) {
        int64_t k = BN_IDX(g, a, f, i);
        stf(o->tuple[0], k, (ldf(args[0], k) - mean) * inv * sc + off);
      }
    stf(o->tuple[1], f, mean);
    stf(o->tuple[2], f, var);
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_batch_norm_inference) {
  bn_geom g;
  if (bn_geom_of(r, s, args[0]->shape, &g)) return HLO_ERR;
  const hlo_attr *ea = hlo_instr_attr(s->in, HLO_A_EPSILON);
  double eps = ea ? ea->u.f : 0;
  hlo_val *o = hlo_run_new(r, &s->in->shape);
  if (!o) return OOM(r, s);
  for (int64_t f = 0; f < g.F; f++) {
    double sc = ldf(args[1], f), off = ldf(args[2], f), mean = ldf(args[3], f);
    double inv = 1.0 / sqrt(ldf(args[4], f) + eps);
    for (int64_t a = 0; a < g.outer; a++)
      for (int64_t i = 0; i < g.inner; i++) {
        int64_t k = BN_IDX(g, a, f, i);
        stf(o, k, (ldf(args[0], k) - mean) * inv * sc + off);
      }
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_batch_norm_grad) {
  bn_geom g;
  if (bn_geom_of(r, s, args[0]->shape, &g)) return HLO_ERR;
  const hlo_attr *ea = hlo_instr_attr(s->in, HLO_A_EPSILON);
  double eps = ea ? ea->u.f : 0;
  hlo_val *o = hlo_run_new(r, &s->in->shape);
  if (!o) return OOM(r, s);
  if (o->ntuple != 3) { hlo_run_release(r, o); return hlo_run_errorf(r, s->in, "needs a 3-tuple result"); }
  for (int64_t f = 0; f < g.F; f++) {
    double sc = ldf(args[1], f), mean = ldf(args[2], f), var = ldf(args[3], f);
    double inv = 1.0 / sqrt(var + eps), ady[BN_LANES] = {0}, adyx[BN_LANES] = {0};
    for (int64_t a = 0; a < g.outer; a++)
      for (int64_t i = 0; i < g.inner; i++) {
        int64_t k = BN_IDX(g, a, f, i);
        double dy = ldf(args[4], k), xc = ldf(args[0], k) - mean;
        ady[i % BN_LANES] += dy;
        adyx[i % BN_LANES] += dy * xc;
      }
    double sdy = bn_lanes_total(ady), sdyx = bn_lanes_total(adyx);
    double m = (double)g.m, mdy = sdy / m, kx = sdyx / (m * (var + eps)), si = sc * inv;
    for (int64_t a = 0; a < g.outer; a++)
      for (int64_t i = 0; i < g.inner; i++) {
        int64_t k = BN_IDX(g, a, f, i);
        double dy = ldf(args[4], k), xc = ldf(args[0], k) - mean;
        double dx = si * (dy - mdy - xc * kx);
        stf(o->tuple[0], k, dx);
      }
    stf(o->tuple[1], f, sdyx * inv);
    stf(o->tuple[2], f, sdy);
  }
  *out = o;
  return HLO_OK;
}
