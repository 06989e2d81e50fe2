/* npy.c - the .npy format: the dtype mapping between numpy and XLA element
 * types, header parsing (a Python dict literal) and writing byte-identical
 * to numpy.save, and conversion of the payload (byte order, Fortran order)
 * into the dense row-major layout of hlo_array; mapping files that need
 * no conversion instead of copying them. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/npy_internal.h"

/* ---- dtypes ---------------------------------------------------------------- */

const char *hlo_npy_descr(hlo_type t) {
  switch (t) {
  case HLO_PRED: return "|b1";
  case HLO_S8: return "|i1";
  case HLO_S16: return "<i2";
  case HLO_S32: return "<i4";
  case HLO_S64: return "<i8";
  case HLO_U8: return "|u1";
  case HLO_U16: return "<u2";
  case HLO_U32: return "<u4";
  case HLO_U64: return "<u8";
  case HLO_F16: return "<f2";
  case HLO_F32: return "<f4";
  case HLO_F64: return "<f8";
  case HLO_C64: return "<c8";
  case HLO_C128: return "<c16";
  case HLO_BF16: return "<V2";
  case HLO_S1: case HLO_S2: case HLO_S4: case HLO_U1: case HLO_U2: case HLO_U4:
  case HLO_F8E5M2: case HLO_F8E4M3: case HLO_F8E4M3FN: case HLO_F8E4M3B11FNUZ:
  case HLO_F8E5M2FNUZ: case HLO_F8E4M3FNUZ: case HLO_F8E3M4: case HLO_F8E8M0FNU:
  case HLO_F4E2M1FN:
    return "|V1";
  case HLO_TOKEN: case HLO_OPAQUE: case HLO_TUPLE: case HLO_TYPE_COUNT:
    return NULL;
  }
  return NULL;
}

const char *hlo_npy_dtype_name(hlo_type t) {
  switch (t) {
  case HLO_PRED: return "bool";
  case HLO_S8: return "int8";
  case HLO_S16: return "int16";
  case HLO_S32: return "int32";
  case HLO_S64: return "int64";
  case HLO_U8: return "uint8";
  case HLO_U16: return "uint16";
  case HLO_U32: return "uint32";
  case HLO_U64: return "uint64";
  case HLO_F16: return "float16";
  case HLO_F32: return "float32";
  case HLO_F64: return "float64";
  case HLO_C64: return "complex64";
  case HLO_C128: return "complex128";
  case HLO_BF16: return "bfloat16";
  case HLO_S2: return "int2";
  case HLO_S4: return "int4";
  case HLO_U2: return "uint2";
  case HLO_U4: return "uint4";
  case HLO_F8E5M2: return "float8_e5m2";
  case HLO_F8E4M3: return "float8_e4m3";
  case HLO_F8E4M3FN: return "float8_e4m3fn";
  case HLO_F8E4M3B11FNUZ: return "float8_e4m3b11fnuz";
  case HLO_F8E5M2FNUZ: return "float8_e5m2fnuz";
  case HLO_F8E4M3FNUZ: return "float8_e4m3fnuz";
  case HLO_F8E3M4: return "float8_e3m4";
  case HLO_F8E8M0FNU: return "float8_e8m0fnu";
  case HLO_F4E2M1FN: return "float4_e2m1fn";
  case HLO_S1: case HLO_U1: case HLO_TOKEN: case HLO_OPAQUE: case HLO_TUPLE:
  case HLO_TYPE_COUNT:
    return "?";
  }
  return "?";
}

hlo_npy_opts hlo_npy_default_opts(void) {
  hlo_npy_opts o = {HLO_TYPE_COUNT, HLO_BF16, 0};
  return o;
}

uint64_t npy_max_bytes(const hlo_npy_opts *opts) {
  return opts && opts->max_bytes ? opts->max_bytes : (uint64_t)1 << 40;
}

static bool host_little(void) {
  const uint16_t one = 1;
  unsigned char c;
  memcpy(&c, &one, 1);
  return c == 1;
}

/* Map a dtype string such as "<f4" to a type; *swap says whether the bytes
 * must be reversed (per scalar component) for this host. */
