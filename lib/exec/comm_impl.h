/* comm_impl.h - the communicator's fields, shared by comm.c (rendezvous)
 * and devices.c (the device group that runs one thread per device). */
#ifndef HLO_EXEC_COMM_IMPL_H
#define HLO_EXEC_COMM_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "hlo/hlo_exec.h"

typedef struct hlo_rdv hlo_rdv;
typedef struct hlo_p2p_link hlo_p2p_link;
struct hlo_comm {
  const hlo_allocator *alloc;
  int replicas, partitions;
  int *assignment;        /* device id by logical device */
  double timeout;         /* seconds */
  pthread_mutex_t mu;
  pthread_cond_t cv;      /* any change of a meeting or of `aborted` */
  atomic_uint epoch;      /* bumped by every hlo_comm_wake (a waiter spins on it first) */
  hlo_rdv *meetings;      /* open meetings */
  bool aborted;
  int first_failed;       /* logical device that failed first, -1 none */
  /* MPI (comm_mpi.c): this process runs devices rank*per_rank .. +per_rank-1 */
  bool mpi, mpi_owned;    /* over MPI; MPI initialised by hlo_comm_new_mpi */
  int rank, nranks, per_rank;
  hlo_p2p_link *links;    /* send/recv state per (channel, source, target) */
  void *p2p_mpi;          /* over MPI: MPI_Comm[2], of send and recv and of hlo_rdv_p2p */
};

/* The meeting of one collective (comm.c); over MPI it also holds the
 * operands of the participants of other processes. */
struct hlo_rdv {
  const hlo_instruction *in;
  int n, nlocal, arrived, left, gone;
  int *part;
  bool *here;
  struct hlo_rdv_entry *ents;
  int exchange;           /* over MPI: 0 not yet, 1 done, -1 failed */
  bool direct;            /* over MPI: no exchange at the meeting (hlo_rdv_direct) */
  char why[256];          /* the exchange's error */
  void *remote;           /* the received operands and their values */
  hlo_rdv *next;
};

/* Whether logical device k runs in this process. */
static inline bool hlo_comm_is_local(const hlo_comm *c, int k) {
  return !c->mpi || k / c->per_rank == c->rank;
}

/* Wake every waiter after a change (the mutex held). */
void hlo_comm_wake(hlo_comm *c);
/* Wait, the mutex held, for the next hlo_comm_wake until the absolute
 * deadline: a short spin with the mutex released (spin.h), then the
 * condition variable.  ETIMEDOUT or 0; may return early: the caller
 * rechecks its condition. */
int hlo_comm_wait(hlo_comm *c, const struct timespec *deadline);
/* Record that device failed (the first one is kept) and stop every wait. */
void hlo_comm_fail(hlo_comm *c, int device);
/* Over MPI: send the operands of v's local participants to the processes
 * of its other participants and receive theirs into v->remote, setting
 * their v->ents (comm_mpi.c).  HLO_ERR with the reason in v->why. */
int hlo_mpi_exchange(hlo_comm *c, hlo_rdv *v, int nvals);
/* Over MPI: whether any process failed (every process calls it). */
bool hlo_mpi_any_failed(hlo_comm *c, bool failed);
/* Over MPI: bring the result of every device to rank 0, as values of the
 * shape of local results; HLO_ERR with a diagnostic in d. */
int hlo_mpi_gather(hlo_comm *c, hlo_val **results, const hlo_allocator *alloc, hlo_diags *d);
/* Finalise MPI if hlo_comm_new_mpi initialised it. */
void hlo_comm_mpi_end(hlo_comm *c);
/* The absolute time s seconds from now (CLOCK_MONOTONIC, as the
 * communicator's condition variable waits). */
void hlo_comm_deadline(double s, struct timespec *t);
/* Forget every send and recv of the last run (comm_p2p.c). */
void hlo_p2p_reset(hlo_comm *c);
/* Over MPI (comm_mpi.c): start a send of nbytes at data (copied) from
 * device src to device dst of another process, or a receive of nbytes from
 * src into a buffer, on channel ch; *req the request.  HLO_ERR with the
 * reason in why. */
int hlo_mpi_p2p_start(hlo_comm *c, bool send, int64_t ch, int src, int dst, const void *data,
                      size_t nbytes, void **req, char *why, size_t cap);
/* Over MPI: complete req within the communicator's timeout (*late set when
 * it passed), copying a received message into out; req is freed.  HLO_ERR
 * with the reason in why. */
int hlo_mpi_p2p_finish(hlo_comm *c, void *req, void *out, bool *late, char *why, size_t cap);
/* Over MPI: cancel and free a request a failed run left. */
void hlo_mpi_p2p_drop(hlo_comm *c, void *req);
/* Drop meetings left by a failed run and clear the failure (no device may
 * be running). */
void hlo_comm_reset(hlo_comm *c);

#endif
