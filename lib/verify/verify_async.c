/* verify_async.c - async-start, async-update and async-done as XLA's
 * ShapeVerifier::CheckAsyncOp checks them (operands may be bound late: an
 * async-start may bind a prefix of the wrapped computation's parameters and
 * each async-update binds more), in XLA's order, stopping at the first
 * broken rule: the shape's form, the shapes against the wrapped
 * computation, the execution thread, the operands, then the async-start's
 * output_to_operand_aliasing.  These ops get no inferred-shape comparison. */
#include <string.h>

#include "verify/verify_internal.h"

/* The async-start at the head of an async chain (NULL if broken). */
const hlo_instruction *vx_chain_start(const hlo_instruction *in) {
  for (int guard = 0; in && guard < 1 << 20; guard++) {
    if (in->op == HLO_OP_ASYNC_START) return in;
    if ((in->op != HLO_OP_ASYNC_UPDATE && in->op != HLO_OP_ASYNC_DONE) || in->noperands < 1) return NULL;
    in = in->operands[0];
  }
  return NULL;
}

/* XLA's ShapesSame: compatible, and equal with layouts when layout-sensitive. */
static bool same(const vctx *v, const hlo_shape *a, const hlo_shape *b) {
  return vx_same(v, a, b);
}

/* XLA's ShapeVerifier::IsShapePrefix: a equals b, or is the empty tuple, or
 * is a tuple whose elements are (prefixes of) b's first elements. */
static bool is_prefix(const vctx *v, const hlo_shape *a, const hlo_shape *b, int depth) {
  if (same(v, a, b)) return true;
  if (a->type == HLO_TUPLE && a->ntuple == 0) return true;
  if (a->type != HLO_TUPLE || b->type != HLO_TUPLE || a->ntuple > b->ntuple || depth > 64) return false;
  for (int i = 0; i < a->ntuple; i++)
    if (!is_prefix(v, &a->tuple[i], &b->tuple[i], depth + 1)) return false;
  return true;
}

static bool async_form(const hlo_shape *s) {
  return s->type == HLO_TUPLE && s->ntuple >= 2 && s->tuple[0].type == HLO_TUPLE;
}

/* The tuple of the wrapped computation's parameter shapes (in scratch). */
static bool param_tuple(vctx *v, const hlo_computation *w, hlo_shape *out) {
  *out = (hlo_shape){.type = HLO_TUPLE, .ntuple = w->nparams};
  if (!w->nparams) return true;
  hlo_shape *ps = hlo_arena_array(&v->scratch, (size_t)w->nparams, sizeof *ps);
  if (!ps) return false;
  for (int i = 0; i < w->nparams; i++) {
    if (!w->params[i]) return false;
    ps[i] = w->params[i]->shape;
  }
  out->tuple = ps;
  return true;
}

static const char *name(const hlo_instruction *in) {
  return in->name ? in->name : "?";
}

/* CheckAsyncOpComputationShapes. */
static bool check_computation_shapes(vctx *v, const hlo_instruction *in, const hlo_shape *params,
                                     const hlo_shape *result) {
  const char *op = hlo_opcode_name(in->op);
  if (in->op == HLO_OP_ASYNC_DONE) {
    if (same(v, &in->shape, result)) return true;
    vx_fail(v, in, "%s (opcode: %s) expects its shape to match the async computation result shape (%s vs %s).",
            name(in), op, vx_str_layout(v, &in->shape), vx_str_layout(v, result));
    return false;
  }
  if (!is_prefix(v, &in->shape.tuple[0], params, 0)) {
    vx_fail(v, in,
            "%s (opcode: %s) expects the async shape at index {0} to be a tuple with shapes that match the prefix of "
            "the async computation parameter shape: `%s` vs `%s`.",
            name(in), op, vx_str_layout(v, &in->shape.tuple[0]), vx_str_layout(v, params));
    return false;
  }
  if (!is_prefix(v, &in->shape.tuple[1], result, 0)) {
    vx_fail(v, in,
            "%s (opcode: %s) expects the async shape at index {1} to be a tuple with shapes that match the prefix of "
            "the async computation result shape (%s vs %s).",
            name(in), op, vx_str_layout(v, &in->shape.tuple[1]), vx_str_layout(v, result));
    return false;
  }
  return true;
}

/* CheckAsyncOpComputationThreadName. */
static bool check_thread(vctx *v, const hlo_instruction *in, const hlo_instruction *start,
                         const hlo_computation *w) {
  const char *t = vx_async_thread(v, start), *wt = vx_thread(v, w);
  if (!strcmp(t, wt)) return true;
  vx_fail(v, in, "%s expects same async thread name as wrapped computation's thread name (%s vs %s).",
          hlo_opcode_name(in->op), t, wt);
  return false;
}

static bool is_start_or_update(const hlo_instruction *o) {
  return o && (o->op == HLO_OP_ASYNC_START || o->op == HLO_OP_ASYNC_UPDATE);
}

