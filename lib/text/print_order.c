/* print_order.c - the order in which XLA's printer writes instructions and
 * computations.  Instructions: a depth-first post order started from each
 * instruction without users, in text order, visiting operands first to last
 * after the control predecessors (HloComputation::ForEachInstructionPostOrder),
 * except in a scheduled module, whose non-fusion computations keep their
 * sequence, the text order.  Computations: each computation nobody calls,
 * in text order, preceded by the computations it reaches through its
 * instructions' calls in depth-first post order (HloModule::
 * MakeComputationPostOrder with dfs_postorder).  An instruction's calls are
 * taken in XLA's order (a while loop's body before its condition). */
#include <string.h>

#include "text/print_internal.h"

enum { NEW, VISITING, VISITED };

static bool ids_consistent(const hlo_computation *c) {
  for (int i = 0; i < c->ninstrs; i++)
    if (c->instrs[i]->id != i || c->instrs[i]->parent != c) return false;
  return true;
}

static bool module_scheduled(const hlo_computation *c) {
  const hlo_module *m = c->module_;
  for (int i = 0; m && i < m->nattrs; i++)
    if (m->attrs[i].key == HLO_A_IS_SCHEDULED) return m->attrs[i].kind == HLO_AK_BOOL && m->attrs[i].u.b;
  return false;
}

int hlo_text_instr_order(hlo_arena *a, const hlo_computation *c, const hlo_instruction ***out) {
  int n = c->ninstrs;
  const hlo_instruction **order = hlo_arena_array(a, (size_t)(n ? n : 1), sizeof *order);
  if (!order) return HLO_ERR;
  *out = order;
  if ((c->is_fused || !module_scheduled(c)) && ids_consistent(c)) {
    size_t cap = 1;
    for (int i = 0; i < n; i++) cap += (size_t)c->instrs[i]->noperands + (size_t)c->instrs[i]->ncontrol + 1;
    unsigned char *state = hlo_arena_array(a, (size_t)(n ? n : 1), 1);
    const hlo_instruction **stack = hlo_arena_array(a, cap, sizeof *stack);
    if (!state || !stack) return HLO_ERR;
    if (n > 0) memset(state, NEW, (size_t)n);
    int k = 0;
    for (int r = 0; r < n; r++) {
      if (c->instrs[r]->nusers || state[r] == VISITED) continue;
      size_t sp = 0;
      stack[sp++] = c->instrs[r];
      while (sp) {
        const hlo_instruction *cur = stack[sp - 1];
        if (state[cur->id] != NEW) {
          sp--;
          if (state[cur->id] != VISITED) state[cur->id] = VISITED, order[k++] = cur;
          continue;
        }
        state[cur->id] = VISITING;
        for (int q = cur->noperands - 1; q >= 0; q--) {
          const hlo_instruction *op = cur->operands[q];
          if (op && op->parent == c && state[op->id] != VISITED && sp < cap) stack[sp++] = op;
        }
        for (int q = 0; q < cur->ncontrol; q++) {
          const hlo_instruction *cp = cur->control_preds[q];
          if (cp && cp->parent == c && state[cp->id] != VISITED && sp < cap) stack[sp++] = cp;
        }
      }
    }
    /* instructions no walk reached (only in a module with a cycle) keep
     * their text order after the others */
    for (int i = 0; i < n && k < n; i++)
      if (state[i] != VISITED) order[k++] = c->instrs[i];
    return HLO_OK;
  }
  for (int i = 0; i < n; i++) order[i] = c->instrs[i];
  return HLO_OK;
}

/* The computations in calls in XLA's order (HloInstruction::
 * called_computations): a while's body before its condition, a
 * select-and-scatter's select before its scatter, a conditional's true
 * branch before its false one; otherwise as the attributes name them. */
static int xla_calls(const hlo_instruction *in, hlo_computation **calls) {
  int n = in->ncalled;
  for (int i = 0; i < n; i++) calls[i] = in->called[i];
  hlo_attr_key first = HLO_A_UNKNOWN;
  if (in->op == HLO_OP_WHILE) first = HLO_A_BODY;
  else if (in->op == HLO_OP_SELECT_AND_SCATTER) first = HLO_A_SELECT;
  else if (in->op == HLO_OP_CONDITIONAL) first = HLO_A_TRUE_COMPUTATION;
  if (first == HLO_A_UNKNOWN || n != 2) return n;
  const hlo_attr *fa = hlo_instr_attr(in, first);
  if (fa && fa->kind == HLO_AK_COMP && fa->u.comp && calls[1] == fa->u.comp) {
    calls[1] = calls[0];
    calls[0] = fa->u.comp;
  }
  return n;
}

typedef struct frame {
  const hlo_computation *c;
  int next;
} frame;

/* HloComputation::MakeEmbeddedComputationsList of c, appended to the module
 * order where not there yet.  XLA walks each computation's instructions in
 * the order they were made; here in the order they print, which is the same
 * for text XLA printed and keeps the output a fixed point for any other
 * text (XLA's order would change once the text is printed and read back). */
static int add_embedded(hlo_arena *a, const hlo_module *m, const hlo_computation *c, bool *seen, frame *st,
                        bool *added, const hlo_computation **order, int *k, const hlo_instruction ***iorder) {
  int nc = m->ncomps, sp = 0;
  memset(seen, 0, (size_t)nc);
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = iorder[c->id][i];
    for (const hlo_instruction *cur = in;;) {
      if (cur && cur->ncalled) {
        hlo_computation **calls = hlo_arena_array(a, (size_t)cur->ncalled, sizeof *calls);
        if (!calls) return HLO_ERR;
        int n = xla_calls(cur, calls);
        for (int q = n - 1; q >= 0; q--) {
          const hlo_computation *cc = calls[q];
          if (!cc || cc->id < 0 || cc->id >= nc || m->comps[cc->id] != cc || seen[cc->id] || sp >= nc) continue;
          seen[cc->id] = true;
          st[sp++] = (frame){cc, 0};
        }
      }
      if (!sp) break;
      frame *f = &st[sp - 1];
      if (f->next == f->c->ninstrs) {
        sp--;
        if (!added[f->c->id]) added[f->c->id] = true, order[(*k)++] = f->c;
        cur = NULL;
      } else {
        cur = iorder[f->c->id][f->next++];
      }
    }
  }
  return HLO_OK;
}

