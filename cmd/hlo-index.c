/* hlo-index - print the indexing maps of an HLO instruction (by default
 * the entry ROOT): output->input per operand, or input->output per output.
 * Also reprints map files as parsed (--reprint) or simplified (--simplify)
 * and compares two listings by meaning (--compare), for tests and for
 * people reading maps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "hlo/hlo_imap.h"
#include "hlo/hlo_text.h"

enum { OPT_INSTRUCTION, OPT_OPERAND, OPT_OUTPUT, OPT_I2O, OPT_PHYSICAL, OPT_ALL, OPT_SIMPLIFY, OPT_REPRINT, OPT_COMPARE, OPT_XLA_TEXT };

static const cli_opt OPTS[] = {
    [OPT_INSTRUCTION] = {"instruction", 'i', 1, "NAME", "index instruction NAME instead of the entry ROOT"},
    [OPT_OPERAND] = {"operand", 0, 1, "N", "only operand N's maps; with --input-to-output: from operand N"},
    [OPT_OUTPUT] = {"output", 0, 1, "N", "from output N of a multi-output op; with --input-to-output: only to output N"},
    [OPT_I2O] = {"input-to-output", 0, 0, NULL, "print input->output maps instead of output->input"},
    [OPT_PHYSICAL] = {"physical-layout", 0, 0, NULL,
                      "index physical positions (dims in each shape's major-to-minor layout order)"},
    [OPT_ALL] = {"all", 0, 0, NULL,
                 "index every instruction of every computation both ways; print counts of defined, "
                 "undefined and empty maps"},
    [OPT_SIMPLIFY] = {"simplify", 0, 0, NULL, "FILE holds indexing maps: print each one simplified"},
    [OPT_REPRINT] = {"reprint", 0, 0, NULL,
                     "FILE holds indexing maps: print each as parsed, not simplified, names kept "
                     "(XLA's ParseIndexingMap then ToString)"},
    [OPT_COMPARE] = {"compare", 0, 0, NULL,
                     "compare two listings of maps (FILE1 FILE2) by meaning; exit 1 if they differ"},
    [OPT_XLA_TEXT] = {"xla-text", 0, 1, "YEAR",
                      "print the text and apply the op rules of XLA as of YEAR: 2026 (default; "
                      "`/`, today's summand order) or 2025 (`floordiv`, MLIR's order)"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-index", "[OPTION]... [FILE]",
    "Print the indexing maps of an HLO instruction (standard input if no FILE or FILE is -).", OPTS,
    "Maps print in the multi-line format of XLA's indexing analysis doc, with XLA's\n"
    "text of today (--xla-text=2025 for that of mid 2025):\n"
    "  (d0, d1)[s0]{rt0} -> (results),\n  domain:\n  d0 in [lo, hi],\n  ...\n"
    "one block per operand headed 'operand id = N'.  See hlo-index(1)."};

typedef struct args {
  const char *instruction;
  long long operand, output;
  bool operand_set, output_set, i2o, physical, all, simplify, reprint, compare;
  imap_xla xla;
} args;

static int on_opt(int idx, const char *arg, void *ud) {
  args *a = ud;
  switch (idx) {
  case OPT_INSTRUCTION: a->instruction = arg; break;
  case OPT_OPERAND:
    a->operand = cli_int_arg(&TOOL, "--operand", arg);
    a->operand_set = true;
    break;
  case OPT_OUTPUT:
    a->output = cli_int_arg(&TOOL, "--output", arg);
    a->output_set = true;
    break;
  case OPT_I2O: a->i2o = true; break;
  case OPT_PHYSICAL: a->physical = true; break;
  case OPT_ALL: a->all = true; break;
  case OPT_SIMPLIFY: a->simplify = true; break;
  case OPT_REPRINT: a->reprint = true; break;
  case OPT_COMPARE: a->compare = true; break;
  case OPT_XLA_TEXT:
    if (!strcmp(arg, "2026")) a->xla = IMAP_XLA_2026;
    else if (!strcmp(arg, "2025")) a->xla = IMAP_XLA_2025;
    else cli_usage_error(&TOOL, "--xla-text takes 2025 or 2026");
    break;
  }
  return 0;
}

static const hlo_instruction *find_instruction(const hlo_module *m, const char *name) {
  if (name[0] == '%') name++;
  if (m->entry) {
    const hlo_instruction *in = hlo_computation_find(m->entry, name);
    if (in) return in;
  }
  for (int i = 0; i < m->ncomps; i++) {
    const hlo_instruction *in = hlo_computation_find(m->comps[i], name);
    if (in) return in;
  }
  return NULL;
}

/* --all: every instruction, every output (O->I) and every operand (I->O). */
static int index_all(const hlo_module *m, imap_xla xla, hlo_buf *out) {
  long counts[3] = {0, 0, 0}; /* defined, undefined, known empty */
  long undef_by_op[HLO_OP_COUNT] = {0};
  int rc = CLI_OK;
  for (int ci = 0; ci < m->ncomps; ci++)
    for (int ii = 0; ii < m->comps[ci]->ninstrs; ii++) {
      const hlo_instruction *in = m->comps[ci]->instrs[ii];
      int nout = hlo_shape_is_tuple(&in->shape) ? in->shape.ntuple : 1;
      for (int dir = 0; dir < 2; dir++)
        for (int k = 0; k < (dir ? in->noperands : nout); k++) {
          imap_ctx c;
          imap_ctx_init(&c, NULL);
          c.xla = xla;
          hlo_diags d;
          hlo_diags_init(&d, NULL);
          imap_indexing x;
          int r = dir ? imap_input_to_output(&c, in, k, &x, &d) : imap_output_to_input(&c, in, k, &x, &d);
          if (r) {
            cli_print_diags(&d);
            rc = CLI_INVALID;
          } else {
            for (int s = 0; s < x.n; s++)
              for (int j = 0; j < x.sets[s].n; j++) {
                counts[x.sets[s].v[j]->state]++;
                if (x.sets[s].v[j]->state == IMAP_UNDEFINED) undef_by_op[in->op]++;
              }
          }
          hlo_diags_release(&d);
          imap_ctx_release(&c);
        }
    }
  hlo_buf_printf(out, "%ld defined, %ld undefined, %ld known empty\n", counts[IMAP_DEFINED],
                 counts[IMAP_UNDEFINED], counts[IMAP_KNOWN_EMPTY]);
  for (int op = 0; op < HLO_OP_COUNT; op++)
    if (undef_by_op[op]) hlo_buf_printf(out, "  undefined: %s %ld\n", hlo_opcode_name((hlo_opcode)op), undef_by_op[op]);
  return rc;
}

