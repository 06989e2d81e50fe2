/* ref_elem.c - reference kernels of the elementwise family: unary, binary,
 * clamp, select, compare, convert, reduce-precision, bitcast-convert, iota
 * and map.  One element at a time through the generic scalar, for clarity. */
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

/* Element k of operand v for a result of n elements (a scalar operand
 * broadcasts). */
static hlo_sc ld(const hlo_val *v, int64_t k) {
  return hlo_sc_load(v->shape->type, v->data, v->nelems == 1 ? 0 : k);
}

static int check_sizes(hlo_run *r, const plan_step *s, hlo_val **args, int64_t n) {
  for (int i = 0; i < s->nargs; i++)
    if (args[i]->ntuple || (args[i]->nelems != n && args[i]->nelems != 1))
      return hlo_run_errorf(r, s->in, "operand %d has %lld elements, the result %lld", i,
                            (long long)args[i]->nelems, (long long)n);
  return HLO_OK;
}

DECL_KERN(hlo_ref_elementwise) {
  const hlo_instruction *in = s->in;
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  if (check_sizes(r, s, args, o->nelems)) { hlo_run_release(r, o); return HLO_ERR; }
  hlo_type t = args[0]->shape->type, ot = in->shape.type;
  for (int64_t k = 0; k < o->nelems; k++) {
    hlo_sc v = s->nargs == 1 ? hlo_ref_unary(in->op, t, ot, ld(args[0], k))
                             : hlo_ref_binary(in->op, t, ot, ld(args[0], k), ld(args[1], k));
    hlo_sc_store(ot, o->data, k, v);
  }
  *out = o;
  return HLO_OK;
}

/* clamp(lo, x, hi) = min(max(lo, x), hi); select(p, a, b).  select also
 * takes tuples when the predicate is a scalar. */
