/* ccall_dynconv.c - the dynamic windowed ops TensorFlow's XLA bridge emits
 * as custom calls, DynamicConvolutionForward, DynamicConvolutionInputGrad,
 * DynamicConvolutionKernelGrad, DynamicReduceWindowSamePadding and
 * DynamicSelectAndScatterSamePadding, run as XLA's dynamic padder rewrites
 * them (dynamic_padder.cc, sizes from dynamic_window_utils.cc and
 * dynamic_dimension_inference.cc): the operands are zero past their actual
 * sizes, and with padding_type=PADDING_SAME the low padding of each dynamic
 * spatial dimension is the one SAME padding gives the actual size; then
 * the reference convolution of the call's window, dimension numbers and
 * group counts runs.  The result carries the actual sizes XLA's inference
 * gives it. */
#include <math.h>
#include <string.h>

#include "exec/ccall.h"

typedef enum { DC_FORWARD, DC_INPUT_GRAD, DC_KERNEL_GRAD, DC_REDUCE_WINDOW } dc_kind;

typedef struct dc_p {
  dc_kind kind;
  bool same; /* padding_type=PADDING_SAME */
} dc_p;

/* GetWindowedOutputSize: the output size and low padding of a window over
 * n elements. */
static void windowed(int64_t n, int64_t size, int64_t dilation, int64_t stride, bool same, int64_t *out,
                     int64_t *before) {
  int64_t eff = (size - 1) * dilation + 1;
  if (stride < 1) stride = 1;
  if (!same) {
    *out = (n + stride - eff) / stride;
    *before = 0;
    return;
  }
  *out = (n + stride - 1) / stride;
  int64_t need = (*out - 1) * stride + eff - n;
  *before = (need > 0 ? need : 0) / 2;
}

static bool declared_dynamic(const hlo_instruction *in, int k, int d) {
  const hlo_shape *sh = &in->operands[k]->shape;
  return sh->dynamic && d < sh->rank && sh->dynamic[d];
}

static int64_t actual(const hlo_val *v, int d) { return v->dims ? v->dims[d] : v->shape->dims[d]; }

static int64_t clamp(int64_t v, int64_t hi) { return v < 0 ? 0 : v > hi ? hi : v; }

