/* fast_sort.c - sort on the fast path: a stable radix sort of numeric keys
 * (pred, 8..64-bit ints, f16/bf16/f32/f64) under a plain comparator
 * (compare of operand 0's two elements, LT or GT), key only or as (key,
 * index) pairs whose permutation then moves every operand.  Rows holding
 * NaN send the whole sort to the reference kernel. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* the key and counting loops */
#endif
#include <string.h>

#include "core/bug.h"
#include "exec/fast.h"

/* Rows of a work item hold at least this many elements (threads). */
#define SORT_ITEM_ELEMS ((int64_t)1 << 16)

typedef struct sort_plan {
  int bits;         /* storage bits of operand 0's elements: 8, 16, 32, 64 */
  bool isfloat;     /* IEEE float: sign-magnitude key, -0 as +0, NaN check */
  bool sgn;         /* two's complement order */
  bool pred;        /* key = element != 0 */
  bool desc;        /* GT: keys complemented */
  bool perm;        /* sort (key, index) pairs and permute every operand */
  int dim, N;
  hlo_fast_pool *pool;
} sort_plan;

/* Direction of a comparator that compares only operand 0's two elements:
 * 0 for LT (ascending), 1 for GT, -1 when it is anything else. */
static int plain_cmp(const hlo_computation *c, int N, const sort_plan *p, hlo_type t) {
  if (!c || c->nparams != 2 * N || !c->root || c->root->op != HLO_OP_COMPARE) return -1;
  const hlo_instruction *r = c->root;
  if (r->noperands != 2) return -1;
  bool swapped;
  if (r->operands[0] == c->params[0] && r->operands[1] == c->params[1]) swapped = false;
  else if (r->operands[0] == c->params[1] && r->operands[1] == c->params[0]) swapped = true;
  else return -1;
  if (c->params[0]->shape.type != t || c->params[1]->shape.type != t ||
      c->params[0]->shape.rank != 0 || c->params[1]->shape.rank != 0)
    return -1;
  int dir, ct;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  int rc = hlo_cmp_attrs(r, &dir, &ct, &d);
  hlo_diags_release(&d);
  if (rc || ct == CMPT_TOTALORDER) return -1;
  if (p->isfloat ? ct != CMPT_DEFAULT && ct != CMPT_FLOAT : ct == CMPT_FLOAT) return -1;
  int desc = dir == CMP_LT ? 0 : dir == CMP_GT ? 1 : -1;
  return desc < 0 ? -1 : swapped ? !desc : desc;
}

bool hlo_fast_plan_sort(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  int N = in->noperands;
  if (N < 1 || N > 16 || in->ncalled != 1) return false;
  const hlo_shape *ks = &in->operands[0]->shape;
  if (!hlo_shape_is_array(ks)) return false;
  for (int i = 1; i < N; i++) {
    const hlo_shape *os = &in->operands[i]->shape;
    if (!hlo_shape_is_array(os) || os->rank != ks->rank) return false;
    for (int d = 0; d < ks->rank; d++)
      if (os->dims[d] != ks->dims[d]) return false;
  }
  sort_plan p = {0};
  hlo_type t = ks->type;
  hlo_type_kind k = hlo_type_kind_of(t);
  switch (t) {
  case HLO_PRED: p.pred = true; p.bits = 8; break;
  case HLO_S8: case HLO_U8: p.bits = 8; break;
  case HLO_S16: case HLO_U16: case HLO_F16: case HLO_BF16: p.bits = 16; break;
  case HLO_S32: case HLO_U32: case HLO_F32: p.bits = 32; break;
  case HLO_S64: case HLO_U64: case HLO_F64: p.bits = 64; break;
  default: return false;
  }
  p.isfloat = k == HLO_KIND_FLOAT;
  int desc = plain_cmp(in->called[0], N, &p, t);
  int nd = 0;
  const int64_t *dm = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (desc < 0 || nd != 1 || !dm || dm[0] < 0 || dm[0] >= ks->rank) return false;
  if (ks->dims[dm[0]] > (int64_t)UINT32_MAX) return false; /* indices are 32-bit */
  /* signedness of the comparison (hlo_ref_compare): type= overrides the
   * element kind; unsigned ints narrower than 64 bits compare alike */
  int ct = CMPT_DEFAULT, dir;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_cmp_attrs(in->called[0]->root, &dir, &ct, &d);
  hlo_diags_release(&d);
  p.sgn = k == HLO_KIND_SINT && ct != CMPT_UNSIGNED;
  if (t == HLO_U64 && ct == CMPT_SIGNED) p.sgn = true;
  p.desc = desc;
  p.perm = N > 1 || p.pred;
  p.dim = (int)dm[0];
  p.N = N;
  p.pool = e->pool;
  sort_plan *pp = hlo_arena_alloc(&e->arena, sizeof *pp);
  if (!pp) return false;
  *pp = p;
  s->p = pp;
  s->fn = hlo_fast_sort;
  s->kname = p.perm ? "hlo_fast_sort(radix, permute)" : "hlo_fast_sort(radix)";
  return true;
}

