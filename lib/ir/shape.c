/* shape.c - queries and constructors for shapes and layouts. */
#include <string.h>

#include "hlo/hlo_ir.h"

bool hlo_shape_is_tuple(const hlo_shape *s) { return s->type == HLO_TUPLE; }
bool hlo_shape_is_array(const hlo_shape *s) { return hlo_type_is_array(s->type); }
bool hlo_shape_is_scalar(const hlo_shape *s) {
  return hlo_type_is_array(s->type) && s->rank == 0;
}

bool hlo_shape_elements(const hlo_shape *s, int64_t *out) {
  if (!hlo_type_is_array(s->type)) return false;
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->dims[i] < 0) return false;
    if (__builtin_mul_overflow(n, s->dims[i], &n)) return false;
  }
  *out = n;
  return true;
}

bool hlo_shape_bytes(const hlo_shape *s, int64_t *out) {
  int64_t n;
  if (!hlo_shape_elements(s, &n)) return false;
  if (__builtin_mul_overflow(n, (int64_t)hlo_type_bytes(s->type), &n)) return false;
  *out = n;
  return true;
}

static bool dyn(const hlo_shape *s, int i) { return s->dynamic && s->dynamic[i]; }

bool hlo_shape_compatible(const hlo_shape *a, const hlo_shape *b) {
  if (a->type != b->type) return false;
  if (a->type == HLO_TUPLE) {
    if (a->ntuple != b->ntuple) return false;
    for (int i = 0; i < a->ntuple; i++)
      if (!hlo_shape_compatible(&a->tuple[i], &b->tuple[i])) return false;
    return true;
  }
  if (a->rank != b->rank || a->buffer != b->buffer) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i] || dyn(a, i) != dyn(b, i)) return false;
  return true;
}

static bool layout_equal(const hlo_layout *a, const hlo_layout *b) {
  if (!a || !b) return a == b;
  if (a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->minor_to_major[i] != b->minor_to_major[i]) return false;
  if (!a->ext || !b->ext) return a->ext == b->ext;
  return strcmp(a->ext, b->ext) == 0;
}

bool hlo_shape_equal(const hlo_shape *a, const hlo_shape *b) {
  if (a->type != b->type) return false;
  if (a->type == HLO_TUPLE) {
    if (a->ntuple != b->ntuple) return false;
    for (int i = 0; i < a->ntuple; i++)
      if (!hlo_shape_equal(&a->tuple[i], &b->tuple[i])) return false;
    return true;
  }
  return hlo_shape_compatible(a, b) && layout_equal(a->layout, b->layout);
}

static int copy_layout(hlo_arena *a, hlo_layout **dst, const hlo_layout *src) {
  if (!src) {
    *dst = NULL;
    return HLO_OK;
  }
  hlo_layout *l = hlo_arena_alloc(a, sizeof *l);
  if (!l) return HLO_ERR;
  *l = *src;
  l->minor_to_major = hlo_arena_array(a, (size_t)src->n, sizeof(int64_t));
  if (src->n && !l->minor_to_major) return HLO_ERR;
  if (src->n) memcpy(l->minor_to_major, src->minor_to_major, (size_t)src->n * sizeof(int64_t));
  if (src->ntiles) {
    l->tiles = hlo_arena_array(a, (size_t)src->ntiles, sizeof(hlo_tile));
    if (!l->tiles) return HLO_ERR;
    for (int i = 0; i < src->ntiles; i++) {
      l->tiles[i].n = src->tiles[i].n;
      l->tiles[i].dims = hlo_arena_array(a, (size_t)src->tiles[i].n, sizeof(int64_t));
      if (src->tiles[i].n && !l->tiles[i].dims) return HLO_ERR;
      if (src->tiles[i].n)
        memcpy(l->tiles[i].dims, src->tiles[i].dims, (size_t)src->tiles[i].n * sizeof(int64_t));
    }
  }
  if (src->ext && !(l->ext = hlo_arena_strdup(a, src->ext))) return HLO_ERR;
  *dst = l;
  return HLO_OK;
}

int hlo_shape_copy(hlo_arena *a, hlo_shape *dst, const hlo_shape *src) {
  *dst = *src;
  if (src->type == HLO_TUPLE) {
    dst->tuple = NULL;
    if (src->ntuple) {
      dst->tuple = hlo_arena_array(a, (size_t)src->ntuple, sizeof(hlo_shape));
      if (!dst->tuple) return HLO_ERR;
      for (int i = 0; i < src->ntuple; i++)
        if (hlo_shape_copy(a, &dst->tuple[i], &src->tuple[i])) return HLO_ERR;
    }
    return HLO_OK;
  }
  dst->dims = NULL;
  dst->dynamic = NULL;
  if (src->rank) {
    dst->dims = hlo_arena_array(a, (size_t)src->rank, sizeof(int64_t));
    if (!dst->dims) return HLO_ERR;
    memcpy(dst->dims, src->dims, (size_t)src->rank * sizeof(int64_t));
    if (src->dynamic) {
      dst->dynamic = hlo_arena_array(a, (size_t)src->rank, sizeof(bool));
      if (!dst->dynamic) return HLO_ERR;
      memcpy(dst->dynamic, src->dynamic, (size_t)src->rank * sizeof(bool));
    }
  }
  return copy_layout(a, &dst->layout, src->layout);
}

static int default_layout(hlo_arena *a, hlo_shape *s) {
  hlo_layout *l = hlo_arena_alloc(a, sizeof *l);
  if (!l) return HLO_ERR;
  l->n = s->rank;
  if (s->rank) {
    l->minor_to_major = hlo_arena_array(a, (size_t)s->rank, sizeof(int64_t));
    if (!l->minor_to_major) return HLO_ERR;
    for (int i = 0; i < s->rank; i++) l->minor_to_major[i] = s->rank - 1 - i;
  }
  s->layout = l;
  return HLO_OK;
}

int hlo_shape_make_array(hlo_arena *a, hlo_shape *dst, hlo_type t, int rank,
                         const int64_t *dims) {
  memset(dst, 0, sizeof *dst);
  dst->type = t;
  dst->rank = rank;
  if (rank) {
    dst->dims = hlo_arena_array(a, (size_t)rank, sizeof(int64_t));
    if (!dst->dims) return HLO_ERR;
    memcpy(dst->dims, dims, (size_t)rank * sizeof(int64_t));
  }
  return default_layout(a, dst);
}

int hlo_shape_set_default_layouts(hlo_arena *a, hlo_shape *s) {
  if (s->type == HLO_TUPLE) {
    for (int i = 0; i < s->ntuple; i++)
      if (hlo_shape_set_default_layouts(a, &s->tuple[i])) return HLO_ERR;
    return HLO_OK;
  }
  if (!hlo_type_is_array(s->type) || s->layout) return HLO_OK;
  return default_layout(a, s);
}
