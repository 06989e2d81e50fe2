/* hlo_cost.h - static cost of an HLO module, counted as XLA's
 * HloCostAnalysis counts it: FLOPs, transcendental operations and bytes
 * accessed per instruction, per computation and for the module; the peak of
 * live buffer memory over the entry computation's order; and a roofline
 * estimate.  The rules are listed in docs/stats.md. */
#ifndef HLO_COST_H
#define HLO_COST_H

#include "hlo/hlo_ir.h"

/* The cost of one execution of an instruction (a computation: the sum over
 * its instructions).  unknown: the instruction's cost cannot be known
 * statically (custom-call); its fields are then 0 and callers say so. */
typedef struct hlo_cost {
  double flops, transcendentals, bytes;
  int unknown; /* number of instructions of unknown cost included */
} hlo_cost;

typedef struct hlo_cost_analysis hlo_cost_analysis;

/* Analyze every computation of m (parsed and linked; it must outlive the
 * analysis).  A while loop whose backend_config carries
 * {"known_trip_count":{"n":"N"}} costs N times its body and condition, any
 * other while one time (as XLA).  Returns NULL with a diagnostic on
 * allocation failure or when computations call each other in a cycle or
 * nest deeper than 256.  alloc may be NULL. */
HLO_API hlo_cost_analysis *hlo_cost_analyze(const hlo_module *m, const hlo_allocator *alloc, hlo_diags *d);
HLO_API void hlo_cost_analysis_free(hlo_cost_analysis *a);

/* The cost of one execution of instruction in (of the analyzed module); a
 * zero cost for an instruction not in it. */
HLO_API hlo_cost hlo_cost_of(const hlo_cost_analysis *a, const hlo_instruction *in);
/* The sum over the instructions of c. */
HLO_API hlo_cost hlo_cost_of_computation(const hlo_cost_analysis *a, const hlo_computation *c);
/* Trip count used for a while instruction: N from known_trip_count, else 1
 * (*known false). */
HLO_API int64_t hlo_cost_trip_count(const hlo_instruction *w, bool *known);

/* Bytes of a shape as XLA's default shape size function gives them: arrays
 * elements * bytes per element, a tuple its table of 8-byte pointers,
 * token 0, opaque 8. */
HLO_API double hlo_cost_shape_bytes(const hlo_shape *s);
/* Bytes of every array leaf of s (a tuple's elements, not its table). */
HLO_API double hlo_cost_leaf_bytes(const hlo_shape *s);

/* ---- peak live memory ------------------------------------------------------
 * Buffers of the entry computation over its order (the schedule of an
 * is_scheduled=true module is its text order, so text order either way):
 * every array leaf an instruction defines is a buffer live from its
 * definition to its last use (the root's buffers and the entry parameters
 * to the end; constants for the whole run, as XLA allocates them
 * statically).  Not allocating: tuple, get-tuple-element, bitcast,
 * opt-barrier, add-dependency and domain (they alias their operands), and,
 * when their operand dies there, the in-place ops (dynamic-update-slice,
 * scatter, while, a fusion whose root is a dynamic-update-slice of a
 * parameter, output_to_operand_aliasing); outputs named by
 * input_output_alias live in their parameter's buffer.  An instruction that
 * calls computations (while, call, conditional, async-start) adds the peak
 * of the temporaries of its callees at its step. */
typedef struct hlo_mem_live {
  const hlo_instruction *def; /* instruction that defined the buffer */
  double bytes;
} hlo_mem_live;

typedef struct hlo_mem_peak {
  double peak;                     /* bytes */
  const hlo_instruction *at;       /* entry instruction at which the peak is reached */
  double callee_bytes;             /* temporaries of at's callees included in peak */
  int nlive;                       /* buffers live at the peak, largest first */
  hlo_mem_live *live;              /* in the arena given */
  double param_bytes, output_bytes, constant_bytes;
  bool scheduled;                  /* module says is_scheduled=true */
} hlo_mem_peak;

/* Compute the peak of m's entry computation; arrays go into arena.  HLO_ERR
 * with a diagnostic if m has no entry, on allocation failure, or when
 * computations nest deeper than 256. */
HLO_API int hlo_mem_peak_compute(const hlo_module *m, hlo_arena *arena, hlo_mem_peak *out, hlo_diags *d);

/* ---- roofline --------------------------------------------------------------
 * Seconds of an instruction on a machine of peak_gflops and peak_gbps:
 * max(flops / peak, bytes / bandwidth); *memory_bound says which term won. */
HLO_API double hlo_cost_roofline(const hlo_cost *c, double peak_gflops, double peak_gbps, bool *memory_bound);

/* Measure this machine: single-precision GEMM through OpenBLAS (n x n, best
 * of a few runs) and memcpy bandwidth (read + write bytes per second of a
 * copy larger than the caches).  HLO_ERR on allocation failure. */
HLO_API int hlo_cost_calibrate(double *gflops, double *gbps);

/* ---- the hlo-stats report ---------------------------------------------------- */
typedef enum hlo_stats_format { HLO_STATS_TEXT, HLO_STATS_JSON, HLO_STATS_CSV } hlo_stats_format;

typedef struct hlo_stats_options {
  hlo_stats_format format;
  int top;                        /* length of the top lists by FLOPs and by bytes */
  double peak_gflops, peak_gbps;  /* both > 0: add the roofline estimate */
  const char *machine;            /* where the peaks come from, e.g. "given" */
} hlo_stats_options;

/* Append the report of m (its cost analysis a and peak p) to out: text
 * tables, one JSON object, or CSV with one row per instruction (docs/stats.md
 * gives each form).  HLO_ERR on allocation failure. */
HLO_API int hlo_stats_render(hlo_buf *out, const hlo_module *m, const hlo_cost_analysis *a, const hlo_mem_peak *p,
                     const hlo_stats_options *o);

#endif
