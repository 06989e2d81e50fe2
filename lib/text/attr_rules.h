/* attr_rules.h - the per-opcode attribute sets XLA's parser enforces
 * (attr_rules.c). */
#ifndef HLO_ATTR_RULES_H
#define HLO_ATTR_RULES_H

#include "text/scan.h"

/* Every attribute of in is allowed on its opcode and every required one is
 * there; attrs_at is where its attribute list starts (for a missing one).
 * Operands must be resolved or placeholders. */
int check_instr_attrs(scanner *scn, const hlo_instruction *in, size_t attrs_at);
/* A computation takes only execution_thread. */
int check_comp_attrs(scanner *scn, const hlo_computation *c);
/* The module header takes XLA's module attributes only. */
int check_module_attrs(scanner *scn, const hlo_module *m);

/* Enumerated attribute values (attr_words.c): each word of in's
 * attributes is one XLA's parser takes (an error at the attribute
 * otherwise), rewritten to the spelling XLA prints. */
int check_attr_words(scanner *scn, hlo_instruction *in);
/* The attribute holds the value XLA leaves out when printing
 * (padding_type=PADDING_INVALID, schedule=SCHEDULE_NONE, algorithm=unset,
 * convolution_kind=unset, every operand precision default). */
bool attr_word_is_default(const hlo_instruction *in, const hlo_attr *a);

#endif
