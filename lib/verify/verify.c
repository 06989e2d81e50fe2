/* verify.c - hlo_verify_module: runs the structural checks, then for every
 * instruction the shape check (inferred vs declared, XLA's CheckShape),
 * the called-computation signatures, the op-specific checks and sharding. */
#include <stdio.h>
#include <string.h>

#include "verify/verify_internal.h"

void vx_fail(vctx *v, const hlo_instruction *in, const char *fmt, ...) {
  hlo_buf b;
  hlo_buf_init(&b, v->d->alloc);
  va_list ap;
  va_start(ap, fmt);
  hlo_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  v->nerr++;
  hlo_errorf(v->d, v->src, in->off, "%%%s: %s", in->name ? in->name : "?",
             b.data && !b.failed ? b.data : "(out of memory)");
  hlo_buf_release(&b);
}

void vx_fail_at(vctx *v, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  v->nerr++;
  hlo_vdiagf(v->d, HLO_SEV_ERROR, v->src, off, fmt, ap);
  va_end(ap);
}

const char *vx_str(vctx *v, const hlo_shape *s) {
  const char *r = hlo_shape_str(&v->scratch, s, false);
  return r ? r : "?";
}

const char *vx_str_layout(vctx *v, const hlo_shape *s) {
  const char *r = hlo_shape_str(&v->scratch, s, true);
  return r ? r : "?";
}

bool vx_layout_equal(const hlo_shape *a, const hlo_shape *b) {
  if (a->type == HLO_TUPLE || b->type == HLO_TUPLE) {
    if (a->type != b->type || a->ntuple != b->ntuple) return false;
    for (int i = 0; i < a->ntuple; i++)
      if (!vx_layout_equal(&a->tuple[i], &b->tuple[i])) return false;
    return true;
  }
  if (!hlo_type_is_array(a->type) || a->rank != b->rank) return true;
  for (int i = 0; i < a->rank; i++) {
    int64_t x = a->layout && a->layout->n == a->rank ? a->layout->minor_to_major[i] : a->rank - 1 - i;
    int64_t y = b->layout && b->layout->n == b->rank ? b->layout->minor_to_major[i] : b->rank - 1 - i;
    if (x != y) return false;
  }
  return true;
}

bool vx_same(const vctx *v, const hlo_shape *a, const hlo_shape *b) {
  if (!hlo_shape_xla_compatible(a, b, false)) return false;
  return !v->o.layout_sensitive || vx_layout_equal(a, b);
}

bool vx_has_unbounded(const hlo_shape *s) {
  if (s->type == HLO_TUPLE) {
    for (int i = 0; i < s->ntuple; i++)
      if (vx_has_unbounded(&s->tuple[i])) return true;
    return false;
  }
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] == HLO_DIM_UNBOUNDED) return true;
  return false;
}

/* XLA's CheckShape: these ops only move or reinterpret data, so their shape
 * must be the same (with layouts when layout-sensitive); the others may
 * change layout and, with allow_mixed_precision, floating precision. */
