/* json_write.c - an hlo_module as the lossless JSON of docs/json.md: every
 * IR field that printing depends on, attributes in structured form, plus
 * derived fields (users, called computations, parsed metadata, literal
 * text) that readers may use and hlo_json_read ignores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/json_names.h"
#include "ir/mesh.h"
#include "hlo/hlo_json.h"
#include "hlo/hlo_text.h"

typedef struct jw {
  bool oom;
} jw;

/* Attach item (which may be NULL after a failed allocation) to obj/array. */
static cJSON *put(jw *w, cJSON *parent, const char *key, cJSON *item) {
  if (!item) {
    w->oom = true;
    return NULL;
  }
  bool ok = key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
  if (!ok) {
    cJSON_Delete(item);
    w->oom = true;
    return NULL;
  }
  return item;
}

static cJSON *str_or_null(const char *s) { return s ? cJSON_CreateString(s) : cJSON_CreateNull(); }

static cJSON *int_array(jw *w, const int64_t *v, int n) {
  cJSON *a = cJSON_CreateArray();
  if (!a) return NULL;
  for (int i = 0; i < n; i++) put(w, a, NULL, hlo_json_int(v[i]));
  return a;
}

static cJSON *shape_json(jw *w, const hlo_shape *s);

static cJSON *layout_json(jw *w, const hlo_layout *l) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  put(w, o, "minor_to_major", int_array(w, l->minor_to_major, l->n));
  if (l->ntiles) {
    cJSON *tiles = put(w, o, "tiles", cJSON_CreateArray());
    for (int i = 0; tiles && i < l->ntiles; i++) {
      cJSON *t = put(w, tiles, NULL, cJSON_CreateArray());
      for (int j = 0; t && j < l->tiles[i].n; j++) {
        int64_t d = l->tiles[i].dims[j];
        put(w, t, NULL, d == HLO_TILE_COMBINE ? cJSON_CreateString("*") : hlo_json_int(d));
      }
    }
  }
  if (l->element_size_bits) put(w, o, "element_size_bits", hlo_json_int(l->element_size_bits));
  if (l->memory_space) put(w, o, "memory_space", hlo_json_int(l->memory_space));
  if (l->ext) put(w, o, "ext", cJSON_CreateString(l->ext));
  return o;
}

static cJSON *shape_json(jw *w, const hlo_shape *s) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  put(w, o, "type", cJSON_CreateString(hlo_type_name(s->type)));
  if (s->type == HLO_TUPLE) {
    cJSON *el = put(w, o, "elements", cJSON_CreateArray());
    for (int i = 0; el && i < s->ntuple; i++) put(w, el, NULL, shape_json(w, &s->tuple[i]));
  } else if (hlo_type_is_array(s->type)) {
    cJSON *dims = put(w, o, "dims", cJSON_CreateArray());
    for (int i = 0; dims && i < s->rank; i++)
      put(w, dims, NULL,
          s->dims[i] == HLO_DIM_UNBOUNDED ? cJSON_CreateString("?") : hlo_json_int(s->dims[i]));
    if (s->dynamic) {
      cJSON *dyn = put(w, o, "dynamic", cJSON_CreateArray());
      for (int i = 0; dyn && i < s->rank; i++) put(w, dyn, NULL, cJSON_CreateBool(s->dynamic[i]));
    }
  }
  if (s->layout) put(w, o, "layout", layout_json(w, s->layout));
  return o;
}

static cJSON *comp_name(const hlo_computation *c) {
  return c ? cJSON_CreateString(c->name) : cJSON_CreateNull();
}

