/* scan.c - character-level scanning primitives for HLO text. */
#include "text/scan.h"

#include <stdio.h>
#include <string.h>

int sc_errorf(scanner *sc, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hlo_vdiagf(sc->d, HLO_SEV_ERROR, sc->src, off, fmt, ap);
  va_end(ap);
  sc->nerrors++;
  return HLO_ERR;
}

#define R6(c) [c] = 1, [c + 1] = 1, [c + 2] = 1, [c + 3] = 1, [c + 4] = 1, [c + 5] = 1
#define R10(c) R6(c), [c + 6] = 1, [c + 7] = 1, [c + 8] = 1, [c + 9] = 1
const unsigned char sc_name_chars[256] = {
    R10('0'), R10('a'), R10('k'), R6('u'), R10('A'), R10('K'), R6('U'), ['_'] = 1, ['.'] = 1, ['-'] = 2};
#undef R10
#undef R6

void sc_skip_slow(scanner *sc) {
  const char *s = sc->s;
  size_t p = sc->pos, e = sc->end;
  for (;;) {
    while (p < e && (s[p] == ' ' || s[p] == '\n' || s[p] == '\t' || s[p] == '\r')) p++;
    if (p + 1 < e && s[p] == '/' && s[p + 1] == '/') {
      while (p < e && s[p] != '\n') p++;
      continue;
    }
    if (p + 1 < e && s[p] == '/' && s[p + 1] == '*') {
      size_t q = p + 2;
      while (q + 1 < e && !(s[q] == '*' && s[q + 1] == '/')) q++;
      if (q + 1 >= e) { /* unterminated comment: leave it for the caller's error */
        break;
      }
      p = q + 2;
      continue;
    }
    break;
  }
  sc->pos = p;
}

bool sc_at_end(scanner *sc) {
  sc_skip(sc);
  return sc->pos >= sc->end;
}


static const char *describe_next(scanner *sc, char *buf, size_t cap) {
  if (sc->pos >= sc->end) return "end of input";
  if (sc->pos + 1 < sc->end && sc->s[sc->pos] == '/' && sc->s[sc->pos + 1] == '*')
    return "a comment that is never closed"; /* sc_skip stops at one */
  unsigned char c = (unsigned char)sc->s[sc->pos];
  if (c >= 0x21 && c < 0x7f) {
    size_t n = 0;
    while (sc->pos + n < sc->end && n < 20 &&
           (sc_is_name_char(sc->s[sc->pos + n]) || (n == 0 && sc->s[sc->pos] == '%')))
      n++;
    if (n <= 1) snprintf(buf, cap, "'%c'", c);
    else snprintf(buf, cap, "'%.*s'", (int)n, sc->s + sc->pos);
  } else {
    snprintf(buf, cap, "byte 0x%02x", c);
  }
  return buf;
}

int sc_expect_failed(scanner *sc, char c, const char *context) {
  char buf[40];
  return sc_errorf(sc, sc->pos, "expected '%c' %s, found %s", c, context,
                   describe_next(sc, buf, sizeof buf));
}


bool sc_accept_kw(scanner *sc, const char *kw) {
  sc_skip(sc);
  size_t n = strlen(kw);
  if (sc->pos + n > sc->end || memcmp(sc->s + sc->pos, kw, n) != 0) return false;
  if (sc->pos + n < sc->end && sc_is_name_char(sc->s[sc->pos + n])) return false;
  sc->pos += n;
  return true;
}

size_t sc_name(scanner *sc, const char **start, bool *had_percent) {
  sc_skip(sc);
  const char *s = sc->s;
  size_t p = sc->pos, end = sc->end;
  bool pct = false;
  if (p < end && s[p] == '%') {
    pct = true;
    p++;
  }
  size_t b = p;
  for (;;) {
    while (p < end && sc_name_chars[(unsigned char)s[p]] == 1) p++;
    if (p >= end || !sc_name_chars[(unsigned char)s[p]]) break;
    if (p + 1 < end && s[p + 1] == '>') break; /* '-' of "->" */
    p++;
  }
  if (p == b || s[b] == '-') return 0;
  *start = sc->s + b;
  if (had_percent) *had_percent = pct;
  sc->pos = p;
  return p - b;
}

int sc_name_dup(scanner *sc, const char **out, const char *what) {
  const char *st;
  size_t n = sc_name(sc, &st, NULL);
  if (!n) {
    char buf[40];
    return sc_errorf(sc, sc->pos, "expected %s, found %s", what, describe_next(sc, buf, sizeof buf));
  }
  *out = hlo_arena_strndup(sc->a, st, n);
  if (!*out) return sc_errorf(sc, sc->pos, "out of memory");
  return HLO_OK;
}

