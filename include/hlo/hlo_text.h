/* hlo_text.h - HLO text: parsing into the IR and printing back.
 *
 * The parser accepts the grammar XLA's printer writes (and its parser
 * reads): optional "HloModule name, attrs" header, computations with or
 * without ENTRY/ROOT, names with or without '%', optional operand shapes,
 * nested operand form, every comment form, several modules in one file
 * separated by a line "// -----".  Errors are recorded in an hlo_diags as
 * file:line:col diagnostics; nothing is printed. */
#ifndef HLO_TEXT_H
#define HLO_TEXT_H

#include "hlo/hlo_ir.h"

typedef struct hlo_parse_options {
  int max_depth;       /* nesting limit for tuples/literals/operands; 0 = 256 */
  bool keep_layouts;   /* do not fill missing layouts with the default */
} hlo_parse_options;

/* End offset of the module chunk that starts at `begin`: the offset of the
 * next line "// -----" (exclusive), or src->len.  *next is set to where the
 * following chunk starts (src->len if none). */
HLO_API size_t hlo_module_chunk_end(const hlo_src *src, size_t begin, size_t *next);

/* True if [begin, end) of src holds only blanks and // comments (an empty
 * chunk, e.g. after a final "// -----"). */
HLO_API bool hlo_chunk_is_blank(const hlo_src *src, size_t begin, size_t end);

/* Parse the module text in [begin, end) of src.  Returns the module (free
 * with hlo_module_free) or NULL, with every error found recorded in d.
 * opts may be NULL.  The module does not point into src. */
HLO_API hlo_module *hlo_parse_module(const hlo_src *src, size_t begin, size_t end,
                                     const hlo_allocator *alloc, hlo_diags *d,
                                     const hlo_parse_options *opts);

/* Parse a shape such as "(f32[2,3]{1,0}, s32[])" (used by tools and tests). */
HLO_API int hlo_parse_shape(const hlo_src *src, hlo_arena *arena, hlo_shape *out, hlo_diags *d);
/* Parse a sharding such as "{devices=[2]0,1}" or "{mesh['x'=2], [{'x'}]}"
 * (XLA's ParseSharding), or a replica_groups value such as "{{0,1}}",
 * "[2,2]<=[4]" or "mesh['x'=2,'y'=2] {'y'}"; values live in arena. */
HLO_API int hlo_parse_sharding(const hlo_src *src, hlo_arena *arena, hlo_sharding *out, hlo_diags *d);
HLO_API int hlo_parse_replica_groups(const hlo_src *src, hlo_arena *arena, hlo_replica_groups *out,
                                     hlo_diags *d);

typedef struct hlo_print_options {
  bool operand_shapes;   /* XLA's long form: "add(f32[2] %a, f32[2] %b)" */
  bool short_form;       /* no '%' sigils, no metadata */
  bool elide_constants;  /* print large constants as {...} */
  bool shortest_floats;  /* shortest round-trip decimals instead of XLA's */
  bool no_layouts;       /* omit layouts from shapes */
} hlo_print_options;

/* Append the text of the whole module / one computation / one instruction /
 * a shape / a literal to b.  opts may be NULL (XLA's default style).
 * Return HLO_ERR if b ran out of memory. */
HLO_API int hlo_print_module(hlo_buf *b, const hlo_module *m, const hlo_print_options *opts);
HLO_API int hlo_print_computation(hlo_buf *b, const hlo_computation *c, const hlo_print_options *opts);
HLO_API int hlo_print_instruction(hlo_buf *b, const hlo_instruction *in, const hlo_print_options *opts);
HLO_API int hlo_print_shape(hlo_buf *b, const hlo_shape *s, bool with_layout);
/* A shape as XLA's messages write it ("f32[<=4,?]{1,0}", "(s32[], token[])":
 * no tuple index comments, no layout on scalars), NUL-terminated in arena a
 * (NULL on failure).  Layouts only if with_layout.  The same printer as
 * hlo_print_shape. */
HLO_API char *hlo_shape_str(hlo_arena *a, const hlo_shape *s, bool with_layout);
HLO_API int hlo_print_literal(hlo_buf *b, const hlo_literal *l, const hlo_print_options *opts);
/* The value text of one attribute (what follows "name="). */
HLO_API int hlo_print_attr_value(hlo_buf *b, const hlo_attr *a, const hlo_print_options *opts);

#endif
