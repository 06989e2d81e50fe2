/* verify_ops.c - XLA's op-specific verifier checks that are not shape
 * inference: comparison types, rng operands, async start/done pairing,
 * collective source-target pairs and replica groups, composite calls,
 * bitcast sizes, unbounded dynamism, mixed precision and (layout-sensitive)
 * layout preservation. */
#include <stdlib.h>
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

static int64_t memory_space(const hlo_shape *s) {
  return s->layout ? s->layout->memory_space : VX_DEFAULT_SPACE;
}

/* The memory-space moves a host-offloading dynamic-slice, dynamic-update-
 * slice or copy may make (XLA's HostOffloadInstructionCanChangeMemorySpace,
 * its first condition kept as XLA writes it); false after a report. */
static bool space_change_ok(vctx *v, const hlo_instruction *in, int64_t from, int64_t to) {
  if ((from == VX_FAST_SPACE && to != VX_FAST_SPACE) && !(from != VX_FAST_SPACE && to == VX_FAST_SPACE)) {
    vx_fail(v, in, "Instruction shouldn't change layout memory space between generic fast memory space and others for instruction: %%%s",
            in->name);
    return false;
  }
  if (in->op == HLO_OP_DYNAMIC_SLICE && from == VX_DEFAULT_SPACE && to == VX_HOST_SPACE) {
    vx_fail(v, in, "DynamicSlice instruction shouldn't change layout memory space from device to host: %%%s", in->name);
    return false;
  }
  if (in->op == HLO_OP_DYNAMIC_UPDATE_SLICE && from == VX_HOST_SPACE && to == VX_DEFAULT_SPACE) {
    vx_fail(v, in, "DynamicUpdateSlice instruction shouldn't change layout memory space from host to device: %%%s",
            in->name);
    return false;
  }
  return true;
}

