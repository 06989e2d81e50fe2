/* fast_plan.c - the loop-program candidate of the kernel table (hlo_fast_plan_loop)
 * and the kernel that runs a fused loop program over the output in chunks,
 * split across threads in fixed blocks, streaming large outputs. */
#include <string.h>

#include "core/bug.h"
#include "exec/fast.h"
#ifdef HLO_FAST_X86
#include <emmintrin.h>
#endif

/* Output elements per thread work item (a multiple of the chunk). */
#define LOOP_BLOCK (HLO_LP_CHUNK * 64)
/* Outputs from this size are written with non-temporal stores: they would
 * not stay in the cache anyway, and streaming them saves reading every
 * output line in before it is overwritten (a fifth of a binary op's
 * memory traffic). */
#define STREAM_MIN_BYTES ((int64_t)8 << 20)

typedef struct loop_plan {
  const hlo_lp *lp;
  const hlo_fv_isa *isa;
  hlo_fast_pool *pool;
} loop_plan;

static int fusion_leaf(const hlo_instruction *root, const hlo_instruction *n) {
  (void)root;
  return n->op == HLO_OP_PARAMETER ? (int)n->param_number : -1;
}

static int operand_leaf(const hlo_instruction *root, const hlo_instruction *n) {
  if (n == root) return -1;
  for (int k = 0; k < root->noperands; k++)
    if (root->operands[k] == n) return k;
  return -1;
}

/* Standalone broadcasts run as loop programs from this many elements, for
 * element types whose moves keep every bit (f16/bf16 chunks go through f32). */
#define BROADCAST_MIN ((int64_t)1 << 16)
static bool broadcast_type(hlo_type t) {
  return t == HLO_F32 || t == HLO_F64 || t == HLO_S32 || t == HLO_U32 || t == HLO_S64 ||
         t == HLO_U64;
}

static bool is_elementwise_op(hlo_opcode op) {
  return hlo_fv_unary_ok(op) || hlo_fv_binary_ok(op) || op == HLO_OP_SELECT ||
         op == HLO_OP_CLAMP || op == HLO_OP_COMPARE || op == HLO_OP_CONVERT ||
         op == HLO_OP_NOT || op == HLO_OP_AND || op == HLO_OP_OR || op == HLO_OP_XOR ||
         op == HLO_OP_SHIFT_LEFT || op == HLO_OP_SHIFT_RIGHT_LOGICAL ||
         op == HLO_OP_SHIFT_RIGHT_ARITHMETIC || op == HLO_OP_POPCNT || op == HLO_OP_CLZ;
}

bool hlo_fast_plan_loop(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  const hlo_lp *lp = NULL;
  if (!hlo_shape_is_array(&in->shape)) return false;
  if (in->op == HLO_OP_FUSION) {
    if (in->ncalled != 1 || !in->called[0]->root || in->called[0]->nparams != in->noperands)
      return false;
    const hlo_instruction *root = in->called[0]->root;
    if (!hlo_shape_is_array(&root->shape) || hlo_fast_elems(&root->shape) !=
        hlo_fast_elems(&in->shape))
      return false;
    lp = hlo_lp_compile(&e->arena, root, &in->shape, fusion_leaf);
  } else if (is_elementwise_op(in->op)) {
    /* single ops only when the chunk kernels pay (big enough arrays) */
    if (hlo_fast_elems(&in->shape) < 64) return false;
    lp = hlo_lp_compile(&e->arena, in, &in->shape, operand_leaf);
  } else if (in->op == HLO_OP_BROADCAST && hlo_fast_elems(&in->shape) >= BROADCAST_MIN &&
             broadcast_type(in->shape.type)) {
    /* a large broadcast: chunks filled or copied from the operand on every
     * thread, streamed out when large */
    lp = hlo_lp_compile(&e->arena, in, &in->shape, operand_leaf);
  }
  if (!lp) return false;
  loop_plan *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return false;
  p->lp = lp;
  p->isa = hlo_fv_of(e);
  p->pool = e->pool;
  s->p = p;
  s->fn = hlo_fast_loop;
  s->kname = in->op == HLO_OP_FUSION     ? "hlo_fast_loop(fusion)"
             : in->op == HLO_OP_BROADCAST ? "hlo_fast_loop(broadcast)"
                                          : "hlo_fast_loop";
  return true;
}

