/* infer_elementwise.c - shape rules of the elementwise ops: unary math,
 * binary arithmetic with XLA's implicit broadcasting (equal shapes,
 * degenerate size-1 dimensions, or a scalar side), compare, select, clamp,
 * and the element-type conversions. */
#include <string.h>

#include "shape/infer_internal.h"

static const char *opname(const infer_ctx *c) { return hlo_opcode_name(c->in->op); }

/* Result equal to operand 0 but with element type t. */
static int same_dims(infer_ctx *c, const hlo_shape *s, hlo_type t) {
  if (sx_copy(c, s)) return HLO_ERR;
  c->out->type = t;
  return HLO_OK;
}

int hlo_shape_infer_unary(infer_ctx *c) {
  if (c->in->op == HLO_OP_COPY) return sx_copy(c, sx_op(c, 0)); /* tuples too */
  if (sx_need_array(c, 0, "operand of unary operation")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0);
  hlo_type t = s->type;
  hlo_type_kind k = hlo_type_kind_of(t);
  bool fl = k == HLO_KIND_FLOAT, cx = k == HLO_KIND_COMPLEX, in = hlo_type_is_int(t);
  switch (c->in->op) {
  case HLO_OP_ABS:
    if (cx) return same_dims(c, s, sx_complex_component(t));
    if (sx_is_signed(t)) return sx_copy(c, s);
    return sx_fail(c, "Expected element type in shape to be floating, complex or signed integral for abs operation; got %s.",
                   hlo_type_name(t));
  case HLO_OP_SIGN:
    if (sx_is_signed(t) || cx) return sx_copy(c, s);
    return sx_fail(c, "Expected element type in shape to be signed or complex for sign operation; got %s.",
                   hlo_type_name(t));
  case HLO_OP_NEGATE:
    if (in || fl || cx) return sx_copy(c, s);
    return sx_fail(c, "Expected element type in shape to be integral, floating or complex for negate operation; got %s.",
                   hlo_type_name(t));
  case HLO_OP_CEIL: case HLO_OP_FLOOR: case HLO_OP_ROUND_NEAREST_AFZ: case HLO_OP_ROUND_NEAREST_EVEN:
  case HLO_OP_ERF:
    if (fl) return sx_copy(c, s);
    return sx_fail(c, "Expected element type in shape to be floating for %s operation; got %s.", opname(c),
                   hlo_type_name(t));
  case HLO_OP_IS_FINITE:
    if (fl) return same_dims(c, s, HLO_PRED);
    return sx_fail(c, "Expected element type in shape to be floating point for is-finite operation; got %s.",
                   hlo_type_name(t));
  case HLO_OP_REAL: case HLO_OP_IMAG:
    if (cx) return same_dims(c, s, sx_complex_component(t));
    if (fl) return sx_copy(c, s);
    return sx_fail(c, "Expected element type in shape to be floating or complex for %s operation; got %s.",
                   opname(c), hlo_type_name(t));
  case HLO_OP_NOT:
    if (in || t == HLO_PRED) return sx_copy(c, s);
    return sx_fail(c, "Expected pred or an integral element type in argument to not operation; got %s.",
                   hlo_type_name(t));
  case HLO_OP_POPCNT: case HLO_OP_CLZ:
    if (in) return sx_copy(c, s);
    return sx_fail(c, "Expected an integral element type in argument to %s operation; got %s.", opname(c),
                   hlo_type_name(t));
  default: /* transcendental functions and the rest: floating or complex */
    if (fl || cx) return sx_copy(c, s);
    return sx_fail(c, "Expected element type in shape to be floating or complex for %s operation; got %s.",
                   opname(c), hlo_type_name(t));
  }
}

