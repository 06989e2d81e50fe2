/* parse_attr.c - attribute values, one parser per hlo_attr_kind.
 * References to computations and instructions are parsed into placeholder
 * objects holding only the name and offset; parse.c resolves them once all
 * names are known. */
#include <stdlib.h>
#include <string.h>

#include "core/bug.h"
#include "text/scan.h"

enum { MAX_LIST = 1 << 20 };

/* A growable int64 list in a scratch arena-free stack buffer. */
typedef struct ilist {
  int64_t *v;
  int n, cap;
  hlo_arena *a;
} ilist;

static int ipush(scanner *scn, ilist *l, int64_t x) {
  if (l->n == l->cap) {
    if (l->cap >= MAX_LIST) return scan_errorf(scn, scn->pos, "list too long");
    int cap = l->cap ? l->cap * 2 : 8;
    int64_t *nv = hlo_arena_array(l->a, (size_t)cap, sizeof *nv);
    if (!nv) return scan_errorf(scn, scn->pos, "out of memory");
    if (l->n) memcpy(nv, l->v, (size_t)l->n * sizeof *nv);
    l->v = nv;
    l->cap = cap;
  }
  l->v[l->n++] = x;
  return HLO_OK;
}

/* A ShapeIndex in an aliasing entry: '{' [INT {',' INT}] '}', with XLA's
 * messages (ParseShapeIndex). */
static int parse_shape_index(scanner *scn, ilist *l) {
  l->a = scn->a;
  if (!scan_accept(scn, '{')) return scan_errorf(scn, (scan_skip(scn), scn->pos), "Expects '{' at the start of ShapeIndex");
  if (scan_accept(scn, '}')) return HLO_OK;
  do {
    int64_t v;
    if (scan_int(scn, &v) || ipush(scn, l, v)) return HLO_ERR;
  } while (scan_accept(scn, ','));
  if (!scan_accept(scn, '}')) return scan_errorf(scn, (scan_skip(scn), scn->pos), "Expects '}' at the end of ShapeIndex");
  return HLO_OK;
}

/* '{' [INT {',' INT}] '}' */
static int parse_ints(scanner *scn, ilist *l) {
  l->a = scn->a;
  if (scan_expect(scn, '{', "to start an integer list")) return HLO_ERR;
  if (scan_accept(scn, '}')) return HLO_OK;
  do {
    int64_t v;
    if (scan_int(scn, &v) || ipush(scn, l, v)) return HLO_ERR;
  } while (scan_accept(scn, ','));
  return scan_expect(scn, '}', "to close the integer list");
}

/* INT {'x' INT} as in window sizes "3x3"; pairs "lo_hi" when pair_sep. */
static int parse_xlist(scanner *scn, ilist *l, int per, const char *what) {
  l->a = scn->a;
  do {
    for (int k = 0; k < per; k++) {
      int64_t v;
      /* "1_2x3_4" is one token: no blanks around '_' (nor skipped here,
       * so an error points just after the last number) */
      if (k && !(scn->pos < scn->end && scn->s[scn->pos] == '_')) {
        if (per == 3 && k == 2) { /* interior padding is optional */
          if (ipush(scn, l, INT64_MIN)) return HLO_ERR;
          break;
        }
        return scan_errorf(scn, scn->pos, "expected '_' in %s: each dimension is low_high%s", what,
                         per == 3 ? " or low_high_interior" : "");
      }
      if (k) scn->pos++;
      if (scan_int(scn, &v) || ipush(scn, l, v)) return HLO_ERR;
    }
  } while (scn->pos < scn->end && scn->s[scn->pos] == 'x' && ++scn->pos);
  if (per == 2 && scn->pos < scn->end && scn->s[scn->pos] == '_') /* XLA's words for "1_1_0" */
    return scan_errorf(scn, scn->pos, "expects padding_low and padding_high separated by '_' in %s", what);
  if (scn->pos < scn->end && scan_is_name_char(scn->s[scn->pos]))
    return scan_errorf(scn, scn->pos, "unexpected '%c' in %s", scn->s[scn->pos], what);
  return HLO_OK;
}

static int parse_window(scanner *scn, hlo_window *w) {
  size_t st = scn->pos;
  if (scan_expect(scn, '{', "to start a window")) return HLO_ERR;
  ilist f[6] = {{0}};
  static const char *const names[6] = {"size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal"};
  while (!scan_accept(scn, '}')) {
    const char *nm;
    size_t at = (scan_skip(scn), scn->pos);
    size_t n = scan_name(scn, &nm, NULL);
    int k = -1;
    for (int i = 0; i < 6; i++)
      if (n == strlen(names[i]) && memcmp(nm, names[i], n) == 0) k = i;
    if (k < 0) return scan_errorf(scn, at, "unknown window field '%.*s'", (int)n, n ? nm : "");
    if (f[k].n) return scan_errorf(scn, at, "window field '%s' given twice", names[k]);
    if (scan_expect(scn, '=', "after a window field")) return HLO_ERR;
    if (parse_xlist(scn, &f[k], k == 2 ? 2 : 1, names[k])) return HLO_ERR;
    if (scn->pos >= scn->end) return scan_errorf(scn, st, "unterminated window");
  }
  int n = f[0].n;
  if (!n) return scan_errorf(scn, st, "window has no size");
  for (int k = 1; k < 6; k++) {
    int got = k == 2 ? f[k].n / 2 : f[k].n;
    if (f[k].n && got != n)
      return scan_errorf(scn, st, "window field '%s' covers %d dimension%s but size covers %d", names[k], got,
                       got == 1 ? "" : "s", n);
  }
  w->n = n;
  w->dims = hlo_arena_array(scn->a, (size_t)n, sizeof *w->dims);
  if (!w->dims) return scan_errorf(scn, st, "out of memory");
  for (int i = 0; i < n; i++) {
    hlo_window_dim *d = &w->dims[i];
    d->size = f[0].v[i];
    d->stride = f[1].n ? f[1].v[i] : 1;
    d->pad_lo = f[2].n ? f[2].v[2 * i] : 0;
    d->pad_hi = f[2].n ? f[2].v[2 * i + 1] : 0;
    d->lhs_dilate = f[3].n ? f[3].v[i] : 1;
    d->rhs_dilate = f[4].n ? f[4].v[i] : 1;
    d->reversal = f[5].n ? f[5].v[i] != 0 : false;
  }
  return HLO_OK;
}