typedef struct loop_job {
  const loop_plan *p;
  hlo_val **args;
  char *out;
  int64_t n;
  int esize;
  bool stream;          /* chunks are staged and streamed to out */
  const hlo_allocator *alloc;
  int failed;
} loop_job;

/* Copy n bytes from an L1-resident staging buffer to dst (16-byte aligned)
 * with non-temporal stores; a tail under 16 bytes is stored normally. */
static void stream_copy(char *dst, const char *src, size_t n) {
  size_t k = 0;
#ifdef HLO_FAST_X86
  for (; k + 64 <= n; k += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(src + k));
    __m128i b = _mm_loadu_si128((const __m128i *)(src + k + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(src + k + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(src + k + 48));
    _mm_stream_si128((__m128i *)(dst + k), a);
    _mm_stream_si128((__m128i *)(dst + k + 16), b);
    _mm_stream_si128((__m128i *)(dst + k + 32), c);
    _mm_stream_si128((__m128i *)(dst + k + 48), d);
  }
  for (; k + 16 <= n; k += 16)
    _mm_stream_si128((__m128i *)(dst + k), _mm_loadu_si128((const __m128i *)(src + k)));
#endif
  memcpy(dst + k, src + k, n - k);
}

static void loop_block(void *ctx, int64_t b) {
  loop_job *j = ctx;
  void *scratch = hlo_lp_scratch_new(j->p->lp, j->alloc);
  char *stage = j->stream ? hlo_malloc(j->alloc, (size_t)HLO_LP_CHUNK * 8 + 64) : NULL;
  if (!scratch || (j->stream && !stage)) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    hlo_free(j->alloc, stage);
    if (scratch) hlo_lp_scratch_free(j->p->lp, j->alloc, scratch);
    return;
  }
  char *st = stage ? (char *)(((uintptr_t)stage + 63) & ~(uintptr_t)63) : NULL;
  int64_t end = (b + 1) * LOOP_BLOCK < j->n ? (b + 1) * LOOP_BLOCK : j->n;
  /* a program without chunk buffers (in-place leaves only) takes the block
   * in one call, unless its chunks are staged for streaming */
  int64_t step = hlo_lp_max_chunk(j->p->lp) < LOOP_BLOCK || st ? HLO_LP_CHUNK : LOOP_BLOCK;
  for (int64_t f = b * LOOP_BLOCK; f < end; f += step) {
    int64_t c = end - f < step ? end - f : step;
    char *o = j->out + f * j->esize;
    if (st) {
      hlo_lp_eval(j->p->lp, j->p->isa, j->args, scratch, f, c, st);
      stream_copy(o, st, (size_t)(c * j->esize));
    } else {
      hlo_lp_eval(j->p->lp, j->p->isa, j->args, scratch, f, c, o);
    }
  }
#ifdef HLO_FAST_X86
  if (st) _mm_sfence(); /* the streamed stores are visible before the join */
#endif
  hlo_free(j->alloc, stage);
  hlo_lp_scratch_free(j->p->lp, j->alloc, scratch);
}

DECL_KERN(hlo_fast_loop) {
  const loop_plan *p = s->p;
  for (int k = 0; k < s->nargs; k++)
    HLO_ASSERT(!(args[k]->ntuple)); /* planned for these shapes */
  hlo_val *o = hlo_run_new_raw(r, &s->in->shape);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  loop_job j = {p, args, o->data, o->nelems, hlo_type_bytes(o->shape->type), false, r->alloc, 0};
  j.stream = (int64_t)o->nbytes >= STREAM_MIN_BYTES && ((uintptr_t)o->data & 15) == 0;
  int64_t nb = (o->nelems + LOOP_BLOCK - 1) / LOOP_BLOCK;
  bool par = o->nelems >= 2 * LOOP_BLOCK &&
             o->nelems >= HLO_FAST_PAR_MIN_COST / hlo_lp_cost(p->lp);
  hlo_fast_parallel(par ? p->pool : NULL, nb, loop_block, &j);
  if (j.failed) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "out of memory");
  }
  *out = o;
  return HLO_OK;
}

