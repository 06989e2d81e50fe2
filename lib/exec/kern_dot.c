/* kern_dot.c - fast dot and convolution for f32 and f64 (same operand and
 * result type).  Dot packs both operands into [batch, M, K] and [batch, K, N]
 * and runs an i-k-j loop with a double accumulator row; convolution walks
 * the window with precomputed strides and a contiguous inner loop over input
 * features.  Accumulation is in double, as in the reference (the order of
 * the additions differs, so results agree to rounding, not bit for bit). */
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

bool hlo_fast_dot_loop_ok(const hlo_instruction *in) {
  hlo_type t = in->shape.type;
  return (t == HLO_F32 || t == HLO_F64) && in->noperands == 2 &&
         in->operands[0]->shape.type == t && in->operands[1]->shape.type == t;
}

bool hlo_fast_conv_loop_ok(const hlo_instruction *in) {
  if (!hlo_fast_dot_loop_ok(in)) return false;
  const hlo_attr *w = hlo_instr_attr(in, HLO_A_WINDOW);
  for (int d = 0; w && d < w->u.window.n; d++)
    if (w->u.window.dims[d].reversal) return false;
  return hlo_instr_attr(in, HLO_A_DIM_LABELS) != NULL;
}

/* Gather operand v into a packed [B, P, Q] array of doubles: dims bd (batch),
 * pd (rows), qd (cols). */
static void pack(const hlo_val *v, int nb, const int64_t *bd, int np, const int64_t *pd,
                 int nq, const int64_t *qd, double *dst) {
  const hlo_shape *s = v->shape;
  int64_t st[MAXR], dims[MAXR], map[MAXR], idx[MAXR] = {0};
  hlo_strides(s, st);
  int n = 0;
  for (int i = 0; i < nb; i++) { map[n] = st[bd[i]]; dims[n++] = s->dims[bd[i]]; }
  for (int i = 0; i < np; i++) { map[n] = st[pd[i]]; dims[n++] = s->dims[pd[i]]; }
  for (int i = 0; i < nq; i++) { map[n] = st[qd[i]]; dims[n++] = s->dims[qd[i]]; }
  int64_t total = v->nelems;
  bool f32 = s->type == HLO_F32;
  for (int64_t k = 0; k < total; k++) {
    int64_t off = hlo_index_dot(n, idx, map);
    dst[k] = f32 ? ((const float *)v->data)[off] : ((const double *)v->data)[off];
    hlo_index_next(n, dims, idx);
  }
}

bool hlo_dot_lists_of(const hlo_instruction *in, hlo_dot_lists *d) {
  int nlb, nlc, nrb, nrc;
  d->lb = hlo_instr_ints(in, HLO_A_LHS_BATCH_DIMS, &nlb);
  d->lc = hlo_instr_ints(in, HLO_A_LHS_CONTRACTING_DIMS, &nlc);
  d->rb = hlo_instr_ints(in, HLO_A_RHS_BATCH_DIMS, &nrb);
  d->rc = hlo_instr_ints(in, HLO_A_RHS_CONTRACTING_DIMS, &nrc);
  if (!d->lb) nlb = 0;
  if (!d->lc) nlc = 0;
  if (!d->rb) nrb = 0;
  if (!d->rc) nrc = 0;
  d->nb = nlb;
  d->nc = nlc;
  return nlb == nrb && nlc == nrc;
}

