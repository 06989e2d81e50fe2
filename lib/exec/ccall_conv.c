/* ccall_conv.c - the cuDNN convolution custom calls of XLA's GPU compiler.
 * Their window, dim_labels and feature_group_count describe the forward
 * convolution: input * filter -> output.  convForward and
 * convBiasActivationForward compute the output (the ordinary convolution
 * kernels, then scale, side input, bias and activation from
 * CudnnConvBackendConfig); convBackwardInput computes the input's gradient
 * from (output gradient, filter), convBackwardFilter the filter's from
 * (input, output gradient), both by one walk over the forward's products. */
#include <math.h>
#include <string.h>

#include "exec/ccall.h"

enum { FWD, BWD_INPUT, BWD_FILTER };

typedef struct conv_p {
  int mode;
  plan_step *conv;          /* FWD: the convolution itself */
  double scale, side_scale, leaky_alpha;
  const char *act;
  int i_bias, i_side;
  int64_t bias_stride, nbias; /* bias element = (k / bias_stride) % nbias */
  int64_t groups;
  const hlo_shape *xs, *ws, *ys; /* forward input, filter, output */
} conv_p;

static const char *const ACTS[] = {"kNone", "kSigmoid", "kRelu", "kRelu6", "kReluX", "kTanh",
                                   "kBandPass", "kElu", "kLeakyRelu", "kGeluExact"};

static double activate(const conv_p *p, double v) {
  const char *a = p->act;
  if (!strcmp(a, "kRelu")) return v > 0 ? v : (v != v ? v : 0);
  if (!strcmp(a, "kRelu6")) return v < 0 ? 0 : v > 6 ? 6 : v;
  if (!strcmp(a, "kSigmoid")) return 1 / (1 + exp(-v));
  if (!strcmp(a, "kTanh")) return tanh(v);
  if (!strcmp(a, "kElu")) return v > 0 ? v : expm1(v);
  if (!strcmp(a, "kLeakyRelu")) return v > 0 ? v : p->leaky_alpha * v;
  if (!strcmp(a, "kGeluExact")) return 0.5 * v * (1 + erf(v / sqrt(2.0)));
  return v;
}

/* The forward's products out[o] += x[i] * w[k], walked once; what each
 * mode accumulates into acc (of the result's element count). */
static void walk(const conv_p *p, const hlo_instruction *in, const void *a0, hlo_type t0,
                 const void *a1, hlo_type t1, double *acc) {
  const hlo_conv_dnums *dn = hlo_instr_attr(in, HLO_A_DIM_LABELS)->u.conv;
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  const hlo_shape *xs = p->xs, *ws = p->ws, *ys = p->ys;
  int64_t xst[MAXR], wst[MAXR], yst[MAXR], yi[MAXR] = {0}, wi[MAXR], wdims[MAXR];
  hlo_strides(xs, xst);
  hlo_strides(ws, wst);
  hlo_strides(ys, yst);
  int64_t of_total = ys->dims[dn->out_feature], if_total = xs->dims[dn->in_feature];
  int64_t of_per = of_total / p->groups, if_per = if_total / p->groups;
  memcpy(wdims, ws->dims, sizeof(int64_t) * (size_t)ws->rank);
  wdims[dn->kernel_out] = 1;
  bool more_y = true;
  for (int d = 0; d < ys->rank; d++) more_y &= ys->dims[d] > 0;
  for (int d = 0; d < ws->rank; d++) more_y &= ws->dims[d] > 0;
  while (more_y) {
    int64_t of = yi[dn->out_feature], g = of / of_per;
    int64_t yoff = hlo_index_dot(ys->rank, yi, yst);
    memset(wi, 0, sizeof wi);
    bool more_w = true;
    while (more_w) {
      wi[dn->kernel_out] = of;
      int64_t xi[MAXR];
      xi[dn->in_batch] = yi[dn->out_batch];
      xi[dn->in_feature] = g * if_per + wi[dn->kernel_in];
      bool inside = true;
      for (int d = 0; d < dn->nspatial && inside; d++) {
        const hlo_window_dim *w = wa && d < wa->u.window.n ? &wa->u.window.dims[d] : NULL;
        int64_t stride = w ? w->stride : 1, lo = w ? w->pad_lo : 0;
        int64_t ld = w && w->lhs_dilate > 0 ? w->lhs_dilate : 1, rd = w && w->rhs_dilate > 0 ? w->rhs_dilate : 1;
        int64_t kk = wi[dn->kernel_spatial[d]];
        if (w && w->reversal) kk = ws->dims[dn->kernel_spatial[d]] - 1 - kk;
        int64_t pos = yi[dn->out_spatial[d]] * stride + kk * rd - lo;
        if (pos < 0 || pos % ld) { inside = false; break; }
        pos /= ld;
        if (pos >= xs->dims[dn->in_spatial[d]]) inside = false;
        xi[dn->in_spatial[d]] = pos;
      }
      if (inside) {
        int64_t xoff = hlo_index_dot(xs->rank, xi, xst), woff = hlo_index_dot(ws->rank, wi, wst);
        if (p->mode == BWD_INPUT) /* a0 = dy, a1 = w */
          acc[xoff] += hlo_sc_load(t0, a0, yoff).f * hlo_sc_load(t1, a1, woff).f;
        else /* BWD_FILTER: a0 = x, a1 = dy */
          acc[woff] += hlo_sc_load(t0, a0, xoff).f * hlo_sc_load(t1, a1, yoff).f;
      }
      wi[dn->kernel_out] = 0;
      more_w = hlo_index_next(ws->rank, wdims, wi);
    }
    more_y = hlo_index_next(ys->rank, ys->dims, yi);
  }
}

