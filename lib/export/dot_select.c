/* dot_select.c - choosing what a graph shows: the computation, the
 * neighbourhood of an instruction (--around/--radius), the node limit with
 * markers where neighbours were cut, folded constants, and clusters for
 * expanded fusions and loop/branch bodies.  Produces an hlo_dot_graph. */
#include <string.h>

#include "hlo/hlo_dot.h"

#define MAX_EXPAND_DEPTH 16

typedef struct sel {
  hlo_dot_graph *g;
  const hlo_dot_options *o;
  const hlo_allocator *alloc;
  int cap_nodes, cap_edges, cap_clusters;
  bool *expanded; /* per computation: already drawn in some cluster */
  const hlo_instruction **by; /* per computation: the caller of its cluster */
  bool oom;
} sel;

bool hlo_dot_is_folded(const hlo_instruction *in) {
  const hlo_computation *c = in->parent;
  if (c && c->root == in) return false;
  if (in->nusers == 0) return false;
  if (in->op == HLO_OP_CONSTANT) return true;
  if (in->op == HLO_OP_BROADCAST && in->noperands == 1 && in->operands[0] &&
      in->operands[0]->op == HLO_OP_CONSTANT && hlo_shape_is_scalar(&in->operands[0]->shape))
    return true;
  return false;
}

/* Grow an arena array (old contents copied; the old block stays in the
 * arena until the view is freed, which is fine for views this size). */
static void *grow(sel *s, void *v, int *cap, int need, size_t elem) {
  if (need <= *cap) return v;
  int ncap = *cap ? *cap : 64;
  while (ncap < need) {
    if (ncap > (1 << 28)) return NULL;
    ncap *= 2;
  }
  void *nv = hlo_arena_array(&s->g->arena, (size_t)ncap, elem);
  if (!nv) return NULL;
  if (*cap) memcpy(nv, v, (size_t)*cap * elem);
  *cap = ncap;
  return nv;
}

static int add_node(sel *s, const hlo_instruction *in, int cluster) {
  hlo_dot_graph *g = s->g;
  hlo_dot_node *v = grow(s, g->nodes, &s->cap_nodes, g->nnodes + 1, sizeof *v);
  if (!v) {
    s->oom = true;
    return -1;
  }
  g->nodes = v;
  int k = g->nnodes++;
  v[k].in = in;
  v[k].cluster = cluster;
  v[k].id = hlo_arena_printf(&g->arena, "n%d", k);
  if (!v[k].id) s->oom = true;
  if (in) g->node_of[in->parent->id][in->id] = k;
  return k;
}

static void add_edge(sel *s, int from, int to, int operand, hlo_dot_edge_kind kind) {
  hlo_dot_graph *g = s->g;
  if (from < 0 || to < 0) return;
  hlo_dot_edge *v = grow(s, g->edges, &s->cap_edges, g->nedges + 1, sizeof *v);
  if (!v) {
    s->oom = true;
    return;
  }
  g->edges = v;
  v[g->nedges++] = (hlo_dot_edge){from, to, operand, kind};
}

static int add_cluster(sel *s, const hlo_instruction *caller, const hlo_computation *c, int parent) {
  hlo_dot_graph *g = s->g;
  hlo_dot_cluster *v = grow(s, g->clusters, &s->cap_clusters, g->nclusters + 1, sizeof *v);
  if (!v) {
    s->oom = true;
    return -1;
  }
  g->clusters = v;
  v[g->nclusters] = (hlo_dot_cluster){caller, c, parent};
  return g->nclusters++;
}

static int node_of(const hlo_dot_graph *g, const hlo_instruction *in) {
  return in && in->parent ? g->node_of[in->parent->id][in->id] : -1;
}

static bool expands_body(const hlo_instruction *in) {
  return hlo_opcode_flags(in->op) & HLO_F_CONTROL;
}

/* Is `in` drawn as a cluster instead of a node? */
static bool is_expanded_fusion(const sel *s, const hlo_instruction *in) {
  if (in->op != HLO_OP_FUSION || in->ncalled < 1) return false;
  return s->by[in->called[0]->id] == in;
}

/* The node that carries in's value to its users. */
static int out_node(const sel *s, const hlo_instruction *in, int depth) {
  if (depth < MAX_EXPAND_DEPTH && is_expanded_fusion(s, in)) return out_node(s, in->called[0]->root, depth + 1);
  return node_of(s->g, in);
}

/* The node that receives operand j of in. */
static int in_node(const sel *s, const hlo_instruction *in, int j, int depth) {
  if (depth < MAX_EXPAND_DEPTH && is_expanded_fusion(s, in)) {
    const hlo_computation *c = in->called[0];
    if (j < c->nparams && c->params[j]) return node_of(s->g, c->params[j]);
    return -1;
  }
  return node_of(s->g, in);
}

/* Draw all of computation c inside a new cluster (called by caller). */
static void expand(sel *s, const hlo_instruction *caller, const hlo_computation *c, int parent, int depth);

