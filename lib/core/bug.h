/* bug.h - HLO_BUG and HLO_ASSERT: states that an earlier stage (parser,
 * shape inference, verifier) has ruled out.  Reaching one is a bug in libhlo,
 * never the answer to user input, so it prints "BUG: file:line: msg" on
 * stderr and aborts instead of returning a made-up value or error. */
#ifndef HLO_CORE_BUG_H
#define HLO_CORE_BUG_H

#include "hlo/hlo_core.h"

_Noreturn void hlo_bug(const char *file, int line, const char *fmt, ...) HLO_PRINTF(3, 4);

#define HLO_BUG(...) hlo_bug(__FILE__, __LINE__, __VA_ARGS__)
/* Checked unless NDEBUG is defined (the Makefile never defines it). */
#ifdef NDEBUG
#define HLO_ASSERT(cond) ((void)sizeof(cond))
#else
#define HLO_ASSERT(cond) ((cond) ? (void)0 : hlo_bug(__FILE__, __LINE__, "assertion failed: %s", #cond))
#endif

#endif