static int map_descr(const char *name, const char *s, const hlo_npy_opts *o, hlo_type *t,
                     bool *swap, hlo_diags *d) {
  const char *p = s;
  char order = '=';
  if (*p == '<' || *p == '>' || *p == '|' || *p == '=') order = *p++;
  char kind = *p++;
  char *end;
  long size = strtol(p, &end, 10);
  if (p[0] < '0' || p[0] > '9' || *end != 0) {
    if (kind == 'O' && p[0] == 0)
      return hlo_errorf(d, NULL, 0, "%s: object arrays (pickled Python objects) are not supported",
                        name);
    return hlo_errorf(d, NULL, 0, "%s: unsupported dtype '%s'", name, s);
  }
  hlo_type r = HLO_TYPE_COUNT;
  switch (kind) {
  case 'b': r = size == 1 ? HLO_PRED : r; break;
  case 'i':
    r = size == 1 ? HLO_S8 : size == 2 ? HLO_S16 : size == 4 ? HLO_S32 : size == 8 ? HLO_S64 : r;
    break;
  case 'u':
    r = size == 1 ? HLO_U8 : size == 2 ? HLO_U16 : size == 4 ? HLO_U32 : size == 8 ? HLO_U64 : r;
    break;
  case 'f': r = size == 2 ? HLO_F16 : size == 4 ? HLO_F32 : size == 8 ? HLO_F64 : r; break;
  case 'c': r = size == 8 ? HLO_C64 : size == 16 ? HLO_C128 : r; break;
  case 'V':
    if (size == 2) {
      r = o->void2 == HLO_TYPE_COUNT ? HLO_BF16 : o->void2;
    } else if (size == 1) {
      if (o->void1 == HLO_TYPE_COUNT)
        return hlo_errorf(d, NULL, 0,
                          "%s: dtype '%s' is a 1-byte ml_dtypes type (float8_*, float4_e2m1fn, "
                          "int4, ...) that the file does not name; give the element type",
                          name, s);
      r = o->void1;
    }
    if (r != HLO_TYPE_COUNT && hlo_type_bytes(r) != size)
      return hlo_errorf(d, NULL, 0, "%s: dtype '%s' does not have the size of %s", name, s,
                        hlo_type_name(r));
    break;
  default: break;
  }
  if (r == HLO_TYPE_COUNT) return hlo_errorf(d, NULL, 0, "%s: unsupported dtype '%s'", name, s);
  bool file_big = order == '>' || (order == '=' && !host_little());
  *swap = size > 1 && file_big == host_little();
  *t = r;
  return HLO_OK;
}

/* ---- header ----------------------------------------------------------------- */

typedef struct hdr_lex {
  const char *s;
  size_t n, i;
} hdr_lex;

static void skip_ws(hdr_lex *L) {
  while (L->i < L->n && (L->s[L->i] == ' ' || L->s[L->i] == '\t' || L->s[L->i] == '\n' ||
                         L->s[L->i] == '\r'))
    L->i++;
}

static bool eat(hdr_lex *L, char c) {
  skip_ws(L);
  if (L->i < L->n && L->s[L->i] == c) {
    L->i++;
    return true;
  }
  return false;
}

/* A Python string literal without escapes (numpy never writes any). */
static bool lex_str(hdr_lex *L, char *out, size_t cap) {
  skip_ws(L);
  if (L->i >= L->n || (L->s[L->i] != '\'' && L->s[L->i] != '"')) return false;
  char q = L->s[L->i++];
  size_t k = 0;
  while (L->i < L->n && L->s[L->i] != q) {
    if (L->s[L->i] == '\\' || k + 1 >= cap) return false;
    out[k++] = L->s[L->i++];
  }
  if (L->i >= L->n) return false;
  L->i++;
  out[k] = 0;
  return true;
}

static bool lex_word(hdr_lex *L, const char *w) {
  skip_ws(L);
  size_t n = strlen(w);
  if (L->n - L->i >= n && memcmp(L->s + L->i, w, n) == 0) {
    L->i += n;
    return true;
  }
  return false;
}

