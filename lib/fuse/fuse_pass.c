/* fuse_pass.c - the fusion decisions of one computation: grow a group from
 * each consumer (latest first) by taking producers in reverse topological
 * order, checking kind, side effects, operand utilization from the indexing
 * maps, duplication and size; then merge sibling groups that read the same
 * operand.  The groups are handed to fuse_materialize(). */
#include <string.h>

#include "fuse/fuse_internal.h"

typedef struct fstate {
  hlo_module *m;
  hlo_computation *comp;
  hlo_fuse_options o;
  hlo_fuse_report *r;
  hlo_arena tmp;
  imap_ctx ic;
  hlo_diags scratch; /* indexing diagnostics: an op without maps is not an error */
  int n;
  int *owner;        /* group that holds the instruction (moved), or -1 */
  int *stamp, cur;   /* membership in the group being built */
  bool *mdup;        /* member is a copy (valid where stamp == cur) */
  bool *pinned;      /* control dependencies: never fused */
  bool *ext_read;    /* read by a group made earlier (through its copies) */
  double *R;         /* element evaluations inside the current group */
  int *seen, seenst;
  int *queued;
  imap_indexing **idx;
  int *heap, nheap;
  int *dfs;
  fuse_group *g;
  int ng, capg;
  hlo_strmap pairs; /* sibling rejections already reported */
} fstate;

/* ---- helpers ------------------------------------------------------------------ */
static double elems_of(const hlo_instruction *in) {
  int64_t n;
  return hlo_shape_is_array(&in->shape) && hlo_shape_elements(&in->shape, &n) ? (double)n : 0;
}

static int64_t bytes_of(const hlo_instruction *in) {
  int64_t n;
  return hlo_shape_is_array(&in->shape) && hlo_shape_bytes(&in->shape, &n) ? n : 0;
}

static void heap_push(fstate *s, int id) {
  if (s->queued[id] == s->cur) return;
  s->queued[id] = s->cur;
  int i = s->nheap++;
  s->heap[i] = id;
  while (i > 0 && s->heap[(i - 1) / 2] < s->heap[i]) {
    int p = (i - 1) / 2, t = s->heap[p];
    s->heap[p] = s->heap[i];
    s->heap[i] = t;
    i = p;
  }
}

static int heap_pop(fstate *s) {
  int top = s->heap[0];
  s->heap[0] = s->heap[--s->nheap];
  int i = 0;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, b = i;
    if (l < s->nheap && s->heap[l] > s->heap[b]) b = l;
    if (r < s->nheap && s->heap[r] > s->heap[b]) b = r;
    if (b == i) break;
    int t = s->heap[b];
    s->heap[b] = s->heap[i];
    s->heap[i] = t;
    i = b;
  }
  return top;
}

static bool local(const fstate *s, const hlo_instruction *in) {
  return in && in->parent == s->comp && in->id >= 0 && in->id < s->n && s->comp->instrs[in->id] == in;
}

/* Elements of p read to compute one element of u (summed over every
 * operand slot of u holding p); -1 when a map is unknown. */
static double reads_per_element(fstate *s, hlo_instruction *u, hlo_instruction *p) {
  if (!s->idx[u->id]) {
    imap_indexing *x = hlo_arena_alloc(&s->tmp, sizeof *x);
    if (!x) return -2;
    if (imap_output_to_input(&s->ic, u, 0, x, &s->scratch) || s->ic.failed) {
      if (s->ic.failed) return -2;
      x->n = 0;
    }
    s->idx[u->id] = x;
  }
  const imap_indexing *x = s->idx[u->id];
  double total = 0, ue = elems_of(u);
  for (int k = 0; k < u->noperands; k++) {
    if (u->operands[k] != p) continue;
    if (k >= x->n) return -1;
    for (int j = 0; j < x->sets[k].n; j++) {
      const imap_map *mp = x->sets[k].v[j];
      if (mp->state == IMAP_UNDEFINED) return -1;
      if (mp->state == IMAP_KNOWN_EMPTY) continue;
      double box = 1;
      for (int i = 0; i < mp->ndims; i++) box *= (double)(mp->dims[i].hi - mp->dims[i].lo + 1);
      for (int i = 0; i < mp->nsyms; i++) box *= (double)(mp->syms[i].hi - mp->syms[i].lo + 1);
      if (box > 0) total += box;
    }
  }
  return ue > 0 ? total / ue : 0;
}

