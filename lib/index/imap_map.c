/* imap_map.c - indexing maps as values: construction, constraints,
 * variable names, interval range analysis, composition, removal of unused
 * symbols, structural equality and deduplicated map sets. */
#include <string.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"

int64_t imap_sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return a > 0 ? INT64_MAX : INT64_MIN;
}

int64_t imap_sat_mul(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

bool imap_is_var(const imap_expr *e) {
  return e->kind == IMAP_DIM || e->kind == IMAP_SYM || e->kind == IMAP_RT;
}

imap_map *imap_map_new(imap_ctx *c, int ndims, int nsyms, int nrts, int nresults) {
  if (ndims < 0 || nsyms < 0 || nrts < 0 || nresults < 0) return NULL;
  imap_map *m = imap_alloc(c, 1, sizeof *m);
  if (!m) return NULL;
  m->ndims = ndims;
  m->nsyms = nsyms;
  m->nrts = nrts;
  m->nresults = nresults;
  m->dims = imap_alloc(c, (size_t)ndims, sizeof *m->dims);
  m->syms = imap_alloc(c, (size_t)nsyms, sizeof *m->syms);
  m->rts = imap_alloc(c, (size_t)nrts, sizeof *m->rts);
  m->results = imap_alloc(c, (size_t)nresults, sizeof *m->results);
  if (!m->dims || !m->syms || !m->rts || !m->results) return NULL;
  for (int i = 0; i < ndims; i++) m->dims[i] = (imap_interval){0, -1};
  for (int i = 0; i < nsyms; i++) m->syms[i] = (imap_interval){0, -1};
  for (int i = 0; i < nrts; i++) m->rts[i] = (imap_interval){0, -1};
  return m;
}

imap_map *imap_map_undefined(imap_ctx *c) {
  imap_map *m = imap_map_new(c, 0, 0, 0, 0);
  if (m) m->state = IMAP_UNDEFINED;
  return m;
}

imap_map *imap_map_identity(imap_ctx *c, int rank, const int64_t *dims) {
  imap_map *m = imap_map_new(c, rank, 0, 0, rank);
  if (!m) return NULL;
  for (int i = 0; i < rank; i++) {
    m->dims[i] = (imap_interval){0, dims[i] - 1};
    if (!(m->results[i] = imap_dim(c, i))) return NULL;
  }
  return m;
}

imap_map *imap_map_copy(imap_ctx *c, const imap_map *s) {
  imap_map *m = imap_map_new(c, s->ndims, s->nsyms, s->nrts, s->nresults);
  if (!m) return NULL;
  m->state = s->state;
  memcpy(m->dims, s->dims, (size_t)s->ndims * sizeof *m->dims);
  memcpy(m->syms, s->syms, (size_t)s->nsyms * sizeof *m->syms);
  memcpy(m->rts, s->rts, (size_t)s->nrts * sizeof *m->rts);
  memcpy(m->results, s->results, (size_t)s->nresults * sizeof *m->results);
  m->rtvars = s->rtvars;
  m->replica = s->replica;
  m->as_built = s->as_built;
  m->names = s->names;
  m->written = s->written;
  if (s->ncons) {
    m->cons = imap_alloc(c, (size_t)s->ncons, sizeof *m->cons);
    if (!m->cons) return NULL;
    memcpy(m->cons, s->cons, (size_t)s->ncons * sizeof *m->cons);
    m->ncons = m->capcons = s->ncons;
  }
  return m;
}

imap_interval *imap_map_var_ptr(imap_map *m, imap_kind k, int i) {
  if (i < 0) return NULL;
  if (k == IMAP_DIM) return i < m->ndims ? &m->dims[i] : NULL;
  if (k == IMAP_SYM) return i < m->nsyms ? &m->syms[i] : NULL;
  if (k == IMAP_RT) return i < m->nrts ? &m->rts[i] : NULL;
  return NULL;
}

/* Position of variable (k, i) in names[], -1 if out of range. */
static int name_slot(const imap_map *m, imap_kind k, int i) {
  int n = k == IMAP_DIM ? m->ndims : k == IMAP_SYM ? m->nsyms : k == IMAP_RT ? m->nrts : 0;
  if (i < 0 || i >= n) return -1;
  return k == IMAP_DIM ? i : k == IMAP_SYM ? m->ndims + i : m->ndims + m->nsyms + i;
}

const char *imap_map_var_name(const imap_map *m, imap_kind k, int i) {
  int s = m->names ? name_slot(m, k, i) : -1;
  return s < 0 ? NULL : m->names[s];
}

int imap_map_set_name(imap_ctx *c, imap_map *m, imap_kind k, int i, const char *name) {
  int slot = name_slot(m, k, i);
  if (!name || slot < 0) return HLO_OK;
  if (!m->names) {
    m->names = imap_alloc(c, (size_t)m->ndims + (size_t)m->nsyms + (size_t)m->nrts, sizeof *m->names);
    if (!m->names) return HLO_ERR;
  }
  m->names[slot] = name;
  return HLO_OK;
}

int imap_map_carry_name(imap_ctx *c, imap_map *dst, imap_kind dk, int di, const imap_map *src, imap_kind sk,
                        int si) {
  return imap_map_set_name(c, dst, dk, di, imap_map_var_name(src, sk, si));
}

bool imap_domain_empty(const imap_map *m) {
  for (int i = 0; i < m->ndims; i++)
    if (m->dims[i].lo > m->dims[i].hi) return true;
  for (int i = 0; i < m->nsyms; i++)
    if (m->syms[i].lo > m->syms[i].hi) return true;
  for (int i = 0; i < m->nrts; i++)
    if (m->rts[i].lo > m->rts[i].hi) return true;
  return false;
}

imap_interval imap_map_var_bounds(const imap_map *m, imap_kind k, int i) {
  imap_interval *p = imap_map_var_ptr((imap_map *)m, k, i);
  return p ? *p : (imap_interval){INT64_MIN, INT64_MAX};
}

void imap_map_set_empty(imap_ctx *c, imap_map *m) {
  m->state = IMAP_KNOWN_EMPTY;
  for (int i = 0; i < m->ndims; i++) m->dims[i] = (imap_interval){0, -1};
  for (int i = 0; i < m->nsyms; i++) m->syms[i] = (imap_interval){0, -1};
  for (int i = 0; i < m->nrts; i++) m->rts[i] = (imap_interval){0, -1};
  const imap_expr *zero = imap_const(c, 0);
  for (int i = 0; i < m->nresults; i++) m->results[i] = zero;
  m->ncons = 0;
  m->rtvars = NULL;
  m->replica = NULL;
}

int imap_map_add_constraint(imap_ctx *c, imap_map *m, const imap_expr *e, int64_t lo, int64_t hi) {
  if (!e) return HLO_ERR;
  if (m->state != IMAP_DEFINED) return HLO_OK;
  if (lo > hi) {
    imap_map_set_empty(c, m);
    return HLO_OK;
  }
  if (e->kind == IMAP_CONST) {
    if (e->v < lo || e->v > hi) imap_map_set_empty(c, m);
    return HLO_OK;
  }
  if (imap_is_var(e)) {
    imap_interval *b = imap_map_var_ptr(m, e->kind, (int)e->v);
    if (!b) return HLO_ERR;
    if (lo > b->lo) b->lo = lo;
    if (hi < b->hi) b->hi = hi;
    if (b->lo > b->hi) imap_map_set_empty(c, m);
    return HLO_OK;
  }
  for (int i = 0; i < m->ncons; i++)
    if (m->cons[i].e == e) {
      if (lo > m->cons[i].iv.lo) m->cons[i].iv.lo = lo;
      if (hi < m->cons[i].iv.hi) m->cons[i].iv.hi = hi;
      if (m->cons[i].iv.lo > m->cons[i].iv.hi) imap_map_set_empty(c, m);
      return HLO_OK;
    }
  if (m->ncons == m->capcons) {
    int ncap = m->capcons ? m->capcons * 2 : 4;
    imap_constraint *n = imap_alloc(c, (size_t)ncap, sizeof *n);
    if (!n) return HLO_ERR;
    if (m->ncons) memcpy(n, m->cons, (size_t)m->ncons * sizeof *n);
    m->cons = n;
    m->capcons = ncap;
  }
  m->cons[m->ncons++] = (imap_constraint){e, {lo, hi}};
  return HLO_OK;
}

/* ---- range analysis ---------------------------------------------------------- */
static imap_interval mul_iv(imap_interval a, int64_t k) {
  int64_t x = imap_sat_mul(a.lo, k), y = imap_sat_mul(a.hi, k);
  return x <= y ? (imap_interval){x, y} : (imap_interval){y, x};
}

imap_interval imap_range(const imap_map *m, const imap_expr *e, bool use_constraints) {
  imap_interval r = {INT64_MIN, INT64_MAX};
  switch (e->kind) {
  case IMAP_CONST:
    return (imap_interval){e->v, e->v};
  case IMAP_DIM:
  case IMAP_SYM:
  case IMAP_RT:
    return imap_map_var_bounds(m, e->kind, (int)e->v);
  case IMAP_FLOORDIV: {
    imap_interval a = imap_range(m, e->arg, use_constraints);
    r = (imap_interval){imap_floor_div(a.lo, e->v), imap_floor_div(a.hi, e->v)};
    break;
  }
  case IMAP_MOD: {
    imap_interval a = imap_range(m, e->arg, use_constraints);
    if (a.lo >= 0 && a.hi < e->v && a.lo <= a.hi) r = a;
    else r = (imap_interval){0, e->v - 1};
    break;
  }
  case IMAP_BINOP: {
    imap_interval a = imap_range(m, e->arg, use_constraints), b = imap_range(m, e->arg2, use_constraints);
    switch ((imap_binop)e->v) {
    case IMAP_OP_MUL: { /* the extremes are at the corners */
      int64_t p[4] = {imap_sat_mul(a.lo, b.lo), imap_sat_mul(a.lo, b.hi), imap_sat_mul(a.hi, b.lo),
                      imap_sat_mul(a.hi, b.hi)};
      r = (imap_interval){p[0], p[0]};
      for (int i = 1; i < 4; i++) {
        if (p[i] < r.lo) r.lo = p[i];
        if (p[i] > r.hi) r.hi = p[i];
      }
      break;
    }
    case IMAP_OP_MIN: r = (imap_interval){a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi}; break;
    case IMAP_OP_MAX: r = (imap_interval){a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}; break;
    case IMAP_OP_MOD: /* floor mod takes the divisor's sign: |r| < |b| */
      if (b.lo > 0) r = (imap_interval){0, b.hi - 1};
      break;
    case IMAP_OP_FLOORDIV:
    case IMAP_OP_CEILDIV: /* a positive divisor: between a / b.hi and a / 1 */
      if (b.lo > 0 && a.lo >= 0) r = (imap_interval){0, a.hi};
      break;
    }
    break;
  }
  case IMAP_SUM: {
    r = (imap_interval){e->v, e->v};
    for (int i = 0; i < e->nterms; i++) {
      imap_interval t = mul_iv(imap_range(m, e->terms[i].atom, use_constraints), e->terms[i].coeff);
      r.lo = imap_sat_add(r.lo, t.lo);
      r.hi = imap_sat_add(r.hi, t.hi);
    }
    break;
  }
  }
  if (use_constraints)
    for (int i = 0; i < m->ncons; i++)
      if (m->cons[i].e == e) {
        if (m->cons[i].iv.lo > r.lo) r.lo = m->cons[i].iv.lo;
        if (m->cons[i].iv.hi < r.hi) r.hi = m->cons[i].iv.hi;
      }
  return r;
}

/* ---- composition ---------------------------------------------------------------- */
imap_map *imap_compose(imap_ctx *c, const imap_map *first, const imap_map *second) {
  if (first->state == IMAP_UNDEFINED || second->state == IMAP_UNDEFINED ||
      first->nresults != second->ndims)
    return imap_map_undefined(c);
  int ns, nr;
  if (__builtin_add_overflow(first->nsyms, second->nsyms, &ns) ||
      __builtin_add_overflow(first->nrts, second->nrts, &nr))
    return NULL;
  imap_map *m = imap_map_new(c, first->ndims, ns, nr, second->nresults);
  if (!m) return NULL;
  if (first->state == IMAP_KNOWN_EMPTY || second->state == IMAP_KNOWN_EMPTY) {
    imap_map_set_empty(c, m);
    return m;
  }
  memcpy(m->dims, first->dims, (size_t)first->ndims * sizeof *m->dims);
  /* names follow the variables: first's dims, [second's | first's]
     symbols and runtime variables (XLA's ComposeIndexingMaps) */
  int nerr = 0;
  for (int i = 0; i < first->ndims; i++) nerr |= imap_map_carry_name(c, m, IMAP_DIM, i, first, IMAP_DIM, i);
  for (int i = 0; i < second->nsyms; i++) nerr |= imap_map_carry_name(c, m, IMAP_SYM, i, second, IMAP_SYM, i);
  for (int i = 0; i < first->nsyms; i++)
    nerr |= imap_map_carry_name(c, m, IMAP_SYM, second->nsyms + i, first, IMAP_SYM, i);
  for (int i = 0; i < second->nrts; i++) nerr |= imap_map_carry_name(c, m, IMAP_RT, i, second, IMAP_RT, i);
  for (int i = 0; i < first->nrts; i++)
    nerr |= imap_map_carry_name(c, m, IMAP_RT, second->nrts + i, first, IMAP_RT, i);
  if (nerr) return NULL;
  memcpy(m->syms, second->syms, (size_t)second->nsyms * sizeof *m->syms);
  memcpy(m->syms + second->nsyms, first->syms, (size_t)first->nsyms * sizeof *m->syms);
  memcpy(m->rts, second->rts, (size_t)second->nrts * sizeof *m->rts);
  memcpy(m->rts + second->nrts, first->rts, (size_t)first->nrts * sizeof *m->rts);
  /* renumber first's symbols after second's */
  const imap_expr **fs = imap_alloc(c, (size_t)first->nsyms, sizeof *fs);
  const imap_expr **fr = imap_alloc(c, (size_t)first->nrts, sizeof *fr);
  const imap_expr **fres = imap_alloc(c, (size_t)first->nresults, sizeof *fres);
  if (!fs || !fr || !fres) return NULL;
  for (int i = 0; i < first->nsyms; i++)
    if (!(fs[i] = imap_sym(c, second->nsyms + i))) return NULL;
  for (int i = 0; i < first->nrts; i++)
    if (!(fr[i] = imap_rt(c, second->nrts + i))) return NULL;
  for (int i = 0; i < first->nresults; i++)
    if (!(fres[i] = imap_subst(c, first->results[i], NULL, 0, fs, first->nsyms, fr, first->nrts)))
      return NULL;
  for (int i = 0; i < second->nresults; i++)
    if (!(m->results[i] = imap_subst(c, second->results[i], fres, first->nresults, NULL, 0, NULL, 0)))
      return NULL;
  for (int i = 0; i < second->ncons; i++) {
    const imap_expr *e = imap_subst(c, second->cons[i].e, fres, first->nresults, NULL, 0, NULL, 0);
    if (imap_map_add_constraint(c, m, e, second->cons[i].iv.lo, second->cons[i].iv.hi)) return NULL;
  }
  for (int i = 0; i < first->ncons; i++) {
    const imap_expr *e = imap_subst(c, first->cons[i].e, NULL, 0, fs, first->nsyms, fr, first->nrts);
    if (imap_map_add_constraint(c, m, e, first->cons[i].iv.lo, first->cons[i].iv.hi)) return NULL;
  }
  for (int i = 0; i < first->nresults; i++)
    if (imap_map_add_constraint(c, m, fres[i], second->dims[i].lo, second->dims[i].hi)) return NULL;
  if (m->state == IMAP_DEFINED && (first->rtvars || second->rtvars)) {
    /* second's variables now read through first: their maps start from
       first's dims too; first's keep theirs */
    imap_rtvar *rv = imap_alloc(c, (size_t)nr, sizeof *rv);
    if (!rv) return NULL;
    for (int i = 0; i < second->nrts; i++) {
      if (!second->rtvars) continue;
      rv[i].hlo = second->rtvars[i].hlo;
      /* composed, not simplified: XLA's ComposeOperandIndexing keeps the
         constraints composition adds (`d0 + rt0 in [0, 49]`) */
      imap_map *vm = imap_compose(c, first, second->rtvars[i].map);
      if (!vm) return NULL;
      rv[i].map = vm;
    }
    if (first->rtvars) memcpy(rv + second->nrts, first->rtvars, (size_t)first->nrts * sizeof *rv);
    m->rtvars = rv;
  }
  if (m->state == IMAP_DEFINED && (first->replica || second->replica)) {
    /* XLA's ComposeOperandIndexing: second's replica map reads through
       first (not simplified either); two collectives in a chain are not
       supported (undefined) */
    if (first->replica && second->replica) return imap_map_undefined(c);
    imap_map *rm = (imap_map *)first->replica;
    if (second->replica && !(rm = imap_compose(c, first, second->replica))) return NULL;
    m->replica = rm;
  }
  return m;
}

/* ---- unused symbols --------------------------------------------------------------- */
static bool uses_dim(const imap_expr *e, int ndims) {
  for (int i = 0; i < ndims; i++)
    if (imap_expr_uses(e, IMAP_DIM, i)) return true;
  return false;
}

imap_map *imap_remove_unused_symbols(imap_ctx *c, const imap_map *m) {
  if (m->state != IMAP_DEFINED) return imap_map_copy(c, m);
  int nv = m->nsyms + m->nrts;
  bool *used = imap_alloc(c, (size_t)nv, sizeof *used);
  bool *keepc = imap_alloc(c, (size_t)m->ncons, sizeof *keepc);
  if (!used || !keepc) return NULL;
  for (int v = 0; v < nv; v++) {
    imap_kind k = v < m->nsyms ? IMAP_SYM : IMAP_RT;
    int i = v < m->nsyms ? v : v - m->nsyms;
    for (int r = 0; r < m->nresults && !used[v]; r++) used[v] = imap_expr_uses(m->results[r], k, i);
  }
  /* a constraint that touches a dim or a used symbol keeps all its symbols */
  for (bool changed = true; changed;) {
    changed = false;
    for (int j = 0; j < m->ncons; j++) {
      if (keepc[j]) continue;
      bool keep = uses_dim(m->cons[j].e, m->ndims);
      for (int v = 0; v < nv && !keep; v++) {
        imap_kind k = v < m->nsyms ? IMAP_SYM : IMAP_RT;
        int i = v < m->nsyms ? v : v - m->nsyms;
        keep = used[v] && imap_expr_uses(m->cons[j].e, k, i);
      }
      if (!keep) continue;
      keepc[j] = changed = true;
      for (int v = 0; v < nv; v++) {
        imap_kind k = v < m->nsyms ? IMAP_SYM : IMAP_RT;
        int i = v < m->nsyms ? v : v - m->nsyms;
        if (imap_expr_uses(m->cons[j].e, k, i)) used[v] = true;
      }
    }
  }
  int ns = 0, nr = 0;
  for (int v = 0; v < nv; v++)
    if (used[v]) *(v < m->nsyms ? &ns : &nr) += 1;
  imap_map *r = imap_map_new(c, m->ndims, ns, nr, m->nresults);
  const imap_expr **sm = imap_alloc(c, (size_t)m->nsyms, sizeof *sm);
  const imap_expr **rm = imap_alloc(c, (size_t)m->nrts, sizeof *rm);
  if (!r || !sm || !rm) return NULL;
  memcpy(r->dims, m->dims, (size_t)m->ndims * sizeof *r->dims);
  for (int i = 0; i < m->ndims; i++)
    if (imap_map_carry_name(c, r, IMAP_DIM, i, m, IMAP_DIM, i)) return NULL;
  ns = nr = 0;
  for (int v = 0; v < m->nsyms; v++)
    if (used[v]) {
      r->syms[ns] = m->syms[v];
      if (imap_map_carry_name(c, r, IMAP_SYM, ns, m, IMAP_SYM, v)) return NULL;
      if (!(sm[v] = imap_sym(c, ns++))) return NULL;
    }
  imap_rtvar *rv = m->rtvars && r->nrts ? imap_alloc(c, (size_t)r->nrts, sizeof *rv) : NULL;
  if (m->rtvars && r->nrts && !rv) return NULL;
  r->rtvars = rv;
  r->replica = m->replica; /* a map of the dims, which stay */
  for (int v = 0; v < m->nrts; v++)
    if (used[m->nsyms + v]) {
      if (rv) rv[nr] = m->rtvars[v];
      r->rts[nr] = m->rts[v];
      if (imap_map_carry_name(c, r, IMAP_RT, nr, m, IMAP_RT, v)) return NULL;
      if (!(rm[v] = imap_rt(c, nr++))) return NULL;
    }
  for (int i = 0; i < m->nresults; i++)
    if (!(r->results[i] = imap_subst(c, m->results[i], NULL, 0, sm, m->nsyms, rm, m->nrts)))
      return NULL;
  for (int j = 0; j < m->ncons; j++)
    if (keepc[j]) {
      const imap_expr *e = imap_subst(c, m->cons[j].e, NULL, 0, sm, m->nsyms, rm, m->nrts);
      if (imap_map_add_constraint(c, r, e, m->cons[j].iv.lo, m->cons[j].iv.hi)) return NULL;
    }
  return r;
}

/* ---- equality and sets ---------------------------------------------------------------- */
static bool iv_eq(const imap_interval *a, const imap_interval *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].lo != b[i].lo || a[i].hi != b[i].hi) return false;
  return true;
}

