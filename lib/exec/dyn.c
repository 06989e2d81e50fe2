/* dyn.c - dynamic dimensions ('<=N') at run time.  A value keeps the
 * bound's layout and, in hlo_val.dims, the actual size of each dimension
 * when one is below its bound.  This file carries those sizes through the
 * ops that propagate them (as XLA's dynamic dimension inference does), masks
 * the padding of reduced and contracted dimensions with the reduction's init
 * value or zero (as XLA's dynamic padder does; pad's with the padding
 * value; scatter's indices with an out-of-bounds index), refuses by name
 * every other
 * op on such a value, and converts between the caller's dense form and the
 * padded one at the entry and exit of a run. */
#include <string.h>

#include "exec/exec.h"

static void actual_of(const hlo_val *v, int64_t *d) {
  for (int i = 0; i < v->shape->rank; i++) d[i] = v->dims ? v->dims[i] : v->shape->dims[i];
}

int hlo_dyn_put(hlo_run *r, const hlo_instruction *in, hlo_val **res, const int64_t *dims) {
  hlo_val *v = *res;
  const hlo_shape *sh = v->shape;
  if (!hlo_shape_is_array(sh)) return HLO_OK;
  bool below = false;
  for (int i = 0; i < sh->rank; i++) below |= dims[i] < sh->dims[i];
  if (!below && !v->dims) return HLO_OK;
  if (below && v->dims && memcmp(v->dims, dims, sizeof(int64_t) * (size_t)sh->rank) == 0)
    return HLO_OK;
  if (v->refs > 1 || v->borrowed || v->dims) { /* shared: a copy gets the sizes */
    hlo_val *c = hlo_run_new_raw(r, sh);
    if (!c) return hlo_run_errorf(r, in, "out of memory");
    if (c->nbytes) memcpy(c->data, v->data, c->nbytes);
    hlo_run_release(r, v);
    *res = v = c;
  }
  if (!below) return HLO_OK;
  v->dims = hlo_malloc(r->alloc, sizeof(int64_t) * (size_t)(sh->rank ? sh->rank : 1));
  if (!v->dims) return hlo_run_errorf(r, in, "out of memory");
  memcpy(v->dims, dims, sizeof(int64_t) * (size_t)sh->rank);
  return HLO_OK;
}

/* Copy the box of sizes box[] from src (strides sst, at its origin) into
 * dst (strides dst_st) shifted by off[]; elements of esz bytes. */
static void copy_box(const void *src, const int64_t *sst, void *dst, const int64_t *dst_st,
                     int rank, const int64_t *box, const int64_t *off, size_t esz) {
  int64_t n = 1, idx[MAXR] = {0};
  for (int i = 0; i < rank; i++) n *= box[i];
  for (int64_t k = 0; k < n; k++) {
    int64_t so = 0, dofs = 0;
    for (int i = 0; i < rank; i++) {
      so += idx[i] * sst[i];
      dofs += (idx[i] + (off ? off[i] : 0)) * dst_st[i];
    }
    memcpy((char *)dst + dofs * (int64_t)esz, (const char *)src + so * (int64_t)esz, esz);
    hlo_index_next(rank, box, idx);
  }
}

/* A copy of v whose elements at or past limit[] in some dimension hold the
 * element fill points to (zero bytes when fill is NULL); NULL when out of
 * memory. */
hlo_val *hlo_dyn_masked(hlo_run *r, const hlo_val *v, const int64_t *limit, const void *fill) {
  const hlo_shape *sh = v->shape;
  hlo_val *c = hlo_run_new_raw(r, sh);
  if (!c) return NULL;
  if (c->nbytes) memcpy(c->data, v->data, c->nbytes);
  int64_t idx[MAXR] = {0};
  size_t esz = (size_t)hlo_type_bytes(sh->type);
  for (int64_t k = 0; k < c->nelems; k++) {
    bool pad = false;
    for (int i = 0; i < sh->rank && !pad; i++) pad = idx[i] >= limit[i];
    if (pad) {
      char *p = (char *)c->data + k * (int64_t)esz;
      if (fill) memcpy(p, fill, esz);
      else memset(p, 0, esz);
    }
    hlo_index_next(sh->rank, sh->dims, idx);
  }
  return c;
}

/* args[k] replaced by its copy masked past limit[] with fill (made[k] set:
 * the caller releases it). */
static int mask_arg(hlo_run *r, const plan_step *s, hlo_val **args, bool *made, int k,
                    const int64_t *limit, const void *fill) {
  hlo_val *m = hlo_dyn_masked(r, args[k], limit, fill);
  if (!m) return hlo_run_errorf(r, s->in, "out of memory");
  args[k] = m;
  made[k] = true;
  return HLO_OK;
}

static int refuse(hlo_run *r, const plan_step *s, hlo_val **args, const char *why) {
  for (int k = 0; k < s->nargs; k++) {
    const hlo_val *v = args[k];
    for (int i = 0; v->dims && i < v->shape->rank; i++)
      if (v->dims[i] < v->shape->dims[i])
        return hlo_run_errorf(r, s->in, "operand %d has dynamic dimension %d of actual size %lld "
                              "below its bound %lld, which %s (docs/custom_calls.md, Dynamic "
                              "shapes)", k, i, (long long)v->dims[i],
                              (long long)v->shape->dims[i], why);
  }
  return hlo_run_errorf(r, s->in, "%s", why);
}

