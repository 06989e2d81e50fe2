/* hlo_fuse.h - the fusion pass: groups instructions into XLA-style `fusion`
 * instructions (kLoop, kInput, kOutput, multi-output) using operand
 * utilization from the indexing maps, and the reverse pass that inlines
 * every fusion back.  The rules and the cost model are in docs/fusion.md. */
#ifndef HLO_FUSE_H
#define HLO_FUSE_H

#include "hlo/hlo_ir.h"

/* Which fusions the pass may make (bits of hlo_fuse_options.kinds). */
enum {
  HLO_FUSE_LOOP = 1 << 0,   /* elementwise/data-movement producers into consumers */
  HLO_FUSE_INPUT = 1 << 1,  /* producers into a reduce / reduce-window root */
  HLO_FUSE_OUTPUT = 1 << 2, /* dot / convolution into its elementwise epilogue */
  HLO_FUSE_MULTI = 1 << 3,  /* multi-output: sibling and producer-consumer */
  HLO_FUSE_ALL = 15
};

typedef struct hlo_fuse_options {
  unsigned kinds;  /* HLO_FUSE_* bits; 0 means HLO_FUSE_ALL */
  int max_size;    /* most instructions in one fused computation; 0 = 64 */
  int max_outputs; /* most outputs of a multi-output fusion; 0 = 8 */
} hlo_fuse_options;

/* Why a candidate was or was not fused. */
typedef enum hlo_fuse_verdict {
  HLO_FUSE_FUSED,          /* producer moved into the consumer's fusion */
  HLO_FUSE_DUPLICATED,     /* cheap producer copied into the fusion; it stays for other users */
  HLO_FUSE_MULTI_OUTPUT,   /* producer fused and also returned as an extra output */
  HLO_FUSE_SIBLING,        /* two fusions reading the same operand merged */
  HLO_FUSE_REJ_DUPLICATION,/* expensive producer with users outside the fusion */
  HLO_FUSE_REJ_UTILIZATION,/* expensive producer read more than once per element */
  HLO_FUSE_REJ_SIZE,       /* the fused computation would exceed max_size */
  HLO_FUSE_REJ_SIDE_EFFECT,/* side effect, collective, control flow or custom call */
  HLO_FUSE_REJ_KIND,       /* that kind of fusion is disabled, or kinds do not mix */
  HLO_FUSE_REJ_CYCLE       /* fusing would create a cycle */
} hlo_fuse_verdict;

HLO_API const char *hlo_fuse_verdict_name(hlo_fuse_verdict v);

/* One decision.  Strings point into the module (valid while it lives) or
 * into the report's arena. */
typedef struct hlo_fuse_event {
  hlo_fuse_verdict verdict;
  const char *computation;
  const char *producer;   /* the candidate (for SIBLING: the shared operand) */
  const char *consumer;   /* the fusion root it was offered to */
  const char *fusion;     /* name of the fusion made (NULL for rejections) */
  double utilization;     /* producer elements computed per element, < 0 unknown */
  bool sibling;           /* a sibling merge: producer and consumer are both fusion roots */
} hlo_fuse_event;

/* Counts over the computations that are not fused computations. */
typedef struct hlo_fuse_counts {
  int64_t instructions; /* top-level instructions (outside fused computations) */
  int64_t fusions;      /* fusion instructions among them */
  int64_t fused_instrs; /* instructions inside fused computations */
} hlo_fuse_counts;

typedef struct hlo_fuse_report {
  hlo_arena arena;      /* owns events and fusion descriptions */
  int nevents, capevents;
  hlo_fuse_event *events;
  hlo_fuse_counts before, after;
  int64_t fusions_made;      /* new fusion instructions (grown ones not counted) */
  int64_t fusions_grown;     /* fusions of the input that received producers */
  int64_t bytes_not_written; /* intermediate buffers that are no longer written */
  int64_t bytes_not_read;    /* operand reads saved by sibling fusion */
} hlo_fuse_report;

HLO_API void hlo_fuse_report_init(hlo_fuse_report *r, const hlo_allocator *alloc);
HLO_API void hlo_fuse_report_release(hlo_fuse_report *r);

/* Count instructions and fusions of m (see hlo_fuse_counts). */
HLO_API hlo_fuse_counts hlo_fuse_count(const hlo_module *m);

/* Fuse every computation of m that is not itself a fused computation or a
 * reducer (entry, while bodies and conditions, branches, call targets).
 * m must be parsed, shape-complete and linked; it is linked again after the
 * edit.  New nodes live in m's arena.  opts may be NULL; report may be NULL
 * (decisions are then not recorded).  Returns 1 if m changed, 0 if not, -1
 * on allocation failure or malformed IR (diagnostic in d; m may then be
 * partly rewritten and should be discarded). */
HLO_API int hlo_fuse_module(hlo_module *m, const hlo_fuse_options *opts, hlo_fuse_report *report,
                            hlo_diags *d);

/* What a runner does to m before it runs it, as XLA's compiler does: when m
 * verifies (allowing mixed precision), has no dynamic dimension and its
 * instruction results total 64 MB or more, the loop kind of the pass
 * (elementwise chains into kLoop fusions, which the interpreter runs as one
 * loop program each).  hlo-run does it unless --no-fuse.  Returns as
 * hlo_fuse_module; 0 when m was left as written. */
HLO_API int hlo_fuse_for_run(hlo_module *m, hlo_diags *d);

/* Inline every fusion instruction of m (recursively) back into its
 * computation and drop the fused computations no longer called.  Returns 1
 * if m changed, 0 if there was no fusion, -1 on error (diagnostic in d). */
HLO_API int hlo_fuse_unfuse(hlo_module *m, hlo_diags *d);

#endif
