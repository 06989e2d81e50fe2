/* mesh.c - XLA's device meshes, axis references, mesh-based ("named")
 * shardings and mesh-axes replica groups: the validity rules of Mesh,
 * AxisRef and VerifyNamedSharding, their canonical text (ToString), the
 * tile assignment V3ToV2Sharding derives and the groups
 * flattened_replica_groups derives.  The parser is lib/text/parse_mesh.c. */
#include <stdio.h>
#include <string.h>

#include "ir/mesh.h"

#define FAIL(...) (snprintf(why, cap, __VA_ARGS__), HLO_ERR)

/* ---- meshes --------------------------------------------------------------------- */

/* XLA's CanonicalizeIotaDims: drop dimensions of size 1 and merge runs of
 * dimensions that stay adjacent and in order under the permutation. */
static void canonical_iota(int64_t *dims, int64_t *perm, int *n) {
  for (;;) {
    int k = *n, map[64], nn = 0;
    for (int i = 0; i < k; i++) map[i] = dims[i] == 1 ? -1 : nn++;
    if (nn != k) {
      int np = 0;
      for (int i = 0; i < k; i++) {
        if (map[i] >= 0) dims[map[i]] = dims[i];
        if (map[perm[i]] >= 0) perm[np++] = map[perm[i]];
      }
      k = *n = nn;
    }
    bool changed = false;
    for (int i = 1, base = 0; i < k; i++) {
      if (perm[base] + (i - base) == perm[i]) {
        dims[perm[base]] *= dims[perm[i]];
        dims[perm[i]] = 1;
        changed = true;
      } else {
        base = i;
      }
    }
    if (!changed) return;
  }
}

int hlo_mesh_finish(hlo_mesh *m, char *why, size_t cap) {
  if (m->maximal) {
    m->ndevices = 1;
    return HLO_OK;
  }
  int64_t n = 1;
  for (int i = 0; i < m->naxes; i++) {
    if (m->axis_sizes[i] <= 0) return FAIL("Mesh axis size must be positive; axis '%s' has size %lld", m->axis_names[i], (long long)m->axis_sizes[i]);
    if (__builtin_mul_overflow(n, m->axis_sizes[i], &n)) return FAIL("mesh size overflows int64");
    for (int j = 0; j < i; j++)
      if (!strcmp(m->axis_names[i], m->axis_names[j]))
        return FAIL("Mesh has duplicate axis names. Duplicate axis name: %s", m->axis_names[i]);
  }
  m->ndevices = m->naxes ? n : 0;
  if (m->niota) {
    int k = m->niota;
    if (k > 64) return FAIL("device_ids has %d reshape dimensions; at most 64 are supported", k);
    int64_t prod = 1;
    bool seen[64] = {false};
    for (int i = 0; i < k; i++) {
      if (m->iota_reshape[i] <= 0 || __builtin_mul_overflow(prod, m->iota_reshape[i], &prod))
        return FAIL("device_ids reshape dimensions must be positive and their product must fit int64");
      int64_t p = m->iota_perm[i];
      if (p < 0 || p >= k || seen[p]) return FAIL("device_ids transpose (T(...)) must be a permutation of 0..%d", k - 1);
      seen[p] = true;
    }
    if (prod != m->ndevices)
      return FAIL("device_ids reshape dimensions hold %lld devices, but the mesh has %lld", (long long)prod,
                  (long long)m->ndevices);
    canonical_iota(m->iota_reshape, m->iota_perm, &m->niota);
    if (m->niota <= 1) m->niota = 0; /* plain iota: printed without device_ids */
  }
  if (m->ndevice_ids) {
    /* XLA's Mesh::Validate: a non-identity permutation of 0..n-1 */
    bool identity = true;
    for (int i = 0; i < m->ndevice_ids; i++) {
      int64_t d = m->device_ids[i];
      if (d < 0) return FAIL("Mesh device ids must be non-negative. Device id: %lld", (long long)d);
      identity &= d == i;
    }
    if (identity) return FAIL("Non-iota device assignment has iota device id list [0,1,2,3...].");
    for (int i = 0; i < m->ndevice_ids; i++) {
      int64_t d = m->device_ids[i];
      bool ok = d < m->ndevice_ids;
      for (int j = 0; ok && j < i; j++) ok = m->device_ids[j] != d;
      if (!ok) return FAIL("Device ids must be a permutation of [0,1,2,3...].");
    }
  }
  return HLO_OK;
}

