/* pass_while_loop_simplifier.c - the trip-count part of XLA's
 * WhileLoopSimplifier: a loop without side effects that runs 0 times is
 * replaced by its initial value, one that runs once by a copy of its body
 * applied to the initial value.  The trip count comes from
 * backend_config's known_trip_count, or from the counted-loop pattern:
 * condition compare(get-tuple-element(p, k), constant) and body element k
 * add(get-tuple-element(p, k), constant 1), element k of the initial tuple
 * a constant. */
#include <stdlib.h>
#include <string.h>

#include "opt/opt_internal.h"

static bool int_const(const hlo_instruction *in, int64_t *v) {
  double d;
  if (in->op != HLO_OP_CONSTANT || !hlo_shape_is_scalar(&in->shape) || !hlo_type_is_int(in->shape.type) ||
      !opt_splat_value(in, &d))
    return false;
  *v = (int64_t)d;
  return true;
}

static bool gte_of_param(const hlo_instruction *g, int64_t *k) {
  if (g->op != HLO_OP_GET_TUPLE_ELEMENT || g->noperands != 1 || g->operands[0]->op != HLO_OP_PARAMETER)
    return false;
  *k = hlo_instr_int(g, HLO_A_INDEX, -1);
  return *k >= 0;
}

static bool holds(const char *dir, int64_t a, int64_t b) {
  if (!dir) return false;
  if (!strcmp(dir, "LT")) return a < b;
  if (!strcmp(dir, "LE")) return a <= b;
  if (!strcmp(dir, "GT")) return a > b;
  if (!strcmp(dir, "GE")) return a >= b;
  if (!strcmp(dir, "EQ")) return a == b;
  if (!strcmp(dir, "NE")) return a != b;
  return false;
}

/* 0, 1, or 2 for "two or more / unknown" */
static int trip_count(const hlo_instruction *w, const hlo_computation *cond, const hlo_computation *body) {
  const hlo_attr *bc = hlo_instr_attr(w, HLO_A_BACKEND_CONFIG);
  const char *s = bc && bc->kind == HLO_AK_RAW && bc->u.s ? strstr(bc->u.s, "\"known_trip_count\"") : NULL;
  if (s && (s = strstr(s, "\"n\"")) && (s = strchr(s + 3, ':'))) {
    s++;
    while (*s == ' ' || *s == '"') s++;
    char *end;
    long long n = strtoll(s, &end, 10);
    if (end != s && n >= 0) return n < 2 ? (int)n : 2;
  }
  const hlo_instruction *r = cond->root, *init = w->operands[0], *br = body->root;
  if (!r || r->op != HLO_OP_COMPARE || r->noperands != 2 || init->op != HLO_OP_TUPLE || !br ||
      br->op != HLO_OP_TUPLE)
    return 2;
  int64_t k, bound, start, step, k2;
  const char *dir = hlo_instr_word(r, HLO_A_DIRECTION);
  if (!gte_of_param(r->operands[0], &k) || !int_const(r->operands[1], &bound)) return 2;
  if (k >= init->noperands || k >= br->noperands || !int_const(init->operands[k], &start)) return 2;
  const hlo_instruction *inc = br->operands[k];
  if (inc->op != HLO_OP_ADD || inc->noperands != 2) return 2;
  const hlo_instruction *iv = inc->operands[0], *one = inc->operands[1];
  if (!gte_of_param(iv, &k2)) iv = inc->operands[1], one = inc->operands[0];
  if (!gte_of_param(iv, &k2) || k2 != k || !int_const(one, &step) || step != 1) return 2;
  if (start > INT64_MAX - 1 || !holds(dir, start, bound)) return holds(dir, start, bound) ? 2 : 0;
  return holds(dir, start + 1, bound) ? 2 : 1;
}

int opt_while_loop_simplifier(opt_ctx *x) {
  hlo_module *m = x->m;
  int nbodies = 0;
  hlo_computation **bodies = hlo_arena_array(&x->tmp, (size_t)m->ncomps * 2 + 2, sizeof *bodies);
  if (!bodies) return opt_fail(x, NULL);
  int ncomps = m->ncomps;
  for (int ci = 0; ci < ncomps; ci++) {
    hlo_computation *c = m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      hlo_instruction *w = c->instrs[i];
      if (w->op != HLO_OP_WHILE || w->noperands != 1 || w->ncontrol || opt_side_effect(w)) continue;
      hlo_computation *cond = NULL, *body = NULL;
      for (int a = 0; a < w->nattrs; a++) {
        if (w->attrs[a].key == HLO_A_CONDITION) cond = w->attrs[a].u.comp;
        if (w->attrs[a].key == HLO_A_BODY) body = w->attrs[a].u.comp;
      }
      if (!cond || !body || body->nparams != 1) continue;
      int n = trip_count(w, cond, body);
      if (n > 1) continue;
      hlo_instruction *to = w->operands[0];
      x->anchor = w;
      if (n == 1 && opt_inline_body(x, c, body, w->operands, 1, &to)) return opt_fail(x, NULL);
      if (!hlo_shape_equal(&to->shape, &w->shape) && w == c->root) continue;
      opt_replace_uses(c, w, to);
      if (opt_remove_dead(x, c, &w, 1, NULL) || opt_sort(x, c)) return opt_fail(x, NULL);
      bodies[nbodies++] = cond;
      bodies[nbodies++] = body;
      i = -1; /* the instruction list changed: scan again */
    }
  }
  if (!nbodies) return 0;
  if (fuse_drop_uncalled(m, bodies, nbodies)) return opt_fail(x, NULL);
  return 1;
}
