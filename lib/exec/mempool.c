/* mempool.c - the interpreter's allocator (hlo_mempool): a byte limit on
 * everything allocated through it, and a cache of large blocks so that the
 * next layer of a model, or the next run, reuses pages instead of faulting
 * fresh ones in.  Any program that hands hlo_mempool_allocator() to
 * hlo_exec_new and hlo_val_new gets what hlo-run gets.
 *
 * Small blocks are malloc'd with a 16-byte header (the size).  Large blocks
 * (>= BIG_MIN) get their own 2 MB-aligned anonymous mapping advised
 * MADV_HUGEPAGE before first touch (as numpy does for its arrays:
 * transparent huge pages cut the TLB misses of kernels streaming through
 * them; measured 1.32 -> 1.06 ms for a 4M-element add), and are kept in the
 * cache when freed: on the VM this was measured on, first-touch page zeroing
 * ran at well under 1 GB/s and was two thirds of a mobilenet_v2 run.  Cached
 * and live bytes together stay within the limit (or half the RAM without
 * one): a block that would pass it is unmapped, and a new mapping first
 * evicts cached blocks, largest first.  Layout of a large block: base is
 * 2 MB aligned inside the mapping, data at base + 64; the words before the
 * data are [mapping, mapping length, size, capacity], the size 16 bytes
 * before the data as in small blocks.
 *
 * Kernels allocate scratch on their worker threads: the counters are atomic,
 * and a lock guards the cache only (a scalar while loop allocates per
 * instruction, and a lock around every malloc cost 30% of its time).  A pool
 * that is freed while blocks are still out (results a caller keeps) lives on
 * until the last of them comes back. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec/exec.h"

#define BIG_MIN ((size_t)4 << 20)
#define BIG_ALIGN ((size_t)2 << 20)
#define BIG_CACHE 1024

struct hlo_mempool {
  hlo_allocator alloc;           /* ud = the pool */
  uint64_t limit;                /* 0 = none */
  uint64_t cache_bound;          /* live + cached bytes at most (limit or half the RAM) */
  uint64_t live, peak, refused;  /* atomics; refused: size of the first refused request */
  int64_t refs;                  /* blocks out + 1 until hlo_mempool_free (atomic) */
  int closed;                    /* hlo_mempool_free was called (atomic) */
  pthread_mutex_t lock;          /* guards the cache */
  int nbig;
  size_t big_bytes;              /* capacity held by the cache */
  struct big_block { char *data; size_t cap; } big[BIG_CACHE];
};

static uint64_t half_the_ram(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || psize <= 0) return (uint64_t)4 << 30;
  return (uint64_t)pages * (uint64_t)psize / 2;
}

static uint64_t live_now(hlo_mempool *p) { return __atomic_load_n(&p->live, __ATOMIC_RELAXED); }
static void live_sub(hlo_mempool *p, uint64_t n) {
  __atomic_sub_fetch(&p->live, n, __ATOMIC_RELAXED);
}

static bool take_bytes(hlo_mempool *p, uint64_t n) {
  uint64_t cur = live_now(p);
  do {
    if (p->limit && (n > p->limit || cur > p->limit - n)) {
      uint64_t none = 0;
      __atomic_compare_exchange_n(&p->refused, &none, n ? n : 1, false, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED);
      return false;
    }
  } while (!__atomic_compare_exchange_n(&p->live, &cur, cur + n, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED));
  uint64_t now = cur + n, pk = __atomic_load_n(&p->peak, __ATOMIC_RELAXED);
  while (now > pk && !__atomic_compare_exchange_n(&p->peak, &pk, now, true, __ATOMIC_RELAXED,
                                                  __ATOMIC_RELAXED)) {
  }
  return true;
}

static char *big_new(size_t n) {
  if (n > SIZE_MAX - 64 - 2 * BIG_ALIGN) return NULL;
  size_t span = (n + 64 + BIG_ALIGN - 1) & ~(BIG_ALIGN - 1);
  size_t len = span + BIG_ALIGN;
  char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  char *base = (char *)(((uintptr_t)m + BIG_ALIGN - 1) & ~(uintptr_t)(BIG_ALIGN - 1));
#ifdef MADV_HUGEPAGE
  (void)madvise(base, span, MADV_HUGEPAGE); /* advice only */
#endif
  char *data = base + 64;
  size_t *h = (size_t *)data;
  h[-4] = (size_t)(uintptr_t)m;
  h[-3] = len;
  h[-1] = span - 64; /* capacity */
  return data;
}

static void big_unmap(char *data) {
  size_t *h = (size_t *)data;
  munmap((void *)(uintptr_t)h[-4], h[-3]);
}

