/* plan.c - compiles a module into an execution plan: per computation the
 * reachable instructions in dependency order (every instruction, in text
 * order, where sends and recvs between devices are), operand slots, the last use of
 * every value (so its buffer returns to the pool at once), and one kernel
 * per instruction chosen here, once, from the kernel table (kernels.c). */
#include <string.h>

#include "core/bug.h"
#include "exec/exec.h"
#include "exec/fast.h"
#include "hlo/hlo_verify.h"

#define PERR HLO_PLAN_ERR

static int check_shape_rank(hlo_exec *e, const hlo_instruction *in, const hlo_shape *s) {
  if (s->type == HLO_TUPLE) {
    for (int i = 0; i < s->ntuple; i++)
      if (check_shape_rank(e, in, &s->tuple[i])) return HLO_ERR;
    return HLO_OK;
  }
  if (s->rank > MAXR)
    return PERR(e, in, "instruction %%%s: rank %d exceeds the interpreter's limit %d",
                in->name, s->rank, MAXR);
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] < 0)
      return PERR(e, in, "instruction %%%s: unbounded dimension cannot run", in->name);
  int64_t b;
  if (hlo_type_is_array(s->type) && !hlo_shape_bytes(s, &b))
    return PERR(e, in, "instruction %%%s: the size of its shape overflows 64 bits", in->name);
  return HLO_OK;
}

hlo_opcode hlo_plan_simple_reducer(const hlo_computation *c) {
  if (!c || c->nparams != 2 || !c->root || c->ninstrs != 3) return HLO_OP_COUNT;
  const hlo_instruction *r = c->root;
  if (r->noperands != 2 || !c->params[0] || !c->params[1]) return HLO_OP_COUNT;
  if (!((r->operands[0] == c->params[0] && r->operands[1] == c->params[1]) ||
        (r->operands[0] == c->params[1] && r->operands[1] == c->params[0])))
    return HLO_OP_COUNT;
  if (!hlo_shape_is_array(&r->shape) || r->shape.rank != 0) return HLO_OP_COUNT;
  switch (r->op) {
  case HLO_OP_ADD: case HLO_OP_MULTIPLY: case HLO_OP_MAXIMUM: case HLO_OP_MINIMUM:
  case HLO_OP_AND: case HLO_OP_OR: case HLO_OP_XOR:
    return r->op;
  default:
    return HLO_OP_COUNT;
  }
}

bool hlo_plan_fast(hlo_exec *e, plan_step *s) {
  const hlo_kernel_row *k = &hlo_kernels[s->in->op];
  for (int i = 0; i < HLO_FAST_CANDIDATES && k->fast[i]; i++)
    if (k->fast[i](e, s)) return true;
  return false;
}

/* The kernel of one step on the fast or the reference path. */
static int choose_kernel(hlo_exec *e, plan_step *s, bool fast) {
  const hlo_instruction *in = s->in;
  if ((unsigned)in->op >= HLO_OP_COUNT)
    return PERR(e, in, "instruction %%%s: invalid opcode", in->name);
  const hlo_kernel_row *k = &hlo_kernels[in->op];
  if (k->why_not)
    return PERR(e, in, "instruction %%%s: op '%s' is not supported by hlo-run%s%s", in->name,
                hlo_opcode_name(in->op), *k->why_not ? ": " : "", k->why_not);
  s->fn = k->ref;
  s->kname = k->ref_name;
  s->p = NULL;
  if (k->prep && k->prep(e, s)) return HLO_ERR;
  if (!s->fn) HLO_BUG("opcode %s has no kernel", hlo_opcode_name(in->op));
  if (fast && s->fn == k->ref) hlo_plan_fast(e, s); /* a kernel prep chose stays */
  return HLO_OK;
}

/* Fast kernels are used unless the options ask for the reference path or no
 * fast candidate takes the step; check mode also keeps the reference kernel
 * of the step. */
