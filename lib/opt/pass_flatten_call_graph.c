/* pass_flatten_call_graph.c - XLA's FlattenCallGraph: a computation called
 * from more than one sequential call site (while body or condition, call,
 * conditional branch) is cloned so that every such site calls its own copy
 * ("<name>.clone").  Computations applied element by element (fusion,
 * reduce, map, sort comparators, ...) may stay shared. */
#include "opt/opt_internal.h"

static bool sequential(hlo_opcode op) {
  return op == HLO_OP_WHILE || op == HLO_OP_CALL || op == HLO_OP_CONDITIONAL;
}

int opt_flatten_call_graph(opt_ctx *x) {
  hlo_module *m = x->m;
  if (!m->entry) return 0;
  /* queue of computations to visit, caller before callee; claimed[] marks
   * computations that some sequential call site already owns */
  int cap = m->ncomps * 2 + 16, nq = 0, changed = 0;
  hlo_computation **queue = hlo_arena_array(&x->tmp, (size_t)cap, sizeof *queue);
  hlo_strmap claimed, queued;
  hlo_strmap_init(&claimed, &x->tmp);
  hlo_strmap_init(&queued, &x->tmp);
  if (!queue || hlo_strmap_put(&queued, m->entry->name, m->entry, NULL)) return opt_fail(x, NULL);
  queue[nq++] = m->entry;
  for (int qi = 0; qi < nq; qi++) {
    hlo_computation *c = queue[qi];
    for (int i = 0; i < c->ninstrs; i++) {
      hlo_instruction *in = c->instrs[i];
      bool owned = false;
      for (int a = 0; a < in->nattrs; a++) {
        hlo_attr *at = &in->attrs[a];
        int n = at->kind == HLO_AK_COMP ? (at->u.comp != NULL) : at->kind == HLO_AK_COMPS ? at->u.comps.n : 0;
        for (int k = 0; k < n; k++) {
          hlo_computation *t = at->kind == HLO_AK_COMP ? at->u.comp : at->u.comps.v[k];
          if (sequential(in->op)) {
            if (hlo_strmap_get(&claimed, t->name)) {
              hlo_computation *cl = opt_clone_comp(x, t, ".clone");
              if (!cl) return opt_fail(x, NULL);
              if (!owned && opt_own_attrs(x, in)) return opt_fail(x, NULL);
              owned = true;
              at = &in->attrs[a];
              if (at->kind == HLO_AK_COMP) at->u.comp = cl;
              else at->u.comps.v[k] = cl;
              t = cl;
              changed = 1;
            }
            if (hlo_strmap_put(&claimed, t->name, t, NULL)) return opt_fail(x, NULL);
          }
          if (hlo_strmap_get(&queued, t->name)) continue;
          if (nq == cap) {
            hlo_computation **v = hlo_arena_array(&x->tmp, (size_t)cap * 2, sizeof *v);
            if (!v) return opt_fail(x, NULL);
            for (int z = 0; z < nq; z++) v[z] = queue[z];
            queue = v;
            cap *= 2;
          }
          if (hlo_strmap_put(&queued, t->name, t, NULL)) return opt_fail(x, NULL);
          queue[nq++] = t;
        }
      }
    }
  }
  if (changed && hlo_module_link(m)) return opt_fail(x, NULL);
  return changed;
}