static int add_member(fstate *s, fuse_group *g, hlo_instruction *in, bool dup) {
  if (g->nmem == g->capmem) {
    int nc = g->capmem ? g->capmem * 2 : 8;
    fuse_member *v = hlo_arena_array(&s->tmp, (size_t)nc, sizeof *v);
    if (!v) return HLO_ERR;
    if (g->nmem) memcpy(v, g->mem, (size_t)g->nmem * sizeof *v);
    g->mem = v;
    g->capmem = nc;
  }
  g->mem[g->nmem].in = in;
  g->mem[g->nmem].dup = dup;
  g->nmem++;
  return HLO_OK;
}

static int add_output(fstate *s, fuse_group *g, hlo_instruction *in) {
  if (g->nout == g->capout) {
    int nc = g->capout ? g->capout * 2 : 4;
    hlo_instruction **v = hlo_arena_array(&s->tmp, (size_t)nc, sizeof *v);
    if (!v) return HLO_ERR;
    if (g->nout) memcpy(v, g->out, (size_t)g->nout * sizeof *v);
    g->out = v;
    g->capout = nc;
  }
  g->out[g->nout++] = in;
  return HLO_OK;
}

static void stamp_group(fstate *s, const fuse_group *g) {
  s->cur++;
  for (int i = 0; i < g->nmem; i++) {
    s->stamp[g->mem[i].in->id] = s->cur;
    s->mdup[g->mem[i].in->id] = g->mem[i].dup;
  }
}

/* Can any of `from` (instructions outside the stamped group) reach a
 * stamped instruction, following users?  Only ids <= limit matter. */
static bool reaches_group(fstate *s, hlo_instruction *const *from, int nfrom, int limit) {
  s->seenst++;
  int sp = 0;
  for (int i = 0; i < nfrom; i++) {
    if (!local(s, from[i]) || s->seen[from[i]->id] == s->seenst) continue;
    s->seen[from[i]->id] = s->seenst;
    s->dfs[sp++] = from[i]->id;
  }
  while (sp) {
    hlo_instruction *t = s->comp->instrs[s->dfs[--sp]];
    if (s->stamp[t->id] == s->cur) return true;
    for (int k = 0; k < t->nusers; k++) {
      hlo_instruction *u = t->users[k];
      if (!local(s, u) || u->id > limit || s->seen[u->id] == s->seenst) continue;
      s->seen[u->id] = s->seenst;
      s->dfs[sp++] = u->id;
    }
  }
  return false;
}

static int event(fstate *s, hlo_fuse_verdict v, const hlo_instruction *p, const hlo_instruction *c,
                 double util) {
  if (!s->r) return HLO_OK;
  return fuse_report_add(s->r, v, s->comp->name, p->name, c->name, NULL, util);
}

static int fusion_kind_word(const hlo_instruction *in) {
  const char *k = hlo_instr_word(in, HLO_A_KIND);
  if (k && strcmp(k, "kLoop") == 0) return FK_LOOP;
  if (k && strcmp(k, "kInput") == 0) return FK_INPUT;
  return -1;
}

