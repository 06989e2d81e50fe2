/* attr_rules.c - which attributes each opcode takes, the parse-time rule
 * XLA's parser applies: the generic attributes any instruction may carry,
 * then one table indexed by opcode of each op's own required and optional
 * attributes.  An attribute outside both sets, or a required one missing,
 * fails the parse.  Ops whose attribute set depends on an operand
 * (broadcast of a scalar, conditional's index type) are settled here too. */
#include <stdio.h>
#include <string.h>

#include "text/attr_rules.h"

#define END HLO_A_UNKNOWN
#define KEYS(...) ((const hlo_attr_key[]){__VA_ARGS__, END})
#define REQ(...) .req = KEYS(__VA_ARGS__)
#define OPT(...) .opt = KEYS(__VA_ARGS__)

typedef struct op_attr_rule {
  const hlo_attr_key *req; /* each must be given */
  const hlo_attr_key *opt; /* each may be given */
  bool unchecked;          /* not an opcode XLA's parser builds: any attribute */
} op_attr_rule;

/* Every instruction may carry these. */
static const hlo_attr_key GENERIC[] = {
    HLO_A_SHARDING, HLO_A_FRONTEND_ATTRIBUTES, HLO_A_STATISTICS, HLO_A_PARAMETER_REPLICATION,
    HLO_A_CONTROL_PREDECESSORS, HLO_A_ORIGIN, HLO_A_METADATA, HLO_A_BACKEND_CONFIG, END};

#define ACCURACY {OPT(HLO_A_RESULT_ACCURACY)}
#define COLLECTIVE_GROUPS HLO_A_REPLICA_GROUPS, HLO_A_CHANNEL_ID
#define GATHER_OPT HLO_A_CONSTRAIN_LAYOUT, HLO_A_USE_GLOBAL_DEVICE_IDS
#define DOT_DIMS HLO_A_LHS_CONTRACTING_DIMS, HLO_A_RHS_CONTRACTING_DIMS, HLO_A_LHS_BATCH_DIMS, HLO_A_RHS_BATCH_DIMS
#define CHANNEL {OPT(HLO_A_CHANNEL_ID, HLO_A_IS_HOST_TRANSFER)}
#define BATCH_NORM {REQ(HLO_A_EPSILON, HLO_A_FEATURE_INDEX)}

