/* ccall_misc.c - elementwise custom calls: JAX's Threefry-2x32 counter PRNG
 * (cuda_threefry2x32), the activations and softmax of PyTorch/XLA on AWS
 * Neuron, and the SPMD partitioner's shard/full shape conversions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ccall.h"
#include "exec/comm.h"

/* ---- Threefry-2x32, 20 rounds (Salmon et al., "Parallel random numbers:
 * as easy as 1, 2, 3", SC'11; the Random123 reference) ----------------------- */
static uint32_t rotl32(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

static void threefry2x32(uint32_t k0, uint32_t k1, uint32_t *x0, uint32_t *x1) {
  static const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
  uint32_t a = *x0 + ks[0], b = *x1 + ks[1];
  for (uint32_t g = 1; g <= 5; g++) {
    const int *rr = rot + ((g - 1) % 2) * 4;
    for (int i = 0; i < 4; i++) {
      a += b;
      b = rotl32(b, rr[i]);
      b ^= a;
    }
    a += ks[g % 3];
    b += ks[(g + 1) % 3] + g;
  }
  *x0 = a;
  *x1 = b;
}

static uint32_t u32_at(const hlo_val *v, int64_t k) {
  return ((const uint32_t *)v->data)[v->nelems == 1 ? 0 : k];
}

static DECL_KERN(threefry_run) {
  hlo_val *t = hlo_run_new(r, &s->in->shape);
  if (!t) return hlo_run_errorf(r, s->in, "out of memory");
  uint32_t *o0 = t->tuple[0]->data, *o1 = t->tuple[1]->data;
  for (int64_t k = 0; k < t->tuple[0]->nelems; k++) {
    uint32_t a = u32_at(args[2], k), b = u32_at(args[3], k);
    threefry2x32(u32_at(args[0], k), u32_at(args[1], k), &a, &b);
    o0[k] = a;
    o1[k] = b;
  }
  *out = t;
  return HLO_OK;
}

int hlo_ccall_prep_threefry(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  const hlo_shape *sh = &in->shape;
  bool ok = in->noperands == 4 && sh->type == HLO_TUPLE && sh->ntuple == 2 &&
            sh->tuple[0].type == HLO_U32 && hlo_shape_compatible(&sh->tuple[0], &sh->tuple[1]);
  int64_t n = 0, m = 0;
  ok = ok && hlo_shape_elements(&sh->tuple[0], &n);
  for (int i = 0; ok && i < 4; i++)
    ok = in->operands[i]->shape.type == HLO_U32 && hlo_shape_elements(&in->operands[i]->shape, &m) &&
         (m == n || m == 1);
  if (!ok)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: custom call %s takes u32 operands (k0, k1, x0, x1), "
                        "each of the result's element count or one element, and returns (u32[...], "
                        "u32[...])", in->name, t);
  s->fn = threefry_run;
  s->kname = "threefry_run";
  return HLO_OK;
}

/* ---- activations and softmax -------------------------------------------------- */
typedef struct act_p {
  int kind;          /* index into ACT_NAMES */
  int dim;           /* softmax dimension */
} act_p;
static const char *const ACT_NAMES[] = {"AwsNeuronGelu", "AwsNeuronGeluApprxTanh", "AwsNeuronGeluBackward",
                                        "AwsNeuronSilu", "AwsNeuronSoftmax", "AwsNeuronSoftmaxBackward"};
enum { GELU, GELU_TANH, GELU_BWD, SILU, SOFTMAX, SOFTMAX_BWD, NACT };

static double gelu_grad(double x) {
  return 0.5 * (1 + erf(x / sqrt(2.0))) + x * exp(-0.5 * x * x) / sqrt(2 * M_PI);
}

