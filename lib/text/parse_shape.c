/* parse_shape.c - shapes and layouts:
 *   shape  -> '(' [shape {',' shape}] ')' | type '[' [dim {',' dim}] ']' [layout]
 *   dim    -> INT | '<=' INT | '?'
 *   layout -> '{' [INT {',' INT}] [':' ext] '}'   (no blank before '{') */
#include <string.h>

#include "text/scan.h"

enum { MAX_RANK = 256 };

/* "b(" (spaces allowed before the parenthesis) opens a buffer shape. */
static bool at_buffer_shape(const scanner *scn) {
  size_t p = scn->pos;
  if (p + 1 >= scn->end || scn->s[p] != 'b') return false;
  p++;
  while (p < scn->end && (scn->s[p] == ' ' || scn->s[p] == '\t')) p++;
  return p < scn->end && scn->s[p] == '(';
}

/* The first position at or after p that is not a blank: XLA's lexer
 * reads a shape as tokens, so "s32 [4]" is "s32[4]". */
static size_t blanks_after(const scanner *scn, size_t p) {
  while (p < scn->end && (scn->s[p] == ' ' || scn->s[p] == '\t' || scn->s[p] == '\n' || scn->s[p] == '\r')) p++;
  return p;
}

bool scan_at_shape(scanner *scn) {
  scan_skip(scn);
  if (scn->pos >= scn->end) return false;
  if (scn->s[scn->pos] == '(' || at_buffer_shape(scn)) return true;
  size_t p = scn->pos;
  while (p < scn->end && ((scn->s[p] >= 'a' && scn->s[p] <= 'z') || (scn->s[p] >= '0' && scn->s[p] <= '9')))
    p++;
  hlo_type t;
  size_t q = blanks_after(scn, p);
  if (q < scn->end && scn->s[q] == '[' && hlo_type_lookup(scn->s + scn->pos, p - scn->pos, &t)) {
    scn->seen_at = scn->pos + 1;
    scn->seen_end = p;
    scn->seen_type = t;
    return true;
  }
  return false;
}

/* Parse "T(8,128)(2,1)", "E(4)", "S(1)" out of the layout extension text. */
static int parse_layout_ext(scanner *scn, hlo_layout *l, size_t st, size_t en) {
  const char *s = scn->s;
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
          if (q >= en || s[q] < '0' || s[q] > '9') return scan_errorf(scn, q, "malformed layout tile");
          while (q < en && s[q] >= '0' && s[q] <= '9') {
            if (v > INT64_MAX / 10 - 10) return scan_errorf(scn, q, "layout tile out of range");
            v = v * 10 + (s[q++] - '0');
          }
          if (n < 64) dims[n++] = neg ? -v : v;
        }
        if (q >= en) return scan_errorf(scn, p, "unterminated layout tile");
        if (ntiles < 16) {
          tiles[ntiles].n = n;
          tiles[ntiles].dims = hlo_arena_array(scn->a, (size_t)n, sizeof(int64_t));
          if (n && !tiles[ntiles].dims) return scan_errorf(scn, p, "out of memory");
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
    l->tiles = hlo_arena_array(scn->a, (size_t)ntiles, sizeof(hlo_tile));
    if (!l->tiles) return scan_errorf(scn, st, "out of memory");
    memcpy(l->tiles, tiles, (size_t)ntiles * sizeof(hlo_tile));
    l->ntiles = ntiles;
  }
  return HLO_OK;
}

/* The items after ':' in a layout, in the one order XLA's parser reads them;
 * an item out of order, repeated or unknown fails (SC may repeat). */
static const char *const LAYOUT_ITEMS[] = {"D", "T", "L", "#", "*", "E", "S", "SC", "P", "M"};
enum { ITEM_D = 0, ITEM_SC = 7, ITEM_P = 8, NITEMS = 10 };

static size_t skip_ws(const char *s, size_t p, size_t en) {
  while (p < en && (s[p] == ' ' || s[p] == '\t')) p++;
  return p;
}

/* D(...): dim level types D, C, S or H, each optionally followed by + and ~;
 * *sparse is set when one is not D. */
