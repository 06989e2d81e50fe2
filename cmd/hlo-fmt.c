/* hlo-fmt - parse HLO text and print it back in canonical (XLA printer)
 * form.  Several modules in one file (split by "// -----") are printed
 * with the same separator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cli.h"
#include "common/cli_dump.h"
#include "hlo/hlo_json.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"

enum { OPT_OUTPUT, OPT_OPERAND_SHAPES, OPT_SHORT, OPT_ELIDE, OPT_SHORTEST, OPT_NO_LAYOUTS, OPT_CHECK,
       OPT_MAX_ERRORS, OPT_STATS, OPT_FROM_JSON };

static const cli_opt OPTS[] = {
    [OPT_OUTPUT] = {"output", 'o', 1, "FILE", "write to FILE instead of standard output"},
    [OPT_OPERAND_SHAPES] = {"operand-shapes", 0, 0, NULL, "print operand shapes (XLA's long form)"},
    [OPT_SHORT] = {"short", 0, 0, NULL, "no '%' sigils, no metadata, no computation signatures"},
    [OPT_ELIDE] = {"elide-constants", 0, 0, NULL, "print constants of more than 10 elements as {...}"},
    [OPT_SHORTEST] = {"shortest-floats", 0, 0, NULL, "shortest round-trip decimals instead of XLA's digits"},
    [OPT_NO_LAYOUTS] = {"no-layouts", 0, 0, NULL, "omit layouts from shapes"},
    [OPT_CHECK] = {"check", 0, 0, NULL, "print nothing; exit 1 if the output would differ from the input"},
    [OPT_MAX_ERRORS] = {"max-errors", 0, 1, "N", "report at most N errors per file (default 20)"},
    [OPT_STATS] = {"stats", 0, 0, NULL, "report parse/print time and IR memory on standard error"},
    [OPT_FROM_JSON] = {"from-json", 0, 0, NULL, "read hlo-json (as written by hlo-json) instead of HLO text"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-fmt", "[OPTION]... [FILE]...",
    "Parse HLO text and print it in canonical form (standard input if no FILE or FILE is -).",
    OPTS, NULL};

typedef struct fmt_args {
  hlo_print_options po;
  const char *output;
  bool check, stats, from_json;
  int max_errors;
} fmt_args;

static int on_opt(int idx, const char *arg, void *ud) {
  fmt_args *a = ud;
  switch (idx) {
  case OPT_OUTPUT: a->output = arg; break;
  case OPT_OPERAND_SHAPES: a->po.operand_shapes = true; break;
  case OPT_SHORT: a->po.short_form = true; break;
  case OPT_ELIDE: a->po.elide_constants = true; break;
  case OPT_SHORTEST: a->po.shortest_floats = true; break;
  case OPT_NO_LAYOUTS: a->po.no_layouts = true; break;
  case OPT_CHECK: a->check = true; break;
  case OPT_MAX_ERRORS: a->max_errors = (int)cli_int_arg(&TOOL, "--max-errors", arg); break;
  case OPT_STATS: a->stats = true; break;
  case OPT_FROM_JSON: a->from_json = true; break;
  }
  return 0;
}

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of this process: on a busy machine it says more than the wall clock */
static double cpu_now(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* --from-json: print the modules of an hlo-json document (lib/export). */
static int format_json(const cli_input *in, const fmt_args *a, hlo_buf *out) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  d.max_errors = a->max_errors;
  hlo_module **mods;
  int n;
  int rc = hlo_json_read_modules(&in->src, NULL, &d, &mods, &n) ? CLI_INVALID : CLI_OK;
  cli_print_diags(&d);
  hlo_diags_release(&d);
  if (rc) return rc;
  for (int i = 0; i < n; i++) {
    if (i) hlo_buf_puts(out, "// -----\n\n");
    hlo_print_module(out, mods[i], &a->po);
    hlo_module_free(mods[i]);
  }
  free(mods);
  return CLI_OK;
}

/* Format every module of one input into out; returns CLI_OK or CLI_INVALID. */
static int format_file(const cli_input *in, const fmt_args *a, hlo_buf *out) {
  if (a->from_json) return format_json(in, a, out);
  int rc = CLI_OK;
  size_t begin = 0;
  bool first = true;
  while (begin < in->src.len || first) {
    size_t next;
    size_t end = hlo_module_chunk_end(&in->src, begin, &next);
    /* skip chunks holding only blanks and comments (e.g. after a final separator) */
    bool empty = hlo_chunk_is_blank(&in->src, begin, end);
    if (!empty || first) {
      hlo_diags d;
      hlo_diags_init(&d, NULL);
      d.max_errors = a->max_errors;
      double t0 = now(), c0 = cpu_now();
      hlo_module *m = hlo_parse_module(&in->src, begin, end, NULL, &d, NULL);
      /* shapes left out are printed as inferred, as XLA's parser infers them */
      if (m && hlo_shape_fill_omitted(m, &d, &in->src)) {
        hlo_module_free(m);
        m = NULL;
      }
      for (int ci = 0; m && ci < m->ncomps; ci++)
        for (int k = 0; k < m->comps[ci]->ninstrs; k++) m->comps[ci]->instrs[k]->shape_omitted = false;
      double t1 = now(), c1 = cpu_now();
      if (!m) {
        cli_print_diags(&d);
        rc = CLI_INVALID;
      } else {
        if (!first) hlo_buf_puts(out, "// -----\n\n");
        size_t before = out->len;
        hlo_print_module(out, m, &a->po);
        if (a->stats)
          fprintf(stderr, "stats: text %zu bytes, parse %.6f s (cpu %.6f s), print %.6f s, ir %zu bytes reserved (%zu used), output %zu bytes\n",
                  end - begin, t1 - t0, c1 - c0, now() - t1, m->arena.bytes_reserved, hlo_arena_used(&m->arena),
                  out->len - before);
        hlo_module_free(m);
      }
      hlo_diags_release(&d);
      first = false;
    }
    if (next >= in->src.len) break;
    begin = next;
  }
  return rc;
}

int main(int argc, char **argv) {
  fmt_args a = {.max_errors = 20};
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  int nfiles;
  char **files = cli_files(&TOOL, argv, first, npos, &nfiles);
  if (a.output && nfiles > 1) cli_usage_error(&TOOL, "-o takes a single input file");
  int rc = CLI_OK;
  hlo_buf out;
  hlo_buf_init(&out, NULL);
  for (int i = 0; i < nfiles; i++) {
    cli_input in;
    if (cli_read(&TOOL, files[i], &in)) {
      rc = CLI_USAGE;
      continue;
    }
    size_t mark = out.len;
    int frc = format_file(&in, &a, &out);
    if (frc && rc == CLI_OK) rc = frc;
    if (a.check && frc == CLI_OK) {
      size_t n = out.len - mark;
      if (n != in.src.len || memcmp(out.data + mark, in.src.text, n) != 0) {
        fprintf(stderr, "%s: not in canonical form\n", files[i]);
        if (rc == CLI_OK) rc = CLI_INVALID;
      } else if (cli_dump_expanded()) { /* a dump folder: one line per module */
        printf("%s: ok\n", files[i]);
        fflush(stdout);
      }
    }
    cli_input_release(&in);
  }
  if (out.failed) {
    cli_errorf(&TOOL, "out of memory");
    rc = CLI_USAGE;
  } else if (!a.check && rc == CLI_OK) {
    /* all or nothing: output is written only when every input formatted */
    if (cli_write(&TOOL, a.output, out.data ? out.data : "", out.len)) rc = CLI_USAGE;
  }
  hlo_buf_release(&out);
  return rc;
}