static DECL_KERN(act_run) {
  const act_p *p = s->p;
  const hlo_shape *sh = &s->in->shape;
  hlo_type t = sh->type;
  hlo_val *o = hlo_run_new_raw(r, sh);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  hlo_type t0 = args[0]->shape->type;
  if (p->kind != SOFTMAX && p->kind != SOFTMAX_BWD) {
    for (int64_t k = 0; k < o->nelems; k++) {
      double x = hlo_sc_load(t0, args[0]->data, k).f, v = 0;
      switch (p->kind) {
      case GELU: v = 0.5 * x * (1 + erf(x / sqrt(2.0))); break;
      case GELU_TANH: v = 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); break;
      case GELU_BWD: v = x * gelu_grad(hlo_sc_load(args[1]->shape->type, args[1]->data, k).f); break;
      case SILU: v = x / (1 + exp(-x)); break;
      }
      hlo_sc_store(t, o->data, k, (hlo_sc){v, 0, 0});
    }
  } else { /* rows along dim: outer x n x inner */
    int64_t n = sh->dims[p->dim], inner = 1, outer = 1;
    for (int d = p->dim + 1; d < sh->rank; d++) inner *= sh->dims[d];
    for (int d = 0; d < p->dim; d++) outer *= sh->dims[d];
    for (int64_t a = 0; a < outer; a++)
      for (int64_t c = 0; c < inner; c++) {
        int64_t base = a * n * inner + c;
        if (p->kind == SOFTMAX) {
          double mx = -INFINITY, sum = 0;
          for (int64_t i = 0; i < n; i++) mx = fmax(mx, hlo_sc_load(t0, args[0]->data, base + i * inner).f);
          for (int64_t i = 0; i < n; i++) sum += exp(hlo_sc_load(t0, args[0]->data, base + i * inner).f - mx);
          for (int64_t i = 0; i < n; i++) {
            double v = exp(hlo_sc_load(t0, args[0]->data, base + i * inner).f - mx) / sum;
            hlo_sc_store(t, o->data, base + i * inner, (hlo_sc){v, 0, 0});
          }
        } else { /* (dy, y) */
          hlo_type t1 = args[1]->shape->type;
          double dot = 0;
          for (int64_t i = 0; i < n; i++)
            dot += hlo_sc_load(t0, args[0]->data, base + i * inner).f * hlo_sc_load(t1, args[1]->data, base + i * inner).f;
          for (int64_t i = 0; i < n; i++) {
            double dy = hlo_sc_load(t0, args[0]->data, base + i * inner).f;
            double y = hlo_sc_load(t1, args[1]->data, base + i * inner).f;
            hlo_sc_store(t, o->data, base + i * inner, (hlo_sc){y * (dy - dot), 0, 0});
          }
        }
      }
  }
  *out = o;
  return HLO_OK;
}

int hlo_ccall_prep_act(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  act_p *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return HLO_PLAN_ERR(e, in, "out of memory");
  p->kind = 0;
  while (p->kind < NACT && strcmp(ACT_NAMES[p->kind], t)) p->kind++;
  int nops = p->kind == GELU_BWD || p->kind == SOFTMAX_BWD ? 2 : 1;
  bool ok = p->kind < NACT && in->noperands == nops && hlo_shape_is_array(&in->shape) &&
            hlo_type_kind_of(in->shape.type) == HLO_KIND_FLOAT;
  for (int i = 0; ok && i < nops; i++) ok = hlo_shape_compatible(&in->operands[i]->shape, &in->shape);
  if (!ok)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: custom call %s takes %d floating-point operand%s of "
                        "the result's shape", in->name, t, nops, nops > 1 ? "s" : "");
  p->dim = in->shape.rank - 1;
  if (p->kind == SOFTMAX || p->kind == SOFTMAX_BWD) {
    const hlo_attr *a = hlo_instr_attr(in, HLO_A_BACKEND_CONFIG);
    const char *c = a && a->u.s ? a->u.s : "";
    if (*c == '"') c++;
    if (*c && *c != '"') {
      char *end;
      long d = strtol(c, &end, 10);
      if (end == c || (*end && *end != '"') || d < 0 || d >= in->shape.rank)
        return HLO_PLAN_ERR(e, in, "instruction %%%s: backend_config of %s must be a dimension number "
                            "below %d", in->name, t, in->shape.rank);
      p->dim = (int)d;
    }
    if (in->shape.rank == 0)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: %s needs an operand of rank 1 or more", in->name, t);
  }
  s->fn = act_run;
  s->kname = "act_run";
  s->p = p;
  return HLO_OK;
}

/* ---- SPMD shard / full shapes ------------------------------------------------- */
typedef struct spmd_p {
  int64_t off[MAXR]; /* this partition's tile origin in the full shape */
} spmd_p;

/* device at flat position i of a tile assignment */
static int64_t device_at(const hlo_sharding *sh, int64_t i) {
  if (!sh->iota) return sh->devices[i];
  int n = sh->niota_reshape;
  int64_t tdims[MAXR], idx[MAXR], orig[MAXR];
  for (int j = 0; j < n; j++) tdims[j] = sh->iota_reshape[sh->niota_perm == n ? sh->iota_perm[j] : j];
  for (int j = n - 1; j >= 0; j--) {
    idx[j] = i % tdims[j];
    i /= tdims[j];
  }
  for (int j = 0; j < n; j++) orig[sh->niota_perm == n ? sh->iota_perm[j] : j] = idx[j];
  int64_t v = 0;
  for (int j = 0; j < n; j++) v = v * sh->iota_reshape[j] + orig[j];
  return v;
}