/* ---- keys ---------------------------------------------------------------------
 * Element bits b (width w, sign bit S, mask M) map to an unsigned key whose
 * order is the comparator's: floats flip all bits of negatives and set the
 * sign bit of the rest (-0 takes +0's key, NaN is reported), two's
 * complement flips the sign bit; GT complements the key.  Returns the
 * number of -0 elements, or -1 at a NaN. */
typedef struct key_fmt {
  uint64_t S, M, inf; /* sign bit, width mask, bits of +inf */
  bool isfloat, sgn, pred;
  uint64_t x;         /* final xor (M for GT) */
  const void *src;    /* operand 0's data */
} key_fmt;

static key_fmt fmt_of(const sort_plan *p) {
  key_fmt f;
  f.M = p->bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << p->bits) - 1;
  f.S = (uint64_t)1 << (p->bits - 1);
  f.inf = p->bits == 64 ? 0x7ff0000000000000ull : p->bits == 32 ? 0x7f800000u : 0;
  f.isfloat = p->isfloat;
  f.sgn = p->sgn;
  f.pred = p->pred;
  f.x = p->desc ? f.M : 0;
  return f;
}

static inline uint64_t key_of(const key_fmt *f, uint64_t b) {
  if (f->pred) return (uint64_t)(b != 0) ^ f->x;
  if (f->isfloat) {
    b = b == f->S ? 0 : b;                         /* -0 -> +0 */
    uint64_t neg = (uint64_t)0 - ((b & f->S) != 0); /* all ones if negative */
    return b ^ ((neg & f->M) | f->S) ^ f->x;
  }
  return (f->sgn ? b ^ f->S : b) ^ f->x;
}

static inline uint64_t bits_of(const key_fmt *f, uint64_t k) {
  k ^= f->x;
  if (f->isfloat) {
    uint64_t neg = (uint64_t)0 - ((k & f->S) == 0);
    return k ^ ((neg & f->M) | f->S);
  }
  return f->sgn ? k ^ f->S : k;
}

/* ---- radix sort of one row ---------------------------------------------------
 * Short rows (up to SHORT_ROW): insertion sort.  Rows below MSD_MIN: LSD
 * with 8-bit digits; the pass that loads the keys also counts every digit,
 * a pass whose digit is the same for all keys is skipped, and the last pass
 * of a key-only sort writes the elements (transformed back) straight into
 * the result row.
 * Long rows: one most-significant-digit pass first, on the top MSD_BITS of
 * the bits in which the row's keys differ (found from the smallest and
 * largest key), which leaves buckets that mostly fit in the L2 cache; each
 * bucket is then sorted by LSD on its remaining bits while cache-resident,
 * and buckets are shared among threads.  The load, count and MSD scatter
 * run in chunks on separate threads (chunk c's elements of a digit value go
 * after chunk c-1's).  Every step is stable, so the result never depends
 * on the thread count. */
#define DB 8
#define NB (1u << DB)
#define MAX_CHUNKS 8
#define CHUNK_MIN ((int64_t)1 << 16) /* elements per chunk of a long row */
#define SHORT_ROW 32                  /* rows up to this long: insertion sort */
#define MSD_MIN ((int64_t)1 << 15)    /* rows from this long: MSD pass first */
#define MSD_BITS 11                   /* width of the MSD digit */
#define MSD_NB (1u << MSD_BITS)
#define BUCKET_SHORT 48               /* buckets up to this long: insertion sort */
#define LSD_MAX_PASSES 7              /* of a bucket: 53 remaining bits in digits of >= 8 */

typedef struct radix_row {
  const key_fmt *f;
  int bits, nd;        /* element storage bits, digits (count slots per chunk) */
  int64_t n, base, stride;
  int C;               /* chunks */
  uint32_t *hist;      /* C * nd * hs counters */
  uint32_t hs, mask;   /* counters per digit, digit mask */
  void *k, *kt;        /* keys (4 or 8 bytes) and their second buffer */
  uint32_t *ix, *ixt;  /* permutation and its second buffer, or NULL */
  void *dst;           /* key-only result row */
  int64_t nz[MAX_CHUNKS], nlt[MAX_CHUNKS]; /* -0 elements; keys below +0's */
  uint64_t kmin[MAX_CHUNKS], kmax[MAX_CHUNKS];
  int nan[MAX_CHUNKS];
  int sh, dig;         /* digit shift and slot of the running pass */
  bool final;          /* the running pass writes dst */
  bool ident;          /* the running pass reads the identity permutation */
  uint32_t *bstart;    /* MSD: MSD_NB + 1 bucket starts */
  uint32_t *items;     /* MSD: bucket index where each work item starts, + end */
} radix_row;

