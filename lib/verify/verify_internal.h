/* verify_internal.h - context and helpers shared by the verifier's files
 * (structure, called-computation signatures, op checks, the driver). */
#ifndef HLO_VERIFY_INTERNAL_H
#define HLO_VERIFY_INTERNAL_H

#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h" /* hlo_shape_str */
#include "hlo/hlo_verify.h"

/* XLA's Layout memory spaces (S(n) in a layout). */
enum { VX_DEFAULT_SPACE = 0, VX_FAST_SPACE = 1, VX_HOST_SPACE = 5 };

typedef struct vctx {
  const hlo_module *m;
  hlo_verify_options o;
  hlo_diags *d;
  const hlo_src *src;
  hlo_arena scratch; /* message strings and temporary shapes */
  int nerr;
  int64_t replicas, partitions; /* XLA's module config: 1 when not given */
  const unsigned char *async_comp; /* by computation id: 1 wrapped by an async
                                      op, 2 a collectives group; may be NULL */
  const char **threads;            /* by computation id: the execution thread
                                      after async-starts impose theirs; may be NULL */
  unsigned char *thread_set;       /* by computation id: 1 if an async-start imposed it */
} vctx;

/* Record "%name: msg" at the instruction (counts the error). */
void vx_fail(vctx *v, const hlo_instruction *in, const char *fmt, ...) HLO_PRINTF(3, 4);
/* A rule XLA states as TF_RET_CHECK(cond): our message, then XLA's text
 * "[XLA: RET_CHECK failure: cond]" (the C++ condition, which XLA's tests
 * match).  VX_RET_CHECK is false, having reported, when ok is false. */
void vx_fail_ret_check(vctx *v, const hlo_instruction *in, const char *cond, const char *fmt, ...)
    HLO_PRINTF(4, 5);
#define VX_RET_CHECK(v, in, ok, cond, ...) ((ok) ? true : (vx_fail_ret_check(v, in, cond, __VA_ARGS__), false))
/* The value of key="..." (or key={...}, braces kept) in raw attribute text (verify_ops.c), copied to scratch; NULL if absent. */
const char *vx_raw_value(vctx *v, const char *raw, const char *key);
/* Record msg at a raw offset. */
void vx_fail_at(vctx *v, size_t off, const char *fmt, ...) HLO_PRINTF(3, 4);
const char *vx_str(vctx *v, const hlo_shape *s);
const char *vx_str_layout(vctx *v, const hlo_shape *s);
/* Compatible (XLA), and with layouts when layout_sensitive. */
bool vx_same(const vctx *v, const hlo_shape *a, const hlo_shape *b);
/* The subshape of s at shape index idx[0..n) (NULL if the index is not
 * valid), and the index as XLA writes it ("{1,0}", in v's scratch). */
const hlo_shape *vx_subshape(const hlo_shape *s, const int64_t *idx, int n);
const char *vx_index_str(vctx *v, const int64_t *idx, int n);
/* Minor-to-major equality of two array layouts (missing = default). */
bool vx_layout_equal(const hlo_shape *a, const hlo_shape *b);
bool vx_has_unbounded(const hlo_shape *s);
/* Texts equal up to whitespace (NULL is ""). */
bool vx_same_text(const char *a, const char *b);

void hlo_verify_structure(vctx *v);
/* The checks every instruction gets (unbounded dimensions, mixed precision,
 * layout changes); the per-op ones come from hlo_verify_rules. */
void hlo_verify_op(vctx *v, const hlo_instruction *in);
void hlo_verify_sharding(vctx *v, const hlo_instruction *in);
/* verify_module.c: module-wide passes (async pairs, channels, async
 * computations, constrain_layout, original values, instruction names). */
void hlo_verify_module_passes(vctx *v);
/* verify_deadlock.c: XLA's VerifyNoCollectiveDeadlocks (with the option). */
void vx_check_deadlocks(vctx *v);
/* verify_instr.c: threads, sharding consistency and option-driven checks. */
void hlo_verify_instr(vctx *v, const hlo_instruction *in);
/* output_to_operand_aliasing of fusion, custom-call, async-start (verify_alias.c) */
void hlo_verify_aliasing(vctx *v, const hlo_instruction *in);
/* where buffer shapes b(...) may appear (verify_buffers.c) */
void hlo_verify_buffers(vctx *v, const hlo_instruction *in);
/* verify_instr.c: the execution threads as XLA's parser leaves them: a
 * computation's execution_thread ("main" when not written), unless an
 * async-start imposed its thread on the computation it wraps and on every
 * computation that one calls (XLA's SetThreadName). */
void vx_compute_threads(vctx *v);
const char *vx_thread(const vctx *v, const hlo_computation *c);
/* The async_execution_thread of an async-start. */
const char *vx_async_thread(const vctx *v, const hlo_instruction *start);
/* verify_async.c */
const hlo_instruction *vx_chain_start(const hlo_instruction *in);
/* verify_alias.c: XLA's CheckAsyncOpAliasConfig (params: the tuple of w's parameter shapes). */
void vx_async_aliasing(vctx *v, const hlo_instruction *in, const hlo_computation *w, const hlo_shape *params);

/* What the verifier does for one opcode (verify_table.c). */
typedef void vx_check(vctx *v, const hlo_instruction *in);
typedef struct vx_rule {
  vx_check *calls;         /* signatures of the called computations */
  vx_check *check;         /* op-specific checks beyond shape inference */
  bool strict_shape;       /* XLA's CheckShape: result equals the inferred shape */
  bool keeps_layout;       /* layout-sensitive: may not change operand layouts */
  bool mixed_precision_ok; /* operands may mix floating-point precisions */
  bool check_first;        /* check runs before shape inference, which it may stop */
  bool own_shape;          /* check replaces the comparison with the inferred shape */
} vx_rule;
extern const vx_rule hlo_verify_rules[HLO_OP_COUNT];

/* verify_calls.c: called-computation signatures. */
vx_check vx_calls_reduce, vx_calls_all_reduce, vx_calls_scatter, vx_calls_select_and_scatter, vx_calls_sort,
    vx_calls_while, vx_calls_conditional, vx_calls_call, vx_calls_fusion, vx_calls_map;
/* verify_ops.c: op-specific checks. */
vx_check vx_op_compare, vx_op_rng, vx_op_rng_bit_generator, vx_op_composite, vx_op_bitcast, vx_op_custom_call,
    vx_op_dot_precision, vx_op_dot, vx_op_async, vx_op_scaled_dot, vx_op_scan;
/* verify_collectives.c: group modes, replica groups, source-target pairs. */
vx_check vx_op_source_target_pairs, vx_op_replica_groups, vx_op_uniform_groups, vx_op_all_to_all, vx_op_shard_count,
    vx_op_ragged_all_to_all;

#endif
