/* sprog.c - the compiled scalar form of small computations (reducers,
 * comparators, map and scatter functions): when every instruction works on
 * scalars and is elementwise, constant, parameter or a root tuple, the
 * computation becomes a register program run without allocating, instead
 * of a fresh interpreter run per element. */
#include <string.h>

#include "exec/exec.h"

typedef struct sp_step {
  hlo_opcode op;
  hlo_type t, ot;   /* operand type, result type */
  int dst, a, b, c; /* registers */
  int dir, ctype;   /* compare */
} sp_step;

struct scalar_prog {
  int nregs, nsteps, nparams, nout;
  hlo_sc *consts;   /* initial register values (constants) */
  int *param_reg;
  int *out_reg;
  hlo_type *out_type;
  sp_step *steps;
};

static bool scalar_shape(const hlo_shape *s) {
  return hlo_shape_is_array(s) && s->rank == 0 && hlo_type_kind_of(s->type) != HLO_KIND_TOKEN;
}

static bool elementwise_ok(hlo_opcode op) {
  switch (op) {
  case HLO_OP_SELECT: case HLO_OP_CLAMP: case HLO_OP_COMPARE: case HLO_OP_CONVERT:
  case HLO_OP_COPY:
    return true;
  case HLO_OP_STOCHASTIC_CONVERT: case HLO_OP_REDUCE_PRECISION:
    return false;
  default:
    return (hlo_opcode_flags(op) & HLO_F_ELEMENTWISE) != 0;
  }
}

void hlo_plan_scalar(hlo_exec *e, plan_comp *pc) {
  const hlo_computation *c = pc->comp;
  if (e->opts.reference) return; /* the reference path runs the interpreter */
  if (c->ninstrs > 64) return;
  for (int i = 0; i < c->nparams; i++)
    if (!c->params[i] || !scalar_shape(&c->params[i]->shape)) return;
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (in == c->root && in->op == HLO_OP_TUPLE) {
      for (int k = 0; k < in->noperands; k++)
        if (!scalar_shape(&in->operands[k]->shape)) return;
      continue;
    }
    if (!scalar_shape(&in->shape)) return;
    if (in->op == HLO_OP_PARAMETER) continue;
    if (in->op == HLO_OP_CONSTANT) {
      if (!in->literal || !in->literal->data) return;
      continue;
    }
    if (!elementwise_ok(in->op) || in->noperands < 1 || in->noperands > 3) return;
  }
  hlo_arena *A = &e->arena;
  scalar_prog *sp = hlo_arena_alloc(A, sizeof *sp);
  if (!sp) return;
  sp->nregs = c->ninstrs;
  sp->nparams = c->nparams;
  sp->consts = hlo_arena_array(A, (size_t)c->ninstrs + 1, sizeof(hlo_sc));
  sp->param_reg = hlo_arena_array(A, (size_t)c->nparams + 1, sizeof(int));
  sp->steps = hlo_arena_array(A, (size_t)pc->nsteps + 1, sizeof(sp_step));
  int nout = c->root->op == HLO_OP_TUPLE ? c->root->noperands : 1;
  sp->out_reg = hlo_arena_array(A, (size_t)nout + 1, sizeof(int));
  sp->out_type = hlo_arena_array(A, (size_t)nout + 1, sizeof(hlo_type));
  if (!sp->consts || !sp->param_reg || !sp->steps || !sp->out_reg || !sp->out_type) return;
  for (int i = 0; i < c->nparams; i++) sp->param_reg[i] = c->params[i]->id;
  int n = 0;
  for (int k = 0; k < pc->nsteps; k++) {
    const hlo_instruction *in = pc->steps[k].in;
    if (in->op == HLO_OP_CONSTANT) {
      sp->consts[in->id] = hlo_sc_load(in->shape.type, in->literal->data, 0);
      continue;
    }
    if (in == c->root && in->op == HLO_OP_TUPLE) continue;
    sp_step *t = &sp->steps[n++];
    t->op = in->op;
    t->t = in->operands[0]->shape.type;
    if (in->op == HLO_OP_SELECT || in->op == HLO_OP_CLAMP) t->t = in->operands[1]->shape.type;
    t->ot = in->shape.type;
    t->dst = in->id;
    t->a = in->operands[0]->id;
    t->b = in->noperands > 1 ? in->operands[1]->id : t->a;
    t->c = in->noperands > 2 ? in->operands[2]->id : t->a;
    if (in->op == HLO_OP_COMPARE && hlo_cmp_attrs(in, &t->dir, &t->ctype, e->diags)) return;
  }
  sp->nsteps = n;
  sp->nout = nout;
  for (int i = 0; i < nout; i++) {
    const hlo_instruction *o = c->root->op == HLO_OP_TUPLE ? c->root->operands[i] : c->root;
    sp->out_reg[i] = o->id;
    sp->out_type[i] = o->shape.type;
  }
  pc->sprog = sp;
}

/* Round v to type t the way a store then load would. */
static hlo_sc fit(hlo_type t, hlo_sc v) {
  switch (hlo_type_kind_of(t)) {
  case HLO_KIND_FLOAT: v.f = hlo_sc_round(t, v.f); v.im = 0; break;
  case HLO_KIND_COMPLEX: v.f = hlo_sc_round(t, v.f); v.im = hlo_sc_round(t, v.im); break;
  case HLO_KIND_PRED: v.i = v.i != 0; break;
  case HLO_KIND_SINT: case HLO_KIND_UINT: v.i = hlo_sc_wrap(t, v.i); break;
  case HLO_KIND_TOKEN: case HLO_KIND_OPAQUE: case HLO_KIND_TUPLE: break;
  }
  return v;
}

int hlo_sprog_run(const scalar_prog *sp, const hlo_sc *in, int nin, hlo_sc *out, int nout) {
  hlo_sc small[64], *R = small;
  if (sp->nregs > 64 || nin != sp->nparams) return HLO_ERR;
  memcpy(R, sp->consts, sizeof(hlo_sc) * (size_t)sp->nregs);
  for (int i = 0; i < nin; i++) R[sp->param_reg[i]] = in[i];
  for (int k = 0; k < sp->nsteps; k++) {
    const sp_step *t = &sp->steps[k];
    hlo_sc v;
    switch (t->op) {
    case HLO_OP_COMPARE:
      v.i = hlo_ref_compare(t->dir, t->ctype, t->t, R[t->a], R[t->b]);
      v.f = v.im = 0;
      break;
    case HLO_OP_SELECT: v = R[t->a].i ? R[t->b] : R[t->c]; break;
    case HLO_OP_CLAMP:
      v = hlo_ref_binary(HLO_OP_MINIMUM, t->t, t->t,
                         hlo_ref_binary(HLO_OP_MAXIMUM, t->t, t->t, R[t->a], R[t->b]), R[t->c]);
      break;
    case HLO_OP_CONVERT: v = hlo_ref_convert(t->t, t->ot, R[t->a]); break;
    case HLO_OP_COPY: v = R[t->a]; break;
    default:
      if (hlo_opcode_arity(t->op) == 1)
        v = hlo_ref_unary(t->op, t->t, t->ot, R[t->a]);
      else
        v = hlo_ref_binary(t->op, t->t, t->ot, R[t->a], R[t->b]);
      break;
    }
    R[t->dst] = fit(t->ot, v);
  }
  for (int i = 0; i < nout && i < sp->nout; i++) out[i] = R[sp->out_reg[i]];
  return HLO_OK;
}