static int64_t chunk_lo(const radix_row *w, int c) { return w->n * c / w->C; }

#define LOAD_KEYS(K, T)                                                          \
  if (nd == 0) LOAD_KEYS_ND(K, T, 0)                                             \
  else LOAD_KEYS_ND(K, T, (int)((8 * sizeof(T) + DB - 1) / DB))
#define LOAD_KEYS_ND(K, T, ND)                                                   \
  for (int64_t i = i0; i < i1; i++) {                                           \
    uint64_t b = ((const T *)src)[base + i * stride];                            \
    if (f->isfloat) {                                                            \
      if ((b & ~f->S) > inf) { w->nan[c] = 1; return; }                          \
      nz += b == f->S;                                                           \
    }                                                                            \
    K v = (K)key_of(f, b);                                                       \
    ((K *)w->k)[i] = v;                                                          \
    nlt += v < zk;                                                               \
    CNT(0, ND) CNT(1, ND) CNT(2, ND) CNT(3, ND) CNT(4, ND) CNT(5, ND) CNT(6, ND) CNT(7, ND) \
  }
#define CNT(d, ND)                                                               \
  if ((d) < (ND)) h[(d) * NB + ((uint32_t)(v >> ((d) * DB % (8 * sizeof v))) & (NB - 1))]++;

/* Chunk c of a row below MSD_MIN: keys of its elements and (w->nd > 0) the
 * counts of every 8-bit digit; nan[c] at a NaN. */
static void load_chunk(void *ctx, int64_t ci) {
  radix_row *w = ctx;
  int c = (int)ci, nd = w->n <= SHORT_ROW ? 0 : w->nd; /* short rows: no counts */
  const key_fmt *f = w->f;
  int64_t i0 = chunk_lo(w, c), i1 = chunk_lo(w, c + 1), base = w->base, stride = w->stride;
  int64_t nz = 0, nlt = 0;
  uint64_t inf = f->inf, zk = key_of(f, 0);
  uint32_t *h = w->hist + (size_t)c * (size_t)nd * NB;
  memset(h, 0, sizeof(uint32_t) * NB * (size_t)nd);
  w->nan[c] = 0;
  const void *src = f->src;
  switch (w->bits) {
  case 8: LOAD_KEYS(uint32_t, uint8_t); break;
  case 16: LOAD_KEYS(uint32_t, uint16_t); break;
  case 32: LOAD_KEYS(uint32_t, uint32_t); break;
  default: LOAD_KEYS(uint64_t, uint64_t); break;
  }
  w->nz[c] = nz;
  w->nlt[c] = nlt;
}

/* A long row's chunk c: keys, their range, NaN, -0 and below-+0 counts in
 * one branch-free pass the compiler vectorizes (floats and ints of 32 and
 * 64 bits read contiguously). */
#define MSD_LOAD(K, T, KEY)                                                      \
  do {                                                                           \
    typedef K kty;                                                               \
    const K S = (K)f->S, M = (K)f->M, inf = (K)f->inf, x = (K)f->x;               \
    const K sx = f->sgn ? S : 0, zk = (K)key_of(f, 0);                          \
    K mn = (K)~(K)0, mx = 0, nanv = 0, nzv = 0, nltv = 0, *kk = w->k;            \
    const T *sp = (const T *)src + base;                                         \
    (void)M; (void)inf; (void)sx; (void)(kty)0;                                  \
    if (stride == 1) {                                                           \
      for (int64_t i = i0; i < i1; i++) {                                       \
        K b = sp[i];                                                             \
        K v = (K)(KEY);                                                          \
        kk[i] = v;                                                               \
        nltv += v < zk;                                                          \
        mn = v < mn ? v : mn;                                                    \
        mx = v > mx ? v : mx;                                                    \
      }                                                                          \
    } else {                                                                     \
      for (int64_t i = i0; i < i1; i++) {                                       \
        K b = sp[i * stride];                                                    \
        K v = (K)(KEY);                                                          \
        kk[i] = v;                                                               \
        nltv += v < zk;                                                          \
        mn = v < mn ? v : mn;                                                    \
        mx = v > mx ? v : mx;                                                    \
      }                                                                          \
    }                                                                            \
    w->kmin[c] = mn;                                                             \
    w->kmax[c] = mx;                                                             \
    nan = nanv != 0;                                                             \
    nz = (int64_t)nzv;                                                           \
    nlt = (int64_t)nltv;                                                         \
  } while (0)
/* float bits b to a key: NaN and -0 noted, -0 as +0 */
#define FLOAT_KEY                                                                \
  (nanv |= (b & ~S) > inf, nzv += b == S, b = b == S ? 0 : b,                    \
   b ^ ((((kty)0 - (kty)((b & S) != 0)) & M) | S) ^ x)
