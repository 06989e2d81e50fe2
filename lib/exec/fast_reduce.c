/* fast_reduce.c - reductions on the fast path: add, maximum and minimum of
 * f32/f64 over a contiguous group of dimensions, viewed as [outer, R, inner]
 * (row: inner = 1; column: outer = 1; full: both 1).  The input is read in
 * place or produced chunk by chunk by a fused loop program (input fusion:
 * a reduce at the root of a fusion never materializes its operand).
 *
 * Summation order (docs/fast.md): f32 data is summed in double (8
 * accumulators per chunk, chunk partials added in order) and rounded once;
 * f64 data is summed pairwise (8-accumulator leaves of <= 128 elements,
 * chunk partials merged pairwise by a binary counter).  Work is split at
 * fixed boundaries, so results do not depend on the thread count. */
#include <math.h>
#include <string.h>

#include "core/bug.h"
#include "exec/fast.h"

#define RBLOCK ((int64_t)HLO_LP_CHUNK * 128) /* R elements per work item (full reduce) */

typedef struct red_plan {
  hlo_opcode op;            /* add, maximum, minimum */
  hlo_type t;
  const hlo_lp *lp;         /* producer program, NULL: read argument src_arg */
  int src_arg;
  int init_arg;             /* argument of the init value, or -1: init_data */
  const void *init_data;
  int64_t O, R, In; /* outer, reduced, inner (kept) extents */
  const hlo_fv_isa *isa;
  hlo_fast_pool *pool;
} red_plan;

static int fusion_leaf(const hlo_instruction *root, const hlo_instruction *n) {
  (void)root;
  return n->op == HLO_OP_PARAMETER ? (int)n->param_number : -1;
}

/* The reduce dims must be one consecutive run of operand dims. */
static bool split_dims(const hlo_instruction *red, red_plan *p) {
  const hlo_shape *is = &red->operands[0]->shape;
  int nd = 0;
  const int64_t *dm = hlo_instr_ints(red, HLO_A_DIMENSIONS, &nd);
  if (!dm && nd) return false;
  bool in[MAXR] = {false};
  int lo = is->rank, hi = -1;
  for (int i = 0; i < nd; i++) {
    if (dm[i] < 0 || dm[i] >= is->rank || in[dm[i]]) return false;
    in[dm[i]] = true;
    if (dm[i] < lo) lo = (int)dm[i];
    if (dm[i] > hi) hi = (int)dm[i];
  }
  p->O = p->R = p->In = 1;
  if (nd == 0) lo = hi = -1;
  for (int d = 0; d < is->rank; d++) {
    if (nd && d >= lo && d <= hi) {
      if (!in[d]) return false;
      p->R *= is->dims[d];
    } else if (nd && d > hi) {
      p->In *= is->dims[d];
    } else {
      p->O *= is->dims[d];
    }
  }
  return true;
}

bool hlo_fast_plan_reduce(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in, *red = in;
  bool fused = in->op == HLO_OP_FUSION;
  if (fused) {
    if (in->ncalled != 1 || !in->called[0]->root || in->called[0]->nparams != in->noperands)
      return false;
    red = in->called[0]->root;
  }
  if (red->op != HLO_OP_REDUCE || red->noperands != 2 || red->ncalled != 1) return false;
  hlo_type t = red->shape.type;
  if ((t != HLO_F32 && t != HLO_F64) || !hlo_shape_is_array(&red->shape)) return false;
  const hlo_instruction *src = red->operands[0], *init = red->operands[1];
  if (src->shape.type != t || init->shape.type != t || init->shape.rank != 0) return false;
  hlo_opcode op = hlo_plan_simple_reducer(red->called[0]);
  if (op != HLO_OP_ADD && op != HLO_OP_MAXIMUM && op != HLO_OP_MINIMUM) return false;
  const hlo_computation *rc = red->called[0];
  if (rc->params[0]->shape.type != t || rc->params[1]->shape.type != t) return false;
  red_plan *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return false;
  memset(p, 0, sizeof *p);
  p->op = op;
  p->t = t;
  p->isa = hlo_fv_of(e);
  p->pool = e->pool;
  if (!split_dims(red, p)) return false;
  p->src_arg = p->init_arg = -1;
  if (!fused) {
    p->src_arg = 0;
    p->init_arg = 1;
  } else {
    if (src->op == HLO_OP_PARAMETER) {
      p->src_arg = (int)src->param_number;
    } else {
      hlo_shape sp = src->shape;
      p->lp = hlo_lp_compile(&e->arena, src, &sp, fusion_leaf);
      if (!p->lp) return false;
    }
    if (init->op == HLO_OP_PARAMETER) {
      p->init_arg = (int)init->param_number;
    } else if (init->op == HLO_OP_CONSTANT && init->literal && init->literal->data) {
      p->init_data = init->literal->data;
    } else {
      return false;
    }
  }
  s->p = p;
  s->fn = hlo_fast_reduce;
  s->kname = fused ? "hlo_fast_reduce(fusion)" : "hlo_fast_reduce";
  return true;
}

