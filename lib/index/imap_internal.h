/* imap_internal.h - helpers shared by the lib/index files: arena
 * allocation through the ctx, floor/ceil integer division, gcd, saturating
 * interval arithmetic and growable per-map arrays. */
#ifndef IMAP_INTERNAL_H
#define IMAP_INTERNAL_H

#include "hlo/hlo_imap.h"

/* n elements of sz bytes from the ctx arena; marks the ctx failed on NULL. */
void *imap_alloc(imap_ctx *c, size_t n, size_t sz);
const imap_expr *imap_fail_overflow(imap_ctx *c);

int64_t imap_floor_div(int64_t a, int64_t b); /* b != 0, no INT64_MIN / -1 */
int64_t imap_ceil_div(int64_t a, int64_t b);
int64_t imap_floor_mod(int64_t a, int64_t b);
int64_t imap_gcd(int64_t a, int64_t b);       /* >= 0; 0 if not representable */

/* Saturating arithmetic for ranges. */
int64_t imap_sat_add(int64_t a, int64_t b);
int64_t imap_sat_mul(int64_t a, int64_t b);

bool imap_is_var(const imap_expr *e);
/* Pointer to the bounds of variable (k, i) in m, NULL if out of range. */
imap_interval *imap_map_var_ptr(imap_map *m, imap_kind k, int i);
/* Some variable's interval is empty (XLA's VerifyVariableIntervals fails). */
bool imap_domain_empty(const imap_map *m);
/* Name variable (k, i) of m (an arena string that outlives m; m->names is
   allocated on the first name).  HLO_ERR on allocation failure. */
int imap_map_set_name(imap_ctx *c, imap_map *m, imap_kind k, int i, const char *name);
/* Give variable (dk, di) of dst the name of variable (sk, si) of src, if it
   has one.  HLO_ERR on allocation failure. */
int imap_map_carry_name(imap_ctx *c, imap_map *dst, imap_kind dk, int di, const imap_map *src, imap_kind sk,
                        int si);

#endif
