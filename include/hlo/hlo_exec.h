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
  bool borrowed;           /* data belongs to the caller (hlo_val_borrow):
                              never written, reused or freed */
  int64_t *dims;           /* arrays: actual size of each dimension when a
                              dynamic one ('<=N') is below its bound, else
                              NULL (the shape's sizes).  Such a value given
                              to or returned by hlo_exec_run holds the
                              actual sizes' elements densely (nelems, nbytes
                              count them); see hlo_val_new_dynamic */
};

/* Instruction-set levels of the dispatched fast kernels, lowest first.
 * baseline is x86-64's SSE2 (or the portable C of a `make ISA=generic`
 * build); avx2 needs AVX2 and FMA; avx512 needs AVX-512 F and DQ. */
typedef enum hlo_isa {
  HLO_ISA_AUTO = 0,        /* HLO_ISA from the environment, else the best the CPU has */
  HLO_ISA_BASELINE,
  HLO_ISA_AVX2,
  HLO_ISA_AVX512,
} hlo_isa;
#define HLO_ISA_MAX HLO_ISA_AVX512

/* "baseline", "avx2", "avx512" ("auto" for HLO_ISA_AUTO). */
HLO_API const char *hlo_isa_name(hlo_isa level);
/* Parse a level name as above; HLO_ERR if s is not one of them. */
HLO_API int hlo_isa_parse(const char *s, hlo_isa *level);
/* Whether level can run here: compiled into this build and supported by the
 * running CPU.  When it cannot and why_not is given, *why_not points at a
 * static sentence saying why. */
HLO_API bool hlo_isa_available(hlo_isa level, const char **why_not);
/* The level the kernels use under cap: the highest available level not above
 * cap.  HLO_ISA_AUTO takes the cap from the environment variable HLO_ISA
 * (unset or empty: no cap); HLO_ERR with a message in *why when that
 * variable holds no level name. */
HLO_API int hlo_isa_effective(hlo_isa cap, hlo_isa *level, const char **why);

typedef struct hlo_comm hlo_comm; /* see "devices" below */

typedef struct hlo_exec_options {
  bool reference;          /* run every op through the scalar reference code */
  hlo_isa isa;             /* highest ISA level of the fast kernels (see hlo_isa) */
  uint64_t rng_seed;       /* seed of `rng` (rng-bit-generator takes its state) */
  int64_t max_while_iters; /* 0 = unlimited */
  int threads;             /* fast path worker threads; 0 = all online cores; N > 0
                              also sets OpenBLAS's thread count (process-wide) */
  bool profile;            /* time every instruction (see hlo_exec_profile) */
  /* Run the reference kernel beside every fast kernel, on the same operands,
   * and fail naming the instruction when their results differ by more than
   * the op's tolerance in ulps (docs/fast.md); slow, for tests. */
  bool check_fast;
  const hlo_src *src;      /* the module's source text, if known: errors about
                              an instruction (plan and run time) then carry its
                              position; NULL = messages without position.  Must
                              outlive the plan. */
  /* Custom-call targets the caller defines (they take precedence over the
   * built-in table, docs/custom_calls.md); the array must outlive the plan. */
  const struct hlo_ccall_user *ccalls;
  int nccalls;
  int64_t partition_id;    /* this partition (SPMDFullToShardShape) when comm
                              is NULL; default 0.  With a comm: device's */
  hlo_comm *comm;          /* the device group this plan runs in (NULL: one
                              device, replica 0 of 1, partition 0 of 1) */
  int device;              /* this plan's logical device in comm:
                              replica * partitions + partition */
  bool allow_mixed_precision; /* verify with XLA's allow_mixed_precision and
                                 run float operands of another precision
                                 converted as XLA's evaluator does */
} hlo_exec_options;

/* A user definition of a custom-call target: run `module`'s entry
 * computation in its place (the custom call's operands are its parameters,
 * shapes checked at plan time), or the stub `identity` (operand 0, which
 * must have the result's shape) or `zeros` (a zero result). */
typedef enum hlo_ccall_kind { HLO_CCALL_MODULE, HLO_CCALL_IDENTITY, HLO_CCALL_ZEROS } hlo_ccall_kind;
typedef struct hlo_ccall_user {
  const char *target;
  hlo_ccall_kind kind;
  const hlo_module *module;  /* HLO_CCALL_MODULE: outlives the plan */
  const hlo_src *src;        /* its source text (positions of its errors), or NULL */
} hlo_ccall_user;

/* The built-in custom-call targets the interpreter runs: entry i (NULL past
 * the last) gives the target, its meaning in one line and the source of
 * that meaning. */
typedef struct hlo_ccall_info {
  const char *target, *meaning, *source;
} hlo_ccall_info;
HLO_API const hlo_ccall_info *hlo_ccall_builtin(int i);

