/* print.c - HLO text output in XLA's printer style: modules, computations,
 * instructions, shapes and literals (attribute values are in
 * print_attr.c). */
#include <inttypes.h>
#include <string.h>

#include "hlo/hlo_fp.h"
#include "text/attr_rules.h"
#include "text/print_internal.h"

static const hlo_print_options DEFAULTS = {0};

/* ---- shapes --------------------------------------------------------------- */

static void print_layout(hlo_buf *b, const hlo_layout *l) {
  hlo_buf_putc(b, '{');
  for (int i = 0; i < l->n; i++) {
    if (i) hlo_buf_putc(b, ',');
    hlo_buf_put_i64(b, l->minor_to_major[i]);
  }
  if (l->ext) {
    hlo_buf_putc(b, ':');
    hlo_buf_puts(b, l->ext);
  }
  hlo_buf_putc(b, '}');
}

/* The one shape printer.  Module text (XLA's HloPrinter) marks every fifth
 * tuple element with an index comment and writes a scalar's layout when it
 * has a memory-space suffix; messages (ShapeUtil::HumanString) do neither. */
static void print_shape_ex(hlo_buf *b, const hlo_shape *s, bool with_layout, bool message) {
  if (s->type == HLO_TUPLE) {
    hlo_buf_putc(b, '(');
    for (int i = 0; i < s->ntuple; i++) {
      if (message && i) hlo_buf_puts(b, ", ");
      else hlo_text_list_sep(b, i);
      print_shape_ex(b, &s->tuple[i], with_layout, message);
    }
    hlo_buf_putc(b, ')');
    return;
  }
  if (s->buffer) { /* b(T[...]{layout}) */
    hlo_shape inner = *s;
    inner.buffer = false;
    hlo_buf_puts(b, "b(");
    print_shape_ex(b, &inner, with_layout, message);
    hlo_buf_putc(b, ')');
    return;
  }
  hlo_buf_puts(b, hlo_type_name(s->type));
  hlo_buf_putc(b, '[');
  for (int i = 0; i < s->rank; i++) {
    if (i) hlo_buf_putc(b, ',');
    if (s->dims[i] == HLO_DIM_UNBOUNDED) {
      hlo_buf_putc(b, '?');
      continue;
    }
    if (s->dynamic && s->dynamic[i]) hlo_buf_puts(b, "<=");
    hlo_buf_put_i64(b, s->dims[i]);
  }
  hlo_buf_putc(b, ']');
  if (with_layout && s->layout && (s->rank > 0 || (s->layout->ext && !message))) print_layout(b, s->layout);
}

int hlo_print_shape(hlo_buf *b, const hlo_shape *s, bool with_layout) {
  print_shape_ex(b, s, with_layout, false);
  return b->failed ? HLO_ERR : HLO_OK;
}

char *hlo_shape_str(hlo_arena *a, const hlo_shape *s, bool with_layout) {
  hlo_buf b;
  hlo_buf_init(&b, a->alloc);
  print_shape_ex(&b, s, with_layout, true);
  char *r = b.failed || !b.data ? NULL : hlo_arena_strndup(a, b.data, b.len);
  hlo_buf_release(&b);
  return r;
}

void hlo_text_list_sep(hlo_buf *b, int i) {
  if (!i) return;
  hlo_buf_puts(b, ", ");
  if (i % 5 == 0) hlo_buf_printf(b, "/*index=%d*/", i);
}

/* ---- literals -------------------------------------------------------------- */

static uint64_t load_bits(const unsigned char *p, int bytes) {
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  switch (bytes) {
  case 1: memcpy(&u8, p, 1); return u8;
  case 2: memcpy(&u16, p, 2); return u16;
  case 4: memcpy(&u32, p, 4); return u32;
  default: memcpy(&u64, p, 8); return u64;
  }
}

