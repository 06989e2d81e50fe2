/* hlo-dot - draw an HLO computation with Graphviz (libcgraph + libgvc, in
 * process): DOT text, SVG, PNG, or a self-contained HTML viewer.  The
 * format comes from the -o extension unless -T forces it. */
#include <graphviz/cgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "hlo/hlo_dot.h"

enum { OPT_OUTPUT, OPT_FORMAT, OPT_COMP, OPT_AROUND, OPT_RADIUS, OPT_MAX, OPT_FUSIONS, OPT_BODIES,
       OPT_STATS };

static const cli_opt OPTS[] = {
    [OPT_OUTPUT] = {"output", 'o', 1, "FILE", "write to FILE (.dot, .svg, .png or .html)"},
    [OPT_FORMAT] = {"format", 'T', 1, "FMT", "output format: dot, svg, png or html (overrides the extension)"},
    [OPT_COMP] = {"computation", 0, 1, "NAME", "draw computation NAME (default: the entry)"},
    [OPT_AROUND] = {"around", 0, 1, "NAME", "draw only the neighbourhood of instruction NAME"},
    [OPT_RADIUS] = {"radius", 0, 1, "N", "with --around: how many edges away (default 2)"},
    [OPT_MAX] = {"max-nodes", 0, 1, "N", "draw at most N instructions; markers show what was cut"},
    [OPT_FUSIONS] = {"expand-fusions", 0, 0, NULL, "draw fusions as clusters of their fused instructions"},
    [OPT_BODIES] = {"expand-bodies", 0, 0, NULL, "draw while/conditional/call bodies as clusters"},
    [OPT_STATS] = {"stats", 0, 0, NULL, "print node, edge and cluster counts to standard error"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-dot", "[OPTION]... [FILE]",
    "Draw a computation of the first HLO module in FILE (default: standard input).", OPTS,
    "Without -o or -T the graph is written as DOT to standard output.  Constants\n"
    "and broadcasts of scalar constants are shown in their users' labels; edge\n"
    "labels give the operand number where the order matters.  HTML output is one\n"
    "page with the SVG inline: pan, zoom, search, and click for the instruction."};

typedef struct args {
  const char *out, *format;
  hlo_dot_options o;
  bool radius_set, stats;
} args;

static int on_opt(int idx, const char *arg, void *ud) {
  args *a = ud;
  switch (idx) {
  case OPT_OUTPUT: a->out = arg; break;
  case OPT_FORMAT: a->format = arg; break;
  case OPT_COMP: a->o.computation = arg; break;
  case OPT_AROUND: a->o.around = arg; break;
  case OPT_RADIUS:
    a->o.radius = (int)cli_int_arg(&TOOL, "--radius", arg);
    a->radius_set = true;
    break;
  case OPT_MAX: a->o.max_nodes = (int)cli_int_arg(&TOOL, "--max-nodes", arg); break;
  case OPT_FUSIONS: a->o.expand_fusions = true; break;
  case OPT_BODIES: a->o.expand_bodies = true; break;
  case OPT_STATS: a->stats = true; break;
  }
  return 0;
}

/* LeakSanitizer suppressions for Graphviz and fontconfig: cmd/common/lsan.c */

/* Graphviz's own errors and warnings, collected instead of printed. */
static hlo_buf gv_errors;
static int gv_err(char *msg) {
  hlo_buf_puts(&gv_errors, msg);
  return 0;
}

static const char *format_of(const args *a) {
  if (a->format) return a->format;
  const char *dot = a->out ? strrchr(a->out, '.') : NULL;
  if (!dot) return "dot";
  if (strcmp(dot, ".svg") == 0) return "svg";
  if (strcmp(dot, ".png") == 0) return "png";
  if (strcmp(dot, ".html") == 0 || strcmp(dot, ".htm") == 0) return "html";
  if (strcmp(dot, ".dot") == 0 || strcmp(dot, ".gv") == 0) return "dot";
  cli_usage_error(&TOOL, "cannot tell the format from '%s'; use -T dot|svg|png|html", a->out);
}

int main(int argc, char **argv) {
  args a = {0};
  a.o.radius = 2;
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  if (npos > 1) cli_usage_error(&TOOL, "expected at most one input file");
  if (a.radius_set && !a.o.around) cli_usage_error(&TOOL, "--radius needs --around");
  const char *fmt = format_of(&a);
  if (strcmp(fmt, "dot") && strcmp(fmt, "svg") && strcmp(fmt, "png") && strcmp(fmt, "html"))
    cli_usage_error(&TOOL, "unknown format '%s' (dot, svg, png or html)", fmt);
  if (strcmp(fmt, "png") == 0 && !a.out) cli_usage_error(&TOOL, "PNG output needs -o FILE");

  cli_input in;
  if (cli_read(&TOOL, npos ? argv[first] : "-", &in)) return CLI_USAGE;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  d.max_errors = 20;
  hlo_buf_init(&gv_errors, NULL);
  agseterrf(gv_err);
  int rc = CLI_OK;
  hlo_buf out, svg;
  hlo_buf_init(&out, NULL);
  hlo_buf_init(&svg, NULL);
  hlo_dot_graph *g = NULL;
  Agraph_t *graph = NULL;
  size_t next, end = hlo_module_chunk_end(&in.src, 0, &next);
  hlo_module *m = hlo_parse_module(&in.src, 0, end, NULL, &d, NULL);
  if (!m) {
    rc = CLI_INVALID;
    goto done;
  }
  g = hlo_dot_select(m, &a.o, NULL, &d);
  if (!g) {
    rc = d.oom ? CLI_USAGE : CLI_INVALID;
    goto done;
  }
  graph = hlo_dot_build(g, &d);
  if (!graph) {
    rc = CLI_USAGE;
    goto done;
  }
  if (a.stats) {
    int markers = 0;
    for (int i = 0; i < g->nnodes; i++) markers += g->nodes[i].in == NULL;
    fprintf(stderr, "hlo-dot: %s: %d nodes (%d markers), %d edges, %d clusters, %d folded, %d cut\n",
            g->comp->name, g->nnodes, markers, g->nedges, g->nclusters, g->nfolded, g->ncut);
  }
  if (strcmp(fmt, "html") == 0) {
    if (hlo_dot_render(graph, "svg", &svg, &d) ||
        hlo_dot_html(&out, g, svg.data ? svg.data : "", svg.len, m->name ? m->name : g->comp->name)) {
      if (!d.nerrors) hlo_errorf(&d, NULL, 0, "out of memory");
      rc = CLI_USAGE;
      goto done;
    }
  } else if (hlo_dot_render(graph, fmt, &out, &d)) {
    rc = CLI_USAGE;
    goto done;
  }
  if (cli_write(&TOOL, a.out, out.data ? out.data : "", out.len)) rc = CLI_USAGE;
done:
  if (gv_errors.len) {
    hlo_buf_putc(&gv_errors, 0);
    if (!gv_errors.failed) fprintf(stderr, "hlo-dot: graphviz: %s", gv_errors.data);
  }
  cli_print_diags(&d);
  if (graph) agclose(graph);
  hlo_dot_graph_free(g);
  hlo_module_free(m);
  hlo_buf_release(&out);
  hlo_buf_release(&svg);
  hlo_buf_release(&gv_errors);
  hlo_diags_release(&d);
  cli_input_release(&in);
  return rc;
}
