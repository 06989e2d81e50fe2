/* ccall_sdy.c - Shardy's shard_map boundary calls, xla.sdy.GlobalToLocalShape
 * and xla.sdy.LocalToGlobalShape, with the shape change a manual axis of
 * more than one device makes.  It reads the Shardy strings of the round trip
 * (xla/service/spmd/shardy/sdy_round_trip/shard_map_export.cc): the mesh,
 * inline (`mesh<["a"=4, "b"=2]>`) or named (`@mesh`, from the module's
 * `xla.sdy.meshes` frontend attribute), the per-value shardings
 * (`xla.sdy.in_shardings` / `out_shardings`) and `xla.sdy.manual_axes`.
 * Global to local returns this partition's tile of each operand; local to
 * global places each tile at this partition's offset in zeros, as
 * SPMDShardToFullShape does (ccall_misc.c). */
#include <stdlib.h>
#include <string.h>

#include "exec/ccall.h"
#include "exec/comm.h"

#define SDY_NAME 64
#define SDY_AXES 16
#define SDY_REFS 8

typedef struct sdy_axis {
  char name[SDY_NAME];
  int64_t size;
} sdy_axis;

typedef struct sdy_mesh {
  int naxes;
  sdy_axis ax[SDY_AXES];
  int ndev; /* 0: devices in iota order */
  int64_t *dev;
} sdy_mesh;

typedef struct sdy_ref { /* an axis, or its sub-axis "a":(pre)size */
  char axis[SDY_NAME];
  int64_t pre, size; /* size 0: the whole axis */
} sdy_ref;

typedef struct sdy_dim {
  int nrefs;
  sdy_ref ref[SDY_REFS];
} sdy_dim;

/* A tiny scanner over one attribute string. */
typedef struct scan {
  const char *p;
  hlo_arena *A;
  const char *err;
} scan;

static void ws(scan *s) {
  while (*s->p == ' ' || *s->p == '\n' || *s->p == '\t') s->p++;
}

static bool eat(scan *s, const char *lit) {
  ws(s);
  size_t n = strlen(lit);
  if (strncmp(s->p, lit, n)) return false;
  s->p += n;
  return true;
}

static bool need(scan *s, const char *lit) {
  if (eat(s, lit)) return true;
  if (!s->err) s->err = "unexpected text";
  return false;
}

static bool word(scan *s, char *out) { /* "quoted" or a bare identifier */
  ws(s);
  size_t n = 0;
  if (*s->p == '"') {
    s->p++;
    while (*s->p && *s->p != '"' && n + 1 < SDY_NAME) out[n++] = *s->p++;
    if (*s->p != '"') return s->err = "bad axis or mesh name", false;
    s->p++;
  } else {
    while ((*s->p >= 'a' && *s->p <= 'z') || (*s->p >= 'A' && *s->p <= 'Z') || (*s->p >= '0' && *s->p <= '9') ||
           *s->p == '_' || *s->p == '.' || *s->p == '$' || *s->p == '-') {
      if (n + 1 >= SDY_NAME) return s->err = "name too long", false;
      out[n++] = *s->p++;
    }
    if (!n) return s->err = "expected a name", false;
  }
  out[n] = 0;
  return true;
}

static bool num(scan *s, int64_t *v) {
  ws(s);
  if (*s->p < '0' || *s->p > '9') return s->err = "expected a number", false;
  int64_t x = 0;
  while (*s->p >= '0' && *s->p <= '9') {
    if (x > (INT64_MAX - 9) / 10) return s->err = "number too large", false;
    x = x * 10 + (*s->p++ - '0');
  }
  *v = x;
  return true;
}

/* <["a"=4, "b"=2], device_ids=[...]> */
static bool mesh_body(scan *s, sdy_mesh *m) {
  memset(m, 0, sizeof *m);
  if (!need(s, "<") || !need(s, "[")) return false;
  while (!eat(s, "]")) {
    if (m->naxes && !need(s, ",")) return false;
    if (m->naxes == SDY_AXES) return s->err = "too many mesh axes", false;
    sdy_axis *a = &m->ax[m->naxes++];
    if (!word(s, a->name) || !need(s, "=") || !num(s, &a->size)) return false;
    if (a->size < 1 || a->size > (1 << 20)) return s->err = "bad mesh axis size", false;
  }
  if (eat(s, ",")) {
    if (!need(s, "device_ids") || !need(s, "=") || !need(s, "[")) return false;
    int cap = 1;
    for (const char *q = s->p; *q && *q != ']'; q++) cap += *q == ',';
    m->dev = hlo_arena_array(s->A, (size_t)cap, sizeof *m->dev);
    if (!m->dev) return s->err = "out of memory", false;
    while (!eat(s, "]")) {
      if (m->ndev && !need(s, ",")) return false;
      if (m->ndev == cap) return s->err = "bad device_ids", false;
      if (!num(s, &m->dev[m->ndev])) return false;
      m->ndev++;
    }
  }
  return need(s, ">");
}

