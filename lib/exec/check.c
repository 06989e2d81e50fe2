/* check.c - check mode of the interpreter (hlo_exec_options.check_fast): each
 * step whose fast kernel is not its reference kernel runs both on the same
 * operands, and the results must agree within the tolerance of tolerance.c,
 * measured in ulps of the result type.  A step inside a reference run (a
 * fusion computed instruction by instruction) runs its reference kernel too,
 * so the fast result is always compared with the pure reference. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec.h"
#include "hlo/hlo_fp.h"

/* Run the reference kernel of s; ref_only: every step below it too (else the
 * steps of a called computation keep their fast kernels, checked each). */
static int run_ref_as(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out,
                      bool ref_only) {
  plan_step rs = *s;
  rs.fn = s->ref_fn;
  rs.kname = s->ref_kname;
  rs.p = s->ref_p;
  rs.prof = NULL;
  bool was = r->ref_only;
  r->ref_only = ref_only;
  int rc = rs.fn(r, &rs, args, out);
  r->ref_only = was;
  return rc;
}

static int run_ref(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out) {
  return run_ref_as(r, s, args, out, true);
}

/* ---- element comparison ----------------------------------------------------- */
static uint64_t raw_bits(const void *data, int64_t k, int bytes) {
  uint64_t b = 0;
  memcpy(&b, (const char *)data + k * bytes, (size_t)bytes);
  return b;
}

/* Position of a float encoding in the order of the values it stands for
 * (sign-magnitude to two's complement; the unsigned f8e8m0fnu as it is), so
 * that neighbouring values differ by one. */
static int64_t order_key(hlo_type t, uint64_t bits) {
  int w = hlo_type_bits(t);
  if (t == HLO_F8E8M0FNU) return (int64_t)bits;
  uint64_t sign = (uint64_t)1 << (w - 1), mag = bits & (sign - 1);
  return (bits >> (w - 1)) & 1 ? -(int64_t)mag : (int64_t)mag;
}

/* Spacing of t's values at the magnitude of bits. */
static double ulp_at(hlo_type t, uint64_t bits) {
  int w = hlo_type_bits(t);
  uint64_t sign = t == HLO_F8E8M0FNU ? 0 : (uint64_t)1 << (w - 1);
  uint64_t mag = bits & ~sign;
  double v = fabs(hlo_fp_to_double(t, mag)), up = fabs(hlo_fp_to_double(t, mag + 1));
  if (!isfinite(up) || hlo_fp_is_nan(t, mag + 1))
    up = mag ? v + (v - fabs(hlo_fp_to_double(t, mag - 1))) : v;
  return up - v;
}

typedef struct cmp_ctx {
  const hlo_instruction *in;
  hlo_tol tol;            /* of the leaf being compared */
  int64_t worst_ulps;
  bool bad;
  int64_t at;             /* first element out of tolerance */
  double got, want, mag;
  int leaf;               /* tuple leaf of the failure, -1 for arrays */
} cmp_ctx;

/* Compare one float component (type t) of element k. */
static bool float_ok(cmp_ctx *c, hlo_type t, uint64_t a, uint64_t b, double mag) {
  bool na = hlo_fp_is_nan(t, a), nb = hlo_fp_is_nan(t, b);
  if (na || nb) return na && nb; /* a NaN matches any NaN (payloads aside) */
  if (c->tol.ulps == 0 && c->tol.terms == 0) return a == b;
  int64_t d = order_key(t, a) - order_key(t, b);
  if (d < 0) d = -d;
  if (d > c->worst_ulps) c->worst_ulps = d;
  if (d <= c->tol.ulps) return true;
  if (c->tol.terms == 0) return false;
  double x = hlo_fp_to_double(t, a), y = hlo_fp_to_double(t, b);
  if (!isfinite(x) || !isfinite(y)) return false;
  double allowed = c->tol.ulps * ulp_at(t, b) + c->tol.terms * c->tol.unit * fabs(mag);
  return fabs(x - y) <= allowed;
}

