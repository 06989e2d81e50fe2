/* fast_par.c - the fast path's thread helper: runs a fixed list of work
 * items on up to N threads (pthreads, started per call), which claim items
 * dynamically.  Items are chosen by the caller independently of the thread
 * count and write disjoint results, so results are the same for any N. */
#include <pthread.h>
#include <unistd.h>

#include "exec/fast.h"

typedef struct par_job {
  void (*fn)(void *ctx, int64_t i);
  void *ctx;
  int64_t n;
  int64_t grain;            /* consecutive items per claim */
  int64_t next;             /* next unclaimed item (atomic) */
} par_job;

/* Threads claim runs of consecutive items (about 1/16 of a thread's share
 * each: long enough for the prefetcher to follow one stream, short enough
 * that a thread which loses its core to another process leaves most of its
 * share to the others); results depend only on the items, not on who ran
 * them. */
static void *par_main(void *arg) {
  par_job *j = arg;
  for (;;) {
    int64_t i = __atomic_fetch_add(&j->next, j->grain, __ATOMIC_RELAXED);
    if (i >= j->n) break;
    int64_t e = j->n - i < j->grain ? j->n : i + j->grain;
    for (; i < e; i++) j->fn(j->ctx, i);
  }
  return NULL;
}

int hlo_fast_threads(int nthreads) {
  if (nthreads > 0) return nthreads;
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c < 1 ? 1 : c > 256 ? 256 : (int)c;
}

int hlo_fast_parallel(int nthreads, int64_t n, void (*fn)(void *ctx, int64_t i), void *ctx) {
  int nth = hlo_fast_threads(nthreads);
  if (nth > n) nth = (int)n;
  if (nth <= 1) {
    for (int64_t i = 0; i < n; i++) fn(ctx, i);
    return HLO_OK;
  }
  pthread_t th[256];
  int64_t grain = n / ((int64_t)nth * 16);
  par_job job = {fn, ctx, n, grain < 1 ? 1 : grain, 0};
  int started = 0, rc = HLO_OK;
  for (int t = 1; t < nth; t++) {
    if (pthread_create(&th[t], NULL, par_main, &job) != 0) {
      rc = HLO_ERR; /* the threads already started and this one do the rest */
      break;
    }
    started = t;
  }
  par_main(&job);
  for (int t = 1; t <= started; t++) pthread_join(th[t], NULL);
  return rc;
}
