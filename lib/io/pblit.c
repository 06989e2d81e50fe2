/* pblit.c - XLA's LiteralProto, ShapeProto, RunHloModuleLiterals and
 * HloSnapshot text protos (xla_data.proto, run_hlo_module.proto, hlo.proto)
 * read from the field tree of pbtxt.c into dense arrays (hlo_pbtxt.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hlo/hlo_pbtxt.h"
#include "pbtxt.h"

typedef struct rd {
  hlo_arena *a;
  const hlo_src *src;
  hlo_diags *d;
} rd;

static bool is(const pb_node *n, const char *name) { return strcmp(n->name, name) == 0; }

static int want_msg(rd *R, const pb_node *n) {
  if (!n->is_msg) return hlo_errorf(R->d, R->src, n->off, "field '%s' must be a message { ... }", n->name);
  return HLO_OK;
}

static int want_scalar(rd *R, const pb_node *n) {
  if (n->is_msg || n->is_string)
    return hlo_errorf(R->d, R->src, n->off, "field '%s' must be a number or a name", n->name);
  return HLO_OK;
}

/* The token of n as a C string (tokens are short; longer ones are errors). */
static int token(rd *R, const pb_node *n, char *buf, size_t cap) {
  if (want_scalar(R, n)) return HLO_ERR;
  if (n->len >= cap) return hlo_errorf(R->d, R->src, n->voff, "value too long");
  memcpy(buf, n->val, n->len);
  buf[n->len] = 0;
  return HLO_OK;
}

static int int_value(rd *R, const pb_node *n, int64_t lo, int64_t hi, int64_t *out) {
  char buf[80], *end;
  if (token(R, n, buf, sizeof buf)) return HLO_ERR;
  errno = 0;
  long long v = strtoll(buf, &end, 0);
  if (end == buf || *end || errno || v < lo || v > hi)
    return hlo_errorf(R->d, R->src, n->voff, "'%s' is not an integer in [%lld, %lld] (field '%s')", buf,
                      (long long)lo, (long long)hi, n->name);
  *out = v;
  return HLO_OK;
}

static int uint_value(rd *R, const pb_node *n, uint64_t hi, uint64_t *out) {
  char buf[80], *end;
  if (token(R, n, buf, sizeof buf)) return HLO_ERR;
  errno = 0;
  unsigned long long v = strtoull(buf, &end, 0);
  if (end == buf || *end || errno || buf[0] == '-' || v > hi)
    return hlo_errorf(R->d, R->src, n->voff, "'%s' is not an integer in [0, %llu] (field '%s')", buf,
                      (unsigned long long)hi, n->name);
  *out = v;
  return HLO_OK;
}

/* A float token: decimal or hex, inf/infinity/nan with a sign, an 'f'
 * suffix, or an integer. */
static int float_value(rd *R, const pb_node *n, double *out) {
  char buf[80], *end;
  if (token(R, n, buf, sizeof buf)) return HLO_ERR;
  size_t len = strlen(buf);
  if (len > 1 && (buf[len - 1] == 'f' || buf[len - 1] == 'F') && strncasecmp(buf + (buf[0] == '-'), "inf", 3) != 0)
    buf[--len] = 0;
  const char *p = buf + (buf[0] == '-' || buf[0] == '+');
  double sign = buf[0] == '-' ? -1 : 1;
  if (strcasecmp(p, "inf") == 0 || strcasecmp(p, "infinity") == 0) *out = sign * INFINITY;
  else if (strcasecmp(p, "nan") == 0) *out = NAN;
  else {
    errno = 0;
    *out = strtod(buf, &end);
    if (end == buf || *end)
      return hlo_errorf(R->d, R->src, n->voff, "'%s' is not a number (field '%s')", buf, n->name);
  }
  return HLO_OK;
}

static int bool_value(rd *R, const pb_node *n, bool *out) {
  char buf[16];
  if (token(R, n, buf, sizeof buf)) return HLO_ERR;
  if (strcmp(buf, "true") == 0 || strcmp(buf, "True") == 0 || strcmp(buf, "t") == 0 || strcmp(buf, "1") == 0)
    *out = true;
  else if (strcmp(buf, "false") == 0 || strcmp(buf, "False") == 0 || strcmp(buf, "f") == 0 || strcmp(buf, "0") == 0)
    *out = false;
  else
    return hlo_errorf(R->d, R->src, n->voff, "'%s' is not true or false (field '%s')", buf, n->name);
  return HLO_OK;
}

