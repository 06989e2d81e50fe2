/* infer_linalg.c - shape rules of dot (with dimension numbers), ragged-dot,
 * scaled-dot, convolution (dim_labels, window, group counts), fft,
 * triangular-solve and cholesky. */
#include <string.h>

#include "core/bug.h"
#include "shape/infer_internal.h"

/* The general dot rule over lhs/rhs; rhs_skip (or -1) is an rhs dimension
 * left out of the result (ragged-dot's group dimension).  Result dims go to
 * dims[], count to *rank. */
static int dot_dims(infer_ctx *c, const hlo_shape *l, const hlo_shape *r, int64_t rhs_skip, int64_t *dims, int *rank,
                    int *src_side, int *src_dim) {
  const hlo_instruction *in = c->in;
  int nlb, nlc, nrb, nrc;
  const int64_t *lb = hlo_instr_ints(in, HLO_A_LHS_BATCH_DIMS, &nlb);
  const int64_t *lc = hlo_instr_ints(in, HLO_A_LHS_CONTRACTING_DIMS, &nlc);
  const int64_t *rb = hlo_instr_ints(in, HLO_A_RHS_BATCH_DIMS, &nrb);
  const int64_t *rc = hlo_instr_ints(in, HLO_A_RHS_CONTRACTING_DIMS, &nrc);
  if (nlc != nrc)
    return sx_fail(c, "Must specify the same number of contracting dimensions for lhs and rhs (%d vs %d).", nlc, nrc);
  if (nlb != nrb)
    return sx_fail(c, "Must specify the same number of batch dimensions for lhs and rhs (%d vs %d).", nlb, nrb);
  if (sx_dims_in_range(c, "lhs_contracting_dims", lc, nlc, l->rank) ||
      sx_dims_in_range(c, "rhs_contracting_dims", rc, nrc, r->rank) ||
      sx_dims_in_range(c, "lhs_batch_dims", lb, nlb, l->rank) ||
      sx_dims_in_range(c, "rhs_batch_dims", rb, nrb, r->rank) || sx_dims_unique(c, "lhs_contracting_dims", lc, nlc) ||
      sx_dims_unique(c, "rhs_contracting_dims", rc, nrc) || sx_dims_unique(c, "lhs_batch_dims", lb, nlb) ||
      sx_dims_unique(c, "rhs_batch_dims", rb, nrb))
    return HLO_ERR;
  for (int i = 0; i < nlb; i++) {
    if (hlo_ints_contain(lc, nlc, lb[i]))
      return sx_fail(c, "A dimension number is not unique in the dot dimension numbers: lhs dimension %lld is both batch and contracting.",
                     (long long)lb[i]);
    if (hlo_ints_contain(rc, nrc, rb[i]))
      return sx_fail(c, "A dimension number is not unique in the dot dimension numbers: rhs dimension %lld is both batch and contracting.",
                     (long long)rb[i]);
  }
  for (int i = 0; i < nlc; i++) {
    int64_t a = l->dims[lc[i]], b = r->dims[rc[i]];
    if (a != b && a != HLO_DIM_UNBOUNDED && b != HLO_DIM_UNBOUNDED)
      return sx_fail(c, "Contracting dimension sizes do not match: lhs dimension %lld is %lld, rhs dimension %lld is %lld.",
                     (long long)lc[i], (long long)a, (long long)rc[i], (long long)b);
  }
  for (int i = 0; i < nlb; i++) {
    int64_t a = l->dims[lb[i]], b = r->dims[rb[i]];
    if (a != b && a != HLO_DIM_UNBOUNDED && b != HLO_DIM_UNBOUNDED)
      return sx_fail(c, "Batch dimension sizes do not match: lhs dimension %lld is %lld, rhs dimension %lld is %lld.",
                     (long long)lb[i], (long long)a, (long long)rb[i], (long long)b);
  }
  int k = 0;
  for (int i = 0; i < nlb; i++) src_side[k] = 0, src_dim[k] = (int)lb[i], dims[k++] = l->dims[lb[i]];
  for (int d = 0; d < l->rank; d++)
    if (!hlo_ints_contain(lb, nlb, d) && !hlo_ints_contain(lc, nlc, d)) src_side[k] = 0, src_dim[k] = d, dims[k++] = l->dims[d];
  for (int d = 0; d < r->rank; d++)
    if (!hlo_ints_contain(rb, nrb, d) && !hlo_ints_contain(rc, nrc, d) && d != rhs_skip)
      src_side[k] = 1, src_dim[k] = d, dims[k++] = r->dims[d];
  *rank = k;
  return HLO_OK;
}

