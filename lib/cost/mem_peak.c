/* mem_peak.c - peak live buffer memory of the entry computation over its
 * order: which instruction defines each buffer (aliasing ops and in-place
 * updates define none), the last use that frees it, one sweep for the
 * peak, and the buffers live there (rules in hlo_cost.h and docs/stats.md). */
#include <stdlib.h>
#include <string.h>

#include "cost/cost_internal.h"

/* BUF_ARG: a called computation's parameter, the caller's buffer (size 0
 * here); like a temporary it may be updated in place when it dies. */
enum { BUF_TEMP, BUF_PARAM, BUF_CONST, BUF_ARG };

typedef struct mbuf {
  const hlo_instruction *def;
  double bytes;
  int start, end, kind;
} mbuf;

typedef struct mstate {
  hlo_arena *scratch;
  hlo_diags *d;
  const hlo_module *m;
  double *extra;          /* per computation: peak of its temporaries, -1 unknown */
  unsigned char *busy;
  int depth;
} mstate;

typedef struct mcomp {
  const hlo_computation *c;
  mbuf *bufs;
  int nbufs, capbufs;
  int **leaves;  /* per instruction: buffer id of each leaf (-1: none) */
  int *nleaves;
  int *lastuse;  /* per instruction: step of its last user (root: end) */
} mcomp;

static int nleaves_of(const hlo_shape *s) {
  if (s->type != HLO_TUPLE) return 1;
  int n = 0;
  for (int i = 0; i < s->ntuple; i++) n += nleaves_of(&s->tuple[i]);
  return n;
}

static int oom(mstate *st) { return hlo_errorf(st->d, NULL, 0, "out of memory"); }

static int new_buf(mstate *st, mcomp *mc, const hlo_instruction *def, double bytes, int start, int kind) {
  if (mc->nbufs == mc->capbufs) {
    int cap = mc->capbufs ? 2 * mc->capbufs : 64;
    mbuf *nb = hlo_arena_array(st->scratch, (size_t)cap, sizeof *nb);
    if (!nb) return -1;
    if (mc->nbufs) memcpy(nb, mc->bufs, sizeof *nb * (size_t)mc->nbufs);
    mc->bufs = nb;
    mc->capbufs = cap;
  }
  mc->bufs[mc->nbufs] = (mbuf){def, bytes, start, start, kind};
  return mc->nbufs++;
}

/* Fresh buffers for the leaves of sh, in order, from lv[*k] on. */
static int define_leaves(mstate *st, mcomp *mc, const hlo_instruction *in, const hlo_shape *sh, int s, int kind,
                         bool sized, int *k, int depth) {
  if (depth > COST_MAX_DEPTH) return hlo_errorf(st->d, NULL, 0, "tuple shapes nest too deep at %%%s", in->name);
  if (sh->type == HLO_TUPLE) {
    for (int i = 0; i < sh->ntuple; i++)
      if (define_leaves(st, mc, in, &sh->tuple[i], s, kind, sized, k, depth + 1)) return HLO_ERR;
    return HLO_OK;
  }
  double b = sized && hlo_shape_is_array(sh) ? hlo_cost_shape_bytes(sh) : 0;
  int id = new_buf(st, mc, in, b, s, kind);
  if (id < 0) return oom(st);
  mc->leaves[in->id][(*k)++] = id;
  return HLO_OK;
}

/* Fresh buffers for every leaf of in's result. */
static int define_all(mstate *st, mcomp *mc, const hlo_instruction *in, int s, int kind, bool sized) {
  int k = 0;
  return define_leaves(st, mc, in, &in->shape, s, kind, sized, &k, 0);
}

/* Leaf offset of tuple element idx within shape s. */
static int leaf_offset(const hlo_shape *s, int idx) {
  int off = 0;
  for (int i = 0; i < idx && i < s->ntuple; i++) off += nleaves_of(&s->tuple[i]);
  return off;
}