/* One side of dim_labels: b/f (or i/o) and spatial digits, checked in
 * XLA's order (ParseConvolutionDimensionNumbers): no label twice, then
 * each label one of a, b, '?' or a digit below the side's length. */
static int parse_labels(scanner *scn, const char *side, const char *s, size_t n, char a, char b, int64_t *pa,
                        int64_t *pb, int64_t *spatial, int *nsp, size_t at) {
  *pa = *pb = -1;
  int count = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (s[i] == s[j] && s[i] != '?')
        return scan_errorf(scn, at, "expects unique %s dimension numbers, but sees %.*s", side, (int)n, s);
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '?') continue; /* a position naming no dimension */
    if (c == a) {
      *pa = (int64_t)i;
    } else if (c == b) {
      *pb = (int64_t)i;
    } else if (c >= '0' && c <= '9' && (size_t)(c - '0') < n) {
      spatial[c - '0'] = (int64_t)i;
      count++;
    } else {
      return scan_errorf(scn, at, "expects [0-%d%c%c?] in %s dimension numbers", (int)n - 1, a, b, side);
    }
  }
  *nsp = count;
  return HLO_OK;
}

/* What XLA leaves to later stages, checked here since the IR needs it:
 * both of a, b on the side and spatial digits 0..count-1. */
static int check_labels(scanner *scn, char a, char b, int64_t pa, int64_t pb, const int64_t *spatial, int count,
                        size_t at) {
  if (pa < 0 || pb < 0) return scan_errorf(scn, at, "dim_labels need '%c' and '%c' on each side", a, b);
  for (int k = 0; k < count; k++)
    if (spatial[k] < 0) return scan_errorf(scn, at, "dim_labels spatial dimensions must be 0..%d", count - 1);
  return HLO_OK;
}

static int parse_conv_dnums(scanner *scn, hlo_conv_dnums *c) {
  scan_skip(scn);
  size_t st = scn->pos, p = st;
  while (p < scn->end && (scan_is_name_char(scn->s[p]) || scn->s[p] == '>' || scn->s[p] == '?')) p++;
  const char *s = scn->s + st;
  size_t n = p - st;
  const char *us = memchr(s, '_', n), *ar = NULL;
  for (size_t i = 0; i + 1 < n; i++)
    if (s[i] == '-' && s[i + 1] == '>') ar = s + i;
  if (!us || !ar || ar < us) return scan_errorf(scn, st, "malformed dim_labels (expected like b01f_01io->b01f)");
  int64_t in_sp[10], k_sp[10], out_sp[10];
  for (int i = 0; i < 10; i++) in_sp[i] = k_sp[i] = out_sp[i] = -1;
  int n1, n2, n3;
  if (parse_labels(scn, "lhs", s, (size_t)(us - s), 'b', 'f', &c->in_batch, &c->in_feature, in_sp, &n1, st) ||
      parse_labels(scn, "rhs", us + 1, (size_t)(ar - us - 1), 'i', 'o', &c->kernel_in, &c->kernel_out, k_sp, &n2, st) ||
      parse_labels(scn, "output", ar + 2, (size_t)(s + n - ar - 2), 'b', 'f', &c->out_batch, &c->out_feature, out_sp,
                   &n3, st))
    return HLO_ERR;
  if (n1 != n2 || n1 != n3)
    return scan_errorf(scn, st,
                       "input, kernel, and output must have same number of spatial dimensions, but got %d, %d, %d, "
                       "respectively.",
                       n1, n2, n3);
  if (check_labels(scn, 'b', 'f', c->in_batch, c->in_feature, in_sp, n1, st) ||
      check_labels(scn, 'i', 'o', c->kernel_in, c->kernel_out, k_sp, n2, st) ||
      check_labels(scn, 'b', 'f', c->out_batch, c->out_feature, out_sp, n3, st))
    return HLO_ERR;
  c->nspatial = n1;
  c->in_spatial = hlo_arena_array(scn->a, (size_t)n1 + 1, sizeof(int64_t));
  c->kernel_spatial = hlo_arena_array(scn->a, (size_t)n1 + 1, sizeof(int64_t));
  c->out_spatial = hlo_arena_array(scn->a, (size_t)n1 + 1, sizeof(int64_t));
  if (!c->in_spatial || !c->kernel_spatial || !c->out_spatial) return scan_errorf(scn, st, "out of memory");
  for (int i = 0; i < n1; i++) {
    c->in_spatial[i] = in_sp[i];
    c->kernel_spatial[i] = k_sp[i];
    c->out_spatial[i] = out_sp[i];
  }
  scn->pos = p;
  return HLO_OK;
}

