/* fast_transpose.c - transpose on the fast path.  At plan time the
 * permutation is reduced (size-1 dims dropped, dims that stay adjacent
 * merged); then an identity is one memcpy, a permutation that keeps the
 * innermost dim copies whole runs, and any other is a cache-blocked 2-D
 * transpose of the two dims that trade places innermost (64x64 tiles
 * through a local buffer, 4x4 / 2x2 SSE2 blocks for 4- and 8-byte
 * elements), repeated over the other dims, split across threads by tile
 * columns. */
#include <string.h>

#include "core/bug.h"
#include "exec/fast.h"
#ifdef HLO_FAST_X86
#include <emmintrin.h>
#endif

#define TILE 64
#define PAR_BYTES ((int64_t)1 << 20) /* smaller results run on one thread */

typedef struct tr_plan {
  int r;                /* reduced rank */
  int64_t dims[MAXR];   /* reduced input dims */
  int perm[MAXR];       /* output dim d = reduced input dim perm[d] */
  int es;
  hlo_fast_pool *pool;
} tr_plan;

/* Reduce (dims, perm) of rank n: drop size-1 dims, merge runs of output
 * dims that are consecutive input dims.  Returns the reduced rank. */
static int reduce_perm(int n, const int64_t *dims, const int64_t *perm, int64_t *rd, int *rp) {
  int keep[MAXR], newidx[MAXR], m = 0;
  for (int d = 0; d < n; d++) newidx[d] = -1;
  for (int d = 0; d < n; d++)
    if (dims[d] != 1) { newidx[d] = m; keep[m++] = d; }
  int p[MAXR], k = 0;
  for (int d = 0; d < n; d++)
    if (newidx[perm[d]] >= 0) p[k++] = newidx[perm[d]];
  /* groups of output dims whose input dims are consecutive */
  int gstart[MAXR], glen[MAXR], ng = 0;
  for (int d = 0; d < k; d++) {
    if (ng && p[d] == gstart[ng - 1] + glen[ng - 1]) glen[ng - 1]++;
    else { gstart[ng] = p[d]; glen[ng] = 1; ng++; }
  }
  /* rank of each group in input order */
  for (int g = 0; g < ng; g++) {
    int rank = 0;
    for (int h = 0; h < ng; h++) rank += gstart[h] < gstart[g];
    rp[g] = rank;
    int64_t sz = 1;
    for (int j = 0; j < glen[g]; j++) sz *= dims[keep[gstart[g] + j]];
    rd[rank] = sz;
  }
  return ng;
}

bool hlo_fast_plan_transpose(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (in->noperands != 1 || !hlo_shape_is_array(&in->shape)) return false;
  const hlo_shape *is = &in->operands[0]->shape;
  int n = 0;
  const int64_t *perm = hlo_instr_ints(in, HLO_A_DIMENSIONS, &n);
  if (!perm || n != is->rank || n != in->shape.rank || n > MAXR || !hlo_shape_is_array(is)) return false;
  bool seen[MAXR] = {false};
  for (int d = 0; d < n; d++) {
    if (perm[d] < 0 || perm[d] >= n || seen[perm[d]]) return false;
    seen[perm[d]] = true;
  }
  int es = hlo_type_bytes(is->type);
  if (es < 1 || is->type != in->shape.type) return false;
  tr_plan p = {0};
  p.r = reduce_perm(n, is->dims, perm, p.dims, p.perm);
  p.es = es;
  p.pool = e->pool;
  tr_plan *pp = hlo_arena_alloc(&e->arena, sizeof *pp);
  if (!pp) return false;
  *pp = p;
  s->p = pp;
  s->fn = hlo_fast_transpose;
  bool ident = true;
  for (int d = 0; d < p.r; d++) ident = ident && p.perm[d] == d;
  s->kname = ident ? "hlo_fast_transpose(copy)"
           : p.perm[p.r - 1] == p.r - 1 ? "hlo_fast_transpose(runs)" : "hlo_fast_transpose(tiled)";
  return true;
}

/* ---- 2-D tile kernels ---------------------------------------------------------
 * dst[c * dld + r] = src[r * sld + c] for r < R, c < C (element type T). */
