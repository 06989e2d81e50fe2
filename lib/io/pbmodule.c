/* pbmodule.c - an HloModuleProto (hlo.proto) from the field tree of pbtxt.c
 * written as HLO text for the text parser: ids become names, computations
 * come callees first and instructions operands first.  Every field it does
 * not turn into text is an error naming its proto path. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_fp.h"
#include "hlo/hlo_ir.h"
#include "hlo/hlo_pbtxt.h"
#include "pbtxt.h"

typedef struct pins { /* one HloInstructionProto */
  const pb_node *n;
  int64_t id;
  const char *name;
  int comp, k;       /* its computation and index there */
} pins;

typedef struct pcomp { /* one HloComputationProto */
  const pb_node *n;
  int64_t id, root;
  bool has_root;
  const char *name;
  int first, count;  /* its instructions: ins[first .. first+count) */
} pcomp;

typedef struct id_ref {
  int64_t id;
  int k;
} id_ref;

typedef struct cv {
  hlo_arena *a;
  const hlo_src *src;
  hlo_diags *d;
  hlo_buf *out;
  pins *ins;
  int nins;
  id_ref *byid;      /* the instructions by id */
  pcomp *comps;
  int ncomps;
  int ci, ii;        /* where errors are (-1: none) */
  const pb_node *here; /* the message they are in */
  const pb_node *top;  /* the instruction field being read (a nested error names it too) */
} cv;

static bool is(const pb_node *n, const char *name) { return strcmp(n->name, name) == 0; }

/* An error at n: "hlo.hlo_module.computations[c].instructions[i].FIELD: ...". */
static int fail(cv *C, const pb_node *n, const char *fmt, ...) HLO_PRINTF(3, 4);
static int fail(cv *C, const pb_node *n, const char *fmt, ...) {
  char path[160] = "hlo.hlo_module", msg[400];
  size_t l = strlen(path);
  if (C->ci >= 0) l += (size_t)snprintf(path + l, sizeof path - l, ".computations[%d]", C->ci);
  if (C->ii >= 0 && l < sizeof path) l += (size_t)snprintf(path + l, sizeof path - l, ".instructions[%d]", C->ii);
  if (C->top && n != C->top && l < sizeof path) l += (size_t)snprintf(path + l, sizeof path - l, ".%s", C->top->name);
  if (n && l < sizeof path) snprintf(path + l, sizeof path - l, ".%s", n->name);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return hlo_errorf(C->d, C->src, n ? n->off : C->here ? C->here->off : 0, "%s: %s", path, msg);
}

static int want_msg(cv *C, const pb_node *n) {
  return n->is_msg ? HLO_OK : fail(C, n, "must be a message { ... }");
}

static int want_str(cv *C, const pb_node *n, const char **s) {
  if (n->is_msg || !n->is_string) return fail(C, n, "must be a string");
  *s = n->val;
  return HLO_OK;
}

static int get_int(cv *C, const pb_node *n, int64_t *v) {
  if (n->is_msg) return fail(C, n, "must be a number");
  return pb_read_int(C->src, C->d, n, INT64_MIN, INT64_MAX, v);
}

/* The token of an enum value into buf. */
static int get_enum(cv *C, const pb_node *n, char *buf, size_t cap) {
  if (n->is_msg || n->is_string || n->len >= cap) return fail(C, n, "must be an enum name");
  memcpy(buf, n->val, n->len);
  buf[n->len] = 0;
  return HLO_OK;
}

/* Every value of the repeated integer field `name` in message m as
 * "{a,b,...}" (or "a x b" with sep "x"). */
static int ints(cv *C, const pb_node *m, const char *name, hlo_buf *b, const char *open, const char *sep,
                const char *close) {
  hlo_buf_puts(b, open);
  int k = 0;
  for (const pb_node *f = m->child; f; f = f->next) {
    if (!is(f, name)) continue;
    int64_t v;
    if (get_int(C, f, &v)) return HLO_ERR;
    hlo_buf_printf(b, "%s%lld", k++ ? sep : "", (long long)v);
  }
  hlo_buf_puts(b, close);
  return HLO_OK;
}

static int only(cv *C, const pb_node *m, const char *const *names);

/* Message m of integer fields: the value of names[k] into x[k] (x keeps
 * its default when the field is absent); other fields are errors. */
static int msg_ints(cv *C, const pb_node *m, const char *const *names, int64_t *x) {
  if (!m->is_msg) return fail(C, m, "must be a message { ... }");
  if (only(C, m, names)) return HLO_ERR;
  for (const pb_node *h = m->child; h; h = h->next)
    for (int q = 0; names[q]; q++)
      if (is(h, names[q]) && get_int(C, h, &x[q])) return HLO_ERR;
  return HLO_OK;
}

/* Whether every child of m is one of the names (a NULL-ended list); the
 * first other is an error. */
static int only(cv *C, const pb_node *m, const char *const *names) {
  for (const pb_node *f = m->child; f; f = f->next) {
    bool ok = false;
    for (const char *const *k = names; *k && !ok; k++) ok = is(f, *k);
    if (!ok) return fail(C, f, "unsupported field");
  }
  return HLO_OK;
}

static void lower(hlo_buf *b, const char *s) {
  for (; *s; s++) hlo_buf_putc(b, (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s));
}