typedef struct red_job {
  const red_plan *p;
  hlo_val **args;
  const hlo_allocator *alloc;
  double init;
  int64_t nblk;             /* R blocks per outer row (I == 1) */
  double *partial;          /* [O][nblk] (I == 1) */
  char *out;                /* (I > 1): result written directly */
  int64_t icols;            /* inner columns per work item (I > 1) */
  int failed;
} red_job;

/* n elements of the reduce operand from flat position f: in place or made
 * by the producer into buf. */
static const void *src_chunk(const red_job *j, int64_t f, int64_t n, void *buf, void *scratch) {
  const red_plan *p = j->p;
  int es = p->t == HLO_F32 ? 4 : 8;
  if (!p->lp) return (const char *)j->args[p->src_arg]->data + f * es;
  hlo_lp_eval(p->lp, p->isa, j->args, scratch, f, n, buf);
  return buf;
}

static double comb(hlo_opcode op, double a, double b) {
  if (op == HLO_OP_ADD) return a + b;
  return op == HLO_OP_MAXIMUM ? HLO_FMAX(a, b) : HLO_FMIN(a, b);
}

/* max/min of a chunk (vector kernels: NaN wins, +0 above -0). */
static double mm_chunk(const hlo_fv_isa *isa, hlo_opcode op, hlo_type t, const void *v,
                       int64_t n, double acc) {
  if (t == HLO_F32) {
    float a = (float)acc; /* acc holds an f32 value or NaN/inf exactly */
    return op == HLO_OP_MAXIMUM ? isa->max32(n, v, a) : isa->min32(n, v, a);
  }
  return op == HLO_OP_MAXIMUM ? isa->max64(n, v, acc) : isa->min64(n, v, acc);
}

/* Pairwise merge of sequential partials: a binary counter of levels. */
typedef struct pw { double v[64]; int64_t cnt[64]; int n; } pw;
static void pw_push(pw *s, double x) {
  s->v[s->n] = x;
  s->cnt[s->n++] = 1;
  while (s->n >= 2 && s->cnt[s->n - 1] == s->cnt[s->n - 2]) {
    s->v[s->n - 2] += s->v[s->n - 1];
    s->cnt[s->n - 2] *= 2;
    s->n--;
  }
}
static double pw_total(const pw *s) {
  double t = 0;
  for (int i = s->n - 1; i >= 0; i--) t = i == s->n - 1 ? s->v[i] : s->v[i] + t;
  return t;
}

/* I == 1: work item = (outer row, R block); partial of the block. */
static void row_item(void *ctx, int64_t it) {
  red_job *j = ctx;
  const red_plan *p = j->p;
  int64_t o = it / j->nblk, b = it % j->nblk;
  int64_t r0 = b * RBLOCK, r1 = r0 + RBLOCK < p->R ? r0 + RBLOCK : p->R;
  void *buf = NULL, *scratch = NULL;
  if (p->lp) {
    buf = hlo_malloc(j->alloc, HLO_LP_CHUNK * 8);
    scratch = hlo_lp_scratch_new(p->lp, j->alloc);
    if (!buf || !scratch) {
      __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
      hlo_free(j->alloc, buf);
      hlo_lp_scratch_free(p->lp, j->alloc, scratch);
      return;
    }
  }
  pw st;
  st.n = 0;
  double acc = p->op == HLO_OP_ADD ? 0 : p->op == HLO_OP_MAXIMUM ? -INFINITY : INFINITY;
  /* in-place f64 sums take the whole block pairwise at once */
  int64_t step = !p->lp ? r1 - r0 : HLO_LP_CHUNK;
  for (int64_t r = r0; r < r1; r += step) {
    int64_t n = r1 - r < step ? r1 - r : step;
    const void *v = src_chunk(j, o * p->R + r, n, buf, scratch);
    if (p->op == HLO_OP_ADD) {
      if (p->t == HLO_F32) acc += p->isa->sum32(n, v);
      else pw_push(&st, p->isa->sum64(n, v));
    } else {
      acc = mm_chunk(p->isa, p->op, p->t, v, n, acc);
    }
  }
  if (p->op == HLO_OP_ADD && p->t == HLO_F64) acc = pw_total(&st);
  j->partial[it] = acc;
  hlo_free(j->alloc, buf);
  if (p->lp) hlo_lp_scratch_free(p->lp, j->alloc, scratch);
}

