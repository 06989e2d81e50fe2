/* kern_move.c - fast data-movement kernels.  Every one is a strided copy:
 * output element (i0..in) reads operand offset base + sum(i_d * st_d), run
 * with a contiguous innermost loop specialised on the element size, after
 * merging dims that are contiguous on both sides (so a slice of whole rows
 * or a concatenation is a few large memcpy).  Reshape takes over the
 * operand's buffer when the operand dies at this step. */
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

/* Set n elements of es bytes to the value at v. */
static void fill(void *dst, int64_t n, const void *v, size_t es) {
  if (n <= 0) return;
  switch (es) {
  case 1: memset(dst, *(const unsigned char *)v, (size_t)n); return;
  case 2: { uint16_t x, *p = dst; memcpy(&x, v, 2); for (int64_t k = 0; k < n; k++) p[k] = x; return; }
  case 4: { uint32_t x, *p = dst; memcpy(&x, v, 4); for (int64_t k = 0; k < n; k++) p[k] = x; return; }
  case 8: { uint64_t x, *p = dst; memcpy(&x, v, 8); for (int64_t k = 0; k < n; k++) p[k] = x; return; }
  default: break;
  }
  /* wider elements: the first one, then doubling copies */
  memcpy(dst, v, es);
  size_t have = es, total = (size_t)n * es;
  while (have < total) {
    size_t c = have < total - have ? have : total - have;
    memcpy((char *)dst + have, dst, c);
    have += c;
  }
}

#define INNER(T)                                                           \
  do {                                                                     \
    T *d = (T *)dst;                                                       \
    const T *sp = (const T *)src + off;                                    \
    if (ist == 1) memcpy(d + k, sp, sizeof(T) * (size_t)n);                \
    else if (ist == 0) fill(d + k, n, sp, sizeof(T));                      \
    else for (int64_t j = 0; j < n; j++) d[k + j] = sp[j * ist];           \
  } while (0)

/* Merge adjacent dims d, d+1 of a dense row-major side (dims) whose other
 * side has strides st with st[d] == st[d+1] * dims[d+1]; drops size-1
 * dims.  Writes the merged dims/strides to md/ms, returns the rank. */
static int merge_dims(int rank, const int64_t *dims, const int64_t *st, int64_t *md, int64_t *ms) {
  int m = 0;
  for (int d = 0; d < rank; d++) {
    if (dims[d] == 1) continue;
    if (m && ms[m - 1] == st[d] * dims[d]) {
      md[m - 1] *= dims[d];
      ms[m - 1] = st[d];
    } else {
      md[m] = dims[d];
      ms[m] = st[d];
      m++;
    }
  }
  return m;
}

/* Copy the whole output (dims odims) from src with effective strides st
 * (elements, may be 0 or negative) and base offset. */
static void strided_copy(void *dst, const void *src, int rank0, const int64_t *odims0,
                         const int64_t *st0, int64_t base, size_t es) {
  int64_t odims[MAXR], st[MAXR];
  for (int d = 0; d < rank0; d++)
    if (odims0[d] == 0) return;
  int rank = merge_dims(rank0, odims0, st0, odims, st);
  int64_t total = 1;
  for (int d = 0; d < rank; d++) total *= odims[d];
  if (total == 0) return;
  if (rank == 0) {
    memcpy(dst, (const char *)src + base * (int64_t)es, es);
    return;
  }
  int64_t n = odims[rank - 1], ist = st[rank - 1], idx[MAXR] = {0};
  for (int64_t k = 0; k < total; k += n) {
    int64_t off = base;
    for (int d = 0; d < rank - 1; d++) off += idx[d] * st[d];
    switch (es) {
    case 1: INNER(uint8_t); break;
    case 2: INNER(uint16_t); break;
    case 4: INNER(uint32_t); break;
    case 8: INNER(uint64_t); break;
    default:
      for (int64_t j = 0; j < n; j++)
        memcpy((char *)dst + (k + j) * (int64_t)es, (const char *)src + (off + j * ist) * (int64_t)es, es);
    }
    hlo_index_next(rank - 1, odims, idx);
  }
}

/* Scatter-direction strided copy: operand element (i) goes to output offset
 * base + sum(i_d * st_d) (pad, concatenate). */
