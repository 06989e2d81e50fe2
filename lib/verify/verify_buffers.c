/* verify_buffers.c - where buffer shapes b(...) may appear, as XLA's
 * VerifyBuffers decides, in XLA's words: the custom calls Pin (array ->
 * buffer), Unpin (buffer -> array) and CreateBuffer (-> buffer); other
 * custom calls pass each buffer operand and result through exactly one
 * aliasing pair; dynamic-update-slice may update a buffer in place; tuples,
 * get-tuple-elements, while loops and parameters outside the entry carry
 * them; async ops and stream-annotated calls are left to their wrapped
 * computations, of which only the root custom call is checked; every other
 * instruction, and the entry's parameters, have none.  A buffer value has
 * at most one writer (XLA's CountWriters: a callable, while, conditional
 * or dynamic-update-slice user writes it, as does a while body's root
 * tuple; tuples and get-tuple-elements pass it on). */
#include <string.h>

#include "verify/verify_internal.h"

enum { INDEX_MAX = 64 };

static bool has_buffer(const hlo_shape *s) {
  if (s->type != HLO_TUPLE) return s->buffer;
  for (int i = 0; i < s->ntuple; i++)
    if (has_buffer(&s->tuple[i])) return true;
  return false;
}

static const char *target_of(const hlo_instruction *in) {
  const hlo_attr *t = hlo_instr_attr(in, HLO_A_CUSTOM_CALL_TARGET);
  return t && t->kind == HLO_AK_STRING && t->u.s ? t->u.s : "";
}

static const hlo_attr *aliasing(const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OUTPUT_TO_OPERAND_ALIASING);
  return a && a->kind == HLO_AK_ALIASING ? a : NULL;
}

static bool called_by_while(const vctx *v, const hlo_computation *c) {
  for (int ci = 0; ci < v->m->ncomps; ci++)
    for (int i = 0; i < v->m->comps[ci]->ninstrs; i++) {
      const hlo_instruction *w = v->m->comps[ci]->instrs[i];
      for (int k = 0; w->op == HLO_OP_WHILE && k < w->ncalled; k++)
        if (w->called[k] == c) return true;
    }
  return false;
}

static bool callable(hlo_opcode op) {
  return op == HLO_OP_CALL || op == HLO_OP_FUSION || op == HLO_OP_CUSTOM_CALL || op == HLO_OP_ASYNC_START ||
         op == HLO_OP_ASYNC_UPDATE || op == HLO_OP_ASYNC_DONE;
}

static int64_t count_writers(const vctx *v, const hlo_instruction *in, const int64_t *idx, int n);

/* XLA's CountWritersInUser. */
static int64_t writers_in_user(const vctx *v, const hlo_instruction *in, const int64_t *idx, int n,
                               const hlo_instruction *u) {
  if (callable(u->op) || u->op == HLO_OP_WHILE || u->op == HLO_OP_CONDITIONAL || u->op == HLO_OP_DYNAMIC_UPDATE_SLICE)
    return 1;
  if (u->op == HLO_OP_GET_TUPLE_ELEMENT && n > 0 && hlo_instr_int(u, HLO_A_INDEX, -1) == idx[0])
    return count_writers(v, u, idx + 1, n - 1);
  if (u->op != HLO_OP_TUPLE) return 0;
  if (u->parent && u->parent->root == u) return in->parent && called_by_while(v, in->parent);
  if (n >= INDEX_MAX) return 0;
  int64_t deeper[INDEX_MAX];
  int k = 0;
  while (k < u->noperands && u->operands[k] != in) k++;
  deeper[0] = k;
  for (int i = 0; i < n; i++) deeper[i + 1] = idx[i];
  return count_writers(v, u, deeper, n + 1);
}

static int64_t count_writers(const vctx *v, const hlo_instruction *in, const int64_t *idx, int n) {
  int64_t w = 0;
  for (int i = 0; i < in->nusers; i++) w += writers_in_user(v, in, idx, n, in->users[i]);
  return w;
}

/* CheckBufferHasUniqueWriter for the buffer at idx of in's result. */
static bool unique_writer(vctx *v, const hlo_instruction *in, const int64_t *idx, int n) {
  if (count_writers(v, in, idx, n) <= 1) return true;
  vx_fail(v, in, "an HLO buffer value has more than one writers (or unpins): '%s' '%s'", in->name,
          vx_index_str(v, idx, n));
  return false;
}