/* "shape value", or "(" such literals separated by "," ")" for a tuple
 * (XLA's ParseLiteral(Literal*), used by custom-call's literal=). */
static int parse_shaped_literal(scanner *scn, hlo_literal *l) {
  scan_skip(scn);
  size_t st = scn->pos;
  if (!scan_peek(scn, '(')) {
    hlo_shape ls;
    if (scan_shape(scn, &ls) || hlo_shape_set_default_layouts(scn->a, &ls)) return HLO_ERR;
    if (ls.type == HLO_TUPLE) return scan_errorf(scn, st, "a tuple literal is written as ( shape value, ... )");
    return scan_literal(scn, &ls, l);
  }
  scn->pos++;
  if (scan_enter(scn)) return HLO_ERR;
  int n = 0, cap = 0;
  hlo_literal *v = NULL;
  if (!scan_peek(scn, ')')) {
    do {
      if (n == cap) {
        cap = cap ? 2 * cap : 4;
        hlo_literal *nv = hlo_arena_array(scn->a, (size_t)cap, sizeof *nv);
        if (!nv) return scan_errorf(scn, st, "out of memory");
        if (n) memcpy(nv, v, (size_t)n * sizeof *nv);
        v = nv;
      }
      memset(&v[n], 0, sizeof v[n]);
      if (parse_shaped_literal(scn, &v[n])) return HLO_ERR;
      n++;
    } while (scan_accept(scn, ','));
  }
  scan_leave(scn);
  if (scan_expect(scn, ')', "to close the tuple literal")) return HLO_ERR;
  l->shape = (hlo_shape){.type = HLO_TUPLE, .ntuple = n};
  l->ntuple = n;
  l->tuple = v;
  if (n && !(l->shape.tuple = hlo_arena_array(scn->a, (size_t)n, sizeof *l->shape.tuple)))
    return scan_errorf(scn, st, "out of memory");
  for (int i = 0; i < n; i++) l->shape.tuple[i] = v[i].shape;
  return HLO_OK;
}

static int parse_slices(scanner *scn, hlo_attr *a) {
  if (scan_expect(scn, '{', "to start slice bounds")) return HLO_ERR;
  ilist l = {0};
  l.a = scn->a;
  if (!scan_peek(scn, '}')) {
    do {
      int64_t st, li, str = 1;
      if (scan_expect(scn, '[', "to start a slice bound") || scan_int(scn, &st) ||
          scan_expect(scn, ':', "in a slice bound") || scan_int(scn, &li))
        return HLO_ERR;
      if (scan_accept(scn, ':') && scan_int(scn, &str)) return HLO_ERR;
      if (scan_expect(scn, ']', "to close a slice bound")) return HLO_ERR;
      if (ipush(scn, &l, st) || ipush(scn, &l, li) || ipush(scn, &l, str)) return HLO_ERR;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, '}', "to close slice bounds")) return HLO_ERR;
  a->u.slices.n = l.n / 3;
  a->u.slices.v = hlo_arena_array(scn->a, (size_t)l.n / 3 + 1, sizeof(hlo_slice_dim));
  if (!a->u.slices.v) return scan_errorf(scn, scn->pos, "out of memory");
  for (int i = 0; i < l.n / 3; i++)
    a->u.slices.v[i] = (hlo_slice_dim){l.v[3 * i], l.v[3 * i + 1], l.v[3 * i + 2]};
  return HLO_OK;
}

static int parse_padding(scanner *scn, hlo_padding *p) {
  ilist l = {0};
  size_t st = (scan_skip(scn), scn->pos);
  if (parse_xlist(scn, &l, 3, "padding")) return HLO_ERR;
  p->n = l.n / 3;
  p->dims = hlo_arena_array(scn->a, (size_t)p->n + 1, sizeof *p->dims);
  if (!p->dims) return scan_errorf(scn, st, "out of memory");
  /* as in XLA, each dimension may give or omit its interior padding (0) */
  bool any_int = false;
  for (int i = 0; i < p->n; i++) {
    int64_t in = l.v[3 * i + 2];
    if (in == INT64_MIN) in = 0;
    any_int |= in != 0;
    p->dims[i] = (hlo_pad_dim){l.v[3 * i], l.v[3 * i + 1], in};
  }
  p->has_interior = any_int;
  return HLO_OK;
}