static bool lex_int(hdr_lex *L, int64_t *v) {
  skip_ws(L);
  size_t i0 = L->i;
  uint64_t x = 0;
  while (L->i < L->n && L->s[L->i] >= '0' && L->s[L->i] <= '9') {
    x = x * 10 + (uint64_t)(L->s[L->i++] - '0');
    if (x > (uint64_t)INT64_MAX) return false;
  }
  if (L->i == i0) return false;
  if (L->i < L->n && L->s[L->i] == 'L') L->i++; /* Python 2 long */
  *v = (int64_t)x;
  return true;
}

typedef struct npy_header {
  char descr[32];
  bool fortran;
  int rank;
  int64_t dims[HLO_NPY_MAX_RANK];
} npy_header;

/* header -> '{' (key ':' value ',')* key ':' value ','? '}' with exactly the
 * keys descr, fortran_order, shape. */
static int parse_header(const char *name, const char *s, size_t n, npy_header *h,
                        hlo_diags *d) {
  hdr_lex L = {s, n, 0};
  bool seen[3] = {false, false, false};
  if (!eat(&L, '{')) return hlo_errorf(d, NULL, 0, "%s: header is not a Python dict", name);
  while (!eat(&L, '}')) {
    char key[32];
    if (!lex_str(&L, key, sizeof key) || !eat(&L, ':'))
      return hlo_errorf(d, NULL, 0, "%s: malformed header near byte %zu", name, L.i);
    if (strcmp(key, "descr") == 0 && !seen[0]) {
      skip_ws(&L);
      if (L.i < L.n && L.s[L.i] == '[')
        return hlo_errorf(d, NULL, 0, "%s: structured dtypes are not supported", name);
      if (!lex_str(&L, h->descr, sizeof h->descr))
        return hlo_errorf(d, NULL, 0, "%s: malformed 'descr' in header", name);
      seen[0] = true;
    } else if (strcmp(key, "fortran_order") == 0 && !seen[1]) {
      if (lex_word(&L, "True")) h->fortran = true;
      else if (lex_word(&L, "False")) h->fortran = false;
      else return hlo_errorf(d, NULL, 0, "%s: malformed 'fortran_order' in header", name);
      seen[1] = true;
    } else if (strcmp(key, "shape") == 0 && !seen[2]) {
      if (!eat(&L, '(')) return hlo_errorf(d, NULL, 0, "%s: malformed 'shape' in header", name);
      h->rank = 0;
      while (!eat(&L, ')')) {
        if (h->rank >= HLO_NPY_MAX_RANK)
          return hlo_errorf(d, NULL, 0, "%s: more than %d dimensions", name, HLO_NPY_MAX_RANK);
        if (!lex_int(&L, &h->dims[h->rank]))
          return hlo_errorf(d, NULL, 0, "%s: malformed 'shape' in header", name);
        h->rank++;
        if (!eat(&L, ',')) {
          if (!eat(&L, ')'))
            return hlo_errorf(d, NULL, 0, "%s: malformed 'shape' in header", name);
          if (h->rank == 1) /* (3) is an int, not a tuple */
            return hlo_errorf(d, NULL, 0, "%s: malformed 'shape' in header", name);
          break;
        }
      }
      seen[2] = true;
    } else {
      return hlo_errorf(d, NULL, 0, "%s: unexpected or repeated key '%s' in header", name, key);
    }
    if (!eat(&L, ',')) {
      if (!eat(&L, '}')) return hlo_errorf(d, NULL, 0, "%s: malformed header near byte %zu", name, L.i);
      break;
    }
  }
  skip_ws(&L);
  if (L.i != L.n) return hlo_errorf(d, NULL, 0, "%s: junk after the header dict", name);
  if (!seen[0] || !seen[1] || !seen[2])
    return hlo_errorf(d, NULL, 0, "%s: header lacks one of 'descr', 'fortran_order', 'shape'",
                      name);
  return HLO_OK;
}

/* ---- arrays ----------------------------------------------------------------- */

