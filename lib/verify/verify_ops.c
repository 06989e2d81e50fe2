/* verify_ops.c - XLA's op-specific verifier checks that are not shape
 * inference: comparison types, rng operands, async start/done pairing,
 * collective source-target pairs and replica groups, composite calls,
 * bitcast sizes, unbounded dynamism, mixed precision and (layout-sensitive)
 * layout preservation. */
#include <string.h>

#include "verify/verify_internal.h"

/* Ops whose operands may legitimately mix floating-point precisions. */
static bool mixed_precision_exempt(hlo_opcode op) {
  switch (op) {
  case HLO_OP_CALL: case HLO_OP_CONDITIONAL: case HLO_OP_CONSTANT: case HLO_OP_CONVOLUTION: case HLO_OP_DOT:
  case HLO_OP_RAGGED_DOT: case HLO_OP_SCALED_DOT: case HLO_OP_ALL_REDUCE: case HLO_OP_ALL_REDUCE_START:
  case HLO_OP_ALL_REDUCE_DONE: case HLO_OP_ASYNC_DONE: case HLO_OP_ASYNC_UPDATE: case HLO_OP_ASYNC_START:
  case HLO_OP_COPY_DONE: case HLO_OP_COPY_START: case HLO_OP_CUSTOM_CALL: case HLO_OP_DOMAIN:
  case HLO_OP_FUSION: case HLO_OP_GET_TUPLE_ELEMENT: case HLO_OP_OPTIMIZATION_BARRIER: case HLO_OP_INFEED:
  case HLO_OP_OUTFEED: case HLO_OP_PARAMETER: case HLO_OP_RECV: case HLO_OP_RECV_DONE:
  case HLO_OP_REDUCE_PRECISION: case HLO_OP_REDUCE_WINDOW: case HLO_OP_SEND: case HLO_OP_SEND_DONE:
  case HLO_OP_SORT: case HLO_OP_TUPLE: case HLO_OP_WHILE:
    return true;
  case HLO_OP_ABS: case HLO_OP_ACOS: case HLO_OP_ACOSH: case HLO_OP_ADD: case HLO_OP_ADD_DEPENDENCY:
  case HLO_OP_AFTER_ALL: case HLO_OP_ALL_GATHER: case HLO_OP_ALL_GATHER_DONE: case HLO_OP_ALL_GATHER_START:
  case HLO_OP_ALL_TO_ALL: case HLO_OP_AND: case HLO_OP_ASIN: case HLO_OP_ASINH: case HLO_OP_ATAN:
  case HLO_OP_ATAN2: case HLO_OP_ATANH: case HLO_OP_BATCH_NORM_GRAD: case HLO_OP_BATCH_NORM_INFERENCE:
  case HLO_OP_BATCH_NORM_TRAINING: case HLO_OP_BITCAST: case HLO_OP_BITCAST_CONVERT: case HLO_OP_BROADCAST:
  case HLO_OP_CBRT: case HLO_OP_CEIL: case HLO_OP_CHOLESKY: case HLO_OP_CLAMP: case HLO_OP_CLZ:
  case HLO_OP_COLLECTIVE_BROADCAST: case HLO_OP_COLLECTIVE_PERMUTE: case HLO_OP_COLLECTIVE_PERMUTE_DONE:
  case HLO_OP_COLLECTIVE_PERMUTE_START: case HLO_OP_COLLECTIVE_REDUCE: case HLO_OP_COMPARE:
  case HLO_OP_COMPLEX: case HLO_OP_CONCATENATE: case HLO_OP_CONVERT: case HLO_OP_COPY: case HLO_OP_COS:
  case HLO_OP_COSH: case HLO_OP_DIVIDE: case HLO_OP_DYNAMIC_RESHAPE: case HLO_OP_DYNAMIC_SLICE:
  case HLO_OP_DYNAMIC_UPDATE_SLICE: case HLO_OP_ERF: case HLO_OP_EXP: case HLO_OP_EXPM1: case HLO_OP_FFT:
  case HLO_OP_FLOOR: case HLO_OP_GATHER: case HLO_OP_GET_DIMENSION_SIZE: case HLO_OP_IMAG: case HLO_OP_IOTA:
  case HLO_OP_IS_FINITE: case HLO_OP_LOG: case HLO_OP_LOG1P: case HLO_OP_LOGISTIC: case HLO_OP_MAP:
  case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM: case HLO_OP_MULHI: case HLO_OP_MULTIPLY: case HLO_OP_NEGATE:
  case HLO_OP_NOT: case HLO_OP_OR: case HLO_OP_PAD: case HLO_OP_PARTITION_ID: case HLO_OP_POPCNT:
  case HLO_OP_POWER: case HLO_OP_RAGGED_ALL_TO_ALL: case HLO_OP_REAL: case HLO_OP_REDUCE:
  case HLO_OP_REDUCE_SCATTER: case HLO_OP_REMAINDER: case HLO_OP_REPLICA_ID: case HLO_OP_RESHAPE:
  case HLO_OP_REVERSE: case HLO_OP_RNG: case HLO_OP_RNG_BIT_GENERATOR: case HLO_OP_RNG_GET_AND_UPDATE_STATE:
  case HLO_OP_ROUND_NEAREST_AFZ: case HLO_OP_ROUND_NEAREST_EVEN: case HLO_OP_RSQRT: case HLO_OP_SCAN:
  case HLO_OP_SCATTER: case HLO_OP_SELECT: case HLO_OP_SELECT_AND_SCATTER: case HLO_OP_SET_DIMENSION_SIZE:
  case HLO_OP_SHIFT_LEFT: case HLO_OP_SHIFT_RIGHT_ARITHMETIC: case HLO_OP_SHIFT_RIGHT_LOGICAL:
  case HLO_OP_SHUFFLE: case HLO_OP_SIGN: case HLO_OP_SIN: case HLO_OP_SINH: case HLO_OP_SLICE:
  case HLO_OP_SQRT: case HLO_OP_STOCHASTIC_CONVERT: case HLO_OP_SUBTRACT: case HLO_OP_TAN: case HLO_OP_TANH:
  case HLO_OP_TOPK: case HLO_OP_TRANSPOSE: case HLO_OP_TRIANGULAR_SOLVE: case HLO_OP_XOR: case HLO_OP_COUNT:
    return false;
  }
  return false;
}

