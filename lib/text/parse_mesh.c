/* parse_mesh.c - the text of meshes (mesh['a'=2,'b'=4], device_ids=(...),
 * maximal_mesh[device_id=N]), axis references ('a', 'a':(2)2), mesh-based
 * ("named") shardings and mesh-axes replica groups, with the errors XLA's
 * parser gives (and, where XLA would stop on a failed check while building
 * the value, that check's message).  The rules and the canonical text are
 * lib/ir/mesh.c's. */
#include <stdlib.h>
#include <string.h>

#include "ir/mesh.h"
#include "text/scan.h"

enum { MAX_ITEMS = 1 << 20 };

/* Room for one more element of size sz in *v holding *n (arena-grown). */
static int grow(scanner *scn, void **v, int *n, int *cap, size_t sz) {
  if (*n < *cap) return HLO_OK;
  if (*cap >= MAX_ITEMS) return scan_errorf(scn, scn->pos, "list too long");
  int nc = *cap ? *cap * 2 : 8;
  void *nv = hlo_arena_array(scn->a, (size_t)nc, sz);
  if (!nv) return scan_errorf(scn, scn->pos, "out of memory");
  if (*n) memcpy(nv, *v, (size_t)*n * sz);
  *v = nv;
  *cap = nc;
  return HLO_OK;
}

/* The word w (a name not followed by a name character) is next. */
static bool at_word(scanner *scn, const char *w) {
  scan_skip(scn);
  size_t n = strlen(w);
  return scn->pos + n <= scn->end && !memcmp(scn->s + scn->pos, w, n) &&
         !(scn->pos + n < scn->end && scan_is_name_char(scn->s[scn->pos + n]));
}

/* XLA's lexer makes "name=" (no blank before '=') an attribute name. */
static bool at_attr(scanner *scn, const char *w) {
  size_t n = strlen(w);
  return at_word(scn, w) && scn->pos + n < scn->end && scn->s[scn->pos + n] == '=';
}

bool scan_at_mesh(scanner *scn) { return at_word(scn, "mesh") || at_word(scn, "maximal_mesh"); }

static int int_list(scanner *scn, int64_t **v, int *n, char close) {
  int cap = 0;
  *n = 0;
  *v = NULL;
  if (scan_peek(scn, close)) return HLO_OK;
  do {
    int64_t x;
    if (scan_int(scn, &x) || grow(scn, (void **)v, n, &cap, sizeof **v)) return HLO_ERR;
    (*v)[(*n)++] = x;
  } while (scan_accept(scn, ','));
  return HLO_OK;
}

/* mesh '[' ['name'=INT {',' 'name'=INT}] ']' [',' device_ids=( ids | [dims][T(perm)] )]
 * | maximal_mesh '[' device_id=INT ']' */