#define MSD_LOAD_T(K, T)                                                         \
  do {                                                                           \
    if (f->isfloat) MSD_LOAD(K, T, FLOAT_KEY);                                   \
    else if (f->pred) MSD_LOAD(K, T, (kty)(b != 0) ^ x);                           \
    else MSD_LOAD(K, T, b ^ sx ^ x);                                             \
  } while (0)

static void msd_load_chunk(void *ctx, int64_t ci) {
  radix_row *w = ctx;
  int c = (int)ci;
  const key_fmt *f = w->f;
  int64_t i0 = chunk_lo(w, c), i1 = chunk_lo(w, c + 1), base = w->base, stride = w->stride;
  int64_t nz = 0, nlt = 0;
  int nan = 0;
  const void *src = f->src;
  switch (w->bits) {
  case 8: MSD_LOAD_T(uint32_t, uint8_t); break;
  case 16: MSD_LOAD_T(uint32_t, uint16_t); break;
  case 32: MSD_LOAD_T(uint32_t, uint32_t); break;
  default: MSD_LOAD_T(uint64_t, uint64_t); break;
  }
  w->nan[c] = nan;
  w->nz[c] = nz;
  w->nlt[c] = nlt;
}

#define SCATTER(K)                                                               \
  do {                                                                           \
    const K *k = w->k;                                                           \
    K *kt = w->kt;                                                               \
    if (w->final) {                                                              \
      switch (w->bits) {                                                         \
      case 8: SCATTER_OUT(K, uint8_t); break;                                    \
      case 16: SCATTER_OUT(K, uint16_t); break;                                  \
      case 32: SCATTER_OUT(K, uint32_t); break;                                  \
      default: SCATTER_OUT(K, uint64_t); break;                                  \
      }                                                                          \
    } else if (w->ixt && w->ident) {                                             \
      for (int64_t i = i0; i < i1; i++) {                                        \
        K v = k[i];                                                              \
        uint32_t pos = h[(v >> sh) & mask]++;                                    \
        kt[pos] = v;                                                             \
        w->ixt[pos] = (uint32_t)i;                                               \
      }                                                                          \
    } else if (w->ixt) {                                                         \
      for (int64_t i = i0; i < i1; i++) {                                        \
        K v = k[i];                                                              \
        uint32_t pos = h[(v >> sh) & mask]++;                                    \
        kt[pos] = v;                                                             \
        w->ixt[pos] = w->ix[i];                                                  \
      }                                                                          \
    } else {                                                                     \
      for (int64_t i = i0; i < i1; i++) {                                        \
        K v = k[i];                                                              \
        kt[h[(v >> sh) & mask]++] = v;                                           \
      }                                                                          \
    }                                                                            \
  } while (0)
#define SCATTER_OUT(K, T)                                                        \
  for (int64_t i = i0; i < i1; i++) {                                           \
    K v = k[i];                                                                  \
    ((T *)dst)[base + (int64_t)h[(v >> sh) & mask]++ * stride] = (T)bits_of(f, v); \
  }

/* Chunk c moves its elements by the running digit (offsets in its counters). */
static void scatter_chunk(void *ctx, int64_t ci) {
  radix_row *w = ctx;
  int c = (int)ci, sh = w->sh;
  uint32_t mask = w->mask;
  const key_fmt *f = w->f;
  int64_t i0 = chunk_lo(w, c), i1 = chunk_lo(w, c + 1), base = w->base, stride = w->stride;
  uint32_t *h = w->hist + ((size_t)c * (size_t)w->nd + (size_t)w->dig) * w->hs;
  void *dst = w->dst;
  if (w->bits == 64) SCATTER(uint64_t);
  else SCATTER(uint32_t);
}

/* Chunk c counts the running digit of its part of the keys. */
static void count_chunk(void *ctx, int64_t ci) {
  radix_row *w = ctx;
  int c = (int)ci, sh = w->sh;
  uint32_t mask = w->mask;
  int64_t i0 = chunk_lo(w, c), i1 = chunk_lo(w, c + 1);
  uint32_t *h = w->hist + ((size_t)c * (size_t)w->nd + (size_t)w->dig) * w->hs;
  memset(h, 0, sizeof(uint32_t) * w->hs);
  if (w->bits == 64)
    for (int64_t i = i0; i < i1; i++) h[(((const uint64_t *)w->k)[i] >> sh) & mask]++;
  else
    for (int64_t i = i0; i < i1; i++) h[(((const uint32_t *)w->k)[i] >> sh) & mask]++;
}

/* Counters of the running digit become each chunk's first position of
 * each digit value: by digit value, then by chunk.  bstart (if not NULL)
 * gets each digit value's first position over all chunks, and the total. */
