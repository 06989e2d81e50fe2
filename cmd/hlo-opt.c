/* hlo-opt - run HLO-to-HLO passes named as XLA's pass registry names them
 * (--passes=dce,cse,...) over every module of an HLO file and print the
 * result in hlo-fmt's form (or as hlo-json with --json).  The passes and
 * their rules are listed in docs/opt.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "hlo/hlo_json.h"
#include "hlo/hlo_opt.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"
#include "hlo/hlo_verify.h"

enum {
  OPT_OUTPUT, OPT_PASSES, OPT_LIST, OPT_VERIFY_EACH, OPT_PRINT_AFTER, OPT_STATS, OPT_JSON, OPT_FOLD_LIMIT, OPT_SPLIT
};

static const cli_opt OPTS[] = {
    [OPT_OUTPUT] = {"output", 'o', 1, "FILE", "write the module to FILE instead of standard output"},
    [OPT_PASSES] = {"passes", 0, 1, "LIST", "passes to run in order, comma-separated (see --list-passes)"},
    [OPT_LIST] = {"list-passes", 0, 0, NULL, "list every pass with its purpose and exit"},
    [OPT_VERIFY_EACH] = {"verify-each", 0, 0, NULL, "verify the module before the first pass and after each one"},
    [OPT_PRINT_AFTER] = {"print-after-each", 0, 0, NULL, "print the module after each pass (standard error)"},
    [OPT_STATS] = {"stats", 0, 0, NULL, "print one line per pass: changed or not, instruction counts (standard error)"},
    [OPT_JSON] = {"json", 0, 0, NULL, "write the result as hlo-json (docs/json.md) instead of HLO text"},
    [OPT_FOLD_LIMIT] = {"fold-limit", 0, 1, "BYTES", "constant-folding: largest result folded (default 1048576)"},
    [OPT_SPLIT] = {"split-input-file", 0, 0, NULL, "accepted as XLA's hlo-opt does; modules are always split at // -----"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-opt", "--passes=LIST [OPTION]... [FILE]",
    "Run optimization passes over HLO modules (standard input if no FILE or FILE is -) and print the result.",
    OPTS,
    "Pass names follow XLA's registry: dce, cse, constant-folding, algsimp, inline,\n"
    "tuple-simplifier, flatten-call-graph, while-loop-simplifier, fusion, defuser,\n"
    "zero-sized-hlo-elimination, reshape-mover, sort-simplifier.  A pass that changes\n"
    "nothing leaves the printed module byte-identical.  Rules: docs/opt.md."};

typedef struct opt_args {
  const char *output;
  const char *passes;
  bool list, verify_each, print_after, stats, json;
  hlo_opt_options oo;
} opt_args;

static int on_opt(int idx, const char *arg, void *ud) {
  opt_args *a = ud;
  switch (idx) {
  case OPT_OUTPUT: a->output = arg; break;
  case OPT_PASSES: a->passes = arg; break;
  case OPT_LIST: a->list = true; break;
  case OPT_VERIFY_EACH: a->verify_each = true; break;
  case OPT_PRINT_AFTER: a->print_after = true; break;
  case OPT_STATS: a->stats = true; break;
  case OPT_JSON: a->json = true; break;
  case OPT_SPLIT: break;
  case OPT_FOLD_LIMIT: a->oo.fold_limit_bytes = cli_int_arg(&TOOL, "--fold-limit", arg); break;
  }
  return 0;
}

/* The passes of the list, checked before any input is read. */
static const hlo_opt_pass **parse_passes(const char *list, int *n) {
  const hlo_opt_pass **v = calloc(strlen(list) / 2 + 2, sizeof *v);
  if (!v) cli_usage_error(&TOOL, "out of memory");
  *n = 0;
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len) {
      const hlo_opt_pass *ps = hlo_opt_find(p, len);
      if (!ps) {
        free(v);
        cli_usage_error(&TOOL, "--passes: unknown pass '%.*s' (see --list-passes)", (int)len, p);
      }
      v[(*n)++] = ps;
    }
    p += len;
    if (*p == ',') p++;
  }
  return v;
}

static long count_instrs(const hlo_module *m) {
  long n = 0;
  for (int i = 0; i < m->ncomps; i++) n += m->comps[i]->ninstrs;
  return n;
}