static int parse_mesh(scanner *scn, hlo_mesh *m) {
  memset(m, 0, sizeof *m);
  size_t st = (scan_skip(scn), scn->pos);
  char why[256];
  if (at_word(scn, "maximal_mesh")) {
    scn->pos += strlen("maximal_mesh");
    m->maximal = true;
    if (scan_expect(scn, '[', "after maximal_mesh")) return HLO_ERR;
    size_t at = (scan_skip(scn), scn->pos);
    if (!at_attr(scn, "device_id")) return scan_errorf(scn, at, "expected device_id= attribute in maximal_mesh");
    scn->pos += strlen("device_id=");
    if (scan_int(scn, &m->device_id) || scan_expect(scn, ']', "to end maximal_mesh")) return HLO_ERR;
    return hlo_mesh_finish(m, why, sizeof why) ? scan_errorf(scn, st, "%s", why) : HLO_OK;
  }
  scn->pos += strlen("mesh");
  if (scan_expect(scn, '[', "after mesh")) return HLO_ERR;
  int cap = 0, cap2 = 0;
  if (!scan_peek(scn, ']')) {
    do {
      const char *name;
      int64_t size;
      size_t at = (scan_skip(scn), scn->pos);
      if (at < scn->end && scn->s[at] != '\'' && scn->s[at] != '"')
        return scan_errorf(scn, at, "expects string: a quoted axis name (device_ids=(...) follows the mesh's ']')");
      if (scan_string(scn, &name) || scan_expect(scn, '=', "after axis name") || scan_int(scn, &size)) return HLO_ERR;
      int n2 = m->naxes;
      if (grow(scn, (void **)&m->axis_names, &m->naxes, &cap, sizeof *m->axis_names) ||
          grow(scn, (void **)&m->axis_sizes, &n2, &cap2, sizeof *m->axis_sizes))
        return HLO_ERR;
      m->axis_names[m->naxes] = name;
      m->axis_sizes[m->naxes++] = size;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, ']', "to end mesh axes")) return HLO_ERR;
  if (m->naxes) {
    /* XLA looks past blanks (not comments) for ", device_ids" */
    size_t p = scn->pos;
    while (p < scn->end && strchr(" \t\n\r", scn->s[p])) p++;
    if (p < scn->end && scn->s[p] == ',') {
      p++;
      while (p < scn->end && strchr(" \t\n\r", scn->s[p])) p++;
      size_t k = strlen("device_ids");
      if (p + k <= scn->end && !memcmp(scn->s + p, "device_ids", k) &&
          (p + k == scn->end || strchr("= \t", scn->s[p + k]))) {
        scn->pos = p + k;
        if (scan_expect(scn, '=', "after device_ids") || scan_expect(scn, '(', "for device_ids")) return HLO_ERR;
        size_t at = (scan_skip(scn), scn->pos);
        if (scan_accept(scn, '[')) {
          int nr, np;
          if (int_list(scn, &m->iota_reshape, &nr, ']')) return HLO_ERR;
          if (!nr) return scan_errorf(scn, scn->pos, "expected non-empty iota_reshape_dims");
          if (scan_expect(scn, ']', "to end sharding iota_reshape_dims")) return HLO_ERR;
          if (nr == 1) {
            if (!(m->iota_perm = hlo_arena_alloc(scn->a, sizeof *m->iota_perm))) return scan_errorf(scn, at, "out of memory");
            np = 1;
          } else {
            if (!at_word(scn, "T")) return scan_errorf(scn, scn->pos, "expected 'T(' to start sharding devices iota_transpose_perm");
            scn->pos++;
            if (scan_expect(scn, '(', "to start sharding devices iota_transpose_perm") ||
                int_list(scn, &m->iota_perm, &np, ')') ||
                scan_expect(scn, ')', "to end sharding devices iota_transpose_perm"))
              return HLO_ERR;
            for (int i = 0; i < np; i++)
              if (m->iota_perm[i] >= nr)
                return scan_errorf(scn, at, "Out of range iota minor_to_major value %lld, expecting value in range [0, %d)",
                                   (long long)m->iota_perm[i], nr);
            if (np != nr)
              return scan_errorf(scn, at, "device_ids transpose T(...) has %d entries for %d reshape dimensions", np, nr);
          }
          m->niota = nr;
        } else {
          if (int_list(scn, &m->device_ids, &m->ndevice_ids, ')')) return HLO_ERR;
        }
        if (scan_expect(scn, ')', "to end device_ids")) return HLO_ERR;
        if (!m->niota) {
          int64_t n = 1;
          for (int i = 0; i < m->naxes; i++)
            if (m->axis_sizes[i] < 0 || (m->axis_sizes[i] && __builtin_mul_overflow(n, m->axis_sizes[i], &n)))
              return scan_errorf(scn, st, "mesh size overflows int64");
          if (m->ndevice_ids != n)
            return scan_errorf(scn, at, "Expected %lld device_ids based on mesh axes, but got %d", (long long)n,
                               m->ndevice_ids);
        }
      }
    }
  }
  return hlo_mesh_finish(m, why, sizeof why) ? scan_errorf(scn, st, "%s", why) : HLO_OK;
}

/* XLA's absl::SimpleAtoi: blanks around, an optional sign, digits. */
static bool simple_atoi(const char *s, int64_t *out) {
  while (*s == ' ' || (*s >= '\t' && *s <= '\r')) s++;
  bool neg = *s == '-';
  if (*s == '+' || *s == '-') s++;
  if (*s < '0' || *s > '9') return false;
  int64_t v = 0;
  for (; *s >= '0' && *s <= '9'; s++)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *s - '0', &v)) return false;
  while (*s == ' ' || (*s >= '\t' && *s <= '\r')) s++;
  if (*s) return false;
  *out = neg ? -v : v;
  return true;
}

