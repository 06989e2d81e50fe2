/* imap_fusion.c - output->input indexing of a fusion: start from the
 * identity of the fused root, walk the fused computation from users to
 * producers composing each instruction's maps, simplify every composed map,
 * drop unused symbols, and collect a deduplicated set per parameter.
 * Paths whose composed domain is empty read nothing and are left out; a
 * parameter reached only through such paths gets one KNOWN EMPTY map. */
#include <string.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"
#include "index/imap_ops.h"

enum { MAX_FUSION_DEPTH = 16 };

/* Post-order of the instructions reachable from root (iterative DFS). */
static int post_order(imap_ctx *c, const hlo_computation *comp, const hlo_instruction *root,
                      const hlo_instruction ***out, int *nout) {
  int n = comp->ninstrs;
  const hlo_instruction **order = imap_alloc(c, (size_t)n, sizeof *order);
  const hlo_instruction **stack = imap_alloc(c, (size_t)n, sizeof *stack);
  int *next = imap_alloc(c, (size_t)n, sizeof *next);
  unsigned char *state = imap_alloc(c, (size_t)n, 1);
  if (!order || !stack || !next || !state) return HLO_ERR;
  int sp = 0, no = 0;
  if (root->id < 0 || root->id >= n || comp->instrs[root->id] != root) return HLO_ERR;
  stack[sp++] = root;
  state[root->id] = 1;
  while (sp) {
    const hlo_instruction *t = stack[sp - 1];
    if (next[t->id] < t->noperands) {
      const hlo_instruction *o = t->operands[next[t->id]++];
      if (!o || o->parent != comp || o->id < 0 || o->id >= n || comp->instrs[o->id] != o) return HLO_ERR;
      if (state[o->id]) continue;
      state[o->id] = 1;
      stack[sp++] = o;
    } else {
      order[no++] = t;
      sp--;
    }
  }
  *out = order;
  *nout = no;
  return HLO_OK;
}

int imap_fusion_output_to_input(imap_ctx *c, const hlo_instruction *in, int output, imap_indexing *x,
                                hlo_diags *d, int depth) {
  const hlo_attr *ca = hlo_instr_attr(in, HLO_A_CALLS);
  const hlo_computation *comp = ca && ca->kind == HLO_AK_COMPS && ca->u.comps.n == 1 ? ca->u.comps.v[0] : NULL;
  const hlo_shape *os = imap_out_shape(in, output);
  bool undefined = !comp || !comp->root || depth > MAX_FUSION_DEPTH || !os;
  const hlo_instruction *start = undefined ? NULL : comp->root;
  int start_out = 0;
  if (!undefined && hlo_shape_is_tuple(&in->shape)) {
    if (start->op == HLO_OP_TUPLE) {
      if (output >= start->noperands) undefined = true;
      else start = start->operands[output];
    } else {
      start_out = output;
    }
  }
  if (undefined || !start || start->parent != comp) {
    for (int k = 0; k < x->n; k++)
      if (imap_set_add(c, &x->sets[k], imap_map_undefined(c))) goto oom;
    return HLO_OK;
  }
  const hlo_instruction **order;
  int no;
  if (post_order(c, comp, start, &order, &no)) {
    if (c->failed) goto oom;
    for (int k = 0; k < x->n; k++)
      if (imap_set_add(c, &x->sets[k], imap_map_undefined(c))) goto oom;
    return HLO_OK;
  }
  /* sets[id * ... ] per instruction and output */
  int n = comp->ninstrs;
  imap_set **sets = imap_alloc(c, (size_t)n, sizeof *sets);
  bool *empty_seen = imap_alloc(c, (size_t)n, sizeof *empty_seen);
  if (!sets || !empty_seen) goto oom;
  for (int i = 0; i < n; i++) {
    int k = imap_noutputs(comp->instrs[i]);
    if (!(sets[i] = imap_alloc(c, (size_t)k, sizeof **sets))) goto oom;
  }
  const hlo_shape *ss = imap_out_shape(start, start_out);
  if (!ss || !hlo_shape_is_array(ss)) goto undef_all;
  if (imap_set_add(c, &sets[start->id][start_out], imap_map_identity(c, ss->rank, ss->dims))) goto oom;
  for (int q = no - 1; q >= 0; q--) {
    const hlo_instruction *t = order[q];
    if (t->op == HLO_OP_PARAMETER) continue;
    int nouts = imap_noutputs(t);
    for (int o = 0; o < nouts; o++) {
      imap_set *mine = &sets[t->id][o];
      if (mine->n == 0) continue;
      if (t->op == HLO_OP_GET_TUPLE_ELEMENT && t->noperands == 1) {
        /* the element's maps belong to output `index` of the operand */
        const hlo_instruction *src = t->operands[0];
        int64_t idx = hlo_instr_int(t, HLO_A_INDEX, -1);
        if (idx < 0 || idx >= imap_noutputs(src)) goto undef_all;
        for (int j = 0; j < mine->n; j++)
          if (imap_set_add(c, &sets[src->id][idx], mine->v[j])) goto oom;
        continue;
      }
      imap_indexing ops;
      if (imap_output_to_input_depth(c, t, o, &ops, d, depth + 1)) return HLO_ERR;
      for (int k = 0; k < t->noperands; k++) {
        const hlo_instruction *p = t->operands[k];
        for (int j = 0; j < mine->n; j++)
          for (int l = 0; l < ops.sets[k].n; l++) {
            imap_map *m = imap_compose(c, mine->v[j], ops.sets[k].v[l]);
            if (m && m->state == IMAP_DEFINED) m = imap_simplify(c, m);
            if (m && m->state == IMAP_DEFINED) m = imap_remove_unused_symbols(c, m);
            if (m && m->state == IMAP_KNOWN_EMPTY) { /* this path reads nothing */
              empty_seen[p->id] = true;
              continue;
            }
            if (imap_set_add(c, &sets[p->id][0], m)) goto oom;
          }
      }
    }
  }
  for (int k = 0; k < x->n; k++) {
    const hlo_instruction *p = k < comp->nparams ? comp->params[k] : NULL;
    if (!p || p->parent != comp) {
      if (imap_set_add(c, &x->sets[k], imap_map_undefined(c))) goto oom;
      continue;
    }
    x->sets[k] = sets[p->id][0];
    /* reached only through paths with empty domains */
    if (x->sets[k].n == 0 && empty_seen[p->id]) {
      imap_map *e = imap_map_new(c, ss->rank, 0, 0, p->shape.rank);
      if (!e) goto oom;
      imap_map_set_empty(c, e);
      if (imap_set_add(c, &x->sets[k], e)) goto oom;
    }
  }
  return HLO_OK;
undef_all:
  for (int k = 0; k < x->n; k++) {
    x->sets[k].n = 0;
    if (imap_set_add(c, &x->sets[k], imap_map_undefined(c))) goto oom;
  }
  return HLO_OK;
oom:
  return hlo_errorf(d, NULL, 0, "%s: out of memory or integer overflow while building indexing maps",
                    in->name ? in->name : "?");
}