/* ShapeProto as HLO text. */
static int shape(cv *C, const pb_node *s, hlo_buf *b, int depth) {
  static const char *const F[] = {"element_type", "dimensions", "is_dynamic_dimension", "layout", "tuple_shapes", NULL};
  if (want_msg(C, s) || only(C, s, F)) return HLO_ERR;
  if (depth > 64) return fail(C, s, "tuple shapes nested too deeply");
  hlo_type t = HLO_F32;
  bool has_t = false;
  for (const pb_node *f = s->child; f; f = f->next)
    if (is(f, "element_type")) {
      if (pb_read_prim_type(C->src, C->d, f, &t)) return HLO_ERR;
      has_t = true;
    }
  if (!has_t) return fail(C, s, "no element_type");
  if (t == HLO_TUPLE) {
    hlo_buf_putc(b, '(');
    int k = 0;
    for (const pb_node *f = s->child; f; f = f->next)
      if (is(f, "tuple_shapes")) {
        if (k++) hlo_buf_puts(b, ", ");
        if (shape(C, f, b, depth + 1)) return HLO_ERR;
      }
    hlo_buf_putc(b, ')');
    return HLO_OK;
  }
  lower(b, hlo_type_name(t));
  hlo_buf_putc(b, '[');
  const pb_node *dyn = s->child;
  int k = 0;
  for (const pb_node *f = s->child; f; f = f->next) {
    if (!is(f, "dimensions")) continue;
    int64_t v;
    if (get_int(C, f, &v)) return HLO_ERR;
    bool isdyn = false;
    while (dyn && !is(dyn, "is_dynamic_dimension")) dyn = dyn->next;
    if (dyn) {
      if (pb_read_bool(C->src, C->d, dyn, &isdyn)) return HLO_ERR;
      dyn = dyn->next;
    }
    hlo_buf_printf(b, "%s%s%lld", k++ ? "," : "", isdyn ? "<=" : "", (long long)v);
  }
  hlo_buf_putc(b, ']');
  for (const pb_node *f = s->child; f; f = f->next) {
    if (!is(f, "layout")) continue;
    static const char *const L[] = {"minor_to_major", NULL};
    if (want_msg(C, f) || only(C, f, L)) return HLO_ERR;
    if (k && ints(C, f, "minor_to_major", b, "{", ",", "}")) return HLO_ERR;
  }
  return HLO_OK;
}

/* The elements of an array literal, nested in braces by dimension. */
static void elems(hlo_buf *b, const hlo_array *x, int dim, int64_t *at) {
  if (dim == x->rank) {
    const unsigned char *p = (const unsigned char *)x->data + (size_t)*at * hlo_type_bytes(x->type);
    double f = 0;
    bool fl = true;
    (*at)++;
    switch (x->type) {
    case HLO_PRED: hlo_buf_puts(b, *p ? "true" : "false"); return;
    case HLO_S8: hlo_buf_printf(b, "%d", *(const int8_t *)p); return;
    case HLO_S16: hlo_buf_printf(b, "%d", *(const int16_t *)p); return;
    case HLO_S32: hlo_buf_printf(b, "%d", *(const int32_t *)p); return;
    case HLO_S64: hlo_buf_printf(b, "%lld", (long long)*(const int64_t *)p); return;
    case HLO_U8: hlo_buf_printf(b, "%u", *p); return;
    case HLO_U16: hlo_buf_printf(b, "%u", *(const uint16_t *)p); return;
    case HLO_U32: hlo_buf_printf(b, "%u", *(const uint32_t *)p); return;
    case HLO_U64: hlo_buf_printf(b, "%llu", (unsigned long long)*(const uint64_t *)p); return;
    case HLO_F16: f = hlo_f16_to_f32(*(const uint16_t *)p); break;
    case HLO_BF16: f = hlo_bf16_to_f32(*(const uint16_t *)p); break;
    case HLO_F32: f = *(const float *)p; break;
    case HLO_F64: f = *(const double *)p; fl = false; break;
    default: return;
    }
    if (isnan(f)) hlo_buf_puts(b, "nan");
    else if (isinf(f)) hlo_buf_puts(b, f < 0 ? "-inf" : "inf");
    else hlo_buf_printf(b, fl ? "%.9g" : "%.17g", f);
    return;
  }
  hlo_buf_putc(b, '{');
  for (int64_t i = 0; i < x->dims[dim]; i++) {
    if (i) hlo_buf_putc(b, ',');
    elems(b, x, dim + 1, at);
  }
  hlo_buf_putc(b, '}');
}

static int literal(cv *C, const pb_node *n, hlo_buf *b) {
  hlo_pb_literal lit;
  if (pb_read_literal(C->a, C->src, C->d, n, &lit)) return HLO_ERR;
  switch (lit.arr.type) {
  case HLO_PRED: case HLO_S8: case HLO_S16: case HLO_S32: case HLO_S64: case HLO_U8: case HLO_U16:
  case HLO_U32: case HLO_U64: case HLO_F16: case HLO_BF16: case HLO_F32: case HLO_F64: break;
  default: return fail(C, n, "constants of type %s are not supported", hlo_type_name(lit.arr.type));
  }
  int64_t at = 0;
  elems(b, &lit.arr, 0, &at);
  return HLO_OK;
}

/* A string attribute value in double quotes with escapes. */
static void quoted(hlo_buf *b, const char *s, size_t n) {
  hlo_buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') hlo_buf_printf(b, "\\%c", c);
    else if (c == '\n') hlo_buf_puts(b, "\\n");
    else if (c < 32 || c >= 127) hlo_buf_printf(b, "\\%03o", c);
    else hlo_buf_putc(b, (char)c);
  }
  hlo_buf_putc(b, '"');
}

