/* comm_p2p.c - send and recv between two devices of a communicator: a link
 * per (channel, source, target) counts the sends and recvs of the run, so
 * that the n-th send meets the n-th recv (once per loop iteration in
 * pipelined loops).  In one process a send leaves a copy of its data on the
 * link for the recv-done to take; across MPI processes the two ends are MPI
 * requests (comm_mpi.c).  Waits end after the timeout or an abort. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "exec/comm.h"
#include "exec/comm_impl.h"

typedef struct p2p_item {
  int64_t seq;
  void *data;   /* in one process: the copy a send left */
  size_t nbytes;
  void *req;    /* over MPI: this end's request */
  struct p2p_item *next;
} p2p_item;

struct hlo_p2p_link {
  int64_t ch;
  int src, dst;
  int64_t nsent, nrecv; /* sends and recvs started this run */
  p2p_item *items;
  hlo_p2p_link *next;
};

void hlo_p2p_reset(hlo_comm *c) {
  while (c->links) {
    hlo_p2p_link *l = c->links;
    c->links = l->next;
    while (l->items) {
      p2p_item *it = l->items;
      l->items = it->next;
      if (it->req) hlo_mpi_p2p_drop(c, it->req);
      hlo_free(c->alloc, it->data);
      hlo_free(c->alloc, it);
    }
    hlo_free(c->alloc, l);
  }
}

/* The link of (ch, src, dst), made on first use; NULL when out of memory.
 * Under the mutex. */
static hlo_p2p_link *link_of(hlo_comm *c, int64_t ch, int src, int dst) {
  for (hlo_p2p_link *l = c->links; l; l = l->next)
    if (l->ch == ch && l->src == src && l->dst == dst) return l;
  hlo_p2p_link *l = hlo_malloc(c->alloc, sizeof *l);
  if (!l) return NULL;
  memset(l, 0, sizeof *l);
  l->ch = ch, l->src = src, l->dst = dst;
  l->next = c->links;
  c->links = l;
  return l;
}

/* Unlink and return the item of seq, NULL if absent.  Under the mutex. */
static p2p_item *take(hlo_p2p_link *l, int64_t seq) {
  for (p2p_item **pp = &l->items; *pp; pp = &(*pp)->next)
    if ((*pp)->seq == seq) {
      p2p_item *it = *pp;
      *pp = it->next;
      return it;
    }
  return NULL;
}

static int add_item(hlo_comm *c, hlo_p2p_link *l, int64_t seq, void *data, size_t nbytes, void *req) {
  p2p_item *it = hlo_malloc(c->alloc, sizeof *it);
  if (!it) return HLO_ERR;
  *it = (p2p_item){seq, data, nbytes, req, NULL};
  p2p_item **pp = &l->items; /* in order of seq */
  while (*pp) pp = &(*pp)->next;
  *pp = it;
  return HLO_OK;
}

/* Stop the other devices after this one failed; unlocks the mutex. */
static void fail_unlock(hlo_comm *c, int self) {
  if (c->first_failed < 0) c->first_failed = self;
  c->aborted = true;
  hlo_comm_wake(c);
  pthread_mutex_unlock(&c->mu);
}

static int late(hlo_run *r, const hlo_instruction *in, hlo_comm *c, int self, int peer, int64_t ch,
                bool sending) {
  return hlo_run_errorf(r, in, "collective timed out after %g s: device %d waiting, device %d never "
                        "reached its %s on channel %lld (--collective-timeout)", c->timeout,
                        hlo_comm_device_id(c, self), hlo_comm_device_id(c, peer),
                        sending ? "recv" : "send", (long long)ch);
}

/* Count one send (or recv) on the link; over MPI with the peer in another
 * process also start its request. */
static int start(hlo_run *r, const hlo_instruction *in, bool send, int64_t ch, int src, int dst,
                 const hlo_val *v, size_t nbytes, int64_t *seq) {
  hlo_comm *c = r->e->opts.comm;
  int self = send ? src : dst, peer = send ? dst : src;
  *seq = 0;
  if (!c || peer < 0) return HLO_OK; /* no peer: a send just completes, a recv gets zeros */
  bool remote = !hlo_comm_is_local(c, peer);
  void *data = NULL, *req = NULL;
  char why[256] = "out of memory";
  pthread_mutex_lock(&c->mu);
  if (c->aborted) {
    pthread_mutex_unlock(&c->mu);
    return hlo_run_errorf(r, in, "stopped: another device failed");
  }
  hlo_p2p_link *l = link_of(c, ch, src, dst);
  if (!l) goto fail;
  *seq = send ? l->nsent++ : l->nrecv++;
  hlo_comm_wake(c);
  pthread_mutex_unlock(&c->mu);
  if (remote) {
    if (hlo_mpi_p2p_start(c, send, ch, src, dst, send ? v->data : NULL, nbytes, &req, why, sizeof why))
      goto fail_unlocked;
  } else if (send) {
    data = hlo_malloc(c->alloc, nbytes + 1);
    if (!data) goto fail_unlocked;
    if (nbytes) memcpy(data, v->data, nbytes);
  }
  pthread_mutex_lock(&c->mu);
  if ((remote || send) && add_item(c, l, *seq, data, nbytes, req)) goto fail;
  hlo_comm_wake(c);
  pthread_mutex_unlock(&c->mu);
  return HLO_OK;
fail_unlocked:
  pthread_mutex_lock(&c->mu);
fail:
  if (req) hlo_mpi_p2p_drop(c, req);
  hlo_free(c->alloc, data);
  fail_unlock(c, self);
  return hlo_run_errorf(r, in, "%s", why);
}