/* CheckAsyncStartOperands / CheckAsyncUpdateOperands / CheckAsyncDoneOperands. */
static bool check_operands(vctx *v, const hlo_instruction *in, const hlo_shape *params) {
  const char *op = hlo_opcode_name(in->op);
  const hlo_shape *bound = in->op == HLO_OP_ASYNC_DONE ? NULL : &in->shape.tuple[0];
  if (in->op == HLO_OP_ASYNC_START) {
    if (in->noperands != bound->ntuple) {
      vx_fail(v, in, "%s (opcode: %s) expects %d operands, found %d.", name(in), op, bound->ntuple, in->noperands);
      return false;
    }
    for (int i = 0; i < in->noperands; i++)
      if (!same(v, &bound->tuple[i], &in->operands[i]->shape)) {
        vx_fail(v, in, "%s (opcode: %s) expects the shape of operand %d to match the async shape at index {0, %d} (%s vs %s).",
                name(in), op, i, i, vx_str_layout(v, &in->operands[i]->shape), vx_str_layout(v, &bound->tuple[i]));
        return false;
      }
    return true;
  }
  const hlo_instruction *o = in->noperands ? in->operands[0] : NULL;
  if (in->op == HLO_OP_ASYNC_DONE && in->noperands != 1) {
    vx_fail(v, in, "%s (opcode: %s) expects a single operand, found %d.", name(in), op, in->noperands);
    return false;
  }
  if (!o) {
    vx_fail(v, in, "%s (opcode: %s) expects at least one operand, found 0.", name(in), op);
    return false;
  }
  if (!is_start_or_update(o)) {
    vx_fail(v, in, "%s (opcode: %s) expects the operand to be async-start or async-update, found %s.", name(in), op,
            hlo_opcode_name(o->op));
    return false;
  }
  if (!async_form(&o->shape)) return true; /* reported at the operand */
  const hlo_shape *prev = &o->shape.tuple[0];
  if (in->op == HLO_OP_ASYNC_DONE) {
    /* AreOperandsAndOutputFullyBound at {0}: every parameter bound */
    if (!params || hlo_shape_xla_compatible(params, prev, false)) return true;
    vx_fail(v, in, "%s (opcode: %s) expects the operands of the previous async instruction to be fully bound.",
            name(in), op);
    return false;
  }
  if (!is_prefix(v, prev, bound, 0)) {
    vx_fail(v, in,
            "%s (opcode: %s) expects the parameter shape of operand to be a prefix of the output parameter shape (%s vs %s).",
            name(in), op, vx_str_layout(v, prev), vx_str_layout(v, bound));
    return false;
  }
  if (!is_prefix(v, &o->shape.tuple[1], &in->shape.tuple[1], 0)) {
    vx_fail(v, in,
            "%s (opcode: %s) expects the result shape of operand to be a prefix of the output result shape (%s vs %s).",
            name(in), op, vx_str_layout(v, &o->shape.tuple[1]), vx_str_layout(v, &in->shape.tuple[1]));
    return false;
  }
  int fresh = in->noperands - 1, was = prev->ntuple, now = bound->ntuple;
  if (fresh != now - was) {
    vx_fail(v, in, "%s (opcode: %s) has %d new operands, but the shape indicates %d new bound parameters.", name(in),
            op, fresh, now - was);
    return false;
  }
  for (int i = 0; i < fresh; i++) {
    const hlo_shape *want = &bound->tuple[was + i], *got = &in->operands[1 + i]->shape;
    if (!same(v, want, got)) {
      vx_fail(v, in, "%s (opcode: %s) expects the shape of operand %d to match the async shape at index {0, %d} (%s vs %s).",
              name(in), op, 1 + i, was + i, vx_str_layout(v, got), vx_str_layout(v, want));
      return false;
    }
  }
  return true;
}

void vx_op_async(vctx *v, const hlo_instruction *in) {
  if (in->op != HLO_OP_ASYNC_DONE && !async_form(&in->shape)) {
    vx_fail(v, in,
            "%s (opcode: %s) expects the async shape to be in the form of ((op0_shape, op1_shape, ...), "
            "output_shape, ...), found %s.",
            name(in), hlo_opcode_name(in->op), vx_str_layout(v, &in->shape));
    return;
  }
  const hlo_instruction *start = vx_chain_start(in);
  const hlo_computation *w = start && start->ncalled ? start->called[0] : NULL;
  if (!w || !w->root) {
    if (in->op != HLO_OP_ASYNC_START) check_operands(v, in, NULL); /* the broken chain */
    return;
  }
  hlo_shape params;
  if (!param_tuple(v, w, &params)) return;
  if (!check_computation_shapes(v, in, &params, &w->root->shape)) return;
  if (!check_thread(v, in, start, w)) return;
  if (!check_operands(v, in, &params)) return;
  if (in->op == HLO_OP_ASYNC_START) vx_async_aliasing(v, in, w, &params);
}