/* CheckBufferHasUniqueWriters: every buffer of s (in's result) at idx. */
static bool unique_writers(vctx *v, const hlo_instruction *in, const hlo_shape *s, int64_t *idx, int n) {
  if (s->type != HLO_TUPLE) return !s->buffer || unique_writer(v, in, idx, n);
  for (int i = 0; i < s->ntuple && n < INDEX_MAX; i++) {
    idx[n] = i;
    if (!unique_writers(v, in, &s->tuple[i], idx, n + 1)) return false;
  }
  return true;
}

static bool no_buffers(vctx *v, const hlo_instruction *in, const hlo_shape *s) {
  if (!has_buffer(s)) return true;
  vx_fail(v, in, "Seen buffers while buffers aren't allowed in this context: %s", in->name);
  return false;
}

/* VerifyNoBuffersInContext. */
static bool none_in_context(vctx *v, const hlo_instruction *in) {
  if (!no_buffers(v, in, &in->shape)) return false;
  for (int i = 0; i < in->noperands; i++)
    if (!no_buffers(v, in, &in->operands[i]->shape)) return false;
  return true;
}

static bool same_unbuffered(const vctx *v, const hlo_shape *x, const hlo_shape *y) {
  hlo_shape a = *x, b = *y;
  a.buffer = b.buffer = false;
  return hlo_shape_compatible(&a, &b) && (!v->o.layout_sensitive || vx_layout_equal(&a, &b));
}

static int alias_count(const hlo_instruction *in) {
  const hlo_attr *a = aliasing(in);
  return a ? a->u.aliasing.n : 0;
}

/* VerifyPin / VerifyUnpin. */
static void check_pin(vctx *v, const hlo_instruction *in, bool pin) {
  const char *name = pin ? "Pin" : "Unpin";
  const hlo_shape *op = in->noperands == 1 ? &in->operands[0]->shape : NULL;
  int64_t idx[1];
  if (!op || (pin ? op->type == HLO_TUPLE || op->buffer : op->type == HLO_TUPLE || !op->buffer))
    vx_fail(v, in, pin ? "custom-call to Pin must have one array non-buffer operand"
                       : "custom-call to Unpin must have one buffer operand");
  else if (pin ? in->shape.type == HLO_TUPLE || !in->shape.buffer : in->shape.type == HLO_TUPLE || in->shape.buffer)
    vx_fail(v, in, pin ? "custom-call to Pin must have one buffer result"
                       : "custom-call to Unpin must have one array non-buffer result");
  else if (!same_unbuffered(v, op, &in->shape))
    vx_fail(v, in, "custom-call to %s must have the same shape as the operand", name);
  else if (alias_count(in) != 1)
    vx_fail(v, in, "custom-call to %s must have one output-to-operand aliasing", name);
  else if (pin)
    unique_writer(v, in, idx, 0);
}

static bool same_index(const int64_t *a, int na, const int64_t *b, int nb) {
  if (na != nb) return false;
  for (int i = 0; i < na; i++)
    if (a[i] != b[i]) return false;
  return true;
}

/* VerifyBuffersInOperands for the buffers of operand k's shape s at idx. */
static bool operand_buffers(vctx *v, const hlo_instruction *in, int k, const hlo_shape *s, int64_t *idx, int n) {
  if (s->type == HLO_TUPLE) {
    for (int i = 0; i < s->ntuple && n < INDEX_MAX; i++) {
      idx[n] = i;
      if (!operand_buffers(v, in, k, &s->tuple[i], idx, n + 1)) return false;
    }
    return true;
  }
  if (!s->buffer) return true;
  const hlo_attr *a = aliasing(in);
  int uses = 0;
  for (int i = 0; a && i < a->u.aliasing.n; i++) {
    const hlo_alias_entry *e = &a->u.aliasing.v[i];
    uses += e->operand == k && same_index(e->operand_index, e->noperand_index, idx, n);
  }
  if (uses == 1) return true;
  vx_fail(v, in,
          uses ? "buffer is used in results multiple times: operand %d ShapeIndex %s"
               : "buffer is used in operands but not in results: operand %d ShapeIndex %s",
          k, vx_index_str(v, idx, n));
  return false;
}