static void offsets(radix_row *w, uint32_t *bstart) {
  uint32_t sum = 0;
  for (uint32_t b = 0; b < w->hs; b++) {
    if (bstart) bstart[b] = sum;
    for (int c = 0; c < w->C; c++) {
      uint32_t *h = &w->hist[((size_t)c * (size_t)w->nd + (size_t)w->dig) * w->hs + b];
      uint32_t cnt = *h;
      *h = sum;
      sum += cnt;
    }
  }
  if (bstart) bstart[w->hs] = sum;
}

#define STORE_OUT(K, T)                                                          \
  for (int64_t i = 0; i < n; i++) ((T *)dst)[base + i * stride] = (T)bits_of(f, ((const K *)keys)[i]);

/* Elements of keys [0, n) (transformed back) to dst at base + i * stride. */
static void store_out(const radix_row *w, const void *keys, int64_t n, int64_t base) {
  const key_fmt *f = w->f;
  void *dst = w->dst;
  int64_t stride = w->stride;
  switch (w->bits) {
  case 8: STORE_OUT(uint32_t, uint8_t); break;
  case 16: STORE_OUT(uint32_t, uint16_t); break;
  case 32: STORE_OUT(uint32_t, uint32_t); break;
  default: STORE_OUT(uint64_t, uint64_t); break;
  }
}

/* Stable insertion sort of a short row (with its payload when not NULL). */
#define INSERTION(NAME, K)                                                       \
  static void NAME(K *k, uint32_t *ix, int64_t n) {                              \
    for (int64_t i = 1; i < n; i++) {                                             \
      K v = k[i];                                                                 \
      uint32_t x = ix ? ix[i] : 0;                                                \
      int64_t j = i;                                                              \
      for (; j > 0 && v < k[j - 1]; j--) {                                        \
        k[j] = k[j - 1];                                                          \
        if (ix) ix[j] = ix[j - 1];                                                \
      }                                                                           \
      k[j] = v;                                                                   \
      if (ix) ix[j] = x;                                                          \
    }                                                                             \
  }
INSERTION(insertion32, uint32_t)
INSERTION(insertion64, uint64_t)

/* LSD sort of one cache-resident bucket: keys a (temporary b), payload ia
 * (temporary ib, or both NULL), on the low rem bits (the higher bits are
 * the same for all its keys).  With a payload, returns true when the
 * result ended in b/ib; without, the last pass writes the elements into the
 * result row at obase (w->dst) and it returns false, or true when no pass
 * ran and the row is still to be written from a. */
#define BUCKET_LSD(NAME, K, INS)                                                 \
  static bool NAME(const radix_row *w, int64_t obase, K *a, K *b, uint32_t *ia,   \
                   uint32_t *ib, int64_t n, int rem) {                            \
    if (rem == 0) return !ia; /* the MSD digit decided */                       \
    if (n <= BUCKET_SHORT) { INS(a, ia, n); return !ia; }                         \
    int wmax = n < 4096 ? 8 : 11;                                               \
    int passes = (rem + wmax - 1) / wmax, wd = (rem + passes - 1) / passes;      \
    uint32_t m = (1u << wd) - 1, cnt[LSD_MAX_PASSES << 11];                       \
    memset(cnt, 0, sizeof(uint32_t) * ((size_t)passes << wd));                   \
    switch (passes) { /* unrolled counting of every digit */                    \
    case 1: BUCKET_COUNT(K, 1); break;                                            \
    case 2: BUCKET_COUNT(K, 2); break;                                            \
    case 3: BUCKET_COUNT(K, 3); break;                                            \
    default: BUCKET_COUNT(K, LSD_MAX_PASSES); break;                              \
    }                                                                             \
    int last = -1;                                                                \
    for (int p = 0; p < passes; p++)                                              \
      if (cnt[((size_t)p << wd) + ((a[0] >> (p * wd)) & m)] != (uint32_t)n) last = p; \
    bool swapped = false;                                                         \
    for (int p = 0; p <= last; p++) {                                             \
      uint32_t *h = cnt + ((size_t)p << wd);                                      \
      int sh = p * wd;                                                            \
      if (h[(a[0] >> sh) & m] == (uint32_t)n) continue;                           \
      uint32_t sum = 0;                                                           \
      for (uint32_t d = 0; d <= m; d++) { uint32_t x = h[d]; h[d] = sum; sum += x; } \
      if (ia) {                                                                   \
        for (int64_t i = 0; i < n; i++) {                                         \
          K v = a[i];                                                             \
          uint32_t pos = h[(v >> sh) & m]++;                                      \
          b[pos] = v;                                                             \
          ib[pos] = ia[i];                                                        \
        }                                                                         \
      } else if (p == last) {                                                     \
        const key_fmt *f = w->f;                                                  \
        int64_t stride = w->stride;                                               \
        void *dst = w->dst;                                                       \
        switch (w->bits) {                                                        \
        case 8: BUCKET_OUT(K, uint8_t); break;                                    \
        case 16: BUCKET_OUT(K, uint16_t); break;                                  \
        case 32: BUCKET_OUT(K, uint32_t); break;                                  \
        default: BUCKET_OUT(K, uint64_t); break;                                  \
        }                                                                         \
        return false;                                                             \
      } else {                                                                    \
        for (int64_t i = 0; i < n; i++) { K v = a[i]; b[h[(v >> sh) & m]++] = v; } \
      }                                                                           \
      K *t = a; a = b; b = t;                                                     \
      uint32_t *u = ia; ia = ib; ib = u;                                          \
      swapped = !swapped;                                                         \
    }                                                                             \
    return ia ? swapped : true;                                                   \
  }