/* The tiled sharding that says how full splits into shards: the
 * instruction's own, else its operand's when that is a Sharding call. */
static const hlo_sharding *tiling_of(const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_SHARDING);
  if (a && a->u.sharding && a->u.sharding->ntile > 0) return a->u.sharding;
  const hlo_instruction *o = in->noperands ? in->operands[0] : NULL;
  const hlo_attr *t = o && o->op == HLO_OP_CUSTOM_CALL ? hlo_instr_attr(o, HLO_A_CUSTOM_CALL_TARGET) : NULL;
  a = t && t->u.s && !strcmp(t->u.s, "Sharding") ? hlo_instr_attr(o, HLO_A_SHARDING) : NULL;
  return a && a->u.sharding && a->u.sharding->ntile > 0 ? a->u.sharding : NULL;
}

void hlo_ccall_tile_copy(const hlo_shape *full, const hlo_shape *part, const int64_t *off, bool to_full,
                         void *dst, const void *src) {
  int64_t fst[MAXR], idx[MAXR] = {0}, eb = hlo_type_bytes(full->type);
  hlo_strides(full, fst);
  bool more = true;
  for (int d = 0; d < part->rank; d++) more &= part->dims[d] > 0;
  int64_t k = 0;
  while (more) {
    int64_t fo = 0;
    bool in = true;
    for (int d = 0; d < part->rank; d++) {
      int64_t pos = off[d] + idx[d];
      in &= pos < full->dims[d];
      fo += pos * fst[d];
    }
    if (in) {
      char *to = to_full ? (char *)dst + fo * eb : (char *)dst + k * eb;
      const char *from = to_full ? (const char *)src + k * eb : (const char *)src + fo * eb;
      memcpy(to, from, (size_t)eb);
    }
    k++;
    more = hlo_index_next(part->rank, part->dims, idx);
  }
}

int hlo_ccall_tiles_plan(hlo_exec *e, hlo_ccall_tiles *g, int nvals) {
  int P = hlo_comm_partitions(e->opts.comm), self = e->opts.comm ? e->opts.device : 0;
  g->nvals = nvals;
  g->n = e->opts.comm ? P : 1;
  g->pos = self % g->n;
  g->part = hlo_arena_array(&e->arena, (size_t)g->n, sizeof *g->part);
  g->off = hlo_arena_array(&e->arena, (size_t)g->n * (size_t)nvals, sizeof *g->off);
  if (!g->part || !g->off) return HLO_ERR;
  memset(g->off, 0, (size_t)g->n * (size_t)nvals * sizeof *g->off);
  for (int q = 0; q < g->n; q++) g->part[q] = self - g->pos + q; /* this replica's partitions */
  return HLO_OK;
}

int hlo_ccall_tiles_gather(hlo_run *r, const plan_step *s, const hlo_ccall_tiles *g, hlo_val **args,
                           hlo_val **out) {
  hlo_val *o = hlo_run_new(r, &s->in->shape);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  hlo_val *outs[HLO_RDV_MAX_VALS];
  for (int k = 0; k < g->nvals; k++) outs[k] = hlo_shape_is_tuple(o->shape) ? o->tuple[k] : o;
  hlo_rdv *rv = NULL;
  const hlo_rdv_entry *ents = NULL;
  hlo_rdv_entry me = {args, outs};
  bool shared = true;
  int rc = hlo_rdv_meet(r, s->in, g->part, g->n, g->pos, g->nvals, args, outs, HLO_RDV_EXCHANGE, &rv, &ents,
                        &shared);
  if (rc == HLO_OK) {
    if (!rv) ents = &me;
    int n = rv ? g->n : 1;
    /* every partition's tile at its offset, in partition order */
    for (int j = 0; j < n; j++)
      for (int k = 0; k < g->nvals; k++) {
        const hlo_val *src = ents[j].in[k];
        if (!hlo_shape_is_array(outs[k]->shape) || !hlo_shape_is_array(src->shape)) continue;
        hlo_ccall_tile_copy(outs[k]->shape, src->shape, g->off[(size_t)(rv ? j : g->pos) * (size_t)g->nvals + (size_t)k],
                            true, outs[k]->data, src->data);
      }
    int lrc = hlo_rdv_leave(r, s->in, rv);
    if (rc == HLO_OK) rc = lrc;
  }
  if (rc != HLO_OK) {
    hlo_run_release(r, o);
    return rc;
  }
  *out = o;
  return HLO_OK;
}

