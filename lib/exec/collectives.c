/* collectives.c - the collective kernels: all-reduce, reduce-scatter,
 * all-gather, all-to-all, collective-broadcast, collective-permute (also
 * in place, with slices), ragged-all-to-all (and the start forms),
 * replica-id and partition-id, for the devices of the plan's communicator.
 * The participants of each step are found at plan time (groups.c); at run
 * time the devices meet (comm.c), read each other's operands in place and
 * write results.  A reduction folds the contributions in participant order
 * (the typed loops in coll_fold.c), whichever device computes an element,
 * so every run gives the same bits; all-reduce splits the elements among
 * the devices and each writes its share into every device's result. */
#include <string.h>

#include "exec/comm.h"
#include "exec/comm_impl.h"
#include "exec/groups.h"

typedef struct coll_plan {
  int n, pos;           /* participants and self's position */
  int *part;            /* logical devices, in XLA's order */
  hlo_opcode red;       /* simple reducer's op, HLO_OP_COUNT if none */
  const plan_comp *reducer;
} coll_plan;

static bool is_start(hlo_opcode op) {
  return op == HLO_OP_ALL_GATHER_START || op == HLO_OP_COLLECTIVE_PERMUTE_START;
}

/* The shape the collective computes: the result, or for the start forms
 * whose result is (operands, results, ...) its second element. */
static const hlo_shape *core_shape(const hlo_instruction *in) {
  if (is_start(in->op) && in->shape.type == HLO_TUPLE && in->shape.ntuple >= 2) return &in->shape.tuple[1];
  return &in->shape;
}

/* collective-permute(input, output, input_offsets, output_offsets) */
static bool is_in_place_permute(const hlo_instruction *in) {
  return (in->op == HLO_OP_COLLECTIVE_PERMUTE || in->op == HLO_OP_COLLECTIVE_PERMUTE_START) &&
         in->noperands == 4 && hlo_instr_attr(in, HLO_A_SLICE_SIZES);
}

int hlo_prep_collective(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  int R = hlo_comm_replicas(e->opts.comm), P = hlo_comm_partitions(e->opts.comm);
  int self = e->opts.comm ? e->opts.device : 0;
  coll_plan *cp = hlo_arena_alloc(&e->arena, sizeof *cp);
  int *part = hlo_arena_array(&e->arena, (size_t)R * (size_t)P + 1, sizeof(int));
  if (!cp || !part) return HLO_PLAN_ERR(e, in, "out of memory");
  char why[300];
  if (hlo_group_participants(in, R, P, self, &e->arena, part, &cp->n, &cp->pos, why, sizeof why))
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s", in->name, why);
  cp->part = part;
  cp->red = HLO_OP_COUNT;
  cp->reducer = NULL;
  const hlo_attr *ta = hlo_instr_attr(in, HLO_A_TO_APPLY);
  if (ta && ta->u.comp) {
    cp->red = hlo_plan_simple_reducer(ta->u.comp);
    cp->reducer = e->plans[ta->u.comp->id];
  }
  const hlo_shape *core = core_shape(in);
  int nleaves = core->type == HLO_TUPLE ? core->ntuple : 1;
  if (in->op == HLO_OP_RAGGED_ALL_TO_ALL) nleaves = 6; /* one result from six operands */
  bool in_place = is_in_place_permute(in);
  if (in_place) {
    nleaves = 4; /* input, output, input and output offsets */
  }
  if (s->nargs > HLO_RDV_MAX_VALS || nleaves != s->nargs)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %d operands for %d results: this form of %s is not "
                        "supported by hlo-run", in->name, s->nargs, nleaves, hlo_opcode_name(in->op));
  for (int i = 0; i < (in_place ? 2 : s->nargs); i++)
    if (!hlo_shape_is_array(&in->operands[i]->shape))
      return HLO_PLAN_ERR(e, in, "instruction %%%s: operand %d is not an array: this form of %s is "
                          "not supported by hlo-run", in->name, i, hlo_opcode_name(in->op));
  s->p = cp;
  return HLO_OK;
}

/* ---- reductions ------------------------------------------------------------ */
/* The fold of any type and reducer: typed loops for the simple reducers of
 * the common types, the scalar semantics of the op for the other types, and
 * the to_apply computation itself for any other reducer. */