/* {{0,1},{2,3}} | {} | [G,S]<=[dims] [T(perm)] */
static int parse_groups(scanner *scn, hlo_replica_groups *g, bool pairs, hlo_attr *a) {
  scan_skip(scn);
  size_t st = scn->pos;
  if (!pairs && scan_peek(scn, '[')) {
    ilist s1 = {0}, s2 = {0}, s3 = {0};
    s1.a = s2.a = s3.a = scn->a;
    scn->pos++;
    do {
      int64_t v;
      if (scan_int(scn, &v) || ipush(scn, &s1, v)) return HLO_ERR;
    } while (scan_accept(scn, ','));
    if (scan_expect(scn, ']', "in iota replica groups")) return HLO_ERR;
    scan_skip(scn);
    if (!(scn->pos + 1 < scn->end && scn->s[scn->pos] == '<' && scn->s[scn->pos + 1] == '='))
      return scan_errorf(scn, scn->pos, "expected '<=' in iota replica groups");
    scn->pos += 2;
    if (scan_expect(scn, '[', "in iota replica groups")) return HLO_ERR;
    do {
      int64_t v;
      if (scan_int(scn, &v) || ipush(scn, &s2, v)) return HLO_ERR;
    } while (scan_accept(scn, ','));
    if (scan_expect(scn, ']', "in iota replica groups")) return HLO_ERR;
    if (scn->pos + 1 < scn->end && scn->s[scn->pos] == 'T' && scn->s[scn->pos + 1] == '(') {
      scn->pos++;
      scn->pos++;
      do {
        int64_t v;
        if (scan_int(scn, &v) || ipush(scn, &s3, v)) return HLO_ERR;
      } while (scan_accept(scn, ','));
      if (scan_expect(scn, ')', "in iota replica groups")) return HLO_ERR;
    }
    if (s1.n != 2) return scan_errorf(scn, st, "iota replica groups need [groups,size]");
    g->iota = true;
    g->niota_shape = s1.n; g->iota_shape = s1.v;
    g->niota_reshape = s2.n; g->iota_reshape = s2.v;
    g->niota_perm = s3.n; g->iota_perm = s3.v;
    return HLO_OK;
  }
  if (scan_expect(scn, '{', "to start a list of groups")) return HLO_ERR;
  int cap = 0, n = 0;
  int64_t **groups = NULL;
  int *sizes = NULL;
  if (!scan_peek(scn, '}')) {
    do {
      ilist l = {0};
      if (parse_ints(scn, &l)) return HLO_ERR;
      if (pairs && l.n != 2) return scan_errorf(scn, st, "source_target_pairs need pairs {source,target}");
      if (n == cap) {
        cap = cap ? cap * 2 : 8;
        int64_t **ng = hlo_arena_array(scn->a, (size_t)cap, sizeof *ng);
        int *ns = hlo_arena_array(scn->a, (size_t)cap, sizeof *ns);
        if (!ng || !ns) return scan_errorf(scn, st, "out of memory");
        if (n) {
          memcpy(ng, groups, (size_t)n * sizeof *ng);
          memcpy(ns, sizes, (size_t)n * sizeof *ns);
        }
        groups = ng;
        sizes = ns;
      }
      groups[n] = l.v;
      sizes[n] = l.n;
      n++;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, '}', "to close the list of groups")) return HLO_ERR;
  if (pairs) {
    a->u.pairs.n = n;
    a->u.pairs.v = hlo_arena_array(scn->a, (size_t)n + 1, sizeof *a->u.pairs.v);
    if (!a->u.pairs.v) return scan_errorf(scn, st, "out of memory");
    for (int i = 0; i < n; i++) {
      a->u.pairs.v[i][0] = groups[i][0];
      a->u.pairs.v[i][1] = groups[i][1];
    }
    return HLO_OK;
  }
  g->ngroups = n;
  g->groups = groups;
  g->group_sizes = sizes;
  return HLO_OK;
}

static hlo_computation *comp_ref(scanner *scn) {
  const char *nm;
  size_t at = (scan_skip(scn), scn->pos);
  if (scan_peek(scn, '{') && scn->inline_comp) return scn->inline_comp(scn, scn->inline_ctx);
  size_t n = scan_name(scn, &nm, NULL);
  if (!n) {
    scan_errorf(scn, at, "expected a computation name");
    return NULL;
  }
  hlo_computation *c = hlo_arena_alloc(scn->a, sizeof *c);
  if (!c || !(c->name = hlo_arena_strndup(scn->a, nm, n))) {
    scan_errorf(scn, at, "out of memory");
    return NULL;
  }
  c->off = at;
  c->id = -1; /* placeholder */
  return c;
}

static hlo_instruction *instr_ref(scanner *scn) {
  const char *nm;
  size_t at = (scan_skip(scn), scn->pos);
  size_t n = scan_name(scn, &nm, NULL);
  if (!n) {
    scan_errorf(scn, at, "expected an instruction name");
    return NULL;
  }
  hlo_instruction *i = hlo_arena_alloc(scn->a, sizeof *i);
  if (!i || !(i->name = hlo_arena_strndup(scn->a, nm, n))) {
    scan_errorf(scn, at, "out of memory");
    return NULL;
  }
  i->off = at;
  i->id = -1;
  return i;
}

/* '{' item {',' item} '}' of pointers produced by fn. */
static int parse_refs(scanner *scn, void ***out, int *nout, void *(*fn)(scanner *)) {
  if (scan_expect(scn, '{', "to start a list of names")) return HLO_ERR;
  int n = 0, cap = 0;
  void **v = NULL;
  if (!scan_peek(scn, '}')) {
    do {
      void *p = fn(scn);
      if (!p) return HLO_ERR;
      if (n == cap) {
        cap = cap ? cap * 2 : 4;
        if (cap > MAX_LIST) return scan_errorf(scn, scn->pos, "list too long");
        void **nv = hlo_arena_array(scn->a, (size_t)cap, sizeof *nv);
        if (!nv) return scan_errorf(scn, scn->pos, "out of memory");
        if (n) memcpy(nv, v, (size_t)n * sizeof *nv);
        v = nv;
      }
      v[n++] = p;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, '}', "to close the list of names")) return HLO_ERR;
  *out = v;
  *nout = n;
  return HLO_OK;
}

