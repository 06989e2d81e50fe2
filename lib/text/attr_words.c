/* attr_words.c - the words an enumerated attribute may take, as XLA's
 * parser reads them (exact words, or any letter case where XLA looks the
 * word up lowercased), each stored in the spelling XLA prints it with;
 * and which values XLA leaves out when printing (the enum's default; a
 * compare's type when it is the default for its operands). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "text/attr_rules.h"

typedef struct word_rule {
  hlo_attr_key key;
  hlo_opcode op;      /* HLO_OP_COUNT: any opcode that takes the attribute */
  bool fold_case;     /* XLA lowercases the word before its lookup */
  const char *what;   /* for messages */
  const char *dflt;   /* the value XLA does not print, or NULL */
  const char *words[16]; /* printed spellings, NULL-terminated */
} word_rule;

static const word_rule RULES[] = {
    {HLO_A_DIRECTION, HLO_OP_COUNT, false, "comparison direction", NULL, {"EQ", "NE", "GE", "GT", "LE", "LT"}},
    {HLO_A_TYPE, HLO_OP_COMPARE, false, "comparison type", NULL, {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}},
    {HLO_A_KIND, HLO_OP_FUSION, false, "fusion kind", NULL, {"kLoop", "kInput", "kOutput", "kCustom"}},
    {HLO_A_FFT_TYPE, HLO_OP_COUNT, false, "fft type", NULL, {"FFT", "IFFT", "RFFT", "IRFFT"}},
    {HLO_A_PADDING_TYPE, HLO_OP_COUNT, false, "padding type", "PADDING_INVALID",
     {"PADDING_INVALID", "PADDING_VALID", "PADDING_SAME"}},
    {HLO_A_CONV_KIND, HLO_OP_COUNT, false, "convolution kind", "unset", {"fprop", "wgrad", "dgrad", "unset"}},
    {HLO_A_DISTRIBUTION, HLO_OP_COUNT, true, "random distribution", NULL,
     {"rng_invalid", "rng_uniform", "rng_normal"}},
    {HLO_A_ALGORITHM, HLO_OP_RNG_BIT_GENERATOR, true, "random algorithm", NULL,
     {"rng_default", "rng_three_fry", "rng_philox"}},
    {HLO_A_ALGORITHM, HLO_OP_COUNT, true, "algorithm", "unset",
     {"unset", "dot_any_f8_any_f8_f32", "dot_any_f8_any_f8_f32_fast_accum", "dot_f16_f16_f16", "dot_f16_f16_f32",
      "dot_bf16_bf16_bf16", "dot_bf16_bf16_f32", "dot_bf16_bf16_f32_x3", "dot_bf16_bf16_f32_x6",
      "dot_bf16_bf16_f32_x9", "dot_tf32_tf32_f32", "dot_tf32_tf32_f32_x3", "dot_f32_f32_f32", "dot_f64_f64_f64"}},
    {HLO_A_CUSTOM_CALL_SCHEDULE, HLO_OP_COUNT, true, "custom-call schedule", "SCHEDULE_NONE",
     {"SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"}},
    {HLO_A_OPERAND_PRECISION, HLO_OP_COUNT, true, "precision", "default", {"default", "high", "highest"}},
};

static const word_rule *rule_for(const hlo_instruction *in, hlo_attr_key k) {
  for (size_t i = 0; i < sizeof RULES / sizeof *RULES; i++)
    if (RULES[i].key == k && (RULES[i].op == HLO_OP_COUNT || RULES[i].op == in->op)) return &RULES[i];
  return NULL;
}

/* The printed spelling of w under r, or NULL if r does not take it. */
static const char *lookup(const word_rule *r, const char *w) {
  for (int i = 0; r->words[i]; i++)
    if (r->fold_case ? !strcasecmp(r->words[i], w) : !strcmp(r->words[i], w)) return r->words[i];
  return NULL;
}

static int unknown_word(scanner *scn, const hlo_attr *a, const word_rule *r, const char *w) {
  char list[320];
  size_t n = 0;
  list[0] = 0;
  for (int i = 0; r->words[i] && n < sizeof list - 40; i++)
    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", r->words[i]);
  return scan_errorf(scn, a->off, "unknown %s '%s' for '%s'; expected one of %s%s", r->what, w, a->name, list,
                     r->fold_case ? " (in any letter case)" : "");
}

int check_attr_words(scanner *scn, hlo_instruction *in) {
  int rc = HLO_OK;
  for (int i = 0; i < in->nattrs; i++) {
    hlo_attr *a = &in->attrs[i];
    const word_rule *r = rule_for(in, a->key);
    if (!r) continue;
    if (a->kind == HLO_AK_WORD && a->u.s) {
      const char *w = lookup(r, a->u.s);
      if (!w) rc = unknown_word(scn, a, r, a->u.s);
      else a->u.s = w;
    } else if (a->kind == HLO_AK_WORDS) {
      for (int k = 0; k < a->u.words.n; k++) {
        const char *w = lookup(r, a->u.words.v[k]);
        if (!w) rc = unknown_word(scn, a, r, a->u.words.v[k]);
        else a->u.words.v[k] = w;
      }
    }
  }
  return rc;
}

/* Comparison::DefaultComparisonType of the operands' element type. */
static const char *default_compare_type(const hlo_instruction *in) {
  if (in->noperands < 1 || !in->operands[0] || in->operands[0]->shape_omitted) return NULL;
  switch (hlo_type_kind_of(in->operands[0]->shape.type)) {
  case HLO_KIND_FLOAT: case HLO_KIND_COMPLEX: return "FLOAT";
  case HLO_KIND_SINT: return "SIGNED";
  case HLO_KIND_UINT: case HLO_KIND_PRED: return "UNSIGNED";
  default: return NULL;
  }
}

bool attr_word_is_default(const hlo_instruction *in, const hlo_attr *a) {
  if (in->op == HLO_OP_COMPARE && a->key == HLO_A_TYPE) {
    const char *d = default_compare_type(in);
    return d && a->kind == HLO_AK_WORD && a->u.s && !strcmp(a->u.s, d);
  }
  const word_rule *r = rule_for(in, a->key);
  if (!r || !r->dflt) return false;
  if (a->kind == HLO_AK_WORD) return a->u.s && !strcmp(a->u.s, r->dflt);
  if (a->kind != HLO_AK_WORDS) return false;
  for (int k = 0; k < a->u.words.n; k++)
    if (strcmp(a->u.words.v[k], r->dflt)) return false;
  return true;
}
