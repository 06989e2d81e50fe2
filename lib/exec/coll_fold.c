/* coll_fold.c - the typed loops of a collective's reduction (all-reduce,
 * reduce-scatter; collectives.c): the simple reducers over the common
 * element types, compiled at -O3 so that they are vectorised.  Each element
 * is folded alone, left to right over the contributions, so vectorising
 * changes no bit. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif
#include <math.h>

#include "exec/comm.h"

#define FOLD_BLOCK 2048
#define FOLD(T, EXPR)                                                          \
  do {                                                                         \
    T *o = (T *)dst + doff;                                                    \
    for (int64_t b0 = 0; b0 < len; b0 += FOLD_BLOCK) {                         \
      int64_t b1 = b0 + FOLD_BLOCK < len ? b0 + FOLD_BLOCK : len;              \
      const T *s0 = (const T *)src[0] + soff;                                  \
      for (int64_t k = b0; k < b1; k++) o[k] = s0[k];                          \
      for (int j = 1; j < n; j++) {                                            \
        const T *sj = (const T *)src[j] + soff;                                \
        for (int64_t k = b0; k < b1; k++) { T a = o[k], b = sj[k]; o[k] = (EXPR); } \
      }                                                                        \
    }                                                                          \
  } while (0)

#define FOLD_FLOAT(T)                                                          \
  switch (op) {                                                                \
  case HLO_OP_ADD: FOLD(T, a + b); return true;                                \
  case HLO_OP_MULTIPLY: FOLD(T, a * b); return true;                           \
  case HLO_OP_MAXIMUM: FOLD(T, HLO_FMAX(a, b)); return true;                   \
  case HLO_OP_MINIMUM: FOLD(T, HLO_FMIN(a, b)); return true;                   \
  default: return false;                                                       \
  }
/* integers: wrapping add and multiply in the unsigned type U */
#define FOLD_INT(T, U)                                                         \
  switch (op) {                                                                \
  case HLO_OP_ADD: FOLD(T, (T)((U)a + (U)b)); return true;                     \
  case HLO_OP_MULTIPLY: FOLD(T, (T)((U)a * (U)b)); return true;                \
  case HLO_OP_MAXIMUM: FOLD(T, a > b ? a : b); return true;                    \
  case HLO_OP_MINIMUM: FOLD(T, a < b ? a : b); return true;                    \
  case HLO_OP_AND: FOLD(T, a & b); return true;                                \
  case HLO_OP_OR: FOLD(T, a | b); return true;                                 \
  case HLO_OP_XOR: FOLD(T, a ^ b); return true;                                \
  default: return false;                                                       \
  }

bool hlo_fold_typed(hlo_opcode op, hlo_type t, void *dst, int64_t doff, const void *const *src,
                       int n, int64_t soff, int64_t len) {
  switch (t) {
  case HLO_F32: FOLD_FLOAT(float)
  case HLO_F64: FOLD_FLOAT(double)
  case HLO_S8: FOLD_INT(int8_t, uint8_t)
  case HLO_S16: FOLD_INT(int16_t, uint16_t)
  case HLO_S32: FOLD_INT(int32_t, uint32_t)
  case HLO_S64: FOLD_INT(int64_t, uint64_t)
  case HLO_U8: FOLD_INT(uint8_t, uint8_t)
  case HLO_U16: FOLD_INT(uint16_t, uint16_t)
  case HLO_U32: FOLD_INT(uint32_t, uint32_t)
  case HLO_U64: FOLD_INT(uint64_t, uint64_t)
  default: return false;
  }
}

