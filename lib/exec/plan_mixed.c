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

/* Ops whose float operands are converted to the result's element type. */
static bool converts_to_result(hlo_opcode op) {
  switch (op) {
  case HLO_OP_CONVERT: case HLO_OP_BITCAST_CONVERT: case HLO_OP_STOCHASTIC_CONVERT:
  case HLO_OP_COMPARE:
    return false;
  case HLO_OP_RESHAPE: case HLO_OP_BROADCAST: case HLO_OP_TRANSPOSE:
  case HLO_OP_SLICE: case HLO_OP_CONCATENATE: case HLO_OP_REVERSE: case HLO_OP_COPY:
  case HLO_OP_PAD: case HLO_OP_DYNAMIC_SLICE: case HLO_OP_DYNAMIC_UPDATE_SLICE:
    return true;
  default:
    return (hlo_opcode_flags(op) & HLO_F_ELEMENTWISE) != 0;
  }
}

hlo_type hlo_plan_mixed_target(const hlo_instruction *in, int i) {
  const hlo_shape *o = &in->operands[i]->shape;
  if (!hlo_shape_is_array(o) || !hlo_type_is_float(o->type)) return HLO_TYPE_COUNT;
  if (in->op == HLO_OP_COMPARE) {
    if (in->noperands != 2) return HLO_TYPE_COUNT;
    hlo_type a = in->operands[0]->shape.type, b = in->operands[1]->shape.type;
    if (a == b || !hlo_type_is_float(a) || !hlo_type_is_float(b)) return HLO_TYPE_COUNT;
    hlo_type t = more_precise(a, b) ? a : b;
    return o->type == t ? HLO_TYPE_COUNT : t;
  }
  if (!hlo_shape_is_array(&in->shape) || !hlo_type_is_float(in->shape.type)) return HLO_TYPE_COUNT;
  if (o->type == in->shape.type || !converts_to_result(in->op)) return HLO_TYPE_COUNT;
  return in->shape.type;
}

/* Ops whose result type may differ from a float operand's without any
 * mixing: conversions and bitcasts. */
static bool changes_type(hlo_opcode op) {
  return op == HLO_OP_CONVERT || op == HLO_OP_BITCAST_CONVERT || op == HLO_OP_BITCAST ||
         op == HLO_OP_STOCHASTIC_CONVERT;
}

/* map and reduce whose operands have the types of the called computation's
 * parameters: the computation itself says the types (XLA's evaluator runs
 * it on the operands as they are; a map's result is its root, a reduce's is
 * converted from the reducer's type at the end, ref_reduce.c). */
static bool typed_by_callee(const hlo_instruction *in) {
  if ((in->op != HLO_OP_MAP && in->op != HLO_OP_REDUCE) || in->ncalled < 1 || !in->called[0])
    return false;
  const hlo_computation *f = in->called[0];
  int n = in->noperands, half = n / 2;
  if (f->nparams != n || (in->op == HLO_OP_REDUCE && n != 2 * half)) return false;
  for (int i = 0; i < n; i++) {
    /* reduce(inputs..., inits...) calls f(accumulators..., elements...) */
    int p = in->op == HLO_OP_MAP ? i : i < half ? half + i : i - half;
    const hlo_instruction *pi = f->params[p];
    if (!pi || !hlo_shape_is_array(&in->operands[i]->shape) ||
        pi->shape.type != in->operands[i]->shape.type)
      return false;
  }
  return in->op == HLO_OP_REDUCE || f->root->shape.type == in->shape.type;
}

int hlo_plan_mixed_check(hlo_exec *e, const hlo_instruction *in, int *nconv) {
  *nconv = 0;
  bool strict = hlo_shape_is_array(&in->shape) && hlo_type_is_float(in->shape.type) &&
                !hlo_verify_rules[in->op].mixed_precision_ok && !changes_type(in->op) &&
                !typed_by_callee(in);
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *o = &in->operands[i]->shape;
    if (hlo_plan_mixed_target(in, i) != HLO_TYPE_COUNT)
      (*nconv)++;
    else if (strict && hlo_shape_is_array(o) && hlo_type_is_float(o->type) && o->type != in->shape.type)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: operands of op '%s' in another float "
                          "type than its result (%s, %s) are not supported by hlo-run",
                          in->name, hlo_opcode_name(in->op), hlo_type_name(o->type),
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
