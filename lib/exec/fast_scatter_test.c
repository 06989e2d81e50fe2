/* fast_scatter_test.c - differential tests of the fast scatter kernel
 * (fast_scatter.c) against the reference (hlo_ref_scatter): every dimension
 * number form of operation_semantics' scatter (window dims anywhere,
 * inserted dims, partial and overlapping windows, index_vector_dim 0, last
 * and implicit, batching dims), every typed combiner and element type, the
 * combiner fallback, variadic scatter; bit for bit, kernel checked. */
static const char *dt_name = "fast_scatter_test.c";
#include "exec/difftest.h"

/* Combiner bodies; %s = element type. */
static const struct {
  const char *name, *body, *kern;
} COMBS[] = {
    {"assign", "  x = %s[] parameter(0)\n  ROOT y = %s[] parameter(1)", "(assign)"},
    {"add", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] add(x, y)", "(add)"},
    {"add_sw", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] add(y, x)", "(add)"},
    {"mul", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] multiply(x, y)",
     "(multiply)"},
    {"max", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] maximum(x, y)",
     "(maximum)"},
    {"max_sw", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] maximum(y, x)",
     "(maximum)"},
    {"min", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] minimum(x, y)",
     "(minimum)"},
    {"min_sw", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] minimum(y, x)",
     "(minimum)"},
    {"and", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] and(x, y)", "(and)"},
    {"or", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] or(y, x)", "(or)"},
    {"xor", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] xor(x, y)", "(xor)"},
    /* not a typed combiner: the combiner runs per element */
    {"sub", "  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT z = %s[] subtract(x, y)",
     "(combiner)"},
    {"keep", "  ROOT x = %s[] parameter(0)\n  y = %s[] parameter(1)", "(combiner)"},
};
enum { NCOMB = sizeof COMBS / sizeof COMBS[0] };

static int comb_id(const char *name) {
  for (int i = 0; i < NCOMB; i++)
    if (strcmp(COMBS[i].name, name) == 0) return i;
  return 0;
}

/* One scatter: element type t, index type it, indices = remainder(random
 * s32, mod) (so negative, in-range and past-the-end values and many
 * duplicates), attrs = the dimension numbers. */
static void scat(int line, const char *t, const char *it, const char *comb, const char *odims,
                 const char *idims, const char *udims, int mod, const char *attrs, int nan,
                 const char *want) {
  char body[512], text[4096];
  int c = comb_id(comb);
  subst(body, sizeof body, COMBS[c].body, t);
  snprintf(text, sizeof text,
           "HloModule m\ncomb {\n%s\n}\n"
           "ENTRY e {\n  a = %s[%s] parameter(0)\n  r = s32[%s] parameter(1)\n"
           "  u = %s[%s] parameter(2)\n  m = s32[] constant(%d)\n"
           "  mb = s32[%s] broadcast(m), dimensions={}\n  i0 = s32[%s] remainder(r, mb)\n"
           "  i = %s[%s] convert(i0)\n"
           "  ROOT s = %s[%s] scatter(a, i, u), %s, to_apply=comb\n}\n",
           body, t, odims, idims, t, udims, mod, idims, idims, it, idims, t, odims, attrs);
  char k[64];
  snprintf(k, sizeof k, "hlo_fast_scatter%s", want ? want : COMBS[c].kern);
  check(line, text, k, nan);
}

