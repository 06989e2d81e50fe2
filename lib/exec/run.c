/* run.c - executes a plan: walks the steps of a computation, hands operand
 * values to each step's kernel, drops every value after its last use (its
 * buffer goes back to the pool), and implements the structural and control
 * kernels (constant, tuple, while, conditional, call/fusion, the done
 * halves of async collectives) shared by the fast and the reference path;
 * the generic async ops are async.c's. */
#include <string.h>
#include <time.h>

#include "exec/comm_impl.h"
#include "exec/exec.h"

/* An error without a position (about a computation a kernel called, or the
 * memory limit) gets a note naming the instruction that was running, at its
 * place in the source; the innermost such instruction only. */
static void note_position(hlo_run *r, const hlo_instruction *in) {
  const hlo_src *src = r->e->opts.src;
  if (!r->d || r->d->n == 0 || !src || !in->off) return;
  const hlo_diag *last = &r->d->v[r->d->n - 1];
  if (last->sev != HLO_SEV_ERROR || last->src) return;
  hlo_notef(r->d, src, in->off, "while running instruction %%%s (%s)", in->name, hlo_opcode_name(in->op));
}

int hlo_run_step(hlo_run *r, const plan_step *s, hlo_val **args, hlo_val **out) {
  if (s->ref_fn) return hlo_check_call(r, s, args, out);
  if (s->prof) return hlo_prof_call(r, s, args, out);
  return s->fn(r, s, args, out);
}

int hlo_run_comp(hlo_run *r, const plan_comp *pc, hlo_val **args, int nargs, hlo_val **out) {
  const hlo_computation *c = pc->comp;
  if (nargs != pc->nparams)
    return hlo_errorf(r->d, NULL, 0, "computation %s takes %d arguments, got %d", c->name,
                      pc->nparams, nargs);
  if (r->depth > 200)
    return hlo_errorf(r->d, NULL, 0, "computation %s: call depth limit reached", c->name);
  hlo_val *small[64];
  int small_uses[64];
  hlo_val **slots = small;
  int *uses = small_uses;
  if (pc->nslots > 64) {
    slots = hlo_malloc(r->alloc, sizeof(hlo_val *) * (size_t)pc->nslots);
    uses = hlo_malloc(r->alloc, sizeof(int) * (size_t)pc->nslots);
    if (!slots || !uses) {
      hlo_free(r->alloc, slots);
      hlo_free(r->alloc, uses);
      return hlo_errorf(r->d, NULL, 0, "out of memory");
    }
  }
  memset(slots, 0, sizeof(hlo_val *) * (size_t)pc->nslots);
  memcpy(uses, pc->nuses, sizeof(int) * (size_t)pc->nslots);
  for (int i = 0; i < pc->nparams; i++) {
    const hlo_instruction *p = c->params[i];
    if (p && !hlo_shape_compatible(&p->shape, args[i]->shape)) {
      if (slots != small) { hlo_free(r->alloc, slots); hlo_free(r->alloc, uses); }
      for (int j = 0; j < i; j++)
        if (pc->param_slot[j] >= 0) hlo_run_release(r, slots[pc->param_slot[j]]);
      return hlo_errorf(r->d, NULL, 0, "computation %s: argument %d does not have the shape of "
                        "parameter %%%s", c->name, i, p->name);
    }
    if (pc->param_slot[i] >= 0) slots[pc->param_slot[i]] = hlo_val_ref(args[i]);
  }
  int rc = HLO_OK;
  r->depth++;
  for (int k = 0; k < pc->nsteps && rc == HLO_OK; k++) {
    const plan_step *s = &pc->steps[k];
    hlo_val *av[16];
    hlo_val **a = av;
    if (s->nargs > 16) {
      a = hlo_malloc(r->alloc, sizeof(hlo_val *) * (size_t)s->nargs);
      if (!a) { rc = hlo_errorf(r->d, NULL, 0, "out of memory"); break; }
    }
    for (int i = 0; i < s->nargs; i++) a[i] = slots[s->args[i]];
    hlo_val *res = NULL;
    bool dyn = false;
    for (int i = 0; i < s->nargs; i++) dyn |= a[i]->dims != NULL;
    rc = dyn ? hlo_dyn_step(r, s, a, &res) : hlo_run_step(r, s, a, &res);
    if (rc == HLO_OK && !res) rc = hlo_run_errorf(r, s->in, "kernel produced no value");
    if (rc != HLO_OK) note_position(r, s->in);
    slots[s->slot] = res;
    for (int i = 0; i < s->nargs; i++) {
      int sl = s->args[i];
      if (--uses[sl] == 0) {
        hlo_run_release(r, slots[sl]);
        slots[sl] = NULL;
      }
    }
    if (a != av) hlo_free(r->alloc, a);
  }
  r->depth--;
  if (rc == HLO_OK) {
    *out = hlo_val_ref(slots[pc->root]);
    if (!*out) rc = hlo_errorf(r->d, NULL, 0, "computation %s: root has no value", c->name);
  }
  for (int i = 0; i < pc->nslots; i++)
    if (slots[i]) hlo_run_release(r, slots[i]);
  if (slots != small) {
    hlo_free(r->alloc, slots);
    hlo_free(r->alloc, uses);
  }
  return rc;
}

