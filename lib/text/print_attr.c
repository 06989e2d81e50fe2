/* print_attr.c - the text of attribute values, one printer per
 * hlo_attr_kind, in XLA's spelling (window, dim_labels, padding, slices,
 * replica groups, program shapes, ...). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ir/mesh.h"
#include "text/print_internal.h"

static void ints(hlo_buf *b, const int64_t *v, int n, const char *sep) {
  for (int i = 0; i < n; i++) {
    if (i) hlo_buf_puts(b, sep);
    hlo_buf_put_i64(b, v[i]);
  }
}

static void braced_ints(hlo_buf *b, const int64_t *v, int n) {
  hlo_buf_putc(b, '{');
  ints(b, v, n, ",");
  hlo_buf_putc(b, '}');
}

static void comp_name(hlo_buf *b, const hlo_computation *c, const hlo_print_options *o) {
  if (!o->short_form) hlo_buf_putc(b, '%');
  hlo_buf_puts(b, c ? c->name : "?");
}

/* C-style escapes as XLA's CEscape writes them. */
void hlo_text_quoted(hlo_buf *b, const char *s) {
  hlo_buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '\n': hlo_buf_puts(b, "\\n"); break;
    case '\r': hlo_buf_puts(b, "\\r"); break;
    case '\t': hlo_buf_puts(b, "\\t"); break;
    case '"': hlo_buf_puts(b, "\\\""); break;
    case '\'': hlo_buf_puts(b, "\\'"); break;
    case '\\': hlo_buf_puts(b, "\\\\"); break;
    default:
      if (*p < 0x20 || *p >= 0x7f) hlo_buf_printf(b, "\\%03o", *p);
      else hlo_buf_putc(b, (char)*p);
    }
  }
  hlo_buf_putc(b, '"');
}

static void window(hlo_buf *b, const hlo_window *w) {
  bool stride = false, pad = false, lhs = false, rhs = false, rev = false;
  for (int i = 0; i < w->n; i++) {
    const hlo_window_dim *d = &w->dims[i];
    stride |= d->stride != 1;
    pad |= d->pad_lo != 0 || d->pad_hi != 0;
    lhs |= d->lhs_dilate != 1;
    rhs |= d->rhs_dilate != 1;
    rev |= d->reversal;
  }
  hlo_buf_puts(b, "{size=");
  for (int i = 0; i < w->n; i++) hlo_buf_printf(b, i ? "x%" PRId64 : "%" PRId64, w->dims[i].size);
  if (stride) {
    hlo_buf_puts(b, " stride=");
    for (int i = 0; i < w->n; i++) hlo_buf_printf(b, i ? "x%" PRId64 : "%" PRId64, w->dims[i].stride);
  }
  if (pad) {
    hlo_buf_puts(b, " pad=");
    for (int i = 0; i < w->n; i++)
      hlo_buf_printf(b, "%s%" PRId64 "_%" PRId64, i ? "x" : "", w->dims[i].pad_lo, w->dims[i].pad_hi);
  }
  if (lhs) {
    hlo_buf_puts(b, " lhs_dilate=");
    for (int i = 0; i < w->n; i++) hlo_buf_printf(b, i ? "x%" PRId64 : "%" PRId64, w->dims[i].lhs_dilate);
  }
  if (rhs) {
    hlo_buf_puts(b, " rhs_dilate=");
    for (int i = 0; i < w->n; i++) hlo_buf_printf(b, i ? "x%" PRId64 : "%" PRId64, w->dims[i].rhs_dilate);
  }
  if (rev) {
    hlo_buf_puts(b, " rhs_reversal=");
    for (int i = 0; i < w->n; i++) hlo_buf_printf(b, i ? "x%d" : "%d", w->dims[i].reversal ? 1 : 0);
  }
  hlo_buf_putc(b, '}');
}

/* One side of dim_labels as ConvolutionDimensionNumbersToString writes
 * it: as long as the highest dimension named plus one, '?' where no role
 * names a position, spatial dimensions by their decimal number. */
