/* text_test.c - unit tests for the HLO text parser and printer: a round
 * trip of a small module, diagnostics positions, and allocation failure at
 * every allocation (no crash, no leak: the SAN build checks leaks). */
#include <stdlib.h>

#include "hlo/hlo_text.h"
#include "testing.h"
#include "text/scan.h"

static const char *MODULE =
    "HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[3,2]{1,0}}\n"
    "\n"
    "add {\n"
    "  a = f32[] parameter(0)\n"
    "  b = f32[] parameter(1)\n"
    "  ROOT s = f32[] add(a, b)\n"
    "}\n"
    "\n"
    "ENTRY main {\n"
    "  p = f32[2,3] parameter(0)\n"
    "  c = f32[2] constant({1.5, -inf})\n"
    "  t = f32[3,2]{0,1} transpose(p), dimensions={1,0}\n"
    "  z = f32[] constant(0)\n"
    "  r = f32[3] reduce(t, z), dimensions={1}, to_apply=add\n"
    "  ROOT out = f32[3,2] copy(t)\n"
    "}\n";

static const char *EXPECTED =
    "HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[3,2]{1,0}}\n"
    "\n"
    "%add (a: f32[], b: f32[]) -> f32[] {\n"
    "  %a = f32[] parameter(0)\n"
    "  %b = f32[] parameter(1)\n"
    "  ROOT %s = f32[] add(%a, %b)\n"
    "}\n"
    "\n"
    "ENTRY %main (p: f32[2,3]) -> f32[3,2] {\n"
    /* XLA's order: a post order from each instruction without users */
    "  %c = f32[2]{0} constant({1.5, -inf})\n"
    "  %p = f32[2,3]{1,0} parameter(0)\n"
    "  %t = f32[3,2]{0,1} transpose(%p), dimensions={1,0}\n"
    "  %z = f32[] constant(0)\n"
    "  %r = f32[3]{0} reduce(%t, %z), dimensions={1}, to_apply=%add\n"
    "  ROOT %out = f32[3,2]{1,0} copy(%t)\n"
    "}\n"
    "\n";

