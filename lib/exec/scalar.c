/* scalar.c - the generic scalar of the interpreter: loading and storing one
 * element of any type, and the reference semantics of every elementwise op
 * on it (the numerics decisions of the spec live here: integer division by
 * zero, shifts, saturating conversion, NaN propagation, narrow floats). */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "core/bug.h"
#include "exec/exec.h"
#include "hlo/hlo_fp.h"

bool hlo_type_is_narrow_float(hlo_type t) {
  return hlo_type_is_float(t) && t != HLO_F32 && t != HLO_F64;
}

int64_t hlo_sc_wrap(hlo_type t, int64_t v) {
  int bits = hlo_type_bits(t);
  if (t == HLO_PRED) return v != 0;
  if (bits >= 64) return v;
  uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & m;
  if (hlo_type_kind_of(t) == HLO_KIND_SINT && (u >> (bits - 1)) & 1) u |= ~m;
  return (int64_t)u;
}

double hlo_sc_round(hlo_type t, double v) {
  switch (t) {
  case HLO_F64: case HLO_C128: return v;
  case HLO_F32: case HLO_C64: return (double)(float)v;
  default:
    if (hlo_type_is_narrow_float(t))
      return hlo_fp_to_double(t, hlo_fp_from_double(t, v));
    return v;
  }
}

hlo_sc hlo_sc_load(hlo_type t, const void *data, int64_t k) {
  hlo_sc r = {0, 0, 0};
  const unsigned char *p = (const unsigned char *)data + k * hlo_type_bytes(t);
  switch (hlo_type_kind_of(t)) {
  case HLO_KIND_PRED: r.i = p[0] != 0; break;
  case HLO_KIND_SINT:
  case HLO_KIND_UINT: {
    switch (hlo_type_bytes(t)) {
    case 1: r.i = p[0]; break;
    case 2: { uint16_t x; memcpy(&x, p, 2); r.i = x; break; }
    case 4: { uint32_t x; memcpy(&x, p, 4); r.i = x; break; }
    default: { uint64_t x; memcpy(&x, p, 8); r.i = (int64_t)x; break; }
    }
    r.i = hlo_sc_wrap(t, r.i);
    break;
  }
  case HLO_KIND_FLOAT:
    if (t == HLO_F32) { float x; memcpy(&x, p, 4); r.f = x; }
    else if (t == HLO_F64) memcpy(&r.f, p, 8);
    else {
      uint64_t bits = hlo_type_bytes(t) == 2 ? (uint64_t)(p[0] | (p[1] << 8)) : p[0];
      r.f = hlo_fp_to_double(t, bits);
    }
    break;
  case HLO_KIND_COMPLEX:
    if (t == HLO_C64) {
      float x[2]; memcpy(x, p, 8); r.f = x[0]; r.im = x[1];
    } else {
      double x[2]; memcpy(x, p, 16); r.f = x[0]; r.im = x[1];
    }
    break;
  case HLO_KIND_TOKEN: case HLO_KIND_OPAQUE: case HLO_KIND_TUPLE: break;
  }
  return r;
}

void hlo_sc_store(hlo_type t, void *data, int64_t k, hlo_sc v) {
  unsigned char *p = (unsigned char *)data + k * hlo_type_bytes(t);
  switch (hlo_type_kind_of(t)) {
  case HLO_KIND_PRED: p[0] = v.i != 0; break;
  case HLO_KIND_SINT:
  case HLO_KIND_UINT: {
    uint64_t x = (uint64_t)hlo_sc_wrap(t, v.i);
    switch (hlo_type_bytes(t)) {
    case 1: p[0] = (unsigned char)x; break;
    case 2: { uint16_t y = (uint16_t)x; memcpy(p, &y, 2); break; }
    case 4: { uint32_t y = (uint32_t)x; memcpy(p, &y, 4); break; }
    default: memcpy(p, &x, 8); break;
    }
    break;
  }
  case HLO_KIND_FLOAT:
    if (t == HLO_F32) { float x = (float)v.f; memcpy(p, &x, 4); }
    else if (t == HLO_F64) memcpy(p, &v.f, 8);
    else {
      uint64_t bits = hlo_fp_from_double(t, v.f);
      p[0] = (unsigned char)bits;
      if (hlo_type_bytes(t) == 2) p[1] = (unsigned char)(bits >> 8);
    }
    break;
  case HLO_KIND_COMPLEX:
    if (t == HLO_C64) {
      float x[2] = {(float)v.f, (float)v.im}; memcpy(p, x, 8);
    } else {
      double x[2] = {v.f, v.im}; memcpy(p, x, 16);
    }
    break;
  case HLO_KIND_TOKEN: case HLO_KIND_OPAQUE: case HLO_KIND_TUPLE: break;
  }
}

