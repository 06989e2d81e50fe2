/* fast_vec_isa.h - the body of the vector chunk kernels, included once per
 * instruction set by fast_vec.c with these macros defined: FV_TGT (function
 * attribute), FV(name) (suffixes a function name), SLF(fn)/SLD(fn) (the SLEEF
 * f32/f64 function of that ISA, 1-ulp variant; SLF35/SLD35 the 3.5-ulp one), VF/VD (vector types), LF/LD
 * (lanes), LDF/STF/LDD/STD (unaligned load/store).  Not a public header. */

/* Apply a SLEEF function over n elements: whole vectors, then the tail
 * through a zero-padded stack vector. */
#define FV_T1(T, L, V, LD_, ST_, FN)                                          \
  do {                                                                      \
    int64_t k = 0;                                                          \
    for (; k + (L) <= n; k += (L)) ST_(z + k, FN(LD_(x + k)));              \
    if (k < n) {                                                            \
      T tx[L], tz[L];                                                       \
      memset(tx, 0, sizeof tx);                                             \
      memcpy(tx, x + k, (size_t)(n - k) * sizeof(T));                       \
      ST_(tz, FN(LD_(tx)));                                                 \
      memcpy(z + k, tz, (size_t)(n - k) * sizeof(T));                       \
    }                                                                       \
  } while (0)

#define FV_T2(T, L, V, LD_, ST_, FN)                                          \
  do {                                                                      \
    int64_t k = 0;                                                          \
    for (; k + (L) <= n; k += (L)) ST_(z + k, FN(LD_(x + k), LD_(y + k)));  \
    if (k < n) {                                                            \
      T tx[L], ty[L], tz[L];                                                \
      memset(tx, 0, sizeof tx);                                             \
      memset(ty, 0, sizeof ty);                                             \
      memcpy(tx, x + k, (size_t)(n - k) * sizeof(T));                       \
      memcpy(ty, y + k, (size_t)(n - k) * sizeof(T));                       \
      ST_(tz, FN(LD_(tx), LD_(ty)));                                        \
      memcpy(z + k, tz, (size_t)(n - k) * sizeof(T));                       \
    }                                                                       \
  } while (0)

#define FV_LOOP1(EXPR) for (int64_t k = 0; k < n; k++) { T a = x[k]; z[k] = (EXPR); }
#define FV_LOOP2(EXPR) for (int64_t k = 0; k < n; k++) { T a = x[k], b = y[k]; z[k] = (EXPR); }

/* max/min as the reference: NaN propagates (the first operand's first), +0
 * ranks above -0.  Non-NaN values compare by an order-preserving integer key
 * (sign-magnitude bits to two's complement: -0 < +0), which the vectorizer
 * turns into plain integer compares and blends. */
#define FV_MAX(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : FV_KEY(a) >= FV_KEY(b) ? (a) : (b))
#define FV_MIN(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : FV_KEY(a) <= FV_KEY(b) ? (a) : (b))

#ifndef FV_KEYS_DEFINED
#define FV_KEYS_DEFINED
static inline int32_t fv_key32(float a) {
  int32_t i;
  memcpy(&i, &a, 4);
  return i ^ (int32_t)((uint32_t)(i >> 31) >> 1);
}
static inline int64_t fv_key64(double a) {
  int64_t i;
  memcpy(&i, &a, 8);
  return i ^ (int64_t)((uint64_t)(i >> 63) >> 1);
}
/* the key map is its own inverse on the bits */
static inline int32_t fv_key32_inv(int32_t k) { return k ^ (int32_t)((uint32_t)(k >> 31) >> 1); }
static inline int64_t fv_key64_inv(int64_t k) { return k ^ (int64_t)((uint64_t)(k >> 63) >> 1); }
#endif

/* Row max/min of x[0..n) starting from init, as the reference folds it:
 * the integer keys reduce with a plain max/min that the vectorizer keeps in
 * registers; a NaN anywhere makes the result the first NaN (a rare second
 * pass), and a NaN init wins outright. */