int hlo_array_alloc(hlo_arena *a, hlo_type t, int rank, const int64_t *dims, hlo_array *out) {
  if (!hlo_type_is_array(t) || rank < 0 || rank > HLO_NPY_MAX_RANK) return HLO_ERR;
  size_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0 || (uint64_t)dims[i] > SIZE_MAX) return HLO_ERR;
    if (hlo_mul_overflow(n, (size_t)dims[i], &n)) return HLO_ERR;
  }
  size_t bytes;
  if (n > (size_t)INT64_MAX || hlo_mul_overflow(n, (size_t)hlo_type_bytes(t), &bytes))
    return HLO_ERR;
  int64_t *dv = NULL;
  if (rank) {
    dv = hlo_arena_array(a, (size_t)rank, sizeof *dv);
    if (!dv) return HLO_ERR;
    memcpy(dv, dims, (size_t)rank * sizeof *dv);
  }
  void *data = hlo_arena_alloc(a, bytes ? bytes : 1);
  if (!data) return HLO_ERR;
  out->type = t;
  out->rank = rank;
  out->dims = dv;
  out->nelems = (int64_t)n;
  out->data = data;
  return HLO_OK;
}

int hlo_array_to_literal(hlo_arena *a, const hlo_array *arr, hlo_literal *lit) {
  memset(lit, 0, sizeof *lit);
  if (hlo_shape_make_array(a, &lit->shape, arr->type, arr->rank, arr->dims) != HLO_OK)
    return HLO_ERR;
  lit->data = arr->data;
  lit->nelems = arr->nelems;
  return HLO_OK;
}

static void swap_bytes(unsigned char *p, int n) {
  for (int i = 0; i < n / 2; i++) {
    unsigned char c = p[i];
    p[i] = p[n - 1 - i];
    p[n - 1 - i] = c;
  }
}

/* What the header of a whole .npy image says, checked against its length:
 * the data starts at b + off and holds exactly bytes bytes. */
typedef struct npy_layout {
  npy_header h;
  hlo_type t;
  bool swap;
  size_t off, n, bytes;
} npy_layout;

static int npy_parse(const char *name, const void *buf, size_t len, const hlo_npy_opts *opts,
                     npy_layout *L, hlo_diags *d) {
  hlo_npy_opts defaults = hlo_npy_default_opts();
  if (!opts) opts = &defaults;
  const unsigned char *b = buf;
  if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
    return hlo_errorf(d, NULL, 0, "%s: not a .npy file (bad magic)", name);
  int major = b[6], minor = b[7];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = (size_t)b[8] | (size_t)b[9] << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) return hlo_errorf(d, NULL, 0, "%s: truncated header", name);
    hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    hstart = 12;
  } else {
    return hlo_errorf(d, NULL, 0, "%s: unsupported .npy version %d.%d", name, major, minor);
  }
  if (minor != 0)
    return hlo_errorf(d, NULL, 0, "%s: unsupported .npy version %d.%d", name, major, minor);
  if (hlen > len - hstart)
    return hlo_errorf(d, NULL, 0, "%s: truncated header (%zu bytes announced, %zu present)", name,
                      hlen, len - hstart);
  for (size_t i = 0; i < hlen; i++)
    if (b[hstart + i] == 0 || (major < 3 && b[hstart + i] >= 0x80))
      return hlo_errorf(d, NULL, 0, "%s: header contains a bad byte at offset %zu", name,
                        hstart + i);
  npy_header h;
  memset(&h, 0, sizeof h);
  memset(L, 0, sizeof *L);
  if (parse_header(name, (const char *)b + hstart, hlen, &h, d) != HLO_OK) return HLO_ERR;
  hlo_type t = HLO_PRED;
  bool swap = false;
  if (map_descr(name, h.descr, opts, &t, &swap, d) != HLO_OK) return HLO_ERR;
  int esize = hlo_type_bytes(t);
  size_t n = 1, bytes;
  for (int i = 0; i < h.rank; i++)
    if ((uint64_t)h.dims[i] > SIZE_MAX || hlo_mul_overflow(n, (size_t)h.dims[i], &n))
      return hlo_errorf(d, NULL, 0, "%s: shape is too large", name);
  if (hlo_mul_overflow(n, (size_t)esize, &bytes) || n > (size_t)INT64_MAX)
    return hlo_errorf(d, NULL, 0, "%s: shape is too large", name);
  size_t avail = len - hstart - hlen;
  if (bytes > avail)
    return hlo_errorf(d, NULL, 0, "%s: truncated data: shape needs %zu bytes, file has %zu", name,
                      bytes, avail);
  if (bytes < avail)
    return hlo_errorf(d, NULL, 0, "%s: %zu bytes of trailing data after the array", name,
                      avail - bytes);
  if ((uint64_t)bytes > npy_max_bytes(opts))
    return hlo_errorf(d, NULL, 0, "%s: array of %zu bytes exceeds the limit", name, bytes);
  L->h = h;
  L->t = t;
  L->swap = swap;
  L->off = hstart + hlen;
  L->n = n;
  L->bytes = bytes;
  return HLO_OK;
}

