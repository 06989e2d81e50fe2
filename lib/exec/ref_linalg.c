/* ref_linalg.c - reference dot (general dimension numbers) and convolution
 * (dim_labels, padding, strides, lhs/rhs dilation, window reversal, feature
 * and batch groups).  Products accumulate in double (complex double for
 * complex types, wrapping 64-bit integers for integer types) and are rounded
 * to the result type once per output element. */
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

DECL_KERN(hlo_ref_dot) {
  const hlo_instruction *in = s->in;
  const hlo_shape *ls = args[0]->shape, *rs = args[1]->shape, *os = &in->shape;
  int nlb, nlc, nrb, nrc;
  hlo_dot_lists dl;
  bool same = hlo_dot_lists_of(in, &dl);
  const int64_t *lb = dl.lb, *lc = dl.lc, *rb = dl.rb, *rc = dl.rc;
  nlb = nrb = dl.nb;
  nlc = nrc = dl.nc;
  if (!same) return hlo_run_errorf(r, in, "dimension numbers mismatch");
  int64_t lfree[MAXR], rfree[MAXR];
  int nlf = 0, nrf = 0;
  for (int d = 0; d < ls->rank; d++)
    if (!hlo_ints_has(lb, nlb, d) && !hlo_ints_has(lc, nlc, d)) lfree[nlf++] = d;
  for (int d = 0; d < rs->rank; d++)
    if (!hlo_ints_has(rb, nrb, d) && !hlo_ints_has(rc, nrc, d)) rfree[nrf++] = d;
  if (nlb + nlf + nrf != os->rank) return hlo_run_errorf(r, in, "result rank mismatch");
  int64_t cdims[MAXR];
  for (int i = 0; i < nlc; i++) {
    if (lc[i] < 0 || lc[i] >= ls->rank || rc[i] < 0 || rc[i] >= rs->rank ||
        ls->dims[lc[i]] != rs->dims[rc[i]])
      return hlo_run_errorf(r, in, "contracting dimensions mismatch");
    cdims[i] = ls->dims[lc[i]];
  }
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t lst[MAXR], rst[MAXR], oi[MAXR] = {0}, li[MAXR], ri[MAXR], ci[MAXR];
  hlo_strides(ls, lst);
  hlo_strides(rs, rst);
  hlo_type lt = ls->type, rt = rs->type, ot = os->type;
  for (int64_t k = 0; k < o->nelems; k++) {
    for (int i = 0; i < nlb; i++) { li[lb[i]] = oi[i]; ri[rb[i]] = oi[i]; }
    for (int i = 0; i < nlf; i++) li[lfree[i]] = oi[nlb + i];
    for (int i = 0; i < nrf; i++) ri[rfree[i]] = oi[nlb + nlf + i];
    hlo_sc a = {0, 0, 0};
    memset(ci, 0, sizeof ci);
    bool more = true;
    for (int i = 0; i < nlc; i++) if (cdims[i] == 0) more = false;
    while (more) {
      for (int i = 0; i < nlc; i++) { li[lc[i]] = ci[i]; ri[rc[i]] = ci[i]; }
      hlo_sc x = hlo_ref_convert(lt, ot, hlo_sc_load(lt, args[0]->data, hlo_index_dot(ls->rank, li, lst)));
      hlo_sc y = hlo_ref_convert(rt, ot, hlo_sc_load(rt, args[1]->data, hlo_index_dot(rs->rank, ri, rst)));
      hlo_sc_mac(&a, ot, x, y);
      more = nlc > 0 && hlo_index_next(nlc, cdims, ci);
    }
    hlo_sc_store(ot, o->data, k, a);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

int hlo_ref_conv_window(hlo_run *r, const plan_step *s, const hlo_val *lhs, const hlo_val *rhs,
                        hlo_window_dim *wd) {
  const hlo_instruction *in = s->in;
  const hlo_shape *ks = rhs->shape;
  const hlo_attr *da = hlo_instr_attr(in, HLO_A_DIM_LABELS);
  if (!da) return hlo_run_errorf(r, in, "needs dim_labels=");
  const hlo_conv_dnums *dn = da->u.conv;
  int ns = dn->nspatial;
  if (ns + 2 != lhs->shape->rank || ns + 2 != ks->rank || ns + 2 != in->shape.rank)
    return hlo_run_errorf(r, in, "dim_labels do not match the ranks");
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  if (wa && wa->u.window.n != ns) return hlo_run_errorf(r, in, "window rank mismatch");
  for (int d = 0; d < ns; d++) {
    hlo_window_dim z = {ks->dims[dn->kernel_spatial[d]], 1, 0, 0, 1, 1, false};
    wd[d] = wa ? wa->u.window.dims[d] : z;
    if (wd[d].size == 0) wd[d].size = ks->dims[dn->kernel_spatial[d]];
  }
  return HLO_OK;
}

DECL_KERN(hlo_ref_convolution) {
  hlo_window_dim wd[MAXR];
  if (hlo_ref_conv_window(r, s, args[0], args[1], wd)) return HLO_ERR;
  return hlo_ref_conv_with(r, s, args[0], args[1], wd, out);
}

int hlo_ref_conv_with(hlo_run *r, const plan_step *s, const hlo_val *lhs, const hlo_val *rhs,
                      const hlo_window_dim *wd, hlo_val **out) {
  const hlo_instruction *in = s->in;
  const hlo_shape *ls = lhs->shape, *ks = rhs->shape, *os = &in->shape;
  const hlo_conv_dnums *dn = hlo_instr_attr(in, HLO_A_DIM_LABELS)->u.conv;
  int ns = dn->nspatial;
  int64_t G = hlo_instr_int(in, HLO_A_FEATURE_GROUP_COUNT, 1);
  int64_t B = hlo_instr_int(in, HLO_A_BATCH_GROUP_COUNT, 1);
  int64_t IF = ls->dims[dn->in_feature], KI = ks->dims[dn->kernel_in];
  int64_t OF = os->dims[dn->out_feature], OB = os->dims[dn->out_batch];
  if (G < 1 || B < 1 || IF != KI * G || OF % G || OF % B)
    return hlo_run_errorf(r, in, "feature/batch group counts do not divide the dimensions");
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t lst[MAXR], kst[MAXR], oi[MAXR] = {0}, li[MAXR], ki[MAXR], wsz[MAXR], wi[MAXR];
  hlo_strides(ls, lst);
  hlo_strides(ks, kst);
  bool empty_window = false; /* a kernel spatial dim of size 0: every sum is empty */
  for (int d = 0; d < ns; d++) {
    wsz[d] = ks->dims[dn->kernel_spatial[d]];
    empty_window = empty_window || wsz[d] == 0;
  }
  hlo_type lt = ls->type, kt = ks->type, ot = os->type;
  int64_t ofg = OF / G, ofb = OF / B;
  for (int64_t k = 0; k < o->nelems; k++) {
    int64_t ob = oi[dn->out_batch], of = oi[dn->out_feature];
    int64_t g = of / ofg, bg = of / ofb;
    hlo_sc a = {0, 0, 0};
    li[dn->in_batch] = bg * OB + ob;
    ki[dn->kernel_out] = of;
    for (int64_t kf = 0; kf < KI; kf++) {
      li[dn->in_feature] = g * KI + kf;
      ki[dn->kernel_in] = kf;
      memset(wi, 0, sizeof wi);
      bool more = !empty_window;
      while (more) {
        bool ok = true;
        for (int d = 0; d < ns && ok; d++) {
          const hlo_window_dim *w = &wd[d];
          int64_t ld = w->lhs_dilate ? w->lhs_dilate : 1, rd = w->rhs_dilate ? w->rhs_dilate : 1;
          int64_t st = w->stride ? w->stride : 1;
          int64_t p = oi[dn->out_spatial[d]] * st + wi[d] * rd - w->pad_lo;
          if (p < 0 || p % ld || p / ld >= ls->dims[dn->in_spatial[d]]) ok = false;
          li[dn->in_spatial[d]] = p / ld;
          ki[dn->kernel_spatial[d]] = w->reversal ? wsz[d] - 1 - wi[d] : wi[d];
        }
        if (ok) {
          hlo_sc x = hlo_ref_convert(lt, ot, hlo_sc_load(lt, lhs->data, hlo_index_dot(ns + 2, li, lst)));
          hlo_sc y = hlo_ref_convert(kt, ot, hlo_sc_load(kt, rhs->data, hlo_index_dot(ns + 2, ki, kst)));
          hlo_sc_mac(&a, ot, x, y);
        }
        more = ns > 0 && hlo_index_next(ns, wsz, wi);
      }
    }
    hlo_sc_store(ot, o->data, k, a);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}
