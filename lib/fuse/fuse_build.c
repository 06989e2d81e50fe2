/* fuse_build.c - turns the groups chosen for one computation into fusion
 * instructions: a new fused computation per group (parameters param_N,
 * copies of the members, existing fusions inlined, a tuple root for several
 * outputs), get-tuple-element for multi-output users, rewired operands,
 * copies left without users removed, and the computation re-sorted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/fuse_internal.h"

static int by_id(const void *a, const void *b) {
  const fuse_member *x = a, *y = b;
  return (x->in->id > y->in->id) - (x->in->id < y->in->id);
}

typedef struct bctx {
  hlo_module *m;
  hlo_arena *a;  /* module arena */
  hlo_arena tmp;
  hlo_computation *comp;
  int n;
  hlo_instruction **newv; /* old id -> copy in the fused computation */
  int *gen, cur;          /* newv[id] valid when gen[id] == cur */
  hlo_instruction **param;
  int *pgen;
  fuse_names *nm;
  hlo_strmap *local;
} bctx;

/* name, unless the fused computation already has it (then a fresh one). */
static const char *local_name(bctx *b, const char *name) {
  if (!name) name = "x";
  if (hlo_strmap_get(b->local, name) && !(name = fuse_unique_instr(b->nm, b->a, name))) return NULL;
  if (hlo_strmap_put(b->local, name, (void *)name, NULL)) return NULL;
  return name;
}

static bool is_old(const bctx *b, const hlo_instruction *in) {
  return in && in->id >= 0 && in->id < b->n && b->comp->instrs[in->id] == in;
}

static int set_attr_word(hlo_attr *at, hlo_attr_key k, const char *v) {
  at->key = k;
  at->kind = HLO_AK_WORD;
  at->name = hlo_attr_name(k);
  at->u.s = v;
  return HLO_OK;
}

/* Inline existing fusion e (already a member) into fused computation f. */
static int inline_fusion(bctx *b, hlo_computation *f, int *cap, hlo_instruction *e,
                         hlo_instruction *const *ops, hlo_instruction **result) {
  hlo_computation *ec = e->called[0];
  if (fuse_topo_sort(b->a, ec)) return HLO_ERR;
  hlo_instruction **map = hlo_arena_array(&b->tmp, (size_t)ec->ninstrs + 1, sizeof *map);
  if (!map) return HLO_ERR;
  for (int i = 0; i < ec->ninstrs; i++) {
    hlo_instruction *t = ec->instrs[i];
    if (t->op == HLO_OP_PARAMETER) {
      if (t->param_number < 0 || t->param_number >= e->noperands) return HLO_ERR;
      map[i] = ops[t->param_number];
      continue;
    }
    const char *name = local_name(b, t->name);
    hlo_instruction *c = name ? fuse_clone_instr(b->a, t, name) : NULL;
    if (!c) return HLO_ERR;
    for (int k = 0; k < c->noperands; k++) {
      hlo_instruction *o = t->operands[k];
      if (!o || o->parent != ec || o->id < 0 || o->id >= ec->ninstrs || !map[o->id]) return HLO_ERR;
      c->operands[k] = map[o->id];
    }
    if (fuse_comp_append(b->a, f, cap, c)) return HLO_ERR;
    map[i] = c;
  }
  if (!ec->root || ec->root->id < 0 || ec->root->id >= ec->ninstrs || !map[ec->root->id]) return HLO_ERR;
  *result = map[ec->root->id];
  return HLO_OK;
}

static const char *kind_word(int kind) {
  return kind == FK_INPUT ? "kInput" : kind == FK_OUTPUT ? "kOutput" : "kLoop";
}

/* Build group g's fused computation and fusion instruction; fill repl for
 * its outputs.  *fused_out receives the new computation. */