static void strided_put(void *dst, const void *src, int rank0, const int64_t *idims0,
                        const int64_t *st0, int64_t base, size_t es) {
  int64_t idims[MAXR], st[MAXR];
  for (int d = 0; d < rank0; d++)
    if (idims0[d] == 0) return;
  int rank = merge_dims(rank0, idims0, st0, idims, st);
  int64_t total = 1;
  for (int d = 0; d < rank; d++) total *= idims[d];
  if (total == 0) return;
  if (rank == 0) {
    memcpy((char *)dst + base * (int64_t)es, src, es);
    return;
  }
  int64_t n = idims[rank - 1], ost = st[rank - 1], idx[MAXR] = {0};
  for (int64_t k = 0; k < total; k += n) {
    int64_t off = base;
    for (int d = 0; d < rank - 1; d++) off += idx[d] * st[d];
    if (ost == 1) memcpy((char *)dst + off * (int64_t)es, (const char *)src + k * (int64_t)es, es * (size_t)n);
    else
      for (int64_t j = 0; j < n; j++)
        memcpy((char *)dst + (off + j * ost) * (int64_t)es, (const char *)src + (k + j) * (int64_t)es, es);
    hlo_index_next(rank - 1, idims, idx);
  }
}

DECL_KERN(hlo_fast_reshape) {
  const hlo_shape *os = &s->in->shape;
  if (s->last_use[0] && args[0]->refs == 1 && args[0]->data) {
    hlo_val *o = hlo_malloc(r->alloc, sizeof *o);
    if (!o) return OOM(r, s);
    *o = *args[0];
    o->refs = 1;
    o->shape = os;
    o->dims = NULL; /* the operand keeps its sizes; the dynamic layer sets the result's */
    args[0]->data = NULL;
    args[0]->cap = 0;
    *out = o;
    return HLO_OK;
  }
  hlo_val *o = hlo_run_new_raw(r, os);
  if (!o) return OOM(r, s);
  if (o->nbytes != args[0]->nbytes) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "element counts differ");
  }
  if (o->nbytes) memcpy(o->data, args[0]->data, o->nbytes);
  *out = o;
  return HLO_OK;
}

/* Whether a shape's physical order is its logical row-major order: the
 * dims other than size-1 ones appear in minor_to_major from last to first. */
static bool row_major(const hlo_shape *s) {
  if (!s->layout || s->layout->n == 0) return true;
  if (s->layout->n != s->rank) return false;
  int64_t prev = s->rank;
  for (int k = 0; k < s->rank; k++) {
    int64_t d = s->layout->minor_to_major[k];
    if (d < 0 || d >= s->rank) return false;
    if (s->dims[d] == 1) continue;
    if (d >= prev) return false;
    prev = d;
  }
  return true;
}

/* bitcast between row-major layouts of one element size is a reshape. */
DECL_KERN(hlo_fast_bitcast) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  if (hlo_type_bytes(os->type) != hlo_type_bytes(is->type) || !row_major(os) || !row_major(is))
    return hlo_ref_bitcast(r, s, args, out);
  return hlo_fast_reshape(r, s, args, out);
}

