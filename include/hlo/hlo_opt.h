/* hlo_opt.h - HLO-to-HLO optimization passes named as XLA's pass registry
 * names them (dce, cse, algsimp, ...), one registry to look them up and run
 * them.  The rules each pass applies, and what it leaves out, are in
 * docs/opt.md. */
#ifndef HLO_OPT_H
#define HLO_OPT_H

#include "hlo/hlo_ir.h"

typedef struct hlo_opt_options {
  int64_t fold_limit_bytes; /* constant-folding: largest folded result; 0 = 1 MiB */
} hlo_opt_options;

typedef struct hlo_opt_pass {
  const char *name;    /* XLA's spelling: "tuple-simplifier" */
  const char *summary; /* one line for --list-passes */
  int index;           /* position in the registry */
} hlo_opt_pass;

/* Every pass, in the registry's order; *n gets the count. */
HLO_API const hlo_opt_pass *hlo_opt_passes(int *n);
/* The pass called name (n bytes), or NULL. */
HLO_API const hlo_opt_pass *hlo_opt_find(const char *name, size_t n);
/* Run pass p over m in place (m parsed, shape-complete and linked; it is
 * linked again afterwards).  o may be NULL (defaults).  Returns 1 if m
 * changed, 0 if not (then m is untouched and prints byte-identically), -1
 * on error with a diagnostic in d (m may then be partly rewritten and
 * should be discarded). */
HLO_API int hlo_opt_run(hlo_module *m, const hlo_opt_pass *p, const hlo_opt_options *o, hlo_diags *d);

#endif
