/* cost_test.c - unit tests of the cost rules and the peak-memory sweep.
 * Every expected number is derived by hand in the comment beside it from
 * the rule it checks (the cases follow xla/service/hlo_cost_analysis_test.cc
 * where XLA has one: matrix multiply, dot general, map, convolutions,
 * reduce, reduce-window, select-and-scatter, broadcast, fully connected). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_cost.h"
#include "hlo/hlo_text.h"
#include "testing.h"

static hlo_module *parse(const char *text) {
  hlo_src src = {"t.hlo", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  for (int i = 0; i < d.n; i++) printf("parse: %s\n", d.v[i].msg);
  hlo_diags_release(&d);
  return m;
}

/* Cost of the named entry instruction (the root when name is NULL). */
static hlo_cost cost_in(const char *text, const char *name) {
  hlo_cost z = {-1, -1, -1, -1};
  hlo_module *m = parse(text);
  if (!m) return z;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_cost_analysis *a = hlo_cost_analyze(m, NULL, &d);
  if (a) {
    const hlo_instruction *in = name ? hlo_computation_find(m->entry, name) : m->entry->root;
    z = hlo_cost_of(a, in);
  }
  hlo_cost_analysis_free(a);
  hlo_diags_release(&d);
  hlo_module_free(m);
  return z;
}

#define CHECK_COST(text, name, fl, tr, by)                                       \
  do {                                                                           \
    hlo_cost c_ = cost_in(text, name);                                           \
    CHECK_INT(c_.flops, fl);                                                     \
    CHECK_INT(c_.transcendentals, tr);                                           \
    CHECK_INT(c_.bytes, by);                                                     \
  } while (0)

static const char ADD[] = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                          "  ROOT s = f32[] add(x, y)\n}\n";

static void test_dot(void) {
  /* [10,5]x[5,30]: 2*10*30*5 = 3000 FLOPs; bytes 4*(50+150+300) = 2000 */
  CHECK_COST("ENTRY e {\n  a = f32[10,5] parameter(0)\n  b = f32[5,30] parameter(1)\n"
             "  ROOT d = f32[10,30] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
             NULL, 3000, 0, 2000);
  /* contracting {1,2}x{0,1}: [10,30] result, k = 25: 2*300*25 = 15000;
   * bytes 4*(250+750+300) = 5200 */
  CHECK_COST("ENTRY e {\n  a = f32[10,5,5] parameter(0)\n  b = f32[5,5,30] parameter(1)\n"
             "  ROOT d = f32[10,30] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}\n}\n",
             NULL, 15000, 0, 5200);
  /* batch dim 2 of a, 1 of b: result [5,10,30], k = 5: 2*1500*5 = 15000;
   * bytes 4*(250+750+1500) = 10000 */
  CHECK_COST("ENTRY e {\n  a = f32[10,5,5] parameter(0)\n  b = f32[5,5,30] parameter(1)\n"
             "  ROOT d = f32[5,10,30] dot(a, b), lhs_batch_dims={2}, lhs_contracting_dims={1}, "
             "rhs_batch_dims={1}, rhs_contracting_dims={0}\n}\n",
             NULL, 15000, 0, 10000);
}

static void test_elementwise_and_map(void) {
  /* exp of 10 elements: 10 transcendentals, 0 FLOPs; bytes 40 + 40 */
  CHECK_COST("ENTRY e {\n  a = f32[10] parameter(0)\n  ROOT x = f32[10] exponential(a)\n}\n", NULL, 0, 10, 80);
  /* compare: 1 FLOP per element; pred result 1 byte each: 4*6*2 + 6 = 54 */
  CHECK_COST("ENTRY e {\n  a = f32[6] parameter(0)\n  b = f32[6] parameter(1)\n"
             "  ROOT c = pred[6] compare(a, b), direction=LT\n}\n", NULL, 6, 0, 54);
  /* map of x => exp(x + 0.5) over 10 elements: 10 adds and 10 exps; map
   * bytes are its operand and result only: 80 */
  CHECK_COST("f {\n  x = f32[] parameter(0)\n  h = f32[] constant(0.5)\n  s = f32[] add(x, h)\n"
             "  ROOT e = f32[] exponential(s)\n}\n"
             "ENTRY e {\n  a = f32[10] parameter(0)\n  ROOT m = f32[10] map(a), dimensions={0}, to_apply=f\n}\n",
             NULL, 10, 10, 80);
  /* copy counts no FLOPs (XLA), default bytes 2*16 */
  CHECK_COST("ENTRY e {\n  a = f32[4] parameter(0)\n  ROOT c = f32[4] copy(a)\n}\n", NULL, 0, 0, 32);
}

