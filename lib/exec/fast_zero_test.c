/* fast_zero_test.c - zero-sized dimensions through the fast kernels: each
 * module runs on the reference path and on the fast path at 1, 2 and 3
 * threads; the fast kernel named must be the one chosen, every result must
 * be bit for bit the reference's, and the reference's result must be what
 * XLA's semantics say independently of both (empty, the init value of a
 * reduction over nothing, the zeros of a dot with K = 0, the operand of a
 * scatter without updates). */
#include <math.h>

#include "exec/fast.h"
#include "testing.h"

static const char *dt_name = "fast_zero_test.c";
#include "exec/difftest.h"

/* Expected values: every element of every array of the result is `fill`
 * (NaN matches NaN; an empty array passes), or with same_as_arg0 the
 * result's bytes are those of argument 0. */
typedef struct want {
  double fill;
  bool same_as_arg0;
} want;

static bool all_equal(const hlo_val *v, double x) {
  for (int i = 0; i < v->ntuple; i++)
    if (!all_equal(v->tuple[i], x)) return false;
  for (int64_t k = 0; k < v->nelems; k++) {
    double y = hlo_val_get_f64(v, k);
    if (!(y == x || (isnan(x) && isnan(y)))) return false;
  }
  return true;
}

static void zcheck(int line, const char *text, const char *kernel, want w) {
  hlo_diags d;
  hlo_val *args[8];
  int na;
  hlo_module *m = dt_module_new(line, text, &d, args, &na, 5 + (uint64_t)line, 0);
  if (!m) return;
  hlo_val *ref = run_mod(m, false, args, na, NULL, 0, 0);
  bool ok = ref && (w.same_as_arg0 ? same_bits(args[0], ref, (char[64]){0}, 64) : all_equal(ref, w.fill));
  if (!ok) {
    t_fail++;
    printf("%s:%d: the reference result is not the expected one\n", dt_name, line);
  } else {
    t_pass++;
  }
  for (int th = 1; th <= 3 && ref; th++) {
    char kname[128] = "", why[256] = "";
    hlo_val *fast = run_mod(m, true, args, na, kname, sizeof kname, th);
    if (!fast || !strstr(kname, kernel) || !same_bits(ref, fast, why, sizeof why)) {
      t_fail++;
      printf("%s:%d: %d threads: %s (kernel %s)\n", dt_name, line, th,
             fast && !strstr(kname, kernel) ? "expected fast kernel not chosen" : why, kname);
    } else {
      t_pass++;
    }
    hlo_val_release(NULL, fast);
  }
  hlo_val_release(NULL, ref);
  dt_module_free(m, &d, args, na);
}

#define ADD(t) "add {\n  a = " t "[] parameter(0)\n  b = " t "[] parameter(1)\n  ROOT r = " t "[] add(a, b)\n}\n"
#define MAX(t) "mx {\n  a = " t "[] parameter(0)\n  b = " t "[] parameter(1)\n  ROOT r = " t "[] maximum(a, b)\n}\n"
static const want ZEROS = {0, false}, SAME = {0, true};

static void test_dot(void) {
  static const char *types[] = {"f32", "f64", "s32", "f16", "c64"};
  static const char *kern[] = {"blas", "blas", "dot(int)", "blas", "blas"};
  char text[1024];
  for (int i = 0; i < 5; i++) {
    /* K = 0: zeros, without a gemm call (its leading dimensions would be 0) */
    subst(text, sizeof text,
          "HloModule m\nENTRY e {\n  a = %s[300,0] parameter(0)\n  b = %s[0,200] parameter(1)\n"
          "  ROOT d = %s[300,200] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
          types[i]);
    zcheck(__LINE__, text, kern[i], ZEROS);
    subst(text, sizeof text,
          "HloModule m\nENTRY e {\n  a = %s[0,300] parameter(0)\n  b = %s[300,7] parameter(1)\n"
          "  ROOT d = %s[0,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
          types[i]);
    zcheck(__LINE__, text, kern[i], ZEROS);
    subst(text, sizeof text,
          "HloModule m\nENTRY e {\n  a = %s[16,64,0] parameter(0)\n  b = %s[16,0,64] parameter(1)\n"
          "  ROOT d = %s[16,64,64] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
          "lhs_contracting_dims={2}, rhs_contracting_dims={1}\n}\n",
          types[i]);
    zcheck(__LINE__, text, kern[i], ZEROS);
  }
  /* large M (row tiles), transposed operands in place */
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[0,2048] parameter(0)\n  b = f32[300,0] parameter(1)\n"
         "  ROOT d = f32[2048,300] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}\n}\n",
         "blas", ZEROS);
  /* a dot with its epilogue, K = 0: the epilogue of zeros */
  zcheck(__LINE__,
         "HloModule m\nfd {\n  a = f32[600,0] parameter(0)\n  b = f32[0,300] parameter(1)\n"
         "  d = f32[600,300] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
         "  c = f32[] constant(1.25)\n  cb = f32[600,300] broadcast(c), dimensions={}\n"
         "  ROOT r = f32[600,300] add(d, cb)\n}\n"
         "ENTRY e {\n  a = f32[600,0] parameter(0)\n  b = f32[0,300] parameter(1)\n"
         "  ROOT f = f32[600,300] fusion(a, b), kind=kOutput, calls=fd\n}\n",
         "dotfuse", (want){1.25, false});
}

