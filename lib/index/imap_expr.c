/* imap_expr.c - expressions: the interning context, constructors that
 * keep the normal form of hlo_imap.h (constant folding, like-term merging,
 * canonical term order; non-affine operations as opaque BINOP atoms),
 * substitution, ordering and evaluation. */
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"

void imap_ctx_init(imap_ctx *c, const hlo_allocator *alloc) {
  memset(c, 0, sizeof *c);
  c->alloc = alloc;
  hlo_arena_init(&c->arena, alloc);
}

void imap_ctx_release(imap_ctx *c) {
  hlo_free(c->alloc, c->table);
  hlo_arena_release(&c->arena);
  c->table = NULL;
  c->cap = c->count = 0;
}

void *imap_alloc(imap_ctx *c, size_t n, size_t sz) {
  if (n == 0) n = 1;
  void *p = hlo_arena_array(&c->arena, n, sz);
  if (!p) c->failed = true;
  return p;
}

const imap_expr *imap_fail_overflow(imap_ctx *c) {
  c->failed = true;
  c->overflow = true;
  return NULL;
}

/* ---- integer helpers ------------------------------------------------------ */
int64_t imap_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) q--;
  return q;
}

int64_t imap_ceil_div(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) == (b < 0))) q++;
  return q;
}

int64_t imap_floor_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int64_t imap_gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = b < 0 ? -(uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > (uint64_t)INT64_MAX ? 0 : (int64_t)x;
}

/* ---- interning -------------------------------------------------------------- */
static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static uint64_t node_hash(const imap_expr *e) {
  uint64_t h = mix(0x12345, (uint64_t)e->kind);
  h = mix(h, (uint64_t)e->v);
  if (e->arg) h = mix(h, e->arg->hash);
  if (e->arg2) h = mix(h, e->arg2->hash);
  for (int i = 0; i < e->nterms; i++) {
    h = mix(h, (uint64_t)e->terms[i].coeff);
    h = mix(h, e->terms[i].atom->hash);
  }
  return h;
}

static bool node_eq(const imap_expr *a, const imap_expr *b) {
  if (a->kind != b->kind || a->v != b->v || a->arg != b->arg || a->arg2 != b->arg2 || a->nterms != b->nterms)
    return false;
  for (int i = 0; i < a->nterms; i++)
    if (a->terms[i].coeff != b->terms[i].coeff || a->terms[i].atom != b->terms[i].atom)
      return false;
  return true;
}

static bool grow_table(imap_ctx *c) {
  size_t ncap = c->cap ? c->cap * 2 : 256, bytes;
  if (hlo_mul_overflow(ncap, sizeof(*c->table), &bytes)) return false;
  const imap_expr **nt = hlo_malloc(c->alloc, bytes);
  if (!nt) return false;
  memset(nt, 0, bytes);
  for (size_t i = 0; i < c->cap; i++) {
    const imap_expr *e = c->table[i];
    if (!e) continue;
    size_t j = e->hash & (ncap - 1);
    while (nt[j]) j = (j + 1) & (ncap - 1);
    nt[j] = e;
  }
  hlo_free(c->alloc, c->table);
  c->table = nt;
  c->cap = ncap;
  return true;
}

/* Intern a node described by *proto (terms are copied into the arena). */
static const imap_expr *intern(imap_ctx *c, imap_expr *proto) {
  proto->hash = node_hash(proto);
  if ((c->count + 1) * 2 > c->cap && !grow_table(c)) {
    c->failed = true;
    return NULL;
  }
  size_t j = proto->hash & (c->cap - 1);
  while (c->table[j]) {
    if (c->table[j]->hash == proto->hash && node_eq(c->table[j], proto)) return c->table[j];
    j = (j + 1) & (c->cap - 1);
  }
  imap_expr *e = imap_alloc(c, 1, sizeof *e);
  if (!e) return NULL;
  *e = *proto;
  if (proto->nterms) {
    imap_term *t = imap_alloc(c, (size_t)proto->nterms, sizeof *t);
    if (!t) return NULL;
    memcpy(t, proto->terms, (size_t)proto->nterms * sizeof *t);
    e->terms = t;
  }
  c->table[j] = e;
  c->count++;
  return e;
}

