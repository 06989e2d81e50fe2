/* fp.c - the bit formats of XLA's floating-point element types: decode,
 * correctly rounded encode, XLA's literal text form and its parser.
 * One table describes every format; the per-format rules (infinities, NaN
 * encodings, signed zero) are the ml_dtypes rules, see docs/fp.md. */
#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_fp.h"

typedef enum fp_kind {
  FP_IEEE, /* inf = exp all ones, mantissa 0; NaN = exp all ones, mantissa != 0 */
  FP_FN,   /* no inf; NaN = exp and mantissa all ones (either sign) */
  FP_FNUZ, /* no inf, no -0; NaN = 0x80 only */
  FP_E8M0, /* unsigned, no mantissa, no zero; NaN = 0xff */
  FP_MX    /* no inf, no NaN */
} fp_kind;

typedef struct fp_fmt {
  unsigned char ebits, mbits;
  short bias;
  fp_kind kind;
  unsigned char max_digits10;
} fp_fmt;

/* Returns NULL for non-float types. */
static const fp_fmt *fmt_of(hlo_type t) {
  static const fp_fmt F16 = {5, 10, 15, FP_IEEE, 5};
  static const fp_fmt BF16 = {8, 7, 127, FP_IEEE, 4};
  static const fp_fmt F32 = {8, 23, 127, FP_IEEE, 9};
  static const fp_fmt F64 = {11, 52, 1023, FP_IEEE, 17};
  static const fp_fmt E5M2 = {5, 2, 15, FP_IEEE, 2};
  static const fp_fmt E4M3 = {4, 3, 7, FP_IEEE, 3};
  static const fp_fmt E4M3FN = {4, 3, 7, FP_FN, 3};
  static const fp_fmt E4M3B11FNUZ = {4, 3, 11, FP_FNUZ, 3};
  static const fp_fmt E5M2FNUZ = {5, 2, 16, FP_FNUZ, 2};
  static const fp_fmt E4M3FNUZ = {4, 3, 8, FP_FNUZ, 3};
  static const fp_fmt E3M4 = {3, 4, 3, FP_IEEE, 3};
  static const fp_fmt E8M0FNU = {8, 0, 127, FP_E8M0, 2};
  static const fp_fmt E2M1FN = {2, 1, 1, FP_MX, 2};
  switch (t) {
  case HLO_F16: return &F16;
  case HLO_BF16: return &BF16;
  case HLO_F32: return &F32;
  case HLO_F64: return &F64;
  case HLO_F8E5M2: return &E5M2;
  case HLO_F8E4M3: return &E4M3;
  case HLO_F8E4M3FN: return &E4M3FN;
  case HLO_F8E4M3B11FNUZ: return &E4M3B11FNUZ;
  case HLO_F8E5M2FNUZ: return &E5M2FNUZ;
  case HLO_F8E4M3FNUZ: return &E4M3FNUZ;
  case HLO_F8E3M4: return &E3M4;
  case HLO_F8E8M0FNU: return &E8M0FNU;
  case HLO_F4E2M1FN: return &E2M1FN;
  case HLO_PRED: case HLO_S1: case HLO_S2: case HLO_S4: case HLO_S8: case HLO_S16:
  case HLO_S32: case HLO_S64: case HLO_U1: case HLO_U2: case HLO_U4: case HLO_U8:
  case HLO_U16: case HLO_U32: case HLO_U64: case HLO_C64: case HLO_C128:
  case HLO_TOKEN: case HLO_OPAQUE: case HLO_TUPLE: case HLO_TYPE_COUNT:
    return NULL;
  }
  return NULL;
}

