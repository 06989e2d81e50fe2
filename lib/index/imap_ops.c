/* imap_ops.c - per-op indexing rules: for one instruction, the maps from
 * an output index to each operand index (output->input) and from an
 * operand index to each output index (input->output).  An op without a
 * rule, or with attributes that do not fit its shapes, gets UNDEFINED maps;
 * a rule never guesses.  Fusion lives in imap_fusion.c. */
#include <string.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"
#include "index/imap_ops.h"

typedef enum rule {
  R_NONE, R_NO_OPERANDS, R_ELEMENTWISE, R_BITCAST_CONVERT, R_BROADCAST, R_TRANSPOSE, R_REVERSE,
  R_SLICE, R_DYNAMIC_SLICE, R_DYNAMIC_UPDATE_SLICE, R_CONCATENATE, R_PAD, R_REDUCE,
  R_REDUCE_WINDOW, R_RESHAPE, R_BITCAST, R_DOT, R_GATHER, R_CONVOLUTION, R_FUSION, R_TUPLE,
  /* rules XLA added after mid 2025 (none with --xla-text=2025) */
  R_GET_TUPLE_ELEMENT, R_SCAN, R_SCALED_DOT, R_ALL_GATHER, R_ALL_REDUCE
} rule;

/* The rule of op in the XLA that c follows. */
static rule rule_for(const imap_ctx *c, hlo_opcode op);

/* The indexing rule of every opcode (R_NONE: no rule, UNDEFINED maps). */
static const rule RULES[HLO_OP_COUNT] = {
    [HLO_OP_ABS] = R_ELEMENTWISE,
    [HLO_OP_ACOS] = R_ELEMENTWISE,
    [HLO_OP_ACOSH] = R_ELEMENTWISE,
    [HLO_OP_ADD] = R_ELEMENTWISE,
    [HLO_OP_ADD_DEPENDENCY] = R_NONE,
    [HLO_OP_AFTER_ALL] = R_NONE,
    [HLO_OP_ALL_GATHER] = R_ALL_GATHER,
    [HLO_OP_ALL_GATHER_DONE] = R_NONE,
    [HLO_OP_ALL_GATHER_START] = R_NONE,
    [HLO_OP_ALL_REDUCE] = R_ALL_REDUCE,
    [HLO_OP_ALL_REDUCE_DONE] = R_NONE,
    [HLO_OP_ALL_REDUCE_START] = R_NONE,
    [HLO_OP_ALL_TO_ALL] = R_NONE,
    [HLO_OP_AND] = R_ELEMENTWISE,
    [HLO_OP_ASIN] = R_ELEMENTWISE,
    [HLO_OP_ASINH] = R_ELEMENTWISE,
    [HLO_OP_ASYNC_DONE] = R_NONE,
    [HLO_OP_ASYNC_START] = R_NONE,
    [HLO_OP_ASYNC_UPDATE] = R_NONE,
    [HLO_OP_ATAN] = R_ELEMENTWISE,
    [HLO_OP_ATAN2] = R_ELEMENTWISE,
    [HLO_OP_ATANH] = R_ELEMENTWISE,
    [HLO_OP_BATCH_NORM_GRAD] = R_NONE,
    [HLO_OP_BATCH_NORM_INFERENCE] = R_NONE,
    [HLO_OP_BATCH_NORM_TRAINING] = R_NONE,
    [HLO_OP_BITCAST] = R_BITCAST,
    [HLO_OP_BITCAST_CONVERT] = R_BITCAST_CONVERT,
    [HLO_OP_BROADCAST] = R_BROADCAST,
    [HLO_OP_CALL] = R_NONE,
    [HLO_OP_CBRT] = R_ELEMENTWISE,
    [HLO_OP_CEIL] = R_ELEMENTWISE,
    [HLO_OP_CHOLESKY] = R_NONE,
    [HLO_OP_CLAMP] = R_ELEMENTWISE,
    [HLO_OP_CLZ] = R_ELEMENTWISE,
    [HLO_OP_COLLECTIVE_BROADCAST] = R_NONE,
    [HLO_OP_COLLECTIVE_PERMUTE] = R_NONE,
    [HLO_OP_COLLECTIVE_PERMUTE_DONE] = R_NONE,
    [HLO_OP_COLLECTIVE_PERMUTE_START] = R_NONE,
    [HLO_OP_COLLECTIVE_REDUCE] = R_NONE,
    [HLO_OP_COMPARE] = R_ELEMENTWISE,
    [HLO_OP_COMPLEX] = R_ELEMENTWISE,
    [HLO_OP_CONCATENATE] = R_CONCATENATE,
    [HLO_OP_CONDITIONAL] = R_NONE,
    [HLO_OP_CONSTANT] = R_NO_OPERANDS,
    [HLO_OP_CONVERT] = R_ELEMENTWISE,
    [HLO_OP_CONVOLUTION] = R_CONVOLUTION,
    [HLO_OP_COPY] = R_ELEMENTWISE,
    [HLO_OP_COPY_DONE] = R_NONE,
    [HLO_OP_COPY_START] = R_NONE,
    [HLO_OP_COS] = R_ELEMENTWISE,
    [HLO_OP_COSH] = R_ELEMENTWISE,
    [HLO_OP_CUSTOM_CALL] = R_NONE,
    [HLO_OP_DIVIDE] = R_ELEMENTWISE,
    [HLO_OP_DOMAIN] = R_NONE,
    [HLO_OP_DOT] = R_DOT,
    [HLO_OP_DYNAMIC_RESHAPE] = R_NONE,
    [HLO_OP_DYNAMIC_SLICE] = R_DYNAMIC_SLICE,
    [HLO_OP_DYNAMIC_UPDATE_SLICE] = R_DYNAMIC_UPDATE_SLICE,
    [HLO_OP_ERF] = R_ELEMENTWISE,
    [HLO_OP_EXP] = R_ELEMENTWISE,
    [HLO_OP_EXPM1] = R_ELEMENTWISE,
    [HLO_OP_FFT] = R_NONE,
    [HLO_OP_FLOOR] = R_ELEMENTWISE,
    [HLO_OP_FUSION] = R_FUSION,
    [HLO_OP_GATHER] = R_GATHER,
    [HLO_OP_GET_DIMENSION_SIZE] = R_NONE,
    [HLO_OP_GET_TUPLE_ELEMENT] = R_GET_TUPLE_ELEMENT,
    [HLO_OP_IMAG] = R_ELEMENTWISE,
    [HLO_OP_INFEED] = R_NONE,
    [HLO_OP_IOTA] = R_NO_OPERANDS,
    [HLO_OP_IS_FINITE] = R_ELEMENTWISE,
    [HLO_OP_LOG] = R_ELEMENTWISE,
    [HLO_OP_LOG1P] = R_ELEMENTWISE,
    [HLO_OP_LOGISTIC] = R_ELEMENTWISE,
    [HLO_OP_MAP] = R_ELEMENTWISE,
    [HLO_OP_MAXIMUM] = R_ELEMENTWISE,
    [HLO_OP_MINIMUM] = R_ELEMENTWISE,
    [HLO_OP_MULHI] = R_ELEMENTWISE,
    [HLO_OP_MULTIPLY] = R_ELEMENTWISE,
    [HLO_OP_NEGATE] = R_ELEMENTWISE,
    [HLO_OP_NOT] = R_ELEMENTWISE,
    [HLO_OP_OPTIMIZATION_BARRIER] = R_NONE,
    [HLO_OP_OR] = R_ELEMENTWISE,
    [HLO_OP_OUTFEED] = R_NONE,
    [HLO_OP_PAD] = R_PAD,
    [HLO_OP_PARAMETER] = R_NO_OPERANDS,
    [HLO_OP_PARTITION_ID] = R_NONE,
    [HLO_OP_POPCNT] = R_ELEMENTWISE,
    [HLO_OP_POWER] = R_ELEMENTWISE,
    [HLO_OP_RAGGED_ALL_TO_ALL] = R_NONE,
    [HLO_OP_RAGGED_DOT] = R_NONE,
    [HLO_OP_REAL] = R_ELEMENTWISE,
    [HLO_OP_RECV] = R_NONE,
    [HLO_OP_RECV_DONE] = R_NONE,
    [HLO_OP_REDUCE] = R_REDUCE,
    [HLO_OP_REDUCE_PRECISION] = R_ELEMENTWISE,
    [HLO_OP_REDUCE_SCATTER] = R_NONE,
    [HLO_OP_REDUCE_WINDOW] = R_REDUCE_WINDOW,
    [HLO_OP_REMAINDER] = R_ELEMENTWISE,
    [HLO_OP_REPLICA_ID] = R_NONE,
    [HLO_OP_RESHAPE] = R_RESHAPE,
    [HLO_OP_REVERSE] = R_REVERSE,
    [HLO_OP_RNG] = R_NONE,
    [HLO_OP_RNG_BIT_GENERATOR] = R_NONE,
    [HLO_OP_RNG_GET_AND_UPDATE_STATE] = R_NONE,
    [HLO_OP_ROUND_NEAREST_AFZ] = R_ELEMENTWISE,
    [HLO_OP_ROUND_NEAREST_EVEN] = R_ELEMENTWISE,
    [HLO_OP_RSQRT] = R_ELEMENTWISE,
    [HLO_OP_SCALED_DOT] = R_SCALED_DOT,
    [HLO_OP_SCAN] = R_SCAN,
    [HLO_OP_SCATTER] = R_NONE,
    [HLO_OP_SELECT] = R_ELEMENTWISE,
    [HLO_OP_SELECT_AND_SCATTER] = R_NONE,
    [HLO_OP_SEND] = R_NONE,
    [HLO_OP_SEND_DONE] = R_NONE,
    [HLO_OP_SET_DIMENSION_SIZE] = R_NONE,
    [HLO_OP_SHIFT_LEFT] = R_ELEMENTWISE,
    [HLO_OP_SHIFT_RIGHT_ARITHMETIC] = R_ELEMENTWISE,
    [HLO_OP_SHIFT_RIGHT_LOGICAL] = R_ELEMENTWISE,
    [HLO_OP_SHUFFLE] = R_NONE,
    [HLO_OP_SIGN] = R_ELEMENTWISE,
    [HLO_OP_SIN] = R_ELEMENTWISE,
    [HLO_OP_SINH] = R_ELEMENTWISE,
    [HLO_OP_SLICE] = R_SLICE,
    [HLO_OP_SORT] = R_NONE,
    [HLO_OP_SQRT] = R_ELEMENTWISE,
    [HLO_OP_STOCHASTIC_CONVERT] = R_ELEMENTWISE,
    [HLO_OP_SUBTRACT] = R_ELEMENTWISE,
    [HLO_OP_TAN] = R_ELEMENTWISE,
    [HLO_OP_TANH] = R_ELEMENTWISE,
    [HLO_OP_TOPK] = R_NONE,
    [HLO_OP_TRANSPOSE] = R_TRANSPOSE,
    [HLO_OP_TRIANGULAR_SOLVE] = R_NONE,
    [HLO_OP_TUPLE] = R_TUPLE,
    [HLO_OP_WHILE] = R_NONE,
    [HLO_OP_XOR] = R_ELEMENTWISE,
};

