/* verify_test.c - unit tests of hlo_verify_module: a valid module, a module
 * with several errors (all reported, in order, at their instructions), the
 * options, and allocation failures. */
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_text.h"
#include "hlo/hlo_verify.h"
#include "testing.h"

static int verify_text(const char *text, const hlo_verify_options *o, hlo_diags *d, const hlo_allocator *a) {
  hlo_src src = {"t.hlo", text, strlen(text)};
  hlo_module *m = hlo_parse_module(&src, 0, src.len, a, d, NULL);
  if (!m) return -2;
  int rc = hlo_verify_module(m, o, d, &src);
  hlo_module_free(m);
  return rc;
}

static const char VALID[] = "HloModule v\nENTRY e {\n  a = f32[4] parameter(0)\n  b = bf16[4] parameter(1)\n"
                            "  c = f32[4] convert(b)\n  ROOT r = f32[4] add(a, c)\n}\n";

static const char MIXED[] = "HloModule v\nENTRY e {\n  a = f32[4] parameter(0)\n  b = bf16[4] parameter(1)\n"
                            "  ROOT r = f32[4] add(a, b)\n}\n";

static void test_valid(void) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  CHECK_INT(verify_text(VALID, NULL, &d, NULL), HLO_OK);
  CHECK_INT(d.n, 0);
  hlo_diags_release(&d);
}

static void test_options(void) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  CHECK_INT(verify_text(MIXED, NULL, &d, NULL), HLO_ERR);
  CHECK_INT(d.nerrors, 1);
  if (d.n) CHECK(strstr(d.v[0].msg, "Seen floating point types of different precisions") != NULL);
  hlo_diags_release(&d);
  hlo_diags_init(&d, NULL);
  hlo_verify_options o = {.allow_mixed_precision = true};
  CHECK_INT(verify_text(MIXED, &o, &d, NULL), HLO_OK);
  hlo_diags_release(&d);
}

static void test_all_errors(void) {
  static const char two[] = "HloModule v\nENTRY e {\n"
                            "  a = f32[4] parameter(0)\n"
                            "  b = f32[5] negate(a)\n"
                            "  ROOT r = s32[4] negate(a)\n}\n";
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_src src = {"t.hlo", two, strlen(two)};
  CHECK_INT(verify_text(two, NULL, &d, NULL), HLO_ERR);
  CHECK_INT(d.nerrors, 2);
  if (d.n == 2) {
    CHECK_INT(hlo_src_loc(&src, d.v[0].off).line, 4);
    CHECK_STR(d.v[0].msg, "%b: Expected instruction to have shape equal to f32[4], actual shape is f32[5].");
    CHECK_INT(hlo_src_loc(&src, d.v[1].off).line, 5);
    CHECK_STR(d.v[1].msg, "%r: Expected instruction to have shape equal to f32[4], actual shape is s32[4].");
  }
  hlo_diags_release(&d);
}


static void test_alloc_failures(void) {
  int hit = 0;
  for (long n = 0; n < 5000; n++) {
    test_counting c = {n, 0};
    hlo_allocator a = TEST_COUNTING_ALLOCATOR(&c);
    hlo_diags d;
    hlo_diags_init(&d, &a);
    verify_text(MIXED, NULL, &d, &a);
    hlo_diags_release(&d);
    if (c.live != 0) {
      CHECK_INT(c.live, 0);
      break;
    }
    if (c.left >= 0) break;
    hit++;
  }
  CHECK(hit >= 2);
}

/* Without hlo_shape_fill_omitted an omitted shape is reported, not guessed. */
static void test_unfilled(void) {
  static const char t[] = "HloModule v\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT n = negate(a)\n}\n";
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  CHECK_INT(verify_text(t, NULL, &d, NULL), HLO_ERR);
  CHECK_INT(d.nerrors, 1);
  if (d.n) CHECK_STR(d.v[0].msg, "%n: the result shape was omitted and has not been inferred");
  hlo_diags_release(&d);
}

int main(void) {
  test_unfilled();
  test_valid();
  test_options();
  test_all_errors();
  test_alloc_failures();
  TEST_MAIN_END("verify");
}