static DECL_KERN(conv_run) {
  const conv_p *p = s->p;
  const hlo_instruction *in = s->in;
  bool tup = in->shape.type == HLO_TUPLE;
  const hlo_shape *rs = tup ? &in->shape.tuple[0] : &in->shape;
  hlo_val *res = NULL;
  if (p->mode == FWD) {
    hlo_val *cv = NULL;
    if (hlo_ccall_sub_run(r, p->conv, args, &cv)) return HLO_ERR;
    res = hlo_run_new_raw(r, rs);
    if (!res) { hlo_run_release(r, cv); return hlo_run_errorf(r, in, "out of memory"); }
    for (int64_t k = 0; k < cv->nelems; k++) {
      double v = p->scale * hlo_sc_load(rs->type, cv->data, k).f;
      if (p->i_side >= 0) v += p->side_scale * hlo_sc_load(args[p->i_side]->shape->type, args[p->i_side]->data, k).f;
      if (p->i_bias >= 0)
        v += hlo_sc_load(args[p->i_bias]->shape->type, args[p->i_bias]->data, (k / p->bias_stride) % p->nbias).f;
      hlo_sc o = {activate(p, v), 0, 0};
      hlo_sc_store(rs->type, res->data, k, o);
    }
    hlo_run_release(r, cv);
  } else {
    int64_t n = 1;
    hlo_shape_elements(rs, &n);
    double *acc = hlo_malloc(r->alloc, sizeof(double) * (size_t)(n ? n : 1));
    res = hlo_run_new_raw(r, rs);
    if (!acc || !res) {
      hlo_free(r->alloc, acc);
      hlo_run_release(r, res);
      return hlo_run_errorf(r, in, "out of memory");
    }
    memset(acc, 0, sizeof(double) * (size_t)n);
    walk(p, in, args[0]->data, args[0]->shape->type, args[1]->data, args[1]->shape->type, acc);
    for (int64_t k = 0; k < n; k++) {
      hlo_sc o = {p->scale * acc[k], 0, 0};
      hlo_sc_store(rs->type, res->data, k, o);
    }
    hlo_free(r->alloc, acc);
  }
  if (!tup) {
    *out = res;
    return HLO_OK;
  }
  hlo_val *t = hlo_run_new(r, &in->shape); /* scratch elements stay zero */
  if (!t) { hlo_run_release(r, res); return hlo_run_errorf(r, in, "out of memory"); }
  hlo_run_release(r, t->tuple[0]);
  t->tuple[0] = res;
  *out = t;
  return HLO_OK;
}

