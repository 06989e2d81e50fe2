/* stats_report.c - the hlo-stats report: collects the rows (instructions
 * of the computations that are not fused), the top lists and the opcode
 * histogram, and writes the text and CSV forms (JSON: stats_json.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost_internal.h"

double stats_seconds(const stats_data *s, const hlo_cost *c, bool *memory_bound) {
  if (memory_bound) *memory_bound = false;
  return s->roofline ? hlo_cost_roofline(c, s->o->peak_gflops, s->o->peak_gbps, memory_bound) : 0;
}

/* An integer when the value is one (counts), else one decimal; right
 * aligned in w columns (0: as wide as it is). */
static void put_num_w(hlo_buf *b, double v, int w) {
  char t[64];
  if (v == floor(v) && fabs(v) < 1e30) snprintf(t, sizeof t, "%.0f", v);
  else snprintf(t, sizeof t, "%.1f", v);
  hlo_buf_printf(b, "%*s", w, t);
}

static void put_num(hlo_buf *b, double v) { put_num_w(b, v, 0); }

static int cmp_flops(const void *x, const void *y) {
  const stats_row *a = *(stats_row *const *)x, *b = *(stats_row *const *)y;
  if (a->cost.flops != b->cost.flops) return a->cost.flops < b->cost.flops ? 1 : -1;
  if (a->cost.bytes != b->cost.bytes) return a->cost.bytes < b->cost.bytes ? 1 : -1;
  return a < b ? -1 : a > b;
}

static int cmp_bytes(const void *x, const void *y) {
  const stats_row *a = *(stats_row *const *)x, *b = *(stats_row *const *)y;
  if (a->cost.bytes != b->cost.bytes) return a->cost.bytes < b->cost.bytes ? 1 : -1;
  if (a->cost.flops != b->cost.flops) return a->cost.flops < b->cost.flops ? 1 : -1;
  return a < b ? -1 : a > b;
}

int stats_opcode_order(const stats_data *s, int *order) {
  int n = 0;
  for (int op = 0; op < HLO_OP_COUNT; op++)
    if (s->ops[op] > 0) order[n++] = op;
  /* most frequent first, then by name (the table is sorted by name); an
   * insertion sort: at most HLO_OP_COUNT entries */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && s->ops[order[j]] > s->ops[order[j - 1]]; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  return n;
}

static void seconds_text(hlo_buf *b, double s) {
  if (s >= 1) hlo_buf_printf(b, "%.3f s", s);
  else if (s >= 1e-3) hlo_buf_printf(b, "%.3f ms", s * 1e3);
  else hlo_buf_printf(b, "%.3f us", s * 1e6);
}

static void text_top(hlo_buf *b, const stats_data *s, stats_row **v, const char *what) {
  hlo_buf_printf(b, "\ntop %d instructions by %s:\n", s->ntop, what);
  hlo_buf_printf(b, "%16s %16s %16s%s  %s\n", "FLOPs", "transcendentals", "bytes", s->roofline ? "     roofline" : "",
                 "instruction");
  for (int i = 0; i < s->ntop; i++) {
    const stats_row *r = v[i];
    put_num_w(b, r->cost.flops, 16);
    hlo_buf_putc(b, ' ');
    put_num_w(b, r->cost.transcendentals, 16);
    hlo_buf_putc(b, ' ');
    put_num_w(b, r->cost.bytes, 16);
    if (s->roofline) {
      bool mem;
      double t = stats_seconds(s, &r->cost, &mem);
      hlo_buf_printf(b, " %10.3fus%c", t * 1e6, mem ? 'M' : 'C');
    }
    hlo_buf_printf(b, "  %s/%%%s (%s)\n", r->in->parent->name, r->in->name, hlo_opcode_name(r->in->op));
  }
}

