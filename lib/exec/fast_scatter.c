/* fast_scatter.c - scatter on the fast path for any dimension numbers
 * (window, inserted and batching dims, any index_vector_dim, variadic):
 * window starts are computed once per index vector, then the updates are
 * walked in the reference's order (row-major over the update array) in runs
 * along their innermost merged dimension, combined by typed loops (assign,
 * add, multiply, maximum, minimum, and, or, xor) or, for other combiners and
 * types, by the combiner itself.  A window that does not fit is skipped. */
#include <math.h>
#include <string.h>

#include "core/bug.h"
#include "exec/fast.h"
#include "hlo/hlo_fp.h"

enum { SC_ASSIGN, SC_ADD, SC_MUL, SC_MAX, SC_MIN, SC_AND, SC_OR, SC_XOR };
#define SC_MAXN 16

typedef struct scat_plan {
  int n;               /* operands (n > 1: variadic scatter) */
  bool generic;        /* every element through the combiner, operands together */
  int op[SC_MAXN];     /* per operand (not generic): its SC_* combiner */
  hlo_type t[SC_MAXN];
  /* operand and window */
  int orank;
  int64_t odims[MAXR], ost[MAXR], wsize[MAXR];
  /* index array: G (positions of the dims other than ivd) -> components */
  hlo_type it;
  int nidx, ng;                /* components; G rank */
  int64_t gdims[MAXR], gist[MAXR], cist; /* G extents; index strides of G dims and ivd */
  int64_t ngroups;
  int64_t sdo[MAXR];           /* scatter_dims_to_operand_dims */
  int nib;
  int64_t ibd[MAXR], ibpos[MAXR]; /* operand batching dim, its G position */
  /* walk of the updates: merged dims, operand and window-table strides */
  int urank;
  int64_t udims[MAXR], uost[MAXR], ugst[MAXR];
  int64_t nupd;
  /* tr: the results are combined in a scratch copy with operand dim trod
   * moved innermost, [tA, tD, tB] -> [tA, tB, tD] (ost are its strides), so
   * that long update runs along trod are contiguous */
  bool tr;
  int64_t tA, tD, tB;
} scat_plan;

/* The typed combiner of expression x over parameters a (current) and b
 * (update), or -1. */
static int comb_op(const hlo_instruction *x, const hlo_instruction *a, const hlo_instruction *b,
                   hlo_type t) {
  if (x == b) return SC_ASSIGN;
  if (x->noperands != 2 || x->shape.type != t || x->shape.rank != 0) return -1;
  if (!((x->operands[0] == a && x->operands[1] == b) ||
        (x->operands[0] == b && x->operands[1] == a)))
    return -1;
  hlo_type_kind k = hlo_type_kind_of(t);
  bool fl = t == HLO_F32 || t == HLO_F64 || t == HLO_F16 || t == HLO_BF16;
  bool in = (k == HLO_KIND_SINT || k == HLO_KIND_UINT) && hlo_type_bits(t) == 8 * hlo_type_bytes(t);
  bool pr = t == HLO_PRED;
  if (!fl && !in && !pr) return -1;
  switch (x->op) {
  case HLO_OP_ADD: return SC_ADD;
  case HLO_OP_MULTIPLY: return SC_MUL;
  case HLO_OP_MAXIMUM: return SC_MAX;
  case HLO_OP_MINIMUM: return SC_MIN;
  case HLO_OP_AND: return fl ? -1 : SC_AND;
  case HLO_OP_OR: return fl ? -1 : SC_OR;
  case HLO_OP_XOR: return fl ? -1 : SC_XOR;
  default: return -1;
  }
}

/* Whether assign of type t has a typed loop (else the combiner runs). */
static bool assign_typed(hlo_type t) {
  hlo_type_kind k = hlo_type_kind_of(t);
  if (t == HLO_F32 || t == HLO_F64 || t == HLO_F16 || t == HLO_BF16 || t == HLO_PRED) return true;
  return (k == HLO_KIND_SINT || k == HLO_KIND_UINT) && hlo_type_bits(t) == 8 * hlo_type_bytes(t);
}

static bool index_type_ok(hlo_type t) {
  hlo_type_kind k = hlo_type_kind_of(t);
  return k == HLO_KIND_SINT || k == HLO_KIND_UINT;
}

static const char *const knames[2][8] = {
    {"hlo_fast_scatter(assign)", "hlo_fast_scatter(add)", "hlo_fast_scatter(multiply)",
     "hlo_fast_scatter(maximum)", "hlo_fast_scatter(minimum)", "hlo_fast_scatter(and)",
     "hlo_fast_scatter(or)", "hlo_fast_scatter(xor)"},
    {"hlo_fast_scatter(assign, transposed)", "hlo_fast_scatter(add, transposed)",
     "hlo_fast_scatter(multiply, transposed)", "hlo_fast_scatter(maximum, transposed)",
     "hlo_fast_scatter(minimum, transposed)", "hlo_fast_scatter(and, transposed)",
     "hlo_fast_scatter(or, transposed)", "hlo_fast_scatter(xor, transposed)"}};

