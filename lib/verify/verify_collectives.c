/* verify_collectives.c - XLA's rules for the participants of collectives:
 * the group mode (from channel_id and use_global_device_ids), replica
 * groups naming every id 0..n-1 once with n the mode's device count, and
 * collective-permute source-target pairs inside that count; the structural
 * TF_RET_CHECKs of all-gather, reduce-scatter and all-to-all, reported
 * with XLA's failure text. */
#include <stdlib.h>
#include <string.h>

#include "verify/verify_internal.h"

typedef enum { MODE_REPLICA, MODE_PARTITION, MODE_REPLICA_AND_PARTITION, MODE_FLATTENED } group_mode;

static bool is_array(const hlo_shape *s) { return hlo_shape_is_array(s) && !s->buffer; }

static const char *const MODE_NAME[] = {
    [MODE_REPLICA] = "cross_replica",
    [MODE_PARTITION] = "cross_partition",
    [MODE_REPLICA_AND_PARTITION] = "cross_replica_and_partition",
    [MODE_FLATTENED] = "flattened_id",
};

/* Ops whose group mode ignores use_global_device_ids (XLA passes "no flag"). */
static bool mode_without_flag(hlo_opcode op) {
  return op == HLO_OP_ALL_TO_ALL || op == HLO_OP_RAGGED_ALL_TO_ALL || op == HLO_OP_COLLECTIVE_PERMUTE ||
         op == HLO_OP_COLLECTIVE_PERMUTE_START || op == HLO_OP_COLLECTIVE_BROADCAST;
}

/* The group mode of in; false (reported) for a flag without a channel. */
static bool mode_of(vctx *v, const hlo_instruction *in, group_mode *mode) {
  bool channel = hlo_instr_attr(in, HLO_A_CHANNEL_ID) != NULL;
  if (mode_without_flag(in->op)) {
    *mode = channel ? MODE_PARTITION : MODE_REPLICA;
    return true;
  }
  bool global = hlo_instr_bool(in, HLO_A_USE_GLOBAL_DEVICE_IDS, false);
  if (!channel && global) {
    vx_fail(v, in, "Cannot have use_global_device_ids=true without channel_id");
    return false;
  }
  *mode = !channel ? MODE_REPLICA : global ? MODE_FLATTENED : MODE_REPLICA_AND_PARTITION;
  return true;
}

/* XLA's CheckReplicaGroups: no empty group, ids in 0..n-1 (n the number of
 * ids written) and none repeated, n the count of the mode (unless that
 * count is 1), and groups of one size when `uniform`; nothing with
 * no_check_replica_groups.  Returns false if an error was reported. */
static bool check_groups(vctx *v, const hlo_instruction *in, group_mode mode, bool uniform) {
  if (v->o.no_check_replica_groups) return true;
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_REPLICA_GROUPS);
  const hlo_replica_groups *g = a && a->kind == HLO_AK_REPLICA_GROUPS ? a->u.groups : NULL;
  bool empty = !g || (!g->iota && g->ngroups == 0);
  if (empty) {
    if (mode == MODE_FLATTENED) {
      vx_fail(v, in, "Replica groups must be specified in flattened-id mode");
      return false;
    }
    return true;
  }
  int64_t n = 0;
  if (g->iota) { /* a permutation of 0..product-1 in groups of one size */
    n = 1;
    for (int i = 0; i < g->niota_shape; i++)
      if (__builtin_mul_overflow(n, g->iota_shape[i], &n)) return true;
  } else {
    int64_t total = 0;
    for (int i = 0; i < g->ngroups; i++) {
      if (g->group_sizes[i] == 0) {
        vx_fail(v, in, "Instruction cannot have an empty replica group");
        return false;
      }
      total += g->group_sizes[i];
    }
    /* the ids must be 0..total-1, each once; the first id out of range or
     * seen before, in group order, is the one reported */
    unsigned char *seen = total ? hlo_arena_array(&v->scratch, (size_t)total, 1) : NULL;
    if (total && !seen) return true;
    for (int64_t i = 0; i < total; i++) seen[i] = 0;
    for (int i = 0; i < g->ngroups; i++)
      for (int j = 0; j < g->group_sizes[i]; j++) {
        int64_t id = g->groups[i][j];
        if (id < 0 || id >= total) {
          vx_fail(v, in, "Replica %lld is out of range (should be in [0, %lld) range) in instruction's replica-groups",
                  (long long)id, (long long)total);
          return false;
        }
        if (seen[id]) {
          vx_fail(v, in, "Replica %lld is repeated in instruction's replica-groups", (long long)id);
          return false;
        }
        seen[id] = 1;
      }
    n = total;
  }
  int64_t want = mode == MODE_PARTITION ? v->partitions
                 : mode == MODE_FLATTENED ? v->replicas * v->partitions
                                          : v->replicas;
  const char *what = mode == MODE_PARTITION ? "partitions" : mode == MODE_FLATTENED ? "flattened IDs" : "replicas";
  if (want != 1 && n != want) {
    vx_fail(v, in, "In %s mode, replica groups should contain %lld %s, but found %lld", MODE_NAME[mode],
            (long long)want, what, (long long)n);
    return false;
  }
  if (uniform && !g->iota)
    for (int i = 1; i < g->ngroups; i++)
      if (g->group_sizes[i] != g->group_sizes[0]) {
        vx_fail(v, in, "Replica groups expected to be of uniform size");
        return false;
      }
  return true;
}

