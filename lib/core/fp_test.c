/* fp_test.c - unit tests for the float formats: hand-computed spot values
 * from the format definitions (ml_dtypes' float8.h / mxfloat.h: bias,
 * NaN/inf encodings), numpy float16 as an oracle (run through
 * /usr/bin/python3 at test time), XLA's RoundTripFpToString rules, and
 * exhaustive format/parse round trips of every 8- and 16-bit pattern. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_fp.h"
#include "hlo/hlo_ir.h" /* type names and widths for messages */
#include "testing.h"

#define PY "/usr/bin/python3"

static const hlo_type FLOATS[] = {
    HLO_F16, HLO_BF16, HLO_F32, HLO_F64, HLO_F8E5M2, HLO_F8E4M3, HLO_F8E4M3FN,
    HLO_F8E4M3B11FNUZ, HLO_F8E5M2FNUZ, HLO_F8E4M3FNUZ, HLO_F8E3M4, HLO_F8E8M0FNU,
    HLO_F4E2M1FN};
#define NFLOATS (int)(sizeof FLOATS / sizeof FLOATS[0])

static const char *fmt(hlo_type t, uint64_t b, bool shortest) {
  static char buf[HLO_FP_FMT_MAX];
  if (hlo_fp_format(buf, sizeof buf, t, b, shortest) < 0) return "(error)";
  return buf;
}

static long long enc(hlo_type t, double v) { return (long long)hlo_fp_from_double(t, v); }