static int dot_like(infer_ctx *c, int li, int ri, int64_t rhs_skip, int prefix_n, const int64_t *prefix) {
  if (sx_need_array(c, li, "dot") || sx_need_array(c, ri, "dot")) return HLO_ERR;
  const hlo_shape *l = sx_op(c, li), *r = sx_op(c, ri);
  if (!sx_same_type_fp(l->type, r->type) && !(hlo_type_is_int(l->type) && hlo_type_is_int(r->type)) &&
      c->in->op != HLO_OP_SCALED_DOT)
    return sx_fail(c, "Cannot infer shape for dot operation: %s <dot> %s: element types differ.", sx_str(c, l),
                   sx_str(c, r));
  int64_t dims[prefix_n + l->rank + r->rank + 1];
  int side[l->rank + r->rank + 1], sdim[l->rank + r->rank + 1];
  int rank = 0;
  for (int i = 0; i < prefix_n; i++) dims[i] = prefix[i];
  if (dot_dims(c, l, r, rhs_skip, dims + prefix_n, &rank, side, sdim)) return HLO_ERR;
  hlo_type t = sx_declared_type(c, hlo_shape_higher_precision(l->type, r->type));
  if (sx_array(c, t, prefix_n + rank, dims)) return HLO_ERR;
  for (int i = 0; i < rank; i++)
    if (sx_keep_dynamic(c, prefix_n + i, side[i] ? r : l, sdim[i])) return HLO_ERR;
  return HLO_OK;
}

int hlo_shape_infer_dot(infer_ctx *c) {
  if (hlo_instr_attr(c->in, HLO_A_SPARSITY)) { /* sparse dot: lhs holds half the contracting size */
    if (sx_need_array(c, 0, "dot") || sx_need_array(c, 1, "dot")) return HLO_ERR;
    return sx_declared(c);
  }
  return dot_like(c, 0, 1, -1, 0, NULL);
}

/* scaled-dot(lhs, rhs, lhs_scale, rhs_scale): the dot of lhs and rhs
 * (XLA's InferDotOpShape); the verifier checks the scales. */
int hlo_shape_infer_scaled_dot(infer_ctx *c) {
  for (int i = 0; i < 4; i++)
    if (sx_need_array(c, i, "scaled-dot")) return HLO_ERR;
  return dot_like(c, 0, 1, -1, 0, NULL);
}

/* ragged-dot(lhs, rhs, group_sizes): the ragged lhs dimension decides the
 * mode (non-contracting: rhs group dim dropped; contracting: result gets a
 * leading group dimension; batch: as dot). */
int hlo_shape_infer_ragged_dot(infer_ctx *c) {
  for (int i = 0; i < 3; i++)
    if (sx_need_array(c, i, "ragged-dot")) return HLO_ERR;
  const hlo_shape *l = sx_op(c, 0), *r = sx_op(c, 1), *g = sx_op(c, 2);
  int nr, ng, nlc, nlb;
  const int64_t *ragged = hlo_instr_ints(c->in, HLO_A_LHS_RAGGED_DIMS, &nr);
  const int64_t *grp = hlo_instr_ints(c->in, HLO_A_RHS_GROUP_DIMS, &ng);
  const int64_t *lc = hlo_instr_ints(c->in, HLO_A_LHS_CONTRACTING_DIMS, &nlc);
  const int64_t *lb = hlo_instr_ints(c->in, HLO_A_LHS_BATCH_DIMS, &nlb);
  if (nr != 1) return sx_fail(c, "ragged-dot needs exactly one lhs_ragged_dims entry; got %d.", nr);
  if (sx_dims_in_range(c, "lhs_ragged_dims", ragged, 1, l->rank) || sx_dims_in_range(c, "rhs_group_dims", grp, ng, r->rank))
    return HLO_ERR;
  if (!hlo_type_is_int(g->type)) return sx_fail(c, "ragged-dot group_sizes must be integers; got %s.", sx_str(c, g));
  if (hlo_ints_contain(lc, nlc, ragged[0])) {
    int64_t groups = g->rank ? g->dims[g->rank - 1] : 1;
    return dot_like(c, 0, 1, -1, 1, &groups);
  }
  if (hlo_ints_contain(lb, nlb, ragged[0])) return dot_like(c, 0, 1, -1, 0, NULL);
  if (ng != 1) return sx_fail(c, "ragged-dot with a ragged non-contracting dimension needs one rhs_group_dims entry.");
  return dot_like(c, 0, 1, grp[0], 0, NULL);
}

