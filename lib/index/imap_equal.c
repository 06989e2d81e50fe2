/* imap_equal.c - compares two indexing maps by meaning: the same feasible
 * dimension points and, at each, the same set of result tuples over all
 * feasible symbol and runtime values.  Small domains are enumerated, large
 * ones sampled deterministically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"

enum {
  FULL_DIM_POINTS = 20000,     /* enumerate every dim point up to this many */
  SAMPLE_POINTS = 1500,        /* otherwise sample this many */
  MAX_SYM_SPACE = 2000000,     /* symbol assignments per dim point */
};
#define WORK_BUDGET 60000000.0 /* total symbol assignments per comparison */

typedef struct tupset {
  int64_t *v;
  size_t n, cap; /* tuples */
  int w;         /* width */
  bool oom;
} tupset;

static void ts_push(tupset *t, const int64_t *x) {
  if (t->n == t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 64;
    size_t bytes;
    if (hlo_mul_overflow(ncap, (size_t)(t->w ? t->w : 1) * sizeof(int64_t), &bytes)) {
      t->oom = true;
      return;
    }
    int64_t *nv = hlo_realloc(NULL, t->v, bytes);
    if (!nv) {
      t->oom = true;
      return;
    }
    t->v = nv;
    t->cap = ncap;
  }
  if (t->w) memcpy(t->v + t->n * (size_t)t->w, x, (size_t)t->w * sizeof *x);
  t->n++;
}

