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

/* Bytes of the arrays in shape sh (tuples: all their arrays, nested too);
 * -1 when one of them has a dynamic dimension. */
static int64_t shape_bytes(const hlo_shape *sh) {
  if (sh->type == HLO_TUPLE) {
    int64_t total = 0;
    for (int k = 0; k < sh->ntuple; k++) {
      int64_t b = shape_bytes(&sh->tuple[k]);
      if (b < 0) return -1;
      total = total < INT64_MAX - b ? total + b : INT64_MAX;
    }
    return total;
  }
  int64_t b;
  if (sh->dynamic) return -1;
  return hlo_shape_bytes(sh, &b) && b > 0 ? b : 0;
}

/* Bytes of the results of m's instructions; -1 when one is dynamic. */
static int64_t result_bytes(const hlo_module *m) {
  int64_t total = 0;
  for (int i = 0; i < m->ncomps; i++)
    for (int j = 0; j < m->comps[i]->ninstrs; j++) {
      int64_t b = shape_bytes(&m->comps[i]->instrs[j]->shape);
      if (b < 0) return -1;
      total = total < INT64_MAX - b ? total + b : INT64_MAX;
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
