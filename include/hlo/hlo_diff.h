/* hlo_diff.h - what changed between two HLO modules: computations and
 * instructions matched by name first, then by structure (identical
 * subgraphs, operands of matched users, users of matched operands), each
 * pair classified as unchanged or changed (opcode, shape, operands,
 * attributes), the rest as added or removed; rendered as text, JSON or a
 * side-by-side HTML page.  The matching rules are in docs/diff.md. */
#ifndef HLO_DIFF_H
#define HLO_DIFF_H

#include "hlo/hlo_ir.h"

typedef enum hlo_diff_kind {
  HLO_DIFF_UNCHANGED, HLO_DIFF_CHANGED, HLO_DIFF_ADDED, HLO_DIFF_REMOVED, HLO_DIFF_KIND_COUNT
} hlo_diff_kind;

HLO_API const char *hlo_diff_kind_name(hlo_diff_kind k); /* "unchanged", ... */

/* What differs in a matched pair (bits of hlo_diff_entry.what). */
enum {
  HLO_DIFF_OPCODE = 1 << 0,
  HLO_DIFF_SHAPE = 1 << 1,    /* result shape or layout */
  HLO_DIFF_OPERANDS = 1 << 2, /* operand count, or an operand not the match of the other's */
  HLO_DIFF_ATTRS = 1 << 3,    /* see hlo_diff_entry.attrs */
  HLO_DIFF_RENAMED = 1 << 4,  /* informative: not a change */
  HLO_DIFF_MOVED = 1 << 5     /* informative: now in another computation (e.g. fused) */
};

typedef enum hlo_diff_how { HLO_DIFF_BY_NAME, HLO_DIFF_BY_STRUCTURE, HLO_DIFF_UNMATCHED } hlo_diff_how;

typedef struct hlo_diff_entry {
  hlo_diff_kind kind;
  unsigned what;                /* HLO_DIFF_* bits */
  hlo_diff_how how;             /* how the pair was matched */
  const hlo_instruction *a, *b; /* a NULL if added, b NULL if removed */
  const char *attrs;            /* differing attribute names, comma-separated, or NULL */
  int group;                    /* index into hlo_diff.groups */
} hlo_diff_entry;

/* A computation of B with the computation of A it matched (either may be
 * NULL: added or removed computation).  Entries come group by group. */
typedef struct hlo_diff_group {
  const hlo_computation *a, *b;
} hlo_diff_group;

typedef struct hlo_diff_options {
  bool metadata;     /* compare metadata= too (default: ignored) */
  bool unique_names; /* rename counts as a change (default: informative) */
} hlo_diff_options;

typedef struct hlo_diff {
  hlo_arena arena; /* owns everything below; the modules must outlive it */
  const hlo_module *a, *b;
  int nentries, ngroups;
  hlo_diff_entry *entries;
  hlo_diff_group *groups;
  int64_t count[HLO_DIFF_KIND_COUNT];
  int64_t renamed, moved;
  int64_t (*by_op)[HLO_DIFF_KIND_COUNT]; /* [HLO_OP_COUNT] */
} hlo_diff;

/* Compare a (before) and b (after), both parsed, shape-complete and linked.
 * Returns NULL with a diagnostic in d when memory runs out.  Free with
 * hlo_diff_free. */
HLO_API hlo_diff *hlo_diff_modules(const hlo_module *a, const hlo_module *b, const hlo_diff_options *o,
                           const hlo_allocator *alloc, hlo_diags *d);
HLO_API void hlo_diff_free(hlo_diff *df);
/* No instruction changed, added or removed. */
HLO_API bool hlo_diff_equal(const hlo_diff *df);

/* Unified-diff-like text per computation ("-" removed, "+" added, "~"
 * changed with what changed, unchanged lines only with all), then the
 * counts in total and per opcode.  Names of the inputs head the text. */
HLO_API int hlo_diff_text(hlo_buf *out, const hlo_diff *df, const char *name_a, const char *name_b, bool all);
/* One JSON document: summary, per-opcode counts, groups and entries. */
HLO_API int hlo_diff_json(hlo_buf *out, const hlo_diff *df, const char *name_a, const char *name_b);
/* A self-contained HTML page with both entry computations side by side,
 * each in the hlo-dot viewer, nodes coloured by kind, at most max_nodes
 * instructions drawn per side (0 = all; hlo-dot's markers show the cut).
 * HLO_ERR with a diagnostic if Graphviz fails. */
HLO_API int hlo_diff_html(hlo_buf *out, const hlo_diff *df, const char *name_a, const char *name_b, int max_nodes,
                  hlo_diags *d);

#endif