static rule rule_for(const imap_ctx *c, hlo_opcode op) {
  rule r = (unsigned)op < HLO_OP_COUNT ? RULES[op] : R_NONE;
  if (r >= R_GET_TUPLE_ELEMENT && c->xla == IMAP_XLA_2025) return R_NONE;
  return r;
}

/* ---- helpers ---------------------------------------------------------------- */
const hlo_shape *imap_out_shape(const hlo_instruction *in, int output) {
  if (hlo_shape_is_tuple(&in->shape))
    return output >= 0 && output < in->shape.ntuple ? &in->shape.tuple[output] : NULL;
  return output == 0 ? &in->shape : NULL;
}

int imap_noutputs(const hlo_instruction *in) {
  return hlo_shape_is_tuple(&in->shape) ? in->shape.ntuple : 1;
}

/* An array shape with known, non-negative dims. */
static bool arr(const hlo_shape *s) {
  if (!s || !hlo_shape_is_array(s)) return false;
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] < 0) return false;
  return true;
}

int imap_indexing_init(imap_ctx *c, imap_indexing *x, int n) {
  x->n = n;
  x->sets = imap_alloc(c, (size_t)(n > 0 ? n : 1), sizeof *x->sets);
  return x->sets ? HLO_OK : HLO_ERR;
}

static int all_undefined(imap_ctx *c, imap_indexing *x) {
  for (int i = 0; i < x->n; i++)
    if (imap_set_add(c, &x->sets[i], imap_map_undefined(c))) return HLO_ERR;
  return HLO_OK;
}

/* A map with dims over shape s (or given dims), results to fill. */
static imap_map *over(imap_ctx *c, const hlo_shape *s, int nsyms, int nrts, int nres) {
  imap_map *m = imap_map_new(c, s->rank, nsyms, nrts, nres);
  if (!m) return NULL;
  for (int i = 0; i < s->rank; i++) m->dims[i] = (imap_interval){0, s->dims[i] - 1};
  return m;
}

/* ()[s..] -> (s..) with s ranging over shape s. */
static imap_map *symbols_over(imap_ctx *c, const hlo_shape *s) {
  imap_map *m = imap_map_new(c, 0, s->rank, 0, s->rank);
  if (!m) return NULL;
  for (int i = 0; i < s->rank; i++) {
    m->syms[i] = (imap_interval){0, s->dims[i] - 1};
    if (!(m->results[i] = imap_sym(c, i))) return NULL;
  }
  return m;
}

static imap_map *identity(imap_ctx *c, const hlo_shape *s) { return imap_map_identity(c, s->rank, s->dims); }

