/* ref_gather.c - reference gather and scatter, following the index mapping
 * of operation_semantics (ops_catalog.md 3.4.1/3.4.2) including the batching
 * dimensions.  Gather clamps start indices so the slice fits; scatter skips
 * an update window that does not fit (XLA's behaviour). */
#include <string.h>

#include "exec/exec.h"

#define OOM(r, s) hlo_run_errorf((r), (s)->in, "out of memory")

/* Read the index vector for batch position G (coordinates of the index
 * array's dims other than ivd, in order) into S (nidx components). */
static void read_index(const hlo_val *idx, int ivd, const int64_t *G, int64_t *S, int nidx) {
  const hlo_shape *is = idx->shape;
  int64_t st[MAXR], full[MAXR];
  hlo_strides(is, st);
  for (int c = 0; c < nidx; c++) {
    int g = 0;
    for (int d = 0; d < is->rank; d++) full[d] = d == ivd ? c : G[g++];
    hlo_sc v = hlo_sc_load(is->type, idx->data, hlo_index_dot(is->rank, full, st));
    S[c] = hlo_type_kind_of(is->type) == HLO_KIND_UINT && v.i < 0 ? INT64_MAX : v.i;
  }
}

DECL_KERN(hlo_ref_gather) {
  const hlo_instruction *in = s->in;
  const hlo_shape *os = &in->shape, *ops = args[0]->shape, *is = args[1]->shape;
  int noff, ncol, nsim, nob, nsb, nss;
  const int64_t *offd = hlo_instr_ints_or_none(in, HLO_A_OFFSET_DIMS, &noff);
  const int64_t *col = hlo_instr_ints_or_none(in, HLO_A_COLLAPSED_SLICE_DIMS, &ncol);
  const int64_t *sim = hlo_instr_ints_or_none(in, HLO_A_START_INDEX_MAP, &nsim);
  const int64_t *obd = hlo_instr_ints_or_none(in, HLO_A_OPERAND_BATCHING_DIMS, &nob);
  const int64_t *sbd = hlo_instr_ints_or_none(in, HLO_A_START_INDICES_BATCHING_DIMS, &nsb);
  const int64_t *ss = hlo_instr_ints_or_none(in, HLO_A_SLICE_SIZES, &nss);
  int64_t ivd = hlo_instr_int(in, HLO_A_INDEX_VECTOR_DIM, is->rank);
  if (nss != ops->rank || ivd < 0 || ivd > is->rank || nob != nsb)
    return hlo_run_errorf(r, in, "bad gather dimension numbers");
  int nidx = ivd == is->rank ? 1 : (int)is->dims[ivd];
  if (nidx != nsim) return hlo_run_errorf(r, in, "start_index_map size mismatch");
  for (int k = 0; k < nsim; k++)
    if (sim[k] < 0 || sim[k] >= ops->rank) return hlo_run_errorf(r, in, "bad start_index_map");
  /* operand dims that offset dims map to, in order */
  int64_t offmap[MAXR];
  int nm = 0;
  for (int d = 0; d < ops->rank; d++)
    if (!hlo_ints_has(col, ncol, d) && !hlo_ints_has(obd, nob, d)) offmap[nm++] = d;
  if (nm != noff) return hlo_run_errorf(r, in, "offset_dims size mismatch");
  /* index-array dims other than ivd, in order (they pair with batch dims) */
  int64_t sdims[MAXR];
  int nsd = 0;
  for (int d = 0; d < is->rank; d++)
    if (d != ivd) sdims[nsd++] = d;
  hlo_val *o = hlo_run_new(r, os);
  if (!o) return OOM(r, s);
  /* An empty operand (a collapsed slice dim of bound 0) has nothing to
   * read: the result keeps the zeros it was made with, as in XLA. */
  if (args[0]->nelems == 0) {
    *out = o;
    return HLO_OK;
  }
  int64_t opst[MAXR], oi[MAXR] = {0}, G[MAXR], S[MAXR], In[MAXR];
  hlo_strides(ops, opst);
  size_t es = (size_t)hlo_type_bytes(os->type);
  for (int64_t k = 0; k < o->nelems; k++) {
    int g = 0;
    for (int d = 0; d < os->rank; d++)
      if (!hlo_ints_has(offd, noff, d)) G[g++] = oi[d];
    if (g != nsd) { hlo_run_release(r, o); return hlo_run_errorf(r, in, "batch dims mismatch"); }
    read_index(args[1], (int)ivd, G, S, nidx);
    for (int d = 0; d < ops->rank; d++) In[d] = 0;
    for (int c = 0; c < nsim; c++) {
      int64_t d = sim[c], hi = ops->dims[d] - ss[d];
      In[d] = S[c] < 0 ? 0 : S[c] > hi ? hi : S[c];
    }
    for (int b = 0; b < nob; b++) {
      int pos = 0;
      for (int j = 0; j < nsd; j++)
        if (sdims[j] == sbd[b]) pos = j;
      In[obd[b]] += G[pos];
    }
    for (int j = 0; j < noff; j++) In[offmap[j]] += oi[offd[j]];
    memcpy((char *)o->data + k * (int64_t)es,
           (char *)args[0]->data + hlo_index_dot(ops->rank, In, opst) * (int64_t)es, es);
    hlo_index_next(os->rank, os->dims, oi);
  }
  *out = o;
  return HLO_OK;
}

