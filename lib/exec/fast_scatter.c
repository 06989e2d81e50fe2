/* fast_scatter.c - scatter of whole rows along dimension 0 on the fast path:
 * out = operand; for each index i in order, row idx[i] of out gets update
 * row i assigned (combiner returns its second parameter) or added (combiner
 * add of the two parameters, f16/bf16 excluded) for float and int types;
 * NaN results and assigned NaN go through the reference combiner.
 * Rows are applied in index order, so duplicates combine as in the
 * reference; an index outside [0, rows) skips its row as XLA does. */
#include <string.h>

#include "exec/fast.h"

typedef struct scat_plan {
  bool add;      /* else assign */
  bool swapped;  /* add(p1, p0): update + current */
} scat_plan;

static bool add_type(hlo_type t) {
  switch (t) {
  case HLO_F32: case HLO_F64: case HLO_S8: case HLO_S16: case HLO_S32: case HLO_S64:
  case HLO_U8: case HLO_U16: case HLO_U32: case HLO_U64:
    return true;
  default:
    return false;
  }
}

bool hlo_fast_plan_scatter(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (in->noperands != 3 || in->ncalled != 1 || !hlo_shape_is_array(&in->shape)) return false;
  const hlo_shape *os = &in->operands[0]->shape, *is = &in->operands[1]->shape,
                  *us = &in->operands[2]->shape;
  if (!hlo_shape_is_array(os) || !hlo_shape_is_array(is) || !hlo_shape_is_array(us)) return false;
  hlo_type it = is->type, t = os->type;
  if (it != HLO_S32 && it != HLO_S64 && it != HLO_U32 && it != HLO_U64) return false;
  if (us->type != t || in->shape.type != t || os->rank < 1 || os->rank > MAXR) return false;
  /* combiner */
  const hlo_computation *c = in->called[0];
  if (!c || c->nparams != 2 || !c->root || !c->params[0] || !c->params[1]) return false;
  if (c->params[0]->shape.type != t || c->params[1]->shape.type != t) return false;
  scat_plan p = {false, false};
  const hlo_instruction *r = c->root;
  if (r == c->params[1]) {
    p.add = false;
  } else if (r->op == HLO_OP_ADD && r->noperands == 2 && r->shape.type == t && add_type(t) &&
             ((r->operands[0] == c->params[0] && r->operands[1] == c->params[1]) ||
              (r->operands[0] == c->params[1] && r->operands[1] == c->params[0]))) {
    p.add = true;
    p.swapped = r->operands[0] == c->params[1];
  } else {
    return false;
  }
  /* dimension numbers: rows of dim 0, windows = whole rows */
  int64_t ivd = hlo_instr_int(in, HLO_A_INDEX_VECTOR_DIM, is->rank);
  int nb;
  if (ivd == is->rank) nb = is->rank;
  else if (ivd == is->rank - 1 && is->dims[ivd] == 1) nb = is->rank - 1;
  else return false;
  int64_t zero = 0, win[MAXR];
  for (int d = 1; d < os->rank; d++) win[d - 1] = nb + d - 1;
  if (!hlo_fast_ints_are(in, HLO_A_INSERTED_WINDOW_DIMS, &zero, 1) ||
      !hlo_fast_ints_are(in, HLO_A_SCATTER_DIMS_TO_OPERAND_DIMS, &zero, 1) ||
      !hlo_fast_ints_are(in, HLO_A_UPDATE_WINDOW_DIMS, win, os->rank - 1) ||
      !hlo_fast_ints_are(in, HLO_A_INPUT_BATCHING_DIMS, NULL, 0) ||
      !hlo_fast_ints_are(in, HLO_A_SCATTER_INDICES_BATCHING_DIMS, NULL, 0))
    return false;
  if (us->rank != nb + os->rank - 1) return false;
  for (int d = 0; d < nb; d++)
    if (us->dims[d] != is->dims[d]) return false;
  for (int d = 1; d < os->rank; d++)
    if (us->dims[nb + d - 1] != os->dims[d]) return false;
  scat_plan *pp = hlo_arena_alloc(&e->arena, sizeof *pp);
  if (!pp) return false;
  *pp = p;
  s->p = pp;
  s->fn = hlo_fast_scatter_rows;
  s->kname = p.add ? "hlo_fast_scatter(rows, add)" : "hlo_fast_scatter(rows, assign)";
  return true;
}

/* One element through the combiner as the reference runs it (NaN results:
 * their payload and quieting are the reference's). */
static int ref_combine(hlo_run *r, const plan_comp *pc, hlo_type t, void *d, const void *u) {
  hlo_sc x[2] = {hlo_sc_load(t, d, 0), hlo_sc_load(t, u, 0)}, y;
  if (hlo_run_scalar(r, pc, x, 2, &y, 1)) return HLO_ERR;
  hlo_sc_store(t, d, 0, y);
  return HLO_OK;
}

/* dst[j] = dst[j] + src[j] (or src[j] + dst[j]) in type T, ints wrapping. */
#define ADD_ROW(T, U)                                                            \
  static void add_##T(void *dst, const void *src, int64_t n, bool swapped) {      \
    T *d = dst;                                                                   \
    const T *u = src;                                                             \
    if (swapped)                                                                  \
      for (int64_t j = 0; j < n; j++) d[j] = (T)((U)u[j] + (U)d[j]);              \
    else                                                                          \
      for (int64_t j = 0; j < n; j++) d[j] = (T)((U)d[j] + (U)u[j]);              \
  }
