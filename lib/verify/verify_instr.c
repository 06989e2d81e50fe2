/* verify_instr.c - XLA's InstructionVerifier rules that are not shapes:
 * execution threads of called computations, consistent shardings across a
 * while or conditional and its computations, and the checks behind
 * options (broadcast dimension order, reshape as a bitcast, no host memory
 * space, call aliasing). */
#include <string.h>

#include "verify/verify_internal.h"

enum { RANK_MAX = 64 }; /* reshape_is_bitcast accepts higher ranks unchecked */

static const char *written_thread(const hlo_computation *c) {
  for (int i = 0; c && i < c->nattrs; i++)
    if (c->attrs[i].key == HLO_A_EXECUTION_THREAD && c->attrs[i].kind == HLO_AK_STRING && c->attrs[i].u.s)
      return c->attrs[i].u.s;
  return "main";
}

static bool has_id(const vctx *v, const hlo_computation *c) {
  return c && c->id >= 0 && c->id < v->m->ncomps && v->m->comps[c->id] == c;
}

const char *vx_thread(const vctx *v, const hlo_computation *c) {
  return v->threads && has_id(v, c) ? v->threads[c->id] : written_thread(c);
}

const char *vx_async_thread(const vctx *v, const hlo_instruction *start) {
  /* a thread imposed on the start's computation was imposed on the start too */
  if (v->thread_set && has_id(v, start->parent) && v->thread_set[start->parent->id]) return v->threads[start->parent->id];
  const hlo_attr *a = hlo_instr_attr(start, HLO_A_ASYNC_EXECUTION_THREAD);
  return a && a->kind == HLO_AK_STRING && a->u.s ? a->u.s : "main";
}

/* SetThreadName: c and everything it calls run on t (each computation once
 * per imposition: seen holds the stamp of the last one that reached it). */
static void impose(vctx *v, const hlo_computation *c, const char *t, int *seen, int stamp, int depth) {
  if (!has_id(v, c) || seen[c->id] == stamp || depth > 4096) return;
  seen[c->id] = stamp;
  v->threads[c->id] = t;
  v->thread_set[c->id] = 1;
  for (int i = 0; i < c->ninstrs; i++)
    for (int k = 0; c->instrs[i] && k < c->instrs[i]->ncalled; k++) impose(v, c->instrs[i]->called[k], t, seen, stamp, depth + 1);
}

/* XLA's parser builds computations in text order; each async-start it
 * creates imposes its thread on the computation it wraps. */
void vx_compute_threads(vctx *v) {
  const hlo_module *m = v->m;
  if (m->ncomps <= 0) return;
  const char **t = hlo_arena_array(&v->scratch, (size_t)m->ncomps, sizeof *t);
  unsigned char *set = hlo_arena_array(&v->scratch, (size_t)m->ncomps, 1);
  int *seen = hlo_arena_array(&v->scratch, (size_t)m->ncomps, sizeof *seen);
  if (!t || !set || !seen) return;
  for (int ci = 0; ci < m->ncomps; ci++) t[ci] = written_thread(m->comps[ci]), set[ci] = 0, seen[ci] = 0;
  v->threads = t;
  v->thread_set = set;
  int stamp = 0;
  for (int ci = 0; ci < m->ncomps; ci++)
    for (int i = 0; i < m->comps[ci]->ninstrs; i++) {
      const hlo_instruction *in = m->comps[ci]->instrs[i];
      if (in && in->op == HLO_OP_ASYNC_START && in->ncalled)
        impose(v, in->called[0], vx_async_thread(v, in), seen, ++stamp, 0);
    }
}

/* XLA's CheckCallableInstructionThreadName. */
static void check_callee_threads(vctx *v, const hlo_instruction *in) {
  const char *mine = vx_thread(v, in->parent);
  for (int k = 0; k < in->ncalled; k++) {
    const hlo_computation *c = in->called[k];
    if (c && strcmp(mine, vx_thread(v, c))) {
      vx_fail(v, in,
              "callable instruction %%%s expects parent computation thread name same as called computation's thread name (%s vs %s).",
              in->name, mine, vx_thread(v, c));
      return;
    }
  }
}