int hlo_run_scalar(hlo_run *r, const plan_comp *pc, const hlo_sc *in, int nin, hlo_sc *out,
                   int nout) {
  if (pc->sprog) return hlo_sprog_run(pc->sprog, in, nin, out, nout);
  const hlo_computation *c = pc->comp;
  hlo_val *args[64];
  if (nin > 64 || nin != c->nparams)
    return hlo_errorf(r->d, NULL, 0, "computation %s: expected %d scalar arguments, got %d",
                      c->name, c->nparams, nin);
  int rc = HLO_OK;
  int made = 0;
  for (; made < nin; made++) {
    const hlo_shape *ps = &c->params[made]->shape;
    args[made] = hlo_run_new_raw(r, ps);
    if (!args[made] || args[made]->nelems != 1) {
      rc = hlo_errorf(r->d, NULL, 0, "computation %s: parameter %d is not a scalar", c->name,
                      made);
      if (args[made]) made++;
      break;
    }
    hlo_sc_store(ps->type, args[made]->data, 0, in[made]);
  }
  hlo_val *res = NULL;
  if (rc == HLO_OK) rc = hlo_run_comp(r, pc, args, nin, &res);
  for (int i = 0; i < made; i++) hlo_run_release(r, args[i]);
  if (rc) return rc;
  if (res->ntuple) {
    for (int i = 0; i < nout && i < res->ntuple; i++)
      out[i] = hlo_sc_load(res->tuple[i]->shape->type, res->tuple[i]->data, 0);
  } else if (res->data) {
    out[0] = hlo_sc_load(res->shape->type, res->data, 0);
  }
  hlo_run_release(r, res);
  return HLO_OK;
}

/* ---- structural kernels -------------------------------------------------- */
DECL_KERN(hlo_ctl_parameter_unused) {
  (void)args; (void)out;
  return hlo_run_errorf(r, s->in, "parameter reached the executor");
}

static hlo_val *val_from_literal(hlo_run *r, const hlo_literal *l, const hlo_shape *s) {
  hlo_val *v = hlo_val_new(r->alloc, s);
  if (!v) return NULL;
  if (s->type == HLO_TUPLE) {
    for (int i = 0; i < v->ntuple && i < l->ntuple; i++) {
      hlo_val *e = val_from_literal(r, &l->tuple[i], &s->tuple[i]);
      if (!e) { hlo_val_release(r->alloc, v); return NULL; }
      hlo_val_release(r->alloc, v->tuple[i]);
      v->tuple[i] = e;
    }
  } else if (v->nbytes && l->data) {
    size_t lb = (size_t)l->nelems * (size_t)hlo_type_bytes(l->shape.type);
    memcpy(v->data, l->data, lb < v->nbytes ? lb : v->nbytes);
  }
  return v;
}

DECL_KERN(hlo_ctl_constant) {
  (void)args;
  plan_step *ms = (plan_step *)s; /* the cache lives in the plan */
  hlo_exec *e = r->e;
  if (!ms->p) {
    hlo_val *v = val_from_literal(r, s->in->literal, &s->in->shape);
    if (!v) return hlo_run_errorf(r, s->in, "out of memory");
    if (e->nconsts == e->capconsts) {
      int nc = e->capconsts ? 2 * e->capconsts : 16;
      hlo_val **nv = hlo_realloc(e->alloc, e->consts, sizeof(hlo_val *) * (size_t)nc);
      if (!nv) { hlo_val_release(r->alloc, v); return hlo_run_errorf(r, s->in, "out of memory"); }
      e->consts = nv;
      e->capconsts = nc;
    }
    e->consts[e->nconsts++] = v;
    ms->p = v;
  }
  *out = hlo_val_ref((hlo_val *)ms->p);
  return HLO_OK;
}

