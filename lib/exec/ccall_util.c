/* ccall_util.c - what the custom-call choosers share: reading backend_config
 * JSON through cJSON, private steps that run a made-up instruction (the dot
 * a gemm means) with the ordinary kernels, and the structural targets:
 * markers that return their operand, zero buffers, called computations,
 * TopK and user definitions (a module run in the target's place). */
#include <stdlib.h>
#include <string.h>

#include "exec/ccall.h"

/* ---- backend_config ------------------------------------------------------ */
/* The JSON text of a raw attribute value: a quoted string is unescaped, a
 * braced value taken as it is.  Allocated with malloc (cJSON's own). */
static char *config_text(const char *raw) {
  size_t n = strlen(raw);
  char *t = malloc(n + 1);
  if (!t) return NULL;
  if (raw[0] != '"') {
    memcpy(t, raw, n + 1);
    return t;
  }
  size_t k = 0;
  for (size_t i = 1; i < n; i++) {
    char c = raw[i];
    if (c == '"') break;
    if (c == '\\' && i + 1 < n) {
      c = raw[++i];
      c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    t[k++] = c;
  }
  t[k] = 0;
  return t;
}

char *hlo_ccall_config_raw(const hlo_instruction *in, bool *oom) {
  *oom = false;
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_BACKEND_CONFIG);
  if (!a || !a->u.s || !*a->u.s) return NULL;
  char *t = config_text(a->u.s);
  *oom = t == NULL;
  return t;
}

int hlo_ccall_config(hlo_exec *e, const hlo_instruction *in, const char *nested, cJSON **root,
                     const cJSON **cfg) {
  *root = NULL;
  *cfg = NULL;
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_BACKEND_CONFIG);
  if (!a || !a->u.s || !*a->u.s) return HLO_OK;
  char *t = config_text(a->u.s);
  if (!t) return HLO_PLAN_ERR(e, in, "out of memory");
  if (!*t) {
    free(t);
    return HLO_OK;
  }
  *root = cJSON_Parse(t);
  free(t);
  if (!*root || !cJSON_IsObject(*root)) {
    cJSON_Delete(*root);
    *root = NULL;
    return HLO_PLAN_ERR(e, in, "instruction %%%s: backend_config is not a JSON object", in->name);
  }
  const cJSON *sub = nested ? cJSON_GetObjectItemCaseSensitive(*root, nested) : NULL;
  *cfg = cJSON_IsObject(sub) ? sub : *root;
  return HLO_OK;
}

static double num_of(const cJSON *v, double dflt) {
  if (cJSON_IsNumber(v)) return v->valuedouble;
  if (cJSON_IsString(v) && v->valuestring) {
    char *end;
    double d = strtod(v->valuestring, &end);
    if (end != v->valuestring && !*end) return d;
  }
  return dflt;
}

double hlo_ccall_num(const cJSON *o, const char *key, double dflt) {
  return o ? num_of(cJSON_GetObjectItemCaseSensitive(o, key), dflt) : dflt;
}

int hlo_ccall_ints(const cJSON *o, const char *key, int64_t *v, int max) {
  const cJSON *a = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
  if (!a) return 0;
  if (!cJSON_IsArray(a)) return -1;
  int n = 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, a) {
    double d = num_of(x, -1);
    if (n >= max || d < 0 || d != (double)(int64_t)d) return -1;
    v[n++] = (int64_t)d;
  }
  return n;
}

const char *hlo_ccall_enum(const cJSON *o, const char *key, const char *const *names, int nnames,
                           const char *dflt) {
  const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
  if (cJSON_IsString(v) && v->valuestring) return v->valuestring;
  if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < nnames)
    return names[(int)v->valuedouble];
  return dflt;
}

/* ---- private steps --------------------------------------------------------- */
hlo_instruction *hlo_ccall_fake(hlo_exec *e, const hlo_instruction *in, hlo_opcode op,
                                const hlo_shape *shape, int noperands) {
  hlo_instruction *f = hlo_arena_alloc(&e->arena, sizeof *f);
  hlo_instruction **ops = hlo_arena_array(&e->arena, (size_t)noperands + 1, sizeof *ops);
  if (!f || !ops) {
    HLO_PLAN_ERR(e, in, "out of memory");
    return NULL;
  }
  *f = *in;
  f->op = op;
  f->shape = *shape;
  f->noperands = noperands;
  for (int i = 0; i < noperands && i < in->noperands; i++) ops[i] = in->operands[i];
  f->operands = ops;
  f->nusers = 0;
  f->users = NULL;
  f->ncontrol = 0;
  f->ncalled = 0;
  return f;
}

plan_step *hlo_ccall_sub_step(hlo_exec *e, hlo_instruction *fake) {
  plan_step *sub = hlo_arena_alloc(&e->arena, sizeof *sub);
  if (!sub) {
    HLO_PLAN_ERR(e, fake, "out of memory");
    return NULL;
  }
  memset(sub, 0, sizeof *sub);
  sub->in = fake;
  sub->slot = -1;
  sub->nargs = fake->noperands;
  if (hlo_plan_kernel(e, sub)) return NULL;
  return sub;
}

int hlo_ccall_sub_run(hlo_run *r, const plan_step *sub, hlo_val **args, hlo_val **out) {
  if (sub->ref_fn) return hlo_check_call(r, sub, args, out);
  return sub->fn(r, sub, args, out);
}

