/* nprepr.c - numpy's repr() of an array, as numpy 1.24 prints it with the
 * default print options (precision 8, floatmode 'maxprec', linewidth 75,
 * threshold 1000, edgeitems 3).  The structure follows numpy's arrayprint:
 * a per-dtype element formatter sized from the shown elements, then the
 * recursive layout with hanging indents and line wrapping.  Float digits
 * are the shortest that round-trip in the element type (Dragon4 'unique'),
 * cut to 8 fractional digits with exact rounding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_fp.h"
#include "hlo/hlo_npy.h"

enum { PRECISION = 8, LINEWIDTH = 75, THRESHOLD = 1000, EDGEITEMS = 3 };

/* ---- float digits -------------------------------------------------------- */

/* Shortest decimal digits that read back to |x| in type t: x = d[0].d[1..n) * 10^*e. */
static void shortest(hlo_type t, uint64_t bits, double ax, char *d, int *n, int *e) {
  if (ax == 0) {
    strcpy(d, "0");
    *n = 1;
    *e = 0;
    return;
  }
  uint64_t want = hlo_fp_from_double(t, ax);
  (void)bits;
  for (int p = 1; p <= 17; p++) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*e", p - 1, ax);
    /* mantissa digits and exponent */
    char dig[24];
    int k = 0;
    const char *q = buf;
    for (; *q && *q != 'e'; q++)
      if (*q >= '0' && *q <= '9') dig[k++] = *q;
    int ex = atoi(q + 1);
    uint64_t m = 0;
    for (int i = 0; i < k; i++) m = m * 10 + (uint64_t)(dig[i] - '0');
    /* the nearest p-digit decimal, then its neighbours (asymmetric gaps) */
    uint64_t lo = 1, hi = 10;
    for (int i = 1; i < p; i++) lo *= 10, hi *= 10;
    int64_t best_delta = 0;
    bool found = false;
    double best_err = 0;
    for (int delta = 0; delta <= 2; delta++) {
      int64_t dm = delta == 0 ? 0 : delta == 1 ? -1 : 1;
      uint64_t c = m + (uint64_t)dm;
      int cex = ex;
      if (c < lo || c >= hi) continue; /* crossing a power of ten: not needed */
      char txt[64];
      snprintf(txt, sizeof txt, "%llue%d", (unsigned long long)c, cex - (p - 1));
      uint64_t back;
      if (hlo_fp_parse(txt, strlen(txt), t, &back) != HLO_OK || back != want) continue;
      double err = fabs(strtod(txt, NULL) - ax);
      if (!found || err < best_err) {
        found = true;
        best_err = err;
        best_delta = dm;
      }
      if (delta == 0) break; /* the nearest one wins */
    }
    if (found) {
      uint64_t c = m + (uint64_t)best_delta;
      char out[24];
      snprintf(out, sizeof out, "%llu", (unsigned long long)c);
      int len = (int)strlen(out);
      while (len > 1 && out[len - 1] == '0') len--;
      memcpy(d, out, (size_t)len);
      d[len] = 0;
      *n = len;
      *e = ex;
      return;
    }
  }
  /* unreachable for finite values: 17 digits always round-trip */
  snprintf(d, 24, "0");
  *n = 1;
  *e = 0;
}

/* One float as numpy's first formatting pass prints it (precision 8,
 * unique, trim '.'): sign, integer part, fraction (possibly empty) and, in
 * scientific mode, the exponent text ("+05"). */
typedef struct fstr {
  char ip[440], fp[72], ex[16];
} fstr;