/* Fold the size a (of a dimension bounded by bound) into *cur, which
 * starts at the bound: a size below the bound is the dimension's actual
 * size (an operand at its bound is static there and does not contradict it,
 * as in XLA's inference); false when two sizes below the bound differ. */
static bool merge(int64_t *cur, int64_t a, int64_t bound) {
  if (a >= bound) return true;
  if (*cur < bound && *cur != a) return false;
  *cur = a;
  return true;
}

static int disagree(hlo_run *r, const plan_step *s, const char *what, int dim, int64_t a,
                    int64_t b) {
  return hlo_run_errorf(r, s->in, "%s %d: actual sizes %lld and %lld differ", what, dim,
                        (long long)a, (long long)b);
}

/* The sizes every operand of the result's rank agrees on (rank-0 operands
 * broadcast); an error when two disagree. */
static int elementwise_dims(hlo_run *r, const plan_step *s, hlo_val **args, int64_t *out) {
  const hlo_shape *os = &s->in->shape;
  if (os->type == HLO_TUPLE && os->ntuple) os = &os->tuple[0]; /* variadic sort */
  for (int i = 0; i < os->rank; i++) out[i] = os->dims[i];
  for (int k = 0; k < s->nargs; k++) {
    const hlo_val *v = args[k];
    if (!hlo_shape_is_array(v->shape) || v->shape->rank != os->rank) continue;
    int64_t a[MAXR];
    actual_of(v, a);
    for (int i = 0; i < os->rank; i++)
      if (!merge(&out[i], a[i], v->shape->dims[i]))
        return disagree(r, s, "operands' dimension", i, out[i], a[i]);
  }
  return HLO_OK;
}

/* reshape: a dynamic dimension d keeps a prefix of the row-major order when
 * the dimensions before it hold as many elements in the result as in the
 * operand and it maps onto one result dimension o, whole (one to one),
 * merged with static minor dimensions (o gets n times their product) or
 * split into o and static minor dimensions (o gets n over their product,
 * which must divide it).  Anything else is refused. */
/* The result sizes of a reshape whose result has one dynamic dimension:
 * the operand's actual element count over the other dimensions' sizes,
 * when that divides and fits the bound. */
static bool reshape_one_dynamic(const hlo_val *v, const hlo_shape *os, int64_t *out) {
  int dyn = -1;
  int64_t total = 1, rest = 1;
  for (int i = 0; i < v->shape->rank; i++) total *= v->dims[i];
  for (int o = 0; o < os->rank; o++) {
    if (os->dynamic && os->dynamic[o]) {
      if (dyn >= 0) return false;
      dyn = o;
    } else {
      rest *= os->dims[o];
    }
  }
  if (dyn < 0 || rest == 0 || total % rest != 0 || total / rest > os->dims[dyn]) return false;
  for (int o = 0; o < os->rank; o++) out[o] = o == dyn ? total / rest : os->dims[o];
  return true;
}

enum { RESHAPE_REPACK = 2 }; /* reshape_dims: the elements must move (reshape_repack) */

static int reshape_dims(hlo_run *r, const plan_step *s, const hlo_val *v, int64_t *out) {
  const hlo_shape *is = v->shape, *os = &s->in->shape;
  hlo_val **vp = (hlo_val **)&v;
  const char *why;
  for (int o = 0; o < os->rank; o++) out[o] = os->dims[o];
  for (int d = 0; d < is->rank; d++) {
    if (v->dims[d] == is->dims[d]) continue;
    int64_t before = 1, ob = 1;
    for (int i = 0; i < d; i++) before *= is->dims[i];
    int o = 0;
    while (o < os->rank && ob < before) ob *= os->dims[o++];
    while (o < os->rank && os->dims[o] == 1 && is->dims[d] != 1) o++;
    if (ob != before || o == os->rank)
      { why = "reshape cannot keep: the dimensions before it change"; goto other; }
    int e = d, f = o;
    int64_t ip = is->dims[d], op = os->dims[o];
    while (ip != op) {
      if (ip < op ? ++e >= is->rank : ++f >= os->rank)
        { why = "reshape cannot keep: no group of result dimensions holds it"; goto other; }
      if (ip < op) ip *= is->dims[e];
      else op *= os->dims[f];
    }
    if (e > d && f > o)
      { why = "reshape cannot keep: it both merges and splits the dimension"; goto other; }
    int64_t min_in = 1, min_out = 1;
    for (int i = d + 1; i <= e; i++) {
      if (v->dims[i] != is->dims[i])
        { why = "reshape cannot keep: it merges it with a dynamic minor dimension"; goto other; }
      min_in *= is->dims[i];
    }
    for (int i = o + 1; i <= f; i++) min_out *= os->dims[i];
    if (min_out == 0 || (v->dims[d] * min_in) % min_out != 0)
      { why = "reshape cannot keep: the split does not divide its actual size"; goto other; }
    out[o] = v->dims[d] * min_in / min_out;
  }
  return HLO_OK;
other:
  /* Otherwise, with one dynamic dimension in the result, the actual
   * elements in row-major order (XLA's dynamic padder: a reshape that
   * combines or splits a dynamic dimension keeps the valid elements in
   * order) fill the result, that dimension taking what the others leave. */
  if (reshape_one_dynamic(v, os, out)) return RESHAPE_REPACK;
  return refuse(r, s, vp, why);
}

/* A reshape that moves the actual elements (RESHAPE_REPACK): they are read
 * in row-major order out of the operand's bounds and laid out the same way
 * in the result's (dims), the rest zero. */