static int fold(hlo_run *r, const plan_step *s, const coll_plan *cp, hlo_type t, void *dst,
                int64_t doff, const void *const *src, int n, int64_t soff, int64_t len) {
  if (len <= 0) return HLO_OK; /* zero-sized: the buffers may be NULL */
  if (cp->red != HLO_OP_COUNT && hlo_fold_typed(cp->red, t, dst, doff, src, n, soff, len)) return HLO_OK;
  if (!cp->reducer) return hlo_run_errorf(r, s->in, "needs a to_apply computation");
  for (int64_t k = 0; k < len; k++) {
    hlo_sc acc = hlo_sc_load(t, src[0], soff + k);
    for (int j = 1; j < n; j++) {
      hlo_sc b = hlo_sc_load(t, src[j], soff + k);
      if (cp->red != HLO_OP_COUNT) {
        acc = hlo_ref_binary(cp->red, t, t, acc, b);
        hlo_sc_store(t, dst, doff + k, acc); /* round to t after every step */
        acc = hlo_sc_load(t, dst, doff + k);
      } else {
        hlo_sc ab[2] = {acc, b};
        if (hlo_run_scalar(r, cp->reducer, ab, 2, &acc, 1)) return HLO_ERR;
      }
    }
    hlo_sc_store(t, dst, doff + k, acc);
  }
  return HLO_OK;
}

/* ---- helpers ------------------------------------------------------------------- */
/* Elements before and after dimension d, as concatenation sees them. */
static void split_at(const hlo_shape *sh, int d, int64_t *outer, int64_t *inner) {
  *outer = 1, *inner = 1;
  for (int i = 0; i < d; i++) *outer *= sh->dims[i];
  for (int i = d + 1; i < sh->rank; i++) *inner *= sh->dims[i];
}

static int dim_attr(hlo_run *r, const plan_step *s, const hlo_shape *sh, int *d) {
  int nd;
  const int64_t *dv = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &nd);
  if (!dv || nd != 1 || dv[0] < 0 || dv[0] >= sh->rank)
    return hlo_run_errorf(r, s->in, "needs dimensions={D} within the operand rank");
  *d = (int)dv[0];
  return HLO_OK;
}

/* The collective's result from the leaf results outs[0..nargs) (their
 * references move into it): the core value, wrapped as
 * (operands, core, zeros...) for the start forms. */
static int assemble(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **outs, hlo_val **out) {
  const hlo_instruction *in = s->in;
  const hlo_shape *core = core_shape(in);
  hlo_val *cv;
  if (core->type == HLO_TUPLE) {
    cv = hlo_run_new(r, core);
    if (!cv) goto oom;
    for (int i = 0; i < s->nargs; i++) {
      hlo_run_release(r, cv->tuple[i]);
      cv->tuple[i] = outs[i];
      outs[i] = NULL;
    }
  } else {
    cv = outs[0];
    outs[0] = NULL;
  }
  if (core == &in->shape) { *out = cv; return HLO_OK; }
  hlo_val *t = hlo_run_new(r, &in->shape);
  if (!t) { hlo_run_release(r, cv); goto oom; }
  hlo_val *ops = t->tuple[0];
  if (ops->shape->type == HLO_TUPLE) {
    for (int i = 0; i < ops->ntuple && i < s->nargs; i++) {
      hlo_run_release(r, ops->tuple[i]);
      ops->tuple[i] = hlo_val_ref(args[i]);
    }
  } else {
    hlo_run_release(r, t->tuple[0]);
    t->tuple[0] = hlo_val_ref(args[0]);
  }
  hlo_run_release(r, t->tuple[1]);
  t->tuple[1] = cv;
  *out = t;
  return HLO_OK;
oom:
  return hlo_run_errorf(r, in, "out of memory");
}

/* Allocate the leaf results (zeroed when zero is set), meet, run body,
 * leave, assemble. */
typedef int (*coll_body)(hlo_run *r, const plan_step *s, const coll_plan *cp,
                         const hlo_rdv_entry *ents, hlo_val **outs, bool shared_outs);

static int body_all_reduce(hlo_run *r, const plan_step *s, const coll_plan *cp,
                           const hlo_rdv_entry *ents, hlo_val **outs, bool shared);
static int all_reduce_direct(hlo_run *r, const plan_step *s, const coll_plan *cp, hlo_rdv *rv,
                             hlo_val **args, hlo_val **outs);
static int body_permute_in_place(hlo_run *r, const plan_step *s, const coll_plan *cp,
                                 const hlo_rdv_entry *ents, hlo_val **outs, bool shared);
static int permute_in_place_direct(hlo_run *r, const plan_step *s, const coll_plan *cp, hlo_rdv *rv,
                                   hlo_val **args, hlo_val **outs);