static bool same_dims(const hlo_shape *a, const hlo_shape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

static bool valid_dims(const int64_t *v, int n, int rank, bool distinct) {
  for (int i = 0; i < n; i++) {
    if (v[i] < 0 || v[i] >= rank) return false;
    for (int j = 0; distinct && j < i; j++)
      if (v[j] == v[i]) return false;
  }
  return true;
}

static int index_of(const int64_t *v, int n, int64_t x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return i;
  return -1;
}

/* Slice dim i of operand size n gives exactly `out` elements, all inside. */
static bool slice_fits(const hlo_slice_dim *s, int64_t n, int64_t out) {
  if (s->stride < 1 || s->start < 0 || s->limit > n || s->limit < s->start) return false;
  int64_t want = (s->limit - s->start + s->stride - 1) / s->stride;
  return want == out;
}

/* Size of a padded (and base-dilated) dimension; -1 on overflow. */
static int64_t padded_size(int64_t n, int64_t lo, int64_t hi, int64_t interior) {
  int64_t t = 0;
  if (n > 0 && (__builtin_mul_overflow(n - 1, interior + 1, &t) || __builtin_add_overflow(t, 1, &t)))
    return -1;
  if (__builtin_add_overflow(t, lo, &t) || __builtin_add_overflow(t, hi, &t)) return -1;
  return t;
}

/* Number of window positions along a dim of padded size p. */
static int64_t window_count(int64_t p, int64_t size, int64_t stride, int64_t dilation) {
  int64_t span;
  if (__builtin_mul_overflow(size - 1, dilation, &span) || __builtin_add_overflow(span, 1, &span)) return -1;
  return p < span ? 0 : (p - span) / stride + 1;
}

/* Concatenation along cd: every operand has the output's other dims and the
 * sizes along cd add up. */
static bool concat_fits(const hlo_instruction *in, const hlo_shape *os, int cd) {
  int64_t total = 0;
  for (int k = 0; k < in->noperands; k++) {
    const hlo_shape *is = in->operands[k] ? &in->operands[k]->shape : NULL;
    if (!arr(is) || is->rank != os->rank) return false;
    for (int i = 0; i < os->rank; i++)
      if (i != cd && is->dims[i] != os->dims[i]) return false;
    if (__builtin_add_overflow(total, is->dims[cd], &total)) return false;
  }
  return total == os->dims[cd];
}

/* ---- building blocks shared with bitcast/reduce-window/convolution ----------- */

/* Map from an index of shape `from` (dims listed major-to-minor by
 * from_order) to shape `to` (to_order), through the row-major linear
 * position: linearize, then delinearize, then simplify.  NULL order = the
 * logical order.  Undefined if the element counts differ. */
static imap_map *relinearize(imap_ctx *c, const hlo_shape *from, const int64_t *from_order,
                             const hlo_shape *to, const int64_t *to_order) {
  int64_t nf, nt;
  if (!hlo_shape_elements(from, &nf) || !hlo_shape_elements(to, &nt) || nf != nt)
    return imap_map_undefined(c);
  imap_map *m = over(c, from, 0, 0, to->rank);
  if (!m) return NULL;
  if (nf == 0) {
    for (int k = 0; k < to->rank; k++) m->results[k] = imap_const(c, 0);
    return m;
  }
  const imap_expr *flat = imap_const(c, 0);
  int64_t stride = 1;
  for (int p = from->rank - 1; p >= 0; p--) {
    int dim = from_order ? (int)from_order[p] : p;
    flat = imap_add(c, flat, imap_mul(c, imap_dim(c, dim), stride));
    if (__builtin_mul_overflow(stride, from->dims[dim], &stride)) return imap_map_undefined(c);
  }
  stride = 1;
  for (int p = to->rank - 1; p >= 0; p--) {
    int dim = to_order ? (int)to_order[p] : p;
    const imap_expr *e = imap_floordiv(c, flat, stride);
    if (p > 0) e = imap_mod(c, e, to->dims[dim]);
    if (!(m->results[dim] = e)) return NULL;
    if (__builtin_mul_overflow(stride, to->dims[dim], &stride)) return imap_map_undefined(c);
  }
  return imap_simplify(c, m);
}

static const int64_t *major_to_minor(imap_ctx *c, const hlo_shape *s);

/* A bitcast from `from` to `to` that only renames dimensions (same rank,
 * each dim of `from` lands at the same physical position as a dim of `to`
 * of the same size) is a transpose; today's XLA gives it the transpose map
 * even when the bitcast is also a reshape (XLA 2025 relinearized it).
 * NULL map in *out when it is not such a bitcast. */
static int bitcast_as_transpose(imap_ctx *c, const hlo_shape *from, const hlo_shape *to, imap_map **out) {
  *out = NULL;
  if (c->xla == IMAP_XLA_2025 || from->rank != to->rank || from->rank == 0) return HLO_OK;
  const int64_t *fo = major_to_minor(c, from), *to_o = major_to_minor(c, to);
  if (!fo || !to_o) return HLO_OK;
  imap_map *m = over(c, from, 0, 0, to->rank);
  if (!m) return HLO_ERR;
  for (int p = 0; p < from->rank; p++) {
    int fd = (int)fo[p], td = (int)to_o[p];
    if (from->dims[fd] != to->dims[td]) return HLO_OK;
    m->results[td] = imap_dim(c, fd);
  }
  *out = m;
  return HLO_OK;
}

/* Major-to-minor order of a shape's layout (default: logical order). */
static const int64_t *major_to_minor(imap_ctx *c, const hlo_shape *s) {
  int64_t *o = imap_alloc(c, (size_t)s->rank, sizeof *o);
  if (!o) return NULL;
  if (!s->layout || s->layout->n != s->rank) {
    for (int i = 0; i < s->rank; i++) o[i] = i;
    return o;
  }
  for (int i = 0; i < s->rank; i++) {
    int64_t d = s->layout->minor_to_major[s->rank - 1 - i];
    if (d < 0 || d >= s->rank) return NULL;
    o[i] = d;
  }
  return o;
}

/* Output->input map of a pad: from the padded shape (dims pdims) to the
 * input shape, lo/interior per dim. */
static imap_map *pad_map(imap_ctx *c, int rank, const int64_t *pdims, const int64_t *in_dims,
                         const int64_t *lo, const int64_t *interior) {
  imap_map *m = imap_map_new(c, rank, 0, 0, rank);
  if (!m) return NULL;
  for (int i = 0; i < rank; i++) m->dims[i] = (imap_interval){0, pdims[i] - 1};
  for (int i = 0; i < rank; i++) {
    int64_t step, last, first = lo[i] > 0 ? lo[i] : 0;
    if (interior[i] < 0 || __builtin_add_overflow(interior[i], 1, &step) ||
        __builtin_mul_overflow(in_dims[i] - 1, step, &last) || __builtin_add_overflow(last, lo[i], &last))
      return imap_map_undefined(c);
    if (last > pdims[i] - 1) last = pdims[i] - 1;
    const imap_expr *x = imap_add_const(c, imap_dim(c, i), -lo[i]);
    if (!(m->results[i] = imap_floordiv(c, x, step))) return NULL;
    if (imap_map_add_constraint(c, m, imap_dim(c, i), first, last)) return NULL;
    if (step > 1 && imap_map_add_constraint(c, m, imap_mod(c, x, step), 0, 0)) return NULL;
    if (in_dims[i] == 0) imap_map_set_empty(c, m);
  }
  return m;
}

/* ---- output -> input ------------------------------------------------------------ */
static int o2i_reduce_window(imap_ctx *c, const hlo_instruction *in, const hlo_shape *os, imap_indexing *x) {
  int n = in->noperands / 2;
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  for (int k = 0; k < in->noperands; k++) {
    const hlo_shape *is = &in->operands[k]->shape;
    imap_map *m;
    if (k >= n) {
      m = arr(is) && is->rank == 0 ? over(c, os, 0, 0, 0) : imap_map_undefined(c);
    } else if (!wa || wa->kind != HLO_AK_WINDOW || wa->u.window.n != os->rank || !arr(is) ||
               is->rank != os->rank) {
      m = imap_map_undefined(c);
    } else {
      int r = os->rank;
      const hlo_window_dim *w = wa->u.window.dims;
      imap_map *win = over(c, os, r, 0, r);
      int64_t *pd = imap_alloc(c, (size_t)r, sizeof *pd), *lo = imap_alloc(c, (size_t)r, sizeof *lo),
              *it = imap_alloc(c, (size_t)r, sizeof *it);
      if (!win || !pd || !lo || !it) return HLO_ERR;
      bool ok = true;
      for (int i = 0; i < r && ok; i++) {
        int64_t stride = w[i].stride ? w[i].stride : 1, wd = w[i].rhs_dilate ? w[i].rhs_dilate : 1,
                bd = w[i].lhs_dilate ? w[i].lhs_dilate : 1, size = w[i].size;
        ok = size >= 1 && stride >= 1 && wd >= 1 && bd >= 1 && w[i].reversal == false;
        int64_t t = 0;
        ok = ok && !__builtin_mul_overflow(is->dims[i] > 0 ? is->dims[i] - 1 : 0, bd, &t) &&
             !__builtin_add_overflow(t, is->dims[i] > 0 ? 1 : 0, &t) &&
             !__builtin_add_overflow(t, w[i].pad_lo, &t) && !__builtin_add_overflow(t, w[i].pad_hi, &t);
        pd[i] = t;
        lo[i] = w[i].pad_lo;
        it[i] = bd - 1;
        ok = ok && window_count(t, size, stride, wd) == os->dims[i];
        win->syms[i] = (imap_interval){0, size - 1};
        win->results[i] = imap_add(c, imap_mul(c, imap_dim(c, i), stride), imap_mul(c, imap_sym(c, i), wd));
        if (ok && !win->results[i]) return HLO_ERR;
      }
      if (!ok) {
        m = imap_map_undefined(c);
      } else {
        imap_map *pm = pad_map(c, r, pd, is->dims, lo, it);
        if (!pm) return HLO_ERR;
        m = imap_compose(c, win, pm);
        if (m) m = imap_simplify(c, m);
        if (m) m = imap_remove_unused_symbols(c, m);
      }
    }
    if (imap_set_add(c, &x->sets[k], m)) return HLO_ERR;
  }
  return HLO_OK;
}

/* XLA builds a convolution's lhs map from a simplified map over the spatial
   dims only (the reduce-window map: window, then pad), renames its dims to
   the output's spatial dims and adds the batch and feature expressions
   without simplifying again: a batch or feature dim of size 1 stays a dim.
   Lhs symbols: the window symbols still used, the input feature within its
   group, then (batch_group_count > 1) the batch group; kernel symbols: every
   window position, then the input feature. */
static int o2i_conv(imap_ctx *c, const hlo_instruction *in, const hlo_shape *os, imap_indexing *x) {
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW), *da = hlo_instr_attr(in, HLO_A_DIM_LABELS);
  int64_t fgc = hlo_instr_int(in, HLO_A_FEATURE_GROUP_COUNT, 1), bgc = hlo_instr_int(in, HLO_A_BATCH_GROUP_COUNT, 1);
  if (in->noperands != 2 || !da || da->kind != HLO_AK_CONV_DNUMS || bgc < 1 || fgc < 1) return all_undefined(c, x);
  const hlo_conv_dnums *dn = da->u.conv;
  const hlo_shape *ls = &in->operands[0]->shape, *ks = &in->operands[1]->shape;
  int ns = dn->nspatial, r = ls->rank;
  if (!arr(ls) || !arr(ks) || r != ns + 2 || ks->rank != r || os->rank != r) return all_undefined(c, x);
  if ((wa && (wa->kind != HLO_AK_WINDOW || wa->u.window.n != ns)) || (!wa && ns != 0)) return all_undefined(c, x);
  int64_t ib = dn->in_batch, ifd = dn->in_feature, ob = dn->out_batch, of = dn->out_feature;
  int64_t ki = dn->kernel_in, ko = dn->kernel_out;
  if (ib < 0 || ib >= r || ifd < 0 || ifd >= r || ob < 0 || ob >= r || of < 0 || of >= r || ki < 0 ||
      ki >= r || ko < 0 || ko >= r)
    return all_undefined(c, x);
  for (int i = 0; i < ns; i++)
    if (dn->in_spatial[i] < 0 || dn->in_spatial[i] >= r || dn->out_spatial[i] < 0 || dn->out_spatial[i] >= r ||
        dn->kernel_spatial[i] < 0 || dn->kernel_spatial[i] >= r)
      return all_undefined(c, x);
  int64_t inf = ls->dims[ifd], outf = os->dims[of], group = ks->dims[ki], lb;
  if (inf % fgc != 0 || outf % fgc != 0 || group != inf / fgc || ks->dims[ko] != outf ||
      __builtin_mul_overflow(os->dims[ob], bgc, &lb) || ls->dims[ib] != lb)
    return all_undefined(c, x);
  /* the spatial map: output spatial index -> input spatial index */
  imap_map *win = imap_map_new(c, ns, ns, 0, ns), *kern = over(c, os, ns + 1, 0, r);
  int64_t *pd = imap_alloc(c, (size_t)ns, sizeof *pd), *lo = imap_alloc(c, (size_t)ns, sizeof *lo),
          *it = imap_alloc(c, (size_t)ns, sizeof *it), *sin = imap_alloc(c, (size_t)ns, sizeof *sin);
  const imap_expr **ren = imap_alloc(c, (size_t)ns, sizeof *ren);
  if (!win || !kern || (ns && (!pd || !lo || !it || !sin || !ren))) return HLO_ERR;
  for (int i = 0; i < ns; i++) {
    const hlo_window_dim *w = &wa->u.window.dims[i];
    int64_t stride = w->stride ? w->stride : 1, wd = w->rhs_dilate ? w->rhs_dilate : 1,
            bd = w->lhs_dilate ? w->lhs_dilate : 1, d = dn->in_spatial[i], t;
    if (w->size < 1 || stride < 1 || wd < 1 || bd < 1 || w->reversal || ks->dims[dn->kernel_spatial[i]] != w->size)
      return all_undefined(c, x);
    if (__builtin_mul_overflow(ls->dims[d] > 0 ? ls->dims[d] - 1 : 0, bd, &t) ||
        __builtin_add_overflow(t, (ls->dims[d] > 0) + w->pad_lo, &t) || __builtin_add_overflow(t, w->pad_hi, &t))
      return all_undefined(c, x);
    pd[i] = t;
    lo[i] = w->pad_lo;
    it[i] = bd - 1;
    sin[i] = ls->dims[d];
    if (window_count(t, w->size, stride, wd) != os->dims[dn->out_spatial[i]]) return all_undefined(c, x);
    win->dims[i] = (imap_interval){0, os->dims[dn->out_spatial[i]] - 1};
    win->syms[i] = kern->syms[i] = (imap_interval){0, w->size - 1};
    win->results[i] = imap_add(c, imap_mul(c, imap_dim(c, i), stride), imap_mul(c, imap_sym(c, i), wd));
    kern->results[dn->kernel_spatial[i]] = imap_sym(c, i);
    if (!(ren[i] = imap_dim(c, (int)dn->out_spatial[i])) || !win->results[i]) return HLO_ERR;
  }
  imap_map *pm = pad_map(c, ns, pd, sin, lo, it);
  imap_map *sm = pm ? imap_compose(c, win, pm) : NULL;
  if (sm && sm->state == IMAP_DEFINED) sm = imap_simplify(c, sm);
  if (sm && sm->state == IMAP_DEFINED) sm = imap_remove_unused_symbols(c, sm);
  if (!sm) return HLO_ERR;
  if (sm->state == IMAP_UNDEFINED) return all_undefined(c, x);
  int nsym = sm->state == IMAP_DEFINED ? sm->nsyms : ns;
  imap_map *lm = over(c, os, nsym + 1 + (bgc > 1), 0, r);
  if (!lm) return HLO_ERR;
  for (int i = 0; i < nsym; i++) lm->syms[i] = sm->state == IMAP_DEFINED ? sm->syms[i] : win->syms[i];
  lm->syms[nsym] = kern->syms[ns] = (imap_interval){0, group - 1};
  const imap_expr *feat = imap_sym(c, nsym), *batch = imap_dim(c, (int)ob);
  if (fgc > 1) /* the group of the output feature picks the input features */
    feat = imap_add(c, imap_mul(c, imap_floordiv(c, imap_dim(c, (int)of), outf / fgc), group), feat);
  if (bgc > 1) {
    lm->syms[nsym + 1] = (imap_interval){0, bgc - 1};
    batch = imap_add(c, imap_mul(c, imap_sym(c, nsym + 1), os->dims[ob]), batch);
  }
  lm->results[ifd] = feat;
  lm->results[ib] = batch;
  kern->results[ki] = imap_sym(c, ns);
  kern->results[ko] = imap_dim(c, (int)of);
  if (sm->state == IMAP_KNOWN_EMPTY) {
    imap_map_set_empty(c, lm);
  } else {
    for (int i = 0; i < ns; i++)
      lm->results[dn->in_spatial[i]] = imap_subst(c, sm->results[i], ren, ns, NULL, 0, NULL, 0);
    for (int j = 0; j < sm->ncons; j++)
      if (imap_map_add_constraint(c, lm, imap_subst(c, sm->cons[j].e, ren, ns, NULL, 0, NULL, 0), sm->cons[j].iv.lo,
                                  sm->cons[j].iv.hi))
        return HLO_ERR;
  }
  for (int i = 0; i < r; i++)
    if (!lm->results[i] || !kern->results[i]) return c->failed ? HLO_ERR : all_undefined(c, x);
  if (c->xla != IMAP_XLA_2025) {
    /* today's XLA simplifies both maps and drops the symbols they no longer
       use (a trivial dimension becomes 0, its symbol goes) */
    if (!(lm = imap_simplify(c, lm)) || !(lm = imap_remove_unused_symbols(c, lm))) return HLO_ERR;
    if (!(kern = imap_simplify(c, kern)) || !(kern = imap_remove_unused_symbols(c, kern))) return HLO_ERR;
  }
  if (imap_set_add(c, &x->sets[0], lm) || imap_set_add(c, &x->sets[1], kern)) return HLO_ERR;
  return HLO_OK;
}

