/* imap_print.c - the text form of expressions, maps and per-operand
 * indexings: the seed's multi-line map format, its summand order (dims,
 * symbols, runtime vars, floordivs, mods, then the constant) and XLA's
 * `operand id = N` labels. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_imap.h"
#include "hlo/hlo_text.h"
#include "index/imap_internal.h"

static bool compound(const imap_expr *e) {
  return e->kind == IMAP_FLOORDIV || e->kind == IMAP_MOD || e->kind == IMAP_SUM ||
         (e->kind == IMAP_CONST && e->v < 0);
}

static void put_abs(hlo_buf *b, int64_t k) {
  uint64_t u = k < 0 ? -(uint64_t)k : (uint64_t)k;
  hlo_buf_printf(b, "%" PRIu64, u);
}

static void print_operand(hlo_buf *b, const imap_expr *e) {
  if (compound(e)) {
    hlo_buf_putc(b, '(');
    imap_expr_print(b, e);
    hlo_buf_putc(b, ')');
  } else {
    imap_expr_print(b, e);
  }
}

void imap_expr_print(hlo_buf *b, const imap_expr *e) {
  switch (e->kind) {
  case IMAP_CONST:
    hlo_buf_printf(b, "%" PRId64, e->v);
    return;
  case IMAP_DIM:
    hlo_buf_printf(b, "d%" PRId64, e->v);
    return;
  case IMAP_SYM:
    hlo_buf_printf(b, "s%" PRId64, e->v);
    return;
  case IMAP_RT:
    hlo_buf_printf(b, "rt%" PRId64, e->v);
    return;
  case IMAP_FLOORDIV:
  case IMAP_MOD:
    print_operand(b, e->arg);
    hlo_buf_puts(b, e->kind == IMAP_MOD ? " mod " : " floordiv ");
    hlo_buf_printf(b, "%" PRId64, e->v);
    return;
  case IMAP_SUM:
    for (int i = 0; i < e->nterms; i++) {
      int64_t k = e->terms[i].coeff;
      const imap_expr *x = e->terms[i].atom;
      if (i == 0) {
        if (k == 1) {
          imap_expr_print(b, x);
        } else if (k == -1) {
          hlo_buf_putc(b, '-');
          print_operand(b, x);
        } else {
          print_operand(b, x);
          hlo_buf_printf(b, " * %" PRId64, k);
        }
        continue;
      }
      hlo_buf_puts(b, k < 0 ? " - " : " + ");
      if (k == 1 || k == -1) {
        imap_expr_print(b, x);
      } else {
        print_operand(b, x);
        hlo_buf_puts(b, " * ");
        put_abs(b, k);
      }
    }
    if (e->v != 0) {
      hlo_buf_puts(b, e->v < 0 ? " - " : " + ");
      put_abs(b, e->v);
    }
    return;
  }
}

static void print_vars(hlo_buf *b, const char *pfx, int n) {
  for (int i = 0; i < n; i++) hlo_buf_printf(b, "%s%s%d", i ? ", " : "", pfx, i);
}

typedef struct cline {
  char *text;
} cline;

static int cline_cmp(const void *x, const void *y) {
  return strcmp(((const cline *)x)->text, ((const cline *)y)->text);
}

void imap_map_print(hlo_buf *b, const imap_map *m) {
  if (m->state == IMAP_UNDEFINED) {
    hlo_buf_puts(b, "UNDEFINED");
    return;
  }
  if (m->state == IMAP_KNOWN_EMPTY) {
    hlo_buf_puts(b, "KNOWN EMPTY");
    return;
  }
  hlo_buf_putc(b, '(');
  print_vars(b, "d", m->ndims);
  hlo_buf_putc(b, ')');
  if (m->nsyms) {
    hlo_buf_putc(b, '[');
    print_vars(b, "s", m->nsyms);
    hlo_buf_putc(b, ']');
  }
  if (m->nrts) {
    hlo_buf_putc(b, '{');
    print_vars(b, "rt", m->nrts);
    hlo_buf_putc(b, '}');
  }
  hlo_buf_puts(b, " -> (");
  for (int i = 0; i < m->nresults; i++) {
    if (i) hlo_buf_puts(b, ", ");
    imap_expr_print(b, m->results[i]);
  }
  hlo_buf_putc(b, ')');
  if (m->ndims + m->nsyms + m->nrts == 0 && m->ncons == 0) return;
  hlo_buf_puts(b, ",\ndomain:");
  bool first = true;
  static const char *const pf[3] = {"d", "s", "rt"};
  const int counts[3] = {m->ndims, m->nsyms, m->nrts};
  const imap_interval *iv[3] = {m->dims, m->syms, m->rts};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < counts[k]; i++) {
      hlo_buf_printf(b, "%s\n%s%d in [%" PRId64 ", %" PRId64 "]", first ? "" : ",", pf[k], i,
                     iv[k][i].lo, iv[k][i].hi);
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
    imap_expr_print(&t, m->cons[i].e);
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

/* XLA's `runtime variables:` section: per variable, the instruction that
   supplies it (XLA's default instruction text) and its map, on one line. */
static void print_rtvars(hlo_buf *b, const imap_map *m) {
  if (m->state != IMAP_DEFINED || !m->rtvars || !m->nrts) return;
  hlo_buf_puts(b, "runtime variables:\n");
  for (int i = 0; i < m->nrts; i++) {
    hlo_buf_printf(b, "rt%d: ", i);
    if (hlo_print_instruction(b, m->rtvars[i].hlo, NULL)) b->failed = true;
    hlo_buf_puts(b, "; ");
    hlo_buf t;
    hlo_buf_init(&t, b->alloc);
    imap_map_print(&t, m->rtvars[i].map);
    if (t.failed) b->failed = true;
    char *text = hlo_buf_take(&t);
    for (char *q = text; q && *q; q++) hlo_buf_putc(b, *q == '\n' ? ' ' : *q);
    hlo_free(b->alloc, text);
    hlo_buf_putc(b, '\n');
  }
}

void imap_set_print(hlo_buf *b, const imap_set *s) {
  for (int j = 0; j < s->n; j++) {
    imap_map_print(b, s->v[j]);
    hlo_buf_putc(b, '\n');
    print_rtvars(b, s->v[j]);
  }
}

void imap_indexing_print(hlo_buf *b, const imap_indexing *x, const char *label) {
  for (int i = 0; i < x->n; i++) {
    hlo_buf_printf(b, "%s id = %d\n", label, i);
    const imap_set *s = &x->sets[i];
    bool all_undef = s->n > 0; /* an empty set (operand not read) prints only its label */
    for (int j = 0; j < s->n; j++) all_undef &= s->v[j]->state == IMAP_UNDEFINED;
    if (all_undef) {
      hlo_buf_puts(b, "unknown indexing\n");
      continue;
    }
    imap_set_print(b, s);
  }
}
