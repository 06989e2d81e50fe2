/* isa.c - the instruction-set levels of the fast kernels: their names, which
 * of them this build and this CPU can run, and the cap that HLO_ISA (or
 * hlo_exec_options.isa) puts on the level an hlo_exec dispatches to.  Every
 * per-ISA kernel (fast_vec.c, fast_gconv.c) is chosen from the one level
 * hlo_exec_new fixes here, so a capped run uses no instruction above it. */
#include <stdlib.h>
#include <string.h>

#include "exec/fast.h"

static const char *const level_names[] = {
    [HLO_ISA_AUTO] = "auto",
    [HLO_ISA_BASELINE] = "baseline",
    [HLO_ISA_AVX2] = "avx2",
    [HLO_ISA_AVX512] = "avx512",
};

const char *hlo_isa_name(hlo_isa level) {
  return (unsigned)level <= HLO_ISA_MAX ? level_names[level] : "?";
}

int hlo_isa_parse(const char *s, hlo_isa *level) {
  for (int l = HLO_ISA_BASELINE; l <= HLO_ISA_MAX; l++)
    if (s && strcmp(s, level_names[l]) == 0) {
      *level = (hlo_isa)l;
      return HLO_OK;
    }
  return HLO_ERR;
}

/* Whether the running CPU has the instructions of level (compiled or not). */
static bool cpu_has(hlo_isa level, const char **why_not) {
#ifdef HLO_FAST_X86
  __builtin_cpu_init();
  switch (level) {
  case HLO_ISA_AUTO: case HLO_ISA_BASELINE: return true;
  case HLO_ISA_AVX2:
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return true;
    *why_not = "this CPU lacks AVX2 or FMA";
    return false;
  case HLO_ISA_AVX512:
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return true;
    *why_not = "this CPU lacks AVX-512 F or DQ";
    return false;
  }
  return false;
#else
  (void)why_not;
  return level == HLO_ISA_BASELINE || level == HLO_ISA_AUTO;
#endif
}

bool hlo_isa_available(hlo_isa level, const char **why_not) {
  const char *why = "no such level";
  bool ok = false;
  if (level >= HLO_ISA_BASELINE && level <= HLO_ISA_MAX) {
    if (!hlo_fv_table(level)) {
#if defined(HLO_ISA_GENERIC)
      why = "this build has the portable C kernels only (make ISA=generic)";
#else
      why = "this build compiles the baseline kernels only (clang or not x86-64)";
#endif
    } else {
      ok = cpu_has(level, &why);
    }
  }
  if (!ok && why_not) *why_not = why;
  return ok;
}

int hlo_isa_effective(hlo_isa cap, hlo_isa *level, const char **why) {
  if (cap == HLO_ISA_AUTO) {
    const char *env = getenv("HLO_ISA");
    cap = HLO_ISA_MAX;
    if (env && *env && hlo_isa_parse(env, &cap) != HLO_OK) {
      if (why) *why = "HLO_ISA must be baseline, avx2 or avx512";
      return HLO_ERR;
    }
  }
  if (cap < HLO_ISA_BASELINE || cap > HLO_ISA_MAX) {
    if (why) *why = "unknown ISA level";
    return HLO_ERR;
  }
  hlo_isa l = cap;
  while (l > HLO_ISA_BASELINE && !hlo_isa_available(l, NULL)) l = (hlo_isa)(l - 1);
  *level = l;
  return HLO_OK;
}