static int reshape_repack(hlo_run *r, const plan_step *s, const hlo_val *v, const int64_t *dims, hlo_val **out) {
  const hlo_shape *is = v->shape, *os = &s->in->shape;
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  int64_t n = 1, ist[MAXR], ost[MAXR], ii[MAXR] = {0}, oi[MAXR] = {0};
  const int64_t *vd = v->dims ? v->dims : is->dims;
  for (int i = 0; i < is->rank; i++) n *= vd[i];
  hlo_strides(is, ist);
  hlo_strides(os, ost);
  size_t esz = (size_t)hlo_type_bytes(os->type);
  for (int64_t k = 0; k < n; k++) {
    memcpy((char *)o->data + hlo_index_dot(os->rank, oi, ost) * (int64_t)esz,
           (const char *)v->data + hlo_index_dot(is->rank, ii, ist) * (int64_t)esz, esz);
    hlo_index_next(is->rank, vd, ii);
    hlo_index_next(os->rank, dims, oi);
  }
  *out = o;
  return hlo_dyn_put(r, s->in, out, dims);
}

static int slice_dims(hlo_run *r, const plan_step *s, const hlo_val *v, int64_t *out) {
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_SLICE);
  const hlo_shape *is = v->shape, *os = &s->in->shape;
  if (!a || a->u.slices.n != is->rank || os->rank != is->rank)
    return hlo_run_errorf(r, s->in, "bad slice=");
  for (int d = 0; d < is->rank; d++) {
    out[d] = os->dims[d];
    if (v->dims[d] == is->dims[d]) continue;
    int64_t st = a->u.slices.v[d].stride ? a->u.slices.v[d].stride : 1;
    if (a->u.slices.v[d].start == 0 && st == 1 && a->u.slices.v[d].limit == is->dims[d])
      out[d] = v->dims[d]; /* the whole dimension: it stays dynamic */
    else if (a->u.slices.v[d].limit > v->dims[d])
      return refuse(r, s, (hlo_val **)&v, "this slice would read past (its limit exceeds the "
                    "actual size)");
  }
  return HLO_OK;
}

/* Concatenation along a dimension some operand holds below its bound: the
 * operands' actual parts, one after the other (what XLA's dynamic padder
 * arranges), zero after them. */
static int concat_dynamic(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out,
                          bool *done) {
  const hlo_shape *os = &s->in->shape;
  int n;
  const int64_t *cd = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  *done = false;
  if (n != 1 || cd[0] < 0 || cd[0] >= os->rank) return HLO_OK; /* the kernel reports */
  int d = (int)cd[0];
  int64_t dims[MAXR], ost[MAXR], off[MAXR] = {0};
  bool moved = false;
  for (int i = 0; i < os->rank; i++) dims[i] = os->dims[i];
  for (int k = 0; k < s->nargs; k++) {
    int64_t a[MAXR];
    actual_of(args[k], a);
    moved |= a[d] < args[k]->shape->dims[d] && k + 1 < s->nargs;
    for (int i = 0; i < os->rank; i++)
      if (i != d && !merge(&dims[i], a[i], os->dims[i]))
        return disagree(r, s, "operands' dimension", i, dims[i], a[i]);
  }
  if (!moved) return HLO_OK; /* parts already in place: the kernel, then the sizes */
  *done = true;
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  hlo_strides(os, ost);
  size_t esz = (size_t)hlo_type_bytes(os->type);
  for (int k = 0; k < s->nargs; k++) {
    int64_t a[MAXR], st[MAXR];
    actual_of(args[k], a);
    for (int i = 0; i < os->rank; i++)
      if (i != d) a[i] = dims[i];
    hlo_strides(args[k]->shape, st);
    copy_box(args[k]->data, st, o->data, ost, os->rank, a, off, esz);
    off[d] += a[d];
  }
  dims[d] = off[d];
  *out = o;
  return hlo_dyn_put(r, s->in, out, dims);
}

static int concat_dims(hlo_run *r, const plan_step *s, hlo_val **args, int64_t *out) {
  const hlo_shape *os = &s->in->shape;
  int n;
  const int64_t *cd = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  int d = (int)cd[0];
  for (int i = 0; i < os->rank; i++) out[i] = os->dims[i];
  out[d] = 0;
  for (int k = 0; k < s->nargs; k++) {
    int64_t a[MAXR];
    actual_of(args[k], a);
    for (int i = 0; i < os->rank; i++) {
      if (i == d) out[d] += k + 1 < s->nargs ? args[k]->shape->dims[d] : a[d];
      else if (!merge(&out[i], a[i], os->dims[i]))
        return disagree(r, s, "operands' dimension", i, out[i], a[i]);
    }
  }
  return HLO_OK;
}

/* The result sizes of a dot; its contracted padding is masked to zero in
 * args (replaced by copies the caller releases, flagged in made[]). */