static void place(sel *s, const hlo_instruction *in, int cluster, int depth) {
  bool fusion = in->op == HLO_OP_FUSION && s->o->expand_fusions && in->ncalled >= 1 &&
                !s->expanded[in->called[0]->id] && depth < MAX_EXPAND_DEPTH && in->called[0]->root;
  if (fusion) {
    expand(s, in, in->called[0], cluster, depth + 1);
    return;
  }
  add_node(s, in, cluster);
  if (s->o->expand_bodies && expands_body(in) && depth < MAX_EXPAND_DEPTH)
    for (int k = 0; k < in->ncalled; k++)
      if (!s->expanded[in->called[k]->id] && in->called[k] != in->parent)
        expand(s, in, in->called[k], cluster, depth + 1);
}

static void expand(sel *s, const hlo_instruction *caller, const hlo_computation *c, int parent, int depth) {
  s->expanded[c->id] = true;
  s->by[c->id] = caller;
  int cl = add_cluster(s, caller, c, parent);
  if (cl < 0) return;
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (hlo_dot_is_folded(in)) {
      s->g->nfolded++;
      continue;
    }
    place(s, in, cl, depth);
  }
}

/* Edges into the drawn occurrence of every instruction of computation c. */
static void connect(sel *s, const hlo_computation *c) {
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    bool fused_cluster = is_expanded_fusion(s, in);
    if (!fused_cluster && node_of(s->g, in) < 0) continue;
    bool label = in->noperands > 1 && !(hlo_opcode_flags(in->op) & HLO_F_COMMUTATIVE);
    for (int j = 0; j < in->noperands; j++) {
      const hlo_instruction *op = in->operands[j];
      if (!op || hlo_dot_is_folded(op)) continue;
      add_edge(s, out_node(s, op, 0), in_node(s, in, j, 0), label ? j : -1, HLO_DOT_EDGE_DATA);
    }
    for (int j = 0; j < in->ncontrol; j++)
      add_edge(s, out_node(s, in->control_preds[j], 0), in_node(s, in, 0, 0), -1, HLO_DOT_EDGE_CONTROL);
    if (!fused_cluster && expands_body(in)) {
      int me = node_of(s->g, in);
      for (int k = 0; k < in->ncalled; k++) {
        const hlo_computation *b = in->called[k];
        int root = b->root ? out_node(s, b->root, 0) : -1;
        if (root < 0 || s->by[b->id] != in) continue; /* body not drawn here */
        for (int p = 0; p < b->nparams; p++)
          if (b->params[p]) add_edge(s, me, node_of(s->g, b->params[p]), -1, HLO_DOT_EDGE_CALL);
        add_edge(s, root, me, -1, HLO_DOT_EDGE_CALL);
      }
    }
  }
}

/* Order in which instructions of c are taken before the node limit: BFS
 * from `start` (over operands, and users too if `both`), then everything
 * else in text order.  dist[] gets BFS distances (-1 = unreached). */
static int *visit_order(sel *s, const hlo_computation *c, const hlo_instruction *start, bool both,
                        int *dist) {
  int n = c->ninstrs;
  int *order = hlo_arena_array(&s->g->arena, (size_t)n + 1, sizeof(int));
  if (!order) return NULL;
  for (int i = 0; i < n; i++) dist[i] = -1;
  int head = 0, tail = 0;
  if (start) {
    dist[start->id] = 0;
    order[tail++] = start->id;
  }
  while (head < tail) {
    const hlo_instruction *in = c->instrs[order[head++]];
    for (int j = 0; j < in->noperands; j++) {
      const hlo_instruction *op = in->operands[j];
      if (op && op->parent == c && dist[op->id] < 0) {
        dist[op->id] = dist[in->id] + 1;
        order[tail++] = op->id;
      }
    }
    if (!both) continue;
    for (int j = 0; j < in->nusers; j++) {
      const hlo_instruction *u = in->users[j];
      if (u && u->parent == c && dist[u->id] < 0) {
        dist[u->id] = dist[in->id] + 1;
        order[tail++] = u->id;
      }
    }
  }
  if (!both)
    for (int i = 0; i < n; i++)
      if (dist[i] < 0) order[tail++] = i;
  order[n] = tail;
  return order;
}

