/* parse_checks.c - the semantic rules XLA's parser itself enforces, so that
 * text XLA cannot parse fails here too, before any verification: infeed's
 * tuple shape, custom-call layout constraints and api_version, result_accuracy
 * values, send-done/recv-done channel ids, async op chains, origin= without a
 * written shape, parameter_replication counts, and a computation signature
 * against its root.  They run once
 * a computation's operands are resolved.  Verifier-only rules stay in
 * lib/verify. */
#include <ctype.h>
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
    return scan_errorf(scn, in->op_off, "infeed must have a non-empty tuple shape (data, token)");
  return HLO_OK;
}

static const char *const API_VERSIONS[] = {"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
                                           "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};

static int check_custom_call(scanner *scn, const hlo_instruction *in) {
  const hlo_attr *v = attr(in, HLO_A_API_VERSION);
  if (v) {
    bool ok = false;
    for (size_t i = 0; i < sizeof API_VERSIONS / sizeof API_VERSIONS[0]; i++) ok |= strcmp(v->u.s, API_VERSIONS[i]) == 0;
    if (!ok && strcmp(v->u.s, "API_VERSION_UNSPECIFIED") == 0)
      return scan_errorf(scn, v->off, "Invalid API version: %s", v->u.s);
    if (!ok)
      return scan_errorf(scn, v->off, "expects custom-call API version but sees: %s (Unknown API version; one of "
                         "API_VERSION_ORIGINAL, API_VERSION_STATUS_RETURNING, API_VERSION_STATUS_RETURNING_UNIFIED or "
                         "API_VERSION_TYPED_FFI)",
                         v->u.s);
  }
  const hlo_attr *c = attr(in, HLO_A_OPERAND_LAYOUT_CONSTRAINTS);
  if (!c) return HLO_OK;
  if (c->u.shapes.n != in->noperands)
    return scan_errorf(scn, c->off, "Expected %d operand layout constraints, %d given", in->noperands, c->u.shapes.n);
  for (int i = 0; i < in->noperands; i++) {
    const hlo_instruction *o = in->operands[i];
    if (o->shape_omitted || hlo_shape_compatible(&c->u.shapes.v[i], &o->shape)) continue;
    char want[256], got[256];
    return scan_errorf(scn, c->off, "Operand layout constraint shape %s for operand %d is not compatible with operand shape %s",
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
/* What is wrong with a result_accuracy value, in XLA's words
 * (ParseResultAccuracy), written into buf; NULL when it is well formed. */
static const char *accuracy_error(const char *s, char *buf, size_t cap) {
  const char *e, *w;
  s = skip_blanks(s);
  if (*s++ != '{') return "expected '{' to start it";
  w = word(s, &e);
  size_t n = (size_t)(e - w);
  s = skip_blanks(e);
  if (!n || *s++ != '=') return "expects attribute name (mode= or tolerance=)";
  if (n == 4 && strncmp(w, "mode", 4) == 0) {
    w = word(s, &e);
    n = (size_t)(e - w);
    if (!((n == 7 && strncasecmp(w, "default", 7) == 0) || (n == 7 && strncasecmp(w, "highest", 7) == 0))) {
      snprintf(buf, cap, "expects ResultAccuracy type but sees: %.*s (default or highest)", (int)(n > 40 ? 40 : n), w);
      return buf;
    }
    s = e;
  } else if (n == 9 && strncmp(w, "tolerance", 9) == 0) {
    s = skip_blanks(s);
    if (*s++ != '{') return "expected '{' after tolerance=";
    s = skip_blanks(s);
    while (*s != '}') {
      w = word(s, &e);
      n = (size_t)(e - w);
      if (!(n == 4 && (strncmp(w, "atol", 4) == 0 || strncmp(w, "rtol", 4) == 0 || strncmp(w, "ulps", 4) == 0))) {
        snprintf(buf, cap, "invalid attribute name: %.*s (a tolerance names atol, rtol and ulps)", (int)(n > 40 ? 40 : n), w);
        return buf;
      }
      s = skip_blanks(e);
      if (*s++ != '=') return "expected '=' after a tolerance name";
      if (!number(&s)) return "a tolerance value must be a number";
      s = skip_blanks(s);
      if (*s == ',') s = skip_blanks(s + 1);
      else if (*s != '}') return "expected ',' or '}' in the tolerance";
    }
    s++;
  } else {
    snprintf(buf, cap, "invalid attribute name: %.*s (mode or tolerance)", (int)(n > 40 ? 40 : n), w);
    return buf;
  }
  s = skip_blanks(s);
  if (*s++ != '}') return "expected '}' to end it";
  return *skip_blanks(s) ? "unexpected text after it" : NULL;
}

static int check_result_accuracy(scanner *scn, const hlo_instruction *in) {
  const hlo_attr *a = attr(in, HLO_A_RESULT_ACCURACY);
  if (!a || a->kind != HLO_AK_RAW) return HLO_OK;
  char buf[128];
  const char *why = accuracy_error(a->u.s, buf, sizeof buf);
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
    return scan_errorf(scn, in->op_off,
                       "AsyncStart and AsyncUpdate expect the shape to be in the form of ((operand0_shape, "
                       "operand1_shape, ...), output_shape, ...) (%s)",
                       hlo_opcode_name(in->op));
  if (in->op == HLO_OP_ASYNC_START) return HLO_OK;
  /* the first operand is the async op before; more operands bind late
   * (XLA's parser takes them, its verifier checks them) */
  if (in->noperands == 0)
    return scan_errorf(scn, in->op_off, "No operand found for AsyncUpdate and AsyncDone (%s)", hlo_opcode_name(in->op));
  const hlo_instruction *o = in->operands[0];
  if (o->op == HLO_OP_ASYNC_DONE)
    return scan_errorf(scn, in->op_off, "AsyncDone cannot be the first operand of an AsyncUpdate or AsyncDone.");
  if (o->op != HLO_OP_ASYNC_START && o->op != HLO_OP_ASYNC_UPDATE)
    return scan_errorf(scn, in->op_off,
                       "AsyncUpdate and AsyncDone expect an asynchronous operation as their first operand. (%s takes "
                       "an async-start or async-update)",
                       hlo_opcode_name(in->op));
  const hlo_instruction *start = async_start_of(o);
  if (!start) return HLO_OK;
  const hlo_attr *calls = attr(in, HLO_A_CALLS), *scalls = attr(start, HLO_A_CALLS);
  if (calls && scalls && calls->kind == HLO_AK_COMPS && scalls->kind == HLO_AK_COMPS && calls->u.comps.n == 1 &&
      scalls->u.comps.n == 1 && strcmp(calls->u.comps.v[0]->name, scalls->u.comps.v[0]->name) != 0)
    return scan_errorf(scn, calls->off, "Expect async_wrapped_computation to be %s, but got %s (the calls of async-start '%s')",
                       scalls->u.comps.v[0]->name, calls->u.comps.v[0]->name, start->name);
  const hlo_attr *th = attr(in, HLO_A_ASYNC_EXECUTION_THREAD), *sth = attr(start, HLO_A_ASYNC_EXECUTION_THREAD);
  const char *mine = th ? th->u.s : NULL, *theirs = sth ? sth->u.s : "main";
  if (mine && strcmp(mine, theirs) != 0)
    return scan_errorf(scn, th->off, "Expect async_execution_thread to be %s, but got %s (the thread of async-start '%s')",
                       theirs, mine, start->name);
  return HLO_OK;
}

/* Array (and token) leaves of a shape, as parameter_replication counts them. */
static int64_t leaf_count(const hlo_shape *s) {
  if (s->type != HLO_TUPLE) return 1;
  int64_t n = 0;
  for (int i = 0; i < s->ntuple; i++) n += leaf_count(&s->tuple[i]);
  return n;
}

/* XLA's parser takes `dimensions` of exactly one entry for these opcodes
 * (required for most, checked when given for all-to-all). */
static int check_one_dimension(scanner *scn, const hlo_instruction *in) {
  const hlo_attr *d = attr(in, HLO_A_DIMENSIONS);
  if (!d || d->kind != HLO_AK_INTS || d->u.ints.n == 1) return HLO_OK;
  return scan_errorf(scn, d->off, "expects exactly one dimension in dimensions= of %s, but sees %d",
                     hlo_opcode_name(in->op), d->u.ints.n);
}

static int check_recv(scanner *scn, const hlo_instruction *in) {
  if (!in->shape_omitted && (in->shape.type != HLO_TUPLE || in->shape.ntuple == 0))
    return scan_errorf(scn, in->op_off, "recv must have a non-empty tuple shape (data, context, token)");
  return HLO_OK;
}

static int check_conditional(scanner *scn, const hlo_instruction *in) {
  if (!in->noperands) return scan_errorf(scn, in->op_off, "conditional requires at least one operand");
  return HLO_OK;
}

static int check_dynamic_reshape(scanner *scn, const hlo_instruction *in) {
  if (!in->noperands) return scan_errorf(scn, in->op_off, "DynamicReshape requires at least one operand.");
  return HLO_OK;
}

typedef int (*instr_check)(scanner *scn, const hlo_instruction *in);

/* The rule of an opcode, or NULL. */
static instr_check opcode_check(hlo_opcode op) {
  switch (op) {
  case HLO_OP_INFEED: return check_infeed;
  case HLO_OP_RECV: return check_recv;
  case HLO_OP_CONDITIONAL: return check_conditional;
  case HLO_OP_DYNAMIC_RESHAPE: return check_dynamic_reshape;
  case HLO_OP_ALL_GATHER:
  case HLO_OP_ALL_GATHER_START:
  case HLO_OP_REDUCE_SCATTER:
  case HLO_OP_ALL_TO_ALL:
  case HLO_OP_RAGGED_ALL_TO_ALL:
  case HLO_OP_CONCATENATE:
  case HLO_OP_GET_DIMENSION_SIZE:
  case HLO_OP_SET_DIMENSION_SIZE:
  case HLO_OP_SORT:
  case HLO_OP_SCAN: return check_one_dimension;
  case HLO_OP_CUSTOM_CALL: return check_custom_call;
  case HLO_OP_SEND_DONE:
  case HLO_OP_RECV_DONE: return check_done_channel;
  case HLO_OP_ASYNC_START:
  case HLO_OP_ASYNC_UPDATE:
  case HLO_OP_ASYNC_DONE: return check_async;
  default: return NULL;
  }
}

bool instr_semantics_apply(const hlo_instruction *in) {
  if (opcode_check(in->op)) return true;
  for (int i = 0; i < in->nattrs; i++)
    if (in->attrs[i].key == HLO_A_PARAMETER_REPLICATION || in->attrs[i].key == HLO_A_RESULT_ACCURACY) return true;
  return false;
}

int check_instr_semantics(scanner *scn, const hlo_instruction *in) {
  const hlo_attr *pr = attr(in, HLO_A_PARAMETER_REPLICATION);
  if (pr && pr->kind == HLO_AK_BOOLS && !in->shape_omitted && leaf_count(&in->shape) != pr->u.bools.n)
    return scan_errorf(scn, pr->off, "parameter has %lld leaf buffers, but parameter_replication has %d elements",
                       (long long)leaf_count(&in->shape), pr->u.bools.n);
  if (check_result_accuracy(scn, in)) return HLO_ERR;
  instr_check f = opcode_check(in->op);
  return f ? f(scn, in) : HLO_OK;
}

int check_signature_root(scanner *scn, const hlo_computation *c, const hlo_shape *declared, size_t at) {
  const hlo_instruction *r = c->root;
  if (!r || r->shape_omitted || hlo_shape_compatible(declared, &r->shape)) return HLO_OK;
  char want[256], got[256];
  return scan_errorf(scn, at, "Shape of computation %s, %s, is not compatible with that of its root instruction %s, %s",
                     c->name, shape_str(want, sizeof want, declared), r->name, shape_str(got, sizeof got, &r->shape));
}

int check_async_callers(scanner *scn, hlo_instruction *const *starts, int n, hlo_arena *scratch) {
  hlo_strmap owner; /* wrapped computation name -> its first async-start */
  hlo_strmap_init(&owner, scratch);
  for (int i = 0; i < n; i++) {
    hlo_instruction *in = starts[i];
    const hlo_attr *a = attr(in, HLO_A_CALLS);
    if (!a || a->kind != HLO_AK_COMPS || a->u.comps.n != 1) continue;
    void *first = NULL;
    if (hlo_strmap_put(&owner, a->u.comps.v[0]->name, in, &first)) return scan_errorf(scn, a->off, "out of memory");
    if (first)
      return scan_errorf(scn, a->off, "Computation %s is called by more than one async op ('%s' and '%s')",
                         a->u.comps.v[0]->name, ((hlo_instruction *)first)->name, in->name);
  }
  return HLO_OK;
}

int check_debug_attributes(scanner *scn, const hlo_module *m) {
  for (int i = 0; i < m->nattrs; i++) {
    const hlo_attr *a = &m->attrs[i];
    if (strcmp(a->name, "debug_attributes") != 0 || a->kind != HLO_AK_RAW || !a->u.s) continue;
    bool quoted = false;
    for (const char *s = a->u.s; *s; s++) {
      if (*s == '"' && (s == a->u.s || s[-1] != '\\')) quoted = !quoted;
      if (quoted || strncmp(s, "log_mode", 8) != 0 || (s > a->u.s && (isalnum((unsigned char)s[-1]) || s[-1] == '_')))
        continue;
      const char *v = skip_blanks(s + 8), *e;
      if (*v++ != '=') continue;
      v = word(v, &e);
      size_t n = (size_t)(e - v);
      if (!((n == 7 && strncmp(v, "default", 7) == 0) || (n == 15 && strncmp(v, "fusion_debugger", 15) == 0)))
        return scan_errorf(scn, a->off, "Invalid debug_log_mode value: %.*s (default or fusion_debugger)",
                           (int)(n > 40 ? 40 : n), v);
    }
  }
  return HLO_OK;
}
