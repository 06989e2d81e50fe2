/* pass_algsimp.c - the common rewrites of XLA's AlgebraicSimplifier, each a
 * rule indexed by opcode that returns what the instruction simplifies to
 * (an existing instruction or a new one) or NULL.  A rewrite only happens
 * when the result shape, layout included, is the instruction's own.  The
 * list, and the rewrites left out, are in docs/opt.md. */
#include <math.h>
#include <string.h>

#include "exec/exec.h"
#include "opt/opt_internal.h"

enum { OPT_MAX_RANK = 64 };

typedef hlo_instruction *rule_fn(opt_ctx *x, hlo_computation *c, hlo_instruction *in);

static bool same(const hlo_instruction *a, const hlo_instruction *b) { return hlo_shape_equal(&a->shape, &b->shape); }

/* x when op(x, k) with the constant k (or op(k, x) if commutative) */
static hlo_instruction *identity_operand(hlo_instruction *in, double k, bool commutative) {
  if (in->noperands != 2) return NULL;
  hlo_instruction *a = in->operands[0], *b = in->operands[1];
  if (opt_is_splat(b, k) && same(a, in)) return a;
  if (commutative && opt_is_splat(a, k) && same(b, in)) return b;
  return NULL;
}

static hlo_instruction *rw_add(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  return identity_operand(in, 0, true); /* A + 0 => A */
}

static hlo_instruction *rw_subtract(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  return identity_operand(in, 0, false); /* A - 0 => A */
}

static hlo_instruction *rw_multiply(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  return identity_operand(in, 1, true); /* A * 1 => A */
}

static hlo_instruction *rw_divide(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  return identity_operand(in, 1, false); /* A / 1 => A */
}

/* op(op(A)) => A for negate and not */
static hlo_instruction *rw_involution(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  hlo_instruction *a = in->noperands == 1 ? in->operands[0] : NULL;
  if (!a || a->op != in->op || a->noperands != 1 || !same(a->operands[0], in)) return NULL;
  return a->operands[0];
}

/* op(A, A) => A for maximum, minimum, and, or */
static hlo_instruction *rw_idempotent(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  if (in->noperands != 2 || in->operands[0] != in->operands[1] || !same(in->operands[0], in)) return NULL;
  return in->operands[0];
}

static hlo_instruction *rw_select(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  if (in->noperands != 3) return NULL;
  hlo_instruction *p = in->operands[0], *a = in->operands[1], *b = in->operands[2];
  if (a == b && same(a, in)) return a; /* select(P, A, A) => A */
  double v;
  if (!opt_splat_value(p, &v) || p->shape.type != HLO_PRED) return NULL;
  hlo_instruction *r = v != 0 ? a : b; /* select(true, A, B) => A; select(false, A, B) => B */
  return same(r, in) ? r : NULL;
}

/* convert, copy, reshape, transpose, reverse, pad, slice, concatenate of
 * one operand: the operand itself when nothing changes */
static hlo_instruction *no_op_of(hlo_instruction *in) {
  return in->noperands >= 1 && same(in->operands[0], in) ? in->operands[0] : NULL;
}

static hlo_instruction *rw_convert(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  return no_op_of(in); /* convert to the same type */
}

static hlo_instruction *rw_copy(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  return no_op_of(in); /* copy to the same layout */
}

/* A new instruction shaped like `like`, with one operand. */
static hlo_instruction *unary(opt_ctx *x, hlo_computation *c, hlo_opcode op, hlo_instruction *operand,
                              const hlo_instruction *like) {
  hlo_instruction *k = opt_add(x, c, op, hlo_opcode_name(op), 1, &like->shape);
  if (k) k->operands[0] = operand;
  return k;
}

static hlo_attr *ints_attr(opt_ctx *x, hlo_instruction *in, hlo_attr_key key, const int64_t *v, int n) {
  hlo_attr *a = opt_add_attr(x, in, key);
  int64_t *copy = a ? hlo_arena_array(&x->m->arena, (size_t)n + 1, sizeof *copy) : NULL;
  if (!copy) return NULL;
  if (n) memcpy(copy, v, (size_t)n * sizeof *copy);
  a->u.ints.n = n;
  a->u.ints.v = copy;
  return a;
}

