/* fast_gconv.c - grouped and depthwise convolutions (feature_group_count or
 * batch_group_count > 1; f32/f64, f16/bf16 through f32; up to 3 spatial dims; any dim_labels,
 * padding, strides, dilations, window reversal) on the fast path as a
 * direct vectorized kernel, also taken by ungrouped image layers and
 * weight gradients whose patch matrix would be thin or huge (fast_conv.c):
 * per (output batch, group) the group's input planes are materialized
 * once with padding and lhs dilation, then every output feature of the
 * group is a sum of shifted planes scaled by kernel weights (or, for
 * windows wider than the output, of dot products); 2-D f32 ones take four
 * output features per pass (gc_multi), each input vector loaded once.  A
 * third (outer, depth) spatial dim sums such planes over the window's
 * depth.
 * Depthwise ones (one output feature per group, f32 or half, up to 2
 * spatial dims) take a channel-blocked path instead (dw_item): DWB channels
 * of an input plane are interleaved into a padded scratch block by vector
 * transposes (fast_tr16.c), so the vector runs across channels and stays
 * full on 7x7 planes and 3x3 weight-gradient outputs alike; lhs-dilation
 * holes are skipped. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif
#include <string.h>

#include "core/bug.h"
#include "exec/fast.h"
#include "hlo/hlo_fp.h"

typedef struct gc_plan {
  bool f64, window_major;
  hlo_type half;                /* F16/BF16: run in f32, round once; else 0 */
  int64_t OB, NG, Cig, Cog, FG, BG, Cout;
  int64_t IY, IX, in_sb, in_sf, in_sy, in_sx;
  int64_t OY, OX, out_sb, out_sf, out_sy, out_sx;
  int64_t KY, KX, k_so, k_si, k_sy, k_sx;
  bool rev_y, rev_x;
  int64_t sy, sx, ry, rx, ly, lx, ply, plx, PH, PW, apitch;
  /* materialized plane: row pitch RP; column c of a row is stored at
   * (c % F) * PWF + c / F (F phases), so that the inner loop over output
   * columns (stride sx) or window columns (stride rx) reads contiguously */
  int64_t F, PWF, RP, plane;
  /* depth (the first of 3 spatial dims; size 1 otherwise): a feature's
   * materialized volume is PD planes of zplane elements (plane = PD *
   * zplane is the feature stride) */
  int64_t IZ, OZ, KZ, in_sd, out_sd, k_sd, sd, rd, ld, pld, PD, zplane;
  bool rev_z;
  bool w_direct; /* kernel windows are read in place (contiguous rows, no reversal) */
  void (*plane32)(const struct gc_plan *p, const float *P, const float *W, int64_t wci,
                  int64_t wky, float *acc);
  void (*plane64)(const struct gc_plan *p, const double *P, const double *W, int64_t wci,
                  int64_t wky, double *acc);
  /* channel-blocked depthwise path: nb blocks of DWB channels, the output
   * batch split into nbg parts */
  bool dw, dw_bm; /* dw_bm: batch-major order (dw_item) */
  int64_t nb, nbg;
  void (*dw32)(const struct gc_plan *p, const float *X, const float *K, float *acc);
  /* several output features per pass (gc_multi): f32 (or half), at most 2 spatial dims */
  bool multi;
  bool phased; /* output-major, lhs dilation 2, unit column stride: F = 2 (GC(planen_ph)) */
  void (*planen32)(const struct gc_plan *p, const float *P, const float *Wp, const int64_t *cols,
                   float *acc, int64_t nacc);
  void (*wtilen32)(const struct gc_plan *p, const float *P, const float *const *W, int64_t wci,
                   int64_t wky, int64_t q0, int nt, float *out, int64_t nacc);
  hlo_fast_tr16_fn tr; /* channel rows to lanes and back */
  hlo_fast_pool *pool;
} gc_plan;

#define DWB 16 /* channels per block of the depthwise path */
#define PN_NO 4 /* output features computed together by planen */
/* Input planes of at most this many elements with contiguous rows go
 * into lanes by one transpose of the whole plane (their rows are too short
 * for whole 16x16 blocks), through a staging block. */
#define DW_WHOLE 4096

/* Regions of at most this many bytes are fetched a batch ahead: a small
 * plane block is one short run per batch, too short for the hardware
 * prefetchers to follow across batches. */
#define DW_AHEAD (64 << 10)

/* DWB f32 lanes as one value (GCC's vector extension: one AVX-512
 * register, two AVX2 ones, four SSE2 ones); its operations are lane by
 * lane, so every level rounds alike */
typedef float dw_vec __attribute__((vector_size(DWB * sizeof(float))));
/* the 8 partial sums of a window-major output (GC(wtilen)) */
typedef float wt_vec __attribute__((vector_size(8 * sizeof(float))));
#define XCATS(a, b) a##b
#define CATS(a, b) XCATS(a, b)
/* name##GS##suffix of the current ISA and type */
#define GC(name) CATS(CATS(name, GS), GC_SUF)

/* Address of column c in a materialized row. */
#define GC_COL(p, c) ((c) % (p)->F * (p)->PWF + (c) / (p)->F)

/* Window-major tiles: offset in a materialized plane of the first input
 * element of outputs q0 .. q0 + nt - 1 (q = oy * OX + ox). */
