/* fast_loop.c - the fused loop program: an elementwise expression (with
 * broadcast, reshape, slice, transpose, copy and scalar operands folded into
 * per-leaf index maps) compiled once, then evaluated over the output in
 * chunks of HLO_LP_CHUNK elements.  Each node is one vector kernel over the
 * chunk; intermediates live in a few chunk buffers reused by liveness, so
 * nothing but the output is written to memory.  Each node has its own
 * element type (type-changing converts join them): pred, 8..64-bit ints,
 * f32, f64, f16/bf16 (computed in f32, rounded per instruction). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* the per-chunk select/compare/gather loops */
#endif
#include <string.h>

#include "exec/fast.h"

enum {
  LN_LEAF, LN_UN, LN_BIN, LN_CMP, LN_SELECT, LN_NOT, LN_LOGIC, LN_IUN, LN_IBIN, LN_CVT,
  LN_ISFIN
};

typedef struct lp_leaf {
  int arg;                  /* kernel argument, or -1: constant data / iota */
  const void *cdata;
  bool iota;                /* the value is the offset itself (no data) */
  bool flat;                /* element offset == output flat index */
  int rank;                 /* iteration space (collapsed) */
  int64_t dims[MAXR], coef[MAXR], base;
  int esize;
} lp_leaf;

typedef struct lp_node {
  int kind;
  hlo_opcode op;
  hlo_type type;            /* result element type */
  hlo_type itype;           /* compare, convert, is-finite: operand type */
  int a, b, c;              /* operand nodes */
  int leaf;
  int dir;                  /* compare direction */
  int buf;                  /* scratch buffer, -1 = none (root, flat leaf) */
} lp_node;

#define LP_MAX_NODES 96

struct hlo_lp {
  int nnodes, nleaves, nbufs;
  lp_node nodes[LP_MAX_NODES];
  lp_leaf leaves[LP_MAX_NODES];
  hlo_type type;
  int root;
};

/* Index map from the output iteration to a node's multi-index.  flat: the
 * node's flat index equals the output's.  Otherwise i_x = C * i_D + b over
 * the space D (the dims of the node where the flat mode was left). */
typedef struct lp_map {
  bool flat;
  int rd, rx;
  int64_t D[MAXR];
  int64_t C[MAXR][MAXR];
  int64_t b[MAXR];
} lp_map;

typedef struct lp_ctx {
  hlo_lp *p;
  const hlo_instruction *root;
  int (*leaf_arg)(const hlo_instruction *, const hlo_instruction *);
  int *memo;                /* flat-mode node per instruction id, -1 none */
  int nmemo;
  int depth;
} lp_ctx;

static bool is_float_t(hlo_type t) {
  return t == HLO_F32 || t == HLO_F64 || t == HLO_F16 || t == HLO_BF16;
}
/* 8..64-bit integer nodes: wrapping add/subtract/multiply/negate, divide and
 * remainder (XLA's rules for 0 and INT_MIN / -1), shifts, abs, sign,
 * popcnt, count-leading-zeros, maximum/minimum, bitwise and/or/xor/not,
 * compare, select, clamp. */
static bool is_int_t(hlo_type t) {
  return t == HLO_S8 || t == HLO_U8 || t == HLO_S16 || t == HLO_U16 || t == HLO_S32 ||
         t == HLO_U32 || t == HLO_S64 || t == HLO_U64;
}
static bool lp_type_ok(hlo_type t) { return t == HLO_PRED || is_int_t(t) || is_float_t(t); }
static bool int_binary_ok(hlo_opcode op) {
  return op == HLO_OP_ADD || op == HLO_OP_SUBTRACT || op == HLO_OP_MULTIPLY ||
         op == HLO_OP_MAXIMUM || op == HLO_OP_MINIMUM || op == HLO_OP_AND || op == HLO_OP_OR ||
         op == HLO_OP_XOR || op == HLO_OP_DIVIDE || op == HLO_OP_REMAINDER ||
         op == HLO_OP_SHIFT_LEFT || op == HLO_OP_SHIFT_RIGHT_LOGICAL ||
         op == HLO_OP_SHIFT_RIGHT_ARITHMETIC;
}
static bool int_unary_ok(hlo_opcode op) {
  return op == HLO_OP_NEGATE || op == HLO_OP_ABS || op == HLO_OP_SIGN || op == HLO_OP_NOT ||
         op == HLO_OP_POPCNT || op == HLO_OP_CLZ;
}
/* f16/bf16 values are computed in f32 chunk buffers: leaves are widened,
 * every arithmetic result is rounded to the type once (as the reference
 * rounds each instruction's double result), the root is narrowed into the
 * output. */
static bool is_narrow(hlo_type t) { return t == HLO_F16 || t == HLO_BF16; }
/* bytes of one element in a chunk buffer */
static int cbytes(hlo_type t) { return is_narrow(t) ? 4 : hlo_type_bytes(t); }

static int add_node(lp_ctx *c, lp_node n) {
  if (c->p->nnodes >= LP_MAX_NODES) return -1;
  n.buf = -1;
  c->p->nodes[c->p->nnodes] = n;
  return c->p->nnodes++;
}

static void strides_of(const hlo_shape *s, int64_t *st) {
  int64_t acc = 1;
  for (int d = s->rank - 1; d >= 0; d--) { st[d] = acc; acc *= s->dims[d]; }
}

