/* kern_elem.c - fast elementwise kernels: typed loops over whole contiguous
 * buffers for the common (op, type) pairs (f32, f64, s32, s64, u32, u8,
 * pred).  hlo_fast_elementwise_ok() says at plan time whether a pair is
 * covered; everything else runs through the reference kernels.  Results must
 * equal the reference bit for bit (the tests check). */
#include <math.h>
#include <string.h>

#include "core/bug.h"
#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

static bool is_fast_type(hlo_type t) {
  return t == HLO_F32 || t == HLO_F64 || t == HLO_S32 || t == HLO_S64 || t == HLO_U32 ||
         t == HLO_U8 || t == HLO_PRED;
}

static bool same_shapes(const hlo_instruction *in) {
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *s = &in->operands[i]->shape;
    if (!hlo_shape_is_array(s) || s->rank != in->shape.rank) return false;
    for (int d = 0; d < s->rank; d++)
      if (s->dims[d] != in->shape.dims[d]) return false;
  }
  return hlo_shape_is_array(&in->shape);
}

bool hlo_fast_elementwise_ok(const hlo_instruction *in) {
  if (!same_shapes(in) || in->noperands < 1) return false;
  hlo_type t = in->operands[0]->shape.type, ot = in->shape.type;
  bool f = t == HLO_F32 || t == HLO_F64;
  bool i = t == HLO_S32 || t == HLO_S64 || t == HLO_U32 || t == HLO_U8 || t == HLO_PRED;
  switch (in->op) {
  case HLO_OP_ADD: case HLO_OP_SUBTRACT: case HLO_OP_MULTIPLY: case HLO_OP_MAXIMUM:
  case HLO_OP_MINIMUM:
    return (f || i) && t != HLO_PRED;
  case HLO_OP_DIVIDE:
    return f;
  case HLO_OP_AND: case HLO_OP_OR: case HLO_OP_XOR:
    return i;
  case HLO_OP_NEGATE: case HLO_OP_ABS: case HLO_OP_EXP: case HLO_OP_LOG: case HLO_OP_SQRT:
  case HLO_OP_RSQRT: case HLO_OP_TANH: case HLO_OP_LOGISTIC: case HLO_OP_FLOOR:
  case HLO_OP_CEIL:
    return f;
  case HLO_OP_COMPARE: {
    const char *ty = hlo_instr_word(in, HLO_A_TYPE);
    if (ty && strcmp(ty, "TOTALORDER") == 0) return false;
    if (ty && (strcmp(ty, "SIGNED") == 0 || strcmp(ty, "UNSIGNED") == 0)) return false;
    return f || t == HLO_S32 || t == HLO_S64;
  }
  case HLO_OP_SELECT:
    return t == HLO_PRED && is_fast_type(ot) && ot != HLO_PRED;
  case HLO_OP_CLAMP:
    return t == HLO_F32 || t == HLO_F64 || t == HLO_S32;
  case HLO_OP_CONVERT:
    return is_fast_type(t) && is_fast_type(ot) && t != ot &&
           !(hlo_type_is_float(t) && !hlo_type_is_float(ot)); /* saturation: reference */
  default:
    return false;
  }
}


#define BIN_LOOP(T, EXPR)                                                  \
  do {                                                                     \
    const T *x = args[0]->data, *y = args[1]->data;                        \
    T *z = o->data;                                                        \
    for (int64_t k = 0; k < n; k++) { T a = x[k], b = y[k]; z[k] = (EXPR); } \
  } while (0)

#define UN_LOOP(T, EXPR)                                                   \
  do {                                                                     \
    const T *x = args[0]->data;                                            \
    T *z = o->data;                                                        \
    for (int64_t k = 0; k < n; k++) { T a = x[k]; z[k] = (EXPR); }         \
  } while (0)

#define FLOAT_BIN(T)                                                       \
  switch (op) {                                                            \
  case HLO_OP_ADD: BIN_LOOP(T, a + b); break;                              \
  case HLO_OP_SUBTRACT: BIN_LOOP(T, a - b); break;                         \
  case HLO_OP_MULTIPLY: BIN_LOOP(T, a * b); break;                         \
  case HLO_OP_DIVIDE: BIN_LOOP(T, a / b); break;                           \
  case HLO_OP_MAXIMUM: BIN_LOOP(T, (T)HLO_FMAX(a, b)); break;                 \
  case HLO_OP_MINIMUM: BIN_LOOP(T, (T)HLO_FMIN(a, b)); break;                 \
  default: return HLO_ERR;                                                 \
  }

