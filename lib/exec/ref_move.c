/* ref_move.c - reference kernels of the data-movement ops: reshape,
 * transpose, broadcast, slice, dynamic-slice, dynamic-update-slice, pad,
 * concatenate, reverse, copy, bitcast, dynamic-reshape, set-dimension-size.
 * Each walks the result index by index and copies one element. */
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

static void cp(void *dst, int64_t di, const void *src, int64_t si, size_t esz) {
  memcpy((char *)dst + di * (int64_t)esz, (const char *)src + si * (int64_t)esz, esz);
}

static size_t esz_of(const hlo_shape *s) { return (size_t)hlo_type_bytes(s->type); }

DECL_KERN(hlo_ref_reshape) {
  hlo_val *o = hlo_run_new(r, &s->in->shape);
  if (!o) return OOM(r, s);
  if (o->nelems != args[0]->nelems) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "element counts differ");
  }
  size_t es = esz_of(&s->in->shape);
  for (int64_t k = 0; k < o->nelems; k++) cp(o->data, k, args[0]->data, k, es);
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_copy) { return hlo_ref_reshape(r, s, args, out); }
/* The operand's data with the size of dimension D set to operand 1 (at
 * most the bound); the other sizes stay the operand's (dyn.c). */
DECL_KERN(hlo_ref_set_dimension_size) {
  int n;
  const int64_t *d = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  const hlo_shape *is = args[0]->shape;
  if (n != 1 || d[0] < 0 || d[0] >= is->rank || s->nargs != 2 || args[1]->nelems != 1 ||
      !hlo_type_is_array(args[1]->shape->type))
    return hlo_run_errorf(r, s->in, "needs dimensions={D} within the operand rank and a scalar size");
  int64_t size = hlo_sc_load(args[1]->shape->type, args[1]->data, 0).i;
  if (size < 0 || size > is->dims[d[0]])
    return hlo_run_errorf(r, s->in, "size %lld is outside [0, %lld], the bound of dimension %lld",
                          (long long)size, (long long)is->dims[d[0]], (long long)d[0]);
  int64_t dims[MAXR];
  for (int i = 0; i < is->rank; i++) dims[i] = args[0]->dims ? args[0]->dims[i] : is->dims[i];
  dims[d[0]] = size;
  if (hlo_ref_reshape(r, s, args, out)) return HLO_ERR;
  return hlo_dyn_put(r, s->in, out, dims);
}
DECL_KERN(hlo_ref_dynamic_reshape) { return hlo_ref_reshape(r, s, args, out); }

