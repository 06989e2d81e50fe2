/* hlo-fuse - run the fusion pass (or its inverse, --unfuse) over every
 * module of an HLO file and print the result in hlo-fmt's form; --report
 * lists each decision, --stats the counts and bytes saved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "hlo/hlo_fuse.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"

enum { OPT_OUTPUT, OPT_REPORT, OPT_STATS, OPT_KINDS, OPT_UNFUSE, OPT_MAX_SIZE, OPT_MAX_OUTPUTS };

static const cli_opt OPTS[] = {
    [OPT_OUTPUT] = {"output", 'o', 1, "FILE", "write the module to FILE instead of standard output"},
    [OPT_REPORT] = {"report", 0, 0, NULL, "list every fusion made and every candidate rejected (standard error)"},
    [OPT_STATS] = {"stats", 0, 0, NULL, "print instruction and fusion counts and bytes saved (standard error)"},
    [OPT_KINDS] = {"kinds", 0, 1, "LIST", "fusions to make, comma-separated: loop,input,output,multi (default all)"},
    [OPT_UNFUSE] = {"unfuse", 0, 0, NULL, "inline every fusion back instead of fusing"},
    [OPT_MAX_SIZE] = {"max-size", 0, 1, "N", "at most N instructions per fused computation (default 64)"},
    [OPT_MAX_OUTPUTS] = {"max-outputs", 0, 1, "N", "at most N outputs per multi-output fusion (default 8)"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-fuse", "[OPTION]... [FILE]",
    "Fuse the instructions of HLO modules into loop, input, output and multi-output fusions "
    "(standard input if no FILE or FILE is -).",
    OPTS,
    "Rejections in --report name the reason: duplication, utilization, size, side effect,\n"
    "kind or cycle.  The rules and the cost model are in docs/fusion.md."};

typedef struct fuse_args {
  const char *output;
  bool report, stats, unfuse;
  hlo_fuse_options fo;
} fuse_args;

static unsigned parse_kinds(const char *arg) {
  unsigned k = 0;
  const char *p = arg;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == 4 && !strncmp(p, "loop", 4)) k |= HLO_FUSE_LOOP;
    else if (n == 5 && !strncmp(p, "input", 5)) k |= HLO_FUSE_INPUT;
    else if (n == 6 && !strncmp(p, "output", 6)) k |= HLO_FUSE_OUTPUT;
    else if (n == 5 && !strncmp(p, "multi", 5)) k |= HLO_FUSE_MULTI;
    else if (n == 3 && !strncmp(p, "all", 3)) k |= HLO_FUSE_ALL;
    else cli_usage_error(&TOOL, "--kinds: unknown kind '%.*s' (loop, input, output, multi, all)", (int)n, p);
    p += n;
    if (*p == ',') p++;
  }
  if (!k) cli_usage_error(&TOOL, "--kinds: empty list");
  return k;
}

static int on_opt(int idx, const char *arg, void *ud) {
  fuse_args *a = ud;
  switch (idx) {
  case OPT_OUTPUT: a->output = arg; break;
  case OPT_REPORT: a->report = true; break;
  case OPT_STATS: a->stats = true; break;
  case OPT_KINDS: a->fo.kinds = parse_kinds(arg); break;
  case OPT_UNFUSE: a->unfuse = true; break;
  case OPT_MAX_SIZE: a->fo.max_size = (int)cli_int_arg(&TOOL, "--max-size", arg); break;
  case OPT_MAX_OUTPUTS: a->fo.max_outputs = (int)cli_int_arg(&TOOL, "--max-outputs", arg); break;
  }
  return 0;
}

static void print_report(const hlo_fuse_report *r, const char *mname) {
  for (int i = 0; i < r->nevents; i++) {
    const hlo_fuse_event *e = &r->events[i];
    bool made = e->verdict <= HLO_FUSE_SIBLING;
    fprintf(stderr, "%s: %s: %s %s %s %s", mname, e->computation ? e->computation : "?",
            made ? "fuse" : "reject", e->producer ? e->producer : "?",
            e->sibling ? "with" : "into", e->consumer ? e->consumer : "?");
    if (made) fprintf(stderr, " (%s", hlo_fuse_verdict_name(e->verdict));
    else fprintf(stderr, ": %s", hlo_fuse_verdict_name(e->verdict));
    if (e->utilization >= 0) fprintf(stderr, "%sutilization %.6g", made ? ", " : " (", e->utilization);
    if (made && e->fusion) fprintf(stderr, ", in %s", e->fusion);
    if (made || e->utilization >= 0) fputc(')', stderr);
    fputc('\n', stderr);
  }
}

static void print_stats(const hlo_fuse_report *r, const char *mname) {
  fprintf(stderr,
          "%s: instructions %lld -> %lld, fusions %lld -> %lld (%lld new, %lld grown), "
          "fused instructions %lld -> %lld, intermediate bytes not written %lld, "
          "operand bytes not re-read %lld\n",
          mname, (long long)r->before.instructions, (long long)r->after.instructions,
          (long long)r->before.fusions, (long long)r->after.fusions, (long long)r->fusions_made,
          (long long)r->fusions_grown, (long long)r->before.fused_instrs, (long long)r->after.fused_instrs,
          (long long)r->bytes_not_written, (long long)r->bytes_not_read);
}

typedef struct fuse_run {
  const fuse_args *a;
  hlo_buf *out;
} fuse_run;

static int fuse_one(const cli_input *in, size_t begin, size_t end, bool first, void *ud) {
  const fuse_args *a = ((fuse_run *)ud)->a;
  hlo_buf *out = ((fuse_run *)ud)->out;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  int rc = CLI_OK;
  hlo_module *m = hlo_parse_module(&in->src, begin, end, NULL, &d, NULL);
  if (!m || hlo_shape_fill_omitted(m, &d, &in->src)) {
    rc = CLI_INVALID;
    goto done;
  }
  /* every shape is known now: print them all (fused computations need them) */
  for (int i = 0; i < m->ncomps; i++)
    for (int j = 0; j < m->comps[i]->ninstrs; j++) m->comps[i]->instrs[j]->shape_omitted = false;
  const char *mname = m->name ? m->name : (in->src.name ? in->src.name : "<module>");
  hlo_fuse_report r;
  hlo_fuse_report_init(&r, NULL);
  int pr;
  if (a->unfuse) {
    r.before = hlo_fuse_count(m);
    pr = hlo_fuse_unfuse(m, &d);
    r.after = hlo_fuse_count(m);
  } else {
    pr = hlo_fuse_module(m, &a->fo, &r, &d);
  }
  if (pr < 0) {
    rc = CLI_INVALID;
  } else {
    if (a->report) print_report(&r, mname);
    if (a->stats || a->report) print_stats(&r, mname);
    if (!first) hlo_buf_puts(out, "// -----\n\n");
    hlo_print_module(out, m, NULL);
  }
  hlo_fuse_report_release(&r);
done:
  cli_print_diags(&d);
  hlo_diags_release(&d);
  hlo_module_free(m);
  return rc;
}

int main(int argc, char **argv) {
  fuse_args a;
  memset(&a, 0, sizeof a);
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  if (npos > 1) cli_usage_error(&TOOL, "takes a single input file");
  if (a.unfuse && a.fo.kinds) cli_usage_error(&TOOL, "--unfuse and --kinds do not mix");
  cli_input in;
  if (cli_read(&TOOL, npos ? argv[first] : "-", &in)) return CLI_USAGE;
  hlo_buf out;
  hlo_buf_init(&out, NULL);
  fuse_run run = {&a, &out};
  int rc = cli_finish(&TOOL, a.output, &out, cli_each_module(&in, fuse_one, &run));
  hlo_buf_release(&out);
  cli_input_release(&in);
  return rc;
}