/* PrimitiveType: by name (F32, OPAQUE_TYPE) or number (xla_data.proto). */
static const struct {
  const char *name;
  int number;
  hlo_type t;
} PRIMS[] = {
    {"PRED", 1, HLO_PRED},          {"S1", 30, HLO_S1},         {"S2", 26, HLO_S2},
    {"S4", 21, HLO_S4},             {"S8", 2, HLO_S8},          {"S16", 3, HLO_S16},
    {"S32", 4, HLO_S32},            {"S64", 5, HLO_S64},        {"U1", 31, HLO_U1},
    {"U2", 27, HLO_U2},             {"U4", 22, HLO_U4},         {"U8", 6, HLO_U8},
    {"U16", 7, HLO_U16},            {"U32", 8, HLO_U32},        {"U64", 9, HLO_U64},
    {"F16", 10, HLO_F16},           {"F32", 11, HLO_F32},       {"BF16", 16, HLO_BF16},
    {"F64", 12, HLO_F64},           {"F8E5M2", 19, HLO_F8E5M2}, {"F8E4M3", 28, HLO_F8E4M3},
    {"F8E4M3FN", 20, HLO_F8E4M3FN}, {"F8E4M3B11FNUZ", 23, HLO_F8E4M3B11FNUZ},
    {"F8E3M4", 29, HLO_F8E3M4},     {"F8E5M2FNUZ", 24, HLO_F8E5M2FNUZ},
    {"F8E4M3FNUZ", 25, HLO_F8E4M3FNUZ}, {"F4E2M1FN", 32, HLO_F4E2M1FN},
    {"F8E8M0FNU", 33, HLO_F8E8M0FNU}, {"C64", 15, HLO_C64},     {"C128", 18, HLO_C128},
    {"TUPLE", 13, HLO_TUPLE},       {"OPAQUE_TYPE", 14, HLO_OPAQUE}, {"TOKEN", 17, HLO_TOKEN},
};

static int prim_type(rd *R, const pb_node *n, hlo_type *t) {
  char buf[32];
  if (token(R, n, buf, sizeof buf)) return HLO_ERR;
  char *end;
  long num = strtol(buf, &end, 10);
  bool numeric = end != buf && !*end;
  for (size_t k = 0; k < sizeof PRIMS / sizeof PRIMS[0]; k++)
    if (numeric ? PRIMS[k].number == num : strcmp(PRIMS[k].name, buf) == 0) {
      *t = PRIMS[k].t;
      return HLO_OK;
    }
  return hlo_errorf(R->d, R->src, n->voff, "unknown element_type '%s'", buf);
}

/* The data field of each element type: a repeated number field, or bytes
 * (little-endian, one element per hlo_type_bytes). */
static const char *data_field(hlo_type t, bool *is_bytes) {
  *is_bytes = false;
  switch (t) {
  case HLO_PRED: return "preds";
  case HLO_S32: return "s32s";
  case HLO_S64: return "s64s";
  case HLO_U32: return "u32s";
  case HLO_U64: return "u64s";
  case HLO_F32: return "f32s";
  case HLO_F64: return "f64s";
  case HLO_C64: return "c64s";
  case HLO_C128: return "c128s";
  default: break;
  }
  *is_bytes = true;
  switch (t) {
  case HLO_S1: return "s1s";
  case HLO_S2: return "s2s";
  case HLO_S4: return "s4s";
  case HLO_S8: return "s8s";
  case HLO_S16: return "s16s";
  case HLO_U1: return "u1s";
  case HLO_U2: return "u2s";
  case HLO_U4: return "u4s";
  case HLO_U8: return "u8s";
  case HLO_U16: return "u16s";
  case HLO_F16: return "f16s";
  case HLO_BF16: return "bf16s";
  case HLO_F8E5M2: return "f8e5m2s";
  case HLO_F8E4M3: return "f8e4m3s";
  case HLO_F8E4M3FN: return "f8e4m3fns";
  case HLO_F8E4M3B11FNUZ: return "f8e4m3b11fnuzs";
  case HLO_F8E3M4: return "f8e3m4s";
  case HLO_F8E5M2FNUZ: return "f8e5m2fnuzs";
  case HLO_F8E4M3FNUZ: return "f8e4m3fnuzs";
  case HLO_F4E2M1FN: return "f4e2m1fns";
  case HLO_F8E8M0FNU: return "f8e8m0fnus";
  default: return NULL;
  }
}

