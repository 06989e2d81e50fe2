/* kern_reduce.c - fast reduce and reduce-window for a reducer that is one
 * known binary op (add, multiply, maximum, minimum, and, or, xor) on f32,
 * f64, s32 or s64: a direct typed loop, with the same combination order as
 * the reference so results agree bit for bit. */
#include <math.h>
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

bool hlo_fast_reduce_typed_ok(const hlo_instruction *in) {
  if (in->noperands != 2 || in->ncalled < 1) return false;
  hlo_type t = in->operands[0]->shape.type;
  if (in->shape.type != t) return false;
  hlo_opcode op = hlo_plan_simple_reducer(in->called[0]);
  switch (op) {
  case HLO_OP_ADD: case HLO_OP_MULTIPLY: case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM:
    return t == HLO_F32 || t == HLO_F64 || t == HLO_S32 || t == HLO_S64;
  case HLO_OP_AND: case HLO_OP_OR: case HLO_OP_XOR:
    return t == HLO_S32 || t == HLO_S64;
  default:
    return false;
  }
}


#define COMBF(T, op, a, b)                                                  \
  ((op) == HLO_OP_ADD ? (T)((a) + (b)) : (op) == HLO_OP_MULTIPLY ? (T)((a) * (b)) \
   : (op) == HLO_OP_MAXIMUM ? (T)HLO_FMAX(a, b) : (T)HLO_FMIN(a, b))
#define COMBI(T, UT, op, a, b)                                              \
  ((op) == HLO_OP_ADD ? (T)((UT)(a) + (UT)(b)) : (op) == HLO_OP_MULTIPLY ? (T)((UT)(a) * (UT)(b)) \
   : (op) == HLO_OP_MAXIMUM ? ((a) > (b) ? (a) : (b)) : (op) == HLO_OP_MINIMUM ? ((a) < (b) ? (a) : (b)) \
   : (op) == HLO_OP_AND ? (T)((a) & (b)) : (op) == HLO_OP_OR ? (T)((a) | (b)) : (T)((a) ^ (b)))

#define REDUCE_LOOP(T, COMB)                                               \
  do {                                                                     \
    const T *x = args[0]->data;                                            \
    T *z = o->data, init = *(const T *)args[1]->data;                      \
    for (int64_t j = 0; j < o->nelems; j++) z[j] = init;                   \
    int64_t n = is->rank ? is->dims[is->rank - 1] : 1;                     \
    int64_t lst = is->rank ? ost[is->rank - 1] : 0, idx[MAXR] = {0};        \
    for (int64_t k = 0; k < total; k += n) {                               \
      int64_t j = 0;                                                       \
      for (int d = 0; d < is->rank - 1; d++) j += idx[d] * ost[d];         \
      if (lst == 0) {                                                      \
        T accr = z[j];                                                      \
        for (int64_t q = 0; q < n; q++) accr = COMB(accr, x[k + q]);         \
        z[j] = accr;                                                        \
      } else {                                                             \
        for (int64_t q = 0; q < n; q++) z[j + q] = COMB(z[j + q], x[k + q]); \
      }                                                                    \
      if (is->rank > 1) hlo_index_next(is->rank - 1, is->dims, idx);       \
    }                                                                      \
  } while (0)

