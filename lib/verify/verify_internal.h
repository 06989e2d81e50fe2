/* verify_internal.h - context and helpers shared by the verifier's files
 * (structure, called-computation signatures, op checks, the driver). */
#ifndef HLO_VERIFY_INTERNAL_H
#define HLO_VERIFY_INTERNAL_H

#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_verify.h"

typedef struct vctx {
  const hlo_module *m;
  hlo_verify_options o;
  hlo_diags *d;
  const hlo_src *src;
  hlo_arena scratch; /* message strings and temporary shapes */
  int nerr;
} vctx;

/* Record "%name: msg" at the instruction (counts the error). */
void vx_fail(vctx *v, const hlo_instruction *in, const char *fmt, ...) HLO_PRINTF(3, 4);
/* Record msg at a raw offset. */
void vx_fail_at(vctx *v, size_t off, const char *fmt, ...) HLO_PRINTF(3, 4);
const char *vx_str(vctx *v, const hlo_shape *s);
const char *vx_str_layout(vctx *v, const hlo_shape *s);
/* Compatible (XLA), and with layouts when layout_sensitive. */
bool vx_same(const vctx *v, const hlo_shape *a, const hlo_shape *b);
/* Minor-to-major equality of two array layouts (missing = default). */
bool vx_layout_equal(const hlo_shape *a, const hlo_shape *b);
bool vx_has_unbounded(const hlo_shape *s);

void hlo_verify_structure(vctx *v);
void hlo_verify_calls(vctx *v, const hlo_instruction *in);
void hlo_verify_op(vctx *v, const hlo_instruction *in);
void hlo_verify_sharding(vctx *v, const hlo_instruction *in);

#endif