DECL_KERN(hlo_ctl_tuple) {
  hlo_val *v = hlo_malloc(r->alloc, sizeof *v);
  if (!v) return hlo_run_errorf(r, s->in, "out of memory");
  memset(v, 0, sizeof *v);
  v->refs = 1;
  v->shape = &s->in->shape;
  v->ntuple = s->nargs;
  if (s->nargs) {
    v->tuple = hlo_malloc(r->alloc, sizeof(hlo_val *) * (size_t)s->nargs);
    if (!v->tuple) { hlo_free(r->alloc, v); return hlo_run_errorf(r, s->in, "out of memory"); }
    for (int i = 0; i < s->nargs; i++) v->tuple[i] = hlo_val_ref(args[i]);
  }
  *out = v;
  return HLO_OK;
}

DECL_KERN(hlo_ctl_gte) {
  int64_t i = hlo_instr_int(s->in, HLO_A_INDEX, -1);
  if (i < 0 || i >= args[0]->ntuple)
    return hlo_run_errorf(r, s->in, "tuple index %lld out of range", (long long)i);
  *out = hlo_val_ref(args[0]->tuple[i]);
  return HLO_OK;
}

/* result = operand 0 (copy, opt-barrier, domain, add-dependency): values are
 * immutable once made, so sharing is a copy. */
DECL_KERN(hlo_ctl_forward0) {
  if (s->nargs < 1) return hlo_run_errorf(r, s->in, "needs an operand");
  *out = hlo_val_ref(args[0]);
  return HLO_OK;
}

DECL_KERN(hlo_ctl_token) {
  (void)args;
  *out = hlo_run_new(r, &s->in->shape);
  return *out ? HLO_OK : hlo_run_errorf(r, s->in, "out of memory");
}

static plan_comp *plan_of(hlo_run *r, const hlo_computation *c) {
  return c && c->id >= 0 && c->id < r->e->m->ncomps ? r->e->plans[c->id] : NULL;
}

DECL_KERN(hlo_ctl_call) {
  const plan_comp *pc = plan_of(r, s->in->called[0]);
  if (!pc) return hlo_run_errorf(r, s->in, "called computation was not planned");
  hlo_val *res = NULL;
  if (hlo_run_comp(r, pc, args, s->nargs, &res)) return HLO_ERR;
  *out = res;
  return HLO_OK;
}

static bool read_pred(const hlo_val *v) {
  return v->data && v->nelems == 1 && ((unsigned char *)v->data)[0] != 0;
}

DECL_KERN(hlo_ctl_while) {
  const hlo_attr *ca = hlo_instr_attr(s->in, HLO_A_CONDITION);
  const hlo_attr *ba = hlo_instr_attr(s->in, HLO_A_BODY);
  const plan_comp *cond = ca ? plan_of(r, ca->u.comp) : NULL;
  const plan_comp *body = ba ? plan_of(r, ba->u.comp) : NULL;
  if (!cond || !body) return hlo_run_errorf(r, s->in, "needs condition= and body=");
  hlo_val *state = hlo_val_ref(args[0]);
  int64_t limit = r->e->opts.max_while_iters;
  for (int64_t it = 0;; it++) {
    hlo_val *c = NULL;
    if (hlo_run_comp(r, cond, &state, 1, &c)) { hlo_run_release(r, state); return HLO_ERR; }
    bool go = read_pred(c);
    hlo_run_release(r, c);
    if (!go) break;
    if (limit > 0 && it >= limit) {
      hlo_run_release(r, state);
      return hlo_run_errorf(r, s->in, "while loop exceeded %lld iterations", (long long)limit);
    }
    hlo_val *ns = NULL;
    if (hlo_run_comp(r, body, &state, 1, &ns)) { hlo_run_release(r, state); return HLO_ERR; }
    hlo_run_release(r, state);
    state = ns;
  }
  *out = state;
  return HLO_OK;
}