int hlo_plan_kernel(hlo_exec *e, plan_step *s) {
  /* the fast kernels of fusions, reductions and scalar programs read the
   * called computations' instructions themselves, without the convert steps
   * mixed precision added to their plans */
  bool fast = !e->opts.reference;
  for (int i = 0; i < s->in->ncalled; i++) {
    const hlo_computation *c = s->in->called[i];
    if (c && c->id >= 0 && c->id < e->m->ncomps && e->plans[c->id] && e->plans[c->id]->mixed)
      fast = false;
  }
  /* send and recv run once: a second run would be a second transfer */
  if (e->opts.check_fast && fast && !(hlo_opcode_flags(s->in->op) & HLO_F_P2P)) {
    if (choose_kernel(e, s, false)) return HLO_ERR;
    /* a kernel the row's prep chose (custom calls, sparse dots) is the same
     * on both paths; the private steps it runs are checked themselves */
    if (s->fn != hlo_kernels[s->in->op].ref) return HLO_OK;
    s->ref_fn = s->fn;
    s->ref_kname = s->kname;
    s->ref_p = s->p;
  }
  return choose_kernel(e, s, fast);
}

/* Post-order DFS from the root over operands and control predecessors,
 * with an explicit stack (a chain of 1M instructions must not overflow the
 * C stack).  mark: 0 new, 1 on the stack, 2 done. */
static int visit(hlo_exec *e, const hlo_computation *c, const hlo_instruction *root,
                 unsigned char *mark, const hlo_instruction **order, int *n) {
  size_t cap = (size_t)c->ninstrs + 1;
  const hlo_instruction **st = hlo_arena_array(&e->arena, cap, sizeof *st);
  int *edge = hlo_arena_array(&e->arena, cap, sizeof *edge);
  if (!st || !edge) return PERR(e, root, "out of memory");
  if (mark[root->id] == 2) return HLO_OK;
  size_t sp = 0;
  st[sp] = root, edge[sp] = 0, sp++;
  mark[root->id] = 1;
  while (sp) {
    const hlo_instruction *in = st[sp - 1];
    int i = edge[sp - 1]++;
    const hlo_instruction *o = NULL;
    if (i < in->noperands) {
      o = in->operands[i];
      if (!o || o->parent != c || o->id < 0 || o->id >= c->ninstrs || c->instrs[o->id] != o)
        return PERR(e, in, "instruction %%%s: operand %d is not in computation %s", in->name, i,
                    c->name);
    } else if (i < in->noperands + in->ncontrol) {
      o = in->control_preds[i - in->noperands];
      if (!o || o->parent != c || o->id < 0 || o->id >= c->ninstrs || c->instrs[o->id] != o)
        continue;
    } else {
      mark[in->id] = 2;
      order[(*n)++] = in;
      sp--;
      continue;
    }
    if (mark[o->id] == 2) continue;
    if (mark[o->id] == 1)
      return PERR(e, o, "instruction %%%s: cycle in computation %s", o->name, c->name);
    if (sp >= cap) return PERR(e, o, "instruction %%%s: cycle in computation %s", o->name, c->name);
    mark[o->id] = 1;
    st[sp] = o, edge[sp] = 0, sp++;
  }
  return HLO_OK;
}

/* Whether c holds a send or recv between devices. */
static bool has_p2p(const hlo_computation *c) {
  for (int i = 0; i < c->ninstrs; i++)
    if ((hlo_opcode_flags(c->instrs[i]->op) & HLO_F_P2P) &&
        !hlo_instr_bool(c->instrs[i], HLO_A_IS_HOST_TRANSFER, false))
      return true;
  return false;
}