/* Copy the payload of a parsed image into out (row-major, host order). */
static int npy_copy(hlo_arena *a, const char *name, const unsigned char *b, const npy_layout *L,
                    hlo_array *out, hlo_diags *d) {
  const npy_header h = L->h;
  hlo_type t = L->t;
  int esize = hlo_type_bytes(t);
  size_t n = L->n, bytes = L->bytes, hstart = L->off, hlen = 0;
  bool swap = L->swap;
  if (hlo_array_alloc(a, t, h.rank, h.dims, out) != HLO_OK)
    return hlo_errorf(d, NULL, 0, "%s: out of memory", name);
  const unsigned char *src = b + hstart + hlen;
  unsigned char *dst = out->data;
  if (!h.fortran || h.rank < 2) {
    memcpy(dst, src, bytes);
  } else {
    /* Walk the destination in row-major order; the source offset follows
     * column-major strides. */
    int64_t idx[HLO_NPY_MAX_RANK] = {0}, stride[HLO_NPY_MAX_RANK];
    int64_t s = 1;
    for (int k = 0; k < h.rank; k++) {
      stride[k] = s;
      s *= h.dims[k];
    }
    int64_t off = 0;
    for (size_t j = 0; j < n; j++) {
      memcpy(dst + j * (size_t)esize, src + (size_t)off * (size_t)esize, (size_t)esize);
      for (int k = h.rank - 1; k >= 0; k--) {
        off += stride[k];
        if (++idx[k] < h.dims[k]) break;
        off -= stride[k] * h.dims[k];
        idx[k] = 0;
      }
    }
  }
  if (swap) {
    int part = hlo_type_kind_of(t) == HLO_KIND_COMPLEX ? esize / 2 : esize;
    for (size_t j = 0; j < bytes; j += (size_t)part) swap_bytes(dst + j, part);
  }
  if (t == HLO_PRED)
    for (size_t j = 0; j < n; j++) dst[j] = dst[j] != 0;
  return HLO_OK;
}

int hlo_npy_read(hlo_arena *a, const char *name, const void *buf, size_t len,
                 const hlo_npy_opts *opts, hlo_array *out, hlo_diags *d) {
  npy_layout L;
  if (npy_parse(name, buf, len, opts, &L, d) != HLO_OK) return HLO_ERR;
  return npy_copy(a, name, buf, &L, out, d);
}

/* ---- writing ----------------------------------------------------------------- */

