/* hlo_dot.h - HLO graphs for people: which instructions to draw (a view of
 * one computation, optionally a neighbourhood, with clusters for fusions and
 * loop/branch bodies), the colour of each op class, Graphviz graphs built
 * with libcgraph and rendered with libgvc, and a self-contained HTML viewer.
 *
 * The view (hlo_dot_graph) is plain data so it can be tested without
 * Graphviz; hlo_dot_build turns it into a cgraph graph. */
#ifndef HLO_DOT_H
#define HLO_DOT_H

#include "hlo/hlo_ir.h"

typedef struct Agraph_s Agraph_t; /* Graphviz cgraph graph */
typedef struct GVC_s GVC_t;       /* Graphviz rendering context */

/* Op classes: one colour each.  hlo_dot_op_class is the one place that
 * maps opcodes to classes (an exhaustive switch). */
typedef enum hlo_dot_class {
  HLO_DOT_PARAMETER, HLO_DOT_CONSTANT, HLO_DOT_ELEMENTWISE, HLO_DOT_LAYOUT,
  HLO_DOT_REDUCTION, HLO_DOT_CONTRACTION, HLO_DOT_CONTROL, HLO_DOT_FUSION,
  HLO_DOT_COLLECTIVE, HLO_DOT_SIDE_EFFECT, HLO_DOT_TUPLE, HLO_DOT_CUSTOM,
  HLO_DOT_CLASS_COUNT
} hlo_dot_class;

HLO_API hlo_dot_class hlo_dot_op_class(hlo_opcode op);
HLO_API const char *hlo_dot_class_name(hlo_dot_class c);  /* "elementwise" */
HLO_API const char *hlo_dot_class_color(hlo_dot_class c); /* fill colour, "#rrggbb" */

typedef struct hlo_dot_options {
  const char *computation; /* computation to draw; NULL = entry (or the one
                              holding `around`) */
  const char *around;      /* draw only the neighbourhood of this instruction */
  int radius;              /* neighbourhood radius in edges (with `around`) */
  int max_nodes;           /* cut the view after this many instructions of
                              the drawn computation; 0 = no limit */
  bool expand_fusions;     /* fusions as clusters of their fused instructions */
  bool expand_bodies;      /* while/conditional/call bodies as clusters */
} hlo_dot_options;

typedef enum hlo_dot_edge_kind {
  HLO_DOT_EDGE_DATA,    /* operand -> user */
  HLO_DOT_EDGE_CONTROL, /* control predecessor -> instruction */
  HLO_DOT_EDGE_CALL,    /* caller -> parameter of a body, body root -> caller */
  HLO_DOT_EDGE_CUT      /* to or from a marker node */
} hlo_dot_edge_kind;

typedef struct hlo_dot_node {
  const hlo_instruction *in; /* NULL for a marker of omitted neighbours */
  int cluster;               /* index into clusters, -1 = top level */
  int omitted;               /* marker: number of instructions not drawn */
  bool omitted_users;        /* marker: they are users (else operands) */
  const char *id;            /* "n<index>": Graphviz node name and SVG id */
} hlo_dot_node;

typedef struct hlo_dot_edge {
  int from, to;    /* node indices */
  int operand;     /* operand number to show as the edge label, -1 = none */
  hlo_dot_edge_kind kind;
} hlo_dot_edge;

typedef struct hlo_dot_cluster {
  const hlo_instruction *caller; /* the fusion/while/conditional/call */
  const hlo_computation *comp;   /* the computation drawn inside */
  int parent;                    /* enclosing cluster, -1 = top level */
} hlo_dot_cluster;

/* A view: what hlo_dot_build draws.  All memory in `arena`. */
typedef struct hlo_dot_graph {
  hlo_arena arena;
  const hlo_module *module;
  const hlo_computation *comp;  /* the computation drawn */
  const hlo_instruction *focus; /* `around` instruction or NULL */
  int nnodes, nedges, nclusters;
  hlo_dot_node *nodes;
  hlo_dot_edge *edges;
  hlo_dot_cluster *clusters;
  int nfolded;   /* constants and scalar broadcasts shown in users' labels */
  int ncut;      /* instructions of comp left out (radius or max_nodes) */
  int **node_of; /* [comp id][instr id] -> node index or -1 (internal) */
} hlo_dot_graph;

/* Select the view of m described by opts (NULL = whole entry computation).
 * Returns NULL with a diagnostic in d for an unknown computation or
 * instruction name, or when memory runs out.  m must stay alive while the
 * view is used.  Free with hlo_dot_graph_free. */
HLO_API hlo_dot_graph *hlo_dot_select(const hlo_module *m, const hlo_dot_options *opts,
                                      const hlo_allocator *alloc, hlo_diags *d);
HLO_API void hlo_dot_graph_free(hlo_dot_graph *g);

/* Is instruction `in` folded into its users' labels (a constant, or a
 * broadcast of a scalar constant, that is not the root)? */
HLO_API bool hlo_dot_is_folded(const hlo_instruction *in);

/* Append node i's label text (lines separated by '\n'): name, opcode with
 * key attributes, shape, folded operands, called reducers. */
HLO_API int hlo_dot_node_label(hlo_buf *b, const hlo_dot_graph *g, int i);

/* Build the Graphviz graph of a view (free with agclose).  NULL on
 * failure, recorded in d. */
HLO_API Agraph_t *hlo_dot_build(const hlo_dot_graph *g, hlo_diags *d);

/* Lay out (with the dot engine) and render graph to format ("dot" for the
 * input graph without layout, "svg", "png", ...), appending the output to
 * out.  HLO_ERR with a diagnostic if Graphviz fails or lacks the format.
 * Graphviz reports its own warnings through its error callback (agseterrf),
 * which only the program may set. */
HLO_API int hlo_dot_render(Agraph_t *graph, const char *format, hlo_buf *out, hlo_diags *d);
/* The same with a context the caller made (gvContext) and frees
 * (gvFreeContext).  A process that renders several graphs must render them
 * all with one context: Graphviz's text-size cache keeps pointers into a
 * context's font table after gvFreeContext (a use after free that
 * AddressSanitizer shows on the second render). */
HLO_API int hlo_dot_render_gvc(GVC_t *gvc, Agraph_t *graph, const char *format, hlo_buf *out, hlo_diags *d);

/* Append a self-contained HTML page: the SVG of the view inline, pan/zoom,
 * search by name, and on click the instruction's full text with its
 * operands and users highlighted.  The page also reads a URL fragment
 * "#search=NAME&click=NAME" and writes what it did into
 * <pre id="hlo-test-result"> (used by the browser test). */
HLO_API int hlo_dot_html(hlo_buf *out, const hlo_dot_graph *g, const char *svg, size_t svg_len,
                         const char *title);

#endif