static void print_float(hlo_buf *b, hlo_type t, uint64_t bits, const hlo_print_options *o) {
  char tmp[HLO_FP_FMT_MAX];
  if (hlo_fp_format(tmp, sizeof tmp, t, bits, o->shortest_floats) < 0) {
    hlo_buf_puts(b, "nan");
    return;
  }
  hlo_buf_puts(b, tmp);
}

static void print_element(hlo_buf *b, hlo_type t, const unsigned char *p, bool pred_as_digit,
                          const hlo_print_options *o) {
  int bytes = hlo_type_bytes(t);
  uint64_t v = load_bits(p, bytes);
  switch (hlo_type_kind_of(t)) {
  case HLO_KIND_PRED:
    hlo_buf_puts(b, pred_as_digit ? (v ? "1" : "0") : (v ? "true" : "false"));
    return;
  case HLO_KIND_SINT: {
    int bits = hlo_type_bits(t);
    int64_t s = bits == 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
    hlo_buf_put_i64(b, s);
    return;
  }
  case HLO_KIND_UINT: {
    int bits = hlo_type_bits(t);
    hlo_buf_put_u64(b, bits == 64 ? v : v & (((uint64_t)1 << bits) - 1));
    return;
  }
  case HLO_KIND_FLOAT:
    print_float(b, t, v, o);
    return;
  case HLO_KIND_COMPLEX: {
    hlo_type part = t == HLO_C64 ? HLO_F32 : HLO_F64;
    int pb = bytes / 2;
    hlo_buf_putc(b, '(');
    print_float(b, part, load_bits(p, pb), o);
    hlo_buf_puts(b, ", ");
    print_float(b, part, load_bits(p + pb, pb), o);
    hlo_buf_putc(b, ')');
    return;
  }
  case HLO_KIND_TOKEN:
  case HLO_KIND_OPAQUE:
  case HLO_KIND_TUPLE:
    break;
  }
  hlo_buf_puts(b, "?");
}

typedef struct lit_print {
  hlo_buf *b;
  const hlo_literal *l;
  const hlo_print_options *o;
  int64_t next;
  int bytes;
} lit_print;

/* XLA's one-line dense array form: rank 1 "{1, 2}"; higher ranks
 * "{ { 1, 2 }, { 3, 4 } }", with index markers (i0=V) above rank 3. */
static void print_dims(lit_print *c, int dim, int64_t index_at_parent) {
  const hlo_shape *s = &c->l->shape;
  int rank = s->rank;
  hlo_buf *b = c->b;
  if (dim == rank) {
    print_element(b, s->type, (const unsigned char *)c->l->data + c->next * c->bytes, rank > 0, c->o);
    c->next++;
    return;
  }
  int64_t n = s->dims[dim];
  int remaining = rank - dim;
  if (rank == 1) hlo_buf_putc(b, '{');
  else if (remaining == 1) hlo_buf_puts(b, n <= 1 ? "{" : "{ ");
  else if (rank > 3 && dim > 0) hlo_buf_printf(b, "{ /*i%d=%" PRId64 "*/%s", dim - 1, index_at_parent, n > 0 ? " " : "");
  else hlo_buf_puts(b, "{ ");
  for (int64_t i = 0; i < n; i++) {
    print_dims(c, dim + 1, i);
    if (i < n - 1) hlo_buf_puts(b, ", ");
  }
  if (rank == 1) hlo_buf_putc(b, '}');
  else if (remaining == 1) hlo_buf_puts(b, n <= 1 ? "}" : " }");
  else hlo_buf_puts(b, " }");
}

