/* verify_buffers.c - where buffer shapes b(...) may appear, as XLA's
 * VerifyBuffers decides: the custom calls Pin (array -> buffer), Unpin
 * (buffer -> array) and CreateBuffer (-> buffer) with their shapes and one
 * aliasing pair; other custom calls pass a buffer only through an aliasing
 * pair, once; dynamic-update-slice may update a buffer in place; tuples,
 * get-tuple-elements, while loops, parameters outside the entry and async
 * ops carry them; every other instruction, and the entry's parameters, have
 * none.  (XLA's single-writer rule for buffers is not checked.) */
#include <string.h>

#include "verify/verify_internal.h"

static bool has_buffer(const hlo_shape *s) {
  if (s->type != HLO_TUPLE) return s->buffer;
  for (int i = 0; i < s->ntuple; i++)
    if (has_buffer(&s->tuple[i])) return true;
  return false;
}

static bool any_buffer(const hlo_instruction *in) {
  if (has_buffer(&in->shape)) return true;
  for (int i = 0; i < in->noperands; i++)
    if (has_buffer(&in->operands[i]->shape)) return true;
  return false;
}

static int alias_count(const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OUTPUT_TO_OPERAND_ALIASING);
  return a && a->kind == HLO_AK_ALIASING ? a->u.aliasing.n : 0;
}

/* Same shape apart from the buffer mark (layouts too when layout-sensitive). */
static bool same_unbuffered(const vctx *v, const hlo_shape *x, const hlo_shape *y) {
  hlo_shape a = *x, b = *y;
  a.buffer = b.buffer = false;
  return hlo_shape_compatible(&a, &b) && (!v->o.layout_sensitive || vx_layout_equal(&a, &b));
}

static void check_pin(vctx *v, const hlo_instruction *in, bool pin) {
  const char *name = pin ? "Pin" : "Unpin";
  const hlo_shape *op = in->noperands == 1 ? &in->operands[0]->shape : NULL;
  bool op_ok = op && op->type != HLO_TUPLE && op->buffer == !pin;
  if (!op_ok) {
    vx_fail(v, in, "custom-call %s takes one %s operand", name, pin ? "array (not buffer)" : "buffer");
    return;
  }
  if (in->shape.type == HLO_TUPLE || in->shape.buffer != pin) {
    vx_fail(v, in, "custom-call %s gives one %s result", name, pin ? "buffer" : "array (not buffer)");
    return;
  }
  if (!same_unbuffered(v, op, &in->shape)) {
    vx_fail(v, in, "custom-call %s keeps its operand's shape: %s becomes %s", name, vx_str_layout(v, op),
            vx_str_layout(v, &in->shape));
    return;
  }
  if (alias_count(in) != 1)
    vx_fail(v, in, "custom-call %s needs exactly one output_to_operand_aliasing pair; it has %d", name,
            alias_count(in));
}

/* A buffer operand or result of another custom call appears in exactly
 * one aliasing pair. */
static void check_custom_call_buffers(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OUTPUT_TO_OPERAND_ALIASING);
  int n = a && a->kind == HLO_AK_ALIASING ? a->u.aliasing.n : 0;
  for (int k = 0; k < in->noperands; k++) {
    const hlo_shape *s = &in->operands[k]->shape;
    if (s->type == HLO_TUPLE ? !has_buffer(s) : !s->buffer) continue;
    if (s->type == HLO_TUPLE) continue; /* buffers inside tuple operands: index-wise below */
    int uses = 0;
    for (int i = 0; i < n; i++)
      uses += a->u.aliasing.v[i].operand == k && a->u.aliasing.v[i].noperand_index == 0;
    if (uses != 1)
      vx_fail(v, in, "buffer operand %d must appear in exactly one output_to_operand_aliasing pair; it appears in %d",
              k, uses);
  }
  if (in->shape.type != HLO_TUPLE && in->shape.buffer) {
    int uses = 0;
    for (int i = 0; i < n; i++) uses += a->u.aliasing.v[i].noutput == 0;
    if (uses != 1)
      vx_fail(v, in, "a buffer result must appear in exactly one output_to_operand_aliasing pair; it appears in %d",
              uses);
  }
}

void hlo_verify_buffers(vctx *v, const hlo_instruction *in) {
  if (in->op == HLO_OP_CUSTOM_CALL) { /* Pin, Unpin, CreateBuffer: always */
    const hlo_attr *t = hlo_instr_attr(in, HLO_A_CUSTOM_CALL_TARGET);
    const char *target = t && t->kind == HLO_AK_STRING && t->u.s ? t->u.s : "";
    if (!strcmp(target, "Pin")) check_pin(v, in, true);
    else if (!strcmp(target, "Unpin")) check_pin(v, in, false);
    else if (!strcmp(target, "CreateBuffer")) {
      if (in->noperands) vx_fail(v, in, "custom-call CreateBuffer takes no operand");
      else if (in->shape.type == HLO_TUPLE || !in->shape.buffer)
        vx_fail(v, in, "custom-call CreateBuffer gives one buffer result");
    } else if (any_buffer(in)) {
      check_custom_call_buffers(v, in);
    }
    return;
  }
  if (!any_buffer(in)) return;
  const hlo_computation *c = in->parent;
  switch (in->op) {
  case HLO_OP_PARAMETER:
    if (c && c->is_entry) vx_fail(v, in, "an entry computation parameter cannot be a buffer");
    return;
  case HLO_OP_DYNAMIC_UPDATE_SLICE: {
    bool base = in->noperands > 0 && in->operands[0]->shape.buffer;
    for (int i = base ? 1 : 0; i < in->noperands; i++)
      if (has_buffer(&in->operands[i]->shape)) {
        vx_fail(v, in, "dynamic-update-slice takes a buffer only as operand 0; operand %d is %s", i,
                vx_str(v, &in->operands[i]->shape));
        return;
      }
    if (base && !in->shape.buffer)
      vx_fail(v, in, "dynamic-update-slice of a buffer gives a buffer; the result is %s", vx_str(v, &in->shape));
    else if (!base && has_buffer(&in->shape))
      vx_fail(v, in, "buffers are not allowed here: %s", vx_str(v, &in->shape));
    return;
  }
  case HLO_OP_TUPLE: case HLO_OP_GET_TUPLE_ELEMENT: case HLO_OP_WHILE:
    return;
  default:
    break;
  }
  if (hlo_opcode_flags(in->op) & HLO_F_ASYNC) return;
  /* a call annotated with a stream runs as an async op */
  if (in->op == HLO_OP_CALL) {
    const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
    if (fa && fa->kind == HLO_AK_RAW && fa->u.s && strstr(fa->u.s, "_xla_stream_annotation")) return;
  }
  vx_fail(v, in, "buffers are not allowed in %s (only in Pin, Unpin, CreateBuffer and aliased custom calls, "
          "dynamic-update-slice, tuples, while loops and parameters outside the entry)",
          hlo_opcode_name(in->op));
}
