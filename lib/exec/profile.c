/* profile.c - per-instruction profile of the interpreter (opts.profile):
 * one entry per planned step, time around each kernel call (monotonic
 * clock), and the FLOPs and bytes accessed of one call fixed at plan time by
 * the library's cost analysis (hlo_cost.h), so the profile and hlo-stats
 * count the same way. */
#include <time.h>

#include "exec/exec.h"
#include "hlo/hlo_cost.h"

int hlo_prof_setup(hlo_exec *e) {
  int n = 0;
  for (int c = 0; c < e->m->ncomps; c++)
    if (e->plans[c]) n += e->plans[c]->nsteps;
  e->prof = hlo_arena_array(&e->arena, (size_t)n + 1, sizeof(hlo_exec_prof));
  if (!e->prof) return hlo_errorf(e->diags, NULL, 0, "out of memory");
  e->nprof = 0;
  hlo_cost_analysis *ca = hlo_cost_analyze(e->m, e->alloc, e->diags);
  if (!ca) return HLO_ERR;
  for (int c = 0; c < e->m->ncomps; c++) {
    plan_comp *pc = e->plans[c];
    for (int k = 0; pc && k < pc->nsteps; k++) {
      plan_step *s = &pc->steps[k];
      hlo_exec_prof *p = &e->prof[e->nprof++];
      p->in = s->in;
      p->kernel = s->kname;
      s->prof = p;
      hlo_cost cost = hlo_cost_of(ca, s->in);
      s->prof_flops = cost.flops;
      s->prof_bytes = cost.bytes;
    }
  }
  hlo_cost_analysis_free(ca);
  hlo_exec_profile_reset(e);
  return HLO_OK;
}

int hlo_prof_call(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = s->fn(r, s, args, out);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  hlo_exec_prof *p = s->prof;
  p->calls++;
  p->seconds += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  p->bytes += s->prof_bytes;
  p->flops += s->prof_flops;
  return rc;
}

const hlo_exec_prof *hlo_exec_profile(const hlo_exec *e, int *n) {
  *n = e->prof ? e->nprof : 0;
  return e->prof;
}

void hlo_exec_profile_reset(hlo_exec *e) {
  for (int i = 0; i < e->nprof; i++) {
    e->prof[i].calls = 0;
    e->prof[i].seconds = e->prof[i].bytes = e->prof[i].flops = 0;
  }
}
