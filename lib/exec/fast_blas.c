/* fast_blas.c - dot on the fast path.  Floats go to BLAS gemms through
 * hlo_fast_gemm (f32/f64/c64/c128; f16/bf16 converted to f32 and rounded once
 * at the end), a batch of products at fixed strides.  An operand whose dimensions
 * already read as [batch..., rows, cols] or [batch..., cols, rows] in memory
 * is passed in place with the matching transpose flag; any other dimension
 * numbers pack it once.  Integer and pred dots use a blocked kernel here. */
#include <limits.h>
#include <string.h>

#include "core/bug.h"
#include "exec/fast.h"
#include "hlo/hlo_fp.h"

enum { DK_S, DK_D, DK_C, DK_Z, DK_H, DK_INT };

/* f32/f64 gemms run in tiles of output rows (hlo_fast_dot_tile_rows): about
 * DOT_TILE_BYTES of output, a multiple of 64 rows, so that OpenBLAS's
 * micro-tiles fall on the same rows as in one call; a dot fused with its
 * elementwise epilogue makes the very same calls (same result per element). */
#define DOT_TILE_BYTES (4 << 20)
#define DOT_TILE_MIN_ROWS 256

typedef struct dot_op {
  bool direct;              /* read in place */
  bool trans;               /* stored as the transpose of [P, Q] */
  int n;                    /* packed order: batch, P dims, Q dims */
  int64_t dims[MAXR];
  int64_t order[MAXR];      /* operand dimension of each packed dimension */
} dot_op;

typedef struct dot_plan {
  int kind;
  hlo_type in_t, out_t;
  int64_t B, M, N, K;
  dot_op a, b;              /* a: [B, M, K], b: [B, K, N] */
} dot_plan;

/* Set up operand op: batch dims bd, then P dims pd, then Q dims qd.  Direct
 * when the physical order is batch, P, Q (trans=false) or batch, Q, P. */
static void setup_op(dot_op *o, const hlo_shape *s, int nb, const int64_t *bd, int np,
                     const int64_t *pd, int nq, const int64_t *qd) {
  o->n = 0;
  for (int i = 0; i < nb; i++) o->order[o->n++] = bd[i];
  for (int i = 0; i < np; i++) o->order[o->n++] = pd[i];
  for (int i = 0; i < nq; i++) o->order[o->n++] = qd[i];
  for (int i = 0; i < o->n; i++) o->dims[i] = s->dims[o->order[i]];
  bool plain = true, tr = true;
  for (int i = 0; i < o->n; i++) if (o->order[i] != i) plain = false;
  /* transposed: batch, then Q dims, then P dims in memory */
  int k = 0;
  for (int i = 0; i < nb; i++) if (bd[i] != k++) tr = false;
  for (int i = 0; i < nq; i++) if (qd[i] != k++) tr = false;
  for (int i = 0; i < np; i++) if (pd[i] != k++) tr = false;
  o->direct = plain || tr;
  o->trans = !plain && tr;
}

static int kind_of(hlo_type in_t, hlo_type out_t) {
  switch ((int)in_t) {
  case HLO_F32: return out_t == HLO_F32 ? DK_S : -1;
  case HLO_F64: return out_t == HLO_F64 ? DK_D : -1;
  case HLO_C64: return out_t == HLO_C64 ? DK_C : -1;
  case HLO_C128: return out_t == HLO_C128 ? DK_Z : -1;
  case HLO_F16: case HLO_BF16:
    return out_t == in_t || out_t == HLO_F32 ? DK_H : -1;
  case HLO_S8: case HLO_S16: case HLO_S32: case HLO_S64: case HLO_U8: case HLO_U16:
  case HLO_U32: case HLO_U64: case HLO_PRED:
    return out_t == in_t ? DK_INT : -1;
  default: return -1;
  }
}

