/* plan_mixed.c - mixed floating-point precision at plan time: which operand
 * of an instruction the kernels need in another float type (XLA's evaluator
 * converts operands to the result's type, compare to the more precise of its
 * two), and the convert steps the plan inserts for them, so that no kernel
 * ever sees operands of a float type other than the one it assumes. */
#include <string.h>

#include "exec/exec.h"
#include "hlo/hlo_fp.h"
#include "verify/verify_internal.h"

/* The range of a float type as a rank: how many of these magnitudes it
 * holds without overflow (f64 5, f32 and bf16 4, f16 3, ...). */
static int range_rank(hlo_type t) {
  static const double mags[] = {400, 1e4, 6e4, 1e38, 1e300};
  int r = 0;
  for (size_t i = 0; i < sizeof mags / sizeof mags[0]; i++) {
    bool overflow = false;
    hlo_fp_from_double_ex(t, mags[i], &overflow);
    r += !overflow;
  }
  return r;
}

/* XLA's ordering of float types by precision (primitive_util's
 * HigherPrecisionType): range first, then significand digits, then width. */
static bool more_precise(hlo_type a, hlo_type b) {
  int ra = range_rank(a), rb = range_rank(b);
  if (ra != rb) return ra > rb;
  int da = hlo_fp_max_digits10(a), db = hlo_fp_max_digits10(b);
  if (da != db) return da > db;
  return hlo_type_bits(a) > hlo_type_bits(b);
}

/* Ops whose result type may differ from a float operand's without any
 * mixing: conversions and bitcasts. */
static bool changes_type(hlo_opcode op) {
  return op == HLO_OP_CONVERT || op == HLO_OP_BITCAST_CONVERT || op == HLO_OP_BITCAST ||
         op == HLO_OP_STOCHASTIC_CONVERT;
}

/* The float element type of result element k (of the result itself when it
 * is an array), or HLO_TYPE_COUNT. */
static hlo_type result_type_at(const hlo_instruction *in, int k) {
  const hlo_shape *s = &in->shape;
  if (hlo_shape_is_tuple(s)) {
    if (k < 0 || k >= s->ntuple) return HLO_TYPE_COUNT;
    s = &s->tuple[k];
  }
  return hlo_shape_is_array(s) && hlo_type_is_float(s->type) ? s->type : HLO_TYPE_COUNT;
}

/* The float type of parameter p of the computation `in` calls first. */
static hlo_type callee_param_type(const hlo_instruction *in, int p) {
  if (in->ncalled < 1 || !in->called[0] || p < 0 || p >= in->called[0]->nparams) return HLO_TYPE_COUNT;
  const hlo_instruction *pi = in->called[0]->params[p];
  return pi && hlo_shape_is_array(&pi->shape) && hlo_type_is_float(pi->shape.type) ? pi->shape.type
                                                                                     : HLO_TYPE_COUNT;
}

/* Ops that read their operands in types of their own (dots and
 * convolutions), pass values through untouched (tuples, calls, control
 * flow, async wrappers, send/recv) or whose callee fixes the types; no
 * operand of theirs is converted. */
static bool keeps_operand_types(hlo_opcode op) {
  if (changes_type(op) || op == HLO_OP_SELECT_AND_SCATTER) return true;
  unsigned f = hlo_opcode_flags(op);
  if ((f & HLO_F_COLLECTIVE) && !(f & HLO_F_ASYNC)) return false; /* values move unchanged */
  if (op == HLO_OP_REDUCE_PRECISION || op == HLO_OP_REDUCE_WINDOW || op == HLO_OP_SORT) return false;
  return hlo_verify_rules[op].mixed_precision_ok;
}

/* The type the kernel of `in` reads float operand i in, XLA's evaluator
 * converting operands to the result's type: per result element for ops
 * with one result per operand (sort, reduce-window, scatter, collectives),
 * the called computation's parameter type for map and reduce, the more
 * precise of the two for compare. */
static hlo_type operand_type_wanted(const hlo_instruction *in, int i) {
  int n = in->noperands;
  switch (in->op) {
  case HLO_OP_COMPARE: {
    if (n != 2) return HLO_TYPE_COUNT;
    hlo_type a = in->operands[0]->shape.type, b = in->operands[1]->shape.type;
    if (a == b || !hlo_type_is_float(a) || !hlo_type_is_float(b)) return HLO_TYPE_COUNT;
    return more_precise(a, b) ? a : b;
  }
  case HLO_OP_MAP: return callee_param_type(in, i);
  case HLO_OP_REDUCE: /* reduce(inputs..., inits...) calls f(accumulators..., elements...) */
    return n % 2 ? HLO_TYPE_COUNT : callee_param_type(in, i < n / 2 ? n / 2 + i : i - n / 2);
  case HLO_OP_REDUCE_WINDOW:
    return n % 2 ? HLO_TYPE_COUNT : result_type_at(in, i < n / 2 ? i : i - n / 2);
  case HLO_OP_SCATTER: /* scatter(operands..., indices, updates...) */
    if (n % 2 == 0 || i == n / 2) return HLO_TYPE_COUNT;
    return result_type_at(in, i < n / 2 ? i : i - n / 2 - 1);
  case HLO_OP_BATCH_NORM_TRAINING: case HLO_OP_BATCH_NORM_GRAD: case HLO_OP_BATCH_NORM_INFERENCE:
    return result_type_at(in, 0);
  default:
    if (keeps_operand_types(in->op)) return HLO_TYPE_COUNT;
    /* one result per operand, or an array result */
    return result_type_at(in, hlo_shape_is_tuple(&in->shape) ? i : 0);
  }
}

