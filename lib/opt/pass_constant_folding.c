/* pass_constant_folding.c - XLA's HloConstantFolding through our own
 * interpreter: an instruction whose operands are all constants is run once
 * (in a one-instruction module) and replaced by a constant of its value.
 * Left alone, as in XLA: broadcasts and iotas (folding makes them larger),
 * ops without operands, side effects, ops calling computations, non-array
 * results and results over the size limit (fold_limit_bytes). */
#include <string.h>

#include "hlo/hlo_exec.h"
#include "opt/opt_internal.h"

static bool foldable(const hlo_instruction *in, int64_t limit) {
  if (in->op == HLO_OP_CONSTANT || in->op == HLO_OP_PARAMETER || in->op == HLO_OP_BROADCAST ||
      in->op == HLO_OP_IOTA || in->op == HLO_OP_CUSTOM_CALL || in->noperands == 0 || in->ncalled || in->ncontrol ||
      !hlo_shape_is_array(&in->shape) || in->shape.dynamic || opt_side_effect(in))
    return false;
  int64_t bytes;
  if (!hlo_shape_bytes(&in->shape, &bytes) || bytes > limit) return false;
  for (int q = 0; q < in->noperands; q++) {
    const hlo_instruction *o = in->operands[q];
    if (o->op != HLO_OP_CONSTANT || !o->literal || o->literal->elided || !o->literal->data) return false;
  }
  return true;
}

/* The value of in, computed by the interpreter, as a literal in m's arena;
 * NULL if it cannot run (then the instruction stays). */
static hlo_literal *evaluate(opt_ctx *x, const hlo_instruction *in) {
  hlo_literal *lit = NULL;
  hlo_module *t = hlo_module_new(x->m->arena.alloc);
  hlo_computation *e = t ? hlo_arena_alloc(&t->arena, sizeof *e) : NULL;
  hlo_instruction **v = e ? hlo_arena_array(&t->arena, (size_t)in->noperands + 1, sizeof *v) : NULL;
  hlo_computation **comps = v ? hlo_arena_alloc(&t->arena, sizeof *comps) : NULL;
  if (!comps) goto done;
  e->name = "fold";
  e->is_entry = true;
  e->module_ = t;
  for (int q = 0; q < in->noperands; q++)
    if (!(v[q] = fuse_clone_instr(&t->arena, in->operands[q], hlo_arena_printf(&t->arena, "c%d", q)))) goto done;
  hlo_instruction *r = v[in->noperands] = fuse_clone_instr(&t->arena, in, "r");
  if (!r) goto done;
  for (int q = 0; q < in->noperands; q++) r->operands[q] = v[q];
  e->instrs = v;
  e->ninstrs = in->noperands + 1;
  e->root = r;
  e->root_explicit = true;
  comps[0] = e;
  t->comps = comps;
  t->ncomps = 1;
  t->entry = e;
  if (hlo_module_link(t)) goto done;
  hlo_diags d;
  hlo_diags_init(&d, x->m->arena.alloc);
  hlo_exec_options eo = {.threads = 1};
  hlo_exec *ex = hlo_exec_new(t, &eo, x->m->arena.alloc, &d);
  hlo_val *res = NULL;
  if (ex && hlo_exec_run(ex, NULL, 0, &res) == HLO_OK && res && !res->ntuple) {
    lit = hlo_arena_alloc(&x->m->arena, sizeof *lit);
    void *data = lit ? hlo_arena_alloc(&x->m->arena, res->nbytes ? res->nbytes : 1) : NULL;
    if (!data || hlo_shape_copy(&x->m->arena, &lit->shape, &in->shape)) {
      lit = NULL;
    } else {
      if (res->nbytes) memcpy(data, res->data, res->nbytes);
      lit->data = data;
      lit->nelems = res->nelems;
    }
  }
  if (res) hlo_val_release(x->m->arena.alloc, res);
  hlo_exec_free(ex);
  hlo_diags_release(&d);
done:
  hlo_module_free(t);
  return lit;
}

static hlo_instruction *fold(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  int64_t limit = x->o->fold_limit_bytes > 0 ? x->o->fold_limit_bytes : (int64_t)1 << 20;
  hlo_literal *lit = foldable(in, limit) ? evaluate(x, in) : NULL;
  if (!lit) return NULL;
  hlo_instruction *k = opt_add(x, c, HLO_OP_CONSTANT, "constant", 0, &in->shape);
  if (!k) x->oom = true;
  else k->literal = lit;
  return k;
}

int opt_constant_folding(opt_ctx *x) { return opt_rewrite_each(x, fold, 1); }