/* ---- helpers --------------------------------------------------------------- */
static hlo_sc mkf(double f) { hlo_sc r = {f, 0, 0}; return r; }
static hlo_sc mki(int64_t i) { hlo_sc r = {0, 0, i}; return r; }
static hlo_sc mkc(double complex z) { hlo_sc r = {creal(z), cimag(z), 0}; return r; }
static double complex cz(hlo_sc a) { return CMPLX(a.f, a.im); }

static uint64_t umask(hlo_type t) {
  int b = hlo_type_bits(t);
  return b >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << b) - 1);
}

static double round_afz(double x) { return round(x); }

static double logistic(double x) {
  return 1.0 / (1.0 + exp(-x));
}

/* f32-and-narrower transcendental ops are computed in double and rounded on
 * store: the result is within an ulp of an f32 computation. */
hlo_sc hlo_ref_unary(hlo_opcode op, hlo_type t, hlo_type out_t, hlo_sc a) {
  hlo_type_kind k = hlo_type_kind_of(t);
  bool isf = k == HLO_KIND_FLOAT, isc = k == HLO_KIND_COMPLEX;
  bool uns = k == HLO_KIND_UINT;
  double x = a.f;
  switch (op) {
  case HLO_OP_ABS:
    if (isc) return mkf(hypot(a.f, a.im));
    if (isf) return mkf(fabs(x));
    return mki(uns ? a.i : (a.i < 0 ? (int64_t)(0 - (uint64_t)a.i) : a.i));
  case HLO_OP_NEGATE:
    if (isc) { hlo_sc r = {-a.f, -a.im, 0}; return r; }
    if (isf) return mkf(-x);
    return mki((int64_t)(0 - (uint64_t)a.i));
  case HLO_OP_SIGN:
    if (isc) {
      double m = hypot(a.f, a.im);
      if (m == 0 || isnan(m)) return m == 0 ? a : mkc(CMPLX(NAN, NAN));
      hlo_sc r = {a.f / m, a.im / m, 0};
      return r;
    }
    if (isf) return mkf(isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : x);
    return mki(uns ? (a.i != 0) : (a.i > 0) - (a.i < 0));
  case HLO_OP_NOT:
    if (t == HLO_PRED) return mki(!a.i);
    return mki(~a.i);
  case HLO_OP_CLZ: {
    int bits = hlo_type_bits(t);
    uint64_t u = (uint64_t)a.i & umask(t);
    int n = 0;
    for (int b = bits - 1; b >= 0 && !((u >> b) & 1); b--) n++;
    return mki(n);
  }
  case HLO_OP_POPCNT: {
    uint64_t u = (uint64_t)a.i & umask(t);
    int n = 0;
    while (u) { n += (int)(u & 1); u >>= 1; }
    return mki(n);
  }
  case HLO_OP_IS_FINITE: return mki(isfinite(x) != 0);
  case HLO_OP_REAL: return mkf(a.f);
  case HLO_OP_IMAG: return mkf(isc ? a.im : 0.0);
  case HLO_OP_CEIL: return mkf(ceil(x));
  case HLO_OP_FLOOR: return mkf(floor(x));
  case HLO_OP_ROUND_NEAREST_AFZ: return mkf(round_afz(x));
  case HLO_OP_ROUND_NEAREST_EVEN: return mkf(nearbyint(x));
  case HLO_OP_COPY: return a;
  default: break;
  }
  if (isc) {
    double complex z = cz(a);
    switch (op) {
    case HLO_OP_EXP: return mkc(cexp(z));
    case HLO_OP_EXPM1: return mkc(cexp(z) - 1.0);
    case HLO_OP_LOG: return mkc(clog(z));
    case HLO_OP_LOG1P: return mkc(clog(1.0 + z));
    case HLO_OP_SQRT: return mkc(csqrt(z));
    case HLO_OP_RSQRT: return mkc(1.0 / csqrt(z));
    case HLO_OP_CBRT: return mkc(cpow(z, 1.0 / 3.0));
    case HLO_OP_SIN: return mkc(csin(z));
    case HLO_OP_COS: return mkc(ccos(z));
    case HLO_OP_TAN: return mkc(ctan(z));
    case HLO_OP_TANH: return mkc(ctanh(z));
    case HLO_OP_SINH: return mkc(csinh(z));
    case HLO_OP_COSH: return mkc(ccosh(z));
    case HLO_OP_ASIN: return mkc(casin(z));
    case HLO_OP_ACOS: return mkc(cacos(z));
    case HLO_OP_ATAN: return mkc(catan(z));
    case HLO_OP_ASINH: return mkc(casinh(z));
    case HLO_OP_ACOSH: return mkc(cacosh(z));
    case HLO_OP_ATANH: return mkc(catanh(z));
    case HLO_OP_LOGISTIC: return mkc(1.0 / (1.0 + cexp(-z)));
    default: HLO_BUG("%s has no rule for complex operands", hlo_opcode_name(op));
    }
  }
  (void)out_t;
  switch (op) {
  case HLO_OP_EXP: return mkf(exp(x));
  case HLO_OP_EXPM1: return mkf(expm1(x));
  case HLO_OP_LOG: return mkf(log(x));
  case HLO_OP_LOG1P: return mkf(log1p(x));
  case HLO_OP_SQRT: return mkf(sqrt(x));
  case HLO_OP_RSQRT: return mkf(1.0 / sqrt(x));
  case HLO_OP_CBRT: return mkf(cbrt(x));
  case HLO_OP_SIN: return mkf(sin(x));
  case HLO_OP_COS: return mkf(cos(x));
  case HLO_OP_TAN: return mkf(tan(x));
  case HLO_OP_TANH: return mkf(tanh(x));
  case HLO_OP_SINH: return mkf(sinh(x));
  case HLO_OP_COSH: return mkf(cosh(x));
  case HLO_OP_ASIN: return mkf(asin(x));
  case HLO_OP_ACOS: return mkf(acos(x));
  case HLO_OP_ATAN: return mkf(atan(x));
  case HLO_OP_ASINH: return mkf(asinh(x));
  case HLO_OP_ACOSH: return mkf(acosh(x));
  case HLO_OP_ATANH: return mkf(atanh(x));
  case HLO_OP_ERF: return mkf(erf(x));
  case HLO_OP_LOGISTIC: return mkf(logistic(x));
  default: HLO_BUG("%s is not a unary op of %s", hlo_opcode_name(op), hlo_type_name(t));
  }
}

