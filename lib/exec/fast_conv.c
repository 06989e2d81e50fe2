/* fast_conv.c - convolutions without window reversal (f32/f64; f16/bf16
 * widened to f32 and rounded once) as im2col + BLAS gemm on the fast path.
 * Output positions are processed in blocks of rows: each block's patch
 * matrix [rows, window * Cin] is built from the input (zeros outside it,
 * base and window dilation by index arithmetic), multiplied by the packed
 * kernel [window * Cin, Cout], and the product is the output block itself
 * when the output's feature dimension is innermost (else scattered).
 * 1x1 convolutions in NCHW-like layouts and full-window convolutions
 * (weight gradients) are gemms on the operands in place.  Gemms go through
 * hlo_fast_gemm (fast_gemm.c), on the exec's threads; im2col blocks run in
 * parallel, each building its own patch matrix.  Grouped and
 * depthwise convolutions are fast_gconv.c's, except 3-D groups of >= 32
 * input features: one im2col + gemm per feature or batch group here. */
#include <string.h>

#include "core/bug.h"
#include "exec/fast.h"

#define CONV_ROWS 1024 /* output positions per block */

typedef struct conv_plan {
  bool f64;
  hlo_type half;                        /* F16/BF16: computed in f32, rounded once; else 0 */
  int ns;                               /* spatial dims */
  int64_t B, Cin, Cout, P;              /* per group; P = output positions per batch */
  int64_t NG, Ctot;                     /* groups (feature or batch); all output features */
  int64_t g_in, g_k, g_out;             /* element offsets of group g+1 from group g */
  int64_t in_sb, in_sf, in_ss[MAXR], in_sz[MAXR];
  int64_t k_si, k_so, k_ss[MAXR];
  int64_t out_sb, out_sf, out_ss[MAXR], out_sz[MAXR];
  int64_t win[MAXR], stride[MAXR], plo[MAXR], ldil[MAXR], rdil[MAXR];
  int64_t KW;                           /* window positions */
  bool direct_out;                      /* output is [B * P, Cout] row-major */
  int mode;                             /* CONV_IM2COL, CONV_POINTWISE, CONV_FULLWIN */
  int64_t S;                            /* FULLWIN: input positions per feature */
} conv_plan;

/* Special cases that are plain gemms on the operands in place:
 * POINTWISE: 1x1 windows without padding/stride/dilation, spatial dims
 *   contiguous and innermost in input and output (NCHW): per batch element
 *   out[Cout, P] = W[Cout, Cin] x in[Cin, P];
 * FULLWIN: one output position whose window is the whole input (weight
 *   gradients): out[B, Cout] = sum over ci of in_ci[B, S] x k_ci[Cout, S]^T. */
enum { CONV_IM2COL, CONV_POINTWISE, CONV_FULLWIN };

/* Strides st over dims sz (n of them) are row-major contiguous. */
static bool contiguous(int n, const int64_t *st, const int64_t *sz) {
  int64_t a = 1;
  for (int d = n - 1; d >= 0; d--) {
    if (sz[d] != 1 && st[d] != a) return false;
    a *= sz[d];
  }
  return true;
}

static void pick_mode(conv_plan *p) {
  int ns = p->ns;
  bool unit = ns > 0, full = ns > 0;
  for (int d = 0; d < ns; d++) {
    if (p->win[d] != 1 || p->stride[d] != 1 || p->plo[d] != 0 || p->ldil[d] != 1 ||
        p->out_sz[d] != p->in_sz[d])
      unit = false;
    if (p->out_sz[d] != 1 || p->plo[d] != 0 || p->ldil[d] != 1 || p->rdil[d] != 1 ||
        p->win[d] != p->in_sz[d])
      full = false;
  }
  bool in_c = contiguous(ns, p->in_ss, p->in_sz);
  int64_t lim = 0x7fffffff;
  if (unit && in_c && contiguous(ns, p->out_ss, p->out_sz) && (p->k_si == 1 || p->k_so == 1) &&
      p->in_sf >= p->P && p->out_sf >= p->P && p->in_sf <= lim && p->out_sf <= lim &&
      p->k_si <= lim && p->k_so <= lim && p->P <= lim &&
      (p->k_si == 1 ? p->k_so >= p->Cin : p->k_si >= p->Cout)) {
    p->mode = CONV_POINTWISE;
    return;
  }
  p->S = p->KW;
  if (full && in_c && contiguous(ns, p->k_ss, p->win) && (p->out_sf == 1 || p->out_sb == 1) &&
      p->in_sb >= p->S && p->k_so >= p->S && p->in_sb <= lim && p->k_so <= lim &&
      p->out_sb <= lim && p->out_sf <= lim && p->B <= lim && p->S <= lim &&
      (p->out_sf == 1 ? p->out_sb >= p->Cout : p->out_sf >= p->B))
    p->mode = CONV_FULLWIN;
}