/* A block of n >= BIG_MIN bytes (n already counted as live). */
static char *big_take(hlo_mempool *p, size_t n) {
  pthread_mutex_lock(&p->lock);
  int best = -1;
  for (int i = 0; i < p->nbig; i++)
    if (p->big[i].cap >= n && p->big[i].cap - n <= n &&
        (best < 0 || p->big[i].cap < p->big[best].cap))
      best = i;
  char *d;
  if (best >= 0) {
    d = p->big[best].data;
    p->big_bytes -= p->big[best].cap;
    p->big[best] = p->big[--p->nbig];
  } else {
    while (p->nbig > 0 && live_now(p) + p->big_bytes > p->cache_bound) { /* evict the largest */
      int big = 0;
      for (int i = 1; i < p->nbig; i++)
        if (p->big[i].cap > p->big[big].cap) big = i;
      p->big_bytes -= p->big[big].cap;
      big_unmap(p->big[big].data);
      p->big[big] = p->big[--p->nbig];
    }
    d = big_new(n);
  }
  pthread_mutex_unlock(&p->lock);
  return d;
}

/* Keep a freed big block (no longer counted as live) or unmap it. */
static void big_give(hlo_mempool *p, char *q, size_t cap) {
  pthread_mutex_lock(&p->lock);
  if (!__atomic_load_n(&p->closed, __ATOMIC_ACQUIRE) && p->nbig < BIG_CACHE &&
      live_now(p) + p->big_bytes + cap <= p->cache_bound) {
    p->big[p->nbig++] = (struct big_block){q, cap};
    p->big_bytes += cap;
    q = NULL;
  }
  pthread_mutex_unlock(&p->lock);
  if (q) big_unmap(q);
}

static void drop_cache(hlo_mempool *p) {
  pthread_mutex_lock(&p->lock);
  for (int i = 0; i < p->nbig; i++) big_unmap(p->big[i].data);
  p->nbig = 0;
  p->big_bytes = 0;
  pthread_mutex_unlock(&p->lock);
}

static void destroy(hlo_mempool *p) {
  drop_cache(p);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

static void *pool_alloc(void *ud, size_t n) {
  hlo_mempool *p = ud;
  if (n > SIZE_MAX - 16 || !take_bytes(p, n)) return NULL;
  char *d;
  if (n >= BIG_MIN) {
    d = big_take(p, n);
  } else {
    size_t *h = malloc(n + 16);
    d = h ? (char *)h + 16 : NULL;
  }
  if (!d) {
    live_sub(p, n);
    return NULL;
  }
  ((size_t *)d)[-2] = n;
  __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
  return d;
}

static void pool_free(void *ud, void *q) {
  hlo_mempool *p = ud;
  if (!q) return;
  size_t n = ((size_t *)q)[-2];
  live_sub(p, n);
  if (n >= BIG_MIN) big_give(p, q, ((size_t *)q)[-1]);
  else free((char *)q - 16);
  if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) destroy(p);
}

static void *pool_realloc(void *ud, void *q, size_t n) {
  hlo_mempool *p = ud;
  if (!q) return pool_alloc(ud, n);
  size_t old = ((size_t *)q)[-2];
  if (old >= BIG_MIN || n >= BIG_MIN) { /* through a fresh block */
    void *r = pool_alloc(ud, n);
    if (!r) return NULL;
    memcpy(r, q, old < n ? old : n);
    pool_free(ud, q);
    return r;
  }
  if (n > SIZE_MAX - 16) return NULL;
  live_sub(p, old);
  if (!take_bytes(p, n)) {
    __atomic_add_fetch(&p->live, old, __ATOMIC_RELAXED);
    return NULL;
  }
  size_t *h = realloc((char *)q - 16, n + 16);
  if (!h) {
    live_sub(p, n);
    __atomic_add_fetch(&p->live, old, __ATOMIC_RELAXED);
    return NULL;
  }
  h[0] = n;
  return (char *)h + 16;
}

hlo_mempool *hlo_mempool_new(uint64_t limit) {
  hlo_mempool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p);
    return NULL;
  }
  p->refs = 1;
  p->limit = limit;
  p->cache_bound = limit ? limit : half_the_ram();
  p->alloc = (hlo_allocator){pool_alloc, pool_realloc, pool_free, p};
  return p;
}

void hlo_mempool_free(hlo_mempool *p) {
  if (!p) return;
  __atomic_store_n(&p->closed, 1, __ATOMIC_RELEASE);
  drop_cache(p);
  if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) destroy(p);
}

const hlo_allocator *hlo_mempool_allocator(hlo_mempool *p) { return &p->alloc; }

hlo_mempool_stats hlo_mempool_stats_of(const hlo_mempool *p) {
  hlo_mempool_stats s;
  s.limit = p->limit;
  s.live = __atomic_load_n(&p->live, __ATOMIC_RELAXED);
  s.peak = __atomic_load_n(&p->peak, __ATOMIC_RELAXED);
  s.refused = __atomic_load_n(&p->refused, __ATOMIC_RELAXED);
  return s;
}

uint64_t hlo_mempool_reset_peak(hlo_mempool *p) {
  uint64_t live = live_now(p);
  __atomic_store_n(&p->peak, live, __ATOMIC_RELAXED);
  return live;
}

uint64_t hlo_mempool_default_limit(void) { return half_the_ram(); }