DECL_KERN(hlo_fast_reduce_typed) {
  const hlo_instruction *in = s->in;
  const hlo_shape *is = args[0]->shape;
  hlo_opcode op = hlo_plan_simple_reducer(in->called[0]);
  int nd;
  const int64_t *dims = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  bool red[MAXR] = {false};
  for (int i = 0; i < nd; i++) {
    if (dims[i] < 0 || dims[i] >= is->rank) return hlo_run_errorf(r, in, "bad dimensions=");
    red[dims[i]] = true;
  }
  hlo_val *o = hlo_run_new_raw(r, &in->shape);
  if (!o) return OOM(r, s);
  int64_t ost[MAXR], acc = 1, total = args[0]->nelems;
  for (int d = is->rank - 1; d >= 0; d--) {
    ost[d] = red[d] ? 0 : acc;
    if (!red[d]) acc *= is->dims[d];
  }
  if (acc != o->nelems) { hlo_run_release(r, o); return hlo_run_errorf(r, in, "result size mismatch"); }
#define CF(a, b) COMBF(float, op, a, b)
#define CD(a, b) COMBF(double, op, a, b)
#define CI(a, b) COMBI(int32_t, uint32_t, op, a, b)
#define CL(a, b) COMBI(int64_t, uint64_t, op, a, b)
  switch (is->type) {
  case HLO_F32: REDUCE_LOOP(float, CF); break;
  case HLO_F64: REDUCE_LOOP(double, CD); break;
  case HLO_S32: REDUCE_LOOP(int32_t, CI); break;
  case HLO_S64: REDUCE_LOOP(int64_t, CL); break;
  default: hlo_run_release(r, o); return hlo_ref_reduce(r, s, args, out);
  }
  *out = o;
  return HLO_OK;
}

#define RW_LOOP(T, COMB)                                                   \
  do {                                                                     \
    const T *x = args[0]->data;                                            \
    T *z = o->data, init = *(const T *)args[1]->data;                      \
    for (int64_t j = 0; j < o->nelems; j++) {                              \
      T accv = init;                                                       \
      memset(wi, 0, sizeof wi);                                            \
      for (int64_t w = 0; w < wn; w++) {                                   \
        int64_t k = 0;                                                     \
        bool ok = true;                                                    \
        for (int d = 0; d < rank && ok; d++) {                             \
          const hlo_window_dim *wdd = &wd[d];                              \
          int64_t kk = wdd->reversal ? wdd->size - 1 - wi[d] : wi[d];      \
          int64_t p = oi[d] * st_[d] + kk * rd_[d] - wdd->pad_lo;          \
          if (p < 0 || p % ld_[d]) ok = false;                             \
          else { p /= ld_[d]; if (p >= is->dims[d]) ok = false; else k += p * ist[d]; } \
        }                                                                  \
        if (ok) accv = COMB(accv, x[k]);                                   \
        hlo_index_next(rank, wsz, wi);                                     \
      }                                                                    \
      z[j] = accv;                                                         \
      hlo_index_next(rank, o->shape->dims, oi);                            \
    }                                                                      \
  } while (0)

DECL_KERN(hlo_fast_reduce_window_typed) {
  const hlo_instruction *in = s->in;
  const hlo_shape *is = args[0]->shape;
  hlo_opcode op = hlo_plan_simple_reducer(in->called[0]);
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_WINDOW);
  int rank = is->rank;
  if (!a || a->u.window.n != rank) return hlo_ref_reduce_window(r, s, args, out);
  const hlo_window_dim *wd = a->u.window.dims;
  int64_t ist[MAXR], oi[MAXR] = {0}, wi[MAXR], wsz[MAXR], st_[MAXR], rd_[MAXR], ld_[MAXR], wn = 1;
  hlo_strides(is, ist);
  for (int d = 0; d < rank; d++) {
    wsz[d] = wd[d].size;
    wn *= wsz[d];
    st_[d] = wd[d].stride ? wd[d].stride : 1;
    rd_[d] = wd[d].rhs_dilate ? wd[d].rhs_dilate : 1;
    ld_[d] = wd[d].lhs_dilate ? wd[d].lhs_dilate : 1;
  }
  hlo_val *o = hlo_run_new_raw(r, &in->shape);
  if (!o) return OOM(r, s);
  switch (is->type) {
  case HLO_F32: RW_LOOP(float, CF); break;
  case HLO_F64: RW_LOOP(double, CD); break;
  case HLO_S32: RW_LOOP(int32_t, CI); break;
  case HLO_S64: RW_LOOP(int64_t, CL); break;
  default: hlo_run_release(r, o); return hlo_ref_reduce_window(r, s, args, out);
  }
  *out = o;
  return HLO_OK;
}
