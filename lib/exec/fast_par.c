/* fast_par.c - the fast path's thread helper: runs a fixed list of work
 * items on up to N threads (pthreads, started per call).  Items are chosen
 * by the caller independently of the thread count, so results are the same
 * for any N. */
#include <pthread.h>
#include <unistd.h>

#include "exec/fast.h"

typedef struct par_job {
  void (*fn)(void *ctx, int64_t i);
  void *ctx;
  int64_t n;
  int nth, t;
} par_job;

static void *par_main(void *arg) {
  par_job *j = arg;
  /* static assignment of a contiguous range per thread (no false sharing
   * between neighbouring items' outputs) */
  int64_t lo = j->n * j->t / j->nth, hi = j->n * (j->t + 1) / j->nth;
  for (int64_t i = lo; i < hi; i++) j->fn(j->ctx, i);
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
  par_job jobs[256];
  int started = 0, rc = HLO_OK;
  for (int t = 0; t < nth; t++) {
    jobs[t] = (par_job){fn, ctx, n, nth, t};
  }
  for (int t = 1; t < nth; t++) {
    if (pthread_create(&th[t], NULL, par_main, &jobs[t]) != 0) break;
    started = t;
  }
  if (started < nth - 1) {
    /* could not start them all: the caller's thread runs the rest */
    rc = HLO_ERR;
    for (int t = started + 1; t < nth; t++) par_main(&jobs[t]);
  }
  par_main(&jobs[0]);
  for (int t = 1; t <= started; t++) pthread_join(th[t], NULL);
  return rc;
}
