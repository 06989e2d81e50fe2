/* diff_match.c - the matcher: computations by name, instructions by name
 * (within matched computations, then names unique in both modules),
 * parameters by number and roots of matched computations, computations
 * called from matched call sites, identical subgraphs (structural hash,
 * unique on both sides), then greedy propagation: top-down to operands of
 * matched pairs and bottom-up to the candidate with the most matched
 * neighbours, until nothing more matches. */
#include <stdio.h>
#include <string.h>

#include "diff/diff_internal.h"
#include "hlo/hlo_text.h"

int diff_index(const diff_side *s, const hlo_instruction *in) { return s->base[in->parent->id] + in->id; }

const hlo_instruction *diff_resolve(const diff_side *s, const hlo_instruction *in) {
  for (int guard = 0; guard < 64; guard++) {
    const hlo_computation *c = in->parent;
    if (in->op == HLO_OP_PARAMETER && c->is_fused && s->caller[c->id]) {
      const hlo_instruction *f = s->caller[c->id];
      if (in->param_number < 0 || in->param_number >= f->noperands) return in;
      in = f->operands[in->param_number];
    } else if (in->op == HLO_OP_FUSION && in->ncalled == 1 && in->called[0]->root) {
      in = in->called[0]->root;
    } else if (in->op == HLO_OP_GET_TUPLE_ELEMENT && in->noperands == 1 && in->operands[0]->op == HLO_OP_FUSION &&
               in->operands[0]->ncalled == 1 && in->operands[0]->called[0]->root &&
               in->operands[0]->called[0]->root->op == HLO_OP_TUPLE) {
      const hlo_instruction *t = in->operands[0]->called[0]->root;
      int64_t k = hlo_instr_int(in, HLO_A_INDEX, -1);
      if (k < 0 || k >= t->noperands) return in;
      in = t->operands[k];
    } else {
      return in;
    }
  }
  return in;
}

static void pair(diff_state *st, int ia, int ib, hlo_diff_how how) {
  st->s[0].match[ia] = ib;
  st->s[1].match[ib] = ia;
  st->s[0].how[ia] = st->s[1].how[ib] = how;
}

static bool free_pair(const diff_state *st, const hlo_instruction *a, const hlo_instruction *b) {
  return st->s[0].match[diff_index(&st->s[0], a)] < 0 && st->s[1].match[diff_index(&st->s[1], b)] < 0;
}

static bool try_pair(diff_state *st, const hlo_instruction *a, const hlo_instruction *b, hlo_diff_how how) {
  if (!a || !b || !free_pair(st, a, b)) return false;
  pair(st, diff_index(&st->s[0], a), diff_index(&st->s[1], b), how);
  return true;
}

/* Names: look alike enough to be the same instruction. */
static bool name_compatible(const hlo_instruction *a, const hlo_instruction *b) {
  return a->op == b->op || hlo_shape_equal(&a->shape, &b->shape);
}

static void match_comp_names(diff_state *st) {
  const hlo_module *ma = st->s[0].m, *mb = st->s[1].m;
  for (int i = 0; i < ma->ncomps; i++) {
    const hlo_computation *cb = hlo_module_find_computation(mb, ma->comps[i]->name);
    if (ma->comps[i]->is_entry && mb->entry) cb = mb->entry; /* entries match whatever their names */
    if (cb && st->s[1].cmatch[cb->id] < 0) {
      st->s[0].cmatch[i] = cb->id;
      st->s[1].cmatch[cb->id] = i;
    }
  }
}

/* Parameters by number, roots, names: inside one pair of computations. */
static void match_in_comps(diff_state *st, const hlo_computation *ca, const hlo_computation *cb) {
  for (int i = 0; i < ca->ninstrs; i++) {
    const hlo_instruction *a = ca->instrs[i], *b = hlo_computation_find(cb, a->name);
    if (b && name_compatible(a, b)) try_pair(st, a, b, HLO_DIFF_BY_NAME);
  }
  for (int i = 0; i < ca->nparams && i < cb->nparams; i++)
    if (ca->params[i] && cb->params[i]) try_pair(st, ca->params[i], cb->params[i], HLO_DIFF_BY_STRUCTURE);
  if (ca->root && cb->root && ca->root->op == cb->root->op) try_pair(st, ca->root, cb->root, HLO_DIFF_BY_STRUCTURE);
}

