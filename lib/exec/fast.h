/* fast.h - internals of the fast path (issue 9) shared by the lib/exec/fast_*
 * files: the per-ISA vector chunk kernels (runtime dispatch), the fused loop
 * program (elementwise chains with broadcast/reshape/slice/transpose run
 * chunk by chunk without intermediates), reductions, and BLAS dot. */
#ifndef HLO_EXEC_FAST_H
#define HLO_EXEC_FAST_H

#include "exec/exec.h"

/* Element count of an array shape, -1 if it overflows. */
static inline int64_t hlo_fast_elems(const hlo_shape *s) {
  int64_t n;
  return hlo_shape_elements(s, &n) ? n : -1;
}

/* ---- instruction sets ------------------------------------------------------
 * HLO_FAST_X86: the kernels may use x86-64 intrinsics (SSE2 is the baseline);
 * a `make ISA=generic` build defines HLO_ISA_GENERIC and compiles portable C
 * only.  HLO_FAST_WIDE: the AVX2 and AVX-512 variants are compiled too (GCC;
 * clang, used for the libFuzzer build, has no `#pragma GCC target` for
 * SLEEF's declarations, so it builds the baseline alone). */
#if defined(__x86_64__) && !defined(HLO_ISA_GENERIC)
#define HLO_FAST_X86 1
#if !defined(__clang__)
#define HLO_FAST_WIDE 1
#endif
#endif

/* ---- vector chunk kernels ---------------------------------------------------
 * One table per instruction set (AVX-512, AVX2, SSE2 baseline, or portable C
 * in a generic build); hlo_fv_table() gives the table of a level, and an
 * hlo_exec uses the one of hlo_isa_effective(opts.isa).  Each un/bin function
 * returns false when it has no kernel for op (nothing written).  Inputs and
 * output may alias exactly (z == x). */
typedef struct hlo_fv_isa {
  const char *name;
  hlo_isa level;
  bool (*un32)(hlo_opcode op, int64_t n, const float *x, float *z);
  bool (*bin32)(hlo_opcode op, int64_t n, const float *x, const float *y, float *z);
  bool (*un64)(hlo_opcode op, int64_t n, const double *x, double *z);
  bool (*bin64)(hlo_opcode op, int64_t n, const double *x, const double *y, double *z);
  double (*sum32)(int64_t n, const float *x);   /* in double, 8 accumulators */
  double (*sum64)(int64_t n, const double *x);  /* pairwise, 8-accumulator leaves */
  void (*acc32)(int64_t n, const float *x, double *acc);
  void (*acc64)(int64_t n, const double *x, double *acc);
  /* max/min of x[0..n) and init, as the reference's maximum/minimum (NaN
   * propagates, +0 above -0) */
  float (*max32)(int64_t n, const float *x, float init);
  float (*min32)(int64_t n, const float *x, float init);
  double (*max64)(int64_t n, const double *x, double init);
  double (*min64)(int64_t n, const double *x, double init);
  void (*fill32)(int64_t n, float v, float *z);
  void (*fill64)(int64_t n, double v, double *z);
  /* f16/bf16 (t) <-> f32, exactly as hlo_f16_to_f32 etc.; round16 rounds
   * f32 values once to t in place */
  void (*widen16)(hlo_type t, int64_t n, const uint16_t *x, float *z);
  void (*narrow16)(hlo_type t, int64_t n, const float *x, uint16_t *z);
  void (*round16)(hlo_type t, int64_t n, float *z);
  /* convert n elements between loop-program chunk types (pred, 8..64-bit
   * ints, f32/f64; f16/bf16 as f32 values: the caller rounds a narrow
   * result with round16), as hlo_ref_convert */
  void (*cvt)(hlo_type from, hlo_type to, int64_t n, const void *x, void *z);
} hlo_fv_isa;

/* The table compiled for level (HLO_ISA_BASELINE .. HLO_ISA_MAX), NULL when
 * this build has none; it says nothing of the CPU (hlo_isa_available does). */
const hlo_fv_isa *hlo_fv_table(hlo_isa level);
/* d[c * ds + r] = s[r * ss + c] for r < nr, c < nc (f32), in 16x16 blocks
 * of level's vector width (fast_tr16.c); the same bytes at every level. */
typedef void (*hlo_fast_tr16_fn)(float *d, int64_t ds, const float *s, int64_t ss, int64_t nr,
                                 int64_t nc);