/* The mesh `name` in the module's `xla.sdy.meshes` dictionary text. */
static bool named_mesh(scan *s, const char *dict, const char *name, sdy_mesh *m) {
  if (!dict) return s->err = "the module has no xla.sdy.meshes frontend attribute", false;
  scan d = {dict, s->A, NULL};
  if (!need(&d, "{")) return s->err = "bad xla.sdy.meshes", false;
  while (!eat(&d, "}")) {
    char key[SDY_NAME];
    eat(&d, ",");
    if (!word(&d, key) || !need(&d, "=") || !need(&d, "#sdy.mesh")) return s->err = "bad xla.sdy.meshes", false;
    if (!mesh_body(&d, m)) return s->err = d.err ? d.err : "bad mesh", false;
    if (!strcmp(key, name)) return true;
  }
  return s->err = "mesh not in xla.sdy.meshes", false;
}

/* <@mesh, [{"a"}, {"b":(1)2, ?}], replicated={"c"}> for a value of rank n */
static bool sharding(scan *s, const char *meshes, sdy_mesh *m, sdy_dim *dims, int rank) {
  if (!need(s, "<")) return false;
  if (eat(s, "@")) {
    char name[SDY_NAME];
    if (!word(s, name) || !named_mesh(s, meshes, name, m)) return false;
  } else if (!need(s, "mesh") || !mesh_body(s, m)) {
    return false;
  }
  if (!need(s, ",") || !need(s, "[")) return false;
  int d = 0;
  while (!eat(s, "]")) {
    if (d && !need(s, ",")) return false;
    if (d >= rank) return s->err = "more dimension shardings than the value's rank", false;
    sdy_dim *dd = &dims[d++];
    dd->nrefs = 0;
    if (!need(s, "{")) return false;
    for (bool first = true; !eat(s, "}"); first = false) {
      if (!first && !need(s, ",")) return false;
      if (eat(s, "?")) continue; /* an open dimension */
      if (dd->nrefs == SDY_REFS) return s->err = "too many axes in a dimension", false;
      sdy_ref *r = &dd->ref[dd->nrefs++];
      r->pre = 1, r->size = 0;
      if (!word(s, r->axis)) return false;
      if (eat(s, ":") && (!need(s, "(") || !num(s, &r->pre) || !need(s, ")") || !num(s, &r->size)))
        return false;
    }
    if (eat(s, "p")) { /* priority */
      int64_t pr;
      if (!num(s, &pr)) return false;
    }
  }
  if (d != rank) return s->err = "fewer dimension shardings than the value's rank", false;
  while (eat(s, ",")) { /* replicated={...}, unreduced={...} say nothing of tiles */
    char key[SDY_NAME];
    if (!word(s, key) || !need(s, "=") || !need(s, "{")) return false;
    while (*s->p && *s->p != '}') s->p++;
    if (!need(s, "}")) return false;
  }
  return need(s, ">");
}

/* The value of key in a frontend_attributes text: a quoted string
 * (unescaped) or a {...} group, copied into the arena; NULL if absent. */
static const char *fa_value(hlo_arena *A, const char *raw, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = raw ? strstr(raw, key) : NULL; p; p = strstr(p + 1, key)) {
    if (p > raw && p[-1] != '{' && p[-1] != ',' && p[-1] != ' ' && p[-1] != '"') continue;
    const char *q = p + kl;
    if (*q == '"') q++;
    while (*q == ' ') q++;
    if (*q++ != '=') continue;
    while (*q == ' ') q++;
    size_t n = strlen(q);
    char *out = hlo_arena_alloc(A, n + 1);
    if (!out) return NULL;
    size_t k = 0;
    if (*q == '"') {
      for (q++; *q && *q != '"'; q++) out[k++] = *q == '\\' && q[1] ? *++q : *q;
    } else if (*q == '{') {
      int depth = 0;
      bool quoted = false;
      for (; *q; q++) {
        out[k++] = *q;
        if (*q == '\\' && q[1]) out[k++] = *++q;
        else if (*q == '"') quoted = !quoted;
        else if (!quoted && *q == '{') depth++;
        else if (!quoted && *q == '}' && --depth == 0) break;
      }
    } else {
      return NULL;
    }
    out[k] = 0;
    return out;
  }
  return NULL;
}