void hlo_text_literal(hlo_buf *b, const hlo_literal *l, const hlo_print_options *o, bool shapes) {
  if (l->shape.type == HLO_TUPLE && !l->elided) {
    hlo_buf_puts(b, "( ");
    for (int i = 0; i < l->ntuple; i++) {
      if (i) hlo_buf_puts(b, ", ");
      hlo_text_literal(b, &l->tuple[i], o, shapes);
    }
    hlo_buf_puts(b, " )");
    return;
  }
  if (shapes) {
    print_shape_ex(b, &l->shape, true, false);
    hlo_buf_putc(b, ' ');
  }
  if (l->elided || !l->data) {
    hlo_buf_puts(b, "{...}");
    return;
  }
  if (o->elide_constants && l->nelems > 10) {
    hlo_buf_puts(b, "{...}");
    return;
  }
  lit_print c = {b, l, o, 0, hlo_type_bytes(l->shape.type)};
  print_dims(&c, 0, 0);
}

int hlo_print_literal(hlo_buf *b, const hlo_literal *l, const hlo_print_options *o) {
  hlo_text_literal(b, l, o ? o : &DEFAULTS, false);
  return b->failed ? HLO_ERR : HLO_OK;
}

/* ---- instructions ---------------------------------------------------------- */

static void print_name(hlo_buf *b, const char *name, const hlo_print_options *o) {
  if (!o->short_form) hlo_buf_putc(b, '%');
  hlo_buf_puts(b, name);
}

static bool skip_attr(const hlo_attr *a, const hlo_print_options *o) {
  return o->short_form && a->key == HLO_A_METADATA;
}

static void print_attr(hlo_buf *b, const hlo_attr *a, const hlo_print_options *o) {
  hlo_buf_puts(b, ", ");
  hlo_buf_puts(b, a->name);
  hlo_buf_putc(b, '=');
  hlo_print_attr_value(b, a, o);
}

/* Boolean attributes XLA prints only when true (topk prints is_stable
 * always). */
static bool omitted_when_false(const hlo_instruction *in, const hlo_attr *a) {
  if (a->kind != HLO_AK_BOOL || a->u.b || in->op == HLO_OP_TOPK) return false;
  switch (a->key) {
  case HLO_A_IS_HOST_TRANSFER: case HLO_A_CONSTRAIN_LAYOUT: case HLO_A_USE_GLOBAL_DEVICE_IDS:
  case HLO_A_IS_STABLE: case HLO_A_CUSTOM_CALL_HAS_SIDE_EFFECT: case HLO_A_INDICES_ARE_SORTED:
  case HLO_A_UNIQUE_INDICES: case HLO_A_IS_COMPOSITE:
    return true;
  default:
    return false;
  }
}

/* Attributes XLA always prints but the text may leave out, each with the
 * value it then has and the attribute it follows (HLO_A_UNKNOWN: first):
 * a broadcast's dimensions (of a scalar); a collective's replica groups
 * (after channel_id); topk's largest and is_stable (both true unless
 * written); collective-broadcast's has_dynamic_root (false). */
typedef struct implied_attr {
  hlo_attr_key key, after;
  const char *value;
} implied_attr;

static int implied_attrs(const hlo_instruction *in, implied_attr *out) {
  int n = 0;
  switch (in->op) {
  case HLO_OP_BROADCAST:
    out[n++] = (implied_attr){HLO_A_DIMENSIONS, HLO_A_UNKNOWN, "{}"};
    break;
  case HLO_OP_ALL_REDUCE: case HLO_OP_ALL_REDUCE_START: case HLO_OP_ALL_GATHER: case HLO_OP_ALL_GATHER_START:
  case HLO_OP_ALL_TO_ALL: case HLO_OP_REDUCE_SCATTER: case HLO_OP_COLLECTIVE_BROADCAST: case HLO_OP_RAGGED_ALL_TO_ALL:
    out[n++] = (implied_attr){HLO_A_REPLICA_GROUPS,
                              hlo_instr_attr(in, HLO_A_CHANNEL_ID) ? HLO_A_CHANNEL_ID : HLO_A_UNKNOWN, "{}"};
    if (in->op == HLO_OP_COLLECTIVE_BROADCAST) out[n++] = (implied_attr){HLO_A_HAS_DYNAMIC_ROOT, HLO_A_REPLICA_GROUPS, "false"};
    break;
  case HLO_OP_TOPK:
    out[n++] = (implied_attr){HLO_A_LARGEST, HLO_A_K, "true"};
    out[n++] = (implied_attr){HLO_A_IS_STABLE, HLO_A_LARGEST, "true"};
    break;
  default:
    break;
  }
  int k = 0; /* keep those the instruction does not have */
  for (int i = 0; i < n; i++)
    if (!hlo_instr_attr(in, out[i].key)) out[k++] = out[i];
  return k;
}

