/* ref_dotx.c - reference kernels of the dot variants: ragged-dot (group
 * sizes split the ragged lhs dimension into groups; non-contracting, contracting
 * and batch modes) and scaled-dot (block scales multiplied into both operands
 * before a dot).  Products accumulate in double / wrapping int64 and round to
 * the result type once per output element, as the reference dot does. */
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

/* Dimension numbers of a dot-like instruction, validated against the shapes. */
typedef struct dnums {
  int nlb, nlc, nlf, nrf;
  const int64_t *lb, *lc, *rb, *rc;
  int64_t lfree[MAXR], rfree[MAXR], cdims[MAXR];
} dnums;

static int read_dnums(hlo_run *r, const hlo_instruction *in, const hlo_shape *ls,
                      const hlo_shape *rs, int64_t rskip, dnums *d) {
  hlo_dot_lists dl;
  if (!hlo_dot_lists_of(in, &dl)) return hlo_run_errorf(r, in, "dimension numbers mismatch");
  d->lb = dl.lb;
  d->lc = dl.lc;
  d->rb = dl.rb;
  d->rc = dl.rc;
  d->nlb = dl.nb;
  d->nlc = dl.nc;
  int nrb = dl.nb, nrc = dl.nc;
  d->nlf = d->nrf = 0;
  for (int k = 0; k < ls->rank; k++)
    if (!hlo_ints_has(d->lb, d->nlb, k) && !hlo_ints_has(d->lc, d->nlc, k)) d->lfree[d->nlf++] = k;
  for (int k = 0; k < rs->rank; k++)
    if (k != rskip && !hlo_ints_has(d->rb, nrb, k) && !hlo_ints_has(d->rc, nrc, k)) d->rfree[d->nrf++] = k;
  for (int i = 0; i < d->nlc; i++) {
    if (d->lc[i] < 0 || d->lc[i] >= ls->rank || d->rc[i] < 0 || d->rc[i] >= rs->rank ||
        ls->dims[d->lc[i]] != rs->dims[d->rc[i]])
      return hlo_run_errorf(r, in, "contracting dimensions mismatch");
    d->cdims[i] = ls->dims[d->lc[i]];
  }
  for (int i = 0; i < d->nlb; i++)
    if (d->lb[i] < 0 || d->lb[i] >= ls->rank || d->rb[i] < 0 || d->rb[i] >= rs->rank)
      return hlo_run_errorf(r, in, "batch dimensions out of range");
  return HLO_OK;
}

/* ---- ragged-dot ------------------------------------------------------------ */

enum { RAGGED_NONCONTRACTING, RAGGED_CONTRACTING, RAGGED_BATCH };

/* Start of group g and its size in row `row` of group_sizes ([G], or
 * [prefix..., G] flattened to rows). */
static void group_range(const hlo_val *gs, int64_t row, int64_t g, int64_t *start, int64_t *size) {
  const hlo_shape *s = gs->shape;
  int64_t G = s->dims[s->rank - 1];
  if (s->rank == 1) row = 0;
  int64_t acc = 0;
  for (int64_t k = 0; k < g; k++) {
    int64_t v = hlo_sc_load(s->type, gs->data, row * G + k).i;
    if (v > 0) acc = v > INT64_MAX - acc ? INT64_MAX : acc + v; /* saturate */
  }
  int64_t v = hlo_sc_load(s->type, gs->data, row * G + g).i;
  *start = acc;
  *size = v > 0 ? v : 0;
}

/* The lhs dimensions group_sizes is indexed by before its group dimension
 * (XLA's InferRaggedDotOpShape): the batch dimensions, then the
 * non-contracting (non-contracting mode) or contracting (contracting mode)
 * dimensions before the ragged one; in batch mode the batch dimensions
 * before the ragged one. */
static int group_prefix(const dnums *d, int mode, int64_t rag, int64_t *pd) {
  int n = 0;
  for (int i = 0; i < d->nlb && !(mode == RAGGED_BATCH && d->lb[i] == rag); i++) pd[n++] = d->lb[i];
  if (mode == RAGGED_NONCONTRACTING)
    for (int i = 0; i < d->nlf && d->lfree[i] != rag; i++) pd[n++] = d->lfree[i];
  if (mode == RAGGED_CONTRACTING)
    for (int i = 0; i < d->nlc && d->lc[i] != rag; i++) pd[n++] = d->lc[i];
  return n;
}

/* The row of group_sizes for lhs index li. */
static int64_t group_row(const hlo_shape *gsh, const int64_t *pd, int np, const int64_t *li) {
  int64_t row = 0;
  for (int i = 0; gsh->rank > 1 && i < np; i++) row = row * gsh->dims[i] + li[pd[i]];
  return row;
}

