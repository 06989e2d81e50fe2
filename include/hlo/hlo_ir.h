/* hlo_ir.h - the in-memory HLO IR: element types, shapes, layouts, literals,
 * attributes, instructions, computations and modules.
 *
 * Ownership, stated once: every object reachable from an hlo_module (names,
 * shapes, attributes, literals, instructions, computations) lives in the
 * module's arena.  Nothing is freed on its own; hlo_module_free() releases
 * all of it.  Pointers into a module stay valid until then.  The IR never
 * points into the source text, so the text may be freed after parsing.
 * Layout objects may be shared between shapes (the parser shares identical
 * layouts): treat a layout as read-only and give a shape a new layout
 * (hlo_shape_copy) instead of editing one in place. */
#ifndef HLO_IR_H
#define HLO_IR_H

#include "hlo/hlo_core.h"
#include "hlo/hlo_types.h"

/* ---- element types (the enums are in hlo_types.h) ------------------------ */
HLO_API const char *hlo_type_name(hlo_type t);
/* Look up a spelling of length n; returns false if it is not a type name. */
HLO_API bool hlo_type_lookup(const char *s, size_t n, hlo_type *out);
HLO_API int hlo_type_bits(hlo_type t);  /* logical width: pred 1, s4 4, c64 64 */
HLO_API int hlo_type_bytes(hlo_type t); /* storage per element in literals/buffers */
HLO_API hlo_type_kind hlo_type_kind_of(hlo_type t);
HLO_API bool hlo_type_is_array(hlo_type t); /* has dims: not token/opaque/tuple */
HLO_API bool hlo_type_is_float(hlo_type t);
HLO_API bool hlo_type_is_int(hlo_type t); /* signed or unsigned, not pred */

/* ---- opcodes ------------------------------------------------------------- */
enum {
  HLO_F_ELEMENTWISE = 1 << 0,
  HLO_F_COMMUTATIVE = 1 << 1,
  HLO_F_TRANSCENDENTAL = 1 << 2,
  HLO_F_SIDE_EFFECT = 1 << 3,
  HLO_F_COLLECTIVE = 1 << 4,
  HLO_F_ASYNC = 1 << 5,
  HLO_F_CONTROL = 1 << 6, /* runs called computations as subroutines: while, conditional, call */
  HLO_F_P2P = 1 << 7,     /* point-to-point transfer sharing a channel: send, recv and their -done */
};
#define HLO_VARIADIC (-1)

typedef enum hlo_opcode {
#define HLO_OP(e, name, arity, flags) HLO_OP_##e,
#include "hlo/hlo_ops.def"
#undef HLO_OP
  HLO_OP_COUNT
} hlo_opcode;

HLO_API const char *hlo_opcode_name(hlo_opcode op);
HLO_API bool hlo_opcode_lookup(const char *s, size_t n, hlo_opcode *out);
HLO_API int hlo_opcode_arity(hlo_opcode op); /* HLO_VARIADIC or a count */
HLO_API unsigned hlo_opcode_flags(hlo_opcode op);

/* ---- shapes and layouts --------------------------------------------------- */
#define HLO_DIM_UNBOUNDED INT64_MIN /* a '?' dimension */
#define HLO_TILE_COMBINE INT64_MIN  /* a '*' entry in a tile */

typedef struct hlo_tile {
  int n;
  int64_t *dims;
} hlo_tile;

typedef struct hlo_layout {
  int n;                 /* == rank of the shape */
  int64_t *minor_to_major;
  int ntiles;            /* tiles parsed from the text after ':' */
  hlo_tile *tiles;
  int64_t element_size_bits; /* E(n), 0 if absent */
  int64_t memory_space;      /* S(n), 0 if absent */
  const char *ext;       /* everything after ':' verbatim, NULL if none */
} hlo_layout;

typedef struct hlo_shape hlo_shape;
struct hlo_shape {
  hlo_type type;     /* HLO_TUPLE for tuples */
  int rank;
  int64_t *dims;     /* size, upper bound if dynamic, HLO_DIM_UNBOUNDED for '?' */
  bool *dynamic;     /* NULL when no dimension is dynamic ('<=N' or '?') */
  hlo_layout *layout;/* NULL: none (tuples, token) */
  int ntuple;
  hlo_shape *tuple;  /* elements, when type == HLO_TUPLE */
  bool buffer;       /* XLA's buffer shape b(T[...]): this array held as a buffer */
};

