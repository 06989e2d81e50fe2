/* fuse_policy.c - the per-opcode fusion policy: what role an instruction
 * may play in a fusion (loop producer, reduction root, dot/convolution of an
 * output fusion, never) and whether it is cheap enough to be recomputed. */
#include "fuse/fuse_internal.h"

fuse_class fuse_classify(const hlo_instruction *in) {
  switch (in->op) {
  /* elementwise and data movement: loop fusion */
  case HLO_OP_ABS: case HLO_OP_ACOS: case HLO_OP_ACOSH: case HLO_OP_ADD: case HLO_OP_AND:
  case HLO_OP_ASIN: case HLO_OP_ASINH: case HLO_OP_ATAN: case HLO_OP_ATAN2: case HLO_OP_ATANH:
  case HLO_OP_CBRT: case HLO_OP_CEIL: case HLO_OP_CLAMP: case HLO_OP_CLZ: case HLO_OP_COMPARE:
  case HLO_OP_COMPLEX: case HLO_OP_CONVERT: case HLO_OP_COPY: case HLO_OP_COS: case HLO_OP_COSH:
  case HLO_OP_DIVIDE: case HLO_OP_ERF: case HLO_OP_EXP: case HLO_OP_EXPM1: case HLO_OP_FLOOR:
  case HLO_OP_IMAG: case HLO_OP_IS_FINITE: case HLO_OP_LOG: case HLO_OP_LOG1P:
  case HLO_OP_LOGISTIC: case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM: case HLO_OP_MULHI:
  case HLO_OP_MULTIPLY: case HLO_OP_NEGATE: case HLO_OP_NOT: case HLO_OP_OR: case HLO_OP_POPCNT:
  case HLO_OP_POWER: case HLO_OP_REAL: case HLO_OP_REDUCE_PRECISION: case HLO_OP_REMAINDER:
  case HLO_OP_ROUND_NEAREST_AFZ: case HLO_OP_ROUND_NEAREST_EVEN: case HLO_OP_RSQRT:
  case HLO_OP_SELECT: case HLO_OP_SHIFT_LEFT: case HLO_OP_SHIFT_RIGHT_ARITHMETIC:
  case HLO_OP_SHIFT_RIGHT_LOGICAL: case HLO_OP_SIGN: case HLO_OP_SIN: case HLO_OP_SINH:
  case HLO_OP_SQRT: case HLO_OP_SUBTRACT: case HLO_OP_TAN: case HLO_OP_TANH: case HLO_OP_XOR:
  case HLO_OP_BITCAST: case HLO_OP_BROADCAST: case HLO_OP_CONCATENATE: case HLO_OP_CONSTANT:
  case HLO_OP_IOTA: case HLO_OP_PAD: case HLO_OP_RESHAPE: case HLO_OP_REVERSE: case HLO_OP_SLICE:
  case HLO_OP_TRANSPOSE: case HLO_OP_DYNAMIC_SLICE:
    return hlo_shape_is_array(&in->shape) ? FC_LOOP : FC_NONE;
  case HLO_OP_REDUCE: case HLO_OP_REDUCE_WINDOW:
    return hlo_shape_is_array(&in->shape) ? FC_REDUCE : FC_NONE;
  case HLO_OP_DOT: case HLO_OP_CONVOLUTION:
    return hlo_shape_is_array(&in->shape) ? FC_MATMUL : FC_NONE;
  case HLO_OP_FUSION:
    return hlo_shape_is_array(&in->shape) ? FC_FUSION : FC_NONE;
  /* effects, communication, control flow and opaque calls: never fused */
  case HLO_OP_ADD_DEPENDENCY: case HLO_OP_AFTER_ALL: case HLO_OP_ALL_GATHER:
  case HLO_OP_ALL_GATHER_DONE: case HLO_OP_ALL_GATHER_START: case HLO_OP_ALL_REDUCE:
  case HLO_OP_ALL_REDUCE_DONE: case HLO_OP_ALL_REDUCE_START: case HLO_OP_ALL_TO_ALL:
  case HLO_OP_ASYNC_DONE: case HLO_OP_ASYNC_START: case HLO_OP_ASYNC_UPDATE: case HLO_OP_CALL:
  case HLO_OP_COLLECTIVE_BROADCAST: case HLO_OP_COLLECTIVE_PERMUTE:
  case HLO_OP_COLLECTIVE_PERMUTE_DONE: case HLO_OP_COLLECTIVE_PERMUTE_START:
  case HLO_OP_COLLECTIVE_REDUCE: case HLO_OP_CONDITIONAL: case HLO_OP_COPY_DONE:
  case HLO_OP_COPY_START: case HLO_OP_CUSTOM_CALL: case HLO_OP_DOMAIN: case HLO_OP_INFEED:
  case HLO_OP_OPTIMIZATION_BARRIER: case HLO_OP_OUTFEED: case HLO_OP_PARTITION_ID:
  case HLO_OP_RAGGED_ALL_TO_ALL: case HLO_OP_RECV: case HLO_OP_RECV_DONE:
  case HLO_OP_REDUCE_SCATTER: case HLO_OP_REPLICA_ID: case HLO_OP_RNG:
  case HLO_OP_RNG_BIT_GENERATOR: case HLO_OP_RNG_GET_AND_UPDATE_STATE: case HLO_OP_SEND:
  case HLO_OP_SEND_DONE: case HLO_OP_WHILE:
    return FC_SIDE;
  /* not fusible here: parameters, tuples, ops with their own kernels */
  case HLO_OP_BATCH_NORM_GRAD: case HLO_OP_BATCH_NORM_INFERENCE: case HLO_OP_BATCH_NORM_TRAINING:
  case HLO_OP_BITCAST_CONVERT: case HLO_OP_CHOLESKY: case HLO_OP_DYNAMIC_RESHAPE:
  case HLO_OP_DYNAMIC_UPDATE_SLICE: case HLO_OP_FFT: case HLO_OP_GATHER:
  case HLO_OP_GET_DIMENSION_SIZE: case HLO_OP_GET_TUPLE_ELEMENT: case HLO_OP_MAP:
  case HLO_OP_PARAMETER: case HLO_OP_RAGGED_DOT: case HLO_OP_SCALED_DOT: case HLO_OP_SCAN:
  case HLO_OP_SCATTER: case HLO_OP_SELECT_AND_SCATTER: case HLO_OP_SET_DIMENSION_SIZE:
  case HLO_OP_SHUFFLE: case HLO_OP_SORT: case HLO_OP_STOCHASTIC_CONVERT: case HLO_OP_TOPK: case HLO_OP_TRIANGULAR_SOLVE:
  case HLO_OP_TUPLE: case HLO_OP_COUNT:
    return FC_NONE;
  }
  return FC_NONE;
}

bool fuse_cheap(const hlo_instruction *in) {
  unsigned f = hlo_opcode_flags(in->op);
  if (f & (HLO_F_SIDE_EFFECT | HLO_F_COLLECTIVE | HLO_F_ASYNC)) return false;
  if (f & HLO_F_ELEMENTWISE) {
    if (f & HLO_F_TRANSCENDENTAL) return false;
    /* division is a long-latency operation (XLA treats it as expensive) */
    return in->op != HLO_OP_DIVIDE && in->op != HLO_OP_REMAINDER;
  }
  switch (fuse_classify(in)) {
  case FC_LOOP:
    /* pure data movement; a constant only when small (its literal is copied) */
    if (in->op == HLO_OP_CONSTANT) {
      int64_t n;
      return hlo_shape_elements(&in->shape, &n) && n <= 16;
    }
    return in->op != HLO_OP_DYNAMIC_SLICE;
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
