/* imap_simplify.c - the range-aware simplifier: point folding, floordiv and
 * mod rewrites (no-wrap mods, nested divisions, extraction of divisible
 * summands, splitting sums by gcd), mod/div pair cancellation in sums,
 * constraint rewriting, merging and elimination, and empty-domain
 * detection.  Every rewrite is an identity over the map's domain. */
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"

typedef struct simp {
  imap_ctx *c;
  const imap_map *m;
  bool use_cons;
} simp;

static imap_interval rng(simp *S, const imap_expr *e) { return imap_range(S->m, e, S->use_cons); }

static bool iv_within(imap_interval a, int64_t lo, int64_t hi) {
  return a.lo <= a.hi && a.lo >= lo && a.hi <= hi;
}

static bool is_point(imap_interval r) {
  return r.lo == r.hi && r.lo != INT64_MIN && r.lo != INT64_MAX;
}

/* View any expression as constant + terms (an atom is one term). */
typedef struct lin {
  int64_t cst;
  int n;
  const imap_term *t;
  imap_term one;
} lin;

static void as_lin(const imap_expr *e, lin *l) {
  l->cst = 0;
  l->n = 0;
  l->t = NULL;
  if (e->kind == IMAP_CONST) {
    l->cst = e->v;
  } else if (e->kind == IMAP_SUM) {
    l->cst = e->v;
    l->n = e->nterms;
    l->t = e->terms;
  } else {
    l->one = (imap_term){1, e};
    l->n = 1;
    l->t = &l->one;
  }
}

/* Build sum of selected terms (sel[i] true), each coefficient divided by
 * div, plus cst. */
static const imap_expr *build_sel(imap_ctx *c, const lin *l, const bool *sel, bool want,
                                  int64_t div, int64_t cst) {
  imap_term *t = imap_alloc(c, (size_t)l->n, sizeof *t);
  if (!t) return NULL;
  int n = 0;
  for (int i = 0; i < l->n; i++)
    if (sel[i] == want) t[n++] = (imap_term){l->t[i].coeff / div, l->t[i].atom};
  return imap_sum(c, t, n, cst);
}

static int cmp_desc(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? 1 : a > b ? -1 : 0;
}

/* Candidate split factors h > 1 of (divisor, coefficients), largest first. */
static int split_candidates(const lin *l, int64_t d, int64_t *out, int max) {
  int n = 0;
  for (int i = 0; i < l->n && n < max; i++) {
    int64_t h = imap_gcd(d, l->t[i].coeff);
    if (h <= 1) continue;
    bool dup = false;
    for (int j = 0; j < n; j++) dup |= out[j] == h;
    if (!dup) out[n++] = h;
  }
  if (n > 1) qsort(out, (size_t)n, sizeof *out, cmp_desc);
  return n;
}

/* Split l into A*h + B with B's range in [0, h-1] for the largest such h
 * dividing d.  On success *a_div_h = A (coefficients divided by h), *b = B. */
static bool split_by_gcd(simp *S, const lin *l, int64_t d, int64_t *h_out,
                         const imap_expr **a_div_h, const imap_expr **b) {
  int64_t cand[16];
  int nc = split_candidates(l, d, cand, 16);
  bool *sel = imap_alloc(S->c, (size_t)l->n, sizeof *sel);
  if (!sel) return false;
  for (int k = 0; k < nc; k++) {
    int64_t h = cand[k];
    int na = 0;
    for (int i = 0; i < l->n; i++) na += (sel[i] = l->t[i].coeff % h == 0);
    if (na == 0) continue;
    int64_t acst = l->cst % h == 0 ? l->cst / h : 0, bcst = l->cst % h == 0 ? 0 : l->cst;
    const imap_expr *B = build_sel(S->c, l, sel, false, 1, bcst);
    if (!B) return false;
    if (!iv_within(rng(S, B), 0, h - 1)) continue;
    const imap_expr *A = build_sel(S->c, l, sel, true, h, acst);
    if (!A) return false;
    *h_out = h;
    *a_div_h = A;
    *b = B;
    return true;
  }
  return false;
}