int hlo_shape_infer_convolution(infer_ctx *c) {
  HLO_ASSERT(c->in->noperands == 2); /* hlo_infer_shape checked the operand count */
  if (sx_need_array(c, 0, "convolution") || sx_need_array(c, 1, "convolution")) return HLO_ERR;
  const hlo_shape *l = sx_op(c, 0), *r = sx_op(c, 1);
  const hlo_attr *da = hlo_instr_attr(c->in, HLO_A_DIM_LABELS);
  if (!da || da->kind != HLO_AK_CONV_DNUMS) return sx_fail(c, "convolution needs a dim_labels attribute");
  const hlo_conv_dnums *dn = da->u.conv;
  int ns = dn->nspatial, n = ns + 2;
  if (!sx_same_type_fp(l->type, r->type) && !(hlo_type_is_int(l->type) && hlo_type_is_int(r->type)))
    return sx_fail(c, "Convolution with different element types: %s and %s.", sx_str(c, l), sx_str(c, r));
  if (l->rank != n || r->rank != n)
    return sx_fail(c, "Convolution arguments must have rank %d (from dim_labels); got lhs %s and rhs %s.", n,
                   sx_str(c, l), sx_str(c, r));
  const hlo_attr *wa = hlo_instr_attr(c->in, HLO_A_WINDOW);
  int nw = wa && wa->kind == HLO_AK_WINDOW ? wa->u.window.n : 0;
  if (nw != ns)
    return sx_fail(c, "Window must have %d dimensions (one per spatial dimension); got %d.", ns, nw);
  /* all dimension numbers distinct and in range on each side */
  int64_t ind[n], kd[n], od[n];
  ind[0] = dn->in_batch, ind[1] = dn->in_feature;
  kd[0] = dn->kernel_in, kd[1] = dn->kernel_out;
  od[0] = dn->out_batch, od[1] = dn->out_feature;
  for (int i = 0; i < ns; i++)
    ind[i + 2] = dn->in_spatial[i], kd[i + 2] = dn->kernel_spatial[i], od[i + 2] = dn->out_spatial[i];
  if (sx_dims_in_range(c, "input dimension numbers", ind, n, n) || sx_dims_unique(c, "input dimension numbers", ind, n) ||
      sx_dims_in_range(c, "kernel dimension numbers", kd, n, n) || sx_dims_unique(c, "kernel dimension numbers", kd, n) ||
      sx_dims_in_range(c, "output dimension numbers", od, n, n) || sx_dims_unique(c, "output dimension numbers", od, n))
    return HLO_ERR;
  int64_t fgc = hlo_instr_int(c->in, HLO_A_FEATURE_GROUP_COUNT, 1);
  int64_t bgc = hlo_instr_int(c->in, HLO_A_BATCH_GROUP_COUNT, 1);
  if (fgc <= 0) return sx_fail(c, "feature_group_count must be a positive number, got %lld", (long long)fgc);
  if (bgc <= 0) return sx_fail(c, "batch_group_count must be a positive number, got %lld", (long long)bgc);
  if (fgc > 1 && bgc > 1)
    return sx_fail(c, "Both feature_group_count (%lld) and batch_group_count (%lld) cannot be greater than 1",
                   (long long)fgc, (long long)bgc);
  int64_t ib = l->dims[dn->in_batch], inf = l->dims[dn->in_feature];
  int64_t kin = r->dims[dn->kernel_in], kout = r->dims[dn->kernel_out];
  if (inf % fgc)
    return sx_fail(c, "Expected the input feature dimension (%lld) to be a multiple of feature_group_count (%lld).",
                   (long long)inf, (long long)fgc);
  if (inf != kin * fgc)
    return sx_fail(c, "Expected LHS feature dimension (value %lld) to match RHS input feature dimension * feature_group_count (value %lld * %lld); got <conv>(%s, %s).",
                   (long long)inf, (long long)kin, (long long)fgc, sx_str(c, l), sx_str(c, r));
  if (kout % fgc)
    return sx_fail(c, "Expected output feature dimension (value %lld) to be divisible by feature_group_count (value %lld).",
                   (long long)kout, (long long)fgc);
  if (ib % bgc)
    return sx_fail(c, "Expected input batch dimension (%lld) to be divisible by batch_group_count (%lld).",
                   (long long)ib, (long long)bgc);
  if (kout % bgc)
    return sx_fail(c, "Expected output feature dimension size (value %lld) to be a multiple of batch group count %lld.",
                   (long long)kout, (long long)bgc);
  int64_t dims[n];
  dims[dn->out_batch] = ib == HLO_DIM_UNBOUNDED ? ib : ib / bgc;
  dims[dn->out_feature] = kout;
  for (int i = 0; i < ns; i++) {
    const hlo_window_dim *w = &wa->u.window.dims[i];
    int64_t ksz = r->dims[dn->kernel_spatial[i]];
    if (w->size != ksz)
      return sx_fail(c, "Window dimensions do not match RHS shape: RHS spatial dimension %d is %lld but the window size is %lld.",
                     i, (long long)ksz, (long long)w->size);
    /* a kernel spatial dim of size 0 is a window of size 0, which XLA's
     * window shape inference rejects as for reduce-window */
    if (w->size <= 0 || w->stride <= 0 || w->lhs_dilate <= 0 || w->rhs_dilate <= 0)
      return sx_fail(c, "Window dimension %d has a non-positive size, stride or dilation.", i);
    int64_t in = l->dims[dn->in_spatial[i]];
    int64_t o = in == HLO_DIM_UNBOUNDED ? in : sx_window_out(in, w);
    if (o < 0 && o != HLO_DIM_UNBOUNDED) return sx_fail(c, "Window dimension %d gives an invalid output size.", i);
    dims[dn->out_spatial[i]] = o;
  }
  hlo_type t = sx_declared_type(c, hlo_shape_higher_precision(l->type, r->type));
  if (sx_array(c, t, n, dims)) return HLO_ERR;
  return bgc == 1 ? sx_keep_dynamic(c, (int)dn->out_batch, l, (int)dn->in_batch) : HLO_OK;
}

