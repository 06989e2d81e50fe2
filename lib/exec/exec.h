/* exec.h - internals of the interpreter shared by the files of lib/exec: the generic
 * scalar used by the reference code, the execution plan (hlo_plan_*), the
 * run state, the kernel table, and the kernel signature (hlo_ref_* reference,
 * hlo_ctl_* structural and hlo_fast_* optimised kernels). */
#ifndef HLO_EXEC_INTERNAL_H
#define HLO_EXEC_INTERNAL_H

#include "hlo/hlo_exec.h"

#define MAXR HLO_EXEC_MAX_RANK

/* ---- generic scalar ------------------------------------------------------
 * One element of any array type.  Floats (every width) in f, complex in
 * (f, im), signed ints sign-extended in i, unsigned ints zero-extended in i
 * (u64 as its bit pattern), pred 0/1 in i. */
typedef struct hlo_sc {
  double f, im;
  int64_t i;
} hlo_sc;

hlo_sc hlo_sc_load(hlo_type t, const void *data, int64_t k);

/* a += x * y in the arithmetic of result type ot, as the reference dot and
 * convolution accumulate: double, complex double, wrapping 64-bit integers,
 * or (for pred) logical or of ands; rounded by hlo_sc_store at the end. */
static inline void hlo_sc_mac(hlo_sc *a, hlo_type ot, hlo_sc x, hlo_sc y) {
  switch (hlo_type_kind_of(ot)) {
  case HLO_KIND_FLOAT: a->f += x.f * y.f; break;
  case HLO_KIND_COMPLEX:
    a->f += x.f * y.f - x.im * y.im;
    a->im += x.f * y.im + x.im * y.f;
    break;
  case HLO_KIND_PRED: a->i |= (x.i && y.i); break;
  case HLO_KIND_SINT: case HLO_KIND_UINT:
    a->i = (int64_t)((uint64_t)a->i + (uint64_t)x.i * (uint64_t)y.i);
    break;
  case HLO_KIND_TOKEN: case HLO_KIND_OPAQUE: case HLO_KIND_TUPLE: break;
  }
}
/* Store with the type's rounding: floats rounded once to nearest even from
 * the double value, ints wrapped to their width, pred = (i != 0). */
void hlo_sc_store(hlo_type t, void *data, int64_t k, hlo_sc v);
/* Round a computed float value to type t and back (what a store+load does). */
double hlo_sc_round(hlo_type t, double v);
bool hlo_type_is_narrow_float(hlo_type t); /* f16, bf16, f8*, f4 */
/* Wrap an int64 to the width/signedness of t (sign/zero extension). */
int64_t hlo_sc_wrap(hlo_type t, int64_t v);

/* Scalar semantics of the elementwise ops (reference definitions used by
 * both paths for the odd cases).  in_t is the operand type, out_t the
 * result type. */
hlo_sc hlo_ref_unary(hlo_opcode op, hlo_type in_t, hlo_type out_t, hlo_sc a);
hlo_sc hlo_ref_binary(hlo_opcode op, hlo_type t, hlo_type out_t, hlo_sc a, hlo_sc b);
hlo_sc hlo_ref_convert(hlo_type from, hlo_type to, hlo_sc a);
hlo_sc hlo_ref_reduce_precision(hlo_type t, hlo_sc a, int ebits, int mbits);

/* compare directions and types */
enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };
enum { CMPT_DEFAULT, CMPT_FLOAT, CMPT_TOTALORDER, CMPT_SIGNED, CMPT_UNSIGNED };
bool hlo_ref_compare(int dir, int ctype, hlo_type t, hlo_sc a, hlo_sc b);
/* Read direction= and type= of a compare; HLO_ERR with a diagnostic. */
int hlo_cmp_attrs(const hlo_instruction *in, int *dir, int *ctype, hlo_diags *d);

/* ---- plan ---------------------------------------------------------------- */
typedef struct hlo_run hlo_run;
typedef struct plan_step plan_step;
typedef struct plan_comp plan_comp;
typedef struct scalar_prog scalar_prog;
typedef struct hlo_fast_pool hlo_fast_pool;

