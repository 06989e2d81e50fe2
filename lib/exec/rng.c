/* rng.c - random number ops.  `rng` draws from splitmix64 seeded by the run
 * options and advanced per call; `rng-bit-generator` runs the counter-based
 * generators of Salmon et al. (Random123): Threefry-2x32 with 20 rounds for
 * rng_three_fry and rng_default, Philox-4x32 with 10 rounds for rng_philox.
 * Both are deterministic functions of the state operand; docs/interpreter.md
 * says how the state maps to key and counter. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

DECL_KERN(hlo_ref_rng) {
  const hlo_instruction *in = s->in;
  const char *dist = hlo_instr_word(in, HLO_A_DISTRIBUTION);
  bool normal = dist && strcmp(dist, "rng_normal") == 0;
  if (!dist || (!normal && strcmp(dist, "rng_uniform") != 0) || s->nargs != 2)
    return hlo_run_errorf(r, in, "needs distribution=rng_uniform|rng_normal and two operands");
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  hlo_type t = in->shape.type;
  hlo_sc a = hlo_sc_load(args[0]->shape->type, args[0]->data, 0);
  hlo_sc b = hlo_sc_load(args[1]->shape->type, args[1]->data, 0);
  uint64_t st = r->e->opts.rng_seed ^ (0xd1b54a32d192ed03ULL * ++r->e->rng_state);
  for (int64_t k = 0; k < o->nelems; k++) {
    uint64_t u = splitmix(&st);
    double f = (double)(u >> 11) * 0x1.0p-53;
    hlo_sc v = {0, 0, 0};
    if (normal) {
      double f2 = (double)(splitmix(&st) >> 11) * 0x1.0p-53;
      v.f = a.f + b.f * sqrt(-2.0 * log(1.0 - f)) * cos(2 * M_PI * f2);
    } else if (hlo_type_is_float(t)) {
      v.f = a.f + (b.f - a.f) * f;
      if (hlo_sc_round(t, v.f) >= b.f && b.f > a.f) v.f = a.f;
    } else if (t == HLO_PRED) {
      v.i = a.i + (int64_t)(u % (uint64_t)((b.i - a.i) > 0 ? (b.i - a.i) : 1));
    } else {
      uint64_t span = (uint64_t)b.i - (uint64_t)a.i;
      v.i = (int64_t)((uint64_t)a.i + (span ? u % span : 0));
    }
    hlo_sc_store(t, o->data, k, v);
  }
  *out = o;
  return HLO_OK;
}

static uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* Threefry-2x32, 20 rounds. */
static void threefry2x32(const uint32_t key[2], uint32_t ctr[2]) {
  static const int R[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = ctr[0] + ks[0], x1 = ctr[1] + ks[1];
  for (int i = 0; i < 20; i++) {
    x0 += x1;
    x1 = rotl32(x1, R[i % 8]) ^ x0;
    if (i % 4 == 3) {
      int j = i / 4 + 1;
      x0 += ks[j % 3];
      x1 += ks[(j + 1) % 3] + (uint32_t)j;
    }
  }
  ctr[0] = x0;
  ctr[1] = x1;
}

/* Philox-4x32, 10 rounds. */
static void philox4x32(const uint32_t key[2], uint32_t c[4]) {
  uint32_t k0 = key[0], k1 = key[1];
  for (int i = 0; i < 10; i++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n1 = (uint32_t)p1;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1, n3 = (uint32_t)p0;
    c[0] = n0; c[1] = n1; c[2] = n2; c[3] = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

DECL_KERN(hlo_ref_rng_bit_generator) {
  const hlo_instruction *in = s->in;
  const char *alg = hlo_instr_word(in, HLO_A_ALGORITHM);
  bool philox = alg && strcmp(alg, "rng_philox") == 0;
  if (in->shape.type != HLO_TUPLE || in->shape.ntuple != 2)
    return hlo_run_errorf(r, in, "result must be (state, data)");
  const hlo_val *sv = args[0];
  int64_t nst = sv->nelems;
  if (hlo_type_bytes(sv->shape->type) != 8 || nst < (philox ? 2 : 2))
    return hlo_run_errorf(r, in, "state must be u64[2] (three_fry) or u64[2..3] (philox)");
  uint64_t state[3] = {0, 0, 0};
  memcpy(state, sv->data, (size_t)(nst < 3 ? nst : 3) * 8);
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  hlo_val *data = o->tuple[1];
  unsigned char *p = data->data;
  size_t nb = data->nbytes, pos = 0;
  uint32_t key[2] = {(uint32_t)state[0], (uint32_t)(state[0] >> 32)};
  uint64_t ctr = state[1], blocks = 0;
  while (pos < nb) {
    uint32_t w[4];
    int nw;
    if (philox) {
      w[0] = (uint32_t)ctr; w[1] = (uint32_t)(ctr >> 32);
      w[2] = (uint32_t)state[2]; w[3] = (uint32_t)(state[2] >> 32);
      philox4x32(key, w);
      nw = 4;
    } else {
      w[0] = (uint32_t)ctr; w[1] = (uint32_t)(ctr >> 32);
      threefry2x32(key, w);
      nw = 2;
    }
    ctr++;
    blocks++;
    for (int i = 0; i < nw && pos < nb; i++)
      for (int b = 0; b < 4 && pos < nb; b++) p[pos++] = (unsigned char)(w[i] >> (8 * b));
  }
  /* sub-byte and pred types: keep stored elements canonical */
  hlo_type dt = data->shape->type;
  if (hlo_type_bits(dt) < 8 || dt == HLO_PRED)
    for (int64_t k = 0; k < data->nelems; k++) {
      hlo_sc x = hlo_sc_load(dt, data->data, k);
      hlo_sc_store(dt, data->data, k, x);
    }
  uint64_t ns[3] = {state[0], state[1] + blocks, state[2]};
  memcpy(o->tuple[0]->data, ns, (size_t)(nst < 3 ? nst : 3) * 8);
  *out = o;
  return HLO_OK;
}

/* rng-get-and-update-state: the old 128-bit state as u64[2] {low, high}, then
 * state += delta (the instruction's delta= attribute).  The state belongs to
 * the hlo_exec and persists across its executions, as XLA's per-module state. */
DECL_KERN(hlo_ref_rng_get_and_update_state) {
  const hlo_instruction *in = s->in;
  int64_t delta = 0;
  bool found = false;
  for (int i = 0; i < in->nattrs; i++) {
    const hlo_attr *a = &in->attrs[i];
    if (!a->name || strcmp(a->name, "delta") != 0) continue;
    if (a->kind == HLO_AK_INT) {
      delta = a->u.i;
      found = true;
    } else if (a->kind == HLO_AK_RAW || a->kind == HLO_AK_WORD) {
      char *end;
      errno = 0;
      long long v = a->u.s ? strtoll(a->u.s, &end, 10) : 0;
      found = a->u.s && *a->u.s && *end == 0 && errno == 0;
      delta = v;
    }
  }
  if (!found) return hlo_run_errorf(r, in, "needs an integer delta= attribute");
  const hlo_shape *os = &in->shape;
  if (os->type != HLO_U64 || os->rank != 1 || os->dims[0] != 2)
    return hlo_run_errorf(r, in, "result must be u64[2]");
  hlo_val *o = hlo_run_new_raw(r, os);
  if (!o) return OOM(r, s);
  uint64_t *w = o->data;
  uint64_t *g = r->e->rng_gs;
  w[0] = g[0];
  w[1] = g[1];
  /* 128-bit add of the sign-extended delta */
  uint64_t lo = g[0] + (uint64_t)delta;
  g[1] += (lo < g[0] ? 1 : 0) + (delta < 0 ? UINT64_MAX : 0);
  g[0] = lo;
  *out = o;
  return HLO_OK;
}