/* ---- one producer ------------------------------------------------------------------ */
static int consider(fstate *s, int gi, hlo_instruction *p) {
  fuse_group *g = &s->g[gi];
  hlo_instruction *c = g->root;
  unsigned kinds = s->o.kinds;
  if (!local(s, p) || s->stamp[p->id] == s->cur || p->op == HLO_OP_PARAMETER) return HLO_OK;
  fuse_class cls = fuse_classify(p);
  if (cls == FC_NONE || s->owner[p->id] >= 0) return HLO_OK;
  if (cls == FC_SIDE || s->pinned[p->id]) return event(s, HLO_FUSE_REJ_SIDE_EFFECT, p, c, -1);
  if (cls == FC_REDUCE) return event(s, HLO_FUSE_REJ_KIND, p, c, -1);
  if (cls == FC_FUSION && fusion_kind_word(p) != FK_LOOP) return event(s, HLO_FUSE_REJ_KIND, p, c, -1);
  if (cls == FC_MATMUL) {
    bool ok = (kinds & HLO_FUSE_OUTPUT) && g->kind == FK_LOOP;
    for (int k = 0; ok && k < p->nusers; k++) {
      hlo_instruction *u = p->users[k];
      if (s->stamp[u->id] == s->cur && !(hlo_opcode_flags(u->op) & HLO_F_ELEMENTWISE)) ok = false;
    }
    if (!ok) return event(s, HLO_FUSE_REJ_KIND, p, c, -1);
  } else {
    unsigned need = g->kind == FK_INPUT ? HLO_FUSE_INPUT : HLO_FUSE_LOOP;
    if (!(kinds & need)) return event(s, HLO_FUSE_REJ_KIND, p, c, -1);
  }
  /* utilization: elements of p computed per element of p, over the group */
  double rp = 0;
  bool unknown = false;
  for (int k = 0; k < p->nusers; k++) {
    hlo_instruction *u = p->users[k];
    if (!local(s, u) || s->stamp[u->id] != s->cur) continue;
    double rpe = reads_per_element(s, u, p);
    if (rpe == -2) return HLO_ERR;
    if (rpe < 0) unknown = true;
    else rp += s->R[u->id] * rpe;
  }
  double pe = elems_of(p);
  double util = unknown ? -1 : pe > 0 ? rp / pe : 0;
  bool cheap = fuse_cheap(p);
  if (!cheap && (unknown || util > 1.0 + 1e-9)) return event(s, HLO_FUSE_REJ_UTILIZATION, p, c, util);
  if (cls == FC_MATMUL && (util < 1.0 - 1e-9 || util > 1.0 + 1e-9))
    return event(s, HLO_FUSE_REJ_UTILIZATION, p, c, util);
  /* users outside the group (a copy inside does not count as inside) */
  int nout = 0;
  hlo_instruction **outside = hlo_arena_array(&s->tmp, (size_t)p->nusers + 1, sizeof *outside);
  if (!outside) return HLO_ERR;
  for (int k = 0; k < p->nusers; k++) {
    hlo_instruction *u = p->users[k];
    if (!local(s, u) || s->stamp[u->id] != s->cur || s->mdup[u->id]) outside[nout++] = u;
  }
  bool escapes = nout > 0 || p == s->comp->root || s->ext_read[p->id];
  int size = cls == FC_FUSION && p->ncalled == 1 ? fuse_comp_size(p->called[0]) : 1;
  if (g->size + size > s->o.max_size) return event(s, HLO_FUSE_REJ_SIZE, p, c, util);
  hlo_fuse_verdict v;
  if (!escapes) {
    v = HLO_FUSE_FUSED;
  } else if (cheap && cls == FC_LOOP) {
    v = HLO_FUSE_DUPLICATED;
  } else if ((kinds & HLO_FUSE_MULTI) && !s->ext_read[p->id] && cls != FC_MATMUL && util <= 1.0 + 1e-9 &&
             g->nout < s->o.max_outputs) {
    if (reaches_group(s, outside, nout, c->id)) return event(s, HLO_FUSE_REJ_CYCLE, p, c, util);
    v = HLO_FUSE_MULTI_OUTPUT;
  } else {
    return event(s, HLO_FUSE_REJ_DUPLICATION, p, c, util);
  }
  bool dup = v == HLO_FUSE_DUPLICATED;
  if (add_member(s, g, p, dup)) return HLO_ERR;
  s->stamp[p->id] = s->cur;
  s->mdup[p->id] = dup;
  s->R[p->id] = unknown ? pe : rp;
  g->size += size;
  if (!dup) s->owner[p->id] = gi;
  if (v == HLO_FUSE_MULTI_OUTPUT && add_output(s, g, p)) return HLO_ERR;
  if (cls == FC_MATMUL) g->kind = FK_OUTPUT;
  else
    for (int k = 0; k < p->noperands; k++)
      if (local(s, p->operands[k])) heap_push(s, p->operands[k]->id);
  return event(s, v, p, c, util);
}

