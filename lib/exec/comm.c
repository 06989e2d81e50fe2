/* comm.c - the communicator of in-process devices (hlo_comm) and the
 * rendezvous of one collective (hlo_rdv): a meeting per (instruction,
 * group), found by the devices that arrive, complete when every member has
 * brought its buffers, and dropped by the last to leave.  One mutex and one
 * condition variable per communicator (a waiter spins briefly first,
 * spin.h); waits end after the timeout with an
 * error naming the devices that wait and those that never came. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "exec/comm.h"
#include "exec/comm_impl.h"
#include "exec/spin.h"

hlo_comm *hlo_comm_new(const hlo_comm_options *o, const hlo_allocator *alloc, hlo_diags *d) {
  if (!o || o->replicas < 1 || o->partitions < 1 || o->replicas > 4096 || o->partitions > 4096 ||
      o->replicas * o->partitions > 4096) {
    hlo_errorf(d, NULL, 0, "device counts must be >= 1 with at most 4096 devices");
    return NULL;
  }
  int nd = o->replicas * o->partitions;
  hlo_comm *c = hlo_malloc(alloc, sizeof *c);
  int *as = hlo_malloc(alloc, sizeof(int) * (size_t)nd);
  if (!c || !as) {
    hlo_free(alloc, c);
    hlo_free(alloc, as);
    hlo_errorf(d, NULL, 0, "out of memory");
    return NULL;
  }
  memset(c, 0, sizeof *c);
  c->alloc = alloc;
  c->replicas = o->replicas;
  c->partitions = o->partitions;
  c->assignment = as;
  c->timeout = o->timeout_seconds > 0 ? o->timeout_seconds : 60;
  c->first_failed = -1;
  c->per_rank = nd;
  c->nranks = 1;
  for (int k = 0; k < nd; k++) as[k] = o->assignment ? o->assignment[k] : k;
  for (int k = 0; k < nd; k++) {
    bool dup = false;
    for (int j = 0; j < k; j++) dup |= as[j] == as[k];
    if (as[k] < 0 || as[k] >= nd || dup) {
      hlo_errorf(d, NULL, 0, "the device assignment must list each device id 0..%d once", nd - 1);
      hlo_free(alloc, as);
      hlo_free(alloc, c);
      return NULL;
    }
  }
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, &ca);
  pthread_condattr_destroy(&ca);
  return c;
}

static void rdv_free(hlo_comm *c, hlo_rdv *v) {
  hlo_free(c->alloc, v->remote);
  hlo_free(c->alloc, v);
}

void hlo_comm_reset(hlo_comm *c) {
  hlo_p2p_reset(c);
  while (c->meetings) {
    hlo_rdv *v = c->meetings;
    c->meetings = v->next;
    rdv_free(c, v);
  }
  c->aborted = false;
  c->first_failed = -1;
}

void hlo_comm_free(hlo_comm *c) {
  if (!c) return;
  hlo_comm_reset(c);
  hlo_comm_mpi_end(c);
  pthread_cond_destroy(&c->cv);
  pthread_mutex_destroy(&c->mu);
  hlo_free(c->alloc, c->assignment);
  hlo_free(c->alloc, c);
}

int hlo_comm_replicas(const hlo_comm *c) { return c ? c->replicas : 1; }
int hlo_comm_partitions(const hlo_comm *c) { return c ? c->partitions : 1; }
int hlo_comm_device_id(const hlo_comm *c, int k) {
  return c && k >= 0 && k < c->replicas * c->partitions ? c->assignment[k] : k;
}

void hlo_comm_wake(hlo_comm *c) {
  atomic_fetch_add(&c->epoch, 1);
  pthread_cond_broadcast(&c->cv);
}

int hlo_comm_wait(hlo_comm *c, const struct timespec *deadline) {
  return hlo_spin_wait(&c->mu, &c->cv, &c->epoch, atomic_load(&c->epoch), deadline);
}

void hlo_comm_fail(hlo_comm *c, int device) {
  pthread_mutex_lock(&c->mu);
  if (c->first_failed < 0) c->first_failed = device;
  c->aborted = true;
  hlo_comm_wake(c);
  pthread_mutex_unlock(&c->mu);
}

void hlo_comm_abort(hlo_comm *c) { hlo_comm_fail(c, -1); }

bool hlo_comm_aborted(const hlo_comm *c) {
  pthread_mutex_lock((pthread_mutex_t *)&c->mu);
  bool a = c->aborted;
  pthread_mutex_unlock((pthread_mutex_t *)&c->mu);
  return a;
}

/* Wait on the communicator until *flag (under the mutex) holds, the
 * communicator is aborted or the deadline passes: 0, 1 (aborted) or 2
 * (timed out). */
