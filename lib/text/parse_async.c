/* parse_async.c - XLA's async syntax sugar on input: "<op>-start(...)"
 * becomes an async-start calling a computation made of parameters and one
 * <op> instruction, "<op>-update"/"<op>-done" become async-update and
 * async-done (HloParserImpl::ParseOpcode and the kAsyncStart case of
 * CreateInstruction in XLA's hlo_parser.cc). */
#include <stdio.h>
#include <string.h>

#include "text/scan.h"

static const struct {
  const char *suffix;
  hlo_opcode op;
} SUFFIXES[] = {{"-start", HLO_OP_ASYNC_START}, {"-update", HLO_OP_ASYNC_UPDATE}, {"-done", HLO_OP_ASYNC_DONE}};

/* Opcodes XLA's parser does not wrap (they have async forms of their own):
 * "all-reduce-update" or "send-start" is an unknown opcode. */
static bool never_wrapped(hlo_opcode op) {
  switch (op) {
  case HLO_OP_ALL_GATHER: case HLO_OP_ALL_REDUCE: case HLO_OP_COLLECTIVE_PERMUTE:
  case HLO_OP_COPY: case HLO_OP_RECV: case HLO_OP_SEND:
    return true;
  default:
    return false;
  }
}

bool scan_async_sugar_opcode(const char *s, size_t n, hlo_opcode *async_op, hlo_opcode *wrapped) {
  for (size_t i = 0; i < sizeof SUFFIXES / sizeof SUFFIXES[0]; i++) {
    size_t k = strlen(SUFFIXES[i].suffix);
    if (n > k && memcmp(s + n - k, SUFFIXES[i].suffix, k) == 0 && hlo_opcode_lookup(s, n - k, wrapped) &&
        !never_wrapped(*wrapped)) {
      *async_op = SUFFIXES[i].op;
      return true;
    }
  }
  return false;
}

/* Attributes the parser gives the async instruction itself (those
 * HloParserImpl::ParseInstructionRhs reads for every opcode); the others
 * are the wrapped op's. */
static bool stays_on_async_op(hlo_attr_key k) {
  switch (k) {
  case HLO_A_SHARDING: case HLO_A_FRONTEND_ATTRIBUTES: case HLO_A_STATISTICS:
  case HLO_A_PARAMETER_REPLICATION: case HLO_A_CONTROL_PREDECESSORS: case HLO_A_ORIGIN:
  case HLO_A_METADATA: case HLO_A_BACKEND_CONFIG: case HLO_A_ASYNC_EXECUTION_THREAD:
    return true;
  default:
    return false;
  }
}

/* The wrapped opcode of an async op already parsed in this computation
 * (a sugared async-start, or an update/done after one); false if unknown. */
static bool wrapped_opcode_of(const hlo_instruction *in, hlo_opcode *out) {
  for (int depth = 0; in && depth < 64; depth++) {
    if (in->op == HLO_OP_ASYNC_START) {
      const hlo_attr *calls = hlo_instr_attr(in, HLO_A_CALLS);
      if (!calls || calls->u.comps.n != 1 || !calls->u.comps.v[0]->root) return false;
      *out = calls->u.comps.v[0]->root->op;
      return true;
    }
    if ((in->op != HLO_OP_ASYNC_UPDATE && in->op != HLO_OP_ASYNC_DONE) || in->noperands != 1) return false;
    in = in->operands[0];
  }
  return false;
}

static hlo_instruction *new_instr(hlo_arena *a, hlo_opcode op, const char *name) {
  hlo_instruction *i = hlo_arena_alloc(a, sizeof *i);
  if (i) {
    i->op = op;
    i->name = name;
  }
  return i;
}

/* Parameter i of a wrapped computation, named as the parser names them. */
static hlo_instruction *new_param(hlo_arena *a, int i, size_t off) {
  char nm[32];
  snprintf(nm, sizeof nm, i ? "async_param.%d" : "async_param", i);
  hlo_instruction *p = new_instr(a, HLO_OP_PARAMETER, hlo_arena_strdup(a, nm));
  if (!p || !p->name) return NULL;
  p->param_number = i;
  p->off = p->op_off = off;
  return p;
}