int hlo_p2p_send(hlo_run *r, const hlo_instruction *in, int64_t ch, int src, int dst, const hlo_val *v,
                 int64_t *seq) {
  return start(r, in, true, ch, src, dst, v, v->nbytes, seq);
}

int hlo_p2p_recv(hlo_run *r, const hlo_instruction *in, int64_t ch, int src, int dst, size_t nbytes,
                 int64_t *seq) {
  return start(r, in, false, ch, src, dst, NULL, nbytes, seq);
}

/* Finish one end: over MPI complete its request; in one process wait
 * until the recv was reached (send-done) or the data arrived (recv-done). */
static int finish(hlo_run *r, const hlo_instruction *in, bool send, int64_t ch, int src, int dst,
                  int64_t seq, hlo_val *out) {
  hlo_comm *c = r->e->opts.comm;
  int self = send ? src : dst, peer = send ? dst : src;
  if (!c || peer < 0) return HLO_OK;
  pthread_mutex_lock(&c->mu);
  hlo_p2p_link *l = link_of(c, ch, src, dst);
  if (!l) {
    fail_unlock(c, self);
    return hlo_run_errorf(r, in, "out of memory");
  }
  if (!hlo_comm_is_local(c, peer)) {
    p2p_item *it = take(l, seq);
    pthread_mutex_unlock(&c->mu);
    if (!it)
      return hlo_run_errorf(r, in, "no %s %lld on channel %lld to complete", send ? "send" : "recv",
                            (long long)seq, (long long)ch);
    char why[256];
    bool timed_out = false;
    int rc = hlo_mpi_p2p_finish(c, it->req, out ? out->data : NULL, &timed_out, why, sizeof why);
    hlo_free(c->alloc, it);
    if (rc == HLO_OK) return HLO_OK;
    hlo_comm_fail(c, self);
    return timed_out ? late(r, in, c, self, peer, ch, send) : hlo_run_errorf(r, in, "%s", why);
  }
  struct timespec dl;
  hlo_comm_deadline(c->timeout, &dl);
  p2p_item *it = NULL;
  /* a device waiting on itself: its own send (or recv) cannot come while
   * it waits, so it never will */
  bool ready = peer == self && (send ? l->nrecv > seq : (it = take(l, seq)) != NULL);
  if (peer == self && !ready) {
    fail_unlock(c, self);
    return hlo_run_errorf(r, in, "device %d waits for its own %s on channel %lld, which it has not reached "
                          "before this %s", hlo_comm_device_id(c, self), send ? "recv" : "send", (long long)ch,
                          send ? "send-done" : "recv-done");
  }
  while (!ready) {
    if (send ? l->nrecv > seq : (it = take(l, seq)) != NULL) break;
    if (c->aborted) {
      pthread_mutex_unlock(&c->mu);
      return hlo_run_errorf(r, in, "stopped: another device failed");
    }
    if (hlo_comm_wait(c, &dl) == ETIMEDOUT &&
        !(send ? l->nrecv > seq : (it = take(l, seq)) != NULL)) {
      fail_unlock(c, self);
      return late(r, in, c, self, peer, ch, send);
    }
    if (it) break;
  }
  pthread_mutex_unlock(&c->mu);
  if (!it) return HLO_OK;
  int rc = HLO_OK;
  if (it->nbytes != out->nbytes) {
    hlo_comm_fail(c, self);
    rc = hlo_run_errorf(r, in, "device %d sent %zu bytes on channel %lld, but the recv takes %zu",
                        hlo_comm_device_id(c, peer), it->nbytes, (long long)ch, out->nbytes);
  } else if (out->nbytes) {
    memcpy(out->data, it->data, out->nbytes);
  }
  hlo_free(c->alloc, it->data);
  hlo_free(c->alloc, it);
  return rc;
}

int hlo_p2p_send_done(hlo_run *r, const hlo_instruction *in, int64_t ch, int src, int dst, int64_t seq) {
  return finish(r, in, true, ch, src, dst, seq, NULL);
}

int hlo_p2p_recv_done(hlo_run *r, const hlo_instruction *in, int64_t ch, int src, int dst, int64_t seq,
                      hlo_val *out) {
  return finish(r, in, false, ch, src, dst, seq, out);
}