/* The offset in the global value of device self's tile of a value
 * sharded by dims over mesh m (only the manual axes split it here). */
static int tile_offset(hlo_exec *e, const hlo_instruction *in, const char *t, int k, const sdy_mesh *m,
                       const sdy_dim *dims, char (*man)[SDY_NAME], int nman, const hlo_shape *global,
                       const hlo_shape *local, int64_t self, int64_t *off) {
  int64_t pos = self, total = 1, coord[SDY_AXES];
  for (int a = 0; a < m->naxes; a++) total *= m->ax[a].size;
  if (m->ndev) {
    pos = -1;
    for (int i = 0; i < m->ndev; i++)
      if (m->dev[i] == self) pos = i;
  }
  if (pos < 0 || pos >= total)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: partition %lld is not a device of the mesh of %s value %d",
                        in->name, (long long)self, t, k);
  for (int a = m->naxes - 1; a >= 0; a--) {
    coord[a] = pos % m->ax[a].size;
    pos /= m->ax[a].size;
  }
  for (int d = 0; d < global->rank; d++) {
    int64_t idx = 0, parts = 1;
    for (int j = 0; j < dims[d].nrefs; j++) {
      const sdy_ref *rf = &dims[d].ref[j];
      bool is_manual = false;
      for (int i = 0; i < nman; i++) is_manual |= !strcmp(man[i], rf->axis);
      if (!is_manual) continue; /* free axes split the value later, not here */
      int a = 0;
      while (a < m->naxes && strcmp(m->ax[a].name, rf->axis)) a++;
      if (a == m->naxes)
        return HLO_PLAN_ERR(e, in, "instruction %%%s: axis \"%s\" of %s value %d is not in its mesh", in->name,
                            rf->axis, t, k);
      int64_t size = rf->size ? rf->size : m->ax[a].size;
      if (rf->pre < 1 || size < 1 || m->ax[a].size % (rf->pre * size))
        return HLO_PLAN_ERR(e, in, "instruction %%%s: sub-axis \"%s\":(%lld)%lld does not divide its axis",
                            in->name, rf->axis, (long long)rf->pre, (long long)size);
      idx = idx * size + (coord[a] / rf->pre) % size;
      parts *= size;
    }
    int64_t per = (global->dims[d] + parts - 1) / parts;
    if (local->dims[d] != per)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: dimension %d of %s value %d is %lld locally, but its "
                          "manual axes split %lld into %lld parts of %lld", in->name, d, t, k,
                          (long long)local->dims[d], (long long)global->dims[d], (long long)parts,
                          (long long)per);
    off[d] = idx * per;
  }
  return HLO_OK;
}

typedef struct sdy_p {
  int n; /* operand/result pairs */
  int64_t (*off)[MAXR];
} sdy_p;

static DECL_KERN(sdy_to_local) {
  const sdy_p *p = s->p;
  hlo_val *o = hlo_run_new(r, &s->in->shape);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  for (int k = 0; k < p->n; k++) {
    hlo_val *dst = hlo_shape_is_tuple(&s->in->shape) ? o->tuple[k] : o;
    const hlo_val *src = args[k];
    if (!hlo_shape_is_array(dst->shape) || !hlo_shape_is_array(src->shape)) continue;
    hlo_ccall_tile_copy(src->shape, dst->shape, p->off[k], false, dst->data, src->data);
  }
  *out = o;
  return HLO_OK;
}

static DECL_KERN(sdy_to_global) { return hlo_ccall_tiles_gather(r, s, s->p, args, out); }

