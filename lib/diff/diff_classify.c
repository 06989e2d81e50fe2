/* diff_classify.c - hlo_diff_modules: builds the matcher's state, runs it,
 * then classifies every instruction (unchanged, changed with what changed,
 * added, removed), groups the entries by computation and counts them in
 * total and per opcode. */
#include <string.h>

#include "diff/diff_internal.h"
#include "hlo/hlo_text.h"

const char *hlo_diff_kind_name(hlo_diff_kind k) {
  switch (k) {
  case HLO_DIFF_UNCHANGED: return "unchanged";
  case HLO_DIFF_CHANGED: return "changed";
  case HLO_DIFF_ADDED: return "added";
  case HLO_DIFF_REMOVED: return "removed";
  case HLO_DIFF_KIND_COUNT: break;
  }
  return "?";
}

static int side_init(hlo_arena *a, diff_side *s, const hlo_module *m) {
  s->m = m;
  int nc = m->ncomps;
  s->base = hlo_arena_array(a, (size_t)nc + 1, sizeof *s->base);
  s->cmatch = hlo_arena_array(a, (size_t)nc + 1, sizeof *s->cmatch);
  s->caller = hlo_arena_array(a, (size_t)nc + 1, sizeof *s->caller);
  if (!s->base || !s->cmatch || !s->caller) return HLO_ERR;
  int n = 0;
  for (int i = 0; i < nc; i++) {
    s->base[i] = n;
    s->cmatch[i] = -1;
    n += m->comps[i]->ninstrs;
  }
  s->n = n;
  s->ins = hlo_arena_array(a, (size_t)n + 1, sizeof *s->ins);
  s->match = hlo_arena_array(a, (size_t)n + 1, sizeof *s->match);
  s->how = hlo_arena_array(a, (size_t)n + 1, sizeof *s->how);
  s->hash = hlo_arena_array(a, (size_t)n + 1, sizeof *s->hash);
  if (!s->ins || !s->match || !s->how || !s->hash) return HLO_ERR;
  unsigned char *ncallers = hlo_arena_array(a, (size_t)nc + 1, 1);
  if (!ncallers) return HLO_ERR;
  for (int i = 0, k = 0; i < nc; i++)
    for (int j = 0; j < m->comps[i]->ninstrs; j++, k++) {
      const hlo_instruction *in = m->comps[i]->instrs[j];
      s->ins[k] = in;
      s->match[k] = -1;
      s->how[k] = HLO_DIFF_UNMATCHED;
      if (in->op != HLO_OP_FUSION) continue;
      for (int q = 0; q < in->ncalled; q++) {
        int id = in->called[q]->id;
        if (ncallers[id] < 2) ncallers[id]++;
        s->caller[id] = ncallers[id] == 1 ? in : NULL;
      }
    }
  return HLO_OK;
}

/* The text of attribute at for comparison: computations by the name of
 * their match in B (side 0) or their own name (side 1). */
static void attr_text(const diff_state *st, int sd, const hlo_attr *at, hlo_buf *b) {
  b->len = 0;
  if (at->kind == HLO_AK_COMP || at->kind == HLO_AK_COMPS) {
    int n = at->kind == HLO_AK_COMP ? 1 : at->u.comps.n;
    for (int k = 0; k < n; k++) {
      const hlo_computation *c = at->kind == HLO_AK_COMP ? at->u.comp : at->u.comps.v[k];
      if (!c) continue;
      int id = sd == 0 ? st->s[0].cmatch[c->id] : c->id;
      hlo_buf_printf(b, "%d,", id);
    }
    return;
  }
  hlo_print_attr_value(b, at, NULL);
}

static const hlo_attr *find_attr(const hlo_instruction *in, const char *name) {
  for (int k = 0; k < in->nattrs; k++)
    if (!strcmp(in->attrs[k].name, name)) return &in->attrs[k];
  return NULL;
}