/* The dimension-number forms, each with every combiner on type t. */
static void forms(const char *t, const char *it, const char *comb, int nan, const char *want) {
  /* columns: window along dim 0 (stride), index into dim 1 */
  scat(__LINE__, t, it, comb, "8,9", "60,1", "60,8", 12,
       "update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1},"
       " index_vector_dim=1", nan, want);
  /* the same with the window dim first in the updates: runs along the
   * scatter dim, one element per window */
  scat(__LINE__, t, it, comb, "8,9", "60", "8,60", 12,
       "update_window_dims={0}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1},"
       " index_vector_dim=1", nan, want);
  /* points: 2-component index vectors, scalar updates */
  scat(__LINE__, t, it, comb, "9,11", "300,2", "300", 13,
       "update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1},"
       " index_vector_dim=1", nan, want);
  /* index_vector_dim=0, components reversed onto the operand dims */
  scat(__LINE__, t, it, comb, "9,11", "2,300", "300", 13,
       "update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={1,0},"
       " index_vector_dim=0", nan, want);
  /* partial overlapping 2-D windows [3,4] in a [6,7,5] operand */
  scat(__LINE__, t, it, comb, "6,7,5", "40,2", "40,3,4", 8,
       "update_window_dims={1,2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,2},"
       " index_vector_dim=1", nan, want);
  /* window dim between two index batch dims */
  scat(__LINE__, t, it, comb, "7,6", "4,5,1", "4,3,5", 8,
       "update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1},"
       " index_vector_dim=2", nan, want);
  /* overlapping windows on a 1-D operand, window dim outer: the update
   * order (not the window order) decides which write lands last */
  scat(__LINE__, t, it, comb, "5", "30,1", "2,30", 6,
       "update_window_dims={0}, inserted_window_dims={}, scatter_dims_to_operand_dims={0},"
       " index_vector_dim=1", nan, want);
  /* whole-operand windows (index must be 0) and implicit index vector dim */
  scat(__LINE__, t, it, comb, "4,3", "25", "25,4,3", 2,
       "update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0},"
       " index_vector_dim=1", nan, want);
  /* batching dims: operand dim 0 paired with index dim 0 */
  scat(__LINE__, t, it, comb, "3,10,4", "3,20,1", "3,20,4", 12,
       "update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1},"
       " input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2",
       nan, want);
  /* empty updates */
  scat(__LINE__, t, it, comb, "8,9", "0,1", "0,9", 12,
       "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0},"
       " index_vector_dim=1", nan, want);
}

static void test_typed(void) {
  static const char *floats[] = {"f32", "f64", "f16", "bf16"};
  static const char *ints[] = {"s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"};
  static const char *its[] = {"s32", "u32", "s64", "u64", "s8", "u16"};
  static const char *fcombs[] = {"assign", "add", "add_sw", "mul", "max", "max_sw", "min", "min_sw"};
  int n = 0;
  for (int i = 0; i < 4; i++)
    for (int c = 0; c < 8; c++, n++) {
      forms(floats[i], its[n % 6], fcombs[c], 0, NULL);
      forms(floats[i], its[(n + 1) % 6], fcombs[c], 4, NULL); /* 1 in 4 elements NaN */
    }
  for (int i = 0; i < 8; i++)
    for (int c = 0; c < 11; c++, n++) forms(ints[i], its[n % 6], COMBS[c].name, 0, NULL);
  static const char *pcombs[] = {"assign", "add", "mul", "max", "min", "and", "or", "xor"};
  for (int c = 0; c < 8; c++) forms("pred", its[c % 6], pcombs[c], 0, NULL);
  /* index types beyond int64 (u64 from negative s32) and narrow ones */
  forms("f32", "u64", "add", 0, NULL);
  forms("s32", "u8", "assign", 0, NULL);
}