int scan_async_sugar_wrap(scanner *scn, hlo_instruction *in, hlo_opcode wrapped, const char *comp_name,
                          hlo_computation **made) {
  *made = NULL;
  if (in->op != HLO_OP_ASYNC_START) {
    hlo_opcode had;
    if (in->noperands == 1 && wrapped_opcode_of(in->operands[0], &had) && had != wrapped)
      return scan_errorf(scn, in->op_off, "Expect async wrapped opcode to be %s, but got %s", hlo_opcode_name(had),
                         hlo_opcode_name(wrapped));
    return HLO_OK;
  }
  const hlo_shape *s = &in->shape;
  if (in->shape_omitted || s->type != HLO_TUPLE || s->ntuple < 2 || s->tuple[0].type != HLO_TUPLE)
    return scan_errorf(scn, in->op_off,
                       "AsyncStart and AsyncUpdate expect the op shape to be in the form of "
                       "((async-operands), async-outputs, state).");
  if (s->tuple[0].ntuple != in->noperands)
    return scan_errorf(scn, in->op_off, "%s-start has %d operand%s but its shape lists %d", hlo_opcode_name(wrapped),
                       in->noperands, in->noperands == 1 ? "" : "s", s->tuple[0].ntuple);
  hlo_arena *a = scn->a;
  hlo_computation *c = hlo_arena_alloc(a, sizeof *c);
  hlo_instruction *root = new_instr(a, wrapped, "async_op");
  /* an op of fixed arity started with fewer operands (late binding: an
   * async-update supplies the rest) gets f32[1] stand-ins, as in XLA */
  int n = in->noperands, arity = hlo_opcode_arity(wrapped);
  if (wrapped == HLO_OP_DOT) arity = 2; /* variadic here only for the old sparse form's metadata */
  if (arity > n) n = arity;
  if (!c || !root || !(c->name = hlo_arena_strdup(a, comp_name)) ||
      !(c->instrs = hlo_arena_array(a, (size_t)n + 1, sizeof *c->instrs)) ||
      (n && !(root->operands = hlo_arena_array(a, (size_t)n, sizeof *root->operands))) ||
      hlo_shape_copy(a, &root->shape, &s->tuple[1]))
    return scan_errorf(scn, in->op_off, "out of memory");
  c->off = in->op_off;
  root->off = root->op_off = in->op_off;
  for (int i = 0; i < n; i++) {
    int64_t one = 1;
    hlo_instruction *p = new_param(a, i, in->op_off);
    if (!p || (i < in->noperands ? hlo_shape_copy(a, &p->shape, &s->tuple[0].tuple[i])
                                 : hlo_shape_make_array(a, &p->shape, HLO_F32, 1, &one)))
      return scan_errorf(scn, in->op_off, "out of memory");
    c->instrs[i] = root->operands[i] = p;
  }
  root->noperands = n;
  c->instrs[n] = c->root = root;
  c->ninstrs = n + 1;
  c->root_explicit = true;
  /* split the attributes: the wrapped op's go to the root, the rest stay,
   * followed by calls= naming the new computation */
  hlo_attr *keep = hlo_arena_array(a, (size_t)in->nattrs + 1, sizeof *keep);
  hlo_attr *mine = in->nattrs ? hlo_arena_array(a, (size_t)in->nattrs, sizeof *mine) : NULL;
  hlo_computation **callv = hlo_arena_array(a, 1, sizeof *callv);
  if (!keep || (in->nattrs && !mine) || !callv) return scan_errorf(scn, in->op_off, "out of memory");
  int nk = 0, nm = 0;
  for (int i = 0; i < in->nattrs; i++) {
    if (stays_on_async_op(in->attrs[i].key)) keep[nk++] = in->attrs[i];
    else mine[nm++] = in->attrs[i];
  }
  callv[0] = c;
  keep[nk++] = (hlo_attr){.key = HLO_A_CALLS, .kind = HLO_AK_COMPS, .name = hlo_attr_name(HLO_A_CALLS),
                          .off = in->op_off, .u.comps = {1, callv, false}};
  in->attrs = keep;
  in->nattrs = nk;
  root->attrs = mine;
  root->nattrs = nm;
  *made = c;
  return HLO_OK;
}

/* ---- late binding ---------------------------------------------------------- */

/* Give wrapped computation c the parameter shapes params[0..np) and the
 * root shape result: a shape that is not compatible with the present one
 * replaces it, a parameter beyond the present ones is added and passed to
 * the root (HloParserImpl::UpdateAsyncWrappedComputation). */