int64_t hlo_mesh_device(const hlo_mesh *m, int64_t i) {
  if (m->maximal) return m->device_id;
  if (m->ndevice_ids) return m->device_ids[i];
  if (!m->niota) return i;
  /* element i of iota(reshape) transposed by perm */
  int k = m->niota;
  int64_t idx[64];
  for (int j = k - 1; j >= 0; j--) {
    int64_t d = m->iota_reshape[m->iota_perm[j]];
    idx[m->iota_perm[j]] = i % d;
    i /= d;
  }
  int64_t v = 0;
  for (int j = 0; j < k; j++) v = v * m->iota_reshape[j] + idx[j];
  return v;
}

/* ---- axis references ---------------------------------------------------------- */

int64_t hlo_axis_ref_size(const hlo_mesh *m, const hlo_axis_ref *r) {
  return r->pre ? r->size : m->axis_sizes[r->axis];
}
static int64_t pre_of(const hlo_axis_ref *r) { return r->pre ? r->pre : 1; }
static int64_t next_of(const hlo_mesh *m, const hlo_axis_ref *r) {
  return r->pre ? r->pre * r->size : m->axis_sizes[r->axis];
}

/* AxisRef::operator< */
static bool axis_less(const hlo_axis_ref *a, const hlo_axis_ref *b) {
  if (a->axis != b->axis) return a->axis < b->axis;
  if (!a->pre) return pre_of(b) > 1;
  if (!b->pre) return a->pre == 1;
  if (a->pre != b->pre) return a->pre < b->pre;
  return a->size < b->size;
}

static bool can_merge(const hlo_axis_ref *a, const hlo_axis_ref *b) {
  return a->axis == b->axis && a->pre && b->pre && a->pre * a->size == b->pre;
}

static bool coexist_without_overlap(const hlo_mesh *m, const hlo_axis_ref *a, const hlo_axis_ref *b) {
  if (a->axis != b->axis) return true;
  if (!a->pre || !b->pre) return false;
  int64_t an = next_of(m, a), bn = next_of(m, b);
  if (an > b->pre && bn > a->pre) return false;
  int64_t max_pre = a->pre > b->pre ? a->pre : b->pre, min_next = an < bn ? an : bn;
  return max_pre % min_next == 0;
}

static int axis_text(char *out, size_t n, const hlo_mesh *m, const hlo_axis_ref *r) {
  if (r->pre) return snprintf(out, n, "'%s':(%lld)%lld", m->axis_names[r->axis], (long long)r->pre, (long long)r->size);
  return snprintf(out, n, "'%s'", m->axis_names[r->axis]);
}

/* AxisRef::Validate; sub-axis sizes were checked when parsed. */
static int axis_validate(const hlo_mesh *m, const hlo_axis_ref *r, char *why, size_t cap) {
  if (r->axis < 0 || r->axis >= m->naxes)
    return FAIL("Axis index must be less than number of axes. Axis index: %d, Number of axes: %d", r->axis, m->naxes);
  if (!r->pre) return HLO_OK;
  int64_t full = m->axis_sizes[r->axis], next;
  if (__builtin_mul_overflow(r->pre, r->size, &next) || full % next != 0)
    return FAIL("Sub-axis next_pre_size must divide the full axis size. Next pre-size: %lld, Axis size: %lld",
                (long long)r->pre * r->size, (long long)full);
  if (r->size >= full)
    return FAIL("Sub-axis size must be strictly less than the full axis size. Sub-axis size: %lld, Axis size: %lld",
                (long long)r->size, (long long)full);
  return HLO_OK;
}

static int merge_fail(const hlo_mesh *m, const char *where, const hlo_axis_ref *a, const hlo_axis_ref *b, char *why,
                      size_t cap) {
  char x[256], y[256];
  axis_text(x, sizeof x, m, a);
  axis_text(y, sizeof y, m, b);
  return FAIL("Adjacent axes in %s can be merged: %s, %s", where, x, y);
}

/* Validate the axes of list l (VerifyAndTrack) against those seen before,
 * which are appended to seen; merge-able neighbours are an error. */
static int track(const hlo_mesh *m, const hlo_axis_list *l, const char *where, hlo_axis_ref *seen, int *nseen,
                 char *why, size_t cap) {
  for (int i = 0; i < l->n; i++) {
    if (axis_validate(m, &l->v[i], why, cap)) return HLO_ERR;
    for (int j = 0; j < *nseen; j++)
      if (!coexist_without_overlap(m, &l->v[i], &seen[j])) return FAIL("Axes cannot coexist or axes overlap.");
    seen[(*nseen)++] = l->v[i];
    if (i && can_merge(&l->v[i - 1], &l->v[i])) return merge_fail(m, where, &l->v[i - 1], &l->v[i], why, cap);
  }
  return HLO_OK;
}

