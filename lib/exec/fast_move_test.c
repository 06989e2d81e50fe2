/* fast_move_test.c - differential tests of the fast data-movement kernels
 * (sort, transpose, slice/concatenate/pad/broadcast/dynamic slices,
 * scatter) against the reference path: every result must be bit for bit
 * the reference's, on inputs full of ties, both zeros, infinities,
 * subnormals, NaN and integers at their limits. */
#include "exec/fast.h"
#include "testing.h"

static const char *dt_name = "fast_move_test.c";
#include "exec/difftest.h"

/* ---- sort ---------------------------------------------------------------------- */
static void sort_th(int line, const char *t, const char *dims, int dim, const char *cmp,
                    const char *ctype, const char *want, int nan, int threads) {
  char text[2048];
  snprintf(text, sizeof text,
           "HloModule m\ncmp {\n  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n"
           "  ROOT l = pred[] compare(%s), direction=%s%s\n}\n"
           "ENTRY e {\n  a = %s[%s] parameter(0)\n"
           "  ROOT s = %s[%s] sort(a), dimensions={%d}, is_stable=true, to_apply=cmp\n}\n",
           t, t, strchr(cmp, '!') ? "y, x" : "x, y", cmp[0] == 'L' ? "LT" : "GT", ctype, t, dims,
           t, dims, dim);
  check_th(line, text, want, nan ? 97 : 0, threads);
}

static void sort_one(int line, const char *t, const char *dims, int dim, const char *cmp,
                     const char *ctype, const char *want, int nan) {
  sort_th(line, t, dims, dim, cmp, ctype, want, nan, 0);
}

/* A long row whose keys are the parameter combined (op) with a constant, so
 * that they differ in few bits, key only and with a payload. */
static void sort_long_range(int line, const char *t, const char *op, const char *cst) {
  char text[2048];
  for (int perm = 0; perm < 2; perm++) {
    snprintf(text, sizeof text,
             "HloModule m\ncmp {\n  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n%s"
             "  ROOT l = pred[] compare(x, y), direction=LT\n}\n"
             "ENTRY e {\n  p = %s[50000] parameter(0)\n  k = %s[] constant(%s)\n"
             "  kb = %s[50000] broadcast(k), dimensions={}\n  a = %s[50000] %s(p, kb)\n%s"
             "  ROOT s = %s sort(a%s), dimensions={0}, to_apply=cmp\n}\n",
             t, t, perm ? "  u = f32[] parameter(2)\n  v = f32[] parameter(3)\n" : "", t, t, cst, t, t,
             op, perm ? "  i = f32[50000] parameter(1)\n" : "",
             perm ? (strcmp(t, "s64") == 0 ? "(s64[50000], f32[50000])"
                     : strcmp(t, "u32") == 0 ? "(u32[50000], f32[50000])" : "(s32[50000], f32[50000])")
                  : (strcmp(t, "s64") == 0 ? "s64[50000]" : strcmp(t, "u32") == 0 ? "u32[50000]" : "s32[50000]"),
             perm ? ", i" : "");
    check_th(line, text, "radix", 0, 2);
  }
}

