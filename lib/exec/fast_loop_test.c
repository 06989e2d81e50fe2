/* fast_loop_test.c - the fused loop program's mixed element types against
 * the reference path: every type-changing convert, integer divide/
 * remainder/shifts/abs/sign/popcnt/clz, s8/u8/s16/u16 arithmetic, float
 * remainder and iota leaves, on edge values (NaN, +-0, +-inf, subnormals,
 * floats beyond every integer range, integers at their limits, shift
 * counts < 0 or >= the width, division by 0 and INT_MIN / -1).  Results
 * must be bit-identical, and the loop program must actually be chosen. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/fast.h"
#include "hlo/hlo_fp.h"
#include "hlo/hlo_text.h"
#include "testing.h"

/* ---- edge values --------------------------------------------------------- */
static const double FEDGE[] = {
    0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1e-40, -1e-40, 1e-310, -1e-310,
    5.9604644775390625e-08, 2.98e-08, 65504, 65519.99, 65520, -65520, 0.5, -0.5, 1.5, 2.5,
    -2.5, 0.99999, -0.99999, 127.5, 128, -128.5, -129, 255.5, 256, 32767.5, 32768,
    -32768.5, -32769, 65535.5, 65536, 2147483647.5, 2147483648.0, -2147483648.5,
    -2147483649.0, 4294967295.5, 4294967296.0, 0x1p63, -0x1p63, 0x1p63 - 1024, 0x1p64,
    0x1p64 - 2048, 1e19, -1e19, 1e30, 3e38, 3.5e38, 1e300, -1e300,
    1 + 0x1p-11 + 0x1p-40, /* f64 -> f16: rounding through f32 first would give 1 */
    1 + 0x1p-8 + 0x1p-40,  /* the same for bf16 */
    1 + 0x1p-24 + 0x1p-60, 16777217.0, 3.0, -7.0, 1e-3};
#define NFE ((int)(sizeof FEDGE / sizeof FEDGE[0]))

static const int64_t IEDGE[] = {
    INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, 0xffffffffll, -1, 0, 1, 2, 3, -3, 7, 8,
    15, 16, 31, 32, 63, 64, 65, -7, -8, -31, -32, -64, 127, 128, -128, -129, 255, 256,
    32767, 32768, -32768, 65535, 65536, 65519, 65520, 16777217, ((int64_t)1 << 53) + 1,
    (int64_t)0x8000000000000001ull, INT64_MAX - 1, 100, -100};
#define NIE ((int)(sizeof IEDGE / sizeof IEDGE[0]))

static uint64_t rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static bool is_flt(hlo_type t) {
  return t == HLO_F32 || t == HLO_F64 || t == HLO_F16 || t == HLO_BF16;
}

/* element k of v: edge value e (float edges or integer edges by type) */
static void put_f(hlo_val *v, int64_t k, double e) {
  hlo_type t = v->shape->type;
  if (t == HLO_F32) ((float *)v->data)[k] = (float)e;
  else if (t == HLO_F64) ((double *)v->data)[k] = e;
  else ((uint16_t *)v->data)[k] = (uint16_t)hlo_fp_from_double(t, e);
}
static void put_i(hlo_val *v, int64_t k, int64_t e) {
  hlo_type t = v->shape->type;
  if (t == HLO_PRED) ((uint8_t *)v->data)[k] = e != 0;
  else memcpy((char *)v->data + k * hlo_type_bytes(t), &e, (size_t)hlo_type_bytes(t));
}

/* Fill parameter `which` (0 or 1) of a binary case: the first E*E elements
 * are the cross product of the edges (operand 0 the row, 1 the column),
 * the rest random bits (floats: every exponent, NaN payloads) or random
 * values. */
