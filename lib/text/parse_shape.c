/* parse_shape.c - shapes and layouts:
 *   shape  -> '(' [shape {',' shape}] ')' | type '[' [dim {',' dim}] ']' [layout]
 *   dim    -> INT | '<=' INT | '?'
 *   layout -> '{' [INT {',' INT}] [':' ext] '}'   (no blank before '{') */
#include <string.h>

#include "text/scan.h"

enum { MAX_RANK = 256 };

bool sc_at_shape(scanner *sc) {
  sc_skip(sc);
  if (sc->pos >= sc->end) return false;
  if (sc->s[sc->pos] == '(') return true;
  size_t p = sc->pos;
  while (p < sc->end && ((sc->s[p] >= 'a' && sc->s[p] <= 'z') || (sc->s[p] >= '0' && sc->s[p] <= '9')))
    p++;
  hlo_type t;
  if (p < sc->end && sc->s[p] == '[' && hlo_type_lookup(sc->s + sc->pos, p - sc->pos, &t)) {
    sc->seen_at = sc->pos + 1;
    sc->seen_end = p;
    sc->seen_type = t;
    return true;
  }
  return false;
}

/* Parse "T(8,128)(2,1)", "E(4)", "S(1)" out of the layout extension text. */
static int parse_layout_ext(scanner *sc, hlo_layout *l, size_t st, size_t en) {
  const char *s = sc->s;
  size_t p = st;
  int ntiles = 0;
  hlo_tile tiles[16];
  while (p < en) {
    char k = s[p];
    if (k == 'T' && p + 1 < en && s[p + 1] == '(') {
      p++;
      while (p < en && s[p] == '(') {
        size_t q = p + 1;
        int n = 0;
        int64_t dims[64];
        while (q < en && s[q] != ')') {
          if (s[q] == ',' || s[q] == ' ') { q++; continue; }
          if (s[q] == '*') { if (n < 64) dims[n++] = HLO_TILE_COMBINE; q++; continue; }
          int64_t v = 0;
          bool neg = false;
          if (s[q] == '-') { neg = true; q++; }
          if (q >= en || s[q] < '0' || s[q] > '9') return sc_errorf(sc, q, "malformed layout tile");
          while (q < en && s[q] >= '0' && s[q] <= '9') {
            if (v > INT64_MAX / 10 - 10) return sc_errorf(sc, q, "layout tile out of range");
            v = v * 10 + (s[q++] - '0');
          }
          if (n < 64) dims[n++] = neg ? -v : v;
        }
        if (q >= en) return sc_errorf(sc, p, "unterminated layout tile");
        if (ntiles < 16) {
          tiles[ntiles].n = n;
          tiles[ntiles].dims = hlo_arena_array(sc->a, (size_t)n, sizeof(int64_t));
          if (n && !tiles[ntiles].dims) return sc_errorf(sc, p, "out of memory");
          if (n) memcpy(tiles[ntiles].dims, dims, (size_t)n * sizeof(int64_t));
          ntiles++;
        }
        p = q + 1;
      }
      continue;
    }
    if ((k == 'E' || k == 'S') && p + 1 < en && s[p + 1] == '(') {
      int64_t v = 0;
      size_t q = p + 2;
      while (q < en && s[q] >= '0' && s[q] <= '9' && v < INT64_MAX / 10 - 10) v = v * 10 + (s[q++] - '0');
      if (k == 'E') l->element_size_bits = v;
      else l->memory_space = v;
      p = q;
      continue;
    }
    p++;
  }
  if (ntiles) {
    l->tiles = hlo_arena_array(sc->a, (size_t)ntiles, sizeof(hlo_tile));
    if (!l->tiles) return sc_errorf(sc, st, "out of memory");
    memcpy(l->tiles, tiles, (size_t)ntiles * sizeof(hlo_tile));
    l->ntiles = ntiles;
  }
  return HLO_OK;
}

static int parse_layout_new(scanner *sc, hlo_shape *sh);

