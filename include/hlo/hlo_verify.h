/* hlo_verify.h - the HLO verifier: structural rules (names, operand order,
 * cycles, parameters, called-computation signatures, entry layout), every
 * shape constraint (via hlo_infer_shape) and XLA's op-specific checks.
 *
 * It reports every error of a module, each at the offending instruction's
 * source offset and naming it ("%name: ..."), with the expected and actual
 * shape where a shape is wrong.  The checks are listed in docs/verifier.md. */
#ifndef HLO_VERIFY_H
#define HLO_VERIFY_H

#include "hlo/hlo_ir.h"

/* Options mirror XLA's HloVerifierOpts. */
typedef struct hlo_verify_options {
  bool layout_sensitive;         /* compare layouts; ops that cannot change
                                    layout must keep their operands' layout */
  bool allow_mixed_precision;    /* f32/bf16/... may mix where XLA allows it */
  bool allow_unbounded_dynamism; /* accept '?' dimensions */
  int64_t replica_count;         /* 0: the module's replica_count (else 1) */
  int64_t num_partitions;        /* 0: the module's num_partitions; sharding
                                    device ids are checked only when known */
  /* XLA's other HloVerifierOpts.  The zero value of every field is XLA's
   * default, so options XLA enables by default appear negated (no_...). */
  bool verify_broadcast_dimensions_order;  /* broadcast dimensions sorted */
  bool verify_reshape_is_bitcast;          /* reshape keeps the physical order */
  bool verify_no_host_memory_space;        /* no shape in memory space S(5) */
  bool verify_instruction_name_unchanged;  /* metadata scheduling_name = name */
  bool verify_call_nested_computation_thread_name; /* call/custom-call/to_apply
                                                      threads = the caller's */
  bool allow_bitcast_to_have_different_size; /* layout-sensitive bitcast may
                                                differ in padding only */
  bool no_verify_sharding_device_numbers;  /* skip sharding device-id bounds */
  bool no_verify_unique_channel_ids;       /* accepted; XLA reads it nowhere */
  bool no_verify_s4u4_usage;               /* accepted; XLA reads it nowhere */
  bool verify_no_collective_deadlocks;     /* send/recv pairs and other
                                              collectives cannot deadlock */
  bool no_check_replica_groups;            /* skip CheckReplicaGroups */
} hlo_verify_options;

/* Verify module m (parsed and linked with hlo_module_link; shapes written or
 * filled by hlo_shape_fill_omitted).  opts may be NULL (XLA's defaults: every
 * field zero).  Every error found is recorded in d.  Returns HLO_OK if the module
 * is valid, HLO_ERR otherwise.  m is not modified. */
HLO_API int hlo_verify_module(const hlo_module *m, const hlo_verify_options *opts, hlo_diags *d,
                              const hlo_src *src);

#endif
