/* hlo-stats - where the FLOPs, bytes and memory of an HLO module go: costs
 * per instruction, computation and module as XLA's HloCostAnalysis counts
 * them, the opcode histogram, the largest instructions, the peak of live
 * buffer memory and a roofline estimate; text, JSON or CSV. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "hlo/hlo_cost.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"
#include "hlo/hlo_verify.h"

enum { OPT_OUTPUT, OPT_JSON, OPT_CSV, OPT_TOP, OPT_PEAK_GFLOPS, OPT_PEAK_GBPS, OPT_CALIBRATE };

static const cli_opt OPTS[] = {
    [OPT_OUTPUT] = {"output", 'o', 1, "FILE", "write to FILE instead of standard output"},
    [OPT_JSON] = {"json", 0, 0, NULL, "print one JSON object"},
    [OPT_CSV] = {"csv", 0, 0, NULL, "print one CSV row per instruction"},
    [OPT_TOP] = {"top", 0, 1, "N", "list the N largest instructions by FLOPs and by bytes (default 10)"},
    [OPT_PEAK_GFLOPS] = {"peak-gflops", 0, 1, "X", "roofline: the machine computes X GFLOP/s"},
    [OPT_PEAK_GBPS] = {"peak-gbps", 0, 1, "Y", "roofline: the machine moves Y GB/s"},
    [OPT_CALIBRATE] = {"calibrate", 0, 0, NULL, "roofline: measure this machine (OpenBLAS sgemm, memcpy)"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-stats", "[OPTION]... [FILE]",
    "Report the FLOPs, bytes accessed and peak memory of an HLO module (standard input if no FILE or FILE is -).",
    OPTS,
    "Costs are counted as XLA's HloCostAnalysis counts them (docs/stats.md); a while loop counts\n"
    "known_trip_count times its body when its backend_config gives it, else once."};

typedef struct args {
  const char *output;
  hlo_stats_options so;
  bool calibrate;
} args;

static double positive(const char *opt, const char *arg) {
  char *end;
  errno = 0;
  double v = strtod(arg, &end);
  if (errno || end == arg || *end || !(v > 0) || v > 1e12)
    cli_usage_error(&TOOL, "option '%s' needs a positive number, not '%s'", opt, arg);
  return v;
}

static int on_opt(int idx, const char *arg, void *ud) {
  args *a = ud;
  switch (idx) {
  case OPT_OUTPUT: a->output = arg; break;
  case OPT_JSON: a->so.format = HLO_STATS_JSON; break;
  case OPT_CSV: a->so.format = HLO_STATS_CSV; break;
  case OPT_TOP: {
    long long n = cli_int_arg(&TOOL, "--top", arg);
    a->so.top = n > 1000000 ? 1000000 : (int)n;
    break;
  }
  case OPT_PEAK_GFLOPS: a->so.peak_gflops = positive("--peak-gflops", arg); break;
  case OPT_PEAK_GBPS: a->so.peak_gbps = positive("--peak-gbps", arg); break;
  case OPT_CALIBRATE: a->calibrate = true; break;
  }
  return 0;
}

/* Parse, fill omitted shapes and verify the first module of in. */
static hlo_module *load(const cli_input *in, hlo_diags *d) {
  size_t next, end = hlo_module_chunk_end(&in->src, 0, &next);
  if (next < in->src.len && !hlo_chunk_is_blank(&in->src, next, in->src.len))
    cli_errorf(&TOOL, "%s: warning: only the first module of the file is reported", in->src.name);
  hlo_module *m = hlo_parse_module(&in->src, 0, end, NULL, d, NULL);
  if (!m) return NULL;
  hlo_verify_options vo = {0};
  vo.allow_mixed_precision = true;
  if (hlo_shape_fill_omitted(m, d, &in->src) != HLO_OK || hlo_verify_module(m, &vo, d, &in->src) != HLO_OK) {
    hlo_module_free(m);
    return NULL;
  }
  return m;
}

int main(int argc, char **argv) {
  args a;
  memset(&a, 0, sizeof a);
  a.so.top = 10;
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  if (npos > 1) cli_usage_error(&TOOL, "one FILE at a time");
  if ((a.so.peak_gflops > 0) != (a.so.peak_gbps > 0))
    cli_usage_error(&TOOL, "--peak-gflops and --peak-gbps go together");
  if (a.calibrate && a.so.peak_gflops > 0) cli_usage_error(&TOOL, "--calibrate replaces --peak-gflops and --peak-gbps");
  a.so.machine = "given";
  if (a.calibrate) {
    if (hlo_cost_calibrate(&a.so.peak_gflops, &a.so.peak_gbps)) {
      cli_errorf(&TOOL, "cannot calibrate: out of memory");
      return CLI_USAGE;
    }
    a.so.machine = "measured on this machine";
  }
  cli_input in;
  if (cli_read(&TOOL, npos ? argv[first] : "-", &in)) return CLI_USAGE;
  int rc = CLI_OK;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_arena arena;
  hlo_arena_init(&arena, NULL);
  hlo_buf out;
  hlo_buf_init(&out, NULL);
  hlo_cost_analysis *ca = NULL;
  hlo_mem_peak peak;
  hlo_module *m = load(&in, &d);
  if (!m || !(ca = hlo_cost_analyze(m, NULL, &d)) || hlo_mem_peak_compute(m, &arena, &peak, &d)) {
    cli_print_diags(&d);
    rc = CLI_INVALID;
    goto done;
  }
  cli_print_diags(&d); /* warnings */
  if (hlo_stats_render(&out, m, ca, &peak, &a.so)) {
    cli_errorf(&TOOL, "out of memory");
    rc = CLI_USAGE;
  } else if (cli_write(&TOOL, a.output, out.data ? out.data : "", out.len)) {
    rc = CLI_USAGE;
  }
done:
  hlo_buf_release(&out);
  hlo_cost_analysis_free(ca);
  hlo_arena_release(&arena);
  hlo_module_free(m);
  hlo_diags_release(&d);
  cli_input_release(&in);
  return rc;
}
