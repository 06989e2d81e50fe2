/* json_graph.c - Model Explorer's graph JSON (the GraphCollection written
 * by its built-in adapters: graphs -> subgraphs -> nodes with namespace,
 * attrs, incomingEdges and outputsMetadata) for one computation and every
 * computation it calls, nested by namespace.  Fusions are drawn as their
 * fused instructions, as Model Explorer's own HLO adapter does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hlo/hlo_json.h"
#include "hlo/hlo_text.h"

typedef struct gw {
  const hlo_module *m;
  cJSON *nodes;
  bool *done;           /* per computation: nodes written */
  const hlo_instruction **fused_by; /* per computation: the fusion drawn as it */
  bool oom;
  hlo_buf tmp;
} gw;

static cJSON *add(gw *w, cJSON *parent, const char *key, cJSON *item) {
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

static void kv(gw *w, cJSON *attrs, const char *key, const char *value) {
  cJSON *o = add(w, attrs, NULL, cJSON_CreateObject());
  if (!o) return;
  add(w, o, "key", cJSON_CreateString(key));
  add(w, o, "value", cJSON_CreateString(value));
}

static const char *tmp_text(gw *w) {
  hlo_buf_putc(&w->tmp, 0);
  if (w->tmp.failed) {
    w->oom = true;
    return "";
  }
  return w->tmp.data;
}

static const char *node_id(gw *w, const hlo_instruction *in, hlo_buf *b) {
  b->len = 0;
  hlo_buf_printf(b, "%s/%s", in->parent->name, in->name);
  hlo_buf_putc(b, 0);
  if (b->failed) w->oom = true;
  return b->failed ? "" : b->data;
}

/* The instruction whose node carries in's value (a drawn fusion's root). */
static const hlo_instruction *source_of(gw *w, const hlo_instruction *in) {
  for (int guard = 0; guard < 64 && in->op == HLO_OP_FUSION && in->ncalled >= 1 &&
                      w->fused_by[in->called[0]->id] == in && in->called[0]->root;
       guard++)
    in = in->called[0]->root;
  return in;
}

static void edge(gw *w, cJSON *edges, const hlo_instruction *src, int input) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  cJSON *e = add(w, edges, NULL, cJSON_CreateObject());
  if (e) {
    add(w, e, "sourceNodeId", cJSON_CreateString(node_id(w, source_of(w, src), &b)));
    add(w, e, "sourceNodeOutputId", cJSON_CreateString("0"));
    char tmp[16];
    snprintf(tmp, sizeof tmp, "%d", input);
    add(w, e, "targetNodeInputId", cJSON_CreateString(tmp));
  }
  hlo_buf_release(&b);
}

static void write_comp(gw *w, const hlo_computation *c, const char *ns, int depth);

static void write_instr(gw *w, const hlo_instruction *in, const char *ns, int depth) {
  const hlo_computation *c = in->parent;
  if (in->op == HLO_OP_FUSION && in->ncalled >= 1 && !w->done[in->called[0]->id] && depth < 32) {
    hlo_buf sub;
    hlo_buf_init(&sub, NULL);
    hlo_buf_printf(&sub, "%s/%s", ns, in->name);
    hlo_buf_putc(&sub, 0);
    if (sub.failed) w->oom = true;
    else {
      w->fused_by[in->called[0]->id] = in;
      write_comp(w, in->called[0], sub.data, depth + 1);
    }
    hlo_buf_release(&sub);
    return;
  }
  hlo_buf idb;
  hlo_buf_init(&idb, NULL);
  cJSON *n = add(w, w->nodes, NULL, cJSON_CreateObject());
  if (!n) return;
  add(w, n, "id", cJSON_CreateString(node_id(w, in, &idb)));
  hlo_buf_release(&idb);
  add(w, n, "label", cJSON_CreateString(in->name));
  add(w, n, "namespace", cJSON_CreateString(ns));
  add(w, n, "subgraphIds", cJSON_CreateArray());
  cJSON *attrs = add(w, n, "attrs", cJSON_CreateArray());
  if (attrs) {
    kv(w, attrs, "opcode", hlo_opcode_name(in->op));
    w->tmp.len = 0;
    hlo_print_shape(&w->tmp, &in->shape, true);
    kv(w, attrs, "shape_with_layout", tmp_text(w));
    if (in->op == HLO_OP_PARAMETER) {
      char tmp[32];
      snprintf(tmp, sizeof tmp, "%lld", (long long)in->param_number);
      kv(w, attrs, "parameter_number", tmp);
    }
    if (in->literal) {
      w->tmp.len = 0;
      hlo_print_literal(&w->tmp, in->literal, NULL);
      if (w->tmp.len > 1000) w->tmp.len = 1000;
      kv(w, attrs, "literal", tmp_text(w));
    }
    for (int i = 0; i < in->nattrs; i++) {
      w->tmp.len = 0;
      hlo_print_attr_value(&w->tmp, &in->attrs[i], NULL);
      kv(w, attrs, in->attrs[i].name ? in->attrs[i].name : hlo_attr_name(in->attrs[i].key), tmp_text(w));
    }
  }
  cJSON *edges = add(w, n, "incomingEdges", cJSON_CreateArray());
  if (edges) {
    if (in->op == HLO_OP_PARAMETER && c->is_fused && w->fused_by[c->id]) {
      const hlo_instruction *f = w->fused_by[c->id];
      if (in->param_number >= 0 && in->param_number < f->noperands && f->operands[in->param_number])
        edge(w, edges, f->operands[in->param_number], (int)in->param_number);
    }
    for (int j = 0; j < in->noperands; j++)
      if (in->operands[j]) edge(w, edges, in->operands[j], j);
    if (in->op != HLO_OP_FUSION && depth < 32) /* roots of called bodies feed the caller */
      for (int k = 0; k < in->ncalled; k++)
        if (w->done[in->called[k]->id] && in->called[k]->root &&
            w->fused_by[in->called[k]->id] == NULL && in->called[k] != c)
          edge(w, edges, in->called[k]->root, in->noperands + k);
  }
  cJSON *outs = add(w, n, "outputsMetadata", cJSON_CreateArray());
  cJSON *o = outs ? add(w, outs, NULL, cJSON_CreateObject()) : NULL;
  if (o) {
    add(w, o, "id", cJSON_CreateString("0"));
    cJSON *oa = add(w, o, "attrs", cJSON_CreateArray());
    w->tmp.len = 0;
    hlo_print_shape(&w->tmp, &in->shape, false);
    if (oa) kv(w, oa, "tensor_shape", tmp_text(w));
  }
  add(w, n, "inputsMetadata", cJSON_CreateArray());
}

