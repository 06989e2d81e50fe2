/* prefetch.h - loading an instruction some steps ahead of a pass over a
 * computation.  A large module's instructions lie hundreds of bytes apart
 * in its arena, too irregularly for the hardware prefetcher; a pass that
 * asks for the instruction AHEAD positions on overlaps those misses with
 * its work instead of waiting on each in turn. */
#ifndef HLO_CORE_PREFETCH_H
#define HLO_CORE_PREFETCH_H

#include "hlo/hlo_ir.h"

/* One cache line.  An asm statement on x86-64: GCC 12's dead-code pass
 * drops a __builtin_prefetch in some loops. */
static inline void hlo_prefetch_line(const void *p) {
#if defined(__x86_64__) && defined(__GNUC__)
  __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
  __builtin_prefetch(p);
#endif
}

enum { HLO_PREFETCH_AHEAD = 16 };

/* Every cache line of instruction i + AHEAD of c, and the operand list of
 * instruction i + AHEAD / 2 (that one already loaded). */
static inline void hlo_prefetch_instrs(const hlo_computation *c, int i) {
  _Static_assert(sizeof(hlo_instruction) <= 192, "four cache lines cover an instruction");
  if (i + HLO_PREFETCH_AHEAD < c->ninstrs) {
    const char *p = (const char *)c->instrs[i + HLO_PREFETCH_AHEAD];
    hlo_prefetch_line(p);
    hlo_prefetch_line(p + 64);
    hlo_prefetch_line(p + 128);
    hlo_prefetch_line(p + sizeof(hlo_instruction) - 1);
  }
  if (i + HLO_PREFETCH_AHEAD / 2 < c->ninstrs && c->instrs[i + HLO_PREFETCH_AHEAD / 2]->operands)
    hlo_prefetch_line(c->instrs[i + HLO_PREFETCH_AHEAD / 2]->operands);
}

#endif
