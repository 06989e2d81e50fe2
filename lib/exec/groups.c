/* groups.c - the participants of a collective, after XLA's rules
 * (collective_ops_utils): channel_id and use_global_device_ids choose what
 * the ids of replica_groups mean, an absent or empty group list means every
 * replica (or partition), and the iota form [G,S]<=[dims]T(perm) lists the
 * ids of an iota over dims, transposed by perm, in G rows of S.  Also the
 * source-target pairs of send and recv (hlo_p2p_pairs) and the device
 * counts a module needs (hlo_module_device_counts). */
#include <stdio.h>
#include <string.h>

#include "exec/groups.h"

/* Ops whose use_global_device_ids is a field of the instruction (XLA's
 * all-reduce, all-gather and reduce-scatter families); the others leave it
 * unset, and a channel then means cross-partition. */
static bool has_global_ids_field(hlo_opcode op) {
  switch (op) {
  case HLO_OP_ALL_REDUCE: case HLO_OP_ALL_REDUCE_START: case HLO_OP_ALL_GATHER:
  case HLO_OP_ALL_GATHER_START: case HLO_OP_REDUCE_SCATTER:
    return true;
  default:
    return false;
  }
}

int hlo_group_mode_of(const hlo_instruction *in, hlo_group_mode *mode, char *why, size_t cap) {
  bool channel = hlo_instr_attr(in, HLO_A_CHANNEL_ID) != NULL;
  bool global = hlo_instr_bool(in, HLO_A_USE_GLOBAL_DEVICE_IDS, false);
  if (!channel) {
    if (global) {
      snprintf(why, cap, "use_global_device_ids=true needs a channel_id");
      return HLO_ERR;
    }
    *mode = HLO_GM_CROSS_REPLICA;
  } else if (!has_global_ids_field(in->op)) {
    *mode = HLO_GM_CROSS_PARTITION;
  } else {
    *mode = global ? HLO_GM_FLATTENED_ID : HLO_GM_CROSS_REPLICA_AND_PARTITION;
  }
  return HLO_OK;
}

int hlo_groups_expand(const hlo_instruction *in, hlo_arena *A, int *ngroups, int **sizes,
                      int64_t ***ids, char *why, size_t cap) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_REPLICA_GROUPS);
  *ngroups = 0;
  *sizes = NULL;
  *ids = NULL;
  if (!a || !a->u.groups) return HLO_OK;
  const hlo_replica_groups *g = a->u.groups;
  if (!g->iota) {
    *ngroups = g->ngroups;
    *sizes = g->group_sizes;
    *ids = g->groups;
    return HLO_OK;
  }
  if (g->niota_shape != 2 || g->iota_shape[0] < 1 || g->iota_shape[1] < 1 ||
      g->iota_shape[0] > 1 << 20 || g->iota_shape[1] > 1 << 20) {
    snprintf(why, cap, "the iota form of replica_groups needs [groups,size] with positive counts");
    return HLO_ERR;
  }
  int G = (int)g->iota_shape[0], S = (int)g->iota_shape[1];
  int64_t total = (int64_t)G * S;
  int rank = g->niota_reshape ? g->niota_reshape : 1;
  int64_t dims[HLO_EXEC_MAX_RANK], prod = 1;
  if (rank > HLO_EXEC_MAX_RANK) {
    snprintf(why, cap, "replica_groups: iota reshape of rank %d", rank);
    return HLO_ERR;
  }
  for (int i = 0; i < rank; i++) {
    dims[i] = g->niota_reshape ? g->iota_reshape[i] : total;
    if (dims[i] < 1 || dims[i] > total) prod = -1;
    else if (prod > 0) prod *= dims[i];
  }
  int perm[HLO_EXEC_MAX_RANK];
  bool seen[HLO_EXEC_MAX_RANK] = {false};
  for (int i = 0; i < rank; i++) {
    int64_t p = g->niota_perm ? (i < g->niota_perm ? g->iota_perm[i] : -1) : i;
    if (p < 0 || p >= rank || seen[p] || (g->niota_perm && g->niota_perm != rank)) {
      snprintf(why, cap, "replica_groups: T(...) is not a permutation of the %d reshape dimensions", rank);
      return HLO_ERR;
    }
    seen[p] = true;
    perm[i] = (int)p;
  }
  if (prod != total) {
    snprintf(why, cap, "replica_groups: the iota reshape does not hold %lld ids", (long long)total);
    return HLO_ERR;
  }
  int64_t stride[HLO_EXEC_MAX_RANK], tdims[HLO_EXEC_MAX_RANK], idx[HLO_EXEC_MAX_RANK] = {0};
  for (int i = rank - 1, acc = 1; i >= 0; i--) stride[i] = acc, acc *= (int)dims[i];
  for (int i = 0; i < rank; i++) tdims[i] = dims[perm[i]];
  *sizes = hlo_arena_array(A, (size_t)G, sizeof(int));
  *ids = hlo_arena_array(A, (size_t)G, sizeof(int64_t *));
  int64_t *flat = hlo_arena_array(A, (size_t)total, sizeof(int64_t));
  if (!*sizes || !*ids || !flat) {
    snprintf(why, cap, "out of memory");
    return HLO_ERR;
  }
  /* walk the transposed array in row-major order; its element at idx is
   * the iota's element whose index has idx[i] at dimension perm[i] */
  for (int64_t k = 0; k < total; k++) {
    int64_t src = 0;
    for (int i = 0; i < rank; i++) src += idx[i] * stride[perm[i]];
    flat[k] = src;
    for (int i = rank - 1; i >= 0; i--) {
      if (++idx[i] < tdims[i]) break;
      idx[i] = 0;
    }
  }
  for (int i = 0; i < G; i++) (*sizes)[i] = S, (*ids)[i] = flat + (int64_t)i * S;
  *ngroups = G;
  return HLO_OK;
}