static void test_generic(void) {
  /* other combiners, and types without typed loops */
  forms("f32", "s32", "sub", 3, NULL);
  forms("s16", "s64", "keep", 0, NULL);
  forms("f64", "u32", "sub", 0, NULL);
  forms("c64", "s32", "add", 0, "(combiner)");
  forms("c128", "s32", "assign", 0, "(combiner)");
  forms("f8e5m2", "s32", "add", 0, "(combiner)");
  forms("f8e4m3fn", "s32", "assign", 0, "(combiner)");
  forms("s4", "s32", "add", 0, "(combiner)");
  forms("u4", "s32", "assign", 0, "(combiner)");
  scat(__LINE__, "f32", "s32", "add", "8,9", "60,1", "60,8", 12,
       "update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1},"
       " index_vector_dim=1", 0, "(add)");
  /* a scalar operand: every update combines into it, in order */
  scat(__LINE__, "f32", "s32", "add", "", "50,0", "50", 5,
       "update_window_dims={}, inserted_window_dims={}, scatter_dims_to_operand_dims={},"
       " index_vector_dim=1", 3, NULL);
  scat(__LINE__, "f16", "s32", "sub", "", "50,0", "50", 5,
       "update_window_dims={}, inserted_window_dims={}, scatter_dims_to_operand_dims={},"
       " index_vector_dim=1", 0, NULL);
  /* a combiner of several instructions */
  check(__LINE__,
        "HloModule m\ncomb {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
        "  t = f32[] multiply(x, y)\n  ROOT z = f32[] add(t, y)\n}\n"
        "ENTRY e {\n  a = f32[9,11] parameter(0)\n  i = s32[200,2] parameter(1)\n"
        "  u = f32[200] parameter(2)\n  m = s32[] constant(11)\n"
        "  mb = s32[200,2] broadcast(m), dimensions={}\n  j = s32[200,2] remainder(i, mb)\n"
        "  ROOT s = f32[9,11] scatter(a, j, u), update_window_dims={},"
        " inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1,"
        " to_apply=comb\n}\n",
        "hlo_fast_scatter(combiner)", 0);
}

static void test_variadic(void) {
  /* separable: add on f32, max on s32, assign on u8 */
  check(__LINE__,
        "HloModule m\ncomb {\n  x0 = f32[] parameter(0)\n  x1 = s32[] parameter(1)\n"
        "  x2 = u8[] parameter(2)\n  y0 = f32[] parameter(3)\n  y1 = s32[] parameter(4)\n"
        "  y2 = u8[] parameter(5)\n  a = f32[] add(x0, y0)\n  b = s32[] maximum(y1, x1)\n"
        "  ROOT t = (f32[], s32[], u8[]) tuple(a, b, y2)\n}\n"
        "ENTRY e {\n  a0 = f32[8,9] parameter(0)\n  a1 = s32[8,9] parameter(1)\n"
        "  a2 = u8[8,9] parameter(2)\n  r = s32[60,1] parameter(3)\n"
        "  u0 = f32[60,8] parameter(4)\n  u1 = s32[60,8] parameter(5)\n"
        "  u2 = u8[60,8] parameter(6)\n  m = s32[] constant(12)\n"
        "  mb = s32[60,1] broadcast(m), dimensions={}\n  i = s32[60,1] remainder(r, mb)\n"
        "  ROOT s = (f32[8,9], s32[8,9], u8[8,9]) scatter(a0, a1, a2, i, u0, u1, u2),"
        " update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1},"
        " index_vector_dim=1, to_apply=comb\n}\n",
        "hlo_fast_scatter(variadic)", 5);
  /* not separable: keep the pair with the larger key (argmax-like) */
  check(__LINE__,
        "HloModule m\ncomb {\n  x0 = f32[] parameter(0)\n  x1 = s32[] parameter(1)\n"
        "  y0 = f32[] parameter(2)\n  y1 = s32[] parameter(3)\n"
        "  g = pred[] compare(y0, x0), direction=GT\n"
        "  a = f32[] select(g, y0, x0)\n  b = s32[] select(g, y1, x1)\n"
        "  ROOT t = (f32[], s32[]) tuple(a, b)\n}\n"
        "ENTRY e {\n  a0 = f32[9,11] parameter(0)\n  a1 = s32[9,11] parameter(1)\n"
        "  r = s32[300,2] parameter(2)\n  u0 = f32[300] parameter(3)\n"
        "  u1 = s32[300] parameter(4)\n  m = s32[] constant(10)\n"
        "  mb = s32[300,2] broadcast(m), dimensions={}\n  i = s32[300,2] remainder(r, mb)\n"
        "  ROOT s = (f32[9,11], s32[9,11]) scatter(a0, a1, i, u0, u1), update_window_dims={},"
        " inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1,"
        " to_apply=comb\n}\n",
        "hlo_fast_scatter(combiner)", 0);
}

/* Runs along a strided operand dim: combined in a transposed copy (large
 * operands), and one large case with runs along the scatter dim. */