static int o2i_dot(imap_ctx *c, const hlo_instruction *in, const hlo_shape *os, imap_indexing *x) {
  int nlb, nrb, nlc, nrc;
  const int64_t *lb = hlo_instr_ints(in, HLO_A_LHS_BATCH_DIMS, &nlb), *rb = hlo_instr_ints(in, HLO_A_RHS_BATCH_DIMS, &nrb);
  const int64_t *lc = hlo_instr_ints(in, HLO_A_LHS_CONTRACTING_DIMS, &nlc),
                *rc = hlo_instr_ints(in, HLO_A_RHS_CONTRACTING_DIMS, &nrc);
  bool scaled = in->op == HLO_OP_SCALED_DOT; /* lhs, rhs, lhs scale, rhs scale */
  if (in->noperands != (scaled ? 4 : 2)) return all_undefined(c, x);
  const hlo_shape *ls = &in->operands[0]->shape, *rs = &in->operands[1]->shape;
  if (!arr(ls) || !arr(rs) || nlb != nrb || nlc != nrc || !valid_dims(lb, nlb, ls->rank, true) ||
      !valid_dims(lc, nlc, ls->rank, true) || !valid_dims(rb, nrb, rs->rank, true) ||
      !valid_dims(rc, nrc, rs->rank, true))
    return all_undefined(c, x);
  int nlf = ls->rank - nlb - nlc, nrf = rs->rank - nrb - nrc;
  if (nlf < 0 || nrf < 0 || os->rank != nlb + nlf + nrf) return all_undefined(c, x);
  for (int i = 0; i < nlc; i++)
    if (hlo_ints_contain(lb, nlb, lc[i]) || hlo_ints_contain(rb, nrb, rc[i]) || ls->dims[lc[i]] != rs->dims[rc[i]])
      return all_undefined(c, x);
  for (int side = 0; scaled && side < 2; side++) {
    /* a scale has the operand's rank and divides each of its dims */
    const hlo_shape *s = side ? rs : ls, *ss = &in->operands[2 + side]->shape;
    if (!arr(ss) || ss->rank != s->rank) return all_undefined(c, x);
    for (int k = 0; k < s->rank; k++)
      if (ss->dims[k] <= 0 || s->dims[k] % ss->dims[k] != 0) return all_undefined(c, x);
  }
  for (int side = 0; side < 2; side++) {
    const hlo_shape *s = side ? rs : ls;
    const int64_t *b = side ? rb : lb, *cc = side ? rc : lc;
    imap_map *m = over(c, os, nlc, 0, s->rank);
    if (!m) return HLO_ERR;
    int free = 0;
    for (int k = 0; k < s->rank; k++) {
      int bi = index_of(b, nlb, k), ci = index_of(cc, nlc, k);
      if (bi >= 0) m->results[k] = imap_dim(c, bi);
      else if (ci >= 0) m->results[k] = imap_sym(c, ci);
      else {
        int od = nlb + (side ? nlf : 0) + free++;
        if (s->dims[k] != os->dims[od]) return all_undefined(c, x);
        m->results[k] = imap_dim(c, od);
      }
      if (!m->results[k]) return HLO_ERR;
      if (bi >= 0 && s->dims[k] != os->dims[bi]) return all_undefined(c, x);
    }
    for (int i = 0; i < nlc; i++) m->syms[i] = (imap_interval){0, ls->dims[lc[i]] - 1};
    if (imap_set_add(c, &x->sets[side], m)) return HLO_ERR;
    if (scaled) {
      /* the scale of an operand covers size / scale_size elements of each
         dim: its index is the operand's, floor-divided (today's XLA) */
      const hlo_shape *ss = &in->operands[2 + side]->shape;
      imap_map *sm = imap_map_copy(c, m);
      if (!sm) return HLO_ERR;
      for (int k = 0; k < s->rank; k++) {
        if (ss->dims[k] != s->dims[k] && !(sm->results[k] = imap_floordiv(c, m->results[k], s->dims[k] / ss->dims[k])))
          return HLO_ERR;
      }
      if (imap_set_add(c, &x->sets[2 + side], sm)) return HLO_ERR;
    }
  }
  return HLO_OK;
}

