/* verify_sharding.c - checks of sharding={...} attributes against the
 * instruction's shape: tile assignment rank (excluding the replicated and
 * subgroup dimensions), device ids below the number of devices, maximal
 * device ids, mesh-based shardings' rank and device count, and tuple
 * shardings with one entry per leaf of the shape. */
#include <string.h>

#include "ir/mesh.h"
#include "verify/verify_internal.h"

/* XLA's DeviceInRange (nd 0: unknown, no upper bound). */
static bool device_in_range(vctx *v, const hlo_instruction *in, int64_t dev, int64_t nd) {
  if (dev < 0) vx_fail(v, in, "device %lld is negative in tile assignment", (long long)dev);
  else if (nd > 0 && dev >= nd) vx_fail(v, in, "device %lld >= num_devices (%lld) in tile assignment", (long long)dev, (long long)nd);
  else return true;
  return false;
}

/* XLA's HloSharding::ValidateNonTuple for a mesh-based sharding: the
 * replicated, manual and unreduced ones need nothing; a maximal one a
 * device in range; others one dimension sharding per dimension and a mesh
 * of exactly num_devices devices. */
static void check_named(vctx *v, const hlo_instruction *in, const hlo_sharding *sh, const hlo_shape *s, int64_t nd) {
  const hlo_named_sharding *ns = sh->named;
  if (hlo_named_is_replicated(ns) || hlo_named_is_manual(ns) || hlo_named_is_unreduced(ns)) return;
  if (ns->mesh.maximal) {
    device_in_range(v, in, ns->mesh.device_id, nd);
    return;
  }
  /* XLA's "Tile assignment only contains a single device" cannot apply: on a
   * mesh of one device every sharding is replicated, unreduced or manual */
  if (s->type == HLO_TUPLE || !hlo_type_is_array(s->type) || ns->ndims != s->rank) {
    vx_fail(v, in, "Number of tile assignment dimensions (excluding subgroups) is different than the input rank. sharding=%s, input_shape=%s",
            sh->text, vx_str(v, s));
    return;
  }
  if (nd > 0 && ns->mesh.ndevices != nd)
    vx_fail(v, in, "sharding should have %lld devices but has %lld", (long long)nd, (long long)ns->mesh.ndevices);
}

static void check_one(vctx *v, const hlo_instruction *in, const hlo_sharding *sh, const hlo_shape *s) {
  int64_t nd = v->o.num_partitions; /* 0: unknown, ids not checked */
  const char *text = sh->text ? sh->text : "{...}";
  if (sh->named) {
    check_named(v, in, sh, s, nd);
    return;
  }
  switch (sh->kind) {
  case HLO_SHARD_MAXIMAL:
    device_in_range(v, in, sh->device, nd);
    return;
  case HLO_SHARD_TILED: {
    if (s->type == HLO_TUPLE || !hlo_type_is_array(s->type)) {
      vx_fail(v, in, "a tiled sharding %s needs an array shape; got %s", text, vx_str(v, s));
      return;
    }
    int extra = (sh->last_tile_dim_replicate ? 1 : 0) + sh->nlast_tile_dims;
    if (sh->ntile - extra != s->rank) {
      vx_fail(v, in, "Number of tile assignment dimensions (excluding subgroups) is different than the input rank. sharding=%s, input_shape=%s",
              text, vx_str(v, s));
      return;
    }
    int64_t total = 1;
    for (int i = 0; i < sh->ntile; i++)
      if (sh->tile[i] <= 0 || __builtin_mul_overflow(total, sh->tile[i], &total)) {
        vx_fail(v, in, "tile assignment dimensions of %s must be positive", text);
        return;
      }
    if (sh->ndevices) {
      if (sh->ndevices != total) {
        vx_fail(v, in, "sharding %s lists %d devices but its tile assignment has %lld", text, sh->ndevices,
                (long long)total);
        return;
      }
      for (int i = 0; i < sh->ndevices; i++) {
        int64_t dev = sh->devices[i];
        if (!device_in_range(v, in, dev, nd)) return;
        for (int j = 0; j < i; j++)
          if (sh->devices[j] == dev) {
            vx_fail(v, in, "device %lld appears more than once in the tile assignment of %s", (long long)dev, text);
            return;
          }
      }
    } else {
      device_in_range(v, in, total - 1, nd);
    }
    return;
  }
  case HLO_SHARD_REPLICATED: case HLO_SHARD_MANUAL: case HLO_SHARD_UNKNOWN: case HLO_SHARD_TUPLE:
  case HLO_SHARD_OTHER:
    return;
  }
}

static int count_leaves(const hlo_shape *s) {
  if (s->type != HLO_TUPLE) return 1;
  int n = 0;
  for (int i = 0; i < s->ntuple; i++) n += count_leaves(&s->tuple[i]);
  return n;
}

/* The k-th leaf of a (nested) tuple shape, in order. */
static const hlo_shape *leaf(const hlo_shape *s, int *k) {
  if (s->type != HLO_TUPLE) return (*k)-- == 0 ? s : NULL;
  for (int i = 0; i < s->ntuple; i++) {
    const hlo_shape *r = leaf(&s->tuple[i], k);
    if (r) return r;
  }
  return NULL;
}

void hlo_verify_sharding(vctx *v, const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_SHARDING);
  if (!a || a->kind != HLO_AK_SHARDING) return;
  const hlo_sharding *sh = a->u.sharding;
  /* side-effecting ops may carry one sharding per operand (outfeed's data
   * and token): their result shape says nothing about it */
  if (in->op == HLO_OP_OUTFEED || in->op == HLO_OP_INFEED || (hlo_opcode_flags(in->op) & HLO_F_P2P) ||
      in->shape.type == HLO_TOKEN)
    return;
  if (sh->kind != HLO_SHARD_TUPLE) {
    if (in->shape.type == HLO_TUPLE) { /* one sharding for every leaf */
      int n = count_leaves(&in->shape);
      for (int k = 0; k < n; k++) {
        int j = k;
        const hlo_shape *l = leaf(&in->shape, &j);
        if (l && hlo_type_is_array(l->type)) check_one(v, in, sh, l);
      }
      return;
    }
    check_one(v, in, sh, &in->shape);
    return;
  }
  int leaves = count_leaves(&in->shape);
  if (in->shape.type != HLO_TUPLE || sh->ntuple != leaves) {
    if (!(in->shape.type != HLO_TUPLE && sh->ntuple == 1))
      vx_fail(v, in, "Tuple sharding has %d elements but the shape %s has %d leaves.", sh->ntuple,
              vx_str(v, &in->shape), leaves);
    if (sh->ntuple == 1) check_one(v, in, &sh->tuple[0], &in->shape);
    return;
  }
  for (int k = 0; k < sh->ntuple; k++) {
    int j = k;
    const hlo_shape *l = leaf(&in->shape, &j);
    if (l && hlo_type_is_array(l->type)) check_one(v, in, &sh->tuple[k], l);
  }
}