/* A kernel computes one instruction: args are the operand values (borrowed),
 * *out receives a new reference.  Returns HLO_OK/HLO_ERR. */
typedef int (*hlo_kernel_fn)(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out);

struct plan_step {
  const hlo_instruction *in;
  /* check mode (opts.check_fast): the kernel the reference path would run,
   * with its parameters; NULL otherwise */
  hlo_kernel_fn ref_fn;
  const char *ref_kname;
  void *ref_p;
  int slot;                 /* result slot (= instruction id) */
  int nargs;
  int *args;                /* operand slots */
  bool *last_use;           /* operand k dies after this step */
  hlo_kernel_fn fn;           /* chosen once at plan time */
  const char *kname;        /* kernel name, for --time reports */
  int nsub;
  plan_comp **sub;          /* called computations, in hlo order */
  void *p;                  /* per-op precomputed parameters */
  hlo_exec_prof *prof;      /* profile entry when profiling, else NULL */
  double prof_flops;        /* flops per call (profile; hlo_cost.h's rules) */
  double prof_bytes;        /* bytes accessed per call (the same) */
};

struct plan_comp {
  const hlo_computation *comp;
  int nsteps;
  plan_step *steps;
  int nslots;
  int root;
  int nparams;
  int *param_slot;          /* by parameter number, -1 if absent */
  int *nuses;               /* per slot: uses inside this computation (+1 root) */
  scalar_prog *sprog;       /* compiled scalar form, NULL if not scalar-only */
  bool compiling;           /* recursion guard */
  bool mixed;               /* has convert steps for mixed float precision
                               (here or in a computation it calls): only
                               the step-by-step kernels run it */
};

struct hlo_exec {
  const hlo_module *m;
  hlo_exec_options opts;
  const hlo_allocator *alloc;
  hlo_diags *diags;
  hlo_arena arena;          /* plan storage */
  plan_comp **plans;        /* by computation id */
  plan_comp *entry;
  uint64_t rng_state;       /* `rng` counter, advanced per execution */
  uint64_t rng_gs[2];       /* rng-get-and-update-state: 128-bit state (low, high) */
  hlo_val **consts;         /* constant values made at first use */
  int nconsts, capconsts;
  hlo_exec_prof *prof;      /* profile entries (opts.profile) */
  int nprof;
  hlo_fast_pool *pool;      /* fast-path threads (NULL: one thread) */
  hlo_isa isa_level;        /* effective ISA level of the fast kernels */
  const struct hlo_fv_isa *isa; /* its vector chunk kernels (fast.h) */
  hlo_exec **subs;          /* plans of user custom-call modules (ccall_user.c) */
  hlo_comm *own_comm;       /* one device sending to itself without a device
                               group: its own 1x1 communicator (p2p.c) */
  int nsubs, capsubs;
};

/* Tolerance of a fast kernel's result against the reference kernel's on the
 * same operands (tolerance.c): |fast - ref| <= ulps ulps of the result type
 * + terms * unit * M, where M is the sum of the absolute terms (the result on
 * absolute operands) when terms > 0.  All zero: the same bits (any NaN
 * matching any NaN). */
typedef struct hlo_tol {
  int ulps;
  double terms, unit;
} hlo_tol;
hlo_tol hlo_tol_of(const hlo_instruction *in, hlo_type out);
/* Whether fast agrees with ref (same shapes) within hlo_tol_of(in, leaf type)
 * for every leaf; mag holds sum |terms| per element where the tolerance has
 * terms (else NULL).  HLO_ERR with the first element out of tolerance, both
 * values and the tolerance described in why. */
int hlo_tol_check(const hlo_instruction *in, const hlo_val *fast, const hlo_val *ref,
                  const hlo_val *mag, char *why, size_t cap);
/* Run step s: its kernel, and in check mode also the reference kernel on the
 * same operands, comparing the two (check.c). */
int hlo_check_call(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out);

/* Set up profile entries for every planned step (profile.c). */
int hlo_prof_setup(hlo_exec *e);
/* Run step s's kernel, timing it into s->prof. */
int hlo_prof_call(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out);

/* Buffer pool: data blocks of released values are kept and reused by later
 * allocations of no larger size (liveness-driven reuse). */