static bool strict_shape(hlo_opcode op) {
  switch (op) {
  case HLO_OP_BITCAST: case HLO_OP_CALL: case HLO_OP_CONDITIONAL: case HLO_OP_CONSTANT: case HLO_OP_COPY_DONE:
  case HLO_OP_COPY_START: case HLO_OP_CUSTOM_CALL: case HLO_OP_DYNAMIC_UPDATE_SLICE:
  case HLO_OP_GET_TUPLE_ELEMENT: case HLO_OP_INFEED: case HLO_OP_OUTFEED: case HLO_OP_OPTIMIZATION_BARRIER:
  case HLO_OP_PARAMETER: case HLO_OP_RECV: case HLO_OP_RECV_DONE: case HLO_OP_SEND: case HLO_OP_SEND_DONE:
  case HLO_OP_TUPLE: case HLO_OP_WHILE: case HLO_OP_ASYNC_START: case HLO_OP_ASYNC_UPDATE:
  case HLO_OP_ASYNC_DONE:
    return true;
  case HLO_OP_ABS: case HLO_OP_ACOS: case HLO_OP_ACOSH: case HLO_OP_ADD: case HLO_OP_ADD_DEPENDENCY:
  case HLO_OP_AFTER_ALL: case HLO_OP_ALL_GATHER: case HLO_OP_ALL_GATHER_DONE: case HLO_OP_ALL_GATHER_START:
  case HLO_OP_ALL_REDUCE: case HLO_OP_ALL_REDUCE_DONE: case HLO_OP_ALL_REDUCE_START: case HLO_OP_ALL_TO_ALL:
  case HLO_OP_AND: case HLO_OP_ASIN: case HLO_OP_ASINH: case HLO_OP_ATAN: case HLO_OP_ATAN2: case HLO_OP_ATANH:
  case HLO_OP_BATCH_NORM_GRAD: case HLO_OP_BATCH_NORM_INFERENCE: case HLO_OP_BATCH_NORM_TRAINING:
  case HLO_OP_BITCAST_CONVERT: case HLO_OP_BROADCAST: case HLO_OP_CBRT: case HLO_OP_CEIL: case HLO_OP_CHOLESKY:
  case HLO_OP_CLAMP: case HLO_OP_CLZ: case HLO_OP_COLLECTIVE_BROADCAST: case HLO_OP_COLLECTIVE_PERMUTE:
  case HLO_OP_COLLECTIVE_PERMUTE_DONE: case HLO_OP_COLLECTIVE_PERMUTE_START: case HLO_OP_COLLECTIVE_REDUCE:
  case HLO_OP_COMPARE: case HLO_OP_COMPLEX: case HLO_OP_CONCATENATE: case HLO_OP_CONVERT:
  case HLO_OP_CONVOLUTION: case HLO_OP_COPY: case HLO_OP_COS: case HLO_OP_COSH: case HLO_OP_DIVIDE:
  case HLO_OP_DOMAIN: case HLO_OP_DOT: case HLO_OP_DYNAMIC_RESHAPE: case HLO_OP_DYNAMIC_SLICE: case HLO_OP_ERF:
  case HLO_OP_EXP: case HLO_OP_EXPM1: case HLO_OP_FFT: case HLO_OP_FLOOR: case HLO_OP_FUSION: case HLO_OP_GATHER:
  case HLO_OP_GET_DIMENSION_SIZE: case HLO_OP_IMAG: case HLO_OP_IOTA: case HLO_OP_IS_FINITE: case HLO_OP_LOG:
  case HLO_OP_LOG1P: case HLO_OP_LOGISTIC: case HLO_OP_MAP: case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM:
  case HLO_OP_MULHI: case HLO_OP_MULTIPLY: case HLO_OP_NEGATE: case HLO_OP_NOT: case HLO_OP_OR: case HLO_OP_PAD:
  case HLO_OP_PARTITION_ID: case HLO_OP_POPCNT: case HLO_OP_POWER: case HLO_OP_RAGGED_ALL_TO_ALL:
  case HLO_OP_RAGGED_DOT: case HLO_OP_REAL: case HLO_OP_REDUCE: case HLO_OP_REDUCE_PRECISION:
  case HLO_OP_REDUCE_SCATTER: case HLO_OP_REDUCE_WINDOW: case HLO_OP_REMAINDER: case HLO_OP_REPLICA_ID:
  case HLO_OP_RESHAPE: case HLO_OP_REVERSE: case HLO_OP_RNG: case HLO_OP_RNG_BIT_GENERATOR:
  case HLO_OP_RNG_GET_AND_UPDATE_STATE: case HLO_OP_ROUND_NEAREST_AFZ: case HLO_OP_ROUND_NEAREST_EVEN:
  case HLO_OP_RSQRT: case HLO_OP_SCALED_DOT: case HLO_OP_SCAN: case HLO_OP_SCATTER: case HLO_OP_SELECT:
  case HLO_OP_SELECT_AND_SCATTER: case HLO_OP_SET_DIMENSION_SIZE: case HLO_OP_SHIFT_LEFT:
  case HLO_OP_SHIFT_RIGHT_ARITHMETIC: case HLO_OP_SHIFT_RIGHT_LOGICAL: case HLO_OP_SHUFFLE: case HLO_OP_SIGN:
  case HLO_OP_SIN: case HLO_OP_SINH: case HLO_OP_SLICE: case HLO_OP_SORT: case HLO_OP_SQRT:
  case HLO_OP_STOCHASTIC_CONVERT: case HLO_OP_SUBTRACT: case HLO_OP_TAN: case HLO_OP_TANH: case HLO_OP_TOPK:
  case HLO_OP_TRANSPOSE: case HLO_OP_TRIANGULAR_SOLVE: case HLO_OP_XOR: case HLO_OP_COUNT:
    return false;
  }
  return false;
}

