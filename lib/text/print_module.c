/* print_module.c - a whole module as XLA's HloModule::Print writes it: the
 * header attributes in XLA's order with the values XLA leaves out dropped,
 * entry_computation_layout always (made from the entry computation when
 * the text had none), and the computations, leaving out those an async op
 * prints in its sugared form. */
#include <stdio.h>
#include <string.h>

#include "text/print_internal.h"

/* ---- async syntax sugar ------------------------------------------------------ */

const hlo_computation *hlo_text_async_computation(const hlo_instruction *in) {
  for (int depth = 0; in && depth < 1024; depth++) {
    if (in->op == HLO_OP_ASYNC_START) {
      const hlo_attr *calls = hlo_instr_attr(in, HLO_A_CALLS);
      return calls && calls->kind == HLO_AK_COMPS && calls->u.comps.n == 1 ? calls->u.comps.v[0] : NULL;
    }
    if ((in->op != HLO_OP_ASYNC_UPDATE && in->op != HLO_OP_ASYNC_DONE) || in->noperands < 1) return NULL;
    in = in->operands[0];
  }
  return NULL;
}

static bool is_async_op(hlo_opcode op) {
  return op == HLO_OP_ASYNC_START || op == HLO_OP_ASYNC_UPDATE || op == HLO_OP_ASYNC_DONE;
}

bool *hlo_text_plain_callees(hlo_arena *a, const hlo_module *m) {
  bool *plain = m->ncomps ? hlo_arena_array(a, (size_t)m->ncomps, sizeof *plain) : NULL;
  if (!plain) return NULL;
  for (int ci = 0; ci < m->ncomps; ci++)
    for (int i = 0; i < m->comps[ci]->ninstrs; i++) {
      const hlo_instruction *x = m->comps[ci]->instrs[i];
      if (is_async_op(x->op)) continue;
      for (int q = 0; q < x->ncalled; q++) {
        const hlo_computation *c = x->called[q];
        if (c && c->id >= 0 && c->id < m->ncomps && m->comps[c->id] == c) plain[c->id] = true;
      }
    }
  return plain;
}

/* Whether reading the sugared chain back would bind the wrapped
 * computation c to other shapes (the parser's late binding): an update
 * with operands of its own, or an update or done whose shapes are not
 * compatible with c's parameters and root.  Such a chain (one the verifier
 * rejects) keeps the explicit form, so that its text is a fixed point. */
static bool chain_rebinds(const hlo_instruction *x, const hlo_computation *c, int depth) {
  if (depth > 64) return true;
  for (int u = 0; u < x->nusers; u++) {
    const hlo_instruction *y = x->users[u];
    if ((y->op != HLO_OP_ASYNC_UPDATE && y->op != HLO_OP_ASYNC_DONE) || !y->noperands || y->operands[0] != x) continue;
    if (y->noperands != 1 || y->shape_omitted) return true;
    const hlo_shape *res = &y->shape, *ops = &x->shape.tuple[0];
    if (y->op == HLO_OP_ASYNC_UPDATE) {
      if (y->shape.type != HLO_TUPLE || y->shape.ntuple < 2 || y->shape.tuple[0].type != HLO_TUPLE) return true;
      res = &y->shape.tuple[1];
      ops = &y->shape.tuple[0];
    }
    if (!hlo_shape_compatible(res, &c->root->shape) || ops->ntuple != c->nparams) return true;
    for (int i = 0; i < c->nparams; i++)
      if (!c->params[i] || !hlo_shape_compatible(&ops->tuple[i], &c->params[i]->shape)) return true;
    if (y->op == HLO_OP_ASYNC_UPDATE && chain_rebinds(y, c, depth + 1)) return true;
  }
  return false;
}

/* Whether an instruction other than an async op calls c (plain: the
 * table of hlo_text_plain_callees, or NULL to make it here). */
static bool called_plainly(const hlo_computation *c, const bool *plain) {
  const hlo_module *m = c->module_;
  if (!m || !(c->id >= 0 && c->id < m->ncomps && m->comps[c->id] == c)) return false;
  if (plain) return plain[c->id];
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  const bool *t = hlo_text_plain_callees(&a, m);
  bool r = !t || t[c->id]; /* without memory, the explicit form (always correct) */
  hlo_arena_release(&a);
  return r;
}

