/* fuzz_run.c - fuzz target: the interpreter on small modules, the way
 * hlo-run uses it: parse, fill omitted shapes, plan (which verifies), run on pseudo-random inputs.  Caps keep each
 * input cheap: every array shape at most 4096 elements, while loops at most
 * 32 iterations, and an allocator that refuses more than 64 MiB live.  A
 * custom mutator makes zero-sized dimensions common (hlo_zero_dims). */
#include "fuzz.h"
#include "hlo/hlo_exec.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"

enum { MAX_ELEMS = 4096, MAX_INSTRS = 200 };
#define MAX_LIVE ((size_t)64 << 20)

typedef struct counting {
  size_t live;
} counting;

/* Each block carries its size in a 16-byte header. */
static void *c_alloc(void *ud, size_t n) {
  counting *c = ud;
  if (n > MAX_LIVE || c->live + n > MAX_LIVE) return NULL;
  size_t *p = malloc(n + 16);
  if (!p) return NULL;
  p[0] = n;
  c->live += n;
  return (char *)p + 16;
}

static void c_free(void *ud, void *q) {
  counting *c = ud;
  if (!q) return;
  size_t *p = (size_t *)((char *)q - 16);
  c->live -= p[0];
  free(p);
}

static void *c_realloc(void *ud, void *q, size_t n) {
  counting *c = ud;
  if (!q) return c_alloc(ud, n);
  size_t *p = (size_t *)((char *)q - 16);
  size_t old = p[0];
  if (n > MAX_LIVE || c->live - old + n > MAX_LIVE) return NULL;
  size_t *np = realloc(p, n + 16);
  if (!np) return NULL;
  np[0] = n;
  c->live = c->live - old + n;
  return (char *)np + 16;
}

static bool small_shape(const hlo_shape *s, int depth) {
  if (depth > 8) return false;
  if (s->type == HLO_TUPLE) {
    if (s->ntuple > 64) return false;
    for (int i = 0; i < s->ntuple; i++)
      if (!small_shape(&s->tuple[i], depth + 1)) return false;
    return true;
  }
  if (!hlo_type_is_array(s->type)) return true;
  int64_t n;
  return hlo_shape_elements(s, &n) && n <= MAX_ELEMS;
}

static bool small_module(const hlo_module *m) {
  int total = 0;
  for (int c = 0; c < m->ncomps; c++)
    for (int i = 0; i < m->comps[c]->ninstrs; i++) {
      const hlo_instruction *in = m->comps[c]->instrs[i];
      if (++total > MAX_INSTRS || !small_shape(&in->shape, 0)) return false;
      for (int k = 0; k < in->noperands; k++)
        if (in->operands[k] && !small_shape(&in->operands[k]->shape, 0)) return false;
    }
  return true;
}

/* ---- zero-sized dimensions ----------------------------------------------
 * Random text mutations rarely give a module with a dimension of size 0 that
 * still verifies, so a third of the mutations (after libFuzzer's own) pick
 * one dimension size v found in the shapes of the text and write 0 for it:
 * in every shape, and in half of these mutations also for every number v
 * outside shapes (slice limits, slice sizes, windows, ...), except on lines holding
 * constants, parameters or tuple indices.  Done the same way everywhere, the
 * module stays consistent often enough to run. */
static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static bool is_lower_or_digit(uint8_t c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }

/* Whether the '[' at position i opens a shape (an element type name ends there). */
static bool opens_shape(const uint8_t *d, size_t i) {
  return i >= 2 && d[i] == '[' && is_lower_or_digit(d[i - 1]) && is_lower_or_digit(d[i - 2]);
}

/* Whether a number starts at i: a digit not inside a name or another number
 * (after 'x' or '_' only between numbers, as in size=3x3 or padding=1_1). */
static bool number_starts(const uint8_t *d, size_t i) {
  if (!is_digit(d[i])) return false;
  if (i == 0) return true;
  uint8_t c = d[i - 1];
  if (c == 'x' || c == '_') return i >= 2 && is_digit(d[i - 2]);
  return !is_digit(c) && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && c != '.' &&
         c != '%' && c != '#';
}

/* The value of the number at i (capped) and its end in *end. */
static int64_t number_at(const uint8_t *d, size_t size, size_t i, size_t *end) {
  int64_t v = 0;
  while (i < size && is_digit(d[i])) {
    if (v < 100000000) v = v * 10 + (d[i] - '0');
    i++;
  }
  *end = i;
  return v;
}