DECL_KERN(hlo_fast_transpose_strided) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  int n;
  const int64_t *perm = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  if (n != os->rank || is->rank != n) return hlo_run_errorf(r, s->in, "bad dimensions=");
  int64_t ist[MAXR], st[MAXR];
  hlo_strides(is, ist);
  for (int d = 0; d < n; d++) st[d] = ist[perm[d]];
  hlo_val *o = hlo_run_new_raw(r, os);
  if (!o) return OOM(r, s);
  strided_copy(o->data, args[0]->data, n, os->dims, st, 0, (size_t)hlo_type_bytes(os->type));
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_fast_broadcast) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  int n;
  const int64_t *dims = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  if (n != is->rank) return hlo_run_errorf(r, s->in, "dimensions= does not match operand rank");
  int64_t ist[MAXR], st[MAXR] = {0};
  hlo_strides(is, ist);
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= os->rank) return hlo_run_errorf(r, s->in, "bad dimensions=");
    st[dims[i]] = is->dims[i] == 1 ? 0 : ist[i];
  }
  hlo_val *o = hlo_run_new_raw(r, os);
  if (!o) return OOM(r, s);
  strided_copy(o->data, args[0]->data, os->rank, os->dims, st, 0, (size_t)hlo_type_bytes(os->type));
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_fast_slice) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_SLICE);
  if (!a || a->u.slices.n != is->rank) return hlo_run_errorf(r, s->in, "bad slice=");
  int64_t ist[MAXR], st[MAXR], base = 0;
  hlo_strides(is, ist);
  for (int d = 0; d < is->rank; d++) {
    int64_t str = a->u.slices.v[d].stride ? a->u.slices.v[d].stride : 1;
    st[d] = ist[d] * str;
    base += a->u.slices.v[d].start * ist[d];
  }
  hlo_val *o = hlo_run_new_raw(r, os);
  if (!o) return OOM(r, s);
  strided_copy(o->data, args[0]->data, os->rank, os->dims, st, base, (size_t)hlo_type_bytes(os->type));
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_fast_concatenate) {
  const hlo_shape *os = &s->in->shape;
  int n;
  const int64_t *dims = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  if (n != 1 || dims[0] < 0 || dims[0] >= os->rank) return hlo_run_errorf(r, s->in, "bad dimensions=");
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
  hlo_val *o = hlo_run_new_raw(r, os); /* the operands cover every element */
  if (!o) return OOM(r, s);
  int64_t ost[MAXR], off = 0;
  hlo_strides(os, ost);
  for (int a = 0; a < s->nargs; a++) {
    const hlo_shape *is = args[a]->shape;
    if (is->rank != os->rank || off + is->dims[cd] > os->dims[cd]) {
      hlo_run_release(r, o);
      return hlo_run_errorf(r, s->in, "operand %d does not fit", a);
    }
    strided_put(o->data, args[a]->data, is->rank, is->dims, ost, off * ost[cd],
                (size_t)hlo_type_bytes(os->type));
    off += is->dims[cd];
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_fast_pad) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  const hlo_attr *a = hlo_instr_attr(s->in, HLO_A_PADDING);
  if (!a || a->u.padding.n != is->rank) return hlo_run_errorf(r, s->in, "bad padding=");
  bool neg = false;
  for (int d = 0; d < is->rank; d++)
    if (a->u.padding.dims[d].lo < 0 || a->u.padding.dims[d].hi < 0) neg = true;
  if (neg) return hlo_ref_pad(r, s, args, out);
  hlo_val *o = hlo_run_new_raw(r, os);
  if (!o) return OOM(r, s);
  size_t es = (size_t)hlo_type_bytes(os->type);
  fill(o->data, o->nelems, args[1]->data, es);
  int64_t ost[MAXR], st[MAXR], base = 0;
  hlo_strides(os, ost);
  for (int d = 0; d < is->rank; d++) {
    st[d] = ost[d] * (a->u.padding.dims[d].interior + 1);
    base += a->u.padding.dims[d].lo * ost[d];
  }
  strided_put(o->data, args[0]->data, is->rank, is->dims, st, base, es);
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_fast_iota) {
  const hlo_shape *sh = &s->in->shape;
  if (sh->type != HLO_F32 && sh->type != HLO_S32) return hlo_ref_iota(r, s, args, out);
  int64_t d = hlo_instr_int(s->in, HLO_A_IOTA_DIMENSION, -1);
  if (d < 0 || d >= sh->rank) return hlo_run_errorf(r, s->in, "iota_dimension out of range");
  hlo_val *o = hlo_run_new_raw(r, sh);
  if (!o) return OOM(r, s);
  int64_t st[MAXR];
  hlo_strides(sh, st);
  for (int64_t k = 0; k < o->nelems; k++) {
    int64_t v = (k / st[d]) % sh->dims[d];
    if (sh->type == HLO_F32) ((float *)o->data)[k] = (float)v;
    else ((int32_t *)o->data)[k] = (int32_t)v;
  }
  *out = o;
  return HLO_OK;
}

/* dynamic-update-slice writes into the operand's own block when the operand
 * dies at this step (loops that update a buffer stay linear). */
DECL_KERN(hlo_fast_dynamic_update_slice) {
  const hlo_shape *os = &s->in->shape, *us = args[1]->shape;
  int64_t start[MAXR];
  if (os->rank != us->rank) return hlo_run_errorf(r, s->in, "rank mismatch");
  if (hlo_ref_read_starts(r, s, args, 2, os, us->dims, start)) return HLO_ERR;
  hlo_val *o = s->last_use[0] ? hlo_run_steal(r, args[0], os) : NULL;
  if (!o) {
    o = hlo_run_new_raw(r, os);
    if (!o) return OOM(r, s);
    if (o->nbytes) memcpy(o->data, args[0]->data, o->nbytes);
  }
  int64_t ost[MAXR], base = 0;
  hlo_strides(os, ost);
  for (int d = 0; d < os->rank; d++) base += start[d] * ost[d];
  strided_put(o->data, args[1]->data, us->rank, us->dims, ost, base, (size_t)hlo_type_bytes(os->type));
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_fast_dynamic_slice) {
  const hlo_shape *os = &s->in->shape, *is = args[0]->shape;
  int64_t start[MAXR], ist[MAXR], base = 0;
  if (os->rank != is->rank) return hlo_run_errorf(r, s->in, "rank mismatch");
  if (hlo_ref_read_starts(r, s, args, 1, is, os->dims, start)) return HLO_ERR;
  hlo_strides(is, ist);
  for (int d = 0; d < is->rank; d++) base += start[d] * ist[d];
  hlo_val *o = hlo_run_new_raw(r, os);
  if (!o) return OOM(r, s);
  strided_copy(o->data, args[0]->data, os->rank, os->dims, ist, base, (size_t)hlo_type_bytes(os->type));
  *out = o;
  return HLO_OK;
}