/* Copy between a[..., t, ...] (rank-r array, dimension d of size L) and the
 * rank-(r-1) array b that drops dimension d: to_b copies a's slab into b.
 * false when b is not the size of such a slab. */
static bool slab_copy(hlo_val *a, int d, int64_t t, hlo_val *b, bool to_b) {
  const hlo_shape *s = a->shape;
  if (!a->data && a->nelems) return false;
  if (d < 0 || d >= s->rank || t < 0 || t >= s->dims[d] || b->ntuple || a->ntuple) return false;
  int64_t outer = 1, inner = 1, L = s->dims[d];
  for (int i = 0; i < d; i++) outer *= s->dims[i];
  for (int i = d + 1; i < s->rank; i++) inner *= s->dims[i];
  size_t eb = (size_t)hlo_type_bytes(s->type);
  if (b->nelems != outer * inner || b->shape->type != s->type) return false;
  size_t row = (size_t)inner * eb;
  if (!row) return true;
  for (int64_t o = 0; o < outer; o++) {
    char *pa = (char *)a->data + (size_t)(o * L + t) * row, *pb = (char *)b->data + (size_t)o * row;
    memcpy(to_b ? pb : pa, to_b ? pa : pb, row);
  }
  return true;
}

/* scan(inputs..., inits...), dimensions={d}, num_carries=k, to_apply=f
 * (XLA's HloEvaluator::HandleScan): for each position t along d (from the
 * end with is_reverse), f(input slices at t..., carries...) returns
 * (outputs..., carries...); output j is stacked at t along d.  The result
 * is (stacked outputs..., final carries...), or the single one. */
DECL_KERN(hlo_ctl_scan) {
  const hlo_instruction *in = s->in;
  const hlo_computation *f = in->ncalled ? in->called[0] : NULL;
  const plan_comp *pc = plan_of(r, f);
  int nd;
  const int64_t *dim = hlo_instr_ints(in, HLO_A_DIMENSIONS, &nd);
  int nc = (int)hlo_instr_int(in, HLO_A_NUM_CARRIES, 0), ni = s->nargs - nc;
  if (!pc || !f->root || nd != 1 || nc < 0 || ni < 0 || f->nparams != s->nargs)
    return hlo_run_errorf(r, in, "needs to_apply=, dimensions={D} and num_carries within the operands");
  const hlo_shape *root = &f->root->shape;
  int nres = root->type == HLO_TUPLE ? root->ntuple : 1, nout = nres - nc;
  int d = (int)dim[0];
  bool rev = hlo_instr_bool(in, HLO_A_IS_REVERSE, false);
  for (int i = 0; i < s->nargs; i++)
    if (args[i]->dims) return hlo_run_errorf(r, in, "operand %d has a dynamic dimension below its bound, which scan does not take", i);
  int64_t L = ni ? args[0]->shape->dims[d] : 0;
  hlo_val *res = hlo_run_new(r, &in->shape);
  hlo_val **step = hlo_malloc(r->alloc, sizeof *step * (size_t)(s->nargs + 1));
  if (!res || !step || nout < 0 || (in->shape.type == HLO_TUPLE ? res->ntuple != nres : nres != 1)) {
    hlo_run_release(r, res);
    hlo_free(r->alloc, step);
    return res && step ? hlo_run_errorf(r, in, "the result shape does not hold the outputs and carries of to_apply")
                       : hlo_run_errorf(r, in, "out of memory");
  }
  for (int i = 0; i < s->nargs; i++) step[i] = i < ni ? NULL : hlo_val_ref(args[i]);
  int rc = HLO_OK;
  for (int64_t k = 0; k < L && rc == HLO_OK; k++) {
    int64_t t = rev ? L - 1 - k : k;
    for (int i = 0; i < ni && rc == HLO_OK; i++) {
      if (!(step[i] = hlo_run_new(r, &f->params[i]->shape))) rc = hlo_run_errorf(r, in, "out of memory");
      else if (!slab_copy(args[i], d, t, step[i], true))
        rc = hlo_run_errorf(r, in, "input %d does not match parameter %d of to_apply", i, i);
    }
    hlo_val *y = NULL;
    if (rc == HLO_OK) rc = hlo_run_comp(r, pc, step, s->nargs, &y);
    for (int i = 0; i < ni; i++) {
      hlo_run_release(r, step[i]);
      step[i] = NULL;
    }
    if (rc) break;
    for (int j = 0; j < nres; j++) {
      hlo_val *piece = root->type == HLO_TUPLE ? y->tuple[j] : y;
      if (j < nout) {
        if (rc == HLO_OK && !slab_copy(in->shape.type == HLO_TUPLE ? res->tuple[j] : res, d, t, piece, false))
          rc = hlo_run_errorf(r, in, "output %d of to_apply does not match result %d", j, j);
      } else {
        hlo_run_release(r, step[ni + j - nout]);
        step[ni + j - nout] = hlo_val_ref(piece);
      }
    }
    hlo_run_release(r, y);
  }
  for (int i = 0; i < nc; i++) {
    if (rc == HLO_OK && in->shape.type == HLO_TUPLE) {
      hlo_run_release(r, res->tuple[nout + i]);
      res->tuple[nout + i] = hlo_val_ref(step[ni + i]);
    } else if (rc == HLO_OK && nout == 0) {
      hlo_run_release(r, res);
      res = hlo_val_ref(step[ni + i]);
    }
    hlo_run_release(r, step[ni + i]);
  }
  hlo_free(r->alloc, step);
  if (rc) {
    hlo_run_release(r, res);
    return HLO_ERR;
  }
  *out = res;
  return HLO_OK;
}

