/* parse_checks.c - the semantic rules XLA's parser itself enforces, so that
 * text XLA cannot parse fails here too, before any verification: infeed's
 * tuple shape, custom-call layout constraints and api_version, result_accuracy
 * values, send-done/recv-done channel ids, async op chains, origin= without a
 * written shape, parameter_replication counts, and a computation signature
 * against its root.  They run once
 * a computation's operands are resolved.  Verifier-only rules stay in
 * lib/verify. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "text/parse_checks.h"

static const hlo_attr *attr(const hlo_instruction *in, hlo_attr_key k) { return hlo_instr_attr(in, k); }

static bool is_channel_op(hlo_opcode op) {
  return op == HLO_OP_SEND || op == HLO_OP_RECV || op == HLO_OP_SEND_DONE || op == HLO_OP_RECV_DONE ||
         (hlo_opcode_flags(op) & HLO_F_COLLECTIVE);
}

/* Print a shape into a fixed buffer for a message. */
static const char *shape_str(char *buf, size_t cap, const hlo_shape *s) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_print_shape(&b, s, false);
  snprintf(buf, cap, "%s", b.data ? b.data : "?");
  hlo_buf_release(&b);
  return buf;
}

static int check_infeed(scanner *scn, const hlo_instruction *in) {
  if (in->shape_omitted) return HLO_OK;
  if (in->shape.type != HLO_TUPLE || in->shape.ntuple == 0)
    return scan_errorf(scn, in->op_off, "infeed's shape must be a non-empty tuple (data, token)");
  return HLO_OK;
}

