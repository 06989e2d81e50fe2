/* scan.h - the character-level scanner shared by the HLO text parsers
 * (module structure, shapes, literals, attribute values).  Whitespace and
 * comments (including XLA's index annotations) are skipped by sc_skip. */
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
  /* sc_at_shape's finding, reused by the sc_shape that follows it:
   * element type at offset seen_at - 1 ending at seen_end (0: none) */
  size_t seen_at, seen_end;
  hlo_type seen_type;
} scanner;

/* The shared default layout for rank r (< 9) in the module arena, or NULL
 * on allocation failure. */
hlo_layout *sc_default_layout(scanner *sc, int rank);

void sc_skip_slow(scanner *sc);
/* Skip blanks and comments (inline: the next character is usually not one). */
static inline void sc_skip(scanner *sc) {
  if (sc->pos < sc->end) {
    unsigned char c = (unsigned char)sc->s[sc->pos];
    if (c > ' ' && c != '/') return;
  }
  sc_skip_slow(sc);
}
/* True if the next non-blank character is c (nothing consumed). */
static inline bool sc_peek(scanner *sc, char c) {
  sc_skip(sc);
  return sc->pos < sc->end && sc->s[sc->pos] == c;
}
/* Consume c if it is next. */
static inline bool sc_accept(scanner *sc, char c) {
  if (!sc_peek(sc, c)) return false;
  sc->pos++;
  return true;
}
int sc_expect_failed(scanner *sc, char c, const char *context);
/* Consume c or record "expected ..." and return HLO_ERR. */
static inline int sc_expect(scanner *sc, char c, const char *context) {
  return sc_accept(sc, c) ? HLO_OK : sc_expect_failed(sc, c, context);
}
/* Consume the exact text kw if next and not followed by a name character. */
bool sc_accept_kw(scanner *sc, const char *kw);
bool sc_at_end(scanner *sc);
extern const unsigned char sc_name_chars[256]; /* 1 for [A-Za-z0-9_.], 2 for '-' */
static inline bool sc_is_name_char(int c) { return sc_name_chars[(unsigned char)c] != 0; }
/* A name: optional '%' then name characters.  Returns its length (0 if
 * none; nothing consumed then); *start points into the source. */
size_t sc_name(scanner *sc, const char **start, bool *had_percent);
/* A name copied into the arena; HLO_ERR with a diagnostic if absent. */
int sc_name_dup(scanner *sc, const char **out, const char *what);
int sc_int(scanner *sc, int64_t *out);
/* A quoted string, unescaped into the arena. */
int sc_string(scanner *sc, const char **out);
/* The verbatim text of one balanced value: {...}, (...), [...], "..." or a
 * run of characters up to ',' ')' '}' or a newline at depth 0. */
int sc_raw_value(scanner *sc, const char **out);
int sc_errorf(scanner *sc, size_t off, const char *fmt, ...) HLO_PRINTF(3, 4);
/* Nesting guard: HLO_ERR with a diagnostic beyond max_depth. */
int sc_enter(scanner *sc);
void sc_leave(scanner *sc);

/* Shapes and layouts (parse_shape.c). */
int sc_shape(scanner *sc, hlo_shape *out);
bool sc_at_shape(scanner *sc);
/* Literals (parse_literal.c): the value text for a constant of shape s. */
int sc_literal(scanner *sc, const hlo_shape *s, hlo_literal *out);
/* Attribute value of kind k (parse_attr.c); computation and instruction
 * references are left unresolved in *a with their names kept, see
 * parse_attr.c. */
int sc_attr_value(scanner *sc, hlo_attr *a);

#endif