/* VerifyBuffersInResults, then one writer per buffer result. */
static bool result_buffers(vctx *v, const hlo_instruction *in, const hlo_shape *s, int64_t *idx, int n) {
  if (s->type == HLO_TUPLE) {
    for (int i = 0; i < s->ntuple && n < INDEX_MAX; i++) {
      idx[n] = i;
      if (!result_buffers(v, in, &s->tuple[i], idx, n + 1)) return false;
    }
    return true;
  }
  if (!s->buffer) return true;
  const hlo_attr *a = aliasing(in);
  int uses = 0;
  for (int i = 0; a && i < a->u.aliasing.n; i++)
    uses += same_index(a->u.aliasing.v[i].output_index, a->u.aliasing.v[i].noutput, idx, n);
  if (uses != 1) {
    vx_fail(v, in,
            uses ? "buffer is used in operands multiple times: %s" : "buffer is used in results but not in operands: %s",
            vx_index_str(v, idx, n));
    return false;
  }
  return true;
}

/* XLA's VerifyCustomCall. */
static void check_custom_call(vctx *v, const hlo_instruction *in) {
  const char *target = target_of(in);
  int64_t idx[INDEX_MAX];
  if (!strcmp(target, "Pin")) {
    check_pin(v, in, true);
  } else if (!strcmp(target, "Unpin")) {
    check_pin(v, in, false);
  } else if (!strcmp(target, "CreateBuffer")) {
    if (in->noperands) vx_fail(v, in, "custom-call to CreateBuffer can't have an operand");
    else if (in->shape.type == HLO_TUPLE || !in->shape.buffer)
      vx_fail(v, in, "custom-call to CreateBuffer must have one buffer result");
    else unique_writer(v, in, idx, 0);
  } else {
    for (int k = 0; k < in->noperands; k++)
      if (!operand_buffers(v, in, k, &in->operands[k]->shape, idx, 0)) return;
    if (result_buffers(v, in, &in->shape, idx, 0)) unique_writers(v, in, &in->shape, idx, 0);
  }
}

static bool stream_annotated(const hlo_instruction *in) {
  const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
  return fa && fa->kind == HLO_AK_RAW && fa->u.s && strstr(fa->u.s, "_xla_stream_annotation");
}

void hlo_verify_buffers(vctx *v, const hlo_instruction *in) {
  const hlo_computation *c = in->parent;
  int64_t idx[INDEX_MAX];
  if (c && v->async_comp && c->id >= 0 && c->id < v->m->ncomps && v->async_comp[c->id]) {
    if (in == c->root && in->op == HLO_OP_CUSTOM_CALL) check_custom_call(v, in);
    return;
  }
  if ((hlo_opcode_flags(in->op) & HLO_F_ASYNC) || (in->op == HLO_OP_CALL && stream_annotated(in))) return;
  switch (in->op) {
  case HLO_OP_CUSTOM_CALL: check_custom_call(v, in); return;
  case HLO_OP_WHILE: unique_writers(v, in, &in->shape, idx, 0); return;
  case HLO_OP_PARAMETER:
    if (c && c->is_entry && !none_in_context(v, in)) return;
    unique_writers(v, in, &in->shape, idx, 0);
    return;
  case HLO_OP_DYNAMIC_UPDATE_SLICE:
    if (in->noperands < 1 || in->operands[0]->shape.type == HLO_TUPLE || !in->operands[0]->shape.buffer) {
      none_in_context(v, in);
      return;
    }
    if (!unique_writers(v, in, &in->shape, idx, 0)) return;
    for (int i = 1; i < in->noperands; i++)
      if (!no_buffers(v, in, &in->operands[i]->shape)) return;
    if (in->shape.type == HLO_TUPLE || !in->shape.buffer)
      vx_fail(v, in, "DynamicUpdateSlice result must be a buffer if operand 0 is a buffer");
    return;
  case HLO_OP_GET_TUPLE_ELEMENT: case HLO_OP_TUPLE: return;
  default: none_in_context(v, in); return;
  }
}
