/* json_read.c - the JSON of docs/json.md back into hlo_modules.  Checks
 * the structure (types, known opcodes and kinds, resolvable names, sizes
 * that agree) and reports every problem with the JSON path and, where the
 * offending text can be found, its position in the source. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/json_names.h"
#include "hlo/hlo_json.h"
#include "hlo/hlo_text.h"

#define MAX_RANK 4096
#define MAX_DEPTH 256 /* as the text parser, so whatever parses reads back */

/* ---- a small name -> pointer map (open addressing) --------------------- */
typedef struct nmap {
  const char **keys;
  void **vals;
  size_t cap;
} nmap;

static size_t nhash(const char *s) {
  size_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static int nmap_init(nmap *m, hlo_arena *a, size_t n) {
  size_t cap = 16;
  while (cap < n * 2 + 1) {
    if (cap > SIZE_MAX / 4) return HLO_ERR;
    cap *= 2;
  }
  m->cap = cap;
  m->keys = hlo_arena_array(a, cap, sizeof *m->keys);
  m->vals = hlo_arena_array(a, cap, sizeof *m->vals);
  return m->keys && m->vals ? HLO_OK : HLO_ERR;
}

/* Insert; returns false if the key is already present. */
static bool nmap_put(nmap *m, const char *k, void *v) {
  size_t i = nhash(k) & (m->cap - 1);
  while (m->keys[i]) {
    if (strcmp(m->keys[i], k) == 0) return false;
    i = (i + 1) & (m->cap - 1);
  }
  m->keys[i] = k;
  m->vals[i] = v;
  return true;
}

static void *nmap_get(const nmap *m, const char *k) {
  if (!m->cap) return NULL;
  size_t i = nhash(k) & (m->cap - 1);
  while (m->keys[i]) {
    if (strcmp(m->keys[i], k) == 0) return m->vals[i];
    i = (i + 1) & (m->cap - 1);
  }
  return NULL;
}

/* ---- reader state and diagnostics --------------------------------------- */
typedef struct jr {
  const hlo_src *src;
  hlo_diags *d;
  hlo_arena *a;
  hlo_module *m;
  nmap comps;
  nmap instrs; /* of the computation being read */
  char path[512];
  bool failed;
} jr;

/* Offset of the first occurrence of "\"near\"" in the source, else 0. */
static size_t find_off(const jr *r, const char *near) {
  if (!near || !*near) return 0;
  size_t n = strlen(near);
  const char *t = r->src->text;
  for (size_t i = 0; i + n + 2 <= r->src->len; i++)
    if (t[i] == '"' && memcmp(t + i + 1, near, n) == 0 && t[i + n + 1] == '"') return i;
  return 0;
}

static int jerr(jr *r, const char *near, const char *fmt, ...) HLO_PRINTF(3, 4);
static int jerr(jr *r, const char *near, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  r->failed = true;
  return hlo_errorf(r->d, r->src, find_off(r, near), "%s%s%s", r->path, r->path[0] ? ": " : "", msg);
}

static int oom(jr *r) {
  r->failed = true;
  return hlo_errorf(r->d, r->src, 0, "out of memory");
}

/* Path bookkeeping: push appends ".key" or "[i]", pop restores. */
static size_t push_key(jr *r, const char *key) {
  size_t old = strlen(r->path);
  snprintf(r->path + old, sizeof r->path - old, "%s%s", old ? "." : "", key);
  return old;
}
static size_t push_idx(jr *r, int i) {
  size_t old = strlen(r->path);
  snprintf(r->path + old, sizeof r->path - old, "[%d]", i);
  return old;
}
static void pop(jr *r, size_t old) { r->path[old] = 0; }

/* ---- typed accessors ------------------------------------------------------ */
static cJSON *field(jr *r, const cJSON *o, const char *key, bool required) {
  cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v && required) jerr(r, NULL, "missing field \"%s\"", key);
  return v;
}

static int as_int(jr *r, const cJSON *v, const char *what, int64_t *out) {
  if (cJSON_IsNumber(v)) {
    double x = v->valuedouble;
    if (x != floor(x) || x < -9007199254740992.0 || x > 9007199254740992.0)
      return jerr(r, NULL, "%s: %g is not an exact integer", what, x);
    *out = (int64_t)x;
    return HLO_OK;
  }
  if (cJSON_IsString(v)) {
    char *end;
    errno = 0;
    long long x = strtoll(v->valuestring, &end, 10);
    if (errno || end == v->valuestring || *end)
      return jerr(r, v->valuestring, "%s: \"%s\" is not an integer", what, v->valuestring);
    *out = x;
    return HLO_OK;
  }
  return jerr(r, NULL, "%s: expected an integer", what);
}

static int get_int(jr *r, const cJSON *o, const char *key, bool required, int64_t dflt, int64_t *out) {
  cJSON *v = field(r, o, key, required);
  if (!v) {
    *out = dflt;
    return required ? HLO_ERR : HLO_OK;
  }
  return as_int(r, v, key, out);
}

static int get_bool(jr *r, const cJSON *o, const char *key, bool required, bool *out) {
  cJSON *v = field(r, o, key, required);
  if (!v) {
    *out = false;
    return required ? HLO_ERR : HLO_OK;
  }
  if (!cJSON_IsBool(v)) return jerr(r, NULL, "%s: expected true or false", key);
  *out = cJSON_IsTrue(v);
  return HLO_OK;
}

/* A string (arena copy) or, if nullable, null -> NULL. */
static int as_str(jr *r, const cJSON *v, const char *what, bool nullable, const char **out) {
  if (nullable && cJSON_IsNull(v)) {
    *out = NULL;
    return HLO_OK;
  }
  if (!cJSON_IsString(v)) return jerr(r, NULL, "%s: expected a string%s", what, nullable ? " or null" : "");
  *out = hlo_arena_strdup(r->a, v->valuestring);
  return *out ? HLO_OK : oom(r);
}

static int get_str(jr *r, const cJSON *o, const char *key, bool required, bool nullable,
                   const char **out) {
  cJSON *v = field(r, o, key, required);
  if (!v) {
    *out = NULL;
    return required ? HLO_ERR : HLO_OK;
  }
  return as_str(r, v, key, nullable, out);
}

static int as_array(jr *r, const cJSON *v, const char *what, int *n) {
  if (!cJSON_IsArray(v)) return jerr(r, NULL, "%s: expected an array", what);
  int k = cJSON_GetArraySize(v);
  if (k < 0) return jerr(r, NULL, "%s: array too long", what);
  *n = k;
  return HLO_OK;
}