/* Whether name is a data field of LiteralProto (of any element type). */
static bool is_data_field(const char *name) {
  bool b;
  for (size_t k = 0; k < sizeof PRIMS / sizeof PRIMS[0]; k++) {
    const char *f = data_field(PRIMS[k].t, &b);
    if (f && strcmp(f, name) == 0) return true;
  }
  return false;
}

typedef struct shape_pb {
  hlo_type type;
  bool has_type;
  int rank;
  int64_t dims[HLO_NPY_MAX_RANK];
  int nm2m;
  int64_t m2m[HLO_NPY_MAX_RANK];
  const pb_node *node;
} shape_pb;

/* ShapeProto: element_type, dimensions, layout { minor_to_major }; the
 * rest (tuple_shapes, is_dynamic_dimension, tiles, ...) is not needed: a
 * tuple literal's elements carry shapes of their own. */
static int read_shape(rd *R, const pb_node *sn, shape_pb *s) {
  memset(s, 0, sizeof *s);
  s->node = sn;
  if (want_msg(R, sn)) return HLO_ERR;
  for (const pb_node *f = sn->child; f; f = f->next) {
    if (is(f, "element_type")) {
      if (prim_type(R, f, &s->type)) return HLO_ERR;
      s->has_type = true;
    } else if (is(f, "dimensions")) {
      if (s->rank == HLO_NPY_MAX_RANK) return hlo_errorf(R->d, R->src, f->off, "more than %d dimensions", HLO_NPY_MAX_RANK);
      if (int_value(R, f, 0, INT64_MAX, &s->dims[s->rank])) return HLO_ERR;
      s->rank++;
    } else if (is(f, "layout")) {
      if (want_msg(R, f)) return HLO_ERR;
      for (const pb_node *l = f->child; l; l = l->next)
        if (is(l, "minor_to_major")) {
          if (s->nm2m == HLO_NPY_MAX_RANK) return hlo_errorf(R->d, R->src, l->off, "too many minor_to_major entries");
          if (int_value(R, l, 0, HLO_NPY_MAX_RANK - 1, &s->m2m[s->nm2m])) return HLO_ERR;
          s->nm2m++;
        }
    }
  }
  if (!s->has_type) return hlo_errorf(R->d, R->src, sn->off, "shape without element_type");
  if (s->nm2m && s->nm2m != s->rank)
    return hlo_errorf(R->d, R->src, sn->off, "layout has %d minor_to_major entries for %d dimensions", s->nm2m, s->rank);
  bool seen[HLO_NPY_MAX_RANK] = {false};
  for (int k = 0; k < s->nm2m; k++) {
    if (s->m2m[k] >= s->rank || seen[s->m2m[k]])
      return hlo_errorf(R->d, R->src, sn->off, "minor_to_major is not a permutation of the dimensions");
    seen[s->m2m[k]] = true;
  }
  return HLO_OK;
}

