/* pass_inline.c - XLA's CallInliner: every `call` in a computation that is
 * not fused is replaced by a copy of the called computation's instructions
 * (parameters bound to the call's operands); called computations no longer
 * called are dropped. */
#include "opt/opt_internal.h"

static bool control_pred(const hlo_computation *c, const hlo_instruction *in) {
  for (int i = 0; i < c->ninstrs; i++)
    for (int q = 0; q < c->instrs[i]->ncontrol; q++)
      if (c->instrs[i]->control_preds[q] == in) return true;
  return false;
}

/* Inline the calls of c (and those the inlined code brings); *n counts. */
static int inline_comp(opt_ctx *x, hlo_computation *c, hlo_computation **callees, int *ncallees, int *n) {
  for (int guard = 0; guard < 10000; guard++) {
    hlo_instruction *call = NULL;
    for (int i = 0; i < c->ninstrs && !call; i++)
      if (c->instrs[i]->op == HLO_OP_CALL && c->instrs[i]->ncalled == 1 && c->instrs[i]->called[0] != c &&
          !c->instrs[i]->ncontrol && !control_pred(c, c->instrs[i]))
        call = c->instrs[i];
    if (!call) return HLO_OK;
    hlo_computation *callee = call->called[0];
    hlo_instruction *root;
    x->anchor = call;
    if (opt_inline_body(x, c, callee, call->operands, call->noperands, &root)) return HLO_ERR;
    if (!hlo_shape_equal(&root->shape, &call->shape) && call == c->root) return HLO_ERR;
    opt_replace_uses(c, call, root);
    /* the call goes even when its callee has side effects (a collective):
     * they now live in the inlined copy */
    int w = 0;
    for (int i = 0; i < c->ninstrs; i++)
      if (c->instrs[i] != call) c->instrs[w++] = c->instrs[i];
    c->ninstrs = w;
    call->parent = NULL;
    if (opt_remove_dead(x, c, call->operands, call->noperands, NULL) || opt_sort(x, c) ||
        hlo_module_link(x->m))
      return HLO_ERR;
    int k = 0;
    while (k < *ncallees && callees[k] != callee) k++;
    if (k == *ncallees) callees[(*ncallees)++] = callee;
    (*n)++;
  }
  return HLO_ERR; /* a call chain this long is a recursion */
}

int opt_inline(opt_ctx *x) {
  hlo_module *m = x->m;
  int n = 0, ncallees = 0, ncomps = m->ncomps;
  hlo_computation **callees = hlo_arena_array(&x->tmp, (size_t)ncomps + 1, sizeof *callees);
  hlo_computation **work = hlo_arena_array(&x->tmp, (size_t)ncomps + 1, sizeof *work);
  if (!callees || !work) return opt_fail(x, NULL);
  for (int i = 0; i < ncomps; i++) work[i] = m->comps[i];
  for (int i = 0; i < ncomps; i++)
    if (!work[i]->is_fused && inline_comp(x, work[i], callees, &ncallees, &n))
      return opt_fail(x, "inline: cannot inline a call (recursive or malformed computation)");
  if (!n) return 0;
  if (fuse_drop_uncalled(m, callees, ncallees)) return opt_fail(x, NULL);
  return 1;
}
