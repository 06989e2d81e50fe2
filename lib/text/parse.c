/* parse.c - HLO module structure:
 *   module      -> ['HloModule' name {',' attr}] {computation}
 *   computation -> ['ENTRY'] name [signature] '{' {instruction} '}'
 *   signature   -> '(' [name ':' shape {',' ...}] ')' '->' shape
 *   instruction -> ['ROOT'] name '=' [shape] opcode '(' operands ')' {',' attr}
 *   operand     -> [shape] name | [shape] opcode '(' operands ')'   (nested form)
 *   attr        -> attrname '=' value
 * Names are resolved after each computation (operands, control
 * predecessors) and after the module (called computations), so forward
 * references parse; the verifier reports use-before-definition. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/prefetch.h"
#include "text/attr_rules.h"
#include "text/parse_checks.h"
#include "text/scan.h"

enum { MAX_ERRORS_PER_MODULE = 50 };

typedef struct vec {
  void **v;
  int n, cap;
} vec;

static int vpush_in(scanner *scn, hlo_arena *a, vec *v, void *p) {
  if (v->n == v->cap) {
    int cap = v->cap ? v->cap * 2 : 16;
    if (cap <= v->cap) return scan_errorf(scn, scn->pos, "too many items");
    void **nv = hlo_arena_array(a, (size_t)cap, sizeof *nv);
    if (!nv) return scan_errorf(scn, scn->pos, "out of memory");
    if (v->n) memcpy(nv, v->v, (size_t)v->n * sizeof *nv);
    v->v = nv;
    v->cap = cap;
  }
  v->v[v->n++] = p;
  return HLO_OK;
}


/* Copy a finished list from scratch into the module arena, exactly sized. */
static void **vfinal(scanner *scn, const vec *v) {
  if (!v->n) return NULL;
  void **r = hlo_arena_array(scn->a, (size_t)v->n, sizeof *r);
  if (r) memcpy(r, v->v, (size_t)v->n * sizeof *r);
  else scan_errorf(scn, scn->pos, "out of memory");
  return r;
}

typedef struct parser {
  scanner scn;
  hlo_module *m;
  const hlo_parse_options *opts;
  hlo_strmap comps;   /* name -> computation */
  hlo_strmap instrs;  /* name -> instruction, current computation */
  vec cur;            /* instructions of the current computation */
  vec later;          /* those of them with forward references, control
                       * predecessors or parser checks: the only ones
                       * check_body visits again, in the same order */
  int nested_counter;
  hlo_arena scratch;  /* placeholders and growing lists; freed after parsing */
  hlo_strmap layouts; /* layout text -> shared hlo_layout (in the module arena) */
  hlo_strmap opcodes; /* spelling -> opcode + 1, built per parse from the table */
  hlo_strmap attrs;   /* spelling -> attribute key + 1 */
  vec async_comps;    /* computations made for sugared async-starts */
  vec async_later;    /* sugared async-updates and -dones, in text order */
  vec made;           /* those and computations written inline, in the order made */
  int made_taken;     /* how many of `made` are already in the module's list */
  vec anon;           /* instructions written as nested operands */
  bool single;        /* reading one instruction: undefined operands become parameters */
  hlo_strmap params;  /* parameter number -> parameter, current computation */
  int nparams;        /* parameters made so */
} parser;

static int parse_attrs(parser *p, hlo_attr **out, int *nout, bool module_level);

/* Hash lookups of opcode and attribute spellings, built from the .def
 * tables once per parse (faster than scanning the tables per name). */
static int build_name_maps(parser *p) {
  hlo_strmap_init(&p->opcodes, &p->scratch);
  hlo_strmap_init(&p->attrs, &p->scratch);
  for (int i = 0; i < HLO_OP_COUNT; i++)
    if (hlo_strmap_put(&p->opcodes, hlo_opcode_name((hlo_opcode)i), (void *)(uintptr_t)(i + 1), NULL))
      return HLO_ERR;
  for (int i = 0; i < HLO_ATTR_COUNT; i++)
    if (hlo_strmap_put(&p->attrs, hlo_attr_name((hlo_attr_key)i), (void *)(uintptr_t)(i + 1), NULL))
      return HLO_ERR;
  return HLO_OK;
}

static bool lookup_opcode(parser *p, const char *s, size_t n, hlo_opcode *out) {
  void *v = hlo_strmap_getn(&p->opcodes, s, n);
  if (!v) return false;
  *out = (hlo_opcode)((uintptr_t)v - 1);
  return true;
}

/* Append in to the current computation's list, and to p->later if the
 * pass after the computation has anything to do with it (decided now,
 * while the instruction is in cache). */
static int add_instr(parser *p, hlo_instruction *in) {
  scanner *scn = &p->scn;
  if (vpush_in(scn, &p->scratch, &p->cur, in)) return HLO_ERR;
  bool again = instr_semantics_apply(in);
  for (int k = 0; !again && k < in->noperands; k++) again = in->operands[k]->id == -1;
  for (int k = 0; !again && k < in->nattrs; k++) again = in->attrs[k].key == HLO_A_CONTROL_PREDECESSORS;
  return again ? vpush_in(scn, &p->scratch, &p->later, in) : HLO_OK;
}

/* Placeholder operand: an instruction holding only a name, an offset and
 * maybe a declared shape; id == -1 marks it. */
static hlo_instruction *operand_ref(parser *p, const char *nm, size_t n, size_t at,
                                    const hlo_shape *declared) {
  scanner *scn = &p->scn;
  hlo_instruction *i = hlo_arena_alloc(&p->scratch, sizeof *i);
  if (!i || !(i->name = hlo_arena_strndup(&p->scratch, nm, n))) {
    scan_errorf(scn, at, "out of memory");
    return NULL;
  }
  i->off = at;
  i->id = -1;
  if (declared) i->shape = *declared;
  else i->shape_omitted = true;
  return i;
}

static int parse_instruction_rhs(parser *p, hlo_instruction *in, bool nested, bool check_attrs);

/* A parameter's number, unique in its computation whether the parameter is
 * written on its own line or nested in an operand list (XLA's builder
 * refuses a second parameter of the same number either way). */