/* Store element k (in file order) of the repeated field value n. */
static int store_number(rd *R, const pb_node *n, hlo_type t, void *data, int64_t k) {
  switch (t) {
  case HLO_PRED: {
    bool b = false;
    if (bool_value(R, n, &b)) return HLO_ERR;
    ((uint8_t *)data)[k] = b;
    return HLO_OK;
  }
  case HLO_S32:
  case HLO_S64: {
    int64_t v = 0;
    bool s32 = t == HLO_S32;
    if (int_value(R, n, s32 ? INT32_MIN : INT64_MIN, s32 ? INT32_MAX : INT64_MAX, &v)) return HLO_ERR;
    if (s32) ((int32_t *)data)[k] = (int32_t)v;
    else ((int64_t *)data)[k] = v;
    return HLO_OK;
  }
  case HLO_U32:
  case HLO_U64: {
    uint64_t v = 0;
    bool u32 = t == HLO_U32;
    if (uint_value(R, n, u32 ? UINT32_MAX : UINT64_MAX, &v)) return HLO_ERR;
    if (u32) ((uint32_t *)data)[k] = (uint32_t)v;
    else ((uint64_t *)data)[k] = v;
    return HLO_OK;
  }
  case HLO_F32:
  case HLO_C64: {
    double v = 0;
    if (float_value(R, n, &v)) return HLO_ERR;
    ((float *)data)[k] = (float)v;
    return HLO_OK;
  }
  case HLO_F64:
  case HLO_C128: {
    double v = 0;
    if (float_value(R, n, &v)) return HLO_ERR;
    ((double *)data)[k] = v;
    return HLO_OK;
  }
  default: return hlo_errorf(R->d, R->src, n->off, "field '%s' cannot hold %s", n->name, hlo_type_name(t));
  }
}

/* Put file-order data (the layout's physical order) in row-major order. */
static int to_row_major(rd *R, const shape_pb *s, hlo_array *arr, size_t off) {
  bool identity = true;
  for (int k = 0; k < s->nm2m; k++) identity &= s->m2m[k] == s->rank - 1 - k;
  if (identity || arr->nelems <= 1) return HLO_OK;
  size_t esz = hlo_type_bytes(arr->type);
  unsigned char *out = hlo_arena_alloc(R->a, (size_t)arr->nelems * esz);
  if (!out) return hlo_errorf(R->d, R->src, off, "out of memory");
  int64_t stride[HLO_NPY_MAX_RANK], idx[HLO_NPY_MAX_RANK] = {0};
  int64_t acc = 1;
  for (int k = s->rank - 1; k >= 0; k--) {
    stride[k] = acc;
    acc *= s->dims[k];
  }
  const unsigned char *in = arr->data;
  for (int64_t p = 0; p < arr->nelems; p++) {
    int64_t o = 0;
    for (int k = 0; k < s->rank; k++) o += idx[k] * stride[k];
    memcpy(out + (size_t)o * esz, in + (size_t)p * esz, esz);
    for (int k = 0; k < s->nm2m; k++) { /* the next physical index: minor-most dimension first */
      int64_t dim = s->m2m[k];
      if (++idx[dim] < s->dims[dim]) break;
      idx[dim] = 0;
    }
  }
  arr->data = out;
  return HLO_OK;
}

static int read_literal(rd *R, const pb_node *ln, hlo_pb_literal *out, int depth);

/* The elements of an array literal ln of shape s. */
static int read_array(rd *R, const pb_node *ln, const shape_pb *s, hlo_pb_literal *out) {
  if (!hlo_type_is_array(s->type))
    return hlo_errorf(R->d, R->src, ln->off, "a literal of type %s cannot be an input", hlo_type_name(s->type));
  if (hlo_array_alloc(R->a, s->type, s->rank, s->dims, &out->arr))
    return hlo_errorf(R->d, R->src, ln->off, "literal too large");
  bool is_bytes;
  const char *field = data_field(s->type, &is_bytes);
  int64_t per = (s->type == HLO_C64 || s->type == HLO_C128) ? 2 : 1, count = 0;
  size_t esz = hlo_type_bytes(s->type);
  const pb_node *first = NULL;
  for (const pb_node *f = ln->child; f; f = f->next) {
    if (!is_data_field(f->name)) continue;
    if (strcmp(f->name, field) != 0)
      return hlo_errorf(R->d, R->src, f->off, "field '%s' in a literal of element type %s (its values go in '%s')",
                        f->name, hlo_type_name(s->type), field);
    if (!first) first = f;
    if (is_bytes) {
      if (!f->is_string) return hlo_errorf(R->d, R->src, f->voff, "field '%s' must be a string of bytes", f->name);
      if (count > 0) return hlo_errorf(R->d, R->src, f->off, "field '%s' given twice", f->name);
      if ((uint64_t)f->len != (uint64_t)out->arr.nelems * esz)
        return hlo_errorf(R->d, R->src, f->voff, "'%s' holds %zu bytes; %lld elements of %s need %lld", f->name,
                          f->len, (long long)out->arr.nelems, hlo_type_name(s->type),
                          (long long)(out->arr.nelems * (int64_t)esz));
      if (f->len) memcpy(out->arr.data, f->val, f->len);
      count = out->arr.nelems;
    } else {
      if (count >= out->arr.nelems * per)
        return hlo_errorf(R->d, R->src, f->voff, "more '%s' values than the %lld elements of the shape", f->name,
                          (long long)out->arr.nelems);
      if (store_number(R, f, s->type, out->arr.data, count)) return HLO_ERR;
      count++;
    }
  }
  if (!is_bytes) count /= per;
  if (count != out->arr.nelems)
    return hlo_errorf(R->d, R->src, first ? first->off : ln->off, "the literal has %lld of the %lld elements of its shape%s",
                      (long long)count, (long long)out->arr.nelems, first ? "" : " (no values)");
  return to_row_major(R, s, &out->arr, ln->off);
}