static void *comp_ref_v(scanner *scn) { return comp_ref(scn); }

/* At '{' opening a computation's instructions (ROOT, or a name and '='),
 * not a braced list of computation names. */
static bool at_inline_body(scanner *scn) {
  if (!scn->inline_comp || !scan_peek(scn, '{')) return false;
  size_t keep = scn->pos;
  scn->pos++;
  bool body = scan_accept_kw(scn, "ROOT");
  if (!body) {
    const char *nm;
    body = scan_name(scn, &nm, NULL) && scan_peek(scn, '=');
  }
  scn->pos = keep;
  return body;
}
static void *instr_ref_v(scanner *scn) { return instr_ref(scn); }

static int parse_shapes(scanner *scn, hlo_attr *a) {
  if (scan_expect(scn, '{', "to start a list of shapes")) return HLO_ERR;
  int n = 0, cap = 0;
  hlo_shape *v = NULL;
  if (!scan_peek(scn, '}')) {
    do {
      if (n == cap) {
        cap = cap ? cap * 2 : 4;
        hlo_shape *nv = hlo_arena_array(scn->a, (size_t)cap, sizeof *nv);
        if (!nv) return scan_errorf(scn, scn->pos, "out of memory");
        if (n) memcpy(nv, v, (size_t)n * sizeof *nv);
        v = nv;
      }
      if (scan_shape(scn, &v[n])) return HLO_ERR;
      n++;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, '}', "to close the list of shapes")) return HLO_ERR;
  a->u.shapes.n = n;
  a->u.shapes.v = v;
  return HLO_OK;
}

/* {(shape, ...)->shape} */
static int parse_program_shape(scanner *scn, hlo_program_shape *ps) {
  if (scan_expect(scn, '{', "to start a program shape") || scan_expect(scn, '(', "to start the parameter shapes"))
    return HLO_ERR;
  hlo_shape tup;
  scn->pos--; /* reuse the tuple parser for the parameter list */
  if (scan_shape(scn, &tup)) return HLO_ERR;
  ps->nparams = tup.ntuple;
  ps->params = tup.tuple;
  scan_skip(scn);
  if (!(scn->pos + 1 < scn->end && scn->s[scn->pos] == '-' && scn->s[scn->pos + 1] == '>'))
    return scan_errorf(scn, scn->pos, "expected '->' in a program shape");
  scn->pos += 2;
  if (scan_shape(scn, &ps->result)) return HLO_ERR;
  return scan_expect(scn, '}', "to close the program shape");
}

/* aliasing -> '{' [entry {',' entry}] '}'
 * entry    -> ints ':' '(' INT ',' ints [',' kind] ')'  (input_output_alias)
 *           | ints ':' '(' INT ',' ints ')'             (output_to_operand_aliasing)
 *           | '(' INT ',' ints ')'                      (buffer_donor)
 * kind     -> 'may-alias' | 'must-alias' */
static int parse_aliasing(scanner *scn, hlo_aliasing *al, hlo_attr_key key) {
  const bool with_output = key != HLO_A_BUFFER_DONOR, with_kind = key == HLO_A_INPUT_OUTPUT_ALIAS;
  scan_skip(scn);
  size_t st = scn->pos;
  if (scan_expect(scn, '{', "to start an aliasing list")) return HLO_ERR;
  int cap = 0;
  while (!scan_peek(scn, '}')) {
    if (al->n && !scan_accept(scn, ','))
      return scan_errorf(scn, (scan_skip(scn), scn->pos), "Expects '}' at the end of aliasing description");
    if (al->n == cap) {
      cap = cap ? cap * 2 : 4;
      hlo_alias_entry *nv = hlo_arena_array(scn->a, (size_t)cap, sizeof *nv);
      if (!nv) return scan_errorf(scn, st, "out of memory");
      if (al->n) memcpy(nv, al->v, (size_t)al->n * sizeof *nv);
      al->v = nv;
    }
    hlo_alias_entry *e = &al->v[al->n];
    memset(e, 0, sizeof *e);
    if (with_output) {
      ilist out = {0};
      if (parse_shape_index(scn, &out) || scan_expect(scn, ':', "after the output index")) return HLO_ERR;
      e->output_index = out.v;
      e->noutput = out.n;
    }
    ilist idx = {0};
    if (scan_expect(scn, '(', "to start an aliased operand") || scan_int(scn, &e->operand) ||
        scan_expect(scn, ',', "after the operand number") || parse_shape_index(scn, &idx))
      return HLO_ERR;
    e->operand_index = idx.v;
    e->noperand_index = idx.n;
    if (with_kind && scan_accept(scn, ',')) {
      const char *w;
      size_t at = (scan_skip(scn), scn->pos);
      size_t n = scan_name(scn, &w, NULL);
      if (!((n == 9 && memcmp(w, "may-alias", 9) == 0) || (n == 10 && memcmp(w, "must-alias", 10) == 0)))
        return scan_errorf(scn, at, "expected may-alias or must-alias");
      if (!(e->kind = hlo_arena_strndup(scn->a, w, n))) return scan_errorf(scn, at, "out of memory");
    }
    if (scan_expect(scn, ')', "to close an aliased operand")) return HLO_ERR;
    al->n++;
  }
  scn->pos++; /* '}' */
  al->text = hlo_arena_strndup(scn->a, scn->s + st, scn->pos - st);
  return al->text ? HLO_OK : scan_errorf(scn, st, "out of memory");
}

