/* ccall_attn.c - Transformer Engine's fused attention custom calls for JAX
 * (te_fused_attn_forward_ffi, te_fused_attn_backward_ffi) as what they
 * compute: per batch element and head, O = softmax(mask(scale Q K^T [+ bias])) V
 * with grouped K/V heads, and its gradients.  The meaning and the operand
 * order are TransformerEngine's (transformer_engine/jax/csrc/extensions/
 * attention.cpp: FusedAttnForwardFFI/FusedAttnBackwardFFI bindings;
 * common/include/transformer_engine/fused_attn.h: the layout, bias and mask
 * enums).  The backend_config is the typed-FFI MLIR dictionary.
 *
 * Work is blocked by rows of Q: a block's logits against the keys it may see
 * (one OpenBLAS sgemm), softmax over those rows in f32, then P V (another
 * sgemm); memory is O(block x kv length) per call.  Inputs of any float
 * type are read as f32; results are rounded once to their type. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "exec/ccall.h"
#include "exec/fast.h"
#include "hlo/hlo_fp.h"

#define BQ 256 /* rows of Q per block */

/* element (b, s, h, d) of a tensor is at off + b*sb + s*ss + h*sh + d of
 * operand (or result) number op */
typedef struct tview {
  int op;
  int64_t off, sb, ss, sh;
} tview;

typedef struct attn_p {
  bool bwd;
  int64_t B, SQ, SKV, H, G, D, DV;
  float scale;
  int bias_type, mask;
  int64_t wl, wr;
  int64_t bb, bh;            /* bias batch and heads (broadcast when 1) */
  tview q, k, v, o;          /* o: output / doutput (Q's format, H heads of DV) */
  int i_cuq, i_cukv;         /* cu_seqlens operands */
  bool padding, causal, top_left;
} attn_p;

static const char *const LAYOUTS[] = {
    "SB3HD", "SBH3D", "SBHD_SB2HD", "SBHD_SBH2D", "SBHD_SBHD_SBHD",
    "BS3HD", "BSH3D", "BSHD_BS2HD", "BSHD_BSH2D", "BSHD_BSHD_BSHD"};

/* ---- f32 staging ------------------------------------------------------------ */
static float *to_f32(hlo_run *r, const hlo_val *v, bool *owned) {
  *owned = false;
  if (v->shape->type == HLO_F32) return v->data;
  float *f = hlo_malloc(r->alloc, (size_t)(v->nelems ? v->nelems : 1) * sizeof *f);
  if (!f) return NULL;
  *owned = true;
  const uint16_t *h = v->data;
  switch (v->shape->type) {
  case HLO_BF16:
    for (int64_t i = 0; i < v->nelems; i++) f[i] = hlo_bf16_to_f32(h[i]);
    break;
  case HLO_F16:
    for (int64_t i = 0; i < v->nelems; i++) f[i] = hlo_f16_to_f32(h[i]);
    break;
  default:
    for (int64_t i = 0; i < v->nelems; i++) f[i] = (float)hlo_sc_load(v->shape->type, v->data, i).f;
  }
  return f;
}

static void store_f32(hlo_val *v, int64_t at, const float *src, int64_t n) {
  hlo_type t = v->shape->type;
  if (t == HLO_F32) {
    if (n > 0) memcpy((float *)v->data + at, src, (size_t)n * sizeof *src); /* an empty dbias has no data */
    return;
  }
  uint16_t *h = v->data;
  for (int64_t i = 0; i < n; i++) {
    if (t == HLO_BF16) h[at + i] = hlo_f32_to_bf16(src[i]);
    else if (t == HLO_F16) h[at + i] = hlo_f32_to_f16(src[i]);
    else hlo_sc_store(t, v->data, at + i, (hlo_sc){src[i], 0, 0});
  }
}

/* ---- masks -------------------------------------------------------------------- */
typedef struct rowlim {
  int64_t lq, lkv, diag;
} rowlim;

/* the keys row i sees: [lo, hi) */
static void keys_of(const attn_p *p, const rowlim *L, int64_t i, int64_t *lo, int64_t *hi) {
  int64_t a = 0, z = L->lkv;
  if (p->causal && i + L->diag + 1 < z) z = i + L->diag + 1;
  if (p->wr >= 0 && i + L->diag + p->wr + 1 < z) z = i + L->diag + p->wr + 1;
  if (p->wl >= 0 && i + L->diag - p->wl > a) a = i + L->diag - p->wl;
  *lo = a;
  *hi = z > a ? z : a;
}

static int64_t seqlen(const hlo_val *cu, int64_t b, int64_t max) {
  const int32_t *c = cu->data;
  int64_t n = (int64_t)c[b + 1] - c[b];
  return n < 0 ? 0 : n > max ? max : n;
}

