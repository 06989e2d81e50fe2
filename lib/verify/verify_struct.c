/* verify_struct.c - structural rules of a module: unique names, operands
 * and control predecessors in the same computation and defined before use,
 * no cycles (data or control), a root, parameter numbering, no recursion in
 * the call graph, the entry computation layout, fusion kinds. */
#include <string.h>

#include "verify/verify_internal.h"

static void check_names(vctx *v) {
  const hlo_module *m = v->m;
  hlo_strmap names;
  hlo_strmap_init(&names, &v->scratch);
  for (int i = 0; i < m->ncomps; i++) {
    void *old = NULL;
    if (!m->comps[i]->name || hlo_strmap_put(&names, m->comps[i]->name, m->comps[i], &old)) continue;
    if (old) vx_fail_at(v, m->comps[i]->off, "computation name '%s' is not unique", m->comps[i]->name);
  }
  for (int ci = 0; ci < m->ncomps; ci++) {
    const hlo_computation *c = m->comps[ci];
    hlo_strmap in_comp;
    hlo_strmap_init(&in_comp, &v->scratch);
    for (int i = 0; i < c->ninstrs; i++) {
      void *old = NULL;
      if (!c->instrs[i]->name || hlo_strmap_put(&in_comp, c->instrs[i]->name, c->instrs[i], &old)) continue;
      if (old) vx_fail(v, c->instrs[i], "instruction name is not unique in computation '%s'", c->name);
    }
  }
}

/* Iterative DFS over operands + control predecessors; reports each
 * instruction that closes a cycle. */
static void check_cycles(vctx *v, const hlo_computation *c) {
  int n = c->ninstrs;
  unsigned char *color = hlo_arena_array(&v->scratch, (size_t)n ? (size_t)n : 1, 1);
  int *stack = hlo_arena_array(&v->scratch, (size_t)n ? (size_t)n : 1, sizeof(int));
  int *edge = hlo_arena_array(&v->scratch, (size_t)n ? (size_t)n : 1, sizeof(int));
  if (!color || !stack || !edge) {
    vx_fail_at(v, c->off, "out of memory while checking for cycles");
    return;
  }
  for (int s = 0; s < n; s++) {
    if (color[s]) continue;
    int sp = 0;
    stack[sp] = s, edge[sp] = 0, sp++;
    color[s] = 1;
    while (sp) {
      const hlo_instruction *in = c->instrs[stack[sp - 1]];
      int e = edge[sp - 1]++;
      int ne = in->noperands + in->ncontrol;
      if (e >= ne) {
        color[stack[sp - 1]] = 2;
        sp--;
        continue;
      }
      const hlo_instruction *next = e < in->noperands ? in->operands[e] : in->control_preds[e - in->noperands];
      if (!next || next->parent != c || next->id < 0 || next->id >= n || c->instrs[next->id] != next) continue;
      if (color[next->id] == 1) {
        vx_fail(v, in, "instruction is part of a cycle through %%%s (%s)", next->name,
                e < in->noperands ? "operand" : "control predecessor");
        continue;
      }
      if (color[next->id] == 0) {
        color[next->id] = 1;
        stack[sp] = next->id, edge[sp] = 0, sp++;
      }
    }
  }
}

static bool in_comp(const hlo_computation *c, const hlo_instruction *x) {
  return x && x->parent == c && x->id >= 0 && x->id < c->ninstrs && c->instrs[x->id] == x;
}

static void check_operands(vctx *v, const hlo_computation *c) {
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    for (int k = 0; k < in->noperands; k++) {
      const hlo_instruction *op = in->operands[k];
      if (!op) {
        vx_fail(v, in, "operand %d is missing", k);
      } else if (!in_comp(c, op)) {
        vx_fail(v, in, "operand %d (%%%s) is not an instruction of computation '%s'", k, op->name, c->name);
      } else if (op->id >= in->id) {
        vx_fail(v, in, "operand %d (%%%s) is used before it is defined", k, op->name);
      }
    }
    for (int k = 0; k < in->ncontrol; k++) {
      const hlo_instruction *p = in->control_preds[k];
      if (!in_comp(c, p))
        vx_fail(v, in, "control predecessor %%%s is not an instruction of computation '%s'", p ? p->name : "?",
                c->name);
    }
  }
}

