/* fuse_ir.c - IR editing helpers of the fusion pass: unique names, new and
 * cloned instructions, appending to computations and the module, a stable
 * topological sort, and which computations the pass may rewrite. */
#include <string.h>

#include "fuse/fuse_internal.h"

int fuse_names_init(fuse_names *nm, hlo_module *m) {
  hlo_strmap_init(&nm->instrs, &m->arena);
  hlo_strmap_init(&nm->comps, &m->arena);
  for (int i = 0; i < m->ncomps; i++) {
    hlo_computation *c = m->comps[i];
    if (c->name && hlo_strmap_put(&nm->comps, c->name, c, NULL)) return HLO_ERR;
    for (int j = 0; j < c->ninstrs; j++)
      if (c->instrs[j]->name && hlo_strmap_put(&nm->instrs, c->instrs[j]->name, c->instrs[j], NULL))
        return HLO_ERR;
  }
  return HLO_OK;
}

static const char *unique(hlo_strmap *map, hlo_arena *a, const char *base) {
  const char *name = base;
  char *made = NULL;
  for (long k = 1; hlo_strmap_get(map, name); k++) {
    if (!(made = hlo_arena_printf(a, "%s.%ld", base, k))) return NULL;
    name = made;
  }
  if (!made && !(made = hlo_arena_strdup(a, base))) return NULL;
  if (hlo_strmap_put(map, made, made, NULL)) return NULL;
  return made;
}

const char *fuse_unique_instr(fuse_names *nm, hlo_arena *a, const char *base) {
  return unique(&nm->instrs, a, base);
}

const char *fuse_unique_comp(fuse_names *nm, hlo_arena *a, const char *base) {
  return unique(&nm->comps, a, base);
}

hlo_instruction *fuse_new_instr(hlo_arena *a, hlo_opcode op, const char *name, int noperands) {
  hlo_instruction *in = hlo_arena_alloc(a, sizeof *in);
  if (!in) return NULL;
  in->op = op;
  in->name = name;
  in->noperands = noperands;
  if (noperands && !(in->operands = hlo_arena_array(a, (size_t)noperands, sizeof *in->operands)))
    return NULL;
  return in;
}

hlo_instruction *fuse_clone_instr(hlo_arena *a, const hlo_instruction *src, const char *name) {
  hlo_instruction *in = hlo_arena_alloc(a, sizeof *in);
  if (!in) return NULL;
  *in = *src; /* shares attributes, shape and literal: all read-only */
  in->name = name;
  in->shape_omitted = false; /* the shape is known by now and printed */
  in->users = NULL;
  in->nusers = 0;
  in->parent = NULL;
  in->ncontrol = 0;
  in->control_preds = NULL;
  if (src->noperands) {
    in->operands = hlo_arena_array(a, (size_t)src->noperands, sizeof *in->operands);
    if (!in->operands) return NULL;
    memcpy(in->operands, src->operands, (size_t)src->noperands * sizeof *in->operands);
  }
  return in;
}

int fuse_comp_append(hlo_arena *a, hlo_computation *c, int *cap, hlo_instruction *in) {
  if (c->ninstrs == *cap) {
    int nc = *cap ? *cap * 2 : 16;
    hlo_instruction **v = hlo_arena_array(a, (size_t)nc, sizeof *v);
    if (!v) return HLO_ERR;
    if (c->ninstrs) memcpy(v, c->instrs, (size_t)c->ninstrs * sizeof *v);
    c->instrs = v;
    *cap = nc;
  }
  in->parent = c;
  c->instrs[c->ninstrs++] = in;
  return HLO_OK;
}

int fuse_module_insert_comp(hlo_module *m, int pos, hlo_computation *c) {
  hlo_computation **v = hlo_arena_array(&m->arena, (size_t)m->ncomps + 1, sizeof *v);
  if (!v) return HLO_ERR;
  if (pos < 0 || pos > m->ncomps) pos = m->ncomps;
  memcpy(v, m->comps, (size_t)pos * sizeof *v);
  v[pos] = c;
  memcpy(v + pos + 1, m->comps + pos, (size_t)(m->ncomps - pos) * sizeof *v);
  m->comps = v;
  m->ncomps++;
  c->module_ = m;
  return HLO_OK;
}

/* Post-order DFS from each instruction in the current order: the result is
 * the current order wherever that order is already topological. */
int fuse_topo_sort(hlo_arena *a, hlo_computation *c) {
  int n = c->ninstrs;
  if (n == 0) return HLO_OK;
  hlo_instruction **out = hlo_arena_array(a, (size_t)n, sizeof *out);
  hlo_instruction **stack = hlo_arena_array(a, (size_t)n, sizeof *stack);
  int *next = hlo_arena_array(a, (size_t)n, sizeof *next);
  unsigned char *state = hlo_arena_array(a, (size_t)n, 1);
  if (!out || !stack || !next || !state) return HLO_ERR;
  for (int i = 0; i < n; i++) c->instrs[i]->id = i;
  int no = 0;
  for (int s = 0; s < n; s++) {
    if (state[s]) continue;
    int sp = 0;
    stack[sp++] = c->instrs[s];
    state[s] = 1;
    while (sp) {
      hlo_instruction *t = stack[sp - 1];
      int k = next[t->id];
      int nk = t->noperands + t->ncontrol;
      if (k < nk) {
        next[t->id]++;
        hlo_instruction *o = k < t->noperands ? t->operands[k] : t->control_preds[k - t->noperands];
        if (!o || o->parent != c || o->id < 0 || o->id >= n || c->instrs[o->id] != o) continue;
        if (state[o->id]) continue; /* done, or on the stack (a cycle: left to the verifier) */
        state[o->id] = 1;
        stack[sp++] = o;
      } else {
        out[no++] = t;
        sp--;
      }
    }
  }
  c->instrs = out;
  for (int i = 0; i < n; i++) out[i]->id = i;
  return HLO_OK;
}

int fuse_comp_size(const hlo_computation *c) {
  int n = 0;
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (in->op == HLO_OP_PARAMETER) continue;
    if (in->op == HLO_OP_FUSION && in->ncalled == 1) n += fuse_comp_size(in->called[0]);
    else n++;
  }
  return n;
}

bool fuse_is_control_comp(const hlo_module *m, const hlo_computation *c) {
  if (c == m->entry || c->is_entry) return true;
  if (c->is_fused) return false;
  for (int i = 0; i < m->ncomps; i++) {
    const hlo_computation *o = m->comps[i];
    for (int j = 0; j < o->ninstrs; j++) {
      const hlo_instruction *in = o->instrs[j];
      bool control = hlo_opcode_flags(in->op) & HLO_F_CONTROL;
      if (!control) continue;
      for (int k = 0; k < in->ncalled; k++)
        if (in->called[k] == c) return true;
    }
  }
  return false;
}
