/* infer_gather.c - shape rules of gather and scatter, including the
 * batching dimensions (operand_batching_dims / input_batching_dims). */
#include <string.h>

#include "shape/infer_internal.h"

static int sorted_unique(infer_ctx *c, const char *what, const int64_t *v, int n) {
  for (int i = 1; i < n; i++)
    if (v[i] <= v[i - 1]) return sx_fail(c, "%s in gather/scatter op must be sorted and unique; got %lld after %lld.",
                                         what, (long long)v[i], (long long)v[i - 1]);
  return HLO_OK;
}

int hlo_shape_infer_gather(infer_ctx *c) {
  if (sx_need_array(c, 0, "gather") || sx_need_array(c, 1, "gather")) return HLO_ERR;
  const hlo_shape *op = sx_op(c, 0), *ix = sx_op(c, 1);
  const hlo_instruction *in = c->in;
  int noff, ncol, nmap, nobat, nsbat, nss;
  const int64_t *off = hlo_instr_ints(in, HLO_A_OFFSET_DIMS, &noff);
  const int64_t *col = hlo_instr_ints(in, HLO_A_COLLAPSED_SLICE_DIMS, &ncol);
  const int64_t *map = hlo_instr_ints(in, HLO_A_START_INDEX_MAP, &nmap);
  const int64_t *obat = hlo_instr_ints(in, HLO_A_OPERAND_BATCHING_DIMS, &nobat);
  const int64_t *sbat = hlo_instr_ints(in, HLO_A_START_INDICES_BATCHING_DIMS, &nsbat);
  const int64_t *ss = hlo_instr_ints(in, HLO_A_SLICE_SIZES, &nss);
  int64_t ivd = hlo_instr_int(in, HLO_A_INDEX_VECTOR_DIM, ix->rank);
  if (!hlo_type_is_int(ix->type))
    return sx_fail(c, "Gather indices parameter must be an integral tensor; got %s.", sx_str(c, ix));
  if (ivd < 0 || ivd > ix->rank)
    return sx_fail(c, "Gather index leaf dimension must be within [0, rank(start_indices) + 1). rank(start_indices) is %d and gather index leaf dimension is %lld.",
                   ix->rank, (long long)ivd);
  int64_t ivsize = ivd < ix->rank ? ix->dims[ivd] : 1;
  if (sorted_unique(c, "Output window dimensions (offset_dims)", off, noff) ||
      sorted_unique(c, "collapsed_slice_dims", col, ncol) || sorted_unique(c, "operand_batching_dims", obat, nobat))
    return HLO_ERR;
  if (noff + ncol + nobat != op->rank)
    return sx_fail(c, "All components of the offset index in a gather op must either be a offset dimension or explicitly collapsed/batching; got len(slice_sizes)=%d, output_slice_sizes=%d, collapsed_slice_dims=%d, operand_batching_dims=%d.",
                   nss, noff, ncol, nobat);
  if (nmap != ivsize)
    return sx_fail(c, "Gather op has %d elements in start_index_map and the bound of dimension index_vector_dim=%lld of start_indices is %lld. These two numbers must be equal.",
                   nmap, (long long)ivd, (long long)ivsize);
  if (sx_dims_in_range(c, "start_index_map", map, nmap, op->rank) ||
      sx_dims_in_range(c, "collapsed_slice_dims", col, ncol, op->rank) ||
      sx_dims_in_range(c, "operand_batching_dims", obat, nobat, op->rank) ||
      sx_dims_in_range(c, "start_indices_batching_dims", sbat, nsbat, ix->rank) ||
      sx_dims_unique(c, "start_indices_batching_dims", sbat, nsbat))
    return HLO_ERR;
  for (int i = 0; i < nmap; i++)
    for (int j = 0; j < i; j++)
      if (map[i] == map[j])
        return sx_fail(c, "Repeated dimensions are not allowed in start_index_map; got %lld twice.", (long long)map[i]);
  for (int i = 0; i < nobat; i++) {
    if (hlo_ints_contain(col, ncol, obat[i]))
      return sx_fail(c, "operand_batching_dims and collapsed_slice_dims must be disjoint; %lld is in both.", (long long)obat[i]);
    if (hlo_ints_contain(map, nmap, obat[i]))
      return sx_fail(c, "operand_batching_dims and start_index_map must be disjoint; %lld is in both.", (long long)obat[i]);
  }
  if (hlo_ints_contain(sbat, nsbat, ivd))
    return sx_fail(c, "start_indices_batching_dims must not contain index_vector_dim %lld.", (long long)ivd);
  if (nobat != nsbat)
    return sx_fail(c, "operand_batching_dims and start_indices_batching_dims must have the same size; got %d and %d.",
                   nobat, nsbat);
  for (int i = 0; i < nobat; i++)
    if (op->dims[obat[i]] != ix->dims[sbat[i]])
      return sx_fail(c, "Gather batching dimension sizes differ: operand dim %lld is %lld, start_indices dim %lld is %lld.",
                     (long long)obat[i], (long long)op->dims[obat[i]], (long long)sbat[i], (long long)ix->dims[sbat[i]]);
  if (nss != op->rank)
    return sx_fail(c, "Gather op must have one slice size for every input dimension; got: len(slice_sizes)=%d, input_shape.rank=%d.",
                   nss, op->rank);
  for (int i = 0; i < nss; i++) {
    if (ss[i] < 0 || (op->dims[i] != HLO_DIM_UNBOUNDED && ss[i] > op->dims[i]))
      return sx_fail(c, "Slice size at index %d in gather op is out of range, must be within [0, %lld], got %lld.", i,
                     (long long)op->dims[i], (long long)ss[i]);
    if ((hlo_ints_contain(col, ncol, i) || hlo_ints_contain(obat, nobat, i)) && ss[i] > 1)
      return sx_fail(c, "Gather op can only collapse slice dims with bound 1 or 0, but bound is %lld for index %d at position %d.",
                     (long long)ss[i], i, i);
  }
  int batch_rank = ix->rank - (ivd < ix->rank ? 1 : 0);
  int orank = batch_rank + noff;
  if (noff && (off[noff - 1] >= orank || off[0] < 0))
    return sx_fail(c, "Offset dimension %lld in gather op is out of bounds for an output of rank %d.",
                   (long long)off[noff - 1], orank);
  int64_t dims[orank ? orank : 1];
  int from[orank ? orank : 1];
  int bi = 0, oi = 0;
  for (int d = 0; d < orank; d++) {
    from[d] = -1;
    if (hlo_ints_contain(off, noff, d)) {
      while (oi < nss && (hlo_ints_contain(col, ncol, oi) || hlo_ints_contain(obat, nobat, oi))) oi++;
      dims[d] = ss[oi++];
    } else {
      if (bi == ivd) bi++;
      from[d] = bi;
      dims[d] = ix->dims[bi++];
    }
  }
  if (sx_array(c, op->type, orank, dims)) return HLO_ERR;
  for (int d = 0; d < orank; d++) /* batch dimensions keep the indices' dynamic marks */
    if (from[d] >= 0 && sx_keep_dynamic(c, d, ix, from[d])) return HLO_ERR;
  return HLO_OK;
}

