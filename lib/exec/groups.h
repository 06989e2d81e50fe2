/* groups.h - who takes part in a collective, by XLA's rules: the group mode
 * that channel_id and use_global_device_ids select, replica groups in their
 * explicit and iota forms, and the participants of one device (groups.c). */
#ifndef HLO_EXEC_GROUPS_H
#define HLO_EXEC_GROUPS_H

#include "hlo/hlo_exec.h"

typedef enum hlo_group_mode {
  HLO_GM_CROSS_REPLICA,               /* ids are replica ids, same partition */
  HLO_GM_CROSS_PARTITION,             /* ids are partition ids, same replica */
  HLO_GM_CROSS_REPLICA_AND_PARTITION, /* ids are replica ids, every partition */
  HLO_GM_FLATTENED_ID,                /* ids are replica * partitions + partition */
} hlo_group_mode;

/* The group mode of collective in; HLO_ERR with the reason in why. */
int hlo_group_mode_of(const hlo_instruction *in, hlo_group_mode *mode, char *why, size_t cap);

/* The replica groups of in as lists of ids (iota form expanded): *ngroups
 * groups, group g holding sizes[g] ids at ids[g].  Storage from A.  No
 * groups (absent or {}): *ngroups = 0.  HLO_ERR on a malformed iota form. */
int hlo_groups_expand(const hlo_instruction *in, hlo_arena *A, int *ngroups, int **sizes,
                      int64_t ***ids, char *why, size_t cap);

/* The logical devices (replica * P + partition) that take part with device
 * self in collective in, in XLA's order, into part (room for R * P), their
 * count in *n and self's position among them in *pos.  collective-permute
 * and its start form take part with every device of the same partition
 * (cross-replica) or replica (cross-partition).  HLO_ERR with the reason in
 * why (an id out of range, self in no group, ...). */
int hlo_group_participants(const hlo_instruction *in, int R, int P, int self, hlo_arena *A,
                           int *part, int *n, int *pos, char *why, size_t cap);

/* The source-target pairs of a send or recv: its frontend attribute
 * _xla_send_recv_source_target_pairs="{{s,t},...}" as *n pairs at *v
 * (storage from A; *n = -1 without the attribute).  HLO_ERR with the reason in why when the
 * attribute is malformed. */
int hlo_p2p_pairs(const hlo_instruction *in, hlo_arena *A, int *n, int64_t (**v)[2], char *why,
                  size_t cap);

#endif