DECL_KERN(hlo_fast_dot_loop) {
  const hlo_instruction *in = s->in;
  const hlo_shape *ls = args[0]->shape, *rs = args[1]->shape;
  int nlb, nlc, nrb, nrc;
  hlo_dot_lists dl;
  bool same = hlo_dot_lists_of(in, &dl);
  const int64_t *lb = dl.lb, *lc = dl.lc, *rb = dl.rb, *rc = dl.rc;
  nlb = nrb = dl.nb;
  nlc = nrc = dl.nc;
  if (!same) return hlo_run_errorf(r, in, "dimension numbers mismatch");
  int64_t lf[MAXR], rf[MAXR], B = 1, M = 1, N = 1, K = 1;
  int nlf = 0, nrf = 0;
  for (int d = 0; d < ls->rank; d++)
    if (!hlo_ints_has(lb, nlb, d) && !hlo_ints_has(lc, nlc, d)) { lf[nlf++] = d; M *= ls->dims[d]; }
  for (int d = 0; d < rs->rank; d++)
    if (!hlo_ints_has(rb, nrb, d) && !hlo_ints_has(rc, nrc, d)) { rf[nrf++] = d; N *= rs->dims[d]; }
  for (int i = 0; i < nlb; i++) B *= ls->dims[lb[i]];
  for (int i = 0; i < nlc; i++) {
    if (lc[i] < 0 || lc[i] >= ls->rank || rc[i] < 0 || rc[i] >= rs->rank ||
        ls->dims[lc[i]] != rs->dims[rc[i]])
      return hlo_run_errorf(r, in, "contracting dimensions mismatch");
    K *= ls->dims[lc[i]];
  }
  hlo_val *o = hlo_run_new_raw(r, &in->shape);
  if (!o) return OOM(r, s);
  size_t na = (size_t)(B * M * K), nb = (size_t)(B * K * N);
  double *A = hlo_malloc(r->alloc, sizeof(double) * (na + nb + (size_t)N + 1));
  if (!A) { hlo_run_release(r, o); return OOM(r, s); }
  double *Bm = A + na, *row = Bm + nb;
  pack(args[0], nlb, lb, nlf, lf, nlc, lc, A);
  pack(args[1], nrb, rb, nrc, rc, nrf, rf, Bm);
  bool f32 = in->shape.type == HLO_F32;
  for (int64_t b = 0; b < B; b++)
    for (int64_t i = 0; i < M; i++) {
      for (int64_t j = 0; j < N; j++) row[j] = 0;
      const double *a = A + (b * M + i) * K;
      for (int64_t k = 0; k < K; k++) {
        double av = a[k];
        const double *bp = Bm + (b * K + k) * N;
        for (int64_t j = 0; j < N; j++) row[j] += av * bp[j];
      }
      int64_t base = (b * M + i) * N;
      if (f32) for (int64_t j = 0; j < N; j++) ((float *)o->data)[base + j] = (float)row[j];
      else memcpy((double *)o->data + base, row, sizeof(double) * (size_t)N);
    }
  hlo_free(r->alloc, A);
  *out = o;
  return HLO_OK;
}

/* Valid range [lo, hi] of an index i >= 0 with p = i*st + c - pl inside
 * [0, n) (no dilation of the base). */
static void valid_range(int64_t st, int64_t c, int64_t pl, int64_t n, int64_t cnt, int64_t *lo,
                        int64_t *hi) {
  /* p >= 0  <=>  i >= (pl - c) / st ; p <= n-1  <=>  i <= (n - 1 + pl - c) / st */
  int64_t a = pl - c, b = n - 1 + pl - c;
  int64_t l = a <= 0 ? 0 : (a + st - 1) / st;
  int64_t h = b < 0 ? -1 : b / st;
  if (h > cnt - 1) h = cnt - 1;
  *lo = l;
  *hi = h;
}

typedef struct conv_geom {
  int ns;
  int64_t wsz[MAXR], wst[MAXR], wrd[MAXR], wld[MAXR], wpl[MAXR], idim[MAXR], osz[MAXR];
  int64_t lss[MAXR], kss[MAXR], oss[MAXR]; /* strides of the spatial dims */
} conv_geom;

/* Input offset contribution of spatial dim d for output index o and window
 * index w; -1 if it falls into padding or a dilation hole. */
static inline int64_t in_off(const conv_geom *g, int d, int64_t o, int64_t w) {
  int64_t p = o * g->wst[d] + w * g->wrd[d] - g->wpl[d];
  if (p < 0 || p % g->wld[d]) return -1;
  p /= g->wld[d];
  return p < g->idim[d] ? p * g->lss[d] : -1;
}