/* A leaf reading data laid out row-major with shape s under map m; iota_dim
 * >= 0 makes it an iota along that dimension (value = index, no data). */
static int add_leaf_ex(lp_ctx *c, const hlo_shape *s, const lp_map *m, int arg,
                       const void *cdata, int iota_dim) {
  if (c->p->nleaves >= LP_MAX_NODES) return -1;
  if (!lp_type_ok(s->type)) return -1;
  lp_leaf L;
  memset(&L, 0, sizeof L);
  L.arg = arg;
  L.cdata = cdata;
  L.iota = iota_dim >= 0;
  L.esize = hlo_type_bytes(s->type);
  if (m->flat) {
    L.flat = true;
  } else {
    int64_t st[MAXR];
    strides_of(s, st);
    if (L.iota)
      for (int k = 0; k < s->rank; k++) st[k] = k == iota_dim;
    if (m->rx != s->rank) return -1;
    int64_t coef[MAXR], base = 0;
    for (int j = 0; j < m->rd; j++) {
      coef[j] = 0;
      for (int k = 0; k < m->rx; k++) coef[j] += st[k] * m->C[k][j];
    }
    for (int k = 0; k < m->rx; k++) base += st[k] * m->b[k];
    /* collapse: drop unit dims, merge dims whose offsets are contiguous */
    int r = 0;
    for (int j = 0; j < m->rd; j++) {
      if (m->D[j] == 1) continue;
      if (r > 0 && L.coef[r - 1] == coef[j] * m->D[j]) {
        L.dims[r - 1] *= m->D[j];
        L.coef[r - 1] = coef[j];
        continue;
      }
      L.dims[r] = m->D[j];
      L.coef[r] = coef[j];
      r++;
    }
    L.rank = r;
    L.base = base;
    if (r == 1 && L.coef[0] == 1 && base == 0) L.flat = true;
  }
  int li = c->p->nleaves++;
  c->p->leaves[li] = L;
  lp_node n = {0};
  n.kind = LN_LEAF;
  n.type = s->type;
  n.leaf = li;
  return add_node(c, n);
}

static int add_leaf(lp_ctx *c, const hlo_shape *s, const lp_map *m, int arg, const void *cdata) {
  return add_leaf_ex(c, s, m, arg, cdata, -1);
}

static void map_from_flat(const hlo_shape *s, lp_map *m) {
  memset(m, 0, sizeof *m);
  m->rd = m->rx = s->rank;
  for (int k = 0; k < s->rank; k++) {
    m->D[k] = s->dims[k];
    m->C[k][k] = 1;
  }
}