static int note_parameter(parser *p, hlo_instruction *in) {
  scanner *scn = &p->scn;
  char num[24]; /* map keys are not copied: the key lives in scratch */
  void *prev = NULL;
  snprintf(num, sizeof num, "%" PRId64, in->param_number);
  const char *key = hlo_arena_strdup(&p->scratch, num);
  if (!key || hlo_strmap_put(&p->params, key, in, &prev)) return scan_errorf(scn, in->off, "out of memory");
  if (prev) return scan_errorf(scn, in->op_off, "Duplicate parameter number %" PRId64, in->param_number);
  return HLO_OK;
}

/* An operand written with a shape its definition does not have; both
 * shapes are shown with layouts, the default one where none was written
 * (XLA's wording). */
static int operand_shape_mismatch(scanner *scn, size_t at, const char *name, const hlo_shape *written,
                                  const hlo_shape *actual) {
  hlo_buf want, got;
  hlo_buf_init(&want, NULL);
  hlo_buf_init(&got, NULL);
  hlo_shape w, g;
  bool laid = !hlo_shape_copy(scn->scratch, &w, written) && !hlo_shape_copy(scn->scratch, &g, actual) &&
              !hlo_shape_set_default_layouts(scn->scratch, &w) && !hlo_shape_set_default_layouts(scn->scratch, &g);
  hlo_print_shape(&want, laid ? &w : written, laid);
  hlo_print_shape(&got, laid ? &g : actual, laid);
  int rc = scan_errorf(scn, at,
                       "The declared operand shape %s is not compatible with the shape of the operand instruction %s. "
                       "(operand '%s')",
                       want.data ? want.data : "?", got.data ? got.data : "?", name);
  hlo_buf_release(&want);
  hlo_buf_release(&got);
  return rc;
}

static int set_layouts(parser *p, hlo_shape *s);

/* A compact get-tuple-element operand, `name#i#j...` (XLA's parser since
 * 2026): each `#i` is a get-tuple-element of what precedes it, made once
 * per computation (a second `p#0` is the same instruction) and placed just
 * before the instruction that first uses it.  Its name is the written one
 * with '#' as '_', passed through the name uniquer (parse_names.c). */
static int compact_gte(parser *p, size_t at, const char *nm, size_t n, hlo_instruction **out) {
  scanner *scn = &p->scn;
  hlo_instruction *base = hlo_strmap_getn(&p->instrs, nm, n);
  if (!base) return scan_errorf(scn, at, "instruction does not exist: %.*s", (int)n, nm);
  char key[512];
  if (n >= sizeof key - 24) return scan_errorf(scn, at, "operand name too long");
  memcpy(key, nm, n);
  key[n] = 0;
  while (scan_accept(scn, '#')) {
    int64_t idx;
    if (scan_int(scn, &idx)) return HLO_ERR;
    if (!base->shape_omitted && base->shape.type != HLO_TUPLE) {
      char *sh = hlo_shape_str(&p->scratch, &base->shape, false);
      return scan_errorf(scn, at, "GTE operand must be tuple: '%s#%" PRId64 "' takes an element of '%s', of shape %s",
                         key, idx, key, sh ? sh : "?");
    }
    if (idx < 0 || (!base->shape_omitted && idx >= base->shape.ntuple)) {
      char *sh = base->shape_omitted ? NULL : hlo_shape_str(&p->scratch, &base->shape, false);
      return scan_errorf(scn, at, "GTE index %" PRId64 " out of bounds: '%s' has%s%s", idx, key,
                         sh ? " shape " : " no known shape", sh ? sh : "");
    }
    size_t kl = strlen(key);
    if (kl >= sizeof key - 24) return scan_errorf(scn, at, "operand name too long");
    snprintf(key + kl, sizeof key - kl, "#%" PRId64, idx);
    hlo_instruction *g = hlo_strmap_get(&p->instrs, key);
    if (!g) {
      g = hlo_arena_alloc(scn->a, sizeof *g);
      hlo_instruction **ops = hlo_arena_alloc(scn->a, sizeof *ops);
      hlo_attr *a = hlo_arena_alloc(scn->a, sizeof *a);
      if (!g || !ops || !a || !(g->name = hlo_arena_strdup(scn->a, key))) return scan_errorf(scn, at, "out of memory");
      g->op = HLO_OP_GET_TUPLE_ELEMENT;
      g->off = g->op_off = at;
      ops[0] = base;
      g->operands = ops;
      g->noperands = 1;
      *a = (hlo_attr){.key = HLO_A_INDEX, .kind = HLO_AK_INT, .name = "index", .off = at, .u.i = idx};
      g->attrs = a;
      g->nattrs = 1;
      if (base->shape_omitted) g->shape_omitted = true;
      else if (hlo_shape_copy(scn->a, &g->shape, &base->shape.tuple[idx])) return scan_errorf(scn, at, "out of memory");
      if (hlo_strmap_put(&p->instrs, g->name, g, NULL) || add_instr(p, g) ||
          vpush_in(scn, &p->scratch, &p->anon, g))
        return scan_errorf(scn, at, "out of memory");
    }
    base = g;
  }
  *out = base;
  return HLO_OK;
}

/* In a single instruction read without a module (XLA's
 * ParseSingleInstruction), an operand not defined is a new parameter of
 * its written shape, named as written or "_<number>". */
static hlo_instruction *missing_parameter(parser *p, size_t at, const char *nm, size_t n, const hlo_shape *decl) {
  scanner *scn = &p->scn;
  if (!decl) {
    scan_errorf(scn, at, "Operand had no shape in HLO text; cannot create parameter for single-instruction module.");
    return NULL;
  }
  hlo_instruction *prm = hlo_arena_alloc(scn->a, sizeof *prm);
  char gen[32];
  snprintf(gen, sizeof gen, "_%d", p->nparams);
  if (!prm || !(prm->name = nm ? hlo_arena_strndup(scn->a, nm, n) : hlo_arena_strdup(scn->a, gen)) ||
      hlo_shape_copy(scn->a, &prm->shape, decl) || set_layouts(p, &prm->shape)) {
    scan_errorf(scn, at, "out of memory");
    return NULL;
  }
  prm->op = HLO_OP_PARAMETER;
  prm->off = prm->op_off = at;
  prm->param_number = p->nparams++;
  if (hlo_strmap_put(&p->instrs, prm->name, prm, NULL) || add_instr(p, prm)) {
    scan_errorf(scn, at, "out of memory");
    return NULL;
  }
  return prm;
}

