/* value.c - runtime values of the interpreter (reference-counted arrays and
 * tuples), the run-time buffer pool that reuses the storage of dead values,
 * index helpers, and deterministic random filling for --random inputs. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec.h"

static hlo_val *val_new(const hlo_allocator *alloc, hlo_run *r, const hlo_shape *s,
                        bool clear) {
  hlo_val *v = hlo_malloc(alloc, sizeof *v);
  if (!v) return NULL;
  memset(v, 0, sizeof *v);
  v->refs = 1;
  v->shape = s;
  if (s->type == HLO_TUPLE) {
    v->ntuple = s->ntuple;
    if (s->ntuple) {
      v->tuple = hlo_malloc(alloc, sizeof(hlo_val *) * (size_t)s->ntuple);
      if (!v->tuple) { hlo_free(alloc, v); return NULL; }
      memset(v->tuple, 0, sizeof(hlo_val *) * (size_t)s->ntuple);
      for (int i = 0; i < s->ntuple; i++) {
        v->tuple[i] = val_new(alloc, r, &s->tuple[i], clear);
        if (!v->tuple[i]) { hlo_val_release(alloc, v); return NULL; }
      }
    }
    return v;
  }
  if (!hlo_type_is_array(s->type)) return v; /* token, opaque */
  int64_t n, bytes;
  if (!hlo_shape_elements(s, &n) || !hlo_shape_bytes(s, &bytes) || bytes < 0) {
    hlo_free(alloc, v);
    return NULL;
  }
  v->nelems = n;
  v->nbytes = (size_t)bytes;
  if (bytes == 0) return v;
  if (r) { /* smallest pooled block that fits */
    int best = -1;
    for (int i = 0; i < r->npool; i++)
      if (r->pool_cap[i] >= (size_t)bytes &&
          (best < 0 || r->pool_cap[i] < r->pool_cap[best]))
        best = i;
    if (best >= 0 && r->pool_cap[best] <= 2 * (size_t)bytes + 4096) {
      v->data = r->pool[best];
      v->cap = r->pool_cap[best];
      r->pool_bytes -= v->cap;
      r->pool[best] = r->pool[r->npool - 1];
      r->pool_cap[best] = r->pool_cap[r->npool - 1];
      r->npool--;
      if (clear) memset(v->data, 0, (size_t)bytes);
      return v;
    }
  }
  v->data = hlo_malloc(alloc, (size_t)bytes);
  if (!v->data) { hlo_free(alloc, v); return NULL; }
  v->cap = (size_t)bytes;
  if (clear) memset(v->data, 0, (size_t)bytes);
  return v;
}

hlo_val *hlo_val_new(const hlo_allocator *alloc, const hlo_shape *shape) {
  return val_new(alloc, NULL, shape, true);
}

hlo_val *hlo_val_new_dynamic(const hlo_allocator *alloc, const hlo_shape *shape,
                             const int64_t *dims) {
  if (!shape || !hlo_shape_is_array(shape) || shape->rank > MAXR) return NULL;
  for (int i = 0; i < shape->rank; i++)
    if (dims[i] < 0 || dims[i] > shape->dims[i] ||
        (dims[i] < shape->dims[i] && (!shape->dynamic || !shape->dynamic[i])))
      return NULL;
  return hlo_val_new_sized(alloc, shape, dims);
}

hlo_val *hlo_val_new_sized(const hlo_allocator *alloc, const hlo_shape *shape,
                           const int64_t *dims) {
  bool below = false;
  int64_t n = 1;
  for (int i = 0; i < shape->rank; i++) {
    below |= dims[i] < shape->dims[i];
    n *= dims[i]; /* no overflow: at most the bound's product */
  }
  hlo_val *v = hlo_val_new(alloc, shape);
  if (!v || !below) return v;
  v->dims = hlo_malloc(alloc, sizeof(int64_t) * (size_t)shape->rank);
  if (!v->dims) { hlo_val_release(alloc, v); return NULL; }
  memcpy(v->dims, dims, sizeof(int64_t) * (size_t)shape->rank);
  v->nelems = n;
  v->nbytes = (size_t)n * (size_t)hlo_type_bytes(shape->type);
  return v;
}

hlo_val *hlo_val_borrow(const hlo_allocator *alloc, const hlo_shape *shape, void *data) {
  int64_t n, bytes;
  if (!shape || !hlo_shape_is_array(shape) || !hlo_shape_elements(shape, &n) ||
      !hlo_shape_bytes(shape, &bytes) || bytes < 0 || (bytes > 0 && !data))
    return NULL;
  hlo_val *v = hlo_malloc(alloc, sizeof *v);
  if (!v) return NULL;
  memset(v, 0, sizeof *v);
  v->refs = 1;
  v->shape = shape;
  v->nelems = n;
  v->nbytes = (size_t)bytes;
  v->data = bytes ? data : NULL;
  v->borrowed = true;
  return v;
}

hlo_val *hlo_val_ref(hlo_val *v) {
  if (v) v->refs++;
  return v;
}