/* The runtime variables of a dynamic-(update-)slice map: variable i is the
   scalar operand first + i, read once per output index. */
static int offsets_as_rtvars(imap_ctx *c, imap_map **m, const hlo_instruction *in, int first,
                             const hlo_shape *os) {
  int n = (*m)->nrts;
  const hlo_instruction **src = imap_alloc(c, (size_t)n, sizeof *src);
  imap_map **rmaps = imap_alloc(c, (size_t)n, sizeof *rmaps);
  if (n && (!src || !rmaps)) return HLO_ERR;
  for (int i = 0; i < n; i++) {
    src[i] = in->operands[first + i];
    if (!(rmaps[i] = over(c, os, 0, 0, 0))) return HLO_ERR;
  }
  return imap_attach_rtvars(c, m, src, rmaps);
}

static int o2i_gather(imap_ctx *c, const hlo_instruction *in, const hlo_shape *os, imap_indexing *x) {
  int noff, ncol, nsim, nss, nob;
  const int64_t *off = hlo_instr_ints(in, HLO_A_OFFSET_DIMS, &noff);
  hlo_instr_ints(in, HLO_A_COLLAPSED_SLICE_DIMS, &ncol);
  hlo_instr_ints(in, HLO_A_OPERAND_BATCHING_DIMS, &nob);
  const int64_t *sim = hlo_instr_ints(in, HLO_A_START_INDEX_MAP, &nsim);
  const int64_t *ss = hlo_instr_ints(in, HLO_A_SLICE_SIZES, &nss);
  int64_t ivd = hlo_instr_int(in, HLO_A_INDEX_VECTOR_DIM, -1);
  if (in->noperands != 2) return all_undefined(c, x);
  const hlo_shape *ps = &in->operands[0]->shape, *is = &in->operands[1]->shape;
  /* only the simplified gather: indices [N, K], index_vector_dim 1, no
     collapsed dims, offset_dims {1..rank}, start_index_map K distinct
     operand dims (in any order since XLA's commit "Support start_index_map
     in ComputeOutputToInputGatherOpIndexing"; the identity before) */
  if (!arr(ps) || !arr(is) || is->rank != 2 || ivd != 1 || ncol != 0 || nob != 0 || nss != ps->rank ||
      noff != ps->rank || nsim != is->dims[1] || nsim > ps->rank || os->rank != 1 + ps->rank ||
      os->dims[0] != is->dims[0] || !valid_dims(sim, nsim, ps->rank, true))
    return all_undefined(c, x);
  for (int i = 0; i < nsim; i++)
    if (sim[i] != i && c->xla == IMAP_XLA_2025) return all_undefined(c, x);
  for (int i = 0; i < noff; i++)
    if (off[i] != i + 1 || ss[i] < 0 || ss[i] > ps->dims[i] || os->dims[i + 1] != ss[i]) return all_undefined(c, x);
  imap_map *m = over(c, os, 0, nsim, ps->rank);
  const hlo_instruction **src = imap_alloc(c, (size_t)nsim, sizeof *src);
  imap_map **rmaps = imap_alloc(c, (size_t)nsim, sizeof *rmaps);
  if (!m || (nsim && (!src || !rmaps))) return HLO_ERR;
  int k = 0; /* runtime variables are numbered in operand dimension order */
  for (int j = 0; j < ps->rank; j++) {
    const imap_expr *e = imap_dim(c, j + 1);
    int pos = index_of(sim, nsim, j);
    if (pos >= 0) {
      /* operand dim j starts at indices[d0, pos] */
      e = imap_add(c, e, imap_rt(c, k));
      m->rts[k] = (imap_interval){0, ps->dims[j] - ss[j]};
      src[k] = in->operands[1];
      if (!(rmaps[k] = over(c, os, 0, 0, 2))) return HLO_ERR;
      rmaps[k]->results[0] = imap_dim(c, 0);
      if (!(rmaps[k]->results[1] = imap_const(c, pos))) return HLO_ERR;
      k++;
    }
    if (!(m->results[j] = e)) return HLO_ERR;
  }
  if (imap_attach_rtvars(c, &m, src, rmaps)) return HLO_ERR;
  imap_map *im = over(c, os, 1, 0, 2);
  if (!im) return HLO_ERR;
  im->syms[0] = (imap_interval){0, is->dims[1] - 1};
  im->results[0] = imap_dim(c, 0);
  im->results[1] = imap_sym(c, 0);
  if (imap_set_add(c, &x->sets[0], m) || imap_set_add(c, &x->sets[1], im)) return HLO_ERR;
  return HLO_OK;
}

