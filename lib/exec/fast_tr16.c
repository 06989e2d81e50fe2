/* fast_tr16.c - f32 transposes in 16x16 blocks for the channel-blocked
 * depthwise convolution (fast_gconv.c), which moves 16 channel rows into
 * 16 vector lanes and back around its kernel.  One function per
 * instruction set: AVX-512 transposes a 16x16 block in registers, AVX2 in
 * 8x8 quarters, SSE2 in 4x4 sixteenths; the generic build and every edge
 * that is not a whole block copy element by element.  A pure copy: every
 * level writes the same bytes. */
#include "exec/fast.h"
#ifdef HLO_FAST_X86
#include <x86intrin.h>
#endif

/* d[c * ds + r] = s[r * ss + c] for r < nr, c < nc, one element at a time. */
static void tr_scalar(float *d, int64_t ds, const float *s, int64_t ss, int64_t nr, int64_t nc) {
  for (int64_t c = 0; c < nc; c++)
    for (int64_t r = 0; r < nr; r++) d[c * ds + r] = s[r * ss + c];
}

/* The whole 16x16 blocks by blk (one block at (r, c) per call), the edges
 * by tr_scalar. */
#define TR_BLOCKS(blk)                                                     \
  do {                                                                     \
    int64_t nr16 = nr / 16 * 16, nc16 = nc / 16 * 16;                      \
    for (int64_t r = 0; r < nr16; r += 16)                                 \
      for (int64_t c = 0; c < nc16; c += 16) blk(d + c * ds + r, ds, s + r * ss + c, ss); \
    if (nc16 < nc) tr_scalar(d + nc16 * ds, ds, s + nc16, ss, nr, nc - nc16); \
    if (nr16 < nr) tr_scalar(d + nr16, ds, s + nr16 * ss, ss, nr - nr16, nc16); \
  } while (0)

#ifdef HLO_FAST_X86
/* SSE2: sixteen 4x4 transposes. */
static void blk_sse2(float *d, int64_t ds, const float *s, int64_t ss) {
  for (int i = 0; i < 16; i += 4)
    for (int j = 0; j < 16; j += 4) {
      __m128 a = _mm_loadu_ps(s + i * ss + j), b = _mm_loadu_ps(s + (i + 1) * ss + j);
      __m128 c = _mm_loadu_ps(s + (i + 2) * ss + j), e = _mm_loadu_ps(s + (i + 3) * ss + j);
      _MM_TRANSPOSE4_PS(a, b, c, e);
      _mm_storeu_ps(d + j * ds + i, a);
      _mm_storeu_ps(d + (j + 1) * ds + i, b);
      _mm_storeu_ps(d + (j + 2) * ds + i, c);
      _mm_storeu_ps(d + (j + 3) * ds + i, e);
    }
}

static void tr_sse2(float *d, int64_t ds, const float *s, int64_t ss, int64_t nr, int64_t nc) {
  TR_BLOCKS(blk_sse2);
}
#endif

#ifdef HLO_FAST_WIDE
/* AVX2: four 8x8 transposes.  Within each 128-bit half, unpacking pairs of
 * rows and then pairs of pairs gathers column 4h + c of four rows into
 * vector c of the group; the halves are then joined across the two groups
 * of four rows. */
__attribute__((target("avx2"))) static void blk_avx2(float *d, int64_t ds, const float *s,
                                                      int64_t ss) {
  for (int i = 0; i < 16; i += 8)
    for (int j = 0; j < 16; j += 8) {
      __m256 r[8], t[8];
      for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(s + (i + k) * ss + j);
      for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
      }
      /* r[4g + c]: column 4h + c of rows 4g..4g+3 in half h */
      for (int g = 0; g < 2; g++) {
        __m256d a = _mm256_castps_pd(t[4 * g]), b = _mm256_castps_pd(t[4 * g + 1]);
        __m256d a2 = _mm256_castps_pd(t[4 * g + 2]), b2 = _mm256_castps_pd(t[4 * g + 3]);
        r[4 * g + 0] = _mm256_castpd_ps(_mm256_unpacklo_pd(a, a2));
        r[4 * g + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(a, a2));
        r[4 * g + 2] = _mm256_castpd_ps(_mm256_unpacklo_pd(b, b2));
        r[4 * g + 3] = _mm256_castpd_ps(_mm256_unpackhi_pd(b, b2));
      }
      for (int c = 0; c < 4; c++) {
        _mm256_storeu_ps(d + (j + c) * ds + i, _mm256_permute2f128_ps(r[c], r[4 + c], 0x20));
        _mm256_storeu_ps(d + (j + 4 + c) * ds + i, _mm256_permute2f128_ps(r[c], r[4 + c], 0x31));
      }
    }
}

__attribute__((target("avx2"))) static void tr_avx2(float *d, int64_t ds, const float *s,
                                                     int64_t ss, int64_t nr, int64_t nc) {
  TR_BLOCKS(blk_avx2);
}

/* AVX-512: the same two unpack steps per 128-bit quarter give, in vector
 * 4g + c, column 4q + c of rows 4g..4g+3 in quarter q; two rounds of
 * quarter shuffles then assemble each column from the four row groups. */
__attribute__((target("avx512f"))) static void blk_avx512(float *d, int64_t ds, const float *s,
                                                          int64_t ss) {
  __m512 r[16], t[16];
  for (int k = 0; k < 16; k++) r[k] = _mm512_loadu_ps(s + k * ss);
  for (int k = 0; k < 16; k += 2) {
    t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int g = 0; g < 4; g++) {
    __m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 1]);
    __m512d a2 = _mm512_castps_pd(t[4 * g + 2]), b2 = _mm512_castps_pd(t[4 * g + 3]);
    r[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, a2));
    r[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, a2));
    r[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, b2));
    r[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, b2));
  }
  /* t[c], t[4 + c]: quarters (0, 2) and (1, 3) of row groups 0 and 1;
   * t[8 + c], t[12 + c] the same of groups 2 and 3 */
  for (int c = 0; c < 4; c++) {
    t[c] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88);
    t[4 + c] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xdd);
    t[8 + c] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88);
    t[12 + c] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xdd);
  }
  for (int c = 0; c < 4; c++) {
    _mm512_storeu_ps(d + c * ds, _mm512_shuffle_f32x4(t[c], t[8 + c], 0x88));
    _mm512_storeu_ps(d + (4 + c) * ds, _mm512_shuffle_f32x4(t[4 + c], t[12 + c], 0x88));
    _mm512_storeu_ps(d + (8 + c) * ds, _mm512_shuffle_f32x4(t[c], t[8 + c], 0xdd));
    _mm512_storeu_ps(d + (12 + c) * ds, _mm512_shuffle_f32x4(t[4 + c], t[12 + c], 0xdd));
  }
}

__attribute__((target("avx512f"))) static void tr_avx512(float *d, int64_t ds, const float *s,
                                                         int64_t ss, int64_t nr, int64_t nc) {
  TR_BLOCKS(blk_avx512);
}
#endif

hlo_fast_tr16_fn hlo_fast_tr16(hlo_isa level) {
#ifdef HLO_FAST_WIDE
  if (level >= HLO_ISA_AVX512) return tr_avx512;
  if (level >= HLO_ISA_AVX2) return tr_avx2;
#endif
  (void)level;
#ifdef HLO_FAST_X86
  return tr_sse2;
#else
  return tr_scalar;
#endif
}
