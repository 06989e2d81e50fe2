/* stack_frames.c - the stack frame index section that XLA writes between
 * the module header and the first computation when a module has one (JAX
 * dumps do), read and written as HloParserImpl::ParseStackFrameIndex and
 * HloModule::PrintStackFrameIndex do:
 *
 *   FileNames       { INT "name" }
 *   FunctionNames   { INT "name" }
 *   FileLocations   { INT '{' file_name_id=N function_name_id=N line=N
 *                           end_line=N column=N end_column=N '}' }
 *   StackFrames     { INT '{' file_location_id=N parent_frame_id=N '}' }
 *
 * The leading integers are position labels: read and ignored, as XLA does,
 * and written again as 1, 2, ...  The fields of a braced entry may come in
 * any order, are separated by blanks or commas and are all required. */
#include <string.h>

#include "text/print_internal.h"
#include "text/scan.h"

/* Append one element of size sz to the arena array *v of *n elements
 * (capacity *cap), growing it by doubling. */
static void *grow(scanner *scn, void **v, int *n, int *cap, size_t sz) {
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 8;
    if (nc < *cap) return NULL;
    void *nv = hlo_arena_array(scn->a, (size_t)nc, sz);
    if (!nv) return NULL;
    if (*n) memcpy(nv, *v, (size_t)*n * sz);
    *v = nv;
    *cap = nc;
  }
  return (char *)*v + (size_t)(*n)++ * sz;
}

/* True (and the label consumed) if an integer label comes next. */
static bool at_label(scanner *scn) {
  scan_skip(scn);
  size_t p = scn->pos;
  if (p < scn->end && scn->s[p] == '-') p++;
  if (p >= scn->end || scn->s[p] < '0' || scn->s[p] > '9') return false;
  int64_t ignored;
  return scan_int(scn, &ignored) == HLO_OK;
}

static int names(scanner *scn, const char ***out, int *n) {
  int cap = 0;
  while (at_label(scn)) {
    const char **slot = grow(scn, (void **)out, n, &cap, sizeof **out);
    if (!slot) return scan_errorf(scn, scn->pos, "out of memory");
    if (scan_string(scn, slot)) return HLO_ERR;
  }
  return HLO_OK;
}

/* '{' name=INT ... '}' with exactly the fields in keys, in any order. */
static int fields(scanner *scn, const char *const *keys, int32_t *vals, int nkeys, const char *what) {
  scan_skip(scn);
  size_t open = scn->pos;
  if (scan_expect(scn, '{', "to start sub attributes")) return HLO_ERR;
  bool seen[8] = {false};
  while (!scan_accept(scn, '}')) {
    scan_accept(scn, ','); /* XLA's sub-attributes may also be comma separated */
    scan_skip(scn);
    size_t at = scn->pos;
    const char *name;
    bool pct;
    size_t len = scan_name(scn, &name, &pct);
    int k = 0;
    while (k < nkeys && !(len == strlen(keys[k]) && memcmp(name, keys[k], len) == 0)) k++;
    if (!len || pct) return scan_errorf(scn, at, "expected an attribute name or '}' in %s", what);
    if (k == nkeys) return scan_errorf(scn, at, "unexpected attribute '%.*s' in %s", (int)len, name, what);
    if (seen[k]) return scan_errorf(scn, at, "attribute '%s' is given twice", keys[k]);
    if (scan_expect(scn, '=', "after the attribute name")) return HLO_ERR;
    scan_skip(scn);
    size_t vat = scn->pos;
    int64_t v;
    if (scan_int(scn, &v)) return HLO_ERR;
    if (v < INT32_MIN || v > INT32_MAX) return scan_errorf(scn, vat, "value out of range for int32");
    vals[k] = (int32_t)v;
    seen[k] = true;
  }
  for (int k = 0; k < nkeys; k++)
    if (!seen[k]) return scan_errorf(scn, open, "sub-attribute %s is expected but not seen in %s", keys[k], what);
  return HLO_OK;
}