/* Ops absent here take only the generic attributes. */
static const op_attr_rule RULES[HLO_OP_COUNT] = {
    /* unary ops with a result accuracy */
    [HLO_OP_ACOS] = ACCURACY, [HLO_OP_ACOSH] = ACCURACY, [HLO_OP_ASIN] = ACCURACY,
    [HLO_OP_ASINH] = ACCURACY, [HLO_OP_ATANH] = ACCURACY, [HLO_OP_CBRT] = ACCURACY,
    [HLO_OP_COS] = ACCURACY, [HLO_OP_COSH] = ACCURACY, [HLO_OP_ERF] = ACCURACY,
    [HLO_OP_EXP] = ACCURACY, [HLO_OP_EXPM1] = ACCURACY, [HLO_OP_LOG] = ACCURACY,
    [HLO_OP_LOG1P] = ACCURACY, [HLO_OP_LOGISTIC] = ACCURACY, [HLO_OP_RSQRT] = ACCURACY,
    [HLO_OP_SIN] = ACCURACY, [HLO_OP_SINH] = ACCURACY, [HLO_OP_SQRT] = ACCURACY,
    [HLO_OP_TAN] = ACCURACY, [HLO_OP_TANH] = ACCURACY,
    /* shapes and data movement */
    [HLO_OP_IOTA] = {REQ(HLO_A_IOTA_DIMENSION)},
    [HLO_OP_RESHAPE] = {OPT(HLO_A_INFERRED_DIMENSION)},
    [HLO_OP_BROADCAST] = {REQ(HLO_A_DIMENSIONS)}, /* optional for a scalar operand */
    [HLO_OP_TRANSPOSE] = {REQ(HLO_A_DIMENSIONS)},
    [HLO_OP_REVERSE] = {REQ(HLO_A_DIMENSIONS)},
    [HLO_OP_CONCATENATE] = {REQ(HLO_A_DIMENSIONS)},
    [HLO_OP_GET_DIMENSION_SIZE] = {REQ(HLO_A_DIMENSIONS)},
    [HLO_OP_SET_DIMENSION_SIZE] = {REQ(HLO_A_DIMENSIONS)},
    [HLO_OP_SLICE] = {REQ(HLO_A_SLICE)},
    [HLO_OP_DYNAMIC_SLICE] = {REQ(HLO_A_DYNAMIC_SLICE_SIZES)},
    [HLO_OP_PAD] = {REQ(HLO_A_PADDING)},
    [HLO_OP_GET_TUPLE_ELEMENT] = {REQ(HLO_A_INDEX)},
    [HLO_OP_DOMAIN] = {REQ(HLO_A_DOMAIN)},
    [HLO_OP_REDUCE_PRECISION] = {REQ(HLO_A_EXPONENT_BITS, HLO_A_MANTISSA_BITS)},
    [HLO_OP_COMPARE] = {REQ(HLO_A_DIRECTION), OPT(HLO_A_TYPE)},
    [HLO_OP_TOPK] = {REQ(HLO_A_K), OPT(HLO_A_LARGEST, HLO_A_IS_STABLE)},
    /* reductions and called computations */
    [HLO_OP_REDUCE] = {REQ(HLO_A_TO_APPLY, HLO_A_DIMENSIONS)},
    [HLO_OP_REDUCE_WINDOW] = {REQ(HLO_A_TO_APPLY), OPT(HLO_A_WINDOW)},
    [HLO_OP_SELECT_AND_SCATTER] = {REQ(HLO_A_SELECT, HLO_A_SCATTER), OPT(HLO_A_WINDOW)},
    [HLO_OP_MAP] = {REQ(HLO_A_TO_APPLY), OPT(HLO_A_DIMENSIONS)},
    [HLO_OP_SORT] = {REQ(HLO_A_DIMENSIONS, HLO_A_TO_APPLY), OPT(HLO_A_IS_STABLE)},
    [HLO_OP_SCAN] = {REQ(HLO_A_TO_APPLY, HLO_A_DIMENSIONS, HLO_A_NUM_CARRIES),
                     OPT(HLO_A_IS_REVERSE, HLO_A_IS_ASSOCIATIVE)},
    [HLO_OP_CALL] = {REQ(HLO_A_TO_APPLY), OPT(HLO_A_IS_COMPOSITE, HLO_A_OUTPUT_TO_OPERAND_ALIASING)},
    [HLO_OP_WHILE] = {REQ(HLO_A_CONDITION, HLO_A_BODY)},
    /* the set depends on the index type: see conditional_rule */
    [HLO_OP_CONDITIONAL] = {OPT(HLO_A_TRUE_COMPUTATION, HLO_A_FALSE_COMPUTATION, HLO_A_BRANCH_COMPUTATIONS)},
    [HLO_OP_FUSION] = {REQ(HLO_A_CALLS, HLO_A_KIND), OPT(HLO_A_OUTPUT_TO_OPERAND_ALIASING)},
    [HLO_OP_ASYNC_START] = {REQ(HLO_A_CALLS), OPT(HLO_A_ASYNC_EXECUTION_THREAD, HLO_A_OUTPUT_TO_OPERAND_ALIASING)},
    [HLO_OP_ASYNC_UPDATE] = {OPT(HLO_A_CALLS, HLO_A_ASYNC_EXECUTION_THREAD)},
    [HLO_OP_ASYNC_DONE] = {OPT(HLO_A_CALLS, HLO_A_ASYNC_EXECUTION_THREAD)},
    [HLO_OP_CUSTOM_CALL] = {REQ(HLO_A_CUSTOM_CALL_TARGET),
                            OPT(HLO_A_WINDOW, HLO_A_DIM_LABELS, HLO_A_FEATURE_GROUP_COUNT,
                                HLO_A_BATCH_GROUP_COUNT, HLO_A_OPERAND_LAYOUT_CONSTRAINTS,
                                HLO_A_CUSTOM_CALL_HAS_SIDE_EFFECT, HLO_A_TO_APPLY, HLO_A_CALLED_COMPUTATIONS,
                                HLO_A_OUTPUT_TO_OPERAND_ALIASING, HLO_A_PADDING_TYPE, HLO_A_LITERAL,
                                HLO_A_OPERAND_PRECISION, HLO_A_CUSTOM_CALL_SCHEDULE, HLO_A_API_VERSION)},
    /* convolution, dots, gather, scatter */
    [HLO_OP_CONVOLUTION] = {REQ(HLO_A_DIM_LABELS),
                            OPT(HLO_A_WINDOW, HLO_A_FEATURE_GROUP_COUNT, HLO_A_BATCH_GROUP_COUNT,
                                HLO_A_CONV_KIND, HLO_A_OPERAND_PRECISION, HLO_A_ALGORITHM, HLO_A_SPARSITY_CONFIG)},
    /* sparsity: older XLA's sparse dot, still in dumps the verifier reads */
    [HLO_OP_DOT] = {OPT(DOT_DIMS, HLO_A_OPERAND_PRECISION, HLO_A_ALGORITHM, HLO_A_SPARSITY)},
    [HLO_OP_RAGGED_DOT] = {OPT(DOT_DIMS, HLO_A_LHS_RAGGED_DIMS, HLO_A_RHS_GROUP_DIMS, HLO_A_OPERAND_PRECISION)},
    [HLO_OP_SCALED_DOT] = {OPT(DOT_DIMS, HLO_A_OPERAND_PRECISION, HLO_A_ALGORITHM)},
    [HLO_OP_GATHER] = {REQ(HLO_A_OFFSET_DIMS, HLO_A_COLLAPSED_SLICE_DIMS, HLO_A_START_INDEX_MAP,
                           HLO_A_INDEX_VECTOR_DIM, HLO_A_SLICE_SIZES),
                       OPT(HLO_A_INDICES_ARE_SORTED, HLO_A_OPERAND_BATCHING_DIMS,
                           HLO_A_START_INDICES_BATCHING_DIMS)},
    [HLO_OP_SCATTER] = {REQ(HLO_A_UPDATE_WINDOW_DIMS, HLO_A_INSERTED_WINDOW_DIMS,
                            HLO_A_SCATTER_DIMS_TO_OPERAND_DIMS, HLO_A_INDEX_VECTOR_DIM, HLO_A_TO_APPLY),
                        OPT(HLO_A_INDICES_ARE_SORTED, HLO_A_UNIQUE_INDICES, HLO_A_INPUT_BATCHING_DIMS,
                            HLO_A_SCATTER_INDICES_BATCHING_DIMS)},
    /* linear algebra, fft, rng, batch norm */
    [HLO_OP_FFT] = {REQ(HLO_A_FFT_TYPE, HLO_A_FFT_LENGTH)},
    [HLO_OP_TRIANGULAR_SOLVE] = {OPT(HLO_A_LEFT_SIDE, HLO_A_LOWER, HLO_A_UNIT_DIAGONAL, HLO_A_TRANSPOSE_A)},
    [HLO_OP_CHOLESKY] = {OPT(HLO_A_LOWER)},
    [HLO_OP_RNG] = {REQ(HLO_A_DISTRIBUTION)},
    [HLO_OP_RNG_BIT_GENERATOR] = {REQ(HLO_A_ALGORITHM)},
    [HLO_OP_RNG_GET_AND_UPDATE_STATE] = {REQ(HLO_A_DELTA)},
    [HLO_OP_BATCH_NORM_TRAINING] = BATCH_NORM, [HLO_OP_BATCH_NORM_INFERENCE] = BATCH_NORM,
    [HLO_OP_BATCH_NORM_GRAD] = BATCH_NORM,
    /* collectives and communication */
    [HLO_OP_ALL_GATHER] = {REQ(HLO_A_DIMENSIONS), OPT(COLLECTIVE_GROUPS, GATHER_OPT)},
    [HLO_OP_ALL_GATHER_START] = {REQ(HLO_A_DIMENSIONS), OPT(COLLECTIVE_GROUPS, GATHER_OPT)},
    [HLO_OP_ALL_REDUCE] = {REQ(HLO_A_TO_APPLY), OPT(COLLECTIVE_GROUPS, GATHER_OPT, HLO_A_MODE)},
    [HLO_OP_ALL_REDUCE_START] = {REQ(HLO_A_TO_APPLY), OPT(COLLECTIVE_GROUPS, GATHER_OPT, HLO_A_MODE)},
    [HLO_OP_REDUCE_SCATTER] = {REQ(HLO_A_TO_APPLY, HLO_A_DIMENSIONS), OPT(COLLECTIVE_GROUPS, GATHER_OPT, HLO_A_MODE)},
    [HLO_OP_ALL_TO_ALL] = {OPT(COLLECTIVE_GROUPS, HLO_A_DIMENSIONS, HLO_A_CONSTRAIN_LAYOUT)},
    [HLO_OP_RAGGED_ALL_TO_ALL] = {OPT(COLLECTIVE_GROUPS, HLO_A_DIMENSIONS)},
    [HLO_OP_COLLECTIVE_BROADCAST] = {OPT(COLLECTIVE_GROUPS, HLO_A_HAS_DYNAMIC_ROOT)},
    [HLO_OP_COLLECTIVE_PERMUTE] = {REQ(HLO_A_SOURCE_TARGET_PAIRS), OPT(HLO_A_CHANNEL_ID, HLO_A_SLICE_SIZES)},
    [HLO_OP_COLLECTIVE_PERMUTE_START] = {REQ(HLO_A_SOURCE_TARGET_PAIRS), OPT(HLO_A_CHANNEL_ID, HLO_A_SLICE_SIZES)},
    [HLO_OP_COPY_START] = {OPT(HLO_A_CROSS_PROGRAM_PREFETCH_INDEX)},
    [HLO_OP_SEND] = CHANNEL, [HLO_OP_SEND_DONE] = CHANNEL, [HLO_OP_RECV] = CHANNEL, [HLO_OP_RECV_DONE] = CHANNEL,
    [HLO_OP_INFEED] = {OPT(HLO_A_INFEED_CONFIG)},
    [HLO_OP_OUTFEED] = {OPT(HLO_A_OUTFEED_CONFIG, HLO_A_OUTFEED_SHAPE)},
    /* opcodes of ours that XLA's parser does not build */
    [HLO_OP_ATAN] = {.unchecked = true}, [HLO_OP_COLLECTIVE_REDUCE] = {.unchecked = true},
    [HLO_OP_MULHI] = {.unchecked = true}, [HLO_OP_SHUFFLE] = {.unchecked = true},
};