static void test_convolution(void) {
  /* valid 3x3 over 10x20: output 8x18, 9 multiply-adds each:
   * 8*18*9*2 = 2592; bytes 4*(200 + 9 + 144) = 1412 */
  CHECK_COST("ENTRY e {\n  x = f32[1,1,10,20] parameter(0)\n  k = f32[1,1,3,3] parameter(1)\n"
             "  ROOT c = f32[1,1,8,18] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01\n}\n",
             NULL, 2592, 0, 1412);
  /* same padding, 3x3 over 3x3: kernel taps that land inside the input per
   * output position are 4 6 4 / 6 9 6 / 4 6 4 = 49: 2*49 = 98;
   * bytes 4*(9+9+9) = 108 */
  CHECK_COST("ENTRY e {\n  x = f32[1,1,3,3] parameter(0)\n  k = f32[1,1,3,3] parameter(1)\n"
             "  ROOT c = f32[1,1,3,3] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01\n}\n",
             NULL, 98, 0, 108);
  /* depthwise, 120 groups: per group 1 input feature: 120*8*18*9*2 = 311040 */
  CHECK_COST("ENTRY e {\n  x = f32[1,120,10,20] parameter(0)\n  k = f32[120,1,3,3] parameter(1)\n"
             "  ROOT c = f32[1,120,8,18] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01, "
             "feature_group_count=120\n}\n",
             NULL, 311040, 0, 4 * (24000 + 1080 + 17280));
  /* stride 2 over 7 with a 3-wide kernel: outputs 0,2,4 -> 3 outputs of 3
   * taps: 9 multiply-adds: 18 */
  CHECK_COST("ENTRY e {\n  x = f32[1,1,7] parameter(0)\n  k = f32[1,1,3] parameter(1)\n"
             "  ROOT c = f32[1,1,3] convolution(x, k), window={size=3 stride=2}, dim_labels=bf0_oi0->bf0\n}\n",
             NULL, 18, 0, 4 * (7 + 3 + 3));
  /* base dilation 2 over 3 inputs (dilated: x . x . x = 5 wide), kernel 2,
   * output 4: each output window covers 2 dilated positions, exactly one
   * of them real: 4 multiply-adds: 8 */
  CHECK_COST("ENTRY e {\n  x = f32[1,1,3] parameter(0)\n  k = f32[1,1,2] parameter(1)\n"
             "  ROOT c = f32[1,1,4] convolution(x, k), window={size=2 lhs_dilate=2}, dim_labels=bf0_oi0->bf0\n}\n",
             NULL, 8, 0, 4 * (3 + 2 + 4));
  /* XLA's ConvolutionExtreme: input = kernel = 524288 wide, stride
   * 524287, base dilation 524288: each output takes one tap: 2*524288 */
  CHECK_COST("ENTRY e {\n  x = f32[1,1,524288] parameter(0)\n  k = f32[1,1,524288] parameter(1)\n"
             "  ROOT c = f32[1,1,524288] convolution(x, k), window={size=524288 stride=524287 lhs_dilate=524288}, "
             "dim_labels=bf0_oi0->bf0\n}\n",
             NULL, 1048576, 0, 4 * (3 * 524288));
  /* ConvolutionExtreme2: one input, kernel 524288, padding 524287 each
   * side: each output sees the input once: 2*524288 */
  CHECK_COST("ENTRY e {\n  x = f32[1,1,1] parameter(0)\n  k = f32[1,1,524288] parameter(1)\n"
             "  ROOT c = f32[1,1,524288] convolution(x, k), window={size=524288 pad=524287_524287}, "
             "dim_labels=bf0_oi0->bf0\n}\n",
             NULL, 1048576, 0, 4 * (1 + 2 * 524288));
}