plan_comp *hlo_plan_comp(hlo_exec *e, const hlo_computation *c) {
  if (!c || c->id < 0 || c->id >= e->m->ncomps) {
    hlo_errorf(e->diags, NULL, 0, "called computation is not part of the module");
    return NULL;
  }
  if (e->plans[c->id]) return e->plans[c->id];
  hlo_arena *A = &e->arena;
  plan_comp *pc = hlo_arena_alloc(A, sizeof *pc);
  if (!pc || !c->root) {
    hlo_errorf(e->diags, NULL, 0, "computation %s has no root", c->name);
    return NULL;
  }
  e->plans[c->id] = pc;
  pc->comp = c;
  pc->nslots = c->ninstrs;
  pc->root = c->root->id;
  pc->nparams = c->nparams;
  pc->param_slot = hlo_arena_array(A, (size_t)c->nparams + 1, sizeof(int));
  pc->nuses = hlo_arena_array(A, (size_t)c->ninstrs + 1, sizeof(int));
  unsigned char *mark = hlo_arena_alloc(A, (size_t)c->ninstrs + 1);
  const hlo_instruction **order = hlo_arena_array(A, (size_t)c->ninstrs + 1, sizeof(void *));
  if (!pc->param_slot || !pc->nuses || !mark || !order) goto oom;
  for (int i = 0; i < c->nparams; i++)
    pc->param_slot[i] = c->params[i] ? c->params[i]->id : -1;
  int n = 0;
  /* send and recv are kept even where the root does not need them (a
   * send-done's token is seldom used).  Every recv, then every send, is
   * started first (each after what it depends on), then the rest runs in
   * the order of the text: a transfer is started before any device waits
   * on one, so no order of the text (a tool may print it in post order)
   * makes the devices wait on each other in a ring, and the n-th send on a
   * channel still meets the n-th recv */
  bool all = has_p2p(c);
  for (int pass = 0; pass < 3 && all; pass++)
    for (int i = 0; i < c->ninstrs; i++) {
      hlo_opcode op = c->instrs[i]->op;
      if ((pass == 0 && op != HLO_OP_RECV) || (pass == 1 && op != HLO_OP_SEND)) continue;
      if (visit(e, c, c->instrs[i], mark, order, &n)) return NULL;
    }
  if (visit(e, c, c->root, mark, order, &n)) return NULL;
  int nconv = 0; /* convert steps for mixed float precision */
  for (int k = 0; k < n; k++) {
    int nc = 0;
    if (hlo_plan_mixed_check(e, order[k], &nc)) return NULL;
    nconv += nc;
  }
  pc->steps = hlo_arena_array(A, (size_t)(n + nconv) + 1, sizeof(plan_step));
  if (!pc->steps) goto oom;
  if (nconv) {
    pc->nslots = c->ninstrs + nconv;
    pc->nuses = hlo_arena_array(A, (size_t)pc->nslots + 1, sizeof(int));
    if (!pc->nuses) goto oom;
  }
  int next_slot = c->ninstrs;
  int *lastpos = hlo_arena_array(A, (size_t)pc->nslots + 1, sizeof(int));
  if (!lastpos) goto oom;
  for (int i = 0; i < pc->nslots; i++) lastpos[i] = -1;
  int ns = 0;
  for (int k = 0; k < n; k++) {
    const hlo_instruction *in = order[k];
    if (check_shape_rank(e, in, &in->shape)) return NULL;
    if (nconv) {
      int first = ns;
      in = hlo_plan_mixed_steps(e, pc, in, &ns, &next_slot);
      if (!in) return NULL;
      for (int j = first; j < ns; j++) {
        pc->nuses[pc->steps[j].args[0]]++;
        lastpos[pc->steps[j].args[0]] = j;
      }
    }
    if (in->op == HLO_OP_PARAMETER) {
      if (in->param_number < 0 || in->param_number >= c->nparams)
        return PERR(e, in, "instruction %%%s: bad parameter number", in->name), NULL;
      continue;
    }
    plan_step *s = &pc->steps[ns];
    s->in = in;
    s->slot = in->id;
    s->nargs = in->noperands;
    s->args = hlo_arena_array(A, (size_t)in->noperands + 1, sizeof(int));
    s->last_use = hlo_arena_array(A, (size_t)in->noperands + 1, sizeof(bool));
    if (!s->args || !s->last_use) goto oom;
    for (int i = 0; i < in->noperands; i++) {
      s->args[i] = in->operands[i]->id;
      pc->nuses[s->args[i]]++;
      lastpos[s->args[i]] = ns;
    }
    for (int i = 0; i < in->ncalled; i++) {
      plan_comp *sub = hlo_plan_comp(e, in->called[i]);
      if (!sub) return NULL;
      pc->mixed |= sub->mixed;
    }
    if (hlo_plan_kernel(e, s)) return NULL;
    ns++;
  }
  pc->nsteps = ns;
  pc->nuses[pc->root]++;
  /* A value may be consumed in place by the step that uses it last, when
   * that step names it once and it is not the root. */
  for (int k = 0; k < ns; k++) {
    plan_step *s = &pc->steps[k];
    for (int i = 0; i < s->nargs; i++) {
      int sl = s->args[i], cnt = 0;
      for (int j = 0; j < s->nargs; j++) cnt += s->args[j] == sl;
      s->last_use[i] = lastpos[sl] == k && cnt == 1 && sl != pc->root;
    }
  }
  if (!pc->mixed) hlo_plan_scalar(e, pc);
  return pc;
oom:
  hlo_errorf(e->diags, NULL, 0, "out of memory while planning %s", c->name);
  return NULL;
}

