/* nplit.c - numpy-style inline literals ("[[1, 2], [3, 4]]", "3.5", "true",
 * "1+2j") parsed into a typed dense array.  One pass checks the nesting and
 * infers the shape while collecting the scalar tokens; a second converts the
 * tokens to the element type.  Every error points at a byte of the text. */
#include <stdio.h>
#include <string.h>

#include "hlo/hlo_fp.h"
#include "hlo/hlo_npy.h"

typedef struct tok {
  size_t off, len;
} tok;

typedef struct lit_parser {
  const hlo_src *src;
  hlo_diags *d;
  const hlo_allocator *alloc;
  size_t i;
  int leaf_depth;                  /* depth of the scalars, -1 until known */
  int64_t dims[HLO_NPY_MAX_RANK];  /* -1 until the first list at that depth */
  size_t dim_off[HLO_NPY_MAX_RANK];
  tok *toks;
  size_t ntoks, cap;
} lit_parser;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void skip(lit_parser *P) {
  while (P->i < P->src->len && is_space(P->src->text[P->i])) P->i++;
}

static int err(lit_parser *P, size_t off, const char *msg) {
  return hlo_errorf(P->d, P->src, off, "%s", msg);
}

static int push_tok(lit_parser *P, size_t off, size_t len) {
  if (P->ntoks == P->cap) {
    size_t nc = P->cap ? P->cap * 2 : 64, bytes;
    if (hlo_mul_overflow(nc, sizeof(tok), &bytes)) return err(P, off, "literal too large");
    tok *t = hlo_realloc(P->alloc, P->toks, bytes);
    if (!t) return err(P, off, "out of memory");
    P->toks = t;
    P->cap = nc;
  }
  P->toks[P->ntoks].off = off;
  P->toks[P->ntoks].len = len;
  P->ntoks++;
  return HLO_OK;
}

/* value -> '[' (value (',' value)* ','?)? ']' | scalar */
static int parse_value(lit_parser *P, int depth) {
  const char *s = P->src->text;
  size_t n = P->src->len;
  skip(P);
  if (P->i >= n) return err(P, P->i, "expected a value");
  size_t start = P->i;
  if (s[P->i] == '[') {
    if (P->leaf_depth >= 0 && depth >= P->leaf_depth)
      return err(P, start, "ragged nesting: expected a scalar here, found a list");
    if (depth >= HLO_NPY_MAX_RANK) return err(P, start, "lists nested too deeply");
    P->i++;
    int64_t count = 0;
    skip(P);
    if (P->i < n && s[P->i] == ']') {
      P->i++;
    } else {
      for (;;) {
        if (parse_value(P, depth + 1) != HLO_OK) return HLO_ERR;
        count++;
        skip(P);
        if (P->i < n && s[P->i] == ',') {
          P->i++;
          skip(P);
          if (P->i < n && s[P->i] == ']') {
            P->i++;
            break;
          }
          continue;
        }
        if (P->i < n && s[P->i] == ']') {
          P->i++;
          break;
        }
        return err(P, P->i, P->i < n ? "expected ',' or ']'" : "unterminated list: expected ']'");
      }
    }
    if (P->dims[depth] < 0) {
      P->dims[depth] = count;
      P->dim_off[depth] = start;
    } else if (P->dims[depth] != count) {
      char msg[128];
      snprintf(msg, sizeof msg, "ragged list: %lld elements here, %lld in the first list at this depth",
               (long long)count, (long long)P->dims[depth]);
      return err(P, start, msg);
    }
    if (count == 0) {
      if (P->leaf_depth < 0) P->leaf_depth = depth + 1;
      else if (P->leaf_depth != depth + 1)
        return err(P, start, "ragged nesting: empty list where other lists hold lists");
    }
    return HLO_OK;
  }
  if (s[P->i] == ']' || s[P->i] == ',') return err(P, P->i, "expected a value");
  while (P->i < n && !is_space(s[P->i]) && s[P->i] != ',' && s[P->i] != ']' && s[P->i] != '[')
    P->i++;
  if (P->leaf_depth < 0) P->leaf_depth = depth;
  else if (P->leaf_depth != depth)
    return err(P, start, "ragged nesting: expected a list here, found a scalar");
  return push_tok(P, start, P->i - start);
}