static void strides(const hlo_shape *s, int64_t *st) {
  int64_t a = 1;
  for (int d = s->rank - 1; d >= 0; d--) { st[d] = a; a *= s->dims[d]; }
}

bool hlo_fast_plan_conv(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (in->noperands != 2 || !hlo_shape_is_array(&in->shape)) return false;
  hlo_type t = in->shape.type;
  int64_t FG = hlo_instr_int(in, HLO_A_FEATURE_GROUP_COUNT, 1);
  int64_t BG = hlo_instr_int(in, HLO_A_BATCH_GROUP_COUNT, 1);
  if (FG < 1 || BG < 1 || (FG > 1 && BG > 1)) return false;
  if ((t != HLO_F32 && t != HLO_F64 && t != HLO_F16 && t != HLO_BF16) ||
      in->operands[0]->shape.type != t || in->operands[1]->shape.type != t)
    return false;
  const hlo_attr *dl = hlo_instr_attr(in, HLO_A_DIM_LABELS);
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  if (!dl) return false;
  const hlo_conv_dnums *dn = dl->u.conv;
  const hlo_shape *is = &in->operands[0]->shape, *ks = &in->operands[1]->shape, *os = &in->shape;
  int ns = dn->nspatial;
  if (ns < 0 || ns > MAXR - 2 || is->rank != ns + 2 || ks->rank != ns + 2 || os->rank != ns + 2)
    return false;
  if (wa && wa->u.window.n != ns) return false;
  conv_plan *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return false;
  memset(p, 0, sizeof *p);
  p->f64 = t == HLO_F64;
  p->half = t == HLO_F16 || t == HLO_BF16 ? t : (hlo_type)0;
  p->ns = ns;
  int64_t ist[MAXR], kst[MAXR], ost[MAXR];
  strides(is, ist);
  strides(ks, kst);
  strides(os, ost);
  /* groups as the reference forms them: feature group g reads input
   * features [g * KI, (g+1) * KI); batch group g reads input batch
   * elements [g * OB, (g+1) * OB); both write output features
   * [g * Cout, (g+1) * Cout) from the same kernel output features */
  int64_t IB = is->dims[dn->in_batch], IF = is->dims[dn->in_feature];
  int64_t KI = ks->dims[dn->kernel_in], KO = ks->dims[dn->kernel_out];
  int64_t OB = os->dims[dn->out_batch], OF = os->dims[dn->out_feature];
  p->NG = FG > 1 ? FG : BG;
  if (KO != OF || IF != KI * FG || OF % p->NG || IB != OB * BG) return false;
  /* grouped: the direct kernel, except 3-D groups of >= 32 input features
   * (gemms per group are faster there) */
  if (p->NG > 1 && !(ns == 3 && KI >= 32) && hlo_fast_plan_gconv(e, s)) return true;
  /* one input feature per group (depthwise) that the direct kernel did not
   * take: a gemm per group is too thin; f32/f64 keep hlo_fast_conv_loop */
  if (p->NG > 1 && KI == 1 && !p->half) return false;
  p->B = OB;
  p->Cin = KI;
  p->Cout = OF / p->NG;
  p->Ctot = OF;
  p->in_sb = ist[dn->in_batch];
  p->in_sf = ist[dn->in_feature];
  p->k_si = kst[dn->kernel_in];
  p->k_so = kst[dn->kernel_out];
  p->out_sb = ost[dn->out_batch];
  p->out_sf = ost[dn->out_feature];
  p->g_in = FG > 1 ? KI * p->in_sf : OB * p->in_sb;
  p->g_k = p->Cout * p->k_so;
  p->g_out = p->Cout * p->out_sf;
  p->P = 1;
  p->KW = 1;
  for (int d = 0; d < ns; d++) {
    p->in_ss[d] = ist[dn->in_spatial[d]];
    p->in_sz[d] = is->dims[dn->in_spatial[d]];
    p->k_ss[d] = kst[dn->kernel_spatial[d]];
    p->out_ss[d] = ost[dn->out_spatial[d]];
    p->out_sz[d] = os->dims[dn->out_spatial[d]];
    p->win[d] = ks->dims[dn->kernel_spatial[d]];
    const hlo_window_dim *w = wa ? &wa->u.window.dims[d] : NULL;
    if (w && (w->reversal || (w->size && w->size != p->win[d]))) return false;
    p->stride[d] = w && w->stride > 0 ? w->stride : 1;
    p->plo[d] = w ? w->pad_lo : 0;
    p->ldil[d] = w && w->lhs_dilate > 0 ? w->lhs_dilate : 1;
    p->rdil[d] = w && w->rhs_dilate > 0 ? w->rhs_dilate : 1;
    p->P *= p->out_sz[d];
    p->KW *= p->win[d];
  }
  if (p->KW * p->Cin > 0x7fffffff || p->Cout > 0x7fffffff) return false;
  /* output [b, spatial..., f] in row-major order? */
  p->direct_out = dn->out_batch == 0 && dn->out_feature == ns + 1;
  for (int d = 0; d < ns; d++)
    if (dn->out_spatial[d] != d + 1) p->direct_out = false;
  if (p->NG == 1) pick_mode(p);
  /* with the spatial dims innermost: few input features (an NCHW image
   * layer) or a window wider than the output (a weight gradient), where
   * the patch matrix would be thin or huge, or few output features (an
   * image layer's input gradient), where the gemm would be a thin one: the
   * direct kernel does better */
  if (p->mode == CONV_IM2COL && p->NG == 1 && ns > 0 && ns <= 3 && p->in_ss[ns - 1] == 1 &&
      (p->Cin <= 4 || p->Cout <= 4 || p->win[ns - 1] > p->out_sz[ns - 1]) && hlo_fast_plan_gconv(e, s))
    return true;
  s->p = p;
  s->fn = hlo_fast_conv;
  s->kname = p->mode == CONV_POINTWISE ? "hlo_fast_conv(1x1 gemm)"
             : p->mode == CONV_FULLWIN ? "hlo_fast_conv(full-window gemm)"
             : p->NG > 1                ? "hlo_fast_conv(grouped im2col+gemm)"
                                       : "hlo_fast_conv(im2col+gemm)";
  return true;
}