static void check_layout_change(vctx *v, const hlo_instruction *in) {
  if (!v->o.layout_sensitive || !hlo_verify_rules[in->op].keeps_layout || !hlo_shape_is_array(&in->shape)) return;
  bool offload = in->op == HLO_OP_DYNAMIC_SLICE || in->op == HLO_OP_DYNAMIC_UPDATE_SLICE || in->op == HLO_OP_COPY;
  for (int i = 0; i < in->noperands; i++) {
    const hlo_shape *s = &in->operands[i]->shape;
    if (!hlo_shape_is_array(s) || s->rank != in->shape.rank) continue;
    if (offload && in->shape.layout && s->layout && !space_change_ok(v, in, memory_space(s), memory_space(&in->shape)))
      return;
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

/* XLA's parser knows only these algorithms (RandomAlgorithm); the state
 * length is not tied to the algorithm. */
void vx_op_rng_bit_generator(vctx *v, const hlo_instruction *in) {
  const char *alg = hlo_instr_word(in, HLO_A_ALGORITHM);
  if (alg && strcmp(alg, "rng_three_fry") && strcmp(alg, "rng_philox") && strcmp(alg, "rng_default"))
    vx_fail(v, in, "unknown rng-bit-generator algorithm %s", alg);
}

/* The value of key in raw attribute text {k="v", ...} or {k="v" ...}
 * (frontend attributes, metadata); NULL if absent, copied to scratch. */
const char *vx_raw_value(vctx *v, const char *raw, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = raw; (p = strstr(p, key)); p += kl) {
    bool quoted_key = p > raw && p[-1] == '"';
    if (!quoted_key && p > raw && p[-1] != '{' && p[-1] != ' ' && p[-1] != ',') continue;
    const char *q = p + kl + quoted_key;
    if (quoted_key && q[-1] != '"') continue;
    while (*q == ' ') q++;
    if (*q++ != '=') continue;
    while (*q == ' ') q++;
    const char *e;
    if (*q == '{') { /* an unquoted braced value */
      int depth = 0;
      for (e = q; *e; e++)
        if (*e == '{') depth++;
        else if (*e == '}' && --depth == 0) break;
      if (*e) e++;
    } else if (*q == '"') {
      e = ++q;
      while (*e && *e != '"') e += *e == '\\' && e[1] ? 2 : 1;
    } else {
      continue;
    }
    char *r = hlo_arena_alloc(&v->scratch, (size_t)(e - q) + 1);
    if (!r) return NULL;
    memcpy(r, q, (size_t)(e - q));
    r[e - q] = 0;
    return r;
  }
  return NULL;
}

/* XLA's HandleCall for is_composite=true. */
void vx_op_composite(vctx *v, const hlo_instruction *in) {
  if (!hlo_instr_bool(in, HLO_A_IS_COMPOSITE, false)) return;
  const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
  const char *t = fa && fa->kind == HLO_AK_RAW ? fa->u.s : NULL;
  if (!t) {
    vx_fail(v, in, "A composite call op must have frontend attributes");
    return;
  }
  const char *name = vx_raw_value(v, t, "composite.name");
  if (!name || !*name) {
    vx_fail(v, in, "A composite call op must have frontend attributes with key composite.name whose value is non-empty");
    return;
  }
  const char *attrs = vx_raw_value(v, t, "composite.attributes");
  if (attrs && !*attrs) {
    vx_fail(v, in, "A composite call op must have frontend attributes with key composite.attributes whose value is default: {} or non-empty");
    return;
  }
  const char *ver = vx_raw_value(v, t, "composite.version");
  if (!ver) return;
  bool ok = *ver != 0;
  const char *p = ver;
  if (*p == '+') p++;
  ok &= *p != 0;
  for (; *p; p++) ok &= *p >= '0' && *p <= '9';
  if (!ok || strlen(ver) > 18)
    vx_fail(v, in, "A composite call op must have frontend attributes with a composite.version whose value is a non-negative integer but got: %s",
            ver);
}

/* XLA checks bitcast sizes only when layout-sensitive. */
void vx_op_bitcast(vctx *v, const hlo_instruction *in) {
  if (!v->o.layout_sensitive) return;
  int64_t a, b;
  const hlo_shape *s = &in->operands[0]->shape;
  /* sizes here carry no padding, so the padding allowance accepts all */
  if (v->o.allow_bitcast_to_have_different_size) return;
  if (hlo_shape_bytes(&in->shape, &a) && hlo_shape_bytes(s, &b) && a != b)
    vx_fail(v, in, "Bitcast cannot have different shape sizes of output (%lld) and operand (%lld)", (long long)a,
            (long long)b);
}

/* XLA's InstructionVerifier::HandleCustomCall: the GetRngSeed target takes
 * no operand and gives a u64 scalar (first broken rule only). */
static void check_get_rng_seed(vctx *v, const hlo_instruction *in) {
  const hlo_attr *t = hlo_instr_attr(in, HLO_A_CUSTOM_CALL_TARGET);
  if (!t || t->kind != HLO_AK_STRING || !t->u.s || strcmp(t->u.s, "GetRngSeed")) return;
  if (in->noperands)
    vx_fail(v, in, "GetRngSeed custom call must have 0 operands, but has %d", in->noperands);
  else if (in->shape.type != HLO_U64)
    vx_fail(v, in, "GetRngSeed custom call must return U64 type, but got %s", vx_str(v, &in->shape));
  else if (in->shape.rank)
    vx_fail(v, in, "GetRngSeed custom call must return a scalar, but got %s", vx_str(v, &in->shape));
}

void vx_op_custom_call(vctx *v, const hlo_instruction *in) {
  check_get_rng_seed(v, in);
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

/* XLA's IsNoOpScale: a bf16 scale of all-1 dimensions for a bf16 operand
 * that is not all 1s stands for no scale. */
static bool no_op_scale(const hlo_shape *operand, const hlo_shape *scale) {
  if (scale->type != operand->type || operand->type != HLO_BF16) return false;
  bool ones = true, other = false;
  for (int i = 0; i < scale->rank; i++) ones &= scale->dims[i] == 1;
  for (int i = 0; i < operand->rank; i++) other |= operand->dims[i] != 1;
  return ones && other;
}

/* XLA's ScalesShapeVerifier for operand k (0 lhs, 1 rhs) and its scale k + 2. */
static bool check_scale(vctx *v, const hlo_instruction *in, int k) {
  const hlo_instruction *op = in->operands[k], *sc = in->operands[k + 2];
  const hlo_shape *o = &op->shape, *s = &sc->shape;
  if (!hlo_shape_is_array(o) || !hlo_shape_is_array(s) || no_op_scale(o, s)) return true;
  if (s->rank != o->rank) {
    vx_fail(v, in, "Scale operand %s has a different number of dimensions than operand %s in %s", sc->name, op->name,
            in->name);
    return false;
  }
  int nc;
  hlo_instr_ints(in, k ? HLO_A_RHS_CONTRACTING_DIMS : HLO_A_LHS_CONTRACTING_DIMS, &nc);
  if (nc != 1) {
    vx_fail(v, in, "Contracting dimensions must have exactly one dimension in instruction %s", in->name);
    return false;
  }
  for (int i = 0; i < o->rank; i++)
    if (s->dims[i] == 0 ? o->dims[i] != 0 : o->dims[i] % s->dims[i] != 0) {
      vx_fail(v, in, "Dimension %d of operand %s should be a multiple of dimension %d of scale operand %s in %s", i,
              op->name, i, sc->name, in->name);
      return false;
    }
  return true;
}

/* XLA's HandleScaledDot before the shape check: the scales of lhs and rhs,
 * and not both scalars. */
void vx_op_scaled_dot(vctx *v, const hlo_instruction *in) {
  if (in->noperands != 4 || !check_scale(v, in, 0) || !check_scale(v, in, 1)) return;
  if (!in->operands[2]->shape.rank && in->operands[2]->shape.type != HLO_TUPLE && !in->operands[3]->shape.rank &&
      in->operands[3]->shape.type != HLO_TUPLE)
    vx_fail(v, in, "At least one of the scales should be not a scalar in %s", in->name);
}

/* XLA's HandleScan: a layout-sensitive verifier sees only associative
 * scans (ScanExpander turns the others into while loops first). */
void vx_op_scan(vctx *v, const hlo_instruction *in) {
  if (v->o.layout_sensitive && !hlo_instr_bool(in, HLO_A_IS_ASSOCIATIVE, false))
    vx_fail(v, in,
            "Non-associative scan reached layout-sensitive HloVerifier; it should have been expanded to a while loop "
            "by ScanExpander: %s",
            in->name);
}

void vx_op_dot_precision(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_OPERAND_PRECISION);
  if (a && a->kind == HLO_AK_WORDS && a->u.words.n != 2 && a->u.words.n != 0)
    vx_fail(v, in, "operand_precision must have 2 entries; got %d.", a->u.words.n);
}

/* One sparsity descriptor of "L.1@2:4_R.0@2:4": operand, dimension, n:m. */
static const char *parse_sparsity(const char *p, int *side, int64_t *dim, int64_t *n, int64_t *m) {
  if (*p != 'L' && *p != 'R') return NULL;
  *side = *p++ == 'R';
  char *e;
  if (*p++ != '.') return NULL;
  *dim = strtoll(p, &e, 10);
  if (e == p || *e != '@') return NULL;
  p = e + 1;
  *n = strtoll(p, &e, 10);
  if (e == p || *e != ':') return NULL;
  p = e + 1;
  *m = strtoll(p, &e, 10);
  if (e == p) return NULL;
  return e;
}

/* XLA's InferSparseDotMetadataShape: the sparse operand's shape in u16 with
 * the sparse dimension holding ceil(size / (n * groups per u16)) elements,
 * a group's indices taking n * ceil(log2 m) bits. */
static void check_sparse_metadata(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_SPARSITY);
  if (!a || a->kind != HLO_AK_RAW || !a->u.s) return;
  const char *p = a->u.s;
  for (int k = 0; *p && 2 + k < in->noperands; k++) {
    int side;
    int64_t dim, n, m;
    if (!(p = parse_sparsity(p, &side, &dim, &n, &m))) return;
    if (*p == '_') p++;
    const hlo_shape *op = &in->operands[side]->shape, *meta = &in->operands[2 + k]->shape;
    if (!hlo_shape_is_array(op) || dim < 0 || dim >= op->rank || n <= 0 || m <= 0) continue;
    int64_t index_bits = 0;
    while (((int64_t)1 << index_bits) < m && index_bits < 62) index_bits++;
    int64_t group_bits = n * (index_bits ? index_bits : 1);
    int64_t groups = (16 + group_bits - 1) / group_bits; /* groups per u16 */
    hlo_shape want = *op;
    want.type = HLO_U16;
    want.layout = NULL;
    want.dims = hlo_arena_array(&v->scratch, (size_t)op->rank, sizeof(int64_t));
    if (!want.dims) return;
    memcpy(want.dims, op->dims, (size_t)op->rank * sizeof(int64_t));
    if (want.dims[dim] != HLO_DIM_UNBOUNDED) want.dims[dim] = (op->dims[dim] + n * groups - 1) / (n * groups);
    if (!hlo_shape_xla_compatible(meta, &want, false))
      vx_fail(v, in, "Expected sparse dot metadata to have shape equal to %s, actual shape is %s", vx_str(v, &want),
              vx_str(v, meta));
  }
}

void vx_op_dot(vctx *v, const hlo_instruction *in) {
  vx_op_dot_precision(v, in);
  check_sparse_metadata(v, in);
}

void hlo_verify_op(vctx *v, const hlo_instruction *in) {
  if (!v->o.allow_unbounded_dynamism && vx_has_unbounded(&in->shape))
    vx_fail(v, in, "Unbounded dynamism is disabled for instruction: %s", vx_str(v, &in->shape));
  check_mixed_precision(v, in);
  check_layout_change(v, in);
}