static rowlim limits(const attn_p *p, hlo_val **args, int64_t b) {
  rowlim L = {p->SQ, p->SKV, 0};
  if (p->padding) {
    L.lq = seqlen(args[p->i_cuq], b, p->SQ);
    L.lkv = seqlen(args[p->i_cukv], b, p->SKV);
  }
  /* top-left causal masks align the diagonal at (0, 0); the others (and
   * sliding windows) at the bottom right (lq - 1, lkv - 1) */
  L.diag = p->top_left ? 0 : L.lkv - L.lq;
  return L;
}

/* ---- shared per-call state ------------------------------------------------------ */
typedef struct attn_run {
  const attn_p *p;
  const float *q, *k, *v, *bias, *o, *dout, *lse;
  float *S, *T;       /* [BQ, SKV] scratch */
  float *Ob;          /* [BQ, DV] scratch */
} attn_run;

/* One block: rows [i0, i0 + M) of head h in batch element b against keys
 * [c0, c0 + N).  The sgemms run on the calling thread (OpenBLAS has its own
 * threads); the row-wise work is split into items of ROWS rows. */
#define ROWS 16
typedef struct blk {
  const attn_run *a;
  const rowlim *L;
  int64_t b, h, i0, M, c0, N;
  float *inv;          /* forward: 1 / row sum (0 for a row with no key) */
  float *lse;          /* statistics of row i0 (forward: written, backward: read) */
  float *dbias;        /* backward: the bias gradient (f32), or NULL */
  const float *O, *dO; /* backward: rows i0.. of the output and its gradient */
} blk;

static int64_t items(int64_t M) { return (M + ROWS - 1) / ROWS; }

/* row r of S: masked (-inf), scaled and biased logits */
static void row_logits(const blk *k, int64_t r) {
  const attn_p *p = k->a->p;
  float *s = k->a->S + r * k->N;
  int64_t lo, hi;
  keys_of(p, k->L, k->i0 + r, &lo, &hi);
  const float *bias = NULL;
  if (k->a->bias)
    bias = k->a->bias + (((p->bb > 1 ? k->b : 0) * p->bh + (p->bh > 1 ? k->h : 0)) * p->SQ + k->i0 + r) * p->SKV + k->c0;
  for (int64_t j = 0; j < k->N; j++) {
    if (j + k->c0 < lo || j + k->c0 >= hi) {
      s[j] = -INFINITY;
      continue;
    }
    float x = s[j];
    if (p->bias_type == 1) x = p->scale * (x + bias[j]);
    else if (p->bias_type == 2) x = p->scale * x + bias[j];
    else x = p->scale * x;
    s[j] = x;
  }
}

/* C (+)= alpha op(A) op(B) in f32 on the exec's threads */
static void sgemm(hlo_fast_pool *pool, bool ta, bool tb, int64_t M, int64_t N, int64_t K,
                  float alpha, const float *A, int64_t lda, const float *B, int64_t ldb, bool acc,
                  float *C, int64_t ldc) {
  hlo_gemm g = {.kind = HLO_GEMM_S, .ta = ta, .tb = tb, .acc = acc, .M = M, .N = N, .K = K,
                .alpha = alpha, .A = A, .B = B, .C = C, .lda = lda, .ldb = ldb, .ldc = ldc};
  hlo_fast_gemm(pool, &g);
}

/* S = Q K^T for the block */
static void block_qk(hlo_fast_pool *pool, const blk *k) {
  const attn_p *p = k->a->p;
  int64_t g = k->h / (p->H / p->G);
  const float *Q = k->a->q + p->q.off + k->b * p->q.sb + k->i0 * p->q.ss + k->h * p->q.sh;
  const float *K = k->a->k + p->k.off + k->b * p->k.sb + k->c0 * p->k.ss + g * p->k.sh;
  sgemm(pool, false, true, k->M, k->N, p->D, 1.0f, Q, p->q.ss, K, p->k.ss, false, k->a->S, k->N);
}

/* ---- forward ---------------------------------------------------------------------- */
static void fwd_rows(void *ctx, int64_t it) {
  const blk *k = ctx;
  for (int64_t r = it * ROWS; r < k->M && r < (it + 1) * ROWS; r++) {
    row_logits(k, r);
    float *s = k->a->S + r * k->N, m = -INFINITY, sum = 0;
    for (int64_t j = 0; j < k->N; j++) m = s[j] > m ? s[j] : m;
    if (m == -INFINITY) { /* no key: zero row */
      memset(s, 0, (size_t)k->N * sizeof *s);
      k->inv[r] = 0;
      k->lse[r] = 0;
      continue;
    }
    for (int64_t j = 0; j < k->N; j++) {
      s[j] = expf(s[j] - m);
      sum += s[j];
    }
    k->inv[r] = 1.0f / sum;
    k->lse[r] = m + logf(sum);
  }
}