/* Window: size=3x3 stride=.. pad=lo_hi x .. lhs_dilate= rhs_dilate= rhs_reversal=. */
static int window(cv *C, const pb_node *w, hlo_buf *b) {
  static const char *const W[] = {"dimensions", NULL};
  static const char *const D[] = {"size", "stride", "padding_low", "padding_high", "window_dilation", "base_dilation",
                                  "window_reversal", NULL};
  if (want_msg(C, w) || only(C, w, W)) return HLO_ERR;
  int nd = 0;
  int64_t v[7][HLO_NPY_MAX_RANK];
  bool nondef[7] = {false};
  for (const pb_node *f = w->child; f; f = f->next) {
    if (want_msg(C, f) || only(C, f, D)) return HLO_ERR;
    if (nd == HLO_NPY_MAX_RANK) return fail(C, f, "too many window dimensions");
    const int64_t def[7] = {1, 1, 0, 0, 1, 1, 0};
    for (int k = 0; k < 7; k++) v[k][nd] = def[k];
    for (const pb_node *g = f->child; g; g = g->next)
      for (int k = 0; k < 7; k++)
        if (is(g, D[k])) {
          if (k == 6) {
            bool r;
            if (pb_read_bool(C->src, C->d, g, &r)) return HLO_ERR;
            v[k][nd] = r;
          } else if (get_int(C, g, &v[k][nd])) {
            return HLO_ERR;
          }
        }
    for (int k = 0; k < 7; k++) nondef[k] |= v[k][nd] != def[k];
    nd++;
  }
  hlo_buf_puts(b, "{");
  static const char *const T[] = {"size", "stride", "pad", NULL, "rhs_dilate", "lhs_dilate", "rhs_reversal"};
  bool first = true;
  for (int k = 0; k < 7 && nd; k++) {
    if (k == 3 || (k && k != 2 && !nondef[k]) || (k == 2 && !nondef[2] && !nondef[3])) continue;
    hlo_buf_printf(b, "%s%s=", first ? "" : " ", T[k]);
    first = false;
    for (int i = 0; i < nd; i++) {
      if (i) hlo_buf_putc(b, 'x');
      if (k == 2) hlo_buf_printf(b, "%lld_%lld", (long long)v[2][i], (long long)v[3][i]);
      else hlo_buf_printf(b, "%lld", (long long)v[k][i]);
    }
  }
  hlo_buf_puts(b, "}");
  return HLO_OK;
}

/* ConvolutionDimensionNumbers as dim_labels=b01f_01io->b01f.  A scalar
 * field left out is 0, as proto3 text leaves zeros out. */
static int conv_dims(cv *C, const pb_node *m, hlo_buf *b) {
  static const char *const F[] = {"input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
                                  "kernel_input_feature_dimension", "kernel_output_feature_dimension",
                                  "kernel_spatial_dimensions", "output_batch_dimension", "output_feature_dimension",
                                  "output_spatial_dimensions", NULL};
  static const char LABEL[] = "bf_io_bf_"; /* the letter of each scalar field of F ('_': spatial) */
  if (want_msg(C, m) || only(C, m, F)) return HLO_ERR;
  for (int part = 0; part < 3; part++) {
    enum { MAXSP = 10 }; /* spatial dimensions are the digits 0-9 */
    char lab[MAXSP + 3];
    memset(lab, 0, sizeof lab);
    const char *const *names = F + 3 * part;
    int64_t sp[MAXSP], d0 = 0, d1 = 0;
    int nsp = 0;
    for (const pb_node *f = m->child; f; f = f->next) {
      int64_t *dst = is(f, names[0]) ? &d0 : is(f, names[1]) ? &d1 : NULL;
      if (is(f, names[2])) {
        if (nsp == MAXSP) return fail(C, f, "more than %d spatial dimensions", MAXSP);
        dst = &sp[nsp++];
      }
      if (dst && get_int(C, f, dst)) return HLO_ERR;
    }
    int rank = nsp + 2;
    int64_t at[MAXSP + 2] = {d0, d1};
    char what[MAXSP + 2] = {LABEL[3 * part], LABEL[3 * part + 1]};
    for (int k = 0; k < nsp; k++) at[k + 2] = sp[k], what[k + 2] = (char)('0' + k);
    for (int k = 0; k < rank; k++) {
      if (at[k] < 0 || at[k] >= rank || lab[at[k]])
        return fail(C, NULL, "the %s dimensions are not a permutation of 0..%d", names[0], rank - 1);
      lab[at[k]] = what[k];
    }
    hlo_buf_puts(b, lab);
    hlo_buf_puts(b, part == 0 ? "_" : part == 1 ? "->" : "");
  }
  return HLO_OK;
}

/* A message of repeated integer fields as "name={..}" attributes (the
 * field `scalar`, like index_vector_dim, as "name=v"); field k is written
 * when empty if bit k of always is set. */
static int dims_msg(cv *C, const pb_node *m, hlo_buf *b, const char *const *fields, const char *const *texts,
                    const char *scalar, unsigned always) {
  if (want_msg(C, m) || only(C, m, fields)) return HLO_ERR;
  for (int k = 0; fields[k]; k++) {
    bool any = false;
    for (const pb_node *f = m->child; f; f = f->next) any |= is(f, fields[k]);
    if (scalar && strcmp(fields[k], scalar) == 0) { /* proto3 text leaves a 0 out */
      int64_t v = 0;
      for (const pb_node *f = m->child; f; f = f->next)
        if (is(f, scalar) && get_int(C, f, &v)) return HLO_ERR;
      hlo_buf_printf(b, ", %s=%lld", texts[k], (long long)v);
      continue;
    }
    if (!any && !(always >> k & 1)) continue; /* an empty list is written only where the parser needs it */
    hlo_buf_printf(b, ", %s=", texts[k]);
    if (ints(C, m, fields[k], b, "{", ",", "}")) return HLO_ERR;
  }
  return HLO_OK;
}

static int by_id(const void *x, const void *y) {
  const id_ref *a = x, *b = y;
  return (a->id > b->id) - (a->id < b->id);
}

/* The instruction with this id, or -1. */
static int find_ins(const cv *C, int64_t id) {
  id_ref key = {id, 0};
  const id_ref *r = C->byid ? bsearch(&key, C->byid, (size_t)C->nins, sizeof key, by_id) : NULL;
  return r ? r->k : -1;
}