static hlo_instruction *rw_reshape(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  hlo_instruction *a = in->noperands == 1 ? in->operands[0] : NULL;
  if (!a) return NULL;
  if (same(a, in)) return a; /* reshape to the same shape */
  if (!hlo_shape_is_array(&in->shape)) return NULL;
  if (a->op == HLO_OP_RESHAPE && a->noperands == 1) { /* reshape(reshape(A)) => reshape(A) */
    hlo_instruction *src = a->operands[0];
    return same(src, in) ? src : unary(x, c, HLO_OP_RESHAPE, src, in);
  }
  if (a->op == HLO_OP_BROADCAST && a->noperands == 1 && hlo_shape_is_scalar(&a->operands[0]->shape)) {
    hlo_instruction *k = unary(x, c, HLO_OP_BROADCAST, a->operands[0], in); /* reshape(broadcast(s)) */
    return k && ints_attr(x, k, HLO_A_DIMENSIONS, NULL, 0) ? k : NULL;
  }
  return NULL;
}

static hlo_instruction *rw_transpose(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  hlo_instruction *a = in->noperands == 1 ? in->operands[0] : NULL;
  int n, na;
  const int64_t *p = hlo_instr_ints(in, HLO_A_DIMENSIONS, &n);
  if (!a || !p || n != in->shape.rank) return NULL;
  bool ident = true;
  for (int i = 0; i < n; i++) ident &= p[i] == i;
  if (ident) return same(a, in) ? a : NULL; /* transpose by the identity */
  const int64_t *q = a->op == HLO_OP_TRANSPOSE ? hlo_instr_ints(a, HLO_A_DIMENSIONS, &na) : NULL;
  if (!q || na != n || a->noperands != 1) return NULL;
  /* transpose(transpose(A, q), p) = transpose(A, q∘p): dim i reads q[p[i]] */
  int64_t comp[OPT_MAX_RANK];
  if (n > OPT_MAX_RANK) return NULL;
  ident = true;
  for (int i = 0; i < n; i++) {
    if (p[i] < 0 || p[i] >= n) return NULL;
    comp[i] = q[p[i]];
    ident &= comp[i] == i;
  }
  hlo_instruction *src = a->operands[0];
  if (ident) return same(src, in) ? src : NULL;
  hlo_instruction *k = unary(x, c, HLO_OP_TRANSPOSE, src, in);
  return k && ints_attr(x, k, HLO_A_DIMENSIONS, comp, n) ? k : NULL;
}

static hlo_instruction *rw_broadcast(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  hlo_instruction *a = in->noperands == 1 ? in->operands[0] : NULL;
  int n, na;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &n);
  if (!a || (!d && n)) return NULL;
  bool ident = n == in->shape.rank;
  for (int i = 0; ident && i < n; i++) ident = d[i] == i;
  if (ident && same(a, in)) return a; /* broadcast to the operand's own shape */
  if (a->op != HLO_OP_BROADCAST || a->noperands != 1) return NULL;
  /* broadcast(broadcast(A, e), d) = broadcast(A, d∘e) */
  const int64_t *e = hlo_instr_ints(a, HLO_A_DIMENSIONS, &na);
  if (na > OPT_MAX_RANK || (!e && na)) return NULL;
  int64_t comp[OPT_MAX_RANK];
  for (int i = 0; i < na; i++) {
    if (e[i] < 0 || e[i] >= n) return NULL;
    comp[i] = d[e[i]];
  }
  hlo_instruction *k = unary(x, c, HLO_OP_BROADCAST, a->operands[0], in);
  return k && ints_attr(x, k, HLO_A_DIMENSIONS, comp, na) ? k : NULL;
}

