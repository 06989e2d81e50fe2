/* pass_cse.c - common subexpression elimination (XLA's HloCSE): in each
 * computation, an instruction with the same opcode, shape (with layout),
 * operands and attributes (metadata aside) as an earlier one is replaced by
 * it.  Parameters, side effects and instructions with control edges stay. */
#include <string.h>

#include "hlo/hlo_text.h"
#include "opt/opt_internal.h"

/* The identity of in as text; NULL if in must not be merged or on OOM. */
static const char *key_of(opt_ctx *x, const hlo_instruction *in, hlo_buf *b) {
  if (in->op == HLO_OP_PARAMETER || in->ncontrol || opt_side_effect(in)) return NULL;
  b->len = 0;
  hlo_buf_puts(b, hlo_opcode_name(in->op));
  hlo_buf_putc(b, ' ');
  hlo_print_shape(b, &in->shape, true);
  hlo_buf_putc(b, '(');
  if (in->op == HLO_OP_CONSTANT) {
    if (!in->literal || in->literal->elided) return NULL; /* values unknown */
    hlo_print_literal(b, in->literal, NULL);
  }
  for (int q = 0; q < in->noperands; q++) hlo_buf_printf(b, "%p,", (void *)in->operands[q]);
  hlo_buf_putc(b, ')');
  for (int a = 0; a < in->nattrs; a++) {
    const hlo_attr *at = &in->attrs[a];
    if (at->key == HLO_A_METADATA || at->key == HLO_A_CONTROL_PREDECESSORS) continue;
    hlo_buf_printf(b, ",%s=", at->name);
    hlo_print_attr_value(b, at, NULL);
  }
  if (b->failed) return NULL;
  return hlo_arena_strndup(&x->tmp, b->data, b->len);
}

int opt_cse(opt_ctx *x) {
  hlo_module *m = x->m;
  bool changed = false;
  hlo_buf b;
  hlo_buf_init(&b, m->arena.alloc);
  for (int ci = 0; ci < m->ncomps; ci++) {
    hlo_computation *c = m->comps[ci];
    hlo_instruction **order = opt_topo_order(x, c);
    hlo_instruction **dups = hlo_arena_array(&x->tmp, (size_t)c->ninstrs + 1, sizeof *dups);
    if (!order || !dups) goto oom;
    hlo_strmap seen;
    hlo_strmap_init(&seen, &x->tmp);
    int ndup = 0, n = c->ninstrs;
    for (int i = 0; i < n; i++) {
      hlo_instruction *in = order[i];
      const char *k = key_of(x, in, &b);
      if (b.failed) goto oom;
      if (!k) continue;
      hlo_instruction *first = hlo_strmap_get(&seen, k);
      if (!first) {
        if (hlo_strmap_put(&seen, k, in, NULL)) goto oom;
        continue;
      }
      opt_replace_uses(c, in, first); /* later instructions' keys see `first` */
      dups[ndup++] = in;
    }
    if (!ndup) continue;
    changed = true;
    if (opt_remove_dead(x, c, dups, ndup, NULL)) goto oom;
  }
  hlo_buf_release(&b);
  return changed;
oom:
  hlo_buf_release(&b);
  return opt_fail(x, NULL);
}