int hlo_named_sharding_check(const hlo_named_sharding *ns, char *why, size_t cap) {
  const hlo_mesh *m = &ns->mesh;
  int total = ns->replicated.n + ns->unreduced.n + ns->manual.n;
  for (int d = 0; d < ns->ndims; d++) total += ns->dims[d].axes.n;
  hlo_axis_ref seen[512];
  if (total > 512) return FAIL("a named sharding may name at most 512 axes; this one names %d", total);
  int nseen = 0, rc = HLO_OK;
  for (int d = 0; !rc && d < ns->ndims; d++) rc = track(m, &ns->dims[d].axes, "dimension sharding", seen, &nseen, why, cap);
  const hlo_axis_list *lists[3] = {&ns->replicated, &ns->unreduced, &ns->manual};
  static const char *const names[3] = {"Replicated", "Unreduced", "Manual"};
  for (int k = 0; !rc && k < 3; k++) {
    for (int i = 1; !rc && i < lists[k]->n; i++)
      if (axis_less(&lists[k]->v[i], &lists[k]->v[i - 1]))
        rc = FAIL("%s axes must be sorted by mesh axis index and sub-axis pre-size.", names[k]);
    char where[32];
    snprintf(where, sizeof where, "%s axes", names[k]);
    if (!rc) rc = track(m, lists[k], where, seen, &nseen, why, cap);
  }
  return rc;
}

int hlo_mesh_axes_check(const hlo_mesh *m, const hlo_axis_list *axes, char *why, size_t cap) {
  for (int i = 0; i < axes->n; i++)
    if (axis_validate(m, &axes->v[i], why, cap)) return HLO_ERR;
  for (int i = 0; i < axes->n; i++)
    for (int j = i + 1; j < axes->n; j++)
      if (!coexist_without_overlap(m, &axes->v[i], &axes->v[j])) return FAIL("Axes cannot coexist or axes overlap.");
  for (int i = 1; i < axes->n; i++)
    if (can_merge(&axes->v[i - 1], &axes->v[i]))
      return merge_fail(m, "dimension sharding", &axes->v[i - 1], &axes->v[i], why, cap);
  return HLO_OK;
}

/* ---- predicates ------------------------------------------------------------------- */

/* Mesh::ContainsAllMeshAxesInOrder */
static bool all_axes_in_order(const hlo_mesh *m, const hlo_axis_list *l) {
  int k = 0;
  for (int i = 0; i < m->naxes; i++) {
    if (k < l->n && l->v[k].axis == i) {
      if (l->v[k].pre) return false;
      k++;
    } else if (m->axis_sizes[i] != 1) {
      return false;
    }
  }
  return k == l->n;
}

bool hlo_named_is_replicated(const hlo_named_sharding *ns) {
  if (ns->mesh.maximal || ns->unreduced.n || ns->manual.n) return false;
  for (int d = 0; d < ns->ndims; d++)
    for (int i = 0; i < ns->dims[d].axes.n; i++)
      if (hlo_axis_ref_size(&ns->mesh, &ns->dims[d].axes.v[i]) != 1) return false;
  return true;
}
bool hlo_named_is_manual(const hlo_named_sharding *ns) {
  return ns->manual.n && all_axes_in_order(&ns->mesh, &ns->manual);
}
bool hlo_named_is_unreduced(const hlo_named_sharding *ns) {
  return ns->unreduced.n && all_axes_in_order(&ns->mesh, &ns->unreduced);
}

/* ---- text ------------------------------------------------------------------------- */

static void put_axis(hlo_buf *b, const hlo_mesh *m, const hlo_axis_ref *r) {
  hlo_buf_putc(b, '\'');
  hlo_buf_puts(b, m->axis_names[r->axis]);
  hlo_buf_putc(b, '\'');
  if (r->pre) hlo_buf_printf(b, ":(%lld)%lld", (long long)r->pre, (long long)r->size);
}

static void put_axes(hlo_buf *b, const hlo_mesh *m, const hlo_axis_list *l, const char *sep) {
  hlo_buf_putc(b, '{');
  for (int i = 0; i < l->n; i++) {
    if (i) hlo_buf_puts(b, sep);
    put_axis(b, m, &l->v[i]);
  }
  hlo_buf_putc(b, '}');
}

