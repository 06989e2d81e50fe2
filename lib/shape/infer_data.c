/* infer_data.c - shape rules of the data-movement ops: reshape, transpose,
 * broadcast, slice, dynamic-slice, dynamic-update-slice, pad, concatenate,
 * reverse and iota.  (gather/scatter live in infer_gather.c.) */
#include <string.h>

#include "core/bug.h"
#include "shape/infer_internal.h"

static bool has_unbounded(const hlo_shape *s) {
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] == HLO_DIM_UNBOUNDED) return true;
  return false;
}

int hlo_shape_infer_reshape(infer_ctx *c) {
  if (sx_need_array(c, 0, "reshape")) return HLO_ERR;
  if (sx_declared(c)) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0), *r = &c->in->shape;
  if (!hlo_shape_is_array(r)) return sx_fail(c, "reshape result must be an array; got %s.", sx_str(c, r));
  if (!sx_same_type_fp(s->type, r->type) && s->type != r->type)
    return sx_fail(c, "reshape changes the element type: %s to %s.", sx_str(c, s), sx_str(c, r));
  int64_t ne, nr;
  if (!has_unbounded(s) && !has_unbounded(r) && hlo_shape_elements(s, &ne) && hlo_shape_elements(r, &nr) &&
      ne != nr)
    return sx_fail(c, "Reshape operation has mismatched element counts: from=%lld (%s) to=%lld (%s).",
                   (long long)ne, sx_str(c, s), (long long)nr, sx_str(c, r));
  c->out->type = s->type;
  return HLO_OK;
}

int hlo_shape_infer_dynamic_reshape(infer_ctx *c) {
  HLO_ASSERT(c->in->noperands >= 1); /* hlo_infer_shape checked the operand count */
  if (sx_need_array_or_buffer(c, 0, "dynamic-reshape")) return HLO_ERR;
  if (sx_declared(c)) return HLO_ERR;
  const hlo_shape *r = &c->in->shape;
  if (!hlo_shape_is_array(r)) return sx_fail(c, "dynamic-reshape result must be an array");
  if (c->in->noperands - 1 != r->rank)
    return sx_fail(c, "dynamic-reshape needs one size operand per result dimension (%d); got %d.", r->rank,
                   c->in->noperands - 1);
  for (int i = 1; i < c->in->noperands; i++) {
    const hlo_shape *d = sx_op(c, i);
    if (!hlo_shape_is_scalar(d) || !hlo_type_is_int(d->type))
      return sx_fail(c, "dynamic-reshape size operand %d must be an integer scalar; got %s.", i, sx_str(c, d));
  }
  c->out->type = sx_op(c, 0)->type;
  return HLO_OK;
}

int hlo_shape_infer_transpose(infer_ctx *c) {
  if (sx_need_array(c, 0, "transpose")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0);
  int n;
  const int64_t *p = hlo_instr_ints(c->in, HLO_A_DIMENSIONS, &n);
  if (n != s->rank)
    return sx_fail(c, "Transpose dimensions %d must have the same rank as the operand %s.", n, sx_str(c, s));
  if (sx_dims_in_range(c, "transpose dimensions", p, n, s->rank) || sx_dims_unique(c, "transpose dimensions", p, n))
    return HLO_ERR;
  int64_t dims[n ? n : 1];
  bool dyn[n ? n : 1], any = false;
  for (int i = 0; i < n; i++) {
    dims[i] = s->dims[p[i]];
    dyn[i] = s->dynamic && s->dynamic[p[i]];
    any |= dyn[i];
  }
  if (sx_array(c, s->type, n, dims)) return HLO_ERR;
  if (any) {
    if (!(c->out->dynamic = hlo_arena_array(c->a, (size_t)n, sizeof(bool)))) return HLO_ERR;
    memcpy(c->out->dynamic, dyn, (size_t)n * sizeof(bool));
  }
  return HLO_OK;
}

