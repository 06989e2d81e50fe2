/* fast_test.c - differential tests of the fast path against the reference
 * path (hlo_exec_options.reference): per-ISA accuracy of every vector chunk
 * kernel in ulps against the reference scalar semantics, and whole modules
 * (fusions, standalone ops, reductions, dots) run both ways on random data
 * with edge values (zeros of both signs, infinities, NaN, subnormals, huge
 * and tiny magnitudes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/fast.h"
#include "hlo/hlo_fp.h"
#include "hlo/hlo_text.h"
#include "testing.h"

/* ---- ulp distance ---------------------------------------------------------- */
static int64_t ord32(float f) {
  int32_t i;
  memcpy(&i, &f, 4);
  return i < 0 ? (int64_t)INT32_MIN - i : i;
}
static int64_t ord64(double f) {
  int64_t i;
  memcpy(&i, &f, 8);
  return i < 0 ? INT64_MIN - i : i;
}
static int64_t ulp32(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : INT64_MAX;
  int64_t d = ord32(a) - ord32(b);
  return d < 0 ? -d : d;
}
static int64_t ulp64(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : INT64_MAX;
  if (a == b) return 0;
  /* beyond 2^62 apart counts as "huge" */
  int64_t x = ord64(a), y = ord64(b);
  if ((x > 0) != (y > 0) && (x > INT64_MAX / 2 || y > INT64_MAX / 2)) return INT64_MAX;
  int64_t d = x - y;
  return d < 0 ? -d : d;
}

/* ---- vector kernels vs reference scalar semantics -------------------------- */
#define NV 4099
static float xs32[NV], ys32[NV], zs32[NV];
static double xs64[NV], ys64[NV], zs64[NV];

static const double EDGE[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-40, -1e-40, 1e-310,
                              88.7, -88.7, 89.0, -104.0, 1e30, -1e30, 0.5, -0.5, 1.0, -1.0,
                              2.0, 3.14159, 1e-8, 100.0, 710.0, -745.0, 20.0, -20.0, 9.0};

static void fill(uint64_t seed, double scale) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < NV; i++) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    double u = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    double v = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
    xs64[i] = u * scale;
    ys64[i] = v * scale;
  }
  int ne = (int)(sizeof EDGE / sizeof EDGE[0]);
  for (int i = 0; i < ne; i++)
    for (int j = 0; j < ne; j++) {
      xs64[i * ne + j] = EDGE[i];
      ys64[i * ne + j] = EDGE[j];
    }
  for (int i = 0; i < NV; i++) {
    xs32[i] = (float)xs64[i];
    ys32[i] = (float)ys64[i];
  }
}

typedef struct opb { hlo_opcode op; int b32, b64; double scale; } opb;

/* Documented bounds (docs/fast.md): exact ops 0; SLEEF 1-ulp functions
 * against the reference (double math rounded once) within these; tanh uses
 * SLEEF's 3.5-ulp variant (f32: 3 ulp over a sweep of all floats below). */
static const opb UNARY[] = {
    {HLO_OP_NEGATE, 0, 0, 10}, {HLO_OP_ABS, 0, 0, 10}, {HLO_OP_SQRT, 0, 0, 100},
    {HLO_OP_RSQRT, 0, 0, 100}, {HLO_OP_FLOOR, 0, 0, 10}, {HLO_OP_CEIL, 0, 0, 10},
    {HLO_OP_ROUND_NEAREST_EVEN, 0, 0, 10}, {HLO_OP_ROUND_NEAREST_AFZ, 0, 0, 10},
    {HLO_OP_SIGN, 0, 0, 10},
    {HLO_OP_EXP, 1, 1, 90}, {HLO_OP_EXPM1, 1, 1, 10}, {HLO_OP_LOG, 1, 1, 1000},
    {HLO_OP_LOG1P, 1, 1, 10}, {HLO_OP_TANH, 3, 4, 10}, {HLO_OP_SIN, 1, 1, 100},
    {HLO_OP_COS, 1, 1, 100}, {HLO_OP_TAN, 1, 1, 10}, {HLO_OP_ERF, 1, 1, 5},
    {HLO_OP_CBRT, 1, 3, 1000}, {HLO_OP_LOGISTIC, 2, 2, 30},
};
static const opb BINARY[] = {
    {HLO_OP_ADD, 0, 0, 10}, {HLO_OP_SUBTRACT, 0, 0, 10}, {HLO_OP_MULTIPLY, 0, 0, 10},
    {HLO_OP_DIVIDE, 0, 0, 10}, {HLO_OP_MAXIMUM, 0, 0, 10}, {HLO_OP_MINIMUM, 0, 0, 10},
    {HLO_OP_POWER, 1, 1, 4}, {HLO_OP_ATAN2, 1, 1, 10},
};

static void check_isa(const hlo_fv_isa *isa) {
  for (size_t t = 0; t < sizeof UNARY / sizeof UNARY[0] + sizeof BINARY / sizeof BINARY[0]; t++) {
    bool bin = t >= sizeof UNARY / sizeof UNARY[0];
    const opb *o = bin ? &BINARY[t - sizeof UNARY / sizeof UNARY[0]] : &UNARY[t];
    fill(t + 1, o->scale);
    int64_t w32 = 0, w64 = 0;
    int at32 = -1, at64 = -1;
    bool ok = bin ? isa->bin32(o->op, NV, xs32, ys32, zs32) && isa->bin64(o->op, NV, xs64, ys64, zs64)
                  : isa->un32(o->op, NV, xs32, zs32) && isa->un64(o->op, NV, xs64, zs64);
    CHECK(ok);
    for (int i = 0; i < NV; i++) {
      hlo_sc a = {xs32[i], 0, 0}, b = {ys32[i], 0, 0};
      hlo_sc r = bin ? hlo_ref_binary(o->op, HLO_F32, HLO_F32, a, b)
                     : hlo_ref_unary(o->op, HLO_F32, HLO_F32, a);
      int64_t u = ulp32((float)r.f, zs32[i]);
      if (u > w32) { w32 = u; at32 = i; }
      hlo_sc a6 = {xs64[i], 0, 0}, b6 = {ys64[i], 0, 0};
      hlo_sc r6 = bin ? hlo_ref_binary(o->op, HLO_F64, HLO_F64, a6, b6)
                      : hlo_ref_unary(o->op, HLO_F64, HLO_F64, a6);
      u = ulp64(r6.f, zs64[i]);
      if (u > w64) { w64 = u; at64 = i; }
    }
    if (w32 > o->b32 || w64 > o->b64) {
      t_fail++;
      printf("fast_test: %s %s: worst f32 %lld ulp at x=%.9g y=%.9g got %.9g; worst f64 %lld "
             "ulp at x=%.17g got %.17g\n", isa->name, hlo_opcode_name(o->op), (long long)w32,
             at32 >= 0 ? xs32[at32] : 0, at32 >= 0 ? ys32[at32] : 0,
             at32 >= 0 ? zs32[at32] : 0, (long long)w64, at64 >= 0 ? xs64[at64] : 0,
             at64 >= 0 ? zs64[at64] : 0);
    } else {
      t_pass++;
    }
  }
}

/* tanh f32 over every 251st bit pattern (17 million floats, all binades,
 * both signs, subnormals, inf, NaN) and f64 over 2^20 random values of
 * magnitudes 1e-6 .. 30: within the documented 3 / 4 ulp. */
