/* fill.c - hlo_shape_fill_omitted / hlo_shape_infer_module: give every
 * instruction written without a result shape (or, for the latter, every
 * instruction) its inferred shape, computations callee-first and operands
 * before users, without cascading errors past an instruction that failed. */
#include <string.h>

#include "infer_internal.h"

typedef struct fill_ctx {
  hlo_module *m;
  hlo_diags *d;
  const hlo_src *src;
  hlo_arena scratch;
  unsigned char *comp_state; /* 0 new, 1 in progress, 2 done */
  bool all;                  /* re-infer declared shapes too */
  int nerr, nchanged;
} fill_ctx;

enum { ST_NEW = 0, ST_BUSY = 1, ST_OK = 2, ST_BAD = 3 };

static void fill_one(fill_ctx *f, hlo_instruction *in, unsigned char *st);

/* Infer a computation's instructions, operands first: an iterative DFS (no
 * recursion, so deep chains cannot exhaust the stack); an operand still in
 * progress means a cycle, which the verifier reports. */
static void fill_comp(fill_ctx *f, hlo_computation *c) {
  if (f->comp_state[c->id]) return; /* done, or a call cycle (the verifier reports it) */
  f->comp_state[c->id] = 1;
  for (int i = 0; i < c->ninstrs; i++)
    for (int k = 0; k < c->instrs[i]->ncalled; k++)
      if (c->instrs[i]->called[k]) fill_comp(f, c->instrs[i]->called[k]);
  int n = c->ninstrs;
  unsigned char *st = hlo_arena_array(&f->scratch, (size_t)(n ? n : 1), 1);
  int *stack = hlo_arena_array(&f->scratch, (size_t)(n ? n : 1), sizeof(int));
  int *edge = hlo_arena_array(&f->scratch, (size_t)(n ? n : 1), sizeof(int));
  if (!st || !stack || !edge) {
    f->nerr++;
    hlo_errorf(f->d, f->src, c->off, "out of memory while inferring shapes");
    return;
  }
  for (int s0 = 0; s0 < n; s0++) {
    if (st[s0] != ST_NEW) continue;
    int sp = 0;
    stack[sp] = s0, edge[sp] = 0, sp++;
    st[s0] = ST_BUSY;
    while (sp) {
      hlo_instruction *in = c->instrs[stack[sp - 1]];
      int e = edge[sp - 1]++;
      if (e < in->noperands) {
        hlo_instruction *op = in->operands[e];
        if (op && op->parent == c && op->id >= 0 && op->id < n && c->instrs[op->id] == op && st[op->id] == ST_NEW) {
          st[op->id] = ST_BUSY;
          stack[sp] = op->id, edge[sp] = 0, sp++;
        }
        continue;
      }
      fill_one(f, in, st);
      sp--;
    }
  }
  f->comp_state[c->id] = 2;
}

/* All operands of `in` are settled (or part of a cycle): infer it. */
static void fill_one(fill_ctx *f, hlo_instruction *in, unsigned char *st) {
  bool bad = false;
  for (int i = 0; i < in->noperands; i++) {
    hlo_instruction *op = in->operands[i];
    if (!op || op->parent != in->parent || op->id < 0) continue;
    if (st[op->id] == ST_BAD || st[op->id] == ST_BUSY) bad = true;
  }
  if (!in->shape_omitted && (!f->all || bad)) {
    st[in->id] = ST_OK; /* its own shape is known; do not cascade */
    return;
  }
  if (bad) {
    st[in->id] = ST_BAD;
    return;
  }
  hlo_shape s;
  if (hlo_infer_shape(in, &f->m->arena, &s, f->d, f->src) || hlo_shape_set_default_layouts(&f->m->arena, &s)) {
    st[in->id] = in->shape_omitted ? ST_BAD : ST_OK;
    f->nerr++;
    return;
  }
  st[in->id] = ST_OK;
  if (!in->shape_omitted) {
    if (hlo_shape_xla_compatible(&in->shape, &s, false)) return;
    char *want = hlo_shape_str(&f->scratch, &s, false), *got = hlo_shape_str(&f->scratch, &in->shape, false);
    hlo_warnf(f->d, f->src, in->off, "%%%s: declared shape %s differs from the inferred shape %s", in->name,
              got ? got : "?", want ? want : "?");
    f->nchanged++;
  }
  in->shape = s;
}

static int run(hlo_module *m, hlo_diags *d, const hlo_src *src, bool all, int *nchanged) {
  fill_ctx f = {.m = m, .d = d, .src = src, .all = all};
  hlo_arena_init(&f.scratch, m->arena.alloc);
  bool any = false;
  for (int i = 0; i < m->ncomps; i++)
    for (int j = 0; j < m->comps[i]->ninstrs; j++) any |= all || m->comps[i]->instrs[j]->shape_omitted;
  if (!any) {
    hlo_arena_release(&f.scratch);
    return HLO_OK;
  }
  if (hlo_module_link(m)) {
    hlo_arena_release(&f.scratch);
    return hlo_errorf(d, src, 0, "out of memory while inferring shapes");
  }
  f.comp_state = m->ncomps ? hlo_arena_array(&f.scratch, (size_t)m->ncomps, 1) : NULL;
  if (m->ncomps && !f.comp_state) {
    hlo_arena_release(&f.scratch);
    return hlo_errorf(d, src, 0, "out of memory while inferring shapes");
  }
  for (int i = 0; i < m->ncomps; i++) fill_comp(&f, m->comps[i]);
  hlo_arena_release(&f.scratch);
  if (nchanged) *nchanged = f.nchanged;
  return f.nerr ? HLO_ERR : HLO_OK;
}

int hlo_shape_fill_omitted(hlo_module *m, hlo_diags *d, const hlo_src *src) {
  return run(m, d, src, false, NULL);
}

int hlo_shape_infer_module(hlo_module *m, hlo_diags *d, const hlo_src *src, int *nchanged) {
  return run(m, d, src, true, nchanged);
}