static int count_names(hlo_strmap *m, const diff_side *s) {
  for (int i = 0; i < s->n; i++) {
    void *old = NULL;
    if (hlo_strmap_put(m, s->ins[i]->name, (void *)s->ins[i], &old)) return HLO_ERR;
    if (old) hlo_strmap_put(m, s->ins[i]->name, (void *)m, NULL); /* the map itself marks "more than one" */
  }
  return HLO_OK;
}

static int match_unique_names(diff_state *st) {
  hlo_strmap na, nb;
  hlo_strmap_init(&na, st->a);
  hlo_strmap_init(&nb, st->a);
  if (count_names(&na, &st->s[0]) || count_names(&nb, &st->s[1])) return HLO_ERR;
  for (int i = 0; i < st->s[0].n; i++) {
    const hlo_instruction *a = st->s[0].ins[i];
    const hlo_instruction *b = hlo_strmap_get(&nb, a->name);
    if (hlo_strmap_get(&na, a->name) != a || !b || b == (void *)&nb || !name_compatible(a, b)) continue;
    try_pair(st, a, b, HLO_DIFF_BY_NAME);
  }
  return HLO_OK;
}

/* Computations called from matched call sites, position by position. */
static bool match_called(diff_state *st) {
  bool more = false;
  for (int i = 0; i < st->s[0].n; i++) {
    int j = st->s[0].match[i];
    if (j < 0) continue;
    const hlo_instruction *a = st->s[0].ins[i], *b = st->s[1].ins[j];
    for (int k = 0; k < a->ncalled && k < b->ncalled; k++) {
      const hlo_computation *ca = a->called[k], *cb = b->called[k];
      if (st->s[0].cmatch[ca->id] >= 0 || st->s[1].cmatch[cb->id] >= 0) continue;
      st->s[0].cmatch[ca->id] = cb->id;
      st->s[1].cmatch[cb->id] = ca->id;
      match_in_comps(st, ca, cb);
      more = true;
    }
  }
  return more;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0x100000001b3ULL;
}

static uint64_t hash_text(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  return h;
}

/* Opcode, shape, attributes (computations by their size), operands' hashes. */
static int hash_side(diff_state *st, diff_side *s) {
  hlo_buf b;
  hlo_buf_init(&b, st->a->alloc);
  for (int i = 0; i < s->n; i++) {
    const hlo_instruction *in = s->ins[i];
    b.len = 0;
    hlo_buf_puts(&b, hlo_opcode_name(in->op));
    hlo_print_shape(&b, &in->shape, true);
    if (in->op == HLO_OP_PARAMETER) hlo_buf_printf(&b, "#%lld", (long long)in->param_number);
    if (in->op == HLO_OP_CONSTANT && in->literal) hlo_print_literal(&b, in->literal, NULL);
    for (int k = 0; k < in->nattrs; k++) {
      const hlo_attr *at = &in->attrs[k];
      if (at->key == HLO_A_METADATA || at->kind == HLO_AK_COMP || at->kind == HLO_AK_COMPS ||
          at->kind == HLO_AK_INSTRS)
        continue;
      hlo_buf_puts(&b, at->name);
      hlo_print_attr_value(&b, at, NULL);
    }
    for (int k = 0; k < in->ncalled; k++) hlo_buf_printf(&b, "c%d", in->called[k]->ninstrs);
    if (b.failed) {
      hlo_buf_release(&b);
      return HLO_ERR;
    }
    uint64_t h = hash_text(0xcbf29ce484222325ULL, b.data, b.len);
    for (int q = 0; q < in->noperands; q++) {
      const hlo_instruction *o = in->operands[q];
      int oi = diff_index(s, o);
      h = mix(h, oi < i ? s->hash[oi] : 7); /* operands written later: not hashed */
    }
    s->hash[i] = h;
  }
  hlo_buf_release(&b);
  return HLO_OK;
}

