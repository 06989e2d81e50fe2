/* hlo-diff - what changed between two HLO modules (e.g. before and after
 * optimization): instructions matched by name, then by structure, reported
 * as text (unified-diff-like, per computation), JSON or side-by-side HTML.
 * Exit 0 if equal, 1 if different, 2 on any error (as diff does). */
#include <graphviz/cgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "hlo/hlo_diff.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"

enum { OPT_OUTPUT, OPT_JSON, OPT_HTML, OPT_MAX_NODES, OPT_ALL, OPT_BRIEF, OPT_METADATA, OPT_NAMES };

static const cli_opt OPTS[] = {
    [OPT_OUTPUT] = {"output", 'o', 1, "FILE", "write the report to FILE instead of standard output"},
    [OPT_JSON] = {"json", 0, 0, NULL, "write the report as JSON"},
    [OPT_HTML] = {"html", 0, 0, NULL, "write a side-by-side HTML page of both entry computations"},
    [OPT_MAX_NODES] = {"max-nodes", 0, 1, "N", "--html: draw at most N instructions per side (default 300, 0 = all)"},
    [OPT_ALL] = {"all", 'a', 0, NULL, "list unchanged instructions too"},
    [OPT_BRIEF] = {"brief", 'q', 0, NULL, "report nothing; only the exit status tells"},
    [OPT_METADATA] = {"metadata", 0, 0, NULL, "compare metadata= attributes too (ignored by default)"},
    [OPT_NAMES] = {"names", 0, 0, NULL, "count a renamed instruction as changed"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-diff", "[OPTION]... FILE1 FILE2",
    "Compare two HLO modules (FILE - is standard input): instructions matched by name, then by "
    "structure, reported as unchanged, changed, added or removed.",
    OPTS,
    "Exit status: 0 if the modules are equal, 1 if they differ, 2 on error.\n"
    "Only the first module of each file is compared.  Matching rules: docs/diff.md."};

typedef struct diff_args {
  const char *output;
  bool json, html, all, brief;
  int max_nodes;
  hlo_diff_options o;
} diff_args;

static int on_opt(int idx, const char *arg, void *ud) {
  diff_args *a = ud;
  switch (idx) {
  case OPT_OUTPUT: a->output = arg; break;
  case OPT_JSON: a->json = true; break;
  case OPT_HTML: a->html = true; break;
  case OPT_MAX_NODES: a->max_nodes = (int)cli_int_arg(&TOOL, "--max-nodes", arg); break;
  case OPT_ALL: a->all = true; break;
  case OPT_BRIEF: a->brief = true; break;
  case OPT_METADATA: a->o.metadata = true; break;
  case OPT_NAMES: a->o.unique_names = true; break;
  }
  return 0;
}

static hlo_buf gv_errors; /* Graphviz reports through a process-wide callback */
static int gv_err(char *msg) {
  hlo_buf_puts(&gv_errors, msg);
  return 0;
}

static hlo_module *load(const cli_input *in, hlo_diags *d) {
  size_t next, end = hlo_module_chunk_end(&in->src, 0, &next);
  hlo_module *m = hlo_parse_module(&in->src, 0, end, NULL, d, NULL);
  if (m && (hlo_shape_fill_omitted(m, d, &in->src) || hlo_module_link(m))) {
    hlo_module_free(m);
    return NULL;
  }
  return m;
}

int main(int argc, char **argv) {
  diff_args a;
  memset(&a, 0, sizeof a);
  a.max_nodes = 300;
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  if (npos != 2) cli_usage_error(&TOOL, "expects two files, FILE1 and FILE2");
  if (a.json + a.html + a.brief > 1) cli_usage_error(&TOOL, "--json, --html and --brief do not mix");
  if (!strcmp(argv[first], "-") && !strcmp(argv[first + 1], "-"))
    cli_usage_error(&TOOL, "only one of FILE1 and FILE2 may be standard input");
  cli_input in[2];
  hlo_module *m[2] = {NULL, NULL};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  int rc = CLI_USAGE, nread = 0;
  for (; nread < 2; nread++) {
    if (cli_read(&TOOL, argv[first + nread], &in[nread])) goto done;
    if (!(m[nread] = load(&in[nread], &d))) {
      nread++;
      goto done;
    }
  }
  hlo_diff *df = hlo_diff_modules(m[0], m[1], &a.o, NULL, &d);
  if (!df) goto done;
  hlo_buf out;
  hlo_buf_init(&out, NULL);
  hlo_buf_init(&gv_errors, NULL);
  int wrc = HLO_OK;
  const char *na = argv[first], *nb = argv[first + 1];
  if (a.json) {
    wrc = hlo_diff_json(&out, df, na, nb);
  } else if (a.html) {
    agseterrf(gv_err);
    wrc = hlo_diff_html(&out, df, na, nb, a.max_nodes, &d);
    if (gv_errors.len) fprintf(stderr, "hlo-diff: graphviz: %.*s", (int)gv_errors.len, gv_errors.data);
  } else if (!a.brief) {
    wrc = hlo_diff_text(&out, df, na, nb, a.all);
  }
  if (wrc || out.failed) {
    if (!d.n) cli_errorf(&TOOL, "out of memory");
  } else if (!a.brief && cli_write(&TOOL, a.output, out.data ? out.data : "", out.len)) {
    wrc = HLO_ERR;
  }
  if (!wrc) rc = hlo_diff_equal(df) ? CLI_OK : CLI_INVALID;
  hlo_buf_release(&out);
  hlo_buf_release(&gv_errors);
  hlo_diff_free(df);
done:
  cli_print_diags(&d);
  hlo_diags_release(&d);
  for (int i = 0; i < nread; i++) {
    hlo_module_free(m[i]);
    cli_input_release(&in[i]);
  }
  return rc;
}