#define CONV_BODY(T)                                                       \
  do {                                                                     \
    const T *X = args[0]->data, *Kp = args[1]->data;                       \
    T *Y = o->data;                                                        \
    for (int64_t ob = 0; ob < OB; ob++)                                    \
      for (int64_t of = 0; of < OF; of++) {                                \
        int64_t g = of / ofg, bg = of / ofb;                               \
        for (int64_t q = 0; q < P; q++) acc[q] = 0;                        \
        for (int64_t kf = 0; kf < KI; kf++) {                              \
          int64_t lbase = (bg * OB + ob) * lst[dn->in_batch] + (g * KI + kf) * lst[dn->in_feature]; \
          int64_t kbase = of * kst[dn->kernel_out] + kf * kst[dn->kernel_in]; \
          if (!window_inner) {                                             \
            /* every window position scales a shifted input plane */      \
            int64_t wi[MAXR] = {0};                                        \
            for (int64_t w = 0; w < WN; w++) {                             \
              int64_t koff = kbase;                                        \
              for (int d = 0; d < ns; d++) koff += wi[d] * G.kss[d];       \
              double wv = (double)Kp[koff];                                \
              if (flat) { /* 1x1 window over a contiguous plane: axpy */   \
                const T *xp = X + lbase;                                   \
                for (int64_t q = 0; q < P; q++) acc[q] += wv * (double)xp[q]; \
                hlo_index_next(ns, G.wsz, wi);                             \
                continue;                                                  \
              }                                                            \
              int64_t lo, hi;                                              \
              bool simple = G.wld[L] == 1;                                 \
              if (simple) valid_range(G.wst[L], wi[L] * G.wrd[L], G.wpl[L], G.idim[L], G.osz[L], &lo, &hi); \
              else { lo = 0; hi = G.osz[L] - 1; }                          \
              int64_t oi[MAXR] = {0};                                      \
              for (int64_t row = 0; row < P; row += G.osz[L]) {            \
                int64_t off = lbase;                                       \
                bool ok = true;                                            \
                for (int d = 0; d < L && ok; d++) {                        \
                  int64_t t_ = in_off(&G, d, oi[d], wi[d]);                \
                  if (t_ < 0) ok = false; else off += t_;                  \
                }                                                          \
                if (ok) {                                                  \
                  double *ar = acc + row;                                  \
                  if (simple) {                                            \
                    int64_t step = G.wst[L] * G.lss[L];                    \
                    const T *xp = X + off + (lo * G.wst[L] + wi[L] * G.wrd[L] - G.wpl[L]) * G.lss[L]; \
                    for (int64_t ox = lo; ox <= hi; ox++, xp += step) ar[ox] += wv * (double)*xp; \
                  } else {                                                 \
                    for (int64_t ox = 0; ox < G.osz[L]; ox++) {            \
                      int64_t t_ = in_off(&G, L, ox, wi[L]);               \
                      if (t_ >= 0) ar[ox] += wv * (double)X[off + t_];     \
                    }                                                      \
                  }                                                        \
                }                                                          \
                if (L > 0) hlo_index_next(L, G.osz, oi);                   \
              }                                                            \
              hlo_index_next(ns, G.wsz, wi);                               \
            }                                                              \
          } else {                                                         \
            /* large windows (weight gradients): dot products along the   \
             * window's last dimension */                                  \
            int64_t oi[MAXR] = {0};                                        \
            for (int64_t q = 0; q < P; q++) {                              \
              int64_t wi[MAXR] = {0};                                      \
              double sum = 0;                                              \
              for (int64_t w = 0; w < WN; w += G.wsz[L]) {                 \
                int64_t off = lbase, koff = kbase;                         \
                bool ok = true;                                            \
                for (int d = 0; d < L && ok; d++) {                        \
                  int64_t t_ = in_off(&G, d, oi[d], wi[d]);                \
                  if (t_ < 0) ok = false; else { off += t_; koff += wi[d] * G.kss[d]; } \
                }                                                          \
                if (ok) {                                                  \
                  if (G.wld[L] == 1) {                                     \
                    int64_t lo, hi;                                        \
                    valid_range(G.wrd[L], oi[L] * G.wst[L], G.wpl[L], G.idim[L], G.wsz[L], &lo, &hi); \
                    const T *xp = X + off + (oi[L] * G.wst[L] + lo * G.wrd[L] - G.wpl[L]) * G.lss[L]; \
                    const T *kp = Kp + koff + lo * G.kss[L];               \
                    int64_t xs = G.wrd[L] * G.lss[L], ks_ = G.kss[L];      \
                    for (int64_t wx = lo; wx <= hi; wx++, xp += xs, kp += ks_) \
                      sum += (double)*xp * (double)*kp;                    \
                  } else {                                                 \
                    for (int64_t wx = 0; wx < G.wsz[L]; wx++) {            \
                      int64_t t_ = in_off(&G, L, oi[L], wx);               \
                      if (t_ >= 0) sum += (double)X[off + t_] * (double)Kp[koff + wx * G.kss[L]]; \
                    }                                                      \
                  }                                                        \
                }                                                          \
                if (L > 0) hlo_index_next(L, G.wsz, wi);                   \
              }                                                            \
              acc[q] += sum;                                               \
              hlo_index_next(ns, G.osz, oi);                               \
            }                                                              \
          }                                                                \
        }                                                                  \
        int64_t oi[MAXR] = {0};                                            \
        int64_t obase = ob * ost[dn->out_batch] + of * ost[dn->out_feature]; \
        for (int64_t q = 0; q < P; q++) {                                  \
          int64_t off = obase;                                             \
          for (int d = 0; d < ns; d++) off += oi[d] * G.oss[d];            \
          Y[off] = (T)acc[q];                                              \
          hlo_index_next(ns, G.osz, oi);                                   \
        }                                                                  \
      }                                                                    \
  } while (0)