static bool verify(hlo_module *m, const char *when, hlo_diags *d) {
  hlo_diags vd;
  hlo_diags_init(&vd, NULL);
  int rc = hlo_verify_module(m, NULL, &vd, NULL);
  if (rc) {
    hlo_errorf(d, NULL, 0, "the module does not verify %s", when);
    cli_print_diags(d);
    cli_print_diags(&vd);
    d->n = 0;
  }
  hlo_diags_release(&vd);
  return rc == HLO_OK;
}

typedef struct opt_run {
  const opt_args *a;
  const hlo_opt_pass **ps;
  int nps;
  hlo_buf *out;
} opt_run;

static int opt_one(const cli_input *in, size_t begin, size_t end, bool first, void *ud) {
  const opt_run *r = ud;
  const opt_args *a = r->a;
  const hlo_opt_pass **ps = r->ps;
  int nps = r->nps;
  hlo_buf *out = r->out;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  int rc = CLI_OK;
  hlo_module *m = hlo_parse_module(&in->src, begin, end, NULL, &d, NULL);
  if (!m || hlo_shape_fill_omitted(m, &d, &in->src)) {
    rc = CLI_INVALID;
    goto done;
  }
  for (int i = 0; i < m->ncomps; i++) /* every shape is known now: print them all */
    for (int j = 0; j < m->comps[i]->ninstrs; j++) m->comps[i]->instrs[j]->shape_omitted = false;
  const char *mname = m->name ? m->name : "<module>";
  if (a->verify_each && !verify(m, "before the first pass", &d)) {
    rc = CLI_INVALID;
    goto done;
  }
  for (int i = 0; i < nps; i++) {
    long before = count_instrs(m);
    int pr = hlo_opt_run(m, ps[i], &a->oo, &d);
    if (pr < 0) {
      hlo_errorf(&d, NULL, 0, "%s: module %s: pass %s failed", in->src.name, mname, ps[i]->name);
      rc = CLI_INVALID;
      goto done;
    }
    if (a->stats)
      fprintf(stderr, "%s: %s: %s, instructions %ld -> %ld\n", mname, ps[i]->name, pr ? "changed" : "unchanged",
              before, count_instrs(m));
    if (a->print_after) {
      hlo_buf pb;
      hlo_buf_init(&pb, NULL);
      hlo_print_module(&pb, m, NULL);
      fprintf(stderr, "// after %s (%s)\n%.*s", ps[i]->name, pr ? "changed" : "unchanged", (int)pb.len,
              pb.data ? pb.data : "");
      hlo_buf_release(&pb);
    }
    if (a->verify_each) {
      char when[160];
      snprintf(when, sizeof when, "after pass %s", ps[i]->name);
      if (!verify(m, when, &d)) {
        rc = CLI_INVALID;
        goto done;
      }
    }
  }
  if (!a->json) {
    if (!first) hlo_buf_puts(out, "// -----\n\n");
    hlo_print_module(out, m, NULL);
  }
done:
  cli_print_diags(&d);
  hlo_diags_release(&d);
  if (rc == CLI_OK && a->json) {
    hlo_json_options jo = {false}; /* one line per module */
    if (hlo_json_write(out, &m, 1, &jo)) rc = CLI_USAGE;
  }
  hlo_module_free(m);
  return rc;
}

int main(int argc, char **argv) {
  opt_args a;
  memset(&a, 0, sizeof a);
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  if (a.list) {
    int n;
    const hlo_opt_pass *ps = hlo_opt_passes(&n);
    for (int i = 0; i < n; i++) printf("%-28s %s\n", ps[i].name, ps[i].summary);
    return CLI_OK;
  }
  if (!a.passes) cli_usage_error(&TOOL, "--passes is required (see --list-passes)");
  if (npos > 1) cli_usage_error(&TOOL, "takes a single input file");
  int nps;
  const hlo_opt_pass **ps = parse_passes(a.passes, &nps);
  cli_input in;
  if (cli_read(&TOOL, npos ? argv[first] : "-", &in)) {
    free(ps);
    return CLI_USAGE;
  }
  hlo_buf out;
  hlo_buf_init(&out, NULL);
  opt_run run = {&a, ps, nps, &out};
  int rc = cli_finish(&TOOL, a.output, &out, cli_each_module(&in, opt_one, &run));
  hlo_buf_release(&out);
  cli_input_release(&in);
  free(ps);
  return rc;
}