static void fwd_block(const attn_run *a, hlo_fast_pool *pool, hlo_val *out, hlo_val *stats,
                      const rowlim *L, int64_t b, int64_t h, int64_t i0) {
  const attn_p *p = a->p;
  int64_t iend = i0 + BQ < p->SQ ? i0 + BQ : p->SQ;
  int64_t i1 = iend < L->lq ? iend : L->lq;
  int64_t c0 = 0, c1 = 0, lo, hi;
  if (i1 > i0) {
    keys_of(p, L, i0, &c0, &hi);
    keys_of(p, L, i1 - 1, &lo, &c1);
  }
  float inv[BQ];
  blk k = {a, L, b, h, i0, i1 - i0, c0, c1 - c0, inv, (float *)stats->data + (b * p->H + h) * p->SQ + i0,
           NULL, NULL, NULL};
  /* padded rows, and blocks whose rows keep no key, stay zero (a zeroed result) */
  if (k.M <= 0 || k.N <= 0) return;
  block_qk(pool, &k);
  hlo_fast_parallel(pool, items(k.M), fwd_rows, &k);
  const float *V = a->v + p->v.off + b * p->v.sb + c0 * p->v.ss + (h / (p->H / p->G)) * p->v.sh;
  sgemm(pool, false, false, k.M, p->DV, k.N, 1.0f, a->S, k.N, V, p->v.ss, false, a->Ob, p->DV);
  for (int64_t r = 0; r < k.M; r++) {
    float *row = a->Ob + r * p->DV;
    for (int64_t d = 0; d < p->DV; d++) row[d] *= inv[r];
    store_f32(out, p->o.off + b * p->o.sb + (i0 + r) * p->o.ss + h * p->o.sh, row, p->DV);
  }
}

/* ---- backward --------------------------------------------------------------------- */
/* P = exp(s - lse) */
static void bwd_p_rows(void *ctx, int64_t it) {
  const blk *k = ctx;
  for (int64_t r = it * ROWS; r < k->M && r < (it + 1) * ROWS; r++) {
    row_logits(k, r);
    float *s = k->a->S + r * k->N;
    for (int64_t j = 0; j < k->N; j++) s[j] = s[j] == -INFINITY ? 0.0f : expf(s[j] - k->lse[r]);
  }
}

/* T holds dP = dO V^T; becomes dS = P (dP - rowsum(dO O)); dbias rows */
static void bwd_ds_rows(void *ctx, int64_t it) {
  const blk *k = ctx;
  const attn_p *p = k->a->p;
  for (int64_t r = it * ROWS; r < k->M && r < (it + 1) * ROWS; r++) {
    float di = 0;
    const float *dO = k->dO + r * p->o.ss, *O = k->O + r * p->o.ss;
    for (int64_t d = 0; d < p->DV; d++) di += dO[d] * O[d];
    float *P = k->a->S + r * k->N, *T = k->a->T + r * k->N;
    for (int64_t j = 0; j < k->N; j++) T[j] = P[j] * (T[j] - di);
    if (k->dbias) {
      float f = p->bias_type == 1 ? p->scale : 1.0f;
      float *db = k->dbias +
                  (((p->bb > 1 ? k->b : 0) * p->bh + (p->bh > 1 ? k->h : 0)) * p->SQ + k->i0 + r) * p->SKV + k->c0;
      for (int64_t j = 0; j < k->N; j++) db[j] += f * T[j];
    }
  }
}

