/* imap_print.c - the text form of expressions, maps and per-operand
 * indexings: the multi-line map format with the map's variable names or
 * XLA's default ones, XLA's summand order (that of its
 * simplifier's sorted sums), XLA's `operand id = N` labels, `runtime
 * variables:` and `replica id:` sections, each as today's XLA prints it (IMAP_XLA_2026) or as
 * the XLA of mid 2025 did (IMAP_XLA_2025). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_imap.h"
#include "hlo/hlo_text.h"
#include "index/imap_internal.h"

static bool compound(const imap_expr *e) {
  return e->kind == IMAP_FLOORDIV || e->kind == IMAP_MOD || e->kind == IMAP_SUM ||
         (e->kind == IMAP_CONST && e->v < 0) ||
         (e->kind == IMAP_BINOP && e->v != IMAP_OP_MIN && e->v != IMAP_OP_MAX);
}

/* The binary operation e is (affine floordiv and mod included), -1 if none. */
static int op_of(const imap_expr *e) {
  return e->kind == IMAP_FLOORDIV ? IMAP_OP_FLOORDIV : e->kind == IMAP_MOD ? IMAP_OP_MOD
         : e->kind == IMAP_BINOP ? (int)e->v : -1;
}

static void put_abs(hlo_buf *b, int64_t k) {
  uint64_t u = k < 0 ? -(uint64_t)k : (uint64_t)k;
  hlo_buf_printf(b, "%" PRIu64, u);
}

/* The text to print: an imap_xla, or today's text of a map XLA leaves as
   its rule built it (sums in stored order). */
enum { AS_BUILT = IMAP_XLA_2025 + 1 };

/* nm: the map whose variable names to print (NULL: d<i>, s<i>, rt<i>). */
static void print_expr(hlo_buf *b, const imap_expr *e, imap_xla v, const imap_map *nm);

static void print_operand(hlo_buf *b, const imap_expr *e, imap_xla v, const imap_map *nm) {
  if (compound(e)) {
    hlo_buf_putc(b, '(');
    print_expr(b, e, v, nm);
    hlo_buf_putc(b, ')');
  } else {
    print_expr(b, e, v, nm);
  }
}

/* ---- XLA's summand order ------------------------------------------------------
 * XLA's simplifier sorts the summands of a sum by kind (sums, products,
 * mods, floordivs, then dims and symbols by position; constants last,
 * runtime variables being symbols after the range symbols), comparing
 * operands left to right, and adds them up in that order; the MLIR-based
 * XLA of 2025 also moved a summand with a dimension before a left side
 * without any. */
enum { K_ADD, K_MUL, K_MOD, K_FLOORDIV, K_CEILDIV, K_MAX, K_MIN, K_DIM, K_SYM, K_CONST };

static int rank_of(const imap_expr *e) {
  switch (e->kind) {
  case IMAP_CONST: return K_CONST;
  case IMAP_DIM: return K_DIM;
  case IMAP_SYM: case IMAP_RT: return K_SYM;
  case IMAP_FLOORDIV: return K_FLOORDIV;
  case IMAP_MOD: return K_MOD;
  case IMAP_SUM: return e->nterms == 1 && e->v == 0 ? K_MUL : K_ADD;
  case IMAP_BINOP: {
    static const int rank[] = {[IMAP_OP_MUL] = K_MUL, [IMAP_OP_FLOORDIV] = K_FLOORDIV, [IMAP_OP_CEILDIV] = K_CEILDIV,
                               [IMAP_OP_MOD] = K_MOD, [IMAP_OP_MIN] = K_MIN, [IMAP_OP_MAX] = K_MAX};
    return rank[e->v];
  }
  }
  return K_ADD;
}

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static int xla_cmp(const imap_expr *a, const imap_expr *b);

/* One summand: coeff * atom (the atom alone when coeff is 1). */
static int summand_cmp(int64_t ka, const imap_expr *a, int64_t kb, const imap_expr *b) {
  int ra = ka == 1 ? rank_of(a) : K_MUL, rb = kb == 1 ? rank_of(b) : K_MUL;
  if (ra != rb) return ra < rb ? -1 : 1;
  int r = xla_cmp(a, b);
  return r ? r : (ra == K_MUL ? cmp_i64(ka, kb) : 0);
}

