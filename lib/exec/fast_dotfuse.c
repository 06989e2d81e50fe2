/* fast_dotfuse.c - fusions whose root is an elementwise function of one f32/
 * f64 dot (dot + bias + activation): the gemm runs per tile of output rows
 * straight into the result, and the fused loop program (the dot as a leaf
 * read in place) applies the epilogue while the tile is still in cache.
 * Each element gets the same BLAS value and the same elementwise kernels
 * as an unfused dot followed by the loop. */
#include <string.h>

#include "core/bug.h"
#include "exec/fast.h"

/* Epilogue elements per thread work item (a multiple of the chunk). */
#define EPI_BLOCK (HLO_LP_CHUNK * 64)

typedef struct dotfuse_plan {
  const void *dot;          /* hlo_fast_dot_rows_plan */
  int pa, pb;               /* fusion parameters of the dot's operands */
  int64_t B, M, N, rows;    /* rows per tile */
  int es;
  const hlo_lp *lp;
  const hlo_fv_isa *isa;
  hlo_fast_pool *pool;
} dotfuse_plan;

static int dotfuse_leaf(const hlo_instruction *root, const hlo_instruction *n) {
  (void)root;
  if (n->op == HLO_OP_DOT) return n->parent->nparams; /* the extra argument */
  return n->op == HLO_OP_PARAMETER ? (int)n->param_number : -1;
}