static DECL_KERN(dynconv_run) {
  const dc_p *p = s->p;
  const hlo_instruction *in = s->in;
  const hlo_conv_dnums *dn = hlo_instr_attr(in, HLO_A_DIM_LABELS)->u.conv;
  int lk = p->kind == DC_INPUT_GRAD ? 1 : 0; /* the convolution's lhs and rhs operands */
  hlo_val *lhs = args[lk], *rhs = args[lk + 1];
  hlo_window_dim wd[MAXR];
  if (hlo_ref_conv_window(r, s, lhs, rhs, wd)) return HLO_ERR;
  const hlo_shape *os = &in->shape;
  int64_t odims[MAXR];
  for (int i = 0; i < os->rank; i++) odims[i] = os->dims[i];
  for (int i = 0; i < dn->nspatial; i++) {
    int ld = dn->in_spatial[i];
    const hlo_window_dim *w = &wd[i];
    int64_t n = actual(lhs, ld), osz, before;
    if (p->kind == DC_FORWARD) {
      if (!declared_dynamic(in, 0, ld)) continue;
      windowed(n, w->size, w->rhs_dilate, w->stride, p->same, &osz, &before);
      odims[dn->out_spatial[i]] = clamp(osz, os->dims[dn->out_spatial[i]]);
    } else if (p->kind == DC_INPUT_GRAD) {
      /* the forward input size comes from operand 0 (input_sizes); the
       * forward stride is the gradient's base dilation */
      if (!declared_dynamic(in, 1, ld)) continue;
      int64_t fin = hlo_sc_load(args[0]->shape->type, args[0]->data, ld).i, fout, fbefore;
      windowed(fin, w->size, w->rhs_dilate, w->lhs_dilate, p->same, &fout, &fbefore);
      before = (w->size - 1) * w->rhs_dilate - fbefore;
    } else {
      int kd = dn->kernel_spatial[i];
      bool da = declared_dynamic(in, 0, ld), dg = declared_dynamic(in, 1, kd);
      if (!da && !dg) continue;
      if (da != dg)
        return hlo_run_errorf(r, in, "spatial dimension %d is dynamic in one operand only", i);
      /* the result's spatial size is the window over the activations */
      windowed(n, os->dims[dn->out_spatial[i]], w->stride, w->rhs_dilate, p->same, &osz, &before);
    }
    if (p->same) wd[i].pad_lo = before;
  }
  if (p->kind == DC_INPUT_GRAD) /* the result has the forward input's sizes */
    for (int d = 0; d < os->rank; d++)
      if (declared_dynamic(in, 1, d))
        odims[d] = clamp(hlo_sc_load(args[0]->shape->type, args[0]->data, d).i, os->dims[d]);
  if (p->kind == DC_FORWARD && declared_dynamic(in, 0, dn->in_batch))
    odims[dn->out_batch] = clamp(actual(lhs, dn->in_batch), os->dims[dn->out_batch]);
  /* zero past the actual sizes */
  hlo_val *ml = NULL, *mr = NULL;
  if (lhs->dims) {
    if (!(ml = hlo_dyn_masked(r, lhs, lhs->dims, NULL))) return hlo_run_errorf(r, in, "out of memory");
    lhs = ml;
  }
  if (rhs->dims) {
    if (!(mr = hlo_dyn_masked(r, rhs, rhs->dims, NULL))) {
      if (ml) hlo_run_release(r, ml);
      return hlo_run_errorf(r, in, "out of memory");
    }
    rhs = mr;
  }
  int rc = hlo_ref_conv_with(r, s, lhs, rhs, wd, out);
  if (ml) hlo_run_release(r, ml);
  if (mr) hlo_run_release(r, mr);
  if (rc != HLO_OK) return rc;
  return p->kind == DC_KERNEL_GRAD ? HLO_OK : hlo_dyn_put(r, in, out, odims);
}

static bool trivial(const hlo_window_dim *w) {
  return w->size == 1 && w->stride <= 1 && !w->pad_lo && !w->pad_hi && w->lhs_dilate <= 1 && w->rhs_dilate <= 1;
}

/* reduce-window(input, init) whose dynamic dimensions take SAME padding
 * for their actual sizes; the positions past them hold init. */
static DECL_KERN(dynwindow_run) {
  const hlo_instruction *in = s->in;
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  const hlo_shape *os = &in->shape;
  hlo_window_dim wd[MAXR];
  int64_t odims[MAXR];
  for (int d = 0; d < os->rank; d++) {
    wd[d] = wa->u.window.dims[d];
    odims[d] = os->dims[d];
    if (!declared_dynamic(in, 0, d)) continue;
    int64_t n = actual(args[0], d), osz, before;
    if (trivial(&wd[d])) {
      odims[d] = clamp(n, os->dims[d]);
      continue;
    }
    windowed(n, wd[d].size, wd[d].rhs_dilate, wd[d].stride, true, &osz, &before);
    wd[d].pad_lo = before;
    odims[d] = clamp(osz, os->dims[d]);
  }
  hlo_val *a[2] = {args[0], args[1]}, *m = NULL;
  if (args[0]->dims) {
    if (!(m = hlo_dyn_masked(r, args[0], args[0]->dims, args[1]->data))) return hlo_run_errorf(r, in, "out of memory");
    a[0] = m;
  }
  int rc = hlo_ref_reduce_window_with(r, s, a, wd, out);
  if (m) hlo_run_release(r, m);
  return rc != HLO_OK ? rc : hlo_dyn_put(r, in, out, odims);
}