static void labels(hlo_buf *b, int64_t pa, int64_t pb, char ca, char cb, const int64_t *sp, int nsp) {
  int64_t len = (pa > pb ? pa : pb) + 1;
  for (int i = 0; i < nsp; i++)
    if (sp[i] + 1 > len) len = sp[i] + 1;
  for (int64_t d = 0; d < len && d < 4096; d++) {
    int role = -1;
    for (int i = 0; i < nsp && role < 0; i++)
      if (sp[i] == d) role = i;
    if (d == pa) hlo_buf_putc(b, ca);
    else if (d == pb) hlo_buf_putc(b, cb);
    else if (role >= 0) hlo_buf_printf(b, "%d", role);
    else hlo_buf_putc(b, '?');
  }
}

static void conv_dnums(hlo_buf *b, const hlo_conv_dnums *c) {
  labels(b, c->in_batch, c->in_feature, 'b', 'f', c->in_spatial, c->nspatial);
  hlo_buf_putc(b, '_');
  labels(b, c->kernel_in, c->kernel_out, 'i', 'o', c->kernel_spatial, c->nspatial);
  hlo_buf_puts(b, "->");
  labels(b, c->out_batch, c->out_feature, 'b', 'f', c->out_spatial, c->nspatial);
}

static void groups(hlo_buf *b, const hlo_replica_groups *g) {
  if (g->mesh) {
    hlo_mesh_groups_print(b, g->mesh);
    return;
  }
  if (g->iota) {
    hlo_buf_putc(b, '[');
    ints(b, g->iota_shape, g->niota_shape, ",");
    hlo_buf_puts(b, "]<=[");
    ints(b, g->iota_reshape, g->niota_reshape, ",");
    hlo_buf_putc(b, ']');
    if (g->niota_perm) {
      hlo_buf_puts(b, "T(");
      ints(b, g->iota_perm, g->niota_perm, ",");
      hlo_buf_putc(b, ')');
    }
    return;
  }
  hlo_buf_putc(b, '{');
  for (int i = 0; i < g->ngroups; i++) {
    if (i) hlo_buf_putc(b, ',');
    braced_ints(b, g->groups[i], g->group_sizes[i]);
  }
  hlo_buf_putc(b, '}');
}

