/* arena.c - bump allocation in blocks; one release frees everything. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "hlo/hlo_core.h"

struct hlo_arena_block {
  hlo_arena_block *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
};

enum { ARENA_MIN_BLOCK = 64 * 1024 };

/* Big blocks ask the kernel for transparent huge pages where it offers
 * them on request (THP "madvise" mode): filling a 300 MB IR otherwise costs
 * one page fault per 4 KB.  Only a hint; failure changes nothing. */
static void advise_huge(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  enum { HUGE = 2u << 20 };
  if (n < 2 * (size_t)HUGE) return;
  uintptr_t lo = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
  uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE - 1);
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

void hlo_arena_init(hlo_arena *a, const hlo_allocator *alloc) {
  memset(a, 0, sizeof *a);
  a->alloc = alloc;
}

void hlo_arena_release(hlo_arena *a) {
  hlo_arena_block *b = a->head;
  while (b) {
    hlo_arena_block *next = b->next;
    hlo_free(a->alloc, b);
    b = next;
  }
  a->head = NULL;
  a->bytes_reserved = a->bytes_used = 0;
}

void *hlo_arena_alloc(hlo_arena *a, size_t n) {
  size_t need;
  if (hlo_add_overflow(n, 15, &need)) return NULL;
  need &= ~(size_t)15;
  if (need == 0) need = 16;
  hlo_arena_block *b = a->head;
  if (b) { /* realign after byte-granular string allocations */
    size_t pad = (16 - (b->used & 15)) & 15;
    if (b->size - b->used >= pad) {
      b->used += pad;
      a->bytes_used += pad;
    }
  }
  if (!b || b->size - b->used < need) {
    size_t size = need > ARENA_MIN_BLOCK ? need : ARENA_MIN_BLOCK;
    /* grow blocks with the arena so big modules need few mallocs */
    if (a->bytes_reserved / 4 > size && a->bytes_reserved / 4 < ((size_t)64 << 20))
      size = a->bytes_reserved / 4;
    size_t total;
    if (hlo_add_overflow(size, sizeof(hlo_arena_block), &total)) return NULL;
    hlo_arena_block *nb = hlo_malloc(a->alloc, total);
    if (!nb) return NULL;
    nb->size = size;
    nb->used = 0;
    advise_huge(nb->data, size);
    /* keep a partly used big head block in front when the new block is
     * a one-off large allocation */
    if (b && need > ARENA_MIN_BLOCK && b->size - b->used > 4096) {
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      a->head = nb;
    }
    a->bytes_reserved += size;
    b = nb;
  }
  void *p = b->data + b->used;
  b->used += need;
  a->bytes_used += need;
  memset(p, 0, need);
  return p;
}

void *hlo_arena_array(hlo_arena *a, size_t n, size_t sz) {
  size_t total;
  if (hlo_mul_overflow(n, sz, &total)) return NULL;
  return hlo_arena_alloc(a, total);
}

/* Strings need no alignment: take them byte-granular from the head block
 * (the next aligned allocation rounds the block's fill up again). */
static char *alloc_bytes(hlo_arena *a, size_t n) {
  hlo_arena_block *b = a->head;
  if (b && b->size - b->used >= n) {
    char *p = (char *)b->data + b->used;
    b->used += n;
    a->bytes_used += n;
    return p;
  }
  return hlo_arena_alloc(a, n);
}

char *hlo_arena_strndup(hlo_arena *a, const char *s, size_t n) {
  size_t total;
  if (hlo_add_overflow(n, 1, &total)) return NULL;
  char *p = alloc_bytes(a, total);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *hlo_arena_strdup(hlo_arena *a, const char *s) {
  return hlo_arena_strndup(a, s, strlen(s));
}

char *hlo_arena_printf(hlo_arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = n < 0 ? NULL : hlo_arena_alloc(a, (size_t)n + 1);
  if (p) vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}