static int64_t ipow(int64_t b, int64_t e, bool uns) {
  if (!uns && e < 0) {
    if (b == 1) return 1;
    if (b == -1) return (e & 1) ? -1 : 1;
    return 0;
  }
  uint64_t r = 1, bb = (uint64_t)b, ee = (uint64_t)e;
  while (ee) {
    if (ee & 1) r *= bb;
    bb *= bb;
    ee >>= 1;
  }
  return (int64_t)r;
}

hlo_sc hlo_ref_binary(hlo_opcode op, hlo_type t, hlo_type out_t, hlo_sc a, hlo_sc b) {
  hlo_type_kind k = hlo_type_kind_of(t);
  bool isf = k == HLO_KIND_FLOAT, isc = k == HLO_KIND_COMPLEX;
  bool uns = k == HLO_KIND_UINT || k == HLO_KIND_PRED;
  int bits = hlo_type_bits(t);
  (void)out_t;
  if (isc) {
    double complex x = cz(a), y = cz(b);
    switch (op) {
    case HLO_OP_ADD: return mkc(x + y);
    case HLO_OP_SUBTRACT: return mkc(x - y);
    case HLO_OP_MULTIPLY: return mkc(x * y);
    case HLO_OP_DIVIDE: return mkc(x / y);
    case HLO_OP_POWER: return mkc(cpow(x, y));
    /* XLA's evaluator for complex operands: atan2(lhs, rhs) =
     * -i log((rhs + i lhs) / sqrt(rhs^2 + lhs^2)), lhs in the role of y as
     * for reals; maximum and minimum order (real, imaginary) pairs
     * lexicographically */
    case HLO_OP_ATAN2: {
      const double complex i = CMPLX(0.0, 1.0);
      return mkc(-i * clog((y + i * x) / csqrt(y * y + x * x)));
    }
    case HLO_OP_MAXIMUM:
      return creal(x) > creal(y) || (creal(x) == creal(y) && cimag(x) >= cimag(y)) ? a : b;
    case HLO_OP_MINIMUM:
      return creal(x) < creal(y) || (creal(x) == creal(y) && cimag(x) <= cimag(y)) ? a : b;
    case HLO_OP_COMPLEX: break;
    default: HLO_BUG("%s has no rule for complex operands", hlo_opcode_name(op));
    }
  }
  if (isf) {
    double x = a.f, y = b.f;
    switch (op) {
    case HLO_OP_ADD: return mkf(x + y);
    case HLO_OP_SUBTRACT: return mkf(x - y);
    case HLO_OP_MULTIPLY: return mkf(x * y);
    case HLO_OP_DIVIDE: return mkf(x / y);
    case HLO_OP_REMAINDER: return mkf(fmod(x, y));
    case HLO_OP_MAXIMUM: return mkf(HLO_FMAX(x, y));
    case HLO_OP_MINIMUM: return mkf(HLO_FMIN(x, y));
    case HLO_OP_POWER: return mkf(pow(x, y));
    case HLO_OP_ATAN2: return mkf(atan2(x, y));
    case HLO_OP_COMPLEX: { hlo_sc r = {x, y, 0}; return r; }
    default: HLO_BUG("%s has no rule for %s operands", hlo_opcode_name(op), hlo_type_name(t));
    }
  }
  /* integers and pred */
  int64_t x = a.i, y = b.i;
  uint64_t ux = (uint64_t)x & umask(t), uy = (uint64_t)y & umask(t);
  switch (op) {
  case HLO_OP_ADD: return mki((int64_t)((uint64_t)x + (uint64_t)y));
  case HLO_OP_SUBTRACT: return mki((int64_t)((uint64_t)x - (uint64_t)y));
  case HLO_OP_MULTIPLY: return mki((int64_t)((uint64_t)x * (uint64_t)y));
  case HLO_OP_DIVIDE:
    if (y == 0) return mki(-1);
    if (uns) return mki((int64_t)(ux / uy));
    if (y == -1) return mki((int64_t)(0 - (uint64_t)x)); /* INT_MIN/-1 wraps */
    return mki(x / y);
  case HLO_OP_REMAINDER:
    if (y == 0) return mki(x);
    if (uns) return mki((int64_t)(ux % uy));
    if (y == -1) return mki(0);
    return mki(x % y);
  case HLO_OP_MAXIMUM:
    return mki(uns ? (ux > uy ? x : y) : (x > y ? x : y));
  case HLO_OP_MINIMUM:
    return mki(uns ? (ux < uy ? x : y) : (x < y ? x : y));
  case HLO_OP_AND: return mki(x & y);
  case HLO_OP_OR: return mki(x | y);
  case HLO_OP_XOR: return mki(x ^ y);
  case HLO_OP_POWER: return mki(ipow(x, y, uns));
  case HLO_OP_SHIFT_LEFT:
    if (uy >= (uint64_t)bits) return mki(0);
    return mki((int64_t)(ux << uy));
  case HLO_OP_SHIFT_RIGHT_LOGICAL:
    if (uy >= (uint64_t)bits) return mki(0);
    return mki((int64_t)(ux >> uy));
  case HLO_OP_SHIFT_RIGHT_ARITHMETIC: {
    /* x is sign-extended for signed types; for unsigned the top bit of the
     * width is the sign. */
    int64_t sx = uns ? hlo_sc_wrap(t == HLO_U64 ? HLO_S64 : t == HLO_U32 ? HLO_S32
                                   : t == HLO_U16 ? HLO_S16 : t == HLO_U8 ? HLO_S8
                                   : t == HLO_U4 ? HLO_S4 : t == HLO_U2 ? HLO_S2
                                   : HLO_S1, x) : x;
    if (uy >= (uint64_t)bits) return mki(sx < 0 ? -1 : 0);
    return mki(sx >> uy);
  }
  case HLO_OP_MULHI: {
    if (bits <= 32) {
      if (uns) return mki((int64_t)((ux * uy) >> bits));
      return mki((x * y) >> bits);
    }
    if (uns) return mki((int64_t)(uint64_t)(((unsigned __int128)ux * uy) >> 64));
    return mki((int64_t)(((__int128)x * y) >> 64));
  }
  default: HLO_BUG("%s has no rule for %s operands", hlo_opcode_name(op), hlo_type_name(t));
  }
}