static void test_reduce(void) {
  char text[1024];
  static const char *types[] = {"f32", "f64", "s32"};
  static const char *kern[] = {"hlo_fast_reduce", "hlo_fast_reduce", "hlo_fast_reduce_typed"};
  for (int i = 0; i < 3; i++) {
    const char *dims[][3] = {{"262144,0", "262144", "1"}, {"0,262144", "262144", "0"},
                             {"0,4096", "0", "1"}, {"64,0,4096", "64,4096", "1"}};
    for (int j = 0; j < 4; j++) {
      char tmpl[1024];
      snprintf(tmpl, sizeof tmpl,
               "HloModule m\n" ADD("%%s") "ENTRY e {\n  a = %%s[%s] parameter(0)\n"
               "  z = %%s[] constant(3)\n  ROOT r = %%s[%s] reduce(a, z), dimensions={%s}, "
               "to_apply=add\n}\n",
               dims[j][0], dims[j][1], dims[j][2]);
      subst(text, sizeof text, tmpl, types[i]);
      zcheck(__LINE__, text, kern[i], (want){3, false});
    }
  }
  zcheck(__LINE__,
         "HloModule m\n" MAX("f32") "fr {\n  a = f32[4096,0] parameter(0)\n"
         "  e = f32[4096,0] exponential(a)\n  z = f32[] constant(-2)\n"
         "  ROOT r = f32[4096] reduce(e, z), dimensions={1}, to_apply=mx\n}\n"
         "ENTRY e {\n  a = f32[4096,0] parameter(0)\n  ROOT f = f32[4096] fusion(a), kind=kInput, calls=fr\n}\n",
         "hlo_fast_reduce(fusion)", (want){-2, false});
  /* windows over padding only */
  zcheck(__LINE__,
         "HloModule m\n" MAX("f32") "ENTRY e {\n  a = f32[0,512] parameter(0)\n  z = f32[] constant(-3)\n"
         "  ROOT r = f32[3,512] reduce-window(a, z), window={size=2x1 pad=2_2x0_0}, to_apply=mx\n}\n",
         "hlo_fast_reduce_window_typed", (want){-3, false});
  /* the mean and variance of an empty batch are 0/0 */
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[0,300,4] parameter(0)\n  s = f32[300] parameter(1)\n"
         "  o = f32[300] parameter(2)\n  ROOT b = (f32[0,300,4], f32[300], f32[300]) "
         "batch-norm-training(a, s, o), epsilon=0.001, feature_index=1\n}\n",
         "batch_norm_training", (want){NAN, false});
}

static void test_conv(void) {
  /* no input features: zeros */
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[8,0,32,32] parameter(0)\n  k = f32[16,0,3,3] parameter(1)\n"
         "  ROOT c = f32[8,16,32,32] convolution(a, k), window={size=3x3 pad=1_1x1_1}, "
         "dim_labels=bf01_oi01->bf01\n}\n",
         "hlo_fast_conv", ZEROS);
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[4,16,16,0] parameter(0)\n  k = f32[3,3,0,32] parameter(1)\n"
         "  ROOT c = f32[4,16,16,32] convolution(a, k), window={size=3x3 pad=1_1x1_1}, "
         "dim_labels=b01f_01io->b01f\n}\n",
         "hlo_fast_conv", ZEROS);
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[0,16,32,32] parameter(0)\n  k = f32[16,16,1,1] parameter(1)\n"
         "  ROOT c = f32[0,16,32,32] convolution(a, k), window={size=1x1}, dim_labels=bf01_oi01->bf01\n}\n",
         "1x1 gemm", ZEROS);
  /* depthwise over an empty height, padded: windows over padding only */
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[2,8,0,16] parameter(0)\n  k = f32[8,1,3,3] parameter(1)\n"
         "  ROOT c = f32[2,8,2,16] convolution(a, k), window={size=3x3 pad=2_2x1_1}, "
         "dim_labels=bf01_oi01->bf01, feature_group_count=8\n}\n",
         "gconv", ZEROS);
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[4,0,8,8] parameter(0)\n  k = f32[4,0,3,3] parameter(1)\n"
         "  ROOT c = f32[1,4,6,6] convolution(a, k), window={size=3x3}, dim_labels=bf01_oi01->bf01, "
         "batch_group_count=4\n}\n",
         "hlo_fast_conv", ZEROS);
}

