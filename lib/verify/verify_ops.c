/* verify_ops.c - XLA's op-specific verifier checks that are not shape
 * inference: comparison types, rng operands, async start/done pairing,
 * collective source-target pairs and replica groups, composite calls,
 * bitcast sizes, unbounded dynamism, mixed precision and (layout-sensitive)
 * layout preservation. */
#include <string.h>

#include "verify/verify_internal.h"

static void check_mixed_precision(vctx *v, const hlo_instruction *in) {
  if (v->o.allow_mixed_precision || hlo_verify_rules[in->op].mixed_precision_ok) return;
  hlo_type fp = HLO_TYPE_COUNT;
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *s = &in->operands[i]->shape;
    int n = s->type == HLO_TUPLE ? s->ntuple : 1;
    for (int k = 0; k < n; k++) {
      const hlo_shape *e = s->type == HLO_TUPLE ? &s->tuple[k] : s;
      if (!hlo_type_is_float(e->type)) continue;
      if (fp == HLO_TYPE_COUNT) fp = e->type;
      else if (fp != e->type) {
        vx_fail(v, in, "Seen floating point types of different precisions in %%%s (%s and %s), but mixed precision is disallowed.",
                in->name, hlo_type_name(fp), hlo_type_name(e->type));
        return;
      }
    }
  }
}

static void check_layout_change(vctx *v, const hlo_instruction *in) {
  if (!v->o.layout_sensitive || !hlo_verify_rules[in->op].keeps_layout || !hlo_shape_is_array(&in->shape)) return;
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *s = &in->operands[i]->shape;
    if (!hlo_shape_is_array(s) || s->rank != in->shape.rank) continue;
    if (!vx_layout_equal(s, &in->shape)) {
      vx_fail(v, in, "Instruction shouldn't change layouts: operand %d (%%%s) is %s but the result is %s.", i,
              in->operands[i]->name, vx_str_layout(v, s), vx_str_layout(v, &in->shape));
      return;
    }
  }
}

void vx_op_compare(vctx *v, const hlo_instruction *in) {
  const char *dir = hlo_instr_word(in, HLO_A_DIRECTION);
  static const char *const dirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  bool ok = false;
  for (int i = 0; dir && i < 6; i++) ok |= !strcmp(dir, dirs[i]);
  if (!ok) vx_fail(v, in, "compare needs direction=EQ, NE, GE, GT, LE or LT; got %s", dir ? dir : "none");
  const char *ty = hlo_instr_word(in, HLO_A_TYPE);
  if (!ty) return;
  hlo_type t = in->operands[0]->shape.type;
  hlo_type_kind k = hlo_type_kind_of(t);
  const char *want = NULL;
  if (k == HLO_KIND_COMPLEX) {
    if (strcmp(ty, "FLOAT")) want = "FLOAT";
  } else if (k == HLO_KIND_FLOAT) {
    if (strcmp(ty, "FLOAT") && strcmp(ty, "TOTALORDER")) want = "FLOAT or TOTALORDER";
  } else if (k == HLO_KIND_SINT) {
    if (strcmp(ty, "SIGNED")) want = "SIGNED";
  } else if (k == HLO_KIND_UINT || k == HLO_KIND_PRED) {
    if (strcmp(ty, "UNSIGNED")) want = "UNSIGNED";
  }
  if (want)
    vx_fail(v, in, "Expected comparison type %s. actual: %s, operand: %s", want, ty,
            vx_str(v, &in->operands[0]->shape));
}

static bool types_compatible(const vctx *v, hlo_type a, hlo_type b) {
  return a == b || (v->o.allow_mixed_precision && hlo_type_is_float(a) && hlo_type_is_float(b));
}

void vx_op_rng(vctx *v, const hlo_instruction *in) {
  if (in->noperands != 2) {
    vx_fail(v, in, "rng expects 2 operands, got %d.", in->noperands);
    return;
  }
  const hlo_shape *a = &in->operands[0]->shape, *b = &in->operands[1]->shape;
  if (!hlo_shape_is_scalar(a) || !hlo_shape_is_scalar(b)) {
    vx_fail(v, in, "Expected scalar types for the two operands of Rng instruction; got %s and %s.", vx_str(v, a),
            vx_str(v, b));
    return;
  }
  if (!hlo_shape_is_array(&in->shape) || !types_compatible(v, a->type, b->type) ||
      !types_compatible(v, a->type, in->shape.type)) {
    vx_fail(v, in, "Expected compatible element types for the result and the two operands of Rng instruction; got %s, %s and %s.",
            vx_str(v, &in->shape), vx_str(v, a), vx_str(v, b));
    return;
  }
  const char *dist = hlo_instr_word(in, HLO_A_DISTRIBUTION);
  hlo_type t = a->type;
  if (dist && !strcmp(dist, "rng_uniform")) {
    if (!hlo_type_is_float(t) && !hlo_type_is_int(t) && t != HLO_PRED)
      vx_fail(v, in, "Element type not supported. Expected element to be of floating point type, integral type or predicate type for RngUniform; got %s.",
              hlo_type_name(t));
  } else if (dist && !strcmp(dist, "rng_normal")) {
    if (!hlo_type_is_float(t))
      vx_fail(v, in, "Element type not supported. Expected element to be FloatingPointType for RngNormal; got %s.",
              hlo_type_name(t));
  } else {
    vx_fail(v, in, "rng needs distribution=rng_uniform or rng_normal; got %s", dist ? dist : "none");
  }
}