/* LiteralProto: shape, then the data field of its element type or
 * tuple_literals. */
static int read_literal(rd *R, const pb_node *ln, hlo_pb_literal *out, int depth) {
  memset(out, 0, sizeof *out);
  out->off = ln->off;
  if (want_msg(R, ln)) return HLO_ERR;
  if (depth > 64) return hlo_errorf(R->d, R->src, ln->off, "tuples nested too deeply");
  const pb_node *sn = NULL;
  int nt = 0;
  for (const pb_node *f = ln->child; f; f = f->next) {
    if (is(f, "shape")) sn = f;
    else if (is(f, "tuple_literals")) nt++;
    else if (is(f, "dynamic_sizes"))
      return hlo_errorf(R->d, R->src, f->off, "literals with dynamic sizes are not supported");
    else if (!is_data_field(f->name) && !is(f, "sparse_indices"))
      return hlo_errorf(R->d, R->src, f->off, "unknown field '%s' in a literal", f->name);
  }
  if (!sn) return hlo_errorf(R->d, R->src, ln->off, "literal without a shape");
  shape_pb s;
  if (read_shape(R, sn, &s)) return HLO_ERR;
  if (s.type != HLO_TUPLE) {
    if (nt) return hlo_errorf(R->d, R->src, ln->off, "tuple_literals in a literal of type %s", hlo_type_name(s.type));
    return read_array(R, ln, &s, out);
  }
  out->is_tuple = true;
  out->arr.type = HLO_TUPLE;
  out->ntuple = nt;
  out->tuple = nt ? hlo_arena_array(R->a, (size_t)nt, sizeof *out->tuple) : NULL;
  if (nt && !out->tuple) return hlo_errorf(R->d, R->src, ln->off, "out of memory");
  int k = 0;
  for (const pb_node *f = ln->child; f; f = f->next)
    if (is(f, "tuple_literals") && read_literal(R, f, &out->tuple[k++], depth + 1)) return HLO_ERR;
  return HLO_OK;
}

/* The fields named argname and resname of message m into run. */
static int read_run(rd *R, const pb_node *m, hlo_pb_run *run) {
  memset(run, 0, sizeof *run);
  int n = 0;
  for (const pb_node *f = m; f; f = f->next) n += is(f, "arguments");
  run->args = n ? hlo_arena_array(R->a, (size_t)n, sizeof *run->args) : NULL;
  if (n && !run->args) return hlo_errorf(R->d, R->src, 0, "out of memory");
  for (const pb_node *f = m; f; f = f->next) {
    if (is(f, "arguments")) {
      if (read_literal(R, f, &run->args[run->nargs], 0)) return HLO_ERR;
      run->nargs++;
    } else if (is(f, "result")) {
      run->result = hlo_arena_alloc(R->a, sizeof *run->result);
      if (!run->result) return hlo_errorf(R->d, R->src, f->off, "out of memory");
      if (read_literal(R, f, run->result, 0)) return HLO_ERR;
    }
  }
  return HLO_OK;
}

static int read_literals_file(rd *R, const pb_node *top, hlo_pb_literals *out);

