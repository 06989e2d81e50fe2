/* infer.c - hlo_infer_shape: operand-count checks, then one exhaustive switch
 * over the opcodes that sends each op to its group's rule. */
#include <limits.h>
#include <string.h>

#include "infer_internal.h"

static int dispatch(sctx *c) {
  switch (c->in->op) {
  case HLO_OP_ABS: case HLO_OP_ACOS: case HLO_OP_ACOSH: case HLO_OP_ASIN: case HLO_OP_ASINH: case HLO_OP_ATAN:
  case HLO_OP_ATANH: case HLO_OP_CBRT: case HLO_OP_CEIL: case HLO_OP_CLZ: case HLO_OP_COPY: case HLO_OP_COS:
  case HLO_OP_COSH: case HLO_OP_ERF: case HLO_OP_EXP: case HLO_OP_EXPM1: case HLO_OP_FLOOR: case HLO_OP_IMAG:
  case HLO_OP_IS_FINITE: case HLO_OP_LOG: case HLO_OP_LOG1P: case HLO_OP_LOGISTIC: case HLO_OP_NEGATE:
  case HLO_OP_NOT: case HLO_OP_POPCNT: case HLO_OP_REAL: case HLO_OP_ROUND_NEAREST_AFZ:
  case HLO_OP_ROUND_NEAREST_EVEN: case HLO_OP_RSQRT: case HLO_OP_SIGN: case HLO_OP_SIN: case HLO_OP_SINH:
  case HLO_OP_SQRT: case HLO_OP_TAN: case HLO_OP_TANH:
    return hlo_shape_infer_unary(c);
  case HLO_OP_ADD: case HLO_OP_AND: case HLO_OP_ATAN2: case HLO_OP_COMPLEX: case HLO_OP_DIVIDE:
  case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM: case HLO_OP_MULHI: case HLO_OP_MULTIPLY: case HLO_OP_OR:
  case HLO_OP_POWER: case HLO_OP_REMAINDER: case HLO_OP_SHIFT_LEFT: case HLO_OP_SHIFT_RIGHT_ARITHMETIC:
  case HLO_OP_SHIFT_RIGHT_LOGICAL: case HLO_OP_SUBTRACT: case HLO_OP_XOR:
    return hlo_shape_infer_binary(c);
  case HLO_OP_COMPARE: return hlo_shape_infer_compare(c);
  case HLO_OP_SELECT: return hlo_shape_infer_select(c);
  case HLO_OP_CLAMP: return hlo_shape_infer_clamp(c);
  case HLO_OP_CONVERT: return hlo_shape_infer_convert(c);
  case HLO_OP_BITCAST_CONVERT: return hlo_shape_infer_bitcast_convert(c);
  case HLO_OP_STOCHASTIC_CONVERT: return hlo_shape_infer_stochastic_convert(c);
  case HLO_OP_REDUCE_PRECISION: return hlo_shape_infer_reduce_precision(c);
  case HLO_OP_RESHAPE: return hlo_shape_infer_reshape(c);
  case HLO_OP_DYNAMIC_RESHAPE: return hlo_shape_infer_dynamic_reshape(c);
  case HLO_OP_TRANSPOSE: return hlo_shape_infer_transpose(c);
  case HLO_OP_BROADCAST: return hlo_shape_infer_broadcast(c);
  case HLO_OP_SLICE: return hlo_shape_infer_slice(c);
  case HLO_OP_DYNAMIC_SLICE: return hlo_shape_infer_dynamic_slice(c);
  case HLO_OP_DYNAMIC_UPDATE_SLICE: return hlo_shape_infer_dynamic_update_slice(c);
  case HLO_OP_PAD: return hlo_shape_infer_pad(c);
  case HLO_OP_CONCATENATE: return hlo_shape_infer_concatenate(c);
  case HLO_OP_REVERSE: return hlo_shape_infer_reverse(c);
  case HLO_OP_IOTA: return hlo_shape_infer_iota(c);
  case HLO_OP_GATHER: return hlo_shape_infer_gather(c);
  case HLO_OP_SCATTER: return hlo_shape_infer_scatter(c);
  case HLO_OP_REDUCE: return hlo_shape_infer_reduce(c);
  case HLO_OP_REDUCE_WINDOW: return hlo_shape_infer_reduce_window(c);
  case HLO_OP_SELECT_AND_SCATTER: return hlo_shape_infer_select_and_scatter(c);
  case HLO_OP_SORT: return hlo_shape_infer_sort(c);
  case HLO_OP_TOPK: return hlo_shape_infer_topk(c);
  case HLO_OP_BATCH_NORM_GRAD: case HLO_OP_BATCH_NORM_INFERENCE: case HLO_OP_BATCH_NORM_TRAINING:
    return hlo_shape_infer_batch_norm(c);
  case HLO_OP_DOT: return hlo_shape_infer_dot(c);
  case HLO_OP_RAGGED_DOT: return hlo_shape_infer_ragged_dot(c);
  case HLO_OP_SCALED_DOT: return hlo_shape_infer_scaled_dot(c);
  case HLO_OP_CONVOLUTION: return hlo_shape_infer_convolution(c);
  case HLO_OP_FFT: return hlo_shape_infer_fft(c);
  case HLO_OP_TRIANGULAR_SOLVE: return hlo_shape_infer_triangular_solve(c);
  case HLO_OP_CHOLESKY: return hlo_shape_infer_cholesky(c);
  case HLO_OP_ALL_GATHER: case HLO_OP_ALL_GATHER_DONE: case HLO_OP_ALL_GATHER_START: case HLO_OP_ALL_REDUCE:
  case HLO_OP_ALL_REDUCE_DONE: case HLO_OP_ALL_REDUCE_START: case HLO_OP_ALL_TO_ALL:
  case HLO_OP_COLLECTIVE_BROADCAST: case HLO_OP_COLLECTIVE_PERMUTE: case HLO_OP_COLLECTIVE_PERMUTE_DONE:
  case HLO_OP_COLLECTIVE_PERMUTE_START: case HLO_OP_COLLECTIVE_REDUCE: case HLO_OP_RAGGED_ALL_TO_ALL:
  case HLO_OP_REDUCE_SCATTER: case HLO_OP_SEND: case HLO_OP_SEND_DONE: case HLO_OP_RECV: case HLO_OP_RECV_DONE:
  case HLO_OP_INFEED: case HLO_OP_OUTFEED: case HLO_OP_AFTER_ALL: case HLO_OP_COPY_START: case HLO_OP_COPY_DONE:
  case HLO_OP_OPTIMIZATION_BARRIER: case HLO_OP_DOMAIN:
    return hlo_shape_infer_collective(c);
  case HLO_OP_ASYNC_START: case HLO_OP_ASYNC_UPDATE: case HLO_OP_ASYNC_DONE:
    return hlo_shape_infer_async(c);
  case HLO_OP_WHILE: case HLO_OP_CONDITIONAL: case HLO_OP_CALL: case HLO_OP_MAP: case HLO_OP_FUSION:
    return hlo_shape_infer_control(c);
  case HLO_OP_PARAMETER: case HLO_OP_CONSTANT: case HLO_OP_TUPLE: case HLO_OP_GET_TUPLE_ELEMENT:
  case HLO_OP_GET_DIMENSION_SIZE: case HLO_OP_SET_DIMENSION_SIZE: case HLO_OP_ADD_DEPENDENCY:
  case HLO_OP_REPLICA_ID: case HLO_OP_PARTITION_ID: case HLO_OP_RNG_GET_AND_UPDATE_STATE:
  case HLO_OP_RNG_BIT_GENERATOR: case HLO_OP_CUSTOM_CALL: case HLO_OP_BITCAST: case HLO_OP_SCAN:
  case HLO_OP_SHUFFLE: case HLO_OP_RNG:
    return hlo_shape_infer_misc(c);
  case HLO_OP_COUNT:
    break;
  }
  return sx_fail(c, "unknown opcode %d", (int)c->in->op);
}