static void check_threads(vctx *v, const hlo_instruction *in) {
  bool opt = v->o.verify_call_nested_computation_thread_name;
  const hlo_attr *ta = hlo_instr_attr(in, HLO_A_TO_APPLY);
  if (opt && ta && ta->kind == HLO_AK_COMP && ta->u.comp &&
      strcmp(vx_thread(v, ta->u.comp), vx_thread(v, in->parent))) {
    vx_fail(v, in, "%s to_apply computation execution thread does not match (%s vs %s)", in->name,
            vx_thread(v, ta->u.comp), vx_thread(v, in->parent));
    return;
  }
  switch (in->op) {
  case HLO_OP_FUSION: case HLO_OP_WHILE: case HLO_OP_CONDITIONAL: check_callee_threads(v, in); break;
  case HLO_OP_CALL: case HLO_OP_CUSTOM_CALL:
    if (opt) check_callee_threads(v, in);
    break;
  default: break;
  }
}

/* Sharding texts equal up to whitespace. */
static bool same_sharding(const hlo_sharding *a, const hlo_sharding *b) {
  return vx_same_text(a->text, b->text);
}

static const hlo_sharding *sharding_of(const hlo_instruction *in) {
  const hlo_attr *a = in ? hlo_instr_attr(in, HLO_A_SHARDING) : NULL;
  return a && a->kind == HLO_AK_SHARDING ? a->u.sharding : NULL;
}

/* XLA's VerifyConsistentSharding: those of set[] that have a sharding all
 * have the same one. */
static void consistent_sharding(vctx *v, const hlo_instruction *in, const hlo_instruction **set, int n) {
  const hlo_instruction *first = NULL;
  for (int i = 0; i < n; i++) {
    const hlo_sharding *s = sharding_of(set[i]);
    if (!s) continue;
    if (!first) {
      first = set[i];
    } else if (!same_sharding(sharding_of(first), s)) {
      vx_fail(v, in, "Inconsistent %s sharding among instructions: %%%s and %%%s", hlo_opcode_name(in->op),
              first->name, set[i]->name);
      return;
    }
  }
}

static const hlo_computation *comp_attr(const hlo_instruction *in, hlo_attr_key k) {
  const hlo_attr *a = hlo_instr_attr(in, k);
  return a && a->kind == HLO_AK_COMP ? a->u.comp : NULL;
}

static void check_sharding_consistency(vctx *v, const hlo_instruction *in) {
  if (in->op == HLO_OP_WHILE) {
    const hlo_computation *body = comp_attr(in, HLO_A_BODY), *cond = comp_attr(in, HLO_A_CONDITION);
    const hlo_instruction *set[4] = {in, body ? body->root : NULL,
                                     body && body->nparams == 1 ? body->params[0] : NULL,
                                     cond && cond->nparams == 1 ? cond->params[0] : NULL};
    consistent_sharding(v, in, set, 4);
  } else if (in->op == HLO_OP_CONDITIONAL) {
    const hlo_instruction **set = hlo_arena_array(&v->scratch, (size_t)in->ncalled + 1, sizeof *set);
    if (!set) return;
    set[0] = in;
    for (int k = 0; k < in->ncalled; k++) set[k + 1] = in->called[k] ? in->called[k]->root : NULL;
    consistent_sharding(v, in, set, in->ncalled + 1);
  }
}

/* Logical dimensions of size > 1 merged into runs that are also adjacent
 * (major to minor) in the layout; sizes[] and their physical ranks. */