static const imap_expr *simp_once(simp *S, const imap_expr *e);

static const imap_expr *simp_floordiv(simp *S, const imap_expr *x, int64_t d) {
  imap_ctx *c = S->c;
  int64_t p;
  if (d == 1) return x;
  imap_interval r = rng(S, x);
  if (r.lo <= r.hi && r.lo != INT64_MIN && r.hi != INT64_MAX &&
      imap_floor_div(r.lo, d) == imap_floor_div(r.hi, d))
    return imap_const(c, imap_floor_div(r.lo, d));
  /* (y mod (a*d)) floordiv d -> (y floordiv d) mod a */
  if (x->kind == IMAP_MOD && x->v % d == 0) return imap_mod(c, imap_floordiv(c, x->arg, d), x->v / d);
  /* (y floordiv b) floordiv d -> y floordiv (b*d) */
  if (x->kind == IMAP_FLOORDIV && !__builtin_mul_overflow(x->v, d, &p))
    return imap_floordiv(c, x->arg, p);
  if (x->kind != IMAP_SUM) return imap_floordiv(c, x, d);
  lin l;
  as_lin(x, &l);
  /* move summands divisible by d out of the division */
  bool *sel = imap_alloc(c, (size_t)l.n, sizeof *sel);
  if (!sel) return NULL;
  int nout = 0;
  for (int i = 0; i < l.n; i++) nout += (sel[i] = l.t[i].coeff % d == 0);
  /* today's XLA also takes the whole multiples of d out of the constant,
     leaving a remainder in [0, d-1] (SimplifySumDiv); 2025 only a constant
     that d divides */
  int64_t cq = imap_floor_div(l.cst, d);
  if (c->xla == IMAP_XLA_2025 && l.cst % d != 0) cq = 0;
  bool cst_out = cq != 0;
  if (nout || cst_out) {
    const imap_expr *out = build_sel(c, &l, sel, true, d, cq);
    const imap_expr *rest = build_sel(c, &l, sel, false, 1, l.cst - cq * d);
    if (!out || !rest) return NULL;
    return imap_add(c, out, imap_floordiv(c, rest, d));
  }
  /* A*h + B with 0 <= B < h, h | d: the division ignores B */
  int64_t h;
  const imap_expr *A, *B;
  if (split_by_gcd(S, &l, d, &h, &A, &B)) return imap_floordiv(c, A, d / h);
  if (c->failed) return NULL;
  /* a factor g of the divisor, every coefficient and the constant cancels:
     (s0 * 6 + 9) floordiv 18 -> (s0 * 2 + 3) floordiv 6 (today's XLA,
     SimplifySumDiv) */
  int64_t g = imap_gcd(d, l.cst);
  for (int i = 0; i < l.n && g > 1; i++) g = imap_gcd(g, l.t[i].coeff);
  if (g > 1 && l.cst != 0 && c->xla != IMAP_XLA_2025) {
    for (int i = 0; i < l.n; i++) sel[i] = true;
    const imap_expr *q = build_sel(c, &l, sel, true, g, l.cst / g);
    return q ? imap_floordiv(c, q, d / g) : NULL;
  }
  /* (y floordiv c0 + R) floordiv d -> (y + R*c0) floordiv (c0*d) */
  int nfd = 0, at = -1;
  for (int i = 0; i < l.n; i++)
    if (l.t[i].atom->kind == IMAP_FLOORDIV) {
      nfd++;
      at = i;
    }
  if (nfd == 1 && l.t[at].coeff == 1) {
    int64_t c0 = l.t[at].atom->v, cd;
    if (!__builtin_mul_overflow(c0, d, &cd)) {
      for (int i = 0; i < l.n; i++) sel[i] = i == at;
      const imap_expr *R = build_sel(c, &l, sel, false, 1, l.cst);
      return imap_floordiv(c, imap_add(c, l.t[at].atom->arg, imap_mul(c, R, c0)), cd);
    }
  }
  return imap_floordiv(c, x, d);
}

