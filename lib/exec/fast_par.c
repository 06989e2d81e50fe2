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
  int64_t next;             /* next unclaimed item (atomic) */
} par_job;

/* Threads claim items one at a time, so a thread that loses its core to
 * another process leaves its share to the others instead of holding up the
 * whole call; results depend only on the items, not on who ran them. */
static void *par_main(void *arg) {
  par_job *j = arg;
  for (;;) {
    int64_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    if (i >= j->n) break;
    j->fn(j->ctx, i);
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
  par_job job = {fn, ctx, n, 0};
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
