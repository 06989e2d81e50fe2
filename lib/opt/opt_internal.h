/* opt_internal.h - what the optimization passes share: a pass context
 * (module, scratch arena, unique names), and the IR edits every pass needs
 * (replace uses, remove what became dead, add and clone instructions and
 * computations, inline a computation at a call site). */
#ifndef HLO_OPT_INTERNAL_H
#define HLO_OPT_INTERNAL_H

#include "fuse/fuse_internal.h"
#include "hlo/hlo_opt.h"

typedef struct opt_ctx {
  hlo_module *m;
  const hlo_opt_options *o;
  hlo_diags *d;
  hlo_arena tmp;      /* scratch, released at the end of the pass */
  fuse_names names;   /* every name of m, filled on first use */
  bool names_ready;
  hlo_instruction *anchor; /* new instructions of its computation go just before it */
  bool oom;           /* a rewrite callback ran out of memory */
  int *cap;           /* per computation id: capacity of its instrs array */
  int ncap;
} opt_ctx;

void opt_ctx_init(opt_ctx *x, hlo_module *m, const hlo_opt_options *o, hlo_diags *d);
void opt_ctx_release(opt_ctx *x);
/* Record "out of memory" (or msg) in x->d and return -1. */
int opt_fail(opt_ctx *x, const char *msg);

/* Has a side effect, or calls a computation that has one (XLA's
 * HasSideEffect): such instructions are never removed or merged. */
bool opt_side_effect(const hlo_instruction *in);
/* Array (not tuple/token) constant, or broadcast of one scalar constant,
 * whose every element equals v. */
bool opt_is_splat(const hlo_instruction *in, double v);
/* All elements of a constant equal (true for scalars); *v gets the value. */
bool opt_splat_value(const hlo_instruction *in, double *v);

/* Unique names (module-wide), registered as taken. NULL on OOM. */
const char *opt_instr_name(opt_ctx *x, const char *base);
const char *opt_comp_name(opt_ctx *x, const char *base);

/* A new instruction in c (appended; call opt_sort before the pass ends)
 * with a copy of shape s; attrs none.  NULL on OOM. */
hlo_instruction *opt_add(opt_ctx *x, hlo_computation *c, hlo_opcode op, const char *base, int noperands,
                         const hlo_shape *s);
/* Append an attribute to in (copying the array); NULL on OOM. */
hlo_attr *opt_add_attr(opt_ctx *x, hlo_instruction *in, hlo_attr_key k);
/* Give in its own copy of its attribute array (clones share them), so an
 * attribute can be edited; HLO_ERR on OOM. */
int opt_own_attrs(opt_ctx *x, hlo_instruction *in);
/* Put in into c: just before x->anchor when that is in c (so rewritten code
 * stays where the instruction it replaces was), else at the end. */
int opt_append(opt_ctx *x, hlo_computation *c, hlo_instruction *in);
/* Make every use of old in c (operands, root) use nw instead. */
void opt_replace_uses(hlo_computation *c, hlo_instruction *old, hlo_instruction *nw);
/* Remove the seeds that have no user, and then, transitively, their
 * operands that lost their last user (XLA's
 * RemoveInstructionAndUnusedOperands).  Never removes the root, parameters,
 * side effects or control predecessors.  *removed (may be NULL) counts. */
int opt_remove_dead(opt_ctx *x, hlo_computation *c, hlo_instruction *const *seeds, int nseeds, int *removed);
/* Replace old by nw in c and remove old (and operands) if dead. */
int opt_replace(opt_ctx *x, hlo_computation *c, hlo_instruction *old, hlo_instruction *nw);
/* c's instructions in a topological order, c unchanged (scratch array). */
hlo_instruction **opt_topo_order(opt_ctx *x, hlo_computation *c);
/* Topologically sort c after instructions were appended. */
int opt_sort(opt_ctx *x, hlo_computation *c);

/* What instruction in of c becomes, or NULL to keep it (set x->oom on
 * failure).  New instructions it adds land just before in. */
typedef hlo_instruction *opt_rewrite_fn(opt_ctx *x, hlo_computation *c, hlo_instruction *in);
/* Offer every instruction of every computation to f, in topological order;
 * replace those it rewrites and remove what became dead; again (on the new
 * instructions too) up to `rounds` times while something changed.  Returns
 * 1 changed, 0 not, -1 error. */
int opt_rewrite_each(opt_ctx *x, opt_rewrite_fn *f, int rounds);

/* Copy the instructions of callee into c with callee's parameter i bound to
 * args[i]; *root gets the copy of callee's root.  Names get a unique
 * version of the original name.  The copies are appended to c. */
int opt_inline_body(opt_ctx *x, hlo_computation *c, const hlo_computation *callee, hlo_instruction *const *args,
                                   int nargs, hlo_instruction **root);
/* A new computation: a deep copy of src named after it with suffix
 * (".clone"), instruction names likewise; inserted into the module after
 * src.  NULL on OOM. */
hlo_computation *opt_clone_comp(opt_ctx *x, const hlo_computation *src, const char *suffix);
/* Drop computations no longer reachable from the entry (links m). */
int opt_drop_unreachable(opt_ctx *x, int *dropped);

#endif