/* XLA's order can put a computation after one that calls it: the walk marks
 * a callee when it is first pushed, so a condition shared by nested while
 * loops is emitted after the inner bodies that also use it, and XLA's own
 * parser then refuses the text.  Here such a computation moves up to just
 * before its first caller (with its own callees before it); an order in
 * which every callee already precedes its callers is left as it is. */
static int callees_first(hlo_arena *a, const hlo_module *m, const hlo_computation **order,
                         const hlo_instruction ***iorder) {
  int nc = m->ncomps, k = 0, sp = 0;
  const hlo_computation **out = hlo_arena_array(a, (size_t)(nc ? nc : 1), sizeof *out);
  unsigned char *state = hlo_arena_array(a, (size_t)(nc ? nc : 1), 1);
  struct walk { const hlo_computation *c; int instr, call; } *st = hlo_arena_array(a, (size_t)(nc ? nc : 1), sizeof *st);
  hlo_computation **calls = NULL;
  int maxcalls = 1;
  for (int ci = 0; ci < nc; ci++)
    for (int i = 0; i < m->comps[ci]->ninstrs; i++)
      if (m->comps[ci]->instrs[i]->ncalled > maxcalls) maxcalls = m->comps[ci]->instrs[i]->ncalled;
  calls = hlo_arena_array(a, (size_t)maxcalls, sizeof *calls);
  if (!out || !state || !st || !calls) return HLO_ERR;
  memset(state, NEW, (size_t)(nc ? nc : 1));
  for (int oi = 0; oi < nc; oi++) {
    if (state[order[oi]->id] != NEW) continue;
    state[order[oi]->id] = VISITING;
    st[sp++] = (struct walk){order[oi], 0, 0};
    while (sp) {
      struct walk *w = &st[sp - 1];
      const hlo_computation *next = NULL;
      while (!next && w->instr < w->c->ninstrs) {
        const hlo_instruction *in = iorder[w->c->id][w->instr];
        int n = xla_calls(in, calls);
        if (w->call >= n) {
          w->instr++, w->call = 0;
          continue;
        }
        const hlo_computation *cc = calls[w->call++];
        if (cc && cc->id >= 0 && cc->id < nc && m->comps[cc->id] == cc && state[cc->id] == NEW) next = cc;
      }
      if (next && sp < nc) {
        state[next->id] = VISITING;
        st[sp++] = (struct walk){next, 0, 0};
      } else { /* all callees out (a full stack cannot happen: each computation is pushed once) */
        state[w->c->id] = VISITED;
        out[k++] = w->c;
        sp--;
      }
    }
  }
  memcpy(order, out, (size_t)nc * sizeof *order);
  return HLO_OK;
}

int hlo_text_comp_order(hlo_arena *a, const hlo_module *m, const hlo_computation ***out) {
  int nc = m->ncomps;
  const hlo_computation **order = hlo_arena_array(a, (size_t)(nc ? nc : 1), sizeof *order);
  bool *called = hlo_arena_array(a, (size_t)(nc ? nc : 1), sizeof *called);
  bool *added = hlo_arena_array(a, (size_t)(nc ? nc : 1), sizeof *added);
  bool *seen = hlo_arena_array(a, (size_t)(nc ? nc : 1), sizeof *seen);
  frame *st = hlo_arena_array(a, (size_t)(nc ? nc : 1), sizeof *st);
  if (!order || !called || !added || !seen || !st) return HLO_ERR;
  *out = order;
  memset(called, 0, (size_t)nc);
  memset(added, 0, (size_t)nc);
  bool ok = true;
  for (int ci = 0; ci < nc; ci++) ok &= m->comps[ci]->id == ci;
  int k = 0;
  const hlo_instruction ***iorder = ok ? hlo_arena_array(a, (size_t)(nc ? nc : 1), sizeof *iorder) : NULL;
  if (ok && !iorder) return HLO_ERR;
  for (int ci = 0; ok && ci < nc; ci++)
    if (hlo_text_instr_order(a, m->comps[ci], &iorder[ci])) return HLO_ERR;
  if (ok) {
    for (int ci = 0; ci < nc; ci++)
      for (int i = 0; i < m->comps[ci]->ninstrs; i++) {
        const hlo_instruction *in = m->comps[ci]->instrs[i];
        for (int q = 0; q < in->ncalled; q++)
          if (in->called[q] && in->called[q]->id >= 0 && in->called[q]->id < nc) called[in->called[q]->id] = true;
      }
    for (int ci = 0; ci < nc; ci++) {
      if (called[ci]) continue;
      if (add_embedded(a, m, m->comps[ci], seen, st, added, order, &k, iorder)) return HLO_ERR;
      if (!added[ci]) added[ci] = true, order[k++] = m->comps[ci];
    }
  }
  /* computations no walk reached (a call cycle) keep their text order */
  for (int ci = 0; ci < nc && k < nc; ci++)
    if (!added[ci]) added[ci] = true, order[k++] = m->comps[ci];
  return ok ? callees_first(a, m, order, iorder) : HLO_OK;
}
