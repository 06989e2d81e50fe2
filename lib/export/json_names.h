/* json_names.h - spellings shared by the JSON writer and reader: attribute
 * value kinds and sharding kinds, plus the exact-integer convention (numbers
 * up to 2^53 in magnitude, decimal strings beyond). */
#ifndef HLO_EXPORT_JSON_NAMES_H
#define HLO_EXPORT_JSON_NAMES_H

#include <cjson/cJSON.h>

#include "hlo/hlo_ir.h"

#define HLO_JSON_KIND_COUNT ((int)HLO_AK_INT_LISTS + 1)
#define HLO_JSON_SHARD_COUNT ((int)HLO_SHARD_OTHER + 1)

const char *hlo_json_kind_name(hlo_attr_kind k);
bool hlo_json_kind_lookup(const char *s, hlo_attr_kind *out);
const char *hlo_json_shard_name(hlo_sharding_kind k);
bool hlo_json_shard_lookup(const char *s, hlo_sharding_kind *out);

/* An int64 as a JSON value: a number when |v| <= 2^53, else a string. */
cJSON *hlo_json_int(int64_t v);
/* A double: a number, or "nan", "-nan", "inf", "-inf", "-0" strings. */
cJSON *hlo_json_float(double v);

#endif