/* '[' INT {',' INT} ']' */
static int bracket_ints(scanner *scn, int64_t **v, int *n) {
  ilist l = {0};
  l.a = scn->a;
  if (scan_expect(scn, '[', "to start a list of dimensions")) return HLO_ERR;
  if (!scan_peek(scn, ']')) {
    do {
      int64_t x;
      if (scan_int(scn, &x) || ipush(scn, &l, x)) return HLO_ERR;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, ']', "to close the list of dimensions")) return HLO_ERR;
  *v = l.v;
  *n = l.n;
  return HLO_OK;
}

static bool has_named(const hlo_sharding *s) {
  if (s->named) return true;
  for (int i = 0; i < s->ntuple; i++)
    if (has_named(&s->tuple[i])) return true;
  return false;
}

/* sharding -> '{' ( sharding {',' sharding} | item {item} ) '}'
 * item     -> replicated | manual | unknown | maximal device=INT
 *           | devices=[dims](ids | <=[dims][T(perm)])
 *           | last_tile_dim_replicate | last_tile_dims={words}
 *           | metadata={...} | other words kept only in the text
 *           | mesh[...] ... (mesh-based, parse_mesh.c) */
static int parse_sharding(scanner *scn, hlo_sharding *s) {
  scan_skip(scn);
  size_t st = scn->pos;
  memset(s, 0, sizeof *s);
  s->kind = HLO_SHARD_OTHER;
  if (scan_expect(scn, '{', "to start a sharding")) return HLO_ERR;
  if (scan_enter(scn)) return HLO_ERR;
  int rc = HLO_OK;
  if (scan_at_mesh(scn)) {
    rc = scan_named_sharding(scn, s, st);
    scan_leave(scn);
    return rc;
  }
  if (scan_peek(scn, '{')) { /* tuple */
    s->kind = HLO_SHARD_TUPLE;
    int cap = 0;
    do {
      if (s->ntuple == cap) {
        cap = cap ? cap * 2 : 4;
        hlo_sharding *nt = hlo_arena_array(scn->a, (size_t)cap, sizeof *nt);
        if (!nt) { rc = scan_errorf(scn, st, "out of memory"); break; }
        if (s->ntuple) memcpy(nt, s->tuple, (size_t)s->ntuple * sizeof *nt);
        s->tuple = nt;
      }
      if ((rc = parse_sharding(scn, &s->tuple[s->ntuple]))) break;
      s->ntuple++;
    } while (scan_accept(scn, ','));
  } else {
    while (!rc && !scan_peek(scn, '}')) {
      const char *w;
      size_t at = (scan_skip(scn), scn->pos);
      size_t n = scan_name(scn, &w, NULL);
      if (!n) { rc = scan_errorf(scn, at, "unexpected text in sharding"); break; }
#define IS(k) (n == sizeof(k) - 1 && memcmp(w, k, n) == 0)
      if (IS("replicated")) s->kind = HLO_SHARD_REPLICATED;
      else if (IS("manual")) s->kind = HLO_SHARD_MANUAL;
      else if (IS("unknown")) s->kind = HLO_SHARD_UNKNOWN;
      else if (IS("maximal")) s->kind = HLO_SHARD_MAXIMAL;
      else if (IS("last_tile_dim_replicate")) s->last_tile_dim_replicate = true;
      else if (IS("device")) {
        rc = scan_expect(scn, '=', "after 'device'");
        if (!rc) rc = scan_int(scn, &s->device);
      } else if (IS("devices")) {
        s->kind = HLO_SHARD_TILED;
        rc = scan_expect(scn, '=', "after 'devices'");
        if (!rc) rc = bracket_ints(scn, &s->tile, &s->ntile);
        if (rc) break;
        scan_skip(scn);
        if (scn->pos + 1 < scn->end && scn->s[scn->pos] == '<' && scn->s[scn->pos + 1] == '=') {
          scn->pos += 2;
          s->iota = true;
          rc = bracket_ints(scn, &s->iota_reshape, &s->niota_reshape);
          if (!rc && scn->pos + 1 < scn->end && scn->s[scn->pos] == 'T' && scn->s[scn->pos + 1] == '(') {
            scn->pos++;
            ilist l = {0};
            l.a = scn->a;
            scn->pos++;
            do {
              int64_t x;
              if ((rc = scan_int(scn, &x)) || (rc = ipush(scn, &l, x))) break;
            } while (scan_accept(scn, ','));
            if (!rc) rc = scan_expect(scn, ')', "to close the permutation");
            s->iota_perm = l.v;
            s->niota_perm = l.n;
          }
        } else {
          ilist l = {0};
          l.a = scn->a;
          do {
            int64_t x;
            if ((rc = scan_int(scn, &x)) || (rc = ipush(scn, &l, x))) break;
          } while (scan_accept(scn, ','));
          s->devices = l.v;
          s->ndevices = l.n;
        }
      } else if (IS("last_tile_dims")) {
        hlo_attr tmp = {.kind = HLO_AK_WORDS, .name = "last_tile_dims"};
        rc = scan_expect(scn, '=', "after 'last_tile_dims'");
        if (!rc) rc = scan_attr_value(scn, &tmp);
        s->nlast_tile_dims = tmp.u.words.n;
        s->last_tile_dims = tmp.u.words.v;
      } else if (scan_accept(scn, '=')) { /* metadata={...} and other key=value parts */
        const char *ignored;
        rc = scan_raw_value(scn, &ignored);
      }
      /* any other bare word (shard_as, shard_like, ...) stays in the text */
#undef IS
    }
  }
  scan_leave(scn);
  if (rc) return HLO_ERR;
  if (scan_expect(scn, '}', "to close the sharding")) return HLO_ERR;
  if (!has_named(s)) {
    s->text = hlo_arena_strndup(scn->a, scn->s + st, scn->pos - st);
    return s->text ? HLO_OK : scan_errorf(scn, st, "out of memory");
  }
  /* a tuple holding mesh-based shardings prints as XLA's HloSharding::Print
   * does: elements joined by ", ", with an index comment before every fifth */
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_buf_putc(&b, '{');
  for (int i = 0; i < s->ntuple; i++) {
    if (i % 5 == 0 && i) hlo_buf_printf(&b, ", /*index=%d*/", i);
    else if (i) hlo_buf_puts(&b, ", ");
    hlo_buf_puts(&b, s->tuple[i].text);
  }
  hlo_buf_putc(&b, '}');
  s->text = b.failed ? NULL : hlo_arena_strndup(scn->a, b.data, b.len);
  hlo_buf_release(&b);
  return s->text ? HLO_OK : scan_errorf(scn, st, "out of memory");
}