bool imap_map_same(const imap_map *a, const imap_map *b) {
  if (a->state != b->state) return false;
  if (a->ndims != b->ndims || a->nsyms != b->nsyms || a->nrts != b->nrts ||
      a->nresults != b->nresults || a->ncons != b->ncons)
    return false;
  if (a->state == IMAP_UNDEFINED) return true;
  if (!iv_eq(a->dims, b->dims, a->ndims) || !iv_eq(a->syms, b->syms, a->nsyms) ||
      !iv_eq(a->rts, b->rts, a->nrts))
    return false;
  for (int i = 0; i < a->nresults; i++)
    if (a->results[i] != b->results[i]) return false;
  if (!a->rtvars != !b->rtvars || !a->replica != !b->replica) return false;
  if (a->replica && !imap_map_same(a->replica, b->replica)) return false;
  for (int i = 0; a->rtvars && i < a->nrts; i++)
    if (a->rtvars[i].hlo != b->rtvars[i].hlo || !imap_map_same(a->rtvars[i].map, b->rtvars[i].map))
      return false;
  for (int i = 0; i < a->ncons; i++) {
    bool found = false;
    for (int j = 0; j < b->ncons && !found; j++)
      found = a->cons[i].e == b->cons[j].e && iv_eq(&a->cons[i].iv, &b->cons[j].iv, 1);
    if (!found) return false;
  }
  return true;
}

