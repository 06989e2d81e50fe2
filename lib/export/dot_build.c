/* dot_build.c - a view (hlo_dot_graph) as a Graphviz graph built with
 * libcgraph: styled nodes, clusters for expanded computations, labelled
 * edges; and rendering it in-process with libgvc. */
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_dot.h"

#define BIG_GRAPH 400 /* nodes; larger graphs get a cheaper layout */

/* Graphviz label text: '\n' -> "\n" escape, backslashes doubled. */
static void escape_label(hlo_buf *out, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\n') hlo_buf_puts(out, "\\n");
    else if (s[i] == '\\') hlo_buf_puts(out, "\\\\");
    else hlo_buf_putc(out, s[i]);
  }
}

static Agsym_t *decl(Agraph_t *g, int kind, const char *name, const char *dflt) {
  return agattr(g, kind, (char *)name, (char *)dflt);
}

Agraph_t *hlo_dot_build(const hlo_dot_graph *v, hlo_diags *d) {
  hlo_buf name, lab, esc;
  hlo_buf_init(&name, NULL);
  hlo_buf_init(&lab, NULL);
  hlo_buf_init(&esc, NULL);
  hlo_buf_printf(&name, "%s", v->comp->name);
  hlo_buf_putc(&name, 0);
  Agraph_t *g = name.failed ? NULL : agopen(name.data, Agdirected, NULL);
  if (!g) goto fail;
  decl(g, AGRAPH, "rankdir", "TB");
  decl(g, AGRAPH, "fontname", "Helvetica");
  decl(g, AGRAPH, "fontsize", "12");
  decl(g, AGRAPH, "labelloc", "t");
  decl(g, AGRAPH, "style", "rounded,filled");
  decl(g, AGRAPH, "fillcolor", "#fafafa");
  decl(g, AGRAPH, "color", "#888888");
  decl(g, AGRAPH, "label", "");
  Agsym_t *n_label = decl(g, AGNODE, "label", "\\N");
  Agsym_t *n_fill = decl(g, AGNODE, "fillcolor", "#ffffff");
  Agsym_t *n_shape = decl(g, AGNODE, "shape", "box");
  Agsym_t *n_style = decl(g, AGNODE, "style", "rounded,filled");
  Agsym_t *n_id = decl(g, AGNODE, "id", "");
  Agsym_t *n_pen = decl(g, AGNODE, "penwidth", "1");
  Agsym_t *n_color = decl(g, AGNODE, "color", "#444444");
  Agsym_t *n_font = decl(g, AGNODE, "fontcolor", "#000000");
  Agsym_t *n_class = decl(g, AGNODE, "class", "");
  decl(g, AGNODE, "fontname", "Helvetica");
  decl(g, AGNODE, "fontsize", "10");
  Agsym_t *e_label = decl(g, AGEDGE, "label", "");
  Agsym_t *e_style = decl(g, AGEDGE, "style", "solid");
  Agsym_t *e_color = decl(g, AGEDGE, "color", "#555555");
  Agsym_t *e_id = decl(g, AGEDGE, "id", "");
  decl(g, AGEDGE, "fontname", "Helvetica");
  decl(g, AGEDGE, "fontsize", "9");
  decl(g, AGEDGE, "arrowsize", "0.7");
  if (!n_label || !e_label) goto fail;
  if (v->nnodes > BIG_GRAPH) { /* bound the layout work: fewer network-simplex and
                                  crossing-minimisation passes, straight edges */
    decl(g, AGRAPH, "nslimit", "0.02");
    decl(g, AGRAPH, "nslimit1", "0.02");
    decl(g, AGRAPH, "mclimit", "0.1");
    decl(g, AGRAPH, "remincross", "false");
    decl(g, AGRAPH, "splines", "line");
  }
  if (v->comp) {
    lab.len = 0;
    hlo_buf_printf(&lab, "computation %s%s", v->comp->name, v->focus ? " (neighbourhood)" : "");
    hlo_buf_putc(&lab, 0);
    if (!lab.failed) agsafeset(g, "label", lab.data, "");
  }

  /* clusters, parents before children (expand() appends in that order) */
  Agraph_t **sub = v->nclusters ? calloc((size_t)v->nclusters, sizeof *sub) : NULL;
  if (v->nclusters && !sub) goto fail;
  for (int i = 0; i < v->nclusters; i++) {
    const hlo_dot_cluster *c = &v->clusters[i];
    Agraph_t *parent = c->parent >= 0 ? sub[c->parent] : g;
    name.len = 0;
    hlo_buf_printf(&name, "cluster_%d", i);
    hlo_buf_putc(&name, 0);
    lab.len = 0;
    if (c->caller->op == HLO_OP_FUSION) {
      const char *kind = hlo_instr_word(c->caller, HLO_A_KIND);
      hlo_buf_printf(&lab, "%s: %s%s%s", c->caller->name, c->comp->name, kind ? " " : "", kind ? kind : "");
    } else {
      hlo_buf_printf(&lab, "%s %s: %s", hlo_opcode_name(c->caller->op), c->caller->name, c->comp->name);
    }
    hlo_buf_putc(&lab, 0);
    if (name.failed || lab.failed) {
      free(sub);
      goto fail;
    }
    sub[i] = agsubg(parent, name.data, 1);
    if (!sub[i]) {
      free(sub);
      goto fail;
    }
    agsafeset(sub[i], "label", lab.data, "");
    agsafeset(sub[i], "fillcolor",
              c->caller->op == HLO_OP_FUSION ? "#eef7fa" : "#f6f0fb", "");
  }

  Agnode_t **nodes = calloc((size_t)v->nnodes + 1, sizeof *nodes);
  if (!nodes) {
    free(sub);
    goto fail;
  }
  for (int i = 0; i < v->nnodes; i++) {
    const hlo_dot_node *nd = &v->nodes[i];
    Agraph_t *home = nd->cluster >= 0 ? sub[nd->cluster] : g;
    Agnode_t *n = agnode(home, (char *)nd->id, 1);
    if (!n) {
      free(sub);
      free(nodes);
      goto fail;
    }
    nodes[i] = n;
    lab.len = 0;
    esc.len = 0;
    hlo_dot_node_label(&lab, v, i);
    escape_label(&esc, lab.data ? lab.data : "", lab.len);
    hlo_buf_putc(&esc, 0);
    if (esc.failed) {
      free(sub);
      free(nodes);
      goto fail;
    }
    agxset(n, n_label, esc.data);
    agxset(n, n_id, (char *)nd->id);
    if (!nd->in) {
      agxset(n, n_shape, "note");
      agxset(n, n_style, "dashed");
      agxset(n, n_font, "#666666");
      agxset(n, n_color, "#999999");
      agxset(n, n_class, "hlo-cut");
      continue;
    }
    hlo_dot_class cls = hlo_dot_op_class(nd->in->op);
    agxset(n, n_fill, (char *)hlo_dot_class_color(cls));
    name.len = 0;
    hlo_buf_printf(&name, "hlo-node hlo-%s", hlo_dot_class_name(cls));
    hlo_buf_putc(&name, 0);
    if (!name.failed) agxset(n, n_class, name.data);
    if (nd->in->op == HLO_OP_FUSION) agxset(n, n_shape, "box3d");
    if (nd->in->parent && nd->in->parent->root == nd->in) agxset(n, n_pen, "2.5");
    if (nd->in == v->focus) {
      agxset(n, n_pen, "3");
      agxset(n, n_color, "#d00000");
    }
  }
  /* edges grouped by tail node, in node order (as a DOT file lists them):
   * dot's layout is much faster on large graphs with this order */
  int *order = v->nedges ? malloc((size_t)v->nedges * sizeof *order) : NULL;
  int *start = calloc((size_t)v->nnodes + 2, sizeof *start);
  if ((v->nedges && !order) || !start) {
    free(order);
    free(start);
    free(sub);
    free(nodes);
    goto fail;
  }
  for (int i = 0; i < v->nedges; i++) start[v->edges[i].from + 1]++;
  for (int i = 0; i < v->nnodes; i++) start[i + 1] += start[i];
  for (int i = 0; i < v->nedges; i++) order[start[v->edges[i].from]++] = i;
  free(start);
  for (int k = 0; k < v->nedges; k++) {
    int i = order[k];
    const hlo_dot_edge *e = &v->edges[i];
    name.len = 0;
    hlo_buf_printf(&name, "e%d", i);
    hlo_buf_putc(&name, 0);
    Agedge_t *ed = name.failed ? NULL : agedge(g, nodes[e->from], nodes[e->to], name.data, 1);
    if (!ed) {
      free(order);
      free(sub);
      free(nodes);
      goto fail;
    }
    agxset(ed, e_id, name.data);
    if (e->operand >= 0) {
      char tmp[16];
      snprintf(tmp, sizeof tmp, "%d", e->operand);
      agxset(ed, e_label, tmp);
    }
    switch (e->kind) {
    case HLO_DOT_EDGE_DATA: break;
    case HLO_DOT_EDGE_CONTROL:
      agxset(ed, e_style, "dotted");
      agxset(ed, e_color, "#c00000");
      break;
    case HLO_DOT_EDGE_CALL:
      agxset(ed, e_style, "dashed");
      agxset(ed, e_color, "#7b4fa0");
      break;
    case HLO_DOT_EDGE_CUT:
      agxset(ed, e_style, "dashed");
      agxset(ed, e_color, "#999999");
      break;
    }
  }
  free(order);
  free(sub);
  free(nodes);
  hlo_buf_release(&name);
  hlo_buf_release(&lab);
  hlo_buf_release(&esc);
  return g;
fail:
  if (g) agclose(g);
  hlo_buf_release(&name);
  hlo_buf_release(&lab);
  hlo_buf_release(&esc);
  hlo_errorf(d, NULL, 0, "cannot build the graph (out of memory)");
  return NULL;
}