static void write_comp(gw *w, const hlo_computation *c, const char *ns, int depth) {
  w->done[c->id] = true;
  /* called bodies first so their nodes exist before the caller's edges */
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (in->op == HLO_OP_FUSION || depth >= 32) continue;
    for (int k = 0; k < in->ncalled; k++) {
      const hlo_computation *b = in->called[k];
      if (w->done[b->id]) continue;
      hlo_buf sub;
      hlo_buf_init(&sub, NULL);
      hlo_buf_printf(&sub, "%s/%s", ns, b->name);
      hlo_buf_putc(&sub, 0);
      if (sub.failed) w->oom = true;
      else write_comp(w, b, sub.data, depth + 1);
      hlo_buf_release(&sub);
    }
  }
  for (int i = 0; i < c->ninstrs; i++) write_instr(w, c->instrs[i], ns, depth);
}

int hlo_json_graph_write(hlo_buf *b, const hlo_module *m, const hlo_json_graph_options *opts,
                         hlo_diags *d) {
  const hlo_computation *c = m->entry ? m->entry : m->ncomps ? m->comps[m->ncomps - 1] : NULL;
  if (opts && opts->computation) {
    c = hlo_module_find_computation(m, opts->computation);
    if (!c) return hlo_errorf(d, NULL, 0, "no computation named '%s'", opts->computation);
  }
  if (!c) return hlo_errorf(d, NULL, 0, "the module has no computations");
  gw w = {m, NULL, NULL, NULL, false, {0}};
  hlo_buf_init(&w.tmp, NULL);
  w.done = calloc((size_t)m->ncomps + 1, sizeof *w.done);
  w.fused_by = calloc((size_t)m->ncomps + 1, sizeof *w.fused_by);
  cJSON *coll = cJSON_CreateArray();
  cJSON *graph = coll ? add(&w, coll, NULL, cJSON_CreateObject()) : NULL;
  int rc = HLO_ERR;
  if (!w.done || !w.fused_by || !graph) goto out;
  add(&w, graph, "label", cJSON_CreateString(m->name ? m->name : c->name));
  cJSON *subs = add(&w, graph, "subgraphs", cJSON_CreateArray());
  cJSON *sg = subs ? add(&w, subs, NULL, cJSON_CreateObject()) : NULL;
  if (!sg) goto out;
  add(&w, sg, "id", cJSON_CreateString(c->name));
  w.nodes = add(&w, sg, "nodes", cJSON_CreateArray());
  if (!w.nodes) goto out;
  write_comp(&w, c, c->name, 0);
  if (w.oom) goto out;
  char *text = opts && opts->pretty ? cJSON_Print(coll) : cJSON_PrintUnformatted(coll);
  if (!text) goto out;
  hlo_buf_puts(b, text);
  hlo_buf_putc(b, '\n');
  cJSON_free(text);
  rc = b->failed ? HLO_ERR : HLO_OK;
out:
  if (rc) hlo_errorf(d, NULL, 0, "out of memory while writing graph JSON");
  cJSON_Delete(coll);
  free(w.done);
  free(w.fused_by);
  hlo_buf_release(&w.tmp);
  return rc;
}
