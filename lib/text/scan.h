/* scan.h - the character-level scanner shared by the HLO text parsers
 * (module structure, shapes, literals, attribute values).  Whitespace and
 * comments (including XLA's index annotations) are skipped by scan_skip. */
#ifndef HLO_SCAN_H
#define HLO_SCAN_H

#include "hlo/hlo_ir.h"
#include "hlo/hlo_text.h"

typedef struct scanner {
  const hlo_src *src;
  const char *s;   /* src->text */
  size_t pos, end; /* current position, end of the chunk */
  hlo_diags *d;
  hlo_arena *a;    /* where parsed values go: the module's arena, or scratch
                      for operand shapes that are only checked */
  hlo_arena *ir;   /* the module's arena (shared layouts live there), or NULL: a */
  int depth, max_depth;
  int nerrors;
  hlo_strmap *layouts; /* optional: explicit layouts shared by their text */
  hlo_arena *scratch;  /* for the keys of that map */
  hlo_layout *default_layouts[9]; /* shared {r-1,...,0} layouts by rank */
  /* scan_at_shape's finding, reused by the scan_shape that follows it:
   * element type at offset seen_at - 1 ending at seen_end (0: none) */
  size_t seen_at, seen_end;
  hlo_type seen_type;
  /* optional: reads a computation written inline, '{' instructions '}',
   * where a computation name may stand (parse.c); NULL after an error */
  struct hlo_computation *(*inline_comp)(struct scanner *scn, void *ctx);
  void *inline_ctx;
} scanner;

/* The shared default layout for rank r (< 9) in the module arena, or NULL
 * on allocation failure. */
hlo_layout *scan_default_layout(scanner *scn, int rank);

void scan_skip_slow(scanner *scn);
/* Skip blanks and comments (inline: the next character is usually not one). */
static inline void scan_skip(scanner *scn) {
  if (scn->pos < scn->end) {
    unsigned char c = (unsigned char)scn->s[scn->pos];
    if (c > ' ' && c != '/') return;
  }
  scan_skip_slow(scn);
}
/* True if the next non-blank character is c (nothing consumed). */
static inline bool scan_peek(scanner *scn, char c) {
  scan_skip(scn);
  return scn->pos < scn->end && scn->s[scn->pos] == c;
}
/* Consume c if it is next. */
static inline bool scan_accept(scanner *scn, char c) {
  if (!scan_peek(scn, c)) return false;
  scn->pos++;
  return true;
}
int scan_expect_failed(scanner *scn, char c, const char *context);
/* Record "<what>, found <next>" and return HLO_ERR. */
int scan_failed_at_next(scanner *scn, const char *what);
/* Consume c or record "expected ..." and return HLO_ERR. */
static inline int scan_expect(scanner *scn, char c, const char *context) {
  return scan_accept(scn, c) ? HLO_OK : scan_expect_failed(scn, c, context);
}
/* Consume the exact text kw if next and not followed by a name character. */
bool scan_accept_kw(scanner *scn, const char *kw);
bool scan_at_end(scanner *scn);
extern const unsigned char scan_name_chars[256]; /* 1 for [A-Za-z0-9_.], 2 for '-' */
static inline bool scan_is_name_char(int c) { return scan_name_chars[(unsigned char)c] != 0; }
/* A name: optional '%' then name characters.  Returns its length (0 if
 * none; nothing consumed then); *start points into the source. */
size_t scan_name(scanner *scn, const char **start, bool *had_percent);
/* A name copied into the arena; HLO_ERR with a diagnostic if absent. */
int scan_name_dup(scanner *scn, const char **out, const char *what);
int scan_int(scanner *scn, int64_t *out);
/* A quoted string ("..." or '...'), unescaped into the arena. */
int scan_string(scanner *scn, const char **out);
/* The verbatim text of one balanced value: {...}, (...), [...], "..." or a
 * run of characters up to ',' ')' '}' or a newline at depth 0. */
int scan_raw_value(scanner *scn, const char **out);
int scan_errorf(scanner *scn, size_t off, const char *fmt, ...) HLO_PRINTF(3, 4);
/* Nesting guard: HLO_ERR with a diagnostic beyond max_depth. */
int scan_enter(scanner *scn);
void scan_leave(scanner *scn);

/* Mesh-based shardings and mesh-axes replica groups (parse_mesh.c).
 * scan_at_mesh: true if the next word is mesh or maximal_mesh (nothing
 * consumed).  scan_named_sharding: the rest of a sharding whose '{' at
 * offset st was consumed, through its '}'.  scan_mesh_groups: a whole
 * replica_groups=mesh[...] {axes} value. */
bool scan_at_mesh(scanner *scn);
int scan_named_sharding(scanner *scn, hlo_sharding *s, size_t st);
int scan_mesh_groups(scanner *scn, hlo_replica_groups *g);

/* Shapes and layouts (parse_shape.c). */
int scan_shape(scanner *scn, hlo_shape *out);
bool scan_at_shape(scanner *scn);
/* Literals (parse_literal.c): the value text for a constant of shape s. */
int scan_literal(scanner *scn, const hlo_shape *s, hlo_literal *out);
/* Attribute value of kind k (parse_attr.c); computation and instruction
 * references are left unresolved in *a with their names kept, see
 * parse_attr.c. */
int scan_attr_value(scanner *scn, hlo_attr *a);

/* XLA's async syntax sugar (parse_async.c): true if s names "<op>-start",
 * "<op>-update" or "<op>-done" for an opcode <op> that is not itself an
 * opcode spelling; then *async_op is the async opcode and *wrapped <op>. */
bool scan_async_sugar_opcode(const char *s, size_t n, hlo_opcode *async_op, hlo_opcode *wrapped);
/* After a sugared instruction was parsed: for a start, build the wrapped
 * computation (named comp_name) returned in *made and move the wrapped
 * op's attributes to it; for update/done, check the wrapped opcode. */
int scan_async_sugar_wrap(scanner *scn, hlo_instruction *in, hlo_opcode wrapped, const char *comp_name,
                          hlo_computation **made);
/* Once called computations are resolved, XLA's late binding: the
 * computations made for sugared starts (made) take the parameter and
 * result shapes of the computation a wrapped call or fusion calls, then
 * those of each sugared update and done (later, in text order). */
int scan_async_late_binding(scanner *scn, hlo_computation *const *made, int nmade, hlo_instruction *const *later,
                            int nlater);

/* The stack frame index section after the module header (stack_frames.c):
 * *out is NULL when the text has none. */
int scan_stack_frames(scanner *scn, hlo_stack_frames **out);

/* Give the instructions in anon (written as nested operands) the names
 * XLA's name uniquer makes, "<opcode>.anon[.N]", registering every other
 * instruction of comps in order (parse_names.c); the computations in skip
 * (made by the parser) take no part.  Sorts anon. */
int scan_name_anonymous(hlo_arena *scratch, hlo_arena *ir, hlo_computation **comps, int ncomps,
                        hlo_instruction **anon, int nanon, hlo_computation *const *skip, int nskip);

#endif
