/* hlo_types.h - the element types of HLO as enums (one per line of
 * hlo_types.def) and their kinds.  Kept apart from hlo_ir.h so that the core
 * (hlo_fp.h, lib/core) names element types without depending on the IR; the
 * functions on types (names, widths) are declared in hlo_ir.h. */
#ifndef HLO_TYPES_H
#define HLO_TYPES_H

typedef enum hlo_type_kind {
  HLO_KIND_PRED, HLO_KIND_SINT, HLO_KIND_UINT, HLO_KIND_FLOAT,
  HLO_KIND_COMPLEX, HLO_KIND_TOKEN, HLO_KIND_OPAQUE, HLO_KIND_TUPLE
} hlo_type_kind;

typedef enum hlo_type {
#define HLO_TYPE(e, name, bits, bytes, kind) HLO_##e,
#include "hlo/hlo_types.def"
#undef HLO_TYPE
  HLO_TYPE_COUNT
} hlo_type;

#endif
