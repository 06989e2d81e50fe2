/* json_names.c - the JSON spellings of attribute value kinds and sharding
 * kinds (exhaustive switches, so a new kind cannot be forgotten), and the
 * number conventions of docs/json.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export/json_names.h"

const char *hlo_json_kind_name(hlo_attr_kind k) {
  switch (k) {
  case HLO_AK_INT: return "int";
  case HLO_AK_BOOL: return "bool";
  case HLO_AK_FLOAT: return "float";
  case HLO_AK_STRING: return "string";
  case HLO_AK_WORD: return "word";
  case HLO_AK_INTS: return "ints";
  case HLO_AK_BOOLS: return "bools";
  case HLO_AK_WORDS: return "words";
  case HLO_AK_COMP: return "computation";
  case HLO_AK_COMPS: return "computations";
  case HLO_AK_INSTRS: return "instructions";
  case HLO_AK_WINDOW: return "window";
  case HLO_AK_CONV_DNUMS: return "conv_dnums";
  case HLO_AK_SLICES: return "slices";
  case HLO_AK_PADDING: return "padding";
  case HLO_AK_REPLICA_GROUPS: return "replica_groups";
  case HLO_AK_PAIRS: return "pairs";
  case HLO_AK_SHAPE: return "shape";
  case HLO_AK_SHAPES: return "shapes";
  case HLO_AK_SHARDING: return "sharding";
  case HLO_AK_PROGRAM_SHAPE: return "program_shape";
  case HLO_AK_LITERAL: return "literal";
  case HLO_AK_ALIASING: return "aliasing";
  case HLO_AK_RAW: return "raw";
  case HLO_AK_INT_LISTS: return "int_lists";
  }
  return "?";
}

bool hlo_json_kind_lookup(const char *s, hlo_attr_kind *out) {
  for (int k = 0; k < HLO_JSON_KIND_COUNT; k++) {
    if (strcmp(hlo_json_kind_name((hlo_attr_kind)k), s) == 0) {
      *out = (hlo_attr_kind)k;
      return true;
    }
  }
  return false;
}

const char *hlo_json_shard_name(hlo_sharding_kind k) {
  switch (k) {
  case HLO_SHARD_REPLICATED: return "replicated";
  case HLO_SHARD_MAXIMAL: return "maximal";
  case HLO_SHARD_MANUAL: return "manual";
  case HLO_SHARD_UNKNOWN: return "unknown";
  case HLO_SHARD_TILED: return "tiled";
  case HLO_SHARD_TUPLE: return "tuple";
  case HLO_SHARD_OTHER: return "other";
  }
  return "?";
}

bool hlo_json_shard_lookup(const char *s, hlo_sharding_kind *out) {
  for (int k = 0; k < HLO_JSON_SHARD_COUNT; k++) {
    if (strcmp(hlo_json_shard_name((hlo_sharding_kind)k), s) == 0) {
      *out = (hlo_sharding_kind)k;
      return true;
    }
  }
  return false;
}

#define EXACT_LIMIT 9007199254740992LL /* 2^53 */

cJSON *hlo_json_int(int64_t v) {
  if (v >= -EXACT_LIMIT && v <= EXACT_LIMIT) return cJSON_CreateNumber((double)v);
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%lld", (long long)v);
  return cJSON_CreateString(tmp);
}

cJSON *hlo_json_float(double v) {
  if (isnan(v)) return cJSON_CreateString(signbit(v) ? "-nan" : "nan");
  if (isinf(v)) return cJSON_CreateString(v < 0 ? "-inf" : "inf");
  if (v == 0 && signbit(v)) return cJSON_CreateString("-0");
  return cJSON_CreateNumber(v);
}