void hlo_mesh_print(hlo_buf *b, const hlo_mesh *m) {
  if (m->maximal) {
    hlo_buf_printf(b, "maximal_mesh[device_id=%lld]", (long long)m->device_id);
    return;
  }
  hlo_buf_puts(b, "mesh[");
  for (int i = 0; i < m->naxes; i++)
    hlo_buf_printf(b, "%s'%s'=%lld", i ? "," : "", m->axis_names[i], (long long)m->axis_sizes[i]);
  hlo_buf_putc(b, ']');
  if (m->ndevice_ids) {
    hlo_buf_puts(b, ", device_ids=(");
    for (int i = 0; i < m->ndevice_ids; i++) hlo_buf_printf(b, "%s%lld", i ? "," : "", (long long)m->device_ids[i]);
    hlo_buf_putc(b, ')');
  } else if (m->niota) {
    hlo_buf_puts(b, ", device_ids=([");
    for (int i = 0; i < m->niota; i++) hlo_buf_printf(b, "%s%lld", i ? "," : "", (long long)m->iota_reshape[i]);
    hlo_buf_puts(b, "]T(");
    for (int i = 0; i < m->niota; i++) hlo_buf_printf(b, "%s%lld", i ? "," : "", (long long)m->iota_perm[i]);
    hlo_buf_puts(b, "))");
  }
}

/* ", metadata={{...}, ...}": a single {op_name=...} is a list of one */
static void put_metadata(hlo_buf *b, const char *md) {
  if (!md) return;
  const char *p = md + 1;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  if (*p == '}') return; /* empty list */
  hlo_buf_puts(b, ", metadata=");
  if (*p == '{') {
    hlo_buf_puts(b, md);
  } else {
    hlo_buf_putc(b, '{');
    hlo_buf_puts(b, md);
    hlo_buf_putc(b, '}');
  }
}

static const char *const REDUCTION[] = {"sum", "max", "min"};

/* NamedSharding::ToString(include_metadata=true) */
void hlo_named_sharding_print(hlo_buf *b, const hlo_named_sharding *ns) {
  const hlo_mesh *m = &ns->mesh;
  hlo_buf_putc(b, '{');
  hlo_mesh_print(b, m);
  if (m->maximal) {
    /* the whole sharding is the mesh */
  } else if (hlo_named_is_replicated(ns) && ns->ndims == 0 && ns->replicated.n == 0) {
    hlo_buf_puts(b, ", replicated");
  } else if (hlo_named_is_unreduced(ns) && ns->ndims == 0) {
    hlo_buf_puts(b, ", unreduced");
    if (ns->reduction != HLO_REDUCE_SUM) hlo_buf_printf(b, "=%s", REDUCTION[ns->reduction]);
    if (ns->unreduced.n < m->naxes) put_axes(b, m, &ns->unreduced, ", ");
  } else if (hlo_named_is_manual(ns) && ns->ndims == 0) {
    hlo_buf_puts(b, ", manual");
  } else {
    hlo_buf_puts(b, ", [");
    for (int d = 0; d < ns->ndims; d++) {
      const hlo_dim_sharding *ds = &ns->dims[d];
      if (d) hlo_buf_puts(b, ", ");
      hlo_buf_putc(b, '{');
      for (int i = 0; i < ds->axes.n; i++) {
        if (i) hlo_buf_puts(b, ", ");
        put_axis(b, m, &ds->axes.v[i]);
      }
      if (ds->open) hlo_buf_puts(b, ds->axes.n ? ", ?" : "?");
      hlo_buf_putc(b, '}');
    }
    hlo_buf_putc(b, ']');
    if (ns->replicated.n) {
      hlo_buf_puts(b, ", replicated=");
      put_axes(b, m, &ns->replicated, ", ");
    }
    if (ns->unreduced.n) {
      hlo_buf_puts(b, ", unreduced=");
      if (ns->reduction != HLO_REDUCE_SUM) hlo_buf_puts(b, REDUCTION[ns->reduction]);
      put_axes(b, m, &ns->unreduced, ", ");
    }
    if (ns->manual.n) {
      hlo_buf_puts(b, ", manual=");
      put_axes(b, m, &ns->manual, ", ");
    }
  }
  put_metadata(b, ns->metadata);
  hlo_buf_putc(b, '}');
}