#define FV_MM(NAME, T_, KT, KEYF, CMPOP)                                     \
  static FV_TGT T_ FV(NAME)(int64_t n, const T_ *x, T_ init) {             \
    if (init != init) return init;                                          \
    KT m = KEYF(init);                                                      \
    int nan = 0;                                                            \
    for (int64_t k = 0; k < n; k++) {                                       \
      KT q = KEYF(x[k]);                                                    \
      m = q CMPOP m ? q : m;                                                \
      nan |= x[k] != x[k];                                                  \
    }                                                                       \
    if (nan)                                                                \
      for (int64_t k = 0; k < n; k++)                                       \
        if (x[k] != x[k]) return x[k];                                      \
    KT b = KEYF##_inv(m);                                                   \
    T_ r;                                                                   \
    memcpy(&r, &b, sizeof r);                                               \
    return r;                                                               \
  }

#define T float
#define FV_KEY fv_key32
FV_MM(max32, float, int32_t, fv_key32, >)
FV_MM(min32, float, int32_t, fv_key32, <)

static FV_TGT void FV(fill32)(int64_t n, float v, float *z) {
  for (int64_t k = 0; k < n; k++) z[k] = v;
}

static FV_TGT bool FV(un32)(hlo_opcode op, int64_t n, const float *x, float *z) {
  switch ((int)op) {
  case HLO_OP_NEGATE: FV_LOOP1(-a); return true;
  case HLO_OP_ABS: FV_LOOP1(fabsf(a)); return true;
  case HLO_OP_SQRT: FV_LOOP1(sqrtf(a)); return true;
  case HLO_OP_RSQRT: FV_LOOP1((float)(1.0 / sqrt((double)a))); return true;
  case HLO_OP_FLOOR: FV_LOOP1(floorf(a)); return true;
  case HLO_OP_CEIL: FV_LOOP1(ceilf(a)); return true;
  case HLO_OP_ROUND_NEAREST_EVEN: FV_LOOP1(nearbyintf(a)); return true;
  case HLO_OP_ROUND_NEAREST_AFZ: FV_LOOP1(roundf(a)); return true;
  case HLO_OP_SIGN: FV_LOOP1(a != a ? a : a > 0 ? 1.0f : a < 0 ? -1.0f : a); return true;
  case HLO_OP_EXP: FV_T1(float, LF, VF, LDF, STF, SLF(exp)); return true;
  case HLO_OP_EXPM1: FV_T1(float, LF, VF, LDF, STF, SLF(expm1)); return true;
  case HLO_OP_LOG: FV_T1(float, LF, VF, LDF, STF, SLF(log)); return true;
  case HLO_OP_LOG1P: FV_T1(float, LF, VF, LDF, STF, SLF(log1p)); return true;
  case HLO_OP_TANH: FV_T1(float, LF, VF, LDF, STF, SLF35(tanh)); return true;
  case HLO_OP_SIN: FV_T1(float, LF, VF, LDF, STF, SLF(sin)); return true;
  case HLO_OP_COS: FV_T1(float, LF, VF, LDF, STF, SLF(cos)); return true;
  case HLO_OP_TAN: FV_T1(float, LF, VF, LDF, STF, SLF(tan)); return true;
  case HLO_OP_ERF: FV_T1(float, LF, VF, LDF, STF, SLF(erf)); return true;
  case HLO_OP_CBRT: FV_T1(float, LF, VF, LDF, STF, SLF(cbrt)); return true;
  case HLO_OP_LOGISTIC: {
    /* 1 / (1 + exp(-x)) with the vector exp; exp overflow gives 0 */
    for (int64_t k = 0; k < n; k++) z[k] = -x[k];
    const float *xs = x;
    x = z;
    FV_T1(float, LF, VF, LDF, STF, SLF(exp));
    x = xs;
    for (int64_t k = 0; k < n; k++) z[k] = 1.0f / (1.0f + z[k]);
    return true;
  }
  default: return false;
  }
}