/* select-and-scatter(input, source, init) of a max pooling's gradient:
 * the input past its actual sizes holds the type's lowest value (never
 * selected over data), the source past its sizes holds init, and a
 * dynamic dimension's window takes SAME's low padding for its actual size
 * (XLA's ChooseIdentityValue and RewriteDynamicSelectAndScatterSamePadding);
 * the result has the input's sizes. */
static DECL_KERN(dynsas_run) {
  const hlo_instruction *in = s->in;
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  const hlo_shape *is = args[0]->shape;
  hlo_window_dim wd[MAXR];
  int64_t odims[MAXR];
  for (int d = 0; d < is->rank; d++) {
    wd[d] = wa->u.window.dims[d];
    odims[d] = actual(args[0], d);
    int64_t osz, before;
    if (trivial(&wd[d]) || !declared_dynamic(in, 0, d) || !declared_dynamic(in, 1, d)) continue;
    windowed(actual(args[0], d), wd[d].size, wd[d].rhs_dilate, wd[d].stride, true, &osz, &before);
    wd[d].pad_lo = before;
  }
  unsigned char lowest[16] = {0};
  hlo_type t = is->type;
  hlo_type_kind k = hlo_type_kind_of(t);
  hlo_sc lo = {k == HLO_KIND_FLOAT ? -INFINITY : 0, 0,
               k == HLO_KIND_SINT ? (int64_t)((uint64_t)-1 << (hlo_type_bits(t) - 1)) : 0};
  hlo_sc_store(t, lowest, 0, lo);
  hlo_val *a[3] = {args[0], args[1], args[2]}, *m0 = NULL, *m1 = NULL;
  int rc = HLO_OK;
  if (args[0]->dims && !(a[0] = m0 = hlo_dyn_masked(r, args[0], args[0]->dims, lowest))) rc = HLO_ERR;
  if (rc == HLO_OK && args[1]->dims && !(a[1] = m1 = hlo_dyn_masked(r, args[1], args[1]->dims, args[2]->data)))
    rc = HLO_ERR;
  if (rc != HLO_OK) rc = hlo_run_errorf(r, in, "out of memory");
  else rc = hlo_ref_select_and_scatter_with(r, s, a, wd, in->called[0], in->called[1], out);
  if (m0) hlo_run_release(r, m0);
  if (m1) hlo_run_release(r, m1);
  return rc != HLO_OK ? rc : hlo_dyn_put(r, in, out, odims);
}

bool hlo_ccall_is_dynconv(const plan_step *s) {
  return s->fn == dynconv_run || s->fn == dynwindow_run || s->fn == dynsas_run;
}

int hlo_ccall_prep_dynsas(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  const hlo_shape *is = in->noperands == 3 ? &in->operands[0]->shape : NULL;
  bool ok = is && hlo_shape_is_array(is) && hlo_shape_compatible(&in->shape, is) && wa &&
            wa->u.window.n == is->rank && in->ncalled == 2 && in->called[0] && in->called[1] &&
            hlo_shape_is_array(&in->operands[1]->shape) && in->operands[1]->shape.rank == is->rank &&
            hlo_shape_is_scalar(&in->operands[2]->shape) && in->operands[2]->shape.type == in->shape.type;
  if (!ok)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s takes (operand, source, scalar init), a window= of their "
                        "rank and the select and scatter computations, and returns the operand's shape",
                        in->name, t);
  /* XLA pads the operand with the lowest value, which needs a `>=` select */
  const hlo_instruction *root = in->called[0]->root;
  const char *dir = root ? hlo_instr_word(root, HLO_A_DIRECTION) : NULL;
  if (!root || root->op != HLO_OP_COMPARE || root->noperands != 2 || !dir || strcmp(dir, "GE") ||
      root->operands[0]->op != HLO_OP_PARAMETER || root->operands[1]->op != HLO_OP_PARAMETER)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s supports only a select computation that is "
                        "compare(parameter, parameter), direction=GE (a max pooling), as XLA's dynamic padder",
                        in->name, t);
  s->fn = dynsas_run;
  s->kname = "dynsas_run";
  return HLO_OK;
}

