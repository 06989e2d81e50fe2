/* diff_html.c - the side-by-side HTML report: each module's entry
 * computation drawn by the hlo-dot viewer (fusions expanded), nodes
 * recoloured by their diff kind, the two viewer pages placed in one page
 * (iframes with srcdoc) under a legend and the summary counts. */
#include <stdio.h>
#include <string.h>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "hlo/hlo_diff.h"
#include "hlo/hlo_dot.h"

static const char *const FILL[HLO_DIFF_KIND_COUNT] = {
    [HLO_DIFF_UNCHANGED] = NULL, [HLO_DIFF_CHANGED] = "#ffd27a", [HLO_DIFF_ADDED] = "#9be39b",
    [HLO_DIFF_REMOVED] = "#f4a0a0"};

static void escape(hlo_buf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    switch (s[i]) {
    case '&': hlo_buf_puts(b, "&amp;"); break;
    case '<': hlo_buf_puts(b, "&lt;"); break;
    case '>': hlo_buf_puts(b, "&gt;"); break;
    case '"': hlo_buf_puts(b, "&quot;"); break;
    default: hlo_buf_putc(b, s[i]);
    }
  }
}

/* The kind of in on side sd (0 = A), and whether it moved. */
static int kind_of(const hlo_diff *df, int sd, const hlo_instruction *in, bool *moved) {
  for (int i = 0; i < df->nentries; i++) {
    const hlo_diff_entry *e = &df->entries[i];
    if ((sd ? e->b : e->a) != in) continue;
    *moved = (e->what & HLO_DIFF_MOVED) != 0;
    return e->kind;
  }
  *moved = false;
  return HLO_DIFF_UNCHANGED;
}

/* The Graphviz subgraph of cluster i (clusters nest as hlo_dot_build made them). */
static Agraph_t *cluster_graph(Agraph_t *root, const hlo_dot_graph *g, int i, int depth) {
  if (i < 0) return root;
  if (depth > 64) return NULL;
  Agraph_t *parent = cluster_graph(root, g, g->clusters[i].parent, depth + 1);
  char name[32];
  snprintf(name, sizeof name, "cluster_%d", i);
  return parent ? agsubg(parent, name, 0) : NULL;
}

/* One viewer page for side sd into page. */
static int side_page(GVC_t *gvc, hlo_buf *page, const hlo_diff *df, int sd, const char *title, int max_nodes,
                     hlo_diags *d) {
  const hlo_module *m = sd ? df->b : df->a;
  hlo_dot_options o = {.expand_fusions = true, .max_nodes = max_nodes};
  hlo_dot_graph *g = hlo_dot_select(m, &o, df->arena.alloc, d);
  Agraph_t *graph = g ? hlo_dot_build(g, d) : NULL;
  int rc = HLO_ERR;
  if (!graph) goto done;
  for (int i = 0; i < g->nnodes; i++) {
    if (!g->nodes[i].in) continue;
    bool moved;
    int k = kind_of(df, sd, g->nodes[i].in, &moved);
    Agnode_t *n = agnode(graph, (char *)g->nodes[i].id, 0);
    if (!n) continue;
    if (FILL[k]) {
      agsafeset(n, "fillcolor", (char *)FILL[k], "");
      agsafeset(n, "penwidth", "3", "");
    }
    if (moved) agsafeset(n, "color", "#1f5fd0", "");
  }
  for (int i = 0; i < g->nclusters; i++) { /* an added or changed fusion is a cluster */
    bool moved;
    int k = kind_of(df, sd, g->clusters[i].caller, &moved);
    Agraph_t *sub = FILL[k] ? cluster_graph(graph, g, i, 0) : NULL;
    if (!sub) continue;
    agsafeset(sub, "fillcolor", (char *)FILL[k], "");
    agsafeset(sub, "penwidth", "3", "");
  }
  hlo_buf svg;
  hlo_buf_init(&svg, df->arena.alloc);
  rc = hlo_dot_render_gvc(gvc, graph, "svg", &svg, d);
  if (!rc) rc = hlo_dot_html(page, g, svg.data ? svg.data : "", svg.len, title);
  hlo_buf_release(&svg);
done:
  if (graph) agclose(graph);
  hlo_dot_graph_free(g);
  return rc;
}

int hlo_diff_html(hlo_buf *out, const hlo_diff *df, const char *name_a, const char *name_b, int max_nodes,
                  hlo_diags *d) {
  hlo_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>hlo-diff ");
  escape(out, name_a, strlen(name_a));
  hlo_buf_puts(out, " ");
  escape(out, name_b, strlen(name_b));
  hlo_buf_puts(out,
               "</title>\n<style>\nhtml,body{margin:0;height:100%;font:13px Helvetica,Arial,sans-serif}\n"
               "#head{height:30px;padding:4px 8px;border-bottom:1px solid #ccc;background:#f6f6f6}\n"
               ".key{display:inline-block;padding:0 6px;margin-right:6px;border:1px solid #444}\n"
               "#panes{position:absolute;top:39px;bottom:0;left:0;right:0;display:flex}\n"
               "#panes div{flex:1;display:flex;flex-direction:column;border-right:1px solid #ccc}\n"
               "#panes b{padding:2px 8px}\niframe{flex:1;border:0;width:100%}\n</style></head><body>\n<div id=\"head\">");
  hlo_buf_printf(out,
                 "<span class=\"key\" style=\"background:%s\">changed %lld</span>"
                 "<span class=\"key\" style=\"background:%s\">added %lld</span>"
                 "<span class=\"key\" style=\"background:%s\">removed %lld</span>"
                 "<span class=\"key\" style=\"border:3px solid #1f5fd0\">moved %lld</span>"
                 "<span>unchanged %lld, renamed %lld</span>",
                 FILL[HLO_DIFF_CHANGED], (long long)df->count[HLO_DIFF_CHANGED], FILL[HLO_DIFF_ADDED],
                 (long long)df->count[HLO_DIFF_ADDED], FILL[HLO_DIFF_REMOVED],
                 (long long)df->count[HLO_DIFF_REMOVED], (long long)df->moved,
                 (long long)df->count[HLO_DIFF_UNCHANGED], (long long)df->renamed);
  hlo_buf_puts(out, "</div>\n<div id=\"panes\">\n");
  GVC_t *gvc = gvContext(); /* one for both sides: see hlo_dot_render_gvc */
  if (!gvc) return hlo_errorf(d, NULL, 0, "cannot start Graphviz");
  for (int sd = 0; sd < 2; sd++) {
    const char *name = sd ? name_b : name_a;
    hlo_buf page;
    hlo_buf_init(&page, df->arena.alloc);
    int rc = side_page(gvc, &page, df, sd, name, max_nodes, d);
    if (!rc && page.failed) rc = HLO_ERR;
    if (!rc) {
      hlo_buf_printf(out, "<div><b>%s ", sd ? "+" : "-");
      escape(out, name, strlen(name));
      hlo_buf_printf(out, "</b><iframe id=\"%s\" srcdoc=\"", sd ? "after" : "before");
      escape(out, page.data, page.len);
      hlo_buf_puts(out, "\"></iframe></div>\n");
    }
    hlo_buf_release(&page);
    if (rc) {
      gvFreeContext(gvc);
      return HLO_ERR;
    }
  }
  gvFreeContext(gvc);
  hlo_buf_puts(out, "</div>\n</body></html>\n");
  return out->failed ? HLO_ERR : HLO_OK;
}
