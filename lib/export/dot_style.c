/* dot_style.c - how an instruction looks in a graph: its op class and
 * colour (the graph code's one table indexed by opcode) and its label
 * (name, opcode with key attributes, shape, folded operands). */
#include <string.h>

#include "hlo/hlo_dot.h"
#include "hlo/hlo_text.h"

/* The graph class (and so the colour) of every opcode. */
static const hlo_dot_class CLASSES[HLO_OP_COUNT] = {
    [HLO_OP_ABS] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ACOS] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ACOSH] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ADD] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ADD_DEPENDENCY] = HLO_DOT_LAYOUT,
    [HLO_OP_AFTER_ALL] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_ALL_GATHER] = HLO_DOT_COLLECTIVE,
    [HLO_OP_ALL_GATHER_DONE] = HLO_DOT_COLLECTIVE,
    [HLO_OP_ALL_GATHER_START] = HLO_DOT_COLLECTIVE,
    [HLO_OP_ALL_REDUCE] = HLO_DOT_COLLECTIVE,
    [HLO_OP_ALL_REDUCE_DONE] = HLO_DOT_COLLECTIVE,
    [HLO_OP_ALL_REDUCE_START] = HLO_DOT_COLLECTIVE,
    [HLO_OP_ALL_TO_ALL] = HLO_DOT_COLLECTIVE,
    [HLO_OP_AND] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ASIN] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ASINH] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ASYNC_DONE] = HLO_DOT_CONTROL,
    [HLO_OP_ASYNC_START] = HLO_DOT_CONTROL,
    [HLO_OP_ASYNC_UPDATE] = HLO_DOT_CONTROL,
    [HLO_OP_ATAN] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ATAN2] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ATANH] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_BATCH_NORM_GRAD] = HLO_DOT_REDUCTION,
    [HLO_OP_BATCH_NORM_INFERENCE] = HLO_DOT_REDUCTION,
    [HLO_OP_BATCH_NORM_TRAINING] = HLO_DOT_REDUCTION,
    [HLO_OP_BITCAST] = HLO_DOT_LAYOUT,
    [HLO_OP_BITCAST_CONVERT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_BROADCAST] = HLO_DOT_LAYOUT,
    [HLO_OP_CALL] = HLO_DOT_CONTROL,
    [HLO_OP_CBRT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_CEIL] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_CHOLESKY] = HLO_DOT_CONTRACTION,
    [HLO_OP_CLAMP] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_CLZ] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_COLLECTIVE_BROADCAST] = HLO_DOT_COLLECTIVE,
    [HLO_OP_COLLECTIVE_PERMUTE] = HLO_DOT_COLLECTIVE,
    [HLO_OP_COLLECTIVE_PERMUTE_DONE] = HLO_DOT_COLLECTIVE,
    [HLO_OP_COLLECTIVE_PERMUTE_START] = HLO_DOT_COLLECTIVE,
    [HLO_OP_COLLECTIVE_REDUCE] = HLO_DOT_COLLECTIVE,
    [HLO_OP_COMPARE] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_COMPLEX] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_CONCATENATE] = HLO_DOT_LAYOUT,
    [HLO_OP_CONDITIONAL] = HLO_DOT_CONTROL,
    [HLO_OP_CONSTANT] = HLO_DOT_CONSTANT,
    [HLO_OP_CONVERT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_CONVOLUTION] = HLO_DOT_CONTRACTION,
    [HLO_OP_COPY] = HLO_DOT_LAYOUT,
    [HLO_OP_COPY_DONE] = HLO_DOT_LAYOUT,
    [HLO_OP_COPY_START] = HLO_DOT_LAYOUT,
    [HLO_OP_COS] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_COSH] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_CUSTOM_CALL] = HLO_DOT_CUSTOM,
    [HLO_OP_DIVIDE] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_DOMAIN] = HLO_DOT_LAYOUT,
    [HLO_OP_DOT] = HLO_DOT_CONTRACTION,
    [HLO_OP_DYNAMIC_RESHAPE] = HLO_DOT_LAYOUT,
    [HLO_OP_DYNAMIC_SLICE] = HLO_DOT_LAYOUT,
    [HLO_OP_DYNAMIC_UPDATE_SLICE] = HLO_DOT_LAYOUT,
    [HLO_OP_ERF] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_EXP] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_EXPM1] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_FFT] = HLO_DOT_CONTRACTION,
    [HLO_OP_FLOOR] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_FUSION] = HLO_DOT_FUSION,
    [HLO_OP_GATHER] = HLO_DOT_LAYOUT,
    [HLO_OP_GET_DIMENSION_SIZE] = HLO_DOT_LAYOUT,
    [HLO_OP_GET_TUPLE_ELEMENT] = HLO_DOT_TUPLE,
    [HLO_OP_IMAG] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_INFEED] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_IOTA] = HLO_DOT_CONSTANT,
    [HLO_OP_IS_FINITE] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_LOG] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_LOG1P] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_LOGISTIC] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_MAP] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_MAXIMUM] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_MINIMUM] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_MULHI] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_MULTIPLY] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_NEGATE] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_NOT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_OPTIMIZATION_BARRIER] = HLO_DOT_LAYOUT,
    [HLO_OP_OR] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_OUTFEED] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_PAD] = HLO_DOT_LAYOUT,
    [HLO_OP_PARAMETER] = HLO_DOT_PARAMETER,
    [HLO_OP_PARTITION_ID] = HLO_DOT_CONSTANT,
    [HLO_OP_POPCNT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_POWER] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_RAGGED_ALL_TO_ALL] = HLO_DOT_COLLECTIVE,
    [HLO_OP_RAGGED_DOT] = HLO_DOT_CONTRACTION,
    [HLO_OP_REAL] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_RECV] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_RECV_DONE] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_REDUCE] = HLO_DOT_REDUCTION,
    [HLO_OP_REDUCE_PRECISION] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_REDUCE_SCATTER] = HLO_DOT_COLLECTIVE,
    [HLO_OP_REDUCE_WINDOW] = HLO_DOT_REDUCTION,
    [HLO_OP_REMAINDER] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_REPLICA_ID] = HLO_DOT_CONSTANT,
    [HLO_OP_RESHAPE] = HLO_DOT_LAYOUT,
    [HLO_OP_REVERSE] = HLO_DOT_LAYOUT,
    [HLO_OP_RNG] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_RNG_BIT_GENERATOR] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_RNG_GET_AND_UPDATE_STATE] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_ROUND_NEAREST_AFZ] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_ROUND_NEAREST_EVEN] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_RSQRT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_SCALED_DOT] = HLO_DOT_CONTRACTION,
    [HLO_OP_SCAN] = HLO_DOT_REDUCTION,
    [HLO_OP_SCATTER] = HLO_DOT_LAYOUT,
    [HLO_OP_SELECT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_SELECT_AND_SCATTER] = HLO_DOT_REDUCTION,
    [HLO_OP_SEND] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_SEND_DONE] = HLO_DOT_SIDE_EFFECT,
    [HLO_OP_SET_DIMENSION_SIZE] = HLO_DOT_LAYOUT,
    [HLO_OP_SHIFT_LEFT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_SHIFT_RIGHT_ARITHMETIC] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_SHIFT_RIGHT_LOGICAL] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_SHUFFLE] = HLO_DOT_LAYOUT,
    [HLO_OP_SIGN] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_SIN] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_SINH] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_SLICE] = HLO_DOT_LAYOUT,
    [HLO_OP_SORT] = HLO_DOT_REDUCTION,
    [HLO_OP_SQRT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_STOCHASTIC_CONVERT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_SUBTRACT] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_TAN] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_TANH] = HLO_DOT_ELEMENTWISE,
    [HLO_OP_TOPK] = HLO_DOT_REDUCTION,
    [HLO_OP_TRANSPOSE] = HLO_DOT_LAYOUT,
    [HLO_OP_TRIANGULAR_SOLVE] = HLO_DOT_CONTRACTION,
    [HLO_OP_TUPLE] = HLO_DOT_TUPLE,
    [HLO_OP_WHILE] = HLO_DOT_CONTROL,
    [HLO_OP_XOR] = HLO_DOT_ELEMENTWISE,
};

hlo_dot_class hlo_dot_op_class(hlo_opcode op) {
  return (unsigned)op < HLO_OP_COUNT ? CLASSES[op] : HLO_DOT_CUSTOM;
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
    if (in->op == HLO_OP_FUSION || (hlo_opcode_flags(in->op) & HLO_F_CONTROL))
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
