/* comm_mpi.c - the communicator across the processes of an MPI job: the
 * operands of a collective's participants in other processes arrive by
 * point-to-point messages (one per pair of processes and collective, tagged
 * by the group's first device, so the non-overtaking order of MPI matches
 * them up), and every process then computes its devices' results from all
 * operands in device order, the same bits as in threads.  Results are
 * gathered to rank 0.  Built only with HLO_HAVE_MPI (the Makefile defines it
 * when pkg-config finds ompi-c); otherwise hlo_comm_new_mpi says so. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "exec/comm.h"
#include "exec/comm_impl.h"

#ifdef HLO_HAVE_MPI
#include <mpi.h>

hlo_comm *hlo_comm_new_mpi(const hlo_comm_options *o, int devices_per_rank, const hlo_allocator *alloc,
                           hlo_diags *d) {
  int inited = 0, provided = 0, owned = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
      hlo_errorf(d, NULL, 0, "MPI_Init_thread failed");
      return NULL;
    }
    owned = 1;
  } else {
    MPI_Query_thread(&provided);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int nd = o ? o->replicas * o->partitions : 0;
  if (devices_per_rank < 1 || nd < 1 || (long long)devices_per_rank * size != nd) {
    hlo_errorf(d, NULL, 0, "%d devices do not fit %d MPI processes of %d device%s each", nd, size,
               devices_per_rank, devices_per_rank == 1 ? "" : "s");
    if (owned) MPI_Finalize();
    return NULL;
  }
  if (devices_per_rank > 1 && provided < MPI_THREAD_MULTIPLE) {
    hlo_errorf(d, NULL, 0, "several devices per MPI process need MPI_THREAD_MULTIPLE, which this MPI "
               "does not provide");
    if (owned) MPI_Finalize();
    return NULL;
  }
  hlo_comm *c = hlo_comm_new(o, alloc, d);
  if (!c) {
    if (owned) MPI_Finalize();
    return NULL;
  }
  /* pc[0]: send and recv; pc[1]: the slices of in-place collective-permute */
  MPI_Comm *pc = hlo_malloc(alloc, 2 * sizeof *pc);
  bool made = pc && MPI_Comm_dup(MPI_COMM_WORLD, &pc[0]) == MPI_SUCCESS;
  if (made && MPI_Comm_dup(MPI_COMM_WORLD, &pc[1]) != MPI_SUCCESS) {
    MPI_Comm_free(&pc[0]);
    made = false;
  }
  if (!made) {
    hlo_free(alloc, pc);
    hlo_errorf(d, NULL, 0, "cannot make the MPI communicators of send and recv");
    hlo_comm_free(c);
    if (owned) MPI_Finalize();
    return NULL;
  }
  MPI_Comm_set_errhandler(pc[0], MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(pc[1], MPI_ERRORS_RETURN);
  c->p2p_mpi = pc;
  c->mpi = true;
  c->mpi_owned = owned;
  c->rank = rank;
  c->nranks = size;
  c->per_rank = devices_per_rank;
  return c;
}

void hlo_comm_mpi_end(hlo_comm *c) {
  if (c->p2p_mpi) {
    MPI_Comm_free(&((MPI_Comm *)c->p2p_mpi)[0]);
    MPI_Comm_free(&((MPI_Comm *)c->p2p_mpi)[1]);
    hlo_free(c->alloc, c->p2p_mpi);
    c->p2p_mpi = NULL;
  }
  if (c->mpi && c->mpi_owned) MPI_Finalize();
}

void hlo_comm_abort_job(hlo_comm *c, int code) {
  if (c && c->mpi) MPI_Abort(MPI_COMM_WORLD, code);
}

/* Complete every request or fail after the communicator's timeout. */
static int wait_all(hlo_comm *c, MPI_Request *req, int nreq) {
  struct timespec t0, now, nap = {0, 20000};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    int done = 0;
    if (MPI_Testall(nreq, req, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) return HLO_ERR;
    if (done) return HLO_OK;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9 > c->timeout) {
      for (int i = 0; i < nreq; i++)
        if (req[i] != MPI_REQUEST_NULL) { MPI_Cancel(&req[i]); MPI_Request_free(&req[i]); }
      return HLO_ERR;
    }
    nanosleep(&nap, NULL);
  }
}