static int dot_prepare(hlo_run *r, const plan_step *s, hlo_val **args, bool *made, int64_t *out) {
  hlo_dot_lists dl;
  if (!hlo_dot_lists_of(s->in, &dl)) return hlo_run_errorf(r, s->in, "bad dot dimensions");
  const hlo_shape *ls = args[0]->shape, *rs = args[1]->shape;
  int64_t la[MAXR], ra[MAXR];
  actual_of(args[0], la);
  actual_of(args[1], ra);
  int64_t lm[MAXR], rm[MAXR]; /* mask limits */
  bool lfree[MAXR], rfree[MAXR], any = false;
  for (int i = 0; i < ls->rank; i++) lfree[i] = true, lm[i] = ls->dims[i];
  for (int i = 0; i < rs->rank; i++) rfree[i] = true, rm[i] = rs->dims[i];
  for (int i = 0; i < dl.nc; i++) {
    int l = (int)dl.lc[i], q = (int)dl.rc[i];
    int64_t c = ls->dims[l];
    if (!merge(&c, la[l], ls->dims[l]) || !merge(&c, ra[q], ls->dims[l]))
      return disagree(r, s, "contracting dimension", l, la[l], ra[q]);
    lm[l] = rm[q] = c; /* both masked past the contracted size */
    any |= c < ls->dims[l];
    lfree[l] = rfree[q] = false;
  }
  int o = 0;
  for (int i = 0; i < dl.nb; i++) {
    int l = (int)dl.lb[i], q = (int)dl.rb[i];
    int64_t b = ls->dims[l];
    if (!merge(&b, la[l], ls->dims[l]) || !merge(&b, ra[q], ls->dims[l]))
      return disagree(r, s, "batch dimension", l, la[l], ra[q]);
    lfree[l] = rfree[q] = false;
    out[o++] = b;
  }
  for (int i = 0; i < ls->rank; i++)
    if (lfree[i]) out[o++] = la[i];
  for (int i = 0; i < rs->rank; i++)
    if (rfree[i]) out[o++] = ra[i];
  if (!any) return HLO_OK;
  if (mask_arg(r, s, args, made, 0, lm, NULL)) return HLO_ERR;
  return mask_arg(r, s, args, made, 1, rm, NULL);
}

/* The kept sizes of a reduce; reduced padding is set to the init value in
 * args (copies flagged in made[]). */
static int reduce_prepare(hlo_run *r, const plan_step *s, hlo_val **args, bool *made,
                          int64_t *out) {
  int n = s->nargs / 2, nd;
  const int64_t *rd = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &nd);
  const hlo_shape *is = args[0]->shape;
  bool red[MAXR] = {false}, any = false;
  int64_t lim[MAXR];
  for (int i = 0; i < nd; i++)
    if (rd[i] >= 0 && rd[i] < is->rank) red[rd[i]] = true;
  int64_t a0[MAXR];
  for (int i = 0; i < is->rank; i++) a0[i] = is->dims[i];
  for (int k = 0; k < n; k++) {
    int64_t a[MAXR];
    actual_of(args[k], a);
    for (int i = 0; i < is->rank; i++)
      if (!merge(&a0[i], a[i], is->dims[i]))
        return disagree(r, s, "operands' dimension", i, a0[i], a[i]);
  }
  int o = 0;
  for (int i = 0; i < is->rank; i++) {
    lim[i] = red[i] ? a0[i] : is->dims[i];
    if (!red[i]) out[o++] = a0[i];
    else any |= a0[i] < is->dims[i];
  }
  if (!any) return HLO_OK;
  for (int k = 0; k < n; k++)
    if (mask_arg(r, s, args, made, k, lim, args[n + k]->data)) return HLO_ERR;
  return HLO_OK;
}

/* pad: the operand's padding set to the padding value first, so that the
 * result's first lo + n + (n-1)*interior + hi elements along a dynamic
 * dimension of actual size n are what padding the actual-size operand
 * gives; that count is the result's actual size. */
static int pad_prepare(hlo_run *r, const plan_step *s, hlo_val **args, bool *made, int64_t *out) {
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_PADDING);
  const hlo_shape *is = args[0]->shape, *os = &s->in->shape;
  if (!a || a->u.padding.n != is->rank || os->rank != is->rank)
    return hlo_run_errorf(r, s->in, "bad padding=");
  int64_t act[MAXR];
  actual_of(args[0], act);
  for (int d = 0; d < is->rank; d++) {
    const hlo_pad_dim *p = &a->u.padding.dims[d];
    int64_t n = act[d];
    out[d] = p->lo + n + (n > 0 ? (n - 1) * p->interior : 0) + p->hi;
    if (n == is->dims[d] || out[d] > os->dims[d]) out[d] = os->dims[d];
    if (out[d] < 0) out[d] = 0;
  }
  return mask_arg(r, s, args, made, 0, act, args[1]->data);
}

/* Ops that move elements only along the dimensions in dims= (reverse, sort):
 * the sizes stay where no such dimension is below its bound. */
static int along_dims(hlo_run *r, const plan_step *s, hlo_val **args, int64_t *out) {
  int n;
  const int64_t *dd = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  for (int k = 0; k < s->nargs; k++)
    for (int i = 0; i < n; i++)
      if (args[k]->dims && dd[i] >= 0 && dd[i] < args[k]->shape->rank &&
          args[k]->dims[dd[i]] < args[k]->shape->dims[dd[i]])
        return refuse(r, s, args, "this op cannot honour along the dimensions it orders");
  return elementwise_dims(r, s, args, out);
}

/* convolution: a dynamic batch dimension of the input and a dynamic
 * output-feature dimension of the kernel carry to the result's; a dynamic
 * input-feature dimension is contracted, its padding masked to zero in both
 * operands; a dynamic spatial dimension is refused.  With feature groups
 * only the batch may be dynamic (a depthwise convolution over a dynamic
 * batch); with batch groups, nothing. */