/* Can in (at step s) write into operand o's buffers: o's value dies here
 * and is an intermediate (not a parameter or constant)? */
static bool leaf_reusable(const mcomp *mc, int b, int s) {
  return b >= 0 && (mc->bufs[b].kind == BUF_TEMP || mc->bufs[b].kind == BUF_ARG) && mc->bufs[b].end <= s;
}

static bool reusable(const mcomp *mc, const hlo_instruction *o, int s) {
  if (o->id < 0 || o->id >= s) return false;
  for (int k = 0; k < mc->nleaves[o->id]; k++)
    if (!leaf_reusable(mc, mc->leaves[o->id][k], s)) return false;
  return true;
}

/* Result leaf k of in is buffer b: the fresh buffer it had is dropped. */
static void take_leaf(mcomp *mc, const hlo_instruction *in, int k, int b) {
  int old = mc->leaves[in->id][k];
  if (old >= 0 && old != b) mc->bufs[old].bytes = 0;
  mc->leaves[in->id][k] = b;
}

/* Result leaves [off, off+n) of in take operand o's leaves when allowed. */
static void alias_leaves(mcomp *mc, const hlo_instruction *in, int off, const hlo_instruction *o, int ooff, int n) {
  if (o->id < 0 || o->id >= in->id || off < 0 || ooff < 0 || off + n > mc->nleaves[in->id] || ooff + n > mc->nleaves[o->id]) return;
  for (int k = 0; k < n; k++) take_leaf(mc, in, off + k, mc->leaves[o->id][ooff + k]);
}

/* The operand a fusion's result element writes in place: its root (or the
 * root tuple's element) is a dynamic-update-slice of a fused parameter. */
static const hlo_instruction *fusion_inplace_operand(const hlo_instruction *f, const hlo_instruction *r) {
  if (!r || r->op != HLO_OP_DYNAMIC_UPDATE_SLICE || r->noperands < 1 || !r->operands[0]) return NULL;
  const hlo_instruction *p = r->operands[0];
  if (p->op != HLO_OP_PARAMETER || p->param_number < 0 || p->param_number >= f->noperands) return NULL;
  return f->operands[p->param_number];
}

/* An operand defined earlier in the same computation (the verifier
 * guarantees it; unverified input must not make us read out of bounds). */
static bool ok_operand(const mcomp *mc, const hlo_instruction *in, const hlo_instruction *o) {
  return o && o->parent == mc->c && o->id >= 0 && o->id < in->id;
}

static bool same_leaves(const mcomp *mc, const hlo_instruction *a, const hlo_instruction *b) {
  return mc->nleaves[a->id] == mc->nleaves[b->id];
}

/* What an opcode does to buffers: the one per-opcode table of this
 * analysis (designated initialisers; an opcode not named allocates its
 * result, MEM_ALLOC = 0). */
typedef enum mem_role {
  MEM_ALLOC,    /* fresh buffers for its result */
  MEM_PARAM,    /* entry: the caller's input, live throughout; callee: the caller's buffer */
  MEM_CONST,    /* allocated for the whole run */
  MEM_TUPLE,    /* names its operands' buffers */
  MEM_GTE,      /* names one element of its operand */
  MEM_ALIAS,    /* names operand 0's buffers */
  MEM_INPLACE,  /* writes into operand 0 where that dies (leaf by leaf) */
  MEM_SCATTER,  /* writes into its scattered operands where they die */
  MEM_FUSION,   /* in place when its root updates a parameter (dynamic-update-slice) */
  MEM_CALLS,    /* allocates its result, and its callees' temporaries at its step */
} mem_role;