static int build_group(bctx *b, fuse_group *g, hlo_instruction **repl, hlo_instruction ***extra,
                       int *nextra, hlo_computation **fused_out) {
  qsort(g->mem, (size_t)g->nmem, sizeof *g->mem, by_id);
  b->cur++;
  for (int i = 0; i < g->nmem; i++) {
    b->gen[g->mem[i].in->id] = b->cur; /* members; their copies come below */
    b->newv[g->mem[i].in->id] = NULL;
  }
  hlo_strmap local; /* names inside the fused computation must be distinct */
  hlo_strmap_init(&local, &b->tmp);
  b->local = &local;
  hlo_computation *f = hlo_arena_alloc(b->a, sizeof *f);
  if (!f || !(f->name = fuse_unique_comp(b->nm, b->a, "fused_computation"))) return HLO_ERR;
  int cap = 0, np = 0;
  hlo_instruction **srcs = hlo_arena_array(&b->tmp, (size_t)b->n + 1, sizeof *srcs);
  if (!srcs) return HLO_ERR;
  /* parameters: operands read from outside, in order of first use */
  for (int i = 0; i < g->nmem; i++) {
    hlo_instruction *in = g->mem[i].in;
    for (int k = 0; k < in->noperands; k++) {
      hlo_instruction *o = in->operands[k];
      if (!is_old(b, o)) return HLO_ERR;
      if (b->gen[o->id] == b->cur || b->pgen[o->id] == b->cur) continue;
      char base[32];
      snprintf(base, sizeof base, "param_%d", np);
      const char *pname = fuse_unique_instr(b->nm, b->a, base);
      hlo_instruction *p = pname ? fuse_new_instr(b->a, HLO_OP_PARAMETER, local_name(b, pname), 0) : NULL;
      if (!p || !p->name || hlo_shape_copy(b->a, &p->shape, &o->shape)) return HLO_ERR;
      p->param_number = np;
      if (fuse_comp_append(b->a, f, &cap, p)) return HLO_ERR;
      b->param[o->id] = p;
      b->pgen[o->id] = b->cur;
      srcs[np++] = o;
    }
  }
  /* copies of the members in topological order */
  for (int i = 0; i < g->nmem; i++) {
    hlo_instruction *in = g->mem[i].in;
    hlo_instruction **ops = in->noperands ? hlo_arena_array(&b->tmp, (size_t)in->noperands, sizeof *ops) : NULL;
    if (in->noperands && !ops) return HLO_ERR;
    for (int k = 0; k < in->noperands; k++) {
      hlo_instruction *o = in->operands[k];
      ops[k] = b->pgen[o->id] == b->cur ? b->param[o->id] : b->newv[o->id];
      if (!ops[k]) return HLO_ERR; /* not in topological order: a bug upstream */
    }
    hlo_instruction *c;
    if (in->op == HLO_OP_FUSION && !g->mem[i].dup) {
      if (in->ncalled != 1 || inline_fusion(b, f, &cap, in, ops, &c)) return HLO_ERR;
    } else {
      const char *name = in->name;
      if (g->mem[i].dup) {
        const char *base = hlo_arena_printf(&b->tmp, "%s.clone", in->name ? in->name : "x");
        if (!base || !(name = fuse_unique_instr(b->nm, b->a, base))) return HLO_ERR;
      }
      if (!(name = local_name(b, name))) return HLO_ERR;
      if (!(c = fuse_clone_instr(b->a, in, name))) return HLO_ERR;
      for (int k = 0; k < in->noperands; k++) c->operands[k] = ops[k];
      if (fuse_comp_append(b->a, f, &cap, c)) return HLO_ERR;
    }
    b->newv[in->id] = c;
  }
  /* root */
  hlo_instruction *root;
  if (g->nout == 1) {
    root = b->newv[g->out[0]->id];
  } else {
    const char *tname = fuse_unique_instr(b->nm, b->a, "tuple");
    root = tname ? fuse_new_instr(b->a, HLO_OP_TUPLE, local_name(b, tname), g->nout) : NULL;
    if (!root || !root->name) return HLO_ERR;
    root->shape.type = HLO_TUPLE;
    root->shape.ntuple = g->nout;
    if (!(root->shape.tuple = hlo_arena_array(b->a, (size_t)g->nout, sizeof *root->shape.tuple))) return HLO_ERR;
    for (int i = 0; i < g->nout; i++) {
      root->operands[i] = b->newv[g->out[i]->id];
      if (hlo_shape_copy(b->a, &root->shape.tuple[i], &g->out[i]->shape)) return HLO_ERR;
    }
    if (fuse_comp_append(b->a, f, &cap, root)) return HLO_ERR;
  }
  f->root = root;
  f->root_explicit = true;
  /* the fusion instruction */
  const char *fname = g->grown ? g->root->name : fuse_unique_instr(b->nm, b->a, "fusion");
  hlo_instruction *fi = fuse_new_instr(b->a, HLO_OP_FUSION, fname, np);
  if (!fi || !fname || hlo_shape_copy(b->a, &fi->shape, &root->shape)) return HLO_ERR;
  for (int k = 0; k < np; k++) fi->operands[k] = srcs[k];
  fi->nattrs = 2;
  if (!(fi->attrs = hlo_arena_array(b->a, 2, sizeof *fi->attrs))) return HLO_ERR;
  set_attr_word(&fi->attrs[0], HLO_A_KIND, kind_word(g->kind));
  fi->attrs[1].key = HLO_A_CALLS;
  fi->attrs[1].kind = HLO_AK_COMPS;
  fi->attrs[1].name = hlo_attr_name(HLO_A_CALLS);
  fi->attrs[1].u.comps.n = 1;
  if (!(fi->attrs[1].u.comps.v = hlo_arena_array(b->a, 1, sizeof(hlo_computation *)))) return HLO_ERR;
  fi->attrs[1].u.comps.v[0] = f;
  g->fusion = fi;
  /* what the outside sees */
  *nextra = 0;
  if (g->nout == 1) {
    repl[g->out[0]->id] = fi;
  } else {
    if (!(*extra = hlo_arena_array(&b->tmp, (size_t)g->nout, sizeof **extra))) return HLO_ERR;
    for (int i = 0; i < g->nout; i++) {
      hlo_instruction *gte = fuse_new_instr(b->a, HLO_OP_GET_TUPLE_ELEMENT,
                                            fuse_unique_instr(b->nm, b->a, "get-tuple-element"), 1);
      if (!gte || !gte->name || hlo_shape_copy(b->a, &gte->shape, &g->out[i]->shape)) return HLO_ERR;
      gte->operands[0] = fi;
      gte->nattrs = 1;
      if (!(gte->attrs = hlo_arena_array(b->a, 1, sizeof *gte->attrs))) return HLO_ERR;
      gte->attrs[0].key = HLO_A_INDEX;
      gte->attrs[0].kind = HLO_AK_INT;
      gte->attrs[0].name = hlo_attr_name(HLO_A_INDEX);
      gte->attrs[0].u.i = i;
      repl[g->out[i]->id] = gte;
      (*extra)[(*nextra)++] = gte;
    }
  }
  *fused_out = f;
  return HLO_OK;
}