/* ---- constructors -------------------------------------------------------------- */
const imap_expr *imap_const(imap_ctx *c, int64_t v) {
  imap_expr p = {.kind = IMAP_CONST, .v = v};
  return intern(c, &p);
}

const imap_expr *imap_var(imap_ctx *c, imap_kind k, int i) {
  if (i < 0 || (k != IMAP_DIM && k != IMAP_SYM && k != IMAP_RT)) return NULL;
  imap_expr p = {.kind = k, .v = i};
  return intern(c, &p);
}

const imap_expr *imap_dim(imap_ctx *c, int i) { return imap_var(c, IMAP_DIM, i); }
const imap_expr *imap_sym(imap_ctx *c, int i) { return imap_var(c, IMAP_SYM, i); }
const imap_expr *imap_rt(imap_ctx *c, int i) { return imap_var(c, IMAP_RT, i); }

static int kind_rank(imap_kind k) {
  switch (k) {
  case IMAP_CONST: return 0;
  case IMAP_DIM: return 1;
  case IMAP_SYM: return 2;
  case IMAP_RT: return 3;
  case IMAP_FLOORDIV: return 4;
  case IMAP_MOD: return 5;
  case IMAP_SUM: return 6;
  case IMAP_BINOP: return 7;
  }
  return 8;
}

int imap_expr_cmp(const imap_expr *a, const imap_expr *b) {
  if (a == b) return 0;
  int ra = kind_rank(a->kind), rb = kind_rank(b->kind);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (a->kind) {
  case IMAP_CONST:
  case IMAP_DIM:
  case IMAP_SYM:
  case IMAP_RT:
    return a->v < b->v ? -1 : a->v > b->v;
  case IMAP_FLOORDIV:
  case IMAP_MOD: {
    int r = imap_expr_cmp(a->arg, b->arg);
    if (r) return r;
    return a->v < b->v ? -1 : a->v > b->v;
  }
  case IMAP_BINOP: {
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    int r = imap_expr_cmp(a->arg, b->arg);
    return r ? r : imap_expr_cmp(a->arg2, b->arg2);
  }
  case IMAP_SUM: {
    int n = a->nterms < b->nterms ? a->nterms : b->nterms;
    for (int i = 0; i < n; i++) {
      int r = imap_expr_cmp(a->terms[i].atom, b->terms[i].atom);
      if (r) return r;
      if (a->terms[i].coeff != b->terms[i].coeff)
        return a->terms[i].coeff < b->terms[i].coeff ? -1 : 1;
    }
    if (a->nterms != b->nterms) return a->nterms < b->nterms ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v;
  }
  }
  return 0;
}

/* A growable list of terms used while building sums. */
typedef struct tlist {
  imap_term *v;
  int n, cap;
  imap_term small[16];
  int64_t cst;
  bool bad;      /* overflow */
  bool oom;
  const hlo_allocator *alloc;
} tlist;

static void tl_init(tlist *l, const hlo_allocator *a) {
  l->v = l->small;
  l->n = 0;
  l->cap = 16;
  l->cst = 0;
  l->bad = l->oom = false;
  l->alloc = a;
}

static void tl_free(tlist *l) {
  if (l->v != l->small) hlo_free(l->alloc, l->v);
}

static void tl_push(tlist *l, int64_t coeff, const imap_expr *atom) {
  if (l->n == l->cap) {
    if (l->cap > (1 << 24)) {
      l->oom = true;
      return;
    }
    imap_term *nv = hlo_malloc(l->alloc, (size_t)l->cap * 2 * sizeof *nv);
    if (!nv) {
      l->oom = true;
      return;
    }
    memcpy(nv, l->v, (size_t)l->n * sizeof *nv);
    if (l->v != l->small) hlo_free(l->alloc, l->v);
    l->v = nv;
    l->cap *= 2;
  }
  l->v[l->n].coeff = coeff;
  l->v[l->n].atom = atom;
  l->n++;
}