hlo_sc hlo_ref_convert(hlo_type from, hlo_type to, hlo_sc a) {
  hlo_type_kind fk = hlo_type_kind_of(from), tk = hlo_type_kind_of(to);
  bool ffloat = fk == HLO_KIND_FLOAT || fk == HLO_KIND_COMPLEX;
  hlo_sc r = {0, 0, 0};
  switch (tk) {
  case HLO_KIND_PRED:
    r.i = ffloat ? (a.f != 0 || a.im != 0) : a.i != 0;
    return r;
  case HLO_KIND_SINT:
  case HLO_KIND_UINT:
    if (ffloat) {
      double x = a.f;
      int bits = hlo_type_bits(to);
      if (isnan(x)) { r.i = 0; return r; }
      if (tk == HLO_KIND_SINT) {
        double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
        if (x <= lo) r.i = bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
        else if (x >= hi) r.i = bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
        else r.i = (int64_t)x;
      } else {
        double hi = ldexp(1.0, bits);
        if (x <= 0) r.i = 0;
        else if (x >= hi) r.i = (int64_t)umask(to);
        else r.i = (int64_t)(uint64_t)x;
      }
      return r;
    }
    r.i = a.i;
    return r;
  case HLO_KIND_FLOAT:
  case HLO_KIND_COMPLEX:
    if (ffloat) { r.f = a.f; r.im = tk == HLO_KIND_COMPLEX ? a.im : 0; }
    else if (fk == HLO_KIND_UINT) {
      /* round once, directly to f32 where the target is f32 or narrower */
      if (to == HLO_F64 || to == HLO_C128) r.f = (double)(uint64_t)a.i;
      else r.f = (double)(float)(uint64_t)a.i;
    } else {
      if (to == HLO_F64 || to == HLO_C128) r.f = (double)a.i;
      else r.f = (double)(float)a.i;
    }
    return r;
  case HLO_KIND_TOKEN: case HLO_KIND_OPAQUE: case HLO_KIND_TUPLE: return r;
  }
  return r;
}

