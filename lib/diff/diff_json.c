/* diff_json.c - the JSON report (cJSON): inputs, equal, summary counts,
 * per-opcode counts, computation pairs and one object per instruction that
 * is not plainly unchanged (schema in docs/diff.md). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hlo/hlo_diff.h"
#include "hlo/hlo_text.h"

static cJSON *instr_obj(const hlo_instruction *in) {
  cJSON *o = cJSON_CreateObject();
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_print_instruction(&b, in, NULL);
  if (!o || b.failed || !cJSON_AddStringToObject(o, "name", in->name) ||
      !cJSON_AddStringToObject(o, "computation", in->parent->name) ||
      !cJSON_AddStringToObject(o, "opcode", hlo_opcode_name(in->op)) ||
      !cJSON_AddStringToObject(o, "text", b.data ? b.data : "")) {
    cJSON_Delete(o);
    o = NULL;
  }
  hlo_buf_release(&b);
  return o;
}

static bool add_counts(cJSON *o, const int64_t *c) {
  for (int k = 0; k < HLO_DIFF_KIND_COUNT; k++)
    if (!cJSON_AddNumberToObject(o, hlo_diff_kind_name((hlo_diff_kind)k), (double)c[k])) return false;
  return true;
}

static cJSON *entry_obj(const hlo_diff_entry *e) {
  static const struct { unsigned bit; const char *name; } WHAT[] = {
      {HLO_DIFF_OPCODE, "opcode"}, {HLO_DIFF_SHAPE, "shape"}, {HLO_DIFF_OPERANDS, "operands"},
      {HLO_DIFF_ATTRS, "attributes"}, {HLO_DIFF_RENAMED, "renamed"}, {HLO_DIFF_MOVED, "moved"}};
  static const char *const HOW[] = {"name", "structure", "unmatched"};
  cJSON *o = cJSON_CreateObject(), *w = cJSON_CreateArray();
  if (!o || !w) goto fail;
  cJSON_AddItemToObject(o, "what", w);
  if (!cJSON_AddStringToObject(o, "kind", hlo_diff_kind_name(e->kind)) ||
      !cJSON_AddStringToObject(o, "matched_by", HOW[e->how]))
    goto fail;
  for (size_t k = 0; k < sizeof WHAT / sizeof WHAT[0]; k++) {
    cJSON *s = (e->what & WHAT[k].bit) ? cJSON_CreateString(WHAT[k].name) : NULL;
    if ((e->what & WHAT[k].bit) && (!s || !cJSON_AddItemToArray(w, s))) goto fail;
  }
  if (e->attrs && !cJSON_AddStringToObject(o, "attributes", e->attrs)) goto fail;
  cJSON *a = e->a ? instr_obj(e->a) : cJSON_CreateNull(), *b = e->b ? instr_obj(e->b) : cJSON_CreateNull();
  if (a) cJSON_AddItemToObject(o, "a", a);
  if (b) cJSON_AddItemToObject(o, "b", b);
  if (!a || !b) goto fail;
  return o;
fail:
  cJSON_Delete(o);
  return NULL;
}

int hlo_diff_json(hlo_buf *out, const hlo_diff *df, const char *name_a, const char *name_b) {
  cJSON *root = cJSON_CreateObject(), *sum = cJSON_CreateObject(), *ops = cJSON_CreateObject();
  cJSON *groups = cJSON_CreateArray(), *ents = cJSON_CreateArray();
  int rc = HLO_ERR;
  if (!root || !sum || !ops || !groups || !ents) {
    cJSON_Delete(sum), cJSON_Delete(ops), cJSON_Delete(groups), cJSON_Delete(ents);
    goto done;
  }
  cJSON_AddItemToObject(root, "summary", sum);
  cJSON_AddItemToObject(root, "by_opcode", ops);
  cJSON_AddItemToObject(root, "computations", groups);
  cJSON_AddItemToObject(root, "instructions", ents);
  if (!cJSON_AddStringToObject(root, "a", name_a) || !cJSON_AddStringToObject(root, "b", name_b) ||
      !cJSON_AddBoolToObject(root, "equal", hlo_diff_equal(df)) || !add_counts(sum, df->count) ||
      !cJSON_AddNumberToObject(sum, "renamed", (double)df->renamed) ||
      !cJSON_AddNumberToObject(sum, "moved", (double)df->moved))
    goto done;
  for (int op = 0; op < HLO_OP_COUNT; op++) {
    const int64_t *c = df->by_op[op];
    if (!c[0] && !c[1] && !c[2] && !c[3]) continue;
    cJSON *o = cJSON_AddObjectToObject(ops, hlo_opcode_name((hlo_opcode)op));
    if (!o || !add_counts(o, c)) goto done;
  }
  for (int g = 0; g < df->ngroups; g++) {
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(groups, o)) {
      cJSON_Delete(o);
      goto done;
    }
    const hlo_diff_group *gr = &df->groups[g];
    if (!(gr->a ? cJSON_AddStringToObject(o, "a", gr->a->name) : cJSON_AddNullToObject(o, "a")) ||
        !(gr->b ? cJSON_AddStringToObject(o, "b", gr->b->name) : cJSON_AddNullToObject(o, "b")))
      goto done;
  }
  for (int i = 0; i < df->nentries; i++) {
    const hlo_diff_entry *e = &df->entries[i];
    if (e->kind == HLO_DIFF_UNCHANGED && !e->what) continue;
    cJSON *o = entry_obj(e);
    if (!o || !cJSON_AddItemToArray(ents, o)) {
      cJSON_Delete(o);
      goto done;
    }
  }
  char *s = cJSON_Print(root);
  if (!s) goto done;
  hlo_buf_puts(out, s);
  hlo_buf_putc(out, '\n');
  free(s);
  rc = out->failed ? HLO_ERR : HLO_OK;
done:
  cJSON_Delete(root);
  return rc;
}