int hlo_pb_read_literals(hlo_arena *a, const hlo_src *src, hlo_pb_literals *out, hlo_diags *d) {
  rd R = {a, src, d};
  memset(out, 0, sizeof *out);
  bool ok;
  pb_node *top = pb_parse(a, src, d, &ok);
  if (!ok) return HLO_ERR;
  return read_literals_file(&R, top, out);
}

/* RunHloModuleLiterals, or one RunHloModuleIterationLiterals. */
static int read_literals_file(rd *R, const pb_node *top, hlo_pb_literals *out) {
  hlo_arena *a = R->a;
  const hlo_src *src = R->src;
  hlo_diags *d = R->d;
  int n = 0;
  bool bare = false; /* a RunHloModuleIterationLiterals of its own */
  for (const pb_node *f = top; f; f = f->next) {
    if (is(f, "iterations")) n++;
    else if (is(f, "arguments") || is(f, "result") || is(f, "reference_result")) bare = true;
    else return hlo_errorf(d, src, f->off, "unknown field '%s' in a literals file (RunHloModuleLiterals)", f->name);
  }
  if (n && bare)
    return hlo_errorf(d, src, top->off, "a literals file has either iterations { ... } or arguments, not both");
  if (!n && !bare) return hlo_errorf(d, src, 0, "the literals file holds no arguments");
  out->n = bare ? 1 : n;
  out->iters = hlo_arena_array(a, (size_t)out->n, sizeof *out->iters);
  if (!out->iters) return hlo_errorf(d, src, 0, "out of memory");
  if (bare) return read_run(R, top, &out->iters[0]);
  int k = 0;
  for (const pb_node *f = top; f; f = f->next) {
    if (want_msg(R, f)) return HLO_ERR;
    for (const pb_node *g = f->child; g; g = g->next)
      if (!is(g, "arguments") && !is(g, "result") && !is(g, "reference_result"))
        return hlo_errorf(d, src, g->off, "unknown field '%s' in iterations", g->name);
    if (read_run(R, f->child, &out->iters[k++])) return HLO_ERR;
  }
  return HLO_OK;
}

int hlo_pb_read_snapshot(hlo_arena *a, const hlo_src *src, hlo_pb_snapshot *out, hlo_diags *d) {
  memset(out, 0, sizeof *out);
  rd R = {a, src, d};
  bool ok;
  const pb_node *top = pb_parse(a, src, d, &ok);
  if (!ok) return HLO_ERR;
  for (const pb_node *f = top; f; f = f->next) {
    if (is(f, "hlo")) {
      if (want_msg(&R, f)) return HLO_ERR;
      for (const pb_node *g = f->child; g; g = g->next) {
        if (!is(g, "hlo_module")) continue;
        if (want_msg(&R, g)) return HLO_ERR;
        out->has_module_proto = true;
        out->module_off = g->off;
        out->module_proto = g;
        for (const pb_node *h = g->child; h; h = h->next)
          if (is(h, "name") && h->is_string) out->module_name = h->val;
      }
    } else if (!is(f, "arguments") && !is(f, "result") && !is(f, "execution_platform")) {
      return hlo_errorf(d, src, f->off, "unknown field '%s' in an HloSnapshot", f->name);
    }
  }
  return read_run(&R, top, &out->run);
}

/* The readers of pbmodule.c (pbtxt.h). */
int pb_read_literal(hlo_arena *a, const hlo_src *src, hlo_diags *d, const pb_node *n, hlo_pb_literal *out) {
  rd R = {a, src, d};
  return read_literal(&R, n, out, 0);
}

int pb_read_prim_type(const hlo_src *src, hlo_diags *d, const pb_node *n, hlo_type *t) {
  rd R = {NULL, src, d};
  return prim_type(&R, n, t);
}

int pb_read_int(const hlo_src *src, hlo_diags *d, const pb_node *n, int64_t lo, int64_t hi, int64_t *out) {
  rd R = {NULL, src, d};
  return int_value(&R, n, lo, hi, out);
}

int pb_read_bool(const hlo_src *src, hlo_diags *d, const pb_node *n, bool *out) {
  rd R = {NULL, src, d};
  return bool_value(&R, n, out);
}
