/* hlo_exec.h - the CPU interpreter: compile a parsed module into an
 * execution plan once, then run it on input values any number of times.
 *
 * Values are dense, row-major in logical dimension order (the same storage
 * as hlo_literal: hlo_type_bytes() per element, pred one byte 0/1, 4-bit and
 * f8 types one element per byte, complex as (re, im) pairs).  Layouts only
 * matter to `bitcast`, which reinterprets the physical order. */
#ifndef HLO_EXEC_H
#define HLO_EXEC_H

#include "hlo/hlo_ir.h"

/* Highest rank the interpreter handles; larger shapes are an error at plan
 * time. */
#define HLO_EXEC_MAX_RANK 16

/* A runtime value: an array (data != NULL or nbytes == 0) or a tuple.
 * Reference counted; shape points at a shape that outlives the value (the
 * module's or the caller's).  Create with hlo_val_new, drop with
 * hlo_val_release. */
typedef struct hlo_val hlo_val;
struct hlo_val {
  int refs;
  const hlo_shape *shape;
  int64_t nelems;          /* arrays: element count */
  size_t nbytes;           /* arrays: nelems * hlo_type_bytes(type) */
  void *data;              /* arrays: owned storage (may be NULL if 0 bytes) */
  int ntuple;              /* tuples: element count */
  hlo_val **tuple;         /* tuples: owned references */
  size_t cap;              /* bytes allocated for data (buffer reuse) */
};

typedef struct hlo_exec_options {
  bool reference;          /* run every op through the scalar reference code */
  uint64_t rng_seed;       /* seed of `rng` (rng-bit-generator takes its state) */
  int64_t max_while_iters; /* 0 = unlimited */
  int threads;             /* fast path worker threads; 0 = all online cores */
  bool profile;            /* time every instruction (see hlo_exec_profile) */
} hlo_exec_options;

/* Per-instruction profile, accumulated over runs when opts.profile is set.
 * seconds is the time inside the instruction's kernel (for call, while,
 * conditional and fusions run instruction by instruction it includes the
 * instructions of the called computations, which have entries of their
 * own); bytes = operand + result bytes, flops = floating-point operations
 * (dot/convolution 2 per multiply-add, elementwise 1 per element and op,
 * reduce 1 per input element); both summed over calls. */
typedef struct hlo_exec_prof {
  const hlo_instruction *in;
  const char *kernel;      /* name of the chosen kernel */
  int64_t calls;
  double seconds, bytes, flops;
} hlo_exec_prof;

typedef struct hlo_exec hlo_exec;

/* Compile m (already parsed and linked; must stay alive and unchanged while
 * the plan lives) into an execution plan.  Returns NULL with diagnostics in d
 * when something in the module cannot run (unsupported op, rank too large,
 * custom-call target unknown, ...): the message names the instruction.
 * opts may be NULL (fast path, seed 0).  alloc may be NULL. */
HLO_API hlo_exec *hlo_exec_new(const hlo_module *m, const hlo_exec_options *opts,
                               const hlo_allocator *alloc, hlo_diags *d);
HLO_API void hlo_exec_free(hlo_exec *e);

/* Run the entry computation on nargs arguments (borrowed; their shapes must
 * be compatible with the entry parameters, which is checked).  On success
 * *result holds a new reference the caller releases.  Runtime errors (e.g.
 * while iteration limit) go to the diags given at creation. */
HLO_API int hlo_exec_run(hlo_exec *e, hlo_val **args, int nargs, hlo_val **result);

/* The profile entries (one per planned instruction, in plan order) and their
 * count in *n; NULL with *n = 0 unless opts.profile.  Owned by e. */
HLO_API const hlo_exec_prof *hlo_exec_profile(const hlo_exec *e, int *n);
/* Zero the accumulated profile (e.g. after a warm-up run). */
HLO_API void hlo_exec_profile_reset(hlo_exec *e);

/* Number of entry parameters and the shape of parameter i. */
HLO_API int hlo_exec_nparams(const hlo_exec *e);
HLO_API const hlo_shape *hlo_exec_param_shape(const hlo_exec *e, int i);

/* A new value of the given shape (all leaves zero-filled), refs = 1.
 * NULL on allocation failure or size overflow. */
HLO_API hlo_val *hlo_val_new(const hlo_allocator *alloc, const hlo_shape *shape);
HLO_API hlo_val *hlo_val_ref(hlo_val *v);
HLO_API void hlo_val_release(const hlo_allocator *alloc, hlo_val *v);

/* Fill every leaf of v with deterministic pseudo-random data from seed:
 * floats uniform in [-1, 1) (complex both parts), ints over [-8, 8) clipped
 * to the type range, pred 0/1. */
HLO_API void hlo_val_randomize(hlo_val *v, uint64_t seed);

/* Generic element access used by tools: element idx of an array value as a
 * double (real part for complex) and back with the interpreter's rounding. */
HLO_API double hlo_val_get_f64(const hlo_val *v, int64_t idx);

#endif