/* operands -> [operand {',' operand}] ')'  ('(' already consumed) */
static int parse_operands(parser *p, hlo_instruction *in) {
  scanner *scn = &p->scn;
  void *first[16]; /* most operand lists fit: no scratch allocation */
  vec ops = {first, 0, 16};
  if (!scan_peek(scn, ')')) {
    do {
      scan_skip(scn);
      hlo_shape decl;
      bool has_shape = false;
      if (scan_at_shape(scn)) {
        /* declared operand shapes are only checked: keep them in scratch */
        hlo_arena *keep = scn->a;
        scn->a = &p->scratch;
        int rc = scan_shape(scn, &decl);
        scn->a = keep;
        if (rc) return HLO_ERR;
        has_shape = true;
      }
      const char *nm;
      size_t at = (scan_skip(scn), scn->pos);
      size_t n = scan_name(scn, &nm, NULL);
      if (!n && p->single && has_shape && (scan_peek(scn, ',') || scan_peek(scn, ')'))) {
        hlo_instruction *prm = missing_parameter(p, at, NULL, 0, &decl);
        if (!prm || vpush_in(scn, &p->scratch, &ops, prm)) return HLO_ERR;
        continue;
      }
      if (!n) return scan_failed_at_next(scn, "expects name (of an operand)");
      hlo_opcode op;
      if (scan_peek(scn, '(') && lookup_opcode(p, nm, n, &op) && nm[-1] != '%') {
        /* nested operand: an anonymous instruction defined in place */
        hlo_instruction *nin = hlo_arena_alloc(scn->a, sizeof *nin);
        if (!nin) return scan_errorf(scn, at, "out of memory");
        nin->off = at;
        nin->op_off = at;
        nin->op = op;
        /* its shape is the instruction's own: copy it out of scratch and
         * give it the default layout like any result shape */
        if (has_shape) {
          if (hlo_shape_copy(scn->a, &nin->shape, &decl)) return scan_errorf(scn, at, "out of memory");
          if (set_layouts(p, &nin->shape)) return scan_errorf(scn, at, "out of memory");
        } else {
          nin->shape_omitted = true;
        }
        if (scan_enter(scn)) return HLO_ERR;
        int rc = parse_instruction_rhs(p, nin, true, true);
        scan_leave(scn);
        if (rc || (nin->op == HLO_OP_PARAMETER && note_parameter(p, nin))) return HLO_ERR;
        /* a placeholder name until the module is read (parse_names.c) */
        char name[64];
        do snprintf(name, sizeof name, "%s.anon.%d", hlo_opcode_name(op), ++p->nested_counter);
        while (hlo_strmap_get(&p->instrs, name));
        if (!(nin->name = hlo_arena_strdup(scn->a, name))) return scan_errorf(scn, at, "out of memory");
        if (hlo_strmap_put(&p->instrs, nin->name, nin, NULL) || add_instr(p, nin) ||
            vpush_in(scn, &p->scratch, &p->anon, nin))
          return scan_errorf(scn, at, "out of memory");
        if (vpush_in(scn, &p->scratch, &ops, nin)) return HLO_ERR;
        continue;
      }
      if (scan_peek(scn, '#')) {
        hlo_instruction *g = NULL;
        if (compact_gte(p, at, nm, n, &g)) return HLO_ERR;
        if (has_shape && !g->shape_omitted && !hlo_shape_compatible(&decl, &g->shape))
          return operand_shape_mismatch(scn, at, g->name, &decl, &g->shape);
        if (vpush_in(scn, &p->scratch, &ops, g)) return HLO_ERR;
        continue;
      }
      /* an operand defined earlier (the usual case) resolves now; forward
       * references get a placeholder resolved after the computation */
      hlo_instruction *def = hlo_strmap_getn(&p->instrs, nm, n);
      if (def) {
        if (has_shape && !def->shape_omitted && !hlo_shape_compatible(&decl, &def->shape))
          operand_shape_mismatch(scn, at, def->name, &decl, &def->shape);
        if (vpush_in(scn, &p->scratch, &ops, def)) return HLO_ERR;
        continue;
      }
      if (p->single) { /* XLA's single-instruction form: a parameter of the declared shape */
        hlo_instruction *prm = missing_parameter(p, at, nm, n, has_shape ? &decl : NULL);
        if (!prm || vpush_in(scn, &p->scratch, &ops, prm)) return HLO_ERR;
        continue;
      }
      hlo_instruction *ref = operand_ref(p, nm, n, at, has_shape ? &decl : NULL);
      if (!ref || vpush_in(scn, &p->scratch, &ops, ref)) return HLO_ERR;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, ')', "to close the operand list")) return HLO_ERR;
  in->noperands = ops.n;
  in->operands = (hlo_instruction **)vfinal(scn, &ops);
  if (ops.n && !in->operands) return HLO_ERR;
  return HLO_OK;
}

/* After the opcode: '(' operands ')' {',' attr}.  in->op is set. */
/* check_attrs is false for a sugared async op, whose attributes are
 * checked once async_sugar has split them between it and the wrapped op. */
static int parse_instruction_rhs(parser *p, hlo_instruction *in, bool nested, bool check_attrs) {
  scanner *scn = &p->scn;
  if (scan_expect(scn, '(', "after the opcode")) return HLO_ERR;
  switch (in->op) {
  case HLO_OP_CONSTANT: {
    if (in->shape_omitted) return scan_errorf(scn, in->op_off, "a constant needs a result shape");
    in->literal = hlo_arena_alloc(scn->a, sizeof *in->literal);
    if (!in->literal) return scan_errorf(scn, scn->pos, "out of memory");
    if (scan_literal(scn, &in->shape, in->literal)) return HLO_ERR;
    if (scan_expect(scn, ')', "to close the constant")) return HLO_ERR;
    break;
  }
  case HLO_OP_PARAMETER: {
    size_t at = (scan_skip(scn), scn->pos);
    if (scan_int(scn, &in->param_number)) return HLO_ERR;
    if (in->param_number < 0) return scan_errorf(scn, at, "parameter number must be >= 0");
    if (scan_expect(scn, ')', "to close the parameter number")) return HLO_ERR;
    break;
  }
  default:
    if (parse_operands(p, in)) return HLO_ERR;
    break;
  }
  int arity = hlo_opcode_arity(in->op);
  if (in->op == HLO_OP_ASYNC_DONE && in->noperands == 0) /* XLA's words, as for async-update (parse_checks.c) */
    return scan_errorf(scn, in->op_off, "No operand found for AsyncUpdate and AsyncDone (async-done)");
  if (arity != HLO_VARIADIC && in->noperands != arity) /* constant, parameter: 0, as in hlo_ops.def */
    return scan_errorf(scn, in->op_off, "%s takes %d operand%s but %d %s given", hlo_opcode_name(in->op),
                     arity, arity == 1 ? "" : "s", in->noperands, in->noperands == 1 ? "is" : "are");
  size_t attrs_at = scn->pos; /* just after ')': where a missing attribute is reported */
  /* a nested instruction takes no attributes: a ',' after it is the next operand */
  if (!nested && parse_attrs(p, &in->attrs, &in->nattrs, false)) return HLO_ERR;
  size_t end = scn->pos;
  if (!check_attrs || (!check_instr_attrs(scn, in, attrs_at) && !check_attr_words(scn, in))) return HLO_OK;
  /* the attribute list may have run onto the next line's blanks: go back
   * to its line so that error recovery skips only this instruction */
  while (end > attrs_at && (scn->s[end - 1] == ' ' || scn->s[end - 1] == '\t' || scn->s[end - 1] == '\n' ||
                            scn->s[end - 1] == '\r'))
    end--;
  scn->pos = end;
  return HLO_ERR;
}

