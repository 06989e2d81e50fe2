/* hlo-json - write HLO modules as JSON: the lossless hlo-json form
 * (docs/json.md; hlo-fmt --from-json reads it back) or, with --graph,
 * Model Explorer's graph JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "hlo/hlo_json.h"

static const cli_opt OPTS[] = {
    {"output", 'o', 1, "FILE", "write to FILE instead of standard output"},
    {"pretty", 0, 0, NULL, "indent the JSON"},
    {"graph", 0, 0, NULL, "write Model Explorer graph JSON instead of hlo-json"},
    {"computation", 0, 1, "NAME", "with --graph: graph of computation NAME (default: entry)"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-json", "[OPTION]... [FILE]",
    "Write the HLO modules of FILE (default: standard input) as JSON.", OPTS,
    "The hlo-json form keeps everything hlo-fmt prints (schema: docs/json.md);\n"
    "'hlo-fmt --from-json' reads it back.  --graph writes the graph JSON of\n"
    "Model Explorer's JSON graph adapter for the first module of FILE."};

typedef struct args {
  const char *out, *comp;
  bool pretty, graph;
} args;

static int on_opt(int idx, const char *arg, void *ud) {
  args *a = ud;
  switch (idx) {
  case 0: a->out = arg; break;
  case 1: a->pretty = true; break;
  case 2: a->graph = true; break;
  case 3: a->comp = arg; break;
  }
  return 0;
}

int main(int argc, char **argv) {
  args a = {0};
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  if (npos > 1) cli_usage_error(&TOOL, "expected at most one input file");
  if (a.comp && !a.graph) cli_usage_error(&TOOL, "--computation needs --graph");
  const char *path = npos ? argv[first] : "-";
  cli_input in;
  if (cli_read(&TOOL, path, &in)) return CLI_USAGE;

  hlo_diags d;
  hlo_diags_init(&d, NULL);
  d.max_errors = 20;
  hlo_module **mods = NULL;
  int nmods = 0, rc = CLI_OK;
  size_t begin = 0;
  for (;;) {
    size_t next, end = hlo_module_chunk_end(&in.src, begin, &next);
    if (nmods > 0 && hlo_chunk_is_blank(&in.src, begin, end)) { /* as hlo-fmt: skip empty chunks */
      if (next >= in.src.len || next <= begin) break;
      begin = next;
      continue;
    }
    hlo_module **nv = realloc(mods, (size_t)(nmods + 1) * sizeof *nv);
    if (!nv) {
      cli_errorf(&TOOL, "out of memory");
      rc = CLI_USAGE;
      goto out;
    }
    mods = nv;
    mods[nmods] = hlo_parse_module(&in.src, begin, end, NULL, &d, NULL);
    if (!mods[nmods]) {
      rc = CLI_INVALID;
      goto out;
    }
    nmods++;
    if (next >= in.src.len || next <= begin) break;
    begin = next;
  }

  hlo_buf b;
  hlo_buf_init(&b, NULL);
  int wrc;
  if (a.graph) {
    hlo_json_graph_options go = {a.comp, a.pretty};
    wrc = hlo_json_graph_write(&b, mods[0], &go, &d);
  } else {
    hlo_json_options jo = {a.pretty};
    wrc = hlo_json_write(&b, mods, nmods, &jo);
    if (wrc) hlo_errorf(&d, NULL, 0, "out of memory while writing JSON");
  }
  if (wrc) rc = d.nerrors && !d.oom ? CLI_INVALID : CLI_USAGE;
  else if (cli_write(&TOOL, a.out, b.data ? b.data : "", b.len)) rc = CLI_USAGE;
  hlo_buf_release(&b);
out:
  cli_print_diags(&d);
  for (int i = 0; i < nmods; i++) hlo_module_free(mods[i]);
  free(mods);
  hlo_diags_release(&d);
  cli_input_release(&in);
  return rc;
}