hlo_fast_tr16_fn hlo_fast_tr16(hlo_isa level);
/* The table the kernels of e use (its effective level). */
static inline const hlo_fv_isa *hlo_fv_of(const hlo_exec *e) { return e->isa; }
/* The table of the level the environment selects (HLO_ISA, else the best
 * available): what a test program exercises on each run. */
const hlo_fv_isa *hlo_fv_from_env(void);
/* Whether the chunk kernels cover op for float element types. */
bool hlo_fv_unary_ok(hlo_opcode op);
bool hlo_fv_binary_ok(hlo_opcode op);

/* ---- fast candidates -----------------------------------------------------------
 * The kernel table (kernels.c) offers a step to these in the order its row
 * lists them.  Each returns true after setting s->fn, s->kname and s->p
 * (arena storage of e), or false, leaving s unchanged, when it does not
 * cover the instruction. */
bool hlo_fast_plan_loop(hlo_exec *e, plan_step *s);
bool hlo_fast_plan_reduce(hlo_exec *e, plan_step *s);
bool hlo_fast_plan_dot(hlo_exec *e, plan_step *s);
/* OpenBLAS's thread count (process-wide): hlo_exec_new sets it to 1, since
 * gemms run on the exec's own pool (hlo_fast_gemm). */
void hlo_fast_blas_threads(int n);

/* ---- gemm (fast_gemm.c) -------------------------------------------------------
 * For b < nbatch: C_b[M, N] = alpha * sum over k < nsum of op(A_bk) op(B_bk)
 * (+ C_b when acc), row-major, op = transpose when ta/tb; A_bk = A + b * sa +
 * k * ua elements (B, C likewise; nbatch, nsum 0 mean 1).  Sizes, leading
 * dimensions and strides fit an int (the caller checks).  Tiles of whole
 * output blocks run on pool (NULL: the calling thread); with split_sum, a
 * long sum into a small output may also be split into runs of terms added
 * in order at the end (scratch from alloc).  HLO_ERR only when that
 * scratch could not be allocated (nothing computed). */
enum { HLO_GEMM_S, HLO_GEMM_D, HLO_GEMM_C, HLO_GEMM_Z };
typedef struct hlo_gemm {
  int kind;
  bool ta, tb, acc;
  int64_t M, N, K;
  double alpha;
  const void *A, *B;
  void *C;
  int64_t lda, ldb, ldc;
  int64_t nbatch, sa, sb, sc;
  int64_t nsum, ua, ub;
  bool split_sum;
  const hlo_allocator *alloc;
} hlo_gemm;
int hlo_fast_gemm(hlo_fast_pool *pool, const hlo_gemm *g);
bool hlo_fast_plan_conv(hlo_exec *e, plan_step *s);
/* grouped/depthwise convolutions (feature or batch groups), direct kernel */
bool hlo_fast_plan_gconv(hlo_exec *e, plan_step *s);
/* fusion of an elementwise epilogue over a dot (dot tiles + loop program) */
bool hlo_fast_plan_dotfuse(hlo_exec *e, plan_step *s);
bool hlo_fast_plan_gather(hlo_exec *e, plan_step *s);
bool hlo_fast_plan_sort(hlo_exec *e, plan_step *s);
/* True if integer-list attribute k of in is exactly want[0..n) (absent = empty). */
bool hlo_fast_ints_are(const hlo_instruction *in, hlo_attr_key k, const int64_t *want, int n);
bool hlo_fast_plan_transpose(hlo_exec *e, plan_step *s);
bool hlo_fast_plan_scatter(hlo_exec *e, plan_step *s);

/* ---- row tiles of a dot (dot epilogue fusions) --------------------------------
 * hlo_fast_dot_rows_plan: the BLAS plan of an f32/f64 dot instruction viewed
 * as [B, M, K] x [B, K, N] (arena storage of e), or NULL when the dot is not
 * on the BLAS path.  _begin packs operands that are not read in place (the
 * caller frees with _end; HLO_ERR when out of memory).  hlo_fast_dot_rows
 * writes rows [m0, m1) of batch element `batch` to C (row pitch N), the same
 * gemm call the plain dot kernel makes for that tile. */
