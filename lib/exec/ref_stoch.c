/* ref_stoch.c - stochastic-convert: a float operand rounded to a signed
 * integer type, up or down as chosen by the random-bits operand (the
 * algorithm of docs/interpreter.md, "Stochastic rounding"). */
#include <math.h>

#include "exec/exec.h"

DECL_KERN(hlo_ref_stochastic_convert) {
  const hlo_instruction *in = s->in;
  const hlo_val *x = args[0], *u = args[1];
  hlo_type xt = x->shape->type, ut = u->shape->type, ot = in->shape.type;
  if (hlo_type_kind_of(ot) != HLO_KIND_SINT || !hlo_type_is_float(xt) ||
      hlo_type_kind_of(ut) != HLO_KIND_UINT || x->nelems != u->nelems)
    return hlo_run_errorf(r, in, "stochastic-convert runs float -> signed integer with unsigned "
                          "random bits of the operand's shape");
  hlo_val *o = hlo_run_new_raw(r, &in->shape);
  if (!o) return hlo_run_errorf(r, in, "out of memory");
  int bits = hlo_type_bits(ot), ubits = hlo_type_bits(ut);
  double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1) - 1; /* exact for bits <= 53 */
  int64_t ihi = (int64_t)((((uint64_t)1) << (bits - 1)) - 1), ilo = -ihi - 1;
  for (int64_t k = 0; k < o->nelems; k++) {
    double v = hlo_sc_load(xt, x->data, k).f;
    uint64_t rb = (uint64_t)hlo_sc_load(ut, u->data, k).i;
    int64_t res;
    if (isnan(v)) {
      res = 0;
    } else if (v <= lo) {
      res = ilo;
    } else if (v >= hi) {
      res = ihi;
    } else {
      double a = fabs(v), t = floor(a);
      /* fraction as a fixed-point number of ubits bits (exact: a power-of-two
       * scale; below 2^ubits since the fraction is below 1) */
      uint64_t fixed = (uint64_t)ldexp(a - t, ubits);
      int64_t m = (int64_t)t + (rb < fixed ? 1 : 0);
      res = v < 0 ? -m : m;
    }
    hlo_sc_store(ot, o->data, k, (hlo_sc){0, 0, res});
  }
  *out = o;
  return HLO_OK;
}