bool diff_attrs_equal(const diff_state *st, const hlo_instruction *a, const hlo_instruction *b, hlo_buf *names) {
  bool eq = true;
  hlo_buf ta, tb;
  hlo_buf_init(&ta, st->a->alloc);
  hlo_buf_init(&tb, st->a->alloc);
  for (int sd = 0; sd < 2; sd++) {
    const hlo_instruction *x = sd ? b : a, *y = sd ? a : b;
    for (int k = 0; k < x->nattrs; k++) {
      const hlo_attr *ax = &x->attrs[k], *ay = find_attr(y, ax->name);
      if ((ax->key == HLO_A_METADATA && !st->o->metadata) || ax->kind == HLO_AK_INSTRS) continue;
      if (sd && ay) continue; /* pairs present on both sides were compared in the first pass */
      bool same = false;
      if (ay) {
        attr_text(st, sd, ax, &ta);
        attr_text(st, !sd, ay, &tb);
        same = ta.len == tb.len && (!ta.len || !memcmp(ta.data, tb.data, ta.len));
      }
      if (same) continue;
      if (!eq) hlo_buf_putc(names, ',');
      hlo_buf_puts(names, ax->name);
      eq = false;
    }
  }
  hlo_buf_release(&ta);
  hlo_buf_release(&tb);
  return eq;
}

static bool operands_equal(const diff_state *st, const hlo_instruction *a, const hlo_instruction *b) {
  if (a->noperands != b->noperands) return false;
  for (int q = 0; q < a->noperands; q++) {
    const hlo_instruction *oa = diff_resolve(&st->s[0], a->operands[q]);
    const hlo_instruction *ob = diff_resolve(&st->s[1], b->operands[q]);
    int ia = diff_index(&st->s[0], oa), ib = diff_index(&st->s[1], ob), m = st->s[0].match[ia];
    if (m >= 0 && st->s[1].ins[m] == ob) continue;
    /* a copy of the same subgraph (e.g. a cheap producer duplicated into a fusion) */
    if (st->s[1].match[ib] < 0 && st->s[0].hash[ia] == st->s[1].hash[ib]) continue;
    return false;
  }
  return true;
}

/* A fused parameter stands for its fusion's operand: not reported alone. */
static bool implied(const diff_side *s, const hlo_instruction *in) {
  return in->op == HLO_OP_PARAMETER && in->parent->is_fused && s->caller[in->parent->id];
}

static int add_entry(hlo_diff *df, int *cap, hlo_diff_entry e) {
  if (df->nentries == *cap) {
    int nc = *cap ? *cap * 2 : 64;
    hlo_diff_entry *v = hlo_arena_array(&df->arena, (size_t)nc, sizeof *v);
    if (!v) return HLO_ERR;
    if (df->nentries) memcpy(v, df->entries, (size_t)df->nentries * sizeof *v);
    df->entries = v;
    *cap = nc;
  }
  df->entries[df->nentries++] = e;
  hlo_opcode op = e.b ? e.b->op : e.a->op;
  df->count[e.kind]++;
  df->by_op[op][e.kind]++;
  df->renamed += (e.what & HLO_DIFF_RENAMED) != 0;
  df->moved += (e.what & HLO_DIFF_MOVED) != 0;
  return HLO_OK;
}