/* Parameter numbers are 0..count-1, each used once. */
static void check_params(vctx *v, const hlo_computation *c) {
  int count = 0;
  for (int i = 0; i < c->ninstrs; i++) count += c->instrs[i]->op == HLO_OP_PARAMETER;
  if (!count) return;
  const hlo_instruction **seen = hlo_arena_array(&v->scratch, (size_t)count, sizeof *seen);
  if (!seen) return;
  bool out_of_range = false;
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (in->op != HLO_OP_PARAMETER) continue;
    int64_t p = in->param_number;
    if (p < 0 || p >= count) {
      out_of_range = true;
      continue;
    }
    if (seen[p]) vx_fail(v, in, "parameter number %lld is already used by %%%s", (long long)p, seen[p]->name);
    else seen[p] = in;
  }
  if (!out_of_range) return;
  for (int p = 0; p < count; p++)
    if (!seen[p])
      vx_fail_at(v, c->off, "computation '%s' has no parameter number %d (its %d parameters must be numbered 0..%d)",
                 c->name, p, count, count - 1);
}

/* Recursion anywhere in the call graph. */
static void check_call_graph(vctx *v) {
  const hlo_module *m = v->m;
  int n = m->ncomps;
  if (!n) return;
  unsigned char *color = hlo_arena_array(&v->scratch, (size_t)n, 1);
  if (!color) return;
  /* simple repeated DFS with an explicit stack of (comp, instr, called) */
  int *sc = hlo_arena_array(&v->scratch, (size_t)n, sizeof(int));
  int *si = hlo_arena_array(&v->scratch, (size_t)n, sizeof(int));
  int *sk = hlo_arena_array(&v->scratch, (size_t)n, sizeof(int));
  if (!sc || !si || !sk) return;
  for (int s = 0; s < n; s++) {
    if (m->comps[s]->id != s) return; /* not linked */
    if (color[s]) continue;
    int sp = 0;
    sc[sp] = s, si[sp] = 0, sk[sp] = 0, sp++;
    color[s] = 1;
    while (sp) {
      const hlo_computation *c = m->comps[sc[sp - 1]];
      if (si[sp - 1] >= c->ninstrs) {
        color[sc[sp - 1]] = 2;
        sp--;
        continue;
      }
      const hlo_instruction *in = c->instrs[si[sp - 1]];
      if (sk[sp - 1] >= in->ncalled) {
        si[sp - 1]++, sk[sp - 1] = 0;
        continue;
      }
      const hlo_computation *callee = in->called[sk[sp - 1]++];
      if (!callee || callee->id < 0 || callee->id >= n) continue;
      if (color[callee->id] == 1) {
        vx_fail(v, in, "calls computation '%s' recursively (the call graph has a cycle)", callee->name);
      } else if (color[callee->id] == 0) {
        color[callee->id] = 1;
        sc[sp] = callee->id, si[sp] = 0, sk[sp] = 0, sp++;
      }
      if (callee == m->entry)
        vx_fail(v, in, "calls the entry computation '%s'", callee->name);
    }
  }
}

/* XLA's VerifyEntryComputationLayout: a must-alias output and its parameter
 * have identical shapes in the entry layout, layout and memory space
 * included, whatever the layout sensitivity. */
