/* verify_module.c - XLA's module-wide verifier passes: asynchronous pairs
 * (one consumer per start, the right operand per done), send/recv channels,
 * async computations that wrap a single instruction, a uniform
 * constrain_layout over all-reduces, original values shaped like their
 * instruction's shape
 * and (optionally) instruction names kept equal to metadata's
 * scheduling_name. */
#include <string.h>

#include "verify/verify_internal.h"

static bool one_of(hlo_opcode op, const hlo_opcode *set, int n) {
  for (int i = 0; i < n; i++)
    if (set[i] == op) return true;
  return false;
}

static const char *join_ops(vctx *v, const hlo_opcode *set, int n, const char *sep) {
  hlo_buf b;
  hlo_buf_init(&b, v->d->alloc);
  for (int i = 0; i < n; i++) hlo_buf_printf(&b, "%s%s", i ? sep : "", hlo_opcode_name(set[i]));
  const char *r = b.data && !b.failed ? hlo_arena_strdup(&v->scratch, b.data) : NULL;
  hlo_buf_release(&b);
  return r ? r : "?";
}

/* XLA's VerifySingleUser. */
static void single_user(vctx *v, const hlo_instruction *in, const hlo_opcode *set, int n) {
  if (in->nusers != 1) {
    vx_fail(v, in, "The %s instruction requires one consumer, found %d", hlo_opcode_name(in->op), in->nusers);
    return;
  }
  if (!one_of(in->users[0]->op, set, n))
    vx_fail(v, in, "The consumer of a %s instruction needs to be one of (%s), found %s", hlo_opcode_name(in->op),
            join_ops(v, set, n, ", "), hlo_opcode_name(in->users[0]->op));
}

/* XLA's VerifySingleOperand. */
static void single_operand(vctx *v, const hlo_instruction *in, const hlo_opcode *set, int n) {
  if (in->noperands != 1 || !in->operands[0]) return; /* reported by shape inference */
  if (!one_of(in->operands[0]->op, set, n))
    vx_fail(v, in, "The operand of a %s instruction needs to be %s, found %s", hlo_opcode_name(in->op),
            join_ops(v, set, n, " or "), hlo_opcode_name(in->operands[0]->op));
}

#define SET(...) (const hlo_opcode[]){__VA_ARGS__}, (int)(sizeof((hlo_opcode[]){__VA_ARGS__}) / sizeof(hlo_opcode))

/* A send/recv that is the root of an async computation has no consumer. */
static bool async_root(const vctx *v, const hlo_instruction *in) {
  return in->parent && in->parent->root == in && in->parent->id >= 0 && v->async_comp &&
         v->async_comp[in->parent->id];
}

static bool starts_or_updates(const hlo_instruction *o) {
  return o && (o->op == HLO_OP_ASYNC_START || o->op == HLO_OP_ASYNC_UPDATE);
}