static void test_move(void) {
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[1024,0] parameter(0)\n"
         "  ROOT t = f32[0,1024] transpose(a), dimensions={1,0}\n}\n", "tiled", ZEROS);
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[0,3,4096] parameter(0)\n"
         "  ROOT t = f32[3,0,4096] transpose(a), dimensions={1,0,2}\n}\n", "runs", ZEROS);
  zcheck(__LINE__,
         "HloModule m\nlt {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
         "  ROOT l = pred[] compare(x, y), direction=LT\n}\n"
         "ENTRY e {\n  a = f32[0,100000] parameter(0)\n"
         "  ROOT s = f32[0,100000] sort(a), dimensions={1}, to_apply=lt\n}\n", "radix", ZEROS);
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[64,4096] parameter(0)\n  i = s32[0] parameter(1)\n"
         "  ROOT g = f32[0,4096] gather(a, i), offset_dims={1}, collapsed_slice_dims={0}, "
         "start_index_map={0}, index_vector_dim=1, slice_sizes={1,4096}\n}\n", "gather(rows)", ZEROS);
  zcheck(__LINE__,
         "HloModule m\n" ADD("f32") "ENTRY e {\n  a = f32[65536,16] parameter(0)\n  i = s32[0] parameter(1)\n"
         "  u = f32[0,16] parameter(2)\n  ROOT s = f32[65536,16] scatter(a, i, u), update_window_dims={1}, "
         "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}\n",
         "hlo_fast_scatter(add)", SAME);
  zcheck(__LINE__,
         "HloModule m\n" MAX("f32") "ENTRY e {\n  a = f32[16384,16] parameter(0)\n  i = s32[0] parameter(1)\n"
         "  u = f32[16,0] parameter(2)\n  ROOT s = f32[16384,16] scatter(a, i, u), update_window_dims={0}, "
         "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mx\n}\n",
         "hlo_fast_scatter(maximum", SAME);
  zcheck(__LINE__,
         "HloModule m\nENTRY e {\n  a = f32[0,2048] parameter(0)\n  z = f32[] constant(1.5)\n"
         "  ROOT p = f32[4,2048] pad(a, z), padding=1_3x0_0\n}\n", "hlo_fast_pad", (want){1.5, false});
}

static void test_loop(void) {
  zcheck(__LINE__,
         "HloModule m\nfz {\n  a = f32[131072,0] parameter(0)\n  b = f32[0] parameter(1)\n"
         "  bb = f32[131072,0] broadcast(b), dimensions={1}\n  m = f32[131072,0] multiply(a, bb)\n"
         "  ROOT e = f32[131072,0] exponential(m)\n}\n"
         "ENTRY e {\n  a = f32[131072,0] parameter(0)\n  b = f32[0] parameter(1)\n"
         "  ROOT f = f32[131072,0] fusion(a, b), kind=kLoop, calls=fz\n}\n",
         "hlo_fast_loop(fusion)", ZEROS);
  /* a non-empty result from an empty leaf: padding (the fusion runs as a call) */
  zcheck(__LINE__,
         "HloModule m\nfp {\n  a = f32[0,300] parameter(0)\n  z = f32[] constant(0.5)\n"
         "  p = f32[400,300] pad(a, z), padding=200_200x0_0\n  ROOT r = f32[400,300] add(p, p)\n}\n"
         "ENTRY e {\n  a = f32[0,300] parameter(0)\n  ROOT f = f32[400,300] fusion(a), kind=kLoop, calls=fp\n}\n",
         "hlo_ctl_call", (want){1, false});
}

int main(void) {
  test_dot();
  test_reduce();
  test_conv();
  test_move();
  test_loop();
  TEST_MAIN_END("fast_zero");
}