static void check_must_alias(vctx *v, const hlo_program_shape *ps) {
  const hlo_attr *a = hlo_module_attr(v->m, HLO_A_INPUT_OUTPUT_ALIAS);
  if (!a || a->kind != HLO_AK_ALIASING) return;
  for (int i = 0; i < a->u.aliasing.n; i++) {
    const hlo_alias_entry *en = &a->u.aliasing.v[i];
    if (!en->kind || strcmp(en->kind, "must-alias") || en->operand < 0 || en->operand >= ps->nparams) continue;
    const hlo_shape *r = vx_subshape(&ps->result, en->output_index, en->noutput);
    const hlo_shape *p = vx_subshape(&ps->params[en->operand], en->operand_index, en->noperand_index);
    if (r && p && !hlo_shape_equal(r, p))
      vx_fail_at(v, a->off,
                 "Shape and memory space of the result at index %s (%s) must be the same as the shape and memory spaceof aliased parameter %lld at index %s (%s)",
                 vx_index_str(v, en->output_index, en->noutput), vx_str_layout(v, r), (long long)en->operand,
                 vx_index_str(v, en->operand_index, en->noperand_index), vx_str_layout(v, p));
  }
}

/* XLA's StringifyShape: with the layout when layout-sensitive. */
static const char *shape_text(vctx *v, const hlo_shape *s) {
  return v->o.layout_sensitive ? vx_str_layout(v, s) : vx_str(v, s);
}

static void check_entry_layout(vctx *v) {
  const hlo_module *m = v->m;
  const hlo_attr *a = hlo_module_attr(m, HLO_A_ENTRY_COMPUTATION_LAYOUT);
  if (!a || a->kind != HLO_AK_PROGRAM_SHAPE || !m->entry) return;
  const hlo_program_shape *ps = a->u.pshape;
  const hlo_computation *e = m->entry;
  if (ps->nparams != e->nparams) {
    vx_fail_at(v, a->off,
               "Number of parameters in entry computation layout (%d) must be same as number of parameters of entry computation (%d)",
               ps->nparams, e->nparams);
    return;
  }
  for (int i = 0; i < e->nparams; i++) {
    const hlo_instruction *p = e->params[i];
    if (!p) continue;
    if (!vx_same(v, &p->shape, &ps->params[i]))
      vx_fail(v, p,
              "Shape of the entry computation parameter %d is %s should be compatible to the one specified in module's entry computation layout %s",
              i, shape_text(v, &p->shape), shape_text(v, &ps->params[i]));
  }
  if (e->root && !vx_same(v, &e->root->shape, &ps->result))
    vx_fail(v, e->root,
            "Shape of the root instruction of entry computation (%s) should be compatible to one specified in module's entry computation layout (%s)",
            shape_text(v, &e->root->shape), shape_text(v, &ps->result));
  check_must_alias(v, ps);
}

static void check_fusion_kinds(vctx *v) {
  static const char *const kinds[] = {"kLoop", "kInput", "kOutput", "kCustom"};
  for (int ci = 0; ci < v->m->ncomps; ci++)
    for (int i = 0; i < v->m->comps[ci]->ninstrs; i++) {
      const hlo_instruction *in = v->m->comps[ci]->instrs[i];
      if (in->op != HLO_OP_FUSION) continue;
      const char *k = hlo_instr_word(in, HLO_A_KIND);
      bool ok = false;
      for (int j = 0; k && j < 4; j++) ok |= !strcmp(k, kinds[j]);
      if (!ok) vx_fail(v, in, "fusion kind must be kLoop, kInput, kOutput or kCustom; got %s", k ? k : "none");
    }
}

void hlo_verify_structure(vctx *v) {
  const hlo_module *m = v->m;
  if (!m->entry) vx_fail_at(v, 0, "module has no entry computation");
  check_names(v);
  for (int ci = 0; ci < m->ncomps; ci++) {
    const hlo_computation *c = m->comps[ci];
    if (!c->root) vx_fail_at(v, c->off, "computation '%s' has no root instruction", c->name);
    else if (!in_comp(c, c->root)) vx_fail_at(v, c->off, "the root of computation '%s' is not one of its instructions", c->name);
    check_operands(v, c);
    check_cycles(v, c);
    check_params(v, c);
  }
  check_call_graph(v);
  check_entry_layout(v);
  check_fusion_kinds(v);
}
