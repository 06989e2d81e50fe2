/* comm.h - the rendezvous of a collective among the devices of one group
 * (comm.c): each device brings its operands and its result buffers; when
 * all have arrived every device can read the others' operands and write
 * into their results directly; a last barrier lets them go. */
#ifndef HLO_EXEC_COMM_H
#define HLO_EXEC_COMM_H

#include "exec/exec.h"

#define HLO_RDV_MAX_VALS 64 /* operands (and results) one device brings */

/* What each participant brought: its operand values and result values,
 * both borrowed (alive until hlo_rdv_leave returns). */
typedef struct hlo_rdv_entry {
  hlo_val **in;
  hlo_val **out;
} hlo_rdv_entry;

typedef struct hlo_rdv hlo_rdv;

/* Meet the participants part[0..n) (logical devices, self at pos) of
 * instruction in, each bringing nvals operands and results.  On success
 * *rv is the meeting and ents[i] what participant i brought; over MPI the
 * participants of other processes bring operands only (their out is NULL)
 * and *shared_outs is false.  n == 1 (or no communicator) returns at once
 * with *rv = NULL.  Errors (timeout, abort) are reported through r naming
 * in. */
/* How a meeting over MPI moves the operands of other processes' participants. */
typedef enum hlo_rdv_mode {
  HLO_RDV_EXCHANGE, /* every operand to every process of the group, at the meeting */
  HLO_RDV_CHUNKED,  /* direct when each participant is in a process of its own, else exchange */
  HLO_RDV_P2P,      /* always direct: the devices send what they must (hlo_rdv_p2p) */
} hlo_rdv_mode;
int hlo_rdv_meet(hlo_run *r, const hlo_instruction *in, const int *part, int n, int pos, int nvals,
                 hlo_val **ins, hlo_val **outs, hlo_rdv_mode mode, hlo_rdv **rv,
                 const hlo_rdv_entry **ents, bool *shared_outs);
/* Over MPI, a direct meeting (see hlo_rdv_mode) does no exchange at the
 * meeting (the participants of other processes bring nothing): the caller
 * moves the data itself, as hlo_rdv_allreduce and hlo_rdv_p2p do; the
 * local participants' entries are there as in threads. */
bool hlo_rdv_direct(const hlo_rdv *rv);
/* Whether participant i of a meeting runs in this process. */
bool hlo_rdv_local(const hlo_run *r, const hlo_rdv *rv, int i);
/* One point-to-point message of a direct meeting: to or from participant
 * peer, told apart from the device's other messages of the same peer and
 * instruction by key (>= 0); a receive's buffer takes at most nbytes and
 * got is what arrived. */
typedef struct hlo_rdv_msg {
  int peer, key;
  void *buf;
  size_t nbytes, got;
} hlo_rdv_msg;
/* Over MPI, in a direct meeting: participant pos sends send[0..nsend) and
 * receives recv[0..nrecv) (peers in other processes), all posted at once
 * and completed within the communicator's timeout.  Messages of one pair
 * of devices with one key arrive in the order they were sent.  Errors
 * through r naming in. */
int hlo_rdv_p2p(hlo_run *r, const hlo_instruction *in, hlo_rdv *rv, int pos, hlo_rdv_msg *send, int nsend,
                hlo_rdv_msg *recv, int nrecv);
/* The fold of elements [lo, lo+len) of the result from the n contributions
 * src[0..n) (each pointing at its element lo), in participant order. */
typedef int (*hlo_rdv_fold)(void *ctx, const void *const *src, int64_t lo, int64_t len);
/* All-reduce of a direct meeting (participant pos, operand in, result out
 * of the same shape): each participant receives its share of the elements
 * from every other, folds it with fold, and sends it back to every other
 * (the volume of a reduce-scatter plus an all-gather).  Errors through r. */
int hlo_rdv_allreduce(hlo_run *r, const hlo_instruction *in, hlo_rdv *rv, int pos, const hlo_val *inv,
                      hlo_val *out, hlo_rdv_fold fold, void *ctx);
/* Wait for every participant to reach this point (after writing into the
 * others' results), then drop the meeting.  rv may be NULL. */
int hlo_rdv_leave(hlo_run *r, const hlo_instruction *in, hlo_rdv *rv);

/* ---- send and recv between two devices (comm_p2p.c) ------------------------
 * The n-th send of device src on channel ch meets the n-th recv of device
 * dst on that channel: a send hands over a copy of its data (its ordinal in
 * *seq); send-done waits until dst has reached the matching recv; recv
 * returns the ordinal the recv-done waits for; recv-done receives the data
 * into out.  Waits end after the communicator's timeout with an error
 * naming in, or when another device failed.  Errors through r. */
int hlo_p2p_send(hlo_run *r, const hlo_instruction *in, int64_t ch, int src, int dst, const hlo_val *v,
                 int64_t *seq);
int hlo_p2p_send_done(hlo_run *r, const hlo_instruction *in, int64_t ch, int src, int dst, int64_t seq);
int hlo_p2p_recv(hlo_run *r, const hlo_instruction *in, int64_t ch, int src, int dst, size_t nbytes,
                 int64_t *seq);
int hlo_p2p_recv_done(hlo_run *r, const hlo_instruction *in, int64_t ch, int src, int dst, int64_t seq,
                      hlo_val *out);

/* dst[doff + k] = src[0][soff + k] op src[1][soff + k] op ... (left to
 * right) for k < len, elements of type t, for the simple reducer op of
 * the common types (coll_fold.c); false for any other op or type. */
bool hlo_fold_typed(hlo_opcode op, hlo_type t, void *dst, int64_t doff, const void *const *src,
                    int n, int64_t soff, int64_t len);

#endif