DECL_KERN(hlo_ctl_conditional) {
  const hlo_instruction *in = s->in;
  const hlo_attr *ta = hlo_instr_attr(in, HLO_A_TRUE_COMPUTATION);
  const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FALSE_COMPUTATION);
  const hlo_attr *ba = hlo_instr_attr(in, HLO_A_BRANCH_COMPUTATIONS);
  const hlo_computation *branch = NULL;
  int b;
  hlo_val *sel = args[0];
  if (!sel->data || sel->nelems != 1) return hlo_run_errorf(r, in, "selector is not a scalar");
  if (sel->shape->type == HLO_PRED) {
    b = read_pred(sel) ? 0 : 1;
    if (ta && fa) branch = b == 0 ? ta->u.comp : fa->u.comp;
    else if (ba && ba->u.comps.n == 2) branch = ba->u.comps.v[b];
  } else {
    int64_t idx = hlo_sc_load(sel->shape->type, sel->data, 0).i;
    int n = ba ? ba->u.comps.n : 0;
    if (n == 0) return hlo_run_errorf(r, in, "needs branch_computations=");
    b = idx < 0 || idx >= n ? n - 1 : (int)idx;
    branch = ba->u.comps.v[b];
  }
  if (!branch || 1 + b >= s->nargs)
    return hlo_run_errorf(r, in, "branch %d has no computation or operand", b);
  const plan_comp *pc = plan_of(r, branch);
  if (!pc) return hlo_run_errorf(r, in, "branch computation was not planned");
  return hlo_run_comp(r, pc, &args[1 + b], 1, out);
}

DECL_KERN(hlo_ctl_get_dimension_size) {
  int n;
  const int64_t *d = hlo_instr_ints(s->in, HLO_A_DIMENSIONS, &n);
  const hlo_shape *os = args[0]->shape;
  if (n != 1 || d[0] < 0 || d[0] >= os->rank)
    return hlo_run_errorf(r, s->in, "needs dimensions={D} within the operand rank");
  hlo_val *v = hlo_run_new(r, &s->in->shape);
  if (!v) return hlo_run_errorf(r, s->in, "out of memory");
  hlo_sc x = {0, 0, args[0]->dims ? args[0]->dims[d[0]] : os->dims[d[0]]};
  if (v->nelems == 1) hlo_sc_store(s->in->shape.type, v->data, 0, x);
  *out = v;
  return HLO_OK;
}

/* The done halves of async collectives (the result travels in the start's
 * tuple, element 1, or is the start's value itself), copy-done, and
 * collective-reduce on one device (the operand). */