static int collective(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out, bool zero,
                      coll_body body) {
  const coll_plan *cp = s->p;
  const hlo_shape *core = core_shape(s->in);
  hlo_val *outs[HLO_RDV_MAX_VALS] = {NULL};
  int rc = HLO_OK, nouts = core->type == HLO_TUPLE ? core->ntuple : 1;
  for (int i = 0; i < nouts && rc == HLO_OK; i++) {
    const hlo_shape *ls = core->type == HLO_TUPLE ? &core->tuple[i] : core;
    outs[i] = zero ? hlo_run_new(r, ls) : hlo_run_new_raw(r, ls);
    if (!outs[i]) rc = hlo_run_errorf(r, s->in, "out of memory");
  }
  hlo_rdv *rv = NULL;
  const hlo_rdv_entry *ents = NULL;
  hlo_rdv_entry self = {args, outs};
  /* a failed allocation still meets the others, so that they are not left
   * waiting: the device then fails and aborts the group */
  bool shared = true;
  if (rc == HLO_OK)
    rc = hlo_rdv_meet(r, s->in, cp->part, cp->n, cp->pos, s->nargs, args, outs,
                      body == body_all_reduce         ? HLO_RDV_CHUNKED
                      : body == body_permute_in_place ? HLO_RDV_P2P
                                                      : HLO_RDV_EXCHANGE,
                      &rv, &ents, &shared);
  if (rc == HLO_OK) {
    if (!rv) ents = &self;
    if (!hlo_rdv_direct(rv)) rc = body(r, s, cp, ents, outs, shared);
    else if (body == body_all_reduce) rc = all_reduce_direct(r, s, cp, rv, args, outs);
    else rc = permute_in_place_direct(r, s, cp, rv, args, outs);
    int lrc = hlo_rdv_leave(r, s->in, rv);
    if (rc == HLO_OK) rc = lrc;
  }
  if (rc == HLO_OK) rc = assemble(r, s, args, outs, out);
  for (int i = 0; i < nouts; i++)
    if (outs[i]) hlo_run_release(r, outs[i]);
  return rc;
}

/* ---- the ops ---------------------------------------------------------------------- */
enum { AR_BLOCK_BYTES = 64 << 10 }; /* a block of an all-reduce's share that stays in L2 */

static int body_all_reduce(hlo_run *r, const plan_step *s, const coll_plan *cp,
                           const hlo_rdv_entry *ents, hlo_val **outs, bool shared) {
  int n = cp->n;
  const void *src[4096];
  for (int i = 0; i < s->nargs; i++) {
    hlo_val *o = outs[i];
    hlo_type t = o->shape->type;
    /* each device its share of the elements, written into every result;
     * over MPI (results of other processes out of reach) all of them */
    int64_t N = o->nelems, lo = shared ? N * cp->pos / n : 0, hi = shared ? N * (cp->pos + 1) / n : N;
    size_t eb = (size_t)hlo_type_bytes(t);
    for (int j = 0; j < n; j++) src[j] = ents[j].in[i]->data;
    /* block by block, so that the copies to the other results read the
     * folded block from cache: each contribution is read from memory once
     * and each result written once */
    int64_t blk = shared && eb ? (int64_t)(AR_BLOCK_BYTES / eb) : hi - lo;
    if (blk < 1) blk = 1;
    for (int64_t b = lo; b < hi; b += blk) {
      int64_t len = hi - b < blk ? hi - b : blk;
      if (fold(r, s, cp, t, o->data, b, src, n, b, len)) return HLO_ERR;
      for (int j = 0; j < n && shared; j++)
        if (j != cp->pos)
          memcpy((char *)ents[j].out[i]->data + (size_t)b * eb, (char *)o->data + (size_t)b * eb, (size_t)len * eb);
    }
  }
  return HLO_OK;
}

/* all-reduce over MPI with one participant in this process: the
 * contributions of the others arrive as the share of elements this device
 * folds (hlo_rdv_allreduce) */
typedef struct fold_ctx {
  hlo_run *r;
  const plan_step *s;
  const coll_plan *cp;
  hlo_val *out;
} fold_ctx;

static int fold_share(void *p, const void *const *src, int64_t lo, int64_t len) {
  fold_ctx *f = p;
  return fold(f->r, f->s, f->cp, f->out->shape->type, f->out->data, lo, src, f->cp->n, 0, len);
}

static int all_reduce_direct(hlo_run *r, const plan_step *s, const coll_plan *cp, hlo_rdv *rv,
                             hlo_val **args, hlo_val **outs) {
  for (int i = 0; i < s->nargs; i++) {
    fold_ctx f = {r, s, cp, outs[i]};
    if (hlo_rdv_allreduce(r, s->in, rv, cp->pos, args[i], outs[i], fold_share, &f)) return HLO_ERR;
  }
  return HLO_OK;
}

static int body_reduce_scatter(hlo_run *r, const plan_step *s, const coll_plan *cp,
                               const hlo_rdv_entry *ents, hlo_val **outs, bool shared) {
  int n = cp->n;
  const void *src[4096];
  for (int i = 0; i < s->nargs; i++) {
    const hlo_shape *is = ents[cp->pos].in[i]->shape;
    int d;
    if (dim_attr(r, s, is, &d)) return HLO_ERR;
    if (is->dims[d] != outs[i]->shape->dims[d] * n)
      return hlo_run_errorf(r, s->in, "dimension %d of operand %d is not %d times that of the result",
                            d, i, n);
    int64_t outer, inner, c = outs[i]->shape->dims[d];
    split_at(is, d, &outer, &inner);
    for (int j = 0; j < n; j++) src[j] = ents[j].in[i]->data;
    for (int64_t o = 0; o < outer; o++)
      if (fold(r, s, cp, is->type, outs[i]->data, o * c * inner, src, n,
               (o * n + cp->pos) * c * inner, c * inner))
        return HLO_ERR;
  }
  return HLO_OK;
}