/* Encodings worked out by hand from each format's bias/field layout. */
static void test_spot_encode(void) {
  CHECK_INT(enc(HLO_BF16, 1.0), 0x3f80);
  CHECK_INT(enc(HLO_BF16, -2.0), 0xc000);
  CHECK_INT(enc(HLO_BF16, 1.0 / 3), 0x3eab); /* 0.333984375 */
  CHECK_INT(enc(HLO_BF16, 65505), 0x4780);   /* rounds up to 65536 */
  CHECK_INT(enc(HLO_BF16, 1e39), 0x7f80);    /* overflow -> inf */
  CHECK_INT(enc(HLO_BF16, -NAN), 0xffc0);
  CHECK_INT(enc(HLO_F8E5M2, 1.0), 0x3c);
  CHECK_INT(enc(HLO_F8E5M2, 57344), 0x7b);
  CHECK_INT(enc(HLO_F8E5M2, 61440), 0x7c); /* tie with odd max: up to inf */
  CHECK_INT(enc(HLO_F8E5M2, 1.125), 0x3c); /* tie -> even mantissa 00 */
  CHECK_INT(enc(HLO_F8E5M2, 1.375), 0x3e); /* tie -> even mantissa 10 */
  CHECK_INT(enc(HLO_F8E5M2, ldexp(1, -16)), 0x01);
  CHECK_INT(enc(HLO_F8E5M2, ldexp(1, -17)), 0x00); /* tie with 0 -> 0 */
  CHECK_INT(enc(HLO_F8E5M2, ldexp(3, -18)), 0x01);
  CHECK_INT(enc(HLO_F8E5M2, NAN), 0x7e);
  CHECK_INT(enc(HLO_F8E4M3, 1.0), 0x38);
  CHECK_INT(enc(HLO_F8E4M3, 240), 0x77);
  CHECK_INT(enc(HLO_F8E4M3, 248), 0x78); /* tie, odd max -> inf */
  CHECK_INT(enc(HLO_F8E4M3, -INFINITY), 0xf8);
  CHECK_INT(enc(HLO_F8E4M3FN, 1.0), 0x38);
  CHECK_INT(enc(HLO_F8E4M3FN, 448), 0x7e);
  CHECK_INT(enc(HLO_F8E4M3FN, 464), 0x7e); /* tie -> even 448 */
  CHECK_INT(enc(HLO_F8E4M3FN, 500), 0x7f); /* overflow -> NaN */
  CHECK_INT(enc(HLO_F8E4M3FN, -500), 0xff);
  CHECK_INT(enc(HLO_F8E4M3FN, INFINITY), 0x7f);
  CHECK_INT(enc(HLO_F8E4M3FN, -0.0), 0x80);
  CHECK_INT(enc(HLO_F8E4M3FN, ldexp(1, -9)), 0x01);
  CHECK_INT(enc(HLO_F8E4M3B11FNUZ, 1.0), 0x58);
  CHECK_INT(enc(HLO_F8E4M3B11FNUZ, -1.0), 0xd8);
  CHECK_INT(enc(HLO_F8E4M3B11FNUZ, 30), 0x7f);
  CHECK_INT(enc(HLO_F8E4M3B11FNUZ, 32), 0x80); /* overflow -> the NaN */
  CHECK_INT(enc(HLO_F8E4M3B11FNUZ, -0.0), 0x00);
  CHECK_INT(enc(HLO_F8E4M3B11FNUZ, -ldexp(1, -20)), 0x00); /* no -0 */
  CHECK_INT(enc(HLO_F8E4M3B11FNUZ, ldexp(1, -13)), 0x01);
  CHECK_INT(enc(HLO_F8E5M2FNUZ, 1.0), 0x40);
  CHECK_INT(enc(HLO_F8E5M2FNUZ, 57344), 0x7f);
  CHECK_INT(enc(HLO_F8E5M2FNUZ, -INFINITY), 0x80);
  CHECK_INT(enc(HLO_F8E4M3FNUZ, 1.0), 0x40);
  CHECK_INT(enc(HLO_F8E4M3FNUZ, 240), 0x7f);
  CHECK_INT(enc(HLO_F8E4M3FNUZ, NAN), 0x80);
  CHECK_INT(enc(HLO_F8E3M4, 1.0), 0x30);
  CHECK_INT(enc(HLO_F8E3M4, 15.5), 0x6f);
  CHECK_INT(enc(HLO_F8E3M4, 16), 0x70); /* inf */
  CHECK_INT(enc(HLO_F8E3M4, ldexp(1, -6)), 0x01);
  CHECK_INT(enc(HLO_F8E3M4, NAN), 0x78);
  CHECK_INT(enc(HLO_F8E8M0FNU, 1.0), 0x7f);
  CHECK_INT(enc(HLO_F8E8M0FNU, 3.0), 0x81); /* 1.5*2: tie -> 4 */
  CHECK_INT(enc(HLO_F8E8M0FNU, 1.4), 0x7f);
  CHECK_INT(enc(HLO_F8E8M0FNU, 1.6), 0x80);
  CHECK_INT(enc(HLO_F8E8M0FNU, ldexp(1, -127)), 0x00);
  CHECK_INT(enc(HLO_F8E8M0FNU, ldexp(1, 127)), 0xfe);
  CHECK_INT(enc(HLO_F8E8M0FNU, ldexp(1, 128)), 0xff);
  CHECK_INT(enc(HLO_F8E8M0FNU, 0.0), 0xff);
  CHECK_INT(enc(HLO_F8E8M0FNU, -1.0), 0xff);
  CHECK_INT(enc(HLO_F4E2M1FN, 5.0), 0x6); /* tie 4/6 -> 4 */
  CHECK_INT(enc(HLO_F4E2M1FN, 0.75), 0x2);
  CHECK_INT(enc(HLO_F4E2M1FN, 0.25), 0x0);
  CHECK_INT(enc(HLO_F4E2M1FN, 100), 0x7); /* saturates */
  CHECK_INT(enc(HLO_F4E2M1FN, -INFINITY), 0xf);
  CHECK_INT(enc(HLO_F4E2M1FN, NAN), 0x8); /* ml_dtypes' quiet_NaN() */
  CHECK_INT(enc(HLO_F4E2M1FN, -NAN), 0x0);
  CHECK(hlo_fp_to_double(HLO_F4E2M1FN, 0x7) == 6.0);
  CHECK(hlo_fp_to_double(HLO_F4E2M1FN, 0x9) == -0.5);
  CHECK(hlo_fp_to_double(HLO_F8E8M0FNU, 0) == ldexp(1, -127));
  CHECK(isnan(hlo_fp_to_double(HLO_F8E8M0FNU, 0xff)));
  CHECK(hlo_fp_to_double(HLO_F8E4M3B11FNUZ, 0x01) == ldexp(1, -13));
  CHECK(hlo_fp_to_double(HLO_F8E4M3FN, 0x7e) == 448);
  CHECK(isnan(hlo_fp_to_double(HLO_F8E4M3FN, 0xff)));
  CHECK(hlo_fp_is_inf(HLO_F8E5M2, 0xfc));
  CHECK(!hlo_fp_is_inf(HLO_F8E4M3FN, 0x7f));
  CHECK(hlo_fp_is_nan(HLO_F8E5M2FNUZ, 0x80) && !hlo_fp_is_nan(HLO_F8E5M2FNUZ, 0x00));
  CHECK_INT(enc(HLO_S32, 1.0), 0);
  CHECK_INT(hlo_fp_max_digits10(HLO_F32), 9);
  CHECK_INT(hlo_fp_max_digits10(HLO_BF16), 4);
  CHECK_INT(hlo_fp_max_digits10(HLO_F8E5M2), 2);
}

