/* shape_test.c - unit tests of shape inference: shape text, XLA
 * compatibility, inferred shapes of parsed instructions (expected values
 * worked out by hand from the spec rules), omitted-shape filling, and
 * allocation failures. */
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"
#include "testing.h"

static hlo_shape parse_shape(hlo_arena *a, const char *text) {
  hlo_src src = {"s", text, strlen(text)};
  hlo_shape s;
  memset(&s, 0, sizeof s);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  CHECK(hlo_parse_shape(&src, a, &s, &d) == HLO_OK);
  hlo_diags_release(&d);
  return s;
}

static void test_format(void) {
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  const char *cases[][2] = {
      {"f32[2,3]{1,0}", "f32[2,3]"},
      {"(s32[], (f32[<=4,?]{1,0}, token[]))", "(s32[], (f32[<=4,?], token[]))"},
      {"()", "()"},
      {"pred[]", "pred[]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hlo_shape s = parse_shape(&a, cases[i][0]);
    CHECK_STR(hlo_shape_str(&a, &s, false), cases[i][1]);
  }
  hlo_shape s = parse_shape(&a, "f32[2,3]{0,1}");
  CHECK_STR(hlo_shape_str(&a, &s, true), "f32[2,3]{0,1}");
  hlo_arena_release(&a);
}

static void test_compatible(void) {
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  hlo_shape x = parse_shape(&a, "f32[2,3]{1,0}"), y = parse_shape(&a, "f32[2,3]{0,1}");
  hlo_shape z = parse_shape(&a, "bf16[2,3]"), u = parse_shape(&a, "f32[?,3]"), w = parse_shape(&a, "f32[<=2,3]");
  hlo_shape s = parse_shape(&a, "s32[2,3]");
  CHECK(hlo_shape_xla_compatible(&x, &y, false)); /* layouts ignored */
  CHECK(!hlo_shape_xla_compatible(&x, &z, false));
  CHECK(hlo_shape_xla_compatible(&x, &z, true)); /* fp precision ignored */
  CHECK(!hlo_shape_xla_compatible(&x, &s, true)); /* only floating types */
  CHECK(hlo_shape_xla_compatible(&x, &u, false)); /* '?' matches any size */
  CHECK(hlo_shape_xla_compatible(&x, &w, false)); /* dynamic flags ignored */
  CHECK_INT(hlo_shape_higher_precision(HLO_BF16, HLO_F32), HLO_F32);
  CHECK_INT(hlo_shape_higher_precision(HLO_F64, HLO_F32), HLO_F64);
  hlo_arena_release(&a);
}

static const char MODULE[] =
    "HloModule m\n"
    "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n"
    "ENTRY e {\n"
    "  a = f32[2,3] parameter(0)\n"
    "  b = f32[3,4] parameter(1)\n"
    "  z = f32[] constant(0)\n"
    "  d = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
    "  r = reduce(d, z), dimensions={0}, to_apply=add\n"
    "  p = pad(a, z), padding=0_1_2x1_0\n"
    "  w = reduce-window(a, z), window={size=1x2 stride=1x2 pad=0_0x0_1}, to_apply=add\n"
    "  c = bitcast-convert(a)\n"
    "  ROOT t = tuple(d, r, p, w)\n"
    "}\n";

static void test_fill(void) {
  hlo_src src = {"m.hlo", MODULE, strlen(MODULE)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  CHECK(m != NULL);
  if (!m) return;
  /* bitcast-convert needs its (target type) shape written: one error */
  CHECK(hlo_shape_fill_omitted(m, &d, &src) == HLO_ERR);
  CHECK_INT(d.nerrors, 1);
  if (d.n) CHECK(strstr(d.v[0].msg, "%c: the result shape of bitcast-convert cannot be inferred") != NULL);
  hlo_computation *e = m->entry;
  hlo_arena *a = &m->arena;
  /* dot [2,3]x[3,4] -> [2,4]; reduce dim 0 -> [4]; pad rows 0+2+1+(2-1)*2=5,
   * cols 1+3+0=4; window cols: padded 3+1=4, (4-2)/2+1 = 2 */
  CHECK_STR(hlo_shape_str(a, &hlo_computation_find(e, "d")->shape, true), "f32[2,4]{1,0}");
  CHECK_STR(hlo_shape_str(a, &hlo_computation_find(e, "r")->shape, true), "f32[4]{0}");
  CHECK_STR(hlo_shape_str(a, &hlo_computation_find(e, "p")->shape, false), "f32[5,4]");
  CHECK_STR(hlo_shape_str(a, &hlo_computation_find(e, "w")->shape, false), "f32[2,2]");
  CHECK_STR(hlo_shape_str(a, &hlo_computation_find(e, "t")->shape, false),
            "(f32[2,4], f32[4], f32[5,4], f32[2,2])");
  hlo_module_free(m);
  hlo_diags_release(&d);
}

static void test_infer_errors(void) {
  static const char bad[] = "HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n"
                            "  ROOT s = f32[2,2] slice(a), slice={[0:2], [2:5]}\n}\n";
  hlo_src src = {"b.hlo", bad, strlen(bad)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  CHECK(m != NULL);
  if (!m) return;
  hlo_shape out;
  CHECK(hlo_infer_shape(m->entry->root, &m->arena, &out, &d, &src) == HLO_ERR);
  CHECK_INT(d.nerrors, 1);
  if (d.n) {
    hlo_loc l = hlo_src_loc(&src, d.v[0].off);
    CHECK_INT(l.line, 4);
    CHECK_INT(l.col, 8);
    CHECK_STR(d.v[0].msg, "%s: Limit index (5) must be less than or equal to dimension size (3)");
  }
  hlo_module_free(m);
  hlo_diags_release(&d);
}


/* Fail every allocation in turn during parse + fill: never crash, never leak. */
static void test_alloc_failures(void) {
  hlo_src src = {"m.hlo", MODULE, strlen(MODULE)};
  int hit = 0;
  for (long n = 0; n < 2000; n++) {
    test_counting c = {n, 0};
    hlo_allocator a = TEST_COUNTING_ALLOCATOR(&c);
    hlo_diags d;
    hlo_diags_init(&d, &a);
    hlo_module *m = hlo_parse_module(&src, 0, src.len, &a, &d, NULL);
    int rc = m ? hlo_shape_fill_omitted(m, &d, &src) : HLO_ERR;
    (void)rc;
    hlo_module_free(m);
    hlo_diags_release(&d);
    if (c.live != 0) {
      CHECK_INT(c.live, 0);
      break;
    }
    if (c.left >= 0) break; /* ran to the end without reaching the failure */
    hit++;
  }
  CHECK(hit >= 2); /* arenas allocate big blocks: only a few allocations happen */
}

int main(void) {
  test_format();
  test_compatible();
  test_fill();
  test_infer_errors();
  test_alloc_failures();
  TEST_MAIN_END("shape");
}
