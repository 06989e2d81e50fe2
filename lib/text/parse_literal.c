/* parse_literal.c - constant values:
 *   literal -> scalar | '{' literal {',' literal} '}' | '{...}' | '(' literal {',' literal} ')'
 * Array values are stored dense and row-major (see hlo_ir.h). */
#include <stdio.h>
#include <string.h>

#include "hlo/hlo_fp.h"
#include "text/scan.h"

/* A lone scalar standing for an array fills a dense buffer of the whole
 * shape; past this many elements (1 GiB of f64) the text is refused rather
 * than committing that much memory for one constant. */
#define LONE_SCALAR_MAX_ELEMENTS ((int64_t)1 << 27)

typedef struct lit_ctx {
  scanner *scn;
  const hlo_shape *shape;
  unsigned char *data;
  int64_t next; /* elements written */
  int bytes;
  int64_t *seen; /* per dimension: elements seen in the open sub-array */
} lit_ctx;

/* XLA's name of an element type in literal errors: "F16", "U4". */
static const char *upper_type(hlo_type t, char *buf, size_t n) {
  const char *s = hlo_type_name(t);
  size_t i = 0;
  for (; s[i] && i + 1 < n; i++) buf[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 'a' + 'A' : s[i]);
  buf[i] = 0;
  return buf;
}

/* "[i,j]": the index of the sub-array of dimension `dim` being read, as
 * XLA's literal errors name it. */
static const char *index_str(const lit_ctx *c, int dim, char *buf, size_t n) {
  size_t k = 0;
  buf[k++] = '[';
  for (int d = 0; d < dim && d < 64 && k + 24 < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? "," : "", (long long)c->seen[d] - 1);
  if (k + 2 <= n) buf[k++] = ']';
  buf[k < n ? k : n - 1] = 0;
  return buf;
}

static void store(lit_ctx *c, const void *v) {
  memcpy(c->data + c->next * c->bytes, v, (size_t)c->bytes);
  c->next++;
}

static int parse_uint_text(scanner *scn, uint64_t *v, bool *neg) {
  scan_skip(scn);
  size_t p = scn->pos, st = p;
  *neg = false;
  if (p < scn->end && scn->s[p] == '-') {
    *neg = true;
    p++;
  }
  if (p >= scn->end || scn->s[p] < '0' || scn->s[p] > '9') return scan_errorf(scn, st, "expects integer");
  uint64_t r = 0;
  while (p < scn->end && scn->s[p] >= '0' && scn->s[p] <= '9') {
    unsigned d = (unsigned)(scn->s[p] - '0');
    if (r > (UINT64_MAX - d) / 10) return scan_errorf(scn, st, "integer literal out of range");
    r = r * 10 + d;
    p++;
  }
  if (p < scn->end && (scn->s[p] == '.' || scn->s[p] == 'e' || scn->s[p] == 'E'))
    return scan_errorf(scn, st, "expected an integer, found a floating-point number");
  scn->pos = p;
  *v = r;
  return HLO_OK;
}

static int parse_float(scanner *scn, hlo_type t, uint64_t *bits) {
  scan_skip(scn);
  size_t st = scn->pos;
  size_t n = hlo_fp_scan(scn->s + st, scn->end - st);
  if (!n) return scan_errorf(scn, st, "expected a %s value", hlo_type_name(t));
  const char *why = NULL;
  char up[16];
  if (hlo_fp_parse_ex(scn->s + st, n, t, bits, &why)) {
    const char *pl = memchr(scn->s + st, '(', n), *pe = pl ? memchr(pl, ')', (size_t)(scn->s + st + n - pl)) : NULL;
    if (why && strstr(why, "NaN payload") && pe) /* XLA's words; the payload as written */
      return scan_errorf(scn, st, "tries to set NaN payload %.*s to a literal of type %s, but %s", (int)(pe - pl - 1),
                         pl + 1, hlo_type_name(t), why);
    if (why && strstr(why, "out of range"))
      return scan_errorf(scn, st, "value %.*s is out of range for literal's primitive type %s", (int)(n > 40 ? 40 : n),
                         scn->s + st, upper_type(t, up, sizeof up));
    return scan_errorf(scn, st, "bad %s literal '%.*s': %s", hlo_type_name(t), (int)(n > 40 ? 40 : n),
                     scn->s + st, why ? why : "malformed");
  }
  scn->pos = st + n;
  return HLO_OK;
}