static int ins_index(cv *C, const pb_node *n, int64_t id, int *out) {
  *out = find_ins(C, id);
  return *out >= 0 ? HLO_OK : fail(C, n, "no instruction has id %lld", (long long)id);
}

static int comp_index(cv *C, const pb_node *n, int64_t id, int *out) {
  for (int k = 0; k < C->ncomps; k++)
    if (C->comps[k].id == id) {
      *out = k;
      return HLO_OK;
    }
  return fail(C, n, "no computation has id %lld", (long long)id);
}

/* The instructions that the ids of field `field` of n name, as "%a, %b". */
static int names(cv *C, const pb_node *n, const char *field, hlo_buf *b) {
  int k = 0;
  for (const pb_node *f = n->child; f; f = f->next) {
    if (!is(f, field)) continue;
    int64_t id;
    int o = 0;
    if (get_int(C, f, &id) || ins_index(C, f, id, &o)) return HLO_ERR;
    hlo_buf_printf(b, "%s%%%s", k++ ? ", " : "", C->ins[o].name);
  }
  return HLO_OK;
}

/* Whether the first operand of n (a conditional's branch index, emitted
 * and so checked before n) is a pred:
 * then its two computations are the true and the false branch. */
static bool index_is_pred(cv *C, const pb_node *n) {
  const pb_node *f = n->child;
  while (f && !is(f, "operand_ids")) f = f->next;
  int64_t id;
  int o = 0;
  if (!f || f->is_msg || pb_read_int(C->src, C->d, f, INT64_MIN, INT64_MAX, &id) || ins_index(C, f, id, &o))
    return false;
  for (const pb_node *s = C->ins[o].n->child; s; s = s->next)
    if (is(s, "shape") && s->is_msg)
      for (const pb_node *t = s->child; t; t = t->next) {
        hlo_type ty;
        if (is(t, "element_type") && pb_read_prim_type(C->src, C->d, t, &ty) == HLO_OK) return ty == HLO_PRED;
      }
  return false;
}

/* The called computations of instruction n as attributes of its opcode. */
static int callees(cv *C, const pb_node *n, hlo_opcode op, hlo_buf *b) {
  int c[64], nc = 0;
  const pb_node *first = NULL;
  for (const pb_node *f = n->child; f; f = f->next) {
    if (!is(f, "called_computation_ids")) continue;
    int64_t id;
    if (!first) first = f;
    if (nc == 64) return fail(C, f, "too many called computations");
    if (get_int(C, f, &id) || comp_index(C, f, id, &c[nc])) return HLO_ERR;
    nc++;
  }
  if (!nc) return HLO_OK;
  const char *two[2] = {NULL, NULL};
  switch (op) {
  case HLO_OP_WHILE: two[0] = "body", two[1] = "condition"; break;
  case HLO_OP_SELECT_AND_SCATTER: two[0] = "select", two[1] = "scatter"; break;
  default: break;
  }
  if (two[0]) {
    if (nc != 2) return fail(C, first, "%s takes 2 called computations, not %d", hlo_opcode_name(op), nc);
    hlo_buf_printf(b, ", %s=%%%s, %s=%%%s", two[1], C->comps[c[1]].name, two[0], C->comps[c[0]].name);
    return HLO_OK;
  }
  if (op == HLO_OP_CONDITIONAL && nc == 2 && index_is_pred(C, n)) {
    hlo_buf_printf(b, ", true_computation=%%%s, false_computation=%%%s", C->comps[c[0]].name, C->comps[c[1]].name);
    return HLO_OK;
  }
  const char *many = op == HLO_OP_CONDITIONAL ? "branch_computations"
                     : op == HLO_OP_CUSTOM_CALL ? "called_computations" : NULL;
  if (many) {
    hlo_buf_printf(b, ", %s={", many);
    for (int k = 0; k < nc; k++) hlo_buf_printf(b, "%s%%%s", k ? ", " : "", C->comps[c[k]].name);
    hlo_buf_putc(b, '}');
    return HLO_OK;
  }
  if (nc != 1) return fail(C, first, "%s takes 1 called computation, not %d", hlo_opcode_name(op), nc);
  bool calls = op == HLO_OP_FUSION || op == HLO_OP_ASYNC_START;
  hlo_buf_printf(b, ", %s=%%%s", calls ? "calls" : "to_apply", C->comps[c[0]].name);
  return HLO_OK;
}

/* Whether f is the first field of its name in message n. */
static bool first_of(const pb_node *n, const pb_node *f) {
  const pb_node *p = n->child;
  while (p != f && !is(p, f->name)) p = p->next;
  return p == f;
}

/* Fields that the text leaves out: they do not change what runs. */
static const char *const IGNORED[] = {"metadata", "frontend_attributes", "statistics_viz", "original_value", NULL};