static void check_async_pairs(vctx *v, const hlo_instruction *in) {
  for (int i = 0; i < in->noperands; i++)
    if (starts_or_updates(in->operands[i]) &&
        (i || (in->op != HLO_OP_ASYNC_UPDATE && in->op != HLO_OP_ASYNC_DONE))) {
      vx_fail(v, in,
              "Async instruction %s used as operand %d of %s. Async instructions can only be used as the first "
              "operand of async-update or async-done.",
              in->operands[i]->name, i, in->name);
      break;
    }
  switch (in->op) {
  case HLO_OP_ASYNC_START: single_user(v, in, SET(HLO_OP_ASYNC_UPDATE, HLO_OP_ASYNC_DONE)); break;
  case HLO_OP_ASYNC_UPDATE: /* operands after the first bind parameters */
    single_user(v, in, SET(HLO_OP_ASYNC_UPDATE, HLO_OP_ASYNC_DONE));
    break;
  case HLO_OP_ALL_GATHER_START: single_user(v, in, SET(HLO_OP_ALL_GATHER_DONE)); break;
  case HLO_OP_ALL_GATHER_DONE: single_operand(v, in, SET(HLO_OP_ALL_GATHER_START)); break;
  case HLO_OP_ASYNC_DONE: single_operand(v, in, SET(HLO_OP_ASYNC_START, HLO_OP_ASYNC_UPDATE)); break;
  case HLO_OP_ALL_REDUCE_START: single_user(v, in, SET(HLO_OP_ALL_REDUCE_DONE)); break;
  case HLO_OP_ALL_REDUCE_DONE: single_operand(v, in, SET(HLO_OP_ALL_REDUCE_START)); break;
  case HLO_OP_COPY_START: single_user(v, in, SET(HLO_OP_COPY_DONE)); break;
  case HLO_OP_COPY_DONE: single_operand(v, in, SET(HLO_OP_COPY_START)); break;
  case HLO_OP_COLLECTIVE_PERMUTE_START: single_user(v, in, SET(HLO_OP_COLLECTIVE_PERMUTE_DONE)); break;
  case HLO_OP_COLLECTIVE_PERMUTE_DONE: single_operand(v, in, SET(HLO_OP_COLLECTIVE_PERMUTE_START)); break;
  case HLO_OP_SEND:
    if (!async_root(v, in)) single_user(v, in, SET(HLO_OP_SEND_DONE, HLO_OP_TUPLE));
    break;
  case HLO_OP_SEND_DONE: single_operand(v, in, SET(HLO_OP_SEND, HLO_OP_GET_TUPLE_ELEMENT)); break;
  case HLO_OP_RECV:
    if (!async_root(v, in)) single_user(v, in, SET(HLO_OP_RECV_DONE, HLO_OP_TUPLE));
    break;
  case HLO_OP_RECV_DONE: single_operand(v, in, SET(HLO_OP_RECV, HLO_OP_GET_TUPLE_ELEMENT)); break;
  default: break;
  }
}

/* XLA's VerifyChannels: a send/recv and its done share channel_id and
 * is_host_transfer; an all-reduce's channel_id is positive. */
static void check_channel(vctx *v, const hlo_instruction *in) {
  const hlo_attr *ch = hlo_instr_attr(in, HLO_A_CHANNEL_ID);
  if (!ch || ch->kind != HLO_AK_INT) return;
  if (in->op == HLO_OP_ALL_REDUCE && ch->u.i <= 0)
    vx_fail(v, in, "All reduce channel id must be greater than 0 for %%%s", in->name);
  if ((in->op != HLO_OP_SEND && in->op != HLO_OP_RECV) || in->nusers != 1 || async_root(v, in)) return;
  const hlo_instruction *done = in->users[0];
  if (done->op != (in->op == HLO_OP_SEND ? HLO_OP_SEND_DONE : HLO_OP_RECV_DONE)) return;
  const hlo_attr *dc = hlo_instr_attr(done, HLO_A_CHANNEL_ID);
  int64_t a = ch->u.i, b = dc && dc->kind == HLO_AK_INT ? dc->u.i : -1;
  if (a != b) {
    vx_fail(v, in, "Expected to have the same channel id, actual channel ids are: %%%s (%lld), %%%s (%lld)", in->name,
            (long long)a, done->name, (long long)b);
    return;
  }
  if (hlo_instr_bool(in, HLO_A_IS_HOST_TRANSFER, false) != hlo_instr_bool(done, HLO_A_IS_HOST_TRANSFER, false))
    vx_fail(v, in, "Expected instructions to have the same is-host-transfer property: %%%s, %%%s", in->name,
            done->name);
}

/* XLA's OnlyContainsSendRecv: the wrapped instructions (not parameters, not
 * the grouping tuple) are all sends and recvs. */
static bool only_send_recv(const hlo_computation *c) {
  bool any = false;
  for (int i = 0; i < c->ninstrs; i++) {
    hlo_opcode op = c->instrs[i]->op;
    if (op == HLO_OP_PARAMETER || (op == HLO_OP_TUPLE && c->instrs[i] == c->root)) continue;
    if (op != HLO_OP_SEND && op != HLO_OP_RECV) return false;
    any = true;
  }
  return any;
}