#define TILE_SCALAR(T)                                                           \
  static void tile_##T(T *dst, int64_t dld, const T *src, int64_t sld, int R, int C) { \
    for (int c = 0; c < C; c++)                                                  \
      for (int r = 0; r < R; r++) dst[c * dld + r] = src[r * sld + c];            \
  }
TILE_SCALAR(uint8_t)
TILE_SCALAR(uint16_t)
TILE_SCALAR(uint32_t)
TILE_SCALAR(uint64_t)

static void tile4(uint32_t *dst, int64_t dld, const uint32_t *src, int64_t sld, int R, int C) {
#ifdef HLO_FAST_X86
  int r4 = R & ~3, c4 = C & ~3;
  for (int r = 0; r < r4; r += 4)
    for (int c = 0; c < c4; c += 4) {
      const uint32_t *s = src + r * sld + c;
      __m128 a = _mm_loadu_ps((const float *)s), b = _mm_loadu_ps((const float *)(s + sld));
      __m128 x = _mm_loadu_ps((const float *)(s + 2 * sld)), y = _mm_loadu_ps((const float *)(s + 3 * sld));
      _MM_TRANSPOSE4_PS(a, b, x, y);
      uint32_t *d = dst + c * dld + r;
      _mm_storeu_ps((float *)d, a);
      _mm_storeu_ps((float *)(d + dld), b);
      _mm_storeu_ps((float *)(d + 2 * dld), x);
      _mm_storeu_ps((float *)(d + 3 * dld), y);
    }
  if (c4 < C) tile_uint32_t(dst + c4 * dld, dld, src + c4, sld, r4, C - c4);
  if (r4 < R) tile_uint32_t(dst + r4, dld, src + r4 * sld, sld, R - r4, C);
#else
  tile_uint32_t(dst, dld, src, sld, R, C);
#endif
}

static void tile8(uint64_t *dst, int64_t dld, const uint64_t *src, int64_t sld, int R, int C) {
#ifdef HLO_FAST_X86
  int r2 = R & ~1, c2 = C & ~1;
  for (int r = 0; r < r2; r += 2)
    for (int c = 0; c < c2; c += 2) {
      const uint64_t *s = src + r * sld + c;
      __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + sld));
      uint64_t *d = dst + c * dld + r;
      _mm_storeu_si128((__m128i *)d, _mm_unpacklo_epi64(a, b));
      _mm_storeu_si128((__m128i *)(d + dld), _mm_unpackhi_epi64(a, b));
    }
  if (c2 < C) tile_uint64_t(dst + c2 * dld, dld, src + c2, sld, r2, C - c2);
  if (r2 < R) tile_uint64_t(dst + r2, dld, src + r2 * sld, sld, R - r2, C);
#else
  tile_uint64_t(dst, dld, src, sld, R, C);
#endif
}

static void tile_any(char *dst, int64_t dld, const char *src, int64_t sld, int R, int C, int es) {
  switch (es) {
  case 1: tile_uint8_t((uint8_t *)dst, dld, (const uint8_t *)src, sld, R, C); break;
  case 2: tile_uint16_t((uint16_t *)dst, dld, (const uint16_t *)src, sld, R, C); break;
  case 4: tile4((uint32_t *)dst, dld, (const uint32_t *)src, sld, R, C); break;
  case 8: tile8((uint64_t *)dst, dld, (const uint64_t *)src, sld, R, C); break;
  default:
    for (int c = 0; c < C; c++)
      for (int r = 0; r < R; r++)
        memcpy(dst + (c * dld + r) * es, src + (r * sld + c) * es, (size_t)es);
  }
}

/* ---- the kernel ------------------------------------------------------------------ */
typedef struct tr_job {
  const tr_plan *p;
  const char *src;
  char *dst;
  int64_t ist[MAXR], ost[MAXR], odims[MAXR];
  int a, b;             /* input dim that becomes innermost; output dim of the input's innermost */
  int nouter, outer[MAXR]; /* output dims other than b and r-1 */
  int64_t R, C, ncb;    /* 2-D block: R rows (input dim a), C columns (input innermost) */
} tr_job;