#define BUCKET_COUNT(K, P)                                                       \
  for (int64_t i = 0; i < n; i++) {                                             \
    K v = a[i];                                                                  \
    for (int p = 0; p < (P); p++)                                                \
      if (p < passes) cnt[((size_t)p << wd) + ((v >> (p * wd)) & m)]++;          \
  }
#define BUCKET_OUT(K, T)                                                         \
  for (int64_t i = 0; i < n; i++) {                                             \
    K v = a[i];                                                                  \
    ((T *)dst)[obase + (int64_t)h[(v >> sh) & m]++ * stride] = (T)bits_of(f, v); \
  }
BUCKET_LSD(bucket_lsd32, uint32_t, insertion32)
BUCKET_LSD(bucket_lsd64, uint64_t, insertion64)

/* MSD work item it: sort its buckets (in kt/ixt after the MSD pass) and
 * leave each in dst (key-only) or its permutation in ixt. */
static void bucket_item(void *ctx, int64_t it) {
  radix_row *w = ctx;
  int rem = w->sh;
  size_t kb = w->bits == 64 ? 8 : 4;
  for (uint32_t bk = w->items[it]; bk < w->items[it + 1]; bk++) {
    uint32_t s = w->bstart[bk], n = w->bstart[bk + 1] - s;
    if (n == 0) continue;
    char *a = (char *)w->kt + (size_t)s * kb, *b = (char *)w->k + (size_t)s * kb;
    uint32_t *ia = w->ixt ? w->ixt + s : NULL, *ib = w->ix ? w->ix + s : NULL;
    int64_t obase = w->base + (int64_t)s * w->stride;
    bool sw = kb == 8 ? bucket_lsd64(w, obase, (uint64_t *)a, (uint64_t *)b, ia, ib, n, rem)
                      : bucket_lsd32(w, obase, (uint32_t *)a, (uint32_t *)b, ia, ib, n, rem);
    if (ia) {
      if (sw) memcpy(ia, ib, (size_t)n * 4);
    } else if (sw) {
      store_out(w, a, n, obase);
    }
  }
}

static int top_bit(uint64_t x) { return 63 - __builtin_clzll(x); }

/* Sort a long row whose keys are loaded (kmin/kmax set): the MSD pass
 * into kt/ixt, then its buckets.  Afterwards w->ix holds the permutation
 * (payload sorts) or dst the sorted row. */
static void msd_sort_row(radix_row *w, uint64_t kmin, uint64_t kmax, hlo_fast_pool *pool) {
  int64_t n = w->n;
  uint32_t *ix0 = w->ix;
  if (kmin == kmax) { /* all keys equal: already in order */
    if (ix0) for (int64_t i = 0; i < n; i++) ix0[i] = (uint32_t)i;
    else store_out(w, w->k, n, w->base);
    return;
  }
  int hb = top_bit(kmin ^ kmax) + 1, wd = hb < MSD_BITS ? hb : MSD_BITS;
  w->sh = hb - wd;
  w->nd = 1;
  w->dig = 0;
  w->hs = 1u << wd;
  w->mask = w->hs - 1;
  if (w->C > 1) {
    hlo_fast_parallel(pool, w->C, count_chunk, w);
  } else {
    count_chunk(w, 0);
  }
  offsets(w, w->bstart);
  w->final = w->sh == 0 && !ix0;
  w->ident = true;
  if (w->C > 1) hlo_fast_parallel(pool, w->C, scatter_chunk, w);
  else scatter_chunk(w, 0);
  w->ident = false;
  if (w->final) return;
  /* work items: runs of buckets of about equal element counts */
  int nth = hlo_fast_pool_threads(pool);
  int64_t target = n / ((int64_t)nth * 8);
  if (target < CHUNK_MIN / 4) target = CHUNK_MIN / 4;
  int ni = 0;
  int64_t acc = 0;
  w->items[0] = 0;
  for (uint32_t b = 0; b < w->hs; b++) {
    acc += w->bstart[b + 1] - w->bstart[b];
    if (acc >= target || b + 1 == w->hs) { w->items[++ni] = b + 1; acc = 0; }
  }
  hlo_fast_parallel(ni > 1 ? pool : NULL, ni, bucket_item, w);
  w->ix = w->ixt; /* the permutation ends in ixt */
  w->ixt = ix0;
}