/* XLA's LayoutAssignment::InstructionCanChangeLayout, negated. */
static bool keeps_layout(hlo_opcode op) {
  switch (op) {
  case HLO_OP_ABS: case HLO_OP_ADD: case HLO_OP_ADD_DEPENDENCY: case HLO_OP_AND: case HLO_OP_ATAN2:
  case HLO_OP_BITCAST_CONVERT: case HLO_OP_CEIL: case HLO_OP_CLAMP: case HLO_OP_CLZ: case HLO_OP_COMPLEX:
  case HLO_OP_CONCATENATE: case HLO_OP_CONDITIONAL: case HLO_OP_CONVERT: case HLO_OP_COS:
  case HLO_OP_ALL_REDUCE: case HLO_OP_ALL_TO_ALL: case HLO_OP_COLLECTIVE_PERMUTE: case HLO_OP_DIVIDE:
  case HLO_OP_DYNAMIC_SLICE: case HLO_OP_DYNAMIC_UPDATE_SLICE: case HLO_OP_COMPARE: case HLO_OP_EXP:
  case HLO_OP_EXPM1: case HLO_OP_FFT: case HLO_OP_FLOOR: case HLO_OP_IMAG: case HLO_OP_IS_FINITE:
  case HLO_OP_LOG: case HLO_OP_LOG1P: case HLO_OP_MAP: case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM:
  case HLO_OP_MULTIPLY: case HLO_OP_NEGATE: case HLO_OP_NOT: case HLO_OP_OR: case HLO_OP_XOR: case HLO_OP_PAD:
  case HLO_OP_POWER: case HLO_OP_REAL: case HLO_OP_REDUCE_PRECISION: case HLO_OP_REDUCE_WINDOW:
  case HLO_OP_REMAINDER: case HLO_OP_REVERSE: case HLO_OP_ROUND_NEAREST_AFZ: case HLO_OP_ROUND_NEAREST_EVEN:
  case HLO_OP_SCATTER: case HLO_OP_SELECT: case HLO_OP_SELECT_AND_SCATTER: case HLO_OP_SHIFT_LEFT:
  case HLO_OP_SHIFT_RIGHT_ARITHMETIC: case HLO_OP_SHIFT_RIGHT_LOGICAL: case HLO_OP_SIGN: case HLO_OP_SIN:
  case HLO_OP_SLICE: case HLO_OP_SORT: case HLO_OP_SUBTRACT: case HLO_OP_TANH: case HLO_OP_WHILE:
  case HLO_OP_ACOS: case HLO_OP_ACOSH: case HLO_OP_ASIN: case HLO_OP_ASINH: case HLO_OP_ATAN:
  case HLO_OP_ATANH: case HLO_OP_CBRT: case HLO_OP_COSH: case HLO_OP_ERF: case HLO_OP_LOGISTIC:
  case HLO_OP_MULHI: case HLO_OP_POPCNT: case HLO_OP_RSQRT: case HLO_OP_SINH: case HLO_OP_SQRT:
  case HLO_OP_TAN: case HLO_OP_STOCHASTIC_CONVERT:
    return true;
  case HLO_OP_AFTER_ALL: case HLO_OP_ALL_GATHER: case HLO_OP_ALL_GATHER_DONE: case HLO_OP_ALL_GATHER_START:
  case HLO_OP_ALL_REDUCE_DONE: case HLO_OP_ALL_REDUCE_START: case HLO_OP_ASYNC_DONE: case HLO_OP_ASYNC_START:
  case HLO_OP_ASYNC_UPDATE: case HLO_OP_BATCH_NORM_GRAD: case HLO_OP_BATCH_NORM_INFERENCE:
  case HLO_OP_BATCH_NORM_TRAINING: case HLO_OP_BITCAST: case HLO_OP_BROADCAST: case HLO_OP_CALL:
  case HLO_OP_CHOLESKY: case HLO_OP_COLLECTIVE_BROADCAST: case HLO_OP_COLLECTIVE_PERMUTE_DONE:
  case HLO_OP_COLLECTIVE_PERMUTE_START: case HLO_OP_COLLECTIVE_REDUCE: case HLO_OP_CONSTANT:
  case HLO_OP_CONVOLUTION: case HLO_OP_COPY: case HLO_OP_COPY_DONE: case HLO_OP_COPY_START:
  case HLO_OP_CUSTOM_CALL: case HLO_OP_DOMAIN: case HLO_OP_DOT: case HLO_OP_DYNAMIC_RESHAPE:
  case HLO_OP_FUSION: case HLO_OP_GATHER: case HLO_OP_GET_DIMENSION_SIZE: case HLO_OP_GET_TUPLE_ELEMENT:
  case HLO_OP_INFEED: case HLO_OP_IOTA: case HLO_OP_OPTIMIZATION_BARRIER: case HLO_OP_OUTFEED:
  case HLO_OP_PARAMETER: case HLO_OP_PARTITION_ID: case HLO_OP_RAGGED_ALL_TO_ALL: case HLO_OP_RAGGED_DOT:
  case HLO_OP_RECV: case HLO_OP_RECV_DONE: case HLO_OP_REDUCE: case HLO_OP_REDUCE_SCATTER:
  case HLO_OP_REPLICA_ID: case HLO_OP_RESHAPE: case HLO_OP_RNG: case HLO_OP_RNG_BIT_GENERATOR:
  case HLO_OP_RNG_GET_AND_UPDATE_STATE: case HLO_OP_SCALED_DOT: case HLO_OP_SCAN: case HLO_OP_SEND:
  case HLO_OP_SEND_DONE: case HLO_OP_SET_DIMENSION_SIZE: case HLO_OP_SHUFFLE: case HLO_OP_TOPK:
  case HLO_OP_TRANSPOSE: case HLO_OP_TRIANGULAR_SOLVE: case HLO_OP_TUPLE: case HLO_OP_COUNT:
    return false;
  }
  return false;
}