int hlo_shape_infer_fft(infer_ctx *c) {
  if (sx_need_array_or_buffer(c, 0, "fft")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0);
  const char *ty = hlo_instr_word(c->in, HLO_A_FFT_TYPE);
  int nl;
  const int64_t *len = hlo_instr_ints(c->in, HLO_A_FFT_LENGTH, &nl);
  if (!ty) return sx_fail(c, "fft needs an fft_type attribute");
  if (nl < 1 || nl > 3) return sx_fail(c, "FFT only supports ranks 1-3; got %d.", nl);
  if (nl > s->rank)
    return sx_fail(c, "FFT of rank %d requires input of at least same rank; got input of rank %d", nl, s->rank);
  int r = s->rank;
  bool cx = sx_is_complex(s->type);
  if (!strcmp(ty, "FFT") || !strcmp(ty, "IFFT")) {
    if (!cx) return sx_fail(c, "%s requires complex input type, found %s.", ty, hlo_type_name(s->type));
    return sx_copy(c, s);
  }
  if (!strcmp(ty, "RFFT")) {
    if (s->type != HLO_F32 && s->type != HLO_F64)
      return sx_fail(c, "RFFT requires f32 or f64 input type, found %s.", hlo_type_name(s->type));
    for (int i = 0; i < nl; i++)
      if (s->dims[r - nl + i] != len[i] && s->dims[r - nl + i] != HLO_DIM_UNBOUNDED)
        return sx_fail(c, "RFFT requires innermost dimensions match fft_length but dimension %d is %lld and should be %lld.",
                       r - nl + i, (long long)s->dims[r - nl + i], (long long)len[i]);
    int64_t dims[r];
    memcpy(dims, s->dims, (size_t)r * sizeof(int64_t));
    if (len[nl - 1] != 0) dims[r - 1] = len[nl - 1] / 2 + 1;
    return sx_array(c, s->type == HLO_F64 ? HLO_C128 : HLO_C64, r, dims);
  }
  if (!strcmp(ty, "IRFFT")) {
    if (!cx) return sx_fail(c, "IRFFT requires complex input type, found %s.", hlo_type_name(s->type));
    int64_t dims[r];
    memcpy(dims, s->dims, (size_t)r * sizeof(int64_t));
    for (int i = 0; i < nl - 1; i++)
      if (s->dims[r - nl + i] != len[i])
        return sx_fail(c, "IRFFT requires all but one innermost dimensions match fft_length, but dimension %d is %lld and should be %lld.",
                       r - nl + i, (long long)s->dims[r - nl + i], (long long)len[i]);
    int64_t last = len[nl - 1];
    if (s->dims[r - 1] != (last == 0 ? 0 : last / 2 + 1))
      return sx_fail(c, "IRFFT requires innermost dimension to be fft_length[-1] / 2 + 1 = %lld; got %lld.",
                     (long long)(last == 0 ? 0 : last / 2 + 1), (long long)s->dims[r - 1]);
    dims[r - 1] = last;
    return sx_array(c, sx_complex_component(s->type), r, dims);
  }
  return sx_fail(c, "Unknown fft_type %s.", ty);
}

