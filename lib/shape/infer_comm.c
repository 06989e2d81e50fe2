/* infer_comm.c - shape rules of the collectives, their async start/done
 * halves, send/recv, infeed/outfeed, tokens, copy-start/done and the
 * generic async-start/update/done wrappers. */
#include <string.h>

#include "core/bug.h"
#include "shape/infer_internal.h"

static int operands_or_tuple(infer_ctx *c) {
  int n = c->in->noperands;
  if (n == 1) return sx_copy(c, sx_op(c, 0));
  const hlo_shape **el = SX_TMP(c, n, const hlo_shape *);
  if (!el) return HLO_ERR;
  for (int i = 0; i < n; i++) el[i] = sx_op(c, i);
  return sx_tuple(c, n, el);
}

static int tuple_elem(infer_ctx *c, int op, int idx, const char *what) {
  const hlo_shape *s = sx_op(c, op);
  if (s->type != HLO_TUPLE || s->ntuple <= idx)
    return sx_fail(c, "The operand of %s must be a tuple with at least %d elements; got %s.", what, idx + 1,
                   sx_str(c, s));
  return sx_copy(c, &s->tuple[idx]);
}

static int64_t module_int(const hlo_instruction *in, hlo_attr_key k) {
  if (!in->parent || !in->parent->module_) return 0;
  const hlo_attr *a = hlo_module_attr(in->parent->module_, k);
  return a && a->kind == HLO_AK_INT ? a->u.i : 0;
}

/* Shard count of a shape-less all-gather or reduce-scatter: the size of a
 * replica group, times the partitions when channel_id without
 * use_global_device_ids makes every group span all partitions; 0 if
 * unknown. */
static int64_t shard_count(const hlo_instruction *in) {
  bool cross_partition = hlo_instr_attr(in, HLO_A_CHANNEL_ID) && !hlo_instr_bool(in, HLO_A_USE_GLOBAL_DEVICE_IDS, false);
  int64_t p = cross_partition ? module_int(in, HLO_A_NUM_PARTITIONS) : 1;
  if (p <= 0) p = 1;
  int64_t g = sx_group_size(in);
  if (g > 0) return g * p;
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_REPLICA_GROUPS);
  if (a && a->kind == HLO_AK_REPLICA_GROUPS && (a->u.groups->iota || a->u.groups->ngroups)) return 0;
  int64_t r = module_int(in, HLO_A_REPLICA_COUNT);
  return r > 0 && !hlo_instr_attr(in, HLO_A_CHANNEL_ID) ? r : 0;
}

/* XLA's shard count of a declared all-gather or reduce-scatter: operand 0's
 * dimension against its declared result's, the larger over the smaller
 * rounded up; 0 when that cannot be read. */
static int64_t declared_shard_count(const hlo_shape *decl, const hlo_shape *op0, int n, int64_t dim, bool gather) {
  const hlo_shape *ds = n == 1 ? decl : decl->type == HLO_TUPLE && decl->ntuple >= 1 ? &decl->tuple[0] : NULL;
  if (!ds || !hlo_shape_is_array(ds) || !hlo_shape_is_array(op0) || dim >= ds->rank || dim >= op0->rank) return 0;
  int64_t big = gather ? ds->dims[dim] : op0->dims[dim], small = gather ? op0->dims[dim] : ds->dims[dim];
  if (big < 0 || small <= 0) return 0;
  return big / small + (big % small != 0);
}

