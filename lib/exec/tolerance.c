/* tolerance.c - how far a fast kernel's result may lie from the reference
 * kernel's on the same operands, per opcode and element type, in ulps of the
 * result type (docs/fast.md, "Agreement with the reference").  The one table
 * every comparison of the two paths uses: hlo_exec's check mode (check.c),
 * and through it `hlo-run --check-fast`, the corpus and differential tests. */
#include "exec/exec.h"
#include "hlo/hlo_fp.h"

/* Transcendentals: ulps of f32, of f64, and of a narrow float computed
 * through f32 (the f32 error can carry a value over one rounding boundary
 * of the narrow type). */
typedef struct tol_row {
  unsigned char f32, f64, narrow;
} tol_row;

#define T1 {1, 1, 1}
static const tol_row ELEMENTWISE[HLO_OP_COUNT] = {
    /* SLEEF u10 functions against libm in double */
    [HLO_OP_EXP] = T1, [HLO_OP_EXPM1] = T1, [HLO_OP_LOG] = T1, [HLO_OP_LOG1P] = T1,
    [HLO_OP_SIN] = T1, [HLO_OP_COS] = T1, [HLO_OP_TAN] = T1, [HLO_OP_ERF] = T1,
    [HLO_OP_POWER] = T1, [HLO_OP_ATAN2] = T1,
    /* SLEEF u35; glibc's f64 tanh and cbrt are not correctly rounded either */
    [HLO_OP_TANH] = {3, 4, 1},
    [HLO_OP_CBRT] = {1, 3, 1},
    /* 1 / (1 + exp(-x)) with the vector exp */
    [HLO_OP_LOGISTIC] = {2, 2, 1},
};
#undef T1

static int row_ulps(const tol_row *r, hlo_type t) {
  if (t == HLO_F32) return r->f32;
  if (t == HLO_F64) return r->f64;
  if (hlo_type_kind_of(t) == HLO_KIND_FLOAT) return r->narrow;
  return 0;
}

/* Contraction length of a summing instruction (terms per result element),
 * 0 when the instruction sums nothing. */
static double sum_terms(const hlo_instruction *in) {
  int64_t in_n = 0, out_n = 0;
  switch (in->op) {
  case HLO_OP_DOT: {
    hlo_dot_lists dl;
    if (!hlo_dot_lists_of(in, &dl)) return 0;
    const hlo_shape *ls = &in->operands[0]->shape;
    double k = 1;
    for (int i = 0; i < dl.nc; i++)
      if (dl.lc[i] >= 0 && dl.lc[i] < ls->rank) k *= (double)ls->dims[dl.lc[i]];
    return k;
  }
  case HLO_OP_CONVOLUTION: {
    const hlo_attr *a = hlo_instr_attr(in, HLO_A_DIM_LABELS);
    const hlo_shape *ks = &in->operands[1]->shape;
    if (!a || a->u.conv->kernel_out < 0 || a->u.conv->kernel_out >= ks->rank ||
        !hlo_shape_elements(ks, &in_n))
      return 0;
    int64_t kout = ks->dims[a->u.conv->kernel_out];
    return kout > 0 ? (double)in_n / (double)kout : 0;
  }
  case HLO_OP_REDUCE: case HLO_OP_REDUCE_WINDOW:
    if (in->ncalled < 1 || hlo_plan_simple_reducer(in->called[0]) != HLO_OP_ADD) return 0;
    if (in->op == HLO_OP_REDUCE_WINDOW) {
      const hlo_attr *w = hlo_instr_attr(in, HLO_A_WINDOW);
      double k = 1;
      for (int i = 0; w && i < w->u.window.n; i++) k *= (double)w->u.window.dims[i].size;
      return k;
    }
    if (!hlo_shape_is_array(&in->operands[0]->shape) ||
        !hlo_shape_elements(&in->operands[0]->shape, &in_n) ||
        !hlo_shape_is_array(&in->shape) || !hlo_shape_elements(&in->shape, &out_n) || !out_n)
      return 0;
    return (double)in_n / (double)out_n;
  default:
    return 0;
  }
}

static void add_instr(hlo_tol *t, const hlo_instruction *in, hlo_type out, int depth) {
  if (in->op == HLO_OP_FUSION || in->op == HLO_OP_CALL) {
    for (int c = 0; c < in->ncalled && depth < 8; c++)
      for (int i = 0; i < in->called[c]->ninstrs; i++)
        add_instr(t, in->called[c]->instrs[i], out, depth + 1);
    return;
  }
  t->ulps += row_ulps(&ELEMENTWISE[in->op], out);
  double k = sum_terms(in);
  if (k > t->terms) t->terms = k;
}

/* Unit roundoff of a float type: half the spacing of its values at 1. */
static double unit_roundoff(hlo_type t) {
  if (t == HLO_C64) t = HLO_F32;
  if (t == HLO_C128) t = HLO_F64;
  uint64_t one = hlo_fp_from_double(t, 1.0);
  return (hlo_fp_to_double(t, one + 1) - 1.0) / 2;
}

hlo_tol hlo_tol_of(const hlo_instruction *in, hlo_type out) {
  hlo_tol t = {0, 0, 0};
  if (hlo_type_kind_of(out) != HLO_KIND_FLOAT && hlo_type_kind_of(out) != HLO_KIND_COMPLEX)
    return t; /* integers and pred: the same bits */
  add_instr(&t, in, out, 0);
  if (t.terms > 0) {
    /* sums of K terms move by at most K u sum|terms| with the unit roundoff
     * u of the accumulator of either side: reductions run the reducer in
     * the result type on the reference path (one rounding per term);
     * dot and convolution accumulate in double on the reference path and
     * in f32 (BLAS for f32 and narrower types, twice 2^-24 for safety) or
     * f64 on the fast one, then round once to the result type (two ulps of
     * a narrow type: the f32 sum may round to the other neighbour) */
    bool narrow = out != HLO_F32 && out != HLO_F64 && out != HLO_C64 && out != HLO_C128;
    if (in->op == HLO_OP_REDUCE || in->op == HLO_OP_REDUCE_WINDOW) {
      t.unit = unit_roundoff(out);
      t.ulps += 1;
    } else {
      t.unit = out == HLO_F64 || out == HLO_C128 ? 0x1p-53 : 0x1p-23;
      t.ulps += narrow ? 2 : 1;
    }
  }
  return t;
}