/* Sort one row (w->base set): false at a NaN.  Afterwards w->ix holds the
 * permutation (payload sorts) or dst the sorted row. */
static bool radix_sort_row(radix_row *w, hlo_fast_pool *pool) {
  int64_t n = w->n;
  bool msd = n >= MSD_MIN;
  int C = msd ? w->C : 1, nd = msd ? 0 : w->nd;
  w->C = C;
  w->nd = nd;
  void (*load)(void *, int64_t) = msd ? msd_load_chunk : load_chunk;
  if (C > 1) hlo_fast_parallel(pool, C, load, w);
  else load(w, 0);
  for (int c = 0; c < C; c++)
    if (w->nan[c]) return false;
  if (msd) {
    uint64_t kmin = w->kmin[0], kmax = w->kmax[0];
    for (int c = 1; c < C; c++) {
      kmin = w->kmin[c] < kmin ? w->kmin[c] : kmin;
      kmax = w->kmax[c] > kmax ? w->kmax[c] : kmax;
    }
    msd_sort_row(w, kmin, kmax, pool);
    return true;
  }
  if (w->ix)
    for (int64_t i = 0; i < n; i++) w->ix[i] = (uint32_t)i;
  if (n <= SHORT_ROW) {
    if (w->bits == 64) insertion64(w->k, w->ix, n);
    else insertion32(w->k, w->ix, n);
    nd = 0; /* no radix pass; the keys are stored below */
  }
  uint64_t k0 = w->bits == 64 ? ((uint64_t *)w->k)[0] : ((uint32_t *)w->k)[0];
  int last = -1;
  for (int d = 0; d < nd; d++)
    if (w->hist[(size_t)d * NB + ((k0 >> (d * DB)) & (NB - 1))] != (uint32_t)n) last = d;
  w->hs = NB;
  w->mask = NB - 1;
  for (int d = 0; d <= last; d++) {
    if (w->hist[(size_t)d * NB + ((k0 >> (d * DB)) & (NB - 1))] == (uint32_t)n) continue;
    w->sh = d * DB;
    w->dig = d;
    offsets(w, NULL);
    w->final = d == last && !w->ix;
    scatter_chunk(w, 0);
    if (w->final) return true;
    void *x = w->k; w->k = w->kt; w->kt = x;
    uint32_t *y = w->ix; w->ix = w->ixt; w->ixt = y;
  }
  if (!w->ix) store_out(w, w->k, n, w->base); /* no pass moved them: keys in order */
  return true;
}

/* Move element perm[i] of a strided row to position i, for any element size. */
static void permute_row(void *dst, const void *src, size_t es, int64_t base, int64_t stride,
                        const uint32_t *perm, int64_t n) {
#define PERMUTE(T)                                                               \
  for (int64_t i = 0; i < n; i++)                                               \
    ((T *)dst)[base + i * stride] = ((const T *)src)[base + (int64_t)perm[i] * stride];
  switch (es) {
  case 1: PERMUTE(uint8_t); break;
  case 2: PERMUTE(uint16_t); break;
  case 4: PERMUTE(uint32_t); break;
  case 8: PERMUTE(uint64_t); break;
  default:
    for (int64_t i = 0; i < n; i++)
      memcpy((char *)dst + (size_t)(base + i * stride) * es,
             (const char *)src + (size_t)(base + (int64_t)perm[i] * stride) * es, es);
  }
#undef PERMUTE
}

typedef struct sort_job {
  const sort_plan *p;
  key_fmt f;
  hlo_val **args;
  hlo_val *outs[16];
  int64_t n, inner, rows, per_item;
  int C;               /* chunks per row (> 1: rows one at a time) */
  hlo_fast_pool *pool; /* threads within a row */
  const hlo_allocator *alloc;
  int nan, oom;
} sort_job;