/* "collective timed out ... waiting for devices 1, 3 of other MPI processes" */
static void late_message(const hlo_comm *c, const hlo_rdv *v, char *why, size_t cap) {
  char miss[128] = "";
  size_t m = 0;
  int nmiss = 0;
  for (int i = 0; i < v->n && m + 12 < sizeof miss; i++)
    if (!hlo_comm_is_local(c, v->part[i]))
      m += (size_t)snprintf(miss + m, sizeof miss - m, "%s%d", nmiss++ ? ", " : "",
                            hlo_comm_device_id(c, v->part[i]));
  snprintf(why, cap, "collective timed out after %g s waiting for device%s %s of other MPI processes "
           "(--collective-timeout)", c->timeout, nmiss == 1 ? "" : "s", miss);
}

int hlo_mpi_exchange(hlo_comm *c, hlo_rdv *v, int nvals) {
  int n = v->n, K = c->per_rank;
  int me = v->part[0];
  size_t per = 0; /* bytes one participant brings: its operands, all the same shapes */
  const hlo_rdv_entry *mine = NULL;
  for (int i = 0; i < n && !mine; i++)
    if (hlo_comm_is_local(c, v->part[i])) mine = &v->ents[i];
  for (int k = 0; k < nvals; k++) per += mine->in[k]->nbytes;
  int nremote = n - v->nlocal;
  size_t shells = sizeof(hlo_val) * (size_t)nremote * (size_t)nvals;
  size_t ptrs = sizeof(hlo_val *) * (size_t)nremote * (size_t)nvals;
  size_t sendb = per * (size_t)v->nlocal, recvb = per * (size_t)nremote;
  hlo_free(c->alloc, v->remote);
  v->remote = hlo_malloc(c->alloc, shells + ptrs + sendb + recvb + 64);
  MPI_Request *req = hlo_malloc(c->alloc, sizeof(MPI_Request) * (size_t)(2 * c->nranks + 2));
  if (!v->remote || !req) {
    hlo_free(c->alloc, req);
    snprintf(v->why, sizeof v->why, "out of memory");
    return HLO_ERR;
  }
  hlo_val *sh = v->remote;
  hlo_val **pv = (hlo_val **)((char *)v->remote + shells);
  char *sbuf = (char *)pv + ptrs, *rbuf = sbuf + sendb;
  /* our participants' operands, in group order */
  char *w = sbuf;
  for (int i = 0; i < n; i++)
    if (hlo_comm_is_local(c, v->part[i]))
      for (int k = 0; k < nvals; k++) {
        if (v->ents[i].in[k]->nbytes) memcpy(w, v->ents[i].in[k]->data, v->ents[i].in[k]->nbytes);
        w += v->ents[i].in[k]->nbytes;
      }
  /* one message each way with every other process of the group; theirs
   * land in group order too */
  int nreq = 0, rc = HLO_OK;
  size_t roff = 0;
  int tag = me;
  for (int rk = 0; rk < c->nranks && rc == HLO_OK; rk++) {
    if (rk == c->rank) continue;
    int cnt = 0;
    for (int i = 0; i < n; i++) cnt += v->part[i] / K == rk;
    if (!cnt) continue;
    size_t rb = per * (size_t)cnt;
    if (rb > 0x7fffffff || sendb > 0x7fffffff) {
      snprintf(v->why, sizeof v->why, "a message of more than 2 GB between MPI processes");
      rc = HLO_ERR;
      break;
    }
    MPI_Irecv(rbuf + roff, (int)rb, MPI_BYTE, rk, tag, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Isend(sbuf, (int)sendb, MPI_BYTE, rk, tag, MPI_COMM_WORLD, &req[nreq++]);
    /* the received operands of rk's participants */
    size_t off = roff;
    for (int i = 0; i < n; i++) {
      if (v->part[i] / K != rk) continue;
      int base = 0;
      for (int j = 0; j < i; j++) base += !hlo_comm_is_local(c, v->part[j]);
      for (int k = 0; k < nvals; k++) {
        hlo_val *x = &sh[base * nvals + k];
        memset(x, 0, sizeof *x);
        x->refs = 1;
        x->shape = mine->in[k]->shape;
        x->nelems = mine->in[k]->nelems;
        x->nbytes = mine->in[k]->nbytes;
        x->data = rbuf + off;
        x->borrowed = true;
        off += x->nbytes;
        pv[base * nvals + k] = x;
      }
      v->ents[i].in = &pv[base * nvals];
      v->ents[i].out = NULL;
    }
    roff += rb;
  }
  if (rc == HLO_OK && wait_all(c, req, nreq) != HLO_OK) {
    late_message(c, v, v->why, sizeof v->why);
    rc = HLO_ERR;
  }
  hlo_free(c->alloc, req);
  return rc;
}

int hlo_rdv_allreduce(hlo_run *r, const hlo_instruction *in, hlo_rdv *v, int pos, const hlo_val *inv,
                      hlo_val *out, hlo_rdv_fold fold, void *ctx) {
  hlo_comm *c = r->e->opts.comm;
  int n = v->n, K = c->per_rank, tag = v->part[0];
  int64_t N = out->nelems;
  size_t eb = N ? out->nbytes / (size_t)N : 0;
  int64_t lo = N * pos / n, len = N * (pos + 1) / n - lo;
  if ((size_t)len * eb > 0x7fffffff || (size_t)(N / n + 1) * eb > 0x7fffffff)
    return hlo_run_errorf(r, in, "a message of more than 2 GB between MPI processes");
  /* the others' contributions to our share, one slot each */
  char *buf = hlo_malloc(c->alloc, (size_t)len * eb * (size_t)n + 1);
  MPI_Request *req = hlo_malloc(c->alloc, sizeof(MPI_Request) * (size_t)(2 * n + 1));
  const void **src = hlo_malloc(c->alloc, sizeof(void *) * (size_t)n);
  int rc = HLO_OK, nreq = 0;
  if (!buf || !req || !src) { rc = hlo_run_errorf(r, in, "out of memory"); goto done; }
  const char *mine = inv->data;
  for (int j = 0; j < n; j++) {
    if (j == pos) continue;
    int rk = v->part[j] / K;
    int64_t jlo = N * j / n, jlen = N * (j + 1) / n - jlo;
    MPI_Irecv(buf + (size_t)j * (size_t)len * eb, (int)((size_t)len * eb), MPI_BYTE, rk, tag, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Isend(mine + (size_t)jlo * eb, (int)((size_t)jlen * eb), MPI_BYTE, rk, tag, MPI_COMM_WORLD, &req[nreq++]);
  }
  if (wait_all(c, req, nreq) != HLO_OK) goto late;
  for (int j = 0; j < n; j++) src[j] = j == pos ? mine + (size_t)lo * eb : buf + (size_t)j * (size_t)len * eb;
  if (fold(ctx, src, lo, len)) { rc = HLO_ERR; goto done; }
  /* every share back to every participant */
  nreq = 0;
  char *o = out->data;
  for (int j = 0; j < n; j++) {
    if (j == pos) continue;
    int rk = v->part[j] / K;
    int64_t jlo = N * j / n, jlen = N * (j + 1) / n - jlo;
    MPI_Irecv(o + (size_t)jlo * eb, (int)((size_t)jlen * eb), MPI_BYTE, rk, tag, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Isend(o + (size_t)lo * eb, (int)((size_t)len * eb), MPI_BYTE, rk, tag, MPI_COMM_WORLD, &req[nreq++]);
  }
  if (wait_all(c, req, nreq) != HLO_OK) goto late;
  goto done;
late: {
    char why[300];
    late_message(c, v, why, sizeof why);
    rc = hlo_run_errorf(r, in, "%s", why);
  }
done:
  if (rc) hlo_comm_fail(c, v->part[pos]);
  hlo_free(c->alloc, buf);
  hlo_free(c->alloc, req);
  hlo_free(c->alloc, src);
  return rc;
}

/* The messages of a direct meeting, on a communicator of their own,
 * tagged by key and the two devices' places in their processes. */
int hlo_rdv_p2p(hlo_run *r, const hlo_instruction *in, hlo_rdv *v, int pos, hlo_rdv_msg *send, int nsend,
                hlo_rdv_msg *recv, int nrecv) {
  hlo_comm *c = r->e->opts.comm;
  MPI_Comm pc = ((MPI_Comm *)c->p2p_mpi)[1];
  int K = c->per_rank, self = v->part[pos], *ub = NULL, flag = 0;
  MPI_Comm_get_attr(pc, MPI_TAG_UB, &ub, &flag);
  long long lim = flag && ub ? *ub : 32767;
  MPI_Request *req = hlo_malloc(c->alloc, sizeof(MPI_Request) * (size_t)(nsend + nrecv + 1));
  MPI_Status *st = hlo_malloc(c->alloc, sizeof(MPI_Status) * (size_t)(nsend + nrecv + 1));
  int rc = HLO_OK, nreq = 0;
  if (!req || !st) { rc = hlo_run_errorf(r, in, "out of memory"); goto done; }
  for (int i = 0; i < nsend + nrecv && rc == HLO_OK; i++) {
    bool out = i < nsend;
    hlo_rdv_msg *m = out ? &send[i] : &recv[i - nsend];
    int peer = v->part[m->peer], src = out ? self : peer, dst = out ? peer : self;
    long long tag = ((long long)m->key * K + src % K) * K + dst % K;
    if (m->key < 0 || tag > lim) {
      rc = hlo_run_errorf(r, in, "message %d of this device is beyond the tags of this MPI (at most %lld)",
                          m->key, lim);
    } else if (m->nbytes > 0x7fffffff) {
      rc = hlo_run_errorf(r, in, "a message of more than 2 GB between MPI processes");
    } else {
      int e = out ? MPI_Isend(m->buf, (int)m->nbytes, MPI_BYTE, dst / K, (int)tag, pc, &req[nreq])
                  : MPI_Irecv(m->buf, (int)m->nbytes, MPI_BYTE, src / K, (int)tag, pc, &req[nreq]);
      if (e != MPI_SUCCESS) rc = hlo_run_errorf(r, in, "MPI could not start a %s", out ? "send" : "receive");
      else nreq++;
    }
  }
  if (rc == HLO_OK) {
    struct timespec t0, now, nap = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int all = 0; !all;) {
      if (MPI_Testall(nreq, req, &all, st) != MPI_SUCCESS) {
        rc = hlo_run_errorf(r, in, "a message between MPI processes failed (a larger message than expected?)");
        break;
      }
      if (all) break;
      clock_gettime(CLOCK_MONOTONIC, &now);
      if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9 > c->timeout) {
        char why[300];
        late_message(c, v, why, sizeof why);
        rc = hlo_run_errorf(r, in, "%s", why);
        break;
      }
      nanosleep(&nap, NULL);
    }
    for (int i = 0; i < nrecv && rc == HLO_OK; i++) {
      int got = 0;
      MPI_Get_count(&st[nsend + i], MPI_BYTE, &got);
      recv[i].got = (size_t)got;
    }
  }
  if (rc != HLO_OK) {
    for (int i = 0; i < nreq; i++)
      if (req[i] != MPI_REQUEST_NULL) { MPI_Cancel(&req[i]); MPI_Request_free(&req[i]); }
    hlo_comm_fail(c, self);
  }
done:
  hlo_free(c->alloc, req);
  hlo_free(c->alloc, st);
  return rc;
}

/* ---- send and recv: a synchronous send (complete once the receiver has
 * posted its receive, as send-done waits for the recv in threads) and a
 * receive, on a communicator of their own, tagged by channel and the two
 * devices' places in their processes so that MPI's message order matches
 * the n-th send with the n-th recv. */
typedef struct p2p_req {
  MPI_Request rq;
  size_t nbytes;
  char data[];
} p2p_req;

int hlo_mpi_p2p_start(hlo_comm *c, bool send, int64_t ch, int src, int dst, const void *data,
                      size_t nbytes, void **req, char *why, size_t cap) {
  int K = c->per_rank, *ub = NULL, flag = 0;
  MPI_Comm pc = *(MPI_Comm *)c->p2p_mpi;
  MPI_Comm_get_attr(pc, MPI_TAG_UB, &ub, &flag);
  long long tag = (ch * K + src % K) * K + dst % K, lim = flag && ub ? *ub : 32767;
  if (ch < 0 || tag > lim) {
    snprintf(why, cap, "channel %lld is beyond the tags of this MPI (at most %lld)", (long long)ch, lim);
    return HLO_ERR;
  }
  if (nbytes > 0x7fffffff) {
    snprintf(why, cap, "a message of more than 2 GB between MPI processes");
    return HLO_ERR;
  }
  p2p_req *q = hlo_malloc(c->alloc, sizeof *q + nbytes + 1);
  if (!q) {
    snprintf(why, cap, "out of memory");
    return HLO_ERR;
  }
  q->nbytes = nbytes;
  if (send && nbytes) memcpy(q->data, data, nbytes);
  int e = send ? MPI_Issend(q->data, (int)nbytes, MPI_BYTE, dst / K, (int)tag, pc, &q->rq)
               : MPI_Irecv(q->data, (int)nbytes, MPI_BYTE, src / K, (int)tag, pc, &q->rq);
  if (e != MPI_SUCCESS) {
    hlo_free(c->alloc, q);
    snprintf(why, cap, "MPI could not start the %s", send ? "send" : "receive");
    return HLO_ERR;
  }
  *req = q;
  return HLO_OK;
}

int hlo_mpi_p2p_finish(hlo_comm *c, void *req, void *out, bool *late, char *why, size_t cap) {
  p2p_req *q = req;
  MPI_Status st;
  struct timespec t0, now, nap = {0, 20000};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  *late = false;
  int done = 0, rc = HLO_OK;
  while (!done) {
    int e = MPI_Test(&q->rq, &done, &st);
    if (e != MPI_SUCCESS) {
      int len = 0;
      char msg[MPI_MAX_ERROR_STRING];
      MPI_Error_string(e, msg, &len);
      snprintf(why, cap, "the message did not arrive whole: %s (do send and recv shapes agree?)", msg);
      hlo_free(c->alloc, q);
      return HLO_ERR;
    }
    if (done) break;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9 > c->timeout) {
      *late = true;
      hlo_mpi_p2p_drop(c, q);
      return HLO_ERR;
    }
    nanosleep(&nap, NULL);
  }
  if (out) {
    int got = 0;
    MPI_Get_count(&st, MPI_BYTE, &got);
    if ((size_t)got != q->nbytes) {
      snprintf(why, cap, "%d bytes arrived, but the recv takes %zu", got, q->nbytes);
      rc = HLO_ERR;
    } else if (q->nbytes) {
      memcpy(out, q->data, q->nbytes);
    }
  }
  hlo_free(c->alloc, q);
  return rc;
}

