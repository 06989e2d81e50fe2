/* parse_checks.h - semantic rules XLA's parser enforces (parse_checks.c). */
#ifndef HLO_PARSE_CHECKS_H
#define HLO_PARSE_CHECKS_H

#include "text/scan.h"

/* The rules for one instruction whose operands are resolved. */
int check_instr_semantics(scanner *scn, const hlo_instruction *in);
/* False when check_instr_semantics has nothing to check in `in` (its
 * opcode has no rule and it has neither parameter_replication nor
 * result_accuracy): the parser then skips it. */
bool instr_semantics_apply(const hlo_instruction *in);
/* A computation written "(params) -> R" must have a root compatible with R;
 * at is where R was written. */
int check_signature_root(scanner *scn, const hlo_computation *c, const hlo_shape *declared, size_t at);
/* Each computation wrapped by an async-start has exactly one such caller
 * (after computation names are resolved); starts are the module's
 * async-starts in text order. */
int check_async_callers(scanner *scn, hlo_instruction *const *starts, int n, hlo_arena *scratch);
/* The values of the header's debug_attributes (kept as written) that XLA's
 * parser checks: log_mode is default or fusion_debugger. */
int check_debug_attributes(scanner *scn, const hlo_module *m);

#endif
