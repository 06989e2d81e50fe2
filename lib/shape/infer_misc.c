/* infer_misc.c - shape rules of the structural ops, one function per op (or
 * per group that shares one rule): parameter, constant,
 * tuple, get-tuple-element, control flow (while, conditional, call, map,
 * fusion), custom-call, bitcast, rng, dynamic sizes and the id ops. */
#include <string.h>

#include "core/bug.h"
#include "shape/infer_internal.h"

int hlo_shape_infer_while(infer_ctx *c) {
  return sx_copy(c, sx_op(c, 0));
}

int hlo_shape_infer_conditional(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  HLO_ASSERT(in->noperands >= 1); /* hlo_infer_shape checked the operand count */
  const hlo_shape *p = sx_op(c, 0);
  if (!hlo_shape_is_scalar(p) || (p->type != HLO_PRED && p->type != HLO_S32))
    return sx_fail(c, "The first operand of conditional must be a scalar of PRED or S32, got %s.", sx_str(c, p));
  if (in->ncalled < 1) return sx_fail(c, "conditional needs branch computations");
  if (p->type == HLO_PRED && in->ncalled != 2)
    return sx_fail(c, "A conditional with a PRED predicate must have 2 branches; got %d.", in->ncalled);
  if (in->ncalled != in->noperands - 1)
    return sx_fail(c, "conditional has %d branch computations but %d branch operands.", in->ncalled,
                   in->noperands - 1);
  const hlo_shape *r = sx_called_root(c, 0, "branch");
  return r ? sx_copy(c, r) : HLO_ERR;
}

int hlo_shape_infer_call(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  const hlo_shape *r = sx_called_root(c, 0, in->op == HLO_OP_CALL ? "to_apply" : "calls");
  return r ? sx_copy(c, r) : HLO_ERR;
}

int hlo_shape_infer_map(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  int n = in->noperands;
  HLO_ASSERT(n >= 1); /* hlo_infer_shape checked the operand count */
  for (int i = 0; i < n; i++)
    if (sx_need_array(c, i, "map")) return HLO_ERR;
  const hlo_shape *s0 = sx_op(c, 0);
  for (int i = 1; i < n; i++) {
    const hlo_shape *s = sx_op(c, i);
    if (!sx_same_dims(s, s0))
      return sx_fail(c, "Map operation requires all operands to have the same shape; got: %s and %s.",
                     sx_str(c, s0), sx_str(c, s));
  }
  int nd;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (d) {
    if (nd != s0->rank)
      return sx_fail(c, "Map applied to a subset of dimensions currently not supported: arg_dimension_size: %d, requested_map_dimensions_size: %d.",
                     s0->rank, nd);
    for (int i = 0; i < nd; i++)
      if (d[i] != i) return sx_fail(c, "Map requires monotonically increasing dimension numbers; found: %lld.", (long long)d[i]);
  }
  const hlo_shape *r = sx_called_root(c, 0, "to_apply");
  if (!r) return HLO_ERR;
  if (!hlo_shape_is_scalar(r))
    return sx_fail(c, "Mapped computation's result has to be a scalar; got: %s.", sx_str(c, r));
  if (sx_copy(c, s0)) return HLO_ERR;
  c->out->type = r->type;
  return HLO_OK;
}

int hlo_shape_infer_declared(infer_ctx *c) {
  return sx_declared(c);
}

int hlo_shape_infer_constant(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  if (in->literal && (in->shape_omitted || !in->literal->elided)) return sx_copy(c, &in->literal->shape);
  return sx_declared(c);
}

int hlo_shape_infer_tuple(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  int n = in->noperands;
  const hlo_shape **el = SX_TMP(c, n, const hlo_shape *);
  if (!el) return HLO_ERR;
  for (int i = 0; i < n; i++) el[i] = sx_op(c, i);
  return sx_tuple(c, n, el);
}

int hlo_shape_infer_get_tuple_element(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  const hlo_shape *s = sx_op(c, 0);
  int64_t k = hlo_instr_int(in, HLO_A_INDEX, -1);
  if (s->type != HLO_TUPLE)
    return sx_fail(c, "Cannot infer shape: attempting to index into non-tuple: %s.", sx_str(c, s));
  if (k < 0 || k >= s->ntuple)
    return sx_fail(c, "Cannot infer shape: attempt to index out of tuple bounds: %lld >= %d in shape %s.",
                   (long long)k, s->ntuple, sx_str(c, s));
  return sx_copy(c, &s->tuple[k]);
}

int hlo_shape_infer_get_dimension_size(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  if (sx_need_array_or_buffer(c, 0, "get-dimension-size")) return HLO_ERR;
  int nd;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (nd != 1) return sx_fail(c, "get-dimension-size needs exactly one dimension; got %d.", nd);
  if (d[0] < 0 || d[0] >= sx_op(c, 0)->rank)
    return sx_fail(c, "GetDimensionSize dimension out of bounds: %lld.", (long long)d[0]);
  return sx_scalar(c, HLO_S32);
}

int hlo_shape_infer_set_dimension_size(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  if (sx_need_array_or_buffer(c, 0, "set-dimension-size")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0), *v = sx_op(c, 1);
  int nd;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (nd != 1) return sx_fail(c, "set-dimension-size needs exactly one dimension; got %d.", nd);
  if (d[0] < 0 || d[0] >= s->rank)
    return sx_fail(c, "SetDimensionSize dimension out of bounds: %lld.", (long long)d[0]);
  if (!hlo_shape_is_scalar(v) || v->type != HLO_S32)
    return sx_fail(c, "SetDimensionSize's value has to be S32 scalar; got %s.", sx_str(c, v));
  if (sx_copy(c, s)) return HLO_ERR;
  if (!c->out->dynamic && !(c->out->dynamic = hlo_arena_array(c->a, (size_t)s->rank, sizeof(bool))))
    return HLO_ERR;
  c->out->dynamic[d[0]] = true;
  return HLO_OK;
}

int hlo_shape_infer_add_dependency(infer_ctx *c) {
  if (sx_op(c, 1)->type != HLO_TOKEN)
    return sx_fail(c, "The second operand of add-dependency must be a token; got %s.", sx_str(c, sx_op(c, 1)));
  return sx_copy(c, sx_op(c, 0));
}

int hlo_shape_infer_id(infer_ctx *c) {
  return sx_scalar(c, HLO_U32);
}

int hlo_shape_infer_rng_get_and_update_state(infer_ctx *c) {
  int64_t two = 2;
  return sx_array(c, HLO_U64, 1, &two);
}

int hlo_shape_infer_rng_bit_generator(infer_ctx *c) {
  const hlo_shape *st = sx_op(c, 0);
  if (!hlo_shape_is_array(st) || st->rank != 1)
    return sx_fail(c, "rng-bit-generator state must be a rank-1 array; got %s.", sx_str(c, st));
  if (sx_declared(c)) return HLO_ERR;
  const hlo_shape *r = &c->in->shape;
  if (hlo_shape_is_array(r)) return HLO_OK; /* XLA accepts the output alone */
  if (r->type != HLO_TUPLE || r->ntuple != 2 || !hlo_shape_is_array(&r->tuple[1]))
    return sx_fail(c, "Expected tuple shape with 2 elements (state, output) for rng-bit-generator; got %s.",
                   sx_str(c, r));
  if (sx_copy(c, r)) return HLO_ERR;
  return hlo_shape_copy(c->a, &c->out->tuple[0], st);
}