static void check_mixed_precision(vctx *v, const hlo_instruction *in) {
  if (v->o.allow_mixed_precision || mixed_precision_exempt(in->op)) return;
  hlo_type fp = HLO_TYPE_COUNT;
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *s = &in->operands[i]->shape;
    int n = s->type == HLO_TUPLE ? s->ntuple : 1;
    for (int k = 0; k < n; k++) {
      const hlo_shape *e = s->type == HLO_TUPLE ? &s->tuple[k] : s;
      if (!hlo_type_is_float(e->type)) continue;
      if (fp == HLO_TYPE_COUNT) fp = e->type;
      else if (fp != e->type) {
        vx_fail(v, in, "Seen floating point types of different precisions in %%%s (%s and %s), but mixed precision is disallowed.",
                in->name, hlo_type_name(fp), hlo_type_name(e->type));
        return;
      }
    }
  }
}

static void check_layout_change(vctx *v, const hlo_instruction *in) {
  if (!v->o.layout_sensitive || !keeps_layout(in->op) || !hlo_shape_is_array(&in->shape)) return;
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *s = &in->operands[i]->shape;
    if (!hlo_shape_is_array(s) || s->rank != in->shape.rank) continue;
    if (!vx_layout_equal(s, &in->shape)) {
      vx_fail(v, in, "Instruction shouldn't change layouts: operand %d (%%%s) is %s but the result is %s.", i,
              in->operands[i]->name, vx_str_layout(v, s), vx_str_layout(v, &in->shape));
      return;
    }
  }
}