static void test_sort(void) {
  static const char *types[] = {"f32", "f64", "f16", "bf16", "s8", "u8", "s16", "u16",
                                "s32", "u32", "s64", "u64", "pred"};
  for (int i = 0; i < 13; i++)
    for (int desc = 0; desc < 2; desc++) {
      const char *c = desc ? "GT" : "LT";
      sort_one(__LINE__, types[i], "1500", 0, c, "", "radix", false);
      sort_one(__LINE__, types[i], "37,300", 1, c, "", "radix", false);   /* 8-bit digits */
      sort_one(__LINE__, types[i], "300,37", 0, c, "", "radix", false);   /* strided rows */
      sort_one(__LINE__, types[i], "3,20,5", 1, c, "", "radix", false);   /* insertion */
    }
  /* comparator with swapped parameters, explicit comparison types */
  sort_one(__LINE__, "f32", "2000", 0, "L!", "", "radix", false);
  sort_one(__LINE__, "s32", "2000", 0, "G!", "", "radix", false);
  sort_one(__LINE__, "s32", "2000", 0, "LT", ", type=SIGNED", "radix", false);
  sort_one(__LINE__, "u64", "2000", 0, "LT", ", type=UNSIGNED", "radix", false);
  sort_one(__LINE__, "u16", "2000", 0, "GT", ", type=UNSIGNED", "radix", false);
  sort_one(__LINE__, "f64", "2000", 0, "LT", ", type=FLOAT", "radix", false);
  /* NaN: the reference kernel runs */
  sort_one(__LINE__, "f32", "4,3000", 1, "LT", "", "radix", true);
  sort_one(__LINE__, "bf16", "3000,4", 0, "GT", "", "radix", true);
  /* a large row sorted on several threads' items; rows of 1 and 0 */
  sort_one(__LINE__, "f32", "70000", 0, "LT", "", "radix", false);
  sort_one(__LINE__, "f32", "100000", 0, "GT", "", "radix", false);
  sort_th(__LINE__, "f32", "100000", 0, "GT", "", "radix", false, 4); /* rows split in 3 */
  sort_th(__LINE__, "s16", "100000", 0, "LT", "", "radix", false, 4);
  sort_one(__LINE__, "s32", "40,1", 1, "LT", "", "radix", false);
  sort_one(__LINE__, "f32", "0,5", 1, "LT", "", "radix", false);
  /* long rows (most-significant digit first, then buckets): every type
   * both ways, strided, on 1, 2 and 3 threads */
  for (int i = 0; i < 13; i++)
    for (int desc = 0; desc < 2; desc++) {
      const char *c = desc ? "GT" : "LT";
      sort_th(__LINE__, types[i], "40000", 0, c, "", "radix", false, 1 + desc);
      sort_th(__LINE__, types[i], "33000,2", 0, c, "", "radix", false, 3);
    }
  sort_long_range(__LINE__, "s32", "and", "255");        /* 8 differing bits: one pass */
  sort_long_range(__LINE__, "s32", "and", "4095");       /* 12 bits: 1-bit buckets */
  sort_long_range(__LINE__, "s64", "and", "1048575");    /* 20 bits */
  sort_long_range(__LINE__, "s32", "and", "0");          /* all equal */
  sort_long_range(__LINE__, "u32", "or", "4294967040");  /* top 24 bits equal */
  sort_long_range(__LINE__, "s64", "or", "-256");        /* negatives, 8 bits differ */
  /* key + values: the other operands move by the permutation */
  check(__LINE__,
        "HloModule m\ncmp {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
        "  p = s32[] parameter(2)\n  q = s32[] parameter(3)\n"
        "  u = c64[] parameter(4)\n  v = c64[] parameter(5)\n"
        "  ROOT l = pred[] compare(x, y), direction=GT\n}\n"
        "ENTRY e {\n  a = f32[6,900] parameter(0)\n  i = s32[6,900] parameter(1)\n"
        "  c = c64[6,900] parameter(2)\n"
        "  ROOT s = (f32[6,900], s32[6,900], c64[6,900]) sort(a, i, c), dimensions={1},"
        " to_apply=cmp\n}\n",
        "permute", 0);
  check(__LINE__,
        "HloModule m\ncmp {\n  x = u8[] parameter(0)\n  y = u8[] parameter(1)\n"
        "  p = f64[] parameter(2)\n  q = f64[] parameter(3)\n"
        "  ROOT l = pred[] compare(x, y), direction=LT\n}\n"
        "ENTRY e {\n  a = u8[700,3] parameter(0)\n  i = f64[700,3] parameter(1)\n"
        "  ROOT s = (u8[700,3], f64[700,3]) sort(a, i), dimensions={0}, to_apply=cmp\n}\n",
        "permute", 0);
  check_th(__LINE__,
        "HloModule m\ncmp {\n  x = f64[] parameter(0)\n  y = f64[] parameter(1)\n"
        "  p = s32[] parameter(2)\n  q = s32[] parameter(3)\n"
        "  ROOT l = pred[] compare(x, y), direction=LT\n}\n"
        "ENTRY e {\n  a = f64[100000] parameter(0)\n  i = s32[100000] parameter(1)\n"
        "  ROOT s = (f64[100000], s32[100000]) sort(a, i), dimensions={0}, to_apply=cmp\n}\n",
        "permute", 0, 4); /* rows split */
  /* comparing operand 1 instead is not a plain comparator: reference kernel */
  check(__LINE__,
        "HloModule m\ncmp {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
        "  p = f32[] parameter(2)\n  q = f32[] parameter(3)\n"
        "  ROOT l = pred[] compare(p, q), direction=LT\n}\n"
        "ENTRY e {\n  a = f32[300] parameter(0)\n  i = f32[300] parameter(1)\n"
        "  ROOT s = (f32[300], f32[300]) sort(a, i), dimensions={0}, to_apply=cmp\n}\n",
        "hlo_ref_sort", 0);
}