static int width(const fp_fmt *f) { return f->ebits + f->mbits + (f->kind != FP_E8M0); }
static uint64_t mask_bits(int n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
static uint64_t sign_bit(const fp_fmt *f) {
  return f->kind == FP_E8M0 ? 0 : 1ull << (f->ebits + f->mbits);
}
static uint64_t exp_mask(const fp_fmt *f) { return mask_bits(f->ebits) << f->mbits; }
static uint64_t quiet_bit(const fp_fmt *f) { return f->mbits ? 1ull << (f->mbits - 1) : 0; }

/* Largest finite magnitude pattern. */
static uint64_t max_finite(const fp_fmt *f) {
  switch (f->kind) {
  case FP_IEEE: return exp_mask(f) - (1ull << f->mbits) + mask_bits(f->mbits);
  case FP_FN: return mask_bits(f->ebits + f->mbits) - 1;
  case FP_FNUZ: case FP_MX: return mask_bits(f->ebits + f->mbits);
  case FP_E8M0: return 0xfe;
  }
  return 0;
}

/* The pattern for NaN of the given sign (MX has none: callers check). */
static uint64_t nan_bits(const fp_fmt *f, bool neg) {
  uint64_t s = neg ? sign_bit(f) : 0;
  switch (f->kind) {
  case FP_IEEE: return s | exp_mask(f) | quiet_bit(f);
  case FP_FN: return s | mask_bits(f->ebits + f->mbits);
  case FP_FNUZ: return 0x80;
  case FP_E8M0: return 0xff;
  case FP_MX: return neg ? 0 : sign_bit(f); /* ml_dtypes: -(0b1000) / 0b1000 */
  }
  return 0;
}

/* What an infinity (or an overflow) of the given sign becomes. */
static uint64_t inf_bits(const fp_fmt *f, bool neg) {
  uint64_t s = neg ? sign_bit(f) : 0;
  switch (f->kind) {
  case FP_IEEE: return s | exp_mask(f);
  case FP_FN: case FP_FNUZ: case FP_E8M0: return nan_bits(f, neg);
  case FP_MX: return s | max_finite(f); /* saturates */
  }
  return 0;
}

bool hlo_fp_is_nan(hlo_type t, uint64_t bits) {
  const fp_fmt *f = fmt_of(t);
  if (!f) return false;
  bits &= mask_bits(width(f));
  uint64_t mag = bits & ~sign_bit(f);
  switch (f->kind) {
  case FP_IEEE: return (mag & exp_mask(f)) == exp_mask(f) && (mag & mask_bits(f->mbits));
  case FP_FN: return mag == mask_bits(f->ebits + f->mbits);
  case FP_FNUZ: return bits == 0x80;
  case FP_E8M0: return bits == 0xff;
  case FP_MX: return false;
  }
  return false;
}

bool hlo_fp_is_inf(hlo_type t, uint64_t bits) {
  const fp_fmt *f = fmt_of(t);
  if (!f || f->kind != FP_IEEE) return false;
  return ((bits & mask_bits(width(f))) & ~sign_bit(f)) == exp_mask(f);
}

int hlo_fp_max_digits10(hlo_type t) {
  const fp_fmt *f = fmt_of(t);
  return f ? f->max_digits10 : 0;
}

double hlo_fp_to_double(hlo_type t, uint64_t bits) {
  const fp_fmt *f = fmt_of(t);
  if (!f) return NAN;
  bits &= mask_bits(width(f));
  if (t == HLO_F64) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
  }
  if (t == HLO_F32) {
    uint32_t u = (uint32_t)bits;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
  }
  bool neg = (bits & sign_bit(f)) != 0;
  if (hlo_fp_is_nan(t, bits)) return copysign(NAN, neg ? -1.0 : 1.0);
  if (hlo_fp_is_inf(t, bits)) return neg ? -INFINITY : INFINITY;
  if (f->kind == FP_E8M0) return ldexp(1.0, (int)bits - f->bias);
  uint64_t e = (bits >> f->mbits) & mask_bits(f->ebits);
  uint64_t m = bits & mask_bits(f->mbits);
  double v = e == 0 ? ldexp((double)m, 1 - f->bias - f->mbits)
                    : ldexp((double)(m | (1ull << f->mbits)), (int)e - f->bias - f->mbits);
  return neg ? -v : v;
}

