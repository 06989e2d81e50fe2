/* verify_alias.c - output_to_operand_aliasing of fusion, custom-call and
 * async-start, as XLA's ShapeVerifier checks it (HandleFusion,
 * HandleCustomCall, CheckAsyncOpAliasConfig): each pair names an operand
 * (for async-start, a parameter of the wrapped computation) that exists,
 * shape indices valid in that operand and in the output, and the two
 * subshapes agree: equal with layouts when layout-sensitive, else
 * compatible. */
#include <string.h>

#include "verify/verify_internal.h"

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
            "Different aliasing shapes: %s vs %s (output_to_operand_aliasing pairs output %s with operand %lld at %s)",
            vx_str_layout(v, os), vx_str_layout(v, rs), vx_index_str(v, en->output_index, en->noutput),
            (long long)en->operand, vx_index_str(v, en->operand_index, en->noperand_index));
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
  if (in->op == HLO_OP_ASYNC_START) return; /* vx_async_aliasing, from vx_op_async */
  /* Pin and Unpin alias an array with the buffer that holds it; an
   * async-start's pairs compare shapes without the buffer marks too */
  bool pin = false;
  if (in->op == HLO_OP_CUSTOM_CALL) {
    const hlo_attr *t = hlo_instr_attr(in, HLO_A_CUSTOM_CALL_TARGET);
    pin = t && t->kind == HLO_AK_STRING && t->u.s && (!strcmp(t->u.s, "Pin") || !strcmp(t->u.s, "Unpin"));
  }
  for (int i = 0; i < a->u.aliasing.n; i++) {
    const hlo_alias_entry *en = &a->u.aliasing.v[i];
    if (en->operand < 0 || en->operand >= in->noperands) {
      vx_fail(v, in, "output_to_operand_aliasing names operand %lld, but there are %d", (long long)en->operand,
              in->noperands);
      continue;
    }
    check_pair(v, in, en, &in->shape, &in->operands[en->operand]->shape, v->o.layout_sensitive, pin);
  }
}

/* XLA's CheckAsyncOpAliasConfig: output indices walk ((parameters...),
 * result, the start's own context elements...); the first broken rule ends
 * the check, in XLA's words. */
void vx_async_aliasing(vctx *v, const hlo_instruction *in, const hlo_computation *w, const hlo_shape *params) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OUTPUT_TO_OPERAND_ALIASING);
  if (!a || a->kind != HLO_AK_ALIASING) return;
  int n = in->shape.ntuple;
  hlo_shape *el = hlo_arena_array(&v->scratch, (size_t)n, sizeof *el);
  if (!el) return;
  el[0] = *params;
  el[1] = w->root->shape;
  for (int i = 2; i < n; i++) el[i] = in->shape.tuple[i];
  hlo_shape out = {.type = HLO_TUPLE, .ntuple = n, .tuple = el};
  for (int i = 0; i < a->u.aliasing.n; i++) {
    const hlo_alias_entry *en = &a->u.aliasing.v[i];
    const char *why = NULL;
    const hlo_shape *os = NULL, *rs = NULL;
    if (en->operand < 0) why = "Negative operand number in aliasing config.";
    else if (en->operand >= w->nparams || !w->params[en->operand]) why = "";
    else if (!(os = vx_subshape(&w->params[en->operand]->shape, en->operand_index, en->noperand_index)))
      why = "Invalid aliasing operand shape index.";
    else if (!en->noutput) why = "Output index should not be empty.";
    else if (!(rs = vx_subshape(&out, en->output_index, en->noutput))) why = "Invalid aliasing output shape index.";
    if (why && !*why) {
      vx_fail(v, in, "Operand number %lld in aliasing config is out of bounds.", (long long)en->operand);
      return;
    }
    if (why) {
      vx_fail(v, in, "%s", why);
      return;
    }
    hlo_shape x = *os, y = *rs;
    x.buffer = y.buffer = false;
    bool ok = hlo_shape_compatible(&x, &y) &&
              (!v->o.layout_sensitive || vx_layout_equal(os, rs));
    if (!ok) {
      vx_fail(v, in, "Different aliasing shapes: %s vs %s", vx_str_layout(v, os), vx_str_layout(v, rs));
      return;
    }
  }
}