/* Index one module into out. */
static int index_module(const hlo_module *m, const args *a, hlo_buf *out) {
  const hlo_instruction *in = NULL;
  if (a->all) return index_all(m, a->xla, out);
  if (a->instruction) {
    in = find_instruction(m, a->instruction);
    if (!in) {
      cli_errorf(&TOOL, "no instruction named '%s'", a->instruction);
      return CLI_INVALID;
    }
  } else {
    in = m->entry ? m->entry->root : NULL;
    if (!in) {
      cli_errorf(&TOOL, "the module has no entry computation with a ROOT");
      return CLI_INVALID;
    }
  }
  int nout = hlo_shape_is_tuple(&in->shape) ? in->shape.ntuple : 1;
  if (a->output_set && a->output >= nout) {
    cli_errorf(&TOOL, "instruction '%s' has %d output%s; there is no output %lld", in->name, nout,
               nout == 1 ? "" : "s", a->output);
    return CLI_INVALID;
  }
  if (a->operand_set && a->operand >= in->noperands) {
    cli_errorf(&TOOL, "instruction '%s' has %d operand%s; there is no operand %lld", in->name, in->noperands,
               in->noperands == 1 ? "" : "s", a->operand);
    return CLI_INVALID;
  }
  if (a->i2o && in->noperands == 0) {
    cli_errorf(&TOOL, "instruction '%s' has no operands", in->name);
    return CLI_INVALID;
  }
  imap_ctx c;
  imap_ctx_init(&c, NULL);
  c.xla = a->xla;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  imap_indexing x;
  int rc = CLI_OK;
  int idx = a->i2o ? (a->operand_set ? (int)a->operand : 0) : (a->output_set ? (int)a->output : 0);
  int r = a->i2o ? imap_input_to_output(&c, in, idx, &x, &d) : imap_output_to_input(&c, in, idx, &x, &d);
  if (!r && a->physical) r = imap_use_physical_layout(&c, in, a->i2o, idx, &x, &d);
  if (r) {
    cli_print_diags(&d);
    rc = CLI_INVALID;
  } else if (!a->i2o && a->operand_set) {
    imap_set_print_xla(out, &x.sets[a->operand], a->xla);
  } else if (a->i2o && a->output_set) {
    imap_set_print_xla(out, &x.sets[a->output], a->xla);
  } else {
    imap_indexing_print_xla(out, &x, "operand", a->xla);
  }
  hlo_diags_release(&d);
  imap_ctx_release(&c);
  return rc;
}

