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