static cJSON *sharding_json(jw *w, const hlo_sharding *s) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  put(w, o, "kind", cJSON_CreateString(hlo_json_shard_name(s->kind)));
  if (s->kind == HLO_SHARD_MAXIMAL || s->device) put(w, o, "device", hlo_json_int(s->device));
  if (s->ntile) put(w, o, "tile", int_array(w, s->tile, s->ntile));
  if (s->ndevices) put(w, o, "devices", int_array(w, s->devices, s->ndevices));
  if (s->iota) {
    put(w, o, "iota_reshape", int_array(w, s->iota_reshape, s->niota_reshape));
    put(w, o, "iota_perm", int_array(w, s->iota_perm, s->niota_perm));
  }
  if (s->last_tile_dim_replicate) put(w, o, "last_tile_dim_replicate", cJSON_CreateTrue());
  if (s->nlast_tile_dims) {
    cJSON *lt = put(w, o, "last_tile_dims", cJSON_CreateArray());
    for (int i = 0; lt && i < s->nlast_tile_dims; i++) put(w, lt, NULL, str_or_null(s->last_tile_dims[i]));
  }
  if (s->kind == HLO_SHARD_TUPLE || s->ntuple) {
    cJSON *t = put(w, o, "tuple", cJSON_CreateArray());
    for (int i = 0; t && i < s->ntuple; i++) put(w, t, NULL, sharding_json(w, &s->tuple[i]));
  }
  if (s->named) put(w, o, "named", cJSON_CreateTrue()); /* text is the whole story: read back by parsing it */
  put(w, o, "text", str_or_null(s->text));
  return o;
}

static cJSON *groups_json(jw *w, const hlo_replica_groups *g) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  if (g->mesh) { /* read back by parsing the text; the groups are for readers */
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    hlo_mesh_groups_print(&b, g->mesh);
    hlo_buf_putc(&b, 0);
    put(w, o, "mesh", b.failed ? cJSON_CreateNull() : cJSON_CreateString(b.data));
    hlo_buf_release(&b);
  }
  put(w, o, "iota", cJSON_CreateBool(g->iota));
  if (g->group_sizes) {
    cJSON *sz = put(w, o, "group_sizes", cJSON_CreateArray());
    for (int i = 0; sz && i < g->ngroups; i++) put(w, sz, NULL, hlo_json_int(g->group_sizes[i]));
  }
  if (g->groups) {
    cJSON *gs = put(w, o, "groups", cJSON_CreateArray());
    for (int i = 0; gs && i < g->ngroups; i++)
      put(w, gs, NULL, int_array(w, g->groups[i], g->group_sizes ? g->group_sizes[i] : 0));
  } else {
    put(w, o, "ngroups", hlo_json_int(g->ngroups));
  }
  if (g->iota) {
    put(w, o, "iota_shape", int_array(w, g->iota_shape, g->niota_shape));
    put(w, o, "iota_reshape", int_array(w, g->iota_reshape, g->niota_reshape));
    put(w, o, "iota_perm", int_array(w, g->iota_perm, g->niota_perm));
  }
  return o;
}

static cJSON *literal_json(jw *w, const hlo_literal *l, bool top);