static const imap_expr *simp_mod(simp *S, const imap_expr *x, int64_t m) {
  imap_ctx *c = S->c;
  if (m == 1) return imap_const(c, 0);
  imap_interval r = rng(S, x);
  if (r.lo <= r.hi && r.lo != INT64_MIN && r.hi != INT64_MAX) {
    int64_t q = imap_floor_div(r.lo, m), off, hi;
    if (!__builtin_mul_overflow(-q, m, &off) && !__builtin_add_overflow(r.hi, off, &hi) && hi < m)
      return imap_add_const(c, x, off);
  }
  /* (y mod (k*m)) mod m -> y mod m */
  if (x->kind == IMAP_MOD && x->v % m == 0) return imap_mod(c, x->arg, m);
  if (x->kind != IMAP_SUM) return imap_mod(c, x, m);
  lin l;
  as_lin(x, &l);
  /* drop summands that are multiples of m; reduce the constant */
  bool *sel = imap_alloc(c, (size_t)l.n, sizeof *sel);
  if (!sel) return NULL;
  int ndrop = 0;
  for (int i = 0; i < l.n; i++) ndrop += (sel[i] = l.t[i].coeff % m == 0);
  int64_t cm = imap_floor_mod(l.cst, m);
  if (ndrop || cm != l.cst) return imap_mod(c, build_sel(c, &l, sel, false, 1, cm), m);
  /* every coefficient and the constant share g with m: (x/g mod m/g) * g */
  int64_t g = imap_gcd(m, l.cst);
  for (int i = 0; i < l.n; i++) g = imap_gcd(g, l.t[i].coeff);
  if (g > 1) {
    for (int i = 0; i < l.n; i++) sel[i] = true;
    return imap_mul(c, imap_mod(c, build_sel(c, &l, sel, true, g, l.cst / g), m / g), g);
  }
  /* A*h + B with 0 <= B < h, h | m: (A*h) mod m + B */
  int64_t h;
  const imap_expr *A, *B;
  if (split_by_gcd(S, &l, m, &h, &A, &B) && !(B->kind == IMAP_CONST && B->v == 0))
    return imap_add(c, imap_mod(c, imap_mul(c, A, h), m), B);
  if (c->failed) return NULL;
  return imap_mod(c, x, m);
}

/* Sum rules: (x mod c)*k + (x floordiv c)*(k*c) -> x*k, and
 * (x floordiv c)*k with k < 0, c | k -> x*(k/c) + (x mod c)*(-k/c). */
static const imap_expr *simp_sum_rules(simp *S, const imap_expr *e) {
  imap_ctx *c = S->c;
  if (e->kind != IMAP_SUM) return e;
  for (int i = 0; i < e->nterms; i++) {
    const imap_expr *a = e->terms[i].atom;
    int64_t k = e->terms[i].coeff;
    if (k == INT64_MIN) continue;
    if (a->kind == IMAP_FLOORDIV && k < 0 && k % a->v == 0) {
      imap_term t[3] = {{-k, a}, {k / a->v, a->arg}, {-(k / a->v), NULL}};
      t[2].atom = imap_mod(c, a->arg, a->v);
      if (!t[2].atom) return NULL;
      return imap_add(c, e, imap_sum(c, t, 3, 0));
    }
    if (a->kind != IMAP_MOD) continue;
    int64_t kc;
    if (__builtin_mul_overflow(k, a->v, &kc) || kc == INT64_MIN) continue;
    for (int j = 0; j < e->nterms; j++) {
      const imap_expr *b = e->terms[j].atom;
      if (b->kind != IMAP_FLOORDIV || e->terms[j].coeff != kc) continue;
      /* b may be x floordiv c written another way: (d1 * 128 + d0)
         floordiv 192 is (d1 * 2 + d0 floordiv 64) floordiv 3 (XLA's
         reshape-and-back simplifications) */
      bool same = b->arg == a->arg && b->v == a->v;
      if (!same) {
        const imap_expr *q = imap_floordiv(c, a->arg, a->v);
        for (int it = 0; q && q != b && it < 8; it++) {
          const imap_expr *n = simp_once(S, q);
          if (n == q) break;
          q = n;
        }
        if (!q) return NULL;
        same = q == b;
      }
      if (same) {
        imap_term t[3] = {{-k, a}, {-kc, b}, {k, a->arg}};
        return imap_add(c, e, imap_sum(c, t, 3, 0));
      }
    }
  }
  return e;
}

