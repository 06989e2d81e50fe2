/* cost_fusion.c - bytes a fusion accesses, as XLA counts them: its results
 * (a dynamic-update-slice root writes only its update), its large constants,
 * and what each fused parameter's users read of it (a slice reads what it
 * keeps, an in-place update does not read its target, users that can share
 * one read of a parameter count it once). */
#include "cost/cost_internal.h"

static double shape_bytes(const hlo_instruction *in) { return hlo_cost_shape_bytes(&in->shape); }

static const hlo_instruction *fused_param(const hlo_computation *c, int i) {
  return c && i >= 0 && i < c->nparams ? c->params[i] : NULL;
}

static double param_read_bytes(const hlo_instruction *p, int depth);

/* A nested fusion user: per operand position the parameter feeds, what the
 * nested fusion's own users read (slices of a "simple" nested fusion, whose
 * root is the parameter or reads it directly) or the nested parameter's
 * reads, once. */
static double nested_fusion_reads(const hlo_instruction *p, const hlo_instruction *f, int depth) {
  const hlo_computation *c = cost_called(f, HLO_A_CALLS);
  if (!c || !c->root) return 0;
  double size = 0;
  for (int idx = 0; idx < f->noperands; idx++) {
    if (f->operands[idx] != p) continue;
    bool seen = false;
    const hlo_instruction *np = fused_param(c, idx);
    bool simple = c->root->noperands == 0 || (np && c->root->operands[0] == np);
    for (int u = 0; u < f->nusers; u++) {
      const hlo_instruction *fu = f->users[u];
      if (simple && fu->op == HLO_OP_SLICE) {
        size += shape_bytes(fu);
      } else if (simple && fu->op == HLO_OP_DYNAMIC_SLICE) {
        if (fu->noperands > 0 && fu->operands[0] == f) size += shape_bytes(fu);
        else if (!seen) seen = true, size += shape_bytes(f);
      } else if (simple && fu->op == HLO_OP_DYNAMIC_UPDATE_SLICE) {
        if (!(fu->noperands > 0 && fu->operands[0] == f) && !seen) seen = true, size += shape_bytes(f);
      } else if (!seen) {
        seen = true;
        if (np) size += param_read_bytes(np, depth + 1);
      }
    }
  }
  return size;
}

static double param_read_bytes(const hlo_instruction *p, int depth) {
  if (depth > COST_MAX_DEPTH) return shape_bytes(p);
  double size = 0;
  bool seen = false; /* a user that shares the one full read */
  for (int u = 0; u < p->nusers; u++) {
    const hlo_instruction *user = p->users[u];
    switch (user->op) {
    case HLO_OP_FUSION:
      size += nested_fusion_reads(p, user, depth);
      break;
    case HLO_OP_SLICE:
      size += shape_bytes(user);
      break;
    case HLO_OP_DYNAMIC_SLICE:
      if (user->noperands > 0 && user->operands[0] == p) size += shape_bytes(user);
      else if (!seen) seen = true, size += shape_bytes(p);
      break;
    case HLO_OP_DYNAMIC_UPDATE_SLICE: /* the target is updated in place, not read */
      if (!(user->noperands > 0 && user->operands[0] == p) && !seen) seen = true, size += shape_bytes(p);
      break;
    case HLO_OP_BROADCAST: case HLO_OP_RESHAPE: /* each reads the whole parameter */
      size += shape_bytes(p);
      break;
    default:
      if (!seen) seen = true, size += shape_bytes(p);
      break;
    }
  }
  return size;
}

/* The get-tuple-element user reached from p by index path idx (p itself
 * where a step has no such user, as XLA). */
static const hlo_instruction *gte_path(const hlo_instruction *p, const int *idx, int n) {
  for (int k = 0; k < n; k++)
    for (int u = 0; u < p->nusers; u++)
      if (p->users[u]->op == HLO_OP_GET_TUPLE_ELEMENT && hlo_instr_int(p->users[u], HLO_A_INDEX, -1) == idx[k]) {
        p = p->users[u];
        break;
      }
  return p;
}

static double tuple_param_reads(const hlo_instruction *p, const hlo_shape *s, int *idx, int n) {
  if (s->type != HLO_TUPLE) return param_read_bytes(gte_path(p, idx, n), 0);
  if (n >= 32) return 0;
  double size = 0;
  for (int i = 0; i < s->ntuple; i++) {
    idx[n] = i;
    size += tuple_param_reads(p, &s->tuple[i], idx, n + 1);
  }
  return size;
}

/* One result array: a dynamic-update-slice root writes only its update. */
static double output_bytes(const hlo_instruction *root, const hlo_shape *s) {
  if (root && root->op == HLO_OP_DYNAMIC_UPDATE_SLICE && root->noperands > 1 && root->operands[1])
    return hlo_cost_shape_bytes(&root->operands[1]->shape);
  return hlo_cost_shape_bytes(s);
}

double cost_fusion_bytes(const hlo_instruction *f) {
  const hlo_computation *c = cost_called(f, HLO_A_CALLS);
  if (!c) return 0;
  const hlo_instruction *root = c->root;
  double bytes = 0;
  if (f->shape.type != HLO_TUPLE) {
    if (hlo_shape_is_array(&f->shape)) bytes += output_bytes(root, &f->shape);
  } else {
    for (int i = 0; i < f->shape.ntuple; i++) {
      const hlo_shape *e = &f->shape.tuple[i];
      if (e->type == HLO_TUPLE) {
        bytes += hlo_cost_leaf_bytes(e); /* deeper elements: their full size */
        continue;
      }
      if (!hlo_shape_is_array(e)) continue;
      const hlo_instruction *r = root && root->op == HLO_OP_TUPLE && i < root->noperands ? root->operands[i] : root;
      bytes += output_bytes(r, e);
    }
  }
  for (int i = 0; i < c->ninstrs; i++) /* constants too large to be immediates */
    if (c->instrs[i]->op == HLO_OP_CONSTANT && cost_elems(&c->instrs[i]->shape) > 1)
      bytes += shape_bytes(c->instrs[i]);
  for (int i = 0; i < c->nparams; i++) {
    const hlo_instruction *p = c->params[i];
    if (!p) continue;
    int idx[32];
    bytes += p->shape.type == HLO_TUPLE ? tuple_param_reads(p, &p->shape, idx, 0) : param_read_bytes(p, 0);
  }
  return bytes;
}