static const unsigned char MEM_ROLE[HLO_OP_COUNT] = {
    [HLO_OP_PARAMETER] = MEM_PARAM,
    [HLO_OP_CONSTANT] = MEM_CONST,
    [HLO_OP_TUPLE] = MEM_TUPLE,
    [HLO_OP_GET_TUPLE_ELEMENT] = MEM_GTE,
    [HLO_OP_BITCAST] = MEM_ALIAS,
    [HLO_OP_OPTIMIZATION_BARRIER] = MEM_ALIAS,
    [HLO_OP_ADD_DEPENDENCY] = MEM_ALIAS,
    [HLO_OP_DOMAIN] = MEM_ALIAS,
    [HLO_OP_DYNAMIC_UPDATE_SLICE] = MEM_INPLACE,
    [HLO_OP_WHILE] = MEM_INPLACE, /* and MEM_CALLS: see step_extra */
    [HLO_OP_SCATTER] = MEM_SCATTER,
    [HLO_OP_FUSION] = MEM_FUSION,
    [HLO_OP_CALL] = MEM_CALLS,
    [HLO_OP_CONDITIONAL] = MEM_CALLS,
    [HLO_OP_ASYNC_START] = MEM_CALLS,
};

static mem_role role_of(hlo_opcode op) { return op < HLO_OP_COUNT ? (mem_role)MEM_ROLE[op] : MEM_ALLOC; }

static void define_tuple(mcomp *mc, const hlo_instruction *in) {
  int off = 0;
  for (int i = 0; i < in->noperands; i++) {
    const hlo_instruction *o = in->operands[i];
    if (!o) continue;
    if (ok_operand(mc, in, o)) alias_leaves(mc, in, off, o, 0, mc->nleaves[o->id]);
    off += nleaves_of(&o->shape);
  }
}

static void define_gte(mcomp *mc, const hlo_instruction *in, const hlo_instruction *o0) {
  int64_t idx = hlo_instr_int(in, HLO_A_INDEX, -1);
  if (ok_operand(mc, in, o0) && o0->shape.type == HLO_TUPLE && idx >= 0 && idx < o0->shape.ntuple)
    alias_leaves(mc, in, 0, o0, leaf_offset(&o0->shape, (int)idx), mc->nleaves[in->id]);
}

static void define_scatter(mcomp *mc, const hlo_instruction *in, int s) {
  int n = (in->noperands - 1) / 2;
  for (int i = 0; i < n && i < mc->nleaves[in->id]; i++) {
    const hlo_instruction *o = in->operands[i];
    if (ok_operand(mc, in, o) && mc->nleaves[o->id] == 1 && reusable(mc, o, s))
      alias_leaves(mc, in, in->shape.type == HLO_TUPLE ? i : 0, o, 0, 1);
  }
}

static void define_fusion(mcomp *mc, const hlo_instruction *in, int s) {
  const hlo_computation *c = cost_called(in, HLO_A_CALLS);
  const hlo_instruction *r = c ? c->root : NULL;
  if (!r) return;
  if (in->shape.type != HLO_TUPLE) {
    const hlo_instruction *o = fusion_inplace_operand(in, r);
    if (ok_operand(mc, in, o) && mc->nleaves[o->id] == 1 && reusable(mc, o, s)) alias_leaves(mc, in, 0, o, 0, 1);
  } else if (r->op == HLO_OP_TUPLE) {
    for (int i = 0; i < r->noperands && i < in->shape.ntuple; i++) {
      const hlo_instruction *o = fusion_inplace_operand(in, r->operands[i]);
      if (ok_operand(mc, in, o) && mc->nleaves[o->id] == 1 && in->shape.tuple[i].type != HLO_TUPLE && reusable(mc, o, s))
        alias_leaves(mc, in, leaf_offset(&in->shape, i), o, 0, 1);
    }
  }
}

