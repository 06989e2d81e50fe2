/* fast_move.c - data movement on the fast path: sort of one numeric operand
 * with a plain comparator (compare(p0, p1) LT or GT) as a typed stable merge
 * sort per row (rows with NaN go to the reference kernel, whose order for
 * NaN the plain comparator leaves to the algorithm), and gather of whole
 * rows (x[idx] along dimension 0) as clamped row copies. */
#include <string.h>

#include "exec/fast.h"

typedef struct sort_plan {
  hlo_type t;
  bool desc;
  int dim;
} sort_plan;

/* comparator = compare(p0, p1) direction LT/GT, default/natural type */
static int plain_cmp(const hlo_computation *c, hlo_type t) {
  if (!c || c->nparams != 2 || !c->root || c->root->op != HLO_OP_COMPARE) return -1;
  const hlo_instruction *r = c->root;
  if (r->operands[0] != c->params[0] || r->operands[1] != c->params[1]) return -1;
  if (c->params[0]->shape.type != t || c->params[1]->shape.type != t) return -1;
  int dir, ct;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  int rc = hlo_cmp_attrs(r, &dir, &ct, &d);
  hlo_diags_release(&d);
  if (rc || ct == CMPT_TOTALORDER) return -1;
  if (hlo_type_is_float(t) ? ct != CMPT_DEFAULT && ct != CMPT_FLOAT
                           : ct != CMPT_DEFAULT && ct != (t == HLO_U32 ? CMPT_UNSIGNED : CMPT_SIGNED))
    return -1;
  return dir == CMP_LT ? 0 : dir == CMP_GT ? 1 : -1;
}

static bool plan_sort(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (in->noperands != 1 || in->ncalled != 1 || !hlo_shape_is_array(&in->shape)) return false;
  hlo_type t = in->shape.type;
  if (t != HLO_F32 && t != HLO_F64 && t != HLO_S32 && t != HLO_S64 && t != HLO_U32) return false;
  int desc = plain_cmp(in->called[0], t);
  int nd = 0;
  const int64_t *dm = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (desc < 0 || nd != 1 || !dm || dm[0] < 0 || dm[0] >= in->shape.rank) return false;
  sort_plan *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return false;
  p->t = t;
  p->desc = desc;
  p->dim = (int)dm[0];
  s->p = p;
  s->fn = hlo_fast_sort;
  s->kname = "hlo_fast_sort";
  return true;
}

/* Stable bottom-up merge sort: insertion-sorted runs of 16, then merges. */
#define MSORT(NAME, T)                                                        \
  static void NAME(T *a, T *tmp, int64_t n, bool desc) {                      \
    for (int64_t b = 0; b < n; b += 16) {                                     \
      int64_t e = b + 16 < n ? b + 16 : n;                                    \
      for (int64_t i = b + 1; i < e; i++) {                                   \
        T v = a[i];                                                           \
        int64_t j = i;                                                        \
        while (j > b && (desc ? a[j - 1] < v : v < a[j - 1])) { a[j] = a[j - 1]; j--; } \
        a[j] = v;                                                             \
      }                                                                       \
    }                                                                         \
    T *src = a, *dst = tmp;                                                   \
    for (int64_t w = 16; w < n; w *= 2) {                                     \
      for (int64_t lo = 0; lo < n; lo += 2 * w) {                             \
        int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n; \
        int64_t i = lo, j = mid, k = lo;                                      \
        while (i < mid && j < hi)                                             \
          dst[k++] = (desc ? src[i] < src[j] : src[j] < src[i]) ? src[j++] : src[i++]; \
        while (i < mid) dst[k++] = src[i++];                                  \
        while (j < hi) dst[k++] = src[j++];                                   \
      }                                                                       \
      T *x = src; src = dst; dst = x;                                         \
    }                                                                         \
    if (src != a) memcpy(a, src, sizeof(T) * (size_t)n);                      \
  }
MSORT(msort_f32, float)
MSORT(msort_f64, double)
MSORT(msort_s32, int32_t)
MSORT(msort_s64, int64_t)
MSORT(msort_u32, uint32_t)

DECL_KERN(hlo_fast_sort) {
  const sort_plan *p = s->p;
  const hlo_shape *sh = args[0]->shape;
  int64_t n = sh->dims[p->dim], inner = 1, outer = 1;
  for (int d = p->dim + 1; d < sh->rank; d++) inner *= sh->dims[d];
  for (int d = 0; d < p->dim; d++) outer *= sh->dims[d];
  int es = hlo_type_bytes(p->t);
  /* NaN anywhere: the reference decides the order */
  if (p->t == HLO_F32 || p->t == HLO_F64) {
    for (int64_t k = 0; k < args[0]->nelems; k++) {
      double v = p->t == HLO_F32 ? ((const float *)args[0]->data)[k]
                                 : ((const double *)args[0]->data)[k];
      if (v != v) return hlo_ref_sort(r, s, args, out);
    }
  }
  hlo_val *o = hlo_run_new_raw(r, &s->in->shape);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  char *row = hlo_malloc(r->alloc, (size_t)(2 * n * es) + 16);
  if (!row) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "out of memory");
  }
  const char *src = args[0]->data;
  char *dst = o->data;
  for (int64_t a = 0; a < outer; a++)
    for (int64_t c = 0; c < inner; c++) {
      int64_t base = a * n * inner + c;
      if (inner == 1) memcpy(row, src + base * es, (size_t)(n * es));
      else
        for (int64_t i = 0; i < n; i++)
          memcpy(row + i * es, src + (base + i * inner) * es, (size_t)es);
      void *tmp = row + n * es;
      switch ((int)p->t) {
      case HLO_F32: msort_f32((float *)row, tmp, n, p->desc); break;
      case HLO_F64: msort_f64((double *)row, tmp, n, p->desc); break;
      case HLO_S32: msort_s32((int32_t *)row, tmp, n, p->desc); break;
      case HLO_S64: msort_s64((int64_t *)row, tmp, n, p->desc); break;
      default: msort_u32((uint32_t *)row, tmp, n, p->desc); break;
      }
      if (inner == 1) memcpy(dst + base * es, row, (size_t)(n * es));
      else
        for (int64_t i = 0; i < n; i++)
          memcpy(dst + (base + i * inner) * es, row + i * es, (size_t)es);
    }
  hlo_free(r->alloc, row);
  *out = o;
  return HLO_OK;
}

/* ---- gather of rows ---------------------------------------------------------- */
static bool ints_are(const hlo_instruction *in, hlo_attr_key k, const int64_t *want, int n) {
  int m = 0;
  const int64_t *v = hlo_instr_ints(in, k, &m);
  if (!v) m = 0;
  if (m != n) return false;
  for (int i = 0; i < n; i++)
    if (v[i] != want[i]) return false;
  return true;
}

static bool plan_gather(hlo_exec *e, plan_step *s) {
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
  if (!ints_are(in, HLO_A_START_INDEX_MAP, &zero, 1) ||
      !ints_are(in, HLO_A_COLLAPSED_SLICE_DIMS, &zero, 1) ||
      !ints_are(in, HLO_A_OFFSET_DIMS, offs, os->rank - 1) ||
      !ints_are(in, HLO_A_SLICE_SIZES, sizes, os->rank) ||
      !ints_are(in, HLO_A_OPERAND_BATCHING_DIMS, NULL, 0))
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

bool hlo_fast_plan_move(hlo_exec *e, plan_step *s) {
  if (s->in->op == HLO_OP_SORT) return plan_sort(e, s);
  if (s->in->op == HLO_OP_GATHER) return plan_gather(e, s);
  return false;
}
