/* imap_written.c - the tree of an expression as a map's text wrote it, kept
 * beside its normal form so that a parsed map prints back as XLA's
 * ParseIndexingMap + ToString print it: XLA's parsed SymbolicExpr is that
 * tree, folded only as CreateSymbolicBinaryOp folds (constants to the right
 * of +, *, min, max; x + 0, x * 1, x * 0, (x * c1) * c2, two constants),
 * and printed with the fewest parentheses.  The tree is used only for
 * printing, and only while the expression it lowered to is still the one
 * the map holds. */
#include <inttypes.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"

static const imap_syn *node(imap_ctx *c, imap_syn_op op, imap_kind vk, int64_t v, const imap_syn *l,
                            const imap_syn *r) {
  imap_syn *n = imap_alloc(c, 1, sizeof *n);
  if (!n) return NULL;
  *n = (imap_syn){op, vk, v, l, r};
  return n;
}

const imap_syn *imap_syn_const(imap_ctx *c, int64_t v) { return node(c, SYN_CONST, IMAP_CONST, v, NULL, NULL); }

const imap_syn *imap_syn_var(imap_ctx *c, imap_kind k, int64_t i) { return node(c, SYN_VAR, k, i, NULL, NULL); }

static bool is_const(const imap_syn *t, int64_t v) { return t->op == SYN_CONST && t->v == v; }

/* l <op> r of two constants, false when it does not fold (overflow, a
   zero divisor). */
static bool fold(imap_syn_op op, int64_t a, int64_t b, int64_t *out) {
  switch (op) {
  case SYN_ADD: return !__builtin_add_overflow(a, b, out);
  case SYN_SUB: return !__builtin_sub_overflow(a, b, out);
  case SYN_MUL: return imap_eval_binop(IMAP_OP_MUL, a, b, out);
  case SYN_FLOORDIV: return imap_eval_binop(IMAP_OP_FLOORDIV, a, b, out);
  case SYN_CEILDIV: return imap_eval_binop(IMAP_OP_CEILDIV, a, b, out);
  case SYN_MOD: return imap_eval_binop(IMAP_OP_MOD, a, b, out);
  case SYN_MIN: return imap_eval_binop(IMAP_OP_MIN, a, b, out);
  case SYN_MAX: return imap_eval_binop(IMAP_OP_MAX, a, b, out);
  default: return false;
  }
}

const imap_syn *imap_syn_bin(imap_ctx *c, imap_syn_op op, const imap_syn *l, const imap_syn *r) {
  if (!l || !r) return NULL;
  int64_t v;
  if (l->op == SYN_CONST && r->op == SYN_CONST && fold(op, l->v, r->v, &v)) return imap_syn_const(c, v);
  if ((op == SYN_ADD || op == SYN_MUL || op == SYN_MIN || op == SYN_MAX) && l->op == SYN_CONST) {
    const imap_syn *t = l;
    l = r;
    r = t;
  }
  if ((op == SYN_ADD || op == SYN_SUB) && is_const(r, 0)) return l;
  /* a - c is a + (-c); c - x is -x + c (XLA's operator- then the constant
     to the right) */
  if (op == SYN_SUB && r->op == SYN_CONST && r->v != INT64_MIN) return imap_syn_bin(c, SYN_ADD, l, imap_syn_const(c, -r->v));
  if (op == SYN_SUB && l->op == SYN_CONST) return imap_syn_bin(c, SYN_ADD, imap_syn_neg(c, r), l);
  if (op == SYN_MUL && r->op == SYN_CONST) {
    if (r->v == 0 || r->v == 1) return r->v ? l : r;
    if (l->op == SYN_MUL && l->r->op == SYN_CONST && !__builtin_mul_overflow(l->r->v, r->v, &v))
      return imap_syn_bin(c, SYN_MUL, l->l, imap_syn_const(c, v));
  }
  return node(c, op, IMAP_CONST, 0, l, r);
}

const imap_syn *imap_syn_neg(imap_ctx *c, const imap_syn *t) {
  if (!t) return NULL;
  if (t->op == SYN_CONST && t->v != INT64_MIN) return imap_syn_const(c, -t->v);
  return imap_syn_bin(c, SYN_MUL, t, imap_syn_const(c, -1));
}