/* Whether line [a, b) holds a constant, a parameter or a tuple index. */
static bool line_kept(const uint8_t *d, size_t a, size_t b) {
  static const char *keep[] = {"constant(", "parameter(", "index=", "HloModule"};
  for (int k = 0; k < 4; k++) {
    size_t n = strlen(keep[k]);
    for (size_t i = a; i + n <= b; i++)
      if (!memcmp(d + i, keep[k], n)) return true;
  }
  return false;
}

static size_t line_end(const uint8_t *d, size_t size, size_t i) {
  while (i < size && d[i] != '\n') i++;
  return i;
}

static size_t hlo_zero_dims(uint8_t *d, size_t size, unsigned seed) {
  /* the distinct non-zero sizes in shapes (up to 64) */
  int64_t vals[64];
  int nv = 0;
  bool in_shape = false;
  for (size_t i = 0, e; i < size; i++) {
    if (opens_shape(d, i)) in_shape = true;
    else if (d[i] == ']') in_shape = false;
    if (!in_shape || !number_starts(d, i)) continue;
    int64_t v = number_at(d, size, i, &e);
    bool have = v == 0;
    for (int q = 0; q < nv && !have; q++) have = vals[q] == v;
    if (!have && nv < 64) vals[nv++] = v;
    i = e - 1;
  }
  if (!nv) return size;
  int64_t v = vals[seed % (unsigned)nv];
  bool everywhere = (seed / 64) & 1;
  /* rewrite in place: a replacement never makes the text longer */
  size_t o = 0;
  bool kept = line_kept(d, 0, line_end(d, size, 0));
  in_shape = false;
  for (size_t i = 0, e; i < size;) {
    if (d[i] == '\n') kept = line_kept(d, i + 1, line_end(d, size, i + 1));
    if (opens_shape(d, i)) in_shape = true;
    else if (d[i] == ']') in_shape = false;
    if (number_starts(d, i) && (in_shape || (everywhere && !kept))) {
      int64_t x = number_at(d, size, i, &e);
      bool whole = e == size || !((d[e] >= 'a' && d[e] <= 'z') || d[e] == '.');
      if (x == v && whole) {
        d[o++] = '0';
        i = e;
        continue;
      }
      while (i < e) d[o++] = d[i++];
      continue;
    }
    d[o++] = d[i++];
  }
  return o;
}

/* libFuzzer's own mutator; absent (NULL) in the plain replay program. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max) __attribute__((weak));
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed) {
  if (LLVMFuzzerMutate) size = LLVMFuzzerMutate(data, size, max);
  if (seed % 3 == 0) size = hlo_zero_dims(data, size, seed / 3);
  return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 16384) return 0;
  hlo_src src = {"input", (const char *)data, size};
  size_t next;
  size_t end = hlo_module_chunk_end(&src, 0, &next);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, end, NULL, &d, NULL);
  if (!m || hlo_shape_fill_omitted(m, &d, &src) != HLO_OK || !small_module(m)) goto out;
  counting cnt = {0};
  hlo_allocator al = {c_alloc, c_realloc, c_free, &cnt};
  hlo_exec_options eo = {0};
  eo.reference = size & 1;
  eo.rng_seed = size;
  eo.max_while_iters = 32;
  hlo_exec *e = hlo_exec_new(m, &eo, &al, &d);
  if (!e) {
    FUZZ_CHECK(d.nerrors > 0, "planning failed without a diagnostic");
    goto out;
  }
  int np = hlo_exec_nparams(e);
  hlo_val *args[64] = {0};
  bool ok = np >= 0 && np <= 64;
  for (int i = 0; ok && i < np; i++) {
    const hlo_shape *ps = hlo_exec_param_shape(e, i);
    args[i] = ps ? hlo_val_new(&al, ps) : NULL;
    if (!args[i]) ok = false;
    else hlo_val_randomize(args[i], (uint64_t)i);
  }
  if (ok) {
    hlo_val *res = NULL;
    if (hlo_exec_run(e, args, np, &res) == HLO_OK) {
      FUZZ_CHECK(res, "run succeeded without a result");
      hlo_val_release(&al, res);
    } else {
      FUZZ_CHECK(d.nerrors > 0, "run failed without a diagnostic");
    }
  }
  for (int i = 0; i < np && i < 64; i++) hlo_val_release(&al, args[i]);
  hlo_exec_free(e);
  FUZZ_CHECK(cnt.live == 0, "%zu bytes still allocated after the run", cnt.live);
out:
  hlo_module_free(m);
  hlo_diags_release(&d);
  return 0;
}