static bool walk_dims(scat_plan *p, const hlo_shape *us, const int64_t *uwd, int nuw,
                      const int64_t *winmap, const int64_t *gst);

bool hlo_fast_plan_scatter(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  int N = (in->noperands - 1) / 2;
  if (N < 1 || N > SC_MAXN || in->noperands != 2 * N + 1 || in->ncalled != 1) return false;
  scat_plan p;
  memset(&p, 0, sizeof p);
  p.n = N;
  const hlo_shape *os = &in->operands[0]->shape, *is = &in->operands[N]->shape,
                  *us = &in->operands[N + 1]->shape;
  if (N == 1 ? !hlo_shape_is_array(&in->shape)
             : in->shape.type != HLO_TUPLE || in->shape.ntuple != N)
    return false;
  if (!hlo_shape_is_array(is) || !index_type_ok(is->type) || is->rank > MAXR) return false;
  if (os->rank > MAXR || us->rank > MAXR || hlo_fast_elems(us) < 0 || hlo_fast_elems(os) < 0)
    return false;
  for (int i = 0; i < N; i++) {
    const hlo_shape *oi = &in->operands[i]->shape, *ui = &in->operands[N + 1 + i]->shape;
    const hlo_shape *ri = N == 1 ? &in->shape : &in->shape.tuple[i];
    if (!hlo_shape_is_array(oi) || !hlo_shape_is_array(ui) || !hlo_shape_is_array(ri)) return false;
    if (oi->rank != os->rank || ui->rank != us->rank || ri->rank != os->rank) return false;
    for (int d = 0; d < os->rank; d++)
      if (oi->dims[d] != os->dims[d] || ri->dims[d] != os->dims[d]) return false;
    for (int d = 0; d < us->rank; d++)
      if (ui->dims[d] != us->dims[d]) return false;
    hlo_type t = oi->type;
    if (ui->type != t || ri->type != t || hlo_type_bytes(t) < 1) return false;
    p.t[i] = t;
  }
  /* combiner: per operand assign or a typed binary op of (p_i, p_N+i) */
  const hlo_computation *c = in->called[0];
  if (!c || c->nparams != 2 * N || !c->root) return false;
  for (int k = 0; k < 2 * N; k++)
    if (!c->params[k] || !hlo_shape_is_array(&c->params[k]->shape) ||
        c->params[k]->shape.rank != 0 || c->params[k]->shape.type != p.t[k % N])
      return false;
  const hlo_instruction *root = c->root;
  if (N > 1 && (root->op != HLO_OP_TUPLE || root->noperands != N)) return false;
  for (int i = 0; i < N && !p.generic; i++) {
    const hlo_instruction *x = N == 1 ? root : root->operands[i];
    p.op[i] = comb_op(x, c->params[i], c->params[N + i], p.t[i]);
    if (p.op[i] < 0 || (p.op[i] == SC_ASSIGN && !assign_typed(p.t[i]))) p.generic = true;
  }
  /* dimension numbers, checked as the reference checks them */
  int nuw, niw, nsd, nib, nsb;
  const int64_t *uwd = hlo_instr_ints_or_none(in, HLO_A_UPDATE_WINDOW_DIMS, &nuw);
  const int64_t *iwd = hlo_instr_ints_or_none(in, HLO_A_INSERTED_WINDOW_DIMS, &niw);
  const int64_t *sdo = hlo_instr_ints_or_none(in, HLO_A_SCATTER_DIMS_TO_OPERAND_DIMS, &nsd);
  const int64_t *ibd = hlo_instr_ints_or_none(in, HLO_A_INPUT_BATCHING_DIMS, &nib);
  const int64_t *sbd = hlo_instr_ints_or_none(in, HLO_A_SCATTER_INDICES_BATCHING_DIMS, &nsb);
  int64_t ivd = hlo_instr_int(in, HLO_A_INDEX_VECTOR_DIM, is->rank);
  if (ivd < 0 || ivd > is->rank || nib != nsb || nib > MAXR) return false;
  p.nidx = ivd == is->rank ? 1 : (int)is->dims[ivd];
  if (p.nidx != nsd || nsd > MAXR) return false;
  for (int k = 0; k < nsd; k++) {
    if (sdo[k] < 0 || sdo[k] >= os->rank) return false;
    p.sdo[k] = sdo[k];
  }
  for (int j = 0; j < nuw; j++)
    if (uwd[j] < 0 || uwd[j] >= us->rank || (j && uwd[j] <= uwd[j - 1])) return false;
  int64_t winmap[MAXR];
  int nm = 0;
  for (int d = 0; d < os->rank; d++)
    if (!hlo_ints_has(iwd, niw, d) && !hlo_ints_has(ibd, nib, d)) winmap[nm++] = d;
  if (nm != nuw) return false;
  p.orank = os->rank;
  hlo_strides(os, p.ost);
  for (int d = 0; d < os->rank; d++) {
    p.odims[d] = os->dims[d];
    p.wsize[d] = 1;
  }
  for (int j = 0; j < nuw; j++) p.wsize[winmap[j]] = us->dims[uwd[j]];
  /* G: index dims other than ivd, in order; they pair with the update
   * dims that are not window dims, in order */
  int64_t ist[MAXR];
  hlo_strides(is, ist);
  p.it = is->type;
  p.cist = ivd < is->rank ? ist[ivd] : 0;
  int64_t gpos_of_idim[MAXR];
  p.ngroups = 1;
  for (int d = 0; d < is->rank; d++) {
    if (d == ivd) continue;
    gpos_of_idim[d] = p.ng;
    p.gdims[p.ng] = is->dims[d];
    p.gist[p.ng] = ist[d];
    p.ngroups *= is->dims[d];
    p.ng++;
  }
  p.nib = nib;
  for (int b = 0; b < nib; b++) {
    if (ibd[b] < 0 || ibd[b] >= os->rank || sbd[b] < 0 || sbd[b] >= is->rank || sbd[b] == ivd)
      return false;
    p.ibd[b] = ibd[b];
    p.ibpos[b] = gpos_of_idim[sbd[b]];
  }
  if (us->rank != p.ng + nuw) return false;
  int64_t gst[MAXR], acc = 1;
  for (int g = p.ng - 1; g >= 0; g--) {
    gst[g] = acc;
    acc *= p.gdims[g];
  }
  if (!walk_dims(&p, us, uwd, nuw, winmap, gst)) return false;
  /* runs along a strided operand dim, many updates, an operand past L1:
   * combine in a copy with that dim innermost (two transposes) */
  int L = p.urank - 1;
  int64_t oel = hlo_fast_elems(os);
  if (p.ugst[L] == 0 && p.uost[L] > 1 && p.udims[L] >= 16 && p.nupd >= oel / 4 &&
      oel * hlo_type_bytes(p.t[0]) >= 65536) {
    int od = -1;
    for (int d = us->rank - 1, j = nuw - 1; d >= 0 && od < 0; d--) {
      if (j >= 0 && uwd[j] == d) {
        if (us->dims[d] > 1) od = (int)winmap[j];
        j--;
      }
    }
    if (od >= 0) {
      int64_t acc2 = os->dims[od];
      p.ost[od] = 1;
      p.tA = p.tB = 1;
      p.tD = os->dims[od];
      for (int d = os->rank - 1; d >= 0; d--) {
        if (d == od) continue;
        p.ost[d] = acc2;
        acc2 *= os->dims[d];
        if (d < od) p.tA *= os->dims[d];
        else p.tB *= os->dims[d];
      }
      p.tr = true;
      if (!walk_dims(&p, us, uwd, nuw, winmap, gst)) return false;
    }
  }
  scat_plan *pp = hlo_arena_alloc(&e->arena, sizeof *pp);
  if (!pp) return false;
  *pp = p;
  s->p = pp;
  s->fn = hlo_fast_scatter;
  s->kname = p.generic ? (p.tr ? "hlo_fast_scatter(combiner, transposed)"
                                : "hlo_fast_scatter(combiner)")
             : N > 1   ? (p.tr ? "hlo_fast_scatter(variadic, transposed)"
                               : "hlo_fast_scatter(variadic)")
                       : knames[p.tr][p.op[0]];
  return true;
}