static void test_reductions(void) {
  char t[1024];
  /* reduce [10,20] over dim 1: 200 - 10 = 190 adds; bytes 4*(200+1+10) */
  snprintf(t, sizeof t, "%sENTRY e {\n  a = f32[10,20] parameter(0)\n  z = f32[] constant(0)\n"
           "  ROOT r = f32[10] reduce(a, z), dimensions={1}, to_apply=add\n}\n", ADD);
  CHECK_COST(t, NULL, 190, 0, 844);
  /* reduce-window 4x5 stride 4x5 over [10,20]: [2,4] outputs, 19 adds each */
  snprintf(t, sizeof t, "%sENTRY e {\n  a = f32[10,20] parameter(0)\n  z = f32[] constant(0)\n"
           "  ROOT r = f32[2,4] reduce-window(a, z), window={size=4x5 stride=4x5}, to_apply=add\n}\n", ADD);
  CHECK_COST(t, NULL, 152, 0, 4 * (200 + 1 + 8));
  /* a window spanning all of the last dim from every position (reduce then
   * broadcast): XLA counts 2*3*1024 rows + 1023: 7167 */
  snprintf(t, sizeof t, "%sENTRY e {\n  a = f32[2,3,1024,1024] parameter(0)\n  z = f32[] constant(0)\n"
           "  ROOT r = f32[2,3,1024,1024] reduce-window(a, z), window={size=1x1x1x2047 pad=0_0x0_0x0_0x1023_1023}, "
           "to_apply=add\n}\n", ADD);
  CHECK_COST(t, NULL, 7167, 0, 4.0 * (2 * 6291456 + 1));
  /* select-and-scatter, window 4x5 stride 4x5 over [10,20], source [2,4]:
   * per source element 19 selects (compare, 1 FLOP) and 1 scatter add:
   * 8*20 = 160; bytes 4*(200 + 8 + 1 + 200) */
  snprintf(t, sizeof t, "%sgt {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
           "  ROOT c = pred[] compare(x, y), direction=GT\n}\n"
           "ENTRY e {\n  a = f32[10,20] parameter(0)\n  s = f32[2,4] parameter(1)\n  z = f32[] constant(0)\n"
           "  ROOT r = f32[10,20] select-and-scatter(a, s, z), window={size=4x5 stride=4x5}, select=gt, scatter=add\n}\n",
           ADD);
  CHECK_COST(t, NULL, 160, 0, 1636);
  /* variadic reduce-window (XLA's ReduceWindowVariadic): the reducer does
   * two minimums: 2 x 19 x 8 = 304 FLOPs; bytes: two [10,20] operands 1600,
   * two scalar inits 8, the result tuple's two pointers 16: 1624 (XLA's
   * 4 * (10*20*2 + 2*3)) */
  CHECK_COST("mn {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] parameter(2)\n"
             "  d = f32[] parameter(3)\n  x = f32[] minimum(a, c)\n  y = f32[] minimum(b, d)\n"
             "  ROOT t = (f32[], f32[]) tuple(x, y)\n}\n"
             "ENTRY e {\n  p = f32[10,20] parameter(0)\n  q = f32[10,20] parameter(1)\n  z = f32[] constant(0)\n"
             "  ROOT r = (f32[2,4], f32[2,4]) reduce-window(p, q, z, z), window={size=4x5 stride=4x5}, to_apply=mn\n}\n",
             NULL, 304, 0, 1624);
  /* scatter-add of updates [2,3] into [3,3] at s32[2] rows: 6 adds; bytes
   * 3 x 24 (read input, read update, write) + indices 8 = 80 */
  snprintf(t, sizeof t, "%sENTRY e {\n  o = f32[3,3] parameter(0)\n  i = s32[2] parameter(1)\n"
           "  u = f32[2,3] parameter(2)\n  ROOT s = f32[3,3] scatter(o, i, u), update_window_dims={1}, "
           "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}\n", ADD);
  CHECK_COST(t, NULL, 6, 0, 80);
  /* sort of 16: 16 * log2(16) = 64 */
  CHECK_COST("lt {\n  x = s32[] parameter(0)\n  y = s32[] parameter(1)\n  ROOT c = pred[] compare(x, y), direction=LT\n}\n"
             "ENTRY e {\n  a = s32[16] parameter(0)\n  ROOT s = s32[16] sort(a), dimensions={0}, to_apply=lt\n}\n",
             NULL, 64, 0, 128);
}