/* {',' attrname '=' value} */
static int parse_attrs(parser *p, hlo_attr **out, int *nout, bool module_level) {
  scanner *scn = &p->scn;
  enum { LOCAL = 8 }; /* attributes held on the stack before scratch */
  hlo_attr local[LOCAL];
  void *first[LOCAL];
  vec v = {first, 0, LOCAL};
  while (scan_accept(scn, ',')) {
    const char *nm;
    size_t at = (scan_skip(scn), scn->pos);
    size_t n = scan_name(scn, &nm, NULL);
    if (!n) return scan_errorf(scn, at, "expected an attribute name after ','");
    if (scan_expect(scn, '=', "after the attribute name")) return HLO_ERR;
    {
      /* the value may start on a later line, as XLA's lexer skips line
       * breaks; a '}' or the end there means it is missing: point at the gap */
      size_t q = scn->pos;
      while (q < scn->end && (scn->s[q] == ' ' || scn->s[q] == '\t' || scn->s[q] == '\r' || scn->s[q] == '\n')) q++;
      if (q >= scn->end || (scn->s[q] == '}' && memchr(scn->s + scn->pos, '\n', q - scn->pos)))
        return scan_errorf(scn, scn->pos, "expected a value for attribute '%.*s'", (int)n, nm);
    }
    hlo_attr *a = v.n < LOCAL ? memset(&local[v.n], 0, sizeof *a) : hlo_arena_alloc(&p->scratch, sizeof *a);
    if (!a) return scan_errorf(scn, at, "out of memory");
    a->off = at;
    void *key = hlo_strmap_getn(&p->attrs, nm, n);
    if (key) a->key = (hlo_attr_key)((uintptr_t)key - 1);
    if (!key) {
      a->key = HLO_A_UNKNOWN;
      a->kind = HLO_AK_RAW;
    } else {
      a->kind = hlo_attr_kind_of(a->key);
    }
    /* known spellings share the table's string; unknown ones are copied */
    a->name = key ? hlo_attr_name(a->key) : hlo_arena_strndup(scn->a, nm, n);
    if (!a->name) return scan_errorf(scn, at, "out of memory");
    for (int i = 0; i < v.n; i++)
      if (strcmp(((hlo_attr *)v.v[i])->name, a->name) == 0)
        return scan_errorf(scn, at, "attribute '%s' given twice", a->name);
    if (scan_attr_value(scn, a)) return HLO_ERR;
    if (vpush_in(scn, &p->scratch, &v, a)) return HLO_ERR;
  }
  (void)module_level;
  if (!v.n) return HLO_OK;
  *out = hlo_arena_array(scn->a, (size_t)v.n, sizeof(hlo_attr));
  if (!*out) return scan_errorf(scn, scn->pos, "out of memory");
  for (int i = 0; i < v.n; i++) (*out)[i] = *(hlo_attr *)v.v[i];
  *nout = v.n;
  return HLO_OK;
}

/* Fill missing layouts with the default {rank-1,...,0}; one shared layout
 * object per rank (layouts in the IR are read-only, see hlo_ir.h). */
static int set_layouts(parser *p, hlo_shape *s) {
  if (p->opts && p->opts->keep_layouts) return HLO_OK;
  if (s->type == HLO_TUPLE) {
    for (int i = 0; i < s->ntuple; i++)
      if (set_layouts(p, &s->tuple[i])) return HLO_ERR;
    return HLO_OK;
  }
  if (!hlo_type_is_array(s->type) || s->layout) return HLO_OK;
  if (s->rank >= 9) return hlo_shape_set_default_layouts(p->scn.a, s);
  s->layout = scan_default_layout(&p->scn, s->rank);
  return s->layout ? HLO_OK : HLO_ERR;
}

/* "<op>-start" and friends (parse_async.c); the computation made for a
 * start joins the module before the computation being parsed. */
static int async_sugar(parser *p, hlo_instruction *in, hlo_opcode wrapped) {
  char name[64];
  int k = 0;
  do snprintf(name, sizeof name, k ? "async_wrapped.%d" : "async_wrapped", k);
  while (hlo_strmap_get(&p->comps, name) && ++k);
  hlo_computation *c;
  if (scan_async_sugar_wrap(&p->scn, in, wrapped, name, &c)) return HLO_ERR;
  /* the attributes left on the async op are its own, the rest the wrapped op's */
  if (check_instr_attrs(&p->scn, in, in->op_off) || (c && check_instr_attrs(&p->scn, c->root, in->op_off)) ||
      check_attr_words(&p->scn, in) || (c && check_attr_words(&p->scn, c->root)))
    return HLO_ERR;
  if (!c) return vpush_in(&p->scn, &p->scratch, &p->async_later, in);
  if (hlo_strmap_put(&p->comps, c->name, c, NULL) || vpush_in(&p->scn, &p->scratch, &p->async_comps, c) ||
      vpush_in(&p->scn, &p->scratch, &p->made, c))
    return scan_errorf(&p->scn, in->op_off, "out of memory");
  return HLO_OK;
}

