/* diff_internal.h - the matcher's state shared by the files of lib/diff:
 * every instruction of each module by a global index, the match of each
 * instruction and computation, and the helpers that see through fusion
 * boundaries. */
#ifndef HLO_DIFF_INTERNAL_H
#define HLO_DIFF_INTERNAL_H

#include "hlo/hlo_diff.h"

typedef struct diff_side {
  const hlo_module *m;
  int n;                         /* instructions */
  const hlo_instruction **ins;   /* by global index */
  int *base;                     /* per computation id: index of its first instruction */
  int *match;                    /* per instruction: index on the other side, -1 */
  hlo_diff_how *how;
  int *cmatch;                   /* per computation id: id on the other side, -1 */
  const hlo_instruction **caller; /* per computation id: its only fusion caller, or NULL */
  uint64_t *hash;                /* structural hash of the subgraph below each instruction */
} diff_side;

typedef struct diff_state {
  hlo_arena *a;
  const hlo_diff_options *o;
  diff_side s[2];
} diff_state;

int diff_index(const diff_side *s, const hlo_instruction *in);
/* See through fusion boundaries: a fused parameter stands for its fusion's
 * operand, a fusion (or get-tuple-element of one) for its fused root. */
const hlo_instruction *diff_resolve(const diff_side *s, const hlo_instruction *in);
/* Run every matching phase (diff_match.c). */
int diff_match(diff_state *st);
/* Text of attribute values for comparison (metadata skipped unless asked);
 * computation names mapped through the computation match. */
bool diff_attrs_equal(const diff_state *st, const hlo_instruction *a, const hlo_instruction *b, hlo_buf *names);

#endif