static bool in_list(const hlo_attr_key *l, hlo_attr_key k) {
  for (; l && *l != END; l++)
    if (*l == k) return true;
  return false;
}

/* The operand's shape when it is known at this point (an operand written
 * later without a shape is not). */
static const hlo_shape *known_shape(const hlo_instruction *in, int k) {
  if (k >= in->noperands || !in->operands[k] || in->operands[k]->shape_omitted) return NULL;
  return &in->operands[k]->shape;
}

static const hlo_attr *find(const hlo_instruction *in, hlo_attr_key k) {
  for (int i = 0; i < in->nattrs; i++)
    if (in->attrs[i].key == k) return &in->attrs[i];
  return NULL;
}

/* Append "a, b, c" of the op's own attributes, for the message. */
static void list_allowed(char *buf, size_t cap, const op_attr_rule *r) {
  size_t n = 0;
  buf[0] = 0;
  const hlo_attr_key *lists[2] = {r->req, r->opt};
  for (int q = 0; q < 2; q++)
    for (const hlo_attr_key *l = lists[q]; l && *l != END; l++) {
      int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", hlo_attr_name(*l));
      if (w < 0 || (size_t)w >= cap - n) return;
      n += (size_t)w;
    }
}

/* A conditional's branch attributes follow its index: pred takes
 * true_computation and false_computation, s32 takes branch_computations. */
