/* hlo-ls - list the HLO modules of XLA dump folders (XLA_FLAGS=
 * --xla_dump_to=DIR --xla_dump_hlo_as_text): number, name, stage,
 * instruction count, parameter bytes and whether hlo-run can run each.
 * The folder logic is shared with every tool (common/cli_dump.h). */
#include <stdio.h>

#include "common/cli.h"
#include "common/cli_dump.h"

enum { OPT_PATHS };

static const cli_opt OPTS[] = {
    [OPT_PATHS] = {"paths", 0, 0, NULL, "print only the file of each module, one a line"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-ls", "[OPTION]... DIR...",
    "List the HLO modules of XLA dump folders: number, name, stage, size and whether they run.", OPTS,
    "A DIR is what XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text wrote; its module\n"
    "files are named [TIMESTAMP.]module_NNNN.NAME.STAGE.txt.  An HLO file may be given too.\n"
    "RUNNABLE says whether hlo-run can plan the module, or why not."};

static int on_opt(int idx, const char *arg, void *ud) {
  (void)arg;
  if (idx == OPT_PATHS) *(bool *)ud = true;
  return 0;
}

int main(int argc, char **argv) {
  bool paths_only = false;
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &paths_only, &npos);
  if (!npos) cli_usage_error(&TOOL, "missing DIR");
  return cli_dump_table(&TOOL, argv + first, npos, paths_only);
}
