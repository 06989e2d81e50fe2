/* verify_calls.c - signatures of called computations: reducers (reduce,
 * reduce-window, scatter, all-reduce, reduce-scatter, select-and-scatter),
 * sort comparators, while condition/body, conditional branches, call, map,
 * fusion parameters and async-start wrapped computations. */
#include <string.h>

#include "verify/verify_internal.h"

static const hlo_computation *comp_of(const hlo_instruction *in, hlo_attr_key k) {
  const hlo_attr *a = hlo_instr_attr(in, k);
  if (!a) return NULL;
  if (a->kind == HLO_AK_COMP) return a->u.comp;
  if (a->kind == HLO_AK_COMPS && a->u.comps.n > 0) return a->u.comps.v[0];
  return NULL;
}

static const hlo_computation *need(vctx *v, const hlo_instruction *in, hlo_attr_key k) {
  const hlo_computation *c = comp_of(in, k);
  if (!c) vx_fail(v, in, "%s needs a %s= computation", hlo_opcode_name(in->op), hlo_attr_name(k));
  return c;
}

static const hlo_shape *param_shape(const hlo_computation *c, int i) {
  return i < c->nparams && c->params[i] ? &c->params[i]->shape : NULL;
}

static bool nparams_is(vctx *v, const hlo_instruction *in, const hlo_computation *c, int n) {
  if (c->nparams == n) return true;
  vx_fail(v, in, "Expected computation %s called from %s to have %d parameters, has %d", c->name, in->name, n,
          c->nparams);
  return false;
}

static void operand_vs_param(vctx *v, const hlo_instruction *in, int opi, const hlo_computation *c, int pi) {
  const hlo_shape *p = param_shape(c, pi);
  if (!p) return;
  if (!vx_same(v, &in->operands[opi]->shape, p))
    vx_fail(v, in, "Operand %d shape does not match parameter %d of computation '%s': operand is %s, parameter is %s",
            opi, pi, c->name, vx_str(v, &in->operands[opi]->shape), vx_str(v, p));
}

static bool scalar_of(const hlo_shape *s, hlo_type t) { return hlo_shape_is_scalar(s) && s->type == t; }

/* XLA's VerifyReducerShape: f takes 2n scalars and returns n of them (a
 * tuple if n > 1); accumulators match the init values, inputs promote. */
static void check_reducer(vctx *v, const hlo_instruction *in, const hlo_computation *f, int n,
                          const hlo_type *init_t, const hlo_type *input_t) {
  if (!f || !f->root) return;
  if (f->nparams != 2 * n) {
    vx_fail(v, in, "Reduction function %s must take %d parameters, but takes %d parameter(s).", f->name, 2 * n,
            f->nparams);
    return;
  }
  const hlo_shape *r = &f->root->shape;
  if (n == 1 && r->type == HLO_TUPLE && r->ntuple == 1) r = &r->tuple[0]; /* XLA accepts a 1-tuple */
  if (n == 1 && !hlo_shape_is_scalar(r)) {
    vx_fail(v, in, "Reduction function %s must produce a scalar but has shape: %s", f->name, vx_str(v, r));
    return;
  }
  if (n > 1 && (r->type != HLO_TUPLE || r->ntuple != n)) {
    vx_fail(v, in, "Reduction function %s must produce a tuple with %d elements, but has shape %s", f->name, n,
            vx_str(v, r));
    return;
  }
  bool mixed = v->o.allow_mixed_precision;
  for (int i = 0; i < n; i++) {
    const hlo_shape *acc = n == 1 ? r : &r->tuple[i];
    if (!hlo_shape_is_scalar(acc)) {
      vx_fail(v, in, "Reduction function %s must produce scalars; result %d is %s", f->name, i, vx_str(v, acc));
      continue;
    }
    for (int half = 0; half < 2; half++) {
      const hlo_shape *p = param_shape(f, half * n + i);
      if (p && !hlo_shape_xla_compatible(p, acc, false))
        vx_fail(v, in, "Reduction function %s's %d-th parameter shape differs from the result shape: %s vs %s",
                f->name, half * n + i, vx_str(v, p), vx_str(v, acc));
    }
    /* init values may differ in float precision, mixed precision or not:
     * the result shape (the accumulator's) then differs from the one
     * declared, which the shape check reports */
    if (init_t && !(init_t[i] == acc->type || (hlo_type_is_float(init_t[i]) && hlo_type_is_float(acc->type))))
      vx_fail(v, in, "Reduction function %s's accumulator shape at index %d differs from the init_value shape: %s vs %s[]",
              f->name, i, vx_str(v, acc), hlo_type_name(init_t[i]));
    if (input_t) {
      hlo_type a = input_t[i], b = acc->type;
      bool ok = a == b || (mixed && hlo_type_is_float(a) && hlo_type_is_float(b)) ||
                (hlo_type_kind_of(a) == hlo_type_kind_of(b) && hlo_type_bits(a) <= hlo_type_bits(b));
      if (!ok)
        vx_fail(v, in, "Reduction function %s's %d-th parameter shape must be compatible with input element type %s, but got %s",
                f->name, n + i, hlo_type_name(a), vx_str(v, acc));
    }
  }
}

