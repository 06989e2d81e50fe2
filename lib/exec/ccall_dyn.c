/* ccall_dyn.c - the custom calls of XLA's dynamic padder that cross between
 * a dynamic array and its static form: PadToStatic (dynamic array -> tuple
 * of the padded static array and one s32 size per dimension) and
 * SliceToDynamic (static array and one s32 size per dimension -> dynamic
 * array).  The sizes travel in hlo_val.dims (dyn.c). */
#include <string.h>

#include "exec/ccall.h"

DECL_KERN(hlo_ccall_pad_to_static) {
  const hlo_shape *rs = &s->in->shape;
  const hlo_val *v = args[0];
  hlo_val *t = hlo_run_new(r, rs);
  if (!t) return hlo_run_errorf(r, s->in, "out of memory");
  const int64_t *lim = v->dims ? v->dims : v->shape->dims;
  hlo_val *m = hlo_dyn_masked(r, v, lim, NULL); /* XLA leaves the padding unspecified: zero */
  if (!m) { hlo_run_release(r, t); return hlo_run_errorf(r, s->in, "out of memory"); }
  hlo_val *a = t->tuple[0];
  memcpy(a->data, m->data, a->nbytes < m->nbytes ? a->nbytes : m->nbytes);
  hlo_run_release(r, m);
  for (int i = 0; i < v->shape->rank; i++) {
    hlo_sc x = {0, 0, v->dims ? v->dims[i] : v->shape->dims[i]};
    hlo_sc_store(HLO_S32, t->tuple[1 + i]->data, 0, x);
  }
  *out = t;
  return HLO_OK;
}

DECL_KERN(hlo_ccall_slice_to_dynamic) {
  const hlo_shape *rs = &s->in->shape;
  int64_t dims[MAXR];
  for (int i = 0; i < rs->rank; i++) {
    int64_t n = hlo_sc_load(HLO_S32, args[1 + i]->data, 0).i;
    if (rs->dynamic && rs->dynamic[i]) {
      if (n < 0 || n > rs->dims[i])
        return hlo_run_errorf(r, s->in, "size %lld of dimension %d is outside [0, %lld]",
                              (long long)n, i, (long long)rs->dims[i]);
      dims[i] = n;
    } else {
      dims[i] = rs->dims[i]; /* a static dimension keeps its size */
    }
  }
  hlo_val *o = hlo_run_new_raw(r, rs);
  if (!o) return hlo_run_errorf(r, s->in, "out of memory");
  if (o->nbytes) memcpy(o->data, args[0]->data, o->nbytes);
  *out = o;
  return hlo_dyn_put(r, s->in, out, dims);
}

static bool same_bounds(const hlo_shape *a, const hlo_shape *b) {
  if (!hlo_shape_is_array(a) || !hlo_shape_is_array(b) || a->type != b->type || a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

static bool s32_scalar(const hlo_shape *s) { return s->type == HLO_S32 && s->rank == 0; }

int hlo_ccall_prep_dyn(hlo_exec *e, plan_step *s, const char *t) {
  const hlo_instruction *in = s->in;
  const hlo_shape *rs = &in->shape;
  bool ok;
  if (strcmp(t, "PadToStatic") == 0) {
    const hlo_shape *os = in->noperands == 1 ? &in->operands[0]->shape : NULL;
    ok = os && os->rank <= MAXR && rs->type == HLO_TUPLE && rs->ntuple == 1 + os->rank &&
         same_bounds(os, &rs->tuple[0]);
    for (int i = 0; ok && i < os->rank; i++) ok = s32_scalar(&rs->tuple[1 + i]);
    s->fn = hlo_ccall_pad_to_static;
    s->kname = "hlo_ccall_pad_to_static";
    if (!ok)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: PadToStatic takes one array and returns "
                          "(array of the same bounds, one s32[] size per dimension)", in->name);
    return HLO_OK;
  }
  ok = rs->rank <= MAXR && in->noperands == 1 + rs->rank &&
       same_bounds(&in->operands[0]->shape, rs);
  for (int i = 0; ok && i < rs->rank; i++) ok = s32_scalar(&in->operands[1 + i]->shape);
  s->fn = hlo_ccall_slice_to_dynamic;
  s->kname = "hlo_ccall_slice_to_dynamic";
  if (!ok)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: SliceToDynamic takes an array and one s32[] "
                        "size per dimension, and returns an array of the same bounds", in->name);
  return HLO_OK;
}
