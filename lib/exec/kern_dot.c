/* kern_dot.c - fast dot and convolution for f32 and f64 (same operand and
 * result type).  Dot packs both operands into [batch, M, K] and [batch, K, N]
 * and runs an i-k-j loop with a double accumulator row; convolution walks
 * the window with precomputed strides and a contiguous inner loop over input
 * features.  Accumulation is in double, as in the reference (the order of
 * the additions differs, so results agree to rounding, not bit for bit). */
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

static bool has(const int64_t *v, int n, int64_t x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

bool hlo_kern_dot_ok(const hlo_instruction *in) {
  hlo_type t = in->shape.type;
  return (t == HLO_F32 || t == HLO_F64) && in->noperands == 2 &&
         in->operands[0]->shape.type == t && in->operands[1]->shape.type == t;
}

bool hlo_kern_conv_ok(const hlo_instruction *in) {
  if (!hlo_kern_dot_ok(in)) return false;
  const hlo_attr *w = hlo_instr_attr(in, HLO_A_WINDOW);
  if (hlo_instr_int(in, HLO_A_BATCH_GROUP_COUNT, 1) != 1) return false;
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

DECL_KERN(hlo_kern_dot) {
  const hlo_instruction *in = s->in;
  const hlo_shape *ls = args[0]->shape, *rs = args[1]->shape;
  int nlb, nlc, nrb, nrc;
  const int64_t *lb = hlo_instr_ints(in, HLO_A_LHS_BATCH_DIMS, &nlb);
  const int64_t *lc = hlo_instr_ints(in, HLO_A_LHS_CONTRACTING_DIMS, &nlc);
  const int64_t *rb = hlo_instr_ints(in, HLO_A_RHS_BATCH_DIMS, &nrb);
  const int64_t *rc = hlo_instr_ints(in, HLO_A_RHS_CONTRACTING_DIMS, &nrc);
  if (!lb) nlb = 0;
  if (!lc) nlc = 0;
  if (!rb) nrb = 0;
  if (!rc) nrc = 0;
  if (nlb != nrb || nlc != nrc) return hlo_run_errorf(r, in, "dimension numbers mismatch");
  int64_t lf[MAXR], rf[MAXR], B = 1, M = 1, N = 1, K = 1;
  int nlf = 0, nrf = 0;
  for (int d = 0; d < ls->rank; d++)
    if (!has(lb, nlb, d) && !has(lc, nlc, d)) { lf[nlf++] = d; M *= ls->dims[d]; }
  for (int d = 0; d < rs->rank; d++)
    if (!has(rb, nrb, d) && !has(rc, nrc, d)) { rf[nrf++] = d; N *= rs->dims[d]; }
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

DECL_KERN(hlo_kern_convolution) {
  const hlo_instruction *in = s->in;
  const hlo_shape *ls = args[0]->shape, *ks = args[1]->shape, *os = &in->shape;
  const hlo_conv_dnums *dn = &hlo_instr_attr(in, HLO_A_DIM_LABELS)->u.conv;
  int ns = dn->nspatial;
  if (ns + 2 != ls->rank || ns + 2 != ks->rank || ns + 2 != os->rank)
    return hlo_run_errorf(r, in, "dim_labels do not match the ranks");
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  if (wa && wa->u.window.n != ns) return hlo_run_errorf(r, in, "window rank mismatch");
  int64_t G = hlo_instr_int(in, HLO_A_FEATURE_GROUP_COUNT, 1);
  int64_t IF = ls->dims[dn->in_feature], KI = ks->dims[dn->kernel_in];
  int64_t OF = os->dims[dn->out_feature];
  if (G < 1 || IF != KI * G || OF % G)
    return hlo_run_errorf(r, in, "feature group count does not divide the dimensions");
  int64_t lst[MAXR], kst[MAXR], ost[MAXR];
  hlo_strides(ls, lst);
  hlo_strides(ks, kst);
  hlo_strides(os, ost);
  int64_t wsz[MAXR], wst[MAXR], wrd[MAXR], wld[MAXR], wpl[MAXR], idim[MAXR];
  for (int d = 0; d < ns; d++) {
    wsz[d] = ks->dims[dn->kernel_spatial[d]];
    const hlo_window_dim *w = wa ? &wa->u.window.dims[d] : NULL;
    wst[d] = w && w->stride ? w->stride : 1;
    wrd[d] = w && w->rhs_dilate ? w->rhs_dilate : 1;
    wld[d] = w && w->lhs_dilate ? w->lhs_dilate : 1;
    wpl[d] = w ? w->pad_lo : 0;
    idim[d] = ls->dims[dn->in_spatial[d]];
  }
  hlo_val *o = hlo_run_new_raw(r, os);
  if (!o) return OOM(r, s);
  bool f32 = os->type == HLO_F32;
  const float *lf = args[0]->data, *kf = args[1]->data;
  const double *ld = args[0]->data, *kd = args[1]->data;
  int64_t ofg = OF / G, oi[MAXR] = {0}, wi[MAXR];
  int64_t lfs = lst[dn->in_feature], kis = kst[dn->kernel_in];
  for (int64_t k = 0; k < o->nelems; k++) {
    int64_t ob = oi[dn->out_batch], of = oi[dn->out_feature], g = of / ofg;
    double acc = 0;
    int64_t lbase = ob * lst[dn->in_batch] + g * KI * lfs;
    int64_t kbase = of * kst[dn->kernel_out];
    memset(wi, 0, sizeof(int64_t) * (size_t)(ns ? ns : 1));
    bool more = true;
    while (more) {
      int64_t loff = lbase, koff = kbase;
      bool ok = true;
      for (int d = 0; d < ns; d++) {
        int64_t p = oi[dn->out_spatial[d]] * wst[d] + wi[d] * wrd[d] - wpl[d];
        if (p < 0 || p % wld[d] || p / wld[d] >= idim[d]) { ok = false; break; }
        loff += (p / wld[d]) * lst[dn->in_spatial[d]];
        koff += wi[d] * kst[dn->kernel_spatial[d]];
      }
      if (ok) {
        if (f32)
          for (int64_t c = 0; c < KI; c++) acc += (double)lf[loff + c * lfs] * (double)kf[koff + c * kis];
        else
          for (int64_t c = 0; c < KI; c++) acc += ld[loff + c * lfs] * kd[koff + c * kis];
      }
      more = ns > 0 && hlo_index_next(ns, wsz, wi);
    }
    if (f32) ((float *)o->data)[k] = (float)acc;
    else ((double *)o->data)[k] = acc;
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}