static int check_dim_level_types(scanner *scn, size_t p, size_t close, bool *sparse) {
  const char *s = scn->s;
  p = skip_ws(s, p, close);
  while (p < close) {
    if (s[p] != 'D' && s[p] != 'C' && s[p] != 'S' && s[p] != 'H')
      return scan_errorf(scn, p, "expected a DimLevelType abbreviation (D, C, S or H, then optionally + and ~)");
    *sparse |= s[p] != 'D';
    p++;
    if (p < close && s[p] == '+') p++;
    if (p < close && s[p] == '~') p++;
    p = skip_ws(s, p, close);
    if (p < close && s[p] != ',')
      return scan_errorf(scn, p, "expected a DimLevelType abbreviation (D, C, S or H, then optionally + and ~)");
    if (p < close) p = skip_ws(s, p + 1, close);
  }
  return HLO_OK;
}

static int check_layout_items(scanner *scn, size_t st, size_t en) {
  const char *s = scn->s;
  int last = -1;
  bool sparse = false;
  size_t p = skip_ws(s, st, en);
  while (p < en) {
    int item = -1;
    for (int i = NITEMS - 1; i >= 0 && item < 0; i--) {
      size_t n = strlen(LAYOUT_ITEMS[i]);
      if (p + n < en && strncmp(s + p, LAYOUT_ITEMS[i], n) == 0 && s[skip_ws(s, p + n, en)] == '(') item = i;
    }
    if (item < 0) return scan_errorf(scn, p, "unknown layout item: expected D, T, L, #, *, E, S, SC, P or M followed by '('");
    if (item < last || (item == last && item != ITEM_SC))
      return scan_errorf(scn, p, "layout item %s(...) is out of place: the order is D T L # * E S SC P M, each once",
                         LAYOUT_ITEMS[item]);
    last = item;
    size_t open = skip_ws(s, p + strlen(LAYOUT_ITEMS[item]), en), q = open;
    /* T takes several parenthesised tiles, SC several split configs; the
     * others one balanced group */
    do {
      int depth = 0;
      do {
        if (s[q] == '(') depth++;
        else if (s[q] == ')') depth--;
        q++;
      } while (q < en && depth > 0);
      if (depth) return scan_errorf(scn, open, "unterminated layout item %s(...)", LAYOUT_ITEMS[item]);
    } while ((item == 1 || item == ITEM_SC) && q < en && s[q] == '(');
    if (item == ITEM_D && check_dim_level_types(scn, open + 1, q - 1, &sparse)) return HLO_ERR;
    if (item == ITEM_P && !sparse)
      return scan_errorf(scn, p, "Layout has physical shape, but is not for a sparse array (P(...) is for sparse layouts only)");
    p = skip_ws(s, q, en);
  }
  return HLO_OK;
}

static int parse_layout_new(scanner *scn, hlo_shape *sh);

