/* hlo_pbtxt.h - XLA's text-proto input files: the literals file of
 * run_hlo_module --input_literals_file (RunHloModuleLiterals, or one
 * RunHloModuleIterationLiterals) and HLO snapshots (HloSnapshot), read by a
 * hand-written reader of the protobuf text format subset they use.
 * Literals become dense row-major arrays (hlo_npy.h's hlo_array). */
#ifndef HLO_PBTXT_PUBLIC_H
#define HLO_PBTXT_PUBLIC_H

#include "hlo/hlo_core.h"
#include "hlo/hlo_npy.h"

/* One LiteralProto: an array, or a tuple of literals. */
typedef struct hlo_pb_literal hlo_pb_literal;
struct hlo_pb_literal {
  size_t off;            /* where the literal's message starts in the file */
  bool is_tuple;
  hlo_array arr;         /* arrays: the elements in row-major order */
  int ntuple;            /* tuples */
  hlo_pb_literal *tuple;
};

/* The literals of one run: arguments in parameter order and the recorded
 * result (NULL when the file has none). */
typedef struct hlo_pb_run {
  int nargs;
  hlo_pb_literal *args;
  hlo_pb_literal *result;
} hlo_pb_run;

/* A literals file: its iterations (one when the file is a bare
 * RunHloModuleIterationLiterals). */
typedef struct hlo_pb_literals {
  int n;
  hlo_pb_run *iters;
} hlo_pb_literals;

/* An HloSnapshot: the arguments and result of one execution, and what the
 * file says of the module.  XLA writes the module as an HloModuleProto
 * (hlo { hlo_module { ... } }); hlo_pb_snapshot_module_text turns it into
 * HLO text. */
typedef struct hlo_pb_snapshot {
  hlo_pb_run run;
  const char *module_name; /* NULL when absent */
  bool has_module_proto;   /* hlo { hlo_module { ... } } present */
  size_t module_off;       /* where hlo_module starts */
  const void *module_proto; /* the hlo_module message, for hlo_pb_snapshot_module_text */
} hlo_pb_snapshot;

/* Read src as a literals file into out (allocated in a).  Shapes give
 * element type, dimensions and layout (data in the layout's order is put
 * in row-major order); every element type's field is read (preds, s32s,
 * f32s, ..., and the byte fields s4s, u8s, f16s, bf16s, f8e4m3fns, ...,
 * little-endian).  Errors name file:line:col of the offending field. */
HLO_API int hlo_pb_read_literals(hlo_arena *a, const hlo_src *src, hlo_pb_literals *out, hlo_diags *d);
/* Read src as an HloSnapshot. */
HLO_API int hlo_pb_read_snapshot(hlo_arena *a, const hlo_src *src, hlo_pb_snapshot *out, hlo_diags *d);

/* The HloModuleProto of snap (read from src) as HLO text appended to out:
 * computations callees first, the entry last, instructions with their
 * operands first; ids become names.  A field or value the conversion does
 * not handle is an error naming its proto path (hlo.hlo_module.
 * computations[2].instructions[5].window: ...), never left out. */
HLO_API int hlo_pb_snapshot_module_text(hlo_arena *a, const hlo_src *src, const hlo_pb_snapshot *snap, hlo_buf *out,
                                        hlo_diags *d);

#endif
