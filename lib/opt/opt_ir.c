/* opt_ir.c - the IR edits the optimization passes share: the pass context,
 * side-effect and splat-constant tests, adding instructions, replacing
 * uses, removing what became dead, inlining and cloning computations. */
#include <string.h>

#include "hlo/hlo_exec.h"
#include "opt/opt_internal.h"

void opt_ctx_init(opt_ctx *x, hlo_module *m, const hlo_opt_options *o, hlo_diags *d) {
  memset(x, 0, sizeof *x);
  x->m = m;
  x->o = o;
  x->d = d;
  hlo_arena_init(&x->tmp, m->arena.alloc);
}

void opt_ctx_release(opt_ctx *x) { hlo_arena_release(&x->tmp); }

int opt_fail(opt_ctx *x, const char *msg) {
  hlo_errorf(x->d, NULL, 0, "%s", msg ? msg : "out of memory");
  return -1;
}

static bool side_effect_depth(const hlo_instruction *in, int depth) {
  if (hlo_opcode_flags(in->op) & (HLO_F_SIDE_EFFECT | HLO_F_COLLECTIVE | HLO_F_ASYNC)) return true;
  if (in->op == HLO_OP_CUSTOM_CALL && hlo_instr_bool(in, HLO_A_CUSTOM_CALL_HAS_SIDE_EFFECT, false)) return true;
  if (depth > 64) return true; /* too deep to tell: be safe */
  for (int k = 0; k < in->ncalled; k++) {
    const hlo_computation *c = in->called[k];
    for (int i = 0; c && i < c->ninstrs; i++)
      if (side_effect_depth(c->instrs[i], depth + 1)) return true;
  }
  return false;
}

bool opt_side_effect(const hlo_instruction *in) { return side_effect_depth(in, 0); }

static bool literal_splat(const hlo_literal *l, double *v) {
  if (!l || l->elided || !l->data || !hlo_shape_is_array(&l->shape) || l->nelems < 1) return false;
  hlo_val tv = {.shape = &l->shape, .nelems = l->nelems, .data = l->data};
  double first = hlo_val_get_f64(&tv, 0);
  if (hlo_type_kind_of(l->shape.type) == HLO_KIND_COMPLEX) return false;
  size_t w = (size_t)hlo_type_bytes(l->shape.type);
  const unsigned char *p = l->data;
  for (int64_t i = 1; i < l->nelems; i++)
    if (memcmp(p, p + (size_t)i * w, w)) return false;
  *v = first;
  return true;
}

bool opt_splat_value(const hlo_instruction *in, double *v) {
  if (in->op == HLO_OP_BROADCAST && in->noperands == 1 && hlo_shape_is_scalar(&in->operands[0]->shape))
    in = in->operands[0];
  return in->op == HLO_OP_CONSTANT && literal_splat(in->literal, v);
}

bool opt_is_splat(const hlo_instruction *in, double v) {
  double got;
  return opt_splat_value(in, &got) && got == v;
}

static int names_ready(opt_ctx *x) {
  if (x->names_ready) return HLO_OK;
  if (fuse_names_init(&x->names, x->m)) return HLO_ERR;
  x->names_ready = true;
  return HLO_OK;
}

const char *opt_instr_name(opt_ctx *x, const char *base) {
  return names_ready(x) ? NULL : fuse_unique_instr(&x->names, &x->m->arena, base);
}

const char *opt_comp_name(opt_ctx *x, const char *base) {
  return names_ready(x) ? NULL : fuse_unique_comp(&x->names, &x->m->arena, base);
}

int opt_append(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  if (c->id >= x->ncap) {
    int n = c->id + 1 > x->m->ncomps ? c->id + 1 : x->m->ncomps;
    int *v = hlo_arena_array(&x->tmp, (size_t)n, sizeof *v);
    if (!v) return HLO_ERR;
    for (int i = 0; i < n; i++) v[i] = i < x->ncap ? x->cap[i] : -1;
    x->cap = v;
    x->ncap = n;
  }
  if (x->cap[c->id] < 0) x->cap[c->id] = c->ninstrs; /* the parser's array is exactly full */
  if (fuse_comp_append(&x->m->arena, c, &x->cap[c->id], in)) return HLO_ERR;
  int pos = -1;
  for (int i = 0; x->anchor && x->anchor->parent == c && i < c->ninstrs - 1 && pos < 0; i++)
    if (c->instrs[i] == x->anchor) pos = i;
  if (pos >= 0) {
    memmove(c->instrs + pos + 1, c->instrs + pos, (size_t)(c->ninstrs - 1 - pos) * sizeof *c->instrs);
    c->instrs[pos] = in;
  }
  for (int i = pos < 0 ? c->ninstrs - 1 : pos; i < c->ninstrs; i++) c->instrs[i]->id = i;
  return HLO_OK;
}

