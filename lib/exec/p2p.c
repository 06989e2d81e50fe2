/* p2p.c - the kernels of send, recv, send-done and recv-done between
 * devices: the peer of each comes at plan time from the frontend attribute
 * _xla_send_recv_source_target_pairs (partition ids when the op's
 * channel_id is positive, else replica ids, as XLA's GPU runtime reads them:
 * a cross-replica collective-permute decomposes with channel_id=0; the done forms take the pairs of the send or
 * recv of their channel); at run time the ends meet through the
 * communicator (comm_p2p.c).  The u32 context element of a send's or recv's
 * result carries the ordinal of the transfer to its done, also across loop
 * iterations.  A device that no pair targets receives zeros; a device that
 * is no source just completes.  Host transfers cannot run. */
#include <string.h>

#include "exec/comm.h"
#include "exec/groups.h"

typedef struct p2p_plan {
  int64_t ch;
  int src, dst; /* logical devices of this step's transfer; the peer -1 if none */
} p2p_plan;

/* The send (or recv) of channel ch that a done form pairs with. */
static const hlo_instruction *start_of(const hlo_module *m, hlo_opcode op, int64_t ch) {
  for (int c = 0; c < m->ncomps; c++)
    for (int i = 0; i < m->comps[c]->ninstrs; i++) {
      const hlo_instruction *x = m->comps[c]->instrs[i];
      if (x->op == op && hlo_instr_int(x, HLO_A_CHANNEL_ID, -1) == ch) return x;
    }
  return NULL;
}

int hlo_prep_p2p(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  if (hlo_instr_bool(in, HLO_A_IS_HOST_TRANSFER, false))
    return HLO_PLAN_ERR(e, in, "instruction %%%s: op '%s' is not supported by hlo-run: it needs a host "
                        "connection (is_host_transfer=true)", in->name, hlo_opcode_name(in->op));
  bool send = in->op == HLO_OP_SEND || in->op == HLO_OP_SEND_DONE;
  p2p_plan *pp = hlo_arena_alloc(&e->arena, sizeof *pp);
  if (!pp) return HLO_PLAN_ERR(e, in, "out of memory");
  pp->ch = hlo_instr_int(in, HLO_A_CHANNEL_ID, 0);
  /* the pairs: of this op, or of the send/recv of its channel */
  const hlo_instruction *pin = in;
  if (in->op == HLO_OP_SEND_DONE || in->op == HLO_OP_RECV_DONE) {
    const hlo_instruction *st = start_of(e->m, send ? HLO_OP_SEND : HLO_OP_RECV, pp->ch);
    if (st) pin = st;
  }
  char why[300];
  int np;
  int64_t(*pv)[2];
  if (hlo_p2p_pairs(pin, &e->arena, &np, &pv, why, sizeof why))
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s", in->name, why);
  if (np < 0)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: no frontend attribute _xla_send_recv_source_target_pairs "
                        "names the devices this %s connects", in->name, hlo_opcode_name(pin->op));
  int R = hlo_comm_replicas(e->opts.comm), P = hlo_comm_partitions(e->opts.comm);
  int self = e->opts.comm ? e->opts.device : 0;
  bool by_partition = hlo_instr_int(pin, HLO_A_CHANNEL_ID, 0) > 0;
  int lim = by_partition ? P : R, me = by_partition ? self % P : self / P;
  int peer = -1;
  for (int k = 0; k < np; k++) {
    if (pv[k][0] >= lim || pv[k][1] >= lim)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: _xla_send_recv_source_target_pairs name %s %lld, but "
                          "there are %d", in->name, by_partition ? "partition" : "replica",
                          (long long)(pv[k][0] >= lim ? pv[k][0] : pv[k][1]), lim);
    if (pv[k][send ? 0 : 1] != me) continue;
    if (peer >= 0)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: %s %d is the %s of two pairs", in->name,
                          by_partition ? "partition" : "replica", me, send ? "source" : "target");
    int id = (int)pv[k][send ? 1 : 0];
    peer = by_partition ? self / P * P + id : id * P + self % P;
  }
  if (peer >= 0 && !e->opts.comm) { /* one device, sending to itself */
    hlo_comm_options o = {1, 1, NULL, 0};
    e->own_comm = hlo_comm_new(&o, e->alloc, e->diags);
    if (!e->own_comm) return HLO_ERR;
    e->opts.comm = e->own_comm;
    e->opts.device = 0;
  }
  pp->src = send ? self : peer;
  pp->dst = send ? peer : self;
  s->p = pp;
  return HLO_OK;
}