/* One instruction's line. */
static int instruction(cv *C, const pins *I, bool root) {
  const pb_node *n = I->n;
  hlo_buf *b = C->out;
  const char *opname = NULL;
  const pb_node *shp = NULL, *lit = NULL;
  int64_t param = 0; /* proto3 text leaves a 0 out */
  for (const pb_node *f = n->child; f; f = f->next) {
    if (is(f, "opcode") && want_str(C, f, &opname)) return HLO_ERR;
    if (is(f, "shape")) shp = f;
    if (is(f, "literal")) lit = f;
    if (is(f, "parameter_number") && get_int(C, f, &param)) return HLO_ERR;
  }
  if (!opname) return fail(C, NULL, "instruction %s has no opcode", I->name);
  if (!shp) return fail(C, NULL, "instruction %s has no shape", I->name);
  hlo_opcode op;
  if (!hlo_opcode_lookup(opname, strlen(opname), &op)) {
    for (const pb_node *f = n->child; f; f = f->next)
      if (is(f, "opcode")) return fail(C, f, "unknown opcode \"%s\"", opname);
  }
  hlo_buf_printf(b, "  %s%%%s = ", root ? "ROOT " : "", I->name);
  C->top = shp;
  if (shape(C, shp, b, 0)) return HLO_ERR;
  C->top = NULL;
  hlo_buf_printf(b, " %s(", opname);
  if (op == HLO_OP_PARAMETER) {
    if (param < 0) return fail(C, NULL, "parameter %s has a negative parameter_number", I->name);
    hlo_buf_printf(b, "%lld", (long long)param);
  } else if (op == HLO_OP_CONSTANT) {
    if (!lit) return fail(C, NULL, "constant %s has no literal", I->name);
    if (literal(C, lit, b)) return HLO_ERR;
  }
  if (names(C, n, "operand_ids", b)) return HLO_ERR;
  hlo_buf_putc(b, ')');
  if (callees(C, n, op, b)) return HLO_ERR;
  bool has_index = false; /* proto text leaves out a zero tuple_index */
  for (const pb_node *f = n->child; f; f = f->next) has_index |= is(f, "tuple_index");
  if (op == HLO_OP_GET_TUPLE_ELEMENT && !has_index) hlo_buf_puts(b, ", index=0");
  /* topk's largest and is_stable are false when the proto leaves them out,
   * but true when the text does: write them always */
  bool has_largest = false, has_stable = false;
  for (const pb_node *f = n->child; f; f = f->next) has_largest |= is(f, "largest"), has_stable |= is(f, "is_stable");
  if (op == HLO_OP_TOPK && !has_largest) hlo_buf_puts(b, ", largest=false");
  if (op == HLO_OP_TOPK && !has_stable) hlo_buf_puts(b, ", is_stable=false");
  bool has_preds = false;
  for (const pb_node *f = n->child; f; f = f->next) {
    char e[64];
    int64_t v;
    bool t;
    if (is(f, "name") || is(f, "opcode") || is(f, "shape") || is(f, "id") || is(f, "operand_ids") ||
        is(f, "called_computation_ids") || is(f, "literal") || is(f, "parameter_number"))
      continue;
    bool ign = false;
    for (const char *const *g = IGNORED; *g; g++) ign |= is(f, *g);
    if (ign) continue;
    C->top = f;
    if (is(f, "control_predecessor_ids")) {
      has_preds = true;
    } else if (is(f, "tuple_index")) {
      if (get_int(C, f, &v)) return HLO_ERR;
      hlo_buf_printf(b, ", index=%lld", (long long)v);
    } else if (is(f, "dimensions")) {
      if (!first_of(n, f)) continue;
      if (op == HLO_OP_IOTA) {
        if (get_int(C, f, &v)) return HLO_ERR;
        hlo_buf_printf(b, ", iota_dimension=%lld", (long long)v);
      } else {
        hlo_buf_puts(b, ", dimensions=");
        if (ints(C, n, "dimensions", b, "{", ",", "}")) return HLO_ERR;
      }
    } else if (is(f, "window")) {
      hlo_buf_puts(b, ", window=");
      if (window(C, f, b)) return HLO_ERR;
    } else if (is(f, "convolution_dimension_numbers")) {
      hlo_buf_puts(b, ", dim_labels=");
      if (conv_dims(C, f, b)) return HLO_ERR;
    } else if (is(f, "feature_group_count") || is(f, "batch_group_count")) {
      if (get_int(C, f, &v)) return HLO_ERR;
      if (v > 1) hlo_buf_printf(b, ", %s=%lld", f->name, (long long)v); /* 0 (left out) and 1: none */
    } else if (is(f, "slice_dimensions")) {
      if (!first_of(n, f)) continue; /* a repeated field is written whole at its first value */
      hlo_buf_puts(b, ", slice={");
      int s = 0;
      for (const pb_node *g = f; g; g = g->next) {
        if (!is(g, "slice_dimensions")) continue;
        static const char *const S[] = {"start", "limit", "stride", NULL};
        int64_t x[3] = {0, 0, 1};
        if (msg_ints(C, g, S, x)) return HLO_ERR;
        hlo_buf_printf(b, "%s[%lld:%lld:%lld]", s++ ? ", " : "", (long long)x[0], (long long)x[1], (long long)x[2]);
      }
      hlo_buf_putc(b, '}');
    } else if (is(f, "epsilon")) {
      if (get_enum(C, f, e, sizeof e)) return HLO_ERR;
      char *end;
      (void)strtod(e, &end);
      if (end == e || *end) return fail(C, f, "'%s' is not a number", e);
      hlo_buf_printf(b, ", epsilon=%s", e);
    } else if (is(f, "fft_type")) {
      if (get_enum(C, f, e, sizeof e)) return HLO_ERR;
      hlo_buf_printf(b, ", fft_type=%s", e);
    } else if (is(f, "operand_shapes_with_layout")) {
      if (!first_of(n, f)) continue;
      hlo_buf_puts(b, ", operand_layout_constraints={");
      int s = 0;
      for (const pb_node *g = f; g; g = g->next) {
        if (!is(g, "operand_shapes_with_layout")) continue;
        if (s++) hlo_buf_puts(b, ", ");
        if (shape(C, g, b, 0)) return HLO_ERR;
      }
      hlo_buf_putc(b, '}');
    } else if (is(f, "exponent_bits") || is(f, "mantissa_bits") || is(f, "k") || is(f, "feature_index")) {
      if (get_int(C, f, &v)) return HLO_ERR;
      hlo_buf_printf(b, ", %s=%lld", f->name, (long long)v);
    } else if (is(f, "channel_id")) {
      if (get_int(C, f, &v)) return HLO_ERR;
      if (v) hlo_buf_printf(b, ", channel_id=%lld", (long long)v);
    } else if (is(f, "dynamic_slice_sizes") || is(f, "gather_slice_sizes") || is(f, "fft_length")) {
      if (!first_of(n, f)) continue; /* a repeated field is written whole at its first value */
      hlo_buf_printf(b, ", %s=", is(f, "gather_slice_sizes") ? "slice_sizes" : f->name);
      if (ints(C, n, f->name, b, "{", ",", "}")) return HLO_ERR;
    } else if (is(f, "padding_config")) {
      static const char *const P[] = {"dimensions", NULL};
      static const char *const Q[] = {"edge_padding_low", "edge_padding_high", "interior_padding", NULL};
      if (want_msg(C, f) || only(C, f, P)) return HLO_ERR;
      hlo_buf_puts(b, ", padding=");
      int s = 0;
      for (const pb_node *g = f->child; g; g = g->next) {
        int64_t x[3] = {0, 0, 0};
        if (msg_ints(C, g, Q, x)) return HLO_ERR;
        hlo_buf_printf(b, "%s%lld_%lld", s++ ? "x" : "", (long long)x[0], (long long)x[1]);
        if (x[2]) hlo_buf_printf(b, "_%lld", (long long)x[2]);
      }
    } else if (is(f, "distribution")) {
      if (get_enum(C, f, e, sizeof e)) return HLO_ERR;
      hlo_buf_puts(b, ", distribution=");
      lower(b, e);
    } else if (is(f, "custom_call_target")) {
      hlo_buf_puts(b, ", custom_call_target=");
      if (!f->is_string) return fail(C, f, "must be a string");
      quoted(b, f->val, f->len);
    } else if (is(f, "backend_config")) {
      if (!f->is_string) return fail(C, f, "must be a string");
      if (f->len) {
        hlo_buf_puts(b, ", backend_config=");
        quoted(b, f->val, f->len);
      }
    } else if (is(f, "fusion_kind")) {
      const char *s;
      if (want_str(C, f, &s)) return HLO_ERR;
      hlo_buf_printf(b, ", kind=%s", s);
    } else if (is(f, "comparison_direction")) {
      const char *s;
      if (want_str(C, f, &s)) return HLO_ERR;
      hlo_buf_printf(b, ", direction=%s", s);
    } else if (is(f, "comparison_type")) {
      const char *s;
      if (want_str(C, f, &s)) return HLO_ERR;
      if (*s) hlo_buf_printf(b, ", type=%s", s);
    } else if (is(f, "dot_dimension_numbers")) {
      static const char *const F[] = {"lhs_batch_dimensions", "lhs_contracting_dimensions", "rhs_batch_dimensions",
                                      "rhs_contracting_dimensions", NULL};
      static const char *const T[] = {"lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims",
                                      "rhs_contracting_dims", NULL};
      if (dims_msg(C, f, b, F, T, NULL, 0xa)) return HLO_ERR;
    } else if (is(f, "gather_dimension_numbers")) {
      static const char *const F[] = {"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
                                      "operand_batching_dims", "start_indices_batching_dims", NULL};
      if (dims_msg(C, f, b, F, F, "index_vector_dim", 0x7)) return HLO_ERR;
    } else if (is(f, "scatter_dimension_numbers")) {
      static const char *const F[] = {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
                                      "index_vector_dim", "input_batching_dims", "scatter_indices_batching_dims",
                                      NULL};
      if (dims_msg(C, f, b, F, F, "index_vector_dim", 0x7)) return HLO_ERR;
    } else if (is(f, "indices_are_sorted") || is(f, "unique_indices") || is(f, "is_stable") ||
               is(f, "use_global_device_ids") || is(f, "constrain_layout") || is(f, "largest") ||
               is(f, "custom_call_has_side_effect") || is(f, "is_host_transfer")) {
      if (pb_read_bool(C->src, C->d, f, &t)) return HLO_ERR;
      if (t || op == HLO_OP_TOPK) hlo_buf_printf(b, ", %s=%s", f->name, t ? "true" : "false");
    } else if (is(f, "replica_groups")) {
      if (!first_of(n, f)) continue; /* a repeated field is written whole at its first value */
      hlo_buf_puts(b, ", replica_groups={");
      int s = 0;
      for (const pb_node *g = f; g; g = g->next) {
        if (!is(g, "replica_groups")) continue;
        static const char *const R[] = {"replica_ids", NULL};
        if (want_msg(C, g) || only(C, g, R)) return HLO_ERR;
        if (s++) hlo_buf_putc(b, ',');
        if (ints(C, g, "replica_ids", b, "{", ",", "}")) return HLO_ERR;
      }
      hlo_buf_putc(b, '}');
    } else if (is(f, "source_target_pairs")) {
      if (!first_of(n, f)) continue; /* a repeated field is written whole at its first value */
      hlo_buf_puts(b, ", source_target_pairs={");
      int s = 0;
      for (const pb_node *g = f; g; g = g->next) {
        if (!is(g, "source_target_pairs")) continue;
        static const char *const R[] = {"source", "target", NULL};
        int64_t x[2] = {0, 0};
        if (msg_ints(C, g, R, x)) return HLO_ERR;
        hlo_buf_printf(b, "%s{%lld,%lld}", s++ ? "," : "", (long long)x[0], (long long)x[1]);
      }
      hlo_buf_putc(b, '}');
    } else if (is(f, "precision_config")) {
      static const char *const P[] = {"operand_precision", NULL};
      if (want_msg(C, f) || only(C, f, P)) return HLO_ERR;
      hlo_buf_puts(b, ", operand_precision={");
      int s = 0;
      for (const pb_node *g = f->child; g; g = g->next) {
        if (get_enum(C, g, e, sizeof e)) return HLO_ERR;
        if (s++) hlo_buf_putc(b, ',');
        lower(b, e);
      }
      hlo_buf_putc(b, '}');
    } else if (is(f, "custom_call_api_version") || is(f, "custom_call_schedule") || is(f, "rng_algorithm") ||
               is(f, "padding_type")) {
      if (get_enum(C, f, e, sizeof e)) return HLO_ERR;
      if (strcmp(e, "API_VERSION_ORIGINAL") && strcmp(e, "SCHEDULE_NONE") && strcmp(e, "RNG_DEFAULT") &&
          strcmp(e, "PADDING_INVALID"))
        return fail(C, f, "unsupported value %s", e);
    } else {
      return fail(C, f, "unsupported field");
    }
  }
  C->top = NULL;
  if (has_preds) {
    hlo_buf_puts(b, ", control-predecessors={");
    if (names(C, n, "control_predecessor_ids", b)) return HLO_ERR;
    hlo_buf_putc(b, '}');
  }
  hlo_buf_putc(b, '\n');
  return HLO_OK;
}