/* Deepest chain of nested calls from the entry (the module is verified, so
 * the call graph has no cycle).  The interpreter recurses once per level, so
 * deeper modules are refused instead of overflowing the C stack.  Explicit
 * stack, memoised: depth[c] = levels from c down, 0 = not known yet. */
#define MAX_CALL_DEPTH 200 /* as the runtime check in run.c */
static int check_call_depth(const hlo_module *m, hlo_diags *d, const hlo_allocator *alloc) {
  int n = m->ncomps, rc = HLO_OK;
  if (!m->entry || m->entry->id < 0 || m->entry->id >= n) return HLO_OK;
  int *depth = hlo_malloc(alloc, ((size_t)n + 1) * 4 * sizeof(int));
  if (!depth) return hlo_errorf(d, NULL, 0, "out of memory");
  memset(depth, 0, ((size_t)n + 1) * 4 * sizeof(int));
  int *sc = depth + n + 1, *si = sc + n + 1, *sk = si + n + 1;
  int sp = 0;
  sc[sp] = m->entry->id, si[sp] = 0, sk[sp] = 0, sp++;
  while (sp && rc == HLO_OK) {
    const hlo_computation *c = m->comps[sc[sp - 1]];
    if (si[sp - 1] >= c->ninstrs) {
      if (depth[c->id] == 0) depth[c->id] = 1;
      sp--;
      if (sp) {
        int *pd = &depth[sc[sp - 1]];
        if (*pd < depth[c->id] + 1) *pd = depth[c->id] + 1;
      }
      continue;
    }
    const hlo_instruction *in = c->instrs[si[sp - 1]];
    if (sk[sp - 1] >= in->ncalled) {
      si[sp - 1]++, sk[sp - 1] = 0;
      continue;
    }
    const hlo_computation *callee = in->called[sk[sp - 1]++];
    if (!callee || callee->id < 0 || callee->id >= n) continue;
    if (depth[callee->id]) {
      if (depth[c->id] < depth[callee->id] + 1) depth[c->id] = depth[callee->id] + 1;
      if (sp + depth[callee->id] > MAX_CALL_DEPTH) rc = HLO_ERR;
    } else if (sp >= MAX_CALL_DEPTH || sp >= n) {
      rc = HLO_ERR;
    } else {
      sc[sp] = callee->id, si[sp] = 0, sk[sp] = 0, sp++;
    }
  }
  hlo_free(alloc, depth);
  if (rc) hlo_errorf(d, NULL, 0, "computations are nested more than %d levels deep (calls, fusions, loop bodies)", MAX_CALL_DEPTH);
  return rc;
}

