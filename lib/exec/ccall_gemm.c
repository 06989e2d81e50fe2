/* ccall_gemm.c - the cuBLAS gemm custom calls of XLA's GPU compiler
 * (__cublas$gemm, __cublas$lt$matmul, its f8 form) as what they compute:
 * D = act(alpha * dot(a, b) + beta * c + bias), the dot run by the ordinary
 * dot kernels (a private step), the rest element by element; backend_config
 * (GemmBackendConfig, flat or under "gemm_backend_config") says the dot
 * dimensions, alpha, beta and the epilogue. */
#include <math.h>
#include <string.h>

#include "exec/ccall.h"

typedef struct gemm_p {
  plan_step *dot;
  double alpha_re, alpha_im, beta;
  bool relu, gelu, trivial;
  int i_c, i_bias, i_ascale, i_bscale, i_dscale; /* operand numbers, -1 if absent */
  int o_res, o_aux, o_amax;                      /* result tuple elements, -1 if absent */
  int64_t nbias;
  bool f8;
} gemm_p;

static const char *const EPILOGUES[] = {"DEFAULT", "BIAS", "RELU", "BIAS_RELU", "GELU", "GELU_AUX",
                                        "BIAS_GELU", "BIAS_GELU_AUX", "SILU", "BIAS_SILU"};

static hlo_attr ints_attr(hlo_attr_key k, int64_t *v, int n) {
  hlo_attr a;
  memset(&a, 0, sizeof a);
  a.key = k;
  a.kind = hlo_attr_kind_of(k);
  a.name = hlo_attr_name(k);
  a.u.ints.n = n;
  a.u.ints.v = v;
  return a;
}

/* the dot instruction the gemm means, with dimension numbers from cfg */
static hlo_instruction *make_dot(hlo_exec *e, const hlo_instruction *in, const cJSON *cfg,
                                 const hlo_shape *res) {
  const cJSON *dn = cJSON_GetObjectItemCaseSensitive(cfg, "dot_dimension_numbers");
  static const char *const keys[4] = {"lhs_contracting_dimensions", "rhs_contracting_dimensions",
                                      "lhs_batch_dimensions", "rhs_batch_dimensions"};
  static const hlo_attr_key akeys[4] = {HLO_A_LHS_CONTRACTING_DIMS, HLO_A_RHS_CONTRACTING_DIMS,
                                        HLO_A_LHS_BATCH_DIMS, HLO_A_RHS_BATCH_DIMS};
  hlo_attr *attrs = hlo_arena_array(&e->arena, 4, sizeof *attrs);
  hlo_instruction *f = hlo_ccall_fake(e, in, HLO_OP_DOT, res, 2);
  if (!attrs || !f) return NULL;
  for (int k = 0; k < 4; k++) {
    int64_t *v = hlo_arena_array(&e->arena, MAXR + 1, sizeof *v);
    int n = v ? hlo_ccall_ints(dn, keys[k], v, MAXR) : -1;
    if (n < 0) {
      HLO_PLAN_ERR(e, in, "instruction %%%s: backend_config: dot_dimension_numbers.%s is not a "
                   "list of dimensions", in->name, keys[k]);
      return NULL;
    }
    const hlo_shape *op = &in->operands[k % 2]->shape;
    for (int i = 0; i < n; i++)
      if (v[i] >= op->rank) {
        HLO_PLAN_ERR(e, in, "instruction %%%s: backend_config: dot_dimension_numbers.%s names "
                     "dimension %lld of a rank-%d operand", in->name, keys[k], (long long)v[i], op->rank);
        return NULL;
      }
    attrs[k] = ints_attr(akeys[k], v, n);
  }
  f->attrs = attrs;
  f->nattrs = 4;
  /* the dot's dimensions: batch, lhs free, rhs free */
  int64_t dims[2 * MAXR + 2];
  int nd = 0;
  for (int i = 0; i < attrs[2].u.ints.n; i++) dims[nd++] = in->operands[0]->shape.dims[attrs[2].u.ints.v[i]];
  for (int side = 0; side < 2; side++) {
    const hlo_shape *op = &in->operands[side]->shape;
    for (int d = 0; d < op->rank; d++) {
      bool used = false;
      for (int k = side; k < 4; k += 2)
        for (int i = 0; i < attrs[k].u.ints.n; i++) used |= attrs[k].u.ints.v[i] == d;
      if (!used) dims[nd++] = op->dims[d];
    }
  }
  bool ok = nd == res->rank;
  for (int i = 0; ok && i < nd; i++) ok = dims[i] == res->dims[i];
  if (!ok) {
    HLO_PLAN_ERR(e, in, "instruction %%%s: the dot that backend_config describes does not have the "
                 "result's dimensions", in->name);
    return NULL;
  }
  return f;
}