static hlo_instruction *rw_slice(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  hlo_instruction *a = in->noperands == 1 ? in->operands[0] : NULL;
  if (!a) return NULL;
  if (same(a, in)) return a; /* a slice of everything */
  const hlo_attr *s = hlo_instr_attr(in, HLO_A_SLICE), *t = hlo_instr_attr(a, HLO_A_SLICE);
  if (a->op != HLO_OP_SLICE || a->noperands != 1 || !s || !t || s->kind != HLO_AK_SLICES ||
      t->kind != HLO_AK_SLICES || s->u.slices.n != t->u.slices.n || s->u.slices.n != in->shape.rank)
    return NULL;
  /* slice(slice(A, t), s): element i of dim d reads A at t.start + t.stride*(s.start + s.stride*i) */
  int n = s->u.slices.n;
  hlo_slice_dim *v = hlo_arena_array(&x->m->arena, (size_t)n + 1, sizeof *v);
  if (!v) return NULL;
  for (int d = 0; d < n; d++) {
    const hlo_slice_dim *o = &t->u.slices.v[d], *i = &s->u.slices.v[d];
    int64_t size = in->shape.dims[d];
    v[d].start = o->start + o->stride * i->start;
    v[d].stride = o->stride * i->stride;
    v[d].limit = size ? v[d].start + (size - 1) * v[d].stride + 1 : v[d].start;
  }
  hlo_instruction *k = unary(x, c, HLO_OP_SLICE, a->operands[0], in);
  hlo_attr *at = k ? opt_add_attr(x, k, HLO_A_SLICE) : NULL;
  if (!at) return NULL;
  at->u.slices.n = n;
  at->u.slices.v = v;
  return k;
}

static bool zero_elements(const hlo_shape *s) {
  int64_t n;
  return hlo_shape_elements(s, &n) && n == 0;
}

static hlo_instruction *rw_concatenate(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  if (in->noperands == 1) return no_op_of(in); /* concatenate of one operand */
  int keep = 0;
  for (int q = 0; q < in->noperands; q++) keep += !zero_elements(&in->operands[q]->shape);
  if (keep == in->noperands || keep == 0) return NULL;
  if (keep == 1) /* the one operand with elements */
    for (int q = 0; q < in->noperands; q++)
      if (!zero_elements(&in->operands[q]->shape)) return same(in->operands[q], in) ? in->operands[q] : NULL;
  /* drop the operands with no elements */
  hlo_instruction *k = opt_add(x, c, HLO_OP_CONCATENATE, "concatenate", keep, &in->shape);
  if (!k) return NULL;
  for (int q = 0, w = 0; q < in->noperands; q++)
    if (!zero_elements(&in->operands[q]->shape)) k->operands[w++] = in->operands[q];
  k->attrs = in->attrs;
  k->nattrs = in->nattrs;
  return k;
}

static hlo_instruction *rw_pad(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  const hlo_attr *p = hlo_instr_attr(in, HLO_A_PADDING);
  if (!p || p->kind != HLO_AK_PADDING || in->noperands != 2) return NULL;
  for (int d = 0; d < p->u.padding.n; d++) {
    const hlo_pad_dim *pd = &p->u.padding.dims[d];
    if (pd->lo || pd->hi || pd->interior) return NULL;
  }
  return no_op_of(in); /* pad by nothing */
}

static hlo_instruction *rw_reverse(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  int n;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &n);
  for (int i = 0; i < n; i++)
    if (d[i] < 0 || d[i] >= in->shape.rank || in->shape.dims[d[i]] > 1) return NULL;
  return no_op_of(in); /* reversing no dimension of more than one element */
}

/* The op of a reducer that is exactly ROOT op(p0, p1) on its two scalar
 * parameters, or HLO_OP_COUNT. */
static hlo_opcode reducer_op(const hlo_instruction *in) {
  const hlo_attr *t = hlo_instr_attr(in, HLO_A_TO_APPLY);
  const hlo_computation *f = t && t->kind == HLO_AK_COMP ? t->u.comp : NULL;
  const hlo_instruction *r = f ? f->root : NULL;
  if (!r || f->nparams != 2 || f->ninstrs != 3 || r->noperands != 2 || !f->params[0] || !f->params[1]) return HLO_OP_COUNT;
  bool direct = r->operands[0] == f->params[0] && r->operands[1] == f->params[1];
  bool swapped = r->operands[0] == f->params[1] && r->operands[1] == f->params[0];
  return direct || swapped ? r->op : HLO_OP_COUNT;
}

/* init is the identity of the reducer's op on element type t: then
 * reducing one element gives that element (add: up to the sign of zero). */
static bool is_identity(hlo_opcode op, hlo_type t, const hlo_instruction *init) {
  bool num = hlo_type_is_float(t) || hlo_type_is_int(t);
  switch (op) {
  case HLO_OP_ADD: return num && opt_is_splat(init, 0);
  case HLO_OP_MULTIPLY: return num && opt_is_splat(init, 1);
  case HLO_OP_MAXIMUM: return hlo_type_is_float(t) && opt_is_splat(init, -HUGE_VAL);
  case HLO_OP_MINIMUM: return hlo_type_is_float(t) && opt_is_splat(init, HUGE_VAL);
  case HLO_OP_AND: return t == HLO_PRED && opt_is_splat(init, 1);
  case HLO_OP_OR: return t == HLO_PRED && opt_is_splat(init, 0);
  default: return false;
  }
}