static void fill(hlo_val *v, int which, uint64_t seed) {
  hlo_type t = v->shape->type;
  bool f = is_flt(t);
  int E = f ? NFE : t == HLO_PRED ? 2 : NIE;
  uint64_t s = seed;
  for (int64_t k = 0; k < v->nelems; k++) {
    uint64_t u = rnd(&s);
    if (k < (int64_t)E * E) {
      int i = which ? (int)(k % E) : (int)(k / E);
      if (f) put_f(v, k, FEDGE[i]);
      else put_i(v, k, t == HLO_PRED ? i : IEDGE[i]);
    } else if (f && (u & 1)) {
      put_f(v, k, ((double)(u >> 11) * 0x1p-53 - 0.5) * ldexp(1.0, (int)(u % 80) - 20));
    } else if (f) {
      if (t == HLO_F64) memcpy((char *)v->data + k * 8, &u, 8);
      else if (t == HLO_F32) memcpy((char *)v->data + k * 4, &u, 4);
      else memcpy((char *)v->data + k * 2, &u, 2);
    } else {
      put_i(v, k, (u & 2) ? (int64_t)(u >> 2) % 300 : (int64_t)u);
    }
  }
}

/* ---- running both ways ------------------------------------------------------- */
/* The result's shape lives in the module, returned in *mout (caller frees). */
static hlo_val *run(const char *text, bool fast, hlo_val **args, int nargs, const char **kname,
                    hlo_module **mout) {
  hlo_src src = {"test", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  hlo_exec_options o = {0};
  o.reference = !fast;
  hlo_exec *e = m ? hlo_exec_new(m, &o, NULL, &d) : NULL;
  hlo_val *res = NULL;
  if (e && fast) {
    /* the kernel the plan chose for the entry root */
    plan_comp *pc = e->entry;
    for (int k = 0; pc && k < pc->nsteps; k++)
      if (pc->steps[k].in == m->entry->root) *kname = pc->steps[k].kname;
  }
  if (!e || hlo_exec_run(e, args, nargs, &res)) {
    printf("fast_loop_test: %s run failed:", fast ? "fast" : "reference");
    for (int i = 0; i < d.n; i++) printf(" %s", d.v[i].msg);
    printf("\n");
    res = NULL;
  }
  hlo_exec_free(e);
  hlo_diags_release(&d);
  *mout = m;
  return res;
}

/* Run text (entry parameters filled by `fill`) both ways: the results must
 * have the same bytes and the entry root must run as kernel `want`.  The
 * first keep_len bytes of the fast result go to keep (zeros on failure). */
static void check_keep(int line, const char *text, const char *want, void *keep,
                       size_t keep_len) {
  if (keep) memset(keep, 0, keep_len);
  hlo_src src = {"test", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  if (!m || m->entry->nparams > 4) {
    t_fail++;
    printf("fast_loop_test.c:%d: parse failed: %s\n", line, d.n ? d.v[0].msg : "");
    hlo_module_free(m);
    hlo_diags_release(&d);
    return;
  }
  hlo_val *args[4];
  int na = m->entry->nparams;
  for (int i = 0; i < na; i++) {
    args[i] = hlo_val_new(NULL, &m->entry->params[i]->shape);
    fill(args[i], i, 99 + (uint64_t)i);
  }
  const char *kname = "";
  hlo_module *m1 = NULL, *m2 = NULL;
  hlo_val *ref = run(text, false, args, na, &kname, &m1);
  hlo_val *fast = run(text, true, args, na, &kname, &m2);
  char why[200] = "";
  if (ref && fast) {
    if (ref->nbytes != fast->nbytes) {
      snprintf(why, sizeof why, "sizes differ");
    } else {
      int es = hlo_type_bytes(ref->shape->type);
      for (int64_t k = 0; k < ref->nelems && !why[0]; k++)
        if (memcmp((char *)ref->data + k * es, (char *)fast->data + k * es, (size_t)es)) {
          uint64_t a = 0, b = 0;
          memcpy(&a, (char *)ref->data + k * es, (size_t)es);
          memcpy(&b, (char *)fast->data + k * es, (size_t)es);
          snprintf(why, sizeof why, "element %lld: reference %#llx fast %#llx", (long long)k,
                   (unsigned long long)a, (unsigned long long)b);
        }
    }
  }
  if (!ref || !fast || strcmp(kname, want) != 0 || why[0]) {
    t_fail++;
    printf("fast_loop_test.c:%d: %s\n", line,
           strcmp(kname, want) ? "the loop program was not chosen" : why);
    printf("%s", text);
  } else {
    t_pass++;
  }
  if (keep && fast && fast->nbytes >= keep_len) memcpy(keep, fast->data, keep_len);
  hlo_val_release(NULL, ref);
  hlo_val_release(NULL, fast);
  hlo_module_free(m1);
  hlo_module_free(m2);
  for (int i = 0; i < na; i++) hlo_val_release(NULL, args[i]);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

static void check(int line, const char *text, const char *want) {
  check_keep(line, text, want, NULL, 0);
}

static const char *FUSED = "hlo_fast_loop(fusion)";

static const hlo_type ALL[] = {HLO_PRED, HLO_S8, HLO_U8, HLO_S16, HLO_U16, HLO_S32, HLO_U32,
                               HLO_S64, HLO_U64, HLO_F16, HLO_BF16, HLO_F32, HLO_F64};
#define NALL ((int)(sizeof ALL / sizeof ALL[0]))
static const hlo_type INTS[] = {HLO_S8, HLO_U8, HLO_S16, HLO_U16,
                                HLO_S32, HLO_U32, HLO_S64, HLO_U64};

/* ---- convert: every ordered pair of distinct types --------------------------- */
static void test_converts(void) {
  for (int i = 0; i < NALL; i++)
    for (int j = 0; j < NALL; j++) {
      if (i == j) continue;
      const char *A = hlo_type_name(ALL[i]), *B = hlo_type_name(ALL[j]);
      char text[1024];
      /* the convert as the root (written straight to the output), over
       * several chunks */
      snprintf(text, sizeof text,
               "HloModule m\nf {\n  p = %s[12000] parameter(0)\n  ROOT c = %s[12000] convert(p)\n}\n"
               "ENTRY e {\n  a = %s[12000] parameter(0)\n"
               "  ROOT r = %s[12000] fusion(a), kind=kLoop, calls=f\n}\n",
               A, B, A, B);
      check(__LINE__, text, FUSED);
      /* as an inner node read by another convert (the intermediate's chunk
       * representation must hold the exact value of type B), broadcast */
      const char *C = ALL[j] == HLO_F64 ? "s64" : "f64";
      snprintf(text, sizeof text,
               "HloModule m\nf {\n  p = %s[60] parameter(0)\n"
               "  b = %s[60,7] broadcast(p), dimensions={0}\n"
               "  c = %s[60,7] convert(b)\n  ROOT d = %s[60,7] convert(c)\n}\n"
               "ENTRY e {\n  a = %s[60] parameter(0)\n"
               "  ROOT r = %s[60,7] fusion(a), kind=kLoop, calls=f\n}\n",
               A, A, B, C, A, C);
      check(__LINE__, text, FUSED);
    }
  /* a standalone convert also runs as a loop program */
  check(__LINE__,
        "HloModule m\nENTRY e {\n  a = f32[3000] parameter(0)\n"
        "  ROOT c = s32[3000] convert(a)\n}\n",
        "hlo_fast_loop");
}

/* The cvt kernel of the ISA level HLO_ISA selects against hlo_ref_convert +
 * hlo_sc_store, on the chunk representations (f16/bf16 as f32 values, the
 * narrow result rounded by round16 as the loop program does). */
static void test_cvt_isas(void) {
  enum { NC = 5000 };
  static unsigned char src[NC * 8], chunk[NC * 8], out[NC * 8], want[NC * 8];
  {
    const hlo_fv_isa *isa = hlo_fv_from_env();
    for (int i = 0; i < NALL; i++) {
      hlo_type A = ALL[i];
      hlo_shape sh;
      memset(&sh, 0, sizeof sh);
      sh.type = A;
      int64_t dim = NC;
      sh.rank = 1;
      sh.dims = &dim;
      hlo_val *v = hlo_val_new(NULL, &sh);
      fill(v, 1, 7 + (uint64_t)i); /* `which` 1: every edge in the first E */
      memcpy(src, v->data, (size_t)v->nbytes);
      bool nA = A == HLO_F16 || A == HLO_BF16;
      if (nA) isa->widen16(A, NC, (const uint16_t *)src, (float *)chunk);
      else memcpy(chunk, src, (size_t)v->nbytes);
      for (int j = 0; j < NALL; j++) {
        hlo_type B = ALL[j];
        if (A == B) continue;
        bool nB = B == HLO_F16 || B == HLO_BF16;
        isa->cvt(A, B, NC, chunk, out);
        if (nB) {
          isa->round16(B, NC, (float *)out);
          isa->narrow16(B, NC, (const float *)out, (uint16_t *)out);
        }
        for (int64_t k = 0; k < NC; k++)
          hlo_sc_store(B, want, k, hlo_ref_convert(A, B, hlo_sc_load(A, src, k)));
        int es = hlo_type_bytes(B);
        int64_t bad = -1;
        for (int64_t k = 0; k < NC && bad < 0; k++)
          if (memcmp(out + k * es, want + k * es, (size_t)es)) bad = k;
        if (bad < 0) {
          t_pass++;
        } else {
          uint64_t x = 0, w = 0, in = 0;
          memcpy(&x, out + bad * es, (size_t)es);
          memcpy(&w, want + bad * es, (size_t)es);
          memcpy(&in, src + bad * hlo_type_bytes(A), (size_t)hlo_type_bytes(A));
          t_fail++;
          printf("fast_loop_test.c: %s cvt %s -> %s element %lld (%#llx): %#llx, want %#llx\n",
                 isa->name, hlo_type_name(A), hlo_type_name(B), (long long)bad,
                 (unsigned long long)in, (unsigned long long)x, (unsigned long long)w);
        }
      }
      hlo_val_release(NULL, v);
    }
  }
}

/* ---- integer ops on every integer type --------------------------------------- */
static void test_int_ops(void) {
  static const char *bin[] = {"divide", "remainder", "shift-left", "shift-right-logical",
                              "shift-right-arithmetic", "add", "subtract", "multiply",
                              "maximum", "minimum", "and", "or", "xor"};
  static const char *un[] = {"abs", "sign", "popcnt", "count-leading-zeros", "negate", "not"};
  for (int i = 0; i < 8; i++) {
    const char *T = hlo_type_name(INTS[i]);
    char text[2048];
    int N = NIE * NIE + 100;
    for (int k = 0; k < (int)(sizeof bin / sizeof bin[0]); k++) {
      snprintf(text, sizeof text,
               "HloModule m\nf {\n  x = %s[%d] parameter(0)\n  y = %s[%d] parameter(1)\n"
               "  ROOT r = %s[%d] %s(x, y)\n}\n"
               "ENTRY e {\n  a = %s[%d] parameter(0)\n  b = %s[%d] parameter(1)\n"
               "  ROOT r = %s[%d] fusion(a, b), kind=kLoop, calls=f\n}\n",
               T, N, T, N, T, N, bin[k], T, N, T, N, T, N);
      check(__LINE__, text, FUSED);
    }
    for (int k = 0; k < (int)(sizeof un / sizeof un[0]); k++) {
      bool uns = INTS[i] == HLO_U8 || INTS[i] == HLO_U16 || INTS[i] == HLO_U32 ||
                 INTS[i] == HLO_U64;
      if (uns && k < 2) continue; /* abs/sign of unsigned: rejected by the verifier */
      snprintf(text, sizeof text,
               "HloModule m\nf {\n  x = %s[%d] parameter(0)\n  ROOT r = %s[%d] %s(x)\n}\n"
               "ENTRY e {\n  a = %s[%d] parameter(0)\n"
               "  ROOT r = %s[%d] fusion(a), kind=kLoop, calls=f\n}\n",
               T, N, T, N, un[k], T, N, T, N);
      check(__LINE__, text, FUSED);
    }
    /* a chain with broadcasts, a transpose, compare/select/clamp (the
     * s32 test of fast_test.c, on every width) */
    snprintf(text, sizeof text,
             "HloModule m\n"
             "f {\n  p0 = %s[37,129] parameter(0)\n  p1 = %s[129] parameter(1)\n"
             "  c = %s[] constant(7)\n"
             "  b1 = %s[37,129] broadcast(p1), dimensions={1}\n"
             "  bc = %s[37,129] broadcast(c), dimensions={}\n"
             "  m = %s[37,129] multiply(p0, b1)\n  a = %s[37,129] add(m, bc)\n"
             "  d = %s[37,129] divide(a, b1)\n  s = %s[37,129] shift-right-arithmetic(d, bc)\n"
             "  n = %s[37,129] negate(s)\n  mx = %s[37,129] maximum(n, p0)\n"
             "  g = pred[37,129] compare(mx, b1), direction=LT\n"
             "  sel = %s[37,129] select(g, mx, s)\n"
             "  cl = %s[37,129] clamp(bc, sel, b1)\n"
             "  ROOT t = %s[129,37] transpose(cl), dimensions={1,0}\n}\n"
             "ENTRY e {\n  a = %s[37,129] parameter(0)\n  b = %s[129] parameter(1)\n"
             "  ROOT r = %s[129,37] fusion(a, b), kind=kLoop, calls=f\n}\n",
             T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T);
    check(__LINE__, text, FUSED);
    /* standalone shift */
    snprintf(text, sizeof text,
             "HloModule m\nENTRY e {\n  a = %s[2000] parameter(0)\n  b = %s[2000] parameter(1)\n"
             "  ROOT s = %s[2000] shift-left(a, b)\n}\n",
             T, T, T);
    check(__LINE__, text, "hlo_fast_loop");
  }
}

/* ---- float remainder, iota, mixed chains ---------------------------------------- */
static void test_float_rem(void) {
  static const char *types[] = {"f32", "f64", "f16", "bf16"};
  for (int i = 0; i < 4; i++) {
    const char *T = types[i];
    char text[1024];
    /* round-nearest-afz (x.5 edges, NaN payloads); is-finite */
    snprintf(text, sizeof text,
             "HloModule m\nf {\n  x = %s[5000] parameter(0)\n"
             "  ROOT r = %s[5000] round-nearest-afz(x)\n}\n"
             "ENTRY e {\n  a = %s[5000] parameter(0)\n"
             "  ROOT r = %s[5000] fusion(a), kind=kLoop, calls=f\n}\n",
             T, T, T, T);
    check(__LINE__, text, FUSED);
    snprintf(text, sizeof text,
             "HloModule m\nf {\n  x = %s[5000] parameter(0)\n"
             "  g = pred[5000] is-finite(x)\n  ROOT c = s8[5000] convert(g)\n}\n"
             "ENTRY e {\n  a = %s[5000] parameter(0)\n"
             "  ROOT r = s8[5000] fusion(a), kind=kLoop, calls=f\n}\n",
             T, T);
    check(__LINE__, text, FUSED);
    int N = NFE * NFE + 100;
    snprintf(text, sizeof text,
             "HloModule m\nf {\n  x = %s[%d] parameter(0)\n  y = %s[%d] parameter(1)\n"
             "  ROOT r = %s[%d] remainder(x, y)\n}\n"
             "ENTRY e {\n  a = %s[%d] parameter(0)\n  b = %s[%d] parameter(1)\n"
             "  ROOT r = %s[%d] fusion(a, b), kind=kLoop, calls=f\n}\n",
             T, N, T, N, T, N, T, N, T, N, T, N);
    check(__LINE__, text, FUSED);
  }
}

static void test_iota(void) {
  static const char *types[] = {"s32", "u8", "s16", "f32", "f16", "bf16", "f64", "u64"};
  for (int i = 0; i < 8; i++) {
    const char *T = types[i];
    char text[1024];
    /* iota along each dim, under a transpose and a broadcast; u8/s16
     * indices wrap, f16/bf16 round */
    snprintf(text, sizeof text,
             "HloModule m\nf {\n  p = %s[300,37] parameter(0)\n"
             "  i0 = %s[300,37] iota(), iota_dimension=0\n"
             "  i1 = %s[37,300] iota(), iota_dimension=1\n"
             "  t = %s[300,37] transpose(i1), dimensions={1,0}\n"
             "  i2 = %s[37] iota(), iota_dimension=0\n"
             "  b = %s[300,37] broadcast(i2), dimensions={1}\n"
             "  a = %s[300,37] add(i0, t)\n  m = %s[300,37] multiply(a, b)\n"
             "  ROOT s = %s[300,37] subtract(m, p)\n}\n"
             "ENTRY e {\n  a = %s[300,37] parameter(0)\n"
             "  ROOT r = %s[300,37] fusion(a), kind=kLoop, calls=f\n}\n",
             T, T, T, T, T, T, T, T, T, T, T);
    check(__LINE__, text, FUSED);
  }
  /* iota over unit dims, converted */
  check(__LINE__,
        "HloModule m\nf {\n  i = s32[1,5000,1] iota(), iota_dimension=1\n"
        "  ROOT c = f16[1,5000,1] convert(i)\n}\n"
        "ENTRY e {\n  ROOT r = f16[1,5000,1] fusion(), kind=kLoop, calls=f\n}\n",
        FUSED);
}

static void test_mixed(void) {
  /* the measured fusions (docs/fast.md), small */
  check(__LINE__,
        "HloModule m\nf {\n  p0 = f32[4100] parameter(0)\n  i = s32[4100] convert(p0)\n"
        "  c = s32[] constant(3)\n  cb = s32[4100] broadcast(c), dimensions={}\n"
        "  m = s32[4100] multiply(i, cb)\n  ROOT r = f32[4100] convert(m)\n}\n"
        "ENTRY e {\n  a = f32[4100] parameter(0)\n"
        "  ROOT r = f32[4100] fusion(a), kind=kLoop, calls=f\n}\n",
        FUSED);
  check(__LINE__,
        "HloModule m\nf {\n  p0 = f32[4100] parameter(0)\n  p1 = f32[4100] parameter(1)\n"
        "  x = bf16[4100] convert(p0)\n  y = bf16[4100] convert(p1)\n"
        "  m = bf16[4100] multiply(x, y)\n  ROOT r = f32[4100] convert(m)\n}\n"
        "ENTRY e {\n  a = f32[4100] parameter(0)\n  b = f32[4100] parameter(1)\n"
        "  ROOT r = f32[4100] fusion(a, b), kind=kLoop, calls=f\n}\n",
        FUSED);
  /* quantize-like: f32 -> scale -> round -> clamp -> s8, and back */
  check(__LINE__,
        "HloModule m\nf {\n  p0 = f32[64,65] parameter(0)\n  s = f32[] constant(12.5)\n"
        "  sb = f32[64,65] broadcast(s), dimensions={}\n"
        "  m = f32[64,65] multiply(p0, sb)\n  r = f32[64,65] round-nearest-even(m)\n"
        "  lo = f32[] constant(-128)\n  hi = f32[] constant(127)\n"
        "  c = f32[64,65] clamp(lo, r, hi)\n  q = s8[64,65] convert(c)\n"
        "  z = s8[] constant(-3)\n  zb = s8[64,65] broadcast(z), dimensions={}\n"
        "  d = s8[64,65] subtract(q, zb)\n  w = s32[64,65] convert(d)\n"
        "  f = f16[64,65] convert(w)\n  g = pred[64,65] compare(p0, sb), direction=GT\n"
        "  h = f16[64,65] convert(g)\n  ROOT o = f16[64,65] add(f, h)\n}\n"
        "ENTRY e {\n  a = f32[64,65] parameter(0)\n"
        "  ROOT r = f16[64,65] fusion(a), kind=kLoop, calls=f\n}\n",
        FUSED);
  /* uniform random floats from bits (as JAX lowers them): shift, or,
   * bitcast-convert u32 -> f32, subtract 1; f32 -> s32 bits and back */
  check(__LINE__,
        "HloModule m\nf {\n  p0 = u32[3000] parameter(0)\n  p1 = f32[3000] parameter(1)\n"
        "  n = u32[] constant(9)\n  nb = u32[3000] broadcast(n), dimensions={}\n"
        "  s = u32[3000] shift-right-logical(p0, nb)\n  o = u32[] constant(1065353216)\n"
        "  ob = u32[3000] broadcast(o), dimensions={}\n  w = u32[3000] or(s, ob)\n"
        "  f = f32[3000] bitcast-convert(w)\n  one = f32[] constant(1)\n"
        "  oneb = f32[3000] broadcast(one), dimensions={}\n  u = f32[3000] subtract(f, oneb)\n"
        "  i = s32[3000] bitcast-convert(p1)\n  j = s32[3000] xor(i, i)\n"
        "  k = f32[3000] bitcast-convert(j)\n  ROOT r = f32[3000] add(u, k)\n}\n"
        "ENTRY e {\n  a = u32[3000] parameter(0)\n  b = f32[3000] parameter(1)\n"
        "  ROOT r = f32[3000] fusion(a, b), kind=kLoop, calls=f\n}\n",
        FUSED);
  static const char *bc[][2] = {{"f32", "s32"}, {"f32", "u32"}, {"s64", "f64"},
                                {"f64", "u64"}, {"s8", "u8"}, {"u16", "s16"}};
  for (int i = 0; i < 6; i++) {
    char text[1024];
    snprintf(text, sizeof text,
             "HloModule m\nf {\n  p = %s[5000] parameter(0)\n"
             "  ROOT c = %s[5000] bitcast-convert(p)\n}\n"
             "ENTRY e {\n  a = %s[5000] parameter(0)\n"
             "  ROOT r = %s[5000] fusion(a), kind=kLoop, calls=f\n}\n",
             bc[i][0], bc[i][1], bc[i][0], bc[i][1]);
    check(__LINE__, text, FUSED);
  }
  /* select of u16 by an f64 compare; a pred root */
  check(__LINE__,
        "HloModule m\nf {\n  p0 = f64[1500] parameter(0)\n  p1 = u16[1500] parameter(1)\n"
        "  z = f64[] constant(0)\n  zb = f64[1500] broadcast(z), dimensions={}\n"
        "  g = pred[1500] compare(p0, zb), direction=GE\n  n = u16[1500] not(p1)\n"
        "  s = u16[1500] select(g, p1, n)\n  c = s16[1500] convert(s)\n"
        "  h = s16[] constant(100)\n  hb = s16[1500] broadcast(h), dimensions={}\n"
        "  ROOT k = pred[1500] compare(c, hb), direction=LT\n}\n"
        "ENTRY e {\n  a = f64[1500] parameter(0)\n  b = u16[1500] parameter(1)\n"
        "  ROOT r = pred[1500] fusion(a, b), kind=kLoop, calls=f\n}\n",
        FUSED);
}

/* Producers fused into a reduction (the loop program makes the reduce's
 * operand) and standalone pred/narrow-int ops. */
static void test_consumers(void) {
  static const char *src[] = {"bf16", "s32", "u8", "f64"};
  for (int i = 0; i < 4; i++) {
    char text[1024];
    snprintf(text, sizeof text,
             "HloModule m\nmx {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
             "  ROOT m = f32[] maximum(a, b)\n}\n"
             "f {\n  p = %s[50,300] parameter(0)\n  c = f32[50,300] convert(p)\n"
             "  z = f32[] constant(-inf)\n"
             "  ROOT r = f32[50] reduce(c, z), dimensions={1}, to_apply=mx\n}\n"
             "ENTRY e {\n  a = %s[50,300] parameter(0)\n"
             "  ROOT r = f32[50] fusion(a), kind=kInput, calls=f\n}\n",
             src[i], src[i]);
    check(__LINE__, text, "hlo_fast_reduce(fusion)");
  }
  check(__LINE__,
        "HloModule m\nENTRY e {\n  a = pred[3000] parameter(0)\n  b = pred[3000] parameter(1)\n"
        "  ROOT s = pred[3000] and(a, b)\n}\n",
        "hlo_fast_loop");
  check(__LINE__,
        "HloModule m\nENTRY e {\n  a = s16[3000] parameter(0)\n  ROOT s = s16[3000] not(a)\n}\n",
        "hlo_fast_loop");
  check(__LINE__,
        "HloModule m\nENTRY e {\n  a = u64[3000] parameter(0)\n"
        "  ROOT s = u64[3000] count-leading-zeros(a)\n}\n",
        "hlo_fast_loop");
}

/* ---- hand-checked values (independent of the reference) ----------------------- */
static void test_known(void) {
  /* s32: INT_MIN / -1, x / 0, x % 0, INT_MIN % -1, -7 >> 40 (arithmetic) */
  int32_t o[4];
  check_keep(__LINE__,
             "HloModule m\nf {\n  x = s32[4] constant({-2147483648, 5, 5, -7})\n"
             "  y = s32[4] constant({-1, 0, 0, 40})\n"
             "  d = s32[4] divide(x, y)\n  r = s32[4] remainder(x, y)\n"
             "  s = s32[4] shift-right-arithmetic(x, y)\n"
             "  a = s32[4] add(d, r)\n  ROOT o = s32[4] xor(a, s)\n}\n"
             "ENTRY e {\n  ROOT r = s32[4] fusion(), kind=kLoop, calls=f\n}\n",
             FUSED, o, sizeof o);
  /* (INT_MIN + 0) ^ (INT_MIN >> 31 = -1) = INT_MAX; (-1 + 5) ^ (5 >> 0) = 1;
   * (-7 / 40 = 0) + (-7 % 40 = -7) = -7, ^ (-7 >> 40 -> -1) = 6 */
  CHECK_INT(o[0], INT32_MAX);
  CHECK_INT(o[1], 1);
  CHECK_INT(o[3], 6);
  /* float -> int saturation and NaN */
  check_keep(__LINE__,
             "HloModule m\nf {\n  x = f32[4] constant({3e9, -3e9, nan, -0.9})\n"
             "  ROOT c = s32[4] convert(x)\n}\n"
             "ENTRY e {\n  ROOT r = s32[4] fusion(), kind=kLoop, calls=f\n}\n",
             FUSED, o, sizeof o);
  CHECK_INT(o[0], INT32_MAX);
  CHECK_INT(o[1], INT32_MIN);
  CHECK_INT(o[2], 0);
  CHECK_INT(o[3], 0);
  /* f64 -> f16 with one rounding: 1 + 2^-11 + 2^-40 is above the f16
   * midpoint, so 1 + 2^-10 = 0x3c01 (through f32 it would tie to 1.0);
   * 70000 -> inf */
  uint16_t h[2];
  check_keep(__LINE__,
             "HloModule m\nf {\n  x = f64[2] constant({1.00048828125000091, 70000})\n"
             "  ROOT c = f16[2] convert(x)\n}\n"
             "ENTRY e {\n  ROOT r = f16[2] fusion(), kind=kLoop, calls=f\n}\n",
             FUSED, h, sizeof h);
  CHECK_INT(h[0], 0x3c01);
  CHECK_INT(h[1], 0x7c00);
  /* u8: 200/0 = 255, + 200<<0 = 455 mod 256 = 199; 3/9 + (3<<9 -> 0) = 0;
   * 255/2 = 127, + 255<<2 = 1020 mod 256 = 252: 379 mod 256 = 123 */
  uint8_t u[3];
  check_keep(__LINE__,
             "HloModule m\nf {\n  x = u8[3] constant({200, 3, 255})\n"
             "  y = u8[3] constant({0, 9, 2})\n  d = u8[3] divide(x, y)\n"
             "  s = u8[3] shift-left(x, y)\n  ROOT o = u8[3] add(d, s)\n}\n"
             "ENTRY e {\n  ROOT r = u8[3] fusion(), kind=kLoop, calls=f\n}\n",
             FUSED, u, sizeof u);
  CHECK_INT(u[0], 199);
  CHECK_INT(u[1], 0);
  CHECK_INT(u[2], 123);
}

int main(void) {
  test_cvt_isas();
  test_converts();
  test_int_ops();
  test_float_rem();
  test_iota();
  test_mixed();
  test_consumers();
  test_known();
  TEST_MAIN_END("fast_loop");
}