static FV_TGT bool FV(bin32)(hlo_opcode op, int64_t n, const float *x, const float *y,
                             float *z) {
  switch ((int)op) {
  case HLO_OP_ADD: FV_LOOP2(a + b); return true;
  case HLO_OP_SUBTRACT: FV_LOOP2(a - b); return true;
  case HLO_OP_MULTIPLY: FV_LOOP2(a * b); return true;
  case HLO_OP_DIVIDE: FV_LOOP2(a / b); return true;
  case HLO_OP_REMAINDER: FV_LOOP2((float)fmod((double)a, (double)b)); return true; /* exact */
  case HLO_OP_MAXIMUM: FV_LOOP2(FV_MAX(a, b)); return true;
  case HLO_OP_MINIMUM: FV_LOOP2(FV_MIN(a, b)); return true;
  case HLO_OP_POWER: FV_T2(float, LF, VF, LDF, STF, SLF(pow)); return true;
  case HLO_OP_ATAN2: FV_T2(float, LF, VF, LDF, STF, SLF(atan2)); return true;
  default: return false;
  }
}
#undef T
#undef FV_KEY

#define T double
#define FV_KEY fv_key64
FV_MM(max64, double, int64_t, fv_key64, >)
FV_MM(min64, double, int64_t, fv_key64, <)

static FV_TGT void FV(fill64)(int64_t n, double v, double *z) {
  for (int64_t k = 0; k < n; k++) z[k] = v;
}

static FV_TGT bool FV(un64)(hlo_opcode op, int64_t n, const double *x, double *z) {
  switch ((int)op) {
  case HLO_OP_NEGATE: FV_LOOP1(-a); return true;
  case HLO_OP_ABS: FV_LOOP1(fabs(a)); return true;
  case HLO_OP_SQRT: FV_LOOP1(sqrt(a)); return true;
  case HLO_OP_RSQRT: FV_LOOP1(1.0 / sqrt(a)); return true;
  case HLO_OP_FLOOR: FV_LOOP1(floor(a)); return true;
  case HLO_OP_CEIL: FV_LOOP1(ceil(a)); return true;
  case HLO_OP_ROUND_NEAREST_EVEN: FV_LOOP1(nearbyint(a)); return true;
  case HLO_OP_ROUND_NEAREST_AFZ: FV_LOOP1(round(a)); return true;
  case HLO_OP_SIGN: FV_LOOP1(a != a ? a : a > 0 ? 1.0 : a < 0 ? -1.0 : a); return true;
  case HLO_OP_EXP: FV_T1(double, LD, VD, LDD, STD, SLD(exp)); return true;
  case HLO_OP_EXPM1: FV_T1(double, LD, VD, LDD, STD, SLD(expm1)); return true;
  case HLO_OP_LOG: FV_T1(double, LD, VD, LDD, STD, SLD(log)); return true;
  case HLO_OP_LOG1P: FV_T1(double, LD, VD, LDD, STD, SLD(log1p)); return true;
  case HLO_OP_TANH: FV_T1(double, LD, VD, LDD, STD, SLD35(tanh)); return true;
  case HLO_OP_SIN: FV_T1(double, LD, VD, LDD, STD, SLD(sin)); return true;
  case HLO_OP_COS: FV_T1(double, LD, VD, LDD, STD, SLD(cos)); return true;
  case HLO_OP_TAN: FV_T1(double, LD, VD, LDD, STD, SLD(tan)); return true;
  case HLO_OP_ERF: FV_T1(double, LD, VD, LDD, STD, SLD(erf)); return true;
  case HLO_OP_CBRT: FV_T1(double, LD, VD, LDD, STD, SLD(cbrt)); return true;
  case HLO_OP_LOGISTIC: {
    for (int64_t k = 0; k < n; k++) z[k] = -x[k];
    const double *xs = x;
    x = z;
    FV_T1(double, LD, VD, LDD, STD, SLD(exp));
    x = xs;
    for (int64_t k = 0; k < n; k++) z[k] = 1.0 / (1.0 + z[k]);
    return true;
  }
  default: return false;
  }
}