static bool is_permute(hlo_opcode op) {
  return op == HLO_OP_COLLECTIVE_PERMUTE || op == HLO_OP_COLLECTIVE_PERMUTE_START;
}

int hlo_group_participants(const hlo_instruction *in, int R, int P, int self, hlo_arena *A,
                           int *part, int *n, int *pos, char *why, size_t cap) {
  hlo_group_mode mode;
  if (hlo_group_mode_of(in, &mode, why, cap)) return HLO_ERR;
  int rep = self / P, par = self % P;
  *n = 0;
  *pos = -1;
  if (is_permute(in->op)) { /* the whole replica or partition: pairs choose */
    int cnt = mode == HLO_GM_CROSS_REPLICA ? R : P;
    for (int i = 0; i < cnt; i++) part[i] = mode == HLO_GM_CROSS_REPLICA ? i * P + par : rep * P + i;
    *n = cnt;
    *pos = mode == HLO_GM_CROSS_REPLICA ? rep : par;
    return HLO_OK;
  }
  int ng, *sizes;
  int64_t **ids;
  if (hlo_groups_expand(in, A, &ng, &sizes, &ids, why, cap)) return HLO_ERR;
  /* the id of self that groups list, and the id range */
  int64_t me = mode == HLO_GM_CROSS_PARTITION ? par : mode == HLO_GM_FLATTENED_ID ? self : rep;
  int64_t lim = mode == HLO_GM_CROSS_PARTITION ? P : mode == HLO_GM_FLATTENED_ID ? (int64_t)R * P : R;
  const char *what = mode == HLO_GM_CROSS_PARTITION ? "partition" : mode == HLO_GM_FLATTENED_ID
                     ? "device" : "replica";
  const int64_t *grp = NULL;
  int gsize = 0;
  int64_t *all = NULL;
  if (ng == 0) {
    if (mode == HLO_GM_FLATTENED_ID) {
      snprintf(why, cap, "use_global_device_ids=true needs explicit replica_groups");
      return HLO_ERR;
    }
    all = hlo_arena_array(A, (size_t)lim, sizeof(int64_t));
    if (!all) { snprintf(why, cap, "out of memory"); return HLO_ERR; }
    for (int64_t i = 0; i < lim; i++) all[i] = i;
    grp = all, gsize = (int)lim;
  } else {
    for (int g = 0; g < ng; g++)
      for (int i = 0; i < sizes[g]; i++) {
        if (ids[g][i] < 0 || ids[g][i] >= lim) {
          snprintf(why, cap, "replica_groups name %s %lld, but there are %lld %ss (%d replica%s x %d "
                   "partition%s)", what, (long long)ids[g][i], (long long)lim, what, R,
                   R == 1 ? "" : "s", P, P == 1 ? "" : "s");
          return HLO_ERR;
        }
        if (ids[g][i] == me) {
          if (grp) {
            snprintf(why, cap, "%s %lld is in more than one replica group", what, (long long)me);
            return HLO_ERR;
          }
          grp = ids[g], gsize = sizes[g];
        }
      }
    if (!grp) {
      snprintf(why, cap, "%s %lld is in no replica group", what, (long long)me);
      return HLO_ERR;
    }
  }
  for (int i = 0; i < gsize; i++) {
    int64_t id = grp[i];
    switch (mode) {
    case HLO_GM_CROSS_REPLICA: part[(*n)++] = (int)id * P + par; break;
    case HLO_GM_CROSS_PARTITION: part[(*n)++] = rep * P + (int)id; break;
    case HLO_GM_FLATTENED_ID: part[(*n)++] = (int)id; break;
    case HLO_GM_CROSS_REPLICA_AND_PARTITION:
      for (int p = 0; p < P; p++) part[(*n)++] = (int)id * P + p;
      break;
    }
  }
  for (int i = 0; i < *n; i++) {
    for (int j = 0; j < i; j++)
      if (part[j] == part[i]) {
        snprintf(why, cap, "a replica group names device %d twice", part[i]);
        return HLO_ERR;
      }
    if (part[i] == self) *pos = i;
  }
  return HLO_OK;
}