static void check_tanh_sweep(const hlo_fv_isa *isa) {
  enum { B = 4096 };
  static float x[B], z[B];
  int64_t worst = 0;
  float at = 0;
  uint32_t u = 0;
  bool done = false;
  while (!done) {
    int n = 0;
    for (; n < B; n++) {
      memcpy(&x[n], &u, 4);
      if (u > UINT32_MAX - 251) { done = true; n++; break; }
      u += 251;
    }
    CHECK(isa->un32(HLO_OP_TANH, n, x, z));
    for (int i = 0; i < n; i++) {
      int64_t d = ulp32((float)tanh((double)x[i]), z[i]);
      if (d > worst) { worst = d; at = x[i]; }
    }
  }
  static double xd[B], zd[B];
  int64_t worst64 = 0;
  double at64 = 0;
  uint64_t st = 99;
  for (int r = 0; r < 256; r++) {
    for (int i = 0; i < B; i++) {
      st ^= st << 13; st ^= st >> 7; st ^= st << 17;
      double v = ((double)(st >> 11) / 9007199254740992.0 * 2 - 1);
      xd[i] = v * (i % 3 == 0 ? 30 : i % 3 == 1 ? 1 : 1e-6);
    }
    CHECK(isa->un64(HLO_OP_TANH, B, xd, zd));
    for (int i = 0; i < B; i++) {
      int64_t d = ulp64(tanh(xd[i]), zd[i]);
      if (d > worst64) { worst64 = d; at64 = xd[i]; }
    }
  }
  if (worst > 3 || worst64 > 4) {
    t_fail++;
    printf("fast_test: %s tanh sweep: worst f32 %lld ulp at %.9g, f64 %lld ulp at %.17g\n",
           isa->name, (long long)worst, at, (long long)worst64, at64);
  } else {
    t_pass++;
  }
}

/* f16/bf16 conversions: every 16-bit pattern widened, and every 509th f32
 * bit pattern (8.4M: all binades, both signs, subnormals, ties, NaNs)
 * narrowed and rounded, bit for bit against the scalar conversions. */
static void check_conv16(const hlo_fv_isa *isa) {
  enum { B = 4096 };
  static uint16_t h[B], h2[B];
  static float f[B], g[B];
  int bad = 0;
  for (int ti = 0; ti < 2; ti++) {
    hlo_type t = ti ? HLO_BF16 : HLO_F16;
    for (uint32_t b0 = 0; b0 < 65536; b0 += B) {
      for (int i = 0; i < B; i++) h[i] = (uint16_t)(b0 + (uint32_t)i);
      isa->widen16(t, B, h, f);
      for (int i = 0; i < B && bad < 5; i++) {
        float w = t == HLO_F16 ? hlo_f16_to_f32(h[i]) : hlo_bf16_to_f32(h[i]);
        if (memcmp(&w, &f[i], 4) != 0) {
          bad++;
          printf("fast_test: %s widen %s %#x: %a, want %a\n", isa->name, ti ? "bf16" : "f16",
                 h[i], f[i], w);
        }
      }
    }
    uint32_t u = 0;
    bool done = false;
    while (!done) {
      int n = 0;
      for (; n < B; n++) {
        memcpy(&f[n], &u, 4);
        if (u > UINT32_MAX - 509) { done = true; n++; break; }
        u += 509;
      }
      isa->narrow16(t, n, f, h2);
      memcpy(g, f, sizeof(float) * (size_t)n);
      isa->round16(t, n, g);
      for (int i = 0; i < n && bad < 5; i++) {
        uint16_t w = t == HLO_F16 ? hlo_f32_to_f16(f[i]) : hlo_f32_to_bf16(f[i]);
        float wr = t == HLO_F16 ? hlo_f16_to_f32(w) : hlo_bf16_to_f32(w);
        if (w != h2[i] || memcmp(&wr, &g[i], 4) != 0) {
          bad++;
          printf("fast_test: %s narrow %s %a: %#x / %a, want %#x / %a\n", isa->name,
                 ti ? "bf16" : "f16", f[i], h2[i], g[i], w, wr);
        }
      }
    }
  }
  if (bad) t_fail++;
  else t_pass++;
}

/* max/min kernels on ordering edge cases, bit for bit against the
 * reference scalar maximum/minimum folded left to right. */
static void check_minmax(const hlo_fv_isa *isa) {
  static const float rows[][5] = {
      {-0.0f, -0.0f, 0.0f, -0.0f, -0.0f}, {0.0f, -0.0f, 0.0f, -0.0f, 0.0f},
      {-INFINITY, -1e-45f, -3.0f, -1e-40f, -2.0f}, {1e-45f, 1e-40f, 0.0f, -0.0f, 1e-38f},
      {INFINITY, 1.0f, NAN, -INFINITY, 2.0f}, {-5.0f, -5.0f, -5.0f, -5.0f, -5.0f},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
    for (int len = 1; len <= 200; len += 67) {
      float x[200];
      double xd[200];
      for (int i = 0; i < len; i++) xd[i] = x[i] = rows[r][(i * 3 + (int)r) % 5];
      for (int mx = 0; mx < 2; mx++) {
        hlo_opcode op = mx ? HLO_OP_MAXIMUM : HLO_OP_MINIMUM;
        float init = mx ? -INFINITY : INFINITY;
        hlo_sc acc = {init, 0, 0}, acc6 = {init, 0, 0};
        for (int i = 0; i < len; i++) {
          hlo_sc v = {x[i], 0, 0};
          acc = hlo_ref_binary(op, HLO_F32, HLO_F32, acc, v);
          acc6 = hlo_ref_binary(op, HLO_F64, HLO_F64, acc6, v);
        }
        float got = mx ? isa->max32(len, x, init) : isa->min32(len, x, init);
        double got6 = mx ? isa->max64(len, xd, init) : isa->min64(len, xd, init);
        float want = (float)acc.f;
        bool ok32 = (isnan(want) && isnan(got)) || memcmp(&want, &got, 4) == 0;
        bool ok64 = (isnan(acc6.f) && isnan(got6)) || memcmp(&acc6.f, &got6, 8) == 0;
        if (!ok32 || !ok64) {
          t_fail++;
          printf("fast_test: %s %s row %zu len %d: got %g / %g, want %g / %g\n", isa->name,
                 mx ? "max" : "min", r, len, got, got6, want, acc6.f);
        } else {
          t_pass++;
        }
      }
    }
}

/* ---- whole modules, fast vs reference ---------------------------------------- */
/* Run text on the fast or the reference path; check: the fast path in check
 * mode (every fast kernel against its reference kernel within the tolerance
 * of tolerance.c). */
static hlo_val *run_mod_x(const char *text, bool fast, bool check, hlo_val **args, int nargs,
                          bool *planned, hlo_module **mout) {
  hlo_src src = {"test", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  hlo_exec_options o = {0};
  o.reference = !fast;
  o.check_fast = check;
  hlo_exec *e = m ? hlo_exec_new(m, &o, NULL, &d) : NULL;
  hlo_val *res = NULL;
  if (e && fast) {
    /* apply the fast-path choice to every planned computation */
    for (int c = 0; c < m->ncomps; c++) {
      plan_comp *pc = e->plans[c];
      for (int k = 0; pc && k < pc->nsteps; k++)
        if (hlo_plan_fast(e, &pc->steps[k])) *planned = true;
    }
  }
  if (!e || hlo_exec_run(e, args, nargs, &res)) {
    printf("fast_test: %s run failed:", fast ? "fast" : "reference");
    for (int i = 0; i < d.n; i++) printf(" %s", d.v[i].msg);
    printf("\n");
    res = NULL;
  }
  hlo_exec_free(e);
  hlo_diags_release(&d);
  if (mout) *mout = m;
  else hlo_module_free(m);
  return res;
}

static hlo_val *run_mod(const char *text, bool fast, hlo_val **args, int nargs, bool *planned,
                        hlo_module **mout) {
  return run_mod_x(text, fast, false, args, nargs, planned, mout);
}

static void put_edges(hlo_val *v) {
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++) put_edges(v->tuple[i]);
    return;
  }
  int ne = (int)(sizeof EDGE / sizeof EDGE[0]);
  for (int64_t i = 0; i < v->nelems && i < ne; i += 1) {
    if (v->shape->type == HLO_F32) ((float *)v->data)[i * 7 % v->nelems] = (float)EDGE[i];
    if (v->shape->type == HLO_F64) ((double *)v->data)[i * 7 % v->nelems] = EDGE[i];
  }
  /* f16/bf16: the edges rounded to the type (1e30 -> inf in f16, 1e-40 ->
   * a bf16 subnormal), plus the f16 limits: largest finite, smallest
   * subnormal, a value that rounds to inf when doubled, ties */
  static const double NARROW[] = {65504.0, -65504.0, 5.960464477539063e-08, 6.1e-05,
                                  32768.0, 1.0009765625, 3.0e38, -3.0e38, 9.2e-41, 1.5};
  int nn = (int)(sizeof NARROW / sizeof NARROW[0]);
  /* integers: the extremes, bit patterns of float NaNs/-0, small values */
  static const int64_t IEDGE[] = {INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, -1, 0, 1,
                                  0x7f800001, (int64_t)0x80000000u, 0xffffffff,
                                  (int64_t)0x7ff0000000000001ull, 65536, -65536, 3};
  int ni = (int)(sizeof IEDGE / sizeof IEDGE[0]);
  for (int64_t i = 0; i < v->nelems && i < ni; i++) {
    int64_t k = i * 7 % v->nelems;
    switch ((int)v->shape->type) {
    case HLO_S32: case HLO_U32: ((uint32_t *)v->data)[k] = (uint32_t)IEDGE[i]; break;
    case HLO_S64: case HLO_U64: ((uint64_t *)v->data)[k] = (uint64_t)IEDGE[i]; break;
    default: break;
    }
  }
  if (v->shape->type == HLO_F16 || v->shape->type == HLO_BF16)
    for (int64_t i = 0; i < v->nelems && i < ne + nn; i++)
      ((uint16_t *)v->data)[i * 7 % v->nelems] =
          (uint16_t)hlo_fp_from_double(v->shape->type, i < ne ? EDGE[i] : NARROW[i - ne]);
}