static int as_ints(jr *r, const cJSON *v, const char *what, int64_t **out, int *n) {
  if (as_array(r, v, what, n)) return HLO_ERR;
  *out = NULL;
  if (!*n) return HLO_OK;
  *out = hlo_arena_array(r->a, (size_t)*n, sizeof(int64_t));
  if (!*out) return oom(r);
  int i = 0;
  for (cJSON *e = v->child; e; e = e->next, i++)
    if (as_int(r, e, what, &(*out)[i])) return HLO_ERR;
  return HLO_OK;
}

static int get_ints(jr *r, const cJSON *o, const char *key, bool required, int64_t **out, int *n) {
  cJSON *v = field(r, o, key, required);
  if (!v) {
    *out = NULL;
    *n = 0;
    return required ? HLO_ERR : HLO_OK;
  }
  return as_ints(r, v, key, out, n);
}

static int as_float(jr *r, const cJSON *v, double *out) {
  if (cJSON_IsNumber(v)) {
    *out = v->valuedouble;
    return HLO_OK;
  }
  if (cJSON_IsString(v)) {
    const char *s = v->valuestring;
    if (strcmp(s, "nan") == 0) *out = NAN;
    else if (strcmp(s, "-nan") == 0) *out = -NAN;
    else if (strcmp(s, "inf") == 0) *out = INFINITY;
    else if (strcmp(s, "-inf") == 0) *out = -INFINITY;
    else if (strcmp(s, "-0") == 0) *out = -0.0;
    else return jerr(r, s, "\"%s\" is not a number", s);
    return HLO_OK;
  }
  return jerr(r, NULL, "expected a number");
}

/* ---- shapes ------------------------------------------------------------------ */
static int read_shape(jr *r, const cJSON *v, hlo_shape *s, int depth);

static int read_layout(jr *r, const cJSON *v, hlo_layout **out) {
  if (!cJSON_IsObject(v)) return jerr(r, NULL, "layout: expected an object");
  hlo_layout *l = hlo_arena_alloc(r->a, sizeof *l);
  if (!l) return oom(r);
  if (get_ints(r, v, "minor_to_major", true, &l->minor_to_major, &l->n)) return HLO_ERR;
  cJSON *tiles = field(r, v, "tiles", false);
  if (tiles) {
    if (as_array(r, tiles, "tiles", &l->ntiles)) return HLO_ERR;
    l->tiles = l->ntiles ? hlo_arena_array(r->a, (size_t)l->ntiles, sizeof(hlo_tile)) : NULL;
    if (l->ntiles && !l->tiles) return oom(r);
    int i = 0;
    for (cJSON *t = tiles->child; t; t = t->next, i++) {
      if (as_array(r, t, "tile", &l->tiles[i].n)) return HLO_ERR;
      l->tiles[i].dims = l->tiles[i].n ? hlo_arena_array(r->a, (size_t)l->tiles[i].n, sizeof(int64_t)) : NULL;
      if (l->tiles[i].n && !l->tiles[i].dims) return oom(r);
      int j = 0;
      for (cJSON *e = t->child; e; e = e->next, j++) {
        if (cJSON_IsString(e) && strcmp(e->valuestring, "*") == 0) l->tiles[i].dims[j] = HLO_TILE_COMBINE;
        else if (as_int(r, e, "tile", &l->tiles[i].dims[j])) return HLO_ERR;
      }
    }
  }
  if (get_int(r, v, "element_size_bits", false, 0, &l->element_size_bits)) return HLO_ERR;
  if (get_int(r, v, "memory_space", false, 0, &l->memory_space)) return HLO_ERR;
  if (get_str(r, v, "ext", false, false, &l->ext)) return HLO_ERR;
  *out = l;
  return HLO_OK;
}

static int read_shape(jr *r, const cJSON *v, hlo_shape *s, int depth) {
  memset(s, 0, sizeof *s);
  if (depth > MAX_DEPTH) return jerr(r, NULL, "shape nested too deeply");
  if (!cJSON_IsObject(v)) return jerr(r, NULL, "shape: expected an object");
  cJSON *t = field(r, v, "type", true);
  if (!t) return HLO_ERR;
  if (!cJSON_IsString(t)) return jerr(r, NULL, "shape type: expected a string");
  if (strcmp(t->valuestring, "tuple") == 0) {
    s->type = HLO_TUPLE;
    cJSON *el = field(r, v, "elements", true);
    if (!el || as_array(r, el, "elements", &s->ntuple)) return HLO_ERR;
    s->tuple = s->ntuple ? hlo_arena_array(r->a, (size_t)s->ntuple, sizeof(hlo_shape)) : NULL;
    if (s->ntuple && !s->tuple) return oom(r);
    int i = 0;
    for (cJSON *e = el->child; e; e = e->next, i++)
      if (read_shape(r, e, &s->tuple[i], depth + 1)) return HLO_ERR;
  } else {
    if (!hlo_type_lookup(t->valuestring, strlen(t->valuestring), &s->type))
      return jerr(r, t->valuestring, "unknown element type \"%s\"", t->valuestring);
    if (hlo_type_is_array(s->type)) {
      cJSON *dims = field(r, v, "dims", true);
      if (!dims || as_array(r, dims, "dims", &s->rank)) return HLO_ERR;
      if (s->rank > MAX_RANK) return jerr(r, NULL, "rank %d is too large", s->rank);
      s->dims = s->rank ? hlo_arena_array(r->a, (size_t)s->rank, sizeof(int64_t)) : NULL;
      if (s->rank && !s->dims) return oom(r);
      int i = 0;
      for (cJSON *e = dims->child; e; e = e->next, i++) {
        if (cJSON_IsString(e) && strcmp(e->valuestring, "?") == 0) s->dims[i] = HLO_DIM_UNBOUNDED;
        else if (as_int(r, e, "dims", &s->dims[i])) return HLO_ERR;
        else if (s->dims[i] < 0) return jerr(r, NULL, "negative dimension %lld", (long long)s->dims[i]);
      }
      cJSON *dyn = field(r, v, "dynamic", false);
      if (dyn) {
        int n;
        if (as_array(r, dyn, "dynamic", &n)) return HLO_ERR;
        if (n != s->rank) return jerr(r, NULL, "dynamic: %d flags for rank %d", n, s->rank);
        s->dynamic = n ? hlo_arena_array(r->a, (size_t)n, sizeof(bool)) : NULL;
        if (n && !s->dynamic) return oom(r);
        i = 0;
        for (cJSON *e = dyn->child; e; e = e->next, i++) {
          if (!cJSON_IsBool(e)) return jerr(r, NULL, "dynamic: expected true or false");
          s->dynamic[i] = cJSON_IsTrue(e);
        }
      }
    }
  }
  cJSON *l = field(r, v, "layout", false);
  if (l) {
    if (read_layout(r, l, &s->layout)) return HLO_ERR;
    if (s->type != HLO_TUPLE && hlo_type_is_array(s->type) && s->layout->n != s->rank)
      return jerr(r, NULL, "layout has %d entries for rank %d", s->layout->n, s->rank);
    for (int i = 0; i < s->layout->n; i++) { /* a permutation of 0..n-1 */
      int64_t v1 = s->layout->minor_to_major[i];
      bool dup = false;
      for (int j = 0; j < i; j++) dup |= s->layout->minor_to_major[j] == v1;
      if (v1 < 0 || v1 >= s->layout->n || dup)
        return jerr(r, NULL, "minor_to_major is not a permutation of the dimensions");
    }
  }
  return HLO_OK;
}