/* The update walk of p under the operand strides p->ost: window dims step
 * the operand, the others the G table (strides gst); size-1 dims dropped,
 * adjacent dims merged when they step as one.  False if the update dims do
 * not pair with the index dims. */
static bool walk_dims(scat_plan *p, const hlo_shape *us, const int64_t *uwd, int nuw,
                      const int64_t *winmap, const int64_t *gst) {
  int g = 0, wj = 0;
  p->nupd = 1;
  p->urank = 0;
  for (int d = 0; d < us->rank; d++) {
    int64_t so = 0, sg = 0;
    if (wj < nuw && uwd[wj] == d) {
      so = p->ost[winmap[wj++]];
    } else {
      if (us->dims[d] != p->gdims[g]) return false;
      sg = gst[g++];
    }
    p->nupd *= us->dims[d];
    if (us->dims[d] == 1) continue;
    int u = p->urank;
    if (u && p->uost[u - 1] == so * us->dims[d] && p->ugst[u - 1] == sg * us->dims[d]) {
      p->udims[u - 1] *= us->dims[d];
      p->uost[u - 1] = so;
      p->ugst[u - 1] = sg;
      continue;
    }
    p->udims[u] = us->dims[d];
    p->uost[u] = so;
    p->ugst[u] = sg;
    p->urank++;
  }
  if (p->urank == 0) {
    p->udims[0] = 1;
    p->urank = 1;
  }
  return true;
}