/* Feature-minor layouts (b01f with 01io/01oi kernels): for every output
 * element, a dot product over the contiguous input features per window
 * position. */
#define CONV_FI(T)                                                         \
  do {                                                                     \
    const T *X = args[0]->data, *Kp = args[1]->data;                       \
    T *Y = o->data;                                                        \
    int64_t oi[MAXR] = {0};                                                \
    int64_t kis = kst[dn->kernel_in];                                      \
    for (int64_t k = 0; k < o->nelems; k++) {                              \
      int64_t ob = oi[dn->out_batch], of = oi[dn->out_feature];            \
      int64_t g = of / ofg, bg = of / ofb;                                 \
      int64_t lbase = (bg * OB + ob) * lst[dn->in_batch] + g * KI;         \
      int64_t kbase = of * kst[dn->kernel_out];                            \
      int64_t wi[MAXR] = {0};                                              \
      double sum = 0;                                                      \
      for (int64_t w = 0; w < WN; w++) {                                   \
        int64_t loff = lbase, koff = kbase;                                \
        bool ok = true;                                                    \
        for (int d = 0; d < ns && ok; d++) {                               \
          int64_t t_ = in_off(&G, d, oi[dn->out_spatial[d]], wi[d]);       \
          if (t_ < 0) ok = false;                                          \
          else { loff += t_; koff += wi[d] * G.kss[d]; }                   \
        }                                                                  \
        if (ok) {                                                          \
          const T *xp = X + loff, *kp = Kp + koff;                         \
          if (kis == 1) {                                                  \
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;                         \
            int64_t c = 0;                                                 \
            for (; c + 4 <= KI; c += 4) {                                  \
              s0 += (double)xp[c] * (double)kp[c];                         \
              s1 += (double)xp[c + 1] * (double)kp[c + 1];                 \
              s2 += (double)xp[c + 2] * (double)kp[c + 2];                 \
              s3 += (double)xp[c + 3] * (double)kp[c + 3];                 \
            }                                                              \
            for (; c < KI; c++) s0 += (double)xp[c] * (double)kp[c];       \
            sum += (s0 + s1) + (s2 + s3);                                  \
          }                                                                \
          else for (int64_t c = 0; c < KI; c++) sum += (double)xp[c] * (double)kp[c * kis]; \
        }                                                                  \
        hlo_index_next(ns, G.wsz, wi);                                     \
      }                                                                    \
      Y[k] = (T)sum;                                                       \
      hlo_index_next(os->rank, os->dims, oi);                              \
    }                                                                      \
  } while (0)