#define POOL_MAX 64
#define POOL_BYTES_MAX ((size_t)1 << 30) /* dead storage kept for reuse */
struct hlo_run {
  hlo_exec *e;
  bool ref_only;            /* check mode: steps run their reference kernels */
  const hlo_allocator *alloc;
  hlo_diags *d;
  int depth;
  int npool;
  void *pool[POOL_MAX];
  size_t pool_cap[POOL_MAX];
  size_t pool_bytes;
};

/* Allocate a value of shape s (zero-filled leaves) using the pool. */
hlo_val *hlo_run_new(hlo_run *r, const hlo_shape *s);
/* Like hlo_run_new but the data is not cleared (kernel writes every element). */
hlo_val *hlo_run_new_raw(hlo_run *r, const hlo_shape *s);
void hlo_run_release(hlo_run *r, hlo_val *v);
/* Move the storage of `from` (which must be dying: refs == 1, same byte
 * size) into a new value of shape s; `from` keeps no data.  NULL if it
 * cannot (the caller then allocates). */
hlo_val *hlo_run_steal(hlo_run *r, hlo_val *from, const hlo_shape *s);
/* Runtime error naming instruction in. */
int hlo_run_errorf(hlo_run *r, const hlo_instruction *in, const char *fmt, ...) HLO_PRINTF(3, 4);

/* Run step s's kernel (through the check or profile wrapper when on). */
int hlo_run_step(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out);

/* Dynamic dimensions at run time (dyn.c).  A value whose dims is set keeps
 * the bound's layout inside a run; hlo_dyn_step runs a step one of whose
 * operands has them: carries the actual sizes to the result, masks the
 * padding a reduce or dot would read, refuses other ops naming the
 * instruction.  hlo_dyn_native: the step sets the sizes itself. */
int hlo_dyn_step(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out);
bool hlo_dyn_native(const plan_step *s);
/* Give *res the actual sizes dims (a copy when it is shared; NULL dims in
 * the value when every size is the bound). */
int hlo_dyn_put(hlo_run *r, const hlo_instruction *in, hlo_val **res, const int64_t *dims);
/* A copy of v with every element at or past limit[] in some dimension set
 * to fill's element (zero when fill is NULL); NULL when out of memory. */
hlo_val *hlo_dyn_masked(hlo_run *r, const hlo_val *v, const int64_t *limit, const void *fill);
/* The caller's dense form to the padded one (a new reference in *padded),
 * and a result back to the dense form (replacing *res). */
int hlo_dyn_enter(hlo_run *r, hlo_val *arg, hlo_val **padded);
/* hlo_val_new_dynamic without its checks (dims within the bounds, any
 * dimension: the run carries sizes the result's shape may not mark). */
hlo_val *hlo_val_new_sized(const hlo_allocator *alloc, const hlo_shape *shape, const int64_t *dims);
int hlo_dyn_leave(hlo_run *r, hlo_val **res);

/* Run a compiled computation on borrowed args; *out gets a new reference. */
int hlo_run_comp(hlo_run *r, const plan_comp *pc, hlo_val **args, int nargs, hlo_val **out);
/* Run a computation whose parameters and results are scalars (or a tuple of
 * scalars): nin scalars in `in` (types from the parameters), results to
 * `out` (nout of them).  Uses the scalar program when there is one. */
int hlo_run_scalar(hlo_run *r, const plan_comp *pc, const hlo_sc *in, int nin,
                   hlo_sc *out, int nout);

/* ---- the kernel table (kernels.c) --------------------------------------------
 * One row per opcode.  ref: the kernel of the reference path (a structural
 * hlo_ctl_* kernel where both paths share it); prep: an optional plan-time
 * check (user errors with the instruction's name) that may also choose ref
 * (custom calls); fast: candidates the fast path offers the step in order,
 * each accepting (filling s->fn, s->kname, s->p) or declining; why_not: the
 * op cannot run (its reason, "" for none).  The *_name fields are the
 * functions' names, for docs/ops.md. */