bool hlo_fast_plan_dot(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (in->noperands != 2 || !hlo_shape_is_array(&in->shape)) return false;
  const hlo_shape *ls = &in->operands[0]->shape, *rs = &in->operands[1]->shape;
  if (ls->type != rs->type) return false;
  int kind = kind_of(ls->type, in->shape.type);
  if (kind < 0 || hlo_instr_attr(in, HLO_A_ALGORITHM)) return false;
  int nlb, nlc, nrb, nrc;
  hlo_dot_lists dl;
  bool same = hlo_dot_lists_of(in, &dl);
  const int64_t *lb = dl.lb, *lc = dl.lc, *rb = dl.rb, *rc = dl.rc;
  nlb = nrb = dl.nb;
  nlc = nrc = dl.nc;
  if (!same) return false;
  dot_plan *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return false;
  memset(p, 0, sizeof *p);
  p->kind = kind;
  p->in_t = ls->type;
  p->out_t = in->shape.type;
  int64_t lf[MAXR], rf[MAXR];
  int nlf = 0, nrf = 0;
  p->B = p->M = p->N = p->K = 1;
  for (int i = 0; i < nlb; i++) {
    if (lb[i] < 0 || lb[i] >= ls->rank || rb[i] < 0 || rb[i] >= rs->rank ||
        ls->dims[lb[i]] != rs->dims[rb[i]])
      return false;
    p->B *= ls->dims[lb[i]];
  }
  for (int i = 0; i < nlc; i++) {
    if (lc[i] < 0 || lc[i] >= ls->rank || rc[i] < 0 || rc[i] >= rs->rank ||
        ls->dims[lc[i]] != rs->dims[rc[i]])
      return false;
    p->K *= ls->dims[lc[i]];
  }
  for (int d = 0; d < ls->rank; d++)
    if (!hlo_ints_has(lb, nlb, d) && !hlo_ints_has(lc, nlc, d)) { lf[nlf++] = d; p->M *= ls->dims[d]; }
  for (int d = 0; d < rs->rank; d++)
    if (!hlo_ints_has(rb, nrb, d) && !hlo_ints_has(rc, nrc, d)) { rf[nrf++] = d; p->N *= rs->dims[d]; }
  if (nlb + nlf + nlc != ls->rank || nrb + nrf + nrc != rs->rank) return false;
  if (p->M > INT_MAX || p->N > INT_MAX || p->K > INT_MAX) return false;
  if (p->B * p->M * p->N != hlo_fast_elems(&in->shape)) return false;
  setup_op(&p->a, ls, nlb, lb, nlf, lf, nlc, lc);
  setup_op(&p->b, rs, nrb, rb, nrc, rc, nrf, rf);
  if (kind == DK_H || kind == DK_INT) p->a.direct = p->b.direct = false;
  s->p = p;
  s->fn = hlo_fast_dot;
  s->kname = kind == DK_INT ? "hlo_fast_dot(int)" : "hlo_fast_dot(blas)";
  return true;
}

/* Copy operand v into packed order (element size es bytes, no conversion). */
static void pack_raw(const dot_op *o, const hlo_val *v, int es, char *dst) {
  int64_t st[MAXR], map[MAXR], idx[MAXR] = {0};
  hlo_strides(v->shape, st);
  for (int i = 0; i < o->n; i++) map[i] = st[o->order[i]];
  const char *src = v->data;
  int64_t total = v->nelems, k = 0;
  if (o->n == 0) { memcpy(dst, src, (size_t)es); return; }
  int64_t inner = o->dims[o->n - 1], ist = map[o->n - 1];
  while (k < total) {
    int64_t off = hlo_index_dot(o->n - 1, idx, map);
    for (int64_t j = 0; j < inner; j++, k++)
      memcpy(dst + k * es, src + (off + j * ist) * es, (size_t)es);
    if (o->n == 1 || !hlo_index_next(o->n - 1, o->dims, idx)) break;
  }
}

/* Packed f32 copy of a f16/bf16 operand. */
static void pack_half(const dot_op *o, const hlo_val *v, float *dst, uint16_t *tmp) {
  pack_raw(o, v, 2, (char *)tmp);
  bool bf = v->shape->type == HLO_BF16;
  for (int64_t k = 0; k < v->nelems; k++)
    dst[k] = bf ? hlo_bf16_to_f32(tmp[k]) : hlo_f16_to_f32(tmp[k]);
}

/* Integer / pred: packed int64, i-k-j blocked with wrapping uint64 sums. */
static void int_gemm(const dot_plan *p, const int64_t *A, const int64_t *Bm, uint64_t *C) {
  const int64_t M = p->M, N = p->N, K = p->K;
  for (int64_t b = 0; b < p->B; b++) {
    const int64_t *a = A + b * M * K, *bb = Bm + b * K * N;
    uint64_t *c = C + b * M * N;
    memset(c, 0, sizeof(uint64_t) * (size_t)(M * N));
    for (int64_t k0 = 0; k0 < K; k0 += 256) {
      int64_t k1 = k0 + 256 < K ? k0 + 256 : K;
      for (int64_t i = 0; i < M; i++) {
        uint64_t *ci = c + i * N;
        for (int64_t k = k0; k < k1; k++) {
          uint64_t av = (uint64_t)a[i * K + k];
          const int64_t *bk = bb + k * N;
          for (int64_t j = 0; j < N; j++) ci[j] += av * (uint64_t)bk[j];
        }
      }
    }
  }
}

/* The gemm of the plan on packed or in-place operands (ta/tb: stored
 * transposed).  An f32/f64 dot taller than a row tile (see DOT_TILE_BYTES)
 * makes one call per tile, as the dot fused with an epilogue does. */