#define INT_BIN(T, UT)                                                     \
  switch (op) {                                                            \
  case HLO_OP_ADD: BIN_LOOP(T, (T)((UT)a + (UT)b)); break;                 \
  case HLO_OP_SUBTRACT: BIN_LOOP(T, (T)((UT)a - (UT)b)); break;            \
  case HLO_OP_MULTIPLY: BIN_LOOP(T, (T)((UT)a * (UT)b)); break;            \
  case HLO_OP_MAXIMUM: BIN_LOOP(T, a > b ? a : b); break;                  \
  case HLO_OP_MINIMUM: BIN_LOOP(T, a < b ? a : b); break;                  \
  case HLO_OP_AND: BIN_LOOP(T, a & b); break;                              \
  case HLO_OP_OR: BIN_LOOP(T, a | b); break;                               \
  case HLO_OP_XOR: BIN_LOOP(T, a ^ b); break;                              \
  default: return HLO_ERR;                                                 \
  }

/* f32 math is done in double and rounded, like the reference. */
#define FLOAT_UN(T)                                                        \
  switch (op) {                                                            \
  case HLO_OP_NEGATE: UN_LOOP(T, -a); break;                               \
  case HLO_OP_ABS: UN_LOOP(T, (T)fabs(a)); break;                          \
  case HLO_OP_EXP: UN_LOOP(T, (T)exp(a)); break;                           \
  case HLO_OP_LOG: UN_LOOP(T, (T)log(a)); break;                           \
  case HLO_OP_SQRT: UN_LOOP(T, (T)sqrt(a)); break;                         \
  case HLO_OP_RSQRT: UN_LOOP(T, (T)(1.0 / sqrt(a))); break;                \
  case HLO_OP_TANH: UN_LOOP(T, (T)tanh(a)); break;                         \
  case HLO_OP_LOGISTIC: UN_LOOP(T, (T)(1.0 / (1.0 + exp(-(double)a)))); break; \
  case HLO_OP_FLOOR: UN_LOOP(T, (T)floor(a)); break;                       \
  case HLO_OP_CEIL: UN_LOOP(T, (T)ceil(a)); break;                         \
  default: return HLO_ERR;                                                 \
  }

static int compute_binary(hlo_opcode op, hlo_type t, hlo_val **args, hlo_val *o, int64_t n) {
  switch (t) {
  case HLO_F32: FLOAT_BIN(float); break;
  case HLO_F64: FLOAT_BIN(double); break;
  case HLO_S32: INT_BIN(int32_t, uint32_t); break;
  case HLO_S64: INT_BIN(int64_t, uint64_t); break;
  case HLO_U32: INT_BIN(uint32_t, uint32_t); break;
  case HLO_U8: INT_BIN(uint8_t, uint8_t); break;
  case HLO_PRED: INT_BIN(uint8_t, uint8_t); break;
  default: return HLO_ERR;
  }
  return HLO_OK;
}

#define CMP_LOOP(T)                                                        \
  do {                                                                     \
    const T *x = args[0]->data, *y = args[1]->data;                        \
    unsigned char *z = o->data;                                            \
    switch (dir) {                                                         \
    case CMP_EQ: for (int64_t k = 0; k < n; k++) z[k] = x[k] == y[k]; break; \
    case CMP_NE: for (int64_t k = 0; k < n; k++) z[k] = x[k] != y[k]; break; \
    case CMP_LT: for (int64_t k = 0; k < n; k++) z[k] = x[k] < y[k]; break;  \
    case CMP_LE: for (int64_t k = 0; k < n; k++) z[k] = x[k] <= y[k]; break; \
    case CMP_GT: for (int64_t k = 0; k < n; k++) z[k] = x[k] > y[k]; break;  \
    case CMP_GE: for (int64_t k = 0; k < n; k++) z[k] = x[k] >= y[k]; break; \
    }                                                                      \
  } while (0)

#define SEL_LOOP(T)                                                        \
  do {                                                                     \
    const unsigned char *p = args[0]->data;                                \
    const T *x = args[1]->data, *y = args[2]->data;                        \
    T *z = o->data;                                                        \
    for (int64_t k = 0; k < n; k++) z[k] = p[k] ? x[k] : y[k];             \
  } while (0)

#define CLAMP_LOOP(T, MAXF, MINF)                                          \
  do {                                                                     \
    const T *lo = args[0]->data, *x = args[1]->data, *hi = args[2]->data;  \
    T *z = o->data;                                                        \
    for (int64_t k = 0; k < n; k++) z[k] = (T)MINF(MAXF(lo[k], x[k]), hi[k]); \
  } while (0)

#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define IMIN(a, b) ((a) < (b) ? (a) : (b))