/* instruction -> ['ROOT'] name '=' [shape] opcode '(' ... */
static int parse_instruction(parser *p, hlo_computation *c, hlo_instruction **root) {
  scanner *scn = &p->scn;
  bool is_root = scan_accept_kw(scn, "ROOT");
  hlo_instruction *in = hlo_arena_alloc(scn->a, sizeof *in);
  if (!in) return scan_errorf(scn, scn->pos, "out of memory");
  scan_skip(scn);
  in->off = scn->pos;
  if (p->single && !is_root && (scan_at_shape(scn) || scan_peek(scn, '('))) {
    in->name = "_"; /* a lone instruction may start at its shape; XLA names it after the module */
  } else {
    /* a shape where the name should be: XLA's lexer reads it as a shape, not a name */
    if (scan_at_shape(scn)) return scan_failed_at_next(scn, "expects name (an instruction is name = shape opcode(...))");
    if (scan_name_dup(scn, &in->name, "an instruction name")) return HLO_ERR;
    if (!scan_peek(scn, '=')) return scan_failed_at_next(scn, "expects '=' in instruction (after the instruction name)");
    scn->pos++;
  }
  /* the name's slot in a large map is a cache miss: fetch it while the
   * rest of the instruction is read */
  size_t name_len = strlen(in->name);
  uint64_t name_hash = hlo_strmap_hash(in->name, name_len);
  hlo_strmap_prefetch(&p->instrs, name_hash);
  scan_skip(scn);
  if (scan_at_shape(scn)) {
    if (scan_shape(scn, &in->shape) || set_layouts(p, &in->shape)) return HLO_ERR;
  } else {
    in->shape_omitted = true;
  }
  const char *opn;
  scan_skip(scn);
  in->op_off = scn->pos;
  size_t n = scan_name(scn, &opn, NULL);
  if (!n) return scan_errorf(scn, in->op_off, "expected a shape or an opcode");
  hlo_opcode wrapped;
  bool sugar = false;
  if (!lookup_opcode(p, opn, n, &in->op) && !(sugar = scan_async_sugar_opcode(opn, n, &in->op, &wrapped))) {
    hlo_type t;
    /* "f31[2]": a shape whose element type is misspelt, not an opcode */
    if (in->shape_omitted && scn->pos < scn->end && scn->s[scn->pos] == '[')
      return scan_errorf(scn, in->op_off, "unknown element type '%.*s'", (int)n, opn);
    if (!in->shape_omitted || !hlo_type_lookup(opn, n, &t))
      return scan_errorf(scn, in->op_off, "expects opcode but sees: %.*s (Unknown opcode: %.*s)", (int)n, opn,
                         (int)n, opn);
    return scan_errorf(scn, in->op_off, "malformed shape: expected '[' after element type '%.*s'", (int)n, opn);
  }
  if (parse_instruction_rhs(p, in, false, !sugar)) return HLO_ERR;
  if (sugar && async_sugar(p, in, wrapped)) return HLO_ERR;
  if (in->op == HLO_OP_PARAMETER && note_parameter(p, in)) return HLO_ERR;
  void *old;
  if (hlo_strmap_put_hashed(&p->instrs, in->name, name_len, name_hash, in, &old))
    return scan_errorf(scn, in->off, "out of memory");
  if (old) {
    scan_errorf(scn, in->off, "instruction '%s' is defined twice", in->name);
    hlo_notef(scn->d, scn->src, ((hlo_instruction *)old)->off, "previous definition of '%s' is here", in->name);
    return HLO_ERR;
  }
  if (add_instr(p, in)) return HLO_ERR;
  in->parent = c;
  if (is_root) {
    if (*root) {
      scan_errorf(scn, in->off, "one computation should have only one ROOT: '%s' has more than one", c->name);
      hlo_notef(scn->d, scn->src, (*root)->off, "first ROOT is here");
      return HLO_ERR;
    }
    *root = in;
  }
  return HLO_OK;
}

/* Error recovery: skip the rest of the line, unless the parser already
 * stands on a '}' that starts its line (the end of the computation). */
static void sync_line(scanner *scn) {
  size_t ls = scn->pos, q;
  while (ls > 0 && scn->s[ls - 1] != '\n') ls--;
  for (q = ls; q < scn->end && (scn->s[q] == ' ' || scn->s[q] == '\t'); q++) {
  }
  if (q < scn->end && scn->s[q] == '}' && q >= scn->pos) {
    scn->pos = q;
    return;
  }
  while (scn->pos < scn->end && scn->s[scn->pos] != '\n') scn->pos++;
}

/* XLA's parser resolves each name when it reads it, so an instruction or
 * computation must be defined above its first use; a later definition is
 * reported as such, with a note at it. */
static int used_before_definition(scanner *scn, size_t at, const char *what, const hlo_instruction *def) {
  int rc = scan_errorf(scn, at, "%s '%s' is used before its definition (a name must be defined above its first use)",
                       what, def->name);
  hlo_notef(scn->d, scn->src, def->off, "'%s' is defined here", def->name);
  return rc;
}

/* Replace placeholder operands and control predecessors by the named
 * instructions of the computation (those in p->later: no other has any). */
static int resolve_instrs(parser *p, hlo_computation *c) {
  scanner *scn = &p->scn;
  int rc = HLO_OK;
  for (int i = 0; i < p->later.n; i++) {
    hlo_instruction *in = p->later.v[i];
    for (int k = 0; k < in->noperands; k++) {
      hlo_instruction *ref = in->operands[k];
      if (ref->id != -1) continue; /* nested operand, already real */
      hlo_instruction *def = hlo_strmap_get(&p->instrs, ref->name);
      if (!def) {
        rc = scan_errorf(scn, ref->off, "instruction does not exist: %s", ref->name);
        continue;
      }
      if (def->off >= in->off) {
        rc = used_before_definition(scn, ref->off, "operand", def);
        continue;
      }
      if (!ref->shape_omitted && !def->shape_omitted && !hlo_shape_compatible(&ref->shape, &def->shape)) {
        rc = operand_shape_mismatch(scn, ref->off, ref->name, &ref->shape, &def->shape);
        continue;
      }
      in->operands[k] = def;
    }
    const hlo_attr *cp = hlo_instr_attr(in, HLO_A_CONTROL_PREDECESSORS);
    if (cp) {
      in->ncontrol = cp->u.instrs.n;
      in->control_preds = cp->u.instrs.v;
      for (int k = 0; k < cp->u.instrs.n; k++) {
        hlo_instruction *def = hlo_strmap_get(&p->instrs, cp->u.instrs.v[k]->name);
        if (!def) {
          rc = scan_errorf(scn, cp->u.instrs.v[k]->off, "control predecessor '%s' is not defined in '%s'",
                         cp->u.instrs.v[k]->name, c->name);
          continue;
        }
        if (def->off >= in->off) {
          rc = used_before_definition(scn, cp->u.instrs.v[k]->off, "control predecessor", def);
          continue;
        }
        cp->u.instrs.v[k] = def;
      }
    }
  }
  return rc;
}