/* XLA's implicit broadcasting of two array operands into c->out. */
static int broadcast2(infer_ctx *c, const hlo_shape *l, const hlo_shape *r, hlo_type t) {
  if (l->rank == r->rank) {
    int64_t dims[l->rank ? l->rank : 1];
    bool dyn[l->rank ? l->rank : 1];
    bool anydyn = false;
    for (int i = 0; i < l->rank; i++) {
      int64_t a = l->dims[i], b = r->dims[i];
      bool da = l->dynamic && l->dynamic[i], db = r->dynamic && r->dynamic[i];
      if (a == b) dims[i] = a, dyn[i] = da || db;
      else if (a == HLO_DIM_UNBOUNDED) dims[i] = b == 1 ? a : b, dyn[i] = b == 1 || db;
      else if (b == HLO_DIM_UNBOUNDED) dims[i] = a == 1 ? b : a, dyn[i] = a == 1 || da;
      else if (a == 1) dims[i] = b, dyn[i] = db;
      else if (b == 1) dims[i] = a, dyn[i] = da;
      else if ((da || db) && !(da && db)) dims[i] = da ? b : a, dyn[i] = false; /* bounded vs static */
      else
        return sx_fail(c, "Binary op %s with incompatible shapes: %s and %s.", opname(c), sx_str(c, l),
                       sx_str(c, r));
      if (da && db && a != b) dims[i] = a > b ? a : b;
      anydyn |= dyn[i];
    }
    if (sx_array(c, t, l->rank, dims)) return HLO_ERR;
    if (anydyn) {
      c->out->dynamic = hlo_arena_array(c->a, (size_t)l->rank, sizeof(bool));
      if (!c->out->dynamic) return HLO_ERR;
      memcpy(c->out->dynamic, dyn, (size_t)l->rank * sizeof(bool));
    }
    /* keep the operand layout when the shape is unchanged */
    const hlo_shape *same = hlo_shape_xla_compatible(l, r, true) ? l : NULL;
    if (same && same->layout) {
      hlo_shape tmp;
      if (hlo_shape_copy(c->a, &tmp, same)) return HLO_ERR;
      c->out->layout = tmp.layout;
    }
    return HLO_OK;
  }
  if (l->rank == 0) return same_dims(c, r, t);
  if (r->rank == 0) return same_dims(c, l, t);
  return sx_fail(c, "Binary op %s with different ranks: %s and %s.", opname(c), sx_str(c, l), sx_str(c, r));
}

/* Checks shared by every binary elementwise op; result element type in *t. */
static int binary_common(infer_ctx *c, hlo_type *t) {
  if (sx_need_array(c, 0, "lhs of elementwise binary operation") ||
      sx_need_array(c, 1, "rhs of elementwise binary operation"))
    return HLO_ERR;
  const hlo_shape *l = sx_op(c, 0), *r = sx_op(c, 1);
  if (!sx_same_type_fp(l->type, r->type))
    return sx_fail(c, "Binary op %s with different element types: %s and %s.", opname(c), sx_str(c, l),
                   sx_str(c, r));
  *t = hlo_shape_higher_precision(l->type, r->type);
  return HLO_OK;
}