/* XLA's RoundTripFpToString: f32 "%.6g" else "%.9g", f64 "%.15g" else
 * "%.17g", others "%.<max_digits10>g"; NaN spelling from xla/util_test.cc. */
static void test_format_xla(void) {
  CHECK_STR(fmt(HLO_F32, 0x3dcccccd, false), "0.1");
  CHECK_STR(fmt(HLO_F32, 0x3eaaaaab, false), "0.333333343");
  CHECK_STR(fmt(HLO_F32, 0x4b800000, false), "16777216");
  CHECK_STR(fmt(HLO_F32, 0x42f60000, false), "123");
  CHECK_STR(fmt(HLO_F32, 0x80000000, false), "-0");
  CHECK_STR(fmt(HLO_F32, 0x7f800000, false), "inf");
  CHECK_STR(fmt(HLO_F32, 0xff800000, false), "-inf");
  CHECK_STR(fmt(HLO_F32, 0x7fc00000, false), "nan");
  CHECK_STR(fmt(HLO_F32, 0xffc00000, false), "-nan");
  CHECK_STR(fmt(HLO_F32, 0x7fc00001, false), "nan(0x400001)");
  CHECK_STR(fmt(HLO_F32, 0x7f800001, false), "nan(0x1)");
  CHECK_STR(fmt(HLO_F32, 0x7f7fffff, false), "3.40282347e+38");
  CHECK_STR(fmt(HLO_F64, 0x3fb999999999999aull, false), "0.1");
  CHECK_STR(fmt(HLO_F64, 0x3fd5555555555555ull, false), "0.33333333333333331");
  CHECK_STR(fmt(HLO_F64, 0x7ff8000000000000ull, false), "nan");
  CHECK_STR(fmt(HLO_F64, 0xfff0000000000000ull, false), "-inf");
  CHECK_STR(fmt(HLO_F16, 0x2e66, false), "0.099976");
  CHECK_STR(fmt(HLO_F16, 0x7bff, false), "65504");
  CHECK_STR(fmt(HLO_F16, 0x7e00, false), "nan");
  CHECK_STR(fmt(HLO_F16, 0xfe00, false), "-nan");
  CHECK_STR(fmt(HLO_F16, 0x7c01, false), "nan(0x1)");
  CHECK_STR(fmt(HLO_F16, 0xffff, false), "-nan(0x3ff)");
  CHECK_STR(fmt(HLO_F16, 0x0001, false), "5.9605e-08");
  CHECK_STR(fmt(HLO_BF16, 0x3eab, false), "0.334");
  CHECK_STR(fmt(HLO_BF16, 0x7fc0, false), "nan");
  CHECK_STR(fmt(HLO_BF16, 0xffc0, false), "-nan");
  CHECK_STR(fmt(HLO_F8E5M2, 0x3d, false), "1.2"); /* 1.25, %.2g */
  CHECK_STR(fmt(HLO_F8E5M2, 0x7d, false), "nan(0x1)");
  CHECK_STR(fmt(HLO_F8E5M2, 0x7e, false), "nan");
  CHECK_STR(fmt(HLO_F8E4M3FN, 0x7f, false), "nan");
  CHECK_STR(fmt(HLO_F8E4M3FN, 0xff, false), "-nan");
  CHECK_STR(fmt(HLO_F8E4M3FN, 0x7e, false), "448");
  CHECK_STR(fmt(HLO_F8E4M3FNUZ, 0x80, false), "-nan"); /* ml_dtypes: signed NaN */
  CHECK_STR(fmt(HLO_F8E5M2FNUZ, 0x80, false), "-nan");
  CHECK_STR(fmt(HLO_F8E4M3B11FNUZ, 0x80, false), "-nan");
  CHECK_STR(fmt(HLO_F8E3M4, 0x78, false), "nan");
  CHECK_STR(fmt(HLO_F8E3M4, 0x6f, false), "15.5");
  CHECK_STR(fmt(HLO_F8E8M0FNU, 0xff, false), "nan");
  CHECK_STR(fmt(HLO_F8E8M0FNU, 0x00, false), "5.9e-39");
  CHECK_STR(fmt(HLO_F8E8M0FNU, 0xfe, false), "1.7e+38");
  CHECK_STR(fmt(HLO_F4E2M1FN, 0xf, false), "-6");
  CHECK_STR(fmt(HLO_F4E2M1FN, 0x8, false), "-0");
  char cbuf[2 * HLO_FP_FMT_MAX + 4];
  CHECK_INT(hlo_fp_format_complex(cbuf, sizeof cbuf, HLO_C64, 0x3f800000, 0xc0000000, false), 7);
  CHECK_STR(cbuf, "(1, -2)"); /* literal.cc: StrCat("(", re, ", ", im, ")") */
  CHECK_INT(hlo_fp_format_complex(cbuf, sizeof cbuf, HLO_C128, 0x3fb999999999999aull,
                                  0x7ff8000000000000ull, true), 10);
  CHECK_STR(cbuf, "(0.1, nan)");
  CHECK_INT(hlo_fp_format_complex(cbuf, sizeof cbuf, HLO_F32, 0, 0, true), HLO_ERR);
  char small[4];
  CHECK_INT(hlo_fp_format(small, sizeof small, HLO_F32, 0x3eaaaaab, false), HLO_ERR);
  CHECK_STR(small, "");
  CHECK_INT(hlo_fp_format(small, sizeof small, HLO_S32, 0, false), HLO_ERR);
}