void hlo_mpi_p2p_drop(hlo_comm *c, void *req) {
  p2p_req *q = req;
  if (q->rq != MPI_REQUEST_NULL) {
    MPI_Cancel(&q->rq);
    MPI_Request_free(&q->rq);
  }
  hlo_free(c->alloc, q);
}

bool hlo_mpi_any_failed(hlo_comm *c, bool failed) {
  int mine = failed, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  return any != 0;
}

/* Pack the array leaves of v (depth first) into buf (NULL: count bytes). */
static size_t pack(const hlo_val *v, char *buf, bool out) {
  size_t n = 0;
  for (int i = 0; i < v->ntuple; i++) n += pack(v->tuple[i], buf ? buf + n : NULL, out);
  if (!v->ntuple && v->nbytes) {
    if (buf && out) memcpy(buf, v->data, v->nbytes);
    if (buf && !out) memcpy(v->data, buf, v->nbytes);
    n += v->nbytes;
  }
  return n;
}

int hlo_mpi_gather(hlo_comm *c, hlo_val **results, const hlo_allocator *alloc, hlo_diags *d) {
  int K = c->per_rank, first = c->rank * K;
  size_t per = pack(results[first], NULL, true);
  if (per * (size_t)K > 0x7fffffff)
    return hlo_errorf(d, NULL, 0, "results of more than 2 GB per MPI process cannot be gathered");
  char *buf = hlo_malloc(alloc, per * (size_t)K + 1);
  if (!buf) return hlo_errorf(d, NULL, 0, "out of memory");
  int rc = HLO_OK;
  if (c->rank != 0) {
    for (int k = 0; k < K; k++) pack(results[first + k], buf + per * (size_t)k, true);
    MPI_Send(buf, (int)(per * (size_t)K), MPI_BYTE, 0, 0x7fff, MPI_COMM_WORLD);
  } else {
    for (int rk = 1; rk < c->nranks && rc == HLO_OK; rk++) {
      MPI_Recv(buf, (int)(per * (size_t)K), MPI_BYTE, rk, 0x7fff, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int k = 0; k < K; k++) {
        hlo_val *v = hlo_val_new(alloc, results[0]->shape);
        if (!v) { rc = hlo_errorf(d, NULL, 0, "out of memory"); break; }
        pack(v, buf + per * (size_t)k, false);
        results[rk * K + k] = v;
      }
    }
  }
  hlo_free(alloc, buf);
  return rc;
}

