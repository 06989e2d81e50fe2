/* diag.c - diagnostics: recording them with a source offset, and rendering
 * them as "file:line:col: error: msg" plus the source line and a caret. */
#include <stdio.h>
#include <string.h>

#include "hlo/hlo_core.h"

hlo_loc hlo_src_loc_from(const hlo_src *src, size_t off, size_t from, hlo_loc at) {
  if (off > src->len) off = src->len;
  if (from > off) { /* behind: count from the start */
    from = 0;
    at.line = at.col = 1;
  }
  const char *t = src->text;
  size_t line_start = from - (at.col - 1);
  for (const char *p = t + from; (p = memchr(p, '\n', (size_t)(t + off - p))) != NULL; p++) {
    at.line++;
    line_start = (size_t)(p - t) + 1;
  }
  at.col = (uint32_t)(off - line_start + 1);
  return at;
}

hlo_loc hlo_src_loc(const hlo_src *src, size_t off) {
  hlo_loc start = {1, 1};
  return hlo_src_loc_from(src, off, 0, start);
}

void hlo_diags_init(hlo_diags *d, const hlo_allocator *alloc) {
  memset(d, 0, sizeof *d);
  d->alloc = alloc;
}

void hlo_diags_release(hlo_diags *d) {
  for (int i = 0; i < d->n; i++) hlo_free(d->alloc, d->v[i].msg);
  hlo_free(d->alloc, d->v);
  d->v = NULL;
  d->n = d->cap = d->nerrors = 0;
}

int hlo_vdiagf(hlo_diags *d, hlo_severity sev, const hlo_src *src, size_t off,
               const char *fmt, va_list ap) {
  if (!d) return HLO_ERR;
  if (sev == HLO_SEV_ERROR) d->nerrors++;
  if (d->max_errors && sev == HLO_SEV_ERROR && d->nerrors > d->max_errors) return HLO_ERR;
  if (d->n == d->cap) {
    int cap = d->cap ? d->cap * 2 : 8;
    hlo_diag *v = hlo_realloc(d->alloc, d->v, (size_t)cap * sizeof *v);
    if (!v) {
      d->oom = true;
      return HLO_ERR;
    }
    d->v = v;
    d->cap = cap;
  }
  hlo_buf b;
  hlo_buf_init(&b, d->alloc);
  hlo_buf_vprintf(&b, fmt, ap);
  char *msg = hlo_buf_take(&b);
  if (!msg) {
    d->oom = true;
    return HLO_ERR;
  }
  d->v[d->n++] = (hlo_diag){sev, src, off, msg};
  return HLO_ERR;
}

int hlo_errorf(hlo_diags *d, const hlo_src *src, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hlo_vdiagf(d, HLO_SEV_ERROR, src, off, fmt, ap);
  va_end(ap);
  return HLO_ERR;
}

void hlo_warnf(hlo_diags *d, const hlo_src *src, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hlo_vdiagf(d, HLO_SEV_WARNING, src, off, fmt, ap);
  va_end(ap);
}

void hlo_notef(hlo_diags *d, const hlo_src *src, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hlo_vdiagf(d, HLO_SEV_NOTE, src, off, fmt, ap);
  va_end(ap);
}

static const char *sev_name(hlo_severity s) {
  switch (s) {
  case HLO_SEV_ERROR: return "error";
  case HLO_SEV_WARNING: return "warning";
  case HLO_SEV_NOTE: return "note";
  }
  return "error";
}

/* Print the source line holding off, with control bytes shown as '?', then a
 * caret under the column. */
static void render_line(hlo_buf *b, const hlo_src *src, size_t off) {
  if (off > src->len) off = src->len;
  size_t s = off, e = off;
  while (s > 0 && src->text[s - 1] != '\n') s--;
  while (e < src->len && src->text[e] != '\n') e++;
  if (e - s > 400) { /* keep huge lines readable: a window around off */
    size_t ws = off > 200 ? off - 200 : s;
    if (ws < s) ws = s;
    size_t we = ws + 400 < e ? ws + 400 : e;
    s = ws;
    e = we;
  }
  for (size_t i = s; i < e; i++) {
    unsigned char c = (unsigned char)src->text[i];
    hlo_buf_putc(b, (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c);
  }
  hlo_buf_putc(b, '\n');
  for (size_t i = s; i < off; i++) hlo_buf_putc(b, src->text[i] == '\t' ? '\t' : ' ');
  hlo_buf_puts(b, "^\n");
}

void hlo_diag_render(hlo_buf *b, const hlo_diag *d) {
  hlo_loc loc = {1, 1};
  if (d->src) loc = hlo_src_loc(d->src, d->off);
  hlo_diag_render_loc(b, d, loc);
}

void hlo_diag_render_loc(hlo_buf *b, const hlo_diag *d, hlo_loc loc) {
  if (d->src) {
    hlo_buf_printf(b, "%s:%u:%u: %s: %s\n", d->src->name, loc.line, loc.col,
                   sev_name(d->sev), d->msg);
    render_line(b, d->src, d->off);
  } else {
    hlo_buf_printf(b, "%s: %s\n", sev_name(d->sev), d->msg);
  }
}