const hlo_instruction *hlo_text_async_sugar(const hlo_instruction *in, const bool *plain) {
  if (!is_async_op(in->op)) return NULL;
  const hlo_computation *c = hlo_text_async_computation(in);
  if (!c || !c->root) return NULL;
  for (int i = 0; i < c->ninstrs; i++)
    if (c->instrs[i] != c->root && c->instrs[i]->op != HLO_OP_PARAMETER) return NULL;
  /* Unlike XLA, only when the root takes the parameters in order, once
   * each: the sugared text is read back as exactly that, so any other
   * wrapped computation (say concatenate(p0, p0)) would not survive a
   * round trip; it keeps the explicit form. */
  const hlo_instruction *r = c->root;
  if (r->noperands != c->nparams) return NULL;
  /* nor when the async shape is malformed (XLA rejects such a module) */
  const hlo_instruction *start = in;
  while (start->op != HLO_OP_ASYNC_START) start = start->operands[0];
  const hlo_shape *s = &start->shape;
  if (s->type != HLO_TUPLE || s->ntuple < 2 || s->tuple[0].type != HLO_TUPLE || s->tuple[0].ntuple != r->noperands)
    return NULL;
  if (start->noperands != r->noperands) return NULL;
  for (int i = 0; i < r->noperands; i++)
    if (r->operands[i] != c->params[i]) return NULL;
  /* nor when anything but async ops also calls the wrapped computation:
   * the sugared form leaves the computation out of the text */
  if (called_plainly(c, plain) || chain_rebinds(start, c, 0)) return NULL;
  /* nor when "<op>-start", "-update" or "-done" is an opcode of its own
   * (copy-start, all-reduce-start, ...): the text would read back as that
   * opcode, not as an async op wrapping <op> */
  static const char *const SUFFIX[] = {"-start", "-update", "-done"};
  const char *name = hlo_opcode_name(r->op);
  char buf[96];
  hlo_opcode own;
  for (int i = 0; i < 3; i++) {
    int len = snprintf(buf, sizeof buf, "%s%s", name, SUFFIX[i]);
    if (len > 0 && (size_t)len < sizeof buf && hlo_opcode_lookup(buf, (size_t)len, &own)) return NULL;
  }
  return r;
}

bool hlo_text_generic_attr(hlo_attr_key k) {
  return k == HLO_A_METADATA || k == HLO_A_BACKEND_CONFIG || k == HLO_A_ORIGIN;
}

/* ---- the header -------------------------------------------------------------- */

/* HloModule::Print's order; attributes not listed follow in text order. */
static const char *const HEADER_ORDER[] = {
    "is_scheduled", "input_output_alias", "buffer_donor", "alias_passthrough_params", "entry_computation_layout",
    "allow_spmd_sharding_propagation_to_parameters", "allow_spmd_sharding_propagation_to_output",
    "replica_count", "num_partitions", "frontend_attributes", "origin_recovery_table", "debug_attributes"};
enum { NORDER = sizeof HEADER_ORDER / sizeof HEADER_ORDER[0], ECL_SLOT = 4 };

static int order_slot(const char *name) {
  for (int i = 0; i < NORDER; i++)
    if (strcmp(name, HEADER_ORDER[i]) == 0) return i;
  return -1;
}

/* A braced bool list or a single bool ("true", "{true,false}") as XLA's
 * kBracedBoolListOrBool reads it: the values, or -1 if it is not one. */
static int bool_list(const char *s, bool *v, int max) {
  int n = 0;
  const char *p = s;
  while (*p == ' ') p++;
  bool braced = *p == '{';
  if (braced) p++;
  for (;;) {
    while (*p == ' ') p++;
    if (braced && *p == '}' && n == 0) {
      p++;
      break;
    }
    bool t = strncmp(p, "true", 4) == 0, f = strncmp(p, "false", 5) == 0;
    if ((!t && !f) || n == max) return -1;
    v[n++] = t;
    p += t ? 4 : 5;
    while (*p == ' ') p++;
    if (braced && *p == ',') {
      p++;
      continue;
    }
    if (braced && *p != '}') return -1;
    if (braced) p++;
    break;
  }
  while (*p == ' ') p++;
  return *p ? -1 : n;
}

/* Empty braces: an attribute XLA holds nothing in and so does not print. */
static bool empty_braces(const char *s) {
  while (*s == ' ') s++;
  if (*s++ != '{') return false;
  while (*s == ' ') s++;
  if (*s++ != '}') return false;
  while (*s == ' ') s++;
  return !*s;
}

/* Print one header attribute as XLA would, or nothing if XLA leaves its
 * value out (a default, an empty list). */