/* Identical subgraphs whose hash occurs once among the unmatched
 * instructions of each side. */
static int match_hashes(diff_state *st) {
  hlo_strmap ha, hb; /* keyed by the hash in hex */
  hlo_strmap_init(&ha, st->a);
  hlo_strmap_init(&hb, st->a);
  for (int sd = 0; sd < 2; sd++) {
    diff_side *s = &st->s[sd];
    hlo_strmap *m = sd ? &hb : &ha;
    for (int i = 0; i < s->n; i++) {
      if (s->match[i] >= 0) continue;
      char *k = hlo_arena_printf(st->a, "%016llx", (unsigned long long)s->hash[i]);
      void *old = NULL;
      if (!k || hlo_strmap_put(m, k, (void *)s->ins[i], &old)) return HLO_ERR;
      if (old) hlo_strmap_put(m, k, (void *)m, NULL);
    }
  }
  for (int i = 0; i < st->s[0].n; i++) {
    if (st->s[0].match[i] >= 0) continue;
    char k[24];
    snprintf(k, sizeof k, "%016llx", (unsigned long long)st->s[0].hash[i]);
    const hlo_instruction *a = hlo_strmap_get(&ha, k), *b = hlo_strmap_get(&hb, k);
    if (a != st->s[0].ins[i] || !b || b == (void *)&hb) continue;
    try_pair(st, a, b, HLO_DIFF_BY_STRUCTURE);
  }
  return HLO_OK;
}

/* Operand positions where the operand of a is matched to that of b. */
static int operands_agree(const diff_state *st, const hlo_instruction *a, const hlo_instruction *b) {
  int n = 0;
  for (int q = 0; q < a->noperands && q < b->noperands; q++) {
    const hlo_instruction *oa = diff_resolve(&st->s[0], a->operands[q]);
    const hlo_instruction *ob = diff_resolve(&st->s[1], b->operands[q]);
    int m = st->s[0].match[diff_index(&st->s[0], oa)];
    n += m >= 0 && st->s[1].ins[m] == ob;
  }
  return n;
}

/* Same opcode; or an opcode changed in place: same shape, every operand
 * matched to the other's. */
static bool alike(const diff_state *st, const hlo_instruction *a, const hlo_instruction *b) {
  if (a->op == b->op) return true;
  return a->noperands && a->noperands == b->noperands && hlo_shape_equal(&a->shape, &b->shape) &&
         operands_agree(st, a, b) == a->noperands;
}

/* Operands of matched pairs with the same opcode, position by position. */
static bool top_down(diff_state *st) {
  bool any = false;
  for (bool more = true; more;) {
    more = false;
    for (int i = 0; i < st->s[0].n; i++) {
      int j = st->s[0].match[i];
      if (j < 0) continue;
      const hlo_instruction *a = st->s[0].ins[i], *b = st->s[1].ins[j];
      if (a->op != b->op || a->noperands != b->noperands) continue;
      for (int q = 0; q < a->noperands; q++) {
        const hlo_instruction *oa = diff_resolve(&st->s[0], a->operands[q]);
        const hlo_instruction *ob = diff_resolve(&st->s[1], b->operands[q]);
        if (alike(st, oa, ob) && try_pair(st, oa, ob, HLO_DIFF_BY_STRUCTURE)) more = any = true;
      }
    }
  }
  return any;
}

/* Neighbours of a (in A) and b (in B) that are matched to each other. */
static double similarity(const diff_state *st, const hlo_instruction *a, const hlo_instruction *b) {
  double s = operands_agree(st, a, b);
  for (int u = 0; u < a->nusers; u++) {
    int m = st->s[0].match[diff_index(&st->s[0], a->users[u])];
    for (int v = 0; m >= 0 && v < b->nusers; v++)
      if (st->s[1].ins[m] == b->users[v]) s += 1;
  }
  if (s > 0 && hlo_shape_equal(&a->shape, &b->shape)) s += 0.5;
  return s;
}