/* A broadcast of scalar s to like's shape. */
static hlo_instruction *splat_of(opt_ctx *x, hlo_computation *c, hlo_instruction *s, const hlo_instruction *like) {
  hlo_instruction *k = unary(x, c, HLO_OP_BROADCAST, s, like);
  return k && ints_attr(x, k, HLO_A_DIMENSIONS, NULL, 0) ? k : NULL;
}

/* The reducer combines elements exactly in any order and grouping (integer
 * add and multiply wrap around; pred and/or): regrouping a reduce keeps its
 * value bit for bit.  Floating-point reductions are left alone. */
static bool exact_reducer(const hlo_instruction *in) {
  hlo_opcode op = reducer_op(in);
  hlo_type t = in->shape.type;
  if (op == HLO_OP_ADD || op == HLO_OP_MULTIPLY) return hlo_type_is_int(t);
  return (op == HLO_OP_AND || op == HLO_OP_OR) && t == HLO_PRED;
}

/* A reduce like in of operand a over dimensions dims[0..n). */
static hlo_instruction *reduce_over(opt_ctx *x, hlo_computation *c, hlo_instruction *in, hlo_instruction *a,
                                    const int64_t *dims, int n) {
  hlo_instruction *k = opt_add(x, c, HLO_OP_REDUCE, "reduce", 2, &in->shape);
  if (!k) return NULL;
  k->operands[0] = a;
  k->operands[1] = in->operands[1];
  k->attrs = in->attrs;
  k->nattrs = in->nattrs;
  k->called = in->called;
  k->ncalled = in->ncalled;
  if (opt_own_attrs(x, k)) return NULL;
  int64_t *v = hlo_arena_array(&x->m->arena, (size_t)n + 1, sizeof *v);
  if (!v) return NULL;
  for (int i = 0; i < n; i++) { /* in increasing order */
    int j = i;
    for (; j > 0 && v[j - 1] > dims[i]; j--) v[j] = v[j - 1];
    v[j] = dims[i];
  }
  for (int i = 0; i < k->nattrs; i++)
    if (k->attrs[i].key == HLO_A_DIMENSIONS) {
      k->attrs[i].u.ints.n = n;
      k->attrs[i].u.ints.v = v;
      return k;
    }
  return NULL;
}

/* reduce(reduce(A, d1), d2) with one exact reducer and one identity init
 * => reduce(A, d1 + d2 as dimensions of A); reduce(transpose(A, p), d) to
 * a rank <= 1 result with an exact reducer => reduce(A, p[d]). */
static hlo_instruction *reduce_of(opt_ctx *x, hlo_computation *c, hlo_instruction *in, hlo_instruction *a) {
  int nd, ni, np;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (!exact_reducer(in) || !d || a->noperands < 1) return NULL;
  hlo_instruction *src = a->operands[0];
  int n = src->shape.rank;
  if (n > OPT_MAX_RANK) return NULL;
  int64_t v[OPT_MAX_RANK];
  if (a->op == HLO_OP_TRANSPOSE && in->shape.rank <= 1 && a->noperands == 1) {
    const int64_t *p = hlo_instr_ints(a, HLO_A_DIMENSIONS, &np);
    if (!p || np != n || nd > n) return NULL;
    for (int i = 0; i < nd; i++) {
      if (d[i] < 0 || d[i] >= n) return NULL;
      v[i] = p[d[i]]; /* dim d[i] of the transpose is dim p[d[i]] of A */
    }
    return reduce_over(x, c, in, src, v, nd);
  }
  const int64_t *e = a->op == HLO_OP_REDUCE ? hlo_instr_ints(a, HLO_A_DIMENSIONS, &ni) : NULL;
  if (!e || a->noperands != 2 || a->operands[1] != in->operands[1] || reducer_op(a) != reducer_op(in) ||
      a->shape.type != in->shape.type || !is_identity(reducer_op(in), in->shape.type, in->operands[1]))
    return NULL;
  bool gone[OPT_MAX_RANK] = {false}, drop[OPT_MAX_RANK] = {false};
  for (int i = 0; i < ni; i++) {
    if (e[i] < 0 || e[i] >= n) return NULL;
    gone[e[i]] = true;
  }
  for (int i = 0; i < nd; i++) {
    if (d[i] < 0 || d[i] >= a->shape.rank) return NULL;
    drop[d[i]] = true;
  }
  /* the kept dimensions of A, in order, are the dimensions of a */
  int w = 0;
  for (int s = 0, j = 0; s < n; s++)
    if (gone[s] || drop[j++]) v[w++] = s;
  return reduce_over(x, c, in, src, v, w);
}

