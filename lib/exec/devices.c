/* devices.c - a device group in one process: one plan per logical device
 * of a communicator, run each in its own thread (hlo_devices_run).  The
 * threads persist: the first run starts one worker per local device but
 * the first, which the caller runs itself; between runs they park (a short
 * spin, then a condition variable) and hlo_devices_free joins them.  A
 * device that fails aborts the communicator so that the others stop
 * waiting; the error reported is that of the device that failed first. */
#include <pthread.h>
#include <string.h>

#include "exec/comm_impl.h"
#include "exec/exec.h"
#include "exec/fast.h"
#include "exec/spin.h"

typedef struct dev_worker {
  hlo_devices *g;
  int k;
  unsigned seen;         /* the last run it saw started */
  pthread_t th;
} dev_worker;

struct hlo_devices {
  const hlo_allocator *alloc;
  hlo_comm *comm;
  int n;
  hlo_exec **execs;
  hlo_diags *diags;      /* per device */
  hlo_diags *out;        /* the caller's */
  int *rcs;              /* per device: the status of its last run */
  /* the workers; the fields below `mu` are under it */
  bool sync;             /* mu, go and done initialised */
  int self;              /* the device the caller runs, -1 none */
  dev_worker *ws;        /* started workers, nws of them */
  int nws;
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  atomic_uint gen;       /* runs started (and one more to quit) */
  atomic_uint pending;   /* workers still in the current run */
  bool quit;
  hlo_val ***args;       /* the current run's */
  int nargs;
  hlo_val **results;
};

hlo_devices *hlo_devices_new(const hlo_module *m, const hlo_exec_options *opts, hlo_comm *c,
                             const hlo_allocator *alloc, hlo_diags *d) {
  if (!c) {
    hlo_errorf(d, NULL, 0, "a device group needs a communicator");
    return NULL;
  }
  int n = c->replicas * c->partitions;
  hlo_devices *g = hlo_malloc(alloc, sizeof *g);
  if (!g) goto oom;
  memset(g, 0, sizeof *g);
  g->alloc = alloc;
  g->comm = c;
  g->out = d;
  g->self = -1;
  g->execs = hlo_malloc(alloc, sizeof(hlo_exec *) * (size_t)n);
  if (g->execs) memset(g->execs, 0, sizeof(hlo_exec *) * (size_t)n);
  g->diags = hlo_malloc(alloc, sizeof(hlo_diags) * (size_t)n);
  g->rcs = hlo_malloc(alloc, sizeof(int) * (size_t)n);
  g->ws = hlo_malloc(alloc, sizeof(dev_worker) * (size_t)n);
  if (!g->execs || !g->diags || !g->rcs || !g->ws) {
    hlo_devices_free(g);
    goto oom;
  }
  if (pthread_mutex_init(&g->mu, NULL) == 0) {
    if (pthread_cond_init(&g->go, NULL) == 0) {
      if (pthread_cond_init(&g->done, NULL) == 0) g->sync = true;
      else pthread_cond_destroy(&g->go);
    }
    if (!g->sync) pthread_mutex_destroy(&g->mu);
  }
  if (!g->sync) {
    hlo_devices_free(g);
    hlo_errorf(d, NULL, 0, "cannot make the synchronisation of a device group");
    return NULL;
  }
  hlo_exec_options eo;
  memset(&eo, 0, sizeof eo);
  if (opts) eo = *opts;
  eo.comm = c;
  int first, count, rank;
  hlo_comm_local(c, &first, &count, &rank);
  int total = eo.threads > 0 ? eo.threads : hlo_fast_threads(0);
  eo.threads = total / count > 1 ? total / count : 1;
  for (int k = 0; k < n; k++) {
    hlo_diags_init(&g->diags[k], alloc);
    g->n = k + 1;
    if (!hlo_comm_is_local(c, k)) continue; /* another process runs it */
    eo.device = k;
    /* plan errors go to the caller's diagnostics: every device would report
     * the same, so the first is enough */
    g->execs[k] = hlo_exec_new(m, &eo, alloc, d);
    if (!g->execs[k]) {
      hlo_devices_free(g);
      return NULL;
    }
    g->execs[k]->diags = &g->diags[k];
    if (g->self < 0) g->self = k;
  }
  return g;
oom:
  hlo_errorf(d, NULL, 0, "out of memory");
  return NULL;
}

/* Stop and join the workers (none may be in a run). */
static void stop_workers(hlo_devices *g) {
  if (!g->nws) return;
  pthread_mutex_lock(&g->mu);
  g->quit = true;
  atomic_fetch_add(&g->gen, 1);
  pthread_cond_broadcast(&g->go);
  pthread_mutex_unlock(&g->mu);
  for (int i = 0; i < g->nws; i++) pthread_join(g->ws[i].th, NULL);
  g->nws = 0;
  g->quit = false;
}