/* 'name' or 'index' [':' '(' pre ')' size] */
static int parse_axis(scanner *scn, const hlo_mesh *m, hlo_axis_ref *r) {
  size_t at = (scan_skip(scn), scn->pos);
  const char *name;
  if (at < scn->end && scn->s[at] != '\'' && scn->s[at] != '"') return scan_errorf(scn, at, "expects string");
  if (scan_string(scn, &name)) return HLO_ERR;
  int64_t idx = -1;
  for (int i = 0; i < m->naxes && idx < 0; i++)
    if (!strcmp(m->axis_names[i], name)) idx = i;
  if (idx < 0 || !m->naxes) {
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    hlo_mesh_print(&b, m);
    hlo_buf_putc(&b, 0);
    const char *mt = b.failed ? "" : b.data;
    int rc = HLO_OK;
    if (idx < 0 && !simple_atoi(name, &idx))
      rc = scan_errorf(scn, at, "axis '%s' is not a valid axis name or index in mesh %s", name, mt);
    else if (idx < 0 || idx >= m->naxes)
      rc = scan_errorf(scn, at, "axis index %lld is out of bounds for mesh %s which has %d axes", (long long)idx, mt,
                       m->naxes);
    hlo_buf_release(&b);
    if (rc) return rc;
  }
  r->axis = (int)idx;
  r->pre = r->size = 0;
  if (!scan_accept(scn, ':')) return HLO_OK;
  if (scan_expect(scn, '(', "before pre_size in sub axis") || scan_int(scn, &r->pre) ||
      scan_expect(scn, ')', "after pre_size in sub axis") || scan_int(scn, &r->size))
    return HLO_ERR;
  if (r->pre < 1) return scan_errorf(scn, at, "sub-axis pre-size must be >= 1");
  if (r->size <= 1) return scan_errorf(scn, at, "sub-axis size must be > 1");
  return HLO_OK;
}

/* '{' [item {',' item}] '}' with item an axis, or '?' (last) when open != NULL */
static int parse_axes(scanner *scn, const hlo_mesh *m, hlo_axis_list *l, bool *open) {
  int cap = l->n; /* appends: a repeated attribute adds to the list */
  if (scan_expect(scn, '{', "to start a list of mesh axes")) return HLO_ERR;
  if (scan_accept(scn, '}')) return HLO_OK;
  do {
    size_t at = (scan_skip(scn), scn->pos);
    if (open && *open) return scan_errorf(scn, at, "Saw axis ref after '?'");
    if (open && scan_accept(scn, '?')) {
      *open = true;
      continue;
    }
    if (grow(scn, (void **)&l->v, &l->n, &cap, sizeof *l->v) || parse_axis(scn, m, &l->v[l->n])) return HLO_ERR;
    l->n++;
  } while (scan_accept(scn, ','));
  return scan_expect(scn, '}', "to end the list of mesh axes");
}

/* sum | max | min after unreduced= */
static int parse_reduction(scanner *scn, hlo_reduction_op *op) {
  static const char *const names[] = {"sum", "max", "min"};
  for (int i = 0; i < 3; i++)
    if (at_word(scn, names[i])) {
      scn->pos += 3;
      *op = (hlo_reduction_op)i;
      return HLO_OK;
    }
  return scan_errorf(scn, scn->pos, "expected sum, max, or min for unreduced op");
}

static int all_axes(scanner *scn, const hlo_mesh *m, hlo_axis_list *l) {
  l->n = m->naxes;
  if (!m->naxes) return HLO_OK;
  if (!(l->v = hlo_arena_array(scn->a, (size_t)m->naxes, sizeof *l->v))) return scan_errorf(scn, scn->pos, "out of memory");
  for (int i = 0; i < m->naxes; i++) l->v[i] = (hlo_axis_ref){.axis = i};
  return HLO_OK;
}

/* [',' metadata=...] */
static int maybe_metadata(scanner *scn, hlo_named_sharding *ns) {
  if (!scan_accept(scn, ',')) return HLO_OK;
  size_t at = (scan_skip(scn), scn->pos);
  if (!at_attr(scn, "metadata")) return scan_errorf(scn, at, "expected metadata= after ','");
  scn->pos += strlen("metadata=");
  return scan_raw_value(scn, &ns->metadata);
}