HLO_API bool hlo_shape_is_tuple(const hlo_shape *s);
HLO_API bool hlo_shape_is_array(const hlo_shape *s);
HLO_API bool hlo_shape_is_scalar(const hlo_shape *s);
/* Element count of an array shape; false on overflow or unbounded dims. */
HLO_API bool hlo_shape_elements(const hlo_shape *s, int64_t *out);
/* Byte size of an array shape (elements * storage bytes); false on overflow. */
HLO_API bool hlo_shape_bytes(const hlo_shape *s, int64_t *out);
/* Same type and dims (and dynamic flags); layouts ignored. */
HLO_API bool hlo_shape_compatible(const hlo_shape *a, const hlo_shape *b);
/* Same everything including layouts. */
HLO_API bool hlo_shape_equal(const hlo_shape *a, const hlo_shape *b);
/* Deep copy into an arena; returns HLO_ERR on allocation failure. */
HLO_API int hlo_shape_copy(hlo_arena *a, hlo_shape *dst, const hlo_shape *src);
/* Build an array shape with the default (descending) layout. */
HLO_API int hlo_shape_make_array(hlo_arena *a, hlo_shape *dst, hlo_type t, int rank,
                                 const int64_t *dims);
/* Give every array sub-shape without a layout the default layout
 * {rank-1,...,0}. */
HLO_API int hlo_shape_set_default_layouts(hlo_arena *a, hlo_shape *s);

/* ---- literals ------------------------------------------------------------
 * Array data is dense, row-major in logical dimension order (whatever the
 * layout), hlo_type_bytes() per element: pred as one byte 0/1, s4/u4/s2/...
 * and the f8/f4 types one element per byte (low bits), f16/bf16 as their
 * raw 16-bit patterns, complex as (re, im) pairs. */
typedef struct hlo_literal hlo_literal;
struct hlo_literal {
  hlo_shape shape;
  void *data;            /* NULL for tuples and elided constants (unless filled) */
  int64_t nelems;
  bool elided;           /* written as {...} in the text */
  int ntuple;
  hlo_literal *tuple;
};

/* ---- attributes ------------------------------------------------------------ */
typedef enum hlo_attr_kind {
  HLO_AK_INT, HLO_AK_BOOL, HLO_AK_FLOAT, HLO_AK_STRING, HLO_AK_WORD,
  HLO_AK_INTS, HLO_AK_BOOLS, HLO_AK_WORDS, HLO_AK_COMP, HLO_AK_COMPS,
  HLO_AK_INSTRS, HLO_AK_WINDOW, HLO_AK_CONV_DNUMS, HLO_AK_SLICES,
  HLO_AK_PADDING, HLO_AK_REPLICA_GROUPS, HLO_AK_PAIRS, HLO_AK_SHAPE,
  HLO_AK_SHAPES, HLO_AK_SHARDING, HLO_AK_PROGRAM_SHAPE, HLO_AK_LITERAL, HLO_AK_ALIASING, HLO_AK_RAW,
  HLO_AK_INT_LISTS /* {{1,2},{3}}: held in u.groups (explicit lists); collective-permute slice_sizes */
} hlo_attr_kind;

typedef enum hlo_attr_key {
#define HLO_ATTR(e, name, kind) HLO_A_##e,
#include "hlo/hlo_attrs.def"
#undef HLO_ATTR
  HLO_ATTR_COUNT,
  HLO_A_UNKNOWN = HLO_ATTR_COUNT /* kept verbatim under its own name */
} hlo_attr_key;

HLO_API const char *hlo_attr_name(hlo_attr_key k);
HLO_API bool hlo_attr_lookup(const char *s, size_t n, hlo_attr_key *out);
HLO_API hlo_attr_kind hlo_attr_kind_of(hlo_attr_key k);

typedef struct hlo_window_dim {
  int64_t size, stride, pad_lo, pad_hi, lhs_dilate, rhs_dilate;
  bool reversal;
} hlo_window_dim;

typedef struct hlo_window {
  int n;
  hlo_window_dim *dims;
} hlo_window;