/* signature -> '(' [name ':' shape {',' name ':' shape}] ')' '->' shape */
static int parse_signature(parser *p, hlo_shape *ret, size_t *ret_at) {
  scanner *scn = &p->scn;
  scn->pos++; /* '(' */
  if (!scan_peek(scn, ')')) {
    do {
      const char *nm;
      size_t at = (scan_skip(scn), scn->pos);
      if (!scan_name(scn, &nm, NULL)) return scan_errorf(scn, at, "expected a parameter name");
      scan_accept(scn, ':'); /* XLA's parser takes "name: shape" and "name shape" */
      hlo_shape s;
      if (scan_shape(scn, &s)) return HLO_ERR;
    } while (scan_accept(scn, ','));
  }
  if (scan_expect(scn, ')', "to close the parameter list")) return HLO_ERR;
  scan_skip(scn);
  if (!(scn->pos + 1 < scn->end && scn->s[scn->pos] == '-' && scn->s[scn->pos + 1] == '>'))
    return scan_errorf(scn, scn->pos, "expected '->' and the result shape");
  scn->pos += 2;
  *ret_at = (scan_skip(scn), scn->pos);
  /* the declared result is only checked against the root: keep it in scratch */
  hlo_arena *keep = scn->a;
  scn->a = &p->scratch;
  int rc = scan_shape(scn, ret);
  scn->a = keep;
  return rc;
}

/* '{' {instruction} '}' into c: its instructions and root. */
static int parse_body(parser *p, hlo_computation *c, int start_errors) {
  scanner *scn = &p->scn;
  if (scan_expect(scn, '{', "to start the computation body")) return HLO_ERR;
  p->cur = (vec){0};
  p->later = (vec){0};
  hlo_strmap_init(&p->instrs, &p->scratch);
  hlo_strmap_init(&p->params, &p->scratch);
  hlo_instruction *root = NULL;
  while (!scan_peek(scn, '}')) {
    if (scan_at_end(scn)) {
      if (scn->nerrors > start_errors) return HLO_ERR; /* the input ended inside a broken instruction */
      return scan_errorf(scn, c->off, "computation '%s' is not closed with '}'", c->name);
    }
    if (parse_instruction(p, c, &root)) {
      if (scn->nerrors >= MAX_ERRORS_PER_MODULE || scn->d->oom) return HLO_ERR;
      sync_line(scn);
    }
  }
  scn->pos++; /* '}' */
  c->ninstrs = p->cur.n;
  c->instrs = (hlo_instruction **)vfinal(scn, &p->cur);
  if (p->cur.n && !c->instrs) return HLO_ERR;
  if (!c->ninstrs) {
    /* every instruction failed: that was reported already */
    if (scn->nerrors > start_errors) return HLO_ERR;
    return scan_errorf(scn, c->off, "computation '%s' has no instructions", c->name);
  }
  c->root = root ? root : c->instrs[c->ninstrs - 1];
  c->root_explicit = root != NULL;
  return scn->nerrors > start_errors ? HLO_ERR : HLO_OK;
}

/* Operands resolved, then the checks that need them; declared is the
 * signature's result shape, or NULL. */
static int check_body(parser *p, hlo_computation *c, const hlo_shape *declared, size_t declared_at) {
  scanner *scn = &p->scn;
  if (resolve_instrs(p, c)) return HLO_ERR;
  int rc = HLO_OK;
  for (int i = 0; i < p->later.n; i++)
    if (check_instr_semantics(scn, p->later.v[i])) rc = HLO_ERR;
  if (declared && check_signature_root(scn, c, declared, declared_at)) rc = HLO_ERR;
  return rc;
}

/* A computation written inline where a computation name may stand
 * (XLA's ParseHloComputation: '{' instructions '}', named "_" and made
 * unique); it joins the module before the computation being read. */
static hlo_computation *inline_computation(scanner *scn, void *ctx) {
  parser *p = ctx;
  size_t at = (scan_skip(scn), scn->pos);
  hlo_computation *c = hlo_arena_alloc(scn->a, sizeof *c);
  char name[32];
  int k = 0;
  do snprintf(name, sizeof name, k ? "_.%d" : "_", k);
  while (hlo_strmap_get(&p->comps, name) && ++k);
  if (!c || !(c->name = hlo_arena_strdup(scn->a, name))) {
    scan_errorf(scn, at, "out of memory");
    return NULL;
  }
  c->off = at;
  /* the name is taken before the body, which may hold inline computations too */
  if (hlo_strmap_put(&p->comps, c->name, c, NULL)) {
    scan_errorf(scn, at, "out of memory");
    return NULL;
  }
  if (scan_enter(scn)) return NULL;
  vec outer = p->cur, outer_later = p->later;
  hlo_strmap outer_names = p->instrs, outer_params = p->params;
  bool single = p->single;
  p->single = false; /* XLA makes parameters for the top-level scope only */
  int rc = parse_body(p, c, scn->nerrors) || check_body(p, c, NULL, 0);
  p->single = single;
  p->cur = outer;
  p->later = outer_later;
  p->instrs = outer_names;
  p->params = outer_params;
  scan_leave(scn);
  if (rc) return NULL;
  if (vpush_in(scn, &p->scratch, &p->made, c)) {
    scan_errorf(scn, at, "out of memory");
    return NULL;
  }
  return c;
}

static int parse_computation(parser *p, hlo_computation **out) {
  scanner *scn = &p->scn;
  hlo_computation *c = hlo_arena_alloc(scn->a, sizeof *c);
  if (!c) return scan_errorf(scn, scn->pos, "out of memory");
  c->is_entry = scan_accept_kw(scn, "ENTRY");
  scan_skip(scn);
  c->off = scn->pos;
  if (scan_name_dup(scn, &c->name, c->is_entry ? "the entry computation's name" : "a computation name"))
    return HLO_ERR;
  hlo_shape declared;
  size_t declared_at = 0;
  if (scan_peek(scn, '(')) {
    if (parse_signature(p, &declared, &declared_at)) return HLO_ERR;
    c->has_signature = true;
  }
  if (parse_body(p, c, scn->nerrors)) return HLO_ERR;
  if (parse_attrs(p, &c->attrs, &c->nattrs, false) || check_comp_attrs(scn, c)) return HLO_ERR;
  if (check_body(p, c, c->has_signature ? &declared : NULL, declared_at)) return HLO_ERR;
  *out = c;
  return HLO_OK;
}