/* Compare leaves: floats within ulp (absolute slack abs_tol for sums);
 * other types exactly. */
static bool same_val(const hlo_val *a, const hlo_val *b, int64_t ulp, double rel, char *why,
                     size_t wl) {
  if (a->ntuple != b->ntuple) return snprintf(why, wl, "tuple arity"), false;
  for (int i = 0; i < a->ntuple; i++)
    if (!same_val(a->tuple[i], b->tuple[i], ulp, rel, why, wl)) return false;
  if (a->ntuple) return true;
  if (a->nelems != b->nelems || a->shape->type != b->shape->type)
    return snprintf(why, wl, "shape: %lld/%d vs %lld/%d", (long long)a->nelems, (int)a->shape->type, (long long)b->nelems, (int)b->shape->type), false;
  hlo_type t = a->shape->type;
  bool cplx = t == HLO_C64 || t == HLO_C128;
  bool f32 = t == HLO_F32 || t == HLO_C64;
  for (int64_t i = 0; i < a->nelems * (cplx ? 2 : 1); i++) {
    if (t == HLO_F32 || t == HLO_F64 || cplx) {
      double x = f32 ? ((float *)a->data)[i] : ((double *)a->data)[i];
      double y = f32 ? ((float *)b->data)[i] : ((double *)b->data)[i];
      int64_t u = f32 ? ulp32((float)x, (float)y) : ulp64(x, y);
      bool close = rel > 0 && fabs(x - y) <= rel * (1 + fabs(x));
      if (u > ulp && !close)
        return snprintf(why, wl, "element %lld: reference %.17g fast %.17g (%lld ulp)",
                        (long long)i, x, y, (long long)u), false;
    } else if (t == HLO_F16 || t == HLO_BF16) {
      uint16_t x = ((uint16_t *)a->data)[i], y = ((uint16_t *)b->data)[i];
      bool nx = hlo_fp_is_nan(t, x), ny = hlo_fp_is_nan(t, y);
      /* ordered 16-bit keys: ulps apart */
      int32_t kx = x & 0x8000 ? -(int32_t)(x & 0x7fff) : (int32_t)x;
      int32_t ky = y & 0x8000 ? -(int32_t)(y & 0x7fff) : (int32_t)y;
      int64_t u = nx || ny ? (nx && ny ? 0 : INT64_MAX) : llabs((long long)(kx - ky));
      if (u > ulp)
        return snprintf(why, wl, "element %lld: reference %#x fast %#x (%lld ulp)", (long long)i,
                        x, y, (long long)u), false;
    } else if (memcmp((char *)a->data + i * hlo_type_bytes(a->shape->type),
                      (char *)b->data + i * hlo_type_bytes(a->shape->type),
                      (size_t)hlo_type_bytes(a->shape->type)) != 0) {
      return snprintf(why, wl, "element %lld differs", (long long)i), false;
    }
  }
  return true;
}

