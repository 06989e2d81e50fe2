/* module.c - module lifetime, lookups, attribute access and the link step
 * that derives users, called computations and parameter tables. */
#include <string.h>

#include "core/prefetch.h"
#include "hlo/hlo_ir.h"

hlo_module *hlo_module_new(const hlo_allocator *alloc) {
  hlo_arena arena;
  hlo_arena_init(&arena, alloc);
  hlo_module *m = hlo_arena_alloc(&arena, sizeof *m);
  if (!m) {
    hlo_arena_release(&arena);
    return NULL;
  }
  m->arena = arena;
  return m;
}

void hlo_module_free(hlo_module *m) {
  if (!m) return;
  hlo_arena arena = m->arena; /* m itself lives in the arena */
  hlo_arena_release(&arena);
}

hlo_computation *hlo_module_find_computation(const hlo_module *m, const char *name) {
  for (int i = 0; i < m->ncomps; i++)
    if (strcmp(m->comps[i]->name, name) == 0) return m->comps[i];
  return NULL;
}

hlo_instruction *hlo_computation_find(const hlo_computation *c, const char *name) {
  for (int i = 0; i < c->ninstrs; i++)
    if (strcmp(c->instrs[i]->name, name) == 0) return c->instrs[i];
  return NULL;
}

const hlo_attr *hlo_instr_attr(const hlo_instruction *in, hlo_attr_key k) {
  for (int i = 0; i < in->nattrs; i++)
    if (in->attrs[i].key == k) return &in->attrs[i];
  return NULL;
}

const hlo_attr *hlo_module_attr(const hlo_module *m, hlo_attr_key k) {
  for (int i = 0; i < m->nattrs; i++)
    if (m->attrs[i].key == k) return &m->attrs[i];
  return NULL;
}

const int64_t *hlo_instr_ints(const hlo_instruction *in, hlo_attr_key k, int *n) {
  const hlo_attr *a = hlo_instr_attr(in, k);
  if (!a || a->kind != HLO_AK_INTS) {
    *n = 0;
    return NULL;
  }
  *n = a->u.ints.n;
  return a->u.ints.v;
}

int64_t hlo_instr_int(const hlo_instruction *in, hlo_attr_key k, int64_t dflt) {
  const hlo_attr *a = hlo_instr_attr(in, k);
  return a && a->kind == HLO_AK_INT ? a->u.i : dflt;
}

bool hlo_instr_bool(const hlo_instruction *in, hlo_attr_key k, bool dflt) {
  const hlo_attr *a = hlo_instr_attr(in, k);
  return a && a->kind == HLO_AK_BOOL ? a->u.b : dflt;
}

const char *hlo_instr_word(const hlo_instruction *in, hlo_attr_key k) {
  const hlo_attr *a = hlo_instr_attr(in, k);
  return a && (a->kind == HLO_AK_WORD || a->kind == HLO_AK_STRING) ? a->u.s : NULL;
}

static int count_called(const hlo_instruction *in) {
  int n = 0;
  for (int i = 0; i < in->nattrs; i++) {
    if (in->attrs[i].kind == HLO_AK_COMP && in->attrs[i].u.comp) n++;
    if (in->attrs[i].kind == HLO_AK_COMPS) n += in->attrs[i].u.comps.n;
  }
  return n;
}

/* Three passes over the instructions (a large computation does not stay
 * in cache between passes): ids and parameter count; user counts; then,
 * in order, users arrays (each allocated when its instruction or its first
 * user comes up: operands may follow their users), users, called
 * computations and the parameter table. */
static int link_computation(hlo_module *m, hlo_computation *c) {
  hlo_arena *a = &m->arena;
  c->module_ = m;
  int maxp = -1;
  for (int i = 0; i < c->ninstrs; i++) {
    hlo_instruction *in = c->instrs[i];
    hlo_prefetch_instrs(c, i);
    in->parent = c;
    in->id = i;
    in->nusers = 0;
    in->users = NULL; /* NULL with nusers > 0 below: counted, not yet allocated */
    if (in->op == HLO_OP_PARAMETER && in->param_number > maxp && in->param_number < (1 << 24))
      maxp = (int)in->param_number;
  }
  for (int i = 0; i < c->ninstrs; i++) {
    hlo_prefetch_instrs(c, i);
    for (int j = 0; j < c->instrs[i]->noperands; j++)
      if (c->instrs[i]->operands[j]) c->instrs[i]->operands[j]->nusers++;
  }
  c->nparams = maxp + 1;
  c->params = c->nparams ? hlo_arena_array(a, (size_t)c->nparams, sizeof(hlo_instruction *)) : NULL;
  if (c->nparams && !c->params) return HLO_ERR;
  for (int i = 0; i < c->ninstrs; i++) {
    hlo_instruction *in = c->instrs[i];
    hlo_prefetch_instrs(c, i);
    if (!in->users && in->nusers) {
      if (!(in->users = hlo_arena_array(a, (size_t)in->nusers, sizeof(hlo_instruction *)))) return HLO_ERR;
      in->nusers = 0;
    }
    for (int j = 0; j < in->noperands; j++) {
      hlo_instruction *op = in->operands[j];
      if (!op) continue;
      if (!op->users) { /* an operand written after its user */
        if (!(op->users = hlo_arena_array(a, (size_t)op->nusers, sizeof(hlo_instruction *)))) return HLO_ERR;
        op->nusers = 0;
      }
      bool seen = false; /* a user is listed once even if it uses op twice */
      for (int k = 0; k < op->nusers; k++) seen |= op->users[k] == in;
      if (!seen) op->users[op->nusers++] = in;
    }
    int nc = count_called(in);
    in->ncalled = 0;
    in->called = nc ? hlo_arena_array(a, (size_t)nc, sizeof(hlo_computation *)) : NULL;
    if (nc && !in->called) return HLO_ERR;
    for (int k = 0; k < in->nattrs; k++) {
      hlo_attr *at = &in->attrs[k];
      if (at->kind == HLO_AK_COMP && at->u.comp) in->called[in->ncalled++] = at->u.comp;
      if (at->kind == HLO_AK_COMPS)
        for (int q = 0; q < at->u.comps.n; q++) in->called[in->ncalled++] = at->u.comps.v[q];
    }
    if (in->op == HLO_OP_FUSION)
      for (int q = 0; q < in->ncalled; q++) in->called[q]->is_fused = true;
    if (in->op == HLO_OP_PARAMETER && in->param_number >= 0 && in->param_number < c->nparams &&
        !c->params[in->param_number])
      c->params[in->param_number] = in;
  }
  return HLO_OK;
}

int hlo_module_link(hlo_module *m) {
  for (int i = 0; i < m->ncomps; i++) {
    m->comps[i]->id = i;
    m->comps[i]->is_fused = false;
  }
  for (int i = 0; i < m->ncomps; i++)
    if (link_computation(m, m->comps[i])) return HLO_ERR;
  return HLO_OK;
}