/* all-gather / reduce-scatter: operand i's dimension `dim` scaled. */
static int scaled_dim(infer_ctx *c, bool gather, hlo_shape *out_elems) {
  int nd;
  const int64_t *d = hlo_instr_ints(c->in, HLO_A_DIMENSIONS, &nd);
  const char *what = gather ? "all-gather" : "reduce-scatter";
  if (nd != 1) return sx_fail(c, "%s needs exactly one dimension in dimensions={...}; got %d.", what, nd);
  const hlo_shape *decl = c->in->shape_omitted ? NULL : &c->in->shape;
  int n = c->in->noperands;
  int64_t k = 0;
  if (decl && d[0] >= 0) k = declared_shard_count(decl, sx_op(c, 0), n, d[0], gather);
  if (k <= 0) k = shard_count(c->in);
  for (int i = 0; i < n; i++) {
    if (sx_need_array(c, i, what)) return HLO_ERR;
    const hlo_shape *s = sx_op(c, i);
    if (d[0] < 0 || d[0] >= s->rank)
      return sx_fail(c, "%s dimension %lld is out of range for operand %s.", what, (long long)d[0], sx_str(c, s));
    if (k <= 0) return sx_fail(c, "cannot infer the shard count of %s: no replica groups and no declared shape", what);
    if (hlo_shape_copy(c->a, &out_elems[i], s)) return HLO_ERR;
    int64_t *dd = &out_elems[i].dims[d[0]];
    if (*dd == HLO_DIM_UNBOUNDED) continue;
    if (gather) {
      if (__builtin_mul_overflow(*dd, k, dd)) return sx_fail(c, "all-gather result dimension overflows");
    } else {
      if (*dd % k)
        return sx_fail(c, "ReduceScatter operand scatter dimension size %lld must be dividable by shard_count %lld.",
                       (long long)*dd, (long long)k);
      *dd /= k;
    }
  }
  return HLO_OK;
}

static int gather_or_scatter(infer_ctx *c, bool gather, bool start) {
  int n = c->in->noperands;
  HLO_ASSERT(n >= 1); /* hlo_infer_shape checked the operand count */
  hlo_shape *outs = SX_TMP(c, n, hlo_shape);
  if (!outs) return HLO_ERR;
  /* for all-gather-start the declared shape holds (inputs, outputs) */
  if (start && !c->in->shape_omitted) {
    const hlo_shape *ds = &c->in->shape;
    if (ds->type != HLO_TUPLE || ds->ntuple != 2)
      return sx_fail(c, "all-gather-start must have a 2-element tuple shape (operands, results); got %s.",
                     sx_str(c, ds));
    hlo_instruction tmp = *c->in;
    tmp.shape = ds->tuple[1];
    tmp.shape_omitted = false;
    infer_ctx c2 = *c;
    c2.in = &tmp;
    if (scaled_dim(&c2, true, outs)) return HLO_ERR;
  } else if (scaled_dim(c, gather, outs)) {
    return HLO_ERR;
  }
  hlo_shape res;
  if (n == 1) {
    res = outs[0];
  } else {
    const hlo_shape **p = SX_TMP(c, n, const hlo_shape *);
    if (!p) return HLO_ERR;
    for (int i = 0; i < n; i++) p[i] = &outs[i];
    hlo_shape *save = c->out;
    c->out = &res;
    if (sx_tuple(c, n, p)) return HLO_ERR;
    c->out = save;
  }
  if (!start) return sx_copy(c, &res);
  hlo_shape ins;
  hlo_shape *save = c->out;
  c->out = &ins;
  if (operands_or_tuple(c)) return HLO_ERR;
  c->out = save;
  const hlo_shape *p2[2] = {&ins, &res};
  return sx_tuple(c, 2, p2);
}

int hlo_shape_infer_same_as_operands(infer_ctx *c) {
  int n = c->in->noperands;
  HLO_ASSERT(n >= 1); /* hlo_infer_shape checked the operand count */
  return operands_or_tuple(c);
}

/* Array layouts with the same minor-to-major order (none written: the
 * default); other shapes compare equal. */
static bool same_minor_to_major(const hlo_shape *a, const hlo_shape *b) {
  if (!hlo_type_is_array(a->type) || !hlo_type_is_array(b->type) || a->rank != b->rank) return true;
  for (int i = 0; i < a->rank; i++) {
    int64_t x = a->layout && a->layout->n == a->rank ? a->layout->minor_to_major[i] : a->rank - 1 - i;
    int64_t y = b->layout && b->layout->n == b->rank ? b->layout->minor_to_major[i] : b->rank - 1 - i;
    if (x != y) return false;
  }
  return true;
}

