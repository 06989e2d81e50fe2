/* pass_zero_sized_hlo_elimination.c - XLA's ZeroSizedHloElimination: an
 * instruction with a static array result of zero elements (not a constant,
 * parameter or side effect) is replaced by a constant of that shape. */
#include <string.h>

#include "opt/opt_internal.h"

static bool zero_sized(const hlo_instruction *in) {
  if (!hlo_shape_is_array(&in->shape) || in->shape.dynamic) return false;
  for (int d = 0; d < in->shape.rank; d++)
    if (in->shape.dims[d] == 0) return true;
  return false;
}

int opt_zero_sized_hlo_elimination(opt_ctx *x) {
  hlo_module *m = x->m;
  bool changed = false;
  for (int ci = 0; ci < m->ncomps; ci++) {
    hlo_computation *c = m->comps[ci];
    int n = c->ninstrs;
    hlo_instruction **gone = hlo_arena_array(&x->tmp, (size_t)n + 1, sizeof *gone);
    hlo_instruction **order = opt_topo_order(x, c);
    if (!gone || !order) return opt_fail(x, NULL);
    int ngone = 0;
    for (int i = 0; i < n; i++) {
      hlo_instruction *in = order[i];
      if (in->op == HLO_OP_CONSTANT || in->op == HLO_OP_PARAMETER || !zero_sized(in) || in->ncontrol ||
          opt_side_effect(in))
        continue;
      x->anchor = in;
      hlo_instruction *k = opt_add(x, c, HLO_OP_CONSTANT, "constant", 0, &in->shape);
      hlo_literal *l = k ? hlo_arena_alloc(&m->arena, sizeof *l) : NULL;
      if (!l || hlo_shape_copy(&m->arena, &l->shape, &in->shape) || !(l->data = hlo_arena_alloc(&m->arena, 1)))
        return opt_fail(x, NULL);
      k->literal = l;
      opt_replace_uses(c, in, k);
      gone[ngone++] = in;
    }
    if (!ngone) continue;
    changed = true;
    if (opt_remove_dead(x, c, gone, ngone, NULL) || opt_sort(x, c)) return opt_fail(x, NULL);
  }
  return changed;
}
