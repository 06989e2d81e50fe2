/* fuse_internal.h - what the fusion pass's files share: the opcode policy,
 * the grouping state of one computation, and the IR-building helpers. */
#ifndef HLO_FUSE_INTERNAL_H
#define HLO_FUSE_INTERNAL_H

#include "hlo/hlo_fuse.h"
#include "hlo/hlo_imap.h"

typedef enum fuse_class {
  FC_NONE,   /* not fusible (parameter, tuple, sort, ...) */
  FC_SIDE,   /* side effect, collective, control flow, custom call */
  FC_LOOP,   /* elementwise or data movement: loop fusion */
  FC_REDUCE, /* reduce / reduce-window: root of an input fusion */
  FC_MATMUL, /* dot / convolution: producer of an output fusion */
  FC_FUSION  /* an existing fusion */
} fuse_class;

fuse_class fuse_classify(const hlo_instruction *in);
/* Cheap to recompute: elementwise without transcendental or division,
 * pure data movement, small constants. */
bool fuse_cheap(const hlo_instruction *in);

enum { FK_LOOP, FK_INPUT, FK_OUTPUT };

typedef struct fuse_member {
  hlo_instruction *in;
  bool dup; /* a copy: the original stays for users outside the group */
} fuse_member;

typedef struct fuse_group {
  hlo_instruction *root;
  int kind;          /* FK_* */
  int nmem, capmem;
  fuse_member *mem;  /* root first, then in the order fused */
  int nout, capout;
  hlo_instruction **out; /* root first, then extra outputs */
  int size;          /* instructions the fused computation will hold */
  bool dead;         /* merged into another group (into) */
  int into;
  bool sibling;      /* made multi-output by a sibling merge */
  bool single;       /* nothing fused: only a candidate for a sibling merge */
  bool grown;        /* the root is an existing fusion */
  hlo_instruction *fusion;
} fuse_group;

/* Name registry: every instruction and computation name of the module, so
 * new names are unique module-wide. */
typedef struct fuse_names {
  hlo_strmap instrs, comps;
} fuse_names;

int fuse_names_init(fuse_names *nm, hlo_module *m);
/* base, or base.N for the smallest N >= 1 that is free; registered.  NULL
 * on allocation failure. */
const char *fuse_unique_instr(fuse_names *nm, hlo_arena *a, const char *base);
const char *fuse_unique_comp(fuse_names *nm, hlo_arena *a, const char *base);

/* IR helpers (allocate in the module arena). */
hlo_instruction *fuse_new_instr(hlo_arena *a, hlo_opcode op, const char *name, int noperands);
hlo_instruction *fuse_clone_instr(hlo_arena *a, const hlo_instruction *src, const char *name);
int fuse_comp_append(hlo_arena *a, hlo_computation *c, int *cap, hlo_instruction *in);
/* Insert computation c into m->comps before position pos. */
int fuse_module_insert_comp(hlo_module *m, int pos, hlo_computation *c);
/* Topologically sort c's instructions, keeping the current order where it
 * is already valid (operands and control predecessors first). */
int fuse_topo_sort(hlo_arena *a, hlo_computation *c);
/* Non-parameter instructions of a fused computation (recursively). */
int fuse_comp_size(const hlo_computation *c);
/* Is c a computation the pass works on (entry, loop bodies, branches,
 * call targets), as opposed to fused computations and reducers? */
bool fuse_is_control_comp(const hlo_module *m, const hlo_computation *c);

/* Build the fusion instructions for the groups of comp and rewire it.
 * Records bytes_not_written in r. */
int fuse_materialize(hlo_module *m, hlo_computation *comp, int comp_pos, fuse_group *g, int ng,
                     fuse_names *nm, hlo_fuse_report *r, hlo_diags *d);

/* Drop the computations among cands that nothing calls; relinks m. */
int fuse_drop_uncalled(hlo_module *m, hlo_computation *const *cands, int n);

int fuse_report_add(hlo_fuse_report *r, hlo_fuse_verdict v, const char *comp, const char *producer,
                    const char *consumer, const char *fusion, double util);

#endif