int hlo_shape_infer_binary(infer_ctx *c) {
  hlo_type t;
  if (binary_common(c, &t)) return HLO_ERR;
  hlo_type_kind k = hlo_type_kind_of(t);
  bool fl = k == HLO_KIND_FLOAT, cx = k == HLO_KIND_COMPLEX, in = hlo_type_is_int(t);
  switch (c->in->op) {
  case HLO_OP_AND: case HLO_OP_OR: case HLO_OP_XOR:
    if (!in && t != HLO_PRED)
      return sx_fail(c, "Expected pred or integral type in argument to %s operation; got %s.", opname(c),
                     hlo_type_name(t));
    break;
  case HLO_OP_SHIFT_LEFT: case HLO_OP_SHIFT_RIGHT_ARITHMETIC: case HLO_OP_SHIFT_RIGHT_LOGICAL:
  case HLO_OP_MULHI:
    if (!in)
      return sx_fail(c, "Expected integral type in argument to %s operation; got %s.", opname(c), hlo_type_name(t));
    break;
  case HLO_OP_ATAN2:
    if (!fl && !cx)
      return sx_fail(c, "Expected input element type to be floating or complex for atan2 operation; got %s.",
                     hlo_type_name(t));
    break;
  case HLO_OP_COMPLEX:
    if (t != HLO_F32 && t != HLO_F64)
      return sx_fail(c, "Expected element type in shape to be real (f32 or f64) for complex compose operation; got %s.",
                     hlo_type_name(t));
    t = t == HLO_F64 ? HLO_C128 : HLO_C64;
    break;
  case HLO_OP_SUBTRACT: case HLO_OP_DIVIDE: case HLO_OP_REMAINDER: case HLO_OP_POWER:
    if (t == HLO_PRED)
      return sx_fail(c, "Expected arithmetic element type for %s operation; got pred.", opname(c));
    break;
  default:
    break;
  }
  return broadcast2(c, sx_op(c, 0), sx_op(c, 1), t);
}

int hlo_shape_infer_compare(infer_ctx *c) {
  hlo_type t;
  if (binary_common(c, &t)) return HLO_ERR;
  return broadcast2(c, sx_op(c, 0), sx_op(c, 1), HLO_PRED);
}

int hlo_shape_infer_select(infer_ctx *c) {
  const hlo_shape *p = sx_op(c, 0), *a = sx_op(c, 1), *b = sx_op(c, 2);
  if (!hlo_shape_is_array(a) || !hlo_shape_is_array(b))
    return sx_fail(c, "Expected array argument for select, but got %s.",
                   sx_str(c, hlo_shape_is_array(a) ? b : a));
  if (!hlo_shape_xla_compatible(a, b, true))
    return sx_fail(c, "Operands to select must be the same shape; got %s and %s.", sx_str(c, a), sx_str(c, b));
  if (p->type != HLO_PRED)
    return sx_fail(c, "Select's pred operand must have PRED element type; got %s.", sx_str(c, p));
  if (p->rank != 0) {
    hlo_shape pa = *p;
    pa.type = a->type;
    if (!hlo_shape_xla_compatible(&pa, a, true))
      return sx_fail(c, "Operands to select and predicate must be the same shape; got %s and %s.", sx_str(c, a),
                     sx_str(c, p));
  }
  if (sx_copy(c, a)) return HLO_ERR;
  c->out->type = hlo_shape_higher_precision(a->type, b->type);
  return HLO_OK;
}

int hlo_shape_infer_clamp(infer_ctx *c) {
  for (int i = 0; i < 3; i++)
    if (sx_need_array(c, i, "clamp")) return HLO_ERR;
  const hlo_shape *mn = sx_op(c, 0), *x = sx_op(c, 1), *mx = sx_op(c, 2);
  if (!sx_same_type_fp(mn->type, x->type) || !sx_same_type_fp(mx->type, x->type))
    return sx_fail(c, "Clamp with different element types: %s, %s, %s.", sx_str(c, mn), sx_str(c, x), sx_str(c, mx));
  if ((mn->rank != 0 && !hlo_shape_xla_compatible(mn, x, true)) ||
      (mx->rank != 0 && !hlo_shape_xla_compatible(mx, x, true)))
    return sx_fail(c, "Clamp with incompatible shapes: %s, %s, %s.", sx_str(c, mn), sx_str(c, x), sx_str(c, mx));
  return sx_copy(c, x);
}

int hlo_shape_infer_convert(infer_ctx *c) {
  if (sx_need_array(c, 0, "convert")) return HLO_ERR;
  if (c->in->shape_omitted) return sx_declared(c);
  const hlo_shape *s = sx_op(c, 0);
  hlo_type t = c->in->shape.type;
  if (!hlo_type_is_array(t))
    return sx_fail(c, "Convert does not allow non-array result; got %s.", sx_str(c, &c->in->shape));
  if (sx_is_complex(s->type) && !sx_is_complex(t))
    return sx_fail(c, "Conversion from complex to real type %s => %s is not implemented.", sx_str(c, s),
                   hlo_type_name(t));
  return same_dims(c, s, t);
}

