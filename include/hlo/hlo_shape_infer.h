/* hlo_shape_infer.h - result-shape inference for every HLO opcode, following
 * XLA's ShapeInference rules, plus the helpers the verifier and tools share
 * (shape text for messages, XLA's notion of compatible shapes).
 *
 * Inference reads only the instruction's operands, attributes and called
 * computations (whose root shapes must already be known).  Ops whose result
 * cannot be derived from them (reshape, broadcast, iota, rng, custom-call,
 * parameter, ...) check what they can and return the declared shape. */
#ifndef HLO_SHAPE_INFER_H
#define HLO_SHAPE_INFER_H

#include "hlo/hlo_ir.h"

/* Infer the result shape of `in` into *out (allocated in arena a).  Where
 * the result element type is not determined by the operands (convert,
 * bitcast-convert, dot/convolution with a preferred element type) the
 * declared type is used when the shape was written.  Returns HLO_OK, or
 * HLO_ERR after recording in d (at in->off, naming the instruction) every
 * broken shape constraint found.  src may be NULL. */
/* Instructions that name more called computations than this are refused by
 * inference and the verifier (some rules keep per-computation arrays on the
 * stack; operand counts are bounded by hlo_shape_operand_count_ok). */
#define HLO_INFER_MAX_OPERANDS 16384
HLO_API int hlo_infer_shape(const hlo_instruction *in, hlo_arena *a, hlo_shape *out,
                            hlo_diags *d, const hlo_src *src);

/* Whether the instruction has an operand count its opcode's rules accept
 * (the table's arity, or a range for ops the table lists as variadic).
 * The accepted range goes to *lo / *hi (either may be NULL). */
HLO_API bool hlo_shape_operand_count_ok(const hlo_instruction *in, int *lo, int *hi);

/* Fill in the result shape of every instruction written without one
 * (shape_omitted), in dependency order: called computations first, operands
 * before users.  Filled shapes get default layouts where inference gave
 * none.  Shapes are allocated in the module's arena; shape_omitted stays set
 * so printers can tell.  Returns HLO_ERR (with diagnostics) if any omitted
 * shape cannot be inferred; the others are still filled. */
HLO_API int hlo_shape_fill_omitted(hlo_module *m, hlo_diags *d, const hlo_src *src);

/* Re-infer the shape of every instruction (filling omitted ones).  A
 * declared shape that is not compatible with the inferred one is replaced
 * by it and a warning "%name: declared shape X differs from the inferred
 * shape Y" is recorded; *nchanged (may be NULL) counts them.  Returns
 * HLO_ERR if some shape could not be inferred (errors in d). */
HLO_API int hlo_shape_infer_module(hlo_module *m, hlo_diags *d, const hlo_src *src, int *nchanged);

/* XLA's ShapeUtil::Compatible: same element types (or, with
 * ignore_fp_precision, both floating point), same ranks and tuple
 * structure, equal dimension sizes where neither is unbounded ('?');
 * layouts and dynamic flags ignored. */
HLO_API bool hlo_shape_xla_compatible(const hlo_shape *a, const hlo_shape *b, bool ignore_fp_precision);

/* The element type with more precision of two floating types (a if equal
 * or not both floating). */
HLO_API hlo_type hlo_shape_higher_precision(hlo_type a, hlo_type b);

#endif