/* all-reduce and all-reduce-start allow groups of different sizes. */
void vx_op_replica_groups(vctx *v, const hlo_instruction *in) {
  group_mode mode;
  if (mode_of(v, in, &mode)) check_groups(v, in, mode, false);
}

/* XLA's inplace(): slice_sizes written (the parser then wants 4 operands). */
static bool permute_inplace(const hlo_instruction *in) {
  return hlo_instr_attr(in, HLO_A_SLICE_SIZES) != NULL && in->noperands == 4;
}

/* XLA's CheckBufferOffset: offsets are a tuple of arrays (one per buffer
 * dimension) or a tuple of such tuples. */
static const char *buffer_offset_error(const hlo_shape *buf, const hlo_shape *off) {
  if (off->type != HLO_TUPLE) return "Buffer offset is not tuple.";
  bool arrays = true, tuples = true;
  for (int i = 0; i < off->ntuple; i++) {
    arrays &= hlo_shape_is_array(&off->tuple[i]);
    tuples &= off->tuple[i].type == HLO_TUPLE;
  }
  if (!arrays && !tuples) return "Buffer offset should either be a tuple of arrays or  a tuple of tuples.";
  const char *rank = "Buffer offset index should have the same number of elements as the buffer's rank.";
  if (tuples) {
    for (int i = 0; i < off->ntuple; i++)
      if (off->tuple[i].ntuple != buf->rank) return rank;
  } else if (off->ntuple != buf->rank) {
    return rank;
  }
  return NULL;
}

/* XLA's CheckInplaceCollectivePermute: input and output buffers both
 * arrays or both tuples of one length, each with offsets that fit it. */
static bool check_inplace(vctx *v, const hlo_instruction *in) {
  const hlo_shape *ib = &in->operands[0]->shape, *ob = &in->operands[1]->shape;
  const hlo_shape *io = &in->operands[2]->shape, *oo = &in->operands[3]->shape;
  const char *why = NULL;
  if (hlo_shape_is_array(ib) && hlo_shape_is_array(ob)) {
    if (!(why = buffer_offset_error(ib, io))) why = buffer_offset_error(ob, oo);
  } else if (ib->type == HLO_TUPLE && ob->type == HLO_TUPLE) {
    if (ib->ntuple != ob->ntuple) why = "Unmatching input buffers and output buffers.";
    else if (io->type != HLO_TUPLE || io->ntuple != ib->ntuple) why = "Unmatching input buffers and input offset.";
    for (int i = 0; !why && i < ib->ntuple; i++) why = buffer_offset_error(&ib->tuple[i], &io->tuple[i]);
    if (!why && (oo->type != HLO_TUPLE || oo->ntuple != ob->ntuple))
      why = "Unmatching output buffers and output offset.";
    for (int i = 0; !why && i < ob->ntuple; i++) why = buffer_offset_error(&ob->tuple[i], &oo->tuple[i]);
  } else {
    why = "Unmatching input buffers and output buffers.";
  }
  if (why) vx_fail(v, in, "%s", why);
  return !why;
}