static hlo_instruction *rw_reduce(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  if (in->noperands != 2 || !hlo_shape_is_array(&in->shape)) return NULL; /* not variadic */
  hlo_instruction *a = in->operands[0], *init = in->operands[1];
  if (!hlo_shape_is_scalar(&init->shape) || init->shape.type != in->shape.type) return NULL;
  /* nothing to reduce: every output element is the init value */
  if (zero_elements(&a->shape) || zero_elements(&in->shape)) return splat_of(x, c, init, in);
  int64_t na, nr;
  if (!hlo_shape_elements(&a->shape, &na) || !hlo_shape_elements(&in->shape, &nr)) return NULL;
  /* each output element reduces one input element with an identity init:
   * the reduce only reshapes (XLA also assumes the init is an identity) */
  if (na != nr) return reduce_of(x, c, in, a);
  if (!is_identity(reducer_op(in), in->shape.type, init)) return NULL;
  return same(a, in) ? a : unary(x, c, HLO_OP_RESHAPE, a, in);
}

/* A dot with a zero-sized operand or result: zeros. */
static hlo_instruction *dot_of_nothing(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  hlo_type t = in->shape.type;
  if (!hlo_type_is_float(t) && !hlo_type_is_int(t)) return NULL;
  hlo_shape ss = {.type = t, .rank = 0};
  hlo_instruction *z = opt_add(x, c, HLO_OP_CONSTANT, "constant", 0, &ss);
  hlo_literal *lit = z ? hlo_arena_alloc(&x->m->arena, sizeof *lit) : NULL;
  void *bytes = lit ? hlo_arena_alloc(&x->m->arena, (size_t)hlo_type_bytes(t)) : NULL;
  if (!bytes) return NULL;
  memset(bytes, 0, (size_t)hlo_type_bytes(t)); /* all-zero bits: 0 of every number type */
  *lit = (hlo_literal){.shape = ss, .data = bytes, .nelems = 1};
  z->literal = lit;
  return splat_of(x, c, z, in);
}

/* Operand o of a dot without its contracting dimensions con[0..nc) (all of
 * size 1: dropping them keeps the element order), broadcast into the dot's
 * shape: its i-th remaining dimension goes to out[i].  The batch dimensions
 * bat[0..nb) must be its first remaining dimensions, in order.  With x NULL
 * only checks that (returns in when it holds), adding nothing. */
static hlo_instruction *dot_side(opt_ctx *x, hlo_computation *c, hlo_instruction *in, hlo_instruction *o,
                                 const int64_t *con, int nc, const int64_t *bat, int nb, int first_free) {
  int n = o->shape.rank, w = 0;
  bool gone[OPT_MAX_RANK] = {false};
  int64_t dims[OPT_MAX_RANK], out[OPT_MAX_RANK];
  if (n > OPT_MAX_RANK || o->shape.dynamic) return NULL;
  for (int i = 0; i < nc; i++) {
    if (con[i] < 0 || con[i] >= n || o->shape.dims[con[i]] != 1) return NULL;
    gone[con[i]] = true;
  }
  for (int s = 0; s < n; s++) {
    if (gone[s]) continue;
    if (w < nb && bat[w] != s) return NULL; /* batch dimensions lead, in order */
    out[w] = w < nb ? w : first_free + w - nb;
    dims[w++] = o->shape.dims[s];
  }
  if (!x) return in;
  if (w != n) { /* drop the size-1 contracting dimensions */
    hlo_instruction *k = opt_add(x, c, HLO_OP_RESHAPE, "reshape", 1, NULL);
    if (!k || hlo_shape_make_array(&x->m->arena, &k->shape, o->shape.type, w, dims)) return NULL;
    k->operands[0] = o;
    o = k;
  }
  hlo_instruction *b = unary(x, c, HLO_OP_BROADCAST, o, in);
  return b && ints_attr(x, b, HLO_A_DIMENSIONS, out, w) ? b : NULL;
}