int scan_stack_frames(scanner *scn, hlo_stack_frames **out) {
  *out = NULL;
  if (!scan_accept_kw(scn, "FileNames")) return HLO_OK;
  hlo_stack_frames *f = hlo_arena_alloc(scn->a, sizeof *f);
  if (!f) return scan_errorf(scn, scn->pos, "out of memory");
  memset(f, 0, sizeof *f);
  if (names(scn, &f->file_names, &f->nfile_names)) return HLO_ERR;
  scan_skip(scn);
  if (!scan_accept_kw(scn, "FunctionNames")) return scan_errorf(scn, scn->pos, "expects 'FunctionNames'");
  if (names(scn, &f->function_names, &f->nfunction_names)) return HLO_ERR;
  scan_skip(scn);
  if (!scan_accept_kw(scn, "FileLocations")) return scan_errorf(scn, scn->pos, "expects 'FileLocations'");
  static const char *const LOC[] = {"file_name_id", "function_name_id", "line", "end_line", "column", "end_column"};
  int cap = 0;
  while (at_label(scn)) {
    int32_t v[6];
    if (fields(scn, LOC, v, 6, "a file location")) return HLO_ERR;
    hlo_file_location *l = grow(scn, (void **)&f->locations, &f->nlocations, &cap, sizeof *l);
    if (!l) return scan_errorf(scn, scn->pos, "out of memory");
    *l = (hlo_file_location){v[0], v[1], v[2], v[3], v[4], v[5]};
  }
  scan_skip(scn);
  if (!scan_accept_kw(scn, "StackFrames")) return scan_errorf(scn, scn->pos, "expects 'StackFrames'");
  static const char *const FRAME[] = {"file_location_id", "parent_frame_id"};
  cap = 0;
  while (at_label(scn)) {
    int32_t v[2];
    if (fields(scn, FRAME, v, 2, "a stack frame")) return HLO_ERR;
    hlo_stack_frame *fr = grow(scn, (void **)&f->frames, &f->nframes, &cap, sizeof *fr);
    if (!fr) return scan_errorf(scn, scn->pos, "out of memory");
    *fr = (hlo_stack_frame){v[0], v[1]};
  }
  *out = f;
  return HLO_OK;
}

void hlo_text_stack_frames(hlo_buf *b, const hlo_module *m) {
  const hlo_stack_frames *f = m->stack_frames;
  if (!f) return;
  hlo_buf_puts(b, "\n\nFileNames\n");
  for (int i = 0; i < f->nfile_names; i++) {
    hlo_buf_printf(b, "%d ", i + 1);
    hlo_text_quoted(b, f->file_names[i]);
    hlo_buf_putc(b, '\n');
  }
  hlo_buf_puts(b, "\nFunctionNames\n");
  for (int i = 0; i < f->nfunction_names; i++) {
    hlo_buf_printf(b, "%d ", i + 1);
    hlo_text_quoted(b, f->function_names[i]);
    hlo_buf_putc(b, '\n');
  }
  hlo_buf_puts(b, "\nFileLocations\n");
  for (int i = 0; i < f->nlocations; i++) {
    const hlo_file_location *l = &f->locations[i];
    hlo_buf_printf(b, "%d {file_name_id=%d function_name_id=%d line=%d end_line=%d column=%d end_column=%d}\n", i + 1,
                   (int)l->file_name_id, (int)l->function_name_id, (int)l->line, (int)l->end_line, (int)l->column,
                   (int)l->end_column);
  }
  hlo_buf_puts(b, "\nStackFrames\n");
  for (int i = 0; i < f->nframes; i++)
    hlo_buf_printf(b, "%d {file_location_id=%d parent_frame_id=%d}\n", i + 1, (int)f->frames[i].file_location_id,
                   (int)f->frames[i].parent_frame_id);
}
