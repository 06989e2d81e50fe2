/* fuzz_imap.c - fuzz target: the indexing-map parser, printer and
 * simplifier.  A parsed map must print and re-parse to the same map; its
 * simplification must be idempotent and agree with the original at sampled
 * points (same feasibility, same results); small maps are also compared
 * with imap_equal_meaning.  Indexing listings are parsed too. */
#include "fuzz.h"
#include "hlo/hlo_imap.h"

enum { NPOINTS = 48, MAXV = 64 };

static uint64_t next_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static int64_t pick(uint64_t *s, imap_interval iv) {
  uint64_t r = next_rand(s);
  if (r % 4 == 0) return iv.lo;
  if (r % 4 == 1) return iv.hi;
  uint64_t span = (uint64_t)iv.hi - (uint64_t)iv.lo + 1; /* 0 means the full range */
  return (int64_t)((uint64_t)iv.lo + (span ? (r >> 2) % span : (r >> 2)));
}

/* 1 feasible, 0 not, -1 overflow.  Results into res. */
static int eval_at(const imap_map *m, const int64_t *d, const int64_t *s, const int64_t *rt,
                   int64_t *res) {
  if (m->state != IMAP_DEFINED) return 0;
  for (int i = 0; i < m->ndims; i++)
    if (d[i] < m->dims[i].lo || d[i] > m->dims[i].hi) return 0;
  for (int i = 0; i < m->nsyms; i++)
    if (s[i] < m->syms[i].lo || s[i] > m->syms[i].hi) return 0;
  for (int i = 0; i < m->nrts; i++)
    if (rt[i] < m->rts[i].lo || rt[i] > m->rts[i].hi) return 0;
  for (int i = 0; i < m->ncons; i++) {
    int64_t v;
    if (!imap_eval(m->cons[i].e, d, s, rt, &v)) return -1;
    if (v < m->cons[i].iv.lo || v > m->cons[i].iv.hi) return 0;
  }
  for (int i = 0; i < m->nresults; i++)
    if (!imap_eval(m->results[i], d, s, rt, &res[i])) return -1;
  return 1;
}

static void print_map(const char *what, const imap_map *m) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  imap_map_print(&b, m);
  fprintf(stderr, "%s:\n%.*s\n", what, (int)b.len, b.data ? b.data : "");
  hlo_buf_release(&b);
}

static void check_agree(const imap_map *m, const imap_map *s, uint64_t seed) {
  if (m->state != IMAP_DEFINED || m->ndims > MAXV || m->nsyms > MAXV || m->nrts > MAXV) return;
  if (m->nresults > MAXV) return;
  if (s->state == IMAP_UNDEFINED) {
    print_map("original", m);
    FUZZ_CHECK(0, "simplification of a defined map is undefined");
  }
  if (s->state == IMAP_DEFINED) {
    FUZZ_CHECK(s->ndims == m->ndims && s->nsyms == m->nsyms && s->nrts == m->nrts &&
                   s->nresults == m->nresults,
               "simplification changed the variable or result counts");
  }
  for (int i = 0; i < m->ndims; i++) if (m->dims[i].lo > m->dims[i].hi) return;
  for (int i = 0; i < m->nsyms; i++) if (m->syms[i].lo > m->syms[i].hi) return;
  for (int i = 0; i < m->nrts; i++) if (m->rts[i].lo > m->rts[i].hi) return;
  int64_t d[MAXV], sy[MAXV], rt[MAXV], r1[MAXV], r2[MAXV];
  for (int p = 0; p < NPOINTS; p++) {
    for (int i = 0; i < m->ndims; i++) d[i] = pick(&seed, m->dims[i]);
    for (int i = 0; i < m->nsyms; i++) sy[i] = pick(&seed, m->syms[i]);
    for (int i = 0; i < m->nrts; i++) rt[i] = pick(&seed, m->rts[i]);
    int f1 = eval_at(m, d, sy, rt, r1);
    if (f1 < 0) continue;
    int f2 = s->state == IMAP_DEFINED ? eval_at(s, d, sy, rt, r2) : 0;
    if (f2 < 0) continue;
    if (f1 != f2 || (f1 && memcmp(r1, r2, (size_t)m->nresults * sizeof *r1) != 0)) {
      print_map("original", m);
      print_map("simplified", s);
      fprintf(stderr, "point: d=");
      for (int i = 0; i < m->ndims; i++) fprintf(stderr, "%lld ", (long long)d[i]);
      fprintf(stderr, "s=");
      for (int i = 0; i < m->nsyms; i++) fprintf(stderr, "%lld ", (long long)sy[i]);
      fprintf(stderr, "rt=");
      for (int i = 0; i < m->nrts; i++) fprintf(stderr, "%lld ", (long long)rt[i]);
      fputc('\n', stderr);
      FUZZ_CHECK(0, "feasible %d vs %d, or different results", f1, f2);
    }
  }
}