DECL_KERN(hlo_ctl_collective_identity) {
  const hlo_instruction *in = s->in;
  const hlo_shape *rs = &in->shape;
  hlo_val *src = NULL;
  if (in->op == HLO_OP_COPY_DONE) {
    src = args[0]->ntuple ? args[0]->tuple[0] : args[0];
    *out = hlo_val_ref(src);
    return HLO_OK;
  }
  if (in->op == HLO_OP_ALL_GATHER_DONE || in->op == HLO_OP_ALL_REDUCE_DONE ||
      in->op == HLO_OP_COLLECTIVE_PERMUTE_DONE) {
    src = args[0];
    if (!hlo_shape_compatible(src->shape, rs) && src->ntuple >= 2) src = src->tuple[1];
  } else if (s->nargs == 1) {
    src = args[0];
  }
  if (src && hlo_shape_compatible(src->shape, rs)) {
    *out = hlo_val_ref(src);
    return HLO_OK;
  }
  if (rs->type == HLO_TUPLE) {
    /* variadic form (a tuple of results), or a start op's
     * (operand, result, ...) tuple */
    hlo_val *t = hlo_run_new(r, rs);
    if (!t) return hlo_run_errorf(r, in, "out of memory");
    bool ok = true;
    if (s->nargs == rs->ntuple) {
      for (int i = 0; i < s->nargs; i++) {
        if (!hlo_shape_compatible(args[i]->shape, &rs->tuple[i])) ok = false;
        else { hlo_run_release(r, t->tuple[i]); t->tuple[i] = hlo_val_ref(args[i]); }
      }
    } else if (s->nargs == 1 && rs->ntuple >= 2 &&
               hlo_shape_compatible(args[0]->shape, &rs->tuple[0]) &&
               hlo_shape_compatible(args[0]->shape, &rs->tuple[1])) {
      hlo_run_release(r, t->tuple[0]);
      t->tuple[0] = hlo_val_ref(args[0]);
      hlo_run_release(r, t->tuple[1]);
      t->tuple[1] = hlo_val_ref(args[0]);
    } else if (s->nargs == 1 && args[0]->ntuple == rs->ntuple) {
      for (int i = 0; i < rs->ntuple; i++) {
        if (!hlo_shape_compatible(args[0]->tuple[i]->shape, &rs->tuple[i])) ok = false;
        else { hlo_run_release(r, t->tuple[i]); t->tuple[i] = hlo_val_ref(args[0]->tuple[i]); }
      }
    } else {
      ok = false;
    }
    if (ok) { *out = t; return HLO_OK; }
    hlo_run_release(r, t);
  }
  return hlo_run_errorf(r, in, "result shape differs from the operand: this collective needs "
                        "more than one replica, and hlo-run runs one");
}

/* ---- entry point ------------------------------------------------------------- */
int hlo_exec_run(hlo_exec *e, hlo_val **args, int nargs, hlo_val **result) {
  const hlo_computation *c = e->m->entry;
  if (nargs != c->nparams)
    return hlo_errorf(e->diags, NULL, 0, "entry computation %s takes %d inputs, got %d",
                      c->name, c->nparams, nargs);
  for (int i = 0; i < nargs; i++) {
    const hlo_shape *ps = hlo_exec_param_shape(e, i);
    if (!ps || !args[i] || !hlo_shape_compatible(ps, args[i]->shape))
      return hlo_errorf(e->diags, NULL, 0, "input %d does not match the shape of parameter %d",
                        i, i);
  }
  if (e->own_comm) hlo_comm_reset(e->own_comm); /* the sends and recvs of the last run */
  hlo_run r;
  memset(&r, 0, sizeof r);
  r.e = e;
  r.alloc = e->alloc;
  r.d = e->diags;
  hlo_val *small[16], **in = nargs > 16 ? hlo_malloc(r.alloc, sizeof *in * (size_t)nargs) : small;
  if (!in) return hlo_errorf(e->diags, NULL, 0, "out of memory");
  int rc = HLO_OK, made = 0;
  for (; made < nargs && rc == HLO_OK; made++) rc = hlo_dyn_enter(&r, args[made], &in[made]);
  if (rc != HLO_OK) made--;
  if (rc == HLO_OK) rc = hlo_run_comp(&r, e->entry, in, nargs, result);
  if (rc == HLO_OK && hlo_dyn_leave(&r, result) != HLO_OK) {
    hlo_run_release(&r, *result);
    *result = NULL;
    rc = HLO_ERR;
  }
  for (int i = 0; i < made; i++) hlo_run_release(&r, in[i]);
  if (in != small) hlo_free(r.alloc, in);
  for (int i = 0; i < r.npool; i++) hlo_free(r.alloc, r.pool[i]);
  return rc;
}