/* XLA's evaluator: round the mantissa to mbits bits to nearest even on the
 * bits of the element (f64, or f32 for f32 and the narrower types, whose
 * values f32 holds exactly), then give +-inf above the reduced exponent
 * range and +-0 at or below its smallest normal exponent (values that would
 * be subnormal in the reduced format are flushed, not rounded); a NaN stays
 * NaN with mbits > 0 and becomes +inf with mbits == 0. */
static uint64_t reduce_bits(uint64_t x, int src_m, int src_e, int ebits, int mbits) {
  if (mbits < src_m) {
    uint64_t last = UINT64_C(1) << (src_m - mbits);
    uint64_t bias = (last >> 1) - 1 + ((x & last) >> (src_m - mbits));
    x = (x + bias) & ~(last - 1);
  }
  if (ebits < src_e) {
    uint64_t sign = UINT64_C(1) << (src_m + src_e), emask = ((UINT64_C(1) << src_e) - 1) << src_m;
    int64_t src_bias = ((int64_t)1 << (src_e - 1)) - 1, rbias = ((int64_t)1 << (ebits - 1)) - 1;
    uint64_t xe = x & emask;
    if (xe > (uint64_t)(src_bias + rbias) << src_m) x = (x & sign) | emask;
    else if (xe <= (uint64_t)(src_bias - rbias) << src_m) x &= sign;
  }
  return x;
}