static int canonical_dims(const hlo_shape *s, int64_t *sizes, int *rank) {
  int r = s->rank, n = 0;
  int pos[RANK_MAX]; /* physical position (0 = most major) of each dim */
  for (int i = 0; i < r; i++) {
    int64_t d = s->layout && s->layout->n == r ? s->layout->minor_to_major[i] : r - 1 - i;
    if (d >= 0 && d < r) pos[d] = r - 1 - i;
  }
  int kept[RANK_MAX], nk = 0;
  for (int i = 0; i < r; i++)
    if (s->dims[i] != 1) kept[nk++] = i;
  int prank[RANK_MAX]; /* rank among the kept dims in physical order */
  for (int i = 0; i < nk; i++) {
    prank[i] = 0;
    for (int j = 0; j < nk; j++) prank[i] += pos[kept[j]] < pos[kept[i]];
  }
  int gr[RANK_MAX];
  for (int i = 0; i < nk; i++) {
    if (n && prank[i] == prank[i - 1] + 1) {
      sizes[n - 1] *= s->dims[kept[i]];
    } else {
      sizes[n] = s->dims[kept[i]];
      gr[n++] = prank[i];
    }
  }
  for (int i = 0; i < n; i++) {
    rank[i] = 0;
    for (int j = 0; j < n; j++) rank[i] += gr[j] < gr[i];
  }
  return n;
}

/* XLA's ShapeUtil::ReshapeIsBitcast: the same elements in the same
 * physical order. */
static bool reshape_is_bitcast(const hlo_shape *a, const hlo_shape *b) {
  if (!hlo_shape_is_array(a) || !hlo_shape_is_array(b) || a->type != b->type) return false;
  if (a->rank > RANK_MAX || b->rank > RANK_MAX) return true;
  int64_t sa[RANK_MAX], sb[RANK_MAX];
  int ra[RANK_MAX], rb[RANK_MAX];
  int na = canonical_dims(a, sa, ra), nb = canonical_dims(b, sb, rb);
  if (na != nb) return false;
  for (int i = 0; i < na; i++)
    if (sa[i] != sb[i] || ra[i] != rb[i]) return false;
  return true;
}

static bool in_host_memory(const hlo_shape *s) {
  if (s->type == HLO_TUPLE) {
    for (int i = 0; i < s->ntuple; i++)
      if (in_host_memory(&s->tuple[i])) return true;
    return false;
  }
  return s->layout && s->layout->memory_space == VX_HOST_SPACE;
}

static void check_options(vctx *v, const hlo_instruction *in) {
  if (v->o.verify_no_host_memory_space && in_host_memory(&in->shape))
    vx_fail(v, in, "Instruction shouldn't have the layout of host memory space: %s", vx_str_layout(v, &in->shape));
  if (in->op == HLO_OP_BROADCAST && v->o.verify_broadcast_dimensions_order) {
    int n;
    const int64_t *d = hlo_instr_ints(in, HLO_A_DIMENSIONS, &n);
    for (int i = 1; i < n; i++)
      if (d[i] < d[i - 1]) {
        vx_fail(v, in, "Broadcast dimensions should be ordered, got: %%%s", in->name);
        break;
      }
  }
  if (in->op == HLO_OP_RESHAPE && v->o.verify_reshape_is_bitcast && !(in->parent && in->parent->is_fused) &&
      !reshape_is_bitcast(&in->operands[0]->shape, &in->shape))
    vx_fail(v, in, "Reshape should be a physical bitcast, got: %s from %s", vx_str_layout(v, &in->shape),
            vx_str_layout(v, &in->operands[0]->shape));
  if (in->op == HLO_OP_CALL && !v->o.verify_call_nested_computation_thread_name &&
      hlo_instr_attr(in, HLO_A_OUTPUT_TO_OPERAND_ALIASING))
    vx_fail(v, in, "Call instruction %%%s may not have an output-to-operand aliasing set.", in->name);
}

void hlo_verify_instr(vctx *v, const hlo_instruction *in) {
  check_threads(v, in);
  check_sharding_consistency(v, in);
  check_options(v, in);
  hlo_verify_aliasing(v, in);
  hlo_verify_buffers(v, in);
}