/* The generic encoder for every format narrower than f32. */
static uint64_t encode(const fp_fmt *f, double v, bool *overflow) {
  bool neg = signbit(v) != 0;
  *overflow = false;
  if (isnan(v)) return nan_bits(f, neg);
  if (isinf(v)) return inf_bits(f, neg);
  if (v == 0) {
    if (f->kind == FP_E8M0) return nan_bits(f, neg);
    if (f->kind == FP_FNUZ) return 0;
    return neg ? sign_bit(f) : 0;
  }
  if (neg && f->kind == FP_E8M0) return nan_bits(f, true);
  double a = fabs(v);
  /* Smallest exponent of a normal number (e8m0 has no subnormals: field 0
   * is 2^-bias). */
  int emin = (f->kind == FP_E8M0 ? 0 : 1) - f->bias;
  int e = ilogb(a);
  if (e < emin) e = emin;
  /* a = n * 2^(e - mbits), n rounded to an integer: exact scaling. */
  double n = rint(ldexp(a, f->mbits - e)); /* default mode: ties to even */
  uint64_t one = 1ull << f->mbits;
  if (n >= (double)(2 * one)) { /* rounding carried into the next binade */
    n = (double)one;
    e++;
  }
  uint64_t mag;
  uint64_t ni = (uint64_t)n;
  if (ni < one) {
    mag = ni; /* subnormal (or e8m0's 0x00 = 2^-127 for anything tinier) */
  } else {
    int64_t field = (int64_t)e + f->bias;
    if (field > (int64_t)mask_bits(f->ebits)) {
      *overflow = true;
      return inf_bits(f, neg);
    }
    mag = ((uint64_t)field << f->mbits) | (ni - one);
  }
  if (mag > max_finite(f)) {
    *overflow = true;
    return inf_bits(f, neg);
  }
  if (mag == 0 && f->kind == FP_FNUZ) return 0;
  return (neg ? sign_bit(f) : 0) | mag;
}

uint64_t hlo_fp_from_double_ex(hlo_type t, double v, bool *overflow) {
  const fp_fmt *f = fmt_of(t);
  bool ov = false;
  uint64_t r = 0;
  if (!f) {
    r = 0;
  } else if (t == HLO_F64) {
    memcpy(&r, &v, sizeof r);
  } else if (t == HLO_F32 && isnan(v)) {
    float x = (float)v; /* keeps the payload's top bits, as C does */
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    r = u;
  } else {
    r = encode(f, v, &ov);
  }
  if (overflow) *overflow = ov;
  return r;
}

uint64_t hlo_fp_from_double(hlo_type t, double v) {
  return hlo_fp_from_double_ex(t, v, NULL);
}

/* ---- fast 16-bit helpers ------------------------------------------------ */

uint16_t hlo_f32_to_f16(float fl) {
  uint32_t x;
  memcpy(&x, &fl, sizeof x);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (x >= 0x477ff000u) return sign | 0x7c00; /* >= 65520 rounds to inf */
  if (x < 0x38800000u) {                      /* below 2^-14: subnormal half */
    if (x <= 0x33000000u) return sign;        /* <= 2^-25 rounds to zero */
    uint32_t e = x >> 23, m = (x & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e; /* value in units of 2^-24 is m >> shift */
    uint32_t half = 1u << (shift - 1), rest = m & ((1u << shift) - 1);
    uint32_t n = m >> shift;
    if (rest > half || (rest == half && (n & 1))) n++;
    return sign | (uint16_t)n;
  }
  x += 0xfffu + ((x >> 13) & 1);
  return sign | (uint16_t)((x - 0x38000000u) >> 13);
}

float hlo_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
  if (e == 0x1f) {
    x = sign | 0x7f800000u | (m << 13);
  } else if (e == 0) {
    float v = ldexpf((float)m, -24);
    return sign ? -v : v;
  } else {
    x = sign | ((e + 112) << 23) | (m << 13);
  }
  float r;
  memcpy(&r, &x, sizeof r);
  return r;
}

uint16_t hlo_f32_to_bf16(float fl) {
  uint32_t x;
  memcpy(&x, &fl, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)(((x >> 16) & 0x8000) | 0x7fc0);
  x += 0x7fffu + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

float hlo_bf16_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float r;
  memcpy(&r, &x, sizeof r);
  return r;
}

/* ---- text ------------------------------------------------------------------ */

#define MAX_TEXT 1024

size_t hlo_fp_scan(const char *s, size_t n) {
  size_t i = 0;
  if (i < n && s[i] == '-') i++;
  if (n - i >= 3 && memcmp(s + i, "inf", 3) == 0) return i + 3;
  if (n - i >= 3 && memcmp(s + i, "nan", 3) == 0) {
    i += 3;
    size_t j = i;
    if (j + 3 < n && s[j] == '(' && s[j + 1] == '0' && s[j + 2] == 'x') {
      j += 3;
      size_t h = j;
      while (j < n && ((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'f') ||
                       (s[j] >= 'A' && s[j] <= 'F')))
        j++;
      if (j > h && j < n && s[j] == ')') return j + 1;
    }
    return i;
  }
  size_t d0 = i;
  while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  size_t ndig = i - d0;
  if (i < n && s[i] == '.') {
    size_t f0 = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    ndig += i - f0;
  }
  if (ndig == 0) return 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) j++;
    size_t e0 = j;
    while (j < n && s[j] >= '0' && s[j] <= '9') j++;
    if (j > e0) i = j;
  }
  return i;
}