/* The implied attributes that follow `after`, each followed by those that
 * follow it in turn. */
static void print_implied(hlo_buf *b, const implied_attr *im, int n, hlo_attr_key after) {
  for (int i = 0; i < n; i++)
    if (im[i].after == after) {
      hlo_buf_printf(b, ", %s=%s", hlo_attr_name(im[i].key), im[i].value);
      print_implied(b, im, n, im[i].key);
    }
}

/* Attributes of async ops that XLA prints in its own way (or not at all):
 * the thread and the wrapped computation, which async-update and
 * async-done take from their async-start. */
static bool async_own_attr(const hlo_instruction *in, const hlo_attr *a, bool sugared) {
  if (in->op != HLO_OP_ASYNC_START && in->op != HLO_OP_ASYNC_UPDATE && in->op != HLO_OP_ASYNC_DONE) return false;
  if (a->key == HLO_A_ASYNC_EXECUTION_THREAD) return true;
  return a->key == HLO_A_CALLS && (sugared || in->op != HLO_OP_ASYNC_START);
}

int hlo_print_instruction(hlo_buf *b, const hlo_instruction *in, const hlo_print_options *o) {
  return hlo_text_print_instruction(b, in, o, NULL);
}

int hlo_text_print_instruction(hlo_buf *b, const hlo_instruction *in, const hlo_print_options *o, const bool *plain) {
  if (!o) o = &DEFAULTS;
  print_name(b, in->name, o);
  hlo_buf_puts(b, " = ");
  if (!in->shape_omitted) {
    print_shape_ex(b, &in->shape, !o->no_layouts, false);
    hlo_buf_putc(b, ' ');
  }
  const hlo_instruction *wrapped = hlo_text_async_sugar(in, plain);
  hlo_buf_puts(b, hlo_opcode_name(wrapped ? wrapped->op : in->op));
  if (wrapped) hlo_buf_puts(b, in->op == HLO_OP_ASYNC_START ? "-start" : in->op == HLO_OP_ASYNC_UPDATE ? "-update" : "-done");
  hlo_buf_putc(b, '(');
  if (in->op == HLO_OP_CONSTANT && in->literal) {
    /* as XLA without print_large_constants: tuple constants are elided too */
    if (o->elide_constants && in->literal->shape.type == HLO_TUPLE) hlo_buf_puts(b, "{...}");
    else hlo_text_literal(b, in->literal, o, false);
  } else if (in->op == HLO_OP_PARAMETER) {
    hlo_buf_put_i64(b, in->param_number);
  } else {
    for (int i = 0; i < in->noperands; i++) {
      const hlo_instruction *op = in->operands[i];
      if (i) {
        hlo_buf_puts(b, ", ");
        /* XLA's short parsable form has no operand index annotations */
        if (i % 5 == 0 && !o->short_form) hlo_buf_printf(b, "/*index=%d*/", i);
      }
      if (o->operand_shapes && !op->shape_omitted) {
        print_shape_ex(b, &op->shape, !o->no_layouts, false);
        hlo_buf_putc(b, ' ');
      }
      print_name(b, op->name, o);
    }
  }
  hlo_buf_putc(b, ')');
  if (in->op == HLO_OP_ASYNC_START) {
    /* the thread when it is not the main one, then (sugared form) the
     * wrapped op's own attributes in place of calls= */
    const hlo_attr *t = hlo_instr_attr(in, HLO_A_ASYNC_EXECUTION_THREAD);
    if (t && t->kind == HLO_AK_STRING && strcmp(t->u.s, "main") != 0) print_attr(b, t, o);
    for (int i = 0; wrapped && i < wrapped->nattrs; i++)
      if (!hlo_text_generic_attr(wrapped->attrs[i].key)) print_attr(b, &wrapped->attrs[i], o);
  }
  implied_attr im[4];
  int nim = implied_attrs(in, im);
  print_implied(b, im, nim, HLO_A_UNKNOWN);
  for (int i = 0; i < in->nattrs; i++) {
    const hlo_attr *a = &in->attrs[i];
    if (skip_attr(a, o) || omitted_when_false(in, a) || attr_word_is_default(in, a) ||
        (hlo_opcode_flags(in->op) & HLO_F_ASYNC && async_own_attr(in, a, wrapped != NULL)))
      continue;
    print_attr(b, a, o);
    print_implied(b, im, nim, a->key);
  }
  return b->failed ? HLO_ERR : HLO_OK;
}