static bool word_is(const char *s, size_t n, const char *w) {
  return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* A real number for float type t (f32 for c64, f64 for c128 parts). */
static int real_value(lit_parser *P, size_t off, size_t n, hlo_type t, uint64_t *bits) {
  const char *s = P->src->text + off;
  if (word_is(s, n, "true") || word_is(s, n, "True")) s = "1", n = 1;
  else if (word_is(s, n, "false") || word_is(s, n, "False")) s = "0", n = 1;
  if (n && s[0] == '+') s++, n--; /* Python allows a '+' sign; XLA text does not */
  if (n && s[0] == '+') return err(P, off, "malformed number");
  const char *why = NULL;
  if (hlo_fp_parse_ex(s, n, t, bits, &why) != HLO_OK) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s for %s", why ? why : "malformed number", hlo_type_name(t));
    return err(P, off, msg);
  }
  return HLO_OK;
}

/* Split a complex token into real and imaginary texts: "a", "bj", "a+bj",
 * "a-bj", optionally in parentheses.  Returns false if malformed. */
static bool split_complex(const char *s, size_t n, size_t *ro, size_t *rn, size_t *io, size_t *in) {
  size_t b = 0;
  if (n >= 2 && s[0] == '(' && s[n - 1] == ')') b = 1, n--;
  *ro = *io = b;
  *rn = *in = 0;
  if (n <= b) return false;
  if (s[n - 1] != 'j' && s[n - 1] != 'J') {
    *rn = n - b;
    return true;
  }
  if (n - 1 <= b) return false; /* "j" alone */
  /* the sign that starts the imaginary part (not an exponent's sign) */
  size_t k = b;
  for (size_t i = n - 2; i > b; i--) {
    if ((s[i] == '+' || s[i] == '-') && s[i - 1] != 'e' && s[i - 1] != 'E') {
      k = i;
      break;
    }
  }
  if (k == b) { /* pure imaginary */
    *io = b;
    *in = n - 1 - b;
    return *in > 0;
  }
  *ro = b;
  *rn = k - b;
  *io = k;
  *in = n - 1 - k;
  return *rn > 0 && *in > 0;
}

static void store_bits(unsigned char *dst, uint64_t v, int bytes) {
  uint64_t one = 1;
  bool le = *(unsigned char *)&one == 1;
  for (int k = 0; k < bytes; k++) dst[le ? k : bytes - 1 - k] = (unsigned char)(v >> (8 * k));
}

static int int_value(lit_parser *P, size_t off, size_t n, hlo_type t, unsigned char *dst) {
  const char *s = P->src->text + off;
  int bits = hlo_type_bits(t);
  bool sign = hlo_type_kind_of(t) == HLO_KIND_SINT;
  bool neg = false;
  uint64_t mag = 0;
  if (word_is(s, n, "true") || word_is(s, n, "True")) mag = 1;
  else if (word_is(s, n, "false") || word_is(s, n, "False")) mag = 0;
  else {
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i == n) return err(P, off, "malformed integer");
    for (; i < n; i++) {
      if (s[i] < '0' || s[i] > '9') {
        char msg[96];
        snprintf(msg, sizeof msg, "expected an integer for %s", hlo_type_name(t));
        return err(P, off + i, msg);
      }
      uint64_t dg = (uint64_t)(s[i] - '0');
      if (mag > (UINT64_MAX - dg) / 10) {
        char msg[96];
        snprintf(msg, sizeof msg, "integer out of range for %s", hlo_type_name(t));
        return err(P, off, msg);
      }
      mag = mag * 10 + dg;
    }
  }
  uint64_t max_pos = sign ? ((uint64_t)1 << (bits - 1)) - 1
                          : (bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1);
  uint64_t max_neg = sign ? (uint64_t)1 << (bits - 1) : 0;
  if ((!neg && mag > max_pos) || (neg && mag > max_neg)) {
    char msg[96];
    snprintf(msg, sizeof msg, "integer out of range for %s", hlo_type_name(t));
    return err(P, off, msg);
  }
  store_bits(dst, neg ? (uint64_t)0 - mag : mag, hlo_type_bytes(t));
  return HLO_OK;
}