static void test_roundtrip(void) {
  hlo_src src = {"m.hlo", MODULE, strlen(MODULE)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  CHECK(m != NULL);
  CHECK_INT(d.nerrors, 0);
  if (!m) return;
  CHECK_INT(m->ncomps, 2);
  CHECK(m->entry == m->comps[1]);
  CHECK_STR(m->entry->root->name, "out");
  hlo_instruction *r = hlo_computation_find(m->entry, "r");
  CHECK(r && r->op == HLO_OP_REDUCE && r->ncalled == 1 && r->called[0] == m->comps[0]);
  hlo_instruction *t = hlo_computation_find(m->entry, "t");
  CHECK(t && t->nusers == 2);
  int n;
  const int64_t *dims = hlo_instr_ints(r, HLO_A_DIMENSIONS, &n);
  CHECK(n == 1 && dims && dims[0] == 1);
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_print_module(&b, m, NULL);
  CHECK_STR(b.data, EXPECTED);
  hlo_buf_release(&b);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

static void test_error_position(void) {
  const char *text = "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT q = f32[2] negate(p, p)\n}\n";
  hlo_src src = {"bad.hlo", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  CHECK(hlo_parse_module(&src, 0, src.len, NULL, &d, NULL) == NULL);
  CHECK_INT(d.nerrors, 1);
  if (d.n) {
    hlo_loc loc = hlo_src_loc(&src, d.v[0].off);
    CHECK_INT(loc.line, 3);
    CHECK_INT(loc.col, 19);
    CHECK_STR(d.v[0].msg, "negate takes 1 operand but 2 are given");
  }
  hlo_diags_release(&d);
}

static void test_alloc_failures(void) {
  hlo_src src = {"m.hlo", MODULE, strlen(MODULE)};
  int failures_seen = 0;
  for (long n = 0; n < 200; n++) {
    test_counting c = {n, 0};
    hlo_allocator a = TEST_COUNTING_ALLOCATOR(&c);
    hlo_diags d;
    hlo_diags_init(&d, &a);
    hlo_module *m = hlo_parse_module(&src, 0, src.len, &a, &d, NULL);
    if (!m) failures_seen++;
    hlo_module_free(m);
    hlo_diags_release(&d);
    if (c.live != 0) {
      CHECK_INT(c.live, 0);
      break;
    }
    if (m && c.left > 0) break; /* succeeded without hitting the failure */
  }
  CHECK(failures_seen > 0);
}

static void test_sharding(void) {
  const char *text =
      "ENTRY e {\n"
      "  p = f32[4,4] parameter(0), sharding={devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}\n"
      "  q = f32[4,4] parameter(1), sharding={devices=[2,1,2]0,1,2,3 last_tile_dims={manual}}\n"
      "  ROOT t = (f32[4,4], f32[4,4]) tuple(p, q), sharding={{maximal device=1}, {replicated}}\n"
      "}\n";
  hlo_src src = {"s.hlo", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  CHECK(m != NULL);
  if (!m) return;
  const hlo_sharding *p = hlo_instr_attr(m->entry->instrs[0], HLO_A_SHARDING)->u.sharding;
  CHECK(p->kind == HLO_SHARD_TILED && p->iota && p->ntile == 2 && p->tile[0] == 2);
  CHECK(p->niota_reshape == 2 && p->niota_perm == 2 && p->iota_perm[0] == 1);
  CHECK(p->last_tile_dim_replicate && p->ndevices == 0);
  const hlo_sharding *q = hlo_instr_attr(m->entry->instrs[1], HLO_A_SHARDING)->u.sharding;
  CHECK(q->ntile == 3 && q->ndevices == 4 && q->devices[3] == 3 && !q->iota);
  CHECK(q->nlast_tile_dims == 1 && strcmp(q->last_tile_dims[0], "manual") == 0);
  const hlo_sharding *t = hlo_instr_attr(m->entry->root, HLO_A_SHARDING)->u.sharding;
  CHECK(t->kind == HLO_SHARD_TUPLE && t->ntuple == 2);
  CHECK(t->tuple[0].kind == HLO_SHARD_MAXIMAL && t->tuple[0].device == 1);
  CHECK(t->tuple[1].kind == HLO_SHARD_REPLICATED);
  CHECK_STR(t->tuple[0].text, "{maximal device=1}");
  hlo_module_free(m);
  hlo_diags_release(&d);
}

/* Mesh-based shardings carry the tiling XLA's V3ToV2Sharding derives, and
 * mesh-axes replica groups the groups of flattened_replica_groups (worked
 * by hand; the last two are XLA's ParseReplicaGroupsV3/MaximalMesh). */
static void test_named_sharding(void) {
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  static const char *const sh[] = {"{mesh['x'=2,'y'=2], [{'y'}, {'x'}]}",
                                   "{mesh['a'=2,'b'=4], [{'b':(2)2}], unreduced={'a'}}"};
  static const int64_t dev[2][8] = {{0, 2, 1, 3}, {0, 2, 4, 6, 1, 3, 5, 7}};
  for (int k = 0; k < 2; k++) {
    hlo_src src = {"s", sh[k], strlen(sh[k])};
    hlo_sharding s;
    CHECK(hlo_parse_sharding(&src, &a, &s, &d) == HLO_OK);
    CHECK(s.named && s.kind == HLO_SHARD_TILED && s.ndevices == (k ? 8 : 4));
    for (int i = 0; i < s.ndevices && i < 8; i++) CHECK(s.devices[i] == dev[k][i]);
    CHECK_STR(s.text, sh[k]);
  }
  hlo_sharding s;
  hlo_src one = {"s", sh[1], strlen(sh[1])};
  CHECK(hlo_parse_sharding(&one, &a, &s, &d) == HLO_OK && s.ntile == 3 && s.tile[0] == 2 && s.tile[2] == 2);
  CHECK(s.nlast_tile_dims == 2 && !strcmp(s.last_tile_dims[0], "unreduced") && !strcmp(s.last_tile_dims[1], "replicated"));
  static const char *const gr[] = {"mesh['a'=2,'b'=2], device_ids=(3,1,2,0) {'b'}", "maximal_mesh[device_id=1] {}",
                                   "mesh['axis_0'=2,'axis_1'=2] {'axis_1'}"};
  static const int64_t want[3][4] = {{3, 1, 2, 0}, {1}, {0, 1, 2, 3}};
  static const int ng[3] = {2, 1, 2}, gs[3] = {2, 1, 2};
  for (int k = 0; k < 3; k++) {
    hlo_src src = {"g", gr[k], strlen(gr[k])};
    hlo_replica_groups g;
    CHECK(hlo_parse_replica_groups(&src, &a, &g, &d) == HLO_OK);
    CHECK(g.mesh && g.ngroups == ng[k]);
    for (int i = 0; i < g.ngroups && i < ng[k]; i++) {
      CHECK(g.group_sizes[i] == gs[k]);
      for (int j = 0; j < gs[k] && j < g.group_sizes[i]; j++) CHECK(g.groups[i][j] == want[k][i * gs[k] + j]);
    }
  }
  CHECK(d.nerrors == 0);
  hlo_diags_release(&d);
  hlo_arena_release(&a);
}

/* The scanner's name-character table is exactly [A-Za-z0-9_.-]. */
static void test_name_chars(void) {
  for (int c = 0; c < 256; c++) {
    bool want = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.' || c == '-';
    CHECK_INT(scan_is_name_char(c), want);
  }
}

int main(void) {
  test_name_chars();
  test_roundtrip();
  test_sharding();
  test_named_sharding();
  test_error_position();
  test_alloc_failures();
  TEST_MAIN_END("text");
}