static DECL_KERN(spmd_run) {
  const spmd_p *p = s->p; /* full to shard (shard to full gathers: spmd_gather) */
  const hlo_shape *full = args[0]->shape, *part = &s->in->shape;
  hlo_val *o = hlo_run_new(r, &s->in->shape);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  hlo_ccall_tile_copy(full, part, p->off, false, o->data, args[0]->data);
  *out = o;
  return HLO_OK;
}

/* The origin in full of device self's tile under sh. */
static int tile_origin(hlo_exec *e, const hlo_instruction *in, const hlo_sharding *sh,
                       int64_t ntiles, const hlo_shape *full, const hlo_shape *part, int64_t self, int64_t *off) {
  int64_t pos = -1;
  for (int64_t i = 0; i < ntiles && pos < 0; i++)
    if (device_at(sh, i) == self) pos = i;
  if (pos < 0)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: partition %lld is not in the tile assignment of %s",
                        in->name, (long long)self, sh->text ? sh->text : "the sharding");
  int64_t coord[2 * MAXR + 2];
  for (int d = sh->ntile - 1; d >= 0; d--) {
    coord[d] = pos % sh->tile[d];
    pos /= sh->tile[d];
  }
  for (int d = 0; d < full->rank; d++) {
    int64_t per = (full->dims[d] + sh->tile[d] - 1) / sh->tile[d];
    if (part->dims[d] != per)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: dimension %d of the shard is %lld, but the sharding "
                          "splits %lld into %lld tiles of %lld", in->name, d, (long long)part->dims[d],
                          (long long)full->dims[d], (long long)sh->tile[d], (long long)per);
    off[d] = coord[d] * per;
  }
  return HLO_OK;
}

static DECL_KERN(spmd_gather) { return hlo_ccall_tiles_gather(r, s, s->p, args, out); }

int hlo_ccall_prep_spmd(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  if (in->noperands == 1 && hlo_shape_compatible(&in->operands[0]->shape, &in->shape)) {
    s->fn = hlo_ctl_forward0;
    s->kname = "hlo_ctl_forward0";
    return HLO_OK;
  }
  spmd_p *p = hlo_arena_alloc(&e->arena, sizeof *p);
  if (!p) return HLO_PLAN_ERR(e, in, "out of memory");
  memset(p, 0, sizeof *p);
  bool to_full = strcmp(t, "SPMDShardToFullShape") == 0;
  const hlo_shape *full = to_full ? &in->shape : in->noperands == 1 ? &in->operands[0]->shape : NULL;
  const hlo_shape *part = to_full ? (in->noperands == 1 ? &in->operands[0]->shape : NULL) : &in->shape;
  const hlo_sharding *sh = tiling_of(in);
  bool ok = full && part && hlo_shape_is_array(full) && hlo_shape_is_array(part) && full->type == part->type &&
            full->rank == part->rank && sh && sh->ntile >= full->rank;
  int64_t ntiles = 1;
  for (int d = 0; ok && d < sh->ntile; d++) ntiles *= sh->tile[d];
  ok = ok && (sh->iota || sh->ndevices == ntiles);
  if (!ok)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s changes the shape, but no tiled sharding (its own or "
                        "its Sharding operand's) says how the full shape splits", in->name, t);
  int64_t self = e->opts.comm ? e->opts.device % hlo_comm_partitions(e->opts.comm) : e->opts.partition_id;
  if (to_full) { /* gather every partition's tile (alone: its own) */
    hlo_ccall_tiles *g = hlo_arena_alloc(&e->arena, sizeof *g);
    if (!g || hlo_ccall_tiles_plan(e, g, 1)) return HLO_PLAN_ERR(e, in, "out of memory");
    for (int q = 0; q < g->n; q++)
      if (tile_origin(e, in, sh, ntiles, full, part, g->n > 1 ? q : self, g->off[q])) return HLO_ERR;
    s->fn = spmd_gather;
    s->kname = "spmd_gather";
    s->p = g;
    return HLO_OK;
  }
  if (tile_origin(e, in, sh, ntiles, full, part, self, p->off)) return HLO_ERR;
  s->fn = spmd_run;
  s->kname = "spmd_run";
  s->p = p;
  return HLO_OK;
}
