/* scan.c - character-level scanning primitives for HLO text. */
#include "text/scan.h"

#include <stdio.h>
#include <string.h>

int scan_errorf(scanner *scn, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hlo_vdiagf(scn->d, HLO_SEV_ERROR, scn->src, off, fmt, ap);
  va_end(ap);
  scn->nerrors++;
  return HLO_ERR;
}

#define R6(c) [c] = 1, [c + 1] = 1, [c + 2] = 1, [c + 3] = 1, [c + 4] = 1, [c + 5] = 1
#define R10(c) R6(c), [c + 6] = 1, [c + 7] = 1, [c + 8] = 1, [c + 9] = 1
const unsigned char scan_name_chars[256] = {
    R10('0'), R10('a'), R10('k'), R6('u'), R10('A'), R10('K'), R6('U'), ['_'] = 1, ['.'] = 1, ['-'] = 2};
#undef R10
#undef R6

void scan_skip_slow(scanner *scn) {
  const char *s = scn->s;
  size_t p = scn->pos, e = scn->end;
  for (;;) {
    while (p < e && (s[p] == ' ' || s[p] == '\n' || s[p] == '\t' || s[p] == '\r')) p++;
    if (p + 1 < e && s[p] == '/' && s[p + 1] == '/') {
      while (p < e && s[p] != '\n' && s[p] != '\r') p++; /* as XLA's lexer: CR ends it too */
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
  scn->pos = p;
}

bool scan_at_end(scanner *scn) {
  scan_skip(scn);
  return scn->pos >= scn->end;
}


static const char *describe_next(scanner *scn, char *buf, size_t cap) {
  if (scn->pos >= scn->end) return "end of input";
  if (scn->pos + 1 < scn->end && scn->s[scn->pos] == '/' && scn->s[scn->pos + 1] == '*')
    return "a comment that is never closed"; /* scan_skip stops at one */
  unsigned char c = (unsigned char)scn->s[scn->pos];
  if (c >= 0x21 && c < 0x7f) {
    size_t n = 0;
    while (scn->pos + n < scn->end && n < 20 &&
           (scan_is_name_char(scn->s[scn->pos + n]) || (n == 0 && scn->s[scn->pos] == '%')))
      n++;
    if (n <= 1) snprintf(buf, cap, "'%c'", c);
    else snprintf(buf, cap, "'%.*s'", (int)n, scn->s + scn->pos);
  } else {
    snprintf(buf, cap, "byte 0x%02x", c);
  }
  return buf;
}

int scan_failed_at_next(scanner *scn, const char *what) {
  char buf[40];
  return scan_errorf(scn, scn->pos, "%s, found %s", what, describe_next(scn, buf, sizeof buf));
}

int scan_expect_failed(scanner *scn, char c, const char *context) {
  char buf[40];
  return scan_errorf(scn, scn->pos, "expected '%c' %s, found %s", c, context,
                   describe_next(scn, buf, sizeof buf));
}


bool scan_accept_kw(scanner *scn, const char *kw) {
  scan_skip(scn);
  size_t n = strlen(kw);
  if (scn->pos + n > scn->end || memcmp(scn->s + scn->pos, kw, n) != 0) return false;
  if (scn->pos + n < scn->end && scan_is_name_char(scn->s[scn->pos + n])) return false;
  scn->pos += n;
  return true;
}

size_t scan_name(scanner *scn, const char **start, bool *had_percent) {
  scan_skip(scn);
  const char *s = scn->s;
  size_t p = scn->pos, end = scn->end;
  bool pct = false;
  if (p < end && s[p] == '%') {
    pct = true;
    p++;
  }
  size_t b = p;
  for (;;) {
    while (p < end && scan_name_chars[(unsigned char)s[p]] == 1) p++;
    if (p >= end || !scan_name_chars[(unsigned char)s[p]]) break;
    if (p + 1 < end && s[p + 1] == '>') break; /* '-' of "->" */
    p++;
  }
  if (p == b || s[b] == '-') return 0;
  *start = scn->s + b;
  if (had_percent) *had_percent = pct;
  scn->pos = p;
  return p - b;
}

int scan_name_dup(scanner *scn, const char **out, const char *what) {
  const char *st;
  size_t n = scan_name(scn, &st, NULL);
  if (!n) {
    char buf[40];
    return scan_errorf(scn, scn->pos, "expected %s, found %s", what, describe_next(scn, buf, sizeof buf));
  }
  *out = hlo_arena_strndup(scn->a, st, n);
  if (!*out) return scan_errorf(scn, scn->pos, "out of memory");
  return HLO_OK;
}

int scan_int(scanner *scn, int64_t *out) {
  scan_skip(scn);
  size_t p = scn->pos, st = p;
  bool neg = false;
  if (p < scn->end && (scn->s[p] == '-' || scn->s[p] == '+')) neg = scn->s[p++] == '-';
  if (p >= scn->end || scn->s[p] < '0' || scn->s[p] > '9') {
    char buf[40];
    return scan_errorf(scn, st, "expects integer, found %s", describe_next(scn, buf, sizeof buf));
  }
  uint64_t v = 0;
  while (p < scn->end && scn->s[p] >= '0' && scn->s[p] <= '9') {
    unsigned d = (unsigned)(scn->s[p] - '0');
    if (v > (UINT64_MAX - d) / 10) return scan_errorf(scn, st, "integer out of range");
    v = v * 10 + d;
    p++;
  }
  if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
    return scan_errorf(scn, st, "integer out of range");
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  scn->pos = p;
  return HLO_OK;
}

int scan_string(scanner *scn, const char **out) {
  scan_skip(scn);
  size_t st = scn->pos;
  /* "..." or, as XLA's lexer also takes, '...' */
  if (st >= scn->end || (scn->s[st] != '"' && scn->s[st] != '\'')) return scan_errorf(scn, st, "expected a quoted string");
  char quote = scn->s[st];
  size_t p = st + 1;
  size_t len = 0;
  while (p < scn->end && scn->s[p] != quote) {
    if (scn->s[p] == '\\' && p + 1 < scn->end) p++;
    p++;
    len++;
  }
  if (p >= scn->end) return scan_errorf(scn, st, "unterminated string");
  char *r = hlo_arena_alloc(scn->a, len + 1);
  if (!r) return scan_errorf(scn, st, "out of memory");
  size_t o = 0;
  for (size_t q = st + 1; q < p; q++) {
    char c = scn->s[q];
    if (c == '\\' && q + 1 < p) {
      c = scn->s[++q];
      switch (c) {
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case '0': case '1': case '2': case '3': {
        int v = c - '0', k = 0;
        while (k < 2 && q + 1 < p && scn->s[q + 1] >= '0' && scn->s[q + 1] <= '7') {
          v = v * 8 + (scn->s[++q] - '0');
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
  scn->pos = p + 1;
  *out = r;
  return HLO_OK;
}

int scan_raw_value(scanner *scn, const char **out) {
  scan_skip(scn);
  size_t st = scn->pos, p = st;
  enum { MAX_RAW_DEPTH = 256 };
  size_t open[MAX_RAW_DEPTH]; /* offsets of the brackets still open */
  int depth = 0;
  /* the bytes that matter here; everything else is skipped in a tight loop */
  static const unsigned char special[256] = {
      ['"'] = 1, ['{'] = 1, ['('] = 1, ['['] = 1, ['}'] = 1, [')'] = 1, [']'] = 1,
      [','] = 1, ['\n'] = 1, [' '] = 1, ['\r'] = 1, ['\t'] = 1};
  static const unsigned char special_in[256] = {
      ['"'] = 1, ['{'] = 1, ['('] = 1, ['['] = 1, ['}'] = 1, [')'] = 1, [']'] = 1};
  const char *s = scn->s;
  const size_t end = scn->end;
  while (p < end) {
    /* inside brackets only quotes and brackets matter */
    const unsigned char *stop = depth ? special_in : special;
    while (p < end && !stop[(unsigned char)s[p]]) p++;
    if (p >= end) break;
    char c = scn->s[p];
    if (c == '"') { /* jump to the closing quote, skipping escaped ones */
      size_t q = p++;
      for (;;) {
        const char *e = memchr(scn->s + p, '"', scn->end - p);
        if (!e) return scan_errorf(scn, q, "unterminated string");
        size_t ei = (size_t)(e - scn->s), nb = 0;
        while (ei - nb > p && scn->s[ei - nb - 1] == '\\') nb++;
        p = ei + 1;
        if (nb % 2 == 0) break;
      }
      if (depth == 0) break;
      continue;
    }
    if (c == '{' || c == '(' || c == '[') {
      if (depth == MAX_RAW_DEPTH)
        return scan_errorf(scn, p, "attribute value nested deeper than %d levels", MAX_RAW_DEPTH);
      open[depth++] = p;
    } else if (c == '}' || c == ')' || c == ']') {
      if (depth == 0) break;
      char o = scn->s[open[depth - 1]];
      if ((o == '{' && c != '}') || (o == '(' && c != ')') || (o == '[' && c != ']'))
        return scan_errorf(scn, open[depth - 1], "'%c' in attribute value is closed by '%c'", o, c);
      if (--depth == 0) {
        p++;
        break;
      }
    } else if (depth == 0 && (c == ',' || c == '\n' || c == ' ' || c == '\r' || c == '\t')) {
      break;
    }
    p++;
  }
  if (depth > 0) return scan_errorf(scn, open[0], "'%c' in attribute value is never closed", scn->s[open[0]]);
  if (p == st) return scan_errorf(scn, st, "expected an attribute value");
  *out = hlo_arena_strndup(scn->a, scn->s + st, p - st);
  if (!*out) return scan_errorf(scn, st, "out of memory");
  scn->pos = p;
  return HLO_OK;
}

int scan_enter(scanner *scn) {
  if (++scn->depth > scn->max_depth) {
    scn->depth--;
    return scan_errorf(scn, scn->pos, "maximum recursion depth exceeded: nesting deeper than %d levels", scn->max_depth);
  }
  return HLO_OK;
}

void scan_leave(scanner *scn) { scn->depth--; }