static FV_TGT bool FV(bin64)(hlo_opcode op, int64_t n, const double *x, const double *y,
                             double *z) {
  switch ((int)op) {
  case HLO_OP_ADD: FV_LOOP2(a + b); return true;
  case HLO_OP_SUBTRACT: FV_LOOP2(a - b); return true;
  case HLO_OP_MULTIPLY: FV_LOOP2(a * b); return true;
  case HLO_OP_DIVIDE: FV_LOOP2(a / b); return true;
  case HLO_OP_REMAINDER: FV_LOOP2(fmod(a, b)); return true;
  case HLO_OP_MAXIMUM: FV_LOOP2(FV_MAX(a, b)); return true;
  case HLO_OP_MINIMUM: FV_LOOP2(FV_MIN(a, b)); return true;
  case HLO_OP_POWER: FV_T2(double, LD, VD, LDD, STD, SLD(pow)); return true;
  case HLO_OP_ATAN2: FV_T2(double, LD, VD, LDD, STD, SLD(atan2)); return true;
  default: return false;
  }
}
#undef T
#undef FV_KEY

/* Sum of n floats in double with 8 independent accumulators (f32 input) /
 * pairwise blocks of 8 accumulators (f64 input). */
static FV_TGT double FV(sum32)(int64_t n, const float *x) {
  double acc[8] = {0};
  int64_t k = 0;
  for (; k + 8 <= n; k += 8)
    for (int j = 0; j < 8; j++) acc[j] += (double)x[k + j];
  double s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; k < n; k++) s += (double)x[k];
  return s;
}

static FV_TGT double FV(sum64)(int64_t n, const double *x) {
  if (n <= 128) {
    double acc[8] = {0};
    int64_t k = 0;
    for (; k + 8 <= n; k += 8)
      for (int j = 0; j < 8; j++) acc[j] += x[k + j];
    double s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; k < n; k++) s += x[k];
    return s;
  }
  int64_t h = (n / 2) & ~(int64_t)7;
  return FV(sum64)(h, x) + FV(sum64)(n - h, x + h);
}

/* acc[j] += x[j] for j < n (column reductions), f32 data into double. */
static FV_TGT void FV(acc32)(int64_t n, const float *x, double *acc) {
  for (int64_t j = 0; j < n; j++) acc[j] += (double)x[j];
}
static FV_TGT void FV(acc64)(int64_t n, const double *x, double *acc) {
  for (int64_t j = 0; j < n; j++) acc[j] += x[j];
}

/* f16/bf16 <-> f32, branch-free so that they vectorize; bit-identical to
 * hlo_f16_to_f32 / hlo_f32_to_f16 / hlo_bf16_to_f32 / hlo_f32_to_bf16
 * (round to nearest even, NaN -> the quiet NaN of its sign).  f16
 * subnormals: |x| + 0.5f rounds |x| to a multiple of 2^-24 in the FPU's
 * nearest-even mode, and the low bits of that sum are the f16 mantissa.
 * FV_NOTRAP lets the vectorizer evaluate the float operations of every
 * branch (no result depends on floating-point exception flags). */
#ifndef FV_NOTRAP
#if defined(__GNUC__) && !defined(__clang__)
#define FV_NOTRAP __attribute__((optimize("no-trapping-math")))
#else
#define FV_NOTRAP
#endif
#endif
static FV_TGT FV_NOTRAP void FV(widen16)(hlo_type t, int64_t n, const uint16_t *x, float *z) {
  if (t == HLO_BF16) {
    for (int64_t k = 0; k < n; k++) {
      uint32_t b = (uint32_t)x[k] << 16;
      memcpy(&z[k], &b, 4);
    }
    return;
  }
  for (int64_t k = 0; k < n; k++) {
    uint32_t h = x[k], sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uint32_t nb = sign | ((e + 112u) << 23) | (m << 13);
    uint32_t ib = sign | 0x7f800000u | (m << 13);
    float sub = (float)(int32_t)m * 0x1p-24f;
    uint32_t sb;
    memcpy(&sb, &sub, 4);
    sb |= sign;
    uint32_t b = e == 0x1fu ? ib : e == 0 ? sb : nb;
    memcpy(&z[k], &b, 4);
  }
}