hlo_layout *sc_default_layout(scanner *sc, int rank) {
  if (!sc->default_layouts[rank]) {
    hlo_shape tmp = {.type = HLO_F32, .rank = rank};
    /* shared by later shapes: never in scratch */
    if (hlo_shape_set_default_layouts(sc->ir ? sc->ir : sc->a, &tmp)) return NULL;
    sc->default_layouts[rank] = tmp.layout;
  }
  return sc->default_layouts[rank];
}

/* Is the text at p "{r-1,...,1,0}" (the default layout of rank r)? Returns
 * its length or 0. */
static size_t default_layout_text(const char *s, size_t p, size_t end, int rank) {
  size_t q = p + 1;
  for (int d = rank - 1; d >= 0; d--) {
    if (q >= end || s[q] != '0' + d) return 0;
    q++;
    if (d && (q >= end || s[q++] != ',')) return 0;
  }
  return q < end && s[q] == '}' ? q + 1 - p : 0;
}

/* Identical explicit layouts (same text, same rank) share one object. */
static int parse_layout(scanner *sc, hlo_shape *sh) {
  size_t st = sc->pos;
  if (sh->rank < 9) {
    size_t n = default_layout_text(sc->s, st, sc->end, sh->rank);
    if (n) {
      if (!(sh->layout = sc_default_layout(sc, sh->rank))) return sc_errorf(sc, st, "out of memory");
      sc->pos = st + n;
      return HLO_OK;
    }
  }
  if (!sc->layouts) return parse_layout_new(sc, sh);
  const char *close = memchr(sc->s + st, '}', sc->end - st);
  if (close) {
    size_t n = (size_t)(close - (sc->s + st)) + 1;
    hlo_layout *l = hlo_strmap_getn(sc->layouts, sc->s + st, n);
    if (l && l->n == sh->rank) {
      sh->layout = l;
      sc->pos = st + n;
      return HLO_OK;
    }
  }
  if (parse_layout_new(sc, sh)) return HLO_ERR;
  /* a layout parsed into scratch (an operand shape) must not be shared */
  if (close && sc->pos == (size_t)(close - sc->s) + 1 && (!sc->ir || sc->a == sc->ir)) {
    char *key = hlo_arena_strndup(sc->scratch, sc->s + st, sc->pos - st);
    if (!key || hlo_strmap_put(sc->layouts, key, sh->layout, NULL)) return sc_errorf(sc, st, "out of memory");
  }
  return HLO_OK;
}

static int parse_layout_new(scanner *sc, hlo_shape *sh) {
  size_t st = sc->pos;
  sc->pos++; /* '{' */
  int64_t m2m[MAX_RANK];
  int n = 0;
  hlo_layout *l = hlo_arena_alloc(sc->a, sizeof *l);
  if (!l) return sc_errorf(sc, st, "out of memory");
  if (!sc_peek(sc, '}') && !sc_peek(sc, ':')) {
    do {
      size_t at = sc->pos;
      int64_t v;
      if (sc_int(sc, &v)) return HLO_ERR;
      if (n >= MAX_RANK) return sc_errorf(sc, at, "layout has too many dimensions");
      m2m[n++] = v;
    } while (sc_accept(sc, ','));
  }
  if (sc_accept(sc, ':')) {
    size_t es = sc->pos, p = es;
    int depth = 0;
    while (p < sc->end && (sc->s[p] != '}' || depth > 0) && sc->s[p] != '\n') {
      if (sc->s[p] == '(') depth++;
      if (sc->s[p] == ')') depth--;
      p++;
    }
    if (p >= sc->end || sc->s[p] != '}') return sc_errorf(sc, st, "unterminated layout");
    l->ext = hlo_arena_strndup(sc->a, sc->s + es, p - es);
    if (!l->ext) return sc_errorf(sc, st, "out of memory");
    if (parse_layout_ext(sc, l, es, p)) return HLO_ERR;
    sc->pos = p;
  }
  if (sc_expect(sc, '}', "to close the layout")) return HLO_ERR;
  if (n != sh->rank && !(n == 0 && sh->rank == 0))
    return sc_errorf(sc, st, "layout has %d dimensions but the shape has rank %d", n, sh->rank);
  bool seen[MAX_RANK] = {false};
  for (int i = 0; i < n; i++) {
    if (m2m[i] < 0 || m2m[i] >= sh->rank)
      return sc_errorf(sc, st, "layout names dimension %lld but the shape has rank %d", (long long)m2m[i],
                       sh->rank);
    if (seen[m2m[i]])
      return sc_errorf(sc, st, "layout names dimension %lld twice: it must be a permutation of 0..%d",
                       (long long)m2m[i], sh->rank - 1);
    seen[m2m[i]] = true;
  }
  l->n = n;
  if (n) {
    l->minor_to_major = hlo_arena_array(sc->a, (size_t)n, sizeof(int64_t));
    if (!l->minor_to_major) return sc_errorf(sc, st, "out of memory");
    memcpy(l->minor_to_major, m2m, (size_t)n * sizeof(int64_t));
  }
  sh->layout = l;
  return HLO_OK;
}