static int o2i_rules(imap_ctx *c, const hlo_instruction *in, int output, imap_indexing *x, hlo_diags *d,
                     int depth) {
  if (imap_indexing_init(c, x, in->noperands)) goto oom;
  const hlo_shape *os = imap_out_shape(in, output);
  rule r = rule_for(c, in->op);
  hlo_shape ds_shape;
  if (in->shape_omitted && r == R_DYNAMIC_SLICE && in->noperands > 0 && in->operands[0]) {
    /* result shape not written: it is the slice sizes */
    int cnt;
    const int64_t *v = hlo_instr_ints(in, HLO_A_DYNAMIC_SLICE_SIZES, &cnt);
    if (!v || hlo_shape_make_array(&c->arena, &ds_shape, in->operands[0]->shape.type, cnt, v)) r = R_NONE;
    else os = &ds_shape;
  }
  if (r == R_FUSION) {
    if (imap_fusion_output_to_input(c, in, output, x, d, depth)) return HLO_ERR;
    return HLO_OK;
  }
  if (r == R_TUPLE) {
    for (int k = 0; k < in->noperands; k++)
      if (k == output && arr(&in->operands[k]->shape) &&
          imap_set_add(c, &x->sets[k], identity(c, &in->operands[k]->shape)))
        goto oom;
    return HLO_OK;
  }
  if (r == R_GET_TUPLE_ELEMENT) {
    /* today's XLA: the identity over the element's shape */
    imap_map *g = in->noperands == 1 && arr(os) ? identity(c, os) : imap_map_undefined(c);
    if (in->noperands == 1 && imap_set_add(c, &x->sets[0], g)) goto oom;
    return in->noperands == 1 || !all_undefined(c, x) ? HLO_OK : HLO_ERR;
  }
  /* a single-device all-reduce is elementwise (today's XLA) */
  if (r == R_ALL_REDUCE) r = hlo_shape_is_tuple(&in->shape) ? R_NONE : R_ELEMENTWISE;
  if (!arr(os) || (r == R_REDUCE && !hlo_shape_is_tuple(&in->shape) && output != 0)) r = R_NONE;
  for (int k = 0; k < in->noperands && r != R_NONE; k++)
    if (!in->operands[k] || !arr(&in->operands[k]->shape)) r = R_NONE;
  int n = in->noperands, cnt;
  const int64_t *v;
  imap_map *m;
  switch (r) {
  case R_NONE:
    if (all_undefined(c, x)) goto oom;
    return HLO_OK;
  case R_NO_OPERANDS:
  case R_FUSION:
  case R_TUPLE:
    return HLO_OK;
  case R_ELEMENTWISE:
  case R_BITCAST_CONVERT:
    for (int k = 0; k < n; k++) {
      const hlo_shape *is = &in->operands[k]->shape;
      if (is->rank == 0 && os->rank > 0) m = over(c, os, 0, 0, 0);
      else m = same_dims(is, os) ? identity(c, os) : imap_map_undefined(c);
      if (imap_set_add(c, &x->sets[k], m)) goto oom;
    }
    return HLO_OK;
  case R_BROADCAST: {
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    const hlo_shape *is = &in->operands[0]->shape;
    if (n != 1 || cnt != is->rank || !valid_dims(v, cnt, os->rank, true)) break;
    m = over(c, os, 0, 0, cnt);
    if (!m) goto oom;
    for (int j = 0; j < cnt; j++) {
      if (is->dims[j] != os->dims[v[j]]) goto undef;
      m->results[j] = imap_dim(c, (int)v[j]);
    }
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  }
  case R_TRANSPOSE:
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    if (n != 1 || cnt != os->rank || in->operands[0]->shape.rank != cnt || !valid_dims(v, cnt, cnt, true)) break;
    m = over(c, os, 0, 0, cnt);
    if (!m) goto oom;
    for (int i = 0; i < cnt; i++) {
      if (in->operands[0]->shape.dims[v[i]] != os->dims[i]) goto undef;
      m->results[v[i]] = imap_dim(c, i);
    }
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  case R_REVERSE:
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    if (n != 1 || !same_dims(&in->operands[0]->shape, os) || !valid_dims(v, cnt, os->rank, false)) break;
    if (imap_set_add(c, &x->sets[0], imap_reverse_map(c, os, v, cnt))) goto oom;
    return HLO_OK;
  case R_SLICE: {
    const hlo_attr *a = hlo_instr_attr(in, HLO_A_SLICE);
    const hlo_shape *is = &in->operands[0]->shape;
    if (n != 1 || !a || a->kind != HLO_AK_SLICES || a->u.slices.n != os->rank || is->rank != os->rank) break;
    m = over(c, os, 0, 0, os->rank);
    if (!m) goto oom;
    for (int i = 0; i < os->rank; i++) {
      const hlo_slice_dim *s = &a->u.slices.v[i];
      if (!slice_fits(s, is->dims[i], os->dims[i])) goto undef;
      m->results[i] = imap_add_const(c, imap_mul(c, imap_dim(c, i), s->stride), s->start);
      if (!m->results[i]) goto oom;
    }
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  }
  case R_DYNAMIC_SLICE: {
    const hlo_shape *is = &in->operands[0]->shape;
    if (n != 1 + is->rank || is->rank != os->rank) break;
    for (int k = 1; k < n; k++)
      if (in->operands[k]->shape.rank != 0) goto undef;
    m = over(c, os, 0, os->rank, os->rank);
    if (!m) goto oom;
    for (int i = 0; i < os->rank; i++) {
      if (os->dims[i] > is->dims[i]) goto undef;
      m->rts[i] = (imap_interval){0, is->dims[i] - os->dims[i]};
      if (!(m->results[i] = imap_add(c, imap_dim(c, i), imap_rt(c, i)))) goto oom;
    }
    if (offsets_as_rtvars(c, &m, in, 1, os)) goto oom;
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    for (int k = 1; k < n; k++)
      if (imap_set_add(c, &x->sets[k], over(c, os, 0, 0, 0))) goto oom;
    return HLO_OK;
  }
  case R_DYNAMIC_UPDATE_SLICE: {
    const hlo_shape *us = n > 1 ? &in->operands[1]->shape : NULL;
    if (n < 2 || n != 2 + os->rank || us->rank != os->rank || !same_dims(&in->operands[0]->shape, os)) break;
    for (int k = 2; k < n; k++)
      if (in->operands[k]->shape.rank != 0) goto undef;
    m = over(c, os, 0, os->rank, os->rank);
    if (!m) goto oom;
    for (int i = 0; i < os->rank; i++) {
      if (us->dims[i] > os->dims[i]) goto undef;
      m->rts[i] = (imap_interval){0, os->dims[i] - us->dims[i]};
      if (!(m->results[i] = imap_sub(c, imap_dim(c, i), imap_rt(c, i)))) goto oom;
    }
    m->as_built = true; /* XLA builds `d_i - rt_i` and does not simplify */
    if (offsets_as_rtvars(c, &m, in, 2, os)) goto oom;
    if (imap_set_add(c, &x->sets[0], identity(c, os)) || imap_set_add(c, &x->sets[1], m)) goto oom;
    for (int k = 2; k < n; k++)
      if (imap_set_add(c, &x->sets[k], over(c, os, 0, 0, 0))) goto oom;
    return HLO_OK;
  }
  case R_CONCATENATE: {
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    if (cnt != 1 || v[0] < 0 || v[0] >= os->rank || !concat_fits(in, os, (int)v[0])) break;
    int cd = (int)v[0];
    int64_t offset = 0;
    for (int k = 0; k < n; k++) {
      const hlo_shape *is = &in->operands[k]->shape;
      if (is->rank != os->rank) goto undef;
      m = over(c, os, 0, 0, os->rank);
      if (!m) goto oom;
      for (int i = 0; i < os->rank; i++) {
        if (i != cd && is->dims[i] != os->dims[i]) goto undef;
        m->results[i] = i == cd ? imap_add_const(c, imap_dim(c, i), -offset) : imap_dim(c, i);
        if (!m->results[i]) goto oom;
      }
      m->dims[cd] = (imap_interval){offset, offset + is->dims[cd] - 1};
      if (is->dims[cd] == 0) imap_map_set_empty(c, m);
      if (__builtin_add_overflow(offset, is->dims[cd], &offset)) goto undef;
      if (imap_set_add(c, &x->sets[k], m)) goto oom;
    }
    return HLO_OK;
  }
  case R_PAD: {
    const hlo_attr *a = hlo_instr_attr(in, HLO_A_PADDING);
    const hlo_shape *is = &in->operands[0]->shape;
    if (n != 2 || !a || a->kind != HLO_AK_PADDING || a->u.padding.n != os->rank || is->rank != os->rank ||
        in->operands[1]->shape.rank != 0)
      break;
    int64_t *lo = imap_alloc(c, (size_t)os->rank, sizeof *lo), *it = imap_alloc(c, (size_t)os->rank, sizeof *it);
    if (!lo || !it) goto oom;
    for (int i = 0; i < os->rank; i++) {
      lo[i] = a->u.padding.dims[i].lo;
      it[i] = a->u.padding.dims[i].interior;
      if (it[i] < 0 || padded_size(is->dims[i], lo[i], a->u.padding.dims[i].hi, it[i]) != os->dims[i]) goto undef;
    }
    if (imap_set_add(c, &x->sets[0], pad_map(c, os->rank, os->dims, is->dims, lo, it)) ||
        imap_set_add(c, &x->sets[1], over(c, os, 0, 0, 0)))
      goto oom;
    return HLO_OK;
  }
  case R_REDUCE: {
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    if (n % 2 != 0 || n == 0) break;
    for (int k = 0; k < n / 2; k++) {
      const hlo_shape *is = &in->operands[k]->shape;
      if (!valid_dims(v, cnt, is->rank, true) || is->rank != os->rank + cnt) goto undef;
      m = over(c, os, cnt, 0, is->rank);
      if (!m) goto oom;
      int sym = 0, dim = 0;
      for (int j = 0; j < is->rank; j++) {
        if (hlo_ints_contain(v, cnt, j)) {
          m->syms[sym] = (imap_interval){0, is->dims[j] - 1};
          m->results[j] = imap_sym(c, sym++);
        } else {
          if (is->dims[j] != os->dims[dim]) goto undef;
          m->results[j] = imap_dim(c, dim++);
        }
        if (!m->results[j]) goto oom;
      }
      if (imap_set_add(c, &x->sets[k], m)) goto oom;
    }
    for (int k = n / 2; k < n; k++)
      if (imap_set_add(c, &x->sets[k], in->operands[k]->shape.rank == 0 ? over(c, os, 0, 0, 0)
                                                                         : imap_map_undefined(c)))
        goto oom;
    return HLO_OK;
  }
  case R_REDUCE_WINDOW:
    if (n % 2 != 0 || n == 0) break;
    if (o2i_reduce_window(c, in, os, x)) goto oom;
    return HLO_OK;
  case R_RESHAPE:
    if (n != 1) break;
    if (imap_set_add(c, &x->sets[0], relinearize(c, os, NULL, &in->operands[0]->shape, NULL))) goto oom;
    return HLO_OK;
  case R_BITCAST: {
    if (n != 1) break;
    const hlo_shape *is = &in->operands[0]->shape;
    imap_map *t;
    if (bitcast_as_transpose(c, os, is, &t)) goto oom;
    const int64_t *oo = major_to_minor(c, os), *io = major_to_minor(c, is);
    if (!t && (!oo || !io)) break;
    if (imap_set_add(c, &x->sets[0], t ? t : relinearize(c, os, oo, is, io))) goto oom;
    return HLO_OK;
  }
  case R_DOT:
  case R_SCALED_DOT:
    if (o2i_dot(c, in, os, x)) goto oom;
    return HLO_OK;
  case R_SCAN: {
    /* today's XLA: an array output reads the scanned inputs at the same
       index and every carry as a scalar; a scalar output (a carry) reads
       every operand as a scalar */
    int64_t nc = hlo_instr_int(in, HLO_A_NUM_CARRIES, 0);
    if (nc < 0 || nc > n) break;
    for (int k = 0; k < n; k++) {
      const hlo_shape *is = &in->operands[k]->shape;
      if (os->rank == 0 || k >= n - nc) m = over(c, os, 0, 0, 0);
      else m = same_dims(is, os) ? identity(c, os) : imap_map_undefined(c);
      if (imap_set_add(c, &x->sets[k], m)) goto oom;
    }
    return HLO_OK;
  }
  case R_ALL_GATHER: {
    /* today's XLA: along the gathered dimension, the output index is
       replica * n + i for the operand's size n; the map reads i and the
       replica id map gives the replica */
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    if (n != 1 || cnt != 1 || v[0] < 0 || v[0] >= os->rank) break;
    const hlo_shape *is = &in->operands[0]->shape;
    int gd = (int)v[0];
    if (is->rank != os->rank || is->dims[gd] <= 0 || os->dims[gd] % is->dims[gd] != 0) break;
    for (int i = 0; i < os->rank; i++)
      if (i != gd && is->dims[i] != os->dims[i]) goto undef;
    m = over(c, os, 0, 0, os->rank);
    imap_map *rep = over(c, os, 0, 0, 1);
    if (!m || !rep) goto oom;
    for (int i = 0; i < os->rank; i++)
      if (!(m->results[i] = i == gd ? imap_mod(c, imap_dim(c, i), is->dims[gd]) : imap_dim(c, i))) goto oom;
    if (!(rep->results[0] = imap_floordiv(c, imap_dim(c, gd), is->dims[gd]))) goto oom;
    m->replica = rep;
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  }
  case R_GET_TUPLE_ELEMENT:
  case R_ALL_REDUCE:
    break; /* handled above */
  case R_GATHER:
    if (o2i_gather(c, in, os, x)) goto oom;
    return HLO_OK;
  case R_CONVOLUTION:
    if (o2i_conv(c, in, os, x)) goto oom;
    return HLO_OK;
  }
undef:
  /* attributes that do not fit the shapes: no map rather than a wrong one */
  if (c->failed) goto oom;
  if (imap_indexing_init(c, x, in->noperands) || all_undefined(c, x)) goto oom;
  return HLO_OK;
oom:
  return hlo_errorf(d, NULL, 0, "%s: out of memory or integer overflow while building indexing maps",
                    in->name ? in->name : "?");
}