static void test_data_movement(void) {
  /* broadcast of a scalar to [10,7]: 0 FLOPs, 4*(1+70) bytes */
  CHECK_COST("ENTRY e {\n  c = f32[] constant(42)\n  ROOT b = f32[10,7] broadcast(c), dimensions={}\n}\n", NULL, 0, 0, 284);
  /* slice keeps 10 of 100: reads and writes 40 each */
  CHECK_COST("ENTRY e {\n  a = f32[100] parameter(0)\n  ROOT s = f32[10] slice(a), slice={[0:10]}\n}\n", NULL, 0, 0, 80);
  /* dynamic-slice: 2*40 + the index 4 */
  CHECK_COST("ENTRY e {\n  a = f32[100] parameter(0)\n  i = s32[] parameter(1)\n"
             "  ROOT s = f32[10] dynamic-slice(a, i), dynamic_slice_sizes={10}\n}\n", NULL, 0, 0, 84);
  /* dynamic-update-slice writes its update in place: 2*40 + 4 */
  CHECK_COST("ENTRY e {\n  a = f32[100] parameter(0)\n  u = f32[10] parameter(1)\n  i = s32[] parameter(2)\n"
             "  ROOT d = f32[100] dynamic-update-slice(a, u, i)\n}\n", NULL, 0, 0, 84);
  /* tuple: its two 8-byte pointers; get-tuple-element and parameter: 0 */
  CHECK_COST("ENTRY e {\n  a = f32[4] parameter(0)\n  ROOT t = (f32[4], f32[4]) tuple(a, a)\n}\n", NULL, 0, 0, 16);
  CHECK_COST("ENTRY e {\n  a = (f32[4], f32[4]) parameter(0)\n  ROOT g = f32[4] get-tuple-element(a), index=1\n}\n",
             NULL, 0, 0, 0);
  /* a transpose that keeps the memory order is a bitcast: 0 bytes; a real
   * one reads and writes 24 bytes */
  CHECK_COST("ENTRY e {\n  a = f32[1,4]{1,0} parameter(0)\n  ROOT t = f32[4,1]{0,1} transpose(a), dimensions={1,0}\n}\n",
             NULL, 0, 0, 0);
  CHECK_COST("ENTRY e {\n  a = f32[2,3]{1,0} parameter(0)\n  ROOT t = f32[3,2]{1,0} transpose(a), dimensions={1,0}\n}\n",
             NULL, 0, 0, 48);
  /* without written layouts both are the default {1,0}: a real transpose;
   * the same data in the layout {0,1} is a bitcast */
  CHECK_COST("ENTRY e {\n  a = f32[2,3] parameter(0)\n  ROOT t = f32[3,2] transpose(a), dimensions={1,0}\n}\n",
             NULL, 0, 0, 48);
  CHECK_COST("ENTRY e {\n  a = f32[2,3] parameter(0)\n  ROOT t = f32[3,2]{0,1} transpose(a), dimensions={1,0}\n}\n",
             NULL, 0, 0, 0);
  /* gather of 5 rows of 3 from [10,3] by s32[5]: 2*60 + 20 */
  CHECK_COST("ENTRY e {\n  a = f32[10,3] parameter(0)\n  i = s32[5] parameter(1)\n"
             "  ROOT g = f32[5,3] gather(a, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
             "index_vector_dim=1, slice_sizes={1,3}\n}\n", NULL, 0, 0, 140);
}