static void compare_leaf(cmp_ctx *c, const hlo_val *fast, const hlo_val *ref, const hlo_val *mag,
                         int leaf) {
  hlo_type t = ref->shape->type;
  if (c->in) c->tol = hlo_tol_of(c->in, t);
  int bytes = hlo_type_bytes(t);
  hlo_type_kind kind = hlo_type_kind_of(t);
  hlo_type comp = t == HLO_C64 ? HLO_F32 : t == HLO_C128 ? HLO_F64 : t;
  int parts = kind == HLO_KIND_COMPLEX ? 2 : 1, pb = bytes / parts;
  for (int64_t k = 0; k < ref->nelems && !c->bad; k++) {
    if (kind != HLO_KIND_FLOAT && kind != HLO_KIND_COMPLEX) {
      if (memcmp((const char *)fast->data + k * bytes, (const char *)ref->data + k * bytes,
                 (size_t)bytes) == 0)
        continue;
      c->bad = true;
    } else {
      for (int p = 0; p < parts && !c->bad; p++) {
        uint64_t a = raw_bits(fast->data, k * parts + p, pb);
        uint64_t b = raw_bits(ref->data, k * parts + p, pb);
        /* complex sums: the real part of the magnitude bounds both parts */
        double m = mag ? hlo_fp_to_double(comp, raw_bits(mag->data, k * parts, pb)) : 0;
        if (float_ok(c, comp, a, b, m)) continue;
        c->bad = true;
        c->got = hlo_fp_to_double(comp, a);
        c->want = hlo_fp_to_double(comp, b);
        c->mag = m;
      }
    }
    if (c->bad) {
      c->at = k;
      c->leaf = leaf;
    }
  }
}

static void compare_val(cmp_ctx *c, const hlo_val *fast, const hlo_val *ref, const hlo_val *mag,
                        int leaf) {
  if (ref->ntuple) {
    for (int i = 0; i < ref->ntuple && !c->bad; i++)
      compare_val(c, fast->tuple[i], ref->tuple[i], mag ? mag->tuple[i] : NULL, i);
    return;
  }
  if (ref->nelems && ref->data && fast->data) compare_leaf(c, fast, ref, mag, leaf);
}

/* A copy of v with the sign of every float cleared, and every complex number
 * (re, im) made (|re| + |im|, 0), so a summing kernel run on it gives an upper
 * bound of sum |terms| (in the real part for complex results). */
static hlo_val *abs_copy(hlo_run *r, const hlo_val *v) {
  hlo_val *o = hlo_run_new_raw(r, v->shape);
  if (!o) return NULL;
  for (int i = 0; i < v->ntuple; i++) {
    hlo_val *e = abs_copy(r, v->tuple[i]);
    if (!e) { hlo_run_release(r, o); return NULL; }
    hlo_run_release(r, o->tuple[i]);
    o->tuple[i] = e;
  }
  if (v->ntuple || !v->nbytes) return o;
  memcpy(o->data, v->data, v->nbytes);
  hlo_type t = v->shape->type;
  hlo_type_kind kind = hlo_type_kind_of(t);
  if ((kind != HLO_KIND_FLOAT && kind != HLO_KIND_COMPLEX) || t == HLO_F8E8M0FNU) return o;
  hlo_type comp = t == HLO_C64 ? HLO_F32 : t == HLO_C128 ? HLO_F64 : t;
  int pb = hlo_type_bytes(comp), w = hlo_type_bits(comp);
  int64_t n = (int64_t)(v->nbytes / (size_t)pb);
  if (kind == HLO_KIND_COMPLEX) {
    for (int64_t k = 0; k + 1 < n; k += 2) {
      double re = fabs(hlo_fp_to_double(comp, raw_bits(o->data, k, pb)));
      double im = fabs(hlo_fp_to_double(comp, raw_bits(o->data, k + 1, pb)));
      uint64_t s = hlo_fp_from_double(comp, re + im), z = 0;
      memcpy((char *)o->data + k * pb, &s, (size_t)pb);
      memcpy((char *)o->data + (k + 1) * pb, &z, (size_t)pb);
    }
    return o;
  }
  for (int64_t k = 0; k < n; k++) {
    uint64_t b = raw_bits(o->data, k, pb);
    if (hlo_fp_is_nan(comp, b)) continue; /* fnuz NaN is the negative zero pattern */
    b &= ~((uint64_t)1 << (w - 1));
    memcpy((char *)o->data + k * pb, &b, (size_t)pb);
  }
  return o;
}

/* sum |terms| per result element: the reference kernel on absolute operands */
static int magnitude(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **mag) {
  hlo_val *av[16], **a = av;
  if (s->nargs > 16 && !(a = hlo_malloc(r->alloc, sizeof *a * (size_t)s->nargs)))
    return hlo_run_errorf(r, s->in, "out of memory");
  int made = 0, rc = HLO_OK;
  for (; made < s->nargs; made++)
    if (!(a[made] = abs_copy(r, args[made]))) {
      rc = hlo_run_errorf(r, s->in, "out of memory");
      break;
    }
  if (rc == HLO_OK) rc = run_ref(r, s, a, mag);
  for (int i = 0; i < made; i++) hlo_run_release(r, a[i]);
  if (a != av) hlo_free(r->alloc, a);
  return rc;
}