static cJSON *attr_value(jw *w, const hlo_attr *a, cJSON *attr_obj) {
  switch (a->kind) {
  case HLO_AK_INT: return hlo_json_int(a->u.i);
  case HLO_AK_BOOL: return cJSON_CreateBool(a->u.b);
  case HLO_AK_FLOAT: return hlo_json_float(a->u.f);
  case HLO_AK_STRING:
  case HLO_AK_WORD:
  case HLO_AK_RAW: return str_or_null(a->u.s);
  case HLO_AK_INTS: return int_array(w, a->u.ints.v, a->u.ints.n);
  case HLO_AK_BOOLS: {
    cJSON *v = cJSON_CreateArray();
    for (int i = 0; v && i < a->u.bools.n; i++) put(w, v, NULL, cJSON_CreateBool(a->u.bools.v[i]));
    return v;
  }
  case HLO_AK_WORDS: {
    cJSON *v = cJSON_CreateArray();
    for (int i = 0; v && i < a->u.words.n; i++) put(w, v, NULL, str_or_null(a->u.words.v[i]));
    return v;
  }
  case HLO_AK_COMP: return comp_name(a->u.comp);
  case HLO_AK_COMPS: {
    put(w, attr_obj, "braced", cJSON_CreateBool(a->u.comps.braced));
    cJSON *v = cJSON_CreateArray();
    for (int i = 0; v && i < a->u.comps.n; i++) put(w, v, NULL, comp_name(a->u.comps.v[i]));
    return v;
  }
  case HLO_AK_INSTRS: {
    cJSON *v = cJSON_CreateArray();
    for (int i = 0; v && i < a->u.instrs.n; i++)
      put(w, v, NULL, a->u.instrs.v[i] ? cJSON_CreateString(a->u.instrs.v[i]->name) : cJSON_CreateNull());
    return v;
  }
  case HLO_AK_WINDOW: {
    cJSON *v = cJSON_CreateArray();
    for (int i = 0; v && i < a->u.window.n; i++) {
      const hlo_window_dim *d = &a->u.window.dims[i];
      cJSON *o = put(w, v, NULL, cJSON_CreateObject());
      if (!o) break;
      put(w, o, "size", hlo_json_int(d->size));
      put(w, o, "stride", hlo_json_int(d->stride));
      put(w, o, "pad_lo", hlo_json_int(d->pad_lo));
      put(w, o, "pad_hi", hlo_json_int(d->pad_hi));
      put(w, o, "lhs_dilate", hlo_json_int(d->lhs_dilate));
      put(w, o, "rhs_dilate", hlo_json_int(d->rhs_dilate));
      put(w, o, "reversal", cJSON_CreateBool(d->reversal));
    }
    return v;
  }
  case HLO_AK_CONV_DNUMS: {
    const hlo_conv_dnums *c = a->u.conv;
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    put(w, o, "input_batch", hlo_json_int(c->in_batch));
    put(w, o, "input_feature", hlo_json_int(c->in_feature));
    put(w, o, "input_spatial", int_array(w, c->in_spatial, c->nspatial));
    put(w, o, "kernel_input_feature", hlo_json_int(c->kernel_in));
    put(w, o, "kernel_output_feature", hlo_json_int(c->kernel_out));
    put(w, o, "kernel_spatial", int_array(w, c->kernel_spatial, c->nspatial));
    put(w, o, "output_batch", hlo_json_int(c->out_batch));
    put(w, o, "output_feature", hlo_json_int(c->out_feature));
    put(w, o, "output_spatial", int_array(w, c->out_spatial, c->nspatial));
    return o;
  }
  case HLO_AK_SLICES: {
    cJSON *v = cJSON_CreateArray();
    for (int i = 0; v && i < a->u.slices.n; i++) {
      cJSON *o = put(w, v, NULL, cJSON_CreateObject());
      if (!o) break;
      put(w, o, "start", hlo_json_int(a->u.slices.v[i].start));
      put(w, o, "limit", hlo_json_int(a->u.slices.v[i].limit));
      put(w, o, "stride", hlo_json_int(a->u.slices.v[i].stride));
    }
    return v;
  }
  case HLO_AK_PADDING: {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    put(w, o, "has_interior", cJSON_CreateBool(a->u.padding.has_interior));
    cJSON *v = put(w, o, "dims", cJSON_CreateArray());
    for (int i = 0; v && i < a->u.padding.n; i++) {
      cJSON *d = put(w, v, NULL, cJSON_CreateObject());
      if (!d) break;
      put(w, d, "lo", hlo_json_int(a->u.padding.dims[i].lo));
      put(w, d, "hi", hlo_json_int(a->u.padding.dims[i].hi));
      put(w, d, "interior", hlo_json_int(a->u.padding.dims[i].interior));
    }
    return o;
  }
  case HLO_AK_REPLICA_GROUPS:
  case HLO_AK_INT_LISTS: return groups_json(w, a->u.groups);
  case HLO_AK_PAIRS: {
    cJSON *v = cJSON_CreateArray();
    for (int i = 0; v && i < a->u.pairs.n; i++) put(w, v, NULL, int_array(w, a->u.pairs.v[i], 2));
    return v;
  }
  case HLO_AK_SHAPE: return shape_json(w, a->u.shape);
  case HLO_AK_SHAPES: {
    cJSON *v = cJSON_CreateArray();
    for (int i = 0; v && i < a->u.shapes.n; i++) put(w, v, NULL, shape_json(w, &a->u.shapes.v[i]));
    return v;
  }
  case HLO_AK_SHARDING: return sharding_json(w, a->u.sharding);
  case HLO_AK_PROGRAM_SHAPE: {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON *ps = put(w, o, "parameters", cJSON_CreateArray());
    for (int i = 0; ps && i < a->u.pshape->nparams; i++)
      put(w, ps, NULL, shape_json(w, &a->u.pshape->params[i]));
    put(w, o, "result", shape_json(w, &a->u.pshape->result));
    return o;
  }
  case HLO_AK_LITERAL: return a->u.literal ? literal_json(w, a->u.literal, true) : cJSON_CreateNull();
  case HLO_AK_ALIASING: {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON *es = put(w, o, "entries", cJSON_CreateArray());
    for (int i = 0; es && i < a->u.aliasing.n; i++) {
      const hlo_alias_entry *e = &a->u.aliasing.v[i];
      cJSON *eo = put(w, es, NULL, cJSON_CreateObject());
      if (!eo) break;
      put(w, eo, "output_index", int_array(w, e->output_index, e->noutput));
      put(w, eo, "operand", hlo_json_int(e->operand));
      put(w, eo, "operand_index", int_array(w, e->operand_index, e->noperand_index));
      if (e->kind) put(w, eo, "kind", cJSON_CreateString(e->kind));
    }
    put(w, o, "text", str_or_null(a->u.aliasing.text));
    return o;
  }
  }
  return cJSON_CreateNull();
}