static void gemm_float(hlo_fast_pool *pool, const dot_plan *p, const void *A, const void *Bm,
                       void *C, bool ta, bool tb) {
  int kind = p->kind == DK_D ? HLO_GEMM_D : p->kind == DK_C ? HLO_GEMM_C
           : p->kind == DK_Z ? HLO_GEMM_Z : HLO_GEMM_S;
  if ((p->kind == DK_S || p->kind == DK_D) && p->M > hlo_fast_dot_tile_rows(p)) {
    hlo_dot_rows t = {A, Bm, NULL, NULL};
    int64_t rows = hlo_fast_dot_tile_rows(p), es = kind == HLO_GEMM_D ? 8 : 4;
    for (int64_t b = 0; b < p->B; b++)
      for (int64_t m0 = 0; m0 < p->M; m0 += rows) {
        int64_t m1 = m0 + rows < p->M ? m0 + rows : p->M;
        hlo_fast_dot_rows(pool, p, &t, b, m0, m1, (char *)C + (b * p->M + m0) * p->N * es);
      }
    return;
  }
  hlo_gemm g = {.kind = kind, .ta = ta, .tb = tb, .M = p->M, .N = p->N, .K = p->K,
                .alpha = 1, .A = A, .B = Bm, .C = C, .lda = ta ? p->M : p->K,
                .ldb = tb ? p->K : p->N, .ldc = p->N, .nbatch = p->B, .sa = p->M * p->K,
                .sb = p->K * p->N, .sc = p->M * p->N};
  hlo_fast_gemm(pool, &g);
}

DECL_KERN(hlo_fast_dot) {
  const dot_plan *p = s->p;
  const hlo_instruction *in = s->in;
  HLO_ASSERT(!(args[0]->ntuple || args[1]->ntuple)); /* planned for these shapes */
  hlo_val *o = hlo_run_new_raw(r, &in->shape);
  if (!o) return hlo_run_errorf(r, in, "out of memory");
  int64_t na = args[0]->nelems, nb = args[1]->nelems, nc = o->nelems;
  if (nc == 0) { *out = o; return HLO_OK; }
  if (p->K == 0) {
    memset(o->data, 0, o->nbytes);
    *out = o;
    return HLO_OK;
  }
  int es = hlo_type_bytes(p->in_t);
  void *pa = NULL, *pb = NULL, *pc = NULL, *tmp = NULL;
  const void *A = args[0]->data, *Bm = args[1]->data;
  void *C = o->data;
  bool ok = true;
  if (p->kind == DK_INT) {
    pa = hlo_malloc(r->alloc, sizeof(int64_t) * (size_t)na + 8);
    pb = hlo_malloc(r->alloc, sizeof(int64_t) * (size_t)nb + 8);
    pc = hlo_malloc(r->alloc, sizeof(uint64_t) * (size_t)nc + 8);
    tmp = hlo_malloc(r->alloc, (size_t)(na > nb ? na : nb) * (size_t)es + 8);
    ok = pa && pb && pc && tmp;
    if (ok) {
      int64_t *ia = pa, *ib = pb;
      pack_raw(&p->a, args[0], es, tmp);
      for (int64_t k = 0; k < na; k++) ia[k] = hlo_sc_load(p->in_t, tmp, k).i;
      pack_raw(&p->b, args[1], es, tmp);
      for (int64_t k = 0; k < nb; k++) ib[k] = hlo_sc_load(p->in_t, tmp, k).i;
      int_gemm(p, ia, ib, pc);
      const uint64_t *cc = pc;
      for (int64_t k = 0; k < nc; k++) {
        hlo_sc v = {0, 0, (int64_t)cc[k]};
        if (p->out_t == HLO_PRED) v.i = cc[k] != 0;
        hlo_sc_store(p->out_t, C, k, v);
      }
    }
  } else if (p->kind == DK_H) {
    pa = hlo_malloc(r->alloc, sizeof(float) * (size_t)na + 8);
    pb = hlo_malloc(r->alloc, sizeof(float) * (size_t)nb + 8);
    pc = p->out_t == HLO_F32 ? NULL : hlo_malloc(r->alloc, sizeof(float) * (size_t)nc + 8);
    tmp = hlo_malloc(r->alloc, (size_t)(na > nb ? na : nb) * 2 + 8);
    ok = pa && pb && tmp && (pc || p->out_t == HLO_F32);
    if (ok) {
      pack_half(&p->a, args[0], pa, tmp);
      pack_half(&p->b, args[1], pb, tmp);
      float *cf = pc ? pc : C;
      gemm_float(r->e->pool, p, pa, pb, cf, false, false);
      if (pc) {
        uint16_t *c16 = C;
        for (int64_t k = 0; k < nc; k++)
          c16[k] = p->out_t == HLO_BF16 ? hlo_f32_to_bf16(cf[k]) : hlo_f32_to_f16(cf[k]);
      }
    }
  } else {
    if (!p->a.direct) {
      ok = ok && (pa = hlo_malloc(r->alloc, (size_t)na * (size_t)es + 8));
      if (ok) { pack_raw(&p->a, args[0], es, pa); A = pa; }
    }
    if (!p->b.direct) {
      ok = ok && (pb = hlo_malloc(r->alloc, (size_t)nb * (size_t)es + 8));
      if (ok) { pack_raw(&p->b, args[1], es, pb); Bm = pb; }
    }
    if (ok)
      gemm_float(r->e->pool, p, A, Bm, C, p->a.direct && p->a.trans, p->b.direct && p->b.trans);
  }
  hlo_free(r->alloc, pa);
  hlo_free(r->alloc, pb);
  hlo_free(r->alloc, pc);
  hlo_free(r->alloc, tmp);
  if (!ok) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, in, "out of memory");
  }
  *out = o;
  return HLO_OK;
}