/* ---- printing ------------------------------------------------------------------- */
static int prec(imap_syn_op op) {
  switch (op) {
  case SYN_ADD: case SYN_SUB: return 1;
  case SYN_MUL: case SYN_FLOORDIV: case SYN_CEILDIV: case SYN_MOD: return 2;
  default: return 3;
  }
}

/* `a - b` is XLA's `a + (-b)`: one kind of node for parentheses */
static imap_syn_op kind_of(imap_syn_op op) { return op == SYN_SUB ? SYN_ADD : op; }

static void print_tree(hlo_buf *b, const imap_syn *t, imap_xla v, const imap_map *nm, int parent, bool rhs,
                       bool rhs_of_minus) {
  switch (t->op) {
  case SYN_CONST:
    hlo_buf_printf(b, "%" PRId64, t->v);
    return;
  case SYN_VAR:
    imap_print_var(b, nm, t->vk, t->v);
    return;
  case SYN_MIN:
  case SYN_MAX:
    hlo_buf_puts(b, t->op == SYN_MIN ? "min(" : "max(");
    print_tree(b, t->l, v, nm, -1, false, false);
    hlo_buf_puts(b, ", ");
    print_tree(b, t->r, v, nm, -1, false, false);
    hlo_buf_putc(b, ')');
    return;
  default: break;
  }
  if (t->op == SYN_MUL && is_const(t->r, -1)) { /* x * -1 prints -x */
    /* XLA writes -a * b for -(a * b), which parses back as (-a) * b: a
       different tree, so an operation keeps its parentheses here */
    bool op = prec(kind_of(t->l->op)) <= 2;
    hlo_buf_puts(b, op ? "-(" : "-");
    print_tree(b, t->l, v, nm, op ? -1 : SYN_MUL, false, false);
    if (op) hlo_buf_putc(b, ')');
    return;
  }
  imap_syn_op k = kind_of(t->op);
  int pp = parent < 0 ? 0 : prec((imap_syn_op)parent);
  bool parens = prec(k) < pp;
  if (prec(k) == pp) {
    if ((imap_syn_op)parent != k) parens = true;
    else if (k == SYN_ADD) parens = rhs_of_minus;
    else parens = rhs; /* also a * (b * c), which XLA writes bare but
                          would parse back as (a * b) * c */
  }
  if (parens) hlo_buf_putc(b, '(');
  print_tree(b, t->l, v, nm, k, false, false);
  /* a + (negative constant or product by one) prints as a subtraction */
  if (t->op == SYN_ADD && t->r->op == SYN_CONST && t->r->v < 0 && t->r->v != INT64_MIN) {
    hlo_buf_printf(b, " - %" PRId64, -t->r->v);
    if (parens) hlo_buf_putc(b, ')');
    return;
  }
  if (t->op == SYN_ADD && t->r->op == SYN_MUL && t->r->r->op == SYN_CONST && t->r->r->v < 0 &&
      t->r->r->v != INT64_MIN) {
    hlo_buf_puts(b, " - ");
    print_tree(b, t->r->l, v, nm, SYN_MUL, false, false);
    if (t->r->r->v != -1) hlo_buf_printf(b, " * %" PRId64, -t->r->r->v);
    if (parens) hlo_buf_putc(b, ')');
    return;
  }
  hlo_buf_puts(b, t->op == SYN_ADD       ? " + "
                  : t->op == SYN_SUB     ? " - "
                  : t->op == SYN_MUL     ? " * "
                  : t->op == SYN_MOD     ? " mod "
                  : t->op == SYN_CEILDIV ? " ceildiv "
                  : v == IMAP_XLA_2025   ? " floordiv "
                                         : " / ");
  print_tree(b, t->r, v, nm, k, true, t->op == SYN_SUB);
  if (parens) hlo_buf_putc(b, ')');
}

void imap_syn_print(hlo_buf *b, const imap_syn *t, imap_xla v, const imap_map *nm) {
  print_tree(b, t, v, nm, -1, false, false);
}

/* ---- the map's record ---------------------------------------------------------- */
const imap_syn *imap_written_result(const imap_map *m, int i) {
  const imap_written *w = m->written;
  if (!w || i < 0 || i >= w->nres || w->res_e[i] != m->results[i]) return NULL;
  return w->res_t[i];
}

const imap_syn *imap_written_constraint(const imap_map *m, const imap_expr *e) {
  const imap_written *w = m->written;
  for (int i = 0; w && i < w->ncons; i++)
    if (w->con_e[i] == e) return w->con_t[i];
  return NULL;
}