/* Operand counts the rules rely on, where the opcode table says "variadic"
 * or to restate it; {0, 0} entries fall back to the table's arity. */
typedef struct range { int lo, hi; } range;
#define ANY INT_MAX
static const range RANGES[HLO_OP_COUNT] = {
    [HLO_OP_DOT] = {2, 3},  /* sparse dot adds a metadata operand */
    [HLO_OP_SCALED_DOT] = {4, 4}, [HLO_OP_RAGGED_DOT] = {3, 3}, [HLO_OP_CONVOLUTION] = {2, 2},
    [HLO_OP_BATCH_NORM_TRAINING] = {3, 3}, [HLO_OP_BATCH_NORM_INFERENCE] = {5, 5},
    [HLO_OP_BATCH_NORM_GRAD] = {5, 5}, [HLO_OP_SELECT_AND_SCATTER] = {3, 3}, [HLO_OP_GATHER] = {2, 2},
    [HLO_OP_SCATTER] = {3, ANY}, [HLO_OP_REDUCE] = {2, ANY}, [HLO_OP_REDUCE_WINDOW] = {2, ANY},
    [HLO_OP_SORT] = {1, ANY}, [HLO_OP_MAP] = {1, ANY}, [HLO_OP_CONCATENATE] = {1, ANY},
    [HLO_OP_CONDITIONAL] = {1, ANY}, [HLO_OP_DYNAMIC_SLICE] = {1, ANY}, [HLO_OP_DYNAMIC_UPDATE_SLICE] = {2, ANY},
    [HLO_OP_DYNAMIC_RESHAPE] = {1, ANY}, [HLO_OP_ALL_GATHER] = {1, ANY}, [HLO_OP_ALL_GATHER_START] = {1, ANY},
    [HLO_OP_ALL_REDUCE] = {1, ANY}, [HLO_OP_ALL_REDUCE_START] = {1, ANY}, [HLO_OP_ALL_TO_ALL] = {1, ANY},
    [HLO_OP_REDUCE_SCATTER] = {1, ANY}, [HLO_OP_COLLECTIVE_BROADCAST] = {1, ANY},
    [HLO_OP_COLLECTIVE_PERMUTE] = {1, ANY}, [HLO_OP_COLLECTIVE_PERMUTE_START] = {1, ANY},
    [HLO_OP_COLLECTIVE_REDUCE] = {1, ANY}, [HLO_OP_RAGGED_ALL_TO_ALL] = {6, 6}, [HLO_OP_RNG] = {2, 2},
    [HLO_OP_ASYNC_UPDATE] = {1, 1}, [HLO_OP_ASYNC_DONE] = {1, 1}, [HLO_OP_WHILE] = {1, 1},
    [HLO_OP_OPTIMIZATION_BARRIER] = {1, 1}, [HLO_OP_DOMAIN] = {1, 1},
};