static int wait_until(hlo_comm *c, const struct timespec *deadline, bool (*done)(const hlo_rdv *),
                      const hlo_rdv *v) {
  while (!done(v)) {
    if (c->aborted) return 1;
    int e = hlo_comm_wait(c, deadline);
    if (e == ETIMEDOUT && !done(v)) return c->aborted ? 1 : 2;
  }
  return 0;
}

static bool all_arrived(const hlo_rdv *v) { return v->arrived == v->nlocal; }
static bool all_left(const hlo_rdv *v) { return v->left == v->nlocal; }
static bool exchanged(const hlo_rdv *v) { return v->exchange != 0; }

void hlo_comm_deadline(double s, struct timespec *t) {
  clock_gettime(CLOCK_MONOTONIC, t);
  long long ns = (long long)(s * 1e9) + t->tv_nsec;
  t->tv_sec += (time_t)(ns / 1000000000);
  t->tv_nsec = (long)(ns % 1000000000);
}

/* "0, 2, 3" of the devices of v whose here flag is `here` */
static void list_devices(const hlo_comm *c, const hlo_rdv *v, bool here, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; i < v->n && n + 16 < cap; i++)
    if (v->here[i] == here)
      n += (size_t)snprintf(buf + n, cap - n, "%s%d", n ? ", " : "", hlo_comm_device_id(c, v->part[i]));
}

static int timed_out(hlo_run *r, const hlo_instruction *in, hlo_comm *c, hlo_rdv *v, int self) {
  char waiting[256], missing[256];
  list_devices(c, v, true, waiting, sizeof waiting);
  list_devices(c, v, false, missing, sizeof missing);
  if (c->first_failed < 0) c->first_failed = self;
  c->aborted = true;
  hlo_comm_wake(c);
  pthread_mutex_unlock(&c->mu);
  return hlo_run_errorf(r, in, "collective timed out after %g s: device%s %s waiting, device%s %s "
                        "never arrived (--collective-timeout)", c->timeout,
                        strchr(waiting, ',') ? "s" : "", waiting, strchr(missing, ',') ? "s" : "",
                        missing);
}

static int aborted(hlo_run *r, const hlo_instruction *in, hlo_comm *c) {
  pthread_mutex_unlock(&c->mu);
  return hlo_run_errorf(r, in, "stopped: another device failed");
}

/* Whether every participant of v runs in a process of its own: the
 * condition, the same in every process, for the direct form. */
static bool one_per_process(const hlo_comm *c, const hlo_rdv *v) {
  for (int i = 0; i < v->n; i++)
    for (int j = 0; j < i; j++)
      if (v->part[i] / c->per_rank == v->part[j] / c->per_rank) return false;
  return true;
}