static void check_compare(vctx *v, const hlo_instruction *in) {
  const char *dir = hlo_instr_word(in, HLO_A_DIRECTION);
  static const char *const dirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  bool ok = false;
  for (int i = 0; dir && i < 6; i++) ok |= !strcmp(dir, dirs[i]);
  if (!ok) vx_fail(v, in, "compare needs direction=EQ, NE, GE, GT, LE or LT; got %s", dir ? dir : "none");
  const char *ty = hlo_instr_word(in, HLO_A_TYPE);
  if (!ty) return;
  hlo_type t = in->operands[0]->shape.type;
  hlo_type_kind k = hlo_type_kind_of(t);
  const char *want = NULL;
  if (k == HLO_KIND_COMPLEX) {
    if (strcmp(ty, "FLOAT")) want = "FLOAT";
  } else if (k == HLO_KIND_FLOAT) {
    if (strcmp(ty, "FLOAT") && strcmp(ty, "TOTALORDER")) want = "FLOAT or TOTALORDER";
  } else if (k == HLO_KIND_SINT) {
    if (strcmp(ty, "SIGNED")) want = "SIGNED";
  } else if (k == HLO_KIND_UINT || k == HLO_KIND_PRED) {
    if (strcmp(ty, "UNSIGNED")) want = "UNSIGNED";
  }
  if (want)
    vx_fail(v, in, "Expected comparison type %s. actual: %s, operand: %s", want, ty,
            vx_str(v, &in->operands[0]->shape));
}

static bool types_compatible(const vctx *v, hlo_type a, hlo_type b) {
  return a == b || (v->o.allow_mixed_precision && hlo_type_is_float(a) && hlo_type_is_float(b));
}