int hlo_shape_infer_broadcast(infer_ctx *c) {
  if (sx_need_array(c, 0, "broadcast")) return HLO_ERR;
  if (sx_declared(c)) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0), *r = &c->in->shape;
  if (!hlo_shape_is_array(r)) return sx_fail(c, "broadcast result must be an array; got %s.", sx_str(c, r));
  int n;
  const int64_t *bd = hlo_instr_ints(c->in, HLO_A_DIMENSIONS, &n);
  if (n != s->rank)
    return sx_fail(c, "Broadcast HLO (%s) has invalid number of dimensions: %d != %d.", c->in->name, n, s->rank);
  if (sx_dims_in_range(c, "broadcast dimensions", bd, n, r->rank)) return HLO_ERR;
  for (int i = 0; i < n; i++) {
    /* XLA's HLO broadcast needs no order (see --verify-broadcast-dimensions-order) */
    int64_t od = r->dims[bd[i]];
    if (s->dims[i] != od && s->dims[i] != HLO_DIM_UNBOUNDED && od != HLO_DIM_UNBOUNDED)
      return sx_fail(c, "Broadcast operand dimension %d has size %lld but result dimension %lld has size %lld.", i,
                     (long long)s->dims[i], (long long)bd[i], (long long)od);
  }
  if (!sx_same_type_fp(s->type, r->type) && s->type != r->type)
    return sx_fail(c, "broadcast changes the element type: %s to %s.", sx_str(c, s), sx_str(c, r));
  c->out->type = s->type;
  return HLO_OK;
}

int hlo_shape_infer_slice(infer_ctx *c) {
  if (sx_need_array(c, 0, "slice")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0);
  const hlo_attr *at = hlo_instr_attr(c->in, HLO_A_SLICE);
  if (!at || at->kind != HLO_AK_SLICES) return sx_fail(c, "slice needs a slice={...} attribute");
  int n = at->u.slices.n;
  if (n != s->rank)
    return sx_fail(c, "Slice index count does not match argument rank: %d vs %d.", n, s->rank);
  int64_t dims[n ? n : 1];
  for (int i = 0; i < n; i++) {
    hlo_slice_dim sd = at->u.slices.v[i];
    if (sd.stride <= 0) return sx_fail(c, "Stride (%lld) must be positive.", (long long)sd.stride);
    if (sd.start < 0) return sx_fail(c, "Negative start index to slice: %lld.", (long long)sd.start);
    if (sd.limit < sd.start)
      return sx_fail(c, "Limit index (%lld) must be greater or equal to start index (%lld) in slice with positive stride.",
                     (long long)sd.limit, (long long)sd.start);
    if (s->dims[i] != HLO_DIM_UNBOUNDED && sd.limit > s->dims[i])
      return sx_fail(c, "Limit index (%lld) must be less than or equal to dimension size (%lld)", (long long)sd.limit,
                     (long long)s->dims[i]);
    dims[i] = (sd.limit - sd.start + sd.stride - 1) / sd.stride;
  }
  return sx_array(c, s->type, n, dims);
}

static int scalar_int_indices(infer_ctx *c, int first, int count, const char *what) {
  hlo_type t = HLO_TYPE_COUNT;
  for (int i = first; i < first + count; i++) {
    const hlo_shape *s = sx_op(c, i);
    if (!hlo_shape_is_scalar(s) || !hlo_type_is_int(s->type))
      return sx_fail(c, "%s start index operand %d must be an integer scalar; got %s.", what, i - first,
                     sx_str(c, s));
    if (t != HLO_TYPE_COUNT && s->type != t)
      return sx_fail(c, "%s start indices must all have the same type; got %s and %s.", what, hlo_type_name(t),
                     hlo_type_name(s->type));
    t = s->type;
  }
  return HLO_OK;
}

int hlo_shape_infer_dynamic_slice(infer_ctx *c) {
  HLO_ASSERT(c->in->noperands >= 1); /* hlo_infer_shape checked the operand count */
  if (sx_need_array(c, 0, "dynamic-slice")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0);
  int n;
  const int64_t *sz = hlo_instr_ints(c->in, HLO_A_DYNAMIC_SLICE_SIZES, &n);
  if (c->in->noperands - 1 != s->rank)
    return sx_fail(c, "Dynamic slice start number of dimensions %d must match rank %d of slice input %s.",
                   c->in->noperands - 1, s->rank, sx_str(c, s));
  if (scalar_int_indices(c, 1, s->rank, "dynamic-slice")) return HLO_ERR;
  if (n != s->rank)
    return sx_fail(c, "Dynamic slice number of slice sizes %d must match rank %d of slice input %s.", n, s->rank,
                   sx_str(c, s));
  for (int i = 0; i < n; i++) {
    if (sz[i] < 0) return sx_fail(c, "Negative size index to dynamic slice: %lld.", (long long)sz[i]);
    if (s->dims[i] != HLO_DIM_UNBOUNDED && sz[i] > s->dims[i])
      return sx_fail(c, "Slice dim size %lld greater than dynamic slice dimension: %lld.", (long long)sz[i],
                     (long long)s->dims[i]);
  }
  return sx_array(c, s->type, n, sz);
}