static void wt_bases(const gc_plan *p, int64_t q0, int nt, int64_t *base) {
  for (int t = 0; t < nt; t++) {
    int64_t q = q0 + t, oy = q / p->OX, ox = q % p->OX;
    base[t] = oy * p->sy * p->RP + GC_COL(p, ox * p->sx);
  }
}

/* Bit ky set when window row ky of output row oy reads a materialized row
 * that holds input (row py = ply + iy * ly, iy < IY), clear on rows of
 * padding and lhs-dilation holes, which are zero; every bit set for
 * windows of more than 64 rows. */
static uint64_t row_mask(const gc_plan *p, int64_t oy) {
  if (p->KY > 64) return ~(uint64_t)0;
  uint64_t m = 0;
  for (int64_t ky = 0; ky < p->KY; ky++) {
    int64_t d = oy * p->sy + ky * p->ry - p->ply;
    if (d >= 0 && d % p->ly == 0 && d / p->ly < p->IY) m |= (uint64_t)1 << ky;
  }
  return m;
}

#ifdef HLO_FAST_WIDE
#define GC_TGT __attribute__((target("avx512f,avx512dq")))
#define GC_SUF _avx512
#define GT float
#define GS 32
#include "exec/fast_gconv_isa.h"
#undef GT
#undef GS
#define GT double
#define GS 64
#include "exec/fast_gconv_isa.h"
#undef GT
#undef GS
#undef GC_TGT
#undef GC_SUF

#define GC_TGT __attribute__((target("avx2,fma")))
#define GC_SUF _avx2
#define GT float
#define GS 32
#include "exec/fast_gconv_isa.h"
#undef GT
#undef GS
#define GT double
#define GS 64
#include "exec/fast_gconv_isa.h"
#undef GT
#undef GS
#undef GC_TGT
#undef GC_SUF
#endif

#define GC_TGT
#define GC_SUF _base
#define GT float
#define GS 32
#include "exec/fast_gconv_isa.h"
#undef GT
#undef GS
#define GT double
#define GS 64
#include "exec/fast_gconv_isa.h"
#undef GT
#undef GS
#undef GC_TGT
#undef GC_SUF

/* The plane kernels of e's ISA level (every level at or below it is
 * compiled and runs on this CPU, isa.c). */
static void pick_isa(const hlo_exec *e, gc_plan *p) {
  p->plane32 = plane32_base;
  p->plane64 = plane64_base;
  p->dw32 = dw32_base;
  p->planen32 = planen32_base;
  p->wtilen32 = wtilen32_base;
#ifdef HLO_FAST_WIDE
  if (e->isa_level >= HLO_ISA_AVX512) {
    p->wtilen32 = wtilen32_avx512;
    p->planen32 = planen32_avx512;
    p->plane32 = plane32_avx512;
    p->plane64 = plane64_avx512;
    p->dw32 = dw32_avx512;
  } else if (e->isa_level >= HLO_ISA_AVX2) {
    p->wtilen32 = wtilen32_avx2;
    p->planen32 = planen32_avx2;
    p->plane32 = plane32_avx2;
    p->plane64 = plane64_avx2;
    p->dw32 = dw32_avx2;
  }
#endif
  p->tr = hlo_fast_tr16(e->isa_level);
}

/* Padded extent of one input dimension: pad_lo + dilated size + pad_hi. */
static int64_t padded(int64_t n, int64_t ld, int64_t lo, int64_t hi) {
  return lo + (n > 0 ? (n - 1) * ld + 1 : 0) + hi;
}