static const char *const API_VERSIONS[] = {"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
                                           "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};

static int check_custom_call(scanner *scn, const hlo_instruction *in) {
  const hlo_attr *v = attr(in, HLO_A_API_VERSION);
  if (v) {
    bool ok = false;
    for (size_t i = 0; i < sizeof API_VERSIONS / sizeof API_VERSIONS[0]; i++) ok |= strcmp(v->u.s, API_VERSIONS[i]) == 0;
    if (!ok)
      return scan_errorf(scn, v->off, "'%s' is not a custom-call API version (API_VERSION_ORIGINAL, "
                         "API_VERSION_STATUS_RETURNING, API_VERSION_STATUS_RETURNING_UNIFIED or API_VERSION_TYPED_FFI)",
                         v->u.s);
  }
  const hlo_attr *c = attr(in, HLO_A_OPERAND_LAYOUT_CONSTRAINTS);
  if (!c) return HLO_OK;
  if (c->u.shapes.n != in->noperands)
    return scan_errorf(scn, c->off, "operand_layout_constraints gives %d shape%s for %d operand%s", c->u.shapes.n,
                       c->u.shapes.n == 1 ? "" : "s", in->noperands, in->noperands == 1 ? "" : "s");
  for (int i = 0; i < in->noperands; i++) {
    const hlo_instruction *o = in->operands[i];
    if (o->shape_omitted || hlo_shape_compatible(&c->u.shapes.v[i], &o->shape)) continue;
    char want[256], got[256];
    return scan_errorf(scn, c->off, "operand_layout_constraints shape %d, %s, is not compatible with operand %d's shape %s", i,
                       shape_str(want, sizeof want, &c->u.shapes.v[i]), i, shape_str(got, sizeof got, &o->shape));
  }
  return HLO_OK;
}

/* send-done and recv-done repeat the channel id of the op they finish
 * (both may leave it out). */
static int check_done_channel(scanner *scn, const hlo_instruction *in) {
  if (in->noperands != 1 || !is_channel_op(in->operands[0]->op)) return HLO_OK;
  const hlo_attr *mine = attr(in, HLO_A_CHANNEL_ID), *theirs = attr(in->operands[0], HLO_A_CHANNEL_ID);
  if (!mine && !theirs) return HLO_OK;
  if (mine && theirs && mine->u.i == theirs->u.i) return HLO_OK;
  char a[32] = "none", b[32] = "none";
  if (mine) snprintf(a, sizeof a, "%lld", (long long)mine->u.i);
  if (theirs) snprintf(b, sizeof b, "%lld", (long long)theirs->u.i);
  return scan_errorf(scn, mine ? mine->off : in->op_off, "%s has channel_id %s but its operand '%s' has %s",
                     hlo_opcode_name(in->op), a, in->operands[0]->name, b);
}

/* result_accuracy={mode=NAME} with NAME default or highest in any case, or
 * result_accuracy={tolerance={atol=x, rtol=y, ulps=z}} with any of the three. */
static const char *skip_blanks(const char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  return s;
}
static const char *word(const char *s, const char **end) {
  s = skip_blanks(s);
  const char *e = s;
  while ((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9') || *e == '_') e++;
  *end = e;
  return s;
}
static bool number(const char **p) {
  const char *s = skip_blanks(*p), *e = s;
  if (*e == '-' || *e == '+') e++;
  if (strncmp(e, "inf", 3) == 0) {
    *p = e + 3;
    return true;
  }
  bool digits = false;
  while ((*e >= '0' && *e <= '9') || *e == '.' || *e == 'e' || *e == 'E' ||
         ((*e == '-' || *e == '+') && (e[-1] == 'e' || e[-1] == 'E'))) {
    digits |= *e >= '0' && *e <= '9';
    e++;
  }
  *p = e;
  return digits;
}
static const char *accuracy_error(const char *s) {
  const char *e, *w;
  s = skip_blanks(s);
  if (*s++ != '{') return "expected '{' to start it";
  w = word(s, &e);
  size_t n = (size_t)(e - w);
  s = skip_blanks(e);
  if (*s++ != '=') return "expected mode= or tolerance=";
  if (n == 4 && strncmp(w, "mode", 4) == 0) {
    w = word(s, &e);
    n = (size_t)(e - w);
    if (!((n == 7 && strncasecmp(w, "default", 7) == 0) || (n == 7 && strncasecmp(w, "highest", 7) == 0)))
      return "its mode must be default or highest";
    s = e;
  } else if (n == 9 && strncmp(w, "tolerance", 9) == 0) {
    s = skip_blanks(s);
    if (*s++ != '{') return "expected '{' after tolerance=";
    s = skip_blanks(s);
    while (*s != '}') {
      w = word(s, &e);
      n = (size_t)(e - w);
      if (!(n == 4 && (strncmp(w, "atol", 4) == 0 || strncmp(w, "rtol", 4) == 0 || strncmp(w, "ulps", 4) == 0)))
        return "a tolerance names only atol, rtol and ulps";
      s = skip_blanks(e);
      if (*s++ != '=') return "expected '=' after a tolerance name";
      if (!number(&s)) return "a tolerance value must be a number";
      s = skip_blanks(s);
      if (*s == ',') s = skip_blanks(s + 1);
      else if (*s != '}') return "expected ',' or '}' in the tolerance";
    }
    s++;
  } else {
    return "expected mode= or tolerance=";
  }
  s = skip_blanks(s);
  if (*s++ != '}') return "expected '}' to end it";
  return *skip_blanks(s) ? "unexpected text after it" : NULL;
}

static int check_result_accuracy(scanner *scn, const hlo_instruction *in) {
  const hlo_attr *a = attr(in, HLO_A_RESULT_ACCURACY);
  if (!a || a->kind != HLO_AK_RAW) return HLO_OK;
  const char *why = accuracy_error(a->u.s);
  return why ? scan_errorf(scn, a->off, "malformed result_accuracy: %s", why) : HLO_OK;
}

/* async-start's shape is ((bound operands...), result, state...); update
 * and done take an async-start or async-update first (an update's further
 * operands bind more parameters) and repeat its computation and execution
 * thread if they name them. */
static const hlo_instruction *async_start_of(const hlo_instruction *in) {
  for (int guard = 0; in && guard < 1 << 20; guard++) {
    if (in->op == HLO_OP_ASYNC_START) return in;
    if (in->op != HLO_OP_ASYNC_UPDATE || in->noperands < 1) return NULL;
    in = in->operands[0];
  }
  return NULL;
}

static int check_async(scanner *scn, const hlo_instruction *in) {
  if (in->op != HLO_OP_ASYNC_DONE && !in->shape_omitted &&
      (in->shape.type != HLO_TUPLE || in->shape.ntuple < 2 || in->shape.tuple[0].type != HLO_TUPLE))
    return scan_errorf(scn, in->op_off, "the shape of %s must be a tuple ((operands...), result, ...)",
                       hlo_opcode_name(in->op));
  if (in->op == HLO_OP_ASYNC_START) return HLO_OK;
  const hlo_instruction *o = in->noperands >= 1 ? in->operands[0] : NULL;
  if (!o || (o->op != HLO_OP_ASYNC_START && o->op != HLO_OP_ASYNC_UPDATE))
    return scan_errorf(scn, in->op_off, "%s takes an async-start or async-update as its first operand",
                       hlo_opcode_name(in->op));
  const hlo_instruction *start = async_start_of(o);
  if (!start) return HLO_OK;
  const hlo_attr *calls = attr(in, HLO_A_CALLS), *scalls = attr(start, HLO_A_CALLS);
  if (calls && scalls && calls->kind == HLO_AK_COMPS && scalls->kind == HLO_AK_COMPS && calls->u.comps.n == 1 &&
      scalls->u.comps.n == 1 && strcmp(calls->u.comps.v[0]->name, scalls->u.comps.v[0]->name) != 0)
    return scan_errorf(scn, calls->off, "%s calls '%s' but its async-start '%s' calls '%s'", hlo_opcode_name(in->op),
                       calls->u.comps.v[0]->name, start->name, scalls->u.comps.v[0]->name);
  const hlo_attr *th = attr(in, HLO_A_ASYNC_EXECUTION_THREAD), *sth = attr(start, HLO_A_ASYNC_EXECUTION_THREAD);
  const char *mine = th ? th->u.s : NULL, *theirs = sth ? sth->u.s : "main";
  if (mine && strcmp(mine, theirs) != 0)
    return scan_errorf(scn, th->off, "%s names async_execution_thread \"%s\" but its async-start '%s' runs on \"%s\"",
                       hlo_opcode_name(in->op), mine, start->name, theirs);
  return HLO_OK;
}

/* Array (and token) leaves of a shape, as parameter_replication counts them. */
static int64_t leaf_count(const hlo_shape *s) {
  if (s->type != HLO_TUPLE) return 1;
  int64_t n = 0;
  for (int i = 0; i < s->ntuple; i++) n += leaf_count(&s->tuple[i]);
  return n;
}

int check_instr_semantics(scanner *scn, const hlo_instruction *in) {
  const hlo_attr *pr = attr(in, HLO_A_PARAMETER_REPLICATION);
  if (pr && pr->kind == HLO_AK_BOOLS && !in->shape_omitted && leaf_count(&in->shape) != pr->u.bools.n)
    return scan_errorf(scn, pr->off, "parameter_replication gives %d value%s for the %lld leaves of the shape",
                       pr->u.bools.n, pr->u.bools.n == 1 ? "" : "s", (long long)leaf_count(&in->shape));
  const hlo_attr *o = attr(in, HLO_A_ORIGIN);
  if (o && in->shape_omitted) return scan_errorf(scn, o->off, "origin= needs the instruction's shape written");
  if (check_result_accuracy(scn, in)) return HLO_ERR;
  switch (in->op) {
  case HLO_OP_INFEED: return check_infeed(scn, in);
  case HLO_OP_CUSTOM_CALL: return check_custom_call(scn, in);
  case HLO_OP_SEND_DONE:
  case HLO_OP_RECV_DONE: return check_done_channel(scn, in);
  case HLO_OP_ASYNC_START:
  case HLO_OP_ASYNC_UPDATE:
  case HLO_OP_ASYNC_DONE: return check_async(scn, in);
  default: return HLO_OK;
  }
}

int check_signature_root(scanner *scn, const hlo_computation *c, const hlo_shape *declared, size_t at) {
  const hlo_instruction *r = c->root;
  if (!r || r->shape_omitted || hlo_shape_compatible(declared, &r->shape)) return HLO_OK;
  char want[256], got[256];
  return scan_errorf(scn, at, "computation '%s' is declared to return %s, but its root '%s' has shape %s", c->name,
                     shape_str(want, sizeof want, declared), r->name, shape_str(got, sizeof got, &r->shape));
}

int check_async_callers(scanner *scn, const hlo_module *m, hlo_arena *scratch) {
  hlo_strmap owner; /* wrapped computation name -> its first async-start */
  hlo_strmap_init(&owner, scratch);
  for (int ci = 0; ci < m->ncomps; ci++) {
    const hlo_computation *c = m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      hlo_instruction *in = c->instrs[i];
      const hlo_attr *a = in->op == HLO_OP_ASYNC_START ? attr(in, HLO_A_CALLS) : NULL;
      if (!a || a->kind != HLO_AK_COMPS || a->u.comps.n != 1) continue;
      void *first = NULL;
      if (hlo_strmap_put(&owner, a->u.comps.v[0]->name, in, &first)) return scan_errorf(scn, a->off, "out of memory");
      if (first)
        return scan_errorf(scn, a->off, "computation '%s' is called by more than one async-start ('%s' and '%s')",
                           a->u.comps.v[0]->name, ((hlo_instruction *)first)->name, in->name);
    }
  }
  return HLO_OK;
}