static int parse_scalar(lit_ctx *c) {
  scanner *scn = c->scn;
  hlo_type t = c->shape->type;
  size_t st = (scan_skip(scn), scn->pos);
  switch (hlo_type_kind_of(t)) {
  case HLO_KIND_PRED: {
    uint8_t v;
    if (scan_accept_kw(scn, "true")) v = 1;
    else if (scan_accept_kw(scn, "false")) v = 0;
    else {
      uint64_t u;
      bool neg;
      if (parse_uint_text(scn, &u, &neg) || neg || u > 1)
        return scan_errorf(scn, st, "expected true or false");
      v = (uint8_t)u;
    }
    store(c, &v);
    return HLO_OK;
  }
  case HLO_KIND_SINT:
  case HLO_KIND_UINT: {
    uint64_t u;
    bool neg;
    if (scan_accept_kw(scn, "true")) { u = 1; neg = false; }
    else if (scan_accept_kw(scn, "false")) { u = 0; neg = false; }
    else if (parse_uint_text(scn, &u, &neg)) return HLO_ERR;
    int bits = hlo_type_bits(t);
    bool is_signed = hlo_type_kind_of(t) == HLO_KIND_SINT;
    uint64_t maxpos = is_signed ? ((uint64_t)1 << (bits - 1)) - 1
                                : (bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1);
    uint64_t maxneg = is_signed ? (uint64_t)1 << (bits - 1) : 0;
    /* XLA reads an integer as int64 and an unsigned type takes its bits:
     * u64 accepts -1 (as 2^64-1), narrower unsigned types do not */
    if (neg && !is_signed && bits == 64 && u <= (uint64_t)1 << 63) maxneg = u;
    if ((neg && u > maxneg) || (!neg && u > maxpos)) {
      char up[16];
      return scan_errorf(scn, st, "value %s%llu is out of range for literal's primitive type %s", neg ? "-" : "",
                         (unsigned long long)u, upper_type(t, up, sizeof up));
    }
    uint64_t v = neg ? 0 - u : u;
    /* store the low bytes (little-endian hosts) */
    uint8_t b8 = (uint8_t)v;
    uint16_t b16 = (uint16_t)v;
    uint32_t b32 = (uint32_t)v;
    switch (c->bytes) {
    case 1: store(c, &b8); break;
    case 2: store(c, &b16); break;
    case 4: store(c, &b32); break;
    default: store(c, &v); break;
    }
    return HLO_OK;
  }
  case HLO_KIND_FLOAT: {
    uint64_t bits;
    if (parse_float(scn, t, &bits)) return HLO_ERR;
    uint8_t b8 = (uint8_t)bits;
    uint16_t b16 = (uint16_t)bits;
    uint32_t b32 = (uint32_t)bits;
    switch (c->bytes) {
    case 1: store(c, &b8); break;
    case 2: store(c, &b16); break;
    case 4: store(c, &b32); break;
    default: store(c, &bits); break;
    }
    return HLO_OK;
  }
  case HLO_KIND_COMPLEX: {
    hlo_type part = t == HLO_C64 ? HLO_F32 : HLO_F64;
    uint64_t re, im;
    if (scan_expect(scn, '(', "to start a complex value")) return HLO_ERR;
    if (parse_float(scn, part, &re) || scan_expect(scn, ',', "between real and imaginary parts") ||
        parse_float(scn, part, &im) || scan_expect(scn, ')', "to close a complex value"))
      return HLO_ERR;
    if (t == HLO_C64) {
      uint32_t v[2] = {(uint32_t)re, (uint32_t)im};
      store(c, v);
    } else {
      uint64_t v[2] = {re, im};
      store(c, v);
    }
    return HLO_OK;
  }
  case HLO_KIND_TOKEN:
  case HLO_KIND_OPAQUE:
  case HLO_KIND_TUPLE:
    break;
  }
  return scan_errorf(scn, st, "%s values cannot be written as literals", hlo_type_name(t));
}

static bool at_elided(scanner *scn) {
  scan_skip(scn);
  return scn->end - scn->pos >= 5 && memcmp(scn->s + scn->pos, "{...}", 5) == 0;
}

