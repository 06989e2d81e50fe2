/* dot_test.c - unit tests of the graph view: every opcode has a class and
 * colour, folding rules, neighbourhoods, node limits with markers, expanded
 * fusions, and errors for unknown names.  Counts are worked out by hand
 * from the module texts below. */
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_dot.h"
#include "hlo/hlo_text.h"
#include "testing.h"

static const char SMALL[] =
    "HloModule small\n\nENTRY main {\n"
    "  x = f32[4] parameter(0)\n  y = f32[4] parameter(1)\n  c = f32[] constant(2)\n"
    "  b = f32[4] broadcast(c), dimensions={}\n  m = f32[4] multiply(x, b)\n"
    "  s = f32[4] subtract(m, y)\n  ROOT e = f32[4] exponential(s)\n}\n";

static const char FUSED[] =
    "HloModule f\n\nfc {\n  p0 = f32[4] parameter(0)\n  p1 = f32[4] parameter(1)\n"
    "  ROOT d = f32[4] divide(p0, p1)\n}\n\nENTRY main {\n  a = f32[4] parameter(0)\n"
    "  n = f32[4] negate(a)\n  ROOT f = f32[4] fusion(n, a), kind=kLoop, calls=fc\n}\n";

static hlo_module *parse(const char *text) {
  static hlo_src src;
  src = (hlo_src){"t.hlo", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  hlo_diags_release(&d);
  return m;
}

static int markers(const hlo_dot_graph *g) {
  int n = 0;
  for (int i = 0; i < g->nnodes; i++) n += g->nodes[i].in == NULL;
  return n;
}

static void test_classes(void) {
  for (int op = 0; op < HLO_OP_COUNT; op++) {
    hlo_dot_class c = hlo_dot_op_class((hlo_opcode)op);
    CHECK(c < HLO_DOT_CLASS_COUNT);
    CHECK(hlo_dot_class_color(c)[0] == '#');
  }
  CHECK_INT(hlo_dot_op_class(HLO_OP_ADD), HLO_DOT_ELEMENTWISE);
  CHECK_INT(hlo_dot_op_class(HLO_OP_CONVOLUTION), HLO_DOT_CONTRACTION);
  CHECK_INT(hlo_dot_op_class(HLO_OP_WHILE), HLO_DOT_CONTROL);
  CHECK_INT(hlo_dot_op_class(HLO_OP_ALL_REDUCE), HLO_DOT_COLLECTIVE);
  CHECK_INT(hlo_dot_op_class(HLO_OP_PARAMETER), HLO_DOT_PARAMETER);
  CHECK_STR(hlo_dot_class_name(HLO_DOT_REDUCTION), "reduction");
}

static void test_small(void) {
  hlo_module *m = parse(SMALL);
  CHECK(m != NULL);
  if (!m) return;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  /* whole graph: x y m s e; c and b folded */
  hlo_dot_graph *g = hlo_dot_select(m, NULL, NULL, &d);
  CHECK(g != NULL);
  if (g) {
    CHECK_INT(g->nnodes, 5);
    CHECK_INT(g->nedges, 4);
    CHECK_INT(markers(g), 0);
    int labelled = 0;
    for (int i = 0; i < g->nedges; i++) labelled += g->edges[i].operand >= 0;
    CHECK_INT(labelled, 2); /* subtract's two operands */
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    int mi = g->node_of[m->entry->id][hlo_computation_find(m->entry, "m")->id];
    hlo_dot_node_label(&b, g, mi);
    hlo_buf_putc(&b, 0);
    CHECK_STR(b.data, "m\nmultiply\nf32[4]\nop1 = broadcast(2) f32[4]");
    hlo_buf_release(&b);
    hlo_dot_graph_free(g);
  }
  /* radius 1 around y: y, s; s lost m and e */
  hlo_dot_options o = {0};
  o.around = "%y";
  o.radius = 1;
  g = hlo_dot_select(m, &o, NULL, &d);
  CHECK(g != NULL);
  if (g) {
    CHECK_INT(g->nnodes, 4);
    CHECK_INT(markers(g), 2);
    CHECK_INT(g->ncut, 3); /* x, m, e */
    hlo_dot_graph_free(g);
  }
  /* node limit 1: only the root e, which lost s */
  memset(&o, 0, sizeof o);
  o.max_nodes = 1;
  g = hlo_dot_select(m, &o, NULL, &d);
  CHECK(g != NULL);
  if (g) {
    CHECK_INT(g->nnodes, 2);
    CHECK(g->nodes[0].in && strcmp(g->nodes[0].in->name, "e") == 0);
    CHECK_INT(g->nodes[1].omitted, 1);
    hlo_dot_graph_free(g);
  }
  CHECK_INT(d.nerrors, 0);
  /* unknown names */
  memset(&o, 0, sizeof o);
  o.around = "nope";
  CHECK(hlo_dot_select(m, &o, NULL, &d) == NULL);
  memset(&o, 0, sizeof o);
  o.computation = "nope";
  CHECK(hlo_dot_select(m, &o, NULL, &d) == NULL);
  CHECK_INT(d.nerrors, 2);
  CHECK(d.n == 2 && strstr(d.v[0].msg, "no instruction named 'nope'") != NULL);
  hlo_diags_release(&d);
  hlo_module_free(m);
}

static void test_fusion(void) {
  hlo_module *m = parse(FUSED);
  CHECK(m != NULL);
  if (!m) return;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_dot_options o = {0};
  hlo_dot_graph *g = hlo_dot_select(m, &o, NULL, &d); /* a, n, f; a->n, n->f (0), a->f (1) */
  CHECK(g && g->nnodes == 3 && g->nedges == 3 && g->nclusters == 0);
  hlo_dot_graph_free(g);
  o.expand_fusions = true;
  /* a, n, p0, p1, d in one cluster; a->n, n->p0, a->p1, p0->d (0), p1->d (1) */
  g = hlo_dot_select(m, &o, NULL, &d);
  CHECK(g != NULL);
  if (g) {
    CHECK_INT(g->nnodes, 5);
    CHECK_INT(g->nedges, 5);
    CHECK_INT(g->nclusters, 1);
    int in_cluster = 0;
    for (int i = 0; i < g->nnodes; i++) in_cluster += g->nodes[i].cluster == 0;
    CHECK_INT(in_cluster, 3);
    hlo_dot_graph_free(g);
  }
  hlo_diags_release(&d);
  hlo_module_free(m);
}

typedef struct failing {
  long budget;
} failing;
static void *f_alloc(void *ud, size_t n) {
  failing *f = ud;
  return f->budget-- > 0 ? malloc(n) : NULL;
}
static void *f_realloc(void *ud, void *p, size_t n) {
  failing *f = ud;
  return f->budget-- > 0 ? realloc(p, n) : NULL;
}
static void f_free(void *ud, void *p) {
  (void)ud;
  free(p);
}

/* hlo_dot_select fails cleanly (NULL and an error) whichever allocation
 * fails, and succeeds once enough are allowed. */
static void test_alloc_failure(void) {
  hlo_module *m = parse(FUSED);
  CHECK(m != NULL);
  if (!m) return;
  hlo_dot_options o = {0};
  o.expand_fusions = true;
  bool done = false;
  for (long budget = 0; budget < 1000 && !done; budget++) {
    failing f = {budget};
    hlo_allocator a = {f_alloc, f_realloc, f_free, &f};
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_dot_graph *g = hlo_dot_select(m, &o, &a, &d);
    if (g) done = true;
    else CHECK(d.nerrors == 1 && strstr(d.v[0].msg, "out of memory"));
    hlo_dot_graph_free(g);
    hlo_diags_release(&d);
  }
  CHECK(done);
  hlo_module_free(m);
}

int main(void) {
  test_alloc_failure();
  test_classes();
  test_small();
  test_fusion();
  TEST_MAIN_END("export/dot");
}