/* dim_labels such as b01f_01io->b01f: which dimension of each of the three
 * shapes plays which role; spatial dims listed in label order 0,1,2,... */
typedef struct hlo_conv_dnums {
  int64_t in_batch, in_feature, kernel_in, kernel_out, out_batch, out_feature;
  int nspatial;
  int64_t *in_spatial, *kernel_spatial, *out_spatial;
} hlo_conv_dnums;

typedef struct hlo_slice_dim {
  int64_t start, limit, stride;
} hlo_slice_dim;

typedef struct hlo_pad_dim {
  int64_t lo, hi, interior;
} hlo_pad_dim;

typedef struct hlo_padding {
  int n;
  hlo_pad_dim *dims;
  bool has_interior; /* printed as lo_hi_interior */
} hlo_padding;

/* XLA's device meshes and axis references (Mesh, AxisRef): the parts of
 * mesh-based ("named") shardings and of mesh-axes replica groups.
 * mesh['a'=2,'b'=4] numbers its devices 0..7 in row-major order unless
 * device_ids=(list) or device_ids=([reshape]T(perm)) says otherwise;
 * maximal_mesh[device_id=N] is the one device N; mesh[] is empty. */
typedef struct hlo_mesh {
  bool maximal;              /* maximal_mesh[device_id=device_id] */
  int64_t device_id;
  int naxes;
  const char **axis_names;   /* unescaped, without quotes */
  int64_t *axis_sizes;
  int ndevice_ids;           /* device_ids=(d0,d1,...), 0 if not given */
  int64_t *device_ids;
  int niota;                 /* device_ids=([reshape]T(perm)), canonical; 0 if not */
  int64_t *iota_reshape, *iota_perm;
  int64_t ndevices;          /* product of the axis sizes; 1 if maximal, 0 if empty */
} hlo_mesh;

/* 'name' (the whole axis, pre == 0) or 'name':(pre)size, the sub-axis of
 * `size` devices after the `pre` major ones. */
typedef struct hlo_axis_ref {
  int axis;                  /* index into the mesh's axes */
  int64_t pre, size;
} hlo_axis_ref;

typedef struct hlo_axis_list {
  int n;
  hlo_axis_ref *v;
} hlo_axis_list;

/* replica_groups=mesh[...] {axes}: one group for every combination of the
 * other axes, holding the devices along `axes` (in their order). */
typedef struct hlo_mesh_groups {
  hlo_mesh mesh;
  hlo_axis_list axes;
} hlo_mesh_groups;

/* Replica groups: explicit {{0,1},{2,3}}, the iota form
 * [G,S]<=[dims]T(perm), or mesh axes (then `mesh` is set and the explicit
 * fields hold the groups XLA derives from it). */
typedef struct hlo_replica_groups {
  hlo_mesh_groups *mesh;
  bool iota;
  int ngroups;
  int *group_sizes;
  int64_t **groups;            /* explicit form */
  int niota_shape, niota_reshape, niota_perm;
  int64_t *iota_shape, *iota_reshape, *iota_perm; /* iota form */
} hlo_replica_groups;

/* Sharding: {replicated}, {maximal device=N}, {manual}, {unknown},
 * {devices=[tile dims]ids} or {devices=[tile dims]<=[reshape]T(perm)} with
 * optional last_tile_dim_replicate / last_tile_dims={...}, a mesh-based
 * one (hlo_named_sharding above), or a tuple {{...}, {...}}.  Parsed into
 * the fields below; `text` holds the verbatim form (including braces),
 * which is what prints. */
typedef enum hlo_sharding_kind {
  HLO_SHARD_REPLICATED, HLO_SHARD_MAXIMAL, HLO_SHARD_MANUAL, HLO_SHARD_UNKNOWN,
  HLO_SHARD_TILED, HLO_SHARD_TUPLE, HLO_SHARD_OTHER
} hlo_sharding_kind;

/* A mesh-based sharding {mesh[...], [{axes}, ...], replicated={...},
 * unreduced[=op]{...}, manual={...}} (XLA's NamedSharding). */
typedef struct hlo_dim_sharding {
  hlo_axis_list axes;
  bool open;                 /* ends in '?' */
} hlo_dim_sharding;

