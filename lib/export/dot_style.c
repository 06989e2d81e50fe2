/* dot_style.c - how an instruction looks in a graph: its op class and
 * colour (the one exhaustive opcode switch of the graph code) and its label
 * (name, opcode with key attributes, shape, folded operands). */
#include <string.h>

#include "hlo/hlo_dot.h"
#include "hlo/hlo_text.h"

hlo_dot_class hlo_dot_op_class(hlo_opcode op) {
  switch (op) {
  case HLO_OP_PARAMETER:
    return HLO_DOT_PARAMETER;
  case HLO_OP_CONSTANT:
  case HLO_OP_IOTA:
  case HLO_OP_REPLICA_ID:
  case HLO_OP_PARTITION_ID:
    return HLO_DOT_CONSTANT;
  case HLO_OP_ABS: case HLO_OP_ACOS: case HLO_OP_ACOSH: case HLO_OP_ADD: case HLO_OP_AND:
  case HLO_OP_ASIN: case HLO_OP_ASINH: case HLO_OP_ATAN: case HLO_OP_ATAN2: case HLO_OP_ATANH:
  case HLO_OP_CBRT: case HLO_OP_CEIL: case HLO_OP_CLAMP: case HLO_OP_CLZ: case HLO_OP_COMPARE:
  case HLO_OP_COMPLEX: case HLO_OP_CONVERT: case HLO_OP_COS: case HLO_OP_COSH:
  case HLO_OP_DIVIDE: case HLO_OP_ERF: case HLO_OP_EXP: case HLO_OP_EXPM1: case HLO_OP_FLOOR:
  case HLO_OP_IMAG: case HLO_OP_IS_FINITE: case HLO_OP_LOG: case HLO_OP_LOG1P:
  case HLO_OP_LOGISTIC: case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM: case HLO_OP_MULHI:
  case HLO_OP_MULTIPLY: case HLO_OP_NEGATE: case HLO_OP_NOT: case HLO_OP_OR: case HLO_OP_POPCNT:
  case HLO_OP_POWER: case HLO_OP_REAL: case HLO_OP_REDUCE_PRECISION: case HLO_OP_REMAINDER:
  case HLO_OP_ROUND_NEAREST_AFZ: case HLO_OP_ROUND_NEAREST_EVEN: case HLO_OP_RSQRT:
  case HLO_OP_SELECT: case HLO_OP_SHIFT_LEFT: case HLO_OP_SHIFT_RIGHT_ARITHMETIC:
  case HLO_OP_SHIFT_RIGHT_LOGICAL: case HLO_OP_SIGN: case HLO_OP_SIN: case HLO_OP_SINH:
  case HLO_OP_SQRT: case HLO_OP_STOCHASTIC_CONVERT: case HLO_OP_SUBTRACT: case HLO_OP_TAN:
  case HLO_OP_TANH: case HLO_OP_XOR: case HLO_OP_BITCAST_CONVERT: case HLO_OP_MAP:
    return HLO_DOT_ELEMENTWISE;
  case HLO_OP_BITCAST: case HLO_OP_BROADCAST: case HLO_OP_CONCATENATE: case HLO_OP_COPY:
  case HLO_OP_DYNAMIC_RESHAPE: case HLO_OP_DYNAMIC_SLICE: case HLO_OP_DYNAMIC_UPDATE_SLICE:
  case HLO_OP_GATHER: case HLO_OP_PAD: case HLO_OP_RESHAPE: case HLO_OP_REVERSE:
  case HLO_OP_SCATTER: case HLO_OP_SLICE: case HLO_OP_TRANSPOSE: case HLO_OP_SHUFFLE:
  case HLO_OP_GET_DIMENSION_SIZE: case HLO_OP_SET_DIMENSION_SIZE: case HLO_OP_DOMAIN:
  case HLO_OP_OPTIMIZATION_BARRIER: case HLO_OP_ADD_DEPENDENCY: case HLO_OP_COPY_START:
  case HLO_OP_COPY_DONE:
    return HLO_DOT_LAYOUT;
  case HLO_OP_REDUCE: case HLO_OP_REDUCE_WINDOW: case HLO_OP_SELECT_AND_SCATTER:
  case HLO_OP_SORT: case HLO_OP_TOPK: case HLO_OP_SCAN: case HLO_OP_BATCH_NORM_GRAD:
  case HLO_OP_BATCH_NORM_INFERENCE: case HLO_OP_BATCH_NORM_TRAINING:
    return HLO_DOT_REDUCTION;
  case HLO_OP_DOT: case HLO_OP_CONVOLUTION: case HLO_OP_RAGGED_DOT: case HLO_OP_SCALED_DOT:
  case HLO_OP_CHOLESKY: case HLO_OP_TRIANGULAR_SOLVE: case HLO_OP_FFT:
    return HLO_DOT_CONTRACTION;
  case HLO_OP_WHILE: case HLO_OP_CONDITIONAL: case HLO_OP_CALL: case HLO_OP_ASYNC_START:
  case HLO_OP_ASYNC_UPDATE: case HLO_OP_ASYNC_DONE:
    return HLO_DOT_CONTROL;
  case HLO_OP_FUSION:
    return HLO_DOT_FUSION;
  case HLO_OP_ALL_GATHER: case HLO_OP_ALL_GATHER_DONE: case HLO_OP_ALL_GATHER_START:
  case HLO_OP_ALL_REDUCE: case HLO_OP_ALL_REDUCE_DONE: case HLO_OP_ALL_REDUCE_START:
  case HLO_OP_ALL_TO_ALL: case HLO_OP_COLLECTIVE_BROADCAST: case HLO_OP_COLLECTIVE_PERMUTE:
  case HLO_OP_COLLECTIVE_PERMUTE_DONE: case HLO_OP_COLLECTIVE_PERMUTE_START:
  case HLO_OP_COLLECTIVE_REDUCE: case HLO_OP_RAGGED_ALL_TO_ALL: case HLO_OP_REDUCE_SCATTER:
    return HLO_DOT_COLLECTIVE;
  case HLO_OP_AFTER_ALL: case HLO_OP_INFEED: case HLO_OP_OUTFEED: case HLO_OP_RECV:
  case HLO_OP_RECV_DONE: case HLO_OP_SEND: case HLO_OP_SEND_DONE: case HLO_OP_RNG:
  case HLO_OP_RNG_BIT_GENERATOR: case HLO_OP_RNG_GET_AND_UPDATE_STATE:
    return HLO_DOT_SIDE_EFFECT;
  case HLO_OP_TUPLE: case HLO_OP_GET_TUPLE_ELEMENT:
    return HLO_DOT_TUPLE;
  case HLO_OP_CUSTOM_CALL:
    return HLO_DOT_CUSTOM;
  case HLO_OP_COUNT:
    break;
  }
  return HLO_DOT_CUSTOM;
}

