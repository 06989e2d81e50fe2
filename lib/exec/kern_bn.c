/* kern_bn.c - fast batch-norm training, inference and grad for f32 and f64:
 * the reference formulas (ref_solve.c) with direct typed access, summing
 * in the same order (bn_lanes.h), so results agree with the reference bit
 * for bit.  Features
 * are independent: they are shared among the exec's threads.  The
 * per-feature loops are compiled for each vector instruction set and
 * picked by the exec's level. */
#include <math.h>

#include "exec/bn_lanes.h"
#include "exec/exec.h"
#include "exec/fast.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

bool hlo_fast_bn_ok(const hlo_instruction *in) {
  hlo_type t = in->operands[0]->shape.type;
  for (int i = 0; i < in->noperands; i++)
    if (in->operands[i]->shape.type != t) return false;
  return t == HLO_F32 || t == HLO_F64;
}

typedef struct geom { int64_t F, inner, outer, m; } geom;

static int geom_of(hlo_run *r, const plan_step *s, const hlo_shape *x, geom *g, double *eps) {
  int64_t fi = hlo_instr_int(s->in, HLO_A_FEATURE_INDEX, -1);
  if (fi < 0 || fi >= x->rank) return hlo_run_errorf(r, s->in, "bad feature_index");
  g->F = x->dims[fi];
  g->inner = g->outer = 1;
  for (int d = 0; d < x->rank; d++) {
    if (d < fi) g->outer *= x->dims[d];
    if (d > fi) g->inner *= x->dims[d];
  }
  g->m = g->inner * g->outer;
  const hlo_attr *ea = hlo_instr_attr(s->in, HLO_A_EPSILON);
  *eps = ea ? ea->u.f : 0;
  return HLO_OK;
}

#define IDX(a, f, i) (((a) * g.F + (f)) * g.inner + (i))
#define LOOP(body)                                                         \
  for (int64_t a = 0; a < g.outer; a++)                                    \
    for (int64_t i = 0; i < g.inner; i++) { int64_t k = IDX(a, f, i); body; }

/* One batch-norm call: its geometry, operands and result; item f = feature f. */
typedef struct bn_job {
  geom g;
  double eps;
  hlo_val **args;
  hlo_val *o;
} bn_job;

/* Features of at least this many elements in all are split among threads. */
#define BN_PAR_MIN ((int64_t)1 << 18)

static void bn_run(hlo_run *r, bn_job *j, void (*fn)(void *, int64_t)) {
  int64_t total = j->g.F * j->g.m;
  hlo_fast_parallel(total >= BN_PAR_MIN && !r->e->opts.reference ? r->e->pool : NULL, j->g.F, fn, j);
}

/* acc[lane] += EXPR over feature f, in the order of bn_lanes.h; EXPR
 * reads element i of run a through the pointers set up by RUN_PTRS. */
#define LANE_SUM(RUN_PTRS, EXPR)                                           \
  for (int64_t a = 0; a < g.outer; a++) {                                  \
    int64_t base = IDX(a, f, 0), i = 0;                                    \
    RUN_PTRS;                                                              \
    for (; i + BN_LANES <= g.inner; i += BN_LANES)                         \
      for (int l = 0; l < BN_LANES; l++) { int64_t ii = i + l; EXPR(l, ii); } \
    for (; i < g.inner; i++) { int64_t ii = i; EXPR(ii % BN_LANES, ii); }  \
  }

#define TRAIN(T)                                                           \
  do {                                                                     \
    const T *x = args[0]->data, *sc = args[1]->data, *of = args[2]->data;  \
    T *y = o->tuple[0]->data, *mo = o->tuple[1]->data, *vo = o->tuple[2]->data; \
    double acc[BN_LANES] = {0}, acc2[BN_LANES] = {0};                      \
    LANE_SUM(const T *p = x + base, SUM_X);                                \
    double mean = bn_lanes_total(acc) / (double)g.m;                       \
    LANE_SUM(const T *p = x + base, SUM_SQ);                               \
    double var = bn_lanes_total(acc2) / (double)g.m;                       \
    double scv = sc[f], off = of[f], inv = 1.0 / sqrt(var + eps);          \
    LOOP(y[k] = (T)((x[k] - mean) * inv * scv + off));                     \
    mo[f] = (T)mean;                                                       \
    vo[f] = (T)var;                                                        \
  } while (0)
#define SUM_X(l, ii) acc[l] += (double)p[ii]
#define SUM_SQ(l, ii) do { double dd = (double)p[ii] - mean; acc2[l] += dd * dd; } while (0)

