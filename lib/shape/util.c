/* util.c - XLA's shape compatibility, and the small helpers the
 * inference files share (result setters, diagnostics, dimension checks). */
#include <stdio.h>
#include <string.h>

#include "shape/infer_internal.h"

/* ---- public helpers ------------------------------------------------------ */

bool hlo_shape_xla_compatible(const hlo_shape *a, const hlo_shape *b, bool ignore_fp) {
  if (a->type == HLO_TUPLE || b->type == HLO_TUPLE) {
    if (a->type != b->type || a->ntuple != b->ntuple) return false;
    for (int i = 0; i < a->ntuple; i++)
      if (!hlo_shape_xla_compatible(&a->tuple[i], &b->tuple[i], ignore_fp)) return false;
    return true;
  }
  if (a->type != b->type && !(ignore_fp && hlo_type_is_float(a->type) && hlo_type_is_float(b->type)))
    return false;
  if (!hlo_type_is_array(a->type)) return true;
  if (a->rank != b->rank || a->buffer != b->buffer) return false;
  for (int i = 0; i < a->rank; i++) {
    if (a->dims[i] == HLO_DIM_UNBOUNDED || b->dims[i] == HLO_DIM_UNBOUNDED) continue;
    if (a->dims[i] != b->dims[i]) return false;
  }
  return true;
}

hlo_type hlo_shape_higher_precision(hlo_type a, hlo_type b) {
  if (!hlo_type_is_float(a) || !hlo_type_is_float(b)) return a;
  if (hlo_type_bits(b) > hlo_type_bits(a)) return b;
  return a;
}

/* ---- internal helpers ---------------------------------------------------- */

int sx_fail(infer_ctx *c, const char *fmt, ...) {
  hlo_buf b;
  hlo_buf_init(&b, c->d->alloc);
  va_list ap;
  va_start(ap, fmt);
  hlo_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  hlo_errorf(c->d, c->src, c->in->off, "%%%s: %s", c->in->name ? c->in->name : "?",
             b.data && !b.failed ? b.data : "(out of memory)");
  hlo_buf_release(&b);
  return HLO_ERR;
}

const hlo_shape *sx_op(const infer_ctx *c, int i) { return &c->in->operands[i]->shape; }

const char *sx_str(infer_ctx *c, const hlo_shape *s) {
  const char *r = hlo_shape_str(c->a, s, false);
  return r ? r : "?";
}

int sx_array(infer_ctx *c, hlo_type t, int rank, const int64_t *dims) {
  return hlo_shape_make_array(c->a, c->out, t, rank, dims);
}

int sx_copy(infer_ctx *c, const hlo_shape *s) { return hlo_shape_copy(c->a, c->out, s); }

int sx_scalar(infer_ctx *c, hlo_type t) { return sx_array(c, t, 0, NULL); }

int sx_token(infer_ctx *c) {
  memset(c->out, 0, sizeof *c->out);
  c->out->type = HLO_TOKEN;
  return HLO_OK;
}

int sx_tuple(infer_ctx *c, int n, const hlo_shape *const *elems) {
  memset(c->out, 0, sizeof *c->out);
  c->out->type = HLO_TUPLE;
  c->out->ntuple = n;
  if (!n) return HLO_OK;
  c->out->tuple = hlo_arena_array(c->a, (size_t)n, sizeof(hlo_shape));
  if (!c->out->tuple) return HLO_ERR;
  for (int i = 0; i < n; i++)
    if (hlo_shape_copy(c->a, &c->out->tuple[i], elems[i])) return HLO_ERR;
  return HLO_OK;
}

int sx_declared(infer_ctx *c) {
  if (c->in->shape_omitted)
    return sx_fail(c, "the result shape of %s cannot be inferred from its operands; write it",
                   hlo_opcode_name(c->in->op));
  return sx_copy(c, &c->in->shape);
}

int sx_need_array_or_buffer(infer_ctx *c, int i, const char *what) {
  const hlo_shape *s = sx_op(c, i);
  if (!hlo_shape_is_array(s))
    return sx_fail(c, "Expected array argument for %s, but got %s.", what, sx_str(c, s));
  return HLO_OK;
}