int hlo_ccall_prep_dynwindow(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  const hlo_shape *is = in->noperands == 2 ? &in->operands[0]->shape : NULL;
  if (!is || !hlo_shape_is_array(is) || !hlo_shape_is_array(&in->shape) || in->shape.rank != is->rank ||
      !wa || wa->u.window.n != is->rank || in->ncalled < 1 || !in->called[0] ||
      !hlo_shape_is_scalar(&in->operands[1]->shape) || in->operands[1]->shape.type != is->type)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s takes (array, scalar init of its type), a window= of its rank "
                        "and a reducer computation, and returns one array", in->name, t);
  s->fn = dynwindow_run;
  s->kname = "dynwindow_run";
  return HLO_OK;
}

int hlo_ccall_prep_dynconv(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  dc_p *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return HLO_PLAN_ERR(e, in, "out of memory");
  p->kind = !strcmp(t, "DynamicConvolutionForward")     ? DC_FORWARD
            : !strcmp(t, "DynamicConvolutionInputGrad") ? DC_INPUT_GRAD
                                                        : DC_KERNEL_GRAD;
  const char *pt = hlo_instr_word(in, HLO_A_PADDING_TYPE);
  p->same = pt && !strcmp(pt, "PADDING_SAME");
  int want = p->kind == DC_INPUT_GRAD ? 3 : 2, lk = p->kind == DC_INPUT_GRAD ? 1 : 0;
  const hlo_attr *dl = hlo_instr_attr(in, HLO_A_DIM_LABELS);
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  if (in->noperands != want || !dl || !dl->u.conv || !wa)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s takes %d operands%s, dim_labels= and window=", in->name, t,
                        want, p->kind == DC_INPUT_GRAD ? " (input sizes, gradient, kernel)" : "");
  const hlo_conv_dnums *dn = dl->u.conv;
  /* the padding type says the sizes of a dynamic spatial dimension; without
   * one the call is a plain convolution (XLA's default PADDING_INVALID) */
  bool dyn_spatial = false;
  for (int i = 0; i < dn->nspatial; i++)
    dyn_spatial |= declared_dynamic(in, lk, dn->in_spatial[i]) ||
                   (p->kind == DC_KERNEL_GRAD && declared_dynamic(in, 1, dn->kernel_spatial[i]));
  if (dyn_spatial && (!pt || (strcmp(pt, "PADDING_SAME") && strcmp(pt, "PADDING_VALID"))))
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s over a dynamic spatial dimension needs "
                        "padding_type=PADDING_SAME or PADDING_VALID", in->name, t);
  const hlo_shape *ls = &in->operands[lk]->shape, *ks = &in->operands[lk + 1]->shape;
  if (!hlo_shape_is_array(ls) || !hlo_shape_is_array(ks) || !hlo_shape_is_array(&in->shape) ||
      ls->rank != dn->nspatial + 2 || ks->rank != ls->rank || in->shape.rank != ls->rank ||
      wa->u.window.n != dn->nspatial)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s: operand, result and window ranks do not match dim_labels",
                        in->name, t);
  if (p->kind == DC_INPUT_GRAD) {
    const hlo_shape *is = &in->operands[0]->shape;
    if (!hlo_shape_is_array(is) || is->rank != 1 || is->dims[0] != in->shape.rank ||
        (is->type != HLO_S32 && is->type != HLO_S64))
      return HLO_PLAN_ERR(e, in, "instruction %%%s: operand 0 of %s (the input sizes) must be s32[%d]", in->name,
                          t, in->shape.rank);
  }
  s->fn = dynconv_run;
  s->kname = "dynconv_run";
  s->p = p;
  return HLO_OK;
}