static void test_linalg_and_misc(void) {
  /* cholesky of [4,4]: floor(4*16/3) = 21 FLOPs; half read + half written = 64 */
  CHECK_COST("ENTRY e {\n  a = f32[4,4] parameter(0)\n  ROOT c = f32[4,4] cholesky(a), lower=true\n}\n", NULL, 21, 0, 64);
  /* triangular solve a [4,4], b [4,3]: 2*4*12 = 96; 48 + 64/2 + 48 = 128 */
  CHECK_COST("ENTRY e {\n  a = f32[4,4] parameter(0)\n  b = f32[4,3] parameter(1)\n"
             "  ROOT x = f32[4,3] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}\n",
             NULL, 96, 0, 128);
  /* fft of c64[8], length 8: 2*4*log2(8)*8 = 192 */
  CHECK_COST("ENTRY e {\n  a = c64[8] parameter(0)\n  ROOT f = c64[8] fft(a), fft_type=FFT, fft_length={8}\n}\n",
             NULL, 192, 0, 128);
  /* rng: one transcendental per number */
  CHECK_COST("ENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
             "  ROOT r = f32[5] rng(a, b), distribution=rng_uniform\n}\n", NULL, 0, 5, 28);
  /* custom-call: unknown */
  hlo_cost c = cost_in("ENTRY e {\n  a = f32[4] parameter(0)\n  ROOT c = f32[4] custom-call(a), custom_call_target=\"x\"\n}\n", NULL);
  CHECK_INT(c.unknown, 1);
}

static void test_fusion(void) {
  /* (a + b) * exp(a + b) fused: 4 adds + 4 multiplies, 4 exps; bytes: the
   * result 16 and each parameter read once, 16 + 16: 48 */
  CHECK_COST("f {\n  p0 = f32[4] parameter(0)\n  p1 = f32[4] parameter(1)\n  s = f32[4] add(p0, p1)\n"
             "  x = f32[4] exponential(s)\n  ROOT m = f32[4] multiply(s, x)\n}\n"
             "ENTRY e {\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n"
             "  ROOT r = f32[4] fusion(a, b), kind=kLoop, calls=f\n}\n",
             NULL, 8, 4, 48);
  /* a fused slice reads only the 10 elements it keeps: 40 in, 40 out */
  CHECK_COST("f {\n  p = f32[100] parameter(0)\n  s = f32[10] slice(p), slice={[0:10]}\n  ROOT n = f32[10] negate(s)\n}\n"
             "ENTRY e {\n  a = f32[100] parameter(0)\n  ROOT r = f32[10] fusion(a), kind=kLoop, calls=f\n}\n",
             NULL, 10, 0, 80);
  /* a dynamic-update-slice root writes its update (40); the target is not
   * read; the update 40 and the index 4 are: 84 */
  CHECK_COST("f {\n  p0 = f32[100] parameter(0)\n  p1 = f32[10] parameter(1)\n  p2 = s32[] parameter(2)\n"
             "  ROOT d = f32[100] dynamic-update-slice(p0, p1, p2)\n}\n"
             "ENTRY e {\n  a = f32[100] parameter(0)\n  u = f32[10] parameter(1)\n  i = s32[] parameter(2)\n"
             "  ROOT r = f32[100] fusion(a, u, i), kind=kLoop, calls=f\n}\n",
             NULL, 0, 0, 84);
  /* a broadcast and a reshape of the same parameter each read it: 2*16;
   * a large fused constant (4 elements) is read: 16; output 2*16*2 */
  CHECK_COST("f {\n  p = f32[4] parameter(0)\n  c = f32[4] constant({1, 2, 3, 4})\n"
             "  b = f32[2,4] broadcast(p), dimensions={1}\n  r = f32[2,2] reshape(p)\n"
             "  a = f32[4] add(p, c)\n  ROOT t = (f32[2,4], f32[2,2], f32[4]) tuple(b, r, a)\n}\n"
             "ENTRY e {\n  x = f32[4] parameter(0)\n"
             "  ROOT r = (f32[2,4], f32[2,2], f32[4]) fusion(x), kind=kLoop, calls=f\n}\n",
             NULL, 4, 0, 32 + 16 + 16 + 16 + 16 * 3);
}

