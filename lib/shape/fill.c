/* fill.c - hlo_shape_fill_omitted / hlo_shape_infer_module: give every
 * instruction written without a result shape (or, for the latter, every
 * instruction) its inferred shape, computations callee-first and operands
 * before users, without cascading errors past an instruction that failed. */
#include <string.h>

#include "shape/infer_internal.h"

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

static void finish_instr(fill_ctx *f, hlo_instruction *in, unsigned char *st);

/* Operands before users, with an explicit stack (chains of a million
 * instructions written in any order must not overflow the C stack). */
static void fill_from(fill_ctx *f, hlo_computation *c, int start, unsigned char *st, int *sid, int *sk) {
  if (st[start] != ST_NEW) return;
  int sp = 0;
  sid[sp] = start, sk[sp] = 0, sp++;
  st[start] = ST_BUSY;
  while (sp) {
    hlo_instruction *in = c->instrs[sid[sp - 1]];
    int k = sk[sp - 1]++;
    if (k >= in->noperands) {
      finish_instr(f, in, st);
      sp--;
      continue;
    }
    hlo_instruction *op = in->operands[k];
    if (!op || op->parent != c || op->id < 0 || op->id >= c->ninstrs || c->instrs[op->id] != op) continue;
    if (st[op->id] != ST_NEW) continue;
    st[op->id] = ST_BUSY;
    sid[sp] = op->id, sk[sp] = 0, sp++;
  }
}

static void fill_instrs(fill_ctx *f, hlo_computation *c) {
  size_t n = (size_t)c->ninstrs;
  if (!n) return;
  unsigned char *st = hlo_arena_array(&f->scratch, n, 1);
  int *sid = hlo_arena_array(&f->scratch, n, sizeof(int)), *sk = hlo_arena_array(&f->scratch, n, sizeof(int));
  if (!st || !sid || !sk) {
    f->nerr++;
    hlo_errorf(f->d, f->src, c->off, "out of memory while inferring shapes");
    return;
  }
  for (int i = 0; i < c->ninstrs; i++) fill_from(f, c, i, st, sid, sk);
}

/* Computations callee-first, with an explicit stack of (computation,
 * instruction, called index); a call cycle is left to the verifier. */
static void fill_comps(fill_ctx *f, int *sc, int *si, int *sk) {
  hlo_module *m = f->m;
  for (int s = 0; s < m->ncomps; s++) {
    if (f->comp_state[s] || m->comps[s]->id != s) continue;
    int sp = 0;
    sc[sp] = s, si[sp] = 0, sk[sp] = 0, sp++;
    f->comp_state[s] = 1;
    while (sp) {
      hlo_computation *c = m->comps[sc[sp - 1]];
      if (si[sp - 1] >= c->ninstrs) {
        fill_instrs(f, c);
        f->comp_state[c->id] = 2;
        sp--;
        continue;
      }
      hlo_instruction *in = c->instrs[si[sp - 1]];
      if (sk[sp - 1] >= in->ncalled) {
        si[sp - 1]++, sk[sp - 1] = 0;
        continue;
      }
      hlo_computation *callee = in->called[sk[sp - 1]++];
      if (!callee || callee->id < 0 || callee->id >= m->ncomps || m->comps[callee->id] != callee) continue;
      if (f->comp_state[callee->id]) continue; /* done, or a call cycle */
      f->comp_state[callee->id] = 1;
      sc[sp] = callee->id, si[sp] = 0, sk[sp] = 0, sp++;
    }
  }
}

/* All operands of in are finished (or on the stack: a cycle). */
static void finish_instr(fill_ctx *f, hlo_instruction *in, unsigned char *st) {
  bool bad = false, cycle = false;
  for (int i = 0; i < in->noperands; i++) {
    hlo_instruction *op = in->operands[i];
    if (!op || op->parent != in->parent || op->id < 0 || op->id >= in->parent->ninstrs ||
        in->parent->instrs[op->id] != op)
      continue;
    if (st[op->id] == ST_BAD) bad = true;
    if (st[op->id] == ST_BUSY) bad = cycle = true;
  }
  if (!in->shape_omitted && (!f->all || bad)) {
    st[in->id] = ST_OK; /* its own shape is known; do not cascade */
    return;
  }
  if (bad) {
    st[in->id] = ST_BAD;
    if (cycle && in->shape_omitted) {
      f->nerr++;
      hlo_errorf(f->d, f->src, in->off, "%%%s: cannot infer its shape: an operand depends on it (cycle)", in->name);
    }
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
  size_t nc = (size_t)m->ncomps + 1;
  int *sc = hlo_arena_array(&f.scratch, nc, sizeof(int)), *si = hlo_arena_array(&f.scratch, nc, sizeof(int));
  int *sk = hlo_arena_array(&f.scratch, nc, sizeof(int));
  if (!sc || !si || !sk) {
    hlo_arena_release(&f.scratch);
    return hlo_errorf(d, src, 0, "out of memory while inferring shapes");
  }
  fill_comps(&f, sc, si, sk);
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
