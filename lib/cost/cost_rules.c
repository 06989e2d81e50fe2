/* cost_rules.c - the cost rule of every opcode, one exhaustive switch: FLOPs,
 * transcendentals and bytes accessed of one execution of an instruction, as
 * XLA's HloCostAnalysis counts them (docs/stats.md lists the rules and where
 * this project departs from them). */
#include <math.h>
#include <string.h>

#include "cost/cost_internal.h"

/* Bytes read and written unless a rule says otherwise: the result and every
 * operand, each by XLA's shape size (a tuple is its pointer table). */
static double default_bytes(const hlo_instruction *in) {
  double b = hlo_cost_shape_bytes(&in->shape);
  for (int i = 0; i < in->noperands; i++)
    if (in->operands[i]) b += hlo_cost_shape_bytes(&in->operands[i]->shape);
  return b;
}

static double operand_bytes(const hlo_instruction *in, int i) {
  return i < in->noperands && in->operands[i] ? hlo_cost_shape_bytes(&in->operands[i]->shape) : 0;
}

static double operand_elems(const hlo_instruction *in, int i) {
  return i < in->noperands && in->operands[i] ? cost_elems(&in->operands[i]->shape) : 0;
}

/* The first array of a shape: itself, or a variadic op's first result. */
static const hlo_shape *first_array(const hlo_shape *s) {
  return s->type == HLO_TUPLE && s->ntuple > 0 ? &s->tuple[0] : s;
}

static double leaf_elems(const hlo_shape *s) {
  if (s->type != HLO_TUPLE) return cost_elems(s);
  double n = 0;
  for (int i = 0; i < s->ntuple; i++) n += leaf_elems(&s->tuple[i]);
  return n;
}

/* A called computation's FLOPs and transcendentals scaled by n (XLA copies
 * every property but bytes from a map/reduce/window computation). */
static int scaled_callee(hlo_cost_analysis *a, const hlo_instruction *in, hlo_attr_key k, double n,
                         hlo_cost *out) {
  const hlo_computation *c = cost_called(in, k);
  if (!c) return HLO_OK;
  hlo_cost s;
  if (cost_computation(a, c, &s)) return HLO_ERR;
  out->flops += s.flops * n;
  out->transcendentals += s.transcendentals * n;
  out->unknown += s.unknown;
  return HLO_OK;
}

/* Product of the lhs contracting dimensions. */
static double contracted(const hlo_instruction *in) {
  if (in->noperands < 1 || !in->operands[0]) return 0;
  const hlo_shape *lhs = &in->operands[0]->shape;
  int n = 0;
  const int64_t *lc = hlo_instr_ints(in, HLO_A_LHS_CONTRACTING_DIMS, &n);
  double k = 1;
  for (int i = 0; lc && i < n; i++)
    if (lc[i] >= 0 && lc[i] < lhs->rank) k *= (double)lhs->dims[lc[i]];
  return k;
}

/* ragged-dot: XLA removes dimension i of the result for each i below the
 * number of rhs group dims, one after the other (so original dims 0, 2, 4,
 * ...), then counts it as a dot. */
static double ragged_dot_flops(const hlo_instruction *in) {
  int ng = 0;
  hlo_instr_ints(in, HLO_A_RHS_GROUP_DIMS, &ng);
  if (!hlo_shape_is_array(&in->shape)) return 0;
  double e = 1;
  for (int i = 0; i < in->shape.rank; i++)
    if (!(i % 2 == 0 && i / 2 < ng)) e *= (double)(in->shape.dims[i] > 0 ? in->shape.dims[i] : 0);
  return 2 * e * contracted(in);
}

/* floor(log2(v)) and ceil(log2(v)) for v >= 1 (0 below). */
static double log2_floor(double v) { return v >= 1 ? floor(log2(v)) : 0; }
static double log2_ceil(double v) { return v > 1 ? ceil(log2(v)) : 0; }

/* Minor-to-major entry k of a shape's layout; the default layout (rank-1,
 * ..., 0) when none is written, as XLA's parser assigns it. */