/* ---- computations and modules ------------------------------------------------ */

int hlo_print_computation(hlo_buf *b, const hlo_computation *c, const hlo_print_options *o) {
  return hlo_text_print_computation(b, c, o, NULL);
}

int hlo_text_print_computation(hlo_buf *b, const hlo_computation *c, const hlo_print_options *o, const bool *plain) {
  if (!o) o = &DEFAULTS;
  if (c->is_entry) hlo_buf_puts(b, "ENTRY ");
  print_name(b, c->name, o);
  /* The signature is optional: leave it out when a part of it is unknown
   * (a parameter number gap or repeat, a root shape still to be inferred)
   * so that the text reads back. */
  bool known = c->root && !c->root->shape_omitted;
  for (int i = 0; known && i < c->nparams; i++) known = c->params[i] && !c->params[i]->shape_omitted;
  /* a parameter number written twice (an invalid module) has no signature
   * either: which of the two it names would depend on the order */
  int nparam_instrs = 0;
  for (int i = 0; known && i < c->ninstrs; i++) nparam_instrs += c->instrs[i]->op == HLO_OP_PARAMETER;
  if (known && nparam_instrs != c->nparams) known = false;
  if (!o->short_form && known) {
    hlo_buf_puts(b, " (");
    for (int i = 0; i < c->nparams; i++) {
      if (i) hlo_buf_puts(b, ", ");
      const hlo_instruction *p = c->params[i];
      hlo_buf_printf(b, "%s: ", p->name);
      print_shape_ex(b, &p->shape, false, false);
    }
    hlo_buf_puts(b, ") -> ");
    print_shape_ex(b, &c->root->shape, false, false);
  }
  hlo_buf_puts(b, " {\n");
  hlo_arena scratch;
  hlo_arena_init(&scratch, NULL);
  if (!plain && c->module_) plain = hlo_text_plain_callees(&scratch, c->module_);
  const hlo_instruction **order;
  if (hlo_text_instr_order(&scratch, c, &order)) {
    b->failed = true;
  } else {
    for (int i = 0; i < c->ninstrs; i++) {
      const hlo_instruction *in = order[i];
      hlo_buf_puts(b, in == c->root ? "  ROOT " : "  ");
      hlo_text_print_instruction(b, in, o, plain);
      hlo_buf_putc(b, '\n');
    }
  }
  hlo_arena_release(&scratch);
  hlo_buf_putc(b, '}');
  for (int i = 0; i < c->nattrs; i++) {
    const hlo_attr *a = &c->attrs[i];
    /* HloComputation::Print: the thread only when it is not the main one */
    if (a->key == HLO_A_EXECUTION_THREAD && a->kind == HLO_AK_STRING && strcmp(a->u.s, "main") == 0) continue;
    print_attr(b, a, o);
  }
  return b->failed ? HLO_ERR : HLO_OK;
}