static bool collectives_group(const hlo_instruction *start) {
  const hlo_attr *fa = hlo_instr_attr(start, HLO_A_FRONTEND_ATTRIBUTES);
  return fa && fa->kind == HLO_AK_RAW && fa->u.s && strstr(fa->u.s, "_collectives_group");
}

/* Mark the computations an async-start wraps (1), and those whose start is
 * a collectives group (2). */
static void mark_async(vctx *v) {
  const hlo_module *m = v->m;
  if (!m->ncomps) return;
  unsigned char *mark = hlo_arena_array(&v->scratch, (size_t)m->ncomps, 1);
  if (!mark) return;
  for (int ci = 0; ci < m->ncomps; ci++)
    for (int i = 0; i < m->comps[ci]->ninstrs; i++) {
      const hlo_instruction *in = m->comps[ci]->instrs[i];
      if (in->op != HLO_OP_ASYNC_START && in->op != HLO_OP_ASYNC_UPDATE && in->op != HLO_OP_ASYNC_DONE) continue;
      for (int k = 0; k < in->ncalled; k++) {
        const hlo_computation *c = in->called[k];
        if (!c || c->id < 0 || c->id >= m->ncomps) continue;
        if (!mark[c->id]) mark[c->id] = 1;
        if (in->op == HLO_OP_ASYNC_START && collectives_group(in)) mark[c->id] = 2;
      }
    }
  v->async_comp = mark;
}

/* XLA's VerifyAsyncComputation, which XLA applies to computations of the
 * main execution thread only. */
static void check_async_computation(vctx *v, const hlo_computation *c) {
  if (!v->async_comp || c->id < 0 || v->async_comp[c->id] != 1 || only_send_recv(c) ||
      strcmp(vx_thread(v, c), "main") != 0)
    return;
  for (int i = 0; i < c->ninstrs; i++)
    if (c->instrs[i] != c->root && c->instrs[i]->op != HLO_OP_PARAMETER) {
      vx_fail_at(v, c->off,
                 "Asynchronous computation %s expected to contain only the root and parameter instructions.",
                 c->name);
      return;
    }
}

/* XLA's VerifyLayoutConstrainedAllReduce. */
static void check_constrain_layout(vctx *v) {
  const hlo_instruction *ref = NULL;
  for (int ci = 0; ci < v->m->ncomps; ci++)
    for (int i = 0; i < v->m->comps[ci]->ninstrs; i++) {
      const hlo_instruction *in = v->m->comps[ci]->instrs[i];
      if (in->op != HLO_OP_ALL_REDUCE && in->op != HLO_OP_ALL_REDUCE_START) continue;
      if (!ref) ref = in;
      if (hlo_instr_bool(ref, HLO_A_CONSTRAIN_LAYOUT, false) != hlo_instr_bool(in, HLO_A_CONSTRAIN_LAYOUT, false)) {
        vx_fail(v, in, "HloModule has a mix of layout constrained and unconstrained AllReduce instructions.");
        return;
      }
    }
}

/* Shape indices as XLA prints them ("{0,1}"), collected in scratch. */
typedef struct leaf_set {
  const char **v;
  int n, cap;
  bool overflow;
} leaf_set;

enum { LEAF_MAX = 4096, INDEX_DEPTH_MAX = 64 };

static void add_leaf(vctx *v, leaf_set *ls, const int64_t *idx, int depth) {
  if (ls->overflow) return;
  if (ls->n == ls->cap) {
    int cap = ls->cap ? ls->cap * 2 : 16;
    const char **nv = cap <= LEAF_MAX ? hlo_arena_array(&v->scratch, (size_t)cap, sizeof *nv) : NULL;
    if (!nv) {
      ls->overflow = true;
      return;
    }
    for (int i = 0; i < ls->n; i++) nv[i] = ls->v[i];
    ls->v = nv, ls->cap = cap;
  }
  ls->v[ls->n++] = vx_index_str(v, idx, depth);
}

