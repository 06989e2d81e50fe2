/* ccall.h - custom calls in the interpreter: the table of built-in targets
 * (ccall_table.c), reading a custom call's backend_config JSON, and the
 * plan-time choosers of each family (cuBLAS gemms, cuDNN convolutions,
 * framework markers, Threefry, user definitions).  A chooser fills the
 * step's kernel and parameters or records an error naming the instruction. */
#ifndef HLO_EXEC_CCALL_H
#define HLO_EXEC_CCALL_H

#include <cjson/cJSON.h>

#include "exec/exec.h"

/* Choose the kernel of custom-call step s: a user definition of its target
 * (opts.ccalls) first, then the built-in table; an unknown target is an
 * error naming it, the known targets and the --custom-call flag. */
int hlo_ccall_prep(hlo_exec *e, plan_step *s);

/* The backend_config of in as JSON (either spelling: a quoted string or a
 * braced value), or NULL when it has none; with nested non-NULL, the object
 * under that key when present (XLA's newer wrapping), else the top level.
 * *root gets what to cJSON_Delete.  HLO_ERR with a diagnostic when the text
 * is not JSON. */
int hlo_ccall_config(hlo_exec *e, const hlo_instruction *in, const char *nested, cJSON **root,
                     const cJSON **cfg);
/* A number field (proto3 JSON writes 64-bit ints as strings), or dflt. */
double hlo_ccall_num(const cJSON *o, const char *key, double dflt);
/* An int list field into v (at most max); the count, -1 if malformed. */
int hlo_ccall_ints(const cJSON *o, const char *key, int64_t *v, int max);
/* An enum field: its string, or the name at its number in names, or dflt. */
const char *hlo_ccall_enum(const cJSON *o, const char *key, const char *const *names, int nnames,
                           const char *dflt);

/* A private step running `fake` (an instruction made for the plan, e.g. the
 * dot a gemm means) with the ordinary kernel table; its operands are the
 * values the caller passes to hlo_ccall_sub_run. */
plan_step *hlo_ccall_sub_step(hlo_exec *e, hlo_instruction *fake);
int hlo_ccall_sub_run(hlo_run *r, const plan_step *sub, hlo_val **args, hlo_val **out);
/* A copy of in (same name, position, operands and attributes) with opcode
 * op, result shape shape and noperands operands; NULL on OOM (diagnosed). */
hlo_instruction *hlo_ccall_fake(hlo_exec *e, const hlo_instruction *in, hlo_opcode op,
                                const hlo_shape *shape, int noperands);

/* backend_config as an MLIR dictionary attribute (ccall_mlir.c), as typed
 * FFI custom calls print it: {name = 3 : i64, x = 1.0e+00 : f64, b = true}. */
#define HLO_MLIR_MAX 64
typedef enum { HLO_MLIR_INT, HLO_MLIR_FLOAT, HLO_MLIR_BOOL, HLO_MLIR_STR, HLO_MLIR_OTHER } hlo_mlir_kind;
typedef struct hlo_mlir_entry {
  char name[64];
  hlo_mlir_kind kind;
  int64_t i;          /* INT, BOOL (0/1), FLOAT truncated */
  double f;           /* FLOAT, INT, BOOL as double */
  const char *str;    /* STR: the text between the quotes (escapes kept) */
  size_t slen;
} hlo_mlir_entry;
typedef struct hlo_mlir_dict {
  int n;
  hlo_mlir_entry e[HLO_MLIR_MAX];
} hlo_mlir_dict;
/* Parse text ("{...}"); HLO_ERR with *err (a static message) and *errpos
 * (byte offset in text) when it is not such a dictionary. */
int hlo_mlir_dict_parse(const char *text, hlo_mlir_dict *d, size_t *errpos, const char **err);
/* The entry named name, or NULL. */
const hlo_mlir_entry *hlo_mlir_dict_find(const hlo_mlir_dict *d, const char *name);
/* The backend_config text of in with a quoted spelling unescaped (malloc'd,
 * free() it), or NULL when it has none; *oom set when allocation failed. */
char *hlo_ccall_config_raw(const hlo_instruction *in, bool *oom);

/* Choosers of the families, by target (t). */
int hlo_ccall_prep_gemm(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_conv(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_threefry(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_marker(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_zeros(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_spmd(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_called(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_topk(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_act(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_dyn(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_attn(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_user(hlo_exec *e, plan_step *s, const hlo_ccall_user *u);

/* Plan-time check of a dot: one with sparsity= gets the kernel that expands
 * its compressed operands (sparse_dot.c); others keep the dot kernels. */
int hlo_sparse_dot_prep(hlo_exec *e, plan_step *s);

/* Copy the tile of `part` at offset off of `full` out of (to_full false:
 * src is full, dst is part) or into (to_full: src is part, dst is full) a
 * full array; positions past full's end are skipped. */
void hlo_ccall_tile_copy(const hlo_shape *full, const hlo_shape *part, const int64_t *off, bool to_full,
                         void *dst, const void *src);
int hlo_ccall_prep_sdy_shape(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_dynconv(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_dynwindow(hlo_exec *e, plan_step *s, const char *t);
int hlo_ccall_prep_dynsas(hlo_exec *e, plan_step *s, const char *t);
/* Shard to full over the partitions of this replica: each partition's
 * tile of each of nvals values goes to its offset off[partition * nvals +
 * value] in the full results; one partition (no communicator) places its
 * own tile in zeros. */
typedef struct hlo_ccall_tiles {
  int n, pos, nvals; /* partitions, self's, values */
  int *part;         /* their logical devices */
  int64_t (*off)[MAXR];
} hlo_ccall_tiles;
/* Fill n, pos, part and zero offsets for nvals values; HLO_ERR on OOM. */
int hlo_ccall_tiles_plan(hlo_exec *e, hlo_ccall_tiles *g, int nvals);
int hlo_ccall_tiles_gather(hlo_run *r, const plan_step *s, const hlo_ccall_tiles *g, hlo_val **args,
                           hlo_val **out);

/* Result storage: the value of shape sh (tuple elements zero) */
DECL_KERN(hlo_ccall_zeros);
#endif