static void text_report(hlo_buf *b, const stats_data *s) {
  const hlo_module *m = s->m;
  const hlo_computation *e = m->entry;
  hlo_cost t = hlo_cost_of_computation(s->a, e);
  int nparams = 0;
  for (int i = 0; i < e->ninstrs; i++) nparams += e->instrs[i]->op == HLO_OP_PARAMETER;
  hlo_buf_printf(b, "module %s: %d computations, %d instructions\n", m->name ? m->name : "(unnamed)", m->ncomps,
                 s->ninstrs);
  hlo_buf_printf(b, "\none execution of the entry computation %s:\n", e->name);
  hlo_buf_puts(b, "  FLOPs                 ");
  put_num_w(b, t.flops, 16);
  hlo_buf_puts(b, "\n  transcendentals       ");
  put_num_w(b, t.transcendentals, 16);
  hlo_buf_puts(b, "\n  bytes accessed        ");
  put_num_w(b, t.bytes, 16);
  hlo_buf_puts(b, "\n  parameter bytes       ");
  put_num_w(b, s->p->param_bytes, 16);
  hlo_buf_printf(b, "  (%d parameter%s)", nparams, nparams == 1 ? "" : "s");
  hlo_buf_puts(b, "\n  output bytes          ");
  put_num_w(b, s->p->output_bytes, 16);
  hlo_buf_puts(b, "\n  constant bytes        ");
  put_num_w(b, s->p->constant_bytes, 16);
  hlo_buf_printf(b, "\n  unknown cost          %16d  (custom-calls: counted as 0)\n", t.unknown);
  hlo_buf_puts(b, "\npeak live memory: ");
  put_num(b, s->p->peak);
  if (s->p->at)
    hlo_buf_printf(b, " bytes at %%%s (step %d of %d, %s)", s->p->at->name, s->p->at->id + 1, e->ninstrs,
                   s->p->scheduled ? "schedule order" : "text order");
  hlo_buf_putc(b, '\n');
  if (s->p->callee_bytes > 0) {
    hlo_buf_puts(b, "  of which temporaries of called computations: ");
    put_num(b, s->p->callee_bytes);
    hlo_buf_putc(b, '\n');
  }
  hlo_buf_printf(b, "  live at the peak:\n%16s  %s\n", "bytes", "instruction");
  int shown = s->p->nlive < s->o->top ? s->p->nlive : (s->o->top > 0 ? s->o->top : 0);
  double rest = 0;
  for (int i = 0; i < s->p->nlive; i++) {
    if (i >= shown) {
      rest += s->p->live[i].bytes;
      continue;
    }
    put_num_w(b, s->p->live[i].bytes, 16);
    hlo_buf_printf(b, "  %%%s (%s)\n", s->p->live[i].def->name, hlo_opcode_name(s->p->live[i].def->op));
  }
  if (shown < s->p->nlive) {
    put_num_w(b, rest, 16);
    hlo_buf_printf(b, "  (%d more instructions; --json lists them all)\n", s->p->nlive - shown);
  }
  if (s->roofline) {
    double total = 0;
    int nmem = 0, ncomp = 0;
    for (int i = 0; i < e->ninstrs; i++) {
      bool mem;
      hlo_cost c = hlo_cost_of(s->a, e->instrs[i]);
      double sec = stats_seconds(s, &c, &mem);
      total += sec;
      if (sec > 0) mem ? nmem++ : ncomp++;
    }
    hlo_buf_printf(b, "\nroofline at %.1f GFLOP/s and %.1f GB/s (%s): ", s->o->peak_gflops, s->o->peak_gbps,
                   s->o->machine ? s->o->machine : "given");
    seconds_text(b, total);
    hlo_buf_printf(b, " for the entry's instructions, %d memory-bound, %d compute-bound\n", nmem, ncomp);
  }
  hlo_buf_printf(b, "\ncomputations:\n%16s %16s %16s %8s  %s\n", "FLOPs", "transcendentals", "bytes", "instrs",
                 "computation");
  for (int i = 0; i < m->ncomps; i++) {
    const hlo_computation *c = m->comps[i];
    hlo_cost k = hlo_cost_of_computation(s->a, c);
    put_num_w(b, k.flops, 16);
    hlo_buf_putc(b, ' ');
    put_num_w(b, k.transcendentals, 16);
    hlo_buf_putc(b, ' ');
    put_num_w(b, k.bytes, 16);
    hlo_buf_printf(b, " %8d  %s%s\n", c->ninstrs, c->name, c->is_entry ? " (entry)" : c->is_fused ? " (fused)" : "");
  }
  hlo_buf_printf(b, "\nopcodes:\n%8s  %s\n", "count", "opcode");
  int order[HLO_OP_COUNT], nops = stats_opcode_order(s, order);
  for (int k = 0; k < nops; k++)
    hlo_buf_printf(b, "%8lld  %s\n", (long long)s->ops[order[k]], hlo_opcode_name((hlo_opcode)order[k]));
  text_top(b, s, s->by_flops, "FLOPs");
  text_top(b, s, s->by_bytes, "bytes accessed");
}

