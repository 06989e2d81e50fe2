/* arena.c - bump allocation in blocks; one release frees everything.
 * Blocks arrive zeroed (calloc or a fresh mapping, or malloc + memset under a custom
 * allocator), so an allocation is a pointer bump with no memset. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hlo/hlo_core.h"

struct hlo_arena_block {
  hlo_arena_block *next;
  size_t size;
  size_t mapped; /* bytes mapped with mmap (large blocks), else 0 */
  _Alignas(16) unsigned char data[];
};

enum { ARENA_MIN_BLOCK = 64 * 1024 };
/* From this size on a block (which the arena fills from the start) is
 * mapped with its pages made present at once: one system call instead of
 * a page fault per 4 KiB, a large part of parsing a module.  Smaller
 * blocks come from calloc (glibc serves them from its heap). */
#define ARENA_POPULATE_MIN ((size_t)128 << 10)

void hlo_arena_init(hlo_arena *a, const hlo_allocator *alloc) {
  memset(a, 0, sizeof *a);
  a->alloc = alloc;
}

void hlo_arena_release(hlo_arena *a) {
  hlo_arena_block *b = a->head;
  while (b) {
    hlo_arena_block *next = b->next;
    if (b->mapped) munmap(b, b->mapped);
    else hlo_free(a->alloc, b);
    b = next;
  }
  const hlo_allocator *alloc = a->alloc;
  hlo_arena_init(a, alloc);
}

size_t hlo_arena_used(const hlo_arena *a) {
  return a->bytes_retired + (a->head ? (size_t)(a->cur - a->head->data) : 0);
}

/* From this size on a mapped block is aligned to 2 MiB and advised for
 * transparent huge pages before its pages are made present: one fault
 * and one clear per 2 MiB instead of per 4 KiB, which is most of the
 * kernel's share of parsing a large module. */
#define ARENA_HUGE_MIN ((size_t)4 << 20)
#define ARENA_HUGE_ALIGN ((size_t)2 << 20)

#ifdef MAP_POPULATE
/* An anonymous mapping of total bytes with its pages present, aligned to
 * 2 MiB and advised for huge pages when large; *mapped gets the length to
 * unmap (the mapping starts at the block).  NULL when mmap fails. */
static void *map_block(size_t total, size_t *mapped) {
#if defined(MADV_HUGEPAGE) && defined(MADV_POPULATE_WRITE)
  if (total >= ARENA_HUGE_MIN && total <= SIZE_MAX - 2 * ARENA_HUGE_ALIGN) {
    size_t span = (total + ARENA_HUGE_ALIGN - 1) & ~(ARENA_HUGE_ALIGN - 1);
    size_t len = span + ARENA_HUGE_ALIGN;
    unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
      unsigned char *base = (unsigned char *)(((uintptr_t)m + ARENA_HUGE_ALIGN - 1) & ~(uintptr_t)(ARENA_HUGE_ALIGN - 1));
      size_t head = (size_t)(base - m), tail = len - head - span;
      if (head) munmap(m, head);
      if (tail) munmap(base + span, tail);
      (void)madvise(base, span, MADV_HUGEPAGE); /* advice only */
      /* pages present now (falls back to faulting them on first touch) */
      (void)madvise(base, span, MADV_POPULATE_WRITE);
      *mapped = span;
      return base;
    }
  }
#endif
  void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) return NULL;
  *mapped = total;
  return p;
}
#endif

/* A zeroed block: calloc under the default allocator (fresh pages need no
 * clearing), or from ARENA_POPULATE_MIN on an anonymous mapping with its
 * pages present; malloc + memset under a custom allocator. */
static hlo_arena_block *new_block(hlo_arena *a, size_t size) {
  size_t total;
  if (hlo_add_overflow(size, sizeof(hlo_arena_block), &total)) return NULL;
  hlo_arena_block *b;
  if (a->alloc && a->alloc->alloc) {
    b = hlo_malloc(a->alloc, total);
    if (b) memset(b, 0, total);
#ifdef MAP_POPULATE
  } else if (total >= ARENA_POPULATE_MIN) {
    size_t mapped = 0;
    b = map_block(total, &mapped);
    if (b) b->mapped = mapped; /* fresh anonymous pages are zero */
    else b = calloc(1, total);
#endif
  } else {
    b = calloc(1, total);
  }
  if (!b) return NULL;
  b->size = size;
  a->bytes_reserved += size;
  return b;
}

static void *alloc_slow(hlo_arena *a, size_t need) {
  /* a one-off large allocation gets a block of its own behind a head block
   * that still has room, which keeps serving the small ones */
  if (a->head && need > ARENA_MIN_BLOCK && (size_t)(a->lim - a->cur) > 4096) {
    hlo_arena_block *nb = new_block(a, need);
    if (!nb) return NULL;
    nb->next = a->head->next;
    a->head->next = nb;
    a->bytes_retired += need;
    return nb->data;
  }
  size_t size = need > ARENA_MIN_BLOCK ? need : ARENA_MIN_BLOCK;
  /* grow blocks with the arena so big modules need few mallocs */
  if (a->bytes_reserved / 4 > size && a->bytes_reserved / 4 < ((size_t)64 << 20))
    size = (a->bytes_reserved / 4) & ~(size_t)15;
  hlo_arena_block *nb = new_block(a, size);
  if (!nb) return NULL;
  if (a->head) a->bytes_retired += (size_t)(a->cur - a->head->data);
  nb->next = a->head;
  a->head = nb;
  a->cur = nb->data + need;
  a->lim = nb->data + size;
  return nb->data;
}

void *hlo_arena_alloc(hlo_arena *a, size_t n) {
  if (n > SIZE_MAX - 15) return NULL;
  size_t need = n ? (n + 15) & ~(size_t)15 : 16;
  if (a->head) {
    /* blocks are 16-aligned with sizes a multiple of 16, so the aligned
     * cursor never passes lim */
    unsigned char *p = a->cur + ((16 - ((uintptr_t)a->cur & 15)) & 15);
    if (need <= (size_t)(a->lim - p)) {
      a->cur = p + need;
      return p;
    }
  }
  return alloc_slow(a, need);
}

void *hlo_arena_array(hlo_arena *a, size_t n, size_t sz) {
  size_t total;
  if (hlo_mul_overflow(n, sz, &total)) return NULL;
  return hlo_arena_alloc(a, total);
}

/* Strings need no alignment: take them byte-granular from the head block
 * (the next aligned allocation rounds the cursor up again). */
static char *alloc_bytes(hlo_arena *a, size_t n) {
  if (a->head && n <= (size_t)(a->lim - a->cur)) {
    char *p = (char *)a->cur;
    a->cur += n;
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