/* ---- transpose --------------------------------------------------------------------- */
static void tr_one(int line, const char *t, const int64_t *dims, const int *perm, int n,
                   const char *want) {
  char in[256] = "", outd[256] = "", pm[128] = "", text[1024];
  for (int d = 0; d < n; d++) {
    snprintf(in + strlen(in), sizeof in - strlen(in), "%s%lld", d ? "," : "", (long long)dims[d]);
    snprintf(outd + strlen(outd), sizeof outd - strlen(outd), "%s%lld", d ? "," : "",
             (long long)dims[perm[d]]);
    snprintf(pm + strlen(pm), sizeof pm - strlen(pm), "%s%d", d ? "," : "", perm[d]);
  }
  snprintf(text, sizeof text,
           "HloModule m\nENTRY e {\n  a = %s[%s] parameter(0)\n"
           "  ROOT t = %s[%s] transpose(a), dimensions={%s}\n}\n", t, in, t, outd, pm);
  check(line, text, want, false);
}

static void test_transpose(void) {
  static const char *types[] = {"f32", "f64", "s8", "bf16", "c64", "c128", "pred"};
  for (int i = 0; i < 7; i++) {
    /* 2-D with ragged tiles; batched; odd sizes; tiny */
    tr_one(__LINE__, types[i], (int64_t[]){67, 45}, (int[]){1, 0}, 2, "tiled");
    tr_one(__LINE__, types[i], (int64_t[]){3, 33, 70}, (int[]){0, 2, 1}, 3, "tiled");
    tr_one(__LINE__, types[i], (int64_t[]){5, 6, 7, 8}, (int[]){3, 1, 0, 2}, 4, "tiled");
    tr_one(__LINE__, types[i], (int64_t[]){5, 6, 7, 8}, (int[]){2, 0, 1, 3}, 4, "runs");
    tr_one(__LINE__, types[i], (int64_t[]){1, 3}, (int[]){1, 0}, 2, "copy");
    tr_one(__LINE__, types[i], (int64_t[]){2, 1, 3}, (int[]){1, 2, 0}, 3, "tiled");
  }
  /* merged dims: {2,3} stay adjacent, as do {0,1} */
  tr_one(__LINE__, "f32", (int64_t[]){4, 9, 10, 11}, (int[]){2, 3, 0, 1}, 4, "tiled");
  tr_one(__LINE__, "s32", (int64_t[]){4, 9, 1, 10, 11}, (int[]){3, 2, 4, 0, 1}, 5, "tiled");
  /* large enough for threads (>= 1 MB) */
  tr_one(__LINE__, "f32", (int64_t[]){700, 520}, (int[]){1, 0}, 2, "tiled");
  tr_one(__LINE__, "f64", (int64_t[]){3, 300, 170}, (int[]){2, 0, 1}, 3, "tiled");
  tr_one(__LINE__, "f32", (int64_t[]){600, 5, 100}, (int[]){1, 0, 2}, 3, "runs");
  tr_one(__LINE__, "f32", (int64_t[]){0, 5}, (int[]){1, 0}, 2, "tiled");
}

