/* verify_deadlock.c - XLA's VerifyNoCollectiveDeadlocks (option
 * verify_no_collective_deadlocks, scheduled modules only): walking the
 * entry computation in order, and into called computations where they are
 * called, device-to-device sends and recvs (their frontend attribute
 * _xla_send_recv_source_target_pairs) must pair up before any other
 * collective, with no cycle and no repeated source or target among the
 * pending ones; sends and recvs left at the end must match.  A computation
 * wrapped by an async op that holds more than one instruction is walked
 * with a fresh state.  The first problem ends the check. */
#include <stdlib.h>
#include <string.h>

#include "verify/verify_internal.h"

enum { PAIRS_MAX = 4096, PENDING_MAX = 1024, DEPTH_MAX = 256 };
typedef enum { NO_EXPECTATION, EXPECT_SEND, EXPECT_RECV } dfa_state;

typedef struct pending {
  const hlo_instruction *v[PENDING_MAX];
  int n;
} pending;

typedef struct dl {
  vctx *v;
  bool failed;
} dl;

static const char *pairs_text(vctx *v, const hlo_instruction *in) {
  const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
  return fa && fa->kind == HLO_AK_RAW && fa->u.s ? vx_raw_value(v, fa->u.s, "_xla_send_recv_source_target_pairs")
                                                 : NULL;
}

/* Parses "{{0,1},{1,2}}" into p (appending at *n); false if malformed. */
static bool parse_pairs(const char *s, int64_t (*p)[2], int *n) {
  while (*s == ' ') s++;
  if (*s++ != '{') return false;
  for (;;) {
    while (*s == ' ' || *s == ',') s++;
    if (*s == '}') return true;
    if (*s++ != '{' || *n >= PAIRS_MAX) return false;
    int k = 0;
    int64_t ids[2];
    for (;;) {
      while (*s == ' ' || *s == ',') s++;
      if (*s == '}') break;
      char *e;
      long long x = strtoll(s, &e, 10);
      if (e == s || k == 2) return false;
      ids[k++] = x, s = e;
    }
    s++;
    if (k != 2) return false;
    p[*n][0] = ids[0], p[*n][1] = ids[1], (*n)++;
  }
}

static bool fail(dl *d, const hlo_instruction *in, const char *msg) {
  if (in) vx_fail(d->v, in, "%s", msg);
  else vx_fail_at(d->v, d->v->m->entry ? d->v->m->entry->off : 0, "%s", msg);
  d->failed = true;
  return false;
}

/* collective_permute_cycle::HasCycles: following source -> target ever
 * comes back. */
static bool has_cycle(int64_t (*p)[2], int n) {
  for (int i = 0; i < n; i++) {
    int64_t cur = p[i][1];
    for (int steps = 0; steps <= n; steps++) {
      if (cur == p[i][0]) return true;
      int j = 0;
      while (j < n && p[j][0] != cur) j++;
      if (j == n) break;
      cur = p[j][1];
    }
  }
  return false;
}

static bool has_duplicates(int64_t (*p)[2], int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (p[i][0] == p[j][0] || p[i][1] == p[j][1]) return true;
  return false;
}

/* VerifyNoConflictingSourceTargetPairs on pairs p[0..n), reported at in. */
static bool no_conflict(dl *d, const hlo_instruction *in, int64_t (*p)[2], int n) {
  if (has_cycle(p, n))
    return fail(d, in, "Expected send and recv instructions to have non-cyclical source-target pairs");
  if (has_duplicates(p, n))
    return fail(d, in, "Expected send and recv instructions to have unique source and target pairs");
  return true;
}

static int64_t (*scratch_pairs(dl *d))[2] {
  return hlo_arena_array(&d->v->scratch, PAIRS_MAX, sizeof(int64_t[2]));
}

/* ShouldSkipDeadlockCheck: host transfers and pipelined ones are skipped;
 * the others need their pairs, free of conflicts.  Returns -1 on error. */
static int skip(dl *d, const hlo_instruction *in) {
  if (hlo_instr_bool(in, HLO_A_IS_HOST_TRANSFER, false)) return 1;
  const hlo_attr *fa = hlo_instr_attr(in, HLO_A_FRONTEND_ATTRIBUTES);
  if (fa && fa->kind == HLO_AK_RAW && fa->u.s && strstr(fa->u.s, "_xla_send_recv_pipeline")) return 1;
  const char *t = pairs_text(d->v, in);
  int64_t (*p)[2] = scratch_pairs(d);
  int n = 0;
  if (!p) return 1;
  if (!t || !parse_pairs(t, p, &n)) {
    fail(d, in, "Instruction does not have source-target pairs attribute");
    return -1;
  }
  return no_conflict(d, in, p, n) ? 0 : -1;
}

/* VerifyNoConflictingSendOrRecv: in joined with each pending one. */
static bool joins_cleanly(dl *d, const hlo_instruction *in, const pending *set) {
  int64_t (*p)[2] = scratch_pairs(d);
  if (!p) return true;
  for (int i = 0; i < set->n; i++) {
    int n = 0;
    if (!parse_pairs(pairs_text(d->v, in), p, &n) || !parse_pairs(pairs_text(d->v, set->v[i]), p, &n)) return true;
    if (has_cycle(p, n) || has_duplicates(p, n)) return false;
  }
  return true;
}

static int find_match(dl *d, const hlo_instruction *in, const pending *set) {
  const char *mine = pairs_text(d->v, in);
  for (int i = 0; i < set->n; i++) {
    const char *theirs = pairs_text(d->v, set->v[i]);
    if (mine && theirs && !strcmp(mine, theirs)) return i;
  }
  return -1;
}