DECL_KERN(hlo_ref_clamp_select) {
  const hlo_instruction *in = s->in;
  if (in->op == HLO_OP_SELECT && (args[1]->ntuple || in->shape.type == HLO_TUPLE)) {
    if (!args[0]->data || args[0]->nelems != 1)
      return hlo_run_errorf(r, in, "selecting tuples needs a scalar predicate");
    *out = hlo_val_ref(((unsigned char *)args[0]->data)[0] ? args[1] : args[2]);
    return HLO_OK;
  }
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  if (check_sizes(r, s, args, o->nelems)) { hlo_run_release(r, o); return HLO_ERR; }
  hlo_type t = in->shape.type;
  for (int64_t k = 0; k < o->nelems; k++) {
    hlo_sc v;
    if (in->op == HLO_OP_SELECT) {
      v = ld(args[0], k).i ? ld(args[1], k) : ld(args[2], k);
    } else {
      hlo_sc lo = ld(args[0], k), x = ld(args[1], k), hi = ld(args[2], k);
      v = hlo_ref_binary(HLO_OP_MINIMUM, t, t, hlo_ref_binary(HLO_OP_MAXIMUM, t, t, lo, x), hi);
    }
    hlo_sc_store(t, o->data, k, v);
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_compare_k) {
  const hlo_instruction *in = s->in;
  int dir, ct;
  if (hlo_cmp_attrs(in, &dir, &ct, r->d)) return HLO_ERR;
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  if (check_sizes(r, s, args, o->nelems)) { hlo_run_release(r, o); return HLO_ERR; }
  hlo_type t = args[0]->shape->type;
  unsigned char *p = o->data;
  for (int64_t k = 0; k < o->nelems; k++)
    p[k] = hlo_ref_compare(dir, ct, t, ld(args[0], k), ld(args[1], k));
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_convert_k) {
  const hlo_instruction *in = s->in;
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  if (check_sizes(r, s, args, o->nelems)) { hlo_run_release(r, o); return HLO_ERR; }
  hlo_type ft = args[0]->shape->type, tt = in->shape.type;
  for (int64_t k = 0; k < o->nelems; k++)
    hlo_sc_store(tt, o->data, k, hlo_ref_convert(ft, tt, ld(args[0], k)));
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_reduce_precision_k) {
  const hlo_instruction *in = s->in;
  int64_t eb = hlo_instr_int(in, HLO_A_EXPONENT_BITS, -1);
  int64_t mb = hlo_instr_int(in, HLO_A_MANTISSA_BITS, -1);
  if (eb < 1 || mb < 0 || eb > 64 || mb > 64)
    return hlo_run_errorf(r, in, "needs exponent_bits >= 1 and mantissa_bits >= 0");
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  hlo_type t = in->shape.type;
  for (int64_t k = 0; k < o->nelems; k++)
    hlo_sc_store(t, o->data, k, hlo_ref_reduce_precision(t, ld(args[0], k), (int)eb, (int)mb));
  *out = o;
  return HLO_OK;
}

/* Reinterpret bits.  Sub-byte and f8 types are stored one per byte, so the
 * bit pattern is gathered from / scattered to the logical widths. */
DECL_KERN(hlo_ref_bitcast_convert) {
  const hlo_instruction *in = s->in;
  hlo_type ft = args[0]->shape->type, tt = in->shape.type;
  int fb = hlo_type_bits(ft), tb = hlo_type_bits(tt);
  if (ft == HLO_PRED || tt == HLO_PRED) fb = tb = 8;
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  int fbytes = hlo_type_bytes(ft), tbytes = hlo_type_bytes(tt);
  /* total bits must agree */
  if ((uint64_t)o->nelems * (uint64_t)tb != (uint64_t)args[0]->nelems * (uint64_t)fb) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, in, "bit widths of operand and result do not match");
  }
  const unsigned char *src = args[0]->data;
  unsigned char *dst = o->data;
  if (fb == fbytes * 8 && tb == tbytes * 8) {
    if (o->nbytes) memcpy(dst, src, o->nbytes);
  } else {
    /* go through a packed little-endian bit stream */
    for (int64_t k = 0; k < o->nelems; k++) {
      uint64_t val = 0;
      for (int b = 0; b < tb; b++) {
        int64_t bit = k * tb + b;
        int64_t e = bit / fb, eb = bit % fb;
        int byte = (int)(eb / 8), bb = (int)(eb % 8);
        val |= (uint64_t)((src[e * fbytes + byte] >> bb) & 1) << b;
      }
      for (int b = 0; b < tbytes; b++) dst[k * tbytes + b] = (unsigned char)(val >> (8 * b));
      if (hlo_type_kind_of(tt) == HLO_KIND_SINT && tb < 8) { /* keep sign-extended */
        hlo_sc x = hlo_sc_load(tt, dst, k);
        hlo_sc_store(tt, dst, k, x);
      }
    }
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_iota) {
  const hlo_instruction *in = s->in;
  const hlo_shape *sh = &in->shape;
  int64_t d = hlo_instr_int(in, HLO_A_IOTA_DIMENSION, -1);
  if (d < 0 || d >= sh->rank) return hlo_run_errorf(r, in, "iota_dimension out of range");
  hlo_val *o = hlo_run_new(r, sh);
  if (!o) return OOM(r, s);
  int64_t idx[MAXR] = {0};
  for (int64_t k = 0; k < o->nelems; k++) {
    hlo_sc v = {(double)idx[d], 0, idx[d]};
    hlo_sc_store(sh->type, o->data, k, v);
    hlo_index_next(sh->rank, sh->dims, idx);
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_map) {
  const hlo_instruction *in = s->in;
  const plan_comp *pc = r->e->plans[in->called[0]->id];
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  if (s->nargs > 32 || check_sizes(r, s, args, o->nelems)) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, in, "bad operands");
  }
  hlo_sc x[32], y;
  for (int64_t k = 0; k < o->nelems; k++) {
    for (int i = 0; i < s->nargs; i++) x[i] = ld(args[i], k);
    if (hlo_run_scalar(r, pc, x, s->nargs, &y, 1)) { hlo_run_release(r, o); return HLO_ERR; }
    hlo_sc_store(in->shape.type, o->data, k, y);
  }
  *out = o;
  return HLO_OK;
}
