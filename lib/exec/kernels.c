/* kernels.c - the interpreter's kernel table: for every opcode, the kernel
 * the reference path runs (hlo_ref_*, or a structural hlo_ctl_* shared by
 * both paths), an optional check made at plan time, and the ordered fast
 * candidates (hlo_fast_*) that the fast path offers the step; the first to
 * accept it fills in its kernel.  plan.c applies the table; this is the one
 * place that says which kernels can run an op (docs/ops.md lists it). */
#include <string.h>

#include "exec/ccall.h"
#include "exec/exec.h"
#include "exec/fast.h"

/* ---- plan-time checks and kernel choices that depend on attributes ------- */
static int prep_compare(hlo_exec *e, plan_step *s) {
  int dir, ct;
  return hlo_cmp_attrs(s->in, &dir, &ct, e->diags);
}

static int prep_constant(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (!in->literal || (in->literal->elided && !in->literal->data))
    return HLO_PLAN_ERR(e, in,
                      "instruction %%%s: constant value is elided ({...}) and cannot run",
                      in->name);
  return HLO_OK;
}

static int prep_called(hlo_exec *e, plan_step *s) {
  if (s->in->ncalled < 1)
    return HLO_PLAN_ERR(e, s->in, "instruction %%%s: no called computation",
                      s->in->name);
  return HLO_OK;
}

/* custom calls: the target table of ccall_table.c */
static int prep_custom_call(hlo_exec *e, plan_step *s) { return hlo_ccall_prep(e, s); }

/* a dot with sparsity= expands its compressed operands first (sparse_dot.c) */
static int prep_dot(hlo_exec *e, plan_step *s) { return hlo_sparse_dot_prep(e, s); }

/* remainder has no definition for complex numbers (XLA's evaluator has none) */
static int prep_remainder(hlo_exec *e, plan_step *s) {
  if (hlo_type_kind_of(s->in->shape.type) == HLO_KIND_COMPLEX)
    return HLO_PLAN_ERR(e, s->in, "instruction %%%s: remainder of complex numbers is not "
                        "supported by hlo-run", s->in->name);
  return HLO_OK;
}

/* ops that hlo-run executes for a single device only */
static int prep_one_device(hlo_exec *e, plan_step *s) {
  if (hlo_comm_replicas(e->opts.comm) * hlo_comm_partitions(e->opts.comm) > 1)
    return HLO_PLAN_ERR(e, s->in, "instruction %%%s: %s runs on one device only in hlo-run",
                        s->in->name, hlo_opcode_name(s->in->op));
  return HLO_OK;
}

/* ---- fast candidates of the typed-loop tier (kern_*.c) -------------------- */
static bool take(plan_step *s, hlo_kernel_fn fn, const char *name) {
  s->fn = fn;
  s->kname = name;
  s->p = NULL;
  return true;
}
#define ALWAYS(fn) \
  static bool cand_##fn(hlo_exec *e, plan_step *s) { (void)e; return take(s, fn, #fn); }
#define WHEN(fn, ok) \
  static bool cand_##fn(hlo_exec *e, plan_step *s) { (void)e; return ok(s->in) && take(s, fn, #fn); }
WHEN(hlo_fast_elementwise, hlo_fast_elementwise_ok)
WHEN(hlo_fast_reduce_typed, hlo_fast_reduce_typed_ok)
WHEN(hlo_fast_reduce_window_typed, hlo_fast_reduce_typed_ok)
WHEN(hlo_fast_dot_loop, hlo_fast_dot_loop_ok)
WHEN(hlo_fast_conv_loop, hlo_fast_conv_loop_ok)
WHEN(hlo_fast_batch_norm_training, hlo_fast_bn_ok)
WHEN(hlo_fast_batch_norm_inference, hlo_fast_bn_ok)
WHEN(hlo_fast_batch_norm_grad, hlo_fast_bn_ok)
ALWAYS(hlo_fast_bitcast)
ALWAYS(hlo_fast_iota)
ALWAYS(hlo_fast_reshape)
ALWAYS(hlo_fast_transpose_strided)
ALWAYS(hlo_fast_broadcast)
ALWAYS(hlo_fast_slice)
ALWAYS(hlo_fast_dynamic_slice)
ALWAYS(hlo_fast_dynamic_update_slice)
ALWAYS(hlo_fast_pad)
ALWAYS(hlo_fast_concatenate)
/* copy is the operand itself on the fast path (values are immutable) */
static bool cand_copy_forward(hlo_exec *e, plan_step *s) {
  (void)e;
  return take(s, hlo_ctl_forward0, "hlo_ctl_forward0");
}
#undef ALWAYS
#undef WHEN