int hlo_ccall_prep_conv(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  conv_p *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return HLO_PLAN_ERR(e, in, "out of memory");
  memset(p, 0, sizeof *p);
  p->mode = strstr(t, "BackwardInput") ? BWD_INPUT : strstr(t, "BackwardFilter") ? BWD_FILTER : FWD;
  bool fused = strstr(t, "BiasActivation") != NULL;
  const hlo_attr *dl = hlo_instr_attr(in, HLO_A_DIM_LABELS);
  if (!dl || !dl->u.conv || in->noperands < 2)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: custom call %s needs operands (two arrays) and "
                        "dim_labels=", in->name, t);
  if (in->shape.type == HLO_TUPLE && (in->shape.ntuple < 1 || !hlo_shape_is_array(&in->shape.tuple[0])))
    return HLO_PLAN_ERR(e, in, "instruction %%%s: result must be an array or (array, scratch)", in->name);
  const hlo_shape *rs = in->shape.type == HLO_TUPLE ? &in->shape.tuple[0] : &in->shape;
  const hlo_conv_dnums *dn = dl->u.conv;
  p->xs = p->mode == BWD_INPUT ? rs : &in->operands[0]->shape;
  p->ws = p->mode == BWD_FILTER ? rs : &in->operands[1]->shape;
  p->ys = p->mode == FWD ? rs : p->mode == BWD_INPUT ? &in->operands[0]->shape : &in->operands[1]->shape;
  p->groups = hlo_instr_int(in, HLO_A_FEATURE_GROUP_COUNT, 1);
  int64_t bgc = hlo_instr_int(in, HLO_A_BATCH_GROUP_COUNT, 1);
  const hlo_attr *wa = hlo_instr_attr(in, HLO_A_WINDOW);
  bool ok = p->xs->rank == dn->nspatial + 2 && p->ws->rank == dn->nspatial + 2 &&
            p->ys->rank == dn->nspatial + 2 && p->groups >= 1 && (!wa || wa->u.window.n == dn->nspatial);
  ok = ok && p->xs->dims[dn->in_feature] % p->groups == 0 && p->ys->dims[dn->out_feature] % p->groups == 0 &&
       p->ws->dims[dn->kernel_in] * p->groups == p->xs->dims[dn->in_feature] &&
       p->ws->dims[dn->kernel_out] == p->ys->dims[dn->out_feature] &&
       p->xs->dims[dn->in_batch] == p->ys->dims[dn->out_batch];
  if (!ok)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: the shapes of %s do not fit the forward convolution "
                        "that dim_labels, window and feature_group_count describe", in->name, t);
  if (p->mode != FWD && bgc != 1)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: batch_group_count %lld in %s is not supported by hlo-run",
                        in->name, (long long)bgc, t);
  cJSON *root;
  const cJSON *cfg;
  if (hlo_ccall_config(e, in, "cudnn_conv_backend_config", &root, &cfg)) return HLO_ERR;
  p->scale = hlo_ccall_num(cfg, "conv_result_scale", 1);
  p->side_scale = hlo_ccall_num(cfg, "side_input_scale", 0);
  p->leaky_alpha = hlo_ccall_num(cfg, "leakyrelu_alpha", 0);
  bool side_scale_given = cfg && cJSON_GetObjectItemCaseSensitive(cfg, "side_input_scale");
  const char *act = hlo_ccall_enum(cfg, "activation_mode", ACTS, 10, "kNone");
  p->act = "kNone";
  for (int i = 0; i < 10; i++)
    if (!strcmp(act, ACTS[i])) p->act = ACTS[i];
  int rc = HLO_OK;
  if (!strcmp(p->act, "kNone") && strcmp(act, "kNone"))
    rc = HLO_PLAN_ERR(e, in, "instruction %%%s: backend_config: activation_mode %s is unknown", in->name, act);
  else if (!strcmp(p->act, "kReluX") || !strcmp(p->act, "kBandPass"))
    rc = HLO_PLAN_ERR(e, in, "instruction %%%s: activation_mode %s is not supported by hlo-run", in->name, act);
  else if (!fused && strcmp(p->act, "kNone"))
    rc = HLO_PLAN_ERR(e, in, "instruction %%%s: activation_mode %s needs __cudnn$convBiasActivationForward",
                      in->name, act);
  cJSON_Delete(root);
  if (rc) return HLO_ERR;
  p->i_bias = p->i_side = -1;
  if (fused) {
    int64_t of = rs->dims[dn->out_feature], st[MAXR];
    hlo_strides(rs, st);
    if (in->noperands >= 3) {
      const hlo_shape *b = &in->operands[2]->shape;
      if (!hlo_shape_is_array(b) || b->rank != 1 || b->dims[0] != of)
        return HLO_PLAN_ERR(e, in, "instruction %%%s: the bias (operand 2) must have one element per "
                            "output feature (%lld)", in->name, (long long)of);
      p->i_bias = 2;
      p->nbias = of;
      p->bias_stride = st[dn->out_feature];
    }
    if (in->noperands >= 4) {
      if (!hlo_shape_compatible(&in->operands[3]->shape, rs))
        return HLO_PLAN_ERR(e, in, "instruction %%%s: the side input (operand 3) must have the result's shape",
                            in->name);
      p->i_side = 3;
      if (!side_scale_given) p->side_scale = 1;
    }
  }
  if (p->mode == FWD) {
    hlo_instruction *f = hlo_ccall_fake(e, in, HLO_OP_CONVOLUTION, rs, 2);
    if (!f || !(p->conv = hlo_ccall_sub_step(e, f))) return HLO_ERR;
  }
  s->fn = conv_run;
  s->kname = "conv_run";
  s->p = p;
  return HLO_OK;
}