static int conditional_rule(scanner *scn, const hlo_instruction *in, op_attr_rule *r) {
  static const hlo_attr_key pred_req[] = {HLO_A_TRUE_COMPUTATION, HLO_A_FALSE_COMPUTATION, END};
  static const hlo_attr_key s32_req[] = {HLO_A_BRANCH_COMPUTATIONS, END};
  const hlo_shape *ix = known_shape(in, 0);
  if (!ix) return HLO_OK; /* index not known yet: either form */
  if (!hlo_shape_is_scalar(ix))
    return scan_errorf(scn, in->op_off, "The first operand must be a scalar (a conditional's branch index)");
  if (ix->type == HLO_PRED) {
    *r = (op_attr_rule){.req = pred_req};
  } else if (ix->type == HLO_S32) {
    *r = (op_attr_rule){.req = s32_req};
  } else {
    return scan_errorf(scn, in->op_off, "The first operand must be a scalar of PRED or S32 (a conditional's branch index), not %s",
                       hlo_type_name(ix->type));
  }
  return HLO_OK;
}

int check_instr_attrs(scanner *scn, const hlo_instruction *in, size_t attrs_at) {
  op_attr_rule r = RULES[in->op];
  if (r.unchecked) return HLO_OK;
  if (in->op == HLO_OP_CONDITIONAL && conditional_rule(scn, in, &r)) return HLO_ERR;
  const char *opname = hlo_opcode_name(in->op);
  for (int i = 0; i < in->nattrs; i++) {
    const hlo_attr *a = &in->attrs[i];
    if (a->key != HLO_A_UNKNOWN && (in_list(GENERIC, a->key) || in_list(r.req, a->key) || in_list(r.opt, a->key)))
      continue;
    char allowed[512];
    list_allowed(allowed, sizeof allowed, &r);
    if (allowed[0])
      return scan_errorf(scn, a->off, "unexpected attribute \"%s\" on %s; its own attributes are: %s", a->name,
                         opname, allowed);
    return scan_errorf(scn, a->off, "unexpected attribute \"%s\" on %s, which takes none of its own", a->name, opname);
  }
  for (const hlo_attr_key *l = r.req; l && *l != END; l++) {
    if (find(in, *l)) continue;
    if (in->op == HLO_OP_BROADCAST) {
      const hlo_shape *s = known_shape(in, 0);
      if (!s || hlo_shape_is_scalar(s)) continue; /* a scalar broadcast may leave out dimensions */
    }
    return scan_errorf(scn, attrs_at, "%s needs attribute '%s'", opname, hlo_attr_name(*l));
  }
  return HLO_OK;
}