static void header_attr(hlo_buf *b, const hlo_attr *a, const hlo_print_options *o) {
  const char *name = a->name;
  if (a->kind == HLO_AK_BOOL && strcmp(name, "is_scheduled") == 0 && !a->u.b) return;
  if (a->kind == HLO_AK_INT && (strcmp(name, "replica_count") == 0 || strcmp(name, "num_partitions") == 0) &&
      a->u.i == 1)
    return;
  if (a->kind == HLO_AK_ALIASING && a->u.aliasing.n == 0) return;
  if (a->kind == HLO_AK_RAW && strcmp(name, "frontend_attributes") == 0 && empty_braces(a->u.s)) return;
  if (a->kind == HLO_AK_RAW && strcmp(name, "alias_passthrough_params") == 0) {
    bool v[1];
    if (bool_list(a->u.s, v, 1) == 1) {
      if (v[0]) hlo_buf_puts(b, ", alias_passthrough_params=true");
      return;
    }
  }
  if (a->kind == HLO_AK_RAW && strncmp(name, "allow_spmd_sharding_propagation_to_", 35) == 0) {
    bool v[256];
    int n = bool_list(a->u.s, v, 256);
    if (n >= 0) {
      if (n == 1 && !v[0]) return;
      hlo_buf_printf(b, ", %s={", name);
      for (int i = 0; i < n; i++) hlo_buf_puts(b, i ? (v[i] ? ",true" : ",false") : (v[i] ? "true" : "false"));
      hlo_buf_putc(b, '}');
      return;
    }
  }
  /* the recovery table ends its line; debug attributes start one */
  bool table = strcmp(name, "origin_recovery_table") == 0, debug = strcmp(name, "debug_attributes") == 0;
  hlo_buf_printf(b, debug ? ",\n%s=" : ", %s=", name);
  hlo_print_attr_value(b, a, o);
  if (table) hlo_buf_putc(b, '\n');
}

/* entry_computation_layout made from the entry computation, as XLA's
 * parser does when the header has none; nothing if a shape is unknown. */
static void synthesised_layout(hlo_buf *b, const hlo_module *m) {
  const hlo_computation *e = m->entry;
  if (!e || !e->root || e->root->shape_omitted) return;
  for (int i = 0; i < e->nparams; i++)
    if (!e->params[i] || e->params[i]->shape_omitted) return;
  hlo_buf_puts(b, ", entry_computation_layout={(");
  for (int i = 0; i < e->nparams; i++) {
    hlo_text_list_sep(b, i);
    hlo_print_shape(b, &e->params[i]->shape, true);
  }
  hlo_buf_puts(b, ")->");
  hlo_print_shape(b, &e->root->shape, true);
  hlo_buf_putc(b, '}');
}

static void print_header(hlo_buf *b, const hlo_module *m, const hlo_print_options *o) {
  hlo_buf_puts(b, "HloModule ");
  if (m->has_header && m->name) {
    hlo_buf_puts(b, m->name);
  } else {
    /* XLA names a module read without a header after its entry */
    hlo_buf_puts(b, "module_");
    hlo_buf_puts(b, m->entry ? m->entry->name : "");
  }
  for (int slot = 0; slot < NORDER; slot++) {
    const hlo_attr *a = NULL;
    for (int i = 0; i < m->nattrs && !a; i++)
      if (strcmp(m->attrs[i].name, HEADER_ORDER[slot]) == 0) a = &m->attrs[i];
    if (a) header_attr(b, a, o);
    else if (slot == ECL_SLOT) synthesised_layout(b, m);
  }
  for (int i = 0; i < m->nattrs; i++)
    if (order_slot(m->attrs[i].name) < 0) header_attr(b, &m->attrs[i], o);
}

/* ---- the module ---------------------------------------------------------------- */

int hlo_print_module(hlo_buf *b, const hlo_module *m, const hlo_print_options *o) {
  static const hlo_print_options dflt = {0};
  if (!o) o = &dflt;
  print_header(b, m, o);
  if (!o->short_form) hlo_text_stack_frames(b, m); /* XLA leaves it out with the metadata */
  hlo_buf_puts(b, "\n\n");
  /* computations an async op prints as "<op>-start" are not printed */
  hlo_arena scratch;
  hlo_arena_init(&scratch, NULL);
  bool *hidden = NULL;
  /* who calls what, once for the whole print (NULL: each async op scans) */
  const bool *plain = hlo_text_plain_callees(&scratch, m);
  for (int ci = 0; ci < m->ncomps; ci++) {
    const hlo_computation *c = m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      const hlo_instruction *in = c->instrs[i];
      if (in->op != HLO_OP_ASYNC_START || !hlo_text_async_sugar(in, plain)) continue;
      const hlo_computation *w = hlo_text_async_computation(in);
      if (!hidden && !(hidden = hlo_arena_array(&scratch, (size_t)m->ncomps, sizeof *hidden))) {
        b->failed = true;
        break;
      }
      if (w->id >= 0 && w->id < m->ncomps && m->comps[w->id] == w) hidden[w->id] = true;
    }
  }
  const hlo_computation **order = NULL;
  if (!b->failed && hlo_text_comp_order(&scratch, m, &order)) b->failed = true;
  for (int i = 0; order && i < m->ncomps; i++) {
    const hlo_computation *c = order[i];
    if (hidden && c->id >= 0 && c->id < m->ncomps && m->comps[c->id] == c && hidden[c->id]) continue;
    hlo_text_print_computation(b, c, o, plain);
    hlo_buf_puts(b, "\n\n");
  }
  hlo_arena_release(&scratch);
  return b->failed ? HLO_ERR : HLO_OK;
}
