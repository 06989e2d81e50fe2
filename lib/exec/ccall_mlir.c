/* ccall_mlir.c - reading a backend_config written as an MLIR dictionary
 * attribute, as typed-FFI custom calls print theirs:
 *   {name = 3 : i64, scale = 1.250000e-01 : f64, flag = false, s = "x"}
 * Integers (optionally typed iN/uiN/si N/index), floats (typed fN/bf16, or
 * written with a point or exponent), true/false, strings, and unit
 * attributes (a bare name, read as true).  Any other value (arrays, dense<>,
 * #dialect attributes) is skipped by balanced brackets and kept as "other". */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ccall.h"

typedef struct mp {
  const char *s;
  size_t i, n;
  const char *err;
} mp;

static void ws(mp *p) {
  while (p->i < p->n && isspace((unsigned char)p->s[p->i])) p->i++;
}

static bool eat(mp *p, char c) {
  ws(p);
  if (p->i < p->n && p->s[p->i] == c) {
    p->i++;
    return true;
  }
  return false;
}

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$'; }

/* a name: bare identifier or quoted string, copied into out (truncated) */
static bool name_of(mp *p, char *out, size_t cap) {
  ws(p);
  size_t k = 0;
  if (p->i < p->n && p->s[p->i] == '"') {
    p->i++;
    while (p->i < p->n && p->s[p->i] != '"') {
      if (p->s[p->i] == '\\') p->i++;
      if (p->i < p->n && k + 1 < cap) out[k++] = p->s[p->i];
      p->i++;
    }
    if (p->i >= p->n) return (p->err = "unterminated string", false);
    p->i++;
  } else {
    while (p->i < p->n && ident_char(p->s[p->i])) {
      if (k + 1 < cap) out[k++] = p->s[p->i];
      p->i++;
    }
    if (k == 0) return (p->err = "expected an attribute name", false);
  }
  out[k] = 0;
  return true;
}

/* skip a value we do not read: up to the ',' or '}' at depth 0 */
static bool skip_value(mp *p) {
  int depth = 0;
  bool str = false;
  for (; p->i < p->n; p->i++) {
    char c = p->s[p->i];
    if (str) {
      if (c == '\\') p->i++;
      else if (c == '"') str = false;
      continue;
    }
    if (c == '"') str = true;
    else if (c == '[' || c == '{' || c == '(' || c == '<') depth++;
    else if (c == ']' || c == ')' || c == '>' || (c == '}' && depth > 0)) depth--;
    else if (depth == 0 && (c == ',' || c == '}')) return true;
    if (depth < 0) break;
  }
  return (p->err = "unbalanced brackets in a value", false);
}

static bool value_of(mp *p, hlo_mlir_entry *e) {
  ws(p);
  const char *s = p->s + p->i;
  size_t left = p->n - p->i;
  if (left >= 4 && strncmp(s, "true", 4) == 0 && !ident_char(left > 4 ? s[4] : ' ')) {
    e->kind = HLO_MLIR_BOOL, e->i = 1, e->f = 1, p->i += 4;
    return true;
  }
  if (left >= 5 && strncmp(s, "false", 5) == 0 && !ident_char(left > 5 ? s[5] : ' ')) {
    e->kind = HLO_MLIR_BOOL, e->i = 0, e->f = 0, p->i += 5;
    return true;
  }
  if (*s == '"') {
    char tmp[2];
    e->kind = HLO_MLIR_STR;
    e->str = s + 1;
    if (!name_of(p, tmp, sizeof tmp)) return false;
    e->slen = (size_t)(p->s + p->i - 1 - e->str);
    return true;
  }
  if (*s == '-' || *s == '+' || isdigit((unsigned char)*s)) {
    /* the number's own text, bounded by the value's end */
    size_t k = 0;
    while (k < left && (isalnum((unsigned char)s[k]) || s[k] == '.' || s[k] == '-' || s[k] == '+')) k++;
    char buf[64];
    if (k == 0 || k >= sizeof buf) return (p->err = "malformed number", false);
    memcpy(buf, s, k);
    buf[k] = 0;
    p->i += k;
    bool isfloat = strpbrk(buf, ".eE") != NULL && strncmp(buf, "0x", 2) != 0;
    char *end;
    errno = 0;
    if (isfloat) {
      e->f = strtod(buf, &end);
      e->i = e->f >= 9.2e18 ? INT64_MAX : e->f <= -9.2e18 ? INT64_MIN : e->f == e->f ? (int64_t)e->f : 0;
    } else {
      e->i = strtoll(buf, &end, 0);
      e->f = (double)e->i;
    }
    if (*end || errno == ERANGE) return (p->err = "malformed number", false);
    e->kind = isfloat ? HLO_MLIR_FLOAT : HLO_MLIR_INT;
    if (eat(p, ':')) { /* the type: iN, uiN, siN, index, fN, bf16 */
      char ty[32];
      if (!name_of(p, ty, sizeof ty)) return false;
      if (ty[0] == 'f' || strcmp(ty, "bf16") == 0) {
        if (e->kind == HLO_MLIR_INT) e->f = (double)e->i; /* hex float bits are not read */
        e->kind = HLO_MLIR_FLOAT;
      } else if (ty[0] == 'i' || ty[0] == 'u' || ty[0] == 's') {
        if (e->kind != HLO_MLIR_INT) return (p->err = "a float value with an integer type", false);
      } else {
        return (p->err = "unknown number type", false);
      }
    }
    return true;
  }
  e->kind = HLO_MLIR_OTHER;
  size_t at = p->i;
  if (!skip_value(p)) return false;
  if (p->i == at) return (p->err = "expected a value", false);
  return true;
}

int hlo_mlir_dict_parse(const char *text, hlo_mlir_dict *d, size_t *errpos, const char **err) {
  mp p = {text, 0, strlen(text), NULL};
  d->n = 0;
  *err = NULL;
  *errpos = 0;
  if (!eat(&p, '{')) {
    p.err = "expected '{'";
    goto fail;
  }
  if (!eat(&p, '}')) {
    do {
      if (d->n == HLO_MLIR_MAX) {
        p.err = "too many attributes";
        goto fail;
      }
      hlo_mlir_entry *e = &d->e[d->n];
      memset(e, 0, sizeof *e);
      if (!name_of(&p, e->name, sizeof e->name)) goto fail;
      if (eat(&p, '=')) {
        if (!value_of(&p, e)) goto fail;
      } else { /* a unit attribute */
        e->kind = HLO_MLIR_BOOL, e->i = 1, e->f = 1;
      }
      d->n++;
    } while (eat(&p, ','));
    if (!eat(&p, '}')) {
      p.err = "expected ',' or '}'";
      goto fail;
    }
  }
  ws(&p);
  if (p.i != p.n) {
    p.err = "text after the closing '}'";
    goto fail;
  }
  return HLO_OK;
fail:
  *err = p.err ? p.err : "malformed dictionary";
  *errpos = p.i;
  return HLO_ERR;
}

const hlo_mlir_entry *hlo_mlir_dict_find(const hlo_mlir_dict *d, const char *name) {
  for (int i = 0; i < d->n; i++)
    if (strcmp(d->e[i].name, name) == 0) return &d->e[i];
  return NULL;
}