static int body_all_gather(hlo_run *r, const plan_step *s, const coll_plan *cp,
                           const hlo_rdv_entry *ents, hlo_val **outs, bool shared) {
  int n = cp->n;
  for (int i = 0; i < s->nargs; i++) {
    const hlo_shape *is = ents[cp->pos].in[i]->shape;
    int d;
    if (dim_attr(r, s, is, &d)) return HLO_ERR;
    if (outs[i]->shape->dims[d] != is->dims[d] * n)
      return hlo_run_errorf(r, s->in, "dimension %d of the result is not %d times that of operand %d",
                            d, n, i);
    int64_t outer, inner;
    split_at(is, d, &outer, &inner);
    size_t blk = (size_t)(is->dims[d] * inner) * (size_t)hlo_type_bytes(is->type);
    for (int64_t o = 0; o < outer; o++)
      for (int j = 0; j < n; j++)
        if (blk)
          memcpy((char *)outs[i]->data + ((size_t)o * (size_t)n + (size_t)j) * blk,
                 (const char *)ents[j].in[i]->data + (size_t)o * blk, blk);
  }
  return HLO_OK;
}

static int body_all_to_all(hlo_run *r, const plan_step *s, const coll_plan *cp,
                           const hlo_rdv_entry *ents, hlo_val **outs, bool shared) {
  int n = cp->n;
  if (!hlo_instr_attr(s->in, HLO_A_DIMENSIONS)) { /* tuple form: operand j goes to device j */
    if (s->nargs != n)
      return hlo_run_errorf(r, s->in, "%d operands for a group of %d devices", s->nargs, n);
    for (int j = 0; j < n; j++)
      if (outs[j]->nbytes) memcpy(outs[j]->data, ents[j].in[cp->pos]->data, outs[j]->nbytes);
    return HLO_OK;
  }
  const hlo_shape *is = ents[cp->pos].in[0]->shape;
  int d;
  if (dim_attr(r, s, is, &d)) return HLO_ERR;
  if (is->dims[d] % n)
    return hlo_run_errorf(r, s->in, "dimension %d (%lld) does not split among %d devices", d,
                          (long long)is->dims[d], n);
  int64_t outer, inner;
  split_at(is, d, &outer, &inner);
  size_t cb = (size_t)(is->dims[d] / n * inner) * (size_t)hlo_type_bytes(is->type);
  for (int64_t o = 0; o < outer; o++)
    for (int j = 0; j < n; j++)
      if (cb)
        memcpy((char *)outs[0]->data + ((size_t)o * (size_t)n + (size_t)j) * cb,
               (const char *)ents[j].in[0]->data + ((size_t)o * (size_t)n + (size_t)cp->pos) * cb, cb);
  return HLO_OK;
}

static int body_broadcast(hlo_run *r, const plan_step *s, const coll_plan *cp,
                          const hlo_rdv_entry *ents, hlo_val **outs, bool shared) {
  (void)r, (void)cp;
  for (int i = 0; i < s->nargs; i++)
    if (outs[i]->nbytes) memcpy(outs[i]->data, ents[0].in[i]->data, outs[i]->nbytes);
  return HLO_OK;
}

static int body_permute(hlo_run *r, const plan_step *s, const coll_plan *cp,
                        const hlo_rdv_entry *ents, hlo_val **outs, bool shared) {
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_SOURCE_TARGET_PAIRS);
  int64_t src = -1;
  for (int k = 0; a && k < a->u.pairs.n; k++) {
    int64_t sid = a->u.pairs.v[k][0], tid = a->u.pairs.v[k][1];
    if (sid < 0 || sid >= cp->n || tid < 0 || tid >= cp->n)
      return hlo_run_errorf(r, s->in, "source_target_pairs name id %lld, but there are %d",
                            (long long)(sid < 0 || sid >= cp->n ? sid : tid), cp->n);
    if (tid == cp->pos) {
      if (src >= 0) return hlo_run_errorf(r, s->in, "id %d is the target of two pairs", cp->pos);
      src = sid;
    }
  }
  if (src < 0) return HLO_OK; /* zeros */
  for (int i = 0; i < s->nargs; i++)
    if (outs[i]->nbytes) memcpy(outs[i]->data, ents[src].in[i]->data, outs[i]->nbytes);
  return HLO_OK;
}