static int index_file(const cli_input *in, const args *a, hlo_buf *out) {
  int rc = CLI_OK;
  size_t begin = 0;
  bool first = true;
  for (;;) {
    size_t next, end = hlo_module_chunk_end(&in->src, begin, &next);
    if (!hlo_chunk_is_blank(&in->src, begin, end) || first) {
      hlo_diags d;
      hlo_diags_init(&d, NULL);
      d.max_errors = 20;
      hlo_module *m = hlo_parse_module(&in->src, begin, end, NULL, &d, NULL);
      if (!first) hlo_buf_puts(out, "// -----\n");
      if (!m) {
        cli_print_diags(&d);
        rc = CLI_INVALID;
      } else {
        int r = index_module(m, a, out);
        if (r) rc = r;
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

/* Column of a byte offset, for map-text errors. */
static void map_error(const cli_input *in, size_t off, const char *msg) {
  hlo_loc l = hlo_src_loc(&in->src, off);
  fprintf(stderr, "%s:%u:%u: error: %s\n", in->src.name, l.line, l.col, msg);
}

/* --simplify / --reprint: each map of the file, simplified or as parsed. */
static int maps_file(const cli_input *in, imap_xla xla, bool simplify, hlo_buf *out) {
  imap_ctx c;
  imap_ctx_init(&c, NULL);
  c.xla = xla;
  int rc = CLI_OK;
  size_t p = 0;
  for (;;) {
    while (p < in->src.len && strchr(" \t\r\n", in->src.text[p])) p++;
    if (p >= in->src.len) break;
    char err[256];
    imap_map *m = imap_parse_map(&c, in->src.text, in->src.len, &p, err, sizeof err);
    imap_map *s = m && simplify ? imap_simplify(&c, m) : m;
    if (!m || !s) {
      map_error(in, p, m ? "out of memory or integer overflow while simplifying" : err);
      rc = CLI_INVALID;
      break;
    }
    imap_map_print_xla(out, s, xla);
    hlo_buf_putc(out, '\n');
  }
  imap_ctx_release(&c);
  return rc;
}

static int compare_files(const cli_input *x, const cli_input *y) {
  imap_ctx c;
  imap_ctx_init(&c, NULL);
  imap_indexing a, b;
  char err[256];
  size_t pos = 0;
  int rc = CLI_OK;
  if (imap_parse_indexing(&c, x->src.text, x->src.len, &a, err, sizeof err, &pos)) {
    map_error(x, pos, err[0] ? err : "out of memory");
    rc = CLI_INVALID;
  } else if (imap_parse_indexing(&c, y->src.text, y->src.len, &b, err, sizeof err, &pos)) {
    map_error(y, pos, err[0] ? err : "out of memory");
    rc = CLI_INVALID;
  } else {
    char why[512];
    int r = imap_indexing_equal(&a, &b, why, sizeof why);
    if (r != 1) {
      fprintf(stderr, "%s and %s %s: %s\n", x->src.name, y->src.name,
              r < 0 ? "cannot be compared" : "differ", why);
      rc = CLI_INVALID;
    }
  }
  imap_ctx_release(&c);
  return rc;
}

int main(int argc, char **argv) {
  args a = {0};
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  if (a.simplify + a.reprint + a.compare > 1)
    cli_usage_error(&TOOL, "--simplify, --reprint and --compare exclude each other");
  if ((a.simplify || a.reprint || a.compare) && (a.instruction || a.operand_set || a.output_set || a.i2o))
    cli_usage_error(&TOOL, "--%s takes no instruction options",
                    a.simplify ? "simplify" : a.reprint ? "reprint" : "compare");
  if (a.compare ? npos != 2 : npos > 1)
    cli_usage_error(&TOOL, a.compare ? "--compare needs exactly two files" : "at most one FILE");
  if (a.compare) {
    cli_input x, y;
    if (cli_read(&TOOL, argv[first], &x)) return CLI_USAGE;
    if (cli_read(&TOOL, argv[first + 1], &y)) {
      cli_input_release(&x);
      return CLI_USAGE;
    }
    int rc = compare_files(&x, &y);
    cli_input_release(&x);
    cli_input_release(&y);
    return rc;
  }
  cli_input in;
  if (cli_read(&TOOL, npos ? argv[first] : "-", &in)) return CLI_USAGE;
  hlo_buf out;
  hlo_buf_init(&out, NULL);
  int rc = a.simplify || a.reprint ? maps_file(&in, a.xla, a.simplify, &out) : index_file(&in, &a, &out);
  if (out.failed) {
    cli_errorf(&TOOL, "out of memory");
    rc = CLI_INVALID;
  }
  if (out.len) fwrite(out.data, 1, out.len, stdout);
  hlo_buf_release(&out);
  cli_input_release(&in);
  return rc;
}