/* I > 1: work item = (outer row, block of inner columns). */
static void col_item(void *ctx, int64_t it) {
  red_job *j = ctx;
  const red_plan *p = j->p;
  int64_t nib = (p->In + j->icols - 1) / j->icols;
  int64_t o = it / nib, i0 = (it % nib) * j->icols;
  int64_t i1 = i0 + j->icols < p->In ? i0 + j->icols : p->In;
  double *acc = hlo_malloc(j->alloc, sizeof(double) * (size_t)(i1 - i0) + 8);
  void *buf = p->lp ? hlo_malloc(j->alloc, HLO_LP_CHUNK * 8) : NULL;
  void *scratch = p->lp ? hlo_lp_scratch_new(p->lp, j->alloc) : NULL;
  if (!acc || (p->lp && (!buf || !scratch))) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    goto done;
  }
  if (p->op != HLO_OP_ADD && p->t == HLO_F32)
    for (int64_t i = 0; i < i1 - i0; i++) ((float *)acc)[i] = (float)j->init;
  else
    for (int64_t i = 0; i < i1 - i0; i++) acc[i] = j->init;
  for (int64_t r = 0; r < p->R; r++)
    for (int64_t c = i0; c < i1; c += HLO_LP_CHUNK) {
      int64_t n = i1 - c < HLO_LP_CHUNK ? i1 - c : HLO_LP_CHUNK;
      const void *v = src_chunk(j, (o * p->R + r) * p->In + c, n, buf, scratch);
      double *a = acc + (c - i0);
      if (p->op == HLO_OP_ADD) {
        if (p->t == HLO_F32) p->isa->acc32(n, v, a);
        else p->isa->acc64(n, v, a);
      } else if (p->t == HLO_F32) {
        /* max/min keep f32 accumulators (in acc's storage): the
         * elementwise kernel with the accumulator as first operand is the
         * reference's sequential order */
        float *fa = (float *)acc + (c - i0);
        p->isa->bin32(p->op, n, fa, v, fa);
      } else {
        p->isa->bin64(p->op, n, a, v, a);
      }
    }
  for (int64_t i = 0; i < i1 - i0; i++) {
    int64_t k = o * p->In + i0 + i;
    if (p->t == HLO_F32)
      ((float *)j->out)[k] = p->op == HLO_OP_ADD ? (float)acc[i] : ((float *)acc)[i];
    else ((double *)j->out)[k] = acc[i];
  }
done:
  hlo_free(j->alloc, acc);
  hlo_free(j->alloc, buf);
  if (p->lp) hlo_lp_scratch_free(p->lp, j->alloc, scratch);
}

DECL_KERN(hlo_fast_reduce) {
  const red_plan *p = s->p;
  for (int k = 0; k < s->nargs; k++)
    HLO_ASSERT(!(args[k]->ntuple)); /* planned for these shapes */
  hlo_val *o = hlo_run_new_raw(r, &s->in->shape);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  const void *iv = p->init_arg >= 0 ? args[p->init_arg]->data : p->init_data;
  double init = p->t == HLO_F32 ? *(const float *)iv : *(const double *)iv;
  red_job j = {p, args, r->alloc, init, 0, NULL, o->data, 0, 0};
  int64_t total = p->O * p->R * p->In;
  /* per input element: the read (a memory-bound stream counts 4) plus the
   * producer's ops */
  int64_t cost = 4 + (p->lp ? hlo_lp_cost(p->lp) : 0);
  hlo_fast_pool *nth = total >= RBLOCK && total >= HLO_FAST_PAR_MIN_COST / cost ? p->pool : NULL;
  if (p->O * p->In == 0) {
    *out = o;
    return HLO_OK;
  }
  if (p->In == 1) {
    j.nblk = p->R > 0 ? (p->R + RBLOCK - 1) / RBLOCK : 1;
    j.partial = hlo_malloc(r->alloc, sizeof(double) * (size_t)(p->O * j.nblk) + 8);
    if (!j.partial) {
      hlo_run_release(r, o);
      return hlo_run_errorf(r, s->in, "out of memory");
    }
    hlo_fast_parallel(nth, p->O * j.nblk, row_item, &j);
    for (int64_t q = 0; q < p->O && !j.failed; q++) {
      pw st;
      st.n = 0;
      double acc = init;
      if (p->op == HLO_OP_ADD && p->t == HLO_F64) {
        for (int64_t b = 0; b < j.nblk; b++) pw_push(&st, j.partial[q * j.nblk + b]);
        acc = init + pw_total(&st);
      } else {
        for (int64_t b = 0; b < j.nblk; b++) acc = comb(p->op, acc, j.partial[q * j.nblk + b]);
      }
      if (p->t == HLO_F32) ((float *)o->data)[q] = (float)acc;
      else ((double *)o->data)[q] = acc;
    }
    hlo_free(r->alloc, j.partial);
  } else {
    /* split columns only when there are few outer rows */
    j.icols = p->O >= 4 ? p->In : HLO_LP_CHUNK * 4;
    int64_t nib = (p->In + j.icols - 1) / j.icols;
    hlo_fast_parallel(nth, p->O * nib, col_item, &j);
  }
  if (j.failed) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "out of memory");
  }
  *out = o;
  return HLO_OK;
}