static void test_format_shortest(void) {
  CHECK_STR(fmt(HLO_F32, 0x3eaaaaab, true), "0.33333334");
  CHECK_STR(fmt(HLO_F32, 0x3dcccccd, true), "0.1");
  CHECK_STR(fmt(HLO_F32, 0x4b800000, true), "16777216");
  CHECK_STR(fmt(HLO_F64, 0x3fd5555555555555ull, true), "0.3333333333333333");
  CHECK_STR(fmt(HLO_F64, 0x3ff0000000000000ull, true), "1");
  CHECK_STR(fmt(HLO_F16, 0x2e66, true), "0.1");
  CHECK_STR(fmt(HLO_BF16, 0x3eab, true), "0.334");
  CHECK_STR(fmt(HLO_F8E8M0FNU, 0x00, true), "6e-39");
  CHECK_STR(fmt(HLO_F16, 0x7c01, true), "nan(0x1)");
}

/* Integer values take a fast path that skips printf: it must give what the
 * %g rules (written out again here) give, in both forms, for every type. */
static void test_format_integers(void) {
  static const hlo_type types[] = {HLO_F32, HLO_F64, HLO_F16, HLO_BF16, HLO_F8E4M3FN, HLO_F8E5M2, HLO_F4E2M1FN};
  static const double big[] = {9999, 10000, 65504, 99999, 100000, 123456, 999999, 1000000, 1048576, 16777216,
                               99999999999999, 1e14, 999999999999999, 1e15, 4503599627370497.0};
  int bad = 0;
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    hlo_type t = types[ti];
    int md = hlo_fp_max_digits10(t);
    for (int i = -3000; i <= 3000 + (int)(2 * sizeof big / sizeof big[0]); i++) {
      int j = i - 3001;
      double v = i <= 3000 ? i : (j % 2 ? -1 : 1) * big[j / 2];
      uint64_t b = hlo_fp_from_double(t, v);
      if (hlo_fp_to_double(t, b) != v) continue; /* not exact in t */
      for (int shortest = 0; shortest < 2; shortest++) {
        char want[64];
        if (shortest) {
          for (int p = 1; p <= md; p++) {
            uint64_t back;
            snprintf(want, sizeof want, "%.*g", p, v);
            if (hlo_fp_parse(want, strlen(want), t, &back) == HLO_OK && back == b) break;
          }
        } else if (t == HLO_F32 || t == HLO_F64) {
          snprintf(want, sizeof want, "%.*g", t == HLO_F32 ? 6 : 15, v);
          bool same = t == HLO_F32 ? strtof(want, NULL) == (float)v : strtod(want, NULL) == v;
          if (!same) snprintf(want, sizeof want, "%.*g", md, v);
        } else {
          snprintf(want, sizeof want, "%.*g", md, v);
        }
        const char *got = fmt(t, b, shortest);
        if (strcmp(got, want) != 0 && bad++ < 5)
          fprintf(stderr, "type %s value %.17g shortest %d: got %s want %s\n", hlo_type_name(t), v, shortest, got, want);
      }
    }
  }
  CHECK_INT(bad, 0);
}