/* The graph as DOT text (agwrite into memory), appended to out. */
static int write_dot(Agraph_t *graph, hlo_buf *out, hlo_diags *d) {
  char *mem = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&mem, &len);
  if (!f) return hlo_errorf(d, NULL, 0, "out of memory");
  int wrc = agwrite(graph, f);
  if (fclose(f) != 0 || wrc != 0 || !mem) {
    free(mem);
    return hlo_errorf(d, NULL, 0, "Graphviz could not write the graph");
  }
  hlo_buf_put(out, mem, len);
  free(mem);
  return out->failed ? hlo_errorf(d, NULL, 0, "out of memory") : HLO_OK;
}

int hlo_dot_render(Agraph_t *graph, const char *format, hlo_buf *out, hlo_diags *d) {
  if (strcmp(format, "dot") == 0) return write_dot(graph, out, d); /* no layout */
  GVC_t *gvc = gvContext();
  if (!gvc) return hlo_errorf(d, NULL, 0, "cannot start Graphviz");
  int rc = hlo_dot_render_gvc(gvc, graph, format, out, d);
  gvFreeContext(gvc);
  return rc;
}

int hlo_dot_render_gvc(GVC_t *gvc, Agraph_t *graph, const char *format, hlo_buf *out, hlo_diags *d) {
  if (strcmp(format, "dot") == 0) return write_dot(graph, out, d); /* no layout */
  /* Lay out the graph as read back from its DOT text, exactly what `dot`
   * would be given.  Measured on the 2.5k-node mobilenet_v2 entry, laying
   * out the graph as built directly took over 5x longer (the layout
   * depends on internal orders the DOT text normalises). */
  hlo_buf text;
  hlo_buf_init(&text, NULL);
  if (write_dot(graph, &text, d)) {
    hlo_buf_release(&text);
    return HLO_ERR;
  }
  hlo_buf_putc(&text, 0);
  Agraph_t *g = text.failed ? NULL : agmemread(text.data);
  hlo_buf_release(&text);
  if (!g) return hlo_errorf(d, NULL, 0, "Graphviz could not re-read the graph");
  int rc = HLO_OK;
  bool laid = false;
  if (gvLayout(gvc, g, "dot") != 0) {
    rc = hlo_errorf(d, NULL, 0, "Graphviz could not lay out the graph");
    goto out;
  }
  laid = true;
  char *data = NULL;
  unsigned int len = 0;
  if (gvRenderData(gvc, g, format, &data, &len) != 0 || !data) {
    rc = hlo_errorf(d, NULL, 0, "Graphviz cannot render format '%s'", format);
    if (data) gvFreeRenderData(data);
    goto out;
  }
  hlo_buf_put(out, data, len);
  gvFreeRenderData(data);
  if (out->failed) rc = hlo_errorf(d, NULL, 0, "out of memory");
out:
  if (laid) gvFreeLayout(gvc, g);
  agclose(g);
  return rc;
}