/* How many times an id may appear as a source (or a target): once, or once
 * per offset of the in-place form. */
static int64_t allowed_repeats(const hlo_instruction *in) {
  if (!permute_inplace(in)) return 1;
  const hlo_shape *off = &in->operands[2]->shape;
  if (off->type != HLO_TUPLE) return 1;
  if (hlo_shape_is_array(&in->operands[0]->shape)) return off->ntuple;
  return off->ntuple > 0 && off->tuple[0].type == HLO_TUPLE ? off->tuple[0].ntuple : 1;
}

/* One side (0: source, 1: target) of pair i: in range, not over-used. */
static bool check_pair_side(vctx *v, const hlo_instruction *in, int64_t (*p)[2], int i, int side, int64_t limit,
                            int64_t allowed) {
  const char *what = side ? "Target" : "Source";
  int64_t id = p[i][side];
  if (id < 0) {
    vx_fail(v, in, "%s %lld in the instruction's source-target pair must be >= 0", what, (long long)id);
    return false;
  }
  if (limit != 1 && id >= limit) {
    vx_fail(v, in, "%s %lld in the instruction's source-target pair must be < %lld", what, (long long)id,
            (long long)limit);
    return false;
  }
  int64_t seen = 0;
  for (int j = 0; j < i; j++) seen += p[j][side] == id;
  if (seen < allowed) return true;
  if (allowed == 1)
    vx_fail(v, in, "%s %lld appears more than once in instruction's source-target pairs: %s", what, (long long)id,
            in->name);
  else
    vx_fail(v, in, "%s %lld appears more than %lld times in instruction's source-target pairs: %s", what, (long long)id,
            (long long)allowed, in->name);
  return false;
}

/* XLA's CheckDuplicatedSourceOrTarget, pair by pair: source range, source
 * repeats, target range, target repeats. */
void vx_op_source_target_pairs(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_SOURCE_TARGET_PAIRS);
  if (!a || a->kind != HLO_AK_PAIRS) return;
  if (permute_inplace(in) && !check_inplace(v, in)) return;
  group_mode mode;
  if (!mode_of(v, in, &mode)) return;
  int64_t limit = mode == MODE_REPLICA ? v->replicas : v->partitions;
  int64_t allowed = allowed_repeats(in);
  for (int i = 0; i < a->u.pairs.n; i++)
    if (!check_pair_side(v, in, a->u.pairs.v, i, 0, limit, allowed) ||
        !check_pair_side(v, in, a->u.pairs.v, i, 1, limit, allowed))
      return;
}

/* XLA's GetSubgroupSize: the first group's size, or with no groups the
 * mode's device count (replicas of every partition for
 * kCrossReplicaAndPartition). */
static int64_t subgroup_size(const vctx *v, const hlo_instruction *in, group_mode mode) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_REPLICA_GROUPS);
  const hlo_replica_groups *g = a && a->kind == HLO_AK_REPLICA_GROUPS ? a->u.groups : NULL;
  int64_t first = !g ? 0
                  : g->iota ? (g->niota_shape >= 2 ? g->iota_shape[g->niota_shape - 1] : 0)
                            : (g->ngroups ? g->group_sizes[0] : 0);
  if (mode == MODE_PARTITION) return first ? first : v->partitions;
  if (mode == MODE_FLATTENED) return first;
  int64_t n = first ? first : v->replicas;
  return mode == MODE_REPLICA_AND_PARTITION ? n * v->partitions : n;
}

/* all-to-all (XLA's HandleAllToAll): uniform groups; the split count is the
 * subgroup size of the mode (the replica or partition count when there are
 * no groups); a split dimension's size must be a multiple of it, and
 * without a split dimension (the tuple form) there is one operand per
 * member of a subgroup. */