static void shape_leaves(vctx *v, const hlo_shape *s, int64_t *idx, int depth, leaf_set *ls) {
  if (s->type != HLO_TUPLE) {
    add_leaf(v, ls, idx, depth);
    return;
  }
  if (depth >= INDEX_DEPTH_MAX) {
    ls->overflow = true;
    return;
  }
  for (int i = 0; i < s->ntuple; i++) {
    idx[depth] = i;
    shape_leaves(v, &s->tuple[i], idx, depth + 1, ls);
  }
}

/* The end of the braced or quoted text starting at s (NULL if unclosed). */
static const char *skip_braced(const char *s) {
  int depth = 0;
  bool quoted = false;
  for (; *s; s++) {
    if (quoted) {
      if (*s == '\\' && s[1]) s++;
      else if (*s == '"') quoted = false;
    } else if (*s == '"') {
      quoted = true;
    } else if (*s == '{') {
      depth++;
    } else if (*s == '}' && --depth == 0) {
      return s + 1;
    }
  }
  return NULL;
}

/* XLA's parser reads an original value's tuple tree: '(' opens a level at
 * element 0, ',' moves to the next element, ')' closes it, and each
 * braced original array is a leaf at the current index.  Returns false
 * for [synthetic_call] (not compared) or text it cannot walk. */
static bool value_leaves(vctx *v, const char *s, leaf_set *ls) {
  int64_t idx[INDEX_DEPTH_MAX];
  int depth = 0;
  while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
  if (*s++ != '{') return false;
  for (;;) {
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
    switch (*s) {
    case '(':
      if (depth == INDEX_DEPTH_MAX) return false;
      idx[depth++] = 0, s++;
      break;
    case ')':
      if (!depth) return false;
      depth--, s++;
      break;
    case ',':
      if (!depth) return false;
      idx[depth - 1]++, s++;
      break;
    case '{':
      add_leaf(v, ls, idx, depth);
      if (!(s = skip_braced(s))) return false;
      break;
    case '}':
      return !ls->overflow;
    default:
      return false; /* [synthetic_call] */
    }
  }
}

static bool in_set(const leaf_set *ls, const char *x) {
  for (int i = 0; i < ls->n; i++)
    if (!strcmp(ls->v[i], x)) return true;
  return false;
}

static const char *only_in(vctx *v, const leaf_set *a, const leaf_set *b) {
  hlo_buf buf;
  hlo_buf_init(&buf, v->d->alloc);
  int k = 0;
  for (int i = 0; i < a->n; i++)
    if (!in_set(b, a->v[i])) hlo_buf_printf(&buf, "%s%s", k++ ? ", " : "", a->v[i]);
  const char *r = buf.data && !buf.failed ? hlo_arena_strdup(&v->scratch, buf.data) : "";
  hlo_buf_release(&buf);
  return r ? r : "";
}

/* XLA's VerifyOriginalValue: the original value's leaves are at exactly the
 * shape's leaf indices. */
static void check_original_value(vctx *v, const hlo_instruction *in) {
  const hlo_attr *o = hlo_instr_attr(in, HLO_A_ORIGIN);
  if (!o || o->kind != HLO_AK_RAW || !o->u.s) return;
  leaf_set sl = {0}, ol = {0};
  int64_t idx[INDEX_DEPTH_MAX];
  if (!value_leaves(v, o->u.s, &ol)) return;
  shape_leaves(v, &in->shape, idx, 0, &sl);
  if (sl.overflow) return;
  bool same = true;
  for (int i = 0; i < sl.n && same; i++) same = in_set(&ol, sl.v[i]);
  for (int i = 0; i < ol.n && same; i++) same = in_set(&sl, ol.v[i]);
  if (!same)
    vx_fail(v, in,
            "Mismatched tuple structure in shape and original value. Shape indices in shape only: {%s}; shape "
            "indices in original value only: {%s}",
            only_in(v, &sl, &ol), only_in(v, &ol, &sl));
}