static int classify(hlo_diff *df, diff_state *st) {
  const hlo_module *ma = df->a, *mb = df->b;
  int cap = 0;
  df->groups = hlo_arena_array(&df->arena, (size_t)ma->ncomps + (size_t)mb->ncomps + 1, sizeof *df->groups);
  if (!df->groups) return HLO_ERR;
  hlo_buf names;
  hlo_buf_init(&names, df->arena.alloc);
  /* computations of B in order (with their match), then those only in A */
  for (int pass = 0; pass < 2; pass++)
    for (int ci = 0; ci < (pass ? ma->ncomps : mb->ncomps); ci++) {
      const hlo_computation *cb = pass ? NULL : mb->comps[ci];
      int am = pass ? ci : st->s[1].cmatch[ci];
      if (pass && st->s[0].cmatch[ci] >= 0) continue;
      const hlo_computation *ca = am >= 0 ? ma->comps[am] : NULL;
      int g = df->ngroups++;
      df->groups[g].a = ca;
      df->groups[g].b = cb;
      for (int i = 0; ca && i < ca->ninstrs; i++) { /* removed: first, in A's order */
        const hlo_instruction *a = ca->instrs[i];
        if (st->s[0].match[diff_index(&st->s[0], a)] >= 0 || implied(&st->s[0], a)) continue;
        hlo_diff_entry e = {HLO_DIFF_REMOVED, 0, HLO_DIFF_UNMATCHED, a, NULL, NULL, g};
        if (add_entry(df, &cap, e)) goto oom;
      }
      for (int i = 0; cb && i < cb->ninstrs; i++) {
        const hlo_instruction *b = cb->instrs[i];
        int ia = st->s[1].match[diff_index(&st->s[1], b)];
        if (ia < 0) {
          if (implied(&st->s[1], b)) continue;
          hlo_diff_entry e = {HLO_DIFF_ADDED, 0, HLO_DIFF_UNMATCHED, NULL, b, NULL, g};
          if (add_entry(df, &cap, e)) goto oom;
          continue;
        }
        const hlo_instruction *a = st->s[0].ins[ia];
        hlo_diff_entry e = {HLO_DIFF_UNCHANGED, 0, st->s[1].how[diff_index(&st->s[1], b)], a, b, NULL, g};
        names.len = 0;
        if (a->op != b->op) e.what |= HLO_DIFF_OPCODE;
        if (!hlo_shape_equal(&a->shape, &b->shape)) e.what |= HLO_DIFF_SHAPE;
        if (!operands_equal(st, a, b)) e.what |= HLO_DIFF_OPERANDS;
        if (a->op == HLO_OP_PARAMETER && a->param_number != b->param_number) e.what |= HLO_DIFF_ATTRS;
        if (a->op == HLO_OP_CONSTANT && a->op == b->op) {
          hlo_buf la, lb;
          hlo_buf_init(&la, NULL);
          hlo_buf_init(&lb, NULL);
          if (a->literal) hlo_print_literal(&la, a->literal, NULL);
          if (b->literal) hlo_print_literal(&lb, b->literal, NULL);
          if (la.len != lb.len || (la.len && memcmp(la.data, lb.data, la.len))) {
            e.what |= HLO_DIFF_ATTRS;
            hlo_buf_puts(&names, "literal");
          }
          hlo_buf_release(&la);
          hlo_buf_release(&lb);
        }
        if (!diff_attrs_equal(st, a, b, &names)) e.what |= HLO_DIFF_ATTRS;
        if (names.failed) goto oom;
        if (names.len && !(e.attrs = hlo_arena_strndup(&df->arena, names.data, names.len))) goto oom;
        if (e.what) e.kind = HLO_DIFF_CHANGED;
        if (strcmp(a->name, b->name)) {
          e.what |= HLO_DIFF_RENAMED;
          if (st->o->unique_names) e.kind = HLO_DIFF_CHANGED;
        }
        if (st->s[0].cmatch[a->parent->id] != b->parent->id) e.what |= HLO_DIFF_MOVED;
        if (add_entry(df, &cap, e)) goto oom;
      }
    }
  hlo_buf_release(&names);
  return HLO_OK;
oom:
  hlo_buf_release(&names);
  return HLO_ERR;
}

hlo_diff *hlo_diff_modules(const hlo_module *a, const hlo_module *b, const hlo_diff_options *o,
                           const hlo_allocator *alloc, hlo_diags *d) {
  static const hlo_diff_options defaults = {0};
  hlo_arena arena;
  hlo_arena_init(&arena, alloc);
  hlo_diff *df = hlo_arena_alloc(&arena, sizeof *df);
  if (!df) goto oom;
  df->arena = arena;
  df->a = a;
  df->b = b;
  df->by_op = hlo_arena_array(&df->arena, HLO_OP_COUNT, sizeof *df->by_op);
  diff_state st = {&df->arena, o ? o : &defaults, {{0}}};
  if (!df->by_op || side_init(&df->arena, &st.s[0], a) || side_init(&df->arena, &st.s[1], b) ||
      diff_match(&st) || classify(df, &st))
    goto oom_df;
  return df;
oom_df:
  arena = df->arena;
oom:
  hlo_arena_release(&arena);
  hlo_errorf(d, NULL, 0, "out of memory");
  return NULL;
}

void hlo_diff_free(hlo_diff *df) {
  if (!df) return;
  hlo_arena arena = df->arena;
  hlo_arena_release(&arena);
}

bool hlo_diff_equal(const hlo_diff *df) {
  return !df->count[HLO_DIFF_CHANGED] && !df->count[HLO_DIFF_ADDED] && !df->count[HLO_DIFF_REMOVED];
}