static int conv_prepare(hlo_run *r, const plan_step *s, hlo_val **args, bool *made, int64_t *out) {
  const hlo_attr *dl = hlo_instr_attr(s->in, HLO_A_DIM_LABELS);
  const hlo_conv_dnums *dn = dl ? dl->u.conv : NULL;
  const hlo_shape *is = args[0]->shape, *ks = args[1]->shape, *os = &s->in->shape;
  if (!dn) return refuse(r, s, args, "a convolution without dim_labels cannot honour");
  int64_t ia[MAXR], ka[MAXR], im[MAXR], km[MAXR];
  actual_of(args[0], ia);
  actual_of(args[1], ka);
  bool feature_dyn = ia[dn->in_feature] < is->dims[dn->in_feature] ||
                     ka[dn->kernel_in] < ks->dims[dn->kernel_in] || ka[dn->kernel_out] < ks->dims[dn->kernel_out];
  if (hlo_instr_int(s->in, HLO_A_BATCH_GROUP_COUNT, 1) != 1)
    return refuse(r, s, args, "a convolution with batch groups cannot honour");
  if (hlo_instr_int(s->in, HLO_A_FEATURE_GROUP_COUNT, 1) != 1 && feature_dyn)
    return refuse(r, s, args, "a convolution with feature groups cannot honour in a feature dimension");
  for (int i = 0; i < dn->nspatial; i++)
    if (ia[dn->in_spatial[i]] < is->dims[dn->in_spatial[i]] ||
        ka[dn->kernel_spatial[i]] < ks->dims[dn->kernel_spatial[i]])
      return refuse(r, s, args, "a convolution cannot honour in a spatial dimension");
  for (int i = 0; i < os->rank; i++) out[i] = os->dims[i];
  out[dn->out_batch] = ia[dn->in_batch];
  out[dn->out_feature] = ka[dn->kernel_out];
  if (hlo_instr_int(s->in, HLO_A_FEATURE_GROUP_COUNT, 1) != 1) return HLO_OK; /* features static */
  int64_t c = is->dims[dn->in_feature];
  if (!merge(&c, ia[dn->in_feature], is->dims[dn->in_feature]) ||
      !merge(&c, ka[dn->kernel_in], is->dims[dn->in_feature]))
    return disagree(r, s, "input feature dimension", (int)dn->in_feature, ia[dn->in_feature],
                    ka[dn->kernel_in]);
  if (c == is->dims[dn->in_feature]) return HLO_OK;
  for (int i = 0; i < is->rank; i++) im[i] = i == dn->in_feature ? c : is->dims[i];
  for (int i = 0; i < ks->rank; i++) km[i] = i == dn->kernel_in ? c : ks->dims[i];
  if (mask_arg(r, s, args, made, 0, im, NULL)) return HLO_ERR;
  return mask_arg(r, s, args, made, 1, km, NULL);
}

/* reduce-window: a dynamic dimension whose window is one element (size,
 * stride and dilations 1, no padding) keeps its size (a batch under
 * pooling); any other window over it is refused. */
static int window_dims(hlo_run *r, const plan_step *s, hlo_val **args, int64_t *out) {
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_WINDOW);
  int n = s->nargs / 2;
  const hlo_shape *os = &s->in->shape;
  if (os->type == HLO_TUPLE && os->ntuple) os = &os->tuple[0];
  for (int i = 0; i < os->rank; i++) out[i] = os->dims[i];
  for (int k = 0; k < n; k++) {
    const hlo_val *v = args[k];
    if (!a || a->u.window.n != v->shape->rank || v->shape->rank != os->rank)
      return hlo_run_errorf(r, s->in, "bad window=");
    for (int d = 0; v->dims && d < v->shape->rank; d++) {
      const hlo_window_dim *w = &a->u.window.dims[d];
      if (v->dims[d] == v->shape->dims[d]) continue;
      if (w->size != 1 || w->stride != 1 || w->pad_lo || w->pad_hi || w->lhs_dilate > 1 ||
          w->rhs_dilate > 1)
        return refuse(r, s, args, "a window wider than one element cannot honour");
      if (!merge(&out[d], v->dims[d], os->dims[d]))
        return disagree(r, s, "operands' dimension", d, out[d], v->dims[d]);
    }
  }
  return HLO_OK;
}

/* dynamic-slice: a dynamic dimension taken whole keeps its size; a window
 * inside the actual size (the start clamped as the kernel clamps it) gives
 * a static one; a window reaching past it is refused.  dynamic-update-slice
 * keeps the operand's sizes (writing into padding changes nothing) and
 * refuses a dynamic update. */
static int dslice_dims(hlo_run *r, const plan_step *s, hlo_val **args, int64_t *out) {
  const hlo_shape *is = args[0]->shape, *os = &s->in->shape;
  bool update = s->in->op == HLO_OP_DYNAMIC_UPDATE_SLICE;
  if (os->rank != is->rank) return hlo_run_errorf(r, s->in, "rank differs from the operand's");
  if (update) {
    if (args[1]->dims) return refuse(r, s, args, "a dynamic update cannot honour");
    actual_of(args[0], out);
    return HLO_OK;
  }
  int64_t start[MAXR];
  if (hlo_ref_read_starts(r, s, args, 1, is, os->dims, start)) return HLO_ERR;
  for (int d = 0; d < is->rank; d++) {
    out[d] = os->dims[d];
    if (!args[0]->dims || args[0]->dims[d] == is->dims[d]) continue;
    if (os->dims[d] == is->dims[d]) out[d] = args[0]->dims[d];
    else if (start[d] + os->dims[d] > args[0]->dims[d])
      return refuse(r, s, args, "this dynamic-slice would read past (its window exceeds the "
                    "actual size)");
  }
  return HLO_OK;
}