/* Reducer over N inputs followed by N init values (reduce, reduce-window). */
void vx_calls_reduce(vctx *v, const hlo_instruction *in) {
  const hlo_computation *f = need(v, in, HLO_A_TO_APPLY);
  int n = in->noperands / 2;
  if (!f || n < 1 || in->noperands % 2) return;
  hlo_type *it = hlo_arena_array(&v->scratch, (size_t)n, sizeof(hlo_type));
  hlo_type *nt = hlo_arena_array(&v->scratch, (size_t)n, sizeof(hlo_type));
  if (!it || !nt) return;
  for (int i = 0; i < n; i++) it[i] = in->operands[n + i]->shape.type, nt[i] = in->operands[i]->shape.type;
  check_reducer(v, in, f, n, it, nt);
}

/* A scalar binary reducer per array leaf of the operands (collectives). */
void vx_calls_all_reduce(vctx *v, const hlo_instruction *in) {
  const hlo_computation *f = need(v, in, HLO_A_TO_APPLY);
  if (!f) return;
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *s = &in->operands[i]->shape;
    if (s->type == HLO_TUPLE) {
      for (int k = 0; k < s->ntuple; k++)
        if (hlo_shape_is_array(&s->tuple[k])) check_reducer(v, in, f, 1, NULL, &s->tuple[k].type);
    } else if (hlo_shape_is_array(s)) {
      check_reducer(v, in, f, 1, NULL, &s->type);
    }
  }
}

void vx_calls_sort(vctx *v, const hlo_instruction *in) {
  const hlo_computation *f = need(v, in, HLO_A_TO_APPLY);
  if (!f || !f->root) return;
  int n = in->noperands;
  if (f->nparams != 2 * n) {
    vx_fail(v, in, "The Sort compare computation %s must have %d parameters (2 per operand), but has %d.", f->name,
            2 * n, f->nparams);
    return;
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++) {
      const hlo_shape *p = param_shape(f, 2 * i + k);
      if (p && !scalar_of(p, in->operands[i]->shape.type))
        vx_fail(v, in, "Parameter %d of the Sort compare computation %s has shape %s, expected %s[] (operand %d's element type).",
                2 * i + k, f->name, vx_str(v, p), hlo_type_name(in->operands[i]->shape.type), i);
    }
  if (!scalar_of(&f->root->shape, HLO_PRED))
    vx_fail(v, in, "The Sort compare computation %s must return a pred[] scalar; got %s.", f->name,
            vx_str(v, &f->root->shape));
}

void vx_calls_while(vctx *v, const hlo_instruction *in) {
  const hlo_computation *cond = need(v, in, HLO_A_CONDITION), *body = need(v, in, HLO_A_BODY);
  if (in->noperands != 1) return;
  const hlo_shape *init = &in->operands[0]->shape;
  if (cond) {
    if (cond->nparams != 1)
      vx_fail(v, in, "Condition must take 1 arguments; got %d.", cond->nparams);
    else
      operand_vs_param(v, in, 0, cond, 0);
    if (cond->root && !scalar_of(&cond->root->shape, HLO_PRED))
      vx_fail(v, in, "Condition must return a boolean; got %s.", vx_str(v, &cond->root->shape));
  }
  if (body) {
    if (body->nparams != 1)
      vx_fail(v, in, "Body must take 1 arguments; got %d.", body->nparams);
    else
      operand_vs_param(v, in, 0, body, 0);
    if (body->root && !vx_same(v, &body->root->shape, init))
      vx_fail(v, in, "The body's result shape %s must be the while loop's init shape %s.",
              vx_str(v, &body->root->shape), vx_str(v, init));
  }
}

void vx_calls_conditional(vctx *v, const hlo_instruction *in) {
  const hlo_computation **br = hlo_arena_array(&v->scratch, (size_t)(in->ncalled ? in->ncalled : 1), sizeof *br);
  if (!br) return;
  int nb = 0;
  const hlo_attr *bc = hlo_instr_attr(in, HLO_A_BRANCH_COMPUTATIONS);
  if (bc && bc->kind == HLO_AK_COMPS) {
    for (int i = 0; i < bc->u.comps.n && nb < in->ncalled; i++) br[nb++] = bc->u.comps.v[i];
  } else {
    const hlo_computation *t = comp_of(in, HLO_A_TRUE_COMPUTATION), *f = comp_of(in, HLO_A_FALSE_COMPUTATION);
    if (t && nb < in->ncalled) br[nb++] = t;
    if (f && nb < in->ncalled) br[nb++] = f;
  }
  if (nb == 0) {
    vx_fail(v, in, "conditional needs branch_computations= or true_computation= and false_computation=");
    return;
  }
  for (int i = 0; i < nb; i++) {
    const hlo_computation *b = br[i];
    if (!b) continue;
    if (i + 1 < in->noperands) {
      if (nparams_is(v, in, b, 1)) operand_vs_param(v, in, i + 1, b, 0);
    }
    if (b->root && !vx_same(v, &b->root->shape, &in->shape))
      vx_fail(v, in, "branch computation %d (%s) returns %s, but the conditional's shape is %s", i, b->name,
              vx_str(v, &b->root->shape), vx_str(v, &in->shape));
  }
}

