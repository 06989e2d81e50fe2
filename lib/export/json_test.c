/* json_test.c - unit tests of the hlo-json writer and reader: the text
 * printed from a module read back from JSON equals the text printed from
 * the parsed module, for every module of the corpus; the JSON of the
 * re-read module equals the first JSON; malformed documents give errors
 * that name the place. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_json.h"
#include "hlo/hlo_text.h"
#include "testing.h"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return s;
}

static char *print_module(const hlo_module *m) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_print_module(&b, m, NULL);
  return hlo_buf_take(&b);
}

static char *to_json(hlo_module *m) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_json_write(&b, &m, 1, NULL);
  return hlo_buf_take(&b);
}

static int roundtrips, skipped;

static void roundtrip_file(const char *path) {
  size_t len;
  char *text = slurp(path, &len);
  if (!text) return;
  hlo_src src = {path, text, len};
  size_t begin = 0;
  for (;;) {
    size_t next, end = hlo_module_chunk_end(&src, begin, &next);
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_module *m = hlo_parse_module(&src, begin, end, NULL, &d, NULL);
    if (!m) {
      skipped++;
    } else {
      char *want = print_module(m);
      char *json = to_json(m);
      hlo_src jsrc = {"json", json, strlen(json)};
      hlo_module *back = hlo_json_read(&jsrc, NULL, &d);
      if (!back) {
        printf("%s@%zu: JSON did not read back:\n", path, begin);
        for (int i = 0; i < d.n; i++) printf("  %s\n", d.v[i].msg);
        CHECK(back != NULL);
      } else {
        char *got = print_module(back);
        if (strcmp(got, want) != 0) {
          size_t k = 0;
          while (got[k] && got[k] == want[k]) k++;
          printf("%s@%zu: text differs at byte %zu: want [%.60s] got [%.60s]\n", path, begin, k,
                 want + k, got + k);
        }
        CHECK_INT(strcmp(got, want) == 0, 1);
        char *json2 = to_json(back);
        CHECK_INT(strcmp(json, json2) == 0, 1);
        free(json2);
        free(got);
        hlo_module_free(back);
        roundtrips++;
      }
      free(want);
      free(json);
      hlo_module_free(m);
    }
    hlo_diags_release(&d);
    if (next >= len || next <= begin) break;
    begin = next;
  }
  free(text);
}

/* A malformed document must fail with a message containing `want`. */
static void bad(const char *doc, const char *want) {
  hlo_src src = {"bad.json", doc, strlen(doc)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_json_read(&src, NULL, &d);
  CHECK(m == NULL);
  bool found = false;
  for (int i = 0; i < d.n; i++) found |= strstr(d.v[i].msg, want) != NULL;
  if (!found) printf("bad(): no diagnostic containing [%s] for %s (got %s)\n", want, doc, d.n ? d.v[0].msg : "none");
  CHECK(found);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

#define HEAD "{\"format\":\"hlo-json\",\"version\":1,\"modules\":[{\"computations\":[{\"name\":\"c\",\"instructions\":["
#define TAIL "]}]}]}"
#define P0 "{\"name\":\"p\",\"opcode\":\"parameter\",\"parameter_number\":0,\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"operands\":[]}"

static void test_bad_inputs(void) {
  bad("{", "invalid JSON");
  bad("[1,2]", "not an hlo-json document");
  bad("{\"format\":\"hlo-json\",\"version\":7,\"modules\":[]}", "unsupported hlo-json version");
  bad("{\"format\":\"hlo-json\",\"version\":1,\"modules\":[]}", "non-empty array");
  bad(HEAD "{\"name\":\"x\",\"opcode\":\"frobnicate\",\"shape\":{\"type\":\"f32\",\"dims\":[]},\"operands\":[]}" TAIL,
      "unknown opcode \"frobnicate\"");
  bad(HEAD P0 ",{\"name\":\"n\",\"opcode\":\"negate\",\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"operands\":[\"q\"]}" TAIL,
      "unknown instruction \"q\"");
  bad(HEAD P0 ",{\"name\":\"n\",\"opcode\":\"negate\",\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"operands\":[\"p\",\"p\"]}" TAIL,
      "negate takes 1 operands, not 2");
  bad(HEAD P0 "," P0 TAIL, "duplicate instruction name \"p\"");
  bad(HEAD "{\"name\":\"p\",\"opcode\":\"parameter\",\"parameter_number\":0,\"shape\":{\"type\":\"f33\",\"dims\":[2]},\"operands\":[]}" TAIL,
      "unknown element type \"f33\"");
  bad(HEAD "{\"name\":\"p\",\"opcode\":\"parameter\",\"parameter_number\":0,\"shape\":{\"type\":\"f32\",\"dims\":[-2]},\"operands\":[]}" TAIL,
      "negative dimension");
  bad(HEAD "{\"name\":\"p\",\"opcode\":\"parameter\",\"parameter_number\":0,\"shape\":{\"type\":\"f32\",\"dims\":[2.5]},\"operands\":[]}" TAIL,
      "not an exact integer");
  bad(HEAD "{\"name\":\"k\",\"opcode\":\"constant\",\"shape\":{\"type\":\"f32\",\"dims\":[]},\"operands\":[],"
           "\"literal\":{\"shape\":{\"type\":\"f32\",\"dims\":[]},\"nelems\":1,\"data\":\"0000\"}}" TAIL,
      "4 hex digits for 1 elements of 4 bytes");
  bad(HEAD P0 ",{\"name\":\"n\",\"opcode\":\"negate\",\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"operands\":[\"p\"],"
           "\"attrs\":[{\"name\":\"to_apply\",\"kind\":\"computation\",\"value\":\"nowhere\"}]}" TAIL,
      "unknown computation \"nowhere\"");
  bad(HEAD P0 ",{\"name\":\"n\",\"opcode\":\"negate\",\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"operands\":[\"p\"],"
           "\"attrs\":[{\"name\":\"dimensions\",\"kind\":\"vector\",\"value\":[1]}]}" TAIL,
      "unknown attribute kind");
  bad(HEAD "{\"name\":\"p\",\"opcode\":\"parameter\",\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"operands\":[]}" TAIL,
      "missing field \"parameter_number\"");
  bad(HEAD P0 ",{\"name\":\"n\",\"opcode\":\"negate\",\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"operands\":[\"p\"],"
           "\"attrs\":[{\"name\":\"window\",\"kind\":\"ints\",\"value\":[1]}]}" TAIL,
      "attribute window must have kind \"window\", not \"ints\"");
  bad(HEAD "{\"name\":\"k\",\"opcode\":\"constant\",\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"operands\":[],"
           "\"literal\":{\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"nelems\":2}}" TAIL,
      "literal: no \"data\"");
  bad(HEAD "{\"name\":\"p\",\"opcode\":\"parameter\",\"parameter_number\":0,\"shape\":{\"type\":\"f32\",\"dims\":[2,3],"
           "\"layout\":{\"minor_to_major\":[1,1]}},\"operands\":[]}" TAIL,
      "minor_to_major is not a permutation");
  /* the message carries the JSON path */
  bad(HEAD P0 ",{\"name\":\"n\",\"opcode\":\"negate\",\"shape\":{\"type\":\"f32\",\"dims\":[2]},\"operands\":[\"zz\"]}" TAIL,
      "modules[0].computations[0].instructions[1].operands");
}

/* Known values, written by hand: the JSON of a tiny module. */
static void test_known_shape(void) {
  const char *text = "HloModule m\n\nENTRY e {\n  p = f32[2,3]{0,1} parameter(0)\n"
                     "  ROOT t = f32[3,2]{1,0} transpose(p), dimensions={1,0}\n}\n";
  hlo_src src = {"t.hlo", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  CHECK(m != NULL);
  if (!m) return;
  char *json = to_json(m);
  CHECK(strstr(json, "\"shape\":{\"type\":\"f32\",\"dims\":[2,3],\"layout\":{\"minor_to_major\":[0,1]}}") != NULL);
  CHECK(strstr(json, "{\"name\":\"dimensions\",\"kind\":\"ints\",\"value\":[1,0]}") != NULL);
  CHECK(strstr(json, "\"operands\":[\"p\"]") != NULL);
  CHECK(strstr(json, "\"root\":\"t\"") != NULL);
  free(json);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

/* An allocator that fails every allocation after the first `budget`. */
typedef struct failing {
  long budget;
} failing;
static void *f_alloc(void *ud, size_t n) {
  failing *f = ud;
  return f->budget-- > 0 ? malloc(n) : NULL;
}
static void *f_realloc(void *ud, void *p, size_t n) {
  failing *f = ud;
  return f->budget-- > 0 ? realloc(p, n) : NULL;
}
static void f_free(void *ud, void *p) {
  (void)ud;
  free(p);
}

/* Reading fails cleanly (NULL, an error, nothing leaked) when any one of its
 * allocations fails, and succeeds once enough are allowed; every prefix of
 * a document is rejected without a crash. */
static void test_failures(void) {
  const char *path = "../shared/corpus/xla__hlo__translate__hlo_to_mhlo__tests__case_conditional.hlo";
  size_t len;
  char *text = slurp(path, &len);
  CHECK(text != NULL);
  if (!text) return;
  hlo_src src = {path, text, len};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, len, NULL, &d, NULL);
  CHECK(m != NULL);
  char *json = m ? to_json(m) : NULL;
  hlo_module_free(m);
  free(text);
  if (!json) return;
  hlo_src jsrc = {"j.json", json, strlen(json)};
  int failures = 0;
  bool done = false;
  for (long budget = 0; budget < 100000 && !done; budget++) {
    failing f = {budget};
    hlo_allocator a = {f_alloc, f_realloc, f_free, &f};
    hlo_diags d2;
    hlo_diags_init(&d2, NULL);
    hlo_module *back = hlo_json_read(&jsrc, &a, &d2);
    if (back) {
      done = true;
      hlo_module_free(back);
    } else {
      failures++;
      if (d2.nerrors == 0 && !d2.oom) CHECK(d2.nerrors > 0); /* a failure must say so */
    }
    hlo_diags_release(&d2);
  }
  CHECK(done);
  CHECK(failures >= 1); /* the arena takes memory in large blocks: few allocations */
  int rejected = 0;
  for (size_t n = 0; n < jsrc.len; n += 7) { /* truncated documents */
    hlo_src cut = {"cut.json", json, n};
    hlo_module *back = hlo_json_read(&cut, NULL, &d);
    rejected += back == NULL;
    hlo_module_free(back);
  }
  CHECK_INT(rejected, (int)((jsrc.len + 6) / 7));
  hlo_diags_release(&d);
  free(json);
}

int main(void) {
  test_failures();
  test_bad_inputs();
  test_known_shape();
  const char *dir = "../shared/corpus";
  DIR *dp = opendir(dir);
  CHECK(dp != NULL);
  if (dp) {
    struct dirent *e;
    char path[1024];
    while ((e = readdir(dp))) {
      size_t n = strlen(e->d_name);
      if (n < 5 || strcmp(e->d_name + n - 4, ".hlo") != 0) continue;
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      roundtrip_file(path);
    }
    closedir(dp);
  }
  printf("json round trips: %d modules, %d not parsed\n", roundtrips, skipped);
  CHECK(roundtrips >= 30);
  TEST_MAIN_END("export/json");
}