/* ---- memory --------------------------------------------------------------
 * An allocator for plans and values with a byte limit and a cache of large
 * blocks (2 MB-aligned, huge-page advised mappings kept when freed, so later
 * layers and repeated runs reuse their pages instead of faulting new ones
 * in).  Pass hlo_mempool_allocator(p) to hlo_exec_new and hlo_val_new: an
 * allocation past the limit fails (the library reports "out of memory").
 * limit 0: no limit, and the cache keeps at most half the RAM.  Thread-safe.
 * hlo_mempool_free may be called while values made from the pool are still
 * alive: the pool goes when the last of them is released. */
typedef struct hlo_mempool hlo_mempool;
typedef struct hlo_mempool_stats {
  uint64_t limit;   /* 0 = none */
  uint64_t live;    /* bytes allocated now */
  uint64_t peak;    /* most bytes allocated at once */
  uint64_t refused; /* size of the first request refused for the limit, 0 if none */
} hlo_mempool_stats;
HLO_API hlo_mempool *hlo_mempool_new(uint64_t limit);
HLO_API void hlo_mempool_free(hlo_mempool *p);
HLO_API const hlo_allocator *hlo_mempool_allocator(hlo_mempool *p);
HLO_API hlo_mempool_stats hlo_mempool_stats_of(const hlo_mempool *p);
/* Start the peak again from the bytes live now (returned), e.g. to measure
 * one run. */
HLO_API uint64_t hlo_mempool_reset_peak(hlo_mempool *p);
/* Half the physical memory: the limit hlo-run uses by default. */
HLO_API uint64_t hlo_mempool_default_limit(void);

/* Per-instruction profile, accumulated over runs when opts.profile is set.
 * seconds is the time inside the instruction's kernel (for call, while,
 * conditional and fusions run instruction by instruction it includes the
 * instructions of the called computations, which have entries of their
 * own); bytes and flops are the bytes accessed and floating-point
 * operations of one call as hlo_cost.h counts them (XLA's HloCostAnalysis:
 * what hlo-stats reports), summed over calls. */
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

/* The ISA level e's fast kernels use (hlo_isa_effective of opts.isa). */
HLO_API hlo_isa hlo_exec_isa(const hlo_exec *e);

/* Number of entry parameters and the shape of parameter i. */
HLO_API int hlo_exec_nparams(const hlo_exec *e);
HLO_API const hlo_shape *hlo_exec_param_shape(const hlo_exec *e, int i);

/* A new value of the given shape (all leaves zero-filled), refs = 1.
 * NULL on allocation failure or size overflow. */
HLO_API hlo_val *hlo_val_new(const hlo_allocator *alloc, const hlo_shape *shape);
/* An array of shape whose dimensions have the actual sizes dims[0..rank):
 * each at most its bound, and below it only where the shape marks the
 * dimension dynamic ('<=N').  Zero-filled, holding the actual sizes'
 * elements densely (row-major); dims is NULL in the value when every size
 * equals its bound.  NULL on a bad size, allocation failure or overflow. */
HLO_API hlo_val *hlo_val_new_dynamic(const hlo_allocator *alloc, const hlo_shape *shape,
                                     const int64_t *dims);
/* A value over caller-owned storage (zero-copy input): an array of the
 * given shape whose `data` holds its elements in the layout described at the
 * top of this file.  The library never writes, reuses or frees data; the
 * caller keeps it alive and unchanged while the value is in use (during
 * hlo_exec_run; a result may hold a reference to an input, so a result that
 * shares the value also shares data).  hlo_val_release frees only the value
 * itself.  NULL for a tuple/token shape, a size overflow or allocation
 * failure. */
HLO_API hlo_val *hlo_val_borrow(const hlo_allocator *alloc, const hlo_shape *shape, void *data);
HLO_API hlo_val *hlo_val_ref(hlo_val *v);
HLO_API void hlo_val_release(const hlo_allocator *alloc, hlo_val *v);

/* Fill every leaf of v with deterministic pseudo-random data from seed:
 * floats uniform in [-1, 1) (complex both parts), ints over [-8, 8) clipped
 * to the type range, pred 0/1. */
HLO_API void hlo_val_randomize(hlo_val *v, uint64_t seed);

/* Set every element of every leaf of v to the integer x, converted to the
 * leaf's type with the interpreter's rounding (pred: x != 0). */
HLO_API void hlo_val_fill_int(hlo_val *v, int64_t x);

/* Generic element access used by tools: element idx of an array value as a
 * double (real part for complex) and back with the interpreter's rounding. */
HLO_API double hlo_val_get_f64(const hlo_val *v, int64_t idx);

