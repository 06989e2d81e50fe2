/* hlo_imap.h - indexing maps: affine expressions over dimension variables
 * (d_i), range symbols (s_j) and runtime variables (rt_k); maps with an
 * interval domain per variable and interval constraints on expressions;
 * composition, the range-aware simplifier, printing, parsing, comparison
 * by meaning, and the per-op output->input / input->output rules.
 *
 * Ownership: every expression and map lives in an imap_ctx (one arena and a
 * hash-consing table).  Expressions are immutable and interned, so two
 * structurally equal expressions are the same pointer.  Maps are values:
 * functions that transform a map return a new one.  Nothing is freed on its
 * own; imap_ctx_release() frees everything.  A function that cannot allocate
 * (or whose constants overflow int64) returns NULL and marks the ctx failed. */
#ifndef HLO_IMAP_H
#define HLO_IMAP_H

#include "hlo/hlo_ir.h"

/* ---- context -------------------------------------------------------------- */
typedef struct imap_expr imap_expr;

/* Which XLA the text and the per-op rules follow.  IMAP_XLA_2026 (the
 * default, 0) is XLA as of mid 2026 (SymbolicMap: `/` for floor division,
 * summands sorted by kind without MLIR's dims-first rule, runtime variables
 * named `parameter(N)` / `constant(V)`, today's op rules);
 * IMAP_XLA_2025 is XLA as of mid 2025 (MLIR affine maps: `floordiv`,
 * runtime variables as full instruction text, the rules of that time). */
typedef enum imap_xla { IMAP_XLA_2026 = 0, IMAP_XLA_2025 = 1 } imap_xla;

typedef struct imap_ctx {
  hlo_arena arena;
  const hlo_allocator *alloc;
  const imap_expr **table; /* open-addressing interning table */
  size_t cap, count;
  bool failed;             /* an allocation failed or a constant overflowed */
  bool overflow;           /* the failure was an int64 overflow */
  imap_xla xla;            /* the XLA whose rules the per-op functions follow */
} imap_ctx;

HLO_API void imap_ctx_init(imap_ctx *c, const hlo_allocator *alloc);
HLO_API void imap_ctx_release(imap_ctx *c);

/* ---- expressions ------------------------------------------------------------
 * Normal form: an expression is a constant, a variable, `arg floordiv v` or
 * `arg mod v` with v > 0, a non-affine BINOP (`d0 * s0`, `s0 / s1`,
 * `min(d0, 5)`), or a SUM: constant + sum of coeff * atom, where an
 * atom is a variable, a floordiv, a mod or a BINOP.  Terms are sorted in print order
 * (dims, symbols, runtime vars, floordivs, mods, binops), atoms are distinct and
 * coefficients non-zero; a single term with coefficient 1 and constant 0 is
 * the atom itself.  Construction folds constants, x*1, x+0, x*0,
 * x floordiv 1, x mod 1, and a negative divisor (x floordiv -c =
 * (-x) floordiv c). */
typedef enum imap_kind {
  IMAP_CONST, IMAP_DIM, IMAP_SYM, IMAP_RT, IMAP_FLOORDIV, IMAP_MOD, IMAP_SUM,
  IMAP_BINOP /* non-affine: arg <op v> arg2, an atom of sums */
} imap_kind;

/* The operation of an IMAP_BINOP node (XLA's SymbolicExpr allows them; an
 * affine case is never a BINOP: a constant operand of *, /, ceildiv and mod
 * gives the affine form, two constants fold).  Division and mod by a value
 * that is 0 at some point make imap_eval fail there. */
typedef enum imap_binop {
  IMAP_OP_MUL, IMAP_OP_FLOORDIV, IMAP_OP_CEILDIV, IMAP_OP_MOD, IMAP_OP_MIN, IMAP_OP_MAX
} imap_binop;

typedef struct imap_term {
  int64_t coeff;
  const imap_expr *atom;
} imap_term;

struct imap_expr {
  imap_kind kind;
  int64_t v;              /* CONST: value; DIM/SYM/RT: index; FLOORDIV/MOD:
                             divisor; SUM: the constant term */
  const imap_expr *arg;   /* FLOORDIV/MOD: the dividend */
  int nterms;             /* SUM */
  const imap_term *terms; /* SUM */
  uint64_t hash;
  const imap_expr *arg2;  /* BINOP: the right operand (arg is the left one,
                             v the imap_binop) */
};

