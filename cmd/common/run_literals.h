/* run_literals.h - hlo-run's XLA input files: the arguments of a
 * run_hlo_module literals file (--input-literals) or of an HloSnapshot
 * (--snapshot, which also records the result), as values of the entry
 * parameters. */
#ifndef HLO_RUN_LITERALS_H
#define HLO_RUN_LITERALS_H

#include "cli.h"
#include "hlo/hlo_exec.h"
#include "hlo/hlo_pbtxt.h"

/* Read path (kept in *in, which the caller releases) as a snapshot or a
 * literals file; *run gets the first iteration's arguments and result.
 * Diagnostics are printed; returns CLI_OK or CLI_INVALID (CLI_USAGE when
 * the file cannot be read).  For a snapshot, *snap gets what it says of
 * its module. */
int run_lit_load(const cli_tool *t, hlo_arena *A, const char *path, bool snapshot, cli_input *in, hlo_pb_run *run,
                 hlo_pb_snapshot *snap);

/* The module of snapshot snap (read from in) as HLO text into *text (the
 * caller releases it), its source named "FILE (hlo_module as HLO text)".
 * Errors go to d. */
int run_lit_module(hlo_arena *A, const cli_input *in, const hlo_pb_snapshot *snap, cli_input *text, hlo_diags *d);

/* A value of shape ps holding lit (argument i), or NULL after printing
 * FILE:LINE:COL: error: ... at the literal when it does not fit. */
hlo_val *run_lit_value(const hlo_allocator *alloc, const hlo_shape *ps, const hlo_pb_literal *lit,
                       const hlo_src *src, int i);

/* The arrays of lit in order (tuples flattened) into out[n..cap); returns
 * the new count. */
int run_lit_leaves(const hlo_pb_literal *lit, const hlo_array **out, int n, int cap);

#endif