/* ---- devices -----------------------------------------------------------
 * A module written for several devices (replicated and SPMD-partitioned
 * modules) runs as replicas x partitions executions of its entry
 * computation, one hlo_exec per device, whose collectives meet in a shared
 * communicator (hlo_comm).  Logical device k is replica k / partitions,
 * partition k % partitions; its device id (what a device assignment names,
 * XLA's default being k itself) only labels it.  Collectives follow XLA's
 * rules (docs/devices.md); a reduction combines the contributions in the
 * order of the devices of its group, so results are the same bits on every
 * run. */
typedef struct hlo_comm_options {
  int replicas, partitions;  /* >= 1 each */
  const int *assignment;     /* replicas * partitions device ids, by logical
                                device; NULL = the identity */
  double timeout_seconds;    /* how long a collective waits for the devices
                                of its group; <= 0: 60 s */
} hlo_comm_options;

/* A communicator of in-process devices (threads), or NULL with a diagnostic
 * (bad counts, an assignment that is not a permutation, out of memory). */
HLO_API hlo_comm *hlo_comm_new(const hlo_comm_options *o, const hlo_allocator *alloc,
                               hlo_diags *d);
HLO_API void hlo_comm_free(hlo_comm *c);
/* A communicator across the processes of an MPI job (mpirun): process
 * (rank) r runs the logical devices r*K .. r*K+K-1, K = devices_per_rank,
 * in threads; the job must have replicas*partitions/K processes.  Calls
 * MPI_Init_thread when MPI is not initialised yet (hlo_comm_free then
 * finalises it).  NULL with a diagnostic when this libhlo was built without
 * MPI ("MPI support was not built") or the counts do not fit the job. */
HLO_API hlo_comm *hlo_comm_new_mpi(const hlo_comm_options *o, int devices_per_rank,
                                   const hlo_allocator *alloc, hlo_diags *d);
/* The logical devices this process runs: *first .. *first + *count - 1
 * (every device for an in-process communicator), and its MPI rank (0
 * without MPI). */
HLO_API void hlo_comm_local(const hlo_comm *c, int *first, int *count, int *rank);
/* End the whole MPI job with the exit status code (after a failure, so
 * that no process waits for the failed one); returns without MPI. */
HLO_API void hlo_comm_abort_job(hlo_comm *c, int code);
HLO_API int hlo_comm_replicas(const hlo_comm *c);
HLO_API int hlo_comm_partitions(const hlo_comm *c);
/* The device id of logical device k. */
HLO_API int hlo_comm_device_id(const hlo_comm *c, int k);
/* Stop every collective waiting in c (they fail at once): a device that
 * failed calls this so that the others do not wait for it. */
HLO_API void hlo_comm_abort(hlo_comm *c);
/* Whether hlo_comm_abort was called (since creation). */
HLO_API bool hlo_comm_aborted(const hlo_comm *c);

/* The device counts m was written for: the header's replica_count and
 * num_partitions; where the header does not say, the smallest counts that
 * its replica groups, source-target pairs and channel modes need (*inferred
 * then true), else 1.  HLO_ERR with a diagnostic when a collective's group
 * attributes are invalid (e.g. use_global_device_ids without channel_id). */
HLO_API int hlo_module_device_counts(const hlo_module *m, int *replicas, int *partitions,
                                     bool *inferred, hlo_diags *d);

/* A device group: one plan per device of c, made with opts (its comm,
 * device and threads fields are set per device: the threads of opts are
 * shared among the devices, at least one each).  Each device has its own
 * diagnostics; hlo_devices_run copies the errors that matter into d. */
typedef struct hlo_devices hlo_devices;
HLO_API hlo_devices *hlo_devices_new(const hlo_module *m, const hlo_exec_options *opts,
                                     hlo_comm *c, const hlo_allocator *alloc, hlo_diags *d);
HLO_API void hlo_devices_free(hlo_devices *g);
HLO_API int hlo_devices_count(const hlo_devices *g);
/* Device k's plan (for its parameter shapes and profile). */
HLO_API hlo_exec *hlo_devices_exec(hlo_devices *g, int k);
/* Run every device of this process in its own thread (the caller runs the
 * first; the others' threads start at the first run, wait between runs and
 * end in hlo_devices_free; runs of one group must not overlap): args[k] holds
 * device k's nargs inputs (borrowed; only this process's devices are read),
 * results[k] receives its result.  Over MPI the results of every device are
 * gathered to rank 0 (other ranks keep only their own), and every process
 * fails when one does.  On failure every result is NULL and d holds the
 * error of the device that failed first here (a collective that timed out
 * names the devices waiting in it). */
HLO_API int hlo_devices_run(hlo_devices *g, hlo_val ***args, int nargs, hlo_val **results);
/* The same without gathering to rank 0: results[k] only for the devices of
 * this process (e.g. the timed runs of a benchmark). */
HLO_API int hlo_devices_run_local(hlo_devices *g, hlo_val ***args, int nargs, hlo_val **results);

#endif
