/* imap_ops.h - internal interface between the per-op rules (imap_ops.c)
 * and the fusion composition (imap_fusion.c). */
#ifndef IMAP_OPS_H
#define IMAP_OPS_H

#include "hlo/hlo_imap.h"

const hlo_shape *imap_out_shape(const hlo_instruction *in, int output);
int imap_noutputs(const hlo_instruction *in);
int imap_indexing_init(imap_ctx *c, imap_indexing *x, int n);
imap_map *imap_reverse_map(imap_ctx *c, const hlo_shape *s, const int64_t *v, int cnt);
/* Output->input with a nesting depth for fusions inside fusions. */
int imap_output_to_input_depth(imap_ctx *c, const hlo_instruction *in, int output, imap_indexing *x,
                               hlo_diags *d, int depth);
int imap_fusion_output_to_input(imap_ctx *c, const hlo_instruction *in, int output, imap_indexing *x,
                                hlo_diags *d, int depth);
/* Record where each runtime variable of *m comes from (hlos[i] through
 * maps[i], both nrts long) and fold those supplied by a constant or an
 * iota; *m may be replaced by the folded map. */
int imap_attach_rtvars(imap_ctx *c, imap_map **m, const hlo_instruction *const *hlos, imap_map *const *maps);

#endif