static void test_control_flow(void) {
  /* while with known trip count 6: body = counter add (1) + vector add (4),
   * condition = compare (1): (5 + 1) * 6 = 36 FLOPs */
  static const char W[] =
      "body {\n  p = (s32[], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
      "  v = f32[4] get-tuple-element(p), index=1\n  one = s32[] constant(1)\n  i2 = s32[] add(i, one)\n"
      "  v2 = f32[4] add(v, v)\n  ROOT t = (s32[], f32[4]) tuple(i2, v2)\n}\n"
      "cond {\n  p = (s32[], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
      "  n = s32[] constant(6)\n  ROOT c = pred[] compare(i, n), direction=LT\n}\n"
      "ENTRY e {\n  v = f32[4] parameter(0)\n  z = s32[] constant(0)\n  t = (s32[], f32[4]) tuple(z, v)\n"
      "  ROOT w = (s32[], f32[4]) while(t), condition=cond, body=body%s\n}\n";
  char t[2048];
  snprintf(t, sizeof t, W, ", backend_config={\"known_trip_count\":{\"n\":\"6\"}}");
  hlo_cost c = cost_in(t, NULL);
  CHECK_INT(c.flops, 36);
  /* bytes per iteration: body add 4+4+4=12, add 48, tuple 16; condition
   * compare 4+4+1 = 9: (12 + 48 + 16 + 9) * 6 = 510 */
  CHECK_INT(c.bytes, 510);
  snprintf(t, sizeof t, W, "");
  c = cost_in(t, NULL); /* unknown trip count: one iteration, as XLA */
  CHECK_INT(c.flops, 6);
  bool known;
  hlo_module *m = parse(t);
  CHECK(m && hlo_cost_trip_count(m->entry->root, &known) == 1 && !known);
  hlo_module_free(m);
  /* conditional: the dearer branch per property: max(4 FLOPs, 0) and
   * max(0, 4 transcendentals) */
  CHECK_COST("b0 {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p, p)\n}\n"
             "b1 {\n  p = f32[4] parameter(0)\n  ROOT x = f32[4] exponential(p)\n}\n"
             "ENTRY e {\n  i = s32[] parameter(0)\n  v = f32[4] parameter(1)\n"
             "  ROOT c = f32[4] conditional(i, v, v), branch_computations={b0, b1}\n}\n",
             NULL, 4, 4, 48);
}

static void test_fully_connected(void) {
  /* sigmoid(x W + b) as XLA's FullyConnectedForward: dot 2*10*20*5 = 2000,
   * bias add 200, sigmoid map 3 FLOPs + 1 exp per element: 600 + 200 exps */
  const char *t =
      "sig {\n  x = f32[] parameter(0)\n  one = f32[] constant(1)\n  n = f32[] negate(x)\n"
      "  e = f32[] exponential(n)\n  d = f32[] add(one, e)\n  ROOT r = f32[] divide(one, d)\n}\n"
      "ENTRY e {\n  x = f32[10,5] parameter(0)\n  w = f32[5,20] parameter(1)\n  b = f32[20] parameter(2)\n"
      "  d = f32[10,20] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  bb = f32[10,20] broadcast(b), dimensions={1}\n  a = f32[10,20] add(d, bb)\n"
      "  ROOT m = f32[10,20] map(a), dimensions={0,1}, to_apply=sig\n}\n";
  hlo_module *m = parse(t);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_cost_analysis *a = m ? hlo_cost_analyze(m, NULL, &d) : NULL;
  CHECK(a != NULL);
  if (a) {
    hlo_cost s = hlo_cost_of_computation(a, m->entry);
    CHECK_INT(s.flops, 2800);
    CHECK_INT(s.transcendentals, 200);
  }
  hlo_cost_analysis_free(a);
  hlo_diags_release(&d);
  hlo_module_free(m);
}

static void test_deep_nesting_refused(void) {
  /* 300 computations each calling the next: refused past 256, not a stack
   * overflow (the parser already refuses a computation that calls itself) */
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  /* callees are defined above their callers (the parser needs it) */
  hlo_buf_puts(&b, "c299 {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n");
  for (int i = 298; i >= 0; i--)
    hlo_buf_printf(&b, "c%d {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=c%d\n}\n", i, i + 1);
  hlo_buf_puts(&b, "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT c = f32[] call(a), to_apply=c0\n}\n");
  hlo_module *m = parse(b.data);
  /* then put the callers first, as a module built through the library may
   * have them, so that nothing is analyzed ahead */
  for (int i = 0; m && i < 150; i++) {
    hlo_computation *t = m->comps[i];
    m->comps[i] = m->comps[299 - i];
    m->comps[299 - i] = t;
  }
  for (int i = 0; m && i < m->ncomps; i++) m->comps[i]->id = i;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_cost_analysis *a = m ? hlo_cost_analyze(m, NULL, &d) : NULL;
  CHECK(m && !a && d.nerrors == 1);
  if (d.n) CHECK(strstr(d.v[0].msg, "nest deeper than 256") != NULL);
  hlo_cost_analysis_free(a);
  hlo_diags_release(&d);
  hlo_arena ar;
  hlo_arena_init(&ar, NULL);
  hlo_mem_peak p;
  hlo_diags_init(&d, NULL);
  CHECK(m && hlo_mem_peak_compute(m, &ar, &p, &d) == HLO_ERR);
  hlo_diags_release(&d);
  hlo_arena_release(&ar);
  hlo_module_free(m);
  hlo_buf_release(&b);
}

