/* ref_ragged_a2a.c - ragged-all-to-all with one replica.  HLO operand order:
 * input, output, input_offsets, send_sizes, output_offsets, recv_sizes.  Every
 * update is sent by replica 0 to itself, so the result is `output` with the rows
 * input[input_offsets[j] : +send_sizes[j]] copied to output_offsets[j]
 * (rows = slices along the outermost dimension). */
#include <string.h>

#include "exec/exec.h"

DECL_KERN(hlo_ref_ragged_all_to_all) {
  const hlo_instruction *in = s->in;
  const hlo_val *src = args[0], *dst = args[1];
  const hlo_val *io = args[2], *ss = args[3], *oo = args[4], *rsz = args[5];
  const hlo_shape *is = src->shape, *os = dst->shape;
  if (is->rank < 1 || os->rank != is->rank)
    return hlo_run_errorf(r, in, "input and output must have the same rank >= 1");
  for (int i = 1; i < is->rank; i++)
    if (is->dims[i] != os->dims[i])
      return hlo_run_errorf(r, in, "input and output differ beyond the outermost dimension");
  const hlo_val *meta[4] = {io, ss, oo, rsz};
  for (int k = 0; k < 4; k++) {
    const hlo_shape *m = meta[k]->shape;
    if (!hlo_type_is_int(m->type) || m->rank < 1 || m->rank > 2 || !hlo_shape_compatible(m, io->shape))
      return hlo_run_errorf(r, in, "offsets and sizes must be integer [replicas] or [replicas, updates] arrays of one shape");
  }
  if (io->shape->dims[0] != 1)
    return hlo_run_errorf(r, in, "offsets for %lld replicas; hlo-run runs one replica",
                          (long long)io->shape->dims[0]);
  hlo_val *o = hlo_run_new_raw(r, &in->shape);
  if (!o) return hlo_run_errorf(r, in, "out of memory");
  if (o->nbytes) memcpy(o->data, dst->data, o->nbytes);
  int64_t srows = is->dims[0], drows = os->dims[0];
  size_t row = srows ? src->nbytes / (size_t)srows : 0;
  for (int64_t j = 0; j < io->nelems; j++) {
    int64_t a = hlo_sc_load(io->shape->type, io->data, j).i;
    int64_t n = hlo_sc_load(ss->shape->type, ss->data, j).i;
    int64_t b = hlo_sc_load(oo->shape->type, oo->data, j).i;
    if (n < 0 || a < 0 || b < 0 || a > srows - n || b > drows - n) {
      hlo_run_release(r, o);
      return hlo_run_errorf(r, in, "update %lld: rows [%lld, +%lld) -> [%lld, +%lld) out of bounds",
                            (long long)j, (long long)a, (long long)n, (long long)b, (long long)n);
    }
    if (n && row)
      memmove((char *)o->data + (size_t)b * row, (const char *)src->data + (size_t)a * row,
              (size_t)n * row);
  }
  *out = o;
  return HLO_OK;
}
