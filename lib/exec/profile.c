/* profile.c - per-instruction profile of the interpreter (opts.profile):
 * one entry per planned step, time around each kernel call (monotonic
 * clock), operand and result bytes, and a FLOP estimate fixed at plan time
 * (dot/convolution 2 per multiply-add, elementwise 1 per element, reduce 1
 * per input element, fusions the sum over their instructions). */
#include <time.h>

#include "exec/exec.h"
#include "exec/fast.h"

static double elems(const hlo_shape *s) {
  int64_t n;
  return hlo_shape_is_array(s) && hlo_shape_elements(s, &n) ? (double)n : 0;
}

static bool is_elementwise(hlo_opcode op) {
  return hlo_fv_unary_ok(op) || hlo_fv_binary_ok(op) || op == HLO_OP_COMPARE ||
         op == HLO_OP_SELECT || op == HLO_OP_CLAMP || op == HLO_OP_REMAINDER ||
         op == HLO_OP_CONVERT;
}

static double flops_of(const hlo_instruction *in, int depth) {
  double out = elems(&in->shape);
  if (in->op == HLO_OP_DOT) {
    int n = 0;
    const int64_t *lc = hlo_instr_ints(in, HLO_A_LHS_CONTRACTING_DIMS, &n);
    double k = 1;
    const hlo_shape *ls = &in->operands[0]->shape;
    for (int i = 0; lc && i < n; i++)
      if (lc[i] >= 0 && lc[i] < ls->rank) k *= (double)ls->dims[lc[i]];
    return 2 * out * k;
  }
  if (in->op == HLO_OP_CONVOLUTION) {
    const hlo_attr *a = hlo_instr_attr(in, HLO_A_DIM_LABELS);
    const hlo_shape *ks = &in->operands[1]->shape;
    if (!a || a->u.conv->kernel_out < 0 || a->u.conv->kernel_out >= ks->rank) return 0;
    double kout = (double)ks->dims[a->u.conv->kernel_out];
    return kout > 0 ? 2 * out * elems(ks) / kout : 0;
  }
  if (in->op == HLO_OP_REDUCE && in->noperands > 0) return elems(&in->operands[0]->shape);
  if (is_elementwise(in->op)) return out;
  if (in->op == HLO_OP_FUSION && in->ncalled == 1 && depth < 4) {
    double f = 0;
    const hlo_computation *c = in->called[0];
    for (int i = 0; i < c->ninstrs; i++) f += flops_of(c->instrs[i], depth + 1);
    return f;
  }
  return 0;
}

int hlo_prof_setup(hlo_exec *e) {
  int n = 0;
  for (int c = 0; c < e->m->ncomps; c++)
    if (e->plans[c]) n += e->plans[c]->nsteps;
  e->prof = hlo_arena_array(&e->arena, (size_t)n + 1, sizeof(hlo_exec_prof));
  if (!e->prof) return hlo_errorf(e->diags, NULL, 0, "out of memory");
  e->nprof = 0;
  for (int c = 0; c < e->m->ncomps; c++) {
    plan_comp *pc = e->plans[c];
    for (int k = 0; pc && k < pc->nsteps; k++) {
      plan_step *s = &pc->steps[k];
      hlo_exec_prof *p = &e->prof[e->nprof++];
      p->in = s->in;
      p->kernel = s->kname;
      s->prof = p;
      s->prof_flops = flops_of(s->in, 0);
    }
  }
  hlo_exec_profile_reset(e);
  return HLO_OK;
}

static double val_bytes(const hlo_val *v) {
  if (!v) return 0;
  double b = (double)v->nbytes;
  for (int i = 0; i < v->ntuple; i++) b += val_bytes(v->tuple[i]);
  return b;
}

int hlo_prof_call(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = s->fn(r, s, args, out);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  hlo_exec_prof *p = s->prof;
  p->calls++;
  p->seconds += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  double b = rc == HLO_OK ? val_bytes(*out) : 0;
  for (int i = 0; i < s->nargs; i++) b += val_bytes(args[i]);
  p->bytes += b;
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
