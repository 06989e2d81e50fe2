/* nplit_test.c - inline numpy-style literals: shapes, element conversion
 * (cross-checked with numpy's np.array(text, dtype) through /usr/bin/python3)
 * and located errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_npy.h"
#include "testing.h"

static hlo_arena A;

static int parse(const char *text, hlo_type t, hlo_array *out, hlo_diags *d) {
  hlo_src src = {"lit", text, strlen(text)};
  return hlo_nplit_parse(&A, &src, t, out, d);
}

static void shape_case(const char *text, hlo_type t, int rank, const int64_t *dims) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_array a;
  int rc = parse(text, t, &a, &d);
  bool ok = rc == HLO_OK && a.rank == rank && a.type == t;
  for (int i = 0; ok && i < rank; i++) ok = a.dims[i] == dims[i];
  if (!ok) printf("shape of [%s] wrong (rc %d, %s)\n", text, rc, d.n ? d.v[0].msg : "");
  CHECK(ok);
  hlo_diags_release(&d);
}

/* An error whose message contains msg, at byte offset off of the text. */
static void error_case(const char *text, hlo_type t, size_t off, const char *msg) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_array a;
  int rc = parse(text, t, &a, &d);
  bool ok = rc == HLO_ERR && d.n == 1 && d.v[0].off == off && strstr(d.v[0].msg, msg);
  if (!ok)
    printf("[%s]: expected error at %zu with '%s', got rc %d at %zu: %s\n", text, off, msg, rc,
           d.n ? d.v[0].off : 0, d.n ? d.v[0].msg : "");
  CHECK(ok);
  hlo_diags_release(&d);
}

static void test_shapes(void) {
  int64_t d23[] = {2, 3}, d0[] = {0}, d20[] = {2, 0}, d1111[] = {1, 1, 1, 1}, d3[] = {3};
  shape_case("3", HLO_S32, 0, NULL);
  shape_case("  -2.5e3 ", HLO_F32, 0, NULL);
  shape_case("[[1, 2, 3], [4, 5, 6]]", HLO_S32, 2, d23);
  shape_case("[[1,2,3,],[4,5,6],]", HLO_S8, 2, d23);
  shape_case("[]", HLO_F32, 1, d0);
  shape_case("[[], []]", HLO_F32, 2, d20);
  shape_case("[[[[true]]]]", HLO_PRED, 4, d1111);
  shape_case("[1+2j, -3j, 4]", HLO_C64, 1, d3);
  shape_case("\n[\n nan,\n -inf,\n inf\n]\n", HLO_F16, 1, d3);
}

static void test_values(void) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_array a;
  CHECK_INT(parse("[[-128, 127], [0, -1]]", HLO_S8, &a, &d), HLO_OK);
  CHECK(memcmp(a.data, "\x80\x7f\x00\xff", 4) == 0);
  CHECK_INT(parse("[18446744073709551615, 0]", HLO_U64, &a, &d), HLO_OK);
  CHECK(((uint64_t *)a.data)[0] == UINT64_MAX);
  CHECK_INT(parse("[-9223372036854775808]", HLO_S64, &a, &d), HLO_OK);
  CHECK(((int64_t *)a.data)[0] == INT64_MIN);
  CHECK_INT(parse("[-8, 7]", HLO_S4, &a, &d), HLO_OK);
  CHECK(((signed char *)a.data)[0] == -8 && ((signed char *)a.data)[1] == 7);
  CHECK_INT(parse("[true, False, 1, 0]", HLO_PRED, &a, &d), HLO_OK);
  CHECK(memcmp(a.data, "\1\0\1\0", 4) == 0);
  CHECK_INT(parse("[True, false]", HLO_S32, &a, &d), HLO_OK);
  CHECK(((int32_t *)a.data)[0] == 1 && ((int32_t *)a.data)[1] == 0);
  CHECK_INT(parse("[1.5, -0.0, +2]", HLO_BF16, &a, &d), HLO_OK);
  CHECK(((uint16_t *)a.data)[0] == 0x3fc0 && ((uint16_t *)a.data)[1] == 0x8000 &&
        ((uint16_t *)a.data)[2] == 0x4000);
  CHECK_INT(parse("[448, -nan]", HLO_F8E4M3FN, &a, &d), HLO_OK);
  CHECK(memcmp(a.data, "\x7e\xff", 2) == 0);
  CHECK_INT(parse("[(1+2j), -1.5e-3-2.5e+2j, 2j, 3, nan+infj]", HLO_C128, &a, &d), HLO_OK);
  double *c = a.data;
  CHECK(c[0] == 1 && c[1] == 2 && c[2] == -1.5e-3 && c[3] == -2.5e2 && c[4] == 0 && c[5] == 2 &&
        c[6] == 3 && c[7] == 0 && c[8] != c[8] && c[9] > 1e308);
  CHECK_INT(d.nerrors, 0);
  hlo_diags_release(&d);
}

