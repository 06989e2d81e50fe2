/* pass_dce.c - dead code elimination (XLA's HloDCE): instructions whose
 * value nothing uses go, unless they are roots, parameters, side effects
 * or control predecessors; then computations no longer reachable from the
 * entry go. */
#include "opt/opt_internal.h"

int opt_dce(opt_ctx *x) {
  hlo_module *m = x->m;
  bool changed = false;
  for (int ci = 0; ci < m->ncomps; ci++) {
    hlo_computation *c = m->comps[ci];
    int removed;
    if (opt_remove_dead(x, c, c->instrs, c->ninstrs, &removed)) return opt_fail(x, NULL);
    changed |= removed > 0;
  }
  int dropped;
  if (opt_drop_unreachable(x, &dropped)) return opt_fail(x, NULL);
  return changed || dropped;
}
