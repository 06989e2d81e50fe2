/* elided_fill.c - values for constants written as {...}.  XLA's parser
 * fills them by default (HloParserOptions::
 * fill_shortform_constants_with_random_values): one counter of 32-bit words
 * runs over every elided constant of the module in text order, each
 * constant's bytes taking the next words (little-endian), the bytes past the
 * last whole word taking the next values of a second, 8-bit counter; a pred
 * constant keeps only the low bit of each byte.  The values are
 * deterministic garbage, meant to let a module whose large constants were
 * left out of the dump run at all. */
#include <string.h>

#include "hlo/hlo_ir.h"

typedef struct counters {
  uint32_t word;
  uint8_t byte;
} counters;

static int fill(hlo_arena *a, hlo_literal *l, counters *c) {
  if (!l->elided || l->data || !hlo_type_is_array(l->shape.type)) return HLO_OK;
  int64_t n;
  if (!hlo_shape_elements(&l->shape, &n)) return HLO_ERR;
  size_t size = (size_t)n * (size_t)hlo_type_bytes(l->shape.type);
  unsigned char *d = hlo_arena_array(a, size ? size : 1, 1);
  if (!d) return HLO_ERR;
  const uint32_t mask = l->shape.type == HLO_PRED ? 0x01010101u : 0xffffffffu;
  size_t words = size / 4;
  for (size_t i = 0; i < words; i++) {
    uint32_t v = c->word++ & mask;
    d[4 * i] = (unsigned char)v, d[4 * i + 1] = (unsigned char)(v >> 8);
    d[4 * i + 2] = (unsigned char)(v >> 16), d[4 * i + 3] = (unsigned char)(v >> 24);
  }
  for (size_t i = 0; i < size % 4; i++) d[4 * words + i] = (unsigned char)(c->byte++ & mask);
  l->data = d;
  l->nelems = n;
  return HLO_OK;
}

int hlo_module_fill_elided_constants(hlo_module *m) {
  counters c = {0, 0};
  for (int ci = 0; ci < m->ncomps; ci++) {
    hlo_computation *comp = m->comps[ci];
    for (int i = 0; i < comp->ninstrs; i++) {
      hlo_instruction *in = comp->instrs[i];
      if (in->op == HLO_OP_CONSTANT && in->literal && fill(&m->arena, in->literal, &c)) return HLO_ERR;
    }
  }
  return HLO_OK;
}