/* numpy as the oracle for float conversion. */
static void test_numpy(void) {
  static const struct { const char *text, *dtype; hlo_type t; } cases[] = {
      {"[0.1, 0.2, 1e-8, 65504, -3.14159]", "float16", HLO_F16},
      {"[[0.1, 1e-45], [3.4028235e38, -2.5]]", "float32", HLO_F32},
      {"[0.1, 5e-324, 1.7976931348623157e308, -0.0]", "float64", HLO_F64},
      {"[1+2j, 0.1-0.3j]", "complex64", HLO_C64},
      {"[-32768, 32767, 0]", "int16", HLO_S16},
      {"[4294967295, 7]", "uint32", HLO_U32},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c 'import numpy as np; "
             "print(np.array(%s, dtype=np.%s).tobytes().hex())'",
             cases[i].text, cases[i].dtype);
    FILE *p = popen(cmd, "r");
    char hex[512] = "";
    if (p) {
      if (!fgets(hex, sizeof hex, p)) hex[0] = 0;
      pclose(p);
    }
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_array a;
    CHECK_INT(parse(cases[i].text, cases[i].t, &a, &d), HLO_OK);
    char got[512] = "";
    size_t nb = (size_t)a.nelems * (size_t)hlo_type_bytes(a.type);
    for (size_t k = 0; k < nb && 2 * k + 2 < sizeof got; k++)
      snprintf(got + 2 * k, 3, "%02x", ((unsigned char *)a.data)[k]);
    hex[strcspn(hex, "\n")] = 0;
    CHECK_STR(got, hex);
    hlo_diags_release(&d);
  }
}

static void test_errors(void) {
  error_case("[[1, 2], [3]]", HLO_S32, 9, "ragged list: 1 elements");
  error_case("[[1, 2], 3]", HLO_S32, 9, "expected a list");
  error_case("[1, [2]]", HLO_S32, 4, "expected a scalar");
  error_case("[[], [1]]", HLO_S32, 5, "ragged");
  error_case("[1, 2", HLO_S32, 5, "unterminated");
  error_case("[1 2]", HLO_S32, 3, "expected ',' or ']'");
  error_case("[1,,2]", HLO_S32, 3, "expected a value");
  error_case("", HLO_S32, 0, "expected a value");
  error_case("[1] x", HLO_S32, 4, "unexpected text");
  error_case("[1, 2.5]", HLO_S32, 5, "expected an integer for s32");
  error_case("[128]", HLO_S8, 1, "out of range for s8");
  error_case("[-1]", HLO_U8, 1, "out of range for u8");
  error_case("[8]", HLO_S4, 1, "out of range for s4");
  error_case("[18446744073709551616]", HLO_U64, 1, "out of range for u64");
  error_case("[1, 2j]", HLO_F32, 4, "complex value");
  error_case("[1e39]", HLO_F32, 1, "out of range");
  error_case("[abc]", HLO_F64, 1, "malformed");
  error_case("[2]", HLO_PRED, 1, "true or false");
  error_case("[1+]", HLO_C64, 1, "malformed");
  error_case("[1++2j]", HLO_C64, 1, "malformed");
  error_case("[j]", HLO_C64, 1, "malformed");
  error_case("[(j)]", HLO_C128, 1, "malformed");
  error_case("1", HLO_TUPLE, 0, "cannot make");
  /* Deep nesting is bounded, not a stack overflow. */
  char deep[300];
  memset(deep, '[', 200);
  deep[200] = 0;
  error_case(deep, HLO_S32, 64, "nested too deeply");
}

/* Random texts over the literal alphabet: any outcome but a crash. */
static void test_fuzz(void) {
  static const char alpha[] = "[],0123456789.e-+jnaifTrueFals() ";
  uint64_t st = 0x9e3779b97f4a7c15ull;
  hlo_type types[] = {HLO_S8, HLO_U64, HLO_F16, HLO_C64, HLO_PRED, HLO_S4, HLO_F8E8M0FNU};
  int ok = 0, bad = 0;
  for (int it = 0; it < 20000; it++) {
    char text[40];
    st ^= st << 13, st ^= st >> 7, st ^= st << 17;
    int n = (int)(st % 32);
    for (int i = 0; i < n; i++) {
      st ^= st << 13, st ^= st >> 7, st ^= st << 17;
      text[i] = alpha[st % (sizeof alpha - 1)];
    }
    text[n] = 0;
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_array a;
    int rc = parse(text, types[it % 7], &a, &d);
    if (rc == HLO_OK) ok++;
    else if (!(d.nerrors == 1 && d.v[0].off <= (size_t)n)) bad++;
    hlo_diags_release(&d);
  }
  CHECK(ok > 0);
  CHECK_INT(bad, 0);
}

int main(void) {
  hlo_arena_init(&A, NULL);
  test_shapes();
  test_values();
  test_numpy();
  test_errors();
  test_fuzz();
  hlo_arena_release(&A);
  TEST_MAIN_END("nplit");
}