static FV_TGT FV_NOTRAP void FV(narrow16)(hlo_type t, int64_t n, const float *x, uint16_t *z) {
  if (t == HLO_BF16) {
    for (int64_t k = 0; k < n; k++) {
      uint32_t b;
      memcpy(&b, &x[k], 4);
      uint32_t r = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
      uint32_t q = ((b >> 16) & 0x8000u) | 0x7fc0u;
      z[k] = (uint16_t)((b & 0x7fffffffu) > 0x7f800000u ? q : r);
    }
    return;
  }
  for (int64_t k = 0; k < n; k++) {
    uint32_t b;
    memcpy(&b, &x[k], 4);
    uint32_t sign = (b >> 16) & 0x8000u, a = b & 0x7fffffffu;
    uint32_t special = a > 0x7f800000u ? 0x7e00u : 0x7c00u;
    uint32_t nrm = (a + 0xfffu + ((a >> 13) & 1u) - 0x38000000u) >> 13;
    float af, s;
    memcpy(&af, &a, 4);
    s = af + 0.5f;
    uint32_t sbits;
    memcpy(&sbits, &s, 4);
    uint32_t sub = sbits - 0x3f000000u;
    uint32_t r = a >= 0x477ff000u ? special : a < 0x38800000u ? sub : nrm;
    z[k] = (uint16_t)(sign | r);
  }
}

/* z = z rounded once to f16/bf16 (a chunk at a time through a stack buffer) */
static FV_TGT void FV(round16)(hlo_type t, int64_t n, float *z) {
  uint16_t tmp[256];
  for (int64_t k = 0; k < n; k += 256) {
    int64_t c = n - k < 256 ? n - k : 256;
    FV(narrow16)(t, c, z + k, tmp);
    FV(widen16)(t, c, tmp, z + k);
  }
}

/* ---- convert between the chunk representations ------------------------------
 * x holds n elements of type `from`, z receives them as `to` (f16/bf16 are
 * f32 values on both sides: the caller rounds a narrow result with round16;
 * f64 -> f16/bf16 gives the f64 rounded to odd in f32, which round16 then
 * rounds correctly: f32 has more than p + 2 bits of either type).  As
 * hlo_ref_convert: integers wrap to the target width; float -> integer
 * truncates, saturates to the target range, NaN -> 0; anything -> pred is
 * "!= 0" (NaN -> 1); integer -> f32 rounds once (as the C conversion).
 * Every float source is widened to double (exact) so one set of limits
 * serves f32 and f64; the clamps come before the conversion, so no C
 * conversion ever sees an out-of-range value.  f16/bf16 -> f32/f64 drops NaN
 * payloads, as the reference's decoding does. */
#ifndef FV_CVT_DEFINED
#define FV_CVT_DEFINED
/* clamp to [LO, HI] with NaN -> 0 (for targets of at most 32 bits) */
#define FV_SI(d, LO, HI) ((d) != (d) ? 0.0 : (d) < (LO) ? (LO) : (d) > (HI) ? (HI) : (d))
#define FV_UI(d, HI) ((d) > 0 ? ((d) > (HI) ? (HI) : (d)) : 0.0)
#define FV_S64(d)                                                              \
  ((d) >= 0x1p63 ? INT64_MAX                                                   \
                 : (int64_t)((d) != (d) ? 0.0 : (d) < -0x1p63 ? -0x1p63 : (d)))
#define FV_U64(d) ((d) >= 0x1p64 ? UINT64_MAX : (uint64_t)((d) > 0 ? (d) : 0.0))
/* d rounded to odd in f32: truncated toward zero, lowest bit set if inexact
 * (NaN and infinities pass as the C conversion gives them) */
static inline float fv_odd32(double d) {
  float f = (float)d;
  double back = (double)f;
  uint32_t b, inexact = d == d && back != d, away = fabs(back) > fabs(d);
  memcpy(&b, &f, 4);
  b = (b - (inexact & away)) | inexact;
  memcpy(&f, &b, 4);
  return f;
}
#define FV_CV(ST, DT, E)                                                       \
  do {                                                                         \
    const ST *x_ = (const ST *)xv;                                             \
    DT *z_ = (DT *)zv;                                                         \
    for (int64_t k = 0; k < n; k++) {                                          \
      ST a = x_[k];                                                            \
      z_[k] = (DT)(E);                                                         \
    }                                                                          \
  } while (0);                                                                 \
  return