/* ---- one consumer ------------------------------------------------------------------- */
static int new_group(fstate *s, hlo_instruction *c, int kind) {
  if (s->ng == s->capg) {
    int nc = s->capg ? s->capg * 2 : 16;
    fuse_group *v = hlo_arena_array(&s->tmp, (size_t)nc, sizeof *v);
    if (!v) return -1;
    if (s->ng) memcpy(v, s->g, (size_t)s->ng * sizeof *v);
    s->g = v;
    s->capg = nc;
  }
  fuse_group *g = &s->g[s->ng];
  memset(g, 0, sizeof *g);
  g->root = c;
  g->into = -1;
  g->kind = kind;
  g->grown = c->op == HLO_OP_FUSION;
  g->size = g->grown && c->ncalled == 1 ? fuse_comp_size(c->called[0]) : 1;
  if (add_member(s, g, c, false) || add_output(s, g, c)) return -1;
  return s->ng++;
}

static int grow(fstate *s, hlo_instruction *c) {
  if (s->owner[c->id] >= 0 || s->pinned[c->id]) return HLO_OK;
  int kind = FK_LOOP;
  switch (fuse_classify(c)) {
  case FC_LOOP: kind = FK_LOOP; break;
  case FC_REDUCE:
    if (!(s->o.kinds & HLO_FUSE_INPUT)) return HLO_OK;
    kind = FK_INPUT;
    break;
  case FC_FUSION:
    if ((kind = fusion_kind_word(c)) < 0) return HLO_OK;
    break;
  case FC_NONE: case FC_SIDE: case FC_MATMUL:
    return HLO_OK;
  }
  int gi = new_group(s, c, kind);
  if (gi < 0) return HLO_ERR;
  size_t first_event = s->r ? (size_t)s->r->nevents : 0;
  s->cur++;
  s->stamp[c->id] = s->cur;
  s->mdup[c->id] = false;
  s->R[c->id] = elems_of(c);
  s->nheap = 0;
  for (int k = 0; k < c->noperands; k++)
    if (local(s, c->operands[k])) heap_push(s, c->operands[k]->id);
  while (s->nheap) {
    int id = heap_pop(s);
    if (consider(s, gi, s->comp->instrs[id])) return HLO_ERR;
  }
  fuse_group *g = &s->g[gi];
  (void)first_event;
  if (g->nmem == 1) {
    /* nothing joined: kept only as a candidate for a sibling merge (no
     * later group can take c: their producers all come before c) */
    if (!(s->o.kinds & HLO_FUSE_MULTI) || g->grown) s->ng--;
    else g->single = true;
    return HLO_OK;
  }
  s->owner[c->id] = gi;
  /* the group's copies read their operands from outside from now on */
  for (int i = 0; i < g->nmem; i++) {
    hlo_instruction *in = g->mem[i].in;
    for (int k = 0; k < in->noperands; k++) {
      hlo_instruction *o = in->operands[k];
      if (local(s, o) && s->stamp[o->id] != s->cur && g->mem[i].dup) s->ext_read[o->id] = true;
    }
  }
  return HLO_OK;
}