int hlo_shape_infer_all_to_all(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  int n = c->in->noperands;
  HLO_ASSERT(n >= 1); /* hlo_infer_shape checked the operand count */
  int nd;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (nd > 1) return sx_fail(c, "all-to-all takes at most one split dimension; got %d.", nd);
  int64_t g = sx_group_size(in);
  for (int i = 0; i < n && nd == 1; i++) {
    if (sx_need_array(c, i, "all-to-all")) return HLO_ERR;
    const hlo_shape *s = sx_op(c, i);
    if (d[0] < 0 || d[0] >= s->rank)
      return sx_fail(c, "all-to-all split dimension %lld is out of range for operand %s.", (long long)d[0],
                     sx_str(c, s));
    if (g > 0 && s->dims[d[0]] != HLO_DIM_UNBOUNDED && s->dims[d[0]] % g)
      return sx_fail(c, "AllToAll split dimension size %lld must be dividable by split_count %lld.",
                     (long long)s->dims[d[0]], (long long)g);
  }
  for (int i = 1; i < n && nd == 0; i++) /* XLA's InferAllToAllTupleShape: one shape, layouts too */
    if (!hlo_shape_xla_compatible(sx_op(c, 0), sx_op(c, i), false) || !same_minor_to_major(sx_op(c, 0), sx_op(c, i)))
      return sx_fail(c, "HLO all-to-all has operands with different shapes: the 0th operand shape %s, but the %dth "
                     "operand has shape %s.", sx_str(c, sx_op(c, 0)), i, sx_str(c, sx_op(c, i)));
  return operands_or_tuple(c);
}

int hlo_shape_infer_all_gather(infer_ctx *c) {
  return gather_or_scatter(c, true, false);
}

int hlo_shape_infer_all_gather_start(infer_ctx *c) {
  return gather_or_scatter(c, true, true);
}

int hlo_shape_infer_reduce_scatter(infer_ctx *c) {
  return gather_or_scatter(c, false, false);
}

int hlo_shape_infer_all_reduce_done(infer_ctx *c) {
  return sx_copy(c, sx_op(c, 0));
}

int hlo_shape_infer_async_result(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  return tuple_elem(c, 0, 1, hlo_opcode_name(in->op));
}

int hlo_shape_infer_ragged_all_to_all(infer_ctx *c) {
  int n = c->in->noperands;
  for (int i = 0; i < n; i++)
    if (sx_need_array(c, i, "ragged-all-to-all")) return HLO_ERR;
  if (sx_op(c, 0)->rank != sx_op(c, 1)->rank || !sx_same_type_fp(sx_op(c, 0)->type, sx_op(c, 1)->type))
    return sx_fail(c, "ragged-all-to-all input %s and output %s must have the same rank and element type.",
                   sx_str(c, sx_op(c, 0)), sx_str(c, sx_op(c, 1)));
  for (int i = 2; i < n; i++)
    if (!hlo_type_is_int(sx_op(c, i)->type))
      return sx_fail(c, "ragged-all-to-all offsets and sizes must be integers; operand %d is %s.", i,
                     sx_str(c, sx_op(c, i)));
  return sx_copy(c, sx_op(c, 1));
}

/* XLA's HloCollectivePermuteInstruction::inplace: slice_sizes is written
 * (the parser then requires the four operands input, output, offsets). */
static bool permute_inplace(const infer_ctx *c) {
  return hlo_instr_attr(c->in, HLO_A_SLICE_SIZES) != NULL && c->in->noperands == 4;
}

/* InferCollectivePermuteShape: in place the output buffer's shape; else
 * each operand an array, the result the operand or the tuple of them
 * (a combined permute). */