void hlo_devices_free(hlo_devices *g) {
  if (!g) return;
  if (g->sync) {
    stop_workers(g);
    pthread_cond_destroy(&g->done);
    pthread_cond_destroy(&g->go);
    pthread_mutex_destroy(&g->mu);
  }
  for (int k = 0; k < g->n; k++) {
    if (g->execs[k]) hlo_exec_free(g->execs[k]);
    hlo_diags_release(&g->diags[k]);
  }
  hlo_free(g->alloc, g->execs);
  hlo_free(g->alloc, g->diags);
  hlo_free(g->alloc, g->rcs);
  hlo_free(g->alloc, g->ws);
  hlo_free(g->alloc, g);
}

int hlo_devices_count(const hlo_devices *g) { return g->n; }
hlo_exec *hlo_devices_exec(hlo_devices *g, int k) { return k >= 0 && k < g->n ? g->execs[k] : NULL; }

static void run_device(hlo_devices *g, int k) {
  g->rcs[k] = hlo_exec_run(g->execs[k], g->args[k], g->nargs, &g->results[k]);
  if (g->rcs[k]) hlo_comm_fail(g->comm, k);
}

static void *work(void *p) {
  dev_worker *w = p;
  hlo_devices *g = w->g;
  pthread_mutex_lock(&g->mu);
  for (;;) {
    while (atomic_load(&g->gen) == w->seen)
      hlo_spin_wait(&g->mu, &g->go, &g->gen, w->seen, NULL);
    if (g->quit) break;
    w->seen = atomic_load(&g->gen);
    pthread_mutex_unlock(&g->mu);
    run_device(g, w->k);
    pthread_mutex_lock(&g->mu);
    if (atomic_fetch_sub(&g->pending, 1) == 1) pthread_cond_signal(&g->done);
  }
  pthread_mutex_unlock(&g->mu);
  return NULL;
}

/* Start a worker for each local device but the caller's, once; a thread
 * that cannot start stops the others again and is an error (a device group
 * cannot run with a device missing). */
static int start_workers(hlo_devices *g) {
  if (g->nws) return HLO_OK;
  for (int k = 0; k < g->n; k++) {
    if (!g->execs[k] || k == g->self) continue;
    dev_worker *w = &g->ws[g->nws];
    w->g = g;
    w->k = k;
    w->seen = atomic_load(&g->gen);
    if (pthread_create(&w->th, NULL, work, w) != 0) {
      stop_workers(g);
      return hlo_errorf(g->out, NULL, 0, "cannot start the thread of device %d", k);
    }
    g->nws++;
  }
  return HLO_OK;
}

static int run_all(hlo_devices *g, hlo_val ***args, int nargs, hlo_val **results, bool gather) {
  hlo_comm *c = g->comm;
  hlo_comm_reset(c);
  for (int k = 0; k < g->n; k++) {
    hlo_diags_release(&g->diags[k]);
    hlo_diags_init(&g->diags[k], g->alloc);
    results[k] = NULL;
    g->rcs[k] = HLO_OK;
  }
  int rc = start_workers(g);
  if (rc == HLO_OK && g->self >= 0) {
    pthread_mutex_lock(&g->mu);
    g->args = args;
    g->nargs = nargs;
    g->results = results;
    atomic_store(&g->pending, (unsigned)g->nws);
    atomic_fetch_add(&g->gen, 1);
    pthread_cond_broadcast(&g->go);
    pthread_mutex_unlock(&g->mu);
    run_device(g, g->self);
    pthread_mutex_lock(&g->mu);
    for (unsigned p; (p = atomic_load(&g->pending)) > 0;)
      hlo_spin_wait(&g->mu, &g->done, &g->pending, p, NULL);
    pthread_mutex_unlock(&g->mu);
  }
  for (int k = 0; k < g->n; k++)
    if (g->rcs[k]) rc = HLO_ERR;
  if (c->mpi && hlo_mpi_any_failed(c, rc != HLO_OK) && rc == HLO_OK)
    rc = hlo_errorf(g->out, NULL, 0, "another MPI process failed");
  else if (c->mpi && rc == HLO_OK && gather) {
    rc = hlo_mpi_gather(c, results, g->alloc, g->out);
  }
  if (rc) {
    int f = c->first_failed;
    if (f < 0 || f >= g->n || !g->diags[f].n)
      for (f = 0; f < g->n && !g->diags[f].n; f++) {}
    if (f < g->n)
      for (int i = 0; i < g->diags[f].n; i++) {
        const hlo_diag *dg = &g->diags[f].v[i];
        int id = hlo_comm_device_id(c, f);
        if (dg->sev == HLO_SEV_ERROR) hlo_errorf(g->out, dg->src, dg->off, "device %d: %s", id, dg->msg);
        else hlo_notef(g->out, dg->src, dg->off, "device %d: %s", id, dg->msg);
      }
    for (int k = 0; k < g->n; k++)
      if (results[k]) { hlo_val_release(g->alloc, results[k]); results[k] = NULL; }
  }
  return rc;
}

int hlo_devices_run(hlo_devices *g, hlo_val ***args, int nargs, hlo_val **results) {
  return run_all(g, args, nargs, results, true);
}

int hlo_devices_run_local(hlo_devices *g, hlo_val ***args, int nargs, hlo_val **results) {
  return run_all(g, args, nargs, results, false);
}
