/* mesh.h - XLA's rules for device meshes, axis references, mesh-based
 * ("named") shardings and mesh-axes replica groups (mesh.c): validity,
 * canonical text, and the explicit forms XLA derives from them (the tile
 * assignment of V3ToV2Sharding, the groups of flattened_replica_groups). */
#ifndef HLO_IR_MESH_H
#define HLO_IR_MESH_H

#include "hlo/hlo_ir.h"

/* Meshes with more devices than this are kept and printed, but not expanded
 * into device lists (a mesh-axes replica group over one is an error). */
#define HLO_MESH_MAX_EXPAND ((int64_t)1 << 20)

/* Check a parsed mesh (XLA's Mesh::Validate and the iota transform's
 * consistency), canonicalize its iota device_ids and set ndevices.
 * HLO_ERR with the reason in why. */
int hlo_mesh_finish(hlo_mesh *m, char *why, size_t cap);

/* The device at row-major position i of the mesh. */
int64_t hlo_mesh_device(const hlo_mesh *m, int64_t i);

/* The number of devices an axis reference spans. */
int64_t hlo_axis_ref_size(const hlo_mesh *m, const hlo_axis_ref *r);

/* XLA's VerifyNamedSharding and the Manual() precondition; HLO_ERR with
 * the reason in why. */
int hlo_named_sharding_check(const hlo_named_sharding *ns, char *why, size_t cap);

/* XLA's ValidateSpanOfAxes (mesh-axes replica groups). */
int hlo_mesh_axes_check(const hlo_mesh *m, const hlo_axis_list *axes, char *why, size_t cap);

/* XLA's NamedSharding predicates. */
bool hlo_named_is_replicated(const hlo_named_sharding *ns);
bool hlo_named_is_manual(const hlo_named_sharding *ns);
bool hlo_named_is_unreduced(const hlo_named_sharding *ns);

/* Canonical text, as XLA's ToString prints it. */
void hlo_mesh_print(hlo_buf *b, const hlo_mesh *m);
void hlo_named_sharding_print(hlo_buf *b, const hlo_named_sharding *ns);
void hlo_mesh_groups_print(hlo_buf *b, const hlo_mesh_groups *g);

/* Fill s's kind and tiling fields from s->named the way XLA's
 * V3ToV2Sharding does (device list materialized unless the mesh is larger
 * than HLO_MESH_MAX_EXPAND).  HLO_ERR only when out of memory. */
int hlo_named_sharding_tiling(hlo_arena *a, hlo_sharding *s);

/* Fill g's explicit groups from g->mesh (XLA's flattened_replica_groups).
 * HLO_ERR with the reason in why (mesh too large, out of memory). */
int hlo_mesh_groups_expand(hlo_arena *a, hlo_replica_groups *g, char *why, size_t cap);

#endif