int hlo_shape_infer_collective_permute(infer_ctx *c) {
  int n = c->in->noperands;
  HLO_ASSERT(n >= 1); /* hlo_infer_shape checked the operand count */
  if (permute_inplace(c)) return sx_copy(c, sx_op(c, 1));
  for (int i = 0; i < n; i++)
    if (sx_need_array(c, i, "operand of collective-permute")) return HLO_ERR;
  return operands_or_tuple(c);
}

/* InferCollectivePermuteStartShape: (input, output, context...): in place
 * operands 0 and 1; one operand twice; several operands their tuple twice;
 * the context elements are the declared ones after the first two. */
int hlo_shape_infer_collective_permute_start(infer_ctx *c) {
  int n = c->in->noperands;
  HLO_ASSERT(n >= 1); /* hlo_infer_shape checked the operand count */
  const hlo_shape *ds = c->in->shape_omitted ? NULL : &c->in->shape;
  int nctx = ds && ds->type == HLO_TUPLE && ds->ntuple > 2 ? ds->ntuple - 2 : 0;
  const hlo_shape **p = SX_TMP(c, 2 + nctx, const hlo_shape *);
  if (!p) return HLO_ERR;
  hlo_shape ops;
  if (permute_inplace(c)) {
    p[0] = sx_op(c, 0), p[1] = sx_op(c, 1);
  } else if (n == 1) {
    if (sx_need_array(c, 0, "operand of collective-permute-start")) return HLO_ERR;
    p[0] = p[1] = sx_op(c, 0);
  } else {
    hlo_shape *save = c->out;
    c->out = &ops;
    const hlo_shape **el = SX_TMP(c, n, const hlo_shape *);
    if (!el) return HLO_ERR;
    for (int i = 0; i < n; i++) el[i] = sx_op(c, i);
    if (sx_tuple(c, n, el)) return HLO_ERR;
    c->out = save;
    p[0] = p[1] = &ops;
  }
  for (int i = 0; i < nctx; i++) p[2 + i] = &ds->tuple[2 + i];
  return sx_tuple(c, 2 + nctx, p);
}

/* send and send-done: the shapes XLA's HloSendInstruction and
 * HloSendDoneInstruction give themselves, whatever the operands are (XLA's
 * parser and verifier check neither the token nor the context). */
int hlo_shape_infer_send(infer_ctx *c) {
  hlo_shape u, t = {.type = HLO_TOKEN};
  if (hlo_shape_make_array(c->a, &u, HLO_U32, 0, NULL)) return HLO_ERR;
  const hlo_shape *p[3] = {sx_op(c, 0), &u, &t};
  return sx_tuple(c, 3, p);
}

int hlo_shape_infer_send_done(infer_ctx *c) {
  return sx_token(c);
}

int hlo_shape_infer_recv(infer_ctx *c) {
  if (sx_op(c, 0)->type != HLO_TOKEN)
    return sx_fail(c, "The operand of recv must be a token; got %s.", sx_str(c, sx_op(c, 0)));
  if (sx_declared(c)) return HLO_ERR;
  const hlo_shape *r = &c->in->shape;
  if (r->type != HLO_TUPLE || r->ntuple != 3 || r->tuple[1].type != HLO_U32 || r->tuple[1].rank != 0 ||
      r->tuple[2].type != HLO_TOKEN)
    return sx_fail(c, "recv must have shape (data, u32[], token[]); got %s.", sx_str(c, r));
  return HLO_OK;
}

int hlo_shape_infer_recv_done(infer_ctx *c) {
  const hlo_shape *s = sx_op(c, 0);
  if (s->type != HLO_TUPLE || s->ntuple < 1)
    return sx_fail(c, "The operand of recv-done must be a recv context tuple; got %s.", sx_str(c, s));
  hlo_shape t = {.type = HLO_TOKEN};
  const hlo_shape *p[2] = {&s->tuple[0], &t};
  return sx_tuple(c, 2, p);
}