hlo_exec *hlo_exec_new(const hlo_module *m, const hlo_exec_options *opts,
                       const hlo_allocator *alloc, hlo_diags *d) {
  if (!m || !m->entry) {
    hlo_errorf(d, NULL, 0, "module has no entry computation");
    return NULL;
  }
  /* The kernels trust shapes and attributes: only a valid module runs, under
   * XLA's default options unless the caller allows mixed precision (the plan
   * then converts operands to the type the kernel reads, plan_mixed.c). */
  hlo_verify_options vo = {0};
  vo.allow_mixed_precision = opts && opts->allow_mixed_precision;
  if (opts && opts->comm) {
    /* the groups are checked against the devices it runs as (which may
     * be inferred, the header saying nothing); sharding device ids are
     * the partitioner's, not this run's */
    vo.replica_count = hlo_comm_replicas(opts->comm);
    vo.num_partitions = hlo_comm_partitions(opts->comm);
    vo.no_verify_sharding_device_numbers = true;
  }
  if (hlo_verify_module(m, &vo, d, opts ? opts->src : NULL) != HLO_OK) return NULL;
  if (check_call_depth(m, d, alloc) != HLO_OK) return NULL;
  hlo_exec *e = hlo_malloc(alloc, sizeof *e);
  if (!e) {
    hlo_errorf(d, NULL, 0, "out of memory");
    return NULL;
  }
  memset(e, 0, sizeof *e);
  e->m = m;
  if (opts) e->opts = *opts;
  e->alloc = alloc;
  e->diags = d;
  hlo_arena_init(&e->arena, alloc);
  const char *why = NULL;
  if (hlo_isa_effective(e->opts.isa, &e->isa_level, &why) != HLO_OK) {
    hlo_errorf(d, NULL, 0, "%s", why);
    hlo_exec_free(e);
    return NULL;
  }
  e->isa = hlo_fv_table(e->isa_level);
  e->rng_state = e->opts.rng_seed;
  e->rng_gs[0] = 0x7012395u; /* XLA's initial rng-get-and-update-state value */
  if (!e->opts.reference) {
    e->pool = hlo_fast_pool_new(e->opts.threads, alloc);
    hlo_fast_blas_threads(1); /* gemms run on e->pool (fast_gemm.c) */
  }
  e->plans = hlo_arena_array(&e->arena, (size_t)m->ncomps + 1, sizeof(plan_comp *));
  if (!e->plans) {
    hlo_errorf(d, NULL, 0, "out of memory");
    hlo_exec_free(e);
    return NULL;
  }
  for (int i = 0; i < m->ncomps; i++)
    if (m->comps[i]->id != i) {
      hlo_errorf(d, NULL, 0, "module is not linked (computation ids)");
      hlo_exec_free(e);
      return NULL;
    }
  e->entry = hlo_plan_comp(e, m->entry);
  if (!e->entry) {
    hlo_exec_free(e);
    return NULL;
  }
  if (e->opts.profile && hlo_prof_setup(e)) {
    hlo_exec_free(e);
    return NULL;
  }
  return e;
}

void hlo_exec_free(hlo_exec *e) {
  if (!e) return;
  hlo_fast_pool_free(e->pool);
  hlo_comm_free(e->own_comm);
  for (int i = 0; i < e->nsubs; i++) hlo_exec_free(e->subs[i]);
  hlo_free(e->alloc, e->subs);
  for (int i = 0; i < e->nconsts; i++) hlo_val_release(e->alloc, e->consts[i]);
  hlo_free(e->alloc, e->consts);
  hlo_arena_release(&e->arena);
  hlo_free(e->alloc, e);
}

hlo_isa hlo_exec_isa(const hlo_exec *e) { return e->isa_level; }

int hlo_exec_nparams(const hlo_exec *e) { return e->m->entry->nparams; }

const hlo_shape *hlo_exec_param_shape(const hlo_exec *e, int i) {
  const hlo_computation *c = e->m->entry;
  if (i < 0 || i >= c->nparams || !c->params[i]) return NULL;
  return &c->params[i]->shape;
}