hlo_dot_graph *hlo_dot_select(const hlo_module *m, const hlo_dot_options *opts,
                              const hlo_allocator *alloc, hlo_diags *d) {
  static const hlo_dot_options dflt = {0};
  const hlo_dot_options *o = opts ? opts : &dflt;
  hlo_arena arena;
  hlo_arena_init(&arena, alloc);
  hlo_dot_graph *g = hlo_arena_alloc(&arena, sizeof *g);
  if (!g) {
    hlo_arena_release(&arena);
    hlo_errorf(d, NULL, 0, "out of memory");
    return NULL;
  }
  g->arena = arena;
  g->module = m;
  sel s = {g, o, alloc, 0, 0, 0, NULL, NULL, false};

  const hlo_computation *c = NULL;
  if (o->computation) {
    c = hlo_module_find_computation(m, o->computation);
    if (!c) {
      hlo_errorf(d, NULL, 0, "no computation named '%s'", o->computation);
      goto fail;
    }
  }
  if (o->around) {
    const char *name = o->around[0] == '%' ? o->around + 1 : o->around;
    for (int i = 0; i < m->ncomps && !g->focus; i++) {
      if (c && m->comps[i] != c) continue;
      g->focus = hlo_computation_find(m->comps[i], name);
    }
    if (!g->focus) {
      hlo_errorf(d, NULL, 0, "no instruction named '%s'%s%s", name, c ? " in computation " : "",
                 c ? c->name : "");
      goto fail;
    }
    c = g->focus->parent;
  }
  if (!c) c = m->entry ? m->entry : m->ncomps ? m->comps[m->ncomps - 1] : NULL;
  if (!c) {
    hlo_errorf(d, NULL, 0, "the module has no computations");
    goto fail;
  }
  g->comp = c;

  g->node_of = hlo_arena_array(&g->arena, (size_t)m->ncomps, sizeof(int *));
  s.expanded = hlo_arena_array(&g->arena, (size_t)m->ncomps + 1, sizeof(bool));
  s.by = hlo_arena_array(&g->arena, (size_t)m->ncomps + 1, sizeof(hlo_instruction *));
  if (!g->node_of || !s.expanded || !s.by) goto oom;
  for (int i = 0; i < m->ncomps; i++) {
    int n = m->comps[i]->ninstrs;
    g->node_of[i] = hlo_arena_array(&g->arena, (size_t)n + 1, sizeof(int));
    if (!g->node_of[i]) goto oom;
    for (int k = 0; k < n; k++) g->node_of[i][k] = -1;
  }
  s.expanded[c->id] = true;

  int *dist = hlo_arena_array(&g->arena, (size_t)c->ninstrs + 1, sizeof(int));
  if (!dist) goto oom;
  int *order = visit_order(&s, c, g->focus ? g->focus : c->root, g->focus != NULL, dist);
  if (!order) goto oom;
  int norder = order[c->ninstrs];
  bool *take = hlo_arena_array(&g->arena, (size_t)c->ninstrs + 1, sizeof(bool));
  if (!take) goto oom;
  int taken = 0;
  for (int k = 0; k < norder; k++) {
    const hlo_instruction *in = c->instrs[order[k]];
    if (hlo_dot_is_folded(in)) continue;
    if (g->focus && dist[in->id] > o->radius) continue;
    if (o->max_nodes > 0 && taken >= o->max_nodes) continue;
    take[in->id] = true;
    taken++;
  }
  for (int i = 0; i < c->ninstrs; i++) { /* text order keeps the layout stable */
    const hlo_instruction *in = c->instrs[i];
    if (hlo_dot_is_folded(in)) {
      bool used = false; /* count folds of drawn users only */
      for (int u = 0; u < in->nusers; u++) used |= take[in->users[u]->id];
      g->nfolded += used;
    } else if (take[i]) {
      place(&s, in, -1, 0);
    } else {
      g->ncut++;
    }
  }
  if (s.oom) goto oom;
  for (int i = 0; i < m->ncomps; i++)
    if (s.expanded[i]) connect(&s, m->comps[i]);

  /* markers where drawn instructions of c lost operands or users */
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (!take[i]) continue;
    int lost_ops = 0, lost_users = 0;
    for (int j = 0; j < in->noperands; j++) {
      const hlo_instruction *op = in->operands[j];
      if (!op || hlo_dot_is_folded(op) || take[op->id]) continue;
      bool dup = false; /* count an operand used twice once */
      for (int q = 0; q < j; q++) dup |= in->operands[q] == op;
      lost_ops += !dup;
    }
    for (int j = 0; j < in->nusers; j++) lost_users += !take[in->users[j]->id] && !hlo_dot_is_folded(in->users[j]);
    if (lost_ops) {
      int k = add_node(&s, NULL, -1);
      if (k >= 0) {
        g->nodes[k].omitted = lost_ops;
        add_edge(&s, k, in_node(&s, in, 0, 0), -1, HLO_DOT_EDGE_CUT);
      }
    }
    if (lost_users) {
      int k = add_node(&s, NULL, -1);
      if (k >= 0) {
        g->nodes[k].omitted = lost_users;
        g->nodes[k].omitted_users = true;
        add_edge(&s, out_node(&s, in, 0), k, -1, HLO_DOT_EDGE_CUT);
      }
    }
  }
  if (s.oom) goto oom;
  return g;
oom:
  hlo_errorf(d, NULL, 0, "out of memory");
fail:
  hlo_dot_graph_free(g);
  return NULL;
}

void hlo_dot_graph_free(hlo_dot_graph *g) {
  if (!g) return;
  hlo_arena arena = g->arena;
  hlo_arena_release(&arena);
}