const char *hlo_dot_class_name(hlo_dot_class c) {
  static const char *const names[HLO_DOT_CLASS_COUNT] = {
      "parameter", "constant",  "elementwise", "layout",      "reduction", "contraction",
      "control",   "fusion",    "collective",  "side-effect", "tuple",     "custom-call"};
  return (unsigned)c < HLO_DOT_CLASS_COUNT ? names[c] : "?";
}

const char *hlo_dot_class_color(hlo_dot_class c) {
  static const char *const colors[HLO_DOT_CLASS_COUNT] = {
      "#fff2a8", /* parameter: yellow */
      "#e0e0e0", /* constant: grey */
      "#ffffff", /* elementwise: white */
      "#d4f0d4", /* layout / data movement: green */
      "#f5d3b0", /* reduction: tan */
      "#b8d4ff", /* contraction: blue */
      "#e2c9f2", /* control flow: purple */
      "#c8e6ef", /* fusion: teal */
      "#ffc48a", /* collective: orange */
      "#ffb3b3", /* side effect: red */
      "#f4f4f4", /* tuple plumbing: near white */
      "#f7c6e0", /* custom-call: pink */
  };
  return (unsigned)c < HLO_DOT_CLASS_COUNT ? colors[c] : "#ffffff";
}

/* "f32[2,3]" without layout; long tuple shapes shortened. */
static void short_shape(hlo_buf *b, const hlo_shape *s) {
  size_t start = b->len;
  hlo_print_shape(b, s, false);
  if (!b->failed && b->len - start > 72) {
    b->len = start + 69;
    hlo_buf_puts(b, "...");
  }
}