static void format_index(char *buf, size_t cap, const hlo_shape *s, int64_t k) {
  int64_t idx[HLO_EXEC_MAX_RANK];
  for (int d = s->rank - 1; d >= 0; d--) {
    idx[d] = s->dims[d] ? k % s->dims[d] : 0;
    k = s->dims[d] ? k / s->dims[d] : 0;
  }
  size_t n = (size_t)snprintf(buf, cap, "{");
  for (int d = 0; d < s->rank && n < cap; d++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? "," : "", (long long)idx[d]);
  if (n < cap) snprintf(buf + n, cap - n, "}");
}

static void report(const cmp_ctx *c, const hlo_val *ref, char *why, size_t cap) {
  const hlo_val *leaf = c->leaf >= 0 ? ref->tuple[c->leaf] : ref;
  char where[256], tol[96];
  format_index(where, sizeof where, leaf->shape, c->at);
  if (c->tol.ulps == 0 && c->tol.terms == 0)
    snprintf(tol, sizeof tol, "the same bits");
  else if (c->tol.terms == 0)
    snprintf(tol, sizeof tol, "%d ulps", c->tol.ulps);
  else
    snprintf(tol, sizeof tol, "%d ulps + %g terms * %g * %.9g", c->tol.ulps, c->tol.terms,
             c->tol.unit, c->mag);
  char leafs[32] = "";
  if (c->leaf >= 0) snprintf(leafs, sizeof leafs, " of tuple element %d", c->leaf);
  snprintf(why, cap, "differ at %s%s: %.17g against %.17g (%s; tolerance %s)", where, leafs,
           c->got, c->want, hlo_type_name(leaf->shape->type), tol);
}

int hlo_tol_check(const hlo_instruction *in, const hlo_val *fast, const hlo_val *ref,
                  const hlo_val *mag, char *why, size_t cap) {
  /* in == NULL: the same bits */
  cmp_ctx c;
  memset(&c, 0, sizeof c);
  c.leaf = -1;
  c.in = in;
  compare_val(&c, fast, ref, mag, -1);
  if (!c.bad) return HLO_OK;
  report(&c, ref, why, cap);
  return HLO_ERR;
}

int hlo_check_call(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out) {
  if (r->ref_only) return run_ref(r, s, args, out);
  if (s->fn == s->ref_fn && s->p == s->ref_p)
    return s->prof ? hlo_prof_call(r, s, args, out) : s->fn(r, s, args, out);
  /* an extra reference keeps every kernel from taking over an operand's
   * storage, so both kernels read the same operands */
  for (int i = 0; i < s->nargs; i++) hlo_val_ref(args[i]);
  int rc = s->prof ? hlo_prof_call(r, s, args, out) : s->fn(r, s, args, out);
  hlo_val *ref = NULL, *mag = NULL;
  /* A fusion's fast kernel computes its instructions as their own fast
   * kernels would, so it must give the same bits as the fused computation run
   * instruction by instruction on the fast path, where each instruction is
   * checked against its reference kernel within its own tolerance.  A
   * tolerance on the fusion's result could not be stated in ulps: one ulp of
   * an inner op grows without bound through a later cancellation. */
  bool composite = s->in->op == HLO_OP_FUSION;
  if (rc == HLO_OK) rc = run_ref_as(r, s, args, &ref, !composite);
  if (rc == HLO_OK && *out && ref) {
    const hlo_instruction *tin = composite ? NULL : s->in;
    if (tin && hlo_tol_of(tin, HLO_F32).terms > 0) rc = magnitude(r, s, args, &mag);
    char why[512];
    if (rc == HLO_OK && hlo_tol_check(tin, *out, ref, mag, why, sizeof why) != HLO_OK)
      rc = hlo_run_errorf(r, s->in, "fast kernel %s and %s %s", s->kname,
                          composite ? "its computation run instruction by instruction"
                                    : s->ref_kname, why);
  }
  if (ref) hlo_run_release(r, ref);
  if (mag) hlo_run_release(r, mag);
  for (int i = 0; i < s->nargs; i++) hlo_run_release(r, args[i]);
  return rc;
}
