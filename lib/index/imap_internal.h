/* imap_internal.h - helpers shared by the lib/index files: arena
 * allocation through the ctx, floor/ceil integer division, gcd, saturating
 * interval arithmetic and growable per-map arrays. */
#ifndef IMAP_INTERNAL_H
#define IMAP_INTERNAL_H

#include "hlo/hlo_imap.h"

/* n elements of sz bytes from the ctx arena; marks the ctx failed on NULL. */
void *imap_alloc(imap_ctx *c, size_t n, size_t sz);
const imap_expr *imap_fail_overflow(imap_ctx *c);

int64_t imap_floor_div(int64_t a, int64_t b); /* b != 0, no INT64_MIN / -1 */
int64_t imap_ceil_div(int64_t a, int64_t b);
int64_t imap_floor_mod(int64_t a, int64_t b);
int64_t imap_gcd(int64_t a, int64_t b);       /* >= 0; 0 if not representable */

/* Saturating arithmetic for ranges. */
int64_t imap_sat_add(int64_t a, int64_t b);
int64_t imap_sat_mul(int64_t a, int64_t b);

bool imap_is_var(const imap_expr *e);
/* a <op> b with floor semantics; false on overflow or a zero divisor. */
bool imap_eval_binop(imap_binop op, int64_t a, int64_t b, int64_t *out);
/* Pointer to the bounds of variable (k, i) in m, NULL if out of range. */
imap_interval *imap_map_var_ptr(imap_map *m, imap_kind k, int i);
/* Some variable's interval is empty (XLA's VerifyVariableIntervals fails). */
bool imap_domain_empty(const imap_map *m);
/* Name variable (k, i) of m (an arena string that outlives m; m->names is
   allocated on the first name).  HLO_ERR on allocation failure. */
int imap_map_set_name(imap_ctx *c, imap_map *m, imap_kind k, int i, const char *name);
/* Give variable (dk, di) of dst the name of variable (sk, si) of src, if it
   has one.  HLO_ERR on allocation failure. */
int imap_map_carry_name(imap_ctx *c, imap_map *dst, imap_kind dk, int di, const imap_map *src, imap_kind sk,
                        int si);

/* ---- written trees (imap_written.c) ----------------------------------------
 * The tree of an expression as the text wrote it, for printing a parsed map
 * back as XLA does.  Arena nodes, never shared with the normal form. */
typedef enum imap_syn_op {
  SYN_CONST, SYN_VAR, SYN_ADD, SYN_SUB, SYN_MUL, SYN_FLOORDIV, SYN_CEILDIV, SYN_MOD, SYN_MIN, SYN_MAX
} imap_syn_op;

typedef struct imap_syn {
  imap_syn_op op;
  imap_kind vk;  /* VAR: IMAP_DIM / IMAP_SYM / IMAP_RT */
  int64_t v;     /* CONST: value; VAR: index */
  const struct imap_syn *l, *r;
} imap_syn;

/* Per map: the tree of each result and constraint, with the expression it
   lowered to (a tree prints only while the map still holds that one). */
typedef struct imap_written {
  int nres, ncons;
  const imap_expr **res_e, **con_e;
  const imap_syn **res_t, **con_t;
} imap_written;

const imap_syn *imap_syn_const(imap_ctx *c, int64_t v);
const imap_syn *imap_syn_var(imap_ctx *c, imap_kind k, int64_t i);
/* l <op> r with CreateSymbolicBinaryOp's folding; NULL if l or r is. */
const imap_syn *imap_syn_bin(imap_ctx *c, imap_syn_op op, const imap_syn *l, const imap_syn *r);
const imap_syn *imap_syn_neg(imap_ctx *c, const imap_syn *t);
void imap_syn_print(hlo_buf *b, const imap_syn *t, imap_xla v, const imap_map *nm);
/* The tree of result i / of constraint expression e, NULL if none or stale. */
const imap_syn *imap_written_result(const imap_map *m, int i);
const imap_syn *imap_written_constraint(const imap_map *m, const imap_expr *e);
/* A variable as printed: its name in nm (may be NULL), else d<i>/s<i>/rt<i>. */
void imap_print_var(hlo_buf *b, const imap_map *nm, imap_kind k, int64_t i);

#endif