/* Add coeff * e to the list, flattening sums and constants. */
static void tl_add(tlist *l, int64_t coeff, const imap_expr *e) {
  int64_t p;
  if (coeff == 0) return;
  switch (e->kind) {
  case IMAP_CONST:
    if (__builtin_mul_overflow(coeff, e->v, &p) || __builtin_add_overflow(l->cst, p, &l->cst))
      l->bad = true;
    return;
  case IMAP_SUM:
    for (int i = 0; i < e->nterms; i++) {
      if (__builtin_mul_overflow(coeff, e->terms[i].coeff, &p)) {
        l->bad = true;
        return;
      }
      tl_push(l, p, e->terms[i].atom);
    }
    if (__builtin_mul_overflow(coeff, e->v, &p) || __builtin_add_overflow(l->cst, p, &l->cst))
      l->bad = true;
    return;
  case IMAP_DIM:
  case IMAP_SYM:
  case IMAP_RT:
  case IMAP_FLOORDIV:
  case IMAP_MOD:
  case IMAP_BINOP:
    tl_push(l, coeff, e);
    return;
  }
}

static int term_cmp(const void *x, const void *y) {
  const imap_term *a = x, *b = y;
  return imap_expr_cmp(a->atom, b->atom);
}

/* Sort, merge and intern the list as an expression. */
static const imap_expr *tl_build(imap_ctx *c, tlist *l) {
  if (l->oom) {
    c->failed = true;
    return NULL;
  }
  if (l->bad) return imap_fail_overflow(c);
  if (l->n > 1) qsort(l->v, (size_t)l->n, sizeof *l->v, term_cmp);
  int w = 0;
  for (int i = 0; i < l->n; i++) {
    if (w > 0 && l->v[w - 1].atom == l->v[i].atom) {
      if (__builtin_add_overflow(l->v[w - 1].coeff, l->v[i].coeff, &l->v[w - 1].coeff))
        return imap_fail_overflow(c);
    } else {
      l->v[w++] = l->v[i];
    }
    if (l->v[w - 1].coeff == 0) w--;
  }
  /* merging may have produced zeros in the middle; compact again */
  int w2 = 0;
  for (int i = 0; i < w; i++)
    if (l->v[i].coeff != 0) l->v[w2++] = l->v[i];
  w = w2;
  if (w == 0) return imap_const(c, l->cst);
  if (w == 1 && l->v[0].coeff == 1 && l->cst == 0) return l->v[0].atom;
  imap_expr p = {.kind = IMAP_SUM, .v = l->cst, .nterms = w, .terms = l->v};
  return intern(c, &p);
}

const imap_expr *imap_sum(imap_ctx *c, const imap_term *t, int n, int64_t cst) {
  for (int i = 0; i < n; i++)
    if (!t[i].atom) return NULL;
  tlist l;
  tl_init(&l, c->alloc);
  l.cst = cst;
  for (int i = 0; i < n; i++) tl_add(&l, t[i].coeff, t[i].atom);
  const imap_expr *r = tl_build(c, &l);
  tl_free(&l);
  return r;
}

const imap_expr *imap_add(imap_ctx *c, const imap_expr *a, const imap_expr *b) {
  if (!a || !b) return NULL;
  imap_term t[2] = {{1, a}, {1, b}};
  return imap_sum(c, t, 2, 0);
}

const imap_expr *imap_add_const(imap_ctx *c, const imap_expr *a, int64_t k) {
  if (!a) return NULL;
  imap_term t[1] = {{1, a}};
  return imap_sum(c, t, 1, k);
}

const imap_expr *imap_sub(imap_ctx *c, const imap_expr *a, const imap_expr *b) {
  if (!a || !b) return NULL;
  imap_term t[2] = {{1, a}, {-1, b}};
  return imap_sum(c, t, 2, 0);
}

