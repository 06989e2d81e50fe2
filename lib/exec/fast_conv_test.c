/* fast_conv_test.c - the im2col/gemm convolution kernel (fast_conv.c) on
 * f16/bf16 (widened, f32 gemm, rounded once) and on grouped convolutions
 * with 3 spatial dims, against the reference (double sums, rounded once).
 * Results are not bit-identical (f32 accumulation); each element must lie
 * within the bound docs/fast.md states: 2 ulp of the result type plus
 * K * 2^-23 * sum |x * w| (K = products per output), with the sum of
 * absolute products computed by the reference on |x| and |w| in f64; with
 * non-negative operands (no cancellation) within 1 ulp. */
static const char *dt_name = "fast_conv_test.c";
#include <math.h>

#include "exec/difftest.h"
#include "hlo/hlo_fp.h"

static hlo_module *parse(const char *text) {
  hlo_src src = {"test", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  if (!m) printf("fast_conv_test.c: parse failed: %s\n", d.n ? d.v[0].msg : "");
  hlo_diags_release(&d);
  return m;
}

/* Units in the last place of type t at |v| (the gap above |v|). */
static double ulp_at(hlo_type t, double v) {
  if (t == HLO_F64) return fabs(nextafter(fabs(v), INFINITY) - fabs(v));
  if (t == HLO_F32) return fabs(nextafterf((float)fabs(v), INFINITY) - (float)fabs(v));
  uint64_t b = hlo_fp_from_double(t, fabs(v));
  return hlo_fp_to_double(t, b + 1) - hlo_fp_to_double(t, b);
}

/* One convolution: T operands, attrs, K products per output element. */
static void conv_case(int line, const char *T, const char *is, const char *ks, const char *os,
                      const char *attrs, const char *want, int64_t K, bool nonneg) {
  char text[1024], btext[1536];
  snprintf(text, sizeof text,
           "HloModule m\nENTRY e {\n  a = %s[%s] parameter(0)\n  k = %s[%s] parameter(1)\n"
           "  ROOT c = %s[%s] convolution(a, k), %s\n}\n", T, is, T, ks, T, os, attrs);
  snprintf(btext, sizeof btext,
           "HloModule m\nENTRY e {\n  a = %s[%s] parameter(0)\n  k = %s[%s] parameter(1)\n"
           "  aa = %s[%s] abs(a)\n  ka = %s[%s] abs(k)\n  af = f64[%s] convert(aa)\n"
           "  kf = f64[%s] convert(ka)\n"
           "  ROOT c = f64[%s] convolution(af, kf), %s\n}\n",
           T, is, T, ks, T, is, T, ks, is, ks, os, attrs);
  hlo_module *m = parse(text), *mb = parse(btext);
  if (!m || !mb) {
    t_fail++;
    hlo_module_free(m);
    hlo_module_free(mb);
    return;
  }
  hlo_val *args[2];
  for (int i = 0; i < 2; i++) {
    args[i] = hlo_val_new(NULL, &m->entry->params[i]->shape);
    hlo_val_randomize(args[i], 5 + (uint64_t)i + (uint64_t)line * 7);
    hlo_type t = args[i]->shape->type;
    if (nonneg)
      for (int64_t j = 0; j < args[i]->nelems; j++) {
        if (t == HLO_F32) ((float *)args[i]->data)[j] = fabsf(((float *)args[i]->data)[j]);
        else if (t == HLO_F64) ((double *)args[i]->data)[j] = fabs(((double *)args[i]->data)[j]);
        else ((uint16_t *)args[i]->data)[j] &= 0x7fff;
      }
  }
  char kname[128] = "";
  hlo_val *ref = run_mod(m, false, args, 2, NULL, 0, 0);
  hlo_val *fast = run_mod(m, true, args, 2, kname, sizeof kname, 0);
  hlo_val *bnd = run_mod(mb, false, args, 2, NULL, 0, 0);
  char why[256] = "";
  bool ok = ref && fast && bnd && strstr(kname, want);
  if (!ok && ref && fast && bnd) snprintf(why, sizeof why, "expected fast kernel not chosen");
  hlo_type t = ref ? ref->shape->type : HLO_F32;
  double unit = t == HLO_F64 ? ldexp(1, -52) : ldexp(1, -23);
  int64_t worst = -1;
  double worst_r = 0;
  for (int64_t i = 0; ok && i < ref->nelems; i++) {
    double x = hlo_val_get_f64(ref, i), y = hlo_val_get_f64(fast, i);
    double b = ((const double *)bnd->data)[i];
    double tol = (nonneg ? 1 : 2) * ulp_at(t, x) + (nonneg ? 0 : (double)K * unit * b);
    bool same = (isnan(x) && isnan(y)) || x == y;
    if (!same && !(fabs(x - y) <= tol)) {
      ok = false;
      snprintf(why, sizeof why, "element %lld: reference %.9g fast %.9g bound %.3g",
               (long long)i, x, y, tol);
    }
    if (!same && tol > 0 && fabs(x - y) / tol > worst_r) {
      worst_r = fabs(x - y) / tol;
      worst = i;
    }
  }
  (void)worst;
  if (!ok) {
    t_fail++;
    printf("fast_conv_test.c:%d: %s (kernel %s)\n", line, why, kname);
  } else {
    t_pass++;
  }
  hlo_val_release(NULL, ref);
  hlo_val_release(NULL, fast);
  hlo_val_release(NULL, bnd);
  for (int i = 0; i < 2; i++) hlo_val_release(NULL, args[i]);
  hlo_module_free(m);
  hlo_module_free(mb);
}

static void test_half(void) {
  static const char *types[] = {"f16", "bf16"};
  for (int i = 0; i < 2; i++)
    for (int nn = 0; nn < 2; nn++) {
      const char *T = types[i];
      /* NHWC 3x3 padded (im2col, output written directly) */
      conv_case(__LINE__, T, "2,9,9,5", "3,3,5,7", "2,9,9,7",
                "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
                "(im2col+gemm)", 45, nn);
      /* NCHW, stride, rhs dilation (output scattered) */
      conv_case(__LINE__, T, "2,5,11,10", "7,5,3,2", "2,7,5,4",
                "window={size=3x2 stride=2x2 pad=0_1x0_0 rhs_dilate=1x2}, dim_labels=bf01_oi01->bf01",
                "(im2col+gemm)", 30, nn);
      /* lhs dilation */
      conv_case(__LINE__, T, "2,6,6,8", "3,3,8,4", "2,11,11,4",
                "window={size=3x3 pad=1_1x1_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f",
                "(im2col+gemm)", 72, nn);
      /* 1x1 NCHW gemm in place; full-window weight gradient */
      conv_case(__LINE__, T, "3,5,6,7", "4,5,1,1", "3,4,6,7",
                "window={size=1x1}, dim_labels=bf01_oi01->bf01", "(1x1 gemm)", 5, nn);
      conv_case(__LINE__, T, "6,4,5,7", "6,3,5,7", "1,1,4,3",
                "window={size=5x7}, dim_labels=fb01_io01->01bf", "(full-window gemm)", 210, nn);
      /* 3 spatial dims; a long sum (K = 3*3*3*40) */
      conv_case(__LINE__, T, "2,5,6,7,40", "3,3,3,40,6", "2,5,6,7,6",
                "window={size=3x3x3 pad=1_1x1_1x1_1}, dim_labels=b012f_012io->b012f",
                "(im2col+gemm)", 1080, nn);
      /* NCHW image layer with few input features: the direct kernel */
      conv_case(__LINE__, T, "2,3,12,13", "5,3,3,3", "2,5,6,7",
                "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01",
                "hlo_fast_gconv", 27, nn);
    }
  /* values that overflow f16 in the sum (65504-scale products) stay inf */
}

static void test_grouped3d(void) {
  static const char *types[] = {"f32", "f64", "f16", "bf16"};
  for (int i = 0; i < 4; i++) {
    const char *T = types[i];
    /* direct kernel (fast_gconv.c) with a depth dim: depthwise NCDHW */
    conv_case(__LINE__, T, "2,6,5,6,7", "6,1,3,3,3", "2,6,5,6,7",
              "window={size=3x3x3 pad=1_1x1_1x1_1}, dim_labels=bf012_oi012->bf012, "
              "feature_group_count=6", "hlo_fast_gconv", 27, false);
    /* two groups, channel multiplier 3, NDHWC, strides and dilation */
    conv_case(__LINE__, T, "1,7,8,9,4", "3,2,2,2,6", "1,3,4,8,6",
              "window={size=3x2x2 stride=2x2x1 pad=0_1x0_1x0_0 rhs_dilate=1x2x1}, "
              "dim_labels=b012f_012io->b012f, feature_group_count=2", "hlo_fast_gconv", 24, false);
    /* depth: stride 2, rhs dilation 2, negative and uneven padding, reversal */
    conv_case(__LINE__, T, "2,3,11,5,6", "3,1,3,2,3", "2,3,4,5,6",
              "window={size=3x2x3 stride=2x1x1 pad=-1_1x0_1x1_1 rhs_dilate=2x1x1 "
              "rhs_reversal=1x0x1}, dim_labels=bf012_oi012->bf012, feature_group_count=3",
              "hlo_fast_gconv", 18, false);
    /* depth lhs dilation (an input gradient) */
    conv_case(__LINE__, T, "1,4,4,5,5", "4,1,3,3,3", "1,4,7,5,5",
              "window={size=3x3x3 pad=1_1x1_1x1_1 lhs_dilate=2x1x1}, "
              "dim_labels=bf012_oi012->bf012, feature_group_count=4", "hlo_fast_gconv", 27, false);
    /* batch groups (a depthwise weight gradient), lhs dilation, window
     * wider than the output */
    conv_case(__LINE__, T, "4,3,4,5,6", "4,3,3,3,3", "1,3,2,3,9",
              "window={size=3x3x3 pad=0_0x0_0x0_0 lhs_dilate=1x1x2}, "
              "dim_labels=fb012_io012->bf012, batch_group_count=3", "hlo_fast_gconv", 108, false);
    conv_case(__LINE__, T, "3,2,5,6,7", "3,2,5,6,7", "1,1,1,1,2",
              "window={size=5x6x7}, dim_labels=fb012_io012->012bf, batch_group_count=2",
              "hlo_fast_gconv", 630, false);
    /* ungrouped 3-D, taken by the direct kernel: an NCDHW layer with 3
     * input features (stride 2), and a weight gradient whose window is
     * wider than the output */
    conv_case(__LINE__, T, "2,3,8,10,10", "4,3,3,3,3", "2,4,4,5,5",
              "window={size=3x3x3 stride=2x2x2 pad=1_1x1_1x1_1}, dim_labels=bf012_oi012->bf012",
              "hlo_fast_gconv", 81, false);
    conv_case(__LINE__, T, "4,2,6,7,8", "4,3,5,6,7", "4,4,4,2,3",
              "window={size=5x6x7 pad=1_1x1_1x1_1}, dim_labels=fb012_io012->012bf",
              "hlo_fast_gconv", 840, false);
    /* 3-D groups of 32 input features: one im2col + gemm per group */
    conv_case(__LINE__, T, "1,4,5,6,64", "3,3,3,32,8", "1,2,3,4,8",
              "window={size=3x3x3}, dim_labels=b012f_012io->b012f, feature_group_count=2",
              "(grouped im2col+gemm)", 864, false);
    conv_case(__LINE__, T, "2,32,4,5,6", "6,32,2,2,2", "1,6,3,4,5",
              "window={size=2x2x2}, dim_labels=bf012_oi012->bf012, batch_group_count=2",
              "(grouped im2col+gemm)", 256, false);
  }
}

/* Depthwise 2-D convolutions (one output feature per group): the
 * channel-blocked path of fast_gconv.c, with channel counts that leave a
 * partial block, in the three forms of a training step. */
static void test_depthwise(void) {
  static const char *types[] = {"f32", "f16", "bf16"};
  for (int i = 0; i < 3; i++) {
    const char *T = types[i];
    /* forward, stride 2 */
    conv_case(__LINE__, T, "2,20,9,11", "20,1,3,3", "2,20,5,6",
              "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, "
              "feature_group_count=20", "(depthwise)", 9, false);
    /* input gradient of a stride-2 layer: lhs dilation, reversed window */
    conv_case(__LINE__, T, "2,20,5,6", "3,3,20,1", "2,20,10,12",
              "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x1}, "
              "dim_labels=bf01_01oi->bf01, feature_group_count=20", "(depthwise)", 9, false);
    /* weight gradient: batch groups, window wider than the output, rhs dilation */
    conv_case(__LINE__, T, "3,20,9,11", "3,20,5,6", "3,3,1,20",
              "window={size=5x6 pad=1_1x1_1 rhs_dilate=2x2}, dim_labels=fb01_io01->01bf, "
              "batch_group_count=20", "(depthwise)", 90, false);
    /* NHWC, uneven and negative padding, rhs dilation */
    conv_case(__LINE__, T, "2,7,8,17", "3,3,1,17", "2,6,5,17",
              "window={size=3x3 pad=0_1x2_-1 rhs_dilate=1x2}, dim_labels=b01f_01io->b01f, "
              "feature_group_count=17", "(depthwise)", 9, false);
    /* one spatial dim */
    conv_case(__LINE__, T, "3,5,40", "5,1,7", "3,5,34",
              "window={size=7}, dim_labels=bf0_oi0->bf0, feature_group_count=5", "(depthwise)", 7,
              false);
  }
}

/* Run m's fast path capped at ISA level l. */
static hlo_val *run_level(hlo_module *m, hlo_val **args, hlo_isa l) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_exec_options o = {0};
  o.isa = l;
  hlo_exec *e = hlo_exec_new(m, &o, NULL, &d);
  hlo_val *res = NULL;
  if (!e || hlo_exec_run(e, args, 2, &res)) res = NULL;
  hlo_exec_free(e);
  hlo_diags_release(&d);
  return res;
}