static int64_t minor_to_major(const hlo_shape *s, int k) {
  return s->layout && s->layout->n == s->rank ? s->layout->minor_to_major[k] : s->rank - 1 - k;
}

/* A transpose that keeps the physical order (a bitcast given the layouts):
 * the operand's minor-to-major order is the result's mapped through the
 * permutation. */
static bool transpose_is_bitcast(const hlo_instruction *in) {
  int n = 0;
  const int64_t *perm = hlo_instr_ints(in, HLO_A_DIMENSIONS, &n);
  if (in->noperands < 1 || !in->operands[0]) return false;
  const hlo_shape *src = &in->operands[0]->shape, *dst = &in->shape;
  if (!perm || n != dst->rank || n != src->rank || src->type != dst->type) return false;
  for (int k = 0; k < n; k++) {
    int64_t od = minor_to_major(dst, k);
    if (od < 0 || od >= n || perm[od] != minor_to_major(src, k)) return false;
  }
  return true;
}

static double trip_scale(const hlo_instruction *w) {
  bool known;
  return (double)hlo_cost_trip_count(w, &known);
}

/* Every property of the callees (bytes too), as XLA does for call, while,
 * async-start: summed, scaled by n. */
static int whole_callee(hlo_cost_analysis *a, const hlo_computation *c, double n, hlo_cost *out) {
  if (!c) return HLO_OK;
  hlo_cost s;
  if (cost_computation(a, c, &s)) return HLO_ERR;
  out->flops += s.flops * n;
  out->transcendentals += s.transcendentals * n;
  out->bytes += s.bytes * n;
  out->unknown += s.unknown;
  return HLO_OK;
}

static int conditional_cost(hlo_cost_analysis *a, const hlo_instruction *in, hlo_cost *out) {
  bool first = true;
  for (int i = 0; i < in->ncalled; i++) {
    hlo_cost s;
    if (cost_computation(a, in->called[i], &s)) return HLO_ERR;
    if (first) *out = s;
    out->flops = fmax(out->flops, s.flops);
    out->transcendentals = fmax(out->transcendentals, s.transcendentals);
    out->bytes = fmax(out->bytes, s.bytes);
    out->unknown = out->unknown > s.unknown ? out->unknown : s.unknown;
    first = false;
  }
  return HLO_OK;
}

static void gather_cost(const hlo_instruction *g, hlo_cost *out) {
  double o = hlo_cost_shape_bytes(&g->shape);
  out->bytes = 2 * o + operand_bytes(g, 1);
}

/* scatter(operands..., indices, updates...): 3 times the updates (read the
 * input, the update, write the output) and the indices. */
static int scatter_cost(hlo_cost_analysis *a, const hlo_instruction *s, hlo_cost *out) {
  int n = (s->noperands - 1) / 2;
  double upd = 0;
  for (int i = 0; i < n; i++) upd += operand_bytes(s, n + 1 + i);
  out->bytes = 3 * upd + operand_bytes(s, n);
  return scaled_callee(a, s, HLO_A_TO_APPLY, operand_elems(s, n + 1), out);
}

static bool is_custom_fusion(const hlo_instruction *f) {
  const char *k = hlo_instr_word(f, HLO_A_KIND);
  return k && strcmp(k, "kCustom") == 0;
}

static int fusion_cost(hlo_cost_analysis *a, const hlo_instruction *f, hlo_cost *out) {
  const hlo_computation *c = cost_called(f, HLO_A_CALLS);
  if (!c) {
    out->bytes = default_bytes(f);
    return HLO_OK;
  }
  if (is_custom_fusion(f)) /* XLA costs a custom gather/scatter fusion as that op */
    for (int i = 0; i < c->ninstrs; i++) {
      if (c->instrs[i]->op == HLO_OP_GATHER) { gather_cost(c->instrs[i], out); return HLO_OK; }
      if (c->instrs[i]->op == HLO_OP_SCATTER) return scatter_cost(a, c->instrs[i], out);
    }
  hlo_cost s;
  if (cost_computation(a, c, &s)) return HLO_ERR;
  out->flops = s.flops;
  out->transcendentals = s.transcendentals;
  out->unknown = s.unknown;
  out->bytes = cost_fusion_bytes(f);
  return HLO_OK;
}