/* Sort rows [item * per_item, ...) of the job. */
static void sort_rows(void *ctx, int64_t item) {
  sort_job *j = ctx;
  const sort_plan *p = j->p;
  int64_t n = j->n, q0 = item * j->per_item;
  int64_t q1 = q0 + j->per_item < j->rows ? q0 + j->per_item : j->rows;
  size_t kb = p->bits == 64 ? 8 : 4;
  radix_row w = {0};
  w.f = &j->f;
  w.bits = p->bits;
  w.n = n;
  w.stride = j->inner;
  int nd = (p->bits + DB - 1) / DB;
  size_t hist = (size_t)nd * NB > (size_t)j->C * MSD_NB ? (size_t)nd * NB : (size_t)j->C * MSD_NB;
  size_t bytes = 2 * (size_t)n * kb + (p->perm ? 2 * (size_t)n * 4 : 0) +
                 (hist + 2 * (MSD_NB + 1)) * 4;
  char *buf = hlo_malloc(j->alloc, bytes);
  if (!buf) { __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED); return; }
  char *k0 = buf, *kt0 = buf + (size_t)n * kb;
  uint32_t *ix0 = p->perm ? (uint32_t *)(buf + 2 * (size_t)n * kb) : NULL;
  w.hist = (uint32_t *)(buf + 2 * (size_t)n * kb + (ix0 ? 2 * (size_t)n * 4 : 0));
  w.bstart = w.hist + hist;
  w.items = w.bstart + MSD_NB + 1;
  const char *src = j->args[0]->data;
  for (int64_t q = q0; q < q1; q++) {
    if (__atomic_load_n(&j->nan, __ATOMIC_RELAXED)) break;
    w.base = (q / j->inner) * n * j->inner + q % j->inner;
    w.nd = nd;
    w.C = j->C;
    w.k = k0;
    w.kt = kt0;
    w.ix = ix0;
    w.ixt = ix0 ? ix0 + n : NULL;
    w.dst = p->perm ? NULL : j->outs[0]->data;
    if (!radix_sort_row(&w, j->pool)) { __atomic_store_n(&j->nan, 1, __ATOMIC_RELAXED); break; }
    if (p->perm) {
      for (int i = 0; i < p->N; i++)
        permute_row(j->outs[i]->data, j->args[i]->data,
                    (size_t)hlo_type_bytes(j->args[i]->shape->type), w.base, w.stride, w.ix, n);
      continue;
    }
    int64_t nz = 0, at = 0;
    for (int c = 0; c < w.C; c++) { nz += w.nz[c]; at += w.nlt[c]; }
    if (nz) {
      /* the zeros form one run in the result (equal keys) after the nlt
       * smaller keys, in input order with their signs */
      size_t es = (size_t)(p->bits / 8);
      char *dst = w.dst;
      for (int64_t i = 0; i < n; i++) {
        const char *e = src + (size_t)(w.base + i * w.stride) * es;
        uint64_t b = 0;
        memcpy(&b, e, es); /* little-endian: the low bytes */
        if ((b & ~j->f.S & j->f.M) == 0) memcpy(dst + (size_t)(w.base + at++ * w.stride) * es, e, es);
      }
    }
  }
  hlo_free(j->alloc, buf);
}

DECL_KERN(hlo_fast_sort) {
  const sort_plan *p = s->p;
  HLO_ASSERT(!(s->nargs != p->N)); /* planned for these shapes */
  const hlo_shape *sh = args[0]->shape;
  HLO_ASSERT(!(p->dim >= sh->rank)); /* planned for these shapes */
  for (int i = 0; i < p->N; i++)
    if (args[i]->ntuple || args[i]->nelems != args[0]->nelems)
      return hlo_run_errorf(r, s->in, "operands differ in shape");
  sort_job j = {0};
  j.p = p;
  j.f = fmt_of(p);
  if (p->isfloat && p->bits == 16)
    j.f.inf = args[0]->shape->type == HLO_BF16 ? 0x7f80 : 0x7c00;
  j.args = args;
  j.alloc = r->alloc;
  j.n = sh->dims[p->dim];
  j.inner = 1;
  for (int d = p->dim + 1; d < sh->rank; d++) j.inner *= sh->dims[d];
  hlo_val *o = hlo_run_new_raw(r, &s->in->shape);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  for (int i = 0; i < p->N; i++) {
    j.outs[i] = p->N == 1 && !o->ntuple ? o : i < o->ntuple ? o->tuple[i] : NULL;
    if (!j.outs[i] || j.outs[i]->nbytes != args[i]->nbytes) {
      hlo_run_release(r, o);
      return hlo_run_errorf(r, s->in, "result does not match the operands");
    }
  }
  if (j.n == 0 || args[0]->nelems == 0) { *out = o; return HLO_OK; }
  j.rows = args[0]->nelems / j.n;
  j.f.src = args[0]->data;
  j.pool = p->pool;
  j.C = 1;
  int64_t th = hlo_fast_pool_threads(p->pool);
  if (j.n >= MSD_MIN && j.rows < 2 * th) {
    /* few long rows: one at a time, each on all threads */
    int64_t C = j.n / CHUNK_MIN;
    C = C < th ? C : th;
    j.C = (int)(C < 1 ? 1 : C > MAX_CHUNKS ? MAX_CHUNKS : C);
    j.per_item = j.rows;
    sort_rows(&j, 0);
  } else {
    j.per_item = SORT_ITEM_ELEMS / j.n;
    if (j.per_item < 1) j.per_item = 1;
    int64_t items = (j.rows + j.per_item - 1) / j.per_item;
    j.pool = NULL;
    hlo_fast_parallel(items > 1 ? p->pool : NULL, items, sort_rows, &j);
  }
  if (j.nan) {
    /* the reference decides the order of NaN */
    hlo_run_release(r, o);
    return hlo_ref_sort(r, s, args, out);
  }
  if (j.oom) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "out of memory");
  }
  *out = o;
  return HLO_OK;
}
