/* infer_reduce.c - shape rules of the reducing and windowed ops (reduce,
 * reduce-window, select-and-scatter), sort, topk and the batch-norm ops.
 * Reducer/comparator signatures are checked by the verifier; here only the
 * result shape and the operand constraints. */
#include <string.h>

#include "core/bug.h"
#include "shape/infer_internal.h"

static int result_n(infer_ctx *c, int n, const hlo_shape *el) {
  if (n == 1) return sx_copy(c, &el[0]);
  const hlo_shape **p = SX_TMP(c, n, const hlo_shape *);
  if (!p) return HLO_ERR;
  for (int i = 0; i < n; i++) p[i] = &el[i];
  return sx_tuple(c, n, p);
}

/* Common checks of N inputs followed by N scalar init values. */
static int inputs_and_inits(infer_ctx *c, const char *what, int *n_out) {
  int no = c->in->noperands;
  if (no < 2 || no % 2) return sx_fail(c, "%s takes N inputs and N init values; got %d operands.", what, no);
  int n = no / 2;
  for (int i = 0; i < no; i++)
    if (strcmp(what, "reduce") == 0 ? sx_need_array_or_buffer(c, i, what) : sx_need_array(c, i, what)) return HLO_ERR;
  const hlo_shape *s0 = sx_op(c, 0);
  for (int i = 0; i < n; i++) {
    const hlo_shape *s = sx_op(c, i), *init = sx_op(c, n + i);
    if (s->rank != s0->rank || !hlo_shape_xla_compatible(&(hlo_shape){.type = s0->type, .rank = s->rank, .dims = s->dims}, s0, false))
      return sx_fail(c, "All inputs of %s must have the same dimensions; got %s and %s.", what, sx_str(c, s0),
                     sx_str(c, s));
    if (init->rank != 0)
      return sx_fail(c, "%s init value %d must be a scalar; got %s.", what, i, sx_str(c, init));
    /* the accumulator (init) type may be wider than the input's (is_promotable) */
    bool promotable = hlo_type_kind_of(init->type) == hlo_type_kind_of(s->type) &&
                      hlo_type_bits(init->type) >= hlo_type_bits(s->type);
    if (!sx_same_type_fp(init->type, s->type) && !promotable)
      return sx_fail(c, "%s input %d has element type %s but its init value has %s.", what, i, hlo_type_name(s->type),
                     hlo_type_name(init->type));
  }
  *n_out = n;
  return HLO_OK;
}

/* The element type of result i of a reduce: the reducer's (XLA's
 * InferReduceShape), which may differ from the init value's in float
 * precision; the init value's while the reducer is not known (its
 * signature is the verifier's to check). */
static hlo_type reducer_type(const hlo_instruction *in, int n, int i, hlo_type init) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_TO_APPLY);
  const hlo_instruction *root = a && a->kind == HLO_AK_COMP && a->u.comp ? a->u.comp->root : NULL;
  if (!root || root->shape_omitted) return init;
  const hlo_shape *r = &root->shape;
  if (r->type == HLO_TUPLE && r->ntuple == n) r = &r->tuple[i];
  else if (n != 1) return init;
  return hlo_shape_is_scalar(r) ? r->type : init;
}

int hlo_shape_infer_reduce(infer_ctx *c) {
  int n;
  if (inputs_and_inits(c, "reduce", &n)) return HLO_ERR;
  const hlo_shape *s0 = sx_op(c, 0);
  int nd;
  const int64_t *dims = hlo_instr_ints(c->in, HLO_A_DIMENSIONS, &nd);
  if (sx_dims_in_range(c, "Reducing dimension", dims, nd, s0->rank) || sx_dims_unique(c, "Reduce dimensions", dims, nd))
    return HLO_ERR;
  int r = s0->rank - nd;
  int64_t kept[s0->rank ? s0->rank : 1];
  bool kdyn[s0->rank ? s0->rank : 1];
  int k = 0;
  for (int d = 0; d < s0->rank; d++) {
    bool red = false;
    for (int j = 0; j < nd; j++) red |= dims[j] == d;
    if (!red) kdyn[k] = s0->dynamic && s0->dynamic[d], kept[k++] = s0->dims[d];
  }
  hlo_shape *el = SX_TMP(c, n, hlo_shape);
  if (!el) return HLO_ERR;
  for (int i = 0; i < n; i++) {
    if (hlo_shape_make_array(c->a, &el[i], reducer_type(c->in, n, i, sx_op(c, n + i)->type), r, kept)) return HLO_ERR;
    if (s0->dynamic && r) {
      if (!(el[i].dynamic = hlo_arena_array(c->a, (size_t)r, sizeof(bool)))) return HLO_ERR;
      memcpy(el[i].dynamic, kdyn, (size_t)r * sizeof(bool));
    }
  }
  return result_n(c, n, el);
}