static void check_instruction(vctx *v, const hlo_instruction *in) {
  check_async_pairs(v, in);
  check_channel(v, in);
  check_original_value(v, in);
  if (!v->o.verify_instruction_name_unchanged) return;
  const hlo_attr *md = hlo_instr_attr(in, HLO_A_METADATA);
  const char *was = md && md->kind == HLO_AK_RAW && md->u.s ? vx_raw_value(v, md->u.s, "scheduling_name") : NULL;
  if (was && *was && in->name && strcmp(was, in->name) && !strstr(in->name, ".remat") && !strstr(in->name, ".clone"))
    vx_fail(v, in, "Expected instruction name to remain the same. Was '%s' is '%s'.", was, in->name);
}

static const char *raw_attr(const hlo_instruction *in, hlo_attr_key k) {
  const hlo_attr *a = hlo_instr_attr(in, k);
  return a && a->kind == HLO_AK_RAW ? a->u.s : NULL;
}

static const char *sharding_text(const hlo_instruction *in) {
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_SHARDING);
  return a && a->kind == HLO_AK_SHARDING && a->u.sharding ? a->u.sharding->text : NULL;
}

/* XLA's HloInstruction::Identical for two host-transfer sends or recvs,
 * operands compared by shape: the opcode, the shape XLA builds (a send's
 * from its data operand), the operand shapes and the attributes. */
static bool same_transfer(const hlo_instruction *a, const hlo_instruction *b) {
  if (a->op != b->op || a->noperands != b->noperands) return false;
  for (int i = 0; i < a->noperands; i++)
    if (!hlo_shape_equal(&a->operands[i]->shape, &b->operands[i]->shape)) return false;
  if (a->op == HLO_OP_RECV && !hlo_shape_equal(&a->shape, &b->shape)) return false;
  return vx_same_text(raw_attr(a, HLO_A_FRONTEND_ATTRIBUTES), raw_attr(b, HLO_A_FRONTEND_ATTRIBUTES)) &&
         vx_same_text(sharding_text(a), sharding_text(b));
}

/* XLA's VerifyChannels: host-transfer sends and recvs of one channel are
 * identical up to their operands (which keep their shapes); the first one
 * of the channel is the reference. */
static int64_t host_channel(const hlo_instruction *in) {
  const hlo_attr *ch = hlo_instr_attr(in, HLO_A_CHANNEL_ID);
  if ((in->op != HLO_OP_SEND && in->op != HLO_OP_RECV) || !ch || ch->kind != HLO_AK_INT ||
      !hlo_instr_bool(in, HLO_A_IS_HOST_TRANSFER, false))
    return -1;
  return ch->u.i < 0 ? -1 : ch->u.i;
}

static void check_host_transfers(vctx *v) {
  const hlo_module *m = v->m;
  int n = 0;
  for (int ci = 0; ci < m->ncomps; ci++)
    for (int i = 0; i < m->comps[ci]->ninstrs; i++) n += host_channel(m->comps[ci]->instrs[i]) >= 0;
  if (n < 2) return;
  const hlo_instruction **h = hlo_arena_array(&v->scratch, (size_t)n, sizeof *h);
  if (!h) return;
  n = 0;
  for (int ci = 0; ci < m->ncomps; ci++)
    for (int i = 0; i < m->comps[ci]->ninstrs; i++)
      if (host_channel(m->comps[ci]->instrs[i]) >= 0) h[n++] = m->comps[ci]->instrs[i];
  for (int i = 1; i < n; i++) {
    int j = 0;
    while (host_channel(h[j]) != host_channel(h[i])) j++;
    if (j < i && !same_transfer(h[j], h[i])) {
      vx_fail(v, h[i],
              "Host-transfer send/recv instructions that use the same channel must be identical up to having "
              "different operands. Found different instructions with the same channel ID: %%%s vs %%%s.",
              h[j]->name, h[i]->name);
      return;
    }
  }
}

void hlo_verify_module_passes(vctx *v) {
  mark_async(v);
  for (int ci = 0; ci < v->m->ncomps; ci++) {
    const hlo_computation *c = v->m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) check_instruction(v, c->instrs[i]);
    check_async_computation(v, c);
  }
  check_constrain_layout(v);
  check_host_transfers(v);
  vx_check_deadlocks(v);
}