#define HLO_FAST_CANDIDATES 4
typedef bool (*hlo_fast_cand)(hlo_exec *e, plan_step *s);
typedef struct hlo_kernel_row {
  hlo_kernel_fn ref;
  const char *ref_name;
  int (*prep)(hlo_exec *e, plan_step *s);
  const char *prep_name;
  hlo_fast_cand fast[HLO_FAST_CANDIDATES];
  const char *fast_names[HLO_FAST_CANDIDATES];
  const char *why_not;
} hlo_kernel_row;
extern const hlo_kernel_row hlo_kernels[HLO_OP_COUNT];
/* Plan-time step of every collective: its participants (collectives.c). */
int hlo_prep_collective(hlo_exec *e, plan_step *s);
/* Plan-time step of send, recv and their done forms: the peer device, or
 * the refusal of host transfers (p2p.c). */
int hlo_prep_p2p(hlo_exec *e, plan_step *s);
/* Offer step s to the fast candidates of its op; true if one took it. */
bool hlo_plan_fast(hlo_exec *e, plan_step *s);

/* A plan-time error about instruction in, at its position when the source
 * is known (opts.src). */
#define HLO_PLAN_ERR(e, in, ...)                                              \
  hlo_errorf((e)->diags, (e)->opts.src && (in)->off ? (e)->opts.src : NULL,  \
             (e)->opts.src ? (in)->off : 0, __VA_ARGS__)

/* Compile computation c (memoized). */
plan_comp *hlo_plan_comp(hlo_exec *e, const hlo_computation *c);
/* Choose the kernel of step s from the kernel table; HLO_ERR if the op
 * cannot run. */
int hlo_plan_kernel(hlo_exec *e, plan_step *s);
/* Try to compile a scalar program for pc (sets pc->sprog or leaves NULL). */
void hlo_plan_scalar(hlo_exec *e, plan_comp *pc);
/* Mixed float precision (plan_mixed.c).  The float type operand i of `in`
 * must be converted to before its kernel runs, or HLO_TYPE_COUNT if none. */
hlo_type hlo_plan_mixed_target(const hlo_instruction *in, int i);
/* Count the conversions `in` needs in *nconv; HLO_ERR if its operands mix
 * float types in a way no conversion serves. */
int hlo_plan_mixed_check(hlo_exec *e, const hlo_instruction *in, int *nconv);
/* Append to pc->steps at *ns one convert step per operand of `in` needing
 * one (results in new slots from *next_slot); returns the copy of `in` that
 * reads the converted operands, NULL when out of memory or unplannable. */
const hlo_instruction *hlo_plan_mixed_steps(hlo_exec *e, plan_comp *pc, const hlo_instruction *in,
                                            int *ns, int *next_slot);
int hlo_sprog_run(const scalar_prog *sp, const hlo_sc *in, int nin, hlo_sc *out, int nout);

/* ---- helpers for kernels -------------------------------------------------- */
/* Row-major strides of a shape (elements). */
void hlo_strides(const hlo_shape *s, int64_t *st);
/* Advance a multi-index in row-major order; false when it wraps to zero. */
bool hlo_index_next(int rank, const int64_t *dims, int64_t *idx);
int64_t hlo_index_dot(int rank, const int64_t *idx, const int64_t *st);

/* Clamped start indices of dynamic-slice / dynamic-update-slice (operands
 * from `first`), so a window of `size` fits in `base`. */
int hlo_ref_read_starts(hlo_run *r, const plan_step *s, hlo_val **args, int first,
                        const hlo_shape *base, const int64_t *size, int64_t *start);