void vx_op_rng_bit_generator(vctx *v, const hlo_instruction *in) {
  const char *alg = hlo_instr_word(in, HLO_A_ALGORITHM);
  const hlo_shape *st = &in->operands[0]->shape;
  if (!hlo_shape_is_array(st) || st->rank != 1) return; /* reported by inference */
  if (alg && !strcmp(alg, "rng_three_fry") && st->dims[0] != 2)
    vx_fail(v, in, "rng_three_fry needs a state of 2 elements; got %s.", vx_str(v, st));
  else if (alg && !strcmp(alg, "rng_philox") && st->dims[0] != 2 && st->dims[0] != 3)
    vx_fail(v, in, "rng_philox needs a state of 2 or 3 elements; got %s.", vx_str(v, st));
  else if (alg && strcmp(alg, "rng_three_fry") && strcmp(alg, "rng_philox") && strcmp(alg, "rng_default"))
    vx_fail(v, in, "unknown rng-bit-generator algorithm %s", alg);
}

/* A *-done must consume its *-start, and a start must have one consumer. */
static void check_async_pair(vctx *v, const hlo_instruction *in, hlo_opcode start, hlo_opcode alt) {
  const hlo_instruction *op = in->operands[0];
  if (op->op != start && op->op != alt)
    vx_fail(v, in, "The operand of a %s instruction needs to be %s, found %s", hlo_opcode_name(in->op),
            hlo_opcode_name(start), hlo_opcode_name(op->op));
}

static void check_start_users(vctx *v, const hlo_instruction *in) {
  if (in->nusers != 1 && !(in->parent && in->parent->root == in && in->nusers == 0))
    vx_fail(v, in, "%s instruction requires one consumer, found %d", hlo_opcode_name(in->op), in->nusers);
}

static void check_replica_groups(vctx *v, const hlo_instruction *in, bool uniform) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_REPLICA_GROUPS);
  if (!a || a->kind != HLO_AK_REPLICA_GROUPS || a->u.groups->iota) return;
  const hlo_replica_groups *g = a->u.groups;
  for (int i = 0; i < g->ngroups; i++) {
    if (uniform && g->group_sizes[i] != g->group_sizes[0]) {
      vx_fail(v, in, "Replica groups expected to be of uniform size; group 0 has %d members, group %d has %d.",
              g->group_sizes[0], i, g->group_sizes[i]);
      return;
    }
    for (int k = 0; k < g->group_sizes[i]; k++) {
      int64_t id = g->groups[i][k];
      if (id < 0) {
        vx_fail(v, in, "Replica id %lld in replica_groups is negative.", (long long)id);
        return;
      }
      for (int j = 0; j <= i; j++)
        for (int q = 0; q < (j == i ? k : g->group_sizes[j]); q++)
          if (g->groups[j][q] == id) {
            vx_fail(v, in, "Replica %lld is repeated in instruction's replica-groups", (long long)id);
            return;
          }
    }
  }
}

void vx_op_source_target_pairs(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_SOURCE_TARGET_PAIRS);
  if (!a || a->kind != HLO_AK_PAIRS) return;
  int n = a->u.pairs.n;
  for (int i = 0; i < n; i++) {
    int64_t s = a->u.pairs.v[i][0], t = a->u.pairs.v[i][1];
    if (s < 0 || t < 0) {
      vx_fail(v, in, "Source-target pair {%lld,%lld} has a negative id.", (long long)s, (long long)t);
      return;
    }
    for (int j = 0; j < i; j++) {
      if (a->u.pairs.v[j][0] == s) {
        vx_fail(v, in, "Source %lld appears more than once in instruction's source-target pairs", (long long)s);
        return;
      }
      if (a->u.pairs.v[j][1] == t) {
        vx_fail(v, in, "Target %lld appears more than once in instruction's source-target pairs", (long long)t);
        return;
      }
    }
  }
}