static void take(pending *set, int i) {
  set->v[i] = set->v[--set->n];
}

static bool put(dl *d, pending *set, const hlo_instruction *in) {
  if (set->n == PENDING_MAX) return fail(d, in, "too many pending sends or recvs to check for deadlocks");
  for (int i = 0; i < set->n; i++)
    if (set->v[i] == in) return true;
  set->v[set->n++] = in;
  return true;
}

/* CheckDeadlocksForSend / CheckDeadlocksForRecv (send: mine are sends). */
static bool send_or_recv(dl *d, const hlo_instruction *in, dfa_state *st, pending *mine, pending *theirs,
                         bool send) {
  int s = skip(d, in);
  if (s) return s > 0;
  dfa_state expect_me = send ? EXPECT_SEND : EXPECT_RECV, expect_other = send ? EXPECT_RECV : EXPECT_SEND;
  if (*st == NO_EXPECTATION) {
    *st = expect_other;
    return put(d, mine, in);
  }
  if (*st == expect_other) {
    if (!joins_cleanly(d, in, mine)) return fail(d, in, send ? "Expected recv, but found a send" : "Expected send, but found a recv");
    return put(d, mine, in);
  }
  (void)expect_me;
  int k = find_match(d, in, theirs);
  if (k < 0) return put(d, mine, in);
  take(theirs, k);
  if (!theirs->n) *st = NO_EXPECTATION;
  return true;
}

/* CheckPendingSendRecvDeadlocks. */
static bool pending_match(dl *d, pending *sends, pending *recvs) {
  if (!recvs->n && sends->n) return fail(d, NULL, "Expected recv to match send");
  if (!sends->n && recvs->n) return fail(d, NULL, "Expected send to match recv");
  bool unmatched = false;
  for (int i = 0; i < sends->n; i++) {
    int k = find_match(d, sends->v[i], recvs);
    if (k >= 0) take(recvs, k);
    else unmatched = true;
  }
  for (int i = 0; i < recvs->n; i++)
    if (find_match(d, recvs->v[i], sends) < 0) unmatched = true;
  return unmatched ? fail(d, NULL, "Deadlock detected: some sends and recvs are never matched") : true;
}

static bool other_collective(hlo_opcode op) {
  switch (op) {
  case HLO_OP_ALL_GATHER: case HLO_OP_ALL_REDUCE: case HLO_OP_ALL_TO_ALL: case HLO_OP_RAGGED_ALL_TO_ALL:
  case HLO_OP_COLLECTIVE_PERMUTE: case HLO_OP_REDUCE_SCATTER: case HLO_OP_COLLECTIVE_BROADCAST:
    return true;
  default:
    return false;
  }
}

/* An async-wrapped computation that is more than its root and parameters. */
static bool grouped_async(const vctx *v, const hlo_computation *c) {
  if (!v->async_comp || c->id < 0 || c->id >= v->m->ncomps || !v->async_comp[c->id]) return false;
  int n = 0;
  for (int i = 0; i < c->ninstrs; i++) n += c->instrs[i]->op != HLO_OP_PARAMETER;
  return n > 1;
}

static bool walk(dl *d, const hlo_computation *c, dfa_state *st, pending *sends, pending *recvs, int depth) {
  if (depth > DEPTH_MAX) return true;
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (!in->ncalled) {
      bool ok = true;
      if (in->op == HLO_OP_SEND) ok = send_or_recv(d, in, st, sends, recvs, true);
      else if (in->op == HLO_OP_RECV) ok = send_or_recv(d, in, st, recvs, sends, false);
      else if (other_collective(in->op) && *st != NO_EXPECTATION)
        ok = fail(d, in,
                  sends->n || recvs->n
                      ? "Expected send and recv instructions to have the same source-target pairs, but could not "
                        "match some instructions. Introducing the following instruction will cause a deadlock"
                      : "Expected send or recv, but found another collective");
      if (!ok) return false;
      continue;
    }
    for (int k = 0; k < in->ncalled; k++) {
      const hlo_computation *callee = in->called[k];
      if (!callee) continue;
      if (grouped_async(d->v, callee)) {
        dfa_state st2 = NO_EXPECTATION;
        pending *s2 = hlo_arena_alloc(&d->v->scratch, sizeof *s2), *r2 = hlo_arena_alloc(&d->v->scratch, sizeof *r2);
        if (!s2 || !r2) return true;
        s2->n = r2->n = 0;
        if (!walk(d, callee, &st2, s2, r2, depth + 1)) return false;
        if (*st != NO_EXPECTATION && !pending_match(d, s2, r2)) return false;
      } else if (!walk(d, callee, st, sends, recvs, depth + 1)) {
        return false;
      }
    }
  }
  return true;
}

void vx_check_deadlocks(vctx *v) {
  const hlo_attr *sched = hlo_module_attr(v->m, HLO_A_IS_SCHEDULED);
  if (!v->o.verify_no_collective_deadlocks || !v->m->entry || !sched || sched->kind != HLO_AK_BOOL || !sched->u.b)
    return;
  dl d = {.v = v};
  dfa_state st = NO_EXPECTATION;
  pending *sends = hlo_arena_alloc(&v->scratch, sizeof *sends), *recvs = hlo_arena_alloc(&v->scratch, sizeof *recvs);
  if (!sends || !recvs) return;
  sends->n = recvs->n = 0;
  if (walk(&d, v->m->entry, &st, sends, recvs, 0) && st != NO_EXPECTATION) pending_match(&d, sends, recvs);
}