bool hlo_fast_plan_gconv(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (in->noperands != 2 || !hlo_shape_is_array(&in->shape)) return false;
  hlo_type t = in->shape.type;
  if ((t != HLO_F32 && t != HLO_F64 && t != HLO_F16 && t != HLO_BF16) ||
      in->operands[0]->shape.type != t || in->operands[1]->shape.type != t)
    return false;
  int64_t FG = hlo_instr_int(in, HLO_A_FEATURE_GROUP_COUNT, 1);
  int64_t BG = hlo_instr_int(in, HLO_A_BATCH_GROUP_COUNT, 1);
  if (FG < 1 || BG < 1 || (FG > 1 && BG > 1)) return false;
  const hlo_attr *dl = hlo_instr_attr(in, HLO_A_DIM_LABELS);
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  if (!dl) return false;
  const hlo_conv_dnums *dn = dl->u.conv;
  const hlo_shape *is = &in->operands[0]->shape, *ks = &in->operands[1]->shape, *os = &in->shape;
  int ns = dn->nspatial;
  if (ns < 0 || ns > 3 || is->rank != ns + 2 || ks->rank != ns + 2 || os->rank != ns + 2)
    return false;
  if (wa && wa->u.window.n != ns) return false;
  int64_t IB = is->dims[dn->in_batch], IF = is->dims[dn->in_feature];
  int64_t KI = ks->dims[dn->kernel_in], KO = ks->dims[dn->kernel_out];
  int64_t OB = os->dims[dn->out_batch], OF = os->dims[dn->out_feature];
  if (KO != OF || IF != KI * FG || OF % FG || OF % BG || IB % BG || OB != IB / BG) return false;
  if (KI < 1) return false; /* no input features: the other kernels give the zeros */
  gc_plan *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return false;
  memset(p, 0, sizeof *p);
  p->f64 = t == HLO_F64;
  p->half = t == HLO_F16 || t == HLO_BF16 ? t : (hlo_type)0;
  p->FG = FG;
  p->BG = BG;
  p->OB = OB;
  p->NG = FG > 1 ? FG : BG;
  p->Cig = KI;
  p->Cout = OF;
  p->Cog = OF / p->NG;
  int64_t ist[MAXR], kst[MAXR], ost[MAXR];
  hlo_strides(is, ist);
  hlo_strides(ks, kst);
  hlo_strides(os, ost);
  p->in_sb = ist[dn->in_batch];
  p->in_sf = ist[dn->in_feature];
  p->k_si = kst[dn->kernel_in];
  p->k_so = kst[dn->kernel_out];
  p->out_sb = ost[dn->out_batch];
  p->out_sf = ost[dn->out_feature];
  /* canonical [Y, X]: missing spatial dims have size 1 */
  int64_t *Iv[2] = {&p->IY, &p->IX}, *O[2] = {&p->OY, &p->OX}, *K[2] = {&p->KY, &p->KX};
  int64_t *IS[2] = {&p->in_sy, &p->in_sx}, *OS[2] = {&p->out_sy, &p->out_sx};
  int64_t *KS[2] = {&p->k_sy, &p->k_sx}, *ST[2] = {&p->sy, &p->sx}, *RD[2] = {&p->ry, &p->rx};
  int64_t *LD[2] = {&p->ly, &p->lx}, *PL[2] = {&p->ply, &p->plx}, *PD[2] = {&p->PH, &p->PW};
  bool *RV[2] = {&p->rev_y, &p->rev_x};
  /* depth: spatial dim 0 of three */
  p->IZ = p->OZ = p->KZ = p->sd = p->rd = p->ld = p->PD = 1;
  if (ns == 3) {
    const hlo_window_dim *w = wa ? &wa->u.window.dims[0] : NULL;
    p->IZ = is->dims[dn->in_spatial[0]];
    p->OZ = os->dims[dn->out_spatial[0]];
    p->KZ = ks->dims[dn->kernel_spatial[0]];
    p->in_sd = ist[dn->in_spatial[0]];
    p->out_sd = ost[dn->out_spatial[0]];
    p->k_sd = kst[dn->kernel_spatial[0]];
    if (w && w->size && w->size != p->KZ) return false;
    p->sd = w && w->stride > 0 ? w->stride : 1;
    p->rd = w && w->rhs_dilate > 0 ? w->rhs_dilate : 1;
    p->ld = w && w->lhs_dilate > 0 ? w->lhs_dilate : 1;
    p->rev_z = w && w->reversal;
    int64_t lo = w ? w->pad_lo : 0, hi = w ? w->pad_hi : 0;
    if (lo < -(1LL << 40) || lo > (1LL << 40) || hi < -(1LL << 40) || hi > (1LL << 40) ||
        p->sd > (1LL << 30) || p->rd > (1LL << 30) || p->ld > (1LL << 30))
      return false;
    p->pld = lo;
    p->PD = padded(p->IZ, p->ld, lo, hi);
    if (p->KZ < 1 || p->OZ == 0 || p->PD < 1 || (p->OZ - 1) * p->sd + (p->KZ - 1) * p->rd + 1 > p->PD)
      return false;
  }
  for (int c = 0; c < 2; c++) {
    int d = c - (2 - ns); /* spatial dim of canonical axis c, < 0 if absent */
    if (d < 0) {
      *Iv[c] = *O[c] = *K[c] = 1;
      *ST[c] = *RD[c] = *LD[c] = 1;
      *PD[c] = 1;
      continue;
    }
    const hlo_window_dim *w = wa ? &wa->u.window.dims[d] : NULL;
    *Iv[c] = is->dims[dn->in_spatial[d]];
    *O[c] = os->dims[dn->out_spatial[d]];
    *K[c] = ks->dims[dn->kernel_spatial[d]];
    *IS[c] = ist[dn->in_spatial[d]];
    *OS[c] = ost[dn->out_spatial[d]];
    *KS[c] = kst[dn->kernel_spatial[d]];
    if (w && w->size && w->size != *K[c]) return false;
    *ST[c] = w && w->stride > 0 ? w->stride : 1;
    *RD[c] = w && w->rhs_dilate > 0 ? w->rhs_dilate : 1;
    *LD[c] = w && w->lhs_dilate > 0 ? w->lhs_dilate : 1;
    *RV[c] = w && w->reversal;
    int64_t lo = w ? w->pad_lo : 0, hi = w ? w->pad_hi : 0;
    if (lo < -(1LL << 40) || lo > (1LL << 40) || hi < -(1LL << 40) || hi > (1LL << 40) ||
        *ST[c] > (1LL << 30) || *RD[c] > (1LL << 30) || *LD[c] > (1LL << 30))
      return false;
    *PL[c] = lo;
    *PD[c] = padded(*Iv[c], *LD[c], lo, hi);
  }
  if (p->KY < 1 || p->KX < 1 || p->OY * p->OX == 0 || OB == 0 || OF == 0) return false;
  /* every window read stays inside the materialized plane */
  if ((p->OY - 1) * p->sy + (p->KY - 1) * p->ry + 1 > p->PH ||
      (p->OX - 1) * p->sx + (p->KX - 1) * p->rx + 1 > p->PW)
    return false;
  if (p->PH > (1LL << 27) / p->PW || p->PH * p->PW > (1LL << 27) / p->Cig / p->PD) return false;
  p->window_major = p->KX > p->OX;
  p->w_direct = !p->rev_x && !p->rev_y && !p->rev_z && (p->k_sx == 1 || p->KX == 1);
  p->apitch = !p->window_major && p->sx == 1 && p->sy == 1 ? p->PW : p->OX;
  p->multi = !p->f64 && ns <= 2 && p->Cog >= 2;
  /* the four-feature kernel on an lhs dilation of 2 at unit column stride
   * takes even and odd output columns apart (GC(planen_ph)) */
  p->phased = p->multi && !p->window_major && p->sx == 1 && p->lx == 2 && p->OX >= 2 * DWB;
  p->F = p->window_major ? p->rx : p->phased ? 2 : p->sx;
  if (p->F > p->PW) p->F = p->PW;
  p->PWF = (p->PW + p->F - 1) / p->F;
  p->RP = p->F * p->PWF;
  p->zplane = p->PH * p->RP;
  p->plane = p->PD * p->zplane;
  p->pool = e->pool;
  pick_isa(e, p);
  s->p = p;
  s->fn = hlo_fast_gconv;
  s->kname = "hlo_fast_gconv(direct)";
  /* depthwise: one output feature per group, one input feature per
   * feature group (any number summed per batch group); scratch blocks
   * bounded (64 MB each) */
  if (!p->f64 && ns <= 2 && p->Cog == 1 && (FG > 1 ? p->Cig == 1 : BG > 1) &&
      p->PH * p->PW <= ((int64_t)1 << 20) && p->KY * p->KX <= ((int64_t)1 << 20) &&
      p->OY * p->OX <= ((int64_t)1 << 20)) {
    p->dw = true;
    p->nb = (p->NG + DWB - 1) / DWB;
    p->nbg = 32 / p->nb < 1 ? 1 : 32 / p->nb > OB ? OB : 32 / p->nb;
    /* small planes, one input feature per output: batch-major, the
     * batches cut into up to 32 parts, every block's weights kept */
    if (FG > 1 && p->IY * p->IX * DWB * (int64_t)sizeof(float) <= DW_AHEAD &&
        p->nb * p->KY * p->KX <= ((int64_t)1 << 14)) {
      p->dw_bm = true;
      p->nbg = OB < 32 ? OB : 32;
    }
    s->kname = "hlo_fast_gconv(depthwise)";
  }
  return true;
}