/* Reference kernels (one per op family) and fast kernels. */
#define DECL_KERN(name) int name(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out)
/* structural / control (shared by both paths) */
DECL_KERN(hlo_ctl_parameter_unused);
DECL_KERN(hlo_ctl_constant);
DECL_KERN(hlo_ctl_tuple);
DECL_KERN(hlo_ctl_gte);
DECL_KERN(hlo_ctl_forward0);       /* result = operand 0 (copy-free) */
DECL_KERN(hlo_ctl_token);
DECL_KERN(hlo_ctl_call);           /* call, fusion */
DECL_KERN(hlo_ctl_while);
DECL_KERN(hlo_ctl_conditional);
DECL_KERN(hlo_ctl_replica_id);     /* and partition-id (collectives.c) */
DECL_KERN(hlo_ctl_all_reduce);     /* and all-reduce-start */
DECL_KERN(hlo_ctl_reduce_scatter);
DECL_KERN(hlo_ctl_all_gather);     /* and all-gather-start */
DECL_KERN(hlo_ctl_all_to_all);
DECL_KERN(hlo_ctl_collective_broadcast);
DECL_KERN(hlo_ctl_get_dimension_size);
DECL_KERN(hlo_ctl_collective_identity);
DECL_KERN(hlo_ctl_collective_permute);
DECL_KERN(hlo_ctl_ragged_all_to_all);
DECL_KERN(hlo_ctl_async_start);    /* async.c: late-binding async chains */
DECL_KERN(hlo_ctl_async_update);
DECL_KERN(hlo_ctl_async_done);
DECL_KERN(hlo_ctl_scan);            /* scan: the body per position, outputs stacked, carries threaded */
DECL_KERN(hlo_ccall_pad_to_static);    /* custom calls PadToStatic, SliceToDynamic */
/* Whether step s runs a dynamic convolution call (which reads and sets
 * actual sizes itself, ccall_dynconv.c). */
bool hlo_ccall_is_dynconv(const plan_step *s);
DECL_KERN(hlo_ccall_slice_to_dynamic);
DECL_KERN(hlo_ctl_send);           /* send and recv between devices (p2p.c) */
DECL_KERN(hlo_ctl_send_done);
DECL_KERN(hlo_ctl_recv);
DECL_KERN(hlo_ctl_recv_done);
/* reference kernels */
DECL_KERN(hlo_ref_elementwise);
DECL_KERN(hlo_ref_compare_k);
DECL_KERN(hlo_ref_convert_k);
DECL_KERN(hlo_ref_reduce_precision_k);
DECL_KERN(hlo_ref_bitcast_convert);
DECL_KERN(hlo_ref_bitcast);
DECL_KERN(hlo_ref_iota);
DECL_KERN(hlo_ref_reshape);
DECL_KERN(hlo_ref_transpose);
DECL_KERN(hlo_ref_broadcast);
DECL_KERN(hlo_ref_slice);
DECL_KERN(hlo_ref_dynamic_slice);
DECL_KERN(hlo_ref_dynamic_update_slice);
DECL_KERN(hlo_ref_pad);
DECL_KERN(hlo_ref_concatenate);
DECL_KERN(hlo_ref_reverse);
DECL_KERN(hlo_ref_gather);
DECL_KERN(hlo_ref_scatter);
DECL_KERN(hlo_ref_copy);
DECL_KERN(hlo_ref_reduce);
DECL_KERN(hlo_ref_reduce_window);
DECL_KERN(hlo_ref_select_and_scatter);
DECL_KERN(hlo_ref_map);
DECL_KERN(hlo_ref_sort);
DECL_KERN(hlo_ref_topk);
DECL_KERN(hlo_ref_dot);
DECL_KERN(hlo_ref_convolution);
/* The reference convolution of s->in's dimension numbers and group counts
 * over lhs and rhs with the window wd (one per spatial dimension); the
 * window of s->in, defaults filled, comes from hlo_ref_conv_window. */
int hlo_ref_conv_window(hlo_run *r, const plan_step *s, const hlo_val *lhs, const hlo_val *rhs,
                        hlo_window_dim *wd);
/* The reference reduce-window of s->in with the window wd (one per
 * dimension) in place of its own. */
int hlo_ref_reduce_window_with(hlo_run *r, const plan_step *s, hlo_val **args, const hlo_window_dim *wd,
                               hlo_val **out);
/* The reference select-and-scatter of s->in with the window wd and the
 * select and scatter computations given. */
int hlo_ref_select_and_scatter_with(hlo_run *r, const plan_step *s, hlo_val **args, const hlo_window_dim *wd,
                                    const hlo_computation *select, const hlo_computation *scatter,
                                    hlo_val **out);
int hlo_ref_conv_with(hlo_run *r, const plan_step *s, const hlo_val *lhs, const hlo_val *rhs,
                      const hlo_window_dim *wd, hlo_val **out);