/* from an integer (or pred) type ST whose value is A */
#define FV_CV_INT(ST, A)                                                       \
  switch ((int)to) {                                                           \
  case HLO_PRED: FV_CV(ST, uint8_t, (A) != 0);                                 \
  case HLO_S8: FV_CV(ST, int8_t, A);                                           \
  case HLO_U8: FV_CV(ST, uint8_t, A);                                          \
  case HLO_S16: FV_CV(ST, int16_t, A);                                         \
  case HLO_U16: FV_CV(ST, uint16_t, A);                                        \
  case HLO_S32: FV_CV(ST, int32_t, A);                                         \
  case HLO_U32: FV_CV(ST, uint32_t, A);                                        \
  case HLO_S64: FV_CV(ST, int64_t, A);                                         \
  case HLO_U64: FV_CV(ST, uint64_t, A);                                        \
  case HLO_F64: FV_CV(ST, double, A);                                          \
  default: FV_CV(ST, float, A);                                                \
  }
/* from a float type ST (f32 for f16/bf16 too) */
#define FV_CV_FLT(ST)                                                          \
  switch ((int)to) {                                                           \
  case HLO_PRED: FV_CV(ST, uint8_t, a != 0);                                   \
  case HLO_S8: FV_CV(ST, int8_t, FV_SI((double)a, -128.0, 127.0));             \
  case HLO_U8: FV_CV(ST, uint8_t, FV_UI((double)a, 255.0));                    \
  case HLO_S16: FV_CV(ST, int16_t, FV_SI((double)a, -32768.0, 32767.0));       \
  case HLO_U16: FV_CV(ST, uint16_t, FV_UI((double)a, 65535.0));                \
  case HLO_S32: FV_CV(ST, int32_t, FV_SI((double)a, -2147483648.0, 2147483647.0)); \
  case HLO_U32: FV_CV(ST, uint32_t, FV_UI((double)a, 4294967295.0));           \
  case HLO_S64: FV_CV(ST, int64_t, FV_S64((double)a));                         \
  case HLO_U64: FV_CV(ST, uint64_t, FV_U64((double)a));                        \
  case HLO_F64: FV_CV(ST, double, a);                                          \
  default: FV_CV(ST, float, a);                                                \
  }
#endif

static FV_TGT FV_NOTRAP void FV(cvt)(hlo_type from, hlo_type to, int64_t n, const void *xv,
                                     void *zv) {
  switch ((int)from) {
  case HLO_PRED: FV_CV_INT(uint8_t, a != 0)
  case HLO_S8: FV_CV_INT(int8_t, a)
  case HLO_U8: FV_CV_INT(uint8_t, a)
  case HLO_S16: FV_CV_INT(int16_t, a)
  case HLO_U16: FV_CV_INT(uint16_t, a)
  case HLO_S32: FV_CV_INT(int32_t, a)
  case HLO_U32: FV_CV_INT(uint32_t, a)
  case HLO_S64: FV_CV_INT(int64_t, a)
  case HLO_U64: FV_CV_INT(uint64_t, a)
  case HLO_F64:
    if (to == HLO_F16 || to == HLO_BF16) { FV_CV(double, float, fv_odd32(a)); }
    FV_CV_FLT(double)
  case HLO_F16: case HLO_BF16:
    /* the reference decodes a 16-bit NaN to the quiet NaN of its sign */
    if (to == HLO_F32) { FV_CV(float, float, a != a ? copysignf(NAN, a) : a); }
    if (to == HLO_F64) { FV_CV(float, double, a != a ? copysign(NAN, (double)a) : (double)a); }
    FV_CV_FLT(float)
  default: FV_CV_FLT(float)
  }
}

static const hlo_fv_isa FV(table) = {
    FV_NAME, FV_LEVEL, FV(un32), FV(bin32), FV(un64), FV(bin64),
    FV(sum32), FV(sum64), FV(acc32), FV(acc64),
    FV(max32), FV(min32), FV(max64), FV(min64), FV(fill32), FV(fill64),
    FV(widen16), FV(narrow16), FV(round16), FV(cvt),
};

#undef FV_T1
#undef FV_T2
#undef FV_LOOP1
#undef FV_LOOP2
#undef FV_MAX
#undef FV_MIN
#undef FV_MM