static void check_rng(vctx *v, const hlo_instruction *in) {
  if (in->noperands != 2) {
    vx_fail(v, in, "rng expects 2 operands, got %d.", in->noperands);
    return;
  }
  const hlo_shape *a = &in->operands[0]->shape, *b = &in->operands[1]->shape;
  if (!hlo_shape_is_scalar(a) || !hlo_shape_is_scalar(b)) {
    vx_fail(v, in, "Expected scalar types for the two operands of Rng instruction; got %s and %s.", vx_str(v, a),
            vx_str(v, b));
    return;
  }
  if (!hlo_shape_is_array(&in->shape) || !types_compatible(v, a->type, b->type) ||
      !types_compatible(v, a->type, in->shape.type)) {
    vx_fail(v, in, "Expected compatible element types for the result and the two operands of Rng instruction; got %s, %s and %s.",
            vx_str(v, &in->shape), vx_str(v, a), vx_str(v, b));
    return;
  }
  const char *dist = hlo_instr_word(in, HLO_A_DISTRIBUTION);
  hlo_type t = a->type;
  if (dist && !strcmp(dist, "rng_uniform")) {
    if (!hlo_type_is_float(t) && !hlo_type_is_int(t) && t != HLO_PRED)
      vx_fail(v, in, "Element type not supported. Expected element to be of floating point type, integral type or predicate type for RngUniform; got %s.",
              hlo_type_name(t));
  } else if (dist && !strcmp(dist, "rng_normal")) {
    if (!hlo_type_is_float(t))
      vx_fail(v, in, "Element type not supported. Expected element to be FloatingPointType for RngNormal; got %s.",
              hlo_type_name(t));
  } else {
    vx_fail(v, in, "rng needs distribution=rng_uniform or rng_normal; got %s", dist ? dist : "none");
  }
}

static void check_rng_bit_generator(vctx *v, const hlo_instruction *in) {
  const char *alg = hlo_instr_word(in, HLO_A_ALGORITHM);
  const hlo_shape *st = &in->operands[0]->shape;
  if (!hlo_shape_is_array(st) || st->rank != 1) return; /* reported by inference */
  if (alg && !strcmp(alg, "rng_three_fry") && st->dims[0] != 2)
    vx_fail(v, in, "rng_three_fry needs a state of 2 elements; got %s.", vx_str(v, st));
  else if (alg && !strcmp(alg, "rng_philox") && st->dims[0] != 2 && st->dims[0] != 3)
    vx_fail(v, in, "rng_philox needs a state of 2 or 3 elements; got %s.", vx_str(v, st));
  else if (alg && strcmp(alg, "rng_three_fry") && strcmp(alg, "rng_philox") && strcmp(alg, "rng_default"))
    vx_fail(v, in, "unknown rng-bit-generator algorithm %s", alg);
}

/* A *-done must consume its *-start, and a start must have one consumer. */
static void check_async_pair(vctx *v, const hlo_instruction *in, hlo_opcode start, hlo_opcode alt) {
  const hlo_instruction *op = in->operands[0];
  if (op->op != start && op->op != alt)
    vx_fail(v, in, "The operand of a %s instruction needs to be %s, found %s", hlo_opcode_name(in->op),
            hlo_opcode_name(start), hlo_opcode_name(op->op));
}

static void check_start_users(vctx *v, const hlo_instruction *in) {
  if (in->nusers != 1 && !(in->parent && in->parent->root == in && in->nusers == 0))
    vx_fail(v, in, "%s instruction requires one consumer, found %d", hlo_opcode_name(in->op), in->nusers);
}

