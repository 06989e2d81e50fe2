/* alloc.c - the allocator hook and checked size arithmetic. */
#include <stdlib.h>

#include "hlo/hlo_core.h"

void *hlo_malloc(const hlo_allocator *a, size_t n) {
  if (n == 0) n = 1;
  return a && a->alloc ? a->alloc(a->ud, n) : malloc(n);
}

void *hlo_realloc(const hlo_allocator *a, void *p, size_t n) {
  if (n == 0) n = 1;
  return a && a->realloc ? a->realloc(a->ud, p, n) : realloc(p, n);
}

void hlo_free(const hlo_allocator *a, void *p) {
  if (!p) return;
  if (a && a->free)
    a->free(a->ud, p);
  else
    free(p);
}

bool hlo_mul_overflow(size_t a, size_t b, size_t *out) {
  size_t r;
  if (__builtin_mul_overflow(a, b, &r)) return true;
  *out = r;
  return false;
}

bool hlo_add_overflow(size_t a, size_t b, size_t *out) {
  size_t r;
  if (__builtin_add_overflow(a, b, &r)) return true;
  *out = r;
  return false;
}