typedef enum hlo_reduction_op { HLO_REDUCE_SUM, HLO_REDUCE_MAX, HLO_REDUCE_MIN } hlo_reduction_op;

typedef struct hlo_named_sharding {
  hlo_mesh mesh;
  int ndims;
  hlo_dim_sharding *dims;
  hlo_axis_list replicated, unreduced, manual;
  hlo_reduction_op reduction; /* of the unreduced axes */
  const char *metadata;      /* verbatim value of metadata=, or NULL */
} hlo_named_sharding;

typedef struct hlo_sharding hlo_sharding;
struct hlo_sharding {
  hlo_sharding_kind kind;
  int64_t device;                /* maximal */
  int ntile;                     /* tiled: tile assignment dims */
  int64_t *tile;
  int ndevices;                  /* explicit device list, or 0 for iota */
  int64_t *devices;
  bool iota;                     /* devices written <=[reshape]T(perm) */
  int niota_reshape, niota_perm;
  int64_t *iota_reshape, *iota_perm;
  bool last_tile_dim_replicate;
  int nlast_tile_dims;           /* last_tile_dims={manual, replicated, ...} */
  const char **last_tile_dims;
  int ntuple;
  hlo_sharding *tuple;
  hlo_named_sharding *named;     /* mesh-based; the fields above then hold
                                    the tiling XLA derives (V3ToV2Sharding) */
  const char *text;              /* verbatim, including braces (canonical
                                    for mesh-based shardings and tuples of them) */
};

/* Aliasing lists: output_to_operand_aliasing={{0}: (1, {})},
 * input_output_alias={ {0}: (0, {}, may-alias) }, buffer_donor={ (0, {}) }.
 * `text` is the verbatim value, which is what prints. */
typedef struct hlo_alias_entry {
  int noutput;
  int64_t *output_index;   /* shape index of the output (empty for buffer_donor) */
  int64_t operand;         /* operand or parameter number */
  int noperand_index;
  int64_t *operand_index;  /* shape index within that operand */
  const char *kind;        /* "may-alias", "must-alias" or NULL */
} hlo_alias_entry;

typedef struct hlo_aliasing {
  int n;
  hlo_alias_entry *v;
  const char *text;
} hlo_aliasing;

typedef struct hlo_program_shape {
  int nparams;
  hlo_shape *params;
  hlo_shape result;
} hlo_program_shape;

typedef struct hlo_computation hlo_computation;
typedef struct hlo_instruction hlo_instruction;
typedef struct hlo_module hlo_module;

typedef struct hlo_attr {
  hlo_attr_key key;
  hlo_attr_kind kind;
  const char *name; /* spelling (always set; for HLO_A_UNKNOWN the only key) */
  size_t off;       /* source offset of the name, for diagnostics */
  union {
    int64_t i;
    bool b;
    double f;
    const char *s; /* STRING: unescaped; WORD: the word; RAW: verbatim text */
    struct { int n; int64_t *v; } ints;
    struct { int n; bool *v; } bools;
    struct { int n; const char **v; } words;
    hlo_computation *comp;
    struct { int n; hlo_computation **v; bool braced; } comps;
    struct { int n; hlo_instruction **v; } instrs;
    hlo_window window;
    hlo_conv_dnums *conv;  /* CONV_DNUMS */
    struct { int n; hlo_slice_dim *v; } slices;
    hlo_padding padding;
    hlo_replica_groups *groups; /* REPLICA_GROUPS */
    struct { int n; int64_t (*v)[2]; } pairs;
    hlo_shape *shape;      /* SHAPE */
    struct { int n; hlo_shape *v; } shapes;
    hlo_sharding *sharding; /* SHARDING */
    hlo_program_shape *pshape; /* PROGRAM_SHAPE */
    hlo_literal *literal; /* LITERAL: "shape value" */
    hlo_aliasing aliasing;
  } u;
} hlo_attr;