int sc_int(scanner *sc, int64_t *out) {
  sc_skip(sc);
  size_t p = sc->pos, st = p;
  bool neg = false;
  if (p < sc->end && (sc->s[p] == '-' || sc->s[p] == '+')) neg = sc->s[p++] == '-';
  if (p >= sc->end || sc->s[p] < '0' || sc->s[p] > '9') {
    char buf[40];
    return sc_errorf(sc, st, "expected an integer, found %s", describe_next(sc, buf, sizeof buf));
  }
  uint64_t v = 0;
  while (p < sc->end && sc->s[p] >= '0' && sc->s[p] <= '9') {
    unsigned d = (unsigned)(sc->s[p] - '0');
    if (v > (UINT64_MAX - d) / 10) return sc_errorf(sc, st, "integer out of range");
    v = v * 10 + d;
    p++;
  }
  if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
    return sc_errorf(sc, st, "integer out of range");
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  sc->pos = p;
  return HLO_OK;
}

int sc_string(scanner *sc, const char **out) {
  sc_skip(sc);
  size_t st = sc->pos;
  if (st >= sc->end || sc->s[st] != '"') return sc_errorf(sc, st, "expected a quoted string");
  size_t p = st + 1;
  size_t len = 0;
  while (p < sc->end && sc->s[p] != '"') {
    if (sc->s[p] == '\\' && p + 1 < sc->end) p++;
    p++;
    len++;
  }
  if (p >= sc->end) return sc_errorf(sc, st, "unterminated string");
  char *r = hlo_arena_alloc(sc->a, len + 1);
  if (!r) return sc_errorf(sc, st, "out of memory");
  size_t o = 0;
  for (size_t q = st + 1; q < p; q++) {
    char c = sc->s[q];
    if (c == '\\' && q + 1 < p) {
      c = sc->s[++q];
      switch (c) {
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case '0': case '1': case '2': case '3': {
        int v = c - '0', k = 0;
        while (k < 2 && q + 1 < p && sc->s[q + 1] >= '0' && sc->s[q + 1] <= '7') {
          v = v * 8 + (sc->s[++q] - '0');
          k++;
        }
        c = (char)v;
        break;
      }
      default: break; /* \" \\ \' and unknown escapes stand for themselves */
      }
    }
    r[o++] = c;
  }
  r[o] = 0;
  sc->pos = p + 1;
  *out = r;
  return HLO_OK;
}

int sc_raw_value(scanner *sc, const char **out) {
  sc_skip(sc);
  size_t st = sc->pos, p = st;
  enum { MAX_RAW_DEPTH = 256 };
  size_t open[MAX_RAW_DEPTH]; /* offsets of the brackets still open */
  int depth = 0;
  /* the bytes that matter here; everything else is skipped in a tight loop */
  static const unsigned char special[256] = {
      ['"'] = 1, ['{'] = 1, ['('] = 1, ['['] = 1, ['}'] = 1, [')'] = 1, [']'] = 1,
      [','] = 1, ['\n'] = 1, [' '] = 1, ['\r'] = 1, ['\t'] = 1};
  static const unsigned char special_in[256] = {
      ['"'] = 1, ['{'] = 1, ['('] = 1, ['['] = 1, ['}'] = 1, [')'] = 1, [']'] = 1};
  const char *s = sc->s;
  const size_t end = sc->end;
  while (p < end) {
    /* inside brackets only quotes and brackets matter */
    const unsigned char *stop = depth ? special_in : special;
    while (p < end && !stop[(unsigned char)s[p]]) p++;
    if (p >= end) break;
    char c = sc->s[p];
    if (c == '"') { /* jump to the closing quote, skipping escaped ones */
      size_t q = p++;
      for (;;) {
        const char *e = memchr(sc->s + p, '"', sc->end - p);
        if (!e) return sc_errorf(sc, q, "unterminated string");
        size_t ei = (size_t)(e - sc->s), nb = 0;
        while (ei - nb > p && sc->s[ei - nb - 1] == '\\') nb++;
        p = ei + 1;
        if (nb % 2 == 0) break;
      }
      if (depth == 0) break;
      continue;
    }
    if (c == '{' || c == '(' || c == '[') {
      if (depth == MAX_RAW_DEPTH)
        return sc_errorf(sc, p, "attribute value nested deeper than %d levels", MAX_RAW_DEPTH);
      open[depth++] = p;
    } else if (c == '}' || c == ')' || c == ']') {
      if (depth == 0) break;
      char o = sc->s[open[depth - 1]];
      if ((o == '{' && c != '}') || (o == '(' && c != ')') || (o == '[' && c != ']'))
        return sc_errorf(sc, open[depth - 1], "'%c' in attribute value is closed by '%c'", o, c);
      if (--depth == 0) {
        p++;
        break;
      }
    } else if (depth == 0 && (c == ',' || c == '\n' || c == ' ' || c == '\r' || c == '\t')) {
      break;
    }
    p++;
  }
  if (depth > 0) return sc_errorf(sc, open[0], "'%c' in attribute value is never closed", sc->s[open[0]]);
  if (p == st) return sc_errorf(sc, st, "expected an attribute value");
  *out = hlo_arena_strndup(sc->a, sc->s + st, p - st);
  if (!*out) return sc_errorf(sc, st, "out of memory");
  sc->pos = p;
  return HLO_OK;
}

int sc_enter(scanner *sc) {
  if (++sc->depth > sc->max_depth) {
    sc->depth--;
    return sc_errorf(sc, sc->pos, "nesting deeper than %d levels", sc->max_depth);
  }
  return HLO_OK;
}

void sc_leave(scanner *sc) { sc->depth--; }