hlo_instruction *opt_add(opt_ctx *x, hlo_computation *c, hlo_opcode op, const char *base, int noperands,
                         const hlo_shape *s) {
  const char *name = opt_instr_name(x, base);
  hlo_instruction *in = name ? fuse_new_instr(&x->m->arena, op, name, noperands) : NULL;
  if (!in || (s && hlo_shape_copy(&x->m->arena, &in->shape, s)) || opt_append(x, c, in)) return NULL;
  return in;
}

hlo_attr *opt_add_attr(opt_ctx *x, hlo_instruction *in, hlo_attr_key k) {
  hlo_attr *v = hlo_arena_array(&x->m->arena, (size_t)in->nattrs + 1, sizeof *v);
  if (!v) return NULL;
  if (in->nattrs) memcpy(v, in->attrs, (size_t)in->nattrs * sizeof *v);
  hlo_attr *a = &v[in->nattrs];
  a->key = k;
  a->kind = hlo_attr_kind_of(k);
  a->name = hlo_attr_name(k);
  in->attrs = v;
  in->nattrs++;
  return a;
}

int opt_own_attrs(opt_ctx *x, hlo_instruction *in) {
  if (!in->nattrs) return HLO_OK;
  hlo_attr *v = hlo_arena_array(&x->m->arena, (size_t)in->nattrs, sizeof *v);
  if (!v) return HLO_ERR;
  memcpy(v, in->attrs, (size_t)in->nattrs * sizeof *v);
  for (int a = 0; a < in->nattrs; a++)
    if (v[a].kind == HLO_AK_COMPS && v[a].u.comps.n) {
      hlo_computation **cv = hlo_arena_array(&x->m->arena, (size_t)v[a].u.comps.n, sizeof *cv);
      if (!cv) return HLO_ERR;
      memcpy(cv, v[a].u.comps.v, (size_t)v[a].u.comps.n * sizeof *cv);
      v[a].u.comps.v = cv;
    }
  in->attrs = v;
  return HLO_OK;
}

void opt_replace_uses(hlo_computation *c, hlo_instruction *old, hlo_instruction *nw) {
  for (int i = 0; i < c->ninstrs; i++) {
    hlo_instruction *u = c->instrs[i];
    if (u == nw) continue;
    for (int q = 0; q < u->noperands; q++)
      if (u->operands[q] == old) u->operands[q] = nw;
  }
  if (c->root == old) c->root = nw;
}

int opt_remove_dead(opt_ctx *x, hlo_computation *c, hlo_instruction *const *seeds, int nseeds, int *removed) {
  int n = c->ninstrs;
  if (removed) *removed = 0;
  if (!n || !nseeds) return HLO_OK;
  int *uses = hlo_arena_array(&x->tmp, (size_t)n, sizeof *uses);
  unsigned char *keep = hlo_arena_array(&x->tmp, (size_t)n, 1); /* 1 pinned, 2 removed */
  hlo_instruction **work = hlo_arena_array(&x->tmp, (size_t)n + (size_t)nseeds, sizeof *work);
  if (!uses || !keep || !work) return HLO_ERR;
  for (int i = 0; i < n; i++) c->instrs[i]->id = i;
  for (int i = 0; i < n; i++) {
    hlo_instruction *in = c->instrs[i];
    for (int q = 0; q < in->noperands; q++)
      if (in->operands[q] && in->operands[q]->parent == c) uses[in->operands[q]->id]++;
    for (int q = 0; q < in->ncontrol; q++)
      if (in->control_preds[q] && in->control_preds[q]->parent == c) keep[in->control_preds[q]->id] = 1;
    if (in->ncontrol) keep[i] = 1; /* its control edges would dangle in the text */
    if (in->op == HLO_OP_PARAMETER || in == c->root || opt_side_effect(in)) keep[i] = 1;
  }
  int nw = 0, nrem = 0;
  for (int i = 0; i < nseeds; i++)
    if (seeds[i] && seeds[i]->parent == c && seeds[i]->id < n && c->instrs[seeds[i]->id] == seeds[i])
      work[nw++] = seeds[i];
  while (nw) {
    hlo_instruction *in = work[--nw];
    if (keep[in->id] || uses[in->id]) continue;
    keep[in->id] = 2;
    nrem++;
    for (int q = 0; q < in->noperands; q++) {
      hlo_instruction *o = in->operands[q];
      if (!o || o->parent != c || keep[o->id]) continue;
      if (--uses[o->id] == 0) work[nw++] = o; /* pushed once: only at zero */
    }
  }
  if (!nrem) return HLO_OK;
  int w = 0;
  for (int i = 0; i < n; i++)
    if (keep[i] != 2) c->instrs[w++] = c->instrs[i];
  c->ninstrs = w;
  for (int i = 0; i < w; i++) c->instrs[i]->id = i;
  if (removed) *removed = nrem;
  return HLO_OK;
}