int scan_attr_value(scanner *scn, hlo_attr *a) {
  scan_skip(scn);
  size_t st = scn->pos;
  switch (a->kind) {
  case HLO_AK_INT:
    return scan_int(scn, &a->u.i);
  case HLO_AK_BOOL:
    if (scan_accept_kw(scn, "true")) a->u.b = true;
    else if (scan_accept_kw(scn, "false")) a->u.b = false;
    else return scan_errorf(scn, st, "expected true or false for '%s'", a->name);
    return HLO_OK;
  case HLO_AK_FLOAT: {
    const char *raw;
    if (scan_raw_value(scn, &raw)) return HLO_ERR;
    char *end;
    a->u.f = strtod(raw, &end);
    if (*end || end == raw) return scan_errorf(scn, st, "expected a number for '%s'", a->name);
    return HLO_OK;
  }
  case HLO_AK_STRING:
    return scan_string(scn, &a->u.s);
  case HLO_AK_WORD: {
    const char *w;
    size_t n = scan_name(scn, &w, NULL);
    if (!n) return scan_errorf(scn, st, "expected a word for '%s'", a->name);
    a->u.s = hlo_arena_strndup(scn->a, w, n);
    return a->u.s ? HLO_OK : scan_errorf(scn, st, "out of memory");
  }
  case HLO_AK_INT_LISTS:
    return HLO_ERR; /* never a key's kind: see HLO_AK_INTS */
  case HLO_AK_INTS: {
    if (a->key == HLO_A_SLICE_SIZES && scn->pos + 1 < scn->end && scn->s[scn->pos] == '{' &&
        scn->s[scn->pos + 1] == '{') {
      /* collective-permute's list of int lists (kBracedInt64ListList) */
      a->kind = HLO_AK_INT_LISTS;
      if (!(a->u.groups = hlo_arena_alloc(scn->a, sizeof *a->u.groups))) return scan_errorf(scn, st, "out of memory");
      return parse_groups(scn, a->u.groups, false, a);
    }
    ilist l = {0};
    if (parse_ints(scn, &l)) return HLO_ERR;
    a->u.ints.n = l.n;
    a->u.ints.v = l.v;
    return HLO_OK;
  }
  case HLO_AK_BOOLS:
  case HLO_AK_WORDS: {
    if (scan_expect(scn, '{', "to start a list")) return HLO_ERR;
    int n = 0, cap = 0;
    const char **v = NULL;
    if (!scan_peek(scn, '}')) {
      do {
        const char *w;
        size_t at = (scan_skip(scn), scn->pos);
        size_t wn = scan_name(scn, &w, NULL);
        if (!wn) return scan_errorf(scn, at, "expected a word in '%s'", a->name);
        if (n == cap) {
          cap = cap ? cap * 2 : 4;
          const char **nv = hlo_arena_array(scn->a, (size_t)cap, sizeof *nv);
          if (!nv) return scan_errorf(scn, at, "out of memory");
          if (n) memcpy(nv, v, (size_t)n * sizeof *nv);
          v = nv;
        }
        if (!(v[n++] = hlo_arena_strndup(scn->a, w, wn))) return scan_errorf(scn, at, "out of memory");
        if (a->kind == HLO_AK_BOOLS && strcmp(v[n - 1], "true") && strcmp(v[n - 1], "false"))
          return scan_errorf(scn, at, "expected true or false in '%s'", a->name);
      } while (scan_accept(scn, ','));
    }
    if (scan_expect(scn, '}', "to close the list")) return HLO_ERR;
    if (a->kind == HLO_AK_WORDS) {
      a->u.words.n = n;
      a->u.words.v = v;
    } else {
      a->u.bools.n = n;
      a->u.bools.v = hlo_arena_array(scn->a, (size_t)n + 1, sizeof(bool));
      if (!a->u.bools.v) return scan_errorf(scn, st, "out of memory");
      for (int i = 0; i < n; i++) a->u.bools.v[i] = strcmp(v[i], "true") == 0;
    }
    return HLO_OK;
  }
  case HLO_AK_COMP:
    return (a->u.comp = comp_ref(scn)) ? HLO_OK : HLO_ERR;
  case HLO_AK_COMPS:
    /* a name, or calls={ p = ... }: one computation written inline */
    if (!scan_peek(scn, '{') || at_inline_body(scn)) {
      hlo_computation *c = comp_ref(scn);
      if (!c) return HLO_ERR;
      a->u.comps.v = hlo_arena_alloc(scn->a, sizeof(hlo_computation *));
      if (!a->u.comps.v) return scan_errorf(scn, st, "out of memory");
      a->u.comps.v[0] = c;
      a->u.comps.n = 1;
      a->u.comps.braced = false;
      return HLO_OK;
    }
    a->u.comps.braced = true;
    return parse_refs(scn, (void ***)&a->u.comps.v, &a->u.comps.n, comp_ref_v);
  case HLO_AK_INSTRS:
    return parse_refs(scn, (void ***)&a->u.instrs.v, &a->u.instrs.n, instr_ref_v);
  case HLO_AK_WINDOW:
    return parse_window(scn, &a->u.window);
  case HLO_AK_CONV_DNUMS:
    if (!(a->u.conv = hlo_arena_alloc(scn->a, sizeof *a->u.conv))) return scan_errorf(scn, st, "out of memory");
    return parse_conv_dnums(scn, a->u.conv);
  case HLO_AK_SLICES:
    return parse_slices(scn, a);
  case HLO_AK_PADDING:
    return parse_padding(scn, &a->u.padding);
  case HLO_AK_REPLICA_GROUPS:
    if (!(a->u.groups = hlo_arena_alloc(scn->a, sizeof *a->u.groups))) return scan_errorf(scn, st, "out of memory");
    if (scan_at_mesh(scn)) return scan_mesh_groups(scn, a->u.groups);
    return parse_groups(scn, a->u.groups, false, a);
  case HLO_AK_PAIRS:
    return parse_groups(scn, NULL, true, a);
  case HLO_AK_SHAPE:
    if (!(a->u.shape = hlo_arena_alloc(scn->a, sizeof *a->u.shape))) return scan_errorf(scn, st, "out of memory");
    return scan_shape(scn, a->u.shape);
  case HLO_AK_SHAPES:
    return parse_shapes(scn, a);
  case HLO_AK_SHARDING:
    if (!scan_peek(scn, '{')) return scan_errorf(scn, st, "expected '{' to start a sharding");
    if (!(a->u.sharding = hlo_arena_alloc(scn->a, sizeof *a->u.sharding))) return scan_errorf(scn, st, "out of memory");
    return parse_sharding(scn, a->u.sharding);
  case HLO_AK_PROGRAM_SHAPE:
    if (!(a->u.pshape = hlo_arena_alloc(scn->a, sizeof *a->u.pshape))) return scan_errorf(scn, st, "out of memory");
    return parse_program_shape(scn, a->u.pshape);
  case HLO_AK_LITERAL:
    a->u.literal = hlo_arena_alloc(scn->a, sizeof *a->u.literal);
    if (!a->u.literal) return scan_errorf(scn, st, "out of memory");
    return parse_shaped_literal(scn, a->u.literal);
  case HLO_AK_ALIASING:
    return parse_aliasing(scn, &a->u.aliasing, a->key);
  case HLO_AK_RAW:
    return scan_raw_value(scn, &a->u.s);
  }
  HLO_BUG("attribute kind %d is not in hlo_attrs.def", (int)a->kind); /* the switch covers every kind */
}