/* Resolve computation placeholders in every attribute of every
 * instruction, in text order, and collect the async-starts for
 * check_async_callers (one pass over the module instead of two). */
static int resolve_comps(parser *p, vec *async_starts) {
  scanner *scn = &p->scn;
  int rc = HLO_OK;
  hlo_module *m = p->m;
  for (int ci = 0; ci < m->ncomps; ci++) {
    hlo_computation *c = m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      hlo_instruction *in = c->instrs[i];
      hlo_prefetch_instrs(c, i);
      if (in->op == HLO_OP_ASYNC_START && vpush_in(scn, &p->scratch, async_starts, in)) return HLO_ERR;
      for (int k = 0; k < in->nattrs; k++) {
        hlo_attr *a = &in->attrs[k];
        hlo_computation **refs = NULL;
        int n = 0;
        if (a->kind == HLO_AK_COMP) {
          refs = &a->u.comp;
          n = 1;
        } else if (a->kind == HLO_AK_COMPS) {
          refs = a->u.comps.v;
          n = a->u.comps.n;
        }
        for (int q = 0; q < n; q++) {
          hlo_computation *def = hlo_strmap_get(&p->comps, refs[q]->name);
          if (!def) {
            rc = scan_errorf(scn, refs[q]->off, "'%s' refers to undefined computation '%s'", a->name, refs[q]->name);
            continue;
          }
          if (def == c) {
            rc = scan_errorf(scn, refs[q]->off, "computation '%s' calls itself", c->name);
            continue;
          }
          if (def->id > ci) {
            rc = scan_errorf(scn, refs[q]->off,
                             "computation '%s' is used before its definition (a computation must be defined above its first use)",
                             def->name);
            hlo_notef(scn->d, scn->src, def->off, "'%s' is defined here", def->name);
            continue;
          }
          refs[q] = def;
        }
      }
    }
  }
  return rc;
}

size_t hlo_module_chunk_end(const hlo_src *src, size_t begin, size_t *next) {
  const char *s = src->text;
  size_t p = begin;
  while (p < src->len) {
    /* find the next "// -----" and check that it is alone on its line */
    const char *hit = memmem(s + p, src->len - p, "// -----", 8);
    if (!hit) break;
    size_t h = (size_t)(hit - s), ls = h, le = h + 8;
    while (ls > begin && (s[ls - 1] == ' ' || s[ls - 1] == '\t')) ls--;
    while (le < src->len && (s[le] == ' ' || s[le] == '\t' || s[le] == '\r')) le++;
    if ((ls == 0 || s[ls - 1] == '\n') && (le == src->len || s[le] == '\n')) {
      *next = le < src->len ? le + 1 : le;
      return ls;
    }
    p = h + 8;
  }
  *next = src->len;
  return src->len;
}

bool hlo_chunk_is_blank(const hlo_src *src, size_t begin, size_t end) {
  const char *t = src->text;
  for (size_t i = begin; i < end; i++) {
    if (t[i] == '/' && i + 1 < end && t[i + 1] == '/') {
      while (i < end && t[i] != '\n') i++;
    } else if (t[i] != ' ' && t[i] != '\n' && t[i] != '\t' && t[i] != '\r') {
      return false;
    }
  }
  return true;
}

/* XLA reads text that does not start with HloModule, ENTRY or a name and
 * '{' as one instruction (HloParserImpl::Run); here: text starting with a
 * shape, ROOT, a name and '=', or an opcode and '(' (a computation without
 * header may still have a signature). */
static bool at_single_instruction(parser *p) {
  scanner *scn = &p->scn;
  scan_skip(scn);
  if (scan_at_end(scn)) return false;
  if (scn->s[scn->pos] == '(' || scan_at_shape(scn)) return true;
  size_t keep = scn->pos;
  const char *nm;
  hlo_opcode op;
  size_t n = scan_name(scn, &nm, NULL);
  bool single = n && ((n == 4 && memcmp(nm, "ROOT", 4) == 0) || scan_peek(scn, '=') ||
                      (scan_peek(scn, '(') && lookup_opcode(p, nm, n, &op)));
  scn->pos = keep;
  return single;
}

/* One instruction as the entry computation "_" of module "_", its undefined
 * operands made parameters (missing_parameter), scheduled in text order
 * (XLA's ParseSingleInstruction). */
static int parse_single(parser *p, hlo_computation **out) {
  scanner *scn = &p->scn;
  hlo_module *m = p->m;
  hlo_computation *c = hlo_arena_alloc(scn->a, sizeof *c);
  hlo_attr *sched = hlo_arena_alloc(scn->a, sizeof *sched);
  if (!c || !sched || hlo_strmap_put(&p->comps, "_", c, NULL)) return scan_errorf(scn, scn->pos, "out of memory");
  c->name = "_"; /* taken first: computations written inline are "_.1", ... */
  c->is_entry = true;
  c->off = scn->pos;
  m->name = "_";
  m->has_header = true;
  *sched = (hlo_attr){.key = HLO_A_IS_SCHEDULED, .kind = HLO_AK_BOOL, .name = "is_scheduled", .off = scn->pos, .u.b = true};
  m->attrs = sched;
  m->nattrs = 1;
  p->cur = (vec){0};
  p->later = (vec){0};
  hlo_strmap_init(&p->instrs, &p->scratch);
  hlo_strmap_init(&p->params, &p->scratch);
  hlo_instruction *root = NULL;
  p->single = true;
  int rc = parse_instruction(p, c, &root);
  p->single = false;
  if (rc) return HLO_ERR;
  if (!scan_at_end(scn))
    return scan_errorf(scn, scn->pos, "Expected eof after parsing single instruction. Did you mean to "
                       "write an HLO module and forget the \"HloModule\" header?");
  c->ninstrs = p->cur.n;
  c->instrs = (hlo_instruction **)vfinal(scn, &p->cur);
  if (!c->instrs) return HLO_ERR;
  c->root = c->instrs[c->ninstrs - 1];
  c->root_explicit = root != NULL;
  if (check_body(p, c, NULL, 0)) return HLO_ERR;
  *out = c;
  return HLO_OK;
}