/* output_to_operand_aliasing={{idx}: (operand, {idx})} on fusions and custom-calls */
static void define_declared_aliases(mcomp *mc, const hlo_instruction *in, int s) {
  const hlo_attr *al = hlo_instr_attr(in, HLO_A_OUTPUT_TO_OPERAND_ALIASING);
  for (int e = 0; al && al->kind == HLO_AK_ALIASING && e < al->u.aliasing.n; e++) {
    const hlo_alias_entry *en = &al->u.aliasing.v[e];
    if (en->operand < 0 || en->operand >= in->noperands || !in->operands[en->operand]) continue;
    const hlo_instruction *o = in->operands[en->operand];
    if (!ok_operand(mc, in, o) || en->noutput > 1 || en->noperand_index > 1 || !reusable(mc, o, s)) continue;
    int off = en->noutput == 1 && in->shape.type == HLO_TUPLE ? leaf_offset(&in->shape, (int)en->output_index[0]) : 0;
    int ooff = en->noperand_index == 1 && o->shape.type == HLO_TUPLE ? leaf_offset(&o->shape, (int)en->operand_index[0]) : 0;
    alias_leaves(mc, in, off, o, ooff, 1);
  }
}

static int define(mstate *st, mcomp *mc, const hlo_instruction *in, int s, bool entry) {
  const hlo_instruction *o0 = in->noperands > 0 ? in->operands[0] : NULL;
  mem_role role = role_of(in->op);
  bool sized = role == MEM_ALLOC || role == MEM_CONST || role == MEM_INPLACE || role == MEM_SCATTER ||
               role == MEM_FUSION || role == MEM_CALLS || (role == MEM_PARAM && entry);
  int kind = role == MEM_CONST ? BUF_CONST : role == MEM_PARAM ? (entry ? BUF_PARAM : BUF_ARG) : BUF_TEMP;
  if (define_all(st, mc, in, s, kind, sized)) return HLO_ERR;
  switch (role) {
  case MEM_ALLOC: case MEM_PARAM: case MEM_CONST: case MEM_CALLS:
    break;
  case MEM_TUPLE:
    define_tuple(mc, in);
    break;
  case MEM_GTE:
    define_gte(mc, in, o0);
    break;
  case MEM_ALIAS:
    if (ok_operand(mc, in, o0) && same_leaves(mc, in, o0)) alias_leaves(mc, in, 0, o0, 0, mc->nleaves[in->id]);
    break;
  case MEM_INPLACE: /* leaf by leaf: the others are copied */
    if (ok_operand(mc, in, o0) && same_leaves(mc, in, o0))
      for (int k = 0; k < mc->nleaves[in->id]; k++)
        if (leaf_reusable(mc, mc->leaves[o0->id][k], s)) take_leaf(mc, in, k, mc->leaves[o0->id][k]);
    break;
  case MEM_SCATTER:
    define_scatter(mc, in, s);
    break;
  case MEM_FUSION:
    define_fusion(mc, in, s);
    break;
  }
  if (role == MEM_ALLOC || role == MEM_FUSION) define_declared_aliases(mc, in, s);
  return HLO_OK;
}

static int comp_peak(mstate *st, const hlo_computation *c, bool entry, mcomp *mc, double **live_out,
                     double *peak, int *at);

/* Peak of the temporaries of computation c called from an instruction. */
static int callee_extra(mstate *st, const hlo_computation *c, double *out) {
  *out = 0;
  if (!c || c->id < 0 || c->id >= st->m->ncomps) return HLO_OK;
  if (st->extra[c->id] >= 0) {
    *out = st->extra[c->id];
    return HLO_OK;
  }
  if (st->busy[c->id]) return hlo_errorf(st->d, NULL, 0, "computation %s calls itself", c->name);
  if (st->depth >= COST_MAX_DEPTH)
    return hlo_errorf(st->d, NULL, 0, "computations nest deeper than %d calls at %s", COST_MAX_DEPTH, c->name);
  st->busy[c->id] = 1;
  st->depth++;
  mcomp mc;
  int at;
  int rc = comp_peak(st, c, false, &mc, NULL, out, &at);
  st->depth--;
  st->busy[c->id] = 0;
  if (rc == HLO_OK) st->extra[c->id] = *out;
  return rc;
}