static void val_release(const hlo_allocator *alloc, hlo_run *r, hlo_val *v) {
  if (!v || --v->refs > 0) return;
  for (int i = 0; i < v->ntuple; i++)
    if (v->tuple) val_release(alloc, r, v->tuple[i]);
  hlo_free(alloc, v->tuple);
  hlo_free(alloc, v->dims);
  if (v->data && !v->borrowed) {
    if (r && r->npool < POOL_MAX && r->pool_bytes + v->cap <= POOL_BYTES_MAX) {
      r->pool[r->npool] = v->data;
      r->pool_cap[r->npool++] = v->cap;
      r->pool_bytes += v->cap;
    } else {
      hlo_free(alloc, v->data);
    }
  }
  hlo_free(alloc, v);
}

void hlo_val_release(const hlo_allocator *alloc, hlo_val *v) { val_release(alloc, NULL, v); }

hlo_val *hlo_run_new(hlo_run *r, const hlo_shape *s) { return val_new(r->alloc, r, s, true); }
hlo_val *hlo_run_new_raw(hlo_run *r, const hlo_shape *s) { return val_new(r->alloc, r, s, false); }
void hlo_run_release(hlo_run *r, hlo_val *v) { val_release(r->alloc, r, v); }

hlo_val *hlo_run_steal(hlo_run *r, hlo_val *from, const hlo_shape *s) {
  int64_t bytes;
  if (from->refs != 1 || from->borrowed || !from->data || from->ntuple || !hlo_shape_is_array(s) ||
      !hlo_shape_bytes(s, &bytes) || (size_t)bytes != from->nbytes)
    return NULL;
  hlo_val *v = hlo_malloc(r->alloc, sizeof *v);
  if (!v) return NULL;
  memset(v, 0, sizeof *v);
  v->refs = 1;
  v->shape = s;
  v->nelems = from->nelems;
  v->nbytes = from->nbytes;
  v->data = from->data;
  v->cap = from->cap;
  from->data = NULL;
  from->cap = 0;
  return v;
}

int hlo_run_errorf(hlo_run *r, const hlo_instruction *in, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const hlo_src *src = r->e->opts.src;
  return hlo_errorf(r->d, src && in->off ? src : NULL, src && in->off ? in->off : 0,
                    "instruction %%%s (%s): %s", in->name, hlo_opcode_name(in->op), msg);
}

void hlo_strides(const hlo_shape *s, int64_t *st) {
  int64_t acc = 1;
  for (int i = s->rank - 1; i >= 0; i--) {
    st[i] = acc;
    acc *= s->dims[i];
  }
}

bool hlo_index_next(int rank, const int64_t *dims, int64_t *idx) {
  for (int i = rank - 1; i >= 0; i--) {
    if (++idx[i] < dims[i]) return true;
    idx[i] = 0;
  }
  return false;
}

int64_t hlo_index_dot(int rank, const int64_t *idx, const int64_t *st) {
  int64_t o = 0;
  for (int i = 0; i < rank; i++) o += idx[i] * st[i];
  return o;
}

double hlo_val_get_f64(const hlo_val *v, int64_t idx) {
  hlo_type t = v->shape->type;
  hlo_sc s = hlo_sc_load(t, v->data, idx);
  switch (hlo_type_kind_of(t)) {
  case HLO_KIND_FLOAT: case HLO_KIND_COMPLEX: return s.f;
  case HLO_KIND_UINT: return (double)(uint64_t)s.i;
  case HLO_KIND_PRED: case HLO_KIND_SINT: return (double)s.i;
  case HLO_KIND_TOKEN: case HLO_KIND_OPAQUE: case HLO_KIND_TUPLE: return 0;
  }
  return 0;
}

/* splitmix64: the generator behind --random. */
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void randomize(hlo_val *v, uint64_t *st) {
  for (int i = 0; i < v->ntuple; i++) randomize(v->tuple[i], st);
  if (!v->data) return;
  hlo_type t = v->shape->type;
  for (int64_t k = 0; k < v->nelems; k++) {
    uint64_t u = splitmix(st);
    hlo_sc s = {0, 0, 0};
    double f = (double)(u >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    switch (hlo_type_kind_of(t)) {
    case HLO_KIND_PRED: s.i = (int64_t)(u & 1); break;
    case HLO_KIND_SINT: s.i = (int64_t)(u % 16) - 8; break;
    case HLO_KIND_UINT: s.i = (int64_t)(u % 16); break;
    case HLO_KIND_FLOAT: s.f = f; break;
    case HLO_KIND_COMPLEX: s.f = f; s.im = (double)(splitmix(st) >> 11) * 0x1.0p-53 * 2 - 1; break;
    case HLO_KIND_TOKEN: case HLO_KIND_OPAQUE: case HLO_KIND_TUPLE: break;
    }
    hlo_sc_store(t, v->data, k, s);
  }
}

void hlo_val_randomize(hlo_val *v, uint64_t seed) {
  uint64_t st = seed;
  randomize(v, &st);
}

static void fill(hlo_val *v, int64_t x) {
  for (int i = 0; i < v->ntuple; i++) fill(v->tuple[i], x);
  if (!v->data) return;
  hlo_type t = v->shape->type;
  hlo_sc s = {(double)x, 0, hlo_type_kind_of(t) == HLO_KIND_PRED ? x != 0 : x};
  for (int64_t k = 0; k < v->nelems; k++) hlo_sc_store(t, v->data, k, s);
}

void hlo_val_fill_int(hlo_val *v, int64_t x) { fill(v, x); }