static void test_large(void) {
  static const char *cols =
      "update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1},"
      " index_vector_dim=1";
  scat(__LINE__, "f32", "s32", "add", "512,1024", "3000,1", "3000,512", 1100, cols, 0,
       "(add, transposed)");
  scat(__LINE__, "f64", "s64", "assign", "256,300", "500,1", "500,256", 330, cols, 5,
       "(assign, transposed)");
  scat(__LINE__, "f16", "u32", "max", "256,300", "500,1", "500,256", 330, cols, 5,
       "(maximum, transposed)");
  scat(__LINE__, "s8", "s32", "add", "256,300", "500,1", "500,256", 330, cols, 0,
       "(add, transposed)");
  scat(__LINE__, "pred", "s32", "or", "256,300", "500,1", "500,256", 330, cols, 0,
       "(or, transposed)");
  scat(__LINE__, "f32", "s32", "sub", "256,300", "500,1", "500,256", 330, cols, 0,
       "(combiner, transposed)");
  /* middle operand dim, window over dims 0 and 1 (merged into one run) */
  scat(__LINE__, "f32", "s32", "assign", "16,64,80", "40,1", "40,16,64", 90,
       "update_window_dims={1,2}, inserted_window_dims={2}, scatter_dims_to_operand_dims={2},"
       " index_vector_dim=1", 0, "(assign, transposed)");
  check(__LINE__,
        "HloModule m\ncomb {\n  x0 = f32[] parameter(0)\n  x1 = s32[] parameter(1)\n"
        "  y0 = f32[] parameter(2)\n  y1 = s32[] parameter(3)\n  a = f32[] add(x0, y0)\n"
        "  ROOT t = (f32[], s32[]) tuple(a, y1)\n}\n"
        "ENTRY e {\n  a0 = f32[128,200] parameter(0)\n  a1 = s32[128,200] parameter(1)\n"
        "  r = s32[400,1] parameter(2)\n  u0 = f32[400,128] parameter(3)\n"
        "  u1 = s32[400,128] parameter(4)\n  m = s32[] constant(210)\n"
        "  mb = s32[400,1] broadcast(m), dimensions={}\n  i = s32[400,1] remainder(r, mb)\n"
        "  ROOT s = (f32[128,200], s32[128,200]) scatter(a0, a1, i, u0, u1),"
        " update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1},"
        " index_vector_dim=1, to_apply=comb\n}\n",
        "hlo_fast_scatter(variadic, transposed)", 3);
  /* the operand is an intermediate that dies here: its buffer becomes the
   * result (transposed and in place); no NaN inputs: the fast negate keeps
   * a signaling NaN signaling where the reference's quiets it */
  for (int tr = 0; tr < 2; tr++) {
    char text[2048];
    snprintf(text, sizeof text,
             "HloModule m\ncomb {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
             "  ROOT z = f32[] add(x, y)\n}\n"
             "ENTRY e {\n  a = f32[256,300] parameter(0)\n  r = s32[%d,1] parameter(1)\n"
             "  u = f32[%d,256] parameter(2)\n  n = f32[256,300] negate(a)\n"
             "  m = s32[] constant(310)\n  mb = s32[%d,1] broadcast(m), dimensions={}\n"
             "  i = s32[%d,1] remainder(r, mb)\n"
             "  ROOT s = f32[256,300] scatter(n, i, u), update_window_dims={1},"
             " inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=1,"
             " to_apply=comb\n}\n", tr ? 500 : 20, tr ? 500 : 20, tr ? 500 : 20, tr ? 500 : 20);
    check(__LINE__, text, tr ? "(add, transposed)" : "hlo_fast_scatter(add)", 0);
  }
  /* few updates: strided in place */
  scat(__LINE__, "f32", "s32", "add", "512,1024", "20,1", "20,512", 1100, cols, 0, "(add)");
  scat(__LINE__, "f32", "s32", "assign", "512,1024", "3000,1", "512,3000", 1100,
       "update_window_dims={0}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1},"
       " index_vector_dim=1", 0, NULL);
}

int main(void) {
  test_typed();
  test_generic();
  test_variadic();
  test_large();
  TEST_MAIN_END("fast_scatter");
}
