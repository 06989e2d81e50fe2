/* async.c - the kernels of the generic async ops (async-start,
 * async-update, async-done), with XLA's late binding: a chain may start
 * with fewer operands than the wrapped computation takes and bind the rest
 * with async-update(prev, more...).  The value of a start or update is the
 * tuple ((bound operands...), output, context...).  As in XLA's evaluator
 * (HandleAsyncStart/Update/Done with hlo_instruction_utils' IsFirstFullyBound)
 * the computation runs at the first op of the chain that is fully bound:
 * its operand tuple has the computation's parameter shapes and its output
 * (element 1, or a done's own shape) the computation's result shape.  Other
 * ops pass the values along. */
#include <string.h>

#include "exec/exec.h"

/* the async-start at the head of in's chain, or NULL */
static const hlo_instruction *chain_start(const hlo_instruction *in) {
  for (int depth = 0; in && depth < 1 << 20; depth++) {
    if (in->op == HLO_OP_ASYNC_START) return in;
    if ((in->op != HLO_OP_ASYNC_UPDATE && in->op != HLO_OP_ASYNC_DONE) || in->noperands < 1)
      return NULL;
    in = in->operands[0];
  }
  return NULL;
}

static const hlo_computation *wrapped(const hlo_instruction *in) {
  const hlo_instruction *st = chain_start(in);
  return st && st->ncalled > 0 ? st->called[0] : NULL;
}

/* XLA's AreOperandsAndOutputFullyBound */
static bool fully_bound(const hlo_instruction *in) {
  const hlo_computation *f = wrapped(in);
  if (!f || !f->root) return false;
  bool done = in->op == HLO_OP_ASYNC_DONE;
  if (done && in->noperands != 1) return false;
  const hlo_shape *t = done ? &in->operands[0]->shape : &in->shape;
  if (t->type != HLO_TUPLE || t->ntuple < 2) return false;
  const hlo_shape *ops = &t->tuple[0];
  if (ops->type != HLO_TUPLE || ops->ntuple != f->nparams) return false;
  for (int i = 0; i < f->nparams; i++)
    if (!f->params[i] || !hlo_shape_compatible(&ops->tuple[i], &f->params[i]->shape)) return false;
  return hlo_shape_compatible(done ? &in->shape : &t->tuple[1], &f->root->shape);
}

/* XLA's IsFirstFullyBound: the computation runs at this op */
static bool runs_here(const hlo_instruction *in) {
  if (!fully_bound(in)) return false;
  return in->op == HLO_OP_ASYNC_START || !fully_bound(in->operands[0]);
}

/* run the wrapped computation on the operand tuple ops */
static int run_wrapped(hlo_run *r, const hlo_instruction *in, hlo_val *ops, hlo_val **res) {
  const hlo_computation *f = wrapped(in);
  const plan_comp *pc = f && f->id >= 0 && f->id < r->e->m->ncomps ? r->e->plans[f->id] : NULL;
  if (!pc) return hlo_run_errorf(r, in, "the wrapped computation was not planned");
  return hlo_run_comp(r, pc, ops->tuple, ops->ntuple, res);
}

/* put a new reference to v at t->tuple[k] (a tuple value made here) */
static void put(hlo_run *r, hlo_val *t, int k, hlo_val *v) {
  hlo_run_release(r, t->tuple[k]);
  t->tuple[k] = hlo_val_ref(v);
}

/* the start or update value t: its output computed here when this is the
 * chain's first fully bound op; *out takes t (released on error) */
static int finish(hlo_run *r, const hlo_instruction *in, hlo_val *t, hlo_val **out) {
  if (runs_here(in)) {
    hlo_val *res = NULL;
    if (run_wrapped(r, in, t->tuple[0], &res)) {
      hlo_run_release(r, t);
      return HLO_ERR;
    }
    hlo_run_release(r, t->tuple[1]);
    t->tuple[1] = res;
  }
  *out = t;
  return HLO_OK;
}

/* async-start(operands...): the operands go to element 0; the computation
 * runs when they are all bound (the usual case) */
DECL_KERN(hlo_ctl_async_start) {
  const hlo_instruction *in = s->in;
  const hlo_shape *sh = &in->shape;
  if (sh->type != HLO_TUPLE || sh->ntuple < 2 || sh->tuple[0].type != HLO_TUPLE) {
    /* not the ((operands), output, ...) form: the computation's value */
    const hlo_computation *f = in->ncalled > 0 ? in->called[0] : NULL;
    const plan_comp *pc = f && f->id >= 0 && f->id < r->e->m->ncomps ? r->e->plans[f->id] : NULL;
    if (!pc) return hlo_run_errorf(r, in, "called computation was not planned");
    return hlo_run_comp(r, pc, args, s->nargs, out);
  }
  hlo_val *t = hlo_run_new(r, sh);
  if (!t) return hlo_run_errorf(r, in, "out of memory");
  hlo_val *ops = t->tuple[0];
  for (int i = 0; i < ops->ntuple && i < s->nargs; i++) put(r, ops, i, args[i]);
  return finish(r, in, t, out);
}

/* async-update(prev, operands...): prev's elements of the same shape carry
 * over, the operands are bound after prev's, and the computation runs when
 * this update is the first fully bound op of the chain */
DECL_KERN(hlo_ctl_async_update) {
  const hlo_instruction *in = s->in;
  hlo_val *prev = args[0];
  const hlo_shape *sh = &in->shape;
  if (s->nargs == 1 && prev->shape && hlo_shape_compatible(prev->shape, sh)) {
    *out = hlo_val_ref(prev); /* nothing bound here */
    return HLO_OK;
  }
  if (sh->type != HLO_TUPLE || sh->ntuple < 2 || sh->tuple[0].type != HLO_TUPLE ||
      prev->ntuple < 1 || prev->tuple[0]->ntuple < 0)
    return hlo_run_errorf(r, in, "needs ((operands...), output, ...) shapes");
  hlo_val *t = hlo_run_new(r, sh);
  if (!t) return hlo_run_errorf(r, in, "out of memory");
  for (int k = 0; k < t->ntuple && k < prev->ntuple; k++) {
    if (hlo_shape_compatible(prev->tuple[k]->shape, &sh->tuple[k])) put(r, t, k, prev->tuple[k]);
    else if (k == 0)
      for (int i = 0; i < t->tuple[0]->ntuple && i < prev->tuple[0]->ntuple; i++)
        if (hlo_shape_compatible(prev->tuple[0]->tuple[i]->shape, &sh->tuple[0].tuple[i]))
          put(r, t->tuple[0], i, prev->tuple[0]->tuple[i]);
  }
  hlo_val *ops = t->tuple[0];
  int bound = prev->tuple[0]->ntuple;
  for (int i = 1; i < s->nargs; i++) {
    int k = bound + i - 1;
    if (k >= ops->ntuple || !hlo_shape_compatible(args[i]->shape, &sh->tuple[0].tuple[k])) {
      hlo_run_release(r, t);
      return hlo_run_errorf(r, in, "operand %d does not fit element {0,%d} of the result", i, k);
    }
    put(r, ops, k, args[i]);
  }
  return finish(r, in, t, out);
}

/* async-done(prev): the output, computed here when the chain's output was
 * not bound before */
DECL_KERN(hlo_ctl_async_done) {
  hlo_val *v = args[0];
  if (runs_here(s->in) && v->ntuple >= 1) return run_wrapped(r, s->in, v->tuple[0], out);
  if (v->ntuple >= 2) *out = hlo_val_ref(v->tuple[1]);
  else *out = hlo_val_ref(v);
  return HLO_OK;
}