/* ---- row tiles of a float dot (epilogue fusions, fast_dotfuse.c) ---------- */

int64_t hlo_fast_dot_tile_rows(const void *plan) {
  const dot_plan *p = plan;
  int64_t es = p->kind == DK_D ? 8 : 4, M = p->M;
  int64_t want = p->N > 0 ? DOT_TILE_BYTES / (p->N * es) : M;
  if (want < DOT_TILE_MIN_ROWS) want = DOT_TILE_MIN_ROWS;
  if (M <= want) return M > 0 ? M : 1;
  int64_t ntiles = (M + want - 1) / want, rows = (M + ntiles - 1) / ntiles;
  return (rows + 63) / 64 * 64;
}

const void *hlo_fast_dot_rows_plan(hlo_exec *e, const hlo_instruction *dot, int64_t *B,
                                   int64_t *M, int64_t *N) {
  plan_step tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.in = dot;
  if (!hlo_fast_plan_dot(e, &tmp)) return NULL;
  const dot_plan *p = tmp.p;
  if (p->kind != DK_S && p->kind != DK_D) return NULL;
  *B = p->B;
  *M = p->M;
  *N = p->N;
  return p;
}

int hlo_fast_dot_rows_begin(const void *plan, const hlo_allocator *alloc, const hlo_val *a,
                            const hlo_val *b, hlo_dot_rows *t) {
  const dot_plan *p = plan;
  int es = hlo_type_bytes(p->in_t);
  memset(t, 0, sizeof *t);
  t->A = a->data;
  t->B = b->data;
  if (!p->a.direct) {
    if (!(t->pa = hlo_malloc(alloc, (size_t)a->nelems * (size_t)es + 8))) return HLO_ERR;
    pack_raw(&p->a, a, es, t->pa);
    t->A = t->pa;
  }
  if (!p->b.direct) {
    if (!(t->pb = hlo_malloc(alloc, (size_t)b->nelems * (size_t)es + 8))) {
      hlo_free(alloc, t->pa);
      t->pa = NULL;
      return HLO_ERR;
    }
    pack_raw(&p->b, b, es, t->pb);
    t->B = t->pb;
  }
  return HLO_OK;
}

void hlo_fast_dot_rows(hlo_fast_pool *pool, const void *plan, const hlo_dot_rows *t,
                       int64_t batch, int64_t m0, int64_t m1, void *C) {
  const dot_plan *p = plan;
  bool ta = p->a.direct && p->a.trans, tb = p->b.direct && p->b.trans;
  int64_t es = p->kind == DK_D ? 8 : 4;
  if (m1 <= m0) return;
  if (p->K == 0) {
    memset(C, 0, (size_t)(m1 - m0) * (size_t)p->N * (size_t)es);
    return;
  }
  int64_t ao = batch * p->M * p->K + (ta ? m0 : m0 * p->K), bo = batch * p->K * p->N;
  hlo_gemm g = {.kind = p->kind == DK_D ? HLO_GEMM_D : HLO_GEMM_S, .ta = ta, .tb = tb,
                .M = m1 - m0, .N = p->N, .K = p->K, .alpha = 1,
                .A = (const char *)t->A + ao * es, .B = (const char *)t->B + bo * es, .C = C,
                .lda = ta ? p->M : p->K, .ldb = tb ? p->K : p->N, .ldc = p->N};
  hlo_fast_gemm(pool, &g);
}

void hlo_fast_dot_rows_end(const hlo_allocator *alloc, hlo_dot_rows *t) {
  hlo_free(alloc, t->pa);
  hlo_free(alloc, t->pb);
  t->pa = t->pb = NULL;
}
