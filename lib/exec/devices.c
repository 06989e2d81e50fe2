/* devices.c - a device group in one process: one plan per logical device
 * of a communicator, run each in its own thread (hlo_devices_run).  A
 * device that fails aborts the communicator so that the others stop
 * waiting; the error reported is that of the device that failed first. */
#include <pthread.h>
#include <string.h>

#include "exec/comm_impl.h"
#include "exec/exec.h"
#include "exec/fast.h"

struct hlo_devices {
  const hlo_allocator *alloc;
  hlo_comm *comm;
  int n;
  hlo_exec **execs;
  hlo_diags *diags;      /* per device */
  hlo_diags *out;        /* the caller's */
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
  g->execs = hlo_malloc(alloc, sizeof(hlo_exec *) * (size_t)n);
  if (g->execs) memset(g->execs, 0, sizeof(hlo_exec *) * (size_t)n);
  g->diags = hlo_malloc(alloc, sizeof(hlo_diags) * (size_t)n);
  if (!g->execs || !g->diags) {
    hlo_free(alloc, g->execs);
    hlo_free(alloc, g->diags);
    hlo_free(alloc, g);
    goto oom;
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
  }
  return g;
oom:
  hlo_errorf(d, NULL, 0, "out of memory");
  return NULL;
}

void hlo_devices_free(hlo_devices *g) {
  if (!g) return;
  for (int k = 0; k < g->n; k++) {
    if (g->execs[k]) hlo_exec_free(g->execs[k]);
    hlo_diags_release(&g->diags[k]);
  }
  hlo_free(g->alloc, g->execs);
  hlo_free(g->alloc, g->diags);
  hlo_free(g->alloc, g);
}

int hlo_devices_count(const hlo_devices *g) { return g->n; }
hlo_exec *hlo_devices_exec(hlo_devices *g, int k) { return k >= 0 && k < g->n ? g->execs[k] : NULL; }

typedef struct worker {
  hlo_devices *g;
  int k, nargs, rc;
  hlo_val **args;
  hlo_val **result;
  pthread_t th;
  bool started;
} worker;

static void *work(void *p) {
  worker *w = p;
  w->rc = hlo_exec_run(w->g->execs[w->k], w->args, w->nargs, w->result);
  if (w->rc) hlo_comm_fail(w->g->comm, w->k);
  return NULL;
}

static int run_all(hlo_devices *g, hlo_val ***args, int nargs, hlo_val **results, bool gather) {
  hlo_comm *c = g->comm;
  hlo_comm_reset(c);
  worker *ws = hlo_malloc(g->alloc, sizeof(worker) * (size_t)g->n);
  if (!ws) return hlo_errorf(g->out, NULL, 0, "out of memory");
  for (int k = 0; k < g->n; k++) {
    hlo_diags_release(&g->diags[k]);
    hlo_diags_init(&g->diags[k], g->alloc);
    results[k] = NULL;
    ws[k] = (worker){g, k, nargs, HLO_OK, args[k], &results[k], 0, false};
  }
  int rc = HLO_OK;
  for (int k = 0; k < g->n; k++) {
    if (!g->execs[k]) continue;
    if (pthread_create(&ws[k].th, NULL, work, &ws[k]) != 0) {
      hlo_comm_fail(c, -1);
      rc = hlo_errorf(g->out, NULL, 0, "cannot start the thread of device %d", k);
      break;
    }
    ws[k].started = true;
  }
  for (int k = 0; k < g->n; k++)
    if (ws[k].started) pthread_join(ws[k].th, NULL);
  for (int k = 0; k < g->n; k++)
    if (ws[k].rc) rc = HLO_ERR;
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
  hlo_free(g->alloc, ws);
  return rc;
}

int hlo_devices_run(hlo_devices *g, hlo_val ***args, int nargs, hlo_val **results) {
  return run_all(g, args, nargs, results, true);
}

int hlo_devices_run_local(hlo_devices *g, hlo_val ***args, int nargs, hlo_val **results) {
  return run_all(g, args, nargs, results, false);
}
