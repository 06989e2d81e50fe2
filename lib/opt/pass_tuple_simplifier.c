/* pass_tuple_simplifier.c - XLA's TupleSimplifier: get-tuple-element(tuple(
 * x0, ..., xn), i) becomes xi, and tuple(get-tuple-element(t, 0), ...,
 * get-tuple-element(t, n-1)) covering all of t becomes t, when the shapes
 * are equal (layouts included). */
#include "opt/opt_internal.h"

/* What in simplifies to, or NULL. */
static hlo_instruction *simplify(hlo_instruction *in) {
  if (in->op == HLO_OP_GET_TUPLE_ELEMENT && in->noperands == 1) {
    hlo_instruction *t = in->operands[0];
    int64_t i = hlo_instr_int(in, HLO_A_INDEX, -1);
    if (t->op != HLO_OP_TUPLE || i < 0 || i >= t->noperands) return NULL;
    return hlo_shape_equal(&t->operands[i]->shape, &in->shape) ? t->operands[i] : NULL;
  }
  if (in->op != HLO_OP_TUPLE || in->noperands == 0) return NULL;
  hlo_instruction *src = NULL;
  for (int q = 0; q < in->noperands; q++) {
    hlo_instruction *g = in->operands[q];
    if (g->op != HLO_OP_GET_TUPLE_ELEMENT || g->noperands != 1 || hlo_instr_int(g, HLO_A_INDEX, -1) != q)
      return NULL;
    if (src && g->operands[0] != src) return NULL;
    src = g->operands[0];
  }
  if (!hlo_shape_is_tuple(&src->shape) || src->shape.ntuple != in->noperands) return NULL;
  return hlo_shape_equal(&src->shape, &in->shape) ? src : NULL;
}

static hlo_instruction *rewrite(opt_ctx *x, hlo_computation *c, hlo_instruction *in) { return simplify(in); }

int opt_tuple_simplifier(opt_ctx *x) { return opt_rewrite_each(x, rewrite, 1); }