/* The ordinal in the context element of a send's or recv's result. */
static int context_of(hlo_run *r, const plan_step *s, const hlo_val *v, int64_t *seq) {
  if (v->shape->type != HLO_TUPLE || v->ntuple < 2 || v->tuple[1]->nelems != 1)
    return hlo_run_errorf(r, s->in, "the operand is not the (data, context, token) of a send or recv");
  *seq = hlo_sc_load(v->tuple[1]->shape->type, v->tuple[1]->data, 0).i;
  return HLO_OK;
}

/* (data, u32 context, token): data is args[0] for a send, zeros until
 * the recv-done for a recv. */
static int start_kernel(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out, bool send) {
  const p2p_plan *pp = s->p;
  const hlo_shape *sh = &s->in->shape;
  if (sh->type != HLO_TUPLE || sh->ntuple < 2 || !hlo_shape_is_array(&sh->tuple[0]) ||
      !hlo_shape_is_array(&sh->tuple[1]))
    return hlo_run_errorf(r, s->in, "the result must be (array, u32[], token)");
  hlo_val *t = hlo_run_new(r, sh);
  if (!t) return hlo_run_errorf(r, s->in, "out of memory");
  int64_t seq;
  int rc = send ? hlo_p2p_send(r, s->in, pp->ch, pp->src, pp->dst, args[0], &seq)
                : hlo_p2p_recv(r, s->in, pp->ch, pp->src, pp->dst, t->tuple[0]->nbytes, &seq);
  if (rc) {
    hlo_run_release(r, t);
    return rc;
  }
  if (send) {
    hlo_run_release(r, t->tuple[0]);
    t->tuple[0] = hlo_val_ref(args[0]);
  }
  if (t->tuple[1]->nelems == 1) hlo_sc_store(t->tuple[1]->shape->type, t->tuple[1]->data, 0, (hlo_sc){0, 0, seq});
  *out = t;
  return HLO_OK;
}

DECL_KERN(hlo_ctl_send) { return start_kernel(r, s, args, out, true); }
DECL_KERN(hlo_ctl_recv) { return start_kernel(r, s, args, out, false); }

/* send-done: a token once the target reached its recv. */
DECL_KERN(hlo_ctl_send_done) {
  const p2p_plan *pp = s->p;
  int64_t seq;
  if (context_of(r, s, args[0], &seq) || hlo_p2p_send_done(r, s->in, pp->ch, pp->src, pp->dst, seq))
    return HLO_ERR;
  *out = hlo_run_new(r, &s->in->shape);
  return *out ? HLO_OK : hlo_run_errorf(r, s->in, "out of memory");
}

/* recv-done: (data, token), the data of the matching send (zeros when no
 * pair targets this device). */
DECL_KERN(hlo_ctl_recv_done) {
  const p2p_plan *pp = s->p;
  const hlo_shape *sh = &s->in->shape;
  int64_t seq;
  if (context_of(r, s, args[0], &seq)) return HLO_ERR;
  if (sh->type != HLO_TUPLE || sh->ntuple < 1 || !hlo_shape_is_array(&sh->tuple[0]))
    return hlo_run_errorf(r, s->in, "the result must be (array, token)");
  hlo_val *t = hlo_run_new(r, sh);
  if (!t) return hlo_run_errorf(r, s->in, "out of memory");
  if (hlo_p2p_recv_done(r, s->in, pp->ch, pp->src, pp->dst, seq, t->tuple[0])) {
    hlo_run_release(r, t);
    return HLO_ERR;
  }
  *out = t;
  return HLO_OK;
}
