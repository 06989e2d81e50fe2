/* fuse_policy.c - the per-opcode fusion policy: what role an instruction
 * may play in a fusion (loop producer, reduction root, dot/convolution of an
 * output fusion, never) and whether it is cheap enough to be recomputed. */
#include "fuse/fuse_internal.h"

/* The fusion role of every opcode: loop producer (elementwise and data
 * movement), reduction root, dot/convolution of an output fusion, an existing
 * fusion, never fused because of effects / communication / control flow
 * (FC_SIDE), or not fusible here (FC_NONE: parameters, tuples, ops with their
 * own kernels).  .costly marks ops too slow to recompute in every consumer
 * although their class would allow it. */
typedef struct fuse_rule {
  fuse_class cls;
  bool costly;
} fuse_rule;

static const fuse_rule RULES[HLO_OP_COUNT] = {
    [HLO_OP_ABS] = {.cls = FC_LOOP},
    [HLO_OP_ACOS] = {.cls = FC_LOOP},
    [HLO_OP_ACOSH] = {.cls = FC_LOOP},
    [HLO_OP_ADD] = {.cls = FC_LOOP},
    [HLO_OP_ADD_DEPENDENCY] = {.cls = FC_SIDE},
    [HLO_OP_AFTER_ALL] = {.cls = FC_SIDE},
    [HLO_OP_ALL_GATHER] = {.cls = FC_SIDE},
    [HLO_OP_ALL_GATHER_DONE] = {.cls = FC_SIDE},
    [HLO_OP_ALL_GATHER_START] = {.cls = FC_SIDE},
    [HLO_OP_ALL_REDUCE] = {.cls = FC_SIDE},
    [HLO_OP_ALL_REDUCE_DONE] = {.cls = FC_SIDE},
    [HLO_OP_ALL_REDUCE_START] = {.cls = FC_SIDE},
    [HLO_OP_ALL_TO_ALL] = {.cls = FC_SIDE},
    [HLO_OP_AND] = {.cls = FC_LOOP},
    [HLO_OP_ASIN] = {.cls = FC_LOOP},
    [HLO_OP_ASINH] = {.cls = FC_LOOP},
    [HLO_OP_ASYNC_DONE] = {.cls = FC_SIDE},
    [HLO_OP_ASYNC_START] = {.cls = FC_SIDE},
    [HLO_OP_ASYNC_UPDATE] = {.cls = FC_SIDE},
    [HLO_OP_ATAN] = {.cls = FC_LOOP},
    [HLO_OP_ATAN2] = {.cls = FC_LOOP},
    [HLO_OP_ATANH] = {.cls = FC_LOOP},
    [HLO_OP_BATCH_NORM_GRAD] = {.cls = FC_NONE},
    [HLO_OP_BATCH_NORM_INFERENCE] = {.cls = FC_NONE},
    [HLO_OP_BATCH_NORM_TRAINING] = {.cls = FC_NONE},
    [HLO_OP_BITCAST] = {.cls = FC_LOOP},
    [HLO_OP_BITCAST_CONVERT] = {.cls = FC_NONE},
    [HLO_OP_BROADCAST] = {.cls = FC_LOOP},
    [HLO_OP_CALL] = {.cls = FC_SIDE},
    [HLO_OP_CBRT] = {.cls = FC_LOOP},
    [HLO_OP_CEIL] = {.cls = FC_LOOP},
    [HLO_OP_CHOLESKY] = {.cls = FC_NONE},
    [HLO_OP_CLAMP] = {.cls = FC_LOOP},
    [HLO_OP_CLZ] = {.cls = FC_LOOP},
    [HLO_OP_COLLECTIVE_BROADCAST] = {.cls = FC_SIDE},
    [HLO_OP_COLLECTIVE_PERMUTE] = {.cls = FC_SIDE},
    [HLO_OP_COLLECTIVE_PERMUTE_DONE] = {.cls = FC_SIDE},
    [HLO_OP_COLLECTIVE_PERMUTE_START] = {.cls = FC_SIDE},
    [HLO_OP_COLLECTIVE_REDUCE] = {.cls = FC_SIDE},
    [HLO_OP_COMPARE] = {.cls = FC_LOOP},
    [HLO_OP_COMPLEX] = {.cls = FC_LOOP},
    [HLO_OP_CONCATENATE] = {.cls = FC_LOOP},
    [HLO_OP_CONDITIONAL] = {.cls = FC_SIDE},
    [HLO_OP_CONSTANT] = {.cls = FC_LOOP},
    [HLO_OP_CONVERT] = {.cls = FC_LOOP},
    [HLO_OP_CONVOLUTION] = {.cls = FC_MATMUL},
    [HLO_OP_COPY] = {.cls = FC_LOOP},
    [HLO_OP_COPY_DONE] = {.cls = FC_SIDE},
    [HLO_OP_COPY_START] = {.cls = FC_SIDE},
    [HLO_OP_COS] = {.cls = FC_LOOP},
    [HLO_OP_COSH] = {.cls = FC_LOOP},
    [HLO_OP_CUSTOM_CALL] = {.cls = FC_SIDE},
    [HLO_OP_DIVIDE] = {.cls = FC_LOOP, .costly = true},
    [HLO_OP_DOMAIN] = {.cls = FC_SIDE},
    [HLO_OP_DOT] = {.cls = FC_MATMUL},
    [HLO_OP_DYNAMIC_RESHAPE] = {.cls = FC_NONE},
    [HLO_OP_DYNAMIC_SLICE] = {.cls = FC_LOOP, .costly = true},
    [HLO_OP_DYNAMIC_UPDATE_SLICE] = {.cls = FC_NONE},
    [HLO_OP_ERF] = {.cls = FC_LOOP},
    [HLO_OP_EXP] = {.cls = FC_LOOP},
    [HLO_OP_EXPM1] = {.cls = FC_LOOP},
    [HLO_OP_FFT] = {.cls = FC_NONE},
    [HLO_OP_FLOOR] = {.cls = FC_LOOP},
    [HLO_OP_FUSION] = {.cls = FC_FUSION},
    [HLO_OP_GATHER] = {.cls = FC_NONE},
    [HLO_OP_GET_DIMENSION_SIZE] = {.cls = FC_NONE},
    [HLO_OP_GET_TUPLE_ELEMENT] = {.cls = FC_NONE},
    [HLO_OP_IMAG] = {.cls = FC_LOOP},
    [HLO_OP_INFEED] = {.cls = FC_SIDE},
    [HLO_OP_IOTA] = {.cls = FC_LOOP},
    [HLO_OP_IS_FINITE] = {.cls = FC_LOOP},
    [HLO_OP_LOG] = {.cls = FC_LOOP},
    [HLO_OP_LOG1P] = {.cls = FC_LOOP},
    [HLO_OP_LOGISTIC] = {.cls = FC_LOOP},
    [HLO_OP_MAP] = {.cls = FC_NONE},
    [HLO_OP_MAXIMUM] = {.cls = FC_LOOP},
    [HLO_OP_MINIMUM] = {.cls = FC_LOOP},
    [HLO_OP_MULHI] = {.cls = FC_LOOP},
    [HLO_OP_MULTIPLY] = {.cls = FC_LOOP},
    [HLO_OP_NEGATE] = {.cls = FC_LOOP},
    [HLO_OP_NOT] = {.cls = FC_LOOP},
    [HLO_OP_OPTIMIZATION_BARRIER] = {.cls = FC_SIDE},
    [HLO_OP_OR] = {.cls = FC_LOOP},
    [HLO_OP_OUTFEED] = {.cls = FC_SIDE},
    [HLO_OP_PAD] = {.cls = FC_LOOP},
    [HLO_OP_PARAMETER] = {.cls = FC_NONE},
    [HLO_OP_PARTITION_ID] = {.cls = FC_SIDE},
    [HLO_OP_POPCNT] = {.cls = FC_LOOP},
    [HLO_OP_POWER] = {.cls = FC_LOOP},
    [HLO_OP_RAGGED_ALL_TO_ALL] = {.cls = FC_SIDE},
    [HLO_OP_RAGGED_DOT] = {.cls = FC_NONE},
    [HLO_OP_REAL] = {.cls = FC_LOOP},
    [HLO_OP_RECV] = {.cls = FC_SIDE},
    [HLO_OP_RECV_DONE] = {.cls = FC_SIDE},
    [HLO_OP_REDUCE] = {.cls = FC_REDUCE},
    [HLO_OP_REDUCE_PRECISION] = {.cls = FC_LOOP},
    [HLO_OP_REDUCE_SCATTER] = {.cls = FC_SIDE},
    [HLO_OP_REDUCE_WINDOW] = {.cls = FC_REDUCE},
    [HLO_OP_REMAINDER] = {.cls = FC_LOOP, .costly = true},
    [HLO_OP_REPLICA_ID] = {.cls = FC_SIDE},
    [HLO_OP_RESHAPE] = {.cls = FC_LOOP},
    [HLO_OP_REVERSE] = {.cls = FC_LOOP},
    [HLO_OP_RNG] = {.cls = FC_SIDE},
    [HLO_OP_RNG_BIT_GENERATOR] = {.cls = FC_SIDE},
    [HLO_OP_RNG_GET_AND_UPDATE_STATE] = {.cls = FC_SIDE},
    [HLO_OP_ROUND_NEAREST_AFZ] = {.cls = FC_LOOP},
    [HLO_OP_ROUND_NEAREST_EVEN] = {.cls = FC_LOOP},
    [HLO_OP_RSQRT] = {.cls = FC_LOOP},
    [HLO_OP_SCALED_DOT] = {.cls = FC_NONE},
    [HLO_OP_SCAN] = {.cls = FC_NONE},
    [HLO_OP_SCATTER] = {.cls = FC_NONE},
    [HLO_OP_SELECT] = {.cls = FC_LOOP},
    [HLO_OP_SELECT_AND_SCATTER] = {.cls = FC_NONE},
    [HLO_OP_SEND] = {.cls = FC_SIDE},
    [HLO_OP_SEND_DONE] = {.cls = FC_SIDE},
    [HLO_OP_SET_DIMENSION_SIZE] = {.cls = FC_NONE},
    [HLO_OP_SHIFT_LEFT] = {.cls = FC_LOOP},
    [HLO_OP_SHIFT_RIGHT_ARITHMETIC] = {.cls = FC_LOOP},
    [HLO_OP_SHIFT_RIGHT_LOGICAL] = {.cls = FC_LOOP},
    [HLO_OP_SHUFFLE] = {.cls = FC_NONE},
    [HLO_OP_SIGN] = {.cls = FC_LOOP},
    [HLO_OP_SIN] = {.cls = FC_LOOP},
    [HLO_OP_SINH] = {.cls = FC_LOOP},
    [HLO_OP_SLICE] = {.cls = FC_LOOP},
    [HLO_OP_SORT] = {.cls = FC_NONE},
    [HLO_OP_SQRT] = {.cls = FC_LOOP},
    [HLO_OP_STOCHASTIC_CONVERT] = {.cls = FC_NONE},
    [HLO_OP_SUBTRACT] = {.cls = FC_LOOP},
    [HLO_OP_TAN] = {.cls = FC_LOOP},
    [HLO_OP_TANH] = {.cls = FC_LOOP},
    [HLO_OP_TOPK] = {.cls = FC_NONE},
    [HLO_OP_TRANSPOSE] = {.cls = FC_LOOP},
    [HLO_OP_TRIANGULAR_SOLVE] = {.cls = FC_NONE},
    [HLO_OP_TUPLE] = {.cls = FC_NONE},
    [HLO_OP_WHILE] = {.cls = FC_SIDE},
    [HLO_OP_XOR] = {.cls = FC_LOOP},
};