void vx_op_composite(vctx *v, const hlo_instruction *in) {
  if (!hlo_instr_bool(in, HLO_A_IS_COMPOSITE, false)) return;
  const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
  if (!fa) {
    vx_fail(v, in, "A composite call op must have frontend attributes");
    return;
  }
  const char *t = fa->kind == HLO_AK_RAW ? fa->u.s : NULL;
  if (t && !strstr(t, "composite.name"))
    vx_fail(v, in, "A composite call op must have frontend attributes with key composite.name whose value is non-empty");
  if (t && !strstr(t, "composite.version"))
    vx_fail(v, in, "A composite call op must have frontend attributes with key composite.version");
}

void vx_op_bitcast(vctx *v, const hlo_instruction *in) {
  int64_t a, b;
  const hlo_shape *s = &in->operands[0]->shape;
  if (hlo_shape_bytes(&in->shape, &a) && hlo_shape_bytes(s, &b) && a != b)
    vx_fail(v, in, "Bitcast cannot have different shape sizes of output (%lld) and operand (%lld)", (long long)a,
            (long long)b);
}

void vx_op_custom_call(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OPERAND_LAYOUT_CONSTRAINTS);
  if (!a || a->kind != HLO_AK_SHAPES) return;
  if (a->u.shapes.n != in->noperands) {
    vx_fail(v, in, "Number of operand layout constraints (%d) must match the number of operands (%d).",
            a->u.shapes.n, in->noperands);
    return;
  }
  for (int i = 0; i < in->noperands; i++)
    if (!hlo_shape_xla_compatible(&a->u.shapes.v[i], &in->operands[i]->shape, false))
      vx_fail(v, in, "Operand %d shape %s is not compatible with its layout constraint %s.", i,
              vx_str(v, &in->operands[i]->shape), vx_str_layout(v, &a->u.shapes.v[i]));
}

void vx_op_dot_precision(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OPERAND_PRECISION);
  if (a && a->kind == HLO_AK_WORDS && a->u.words.n != 2 && a->u.words.n != 0)
    vx_fail(v, in, "operand_precision must have 2 entries; got %d.", a->u.words.n);
}

/* The done (or update) half of an async pair names its start. */
void vx_op_copy_done(vctx *v, const hlo_instruction *in) {
  check_async_pair(v, in, HLO_OP_COPY_START, HLO_OP_COPY_START);
}
void vx_op_all_reduce_done(vctx *v, const hlo_instruction *in) {
  check_async_pair(v, in, HLO_OP_ALL_REDUCE_START, HLO_OP_ALL_REDUCE_START);
}
void vx_op_all_gather_done(vctx *v, const hlo_instruction *in) {
  check_async_pair(v, in, HLO_OP_ALL_GATHER_START, HLO_OP_ALL_GATHER_START);
}
void vx_op_collective_permute_done(vctx *v, const hlo_instruction *in) {
  check_async_pair(v, in, HLO_OP_COLLECTIVE_PERMUTE_START, HLO_OP_COLLECTIVE_PERMUTE_START);
}
void vx_op_async_done(vctx *v, const hlo_instruction *in) {
  check_async_pair(v, in, HLO_OP_ASYNC_START, HLO_OP_ASYNC_UPDATE);
}
void vx_op_async_update(vctx *v, const hlo_instruction *in) {
  check_async_pair(v, in, HLO_OP_ASYNC_START, HLO_OP_ASYNC_UPDATE);
}
void vx_op_send_done(vctx *v, const hlo_instruction *in) { check_async_pair(v, in, HLO_OP_SEND, HLO_OP_SEND); }
void vx_op_recv_done(vctx *v, const hlo_instruction *in) { check_async_pair(v, in, HLO_OP_RECV, HLO_OP_RECV); }

void vx_op_async_start(vctx *v, const hlo_instruction *in) {
  check_start_users(v, in);
  check_replica_groups(v, in, false);
  vx_op_source_target_pairs(v, in);
}
void vx_op_replica_groups(vctx *v, const hlo_instruction *in) { check_replica_groups(v, in, false); }
void vx_op_uniform_groups(vctx *v, const hlo_instruction *in) { check_replica_groups(v, in, true); }

void hlo_verify_op(vctx *v, const hlo_instruction *in) {
  if (!v->o.allow_unbounded_dynamism && vx_has_unbounded(&in->shape))
    vx_fail(v, in, "Unbounded dynamism is disabled for instruction: %s", vx_str(v, &in->shape));
  check_mixed_precision(v, in);
  check_layout_change(v, in);
}
