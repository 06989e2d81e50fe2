/* bug.h - internal errors: states that the verifier or an earlier stage has
 * ruled out.  HLO_BUG() prints "BUG: file:line: message" on standard error
 * and aborts; it must never be reachable from any input (the fuzzers keep
 * checking that).  HLO_ASSERT(cond) is HLO_BUG when cond is false. */
#ifndef HLO_CORE_BUG_H
#define HLO_CORE_BUG_H

#include "hlo/hlo_core.h"

_Noreturn void hlo_bug(const char *file, int line, const char *fmt, ...) HLO_PRINTF(3, 4);
#define HLO_BUG(...) hlo_bug(__FILE__, __LINE__, __VA_ARGS__)
#define HLO_ASSERT(cond) ((cond) ? (void)0 : hlo_bug(__FILE__, __LINE__, "assertion %s", #cond))

#endif