static void bwd_block(const attn_run *a, hlo_fast_pool *pool, float *const *grad, float *dbias,
                      const rowlim *L, int64_t b, int64_t h, int64_t i0) {
  const attn_p *p = a->p;
  int64_t i1 = i0 + BQ < L->lq ? i0 + BQ : L->lq;
  if (i1 <= i0) return;
  int64_t c0, c1, lo, hi;
  keys_of(p, L, i0, &c0, &hi);
  keys_of(p, L, i1 - 1, &lo, &c1);
  if (c1 <= c0) return;
  int64_t g = h / (p->H / p->G);
  int64_t obase = p->o.off + b * p->o.sb + i0 * p->o.ss + h * p->o.sh;
  blk k = {a, L, b, h, i0, i1 - i0, c0, c1 - c0, NULL, (float *)a->lse + (b * p->H + h) * p->SQ + i0,
           dbias, a->o + obase, a->dout + obase};
  int64_t M = k.M, N = k.N;
  block_qk(pool, &k);
  hlo_fast_parallel(pool, items(M), bwd_p_rows, &k);
  const float *V = a->v + p->v.off + b * p->v.sb + c0 * p->v.ss + g * p->v.sh;
  /* dP = dO V^T */
  sgemm(pool, false, true, M, N, p->DV, 1.0f, k.dO, p->o.ss, V, p->v.ss, false, a->T, N);
  hlo_fast_parallel(pool, items(M), bwd_ds_rows, &k);
  const float *Q = a->q + p->q.off + b * p->q.sb + i0 * p->q.ss + h * p->q.sh;
  const float *K = a->k + p->k.off + b * p->k.sb + c0 * p->k.ss + g * p->k.sh;
  float *dQ = grad[p->q.op] + p->q.off + b * p->q.sb + i0 * p->q.ss + h * p->q.sh;
  float *dK = grad[p->k.op] + p->k.off + b * p->k.sb + c0 * p->k.ss + g * p->k.sh;
  float *dV = grad[p->v.op] + p->v.off + b * p->v.sb + c0 * p->v.ss + g * p->v.sh;
  /* dQ += scale dS K, dK += scale dS^T Q, dV += P^T dO */
  sgemm(pool, false, false, M, p->D, N, p->scale, a->T, N, K, p->k.ss, true, dQ, p->q.ss);
  sgemm(pool, true, false, N, p->D, M, p->scale, a->T, N, Q, p->q.ss, true, dK, p->k.ss);
  sgemm(pool, true, false, N, p->DV, M, 1.0f, a->S, N, k.dO, p->o.ss, true, dV, p->v.ss);
}

/* ---- the kernel --------------------------------------------------------------------- */
static DECL_KERN(attn_kernel) {
  const attn_p *p = s->p;
  const hlo_instruction *in = s->in;
  hlo_val *t = hlo_run_new(r, &in->shape);
  if (!t) return hlo_run_errorf(r, in, "out of memory");
  attn_run a;
  memset(&a, 0, sizeof a);
  a.p = p;
  enum { NSTAGE = 7 };
  float *st[NSTAGE] = {0};
  bool own[NSTAGE] = {0};
  float *grad[3] = {0};
  float *dbias = NULL;
  int rc = HLO_OK;
  /* staging: q, k, v, bias, [o, dO, lse] */
  int srcs[NSTAGE] = {0, 1, 2, 3, p->bwd ? 6 : -1, p->bwd ? 7 : -1, p->bwd ? 4 : -1};
  for (int i = 0; i < NSTAGE && rc == HLO_OK; i++) {
    if (srcs[i] < 0 || (i == 3 && p->bias_type == 0)) continue;
    st[i] = to_f32(r, args[srcs[i]], &own[i]);
    if (!st[i] && args[srcs[i]]->nelems) rc = hlo_run_errorf(r, in, "out of memory");
  }
  a.q = st[p->q.op], a.k = st[p->k.op], a.v = st[p->v.op], a.bias = st[3], a.o = st[4], a.dout = st[5], a.lse = st[6];
  size_t sbytes = (size_t)BQ * (size_t)(p->SKV ? p->SKV : 1) * sizeof(float);
  a.S = rc ? NULL : hlo_malloc(r->alloc, sbytes);
  a.T = rc ? NULL : hlo_malloc(r->alloc, sbytes);
  a.Ob = rc ? NULL : hlo_malloc(r->alloc, (size_t)BQ * (size_t)(p->DV ? p->DV : 1) * sizeof(float));
  if (rc == HLO_OK && (!a.S || !a.T || !a.Ob)) rc = hlo_run_errorf(r, in, "out of memory");
  if (rc == HLO_OK && p->bwd) {
    for (int i = 0; i < 3 && rc == HLO_OK; i++) {
      grad[i] = hlo_malloc(r->alloc, (size_t)(args[i]->nelems ? args[i]->nelems : 1) * sizeof(float));
      if (!grad[i]) rc = hlo_run_errorf(r, in, "out of memory");
      else memset(grad[i], 0, (size_t)args[i]->nelems * sizeof(float));
    }
    if (rc == HLO_OK && p->bias_type != 0) {
      dbias = hlo_malloc(r->alloc, (size_t)(args[3]->nelems ? args[3]->nelems : 1) * sizeof(float));
      if (!dbias) rc = hlo_run_errorf(r, in, "out of memory");
      else memset(dbias, 0, (size_t)args[3]->nelems * sizeof(float));
    }
  }
  bool empty = !p->B || !p->SQ || !p->SKV || !p->H || !p->D || !p->DV;
  for (int64_t b = 0; rc == HLO_OK && !empty && b < p->B; b++) {
    rowlim L = limits(p, args, b);
    for (int64_t h = 0; h < p->H; h++)
      for (int64_t i0 = 0; i0 < p->SQ; i0 += BQ) {
        if (p->bwd) bwd_block(&a, r->e->pool, grad, dbias, &L, b, h, i0);
        else fwd_block(&a, r->e->pool, t->tuple[0], t->tuple[1], &L, b, h, i0);
      }
  }
  if (rc == HLO_OK && p->bwd) {
    for (int i = 0; i < 3; i++) store_f32(t->tuple[i], 0, grad[i], t->tuple[i]->nelems);
    if (dbias) store_f32(t->tuple[3], 0, dbias, t->tuple[3]->nelems);
  }
  for (int i = 0; i < NSTAGE; i++)
    if (own[i]) hlo_free(r->alloc, st[i]);
  for (int i = 0; i < 3; i++) hlo_free(r->alloc, grad[i]);
  hlo_free(r->alloc, dbias);
  hlo_free(r->alloc, a.S);
  hlo_free(r->alloc, a.T);
  hlo_free(r->alloc, a.Ob);
  if (rc) {
    hlo_run_release(r, t);
    return HLO_ERR;
  }
  *out = t;
  return HLO_OK;
}