/* Convert the NUL-terminated decimal in buf.  odd=false: rounded to the
 * nearest double.  odd=true: rounded to odd (an inexact result gets the
 * neighbour with an odd last bit), so that rounding it once more to any
 * format of at most 51 significant bits is the correct rounding of the
 * decimal itself (Boldo & Melquiond); without it, decimal -> double ->
 * narrow would round twice.  glibc's strtod honours the rounding mode, which
 * is restored before returning. */
static bool decimal_to_double(const char *buf, bool odd, double *v, char **end) {
  int saved = fegetround();
  if (!odd) {
    fesetround(FE_TONEAREST);
    *v = strtod(buf, end);
    fesetround(saved);
    return true;
  }
  fesetround(FE_DOWNWARD);
  double lo = strtod(buf, end);
  fesetround(FE_UPWARD);
  double hi = strtod(buf, NULL);
  fesetround(saved);
  if (lo == hi) {
    *v = lo;
  } else {
    uint64_t b;
    memcpy(&b, &lo, sizeof b);
    *v = (b & 1) ? lo : hi;
  }
  return true;
}

static int fail(const char **why, const char *msg) {
  if (why) *why = msg;
  return HLO_ERR;
}

int hlo_fp_parse_ex(const char *s, size_t n, hlo_type t, uint64_t *bits, const char **why) {
  const fp_fmt *f = fmt_of(t);
  if (!f) return fail(why, "not a floating-point type");
  if (n == 0 || hlo_fp_scan(s, n) != n) return fail(why, "malformed floating-point number");
  if (n > MAX_TEXT) return fail(why, "floating-point literal too long");
  bool neg = s[0] == '-';
  const char *p = s + neg;
  size_t m = n - neg;
  if (m >= 3 && memcmp(p, "inf", 3) == 0) {
    if (f->kind != FP_IEEE) return fail(why, "type has no infinity");
    *bits = inf_bits(f, neg);
    return HLO_OK;
  }
  if (m >= 3 && memcmp(p, "nan", 3) == 0) {
    if (f->kind == FP_MX) return fail(why, "type has no NaN");
    if (m == 3) {
      *bits = nan_bits(f, neg);
      return HLO_OK;
    }
    if (f->kind != FP_IEEE) return fail(why, "type has no NaN payloads");
    /* "(0x" hex ")" */
    uint64_t payload = 0;
    for (size_t i = 6; i + 1 < m; i++) {
      char c = p[i];
      int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
      if (payload >> 60) return fail(why, "NaN payload out of range");
      payload = payload << 4 | (uint64_t)d;
    }
    if (payload == 0 || payload > mask_bits(f->mbits))
      return fail(why, "NaN payload out of range");
    *bits = (neg ? sign_bit(f) : 0) | exp_mask(f) | payload;
    return HLO_OK;
  }
  char buf[MAX_TEXT + 1];
  memcpy(buf, s, n);
  buf[n] = 0;
  char *end;
  errno = 0;
  if (t == HLO_F32) { /* strtof rounds correctly in one step */
    int saved = fegetround();
    fesetround(FE_TONEAREST);
    float fv = strtof(buf, &end);
    fesetround(saved);
    if (end != buf + n) return fail(why, "malformed floating-point number");
    if (isinf(fv)) return fail(why, "value out of range for the type");
    uint32_t u;
    memcpy(&u, &fv, sizeof u);
    *bits = u;
    return HLO_OK;
  }
  double v;
  if (!decimal_to_double(buf, t != HLO_F64, &v, &end) || end != buf + n)
    return fail(why, "malformed floating-point number");
  if (isinf(v)) return fail(why, "value out of range for the type");
  if (f->kind == FP_E8M0 && !(v > 0)) return fail(why, "value out of range for the type");
  bool ov;
  uint64_t r = hlo_fp_from_double_ex(t, v, &ov);
  if (ov) return fail(why, "value out of range for the type");
  *bits = r;
  return HLO_OK;
}

int hlo_fp_parse(const char *s, size_t n, hlo_type t, uint64_t *bits) {
  return hlo_fp_parse_ex(s, n, t, bits, NULL);
}

static int put(char *out, size_t cap, const char *text) {
  size_t len = strlen(text);
  if (cap == 0) return HLO_ERR;
  if (len >= cap) {
    out[0] = 0;
    return HLO_ERR;
  }
  memcpy(out, text, len + 1);
  return (int)len;
}