static uint64_t parse(const char *s, hlo_type t, int *rc) {
  uint64_t b = 0xdead;
  *rc = hlo_fp_parse(s, strlen(s), t, &b);
  return b;
}

static void test_parse(void) {
  int rc;
  CHECK_INT(parse("1", HLO_F32, &rc), 0x3f800000);
  CHECK_INT(rc, HLO_OK);
  CHECK_INT(parse("-2.5e-1", HLO_F32, &rc), 0xbe800000);
  CHECK_INT(parse(".5", HLO_F16, &rc), 0x3800);
  CHECK_INT(parse("5.", HLO_F16, &rc), 0x4500);
  CHECK_INT(parse("1E+2", HLO_BF16, &rc), 0x42c8);
  CHECK_INT(parse("-inf", HLO_F16, &rc), 0xfc00);
  CHECK_INT(parse("nan", HLO_F16, &rc), 0x7e00);
  CHECK_INT(parse("-nan", HLO_BF16, &rc), 0xffc0);
  CHECK_INT(parse("nan(0x1)", HLO_F16, &rc), 0x7c01);
  CHECK_INT(parse("-nan(0x3FF)", HLO_F16, &rc), 0xffff);
  CHECK_INT(parse("nan(0x400001)", HLO_F32, &rc), 0x7fc00001);
  CHECK_INT(parse("nan", HLO_F8E4M3FNUZ, &rc), 0x80);
  CHECK_INT(parse("-nan", HLO_F8E4M3FN, &rc), 0xff);
  CHECK_INT(parse("-0", HLO_F8E5M2FNUZ, &rc), 0x00);
  CHECK_INT(parse("65504", HLO_F16, &rc), 0x7bff);
  CHECK_INT(parse("-65505", HLO_F16, &rc), 0xfbff); /* XLA: in range */
  CHECK_INT(rc, HLO_OK);
  static const struct { const char *s; hlo_type t; } bad[] = {
      {"", HLO_F32}, {"+1", HLO_F32}, {"1e", HLO_F32}, {"1.2.3", HLO_F32},
      {"0x1p3", HLO_F32}, {"infinity", HLO_F32}, {"Inf", HLO_F32}, {"NaN", HLO_F32},
      {"-", HLO_F32}, {".", HLO_F32}, {"e5", HLO_F32}, {"1 ", HLO_F32},
      {"nan(0x0)", HLO_F16}, {"nan(0x400)", HLO_F16}, {"nan(0x)", HLO_F16},
      {"nan(1)", HLO_F16}, {"nan(0x1", HLO_F16}, {"nan(0x1)", HLO_F8E4M3FN},
      {"-65520", HLO_F16}, {"1e100", HLO_BF16}, {"1e39", HLO_F32}, {"1e400", HLO_F64},
      {"inf", HLO_F8E4M3FN}, {"500", HLO_F8E4M3FN}, {"nan", HLO_F4E2M1FN},
      {"7", HLO_F4E2M1FN}, {"0", HLO_F8E8M0FNU}, {"-1", HLO_F8E8M0FNU},
      {"1", HLO_S32}, {"nan(0x10000000000000000)", HLO_F64}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t b = 7;
    int r = hlo_fp_parse(bad[i].s, strlen(bad[i].s), bad[i].t, &b);
    if (r != HLO_ERR || b != 7) printf("accepted bad literal [%s]\n", bad[i].s);
    CHECK(r == HLO_ERR && b == 7);
  }
  const char *why = NULL;
  uint64_t b;
  CHECK_INT(hlo_fp_parse_ex("1e39", 4, HLO_F32, &b, &why), HLO_ERR);
  CHECK_STR(why, "value out of range for the type");
  /* Not NUL-terminated: only n bytes are read. */
  CHECK_INT(hlo_fp_parse("1.5999", 3, HLO_F32, &b), HLO_OK);
  CHECK_INT(b, 0x3fc00000);
  CHECK_INT(hlo_fp_scan("1.5e3,", 6), 5);
  CHECK_INT(hlo_fp_scan("-nan(0x12)}", 11), 10);
  CHECK_INT(hlo_fp_scan("nan(0x)", 7), 3);
  CHECK_INT(hlo_fp_scan("1e+", 3), 1);
  CHECK_INT(hlo_fp_scan("abc", 3), 0);
  /* Correct rounding of a long decimal just above the f32 1/2-ulp tie. */
  CHECK_INT(parse("1.00000005960464477539062500000001", HLO_F32, &rc), 0x3f800001);
  CHECK_INT(parse("1.000000059604644775390625", HLO_F32, &rc), 0x3f800000);
}