const imap_expr *imap_mul(imap_ctx *c, const imap_expr *a, int64_t k) {
  if (!a) return NULL;
  imap_term t[1] = {{k, a}};
  return imap_sum(c, t, 1, 0);
}

const imap_expr *imap_floordiv(imap_ctx *c, const imap_expr *a, int64_t k) {
  if (!a) return NULL;
  if (k == 0) {
    c->failed = true;
    return NULL;
  }
  if (k < 0) {
    if (k == INT64_MIN) return imap_fail_overflow(c);
    a = imap_mul(c, a, -1);
    k = -k;
    if (!a) return NULL;
  }
  if (k == 1) return a;
  if (a->kind == IMAP_CONST) return imap_const(c, imap_floor_div(a->v, k));
  imap_expr p = {.kind = IMAP_FLOORDIV, .v = k, .arg = a};
  return intern(c, &p);
}

const imap_expr *imap_mod(imap_ctx *c, const imap_expr *a, int64_t k) {
  if (!a) return NULL;
  if (k <= 0) {
    c->failed = true;
    return NULL;
  }
  if (k == 1) return imap_const(c, 0);
  if (a->kind == IMAP_CONST) return imap_const(c, imap_floor_mod(a->v, k));
  imap_expr p = {.kind = IMAP_MOD, .v = k, .arg = a};
  return intern(c, &p);
}

static const imap_expr *fold(imap_ctx *c, imap_binop op, int64_t a, int64_t b) {
  int64_t r;
  switch (op) {
  case IMAP_OP_MUL:
    if (__builtin_mul_overflow(a, b, &r)) return imap_fail_overflow(c);
    return imap_const(c, r);
  case IMAP_OP_MIN: return imap_const(c, a < b ? a : b);
  case IMAP_OP_MAX: return imap_const(c, a > b ? a : b);
  default: return NULL; /* divisions fold in their affine constructors */
  }
}

const imap_expr *imap_binop_expr(imap_ctx *c, imap_binop op, const imap_expr *a, const imap_expr *b) {
  if (!a || !b) return NULL;
  bool commutes = op == IMAP_OP_MUL || op == IMAP_OP_MIN || op == IMAP_OP_MAX;
  if (commutes && a->kind == IMAP_CONST) { /* the constant on the right, as XLA puts it */
    const imap_expr *t = a;
    a = b;
    b = t;
  }
  if (a->kind == IMAP_CONST && b->kind == IMAP_CONST && commutes) return fold(c, op, a->v, b->v);
  if (b->kind == IMAP_CONST) {
    int64_t k = b->v;
    switch (op) {
    case IMAP_OP_MUL: return imap_mul(c, a, k);
    case IMAP_OP_FLOORDIV: return imap_floordiv(c, a, k);
    case IMAP_OP_MOD:
      if (k <= 0) {
        c->failed = true;
        return NULL;
      }
      return imap_mod(c, a, k);
    case IMAP_OP_CEILDIV: /* a ceildiv k = -((-a) floordiv k) */
      return imap_mul(c, imap_floordiv(c, imap_mul(c, a, -1), k), -1);
    case IMAP_OP_MIN:
    case IMAP_OP_MAX: break;
    }
  }
  imap_expr p = {.kind = IMAP_BINOP, .v = op, .arg = a, .arg2 = b};
  return intern(c, &p);
}

bool imap_eval_binop(imap_binop op, int64_t a, int64_t b, int64_t *out) {
  switch (op) {
  case IMAP_OP_MUL: return !__builtin_mul_overflow(a, b, out);
  case IMAP_OP_MIN: *out = a < b ? a : b; return true;
  case IMAP_OP_MAX: *out = a > b ? a : b; return true;
  case IMAP_OP_FLOORDIV:
  case IMAP_OP_CEILDIV:
  case IMAP_OP_MOD:
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    *out = op == IMAP_OP_FLOORDIV ? imap_floor_div(a, b) : op == IMAP_OP_CEILDIV ? imap_ceil_div(a, b)
                                                                                 : imap_floor_mod(a, b);
    return true;
  }
  return false;
}