/* ragged-all-to-all (operands input, output, input_offsets, send_sizes,
 * output_offsets, recv_sizes): the metadata of each sender holds u updates
 * per peer, update k going to peer k / u.  This device's result is its own
 * output operand with, for every sender j and each of its updates k meant
 * for this device, the rows input_j[input_offsets_j[k] : +send_sizes_j[k]]
 * written at row output_offsets_j[k] (rows along the outermost dimension);
 * recv_sizes_self[...] must agree with what arrives. */
static int64_t meta_at(const hlo_val *v, int64_t k) { return hlo_sc_load(v->shape->type, v->data, k).i; }

static int body_ragged(hlo_run *r, const plan_step *s, const coll_plan *cp, const hlo_rdv_entry *ents,
                       hlo_val **outs, bool shared) {
  (void)shared;
  int n = cp->n;
  hlo_val *const *me = ents[cp->pos].in;
  const hlo_shape *is = me[0]->shape, *os = me[1]->shape;
  if (is->rank < 1 || os->rank != is->rank)
    return hlo_run_errorf(r, s->in, "input and output must have the same rank >= 1");
  for (int i = 1; i < is->rank; i++)
    if (is->dims[i] != os->dims[i])
      return hlo_run_errorf(r, s->in, "input and output differ beyond the outermost dimension");
  for (int k = 2; k < 6; k++) {
    const hlo_shape *m = me[k]->shape;
    if (!hlo_type_is_int(m->type) || m->rank < 1 || m->rank > 2 || !hlo_shape_compatible(m, me[2]->shape))
      return hlo_run_errorf(r, s->in, "offsets and sizes must be integer arrays of one shape");
  }
  int64_t nm = me[2]->nelems;
  if (nm % n)
    return hlo_run_errorf(r, s->in, "%lld offsets do not split among a group of %d devices",
                          (long long)nm, n);
  int64_t u = nm / n, srows = is->dims[0], drows = os->dims[0];
  hlo_val *o = outs[0];
  if (o->nbytes) memcpy(o->data, me[1]->data, o->nbytes);
  size_t row = srows ? me[0]->nbytes / (size_t)srows : 0;
  for (int j = 0; j < n; j++) {
    hlo_val *const *sj = ents[j].in;
    for (int64_t i = 0; i < u; i++) {
      int64_t k = (int64_t)cp->pos * u + i, kr = (int64_t)j * u + i;
      int64_t a = meta_at(sj[2], k), len = meta_at(sj[3], k), b = meta_at(sj[4], k);
      if (len != meta_at(me[5], kr))
        return hlo_run_errorf(r, s->in, "device %d sends %lld rows in update %lld but recv_sizes[%lld] is %lld",
                              cp->part[j], (long long)len, (long long)k, (long long)kr,
                              (long long)meta_at(me[5], kr));
      if (len < 0 || a < 0 || b < 0 || a > srows - len || b > drows - len)
        return hlo_run_errorf(r, s->in, "update %lld of device %d: rows [%lld, +%lld) -> [%lld, +%lld) out of bounds",
                              (long long)k, cp->part[j], (long long)a, (long long)len, (long long)b, (long long)len);
      if (len && row)
        memcpy((char *)o->data + (size_t)b * row, (const char *)sj[0]->data + (size_t)a * row, (size_t)len * row);
    }
  }
  return HLO_OK;
}

DECL_KERN(hlo_ctl_ragged_all_to_all) { return collective(r, s, args, out, false, body_ragged); }

/* In-place collective-permute: offsets operand v gives, for pair p, the
 * start index d of the slice: a tuple with one element per pair (a tuple of
 * scalars or an index array), a tuple of rank scalars shared by every pair,
 * an index array [rank] shared by every pair or [pairs, rank]. */
static bool offset_at(const hlo_val *v, int64_t p, int d, int rank, int64_t *o) {
  if (v->shape->type == HLO_TUPLE) {
    if (v->ntuple == rank && v->ntuple > 0 && hlo_shape_is_array(v->tuple[0]->shape) &&
        v->tuple[0]->nelems == 1 && (rank > 1 || v->tuple[0]->shape->rank == 0))
      v = v->tuple[d], d = 0; /* rank scalars, shared */
    else if (p < v->ntuple)
      v = v->tuple[p];
    else
      return false;
    if (v->shape->type == HLO_TUPLE) {
      if (d >= v->ntuple || !hlo_shape_is_array(v->tuple[d]->shape) || v->tuple[d]->nelems != 1) return false;
      v = v->tuple[d], d = 0;
    }
  } else if (v->nelems > rank && rank > 0 && v->nelems % rank == 0) { /* [pairs, rank] */
    if (p >= v->nelems / rank) return false;
    d += (int)(p * rank);
  }
  if (!hlo_shape_is_array(v->shape) || !hlo_type_is_int(v->shape->type) || d >= v->nelems) return false;
  *o = hlo_sc_load(v->shape->type, v->data, d).i;
  return true;
}