/* An f32 convolution on kernel `want` within the reference's bound
 * (conv_case, K products per output), and the same bits at every ISA level
 * this CPU runs (each level sums in one order; the depthwise channel blocks
 * are moved in and out by each level's transposes). */
static void levels_case(int line, const char *is, const char *ks, const char *os, const char *attrs,
                        const char *want, int64_t K) {
  conv_case(line, "f32", is, ks, os, attrs, want, K, false);
  char text[1024];
  snprintf(text, sizeof text,
           "HloModule m\nENTRY e {\n  a = f32[%s] parameter(0)\n  k = f32[%s] parameter(1)\n"
           "  ROOT c = f32[%s] convolution(a, k), %s\n}\n", is, ks, os, attrs);
  hlo_module *m = parse(text);
  if (!m) {
    t_fail++;
    return;
  }
  hlo_val *args[2], *first = NULL;
  for (int i = 0; i < 2; i++) {
    args[i] = hlo_val_new(NULL, &m->entry->params[i]->shape);
    hlo_val_randomize(args[i], 11 + (uint64_t)i + (uint64_t)line * 3);
  }
  for (hlo_isa l = HLO_ISA_BASELINE; l <= HLO_ISA_MAX; l++) {
    if (!hlo_isa_available(l, NULL)) continue;
    hlo_val *v = run_level(m, args, l);
    char why[256] = "run failed";
    if (v && (!first || same_bits(first, v, why, sizeof why))) t_pass++;
    else {
      t_fail++;
      printf("fast_conv_test.c:%d: at %s: %s\n", line, hlo_isa_name(l), why);
    }
    if (!first) first = v;
    else hlo_val_release(NULL, v);
  }
  hlo_val_release(NULL, first);
  for (int i = 0; i < 2; i++) hlo_val_release(NULL, args[i]);
  hlo_module_free(m);
}