/* ---- run time ---------------------------------------------------------------- */
typedef struct run run;
typedef struct scat_ctx {
  void (*fn)(struct scat_ctx *c, const run *R); /* the loop of operand i */
  hlo_run *r;
  const plan_comp *pc;
  const scat_plan *p;
  int i;                  /* operand being combined (typed loops) */
  char *res[SC_MAXN];
  const char *upd[SC_MAXN];
  size_t es[SC_MAXN];
  int rc;
} scat_ctx;

/* Element o of the result(s) combined with update element k through the
 * combiner, as the reference does: every operand (generic) or operand c->i
 * only (typed loops; their combiners are separable, so the other operands'
 * current values do not matter). */
static void ref_elem(scat_ctx *c, int64_t o, int64_t k, bool all) {
  const scat_plan *p = c->p;
  int N = p->n;
  hlo_sc x[2 * SC_MAXN], y[SC_MAXN];
  if (N < 1 || N > SC_MAXN) return;
  for (int i = 0; i < N; i++) {
    x[i] = hlo_sc_load(p->t[i], c->res[i], o);
    x[N + i] = hlo_sc_load(p->t[i], c->upd[i], k);
  }
  if (hlo_run_scalar(c->r, c->pc, x, 2 * N, y, N)) {
    c->rc = HLO_ERR;
    return;
  }
  for (int i = 0; i < N; i++)
    if (all || i == c->i) hlo_sc_store(p->t[i], c->res[i], o, y[i]);
}

/* A run: n elements, result elements o0 + j * so (so = 0: offs[j], -1 =
 * skipped) with update elements k0 + j. */
struct run {
  int64_t o0, so, k0, n;
  const int64_t *offs;
};

#define OFF(R, j) ((R)->offs ? (R)->offs[j] : (R)->o0 + (j) * (R)->so)

/* Integers: T storage, U arithmetic (wrapping). */
#define INT_LOOP(NAME, T, U, EXPR)                                               \
  static void NAME(scat_ctx *c, const run *R) {                                  \
    T *d = (T *)c->res[c->i];                                                    \
    const T *u = (const T *)c->upd[c->i] + R->k0;                                \
    if (!R->offs && R->so == 1) {                                                \
      T *dd = d + R->o0;                                                         \
      for (int64_t j = 0; j < R->n; j++) {                                       \
        T a = dd[j], b = u[j];                                                   \
        dd[j] = (T)(EXPR);                                                       \
      }                                                                          \
      return;                                                                    \
    }                                                                            \
    if (R->offs) {                                                               \
      for (int64_t j = 0; j < R->n; j++) {                                       \
        int64_t o = R->offs[j];                                                  \
        if (o < 0) continue;                                                     \
        T a = d[o], b = u[j];                                                    \
        d[o] = (T)(EXPR);                                                        \
      }                                                                          \
      return;                                                                    \
    }                                                                            \
    T *dd = d + R->o0;                                                           \
    for (int64_t j = 0, so = R->so; j < R->n; j++) {                             \
      T a = dd[j * so], b = u[j];                                                \
      dd[j * so] = (T)(EXPR);                                                    \
    }                                                                            \
  }