static void check_params_match_operands(vctx *v, const hlo_instruction *in, const hlo_computation *c) {
  if (!c || !nparams_is(v, in, c, in->noperands)) return;
  for (int i = 0; i < in->noperands; i++) operand_vs_param(v, in, i, c, i);
}

void vx_calls_fusion(vctx *v, const hlo_instruction *in) {
  const hlo_computation *f = need(v, in, HLO_A_CALLS);
  if (!f) return;
  int maxp = f->nparams;
  if (maxp > in->noperands) {
    vx_fail(v, in, "Fused parameter count (%d) is greater than the number of operands (%d) passed to the fusion instruction.",
            maxp, in->noperands);
    return;
  }
  /* extra operands are allowed, as in XLA */
  for (int i = 0; i < maxp; i++) {
    const hlo_shape *p = param_shape(f, i);
    if (p && !vx_same(v, p, &in->operands[i]->shape))
      vx_fail(v, in, "Shape mismatch between parameter number %d and its operand: parameter is %s, operand is %s.", i,
              vx_str(v, p), vx_str(v, &in->operands[i]->shape));
  }
}

void vx_calls_map(vctx *v, const hlo_instruction *in) {
  const hlo_computation *f = need(v, in, HLO_A_TO_APPLY);
  if (!f || !nparams_is(v, in, f, in->noperands)) return;
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *p = param_shape(f, i);
    hlo_type t = in->operands[i]->shape.type;
    if (!p || scalar_of(p, t)) continue;
    /* inference ignores float precision; the exact type is XLA's HandleMap
     * rule, which mixed precision lifts */
    if (hlo_shape_is_scalar(p) && hlo_type_is_float(p->type) && hlo_type_is_float(t)) {
      if (!v->o.allow_mixed_precision)
        vx_fail(v, in, "Shape mismatch between to_apply computation parameter and operand %d in %%%s.", i, in->name);
      continue;
    }
    vx_fail(v, in, "Mapped computation's parameter %d has shape %s, expected %s[].", i, vx_str(v, p), hlo_type_name(t));
  }
}

void vx_calls_select_and_scatter(vctx *v, const hlo_instruction *in) {
  const hlo_computation *sel = need(v, in, HLO_A_SELECT), *sct = need(v, in, HLO_A_SCATTER);
  hlo_type t = in->operands[0]->shape.type;
  if (sel) {
    if (sel->nparams != 2) {
      vx_fail(v, in, "Select function must take 2 parameters, but takes %d parameter(s).", sel->nparams);
    } else {
      for (int i = 0; i < 2; i++)
        if (param_shape(sel, i) && !scalar_of(param_shape(sel, i), t))
          vx_fail(v, in, "Select function's parameter %d has shape %s, expected %s[].", i, vx_str(v, param_shape(sel, i)),
                  hlo_type_name(t));
    }
    if (sel->root && !scalar_of(&sel->root->shape, HLO_PRED))
      vx_fail(v, in, "Select function must have rank-0 PRED result; got %s.", vx_str(v, &sel->root->shape));
  }
  if (sct) {
    hlo_type it = in->operands[2]->shape.type, st = in->operands[1]->shape.type;
    check_reducer(v, in, sct, 1, &it, &st);
  }
}

void vx_calls_scatter(vctx *v, const hlo_instruction *in) {
  const hlo_computation *f = need(v, in, HLO_A_TO_APPLY);
  int n = (in->noperands - 1) / 2;
  if (!f || n < 1 || in->noperands % 2 == 0) return;
  hlo_type *it = hlo_arena_array(&v->scratch, (size_t)n, sizeof(hlo_type));
  hlo_type *ut = hlo_arena_array(&v->scratch, (size_t)n, sizeof(hlo_type));
  if (!it || !ut) return;
  for (int i = 0; i < n; i++) it[i] = in->operands[i]->shape.type, ut[i] = in->operands[n + 1 + i]->shape.type;
  check_reducer(v, in, f, n, it, ut);
}

void vx_calls_call(vctx *v, const hlo_instruction *in) {
  check_params_match_operands(v, in, need(v, in, HLO_A_TO_APPLY));
}
