/* cli.h - what every hlo-* tool shares: a declarative option table that
 * also generates --help, --version, reading inputs ("-" = stdin), rendering
 * diagnostics to stderr, all-or-nothing output files, and the exit codes. */
#ifndef HLO_CLI_H
#define HLO_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "hlo/hlo_core.h"
#include "hlo/hlo_text.h"

enum { CLI_OK = 0, CLI_INVALID = 1, CLI_USAGE = 2 };

typedef struct cli_opt {
  const char *name;  /* long name without "--" */
  char short_name;   /* 0 if none */
  int arg;           /* 0 none, 1 required, 2 optional (--name=ARG) */
  const char *metavar;
  const char *help;
} cli_opt;

typedef struct cli_tool {
  const char *prog;     /* "hlo-fmt" */
  const char *synopsis; /* "[OPTION]... [FILE]..." */
  const char *summary;  /* one line */
  const cli_opt *opts;  /* terminated by {0} */
  const char *epilog;   /* extra help text, may be NULL */
} cli_tool;

/* Parse argv against t->opts.  For each option found calls
 * on_opt(index into opts, arg or NULL, ud); a non-zero return stops with
 * that exit code.  --help/-h print help to stdout and exit 0; --version
 * prints the version and exits 0; an unknown option or missing argument
 * prints a usage error to stderr and exits 2.  Positional arguments are
 * moved to argv[*npos_out ...] in order; returns the index of the first. */
int cli_parse(const cli_tool *t, int argc, char **argv,
              int (*on_opt)(int idx, const char *arg, void *ud), void *ud, int *npos_out);

/* The input files: the npos positional arguments from argv[first], or
 * "-" (standard input) when there are none; *nfiles gets their count.  A
 * directory stands for the modules of an XLA dump folder that --module and
 * --stage pick (cli_dump.h). */
char **cli_files(const cli_tool *t, char **argv, int first, int npos, int *nfiles);

/* Usage error: "prog: msg\nTry 'prog --help'..." on stderr, exit 2. */
_Noreturn void cli_usage_error(const cli_tool *t, const char *fmt, ...) HLO_PRINTF(2, 3);
/* "prog: msg" on stderr. */
void cli_errorf(const cli_tool *t, const char *fmt, ...) HLO_PRINTF(2, 3);

/* An input file read whole into memory. */
typedef struct cli_input {
  hlo_src src;
  char *data;
} cli_input;

/* Read path ("-" = stdin).  On failure prints "prog: cannot read PATH: why"
 * and returns HLO_ERR.  A directory is an XLA dump folder: the one module
 * that --module and --stage pick in it is read; when they pick none or
 * several, the candidates are listed and the tool exits 2 (cli_dump.h). */
int cli_read(const cli_tool *t, const char *path, cli_input *in);
void cli_input_release(cli_input *in);

/* Render every diagnostic to stderr. */
void cli_print_diags(const hlo_diags *d);

/* Write data to path atomically (a temporary file renamed into place, so a
 * failure leaves nothing half-written); path NULL or "-" = stdout. */
int cli_write(const cli_tool *t, const char *path, const char *data, size_t len);

/* Call fn(in, begin, end, first, ud) for each module of in (the chunks
 * between "// -----" lines; blank chunks skipped, but an empty file is one
 * module).  Returns the first non-zero result of fn; every module still
 * runs. */
int cli_each_module(const cli_input *in, int (*fn)(const cli_input *in, size_t begin, size_t end, bool first,
                                                   void *ud),
                    void *ud);

/* The end of a tool that writes one buffer: "out of memory" if out failed,
 * else out written to path (cli_write) when rc is CLI_OK.  Returns the exit
 * code. */
int cli_finish(const cli_tool *t, const char *path, const hlo_buf *out, int rc);

/* Parse a non-negative integer option value; usage error otherwise. */
long long cli_int_arg(const cli_tool *t, const char *opt, const char *arg);

#endif