static cJSON *attrs_json(jw *w, const hlo_attr *attrs, int n) {
  cJSON *v = cJSON_CreateArray();
  for (int i = 0; v && i < n; i++) {
    const hlo_attr *a = &attrs[i];
    cJSON *o = put(w, v, NULL, cJSON_CreateObject());
    if (!o) break;
    put(w, o, "name", cJSON_CreateString(a->name ? a->name : hlo_attr_name(a->key)));
    put(w, o, "kind", cJSON_CreateString(hlo_json_kind_name(a->kind)));
    if (a->key == HLO_A_UNKNOWN) put(w, o, "known", cJSON_CreateFalse());
    put(w, o, "value", attr_value(w, a, o));
  }
  return v;
}

/* Derived: metadata={op_type="x" op_name="y" source_line=3} as an object. */
static cJSON *metadata_json(jw *w, const char *s) {
  cJSON *o = cJSON_CreateObject();
  if (!o || !s) return o;
  hlo_buf val;
  hlo_buf_init(&val, NULL);
  const char *p = s;
  while (*p == ' ' || *p == '{') p++;
  while (*p && *p != '}') {
    const char *k = p;
    while (*p && *p != '=' && *p != ' ' && *p != '}') p++;
    size_t klen = (size_t)(p - k);
    if (*p != '=' || klen == 0 || klen > 200) break;
    p++;
    val.len = 0;
    bool quoted = *p == '"';
    if (quoted) {
      p++;
      while (*p && *p != '"') {
        if (*p == '\\' && p[1]) {
          p++;
          char c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
          hlo_buf_putc(&val, c);
        } else {
          hlo_buf_putc(&val, *p);
        }
        p++;
      }
      if (*p == '"') p++;
    } else {
      while (*p && *p != ' ' && *p != '}') hlo_buf_putc(&val, *p++);
    }
    hlo_buf_putc(&val, 0);
    char key[201];
    memcpy(key, k, klen);
    key[klen] = 0;
    if (val.failed) {
      w->oom = true;
      break;
    }
    const char *digits = val.data[0] == '-' ? val.data + 1 : val.data;
    size_t nd = strlen(digits);
    if (!quoted && nd > 0 && nd <= 15 && strspn(digits, "0123456789") == nd)
      put(w, o, key, cJSON_CreateNumber((double)strtoll(val.data, NULL, 10)));
    else
      put(w, o, key, cJSON_CreateString(val.data));
    while (*p == ' ') p++;
  }
  hlo_buf_release(&val);
  return o;
}