/* ---- contiguous movement ---------------------------------------------------------- */
static void test_contiguous(void) {
  static const char *types[] = {"f32", "s8", "f64", "c128", "bf16"};
  for (int i = 0; i < 5; i++) {
    const char *t = types[i];
    char text[1024];
#define CASE(body, want)                                                        \
  do {                                                                          \
    subst(text, sizeof text, "HloModule m\nENTRY e {\n" body "\n}\n", t);         \
    check(__LINE__, text, want, 0);                                         \
  } while (0)
    /* whole rows (merged into one copy), strided, inner ranges */
    CASE("  a = %s[20,7,9] parameter(0)\n  ROOT s = %s[5,7,9] slice(a), slice={[3:8],[0:7],[0:9]}",
         "hlo_fast_slice");
    CASE("  a = %s[20,7,9] parameter(0)\n  ROOT s = %s[6,3,4] slice(a), slice={[1:19:3],[2:5],[1:9:2]}",
         "hlo_fast_slice");
    CASE("  a = %s[4,5,6] parameter(0)\n  b = %s[4,2,6] parameter(1)\n  c = %s[4,1,6] parameter(2)\n"
         "  ROOT r = %s[4,8,6] concatenate(a, b, c), dimensions={1}", "hlo_fast_concatenate");
    CASE("  a = %s[3,5] parameter(0)\n  b = %s[3,0] parameter(1)\n  c = %s[3,2] parameter(2)\n"
         "  ROOT r = %s[3,7] concatenate(a, b, c), dimensions={1}", "hlo_fast_concatenate");
    CASE("  a = %s[5,3] parameter(0)\n  b = %s[2,3] parameter(1)\n"
         "  ROOT r = %s[7,3] concatenate(a, b), dimensions={0}", "hlo_fast_concatenate");
    CASE("  a = %s[5,6,7] parameter(0)\n  z = %s[] parameter(1)\n"
         "  ROOT p = %s[9,8,16] pad(a, z), padding=2_2x0_2x1_2_1", "hlo_fast_pad");
    CASE("  a = %s[5,6,7] parameter(0)\n  z = %s[] parameter(1)\n"
         "  ROOT p = %s[4,8,6] pad(a, z), padding=-1_0x1_1x0_-1", "hlo_fast_pad");
    CASE("  a = %s[7] parameter(0)\n  ROOT b = %s[3,7,4] broadcast(a), dimensions={1}",
         "hlo_fast_broadcast");
    CASE("  a = %s[3,7] parameter(0)\n  ROOT b = %s[3,7,5] broadcast(a), dimensions={0,1}",
         "hlo_fast_broadcast");
    CASE("  a = %s[] parameter(0)\n  ROOT b = %s[33,3] broadcast(a), dimensions={}",
         "hlo_fast_broadcast");
    CASE("  a = %s[10,6,5] parameter(0)\n  i = s32[] constant(7)\n  j = s32[] constant(-2)\n"
         "  ROOT d = %s[4,6,5] dynamic-slice(a, i, j, j), dynamic_slice_sizes={4,6,5}",
         "hlo_fast_dynamic_slice");
    CASE("  a = %s[10,6,5] parameter(0)\n  u = %s[3,2,5] parameter(1)\n  i = s32[] constant(2)\n"
         "  j = s32[] constant(9)\n  k = s32[] constant(0)\n"
         "  ROOT d = %s[10,6,5] dynamic-update-slice(a, u, i, j, k)", "hlo_fast_dynamic_update_slice");
    CASE("  a = %s[6,10] parameter(0)\n  ROOT r = %s[3,2,10] reshape(a)", "hlo_fast_reshape");
    CASE("  a = %s[6,10]{1,0} parameter(0)\n  ROOT r = %s[60]{0} bitcast(a)", "hlo_fast_bitcast");
    CASE("  a = %s[6,10]{0,1} parameter(0)\n  ROOT r = %s[10,6]{1,0} bitcast(a)", "hlo_fast_bitcast");
    CASE("  a = %s[6,1,10]{2,0,1} parameter(0)\n  ROOT r = %s[60]{0} bitcast(a)", "hlo_fast_bitcast");
#undef CASE
  }
}

/* ---- scatter ---------------------------------------------------------------------- */
/* Indices = remainder(random s32, 13) converted to it: duplicates, negative
 * and past-the-end rows (10 rows), huge unsigned values. */
static void scat_one(int line, const char *t, const char *it, const char *comb, const char *idims,
                     const char *udims, const char *odims, int ivd, const char *uwd,
                     const char *want, int nan) {
  char text[2048];
  const char *body = strcmp(comb, "assign") == 0 ? "x = %s[] parameter(0)\n  ROOT y = %s[] parameter(1)"
      : strcmp(comb, "add") == 0 ? "x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT s = %s[] add(x, y)"
                                 : "x = %s[] parameter(0)\n  y = %s[] parameter(1)\n  ROOT s = %s[] add(y, x)";
  char rootl[256];
  subst(rootl, sizeof rootl, body, t);
  snprintf(text, sizeof text,
           "HloModule m\ncomb {\n  %s\n}\n"
           "ENTRY e {\n  a = %s[%s] parameter(0)\n  r = s32[%s] parameter(1)\n"
           "  u = %s[%s] parameter(2)\n  m = s32[] constant(13)\n"
           "  mb = s32[%s] broadcast(m), dimensions={}\n  i0 = s32[%s] remainder(r, mb)\n"
           "  i = %s[%s] convert(i0)\n"
           "  ROOT s = %s[%s] scatter(a, i, u), update_window_dims={%s}, inserted_window_dims={0},"
           " scatter_dims_to_operand_dims={0}, index_vector_dim=%d, to_apply=comb\n}\n",
           rootl, t, odims, idims, t, udims, idims, idims, it, idims, t, odims, uwd, ivd);
  check(line, text, want, nan);
}