static void float_text(hlo_type t, uint64_t bits, bool sci, bool plus, fstr *o) {
  double x = hlo_fp_to_double(t, bits), ax = fabs(x);
  char d[24];
  int n, e;
  shortest(t, bits, ax, d, &n, &e);
  const char *sign = signbit(x) ? "-" : plus ? "+" : "";
  o->ex[0] = 0;
  if (sci) {
    char man[72];
    if (n - 1 <= PRECISION) {
      snprintf(o->ip, sizeof o->ip, "%s%c", sign, d[0]);
      snprintf(o->fp, sizeof o->fp, "%s", d + 1);
    } else {
      char buf[64];
      snprintf(buf, sizeof buf, "%.*e", PRECISION, ax);
      char *ep = strchr(buf, 'e');
      e = atoi(ep + 1);
      *ep = 0;
      snprintf(man, sizeof man, "%s", buf + 2); /* after "d." */
      int len = (int)strlen(man);
      while (len > 0 && man[len - 1] == '0') man[--len] = 0;
      snprintf(o->ip, sizeof o->ip, "%s%c", sign, buf[0]);
      snprintf(o->fp, sizeof o->fp, "%s", man);
    }
    snprintf(o->ex, sizeof o->ex, "%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    return;
  }
  int frac_needed = n - 1 - e;
  if (frac_needed <= 0) {
    /* Array printing passes min_digits=0, with which Dragon4 prints the
     * integer part exactly (18736 in float16, not the shortest 18740). */
    snprintf(o->ip, sizeof o->ip, "%s%.0f", sign, ax);
    o->fp[0] = 0;
  } else if (frac_needed <= PRECISION) {
    char ip[400], fp[40];
    int ni = 0, nf = 0;
    if (e < 0) {
      ip[ni++] = '0';
      for (int i = 0; i < -e - 1; i++) fp[nf++] = '0';
      for (int i = 0; i < n; i++) fp[nf++] = d[i];
    } else {
      for (int i = 0; i <= e; i++) ip[ni++] = i < n ? d[i] : '0';
      for (int i = e + 1; i < n; i++) fp[nf++] = d[i];
    }
    ip[ni] = 0;
    fp[nf] = 0;
    snprintf(o->ip, sizeof o->ip, "%s%s", sign, ip);
    snprintf(o->fp, sizeof o->fp, "%s", fp);
  } else {
    char buf[420];
    snprintf(buf, sizeof buf, "%.*f", PRECISION, ax);
    char *dot = strchr(buf, '.');
    *dot = 0;
    int len = (int)strlen(dot + 1);
    while (len > 0 && dot[len] == '0') dot[len--] = 0;
    snprintf(o->ip, sizeof o->ip, "%s%s", sign, buf);
    snprintf(o->fp, sizeof o->fp, "%s", dot + 1);
  }
}

/* numpy's FloatingFormat, filled from the shown values. */
typedef struct ffmt {
  hlo_type t;
  bool plus, sci;
  int precision, pad_left, pad_right, exp_size;
} ffmt;

static void ffmt_fill(ffmt *f, hlo_type t, bool plus, const uint64_t *v, size_t n) {
  memset(f, 0, sizeof *f);
  f->t = t;
  f->plus = plus;
  f->exp_size = -1;
  double mx = 0, mn = INFINITY;
  size_t nfinite = 0;
  bool neginf = false;
  for (size_t i = 0; i < n; i++) {
    double x = hlo_fp_to_double(t, v[i]);
    if (isnan(x) || isinf(x)) {
      if (isinf(x) && x < 0) neginf = true;
      continue;
    }
    nfinite++;
    if (x != 0) {
      mx = fmax(mx, fabs(x));
      mn = fmin(mn, fabs(x));
    }
  }
  if (mn != INFINITY) { /* comparisons in the element type, as numpy does */
    double big = hlo_fp_to_double(t, hlo_fp_from_double(t, 1e8));
    double small = hlo_fp_to_double(t, hlo_fp_from_double(t, 1e-4));
    double thousand = hlo_fp_to_double(t, hlo_fp_from_double(t, 1000.0));
    double ratio = hlo_fp_to_double(t, hlo_fp_from_double(t, mx / mn));
    f->sci = mx >= big || mn < small || ratio > thousand;
  }
  if (nfinite) {
    int max_ip = 0, max_fp = 0, max_ex = 0;
    for (size_t i = 0; i < n; i++) {
      double x = hlo_fp_to_double(t, v[i]);
      if (isnan(x) || isinf(x)) continue;
      fstr s;
      float_text(t, v[i], f->sci, plus, &s);
      int li = (int)strlen(s.ip), lf = (int)strlen(s.fp), le = (int)strlen(s.ex);
      if (li > max_ip) max_ip = li;
      if (lf > max_fp) max_fp = lf;
      if (le > max_ex) max_ex = le;
    }
    f->pad_left = max_ip;
    if (f->sci) {
      f->precision = max_fp;
      f->exp_size = max_ex - 1;
      f->pad_right = f->exp_size + 2 + f->precision;
    } else {
      f->pad_right = max_fp;
    }
  }
  if (nfinite != n) {
    int inflen = 3 + (plus || neginf);
    int offset = f->pad_right + 1;
    if (3 - offset > f->pad_left) f->pad_left = 3 - offset;
    if (inflen - offset > f->pad_left) f->pad_left = inflen - offset;
  }
}

static void pad(hlo_buf *b, int n) {
  for (int i = 0; i < n; i++) hlo_buf_putc(b, ' ');
}

static void ffmt_put(const ffmt *f, uint64_t bits, hlo_buf *b) {
  double x = hlo_fp_to_double(f->t, bits);
  if (isnan(x) || isinf(x)) {
    const char *r = isnan(x) ? (f->plus ? "+nan" : "nan")
                             : x < 0 ? "-inf" : f->plus ? "+inf" : "inf";
    pad(b, f->pad_left + f->pad_right + 1 - (int)strlen(r));
    hlo_buf_puts(b, r);
    return;
  }
  if (f->sci) {
    /* Final pass: min_digits = precision makes Dragon4 print the exact
     * value's digits (not zeros) beyond the shortest ones, rounded. */
    char buf[80];
    snprintf(buf, sizeof buf, "%.*e", f->precision, fabs(x));
    char *ep = strchr(buf, 'e');
    int e = atoi(ep + 1);
    *ep = 0;
    char ip[4] = {0};
    ip[0] = signbit(x) ? '-' : f->plus ? '+' : 0;
    size_t il = strlen(ip);
    ip[il] = buf[0];
    pad(b, f->pad_left - (int)strlen(ip));
    hlo_buf_puts(b, ip);
    hlo_buf_putc(b, '.');
    if (f->precision > 0) hlo_buf_puts(b, buf + 2);
    char ex[16];
    int el = snprintf(ex, sizeof ex, "%d", e < 0 ? -e : e);
    hlo_buf_putc(b, 'e');
    hlo_buf_putc(b, e < 0 ? '-' : '+');
    for (int i = el; i < (f->exp_size > 2 ? f->exp_size : 2); i++) hlo_buf_putc(b, '0');
    hlo_buf_puts(b, ex);
    return;
  }
  fstr s;
  float_text(f->t, bits, false, f->plus, &s);
  pad(b, f->pad_left - (int)strlen(s.ip));
  hlo_buf_puts(b, s.ip);
  hlo_buf_putc(b, '.');
  hlo_buf_puts(b, s.fp);
  pad(b, f->pad_right - (int)strlen(s.fp));
}

/* ---- elements ----------------------------------------------------------- */

typedef struct repr_ctx {
  const hlo_array *arr;
  hlo_type_kind kind;
  int esize;
  int64_t strides[HLO_NPY_MAX_RANK];
  bool summary;
  int int_width;
  ffmt re, im;
  bool failed;
} repr_ctx;

static uint64_t load_bits(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  memcpy(&v, p, (size_t)bytes); /* little-endian host */
  return v;
}

static bool is_signed_int(hlo_type t) { return hlo_type_kind_of(t) == HLO_KIND_SINT; }

/* Integer value of an element, sign-extended from the type's width. */
static void int_value(hlo_type t, uint64_t raw, int64_t *s, uint64_t *u) {
  int bits = hlo_type_bits(t);
  if (bits < 64) raw &= ((uint64_t)1 << bits) - 1;
  *u = raw;
  if (bits < 64 && (raw >> (bits - 1)) & 1) raw |= ~(uint64_t)0 << bits;
  *s = (int64_t)raw;
}

static int int_text(hlo_type t, uint64_t raw, char *buf, size_t cap) {
  int64_t s;
  uint64_t u;
  int_value(t, raw, &s, &u);
  return is_signed_int(t) ? snprintf(buf, cap, "%lld", (long long)s)
                          : snprintf(buf, cap, "%llu", (unsigned long long)u);
}

static void elem_put(repr_ctx *c, int64_t idx, hlo_buf *b) {
  const unsigned char *p = (const unsigned char *)c->arr->data + (size_t)idx * (size_t)c->esize;
  hlo_type t = c->arr->type;
  switch (c->kind) {
  case HLO_KIND_PRED:
    hlo_buf_puts(b, *p ? (c->arr->rank ? " True" : "True") : "False");
    return;
  case HLO_KIND_SINT:
  case HLO_KIND_UINT: {
    char buf[32];
    int len = int_text(t, load_bits(p, c->esize), buf, sizeof buf);
    pad(b, c->int_width - len);
    hlo_buf_puts(b, buf);
    return;
  }
  case HLO_KIND_FLOAT:
    ffmt_put(&c->re, load_bits(p, c->esize), b);
    return;
  case HLO_KIND_COMPLEX: {
    int half = c->esize / 2;
    ffmt_put(&c->re, load_bits(p, half), b);
    hlo_buf tmp;
    hlo_buf_init(&tmp, b->alloc);
    ffmt_put(&c->im, load_bits(p + half, half), &tmp);
    size_t end = tmp.len;
    while (end > 0 && tmp.data[end - 1] == ' ') end--;
    hlo_buf_put(b, tmp.data, end);
    hlo_buf_putc(b, 'j');
    hlo_buf_put(b, tmp.data + end, tmp.len - end);
    if (tmp.failed) c->failed = true;
    hlo_buf_release(&tmp);
    return;
  }
  case HLO_KIND_TOKEN: case HLO_KIND_OPAQUE: case HLO_KIND_TUPLE:
    return;
  }
}

/* Visit the flat indices of the shown elements (all, or the edge items of
 * every long axis when summarising). */
typedef struct shown {
  uint64_t *v, *v2;
  size_t n;
  int64_t imin, imax;
  uint64_t umax;
  bool any;
} shown;

static void collect(repr_ctx *c, int axis, int64_t off, shown *s) {
  const hlo_array *a = c->arr;
  if (axis == a->rank) {
    const unsigned char *p = (const unsigned char *)a->data + (size_t)off * (size_t)c->esize;
    if (c->kind == HLO_KIND_SINT || c->kind == HLO_KIND_UINT) {
      int64_t sv;
      uint64_t uv;
      int_value(a->type, load_bits(p, c->esize), &sv, &uv);
      if (!s->any || sv < s->imin) s->imin = sv;
      if (!s->any || sv > s->imax) s->imax = sv;
      if (!s->any || uv > s->umax) s->umax = uv;
      s->any = true;
    } else if (c->kind == HLO_KIND_FLOAT) {
      s->v[s->n] = load_bits(p, c->esize);
    } else if (c->kind == HLO_KIND_COMPLEX) {
      s->v[s->n] = load_bits(p, c->esize / 2);
      s->v2[s->n] = load_bits(p + c->esize / 2, c->esize / 2);
    }
    s->n++;
    return;
  }
  int64_t len = a->dims[axis];
  bool cut = c->summary && len > 2 * EDGEITEMS;
  for (int64_t i = 0; i < len; i++) {
    if (cut && i == EDGEITEMS) i = len - EDGEITEMS;
    collect(c, axis + 1, off + i * c->strides[axis], s);
  }
}

/* ---- layout (numpy's _formatArray) ------------------------------------------ */

static void extend_line(hlo_buf *s, hlo_buf *line, const char *word, size_t wlen, int width,
                        int indent) {
  bool wrap = line->len + wlen > (size_t)width;
  if (line->len <= (size_t)indent) wrap = false;
  if (wrap) {
    size_t end = line->len;
    while (end > 0 && line->data[end - 1] == ' ') end--;
    hlo_buf_put(s, line->data, end);
    hlo_buf_putc(s, '\n');
    line->len = 0;
    pad(line, indent);
  }
  hlo_buf_put(line, word, wlen);
}

static void recurse(repr_ctx *c, int axis, int64_t off, int indent, int width, hlo_buf *out) {
  const hlo_array *a = c->arr;
  int left = a->rank - axis;
  if (left == 0) {
    elem_put(c, off, out);
    return;
  }
  int64_t len = a->dims[axis];
  bool summ = c->summary && 2 * EDGEITEMS < len;
  int64_t lead = summ ? EDGEITEMS : 0, trail = summ ? EDGEITEMS : len;
  hlo_buf s;
  hlo_buf_init(&s, out->alloc);
  if (left == 1) {
    int ew = width - 1;
    hlo_buf line, word;
    hlo_buf_init(&line, out->alloc);
    hlo_buf_init(&word, out->alloc);
    pad(&line, indent);
    for (int64_t i = 0; i < len; i++) {
      if (i >= lead && i < len - trail) {
        if (i == lead) {
          extend_line(&s, &line, "...", 3, ew, indent);
          hlo_buf_puts(&line, ", ");
        }
        continue;
      }
      word.len = 0;
      recurse(c, axis + 1, off + i * c->strides[axis], indent + 1, width - 1, &word);
      extend_line(&s, &line, word.data ? word.data : "", word.len, ew, indent);
      if (i + 1 < len) hlo_buf_puts(&line, ", ");
    }
    hlo_buf_put(&s, line.data ? line.data : "", line.len);
    if (line.failed || word.failed) c->failed = true;
    hlo_buf_release(&line);
    hlo_buf_release(&word);
  } else {
    for (int64_t i = 0; i < len; i++) {
      if (i >= lead && i < len - trail) {
        if (i == lead) {
          pad(&s, indent);
          hlo_buf_puts(&s, "...,");
          for (int k = 0; k < left - 1; k++) hlo_buf_putc(&s, '\n');
        }
        continue;
      }
      pad(&s, indent);
      recurse(c, axis + 1, off + i * c->strides[axis], indent + 1, width - 1, &s);
      if (i + 1 < len) {
        hlo_buf_putc(&s, ',');
        for (int k = 0; k < left - 1; k++) hlo_buf_putc(&s, '\n');
      }
    }
  }
  hlo_buf_putc(out, '[');
  if (s.len > (size_t)indent) hlo_buf_put(out, s.data + indent, s.len - (size_t)indent);
  hlo_buf_putc(out, ']');
  if (s.failed) c->failed = true;
  hlo_buf_release(&s);
}

int hlo_npy_repr(hlo_buf *b, const hlo_array *arr, hlo_diags *d) {
  hlo_type t = arr->type;
  const char *name = hlo_npy_dtype_name(t);
  if (!hlo_type_is_array(t))
    return hlo_errorf(d, NULL, 0, "cannot print a %s array", hlo_type_name(t));
  bool implied = t == HLO_F64 || t == HLO_S64 || t == HLO_PRED || t == HLO_C128;
  bool skipdtype = implied && arr->nelems > 0;
  size_t start = b->len;
  hlo_buf_puts(b, "array(");
  if (arr->nelems == 0) {
    if (arr->rank == 1) {
      hlo_buf_puts(b, "[]");
    } else {
      hlo_buf_puts(b, "[], shape=(");
      for (int i = 0; i < arr->rank; i++)
        hlo_buf_printf(b, i ? ", %lld" : "%lld", (long long)arr->dims[i]);
      hlo_buf_puts(b, arr->rank == 1 ? ",)" : ")");
    }
  } else {
    repr_ctx c;
    memset(&c, 0, sizeof c);
    c.arr = arr;
    c.kind = hlo_type_kind_of(t);
    c.esize = hlo_type_bytes(t);
    c.summary = arr->nelems > THRESHOLD;
    int64_t st = 1;
    for (int i = arr->rank - 1; i >= 0; i--) {
      c.strides[i] = st;
      st *= arr->dims[i];
    }
    size_t maxshown = (size_t)arr->nelems;
    shown s;
    memset(&s, 0, sizeof s);
    if (c.kind == HLO_KIND_FLOAT || c.kind == HLO_KIND_COMPLEX) {
      s.v = hlo_malloc(b->alloc, maxshown * sizeof *s.v);
      s.v2 = hlo_malloc(b->alloc, maxshown * sizeof *s.v2);
      if (!s.v || !s.v2) {
        hlo_free(b->alloc, s.v);
        hlo_free(b->alloc, s.v2);
        b->len = start;
        return hlo_errorf(d, NULL, 0, "out of memory printing an array");
      }
    }
    collect(&c, 0, 0, &s);
    if (c.kind == HLO_KIND_SINT || c.kind == HLO_KIND_UINT) {
      char x[32], y[32];
      int lx = is_signed_int(t) ? snprintf(x, sizeof x, "%lld", (long long)s.imax)
                                : snprintf(x, sizeof x, "%llu", (unsigned long long)s.umax);
      int ly = snprintf(y, sizeof y, "%lld", (long long)s.imin);
      c.int_width = is_signed_int(t) && ly > lx ? ly : lx;
    } else if (c.kind == HLO_KIND_FLOAT) {
      ffmt_fill(&c.re, t, false, s.v, s.n);
    } else if (c.kind == HLO_KIND_COMPLEX) {
      hlo_type part = t == HLO_C64 ? HLO_F32 : HLO_F64;
      ffmt_fill(&c.re, part, false, s.v, s.n);
      ffmt_fill(&c.im, part, true, s.v2, s.n);
    }
    hlo_free(b->alloc, s.v);
    hlo_free(b->alloc, s.v2);
    recurse(&c, 0, 0, (int)strlen("array(") + 1, LINEWIDTH - 1, b);
    if (c.failed) b->failed = true;
  }
  if (skipdtype) {
    hlo_buf_putc(b, ')');
  } else {
    hlo_buf_putc(b, ',');
    bool quote = !((name[0] >= 'a' && name[0] <= 'z') && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789") == strlen(name));
    char dt[64];
    snprintf(dt, sizeof dt, quote ? "dtype='%s')" : "dtype=%s)", name);
    size_t nl = start;
    for (size_t i = start; i < b->len; i++)
      if (b->data[i] == '\n') nl = i + 1;
    size_t last = b->len - nl;
    if (last + strlen(dt) + 1 > LINEWIDTH) {
      hlo_buf_putc(b, '\n');
      pad(b, (int)strlen("array("));
    } else {
      hlo_buf_putc(b, ' ');
    }
    hlo_buf_puts(b, dt);
  }
  if (b->failed) return hlo_errorf(d, NULL, 0, "out of memory printing an array");
  return HLO_OK;
}