int hlo_shape_infer_infeed(infer_ctx *c) {
  if (sx_op(c, 0)->type != HLO_TOKEN)
    return sx_fail(c, "The operand of infeed must be a token; got %s.", sx_str(c, sx_op(c, 0)));
  if (sx_declared(c)) return HLO_ERR;
  const hlo_shape *r = &c->in->shape;
  if (r->type != HLO_TUPLE || r->ntuple != 2 || r->tuple[1].type != HLO_TOKEN)
    return sx_fail(c, "infeed must have shape (data, token[]); got %s.", sx_str(c, r));
  return HLO_OK;
}

int hlo_shape_infer_outfeed(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  if (sx_op(c, 1)->type != HLO_TOKEN)
    return sx_fail(c, "The second operand of outfeed must be a token; got %s.", sx_str(c, sx_op(c, 1)));
  const hlo_attr *os = hlo_instr_attr(in, HLO_A_OUTFEED_SHAPE);
  if (os && os->kind == HLO_AK_SHAPE && !hlo_shape_xla_compatible(os->u.shape, sx_op(c, 0), false))
    return sx_fail(c, "Expected outfeed shape to be equal to operand's shape %s, actual shape is %s.",
                   sx_str(c, sx_op(c, 0)), sx_str(c, os->u.shape));
  return sx_token(c);
}

int hlo_shape_infer_after_all(infer_ctx *c) {
  int n = c->in->noperands;
  for (int i = 0; i < n; i++)
    if (sx_op(c, i)->type != HLO_TOKEN)
      return sx_fail(c, "Operands of token instructions must be TOKEN types; operand %d is %s.", i,
                     sx_str(c, sx_op(c, i)));
  return sx_token(c);
}

int hlo_shape_infer_copy_start(infer_ctx *c) {
  hlo_shape u;
  if (hlo_shape_make_array(c->a, &u, HLO_U32, 0, NULL)) return HLO_ERR;
  const hlo_shape *p[3] = {sx_op(c, 0), sx_op(c, 0), &u};
  return sx_tuple(c, 3, p);
}

int hlo_shape_infer_copy_done(infer_ctx *c) {
  return tuple_elem(c, 0, 0, "copy-done");
}

int hlo_shape_infer_async_start(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  const hlo_shape *root = sx_called_root(c, 0, "calls");
  if (!root) return HLO_ERR;
  hlo_shape ops;
  hlo_shape *save = c->out;
  c->out = &ops;
  int n = in->noperands;
  const hlo_shape **el = SX_TMP(c, n, const hlo_shape *);
  if (!el) return HLO_ERR;
  for (int i = 0; i < n; i++) el[i] = sx_op(c, i);
  if (sx_tuple(c, n, el)) return HLO_ERR;
  c->out = save;
  const hlo_shape *ds = in->shape_omitted ? NULL : &in->shape;
  int nctx = ds && ds->type == HLO_TUPLE && ds->ntuple >= 2 ? ds->ntuple - 2 : 1;
  const hlo_shape **p = SX_TMP(c, 2 + nctx, const hlo_shape *);
  if (!p) return HLO_ERR;
  hlo_shape u;
  p[0] = &ops;
  p[1] = root;
  if (ds && ds->type == HLO_TUPLE && ds->ntuple >= 2) {
    for (int i = 0; i < nctx; i++) p[2 + i] = &ds->tuple[2 + i];
  } else {
    if (hlo_shape_make_array(c->a, &u, HLO_S32, 0, NULL)) return HLO_ERR;
    p[2] = &u;
  }
  return sx_tuple(c, 2 + nctx, p);
}

int hlo_shape_infer_async_update(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  HLO_ASSERT(in->noperands >= 1); /* hlo_infer_shape checked the operand count */
  return sx_copy(c, sx_op(c, 0));
}

int hlo_shape_infer_async_done(infer_ctx *c) {
  return tuple_elem(c, 0, 1, "async-done");
}