int imap_set_add(imap_ctx *c, imap_set *s, imap_map *m) {
  if (!m) return HLO_ERR;
  for (int i = 0; i < s->n; i++)
    if (imap_map_same(s->v[i], m)) return HLO_OK;
  if (s->n == s->cap) {
    int ncap = s->cap ? s->cap * 2 : 2;
    imap_map **nv = imap_alloc(c, (size_t)ncap, sizeof *nv);
    if (!nv) return HLO_ERR;
    if (s->n) memcpy(nv, s->v, (size_t)s->n * sizeof *nv);
    s->v = nv;
    s->cap = ncap;
  }
  s->v[s->n++] = m;
  return HLO_OK;
}

imap_map *imap_remove_unused_vars(imap_ctx *c, const imap_map *m) {
  imap_map *s = imap_remove_unused_symbols(c, m);
  if (!s || s->state != IMAP_DEFINED) return s;
  bool *used = imap_alloc(c, (size_t)s->ndims, sizeof *used);
  const imap_expr **dm = imap_alloc(c, (size_t)s->ndims, sizeof *dm);
  if (!used || !dm) return NULL;
  int nd = 0;
  for (int i = 0; i < s->ndims; i++) {
    for (int r = 0; r < s->nresults && !used[i]; r++) used[i] = imap_expr_uses(s->results[r], IMAP_DIM, i);
    for (int j = 0; j < s->ncons && !used[i]; j++) used[i] = imap_expr_uses(s->cons[j].e, IMAP_DIM, i);
    if (used[i]) nd++;
  }
  imap_map *r = imap_map_new(c, nd, s->nsyms, s->nrts, s->nresults);
  if (!r) return NULL;
  nd = 0;
  for (int i = 0; i < s->ndims; i++)
    if (used[i]) {
      r->dims[nd] = s->dims[i];
      if (imap_map_carry_name(c, r, IMAP_DIM, nd, s, IMAP_DIM, i)) return NULL;
      if (!(dm[i] = imap_dim(c, nd++))) return NULL;
    }
  memcpy(r->syms, s->syms, (size_t)s->nsyms * sizeof *r->syms);
  memcpy(r->rts, s->rts, (size_t)s->nrts * sizeof *r->rts);
  for (int i = 0; i < s->nsyms; i++)
    if (imap_map_carry_name(c, r, IMAP_SYM, i, s, IMAP_SYM, i)) return NULL;
  for (int i = 0; i < s->nrts; i++)
    if (imap_map_carry_name(c, r, IMAP_RT, i, s, IMAP_RT, i)) return NULL;
  for (int i = 0; i < s->nresults; i++)
    if (!(r->results[i] = imap_subst(c, s->results[i], dm, s->ndims, NULL, 0, NULL, 0))) return NULL;
  for (int j = 0; j < s->ncons; j++)
    if (imap_map_add_constraint(c, r, imap_subst(c, s->cons[j].e, dm, s->ndims, NULL, 0, NULL, 0),
                                s->cons[j].iv.lo, s->cons[j].iv.hi))
      return NULL;
  return r;
}
