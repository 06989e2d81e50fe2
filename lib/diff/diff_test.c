/* diff_test.c - unit tests of the module matcher: identical modules are
 * equal, renamed ones are equal with every rename noted, an opcode changed
 * in place is one changed pair, an inserted instruction is one addition,
 * fused instructions are moved (not changed), and an allocation failure
 * anywhere gives NULL and leaks nothing. */
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_diff.h"
#include "hlo/hlo_fuse.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"
#include "testing.h"

static hlo_module *parse(const char *text, const hlo_allocator *a) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_src src = {"t.hlo", text, strlen(text)};
  hlo_module *m = hlo_parse_module(&src, 0, src.len, a, &d, NULL);
  if (m && (hlo_shape_fill_omitted(m, &d, &src) || hlo_module_link(m))) {
    hlo_module_free(m);
    m = NULL;
  }
  hlo_diags_release(&d);
  return m;
}

static const char BASE[] =
    "HloModule m\n"
    "ENTRY e {\n"
    "  p0 = f32[4] parameter(0)\n"
    "  p1 = f32[4] parameter(1)\n"
    "  a = f32[4] add(p0, p1)\n"
    "  n = f32[4] negate(a)\n"
    "  ROOT r = f32[4] multiply(n, p1)\n"
    "}\n";

static const char RENAMED[] =
    "HloModule m\n"
    "ENTRY e {\n"
    "  x = f32[4] parameter(0)\n"
    "  y = f32[4] parameter(1)\n"
    "  sum = f32[4] add(x, y)\n"
    "  neg = f32[4] negate(sum)\n"
    "  ROOT out = f32[4] multiply(neg, y)\n"
    "}\n";

static const char EDITED[] =
    "HloModule m\n"
    "ENTRY e {\n"
    "  p0 = f32[4] parameter(0)\n"
    "  p1 = f32[4] parameter(1)\n"
    "  a = f32[4] subtract(p0, p1)\n"
    "  n = f32[4] negate(a)\n"
    "  e2 = f32[4] exponential(n)\n"
    "  ROOT r = f32[4] multiply(e2, p1)\n"
    "}\n";

typedef struct counts {
  int64_t unchanged, changed, added, removed, renamed, moved;
} counts;

static counts diff(const char *a, const char *b, bool fuse_b) {
  counts c = {-1, -1, -1, -1, -1, -1};
  hlo_module *ma = parse(a, NULL), *mb = parse(b, NULL);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  if (ma && mb && (!fuse_b || hlo_fuse_module(mb, NULL, NULL, &d) >= 0)) {
    hlo_diff *df = hlo_diff_modules(ma, mb, NULL, NULL, &d);
    if (df) {
      c = (counts){df->count[HLO_DIFF_UNCHANGED], df->count[HLO_DIFF_CHANGED], df->count[HLO_DIFF_ADDED],
                   df->count[HLO_DIFF_REMOVED], df->renamed, df->moved};
      CHECK(hlo_diff_equal(df) == (!c.changed && !c.added && !c.removed));
    }
    hlo_diff_free(df);
  }
  hlo_diags_release(&d);
  hlo_module_free(ma);
  hlo_module_free(mb);
  return c;
}

static void test_kinds(void) {
  counts c = diff(BASE, BASE, false);
  CHECK_INT(c.unchanged, 5);
  CHECK_INT(c.changed + c.added + c.removed + c.renamed + c.moved, 0);
  c = diff(BASE, RENAMED, false); /* parameters by number, root, then operands top-down */
  CHECK_INT(c.unchanged, 5);
  CHECK_INT(c.renamed, 5);
  CHECK_INT(c.changed + c.added + c.removed, 0);
  c = diff(BASE, EDITED, false); /* a: opcode; r: operands; e2 added */
  CHECK_INT(c.changed, 2);
  CHECK_INT(c.added, 1);
  CHECK_INT(c.removed, 0);
  CHECK_INT(c.unchanged, 3);
  c = diff(BASE, BASE, true); /* a, n, r move into one loop fusion; the fusion is added */
  CHECK_INT(c.added, 1);
  CHECK_INT(c.moved, 3);
  CHECK_INT(c.changed + c.removed, 0);
  CHECK_INT(c.unchanged, 5);
}

static void test_text(void) {
  hlo_module *ma = parse(BASE, NULL), *mb = parse(EDITED, NULL);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_diff *df = ma && mb ? hlo_diff_modules(ma, mb, NULL, NULL, &d) : NULL;
  CHECK(df != NULL);
  if (df) {
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    CHECK_INT(hlo_diff_text(&b, df, "a", "b", false), HLO_OK);
    char *s = hlo_buf_take(&b);
    CHECK(s && strstr(s, "# %a changed: opcode add -> subtract\n-%a = f32[4]{0} add(%p0, %p1)\n"
                         "+%a = f32[4]{0} subtract(%p0, %p1)\n"));
    CHECK(s && strstr(s, "+%e2 = f32[4]{0} exponential(%n)\n"));
    CHECK(s && strstr(s, "summary: 3 unchanged, 2 changed, 1 added, 0 removed (0 renamed, 0 moved)\n"));
    free(s);
  }
  hlo_diff_free(df);
  hlo_diags_release(&d);
  hlo_module_free(ma);
  hlo_module_free(mb);
}

static void test_alloc_failures(void) {
  hlo_module *ma = parse(BASE, NULL), *mb = parse(RENAMED, NULL);
  int failures_seen = 0;
  for (long k = 0; ma && mb && k < 100000; k++) {
    test_counting c = {k, 0};
    hlo_allocator a = TEST_COUNTING_ALLOCATOR(&c);
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_diff *df = hlo_diff_modules(ma, mb, NULL, &a, &d);
    failures_seen += df == NULL;
    hlo_diff_free(df);
    hlo_diags_release(&d);
    if (c.live != 0) {
      CHECK_INT(c.live, 0);
      break;
    }
    if (c.left >= 0) break;
  }
  CHECK(failures_seen >= 1);
  hlo_module_free(ma);
  hlo_module_free(mb);
}

int main(void) {
  test_kinds();
  test_text();
  test_alloc_failures();
  TEST_MAIN_END("diff");
}