hlo_type hlo_plan_mixed_target(const hlo_instruction *in, int i) {
  const hlo_shape *o = &in->operands[i]->shape;
  if (!hlo_shape_is_array(o) || !hlo_type_is_float(o->type)) return HLO_TYPE_COUNT;
  hlo_type t = operand_type_wanted(in, i);
  return t == o->type ? HLO_TYPE_COUNT : t;
}

/* The element type operand i has once the plan's conversions are made. */
static hlo_type operand_type_after(const hlo_instruction *in, int i) {
  hlo_type t = hlo_plan_mixed_target(in, i);
  return t != HLO_TYPE_COUNT ? t : in->operands[i]->shape.type;
}

/* map and reduce whose (converted) operands have the types of the called
 * computation's parameters: the computation itself says the types (XLA's
 * evaluator runs it on the operands as they are; a map's result is its
 * root, a reduce's is converted from the reducer's type at the end,
 * ref_reduce.c). */
static bool typed_by_callee(const hlo_instruction *in) {
  if ((in->op != HLO_OP_MAP && in->op != HLO_OP_REDUCE) || in->ncalled < 1 || !in->called[0])
    return false;
  const hlo_computation *f = in->called[0];
  int n = in->noperands, half = n / 2;
  if (f->nparams != n || (in->op == HLO_OP_REDUCE && n != 2 * half)) return false;
  for (int i = 0; i < n; i++) {
    int p = in->op == HLO_OP_MAP ? i : i < half ? half + i : i - half;
    const hlo_instruction *pi = f->params[p];
    if (!pi || !hlo_shape_is_array(&in->operands[i]->shape) || pi->shape.type != operand_type_after(in, i))
      return false;
  }
  return in->op == HLO_OP_REDUCE || f->root->shape.type == in->shape.type;
}

/* Whether two shapes have the same element types, element for element. */
static bool same_types(const hlo_shape *a, const hlo_shape *b) {
  if (a->type != b->type) return false;
  if (!hlo_shape_is_tuple(a)) return true;
  if (a->ntuple != b->ntuple) return false;
  for (int k = 0; k < a->ntuple; k++)
    if (!same_types(&a->tuple[k], &b->tuple[k])) return false;
  return true;
}

int hlo_plan_mixed_check(hlo_exec *e, const hlo_instruction *in, int *nconv) {
  *nconv = 0;
  /* a fusion's result is its computation's root as computed */
  if (in->op == HLO_OP_FUSION && in->ncalled >= 1 && in->called[0] && in->called[0]->root &&
      !same_types(&in->called[0]->root->shape, &in->shape))
    return HLO_PLAN_ERR(e, in, "instruction %%%s: the fusion's result has other float types than "
                        "the root of %s; mixed precision across a fusion boundary is not supported "
                        "by hlo-run", in->name, in->called[0]->name);
  bool strict = hlo_shape_is_array(&in->shape) && hlo_type_is_float(in->shape.type) &&
                !keeps_operand_types(in->op) && !typed_by_callee(in);
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *o = &in->operands[i]->shape;
    if (hlo_plan_mixed_target(in, i) != HLO_TYPE_COUNT) (*nconv)++;
    hlo_type t = operand_type_after(in, i);
    if (strict && in->op != HLO_OP_COMPARE && hlo_shape_is_array(o) && hlo_type_is_float(t) &&
        t != in->shape.type)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: operands of op '%s' in another float "
                          "type than its result (%s, %s) are not supported by hlo-run",
                          in->name, hlo_opcode_name(in->op), hlo_type_name(t),
                          hlo_type_name(in->shape.type));
  }
  return HLO_OK;
}

const hlo_instruction *hlo_plan_mixed_steps(hlo_exec *e, plan_comp *pc, const hlo_instruction *in,
                                            int *ns, int *next_slot) {
  int nc = 0;
  for (int i = 0; i < in->noperands; i++) nc += hlo_plan_mixed_target(in, i) != HLO_TYPE_COUNT;
  if (!nc) return in;
  hlo_arena *A = &e->arena;
  hlo_instruction *shadow = hlo_arena_alloc(A, sizeof *shadow);
  hlo_instruction **ops = hlo_arena_array(A, (size_t)in->noperands + 1, sizeof *ops);
  if (!shadow || !ops) return HLO_PLAN_ERR(e, in, "out of memory"), NULL;
  *shadow = *in;
  memcpy(ops, in->operands, sizeof *ops * (size_t)in->noperands);
  shadow->operands = ops;
  for (int i = 0; i < in->noperands; i++) {
    hlo_type t = hlo_plan_mixed_target(in, i);
    if (t == HLO_TYPE_COUNT) continue;
    hlo_instruction *cv = hlo_arena_alloc(A, sizeof *cv);
    hlo_instruction **arg = hlo_arena_array(A, 1, sizeof *arg);
    plan_step *s = &pc->steps[*ns];
    s->args = hlo_arena_array(A, 1, sizeof(int));
    s->last_use = hlo_arena_array(A, 1, sizeof(bool));
    if (!cv || !arg || !s->args || !s->last_use)
      return HLO_PLAN_ERR(e, in, "out of memory"), NULL;
    memset(cv, 0, sizeof *cv);
    cv->op = HLO_OP_CONVERT;
    cv->name = in->operands[i]->name;
    cv->shape = in->operands[i]->shape;
    cv->shape.type = t;
    cv->parent = in->parent;
    cv->off = in->off, cv->op_off = in->op_off;
    arg[0] = in->operands[i];
    cv->operands = arg;
    cv->noperands = 1;
    cv->id = (*next_slot)++;
    s->in = cv;
    s->slot = cv->id;
    s->nargs = 1;
    s->args[0] = in->operands[i]->id;
    if (hlo_plan_kernel(e, s)) return NULL;
    ops[i] = cv;
    (*ns)++;
  }
  pc->mixed = true;
  return shadow;
}
