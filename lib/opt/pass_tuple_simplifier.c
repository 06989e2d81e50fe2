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

int opt_tuple_simplifier(opt_ctx *x) {
  hlo_module *m = x->m;
  bool changed = false;
  for (int ci = 0; ci < m->ncomps; ci++) {
    hlo_computation *c = m->comps[ci];
    hlo_instruction **order = opt_topo_order(x, c);
    hlo_instruction **gone = hlo_arena_array(&x->tmp, (size_t)c->ninstrs + 1, sizeof *gone);
    if (!order || !gone) return opt_fail(x, NULL);
    int ngone = 0;
    for (int i = 0; i < c->ninstrs; i++) {
      hlo_instruction *in = order[i], *to = simplify(in);
      if (!to) continue;
      opt_replace_uses(c, in, to);
      gone[ngone++] = in;
    }
    if (!ngone) continue;
    changed = true;
    if (opt_remove_dead(x, c, gone, ngone, NULL)) return opt_fail(x, NULL);
  }
  return changed;
}
