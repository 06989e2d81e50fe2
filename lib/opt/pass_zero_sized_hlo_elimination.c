/* pass_zero_sized_hlo_elimination.c - XLA's ZeroSizedHloElimination: an
 * instruction with a static array result of zero elements (not a constant,
 * parameter or side effect) is replaced by a constant of that shape. */
#include "opt/opt_internal.h"

static bool zero_sized(const hlo_instruction *in) {
  if (!hlo_shape_is_array(&in->shape) || in->shape.dynamic) return false;
  for (int d = 0; d < in->shape.rank; d++)
    if (in->shape.dims[d] == 0) return true;
  return false;
}

static hlo_instruction *eliminate(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  if (in->op == HLO_OP_CONSTANT || in->op == HLO_OP_PARAMETER || !zero_sized(in) || opt_side_effect(in))
    return NULL;
  hlo_module *m = x->m;
  hlo_instruction *k = opt_add(x, c, HLO_OP_CONSTANT, "constant", 0, &in->shape);
  hlo_literal *l = k ? hlo_arena_alloc(&m->arena, sizeof *l) : NULL;
  if (!l || hlo_shape_copy(&m->arena, &l->shape, &in->shape) || !(l->data = hlo_arena_alloc(&m->arena, 1))) {
    x->oom = true;
    return NULL;
  }
  k->literal = l;
  return k;
}

int opt_zero_sized_hlo_elimination(opt_ctx *x) { return opt_rewrite_each(x, eliminate, 1); }