static int get_shape(jr *r, const cJSON *o, const char *key, hlo_shape *s) {
  cJSON *v = field(r, o, key, true);
  if (!v) return HLO_ERR;
  size_t p = push_key(r, key);
  int rc = read_shape(r, v, s, 0);
  pop(r, p);
  return rc;
}

/* ---- names ------------------------------------------------------------------- */
static int comp_ref(jr *r, const cJSON *v, hlo_computation **out) {
  if (cJSON_IsNull(v)) {
    *out = NULL;
    return HLO_OK;
  }
  if (!cJSON_IsString(v)) return jerr(r, NULL, "expected a computation name");
  *out = nmap_get(&r->comps, v->valuestring);
  if (!*out) return jerr(r, v->valuestring, "unknown computation \"%s\"", v->valuestring);
  return HLO_OK;
}

static int instr_ref(jr *r, const cJSON *v, hlo_instruction **out) {
  if (!cJSON_IsString(v)) return jerr(r, NULL, "expected an instruction name");
  *out = nmap_get(&r->instrs, v->valuestring);
  if (!*out) return jerr(r, v->valuestring, "unknown instruction \"%s\"", v->valuestring);
  return HLO_OK;
}

static int instr_refs(jr *r, const cJSON *v, const char *what, hlo_instruction ***out, int *n) {
  if (as_array(r, v, what, n)) return HLO_ERR;
  *out = *n ? hlo_arena_array(r->a, (size_t)*n, sizeof(hlo_instruction *)) : NULL;
  if (*n && !*out) return oom(r);
  int i = 0;
  for (cJSON *e = v->child; e; e = e->next, i++)
    if (instr_ref(r, e, &(*out)[i])) return HLO_ERR;
  return HLO_OK;
}

/* ---- attributes ---------------------------------------------------------------- */
/* Mesh-based shardings and mesh-axes replica groups come back by parsing
 * their text (sharding when s, else groups g). */