static int convert(lit_parser *P, const tok *tk, hlo_type t, unsigned char *dst) {
  const char *s = P->src->text + tk->off;
  size_t n = tk->len;
  switch (hlo_type_kind_of(t)) {
  case HLO_KIND_PRED:
    if (word_is(s, n, "true") || word_is(s, n, "True") || word_is(s, n, "1")) *dst = 1;
    else if (word_is(s, n, "false") || word_is(s, n, "False") || word_is(s, n, "0")) *dst = 0;
    else return err(P, tk->off, "expected true or false for pred");
    return HLO_OK;
  case HLO_KIND_SINT:
  case HLO_KIND_UINT:
    return int_value(P, tk->off, n, t, dst);
  case HLO_KIND_FLOAT: {
    if (n && (s[n - 1] == 'j' || s[n - 1] == 'J'))
      return err(P, tk->off, "complex value for a real type");
    uint64_t b;
    if (real_value(P, tk->off, n, t, &b) != HLO_OK) return HLO_ERR;
    store_bits(dst, b, hlo_type_bytes(t));
    return HLO_OK;
  }
  case HLO_KIND_COMPLEX: {
    hlo_type part = t == HLO_C64 ? HLO_F32 : HLO_F64;
    int pb = hlo_type_bytes(part);
    size_t ro, rn, io, in;
    if (!split_complex(s, n, &ro, &rn, &io, &in)) return err(P, tk->off, "malformed complex number");
    uint64_t re = 0, im = 0;
    if (rn && real_value(P, tk->off + ro, rn, part, &re) != HLO_OK) return HLO_ERR;
    if (in && real_value(P, tk->off + io, in, part, &im) != HLO_OK) return HLO_ERR;
    store_bits(dst, re, pb);
    store_bits(dst + pb, im, pb);
    return HLO_OK;
  }
  case HLO_KIND_TOKEN: case HLO_KIND_OPAQUE: case HLO_KIND_TUPLE:
    break;
  }
  return err(P, tk->off, "type has no literal values");
}

int hlo_nplit_parse(hlo_arena *a, const hlo_src *src, hlo_type t, hlo_array *out,
                    hlo_diags *d) {
  if (!hlo_type_is_array(t))
    return hlo_errorf(d, src, 0, "cannot make a %s literal", hlo_type_name(t));
  lit_parser P;
  memset(&P, 0, sizeof P);
  P.src = src;
  P.d = d;
  P.alloc = a->alloc;
  P.leaf_depth = -1;
  for (int k = 0; k < HLO_NPY_MAX_RANK; k++) P.dims[k] = -1;
  int rc = parse_value(&P, 0);
  if (rc == HLO_OK) {
    skip(&P);
    if (P.i < src->len) rc = err(&P, P.i, "unexpected text after the literal");
  }
  if (rc == HLO_OK) {
    int rank = P.leaf_depth;
    if (hlo_array_alloc(a, t, rank, P.dims, out) != HLO_OK) rc = err(&P, 0, "literal too large");
  }
  if (rc == HLO_OK) {
    int esize = hlo_type_bytes(t);
    for (size_t k = 0; k < P.ntoks && rc == HLO_OK; k++)
      rc = convert(&P, &P.toks[k], t, (unsigned char *)out->data + k * (size_t)esize);
  }
  hlo_free(a->alloc, P.toks);
  return rc;
}