/* ---- instructions, computations, modules ---------------------------------- */
struct hlo_instruction {
  hlo_opcode op;
  int id;                  /* position in parent->instrs */
  int noperands;
  int nusers;              /* filled by hlo_module_link() */
  int ncontrol;            /* control predecessors (control-predecessors=) */
  int ncalled;             /* every computation the attributes name, in order */
  int nattrs;
  bool shape_omitted;      /* result shape not written; to be inferred */
  const char *name;
  hlo_shape shape;
  hlo_computation *parent;
  size_t off;              /* source offset of the name (0 if built) */
  size_t op_off;           /* source offset of the opcode */
  hlo_instruction **operands;
  hlo_instruction **users;
  hlo_instruction **control_preds;
  hlo_computation **called;
  hlo_attr *attrs;         /* in source order (= XLA's printing order) */
  hlo_literal *literal;    /* constant */
  int64_t param_number;    /* parameter */
  const char *custom_text; /* verbatim operand text of ops whose operand
                              list is not names (unused today) */
};

struct hlo_computation {
  const char *name;
  size_t off;
  bool is_entry;           /* written with ENTRY, or chosen as entry */
  bool is_fused;           /* called by a fusion instruction */
  bool has_signature;      /* written as "(p: shape, ...) -> shape" */
  int ninstrs;
  hlo_instruction **instrs; /* in text order */
  hlo_instruction *root;
  bool root_explicit;      /* ROOT keyword written */
  int nparams;
  hlo_instruction **params; /* by parameter number (NULL gaps possible) */
  int nattrs;              /* after the closing brace, e.g. execution_thread */
  hlo_attr *attrs;
  hlo_module *module_;     /* owning module */
  int id;
};

/* The stack frame index XLA prints after the module header (FileNames,
 * FunctionNames, FileLocations, StackFrames), which metadata's
 * stack_frame_id refers to.  Ids are 1-based as written; a parent_frame_id
 * of 0 means no parent. */
typedef struct hlo_file_location {
  int32_t file_name_id, function_name_id, line, end_line, column, end_column;
} hlo_file_location;

typedef struct hlo_stack_frame {
  int32_t file_location_id, parent_frame_id;
} hlo_stack_frame;

typedef struct hlo_stack_frames {
  int nfile_names, nfunction_names, nlocations, nframes;
  const char **file_names;
  const char **function_names;
  hlo_file_location *locations;
  hlo_stack_frame *frames;
} hlo_stack_frames;

struct hlo_module {
  hlo_arena arena;
  const char *name;        /* NULL if no HloModule header */
  bool has_header;
  int nattrs;
  hlo_attr *attrs;         /* header attributes in source order */
  int ncomps;
  hlo_computation **comps; /* in text order */
  hlo_computation *entry;
  hlo_stack_frames *stack_frames; /* NULL when the text has none */
};

/* Create an empty module whose arena uses alloc (NULL = malloc). */
HLO_API hlo_module *hlo_module_new(const hlo_allocator *alloc);
HLO_API void hlo_module_free(hlo_module *m);

/* Find by name; NULL if absent. */
HLO_API hlo_computation *hlo_module_find_computation(const hlo_module *m, const char *name);
HLO_API hlo_instruction *hlo_computation_find(const hlo_computation *c, const char *name);

/* Attribute access: the first attribute with key k, or NULL. */
HLO_API const hlo_attr *hlo_instr_attr(const hlo_instruction *i, hlo_attr_key k);
HLO_API const hlo_attr *hlo_module_attr(const hlo_module *m, hlo_attr_key k);
/* Convenience: integer list attribute (dims) or NULL/0. */
HLO_API const int64_t *hlo_instr_ints(const hlo_instruction *i, hlo_attr_key k, int *n);
/* Convenience: integer attribute with a default. */
HLO_API int64_t hlo_instr_int(const hlo_instruction *i, hlo_attr_key k, int64_t dflt);
HLO_API bool hlo_instr_bool(const hlo_instruction *i, hlo_attr_key k, bool dflt);
HLO_API const char *hlo_instr_word(const hlo_instruction *i, hlo_attr_key k);

/* Recompute users, called-computation lists, parameter tables and fused
 * flags after the IR was built or edited.  HLO_ERR on allocation failure. */
HLO_API int hlo_module_link(hlo_module *m);

/* Give every constant written as {...} the values XLA's parser gives it by
 * default (a deterministic counter over the module's elided constants in
 * text order; elided_fill.c), so the module can run; the constants keep
 * printing as {...}.  HLO_ERR on allocation failure or an impossible size. */
HLO_API int hlo_module_fill_elided_constants(hlo_module *m);

#endif