/* A whole attribute value of kind k standing alone in src. */
static int parse_alone(const hlo_src *src, hlo_arena *arena, hlo_attr *a, hlo_diags *d) {
  scanner scn = {.src = src, .s = src->text, .pos = 0, .end = src->len, .d = d, .a = arena, .max_depth = 256};
  if (scan_attr_value(&scn, a)) return HLO_ERR;
  if (!scan_at_end(&scn)) return scan_errorf(&scn, scn.pos, "unexpected text after the %s", a->name);
  return HLO_OK;
}

int hlo_parse_sharding(const hlo_src *src, hlo_arena *arena, hlo_sharding *out, hlo_diags *d) {
  hlo_attr a = {.kind = HLO_AK_SHARDING, .name = "sharding"};
  if (parse_alone(src, arena, &a, d)) return HLO_ERR;
  *out = *a.u.sharding;
  return HLO_OK;
}

int hlo_parse_replica_groups(const hlo_src *src, hlo_arena *arena, hlo_replica_groups *out, hlo_diags *d) {
  hlo_attr a = {.kind = HLO_AK_REPLICA_GROUPS, .name = "replica_groups"};
  if (parse_alone(src, arena, &a, d)) return HLO_ERR;
  *out = *a.u.groups;
  return HLO_OK;
}
