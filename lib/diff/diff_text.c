/* diff_text.c - the text report: per computation pair a "@@" header, then
 * "-" lines (removed, or the old text of a changed instruction), "+" lines
 * (added, or the new text), "#" lines saying what changed, was renamed or
 * moved, unchanged lines only when asked; then the counts in total and per
 * opcode. */
#include <string.h>

#include "hlo/hlo_diff.h"
#include "hlo/hlo_text.h"

static const hlo_print_options PO = {.short_form = false};

static void line(hlo_buf *b, const char *prefix, const hlo_instruction *in) {
  hlo_buf_puts(b, prefix);
  hlo_print_instruction(b, in, &PO);
  hlo_buf_putc(b, '\n');
}

static void what_text(hlo_buf *b, const hlo_diff_entry *e) {
  const char *sep = "";
  if (e->what & HLO_DIFF_OPCODE) hlo_buf_printf(b, "%sopcode %s -> %s", sep, hlo_opcode_name(e->a->op), hlo_opcode_name(e->b->op)), sep = ", ";
  if (e->what & HLO_DIFF_SHAPE) {
    hlo_buf_printf(b, "%sshape ", sep);
    hlo_print_shape(b, &e->a->shape, true);
    hlo_buf_puts(b, " -> ");
    hlo_print_shape(b, &e->b->shape, true);
    sep = ", ";
  }
  if (e->what & HLO_DIFF_OPERANDS) hlo_buf_printf(b, "%soperands", sep), sep = ", ";
  if (e->what & HLO_DIFF_ATTRS) hlo_buf_printf(b, "%sattributes %s", sep, e->attrs ? e->attrs : "parameter number"), sep = ", ";
}

static void notes(hlo_buf *b, const hlo_diff_entry *e) {
  if (e->what & HLO_DIFF_RENAMED) hlo_buf_printf(b, "# %%%s renamed %%%s\n", e->a->name, e->b->name);
  if (e->what & HLO_DIFF_MOVED)
    hlo_buf_printf(b, "# %%%s moved from %%%s to %%%s\n", e->b->name, e->a->parent->name, e->b->parent->name);
}

int hlo_diff_text(hlo_buf *out, const hlo_diff *df, const char *name_a, const char *name_b, bool all) {
  hlo_buf_printf(out, "--- %s\n+++ %s\n", name_a, name_b);
  int e = 0;
  for (int g = 0; g < df->ngroups; g++) {
    const hlo_diff_group *gr = &df->groups[g];
    int start = e, shown = 0, quiet = 0;
    while (e < df->nentries && df->entries[e].group == g) e++;
    for (int k = start; k < e; k++) {
      const hlo_diff_entry *x = &df->entries[k];
      shown += all || x->kind != HLO_DIFF_UNCHANGED || x->what;
    }
    if (!shown && gr->a && gr->b) continue; /* an unchanged pair of computations */
    hlo_buf_puts(out, "@@ ");
    hlo_buf_puts(out, gr->a ? "-%" : "-(none)");
    if (gr->a) hlo_buf_puts(out, gr->a->name);
    hlo_buf_puts(out, gr->b ? " +%" : " +(none)");
    if (gr->b) hlo_buf_puts(out, gr->b->name);
    hlo_buf_puts(out, " @@\n");
    for (int k = start; k < e; k++) {
      const hlo_diff_entry *x = &df->entries[k];
      switch (x->kind) {
      case HLO_DIFF_REMOVED: line(out, "-", x->a); break;
      case HLO_DIFF_ADDED: line(out, "+", x->b); break;
      case HLO_DIFF_CHANGED:
        hlo_buf_printf(out, "# %%%s changed: ", x->b->name);
        what_text(out, x);
        hlo_buf_putc(out, '\n');
        notes(out, x);
        line(out, "-", x->a);
        line(out, "+", x->b);
        break;
      case HLO_DIFF_UNCHANGED:
        notes(out, x);
        if (all) line(out, " ", x->b);
        else quiet++;
        break;
      case HLO_DIFF_KIND_COUNT: break;
      }
    }
    if (quiet) hlo_buf_printf(out, "# %d unchanged\n", quiet);
  }
  hlo_buf_printf(out, "summary: %lld unchanged, %lld changed, %lld added, %lld removed (%lld renamed, %lld moved)\n",
                 (long long)df->count[HLO_DIFF_UNCHANGED], (long long)df->count[HLO_DIFF_CHANGED],
                 (long long)df->count[HLO_DIFF_ADDED], (long long)df->count[HLO_DIFF_REMOVED],
                 (long long)df->renamed, (long long)df->moved);
  hlo_buf_printf(out, "%-24s %9s %9s %9s %9s\n", "opcode", "unchanged", "changed", "added", "removed");
  for (int op = 0; op < HLO_OP_COUNT; op++) {
    const int64_t *c = df->by_op[op];
    if (!c[0] && !c[1] && !c[2] && !c[3]) continue;
    hlo_buf_printf(out, "%-24s %9lld %9lld %9lld %9lld\n", hlo_opcode_name((hlo_opcode)op), (long long)c[0],
                   (long long)c[1], (long long)c[2], (long long)c[3]);
  }
  return out->failed ? HLO_ERR : HLO_OK;
}