/* XLA's maps are KNOWN EMPTY as soon as a variable's interval is empty
   (a zero-sized dimension, window or reduced dimension). */
static void mark_empty(imap_ctx *c, imap_indexing *x) {
  for (int k = 0; k < x->n; k++)
    for (int j = 0; j < x->sets[k].n; j++) {
      imap_map *m = x->sets[k].v[j];
      if (m->state != IMAP_DEFINED) continue;
      bool empty = false;
      for (int i = 0; i < m->ndims; i++) empty |= m->dims[i].lo > m->dims[i].hi;
      for (int i = 0; i < m->nsyms; i++) empty |= m->syms[i].lo > m->syms[i].hi;
      for (int i = 0; i < m->nrts; i++) empty |= m->rts[i].lo > m->rts[i].hi;
      if (empty) imap_map_set_empty(c, m);
    }
}

int imap_output_to_input_depth(imap_ctx *c, const hlo_instruction *in, int output, imap_indexing *x,
                               hlo_diags *d, int depth) {
  if (o2i_rules(c, in, output, x, d, depth)) return HLO_ERR;
  mark_empty(c, x);
  return HLO_OK;
}

int imap_output_to_input(imap_ctx *c, const hlo_instruction *in, int output, imap_indexing *out,
                         hlo_diags *d) {
  return imap_output_to_input_depth(c, in, output, out, d, 0);
}

imap_map *imap_reverse_map(imap_ctx *c, const hlo_shape *s, const int64_t *v, int cnt) {
  imap_map *m = identity(c, s);
  if (!m) return NULL;
  for (int i = 0; i < cnt; i++)
    if (!(m->results[v[i]] = imap_add_const(c, imap_mul(c, imap_dim(c, (int)v[i]), -1), s->dims[v[i]] - 1)))
      return NULL;
  return m;
}

