/* pass_sort_simplifier.c - XLA's SortSimplifier: a sort of several operands
 * whose results are read only through get-tuple-element drops the operands
 * whose results nobody reads and whose values the comparator ignores
 * (parameters 2i and 2i+1 unused).  The comparator is copied without those
 * parameters; a sort left with one operand returns an array. */
#include <string.h>

#include "opt/opt_internal.h"

static bool param_used(const hlo_computation *cmp, int64_t pn) {
  for (int i = 0; i < cmp->ninstrs; i++) {
    const hlo_instruction *p = cmp->instrs[i];
    if (p->op == HLO_OP_PARAMETER && p->param_number == pn) return p->nusers > 0 || p == cmp->root;
  }
  return true; /* a gap in the numbering: leave the sort alone */
}

/* Simplify sort s of c; 1 done, 0 not applicable, -1 OOM. */
static int simplify(opt_ctx *x, hlo_computation *c, hlo_instruction *s) {
  int n = s->noperands;
  if (n < 2 || !hlo_shape_is_tuple(&s->shape) || s->shape.ntuple != n || s == c->root || s->ncalled != 1 ||
      s->ncontrol)
    return 0;
  hlo_computation *cmp = s->called[0];
  bool *keep = hlo_arena_array(&x->tmp, (size_t)n, sizeof *keep);
  int *nidx = hlo_arena_array(&x->tmp, (size_t)n, sizeof *nidx);
  if (!keep || !nidx) return -1;
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *u = c->instrs[i];
    for (int q = 0; q < u->noperands; q++) {
      if (u->operands[q] != s) continue;
      int64_t k = hlo_instr_int(u, HLO_A_INDEX, -1);
      if (u->op != HLO_OP_GET_TUPLE_ELEMENT || k < 0 || k >= n) return 0;
      keep[k] = true;
    }
    for (int q = 0; q < u->ncontrol; q++)
      if (u->control_preds[q] == s) return 0;
  }
  int nkeep = 0;
  for (int i = 0; i < n; i++) {
    keep[i] = keep[i] || param_used(cmp, 2 * i) || param_used(cmp, 2 * i + 1);
    nidx[i] = keep[i] ? nkeep++ : -1;
  }
  if (nkeep == n || nkeep == 0) return 0;
  /* the comparator without the dropped parameters, renumbered */
  hlo_computation *nc = opt_clone_comp(x, cmp, ".simplified");
  if (!nc) return -1;
  int w = 0;
  for (int i = 0; i < nc->ninstrs; i++) {
    hlo_instruction *p = nc->instrs[i];
    if (p->op == HLO_OP_PARAMETER) {
      int64_t op = p->param_number / 2;
      if (op < 0 || op >= n || !keep[op]) continue;
      p->param_number = 2 * nidx[op] + p->param_number % 2;
    }
    nc->instrs[w++] = p;
  }
  nc->ninstrs = w;
  /* the new sort */
  hlo_shape shape;
  memset(&shape, 0, sizeof shape);
  if (nkeep == 1) {
    for (int i = 0; i < n; i++)
      if (keep[i]) shape = s->shape.tuple[i];
  } else {
    shape.type = HLO_TUPLE;
    shape.ntuple = nkeep;
    if (!(shape.tuple = hlo_arena_array(&x->m->arena, (size_t)nkeep, sizeof *shape.tuple))) return -1;
    for (int i = 0; i < n; i++)
      if (keep[i]) shape.tuple[nidx[i]] = s->shape.tuple[i];
  }
  x->anchor = s;
  hlo_instruction *k = opt_add(x, c, HLO_OP_SORT, "sort", nkeep, &shape);
  if (!k) return -1;
  for (int i = 0; i < n; i++)
    if (keep[i]) k->operands[nidx[i]] = s->operands[i];
  k->attrs = s->attrs;
  k->nattrs = s->nattrs;
  if (opt_own_attrs(x, k)) return -1;
  for (int a = 0; a < k->nattrs; a++)
    if (k->attrs[a].kind == HLO_AK_COMP && k->attrs[a].u.comp == cmp) k->attrs[a].u.comp = nc;
  /* its readers */
  int ng = 0;
  hlo_instruction **gone = hlo_arena_array(&x->tmp, (size_t)c->ninstrs + 1, sizeof *gone);
  if (!gone) return -1;
  for (int i = 0; i < c->ninstrs; i++) {
    hlo_instruction *u = c->instrs[i];
    if (u->op != HLO_OP_GET_TUPLE_ELEMENT || u->noperands != 1 || u->operands[0] != s) continue;
    int64_t idx = hlo_instr_int(u, HLO_A_INDEX, -1);
    if (nkeep == 1) {
      opt_replace_uses(c, u, k);
      gone[ng++] = u;
      continue;
    }
    if (opt_own_attrs(x, u)) return -1;
    u->operands[0] = k;
    for (int a = 0; a < u->nattrs; a++)
      if (u->attrs[a].key == HLO_A_INDEX) u->attrs[a].u.i = nidx[idx];
  }
  gone[ng++] = s;
  if (opt_remove_dead(x, c, gone, ng, NULL) || opt_sort(x, c) || hlo_module_link(x->m)) return -1;
  return 1;
}

int opt_sort_simplifier(opt_ctx *x) {
  hlo_module *m = x->m;
  bool changed = false;
  hlo_computation **cmps = hlo_arena_array(&x->tmp, (size_t)m->ncomps + 1, sizeof *cmps);
  int ncmp = 0, ncomps = m->ncomps;
  hlo_computation **comps = hlo_arena_array(&x->tmp, (size_t)ncomps + 1, sizeof *comps);
  if (!cmps || !comps) return opt_fail(x, NULL);
  memcpy(comps, m->comps, (size_t)ncomps * sizeof *comps);
  for (int ci = 0; ci < ncomps; ci++) {
    hlo_computation *c = comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      hlo_instruction *s = c->instrs[i];
      if (s->op != HLO_OP_SORT) continue;
      hlo_computation *cmp = s->ncalled == 1 ? s->called[0] : NULL;
      int r = simplify(x, c, s);
      if (r < 0) return opt_fail(x, NULL);
      if (!r) continue;
      changed = true;
      if (ncmp < ncomps) cmps[ncmp++] = cmp;
      i = -1;
    }
  }
  if (changed && fuse_drop_uncalled(m, cmps, ncmp)) return opt_fail(x, NULL);
  return changed;
}