DECL_KERN(hlo_ref_scatter) {
  const hlo_instruction *in = s->in;
  int N = (s->nargs - 1) / 2;
  if (N < 1 || s->nargs != 2 * N + 1 || N > 16) return hlo_run_errorf(r, in, "bad operand count");
  hlo_val **opv = args, *idx = args[N], **upd = args + N + 1;
  const hlo_shape *ops = opv[0]->shape, *is = idx->shape, *us = upd[0]->shape;
  int nuw, niw, nsd2o, nib, nsb;
  const int64_t *uwd = hlo_instr_ints_or_none(in, HLO_A_UPDATE_WINDOW_DIMS, &nuw);
  const int64_t *iwd = hlo_instr_ints_or_none(in, HLO_A_INSERTED_WINDOW_DIMS, &niw);
  const int64_t *sdo = hlo_instr_ints_or_none(in, HLO_A_SCATTER_DIMS_TO_OPERAND_DIMS, &nsd2o);
  const int64_t *ibd = hlo_instr_ints_or_none(in, HLO_A_INPUT_BATCHING_DIMS, &nib);
  const int64_t *sbd = hlo_instr_ints_or_none(in, HLO_A_SCATTER_INDICES_BATCHING_DIMS, &nsb);
  int64_t ivd = hlo_instr_int(in, HLO_A_INDEX_VECTOR_DIM, is->rank);
  if (ivd < 0 || ivd > is->rank || nib != nsb) return hlo_run_errorf(r, in, "bad scatter dims");
  int nidx = ivd == is->rank ? 1 : (int)is->dims[ivd];
  if (nidx != nsd2o) return hlo_run_errorf(r, in, "scatter_dims_to_operand_dims size mismatch");
  for (int k = 0; k < nsd2o; k++)
    if (sdo[k] < 0 || sdo[k] >= ops->rank) return hlo_run_errorf(r, in, "bad scatter dims");
  int64_t winmap[MAXR];
  int nm = 0;
  for (int d = 0; d < ops->rank; d++)
    if (!hlo_ints_has(iwd, niw, d) && !hlo_ints_has(ibd, nib, d)) winmap[nm++] = d;
  if (nm != nuw) return hlo_run_errorf(r, in, "update_window_dims size mismatch");
  int64_t sdims[MAXR];
  int nsd = 0;
  for (int d = 0; d < is->rank; d++)
    if (d != ivd) sdims[nsd++] = d;
  /* window extent per operand dim */
  int64_t wsize[MAXR];
  for (int d = 0; d < ops->rank; d++) wsize[d] = 1;
  for (int j = 0; j < nuw; j++) wsize[winmap[j]] = us->dims[uwd[j]];
  const plan_comp *pc = r->e->plans[in->called[0]->id];
  hlo_val *o = hlo_run_new(r, &in->shape);
  if (!o) return OOM(r, s);
  hlo_val *res[16];
  for (int i = 0; i < N; i++) {
    res[i] = N == 1 ? o : o->tuple[i];
    if (res[i]->nbytes) memcpy(res[i]->data, opv[i]->data, res[i]->nbytes);
  }
  int64_t opst[MAXR], ui[MAXR] = {0}, G[MAXR], S[MAXR], In[MAXR];
  hlo_strides(ops, opst);
  hlo_sc x[32], y[16];
  for (int64_t k = 0; k < upd[0]->nelems; k++) {
    int g = 0;
    for (int d = 0; d < us->rank; d++)
      if (!hlo_ints_has(uwd, nuw, d)) G[g++] = ui[d];
    read_index(idx, (int)ivd, G, S, nidx);
    for (int d = 0; d < ops->rank; d++) In[d] = 0;
    for (int c = 0; c < nsd2o; c++) In[sdo[c]] = S[c];
    for (int b = 0; b < nib; b++) {
      int pos = 0;
      for (int j = 0; j < nsd; j++)
        if (sdims[j] == sbd[b]) pos = j;
      In[ibd[b]] = G[pos];
    }
    bool ok = true;
    for (int d = 0; d < ops->rank; d++)
      if (In[d] < 0 || In[d] > ops->dims[d] - wsize[d]) ok = false;
    if (ok) {
      for (int j = 0; j < nuw; j++) In[winmap[j]] += ui[uwd[j]];
      int64_t oo = hlo_index_dot(ops->rank, In, opst);
      for (int i = 0; i < N; i++) {
        x[i] = hlo_sc_load(res[i]->shape->type, res[i]->data, oo);
        x[N + i] = hlo_sc_load(upd[i]->shape->type, upd[i]->data, k);
      }
      if (hlo_run_scalar(r, pc, x, 2 * N, y, N)) { hlo_run_release(r, o); return HLO_ERR; }
      for (int i = 0; i < N; i++) hlo_sc_store(res[i]->shape->type, res[i]->data, oo, y[i]);
    }
    hlo_index_next(us->rank, us->dims, ui);
  }
  *out = o;
  return HLO_OK;
}