static double box(const imap_map *m) {
  double n = 1;
  for (int i = 0; i < m->ndims; i++) n *= (double)m->dims[i].hi - (double)m->dims[i].lo + 1;
  for (int i = 0; i < m->nsyms; i++) n *= (double)m->syms[i].hi - (double)m->syms[i].lo + 1;
  for (int i = 0; i < m->nrts; i++) n *= (double)m->rts[i].hi - (double)m->rts[i].lo + 1;
  return n;
}

static void one_map(imap_ctx *c, const imap_map *m, uint64_t seed) {
  /* print -> parse gives the same map */
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  imap_map_print(&b, m);
  FUZZ_CHECK(!b.failed, "printing failed");
  size_t pos = 0;
  char err[256];
  imap_map *back = imap_parse_map(c, b.data ? b.data : "", b.len, &pos, err, sizeof err);
  /* KNOWN EMPTY and UNDEFINED print without their variable counts, so only
   * the state can survive the round trip */
  bool same = back && (m->state == IMAP_DEFINED ? imap_map_same(m, back) : back->state == m->state);
  if (!same) {
    print_map("original", m);
    if (back) print_map("re-parsed", back);
    FUZZ_CHECK(0, "printed map does not re-parse to itself: %s", back ? "differs" : err);
  }
  hlo_buf_release(&b);
  imap_map *s = imap_simplify(c, m);
  if (!s) {
    FUZZ_CHECK(c->failed, "simplify failed without marking the context");
    return;
  }
  imap_map *s2 = imap_simplify(c, s);
  if (s2 && !imap_map_same(s, s2)) {
    print_map("original", m);
    print_map("simplified", s);
    print_map("simplified twice", s2);
    FUZZ_CHECK(0, "simplification is not idempotent");
  }
  check_agree(m, s, seed);
  if (m->state == IMAP_DEFINED && box(m) <= 4096) {
    char why[256];
    int eq = imap_equal_meaning(m, s, why, sizeof why);
    if (eq == 0) {
      print_map("original", m);
      print_map("simplified", s);
      FUZZ_CHECK(0, "imap_equal_meaning: %s", why);
    }
  }
  imap_remove_unused_symbols(c, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  const char *text = (const char *)data;
  uint64_t seed = 0x9e3779b97f4a7c15u ^ size;
  imap_ctx c;
  imap_ctx_init(&c, NULL);
  size_t pos = 0;
  char err[256];
  imap_map *m = imap_parse_map(&c, text, size, &pos, err, sizeof err);
  if (m) {
    FUZZ_CHECK(pos <= size, "parse position past the input");
    one_map(&c, m, seed);
  } else {
    FUZZ_CHECK(pos <= size, "error position past the input");
  }
  imap_ctx_release(&c);

  imap_ctx_init(&c, NULL);
  imap_indexing x = {0, NULL};
  size_t epos = 0;
  if (imap_parse_indexing(&c, text, size, &x, err, sizeof err, &epos) == HLO_OK) {
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    imap_indexing_print(&b, &x, "operand");
    hlo_buf_release(&b);
    for (int i = 0; i < x.n && i < 4; i++)
      for (int j = 0; j < x.sets[i].n && j < 4; j++) one_map(&c, x.sets[i].v[j], seed + (uint64_t)j);
  } else {
    FUZZ_CHECK(epos <= size, "error position past the input");
  }
  imap_ctx_release(&c);
  return 0;
}