/* Every 8- and 16-bit pattern: format (both modes) then parse gives the same
 * bits; decode then encode gives the same bits (NaNs: same NaN class). */
static void test_exhaustive(void) {
  for (int k = 0; k < NFLOATS; k++) {
    hlo_type t = FLOATS[k];
    int w = hlo_type_bits(t);
    if (w > 16) continue;
    int bad = 0;
    for (uint64_t b = 0; b < (1ull << w); b++) {
      for (int sh = 0; sh < 2; sh++) {
        char buf[HLO_FP_FMT_MAX];
        uint64_t back = ~0ull;
        int len = hlo_fp_format(buf, sizeof buf, t, b, sh);
        if (len < 0 || hlo_fp_parse(buf, (size_t)len, t, &back) != HLO_OK || back != b) {
          if (bad++ < 5)
            printf("%s 0x%llx: [%s] -> 0x%llx\n", hlo_type_name(t), (unsigned long long)b, buf,
                   (unsigned long long)back);
        }
      }
      double d = hlo_fp_to_double(t, b);
      uint64_t e = hlo_fp_from_double(t, d);
      bool ok = isnan(d) ? hlo_fp_is_nan(t, e) : e == b;
      if (!ok && bad++ < 5)
        printf("%s 0x%llx: decode/encode -> 0x%llx\n", hlo_type_name(t), (unsigned long long)b,
               (unsigned long long)e);
    }
    CHECK_INT(bad, 0);
  }
}

