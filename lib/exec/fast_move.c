/* fast_move.c - data movement on the fast path: plan-time dispatch of the
 * move kernels (sort: fast_sort.c, transpose: fast_transpose.c, scatter:
 * fast_scatter.c) and gather of whole rows
 * (x[idx] along dimension 0) as clamped row copies. */
#include <string.h>

#include "exec/fast.h"

/* ---- gather of rows ---------------------------------------------------------- */
bool hlo_fast_ints_are(const hlo_instruction *in, hlo_attr_key k, const int64_t *want, int n) {
  int m = 0;
  const int64_t *v = hlo_instr_ints(in, k, &m);
  if (!v) m = 0;
  if (m != n) return false;
  for (int i = 0; i < n; i++)
    if (v[i] != want[i]) return false;
  return true;
}

bool hlo_fast_plan_gather(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (in->noperands != 2 || !hlo_shape_is_array(&in->shape)) return false;
  const hlo_shape *os = &in->operands[0]->shape, *is = &in->operands[1]->shape;
  hlo_type it = is->type;
  if (it != HLO_S32 && it != HLO_S64 && it != HLO_U32) return false;
  if (os->rank < 1 || os->rank > MAXR) return false;
  int64_t ivd = hlo_instr_int(in, HLO_A_INDEX_VECTOR_DIM, -1);
  int nb;  /* batch (index) dims of the result */
  if (ivd == is->rank) nb = is->rank;
  else if (ivd == is->rank - 1 && is->dims[ivd] == 1) nb = is->rank - 1;
  else return false;
  int64_t zero = 0, offs[MAXR], sizes[MAXR];
  for (int d = 1; d < os->rank; d++) offs[d - 1] = nb + d - 1;
  sizes[0] = 1;
  for (int d = 1; d < os->rank; d++) sizes[d] = os->dims[d];
  if (!hlo_fast_ints_are(in, HLO_A_START_INDEX_MAP, &zero, 1) ||
      !hlo_fast_ints_are(in, HLO_A_COLLAPSED_SLICE_DIMS, &zero, 1) ||
      !hlo_fast_ints_are(in, HLO_A_OFFSET_DIMS, offs, os->rank - 1) ||
      !hlo_fast_ints_are(in, HLO_A_SLICE_SIZES, sizes, os->rank) ||
      !hlo_fast_ints_are(in, HLO_A_OPERAND_BATCHING_DIMS, NULL, 0))
    return false;
  if (in->shape.rank != nb + os->rank - 1) return false;
  s->p = NULL;
  s->fn = hlo_fast_gather_rows;
  s->kname = "hlo_fast_gather(rows)";
  (void)e;
  return true;
}

DECL_KERN(hlo_fast_gather_rows) {
  const hlo_val *x = args[0], *ix = args[1];
  hlo_val *o = hlo_run_new_raw(r, &s->in->shape);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  int64_t rows = x->shape->dims[0];
  size_t rb = rows > 0 ? x->nbytes / (size_t)rows : 0;
  int64_t n = ix->nelems;
  hlo_type it = ix->shape->type;
  for (int64_t k = 0; k < n && rb; k++) {
    int64_t i = it == HLO_S32 ? ((const int32_t *)ix->data)[k]
              : it == HLO_U32 ? (int64_t)((const uint32_t *)ix->data)[k]
                              : ((const int64_t *)ix->data)[k];
    if (i < 0) i = 0;
    if (i > rows - 1) i = rows - 1;
    memcpy((char *)o->data + (size_t)k * rb, (const char *)x->data + (size_t)i * rb, rb);
  }
  *out = o;
  return HLO_OK;
}

