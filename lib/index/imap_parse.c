/* imap_parse.c - reads indexing maps back from text: the seed's multi-line
 * format and XLA's one-line format (whitespace is insignificant), plus the
 * UNDEFINED and KNOWN EMPTY forms; keeps the variables' names.
 *   map    -> '(' ids ')' ['[' ids ']'] ['{' ids '}'] '->' '(' exprs ')'
 *             [',' 'domain' ':' entry (',' entry)*]
 *   entry  -> expr 'in' '[' int ',' int ']'
 *   expr   -> term (('+' | '-') term)*
 *   term   -> unary (('*' | 'floordiv' | '/' | 'ceildiv' | 'mod') unary)*
 *             (also XLA's floorDiv, ceilDiv; an operand that is not a
 *             constant gives a non-affine BINOP, as XLA's SymbolicExpr)
 *   unary  -> '-' unary | int | id | ('min' | 'max') '(' expr ',' expr ')'
 *             | '(' expr ')' */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"

enum { MAXVARS = 4096 };

typedef struct pvar {
  const char *name;
  size_t len;
  imap_kind kind;
  int idx;
  bool bounded;
} pvar;

typedef struct parser {
  imap_ctx *c;
  const char *s;
  size_t len, pos;
  char *err;
  size_t errn;
  bool failed;
  pvar *vars;
  int nvars;
  int depth; /* nesting of parentheses and unary minus */
  const imap_syn *t; /* the written tree of what the last parse_* returned */
  const imap_expr **cw_e; /* constraints with their written trees */
  const imap_syn **cw_t;
  int ncw;
} parser;

static void perr(parser *p, const char *fmt, ...) {
  if (p->failed) return;
  p->failed = true;
  if (!p->err || !p->errn) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err, p->errn, fmt, ap);
  va_end(ap);
}

static void skip_ws(parser *p) {
  while (p->pos < p->len && isspace((unsigned char)p->s[p->pos])) p->pos++;
}

static bool peek_ch(parser *p, char ch) {
  skip_ws(p);
  return p->pos < p->len && p->s[p->pos] == ch;
}

static bool accept(parser *p, const char *tok) {
  skip_ws(p);
  size_t n = strlen(tok);
  if (p->len - p->pos < n || memcmp(p->s + p->pos, tok, n) != 0) return false;
  /* a keyword must not run into an identifier */
  if (isalpha((unsigned char)tok[0]) && p->pos + n < p->len &&
      (isalnum((unsigned char)p->s[p->pos + n]) || p->s[p->pos + n] == '_'))
    return false;
  p->pos += n;
  return true;
}

static bool expect(parser *p, const char *tok) {
  if (accept(p, tok)) return true;
  perr(p, "expected '%s'", tok);
  return false;
}

