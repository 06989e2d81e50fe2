/* infer.c - hlo_infer_shape: the table of shape rules indexed by opcode (the
 * shape stage's one place per op), operand-count checks, then the op's rule. */
#include <limits.h>
#include <string.h>

#include "core/bug.h"
#include "shape/infer_internal.h"

/* The shape rule of every opcode.  Operand counts come from the opcode table
 * (hlo_ops.def); .operands bounds the count only where the table says
 * "variadic" (any count otherwise). */
#define ANY INT_MAX
typedef struct shape_rule {
  int (*infer)(infer_ctx *c);
  struct { int lo, hi; } operands;
} shape_rule;

static const shape_rule RULES[HLO_OP_COUNT] = {
    [HLO_OP_ABS] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_ACOS] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_ACOSH] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_ADD] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_ADD_DEPENDENCY] = {.infer = hlo_shape_infer_add_dependency},
    [HLO_OP_AFTER_ALL] = {.infer = hlo_shape_infer_after_all},
    [HLO_OP_ALL_GATHER] = {.infer = hlo_shape_infer_all_gather, .operands = {1, ANY}},
    [HLO_OP_ALL_GATHER_DONE] = {.infer = hlo_shape_infer_async_result},
    [HLO_OP_ALL_GATHER_START] = {.infer = hlo_shape_infer_all_gather_start, .operands = {1, ANY}},
    [HLO_OP_ALL_REDUCE] = {.infer = hlo_shape_infer_same_as_operands, .operands = {1, ANY}},
    [HLO_OP_ALL_REDUCE_DONE] = {.infer = hlo_shape_infer_all_reduce_done},
    [HLO_OP_ALL_REDUCE_START] = {.infer = hlo_shape_infer_same_as_operands, .operands = {1, ANY}},
    [HLO_OP_ALL_TO_ALL] = {.infer = hlo_shape_infer_all_to_all, .operands = {1, ANY}},
    [HLO_OP_AND] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_ASIN] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_ASINH] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_ASYNC_DONE] = {.infer = hlo_shape_infer_async_done},
    [HLO_OP_ASYNC_START] = {.infer = hlo_shape_infer_async_start},
    [HLO_OP_ASYNC_UPDATE] = {.infer = hlo_shape_infer_async_update, .operands = {1, ANY}},
    [HLO_OP_ATAN] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_ATAN2] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_ATANH] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_BATCH_NORM_GRAD] = {.infer = hlo_shape_infer_batch_norm},
    [HLO_OP_BATCH_NORM_INFERENCE] = {.infer = hlo_shape_infer_batch_norm},
    [HLO_OP_BATCH_NORM_TRAINING] = {.infer = hlo_shape_infer_batch_norm},
    [HLO_OP_BITCAST] = {.infer = hlo_shape_infer_declared},
    [HLO_OP_BITCAST_CONVERT] = {.infer = hlo_shape_infer_bitcast_convert},
    [HLO_OP_BROADCAST] = {.infer = hlo_shape_infer_broadcast},
    [HLO_OP_CALL] = {.infer = hlo_shape_infer_call},
    [HLO_OP_CBRT] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_CEIL] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_CHOLESKY] = {.infer = hlo_shape_infer_cholesky},
    [HLO_OP_CLAMP] = {.infer = hlo_shape_infer_clamp},
    [HLO_OP_CLZ] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_COLLECTIVE_BROADCAST] = {.infer = hlo_shape_infer_same_as_operands, .operands = {1, ANY}},
    [HLO_OP_COLLECTIVE_PERMUTE] = {.infer = hlo_shape_infer_collective_permute, .operands = {1, ANY}},
    [HLO_OP_COLLECTIVE_PERMUTE_DONE] = {.infer = hlo_shape_infer_async_result},
    [HLO_OP_COLLECTIVE_PERMUTE_START] = {.infer = hlo_shape_infer_collective_permute_start, .operands = {1, ANY}},
    [HLO_OP_COLLECTIVE_REDUCE] = {.infer = hlo_shape_infer_same_as_operands, .operands = {1, ANY}},
    [HLO_OP_COMPARE] = {.infer = hlo_shape_infer_compare},
    [HLO_OP_COMPLEX] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_CONCATENATE] = {.infer = hlo_shape_infer_concatenate, .operands = {1, ANY}},
    [HLO_OP_CONDITIONAL] = {.infer = hlo_shape_infer_conditional, .operands = {1, ANY}},
    [HLO_OP_CONSTANT] = {.infer = hlo_shape_infer_constant},
    [HLO_OP_CONVERT] = {.infer = hlo_shape_infer_convert},
    [HLO_OP_CONVOLUTION] = {.infer = hlo_shape_infer_convolution, .operands = {2, 2}},
    [HLO_OP_COPY] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_COPY_DONE] = {.infer = hlo_shape_infer_copy_done},
    [HLO_OP_COPY_START] = {.infer = hlo_shape_infer_copy_start},
    [HLO_OP_COS] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_COSH] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_CUSTOM_CALL] = {.infer = hlo_shape_infer_declared},
    [HLO_OP_DIVIDE] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_DOMAIN] = {.infer = hlo_shape_infer_same_as_operands},
    [HLO_OP_DOT] = {.infer = hlo_shape_infer_dot, .operands = {2, 3}},
    [HLO_OP_DYNAMIC_RESHAPE] = {.infer = hlo_shape_infer_dynamic_reshape, .operands = {1, ANY}},
    [HLO_OP_DYNAMIC_SLICE] = {.infer = hlo_shape_infer_dynamic_slice, .operands = {1, ANY}},
    [HLO_OP_DYNAMIC_UPDATE_SLICE] = {.infer = hlo_shape_infer_dynamic_update_slice, .operands = {2, ANY}},
    [HLO_OP_ERF] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_EXP] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_EXPM1] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_FFT] = {.infer = hlo_shape_infer_fft},
    [HLO_OP_FLOOR] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_FUSION] = {.infer = hlo_shape_infer_call},
    [HLO_OP_GATHER] = {.infer = hlo_shape_infer_gather},
    [HLO_OP_GET_DIMENSION_SIZE] = {.infer = hlo_shape_infer_get_dimension_size},
    [HLO_OP_GET_TUPLE_ELEMENT] = {.infer = hlo_shape_infer_get_tuple_element},
    [HLO_OP_IMAG] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_INFEED] = {.infer = hlo_shape_infer_infeed},
    [HLO_OP_IOTA] = {.infer = hlo_shape_infer_iota},
    [HLO_OP_IS_FINITE] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_LOG] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_LOG1P] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_LOGISTIC] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_MAP] = {.infer = hlo_shape_infer_map, .operands = {1, ANY}},
    [HLO_OP_MAXIMUM] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_MINIMUM] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_MULHI] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_MULTIPLY] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_NEGATE] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_NOT] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_OPTIMIZATION_BARRIER] = {.infer = hlo_shape_infer_same_as_operands},
    [HLO_OP_OR] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_OUTFEED] = {.infer = hlo_shape_infer_outfeed},
    [HLO_OP_PAD] = {.infer = hlo_shape_infer_pad},
    [HLO_OP_PARAMETER] = {.infer = hlo_shape_infer_declared},
    [HLO_OP_PARTITION_ID] = {.infer = hlo_shape_infer_id},
    [HLO_OP_POPCNT] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_POWER] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_RAGGED_ALL_TO_ALL] = {.infer = hlo_shape_infer_ragged_all_to_all},
    [HLO_OP_RAGGED_DOT] = {.infer = hlo_shape_infer_ragged_dot},
    [HLO_OP_REAL] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_RECV] = {.infer = hlo_shape_infer_recv},
    [HLO_OP_RECV_DONE] = {.infer = hlo_shape_infer_recv_done},
    [HLO_OP_REDUCE] = {.infer = hlo_shape_infer_reduce, .operands = {2, ANY}},
    [HLO_OP_REDUCE_PRECISION] = {.infer = hlo_shape_infer_reduce_precision},
    [HLO_OP_REDUCE_SCATTER] = {.infer = hlo_shape_infer_reduce_scatter, .operands = {1, ANY}},
    [HLO_OP_REDUCE_WINDOW] = {.infer = hlo_shape_infer_reduce_window, .operands = {2, ANY}},
    [HLO_OP_REMAINDER] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_REPLICA_ID] = {.infer = hlo_shape_infer_id},
    [HLO_OP_RESHAPE] = {.infer = hlo_shape_infer_reshape},
    [HLO_OP_REVERSE] = {.infer = hlo_shape_infer_reverse},
    [HLO_OP_RNG] = {.infer = hlo_shape_infer_declared, .operands = {2, 2}},
    [HLO_OP_RNG_BIT_GENERATOR] = {.infer = hlo_shape_infer_rng_bit_generator},
    [HLO_OP_RNG_GET_AND_UPDATE_STATE] = {.infer = hlo_shape_infer_rng_get_and_update_state},
    [HLO_OP_ROUND_NEAREST_AFZ] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_ROUND_NEAREST_EVEN] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_RSQRT] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_SCALED_DOT] = {.infer = hlo_shape_infer_scaled_dot},
    [HLO_OP_SCAN] = {.infer = hlo_shape_infer_declared},
    [HLO_OP_SCATTER] = {.infer = hlo_shape_infer_scatter, .operands = {3, ANY}},
    [HLO_OP_SELECT] = {.infer = hlo_shape_infer_select},
    [HLO_OP_SELECT_AND_SCATTER] = {.infer = hlo_shape_infer_select_and_scatter},
    [HLO_OP_SEND] = {.infer = hlo_shape_infer_send},
    [HLO_OP_SEND_DONE] = {.infer = hlo_shape_infer_send_done},
    [HLO_OP_SET_DIMENSION_SIZE] = {.infer = hlo_shape_infer_set_dimension_size},
    [HLO_OP_SHIFT_LEFT] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_SHIFT_RIGHT_ARITHMETIC] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_SHIFT_RIGHT_LOGICAL] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_SHUFFLE] = {.infer = hlo_shape_infer_declared},
    [HLO_OP_SIGN] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_SIN] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_SINH] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_SLICE] = {.infer = hlo_shape_infer_slice},
    [HLO_OP_SORT] = {.infer = hlo_shape_infer_sort, .operands = {1, ANY}},
    [HLO_OP_SQRT] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_STOCHASTIC_CONVERT] = {.infer = hlo_shape_infer_stochastic_convert},
    [HLO_OP_SUBTRACT] = {.infer = hlo_shape_infer_binary},
    [HLO_OP_TAN] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_TANH] = {.infer = hlo_shape_infer_unary},
    [HLO_OP_TOPK] = {.infer = hlo_shape_infer_topk},
    [HLO_OP_TRANSPOSE] = {.infer = hlo_shape_infer_transpose},
    [HLO_OP_TRIANGULAR_SOLVE] = {.infer = hlo_shape_infer_triangular_solve},
    [HLO_OP_TUPLE] = {.infer = hlo_shape_infer_tuple},
    [HLO_OP_WHILE] = {.infer = hlo_shape_infer_while},
    [HLO_OP_XOR] = {.infer = hlo_shape_infer_binary},
};