static cJSON *hex_json(const void *data, size_t n) {
  static const char digits[] = "0123456789abcdef";
  size_t len;
  if (hlo_mul_overflow(n, 2, &len) || hlo_add_overflow(len, 1, &len)) return NULL;
  char *s = malloc(len);
  if (!s) return NULL;
  const unsigned char *b = data;
  for (size_t i = 0; i < n; i++) {
    s[2 * i] = digits[b[i] >> 4];
    s[2 * i + 1] = digits[b[i] & 15];
  }
  s[2 * n] = 0;
  cJSON *r = cJSON_CreateString(s);
  free(s);
  return r;
}

static cJSON *literal_json(jw *w, const hlo_literal *l, bool top) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  put(w, o, "shape", shape_json(w, &l->shape));
  if (l->elided) put(w, o, "elided", cJSON_CreateTrue());
  put(w, o, "nelems", hlo_json_int(l->nelems));
  if (l->shape.type == HLO_TUPLE || l->ntuple) {
    cJSON *t = put(w, o, "tuple", cJSON_CreateArray());
    for (int i = 0; t && i < l->ntuple; i++) put(w, t, NULL, literal_json(w, &l->tuple[i], false));
  } else if (l->data) {
    size_t n;
    if (l->nelems < 0 || hlo_mul_overflow((size_t)l->nelems, (size_t)hlo_type_bytes(l->shape.type), &n))
      w->oom = true;
    else
      put(w, o, "data", hex_json(l->data, n));
  }
  if (top) { /* derived: the literal as the printer writes it */
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    if (hlo_print_literal(&b, l, NULL) == HLO_OK && !b.failed) {
      hlo_buf_putc(&b, 0);
      if (!b.failed) put(w, o, "text", cJSON_CreateString(b.data));
    }
    hlo_buf_release(&b);
  }
  return o;
}

static cJSON *names_json(jw *w, hlo_instruction *const *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < n; i++) put(w, a, NULL, v[i] ? cJSON_CreateString(v[i]->name) : cJSON_CreateNull());
  return a;
}

static cJSON *instr_json(jw *w, const hlo_instruction *in) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  put(w, o, "name", cJSON_CreateString(in->name));
  put(w, o, "opcode", cJSON_CreateString(hlo_opcode_name(in->op)));
  put(w, o, "shape", shape_json(w, &in->shape));
  if (in->shape_omitted) put(w, o, "shape_omitted", cJSON_CreateTrue());
  put(w, o, "operands", names_json(w, in->operands, in->noperands));
  if (in->ncontrol) put(w, o, "control_predecessors", names_json(w, in->control_preds, in->ncontrol));
  if (in->op == HLO_OP_PARAMETER) put(w, o, "parameter_number", hlo_json_int(in->param_number));
  if (in->literal) put(w, o, "literal", literal_json(w, in->literal, true));
  if (in->custom_text) put(w, o, "custom_text", cJSON_CreateString(in->custom_text));
  put(w, o, "attrs", attrs_json(w, in->attrs, in->nattrs));
  /* derived */
  put(w, o, "users", names_json(w, in->users, in->nusers));
  cJSON *called = put(w, o, "called_computations", cJSON_CreateArray());
  for (int i = 0; called && i < in->ncalled; i++) put(w, called, NULL, comp_name(in->called[i]));
  const hlo_attr *md = hlo_instr_attr(in, HLO_A_METADATA);
  if (md && md->kind == HLO_AK_RAW) put(w, o, "metadata", metadata_json(w, md->u.s));
  return o;
}