/* Order nodes 0..n-1 so that every node comes after its deps (dep(u, k)
 * gives the k-th dependency of u, -1 past the end); a cycle is an error at
 * the node it closes on.  Iterative: chains may be long. */
typedef int (*dep_fn)(cv *C, int u, int k, int *v);
static int topo(cv *C, int n, dep_fn dep, int *order, int *cyc) {
  unsigned char *st = hlo_arena_alloc(C->a, (size_t)n + 1);
  int *stk = hlo_arena_array(C->a, (size_t)n + 1, sizeof *stk), *pos = hlo_arena_array(C->a, (size_t)n + 1, sizeof *pos);
  if (!st || !stk || !pos) return fail(C, NULL, "out of memory");
  memset(st, 0, (size_t)n + 1);
  int no = 0;
  for (int r = 0; r < n; r++) {
    if (st[r]) continue;
    int sp = 0;
    stk[sp] = r, pos[sp] = 0, st[r] = 1;
    sp++;
    while (sp) {
      int u = stk[sp - 1], v;
      if (dep(C, u, pos[sp - 1]++, &v)) return HLO_ERR;
      if (v < 0) {
        st[u] = 2;
        order[no++] = u;
        sp--;
      } else if (st[v] == 1) {
        *cyc = v;
        return HLO_ERR;
      } else if (!st[v]) {
        st[v] = 1;
        stk[sp] = v, pos[sp] = 0;
        sp++;
      }
    }
  }
  return HLO_OK;
}

