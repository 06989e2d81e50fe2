/* hlo-shape - print HLO modules with every result shape inferred: omitted
 * shapes are filled in, and each declared shape that differs from the
 * inferred one is flagged (a warning naming both) and replaced.  Exit 0 if
 * every declared shape agreed, 1 if any differed or could not be inferred,
 * 2 on usage or I/O errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/cli_dump.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"

enum { OPT_OUTPUT, OPT_OPERAND_SHAPES, OPT_NO_LAYOUTS, OPT_CHECK };

static const cli_opt OPTS[] = {
    [OPT_OUTPUT] = {"output", 'o', 1, "FILE", "write to FILE instead of standard output"},
    [OPT_OPERAND_SHAPES] = {"operand-shapes", 0, 0, NULL, "print operand shapes (XLA's long form)"},
    [OPT_NO_LAYOUTS] = {"no-layouts", 0, 0, NULL, "omit layouts from shapes"},
    [OPT_CHECK] = {"check", 0, 0, NULL, "print no module; only report differing shapes"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-shape", "[OPTION]... [FILE]...",
    "Infer every result shape of HLO modules (standard input if no FILE or FILE is -) and print them.", OPTS,
    "Shapes written in the input that differ from the inferred ones are reported on standard\n"
    "error as FILE:LINE:COL: warning: %name: declared shape X differs from the inferred shape Y."};

typedef struct args {
  hlo_print_options po;
  const char *output;
  bool check;
} args;

static int on_opt(int idx, const char *arg, void *ud) {
  args *a = ud;
  switch (idx) {
  case OPT_OUTPUT: a->output = arg; break;
  case OPT_OPERAND_SHAPES: a->po.operand_shapes = true; break;
  case OPT_NO_LAYOUTS: a->po.no_layouts = true; break;
  case OPT_CHECK: a->check = true; break;
  }
  return 0;
}

static int shape_file(const cli_input *in, const args *a, hlo_buf *out, bool *first_module) {
  int rc = CLI_OK;
  size_t begin = 0;
  for (bool first = true;; first = false) {
    size_t next, end = hlo_module_chunk_end(&in->src, begin, &next);
    if (!hlo_chunk_is_blank(&in->src, begin, end) || (first && next >= in->src.len)) {
      hlo_diags d;
      hlo_diags_init(&d, NULL);
      hlo_module *m = hlo_parse_module(&in->src, begin, end, NULL, &d, NULL);
      int changed = 0;
      if (!m || hlo_shape_infer_module(m, &d, &in->src, &changed) || changed) rc = CLI_INVALID;
      cli_print_diags(&d);
      if (m && !a->check) {
        for (int ci = 0; ci < m->ncomps; ci++) /* print the inferred shapes */
          for (int k = 0; k < m->comps[ci]->ninstrs; k++) {
            hlo_instruction *x = m->comps[ci]->instrs[k];
            if (x->shape_omitted && (x->shape.type == HLO_TUPLE || x->shape.layout || !hlo_type_is_array(x->shape.type)))
              x->shape_omitted = false;
          }
        if (!*first_module) hlo_buf_puts(out, "// -----\n\n");
        hlo_print_module(out, m, &a->po);
        *first_module = false;
      }
      hlo_module_free(m);
      hlo_diags_release(&d);
    }
    if (next >= in->src.len || next <= begin) break;
    begin = next;
  }
  return rc;
}

int main(int argc, char **argv) {
  args a = {0};
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  int nfiles;
  char **files = cli_files(&TOOL, argv, first, npos, &nfiles);
  int rc = CLI_OK;
  if (cli_dump_expanded()) a.check = true; /* a dump folder: one line per module, no modules printed */
  hlo_buf out;
  hlo_buf_init(&out, NULL);
  bool first_module = true;
  for (int i = 0; i < nfiles; i++) {
    cli_input in;
    if (cli_read(&TOOL, files[i], &in)) {
      rc = CLI_USAGE;
      continue;
    }
    int frc = shape_file(&in, &a, &out, &first_module);
    if (frc && rc == CLI_OK) rc = frc;
    if (cli_dump_expanded()) {
      if (frc) fprintf(stderr, "%s: shapes differ or cannot be inferred\n", files[i]);
      else printf("%s: ok\n", files[i]);
      fflush(stdout);
    }
    cli_input_release(&in);
  }
  if (out.failed) {
    cli_errorf(&TOOL, "out of memory");
    rc = CLI_USAGE;
  } else if (!a.check && cli_write(&TOOL, a.output, out.data ? out.data : "", out.len)) {
    rc = CLI_USAGE;
  }
  hlo_buf_release(&out);
  return rc;
}