DECL_KERN(hlo_fast_conv_loop) {
  const hlo_instruction *in = s->in;
  const hlo_shape *ls = args[0]->shape, *ks = args[1]->shape, *os = &in->shape;
  const hlo_conv_dnums *dn = hlo_instr_attr(in, HLO_A_DIM_LABELS)->u.conv;
  int ns = dn->nspatial;
  if (ns + 2 != ls->rank || ns + 2 != ks->rank || ns + 2 != os->rank)
    return hlo_run_errorf(r, in, "dim_labels do not match the ranks");
  if (ns == 0) return hlo_ref_convolution(r, s, args, out);
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  if (wa && wa->u.window.n != ns) return hlo_run_errorf(r, in, "window rank mismatch");
  int64_t FG = hlo_instr_int(in, HLO_A_FEATURE_GROUP_COUNT, 1);
  int64_t BG = hlo_instr_int(in, HLO_A_BATCH_GROUP_COUNT, 1);
  int64_t IF = ls->dims[dn->in_feature], KI = ks->dims[dn->kernel_in];
  int64_t OF = os->dims[dn->out_feature], OB = os->dims[dn->out_batch];
  if (FG < 1 || BG < 1 || IF != KI * FG || OF % FG || OF % BG)
    return hlo_run_errorf(r, in, "feature/batch group counts do not divide the dimensions");
  int64_t lst[MAXR], kst[MAXR], ost[MAXR];
  hlo_strides(ls, lst);
  hlo_strides(ks, kst);
  hlo_strides(os, ost);
  conv_geom G;
  G.ns = ns;
  int64_t P = 1, WN = 1;
  for (int d = 0; d < ns; d++) {
    G.wsz[d] = ks->dims[dn->kernel_spatial[d]];
    const hlo_window_dim *w = wa ? &wa->u.window.dims[d] : NULL;
    G.wst[d] = w && w->stride ? w->stride : 1;
    G.wrd[d] = w && w->rhs_dilate ? w->rhs_dilate : 1;
    G.wld[d] = w && w->lhs_dilate ? w->lhs_dilate : 1;
    G.wpl[d] = w ? w->pad_lo : 0;
    G.idim[d] = ls->dims[dn->in_spatial[d]];
    G.osz[d] = os->dims[dn->out_spatial[d]];
    G.lss[d] = lst[dn->in_spatial[d]];
    G.kss[d] = kst[dn->kernel_spatial[d]];
    G.oss[d] = ost[dn->out_spatial[d]];
    P *= G.osz[d];
    WN *= G.wsz[d];
  }
  int L = ns - 1;
  bool window_inner = G.wsz[L] > G.osz[L];
  bool flat = WN == 1 && G.lss[L] == 1;
  for (int d = 0; d < ns; d++) {
    if (G.wst[d] != 1 || G.wld[d] != 1 || G.wpl[d] != 0 || G.idim[d] != G.osz[d]) flat = false;
    if (d < L && G.lss[d] != G.lss[d + 1] * G.idim[d + 1]) flat = false;
  }
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  if (o->nelems == 0 || WN == 0) { *out = o; return HLO_OK; }
  double *acc = hlo_malloc(r->alloc, sizeof(double) * (size_t)(P + 1));
  if (!acc) { hlo_run_release(r, o); return OOM(r, s); }
  int64_t ofg = OF / FG, ofb = OF / BG;
  bool feature_inner = lst[dn->in_feature] == 1 && KI >= 4 && !flat;
  if (feature_inner && os->type == HLO_F32) CONV_FI(float);
  else if (feature_inner) CONV_FI(double);
  else if (os->type == HLO_F32) CONV_BODY(float);
  else CONV_BODY(double);
  hlo_free(r->alloc, acc);
  *out = o;
  return HLO_OK;
}