static const imap_expr *simp_once(simp *S, const imap_expr *e) {
  imap_ctx *c = S->c;
  if (!e || e->kind == IMAP_CONST) return e;
  imap_interval r = rng(S, e);
  if (is_point(r)) return imap_const(c, r.lo);
  switch (e->kind) {
  case IMAP_CONST:
  case IMAP_DIM:
  case IMAP_SYM:
  case IMAP_RT:
    return e;
  case IMAP_FLOORDIV: {
    const imap_expr *a = simp_once(S, e->arg);
    return a ? simp_floordiv(S, a, e->v) : NULL;
  }
  case IMAP_MOD: {
    const imap_expr *a = simp_once(S, e->arg);
    return a ? simp_mod(S, a, e->v) : NULL;
  }
  case IMAP_BINOP: /* opaque: simplify the operands (a constant one makes it affine) */
    return imap_binop_expr(c, (imap_binop)e->v, simp_once(S, e->arg), simp_once(S, e->arg2));
  case IMAP_SUM: {
    imap_term *t = imap_alloc(c, (size_t)e->nterms, sizeof *t);
    if (!t) return NULL;
    for (int i = 0; i < e->nterms; i++) {
      t[i].coeff = e->terms[i].coeff;
      if (!(t[i].atom = simp_once(S, e->terms[i].atom))) return NULL;
    }
    const imap_expr *s = imap_sum(c, t, e->nterms, e->v);
    return s ? simp_sum_rules(S, s) : NULL;
  }
  }
  return e;
}

const imap_expr *imap_simplify_expr(imap_ctx *c, const imap_map *m, const imap_expr *e,
                                    bool use_constraints) {
  simp S = {c, m, use_constraints};
  for (int it = 0; it < 64 && e; it++) {
    const imap_expr *n = simp_once(&S, e);
    if (n == e) return e;
    e = n;
  }
  return e;
}

/* ---- constraints ------------------------------------------------------------------ */