static int xla_cmp(const imap_expr *a, const imap_expr *b) {
  int ra = rank_of(a), rb = rank_of(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (a->kind) {
  case IMAP_CONST: case IMAP_DIM: return cmp_i64(a->v, b->v);
  case IMAP_SYM: case IMAP_RT:
    if (a->kind != b->kind) return a->kind == IMAP_SYM ? -1 : 1;
    return cmp_i64(a->v, b->v);
  case IMAP_FLOORDIV: case IMAP_MOD: {
    if (b->kind == IMAP_BINOP) return -1; /* same rank: x / 4 before x / y */
    int r = xla_cmp(a->arg, b->arg);
    return r ? r : cmp_i64(a->v, b->v);
  }
  case IMAP_BINOP: {
    if (b->kind != IMAP_BINOP) return 1;
    int r = xla_cmp(a->arg, b->arg);
    return r ? r : xla_cmp(a->arg2, b->arg2);
  }
  case IMAP_SUM:
    for (int i = 0; i < a->nterms && i < b->nterms; i++) {
      int r = summand_cmp(a->terms[i].coeff, a->terms[i].atom, b->terms[i].coeff, b->terms[i].atom);
      if (r) return r;
    }
    if (a->nterms != b->nterms) return a->nterms < b->nterms ? -1 : 1;
    return cmp_i64(a->v, b->v);
  }
  return 0;
}

static bool has_dim(const imap_expr *e) {
  switch (e->kind) {
  case IMAP_DIM: return true;
  case IMAP_FLOORDIV: case IMAP_MOD: return has_dim(e->arg);
  case IMAP_BINOP: return has_dim(e->arg) || has_dim(e->arg2);
  case IMAP_SUM:
    for (int i = 0; i < e->nterms; i++)
      if (has_dim(e->terms[i].atom)) return true;
    return false;
  default: return false;
  }
}

/* The order in which the terms of sum e print (the constant goes last). */
static void summand_order(const imap_expr *e, int *ord, imap_xla v) {
  int n = e->nterms;
  if ((int)v == AS_BUILT) {
    for (int i = 0; i < n; i++) ord[i] = i;
    return;
  }
  for (int i = 0; i < n; i++) { /* insertion sort: sums are short */
    int j = i;
    while (j > 0 && summand_cmp(e->terms[i].coeff, e->terms[i].atom, e->terms[ord[j - 1]].coeff,
                                e->terms[ord[j - 1]].atom) < 0) {
      ord[j] = ord[j - 1];
      j--;
    }
    ord[j] = i;
  }
  if (v != IMAP_XLA_2025) return;
  /* MLIR's left-to-right addition: a summand with a dim moves before a left
     side that has none */
  bool left_dim = false;
  for (int i = 0; i < n; i++) {
    int t = ord[i];
    bool d = has_dim(e->terms[t].atom);
    if (i > 0 && d && !left_dim) {
      memmove(ord + 1, ord, (size_t)i * sizeof *ord);
      ord[0] = t;
    }
    left_dim |= d;
  }
}

/* A variable: its name in nm, else XLA's default d<i>, s<i>, rt<i>. */
void imap_print_var(hlo_buf *b, const imap_map *nm, imap_kind k, int64_t i) {
  const char *name = nm && i <= INT32_MAX ? imap_map_var_name(nm, k, (int)i) : NULL;
  if (name) hlo_buf_puts(b, name);
  else hlo_buf_printf(b, "%s%" PRId64, k == IMAP_DIM ? "d" : k == IMAP_SYM ? "s" : "rt", i);
}

static void print_expr(hlo_buf *b, const imap_expr *e, imap_xla v, const imap_map *nm) {
  switch (e->kind) {
  case IMAP_CONST:
    hlo_buf_printf(b, "%" PRId64, e->v);
    return;
  case IMAP_DIM:
  case IMAP_SYM:
  case IMAP_RT:
    imap_print_var(b, nm, e->kind, e->v);
    return;
  case IMAP_FLOORDIV:
  case IMAP_MOD:
    /* today's XLA writes the dividend bare when it is the same operation:
       `d0 / 2 / 3`, `d0 mod 6 mod 4` */
    if (v != IMAP_XLA_2025 && op_of(e->arg) == op_of(e)) print_expr(b, e->arg, v, nm);
    else print_operand(b, e->arg, v, nm);
    hlo_buf_puts(b, e->kind == IMAP_MOD ? " mod " : v == IMAP_XLA_2025 ? " floordiv " : " / ");
    hlo_buf_printf(b, "%" PRId64, e->v);
    return;
  case IMAP_BINOP:
    if (e->v == IMAP_OP_MIN || e->v == IMAP_OP_MAX) {
      hlo_buf_puts(b, e->v == IMAP_OP_MIN ? "min(" : "max(");
      print_expr(b, e->arg, v, nm);
      hlo_buf_puts(b, ", ");
      print_expr(b, e->arg2, v, nm);
      hlo_buf_putc(b, ')');
      return;
    }
    /* XLA's SymbolicExpr printer: a left operand of the same operation goes
       without parentheses (a right one keeps them here, so that the text
       parses back to the same tree) */
    if (op_of(e->arg) == op_of(e) && (e->v == IMAP_OP_MUL || v != IMAP_XLA_2025)) print_expr(b, e->arg, v, nm);
    else print_operand(b, e->arg, v, nm);
    hlo_buf_puts(b, e->v == IMAP_OP_MUL       ? " * "
                    : e->v == IMAP_OP_MOD     ? " mod "
                    : e->v == IMAP_OP_CEILDIV ? " ceildiv "
                    : v == IMAP_XLA_2025      ? " floordiv "
                                              : " / ");
    print_operand(b, e->arg2, v, nm);
    return;
  case IMAP_SUM: {
    int order[64], *ord = e->nterms <= 64 ? order : malloc((size_t)e->nterms * sizeof *ord);
    if (!ord) {
      b->failed = true;
      return;
    }
    summand_order(e, ord, v);
    for (int n = 0; n < e->nterms; n++) {
      int i = ord[n];
      int64_t k = e->terms[i].coeff;
      const imap_expr *x = e->terms[i].atom;
      if (n == 0) {
        if (k == 1) {
          print_expr(b, x, v, nm);
        } else if (k == -1) {
          hlo_buf_putc(b, '-');
          print_operand(b, x, v, nm);
        } else {
          print_operand(b, x, v, nm);
          hlo_buf_printf(b, " * %" PRId64, k);
        }
        continue;
      }
      hlo_buf_puts(b, k < 0 ? " - " : " + ");
      if (k == 1 || k == -1) {
        print_expr(b, x, v, nm);
      } else {
        print_operand(b, x, v, nm);
        hlo_buf_puts(b, " * ");
        put_abs(b, k);
      }
    }
    if (ord != order) free(ord);
    if (e->v != 0) {
      hlo_buf_puts(b, e->v < 0 ? " - " : " + ");
      put_abs(b, e->v);
    }
    return;
  }
  }
}

void imap_expr_print_xla(hlo_buf *b, const imap_expr *e, imap_xla v) { print_expr(b, e, v, NULL); }

void imap_expr_print(hlo_buf *b, const imap_expr *e) { print_expr(b, e, IMAP_XLA_2026, NULL); }

static void print_vars(hlo_buf *b, const imap_map *m, imap_kind k, int n) {
  for (int i = 0; i < n; i++) {
    if (i) hlo_buf_puts(b, ", ");
    imap_print_var(b, m, k, i);
  }
}

typedef struct cline {
  char *text;
} cline;

static int cline_cmp(const void *x, const void *y) {
  return strcmp(((const cline *)x)->text, ((const cline *)y)->text);
}

void imap_map_print(hlo_buf *b, const imap_map *m) { imap_map_print_xla(b, m, IMAP_XLA_2026); }

void imap_map_print_xla(hlo_buf *b, const imap_map *m, imap_xla v) {
  if (m->state == IMAP_UNDEFINED) {
    hlo_buf_puts(b, "UNDEFINED");
    return;
  }
  if (m->state == IMAP_KNOWN_EMPTY) {
    hlo_buf_puts(b, "KNOWN EMPTY");
    return;
  }
  const imap_map *nm = m;
  hlo_buf_putc(b, '(');
  print_vars(b, m, IMAP_DIM, m->ndims);
  hlo_buf_putc(b, ')');
  if (m->nsyms) {
    hlo_buf_putc(b, '[');
    print_vars(b, m, IMAP_SYM, m->nsyms);
    hlo_buf_putc(b, ']');
  }
  if (m->nrts) {
    hlo_buf_putc(b, '{');
    print_vars(b, m, IMAP_RT, m->nrts);
    hlo_buf_putc(b, '}');
  }
  hlo_buf_puts(b, " -> (");
  imap_xla rv = m->as_built && v != IMAP_XLA_2025 ? (imap_xla)AS_BUILT : v;
  for (int i = 0; i < m->nresults; i++) {
    if (i) hlo_buf_puts(b, ", ");
    const imap_syn *t = imap_written_result(m, i);
    if (t) imap_syn_print(b, t, v, nm);
    else print_expr(b, m->results[i], rv, nm);
  }
  hlo_buf_putc(b, ')');
  if (m->ndims + m->nsyms + m->nrts == 0 && m->ncons == 0) return;
  hlo_buf_puts(b, ",\ndomain:");
  bool first = true;
  static const imap_kind kinds[3] = {IMAP_DIM, IMAP_SYM, IMAP_RT};
  const int counts[3] = {m->ndims, m->nsyms, m->nrts};
  const imap_interval *iv[3] = {m->dims, m->syms, m->rts};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < counts[k]; i++) {
      hlo_buf_puts(b, first ? "\n" : ",\n");
      imap_print_var(b, m, kinds[k], i);
      hlo_buf_printf(b, " in [%" PRId64 ", %" PRId64 "]", iv[k][i].lo, iv[k][i].hi);
      first = false;
    }
  /* constraints sorted by their text, as XLA does */
  cline *cl = m->ncons ? hlo_malloc(b->alloc, (size_t)m->ncons * sizeof *cl) : NULL;
  if (m->ncons && !cl) {
    b->failed = true;
    return;
  }
  int n = 0;
  for (int i = 0; i < m->ncons; i++) {
    hlo_buf t;
    hlo_buf_init(&t, b->alloc);
    const imap_syn *w = imap_written_constraint(m, m->cons[i].e);
    if (w) imap_syn_print(&t, w, v, nm);
    else print_expr(&t, m->cons[i].e, v, nm);
    hlo_buf_printf(&t, " in [%" PRId64 ", %" PRId64 "]", m->cons[i].iv.lo, m->cons[i].iv.hi);
    if (t.failed) b->failed = true;
    char *s = hlo_buf_take(&t);
    if (s) cl[n++].text = s;
  }
  if (n > 1) qsort(cl, (size_t)n, sizeof *cl, cline_cmp);
  for (int i = 0; i < n; i++) {
    hlo_buf_printf(b, "%s\n%s", first ? "" : ",", cl[i].text);
    first = false;
    hlo_free(b->alloc, cl[i].text);
  }
  hlo_free(b->alloc, cl);
}