static bool same_dims(const hlo_shape *a, const hlo_shape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

static int build(lp_ctx *c, const hlo_instruction *x, const lp_map *m);

/* Operand k of x under the same map (elementwise), or a broadcast scalar. */
static int build_elem_operand(lp_ctx *c, const hlo_instruction *x, int k, const lp_map *m) {
  const hlo_instruction *o = x->operands[k];
  if (!hlo_shape_is_array(&o->shape)) return -1;
  if (same_dims(&o->shape, &x->shape)) return build(c, o, m);
  if (o->shape.rank != 0) return -1;
  lp_map z;
  memset(&z, 0, sizeof z);
  if (m->flat) {
    z.rd = x->shape.rank;
    for (int d = 0; d < z.rd; d++) z.D[d] = x->shape.dims[d];
  } else {
    z.rd = m->rd;
    memcpy(z.D, m->D, sizeof z.D);
  }
  z.rx = 0;
  return build(c, o, &z);
}

static int cmp_dir(const hlo_instruction *x, int *dir) {
  int ct;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  int rc = hlo_cmp_attrs(x, dir, &ct, &d);
  hlo_diags_release(&d);
  if (rc) return HLO_ERR;
  return ct == CMPT_DEFAULT || ct == CMPT_FLOAT || ct == CMPT_SIGNED || ct == CMPT_UNSIGNED
             ? HLO_OK : HLO_ERR;
}

static int build_inner(lp_ctx *c, const hlo_instruction *x, const lp_map *m) {
  int arg = c->leaf_arg(c->root, x);
  if (arg >= 0) return add_leaf(c, &x->shape, m, arg, NULL);
  if (!hlo_shape_is_array(&x->shape)) return -1;
  hlo_type t = x->shape.type;
  lp_node n = {0};
  n.type = t;
  switch (x->op) {
  case HLO_OP_CONSTANT:
    if (!x->literal || !x->literal->data ||
        x->literal->nelems != hlo_fast_elems(&x->shape))
      return -1;
    return add_leaf(c, &x->shape, m, -1, x->literal->data);
  case HLO_OP_COPY:
    return t == x->operands[0]->shape.type ? build(c, x->operands[0], m) : -1;
  case HLO_OP_CONVERT:
    if (t == x->operands[0]->shape.type) return build(c, x->operands[0], m);
    if (!lp_type_ok(t) || !lp_type_ok(x->operands[0]->shape.type)) return -1;
    n.kind = LN_CVT;
    n.itype = x->operands[0]->shape.type;
    if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
    return add_node(c, n);
  case HLO_OP_IS_FINITE:
    if (t != HLO_PRED || !is_float_t(x->operands[0]->shape.type)) return -1;
    n.kind = LN_ISFIN;
    n.itype = x->operands[0]->shape.type;
    if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
    return add_node(c, n);
  case HLO_OP_BITCAST_CONVERT: {
    /* same-width reinterpretation where the chunk buffers hold the raw bits
     * (not f16/bf16, which they hold widened; not pred): a copy */
    hlo_type ot = x->operands[0]->shape.type;
    if (t == ot) return build(c, x->operands[0], m);
    if (!lp_type_ok(t) || !lp_type_ok(ot) || is_narrow(t) || is_narrow(ot) || t == HLO_PRED ||
        ot == HLO_PRED || hlo_type_bytes(t) != hlo_type_bytes(ot) ||
        !same_dims(&x->shape, &x->operands[0]->shape))
      return -1;
    n.kind = LN_UN;
    n.op = HLO_OP_COPY;
    if ((n.a = build(c, x->operands[0], m)) < 0) return -1;
    return add_node(c, n);
  }
  case HLO_OP_IOTA: {
    /* float iotas only while every index is exact in f32 */
    int64_t d = hlo_instr_int(x, HLO_A_IOTA_DIMENSION, -1);
    if (d < 0 || d >= x->shape.rank || !lp_type_ok(t) || t == HLO_PRED ||
        (is_float_t(t) && x->shape.dims[d] > ((int64_t)1 << 24)))
      return -1;
    lp_map base;
    if (m->flat) map_from_flat(&x->shape, &base);
    else base = *m;
    return add_leaf_ex(c, &x->shape, &base, -1, NULL, (int)d);
  }
  case HLO_OP_RESHAPE: {
    const hlo_instruction *o = x->operands[0];
    if (m->flat) return build(c, o, m);
    if (c->leaf_arg(c->root, o) >= 0) return add_leaf(c, &x->shape, m, c->leaf_arg(c->root, o), NULL);
    if (o->op == HLO_OP_CONSTANT && o->literal && o->literal->data)
      return add_leaf(c, &x->shape, m, -1, o->literal->data);
    /* only reshapes that add or drop unit dimensions stay linear */
    lp_map om = *m;
    om.rx = 0;
    int kx = 0;
    for (int ko = 0; ko < o->shape.rank; ko++) {
      if (o->shape.dims[ko] == 1) {
        memset(om.C[om.rx], 0, sizeof om.C[0]);
        om.b[om.rx++] = 0;
        continue;
      }
      while (kx < x->shape.rank && x->shape.dims[kx] == 1) kx++;
      if (kx >= x->shape.rank || x->shape.dims[kx] != o->shape.dims[ko]) return -1;
      memcpy(om.C[om.rx], m->C[kx], sizeof om.C[0]);
      om.b[om.rx++] = m->b[kx];
      kx++;
    }
    while (kx < x->shape.rank && x->shape.dims[kx] == 1) kx++;
    if (kx != x->shape.rank) return -1;
    return build(c, o, &om);
  }
  case HLO_OP_BROADCAST: case HLO_OP_TRANSPOSE: case HLO_OP_SLICE: {
    const hlo_instruction *o = x->operands[0];
    lp_map base, om;
    if (m->flat) map_from_flat(&x->shape, &base);
    else base = *m;
    om = base;
    om.rx = o->shape.rank;
    int nd = 0;
    if (x->op == HLO_OP_BROADCAST) {
      const int64_t *dm = hlo_instr_ints(x, HLO_A_DIMENSIONS, &nd);
      if (nd != o->shape.rank || (nd && !dm)) return -1;
      for (int k = 0; k < nd; k++) {
        if (dm[k] < 0 || dm[k] >= x->shape.rank) return -1;
        memcpy(om.C[k], base.C[dm[k]], sizeof om.C[0]);
        om.b[k] = base.b[dm[k]];
      }
    } else if (x->op == HLO_OP_TRANSPOSE) {
      const int64_t *p = hlo_instr_ints(x, HLO_A_DIMENSIONS, &nd);
      if (nd != o->shape.rank || nd != x->shape.rank || (nd && !p)) return -1;
      for (int k = 0; k < nd; k++) {
        if (p[k] < 0 || p[k] >= nd) return -1;
        memcpy(om.C[p[k]], base.C[k], sizeof om.C[0]);
        om.b[p[k]] = base.b[k];
      }
    } else {
      const hlo_attr *a = hlo_instr_attr(x, HLO_A_SLICE);
      if (!a || a->u.slices.n != o->shape.rank || o->shape.rank != x->shape.rank) return -1;
      for (int k = 0; k < o->shape.rank; k++) {
        int64_t st = a->u.slices.v[k].start, sd = a->u.slices.v[k].stride;
        if (sd < 1) return -1;
        for (int j = 0; j < base.rd; j++) om.C[k][j] = base.C[k][j] * sd;
        om.b[k] = st + base.b[k] * sd;
      }
    }
    return build(c, o, &om);
  }
  case HLO_OP_COMPARE: {
    hlo_type it = x->operands[0]->shape.type;
    if (t != HLO_PRED || !lp_type_ok(it) || x->operands[1]->shape.type != it ||
        cmp_dir(x, &n.dir))
      return -1;
    {
      /* the comparison type must be the operands' natural one */
      int dd, ct;
      hlo_diags d;
      hlo_diags_init(&d, NULL);
      int rc = hlo_cmp_attrs(x, &dd, &ct, &d);
      hlo_diags_release(&d);
      bool uns = it == HLO_U8 || it == HLO_U16 || it == HLO_U32 || it == HLO_U64;
      if (rc || (ct == CMPT_FLOAT && !is_float_t(it)) ||
          (ct == CMPT_SIGNED && (!is_int_t(it) || uns)) ||
          (ct == CMPT_UNSIGNED && (!is_int_t(it) || !uns)))
        return -1;
    }
    n.kind = LN_CMP;
    n.itype = it;
    if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
    if ((n.b = build_elem_operand(c, x, 1, m)) < 0) return -1;
    return add_node(c, n);
  }
  case HLO_OP_SELECT:
    if (!lp_type_ok(t) || x->operands[0]->shape.type != HLO_PRED ||
        x->operands[1]->shape.type != t || x->operands[2]->shape.type != t)
      return -1;
    n.kind = LN_SELECT;
    if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
    if ((n.b = build_elem_operand(c, x, 1, m)) < 0) return -1;
    if ((n.c = build_elem_operand(c, x, 2, m)) < 0) return -1;
    return add_node(c, n);
  case HLO_OP_CLAMP: {
    /* min(max(lo, x), hi) */
    if (!is_int_t(t) && !is_float_t(t)) return -1;
    for (int k = 0; k < 3; k++)
      if (x->operands[k]->shape.type != t) return -1;
    int lo = build_elem_operand(c, x, 0, m), v = build_elem_operand(c, x, 1, m);
    int hi = build_elem_operand(c, x, 2, m);
    if (lo < 0 || v < 0 || hi < 0) return -1;
    n.kind = is_int_t(t) ? LN_IBIN : LN_BIN;
    n.op = HLO_OP_MAXIMUM;
    n.a = lo;
    n.b = v;
    int mx = add_node(c, n);
    if (mx < 0) return -1;
    n.op = HLO_OP_MINIMUM;
    n.a = mx;
    n.b = hi;
    return add_node(c, n);
  }
  case HLO_OP_NOT:
    if (is_int_t(t)) break; /* integer bitwise not: below */
    if (t != HLO_PRED || x->operands[0]->shape.type != t) return -1;
    n.kind = LN_NOT;
    if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
    return add_node(c, n);
  case HLO_OP_AND: case HLO_OP_OR: case HLO_OP_XOR:
    if (is_int_t(t)) break; /* integer bitwise ops: below */
    if (t != HLO_PRED || x->operands[0]->shape.type != t || x->operands[1]->shape.type != t)
      return -1;
    n.kind = LN_LOGIC;
    n.op = x->op;
    if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
    if ((n.b = build_elem_operand(c, x, 1, m)) < 0) return -1;
    return add_node(c, n);
  default:
    break;
  }
  /* elementwise ops on one type */
  for (int k = 0; k < x->noperands; k++)
    if (x->operands[k]->shape.type != t) return -1;
  if (is_int_t(t)) {
    if (x->noperands == 1 && int_unary_ok(x->op)) {
      n.kind = LN_IUN;
      n.op = x->op;
      if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
      return add_node(c, n);
    }
    if (x->noperands == 2 && int_binary_ok(x->op)) {
      n.kind = LN_IBIN;
      n.op = x->op;
      if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
      if ((n.b = build_elem_operand(c, x, 1, m)) < 0) return -1;
      return add_node(c, n);
    }
    return -1;
  }
  if (!is_float_t(t)) return -1;
  if (x->noperands == 1 && hlo_fv_unary_ok(x->op)) {
    n.kind = LN_UN;
    n.op = x->op;
    if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
    return add_node(c, n);
  }
  if (x->noperands == 2 && hlo_fv_binary_ok(x->op)) {
    n.kind = LN_BIN;
    n.op = x->op;
    if ((n.a = build_elem_operand(c, x, 0, m)) < 0) return -1;
    if ((n.b = build_elem_operand(c, x, 1, m)) < 0) return -1;
    return add_node(c, n);
  }
  return -1;
}

static int build(lp_ctx *c, const hlo_instruction *x, const lp_map *m) {
  if (c->depth > 64) return -1;
  bool memo = m->flat && x->id >= 0 && x->id < c->nmemo;
  if (memo && c->memo[x->id] >= 0) return c->memo[x->id];
  c->depth++;
  int r = build_inner(c, x, m);
  c->depth--;
  if (memo && r >= 0) c->memo[x->id] = r;
  return r;
}

hlo_lp *hlo_lp_compile(hlo_arena *A, const hlo_instruction *root, const hlo_shape *space,
                       int (*leaf_arg)(const hlo_instruction *, const hlo_instruction *)) {
  if (!hlo_shape_is_array(space) || !lp_type_ok(space->type) || !root->parent)
    return NULL;
  hlo_lp *p = hlo_arena_alloc(A, sizeof *p);
  int nm = root->parent->ninstrs;
  int *memo = hlo_arena_array(A, (size_t)nm + 1, sizeof(int));
  if (!p || !memo) return NULL;
  memset(p, 0, sizeof *p);
  for (int i = 0; i < nm; i++) memo[i] = -1;
  lp_ctx c = {p, root, leaf_arg, memo, nm, 0};
  lp_map m;
  memset(&m, 0, sizeof m);
  m.flat = true;
  int top = build(&c, root, &m);
  if (top < 0 || p->nodes[top].type != space->type) return NULL;
  p->root = top;
  p->type = space->type;
  /* the root must own its result: a leaf root becomes a copy node */
  if (p->nodes[top].kind == LN_LEAF) {
    lp_node n = {0};
    n.kind = LN_UN;
    n.op = HLO_OP_COPY;
    n.type = space->type;
    n.a = top;
    if ((p->root = add_node(&c, n)) < 0) return NULL;
  }
  /* only nodes reachable from the root run (dead memo entries are fine);
   * buffers by liveness: a buffer is free after its node's last use */
  int last[LP_MAX_NODES];
  for (int i = 0; i < p->nnodes; i++) last[i] = -1;
  for (int i = 0; i < p->nnodes; i++) {
    const lp_node *n = &p->nodes[i];
    if (n->kind == LN_LEAF) continue;
    last[n->a] = i;
    if (n->kind == LN_BIN || n->kind == LN_CMP || n->kind == LN_SELECT || n->kind == LN_LOGIC ||
        n->kind == LN_IBIN)
      last[n->b] = i;
    if (n->kind == LN_SELECT) last[n->c] = i;
  }
  int owner[LP_MAX_NODES]; /* buffer -> node holding it, -1 free */
  int nb = 0;
  for (int i = 0; i < p->nnodes; i++) {
    lp_node *n = &p->nodes[i];
    if (i == p->root && !is_narrow(p->type)) continue;
    if (n->kind == LN_LEAF && p->leaves[n->leaf].flat && !p->leaves[n->leaf].iota &&
        !is_narrow(n->type))
      continue;
    if (last[i] < 0 && i != p->root) continue; /* dead */
    /* free buffers whose holder's last use is before i */
    int b = -1;
    for (int k = 0; k < nb; k++)
      if (owner[k] < 0 || last[owner[k]] < i) { b = k; break; }
    if (b < 0) b = nb++;
    owner[b] = i;
    n->buf = b;
  }
  p->nbufs = nb;
  return p;
}

hlo_type hlo_lp_type(const hlo_lp *p) { return p->type; }

static bool is_transcendental(hlo_opcode op) {
  return op == HLO_OP_EXP || op == HLO_OP_EXPM1 || op == HLO_OP_LOG || op == HLO_OP_LOG1P ||
         op == HLO_OP_TANH || op == HLO_OP_SIN || op == HLO_OP_COS || op == HLO_OP_TAN ||
         op == HLO_OP_ERF || op == HLO_OP_CBRT || op == HLO_OP_LOGISTIC ||
         op == HLO_OP_POWER || op == HLO_OP_ATAN2;
}

int64_t hlo_lp_cost(const hlo_lp *p) {
  int64_t c = 1; /* the store */
  for (int i = 0; i <= p->root; i++) {
    const lp_node *n = &p->nodes[i];
    /* transcendentals, fmod and integer division (not vectorized): 8 */
    bool slow = ((n->kind == LN_UN || n->kind == LN_BIN) && is_transcendental(n->op)) ||
                (n->kind == LN_BIN && n->op == HLO_OP_REMAINDER) ||
                (n->kind == LN_IBIN && (n->op == HLO_OP_DIVIDE || n->op == HLO_OP_REMAINDER));
    if (n->kind == LN_LEAF || n->buf >= 0 || i == p->root) c += slow ? 8 : 1;
  }
  return c;
}

int64_t hlo_lp_max_chunk(const hlo_lp *p) { return p->nbufs == 0 ? INT64_MAX : HLO_LP_CHUNK; }

void *hlo_lp_scratch_new(const hlo_lp *p, const hlo_allocator *alloc) {
  size_t sz = (size_t)(p->nbufs + 1) * HLO_LP_CHUNK * 8 + 64;
  return hlo_malloc(alloc, sz);
}

void hlo_lp_scratch_free(const hlo_lp *p, const hlo_allocator *alloc, void *scratch) {
  (void)p;
  hlo_free(alloc, scratch);
}

/* Step a leaf's index odometer (idx, offset off) past a run of run elements
 * along its innermost dimension (number last, coefficient c); returns the
 * new offset. */
static int64_t leaf_advance(const lp_leaf *L, int64_t *idx, int last, int64_t off, int64_t c,
                            int64_t run) {
  int64_t dl = L->rank ? L->dims[last] : 0;
  off += c * run;
  idx[last] += run;
  if (idx[last] != dl) return off;
  idx[last] = 0;
  off -= c * dl;
  for (int d = L->rank - 2; d >= 0; d--) {
    idx[d]++;
    off += L->coef[d];
    if (idx[d] < L->dims[d]) break;
    idx[d] = 0;
    off -= L->coef[d] * L->dims[d];
  }
  return off;
}

static void gather(const hlo_fv_isa *isa, const lp_leaf *L, const char *data, int64_t f0,
                   int64_t n, char *dst) {
  int es = L->esize;
  if (L->rank == 0) {
    if (es == 4) isa->fill32(n, ((const float *)data)[L->base], (float *)dst);
    else if (es == 8) isa->fill64(n, ((const double *)data)[L->base], (double *)dst);
    else if (es == 2) for (int64_t k = 0; k < n; k++) ((uint16_t *)dst)[k] = ((const uint16_t *)data)[L->base];
    else memset(dst, data[L->base], (size_t)n);
    return;
  }
  int r = L->rank;
  int64_t idx[MAXR], q = f0, off = L->base;
  for (int d = r - 1; d >= 0; d--) {
    idx[d] = q % L->dims[d];
    q /= L->dims[d];
    off += idx[d] * L->coef[d];
  }
  int64_t c = L->coef[r - 1], dl = L->dims[r - 1];
  int64_t k = 0;
  while (k < n) {
    int64_t run = dl - idx[r - 1];
    if (run > n - k) run = n - k;
    if (c == 1) {
      memcpy(dst + k * es, data + off * es, (size_t)(run * es));
    } else if (es == 4) {
      const float *s = (const float *)data; /* float moves keep any bits */
      float *dd = (float *)dst + k;
      const uint32_t *su = (const uint32_t *)data;
      uint32_t *du = (uint32_t *)dst + k;
      if (c == 0) isa->fill32(run, s[off], dd);
      else for (int64_t j = 0; j < run; j++) du[j] = su[off + j * c];
    } else if (es == 8) {
      const double *s = (const double *)data;
      double *dd = (double *)dst + k;
      const uint64_t *su = (const uint64_t *)data;
      uint64_t *du = (uint64_t *)dst + k;
      if (c == 0) isa->fill64(run, s[off], dd);
      else for (int64_t j = 0; j < run; j++) du[j] = su[off + j * c];
    } else if (es == 2) {
      const uint16_t *s = (const uint16_t *)data;
      uint16_t *dd = (uint16_t *)dst + k;
      for (int64_t j = 0; j < run; j++) dd[j] = s[off + j * c];
    } else {
      for (int64_t j = 0; j < run; j++) dst[k + j] = data[off + j * c];
    }
    k += run;
    off = leaf_advance(L, idx, r - 1, off, c, run);
  }
}

/* Iota leaf: the offsets themselves as values of type t (f16/bf16 as f32,
 * exact: the compiler admits float iotas of at most 2^24 indices). */
#define IOTA_RUN(T)                                                         \
  do {                                                                      \
    T *z = (T *)dst + k;                                                    \
    for (int64_t j = 0; j < run; j++) z[j] = (T)(off + j * c);              \
  } while (0)

static void iota_gather(const lp_leaf *L, hlo_type t, int64_t f0, int64_t n, void *dst) {
  int r = L->rank;
  int64_t idx[MAXR], q = f0, off = L->base, k = 0;
  for (int d = r - 1; d >= 0; d--) {
    idx[d] = q % L->dims[d];
    q /= L->dims[d];
    off += idx[d] * L->coef[d];
  }
  /* rank 0 (every dimension of size 1): one run of the constant base */
  int64_t c = r ? L->coef[r - 1] : 0, dl = r ? L->dims[r - 1] : n;
  if (!r) idx[0] = 0;
  int last = r ? r - 1 : 0;
  while (k < n) {
    int64_t run = dl - idx[last];
    if (run > n - k) run = n - k;
    switch ((int)t) {
    case HLO_S8: case HLO_U8: IOTA_RUN(uint8_t); break;
    case HLO_S16: case HLO_U16: IOTA_RUN(uint16_t); break;
    case HLO_S32: case HLO_U32: IOTA_RUN(uint32_t); break;
    case HLO_S64: case HLO_U64: IOTA_RUN(uint64_t); break;
    case HLO_F64: IOTA_RUN(double); break;
    default: IOTA_RUN(float); break;
    }
    k += run;
    if (k >= n) break;
    off = leaf_advance(L, idx, last, off, c, run);
  }
}

#define CMP_LOOP(T)                                                         \
  do {                                                                      \
    const T *x = (const T *)pa, *y = (const T *)pb;                         \
    switch (nd->dir) {                                                      \
    case CMP_EQ: for (int64_t k = 0; k < n; k++) z[k] = x[k] == y[k]; break; \
    case CMP_NE: for (int64_t k = 0; k < n; k++) z[k] = x[k] != y[k]; break; \
    case CMP_LT: for (int64_t k = 0; k < n; k++) z[k] = x[k] < y[k]; break;  \
    case CMP_LE: for (int64_t k = 0; k < n; k++) z[k] = x[k] <= y[k]; break; \
    case CMP_GT: for (int64_t k = 0; k < n; k++) z[k] = x[k] > y[k]; break;  \
    default: for (int64_t k = 0; k < n; k++) z[k] = x[k] >= y[k]; break;     \
    }                                                                       \
  } while (0)

/* Integer ops of type T (unsigned twin U for the wrapping arithmetic, as
 * the reference computes in uint64 and truncates; signed twin S for the
 * arithmetic shift; SGN whether T is signed), as hlo_ref_unary/_binary:
 * x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0; a shift
 * count is read as unsigned, and counts >= the width give 0 (the sign fill
 * for the arithmetic shift). */
#define INT_OP(T, U, S, SGN)                                                \
  do {                                                                      \
    const T *x = (const T *)pa, *y = (const T *)pb;                         \
    T *z = out;                                                             \
    const unsigned W = (unsigned)sizeof(T) * 8;                             \
    switch ((int)nd->op) {                                                  \
    case HLO_OP_NOT: for (int64_t k = 0; k < n; k++) z[k] = (T)~x[k]; break; \
    case HLO_OP_NEGATE: for (int64_t k = 0; k < n; k++) z[k] = (T)(0 - (U)x[k]); break; \
    case HLO_OP_ABS:                                                        \
      for (int64_t k = 0; k < n; k++) z[k] = SGN && (S)x[k] < 0 ? (T)(0 - (U)x[k]) : x[k]; \
      break;                                                                \
    case HLO_OP_SIGN:                                                       \
      for (int64_t k = 0; k < n; k++)                                       \
        z[k] = SGN ? (T)(((S)x[k] > 0) - ((S)x[k] < 0)) : (T)(x[k] != 0);   \
      break;                                                                \
    case HLO_OP_POPCNT:                                                     \
      for (int64_t k = 0; k < n; k++) z[k] = (T)__builtin_popcountll((U)x[k]); \
      break;                                                                \
    case HLO_OP_CLZ:                                                        \
      for (int64_t k = 0; k < n; k++)                                       \
        z[k] = (U)x[k] == 0 ? (T)W : (T)(__builtin_clzll((U)x[k]) - (64 - (int)W)); \
      break;                                                                \
    case HLO_OP_ADD: for (int64_t k = 0; k < n; k++) z[k] = (T)((U)x[k] + (U)y[k]); break; \
    case HLO_OP_SUBTRACT: for (int64_t k = 0; k < n; k++) z[k] = (T)((U)x[k] - (U)y[k]); break; \
    case HLO_OP_MULTIPLY: for (int64_t k = 0; k < n; k++) z[k] = (T)((U)x[k] * (U)y[k]); break; \
    case HLO_OP_DIVIDE:                                                     \
      for (int64_t k = 0; k < n; k++)                                       \
        z[k] = y[k] == 0 ? (T)-1                                            \
               : SGN && y[k] == (T)-1 ? (T)(0 - (U)x[k]) : (T)(x[k] / y[k]); \
      break;                                                                \
    case HLO_OP_REMAINDER:                                                  \
      for (int64_t k = 0; k < n; k++)                                       \
        z[k] = y[k] == 0 ? x[k] : SGN && y[k] == (T)-1 ? (T)0 : (T)(x[k] % y[k]); \
      break;                                                                \
    case HLO_OP_SHIFT_LEFT:                                                 \
      for (int64_t k = 0; k < n; k++)                                       \
        z[k] = (U)y[k] >= W ? (T)0 : (T)((U)x[k] << (U)y[k]);               \
      break;                                                                \
    case HLO_OP_SHIFT_RIGHT_LOGICAL:                                        \
      for (int64_t k = 0; k < n; k++)                                       \
        z[k] = (U)y[k] >= W ? (T)0 : (T)((U)x[k] >> (U)y[k]);               \
      break;                                                                \
    case HLO_OP_SHIFT_RIGHT_ARITHMETIC:                                     \
      for (int64_t k = 0; k < n; k++)                                       \
        z[k] = (U)y[k] >= W ? (T)((S)x[k] < 0 ? -1 : 0) : (T)((S)x[k] >> (U)y[k]); \
      break;                                                                \
    case HLO_OP_MAXIMUM: for (int64_t k = 0; k < n; k++) z[k] = x[k] > y[k] ? x[k] : y[k]; break; \
    case HLO_OP_MINIMUM: for (int64_t k = 0; k < n; k++) z[k] = x[k] < y[k] ? x[k] : y[k]; break; \
    case HLO_OP_AND: for (int64_t k = 0; k < n; k++) z[k] = x[k] & y[k]; break; \
    case HLO_OP_OR: for (int64_t k = 0; k < n; k++) z[k] = x[k] | y[k]; break; \
    case HLO_OP_XOR: for (int64_t k = 0; k < n; k++) z[k] = x[k] ^ y[k]; break; \
    default: break;                                                         \
    }                                                                       \
  } while (0)

#define SELECT_LOOP(U)                                                      \
  do {                                                                      \
    const U *x = pb, *y = ptr[nd->c];                                       \
    U *z = out;                                                             \
    for (int64_t k = 0; k < n; k++) {                                       \
      U m = (U)((U)0 - (U)(c[k] != 0));                                     \
      z[k] = (U)((x[k] & m) | (y[k] & (U)~m));                              \
    }                                                                       \
  } while (0)

void hlo_lp_eval(const hlo_lp *p, const hlo_fv_isa *isa, hlo_val *const *args, void *scratch,
                 int64_t f0, int64_t n, void *dst) {
  char *sb = (char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
  void *ptr[LP_MAX_NODES];
  for (int i = 0; i <= p->root; i++) {
    const lp_node *nd = &p->nodes[i];
    void *out = nd->buf >= 0 ? sb + (size_t)nd->buf * HLO_LP_CHUNK * 8
                : i == p->root ? dst : NULL;
    if (nd->kind == LN_LEAF) {
      const lp_leaf *L = &p->leaves[nd->leaf];
      const char *data = L->arg >= 0 ? (const char *)args[L->arg]->data : L->cdata;
      bool nw = is_narrow(nd->type);
      if (L->iota) {
        ptr[i] = out;
        if (!out) continue;
        iota_gather(L, nd->type, f0, n, out);
        if (nw) isa->round16(nd->type, n, out);
        continue;
      }
      if (L->flat && !nw) { ptr[i] = (void *)(data + f0 * L->esize); continue; }
      if (!out) { ptr[i] = NULL; continue; }
      if (nw) {
        /* raw 16-bit values into the buffer's upper half, widened below it */
        uint16_t *raw = (uint16_t *)((char *)out + HLO_LP_CHUNK * 4);
        if (L->flat) memcpy(raw, data + f0 * 2, (size_t)n * 2);
        else gather(isa, L, data, f0, n, (char *)raw);
        isa->widen16(nd->type, n, raw, out);
      } else {
        gather(isa, L, data, f0, n, out);
      }
      ptr[i] = out;
      continue;
    }
    if (!out) { ptr[i] = NULL; continue; } /* dead node */
    ptr[i] = out;
    const void *pa = ptr[nd->a], *pb = nd->b >= 0 ? ptr[nd->b] : NULL;
    switch (nd->kind) {
    case LN_UN:
      if (nd->op == HLO_OP_COPY) {
        memcpy(out, pa, (size_t)n * (size_t)cbytes(nd->type));
      } else if (nd->type == HLO_F64) {
        isa->un64(nd->op, n, pa, out);
      } else {
        isa->un32(nd->op, n, pa, out);
        if (is_narrow(nd->type)) isa->round16(nd->type, n, out);
      }
      break;
    case LN_BIN:
      if (nd->type == HLO_F64) {
        isa->bin64(nd->op, n, pa, pb, out);
      } else {
        isa->bin32(nd->op, n, pa, pb, out);
        if (is_narrow(nd->type)) isa->round16(nd->type, n, out);
      }
      break;
    case LN_CMP: {
      unsigned char *z = out;
      switch ((int)nd->itype) {
      case HLO_F64: CMP_LOOP(double); break;
      case HLO_PRED: case HLO_U8: CMP_LOOP(uint8_t); break;
      case HLO_S8: CMP_LOOP(int8_t); break;
      case HLO_S16: CMP_LOOP(int16_t); break;
      case HLO_U16: CMP_LOOP(uint16_t); break;
      case HLO_S32: CMP_LOOP(int32_t); break;
      case HLO_U32: CMP_LOOP(uint32_t); break;
      case HLO_S64: CMP_LOOP(int64_t); break;
      case HLO_U64: CMP_LOOP(uint64_t); break;
      default: CMP_LOOP(float); break; /* f32, and f16/bf16 widened */
      }
      break;
    }
    case LN_SELECT: {
      /* bit copies by element size, branch-free (a mask from the predicate)
       * so they vectorize: a branch per element mispredicts on mixed
       * predicates (5.7 ns per element on f32[96,96,112,112]) */
      const unsigned char *c = pa;
      int es = cbytes(nd->type);
      if (es == 1) SELECT_LOOP(uint8_t);
      else if (es == 2) SELECT_LOOP(uint16_t);
      else if (es == 4) SELECT_LOOP(uint32_t);
      else SELECT_LOOP(uint64_t);
      break;
    }
    case LN_IUN: case LN_IBIN:
      switch ((int)nd->type) {
      case HLO_S8: INT_OP(int8_t, uint8_t, int8_t, 1); break;
      case HLO_U8: INT_OP(uint8_t, uint8_t, int8_t, 0); break;
      case HLO_S16: INT_OP(int16_t, uint16_t, int16_t, 1); break;
      case HLO_U16: INT_OP(uint16_t, uint16_t, int16_t, 0); break;
      case HLO_S32: INT_OP(int32_t, uint32_t, int32_t, 1); break;
      case HLO_U32: INT_OP(uint32_t, uint32_t, int32_t, 0); break;
      case HLO_S64: INT_OP(int64_t, uint64_t, int64_t, 1); break;
      default: INT_OP(uint64_t, uint64_t, int64_t, 0); break;
      }
      break;
    case LN_ISFIN: {
      /* exponent not all ones (f16/bf16 widened: the same answer) */
      unsigned char *z = out;
      if (nd->itype == HLO_F64) {
        const uint64_t *x = pa;
        for (int64_t k = 0; k < n; k++)
          z[k] = (x[k] & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
      } else {
        const uint32_t *x = pa;
        for (int64_t k = 0; k < n; k++) z[k] = (x[k] & 0x7f800000u) != 0x7f800000u;
      }
      break;
    }
    case LN_CVT:
      isa->cvt(nd->itype, nd->type, n, pa, out);
      if (is_narrow(nd->type)) isa->round16(nd->type, n, out);
      break;
    case LN_NOT: {
      const unsigned char *x = pa;
      unsigned char *z = out;
      for (int64_t k = 0; k < n; k++) z[k] = !x[k];
      break;
    }
    case LN_LOGIC: {
      const unsigned char *x = pa, *y = pb;
      unsigned char *z = out;
      if (nd->op == HLO_OP_AND) for (int64_t k = 0; k < n; k++) z[k] = x[k] & y[k];
      else if (nd->op == HLO_OP_OR) for (int64_t k = 0; k < n; k++) z[k] = x[k] | y[k];
      else for (int64_t k = 0; k < n; k++) z[k] = x[k] ^ y[k];
      break;
    }
    default:
      break;
    }
  }
  if (is_narrow(p->type)) isa->narrow16(p->type, n, ptr[p->root], dst);
}