static uint64_t rng(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void test_wide_roundtrip(void) {
  uint64_t s = 88172645463325252ull;
  int bad = 0;
  for (int i = 0; i < 40000; i++) {
    uint64_t r = rng(&s);
    for (int w = 0; w < 2; w++) {
      hlo_type t = w ? HLO_F64 : HLO_F32;
      uint64_t b = w ? r : (r & 0xffffffffu);
      for (int sh = 0; sh < 2; sh++) {
        char buf[HLO_FP_FMT_MAX];
        uint64_t back = ~0ull;
        int len = hlo_fp_format(buf, sizeof buf, t, b, sh);
        if (len < 0 || hlo_fp_parse(buf, (size_t)len, t, &back) != HLO_OK || back != b)
          if (bad++ < 5) printf("%s 0x%llx: [%s]\n", hlo_type_name(t), (unsigned long long)b, buf);
      }
    }
  }
  CHECK_INT(bad, 0);
}

/* The fast helpers agree with the generic encoder on a spread of floats. */
static void test_fast_helpers(void) {
  int bad = 0;
  for (uint64_t u = 0; u <= 0xffffffffu; u += 4999) {
    uint32_t x = (uint32_t)u;
    float f;
    memcpy(&f, &x, sizeof f);
    uint16_t h = hlo_f32_to_f16(f), g = (uint16_t)hlo_fp_from_double(HLO_F16, f);
    uint16_t bh = hlo_f32_to_bf16(f), bg = (uint16_t)hlo_fp_from_double(HLO_BF16, f);
    if ((h != g || bh != bg) && bad++ < 5)
      printf("0x%08x: f16 %04x/%04x bf16 %04x/%04x\n", x, h, g, bh, bg);
  }
  /* Every f16 tie and near-tie around the subnormal/normal ranges. */
  for (uint32_t b = 0; b < 0x7c00; b++) {
    float lo = hlo_f16_to_f32((uint16_t)b), hi = hlo_f16_to_f32((uint16_t)(b + 1));
    float mid = (lo + hi) / 2; /* exact in f32 */
    float cand[3] = {mid, nextafterf(mid, 0), nextafterf(mid, INFINITY)};
    for (int i = 0; i < 3; i++)
      if (hlo_f32_to_f16(cand[i]) != hlo_fp_from_double(HLO_F16, cand[i]) && bad++ < 5)
        printf("f16 tie near 0x%04x\n", b);
  }
  for (uint32_t b = 0; b < 0x10000; b++) {
    double d = hlo_fp_to_double(HLO_F16, b);
    float f = hlo_f16_to_f32((uint16_t)b);
    if (!(isnan(d) ? isnan(f) : (double)f == d && !!signbit(f) == !!signbit(d)) && bad++ < 5)
      printf("f16 decode 0x%04x\n", b);
    if (hlo_bf16_to_f32((uint16_t)b) != (float)hlo_fp_to_double(HLO_BF16, b) &&
        !isnan(hlo_bf16_to_f32((uint16_t)b)) && bad++ < 5)
      printf("bf16 decode 0x%04x\n", b);
  }
  CHECK_INT(hlo_f32_to_f16(65520.0f), 0x7c00);
  CHECK_INT(hlo_f32_to_f16(65519.99f), 0x7bff);
  CHECK_INT(hlo_f32_to_f16(-NAN), 0xfe00);
  CHECK_INT(hlo_f32_to_bf16(NAN), 0x7fc0);
  CHECK_INT(hlo_f32_to_bf16(3.4028235e38f), 0x7f80); /* rounds up to inf */
  CHECK_INT(bad, 0);
}

/* numpy as the oracle for float16: all 65536 decodes, and the encoding of
 * random doubles plus every midpoint between neighbouring halves. */
static void test_numpy_f16(void) {
  const char *prog =
      PY " -c 'import numpy as np, warnings\n"
      "warnings.simplefilter(\"ignore\")\n"
      "a = np.arange(65536, dtype=np.uint32).astype(np.uint16)\n"
      "for x in a.view(np.float16): print(repr(float(x)))\n"
      "rng = np.random.default_rng(7)\n"
      "d = list(rng.standard_normal(3000) * np.exp2(rng.integers(-30, 20, 3000)))\n"
      "h = np.arange(0x7bff, dtype=np.uint16).view(np.float16).astype(np.float64)\n"
      "d += list((h[:-1] + h[1:]) / 2) + list(-(h[:-1] + h[1:]) / 2)\n"
      "for v in d: print(float(v).hex(), int(np.float16(v).view(np.uint16)))\n'";
  FILE *p = popen(prog, "r");
  CHECK(p != NULL);
  if (!p) return;
  char line[256];
  int bad = 0, n = 0;
  for (uint32_t b = 0; b < 65536 && fgets(line, sizeof line, p); b++, n++) {
    double want = strtod(line, NULL), got = hlo_fp_to_double(HLO_F16, b);
    if (!(isnan(want) ? isnan(got) : want == got && !!signbit(want) == !!signbit(got)) &&
        bad++ < 5)
      printf("f16 0x%04x: numpy %s got %.17g\n", b, line, got);
  }
  int m = 0;
  while (fgets(line, sizeof line, p)) {
    char *end;
    double v = strtod(line, &end);
    long want = strtol(end, NULL, 10);
    if ((long)hlo_fp_from_double(HLO_F16, v) != want && bad++ < 5)
      printf("f16 encode %s", line);
    m++;
  }
  CHECK_INT(pclose(p), 0);
  CHECK_INT(n, 65536);
  CHECK(m > 60000);
  CHECK_INT(bad, 0);
}

/* Random texts: parsing never crashes, and whatever parses formats back
 * to text that parses to the same bits. */
static void test_fuzz(void) {
  static const char alpha[] = "0123456789.eE+-infatx()ABCF";
  uint64_t st = 0x243f6a8885a308d3ull;
  int ok = 0, bad = 0;
  for (int it = 0; it < 30000; it++) {
    char text[32];
    int n = (int)(rng(&st) % 24);
    for (int i = 0; i < n; i++) text[i] = alpha[rng(&st) % (sizeof alpha - 1)];
    hlo_type t = FLOATS[it % NFLOATS];
    uint64_t b, back;
    if (hlo_fp_parse(text, (size_t)n, t, &b) != HLO_OK) continue;
    ok++;
    char buf[HLO_FP_FMT_MAX];
    int len = hlo_fp_format(buf, sizeof buf, t, b, true);
    if (len < 0 || hlo_fp_parse(buf, (size_t)len, t, &back) != HLO_OK || back != b) bad++;
  }
  CHECK(ok > 100);
  CHECK_INT(bad, 0);
}

/* XLA's own printed text: every float constant in the shared corpus of
 * XLA-printed HLO (../shared/corpus, relative to the repo root where make
 * check runs us) must parse and re-print identically in XLA mode.  The
 * hlo_to_mhlo import tests are hand-written input ("1.0"), not XLA output. */
static void test_corpus(void) {
  const char *prog =
      PY " -c 'import re, glob\n"
      "for f in sorted(glob.glob(\"../shared/corpus/*.hlo\")):\n"
      "  if \"hlo_to_mhlo\" in f: continue\n"
      "  for m in re.finditer(r\"\\b(f16|bf16|f32|f64|f8\\w*)\\[[0-9,]*\\](?:\\{[^}]*\\})?"
      " constant\\(([^)]*)\\)\", open(f).read()):\n"
      "    for v in re.findall(r\"-?(?:nan(?:\\(0x[0-9a-f]+\\))?|inf|[0-9.]+(?:e[-+]?[0-9]+)?)\","
      " m.group(2)): print(m.group(1), v)\n'";
  FILE *p = popen(prog, "r");
  CHECK(p != NULL);
  if (!p) return;
  char ty[32], v[128];
  int n = 0, bad = 0;
  while (fscanf(p, "%31s %127s", ty, v) == 2) {
    hlo_type t;
    uint64_t b;
    char out[HLO_FP_FMT_MAX] = "";
    n++;
    if (!hlo_type_lookup(ty, strlen(ty), &t) || hlo_fp_parse(v, strlen(v), t, &b) != HLO_OK ||
        hlo_fp_format(out, sizeof out, t, b, false) < 0 || strcmp(out, v) != 0) {
      if (bad++ < 5) printf("corpus %s %s re-printed as %s\n", ty, v, out);
    }
  }
  CHECK_INT(pclose(p), 0);
  CHECK(n > 500);
  CHECK_INT(bad, 0);
}

int main(void) {
  test_spot_encode();
  test_format_xla();
  test_format_shortest();
  test_format_integers();
  test_parse();
  test_exhaustive();
  test_wide_roundtrip();
  test_fast_helpers();
  test_numpy_f16();
  test_fuzz();
  test_corpus();
  TEST_MAIN_END("fp");
}