/* The checks every device of an in-place collective-permute makes first:
 * input and output of one rank and type, slice_sizes of the right form.
 * The result starts as the device's own output operand. */
static int ip_begin(hlo_run *r, const plan_step *s, hlo_val *const *me, hlo_val *o, int *npairs) {
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_SOURCE_TARGET_PAIRS);
  const hlo_shape *is = me[0]->shape, *os = o->shape;
  if (is->rank != os->rank || is->type != os->type)
    return hlo_run_errorf(r, s->in, "input and output must have the same rank and element type");
  if (os->rank > HLO_EXEC_MAX_RANK) return hlo_run_errorf(r, s->in, "rank %d is above %d", os->rank, HLO_EXEC_MAX_RANK);
  if (o->nbytes) memcpy(o->data, me[1]->data, o->nbytes);
  *npairs = a ? a->u.pairs.n : 0;
  /* slice_sizes: {{sizes of pair 0}, {sizes of pair 1}, ...} or one list */
  const hlo_attr *sa = hlo_instr_attr(s->in, HLO_A_SLICE_SIZES);
  const hlo_replica_groups *sl = sa->kind == HLO_AK_INT_LISTS ? sa->u.groups : NULL;
  if (sl ? sl->iota || sl->ngroups != *npairs : sa->u.ints.n != os->rank)
    return hlo_run_errorf(r, s->in, "slice_sizes needs %d sizes for each of the %d pairs", os->rank, *npairs);
  return HLO_OK;
}

/* Pair p's ids (checked against the group) and slice sizes (NULL when the
 * list is not of the rank). */
static int ip_pair(hlo_run *r, const plan_step *s, const coll_plan *cp, int p, int rank, int64_t *sid,
                   int64_t *tid, const int64_t **sz) {
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_SOURCE_TARGET_PAIRS);
  *sid = a->u.pairs.v[p][0], *tid = a->u.pairs.v[p][1];
  if (*sid < 0 || *sid >= cp->n || *tid < 0 || *tid >= cp->n)
    return hlo_run_errorf(r, s->in, "source_target_pairs name id %lld, but there are %d",
                          (long long)(*sid < 0 || *sid >= cp->n ? *sid : *tid), cp->n);
  const hlo_attr *sa = hlo_instr_attr(s->in, HLO_A_SLICE_SIZES);
  const hlo_replica_groups *sl = sa->kind == HLO_AK_INT_LISTS ? sa->u.groups : NULL;
  *sz = !sl ? sa->u.ints.v : sl->group_sizes[p] == rank ? sl->groups[p] : NULL;
  return HLO_OK;
}

static int ip_no_sizes(hlo_run *r, const plan_step *s, int rank, int npairs) {
  return hlo_run_errorf(r, s->in, "slice_sizes needs %d sizes for each of the %d pairs", rank, npairs);
}

/* The start index of pair p in offsets operand v; false (d set) when v
 * names none for dimension d. */
static bool ip_offsets(const hlo_val *v, int p, int rank, int64_t *at, int *d) {
  for (*d = 0; *d < rank; (*d)++)
    if (!offset_at(v, p, *d, rank, &at[*d])) return false;
  return true;
}

/* Whether the slice of sizes sz at ib (input dims id) and ob (output dims
 * od) lies inside both; else the error naming pair p. */
static int ip_bounds(hlo_run *r, const plan_step *s, int p, int rank, const int64_t *sz, const int64_t *ib,
                     const int64_t *id, const int64_t *ob, const int64_t *od) {
  for (int d = 0; d < rank; d++)
    if (sz[d] < 0 || ib[d] < 0 || ob[d] < 0 || ib[d] > id[d] - sz[d] || ob[d] > od[d] - sz[d])
      return hlo_run_errorf(r, s->in, "pair %d: slice [%lld, +%lld) -> [%lld, +%lld) of dimension %d out of "
                            "bounds", p, (long long)ib[d], (long long)sz[d], (long long)ob[d],
                            (long long)sz[d], d);
  return HLO_OK;
}

/* Copy the box of sizes sz at so in src (dims sd) to do in dst (dims dd),
 * elements of eb bytes, in row-major order of the box. */
static void copy_box(char *dst, const int64_t *dd, const int64_t *dof, const char *src, const int64_t *sd,
                     const int64_t *sof, const int64_t *sz, int rank, size_t eb) {
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= sz[d];
  for (int64_t k = 0; k < n; k++) {
    int64_t rem = k, si = 0, di = 0, sstr = 1, dstr = 1;
    for (int d = rank - 1; d >= 0; d--) {
      int64_t x = rem % sz[d];
      rem /= sz[d];
      si += (sof[d] + x) * sstr;
      di += (dof[d] + x) * dstr;
      sstr *= sd[d];
      dstr *= dd[d];
    }
    memcpy(dst + (size_t)di * eb, src + (size_t)si * eb, eb);
  }
}