/* gather (XLA's dynamic dimension inference): a dynamic batch dimension of
 * the indices carries to the output's batch dimension in the same place; a
 * dynamic operand dimension sliced whole carries to its offset dimension,
 * one sliced to size 1 stops being dynamic (the gather reads the padding
 * as XLA's does), any other slice of it and a dynamic index vector are
 * refused. */
static int gather_dims(hlo_run *r, const plan_step *s, hlo_val **args, int64_t *out) {
  const hlo_shape *os = &s->in->shape, *is = args[1]->shape, *ps = args[0]->shape;
  int nofs, ncol, nob, nss;
  const int64_t *ofs = hlo_instr_ints(s->in, HLO_A_OFFSET_DIMS, &nofs);
  const int64_t *col = hlo_instr_ints(s->in, HLO_A_COLLAPSED_SLICE_DIMS, &ncol);
  const int64_t *ob = hlo_instr_ints(s->in, HLO_A_OPERAND_BATCHING_DIMS, &nob);
  const int64_t *ss = hlo_instr_ints(s->in, HLO_A_SLICE_SIZES, &nss);
  int64_t ivd = hlo_instr_int(s->in, HLO_A_INDEX_VECTOR_DIM, is->rank);
  if (nss != ps->rank) return hlo_run_errorf(r, s->in, "bad slice_sizes=");
  for (int i = 0; i < os->rank; i++) out[i] = os->dims[i];
  for (int d = 0; args[0]->dims && d < ps->rank; d++) {
    if (args[0]->dims[d] == ps->dims[d] || ss[d] == 1) continue;
    if (ss[d] != ps->dims[d])
      return refuse(r, s, args, "a gather slicing part of a dynamic operand dimension cannot honour");
    int k = 0; /* d's place among the operand dimensions that are offset dimensions */
    for (int e = 0; e < d; e++) k += !hlo_ints_contain(col, ncol, e) && !hlo_ints_contain(ob, nob, e);
    if (k >= nofs || ofs[k] < 0 || ofs[k] >= os->rank) return hlo_run_errorf(r, s->in, "bad offset_dims=");
    out[ofs[k]] = args[0]->dims[d];
  }
  int id = 0; /* the indices dimension of each output batch dimension, in order */
  for (int o = 0; args[1]->dims && o < os->rank; o++) {
    if (hlo_ints_contain(ofs, nofs, o)) continue;
    if (id == ivd) id++;
    if (id >= is->rank) return hlo_run_errorf(r, s->in, "bad offset_dims=");
    out[o] = args[1]->dims[id++];
  }
  if (args[1]->dims && ivd < is->rank && args[1]->dims[ivd] < is->dims[ivd])
    return refuse(r, s, args, "a gather cannot honour in its index vector dimension");
  return HLO_OK;
}

/* scatter (XLA's dynamic dimension inference and dynamic padder): the
 * result has the operands' sizes; the indices past their actual sizes are
 * set to the index type's largest value, so their update windows fall out
 * of bounds and are skipped; a dynamic update window dimension must be a
 * whole dynamic operand dimension of the same size. */
static int scatter_prepare(hlo_run *r, const plan_step *s, hlo_val **args, bool *made, int64_t *out) {
  int n = (s->nargs - 1) / 2, nuw, niw, nib;
  const int64_t *uw = hlo_instr_ints(s->in, HLO_A_UPDATE_WINDOW_DIMS, &nuw);
  const int64_t *iw = hlo_instr_ints(s->in, HLO_A_INSERTED_WINDOW_DIMS, &niw);
  const int64_t *ib = hlo_instr_ints(s->in, HLO_A_INPUT_BATCHING_DIMS, &nib);
  const hlo_shape *ps = args[0]->shape;
  actual_of(args[0], out);
  for (int k = 1; k < n; k++)
    for (int d = 0; args[k]->dims && d < ps->rank; d++)
      if (!merge(&out[d], args[k]->dims[d], ps->dims[d]))
        return disagree(r, s, "operands' dimension", d, out[d], args[k]->dims[d]);
  for (int k = n + 1; k < s->nargs; k++) {
    const hlo_val *u = args[k];
    for (int w = 0; u->dims && w < nuw; w++) {
      int64_t ud = uw[w];
      if (ud < 0 || ud >= u->shape->rank || u->dims[ud] == u->shape->dims[ud]) continue;
      int pd = -1; /* the operand dimension of update window dimension w */
      for (int e = 0, seen = 0; e < ps->rank && pd < 0; e++)
        if (!hlo_ints_contain(iw, niw, e) && !hlo_ints_contain(ib, nib, e) && seen++ == w) pd = e;
      if (pd < 0 || u->shape->dims[ud] != ps->dims[pd] || u->dims[ud] != out[pd])
        return refuse(r, s, args, "a scatter whose dynamic update window is not a whole dynamic operand "
                      "dimension cannot honour");
    }
  }
  const hlo_val *ix = args[n];
  if (!ix->dims) return HLO_OK;
  unsigned char maxv[8];
  hlo_sc top;
  int bits = hlo_type_bits(ix->shape->type);
  bool sgn = hlo_type_kind_of(ix->shape->type) == HLO_KIND_SINT;
  uint64_t mx = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  top.i = (int64_t)(sgn ? mx >> 1 : mx);
  top.f = 0;
  top.im = 0;
  hlo_sc_store(ix->shape->type, maxv, 0, top);
  return mask_arg(r, s, args, made, n, ix->dims, maxv);
}