/* ---- the table -------------------------------------------------------------- */
#define REF(fn) .ref = fn, .ref_name = #fn
#define PREP(fn) .prep = fn, .prep_name = #fn
#define FAST1(a) .fast = {a}, .fast_names = {#a}
#define FAST2(a, b) .fast = {a, b}, .fast_names = {#a, #b}
#define FAST3(a, b, c) .fast = {a, b, c}, .fast_names = {#a, #b, #c}
#define NO(why) .why_not = why

/* elementwise ops: a loop program when large enough, else typed loops */
#define EW {REF(hlo_ref_elementwise), FAST2(hlo_fast_plan_loop, cand_hlo_fast_elementwise)}
/* collectives: the participants of the plan's device are found at plan
 * time; ONE_DEVICE ops run only in a group of one device */
#define COLL(fn) {REF(fn), PREP(hlo_prep_collective)}
#define ONE_DEVICE(fn) {REF(fn), PREP(prep_one_device)}

const hlo_kernel_row hlo_kernels[HLO_OP_COUNT] = {
    /* elementwise */
    [HLO_OP_ABS] = EW, [HLO_OP_ACOS] = EW, [HLO_OP_ACOSH] = EW, [HLO_OP_ADD] = EW,
    [HLO_OP_AND] = EW, [HLO_OP_ASIN] = EW, [HLO_OP_ASINH] = EW, [HLO_OP_ATAN] = EW,
    [HLO_OP_ATAN2] = EW, [HLO_OP_ATANH] = EW, [HLO_OP_CBRT] = EW, [HLO_OP_CEIL] = EW,
    [HLO_OP_CLZ] = EW, [HLO_OP_COMPLEX] = EW, [HLO_OP_COS] = EW, [HLO_OP_COSH] = EW,
    [HLO_OP_DIVIDE] = EW, [HLO_OP_ERF] = EW, [HLO_OP_EXP] = EW, [HLO_OP_EXPM1] = EW,
    [HLO_OP_FLOOR] = EW, [HLO_OP_IMAG] = EW, [HLO_OP_IS_FINITE] = EW, [HLO_OP_LOG] = EW,
    [HLO_OP_LOG1P] = EW, [HLO_OP_LOGISTIC] = EW, [HLO_OP_MAXIMUM] = EW, [HLO_OP_MINIMUM] = EW,
    [HLO_OP_MULHI] = EW, [HLO_OP_MULTIPLY] = EW, [HLO_OP_NEGATE] = EW, [HLO_OP_NOT] = EW,
    [HLO_OP_OR] = EW, [HLO_OP_POPCNT] = EW, [HLO_OP_POWER] = EW, [HLO_OP_REAL] = EW,
    [HLO_OP_REMAINDER] = {REF(hlo_ref_elementwise), PREP(prep_remainder),
                          FAST2(hlo_fast_plan_loop, cand_hlo_fast_elementwise)}, [HLO_OP_ROUND_NEAREST_AFZ] = EW,
    [HLO_OP_ROUND_NEAREST_EVEN] = EW, [HLO_OP_RSQRT] = EW, [HLO_OP_SHIFT_LEFT] = EW,
    [HLO_OP_SHIFT_RIGHT_ARITHMETIC] = EW, [HLO_OP_SHIFT_RIGHT_LOGICAL] = EW,
    [HLO_OP_SIGN] = EW, [HLO_OP_SIN] = EW, [HLO_OP_SINH] = EW, [HLO_OP_SQRT] = EW,
    [HLO_OP_SUBTRACT] = EW, [HLO_OP_TAN] = EW, [HLO_OP_TANH] = EW, [HLO_OP_XOR] = EW,
    [HLO_OP_CLAMP] = {REF(hlo_ref_clamp_select),
                      FAST2(hlo_fast_plan_loop, cand_hlo_fast_elementwise)},
    [HLO_OP_SELECT] = {REF(hlo_ref_clamp_select),
                       FAST2(hlo_fast_plan_loop, cand_hlo_fast_elementwise)},
    [HLO_OP_COMPARE] = {REF(hlo_ref_compare_k), PREP(prep_compare),
                        FAST2(hlo_fast_plan_loop, cand_hlo_fast_elementwise)},
    [HLO_OP_CONVERT] = {REF(hlo_ref_convert_k),
                        FAST2(hlo_fast_plan_loop, cand_hlo_fast_elementwise)},
    [HLO_OP_STOCHASTIC_CONVERT] = {REF(hlo_ref_stochastic_convert)},
    [HLO_OP_REDUCE_PRECISION] = {REF(hlo_ref_reduce_precision_k)},
    [HLO_OP_BITCAST_CONVERT] = {REF(hlo_ref_bitcast_convert)},
    [HLO_OP_BITCAST] = {REF(hlo_ref_bitcast), FAST1(cand_hlo_fast_bitcast)},
    [HLO_OP_IOTA] = {REF(hlo_ref_iota), FAST1(cand_hlo_fast_iota)},
    [HLO_OP_CONSTANT] = {REF(hlo_ctl_constant), PREP(prep_constant)},
    [HLO_OP_PARAMETER] = {REF(hlo_ctl_parameter_unused)},
    /* data movement */
    [HLO_OP_RESHAPE] = {REF(hlo_ref_reshape), FAST1(cand_hlo_fast_reshape)},
    [HLO_OP_DYNAMIC_RESHAPE] = {REF(hlo_ref_dynamic_reshape)},
    [HLO_OP_TRANSPOSE] = {REF(hlo_ref_transpose),
                          FAST2(hlo_fast_plan_transpose, cand_hlo_fast_transpose_strided)},
    [HLO_OP_BROADCAST] = {REF(hlo_ref_broadcast),
                          FAST2(hlo_fast_plan_loop, cand_hlo_fast_broadcast)},
    [HLO_OP_SLICE] = {REF(hlo_ref_slice), FAST1(cand_hlo_fast_slice)},
    [HLO_OP_DYNAMIC_SLICE] = {REF(hlo_ref_dynamic_slice), FAST1(cand_hlo_fast_dynamic_slice)},
    [HLO_OP_DYNAMIC_UPDATE_SLICE] = {REF(hlo_ref_dynamic_update_slice),
                                     FAST1(cand_hlo_fast_dynamic_update_slice)},
    [HLO_OP_PAD] = {REF(hlo_ref_pad), FAST1(cand_hlo_fast_pad)},
    [HLO_OP_CONCATENATE] = {REF(hlo_ref_concatenate), FAST1(cand_hlo_fast_concatenate)},
    [HLO_OP_REVERSE] = {REF(hlo_ref_reverse)},
    [HLO_OP_GATHER] = {REF(hlo_ref_gather), FAST1(hlo_fast_plan_gather)},
    [HLO_OP_SCATTER] = {REF(hlo_ref_scatter), FAST1(hlo_fast_plan_scatter)},
    [HLO_OP_COPY] = {REF(hlo_ref_copy), FAST1(cand_copy_forward)},
    /* reductions, windows, sorting */
    [HLO_OP_REDUCE] = {REF(hlo_ref_reduce),
                       FAST2(hlo_fast_plan_reduce, cand_hlo_fast_reduce_typed)},
    [HLO_OP_REDUCE_WINDOW] = {REF(hlo_ref_reduce_window),
                              FAST1(cand_hlo_fast_reduce_window_typed)},
    [HLO_OP_SELECT_AND_SCATTER] = {REF(hlo_ref_select_and_scatter)},
    [HLO_OP_MAP] = {REF(hlo_ref_map)},
    [HLO_OP_SORT] = {REF(hlo_ref_sort), FAST1(hlo_fast_plan_sort)},
    [HLO_OP_TOPK] = {REF(hlo_ref_topk)},
    [HLO_OP_SCAN] = {REF(hlo_ctl_scan), PREP(prep_called)},
    /* linear algebra */
    [HLO_OP_DOT] = {REF(hlo_ref_dot), PREP(prep_dot), FAST2(hlo_fast_plan_dot, cand_hlo_fast_dot_loop)},
    [HLO_OP_RAGGED_DOT] = {REF(hlo_ref_ragged_dot)},
    [HLO_OP_SCALED_DOT] = {REF(hlo_ref_scaled_dot)},
    [HLO_OP_CONVOLUTION] = {REF(hlo_ref_convolution),
                            FAST2(hlo_fast_plan_conv, cand_hlo_fast_conv_loop)},
    [HLO_OP_FFT] = {REF(hlo_ref_fft)},
    [HLO_OP_TRIANGULAR_SOLVE] = {REF(hlo_ref_triangular_solve)},
    [HLO_OP_CHOLESKY] = {REF(hlo_ref_cholesky)},
    [HLO_OP_BATCH_NORM_TRAINING] = {REF(hlo_ref_batch_norm_training),
                                    FAST1(cand_hlo_fast_batch_norm_training)},
    [HLO_OP_BATCH_NORM_INFERENCE] = {REF(hlo_ref_batch_norm_inference),
                                     FAST1(cand_hlo_fast_batch_norm_inference)},
    [HLO_OP_BATCH_NORM_GRAD] = {REF(hlo_ref_batch_norm_grad),
                                FAST1(cand_hlo_fast_batch_norm_grad)},
    /* control flow and structure */
    [HLO_OP_WHILE] = {REF(hlo_ctl_while)},
    [HLO_OP_CONDITIONAL] = {REF(hlo_ctl_conditional)},
    [HLO_OP_CALL] = {REF(hlo_ctl_call), PREP(prep_called)},
    [HLO_OP_FUSION] = {REF(hlo_ctl_call), PREP(prep_called),
                       FAST3(hlo_fast_plan_reduce, hlo_fast_plan_loop, hlo_fast_plan_dotfuse)},
    [HLO_OP_ASYNC_START] = {REF(hlo_ctl_async_start), PREP(prep_called)},
    [HLO_OP_ASYNC_UPDATE] = {REF(hlo_ctl_async_update)},
    [HLO_OP_ASYNC_DONE] = {REF(hlo_ctl_async_done)},
    [HLO_OP_TUPLE] = {REF(hlo_ctl_tuple)},
    [HLO_OP_GET_TUPLE_ELEMENT] = {REF(hlo_ctl_gte)},
    [HLO_OP_OPTIMIZATION_BARRIER] = {REF(hlo_ctl_forward0)},
    [HLO_OP_DOMAIN] = {REF(hlo_ctl_forward0)},
    [HLO_OP_ADD_DEPENDENCY] = {REF(hlo_ctl_forward0)},
    [HLO_OP_AFTER_ALL] = {REF(hlo_ctl_token)},
    [HLO_OP_GET_DIMENSION_SIZE] = {REF(hlo_ctl_get_dimension_size)},
    [HLO_OP_SET_DIMENSION_SIZE] = {REF(hlo_ref_set_dimension_size)},
    [HLO_OP_RNG] = {REF(hlo_ref_rng)},
    [HLO_OP_RNG_BIT_GENERATOR] = {REF(hlo_ref_rng_bit_generator)},
    [HLO_OP_RNG_GET_AND_UPDATE_STATE] = {REF(hlo_ref_rng_get_and_update_state)},
    [HLO_OP_COPY_START] = {REF(hlo_ctl_collective_identity)},
    [HLO_OP_COPY_DONE] = {REF(hlo_ctl_collective_identity)},
    /* collectives (collectives.c; the participants are found at plan time) */
    [HLO_OP_ALL_REDUCE] = COLL(hlo_ctl_all_reduce), [HLO_OP_ALL_REDUCE_START] = COLL(hlo_ctl_all_reduce),
    [HLO_OP_ALL_REDUCE_DONE] = {REF(hlo_ctl_collective_identity)},
    [HLO_OP_ALL_GATHER] = COLL(hlo_ctl_all_gather), [HLO_OP_ALL_GATHER_START] = COLL(hlo_ctl_all_gather),
    [HLO_OP_ALL_GATHER_DONE] = {REF(hlo_ctl_collective_identity)},
    [HLO_OP_ALL_TO_ALL] = COLL(hlo_ctl_all_to_all), [HLO_OP_REDUCE_SCATTER] = COLL(hlo_ctl_reduce_scatter),
    [HLO_OP_COLLECTIVE_BROADCAST] = COLL(hlo_ctl_collective_broadcast),
    [HLO_OP_COLLECTIVE_REDUCE] = ONE_DEVICE(hlo_ctl_collective_identity),
    [HLO_OP_COLLECTIVE_PERMUTE_DONE] = {REF(hlo_ctl_collective_identity)},
    [HLO_OP_COLLECTIVE_PERMUTE] = COLL(hlo_ctl_collective_permute),
    [HLO_OP_COLLECTIVE_PERMUTE_START] = COLL(hlo_ctl_collective_permute),
    [HLO_OP_REPLICA_ID] = {REF(hlo_ctl_replica_id)},
    [HLO_OP_PARTITION_ID] = {REF(hlo_ctl_replica_id)},
    [HLO_OP_RAGGED_ALL_TO_ALL] = COLL(hlo_ctl_ragged_all_to_all),
    /* devices and hosts */
    [HLO_OP_INFEED] = {NO("it needs a device or host connection")},
    [HLO_OP_OUTFEED] = {NO("it needs a device or host connection")},
    [HLO_OP_SEND] = {REF(hlo_ctl_send), PREP(hlo_prep_p2p)},
    [HLO_OP_SEND_DONE] = {REF(hlo_ctl_send_done), PREP(hlo_prep_p2p)},
    [HLO_OP_RECV] = {REF(hlo_ctl_recv), PREP(hlo_prep_p2p)},
    [HLO_OP_RECV_DONE] = {REF(hlo_ctl_recv_done), PREP(hlo_prep_p2p)},
    [HLO_OP_SHUFFLE] = {NO("the interpreter has no kernel for it")},
    [HLO_OP_CUSTOM_CALL] = {PREP(prep_custom_call)},
};
