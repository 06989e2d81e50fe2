/* fuse_unfuse.c - the inverse pass: every fusion instruction is replaced by
 * copies of its fused computation's instructions (parameters become the
 * fusion's operands), until none is left; fused computations that nothing
 * calls any more are dropped from the module. */
#include <string.h>

#include "fuse/fuse_internal.h"

/* Inline fusion fi of computation c.  Returns HLO_ERR on failure. */
static int inline_one(hlo_module *m, hlo_computation *c, int *cap, hlo_instruction *fi, fuse_names *nm,
                      hlo_arena *tmp, hlo_instruction ***added, int *nadded) {
  hlo_computation *fc = fi->called[0];
  if (fuse_topo_sort(&m->arena, fc)) return HLO_ERR;
  hlo_instruction **map = hlo_arena_array(tmp, (size_t)fc->ninstrs + 1, sizeof *map);
  hlo_instruction **out = hlo_arena_array(tmp, (size_t)fc->ninstrs + 1, sizeof *out);
  if (!map || !out) return HLO_ERR;
  int no = 0;
  for (int i = 0; i < fc->ninstrs; i++) {
    hlo_instruction *t = fc->instrs[i];
    if (t->op == HLO_OP_PARAMETER) {
      if (t->param_number < 0 || t->param_number >= fi->noperands) return HLO_ERR;
      map[i] = fi->operands[t->param_number];
      continue;
    }
    const char *name = fuse_unique_instr(nm, &m->arena, t->name ? t->name : "x");
    hlo_instruction *k = name ? fuse_clone_instr(&m->arena, t, name) : NULL;
    if (!k) return HLO_ERR;
    for (int q = 0; q < k->noperands; q++) {
      hlo_instruction *o = t->operands[q];
      if (!o || o->parent != fc || o->id < 0 || o->id >= fc->ninstrs || !map[o->id]) return HLO_ERR;
      k->operands[q] = map[o->id];
    }
    k->parent = c;
    map[i] = k;
    out[no++] = k;
  }
  if (!fc->root || fc->root->parent != fc || !map[fc->root->id]) return HLO_ERR;
  hlo_instruction *value = map[fc->root->id];
  for (int i = 0; i < c->ninstrs; i++) {
    hlo_instruction *u = c->instrs[i];
    for (int q = 0; q < u->noperands; q++)
      if (u->operands[q] == fi) u->operands[q] = value;
    for (int q = 0; q < u->ncontrol; q++)
      if (u->control_preds[q] == fi) u->control_preds[q] = value;
  }
  if (c->root == fi) c->root = value;
  (void)cap;
  *added = out;
  *nadded = no;
  return HLO_OK;
}

static int unfuse_comp(hlo_module *m, hlo_computation *c, fuse_names *nm, bool *changed) {
  hlo_arena tmp;
  hlo_arena_init(&tmp, m->arena.alloc);
  int rc = HLO_ERR;
  if (fuse_topo_sort(&m->arena, c)) goto done;
  for (bool again = true; again;) {
    again = false;
    hlo_computation nc = *c;
    int cap = 0;
    nc.ninstrs = 0;
    nc.instrs = NULL;
    for (int i = 0; i < c->ninstrs; i++) {
      hlo_instruction *in = c->instrs[i];
      if (in->op == HLO_OP_FUSION && in->ncalled == 1) {
        hlo_instruction **added;
        int na;
        if (inline_one(m, c, &cap, in, nm, &tmp, &added, &na)) goto done;
        for (int k = 0; k < na; k++)
          if (fuse_comp_append(&m->arena, &nc, &cap, added[k])) goto done;
        /* control successors of the fusion now wait for every copy */
        again = *changed = true;
        continue;
      }
      if (fuse_comp_append(&m->arena, &nc, &cap, in)) goto done;
    }
    /* operands seen before the fusion was replaced were fixed in place by
     * inline_one for instructions already in c; copies added later see the
     * final values since they were built from the fused computation */
    c->instrs = nc.instrs;
    c->ninstrs = nc.ninstrs;
    if (c->root && c->root->op == HLO_OP_FUSION && c->root->ncalled == 1) again = true;
    if (fuse_topo_sort(&m->arena, c)) goto done;
  }
  rc = HLO_OK;
done:
  hlo_arena_release(&tmp);
  return rc;
}

int fuse_drop_uncalled(hlo_module *m, hlo_computation *const *cands, int n) {
  if (hlo_module_link(m)) return HLO_ERR;
  int w = 0;
  for (int i = 0; i < m->ncomps; i++) {
    hlo_computation *c = m->comps[i];
    bool cand = false, called = false;
    for (int k = 0; k < n; k++) cand |= cands[k] == c;
    for (int j = 0; cand && !called && j < m->ncomps; j++)
      for (int q = 0; !called && q < m->comps[j]->ninstrs; q++) {
        const hlo_instruction *in = m->comps[j]->instrs[q];
        for (int z = 0; z < in->ncalled; z++) called |= in->called[z] == c;
      }
    if (!cand || called || c == m->entry) m->comps[w++] = c;
  }
  m->ncomps = w;
  return hlo_module_link(m);
}

int hlo_fuse_unfuse(hlo_module *m, hlo_diags *d) {
  if (hlo_module_link(m)) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  hlo_computation **fused = hlo_arena_array(&m->arena, (size_t)m->ncomps + 1, sizeof *fused);
  hlo_computation **work = hlo_arena_array(&m->arena, (size_t)m->ncomps + 1, sizeof *work);
  if (!fused || !work) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  int nf = 0, nw = 0;
  for (int i = 0; i < m->ncomps; i++) {
    if (m->comps[i]->is_fused) fused[nf++] = m->comps[i];
    else work[nw++] = m->comps[i];
  }
  /* names: those of computations that stay */
  fuse_names nm;
  hlo_strmap_init(&nm.instrs, &m->arena);
  hlo_strmap_init(&nm.comps, &m->arena);
  for (int i = 0; i < nw; i++)
    for (int j = 0; j < work[i]->ninstrs; j++)
      if (work[i]->instrs[j]->name && hlo_strmap_put(&nm.instrs, work[i]->instrs[j]->name, work[i]->instrs[j], NULL))
        return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  bool changed = false;
  for (int i = 0; i < nw; i++)
    if (unfuse_comp(m, work[i], &nm, &changed))
      return hlo_errorf(d, NULL, 0, "%s: cannot inline a fusion (out of memory or malformed fusion)",
                        work[i]->name ? work[i]->name : "?"), -1;
  if (fuse_drop_uncalled(m, fused, nf)) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  return changed ? 1 : 0;
}