/* The layout is the default (row-major) one, or absent. */
static bool descending(const hlo_shape *sh) {
  const hlo_layout *l = sh->layout;
  if (!l || l->n == 0) return true;
  for (int i = 0; i < l->n; i++)
    if (l->minor_to_major[i] != l->n - 1 - i) return false;
  return true;
}

bool hlo_dyn_native(const plan_step *s) {
  return s->in->op == HLO_OP_GET_DIMENSION_SIZE || s->in->op == HLO_OP_SET_DIMENSION_SIZE ||
         s->fn == hlo_ccall_pad_to_static || s->fn == hlo_ccall_slice_to_dynamic || hlo_ccall_is_dynconv(s);
}

int hlo_dyn_step(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out) {
  const hlo_instruction *in = s->in;
  int64_t dims[MAXR];
  hlo_val *a[64];
  bool made[64] = {false};
  if (s->nargs > 64) return refuse(r, s, args, "an op of more than 64 operands cannot carry");
  memcpy(a, args, sizeof(hlo_val *) * (size_t)s->nargs);
  int rc = HLO_OK;
  if (hlo_dyn_native(s)) return hlo_run_step(r, s, args, out);
  switch (in->op) {
  /* values pass whole, each keeping its own sizes */
  case HLO_OP_TUPLE: case HLO_OP_GET_TUPLE_ELEMENT: case HLO_OP_WHILE: case HLO_OP_CALL:
  case HLO_OP_CONDITIONAL: case HLO_OP_OPTIMIZATION_BARRIER: case HLO_OP_DOMAIN:
  case HLO_OP_ADD_DEPENDENCY: case HLO_OP_ASYNC_START: case HLO_OP_ASYNC_UPDATE:
  case HLO_OP_ASYNC_DONE:
    return hlo_run_step(r, s, args, out);
  case HLO_OP_FUSION: /* instruction by instruction, each carrying the sizes */
    return hlo_ctl_call(r, s, args, out);
  case HLO_OP_BROADCAST: {
    int n;
    const int64_t *bd = hlo_instr_ints(in, HLO_A_DIMENSIONS, &n);
    for (int i = 0; i < in->shape.rank; i++) dims[i] = in->shape.dims[i];
    for (int k = 0; k < n && k < args[0]->shape->rank; k++)
      if (bd[k] >= 0 && bd[k] < in->shape.rank) dims[bd[k]] = args[0]->dims[k];
    break;
  }
  case HLO_OP_TRANSPOSE: {
    int n;
    const int64_t *perm = hlo_instr_ints(in, HLO_A_DIMENSIONS, &n);
    for (int i = 0; i < in->shape.rank; i++)
      dims[i] = i < n && perm[i] >= 0 && perm[i] < args[0]->shape->rank ? args[0]->dims[perm[i]]
                                                                         : in->shape.dims[i];
    break;
  }
  case HLO_OP_RESHAPE: case HLO_OP_BITCAST:
    if (!hlo_shape_is_array(&in->shape) || in->shape.type != args[0]->shape->type ||
        (in->op == HLO_OP_BITCAST && (!descending(&in->shape) || !descending(args[0]->shape))))
      return refuse(r, s, args, "a bitcast that is not a row-major reshape cannot carry");
    rc = reshape_dims(r, s, args[0], dims);
    if (rc == RESHAPE_REPACK) return reshape_repack(r, s, args[0], dims, out);
    break;
  case HLO_OP_DYNAMIC_RESHAPE: { /* the sizes operands give the result's sizes */
    const hlo_shape *os = &in->shape;
    int64_t total = 1, want = 1;
    if (s->nargs != 1 + os->rank || !hlo_shape_is_array(os))
      return hlo_run_errorf(r, in, "needs one size operand per result dimension");
    for (int i = 0; i < args[0]->shape->rank; i++) total *= args[0]->dims ? args[0]->dims[i] : args[0]->shape->dims[i];
    for (int o = 0; o < os->rank; o++) {
      if (args[1 + o]->nelems != 1) return hlo_run_errorf(r, in, "size operand %d is not a scalar", 1 + o);
      dims[o] = hlo_sc_load(args[1 + o]->shape->type, args[1 + o]->data, 0).i;
      if (dims[o] < 0 || dims[o] > os->dims[o] || (dims[o] < os->dims[o] && !(os->dynamic && os->dynamic[o])))
        return hlo_run_errorf(r, in, "size %lld of result dimension %d is outside its bound %lld", (long long)dims[o], o,
                              (long long)os->dims[o]);
      want *= dims[o];
    }
    if (want != total)
      return hlo_run_errorf(r, in, "the sizes hold %lld elements, the operand %lld", (long long)want, (long long)total);
    return reshape_repack(r, s, args[0], dims, out);
  }
  case HLO_OP_SLICE: rc = slice_dims(r, s, args[0], dims); break;
  case HLO_OP_CONCATENATE: {
    bool done;
    rc = concat_dynamic(r, s, args, out, &done);
    if (rc != HLO_OK || done) return rc;
    rc = concat_dims(r, s, args, dims);
    break;
  }
  case HLO_OP_DOT: rc = dot_prepare(r, s, a, made, dims); break;
  case HLO_OP_REDUCE: rc = reduce_prepare(r, s, a, made, dims); break;
  case HLO_OP_PAD: rc = pad_prepare(r, s, a, made, dims); break;
  case HLO_OP_CONVOLUTION: rc = conv_prepare(r, s, a, made, dims); break;
  case HLO_OP_REDUCE_WINDOW: rc = window_dims(r, s, args, dims); break;
  case HLO_OP_DYNAMIC_SLICE: case HLO_OP_DYNAMIC_UPDATE_SLICE:
    rc = dslice_dims(r, s, args, dims);
    break;
  case HLO_OP_REVERSE: case HLO_OP_SORT: rc = along_dims(r, s, args, dims); break;
  case HLO_OP_GATHER: rc = gather_dims(r, s, args, dims); break;
  case HLO_OP_SCATTER: rc = scatter_prepare(r, s, a, made, dims); break;
  default:
    if (!(hlo_opcode_flags(in->op) & HLO_F_ELEMENTWISE) && in->op != HLO_OP_REDUCE_PRECISION &&
        in->op != HLO_OP_MAP &&
        !(in->op == HLO_OP_BITCAST_CONVERT && in->shape.rank == args[0]->shape->rank))
      return refuse(r, s, args, "hlo-run cannot honour in this op");
    rc = elementwise_dims(r, s, args, dims);
    break;
  }
  if (rc == HLO_OK) rc = hlo_run_step(r, s, a, out);
  for (int k = 0; k < s->nargs; k++)
    if (made[k]) hlo_run_release(r, a[k]);
  if (rc != HLO_OK) return rc;
  if ((*out)->shape->type == HLO_TUPLE) { /* variadic reduce: every result alike */
    for (int i = 0; i < (*out)->ntuple && rc == HLO_OK; i++)
      rc = hlo_dyn_put(r, in, &(*out)->tuple[i], dims);
    return rc;
  }
  return hlo_dyn_put(r, in, out, dims);
}