static void dw_levels(int line, const char *is, const char *ks, const char *os, const char *attrs) {
  levels_case(line, is, ks, os, attrs, "(depthwise)", 9);
}

/* The direct kernel's several-features path (gc_multi): groups of 6 and 3
 * output features (a partial block of 4), rows of 16 columns and more plus
 * a remainder, unit and other strides, dilations and window reversal, an
 * ungrouped image layer of 3 input features, stride 2, and windows wider
 * than the output. */
static void test_multi_levels(void) {
  levels_case(__LINE__, "2,6,20,37", "12,3,3,3", "2,12,20,37",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=2",
              "hlo_fast_gconv(direct)", 27);
  levels_case(__LINE__, "2,4,21,40", "6,2,3,3", "2,6,11,20",
              "window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_reversal=1x1}, "
              "dim_labels=bf01_oi01->bf01, feature_group_count=2", "hlo_fast_gconv(direct)", 18);
  levels_case(__LINE__, "1,9,10,4", "3,3,2,6", "1,6,18,6",
              "window={size=3x3 stride=1x3 pad=1_2x1_1 lhs_dilate=2x2 rhs_dilate=1x2}, "
              "dim_labels=b01f_01io->bf01, feature_group_count=2", "hlo_fast_gconv(direct)", 18);
  /* few output features: an image layer's input gradient (lhs dilation,
   * a partial block of 3) takes the direct kernel, not a thin gemm */
  levels_case(__LINE__, "2,8,10,12", "3,3,3,8", "2,3,20,24",
              "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=bf01_01oi->bf01",
              "hlo_fast_gconv(direct)", 72);
  /* windows wider than the output: an image layer's weight gradient
   * (weights in place) and a reversed grouped one (weights packed) */
  levels_case(__LINE__, "6,3,24,26", "6,8,12,13", "3,3,3,8",
              "window={size=12x13 pad=1_0x1_0 rhs_dilate=2x2}, dim_labels=fb01_io01->01bf",
              "hlo_fast_gconv(direct)", 936);
  levels_case(__LINE__, "2,8,10,11", "6,4,9,10", "2,6,2,2",
              "window={size=9x10 rhs_reversal=1x1}, dim_labels=bf01_oi01->bf01, "
              "feature_group_count=2", "hlo_fast_gconv(direct)", 360);
  levels_case(__LINE__, "2,3,48,50", "8,3,3,3", "2,8,24,25",
              "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01",
              "hlo_fast_gconv(direct)", 27);
}