/* Rewrite `e in [lo, hi]` into a simpler equivalent, in place. */
static bool rewrite_constraint(simp *S, const imap_expr **pe, int64_t *plo, int64_t *phi) {
  imap_ctx *c = S->c;
  const imap_expr *e = *pe;
  int64_t lo = *plo, hi = *phi;
  if (e->kind == IMAP_SUM && e->v != 0) { /* e + k in [l, u] -> e in [l-k, u-k] */
    if (e->v == INT64_MIN) return false;
    *pe = imap_add_const(c, e, -e->v);
    *plo = imap_sat_add(lo, -e->v);
    *phi = imap_sat_add(hi, -e->v);
    return *pe != NULL;
  }
  if (e->kind == IMAP_FLOORDIV) { /* e floordiv k in [l, u] -> e in [l*k, (u+1)*k - 1] */
    *pe = e->arg;
    *plo = imap_sat_mul(lo, e->v);
    *phi = hi == INT64_MAX ? INT64_MAX : imap_sat_add(imap_sat_mul(hi + 1, e->v), -1);
    return true;
  }
  if (e->kind != IMAP_SUM) return false;
  lin l;
  as_lin(e, &l);
  /* common factor g of all coefficients: e*g in [l, u] -> e in [ceil(l/g), floor(u/g)] */
  int64_t g = 0;
  for (int i = 0; i < l.n; i++) {
    if (l.t[i].coeff == INT64_MIN) return false;
    g = imap_gcd(g, l.t[i].coeff);
  }
  bool neg = l.t[0].coeff < 0;
  if (g > 1 || neg) {
    int64_t k = neg ? -g : g;
    if (k == INT64_MIN || g == 0) return false;
    imap_term *t = imap_alloc(c, (size_t)l.n, sizeof *t);
    if (!t) return false;
    for (int i = 0; i < l.n; i++) t[i] = (imap_term){l.t[i].coeff / k, l.t[i].atom};
    const imap_expr *n = imap_sum(c, t, l.n, 0);
    if (!n) return false;
    int64_t nlo, nhi;
    if (k > 0) {
      nlo = lo == INT64_MIN ? INT64_MIN : imap_ceil_div(lo, k);
      nhi = hi == INT64_MAX ? INT64_MAX : imap_floor_div(hi, k);
    } else {
      nlo = hi == INT64_MAX ? INT64_MIN : imap_ceil_div(hi, k);
      nhi = lo == INT64_MIN ? INT64_MAX : imap_floor_div(lo, k);
    }
    *pe = n;
    *plo = nlo;
    *phi = nhi;
    return true;
  }
  /* A*g + B where the bounds on A*g do not depend on B's value */
  int64_t cand[16];
  int nc = 0;
  for (int i = 0; i < l.n && nc < 16; i++) {
    int64_t a = l.t[i].coeff < 0 ? -l.t[i].coeff : l.t[i].coeff;
    if (a <= 1 || a == INT64_MIN) continue;
    bool dup = false;
    for (int j = 0; j < nc; j++) dup |= cand[j] == a;
    if (!dup) cand[nc++] = a;
  }
  if (nc > 1) qsort(cand, (size_t)nc, sizeof *cand, cmp_desc);
  bool *sel = imap_alloc(c, (size_t)l.n, sizeof *sel);
  if (!sel) return false;
  for (int k = 0; k < nc; k++) {
    int64_t h = cand[k];
    int na = 0;
    for (int i = 0; i < l.n; i++) na += (sel[i] = l.t[i].coeff % h == 0);
    if (na == 0 || na == l.n) continue;
    const imap_expr *B = build_sel(c, &l, sel, false, 1, 0);
    if (!B) return false;
    imap_interval rb = imap_range(S->m, B, false);
    if (rb.lo > rb.hi || rb.lo == INT64_MIN || rb.hi == INT64_MAX) continue;
    if (lo == INT64_MIN || hi == INT64_MAX) continue;
    int64_t l1 = imap_ceil_div(imap_sat_add(lo, -rb.hi), h), l2 = imap_ceil_div(imap_sat_add(lo, -rb.lo), h);
    int64_t u1 = imap_floor_div(imap_sat_add(hi, -rb.lo), h), u2 = imap_floor_div(imap_sat_add(hi, -rb.hi), h);
    if (l1 != l2 || u1 != u2) continue;
    const imap_expr *A = build_sel(c, &l, sel, true, h, 0);
    if (!A) return false;
    *pe = A;
    *plo = l1;
    *phi = u1;
    return true;
  }
  return false;
}