static const hlo_window *window_of(infer_ctx *c, int rank, const char *what) {
  const hlo_attr *a = hlo_instr_attr(c->in, HLO_A_WINDOW);
  static const hlo_window empty = {0, NULL};
  if (!a || a->kind != HLO_AK_WINDOW) {
    if (rank == 0) return &empty;
    sx_fail(c, "%s needs a window={...} attribute", what);
    return NULL;
  }
  if (a->u.window.n != rank) {
    sx_fail(c, "Window has %d dimensions but the operand of %s has rank %d.", a->u.window.n, what, rank);
    return NULL;
  }
  for (int i = 0; i < rank; i++) {
    const hlo_window_dim *w = &a->u.window.dims[i];
    if (w->size <= 0 || w->stride <= 0 || w->lhs_dilate <= 0 || w->rhs_dilate <= 0) {
      sx_fail(c, "Window dimension %d has a non-positive size, stride or dilation.", i);
      return NULL;
    }
  }
  return &a->u.window;
}

static int windowed_dims(infer_ctx *c, const hlo_shape *s, const hlo_window *w, int64_t *out) {
  for (int i = 0; i < s->rank; i++) {
    if (s->dims[i] == HLO_DIM_UNBOUNDED) {
      out[i] = HLO_DIM_UNBOUNDED;
      continue;
    }
    out[i] = sx_window_out(s->dims[i], &w->dims[i]);
    if (out[i] < 0) return sx_fail(c, "Window dimension %d gives an invalid output size.", i);
  }
  return HLO_OK;
}

int hlo_shape_infer_reduce_window(infer_ctx *c) {
  int n;
  if (inputs_and_inits(c, "reduce-window", &n)) return HLO_ERR;
  const hlo_shape *s0 = sx_op(c, 0);
  const hlo_window *w = window_of(c, s0->rank, "reduce-window");
  if (!w) return HLO_ERR;
  int64_t dims[s0->rank ? s0->rank : 1];
  if (windowed_dims(c, s0, w, dims)) return HLO_ERR;
  hlo_shape *el = SX_TMP(c, n, hlo_shape);
  if (!el) return HLO_ERR;
  for (int i = 0; i < n; i++)
    if (hlo_shape_make_array(c->a, &el[i], sx_op(c, n + i)->type, s0->rank, dims)) return HLO_ERR;
  return result_n(c, n, el);
}

int hlo_shape_infer_select_and_scatter(infer_ctx *c) {
  for (int i = 0; i < 3; i++)
    if (sx_need_array(c, i, "select-and-scatter")) return HLO_ERR;
  const hlo_shape *op = sx_op(c, 0), *src = sx_op(c, 1), *init = sx_op(c, 2);
  if (init->rank != 0) return sx_fail(c, "select-and-scatter init value must be a scalar; got %s.", sx_str(c, init));
  if (!sx_same_type_fp(init->type, op->type) || !sx_same_type_fp(src->type, op->type))
    return sx_fail(c, "select-and-scatter operand, source and init value must have the same element type; got %s, %s, %s.",
                   sx_str(c, op), sx_str(c, src), sx_str(c, init));
  const hlo_window *w = window_of(c, op->rank, "select-and-scatter");
  if (!w) return HLO_ERR;
  int64_t dims[op->rank ? op->rank : 1];
  if (windowed_dims(c, op, w, dims)) return HLO_ERR;
  hlo_shape expect;
  if (hlo_shape_make_array(c->a, &expect, src->type, op->rank, dims)) return HLO_ERR;
  if (!hlo_shape_xla_compatible(&expect, src, true))
    return sx_fail(c, "Source shape does not match the shape of window-reduced operand: source(%s), window-reduced operand(%s).",
                   sx_str(c, src), sx_str(c, &expect));
  return sx_copy(c, op);
}