hlo_layout *scan_default_layout(scanner *scn, int rank) {
  if (!scn->default_layouts[rank]) {
    hlo_shape tmp = {.type = HLO_F32, .rank = rank};
    /* shared by later shapes: never in scratch */
    if (hlo_shape_set_default_layouts(scn->ir ? scn->ir : scn->a, &tmp)) return NULL;
    scn->default_layouts[rank] = tmp.layout;
  }
  return scn->default_layouts[rank];
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
static int parse_layout(scanner *scn, hlo_shape *sh) {
  size_t st = scn->pos;
  if (sh->rank < 9) {
    size_t n = default_layout_text(scn->s, st, scn->end, sh->rank);
    if (n) {
      if (!(sh->layout = scan_default_layout(scn, sh->rank))) return scan_errorf(scn, st, "out of memory");
      scn->pos = st + n;
      return HLO_OK;
    }
  }
  if (!scn->layouts) return parse_layout_new(scn, sh);
  const char *close = memchr(scn->s + st, '}', scn->end - st);
  if (close) {
    size_t n = (size_t)(close - (scn->s + st)) + 1;
    hlo_layout *l = hlo_strmap_getn(scn->layouts, scn->s + st, n);
    if (l && l->n == sh->rank) {
      sh->layout = l;
      scn->pos = st + n;
      return HLO_OK;
    }
  }
  if (parse_layout_new(scn, sh)) return HLO_ERR;
  /* a layout parsed into scratch (an operand shape) must not be shared */
  if (close && scn->pos == (size_t)(close - scn->s) + 1 && (!scn->ir || scn->a == scn->ir)) {
    char *key = hlo_arena_strndup(scn->scratch, scn->s + st, scn->pos - st);
    if (!key || hlo_strmap_put(scn->layouts, key, sh->layout, NULL)) return scan_errorf(scn, st, "out of memory");
  }
  return HLO_OK;
}

static int parse_layout_new(scanner *scn, hlo_shape *sh) {
  size_t st = scn->pos;
  scn->pos++; /* '{' */
  int64_t m2m[MAX_RANK];
  int n = 0;
  hlo_layout *l = hlo_arena_alloc(scn->a, sizeof *l);
  if (!l) return scan_errorf(scn, st, "out of memory");
  if (!scan_peek(scn, '}') && !scan_peek(scn, ':')) {
    do {
      size_t at = scn->pos;
      int64_t v;
      if (scan_int(scn, &v)) return HLO_ERR;
      if (n >= MAX_RANK) return scan_errorf(scn, at, "layout has too many dimensions");
      m2m[n++] = v;
    } while (scan_accept(scn, ','));
  }
  if (scan_accept(scn, ':')) {
    size_t es = scn->pos, p = es;
    int depth = 0;
    while (p < scn->end && (scn->s[p] != '}' || depth > 0) && scn->s[p] != '\n') {
      if (scn->s[p] == '(') depth++;
      if (scn->s[p] == ')') depth--;
      p++;
    }
    if (p >= scn->end || scn->s[p] != '}') return scan_errorf(scn, st, "unterminated layout");
    l->ext = hlo_arena_strndup(scn->a, scn->s + es, p - es);
    if (!l->ext) return scan_errorf(scn, st, "out of memory");
    if (check_layout_items(scn, es, p) || parse_layout_ext(scn, l, es, p)) return HLO_ERR;
    scn->pos = p;
  }
  if (scan_expect(scn, '}', "to close the layout")) return HLO_ERR;
  if (n != sh->rank && !(n == 0 && sh->rank == 0))
    return scan_errorf(scn, st, "Dimensions size is %d, but minor to major size is %d.", sh->rank, n);
  bool seen[MAX_RANK] = {false};
  for (int i = 0; i < n; i++) {
    if (m2m[i] < 0 || m2m[i] >= sh->rank)
      return scan_errorf(scn, st, "layout names dimension %lld but the shape has rank %d", (long long)m2m[i],
                       sh->rank);
    if (seen[m2m[i]])
      return scan_errorf(scn, st, "layout names dimension %lld twice: it must be a permutation of 0..%d",
                       (long long)m2m[i], sh->rank - 1);
    seen[m2m[i]] = true;
  }
  l->n = n;
  if (n) {
    l->minor_to_major = hlo_arena_array(scn->a, (size_t)n, sizeof(int64_t));
    if (!l->minor_to_major) return scan_errorf(scn, st, "out of memory");
    memcpy(l->minor_to_major, m2m, (size_t)n * sizeof(int64_t));
  }
  sh->layout = l;
  return HLO_OK;
}

static int parse_tuple(scanner *scn, hlo_shape *out) {
  size_t st = scn->pos;
  if (scan_enter(scn)) return HLO_ERR; /* points at the '(' one level too deep */
  scn->pos++;                        /* '(' */
  int cap = 4, n = 0;
  hlo_shape *elems = hlo_arena_array(scn->a, (size_t)cap, sizeof *elems);
  int rc = HLO_OK;
  if (!elems) rc = scan_errorf(scn, st, "out of memory");
  if (!rc && !scan_peek(scn, ')')) {
    do {
      if (n == cap) {
        hlo_shape *ne = hlo_arena_array(scn->a, (size_t)cap * 2, sizeof *elems);
        if (!ne) { rc = scan_errorf(scn, st, "out of memory"); break; }
        memcpy(ne, elems, (size_t)n * sizeof *elems);
        elems = ne;
        cap *= 2;
      }
      if ((rc = scan_shape(scn, &elems[n]))) break;
      n++;
    } while (scan_accept(scn, ','));
  }
  if (!rc) rc = scan_expect(scn, ')', "to close the tuple shape");
  scan_leave(scn);
  if (rc) return HLO_ERR;
  memset(out, 0, sizeof *out);
  out->type = HLO_TUPLE;
  out->ntuple = n;
  out->tuple = elems;
  return HLO_OK;
}

int scan_shape(scanner *scn, hlo_shape *out) {
  scan_skip(scn);
  if (scn->pos < scn->end && scn->s[scn->pos] == '(') return parse_tuple(scn, out);
  if (at_buffer_shape(scn)) { /* XLA's buffer shape: b(array shape) */
    size_t at = scn->pos;
    scn->pos++;
    scan_skip(scn);
    scn->pos++; /* '(' */
    if (scan_shape(scn, out)) return HLO_ERR;
    if (out->type == HLO_TUPLE || out->buffer || !hlo_type_is_array(out->type))
      return scan_errorf(scn, at, "a buffer shape b(...) holds an array shape");
    out->buffer = true;
    if (!scan_accept(scn, ')')) return scan_errorf(scn, (scan_skip(scn), scn->pos), "expects ')' at the end of buffer shape.");
    return HLO_OK;
  }
  size_t st = scn->pos, p = st;
  hlo_type t;
  if (scn->seen_at == st + 1) { /* scan_at_shape just read this type */
    p = scn->seen_end;
    t = scn->seen_type;
  } else {
    while (p < scn->end && ((scn->s[p] >= 'a' && scn->s[p] <= 'z') || (scn->s[p] >= '0' && scn->s[p] <= '9')))
      p++;
    if (p == st || !hlo_type_lookup(scn->s + st, p - st, &t)) {
    if (p == st) return scan_errorf(scn, st, "expected primitive type (a shape)");
      return scan_errorf(scn, st, "unknown element type '%.*s'", (int)(p - st), scn->s + st);
    }
  }
  p = blanks_after(scn, p);
  scn->pos = p;
  if (p >= scn->end || scn->s[p] != '[')
    return scan_errorf(scn, p, "expected '[' after element type '%s'", hlo_type_name(t));
  scn->pos++;
  memset(out, 0, sizeof *out);
  out->type = t;
  int64_t dims[MAX_RANK];
  bool dyn[MAX_RANK];
  bool any_dyn = false;
  int n = 0;
  /* fast path: plain "d0,d1,...]" without blanks or dynamic markers */
  {
    const char *s = scn->s;
    size_t q = scn->pos, end = scn->end;
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
      scn->pos = q + 1;
      goto dims_done;
    }
    n = 0;
  }
  if (!scan_peek(scn, ']')) {
    do {
      scan_skip(scn);
      size_t at = scn->pos;
      if (n >= MAX_RANK) return scan_errorf(scn, at, "shape has more than %d dimensions", MAX_RANK);
      dyn[n] = false;
      if (scan_accept(scn, '?')) {
        dims[n] = HLO_DIM_UNBOUNDED;
        dyn[n] = any_dyn = true;
      } else {
        if (scn->pos + 1 < scn->end && scn->s[scn->pos] == '<' && scn->s[scn->pos + 1] == '=') {
          scn->pos += 2;
          dyn[n] = any_dyn = true;
        }
        if (scan_int(scn, &dims[n])) return HLO_ERR;
        if (dims[n] < 0) return scan_errorf(scn, at, "negative dimension size %lld", (long long)dims[n]);
      }
      n++;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, ']', "to close the dimensions")) return HLO_ERR;
dims_done:
  if (!hlo_type_is_array(t) && n) return scan_errorf(scn, st, "%s shapes have no dimensions", hlo_type_name(t));
  out->rank = n;
  if (n) {
    out->dims = hlo_arena_array(scn->a, (size_t)n, sizeof(int64_t));
    if (!out->dims) return scan_errorf(scn, st, "out of memory");
    memcpy(out->dims, dims, (size_t)n * sizeof(int64_t));
    if (any_dyn) {
      out->dynamic = hlo_arena_array(scn->a, (size_t)n, sizeof(bool));
      if (!out->dynamic) return scan_errorf(scn, st, "out of memory");
      memcpy(out->dynamic, dyn, (size_t)n * sizeof(bool));
    }
  }
  /* A layout '{' follows ']' on the same line (blanks allowed, as XLA
   * accepts "f32[2,3] {0, 1}") and starts with a digit, ':' or '}'; this
   * tells it from a computation body after a scalar result shape. */
  size_t q = scn->pos;
  while (q < scn->end && (scn->s[q] == ' ' || scn->s[q] == '\t')) q++;
  if (q < scn->end && scn->s[q] == '{') {
    size_t r = q + 1;
    while (r < scn->end && (scn->s[r] == ' ' || scn->s[r] == '\t')) r++;
    char c = r < scn->end ? scn->s[r] : 0;
    if ((c >= '0' && c <= '9') || c == '}' || c == ':') {
      scn->pos = q;
      return parse_layout(scn, out);
    }
  }
  return HLO_OK;
}

int hlo_parse_shape(const hlo_src *src, hlo_arena *arena, hlo_shape *out, hlo_diags *d) {
  scanner scn = {.src = src, .s = src->text, .pos = 0, .end = src->len, .d = d, .a = arena,
                .max_depth = 256};
  if (scan_shape(&scn, out)) return HLO_ERR;
  if (!scan_at_end(&scn)) return scan_errorf(&scn, scn.pos, "unexpected text after the shape");
  return HLO_OK;
}