static int tup_cmp(const void *x, const void *y, void *w) {
  const int64_t *a = x, *b = y;
  for (int i = 0; i < *(int *)w; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

static void ts_sort_unique(tupset *t) {
  if (t->w == 0) {
    if (t->n > 1) t->n = 1;
    return;
  }
  if (t->n > 1) qsort_r(t->v, t->n, (size_t)t->w * sizeof(int64_t), tup_cmp, &t->w);
  size_t o = 0;
  for (size_t i = 0; i < t->n; i++)
    if (o == 0 || tup_cmp(t->v + (o - 1) * (size_t)t->w, t->v + i * (size_t)t->w, &t->w) != 0) {
      if (o != i) memmove(t->v + o * (size_t)t->w, t->v + i * (size_t)t->w, (size_t)t->w * sizeof(int64_t));
      o++;
    }
  t->n = o;
}

static double box_size(const imap_interval *iv, int n) {
  double s = 1;
  for (int i = 0; i < n; i++) s *= iv[i].hi < iv[i].lo ? 0 : (double)iv[i].hi - (double)iv[i].lo + 1;
  return s;
}

/* All results of m at dim point d, into t.  false on overflow. */
static bool results_at(const imap_map *m, const int64_t *d, tupset *t) {
  t->n = 0;
  if (m->state != IMAP_DEFINED) return true;
  for (int i = 0; i < m->ndims; i++)
    if (d[i] < m->dims[i].lo || d[i] > m->dims[i].hi) return true;
  int ns = m->nsyms, nr = m->nrts;
  int64_t s[ns ? ns : 1], r[nr ? nr : 1], out[m->nresults ? m->nresults : 1];
  for (int i = 0; i < ns; i++) {
    if (m->syms[i].lo > m->syms[i].hi) return true;
    s[i] = m->syms[i].lo;
  }
  for (int i = 0; i < nr; i++) {
    if (m->rts[i].lo > m->rts[i].hi) return true;
    r[i] = m->rts[i].lo;
  }
  for (;;) {
    bool ok = true;
    for (int k = 0; k < m->ncons && ok; k++) {
      int64_t v;
      if (!imap_eval(m->cons[k].e, d, s, r, &v)) return false;
      ok = v >= m->cons[k].iv.lo && v <= m->cons[k].iv.hi;
    }
    if (ok) {
      for (int k = 0; k < m->nresults; k++)
        if (!imap_eval(m->results[k], d, s, r, &out[k])) return false;
      ts_push(t, out);
      if (t->oom) return false;
    }
    /* odometer over symbols, then runtime vars */
    int i = 0;
    for (; i < ns + nr; i++) {
      int64_t *x = i < ns ? &s[i] : &r[i - ns];
      const imap_interval *b = i < ns ? &m->syms[i] : &m->rts[i - ns];
      if (*x < b->hi) {
        (*x)++;
        break;
      }
      *x = b->lo;
    }
    if (i == ns + nr) return true;
  }
}

static uint64_t rnd(uint64_t *st) {
  uint64_t x = *st;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *st = x;
}

static int64_t rnd_in(uint64_t *st, imap_interval b) {
  if (b.hi <= b.lo) return b.lo;
  uint64_t span = (uint64_t)b.hi - (uint64_t)b.lo + 1;
  return span == 0 ? (int64_t)rnd(st) : (int64_t)((uint64_t)b.lo + rnd(st) % span);
}

static void fmt_point(char *buf, size_t n, const int64_t *d, int nd) {
  size_t o = 0;
  o += (size_t)snprintf(buf + o, n - o, "(");
  for (int i = 0; i < nd && o < n; i++) o += (size_t)snprintf(buf + o, n - o, "%s%lld", i ? ", " : "", (long long)d[i]);
  if (o < n) snprintf(buf + o, n - o, ")");
}

int imap_equal_meaning(const imap_map *a, const imap_map *b, char *why, size_t whyn) {
  char tmp[1];
  if (!why || !whyn) {
    why = tmp;
    whyn = sizeof tmp;
  }
  why[0] = 0;
  if (a->state == IMAP_UNDEFINED || b->state == IMAP_UNDEFINED) {
    if (a->state == b->state) return 1;
    snprintf(why, whyn, "one map is UNDEFINED, the other is not");
    return 0;
  }
  bool ea = a->state == IMAP_KNOWN_EMPTY, eb = b->state == IMAP_KNOWN_EMPTY;
  if (ea && eb) return 1;
  if (!ea && !eb && a->ndims != b->ndims) {
    snprintf(why, whyn, "dimension counts differ: %d vs %d", a->ndims, b->ndims);
    return 0;
  }
  if (!ea && !eb && a->nresults != b->nresults) {
    snprintf(why, whyn, "result counts differ: %d vs %d", a->nresults, b->nresults);
    return 0;
  }
  const imap_map *x = ea ? b : a; /* a defined map, to size the search */
  int nd = x->ndims;
  imap_interval box[nd ? nd : 1];
  for (int i = 0; i < nd; i++) {
    box[i] = x->dims[i];
    if (!ea && !eb) {
      if (b->dims[i].lo < box[i].lo) box[i].lo = b->dims[i].lo;
      if (b->dims[i].hi > box[i].hi) box[i].hi = b->dims[i].hi;
    }
  }
  double sa = a->state == IMAP_DEFINED ? box_size(a->syms, a->nsyms) * box_size(a->rts, a->nrts) : 0;
  double sb = b->state == IMAP_DEFINED ? box_size(b->syms, b->nsyms) * box_size(b->rts, b->nrts) : 0;
  if (sa > MAX_SYM_SPACE || sb > MAX_SYM_SPACE) {
    snprintf(why, whyn, "symbol space too large to compare");
    return -1;
  }
  double per = (sa > sb ? sa : sb) + 1;
  double npts = box_size(box, nd);
  bool full = npts <= FULL_DIM_POINTS && npts * per <= WORK_BUDGET;
  long nsamples = full ? (long)npts : (long)(WORK_BUDGET / per);
  if (!full && nsamples > SAMPLE_POINTS) nsamples = SAMPLE_POINTS;
  if (nsamples < 1) nsamples = 1;
  tupset ta = {.w = ea ? b->nresults : a->nresults}, tb = {.w = eb ? a->nresults : b->nresults};
  int64_t d[nd ? nd : 1];
  for (int i = 0; i < nd; i++) d[i] = box[i].lo;
  uint64_t st = 0x9e3779b97f4a7c15ull;
  int result = 1;
  bool empty_box = npts == 0;
  for (long k = 0; k < nsamples && !empty_box; k++) {
    if (!full) {
      /* corners of each map's box first, then random points of either box */
      const imap_map *src = (k & 1) || ea ? b : a;
      if (src->state != IMAP_DEFINED) src = x;
      for (int i = 0; i < nd; i++) {
        if (k < 2 * 16) d[i] = ((k >> 1) >> (i % 4)) & 1 ? src->dims[i].hi : src->dims[i].lo;
        else d[i] = rnd_in(&st, src->dims[i]);
      }
    }
    if (!results_at(a, d, &ta) || !results_at(b, d, &tb)) {
      snprintf(why, whyn, "overflow or out of memory while evaluating");
      result = -1;
      break;
    }
    ts_sort_unique(&ta);
    ts_sort_unique(&tb);
    bool same = ta.n == tb.n && (ta.w == 0 || ta.n == 0 || memcmp(ta.v, tb.v, ta.n * (size_t)ta.w * sizeof(int64_t)) == 0);
    if (!same) {
      char pt[256];
      fmt_point(pt, sizeof pt, d, nd);
      if (ta.n == 0 || tb.n == 0)
        snprintf(why, whyn, "at d = %s only the %s map is defined", pt, ta.n ? "first" : "second");
      else
        snprintf(why, whyn, "at d = %s the maps give different results (%zu vs %zu distinct tuples)", pt,
                 ta.n, tb.n);
      result = 0;
      break;
    }
    if (full) { /* next point of the box */
      int i = 0;
      for (; i < nd; i++) {
        if (d[i] < box[i].hi) {
          d[i]++;
          break;
        }
        d[i] = box[i].lo;
      }
      if (i == nd) break;
    }
  }
  hlo_free(NULL, ta.v);
  hlo_free(NULL, tb.v);
  return result;
}