static bool bottom_up(diff_state *st) {
  bool any = false;
  for (int i = 0; i < st->s[0].n; i++) {
    if (st->s[0].match[i] >= 0) continue;
    const hlo_instruction *a = st->s[0].ins[i], *best = NULL;
    double bs = 0;
    /* candidates: users of the matches of a's operands, operands of the matches of a's users */
    for (int q = 0; q < a->noperands; q++) {
      int m = st->s[0].match[diff_index(&st->s[0], diff_resolve(&st->s[0], a->operands[q]))];
      if (m < 0) continue;
      const hlo_instruction *ob = st->s[1].ins[m];
      for (int u = 0; u < ob->nusers; u++) {
        const hlo_instruction *b = ob->users[u];
        if (!alike(st, a, b) || st->s[1].match[diff_index(&st->s[1], b)] >= 0) continue;
        double s = similarity(st, a, b);
        if (s > bs) bs = s, best = b;
      }
    }
    for (int u = 0; u < a->nusers; u++) {
      int m = st->s[0].match[diff_index(&st->s[0], a->users[u])];
      if (m < 0) continue;
      const hlo_instruction *ub = st->s[1].ins[m];
      for (int q = 0; q < ub->noperands; q++) {
        const hlo_instruction *b = diff_resolve(&st->s[1], ub->operands[q]);
        if (!alike(st, a, b) || st->s[1].match[diff_index(&st->s[1], b)] >= 0) continue;
        double s = similarity(st, a, b);
        if (s > bs) bs = s, best = b;
      }
    }
    if (best && bs >= 1 && try_pair(st, a, best, HLO_DIFF_BY_STRUCTURE)) any = true;
  }
  return any;
}

/* Computations still unmatched: the unmatched computation of B that holds
 * the matches of most of the instructions of one of A (more than half). */
static int match_comps_by_content(diff_state *st) {
  const hlo_module *ma = st->s[0].m, *mb = st->s[1].m;
  int *votes = hlo_arena_array(st->a, (size_t)mb->ncomps + 1, sizeof *votes);
  if (!votes) return HLO_ERR;
  for (int i = 0; i < ma->ncomps; i++) {
    const hlo_computation *ca = ma->comps[i];
    if (st->s[0].cmatch[i] >= 0 || !ca->ninstrs) continue;
    memset(votes, 0, (size_t)mb->ncomps * sizeof *votes);
    int best = -1;
    for (int k = 0; k < ca->ninstrs; k++) {
      int m = st->s[0].match[diff_index(&st->s[0], ca->instrs[k])];
      if (m < 0) continue;
      int cb = st->s[1].ins[m]->parent->id;
      if (st->s[1].cmatch[cb] >= 0) continue;
      if (++votes[cb] > (best < 0 ? 0 : votes[best])) best = cb;
    }
    if (best < 0 || 2 * votes[best] <= ca->ninstrs) continue;
    st->s[0].cmatch[i] = best;
    st->s[1].cmatch[best] = i;
  }
  return HLO_OK;
}

int diff_match(diff_state *st) {
  match_comp_names(st);
  const hlo_module *ma = st->s[0].m, *mb = st->s[1].m;
  for (int i = 0; i < ma->ncomps; i++)
    if (st->s[0].cmatch[i] >= 0) match_in_comps(st, ma->comps[i], mb->comps[st->s[0].cmatch[i]]);
  if (match_unique_names(st)) return HLO_ERR;
  while (match_called(st)) {
  }
  if (hash_side(st, &st->s[0]) || hash_side(st, &st->s[1]) || match_hashes(st)) return HLO_ERR;
  for (int round = 0; round < 32; round++) {
    bool more = top_down(st);
    more |= bottom_up(st);
    more |= match_called(st);
    if (!more) break;
  }
  return match_comps_by_content(st);
}