/* The k-th operand or control predecessor of instruction u (in its own
 * computation). */
static int ins_dep(cv *C, int u, int k, int *v) {
  *v = -1;
  C->ci = C->ins[u].comp, C->ii = C->ins[u].k, C->here = C->ins[u].n;
  for (const pb_node *f = C->ins[u].n->child; f; f = f->next) {
    if (!is(f, "operand_ids") && !is(f, "control_predecessor_ids")) continue;
    if (k-- > 0) continue;
    int64_t id;
    if (get_int(C, f, &id) || ins_index(C, f, id, v)) return HLO_ERR;
    if (C->ins[*v].comp != C->ins[u].comp)
      return fail(C, f, "instruction id %lld is in another computation", (long long)id);
    return HLO_OK;
  }
  return HLO_OK;
}

/* The k-th computation that computation u calls. */
static int comp_dep(cv *C, int u, int k, int *v) {
  *v = -1;
  const pcomp *P = &C->comps[u];
  for (int i = P->first; i < P->first + P->count; i++)
    for (const pb_node *f = C->ins[i].n->child; f; f = f->next) {
      if (!is(f, "called_computation_ids") || k-- > 0) continue;
      C->ci = u, C->ii = C->ins[i].k;
      int64_t id;
      return get_int(C, f, &id) || comp_index(C, f, id, v);
    }
  return HLO_OK;
}

/* The computations and instructions of module m into C. */
static int collect(cv *C, const pb_node *m) {
  int nc = 0, ni = 0;
  for (const pb_node *f = m->child; f; f = f->next)
    if (is(f, "computations")) {
      nc++;
      C->ci = nc - 1;
      if (want_msg(C, f)) return HLO_ERR;
      for (const pb_node *g = f->child; g; g = g->next) ni += is(g, "instructions");
    }
  C->comps = hlo_arena_array(C->a, (size_t)nc + 1, sizeof *C->comps);
  C->ins = hlo_arena_array(C->a, (size_t)ni + 1, sizeof *C->ins);
  if (!C->comps || !C->ins) return fail(C, NULL, "out of memory");
  for (const pb_node *f = m->child; f; f = f->next) {
    if (!is(f, "computations")) continue;
    C->ci = C->ncomps, C->ii = -1, C->here = f;
    pcomp *P = &C->comps[C->ncomps++];
    memset(P, 0, sizeof *P);
    P->n = f, P->first = C->nins; /* id and root_id 0 are left out of proto3 text */
    for (const pb_node *g = f->child; g; g = g->next) {
      if (is(g, "name")) {
        if (want_str(C, g, &P->name)) return HLO_ERR;
      } else if (is(g, "id")) {
        if (get_int(C, g, &P->id)) return HLO_ERR;
      } else if (is(g, "root_id")) {
        if (get_int(C, g, &P->root)) return HLO_ERR;
        P->has_root = true;
      } else if (is(g, "instructions")) {
        C->ii = P->count, C->here = g;
        if (want_msg(C, g)) return HLO_ERR;
        pins *I = &C->ins[C->nins++];
        memset(I, 0, sizeof *I);
        I->n = g, I->comp = C->ci, I->k = P->count++;
        for (const pb_node *h = g->child; h; h = h->next) {
          if (is(h, "name") && want_str(C, h, &I->name)) return HLO_ERR;
          if (is(h, "id") && get_int(C, h, &I->id)) return HLO_ERR; /* proto3 text leaves an id 0 out */
        }
        if (!I->name || !*I->name) return fail(C, NULL, "instruction without name");
        C->ii = -1, C->here = f;
      } else if (!is(g, "program_shape") && !is(g, "is_fusion_computation") && !is(g, "execution_thread")) {
        return fail(C, g, "unsupported field");
      }
    }
    if (!P->name || !*P->name) return fail(C, NULL, "computation without name");
    if (!P->count) return fail(C, NULL, "computation %s has no instructions", P->name);
    for (int q = 0; q < C->ncomps - 1; q++)
      if (C->comps[q].id == P->id) return fail(C, NULL, "computation id %lld is used twice", (long long)P->id);
  }
  C->ci = C->ii = -1, C->here = m;
  if (!C->ncomps) return fail(C, NULL, "the module has no computations");
  /* ids sorted, for ins_index and to find one used twice */
  C->byid = hlo_arena_array(C->a, (size_t)C->nins + 1, sizeof *C->byid);
  if (!C->byid) return fail(C, NULL, "out of memory");
  for (int k = 0; k < C->nins; k++) C->byid[k] = (id_ref){C->ins[k].id, k};
  qsort(C->byid, (size_t)C->nins, sizeof *C->byid, by_id);
  for (int k = 1; k < C->nins; k++)
    if (C->byid[k].id == C->byid[k - 1].id) {
      const pins *I = &C->ins[C->byid[k].k > C->byid[k - 1].k ? C->byid[k].k : C->byid[k - 1].k];
      C->ci = I->comp, C->ii = I->k, C->here = I->n;
      return fail(C, NULL, "id %lld is used twice%s", (long long)I->id,
                  I->id ? "" : " (an instruction without id has id 0)");
    }
  return HLO_OK;
}