void hlo_mesh_groups_print(hlo_buf *b, const hlo_mesh_groups *g) {
  hlo_mesh_print(b, &g->mesh);
  hlo_buf_putc(b, ' ');
  put_axes(b, &g->mesh, &g->axes, ",");
}

/* ---- derived explicit forms ------------------------------------------------------- */

/* The mesh split into pieces: each axis cut at the sub-axis boundaries of
 * the references given (GetOrderedAxisRefs); pieces in axis order, major
 * part first, so their row-major order is the mesh's. */
typedef struct pieces {
  int n;
  int64_t size[128];
  int axis[128];
  int64_t pre[128];
} pieces;

static int cut(const hlo_mesh *m, const hlo_axis_list *const *lists, int nlists, pieces *p) {
  p->n = 0;
  for (int a = 0; a < m->naxes; a++) {
    int64_t cuts[130];
    int nc = 0;
    cuts[nc++] = 1;
    cuts[nc++] = m->axis_sizes[a];
    for (int k = 0; k < nlists; k++)
      for (int i = 0; i < lists[k]->n; i++) {
        const hlo_axis_ref *r = &lists[k]->v[i];
        if (r->axis != a || !r->pre) continue;
        if (nc + 2 > 130) return HLO_ERR;
        cuts[nc++] = r->pre;
        cuts[nc++] = r->pre * r->size;
      }
    for (int i = 1; i < nc; i++) /* sort, few entries */
      for (int j = i; j > 0 && cuts[j] < cuts[j - 1]; j--) {
        int64_t t = cuts[j];
        cuts[j] = cuts[j - 1];
        cuts[j - 1] = t;
      }
    for (int i = 0; i + 1 < nc; i++) {
      if (cuts[i + 1] == cuts[i]) continue;
      if (p->n >= 128) return HLO_ERR;
      p->axis[p->n] = a;
      p->pre[p->n] = cuts[i];
      p->size[p->n] = cuts[i + 1] / cuts[i];
      p->n++;
    }
    if (m->axis_sizes[a] == 1) { /* an axis of size 1 is one piece too */
      if (p->n >= 128) return HLO_ERR;
      p->axis[p->n] = a;
      p->pre[p->n] = 1;
      p->size[p->n] = 1;
      p->n++;
    }
  }
  return HLO_OK;
}

/* The piece an axis reference names (-1 if none). */
static int piece_of(const hlo_mesh *m, const pieces *p, const hlo_axis_ref *r) {
  for (int i = 0; i < p->n; i++)
    if (p->axis[i] == r->axis && p->pre[i] == pre_of(r) && p->size[i] == hlo_axis_ref_size(m, r)) return i;
  return -1;
}

/* The devices of the mesh with its pieces transposed to order perm:
 * out[i] for row-major position i of the transposed array. */
static void transposed_devices(const hlo_mesh *m, const pieces *p, const int *perm, int64_t *out) {
  int64_t idx[128] = {0}, stride[128];
  int64_t s = 1;
  for (int i = p->n - 1; i >= 0; i--) {
    stride[i] = s;
    s *= p->size[i];
  }
  for (int64_t k = 0; k < m->ndevices; k++) {
    int64_t flat = 0;
    for (int j = 0; j < p->n; j++) flat += idx[j] * stride[perm[j]];
    out[k] = hlo_mesh_device(m, flat);
    for (int j = p->n - 1; j >= 0; j--) {
      if (++idx[j] < p->size[perm[j]]) break;
      idx[j] = 0;
    }
  }
}