/* Patch rows [r0, r0 + n) (global output positions b * P + q) into A. */
#define IM2COL(T)                                                             \
  do {                                                                        \
    const T *x = xin;                                                         \
    T *a = A;                                                                 \
    int64_t kc_ = p->KW * p->Cin;                                              \
    for (int64_t ri = 0; ri < n; ri++) {                                         \
      int64_t g = r0 + ri, b = g / p->P, q = g % p->P, op_[MAXR];                \
      for (int d = p->ns - 1; d >= 0; d--) { op_[d] = q % p->out_sz[d]; q /= p->out_sz[d]; } \
      T *row = a + ri * kc_;                                                    \
      int64_t k[MAXR] = {0};                                                  \
      for (int64_t w = 0; w < p->KW; w++) {                                   \
        int64_t off = b * p->in_sb;                                           \
        bool inside = true;                                                   \
        for (int d = 0; d < p->ns && inside; d++) {                           \
          int64_t pos = op_[d] * p->stride[d] - p->plo[d] + k[d] * p->rdil[d];  \
          if (pos < 0 || pos % p->ldil[d]) { inside = false; break; }         \
          pos /= p->ldil[d];                                                  \
          if (pos >= p->in_sz[d]) { inside = false; break; }                  \
          off += pos * p->in_ss[d];                                           \
        }                                                                     \
        T *dst = row + w * p->Cin;                                            \
        if (!inside) memset(dst, 0, sizeof(T) * (size_t)p->Cin);              \
        else if (p->in_sf == 1) memcpy(dst, x + off, sizeof(T) * (size_t)p->Cin); \
        else for (int64_t c = 0; c < p->Cin; c++) dst[c] = x[off + c * p->in_sf]; \
        for (int d = p->ns - 1; d >= 0; d--) {                                \
          if (++k[d] < p->win[d]) break;                                      \
          k[d] = 0;                                                           \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  } while (0)

/* The POINTWISE and FULLWIN modes (see pick_mode), gemms on the operands. */
static int conv_gemm(hlo_run *r, const conv_plan *p, const char *x, const char *k, char *y) {
  hlo_gemm g = {.kind = p->f64 ? HLO_GEMM_D : HLO_GEMM_S, .alpha = 1, .split_sum = true, .alloc = r->alloc};
  if (p->mode == CONV_POINTWISE) { /* out_b[Cout, P] = W[Cout, Cin] x in_b[Cin, P] */
    g.ta = p->k_si != 1;
    g.M = p->Cout, g.N = p->P, g.K = p->Cin;
    g.A = k, g.lda = g.ta ? p->k_si : p->k_so;
    g.B = x, g.ldb = p->in_sf, g.sb = p->in_sb;
    g.C = y, g.ldc = p->out_sf, g.sc = p->out_sb;
    g.nbatch = p->B;
  } else { /* out[B, Cout] = sum over ci of in_ci[B, S] x k_ci[Cout, S]^T, or its
              * transpose k_ci x in_ci^T when the batch dimension is innermost */
    bool in_first = p->out_sf == 1;
    int64_t in_ld = p->in_sb, k_ld = p->k_so;
    g.tb = true;
    g.M = in_first ? p->B : p->Cout, g.N = in_first ? p->Cout : p->B, g.K = p->S;
    g.A = in_first ? x : k, g.lda = in_first ? in_ld : k_ld, g.ua = in_first ? p->in_sf : p->k_si;
    g.B = in_first ? k : x, g.ldb = in_first ? k_ld : in_ld, g.ub = in_first ? p->k_si : p->in_sf;
    g.C = y, g.ldc = in_first ? p->out_sb : p->out_sf;
    g.nsum = p->Cin;
  }
  return hlo_fast_gemm(r->e->pool, &g);
}

/* One im2col run: blocks of CONV_ROWS output positions of every group. */
typedef struct im2col_job {
  const conv_plan *p;
  hlo_run *r;
  hlo_fast_pool *gemm_pool; /* the pool for each block's gemm (blocks run serially) */
  const char *x;
  const char *W;            /* packed kernels, [group][(window, ci), co] */
  char *y;
  int64_t rows, blk, nblk;  /* output positions per group, per block, blocks per group */
  int failed;               /* a block's scratch could not be allocated (atomic) */
} im2col_job;

static void im2col_block(void *ctx, int64_t item) {
  const im2col_job *j = ctx;
  const conv_plan *p = j->p;
  int64_t es = p->f64 ? 8 : 4, kc = p->KW * p->Cin, grp = item / j->nblk;
  int64_t r0 = item % j->nblk * j->blk, n = j->rows - r0 < j->blk ? j->rows - r0 : j->blk;
  bool direct = p->direct_out && p->NG == 1;
  void *A = hlo_malloc(j->r->alloc, (size_t)(n * kc * es));
  void *C = direct ? NULL : hlo_malloc(j->r->alloc, (size_t)(n * p->Cout * es));
  if (!A || (!direct && !C)) {
    hlo_free(j->r->alloc, A);
    hlo_free(j->r->alloc, C);
    __atomic_store_n((int *)&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  const void *xin = j->x + grp * p->g_in * es;
  if (p->f64) IM2COL(double);
  else IM2COL(float);
  void *dst = direct ? j->y + r0 * p->Cout * es : C;
  hlo_gemm g = {.kind = p->f64 ? HLO_GEMM_D : HLO_GEMM_S, .alpha = 1, .M = n, .N = p->Cout,
                .K = kc, .A = A, .lda = kc, .B = j->W + grp * kc * p->Cout * es,
                .ldb = p->Cout, .C = dst, .ldc = p->Cout};
  hlo_fast_gemm(j->gemm_pool, &g);
  if (!direct) {
    for (int64_t rr = 0; rr < n; rr++) {
      int64_t gq = r0 + rr, b = gq / p->P, q = gq % p->P, off = b * p->out_sb + grp * p->g_out;
      for (int d = p->ns - 1; d >= 0; d--) {
        off += (q % p->out_sz[d]) * p->out_ss[d];
        q /= p->out_sz[d];
      }
      for (int64_t co = 0; co < p->Cout; co++)
        memcpy(j->y + (off + co * p->out_sf) * es, (char *)C + (rr * p->Cout + co) * es,
               (size_t)es);
    }
  }
  hlo_free(j->r->alloc, A);
  hlo_free(j->r->alloc, C);
}

/* The convolution on f32 (f64 when p->f64) operands x, k into y (ybytes
 * bytes); HLO_ERR when out of memory. */
static int conv_run(const conv_plan *p, hlo_run *r, const char *xall, const char *kall, char *y,
                    size_t ybytes) {
  int64_t rows = p->B * p->P, kc = p->KW * p->Cin, es = p->f64 ? 8 : 4;
  hlo_fast_pool *pool = r->e->pool;
  if (rows == 0 || p->Cout == 0) return HLO_OK;
  if (kc == 0) {
    memset(y, 0, ybytes);
    return HLO_OK;
  }
  if (p->mode != CONV_IM2COL) {
    return conv_gemm(r, p, xall, kall, y);
  }
  char *W = hlo_malloc(r->alloc, (size_t)(p->NG * kc * p->Cout * es));
  if (!W) return HLO_ERR;
  for (int64_t grp = 0; grp < p->NG; grp++) {
    /* W[(window position, ci), co] of group grp */
    int64_t kw[MAXR] = {0};
    const char *kd = kall + grp * p->g_k * es;
    char *wg = W + grp * kc * p->Cout * es;
    for (int64_t w = 0; w < p->KW; w++) {
      int64_t off = 0;
      for (int d = 0; d < p->ns; d++) off += kw[d] * p->k_ss[d];
      for (int64_t ci = 0; ci < p->Cin; ci++)
        for (int64_t co = 0; co < p->Cout; co++)
          memcpy(wg + ((w * p->Cin + ci) * p->Cout + co) * es,
                 kd + (off + ci * p->k_si + co * p->k_so) * es, (size_t)es);
      for (int d = p->ns - 1; d >= 0; d--) {
        if (++kw[d] < p->win[d]) break;
        kw[d] = 0;
      }
    }
  }
  /* blocks in parallel when there are enough of them, else one after the
   * other with each block's gemm in parallel (decided by the shape alone) */
  int64_t blk = rows < CONV_ROWS ? rows : CONV_ROWS, nblk = (rows + blk - 1) / blk;
  bool by_block = p->NG * nblk >= 4;
  im2col_job j = {p, r, by_block ? NULL : pool, xall, W, y, rows, blk, nblk, 0};
  hlo_fast_parallel(by_block ? pool : NULL, p->NG * nblk, im2col_block, &j);
  hlo_free(r->alloc, W);
  return j.failed ? HLO_ERR : HLO_OK;
}

/* f32 copy of a f16/bf16 value (NULL when out of memory). */
static float *widen(hlo_run *r, const hlo_fv_isa *isa, const hlo_val *v) {
  float *f = hlo_malloc(r->alloc, (size_t)v->nelems * sizeof *f + 1);
  if (f) isa->widen16(v->shape->type, v->nelems, v->data, f);
  return f;
}

DECL_KERN(hlo_fast_conv) {
  const conv_plan *p = s->p;
  const hlo_instruction *in = s->in;
  HLO_ASSERT(!(args[0]->ntuple || args[1]->ntuple)); /* planned for these shapes */
  hlo_val *o = hlo_run_new_raw(r, &in->shape);
  if (!o) return hlo_run_errorf(r, in, "out of memory");
  if (args[0]->nelems == 0) {
    /* every window holds padding only, which adds nothing (as in the
     * reference and XLA: not 0 * kernel, which is NaN for an infinity) */
    if (o->nbytes) memset(o->data, 0, o->nbytes);
    *out = o;
    return HLO_OK;
  }
  int rc;
  if (!p->half) {
    rc = conv_run(p, r, args[0]->data, args[1]->data, o->data, o->nbytes);
  } else {
    /* exact widening, the f32 convolution, one rounding per element */
    const hlo_fv_isa *isa = hlo_fv_of(r->e);
    float *X = widen(r, isa, args[0]), *K = widen(r, isa, args[1]);
    float *Y = hlo_malloc(r->alloc, (size_t)o->nelems * sizeof *Y + 1);
    rc = X && K && Y ? conv_run(p, r, (const char *)X, (const char *)K, (char *)Y,
                                (size_t)o->nelems * sizeof *Y)
                     : HLO_ERR;
    if (rc == HLO_OK) isa->narrow16(p->half, o->nelems, Y, o->data);
    hlo_free(r->alloc, X);
    hlo_free(r->alloc, K);
    hlo_free(r->alloc, Y);
  }
  if (rc) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, in, "out of memory");
  }
  *out = o;
  return HLO_OK;
}