static void test_scatter(void) {
  static const char *types[] = {"f32", "f64", "s32", "u8", "s16", "u64"};
  static const char *combs[] = {"add", "add_swapped", "assign"};
  static const char *its[] = {"s32", "u32", "s64", "u64"};
  for (int i = 0; i < 6; i++)
    for (int c = 0; c < 3; c++) {
      const char *it = its[(i + c) % 4];
      bool fl = types[i][0] == 'f';
      scat_one(__LINE__, types[i], it, combs[c], "200,1", "200,7", "10,7", 1, "1", "hlo_fast_scatter(", fl ? 3 : 0);
      scat_one(__LINE__, types[i], it, combs[c], "20,10", "20,10,3,4", "10,3,4", 2, "2,3", "hlo_fast_scatter(", 0);
      scat_one(__LINE__, types[i], it, combs[c], "300", "300", "10", 1, "", "hlo_fast_scatter(", fl ? 3 : 0);
    }
  /* no rows: every index is out of bounds */
  scat_one(__LINE__, "f32", "s32", "add", "50,1", "50,7", "0,7", 1, "1", "hlo_fast_scatter(", 0);
  /* f16 add, partial windows (more in fast_scatter_test.c) */
  scat_one(__LINE__, "f16", "s32", "add", "50,1", "50,7", "10,7", 1, "1", "hlo_fast_scatter(add)", 0);
  scat_one(__LINE__, "f32", "s32", "add", "50,1", "50,5", "10,7", 1, "1", "hlo_fast_scatter(add)", 0);
}

/* ---- batch norm (features shared among threads) ------------------------------ */
/* batch-norm-training and -grad of T[X] with feature dimension fi of size 37 */
static void bn_pair(int line, const char *T, const char *X, int fi, int th) {
  char text[2048];
  snprintf(text, sizeof text,
           "HloModule m\nENTRY e {\n  x = %s[%s] parameter(0)\n  s = %s[37] parameter(1)\n"
           "  o = %s[37] parameter(2)\n"
           "  ROOT y = (%s[%s], %s[37], %s[37]) batch-norm-training(x, s, o),"
           " epsilon=0.001, feature_index=%d\n}\n",
           T, X, T, T, T, X, T, T, fi);
  check_th(line, text, "batch_norm_training", 0, th);
  snprintf(text, sizeof text,
           "HloModule m\nENTRY e {\n  x = %s[%s] parameter(0)\n  s = %s[37] parameter(1)\n"
           "  m = %s[37] parameter(2)\n  v = %s[37] parameter(3)\n  d = %s[%s] parameter(4)\n"
           "  ROOT g = (%s[%s], %s[37], %s[37]) batch-norm-grad(x, s, m, v, d),"
           " epsilon=0.001, feature_index=%d\n}\n",
           T, X, T, T, T, T, X, T, X, T, T, fi);
  check_th(line, text, "batch_norm_grad", 0, th);
}

static void test_batch_norm(void) {
  static const char *types[] = {"f32", "f64"};
  for (int t = 0; t < 2; t++)
    for (int th = 1; th <= 3; th += 2) {
      const char *T = types[t];
      /* runs of 2000 elements (whole blocks of bn_lanes.h's lanes), of 1
       * (feature last), and of 39 (4 blocks and a remainder of 7) */
      bn_pair(__LINE__, T, "4,37,40,50", 1, th);
      bn_pair(__LINE__, T, "4,40,50,37", 3, th);
      bn_pair(__LINE__, T, "64,37,3,13", 1, th);
      char text[2048];
      snprintf(text, sizeof text,
               "HloModule m\nENTRY e {\n  x = %s[4,37,40,50] parameter(0)\n  s = %s[37] parameter(1)\n"
               "  o = %s[37] parameter(2)\n  m = %s[37] parameter(3)\n  v = %s[37] parameter(4)\n"
               "  ROOT y = %s[4,37,40,50] batch-norm-inference(x, s, o, m, v),"
               " epsilon=0.001, feature_index=1\n}\n",
               T, T, T, T, T, T);
      check_th(__LINE__, text, "batch_norm_inference", 0, th);
    }
}

int main(void) {
  test_batch_norm();
  test_sort();
  test_transpose();
  test_contiguous();
  test_scatter();
  TEST_MAIN_END("fast_move");
}