static double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/* The epilogue when every array is f32 (the common case), without the
 * generic scalar loads; the same arithmetic in double.  false: not f32. */
static bool epilogue_f32(const gemm_p *p, hlo_val **args, const hlo_val *d, hlo_val *res, hlo_val *aux) {
  if (d->shape->type != HLO_F32 || p->i_dscale >= 0 || p->o_amax >= 0 || (aux && aux->shape->type != HLO_F32) ||
      (p->i_c >= 0 && args[p->i_c]->shape->type != HLO_F32) ||
      (p->i_bias >= 0 && args[p->i_bias]->shape->type != HLO_F32))
    return false;
  const float *x = d->data, *c = p->i_c >= 0 ? args[p->i_c]->data : NULL;
  const float *b = p->i_bias >= 0 ? args[p->i_bias]->data : NULL;
  float *o = res->data, *ax = aux ? aux->data : NULL;
  for (int64_t k = 0; k < d->nelems; k++) {
    double v = p->alpha_re * x[k];
    if (c) v += p->beta * c[k];
    if (b) v += b[k % p->nbias];
    if (ax) ax[k] = (float)v;
    if (p->relu) v = v > 0 ? v : (v != v ? v : 0);
    if (p->gelu) v = gelu_tanh(v);
    o[k] = (float)v;
  }
  return true;
}

static DECL_KERN(gemm_run) {
  const gemm_p *p = s->p;
  const hlo_instruction *in = s->in;
  hlo_val *dargs[2] = {args[0], args[1]};
  hlo_val *scaled[2] = {NULL, NULL};
  if (p->f8) { /* operands times their scales, in the result's type for the dot */
    for (int k = 0; k < 2; k++) {
      int is = k ? p->i_bscale : p->i_ascale;
      double sc = is >= 0 ? hlo_sc_load(args[is]->shape->type, args[is]->data, 0).f : 1.0;
      hlo_shape *sh = (hlo_shape *)&p->dot->in->operands[k]->shape;
      scaled[k] = hlo_run_new_raw(r, sh);
      if (!scaled[k]) { hlo_run_release(r, scaled[0]); return hlo_run_errorf(r, in, "out of memory"); }
      hlo_type ft = args[k]->shape->type;
      for (int64_t i = 0; i < args[k]->nelems; i++) {
        hlo_sc v = hlo_sc_load(ft, args[k]->data, i);
        v.f *= sc;
        hlo_sc_store(sh->type, scaled[k]->data, i, v);
      }
      dargs[k] = scaled[k];
    }
  }
  hlo_val *d = NULL;
  int rc = hlo_ccall_sub_run(r, p->dot, dargs, &d);
  hlo_run_release(r, scaled[0]);
  hlo_run_release(r, scaled[1]);
  if (rc) return HLO_ERR;
  if (p->trivial && p->o_res < 0) {
    *out = d;
    return HLO_OK;
  }
  hlo_val *tup = NULL, *res = d, *aux = NULL;
  if (!p->trivial) {
    res = hlo_run_new_raw(r, d->shape);
    if (!res) { hlo_run_release(r, d); return hlo_run_errorf(r, in, "out of memory"); }
  }
  if (p->o_res >= 0) {
    tup = hlo_run_new(r, &in->shape);
    if (!tup) {
      if (res != d) hlo_run_release(r, res);
      hlo_run_release(r, d);
      return hlo_run_errorf(r, in, "out of memory");
    }
    hlo_run_release(r, tup->tuple[p->o_res]);
    tup->tuple[p->o_res] = res;
    if (p->o_aux >= 0) aux = tup->tuple[p->o_aux];
  }
  if (!p->trivial && epilogue_f32(p, args, d, res, aux)) {
    hlo_run_release(r, d);
  } else if (!p->trivial) {
    hlo_type t = d->shape->type;
    bool cplx = hlo_type_kind_of(t) == HLO_KIND_COMPLEX;
    double amax = 0;
    for (int64_t k = 0; k < d->nelems; k++) {
      hlo_sc x = hlo_sc_load(t, d->data, k), v = x;
      v.f = p->alpha_re * x.f - (cplx ? p->alpha_im * x.im : 0);
      v.im = cplx ? p->alpha_re * x.im + p->alpha_im * x.f : 0;
      if (p->i_c >= 0) {
        hlo_sc c = hlo_sc_load(args[p->i_c]->shape->type, args[p->i_c]->data, k);
        v.f += p->beta * c.f;
        v.im += p->beta * c.im;
      }
      if (p->i_bias >= 0) {
        hlo_sc b = hlo_sc_load(args[p->i_bias]->shape->type, args[p->i_bias]->data, k % p->nbias);
        v.f += b.f;
        v.im += b.im;
      }
      if (aux) hlo_sc_store(aux->shape->type, aux->data, k, v);
      if (p->relu) v.f = v.f > 0 ? v.f : (v.f != v.f ? v.f : 0);
      if (p->gelu) v.f = gelu_tanh(v.f);
      if (fabs(v.f) > amax) amax = fabs(v.f);
      if (p->i_dscale >= 0) v.f /= hlo_sc_load(args[p->i_dscale]->shape->type, args[p->i_dscale]->data, 0).f;
      hlo_sc_store(t, res->data, k, v);
    }
    hlo_run_release(r, d);
    if (p->o_amax >= 0 && tup->tuple[p->o_amax]->nelems == 1) {
      hlo_sc a = {amax, 0, 0};
      hlo_sc_store(tup->tuple[p->o_amax]->shape->type, tup->tuple[p->o_amax]->data, 0, a);
    }
  }
  *out = tup ? tup : res;
  return HLO_OK;
}