/* What a runtime variable names: the 2025 text is the instruction's whole
   default text; today's is `parameter(N)`, `constant(V)` for a scalar
   constant (`constant` for an array), and the bare name for anything else. */
static void print_rtvar_source(hlo_buf *b, const hlo_instruction *in, imap_xla v) {
  if (v == IMAP_XLA_2025) {
    if (hlo_print_instruction(b, in, NULL)) b->failed = true;
    return;
  }
  if (in->op == HLO_OP_PARAMETER) {
    hlo_buf_printf(b, "parameter(%" PRId64 ")", in->param_number);
  } else if (in->op == HLO_OP_CONSTANT) {
    hlo_buf_puts(b, "constant");
    if (in->literal && in->literal->shape.rank == 0 && !hlo_shape_is_tuple(&in->literal->shape)) {
      hlo_buf_putc(b, '(');
      if (hlo_print_literal(b, in->literal, NULL)) b->failed = true;
      hlo_buf_putc(b, ')');
    }
  } else {
    hlo_buf_puts(b, in->name);
  }
}

/* XLA's `runtime variables:` section: per variable, the instruction that
   supplies it and its map, on one line. */
static void print_rtvars(hlo_buf *b, const imap_map *m, imap_xla v) {
  if (m->state != IMAP_DEFINED || !m->rtvars || !m->nrts) return;
  hlo_buf_puts(b, "runtime variables:\n");
  for (int i = 0; i < m->nrts; i++) {
    hlo_buf_printf(b, "rt%d: ", i);
    print_rtvar_source(b, m->rtvars[i].hlo, v);
    hlo_buf_puts(b, "; ");
    hlo_buf t;
    hlo_buf_init(&t, b->alloc);
    imap_map_print_xla(&t, m->rtvars[i].map, v);
    if (t.failed) b->failed = true;
    char *text = hlo_buf_take(&t);
    for (char *q = text; q && *q; q++) hlo_buf_putc(b, *q == '\n' ? ' ' : *q);
    hlo_free(b->alloc, text);
    hlo_buf_putc(b, '\n');
  }
}