/* Run text both ways on random inputs (with edge values when edges). */
static void check_mod(int line, const char *text, int64_t ulp, double rel, bool edges) {
  hlo_module *m = NULL;
  bool planned = false;
  hlo_src src = {"test", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  if (!m) {
    t_fail++;
    printf("fast_test.c:%d: parse failed: %s\n", line, d.n ? d.v[0].msg : "");
    hlo_diags_release(&d);
    return;
  }
  hlo_val *args[8];
  int na = m->entry->nparams;
  for (int i = 0; i < na; i++) {
    args[i] = hlo_val_new(NULL, &m->entry->params[i]->shape);
    hlo_val_randomize(args[i], 17 + (uint64_t)i);
    if (edges) put_edges(args[i]);
  }
  hlo_module *m1 = NULL, *m2 = NULL;
  hlo_val *ref = run_mod(text, false, args, na, &planned, &m1);
  hlo_val *fast = run_mod(text, true, args, na, &planned, &m2);
  char why[256] = "";
  if (!ref || !fast || !planned || !same_val(ref, fast, ulp, rel, why, sizeof why)) {
    t_fail++;
    printf("fast_test.c:%d: %s\n", line, !planned ? "no fast kernel was chosen" : why);
  } else {
    t_pass++;
  }
  /* every fast kernel of the module within its op's tolerance (docs/fast.md) */
  hlo_val *checked = run_mod_x(text, true, true, args, na, &planned, NULL);
  CHECK(checked != NULL);
  if (!checked) printf("fast_test.c:%d: check mode failed (above)\n", line);
  hlo_val_release(NULL, checked);
  hlo_val_release(NULL, ref);
  hlo_val_release(NULL, fast);
  for (int i = 0; i < na; i++) hlo_val_release(NULL, args[i]);
  hlo_module_free(m1);
  hlo_module_free(m2);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

static void test_loops(void) {
  /* fused chain with broadcasts of a row, a column, a scalar constant */
  check_mod(__LINE__,
            "HloModule m\n"
            "f {\n  p0 = f32[37,129] parameter(0)\n  p1 = f32[129] parameter(1)\n"
            "  p2 = f32[37] parameter(2)\n  c = f32[] constant(0.5)\n"
            "  b1 = f32[37,129] broadcast(p1), dimensions={1}\n"
            "  b2 = f32[37,129] broadcast(p2), dimensions={0}\n"
            "  bc = f32[37,129] broadcast(c), dimensions={}\n"
            "  t = f32[37,129] tanh(p0)\n  m1 = f32[37,129] multiply(t, b1)\n"
            "  a1 = f32[37,129] add(m1, b2)\n  ROOT s = f32[37,129] subtract(a1, bc)\n}\n"
            "ENTRY e {\n  a = f32[37,129] parameter(0)\n  b = f32[129] parameter(1)\n"
            "  c = f32[37] parameter(2)\n"
            "  ROOT r = f32[37,129] fusion(a, b, c), kind=kLoop, calls=f\n}\n",
            3, 2e-5, true); /* tanh's 3 ulp (~2e-7) times |p1| up to 100 (edge values) */
  /* f64: transpose, slice, reshape, compare/select, clamp, exp/log */
  check_mod(__LINE__,
            "HloModule m\n"
            "f {\n  p0 = f64[20,30] parameter(0)\n  p1 = f64[30,40] parameter(1)\n"
            "  t = f64[30,20] transpose(p0), dimensions={1,0}\n"
            "  s = f64[30,20] slice(p1), slice={[0:30], [1:40:2]}\n"
            "  a = f64[30,20] add(t, s)\n  z = f64[] constant(0)\n"
            "  zb = f64[30,20] broadcast(z), dimensions={}\n"
            "  g = pred[30,20] compare(a, zb), direction=GT\n"
            "  e = f64[30,20] exponential(a)\n  l = f64[30,20] log(a)\n"
            "  sel = f64[30,20] select(g, l, e)\n  lo = f64[] constant(-0.25)\n"
            "  hi = f64[] constant(1.5)\n  c = f64[30,20] clamp(lo, sel, hi)\n"
            "  ROOT r = f64[600] reshape(c)\n}\n"
            "ENTRY e {\n  a = f64[20,30] parameter(0)\n  b = f64[30,40] parameter(1)\n"
            "  ROOT r = f64[600] fusion(a, b), kind=kLoop, calls=f\n}\n",
            1, 0, true);
  /* reshape of a parameter under a broadcast, unit-dim reshape of an inner
   * node; standalone ops; softmax-like pieces */
  check_mod(__LINE__,
            "HloModule m\n"
            "f {\n  p0 = f32[6,4] parameter(0)\n  p1 = f32[24] parameter(1)\n"
            "  r1 = f32[4,6] reshape(p1)\n  t1 = f32[6,4] transpose(r1), dimensions={1,0}\n"
            "  n = f32[6,4] negate(p0)\n  r2 = f32[6,1,4] reshape(n)\n"
            "  b = f32[6,1,4,5] broadcast(r2), dimensions={0,1,2}\n"
            "  b2 = f32[6,1,4,5] broadcast(t1), dimensions={0,2}\n"
            "  ROOT m = f32[6,1,4,5] maximum(b, b2)\n}\n"
            "ENTRY e {\n  a = f32[6,4] parameter(0)\n  b = f32[24] parameter(1)\n"
            "  ROOT r = f32[6,1,4,5] fusion(a, b), kind=kLoop, calls=f\n}\n",
            0, 0, true);
  check_mod(__LINE__,
            "HloModule m\nENTRY e {\n  a = f32[1000] parameter(0)\n  b = f32[1000] parameter(1)\n"
            "  x = f32[1000] divide(a, b)\n  y = f32[1000] power(a, b)\n"
            "  z = f32[1000] logistic(x)\n  w = f32[1000] minimum(y, z)\n"
            "  ROOT s = f32[1000] atan2(w, a)\n}\n",
            3, 0, true);
  /* large enough to split across threads (1M elements of cost 12, above
   * HLO_FAST_PAR_MIN_COST); parameter used twice */
  check_mod(__LINE__,
            "HloModule m\n"
            "f {\n  p0 = f32[1000,1000] parameter(0)\n  t = f32[1000,1000] tanh(p0)\n"
            "  m = f32[1000,1000] multiply(t, p0)\n  ROOT a = f32[1000,1000] add(m, p0)\n}\n"
            "ENTRY e {\n  a = f32[1000,1000] parameter(0)\n"
            "  ROOT r = f32[1000,1000] fusion(a), kind=kLoop, calls=f\n}\n",
            2, 1e-6, true); /* one tanh ulp, amplified by the cancelling add */
  /* outputs of 8 MB and more are streamed (non-temporal stores from a
   * staging chunk); odd lengths leave tails of every size below 16 bytes */
  check_mod(__LINE__,
            "HloModule m\nENTRY e {\n  a = f32[2097155] parameter(0)\n  b = f32[2097155] parameter(1)\n"
            "  ROOT s = f32[2097155] add(a, b)\n}\n",
            0, 0, true);
  check_mod(__LINE__,
            "HloModule m\n"
            "f {\n  p0 = f64[1048577] parameter(0)\n  p1 = f64[1048577] parameter(1)\n"
            "  m = f64[1048577] multiply(p0, p1)\n  ROOT s = f64[1048577] subtract(m, p0)\n}\n"
            "ENTRY e {\n  a = f64[1048577] parameter(0)\n  b = f64[1048577] parameter(1)\n"
            "  ROOT r = f64[1048577] fusion(a, b), kind=kLoop, calls=f\n}\n",
            0, 0, true);
  check_mod(__LINE__,
            "HloModule m\nENTRY e {\n  a = bf16[4194305] parameter(0)\n  b = bf16[4194305] parameter(1)\n"
            "  ROOT s = bf16[4194305] multiply(a, b)\n}\n",
            0, 0, true);
  /* large standalone broadcasts (scalar, a middle and the innermost
   * dimension, two outer ones) move every bit, NaN payloads
   * included; the 2M-element ones are streamed */
  check_mod(__LINE__,
            "HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n"
            "  ROOT b = f32[3,5,70001] broadcast(a), dimensions={}\n}\n",
            0, 0, true);
  check_mod(__LINE__,
            "HloModule m\nENTRY e {\n  a = f64[37] parameter(0)\n"
            "  ROOT b = f64[5,37,11,127] broadcast(a), dimensions={1}\n}\n",
            0, 0, true);
  check_mod(__LINE__,
            "HloModule m\nENTRY e {\n  a = s64[1031] parameter(0)\n"
            "  ROOT b = s64[2048,1031] broadcast(a), dimensions={1}\n}\n",
            0, 0, true);
  check_mod(__LINE__,
            "HloModule m\nENTRY e {\n  a = u32[17,33] parameter(0)\n"
            "  ROOT b = u32[17,129,33] broadcast(a), dimensions={0,2}\n}\n",
            0, 0, true);
}


/* f16/bf16 fused loops: computed in f32, rounded once per instruction as
 * the reference rounds each double result: the arithmetic is bit-identical
 * (f32 has more than 2p+2 bits of the narrow type's precision p, so the
 * double rounding is innocuous); transcendentals within one ulp of the type. */
static void test_narrow_loops(void) {
  static const char *types[] = {"f16", "bf16"};
  for (int i = 0; i < 2; i++) {
    const char *T = types[i];
    char text[2048];
    snprintf(text, sizeof text,
             "HloModule m\n"
             "f {\n  p0 = %s[37,129] parameter(0)\n  p1 = %s[129] parameter(1)\n"
             "  p2 = %s[37,129] parameter(2)\n  c = %s[] constant(0.3)\n"
             "  b1 = %s[37,129] broadcast(p1), dimensions={1}\n"
             "  bc = %s[37,129] broadcast(c), dimensions={}\n"
             "  m = %s[37,129] multiply(p0, b1)\n  a = %s[37,129] add(m, p2)\n"
             "  d = %s[37,129] divide(a, p2)\n  s = %s[37,129] subtract(d, bc)\n"
             "  q = %s[37,129] sqrt(p0)\n  mx = %s[37,129] maximum(s, q)\n"
             "  g = pred[37,129] compare(mx, p0), direction=GT\n"
             "  sel = %s[37,129] select(g, mx, p2)\n"
             "  t = %s[129,37] transpose(sel), dimensions={1,0}\n"
             "  ROOT n = %s[129,37] negate(t)\n}\n"
             "ENTRY e {\n  a = %s[37,129] parameter(0)\n  b = %s[129] parameter(1)\n"
             "  c = %s[37,129] parameter(2)\n"
             "  ROOT r = %s[129,37] fusion(a, b, c), kind=kLoop, calls=f\n}\n",
             T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T);
    check_mod(__LINE__, text, 0, 0, true);
    snprintf(text, sizeof text,
             "HloModule m\n"
             "f {\n  p0 = %s[3000] parameter(0)\n  e = %s[3000] exponential(p0)\n"
             "  t = %s[3000] tanh(p0)\n  l = %s[3000] log(e)\n"
             "  x = %s[3000] multiply(t, l)\n  ROOT y = %s[3000] logistic(x)\n}\n"
             "ENTRY e {\n  a = %s[3000] parameter(0)\n"
             "  ROOT r = %s[3000] fusion(a), kind=kLoop, calls=f\n}\n",
             T, T, T, T, T, T, T, T);
    check_mod(__LINE__, text, 2, 0, true); /* one ulp of the type per function, two chained */
    /* a standalone op; a fused program whose root is a parameter */
    snprintf(text, sizeof text,
             "HloModule m\nf {\n  p = %s[100] parameter(0)\n  ROOT c = %s[100] copy(p)\n}\n"
             "ENTRY e {\n  a = %s[100] parameter(0)\n  b = %s[100] parameter(1)\n"
             "  s = %s[100] add(a, b)\n"
             "  f = %s[100] fusion(s), kind=kLoop, calls=f\n"
             "  ROOT m = %s[100] multiply(f, b)\n}\n",
             T, T, T, T, T, T, T);
    check_mod(__LINE__, text, 0, 0, true);
  }
}

/* 32/64-bit integer fused loops: bit-identical to the reference (wrapping
 * arithmetic, signed/unsigned order) on random data and extremes. */
static void test_int_loops(void) {
  static const char *types[] = {"s32", "u32", "s64", "u64"};
  for (int i = 0; i < 4; i++) {
    const char *T = types[i];
    char text[2048];
    snprintf(text, sizeof text,
             "HloModule m\n"
             "f {\n  p0 = %s[37,129] parameter(0)\n  p1 = %s[129] parameter(1)\n"
             "  p2 = %s[37,129] parameter(2)\n  c = %s[] constant(7)\n"
             "  b1 = %s[37,129] broadcast(p1), dimensions={1}\n"
             "  bc = %s[37,129] broadcast(c), dimensions={}\n"
             "  m = %s[37,129] multiply(p0, b1)\n  a = %s[37,129] add(m, p2)\n"
             "  s = %s[37,129] subtract(a, bc)\n  n = %s[37,129] negate(s)\n"
             "  x = %s[37,129] xor(n, p0)\n  o = %s[37,129] or(x, bc)\n"
             "  an = %s[37,129] and(o, p2)\n  nt = %s[37,129] not(an)\n"
             "  mx = %s[37,129] maximum(nt, p0)\n  mn = %s[37,129] minimum(mx, b1)\n"
             "  g = pred[37,129] compare(mn, p2), direction=LT\n"
             "  sel = %s[37,129] select(g, mn, s)\n"
             "  cl = %s[37,129] clamp(bc, sel, p2)\n"
             "  ROOT t = %s[129,37] transpose(cl), dimensions={1,0}\n}\n"
             "ENTRY e {\n  a = %s[37,129] parameter(0)\n  b = %s[129] parameter(1)\n"
             "  c = %s[37,129] parameter(2)\n"
             "  ROOT r = %s[129,37] fusion(a, b, c), kind=kLoop, calls=f\n}\n",
             T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T);
    check_mod(__LINE__, text, 0, 0, true);
    /* standalone ops */
    snprintf(text, sizeof text,
             "HloModule m\nENTRY e {\n  a = %s[1000] parameter(0)\n  b = %s[1000] parameter(1)\n"
             "  x = %s[1000] multiply(a, b)\n  y = %s[1000] add(x, a)\n"
             "  g = pred[1000] compare(y, b), direction=GE\n"
             "  ROOT s = %s[1000] select(g, y, x)\n}\n",
             T, T, T, T, T);
    check_mod(__LINE__, text, 0, 0, true);
  }
}

static void dot_case(int line, const char *lt, const char *rt, const char *ot, const char *dn,
                     double rel) {
  char text[1024];
  snprintf(text, sizeof text,
           "HloModule m\nENTRY e {\n  a = %s parameter(0)\n  b = %s parameter(1)\n"
           "  ROOT d = %s dot(a, b), %s\n}\n", lt, rt, ot, dn);
  check_mod(line, text, 0, rel, false);
}

static void test_dots(void) {
  const char *mk = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  dot_case(__LINE__, "f32[33,70]", "f32[70,45]", "f32[33,45]", mk, 1e-5);
  dot_case(__LINE__, "f32[70,33]", "f32[70,45]", "f32[33,45]",
           "lhs_contracting_dims={0}, rhs_contracting_dims={0}", 1e-5);
  dot_case(__LINE__, "f32[33,70]", "f32[45,70]", "f32[33,45]",
           "lhs_contracting_dims={1}, rhs_contracting_dims={1}", 1e-5);
  dot_case(__LINE__, "f32[4,33,70]", "f32[4,70,45]", "f32[4,33,45]",
           "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
           "rhs_contracting_dims={1}", 1e-5);
  /* batch dims not leading, two contracting dims in swapped order: packed */
  dot_case(__LINE__, "f32[7,3,5,6]", "f32[6,3,2,7]", "f32[3,5,2]",
           "lhs_batch_dims={1}, lhs_contracting_dims={3,0}, rhs_batch_dims={1}, "
           "rhs_contracting_dims={0,3}", 1e-5);
  dot_case(__LINE__, "f32[70]", "f32[70]", "f32[]",
           "lhs_contracting_dims={0}, rhs_contracting_dims={0}", 1e-5);
  dot_case(__LINE__, "f32[5,0]", "f32[0,4]", "f32[5,4]", mk, 0);
  dot_case(__LINE__, "f64[33,70]", "f64[70,45]", "f64[33,45]", mk, 1e-13);
  dot_case(__LINE__, "c64[13,20]", "c64[20,9]", "c64[13,9]", mk, 1e-5);
  dot_case(__LINE__, "c128[13,20]", "c128[20,9]", "c128[13,9]", mk, 1e-13);
  dot_case(__LINE__, "f16[13,20]", "f16[20,9]", "f16[13,9]", mk, 2e-3);
  dot_case(__LINE__, "bf16[13,20]", "bf16[20,9]", "bf16[13,9]", mk, 1e-2);
  dot_case(__LINE__, "bf16[13,20]", "bf16[20,9]", "f32[13,9]", mk, 1e-5);
  dot_case(__LINE__, "s32[13,300]", "s32[300,9]", "s32[13,9]", mk, 0);
  dot_case(__LINE__, "s8[13,20]", "s8[20,9]", "s8[13,9]", mk, 0);
  dot_case(__LINE__, "u8[13,20]", "u8[9,20]", "u8[13,9]",
           "lhs_contracting_dims={1}, rhs_contracting_dims={1}", 0);
  dot_case(__LINE__, "s64[3,13,20]", "s64[3,20,9]", "s64[3,13,9]",
           "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
           "rhs_contracting_dims={1}", 0);
  dot_case(__LINE__, "pred[13,20]", "pred[20,9]", "pred[13,9]", mk, 0);
}

#define ADDF(T) "add" #T " {\n  x = " #T "[] parameter(0)\n  y = " #T "[] parameter(1)\n" \
  "  ROOT s = " #T "[] add(x, y)\n}\n"
#define MAXF(T) "max" #T " {\n  x = " #T "[] parameter(0)\n  y = " #T "[] parameter(1)\n" \
  "  ROOT s = " #T "[] maximum(x, y)\n}\n"
#define MINF(T) "min" #T " {\n  x = " #T "[] parameter(0)\n  y = " #T "[] parameter(1)\n" \
  "  ROOT s = " #T "[] minimum(x, y)\n}\n"

static void red_case(int line, const char *it, const char *ot, const char *dims,
                     const char *comp, const char *cname, double rel) {
  char text[2048];
  snprintf(text, sizeof text,
           "HloModule m\n%sENTRY e {\n  a = %s parameter(0)\n  i = %.3s[] parameter(1)\n"
           "  ROOT r = %s reduce(a, i), dimensions={%s}, to_apply=%s\n}\n",
           comp, it, it, ot, dims, cname);
  check_mod(line, text, 0, rel, true);
}

static void test_reduces(void) {
  red_case(__LINE__, "f32[37,1000]", "f32[37]", "1", ADDF(f32), "addf32", 1e-5);
  red_case(__LINE__, "f32[1000,37]", "f32[37]", "0", ADDF(f32), "addf32", 1e-5);
  red_case(__LINE__, "f32[300000]", "f32[]", "0", ADDF(f32), "addf32", 1e-5);
  red_case(__LINE__, "f32[5,6,7,3]", "f32[5,3]", "1,2", ADDF(f32), "addf32", 1e-5);
  red_case(__LINE__, "f32[2,3000,700]", "f32[2,700]", "1", ADDF(f32), "addf32", 1e-4);
  red_case(__LINE__, "f64[37,1000]", "f64[37]", "1", ADDF(f64), "addf64", 1e-13);
  red_case(__LINE__, "f64[200000]", "f64[]", "0", ADDF(f64), "addf64", 1e-12);
  red_case(__LINE__, "f64[100,37]", "f64[37]", "0", ADDF(f64), "addf64", 1e-13);
  red_case(__LINE__, "f32[37,1000]", "f32[37]", "1", MAXF(f32), "maxf32", 0);
  red_case(__LINE__, "f32[1000,37]", "f32[37]", "0", MINF(f32), "minf32", 0);
  red_case(__LINE__, "f64[37,100]", "f64[37]", "1", MINF(f64), "minf64", 0);
  red_case(__LINE__, "f32[0,5]", "f32[5]", "0", ADDF(f32), "addf32", 0);
  /* input fusion: softmax pieces, producer never materialized */
  check_mod(__LINE__,
            "HloModule m\n" ADDF(f32) MAXF(f32)
            "f {\n  p0 = f32[64,1000] parameter(0)\n  p1 = f32[64] parameter(1)\n"
            "  b = f32[64,1000] broadcast(p1), dimensions={0}\n"
            "  d = f32[64,1000] subtract(p0, b)\n  x = f32[64,1000] exponential(d)\n"
            "  z = f32[] constant(0)\n"
            "  ROOT r = f32[64] reduce(x, z), dimensions={1}, to_apply=addf32\n}\n"
            "ENTRY e {\n  a = f32[64,1000] parameter(0)\n  ninf = f32[] constant(-inf)\n"
            "  m = f32[64] reduce(a, ninf), dimensions={1}, to_apply=maxf32\n"
            "  ROOT r = f32[64] fusion(a, m), kind=kInput, calls=f\n}\n",
            0, 1e-5, false);
  check_mod(__LINE__,
            "HloModule m\n" ADDF(f64)
            "f {\n  p0 = f64[300,70] parameter(0)\n  i = f64[] parameter(1)\n"
            "  x = f64[300,70] multiply(p0, p0)\n"
            "  ROOT r = f64[70] reduce(x, i), dimensions={0}, to_apply=addf64\n}\n"
            "ENTRY e {\n  a = f64[300,70] parameter(0)\n  i = f64[] parameter(1)\n"
            "  ROOT r = f64[70] fusion(a, i), kind=kInput, calls=f\n}\n",
            0, 1e-13, false);
}

/* Ill-conditioned sums: large terms that cancel plus small integers.  f32
 * sums must be exact (all partial sums are integers below 2^53); f64 sums
 * within the pairwise bound 2 log2(n) eps sum|x| of a long double sum. */
static void test_ill_conditioned(void) {
  const char *t32 = "HloModule m\n" ADDF(f32)
                    "ENTRY e {\n  a = f32[100001] parameter(0)\n  z = f32[] constant(0)\n"
                    "  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=addf32\n}\n";
  hlo_shape sh = {0};
  int64_t dims1[1];
  sh.dims = dims1;
  sh.type = HLO_F32;
  sh.rank = 1;
  sh.dims[0] = 100001;
  hlo_val *a = hlo_val_new(NULL, &sh);
  int64_t exact = 0;
  for (int64_t i = 0; i < 100001; i++) {
    int64_t v = (i < 50000 ? 16000000 : -16000000) + (i % 3) - 1 + (i % 7 == 0 ? 3 : 0);
    if (i == 100000) v = 5;
    ((float *)a->data)[i] = (float)v;
    exact += v;
  }
  bool planned = false;
  hlo_module *m1 = NULL, *m2 = NULL;
  hlo_val *fr = run_mod(t32, true, &a, 1, &planned, &m1);
  hlo_val *rr = run_mod(t32, false, &a, 1, &planned, &m2);
  CHECK(fr && planned);
  if (fr) CHECK(((float *)fr->data)[0] == (float)exact);
  if (fr && rr && ((float *)rr->data)[0] != (float)exact)
    printf("  (note: the reference sum gives %.9g, exact %lld)\n",
           ((float *)rr->data)[0], (long long)exact);
  hlo_val_release(NULL, fr);
  hlo_val_release(NULL, rr);
  hlo_val_release(NULL, a);
  hlo_module_free(m1);
  hlo_module_free(m2);

  const char *t64 = "HloModule m\n" ADDF(f64)
                    "ENTRY e {\n  a = f64[1000003] parameter(0)\n  z = f64[] constant(0)\n"
                    "  ROOT r = f64[] reduce(a, z), dimensions={0}, to_apply=addf64\n}\n";
  sh.type = HLO_F64;
  sh.dims[0] = 1000003;
  a = hlo_val_new(NULL, &sh);
  long double ex = 0, comp = 0, absum = 0;
  uint64_t st = 12345;
  for (int64_t i = 0; i < sh.dims[0]; i++) {
    st ^= st << 13; st ^= st >> 7; st ^= st << 17;
    double v = ((double)(st >> 11) / 9007199254740992.0 - 0.5) * (i % 5 == 0 ? 1e10 : 1.0);
    ((double *)a->data)[i] = v;
    long double y = (long double)v - comp, t = ex + y;
    comp = (t - ex) - y;
    ex = t;
    absum += fabsl((long double)v);
  }
  fr = run_mod(t64, true, &a, 1, &planned, &m1);
  CHECK(fr != NULL);
  if (fr) {
    double got = ((double *)fr->data)[0];
    double bound = 2 * 20 * 2.220446049250313e-16 * (double)absum;
    if (fabs(got - (double)ex) > bound) {
      t_fail++;
      printf("fast_test: f64 ill-conditioned sum %.17g, exact %.17Lg, bound %.3g\n", got, ex,
             bound);
    } else {
      t_pass++;
    }
  }
  hlo_val_release(NULL, fr);
  hlo_val_release(NULL, a);
  hlo_module_free(m1);
}

static void conv_case(int line, const char *it, const char *kt, const char *ot, const char *attrs,
                      double rel) {
  char text[1024];
  snprintf(text, sizeof text,
           "HloModule m\nENTRY e {\n  a = %s parameter(0)\n  k = %s parameter(1)\n"
           "  ROOT c = %s convolution(a, k), %s\n}\n", it, kt, ot, attrs);
  check_mod(line, text, 0, rel, false);
}

static void test_convs(void) {
  conv_case(__LINE__, "f32[2,9,9,5]", "f32[3,3,5,7]", "f32[2,9,9,7]",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f", 1e-5);
  conv_case(__LINE__, "f32[2,5,11,10]", "f32[7,5,3,2]", "f32[2,7,5,4]",
            "window={size=3x2 stride=2x2 pad=0_1x0_0 rhs_dilate=1x2}, dim_labels=bf01_oi01->bf01", 1e-5);
  conv_case(__LINE__, "f32[2,6,6,3]", "f32[3,3,3,4]", "f32[2,11,11,4]",
            "window={size=3x3 pad=1_1x1_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f", 1e-5);
  conv_case(__LINE__, "f64[3,20,4]", "f64[5,4,6]", "f64[3,6,16]",
            "window={size=5}, dim_labels=b0f_0io->bf0", 1e-13);
  conv_case(__LINE__, "f32[1200,4,4,2]", "f32[2,2,2,3]", "f32[1200,3,3,3]",
            "window={size=2x2}, dim_labels=b01f_01io->b01f", 1e-5);
  /* 1x1 in NCHW: one gemm per batch element on the operands in place (both
   * kernel orientations), and full-window weight gradients (sum of gemms;
   * output feature- or batch-minor) */
  conv_case(__LINE__, "f32[3,5,6,7]", "f32[4,5,1,1]", "f32[3,4,6,7]",
            "window={size=1x1}, dim_labels=bf01_oi01->bf01", 1e-5);
  conv_case(__LINE__, "f32[3,5,6,7]", "f32[1,1,4,5]", "f32[3,4,6,7]",
            "window={size=1x1}, dim_labels=bf01_01oi->bf01", 1e-5);
  conv_case(__LINE__, "f64[3,5,6,7]", "f64[5,1,4,1]", "f64[3,4,6,7]",
            "window={size=1x1}, dim_labels=bf01_i0o1->bf01", 1e-13);
  conv_case(__LINE__, "f32[6,4,5,7]", "f32[6,3,5,7]", "f32[1,1,4,3]",
            "window={size=5x7}, dim_labels=fb01_io01->01bf", 1e-5);
  conv_case(__LINE__, "f32[6,4,5,7]", "f32[6,3,5,7]", "f32[3,4,1,1]",
            "window={size=5x7}, dim_labels=fb01_io01->fb01", 1e-5);
  conv_case(__LINE__, "f64[4,6,9]", "f64[6,2,9]", "f64[1,4,2]",
            "window={size=9}, dim_labels=bf0_io0->0bf", 1e-13);
  /* ungrouped, taken by the direct kernel of fast_gconv.c: 3 input features
   * in NCHW with stride 2, and a dilated weight gradient (window wider than
   * the output) */
  conv_case(__LINE__, "f32[2,3,12,13]", "f32[5,3,3,3]", "f32[2,5,6,7]",
            "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01", 1e-5);
  conv_case(__LINE__, "f32[4,3,12,12]", "f32[4,5,6,6]", "f32[3,3,3,5]",
            "window={size=6x6 pad=1_0x1_0 rhs_dilate=2x2}, dim_labels=fb01_io01->01bf", 1e-5);
}

/* Grouped and depthwise convolutions (direct kernel of fast_gconv.c). */
static void gconv_case(int line, const char *it, const char *kt, const char *ot, const char *attrs,
                       double rel, bool edges) {
  char text[1024];
  snprintf(text, sizeof text,
           "HloModule m\nENTRY e {\n  a = %s parameter(0)\n  k = %s parameter(1)\n"
           "  ROOT c = %s convolution(a, k), %s\n}\n", it, kt, ot, attrs);
  check_mod(line, text, 0, rel, edges);
}

static void test_gconvs(void) {
  /* depthwise NCHW, forward (mobilenet_v2 shapes, small) */
  gconv_case(__LINE__, "f32[2,6,9,9]", "f32[6,1,3,3]", "f32[2,6,9,9]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=6",
             1e-5, false);
  /* no padding: edge values (NaN, inf, signed zeros, subnormals) as the reference */
  gconv_case(__LINE__, "f32[2,6,9,9]", "f32[6,1,3,3]", "f32[2,6,7,7]",
             "window={size=3x3}, dim_labels=bf01_oi01->bf01, feature_group_count=6", 1e-5, true);
  gconv_case(__LINE__, "f32[2,4,9,10]", "f32[4,1,3,3]", "f32[2,4,5,5]",
             "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, "
             "feature_group_count=4", 1e-5, false);
  /* backward input of a stride-2 depthwise conv: lhs dilation, uneven padding */
  gconv_case(__LINE__, "f32[2,3,4,5]", "f32[3,3,3,1]", "f32[2,3,8,10]",
             "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=bf01_01oi->bf01, "
             "feature_group_count=3", 1e-5, false);
  /* NHWC, channel multiplier 2 */
  gconv_case(__LINE__, "f32[2,7,7,3]", "f32[3,3,1,6]", "f32[2,7,7,6]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=3",
             1e-5, false);
  /* two groups of two features, negative padding */
  gconv_case(__LINE__, "f32[1,8,8,4]", "f32[3,3,2,6]", "f32[1,6,5,6]",
             "window={size=3x3 pad=-1_1x0_-1}, dim_labels=b01f_01io->b01f, feature_group_count=2",
             1e-5, false);
  /* rhs dilation with stride, uneven padding */
  gconv_case(__LINE__, "f32[2,4,11,12]", "f32[4,1,2,3]", "f32[2,4,5,10]",
             "window={size=2x3 stride=2x1 pad=0_1x1_1 rhs_dilate=2x2}, dim_labels=bf01_oi01->bf01, "
             "feature_group_count=4", 1e-5, false);
  /* lhs and rhs dilation and stride together, stride 3 */
  gconv_case(__LINE__, "f32[1,2,5,6]", "f32[2,1,2,2]", "f32[1,2,3,4]",
             "window={size=2x2 stride=3x3 pad=1_0x2_0 lhs_dilate=2x2 rhs_dilate=1x2}, "
             "dim_labels=bf01_oi01->bf01, feature_group_count=2", 1e-5, false);
  /* window reversal */
  gconv_case(__LINE__, "f32[2,3,6,5]", "f32[3,1,3,2]", "f32[2,3,6,6]",
             "window={size=3x2 pad=1_1x1_1 rhs_reversal=1x1}, dim_labels=bf01_oi01->bf01, "
             "feature_group_count=3", 1e-5, false);
  /* weight gradients: batch groups, window wider than the output */
  gconv_case(__LINE__, "f32[4,3,6,6]", "f32[4,3,6,6]", "f32[3,3,1,3]",
             "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=3",
             1e-5, false);
  gconv_case(__LINE__, "f32[4,3,8,8]", "f32[4,3,4,4]", "f32[3,3,1,3]",
             "window={size=4x4 pad=1_0x1_0 rhs_dilate=2x2}, dim_labels=fb01_io01->01bf, "
             "batch_group_count=3", 1e-5, false);
  /* wide windows: blocks of 8 window columns plus a tail, with dilation */
  gconv_case(__LINE__, "f32[3,2,12,20]", "f32[3,2,10,18]", "f32[3,3,1,2]",
             "window={size=10x18}, dim_labels=fb01_io01->01bf, batch_group_count=2", 1e-5, true);
  gconv_case(__LINE__, "f32[3,2,12,20]", "f32[3,2,5,9]", "f32[5,5,1,2]",
             "window={size=5x9 pad=1_0x1_0 rhs_dilate=2x2}, dim_labels=fb01_io01->01bf, "
             "batch_group_count=2", 1e-5, false);
  gconv_case(__LINE__, "f32[3,2,12,21]", "f32[3,2,4,9]", "f32[1,2,1,2]",
             "window={size=4x9 stride=2x3 pad=-1_0x0_0 rhs_dilate=3x2}, dim_labels=fb01_io01->01bf, "
             "batch_group_count=2", 1e-5, false);
  /* batch groups with two output features per group, NHWC */
  gconv_case(__LINE__, "f32[4,5,5,3]", "f32[3,3,3,4]", "f32[2,5,5,4]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, batch_group_count=2",
             1e-5, false);
  /* permuted dim_labels everywhere */
  gconv_case(__LINE__, "f32[5,4,2,6]", "f32[2,3,6,2]", "f32[6,6,4,2]",
             "window={size=2x3 pad=0_1x1_0}, dim_labels=1fb0_i1o0->0f1b, feature_group_count=2",
             1e-5, false);
  /* f64, one spatial dim; none */
  gconv_case(__LINE__, "f64[3,20,4]", "f64[5,2,6]", "f64[3,6,16]",
             "window={size=5}, dim_labels=b0f_0io->bf0, feature_group_count=2", 1e-13, false);
  gconv_case(__LINE__, "f64[5,4]", "f64[2,6]", "f64[5,6]",
             "dim_labels=bf_io->bf, feature_group_count=2", 1e-13, true);
  /* f16 / bf16 through f32, rounded once (compared after a convert to f32,
   * within one unit of the narrow type) */
  for (int bf = 0; bf < 2; bf++) {
    char text[1024];
    const char *T = bf ? "bf16" : "f16";
    snprintf(text, sizeof text,
             "HloModule m\nENTRY e {\n  a = %s[2,4,7,8] parameter(0)\n  k = %s[4,1,3,3] parameter(1)\n"
             "  c = %s[2,4,4,8] convolution(a, k), window={size=3x3 stride=2x1 pad=1_1x1_1},"
             " dim_labels=bf01_oi01->bf01, feature_group_count=4\n"
             "  ROOT r = f32[2,4,4,8] convert(c)\n}\n", T, T, T);
    check_mod(__LINE__, text, 0, bf ? 1.6e-2 : 2e-3, false);
  }
  gconv_case(__LINE__, "f64[2,3,6,6]", "f64[3,1,3,3]", "f64[2,3,3,3]",
             "window={size=3x3 stride=2x2 pad=1_0x1_0}, dim_labels=bf01_oi01->bf01, "
             "feature_group_count=3", 1e-13, false);
}

/* Dot epilogue fusions: against the reference (to BLAS rounding), and bit
 * for bit against the same dot and elementwise ops run unfused on the fast
 * path; the fusion must take hlo_fast_dotfuse. */
static void dotfuse_case(int line, const char *T, const char *params, const char *body,
                         const char *ret) {
  char fused[2048], plain[2048];
  snprintf(fused, sizeof fused,
           "HloModule m\nf {\n%s%s}\nENTRY e {\n%s  ROOT r = %s fusion(%s), kind=kOutput, calls=f\n}\n",
           params, body, params, ret, "a, b, c");
  snprintf(plain, sizeof plain, "HloModule m\nENTRY e {\n%s%s}\n", params, body);
  (void)T;
  hlo_src src = {"test", fused, strlen(fused)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  hlo_exec_options o = {0};
  hlo_exec *e = m ? hlo_exec_new(m, &o, NULL, &d) : NULL;
  bool chosen = false;
  if (e)
    for (int c = 0; c < m->ncomps; c++) {
      plan_comp *pc = e->plans[c];
      for (int k = 0; pc && k < pc->nsteps; k++)
        if (pc->steps[k].in->op == HLO_OP_FUSION && hlo_plan_fast(e, &pc->steps[k]) &&
            pc->steps[k].fn == hlo_fast_dotfuse)
          chosen = true;
    }
  hlo_val *args[3];
  int na = m ? m->entry->nparams : 0;
  for (int i = 0; i < na; i++) {
    args[i] = hlo_val_new(NULL, &m->entry->params[i]->shape);
    hlo_val_randomize(args[i], 5 + (uint64_t)i);
  }
  bool planned = false;
  hlo_module *m1 = NULL, *m2 = NULL, *m3 = NULL; /* results' shapes live in them */
  hlo_val *ref = m ? run_mod(fused, false, args, na, &planned, &m1) : NULL;
  hlo_val *fa = m ? run_mod(fused, true, args, na, &planned, &m2) : NULL;
  hlo_val *fb = m ? run_mod(plain, true, args, na, &planned, &m3) : NULL;
  char why[256] = "", why2[256] = "";
  bool close = ref && fa && same_val(ref, fa, 0, 1e-5, why, sizeof why);
  bool exact = fa && fb && same_val(fb, fa, 0, 0, why2, sizeof why2);
  if (!chosen || !close || !exact) {
    t_fail++;
    printf("fast_test.c:%d: %s%s %s\n", line, chosen ? "" : "dot fusion not chosen; ", why, why2);
  } else {
    t_pass++;
  }
  hlo_val_release(NULL, ref);
  hlo_val_release(NULL, fa);
  hlo_val_release(NULL, fb);
  for (int i = 0; i < na; i++) hlo_val_release(NULL, args[i]);
  hlo_exec_free(e);
  hlo_module_free(m1);
  hlo_module_free(m2);
  hlo_module_free(m3);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

static void test_dotfuse(void) {
  /* bias + relu, three row tiles (256, 256, 88 rows) */
  dotfuse_case(__LINE__, "f32",
               "  a = f32[600,8] parameter(0)\n  b = f32[8,8192] parameter(1)\n"
               "  c = f32[8192] parameter(2)\n",
               "  d = f32[600,8192] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
               "  bc = f32[600,8192] broadcast(c), dimensions={1}\n"
               "  s = f32[600,8192] add(d, bc)\n  z = f32[] constant(0)\n"
               "  zb = f32[600,8192] broadcast(z), dimensions={}\n"
               "  ROOT r = f32[600,8192] maximum(s, zb)\n",
               "f32[600,8192]");
  /* transposed lhs, tanh of dot + row bias, tiles of 192, 192, 136 rows */
  dotfuse_case(__LINE__, "f32",
               "  a = f32[9,520] parameter(0)\n  b = f32[9,4500] parameter(1)\n"
               "  c = f32[520] parameter(2)\n",
               "  d = f32[520,4500] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n"
               "  bc = f32[520,4500] broadcast(c), dimensions={0}\n"
               "  s = f32[520,4500] add(d, bc)\n  ROOT r = f32[520,4500] tanh(s)\n",
               "f32[520,4500]");
  /* batched, packed lhs (batch dim not leading), logistic */
  dotfuse_case(__LINE__, "f32",
               "  a = f32[20,3,40] parameter(0)\n  b = f32[3,20,900] parameter(1)\n"
               "  c = f32[3,40,900] parameter(2)\n",
               "  d = f32[3,40,900] dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={0},"
               " rhs_batch_dims={0}, rhs_contracting_dims={1}\n"
               "  s = f32[3,40,900] subtract(c, d)\n  ROOT r = f32[3,40,900] logistic(s)\n",
               "f32[3,40,900]");
  /* f64, relu as select(compare), the dot used twice; tiles of 192, 108 rows */
  dotfuse_case(__LINE__, "f64",
               "  a = f64[300,6] parameter(0)\n  b = f64[6,3000] parameter(1)\n"
               "  c = f64[] parameter(2)\n",
               "  d = f64[300,3000] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
               "  cb = f64[300,3000] broadcast(c), dimensions={}\n"
               "  g = pred[300,3000] compare(d, cb), direction=GT\n"
               "  m = f64[300,3000] multiply(d, d)\n"
               "  ROOT r = f64[300,3000] select(g, d, m)\n",
               "f64[300,3000]");
}

static void test_moves(void) {
  static const char *sorts[] = {"f32", "f64", "s32", "s64", "u32"};
  for (int i = 0; i < 5; i++) {
    char text[1024];
    for (int desc = 0; desc < 2; desc++)
      for (int dim = 0; dim < 2; dim++) {
        snprintf(text, sizeof text,
                 "HloModule m\ncmp {\n  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n"
                 "  ROOT l = pred[] compare(x, y), direction=%s\n}\n"
                 "ENTRY e {\n  a = %s[37,300] parameter(0)\n"
                 "  ROOT s = %s[37,300] sort(a), dimensions={%d}, is_stable=true, to_apply=cmp\n}\n",
                 sorts[i], sorts[i], desc ? "GT" : "LT", sorts[i], sorts[i], dim);
        check_mod(__LINE__, text, 0, 0, desc == 0); /* edges: +-0 ties, inf; NaN rows fall back */
      }
  }
  check_mod(__LINE__,
            "HloModule m\nENTRY e {\n  a = f32[50,7,3] parameter(0)\n  i = s32[4,5,1] parameter(1)\n"
            "  ROOT g = f32[4,5,7,3] gather(a, i), offset_dims={2,3}, collapsed_slice_dims={0},"
            " start_index_map={0}, index_vector_dim=2, slice_sizes={1,7,3}\n}\n",
            0, 0, true);
  check_mod(__LINE__,
            "HloModule m\nENTRY e {\n  a = s64[5,4] parameter(0)\n  i = s64[30] parameter(1)\n"
            "  ROOT g = s64[30,4] gather(a, i), offset_dims={1}, collapsed_slice_dims={0},"
            " start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}\n}\n",
            0, 0, false);
}

int main(void) {
  /* the level HLO_ISA selects: the test runner runs this program once per
   * level the build and the CPU have, so every level is checked */
  const hlo_fv_isa *isa = hlo_fv_from_env();
  check_isa(isa);
  check_tanh_sweep(isa);
  check_minmax(isa);
  check_conv16(isa);
  test_loops();
  test_narrow_loops();
  test_int_loops();
  test_dots();
  test_convs();
  test_gconvs();
  test_dotfuse();
  test_moves();
  test_reduces();
  test_ill_conditioned();
  TEST_MAIN_END("fast");
}