int check_comp_attrs(scanner *scn, const hlo_computation *c) {
  for (int i = 0; i < c->nattrs; i++)
    if (c->attrs[i].key != HLO_A_EXECUTION_THREAD)
      return scan_errorf(scn, c->attrs[i].off, "unexpected attribute \"%s\" on computation '%s'; only execution_thread is allowed",
                         c->attrs[i].name, c->name);
  return HLO_OK;
}

/* The module header's attributes, by spelling (some are not in
 * hlo_attrs.def and are kept verbatim). */
static const char *const MODULE_ATTRS[] = {
    "is_scheduled", "replica_count", "num_partitions", "input_output_alias", "buffer_donor",
    "alias_passthrough_params", "entry_computation_layout", "frontend_attributes",
    "allow_spmd_sharding_propagation_to_parameters", "allow_spmd_sharding_propagation_to_output",
    "origin_recovery_table", "debug_attributes"};

int check_module_attrs(scanner *scn, const hlo_module *m) {
  for (int i = 0; i < m->nattrs; i++) {
    bool ok = false;
    for (size_t k = 0; k < sizeof MODULE_ATTRS / sizeof MODULE_ATTRS[0]; k++) ok |= strcmp(m->attrs[i].name, MODULE_ATTRS[k]) == 0;
    if (!ok) return scan_errorf(scn, m->attrs[i].off, "unexpected attribute '%s' in the module header", m->attrs[i].name);
  }
  return HLO_OK;
}