int hlo_pb_snapshot_module_text(hlo_arena *a, const hlo_src *src, const hlo_pb_snapshot *snap, hlo_buf *out,
                                hlo_diags *d) {
  cv C = {a, src, d, out, NULL, 0, NULL, NULL, 0, -1, -1, NULL, NULL};
  const pb_node *m = snap->module_proto;
  if (!m) return hlo_errorf(d, src, 0, "the snapshot holds no module (hlo { hlo_module { ... } })");
  const char *mname = "module", *ename = NULL;
  int64_t eid = 0;
  bool has_eid = false;
  for (const pb_node *f = m->child; f; f = f->next) {
    if (is(f, "name")) {
      if (want_str(&C, f, &mname)) return HLO_ERR;
    } else if (is(f, "entry_computation_name")) {
      if (want_str(&C, f, &ename)) return HLO_ERR;
    } else if (is(f, "entry_computation_id")) {
      if (get_int(&C, f, &eid)) return HLO_ERR;
      has_eid = true;
    } else if (!is(f, "computations") && !is(f, "host_program_shape") && !is(f, "id") && !is(f, "schedule") &&
               !is(f, "frontend_attributes") && !is(f, "stack_frame_index") && !is(f, "device_type") &&
               !is(f, "input_output_alias") && !is(f, "buffer_donor")) {
      return fail(&C, f, "unsupported field");
    }
  }
  if (collect(&C, m)) return HLO_ERR;
  int entry = C.ncomps - 1;
  if (has_eid) {
    if (comp_index(&C, NULL, eid, &entry)) return HLO_ERR;
  } else if (ename) {
    entry = -1;
    for (int k = 0; k < C.ncomps; k++)
      if (strcmp(C.comps[k].name, ename) == 0) entry = k;
    if (entry < 0) return fail(&C, NULL, "no computation is named %s (entry_computation_name)", ename);
  }
  int *corder = hlo_arena_array(a, (size_t)C.ncomps, sizeof *corder);
  int *iorder = hlo_arena_array(a, (size_t)C.nins + 1, sizeof *iorder);
  if (!corder || !iorder) return hlo_errorf(d, src, 0, "out of memory");
  int cyc = -1;
  if (topo(&C, C.ncomps, comp_dep, corder, &cyc)) {
    if (cyc < 0) return HLO_ERR;
    C.ci = cyc, C.ii = -1, C.here = C.comps[cyc].n;
    return fail(&C, NULL, "computation %s calls itself", C.comps[cyc].name);
  }
  if (topo(&C, C.nins, ins_dep, iorder, &cyc)) {
    if (cyc < 0) return HLO_ERR;
    C.ci = C.ins[cyc].comp, C.ii = C.ins[cyc].k, C.here = C.ins[cyc].n;
    return fail(&C, NULL, "instruction %s depends on itself", C.ins[cyc].name);
  }
  hlo_buf_printf(out, "HloModule %s\n", mname);
  for (int pass = 0; pass < 2; pass++)
    for (int q = 0; q < C.ncomps; q++) {
      int c = corder[q];
      if ((c == entry) != (pass == 1)) continue;
      const pcomp *P = &C.comps[c];
      hlo_buf_printf(out, "\n%s%%%s {\n", c == entry ? "ENTRY " : "", P->name);
      int root = P->first + P->count - 1;
      C.ci = c, C.ii = -1, C.here = P->n;
      if (P->has_root && ins_index(&C, P->n, P->root, &root)) return HLO_ERR;
      int zero = find_ins(&C, 0); /* no root_id: 0, left out of the text, when the computation has id 0 */
      if (!P->has_root && zero >= 0 && C.ins[zero].comp == c) root = zero;
      if (C.ins[root].comp != c) return fail(&C, NULL, "root_id %lld is in another computation", (long long)P->root);
      for (int k = 0; k < C.nins; k++) {
        const pins *I = &C.ins[iorder[k]];
        if (I->comp != c) continue;
        C.ii = I->k, C.here = I->n;
        if (instruction(&C, I, iorder[k] == root)) return HLO_ERR;
      }
      hlo_buf_puts(out, "}\n");
    }
  if (out->failed) return hlo_errorf(d, src, 0, "out of memory");
  return HLO_OK;
}