HLO_API const imap_expr *imap_const(imap_ctx *c, int64_t v);
HLO_API const imap_expr *imap_dim(imap_ctx *c, int i);
HLO_API const imap_expr *imap_sym(imap_ctx *c, int i);
HLO_API const imap_expr *imap_rt(imap_ctx *c, int i);
HLO_API const imap_expr *imap_var(imap_ctx *c, imap_kind k, int i);
HLO_API const imap_expr *imap_add(imap_ctx *c, const imap_expr *a, const imap_expr *b);
HLO_API const imap_expr *imap_add_const(imap_ctx *c, const imap_expr *a, int64_t k);
HLO_API const imap_expr *imap_sub(imap_ctx *c, const imap_expr *a, const imap_expr *b);
HLO_API const imap_expr *imap_mul(imap_ctx *c, const imap_expr *a, int64_t k);
/* k == 0 is an error (NULL). */
HLO_API const imap_expr *imap_floordiv(imap_ctx *c, const imap_expr *a, int64_t k);
/* k <= 0 is an error (NULL). */
HLO_API const imap_expr *imap_mod(imap_ctx *c, const imap_expr *a, int64_t k);
/* a <op> b: the affine form when it is one, else a BINOP node.  NULL (ctx
 * failed) on a constant divisor 0 or a constant mod that is not positive. */
HLO_API const imap_expr *imap_binop_expr(imap_ctx *c, imap_binop op, const imap_expr *a, const imap_expr *b);
/* Build a sum from n (coeff, atom) terms plus a constant; atoms may be any
 * expressions (they are flattened). */
HLO_API const imap_expr *imap_sum(imap_ctx *c, const imap_term *t, int n, int64_t cst);

/* Replace variables: dims[i], syms[i], rts[i] (NULL arrays or NULL entries
 * keep the variable).  Returns the rebuilt expression. */
HLO_API const imap_expr *imap_subst(imap_ctx *c, const imap_expr *e, const imap_expr *const *dims,
                                    int ndims, const imap_expr *const *syms, int nsyms,
                                    const imap_expr *const *rts, int nrts);

/* Total order used for canonical term order (<0, 0, >0). */
HLO_API int imap_expr_cmp(const imap_expr *a, const imap_expr *b);
/* Does e mention variable (k, i)? */
HLO_API bool imap_expr_uses(const imap_expr *e, imap_kind k, int i);
/* Evaluate with floor semantics; false on int64 overflow. */
HLO_API bool imap_eval(const imap_expr *e, const int64_t *d, const int64_t *s, const int64_t *rt,
                       int64_t *out);

/* ---- maps -------------------------------------------------------------------- */
typedef struct imap_interval {
  int64_t lo, hi; /* inclusive; lo > hi is empty */
} imap_interval;

typedef struct imap_constraint {
  const imap_expr *e;
  imap_interval iv;
} imap_constraint;

typedef enum imap_state { IMAP_DEFINED, IMAP_UNDEFINED, IMAP_KNOWN_EMPTY } imap_state;

typedef struct imap_map imap_map;

/* Where a runtime variable's value comes from: the instruction that
 * supplies it and the map from the map's dims to that instruction's index
 * (XLA's RuntimeVarIndexing).  Shared, never modified once attached. */
typedef struct imap_rtvar {
  const hlo_instruction *hlo;
  const imap_map *map;
} imap_rtvar;

struct imap_map {
  imap_state state;
  int ndims, nsyms, nrts, nresults, ncons, capcons;
  imap_interval *dims, *syms, *rts;
  const imap_expr **results;
  imap_constraint *cons;
  const imap_rtvar *rtvars; /* NULL, or nrts entries aligned with rts */
  const imap_map *replica;  /* NULL, or XLA's `replica id` map: from the
                               map's dims to the replica whose data is read
                               (all-gather) */
  bool as_built;            /* a rule's map that XLA does not simplify: its
                               sums print in the order the rule wrote them
                               (the terms' stored order), not sorted */
  const char **names;       /* NULL (every variable prints as d<i>, s<i>,
                               rt<i>), or ndims + nsyms + nrts entries in
                               that order, a NULL entry printing the default
                               name: the names a parsed map's text gave its
                               variables (XLA's IndexingMap::Variable::name).
                               Arena strings shared between copies, never
                               modified; simplification, copies, composition
                               and removal of unused variables carry them as
                               XLA does */
  const struct imap_written *written; /* NULL, or (a parsed map) the
                               expression trees as the text wrote them, which
                               the printer uses while a result or constraint
                               is unchanged (XLA keeps the parsed tree);
                               copies share it, simplification drops it */
};