/* Write the slice of pair p from the source's input (offsets operand ioff)
 * at this device's output offsets (operand ooff) into o. */
static int ip_write(hlo_run *r, const plan_step *s, int p, const int64_t *sz, const hlo_val *in,
                    const hlo_val *ioff, const hlo_val *ooff, hlo_val *o) {
  int rank = o->shape->rank, d;
  int64_t ib[HLO_EXEC_MAX_RANK], ob[HLO_EXEC_MAX_RANK];
  if (!ip_offsets(ioff, p, rank, ib, &d) || !ip_offsets(ooff, p, rank, ob, &d))
    return hlo_run_errorf(r, s->in, "pair %d: the offsets name no start index for dimension %d", p, d);
  if (ip_bounds(r, s, p, rank, sz, ib, in->shape->dims, ob, o->shape->dims)) return HLO_ERR;
  copy_box(o->data, o->shape->dims, ob, in->data, in->shape->dims, ib, sz, rank,
           (size_t)hlo_type_bytes(o->shape->type));
  return HLO_OK;
}

/* The result is this device's output operand; for the pair p whose target
 * it is, the slice of slice_sizes[p] at the source's input_offsets[p] in the
 * source's input is written at this device's output_offsets[p]. */
static int body_permute_in_place(hlo_run *r, const plan_step *s, const coll_plan *cp,
                                 const hlo_rdv_entry *ents, hlo_val **outs, bool shared) {
  (void)shared;
  hlo_val *const *me = ents[cp->pos].in;
  int npairs, rank = outs[0]->shape->rank;
  if (ip_begin(r, s, me, outs[0], &npairs)) return HLO_ERR;
  for (int p = 0; p < npairs; p++) {
    int64_t sid, tid;
    const int64_t *sz;
    if (ip_pair(r, s, cp, p, rank, &sid, &tid, &sz)) return HLO_ERR;
    if (tid != cp->pos) continue;
    if (!sz) return ip_no_sizes(r, s, rank, npairs);
    if (ip_write(r, s, p, sz, ents[sid].in[0], ents[sid].in[2], me[3], outs[0])) return HLO_ERR;
  }
  return HLO_OK;
}

/* Over MPI: each pair whose source and target are in different processes
 * is one message, the source's start index (or the dimension it names none
 * for) followed by the slice, packed in row-major order when it lies inside
 * the input.  Every message is posted before any is waited for; the target
 * then checks and writes its pairs in pair order, as in threads. */
#define IP_HEAD(rank) ((size_t)(1 + (rank)) * sizeof(int64_t))
static int64_t ip_slice_elems(const int64_t *sz, const hlo_shape *is, const hlo_shape *os) {
  int64_t n = 1;
  for (int d = 0; sz && d < is->rank; d++) {
    if (sz[d] < 0 || sz[d] > is->dims[d] || sz[d] > os->dims[d]) return 0;
    n *= sz[d];
  }
  return sz ? n : 0;
}