int cost_rule(hlo_cost_analysis *a, const hlo_instruction *in, hlo_cost *out) {
  memset(out, 0, sizeof *out);
  out->bytes = default_bytes(in);
  double res_elems = cost_elems(&in->shape);
  switch (in->op) {
  /* elementwise: one operation per result element, a transcendental one
   * for the opcodes hlo_ops.def marks so */
  case HLO_OP_ABS: case HLO_OP_ACOS: case HLO_OP_ACOSH: case HLO_OP_ADD: case HLO_OP_AND:
  case HLO_OP_ASIN: case HLO_OP_ASINH: case HLO_OP_ATAN: case HLO_OP_ATAN2: case HLO_OP_ATANH:
  case HLO_OP_BITCAST_CONVERT: case HLO_OP_CBRT: case HLO_OP_CEIL: case HLO_OP_CLAMP:
  case HLO_OP_CLZ: case HLO_OP_COMPARE: case HLO_OP_COMPLEX: case HLO_OP_CONVERT: case HLO_OP_COS:
  case HLO_OP_COSH: case HLO_OP_DIVIDE: case HLO_OP_ERF: case HLO_OP_EXP: case HLO_OP_EXPM1:
  case HLO_OP_FLOOR: case HLO_OP_IMAG: case HLO_OP_IS_FINITE: case HLO_OP_LOG: case HLO_OP_LOG1P:
  case HLO_OP_LOGISTIC: case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM: case HLO_OP_MULHI:
  case HLO_OP_MULTIPLY: case HLO_OP_NEGATE: case HLO_OP_NOT: case HLO_OP_OR: case HLO_OP_POPCNT:
  case HLO_OP_POWER: case HLO_OP_REAL: case HLO_OP_REDUCE_PRECISION: case HLO_OP_REMAINDER:
  case HLO_OP_ROUND_NEAREST_AFZ: case HLO_OP_ROUND_NEAREST_EVEN: case HLO_OP_RSQRT:
  case HLO_OP_SELECT: case HLO_OP_SHIFT_LEFT: case HLO_OP_SHIFT_RIGHT_ARITHMETIC:
  case HLO_OP_SHIFT_RIGHT_LOGICAL: case HLO_OP_SIGN: case HLO_OP_SIN: case HLO_OP_SINH:
  case HLO_OP_SQRT: case HLO_OP_STOCHASTIC_CONVERT: case HLO_OP_SUBTRACT: case HLO_OP_TAN:
  case HLO_OP_TANH: case HLO_OP_XOR:
    if (hlo_opcode_flags(in->op) & HLO_F_TRANSCENDENTAL) out->transcendentals = res_elems;
    else out->flops = res_elems;
    return HLO_OK;

  /* no computation, default bytes */
  case HLO_OP_ALL_GATHER: case HLO_OP_ALL_GATHER_DONE: case HLO_OP_ALL_GATHER_START:
  case HLO_OP_ALL_REDUCE_DONE: case HLO_OP_ALL_TO_ALL: case HLO_OP_ASYNC_DONE:
  case HLO_OP_ASYNC_UPDATE: case HLO_OP_BATCH_NORM_GRAD: case HLO_OP_BATCH_NORM_INFERENCE:
  case HLO_OP_BATCH_NORM_TRAINING: case HLO_OP_BROADCAST: case HLO_OP_COLLECTIVE_BROADCAST:
  case HLO_OP_COLLECTIVE_PERMUTE: case HLO_OP_COLLECTIVE_PERMUTE_DONE:
  case HLO_OP_COLLECTIVE_PERMUTE_START: case HLO_OP_COLLECTIVE_REDUCE: case HLO_OP_CONCATENATE:
  case HLO_OP_COPY: case HLO_OP_COPY_DONE: case HLO_OP_COPY_START: case HLO_OP_DYNAMIC_RESHAPE:
  case HLO_OP_GET_DIMENSION_SIZE: case HLO_OP_IOTA: case HLO_OP_OPTIMIZATION_BARRIER:
  case HLO_OP_PAD: case HLO_OP_PARTITION_ID: case HLO_OP_RAGGED_ALL_TO_ALL: case HLO_OP_RECV:
  case HLO_OP_RECV_DONE: case HLO_OP_REDUCE_SCATTER: case HLO_OP_REPLICA_ID: case HLO_OP_RESHAPE:
  case HLO_OP_REVERSE: case HLO_OP_RNG_GET_AND_UPDATE_STATE: case HLO_OP_SEND:
  case HLO_OP_SEND_DONE: case HLO_OP_SET_DIMENSION_SIZE: case HLO_OP_SHUFFLE: case HLO_OP_TOPK:
  case HLO_OP_SCAN: case HLO_OP_COUNT:
    return HLO_OK;

  /* no code: touch no memory */
  case HLO_OP_ADD_DEPENDENCY: case HLO_OP_AFTER_ALL: case HLO_OP_BITCAST: case HLO_OP_CONSTANT:
  case HLO_OP_DOMAIN: case HLO_OP_GET_TUPLE_ELEMENT: case HLO_OP_PARAMETER:
    out->bytes = 0;
    return HLO_OK;

  case HLO_OP_TRANSPOSE:
    if (transpose_is_bitcast(in)) out->bytes = 0;
    return HLO_OK;
  case HLO_OP_TUPLE: /* writes its pointer table only */
    out->bytes = hlo_cost_shape_bytes(&in->shape);
    return HLO_OK;
  case HLO_OP_CUSTOM_CALL: /* unknown to a static analysis */
    out->bytes = 0;
    out->unknown = 1;
    return HLO_OK;

  case HLO_OP_ALL_REDUCE: case HLO_OP_ALL_REDUCE_START: /* 2 replicas assumed: one add per element */
    out->flops = leaf_elems(&in->shape);
    out->bytes = hlo_cost_leaf_bytes(&in->shape);
    for (int i = 0; i < in->noperands; i++) out->bytes += operand_bytes(in, i);
    return HLO_OK;

  case HLO_OP_DOT: case HLO_OP_SCALED_DOT:
    out->flops = 2 * res_elems * contracted(in); /* 2 FLOPs per multiply-add */
    return HLO_OK;
  case HLO_OP_RAGGED_DOT:
    out->flops = ragged_dot_flops(in);
    return HLO_OK;
  case HLO_OP_CONVOLUTION:
    out->flops = cost_conv_flops(in);
    return HLO_OK;
  case HLO_OP_FFT: { /* 4 complex multiply-adds per element and log2 of each length */
    int n = 0;
    const int64_t *len = hlo_instr_ints(in, HLO_A_FFT_LENGTH, &n);
    double lf = 1;
    for (int i = 0; len && i < n; i++) lf *= log2_floor((double)len[i]);
    const hlo_shape *s = in->noperands > 0 && in->operands[0] ? first_array(&in->operands[0]->shape) : NULL;
    out->flops = s ? 2 * 4 * lf * cost_elems(s) : 0;
    return HLO_OK;
  }
  case HLO_OP_TRIANGULAR_SOLVE: { /* half of a is read */
    const hlo_shape *as = in->noperands > 0 && in->operands[0] ? &in->operands[0]->shape : NULL;
    out->bytes = hlo_cost_shape_bytes(&in->shape) + operand_bytes(in, 0) / 2 + operand_bytes(in, 1);
    out->flops = as && as->rank > 0 ? 2 * (double)as->dims[as->rank - 1] * operand_elems(in, 1) : 0;
    return HLO_OK;
  }
  case HLO_OP_CHOLESKY: { /* half of a read, half written; n^3/3 per matrix */
    const hlo_shape *as = in->noperands > 0 && in->operands[0] ? &in->operands[0]->shape : NULL;
    out->bytes = operand_bytes(in, 0);
    out->flops = as && as->rank > 0 ? floor((double)as->dims[as->rank - 1] * cost_elems(as) / 3) : 0;
    return HLO_OK;
  }
  case HLO_OP_SORT: { /* a comparison sort: n log2 n */
    double n = operand_elems(in, 0);
    out->flops = n * log2_ceil(n);
    return HLO_OK;
  }
  case HLO_OP_RNG: /* each random number priced as one transcendental */
    out->transcendentals = res_elems;
    return HLO_OK;
  case HLO_OP_RNG_BIT_GENERATOR:
    out->transcendentals = leaf_elems(&in->shape);
    return HLO_OK;

  case HLO_OP_SLICE:
    out->bytes = 2 * hlo_cost_shape_bytes(&in->shape);
    return HLO_OK;
  case HLO_OP_DYNAMIC_SLICE: /* XLA counts the first index operand only */
    out->bytes = 2 * hlo_cost_shape_bytes(&in->shape) + operand_bytes(in, 1);
    return HLO_OK;
  case HLO_OP_DYNAMIC_UPDATE_SLICE: /* operand 0 is updated in place */
    out->bytes = 2 * operand_bytes(in, 1) + operand_bytes(in, 2);
    return HLO_OK;
  case HLO_OP_GATHER:
    gather_cost(in, out);
    return HLO_OK;
  case HLO_OP_SCATTER:
    return scatter_cost(a, in, out);
  case HLO_OP_INFEED:
    out->bytes = hlo_cost_leaf_bytes(&in->shape);
    return HLO_OK;
  case HLO_OP_OUTFEED:
    out->bytes = 0;
    for (int i = 0; i < in->noperands; i++)
      if (in->operands[i]) out->bytes += hlo_cost_leaf_bytes(&in->operands[i]->shape);
    return HLO_OK;

  case HLO_OP_MAP:
    return scaled_callee(a, in, HLO_A_TO_APPLY, res_elems, out);
  case HLO_OP_REDUCE: /* the reducer runs once per input element not in the output */
    return scaled_callee(a, in, HLO_A_TO_APPLY,
                         fmax(0, operand_elems(in, 0) - cost_elems(first_array(&in->shape))), out);
  case HLO_OP_REDUCE_WINDOW:
    return scaled_callee(a, in, HLO_A_TO_APPLY, cost_reduce_window_count(in), out);
  case HLO_OP_SELECT_AND_SCATTER: { /* window-1 selects and one scatter per source element */
    double src = operand_elems(in, 1), win = 1;
    const hlo_attr *w = hlo_instr_attr(in, HLO_A_WINDOW);
    for (int i = 0; w && i < w->u.window.n; i++) win *= (double)w->u.window.dims[i].size;
    if (scaled_callee(a, in, HLO_A_SELECT, src * (win - 1), out)) return HLO_ERR;
    return scaled_callee(a, in, HLO_A_SCATTER, src, out);
  }

  case HLO_OP_FUSION:
    return fusion_cost(a, in, out);
  case HLO_OP_CALL:
    memset(out, 0, sizeof *out);
    return whole_callee(a, cost_called(in, HLO_A_TO_APPLY), 1, out);
  case HLO_OP_ASYNC_START:
    memset(out, 0, sizeof *out);
    return whole_callee(a, cost_called(in, HLO_A_CALLS), 1, out);
  case HLO_OP_WHILE: { /* body and condition, times the known trip count */
    memset(out, 0, sizeof *out);
    double n = trip_scale(in);
    if (whole_callee(a, cost_called(in, HLO_A_BODY), n, out)) return HLO_ERR;
    return whole_callee(a, cost_called(in, HLO_A_CONDITION), n, out);
  }
  case HLO_OP_CONDITIONAL: /* the most expensive branch, property by property */
    memset(out, 0, sizeof *out);
    return conditional_cost(a, in, out);
  }
  return HLO_OK;
}
