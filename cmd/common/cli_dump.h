/* cli_dump.h - XLA dump folders on every tool's command line: the shared
 * options --module, --stage and --list, a directory argument expanded into
 * the module files they pick (dumpdir.h), and the table hlo-ls and --list
 * print.  Used by cli.c; tools only call cli_dump_table (hlo-ls) and
 * cli_dump_expanded. */
#ifndef HLO_CLI_DUMP_H
#define HLO_CLI_DUMP_H

#include <stdbool.h>

#include "cli.h"

/* For a program that reads no modules (hlo): no shared options. */
void cli_dump_disable(void);

/* Print the help lines of the shared options. */
void cli_dump_help(void);

/* If argv[i] is a shared option, record it and return how many words it
 * took (1 or 2); else 0.  A missing argument is a usage error. */
int cli_dump_option(const cli_tool *t, int argc, char **argv, int i);

/* Replace every directory among files[0..*n) by the module files picked in
 * it (a usage error, exit 2, when a directory has none); with --list print
 * the table of files and exit.  The result lives until the process ends. */
char **cli_dump_expand(const cli_tool *t, char **files, int *n);

/* path itself, or for a directory the one module file picked in it; when
 * none or several are picked, list the candidates on standard error and
 * exit 2.  With --list print the table of path and exit. */
const char *cli_dump_resolve(const cli_tool *t, const char *path);

/* Whether a directory was expanded into more than one module: tools that
 * print whole modules then print one summary line per module instead. */
bool cli_dump_expanded(void);

/* Print the table of the modules in paths (directories or module files)
 * to standard output: number, name, stage, instruction count, parameter
 * bytes, and whether hlo-run can run it (and why not); paths_only prints
 * only the file of each.  Returns the exit code. */
int cli_dump_table(const cli_tool *t, char **paths, int n, bool paths_only);

#endif