/* Whether v is an integer that the %g formats below print as its digits
 * (fewer digits than their precision), so that they can be skipped: large
 * literals are mostly such values.  In the shortest form only for f32 and
 * f64 below 10^6 without a trailing zero (no shorter string names another
 * integer of the type there; 10 prints as "1e+01"). */
static bool small_integer(const fp_fmt *f, hlo_type t, double v, bool shortest) {
  if (!(v > -1e15 && v < 1e15) || v != (double)(long long)v || (v == 0 && signbit(v))) return false;
  double a = v < 0 ? -v : v;
  if (shortest)
    return (t == HLO_F32 || t == HLO_F64) && a < 1e6 && (a == 0 || (long long)a % 10 != 0);
  double lim = t == HLO_F32 ? 1e6 : t == HLO_F64 ? 1e15 : 1;
  if (t != HLO_F32 && t != HLO_F64)
    for (int i = 0; i < f->max_digits10 && lim < 1e15; i++) lim *= 10;
  return a < lim;
}

int hlo_fp_format(char *out, size_t cap, hlo_type t, uint64_t bits, bool shortest) {
  const fp_fmt *f = fmt_of(t);
  if (!f) {
    if (cap) out[0] = 0;
    return HLO_ERR;
  }
  bits &= mask_bits(width(f));
  char tmp[320]; /* %.*g below never exceeds 25 bytes; sized for the compiler */
  bool neg = (bits & sign_bit(f)) != 0;
  if (hlo_fp_is_nan(t, bits)) {
    int len = snprintf(tmp, sizeof tmp, "%s", neg || f->kind == FP_FNUZ ? "-nan" : "nan");
    uint64_t payload = bits & mask_bits(f->mbits);
    if (f->kind == FP_IEEE && payload != quiet_bit(f))
      snprintf(tmp + len, sizeof tmp - (size_t)len, "(0x%llx)", (unsigned long long)payload);
    return put(out, cap, tmp);
  }
  if (hlo_fp_is_inf(t, bits)) return put(out, cap, neg ? "-inf" : "inf");
  double v = hlo_fp_to_double(t, bits);
  if (small_integer(f, t, v, shortest)) { /* what %g would print, without it */
    char *e = tmp + sizeof tmp - 1;
    *e = 0;
    long long n = (long long)(v < 0 ? -v : v);
    do *--e = (char)('0' + n % 10); while ((n /= 10) > 0);
    if (v < 0) *--e = '-';
    return put(out, cap, e);
  }
  if (shortest) {
    for (int p = 1; p <= f->max_digits10; p++) {
      snprintf(tmp, sizeof tmp, "%.*g", p, v);
      uint64_t back;
      if (hlo_fp_parse(tmp, strlen(tmp), t, &back) == HLO_OK && back == bits)
        return put(out, cap, tmp);
    }
    snprintf(tmp, sizeof tmp, "%.*g", f->max_digits10, v);
    return put(out, cap, tmp);
  }
  if (t == HLO_F32 || t == HLO_F64) {
    snprintf(tmp, sizeof tmp, "%.*g", t == HLO_F32 ? 6 : 15, v);
    bool same;
    if (t == HLO_F32) same = strtof(tmp, NULL) == (float)v;
    else same = strtod(tmp, NULL) == v;
    if (same) return put(out, cap, tmp);
  }
  snprintf(tmp, sizeof tmp, "%.*g", f->max_digits10, v);
  return put(out, cap, tmp);
}

int hlo_fp_format_complex(char *out, size_t cap, hlo_type t, uint64_t re, uint64_t im,
                          bool shortest) {
  hlo_type part = t == HLO_C64 ? HLO_F32 : t == HLO_C128 ? HLO_F64 : HLO_TYPE_COUNT;
  char a[HLO_FP_FMT_MAX], b[HLO_FP_FMT_MAX], tmp[2 * HLO_FP_FMT_MAX + 8];
  if (part == HLO_TYPE_COUNT || hlo_fp_format(a, sizeof a, part, re, shortest) < 0 ||
      hlo_fp_format(b, sizeof b, part, im, shortest) < 0) {
    if (cap) out[0] = 0;
    return HLO_ERR;
  }
  snprintf(tmp, sizeof tmp, "(%s, %s)", a, b);
  return put(out, cap, tmp);
}