int hlo_shape_infer_dynamic_update_slice(infer_ctx *c) {
  HLO_ASSERT(c->in->noperands >= 2); /* hlo_infer_shape checked the operand count */
  if (sx_need_array(c, 0, "dynamic-update-slice") || sx_need_array(c, 1, "dynamic-update-slice")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0), *u = sx_op(c, 1);
  if (c->in->noperands - 2 != s->rank)
    return sx_fail(c, "Dynamic update slice start number of dimensions %d must match rank %d of slice input %s.",
                   c->in->noperands - 2, s->rank, sx_str(c, s));
  if (scalar_int_indices(c, 2, s->rank, "dynamic-update-slice")) return HLO_ERR;
  if (u->rank != s->rank)
    return sx_fail(c, "Dynamic update slice update rank does not match argument rank: %d vs %d.", u->rank, s->rank);
  if (!sx_same_type_fp(s->type, u->type))
    return sx_fail(c, "Dynamic update slice update element type does not match argument. operand.element_type: %s vs update.element_type: %s.",
                   hlo_type_name(s->type), hlo_type_name(u->type));
  for (int i = 0; i < s->rank; i++) {
    if (u->dims[i] < 0 && u->dims[i] != HLO_DIM_UNBOUNDED)
      return sx_fail(c, "Size index %lld to dynamic update slice must be >= 0.", (long long)u->dims[i]);
    if (s->dims[i] != HLO_DIM_UNBOUNDED && u->dims[i] != HLO_DIM_UNBOUNDED && u->dims[i] > s->dims[i])
      return sx_fail(c, "Update dim size %lld greater than dynamic update slice dimension: %lld.",
                     (long long)u->dims[i], (long long)s->dims[i]);
  }
  return sx_copy(c, s);
}

int hlo_shape_infer_pad(infer_ctx *c) {
  if (sx_need_array(c, 0, "pad") || sx_need_array(c, 1, "pad")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0), *v = sx_op(c, 1);
  if (v->rank != 0) return sx_fail(c, "Pad value must be a scalar; got %s.", sx_str(c, v));
  if (!sx_same_type_fp(s->type, v->type))
    return sx_fail(c, "The element types of the operands to Pad do not match: %s vs %s.", hlo_type_name(s->type),
                   hlo_type_name(v->type));
  const hlo_attr *at = hlo_instr_attr(c->in, HLO_A_PADDING);
  if (!at || at->kind != HLO_AK_PADDING) return sx_fail(c, "pad needs a padding= attribute");
  const hlo_padding *p = &at->u.padding;
  if (p->n != s->rank)
    return sx_fail(c, "The rank of the operand and the padding configuration do not match: %s vs %d dimensions.",
                   sx_str(c, s), p->n);
  int64_t dims[s->rank ? s->rank : 1];
  for (int i = 0; i < s->rank; i++) {
    hlo_pad_dim d = p->dims[i];
    if (d.interior < 0)
      return sx_fail(c, "Interior padding cannot be negative: %lld.", (long long)d.interior);
    int64_t n = s->dims[i], r;
    if (n == HLO_DIM_UNBOUNDED) {
      dims[i] = n;
      continue;
    }
    int64_t inner = n > 0 ? n - 1 : 0;
    if (__builtin_mul_overflow(inner, d.interior, &r) || __builtin_add_overflow(r, n, &r) ||
        __builtin_add_overflow(r, d.lo, &r) || __builtin_add_overflow(r, d.hi, &r))
      return sx_fail(c, "Padding result overflows in dimension %d.", i);
    if (r < 0)
      return sx_fail(c, "Padding result in negative size for dimension %d (%lld).", i, (long long)r);
    dims[i] = r;
  }
  if (sx_array(c, hlo_shape_higher_precision(s->type, v->type), s->rank, dims)) return HLO_ERR;
  if (s->dynamic && s->rank) {
    if (!(c->out->dynamic = hlo_arena_array(c->a, (size_t)s->rank, sizeof(bool)))) return HLO_ERR;
    memcpy(c->out->dynamic, s->dynamic, (size_t)s->rank * sizeof(bool));
  }
  return HLO_OK;
}