/* A map with the given counts, all bounds [0, -1] and results NULL, for the
 * caller to fill.  NULL on allocation failure or a negative count. */
HLO_API imap_map *imap_map_new(imap_ctx *c, int ndims, int nsyms, int nrts, int nresults);
HLO_API imap_map *imap_map_undefined(imap_ctx *c);
/* The identity over dims [0, n_i - 1]. */
HLO_API imap_map *imap_map_identity(imap_ctx *c, int rank, const int64_t *dims);
HLO_API imap_map *imap_map_copy(imap_ctx *c, const imap_map *m);
/* Add `e in [lo, hi]`: a bare variable narrows its bounds, a constant is
 * checked (failure makes the map KNOWN EMPTY), an expression already
 * constrained is intersected.  HLO_ERR on allocation failure. */
HLO_API int imap_map_add_constraint(imap_ctx *c, imap_map *m, const imap_expr *e, int64_t lo, int64_t hi);
/* Reset to the known-empty map (results 0, bounds [0, -1], no constraints). */
HLO_API void imap_map_set_empty(imap_ctx *c, imap_map *m);
/* Bounds of variable (k, i). */
HLO_API imap_interval imap_map_var_bounds(const imap_map *m, imap_kind k, int i);
/* Interval over-approximation of e over m's domain; with use_constraints,
 * sub-expressions that carry a constraint are intersected with it. */
HLO_API imap_interval imap_range(const imap_map *m, const imap_expr *e, bool use_constraints);

/* compose(first: A->B, second: B->C) = A->C.  Requires first->nresults ==
 * second->ndims.  Symbols are ordered [range(second) | range(first) |
 * rt(second) | rt(first)].  Undefined in, undefined out. */
HLO_API imap_map *imap_compose(imap_ctx *c, const imap_map *first, const imap_map *second);

/* Simplify (range analysis, floordiv/mod rewrites, gcd splitting,
 * constraint rewriting and merging; like XLA, a domain is known empty only
 * when a variable or constraint interval is, not when a constraint lies
 * outside its expression's range).  Idempotent.
 * Returns a new map, NULL on failure. */
HLO_API imap_map *imap_simplify(imap_ctx *c, const imap_map *m);
HLO_API const imap_expr *imap_simplify_expr(imap_ctx *c, const imap_map *m, const imap_expr *e,
                                            bool use_constraints);
/* Drop symbols / runtime vars that no result uses (and the constraints that
 * only involve unused ones); renumber compactly. */
HLO_API imap_map *imap_remove_unused_symbols(imap_ctx *c, const imap_map *m);
/* Also drop dimensions that no result and no constraint uses (the map's
 * dimension count shrinks; the remaining dims are renumbered in order). */
HLO_API imap_map *imap_remove_unused_vars(imap_ctx *c, const imap_map *m);
/* Structural equality (after interning: same vars, bounds, results, and the
 * same set of constraints). */
HLO_API bool imap_map_same(const imap_map *a, const imap_map *b);

/* ---- text ------------------------------------------------------------------- */
/* Print the expression as XLA does: `d0 * 8 + d1`, `(d1 mod 2) * 4`,
 * `d0 / 3`, `-d1 + 16`, `d0 - rt0`. */
HLO_API void imap_expr_print(hlo_buf *b, const imap_expr *e);
/* The same in the text of XLA version v (the plain functions print
 * IMAP_XLA_2026's text). */
HLO_API void imap_expr_print_xla(hlo_buf *b, const imap_expr *e, imap_xla v);
HLO_API void imap_map_print_xla(hlo_buf *b, const imap_map *m, imap_xla v);

/* The name variable (k, i) of m prints as: its parsed name, or NULL for
 * the default d<i> / s<i> / rt<i>. */
HLO_API const char *imap_map_var_name(const imap_map *m, imap_kind k, int i);

/* Print the map in the multi-line format:
 *   (d0, d1)[s0]{rt0} -> (results),
 *   domain:
 *   d0 in [0, 9],
 *   ...
 * without a final newline; or UNDEFINED / KNOWN EMPTY; a map with no
 * variables prints only its header line.  Variables print by their names
 * (m->names) where the map has them, and a parsed map's unchanged results
 * and constraints as their text wrote them (m->written), as XLA's ToString
 * does. */
HLO_API void imap_map_print(hlo_buf *b, const imap_map *m);