/* ---- send and recv ------------------------------------------------------- */
#define P2P_KEY "_xla_send_recv_source_target_pairs"

int hlo_p2p_pairs(const hlo_instruction *in, hlo_arena *A, int *n, int64_t (**v)[2], char *why,
                  size_t cap) {
  *n = -1;
  *v = NULL;
  const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
  const char *p = fa && fa->kind == HLO_AK_RAW && fa->u.s ? strstr(fa->u.s, P2P_KEY) : NULL;
  if (!p) return HLO_OK;
  p += strlen(P2P_KEY);
  while (*p == ' ' || *p == '"') p++; /* a quoted key's closing quote */
  if (*p++ != '=') goto bad;
  while (*p == ' ') p++;
  if (*p++ != '"') goto bad;
  /* {{s,t},{s,t},...}: count the integers first, then read them */
  const char *end = strchr(p, '"');
  if (!end) goto bad;
  int cnt = 0;
  for (const char *q = p; q < end; q++)
    if (*q >= '0' && *q <= '9' && (q == p || q[-1] < '0' || q[-1] > '9')) cnt++;
  if (cnt % 2) goto bad;
  int64_t (*pv)[2] = cnt ? hlo_arena_array(A, (size_t)cnt / 2, sizeof *pv) : NULL;
  if (cnt && !pv) { snprintf(why, cap, "out of memory"); return HLO_ERR; }
  int k = 0, depth = 0;
  for (const char *q = p; q < end; q++) {
    if (*q == '{') depth++;
    else if (*q == '}') depth--;
    else if (*q >= '0' && *q <= '9') {
      if (depth != 2) goto bad;
      int64_t x = 0;
      for (; q < end && *q >= '0' && *q <= '9'; q++)
        if ((x = x * 10 + (*q - '0')) > 1 << 20) goto bad;
      q--;
      pv[k / 2][k % 2] = x;
      k++;
    } else if (*q != ',' && *q != ' ') goto bad;
    if (depth < 0 || depth > 2) goto bad;
  }
  if (depth) goto bad;
  *n = cnt / 2;
  *v = pv;
  return HLO_OK;
bad:
  snprintf(why, cap, "frontend attribute " P2P_KEY " is not of the form \"{{source,target},...}\"");
  return HLO_ERR;
}

/* ---- device counts of a module -------------------------------------------- */
typedef struct needs {
  int64_t replicas, partitions, flat; /* smallest counts the ids need */
} needs;

/* The first array in s (s itself, or tuple element 0, recursively). */
static const hlo_shape *first_array(const hlo_shape *s) {
  for (int depth = 0; s && s->type == HLO_TUPLE && depth < 8; depth++) s = s->ntuple ? &s->tuple[0] : NULL;
  return s && s->type != HLO_TUPLE ? s : NULL;
}

/* With no replica groups (every device of the mode), the group size the
 * shapes imply: an all-gather's result over its operand, a reduce-
 * scatter's operand over its result along the dimension, the operand count
 * of an all-to-all without a split dimension; 1 when they say nothing. */
static int64_t group_size_of_shapes(const hlo_instruction *in) {
  int nd;
  const int64_t *dim = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (in->op == HLO_OP_ALL_TO_ALL) return nd == 0 && in->noperands > 1 ? in->noperands : 1;
  bool gather = in->op == HLO_OP_ALL_GATHER || in->op == HLO_OP_ALL_GATHER_START;
  if ((!gather && in->op != HLO_OP_REDUCE_SCATTER) || nd != 1 || !in->noperands) return 1;
  const hlo_shape *res = &in->shape;
  if (in->op == HLO_OP_ALL_GATHER_START) res = res->type == HLO_TUPLE && res->ntuple == 2 ? &res->tuple[1] : NULL;
  res = res ? first_array(res) : NULL;
  const hlo_shape *op = first_array(&in->operands[0]->shape);
  int64_t d = dim[0];
  if (!res || !op || d < 0 || d >= res->rank || d >= op->rank) return 1;
  int64_t big = gather ? res->dims[d] : op->dims[d], small = gather ? op->dims[d] : res->dims[d];
  return small > 0 && big > small && big % small == 0 ? big / small : 1;
}

