/* fast_vec.c - vector chunk kernels of the fast path, compiled three times
 * (AVX-512, AVX2+FMA, SSE2 baseline) from fast_vec_isa.h, one table per
 * level; an hlo_exec picks the table of its effective level (isa.c), so one
 * binary runs on any x86-64.  A `make ISA=generic` build compiles the same
 * body once as portable C (one lane, SLEEF's scalar functions).  Plain
 * arithmetic is vectorized by the compiler; transcendentals call SLEEF's
 * functions of the same ISA (1-ulp variants; tanh uses the 3.5-ulp ones,
 * docs/fast.md). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif
#include <math.h>
#include <string.h>

#include "exec/fast.h"

/* sleef.h declares the AVX and AVX-512 variants only when those ISAs are
 * enabled; enable them for the declarations alone. */
#if defined(HLO_FAST_WIDE)
#include <x86intrin.h>
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512dq")
#include <sleef.h>
#pragma GCC pop_options
#elif defined(HLO_FAST_X86)
#include <x86intrin.h>
#include <sleef.h>
#else
#include <sleef.h>
#endif

#define XCAT3(a, b, c) a##b##c
#define CAT3(a, b, c) XCAT3(a, b, c)

#ifdef HLO_FAST_WIDE
/* ---- AVX-512 ---- */
#define FV_TGT __attribute__((target("avx512f,avx512dq")))
#define FV(name) name##_avx512
#define FV_NAME "avx512"
#define FV_LEVEL HLO_ISA_AVX512
#define SLF(fn) CAT3(Sleef_, fn, f16_u10avx512f)
#define SLD(fn) CAT3(Sleef_, fn, d8_u10avx512f)
#define SLF35(fn) CAT3(Sleef_, fn, f16_u35avx512f)
#define SLD35(fn) CAT3(Sleef_, fn, d8_u35avx512f)
#define VF __m512
#define VD __m512d
#define LF 16
#define LD 8
#define LDF _mm512_loadu_ps
#define STF _mm512_storeu_ps
#define LDD _mm512_loadu_pd
#define STD _mm512_storeu_pd
#include "exec/fast_vec_isa.h"
#undef FV_TGT
#undef FV
#undef FV_NAME
#undef FV_LEVEL
#undef SLF
#undef SLD
#undef SLF35
#undef SLD35
#undef VF
#undef VD
#undef LF
#undef LD
#undef LDF
#undef STF
#undef LDD
#undef STD

/* ---- AVX2 + FMA ---- */
#define FV_TGT __attribute__((target("avx2,fma")))
#define FV(name) name##_avx2
#define FV_NAME "avx2"
#define FV_LEVEL HLO_ISA_AVX2
#define SLF(fn) CAT3(Sleef_, fn, f8_u10avx2)
#define SLD(fn) CAT3(Sleef_, fn, d4_u10avx2)
#define SLF35(fn) CAT3(Sleef_, fn, f8_u35avx2)
#define SLD35(fn) CAT3(Sleef_, fn, d4_u35avx2)
#define VF __m256
#define VD __m256d
#define LF 8
#define LD 4
#define LDF _mm256_loadu_ps
#define STF _mm256_storeu_ps
#define LDD _mm256_loadu_pd
#define STD _mm256_storeu_pd
#include "exec/fast_vec_isa.h"
#undef FV_TGT
#undef FV
#undef FV_NAME
#undef FV_LEVEL
#undef SLF
#undef SLD
#undef SLF35
#undef SLD35
#undef VF
#undef VD
#undef LF
#undef LD
#undef LDF
#undef STF
#undef LDD
#undef STD

#endif /* HLO_FAST_WIDE */

#ifdef HLO_FAST_X86
/* ---- SSE2 baseline ---- */
#define FV_TGT
#define FV(name) name##_sse2
#define FV_NAME "sse2"
#define FV_LEVEL HLO_ISA_BASELINE
#define SLF(fn) CAT3(Sleef_, fn, f4_u10sse2)
#define SLD(fn) CAT3(Sleef_, fn, d2_u10sse2)
#define SLF35(fn) CAT3(Sleef_, fn, f4_u35sse2)
#define SLD35(fn) CAT3(Sleef_, fn, d2_u35sse2)
#define VF __m128
#define VD __m128d
#define LF 4
#define LD 2
#define LDF _mm_loadu_ps
#define STF _mm_storeu_ps
#define LDD _mm_loadu_pd
#define STD _mm_storeu_pd
#include "exec/fast_vec_isa.h"
#define FV_BASELINE table_sse2
#else
/* ---- portable C: one lane, SLEEF's scalar functions ---- */
#define FV_TGT
#define FV(name) name##_generic
#define FV_NAME "generic"
#define FV_LEVEL HLO_ISA_BASELINE
#define SLF(fn) CAT3(Sleef_, fn, f_u10)
#define SLD(fn) CAT3(Sleef_, fn, _u10)
#define SLF35(fn) CAT3(Sleef_, fn, f_u35)
#define SLD35(fn) CAT3(Sleef_, fn, _u35)
#define VF float
#define VD double
#define LF 1
#define LD 1
#define LDF(p) (*(p))
#define STF(p, v) (*(p) = (v))
#define LDD(p) (*(p))
#define STD(p, v) (*(p) = (v))
#include "exec/fast_vec_isa.h"
#define FV_BASELINE table_generic
#endif

const hlo_fv_isa *hlo_fv_table(hlo_isa level) {
  switch (level) {
  case HLO_ISA_BASELINE: return &FV_BASELINE;
#ifdef HLO_FAST_WIDE
  case HLO_ISA_AVX2: return &table_avx2;
  case HLO_ISA_AVX512: return &table_avx512;
#else
  case HLO_ISA_AVX2: case HLO_ISA_AVX512: return NULL;
#endif
  case HLO_ISA_AUTO: return NULL;
  }
  return NULL;
}

const hlo_fv_isa *hlo_fv_from_env(void) {
  hlo_isa l;
  const char *why;
  if (hlo_isa_effective(HLO_ISA_AUTO, &l, &why) != HLO_OK) l = HLO_ISA_BASELINE;
  return hlo_fv_table(l);
}

bool hlo_fv_unary_ok(hlo_opcode op) {
  switch ((int)op) {
  case HLO_OP_NEGATE: case HLO_OP_ABS: case HLO_OP_SQRT: case HLO_OP_RSQRT:
  case HLO_OP_FLOOR: case HLO_OP_CEIL: case HLO_OP_ROUND_NEAREST_EVEN: case HLO_OP_SIGN:
  case HLO_OP_ROUND_NEAREST_AFZ:
  case HLO_OP_EXP: case HLO_OP_EXPM1: case HLO_OP_LOG: case HLO_OP_LOG1P: case HLO_OP_TANH:
  case HLO_OP_SIN: case HLO_OP_COS: case HLO_OP_TAN: case HLO_OP_ERF: case HLO_OP_CBRT:
  case HLO_OP_LOGISTIC:
    return true;
  default:
    return false;
  }
}

bool hlo_fv_binary_ok(hlo_opcode op) {
  switch ((int)op) {
  case HLO_OP_ADD: case HLO_OP_SUBTRACT: case HLO_OP_MULTIPLY: case HLO_OP_DIVIDE:
  case HLO_OP_REMAINDER: case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM: case HLO_OP_POWER:
  case HLO_OP_ATAN2:
    return true;
  default:
    return false;
  }
}