static void check_replica_groups(vctx *v, const hlo_instruction *in, bool uniform) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_REPLICA_GROUPS);
  if (!a || a->kind != HLO_AK_REPLICA_GROUPS || a->u.groups->iota) return;
  const hlo_replica_groups *g = a->u.groups;
  for (int i = 0; i < g->ngroups; i++) {
    if (uniform && g->group_sizes[i] != g->group_sizes[0]) {
      vx_fail(v, in, "Replica groups expected to be of uniform size; group 0 has %d members, group %d has %d.",
              g->group_sizes[0], i, g->group_sizes[i]);
      return;
    }
    for (int k = 0; k < g->group_sizes[i]; k++) {
      int64_t id = g->groups[i][k];
      if (id < 0) {
        vx_fail(v, in, "Replica id %lld in replica_groups is negative.", (long long)id);
        return;
      }
      for (int j = 0; j <= i; j++)
        for (int q = 0; q < (j == i ? k : g->group_sizes[j]); q++)
          if (g->groups[j][q] == id) {
            vx_fail(v, in, "Replica %lld is repeated in instruction's replica-groups", (long long)id);
            return;
          }
    }
  }
}

static void check_source_target_pairs(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_SOURCE_TARGET_PAIRS);
  if (!a || a->kind != HLO_AK_PAIRS) return;
  int n = a->u.pairs.n;
  for (int i = 0; i < n; i++) {
    int64_t s = a->u.pairs.v[i][0], t = a->u.pairs.v[i][1];
    if (s < 0 || t < 0) {
      vx_fail(v, in, "Source-target pair {%lld,%lld} has a negative id.", (long long)s, (long long)t);
      return;
    }
    for (int j = 0; j < i; j++) {
      if (a->u.pairs.v[j][0] == s) {
        vx_fail(v, in, "Source %lld appears more than once in instruction's source-target pairs", (long long)s);
        return;
      }
      if (a->u.pairs.v[j][1] == t) {
        vx_fail(v, in, "Target %lld appears more than once in instruction's source-target pairs", (long long)t);
        return;
      }
    }
  }
}

static void check_composite(vctx *v, const hlo_instruction *in) {
  if (!hlo_instr_bool(in, HLO_A_IS_COMPOSITE, false)) return;
  const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
  if (!fa) {
    vx_fail(v, in, "A composite call op must have frontend attributes");
    return;
  }
  const char *t = fa->kind == HLO_AK_RAW ? fa->u.s : NULL;
  if (t && !strstr(t, "composite.name"))
    vx_fail(v, in, "A composite call op must have frontend attributes with key composite.name whose value is non-empty");
  if (t && !strstr(t, "composite.version"))
    vx_fail(v, in, "A composite call op must have frontend attributes with key composite.version");
}

static void check_bitcast(vctx *v, const hlo_instruction *in) {
  int64_t a, b;
  const hlo_shape *s = &in->operands[0]->shape;
  if (hlo_shape_bytes(&in->shape, &a) && hlo_shape_bytes(s, &b) && a != b)
    vx_fail(v, in, "Bitcast cannot have different shape sizes of output (%lld) and operand (%lld)", (long long)a,
            (long long)b);
}

static void check_custom_call(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OPERAND_LAYOUT_CONSTRAINTS);
  if (!a || a->kind != HLO_AK_SHAPES) return;
  if (a->u.shapes.n != in->noperands) {
    vx_fail(v, in, "Number of operand layout constraints (%d) must match the number of operands (%d).",
            a->u.shapes.n, in->noperands);
    return;
  }
  for (int i = 0; i < in->noperands; i++)
    if (!hlo_shape_xla_compatible(&a->u.shapes.v[i], &in->operands[i]->shape, false))
      vx_fail(v, in, "Operand %d shape %s is not compatible with its layout constraint %s.", i,
              vx_str(v, &in->operands[i]->shape), vx_str_layout(v, &a->u.shapes.v[i]));
}

static void check_dot_precision(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OPERAND_PRECISION);
  if (a && a->kind == HLO_AK_WORDS && a->u.words.n != 2 && a->u.words.n != 0)
    vx_fail(v, in, "operand_precision must have 2 entries; got %d.", a->u.words.n);
}