/* Scalar or tiny constants print their value; others their shape. */
static void folded_text(hlo_buf *b, const hlo_instruction *in) {
  const hlo_instruction *c = in->op == HLO_OP_BROADCAST ? in->operands[0] : in;
  int64_t n = 0;
  bool small = c->literal && !c->literal->elided && hlo_shape_elements(&c->shape, &n) && n <= 8;
  if (in->op == HLO_OP_BROADCAST) hlo_buf_puts(b, "broadcast(");
  if (small) {
    size_t start = b->len;
    hlo_print_literal(b, c->literal, NULL);
    if (!b->failed && b->len - start > 48) {
      b->len = start + 45;
      hlo_buf_puts(b, "...");
    }
  } else {
    hlo_buf_puts(b, "constant ");
    short_shape(b, &c->shape);
  }
  if (in->op == HLO_OP_BROADCAST) {
    hlo_buf_puts(b, ") ");
    short_shape(b, &in->shape);
  }
}

static void attr_brief(hlo_buf *b, const hlo_instruction *in) {
  const char *w;
  if ((w = hlo_instr_word(in, HLO_A_KIND))) hlo_buf_printf(b, " %s", w);
  if ((w = hlo_instr_word(in, HLO_A_DIRECTION))) hlo_buf_printf(b, " %s", w);
  if ((w = hlo_instr_word(in, HLO_A_CUSTOM_CALL_TARGET))) hlo_buf_printf(b, " \"%.40s\"", w);
  if (in->op == HLO_OP_GET_TUPLE_ELEMENT)
    hlo_buf_printf(b, " %lld", (long long)hlo_instr_int(in, HLO_A_INDEX, 0));
  if (in->op == HLO_OP_PARAMETER) hlo_buf_printf(b, " %lld", (long long)in->param_number);
  int n;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &n);
  if (d && n <= 8) {
    hlo_buf_puts(b, " dims={");
    for (int i = 0; i < n; i++) hlo_buf_printf(b, "%s%lld", i ? "," : "", (long long)d[i]);
    hlo_buf_putc(b, '}');
  }
}

int hlo_dot_node_label(hlo_buf *b, const hlo_dot_graph *g, int i) {
  const hlo_dot_node *nd = &g->nodes[i];
  if (!nd->in) {
    hlo_buf_printf(b, "%d %s%s not shown", nd->omitted, nd->omitted_users ? "user" : "operand",
                   nd->omitted == 1 ? "" : "s");
    return b->failed ? HLO_ERR : HLO_OK;
  }
  const hlo_instruction *in = nd->in;
  hlo_buf_printf(b, "%s\n%s", in->name, hlo_opcode_name(in->op));
  attr_brief(b, in);
  hlo_buf_putc(b, '\n');
  short_shape(b, &in->shape);
  for (int j = 0; j < in->noperands; j++) {
    const hlo_instruction *op = in->operands[j];
    if (!op || !hlo_dot_is_folded(op)) continue;
    hlo_buf_printf(b, "\nop%d = ", j);
    folded_text(b, op);
  }
  for (int k = 0; k < in->ncalled; k++) {
    if (in->op == HLO_OP_FUSION || in->op == HLO_OP_WHILE || in->op == HLO_OP_CONDITIONAL ||
        in->op == HLO_OP_CALL)
      hlo_buf_printf(b, "\ncalls %s", in->called[k]->name);
    else
      hlo_buf_printf(b, "\napplies %s", in->called[k]->name);
    if (k == 3 && in->ncalled > 4) {
      hlo_buf_printf(b, "\n(+%d more)", in->ncalled - 4);
      break;
    }
  }
  return b->failed ? HLO_ERR : HLO_OK;
}