int opt_replace(opt_ctx *x, hlo_computation *c, hlo_instruction *old, hlo_instruction *nw) {
  if (old == nw) return HLO_OK;
  opt_replace_uses(c, old, nw);
  return opt_remove_dead(x, c, &old, 1, NULL);
}

int opt_sort(opt_ctx *x, hlo_computation *c) {
  if (fuse_topo_sort(&x->m->arena, c)) return HLO_ERR;
  /* the sorted array is new and exactly full: a later append must grow it */
  if (c->id >= 0 && c->id < x->ncap && x->cap[c->id] >= 0) x->cap[c->id] = c->ninstrs;
  return HLO_OK;
}

hlo_instruction **opt_topo_order(opt_ctx *x, hlo_computation *c) {
  hlo_instruction **saved = c->instrs;
  int n = c->ninstrs;
  hlo_instruction **copy = hlo_arena_array(&x->tmp, (size_t)n + 1, sizeof *copy);
  if (!copy) return NULL;
  if (n) memcpy(copy, saved, (size_t)n * sizeof *copy);
  c->instrs = copy;
  if (fuse_topo_sort(&x->tmp, c)) {
    c->instrs = saved;
    return NULL;
  }
  hlo_instruction **order = c->instrs;
  c->instrs = saved;
  for (int i = 0; i < n; i++) saved[i]->id = i;
  return order;
}

int opt_rewrite_each(opt_ctx *x, opt_rewrite_fn *f, int rounds) {
  hlo_module *m = x->m;
  bool changed = false;
  for (int ci = 0; ci < m->ncomps; ci++) {
    hlo_computation *c = m->comps[ci];
    for (int round = 0; round < rounds; round++) {
      hlo_instruction **order = opt_topo_order(x, c);
      int n = c->ninstrs, ngone = 0;
      hlo_instruction **gone = hlo_arena_array(&x->tmp, (size_t)n + 1, sizeof *gone);
      if (!order || !gone) return opt_fail(x, NULL);
      for (int i = 0; i < n; i++) {
        hlo_instruction *in = order[i];
        if (in->ncontrol) continue;
        x->anchor = in;
        hlo_instruction *to = f(x, c, in);
        if (x->oom) return opt_fail(x, NULL);
        if (!to || to == in) continue;
        opt_replace_uses(c, in, to);
        gone[ngone++] = in;
      }
      if (!ngone) break;
      changed = true;
      if (opt_remove_dead(x, c, gone, ngone, NULL) || opt_sort(x, c)) return opt_fail(x, NULL);
    }
  }
  return changed;
}

/* Clone in (shares shape, literal; attributes copied when they name
 * instructions, which map[] translates by source id). */
static hlo_instruction *clone_into(opt_ctx *x, const hlo_instruction *t, const char *name, hlo_instruction **map,
                                   const hlo_computation *src) {
  hlo_instruction *k = fuse_clone_instr(&x->m->arena, t, name);
  if (!k) return NULL;
  for (int q = 0; q < k->noperands; q++) {
    hlo_instruction *o = t->operands[q];
    if (!o || o->parent != src || o->id < 0 || o->id >= src->ninstrs || !map[o->id]) return NULL;
    k->operands[q] = map[o->id];
  }
  bool named = false;
  for (int a = 0; a < t->nattrs; a++) named |= t->attrs[a].kind == HLO_AK_INSTRS;
  if (!named) return k;
  k->attrs = hlo_arena_array(&x->m->arena, (size_t)t->nattrs, sizeof *k->attrs);
  if (!k->attrs) return NULL;
  memcpy(k->attrs, t->attrs, (size_t)t->nattrs * sizeof *k->attrs);
  for (int a = 0; a < t->nattrs; a++) {
    hlo_attr *at = &k->attrs[a];
    if (at->kind != HLO_AK_INSTRS) continue;
    hlo_instruction **v = hlo_arena_array(&x->m->arena, (size_t)at->u.instrs.n + 1, sizeof *v);
    if (!v) return NULL;
    int w = 0;
    for (int q = 0; q < at->u.instrs.n; q++) {
      hlo_instruction *o = at->u.instrs.v[q];
      if (o && o->parent == src && o->id >= 0 && o->id < src->ninstrs && map[o->id]) v[w++] = map[o->id];
    }
    at->u.instrs.v = v;
    at->u.instrs.n = w;
  }
  return k;
}

