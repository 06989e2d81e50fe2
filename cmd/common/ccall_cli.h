/* ccall_cli.h - the --custom-call TARGET=FILE.hlo|identity|zeros and
 * --list-custom-calls options of hlo-run: user definitions of custom-call
 * targets read into hlo_ccall_user entries for hlo_exec_options. */
#ifndef HLO_CCALL_CLI_H
#define HLO_CCALL_CLI_H

#include "cli.h"
#include "hlo/hlo_exec.h"

#define CCALL_CLI_MAX 64

typedef struct ccall_cli {
  int n;
  const char *spec[CCALL_CLI_MAX]; /* TARGET=VALUE as given */
  hlo_ccall_user user[CCALL_CLI_MAX];
  cli_input input[CCALL_CLI_MAX];
  hlo_module *module[CCALL_CLI_MAX];
} ccall_cli;

/* Record one --custom-call argument (usage error if malformed or too many). */
void ccall_cli_add(const cli_tool *t, ccall_cli *c, const char *arg);
/* Read and parse the modules of the definitions and report every stub on
 * stderr; CLI_OK, or CLI_INVALID with the diagnostics printed. */
int ccall_cli_load(const cli_tool *t, ccall_cli *c, hlo_diags *d);
void ccall_cli_release(ccall_cli *c);
/* --list-custom-calls: one block per built-in target on stdout. */
int ccall_cli_list(void);

#endif