static int parse_named_body(scanner *scn, hlo_named_sharding *ns) {
  hlo_mesh *m = &ns->mesh;
  if (parse_mesh(scn, m)) return HLO_ERR;
  if (m->maximal) return maybe_metadata(scn, ns);
  scan_accept(scn, ',');
  size_t at = (scan_skip(scn), scn->pos);
  if (at_word(scn, "replicated") && !at_attr(scn, "replicated")) {
    scn->pos += strlen("replicated");
    return maybe_metadata(scn, ns);
  }
  if (at_word(scn, "unreduced")) {
    bool assign = at_attr(scn, "unreduced");
    scn->pos += strlen("unreduced");
    assign = scan_accept(scn, '=') || assign;
    if (assign && parse_reduction(scn, &ns->reduction)) return HLO_ERR;
    if (scan_peek(scn, '{') ? parse_axes(scn, m, &ns->unreduced, NULL) : all_axes(scn, m, &ns->unreduced))
      return HLO_ERR;
    return maybe_metadata(scn, ns);
  }
  if (at_word(scn, "manual") && !at_attr(scn, "manual")) {
    scn->pos += strlen("manual");
    if (!m->naxes) return scan_errorf(scn, at, "Manual sharding requires non-empty mesh.");
    return all_axes(scn, m, &ns->manual) || maybe_metadata(scn, ns);
  }
  if (scan_expect(scn, '[', "to start the dimension shardings (or replicated, unreduced or manual)")) return HLO_ERR;
  int cap = 0;
  if (!scan_peek(scn, ']')) {
    do {
      if (grow(scn, (void **)&ns->dims, &ns->ndims, &cap, sizeof *ns->dims)) return HLO_ERR;
      hlo_dim_sharding *d = &ns->dims[ns->ndims];
      memset(d, 0, sizeof *d);
      if (parse_axes(scn, m, &d->axes, &d->open)) return HLO_ERR;
      ns->ndims++;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, ']', "to end the dimension shardings")) return HLO_ERR;
  while (!scan_peek(scn, '}')) {
    if (scan_expect(scn, ',', "before next attribute")) return HLO_ERR;
    at = (scan_skip(scn), scn->pos);
    int rc;
    if (at_attr(scn, "replicated")) {
      scn->pos += strlen("replicated=");
      rc = parse_axes(scn, m, &ns->replicated, NULL);
    } else if (at_attr(scn, "unreduced")) {
      scn->pos += strlen("unreduced=");
      rc = !scan_peek(scn, '{') && parse_reduction(scn, &ns->reduction);
      if (!rc) rc = parse_axes(scn, m, &ns->unreduced, NULL);
    } else if (at_attr(scn, "manual")) {
      scn->pos += strlen("manual=");
      rc = parse_axes(scn, m, &ns->manual, NULL);
    } else if (at_attr(scn, "metadata")) {
      scn->pos += strlen("metadata=");
      rc = scan_raw_value(scn, &ns->metadata);
    } else {
      const char *w;
      size_t n = scan_name(scn, &w, NULL);
      scn->pos = at;
      rc = n && at + n < scn->end && scn->s[at + n] == '='
               ? scan_errorf(scn, at, "unknown attribute in named sharding: expected replicated, unreduced, manual or metadata")
               : scan_errorf(scn, at, "expects attribute name (replicated=, unreduced=, manual= or metadata=)");
    }
    if (rc) return HLO_ERR;
  }
  return HLO_OK;
}

/* The canonical text of b, into the arena. */
static const char *take_text(scanner *scn, hlo_buf *b) {
  const char *t = b->failed ? NULL : hlo_arena_strndup(scn->a, b->data ? b->data : "", b->len);
  hlo_buf_release(b);
  return t;
}

int scan_named_sharding(scanner *scn, hlo_sharding *s, size_t st) {
  hlo_named_sharding *ns = hlo_arena_alloc(scn->a, sizeof *ns);
  if (!ns) return scan_errorf(scn, st, "out of memory");
  memset(ns, 0, sizeof *ns);
  if (parse_named_body(scn, ns) || scan_expect(scn, '}', "to end sharding attribute")) return HLO_ERR;
  char why[512];
  if (hlo_named_sharding_check(ns, why, sizeof why)) return scan_errorf(scn, st, "invalid named sharding: %s", why);
  s->named = ns;
  if (hlo_named_sharding_tiling(scn->a, s)) return scan_errorf(scn, st, "out of memory");
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_named_sharding_print(&b, ns);
  s->text = take_text(scn, &b);
  return s->text ? HLO_OK : scan_errorf(scn, st, "out of memory");
}

int scan_mesh_groups(scanner *scn, hlo_replica_groups *g) {
  size_t st = (scan_skip(scn), scn->pos);
  hlo_mesh_groups *mg = hlo_arena_alloc(scn->a, sizeof *mg);
  if (!mg) return scan_errorf(scn, st, "out of memory");
  memset(mg, 0, sizeof *mg);
  memset(g, 0, sizeof *g);
  if (parse_mesh(scn, &mg->mesh) || parse_axes(scn, &mg->mesh, &mg->axes, NULL)) return HLO_ERR;
  char why[512];
  if (hlo_mesh_axes_check(&mg->mesh, &mg->axes, why, sizeof why))
    return scan_errorf(scn, st, "invalid mesh-axes replica groups: %s", why);
  g->mesh = mg;
  if (hlo_mesh_groups_expand(scn->a, g, why, sizeof why)) return scan_errorf(scn, st, "%s", why);
  return HLO_OK;
}
