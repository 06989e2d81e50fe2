/* fuse_test.c - unit tests of the fusion pass: what gets fused for each
 * rule, the return codes, that fused modules verify and unfuse back to the
 * original instructions, and allocation failures at every point. */
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_fuse.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"
#include "hlo/hlo_verify.h"
#include "testing.h"

static hlo_module *parse(const char *text, const hlo_allocator *a, hlo_diags *d) {
  hlo_src src = {"t.hlo", text, strlen(text)};
  hlo_module *m = hlo_parse_module(&src, 0, src.len, a, d, NULL);
  if (m && hlo_shape_fill_omitted(m, d, &src)) {
    hlo_module_free(m);
    return NULL;
  }
  return m;
}

static int count_op(const hlo_computation *c, hlo_opcode op) {
  int n = 0;
  for (int i = 0; i < c->ninstrs; i++) n += c->instrs[i]->op == op;
  return n;
}

static const char CHAIN[] =
    "HloModule chain\n"
    "ENTRY e {\n"
    "  p0 = f32[8,16] parameter(0)\n"
    "  p1 = f32[16] parameter(1)\n"
    "  b = f32[8,16] broadcast(p1), dimensions={1}\n"
    "  m = f32[8,16] multiply(p0, b)\n"
    "  n = f32[8,16] negate(m)\n"
    "  ROOT a = f32[8,16] add(n, p0)\n"
    "}\n";

static const char EFFECTS[] =
    "HloModule fx\n"
    "ENTRY e {\n"
    "  p0 = f32[6] parameter(0)\n"
    "  ROOT cc = f32[6] custom-call(p0), custom_call_target=\"foo\"\n"
    "}\n";

static const char REDUCE[] =
    "HloModule red\n"
    "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n"
    "ENTRY e {\n"
    "  p0 = f32[4,10] parameter(0)\n"
    "  q = f32[4,10] multiply(p0, p0)\n"
    "  c = f32[] constant(0)\n"
    "  ROOT r = f32[4] reduce(q, c), dimensions={1}, to_apply=add\n"
    "}\n";

static void test_loop(void) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = parse(CHAIN, NULL, &d);
  CHECK(m != NULL);
  if (!m) return;
  hlo_fuse_report r;
  hlo_fuse_report_init(&r, NULL);
  CHECK_INT(hlo_fuse_module(m, NULL, &r, &d), 1);
  /* p0, p1 and one fusion remain; b, m, n and a went into it */
  CHECK_INT(m->entry->ninstrs, 3);
  CHECK_INT(count_op(m->entry, HLO_OP_FUSION), 1);
  CHECK_INT(m->ncomps, 2);
  CHECK_INT(r.before.instructions, 6);
  CHECK_INT(r.after.instructions, 3);
  CHECK_INT(r.after.fusions, 1);
  CHECK_INT(r.fusions_made, 1);
  CHECK_INT(r.bytes_not_written, 3 * 8 * 16 * 4); /* b, m, n */
  CHECK(m->entry->root->op == HLO_OP_FUSION);
  CHECK_STR(hlo_instr_word(m->entry->root, HLO_A_KIND), "kLoop");
  const hlo_computation *f = m->entry->root->called[0];
  CHECK(f->is_fused);
  CHECK_INT(f->ninstrs, 6); /* 2 parameters + 4 */
  CHECK_STR(f->params[0]->name, "param_0");
  CHECK_INT(hlo_verify_module(m, NULL, &d, NULL), HLO_OK);
  /* fusing again changes nothing */
  CHECK_INT(hlo_fuse_module(m, NULL, NULL, &d), 0);
  /* unfusing restores the six instructions and drops the fused computation */
  CHECK_INT(hlo_fuse_unfuse(m, &d), 1);
  CHECK_INT(m->entry->ninstrs, 6);
  CHECK_INT(m->ncomps, 1);
  CHECK_INT(count_op(m->entry, HLO_OP_BROADCAST), 1);
  CHECK_STR(m->entry->root->name, "a");
  CHECK_INT(hlo_fuse_unfuse(m, &d), 0);
  CHECK_INT(hlo_verify_module(m, NULL, &d, NULL), HLO_OK);
  CHECK_INT(d.nerrors, 0);
  hlo_fuse_report_release(&r);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

static void test_kinds(void) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = parse(REDUCE, NULL, &d);
  CHECK(m != NULL);
  if (!m) return;
  hlo_fuse_options o = {HLO_FUSE_LOOP, 0, 0};
  CHECK_INT(hlo_fuse_module(m, &o, NULL, &d), 0); /* input fusion disabled */
  o.kinds = HLO_FUSE_INPUT;
  CHECK_INT(hlo_fuse_module(m, &o, NULL, &d), 1);
  CHECK_STR(hlo_instr_word(m->entry->root, HLO_A_KIND), "kInput");
  hlo_module_free(m);
  m = parse(EFFECTS, NULL, &d);
  CHECK(m != NULL);
  if (m) CHECK_INT(hlo_fuse_module(m, NULL, NULL, &d), 0);
  hlo_module_free(m);
  CHECK_INT(d.nerrors, 0);
  hlo_diags_release(&d);
}


/* Fail the n-th allocation for every n: the pass reports an error or
 * succeeds, never crashes, and nothing leaks. */
static void test_alloc_failures(void) {
  int failures_seen = 0;
  for (long n = 0; n < 20000; n++) {
    test_counting c = {n, 0};
    hlo_allocator a = TEST_COUNTING_ALLOCATOR(&c);
    hlo_diags d;
    hlo_diags_init(&d, &a);
    hlo_module *m = parse(CHAIN, &a, &d);
    if (m) {
      hlo_fuse_report r;
      hlo_fuse_report_init(&r, &a);
      int rc = hlo_fuse_module(m, NULL, &r, &d);
      if (rc == 1) rc = hlo_fuse_unfuse(m, &d);
      if (rc < 0) failures_seen++;
      hlo_fuse_report_release(&r);
      hlo_module_free(m);
    }
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
  test_loop();
  test_kinds();
  test_alloc_failures();
  TEST_MAIN_END("fuse");
}