static void csv_field(hlo_buf *b, const char *v) {
  hlo_buf_putc(b, '"');
  for (; *v; v++) {
    if (*v == '"') hlo_buf_putc(b, '"');
    hlo_buf_putc(b, *v);
  }
  hlo_buf_putc(b, '"');
}

static void csv_report(hlo_buf *b, const stats_data *s) {
  hlo_buf_puts(b, "computation,instruction,opcode,fused,flops,transcendentals,bytes,unknown");
  if (s->roofline) hlo_buf_puts(b, ",seconds,bound");
  hlo_buf_putc(b, '\n');
  for (int ci = 0; ci < s->m->ncomps; ci++) {
    const hlo_computation *c = s->m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      hlo_cost k = hlo_cost_of(s->a, c->instrs[i]);
      csv_field(b, c->name);
      hlo_buf_putc(b, ',');
      csv_field(b, c->instrs[i]->name);
      hlo_buf_printf(b, ",%s,%d,", hlo_opcode_name(c->instrs[i]->op), c->is_fused ? 1 : 0);
      put_num(b, k.flops);
      hlo_buf_putc(b, ',');
      put_num(b, k.transcendentals);
      hlo_buf_putc(b, ',');
      put_num(b, k.bytes);
      hlo_buf_printf(b, ",%d", k.unknown);
      if (s->roofline) {
        bool mem;
        double sec = stats_seconds(s, &k, &mem);
        hlo_buf_printf(b, ",%.6g,%s", sec, sec <= 0 ? "" : mem ? "memory" : "compute");
      }
      hlo_buf_putc(b, '\n');
    }
  }
}

int hlo_stats_render(hlo_buf *out, const hlo_module *m, const hlo_cost_analysis *a, const hlo_mem_peak *p,
                     const hlo_stats_options *o) {
  stats_data s;
  memset(&s, 0, sizeof s);
  s.m = m, s.a = a, s.p = p, s.o = o;
  s.roofline = o->peak_gflops > 0 && o->peak_gbps > 0;
  if (!m->entry) return HLO_ERR;
  int n = 0;
  for (int ci = 0; ci < m->ncomps; ci++) {
    const hlo_computation *c = m->comps[ci];
    s.ninstrs += c->ninstrs;
    for (int i = 0; i < c->ninstrs; i++) s.ops[c->instrs[i]->op]++;
    if (!c->is_fused) n += c->ninstrs;
  }
  s.rows = hlo_malloc(out->alloc, sizeof *s.rows * (size_t)(n + 1));
  s.by_flops = hlo_malloc(out->alloc, sizeof *s.by_flops * (size_t)(n + 1));
  s.by_bytes = hlo_malloc(out->alloc, sizeof *s.by_bytes * (size_t)(n + 1));
  int rc = HLO_ERR;
  if (!s.rows || !s.by_flops || !s.by_bytes) goto done;
  for (int ci = 0; ci < m->ncomps; ci++) {
    const hlo_computation *c = m->comps[ci];
    if (c->is_fused) continue;
    for (int i = 0; i < c->ninstrs; i++) {
      s.rows[s.nrows] = (stats_row){c->instrs[i], hlo_cost_of(a, c->instrs[i])};
      s.by_flops[s.nrows] = s.by_bytes[s.nrows] = &s.rows[s.nrows];
      s.nrows++;
    }
  }
  qsort(s.by_flops, (size_t)s.nrows, sizeof *s.by_flops, cmp_flops);
  qsort(s.by_bytes, (size_t)s.nrows, sizeof *s.by_bytes, cmp_bytes);
  int nonzero = 0; /* instructions that cost nothing are left out of the top lists */
  for (int i = 0; i < s.nrows; i++) nonzero += s.rows[i].cost.flops > 0 || s.rows[i].cost.bytes > 0;
  s.ntop = o->top < nonzero ? (o->top > 0 ? o->top : 0) : nonzero;
  rc = HLO_OK;
  switch (o->format) {
  case HLO_STATS_TEXT: text_report(out, &s); break;
  case HLO_STATS_CSV: csv_report(out, &s); break;
  case HLO_STATS_JSON: rc = stats_json(out, &s); break;
  }
  if (out->failed) rc = HLO_ERR;
done:
  hlo_free(out->alloc, s.rows);
  hlo_free(out->alloc, s.by_flops);
  hlo_free(out->alloc, s.by_bytes);
  return rc;
}