/* ---- the caller's dense form ---------------------------------------------- */
static bool has_dims(const hlo_val *v) {
  if (v->dims) return true;
  for (int i = 0; i < v->ntuple; i++)
    if (has_dims(v->tuple[i])) return true;
  return false;
}

/* Copy between dense (elements of dense->dims in row-major order) and
 * padded (the bound's layout): into padded when to_padded, else back. */
static void dense_copy(hlo_val *dense, hlo_val *padded, bool to_padded) {
  const hlo_shape *sh = padded->shape;
  /* the sizes travel with the dynamic side (a dense value whose sizes are
   * the bounds is a static one, without dims) */
  const int64_t *dims = to_padded ? dense->dims : padded->dims;
  int64_t dst[MAXR], pst[MAXR], acc = 1;
  for (int i = sh->rank - 1; i >= 0; i--) {
    dst[i] = acc;
    acc *= dims[i];
  }
  hlo_strides(sh, pst);
  size_t esz = (size_t)hlo_type_bytes(sh->type);
  if (to_padded) copy_box(dense->data, dst, padded->data, pst, sh->rank, dims, NULL, esz);
  else copy_box(padded->data, pst, dense->data, dst, sh->rank, dims, NULL, esz);
}

int hlo_dyn_enter(hlo_run *r, hlo_val *arg, hlo_val **padded) {
  if (!arg->dims) { *padded = hlo_val_ref(arg); return HLO_OK; }
  const hlo_shape *sh = arg->shape;
  hlo_val *v = hlo_run_new(r, sh);
  if (!v) return hlo_errorf(r->d, NULL, 0, "out of memory");
  if (arg->nbytes) dense_copy(arg, v, true);
  v->dims = hlo_malloc(r->alloc, sizeof(int64_t) * (size_t)sh->rank);
  if (!v->dims) { hlo_run_release(r, v); return hlo_errorf(r->d, NULL, 0, "out of memory"); }
  memcpy(v->dims, arg->dims, sizeof(int64_t) * (size_t)sh->rank);
  *padded = v;
  return HLO_OK;
}

int hlo_dyn_leave(hlo_run *r, hlo_val **res) {
  hlo_val *v = *res;
  if (!has_dims(v)) return HLO_OK;
  hlo_val *n;
  if (v->ntuple) {
    n = hlo_malloc(r->alloc, sizeof *n);
    hlo_val **t = hlo_malloc(r->alloc, sizeof(hlo_val *) * (size_t)v->ntuple);
    if (!n || !t) {
      hlo_free(r->alloc, n);
      hlo_free(r->alloc, t);
      return hlo_errorf(r->d, NULL, 0, "out of memory");
    }
    memset(n, 0, sizeof *n);
    n->refs = 1;
    n->shape = v->shape;
    n->ntuple = v->ntuple;
    n->tuple = t;
    for (int i = 0; i < v->ntuple; i++) t[i] = hlo_val_ref(v->tuple[i]);
    int rc = HLO_OK;
    for (int i = 0; i < v->ntuple; i++)
      if (rc == HLO_OK) rc = hlo_dyn_leave(r, &t[i]);
    if (rc != HLO_OK) { hlo_val_release(r->alloc, n); return rc; }
  } else {
    const hlo_shape *sh = v->shape;
    n = hlo_val_new_sized(r->alloc, sh, v->dims);
    if (!n) return hlo_errorf(r->d, NULL, 0, "out of memory");
    if (n->nbytes) dense_copy(n, v, false);
  }
  hlo_val_release(r->alloc, v);
  *res = n;
  return HLO_OK;
}