static int parse_module_body(parser *p) {
  scanner *scn = &p->scn;
  hlo_module *m = p->m;
  scan_skip(scn);
  if (scan_accept_kw(scn, "HloModule")) {
    m->has_header = true;
    if (scan_name_dup(scn, &m->name, "the module name")) return HLO_ERR;
    scan_accept(scn, ':'); /* older dumps write "HloModule name:" */
    /* no module attribute names a computation: one written inline here
     * would have no module to join yet */
    hlo_computation *(*inline_comp)(scanner *, void *) = scn->inline_comp;
    scn->inline_comp = NULL;
    int hrc = parse_attrs(p, &m->attrs, &m->nattrs, true);
    scn->inline_comp = inline_comp;
    if (hrc || check_module_attrs(scn, m) || check_debug_attributes(scn, m)) return HLO_ERR;
    for (int i = 0; i < m->nattrs; i++)
      if (m->attrs[i].kind == HLO_AK_PROGRAM_SHAPE) {
        hlo_program_shape *ps = m->attrs[i].u.pshape;
        for (int k = 0; k < ps->nparams; k++)
          if (set_layouts(p, &ps->params[k])) return scan_errorf(scn, scn->pos, "out of memory");
        if (set_layouts(p, &ps->result)) return scan_errorf(scn, scn->pos, "out of memory");
      }
  }
  if (scan_stack_frames(scn, &m->stack_frames)) return HLO_ERR;
  vec comps = {0};
  hlo_strmap_init(&p->comps, &p->scratch);
  int rc = HLO_OK;
  bool single = !m->has_header && at_single_instruction(p);
  if (single) {
    hlo_computation *c = NULL;
    if (parse_single(p, &c)) return HLO_ERR;
    for (; p->made_taken < p->made.n; p->made_taken++)
      if (vpush_in(scn, &p->scratch, &comps, p->made.v[p->made_taken])) return HLO_ERR;
    if (vpush_in(scn, &p->scratch, &comps, c)) return HLO_ERR;
    m->entry = c;
  }
  while (!single && !scan_at_end(scn)) {
    hlo_computation *c = NULL;
    if (parse_computation(p, &c)) {
      rc = HLO_ERR;
      break; /* structure is unreliable after a broken computation */
    }
    for (; p->made_taken < p->made.n; p->made_taken++)
      if (vpush_in(scn, &p->scratch, &comps, p->made.v[p->made_taken])) return HLO_ERR;
    void *old;
    if (hlo_strmap_put(&p->comps, c->name, c, &old) || vpush_in(scn, &p->scratch, &comps, c))
      return scan_errorf(scn, c->off, "out of memory");
    if (old) {
      rc = scan_errorf(scn, c->off, "computation '%s' is defined twice", c->name);
      hlo_notef(scn->d, scn->src, ((hlo_computation *)old)->off, "previous definition is here");
    }
    if (c->is_entry) {
      if (m->entry) {
        rc = scan_errorf(scn, c->off, "expects only one ENTRY computation");
        hlo_notef(scn->d, scn->src, m->entry->off, "first ENTRY is '%s'", m->entry->name);
      }
      m->entry = c;
    }
  }
  if (rc) return HLO_ERR;
  if (!comps.n) return scan_errorf(scn, scn->pos, "no computation found");
  m->ncomps = comps.n;
  m->comps = (hlo_computation **)vfinal(scn, &comps);
  if (!m->comps) return HLO_ERR;
  if (!m->entry) {
    m->entry = m->comps[m->ncomps - 1];
    m->entry->is_entry = true;
  }
  for (int i = 0; i < m->ncomps; i++) m->comps[i]->id = i; /* text order, for resolve_comps */
  vec async_starts = {0};
  if (resolve_comps(p, &async_starts) ||
      check_async_callers(scn, (hlo_instruction *const *)async_starts.v, async_starts.n, &p->scratch) ||
      scan_async_late_binding(scn, (hlo_computation *const *)p->async_comps.v, p->async_comps.n,
                              (hlo_instruction *const *)p->async_later.v, p->async_later.n))
    return HLO_ERR;
  if (p->anon.n && scan_name_anonymous(&p->scratch, &m->arena, m->comps, m->ncomps, (hlo_instruction **)p->anon.v,
                                       p->anon.n, (hlo_computation *const *)p->async_comps.v, p->async_comps.n))
    return scan_errorf(scn, 0, "out of memory");
  if (hlo_module_link(m)) return scan_errorf(scn, 0, "out of memory");
  return HLO_OK;
}

hlo_module *hlo_parse_module(const hlo_src *src, size_t begin, size_t end,
                             const hlo_allocator *alloc, hlo_diags *d,
                             const hlo_parse_options *opts) {
  hlo_module *m = hlo_module_new(alloc);
  if (!m) {
    hlo_errorf(d, src, begin, "out of memory");
    return NULL;
  }
  if (end > src->len) end = src->len;
  parser p = {0};
  p.m = m;
  p.opts = opts;
  hlo_arena_init(&p.scratch, alloc);
  hlo_strmap_init(&p.layouts, &p.scratch);
  p.scn = (scanner){.src = src, .s = src->text, .pos = begin, .end = end, .d = d, .a = &m->arena,
                   .ir = &m->arena, .max_depth = opts && opts->max_depth > 0 ? opts->max_depth : 256,
                   .layouts = &p.layouts, .scratch = &p.scratch, .inline_comp = inline_computation, .inline_ctx = &p};
  /* NUL bytes cannot appear in HLO text; report the first instead of
   * letting it end a name or number silently */
  const char *nul = memchr(src->text + begin, 0, end - begin);
  if (nul) {
    hlo_errorf(d, src, (size_t)(nul - src->text), "NUL byte in HLO text");
    hlo_module_free(m);
    hlo_arena_release(&p.scratch);
    return NULL;
  }
  int rc = build_name_maps(&p) ? hlo_errorf(d, src, begin, "out of memory") : parse_module_body(&p);
  hlo_arena_release(&p.scratch);
  if (rc || p.scn.nerrors) {
    hlo_module_free(m);
    return NULL;
  }
  return m;
}
