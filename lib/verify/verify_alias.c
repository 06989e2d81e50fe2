/* verify_alias.c - output_to_operand_aliasing of fusion, custom-call and
 * async-start, as XLA's ShapeVerifier checks it (HandleFusion,
 * HandleCustomCall, HandleAsyncStart): each pair names an operand (for
 * async-start, a parameter of the wrapped computation) that exists, shape
 * indices valid in that operand and in the output, and the two subshapes
 * agree: equal with layouts when layout-sensitive, else compatible. */
#include <string.h>

#include "verify/verify_internal.h"

/* The shapes an async-start's output index walks: ((params...), result,
 * the start's own context elements...). */
static hlo_shape async_shape(vctx *v, const hlo_instruction *start, const hlo_computation *w) {
  hlo_shape s = {.type = HLO_TUPLE};
  int extra = start->shape.type == HLO_TUPLE && start->shape.ntuple > 2 ? start->shape.ntuple - 2 : 0;
  hlo_shape *el = hlo_arena_array(&v->scratch, (size_t)(2 + extra), sizeof *el);
  hlo_shape *ps = w->nparams ? hlo_arena_array(&v->scratch, (size_t)w->nparams, sizeof *ps) : NULL;
  if (!el || (w->nparams && !ps)) return s;
  for (int i = 0; i < w->nparams; i++)
    if (w->params[i]) ps[i] = w->params[i]->shape;
  el[0] = (hlo_shape){.type = HLO_TUPLE, .ntuple = w->nparams, .tuple = ps};
  el[1] = w->root->shape;
  for (int i = 0; i < extra; i++) el[2 + i] = start->shape.tuple[2 + i];
  s.ntuple = 2 + extra;
  s.tuple = el;
  return s;
}

static void check_pair(vctx *v, const hlo_instruction *in, const hlo_alias_entry *en, const hlo_shape *out,
                       const hlo_shape *operand_shape, bool layouts, bool ignore_buffer) {
  const hlo_shape *os = vx_subshape(operand_shape, en->operand_index, en->noperand_index);
  if (!os) {
    vx_fail(v, in, "output_to_operand_aliasing: shape index %s is not valid in operand %lld of shape %s",
            vx_index_str(v, en->operand_index, en->noperand_index), (long long)en->operand,
            vx_str(v, operand_shape));
    return;
  }
  const hlo_shape *rs = vx_subshape(out, en->output_index, en->noutput);
  if (!rs) {
    vx_fail(v, in, "output_to_operand_aliasing: output shape index %s is not valid in %s",
            vx_index_str(v, en->output_index, en->noutput), vx_str(v, out));
    return;
  }
  hlo_shape a = *os, b = *rs;
  if (ignore_buffer) a.buffer = b.buffer = false;
  bool same = hlo_shape_compatible(&a, &b) && (!layouts || vx_layout_equal(os, rs));
  if (!same)
    vx_fail(v, in,
            "output_to_operand_aliasing pairs output %s (%s) with operand %lld at %s (%s): the shapes differ",
            vx_index_str(v, en->output_index, en->noutput), vx_str_layout(v, rs), (long long)en->operand,
            vx_index_str(v, en->operand_index, en->noperand_index), vx_str_layout(v, os));
}

void hlo_verify_aliasing(vctx *v, const hlo_instruction *in) {
  if (in->op != HLO_OP_FUSION && in->op != HLO_OP_CUSTOM_CALL && in->op != HLO_OP_ASYNC_START) return;
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OUTPUT_TO_OPERAND_ALIASING);
  if (!a || a->kind != HLO_AK_ALIASING) return;
  if (in->op == HLO_OP_CUSTOM_CALL) {
    /* a frontend attribute switches the shape comparison off */
    const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
    if (fa && fa->kind == HLO_AK_RAW && fa->u.s && strstr(fa->u.s, "xla_skip_custom_call_alias_shape_check"))
      return;
  }
  const hlo_computation *w = NULL;
  hlo_shape out = in->shape;
  if (in->op == HLO_OP_ASYNC_START) {
    w = in->ncalled ? in->called[0] : NULL;
    if (!w || !w->root) return;
    out = async_shape(v, in, w);
  }
  /* Pin and Unpin alias an array with the buffer that holds it; an
   * async-start's pairs compare shapes without the buffer marks too */
  bool pin = false;
  if (in->op == HLO_OP_CUSTOM_CALL) {
    const hlo_attr *t = hlo_instr_attr(in, HLO_A_CUSTOM_CALL_TARGET);
    pin = t && t->kind == HLO_AK_STRING && t->u.s && (!strcmp(t->u.s, "Pin") || !strcmp(t->u.s, "Unpin"));
  }
  for (int i = 0; i < a->u.aliasing.n; i++) {
    const hlo_alias_entry *en = &a->u.aliasing.v[i];
    int limit = w ? w->nparams : in->noperands;
    if (en->operand < 0 || en->operand >= limit) {
      vx_fail(v, in, "output_to_operand_aliasing names %s %lld, but there are %d", w ? "parameter" : "operand",
              (long long)en->operand, limit);
      continue;
    }
    if (w && !en->noutput) {
      vx_fail(v, in, "output_to_operand_aliasing of an async-start needs a non-empty output index");
      continue;
    }
    const hlo_shape *operand_shape = w ? (w->params[en->operand] ? &w->params[en->operand]->shape : NULL)
                                       : &in->operands[en->operand]->shape;
    if (!operand_shape) continue;
    check_pair(v, in, en, &out, operand_shape, v->o.layout_sensitive, pin || w);
  }
}