static int64_t elems(const hlo_shape *s) {
  int64_t n = 1;
  return hlo_shape_elements(s, &n) ? n : -1;
}

static bool is_scalar(const hlo_instruction *o) {
  return hlo_shape_is_array(&o->shape) && elems(&o->shape) == 1;
}

int hlo_ccall_prep_gemm(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  gemm_p *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return HLO_PLAN_ERR(e, in, "out of memory");
  memset(p, 0, sizeof *p);
  p->f8 = strcmp(t, "__cublas$lt$matmul$f8") == 0;
  bool lt = strncmp(t, "__cublas$lt$", 12) == 0;
  if (in->noperands < 2)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: custom call %s needs operands (a, b, ...)", in->name, t);
  cJSON *root;
  const cJSON *cfg;
  if (hlo_ccall_config(e, in, "gemm_backend_config", &root, &cfg)) return HLO_ERR;
  p->alpha_re = hlo_ccall_num(cfg, "alpha_real", 1);
  p->alpha_im = hlo_ccall_num(cfg, "alpha_imag", 0);
  p->beta = hlo_ccall_num(cfg, "beta", 0);
  const char *epi = hlo_ccall_enum(cfg, "epilogue", EPILOGUES, 10, "DEFAULT");
  bool bias = strstr(epi, "BIAS") != NULL, aux = strstr(epi, "AUX") != NULL;
  p->relu = strstr(epi, "RELU") != NULL;
  p->gelu = strstr(epi, "GELU") != NULL;
  bool damax = cJSON_IsTrue(cfg ? cJSON_GetObjectItemCaseSensitive(cfg, "damax_output") : NULL);
  int rc = HLO_OK;
  if (strcmp(epi, "DEFAULT") && strcmp(epi, "BIAS") && strcmp(epi, "RELU") && strcmp(epi, "BIAS_RELU") &&
      strcmp(epi, "GELU") && strcmp(epi, "GELU_AUX") && strcmp(epi, "BIAS_GELU") && strcmp(epi, "BIAS_GELU_AUX"))
    rc = HLO_PLAN_ERR(e, in, "instruction %%%s: backend_config: epilogue %s is not supported by hlo-run",
                      in->name, epi);
  /* the result: an array, or a tuple (result, [aux], [amax], workspace) */
  const hlo_shape *res = &in->shape;
  p->o_res = p->o_aux = p->o_amax = -1;
  if (rc == HLO_OK && in->shape.type == HLO_TUPLE) {
    int want = 1 + aux + (p->f8 && damax);
    if (in->shape.ntuple < want || in->shape.ntuple > want + 1)
      rc = HLO_PLAN_ERR(e, in, "instruction %%%s: result tuple of %d elements, but epilogue %s makes %d "
                        "(and an optional workspace)", in->name, in->shape.ntuple, epi, want);
    else {
      p->o_res = 0;
      res = &in->shape.tuple[0];
      if (aux) p->o_aux = 1;
      if (p->f8 && damax) p->o_amax = 1 + aux;
    }
  } else if (rc == HLO_OK && aux) {
    rc = HLO_PLAN_ERR(e, in, "instruction %%%s: epilogue %s needs a tuple result (result, aux, ...)", in->name, epi);
  }
  /* operands: a, b, [c if beta != 0], [f8: a_scale, b_scale, (c_scale), d_scale], [bias] */
  int next = 2;
  p->i_c = p->i_bias = p->i_ascale = p->i_bscale = p->i_dscale = -1;
  if (rc == HLO_OK && p->beta != 0) {
    if (next < in->noperands && hlo_shape_compatible(&in->operands[next]->shape, res)) p->i_c = next++;
    else rc = HLO_PLAN_ERR(e, in, "instruction %%%s: beta is %g but operand 2 is not an addend of the "
                           "result's shape", in->name, p->beta);
  }
  if (rc == HLO_OK && p->f8) {
    int ns = 0;
    while (next + ns < in->noperands && is_scalar(in->operands[next + ns])) ns++;
    if (bias && ns > 0 && next + ns == in->noperands && !is_scalar(in->operands[in->noperands - 1])) ns--;
    if (ns < 2) rc = HLO_PLAN_ERR(e, in, "instruction %%%s: %s needs scalar operands a_scale and b_scale "
                                 "after a, b (and c)", in->name, t);
    else {
      p->i_ascale = next, p->i_bscale = next + 1;
      if (ns >= 4) p->i_dscale = next + 3;
      else if (ns == 3) p->i_dscale = next + 2;
      next += ns;
    }
  }
  if (rc == HLO_OK && bias) {
    if (!lt || next >= in->noperands)
      rc = HLO_PLAN_ERR(e, in, "instruction %%%s: epilogue %s needs a bias operand", in->name, epi);
    else {
      const hlo_shape *b = &in->operands[next]->shape;
      bool ok = hlo_shape_is_array(b) && b->rank <= res->rank;
      for (int i = 0; ok && i < b->rank; i++) ok = b->dims[b->rank - 1 - i] == res->dims[res->rank - 1 - i];
      if (!ok) rc = HLO_PLAN_ERR(e, in, "instruction %%%s: the bias operand's dimensions are not the "
                                 "trailing dimensions of the result", in->name);
      p->nbias = elems(b);
      if (p->nbias < 1) p->nbias = 1;
      p->i_bias = next++;
    }
  }
  hlo_instruction *dot = NULL;
  if (rc == HLO_OK) {
    dot = make_dot(e, in, cfg, res);
    if (!dot) rc = HLO_ERR;
  }
  cJSON_Delete(root);
  if (rc) return HLO_ERR;
  if (p->f8) { /* the dot reads the scaled operands in the result's type */
    hlo_instruction **ops = (hlo_instruction **)dot->operands;
    for (int k = 0; k < 2; k++) {
      hlo_instruction *c = hlo_arena_alloc(&e->arena, sizeof *c);
      if (!c) return HLO_PLAN_ERR(e, in, "out of memory");
      *c = *in->operands[k];
      c->shape.type = res->type;
      ops[k] = c;
    }
  }
  p->trivial = p->alpha_re == 1 && p->alpha_im == 0 && p->i_c < 0 && p->i_bias < 0 && !p->relu &&
               !p->gelu && p->i_dscale < 0 && p->o_aux < 0 && p->o_amax < 0;
  p->dot = hlo_ccall_sub_step(e, dot);
  if (!p->dot) return HLO_ERR;
  s->fn = gemm_run;
  s->kname = "gemm_run";
  s->p = p;
  return HLO_OK;
}