/* ---- plan time ------------------------------------------------------------------------ */
static bool is_float(hlo_type t) { return hlo_type_kind_of(t) == HLO_KIND_FLOAT; }

/* a shape is dims (rank n) */
static bool shape_is(const hlo_shape *s, const int64_t *dims, int n) {
  if (!hlo_shape_is_array(s) || s->rank != n) return false;
  for (int i = 0; i < n; i++)
    if (s->dims[i] != dims[i]) return false;
  return true;
}

static void dims_text(char *buf, size_t cap, const int64_t *dims, int n) {
  size_t k = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && k < cap; i++) k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "", (long long)dims[i]);
  if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* operand/result shape check against the layout: outer (B, S in the format's
 * order) then inner */
static int want_shape(hlo_exec *e, const hlo_instruction *in, const char *what, const hlo_shape *got,
                      bool bshd, int64_t B, int64_t S, const int64_t *inner, int ninner, const char *lname) {
  int64_t d[6];
  d[0] = bshd ? B : S;
  d[1] = bshd ? S : B;
  for (int i = 0; i < ninner; i++) d[2 + i] = inner[i];
  if (shape_is(got, d, 2 + ninner) && is_float(got->type)) return HLO_OK;
  char buf[128];
  dims_text(buf, sizeof buf, d, 2 + ninner);
  return HLO_PLAN_ERR(e, in, "instruction %%%s: %s should be a float array of dimensions %s for "
                      "qkv_layout %s and the sizes in backend_config", in->name, what, buf, lname);
}

/* view of tensor with heads nh of size hd inside an operand whose inner part
 * is [parts..]: elements per sequence position R, head stride sh, offset off */
static tview view_of(int op, bool bshd, int64_t B, int64_t S, int64_t R, int64_t sh, int64_t off) {
  tview v = {op, off, 0, 0, sh};
  if (bshd) v.sb = S * R, v.ss = R;
  else v.ss = B * R, v.sb = R;
  return v;
}