fuse_class fuse_classify(const hlo_instruction *in) {
  fuse_class c = (unsigned)in->op < HLO_OP_COUNT ? RULES[in->op].cls : FC_NONE;
  if (c == FC_NONE || c == FC_SIDE) return c;
  return hlo_shape_is_array(&in->shape) ? c : FC_NONE; /* tuple-shaped: not fused */
}

bool fuse_cheap(const hlo_instruction *in) {
  unsigned f = hlo_opcode_flags(in->op);
  if (f & (HLO_F_SIDE_EFFECT | HLO_F_COLLECTIVE | HLO_F_ASYNC)) return false;
  if (f & HLO_F_ELEMENTWISE) {
    if (f & HLO_F_TRANSCENDENTAL) return false;
    return !RULES[in->op].costly; /* divide, remainder: long latency (XLA: expensive) */
  }
  switch (fuse_classify(in)) {
  case FC_LOOP:
    /* pure data movement; a constant only when small (its literal is copied) */
    if (in->op == HLO_OP_CONSTANT) {
      int64_t n;
      return hlo_shape_elements(&in->shape, &n) && n <= 16;
    }
    return !RULES[in->op].costly; /* dynamic-slice */
  case FC_NONE: case FC_SIDE: case FC_REDUCE: case FC_MATMUL: case FC_FUSION:
    return false;
  }
  return false;
}

const char *hlo_fuse_verdict_name(hlo_fuse_verdict v) {
  switch (v) {
  case HLO_FUSE_FUSED: return "fused";
  case HLO_FUSE_DUPLICATED: return "duplicated";
  case HLO_FUSE_MULTI_OUTPUT: return "multi-output";
  case HLO_FUSE_SIBLING: return "sibling";
  case HLO_FUSE_REJ_DUPLICATION: return "duplication";
  case HLO_FUSE_REJ_UTILIZATION: return "utilization";
  case HLO_FUSE_REJ_SIZE: return "size";
  case HLO_FUSE_REJ_SIDE_EFFECT: return "side effect";
  case HLO_FUSE_REJ_KIND: return "kind";
  case HLO_FUSE_REJ_CYCLE: return "cycle";
  }
  return "?";
}
