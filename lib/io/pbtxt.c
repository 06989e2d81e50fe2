/* pbtxt.c - protobuf text format into a schema-less field tree (see
 * pbtxt.h): tokens, nesting, lists and string escapes; every error points
 * at a byte of the text. */
#include "pbtxt.h"

#include <ctype.h>
#include <string.h>

typedef struct pb_parser {
  const hlo_src *src;
  hlo_arena *a;
  hlo_diags *d;
  size_t i;
  int depth;
} pb_parser;

enum { PB_MAX_DEPTH = 200 };

static void skip(pb_parser *P) {
  const char *s = P->src->text;
  while (P->i < P->src->len) {
    char c = s[P->i];
    if (c == '#') {
      while (P->i < P->src->len && s[P->i] != '\n') P->i++;
    } else if (isspace((unsigned char)c)) {
      P->i++;
    } else {
      break;
    }
  }
}

static int peek(pb_parser *P) {
  skip(P);
  return P->i < P->src->len ? (unsigned char)P->src->text[P->i] : -1;
}

static bool is_ident_char(int c) { return isalnum(c) || c == '_' || c == '.' || c == '-' || c == '+'; }

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* STRING+ at P->i: the decoded bytes of the adjacent strings into n. */
static int parse_string(pb_parser *P, pb_node *n) {
  const char *s = P->src->text;
  size_t len = P->src->len, start = P->i, cap = 0, used = 0;
  for (size_t j = P->i; j < len && (s[j] == '"' || s[j] == '\''); ) { /* an upper bound of the size */
    char q = s[j++];
    while (j < len && s[j] != q && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
    cap += j - start;
    j++;
    while (j < len && isspace((unsigned char)s[j])) j++;
  }
  char *out = hlo_arena_alloc(P->a, cap + 1);
  if (!out) return hlo_errorf(P->d, P->src, start, "out of memory");
  while (P->i < len && (s[P->i] == '"' || s[P->i] == '\'')) {
    char q = s[P->i];
    size_t open = P->i++;
    for (;;) {
      if (P->i >= len || s[P->i] == '\n') return hlo_errorf(P->d, P->src, open, "unterminated string");
      char c = s[P->i];
      if (c == q) {
        P->i++;
        break;
      }
      if (c != '\\') {
        out[used++] = c;
        P->i++;
        continue;
      }
      size_t esc = P->i++;
      if (P->i >= len) return hlo_errorf(P->d, P->src, esc, "unterminated string");
      c = s[P->i++];
      const char *simple = "n\nr\rt\tv\vf\fb\ba\a\\\\''\"\"??";
      const char *m = NULL;
      for (const char *k = simple; *k; k += 2)
        if (*k == c) m = k;
      if (m) {
        out[used++] = m[1];
      } else if (c >= '0' && c <= '7') { /* up to three octal digits */
        int v = c - '0';
        for (int k = 0; k < 2 && P->i < len && s[P->i] >= '0' && s[P->i] <= '7'; k++) v = v * 8 + (s[P->i++] - '0');
        if (v > 255) return hlo_errorf(P->d, P->src, esc, "octal escape out of range");
        out[used++] = (char)v;
      } else if (c == 'x' || c == 'X') { /* one or two hex digits */
        int v = -1;
        for (int k = 0; k < 2 && P->i < len && hexval((unsigned char)s[P->i]) >= 0; k++)
          v = (v < 0 ? 0 : v * 16) + hexval((unsigned char)s[P->i++]);
        if (v < 0) return hlo_errorf(P->d, P->src, esc, "\\x needs a hex digit");
        out[used++] = (char)v;
      } else {
        return hlo_errorf(P->d, P->src, esc, "unknown escape '\\%c'", c);
      }
    }
    skip(P);
  }
  out[used] = 0;
  n->is_string = true;
  n->val = out;
  n->len = used;
  return HLO_OK;
}

/* One scalar value into n. */
static int parse_scalar(pb_parser *P, pb_node *n) {
  int c = peek(P);
  n->voff = P->i;
  if (c == '"' || c == '\'') return parse_string(P, n);
  if (c < 0 || !is_ident_char(c)) return hlo_errorf(P->d, P->src, P->i, "expected a value");
  size_t start = P->i;
  while (P->i < P->src->len && is_ident_char((unsigned char)P->src->text[P->i])) P->i++;
  n->val = P->src->text + start;
  n->len = P->i - start;
  return HLO_OK;
}

static pb_node *parse_fields(pb_parser *P, int close, bool *ok);

/* field at P->i; appends one node per value to *tail. */
static int parse_field(pb_parser *P, pb_node ***tail) {
  const char *s = P->src->text;
  size_t start = P->i;
  while (P->i < P->src->len && (isalnum((unsigned char)s[P->i]) || s[P->i] == '_')) P->i++;
  if (P->i == start) return hlo_errorf(P->d, P->src, start, "expected a field name");
  pb_node proto = {0};
  proto.name = hlo_arena_strndup(P->a, s + start, P->i - start);
  proto.off = start;
  if (!proto.name) return hlo_errorf(P->d, P->src, start, "out of memory");
  bool colon = peek(P) == ':';
  if (colon) P->i++;
  int c = peek(P);
  bool list = colon && c == '[';
  if (list) {
    P->i++;
    if (peek(P) == ']') {
      P->i++;
      return HLO_OK;
    }
  }
  for (;;) {
    pb_node *n = hlo_arena_alloc(P->a, sizeof *n);
    if (!n) return hlo_errorf(P->d, P->src, start, "out of memory");
    *n = proto;
    c = peek(P);
    if (c == '{' || c == '<') {
      if (++P->depth > PB_MAX_DEPTH) return hlo_errorf(P->d, P->src, P->i, "messages nested too deeply");
      size_t open = P->i++;
      bool ok = true;
      n->is_msg = true;
      n->voff = open;
      n->child = parse_fields(P, c == '{' ? '}' : '>', &ok);
      if (!ok) return HLO_ERR;
      P->depth--;
    } else if (!colon) {
      return hlo_errorf(P->d, P->src, P->i, "expected ':' or '{' after field '%s'", proto.name);
    } else if (parse_scalar(P, n)) {
      return HLO_ERR;
    }
    **tail = n;
    *tail = &n->next;
    if (!list) return HLO_OK;
    c = peek(P);
    if (c == ',') {
      P->i++;
      continue;
    }
    if (c == ']') {
      P->i++;
      return HLO_OK;
    }
    return hlo_errorf(P->d, P->src, P->i, "expected ',' or ']' in the list of '%s'", proto.name);
  }
}

/* fields up to close ('}', '>' or -1 for the end of the text). */
static pb_node *parse_fields(pb_parser *P, int close, bool *ok) {
  pb_node *head = NULL, **tail = &head;
  size_t open = P->i ? P->i - 1 : 0;
  for (;;) {
    int c = peek(P);
    if (c == close) {
      if (c >= 0) P->i++;
      return head;
    }
    if (c < 0) {
      hlo_errorf(P->d, P->src, open, "unclosed '%c'", close == '}' ? '{' : '<');
      *ok = false;
      return NULL;
    }
    if (parse_field(P, &tail)) {
      *ok = false;
      return NULL;
    }
    c = peek(P);
    if (c == ',' || c == ';') P->i++;
  }
}

pb_node *pb_parse(hlo_arena *a, const hlo_src *src, hlo_diags *d, bool *ok) {
  pb_parser P = {src, a, d, 0, 0};
  *ok = true;
  return parse_fields(&P, -1, ok);
}
