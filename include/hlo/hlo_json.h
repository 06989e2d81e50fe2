/* hlo_json.h - HLO modules as JSON: a lossless structured form that reads
 * back into the IR (schema in docs/json.md), and Model Explorer's graph
 * JSON for viewing.
 *
 * JSON trees are built with cJSON, whose allocations use the C library's
 * malloc (cJSON's hooks are process-global, so the library leaves them
 * alone); everything placed in an hlo_module uses the module's arena. */
#ifndef HLO_JSON_H
#define HLO_JSON_H

#include "hlo/hlo_ir.h"

#define HLO_JSON_FORMAT "hlo-json"
#define HLO_JSON_VERSION 1

typedef struct hlo_json_options {
  bool pretty; /* indented output (default: one line) */
} hlo_json_options;

/* Append one JSON document {"format":"hlo-json","version":1,"modules":[...]}
 * describing the n modules to b (followed by a newline).  Besides what
 * reading needs it writes derived fields that the reader ignores: users,
 * called computations, parsed metadata and the literal text.  opts may be NULL.
 * Returns HLO_ERR if memory ran out (b->failed is then set or the tree could
 * not be built). */
HLO_API int hlo_json_write(hlo_buf *b, hlo_module *const *mods, int n, const hlo_json_options *opts);

/* Read a document written by hlo_json_write.  On success stores a malloc'd
 * (through alloc) array of *nmods modules in *mods and returns HLO_OK; the
 * caller frees each module with hlo_module_free and the array with
 * hlo_free(alloc, ...).  On failure returns HLO_ERR with every problem
 * recorded in d (positions point into src where one can be found) and
 * nothing to free.  The modules are linked (hlo_module_link). */
HLO_API int hlo_json_read_modules(const hlo_src *src, const hlo_allocator *alloc, hlo_diags *d,
                                  hlo_module ***mods, int *nmods);

/* Convenience for a document that holds exactly one module: returns it
 * (free with hlo_module_free) or NULL with diagnostics in d. */
HLO_API hlo_module *hlo_json_read(const hlo_src *src, const hlo_allocator *alloc, hlo_diags *d);

typedef struct hlo_json_graph_options {
  const char *computation; /* graph of this computation; NULL = entry */
  bool pretty;
} hlo_json_graph_options;

/* Append Model Explorer's graph JSON (a GraphCollection: an array of graphs,
 * each {"label","subgraphs":[{"id","nodes":[...]}]}) for one module to b:
 * one node per instruction with "namespace" set to the computation path
 * (called computations nested below their caller), incomingEdges from the
 * operands, attrs and outputsMetadata with shapes.  HLO_ERR on allocation
 * failure or an unknown computation (recorded in d). */
HLO_API int hlo_json_graph_write(hlo_buf *b, const hlo_module *m, const hlo_json_graph_options *opts,
                                 hlo_diags *d);

#endif
