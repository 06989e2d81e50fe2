/* opt_test.c - unit tests of the pass registry and the passes' contract:
 * every pass is found by its XLA name, a pass with nothing to do returns 0
 * and leaves the printed module byte-identical, passes reach a fixed point,
 * and an allocation failure anywhere gives -1 and leaks nothing. */
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_opt.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"
#include "hlo/hlo_verify.h"
#include "testing.h"

static hlo_module *parse(const char *text, const hlo_allocator *a, hlo_diags *d) {
  hlo_src src = {"t.hlo", text, strlen(text)};
  hlo_module *m = hlo_parse_module(&src, 0, src.len, a, d, NULL);
  if (m && (hlo_shape_fill_omitted(m, d, &src) || hlo_module_link(m))) {
    hlo_module_free(m);
    return NULL;
  }
  return m;
}

static char *print(const hlo_module *m) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_print_module(&b, m, NULL);
  return hlo_buf_take(&b);
}

static int count(const hlo_module *m) {
  int n = 0;
  for (int i = 0; i < m->ncomps; i++) n += m->comps[i]->ninstrs;
  return n;
}

/* Nothing for any pass to do. */
static const char PLAIN[] =
    "HloModule plain\n"
    "ENTRY e {\n"
    "  p0 = f32[8] parameter(0)\n"
    "  p1 = f32[8] parameter(1)\n"
    "  ROOT a = f32[8] add(p0, p1)\n"
    "}\n";

/* Something for most passes to do. */
static const char BUSY[] =
    "HloModule busy\n"
    "neg {\n"
    "  a = f32[4] parameter(0)\n"
    "  ROOT n = f32[4] negate(a)\n"
    "}\n"
    "ENTRY e {\n"
    "  p = f32[4] parameter(0)\n"
    "  z = f32[] constant(0)\n"
    "  zb = f32[4] broadcast(z), dimensions={}\n"
    "  a1 = f32[4] add(p, zb)\n"
    "  a2 = f32[4] add(p, zb)\n"
    "  c1 = f32[4] constant({1, 2, 3, 4})\n"
    "  c2 = f32[4] exponential(c1)\n"
    "  t = (f32[4], f32[4]) tuple(a1, a2)\n"
    "  g = f32[4] get-tuple-element(t), index=1\n"
    "  k = f32[4] call(g), to_apply=neg\n"
    "  dead = f32[4] multiply(k, k)\n"
    "  r1 = f32[2,2] reshape(k)\n"
    "  r2 = f32[4] reshape(r1)\n"
    "  ROOT s = f32[4] subtract(r2, c2)\n"
    "}\n";

static void test_registry(void) {
  int n;
  const hlo_opt_pass *ps = hlo_opt_passes(&n);
  CHECK_INT(n, 13);
  static const char *const NAMES[] = {"dce", "cse", "constant-folding", "algsimp", "inline", "tuple-simplifier",
                                      "flatten-call-graph", "while-loop-simplifier", "fusion", "defuser",
                                      "zero-sized-hlo-elimination", "reshape-mover", "sort-simplifier"};
  for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
    const hlo_opt_pass *p = hlo_opt_find(NAMES[i], strlen(NAMES[i]));
    CHECK(p != NULL);
    if (p) CHECK_STR(p->name, NAMES[i]);
  }
  CHECK(hlo_opt_find("dce,cse", 3) == &ps[hlo_opt_find("dce", 3)->index]);
  CHECK(hlo_opt_find("nope", 4) == NULL);
  CHECK(hlo_opt_find("dc", 2) == NULL);
}

/* Every pass: 0 and byte-identical text on PLAIN. */
static void test_unchanged(void) {
  int n;
  const hlo_opt_pass *ps = hlo_opt_passes(&n);
  for (int i = 0; i < n; i++) {
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_module *m = parse(PLAIN, NULL, &d);
    CHECK(m != NULL);
    if (!m) continue;
    char *before = print(m);
    int rc = hlo_opt_run(m, &ps[i], NULL, &d);
    char *after = print(m);
    if (rc != 0) printf("pass %s: ", ps[i].name);
    CHECK_INT(rc, 0);
    CHECK_STR(after, before);
    free(before);
    free(after);
    hlo_module_free(m);
    hlo_diags_release(&d);
  }
}