#else /* no MPI */

hlo_comm *hlo_comm_new_mpi(const hlo_comm_options *o, int devices_per_rank, const hlo_allocator *alloc,
                           hlo_diags *d) {
  (void)o, (void)devices_per_rank, (void)alloc;
  hlo_errorf(d, NULL, 0, "MPI support was not built (install libopenmpi-dev, then rebuild)");
  return NULL;
}

void hlo_comm_mpi_end(hlo_comm *c) { (void)c; }
void hlo_comm_abort_job(hlo_comm *c, int code) { (void)c, (void)code; }
int hlo_mpi_exchange(hlo_comm *c, hlo_rdv *v, int nvals) {
  (void)c, (void)nvals;
  snprintf(v->why, sizeof v->why, "MPI support was not built");
  return HLO_ERR;
}
bool hlo_mpi_any_failed(hlo_comm *c, bool failed) { (void)c; return failed; }
int hlo_mpi_p2p_start(hlo_comm *c, bool send, int64_t ch, int src, int dst, const void *data,
                      size_t nbytes, void **req, char *why, size_t cap) {
  (void)c, (void)send, (void)ch, (void)src, (void)dst, (void)data, (void)nbytes, (void)req;
  snprintf(why, cap, "MPI support was not built");
  return HLO_ERR;
}
int hlo_mpi_p2p_finish(hlo_comm *c, void *req, void *out, bool *late, char *why, size_t cap) {
  (void)c, (void)req, (void)out;
  *late = false;
  snprintf(why, cap, "MPI support was not built");
  return HLO_ERR;
}
void hlo_mpi_p2p_drop(hlo_comm *c, void *req) { (void)c, (void)req; }
int hlo_rdv_allreduce(hlo_run *r, const hlo_instruction *in, hlo_rdv *v, int pos, const hlo_val *inv,
                      hlo_val *out, hlo_rdv_fold fold, void *ctx) {
  (void)v, (void)pos, (void)inv, (void)out, (void)fold, (void)ctx;
  return hlo_run_errorf(r, in, "MPI support was not built");
}
int hlo_rdv_p2p(hlo_run *r, const hlo_instruction *in, hlo_rdv *v, int pos, hlo_rdv_msg *send, int nsend,
                hlo_rdv_msg *recv, int nrecv) {
  (void)v, (void)pos, (void)send, (void)nsend, (void)recv, (void)nrecv;
  return hlo_run_errorf(r, in, "MPI support was not built");
}
int hlo_mpi_gather(hlo_comm *c, hlo_val **results, const hlo_allocator *alloc, hlo_diags *d) {
  (void)c, (void)results, (void)alloc;
  return hlo_errorf(d, NULL, 0, "MPI support was not built");
}

#endif

void hlo_comm_local(const hlo_comm *c, int *first, int *count, int *rank) {
  *first = c->mpi ? c->rank * c->per_rank : 0;
  *count = c->mpi ? c->per_rank : c->replicas * c->partitions;
  *rank = c->mpi ? c->rank : 0;
}