static bool ident(parser *p, const char **name, size_t *len) {
  skip_ws(p);
  size_t b = p->pos;
  if (b >= p->len || !(isalpha((unsigned char)p->s[b]) || p->s[b] == '_')) return false;
  while (p->pos < p->len && (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')) p->pos++;
  *name = p->s + b;
  *len = p->pos - b;
  return true;
}

static bool integer(parser *p, int64_t *out) {
  skip_ws(p);
  size_t b = p->pos;
  bool neg = false;
  if (b < p->len && p->s[b] == '-') {
    neg = true;
    p->pos++;
    skip_ws(p);
  }
  if (p->pos >= p->len || !isdigit((unsigned char)p->s[p->pos])) {
    p->pos = b;
    return false;
  }
  uint64_t v = 0;
  while (p->pos < p->len && isdigit((unsigned char)p->s[p->pos])) {
    unsigned dgt = (unsigned)(p->s[p->pos] - '0');
    if (v > (UINT64_MAX - dgt) / 10) {
      perr(p, "integer out of range");
      return false;
    }
    v = v * 10 + dgt;
    p->pos++;
  }
  if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) {
    perr(p, "integer out of range");
    return false;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

static const imap_expr *parse_expr(parser *p);
static const imap_expr *parse_minmax(parser *p, imap_binop op);

static const imap_expr *lookup(parser *p, const char *name, size_t len) {
  for (int i = 0; i < p->nvars; i++)
    if (p->vars[i].len == len && memcmp(p->vars[i].name, name, len) == 0) {
      p->t = imap_syn_var(p->c, p->vars[i].kind, p->vars[i].idx);
      return imap_var(p->c, p->vars[i].kind, p->vars[i].idx);
    }
  perr(p, "unknown variable '%.*s'", (int)(len > 64 ? 64 : len), name);
  return NULL;
}

static const imap_expr *parse_unary(parser *p) {
  if (p->depth > 200) {
    perr(p, "expression nested too deeply");
    return NULL;
  }
  skip_ws(p);
  if (p->pos < p->len && p->s[p->pos] == '-') {
    size_t save = p->pos;
    int64_t v;
    if (integer(p, &v)) {
      p->t = imap_syn_const(p->c, v);
      return imap_const(p->c, v);
    }
    if (p->failed) return NULL;
    p->pos = save + 1;
    p->depth++;
    const imap_expr *e = imap_mul(p->c, parse_unary(p), -1);
    p->depth--;
    p->t = imap_syn_neg(p->c, p->t);
    return e;
  }
  if (accept(p, "(")) {
    p->depth++;
    const imap_expr *e = parse_expr(p);
    p->depth--;
    if (!e || !expect(p, ")")) return NULL;
    return e;
  }
  int64_t v;
  if (integer(p, &v)) {
    p->t = imap_syn_const(p->c, v);
    return imap_const(p->c, v);
  }
  if (p->failed) return NULL;
  const char *name;
  size_t len;
  if (ident(p, &name, &len)) {
    /* `min(` and `max(` are XLA's functions, whatever the variables' names */
    if (len == 3 && (!memcmp(name, "min", 3) || !memcmp(name, "max", 3)) && p->pos < p->len &&
        p->s[p->pos] == '(') {
      p->pos++;
      return parse_minmax(p, name[1] == 'i' ? IMAP_OP_MIN : IMAP_OP_MAX);
    }
    return lookup(p, name, len);
  }
  perr(p, "expected an expression");
  return NULL;
}

/* The written tree's operation for an imap_binop. */
static imap_syn_op syn_of(int op) {
  return op == IMAP_OP_MUL ? SYN_MUL : op == IMAP_OP_FLOORDIV ? SYN_FLOORDIV : op == IMAP_OP_CEILDIV ? SYN_CEILDIV
         : op == IMAP_OP_MOD ? SYN_MOD : op == IMAP_OP_MIN ? SYN_MIN : SYN_MAX;
}

static const imap_expr *parse_term(parser *p) {
  const imap_expr *e = parse_unary(p);
  const imap_syn *tl = p->t;
  while (e) {
    size_t at = p->pos;
    int op = accept(p, "*")                                                    ? IMAP_OP_MUL
             : accept(p, "floordiv") || accept(p, "floorDiv") || accept(p, "/") ? IMAP_OP_FLOORDIV
             : accept(p, "ceildiv") || accept(p, "ceilDiv")                     ? IMAP_OP_CEILDIV
             : accept(p, "mod")                                                 ? IMAP_OP_MOD
                                                                                : -1;
    if (op < 0) break;
    const imap_expr *r = parse_unary(p);
    if (!r) return NULL;
    /* a constant divisor must be usable; a variable one is XLA's
       non-affine SymbolicExpr (`s0 / s1`), as is a product of variables */
    if (r->kind == IMAP_CONST && (op == IMAP_OP_FLOORDIV || op == IMAP_OP_CEILDIV) && r->v == 0) {
      p->pos = at;
      perr(p, "division by zero");
      return NULL;
    }
    if (r->kind == IMAP_CONST && op == IMAP_OP_MOD && r->v <= 0) {
      p->pos = at;
      perr(p, "mod needs a positive constant");
      return NULL;
    }
    e = imap_binop_expr(p->c, (imap_binop)op, e, r);
    tl = imap_syn_bin(p->c, syn_of(op), tl, p->t);
  }
  p->t = tl;
  return e;
}

/* min(a, b) / max(a, b) after the name. */
static const imap_expr *parse_minmax(parser *p, imap_binop op) {
  p->depth++;
  const imap_expr *a = parse_expr(p);
  const imap_syn *ta = p->t;
  const imap_expr *b = a && expect(p, ",") ? parse_expr(p) : NULL;
  p->depth--;
  if (!b || !expect(p, ")")) return NULL;
  p->t = imap_syn_bin(p->c, syn_of(op), ta, p->t);
  return imap_binop_expr(p->c, op, a, b);
}

static const imap_expr *parse_expr(parser *p) {
  const imap_expr *e = parse_term(p);
  const imap_syn *tl = p->t;
  while (e) {
    if (accept(p, "+")) {
      e = imap_add(p->c, e, parse_term(p));
      tl = imap_syn_bin(p->c, SYN_ADD, tl, p->t);
    } else {
      skip_ws(p);
      /* a '-' followed by '>' is the arrow, not a minus */
      if (p->pos + 1 < p->len && p->s[p->pos] == '-' && p->s[p->pos + 1] != '>') {
        p->pos++;
        e = imap_sub(p->c, e, parse_term(p));
        tl = imap_syn_bin(p->c, SYN_SUB, tl, p->t);
      } else {
        break;
      }
    }
  }
  p->t = tl;
  if (!e && !p->failed) perr(p, p->c->overflow ? "integer overflow in expression" : "out of memory");
  return e;
}

/* ids -> [id (',' id)*] up to close */
static int parse_ids(parser *p, char close, imap_kind kind) {
  int n = 0;
  if (peek_ch(p, close)) {
    p->pos++;
    return 0;
  }
  for (;;) {
    const char *name;
    size_t len;
    if (!ident(p, &name, &len)) {
      perr(p, "expected a variable name");
      return -1;
    }
    for (int i = 0; i < p->nvars; i++)
      if (p->vars[i].len == len && memcmp(p->vars[i].name, name, len) == 0) {
        perr(p, "variable '%.*s' declared twice", (int)(len > 64 ? 64 : len), name);
        return -1;
      }
    if (p->nvars >= MAXVARS) {
      perr(p, "too many variables");
      return -1;
    }
    p->vars[p->nvars++] = (pvar){name, len, kind, n++, false};
    if (accept(p, ",")) continue;
    char cl[2] = {close, 0};
    if (!expect(p, cl)) return -1;
    return n;
  }
}

/* XLA's ParseIndexingMap keeps a variable's name unless it is the default
   one (d<i>, s<i>, rt<i> by position). */
static int keep_names(parser *p, imap_map *m) {
  for (int i = 0; i < p->nvars; i++) {
    const pvar *v = &p->vars[i];
    char dflt[32];
    snprintf(dflt, sizeof dflt, "%s%d", v->kind == IMAP_DIM ? "d" : v->kind == IMAP_SYM ? "s" : "rt", v->idx);
    if (strlen(dflt) == v->len && memcmp(dflt, v->name, v->len) == 0) continue;
    char *name = imap_alloc(p->c, v->len + 1, 1);
    if (!name) return HLO_ERR;
    memcpy(name, v->name, v->len);
    name[v->len] = 0;
    if (imap_map_set_name(p->c, m, v->kind, v->idx, name)) return HLO_ERR;
  }
  return HLO_OK;
}

/* The results' and constraints' trees as written, for printing the map
   back as XLA does (a tree that failed to allocate is left out). */
static int keep_written(parser *p, imap_map *m, const imap_syn *const *rest) {
  if (m->state != IMAP_DEFINED) return HLO_OK;
  imap_written *w = imap_alloc(p->c, 1, sizeof *w);
  if (!w) return HLO_ERR;
  w->nres = m->nresults;
  w->ncons = p->ncw;
  w->res_e = imap_alloc(p->c, (size_t)m->nresults, sizeof *w->res_e);
  w->res_t = imap_alloc(p->c, (size_t)m->nresults, sizeof *w->res_t);
  w->con_e = imap_alloc(p->c, (size_t)p->ncw, sizeof *w->con_e);
  w->con_t = imap_alloc(p->c, (size_t)p->ncw, sizeof *w->con_t);
  if (!w->res_e || !w->res_t || !w->con_e || !w->con_t) return HLO_ERR;
  for (int i = 0; i < m->nresults; i++) {
    w->res_e[i] = rest[i] ? m->results[i] : NULL;
    w->res_t[i] = rest[i];
  }
  for (int i = 0; i < p->ncw; i++) {
    w->con_e[i] = p->cw_e[i];
    w->con_t[i] = p->cw_t[i];
  }
  m->written = w;
  return HLO_OK;
}

static bool parse_entry(parser *p, imap_map *m) {
  const imap_expr *e = parse_expr(p);
  p->t = e ? p->t : NULL;
  if (!e) return false;
  int64_t lo, hi;
  if (!expect(p, "in") || !expect(p, "[")) return false;
  if (!integer(p, &lo)) {
    perr(p, "expected an integer");
    return false;
  }
  if (!expect(p, ",")) return false;
  if (!integer(p, &hi)) {
    perr(p, "expected an integer");
    return false;
  }
  if (!expect(p, "]")) return false;
  if (imap_is_var(e)) {
    for (int i = 0; i < p->nvars; i++)
      if (p->vars[i].kind == e->kind && p->vars[i].idx == e->v && !p->vars[i].bounded) {
        p->vars[i].bounded = true;
        *imap_map_var_ptr(m, e->kind, (int)e->v) = (imap_interval){lo, hi};
        return true;
      }
  }
  /* a constant outside its interval, or an empty interval, makes the map
     KNOWN EMPTY (XLA's AddConstraint) */
  if (m->state == IMAP_DEFINED && e->kind != IMAP_CONST && !imap_is_var(e) && p->t && p->ncw < MAXVARS) {
    p->cw_e[p->ncw] = e;
    p->cw_t[p->ncw++] = p->t;
  }
  if (m->state == IMAP_DEFINED && imap_map_add_constraint(p->c, m, e, lo, hi)) {
    perr(p, "out of memory");
    return false;
  }
  return true;
}

imap_map *imap_parse_map(imap_ctx *c, const char *text, size_t len, size_t *pos, char *err,
                         size_t errn) {
  parser P = {.c = c, .s = text, .len = len, .pos = *pos, .err = err, .errn = errn};
  parser *p = &P;
  if (err && errn) err[0] = 0;
  if (accept(p, "UNDEFINED")) {
    *pos = p->pos;
    return imap_map_undefined(c);
  }
  if (accept(p, "KNOWN")) {
    if (!expect(p, "EMPTY")) {
      *pos = p->pos;
      return NULL;
    }
    *pos = p->pos;
    imap_map *m = imap_map_new(c, 0, 0, 0, 0);
    if (m) m->state = IMAP_KNOWN_EMPTY;
    return m;
  }
  pvar *vars = hlo_malloc(c->alloc, MAXVARS * sizeof *vars);
  p->cw_e = hlo_malloc(c->alloc, MAXVARS * sizeof *p->cw_e);
  p->cw_t = hlo_malloc(c->alloc, MAXVARS * sizeof *p->cw_t);
  if (!vars || !p->cw_e || !p->cw_t) {
    hlo_free(c->alloc, vars);
    hlo_free(c->alloc, p->cw_e);
    hlo_free(c->alloc, p->cw_t);
    perr(p, "out of memory");
    return NULL;
  }
  p->vars = vars;
  imap_map *m = NULL;
  int nd = -1, ns = 0, nr = 0;
  if (!expect(p, "(")) goto out;
  if ((nd = parse_ids(p, ')', IMAP_DIM)) < 0) goto out;
  if (accept(p, "[") && (ns = parse_ids(p, ']', IMAP_SYM)) < 0) goto out;
  if (accept(p, "{") && (nr = parse_ids(p, '}', IMAP_RT)) < 0) goto out;
  if (!expect(p, "->") || !expect(p, "(")) goto out;
  const imap_expr *res[MAXVARS];
  const imap_syn *rest[MAXVARS];
  int nres = 0;
  if (!accept(p, ")")) {
    for (;;) {
      if (nres >= MAXVARS) {
        perr(p, "too many results");
        goto out;
      }
      if (!(res[nres] = parse_expr(p))) goto out;
      rest[nres++] = p->t;
      if (accept(p, ",")) continue;
      if (!expect(p, ")")) goto out;
      break;
    }
  }
  m = imap_map_new(c, nd, ns, nr, nres);
  if (!m) {
    perr(p, "out of memory");
    goto out;
  }
  memcpy(m->results, res, (size_t)nres * sizeof *res);
  size_t save = p->pos;
  if (accept(p, ",") && accept(p, "domain")) {
    if (!expect(p, ":")) goto fail;
    do {
      if (!parse_entry(p, m)) goto fail;
    } while (accept(p, ","));
  } else {
    p->pos = save;
  }
  for (int i = 0; i < p->nvars; i++)
    if (!p->vars[i].bounded) {
      perr(p, "variable '%.*s' has no bounds in the domain", (int)(p->vars[i].len > 64 ? 64 : p->vars[i].len),
           p->vars[i].name);
      goto fail;
    }
  if (m->state == IMAP_DEFINED && imap_domain_empty(m)) imap_map_set_empty(c, m);
  if (keep_names(p, m) || keep_written(p, m, rest)) {
    perr(p, "out of memory");
    goto fail;
  }
  goto out;
fail:
  m = NULL;
out:
  hlo_free(c->alloc, vars);
  hlo_free(c->alloc, p->cw_e);
  hlo_free(c->alloc, p->cw_t);
  *pos = p->pos;
  return p->failed ? NULL : m;
}