int hlo_ccall_prep_attn(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  attn_p *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return HLO_PLAN_ERR(e, in, "out of memory");
  memset(p, 0, sizeof *p);
  p->bwd = strstr(t, "backward") != NULL;
  /* backend_config */
  bool oom;
  char *txt = hlo_ccall_config_raw(in, &oom);
  if (oom) return HLO_PLAN_ERR(e, in, "out of memory");
  if (!txt)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: custom call %s needs its backend_config (the MLIR "
                        "dictionary of attn_heads, qkv_layout, ...)", in->name, t);
  hlo_mlir_dict *d = hlo_malloc(e->alloc, sizeof *d);
  if (!d) {
    free(txt);
    return HLO_PLAN_ERR(e, in, "out of memory");
  }
  size_t epos;
  const char *emsg;
  int prc = hlo_mlir_dict_parse(txt, d, &epos, &emsg);
  free(txt);
  if (prc) {
    hlo_free(e->alloc, d);
    return HLO_PLAN_ERR(e, in, "instruction %%%s: backend_config is not an MLIR dictionary attribute "
                        "(%s at offset %zu)", in->name, emsg, epos);
  }
  static const char *const NEED[] = {"input_batch", "q_max_seqlen", "kv_max_seqlen", "attn_heads",
                                     "num_gqa_groups", "qkv_layout", "mask_type", "bias_type",
                                     "scaling_factor"};
  double val[9];
  int rc = HLO_OK;
  for (int i = 0; i < 9 && rc == HLO_OK; i++) {
    const hlo_mlir_entry *x = hlo_mlir_dict_find(d, NEED[i]);
    if (!x || (x->kind != HLO_MLIR_INT && x->kind != HLO_MLIR_FLOAT))
      rc = HLO_PLAN_ERR(e, in, "instruction %%%s: backend_config has no numeric %s", in->name, NEED[i]);
    else val[i] = x->f;
  }
  const hlo_mlir_entry *x;
  double dropout = (x = hlo_mlir_dict_find(d, "dropout_probability")) ? x->f : 0;
  bool training = (x = hlo_mlir_dict_find(d, "is_training")) ? x->i != 0 : true;
  p->wl = (x = hlo_mlir_dict_find(d, "window_size_left")) ? x->i : -1;
  p->wr = (x = hlo_mlir_dict_find(d, "window_size_right")) ? x->i : -1;
  p->bb = (x = hlo_mlir_dict_find(d, "bias_batch")) ? x->i : 0;
  p->bh = (x = hlo_mlir_dict_find(d, "bias_heads")) ? x->i : 0;
  hlo_free(e->alloc, d);
  if (rc) return HLO_ERR;
  for (int i = 0; i < 5; i++)
    if (!(val[i] >= 0 && val[i] < (double)(1 << 30)) || val[i] != floor(val[i]))
      return HLO_PLAN_ERR(e, in, "instruction %%%s: backend_config %s = %g is not a size", in->name, NEED[i], val[i]);
  p->B = (int64_t)val[0], p->SQ = (int64_t)val[1], p->SKV = (int64_t)val[2];
  p->H = (int64_t)val[3], p->G = (int64_t)val[4];
  int layout = val[5] == floor(val[5]) && val[5] >= 0 && val[5] < 1000 ? (int)val[5] : -1;
  p->mask = val[6] == floor(val[6]) && val[6] >= 0 && val[6] < 1000 ? (int)val[6] : -1;
  p->bias_type = val[7] == floor(val[7]) && val[7] >= 0 && val[7] < 1000 ? (int)val[7] : -1;
  p->scale = (float)val[8];
  if (layout < 0 || layout > 9)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: qkv_layout %g is not supported by hlo-run (supported: "
                        "0-9, the SBHD and BSHD layouts: SB3HD, SBH3D, SBHD_SB2HD, SBHD_SBH2D, "
                        "SBHD_SBHD_SBHD, BS3HD, BSH3D, BSHD_BS2HD, BSHD_BSH2D, BSHD_BSHD_BSHD; the "
                        "THD and paged layouts are not)", in->name, val[5]);
  if (p->mask < 0 || p->mask > 5)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: mask_type %g is not one of NVTE_Mask_Type 0-5",
                        in->name, val[6]);
  if (p->bias_type == 3)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: bias_type 3 (ALiBi) is not supported by hlo-run", in->name);
  if (p->bias_type < 0 || p->bias_type > 3)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: bias_type %g is not one of NVTE_Bias_Type 0-3",
                        in->name, val[7]);
  if (dropout != 0 && (p->bwd || training))
    return HLO_PLAN_ERR(e, in, "instruction %%%s: dropout_probability %g: hlo-run cannot reproduce "
                        "cuDNN's dropout (its Philox stream); only 0 is supported", in->name, dropout);
  if (p->wl < -1 || p->wr < -1)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: window sizes are -1 (unbounded) or >= 0", in->name);
  /* a window wider than both sequences is no window (and keeps sums in range) */
  if (p->wl > p->SQ + p->SKV) p->wl = p->SQ + p->SKV;
  if (p->wr > p->SQ + p->SKV) p->wr = p->SQ + p->SKV;
  if (p->G < 1 || p->H % p->G)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: attn_heads %lld is not a multiple of num_gqa_groups "
                        "%lld", in->name, (long long)p->H, (long long)p->G);
  p->padding = p->mask == 1 || p->mask == 3 || p->mask == 5;
  p->causal = p->mask >= 2;
  p->top_left = p->mask == 2 || p->mask == 3;
  /* operands: forward q, k, v, bias, seed, q_cu_seqlens, kv_cu_seqlens,
   * (q_seq_offsets, k_seq_offsets, unused...); an older binding had the
   * seed last (q, k, v, bias, q_cu, kv_cu, offsets, seed): told apart by
   * operand 4's type.  backward: q, k, v, bias, softmax_aux, rng_state,
   * output, doutput, q_cu_seqlens, kv_cu_seqlens, ... */
  int need = p->bwd ? 10 : 7;
  if (in->noperands < need)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: custom call %s takes at least %d operands (%s), not %d",
                        in->name, t, need,
                        p->bwd ? "q, k, v, bias, softmax_aux, rng_state, output, doutput, q_cu_seqlens, kv_cu_seqlens"
                               : "q, k, v, bias, seed, q_cu_seqlens, kv_cu_seqlens",
                        in->noperands);
  if (p->bwd) p->i_cuq = 8, p->i_cukv = 9;
  else if (in->operands[4]->shape.type == HLO_S32) p->i_cuq = 4, p->i_cukv = 5;
  else p->i_cuq = 5, p->i_cukv = 6;
  int nres = p->bwd ? 4 : 2;
  if (in->shape.type != HLO_TUPLE || in->shape.ntuple < nres)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: custom call %s returns a tuple (%s)", in->name, t,
                        p->bwd ? "dq, dk, dv, dbias, workspace" : "output, softmax_aux, rng_state, workspace");
  /* layout: format and group */
  bool bshd = layout >= 5;
  int grp = layout % 5;
  const char *lname = LAYOUTS[layout];
  const hlo_shape *sq = &in->operands[0]->shape;
  if (!hlo_shape_is_array(sq) || sq->rank < 1)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: operand 0 (q) is not an array", in->name);
  int64_t D = sq->dims[sq->rank - 1], DV = D, H = p->H, G = p->G, B = p->B;
  if (grp == 4) {
    const hlo_shape *sv = &in->operands[2]->shape;
    if (!hlo_shape_is_array(sv) || sv->rank < 1)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: operand 2 (v) is not an array", in->name);
    DV = sv->dims[sv->rank - 1];
  }
  if ((grp <= 1) && (p->SQ != p->SKV || H != G))
    return HLO_PLAN_ERR(e, in, "instruction %%%s: qkv_layout %s packs q, k and v: q_max_seqlen, "
                        "kv_max_seqlen and attn_heads, num_gqa_groups must agree", in->name, lname);
  int64_t inner[3];
  switch (grp) {
  case 0: /* [.., 3, H, D] */
    inner[0] = 3, inner[1] = H, inner[2] = D;
    rc = want_shape(e, in, "operand 0 (qkv)", sq, bshd, B, p->SQ, inner, 3, lname);
    p->q = view_of(0, bshd, B, p->SQ, 3 * H * D, D, 0);
    p->k = view_of(0, bshd, B, p->SQ, 3 * H * D, D, H * D);
    p->v = view_of(0, bshd, B, p->SQ, 3 * H * D, D, 2 * H * D);
    break;
  case 1: /* [.., H, 3, D] */
    inner[0] = H, inner[1] = 3, inner[2] = D;
    rc = want_shape(e, in, "operand 0 (qkv)", sq, bshd, B, p->SQ, inner, 3, lname);
    p->q = view_of(0, bshd, B, p->SQ, 3 * H * D, 3 * D, 0);
    p->k = view_of(0, bshd, B, p->SQ, 3 * H * D, 3 * D, D);
    p->v = view_of(0, bshd, B, p->SQ, 3 * H * D, 3 * D, 2 * D);
    break;
  case 2: /* q [.., H, D], kv [.., 2, G, D] */
  case 3: /* q [.., H, D], kv [.., G, 2, D] */
    inner[0] = H, inner[1] = D;
    rc = want_shape(e, in, "operand 0 (q)", sq, bshd, B, p->SQ, inner, 2, lname);
    p->q = view_of(0, bshd, B, p->SQ, H * D, D, 0);
    inner[0] = grp == 2 ? 2 : G, inner[1] = grp == 2 ? G : 2, inner[2] = D;
    if (rc == HLO_OK) rc = want_shape(e, in, "operand 1 (kv)", &in->operands[1]->shape, bshd, B, p->SKV, inner, 3, lname);
    p->k = view_of(1, bshd, B, p->SKV, 2 * G * D, grp == 2 ? D : 2 * D, 0);
    p->v = view_of(1, bshd, B, p->SKV, 2 * G * D, grp == 2 ? D : 2 * D, grp == 2 ? G * D : D);
    break;
  default: /* separate q, k, v */
    inner[0] = H, inner[1] = D;
    rc = want_shape(e, in, "operand 0 (q)", sq, bshd, B, p->SQ, inner, 2, lname);
    inner[0] = G;
    if (rc == HLO_OK) rc = want_shape(e, in, "operand 1 (k)", &in->operands[1]->shape, bshd, B, p->SKV, inner, 2, lname);
    inner[1] = DV;
    if (rc == HLO_OK) rc = want_shape(e, in, "operand 2 (v)", &in->operands[2]->shape, bshd, B, p->SKV, inner, 2, lname);
    p->q = view_of(0, bshd, B, p->SQ, H * D, D, 0);
    p->k = view_of(1, bshd, B, p->SKV, G * D, D, 0);
    p->v = view_of(2, bshd, B, p->SKV, G * DV, DV, 0);
  }
  if (rc) return HLO_ERR;
  p->D = D, p->DV = DV;
  p->o = view_of(p->bwd ? 6 : 0, bshd, B, p->SQ, H * DV, DV, 0);
  inner[0] = H, inner[1] = DV;
  if (p->bwd) {
    rc = want_shape(e, in, "operand 6 (output)", &in->operands[6]->shape, bshd, B, p->SQ, inner, 2, lname);
    if (rc == HLO_OK) rc = want_shape(e, in, "operand 7 (doutput)", &in->operands[7]->shape, bshd, B, p->SQ, inner, 2, lname);
    for (int i = 0; i < 3 && rc == HLO_OK; i++)
      if (!hlo_shape_compatible(&in->shape.tuple[i], &in->operands[i]->shape) || !is_float(in->shape.tuple[i].type))
        rc = HLO_PLAN_ERR(e, in, "instruction %%%s: result %d (the gradient of operand %d) should have "
                          "operand %d's shape", in->name, i, i, i);
    const hlo_shape *ls = &in->operands[4]->shape;
    int64_t n = 0;
    if (rc == HLO_OK && (ls->type != HLO_F32 || !hlo_shape_elements(ls, &n) || n != B * H * p->SQ))
      rc = HLO_PLAN_ERR(e, in, "instruction %%%s: operand 4 (softmax_aux) should be the f32[%lld,%lld,%lld,1] "
                        "log-sum-exp statistics of the arbitrary-seqlen backend", in->name, (long long)B,
                        (long long)H, (long long)p->SQ);
  } else {
    rc = want_shape(e, in, "result 0 (output)", &in->shape.tuple[0], bshd, B, p->SQ, inner, 2, lname);
    const hlo_shape *ls = &in->shape.tuple[1];
    int64_t n = 0;
    if (rc == HLO_OK && (ls->type != HLO_F32 || !hlo_shape_elements(ls, &n) || n != B * H * p->SQ))
      rc = HLO_PLAN_ERR(e, in, "instruction %%%s: result 1 (softmax_aux) should be f32[%lld,%lld,%lld,1], the "
                        "log-sum-exp statistics of the arbitrary-seqlen backend (the max512 backend's "
                        "softmax is not supported)", in->name, (long long)B, (long long)H, (long long)p->SQ);
  }
  if (rc) return HLO_ERR;
  if (p->bias_type != 0) {
    const hlo_shape *bs = &in->operands[3]->shape;
    int64_t n = 0;
    int64_t want = 0;
    bool ok = (p->bb == 1 || p->bb == B) && (p->bh == 1 || p->bh == H); /* then bb * bh < 2^60 */
    ok = ok && !__builtin_mul_overflow(p->bb * p->bh, p->SQ, &want) && !__builtin_mul_overflow(want, p->SKV, &want);
    if (!ok || !hlo_shape_elements(bs, &n) || !is_float(bs->type) || n != want)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: operand 3 (bias) should hold bias_batch x bias_heads x "
                          "q_max_seqlen x kv_max_seqlen floats, bias_batch 1 or input_batch, bias_heads 1 "
                          "or attn_heads", in->name);
    if (p->bwd && !hlo_shape_compatible(&in->shape.tuple[3], bs))
      return HLO_PLAN_ERR(e, in, "instruction %%%s: result 3 (dbias) should have the bias's shape", in->name);
  }
  if (p->padding)
    for (int k = 0; k < 2; k++) {
      const hlo_shape *cs = &in->operands[k ? p->i_cukv : p->i_cuq]->shape;
      int64_t n = 0;
      if (cs->type != HLO_S32 || !hlo_shape_elements(cs, &n) || n < B + 1)
        return HLO_PLAN_ERR(e, in, "instruction %%%s: operand %d (%s_cu_seqlens) should be s32 with at least "
                            "input_batch + 1 = %lld cumulative lengths", in->name, k ? p->i_cukv : p->i_cuq,
                            k ? "kv" : "q", (long long)B + 1);
    }
  /* cblas takes int sizes and strides */
  int64_t big = p->SQ > p->SKV ? p->SQ : p->SKV;
  int64_t strides[] = {p->q.ss, p->k.ss, p->v.ss, p->o.ss, big, D, DV};
  for (int i = 0; i < 7; i++)
    if (strides[i] >= INT_MAX / BQ)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: attention sizes too large for hlo-run", in->name);
  s->fn = attn_kernel;
  s->kname = p->bwd ? "te_attn_bwd" : "te_attn_fwd";
  s->p = p;
  return HLO_OK;
}