/* On BUSY: the whole list changes the module, keeps it valid, and a second
 * run of the simplifying passes finds nothing more to do. */
static void test_fixed_point(void) {
  static const char *const LIST[] = {"cse", "inline", "tuple-simplifier", "algsimp", "constant-folding", "dce"};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = parse(BUSY, NULL, &d);
  CHECK(m != NULL);
  if (!m) return;
  int before = count(m);
  for (size_t i = 0; i < sizeof LIST / sizeof LIST[0]; i++) {
    int rc = hlo_opt_run(m, hlo_opt_find(LIST[i], strlen(LIST[i])), NULL, &d);
    if (rc != 1) printf("pass %s: ", LIST[i]);
    CHECK_INT(rc, 1);
  }
  CHECK_INT(hlo_verify_module(m, NULL, &d, NULL), HLO_OK);
  /* p, the folded exp constant, negate, subtract: the reshape pair and every identity are gone */
  CHECK(count(m) < before);
  CHECK_INT(count(m), 4);
  char *once = print(m);
  for (size_t i = 0; i < sizeof LIST / sizeof LIST[0]; i++)
    CHECK_INT(hlo_opt_run(m, hlo_opt_find(LIST[i], strlen(LIST[i])), NULL, &d), 0);
  char *twice = print(m);
  CHECK_STR(twice, once);
  free(once);
  free(twice);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

/* Reduces and dots that algsimp rewrites. */
static const char REDUCE_DOT[] =
    "HloModule reduce_dot\n"
    "add {\n"
    "  a = s32[] parameter(0)\n"
    "  b = s32[] parameter(1)\n"
    "  ROOT s = s32[] add(a, b)\n"
    "}\n"
    "ENTRY e {\n"
    "  x = s32[2,1,3] parameter(0)\n"
    "  u = f32[3,1] parameter(1)\n"
    "  v = f32[1,4] parameter(2)\n"
    "  z = s32[] constant(0)\n"
    "  r1 = s32[2,3] reduce(x, z), dimensions={1}, to_apply=add\n"
    "  t = s32[3,2] transpose(r1), dimensions={1,0}\n"
    "  r2 = s32[3] reduce(t, z), dimensions={1}, to_apply=add\n"
    "  r3 = s32[] reduce(r2, z), dimensions={0}, to_apply=add\n"
    "  o = f32[3,4] dot(u, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
    "  ROOT r = (s32[], f32[3,4]) tuple(r3, o)\n"
    "}\n";

/* Fail each allocation in turn while every pass runs over text. */
static void alloc_failures(const char *text) {
  int n, failures_seen = 0;
  const hlo_opt_pass *ps = hlo_opt_passes(&n);
  for (long k = 0; k < 100000; k++) {
    test_counting c = {k, 0};
    hlo_allocator a = TEST_COUNTING_ALLOCATOR(&c);
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_module *m = parse(text, &a, &d);
    for (int i = 0; m && i < n; i++) {
      int rc = hlo_opt_run(m, &ps[i], NULL, &d);
      if (rc < 0) {
        failures_seen++;
        break;
      }
    }
    hlo_module_free(m);
    hlo_diags_release(&d);
    if (c.live != 0) {
      CHECK_INT(c.live, 0);
      break;
    }
    if (c.left >= 0) break; /* no allocation failed: every point was covered */
  }
  CHECK(failures_seen >= 1);
}

int main(void) {
  test_registry();
  test_unchanged();
  test_fixed_point();
  alloc_failures(BUSY);
  alloc_failures(REDUCE_DOT);
  TEST_MAIN_END("opt");
}