/* The body of a per-feature function: job fields as locals, then BODY(T). */
#define FEATURE_FN(name, TGT, BODY)                                        \
  TGT static void name(void *ctx, int64_t f) {                             \
    bn_job *j = ctx;                                                       \
    geom g = j->g;                                                         \
    double eps = j->eps;                                                   \
    hlo_val **args = j->args, *o = j->o;                                   \
    if (args[0]->shape->type == HLO_F32) BODY(float);                      \
    else BODY(double);                                                     \
  }

#define INFER(T)                                                           \
  do {                                                                     \
    const T *x = args[0]->data, *sc = args[1]->data, *of = args[2]->data;  \
    const T *mn = args[3]->data, *vr = args[4]->data;                      \
    T *y = o->data;                                                        \
    {                                                                      \
      double scv = sc[f], off = of[f], mean = mn[f];                       \
      double inv = 1.0 / sqrt((double)vr[f] + eps);                        \
      LOOP(y[k] = (T)((x[k] - mean) * inv * scv + off));                   \
    }                                                                      \
  } while (0)

#define GRAD(T)                                                            \
  do {                                                                     \
    const T *x = args[0]->data, *sc = args[1]->data, *mn = args[2]->data;  \
    const T *vr = args[3]->data, *dy = args[4]->data;                      \
    T *dx = o->tuple[0]->data, *ds = o->tuple[1]->data, *db = o->tuple[2]->data; \
    double scv = sc[f], mean = mn[f], var = vr[f];                         \
    double inv = 1.0 / sqrt(var + eps), ady[BN_LANES] = {0}, adyx[BN_LANES] = {0}; \
    LANE_SUM(const T *px = x + base; const T *pd = dy + base, SUM_DY);     \
    double sdy = bn_lanes_total(ady), sdyx = bn_lanes_total(adyx);         \
    double m = (double)g.m, mdy = sdy / m, kx = sdyx / (m * (var + eps)), si = scv * inv; \
    LOOP(double d_ = dy[k]; double xc = x[k] - mean; dx[k] = (T)(si * (d_ - mdy - xc * kx))); \
    ds[f] = (T)(sdyx * inv);                                               \
    db[f] = (T)sdy;                                                        \
  } while (0)
#define SUM_DY(l, ii) do { double d_ = (double)pd[ii], xc = (double)px[ii] - mean; ady[l] += d_; adyx[l] += d_ * xc; } while (0)

/* Each per-feature function compiled for each instruction set: the lanes of
 * bn_lanes.h fill the vector registers of the wider ones (2x on the
 * training step's statistics with AVX-512), and since -std=c11 keeps a * b
 * + c unfused, every variant rounds exactly as the reference does. */
#define FEATURE_FNS(SUF, TGT)                                              \
  FEATURE_FN(train_feature##SUF, TGT, TRAIN)                               \
  FEATURE_FN(infer_feature##SUF, TGT, INFER)                               \
  FEATURE_FN(grad_feature##SUF, TGT, GRAD)
FEATURE_FNS(_base, )
#ifdef HLO_FAST_WIDE
FEATURE_FNS(_avx2, __attribute__((target("avx2"))))
FEATURE_FNS(_avx512, __attribute__((target("avx512f,avx512dq"))))
#define FEATURES(e, kind)                                                  \
  ((e)->isa_level >= HLO_ISA_AVX512 ? kind##_feature_avx512                \
   : (e)->isa_level >= HLO_ISA_AVX2 ? kind##_feature_avx2 : kind##_feature_base)
#else
#define FEATURES(e, kind) kind##_feature_base
#endif

/* The result of s (a tuple of `parts` arrays, or one array when parts is 0)
 * computed by fn per feature. */
static int bn_kernel(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out, int parts,
                     void (*fn)(void *, int64_t)) {
  bn_job j;
  if (geom_of(r, s, args[0]->shape, &j.g, &j.eps)) return HLO_ERR;
  hlo_val *o = hlo_run_new_raw(r, &s->in->shape);
  if (!o) return OOM(r, s);
  if (o->ntuple != parts) {
    hlo_run_release(r, o);
    return hlo_run_errorf(r, s->in, "needs a %d-tuple result", parts);
  }
  j.args = args;
  j.o = o;
  bn_run(r, &j, fn);
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_fast_batch_norm_training) { return bn_kernel(r, s, args, out, 3, FEATURES(r->e, train)); }
DECL_KERN(hlo_fast_batch_norm_inference) { return bn_kernel(r, s, args, out, 0, FEATURES(r->e, infer)); }
DECL_KERN(hlo_fast_batch_norm_grad) { return bn_kernel(r, s, args, out, 3, FEATURES(r->e, grad)); }
