/* fuzz_parse.c - fuzz target: the HLO text parser and printer.  Every
 * module the parser accepts must print, re-parse, and print to the same
 * text again (in XLA's default style and in the long operand-shape form). */
#include "fuzz.h"
#include "hlo/hlo_text.h"

static char *print(const hlo_module *m, const hlo_print_options *po) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  int rc = hlo_print_module(&b, m, po);
  FUZZ_CHECK(rc == HLO_OK && !b.failed, "printing failed");
  return hlo_buf_take(&b);
}

static hlo_module *parse(const char *name, const char *text, size_t len, hlo_diags *d,
                         hlo_src *src) {
  src->name = name;
  src->text = text;
  src->len = len;
  hlo_diags_init(d, NULL);
  return hlo_parse_module(src, 0, len, NULL, d, NULL);
}

static void render_diags(const hlo_diags *d) {
  for (int i = 0; i < d->n; i++) {
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    hlo_diag_render(&b, &d->v[i]);
    fwrite(b.data ? b.data : "", 1, b.len, stderr);
    hlo_buf_release(&b);
  }
}

static void round_trip(const hlo_module *m, const hlo_print_options *po) {
  char *p1 = print(m, po);
  hlo_diags d2;
  hlo_src s2;
  hlo_module *m2 = parse("printed", p1, strlen(p1), &d2, &s2);
  if (!m2) {
    render_diags(&d2);
    FUZZ_CHECK(m2, "printed module does not parse:\n%s", p1);
  }
  char *p2 = print(m2, po);
  FUZZ_CHECK(strcmp(p1, p2) == 0, "printed text changed on re-parse:\n--- first\n%s\n--- second\n%s",
             p1, p2);
  hlo_module_free(m2);
  hlo_diags_release(&d2);
  hlo_free(NULL, p1);
  hlo_free(NULL, p2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > FUZZ_MAX_INPUT) return 0;
  hlo_diags d;
  hlo_src src;
  size_t next;
  hlo_src whole = {"input", (const char *)data, size};
  size_t end = hlo_module_chunk_end(&whole, 0, &next);
  FUZZ_CHECK(end <= size && next <= size, "chunk bounds out of range");
  hlo_module *m = parse("input", (const char *)data, end, &d, &src);
  if (m) {
    hlo_print_options def = {0}, longf = {0};
    longf.operand_shapes = true;
    round_trip(m, &def);
    round_trip(m, &longf);
  }
  FUZZ_CHECK(m || d.nerrors > 0 || d.oom, "parse failed without a diagnostic");
  /* every diagnostic must render (offsets inside the source) */
  for (int i = 0; i < d.n; i++) {
    FUZZ_CHECK(!d.v[i].src || d.v[i].off <= size, "diagnostic offset %zu past the input",
               d.v[i].off);
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    hlo_diag_render(&b, &d.v[i]);
    hlo_buf_release(&b);
  }
  hlo_module_free(m);
  hlo_diags_release(&d);
  return 0;
}