void hlo_verify_op(vctx *v, const hlo_instruction *in) {
  if (!v->o.allow_unbounded_dynamism && vx_has_unbounded(&in->shape))
    vx_fail(v, in, "Unbounded dynamism is disabled for instruction: %s", vx_str(v, &in->shape));
  check_mixed_precision(v, in);
  check_layout_change(v, in);
  switch (in->op) {
  case HLO_OP_COMPARE: check_compare(v, in); break;
  case HLO_OP_RNG: check_rng(v, in); break;
  case HLO_OP_RNG_BIT_GENERATOR: check_rng_bit_generator(v, in); break;
  case HLO_OP_COPY_DONE: check_async_pair(v, in, HLO_OP_COPY_START, HLO_OP_COPY_START); break;
  case HLO_OP_ALL_REDUCE_DONE: check_async_pair(v, in, HLO_OP_ALL_REDUCE_START, HLO_OP_ALL_REDUCE_START); break;
  case HLO_OP_ALL_GATHER_DONE: check_async_pair(v, in, HLO_OP_ALL_GATHER_START, HLO_OP_ALL_GATHER_START); break;
  case HLO_OP_COLLECTIVE_PERMUTE_DONE:
    check_async_pair(v, in, HLO_OP_COLLECTIVE_PERMUTE_START, HLO_OP_COLLECTIVE_PERMUTE_START);
    break;
  case HLO_OP_ASYNC_DONE: check_async_pair(v, in, HLO_OP_ASYNC_START, HLO_OP_ASYNC_UPDATE); break;
  case HLO_OP_ASYNC_UPDATE: check_async_pair(v, in, HLO_OP_ASYNC_START, HLO_OP_ASYNC_UPDATE); break;
  case HLO_OP_SEND_DONE: check_async_pair(v, in, HLO_OP_SEND, HLO_OP_SEND); break;
  case HLO_OP_RECV_DONE: check_async_pair(v, in, HLO_OP_RECV, HLO_OP_RECV); break;
  case HLO_OP_COPY_START: case HLO_OP_ALL_REDUCE_START: case HLO_OP_ALL_GATHER_START:
  case HLO_OP_COLLECTIVE_PERMUTE_START: case HLO_OP_ASYNC_START:
    check_start_users(v, in);
    check_replica_groups(v, in, false);
    check_source_target_pairs(v, in);
    break;
  case HLO_OP_COLLECTIVE_PERMUTE: check_source_target_pairs(v, in); break;
  case HLO_OP_ALL_GATHER: case HLO_OP_REDUCE_SCATTER: case HLO_OP_ALL_TO_ALL:
    check_replica_groups(v, in, true);
    break;
  case HLO_OP_ALL_REDUCE: case HLO_OP_COLLECTIVE_BROADCAST: case HLO_OP_COLLECTIVE_REDUCE:
  case HLO_OP_RAGGED_ALL_TO_ALL:
    check_replica_groups(v, in, false);
    break;
  case HLO_OP_CALL: check_composite(v, in); break;
  case HLO_OP_BITCAST: check_bitcast(v, in); break;
  case HLO_OP_CUSTOM_CALL: check_custom_call(v, in); break;
  case HLO_OP_DOT: case HLO_OP_CONVOLUTION: check_dot_precision(v, in); break;
  case HLO_OP_ABS: case HLO_OP_ACOS: case HLO_OP_ACOSH: case HLO_OP_ADD: case HLO_OP_ADD_DEPENDENCY:
  case HLO_OP_AFTER_ALL: case HLO_OP_AND: case HLO_OP_ASIN: case HLO_OP_ASINH: case HLO_OP_ATAN:
  case HLO_OP_ATAN2: case HLO_OP_ATANH: case HLO_OP_BATCH_NORM_GRAD: case HLO_OP_BATCH_NORM_INFERENCE:
  case HLO_OP_BATCH_NORM_TRAINING: case HLO_OP_BITCAST_CONVERT: case HLO_OP_BROADCAST: case HLO_OP_CBRT:
  case HLO_OP_CEIL: case HLO_OP_CHOLESKY: case HLO_OP_CLAMP: case HLO_OP_CLZ: case HLO_OP_COMPLEX:
  case HLO_OP_CONCATENATE: case HLO_OP_CONDITIONAL: case HLO_OP_CONSTANT: case HLO_OP_CONVERT:
  case HLO_OP_COPY: case HLO_OP_COS: case HLO_OP_COSH: case HLO_OP_DIVIDE: case HLO_OP_DOMAIN:
  case HLO_OP_DYNAMIC_RESHAPE: case HLO_OP_DYNAMIC_SLICE: case HLO_OP_DYNAMIC_UPDATE_SLICE: case HLO_OP_ERF:
  case HLO_OP_EXP: case HLO_OP_EXPM1: case HLO_OP_FFT: case HLO_OP_FLOOR: case HLO_OP_FUSION:
  case HLO_OP_GATHER: case HLO_OP_GET_DIMENSION_SIZE: case HLO_OP_GET_TUPLE_ELEMENT: case HLO_OP_IMAG:
  case HLO_OP_INFEED: case HLO_OP_IOTA: case HLO_OP_IS_FINITE: case HLO_OP_LOG: case HLO_OP_LOG1P:
  case HLO_OP_LOGISTIC: case HLO_OP_MAP: case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM: case HLO_OP_MULHI:
  case HLO_OP_MULTIPLY: case HLO_OP_NEGATE: case HLO_OP_NOT: case HLO_OP_OPTIMIZATION_BARRIER: case HLO_OP_OR:
  case HLO_OP_OUTFEED: case HLO_OP_PAD: case HLO_OP_PARAMETER: case HLO_OP_PARTITION_ID: case HLO_OP_POPCNT:
  case HLO_OP_POWER: case HLO_OP_RAGGED_DOT: case HLO_OP_REAL: case HLO_OP_RECV: case HLO_OP_REDUCE:
  case HLO_OP_REDUCE_PRECISION: case HLO_OP_REDUCE_WINDOW: case HLO_OP_REMAINDER: case HLO_OP_REPLICA_ID:
  case HLO_OP_RESHAPE: case HLO_OP_REVERSE: case HLO_OP_RNG_GET_AND_UPDATE_STATE:
  case HLO_OP_ROUND_NEAREST_AFZ: case HLO_OP_ROUND_NEAREST_EVEN: case HLO_OP_RSQRT: case HLO_OP_SCALED_DOT:
  case HLO_OP_SCAN: case HLO_OP_SCATTER: case HLO_OP_SELECT: case HLO_OP_SELECT_AND_SCATTER: case HLO_OP_SEND:
  case HLO_OP_SET_DIMENSION_SIZE: case HLO_OP_SHIFT_LEFT: case HLO_OP_SHIFT_RIGHT_ARITHMETIC:
  case HLO_OP_SHIFT_RIGHT_LOGICAL: case HLO_OP_SHUFFLE: case HLO_OP_SIGN: case HLO_OP_SIN: case HLO_OP_SINH:
  case HLO_OP_SLICE: case HLO_OP_SORT: case HLO_OP_SQRT: case HLO_OP_STOCHASTIC_CONVERT: case HLO_OP_SUBTRACT:
  case HLO_OP_TAN: case HLO_OP_TANH: case HLO_OP_TOPK: case HLO_OP_TRANSPOSE: case HLO_OP_TRIANGULAR_SOLVE:
  case HLO_OP_TUPLE: case HLO_OP_WHILE: case HLO_OP_XOR: case HLO_OP_COUNT:
    break;
  }
}