static cJSON *comp_json(jw *w, const hlo_computation *c) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  put(w, o, "name", cJSON_CreateString(c->name));
  put(w, o, "is_entry", cJSON_CreateBool(c->is_entry));
  put(w, o, "is_fused", cJSON_CreateBool(c->is_fused));
  put(w, o, "has_signature", cJSON_CreateBool(c->has_signature));
  put(w, o, "root", c->root ? cJSON_CreateString(c->root->name) : cJSON_CreateNull());
  put(w, o, "root_explicit", cJSON_CreateBool(c->root_explicit));
  if (c->nattrs) put(w, o, "attrs", attrs_json(w, c->attrs, c->nattrs));
  cJSON *v = put(w, o, "instructions", cJSON_CreateArray());
  for (int i = 0; v && i < c->ninstrs; i++) put(w, v, NULL, instr_json(w, c->instrs[i]));
  return o;
}

static const char *const LOC_KEYS[] = {"file_name_id", "function_name_id", "line", "end_line", "column", "end_column"};

static cJSON *string_list_json(jw *w, const char *const *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < n; i++) put(w, a, NULL, cJSON_CreateString(v[i]));
  return a;
}

static cJSON *stack_frames_json(jw *w, const hlo_stack_frames *f) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  put(w, o, "file_names", string_list_json(w, f->file_names, f->nfile_names));
  put(w, o, "function_names", string_list_json(w, f->function_names, f->nfunction_names));
  cJSON *v = put(w, o, "file_locations", cJSON_CreateArray());
  for (int i = 0; v && i < f->nlocations; i++) {
    const hlo_file_location *l = &f->locations[i];
    const int32_t vals[6] = {l->file_name_id, l->function_name_id, l->line, l->end_line, l->column, l->end_column};
    cJSON *e = put(w, v, NULL, cJSON_CreateObject());
    for (int k = 0; e && k < 6; k++) put(w, e, LOC_KEYS[k], cJSON_CreateNumber(vals[k]));
  }
  v = put(w, o, "frames", cJSON_CreateArray());
  for (int i = 0; v && i < f->nframes; i++) {
    cJSON *e = put(w, v, NULL, cJSON_CreateObject());
    if (!e) break;
    put(w, e, "file_location_id", cJSON_CreateNumber(f->frames[i].file_location_id));
    put(w, e, "parent_frame_id", cJSON_CreateNumber(f->frames[i].parent_frame_id));
  }
  return o;
}

static cJSON *module_json(jw *w, const hlo_module *m) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  put(w, o, "name", str_or_null(m->name));
  put(w, o, "has_header", cJSON_CreateBool(m->has_header));
  put(w, o, "entry", comp_name(m->entry));
  put(w, o, "attrs", attrs_json(w, m->attrs, m->nattrs));
  if (m->stack_frames) put(w, o, "stack_frames", stack_frames_json(w, m->stack_frames));
  cJSON *v = put(w, o, "computations", cJSON_CreateArray());
  for (int i = 0; v && i < m->ncomps; i++) put(w, v, NULL, comp_json(w, m->comps[i]));
  return o;
}

int hlo_json_write(hlo_buf *b, hlo_module *const *mods, int n, const hlo_json_options *opts) {
  jw w = {false};
  cJSON *doc = cJSON_CreateObject();
  if (!doc) return HLO_ERR;
  put(&w, doc, "format", cJSON_CreateString(HLO_JSON_FORMAT));
  put(&w, doc, "version", cJSON_CreateNumber(HLO_JSON_VERSION));
  cJSON *v = put(&w, doc, "modules", cJSON_CreateArray());
  for (int i = 0; v && i < n; i++) put(&w, v, NULL, module_json(&w, mods[i]));
  char *text = NULL;
  if (!w.oom) text = opts && opts->pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
  cJSON_Delete(doc);
  if (!text) return HLO_ERR;
  hlo_buf_puts(b, text);
  hlo_buf_putc(b, '\n');
  cJSON_free(text);
  return b->failed ? HLO_ERR : HLO_OK;
}