DECL_KERN(hlo_ref_ragged_dot) {
  const hlo_instruction *in = s->in;
  const hlo_shape *ls = args[0]->shape, *rs = args[1]->shape, *gsh = args[2]->shape;
  const hlo_shape *os = &in->shape;
  int nr, ng;
  const int64_t *rag = hlo_instr_ints(in, HLO_A_LHS_RAGGED_DIMS, &nr);
  const int64_t *grp = hlo_instr_ints(in, HLO_A_RHS_GROUP_DIMS, &ng);
  if (!rag || nr != 1 || rag[0] < 0 || rag[0] >= ls->rank)
    return hlo_run_errorf(r, in, "needs one lhs_ragged_dims entry");
  if (gsh->rank < 1) return hlo_run_errorf(r, in, "group_sizes must have rank >= 1");
  int64_t G = gsh->dims[gsh->rank - 1];
  int nlb0, nlc0;
  const int64_t *lb0 = hlo_instr_ints(in, HLO_A_LHS_BATCH_DIMS, &nlb0);
  const int64_t *lc0 = hlo_instr_ints(in, HLO_A_LHS_CONTRACTING_DIMS, &nlc0);
  int mode = lc0 && hlo_ints_has(lc0, nlc0, rag[0]) ? RAGGED_CONTRACTING
             : lb0 && hlo_ints_has(lb0, nlb0, rag[0]) ? RAGGED_BATCH : RAGGED_NONCONTRACTING;
  int64_t rskip = -1;
  if (mode == RAGGED_NONCONTRACTING) {
    if (!grp || ng != 1 || grp[0] < 0 || grp[0] >= rs->rank || rs->dims[grp[0]] != G)
      return hlo_run_errorf(r, in, "needs one rhs_group_dims entry of the group count %lld",
                            (long long)G);
    rskip = grp[0];
  }
  dnums d;
  if (read_dnums(r, in, ls, rs, rskip, &d)) return HLO_ERR;
  int pre = mode == RAGGED_CONTRACTING ? 1 : 0;
  if (pre + d.nlb + d.nlf + d.nrf != os->rank) return hlo_run_errorf(r, in, "result rank mismatch");
  int64_t pd[MAXR];
  int np = group_prefix(&d, mode, rag[0], pd);
  if (gsh->rank > 1) {
    if (gsh->rank != np + 1) return hlo_run_errorf(r, in, "group_sizes must be [G] or [%d dimensions of the lhs..., G]", np);
    for (int i = 0; i < np; i++)
      if (gsh->dims[i] != ls->dims[pd[i]])
        return hlo_run_errorf(r, in, "group_sizes dimension %d differs from lhs dimension %lld", i, (long long)pd[i]);
  }
  bool row_in_loop = false; /* contracting mode with contracting dims before the ragged one */
  for (int i = 0; i < np; i++) row_in_loop |= mode == RAGGED_CONTRACTING && hlo_ints_has(d.lc, d.nlc, pd[i]);
  int rci = -1; /* position of the ragged dim among the contracting dims */
  for (int i = 0; i < d.nlc; i++)
    if (d.lc[i] == rag[0]) rci = i;
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t lst[MAXR], rst[MAXR], oi[MAXR] = {0}, li[MAXR], ri[MAXR], ci[MAXR];
  hlo_strides(ls, lst);
  hlo_strides(rs, rst);
  hlo_type lt = ls->type, rt = rs->type, ot = os->type;
  for (int64_t k = 0; k < o->nelems; k++) {
    for (int i = 0; i < d.nlb; i++) li[d.lb[i]] = ri[d.rb[i]] = oi[pre + i];
    for (int i = 0; i < d.nlf; i++) li[d.lfree[i]] = oi[pre + d.nlb + i];
    for (int i = 0; i < d.nrf; i++) ri[d.rfree[i]] = oi[pre + d.nlb + d.nlf + i];
    int64_t gstart = 0, gsize = 0, row = -1;
    bool live = true;
    if (mode == RAGGED_CONTRACTING && !row_in_loop) {
      group_range(args[2], group_row(gsh, pd, np, li), oi[0], &gstart, &gsize);
    } else if (mode == RAGGED_NONCONTRACTING) {
      /* the group holding this lhs row picks the rhs slice; rows past the
       * last group give zeros */
      int64_t m = li[rag[0]], g = 0, gr = group_row(gsh, pd, np, li);
      live = false;
      for (; g < G; g++) {
        group_range(args[2], gr, g, &gstart, &gsize);
        if (m >= gstart && m - gstart < gsize) { live = true; break; }
      }
      ri[rskip] = g;
    }
    hlo_sc a = {0, 0, 0};
    memset(ci, 0, sizeof ci);
    bool more = live;
    for (int i = 0; i < d.nlc; i++) if (d.cdims[i] == 0) more = false;
    while (more) {
      for (int i = 0; i < d.nlc; i++) { li[d.lc[i]] = ci[i]; ri[d.rc[i]] = ci[i]; }
      if (row_in_loop) { /* the group's row moves with the contracting dims before the ragged one */
        int64_t cur = group_row(gsh, pd, np, li);
        if (cur != row) group_range(args[2], row = cur, oi[0], &gstart, &gsize);
      }
      bool use = rci < 0 || (ci[rci] >= gstart && ci[rci] - gstart < gsize);
      if (use) {
        hlo_sc x = hlo_ref_convert(lt, ot, hlo_sc_load(lt, args[0]->data, hlo_index_dot(ls->rank, li, lst)));
        hlo_sc y = hlo_ref_convert(rt, ot, hlo_sc_load(rt, args[1]->data, hlo_index_dot(rs->rank, ri, rst)));
        hlo_sc_mac(&a, ot, x, y);
      }
      more = d.nlc > 0 && hlo_index_next(d.nlc, d.cdims, ci);
    }
    hlo_sc_store(ot, o->data, k, a);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

/* ---- scaled-dot ------------------------------------------------------------ */

/* operand * its block scale at multi-index idx, converted to type ot. */
static hlo_sc scaled(const hlo_val *v, const hlo_val *sc, const int64_t *idx, const int64_t *vst,
                     const int64_t *sst, const int64_t *blk, hlo_type ot) {
  const hlo_shape *vs = v->shape, *ss = sc->shape;
  hlo_sc x = hlo_ref_convert(vs->type, ot, hlo_sc_load(vs->type, v->data, hlo_index_dot(vs->rank, idx, vst)));
  int64_t si[MAXR];
  for (int i = 0; i < ss->rank; i++) si[i] = idx[i] / blk[i];
  hlo_sc f = hlo_ref_convert(ss->type, ot, hlo_sc_load(ss->type, sc->data, hlo_index_dot(ss->rank, si, sst)));
  if (hlo_type_kind_of(ot) == HLO_KIND_COMPLEX) {
    hlo_sc p = {x.f * f.f - x.im * f.im, x.f * f.im + x.im * f.f, 0};
    return p;
  }
  if (hlo_type_is_float(ot)) return (hlo_sc){x.f * f.f, 0, 0};
  return (hlo_sc){0, 0, (int64_t)((uint64_t)x.i * (uint64_t)f.i)};
}

static int blocks(hlo_run *r, const hlo_instruction *in, const hlo_shape *v, const hlo_shape *sc,
                  int64_t *blk) {
  if (sc->rank == 0) return HLO_OK;
  if (sc->rank != v->rank) return hlo_run_errorf(r, in, "scale rank differs from its operand's");
  for (int i = 0; i < v->rank; i++) {
    if (sc->dims[i] == 0 ? v->dims[i] != 0 : v->dims[i] % sc->dims[i] != 0)
      return hlo_run_errorf(r, in, "scale dimension %d (%lld) does not divide the operand's (%lld)",
                            i, (long long)sc->dims[i], (long long)v->dims[i]);
    blk[i] = sc->dims[i] ? v->dims[i] / sc->dims[i] : 1;
  }
  return HLO_OK;
}

DECL_KERN(hlo_ref_scaled_dot) {
  const hlo_instruction *in = s->in;
  const hlo_val *L = args[0], *R = args[1], *LS = args[2], *RS = args[3]; /* XLA's operand order */
  const hlo_shape *ls = L->shape, *rs = R->shape, *os = &in->shape;
  int64_t lblk[MAXR], rblk[MAXR];
  if (blocks(r, in, ls, LS->shape, lblk) || blocks(r, in, rs, RS->shape, rblk)) return HLO_ERR;
  dnums d;
  if (read_dnums(r, in, ls, rs, -1, &d)) return HLO_ERR;
  if (d.nlb + d.nlf + d.nrf != os->rank) return hlo_run_errorf(r, in, "result rank mismatch");
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t lst[MAXR], rst[MAXR], lsst[MAXR], rsst[MAXR], oi[MAXR] = {0}, li[MAXR], ri[MAXR], ci[MAXR];
  hlo_strides(ls, lst);
  hlo_strides(rs, rst);
  hlo_strides(LS->shape, lsst);
  hlo_strides(RS->shape, rsst);
  hlo_type ot = os->type;
  for (int64_t k = 0; k < o->nelems; k++) {
    for (int i = 0; i < d.nlb; i++) { li[d.lb[i]] = oi[i]; ri[d.rb[i]] = oi[i]; }
    for (int i = 0; i < d.nlf; i++) li[d.lfree[i]] = oi[d.nlb + i];
    for (int i = 0; i < d.nrf; i++) ri[d.rfree[i]] = oi[d.nlb + d.nlf + i];
    hlo_sc a = {0, 0, 0};
    memset(ci, 0, sizeof ci);
    bool more = true;
    for (int i = 0; i < d.nlc; i++) if (d.cdims[i] == 0) more = false;
    while (more) {
      for (int i = 0; i < d.nlc; i++) { li[d.lc[i]] = ci[i]; ri[d.rc[i]] = ci[i]; }
      hlo_sc_mac(&a, ot, scaled(L, LS, li, lst, lsst, lblk, ot), scaled(R, RS, ri, rst, rsst, rblk, ot));
      more = d.nlc > 0 && hlo_index_next(d.nlc, d.cdims, ci);
    }
    hlo_sc_store(ot, o->data, k, a);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}