ADD_ROW(uint8_t, uint8_t)
ADD_ROW(uint16_t, uint16_t)
ADD_ROW(uint32_t, uint32_t)
ADD_ROW(uint64_t, uint64_t)

/* Floats: the sum rounded once in T is the reference's (double sum, then
 * rounded); a NaN result goes through the reference combiner. */
#define ADD_FLOAT(T)                                                             \
  static int add_##T(hlo_run *r, const plan_comp *pc, hlo_type t, void *dst,      \
                     const void *src, int64_t n, bool swapped) {                  \
    T *d = dst;                                                                   \
    const T *u = src;                                                             \
    for (int64_t j = 0; j < n; j++) {                                             \
      T z = swapped ? u[j] + d[j] : d[j] + u[j];                                  \
      if (z != z) {                                                               \
        if (ref_combine(r, pc, t, d + j, u + j)) return HLO_ERR;                  \
      } else {                                                                    \
        d[j] = z;                                                                 \
      }                                                                           \
    }                                                                             \
    return HLO_OK;                                                                \
  }
ADD_FLOAT(float)
ADD_FLOAT(double)

/* Assign: floats are copied unless NaN (the reference's load and store of
 * a NaN may quiet it). */
static int assign_row(hlo_run *r, const plan_comp *pc, hlo_type t, void *dst, const void *src,
                      int64_t n, size_t rb) {
  memcpy(dst, src, rb);
  if (hlo_type_kind_of(t) != HLO_KIND_FLOAT && hlo_type_kind_of(t) != HLO_KIND_COMPLEX) return HLO_OK;
  if (t == HLO_F32) {
    float *d = dst;
    for (int64_t j = 0; j < n; j++)
      if (d[j] != d[j] && ref_combine(r, pc, t, d + j, d + j)) return HLO_ERR;
    return HLO_OK;
  }
  if (t == HLO_F64) {
    double *d = dst;
    for (int64_t j = 0; j < n; j++)
      if (d[j] != d[j] && ref_combine(r, pc, t, d + j, d + j)) return HLO_ERR;
    return HLO_OK;
  }
  /* other float types: every element as the reference */
  size_t es = (size_t)hlo_type_bytes(t);
  for (int64_t j = 0; j < n; j++)
    if (ref_combine(r, pc, t, (char *)dst + (size_t)j * es, (char *)dst + (size_t)j * es))
      return HLO_ERR;
  return HLO_OK;
}

DECL_KERN(hlo_fast_scatter_rows) {
  const scat_plan *p = s->p;
  hlo_val *x = args[0], *ix = args[1], *u = args[2];
  if (x->ntuple || ix->ntuple || u->ntuple) return hlo_run_errorf(r, s->in, "tuple operand");
  hlo_val *o = s->last_use[0] ? hlo_run_steal(r, x, &s->in->shape) : NULL;
  if (!o) {
    o = hlo_run_new_raw(r, &s->in->shape);
    if (!o) return hlo_run_errorf(r, s->in, "out of memory");
    if (o->nbytes != x->nbytes) {
      hlo_run_release(r, o);
      return hlo_run_errorf(r, s->in, "result does not match the operand");
    }
    if (o->nbytes) memcpy(o->data, x->data, o->nbytes);
  }
  int64_t rows = x->shape->dims[0], n = ix->nelems;
  int64_t rowlen = 1;
  for (int d = 1; d < x->shape->rank; d++) rowlen *= x->shape->dims[d];
  size_t es = (size_t)hlo_type_bytes(x->shape->type), rb = (size_t)rowlen * es;
  if ((size_t)n * rb != u->nbytes) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "updates do not match the indices");
  }
  hlo_type it = ix->shape->type, t = x->shape->type;
  const plan_comp *pc = r->e->plans[s->in->called[0]->id];
  for (int64_t k = 0; k < n && rb; k++) {
    int64_t i;
    if (it == HLO_S32) i = ((const int32_t *)ix->data)[k];
    else if (it == HLO_U32) i = (int64_t)((const uint32_t *)ix->data)[k];
    else if (it == HLO_S64) i = ((const int64_t *)ix->data)[k];
    else {
      uint64_t v = ((const uint64_t *)ix->data)[k];
      i = v > (uint64_t)INT64_MAX ? -1 : (int64_t)v;
    }
    if (i < 0 || i >= rows) continue; /* window out of bounds: skipped */
    char *d = (char *)o->data + (size_t)i * rb;
    const char *src = (const char *)u->data + (size_t)k * rb;
    int rc = HLO_OK;
    if (!p->add) {
      rc = assign_row(r, pc, t, d, src, rowlen, rb);
    } else {
      switch (t) {
      case HLO_F32: rc = add_float(r, pc, t, d, src, rowlen, p->swapped); break;
      case HLO_F64: rc = add_double(r, pc, t, d, src, rowlen, p->swapped); break;
      case HLO_S8: case HLO_U8: add_uint8_t(d, src, rowlen, p->swapped); break;
      case HLO_S16: case HLO_U16: add_uint16_t(d, src, rowlen, p->swapped); break;
      case HLO_S32: case HLO_U32: add_uint32_t(d, src, rowlen, p->swapped); break;
      default: add_uint64_t(d, src, rowlen, p->swapped); break;
      }
    }
    if (rc) {
      hlo_run_release(r, o);
      return HLO_ERR;
    }
  }
  *out = o;
  return HLO_OK;
}