bool hlo_shape_operand_count_ok(const hlo_instruction *in, int *lo, int *hi) {
  int l, h;
  if ((unsigned)in->op >= HLO_OP_COUNT) return false;
  int a = hlo_opcode_arity(in->op);
  if (a != HLO_VARIADIC) {
    l = h = a;
  } else if (RULES[in->op].operands.hi) {
    l = RULES[in->op].operands.lo, h = RULES[in->op].operands.hi;
  } else {
    l = 0, h = ANY;
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
  infer_ctx c = {in, a, d, src, out};
  memset(out, 0, sizeof *out);
  if (in->ncalled > HLO_INFER_MAX_OPERANDS)
    return sx_fail(&c, "more than %d called computations", HLO_INFER_MAX_OPERANDS);
  int lo, hi;
  if (!hlo_shape_operand_count_ok(in, &lo, &hi)) {
    if (lo == hi)
      return sx_fail(&c, "%s expects %d operand%s, got %d.", hlo_opcode_name(in->op), lo, lo == 1 ? "" : "s",
                     in->noperands);
    if (hi == ANY)
      return sx_fail(&c, "%s expects at least %d operand%s, got %d.", hlo_opcode_name(in->op), lo,
                     lo == 1 ? "" : "s", in->noperands);
    return sx_fail(&c, "%s expects %d to %d operands, got %d.", hlo_opcode_name(in->op), lo, hi, in->noperands);
  }
  for (int i = 0; i < in->noperands; i++)
    if (!in->operands[i]) return sx_fail(&c, "operand %d is missing", i);
  HLO_ASSERT(RULES[in->op].infer); /* every opcode has a row */
  int rc = RULES[in->op].infer(&c);
  if (rc == HLO_OK && tuple_depth(out, MAX_TUPLE_DEPTH + 1) > MAX_TUPLE_DEPTH)
    return sx_fail(&c, "result shape nests tuples more than %d levels deep", MAX_TUPLE_DEPTH);
  return rc;
}