int hlo_shape_infer_concatenate(infer_ctx *c) {
  HLO_ASSERT(c->in->noperands >= 1); /* hlo_infer_shape checked the operand count */
  int n;
  const int64_t *dv = hlo_instr_ints(c->in, HLO_A_DIMENSIONS, &n);
  if (n != 1) return sx_fail(c, "Concatenate needs exactly one dimension in dimensions={...}; got %d.", n);
  for (int i = 0; i < c->in->noperands; i++)
    if (sx_need_array(c, i, "concatenate")) return HLO_ERR;
  const hlo_shape *s0 = sx_op(c, 0);
  int64_t dim = dv[0];
  if (dim < 0 || dim >= s0->rank)
    return sx_fail(c, "Concatenate dimension out of bounds: %lld.", (long long)dim);
  int64_t dims[s0->rank];
  memcpy(dims, s0->dims, (size_t)s0->rank * sizeof(int64_t));
  hlo_type t = s0->type;
  for (int i = 1; i < c->in->noperands; i++) {
    const hlo_shape *s = sx_op(c, i);
    if (s->rank != s0->rank)
      return sx_fail(c, "Cannot concatenate arrays with different ranks: %d (%s) vs %d (%s).", s0->rank,
                     sx_str(c, s0), s->rank, sx_str(c, s));
    if (!sx_same_type_fp(s->type, s0->type))
      return sx_fail(c, "Cannot concatenate arrays with different element types: %s vs %s.", hlo_type_name(s0->type),
                     hlo_type_name(s->type));
    t = hlo_shape_higher_precision(t, s->type);
    for (int d = 0; d < s->rank; d++) {
      if (d == dim) continue;
      if (s->dims[d] != s0->dims[d] && s->dims[d] != HLO_DIM_UNBOUNDED && s0->dims[d] != HLO_DIM_UNBOUNDED)
        return sx_fail(c, "Cannot concatenate arrays that differ in dimensions other than the one being concatenated. Dimension %d in both shapes must be equal: %s vs %s.",
                       d, sx_str(c, s0), sx_str(c, s));
    }
    if (dims[dim] == HLO_DIM_UNBOUNDED || s->dims[dim] == HLO_DIM_UNBOUNDED) dims[dim] = HLO_DIM_UNBOUNDED;
    else if (__builtin_add_overflow(dims[dim], s->dims[dim], &dims[dim]))
      return sx_fail(c, "Concatenated dimension size overflows.");
  }
  if (sx_array(c, t, s0->rank, dims)) return HLO_ERR;
  bool any = false;
  for (int i = 0; i < c->in->noperands; i++) any |= sx_op(c, i)->dynamic != NULL;
  if (any) {
    if (!(c->out->dynamic = hlo_arena_array(c->a, (size_t)s0->rank, sizeof(bool)))) return HLO_ERR;
    for (int i = 0; i < c->in->noperands; i++)
      for (int d = 0; d < s0->rank; d++)
        if (sx_op(c, i)->dynamic && sx_op(c, i)->dynamic[d]) c->out->dynamic[d] = true;
  }
  return HLO_OK;
}

int hlo_shape_infer_reverse(infer_ctx *c) {
  if (sx_need_array(c, 0, "reverse")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0);
  int n;
  const int64_t *d = hlo_instr_ints(c->in, HLO_A_DIMENSIONS, &n);
  if (sx_dims_in_range(c, "Reverse dimensions", d, n, s->rank) || sx_dims_unique(c, "Reverse dimensions", d, n))
    return HLO_ERR;
  return sx_copy(c, s);
}

int hlo_shape_infer_iota(infer_ctx *c) {
  if (sx_declared(c)) return HLO_ERR;
  const hlo_shape *r = &c->in->shape;
  if (!hlo_shape_is_array(r)) return sx_fail(c, "Iota does not support non-array result.");
  if (r->rank == 0) return sx_fail(c, "Iota does not support scalars.");
  int64_t d = hlo_instr_int(c->in, HLO_A_IOTA_DIMENSION, -1);
  if (!hlo_instr_attr(c->in, HLO_A_IOTA_DIMENSION)) return sx_fail(c, "iota needs an iota_dimension attribute");
  if (d < 0 || d >= r->rank)
    return sx_fail(c, "The iota dimension cannot go beyond the operation rank or be negative (iota_dimension=%lld, rank %d).",
                   (long long)d, r->rank);
  if (r->type == HLO_PRED) return sx_fail(c, "Only support iota of integral, floating point or complex primitive types, got PRED");
  return HLO_OK;
}