DECL_KERN(hlo_ref_fft);
DECL_KERN(hlo_ref_triangular_solve);
DECL_KERN(hlo_ref_cholesky);
DECL_KERN(hlo_ref_batch_norm_training);
DECL_KERN(hlo_ref_batch_norm_inference);
DECL_KERN(hlo_ref_batch_norm_grad);
DECL_KERN(hlo_ref_rng);
DECL_KERN(hlo_ref_rng_bit_generator);
DECL_KERN(hlo_ref_set_dimension_size);
DECL_KERN(hlo_ref_dynamic_reshape);
DECL_KERN(hlo_ref_clamp_select);
DECL_KERN(hlo_ref_ragged_dot);
DECL_KERN(hlo_ref_scaled_dot);
DECL_KERN(hlo_ref_stochastic_convert);
DECL_KERN(hlo_ref_rng_get_and_update_state);
/* fast kernels */
DECL_KERN(hlo_fast_elementwise);
DECL_KERN(hlo_fast_broadcast);
DECL_KERN(hlo_fast_transpose_strided);
DECL_KERN(hlo_fast_reshape);
DECL_KERN(hlo_fast_bitcast);
DECL_KERN(hlo_fast_slice);
DECL_KERN(hlo_fast_concatenate);
DECL_KERN(hlo_fast_pad);
DECL_KERN(hlo_fast_reduce_typed);
DECL_KERN(hlo_fast_reduce_window_typed);
DECL_KERN(hlo_fast_dot_loop);
/* The dimension lists of a dot-like instruction (absent = empty); false when
 * the lhs and rhs lists differ in length (kern_dot.c). */
typedef struct hlo_dot_lists {
  const int64_t *lb, *lc, *rb, *rc;
  int nb, nc; /* batch and contracting counts, the same on both sides */
} hlo_dot_lists;
bool hlo_dot_lists_of(const hlo_instruction *in, hlo_dot_lists *d);

/* XLA's maximum and minimum of floats, the one definition every path uses:
 * a NaN operand is the result (the first one if both are), and +0 ranks
 * above -0.  Macros, so that typed loops keep their type (operands are
 * evaluated more than once).  The vector chunk kernels' FV_MAX/FV_MIN
 * (fast_vec_isa.h) are the same rule on order keys, and tested against it. */
#define HLO_FMAX(a, b)                                                        \
  ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) == (b) ? (signbit(a) ? (b) : (a)) \
   : (a) > (b) ? (a) : (b))
#define HLO_FMIN(a, b)                                                        \
  ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) == (b) ? (signbit(a) ? (a) : (b)) \
   : (a) < (b) ? (a) : (b))

/* Whether x is one of v[0..n). */
static inline bool hlo_ints_has(const int64_t *v, int n, int64_t x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

/* An integer-list attribute of in, or NULL with *n = 0 when it is absent. */
static inline const int64_t *hlo_instr_ints_or_none(const hlo_instruction *in, hlo_attr_key k,
                                                    int *n) {
  const int64_t *v = hlo_instr_ints(in, k, n);
  if (!v) *n = 0;
  return v;
}
DECL_KERN(hlo_fast_conv_loop);
DECL_KERN(hlo_fast_iota);
DECL_KERN(hlo_fast_dynamic_update_slice);
DECL_KERN(hlo_fast_dynamic_slice);
DECL_KERN(hlo_fast_batch_norm_training);
DECL_KERN(hlo_fast_batch_norm_inference);
DECL_KERN(hlo_fast_batch_norm_grad);
/* Whether a fast kernel exists for this instruction (type/attrs). */
bool hlo_fast_elementwise_ok(const hlo_instruction *in);
bool hlo_fast_reduce_typed_ok(const hlo_instruction *in);
bool hlo_fast_dot_loop_ok(const hlo_instruction *in);
bool hlo_fast_conv_loop_ok(const hlo_instruction *in);
bool hlo_fast_bn_ok(const hlo_instruction *in);

/* Recognize a reducer computation that is a single binary op of its two
 * parameters (add, multiply, maximum, minimum, and, or, xor); returns the
 * opcode or HLO_OP_COUNT. */
hlo_opcode hlo_plan_simple_reducer(const hlo_computation *c);

#endif
