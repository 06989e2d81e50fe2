/* fuse_for_run.c - the fusion a runner applies to a module before running
 * it, as XLA's compiler does (hlo_fuse_for_run): the loop kind of the pass,
 * for modules whose instruction results total FUSE_MIN_BYTES or more, so
 * that an elementwise chain runs as one loop program instead of writing and
 * re-reading every intermediate array.  Small modules, modules with dynamic
 * dimensions and modules that do not verify are left as written (the last
 * for the runner's verifier to report as written). */
#include <stdint.h>

#include "hlo/hlo_fuse.h"
#include "hlo/hlo_verify.h"

#define FUSE_MIN_BYTES ((int64_t)64 << 20)

/* Bytes of the array results of m's instructions (tuples: their arrays);
 * -1 when some shape is dynamic. */
static int64_t result_bytes(const hlo_module *m) {
  int64_t total = 0;
  for (int i = 0; i < m->ncomps; i++)
    for (int j = 0; j < m->comps[i]->ninstrs; j++) {
      const hlo_shape *sh = &m->comps[i]->instrs[j]->shape;
      int n = sh->type == HLO_TUPLE ? sh->ntuple : 1;
      for (int k = 0; k < n; k++) {
        const hlo_shape *x = sh->type == HLO_TUPLE ? &sh->tuple[k] : sh;
        int64_t b;
        if (x->dynamic) return -1;
        if (x->type != HLO_TUPLE && hlo_shape_bytes(x, &b) && b > 0 && total < INT64_MAX - b)
          total += b;
      }
    }
  return total;
}

int hlo_fuse_for_run(hlo_module *m, hlo_diags *d) {
  if (result_bytes(m) < FUSE_MIN_BYTES) return 0;
  hlo_verify_options vo = {0};
  vo.allow_mixed_precision = true;
  hlo_diags quiet;
  hlo_diags_init(&quiet, NULL);
  int ok = hlo_verify_module(m, &vo, &quiet, NULL) == HLO_OK;
  hlo_diags_release(&quiet);
  if (!ok) return 0;
  hlo_fuse_options fo = {0};
  fo.kinds = HLO_FUSE_LOOP;
  return hlo_fuse_module(m, &fo, NULL, d);
}