void imap_set_print(hlo_buf *b, const imap_set *s) { imap_set_print_xla(b, s, IMAP_XLA_2026); }

void imap_set_print_xla(hlo_buf *b, const imap_set *s, imap_xla v) {
  for (int j = 0; j < s->n; j++) {
    imap_map_print_xla(b, s->v[j], v);
    hlo_buf_putc(b, '\n');
    print_rtvars(b, s->v[j], v);
    if (s->v[j]->state == IMAP_DEFINED && s->v[j]->replica) {
      hlo_buf_puts(b, "replica id:\n");
      imap_map_print_xla(b, s->v[j]->replica, v);
      hlo_buf_putc(b, '\n');
    }
  }
}

void imap_indexing_print(hlo_buf *b, const imap_indexing *x, const char *label) {
  imap_indexing_print_xla(b, x, label, IMAP_XLA_2026);
}

void imap_indexing_print_xla(hlo_buf *b, const imap_indexing *x, const char *label, imap_xla v) {
  for (int i = 0; i < x->n; i++) {
    hlo_buf_printf(b, "%s id = %d\n", label, i);
    const imap_set *s = &x->sets[i];
    bool all_undef = s->n > 0; /* an empty set (operand not read) prints only its label */
    for (int j = 0; j < s->n; j++) all_undef &= s->v[j]->state == IMAP_UNDEFINED;
    if (all_undef) {
      hlo_buf_puts(b, "unknown indexing\n");
      continue;
    }
    imap_set_print_xla(b, s, v);
  }
}