int hlo_rdv_meet(hlo_run *r, const hlo_instruction *in, const int *part, int n, int pos, int nvals,
                 hlo_val **ins, hlo_val **outs, hlo_rdv_mode mode, hlo_rdv **rv,
                 const hlo_rdv_entry **ents, bool *shared_outs) {
  hlo_comm *c = r->e->opts.comm;
  *rv = NULL;
  *shared_outs = true;
  if (n == 1 || !c) return HLO_OK; /* the caller uses its own buffers */
  pthread_mutex_lock(&c->mu);
  if (c->aborted) return aborted(r, in, c);
  hlo_rdv *v = c->meetings;
  for (; v; v = v->next)
    if (v->in == in && v->part[0] == part[0] && v->arrived < v->nlocal) break;
  if (v && (v->n != n || memcmp(v->part, part, sizeof(int) * (size_t)n) != 0)) {
    pthread_mutex_unlock(&c->mu);
    return hlo_run_errorf(r, in, "devices disagree on the group of this collective");
  }
  if (!v) {
    size_t sz = sizeof *v + (sizeof(int) + sizeof(bool) + sizeof(hlo_rdv_entry)) * (size_t)n + 16;
    v = hlo_malloc(c->alloc, sz);
    if (!v) {
      pthread_mutex_unlock(&c->mu);
      return hlo_run_errorf(r, in, "out of memory");
    }
    memset(v, 0, sz);
    v->in = in;
    v->n = n;
    v->ents = (hlo_rdv_entry *)(v + 1);
    v->part = (int *)(v->ents + n);
    v->here = (bool *)(v->part + n);
    memcpy(v->part, part, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) v->nlocal += hlo_comm_is_local(c, part[i]);
    v->next = c->meetings;
    c->meetings = v;
  }
  v->ents[pos].in = ins;
  v->ents[pos].out = outs;
  v->here[pos] = true;
  v->arrived++;
  if (v->arrived == v->nlocal) hlo_comm_wake(c);
  struct timespec dl;
  hlo_comm_deadline(c->timeout, &dl);
  int w = wait_until(c, &dl, all_arrived, v);
  if (w == 1) return aborted(r, in, c);
  if (w == 2) return timed_out(r, in, c, v, part[pos]);
  if (v->nlocal < n && (mode == HLO_RDV_P2P || (mode == HLO_RDV_CHUNKED && one_per_process(c, v)))) {
    *shared_outs = false; /* the caller moves the data (hlo_rdv_allreduce, hlo_rdv_p2p) */
    v->direct = true;
  } else if (v->nlocal < n) { /* over MPI: the first local participant exchanges */
    *shared_outs = false;
    int first = 0;
    while (!hlo_comm_is_local(c, part[first])) first++;
    if (first == pos) {
      pthread_mutex_unlock(&c->mu);
      int rc = hlo_mpi_exchange(c, v, nvals);
      pthread_mutex_lock(&c->mu);
      v->exchange = rc == HLO_OK ? 1 : -1;
      hlo_comm_wake(c);
    }
    w = wait_until(c, &dl, exchanged, v);
    if (w == 1) return aborted(r, in, c);
    if (w == 2 || v->exchange < 0) {
      char why[300];
      snprintf(why, sizeof why, "%s", w == 2 ? "timed out waiting for the exchange" : v->why);
      if (c->first_failed < 0) c->first_failed = part[pos];
      c->aborted = true;
      hlo_comm_wake(c);
      pthread_mutex_unlock(&c->mu);
      return hlo_run_errorf(r, in, "%s", why);
    }
  }
  pthread_mutex_unlock(&c->mu);
  *rv = v;
  *ents = v->ents;
  return HLO_OK;
}

bool hlo_rdv_direct(const hlo_rdv *rv) { return rv && rv->direct; }

bool hlo_rdv_local(const hlo_run *r, const hlo_rdv *rv, int i) {
  return !rv || hlo_comm_is_local(r->e->opts.comm, rv->part[i]);
}

int hlo_rdv_leave(hlo_run *r, const hlo_instruction *in, hlo_rdv *v) {
  hlo_comm *c = r->e->opts.comm;
  if (!v) return HLO_OK;
  pthread_mutex_lock(&c->mu);
  v->left++;
  if (v->left == v->nlocal) hlo_comm_wake(c);
  struct timespec dl;
  hlo_comm_deadline(c->timeout, &dl);
  int w = wait_until(c, &dl, all_left, v);
  if (w) return aborted(r, in, c); /* left behind; hlo_comm_reset frees it */
  if (++v->gone == v->nlocal) {
    hlo_rdv **pp = &c->meetings;
    while (*pp != v) pp = &(*pp)->next;
    *pp = v->next;
    rdv_free(c, v);
  }
  pthread_mutex_unlock(&c->mu);
  return HLO_OK;
}
