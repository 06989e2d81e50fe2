/* cost_window.c - the window counts of the cost rules: the multiply-adds
 * of a convolution (kernel positions that land on a real input element,
 * after padding, strides and dilations) and the reductions of a
 * reduce-window. */
#include "cost/cost_internal.h"

static int64_t gcd_ext(int64_t a, int64_t b, int64_t *x, int64_t *y) {
  if (b == 0) {
    *x = 1, *y = 0;
    return a;
  }
  int64_t x1, y1, g = gcd_ext(b, a % b, &x1, &y1);
  *x = y1;
  *y = x1 - (a / b) * y1;
  return g;
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

/* Output positions o in [0, out) whose input position u = o*stride + c is
 * a multiple of base (a real, undilated element) and u/base in [0, in). */
static double positions_for_offset(int64_t out, int64_t in, int64_t stride, int64_t base, int64_t c) {
  /* 0 <= o*stride + c <= (in-1)*base */
  int64_t lo = ceil_div(-c, stride), hi = floor_div((in - 1) * base - c, stride);
  if (lo < 0) lo = 0;
  if (hi > out - 1) hi = out - 1;
  if (hi < lo) return 0;
  if (base == 1) return (double)(hi - lo + 1);
  /* o*stride = -c (mod base) */
  int64_t x, y, g = gcd_ext(stride % base, base, &x, &y);
  if (g < 0) g = -g, x = -x;
  int64_t r = ((-c) % base + base) % base;
  if (r % g) return 0;
  int64_t period = base / g;
  int64_t o0 = (int64_t)(((__int128)(r / g) * x) % period);
  if (o0 < 0) o0 += period;
  /* first o >= lo with o = o0 (mod period) */
  int64_t first = lo + ((o0 - lo) % period + period) % period;
  return first > hi ? 0 : (double)((hi - first) / period + 1);
}

/* Kernel-output pairs of one spatial dimension that touch a real input
 * element. */
static double valid_positions(int64_t in, int64_t k, int64_t out, const hlo_window_dim *w) {
  int64_t stride = w->stride > 0 ? w->stride : 1, base = w->lhs_dilate > 0 ? w->lhs_dilate : 1;
  int64_t wdil = w->rhs_dilate > 0 ? w->rhs_dilate : 1;
  if (in <= 0 || k <= 0 || out <= 0) return 0;
  /* XLA's two shortcuts, which also fix what it counts for them */
  if (in == out && k == out && in == base && wdil == 1 && (in - 1 > 1 ? in - 1 : 1) == stride &&
      w->pad_lo == 0 && w->pad_hi == 0)
    return (double)in;
  if (in == 1 && k == out && wdil == 1 && base == 1 && stride == 1 && w->pad_lo == out - 1 &&
      w->pad_hi == out - 1)
    return (double)out;
  const int64_t big = (int64_t)1 << 31; /* beyond: no overflow risk taken, every pair counts */
  if (k > ((int64_t)1 << 24) || in > big || out > big || stride > big || base > big || wdil > big ||
      w->pad_lo > big || w->pad_lo < -big)
    return (double)k * (double)out;
  double n = 0;
  for (int64_t kk = 0; kk < k; kk++) n += positions_for_offset(out, in, stride, base, kk * wdil - w->pad_lo);
  return n;
}

double cost_conv_flops(const hlo_instruction *conv) {
  if (conv->noperands < 2 || !conv->operands[0] || !conv->operands[1]) return 0;
  const hlo_shape *lhs = &conv->operands[0]->shape, *rhs = &conv->operands[1]->shape, *res = &conv->shape;
  const hlo_attr *dl = hlo_instr_attr(conv, HLO_A_DIM_LABELS);
  if (!dl || !dl->u.conv) return 0;
  const hlo_conv_dnums *dn = dl->u.conv;
#define DIM(s, i) ((i) >= 0 && (i) < (s)->rank ? (s)->dims[i] : 1)
  double in_feat = (double)DIM(lhs, dn->in_feature), out_feat = (double)DIM(res, dn->out_feature);
  double batch = (double)DIM(lhs, dn->in_batch);
  const hlo_attr *wa = hlo_instr_attr(conv, HLO_A_WINDOW);
  double positions = 1;
  for (int i = 0; i < dn->nspatial; i++) {
    hlo_window_dim w = {1, 1, 0, 0, 1, 1, false};
    if (wa && i < wa->u.window.n) w = wa->u.window.dims[i];
    positions *= valid_positions(DIM(lhs, dn->in_spatial[i]), DIM(rhs, dn->kernel_spatial[i]),
                                 DIM(res, dn->out_spatial[i]), &w);
  }
#undef DIM
  double fgc = (double)hlo_instr_int(conv, HLO_A_FEATURE_GROUP_COUNT, 1);
  double bgc = (double)hlo_instr_int(conv, HLO_A_BATCH_GROUP_COUNT, 1);
  if (fgc < 1) fgc = 1;
  if (bgc < 1) bgc = 1;
  /* integer divisions, as XLA's int64 arithmetic */
  double fma = (double)(int64_t)(in_feat / fgc) * out_feat * (double)(int64_t)(batch / bgc) * positions;
  return 2 * fma;
}

double cost_reduce_window_count(const hlo_instruction *rw) {
  const hlo_attr *wa = hlo_instr_attr(rw, HLO_A_WINDOW);
  const hlo_shape *out = rw->shape.type == HLO_TUPLE && rw->shape.ntuple > 0 ? &rw->shape.tuple[0] : &rw->shape;
  double out_elems = cost_elems(out), win = 1;
  int nreduce = 0, npadded = 0, dim = -1;
  for (int i = 0; wa && i < wa->u.window.n; i++) {
    const hlo_window_dim *w = &wa->u.window.dims[i];
    win *= (double)w->size;
    nreduce += w->size != 1;
    npadded += w->pad_lo != 0 || w->pad_hi != 0;
    if (dim < 0 && w->size != 1 && w->pad_lo != 0 && w->pad_lo == w->pad_hi && w->size == 2 * w->pad_lo + 1)
      dim = i;
  }
  /* a window spanning the whole dimension from every position is a reduce
   * followed by a broadcast: XLA counts the reduce */
  if (nreduce == 1 && npadded == 1 && rw->shape.type != HLO_TUPLE && dim >= 0 && dim < rw->shape.rank &&
      wa->u.window.dims[dim].pad_lo == rw->shape.dims[dim] - 1) {
    double span = (double)rw->shape.dims[dim];
    return span > 0 ? (double)(int64_t)(out_elems / span) + (span - 1) : 0;
  }
  return (win - 1) * out_elems;
}