#define INT_OPS(S, T, U)                                                        \
  INT_LOOP(assign_##S, T, U, ((void)a, b))                                         \
  INT_LOOP(add_##S, T, U, (U)a + (U)b)                                           \
  INT_LOOP(mul_##S, T, U, (U)a * (U)b)                                           \
  INT_LOOP(max_##S, T, U, a > b ? a : b)                                         \
  INT_LOOP(min_##S, T, U, a < b ? a : b)                                         \
  INT_LOOP(and_##S, T, U, a & b)                                                 \
  INT_LOOP(or_##S, T, U, a | b)                                                  \
  INT_LOOP(xor_##S, T, U, a ^ b)
INT_OPS(u8, uint8_t, unsigned)
INT_OPS(u16, uint16_t, unsigned)
INT_OPS(u32, uint32_t, uint32_t)
INT_OPS(u64, uint64_t, uint64_t)
INT_LOOP(max_s8, int8_t, int, a > b ? a : b)
INT_LOOP(min_s8, int8_t, int, a < b ? a : b)
INT_LOOP(max_s16, int16_t, int, a > b ? a : b)
INT_LOOP(min_s16, int16_t, int, a < b ? a : b)
INT_LOOP(max_s32, int32_t, int32_t, a > b ? a : b)
INT_LOOP(min_s32, int32_t, int32_t, a < b ? a : b)
INT_LOOP(max_s64, int64_t, int64_t, a > b ? a : b)
INT_LOOP(min_s64, int64_t, int64_t, a < b ? a : b)
/* pred: values normalized to 0/1 as the reference's load and store do */
INT_LOOP(assign_pred, uint8_t, unsigned, ((void)a, b != 0))
INT_LOOP(or_pred, uint8_t, unsigned, (a | b) != 0)
INT_LOOP(and_pred, uint8_t, unsigned, a != 0 && b != 0)
INT_LOOP(xor_pred, uint8_t, unsigned, (a != 0) != (b != 0))


/* f32/f64: the operation in T equals the reference's double result rounded
 * to T for +, * (exact in double, rounded once), max and min; any NaN
 * (operand or result) goes through the combiner for its payload. */
#define FLOAT_ELEM(T, EXPR, DST, OFFSET)                                         \
  {                                                                              \
    T a = DST, b = u[j], z = (EXPR);                                             \
    if (z != z) ref_elem(c, OFFSET, R->k0 + j, false);                           \
    else DST = z;                                                                \
  }
#define FLOAT_LOOP(NAME, T, EXPR)                                                \
  static void NAME(scat_ctx *c, const run *R) {                                  \
    T *d = (T *)c->res[c->i];                                                    \
    const T *u = (const T *)c->upd[c->i] + R->k0;                                \
    int64_t n = R->n;                                                            \
    if (R->offs) {                                                               \
      for (int64_t j = 0; j < n; j++) {                                          \
        int64_t o = R->offs[j];                                                  \
        if (o >= 0) FLOAT_ELEM(T, EXPR, d[o], o)                                 \
      }                                                                          \
    } else if (R->so == 1) {                                                     \
      T *dd = d + R->o0;                                                         \
      for (int64_t j = 0; j < n; j++) FLOAT_ELEM(T, EXPR, dd[j], R->o0 + j)      \
    } else {                                                                     \
      int64_t so = R->so;                                                        \
      T *dd = d + R->o0;                                                         \
      for (int64_t j = 0; j < n; j++) FLOAT_ELEM(T, EXPR, dd[j * so], R->o0 + j * so) \
    }                                                                            \
  }
#define FLOAT_OPS(S, T)                                                         \
  FLOAT_LOOP(assign_##S, T, ((void)a, b))                                                 \
  FLOAT_LOOP(add_##S, T, a + b)                                                  \
  FLOAT_LOOP(mul_##S, T, a * b)                                                  \
  FLOAT_LOOP(max_##S, T, HLO_FMAX(a, b))                 \
  FLOAT_LOOP(min_##S, T, HLO_FMIN(a, b))
FLOAT_OPS(f32, float)
FLOAT_OPS(f64, double)

/* assign f32/f64 without NaN: whole contiguous runs copied, then checked */
static void assign_copy(scat_ctx *c, const run *R, size_t es) {
  if (R->offs || R->so != 1) {
    if (es == 4) assign_f32(c, R);
    else assign_f64(c, R);
    return;
  }
  char *d = c->res[c->i] + (size_t)R->o0 * es;
  const char *u = c->upd[c->i] + (size_t)R->k0 * es;
  memcpy(d, u, (size_t)R->n * es);
  for (int64_t j = 0; j < R->n; j++) {
    bool nan;
    if (es == 4) { float v; memcpy(&v, d + j * 4, 4); nan = v != v; }
    else { double v; memcpy(&v, d + j * 8, 8); nan = v != v; }
    if (nan) ref_elem(c, R->o0 + j, R->k0 + j, false);
  }
}

/* f16/bf16: widened exactly, the operation in double as the reference does,
 * rounded by the reference's own conversion; max/min pick one of the two
 * bit patterns; NaN through the combiner. */
static double w16(hlo_type t, uint16_t h) {
  return t == HLO_F16 ? (double)hlo_f16_to_f32(h) : (double)hlo_bf16_to_f32(h);
}
static void loop16(scat_ctx *c, const run *R, int op) {
  hlo_type t = c->p->t[c->i];
  uint16_t *d = (uint16_t *)c->res[c->i];
  const uint16_t *u = (const uint16_t *)c->upd[c->i] + R->k0;
  uint16_t inf = t == HLO_F16 ? 0x7c00 : 0x7f80;
  for (int64_t j = 0; j < R->n; j++) {
    int64_t o = OFF(R, j);
    if (o < 0) continue;
    uint16_t a = d[o], b = u[j];
    if ((b & 0x7fff) > inf || (op != SC_ASSIGN && (a & 0x7fff) > inf)) {
      ref_elem(c, o, R->k0 + j, false);
      continue;
    }
    if (op == SC_ASSIGN) { d[o] = b; continue; }
    double x = w16(t, a), y = w16(t, b), z;
    switch (op) {
    case SC_ADD: z = x + y; break;
    case SC_MUL: z = x * y; break;
    case SC_MAX:
      d[o] = x == 0 && y == 0 ? (signbit(x) ? b : a) : x > y ? a : b;
      continue;
    default:
      d[o] = x == 0 && y == 0 ? (signbit(x) ? a : b) : x < y ? a : b;
      continue;
    }
    if (z != z) ref_elem(c, o, R->k0 + j, false);
    else d[o] = (uint16_t)hlo_fp_from_double(t, z);
  }
}

static void generic_run(scat_ctx *c, const run *R) {
  for (int64_t j = 0; j < R->n && !c->rc; j++) {
    int64_t o = OFF(R, j);
    if (o >= 0) ref_elem(c, o, R->k0 + j, true);
  }
}

typedef void (*run_fn)(scat_ctx *c, const run *R);

static run_fn pick(hlo_type t, int op) {
#define BY_OP(S)                                                                 \
  switch (op) {                                                                  \
  case SC_ASSIGN: return assign_##S; case SC_ADD: return add_##S;                 \
  case SC_MUL: return mul_##S; case SC_AND: return and_##S;                       \
  case SC_OR: return or_##S; case SC_XOR: return xor_##S;                         \
  }                                                                              \
  break
  bool sg = hlo_type_kind_of(t) == HLO_KIND_SINT;
  switch (t) {
  case HLO_PRED:
    switch (op) {
    case SC_ASSIGN: return assign_pred;
    case SC_ADD: case SC_OR: case SC_MAX: return or_pred;
    case SC_MUL: case SC_AND: case SC_MIN: return and_pred;
    default: return xor_pred;
    }
  case HLO_F32:
    return op == SC_ADD ? add_f32 : op == SC_MUL ? mul_f32 : op == SC_MAX ? max_f32
           : op == SC_MIN ? min_f32 : assign_f32;
  case HLO_F64:
    return op == SC_ADD ? add_f64 : op == SC_MUL ? mul_f64 : op == SC_MAX ? max_f64
           : op == SC_MIN ? min_f64 : assign_f64;
  default: break;
  }
  switch (hlo_type_bytes(t)) {
  case 1:
    if (op == SC_MAX) return sg ? max_s8 : max_u8;
    if (op == SC_MIN) return sg ? min_s8 : min_u8;
    BY_OP(u8);
  case 2:
    if (op == SC_MAX) return sg ? max_s16 : max_u16;
    if (op == SC_MIN) return sg ? min_s16 : min_u16;
    BY_OP(u16);
  case 4:
    if (op == SC_MAX) return sg ? max_s32 : max_u32;
    if (op == SC_MIN) return sg ? min_s32 : min_u32;
    BY_OP(u32);
  default:
    if (op == SC_MAX) return sg ? max_s64 : max_u64;
    if (op == SC_MIN) return sg ? min_s64 : min_u64;
    BY_OP(u64);
  }
#undef BY_OP
  return NULL;
}

static void run16(scat_ctx *c, const run *R) { loop16(c, R, c->p->op[c->i]); }
static void run_copy(scat_ctx *c, const run *R) { assign_copy(c, R, c->es[c->i]); }

/* The loop for operand c->i. */
static run_fn select_fn(const scat_ctx *c) {
  const scat_plan *p = c->p;
  if (p->generic) return generic_run;
  hlo_type t = p->t[c->i];
  int op = p->op[c->i];
  if (t == HLO_F16 || t == HLO_BF16) return run16;
  if (op == SC_ASSIGN && (t == HLO_F32 || t == HLO_F64)) return run_copy;
  return pick(t, op);
}

/* Index component value at element k of the index array, as the reference
 * reads it (unsigned values beyond int64 become INT64_MAX). */
static int64_t index_at(hlo_type t, const void *data, int64_t k) {
  switch (t) {
  case HLO_S32: return ((const int32_t *)data)[k];
  case HLO_S64: return ((const int64_t *)data)[k];
  case HLO_U32: return ((const uint32_t *)data)[k];
  case HLO_U64: {
    uint64_t v = ((const uint64_t *)data)[k];
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
  }
  default: {
    hlo_sc v = hlo_sc_load(t, data, k);
    return hlo_type_kind_of(t) == HLO_KIND_UINT && v.i < 0 ? INT64_MAX : v.i;
  }
  }
}

/* Where windows start.  As the reference: start = 0 in every operand dim,
 * then the index components, then the batch positions (a later source of
 * the same dim wins); a window fits when 0 <= start <= dim - window size
 * in every dim, else it is skipped (start -1). */
typedef struct wstart {
  int nc, nb, cd[MAXR], bd[MAXR];
  int64_t ck[MAXR], bpos[MAXR];
  bool zero_ok;
} wstart;

static void wstart_init(const scat_plan *p, wstart *w) {
  int src[MAXR]; /* per operand dim: -1 zero, k component, MAXR + b batch dim */
  for (int d = 0; d < p->orank; d++) src[d] = -1;
  for (int k = 0; k < p->nidx; k++) src[p->sdo[k]] = k;
  for (int b = 0; b < p->nib; b++) src[p->ibd[b]] = MAXR + b;
  w->nc = w->nb = 0;
  w->zero_ok = true;
  for (int d = 0; d < p->orank; d++) {
    if (src[d] < 0) {
      w->zero_ok &= p->odims[d] - p->wsize[d] >= 0;
    } else if (src[d] < MAXR) {
      w->cd[w->nc] = d;
      w->ck[w->nc++] = src[d];
    } else {
      w->bd[w->nb] = d;
      w->bpos[w->nb++] = p->ibpos[src[d] - MAXR];
    }
  }
}

/* Start of the window at index position G (io = its offset in the index
 * array), -1 when skipped. */
static int64_t wstart_at(const scat_plan *p, const wstart *w, const hlo_val *idx, const int64_t *G,
                         int64_t io) {
  int64_t o = w->zero_ok ? 0 : -1;
  for (int c = 0; c < w->nc && o >= 0; c++) {
    int d = w->cd[c];
    int64_t v = index_at(p->it, idx->data, io + w->ck[c] * p->cist);
    if (v < 0 || v > p->odims[d] - p->wsize[d]) o = -1;
    else o += v * p->ost[d];
  }
  for (int c = 0; c < w->nb && o >= 0; c++) {
    int d = w->bd[c];
    int64_t v = G[w->bpos[c]];
    if (v > p->odims[d] - p->wsize[d]) o = -1;
    else o += v * p->ost[d];
  }
  return o;
}

/* The start of window g (row-major position over the index dims). */
static int64_t wstart_of(const scat_plan *p, const wstart *w, const hlo_val *idx, int64_t g) {
  int64_t G[MAXR], io = 0;
  for (int j = p->ng - 1; j >= 0; j--) {
    G[j] = j ? g % p->gdims[j] : g;
    g = j ? g / p->gdims[j] : 0;
    io += G[j] * p->gist[j];
  }
  return wstart_at(p, w, idx, G, io);
}

/* base[g] for every window g. */
static void window_starts(const scat_plan *p, const wstart *w, const hlo_val *idx, int64_t *base) {
  int64_t G[MAXR] = {0}, io = 0;
  for (int64_t g = 0; g < p->ngroups; g++) {
    base[g] = wstart_at(p, w, idx, G, io);
    for (int j = p->ng - 1; j >= 0; j--) {
      io += p->gist[j];
      if (++G[j] < p->gdims[j]) break;
      io -= G[j] * p->gist[j];
      G[j] = 0;
    }
  }
}

#define OFFS_CHUNK 256

/* Walk the updates in row-major order, one run per innermost merged row;
 * window starts from base (NULL: computed per run). */
static void walk(scat_ctx *c, const wstart *w, const hlo_val *idx, const int64_t *base) {
  const scat_plan *p = c->p;
  int L = p->urank - 1;
  int64_t n = p->udims[L], so = p->uost[L], sg = p->ugst[L];
  int64_t ui[MAXR] = {0}, offs[OFFS_CHUNK];
  for (int64_t k = 0; k < p->nupd && !c->rc; k += n) {
    int64_t wo = 0, go = 0;
    for (int d = 0; d < L; d++) {
      wo += ui[d] * p->uost[d];
      go += ui[d] * p->ugst[d];
    }
    if (sg == 0) {
      int64_t b = base ? base[go] : wstart_of(p, w, idx, go);
      if (b >= 0) {
        run R = {b + wo, so, k, n, NULL};
        c->fn(c, &R);
      }
    } else {
      for (int64_t j0 = 0; j0 < n && !c->rc; j0 += OFFS_CHUNK) {
        int64_t m = n - j0 < OFFS_CHUNK ? n - j0 : OFFS_CHUNK;
        for (int64_t j = 0; j < m; j++) {
          int64_t b = base[go + (j0 + j) * sg];
          offs[j] = b < 0 ? -1 : b + wo;
        }
        run R = {0, 0, k + j0, m, offs};
        c->fn(c, &R);
      }
    }
    for (int d = L - 1; d >= 0; d--) {
      if (++ui[d] < p->udims[d]) break;
      ui[d] = 0;
    }
  }
}

/* dst[a][j][i] = src[a][i][j] for i < R, j < C (elements of es bytes),
 * in 32x32 blocks. */
#define TR_LOOP(T)                                                               \
  for (int64_t a = 0; a < A; a++) {                                              \
    const T *sp = (const T *)src + a * R * C;                                    \
    T *dp = (T *)dst + a * R * C;                                                \
    for (int64_t i0 = 0; i0 < R; i0 += 32)                                       \
      for (int64_t j0 = 0; j0 < C; j0 += 32) {                                   \
        int64_t i1 = i0 + 32 < R ? i0 + 32 : R, j1 = j0 + 32 < C ? j0 + 32 : C;  \
        for (int64_t j = j0; j < j1; j++)                                        \
          for (int64_t i = i0; i < i1; i++) dp[j * R + i] = sp[i * C + j];       \
      }                                                                          \
  }
typedef struct { uint64_t w[2]; } u128s;
static void transpose3(const void *src, void *dst, int64_t A, int64_t R, int64_t C, size_t es) {
  switch (es) {
  case 1: TR_LOOP(uint8_t) break;
  case 2: TR_LOOP(uint16_t) break;
  case 4: TR_LOOP(uint32_t) break;
  case 8: TR_LOOP(uint64_t) break;
  default: TR_LOOP(u128s) break;
  }
}

DECL_KERN(hlo_fast_scatter) {
  const scat_plan *p = s->p;
  int N = p->n;
  hlo_val *idx = args[N];
  HLO_ASSERT(!(idx->ntuple)); /* planned for these shapes */
  for (int i = 0; i < N; i++)
    if (args[i]->ntuple || args[N + 1 + i]->ntuple || args[N + 1 + i]->nelems != p->nupd)
      return hlo_run_errorf(r, s->in, "updates do not match the plan");
  bool tr = p->tr && p->nupd > 0;
  int64_t *base = NULL;
  wstart w;
  wstart_init(p, &w);
  if (p->nupd > 0) {
    if (p->ngroups <= 0 || (uint64_t)p->ngroups > SIZE_MAX / sizeof *base ||
        idx->nelems != p->ngroups * p->nidx)
      return hlo_run_errorf(r, s->in, "indices do not match the plan");
    /* a table of window starts when runs cross windows (else per run) */
    if (p->ugst[p->urank - 1] != 0) {
      base = hlo_malloc(r->alloc, (size_t)p->ngroups * sizeof *base);
      if (!base) return hlo_run_errorf(r, s->in, "out of memory");
      window_starts(p, &w, idx, base);
    }
  }
  /* the result starts as the operand (taken over when it dies); with tr
   * the combining happens in transposed scratch copies instead */
  hlo_val *o = N == 1 && s->last_use[0] ? hlo_run_steal(r, args[0], &s->in->shape) : NULL;
  const void *from[SC_MAXN];
  char *scr[SC_MAXN] = {0};
  bool ok = true;
  if (o) {
    from[0] = o->data;
  } else {
    o = N == 1 ? hlo_run_new_raw(r, &s->in->shape) : hlo_run_new(r, &s->in->shape);
    for (int i = 0; o && i < N; i++) {
      hlo_val *ri = N == 1 ? o : o->tuple[i];
      if (ri->nbytes != args[i]->nbytes) ok = false;
      else if (!tr && ri->nbytes) memcpy(ri->data, args[i]->data, ri->nbytes);
      from[i] = args[i]->data;
    }
  }
  scat_ctx c = {NULL, r, r->e->plans[s->in->called[0]->id], p, 0, {0}, {0}, {0}, HLO_OK};
  for (int i = 0; o && ok && i < N; i++) {
    hlo_val *ri = N == 1 ? o : o->tuple[i];
    c.res[i] = ri->data;
    c.upd[i] = args[N + 1 + i]->data;
    c.es[i] = (size_t)hlo_type_bytes(p->t[i]);
    if (tr) {
      scr[i] = hlo_malloc(r->alloc, ri->nbytes + 1);
      if (!scr[i]) ok = false;
      else transpose3(from[i], scr[i], p->tA, p->tD, p->tB, c.es[i]);
      c.res[i] = scr[i];
    }
  }
  if (o && ok && p->nupd > 0) {
    if (p->generic) {
      c.fn = generic_run;
      walk(&c, &w, idx, base);
    } else {
      for (c.i = 0; c.i < N && !c.rc; c.i++) {
        c.fn = select_fn(&c);
        walk(&c, &w, idx, base);
      }
    }
  }
  for (int i = 0; i < N; i++) {
    if (scr[i] && ok) transpose3(scr[i], (N == 1 ? o : o->tuple[i])->data, p->tA, p->tB, p->tD, c.es[i]);
    hlo_free(r->alloc, scr[i]);
  }
  hlo_free(r->alloc, base);
  if (!o || !ok || c.rc) {
    if (o) hlo_run_release(r, o);
    if (c.rc) return HLO_ERR;
    return hlo_run_errorf(r, s->in, o ? "result does not match the operand or out of memory"
                                      : "out of memory");
  }
  *out = o;
  return HLO_OK;
}