int hlo_npy_write(hlo_buf *b, const hlo_array *arr, hlo_diags *d) {
  const char *descr = hlo_npy_descr(arr->type);
  if (!descr) return hlo_errorf(d, NULL, 0, "cannot store %s arrays in .npy", hlo_type_name(arr->type));
  hlo_buf h;
  hlo_buf_init(&h, b->alloc);
  hlo_buf_printf(&h, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < arr->rank; i++)
    hlo_buf_printf(&h, i ? ", %lld" : "%lld", (long long)arr->dims[i]);
  hlo_buf_puts(&h, arr->rank == 1 ? ",), }" : "), }");
  if (arr->rank > 0) { /* numpy leaves room to grow the first axis in place */
    int digits = snprintf(NULL, 0, "%lld", (long long)arr->dims[0]);
    for (int i = digits; i < 21; i++) hlo_buf_putc(&h, ' ');
  }
  /* numpy pads magic + length + header + '\n' to a multiple of 64 and
   * switches to version 2.0 when the header length does not fit 16 bits. */
  size_t hl = h.len + 1;
  int major = 1;
  size_t pre = 10, pad = (64 - (pre + hl) % 64) % 64;
  if (hl + pad > 65535) {
    major = 2;
    pre = 12;
    pad = (64 - (pre + hl) % 64) % 64;
  }
  size_t total = hl + pad;
  unsigned char p[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0};
  p[8] = (unsigned char)total;
  p[9] = (unsigned char)(total >> 8);
  p[10] = (unsigned char)(total >> 16);
  p[11] = (unsigned char)(total >> 24);
  hlo_buf_put(b, (const char *)p, pre);
  hlo_buf_put(b, h.data ? h.data : "", h.len);
  for (size_t i = 0; i < pad; i++) hlo_buf_putc(b, ' ');
  hlo_buf_putc(b, '\n');
  bool failed = h.failed;
  hlo_buf_release(&h);
  int esize = hlo_type_bytes(arr->type);
  size_t bytes = (size_t)arr->nelems * (size_t)esize;
  size_t at = b->len;
  hlo_buf_put(b, arr->data, bytes);
  if (b->failed || failed) return hlo_errorf(d, NULL, 0, "out of memory writing .npy");
  unsigned char *q = (unsigned char *)b->data + at;
  if (arr->type == HLO_PRED)
    for (size_t j = 0; j < bytes; j++) q[j] = q[j] != 0;
  if (!host_little() && esize > 1) {
    int part = hlo_type_kind_of(arr->type) == HLO_KIND_COMPLEX ? esize / 2 : esize;
    for (size_t j = 0; j < bytes; j += (size_t)part) swap_bytes(q + j, part);
  }
  return HLO_OK;
}

/* ---- files -------------------------------------------------------------------- */

int npy_read_file(const hlo_allocator *alloc, const char *path, uint64_t max_len, void **buf,
                  size_t *len, hlo_diags *d) {
  FILE *f = fopen(path, "rb");
  if (!f) return hlo_errorf(d, NULL, 0, "%s: cannot open: %s", path, strerror(errno));
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return hlo_errorf(d, NULL, 0, "%s: cannot determine the file size", path);
  }
  if ((uint64_t)size > max_len) {
    fclose(f);
    return hlo_errorf(d, NULL, 0, "%s: file of %ld bytes exceeds the limit", path, size);
  }
  unsigned char *p = hlo_malloc(alloc, size ? (size_t)size : 1);
  if (!p) {
    fclose(f);
    return hlo_errorf(d, NULL, 0, "%s: out of memory", path);
  }
  size_t got = fread(p, 1, (size_t)size, f);
  int err = ferror(f);
  fclose(f);
  if (got != (size_t)size || err) {
    hlo_free(alloc, p);
    return hlo_errorf(d, NULL, 0, "%s: read error", path);
  }
  *buf = p;
  *len = (size_t)size;
  return HLO_OK;
}

int npy_write_file(const char *path, const void *buf, size_t len, hlo_diags *d) {
  npy_out o;
  if (npy_out_open(&o, path, len, d) != HLO_OK) return HLO_ERR;
  npy_out_put(&o, buf, len);
  return npy_out_close(&o, d);
}

int hlo_npy_load(hlo_arena *a, const char *path, const hlo_npy_opts *opts, hlo_array *out,
                 hlo_diags *d) {
  void *buf;
  size_t len;
  /* header and padding are small: a file may exceed the array limit by 1 MiB */
  if (npy_read_file(a->alloc, path, npy_max_bytes(opts) + (1u << 20), &buf, &len, d) != HLO_OK)
    return HLO_ERR;
  int rc = hlo_npy_read(a, path, buf, len, opts, out, d);
  hlo_free(a->alloc, buf);
  return rc;
}

bool npy_direct(const hlo_array *arr) {
  return arr->type != HLO_PRED && (host_little() || hlo_type_bytes(arr->type) == 1);
}