static int rebind(hlo_arena *a, hlo_computation *c, const hlo_shape *result, const hlo_shape *params, int np) {
  hlo_instruction *root = c->root;
  for (int i = 0; i < np; i++) {
    hlo_instruction *p = NULL;
    for (int k = 0; k < c->ninstrs && !p; k++)
      if (c->instrs[k]->op == HLO_OP_PARAMETER && c->instrs[k]->param_number == i) p = c->instrs[k];
    if (p) {
      if (!hlo_shape_compatible(&p->shape, &params[i]) && hlo_shape_copy(a, &p->shape, &params[i])) return HLO_ERR;
      continue;
    }
    hlo_instruction **iv = hlo_arena_array(a, (size_t)c->ninstrs + 1, sizeof *iv);
    hlo_instruction **ov = hlo_arena_array(a, (size_t)root->noperands + 1, sizeof *ov);
    if (!iv || !ov || !(p = new_param(a, i, root->off)) || hlo_shape_copy(a, &p->shape, &params[i])) return HLO_ERR;
    /* parameters first, the root last, as the computation was made */
    memcpy(iv, c->instrs, (size_t)(c->ninstrs - 1) * sizeof *iv);
    iv[c->ninstrs - 1] = p;
    iv[c->ninstrs] = root;
    c->instrs = iv;
    c->ninstrs++;
    if (root->noperands) memcpy(ov, root->operands, (size_t)root->noperands * sizeof *ov);
    ov[root->noperands++] = p;
    root->operands = ov;
  }
  if (result && !hlo_shape_compatible(&root->shape, result) && hlo_shape_copy(a, &root->shape, result)) return HLO_ERR;
  return HLO_OK;
}

/* The computation a sugared start made, found from the start or from an
 * update/done after it; NULL if the chain leads elsewhere. */
static hlo_computation *made_computation(const hlo_instruction *in) {
  for (int depth = 0; in && depth < 64; depth++) {
    if (in->op == HLO_OP_ASYNC_START) {
      const hlo_attr *calls = hlo_instr_attr(in, HLO_A_CALLS);
      return calls && calls->kind == HLO_AK_COMPS && calls->u.comps.n == 1 && calls->u.comps.v[0]->root
                 ? calls->u.comps.v[0] : NULL;
    }
    /* an update may bind more operands after its first */
    if ((in->op != HLO_OP_ASYNC_UPDATE && in->op != HLO_OP_ASYNC_DONE) || in->noperands < 1) return NULL;
    in = in->operands[0];
  }
  return NULL;
}

static bool async_form(const hlo_shape *s) {
  return s->type == HLO_TUPLE && s->ntuple >= 2 && s->tuple[0].type == HLO_TUPLE;
}

int scan_async_late_binding(scanner *scn, hlo_computation *const *made, int nmade, hlo_instruction *const *later,
                            int nlater) {
  for (int i = 0; i < nmade; i++) {
    hlo_computation *c = made[i];
    hlo_opcode op = c->root->op;
    if (op != HLO_OP_CALL && op != HLO_OP_FUSION) continue;
    const hlo_attr *at = hlo_instr_attr(c->root, op == HLO_OP_CALL ? HLO_A_TO_APPLY : HLO_A_CALLS);
    const hlo_computation *callee = !at ? NULL : at->kind == HLO_AK_COMP ? at->u.comp
                                   : at->kind == HLO_AK_COMPS && at->u.comps.n == 1 ? at->u.comps.v[0] : NULL;
    if (!callee || !callee->root || callee->root->shape_omitted) continue;
    /* the callee's parameters by number; a gap or a missing shape stops
     * the binding there (the verifier reports such a callee) */
    int np = 0;
    for (bool found = true; found; np += found) {
      found = false;
      for (int k = 0; k < callee->ninstrs && !found; k++)
        found = callee->instrs[k]->op == HLO_OP_PARAMETER && callee->instrs[k]->param_number == np &&
                !callee->instrs[k]->shape_omitted;
    }
    hlo_shape *ps = np ? hlo_arena_array(scn->a, (size_t)np, sizeof *ps) : NULL;
    if (np && !ps) return scan_errorf(scn, c->off, "out of memory");
    for (int q = 0; q < np; q++)
      for (int k = 0; k < callee->ninstrs; k++)
        if (callee->instrs[k]->op == HLO_OP_PARAMETER && callee->instrs[k]->param_number == q) ps[q] = callee->instrs[k]->shape;
    if (rebind(scn->a, c, &callee->root->shape, ps, np)) return scan_errorf(scn, c->off, "out of memory");
  }
  for (int i = 0; i < nlater; i++) {
    hlo_instruction *in = later[i];
    hlo_computation *c = made_computation(in);
    if (!c || in->shape_omitted) continue;
    const hlo_shape *result, *params;
    if (in->op == HLO_OP_ASYNC_UPDATE) {
      if (!async_form(&in->shape)) continue;
      result = &in->shape.tuple[1];
      params = &in->shape.tuple[0];
    } else {
      const hlo_instruction *from = in->operands[0];
      if (from->shape_omitted || !async_form(&from->shape)) continue;
      result = &in->shape;
      params = &from->shape.tuple[0];
    }
    if (rebind(scn->a, c, result, params->tuple, params->ntuple)) return scan_errorf(scn, in->off, "out of memory");
  }
  return HLO_OK;
}