#define CONV_FROM(FT)                                                      \
  do {                                                                     \
    const FT *x = args[0]->data;                                           \
    switch (ot) {                                                          \
    case HLO_F32: { float *z = o->data; for (int64_t k = 0; k < n; k++) z[k] = (float)x[k]; break; } \
    case HLO_F64: { double *z = o->data; for (int64_t k = 0; k < n; k++) z[k] = (double)x[k]; break; } \
    case HLO_S32: { int32_t *z = o->data; for (int64_t k = 0; k < n; k++) z[k] = (int32_t)x[k]; break; } \
    case HLO_S64: { int64_t *z = o->data; for (int64_t k = 0; k < n; k++) z[k] = (int64_t)x[k]; break; } \
    case HLO_U32: { uint32_t *z = o->data; for (int64_t k = 0; k < n; k++) z[k] = (uint32_t)x[k]; break; } \
    case HLO_U8: { uint8_t *z = o->data; for (int64_t k = 0; k < n; k++) z[k] = (uint8_t)x[k]; break; } \
    case HLO_PRED: { uint8_t *z = o->data; for (int64_t k = 0; k < n; k++) z[k] = x[k] != 0; break; } \
    default: return HLO_ERR;                                               \
    }                                                                      \
  } while (0)

static int compute(const hlo_instruction *in, hlo_val **args, hlo_val *o, int64_t n) {
  hlo_type t = in->operands[0]->shape.type, ot = in->shape.type;
  hlo_opcode op = in->op;
  switch (op) {
  case HLO_OP_COMPARE: {
    const char *d = hlo_instr_word(in, HLO_A_DIRECTION);
    int dir = !d ? -1 : !strcmp(d, "EQ") ? CMP_EQ : !strcmp(d, "NE") ? CMP_NE
            : !strcmp(d, "LT") ? CMP_LT : !strcmp(d, "LE") ? CMP_LE
            : !strcmp(d, "GT") ? CMP_GT : !strcmp(d, "GE") ? CMP_GE : -1;
    if (dir < 0) return HLO_ERR;
    switch (t) {
    case HLO_F32: CMP_LOOP(float); break;
    case HLO_F64: CMP_LOOP(double); break;
    case HLO_S32: CMP_LOOP(int32_t); break;
    case HLO_S64: CMP_LOOP(int64_t); break;
    default: return HLO_ERR;
    }
    return HLO_OK;
  }
  case HLO_OP_SELECT:
    switch (hlo_type_bytes(ot)) {
    case 1: SEL_LOOP(uint8_t); break;
    case 4: SEL_LOOP(uint32_t); break;
    case 8: SEL_LOOP(uint64_t); break;
    default: return HLO_ERR;
    }
    return HLO_OK;
  case HLO_OP_CLAMP:
    switch (t) {
    case HLO_F32: CLAMP_LOOP(float, HLO_FMAX, HLO_FMIN); break;
    case HLO_F64: CLAMP_LOOP(double, HLO_FMAX, HLO_FMIN); break;
    case HLO_S32: CLAMP_LOOP(int32_t, IMAX, IMIN); break;
    default: return HLO_ERR;
    }
    return HLO_OK;
  case HLO_OP_CONVERT:
    switch (t) {
    case HLO_F32: CONV_FROM(float); break;
    case HLO_F64: CONV_FROM(double); break;
    case HLO_S32: CONV_FROM(int32_t); break;
    case HLO_S64: CONV_FROM(int64_t); break;
    case HLO_U32: CONV_FROM(uint32_t); break;
    case HLO_U8: CONV_FROM(uint8_t); break;
    case HLO_PRED: CONV_FROM(uint8_t); break;
    default: return HLO_ERR;
    }
    return HLO_OK;
  default:
    break;
  }
  if (in->noperands == 2) return compute_binary(op, t, args, o, n);
  switch (t) {
  case HLO_F32: FLOAT_UN(float); break;
  case HLO_F64: FLOAT_UN(double); break;
  default: return HLO_ERR;
  }
  return HLO_OK;
}

DECL_KERN(hlo_fast_elementwise) {
  const hlo_instruction *in = s->in;
  /* write over an operand that dies here when it has the result's element
   * size (each loop reads element k of every operand before writing k);
   * otherwise take a block from the pool */
  hlo_val *o = NULL;
  int esz = hlo_type_bytes(in->shape.type), stolen = -1;
  for (int i = 0; i < s->nargs && !o; i++)
    if (s->last_use[i] && hlo_type_bytes(args[i]->shape->type) == esz &&
        (o = hlo_run_steal(r, args[i], &in->shape)))
      stolen = i;
  if (!o) o = hlo_run_new_raw(r, &in->shape);
  if (!o) return OOM(r, s);
  if (stolen >= 0) args[stolen]->data = o->data; /* still read during the loop */
  int rc = compute(in, args, o, o->nelems);
  if (stolen >= 0) args[stolen]->data = NULL;
  if (rc) HLO_BUG("%s: hlo_fast_elementwise_ok accepted a pair compute() lacks", in->name);
  *out = o;
  return HLO_OK;
}
