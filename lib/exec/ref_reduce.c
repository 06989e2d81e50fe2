/* ref_reduce.c - reference kernels that combine elements with a called
 * computation: reduce and reduce-window (variadic), select-and-scatter,
 * sort (multi-operand, stable merge sort) and topk. */
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

static hlo_val *leaf(hlo_val *o, int N, int i) { return N == 1 && !o->ntuple ? o : o->tuple[i]; }

/* The element type the reducer returns at position i: XLA's evaluator
 * reduces in the reducer's types (the shape it infers) and converts to the
 * declared result types at the end (HandleReduce, ConvertToShape). */
static hlo_type reducer_type(const hlo_computation *f, int N, int i) {
  const hlo_shape *rs = &f->root->shape;
  if (rs->type != HLO_TUPLE) return rs->type;
  return i < rs->ntuple && N == rs->ntuple ? rs->tuple[i].type : HLO_TYPE_COUNT;
}

/* XLA's IsScalarAdd: the reducer adds its two scalar parameters */
static bool scalar_add(const hlo_computation *f) {
  const hlo_instruction *root = f->root;
  if (!root || root->op != HLO_OP_ADD || f->nparams != 2 || root->noperands != 2) return false;
  const hlo_instruction *a = root->operands[0], *b = root->operands[1];
  return a && b && a != b && a->op == HLO_OP_PARAMETER && b->op == HLO_OP_PARAMETER &&
         hlo_shape_is_scalar(&a->shape) && hlo_shape_is_scalar(&b->shape);
}

/* A single-operand reduce of floats (not complex) by a scalar add sums in
 * double from the init value and rounds once per result element, as XLA's
 * evaluator does (GenerateReduceOutputElement's fast add); acc is where the
 * result is kept (the reducer's type). */
static int reduce_add_double(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val *acc,
                             const int64_t *ost) {
  const hlo_shape *is = args[0]->shape;
  int64_t nout = acc->nelems;
  double *sum = hlo_malloc(r->alloc, sizeof(double) * (size_t)nout + 8);
  if (!sum) return OOM(r, s);
  double init = hlo_sc_load(args[1]->shape->type, args[1]->data, 0).f;
  for (int64_t j = 0; j < nout; j++) sum[j] = init;
  int64_t ii[MAXR] = {0};
  for (int64_t k = 0; k < args[0]->nelems; k++) {
    sum[hlo_index_dot(is->rank, ii, ost)] += hlo_sc_load(is->type, args[0]->data, k).f;
    hlo_index_next(is->rank, is->dims, ii);
  }
  for (int64_t j = 0; j < nout; j++) hlo_sc_store(acc->shape->type, acc->data, j, (hlo_sc){sum[j], 0, 0});
  hlo_free(r->alloc, sum);
  return HLO_OK;
}