int hlo_shape_infer_scatter(infer_ctx *c) {
  const hlo_instruction *in = c->in;
  if (in->noperands < 3 || in->noperands % 2 == 0)
    return sx_fail(c, "scatter takes N operands, the indices and N updates (an odd count >= 3); got %d.", in->noperands);
  int n = (in->noperands - 1) / 2;
  for (int i = 0; i < in->noperands; i++)
    if (sx_need_array(c, i, "scatter")) return HLO_ERR;
  const hlo_shape *op = sx_op(c, 0), *ix = sx_op(c, n), *up = sx_op(c, n + 1);
  for (int i = 1; i < n; i++)
    if (!hlo_shape_xla_compatible(&(hlo_shape){.type = op->type, .rank = sx_op(c, i)->rank, .dims = sx_op(c, i)->dims},
                                  op, true))
      return sx_fail(c, "Scatter operands must all have the same dimensions; got %s and %s.", sx_str(c, op),
                     sx_str(c, sx_op(c, i)));
  for (int i = 0; i < n; i++) {
    const hlo_shape *u = sx_op(c, n + 1 + i), *o = sx_op(c, i);
    if (!sx_same_dims(u, up))
      return sx_fail(c, "Scatter updates must all have the same dimensions; got %s and %s.", sx_str(c, up), sx_str(c, u));
    if (!sx_same_type_fp(u->type, o->type))
      return sx_fail(c, "Expected the updates %d (%s) to have the element type of the operand (%s).", i,
                     sx_str(c, u), hlo_type_name(o->type));
  }
  if (!hlo_type_is_int(ix->type))
    return sx_fail(c, "Scatter indices parameter must be an integral tensor; got %s.", sx_str(c, ix));
  int nuw, niw, nmap, nibat, nsbat;
  const int64_t *uw = hlo_instr_ints(in, HLO_A_UPDATE_WINDOW_DIMS, &nuw);
  const int64_t *iw = hlo_instr_ints(in, HLO_A_INSERTED_WINDOW_DIMS, &niw);
  const int64_t *map = hlo_instr_ints(in, HLO_A_SCATTER_DIMS_TO_OPERAND_DIMS, &nmap);
  const int64_t *ibat = hlo_instr_ints(in, HLO_A_INPUT_BATCHING_DIMS, &nibat);
  const int64_t *sbat = hlo_instr_ints(in, HLO_A_SCATTER_INDICES_BATCHING_DIMS, &nsbat);
  int64_t ivd = hlo_instr_int(in, HLO_A_INDEX_VECTOR_DIM, ix->rank);
  if (ivd < 0 || ivd > ix->rank)
    return sx_fail(c, "Scatter index leaf dimension must be within [0, rank(scatter_indices) + 1). rank(scatter_indices) is %d and scatter index leaf dimension is %lld.",
                   ix->rank, (long long)ivd);
  if (sorted_unique(c, "update_window_dims", uw, nuw) || sorted_unique(c, "inserted_window_dims", iw, niw) ||
      sorted_unique(c, "input_batching_dims", ibat, nibat) ||
      sx_dims_in_range(c, "update_window_dims", uw, nuw, up->rank) ||
      sx_dims_in_range(c, "inserted_window_dims", iw, niw, op->rank) ||
      sx_dims_in_range(c, "input_batching_dims", ibat, nibat, op->rank) ||
      sx_dims_in_range(c, "scatter_indices_batching_dims", sbat, nsbat, ix->rank) ||
      sx_dims_unique(c, "scatter_indices_batching_dims", sbat, nsbat))
    return HLO_ERR;
  for (int i = 0; i < nibat; i++)
    if (hlo_ints_contain(iw, niw, ibat[i]))
      return sx_fail(c, "inserted_window_dims and input_batching_dims must be disjoint; %lld is in both.", (long long)ibat[i]);
  if (nuw + niw + nibat != op->rank)
    return sx_fail(c, "Scatter op has window of size %d; doesn't match operand of rank %d.", nuw + niw + nibat, op->rank);
  int64_t ivsize = ivd < ix->rank ? ix->dims[ivd] : 1;
  if (nmap != ivsize)
    return sx_fail(c, "Scatter op has %d elements in scatter_dims_to_operand_dims and the bound of dimension index_vector_dim=%lld of scatter_indices is %lld. These two numbers must be equal.",
                   nmap, (long long)ivd, (long long)ivsize);
  for (int i = 0; i < nmap; i++) {
    if (map[i] < 0 || map[i] >= op->rank)
      return sx_fail(c, "Invalid scatter_dims_to_operand_dims mapping; domain is [0, %d), got: %d->%lld.", op->rank, i,
                     (long long)map[i]);
    for (int j = 0; j < i; j++)
      if (map[j] == map[i])
        return sx_fail(c, "Repeated dimensions not allowed in scatter_dims_to_operand_dims; got: %lld.", (long long)map[i]);
    if (hlo_ints_contain(ibat, nibat, map[i]))
      return sx_fail(c, "scatter_dims_to_operand_dims and input_batching_dims must be disjoint; %lld is in both.", (long long)map[i]);
  }
  if (hlo_ints_contain(sbat, nsbat, ivd))
    return sx_fail(c, "scatter_indices_batching_dims must not contain index_vector_dim %lld.", (long long)ivd);
  if (nibat != nsbat)
    return sx_fail(c, "input_batching_dims and scatter_indices_batching_dims must have the same size; got %d and %d.",
                   nibat, nsbat);
  for (int i = 0; i < nibat; i++)
    if (op->dims[ibat[i]] != ix->dims[sbat[i]])
      return sx_fail(c, "Scatter batching dimension sizes differ: operand dim %lld is %lld, indices dim %lld is %lld.",
                     (long long)ibat[i], (long long)op->dims[ibat[i]], (long long)sbat[i], (long long)ix->dims[sbat[i]]);
  int expect_rank = nuw + ix->rank - (ivd < ix->rank ? 1 : 0);
  if (up->rank != expect_rank)
    return sx_fail(c, "Updates tensor must be of rank %d; got %d.", expect_rank, up->rank);
  /* window bounds */
  int wi = 0;
  for (int d = 0; d < op->rank; d++) {
    if (hlo_ints_contain(iw, niw, d) || hlo_ints_contain(ibat, nibat, d)) continue;
    if (wi >= nuw) break;
    int64_t ub = up->dims[uw[wi]];
    if (ub != HLO_DIM_UNBOUNDED && op->dims[d] != HLO_DIM_UNBOUNDED && (ub < 0 || ub > op->dims[d]))
      return sx_fail(c, "Bounds of the window dimensions of updates must not exceed the bounds of the corresponding dimensions of operand. For dimension %lld, updates bound is %lld, operand bound is %lld.",
                     (long long)uw[wi], (long long)ub, (long long)op->dims[d]);
    wi++;
  }
  /* scatter dims */
  int si = 0;
  for (int d = 0; d < up->rank; d++) {
    if (hlo_ints_contain(uw, nuw, d)) continue;
    if (si == ivd) si++;
    if (si >= ix->rank) break;
    if (up->dims[d] != ix->dims[si] && up->dims[d] != HLO_DIM_UNBOUNDED && ix->dims[si] != HLO_DIM_UNBOUNDED)
      return sx_fail(c, "Bounds of the scatter dimensions of updates must be same as the bounds of the corresponding dimensions of scatter indices. For scatter dimension %d, updates bound is %lld, scatter_indices bound is %lld.",
                     d, (long long)up->dims[d], (long long)ix->dims[si]);
    si++;
  }
  if (n == 1) return sx_copy(c, op);
  const hlo_shape **el = SX_TMP(c, n, const hlo_shape *);
  if (!el) return HLO_ERR;
  for (int i = 0; i < n; i++) el[i] = sx_op(c, i);
  return sx_tuple(c, n, el);
}