static void need_of(const hlo_instruction *in, hlo_arena *A, needs *nd, char *why, size_t cap,
                    int *rc) {
  hlo_group_mode mode;
  if (hlo_group_mode_of(in, &mode, why, cap)) { *rc = HLO_ERR; return; }
  int64_t top = -1;
  if (is_permute(in->op)) {
    const hlo_attr *a = hlo_instr_attr(in, HLO_A_SOURCE_TARGET_PAIRS);
    for (int i = 0; a && i < a->u.pairs.n; i++)
      for (int k = 0; k < 2; k++)
        if (a->u.pairs.v[i][k] > top) top = a->u.pairs.v[i][k];
  } else if (hlo_opcode_flags(in->op) & HLO_F_P2P) {
    /* send/recv: partition ids with a positive channel_id, else replica ids */
    mode = hlo_instr_int(in, HLO_A_CHANNEL_ID, 0) > 0 ? HLO_GM_CROSS_PARTITION : HLO_GM_CROSS_REPLICA;
    int np;
    int64_t(*pv)[2];
    if (hlo_p2p_pairs(in, A, &np, &pv, why, cap)) { *rc = HLO_ERR; return; }
    for (int i = 0; i < np; i++)
      for (int k = 0; k < 2; k++)
        if (pv[i][k] > top) top = pv[i][k];
  } else {
    int ng, *sizes;
    int64_t **ids;
    if (hlo_groups_expand(in, A, &ng, &sizes, &ids, why, cap)) { *rc = HLO_ERR; return; }
    for (int g = 0; g < ng; g++)
      for (int i = 0; i < sizes[g]; i++)
        if (ids[g][i] > top) top = ids[g][i];
    if (top < 0) top = group_size_of_shapes(in) - 1;
  }
  if (top < 0) return;
  if (top > 1 << 20) top = 1 << 20; /* the caller refuses the count */
  int64_t *slot = mode == HLO_GM_CROSS_PARTITION ? &nd->partitions
                  : mode == HLO_GM_FLATTENED_ID ? &nd->flat : &nd->replicas;
  if (top + 1 > *slot) *slot = top + 1;
}

int hlo_module_device_counts(const hlo_module *m, int *replicas, int *partitions, bool *inferred,
                             hlo_diags *d) {
  const hlo_attr *ra = hlo_module_attr(m, HLO_A_REPLICA_COUNT);
  const hlo_attr *pa = hlo_module_attr(m, HLO_A_NUM_PARTITIONS);
  needs nd = {1, 1, 1};
  hlo_arena A;
  hlo_arena_init(&A, NULL);
  char why[256];
  int rc = HLO_OK;
  for (int c = 0; c < m->ncomps && rc == HLO_OK; c++)
    for (int i = 0; i < m->comps[c]->ninstrs && rc == HLO_OK; i++) {
      const hlo_instruction *in = m->comps[c]->instrs[i];
      bool p2p = (in->op == HLO_OP_SEND || in->op == HLO_OP_RECV) &&
                 !hlo_instr_bool(in, HLO_A_IS_HOST_TRANSFER, false);
      if ((hlo_opcode_flags(in->op) & HLO_F_COLLECTIVE) || p2p) {
        need_of(in, &A, &nd, why, sizeof why, &rc);
        if (rc) hlo_errorf(d, NULL, 0, "instruction %%%s: %s", in->name, why);
      }
    }
  hlo_arena_release(&A);
  if (rc) return rc;
  int64_t R = ra ? ra->u.i : nd.replicas, P = pa ? pa->u.i : nd.partitions;
  if (R * P < nd.flat) { /* flattened ids: grow the count the header leaves open */
    if (!pa) P = (nd.flat + R - 1) / R;
    else if (!ra) R = (nd.flat + P - 1) / P;
  }
  if (R < 1 || P < 1 || R > 4096 || P > 4096 || R * P > 4096)
    return hlo_errorf(d, NULL, 0, "the module needs %lld replicas x %lld partitions: between 1 and "
                      "4096 devices are supported", (long long)R, (long long)P);
  *replicas = (int)R;
  *partitions = (int)P;
  *inferred = (!ra && R > 1) || (!pa && P > 1);
  return HLO_OK;
}