DECL_KERN(hlo_ref_transpose) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  int n;
  const int64_t *perm = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  if (n != os->rank || is->rank != n) return hlo_run_errorf(r, s->in, "bad dimensions=");
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t ist[MAXR], oi[MAXR] = {0}, ii[MAXR];
  hlo_strides(is, ist);
  size_t es = esz_of(os);
  for (int64_t k = 0; k < o->nelems; k++) {
    for (int d = 0; d < n; d++) ii[perm[d]] = oi[d];
    cp(o->data, k, args[0]->data, hlo_index_dot(n, ii, ist), es);
    hlo_index_next(n, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_broadcast) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  int n;
  const int64_t *dims = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  if (n != is->rank) return hlo_run_errorf(r, s->in, "dimensions= does not match operand rank");
  for (int i = 0; i < n; i++)
    if (dims[i] < 0 || dims[i] >= os->rank) return hlo_run_errorf(r, s->in, "bad dimensions=");
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t ist[MAXR], oi[MAXR] = {0}, ii[MAXR];
  hlo_strides(is, ist);
  size_t es = esz_of(os);
  for (int64_t k = 0; k < o->nelems; k++) {
    for (int d = 0; d < n; d++) ii[d] = is->dims[d] == 1 ? 0 : oi[dims[d]];
    cp(o->data, k, args[0]->data, hlo_index_dot(n, ii, ist), es);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_slice) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_SLICE);
  if (!a || a->u.slices.n != is->rank) return hlo_run_errorf(r, s->in, "bad slice=");
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t ist[MAXR], oi[MAXR] = {0}, ii[MAXR];
  hlo_strides(is, ist);
  size_t es = esz_of(os);
  for (int64_t k = 0; k < o->nelems; k++) {
    for (int d = 0; d < is->rank; d++)
      ii[d] = a->u.slices.v[d].start + oi[d] * (a->u.slices.v[d].stride ? a->u.slices.v[d].stride : 1);
    cp(o->data, k, args[0]->data, hlo_index_dot(is->rank, ii, ist), es);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

/* Start indices: either one scalar operand per dimension starting at
 * operand `first`, or one rank-1 operand.  Clamped so the window fits. */
int hlo_ref_read_starts(hlo_run *r, const plan_step *s, hlo_val **args, int first,
                       const hlo_shape *base, const int64_t *size, int64_t *start) {
  int rank = base->rank;
  for (int d = 0; d < rank; d++) {
    hlo_sc v;
    if (s->nargs - first == rank) {
      if (args[first + d]->nelems != 1) return hlo_run_errorf(r, s->in, "start index not scalar");
      v = hlo_sc_load(args[first + d]->shape->type, args[first + d]->data, 0);
    } else if (s->nargs - first == 1 && args[first]->nelems == rank) {
      v = hlo_sc_load(args[first]->shape->type, args[first]->data, d);
    } else {
      return hlo_run_errorf(r, s->in, "expected %d start indices", rank);
    }
    int64_t x = hlo_type_kind_of(args[first]->shape->type) == HLO_KIND_UINT &&
                        v.i < 0 ? INT64_MAX : v.i;
    int64_t hi = base->dims[d] - size[d];
    if (x > hi) x = hi;
    if (x < 0) x = 0;
    start[d] = x;
  }
  return HLO_OK;
}

DECL_KERN(hlo_ref_dynamic_slice) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  int64_t start[MAXR];
  if (os->rank != is->rank) return hlo_run_errorf(r, s->in, "rank mismatch");
  if (hlo_ref_read_starts(r, s, args, 1, is, os->dims, start)) return HLO_ERR;
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t ist[MAXR], oi[MAXR] = {0}, ii[MAXR];
  hlo_strides(is, ist);
  size_t es = esz_of(os);
  for (int64_t k = 0; k < o->nelems; k++) {
    for (int d = 0; d < is->rank; d++) ii[d] = start[d] + oi[d];
    cp(o->data, k, args[0]->data, hlo_index_dot(is->rank, ii, ist), es);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_dynamic_update_slice) {
  const hlo_shape *os = &s->in->shape, *us = args[1]->shape;
  int64_t start[MAXR];
  if (os->rank != us->rank) return hlo_run_errorf(r, s->in, "rank mismatch");
  if (hlo_ref_read_starts(r, s, args, 2, os, us->dims, start)) return HLO_ERR;
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  if (o->nbytes) memcpy(o->data, args[0]->data, o->nbytes);
  int64_t ost[MAXR], ui[MAXR] = {0}, oi[MAXR];
  hlo_strides(os, ost);
  size_t es = esz_of(os);
  for (int64_t k = 0; k < args[1]->nelems; k++) {
    for (int d = 0; d < os->rank; d++) oi[d] = start[d] + ui[d];
    cp(o->data, hlo_index_dot(os->rank, oi, ost), args[1]->data, k, es);
    hlo_index_next(us->rank, us->dims, ui);
  }
  *out = o;
  return HLO_OK;
}

/* Interior padding first, then edge padding (negative edges cut). */
DECL_KERN(hlo_ref_pad) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_PADDING);
  if (!a || a->u.padding.n != is->rank) return hlo_run_errorf(r, s->in, "bad padding=");
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  size_t es = esz_of(os);
  for (int64_t k = 0; k < o->nelems; k++) cp(o->data, k, args[1]->data, 0, es);
  int64_t ost[MAXR], ii[MAXR] = {0}, oi[MAXR];
  hlo_strides(os, ost);
  for (int64_t k = 0; k < args[0]->nelems; k++) {
    bool in = true;
    for (int d = 0; d < is->rank; d++) {
      const hlo_pad_dim *p = &a->u.padding.dims[d];
      oi[d] = p->lo + ii[d] * (p->interior + 1);
      if (oi[d] < 0 || oi[d] >= os->dims[d]) in = false;
    }
    if (in) cp(o->data, hlo_index_dot(os->rank, oi, ost), args[0]->data, k, es);
    hlo_index_next(is->rank, is->dims, ii);
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_concatenate) {
  const hlo_shape *os = &s->in->shape;
  int n;
  const int64_t *dims = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  if (n != 1 || dims[0] < 0 || dims[0] >= os->rank)
    return hlo_run_errorf(r, s->in, "bad dimensions=");
  int cd = (int)dims[0];
  int64_t total = 0;
  for (int a = 0; a < s->nargs; a++) {
    const hlo_shape *is = args[a]->shape;
    bool ok = is->rank == os->rank;
    for (int d = 0; ok && d < os->rank; d++) ok = d == cd || is->dims[d] == os->dims[d];
    if (!ok) return hlo_run_errorf(r, s->in, "operand %d does not match the result outside "
                                   "dimension %d", a, cd);
    total += is->dims[cd];
  }
  if (total != os->dims[cd])
    return hlo_run_errorf(r, s->in, "operand sizes along dimension %d do not add up", cd);
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t ost[MAXR], oi[MAXR];
  hlo_strides(os, ost);
  size_t es = esz_of(os);
  int64_t off = 0;
  for (int a = 0; a < s->nargs; a++) {
    const hlo_shape *is = args[a]->shape;
    int64_t ii[MAXR] = {0};
    for (int64_t k = 0; k < args[a]->nelems; k++) {
      memcpy(oi, ii, sizeof(int64_t) * (size_t)os->rank);
      oi[cd] += off;
      if (oi[cd] < os->dims[cd]) cp(o->data, hlo_index_dot(os->rank, oi, ost), args[a]->data, k, es);
      hlo_index_next(is->rank, is->dims, ii);
    }
    off += is->dims[cd];
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_reverse) {
  const hlo_shape *os = &s->in->shape;
  int n;
  const int64_t *dims = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  bool rev[MAXR] = {false};
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= os->rank) return hlo_run_errorf(r, s->in, "bad dimensions=");
    rev[dims[i]] = true;
  }
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  int64_t st[MAXR], oi[MAXR] = {0}, ii[MAXR];
  hlo_strides(os, st);
  size_t es = esz_of(os);
  for (int64_t k = 0; k < o->nelems; k++) {
    for (int d = 0; d < os->rank; d++) ii[d] = rev[d] ? os->dims[d] - 1 - oi[d] : oi[d];
    cp(o->data, k, args[0]->data, hlo_index_dot(os->rank, ii, st), es);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

/* Physical strides of a shape under its layout (default layout if none). */
static void phys_strides(const hlo_shape *s, int64_t *st) {
  if (!s->layout || s->layout->n != s->rank) {
    hlo_strides(s, st);
    return;
  }
  int64_t acc = 1;
  for (int i = 0; i < s->rank; i++) {
    int64_t d = s->layout->minor_to_major[i];
    if (d < 0 || d >= s->rank) { hlo_strides(s, st); return; }
    st[d] = acc;
    acc *= s->dims[d];
  }
}

/* bitcast reinterprets the physical buffer: element at physical position p
 * of the operand becomes the element at physical position p of the result. */
DECL_KERN(hlo_ref_bitcast) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  if (o->nbytes != args[0]->nbytes) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "operand and result sizes differ");
  }
  size_t es = esz_of(os);
  if (es != esz_of(is)) {
    if (o->nbytes) memcpy(o->data, args[0]->data, o->nbytes);
    *out = o;
    return HLO_OK;
  }
  int64_t ip[MAXR], op[MAXR], ist[MAXR], oi[MAXR] = {0}, ii[MAXR];
  phys_strides(is, ip);
  phys_strides(os, op);
  hlo_strides(is, ist);
  /* order the operand dims by decreasing physical stride to decompose p */
  int ord[MAXR];
  for (int d = 0; d < is->rank; d++) ord[d] = d;
  for (int a = 0; a < is->rank; a++)
    for (int b = a + 1; b < is->rank; b++)
      if (ip[ord[b]] > ip[ord[a]]) { int t = ord[a]; ord[a] = ord[b]; ord[b] = t; }
  for (int64_t k = 0; k < o->nelems; k++) {
    int64_t p = hlo_index_dot(os->rank, oi, op);
    for (int j = 0; j < is->rank; j++) {
      int d = ord[j];
      /* a dimension of size 1 shares its stride with a neighbour: its
       * index is 0, and the neighbour takes the offset */
      ii[d] = ip[d] && is->dims[d] > 1 ? p / ip[d] : 0;
      p -= ii[d] * ip[d];
    }
    cp(o->data, k, args[0]->data, hlo_index_dot(is->rank, ii, ist), es);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}
