/* fuse_report.c - the fusion report: the list of decisions (fusions made,
 * candidates rejected and why) and the instruction/fusion counts. */
#include <string.h>

#include "fuse/fuse_internal.h"

void hlo_fuse_report_init(hlo_fuse_report *r, const hlo_allocator *alloc) {
  memset(r, 0, sizeof *r);
  hlo_arena_init(&r->arena, alloc);
}

void hlo_fuse_report_release(hlo_fuse_report *r) {
  hlo_arena_release(&r->arena);
  memset(r, 0, sizeof *r);
}

int fuse_report_add(hlo_fuse_report *r, hlo_fuse_verdict v, const char *comp, const char *producer,
                    const char *consumer, const char *fusion, double util) {
  if (r->nevents == r->capevents) {
    int nc = r->capevents ? r->capevents * 2 : 32;
    hlo_fuse_event *e = hlo_arena_array(&r->arena, (size_t)nc, sizeof *e);
    if (!e) return HLO_ERR;
    if (r->nevents) memcpy(e, r->events, (size_t)r->nevents * sizeof *e);
    r->events = e;
    r->capevents = nc;
  }
  hlo_fuse_event *e = &r->events[r->nevents++];
  e->verdict = v;
  e->computation = comp;
  e->producer = producer;
  e->consumer = consumer;
  e->fusion = fusion;
  e->utilization = util;
  e->sibling = false;
  return HLO_OK;
}

static void count_comp(const hlo_computation *c, hlo_fuse_counts *k, bool fused) {
  for (int i = 0; i < c->ninstrs; i++) {
    const hlo_instruction *in = c->instrs[i];
    if (fused) {
      k->fused_instrs++;
    } else {
      k->instructions++;
      if (in->op == HLO_OP_FUSION) k->fusions++;
    }
  }
}

hlo_fuse_counts hlo_fuse_count(const hlo_module *m) {
  hlo_fuse_counts k = {0, 0, 0};
  for (int i = 0; i < m->ncomps; i++) count_comp(m->comps[i], &k, m->comps[i]->is_fused);
  return k;
}