static int reparse(jr *r, const char *text, hlo_sharding *s, hlo_replica_groups *g) {
  hlo_src src = {.name = s ? "sharding" : "replica_groups", .text = text, .len = strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  int rc = s ? hlo_parse_sharding(&src, r->a, s, &d) : hlo_parse_replica_groups(&src, r->a, g, &d);
  if (rc) jerr(r, NULL, "%s", d.n ? d.v[0].msg : "out of memory");
  hlo_diags_release(&d);
  return rc;
}

static int read_sharding(jr *r, const cJSON *v, hlo_sharding *s, int depth) {
  memset(s, 0, sizeof *s);
  if (depth > MAX_DEPTH) return jerr(r, NULL, "sharding nested too deeply");
  if (!cJSON_IsObject(v)) return jerr(r, NULL, "sharding: expected an object");
  bool named = false;
  if (get_bool(r, v, "named", false, &named)) return HLO_ERR;
  if (named) {
    const char *text;
    if (get_str(r, v, "text", true, false, &text)) return HLO_ERR;
    return reparse(r, text, s, NULL);
  }
  cJSON *k = field(r, v, "kind", true);
  if (!k) return HLO_ERR;
  if (!cJSON_IsString(k) || !hlo_json_shard_lookup(k->valuestring, &s->kind))
    return jerr(r, cJSON_IsString(k) ? k->valuestring : NULL, "unknown sharding kind");
  if (get_int(r, v, "device", false, 0, &s->device)) return HLO_ERR;
  if (get_ints(r, v, "tile", false, &s->tile, &s->ntile)) return HLO_ERR;
  if (get_ints(r, v, "devices", false, &s->devices, &s->ndevices)) return HLO_ERR;
  if (get_bool(r, v, "last_tile_dim_replicate", false, &s->last_tile_dim_replicate)) return HLO_ERR;
  cJSON *ir = field(r, v, "iota_reshape", false);
  if (ir) {
    s->iota = true;
    if (as_ints(r, ir, "iota_reshape", &s->iota_reshape, &s->niota_reshape) ||
        get_ints(r, v, "iota_perm", true, &s->iota_perm, &s->niota_perm))
      return HLO_ERR;
  }
  cJSON *lt = field(r, v, "last_tile_dims", false);
  if (lt) {
    if (as_array(r, lt, "last_tile_dims", &s->nlast_tile_dims)) return HLO_ERR;
    s->last_tile_dims = s->nlast_tile_dims ? hlo_arena_array(r->a, (size_t)s->nlast_tile_dims, sizeof(char *)) : NULL;
    if (s->nlast_tile_dims && !s->last_tile_dims) return oom(r);
    int i = 0;
    for (cJSON *e = lt->child; e; e = e->next, i++)
      if (as_str(r, e, "last_tile_dims", true, &s->last_tile_dims[i])) return HLO_ERR;
  }
  cJSON *t = field(r, v, "tuple", false);
  if (t) {
    if (as_array(r, t, "tuple", &s->ntuple)) return HLO_ERR;
    s->tuple = s->ntuple ? hlo_arena_array(r->a, (size_t)s->ntuple, sizeof(hlo_sharding)) : NULL;
    if (s->ntuple && !s->tuple) return oom(r);
    int i = 0;
    for (cJSON *e = t->child; e; e = e->next, i++)
      if (read_sharding(r, e, &s->tuple[i], depth + 1)) return HLO_ERR;
  }
  return get_str(r, v, "text", false, true, &s->text);
}

static int read_groups(jr *r, const cJSON *v, hlo_replica_groups *g) {
  memset(g, 0, sizeof *g);
  if (!cJSON_IsObject(v)) return jerr(r, NULL, "replica_groups: expected an object");
  const char *mesh = NULL;
  if (get_str(r, v, "mesh", false, false, &mesh)) return HLO_ERR;
  if (mesh) return reparse(r, mesh, NULL, g);
  if (get_bool(r, v, "iota", true, &g->iota)) return HLO_ERR;
  int64_t *sizes = NULL;
  int nsizes = 0;
  if (get_ints(r, v, "group_sizes", false, &sizes, &nsizes)) return HLO_ERR;
  cJSON *gs = field(r, v, "groups", false);
  if (gs) {
    if (as_array(r, gs, "groups", &g->ngroups)) return HLO_ERR;
    g->groups = g->ngroups ? hlo_arena_array(r->a, (size_t)g->ngroups, sizeof(int64_t *)) : NULL;
    if (g->ngroups && !g->groups) return oom(r);
    if (sizes && nsizes != g->ngroups) return jerr(r, NULL, "group_sizes and groups differ in length");
    int i = 0, n;
    for (cJSON *e = gs->child; e; e = e->next, i++) {
      if (as_ints(r, e, "groups", &g->groups[i], &n)) return HLO_ERR;
      if (sizes && sizes[i] != n) return jerr(r, NULL, "group %d has %d members, group_sizes says %lld", i, n, (long long)sizes[i]);
    }
    if (!sizes && g->ngroups) { /* sizes follow from the groups */
      sizes = hlo_arena_array(r->a, (size_t)g->ngroups, sizeof(int64_t));
      if (!sizes) return oom(r);
      i = 0;
      for (cJSON *e = gs->child; e; e = e->next, i++) sizes[i] = cJSON_GetArraySize(e);
      nsizes = g->ngroups;
    }
  } else {
    int64_t ng;
    if (get_int(r, v, "ngroups", false, nsizes, &ng)) return HLO_ERR;
    if (ng < 0 || ng > INT_MAX) return jerr(r, NULL, "bad ngroups");
    g->ngroups = (int)ng;
    if (sizes && nsizes != g->ngroups) return jerr(r, NULL, "group_sizes and ngroups differ");
  }
  if (sizes) {
    g->group_sizes = nsizes ? hlo_arena_array(r->a, (size_t)nsizes, sizeof(int)) : NULL;
    if (nsizes && !g->group_sizes) return oom(r);
    for (int i = 0; i < nsizes; i++) {
      if (sizes[i] < 0 || sizes[i] > INT_MAX) return jerr(r, NULL, "bad group size");
      g->group_sizes[i] = (int)sizes[i];
    }
  }
  if (g->iota) {
    if (get_ints(r, v, "iota_shape", true, &g->iota_shape, &g->niota_shape)) return HLO_ERR;
    if (get_ints(r, v, "iota_reshape", true, &g->iota_reshape, &g->niota_reshape)) return HLO_ERR;
    if (get_ints(r, v, "iota_perm", true, &g->iota_perm, &g->niota_perm)) return HLO_ERR;
  }
  return HLO_OK;
}

static int read_literal(jr *r, const cJSON *v, hlo_literal *l, int depth);

static int read_attr_value(jr *r, const cJSON *o, const cJSON *v, hlo_attr *a) {
  switch (a->kind) {
  case HLO_AK_INT: return as_int(r, v, "value", &a->u.i);
  case HLO_AK_BOOL:
    if (!cJSON_IsBool(v)) return jerr(r, NULL, "value: expected true or false");
    a->u.b = cJSON_IsTrue(v);
    return HLO_OK;
  case HLO_AK_FLOAT: return as_float(r, v, &a->u.f);
  case HLO_AK_STRING:
  case HLO_AK_WORD:
  case HLO_AK_RAW: return as_str(r, v, "value", true, &a->u.s);
  case HLO_AK_INTS: return as_ints(r, v, "value", &a->u.ints.v, &a->u.ints.n);
  case HLO_AK_BOOLS: {
    if (as_array(r, v, "value", &a->u.bools.n)) return HLO_ERR;
    a->u.bools.v = a->u.bools.n ? hlo_arena_array(r->a, (size_t)a->u.bools.n, sizeof(bool)) : NULL;
    if (a->u.bools.n && !a->u.bools.v) return oom(r);
    int i = 0;
    for (cJSON *e = v->child; e; e = e->next, i++) {
      if (!cJSON_IsBool(e)) return jerr(r, NULL, "value: expected true or false");
      a->u.bools.v[i] = cJSON_IsTrue(e);
    }
    return HLO_OK;
  }
  case HLO_AK_WORDS: {
    if (as_array(r, v, "value", &a->u.words.n)) return HLO_ERR;
    a->u.words.v = a->u.words.n ? hlo_arena_array(r->a, (size_t)a->u.words.n, sizeof(char *)) : NULL;
    if (a->u.words.n && !a->u.words.v) return oom(r);
    int i = 0;
    for (cJSON *e = v->child; e; e = e->next, i++)
      if (as_str(r, e, "value", true, &a->u.words.v[i])) return HLO_ERR;
    return HLO_OK;
  }
  case HLO_AK_COMP: return comp_ref(r, v, &a->u.comp);
  case HLO_AK_COMPS: {
    if (get_bool(r, o, "braced", false, &a->u.comps.braced)) return HLO_ERR;
    if (as_array(r, v, "value", &a->u.comps.n)) return HLO_ERR;
    a->u.comps.v = a->u.comps.n ? hlo_arena_array(r->a, (size_t)a->u.comps.n, sizeof(hlo_computation *)) : NULL;
    if (a->u.comps.n && !a->u.comps.v) return oom(r);
    int i = 0;
    for (cJSON *e = v->child; e; e = e->next, i++) {
      if (comp_ref(r, e, &a->u.comps.v[i])) return HLO_ERR;
      if (!a->u.comps.v[i]) return jerr(r, NULL, "null in a computation list");
    }
    return HLO_OK;
  }
  case HLO_AK_INSTRS: return instr_refs(r, v, "value", &a->u.instrs.v, &a->u.instrs.n);
  case HLO_AK_WINDOW: {
    hlo_window *w = &a->u.window;
    if (as_array(r, v, "value", &w->n)) return HLO_ERR;
    w->dims = w->n ? hlo_arena_array(r->a, (size_t)w->n, sizeof(hlo_window_dim)) : NULL;
    if (w->n && !w->dims) return oom(r);
    int i = 0;
    for (cJSON *e = v->child; e; e = e->next, i++) {
      hlo_window_dim *d = &w->dims[i];
      if (!cJSON_IsObject(e)) return jerr(r, NULL, "window: expected objects");
      if (get_int(r, e, "size", true, 0, &d->size) || get_int(r, e, "stride", true, 0, &d->stride) ||
          get_int(r, e, "pad_lo", true, 0, &d->pad_lo) || get_int(r, e, "pad_hi", true, 0, &d->pad_hi) ||
          get_int(r, e, "lhs_dilate", true, 0, &d->lhs_dilate) ||
          get_int(r, e, "rhs_dilate", true, 0, &d->rhs_dilate) || get_bool(r, e, "reversal", true, &d->reversal))
        return HLO_ERR;
    }
    return HLO_OK;
  }
  case HLO_AK_CONV_DNUMS: {
    hlo_conv_dnums *c = a->u.conv = hlo_arena_alloc(r->a, sizeof *a->u.conv);
    if (!c) return oom(r);
    if (!cJSON_IsObject(v)) return jerr(r, NULL, "conv_dnums: expected an object");
    int n1, n2, n3;
    if (get_int(r, v, "input_batch", true, 0, &c->in_batch) ||
        get_int(r, v, "input_feature", true, 0, &c->in_feature) ||
        get_ints(r, v, "input_spatial", true, &c->in_spatial, &n1) ||
        get_int(r, v, "kernel_input_feature", true, 0, &c->kernel_in) ||
        get_int(r, v, "kernel_output_feature", true, 0, &c->kernel_out) ||
        get_ints(r, v, "kernel_spatial", true, &c->kernel_spatial, &n2) ||
        get_int(r, v, "output_batch", true, 0, &c->out_batch) ||
        get_int(r, v, "output_feature", true, 0, &c->out_feature) ||
        get_ints(r, v, "output_spatial", true, &c->out_spatial, &n3))
      return HLO_ERR;
    if (n1 != n2 || n1 != n3) return jerr(r, NULL, "conv_dnums: spatial lists differ in length");
    c->nspatial = n1;
    return HLO_OK;
  }
  case HLO_AK_SLICES: {
    if (as_array(r, v, "value", &a->u.slices.n)) return HLO_ERR;
    a->u.slices.v = a->u.slices.n ? hlo_arena_array(r->a, (size_t)a->u.slices.n, sizeof(hlo_slice_dim)) : NULL;
    if (a->u.slices.n && !a->u.slices.v) return oom(r);
    int i = 0;
    for (cJSON *e = v->child; e; e = e->next, i++) {
      hlo_slice_dim *d = &a->u.slices.v[i];
      if (!cJSON_IsObject(e)) return jerr(r, NULL, "slices: expected objects");
      if (get_int(r, e, "start", true, 0, &d->start) || get_int(r, e, "limit", true, 0, &d->limit) ||
          get_int(r, e, "stride", true, 0, &d->stride))
        return HLO_ERR;
    }
    return HLO_OK;
  }
  case HLO_AK_PADDING: {
    hlo_padding *p = &a->u.padding;
    if (!cJSON_IsObject(v)) return jerr(r, NULL, "padding: expected an object");
    if (get_bool(r, v, "has_interior", true, &p->has_interior)) return HLO_ERR;
    cJSON *dims = field(r, v, "dims", true);
    if (!dims || as_array(r, dims, "dims", &p->n)) return HLO_ERR;
    p->dims = p->n ? hlo_arena_array(r->a, (size_t)p->n, sizeof(hlo_pad_dim)) : NULL;
    if (p->n && !p->dims) return oom(r);
    int i = 0;
    for (cJSON *e = dims->child; e; e = e->next, i++) {
      if (!cJSON_IsObject(e)) return jerr(r, NULL, "padding dims: expected objects");
      if (get_int(r, e, "lo", true, 0, &p->dims[i].lo) || get_int(r, e, "hi", true, 0, &p->dims[i].hi) ||
          get_int(r, e, "interior", true, 0, &p->dims[i].interior))
        return HLO_ERR;
    }
    return HLO_OK;
  }
  case HLO_AK_REPLICA_GROUPS:
  case HLO_AK_INT_LISTS:
    if (!(a->u.groups = hlo_arena_alloc(r->a, sizeof *a->u.groups))) return oom(r);
    return read_groups(r, v, a->u.groups);
  case HLO_AK_PAIRS: {
    if (as_array(r, v, "value", &a->u.pairs.n)) return HLO_ERR;
    a->u.pairs.v = a->u.pairs.n ? hlo_arena_array(r->a, (size_t)a->u.pairs.n, sizeof(int64_t[2])) : NULL;
    if (a->u.pairs.n && !a->u.pairs.v) return oom(r);
    int i = 0;
    for (cJSON *e = v->child; e; e = e->next, i++) {
      int64_t *p;
      int n;
      if (as_ints(r, e, "pairs", &p, &n)) return HLO_ERR;
      if (n != 2) return jerr(r, NULL, "pairs: expected [source, target]");
      a->u.pairs.v[i][0] = p[0];
      a->u.pairs.v[i][1] = p[1];
    }
    return HLO_OK;
  }
  case HLO_AK_SHAPE:
    if (!(a->u.shape = hlo_arena_alloc(r->a, sizeof *a->u.shape))) return oom(r);
    return read_shape(r, v, a->u.shape, 0);
  case HLO_AK_SHAPES: {
    if (as_array(r, v, "value", &a->u.shapes.n)) return HLO_ERR;
    a->u.shapes.v = a->u.shapes.n ? hlo_arena_array(r->a, (size_t)a->u.shapes.n, sizeof(hlo_shape)) : NULL;
    if (a->u.shapes.n && !a->u.shapes.v) return oom(r);
    int i = 0;
    for (cJSON *e = v->child; e; e = e->next, i++)
      if (read_shape(r, e, &a->u.shapes.v[i], 0)) return HLO_ERR;
    return HLO_OK;
  }
  case HLO_AK_SHARDING:
    if (!(a->u.sharding = hlo_arena_alloc(r->a, sizeof *a->u.sharding))) return oom(r);
    return read_sharding(r, v, a->u.sharding, 0);
  case HLO_AK_PROGRAM_SHAPE: {
    hlo_program_shape *ps = a->u.pshape = hlo_arena_alloc(r->a, sizeof *a->u.pshape);
    if (!ps) return oom(r);
    if (!cJSON_IsObject(v)) return jerr(r, NULL, "program_shape: expected an object");
    cJSON *params = field(r, v, "parameters", true);
    if (!params || as_array(r, params, "parameters", &ps->nparams)) return HLO_ERR;
    ps->params = ps->nparams ? hlo_arena_array(r->a, (size_t)ps->nparams, sizeof(hlo_shape)) : NULL;
    if (ps->nparams && !ps->params) return oom(r);
    int i = 0;
    for (cJSON *e = params->child; e; e = e->next, i++)
      if (read_shape(r, e, &ps->params[i], 0)) return HLO_ERR;
    return get_shape(r, v, "result", &ps->result);
  }
  case HLO_AK_ALIASING: {
    hlo_aliasing *al = &a->u.aliasing;
    if (!cJSON_IsObject(v)) return jerr(r, NULL, "aliasing: expected an object");
    cJSON *es = field(r, v, "entries", true);
    if (!es || as_array(r, es, "entries", &al->n)) return HLO_ERR;
    al->v = al->n ? hlo_arena_array(r->a, (size_t)al->n, sizeof *al->v) : NULL;
    if (al->n && !al->v) return oom(r);
    int i = 0;
    for (cJSON *e = es->child; e; e = e->next, i++) {
      hlo_alias_entry *en = &al->v[i];
      if (!cJSON_IsObject(e)) return jerr(r, NULL, "aliasing entry: expected an object");
      if (get_ints(r, e, "output_index", false, &en->output_index, &en->noutput) ||
          get_int(r, e, "operand", true, 0, &en->operand) ||
          get_ints(r, e, "operand_index", false, &en->operand_index, &en->noperand_index) ||
          get_str(r, e, "kind", false, true, &en->kind))
        return HLO_ERR;
    }
    return get_str(r, v, "text", true, false, &al->text);
  }
  case HLO_AK_LITERAL:
    if (cJSON_IsNull(v)) return HLO_OK;
    a->u.literal = hlo_arena_alloc(r->a, sizeof *a->u.literal);
    if (!a->u.literal) return oom(r);
    return read_literal(r, v, a->u.literal, 0);
  }
  return jerr(r, NULL, "bad attribute kind");
}

static int read_attrs(jr *r, const cJSON *o, hlo_attr **out, int *n) {
  cJSON *v = field(r, o, "attrs", false);
  *out = NULL;
  *n = 0;
  if (!v) return HLO_OK;
  size_t p0 = push_key(r, "attrs");
  if (as_array(r, v, "attrs", n)) return HLO_ERR;
  *out = *n ? hlo_arena_array(r->a, (size_t)*n, sizeof(hlo_attr)) : NULL;
  if (*n && !*out) return oom(r);
  int i = 0;
  for (cJSON *e = v->child; e; e = e->next, i++) {
    size_t p1 = push_idx(r, i);
    hlo_attr *a = &(*out)[i];
    if (!cJSON_IsObject(e)) return jerr(r, NULL, "expected an object");
    if (get_str(r, e, "name", true, false, &a->name)) return HLO_ERR;
    cJSON *k = field(r, e, "kind", true);
    if (!k) return HLO_ERR;
    if (!cJSON_IsString(k) || !hlo_json_kind_lookup(k->valuestring, &a->kind))
      return jerr(r, cJSON_IsString(k) ? k->valuestring : NULL, "unknown attribute kind");
    bool known = true;
    if (get_bool(r, e, "known", false, &known)) return HLO_ERR;
    if (!cJSON_GetObjectItemCaseSensitive(e, "known")) known = true;
    if (!known || !hlo_attr_lookup(a->name, strlen(a->name), &a->key)) a->key = HLO_A_UNKNOWN;
    if (a->key != HLO_A_UNKNOWN && a->kind != hlo_attr_kind_of(a->key) &&
        !(a->kind == HLO_AK_INT_LISTS && hlo_attr_kind_of(a->key) == HLO_AK_INTS)) /* code relies on the kind */
      return jerr(r, a->name, "attribute %s must have kind \"%s\", not \"%s\"", a->name,
                  hlo_json_kind_name(hlo_attr_kind_of(a->key)), hlo_json_kind_name(a->kind));
    if (a->key == HLO_A_UNKNOWN && a->kind != HLO_AK_RAW)
      return jerr(r, a->name, "unknown attribute %s must have kind \"raw\"", a->name);
    cJSON *val = field(r, e, "value", true);
    if (!val) return HLO_ERR;
    size_t p2 = push_key(r, a->name);
    if (read_attr_value(r, e, val, a)) return HLO_ERR;
    pop(r, p2);
    pop(r, p1);
  }
  pop(r, p0);
  return HLO_OK;
}

/* ---- literals ------------------------------------------------------------------ */
static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int read_literal(jr *r, const cJSON *v, hlo_literal *l, int depth) {
  memset(l, 0, sizeof *l);
  if (depth > MAX_DEPTH) return jerr(r, NULL, "literal nested too deeply");
  if (!cJSON_IsObject(v)) return jerr(r, NULL, "literal: expected an object");
  if (get_shape(r, v, "shape", &l->shape)) return HLO_ERR;
  if (get_bool(r, v, "elided", false, &l->elided)) return HLO_ERR;
  if (get_int(r, v, "nelems", true, 0, &l->nelems)) return HLO_ERR;
  cJSON *t = field(r, v, "tuple", false);
  if (t) {
    if (as_array(r, t, "tuple", &l->ntuple)) return HLO_ERR;
    l->tuple = l->ntuple ? hlo_arena_array(r->a, (size_t)l->ntuple, sizeof(hlo_literal)) : NULL;
    if (l->ntuple && !l->tuple) return oom(r);
    int i = 0;
    for (cJSON *e = t->child; e; e = e->next, i++)
      if (read_literal(r, e, &l->tuple[i], depth + 1)) return HLO_ERR;
  }
  if (l->shape.type == HLO_TUPLE && l->ntuple != l->shape.ntuple)
    return jerr(r, NULL, "literal: %d elements for a tuple shape of %d", l->ntuple, l->shape.ntuple);
  cJSON *data = field(r, v, "data", false);
  if (!data && !l->elided && hlo_shape_is_array(&l->shape))
    return jerr(r, NULL, "literal: no \"data\" (and not elided)");
  if (data) {
    if (!cJSON_IsString(data)) return jerr(r, NULL, "literal data: expected a hex string");
    int64_t want;
    if (!hlo_shape_elements(&l->shape, &want) || want != l->nelems)
      return jerr(r, NULL, "literal: nelems %lld does not match its shape", (long long)l->nelems);
    size_t nbytes, hexlen = strlen(data->valuestring);
    if (hlo_mul_overflow((size_t)want, (size_t)hlo_type_bytes(l->shape.type), &nbytes) ||
        hexlen / 2 != nbytes || hexlen % 2)
      return jerr(r, NULL, "literal data: %zu hex digits for %lld elements of %d bytes", hexlen,
                  (long long)want, hlo_type_bytes(l->shape.type));
    unsigned char *b = nbytes ? hlo_arena_alloc(r->a, nbytes) : NULL;
    if (nbytes && !b) return oom(r);
    for (size_t i = 0; i < nbytes; i++) {
      int hi = hexval(data->valuestring[2 * i]), lo = hexval(data->valuestring[2 * i + 1]);
      if (hi < 0 || lo < 0) return jerr(r, NULL, "literal data: not a hex digit");
      b[i] = (unsigned char)(hi << 4 | lo);
    }
    l->data = b;
  }
  return HLO_OK;
}

/* ---- instructions, computations, modules ------------------------------------------ */
static int read_instr_body(jr *r, const cJSON *v, hlo_instruction *in) {
  if (get_shape(r, v, "shape", &in->shape)) return HLO_ERR;
  if (get_bool(r, v, "shape_omitted", false, &in->shape_omitted)) return HLO_ERR;
  cJSON *ops = field(r, v, "operands", true);
  if (!ops) return HLO_ERR;
  size_t p = push_key(r, "operands");
  if (instr_refs(r, ops, "operands", &in->operands, &in->noperands)) return HLO_ERR;
  pop(r, p);
  int arity = hlo_opcode_arity(in->op);
  if (arity != HLO_VARIADIC && arity != in->noperands)
    return jerr(r, in->name, "%s takes %d operands, not %d", hlo_opcode_name(in->op), arity, in->noperands);
  cJSON *cp = field(r, v, "control_predecessors", false);
  if (cp && instr_refs(r, cp, "control_predecessors", &in->control_preds, &in->ncontrol)) return HLO_ERR;
  if (in->op == HLO_OP_PARAMETER && get_int(r, v, "parameter_number", true, 0, &in->param_number))
    return HLO_ERR;
  cJSON *lit = field(r, v, "literal", false);
  if (lit) {
    in->literal = hlo_arena_alloc(r->a, sizeof *in->literal);
    if (!in->literal) return oom(r);
    p = push_key(r, "literal");
    if (read_literal(r, lit, in->literal, 0)) return HLO_ERR;
    pop(r, p);
  } else if (in->op == HLO_OP_CONSTANT) {
    return jerr(r, in->name, "constant without a literal");
  }
  if (get_str(r, v, "custom_text", false, false, &in->custom_text)) return HLO_ERR;
  return read_attrs(r, v, &in->attrs, &in->nattrs);
}

static int read_comp(jr *r, const cJSON *v, hlo_computation *c) {
  if (get_bool(r, v, "is_entry", false, &c->is_entry) ||
      get_bool(r, v, "has_signature", false, &c->has_signature) ||
      get_bool(r, v, "root_explicit", false, &c->root_explicit))
    return HLO_ERR;
  cJSON *instrs = field(r, v, "instructions", true);
  if (!instrs || as_array(r, instrs, "instructions", &c->ninstrs)) return HLO_ERR;
  c->instrs = c->ninstrs ? hlo_arena_array(r->a, (size_t)c->ninstrs, sizeof(hlo_instruction *)) : NULL;
  if (c->ninstrs && !c->instrs) return oom(r);
  memset(&r->instrs, 0, sizeof r->instrs);
  if (nmap_init(&r->instrs, r->a, (size_t)c->ninstrs)) return oom(r);
  size_t p0 = push_key(r, "instructions");
  int i = 0;
  for (cJSON *e = instrs->child; e; e = e->next, i++) { /* pass 1: names and opcodes */
    size_t p1 = push_idx(r, i);
    hlo_instruction *in = hlo_arena_alloc(r->a, sizeof *in);
    if (!in) return oom(r);
    c->instrs[i] = in;
    in->parent = c;
    in->id = i;
    if (!cJSON_IsObject(e)) return jerr(r, NULL, "expected an object");
    if (get_str(r, e, "name", true, false, &in->name)) return HLO_ERR;
    cJSON *op = field(r, e, "opcode", true);
    if (!op) return HLO_ERR;
    if (!cJSON_IsString(op) || !hlo_opcode_lookup(op->valuestring, strlen(op->valuestring), &in->op))
      return jerr(r, cJSON_IsString(op) ? op->valuestring : NULL, "unknown opcode \"%s\"",
                  cJSON_IsString(op) ? op->valuestring : "?");
    if (!nmap_put(&r->instrs, in->name, in))
      return jerr(r, in->name, "duplicate instruction name \"%s\"", in->name);
    pop(r, p1);
  }
  i = 0;
  for (cJSON *e = instrs->child; e; e = e->next, i++) { /* pass 2: everything else */
    size_t p1 = push_idx(r, i);
    if (read_instr_body(r, e, c->instrs[i])) return HLO_ERR;
    pop(r, p1);
  }
  pop(r, p0);
  cJSON *root = field(r, v, "root", false);
  if (root && !cJSON_IsNull(root) && instr_ref(r, root, &c->root)) return HLO_ERR;
  return read_attrs(r, v, &c->attrs, &c->nattrs);
}

static int get_i32(jr *r, const cJSON *o, const char *key, int32_t *out) {
  int64_t v;
  if (get_int(r, o, key, true, 0, &v)) return HLO_ERR;
  if (v < INT32_MIN || v > INT32_MAX) return jerr(r, NULL, "%s: out of range for int32", key);
  *out = (int32_t)v;
  return HLO_OK;
}

static int get_names(jr *r, const cJSON *o, const char *key, const char ***out, int *n) {
  cJSON *v = field(r, o, key, true);
  if (!v || as_array(r, v, key, n)) return HLO_ERR;
  *out = *n ? hlo_arena_array(r->a, (size_t)*n, sizeof **out) : NULL;
  if (*n && !*out) return oom(r);
  int i = 0;
  for (cJSON *e = v->child; e; e = e->next, i++)
    if (as_str(r, e, key, false, &(*out)[i])) return HLO_ERR;
  return HLO_OK;
}

/* The stack frame index (optional "stack_frames" object of a module). */
static int read_stack_frames(jr *r, const cJSON *m, hlo_stack_frames **out) {
  cJSON *o = field(r, m, "stack_frames", false);
  *out = NULL;
  if (!o) return HLO_OK;
  size_t p0 = push_key(r, "stack_frames");
  if (!cJSON_IsObject(o)) return jerr(r, NULL, "expected an object");
  hlo_stack_frames *f = hlo_arena_alloc(r->a, sizeof *f);
  if (!f) return oom(r);
  memset(f, 0, sizeof *f);
  if (get_names(r, o, "file_names", &f->file_names, &f->nfile_names) ||
      get_names(r, o, "function_names", &f->function_names, &f->nfunction_names))
    return HLO_ERR;
  cJSON *v = field(r, o, "file_locations", true);
  if (!v || as_array(r, v, "file_locations", &f->nlocations)) return HLO_ERR;
  f->locations = f->nlocations ? hlo_arena_array(r->a, (size_t)f->nlocations, sizeof *f->locations) : NULL;
  if (f->nlocations && !f->locations) return oom(r);
  int i = 0;
  for (cJSON *e = v->child; e; e = e->next, i++) {
    hlo_file_location *l = &f->locations[i];
    if (get_i32(r, e, "file_name_id", &l->file_name_id) || get_i32(r, e, "function_name_id", &l->function_name_id) ||
        get_i32(r, e, "line", &l->line) || get_i32(r, e, "end_line", &l->end_line) ||
        get_i32(r, e, "column", &l->column) || get_i32(r, e, "end_column", &l->end_column))
      return HLO_ERR;
  }
  v = field(r, o, "frames", true);
  if (!v || as_array(r, v, "frames", &f->nframes)) return HLO_ERR;
  f->frames = f->nframes ? hlo_arena_array(r->a, (size_t)f->nframes, sizeof *f->frames) : NULL;
  if (f->nframes && !f->frames) return oom(r);
  i = 0;
  for (cJSON *e = v->child; e; e = e->next, i++)
    if (get_i32(r, e, "file_location_id", &f->frames[i].file_location_id) ||
        get_i32(r, e, "parent_frame_id", &f->frames[i].parent_frame_id))
      return HLO_ERR;
  pop(r, p0);
  *out = f;
  return HLO_OK;
}

static hlo_module *read_module(jr *r, const cJSON *v, const hlo_allocator *alloc) {
  hlo_module *m = hlo_module_new(alloc);
  if (!m) {
    oom(r);
    return NULL;
  }
  r->m = m;
  r->a = &m->arena;
  if (!cJSON_IsObject(v)) {
    jerr(r, NULL, "expected an object");
    goto fail;
  }
  if (get_str(r, v, "name", false, true, &m->name) || get_bool(r, v, "has_header", false, &m->has_header))
    goto fail;
  cJSON *comps = field(r, v, "computations", true);
  if (!comps || as_array(r, comps, "computations", &m->ncomps)) goto fail;
  m->comps = m->ncomps ? hlo_arena_array(r->a, (size_t)m->ncomps, sizeof(hlo_computation *)) : NULL;
  memset(&r->comps, 0, sizeof r->comps);
  if ((m->ncomps && !m->comps) || nmap_init(&r->comps, r->a, (size_t)m->ncomps)) {
    oom(r);
    goto fail;
  }
  size_t p0 = push_key(r, "computations");
  int i = 0;
  for (cJSON *e = comps->child; e; e = e->next, i++) { /* pass 1: names */
    size_t p1 = push_idx(r, i);
    hlo_computation *c = hlo_arena_alloc(r->a, sizeof *c);
    if (!c) {
      oom(r);
      goto fail;
    }
    m->comps[i] = c;
    c->id = i;
    c->module_ = m;
    if (!cJSON_IsObject(e)) {
      jerr(r, NULL, "expected an object");
      goto fail;
    }
    if (get_str(r, e, "name", true, false, &c->name)) goto fail;
    if (!nmap_put(&r->comps, c->name, c)) {
      jerr(r, c->name, "duplicate computation name \"%s\"", c->name);
      goto fail;
    }
    pop(r, p1);
  }
  i = 0;
  for (cJSON *e = comps->child; e; e = e->next, i++) {
    size_t p1 = push_idx(r, i);
    if (read_comp(r, e, m->comps[i])) goto fail;
    pop(r, p1);
  }
  pop(r, p0);
  if (read_attrs(r, v, &m->attrs, &m->nattrs) || read_stack_frames(r, v, &m->stack_frames)) goto fail;
  cJSON *entry = field(r, v, "entry", false);
  if (entry && comp_ref(r, entry, &m->entry)) goto fail;
  if (!m->entry && m->ncomps) m->entry = m->comps[m->ncomps - 1];
  if (hlo_module_link(m)) {
    oom(r);
    goto fail;
  }
  return m;
fail:
  hlo_module_free(m);
  return NULL;
}

int hlo_json_read_modules(const hlo_src *src, const hlo_allocator *alloc, hlo_diags *d,
                          hlo_module ***mods, int *nmods) {
  *mods = NULL;
  *nmods = 0;
  jr r;
  memset(&r, 0, sizeof r);
  r.src = src;
  r.d = d;
  const char *end = NULL;
  cJSON *doc = cJSON_ParseWithLengthOpts(src->text, src->len, &end, false);
  if (!doc) {
    size_t off = end && end >= src->text && end <= src->text + src->len ? (size_t)(end - src->text) : 0;
    return hlo_errorf(d, src, off, "invalid JSON");
  }
  int rc = HLO_ERR;
  cJSON *fmt = cJSON_GetObjectItemCaseSensitive(doc, "format");
  cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
  cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "modules");
  if (!cJSON_IsObject(doc) || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, HLO_JSON_FORMAT) != 0) {
    hlo_errorf(d, src, 0, "not an hlo-json document (no \"format\": \"%s\")", HLO_JSON_FORMAT);
    goto out;
  }
  if (!cJSON_IsNumber(ver) || ver->valuedouble != HLO_JSON_VERSION) {
    hlo_errorf(d, src, find_off(&r, "version"), "unsupported hlo-json version (this reader knows %d)",
               HLO_JSON_VERSION);
    goto out;
  }
  int n;
  if (!cJSON_IsArray(list) || (n = cJSON_GetArraySize(list)) < 1) {
    hlo_errorf(d, src, find_off(&r, "modules"), "\"modules\" must be a non-empty array");
    goto out;
  }
  hlo_module **v = hlo_malloc(alloc, (size_t)n * sizeof *v);
  if (!v) {
    hlo_errorf(d, src, 0, "out of memory");
    goto out;
  }
  int i = 0;
  for (cJSON *e = list->child; e; e = e->next, i++) {
    snprintf(r.path, sizeof r.path, "modules[%d]", i);
    r.failed = false;
    v[i] = read_module(&r, e, alloc);
    if (!v[i]) {
      for (int k = 0; k < i; k++) hlo_module_free(v[k]);
      hlo_free(alloc, v);
      goto out;
    }
  }
  *mods = v;
  *nmods = n;
  rc = HLO_OK;
out:
  cJSON_Delete(doc);
  return rc;
}

hlo_module *hlo_json_read(const hlo_src *src, const hlo_allocator *alloc, hlo_diags *d) {
  hlo_module **v;
  int n;
  if (hlo_json_read_modules(src, alloc, d, &v, &n)) return NULL;
  if (n != 1) {
    for (int i = 0; i < n; i++) hlo_module_free(v[i]);
    hlo_free(alloc, v);
    hlo_errorf(d, src, 0, "expected exactly one module, found %d", n);
    return NULL;
  }
  hlo_module *m = v[0];
  hlo_free(alloc, v);
  return m;
}