int hlo_shape_infer_bitcast_convert(infer_ctx *c) {
  if (sx_need_array(c, 0, "bitcast-convert")) return HLO_ERR;
  if (c->in->shape_omitted) return sx_declared(c);
  const hlo_shape *s = sx_op(c, 0);
  hlo_type t = c->in->shape.type;
  if (!hlo_type_is_array(t))
    return sx_fail(c, "bitcast-convert does not allow non-array result; got %s.", sx_str(c, &c->in->shape));
  if (sx_is_complex(s->type) != sx_is_complex(t))
    return sx_fail(c, "Conversion between complex and real type %s => %s.", sx_str(c, s), hlo_type_name(t));
  int ib = hlo_type_bits(s->type), ob = hlo_type_bits(t);
  if (ib == ob) return same_dims(c, s, t);
  if (ib > ob) { /* a new minor dimension of size ib/ob */
    if (ib % ob) return sx_fail(c, "bitcast-convert from %s to %s: widths do not divide", hlo_type_name(s->type), hlo_type_name(t));
    int64_t dims[s->rank + 1];
    if (s->rank) memcpy(dims, s->dims, (size_t)s->rank * sizeof(int64_t));
    dims[s->rank] = ib / ob;
    return sx_array(c, t, s->rank + 1, dims);
  }
  if (ob % ib) return sx_fail(c, "bitcast-convert from %s to %s: widths do not divide", hlo_type_name(s->type), hlo_type_name(t));
  if (s->rank == 0 || s->dims[s->rank - 1] != ob / ib)
    return sx_fail(c, "Cannot bitcast types with undivisible bit-widths: %s => %s; the last dimension of the operand must be %d.",
                   sx_str(c, s), hlo_type_name(t), ob / ib);
  return sx_array(c, t, s->rank - 1, s->dims);
}

int hlo_shape_infer_stochastic_convert(infer_ctx *c) {
  if (sx_need_array(c, 0, "stochastic-convert") || sx_need_array(c, 1, "stochastic-convert")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0), *r = sx_op(c, 1);
  if (!hlo_type_is_float(s->type))
    return sx_fail(c, "stochastic-convert operand must be floating point; got %s.", sx_str(c, s));
  if (hlo_type_kind_of(r->type) != HLO_KIND_UINT || hlo_type_bits(r->type) != hlo_type_bits(s->type))
    return sx_fail(c, "stochastic-convert random operand must be an unsigned integer of the operand's bit width; got %s.",
                   sx_str(c, r));
  if (!hlo_shape_xla_compatible(&(hlo_shape){.type = s->type, .rank = r->rank, .dims = r->dims}, s, false))
    return sx_fail(c, "stochastic-convert random operand shape %s differs from operand shape %s.", sx_str(c, r),
                   sx_str(c, s));
  if (c->in->shape_omitted) return sx_declared(c);
  return same_dims(c, s, c->in->shape.type);
}

int hlo_shape_infer_reduce_precision(infer_ctx *c) {
  if (sx_need_array_or_buffer(c, 0, "reduce-precision")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0);
  if (!hlo_type_is_float(s->type))
    return sx_fail(c, "Expected element type in shape to be floating point for reduce-precision operation; got %s.",
                   hlo_type_name(s->type));
  int64_t e = hlo_instr_int(c->in, HLO_A_EXPONENT_BITS, -1), m = hlo_instr_int(c->in, HLO_A_MANTISSA_BITS, -1);
  if (e < 1) return sx_fail(c, "Expected exponent_bits >= 1; got %lld.", (long long)e);
  if (m < 0) return sx_fail(c, "Expected mantissa_bits >= 0; got %lld.", (long long)m);
  return sx_copy(c, s);
}
