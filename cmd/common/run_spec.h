/* run_spec.h - the RUN.yaml test-spec format of hlo-run --spec: module,
 * inputs (file / inline / random), expected outputs with tolerances,
 * iterations.  Parsed with libyaml; see docs/interpreter.md for the format. */
#ifndef HLO_RUN_SPEC_H
#define HLO_RUN_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { RS_FILE, RS_INLINE, RS_RANDOM } run_src_kind;

typedef struct run_src {
  run_src_kind kind;
  char *text;       /* file path (resolved against the spec's directory) or literal */
  uint64_t seed;    /* random */
  double rtol, atol;/* outputs only */
} run_src;

typedef struct run_spec {
  char *module;     /* resolved path */
  int ninputs, noutputs;
  run_src *inputs, *outputs;
  int iterations;   /* default 1 */
  bool reference;
  double rtol, atol;/* defaults for outputs: 1e-5, 1e-6 */
} run_spec;

/* Parse the spec file at path.  On failure writes a message (with the line
 * where possible) to err and returns -1. */
int run_spec_load(const char *path, run_spec *s, char *err, size_t errlen);
void run_spec_free(run_spec *s);

#endif
