/* fast_par.c - the fast path's thread pool: one per hlo_exec, sized by
 * hlo_exec_options.threads, started at its first parallel call; its workers
 * sleep on a condition variable between calls.  A call runs a fixed list of
 * work items which the caller and the workers claim dynamically.  Items are
 * chosen by the caller independently of the thread count and write disjoint
 * results, so results are the same for any number of threads. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "exec/fast.h"

#define MAX_THREADS 256

typedef struct par_job {
  void (*fn)(void *ctx, int64_t i);
  void *ctx;
  int64_t n;
  int64_t grain;            /* consecutive items per claim */
  int64_t next;             /* next unclaimed item (atomic) */
} par_job;

struct hlo_fast_pool {
  int nth;                  /* threads of a call, the caller included */
  int started;              /* workers running (nth - 1 once started) */
  bool tried;               /* workers were started (or failed to) */
  int busy;                 /* a call is running: nested calls run serially */
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  uint64_t gen;             /* calls so far: a worker runs each new one */
  int pending;              /* workers still on the current call */
  bool quit;
  par_job *job;
  const hlo_allocator *alloc;
  pthread_t th[MAX_THREADS];
};

/* Threads claim runs of consecutive items (about 1/16 of a thread's share
 * each: long enough for the prefetcher to follow one stream, short enough
 * that a thread which loses its core to another process leaves most of its
 * share to the others); results depend only on the items, not on who ran
 * them. */
static void run_items(par_job *j) {
  for (;;) {
    int64_t i = __atomic_fetch_add(&j->next, j->grain, __ATOMIC_RELAXED);
    if (i >= j->n) break;
    int64_t e = j->n - i < j->grain ? j->n : i + j->grain;
    for (; i < e; i++) j->fn(j->ctx, i);
  }
}

static void *worker(void *arg) {
  hlo_fast_pool *p = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->gen == seen && !p->quit) pthread_cond_wait(&p->wake, &p->mu);
    if (p->quit) break;
    seen = p->gen;
    par_job *j = p->job;
    pthread_mutex_unlock(&p->mu);
    run_items(j);
    pthread_mutex_lock(&p->mu);
    if (--p->pending == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

int hlo_fast_threads(int nthreads) {
  if (nthreads > 0) return nthreads < MAX_THREADS ? nthreads : MAX_THREADS;
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c < 1 ? 1 : c > MAX_THREADS ? MAX_THREADS : (int)c;
}

hlo_fast_pool *hlo_fast_pool_new(int nthreads, const hlo_allocator *alloc) {
  int nth = hlo_fast_threads(nthreads);
  if (nth <= 1) return NULL;
  hlo_fast_pool *p = hlo_malloc(alloc, sizeof *p);
  if (!p) return NULL; /* calls then run serially */
  memset(p, 0, sizeof *p);
  p->nth = nth;
  p->alloc = alloc;
  if (pthread_mutex_init(&p->mu, NULL) != 0) goto fail_mu;
  if (pthread_cond_init(&p->wake, NULL) != 0) goto fail_wake;
  if (pthread_cond_init(&p->done, NULL) != 0) goto fail_done;
  return p;
fail_done:
  pthread_cond_destroy(&p->wake);
fail_wake:
  pthread_mutex_destroy(&p->mu);
fail_mu:
  hlo_free(alloc, p);
  return NULL;
}

void hlo_fast_pool_free(hlo_fast_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->quit = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int t = 0; t < p->started; t++) pthread_join(p->th[t], NULL);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->mu);
  hlo_free(p->alloc, p);
}

int hlo_fast_pool_threads(const hlo_fast_pool *p) { return p ? p->nth : 1; }

int hlo_fast_parallel(hlo_fast_pool *p, int64_t n, void (*fn)(void *ctx, int64_t i), void *ctx) {
  int nth = p ? p->nth : 1;
  if (nth > n) nth = (int)n;
  if (!p || nth <= 1 || __atomic_exchange_n(&p->busy, 1, __ATOMIC_ACQUIRE)) {
    for (int64_t i = 0; i < n; i++) fn(ctx, i);
    return HLO_OK;
  }
  int rc = HLO_OK;
  if (!p->tried) {
    p->tried = true;
    for (int t = 0; t < p->nth - 1; t++) {
      if (pthread_create(&p->th[t], NULL, worker, p) != 0) {
        rc = HLO_ERR; /* the workers started and the caller do the rest */
        break;
      }
      p->started = t + 1;
    }
  }
  int64_t grain = n / ((int64_t)nth * 16);
  par_job job = {fn, ctx, n, grain < 1 ? 1 : grain, 0};
  pthread_mutex_lock(&p->mu);
  p->job = &job;
  p->pending = p->started;
  p->gen++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  run_items(&job);
  pthread_mutex_lock(&p->mu);
  while (p->pending > 0) pthread_cond_wait(&p->done, &p->mu);
  p->job = NULL;
  pthread_mutex_unlock(&p->mu);
  __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
  return rc;
}
