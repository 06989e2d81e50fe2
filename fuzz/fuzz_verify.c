/* fuzz_verify.c - fuzz target: shape filling, shape inference and the
 * verifier on every module the parser accepts, plus the JSON and DOT
 * exporters and the cost analysis (costs, peak memory, the hlo-stats
 * report) on every parsed module.  None may crash, hang or
 * fail without a diagnostic. */
#include "fuzz.h"
#include "hlo/hlo_cost.h"
#include "hlo/hlo_dot.h"
#include "hlo/hlo_json.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"
#include "hlo/hlo_verify.h"

/* hlo-json and the view hlo-dot draws, on any parsed module (as the tools
 * do): the JSON must read back, the view must select and label. */
static void export(hlo_module *m) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  FUZZ_CHECK(hlo_json_write(&b, &m, 1, NULL) == HLO_OK, "JSON writing failed");
  hlo_src js = {"json", b.data, b.len};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *back = hlo_json_read(&js, NULL, &d);
  FUZZ_CHECK(back, "written JSON does not read back: %s", d.n ? d.v[0].msg : "?");
  hlo_module_free(back);
  hlo_buf_release(&b);
  hlo_buf_init(&b, NULL);
  hlo_json_graph_write(&b, m, NULL, &d);
  hlo_buf_release(&b);
  hlo_dot_options o = {0};
  o.expand_fusions = o.expand_bodies = true;
  hlo_dot_graph *g = hlo_dot_select(m, &o, NULL, &d);
  for (int i = 0; g && i < g->nnodes; i++) {
    hlo_buf_init(&b, NULL);
    hlo_dot_node_label(&b, g, i);
    hlo_buf_release(&b);
  }
  hlo_dot_graph_free(g);
  hlo_diags_release(&d);
}

/* hlo-stats' analyses: an error with a diagnostic or a report, never a crash
 * (the library must hold on modules the verifier refuses, too). */
static void cost(hlo_module *m) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_cost_analysis *a = hlo_cost_analyze(m, NULL, &d);
  FUZZ_CHECK(a || d.nerrors > 0, "cost analysis failed without a diagnostic");
  hlo_arena ar;
  hlo_arena_init(&ar, NULL);
  hlo_mem_peak p;
  if (a && m->entry && hlo_mem_peak_compute(m, &ar, &p, &d) == HLO_OK) {
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    hlo_stats_options so = {HLO_STATS_TEXT, 5, 10, 10, NULL};
    hlo_stats_render(&b, m, a, &p, &so);
    hlo_buf_release(&b);
  }
  hlo_cost_analysis_free(a);
  hlo_arena_release(&ar);
  hlo_diags_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > FUZZ_MAX_INPUT) return 0;
  hlo_src src = {"input", (const char *)data, size};
  size_t next;
  size_t end = hlo_module_chunk_end(&src, 0, &next);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, end, NULL, &d, NULL);
  if (m) {
    int frc = hlo_shape_fill_omitted(m, &d, &src);
    FUZZ_CHECK(frc == HLO_OK || d.nerrors > 0, "shape filling failed without a diagnostic");
    hlo_verify_options vo = {0};
    vo.layout_sensitive = size & 1;
    vo.allow_mixed_precision = (size >> 1) & 1;
    int vrc = hlo_verify_module(m, &vo, &d, &src);
    FUZZ_CHECK(vrc == HLO_OK || d.nerrors > 0, "verifier failed without a diagnostic");
    if (frc == HLO_OK && vrc == HLO_OK) {
      FUZZ_CHECK(d.nerrors == 0, "valid module but %d errors recorded", d.nerrors);
      hlo_diags d2;
      hlo_diags_init(&d2, NULL);
      int changed = 0;
      hlo_shape_infer_module(m, &d2, &src, &changed);
      hlo_diags_release(&d2);
    }
    export(m);
    cost(m);
  }
  hlo_module_free(m);
  hlo_diags_release(&d);
  return 0;
}