/* ---- input -> output ------------------------------------------------------------- */
static int i2o_rules(imap_ctx *c, const hlo_instruction *in, int input, imap_indexing *x, hlo_diags *d) {
  int nout = imap_noutputs(in);
  if (imap_indexing_init(c, x, nout)) goto oom;
  if (input < 0 || input >= in->noperands || !in->operands[input]) return all_undefined(c, x) ? HLO_ERR : HLO_OK;
  const hlo_shape *is = &in->operands[input]->shape, *os = imap_out_shape(in, 0);
  rule r = rule_for(c, in->op);
  if (r == R_TUPLE) {
    if (arr(is) && input < nout && imap_set_add(c, &x->sets[input], identity(c, is))) goto oom;
    return HLO_OK;
  }
  if (!arr(is) || !arr(os) || (nout != 1 && r != R_REDUCE)) r = R_NONE;
  int cnt;
  const int64_t *v;
  imap_map *m;
  switch (r) {
  case R_NONE:
  case R_NO_OPERANDS:
  case R_FUSION:
  case R_TUPLE:
  case R_DYNAMIC_SLICE:
  case R_DYNAMIC_UPDATE_SLICE:
  case R_PAD:
  case R_REDUCE_WINDOW:
  case R_GATHER:
  case R_CONVOLUTION:
  case R_GET_TUPLE_ELEMENT:
  case R_SCAN:
  case R_SCALED_DOT:
  case R_ALL_GATHER:
    break;
  case R_ALL_REDUCE: /* elementwise on a single device (today's XLA) */
  case R_ELEMENTWISE:
  case R_BITCAST_CONVERT:
    if (is->rank == 0 && os->rank > 0) m = symbols_over(c, os);
    else m = same_dims(is, os) ? identity(c, is) : imap_map_undefined(c);
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  case R_BROADCAST: {
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    if (cnt != is->rank || !valid_dims(v, cnt, os->rank, true)) break;
    m = over(c, is, os->rank - cnt, 0, os->rank);
    if (!m) goto oom;
    int sym = 0;
    for (int i = 0; i < os->rank; i++) {
      int j = index_of(v, cnt, i);
      if (j >= 0) {
        if (is->dims[j] != os->dims[i]) goto undef;
        m->results[i] = imap_dim(c, j);
      } else {
        m->syms[sym] = (imap_interval){0, os->dims[i] - 1};
        m->results[i] = imap_sym(c, sym++);
      }
      if (!m->results[i]) goto oom;
    }
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  }
  case R_TRANSPOSE:
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    if (cnt != os->rank || is->rank != cnt || !valid_dims(v, cnt, cnt, true)) break;
    m = over(c, is, 0, 0, cnt);
    if (!m) goto oom;
    for (int i = 0; i < cnt; i++) {
      if (is->dims[v[i]] != os->dims[i]) goto undef;
      if (!(m->results[i] = imap_dim(c, (int)v[i]))) goto oom;
    }
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  case R_REVERSE:
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    if (!same_dims(is, os) || !valid_dims(v, cnt, os->rank, false)) break;
    if (imap_set_add(c, &x->sets[0], imap_reverse_map(c, is, v, cnt))) goto oom;
    return HLO_OK;
  case R_SLICE: {
    const hlo_attr *a = hlo_instr_attr(in, HLO_A_SLICE);
    if (!a || a->kind != HLO_AK_SLICES || a->u.slices.n != os->rank || is->rank != os->rank) break;
    m = over(c, is, 0, 0, is->rank);
    if (!m) goto oom;
    for (int i = 0; i < is->rank; i++) {
      const hlo_slice_dim *s = &a->u.slices.v[i];
      int64_t last;
      if (!slice_fits(s, is->dims[i], os->dims[i]) || __builtin_mul_overflow(os->dims[i] - 1, s->stride, &last) ||
          __builtin_add_overflow(last, s->start, &last))
        goto undef;
      const imap_expr *e = imap_add_const(c, imap_dim(c, i), -s->start);
      if (!(m->results[i] = imap_floordiv(c, e, s->stride))) goto oom;
      m->dims[i] = (imap_interval){s->start, last};
      if (s->stride > 1 && imap_map_add_constraint(c, m, imap_mod(c, e, s->stride), 0, 0)) goto oom;
      if (os->dims[i] == 0) imap_map_set_empty(c, m);
    }
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  }
  case R_CONCATENATE: {
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    if (cnt != 1 || v[0] < 0 || v[0] >= os->rank || is->rank != os->rank || !concat_fits(in, os, (int)v[0])) break;
    int64_t offset = 0;
    for (int k = 0; k < input; k++)
      if (!in->operands[k] || !arr(&in->operands[k]->shape) || in->operands[k]->shape.rank != os->rank ||
          __builtin_add_overflow(offset, in->operands[k]->shape.dims[v[0]], &offset))
        goto undef;
    m = identity(c, is);
    if (!m) goto oom;
    if (!(m->results[v[0]] = imap_add_const(c, imap_dim(c, (int)v[0]), offset))) goto oom;
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  }
  case R_REDUCE: {
    v = hlo_instr_ints(in, HLO_A_DIMENSIONS, &cnt);
    int n = in->noperands;
    if (n % 2 != 0 || n / 2 != nout) break;
    for (int o = 0; o < nout; o++) {
      const hlo_shape *s = imap_out_shape(in, o);
      if (!arr(s)) goto undef;
      if (input >= n / 2) {
        m = is->rank == 0 ? symbols_over(c, s) : imap_map_undefined(c);
      } else {
        if (!valid_dims(v, cnt, is->rank, true) || is->rank != s->rank + cnt) goto undef;
        m = over(c, is, 0, 0, s->rank);
        if (!m) goto oom;
        int k = 0;
        for (int j = 0; j < is->rank; j++)
          if (!hlo_ints_contain(v, cnt, j)) {
            if (is->dims[j] != s->dims[k]) goto undef;
            if (!(m->results[k++] = imap_dim(c, j))) goto oom;
          }
      }
      if (imap_set_add(c, &x->sets[o], m)) goto oom;
    }
    return HLO_OK;
  }
  case R_RESHAPE:
    if (imap_set_add(c, &x->sets[0], relinearize(c, is, NULL, os, NULL))) goto oom;
    return HLO_OK;
  case R_BITCAST: {
    imap_map *t;
    if (bitcast_as_transpose(c, is, os, &t)) goto oom;
    const int64_t *oo = major_to_minor(c, os), *io = major_to_minor(c, is);
    if (!t && (!oo || !io)) break;
    if (imap_set_add(c, &x->sets[0], t ? t : relinearize(c, is, io, os, oo))) goto oom;
    return HLO_OK;
  }
  case R_DOT: {
    int nlb, nrb, nlc, nrc;
    const int64_t *lb = hlo_instr_ints(in, HLO_A_LHS_BATCH_DIMS, &nlb), *rb = hlo_instr_ints(in, HLO_A_RHS_BATCH_DIMS, &nrb);
    const int64_t *lc = hlo_instr_ints(in, HLO_A_LHS_CONTRACTING_DIMS, &nlc),
                  *rc = hlo_instr_ints(in, HLO_A_RHS_CONTRACTING_DIMS, &nrc);
    if (in->noperands != 2 || input > 1) break;
    const hlo_shape *ls = &in->operands[0]->shape, *rs = &in->operands[1]->shape;
    if (!arr(ls) || !arr(rs) || nlb != nrb || nlc != nrc || !valid_dims(lb, nlb, ls->rank, true) ||
        !valid_dims(lc, nlc, ls->rank, true) || !valid_dims(rb, nrb, rs->rank, true) ||
        !valid_dims(rc, nrc, rs->rank, true))
      break;
    int nlf = ls->rank - nlb - nlc, nrf = rs->rank - nrb - nrc;
    if (nlf < 0 || nrf < 0 || os->rank != nlb + nlf + nrf) break;
    const int64_t *b = input ? rb : lb, *cc = input ? rc : lc;
    int nother = input ? nlf : nrf;
    m = over(c, is, nother, 0, os->rank);
    if (!m) goto oom;
    for (int i = 0; i < nlb; i++) m->results[i] = imap_dim(c, (int)b[i]);
    int own = nlb + (input ? nlf : 0), oth = nlb + (input ? 0 : nlf), f = 0;
    for (int i = 0; i < nlb; i++)
      if (is->dims[b[i]] != os->dims[i]) goto undef;
    for (int i = 0; i < nlc; i++)
      if (ls->dims[lc[i]] != rs->dims[rc[i]]) goto undef;
    for (int k = 0; k < is->rank; k++)
      if (!hlo_ints_contain(b, nlb, k) && !hlo_ints_contain(cc, nlc, k)) {
        if (is->dims[k] != os->dims[own + f]) goto undef;
        m->results[own + f++] = imap_dim(c, k);
      }
    {
      const hlo_shape *other = input ? ls : rs;
      const int64_t *ob = input ? lb : rb, *oc = input ? lc : rc;
      int g = 0;
      for (int k = 0; k < other->rank; k++)
        if (!hlo_ints_contain(ob, nlb, k) && !hlo_ints_contain(oc, nlc, k) && other->dims[k] != os->dims[oth + g++]) goto undef;
    }
    for (int j = 0; j < nother; j++) {
      m->syms[j] = (imap_interval){0, os->dims[oth + j] - 1};
      m->results[oth + j] = imap_sym(c, j);
    }
    for (int i = 0; i < os->rank; i++)
      if (!m->results[i]) goto oom;
    if (imap_set_add(c, &x->sets[0], m)) goto oom;
    return HLO_OK;
  }
  }
undef:
  if (c->failed) goto oom;
  if (imap_indexing_init(c, x, nout) || all_undefined(c, x)) goto oom;
  return HLO_OK;
oom:
  return hlo_errorf(d, NULL, 0, "%s: out of memory or integer overflow while building indexing maps",
                    in->name ? in->name : "?");
}

/* ---- physical layouts ---------------------------------------------------------- */

/* physical index -> logical index of shape s (to_logical) or the reverse. */
int imap_input_to_output(imap_ctx *c, const hlo_instruction *in, int input, imap_indexing *x, hlo_diags *d) {
  if (i2o_rules(c, in, input, x, d)) return HLO_ERR;
  mark_empty(c, x);
  return HLO_OK;
}

static imap_map *layout_map(imap_ctx *c, const hlo_shape *s, bool to_logical) {
  const int64_t *o = major_to_minor(c, s);
  if (!o) return NULL;
  imap_map *m = imap_map_new(c, s->rank, 0, 0, s->rank);
  if (!m) return NULL;
  for (int p = 0; p < s->rank; p++) {
    int l = (int)o[p];
    if (to_logical) { /* dim p is physical position p */
      m->dims[p] = (imap_interval){0, s->dims[l] - 1};
      m->results[l] = imap_dim(c, p);
    } else {
      m->dims[l] = (imap_interval){0, s->dims[l] - 1};
      m->results[p] = imap_dim(c, l);
    }
  }
  for (int i = 0; i < s->rank; i++)
    if (!m->results[i]) return NULL;
  return m;
}

int imap_use_physical_layout(imap_ctx *c, const hlo_instruction *in, bool i2o, int index, imap_indexing *x,
                             hlo_diags *d) {
  for (int k = 0; k < x->n; k++) {
    const hlo_shape *from = i2o ? &in->operands[index]->shape : imap_out_shape(in, index);
    const hlo_shape *to = i2o ? imap_out_shape(in, k) : &in->operands[k]->shape;
    imap_set *s = &x->sets[k], old = *s;
    s->n = s->cap = 0;
    s->v = NULL;
    for (int j = 0; j < old.n; j++) {
      imap_map *m = old.v[j];
      if (m->state == IMAP_DEFINED && arr(from) && arr(to) && m->ndims == from->rank && m->nresults == to->rank) {
        imap_map *pre = layout_map(c, from, true), *post = layout_map(c, to, false);
        m = pre && post ? imap_compose(c, pre, m) : NULL;
        m = m ? imap_compose(c, m, post) : NULL;
        m = m ? imap_simplify(c, m) : NULL;
      } else if (m->state == IMAP_DEFINED) {
        m = imap_map_undefined(c);
      }
      if (imap_set_add(c, s, m))
        return hlo_errorf(d, NULL, 0, "%s: out of memory while building indexing maps", in->name ? in->name : "?");
    }
  }
  return HLO_OK;
}
