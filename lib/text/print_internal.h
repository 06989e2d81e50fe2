/* print_internal.h - what print.c and print_module.c share: XLA's async
 * syntax sugar (an async op whose wrapped computation is one instruction
 * over parameters prints as "<op>-start/-update/-done" and the wrapped
 * computation is left out of the module text). */
#ifndef HLO_TEXT_PRINT_INTERNAL_H
#define HLO_TEXT_PRINT_INTERNAL_H

#include "hlo/hlo_text.h"

/* The computation an async-start calls (calls=), or for async-update and
 * async-done the one of the async-start their operand chain leads to;
 * NULL if there is none. */
const hlo_computation *hlo_text_async_computation(const hlo_instruction *in);

/* The instruction an async op stands for when XLA prints it in the sugared
 * form: the root of its wrapped computation when every other instruction
 * of that computation is a parameter (HloComputation::
 * CanExpandIntoSingleInstruction).  NULL for other instructions.  plain
 * is hlo_text_plain_callees' table for the module, or NULL to look for
 * other callers by scanning the module. */
const hlo_instruction *hlo_text_async_sugar(const hlo_instruction *in, const bool *plain);

/* By computation id, whether an instruction other than an async op calls
 * it (such a computation keeps its explicit async form): one pass over
 * the module, so that printing stays linear.  NULL on allocation failure
 * or an empty module. */
bool *hlo_text_plain_callees(hlo_arena *a, const hlo_module *m);

/* hlo_print_instruction and hlo_print_computation with that table. */
int hlo_text_print_instruction(hlo_buf *b, const hlo_instruction *in, const hlo_print_options *o, const bool *plain);
int hlo_text_print_computation(hlo_buf *b, const hlo_computation *c, const hlo_print_options *o, const bool *plain);

/* Attributes every instruction may carry, which XLA prints after the
 * opcode-specific ones (sharding, metadata, backend_config, ...): the
 * sugared form takes the wrapped op's other attributes. */
bool hlo_text_generic_attr(hlo_attr_key k);

/* The separator XLA writes before element i of a shape list (tuple
 * elements, parameters): nothing before the first, ", " and, before every
 * fifth, an index comment ("index=5" between slash-star and star-slash). */
void hlo_text_list_sep(hlo_buf *b, int i);

/* A literal's values as XLA writes them on one line; with shapes, every
 * array preceded by its shape with layout ("s32[2]{0} {1, 2}", tuples as
 * "( element, element )"), as LiteralBase::PrintWithLayoutOneline does. */
void hlo_text_literal(hlo_buf *b, const hlo_literal *l, const hlo_print_options *o, bool shapes);

/* XLA's printing order (print_order.c): the instructions of c, and the
 * computations of m, as arrays in arena a of c->ninstrs / m->ncomps
 * entries.  HLO_ERR on allocation failure. */
int hlo_text_instr_order(hlo_arena *a, const hlo_computation *c, const hlo_instruction ***out);
int hlo_text_comp_order(hlo_arena *a, const hlo_module *m, const hlo_computation ***out);

/* s in double quotes with C-style escapes, as XLA's CEscape writes them. */
void hlo_text_quoted(hlo_buf *b, const char *s);

/* The stack frame index section (stack_frames.c), from its leading blank
 * lines to the last frame's line; nothing when m has none. */
void hlo_text_stack_frames(hlo_buf *b, const hlo_module *m);

#endif