static bool same_dims(const hlo_shape *a, const hlo_shape *b) {
  if (a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

static bool path_op(hlo_opcode op) {
  return hlo_fv_unary_ok(op) || hlo_fv_binary_ok(op) || op == HLO_OP_SELECT ||
         op == HLO_OP_CLAMP || op == HLO_OP_COMPARE || op == HLO_OP_COPY ||
         op == HLO_OP_CONVERT || op == HLO_OP_AND || op == HLO_OP_OR || op == HLO_OP_XOR ||
         op == HLO_OP_NOT;
}

/* 1 if n uses dot only through elementwise ops of the root's dims (so the
 * loop program reads the dot in output order), 0 if n does not use it, -1
 * otherwise.  memo[id] caches the answer (2 = not yet known). */
static int reaches(const hlo_instruction *n, const hlo_instruction *dot, const hlo_shape *dims,
                   signed char *memo, int depth) {
  if (n == dot) return 1;
  if (memo[n->id] != 2) return memo[n->id];
  if (depth > 200) return -1;
  int any = 0;
  for (int k = 0; k < n->noperands; k++) {
    int r = reaches(n->operands[k], dot, dims, memo, depth + 1);
    if (r < 0) return memo[n->id] = -1;
    any |= r;
  }
  if (any && (!path_op(n->op) || !hlo_shape_is_array(&n->shape) || !same_dims(&n->shape, dims)))
    any = -1;
  return memo[n->id] = (signed char)any;
}

bool hlo_fast_plan_dotfuse(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (in->op != HLO_OP_FUSION || in->ncalled != 1 || !hlo_shape_is_array(&in->shape))
    return false;
  const hlo_computation *c = in->called[0];
  if (!c->root || c->nparams != in->noperands || c->nparams != s->nargs) return false;
  const hlo_instruction *root = c->root, *dot = NULL;
  for (int i = 0; i < c->ninstrs; i++)
    if (c->instrs[i]->op == HLO_OP_DOT) {
      if (dot) return false;
      dot = c->instrs[i];
    }
  if (!dot || dot == root || dot->noperands != 2) return false;
  hlo_type t = in->shape.type;
  if ((t != HLO_F32 && t != HLO_F64) || root->shape.type != t || dot->shape.type != t ||
      !hlo_shape_is_array(&dot->shape) || !same_dims(&dot->shape, &in->shape) ||
      !same_dims(&root->shape, &in->shape))
    return false;
  for (int k = 0; k < 2; k++)
    if (dot->operands[k]->op != HLO_OP_PARAMETER) return false;
  signed char memo[512];
  if (c->ninstrs > (int)sizeof memo) return false;
  memset(memo, 2, sizeof memo);
  for (int i = 0; i < c->ninstrs; i++)
    if (c->instrs[i]->id != i) return false;
  if (reaches(root, dot, &in->shape, memo, 0) != 1) return false;
  dotfuse_plan *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return false;
  memset(p, 0, sizeof *p);
  p->dot = hlo_fast_dot_rows_plan(e, dot, &p->B, &p->M, &p->N);
  if (!p->dot) return false;
  p->lp = hlo_lp_compile(&e->arena, root, &in->shape, dotfuse_leaf);
  if (!p->lp) return false;
  p->pa = (int)dot->operands[0]->param_number;
  p->pb = (int)dot->operands[1]->param_number;
  p->es = hlo_type_bytes(t);
  p->rows = hlo_fast_dot_tile_rows(p->dot);
  p->isa = hlo_fv_of(e);
  p->pool = e->pool;
  s->p = p;
  s->fn = hlo_fast_dotfuse;
  s->kname = "hlo_fast_dotfuse(gemm tiles+loop)";
  return true;
}

typedef struct epi_job {
  const dotfuse_plan *p;
  hlo_val **args;
  char *out;
  int64_t f0, n;           /* tile elements */
  const hlo_allocator *alloc;
  int failed;
} epi_job;

static void epi_block(void *ctx, int64_t b) {
  epi_job *j = ctx;
  void *scratch = hlo_lp_scratch_new(j->p->lp, j->alloc);
  if (!scratch) { __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED); return; }
  int64_t lo = j->f0 + b * EPI_BLOCK, end = j->f0 + j->n;
  if (lo + EPI_BLOCK < end) end = lo + EPI_BLOCK;
  for (int64_t f = lo; f < end; f += HLO_LP_CHUNK) {
    int64_t c = end - f < HLO_LP_CHUNK ? end - f : HLO_LP_CHUNK;
    hlo_lp_eval(j->p->lp, j->p->isa, j->args, scratch, f, c, j->out + f * j->p->es);
  }
  hlo_lp_scratch_free(j->p->lp, j->alloc, scratch);
}

DECL_KERN(hlo_fast_dotfuse) {
  const dotfuse_plan *p = s->p;
  const hlo_instruction *in = s->in;
  for (int k = 0; k < s->nargs; k++)
    HLO_ASSERT(!(args[k]->ntuple)); /* planned for these shapes */
  hlo_val *o = hlo_run_new_raw(r, &in->shape);
  if (!o) return hlo_run_errorf(r, in, "out of memory");
  hlo_val **la = hlo_malloc(r->alloc, sizeof(hlo_val *) * (size_t)(s->nargs + 1));
  hlo_dot_rows t;
  if (!la || hlo_fast_dot_rows_begin(p->dot, r->alloc, args[p->pa], args[p->pb], &t)) {
    hlo_free(r->alloc, la);
    hlo_run_release(r, o);
    return hlo_run_errorf(r, in, "out of memory");
  }
  for (int k = 0; k < s->nargs; k++) la[k] = args[k];
  la[s->nargs] = o; /* the dot leaf: tiles are read in place */
  int failed = 0;
  for (int64_t b = 0; b < p->B && !failed; b++)
    for (int64_t m0 = 0; m0 < p->M && !failed; m0 += p->rows) {
      int64_t m1 = m0 + p->rows < p->M ? m0 + p->rows : p->M;
      int64_t f0 = (b * p->M + m0) * p->N, n = (m1 - m0) * p->N;
      hlo_fast_dot_rows(p->pool, p->dot, &t, b, m0, m1, (char *)o->data + f0 * p->es);
      epi_job j = {p, la, o->data, f0, n, r->alloc, 0};
      int64_t nb = (n + EPI_BLOCK - 1) / EPI_BLOCK;
      hlo_fast_parallel(n >= 2 * EPI_BLOCK ? p->pool : NULL, nb, epi_block, &j);
      failed = j.failed;
    }
  hlo_fast_dot_rows_end(r->alloc, &t);
  hlo_free(r->alloc, la);
  if (failed) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, in, "out of memory");
  }
  *out = o;
  return HLO_OK;
}