typedef struct hlo_dot_rows {
  const void *A, *B;
  void *pa, *pb;
} hlo_dot_rows;
const void *hlo_fast_dot_rows_plan(hlo_exec *e, const hlo_instruction *dot, int64_t *B,
                                   int64_t *M, int64_t *N);
int hlo_fast_dot_rows_begin(const void *plan, const hlo_allocator *alloc, const hlo_val *a,
                            const hlo_val *b, hlo_dot_rows *t);
void hlo_fast_dot_rows(hlo_fast_pool *pool, const void *plan, const hlo_dot_rows *t,
                       int64_t batch, int64_t m0, int64_t m1, void *C);
void hlo_fast_dot_rows_end(const hlo_allocator *alloc, hlo_dot_rows *t);
/* Rows per tile, the same for the plain dot kernel and the fused one. */
int64_t hlo_fast_dot_tile_rows(const void *plan);

/* ---- fused loop program -----------------------------------------------------
 * Compiled from an expression rooted at an instruction; its leaves are the
 * kernel arguments (fusion parameters, or the operands of a standalone op)
 * and constants.  Evaluates output elements [f0, f0 + n) (n <= HLO_LP_CHUNK)
 * into dst (the element type of the root). */
#define HLO_LP_CHUNK 512
typedef struct hlo_lp hlo_lp;
/* Compile the expression of root.  leaf_arg(node) gives the argument index
 * of a leaf node or -1 for an inner node.  NULL when something is not
 * covered (caller falls back).  Storage from arena A. */
hlo_lp *hlo_lp_compile(hlo_arena *A, const hlo_instruction *root, const hlo_shape *space,
                       int (*leaf_arg)(const hlo_instruction *root, const hlo_instruction *n));
/* Scratch for one evaluating thread; free with hlo_lp_scratch_free. */
void *hlo_lp_scratch_new(const hlo_lp *p, const hlo_allocator *alloc);
void hlo_lp_scratch_free(const hlo_lp *p, const hlo_allocator *alloc, void *scratch);
/* Estimated cost of one output element in units of about one simple
 * vector op per element (a leaf read or an add is 1, a transcendental 8);
 * callers split work across threads only when the total is worth a thread
 * start (HLO_FAST_PAR_MIN_COST). */
int64_t hlo_lp_cost(const hlo_lp *p);
#define HLO_FAST_PAR_MIN_COST ((int64_t)8 << 20)
/* Largest n hlo_lp_eval accepts: HLO_LP_CHUNK, or any n when the program
 * needs no chunk buffers (every leaf read in place; returns INT64_MAX). */
int64_t hlo_lp_max_chunk(const hlo_lp *p);
void hlo_lp_eval(const hlo_lp *p, const hlo_fv_isa *isa, hlo_val *const *args, void *scratch,
                 int64_t f0, int64_t n, void *dst);
hlo_type hlo_lp_type(const hlo_lp *p);

/* ---- threads ------------------------------------------------------------------
 * A pool of nthreads threads (0 = all online cores), the caller included;
 * NULL when that is one thread (or on failure: calls then run serially).
 * Workers start at the first parallel call; hlo_fast_pool_free joins them. */
hlo_fast_pool *hlo_fast_pool_new(int nthreads, const hlo_allocator *alloc);
void hlo_fast_pool_free(hlo_fast_pool *p);
/* Threads of a call on p (1 for NULL). */
int hlo_fast_pool_threads(const hlo_fast_pool *p);
/* Threads to use for a request (0 = all online cores). */
int hlo_fast_threads(int nthreads);
/* Run fn(ctx, i) for i in [0, n) on p's threads (serially when p is NULL or
 * for a call made from inside another call); work items are fixed by the
 * caller so results never depend on the thread count.  Returns HLO_ERR only
 * if threads could not be started (then every item ran anyway). */
int hlo_fast_parallel(hlo_fast_pool *p, int64_t n, void (*fn)(void *ctx, int64_t i), void *ctx);

/* Kernels. */
DECL_KERN(hlo_fast_loop);
DECL_KERN(hlo_fast_reduce);
DECL_KERN(hlo_fast_dot);
DECL_KERN(hlo_fast_conv);
DECL_KERN(hlo_fast_gconv);
DECL_KERN(hlo_fast_dotfuse);
DECL_KERN(hlo_fast_sort);
DECL_KERN(hlo_fast_gather_rows);
DECL_KERN(hlo_fast_transpose);
DECL_KERN(hlo_fast_scatter);

#endif