/* A dot where each output element is one product: no contracting
 * dimensions, or only ones of size 1 (XLA removes those, then rewrites the
 * dot without contracting dimensions), with operands and result of one
 * type (f32, f64 or integer) and batch dimensions leading:
 * multiply(broadcast(lhs), broadcast(rhs)). */
static hlo_instruction *dot_one_product(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  hlo_instruction *l = in->operands[0], *r = in->operands[1];
  hlo_type t = in->shape.type;
  hlo_dot_lists d;
  if (!hlo_dot_lists_of(in, &d) || l->shape.type != t || r->shape.type != t) return NULL;
  if (t != HLO_F32 && t != HLO_F64 && !hlo_type_is_int(t)) return NULL;
  int fl = l->shape.rank - d.nb - d.nc, fr = r->shape.rank - d.nb - d.nc; /* free dimensions */
  if (fl < 0 || fr < 0 || d.nb + fl + fr != in->shape.rank) return NULL;
  if (!dot_side(NULL, c, in, l, d.lc, d.nc, d.lb, d.nb, d.nb) ||
      !dot_side(NULL, c, in, r, d.rc, d.nc, d.rb, d.nb, d.nb + fl))
    return NULL; /* checked before anything is added */
  hlo_instruction *bl = dot_side(x, c, in, l, d.lc, d.nc, d.lb, d.nb, d.nb);
  hlo_instruction *br = bl ? dot_side(x, c, in, r, d.rc, d.nc, d.rb, d.nb, d.nb + fl) : NULL;
  hlo_instruction *k = br ? opt_add(x, c, HLO_OP_MULTIPLY, "multiply", 2, &in->shape) : NULL;
  if (!k) return NULL;
  k->operands[0] = bl;
  k->operands[1] = br;
  return k;
}

static hlo_instruction *rw_dot(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  if (in->noperands != 2 || !hlo_shape_is_array(&in->shape)) return NULL;
  hlo_instruction *l = in->operands[0], *r = in->operands[1];
  if (zero_elements(&in->shape) || zero_elements(&l->shape) || zero_elements(&r->shape))
    return dot_of_nothing(x, c, in);
  return dot_one_product(x, c, in);
}

static rule_fn *const RULES[HLO_OP_COUNT] = {
    [HLO_OP_ADD] = rw_add,
    [HLO_OP_SUBTRACT] = rw_subtract,
    [HLO_OP_MULTIPLY] = rw_multiply,
    [HLO_OP_DIVIDE] = rw_divide,
    [HLO_OP_NEGATE] = rw_involution,
    [HLO_OP_NOT] = rw_involution,
    [HLO_OP_MAXIMUM] = rw_idempotent,
    [HLO_OP_MINIMUM] = rw_idempotent,
    [HLO_OP_AND] = rw_idempotent,
    [HLO_OP_OR] = rw_idempotent,
    [HLO_OP_SELECT] = rw_select,
    [HLO_OP_CONVERT] = rw_convert,
    [HLO_OP_COPY] = rw_copy,
    [HLO_OP_RESHAPE] = rw_reshape,
    [HLO_OP_TRANSPOSE] = rw_transpose,
    [HLO_OP_BROADCAST] = rw_broadcast,
    [HLO_OP_SLICE] = rw_slice,
    [HLO_OP_CONCATENATE] = rw_concatenate,
    [HLO_OP_PAD] = rw_pad,
    [HLO_OP_REVERSE] = rw_reverse,
    [HLO_OP_REDUCE] = rw_reduce,
    [HLO_OP_DOT] = rw_dot,
};

/* A rule adds instructions only once it knows it rewrites, so one that
 * added some and still returned NULL ran out of memory. */
static hlo_instruction *simplify(opt_ctx *x, hlo_computation *c, hlo_instruction *in) {
  rule_fn *f = RULES[in->op];
  if (!f || opt_side_effect(in)) return NULL;
  int before = c->ninstrs;
  hlo_instruction *k = f(x, c, in);
  if (!k && c->ninstrs != before) x->oom = true;
  return k;
}

int opt_algsimp(opt_ctx *x) { return opt_rewrite_each(x, simplify, 16); }