bool hlo_shape_operand_count_ok(const hlo_instruction *in, int *lo, int *hi) {
  int l, h;
  if ((unsigned)in->op >= HLO_OP_COUNT) return false;
  if (RANGES[in->op].hi) {
    l = RANGES[in->op].lo, h = RANGES[in->op].hi;
  } else {
    int a = hlo_opcode_arity(in->op);
    l = a == HLO_VARIADIC ? 0 : a;
    h = a == HLO_VARIADIC ? ANY : a;
  }
  if (lo) *lo = l;
  if (hi) *hi = h;
  return in->noperands >= l && in->noperands <= h;
}

/* Tuple nesting depth of s, counting at most up to cap (so the recursion is
 * bounded whatever s is). */
static int tuple_depth(const hlo_shape *s, int cap) {
  if (s->type != HLO_TUPLE || cap <= 0) return 0;
  int d = 0;
  for (int i = 0; i < s->ntuple && d < cap; i++) {
    int k = tuple_depth(&s->tuple[i], cap - 1);
    if (k > d) d = k;
  }
  return d + 1;
}

/* Tuples built from tuples by a chain of instructions could otherwise nest
 * without limit (and every copy of such a shape costs its depth). */
enum { MAX_TUPLE_DEPTH = 256 }; /* the text parser's nesting limit */

int hlo_infer_shape(const hlo_instruction *in, hlo_arena *a, hlo_shape *out, hlo_diags *d, const hlo_src *src) {
  sctx c = {in, a, d, src, out};
  memset(out, 0, sizeof *out);
  if (in->ncalled > HLO_INFER_MAX_OPERANDS)
    return sx_fail(&c, "more than %d called computations", HLO_INFER_MAX_OPERANDS);
  int lo, hi;
  if (!hlo_shape_operand_count_ok(in, &lo, &hi)) {
    if (lo == hi)
      return sx_fail(&c, "%s expects %d operand%s, got %d.", hlo_opcode_name(in->op), lo, lo == 1 ? "" : "s",
                     in->noperands);
    if (hi == ANY && in->noperands > hi)
      return sx_fail(&c, "%s has %d operands, more than the limit of %d.", hlo_opcode_name(in->op), in->noperands, hi);
    if (hi == ANY)
      return sx_fail(&c, "%s expects at least %d operand%s, got %d.", hlo_opcode_name(in->op), lo,
                     lo == 1 ? "" : "s", in->noperands);
    return sx_fail(&c, "%s expects %d to %d operands, got %d.", hlo_opcode_name(in->op), lo, hi, in->noperands);
  }
  for (int i = 0; i < in->noperands; i++)
    if (!in->operands[i]) return sx_fail(&c, "operand %d is missing", i);
  int rc = dispatch(&c);
  if (rc == HLO_OK && tuple_depth(out, MAX_TUPLE_DEPTH + 1) > MAX_TUPLE_DEPTH)
    return sx_fail(&c, "result shape nests tuples more than %d levels deep", MAX_TUPLE_DEPTH);
  return rc;
}
