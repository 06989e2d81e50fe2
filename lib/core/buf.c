/* buf.c - a growable byte buffer used by every printer. */
#include <stdio.h>
#include <string.h>

#include "hlo/hlo_core.h"

void hlo_buf_init(hlo_buf *b, const hlo_allocator *alloc) {
  memset(b, 0, sizeof *b);
  b->alloc = alloc;
}

void hlo_buf_release(hlo_buf *b) {
  hlo_free(b->alloc, b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

static bool reserve(hlo_buf *b, size_t extra) {
  if (b->failed) return false;
  size_t need;
  if (hlo_add_overflow(b->len, extra + 1, &need)) {
    b->failed = true;
    return false;
  }
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) {
    if (hlo_mul_overflow(cap, 2, &cap)) {
      b->failed = true;
      return false;
    }
  }
  char *p = hlo_realloc(b->alloc, b->data, cap);
  if (!p) {
    b->failed = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void hlo_buf_put(hlo_buf *b, const char *s, size_t n) {
  if (!reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, s, n); /* s may be NULL when n is 0 (an empty array) */
  b->len += n;
  b->data[b->len] = 0;
}

void hlo_buf_puts(hlo_buf *b, const char *s) { hlo_buf_put(b, s, strlen(s)); }

void hlo_buf_putc(hlo_buf *b, char c) {
  if (!reserve(b, 1)) return;
  b->data[b->len++] = c;
  b->data[b->len] = 0;
}

void hlo_buf_vprintf(hlo_buf *b, const char *fmt, va_list ap) {
  char small[256];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0) {
    va_end(ap2);
    b->failed = true;
    return;
  }
  if ((size_t)n < sizeof small) {
    hlo_buf_put(b, small, (size_t)n);
  } else if (reserve(b, (size_t)n)) {
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    b->len += (size_t)n;
  }
  va_end(ap2);
}

void hlo_buf_printf(hlo_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hlo_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

char *hlo_buf_take(hlo_buf *b) {
  if (!reserve(b, 0)) return NULL;
  char *p = b->data;
  p[b->len] = 0;
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}

void hlo_buf_put_u64(hlo_buf *b, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[sizeof tmp - 1 - n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  hlo_buf_put(b, tmp + sizeof tmp - n, (size_t)n);
}

void hlo_buf_put_i64(hlo_buf *b, int64_t v) {
  if (v < 0) {
    hlo_buf_putc(b, '-');
    hlo_buf_put_u64(b, (uint64_t)0 - (uint64_t)v);
  } else {
    hlo_buf_put_u64(b, (uint64_t)v);
  }
}