const imap_expr *imap_subst(imap_ctx *c, const imap_expr *e, const imap_expr *const *dims,
                            int ndims, const imap_expr *const *syms, int nsyms,
                            const imap_expr *const *rts, int nrts) {
  if (!e) return NULL;
  switch (e->kind) {
  case IMAP_CONST:
    return e;
  case IMAP_DIM:
    return dims && e->v < ndims && dims[e->v] ? dims[e->v] : e;
  case IMAP_SYM:
    return syms && e->v < nsyms && syms[e->v] ? syms[e->v] : e;
  case IMAP_RT:
    return rts && e->v < nrts && rts[e->v] ? rts[e->v] : e;
  case IMAP_FLOORDIV:
    return imap_floordiv(c, imap_subst(c, e->arg, dims, ndims, syms, nsyms, rts, nrts), e->v);
  case IMAP_MOD:
    return imap_mod(c, imap_subst(c, e->arg, dims, ndims, syms, nsyms, rts, nrts), e->v);
  case IMAP_BINOP:
    return imap_binop_expr(c, (imap_binop)e->v, imap_subst(c, e->arg, dims, ndims, syms, nsyms, rts, nrts),
                           imap_subst(c, e->arg2, dims, ndims, syms, nsyms, rts, nrts));
  case IMAP_SUM: {
    tlist l;
    tl_init(&l, c->alloc);
    l.cst = e->v;
    for (int i = 0; i < e->nterms; i++) {
      const imap_expr *a = imap_subst(c, e->terms[i].atom, dims, ndims, syms, nsyms, rts, nrts);
      if (!a) {
        tl_free(&l);
        return NULL;
      }
      tl_add(&l, e->terms[i].coeff, a);
    }
    const imap_expr *r = tl_build(c, &l);
    tl_free(&l);
    return r;
  }
  }
  return NULL;
}

bool imap_expr_uses(const imap_expr *e, imap_kind k, int i) {
  switch (e->kind) {
  case IMAP_CONST:
    return false;
  case IMAP_DIM:
  case IMAP_SYM:
  case IMAP_RT:
    return e->kind == k && e->v == i;
  case IMAP_FLOORDIV:
  case IMAP_MOD:
    return imap_expr_uses(e->arg, k, i);
  case IMAP_BINOP:
    return imap_expr_uses(e->arg, k, i) || imap_expr_uses(e->arg2, k, i);
  case IMAP_SUM:
    for (int j = 0; j < e->nterms; j++)
      if (imap_expr_uses(e->terms[j].atom, k, i)) return true;
    return false;
  }
  return false;
}

bool imap_eval(const imap_expr *e, const int64_t *d, const int64_t *s, const int64_t *rt,
               int64_t *out) {
  int64_t x, p;
  switch (e->kind) {
  case IMAP_CONST:
    *out = e->v;
    return true;
  case IMAP_DIM:
    *out = d[e->v];
    return true;
  case IMAP_SYM:
    *out = s[e->v];
    return true;
  case IMAP_RT:
    *out = rt[e->v];
    return true;
  case IMAP_FLOORDIV:
    if (!imap_eval(e->arg, d, s, rt, &x)) return false;
    *out = imap_floor_div(x, e->v);
    return true;
  case IMAP_MOD:
    if (!imap_eval(e->arg, d, s, rt, &x)) return false;
    *out = imap_floor_mod(x, e->v);
    return true;
  case IMAP_BINOP:
    if (!imap_eval(e->arg, d, s, rt, &x) || !imap_eval(e->arg2, d, s, rt, &p)) return false;
    return imap_eval_binop((imap_binop)e->v, x, p, out);
  case IMAP_SUM: {
    int64_t acc = e->v;
    for (int i = 0; i < e->nterms; i++) {
      if (!imap_eval(e->terms[i].atom, d, s, rt, &x)) return false;
      if (__builtin_mul_overflow(x, e->terms[i].coeff, &p) || __builtin_add_overflow(acc, p, &acc))
        return false;
    }
    *out = acc;
    return true;
  }
  }
  return false;
}