/* One pass over the constraints of r (simplify, rewrite, drop, re-add). */
static int pass_constraints(imap_ctx *c, imap_map *r) {
  int n = r->ncons;
  if (n == 0) return HLO_OK;
  imap_constraint *old = imap_alloc(c, (size_t)n, sizeof *old);
  if (!old) return HLO_ERR;
  memcpy(old, r->cons, (size_t)n * sizeof *old);
  r->ncons = 0;
  simp S = {c, r, false};
  for (int i = 0; i < n && r->state == IMAP_DEFINED; i++) {
    const imap_expr *e = imap_simplify_expr(c, r, old[i].e, false);
    if (!e) return HLO_ERR;
    int64_t lo = old[i].iv.lo, hi = old[i].iv.hi;
    for (int it = 0; it < 16 && lo <= hi; it++) {
      const imap_expr *pe = e;
      if (!rewrite_constraint(&S, &e, &lo, &hi)) {
        if (c->failed) return HLO_ERR;
        e = pe;
        break;
      }
      if (!e) return HLO_ERR;
      e = imap_simplify_expr(c, r, e, false);
      if (!e) return HLO_ERR;
    }
    imap_interval rg = imap_range(r, e, false);
    if (lo <= hi && rg.lo <= rg.hi && rg.lo >= lo && rg.hi <= hi) continue; /* always true */
    if (lo > hi) {
      imap_map_set_empty(c, r);
      break;
    }
    if (imap_map_add_constraint(c, r, e, lo, hi)) return HLO_ERR;
  }
  /* XLA's MergeModConstraints: `x mod a in [q, q]` and `x mod b in [q, q]`
     become `x mod lcm(a, b) in [q, q]` */
  for (int i = 0; i < r->ncons && r->state == IMAP_DEFINED; i++) {
    imap_constraint *ci = &r->cons[i];
    if (ci->e->kind != IMAP_MOD || ci->iv.lo != ci->iv.hi) continue;
    for (int j = i + 1; j < r->ncons; j++) {
      imap_constraint *cj = &r->cons[j];
      if (cj->e->kind != IMAP_MOD || cj->e->arg != ci->e->arg || cj->iv.lo != ci->iv.lo || cj->iv.hi != ci->iv.hi)
        continue;
      int64_t a = ci->e->v, b = cj->e->v, l;
      if (__builtin_mul_overflow(a / imap_gcd(a, b), b, &l)) continue;
      const imap_expr *m = imap_mod(c, ci->e->arg, l);
      if (!m) return HLO_ERR;
      ci->e = m;
      memmove(cj, cj + 1, (size_t)(r->ncons - j - 1) * sizeof *cj);
      r->ncons--;
      j = i;
    }
  }
  /* `v mod k in [q, q]` on a bare variable: round its bounds inward */
  for (int i = 0; i < r->ncons && r->state == IMAP_DEFINED; i++) {
    const imap_expr *e = r->cons[i].e;
    if (e->kind != IMAP_MOD || !imap_is_var(e->arg) || r->cons[i].iv.lo != r->cons[i].iv.hi) continue;
    int64_t q = r->cons[i].iv.lo, k = e->v;
    if (q < 0 || q >= k) continue;
    imap_interval *b = imap_map_var_ptr(r, e->arg->kind, (int)e->arg->v);
    if (!b || b->lo == INT64_MIN || b->hi == INT64_MAX) continue;
    int64_t lo = imap_sat_add(b->lo, imap_floor_mod(q - imap_floor_mod(b->lo, k), k));
    int64_t hi = imap_sat_add(b->hi, -imap_floor_mod(imap_floor_mod(b->hi, k) - q, k));
    b->lo = lo;
    b->hi = hi;
    if (lo > hi) imap_map_set_empty(c, r);
  }
  return HLO_OK;
}

imap_map *imap_simplify(imap_ctx *c, const imap_map *m) {
  imap_map *r = imap_map_copy(c, m);
  if (!r || r->state != IMAP_DEFINED) return r;
  r->as_built = false; /* a simplified map prints its sums sorted */
  r->written = NULL;    /* and not as its text wrote them */
  if (imap_domain_empty(r)) {
    imap_map_set_empty(c, r);
    return r;
  }
  for (int it = 0; it < 32; it++) {
    imap_map *before = imap_map_copy(c, r);
    if (!before) return NULL;
    if (pass_constraints(c, r)) return NULL;
    if (r->state != IMAP_DEFINED || imap_map_same(before, r)) break;
  }
  if (r->state == IMAP_DEFINED && imap_domain_empty(r)) imap_map_set_empty(c, r);
  if (r->state != IMAP_DEFINED) return r;
  for (int i = 0; i < r->nresults; i++)
    if (!(r->results[i] = imap_simplify_expr(c, r, r->results[i], true))) return NULL;
  return r;
}