void vx_op_all_to_all(vctx *v, const hlo_instruction *in) {
  group_mode mode;
  if (!mode_of(v, in, &mode) || !check_groups(v, in, mode, true)) return;
  int nd;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  int64_t split = subgroup_size(v, in, mode);
  if (nd == 1 && !VX_RET_CHECK(v, in, in->noperands == 1, "hlo->operand_count() == 1",
                            "all-to-all with a split dimension has %d operands; expected 1", in->noperands))
    return;
  if (nd == 0 && !VX_RET_CHECK(v, in, in->noperands == split, "hlo->operand_count() == split_count",
                            "all-to-all without a split dimension has %d operands; expected one per subgroup "
                            "member (%lld)", in->noperands, (long long)split))
    return;
  if (nd != 1 || in->noperands != 1 || split <= 0) return;
  const hlo_shape *s = &in->operands[0]->shape;
  if (hlo_shape_is_array(s) && d[0] >= 0 && d[0] < s->rank && s->dims[d[0]] >= 0 && s->dims[d[0]] % split)
    vx_fail(v, in, "AllToAll split dimension size %lld must be dividable by split_count %lld.",
            (long long)s->dims[d[0]], (long long)split);
}

/* ragged-all-to-all (XLA's HandleRaggedAllToAll): uniform groups; the
 * offset and size operands 2..5 of rank 1 or 2 and all of one shape. */
void vx_op_ragged_all_to_all(vctx *v, const hlo_instruction *in) {
  group_mode mode;
  if (!mode_of(v, in, &mode) || !check_groups(v, in, mode, true) || in->noperands != 6) return;
  for (int i = 3; i < 6; i++) {
    const hlo_shape *p = &in->operands[i - 1]->shape, *q = &in->operands[i]->shape;
    if (p->type == HLO_TUPLE || (p->rank != 1 && p->rank != 2)) {
      vx_fail(v, in, "RaggedAllToAll operand %d must be rank 1 or 2", i - 1);
      return;
    }
    if (!hlo_shape_xla_compatible(p, q, false) || !vx_layout_equal(p, q)) {
      vx_fail(v, in, "RaggedAllToAll operands have different shapes (%d, %d)", i - 1, i);
      return;
    }
  }
}

/* The declared result array that operand 0 of an all-gather(-start) or
 * reduce-scatter maps to, or NULL when the shape is not of that form
 * (shape inference then reports it). */
static const hlo_shape *first_result(const hlo_instruction *in) {
  const hlo_shape *s = &in->shape;
  if (in->op == HLO_OP_ALL_GATHER_START) {
    if (s->type != HLO_TUPLE || s->ntuple != 2) return NULL;
    s = &s->tuple[1];
  }
  if (in->noperands > 1) {
    if (s->type != HLO_TUPLE || s->ntuple < 1) return NULL;
    s = &s->tuple[0];
  }
  return hlo_shape_is_array(s) ? s : NULL;
}

/* The TF_RET_CHECKs of XLA's CheckCommonAllGatherInvariants (all-gather,
 * all-gather-start) and HandleReduceScatter, in XLA's order: every operand
 * an array with the dimension in range, the tuple result that several
 * operands (or the start form) need, and the dimension in range of each
 * result. */