int hlo_shape_infer_sort(infer_ctx *c) {
  int n = c->in->noperands;
  HLO_ASSERT(n >= 1); /* hlo_infer_shape checked the operand count */
  for (int i = 0; i < n; i++)
    if (sx_need_array_or_buffer(c, i, "sort")) return HLO_ERR;
  const hlo_shape *s0 = sx_op(c, 0);
  int nd;
  const int64_t *d = hlo_instr_ints(c->in, HLO_A_DIMENSIONS, &nd);
  if (nd != 1) return sx_fail(c, "sort needs exactly one dimension in dimensions={...}; got %d.", nd);
  if (d[0] < 0 || d[0] >= s0->rank)
    return sx_fail(c, "sort dimension %lld is out of range for an operand of rank %d.", (long long)d[0], s0->rank);
  for (int i = 1; i < n; i++) {
    const hlo_shape *s = sx_op(c, i);
    if (!sx_same_dims(s, s0))
      return sx_fail(c, "Expected sort operand %d to have the dimensions of operand 0; got %s and %s.", i,
                     sx_str(c, s), sx_str(c, s0));
  }
  if (n == 1) return sx_copy(c, s0);
  const hlo_shape **el = SX_TMP(c, n, const hlo_shape *);
  if (!el) return HLO_ERR;
  for (int i = 0; i < n; i++) el[i] = sx_op(c, i);
  return sx_tuple(c, n, el);
}

int hlo_shape_infer_topk(infer_ctx *c) {
  if (sx_need_array(c, 0, "topk")) return HLO_ERR;
  const hlo_shape *s = sx_op(c, 0);
  int64_t k = hlo_instr_int(c->in, HLO_A_K, -1);
  if (s->rank < 1) return sx_fail(c, "topk operand must have rank >= 1; got %s.", sx_str(c, s));
  if (k < 0) return sx_fail(c, "topk needs a non-negative k attribute.");
  if (s->dims[s->rank - 1] != HLO_DIM_UNBOUNDED && k > s->dims[s->rank - 1])
    return sx_fail(c, "topk k (%lld) is larger than the last dimension (%lld).", (long long)k,
                   (long long)s->dims[s->rank - 1]);
  int64_t dims[s->rank];
  memcpy(dims, s->dims, (size_t)s->rank * sizeof(int64_t));
  dims[s->rank - 1] = k;
  hlo_shape el[2];
  if (hlo_shape_make_array(c->a, &el[0], s->type, s->rank, dims) ||
      hlo_shape_make_array(c->a, &el[1], HLO_S32, s->rank, dims))
    return HLO_ERR;
  const hlo_shape *p[2] = {&el[0], &el[1]};
  return sx_tuple(c, 2, p);
}

/* batch-norm-training(operand, scale, offset), -inference(operand, scale,
 * offset, mean, variance), -grad(operand, scale, mean, variance, grad_out). */
int hlo_shape_infer_batch_norm(infer_ctx *c) {
  int no = c->in->noperands;
  for (int i = 0; i < no; i++)
    if (sx_need_array(c, i, hlo_opcode_name(c->in->op))) return HLO_ERR;
  const hlo_shape *op = sx_op(c, 0);
  int64_t fi = hlo_instr_int(c->in, HLO_A_FEATURE_INDEX, -1);
  if (!hlo_type_is_float(op->type))
    return sx_fail(c, "The operand to batch norm must have a floating point element type, but the shape is %s.",
                   sx_str(c, op));
  if (fi < 0 || fi >= op->rank)
    return sx_fail(c, "Expected feature_index of batch-norm to be smaller than the rank of operand_shape; got feature_index %lld, and rank %d.",
                   (long long)fi, op->rank);
  int64_t nf = op->dims[fi];
  bool grad = c->in->op == HLO_OP_BATCH_NORM_GRAD;
  for (int i = 1; i < no; i++) {
    const hlo_shape *s = sx_op(c, i);
    if (!sx_same_type_fp(s->type, op->type))
      return sx_fail(c, "The inputs to batch norm should have the same element type; operand %d is %s, operand 0 is %s.",
                     i, sx_str(c, s), sx_str(c, op));
    if (grad && i == 4) {
      if (!hlo_shape_xla_compatible(s, op, true))
        return sx_fail(c, "The grad_output shape %s must be the operand shape %s.", sx_str(c, s), sx_str(c, op));
      continue;
    }
    if (s->rank != 1)
      return sx_fail(c, "Batch norm operand %d must have rank 1; got %s.", i, sx_str(c, s));
    if (s->dims[0] != nf && s->dims[0] != HLO_DIM_UNBOUNDED && nf != HLO_DIM_UNBOUNDED)
      return sx_fail(c, "The size of operand %d (%lld) must equal the feature dimension size %lld of the operand.", i,
                     (long long)s->dims[0], (long long)nf);
  }
  if (c->in->op == HLO_OP_BATCH_NORM_INFERENCE) return sx_copy(c, op);
  hlo_shape vec;
  if (hlo_shape_make_array(c->a, &vec, op->type, 1, &nf)) return HLO_ERR;
  const hlo_shape *p[3] = {op, &vec, &vec};
  return sx_tuple(c, 3, p);
}