/* Elements of dimension `dim` onward. */
static int parse_dims(lit_ctx *c, int dim) {
  scanner *scn = c->scn;
  const hlo_shape *s = c->shape;
  if (dim == s->rank) {
    if (scan_peek(scn, '{'))
      return scan_errorf(scn, (scan_skip(scn), scn->pos), "expects nested array in rank %d, but sees larger", s->rank);
    return parse_scalar(c);
  }
  size_t st = (scan_skip(scn), scn->pos);
  if (dim > 0 && !scan_peek(scn, '{') && !scan_peek(scn, '}'))
    return scan_errorf(scn, st, "expects nested array in rank %d, but sees %d", s->rank, dim);
  if (scan_expect(scn, '{', "to start an array literal")) return HLO_ERR;
  if (scan_enter(scn)) return HLO_ERR;
  int64_t n = 0;
  int rc = HLO_OK;
  if (!scan_peek(scn, '}')) {
    do {
      if (n >= s->dims[dim]) {
        char ix[128];
        if (dim == s->rank - 1)
          rc = scan_errorf(scn, (scan_skip(scn), scn->pos), "expects %lld elements on the minor-most dimension, but sees more",
                           (long long)s->dims[dim]);
        else
          rc = scan_errorf(scn, (scan_skip(scn), scn->pos), "expects %lld elements in the %sth element, but sees more",
                           (long long)s->dims[dim], index_str(c, dim, ix, sizeof ix));
        break;
      }
      if (dim < 64) c->seen[dim] = n + 1;
      if ((rc = parse_dims(c, dim + 1))) break;
      n++;
    } while (scan_accept(scn, ','));
  }
  scan_leave(scn);
  if (rc) return HLO_ERR;
  if (scan_expect(scn, '}', "to close the array literal")) return HLO_ERR;
  if (n != s->dims[dim]) {
    char ix[128];
    return scan_errorf(scn, st, "expects %lld elements in the %sth element, but sees %lld", (long long)s->dims[dim],
                       index_str(c, dim, ix, sizeof ix), (long long)n);
  }
  return HLO_OK;
}

int scan_literal(scanner *scn, const hlo_shape *s, hlo_literal *out) {
  memset(out, 0, sizeof *out);
  out->shape = *s; /* shares dims and layout with the instruction's shape (read-only IR) */
  scan_skip(scn);
  size_t st = scn->pos;
  if (s->type == HLO_TUPLE && at_elided(scn)) { /* what --elide-constants prints */
    scn->pos += 5;
    out->elided = true;
    return HLO_OK;
  }
  if (s->type == HLO_TUPLE) {
    if (scan_expect(scn, '(', "to start a tuple literal")) return HLO_ERR;
    if (scan_enter(scn)) return HLO_ERR;
    out->ntuple = s->ntuple;
    out->tuple = s->ntuple ? hlo_arena_array(scn->a, (size_t)s->ntuple, sizeof(hlo_literal)) : NULL;
    int rc = s->ntuple && !out->tuple ? scan_errorf(scn, st, "out of memory") : HLO_OK;
    for (int i = 0; !rc && i < s->ntuple; i++) {
      if (i && (rc = scan_expect(scn, ',', "between tuple literal elements"))) break;
      rc = scan_literal(scn, &s->tuple[i], &out->tuple[i]);
    }
    scan_leave(scn);
    if (rc) return HLO_ERR;
    return scan_expect(scn, ')', "to close the tuple literal");
  }
  if (!hlo_type_is_array(s->type)) return scan_errorf(scn, st, "%s constants are not supported", hlo_type_name(s->type));
  if (at_elided(scn)) {
    scn->pos += 5;
    out->elided = true;
    return HLO_OK;
  }
  if (scan_peek(scn, '}')) return scan_errorf(scn, st, "unexpected '}' token");
  int64_t n;
  if (!hlo_shape_elements(s, &n)) return scan_errorf(scn, st, "the constant's shape is too large or dynamic");
  /* A lone scalar stands for the whole array (XLA's leniency, below); any
   * other literal needs at least one character of text per element, so
   * shapes the text cannot fill are refused before allocating for them. */
  bool lone_scalar = s->rank > 0 && n > 0 && !scan_peek(scn, '{');
  if (lone_scalar && n > LONE_SCALAR_MAX_ELEMENTS)
    return scan_errorf(scn, st, "a scalar literal for an array of %lld elements is too large (at most %lld)",
                       (long long)n, (long long)LONE_SCALAR_MAX_ELEMENTS);
  if (!lone_scalar && n > (int64_t)(scn->end - st) + 1 && n > 1)
    return scan_errorf(scn, st, "the literal cannot hold the %lld elements of its shape", (long long)n);
  int64_t seen[64] = {0};
  lit_ctx c = {scn, s, NULL, 0, hlo_type_bytes(s->type), seen};
  c.data = hlo_arena_array(scn->a, (size_t)(n ? n : 1), (size_t)c.bytes);
  if (!c.data) return scan_errorf(scn, st, "out of memory for a literal of %lld elements", (long long)n);
  if (lone_scalar) {
    /* XLA's parser takes a lone scalar for an array: it is the first element
     * in row-major order and every other element is zero */
    memset(c.data, 0, (size_t)n * (size_t)c.bytes);
    if (parse_scalar(&c)) return HLO_ERR;
    out->data = c.data;
    out->nelems = n;
    return HLO_OK;
  }
  if (parse_dims(&c, 0)) return HLO_ERR;
  out->data = c.data;
  out->nelems = n;
  return HLO_OK;
}