/* Depthwise NCHW planes wide enough for whole 16x16 transposes plus edges,
 * channels in whole and partial blocks, and lhs dilation (whose holes the
 * kernel skips) with strides and rhs dilation; small planes (batch-major
 * order, whole-plane transposes) and large ones (channel-block order). */
static void test_depthwise_levels(void) {
  dw_levels(__LINE__, "2,37,23,21", "37,1,3,3", "2,37,23,21",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=37");
  dw_levels(__LINE__, "2,32,17,19", "3,3,32,1", "2,32,34,38",
            "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x1}, "
            "dim_labels=bf01_01oi->bf01, feature_group_count=32");
  dw_levels(__LINE__, "1,16,9,10", "16,1,3,3", "1,16,12,14",
            "window={size=3x3 stride=2x2 pad=2_1x2_1 lhs_dilate=3x3 rhs_dilate=2x2}, "
            "dim_labels=bf01_oi01->bf01, feature_group_count=16");
  /* planes over 64 KB per block (channel-block order), over 4096
   * elements (row by row into lanes), with a partial block and holes */
  dw_levels(__LINE__, "2,20,40,30", "20,1,3,3", "2,20,40,30",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=20");
  dw_levels(__LINE__, "1,17,70,60", "17,1,3,3", "1,17,35,30",
            "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, "
            "feature_group_count=17");
  dw_levels(__LINE__, "1,16,36,35", "3,3,16,1", "1,16,72,70",
            "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=bf01_01oi->bf01, "
            "feature_group_count=16");
  dw_levels(__LINE__, "2,18,20,6", "18,1,3,3", "2,18,39,8",
            "window={size=3x3 pad=1_1x0_1 lhs_dilate=2x2 rhs_dilate=1x2}, "
            "dim_labels=bf01_oi01->bf01, feature_group_count=18");
}

/* Output size of one spatial dim: input n, window k, stride s, padding
 * lo/hi, lhs and rhs dilation; 0 when the window does not fit. */
static int64_t conv_out(int64_t n, int64_t k, int64_t s, int64_t lo, int64_t hi, int64_t ld,
                        int64_t rd) {
  int64_t p = lo + (n > 0 ? (n - 1) * ld + 1 : 0) + hi, e = (k - 1) * rd + 1;
  return p >= e ? (p - e) / s + 1 : 0;
}

static uint64_t rnd_next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* Random 2-D f32 convolutions in the shapes of a training step's layers
 * (depthwise, grouped, ungrouped image layers with few features, batch-
 * grouped weight gradients) with random sizes, strides, padding (negative
 * too), lhs and rhs dilations and reversal, each against the reference
 * within the bound; a fixed seed, so a failure reproduces. */
static void test_random(void) {
  uint64_t x = 0x9e3779b97f4a7c15ULL;
#define R(lo, hi) ((int64_t)(lo) + (int64_t)(rnd_next(&x) % (uint64_t)((hi) - (lo) + 1)))
  int done = 0;
  for (int n = 0; done < 200 && n < 1000; n++) {
    int kind = (int)R(0, 3);
    int64_t B = R(1, 3), IY = R(1, 30), IX = R(1, 30), KY = R(1, 4), KX = R(1, 4);
    int64_t sy = R(1, 3), sx = R(1, 3), ly = R(1, 3), lx = R(1, 3), ry = R(1, 2), rx = R(1, 2);
    int64_t ply = R(-1, 3), phy = R(-1, 3), plx = R(-1, 3), phx = R(-1, 3);
    bool rev = R(0, 2) == 0;
    int64_t OY = conv_out(IY, KY, sy, ply, phy, ly, ry), OX = conv_out(IX, KX, sx, plx, phx, lx, rx);
    if (OY <= 0 || OX <= 0) continue;
    char is[64], ks[64], os[64], attrs[256], win[160];
    snprintf(win, sizeof win,
             "window={size=%lldx%lld stride=%lldx%lld pad=%lld_%lldx%lld_%lld lhs_dilate=%lldx%lld "
             "rhs_dilate=%lldx%lld%s}",
             (long long)KY, (long long)KX, (long long)sy, (long long)sx, (long long)ply,
             (long long)phy, (long long)plx, (long long)phx, (long long)ly, (long long)lx,
             (long long)ry, (long long)rx, rev ? " rhs_reversal=1x1" : "");
    int64_t K;
    if (kind == 0) { /* depthwise */
      int64_t C = R(1, 40);
      snprintf(is, sizeof is, "%lld,%lld,%lld,%lld", (long long)B, (long long)C, (long long)IY, (long long)IX);
      snprintf(ks, sizeof ks, "%lld,1,%lld,%lld", (long long)C, (long long)KY, (long long)KX);
      snprintf(os, sizeof os, "%lld,%lld,%lld,%lld", (long long)B, (long long)C, (long long)OY, (long long)OX);
      snprintf(attrs, sizeof attrs, "%s, dim_labels=bf01_oi01->bf01, feature_group_count=%lld", win, (long long)C);
      K = KY * KX;
    } else if (kind == 1 || kind == 2) { /* grouped, or an ungrouped image layer */
      int64_t G = kind == 1 ? R(1, 3) : 1, ci = R(1, 4), co = R(1, kind == 1 ? 7 : 9);
      snprintf(is, sizeof is, "%lld,%lld,%lld,%lld", (long long)B, (long long)(G * ci), (long long)IY, (long long)IX);
      snprintf(ks, sizeof ks, "%lld,%lld,%lld,%lld", (long long)(G * co), (long long)ci, (long long)KY, (long long)KX);
      snprintf(os, sizeof os, "%lld,%lld,%lld,%lld", (long long)B, (long long)(G * co), (long long)OY, (long long)OX);
      snprintf(attrs, sizeof attrs, "%s, dim_labels=bf01_oi01->bf01, feature_group_count=%lld", win, (long long)G);
      K = ci * KY * KX;
    } else { /* batch groups: a depthwise weight gradient's form */
      int64_t C = R(1, 20), Bt = R(1, 3);
      snprintf(is, sizeof is, "%lld,%lld,%lld,%lld", (long long)Bt, (long long)C, (long long)IY, (long long)IX);
      snprintf(ks, sizeof ks, "%lld,%lld,%lld,%lld", (long long)Bt, (long long)C, (long long)KY, (long long)KX);
      snprintf(os, sizeof os, "%lld,%lld,1,%lld", (long long)OY, (long long)OX, (long long)C);
      snprintf(attrs, sizeof attrs, "%s, dim_labels=fb01_io01->01bf, batch_group_count=%lld", win, (long long)C);
      K = Bt * KY * KX;
    }
    int before = t_fail;
    conv_case(10000 + n, "f32", is, ks, os, attrs, "", K, false);
    if (t_fail != before) printf("  random case %d: [%s] [%s] -> [%s], %s\n", n, is, ks, os, attrs);
    done++;
  }
#undef R
  CHECK(done == 200);
}

/* Shapes large enough for the gemm to be cut into tiles (1x1), blocks of
 * rows run in parallel (im2col) and long weight-gradient sums split into
 * runs (full-window, both output orders). */
static void test_tiled(void) {
  static const char *types[] = {"f32", "f64"};
  for (int i = 0; i < 2; i++) {
    const char *T = types[i];
    conv_case(__LINE__, T, "2,160,20,20", "160,160,1,1", "2,160,20,20",
              "window={size=1x1}, dim_labels=bf01_oi01->bf01", "(1x1 gemm)", 160, false);
    conv_case(__LINE__, T, "4,30,30,16", "3,3,16,32", "4,30,30,32",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f", "(im2col+gemm)", 144,
              false);
    conv_case(__LINE__, T, "64,8,30,30", "64,6,30,30", "1,1,8,6",
              "window={size=30x30}, dim_labels=fb01_io01->01bf", "(full-window gemm)", 57600,
              false);
    conv_case(__LINE__, T, "64,8,30,30", "64,6,30,30", "1,1,6,8",
              "window={size=30x30}, dim_labels=fb01_io01->01fb", "(full-window gemm)", 57600,
              false);
  }
}

int main(void) {
  test_depthwise();
  test_depthwise_levels();
  test_multi_levels();
  test_random();
  test_half();
  test_grouped3d();
  test_tiled();
  TEST_MAIN_END("fast_conv");
}