int hlo_shape_infer_triangular_solve(infer_ctx *c) {
  if (sx_need_array_or_buffer(c, 0, "triangular-solve") || sx_need_array_or_buffer(c, 1, "triangular-solve")) return HLO_ERR;
  const hlo_shape *a = sx_op(c, 0), *b = sx_op(c, 1);
  hlo_type_kind k = hlo_type_kind_of(a->type);
  if (k != HLO_KIND_FLOAT && k != HLO_KIND_COMPLEX)
    return sx_fail(c, "Expected element types in shape to be floating or complex for TriangularSolve; got %s.",
                   hlo_type_name(a->type));
  if (a->type != b->type)
    return sx_fail(c, "Arguments to triangular solve must have equal element types; got %s and %s.",
                   hlo_type_name(a->type), hlo_type_name(b->type));
  if (a->rank < 2) return sx_fail(c, "The 'a' argument to TriangularSolve must have rank >= 2, got shape %s", sx_str(c, a));
  if (a->rank != b->rank)
    return sx_fail(c, "Arguments to triangular solve must have equal rank; got %s and %s.", sx_str(c, a), sx_str(c, b));
  int r = a->rank;
  if (a->dims[r - 2] != a->dims[r - 1])
    return sx_fail(c, "The two minor dimensions of 'a' must have equal size, got %s.", sx_str(c, a));
  bool left = hlo_instr_bool(c->in, HLO_A_LEFT_SIDE, false);
  int64_t bd = b->dims[left ? r - 2 : r - 1];
  if (bd != a->dims[r - 1])
    return sx_fail(c, "The shared dimension of 'a' and 'b' does not match, got shapes %s and %s", sx_str(c, a),
                   sx_str(c, b));
  for (int i = 0; i < r - 2; i++)
    if (a->dims[i] != b->dims[i])
      return sx_fail(c, "The leading batch dimensions of the arguments to triangular solve must be equal; got %s and %s.",
                     sx_str(c, a), sx_str(c, b));
  return sx_copy(c, b);
}

int hlo_shape_infer_cholesky(infer_ctx *c) {
  if (sx_need_array_or_buffer(c, 0, "cholesky")) return HLO_ERR;
  const hlo_shape *a = sx_op(c, 0);
  hlo_type_kind k = hlo_type_kind_of(a->type);
  if (k != HLO_KIND_FLOAT && k != HLO_KIND_COMPLEX)
    return sx_fail(c, "Expected element type in shape to be floating or complex for Cholesky; got %s.",
                   hlo_type_name(a->type));
  if (a->rank < 2) return sx_fail(c, "The 'a' argument to Cholesky must have rank >= 2, got shape %s", sx_str(c, a));
  if (a->dims[a->rank - 2] != a->dims[a->rank - 1])
    return sx_fail(c, "The two minor dimensions of 'a' must have equal size, got %s.", sx_str(c, a));
  return sx_copy(c, a);
}