static int parse_tuple(scanner *sc, hlo_shape *out) {
  size_t st = sc->pos;
  if (sc_enter(sc)) return HLO_ERR; /* points at the '(' one level too deep */
  sc->pos++;                        /* '(' */
  int cap = 4, n = 0;
  hlo_shape *elems = hlo_arena_array(sc->a, (size_t)cap, sizeof *elems);
  int rc = HLO_OK;
  if (!elems) rc = sc_errorf(sc, st, "out of memory");
  if (!rc && !sc_peek(sc, ')')) {
    do {
      if (n == cap) {
        hlo_shape *ne = hlo_arena_array(sc->a, (size_t)cap * 2, sizeof *elems);
        if (!ne) { rc = sc_errorf(sc, st, "out of memory"); break; }
        memcpy(ne, elems, (size_t)n * sizeof *elems);
        elems = ne;
        cap *= 2;
      }
      if ((rc = sc_shape(sc, &elems[n]))) break;
      n++;
    } while (sc_accept(sc, ','));
  }
  if (!rc) rc = sc_expect(sc, ')', "to close the tuple shape");
  sc_leave(sc);
  if (rc) return HLO_ERR;
  memset(out, 0, sizeof *out);
  out->type = HLO_TUPLE;
  out->ntuple = n;
  out->tuple = elems;
  return HLO_OK;
}