/* ---- peak memory --------------------------------------------------------- */
static hlo_mem_peak peak_of(const char *text, hlo_arena *ar, hlo_module **mp) {
  hlo_mem_peak p;
  memset(&p, 0, sizeof p);
  p.peak = -1;
  hlo_module *m = parse(text);
  *mp = m;
  if (!m) return p;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  if (hlo_mem_peak_compute(m, ar, &p, &d)) p.peak = -1;
  hlo_diags_release(&d);
  return p;
}

static void test_peak(void) {
  hlo_arena ar;
  hlo_arena_init(&ar, NULL);
  hlo_module *m;
  /* p (400 B, live throughout); a = exp(p); b = neg(a); c = b + p.
   * step a: p+a = 800; step b: p+a+b = 1200 (a dies here); step c:
   * p+b+c = 1200.  Peak 1200, first reached at b, with p, a, b live. */
  hlo_mem_peak p = peak_of("ENTRY e {\n  p = f32[100] parameter(0)\n  a = f32[100] exponential(p)\n"
                           "  b = f32[100] negate(a)\n  ROOT c = f32[100] add(b, p)\n}\n", &ar, &m);
  CHECK_INT(p.peak, 1200);
  CHECK_STR(p.at ? p.at->name : NULL, "b");
  CHECK_INT(p.nlive, 3);
  CHECK_INT(p.param_bytes, 400);
  CHECK_INT(p.output_bytes, 400);
  hlo_module_free(m);
  /* tuple and get-tuple-element allocate nothing: a stays live through
   * them until r reads it: p + a + r = 1200 at r */
  p = peak_of("ENTRY e {\n  p = f32[100] parameter(0)\n  a = f32[100] exponential(p)\n"
              "  t = (f32[100], f32[100]) tuple(a, p)\n  g = f32[100] get-tuple-element(t), index=0\n"
              "  ROOT r = f32[100] negate(g)\n}\n", &ar, &m);
  CHECK_INT(p.peak, 1200);
  CHECK_STR(p.at ? p.at->name : NULL, "r");
  hlo_module_free(m);
  /* dynamic-update-slice writes into its dying operand a: p0 400 + u 40 +
   * i 4 + a 400 = 844 until r adds 400: 1244 (1644 if d allocated) */
  p = peak_of("ENTRY e {\n  p0 = f32[100] parameter(0)\n  u = f32[10] parameter(1)\n  i = s32[] parameter(2)\n"
              "  a = f32[100] copy(p0)\n  d = f32[100] dynamic-update-slice(a, u, i)\n"
              "  ROOT r = f32[100] negate(d)\n}\n", &ar, &m);
  CHECK_INT(p.peak, 1244);
  hlo_module_free(m);
  /* ... but not when its operand is still needed afterwards: a, d and r
   * all live at r: 444 + 1200 = 1644 */
  p = peak_of("ENTRY e {\n  p0 = f32[100] parameter(0)\n  u = f32[10] parameter(1)\n  i = s32[] parameter(2)\n"
              "  a = f32[100] copy(p0)\n  d = f32[100] dynamic-update-slice(a, u, i)\n"
              "  ROOT r = f32[100] add(d, a)\n}\n", &ar, &m);
  CHECK_INT(p.peak, 1644);
  hlo_module_free(m);
  /* input_output_alias: the output lives in parameter 0's buffer: 400 */
  p = peak_of("HloModule m, input_output_alias={ {}: (0, {}, may-alias) }\n"
              "ENTRY e {\n  p = f32[100] parameter(0)\n  ROOT n = f32[100] negate(p)\n}\n", &ar, &m);
  CHECK_INT(p.peak, 400);
  hlo_module_free(m);
  /* a call adds its callee's temporaries at its step: the callee's x is
   * the caller's buffer (0), y 400 then y + z 800: peak p 400 + c 400 +
   * 800 = 1600 */
  p = peak_of("f {\n  x = f32[100] parameter(0)\n  y = f32[100] exponential(x)\n  ROOT z = f32[100] negate(y)\n}\n"
              "ENTRY e {\n  p = f32[100] parameter(0)\n  ROOT c = f32[100] call(p), to_apply=f\n}\n", &ar, &m);
  CHECK_INT(p.peak, 1600);
  CHECK_INT(p.callee_bytes, 800);
  hlo_module_free(m);
  /* a constant is allocated for the whole run: 12 + p 16 + s 16 = 44 */
  p = peak_of("ENTRY e {\n  p = f32[4] parameter(0)\n  c = f32[3] constant({1, 2, 3})\n"
              "  ROOT s = f32[4] negate(p)\n}\n", &ar, &m);
  CHECK_INT(p.peak, 44);
  CHECK_INT(p.constant_bytes, 12);
  hlo_module_free(m);
  hlo_arena_release(&ar);
}

