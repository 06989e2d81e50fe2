/* tables.c - lookups generated from the three .def tables: element types,
 * opcodes and attributes.  Nothing else in the library lists them. */
#include <string.h>

#include "hlo/hlo_ir.h"

typedef struct type_info {
  const char *name;
  unsigned char len;
  short bits, bytes;
  hlo_type_kind kind;
} type_info;

static const type_info TYPES[] = {
#define HLO_TYPE(e, name, bits, bytes, kind) {name, sizeof(name) - 1, bits, bytes, kind},
#include "hlo/hlo_types.def"
#undef HLO_TYPE
};
_Static_assert(sizeof TYPES / sizeof TYPES[0] == HLO_TYPE_COUNT, "type table");

typedef struct op_info {
  const char *name;
  unsigned char len;
  signed char arity;
  unsigned flags;
} op_info;

static const op_info OPS[] = {
#define HLO_OP(e, name, arity, flags) {name, sizeof(name) - 1, arity, flags},
#include "hlo/hlo_ops.def"
#undef HLO_OP
};
_Static_assert(sizeof OPS / sizeof OPS[0] == HLO_OP_COUNT, "opcode table");

typedef struct attr_info {
  const char *name;
  unsigned char len;
  hlo_attr_kind kind;
} attr_info;

static const attr_info ATTRS[] = {
#define HLO_ATTR(e, name, kind) {name, sizeof(name) - 1, kind},
#include "hlo/hlo_attrs.def"
#undef HLO_ATTR
};
_Static_assert(sizeof ATTRS / sizeof ATTRS[0] == HLO_ATTR_COUNT, "attribute table");

const char *hlo_type_name(hlo_type t) {
  return (unsigned)t < HLO_TYPE_COUNT ? TYPES[t].name : "?";
}

bool hlo_type_lookup(const char *s, size_t n, hlo_type *out) {
  if (n < 2) return false;
  if (n == 3 && s[1] >= '1' && s[1] <= '6' && s[2] >= '0' && s[2] <= '9') {
    /* the common f32, s64, u16, ...: no table walk */
    int bits = (s[1] - '0') * 10 + (s[2] - '0');
    hlo_type t = HLO_TYPE_COUNT;
    switch (s[0]) {
    case 'f': t = bits == 16 ? HLO_F16 : bits == 32 ? HLO_F32 : bits == 64 ? HLO_F64 : t; break;
    case 's': t = bits == 16 ? HLO_S16 : bits == 32 ? HLO_S32 : bits == 64 ? HLO_S64 : t; break;
    case 'u': t = bits == 16 ? HLO_U16 : bits == 32 ? HLO_U32 : bits == 64 ? HLO_U64 : t; break;
    case 'c': t = bits == 64 ? HLO_C64 : t; break;
    default: break;
    }
    if (t != HLO_TYPE_COUNT) {
      *out = t;
      return true;
    }
  }
  /* the candidates sharing the first letter (enum order groups them) */
  int lo = 0, hi = HLO_TYPE_COUNT;
  switch (s[0]) {
  case 'p': lo = HLO_PRED; hi = HLO_PRED + 1; break;
  case 's': lo = HLO_S1; hi = HLO_S64 + 1; break;
  case 'u': lo = HLO_U1; hi = HLO_U64 + 1; break;
  case 'b': lo = HLO_BF16; hi = HLO_BF16 + 1; break;
  case 'c': lo = HLO_C64; hi = HLO_C128 + 1; break;
  case 'f': lo = HLO_F16; hi = HLO_F4E2M1FN + 1; break;
  default: break;
  }
  for (int i = lo; i < hi; i++) {
    if (TYPES[i].len != n || i == HLO_TUPLE) continue;
    size_t k = 1;
    while (k < n && TYPES[i].name[k] == s[k]) k++;
    if (k == n && TYPES[i].name[0] == s[0]) {
      *out = (hlo_type)i;
      return true;
    }
  }
  return false;
}

int hlo_type_bits(hlo_type t) { return (unsigned)t < HLO_TYPE_COUNT ? TYPES[t].bits : 0; }
int hlo_type_bytes(hlo_type t) { return (unsigned)t < HLO_TYPE_COUNT ? TYPES[t].bytes : 0; }
hlo_type_kind hlo_type_kind_of(hlo_type t) {
  return (unsigned)t < HLO_TYPE_COUNT ? TYPES[t].kind : HLO_KIND_OPAQUE;
}
bool hlo_type_is_array(hlo_type t) {
  hlo_type_kind k = hlo_type_kind_of(t);
  return k != HLO_KIND_TOKEN && k != HLO_KIND_OPAQUE && k != HLO_KIND_TUPLE;
}
bool hlo_type_is_float(hlo_type t) { return hlo_type_kind_of(t) == HLO_KIND_FLOAT; }
bool hlo_type_is_int(hlo_type t) {
  hlo_type_kind k = hlo_type_kind_of(t);
  return k == HLO_KIND_SINT || k == HLO_KIND_UINT;
}

const char *hlo_opcode_name(hlo_opcode op) {
  return (unsigned)op < HLO_OP_COUNT ? OPS[op].name : "?";
}

bool hlo_opcode_lookup(const char *s, size_t n, hlo_opcode *out) {
  for (int i = 0; i < HLO_OP_COUNT; i++) {
    if (OPS[i].len == n && OPS[i].name[0] == s[0] && memcmp(OPS[i].name, s, n) == 0) {
      *out = (hlo_opcode)i;
      return true;
    }
  }
  return false;
}

int hlo_opcode_arity(hlo_opcode op) { return (unsigned)op < HLO_OP_COUNT ? OPS[op].arity : 0; }
unsigned hlo_opcode_flags(hlo_opcode op) {
  return (unsigned)op < HLO_OP_COUNT ? OPS[op].flags : 0;
}

const char *hlo_attr_name(hlo_attr_key k) {
  return (unsigned)k < HLO_ATTR_COUNT ? ATTRS[k].name : "?";
}

bool hlo_attr_lookup(const char *s, size_t n, hlo_attr_key *out) {
  for (int i = 0; i < HLO_ATTR_COUNT; i++) {
    if (ATTRS[i].len == n && ATTRS[i].name[0] == s[0] && memcmp(ATTRS[i].name, s, n) == 0) {
      *out = (hlo_attr_key)i;
      return true;
    }
  }
  return false;
}

hlo_attr_kind hlo_attr_kind_of(hlo_attr_key k) {
  return (unsigned)k < HLO_ATTR_COUNT ? ATTRS[k].kind : HLO_AK_RAW;
}