/* Parse one map (multi-line or XLA's one-line form; whitespace is free)
 * from text[*pos..len).  Variable names in the header are arbitrary
 * identifiers, kept in m->names unless they are the default ones (as XLA's
 * ParseIndexingMap keeps them); domain entries that name a variable set its
 * bounds, others are constraints.  As XLA's IndexingMap constructor does,
 * an empty variable interval, an empty constraint interval or a constant
 * constraint that fails makes the map KNOWN EMPTY.  Also accepts UNDEFINED
 * and KNOWN EMPTY.  Expressions use +, -, *, / (or floordiv, floorDiv),
 * ceildiv (ceilDiv), mod, min(a, b), max(a, b) and parentheses; a
 * non-constant right operand of *, / or mod gives a BINOP.  The map is not
 * simplified.  On success
 * *pos is past the map.  NULL on error with a message in err (size errn)
 * and *pos at the error. */
HLO_API imap_map *imap_parse_map(imap_ctx *c, const char *text, size_t len, size_t *pos, char *err,
                                 size_t errn);

/* ---- comparison by meaning ---------------------------------------------------
 * Two maps are equal when they have the same number of dims and results,
 * the same set of dim points with a non-empty feasible set, and at every
 * such point the same SET of result tuples over all feasible symbol and
 * runtime values.  Small domains are enumerated; otherwise dim points are
 * sampled (corners plus pseudo-random points).  Returns 1 equal, 0 different
 * (with a reason in why), -1 when it cannot decide (symbol space too big). */
HLO_API int imap_equal_meaning(const imap_map *a, const imap_map *b, char *why, size_t whyn);

/* ---- per-op rules ---------------------------------------------------------------
 * Indexing of one instruction.  Output->input: for each operand, a set of
 * maps from the output index (of result `output`, for tuple-shaped ops) to
 * the operand index; an op without a rule gives one UNDEFINED map per
 * operand.  Input->output: the maps from operand `input` to each output. */
typedef struct imap_set {
  int n, cap;
  imap_map **v;
} imap_set;

/* Add m unless a structurally equal map is already there. */
HLO_API int imap_set_add(imap_ctx *c, imap_set *s, imap_map *m);

typedef struct imap_indexing {
  int n;        /* operands (O->I) or outputs (I->O) */
  imap_set *sets;
} imap_indexing;

/* HLO_ERR (with a diagnostic) on allocation failure or malformed
 * attributes; an op without a rule is not an error. */
HLO_API int imap_output_to_input(imap_ctx *c, const hlo_instruction *in, int output,
                                 imap_indexing *out, hlo_diags *d);
HLO_API int imap_input_to_output(imap_ctx *c, const hlo_instruction *in, int input,
                                 imap_indexing *out, hlo_diags *d);

/* Rewrite an indexing computed by the two functions above (i2o says which;
 * index is the output or input it was computed for) so that every map goes
 * from and to PHYSICAL indices: dimensions in the major-to-minor order of
 * each shape's layout. */
HLO_API int imap_use_physical_layout(imap_ctx *c, const hlo_instruction *in, bool i2o, int index,
                                     imap_indexing *x, hlo_diags *d);

/* Print each map of s on its own lines, a map with runtime variables
 * followed by XLA's `runtime variables:` section (`rtN: <instruction>;
 * <map on one line>`). */
HLO_API void imap_set_print(hlo_buf *b, const imap_set *s);
HLO_API void imap_set_print_xla(hlo_buf *b, const imap_set *s, imap_xla v);

/* Print an indexing as `operand id = N` blocks (the label word is given:
 * "operand" or "output"); a set that holds only UNDEFINED prints
 * `unknown indexing`. */
HLO_API void imap_indexing_print(hlo_buf *b, const imap_indexing *x, const char *label);
HLO_API void imap_indexing_print_xla(hlo_buf *b, const imap_indexing *x, const char *label, imap_xla v);

/* Parse a listing as printed by imap_indexing_print or XLA's
 * HloInstructionIndexing::ToString (`operand id = N` blocks, maps,
 * `unknown indexing`; XLA's `runtime variables:` notes are skipped).  Maps
 * before any label form block 0.  HLO_ERR with a message in err (and the
 * offset in *errpos) on a syntax error or allocation failure. */
HLO_API int imap_parse_indexing(imap_ctx *c, const char *text, size_t len, imap_indexing *out, char *err,
                                size_t errn, size_t *errpos);
/* Block by block, each map of one side has an equal-by-meaning map on the
 * other side.  1 equal, 0 different, -1 undecidable; a reason in why. */
HLO_API int imap_indexing_equal(const imap_indexing *a, const imap_indexing *b, char *why, size_t whyn);

#endif