int hlo_named_sharding_tiling(hlo_arena *a, hlo_sharding *s) {
  const hlo_named_sharding *ns = s->named;
  const hlo_mesh *m = &ns->mesh;
  if (m->maximal) {
    s->kind = HLO_SHARD_MAXIMAL;
    s->device = m->device_id;
    return HLO_OK;
  }
  if (hlo_named_is_replicated(ns)) {
    s->kind = HLO_SHARD_REPLICATED;
    return HLO_OK;
  }
  if (hlo_named_is_manual(ns)) {
    s->kind = HLO_SHARD_MANUAL;
    return HLO_OK;
  }
  s->kind = hlo_named_is_unreduced(ns) && ns->ndims == 0 ? HLO_SHARD_OTHER : HLO_SHARD_TILED;
  if (s->kind != HLO_SHARD_TILED || m->ndevices > HLO_MESH_MAX_EXPAND) return HLO_OK;
  int nl = 0;
  const hlo_axis_list *lists[4 + 256];
  if (ns->ndims > 256) return HLO_OK;
  for (int d = 0; d < ns->ndims; d++) lists[nl++] = &ns->dims[d].axes;
  lists[nl++] = &ns->manual;
  lists[nl++] = &ns->unreduced;
  lists[nl++] = &ns->replicated;
  pieces p;
  if (cut(m, lists, nl, &p)) return HLO_OK;
  /* sharded pieces in dimension order, then manual, unreduced, the rest */
  int perm[128], np = 0;
  bool used[128] = {false};
  int64_t *tile = hlo_arena_array(a, (size_t)ns->ndims + 4, sizeof *tile);
  const char **types = hlo_arena_array(a, 3, sizeof *types);
  if (!tile || !types) return HLO_ERR;
  int nt = 0, ntypes = 0;
  for (int k = 0; k < nl - 1; k++) {
    int64_t prod = 1;
    for (int i = 0; i < lists[k]->n; i++) {
      int j = piece_of(m, &p, &lists[k]->v[i]);
      if (j < 0 || used[j]) return HLO_OK; /* invalid; the parser said so */
      used[j] = true;
      perm[np++] = j;
      prod *= p.size[j];
    }
    if (k < ns->ndims) {
      tile[nt++] = prod;
    } else if (lists[k]->n) {
      tile[nt++] = prod;
      types[ntypes++] = k == ns->ndims ? "manual" : "unreduced";
    }
  }
  int64_t rep = 1;
  for (int j = 0; j < p.n; j++)
    if (!used[j]) {
      perm[np++] = j;
      rep *= p.size[j];
    }
  if (rep > 1) {
    tile[nt++] = rep;
    types[ntypes++] = "replicated";
  }
  int64_t *dev = hlo_arena_array(a, (size_t)m->ndevices, sizeof *dev);
  if (!dev) return HLO_ERR;
  transposed_devices(m, &p, perm, dev);
  s->ntile = nt;
  s->tile = tile;
  s->ndevices = (int)m->ndevices;
  s->devices = dev;
  if (ntypes == 1 && !strcmp(types[0], "replicated")) {
    s->last_tile_dim_replicate = true;
  } else if (ntypes) {
    s->nlast_tile_dims = ntypes;
    s->last_tile_dims = types;
  }
  return HLO_OK;
}

int hlo_mesh_groups_expand(hlo_arena *a, hlo_replica_groups *g, char *why, size_t cap) {
  const hlo_mesh *m = &g->mesh->mesh;
  const hlo_axis_list *axes = &g->mesh->axes;
  if (m->ndevices > HLO_MESH_MAX_EXPAND)
    return FAIL("a mesh of %lld devices is more than the %lld that replica groups expand to", (long long)m->ndevices,
                (long long)HLO_MESH_MAX_EXPAND);
  g->ngroups = 0;
  if (m->ndevices == 0) return HLO_OK; /* empty mesh: no groups */
  pieces p;
  int perm[128], np = 0;
  bool used[128] = {false};
  if (m->maximal) {
    p.n = 0;
  } else if (cut(m, &axes, 1, &p)) {
    return FAIL("too many mesh axes and sub-axes");
  }
  int64_t size = 1;
  int grouped[128], ng = 0;
  for (int i = 0; i < axes->n; i++) {
    int j = piece_of(m, &p, &axes->v[i]);
    if (j < 0 || used[j]) return FAIL("invalid mesh axes");
    used[j] = true;
    grouped[ng++] = j;
    size *= p.size[j];
  }
  for (int j = 0; j < p.n; j++)
    if (!used[j]) perm[np++] = j;
  for (int i = 0; i < ng; i++) perm[np++] = grouped[i];
  int64_t *dev = hlo_arena_array(a, (size_t)m->ndevices, sizeof *dev);
  int64_t n = m->ndevices / size;
  int64_t **groups = hlo_arena_array(a, (size_t)n, sizeof *groups);
  int *sizes = hlo_arena_array(a, (size_t)n, sizeof *sizes);
  if (!dev || !groups || !sizes) return FAIL("out of memory");
  if (m->maximal) dev[0] = m->device_id;
  else transposed_devices(m, &p, perm, dev);
  for (int64_t i = 0; i < n; i++) {
    groups[i] = dev + i * size;
    sizes[i] = (int)size;
  }
  g->ngroups = (int)n;
  g->groups = groups;
  g->group_sizes = sizes;
  return HLO_OK;
}