static int permute_in_place_direct(hlo_run *r, const plan_step *s, const coll_plan *cp, hlo_rdv *rv,
                                   hlo_val **args, hlo_val **outs) {
  hlo_comm *c = r->e->opts.comm;
  hlo_val *o = outs[0];
  const hlo_shape *is = args[0]->shape, *os = o->shape;
  int npairs, rank = os->rank;
  if (ip_begin(r, s, args, o, &npairs)) return HLO_ERR;
  size_t eb = (size_t)hlo_type_bytes(os->type), total = 0;
  hlo_rdv_msg *msg = hlo_malloc(c->alloc, sizeof *msg * (size_t)(2 * npairs + 1));
  if (!msg) return hlo_run_errorf(r, s->in, "out of memory");
  int nsend = 0, nrecv = 0, rc = HLO_OK;
  /* sends first in msg[0..], receives from the end; sizes, then buffers */
  for (int p = 0; p < npairs && rc == HLO_OK; p++) {
    int64_t sid, tid;
    const int64_t *sz;
    if ((rc = ip_pair(r, s, cp, p, rank, &sid, &tid, &sz))) break;
    bool out = sid == cp->pos && !hlo_rdv_local(r, rv, (int)tid);
    bool in = tid == cp->pos && !hlo_rdv_local(r, rv, (int)sid);
    if (!out && !in) continue;
    hlo_rdv_msg *m = out ? &msg[nsend++] : &msg[2 * npairs - ++nrecv];
    *m = (hlo_rdv_msg){(int)(out ? tid : sid), p, NULL, IP_HEAD(rank) + (size_t)ip_slice_elems(sz, is, os) * eb, 0};
    total += (m->nbytes + 7) & ~(size_t)7; /* each message's header 8-byte aligned */
  }
  char *block = rc ? NULL : hlo_malloc(c->alloc, total + 1), *buf = block;
  if (!rc && !block) rc = hlo_run_errorf(r, s->in, "out of memory");
  hlo_rdv_msg *recv = &msg[2 * npairs - nrecv];
  for (int i = 0; i < nsend + nrecv && !rc; i++) {
    hlo_rdv_msg *m = i < nsend ? &msg[i] : &recv[i - nsend];
    m->buf = buf;
    buf += (m->nbytes + 7) & ~(size_t)7;
    if (i >= nsend) continue;
    /* the start index, then the slice if it lies inside the input */
    int64_t *head = m->buf, zero[HLO_EXEC_MAX_RANK] = {0}, sid, tid;
    const int64_t *sz;
    int d;
    ip_pair(r, s, cp, m->key, rank, &sid, &tid, &sz);
    head[0] = ip_offsets(args[2], m->key, rank, head + 1, &d) ? -1 : d;
    bool inside = sz && head[0] < 0 && m->nbytes > IP_HEAD(rank);
    for (d = 0; inside && d < rank; d++) inside = head[1 + d] >= 0 && head[1 + d] <= is->dims[d] - sz[d];
    if (inside)
      copy_box((char *)m->buf + IP_HEAD(rank), sz, zero, args[0]->data, is->dims, head + 1, sz, rank, eb);
    else
      m->nbytes = IP_HEAD(rank);
  }
  if (!rc) rc = hlo_rdv_p2p(r, s->in, rv, cp->pos, msg, nsend, recv, nrecv);
  /* this device's pairs, in pair order */
  for (int p = 0, ri = nrecv - 1; p < npairs && !rc; p++) {
    int64_t sid, tid, zero[HLO_EXEC_MAX_RANK] = {0}, ob[HLO_EXEC_MAX_RANK];
    const int64_t *sz;
    int d;
    ip_pair(r, s, cp, p, rank, &sid, &tid, &sz);
    if (tid != cp->pos) continue;
    if (!sz) { rc = ip_no_sizes(r, s, rank, npairs); break; }
    if (hlo_rdv_local(r, rv, (int)sid)) {
      rc = ip_write(r, s, p, sz, rv->ents[sid].in[0], rv->ents[sid].in[2], args[3], o);
      continue;
    }
    hlo_rdv_msg *m = &recv[ri--]; /* receives were laid out from the end */
    const int64_t *head = m->buf;
    if (m->got < IP_HEAD(rank) || head[0] >= 0) {
      rc = hlo_run_errorf(r, s->in, "pair %d: the offsets name no start index for dimension %lld", p,
                          m->got < IP_HEAD(rank) ? 0LL : (long long)head[0]);
    } else if (!ip_offsets(args[3], p, rank, ob, &d)) {
      rc = hlo_run_errorf(r, s->in, "pair %d: the offsets name no start index for dimension %d", p, d);
    } else if (!ip_bounds(r, s, p, rank, sz, head + 1, is->dims, ob, os->dims)) {
      if (m->got != m->nbytes) rc = hlo_run_errorf(r, s->in, "pair %d: the slice did not arrive whole", p);
      else copy_box(o->data, os->dims, ob, (const char *)m->buf + IP_HEAD(rank), sz, zero, sz, rank, eb);
    } else {
      rc = HLO_ERR;
    }
  }
  hlo_free(c->alloc, block);
  hlo_free(c->alloc, msg);
  return rc;
}

DECL_KERN(hlo_ctl_all_reduce) { return collective(r, s, args, out, false, body_all_reduce); }
DECL_KERN(hlo_ctl_reduce_scatter) { return collective(r, s, args, out, false, body_reduce_scatter); }
DECL_KERN(hlo_ctl_all_gather) { return collective(r, s, args, out, false, body_all_gather); }
DECL_KERN(hlo_ctl_all_to_all) { return collective(r, s, args, out, false, body_all_to_all); }
DECL_KERN(hlo_ctl_collective_broadcast) { return collective(r, s, args, out, false, body_broadcast); }
DECL_KERN(hlo_ctl_collective_permute) {
  return is_in_place_permute(s->in) ? collective(r, s, args, out, false, body_permute_in_place)
                                    : collective(r, s, args, out, true, body_permute);
}

/* replica-id and partition-id: u32 scalars of this plan's device */
DECL_KERN(hlo_ctl_replica_id) {
  (void)args;
  hlo_comm *c = r->e->opts.comm;
  int P = hlo_comm_partitions(c), k = c ? r->e->opts.device : 0;
  hlo_val *v = hlo_run_new(r, &s->in->shape);
  if (!v) return hlo_run_errorf(r, s->in, "out of memory");
  hlo_sc x = {0, 0, s->in->op == HLO_OP_PARTITION_ID ? k % P : k / P};
  if (v->nelems == 1) hlo_sc_store(s->in->shape.type, v->data, 0, x);
  *out = v;
  return HLO_OK;
}