/* ---- sibling multi-output fusion ------------------------------------------------------ */
static bool same_dims(const hlo_shape *a, const hlo_shape *b) {
  if (!hlo_shape_is_array(a) || !hlo_shape_is_array(b) || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

static bool compatible(const fuse_group *a, const fuse_group *b) {
  if (a->kind != b->kind || a->kind == FK_OUTPUT) return false;
  if (!same_dims(&a->root->shape, &b->root->shape)) return false;
  if (a->kind == FK_INPUT) {
    const hlo_instruction *ra = a->root, *rb = b->root;
    if (ra->op != HLO_OP_REDUCE || rb->op != HLO_OP_REDUCE || !ra->noperands || !rb->noperands) return false;
    if (!same_dims(&ra->operands[0]->shape, &rb->operands[0]->shape)) return false;
  }
  return true;
}

/* Does g read x from outside? */
static bool group_reads(const fuse_group *g, const hlo_instruction *x) {
  bool reads = false;
  for (int i = 0; i < g->nmem; i++) {
    if (g->mem[i].in == x && !g->mem[i].dup) return false;
    for (int k = 0; k < g->mem[i].in->noperands; k++)
      if (g->mem[i].in->operands[k] == x) reads = true;
  }
  return reads;
}

/* Would merging a and b create a cycle?  (Does either reach the other?) */
static int depends(fstate *s, const fuse_group *a, const fuse_group *b, bool *dep) {
  for (int pass = 0; pass < 2 && !*dep; pass++) {
    const fuse_group *from = pass ? b : a, *to = pass ? a : b;
    stamp_group(s, to);
    hlo_instruction **v = hlo_arena_array(&s->tmp, (size_t)from->nmem, sizeof *v);
    if (!v) return HLO_ERR;
    int nv = 0;
    for (int i = 0; i < from->nmem; i++)
      if (!from->mem[i].dup) v[nv++] = from->mem[i].in;
    if (reaches_group(s, v, nv, s->n)) *dep = true;
  }
  return HLO_OK;
}

static int sibling_event(fstate *s, hlo_fuse_verdict v, const hlo_instruction *b,
                         const hlo_instruction *a) {
  if (!s->r) return HLO_OK;
  if (v != HLO_FUSE_SIBLING) {
    /* a pair is offered once per shared operand: report its rejection once */
    char *key = hlo_arena_printf(&s->tmp, "%d %d %d", a->id, b->id, (int)v);
    if (!key) return HLO_ERR;
    if (hlo_strmap_get(&s->pairs, key)) return HLO_OK;
    if (hlo_strmap_put(&s->pairs, key, key, NULL)) return HLO_ERR;
  }
  if (event(s, v, b, a, -1)) return HLO_ERR;
  s->r->events[s->r->nevents - 1].sibling = true;
  return HLO_OK;
}

static int merge(fstate *s, int ai, int bi) {
  fuse_group *a = &s->g[ai], *b = &s->g[bi];
  stamp_group(s, a);
  for (int i = 0; i < b->nmem; i++) {
    fuse_member mb = b->mem[i];
    int id = mb.in->id;
    if (s->stamp[id] == s->cur) {
      if (s->mdup[id] && !mb.dup)
        for (int j = 0; j < a->nmem; j++)
          if (a->mem[j].in == mb.in) a->mem[j].dup = false;
      continue;
    }
    if (add_member(s, a, mb.in, mb.dup)) return HLO_ERR;
    if (!mb.dup) s->owner[id] = ai;
  }
  for (int i = 0; i < b->nout; i++)
    if (add_output(s, a, b->out[i])) return HLO_ERR;
  if (a->single) s->owner[a->root->id] = ai;
  a->single = b->single = false;
  a->size += b->size;
  a->sibling = true;
  b->dead = true;
  b->into = ai;
  return HLO_OK;
}

static int siblings(fstate *s) {
  int *readers = hlo_arena_array(&s->tmp, (size_t)s->ng + 1, sizeof *readers);
  if (!readers) return HLO_ERR;
  for (int xi = 0; xi < s->n; xi++) {
    hlo_instruction *x = s->comp->instrs[xi];
    if (!hlo_shape_is_array(&x->shape) || elems_of(x) <= 1 || x->nusers < 2) continue;
    int nr = 0;
    for (int gi = 0; gi < s->ng; gi++) {
      fuse_group *g = &s->g[gi];
      if (g->dead || !group_reads(g, x)) continue;
      /* merge g into the first earlier reader it is compatible with */
      bool merged = false;
      for (int j = 0; j < nr && !merged; j++) {
        int ai = readers[j];
        fuse_group *a = &s->g[ai];
        if (a->dead || !compatible(a, g)) continue;
        if (a->size + g->size > s->o.max_size || a->nout + g->nout > s->o.max_outputs) {
          if (sibling_event(s, HLO_FUSE_REJ_SIZE, g->root, a->root)) return HLO_ERR;
          continue;
        }
        bool dep = false;
        if (depends(s, a, g, &dep)) return HLO_ERR;
        if (dep) {
          if (sibling_event(s, HLO_FUSE_REJ_CYCLE, g->root, a->root)) return HLO_ERR;
          continue;
        }
        if (merge(s, ai, gi)) return HLO_ERR;
        if (s->r) s->r->bytes_not_read += bytes_of(x);
        if (sibling_event(s, HLO_FUSE_SIBLING, g->root, s->g[ai].root)) return HLO_ERR;
        merged = true;
      }
      if (!merged) readers[nr++] = gi;
    }
  }
  return HLO_OK;
}

/* ---- cycles between fusions -------------------------------------------------------------
 * Multi-output fusions can make two groups depend on each other even when
 * each decision was locally sound.  Contract every live group to one node,
 * look for a cycle, and dissolve the group on it with the most outputs
 * until the contracted graph is acyclic (dissolving only removes edges of
 * the contracted graph, and the original graph is acyclic). */
static int node_of(const fstate *s, const hlo_instruction *in) {
  int gi = s->owner[in->id];
  return gi >= 0 && !s->g[gi].dead ? s->n + gi : in->id;
}

static int find_cycle_group(fstate *s, int *victim) {
  int nn = s->n + s->ng;
  *victim = -1;
  /* edges in CSR form: count, then fill */
  int *deg = hlo_arena_array(&s->tmp, (size_t)nn + 1, sizeof *deg);
  if (!deg) return HLO_ERR;
  for (int pass = 0; pass < 2; pass++) {
    int *fill = NULL, *adj = NULL;
    if (pass == 1) {
      for (int i = 1; i <= nn; i++) deg[i] += deg[i - 1];
      fill = hlo_arena_array(&s->tmp, (size_t)nn + 1, sizeof *fill);
      adj = hlo_arena_array(&s->tmp, (size_t)deg[nn] + 1, sizeof *adj);
      if (!fill || !adj) return HLO_ERR;
      memcpy(fill, deg, (size_t)nn * sizeof *fill);
    }
#define EDGE(a, b)                                          \
  do {                                                      \
    if ((a) != (b)) {                                       \
      if (pass == 0) deg[(a) + 1]++;                        \
      else adj[fill[a]++] = (b);                            \
    }                                                       \
  } while (0)
    for (int i = 0; i < s->n; i++) {
      hlo_instruction *in = s->comp->instrs[i];
      int to = node_of(s, in);
      for (int k = 0; k < in->noperands; k++)
        if (local(s, in->operands[k])) EDGE(node_of(s, in->operands[k]), to);
      for (int k = 0; k < in->ncontrol; k++)
        if (local(s, in->control_preds[k])) EDGE(node_of(s, in->control_preds[k]), to);
    }
    for (int gi = 0; gi < s->ng; gi++) {
      fuse_group *g = &s->g[gi];
      if (g->dead) continue;
      for (int i = 0; i < g->nmem; i++) {
        if (!g->mem[i].dup) continue;
        hlo_instruction *x = g->mem[i].in;
        for (int k = 0; k < x->noperands; k++)
          if (local(s, x->operands[k])) EDGE(node_of(s, x->operands[k]), s->n + gi);
      }
    }
#undef EDGE
    if (pass == 1) {
      /* iterative DFS with colours; a grey target closes a cycle */
      unsigned char *col = hlo_arena_array(&s->tmp, (size_t)nn + 1, 1);
      int *stack = hlo_arena_array(&s->tmp, (size_t)nn + 1, sizeof *stack);
      int *it = hlo_arena_array(&s->tmp, (size_t)nn + 1, sizeof *it);
      if (!col || !stack || !it) return HLO_ERR;
      for (int r = 0; r < nn; r++) {
        if (col[r]) continue;
        int sp = 0;
        stack[sp++] = r;
        col[r] = 1;
        it[r] = deg[r];
        while (sp) {
          int v = stack[sp - 1];
          int end = fill[v]; /* = deg[v + 1] once filled */
          if (it[v] < end) {
            int w = adj[it[v]++];
            if (col[w] == 0) {
              col[w] = 1;
              it[w] = deg[w];
              stack[sp++] = w;
            } else if (col[w] == 1) {
              int best = -1, bestout = -1;
              for (int q = sp - 1; q >= 0; q--) {
                int u = stack[q];
                if (u >= s->n && s->g[u - s->n].nout > bestout) {
                  best = u - s->n;
                  bestout = s->g[best].nout;
                }
                if (u == w) break;
              }
              *victim = best;
              return HLO_OK;
            }
          } else {
            col[v] = 2;
            sp--;
          }
        }
      }
    }
  }
  return HLO_OK;
}

static int break_cycles(fstate *s) {
  for (;;) {
    int victim;
    if (find_cycle_group(s, &victim)) return HLO_ERR;
    if (victim < 0) return HLO_OK;
    fuse_group *g = &s->g[victim];
    for (int i = 0; i < g->nmem; i++)
      if (!g->mem[i].dup && s->owner[g->mem[i].in->id] == victim) s->owner[g->mem[i].in->id] = -1;
    g->dead = true;
    g->into = -1;
    if (event(s, HLO_FUSE_REJ_CYCLE, g->root, g->root, -1)) return HLO_ERR;
  }
}

/* ---- driver --------------------------------------------------------------------------- */
static int fuse_computation(hlo_module *m, int ci, const hlo_fuse_options *o, fuse_names *nm,
                            hlo_fuse_report *r, hlo_diags *d) {
  hlo_computation *comp = m->comps[ci];
  if (fuse_topo_sort(&m->arena, comp)) return hlo_errorf(d, NULL, 0, "out of memory");
  if (hlo_module_link(m)) return hlo_errorf(d, NULL, 0, "out of memory");
  fstate s;
  memset(&s, 0, sizeof s);
  s.m = m;
  s.comp = comp;
  s.o = *o;
  s.r = r;
  s.n = comp->ninstrs;
  hlo_arena_init(&s.tmp, m->arena.alloc);
  imap_ctx_init(&s.ic, m->arena.alloc);
  hlo_diags_init(&s.scratch, m->arena.alloc);
  hlo_strmap_init(&s.pairs, &s.tmp);
  int rc = -1;
  int first_event = r ? r->nevents : 0;
  size_t n = (size_t)s.n + 1;
  s.owner = hlo_arena_array(&s.tmp, n, sizeof *s.owner);
  s.stamp = hlo_arena_array(&s.tmp, n, sizeof *s.stamp);
  s.mdup = hlo_arena_array(&s.tmp, n, sizeof *s.mdup);
  s.pinned = hlo_arena_array(&s.tmp, n, sizeof *s.pinned);
  s.ext_read = hlo_arena_array(&s.tmp, n, sizeof *s.ext_read);
  s.R = hlo_arena_array(&s.tmp, n, sizeof *s.R);
  s.seen = hlo_arena_array(&s.tmp, n, sizeof *s.seen);
  s.queued = hlo_arena_array(&s.tmp, n, sizeof *s.queued);
  s.idx = hlo_arena_array(&s.tmp, n, sizeof *s.idx);
  s.heap = hlo_arena_array(&s.tmp, n, sizeof *s.heap);
  s.dfs = hlo_arena_array(&s.tmp, n, sizeof *s.dfs);
  if (!s.owner || !s.stamp || !s.mdup || !s.pinned || !s.ext_read || !s.R || !s.seen || !s.queued ||
      !s.idx || !s.heap || !s.dfs)
    goto oom;
  for (int i = 0; i < s.n; i++) {
    hlo_instruction *in = comp->instrs[i];
    s.owner[i] = -1;
    if (in->ncontrol) s.pinned[i] = true;
    for (int k = 0; k < in->ncontrol; k++)
      if (local(&s, in->control_preds[k])) s.pinned[in->control_preds[k]->id] = true;
  }
  for (int i = s.n - 1; i >= 0; i--)
    if (grow(&s, comp->instrs[i])) goto oom;
  if (s.o.kinds & HLO_FUSE_MULTI)
    if (siblings(&s)) goto oom;
  for (int i = 0; i < s.ng; i++)
    if (s.g[i].single) s.g[i].dead = true; /* no sibling: no fusion */
  if (break_cycles(&s)) goto oom;
  int live = 0;
  for (int i = 0; i < s.ng; i++) live += !s.g[i].dead;
  rc = 0;
  if (live) {
    if (fuse_materialize(m, comp, ci, s.g, s.ng, nm, r, d)) goto done_err;
    rc = 1;
    /* name the fusion each accepted candidate went into */
    for (int i = first_event; r && i < r->nevents; i++) {
      hlo_fuse_event *e = &r->events[i];
      if (e->verdict > HLO_FUSE_SIBLING) continue;
      for (int gi = 0; gi < s.ng; gi++) {
        int t = gi;
        while (s.g[t].dead && s.g[t].into >= 0 && s.g[t].into != t) t = s.g[t].into;
        if (s.g[gi].root->name == e->consumer && s.g[t].fusion) e->fusion = s.g[t].fusion->name;
      }
    }
  }
  goto done;
oom:
  hlo_errorf(d, NULL, 0, "%s: out of memory while fusing", comp->name ? comp->name : "?");
done_err:
  rc = -1;
done:
  hlo_diags_release(&s.scratch);
  imap_ctx_release(&s.ic);
  hlo_arena_release(&s.tmp);
  return rc;
}

int hlo_fuse_module(hlo_module *m, const hlo_fuse_options *opts, hlo_fuse_report *report,
                    hlo_diags *d) {
  hlo_fuse_options o = opts ? *opts : (hlo_fuse_options){0};
  if (!o.kinds) o.kinds = HLO_FUSE_ALL;
  if (o.max_size <= 0) o.max_size = 64;
  if (o.max_outputs <= 0) o.max_outputs = 8;
  if (hlo_module_link(m)) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  if (report) report->before = hlo_fuse_count(m);
  fuse_names nm;
  if (fuse_names_init(&nm, m)) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  /* decide which computations to work on before any is added */
  int n0 = m->ncomps;
  hlo_computation **work = hlo_arena_array(&m->arena, (size_t)n0 + 1, sizeof *work);
  if (!work) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  hlo_computation **fused = hlo_arena_array(&m->arena, (size_t)n0 + 1, sizeof *fused);
  if (!fused) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  int nw = 0, nf = 0;
  for (int i = 0; i < n0; i++) {
    if (fuse_is_control_comp(m, m->comps[i])) work[nw++] = m->comps[i];
    if (m->comps[i]->is_fused) fused[nf++] = m->comps[i];
  }
  int changed = 0;
  for (int w = 0; w < nw; w++) {
    int ci = 0;
    while (ci < m->ncomps && m->comps[ci] != work[w]) ci++;
    int rc = fuse_computation(m, ci, &o, &nm, report, d);
    if (rc < 0) return -1;
    changed |= rc;
  }
  /* fused computations of fusions that were grown are inlined now */
  if (fuse_drop_uncalled(m, fused, nf)) return hlo_errorf(d, NULL, 0, "out of memory"), -1;
  if (report) report->after = hlo_fuse_count(m);
  return changed;
}
