/* imap_rtvar.c - runtime variables of dynamic-slice, dynamic-update-slice
 * and gather maps: which instruction supplies each value and through which
 * map, and the folding XLA's indexing analysis does when that instruction
 * is a constant (read the value at a constant index, if it is feasible) or
 * an iota (the index along the iota dimension). */
#include <string.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"
#include "index/imap_ops.h"

/* The integer element of constant k at the constant index of vm, if there
 * is one. */
static bool constant_value(const hlo_instruction *k, const imap_map *vm, int64_t *out) {
  const hlo_literal *l = k->literal;
  if (!l || !l->data || l->elided || !hlo_shape_is_array(&l->shape) || l->shape.rank != vm->nresults)
    return false;
  hlo_type_kind kind = hlo_type_kind_of(l->shape.type);
  if (kind != HLO_KIND_SINT && kind != HLO_KIND_UINT && kind != HLO_KIND_PRED) return false;
  int64_t off = 0;
  for (int i = 0; i < vm->nresults; i++) {
    const imap_expr *e = vm->results[i];
    if (e->kind != IMAP_CONST || e->v < 0 || e->v >= l->shape.dims[i]) return false;
    off = off * l->shape.dims[i] + e->v;
  }
  if (off >= l->nelems) return false;
  int bytes = hlo_type_bytes(l->shape.type), bits = hlo_type_bits(l->shape.type);
  const unsigned char *p = (const unsigned char *)l->data + off * bytes;
  uint64_t u = 0;
  memcpy(&u, p, (size_t)bytes); /* little-endian host, as the literal reader */
  if (bits < 64) {
    u &= (UINT64_C(1) << bits) - 1;
    if (kind == HLO_KIND_SINT && (u >> (bits - 1)) & 1) u |= ~((UINT64_C(1) << bits) - 1);
  } else if (kind == HLO_KIND_UINT && u > INT64_MAX) {
    return false;
  }
  memcpy(out, &u, sizeof u);
  return true;
}

int imap_attach_rtvars(imap_ctx *c, imap_map **pm, const hlo_instruction *const *hlos, imap_map *const *maps) {
  imap_map *m = *pm;
  imap_rtvar *rv = imap_alloc(c, (size_t)m->nrts, sizeof *rv);
  const imap_expr **repl = imap_alloc(c, (size_t)m->nrts, sizeof *repl);
  if (m->nrts && (!rv || !repl)) return HLO_ERR;
  bool folded = false;
  for (int j = 0; j < m->nrts; j++) {
    if (!maps[j]) return HLO_ERR;
    rv[j] = (imap_rtvar){hlos[j], maps[j]};
    const hlo_instruction *h = hlos[j];
    int64_t v;
    if (h->op == HLO_OP_CONSTANT && constant_value(h, maps[j], &v)) {
      if (v >= m->rts[j].lo && v <= m->rts[j].hi) repl[j] = imap_const(c, v);
    } else if (h->op == HLO_OP_IOTA) {
      int64_t dim = hlo_instr_int(h, HLO_A_IOTA_DIMENSION, -1);
      if (dim >= 0 && dim < maps[j]->nresults) repl[j] = maps[j]->results[dim];
    }
    folded |= repl[j] != NULL;
  }
  m->rtvars = rv;
  if (!folded || m->state != IMAP_DEFINED) return HLO_OK;
  for (int i = 0; i < m->nresults; i++)
    if (!(m->results[i] = imap_subst(c, m->results[i], NULL, 0, NULL, 0, repl, m->nrts))) return HLO_ERR;
  imap_map *r = imap_remove_unused_symbols(c, m);
  if (!r) return HLO_ERR;
  *pm = r;
  return HLO_OK;
}