static bool xla_structure_checks(vctx *v, const hlo_instruction *in, int64_t dim) {
  const hlo_shape *s = &in->shape;
  int n = in->noperands;
  if (in->op == HLO_OP_REDUCE_SCATTER) {
    if (n > 1 && !VX_RET_CHECK(v, in, s->type == HLO_TUPLE && s->ntuple == n,
                            "ars->shape().IsTuple() && ars->operand_count() == ars->shape().tuple_shapes().size()",
                            "reduce-scatter of %d operands must have a tuple of %d results; got %s", n, n,
                            vx_str(v, s)))
      return false;
    for (int i = 0; i < n; i++) {
      const hlo_shape *o = &in->operands[i]->shape;
      if (!VX_RET_CHECK(v, in, is_array(o) && dim < o->rank,
                     "ars->operand(i)->shape().IsArray() && ars->scatter_dimension() < "
                     "static_cast<int64_t>(ars->operand(i)->shape().dimensions().size())",
                     "operand %d of reduce-scatter is %s: not an array with dimension %lld", i, vx_str(v, o),
                     (long long)dim))
        return false;
      const hlo_shape *r = n == 1 ? s : &s->tuple[i];
      if (!VX_RET_CHECK(v, in, dim < r->rank,
                     "ars->scatter_dimension() < static_cast<int64_t>(output_shape.dimensions().size())",
                     "result %d of reduce-scatter is %s: it has no dimension %lld", i, vx_str(v, r), (long long)dim))
        return false;
    }
    return true;
  }
  bool start = in->op == HLO_OP_ALL_GATHER_START;
  for (int i = 0; i < n; i++) {
    const hlo_shape *o = &in->operands[i]->shape;
    if (!VX_RET_CHECK(v, in, is_array(o) && dim < o->rank,
                   "ag->operand(i)->shape().IsArray() && ag->all_gather_dimension() < "
                   "static_cast<int64_t>(ag->operand(i)->shape().dimensions().size())",
                   "operand %d of %s is %s: not an array with dimension %lld", i, hlo_opcode_name(in->op),
                   vx_str(v, o), (long long)dim))
      return false;
    const hlo_shape *r = s;
    if (!start) {
      if (n > 1 && !VX_RET_CHECK(v, in, s->type == HLO_TUPLE && s->ntuple == n,
                              "ag->shape().IsTuple() && ag->operand_count() == ag->shape().tuple_shapes().size()",
                              "all-gather of %d operands must have a tuple of %d results; got %s", n, n,
                              vx_str(v, s)))
        return false;
      if (n > 1) r = &s->tuple[i];
    } else {
      if (!VX_RET_CHECK(v, in, s->type == HLO_TUPLE && s->ntuple == 2,
                     "ag->shape().IsTuple() && ag->shape().tuple_shapes().size() == 2",
                     "all-gather-start must have a 2-element tuple shape (operands, results); got %s", vx_str(v, s)))
        return false;
      r = &s->tuple[1];
      if (n > 1 && !VX_RET_CHECK(v, in, r->type == HLO_TUPLE && r->ntuple == n,
                              "ag->shape().tuple_shapes(1).IsTuple() && ag->operand_count() == "
                              "ag->shape().tuple_shapes(1).tuple_shapes().size()",
                              "the results of all-gather-start of %d operands must be a tuple of %d; got %s", n, n,
                              vx_str(v, r)))
        return false;
      if (n > 1) r = &r->tuple[i];
    }
    if (!VX_RET_CHECK(v, in, dim < r->rank,
                   "ag->all_gather_dimension() < static_cast<int64_t>(output_shape.dimensions().size())",
                   "result %d of all-gather is %s: it has no dimension %lld", i, vx_str(v, r), (long long)dim))
      return false;
  }
  return true;
}

/* all-gather, all-gather-start, reduce-scatter (XLA's
 * CheckCommonAllGatherInvariants and HandleReduceScatter): uniform groups,
 * then the shard count read off operand 0 and its result (the larger
 * dimension over the smaller, rounded up) must equal the subgroup size of
 * the mode, unless that size is 1. */
void vx_op_shard_count(vctx *v, const hlo_instruction *in) {
  group_mode mode;
  if (!mode_of(v, in, &mode) || !check_groups(v, in, mode, true) || in->noperands < 1) return;
  int nd;
  const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (nd == 1 && !xla_structure_checks(v, in, d[0])) return;
  const hlo_shape *op = &in->operands[0]->shape, *res = first_result(in);
  if (nd != 1 || !res || !hlo_shape_is_array(op) || d[0] < 0 || d[0] >= op->rank || d[0] >= res->rank) return;
  bool gather = in->op != HLO_OP_REDUCE_SCATTER;
  int64_t big = gather ? res->dims[d[0]] : op->dims[d[0]], small = gather ? op->dims[d[0]] : res->dims[d[0]];
  if (big < 0 || small <= 0) return; /* dynamic or empty: left to shape inference */
  int64_t shard = big / small + (big % small != 0);
  int64_t sub = subgroup_size(v, in, mode);
  if (sub != 1 && shard != sub)
    vx_fail(v, in, "shard_count = %lld, subgroup_size = %lld", (long long)shard, (long long)sub);
}