/* Item = (outer index, block of TILE columns). */
static void tr_item(void *ctx, int64_t item) {
  tr_job *j = ctx;
  int64_t o = item / j->ncb, c0 = (item % j->ncb) * TILE;
  int64_t so = 0, dso = 0;
  for (int k = j->nouter - 1; k >= 0; k--) {
    int d = j->outer[k];
    int64_t i = o % j->odims[d];
    o /= j->odims[d];
    so += i * j->ist[j->p->perm[d]];
    dso += i * j->ost[d];
  }
  int es = j->p->es;
  int64_t sld = j->ist[j->a], dld = j->ost[j->b];
  int cw = (int)(j->C - c0 < TILE ? j->C - c0 : TILE);
  /* each tile goes through a local buffer: the source rows are read
   * 4 at a time and the result rows written whole, so power-of-two strides
   * (every row in the same cache set) do not evict lines half used */
  _Alignas(64) char buf[TILE * TILE * 8];
  for (int64_t r0 = 0; r0 < j->R; r0 += TILE) {
    int rh = (int)(j->R - r0 < TILE ? j->R - r0 : TILE);
    if (es > 8) {
      tile_any(j->dst + (dso + c0 * dld + r0) * es, dld, j->src + (so + r0 * sld + c0) * es, sld,
               rh, cw, es);
      continue;
    }
    tile_any(buf, TILE, j->src + (so + r0 * sld + c0) * es, sld, rh, cw, es);
    for (int c = 0; c < cw; c++)
      memcpy(j->dst + (dso + (c0 + c) * dld + r0) * es, buf + c * TILE * es, (size_t)(rh * es));
  }
}

/* Innermost dim kept: copy runs of the last reduced dim, items = runs. */
static void run_item(void *ctx, int64_t item) {
  tr_job *j = ctx;
  const tr_plan *p = j->p;
  int r = p->r;
  int64_t o = item, so = 0;
  for (int d = r - 2; d >= 0; d--) {
    int64_t i = o % j->odims[d];
    o /= j->odims[d];
    so += i * j->ist[p->perm[d]];
  }
  size_t len = (size_t)(p->dims[r - 1] * p->es);
  memcpy(j->dst + item * (int64_t)len, j->src + so * p->es, len);
}

DECL_KERN(hlo_fast_transpose) {
  const tr_plan *p = s->p;
  HLO_ASSERT(!(args[0]->ntuple)); /* planned for these shapes */
  hlo_val *o = hlo_run_new_raw(r, &s->in->shape);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  int64_t total = 1;
  for (int d = 0; d < p->r; d++) total *= p->dims[d];
  if (o->nbytes != args[0]->nbytes || (size_t)total * (size_t)p->es != o->nbytes) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "operand does not match the result");
  }
  *out = o;
  if (o->nbytes == 0) return HLO_OK;
  bool ident = true;
  for (int d = 0; d < p->r; d++) ident = ident && p->perm[d] == d;
  if (ident) {
    memcpy(o->data, args[0]->data, o->nbytes);
    return HLO_OK;
  }
  tr_job j = {0};
  j.p = p;
  j.src = args[0]->data;
  j.dst = o->data;
  int rk = p->r;
  int64_t acc = 1;
  for (int d = rk - 1; d >= 0; d--) { j.ist[d] = acc; acc *= p->dims[d]; }
  for (int d = 0; d < rk; d++) j.odims[d] = p->dims[p->perm[d]];
  acc = 1;
  for (int d = rk - 1; d >= 0; d--) { j.ost[d] = acc; acc *= j.odims[d]; }
  hlo_fast_pool *nth = (int64_t)o->nbytes >= PAR_BYTES ? p->pool : NULL;
  if (p->perm[rk - 1] == rk - 1) {
    hlo_fast_parallel(nth, total / p->dims[rk - 1], run_item, &j);
    return HLO_OK;
  }
  j.a = p->perm[rk - 1];
  for (int d = 0; d < rk; d++)
    if (p->perm[d] == rk - 1) j.b = d;
  int64_t outer = 1;
  for (int d = 0; d < rk - 1; d++)
    if (d != j.b) { j.outer[j.nouter++] = d; outer *= j.odims[d]; }
  j.R = p->dims[j.a];
  j.C = p->dims[rk - 1];
  j.ncb = (j.C + TILE - 1) / TILE;
  hlo_fast_parallel(nth, outer * j.ncb, tr_item, &j);
  return HLO_OK;
}