int fuse_materialize(hlo_module *m, hlo_computation *comp, int comp_pos, fuse_group *g, int ng,
                     fuse_names *nm, hlo_fuse_report *r, hlo_diags *d) {
  bctx b;
  memset(&b, 0, sizeof b);
  b.m = m;
  b.a = &m->arena;
  b.comp = comp;
  b.n = comp->ninstrs;
  b.nm = nm;
  hlo_arena_init(&b.tmp, m->arena.alloc);
  int rc = HLO_ERR;
  size_t n = (size_t)b.n + 1;
  b.newv = hlo_arena_array(&b.tmp, n, sizeof *b.newv);
  b.gen = hlo_arena_array(&b.tmp, n, sizeof *b.gen);
  b.param = hlo_arena_array(&b.tmp, n, sizeof *b.param);
  b.pgen = hlo_arena_array(&b.tmp, n, sizeof *b.pgen);
  hlo_instruction **repl = hlo_arena_array(&b.tmp, n, sizeof *repl);
  int *gof = hlo_arena_array(&b.tmp, n, sizeof *gof);      /* group of a moved member + 1 */
  bool *wasdup = hlo_arena_array(&b.tmp, n, sizeof *wasdup);
  hlo_instruction ***extra = hlo_arena_array(&b.tmp, (size_t)ng + 1, sizeof *extra);
  int *nextra = hlo_arena_array(&b.tmp, (size_t)ng + 1, sizeof *nextra);
  hlo_computation **fused = hlo_arena_array(&b.tmp, (size_t)ng + 1, sizeof *fused);
  if (!b.newv || !b.gen || !b.param || !b.pgen || !repl || !gof || !wasdup || !extra || !nextra || !fused)
    goto oom;
  for (int gi = 0; gi < ng; gi++) {
    if (g[gi].dead) continue;
    for (int i = 0; i < g[gi].nmem; i++) {
      if (g[gi].mem[i].dup) wasdup[g[gi].mem[i].in->id] = true;
      else gof[g[gi].mem[i].in->id] = gi + 1;
    }
  }
  /* build in order of the roots so fused computations print in that order */
  for (int gi = ng - 1; gi >= 0; gi--) {
    if (g[gi].dead) continue;
    if (build_group(&b, &g[gi], repl, &extra[gi], &nextra[gi], &fused[gi])) goto oom;
    if (r) {
      if (g[gi].grown) r->fusions_grown++;
      else r->fusions_made++;
      for (int i = 0; i < g[gi].nmem; i++) {
        hlo_instruction *in = g[gi].mem[i].in;
        bool output = false;
        for (int k = 0; k < g[gi].nout; k++) output |= g[gi].out[k] == in;
        if (!g[gi].mem[i].dup && !output && hlo_shape_is_array(&in->shape)) {
          int64_t bytes;
          if (hlo_shape_bytes(&in->shape, &bytes)) r->bytes_not_written += bytes;
        }
      }
    }
  }
  /* the new instruction list */
  {
    hlo_computation tmpc = *comp;
    int cap = 0;
    tmpc.ninstrs = 0;
    tmpc.instrs = NULL;
    for (int i = 0; i < b.n; i++) {
      hlo_instruction *in = comp->instrs[i];
      int gi = gof[i] - 1;
      if (gi < 0) {
        if (fuse_comp_append(b.a, &tmpc, &cap, in)) goto oom;
        continue;
      }
      if (g[gi].root != in) continue;
      if (fuse_comp_append(b.a, &tmpc, &cap, g[gi].fusion)) goto oom;
      for (int k = 0; k < nextra[gi]; k++)
        if (fuse_comp_append(b.a, &tmpc, &cap, extra[gi][k])) goto oom;
    }
    /* rewire operands that were fused away */
    for (int i = 0; i < tmpc.ninstrs; i++) {
      hlo_instruction *in = tmpc.instrs[i];
      for (int k = 0; k < in->noperands; k++) {
        hlo_instruction *o = in->operands[k];
        if (is_old(&b, o) && repl[o->id]) in->operands[k] = repl[o->id];
      }
    }
    if (is_old(&b, comp->root) && repl[comp->root->id]) comp->root = repl[comp->root->id];
    /* copies may have taken every use of a duplicated producer */
    for (bool again = true; again;) {
      again = false;
      for (int i = 0; i < tmpc.ninstrs; i++) tmpc.instrs[i]->nusers = 0;
      for (int i = 0; i < tmpc.ninstrs; i++)
        for (int k = 0; k < tmpc.instrs[i]->noperands; k++) tmpc.instrs[i]->operands[k]->nusers++;
      int w = 0;
      for (int i = 0; i < tmpc.ninstrs; i++) {
        hlo_instruction *in = tmpc.instrs[i];
        bool drop = is_old(&b, in) && wasdup[in->id] && in->nusers == 0 && in != comp->root;
        if (drop) again = true;
        else tmpc.instrs[w++] = in;
      }
      tmpc.ninstrs = w;
    }
    comp->instrs = tmpc.instrs;
    comp->ninstrs = tmpc.ninstrs;
    for (int i = 0; i < comp->ninstrs; i++) comp->instrs[i]->parent = comp;
    if (fuse_topo_sort(b.a, comp)) goto oom;
  }
  for (int gi = ng - 1, pos = comp_pos; gi >= 0; gi--) {
    if (g[gi].dead) continue;
    if (fuse_module_insert_comp(m, pos++, fused[gi])) goto oom;
    for (int i = 0; i < fused[gi]->ninstrs; i++) fused[gi]->instrs[i]->parent = fused[gi];
  }
  if (hlo_module_link(m)) goto oom;
  rc = HLO_OK;
  goto done;
oom:
  hlo_errorf(d, NULL, 0, "%s: cannot build fusions: out of memory, or the computation is malformed (an operand cycle)",
             comp->name ? comp->name : "?");
done:
  hlo_arena_release(&b.tmp);
  return rc;
}
