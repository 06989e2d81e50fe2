/* fuzz_run.c - fuzz target: the interpreter on small modules, the way
 * hlo-run uses it: parse, fill omitted shapes, plan (which verifies), run on pseudo-random inputs.  Caps keep each
 * input cheap: every array shape at most 4096 elements, while loops at most
 * 32 iterations, and an allocator that refuses more than 64 MiB live. */
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