DECL_KERN(hlo_ref_reduce) {
  const hlo_instruction *in = s->in;
  int N = s->nargs / 2;
  if (N < 1 || s->nargs != 2 * N || N > 16) return hlo_run_errorf(r, in, "bad operand count");
  const hlo_shape *is = args[0]->shape;
  int nd;
  const int64_t *dims = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  bool red[MAXR] = {false};
  for (int i = 0; i < nd; i++) {
    if (dims[i] < 0 || dims[i] >= is->rank) return hlo_run_errorf(r, in, "bad dimensions=");
    red[dims[i]] = true;
  }
  const plan_comp *pc = r->e->plans[in->called[0]->id];
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  int64_t nout = leaf(o, N, 0)->nelems;
  /* output strides over the kept input dims */
  int64_t ost[MAXR], acc = 1;
  for (int d = is->rank - 1; d >= 0; d--) {
    ost[d] = red[d] ? 0 : acc;
    if (!red[d]) acc *= is->dims[d];
  }
  if (acc != nout) { hlo_run_release(r, o); return hlo_run_errorf(r, in, "result size mismatch"); }
  /* accumulators: the result leaves, or values of the reducer's type where
   * the declared type differs (their shapes live until the end here) */
  hlo_shape ash[16];
  hlo_val *av[16] = {0};
  int rc = HLO_OK;
  for (int i = 0; i < N && rc == HLO_OK; i++) {
    hlo_val *l = leaf(o, N, i);
    hlo_type rt = reducer_type(in->called[0], N, i);
    av[i] = l;
    if (rt == l->shape->type || rt == HLO_TYPE_COUNT || rt == HLO_TUPLE) continue;
    ash[i] = *l->shape;
    ash[i].type = rt;
    if (!(av[i] = hlo_run_new(r, &ash[i]))) rc = OOM(r, s);
  }
  for (int i = 0; i < N && rc == HLO_OK; i++) {
    hlo_sc init = hlo_sc_load(args[N + i]->shape->type, args[N + i]->data, 0);
    for (int64_t j = 0; j < nout; j++) hlo_sc_store(av[i]->shape->type, av[i]->data, j, init);
  }
  bool fast_add = N == 1 && rc == HLO_OK && hlo_type_kind_of(args[1]->shape->type) == HLO_KIND_FLOAT &&
                  scalar_add(in->called[0]);
  if (fast_add) rc = reduce_add_double(r, s, args, av[0], ost);
  int64_t ii[MAXR] = {0};
  hlo_sc x[32], y[16];
  for (int64_t k = 0; k < args[0]->nelems && rc == HLO_OK && !fast_add; k++) {
    int64_t j = hlo_index_dot(is->rank, ii, ost);
    for (int i = 0; i < N; i++) {
      x[i] = hlo_sc_load(av[i]->shape->type, av[i]->data, j);
      x[N + i] = hlo_sc_load(args[i]->shape->type, args[i]->data, k);
    }
    if (hlo_run_scalar(r, pc, x, 2 * N, y, N)) rc = HLO_ERR;
    for (int i = 0; i < N && rc == HLO_OK; i++) hlo_sc_store(av[i]->shape->type, av[i]->data, j, y[i]);
    hlo_index_next(is->rank, is->dims, ii);
  }
  for (int i = 0; i < N; i++) {
    hlo_val *l = leaf(o, N, i);
    if (!av[i] || av[i] == l) continue;
    for (int64_t j = 0; j < nout && rc == HLO_OK; j++)
      hlo_sc_store(l->shape->type, l->data, j,
                   hlo_ref_convert(av[i]->shape->type, l->shape->type,
                                   hlo_sc_load(av[i]->shape->type, av[i]->data, j)));
    hlo_run_release(r, av[i]);
  }
  if (rc != HLO_OK) {
    hlo_run_release(r, o);
    return rc;
  }
  *out = o;
  return HLO_OK;
}

/* Window geometry of one dimension: the input position of output index o
 * and window index w, or -1 when it falls into padding or a dilation hole. */
static int64_t win_pos(const hlo_window_dim *w, int64_t dim, int64_t o, int64_t k) {
  int64_t ld = w->lhs_dilate ? w->lhs_dilate : 1, rd = w->rhs_dilate ? w->rhs_dilate : 1;
  int64_t st = w->stride ? w->stride : 1;
  int64_t p = o * st + k * rd - w->pad_lo;
  if (p < 0 || p % ld) return -1;
  p /= ld;
  return p < dim ? p : -1;
}

static int window_of(hlo_run *r, const hlo_instruction *in, int rank, hlo_window_dim *wd) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_WINDOW);
  for (int d = 0; d < rank; d++) {
    hlo_window_dim z = {1, 1, 0, 0, 1, 1, false};
    wd[d] = z;
  }
  if (!a) return rank == 0 ? HLO_OK : hlo_run_errorf(r, in, "needs window=");
  if (a->u.window.n != rank) return hlo_run_errorf(r, in, "window rank mismatch");
  for (int d = 0; d < rank; d++) wd[d] = a->u.window.dims[d];
  return HLO_OK;
}

DECL_KERN(hlo_ref_reduce_window) {
  hlo_window_dim wd[MAXR];
  if (window_of(r, s->in, args[0]->shape->rank, wd)) return HLO_ERR;
  return hlo_ref_reduce_window_with(r, s, args, wd, out);
}