/* Temporaries of the computations a while, call, conditional or
 * async-start runs at its step (fusions allocate nothing inside; reducers
 * and comparators are scalar code). */
static int step_extra(mstate *st, const hlo_instruction *in, double *out) {
  *out = 0;
  double e = 0;
  if (role_of(in->op) != MEM_CALLS && in->op != HLO_OP_WHILE) return HLO_OK;
  for (int i = 0; i < in->ncalled; i++) {
    if (callee_extra(st, in->called[i], &e)) return HLO_ERR;
    if (e > *out) *out = e;
  }
  return HLO_OK;
}

/* Buffers, live ranges and the peak of computation c (entry: parameters
 * sized and live to the end; else parameters free). live_out, if given,
 * gets the bytes live at each step. */
static int comp_peak(mstate *st, const hlo_computation *c, bool entry, mcomp *mc, double **live_out,
                     double *peak, int *at) {
  int n = c->ninstrs;
  memset(mc, 0, sizeof *mc);
  mc->c = c;
  *peak = 0;
  *at = -1;
  if (n == 0) return HLO_OK;
  mc->leaves = hlo_arena_array(st->scratch, (size_t)n, sizeof *mc->leaves);
  mc->nleaves = hlo_arena_array(st->scratch, (size_t)n, sizeof(int));
  mc->lastuse = hlo_arena_array(st->scratch, (size_t)n, sizeof(int));
  double *delta = hlo_arena_array(st->scratch, (size_t)n + 1, sizeof(double));
  double *extra = hlo_arena_array(st->scratch, (size_t)n, sizeof(double));
  if (!mc->leaves || !mc->nleaves || !mc->lastuse || !delta || !extra) return oom(st);
  for (int i = 0; i < n; i++) {
    const hlo_instruction *in = c->instrs[i];
    mc->nleaves[i] = nleaves_of(&in->shape);
    mc->leaves[i] = hlo_arena_array(st->scratch, (size_t)mc->nleaves[i], sizeof(int));
    if (!mc->leaves[i]) return oom(st);
    int last = i;
    for (int u = 0; u < in->nusers; u++)
      if (in->users[u]->parent == c && in->users[u]->id > last) last = in->users[u]->id;
    if (in == c->root || (entry && in->op == HLO_OP_PARAMETER)) last = n - 1;
    mc->lastuse[i] = last;
  }
  for (int i = 0; i < n; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (define(st, mc, in, i, entry)) return HLO_ERR;
    for (int k = 0; k < mc->nleaves[i]; k++) {
      int b = mc->leaves[i][k];
      if (b >= 0 && mc->bufs[b].end < mc->lastuse[i]) mc->bufs[b].end = mc->lastuse[i];
    }
    if (step_extra(st, in, &extra[i])) return HLO_ERR;
  }
  /* entry outputs named by input_output_alias live in their parameter */
  const hlo_attr *io = entry ? hlo_module_attr(st->m, HLO_A_INPUT_OUTPUT_ALIAS) : NULL;
  for (int e = 0; io && io->kind == HLO_AK_ALIASING && c->root && e < io->u.aliasing.n; e++) {
    const hlo_alias_entry *en = &io->u.aliasing.v[e];
    const hlo_shape *sh = &c->root->shape;
    int off = 0, ok = 1;
    for (int k = 0; k < en->noutput && ok; k++) {
      if (sh->type != HLO_TUPLE || en->output_index[k] < 0 || en->output_index[k] >= sh->ntuple) ok = 0;
      else off += leaf_offset(sh, (int)en->output_index[k]), sh = &sh->tuple[en->output_index[k]];
    }
    if (!ok || sh->type == HLO_TUPLE || off >= mc->nleaves[c->root->id]) continue;
    int b = mc->leaves[c->root->id][off];
    if (b >= 0 && mc->bufs[b].kind == BUF_TEMP) mc->bufs[b].bytes = 0;
  }
  for (int b = 0; b < mc->nbufs; b++) {
    mbuf *x = &mc->bufs[b];
    if ((x->kind == BUF_PARAM || x->kind == BUF_CONST) && entry) x->start = 0, x->end = n - 1; /* whole run */
    if (x->kind == BUF_CONST && !entry) x->start = 0, x->end = n - 1;
    delta[x->start] += x->bytes;
    delta[x->end + 1] -= x->bytes;
  }
  double cur = 0;
  for (int i = 0; i < n; i++) {
    cur += delta[i];
    delta[i] = cur + extra[i]; /* now: live bytes at step i */
    if (*at < 0 || delta[i] > *peak) *peak = delta[i], *at = i;
  }
  if (live_out) {
    *live_out = delta;
    delta[n] = extra[*at];
  }
  return HLO_OK;
}

