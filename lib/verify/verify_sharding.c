/* verify_sharding.c - checks of sharding={...} attributes against the
 * instruction's shape: tile assignment rank (excluding replicated and
 * subgroup dimensions), device ids below the number of devices, maximal
 * device ids, and tuple shardings with one entry per leaf. */
#include <stdlib.h>
#include <string.h>

#include "verify_internal.h"

/* Parse "devices=[a,b,c]" (dims) from a sharding text; returns the count. */
static int tile_dims(const char *t, int64_t *dims, int max) {
  const char *p = strstr(t, "devices=[");
  if (!p) return -1;
  p += 9;
  int n = 0;
  while (*p && *p != ']') {
    char *e;
    long long x = strtoll(p, &e, 10);
    if (e == p) return -1;
    if (n < max) dims[n] = x;
    n++;
    p = e;
    if (*p == ',') p++;
  }
  return n;
}

/* Number of subgroup dimensions in "last_tile_dims={manual, replicated}". */
static int subgroup_dims(const char *t) {
  const char *p = strstr(t, "last_tile_dims={");
  if (!p) return 0;
  int n = 1;
  for (p += 16; *p && *p != '}'; p++) n += *p == ',';
  return n;
}

static void check_one(vctx *v, const hlo_instruction *in, const char *t, size_t len, const hlo_shape *s) {
  char *buf = hlo_arena_strndup(&v->scratch, t, len);
  if (!buf) return;
  if (strstr(buf, "maximal")) {
    const char *d = strstr(buf, "device=");
    long long dev = d ? strtoll(d + 7, NULL, 10) : 0;
    if (v->o.num_partitions > 0 && dev >= v->o.num_partitions)
      vx_fail(v, in, "device %lld > num_devices (%lld) in maximal sharding %s", dev, (long long)v->o.num_partitions, buf);
    return;
  }
  if (!strstr(buf, "devices=")) return;
  int64_t dims[64];
  int nd = tile_dims(buf, dims, 64);
  if (nd < 0) return;
  int extra = (strstr(buf, "last_tile_dim_replicate") ? 1 : 0) + subgroup_dims(buf);
  if (s->type == HLO_TUPLE || !hlo_type_is_array(s->type)) return;
  if (nd - extra != s->rank) {
    vx_fail(v, in, "Number of tile assignment dimensions (excluding subgroups) is different than the input rank. sharding=%s, input_shape=%s",
            buf, vx_str(v, s));
    return;
  }
  int64_t total = 1;
  for (int i = 0; i < nd && i < 64; i++)
    if (__builtin_mul_overflow(total, dims[i], &total)) return;
  /* explicit device list after ']' unless the iota form "<=[" follows */
  const char *p = strstr(buf, "devices=[");
  p = strchr(p, ']');
  if (!p) return;
  p++;
  if (!strncmp(p, "<=", 2)) {
    if (v->o.num_partitions > 0 && total > v->o.num_partitions)
      vx_fail(v, in, "device %lld > num_devices (%lld) in tile assignment", (long long)(total - 1),
              (long long)v->o.num_partitions);
    return;
  }
  int64_t count = 0;
  while (*p == ' ') p++;
  while ((*p >= '0' && *p <= '9') || *p == '-') {
    char *e;
    long long dev = strtoll(p, &e, 10);
    count++;
    if (v->o.num_partitions > 0 && dev >= v->o.num_partitions) {
      vx_fail(v, in, "device %lld > num_devices (%lld) in tile assignment", dev, (long long)v->o.num_partitions);
      return;
    }
    p = e;
    while (*p == ',' || *p == ' ') p++;
  }
  if (count && count != total)
    vx_fail(v, in, "sharding %s lists %lld devices but its tile assignment has %lld", buf, (long long)count,
            (long long)total);
}

static int count_leaves(const hlo_shape *s) {
  if (s->type != HLO_TUPLE) return 1;
  int n = 0;
  for (int i = 0; i < s->ntuple; i++) n += count_leaves(&s->tuple[i]);
  return n;
}

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
  if (!a || a->kind != HLO_AK_SHARDING || !a->u.sharding.text) return;
  const char *t = a->u.sharding.text;
  size_t n = strlen(t);
  if (strncmp(t, "{{", 2) != 0) {
    check_one(v, in, t, n, &in->shape);
    return;
  }
  /* tuple sharding: split the top-level {...} entries */
  int depth = 0, count = 0;
  const char *start = NULL;
  int leaves = count_leaves(&in->shape);
  for (size_t i = 1; i + 1 < n; i++) {
    if (t[i] == '{') {
      if (depth++ == 0) start = t + i;
    } else if (t[i] == '}' && --depth == 0 && start) {
      int k = count;
      const hlo_shape *s = in->shape.type == HLO_TUPLE ? leaf(&in->shape, &k) : NULL;
      if (s) check_one(v, in, start, (size_t)(t + i + 1 - start), s);
      count++;
    }
  }
  if (in->shape.type == HLO_TUPLE && count != leaves && count != 1)
    vx_fail(v, in, "Tuple sharding has %d elements but the shape %s has %d leaves.", count, vx_str(v, &in->shape),
            leaves);
}