int sc_shape(scanner *sc, hlo_shape *out) {
  sc_skip(sc);
  if (sc->pos < sc->end && sc->s[sc->pos] == '(') return parse_tuple(sc, out);
  size_t st = sc->pos, p = st;
  hlo_type t;
  if (sc->seen_at == st + 1) { /* sc_at_shape just read this type */
    p = sc->seen_end;
    t = sc->seen_type;
  } else {
    while (p < sc->end && ((sc->s[p] >= 'a' && sc->s[p] <= 'z') || (sc->s[p] >= '0' && sc->s[p] <= '9')))
      p++;
    if (p == st || !hlo_type_lookup(sc->s + st, p - st, &t)) {
    if (p == st) return sc_errorf(sc, st, "expected a shape");
      return sc_errorf(sc, st, "unknown element type '%.*s'", (int)(p - st), sc->s + st);
    }
  }
  sc->pos = p;
  if (p >= sc->end || sc->s[p] != '[')
    return sc_errorf(sc, p, "expected '[' after element type '%s'", hlo_type_name(t));
  sc->pos++;
  memset(out, 0, sizeof *out);
  out->type = t;
  int64_t dims[MAX_RANK];
  bool dyn[MAX_RANK];
  bool any_dyn = false;
  int n = 0;
  /* fast path: plain "d0,d1,...]" without blanks or dynamic markers */
  {
    const char *s = sc->s;
    size_t q = sc->pos, end = sc->end;
    bool ok = true;
    while (q < end && s[q] != ']') {
      if (s[q] < '0' || s[q] > '9' || n >= MAX_RANK) { ok = false; break; }
      int64_t v = 0;
      while (q < end && s[q] >= '0' && s[q] <= '9' && v < (INT64_MAX - 9) / 10) v = v * 10 + (s[q++] - '0');
      if (q < end && s[q] >= '0' && s[q] <= '9') { ok = false; break; }
      dyn[n] = false;
      dims[n++] = v;
      if (q < end && s[q] == ',') {
        q++;
        if (q < end && s[q] == ']') { ok = false; break; }
      } else if (q >= end || s[q] != ']') { ok = false; break; }
    }
    if (ok && q < end) {
      sc->pos = q + 1;
      goto dims_done;
    }
    n = 0;
  }
  if (!sc_peek(sc, ']')) {
    do {
      sc_skip(sc);
      size_t at = sc->pos;
      if (n >= MAX_RANK) return sc_errorf(sc, at, "shape has more than %d dimensions", MAX_RANK);
      dyn[n] = false;
      if (sc_accept(sc, '?')) {
        dims[n] = HLO_DIM_UNBOUNDED;
        dyn[n] = any_dyn = true;
      } else {
        if (sc->pos + 1 < sc->end && sc->s[sc->pos] == '<' && sc->s[sc->pos + 1] == '=') {
          sc->pos += 2;
          dyn[n] = any_dyn = true;
        }
        if (sc_int(sc, &dims[n])) return HLO_ERR;
        if (dims[n] < 0) return sc_errorf(sc, at, "negative dimension size %lld", (long long)dims[n]);
      }
      n++;
    } while (sc_accept(sc, ','));
  }
  if (sc_expect(sc, ']', "to close the dimensions")) return HLO_ERR;
dims_done:
  if (!hlo_type_is_array(t) && n) return sc_errorf(sc, st, "%s shapes have no dimensions", hlo_type_name(t));
  out->rank = n;
  if (n) {
    out->dims = hlo_arena_array(sc->a, (size_t)n, sizeof(int64_t));
    if (!out->dims) return sc_errorf(sc, st, "out of memory");
    memcpy(out->dims, dims, (size_t)n * sizeof(int64_t));
    if (any_dyn) {
      out->dynamic = hlo_arena_array(sc->a, (size_t)n, sizeof(bool));
      if (!out->dynamic) return sc_errorf(sc, st, "out of memory");
      memcpy(out->dynamic, dyn, (size_t)n * sizeof(bool));
    }
  }
  /* A layout '{' follows ']' on the same line (blanks allowed, as XLA
   * accepts "f32[2,3] {0, 1}") and starts with a digit, ':' or '}'; this
   * tells it from a computation body after a scalar result shape. */
  size_t q = sc->pos;
  while (q < sc->end && (sc->s[q] == ' ' || sc->s[q] == '\t')) q++;
  if (q < sc->end && sc->s[q] == '{') {
    size_t r = q + 1;
    while (r < sc->end && (sc->s[r] == ' ' || sc->s[r] == '\t')) r++;
    char c = r < sc->end ? sc->s[r] : 0;
    if ((c >= '0' && c <= '9') || c == '}' || c == ':') {
      sc->pos = q;
      return parse_layout(sc, out);
    }
  }
  return HLO_OK;
}

int hlo_parse_shape(const hlo_src *src, hlo_arena *arena, hlo_shape *out, hlo_diags *d) {
  scanner sc = {.src = src, .s = src->text, .pos = 0, .end = src->len, .d = d, .a = arena,
                .max_depth = 256};
  if (sc_shape(&sc, out)) return HLO_ERR;
  if (!sc_at_end(&sc)) return sc_errorf(&sc, sc.pos, "unexpected text after the shape");
  return HLO_OK;
}