/* Failing the Nth allocation of the analysis, the peak and the report:
 * an error (never a crash), and nothing leaks. */
static void test_allocation_failures(void) {
  static const char T[] =
      "f {\n  p0 = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p0)\n}\n"
      "ENTRY e {\n  a = f32[4] parameter(0)\n  b = f32[4] fusion(a), kind=kLoop, calls=f\n"
      "  t = (f32[4], f32[4]) tuple(a, b)\n  ROOT g = f32[4] get-tuple-element(t), index=1\n}\n";
  hlo_module *m = parse(T);
  CHECK(m != NULL);
  if (!m) return;
  int ok_at = -1;
  for (long left = 0; left < 200 && ok_at < 0; left++) {
    test_counting c = {left, 0};
    hlo_allocator al = TEST_COUNTING_ALLOCATOR(&c);
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_arena ar;
    hlo_arena_init(&ar, &al);
    hlo_buf out;
    hlo_buf_init(&out, &al);
    hlo_mem_peak p;
    hlo_stats_options so = {HLO_STATS_JSON, 3, 0, 0, NULL};
    hlo_cost_analysis *a = hlo_cost_analyze(m, &al, &d);
    int rc = a ? hlo_mem_peak_compute(m, &ar, &p, &d) : HLO_ERR;
    if (rc == HLO_OK) rc = hlo_stats_render(&out, m, a, &p, &so);
    if (rc == HLO_OK && !out.failed) ok_at = (int)left;
    else CHECK(d.nerrors > 0 || out.failed || rc == HLO_ERR);
    hlo_buf_release(&out);
    hlo_cost_analysis_free(a);
    hlo_arena_release(&ar);
    hlo_diags_release(&d);
    CHECK_INT(c.live, 0);
  }
  CHECK(ok_at > 0);
  hlo_module_free(m);
}

static void test_roofline(void) {
  /* 2 GFLOP at 100 GFLOP/s = 0.02 s; 1 GB at 10 GB/s = 0.1 s: memory */
  hlo_cost c = {2e9, 0, 1e9, 0};
  bool mem = false;
  double s = hlo_cost_roofline(&c, 100, 10, &mem);
  CHECK(fabs(s - 0.1) < 1e-12 && mem);
  c.bytes = 1e8; /* 0.01 s: compute */
  s = hlo_cost_roofline(&c, 100, 10, &mem);
  CHECK(fabs(s - 0.02) < 1e-12 && !mem);
}

int main(void) {
  test_dot();
  test_elementwise_and_map();
  test_convolution();
  test_reductions();
  test_data_movement();
  test_linalg_and_misc();
  test_fusion();
  test_control_flow();
  test_fully_connected();
  test_deep_nesting_refused();
  test_peak();
  test_allocation_failures();
  test_roofline();
  TEST_MAIN_END("cost");
}