/* ---- structural targets ----------------------------------------------------- */
DECL_KERN(hlo_ccall_zeros) {
  (void)args;
  *out = hlo_run_new(r, &s->in->shape);
  return *out ? HLO_OK : hlo_run_errorf(r, s->in, "out of memory");
}

static int take(plan_step *s, hlo_kernel_fn fn, const char *name, void *p) {
  s->fn = fn;
  s->kname = name;
  s->p = p;
  return HLO_OK;
}

/* operand 0 must have the result's shape (layouts aside) */
static int same_shape_as_operand(hlo_exec *e, const plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  if (in->noperands < 1 || !hlo_shape_compatible(&in->operands[0]->shape, &in->shape))
    return HLO_PLAN_ERR(e, in,
                        "instruction %%%s: custom call %s returns its operand, but the result shape "
                        "is not the shape of operand 0", in->name, t);
  return HLO_OK;
}

int hlo_ccall_prep_marker(hlo_exec *e, plan_step *s, const char *t) {
  if (same_shape_as_operand(e, s, t)) return HLO_ERR;
  return take(s, hlo_ctl_forward0, "hlo_ctl_forward0", NULL);
}

int hlo_ccall_prep_zeros(hlo_exec *e, plan_step *s, const char *t) {
  (void)e, (void)t;
  return take(s, hlo_ccall_zeros, "hlo_ccall_zeros", NULL);
}

int hlo_ccall_prep_called(hlo_exec *e, plan_step *s, const char *t) {
  if (s->in->ncalled != 1)
    return HLO_PLAN_ERR(e, s->in, "instruction %%%s: custom call %s needs exactly one called "
                        "computation (called_computations={...}) to run", s->in->name, t);
  return take(s, hlo_ctl_call, "hlo_ctl_call", NULL);
}

int hlo_ccall_prep_topk(hlo_exec *e, plan_step *s, const char *t) {
  if (s->in->noperands != 1 || s->in->shape.type != HLO_TUPLE || s->in->shape.ntuple != 2)
    return HLO_PLAN_ERR(e, s->in, "instruction %%%s: custom call %s takes one operand and returns "
                        "(values, indices)", s->in->name, t);
  return take(s, hlo_ref_topk, "hlo_ref_topk", NULL);
}

/* ---- user definitions ------------------------------------------------------- */
static DECL_KERN(user_module) {
  hlo_exec *sub = s->p;
  hlo_val *res = NULL;
  if (hlo_exec_run(sub, args, s->nargs, &res))
    return hlo_run_errorf(r, s->in, "the module defining custom call \"%s\" failed",
                          hlo_instr_attr(s->in, HLO_A_CUSTOM_CALL_TARGET)->u.s);
  *out = res;
  return HLO_OK;
}

int hlo_ccall_prep_user(hlo_exec *e, plan_step *s, const hlo_ccall_user *u) {
  const hlo_instruction *in = s->in;
  switch (u->kind) {
  case HLO_CCALL_IDENTITY:
    return hlo_ccall_prep_marker(e, s, u->target);
  case HLO_CCALL_ZEROS:
    return hlo_ccall_prep_zeros(e, s, u->target);
  case HLO_CCALL_MODULE:
    break;
  }
  const hlo_computation *c = u->module ? u->module->entry : NULL;
  if (!c) return HLO_PLAN_ERR(e, in, "instruction %%%s: the module given for \"%s\" has no entry", in->name, u->target);
  if (c->nparams != in->noperands)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: custom call \"%s\" has %d operands but the entry "
                        "computation defining it has %d parameters", in->name, u->target,
                        in->noperands, c->nparams);
  for (int i = 0; i < c->nparams; i++)
    if (!c->params[i] || !hlo_shape_compatible(&c->params[i]->shape, &in->operands[i]->shape))
      return HLO_PLAN_ERR(e, in, "instruction %%%s: operand %d of custom call \"%s\" does not have "
                          "the shape of parameter %d of the module defining it", in->name, i,
                          u->target, i);
  if (!c->root || !hlo_shape_compatible(&c->root->shape, &in->shape))
    return HLO_PLAN_ERR(e, in, "instruction %%%s: the result of the module defining custom call "
                        "\"%s\" does not have the custom call's shape", in->name, u->target);
  if (e->nsubs == e->capsubs) {
    int cap = e->capsubs ? 2 * e->capsubs : 4;
    hlo_exec **v = hlo_malloc(e->alloc, (size_t)cap * sizeof *v);
    if (!v) return HLO_PLAN_ERR(e, in, "out of memory");
    if (e->nsubs) memcpy(v, e->subs, (size_t)e->nsubs * sizeof *v);
    hlo_free(e->alloc, e->subs);
    e->subs = v;
    e->capsubs = cap;
  }
  hlo_exec_options o = e->opts;
  o.src = u->src;
  o.ccalls = NULL; /* a definition does not see the others: no recursion */
  o.nccalls = 0;
  o.profile = false;
  hlo_exec *sub = hlo_exec_new(u->module, &o, e->alloc, e->diags);
  if (!sub)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: the module defining custom call \"%s\" cannot run",
                        in->name, u->target);
  e->subs[e->nsubs++] = sub;
  return take(s, user_module, "user_module", sub);
}