static void check_shape(vctx *v, const hlo_instruction *in) {
  hlo_shape inf;
  if (hlo_infer_shape(in, &v->scratch, &inf, v->d, v->src)) {
    v->nerr++;
    return;
  }
  bool ok = strict_shape(in->op) ? vx_same(v, &in->shape, &inf)
                                 : hlo_shape_xla_compatible(&in->shape, &inf, v->o.allow_mixed_precision);
  if (ok) return;
  if (in->op == HLO_OP_FUSION)
    vx_fail(v, in, "Fused computation shape (%s) is not equal to the fusion shape (%s)", vx_str(v, &inf),
            vx_str(v, &in->shape));
  else
    vx_fail(v, in, "Expected instruction to have shape equal to %s, actual shape is %s.",
            v->o.layout_sensitive && strict_shape(in->op) ? vx_str_layout(v, &inf) : vx_str(v, &inf),
            v->o.layout_sensitive && strict_shape(in->op) ? vx_str_layout(v, &in->shape) : vx_str(v, &in->shape));
}

static int64_t module_int(const hlo_module *m, hlo_attr_key k, int64_t dflt) {
  const hlo_attr *a = hlo_module_attr(m, k);
  return a && a->kind == HLO_AK_INT ? a->u.i : dflt;
}

int hlo_verify_module(const hlo_module *m, const hlo_verify_options *opts, hlo_diags *d, const hlo_src *src) {
  vctx v = {.m = m, .d = d, .src = src};
  if (opts) v.o = *opts;
  if (v.o.replica_count <= 0) v.o.replica_count = module_int(m, HLO_A_REPLICA_COUNT, 1);
  if (v.o.num_partitions <= 0) v.o.num_partitions = module_int(m, HLO_A_NUM_PARTITIONS, 0);
  hlo_arena_init(&v.scratch, d->alloc);
  int start = d->nerrors;
  hlo_verify_structure(&v);
  for (int ci = 0; ci < m->ncomps; ci++) {
    const hlo_computation *c = m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      const hlo_instruction *in = c->instrs[i];
      bool ops_ok = true;
      for (int k = 0; k < in->noperands; k++) ops_ok &= in->operands[k] != NULL;
      if (!ops_ok) continue; /* reported by the structure checks */
      if (in->shape_omitted && in->shape.type == HLO_PRED && in->shape.rank == 0 && !in->shape.layout) {
        /* never filled in (hlo_shape_fill_omitted not run, or it failed) */
        vx_fail(&v, in, "the result shape was omitted and has not been inferred");
        continue;
      }
      check_shape(&v, in);
      if (!hlo_shape_operand_count_ok(in, NULL, NULL) || in->ncalled > HLO_INFER_MAX_OPERANDS) continue; /* reported by check_shape */
      hlo_verify_calls(&v, in);
      hlo_verify_op(&v, in);
      hlo_verify_sharding(&v, in);
    }
  }
  hlo_arena_release(&v.scratch);
  return v.nerr || d->nerrors > start ? HLO_ERR : HLO_OK;
}