int hlo_print_attr_value(hlo_buf *b, const hlo_attr *a, const hlo_print_options *o) {
  static const hlo_print_options dflt = {0};
  if (!o) o = &dflt;
  switch (a->kind) {
  case HLO_AK_INT:
    hlo_buf_put_i64(b, a->u.i);
    break;
  case HLO_AK_BOOL:
    hlo_buf_puts(b, a->u.b ? "true" : "false");
    break;
  case HLO_AK_FLOAT: /* absl::StrCat's six significant digits */
    hlo_buf_printf(b, "%g", a->u.f);
    break;
  case HLO_AK_STRING:
    hlo_text_quoted(b, a->u.s);
    break;
  case HLO_AK_WORD:
  case HLO_AK_RAW:
    hlo_buf_puts(b, a->u.s);
    break;
  case HLO_AK_INTS:
    braced_ints(b, a->u.ints.v, a->u.ints.n);
    break;
  case HLO_AK_BOOLS:
    hlo_buf_putc(b, '{');
    for (int i = 0; i < a->u.bools.n; i++) hlo_buf_printf(b, "%s%s", i ? "," : "", a->u.bools.v[i] ? "true" : "false");
    hlo_buf_putc(b, '}');
    break;
  case HLO_AK_WORDS:
    hlo_buf_putc(b, '{');
    for (int i = 0; i < a->u.words.n; i++) hlo_buf_printf(b, "%s%s", i ? "," : "", a->u.words.v[i]);
    hlo_buf_putc(b, '}');
    break;
  case HLO_AK_COMP:
    comp_name(b, a->u.comp, o);
    break;
  case HLO_AK_COMPS:
    if (a->u.comps.braced) hlo_buf_putc(b, '{');
    for (int i = 0; i < a->u.comps.n; i++) {
      if (i) hlo_buf_puts(b, ", ");
      comp_name(b, a->u.comps.v[i], o);
    }
    if (a->u.comps.braced) hlo_buf_putc(b, '}');
    break;
  case HLO_AK_INSTRS:
    hlo_buf_putc(b, '{');
    for (int i = 0; i < a->u.instrs.n; i++) {
      if (i) hlo_buf_puts(b, ", ");
      if (!o->short_form) hlo_buf_putc(b, '%');
      hlo_buf_puts(b, a->u.instrs.v[i]->name);
    }
    hlo_buf_putc(b, '}');
    break;
  case HLO_AK_WINDOW:
    window(b, &a->u.window);
    break;
  case HLO_AK_CONV_DNUMS:
    conv_dnums(b, a->u.conv);
    break;
  case HLO_AK_SLICES: {
    /* XLA writes strides for every dimension or, when all are 1, for none */
    bool strides = false;
    for (int i = 0; i < a->u.slices.n; i++) strides |= a->u.slices.v[i].stride != 1;
    hlo_buf_putc(b, '{');
    for (int i = 0; i < a->u.slices.n; i++) {
      const hlo_slice_dim *s = &a->u.slices.v[i];
      hlo_buf_printf(b, "%s[%" PRId64 ":%" PRId64, i ? ", " : "", s->start, s->limit);
      if (strides) hlo_buf_printf(b, ":%" PRId64, s->stride);
      hlo_buf_putc(b, ']');
    }
    hlo_buf_putc(b, '}');
    break;
  }
  case HLO_AK_PADDING: {
    /* likewise interior padding: for every dimension or, when all are 0, for none */
    bool interior = false;
    for (int i = 0; i < a->u.padding.n; i++) interior |= a->u.padding.dims[i].interior != 0;
    for (int i = 0; i < a->u.padding.n; i++) {
      const hlo_pad_dim *d = &a->u.padding.dims[i];
      hlo_buf_printf(b, "%s%" PRId64 "_%" PRId64, i ? "x" : "", d->lo, d->hi);
      if (interior) hlo_buf_printf(b, "_%" PRId64, d->interior);
    }
    break;
  }
  case HLO_AK_REPLICA_GROUPS:
  case HLO_AK_INT_LISTS: /* collective-permute's slice_sizes={{1,8},{2,8}} */
    groups(b, a->u.groups);
    break;
  case HLO_AK_PAIRS:
    hlo_buf_putc(b, '{');
    for (int i = 0; i < a->u.pairs.n; i++)
      hlo_buf_printf(b, "%s{%" PRId64 ",%" PRId64 "}", i ? "," : "", a->u.pairs.v[i][0], a->u.pairs.v[i][1]);
    hlo_buf_putc(b, '}');
    break;
  case HLO_AK_SHAPE:
    hlo_print_shape(b, a->u.shape, true);
    break;
  case HLO_AK_SHAPES:
    hlo_buf_putc(b, '{');
    for (int i = 0; i < a->u.shapes.n; i++) {
      if (i) hlo_buf_puts(b, ", ");
      hlo_print_shape(b, &a->u.shapes.v[i], true);
    }
    hlo_buf_putc(b, '}');
    break;
  case HLO_AK_SHARDING:
    hlo_buf_puts(b, a->u.sharding->text);
    break;
  case HLO_AK_ALIASING:
    hlo_buf_puts(b, a->u.aliasing.text);
    break;
  case HLO_AK_LITERAL:
    hlo_text_literal(b, a->u.literal, o, true); /* LiteralBase::PrintWithLayoutOneline */
    break;
  case HLO_AK_PROGRAM_SHAPE:
    /* ComputationLayout::Print: parameters separated as tuple elements are */
    hlo_buf_puts(b, "{(");
    for (int i = 0; i < a->u.pshape->nparams; i++) {
      hlo_text_list_sep(b, i);
      hlo_print_shape(b, &a->u.pshape->params[i], true);
    }
    hlo_buf_puts(b, ")->");
    hlo_print_shape(b, &a->u.pshape->result, true);
    hlo_buf_putc(b, '}');
    break;
  }
  return b->failed ? HLO_ERR : HLO_OK;
}