int sx_need_array(infer_ctx *c, int i, const char *what) {
  const hlo_shape *s = sx_op(c, i);
  if (!hlo_shape_is_array(s) || s->buffer)
    return sx_fail(c, "Expected array argument for %s, but got %s.", what, sx_str(c, s));
  return HLO_OK;
}

hlo_type sx_declared_type(const infer_ctx *c, hlo_type dflt) {
  if (!c->in->shape_omitted && hlo_shape_is_array(&c->in->shape)) return c->in->shape.type;
  return dflt;
}

bool sx_same_type_fp(hlo_type a, hlo_type b) {
  return a == b || (hlo_type_is_float(a) && hlo_type_is_float(b));
}

bool sx_same_dims(const hlo_shape *a, const hlo_shape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

bool sx_is_signed(hlo_type t) {
  hlo_type_kind k = hlo_type_kind_of(t);
  return k == HLO_KIND_SINT || k == HLO_KIND_FLOAT;
}

bool sx_is_complex(hlo_type t) { return hlo_type_kind_of(t) == HLO_KIND_COMPLEX; }

hlo_type sx_complex_component(hlo_type t) { return t == HLO_C128 ? HLO_F64 : HLO_F32; }

int sx_dims_in_range(infer_ctx *c, const char *what, const int64_t *v, int n, int rank) {
  for (int i = 0; i < n; i++)
    if (v[i] < 0 || v[i] >= rank)
      return sx_fail(c, "%s value %lld is out of range [0, %d)", what, (long long)v[i], rank);
  return HLO_OK;
}

int sx_dims_unique(infer_ctx *c, const char *what, const int64_t *v, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (v[i] == v[j]) return sx_fail(c, "%s contains %lld more than once", what, (long long)v[i]);
  return HLO_OK;
}

int sx_keep_dynamic(infer_ctx *c, int od, const hlo_shape *src, int sd) {
  if (!src->dynamic || !src->dynamic[sd] || od < 0 || od >= c->out->rank) return HLO_OK;
  if (!c->out->dynamic && !(c->out->dynamic = hlo_arena_array(c->a, (size_t)c->out->rank, sizeof(bool))))
    return HLO_ERR;
  c->out->dynamic[od] = true;
  return HLO_OK;
}

int64_t sx_window_out(int64_t n, const hlo_window_dim *w) {
  if (w->size < 0 || w->stride <= 0 || w->lhs_dilate <= 0 || w->rhs_dilate <= 0) return -1;
  if (n < 0) return -1;
  int64_t dil_in, padded, dil_win, t;
  if (n == 0) dil_in = 0;
  else if (__builtin_mul_overflow(n - 1, w->lhs_dilate, &dil_in) || __builtin_add_overflow(dil_in, 1, &dil_in))
    return -1;
  if (__builtin_add_overflow(dil_in, w->pad_lo, &padded) || __builtin_add_overflow(padded, w->pad_hi, &padded))
    return -1;
  if (w->size == 0) dil_win = 0;
  else if (__builtin_mul_overflow(w->size - 1, w->rhs_dilate, &dil_win) || __builtin_add_overflow(dil_win, 1, &dil_win))
    return -1;
  if (padded <= 0 || dil_win > padded) return 0;
  t = (padded - dil_win) / w->stride + 1;
  return t;
}

const hlo_shape *sx_called_root(infer_ctx *c, int k, const char *what) {
  if (k >= c->in->ncalled || !c->in->called[k]) {
    sx_fail(c, "%s needs a called computation (%s)", hlo_opcode_name(c->in->op), what);
    return NULL;
  }
  const hlo_computation *comp = c->in->called[k];
  if (!comp->root) {
    sx_fail(c, "called computation %%%s has no root instruction", comp->name);
    return NULL;
  }
  return &comp->root->shape;
}

int64_t sx_group_size(const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_REPLICA_GROUPS);
  if (!a || a->kind != HLO_AK_REPLICA_GROUPS) return 0;
  const hlo_replica_groups *g = a->u.groups;
  if (g->iota) return g->niota_shape >= 2 ? g->iota_shape[g->niota_shape - 1] : 0;
  if (g->ngroups <= 0) return 0;
  return g->group_sizes[0];
}