static int by_bytes(const void *x, const void *y) {
  const hlo_mem_live *a = x, *b = y;
  if (a->bytes != b->bytes) return a->bytes < b->bytes ? 1 : -1;
  return a->def->parent == b->def->parent ? a->def->id - b->def->id : 0;
}

int hlo_mem_peak_compute(const hlo_module *m, hlo_arena *arena, hlo_mem_peak *out, hlo_diags *d) {
  memset(out, 0, sizeof *out);
  const hlo_computation *c = m->entry;
  if (!c) return hlo_errorf(d, NULL, 0, "the module has no entry computation");
  hlo_arena scratch;
  hlo_arena_init(&scratch, arena->alloc);
  mstate st = {&scratch, d, m, NULL, NULL, 0};
  size_t nc = m->ncomps > 0 ? (size_t)m->ncomps : 1;
  st.extra = hlo_arena_array(&scratch, nc, sizeof(double));
  st.busy = hlo_arena_array(&scratch, nc, 1);
  int rc = HLO_ERR;
  mcomp mc;
  double *live = NULL;
  int at = -1;
  if (!st.extra || !st.busy) {
    oom(&st);
    goto done;
  }
  for (size_t i = 0; i < nc; i++) st.extra[i] = -1;
  if (comp_peak(&st, c, true, &mc, &live, &out->peak, &at)) goto done;
  const hlo_attr *sched = hlo_module_attr(m, HLO_A_IS_SCHEDULED);
  out->scheduled = sched && sched->kind == HLO_AK_BOOL && sched->u.b;
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (in->op == HLO_OP_PARAMETER) out->param_bytes += hlo_cost_leaf_bytes(&in->shape);
    if (in->op == HLO_OP_CONSTANT) out->constant_bytes += hlo_cost_leaf_bytes(&in->shape);
  }
  if (c->root) out->output_bytes = hlo_cost_leaf_bytes(&c->root->shape);
  rc = HLO_OK;
  if (at < 0) goto done;
  out->at = c->instrs[at];
  out->callee_bytes = live[c->ninstrs];
  /* buffers live at the peak, summed per defining instruction */
  hlo_mem_live *v = hlo_arena_array(arena, (size_t)mc.nbufs + 1, sizeof *v);
  double *per = hlo_arena_array(&scratch, (size_t)c->ninstrs, sizeof(double));
  if (!v || !per) {
    rc = oom(&st);
    goto done;
  }
  for (int b = 0; b < mc.nbufs; b++) {
    const mbuf *x = &mc.bufs[b];
    if (x->bytes > 0 && x->start <= at && at <= x->end) per[x->def->id] += x->bytes;
  }
  for (int i = 0; i < c->ninstrs; i++)
    if (per[i] > 0) v[out->nlive++] = (hlo_mem_live){c->instrs[i], per[i]};
  qsort(v, (size_t)out->nlive, sizeof *v, by_bytes);
  out->live = v;
done:
  hlo_arena_release(&scratch);
  return rc;
}
