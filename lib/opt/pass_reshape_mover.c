/* pass_reshape_mover.c - XLA's ReshapeMover, its core case: an elementwise
 * instruction whose operands are all the same reshape or transpose (same
 * kind, same source dimensions, same permutation) of other values, or
 * broadcasts of scalars, is computed on the sources instead, followed by
 * one reshape or transpose.  Scalar broadcasts are re-made at the source
 * shape.  Elementwise ops commute with data movement: values are
 * bit-identical. */
#include <string.h>

#include "opt/opt_internal.h"

static bool rearrange(const hlo_instruction *o) {
  return (o->op == HLO_OP_RESHAPE || o->op == HLO_OP_TRANSPOSE) && o->noperands == 1 &&
         hlo_shape_is_array(&o->operands[0]->shape);
}

static bool scalar_broadcast(const hlo_instruction *o) {
  return o->op == HLO_OP_BROADCAST && o->noperands == 1 && hlo_shape_is_scalar(&o->operands[0]->shape);
}

static bool same_dims(const hlo_shape *a, const hlo_shape *b) {
  if (a->rank != b->rank || a->dynamic || b->dynamic) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

static bool same_perm(const hlo_instruction *a, const hlo_instruction *b) {
  if (a->op != HLO_OP_TRANSPOSE) return true;
  int na, nb;
  const int64_t *pa = hlo_instr_ints(a, HLO_A_DIMENSIONS, &na), *pb = hlo_instr_ints(b, HLO_A_DIMENSIONS, &nb);
  return na == nb && (!na || !memcmp(pa, pb, (size_t)na * sizeof *pa));
}

/* The first rearranged operand if in can be moved past, else NULL. */
static const hlo_instruction *movable(const hlo_instruction *in) {
  if (!(hlo_opcode_flags(in->op) & HLO_F_ELEMENTWISE) || !in->noperands || !hlo_shape_is_array(&in->shape) ||
      in->ncontrol || in->ncalled || opt_side_effect(in))
    return NULL;
  const hlo_instruction *first = NULL;
  for (int q = 0; q < in->noperands; q++) {
    const hlo_instruction *o = in->operands[q];
    if (scalar_broadcast(o)) continue;
    if (!rearrange(o)) return NULL;
    if (!first) first = o;
    else if (o->op != first->op || !same_dims(&o->operands[0]->shape, &first->operands[0]->shape) ||
             !same_perm(o, first))
      return NULL;
  }
  return first;
}

static hlo_instruction *move(opt_ctx *x, hlo_computation *c, hlo_instruction *in, const hlo_instruction *r) {
  const hlo_shape *src = &r->operands[0]->shape;
  hlo_shape inner;
  if (hlo_shape_make_array(&x->m->arena, &inner, in->shape.type, src->rank, src->dims)) return NULL;
  hlo_instruction *k = opt_add(x, c, in->op, hlo_opcode_name(in->op), in->noperands, &inner);
  if (!k) return NULL;
  k->attrs = in->attrs;
  k->nattrs = in->nattrs;
  for (int q = 0; q < in->noperands; q++) {
    hlo_instruction *o = in->operands[q];
    if (rearrange(o)) {
      k->operands[q] = o->operands[0];
      continue;
    }
    hlo_shape bs;
    if (hlo_shape_make_array(&x->m->arena, &bs, o->shape.type, src->rank, src->dims)) return NULL;
    hlo_instruction *b = opt_add(x, c, HLO_OP_BROADCAST, "broadcast", 1, &bs);
    hlo_attr *at = b ? opt_add_attr(x, b, HLO_A_DIMENSIONS) : NULL;
    if (!at) return NULL;
    b->operands[0] = o->operands[0];
    k->operands[q] = b;
  }
  hlo_instruction *out = opt_add(x, c, r->op, hlo_opcode_name(r->op), 1, &in->shape);
  if (!out) return NULL;
  out->operands[0] = k;
  out->attrs = r->attrs;
  out->nattrs = r->nattrs;
  return out;
}

static hlo_instruction *mover(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  const hlo_instruction *r = movable(in);
  hlo_instruction *to = r ? move(x, c, in, r) : NULL;
  if (r && !to) x->oom = true;
  return to;
}

int opt_reshape_mover(opt_ctx *x) { return opt_rewrite_each(x, mover, 16); }