int hlo_ref_reduce_window_with(hlo_run *r, const plan_step *s, hlo_val **args, const hlo_window_dim *wd,
                               hlo_val **out) {
  const hlo_instruction *in = s->in;
  int N = s->nargs / 2;
  if (N < 1 || s->nargs != 2 * N || N > 16) return hlo_run_errorf(r, in, "bad operand count");
  const hlo_shape *is = args[0]->shape;
  const plan_comp *pc = r->e->plans[in->called[0]->id];
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  const hlo_shape *os = leaf(o, N, 0)->shape;
  int64_t ist[MAXR], oi[MAXR] = {0}, wsz[MAXR], wi[MAXR], ii[MAXR];
  hlo_strides(is, ist);
  int64_t wn = 1;
  for (int d = 0; d < is->rank; d++) { wsz[d] = wd[d].size; wn *= wsz[d]; }
  hlo_sc x[32], y[16], accv[16];
  for (int64_t j = 0; j < leaf(o, N, 0)->nelems; j++) {
    for (int i = 0; i < N; i++) accv[i] = hlo_sc_load(args[N + i]->shape->type, args[N + i]->data, 0);
    memset(wi, 0, sizeof wi);
    for (int64_t w = 0; w < wn; w++) {
      bool ok = true;
      for (int d = 0; d < is->rank && ok; d++) {
        ii[d] = win_pos(&wd[d], is->dims[d], oi[d], wd[d].reversal ? wsz[d] - 1 - wi[d] : wi[d]);
        if (ii[d] < 0) ok = false;
      }
      if (ok) {
        int64_t k = hlo_index_dot(is->rank, ii, ist);
        for (int i = 0; i < N; i++) {
          x[i] = accv[i];
          x[N + i] = hlo_sc_load(args[i]->shape->type, args[i]->data, k);
        }
        if (hlo_run_scalar(r, pc, x, 2 * N, y, N)) { hlo_run_release(r, o); return HLO_ERR; }
        for (int i = 0; i < N; i++) {
          /* round through the element type, as a stored value would be */
          hlo_val *l = leaf(o, N, i);
          hlo_sc_store(l->shape->type, l->data, j, y[i]);
          accv[i] = hlo_sc_load(l->shape->type, l->data, j);
        }
      }
      hlo_index_next(is->rank, wsz, wi);
    }
    for (int i = 0; i < N; i++) {
      hlo_val *l = leaf(o, N, i);
      hlo_sc_store(l->shape->type, l->data, j, accv[i]);
    }
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_select_and_scatter) {
  const hlo_instruction *in = s->in;
  hlo_window_dim wd[MAXR];
  if (window_of(r, in, args[0]->shape->rank, wd)) return HLO_ERR;
  const hlo_attr *sa = hlo_instr_attr(in, HLO_A_SELECT), *ca = hlo_instr_attr(in, HLO_A_SCATTER);
  if (!sa || !ca) return hlo_run_errorf(r, in, "needs select= and scatter=");
  return hlo_ref_select_and_scatter_with(r, s, args, wd, sa->u.comp, ca->u.comp, out);
}

int hlo_ref_select_and_scatter_with(hlo_run *r, const plan_step *s, hlo_val **args, const hlo_window_dim *wd,
                                    const hlo_computation *select, const hlo_computation *scatter,
                                    hlo_val **out) {
  const hlo_instruction *in = s->in;
  const hlo_shape *is = args[0]->shape, *ss = args[1]->shape;
  const plan_comp *sel = r->e->plans[select->id], *sct = r->e->plans[scatter->id];
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  hlo_type t = is->type, ot = in->shape.type; /* differ under mixed precision */
  hlo_sc init = hlo_sc_load(args[2]->shape->type, args[2]->data, 0);
  for (int64_t k = 0; k < o->nelems; k++) hlo_sc_store(ot, o->data, k, init);
  int64_t ist[MAXR], oi[MAXR] = {0}, wsz[MAXR], wi[MAXR], ii[MAXR];
  hlo_strides(is, ist);
  int64_t wn = 1;
  for (int d = 0; d < is->rank; d++) { wsz[d] = wd[d].size; wn *= wsz[d]; }
  for (int64_t j = 0; j < args[1]->nelems; j++) {
    int64_t best = -1;
    hlo_sc bv = {0, 0, 0};
    memset(wi, 0, sizeof wi);
    for (int64_t w = 0; w < wn; w++) {
      bool ok = true;
      for (int d = 0; d < is->rank && ok; d++) {
        ii[d] = win_pos(&wd[d], is->dims[d], oi[d], wi[d]);
        if (ii[d] < 0) ok = false;
      }
      if (ok) {
        int64_t k = hlo_index_dot(is->rank, ii, ist);
        hlo_sc v = hlo_sc_load(t, args[0]->data, k);
        if (best < 0) {
          best = k;
          bv = v;
        } else {
          hlo_sc x[2] = {bv, v}, keep;
          if (hlo_run_scalar(r, sel, x, 2, &keep, 1)) { hlo_run_release(r, o); return HLO_ERR; }
          if (!keep.i) { best = k; bv = v; }
        }
      }
      hlo_index_next(is->rank, wsz, wi);
    }
    if (best >= 0) {
      hlo_sc x[2] = {hlo_sc_load(ot, o->data, best), hlo_sc_load(ss->type, args[1]->data, j)}, y;
      if (hlo_run_scalar(r, sct, x, 2, &y, 1)) { hlo_run_release(r, o); return HLO_ERR; }
      hlo_sc_store(ot, o->data, best, y);
    }
    hlo_index_next(ss->rank, ss->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

/* ---- sort -------------------------------------------------------------------- */
typedef struct sort_ctx {
  hlo_run *r;
  const plan_comp *cmp;
  hlo_val **ops;
  int N;
  int64_t base, stride;
  int err;
} sort_ctx;

static bool less(sort_ctx *c, int64_t a, int64_t b) {
  hlo_sc x[32], y;
  for (int i = 0; i < c->N; i++) {
    hlo_type t = c->ops[i]->shape->type;
    x[2 * i] = hlo_sc_load(t, c->ops[i]->data, c->base + a * c->stride);
    x[2 * i + 1] = hlo_sc_load(t, c->ops[i]->data, c->base + b * c->stride);
  }
  if (c->err || hlo_run_scalar(c->r, c->cmp, x, 2 * c->N, &y, 1)) {
    c->err = 1;
    return false;
  }
  return y.i != 0;
}

/* Stable merge sort of the permutation p[0..n) (tmp of the same size). */
static void msort(sort_ctx *c, int64_t *p, int64_t *tmp, int64_t n) {
  if (n < 2) return;
  int64_t h = n / 2;
  msort(c, p, tmp, h);
  msort(c, p + h, tmp, n - h);
  int64_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = less(c, p[j], p[i]) ? p[j++] : p[i++];
  while (i < h) tmp[k++] = p[i++];
  while (j < n) tmp[k++] = p[j++];
  memcpy(p, tmp, sizeof(int64_t) * (size_t)n);
}

DECL_KERN(hlo_ref_sort) {
  const hlo_instruction *in = s->in;
  int N = s->nargs;
  if (N < 1 || N > 16) return hlo_run_errorf(r, in, "bad operand count");
  const hlo_shape *is = args[0]->shape;
  int nd;
  const int64_t *dims = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  if (nd != 1 || dims[0] < 0 || dims[0] >= is->rank) return hlo_run_errorf(r, in, "bad dimensions=");
  int sd = (int)dims[0];
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  int64_t n = is->dims[sd], st[MAXR];
  hlo_strides(is, st);
  int64_t *p = hlo_malloc(r->alloc, sizeof(int64_t) * (size_t)(2 * n + 1));
  if (!p) { hlo_run_release(r, o); return OOM(r, s); }
  sort_ctx c = {r, r->e->plans[in->called[0]->id], args, N, 0, st[sd], 0};
  int64_t idx[MAXR] = {0}, odims[MAXR];
  memcpy(odims, is->dims, sizeof(int64_t) * (size_t)is->rank);
  odims[sd] = 1;
  int64_t nslices = n ? args[0]->nelems / n : 0;
  for (int64_t q = 0; q < nslices; q++) {
    c.base = hlo_index_dot(is->rank, idx, st);
    for (int64_t i = 0; i < n; i++) p[i] = i;
    msort(&c, p, p + n, n);
    if (c.err) break;
    for (int i = 0; i < N; i++) {
      hlo_val *l = leaf(o, N, i);
      size_t es = (size_t)hlo_type_bytes(l->shape->type);
      for (int64_t k = 0; k < n; k++)
        memcpy((char *)l->data + (c.base + k * c.stride) * (int64_t)es,
               (char *)args[i]->data + (c.base + p[k] * c.stride) * (int64_t)es, es);
    }
    hlo_index_next(is->rank, odims, idx);
  }
  hlo_free(r->alloc, p);
  if (c.err) { hlo_run_release(r, o); return HLO_ERR; }
  *out = o;
  return HLO_OK;
}

/* topk along the last dimension: (values, s32 indices); ties keep the lower
 * index first; floats are ordered by the IEEE total order. */
DECL_KERN(hlo_ref_topk) {
  const hlo_instruction *in = s->in;
  const hlo_shape *is = args[0]->shape;
  if (in->shape.type != HLO_TUPLE || in->shape.ntuple != 2 || is->rank < 1)
    return hlo_run_errorf(r, in, "result must be (values, indices)");
  bool largest = hlo_instr_bool(in, HLO_A_LARGEST, true);
  int64_t n = is->dims[is->rank - 1];
  int64_t k = in->shape.tuple[0].rank ? in->shape.tuple[0].dims[in->shape.tuple[0].rank - 1] : 0;
  if (k > n) return hlo_run_errorf(r, in, "k exceeds the last dimension");
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  int64_t *p = hlo_malloc(r->alloc, sizeof(int64_t) * (size_t)(2 * n + 1));
  if (!p) { hlo_run_release(r, o); return OOM(r, s); }
  hlo_type t = is->type;
  int64_t rows = n ? args[0]->nelems / n : 0;
  int ct = hlo_type_is_float(t) ? CMPT_TOTALORDER : CMPT_DEFAULT;
  for (int64_t q = 0; q < rows; q++) {
    const int64_t base = q * n;
    for (int64_t i = 0; i < n; i++) p[i] = i;
    /* insertion into a stable order: simple stable merge via repeated passes */
    for (int64_t w = 1; w < n; w *= 2) {
      for (int64_t lo = 0; lo < n; lo += 2 * w) {
        int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
        int64_t i = lo, j = mid, m = lo;
        while (i < mid && j < hi) {
          hlo_sc a = hlo_sc_load(t, args[0]->data, base + p[j]);
          hlo_sc b = hlo_sc_load(t, args[0]->data, base + p[i]);
          bool jfirst = hlo_ref_compare(largest ? CMP_GT : CMP_LT, ct, t, a, b);
          p[n + m++] = jfirst ? p[j++] : p[i++];
        }
        while (i < mid) p[n + m++] = p[i++];
        while (j < hi) p[n + m++] = p[j++];
      }
      memcpy(p, p + n, sizeof(int64_t) * (size_t)n);
    }
    size_t es = (size_t)hlo_type_bytes(t);
    for (int64_t j = 0; j < k; j++) {
      memcpy((char *)o->tuple[0]->data + (q * k + j) * (int64_t)es,
             (char *)args[0]->data + (base + p[j]) * (int64_t)es, es);
      hlo_sc iv = {0, 0, p[j]};
      hlo_sc_store(o->tuple[1]->shape->type, o->tuple[1]->data, q * k + j, iv);
    }
  }
  hlo_free(r->alloc, p);
  *out = o;
  return HLO_OK;
}
