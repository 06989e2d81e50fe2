/* cost_internal.h - what the files of lib/cost share: the analysis state
 * (per-computation tables of instruction costs, memoized), the per-opcode
 * rule, and the shape helpers the rules are written with. */
#ifndef HLO_COST_INTERNAL_H
#define HLO_COST_INTERNAL_H

#include "hlo/hlo_cost.h"

#define COST_MAX_DEPTH 256

struct hlo_cost_analysis {
  const hlo_module *m;
  hlo_arena arena;
  hlo_diags *d;
  hlo_cost **instr;        /* [computation id][instruction id] */
  hlo_cost *sum;           /* per computation */
  unsigned char *state;    /* 0 not analyzed, 1 in progress, 2 done */
  int depth;
};

/* Sum of computation c's instruction costs, analyzing it first if needed.
 * HLO_ERR on a cycle or too deep a nesting (diagnostic recorded). */
int cost_computation(hlo_cost_analysis *a, const hlo_computation *c, hlo_cost *out);

/* The cost of one instruction by its opcode's rule (cost_rules.c). */
int cost_rule(hlo_cost_analysis *a, const hlo_instruction *in, hlo_cost *out);

/* FLOPs of a convolution and reduction count of a reduce-window
 * (cost_window.c). */
double cost_conv_flops(const hlo_instruction *conv);
double cost_reduce_window_count(const hlo_instruction *rw);

/* Bytes a fusion reads and writes (cost_fusion.c). */
double cost_fusion_bytes(const hlo_instruction *fusion);

/* Element count of an array shape, 0 for anything else or on overflow. */
double cost_elems(const hlo_shape *s);
/* The first computation named by attribute k (to_apply=, body=, calls=...). */
const hlo_computation *cost_called(const hlo_instruction *in, hlo_attr_key k);

/* ---- report (stats_report.c, stats_json.c) ---- */
typedef struct stats_row {
  const hlo_instruction *in;
  hlo_cost cost;
} stats_row;

typedef struct stats_data {
  const hlo_module *m;
  const hlo_cost_analysis *a;
  const hlo_mem_peak *p;
  const hlo_stats_options *o;
  stats_row *rows;     /* instructions of the computations not fused */
  int nrows;
  stats_row **by_flops, **by_bytes; /* the first `ntop` rows of each order */
  int ntop;
  int64_t ops[HLO_OP_COUNT]; /* instructions per opcode, every computation */
  int ninstrs;
  bool roofline;
} stats_data;

int stats_json(hlo_buf *out, const stats_data *s);
/* Opcodes that occur, most frequent first (ties in name order); count. */
int stats_opcode_order(const stats_data *s, int *order);
/* Roofline seconds of a cost under the report's options (0 without). */
double stats_seconds(const stats_data *s, const hlo_cost *c, bool *memory_bound);

#endif