hlo_sc hlo_ref_reduce_precision(hlo_type t, hlo_sc a, int ebits, int mbits) {
  hlo_sc r = a;
  if (isnan(a.f)) {
    if (mbits == 0) r.f = INFINITY;
    return r;
  }
  if (t == HLO_F64) {
    uint64_t u;
    memcpy(&u, &a.f, 8);
    u = reduce_bits(u, 52, 11, ebits, mbits);
    memcpy(&r.f, &u, 8);
  } else {
    float f = (float)a.f;
    uint32_t v;
    memcpy(&v, &f, 4);
    v = (uint32_t)reduce_bits(v, 23, 8, ebits, mbits);
    memcpy(&f, &v, 4);
    r.f = f;
  }
  return r;
}

/* ---- compare ---------------------------------------------------------------- */
static int64_t total_key(double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  int64_t s = (int64_t)u;
  return s < 0 ? (int64_t)(u ^ 0x7fffffffffffffffULL) : s;
}

static bool cmp_res(int dir, int c /* -1,0,1 */) {
  switch (dir) {
  case CMP_EQ: return c == 0;
  case CMP_NE: return c != 0;
  case CMP_LT: return c < 0;
  case CMP_LE: return c <= 0;
  case CMP_GT: return c > 0;
  case CMP_GE: return c >= 0;
  }
  return false;
}

bool hlo_ref_compare(int dir, int ctype, hlo_type t, hlo_sc a, hlo_sc b) {
  hlo_type_kind k = hlo_type_kind_of(t);
  if (k == HLO_KIND_COMPLEX) {
    bool eq = a.f == b.f && a.im == b.im;
    return dir == CMP_EQ ? eq : dir == CMP_NE ? !eq : false;
  }
  if (k == HLO_KIND_FLOAT) {
    if (ctype == CMPT_TOTALORDER) {
      int64_t x = total_key(a.f), y = total_key(b.f);
      return cmp_res(dir, (x > y) - (x < y));
    }
    double x = a.f, y = b.f;
    switch (dir) {
    case CMP_EQ: return x == y;
    case CMP_NE: return x != y; /* true for NaN */
    case CMP_LT: return x < y;
    case CMP_LE: return x <= y;
    case CMP_GT: return x > y;
    case CMP_GE: return x >= y;
    }
    return false;
  }
  bool uns = k == HLO_KIND_UINT || k == HLO_KIND_PRED;
  if (ctype == CMPT_SIGNED) uns = false;
  if (ctype == CMPT_UNSIGNED) uns = true;
  if (uns) {
    uint64_t x = (uint64_t)a.i & umask(t), y = (uint64_t)b.i & umask(t);
    return cmp_res(dir, (x > y) - (x < y));
  }
  return cmp_res(dir, (a.i > b.i) - (a.i < b.i));
}

int hlo_cmp_attrs(const hlo_instruction *in, int *dir, int *ctype, hlo_diags *d) {
  static const char *const dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  static const char *const types[] = {"", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
  const char *w = hlo_instr_word(in, HLO_A_DIRECTION);
  *dir = -1;
  for (int i = 0; w && i < 6; i++)
    if (strcmp(w, dirs[i]) == 0) *dir = i;
  if (*dir < 0)
    return hlo_errorf(d, NULL, 0, "%s: compare needs direction=EQ|NE|LT|LE|GT|GE",
                      in->name);
  w = hlo_instr_word(in, HLO_A_TYPE);
  *ctype = CMPT_DEFAULT;
  if (w) {
    *ctype = -1;
    for (int i = 1; i < 5; i++)
      if (strcmp(w, types[i]) == 0) *ctype = i;
    if (*ctype < 0)
      return hlo_errorf(d, NULL, 0, "%s: unknown compare type '%s'", in->name, w);
  }
  return HLO_OK;
}