int hlo_ccall_prep_sdy_shape(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  bool to_global = strcmp(t, "xla.sdy.LocalToGlobalShape") == 0;
  int n = in->noperands;
  bool tuple = hlo_shape_is_tuple(&in->shape);
  if (n == 1 && hlo_shape_compatible(&in->operands[0]->shape, &in->shape)) {
    s->fn = hlo_ctl_forward0;
    s->kname = "hlo_ctl_forward0";
    return HLO_OK;
  }
  if (tuple ? in->shape.ntuple != n : n != 1)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s must have one result per operand (%d operands)", in->name,
                        t, n);
  hlo_arena *A = &e->arena;
  const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
  const hlo_attr *ma = e->m ? hlo_module_attr(e->m, HLO_A_FRONTEND_ATTRIBUTES) : NULL;
  const char *raw = fa && fa->kind == HLO_AK_RAW ? fa->u.s : NULL;
  const char *key = to_global ? "xla.sdy.out_shardings" : "xla.sdy.in_shardings";
  const char *shs = fa_value(A, raw, key), *manual = fa_value(A, raw, "xla.sdy.manual_axes");
  const char *meshes = ma && ma->kind == HLO_AK_RAW ? fa_value(A, ma->u.s, "xla.sdy.meshes") : NULL;
  if (!shs || !manual)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s changes the shape, but its frontend_attributes have no %s "
                        "to say how", in->name, t, !shs ? key : "xla.sdy.manual_axes");
  /* manual axes */
  char man[SDY_AXES][SDY_NAME];
  int nman = 0;
  scan ms = {manual, A, NULL};
  if (!need(&ms, "#sdy<manual_axes{")) goto bad_manual;
  while (!eat(&ms, "}")) {
    if (nman && !need(&ms, ",")) goto bad_manual;
    if (nman == SDY_AXES || !word(&ms, man[nman++])) goto bad_manual;
  }
  if (n > HLO_RDV_MAX_VALS)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: %s with more than %d operands is not supported", in->name, t,
                        HLO_RDV_MAX_VALS);
  sdy_p *p = hlo_arena_alloc(A, sizeof *p);
  hlo_ccall_tiles *g = hlo_arena_alloc(A, sizeof *g);
  if (!p || !g || !(p->off = hlo_arena_array(A, (size_t)n + 1, sizeof *p->off)) ||
      (to_global && hlo_ccall_tiles_plan(e, g, n)))
    return HLO_PLAN_ERR(e, in, "out of memory");
  p->n = n;
  int64_t self = e->opts.comm ? e->opts.device % hlo_comm_partitions(e->opts.comm) : e->opts.partition_id;
  scan ss = {shs, A, NULL};
  if (!need(&ss, "#sdy.sharding_per_value") || !need(&ss, "<") || !need(&ss, "[")) goto bad_sharding;
  for (int k = 0; k < n; k++) {
    const hlo_shape *os = &in->operands[k]->shape, *rs = tuple ? &in->shape.tuple[k] : &in->shape;
    const hlo_shape *global = to_global ? rs : os, *local = to_global ? os : rs;
    if (k && !need(&ss, ",")) goto bad_sharding;
    sdy_mesh m;
    sdy_dim dims[MAXR];
    int rank = hlo_shape_is_array(global) ? global->rank : 0;
    if (!sharding(&ss, meshes, &m, dims, rank)) goto bad_sharding;
    memset(p->off[k], 0, sizeof p->off[k]);
    if (!hlo_shape_is_array(global)) continue;
    if (!hlo_shape_is_array(local) || local->rank != global->rank || local->type != global->type)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: %s value %d: the local and global shapes differ in "
                          "more than dimension sizes", in->name, t, k);
    if (!to_global) {
      if (tile_offset(e, in, t, k, &m, dims, man, nman, global, local, self, p->off[k])) return HLO_ERR;
      continue;
    }
    /* local to global: every partition's tile, to gather them (one
     * partition alone: its own) */
    for (int q = 0; q < g->n; q++) {
      int64_t dev = g->n > 1 ? q : self;
      if (tile_offset(e, in, t, k, &m, dims, man, nman, global, local, dev, g->off[(size_t)q * (size_t)n + (size_t)k]))
        return HLO_ERR;
    }
  }
  s->fn = to_global ? sdy_to_global : sdy_to_local;
  s->kname = to_global ? "sdy_to_global" : "sdy_to_local";
  s->p = to_global ? (void *)g : (void *)p;
  return HLO_OK;
bad_manual:
  return HLO_PLAN_ERR(e, in, "instruction %%%s: cannot read xla.sdy.manual_axes \"%s\"", in->name, manual);
bad_sharding:
  return HLO_PLAN_ERR(e, in, "instruction %%%s: cannot read %s \"%s\" near \"%.20s\": %s", in->name, key, shs,
                      ss.p, ss.err ? ss.err : "unexpected text");
}