int npy_header_of(hlo_buf *b, const hlo_array *arr, hlo_diags *d) {
  hlo_array head = *arr; /* an empty array gives the same header bytes */
  head.nelems = 0;
  return hlo_npy_write(b, &head, d);
}

int hlo_npy_save(const char *path, const hlo_array *arr, hlo_diags *d) {
  hlo_buf b;
  hlo_buf_init(&b, d ? d->alloc : NULL);
  if (!npy_direct(arr)) {
    int rc = hlo_npy_write(&b, arr, d);
    if (rc == HLO_OK) rc = npy_write_file(path, b.data, b.len, d);
    hlo_buf_release(&b);
    return rc;
  }
  /* The header, then the data from where it lies. */
  int rc = npy_header_of(&b, arr, d);
  if (rc == HLO_OK) {
    size_t bytes = (size_t)arr->nelems * (size_t)hlo_type_bytes(arr->type);
    npy_out o;
    rc = npy_out_open(&o, path, (uint64_t)b.len + bytes, d);
    if (rc == HLO_OK) {
      npy_out_put(&o, b.data, b.len);
      npy_out_put(&o, arr->data, bytes);
      rc = npy_out_close(&o, d);
    }
  }
  hlo_buf_release(&b);
  return rc;
}

int npy_view(hlo_arena *a, const char *name, void *p, size_t len, const hlo_npy_opts *opts,
             hlo_array *out, bool *viewed, hlo_diags *d) {
  *viewed = false;
  npy_layout L;
  /* npy_parse compares the byte count with header size x elements before
   * any payload byte is touched. */
  if (npy_parse(name, p, len, opts, &L, d) != HLO_OK) return HLO_ERR;
  const unsigned char *data = (const unsigned char *)p + L.off;
  int esize = hlo_type_bytes(L.t);
  size_t align = esize >= 8 ? 8 : esize > 1 ? (size_t)esize : 1; /* the C type's alignment */
  if ((L.h.fortran && L.h.rank >= 2) || L.swap || L.t == HLO_PRED || (uintptr_t)data % align)
    return npy_copy(a, name, p, &L, out, d);
  int64_t *dv = L.h.rank ? hlo_arena_array(a, (size_t)L.h.rank, sizeof *dv) : NULL;
  if (L.h.rank && !dv) return hlo_errorf(d, NULL, 0, "%s: out of memory", name);
  if (L.h.rank) memcpy(dv, L.h.dims, (size_t)L.h.rank * sizeof *dv);
  out->type = L.t;
  out->rank = L.h.rank;
  out->dims = dv;
  out->nelems = (int64_t)L.n;
  out->data = (void *)data;
  *viewed = true;
  return HLO_OK;
}

int npy_map_file(const char *path, uint64_t max_len, hlo_npy_mapping *m, hlo_diags *d) {
  m->base = NULL;
  m->len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return hlo_errorf(d, NULL, 0, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 64) {
    close(fd); /* pipes, devices, tiny files: the read path */
    return HLO_OK;
  }
  if ((uint64_t)st.st_size > max_len || (uint64_t)st.st_size > SIZE_MAX) {
    close(fd);
    return hlo_errorf(d, NULL, 0, "%s: file of %lld bytes exceeds the limit", path,
                      (long long)st.st_size);
  }
  size_t len = (size_t)st.st_size;
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return HLO_OK;
  m->base = p;
  m->len = len;
  return HLO_OK;
}

int hlo_npy_map(hlo_arena *a, const char *path, const hlo_npy_opts *opts, hlo_array *out,
                hlo_npy_mapping *m, hlo_diags *d) {
  if (npy_map_file(path, npy_max_bytes(opts) + (1u << 20), m, d) != HLO_OK) return HLO_ERR;
  if (!m->base) return hlo_npy_load(a, path, opts, out, d);
  bool viewed;
  int rc = npy_view(a, path, m->base, m->len, opts, out, &viewed, d);
  if (rc != HLO_OK || !viewed) hlo_npy_unmap(m);
  return rc;
}

void hlo_npy_unmap(hlo_npy_mapping *m) {
  if (m->base) munmap(m->base, m->len);
  m->base = NULL;
  m->len = 0;
}
