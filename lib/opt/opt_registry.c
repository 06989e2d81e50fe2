/* opt_registry.c - the pass registry (expanded from opt_passes.def): lookup
 * by XLA's name, and the runner that gives each pass its context and
 * re-links the module afterwards. */
#include <string.h>

#include "opt/opt_internal.h"

#define OPT_PASS(c, name, summary) int opt_##c(opt_ctx *x);
#include "opt/opt_passes.def"
#undef OPT_PASS

enum {
#define OPT_PASS(c, name, summary) OPT_##c,
#include "opt/opt_passes.def"
#undef OPT_PASS
  OPT_COUNT
};

static const hlo_opt_pass PASSES[] = {
#define OPT_PASS(c, name, summary) [OPT_##c] = {name, summary, OPT_##c},
#include "opt/opt_passes.def"
#undef OPT_PASS
};

static int (*const RUN[])(opt_ctx *) = {
#define OPT_PASS(c, name, summary) [OPT_##c] = opt_##c,
#include "opt/opt_passes.def"
#undef OPT_PASS
};

const hlo_opt_pass *hlo_opt_passes(int *n) {
  *n = OPT_COUNT;
  return PASSES;
}

const hlo_opt_pass *hlo_opt_find(const char *name, size_t n) {
  for (int i = 0; i < OPT_COUNT; i++)
    if (strlen(PASSES[i].name) == n && !memcmp(PASSES[i].name, name, n)) return &PASSES[i];
  return NULL;
}

/* 0 white, 1 on the path, 2 done.  Returns the computation that closes a
 * cycle of calls, or NULL. */
static const hlo_computation *cycle_from(const hlo_computation *c, unsigned char *color) {
  if (color[c->id] == 2) return NULL;
  if (color[c->id] == 1) return c;
  color[c->id] = 1;
  for (int i = 0; i < c->ninstrs; i++)
    for (int k = 0; k < c->instrs[i]->ncalled; k++) {
      const hlo_computation *x = c->instrs[i]->called[k];
      const hlo_computation *cyc = x && x->module_ == c->module_ ? cycle_from(x, color) : NULL;
      if (cyc) return cyc;
    }
  color[c->id] = 2;
  return NULL;
}

/* Passes walk the call graph: refuse a module whose computations call
 * themselves, directly or not (the verifier reports it too). */
static int check_call_graph(hlo_module *m, hlo_diags *d) {
  unsigned char *color = hlo_arena_array(&m->arena, (size_t)m->ncomps + 1, 1);
  if (!color) return hlo_errorf(d, NULL, 0, "out of memory");
  for (int i = 0; i < m->ncomps; i++) {
    const hlo_computation *cyc = cycle_from(m->comps[i], color);
    if (cyc) return hlo_errorf(d, NULL, 0, "computation %%%s calls itself (a cycle in the call graph)", cyc->name);
  }
  return HLO_OK;
}

int hlo_opt_run(hlo_module *m, const hlo_opt_pass *p, const hlo_opt_options *o, hlo_diags *d) {
  static const hlo_opt_options defaults = {0};
  if (!p || p->index < 0 || p->index >= OPT_COUNT) return hlo_errorf(d, NULL, 0, "unknown pass"), -1;
  if (hlo_module_link(m)) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  if (check_call_graph(m, d)) return -1;
  opt_ctx x;
  opt_ctx_init(&x, m, o ? o : &defaults, d);
  int rc = RUN[p->index](&x);
  opt_ctx_release(&x);
  if (rc > 0 && hlo_module_link(m)) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  return rc;
}