typedef struct gc_job {
  const gc_plan *p;
  const char *x;  /* input */
  const char *k;  /* kernel operand */
  char *y;        /* output */
  const hlo_allocator *alloc;
  int failed;
} gc_job;

/* Materialize input plane (batch bi, feature c, depth iz) into the zeroed
 * plane Pv (see gc_plan). */
#define MATERIALIZE(T)                                                        \
  do {                                                                        \
    const T *x_ = (const T *)j->x + bi * p->in_sb + c * p->in_sf + iz * p->in_sd; \
    T *P_ = (T *)Pv;                                                          \
    /* input columns landing inside [0, PW): px = plx + ix * lx */            \
    int64_t ix0 = p->plx >= 0 ? 0 : (-p->plx + p->lx - 1) / p->lx;            \
    int64_t ix1 = p->PW - 1 - p->plx < 0 ? -1 : (p->PW - 1 - p->plx) / p->lx; \
    if (ix1 > p->IX - 1) ix1 = p->IX - 1;                                     \
    for (int64_t iy = 0; iy < p->IY && ix0 <= ix1; iy++) {                    \
      int64_t py = p->ply + iy * p->ly;                                       \
      if (py < 0) continue;                                                   \
      if (py >= p->PH) break;                                                 \
      const T *xr = x_ + iy * p->in_sy;                                       \
      T *pr = P_ + py * p->RP;                                                \
      if (p->lx == 1 && p->in_sx == 1 && p->F == 1)                           \
        memcpy(pr + p->plx + ix0, xr + ix0, sizeof(T) * (size_t)(ix1 - ix0 + 1)); \
      else if (p->lx == 1)                                                    \
        for (int64_t ph_ = 0; ph_ < p->F; ph_++) {                            \
          /* input columns of phase ph_, one strided run */                   \
          int64_t is_ = ix0 + ((ph_ - (p->plx + ix0) % p->F) % p->F + p->F) % p->F; \
          if (is_ > ix1) continue;                                            \
          int64_t cnt_ = (ix1 - is_) / p->F + 1, st_ = p->F * p->in_sx;       \
          T *d_ = pr + ph_ * p->PWF + (p->plx + is_) / p->F;                  \
          const T *x2_ = xr + is_ * p->in_sx;                                 \
          if (st_ == 2) /* stride 2 by a constant: vectorized deinterleave */ \
            for (int64_t k_ = 0; k_ < cnt_; k_++) d_[k_] = x2_[2 * k_];       \
          else                                                                \
            for (int64_t k_ = 0; k_ < cnt_; k_++) d_[k_] = x2_[k_ * st_];     \
        }                                                                     \
      else if (p->lx == p->F && p->in_sx == 1) { /* phased: one run */        \
        int64_t px_ = p->plx + ix0 * p->lx;                                   \
        memcpy(pr + px_ % p->F * p->PWF + px_ / p->F, xr + ix0,               \
               sizeof(T) * (size_t)(ix1 - ix0 + 1));                          \
      } else {                                                                \
        int64_t px_ = p->plx + ix0 * p->lx, ph_ = px_ % p->F, dv_ = px_ / p->F; \
        int64_t dph_ = p->lx % p->F, ddv_ = p->lx / p->F;                     \
        for (int64_t ix = ix0; ix <= ix1; ix++) {                             \
          pr[ph_ * p->PWF + dv_] = xr[ix * p->in_sx];                         \
          ph_ += dph_;                                                        \
          dv_ += ddv_;                                                        \
          if (ph_ >= p->F) { ph_ -= p->F; dv_++; }                            \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  } while (0)

#define SCATTER(T)                                                            \
  do {                                                                        \
    T *y_ = (T *)j->y + b * p->out_sb + o * p->out_sf + oz * p->out_sd;       \
    const T *a_ = acc;                                                        \
    for (int64_t oy = 0; oy < p->OY; oy++) {                                  \
      T *yr = y_ + oy * p->out_sy;                                            \
      const T *ar = a_ + oy * p->apitch;                                      \
      if (p->out_sx == 1) memcpy(yr, ar, sizeof(T) * (size_t)p->OX);          \
      else for (int64_t ox = 0; ox < p->OX; ox++) yr[ox * p->out_sx] = ar[ox]; \
    }                                                                         \
  } while (0)

/* Output features of group g, batch b, PN_NO at a time (p->multi) from the
 * materialized planes P; false when out of memory.  Windows wider than the
 * output (weight gradients) go by GC(wtilen) on the weights in place or
 * packed per feature (reversal, strided window columns), others by
 * GC(planen) on weights packed [ci][ky][kx][feature]. */
static bool gc_multi(const gc_job *j, int64_t b, int64_t g, const float *P) {
  const gc_plan *p = j->p;
  int64_t nacc = p->OY * p->apitch, KW = p->KY * p->KX, oz = 0, wsz = p->Cig * KW;
  float *sums = hlo_malloc(j->alloc, sizeof(float) * (size_t)(PN_NO * nacc));
  float *Wp = p->window_major && p->w_direct
                  ? NULL
                  : hlo_malloc(j->alloc, sizeof(float) * (size_t)(wsz * PN_NO));
  /* output-major: window column offsets in a materialized row */
  int64_t *cols = p->window_major ? NULL : hlo_malloc(j->alloc, sizeof(int64_t) * (size_t)p->KX);
  const float *k = (const float *)j->k;
  bool ok = sums && (cols || p->window_major) && (Wp || (p->window_major && p->w_direct));
  for (int64_t kx = 0; ok && cols && kx < p->KX; kx++) cols[kx] = GC_COL(p, kx * p->rx);
  for (int64_t o0 = g * p->Cog; ok && o0 < (g + 1) * p->Cog; o0 += PN_NO) {
    int64_t nb = (g + 1) * p->Cog - o0 < PN_NO ? (g + 1) * p->Cog - o0 : PN_NO;
    if (p->window_major) {
      /* W[oo]: feature o0 + oo's weights at strides wci, wky (features
       * past the group's last repeat feature o0, their sums unused) */
      const float *W[PN_NO];
      int64_t wci = p->k_si, wky = p->k_sy;
      for (int64_t oo = 0; oo < PN_NO; oo++) {
        int64_t o = o0 + (oo < nb ? oo : 0);
        if (p->w_direct) {
          W[oo] = k + o * p->k_so;
          continue;
        }
        float *Wb = Wp + oo * wsz;
        for (int64_t ci = 0; ci < p->Cig; ci++)
          for (int64_t ky = 0; ky < p->KY; ky++)
            for (int64_t kx = 0; kx < p->KX; kx++) {
              int64_t sy = p->rev_y ? p->KY - 1 - ky : ky, sx = p->rev_x ? p->KX - 1 - kx : kx;
              Wb[(ci * p->KY + ky) * p->KX + kx] =
                  k[o * p->k_so + ci * p->k_si + sy * p->k_sy + sx * p->k_sx];
            }
        W[oo] = Wb;
        wci = KW;
        wky = p->KX;
      }
      for (int64_t q0 = 0; q0 < p->OY * p->OX; q0 += GC_NT) {
        int nt = p->OY * p->OX - q0 < GC_NT ? (int)(p->OY * p->OX - q0) : GC_NT;
        p->wtilen32(p, P, W, wci, wky, q0, nt, sums + q0, nacc);
      }
    } else {
      /* Wp[ci][ky][kx][oo], window reversal applied */
      for (int64_t ci = 0; ci < p->Cig; ci++)
        for (int64_t ky = 0; ky < p->KY; ky++)
          for (int64_t kx = 0; kx < p->KX; kx++)
            for (int64_t oo = 0; oo < PN_NO; oo++) {
              int64_t sy = p->rev_y ? p->KY - 1 - ky : ky, sx = p->rev_x ? p->KX - 1 - kx : kx;
              Wp[((ci * p->KY + ky) * p->KX + kx) * PN_NO + oo] =
                  oo < nb ? k[(o0 + oo) * p->k_so + ci * p->k_si + sy * p->k_sy + sx * p->k_sx]
                          : 0.0f;
            }
      p->planen32(p, P, Wp, cols, sums, nacc);
    }
    for (int64_t oo = 0; oo < nb; oo++) {
      int64_t o = o0 + oo;
      const float *acc = sums + oo * nacc;
      SCATTER(float);
    }
  }
  hlo_free(j->alloc, cols);
  hlo_free(j->alloc, Wp);
  hlo_free(j->alloc, sums);
  return ok;
}

static void gc_item(void *ctx, int64_t i) {
  gc_job *j = ctx;
  const gc_plan *p = j->p;
  int64_t b = i / p->NG, g = i % p->NG;
  int64_t bi = p->FG > 1 ? b : g * p->OB + b, c0 = p->FG > 1 ? g * p->Cig : 0;
  int64_t es = p->f64 ? 8 : 4, plane = p->plane;
  int64_t nacc = p->OY * p->apitch;
  char *P = hlo_malloc(j->alloc, (size_t)(p->Cig * plane * es));
  /* acc: one depth's plane sums; with a window deeper than 1 they are
   * added into sum (second half) */
  /* the several-features path (gc_multi) keeps its own sums and weights */
  bool own = !p->multi;
  char *accv = own ? hlo_malloc(j->alloc, (size_t)(nacc * es * (p->KZ > 1 ? 2 : 1))) : NULL;
  int64_t KW = p->KY * p->KX, wsz = p->Cig * KW;
  char *Wb = own && !p->w_direct ? hlo_malloc(j->alloc, (size_t)(p->KZ * wsz * es)) : NULL;
  if (!P || (own && (!accv || (!p->w_direct && !Wb)))) {
    hlo_free(j->alloc, P);
    hlo_free(j->alloc, accv);
    hlo_free(j->alloc, Wb);
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  for (int64_t ci = 0; ci < p->Cig; ci++) {
    int64_t c = c0 + ci;
    memset(P + ci * plane * es, 0, (size_t)(plane * es));
    for (int64_t iz = 0; iz < p->IZ; iz++) {
      int64_t pz = p->pld + iz * p->ld;
      if (pz < 0 || pz >= p->PD) continue;
      char *Pv = P + (ci * plane + pz * p->zplane) * es;
      if (p->f64) MATERIALIZE(double);
      else MATERIALIZE(float);
    }
  }
  if (p->multi) {
    if (!gc_multi(j, b, g, (const float *)P)) __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    hlo_free(j->alloc, P);
    return;
  }
  for (int64_t o = g * p->Cog; o < (g + 1) * p->Cog; o++) {
    const char *Wo = j->k + o * p->k_so * es;
    int64_t wci = p->k_si, wky = p->k_sy, wkz = p->k_sd;
    if (!p->w_direct) {
      /* Wb[kz][ci][ky][kx], window reversal applied */
      for (int64_t kz = 0; kz < p->KZ; kz++)
        for (int64_t ci = 0; ci < p->Cig; ci++)
          for (int64_t ky = 0; ky < p->KY; ky++)
            for (int64_t kx = 0; kx < p->KX; kx++) {
              int64_t sz = p->rev_z ? p->KZ - 1 - kz : kz;
              int64_t sy = p->rev_y ? p->KY - 1 - ky : ky, sx = p->rev_x ? p->KX - 1 - kx : kx;
              memcpy(Wb + (((kz * p->Cig + ci) * p->KY + ky) * p->KX + kx) * es,
                     Wo + (sz * p->k_sd + ci * p->k_si + sy * p->k_sy + sx * p->k_sx) * es,
                     (size_t)es);
            }
      Wo = Wb;
      wci = KW;
      wky = p->KX;
      wkz = wsz;
    }
    for (int64_t oz = 0; oz < p->OZ; oz++) {
      /* planes of depth oz * sd + kz * rd, summed over kz in order */
      for (int64_t kz = 0; kz < p->KZ; kz++) {
        int64_t zo = (oz * p->sd + kz * p->rd) * p->zplane;
        if (p->f64) {
          double *acc = (double *)accv, *sum = acc + nacc;
          p->plane64(p, (const double *)P + zo, (const double *)Wo + kz * wkz, wci, wky, acc);
          if (p->KZ > 1)
            for (int64_t t = 0; t < nacc; t++) sum[t] = kz ? sum[t] + acc[t] : acc[t];
        } else {
          float *acc = (float *)accv, *sum = acc + nacc;
          p->plane32(p, (const float *)P + zo, (const float *)Wo + kz * wkz, wci, wky, acc);
          if (p->KZ > 1)
            for (int64_t t = 0; t < nacc; t++) sum[t] = kz ? sum[t] + acc[t] : acc[t];
        }
      }
      if (p->f64) {
        const double *acc = (const double *)accv + (p->KZ > 1 ? nacc : 0);
        SCATTER(double);
      } else {
        const float *acc = (const float *)accv + (p->KZ > 1 ? nacc : 0);
        SCATTER(float);
      }
    }
  }
  hlo_free(j->alloc, Wb);
  hlo_free(j->alloc, P);
  hlo_free(j->alloc, accv);
}

/* d[t * ds + l] = s[l * cs + t * es] for t < n, l < nl: nl channel rows
 * into lanes. */
static void dw_in(const gc_plan *p, float *d, int64_t ds, const float *s, int64_t cs, int64_t es,
                  int64_t n, int64_t nl) {
  if (nl == DWB && es == 1)
    p->tr(d, ds, s, cs, DWB, n);
  else
    for (int64_t t = 0; t < n; t++)
      for (int64_t l = 0; l < nl; l++) d[t * ds + l] = s[l * cs + t * es];
}

/* d[l * cs + t * es] = s[t * DWB + l]: lanes back to channel rows. */
static void dw_out(const gc_plan *p, float *d, int64_t cs, int64_t es, const float *s, int64_t n,
                   int64_t nl) {
  if (nl == DWB && es == 1)
    p->tr(d, cs, s, DWB, n, DWB);
  else
    for (int64_t t = 0; t < n; t++)
      for (int64_t l = 0; l < nl; l++) d[l * cs + t * es] = s[t * DWB + l];
}

static void prefetch_run(const void *a, int64_t bytes, bool write) {
  if (bytes > DW_AHEAD) return;
  for (int64_t o = 0; o < bytes; o += 64) {
    if (write) __builtin_prefetch((const char *)a + o, 1, 3);
    else __builtin_prefetch((const char *)a + o, 0, 3);
  }
}

/* Scratch of one depthwise item: X the padded interleaved input, T the
 * staging block of a whole-plane transpose, A the output sums. */
typedef struct dw_scratch {
  float *X, *T, *A;
  bool whole_in, whole_out;
  int64_t ix0, ix1; /* input columns landing inside [0, PW) */
} dw_scratch;

/* Channel rows c0 .. c0 + nl - 1 of input feature r (kernel input r) into
 * the lanes of K. */
static void dw_kernel_in(const gc_plan *p, const float *k, float *K, int64_t c0, int64_t r,
                         int64_t nl) {
  /* window reversal: rows and columns read backwards */
  const float *kc = k + c0 * p->k_so + r * p->k_si + (p->rev_x ? (p->KX - 1) * p->k_sx : 0);
  for (int64_t ky = 0; ky < p->KY; ky++)
    dw_in(p, K + ky * p->KX * DWB, DWB, kc + (p->rev_y ? p->KY - 1 - ky : ky) * p->k_sy, p->k_so,
          p->rev_x ? -p->k_sx : p->k_sx, p->KX, nl);
}

/* Output batch b of the channel block at c0 (nl channels).  K holds the
 * block's weights when kready (one input feature per output), else they
 * are interleaved here per input feature. */
static void dw_block(const gc_job *j, const dw_scratch *w, float *K, bool kready, int64_t b,
                     int64_t c0, int64_t nl) {
  const gc_plan *p = j->p;
  const float *x = (const float *)j->x, *k = (const float *)j->k;
  float *X = w->X, *T = w->T, *A = w->A;
  int64_t ix0 = w->ix0, ix1 = w->ix1;
  int64_t R = p->FG > 1 ? 1 : p->Cig; /* input features summed per output */
  memset(A, 0, sizeof(float) * (size_t)(p->OY * p->OX * DWB));
  for (int64_t r = 0; r < R; r++) {
    if (!kready) dw_kernel_in(p, k, K, c0, r, nl);
    /* input channel c of the block: feature c, or batch c * OB + b of feature r */
    const float *xc = x + (p->FG > 1 ? b * p->in_sb + c0 * p->in_sf
                                     : (c0 * p->OB + b) * p->in_sb + r * p->in_sf);
    int64_t xcs = p->FG > 1 ? p->in_sf : p->OB * p->in_sb;
    if (w->whole_in) p->tr(T, DWB, xc, xcs, nl, p->IY * p->IX);
    for (int64_t iy = 0; iy < p->IY && ix0 <= ix1; iy++) {
      int64_t py = p->ply + iy * p->ly;
      if (py < 0) continue;
      if (py >= p->PH) break;
      float *xd = X + (py * p->PW + p->plx + ix0 * p->lx) * DWB;
      if (!w->whole_in)
        dw_in(p, xd, p->lx * DWB, xc + iy * p->in_sy + ix0 * p->in_sx, xcs, p->in_sx,
              ix1 - ix0 + 1, nl);
      else if (p->lx == 1)
        memcpy(xd, T + (iy * p->IX + ix0) * DWB, sizeof(float) * (size_t)((ix1 - ix0 + 1) * DWB));
      else
        for (int64_t ix = ix0; ix <= ix1; ix++)
          memcpy(xd + (ix - ix0) * p->lx * DWB, T + (iy * p->IX + ix) * DWB, sizeof(float) * DWB);
    }
    p->dw32(p, X, K, A);
  }
  float *yb = (float *)j->y + b * p->out_sb + c0 * p->out_sf;
  if (w->whole_out)
    p->tr(yb, p->out_sf, A, DWB, p->OY * p->OX, nl);
  else
    for (int64_t oy = 0; oy < p->OY; oy++)
      dw_out(p, yb + oy * p->out_sy, p->out_sf, p->out_sx, A + oy * p->OX * DWB, p->OX, nl);
}

/* Item i of the depthwise path.  Block-major (large planes): channel block
 * i % nb over the output batches of part i / nb.  Batch-major (p->dw_bm:
 * small planes, one input feature per output): the batches of part i, each
 * over every channel block, so the input and output are read and written
 * in order; every block's weights are interleaved once, up front.  Lanes
 * past the last channel of a partial block compute on zeros (block-major)
 * or on another block's stale inputs (batch-major): lanes are independent
 * and those are never written out. */
static void dw_item(void *ctx, int64_t i) {
  gc_job *j = ctx;
  const gc_plan *p = j->p;
  int64_t nbk = p->dw_bm ? p->nb : 1; /* blocks whose weights are kept */
  int64_t bg = p->dw_bm ? i : i / p->nb;
  int64_t b0 = bg * p->OB / p->nbg, b1 = (bg + 1) * p->OB / p->nbg;
  dw_scratch w;
  w.whole_in = p->in_sx == 1 && p->in_sy == p->IX && p->IY * p->IX <= DW_WHOLE;
  w.whole_out = p->out_sx == 1 && p->out_sy == p->OX;
  int64_t xsz = p->PH * p->PW * DWB, ksz = p->KY * p->KX * DWB, asz = p->OY * p->OX * DWB;
  int64_t tsz = w.whole_in ? p->IY * p->IX * DWB : 0;
  float *X = hlo_malloc(j->alloc, sizeof(float) * (size_t)(xsz + nbk * ksz + tsz + asz));
  if (!X) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  /* padding, lhs-dilation holes and unused lanes are never written */
  memset(X, 0, sizeof(float) * (size_t)(xsz + nbk * ksz + tsz));
  float *K = X + xsz;
  w.X = X;
  w.T = K + nbk * ksz;
  w.A = w.T + tsz;
  w.ix0 = p->plx >= 0 ? 0 : (-p->plx + p->lx - 1) / p->lx;
  w.ix1 = p->PW - 1 - p->plx < 0 ? -1 : (p->PW - 1 - p->plx) / p->lx;
  if (w.ix1 > p->IX - 1) w.ix1 = p->IX - 1;
  const float *x = (const float *)j->x;
  float *y = (float *)j->y;
  if (p->dw_bm) {
    for (int64_t bk = 0; bk < p->nb; bk++) {
      int64_t c0 = bk * DWB;
      dw_kernel_in(p, (const float *)j->k, K + bk * ksz, c0, 0, p->NG - c0 < DWB ? p->NG - c0 : DWB);
    }
    for (int64_t b = b0; b < b1; b++)
      for (int64_t bk = 0; bk < p->nb; bk++) {
        int64_t c0 = bk * DWB;
        dw_block(j, &w, K + bk * ksz, true, b, c0, p->NG - c0 < DWB ? p->NG - c0 : DWB);
      }
  } else {
    int64_t c0 = i % p->nb * DWB, nl = p->NG - c0 < DWB ? p->NG - c0 : DWB;
    /* a block's planes are one run when planes are contiguous */
    bool run_in = p->FG > 1 && p->in_sx == 1 && p->in_sy == p->IX && p->in_sf == p->IY * p->IX;
    bool run_out = w.whole_out && p->out_sf == p->OY * p->OX;
    for (int64_t b = b0; b < b1; b++) {
      if (b + 1 < b1 && run_in)
        prefetch_run(x + (b + 1) * p->in_sb + c0 * p->in_sf, (int64_t)sizeof(float) * nl * p->in_sf, false);
      if (b + 1 < b1 && run_out)
        prefetch_run(y + (b + 1) * p->out_sb + c0 * p->out_sf, (int64_t)sizeof(float) * nl * p->out_sf, true);
      /* one input feature per output: the weights stay from the first batch */
      dw_block(j, &w, K, p->FG > 1 && b > b0, b, c0, nl);
    }
  }
  hlo_free(j->alloc, X);
}

/* f32 copy of a f16/bf16 array (same index order). */
static float *widen(const hlo_allocator *alloc, const hlo_val *v) {
  float *f = hlo_malloc(alloc, sizeof(float) * (size_t)v->nelems + 8);
  if (!f) return NULL;
  const uint16_t *h = v->data;
  bool bf = v->shape->type == HLO_BF16;
  for (int64_t i = 0; i < v->nelems; i++) f[i] = bf ? hlo_bf16_to_f32(h[i]) : hlo_f16_to_f32(h[i]);
  return f;
}

DECL_KERN(hlo_fast_gconv) {
  const gc_plan *p = s->p;
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
  float *hx = NULL, *hk = NULL, *hy = NULL;
  if (p->half) {
    hx = widen(r->alloc, args[0]);
    hk = widen(r->alloc, args[1]);
    hy = hlo_malloc(r->alloc, sizeof(float) * (size_t)o->nelems + 8);
    if (!hx || !hk || !hy) {
      hlo_free(r->alloc, hx);
      hlo_free(r->alloc, hk);
      hlo_free(r->alloc, hy);
      hlo_run_release(r, o);
      return hlo_run_errorf(r, in, "out of memory");
    }
  }
  int64_t KW = p->KY * p->KX;
  gc_job j = {p, p->half ? (const char *)hx : args[0]->data,
              p->half ? (const char *)hk : args[1]->data, p->half ? (char *)hy : o->data,
              r->alloc, 0};
  int64_t items = p->OB * p->NG;
  int64_t work = items * p->Cog * p->Cig * p->OZ * p->KZ * p->OY * p->OX * KW;
  if (p->dw)
    hlo_fast_parallel(work >= (1 << 18) ? p->pool : NULL, p->dw_bm ? p->nbg : p->nb * p->nbg,
                      dw_item, &j);
  else
    hlo_fast_parallel(work >= (1 << 18) ? p->pool : NULL, items, gc_item, &j);
  if (p->half && !j.failed) {
    uint16_t *h = o->data;
    for (int64_t i = 0; i < o->nelems; i++)
      h[i] = p->half == HLO_BF16 ? hlo_f32_to_bf16(hy[i]) : hlo_f32_to_f16(hy[i]);
  }
  hlo_free(r->alloc, hx);
  hlo_free(r->alloc, hk);
  hlo_free(r->alloc, hy);
  if (j.failed) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, in, "out of memory");
  }
  *out = o;
  return HLO_OK;
}