int opt_inline_body(opt_ctx *x, hlo_computation *c, const hlo_computation *callee, hlo_instruction *const *args,
               int nargs, hlo_instruction **root) {
  int n = callee->ninstrs;
  hlo_instruction **map = hlo_arena_array(&x->tmp, (size_t)n + 1, sizeof *map);
  if (!map) return HLO_ERR;
  for (int i = 0; i < n; i++) callee->instrs[i]->id = i;
  for (int i = 0; i < n; i++) {
    hlo_instruction *t = callee->instrs[i];
    if (t->op == HLO_OP_PARAMETER) {
      if (t->param_number < 0 || t->param_number >= nargs) return HLO_ERR;
      map[i] = args[t->param_number];
      continue;
    }
    const char *name = opt_instr_name(x, t->name);
    hlo_instruction *k = name ? clone_into(x, t, name, map, callee) : NULL;
    if (!k || opt_append(x, c, k)) return HLO_ERR;
    map[i] = k;
  }
  if (!callee->root || callee->root->parent != callee || !map[callee->root->id]) return HLO_ERR;
  *root = map[callee->root->id];
  return HLO_OK;
}

hlo_computation *opt_clone_comp(opt_ctx *x, const hlo_computation *src, const char *suffix) {
  hlo_arena *a = &x->m->arena;
  const char *cname = hlo_arena_printf(a, "%s%s", src->name, suffix);
  hlo_computation *c = cname ? hlo_arena_alloc(a, sizeof *c) : NULL;
  if (!c || !(cname = opt_comp_name(x, cname))) return NULL;
  *c = *src;
  c->name = cname;
  c->is_entry = false;
  c->ninstrs = 0;
  c->instrs = NULL;
  c->id = x->m->ncomps; /* a fresh id: capacity tracked separately */
  int n = src->ninstrs;
  hlo_instruction **map = hlo_arena_array(&x->tmp, (size_t)n + 1, sizeof *map);
  if (!map) return NULL;
  for (int i = 0; i < n; i++) src->instrs[i]->id = i;
  for (int i = 0; i < n; i++) {
    const hlo_instruction *t = src->instrs[i];
    const char *name = hlo_arena_printf(a, "%s%s", t->name, suffix);
    if (!name || !(name = opt_instr_name(x, name))) return NULL;
    hlo_instruction *k = clone_into(x, t, name, map, src);
    if (!k || opt_append(x, c, k)) return NULL;
    map[i] = k;
  }
  c->root = src->root && src->root->parent == src ? map[src->root->id] : NULL;
  int pos = 0;
  while (pos < x->m->ncomps && x->m->comps[pos] != src) pos++;
  if (fuse_module_insert_comp(x->m, pos, c)) return NULL; /* before src: callees precede callers */
  for (int i = 0; i < x->m->ncomps; i++) x->m->comps[i]->id = i;
  x->ncap = 0; /* ids moved: recompute capacities */
  x->cap = NULL;
  return c;
}

static void mark_reachable(const hlo_computation *c, unsigned char *seen, int depth) {
  if (!c || seen[c->id] || depth > 10000) return;
  seen[c->id] = 1;
  for (int i = 0; i < c->ninstrs; i++)
    for (int k = 0; k < c->instrs[i]->ncalled; k++) mark_reachable(c->instrs[i]->called[k], seen, depth + 1);
}

int opt_drop_unreachable(opt_ctx *x, int *dropped) {
  hlo_module *m = x->m;
  *dropped = 0;
  if (!m->entry || hlo_module_link(m)) return m->entry ? HLO_ERR : HLO_OK;
  unsigned char *seen = hlo_arena_array(&x->tmp, (size_t)m->ncomps + 1, 1);
  if (!seen) return HLO_ERR;
  mark_reachable(m->entry, seen, 0);
  int w = 0;
  for (int i = 0; i < m->ncomps; i++)
    if (seen[m->comps[i]->id]) m->comps[w++] = m->comps[i];
  *dropped = m->ncomps - w;
  m->ncomps = w;
  x->ncap = 0;
  x->cap = NULL;
  return *dropped ? hlo_module_link(m) : HLO_OK;
}
