/* stats_json.c - the hlo-stats report as one JSON object (cJSON): totals,
 * peak memory with the buffers live there, roofline, per computation and
 * per instruction costs, the opcode histogram and the top lists. */
#include <cjson/cJSON.h>
#include <string.h>

#include "cost/cost_internal.h"

static cJSON *cost_obj(const stats_data *s, const hlo_cost *c) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddNumberToObject(o, "flops", c->flops);
  cJSON_AddNumberToObject(o, "transcendentals", c->transcendentals);
  cJSON_AddNumberToObject(o, "bytes", c->bytes);
  if (c->unknown) cJSON_AddNumberToObject(o, "unknown", c->unknown);
  if (s->roofline) {
    bool mem;
    double sec = stats_seconds(s, c, &mem);
    cJSON_AddNumberToObject(o, "seconds", sec);
    if (sec > 0) cJSON_AddStringToObject(o, "bound", mem ? "memory" : "compute");
  }
  return o;
}

static cJSON *instr_obj(const stats_data *s, const hlo_instruction *in, const hlo_cost *c) {
  cJSON *o = cost_obj(s, c);
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "name", in->name);
  cJSON_AddStringToObject(o, "computation", in->parent->name);
  cJSON_AddStringToObject(o, "opcode", hlo_opcode_name(in->op));
  return o;
}

static cJSON *top_list(const stats_data *s, stats_row **v) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < s->ntop; i++) cJSON_AddItemToArray(a, instr_obj(s, v[i]->in, &v[i]->cost));
  return a;
}

int stats_json(hlo_buf *out, const stats_data *s) {
  const hlo_module *m = s->m;
  cJSON *root = cJSON_CreateObject();
  if (!root) return HLO_ERR;
  if (m->name) cJSON_AddStringToObject(root, "module", m->name);
  cJSON_AddStringToObject(root, "entry", m->entry->name);
  hlo_cost t = hlo_cost_of_computation(s->a, m->entry);
  cJSON_AddItemToObject(root, "totals", cost_obj(s, &t));
  cJSON_AddNumberToObject(root, "instructions", s->ninstrs);
  cJSON_AddNumberToObject(root, "parameter_bytes", s->p->param_bytes);
  cJSON_AddNumberToObject(root, "output_bytes", s->p->output_bytes);
  cJSON_AddNumberToObject(root, "constant_bytes", s->p->constant_bytes);
  cJSON *pk = cJSON_AddObjectToObject(root, "peak_memory");
  if (pk) {
    cJSON_AddNumberToObject(pk, "bytes", s->p->peak);
    if (s->p->at) cJSON_AddStringToObject(pk, "at", s->p->at->name);
    cJSON_AddNumberToObject(pk, "step", s->p->at ? s->p->at->id : -1);
    cJSON_AddStringToObject(pk, "order", s->p->scheduled ? "schedule" : "text");
    cJSON_AddNumberToObject(pk, "callee_bytes", s->p->callee_bytes);
    cJSON *lv = cJSON_AddArrayToObject(pk, "live");
    for (int i = 0; lv && i < s->p->nlive; i++) {
      cJSON *o = cJSON_CreateObject();
      if (!o) break;
      cJSON_AddStringToObject(o, "name", s->p->live[i].def->name);
      cJSON_AddStringToObject(o, "opcode", hlo_opcode_name(s->p->live[i].def->op));
      cJSON_AddNumberToObject(o, "bytes", s->p->live[i].bytes);
      cJSON_AddItemToArray(lv, o);
    }
  }
  if (s->roofline) {
    cJSON *r = cJSON_AddObjectToObject(root, "roofline");
    double total = 0;
    for (int i = 0; i < m->entry->ninstrs; i++) {
      hlo_cost c = hlo_cost_of(s->a, m->entry->instrs[i]);
      total += stats_seconds(s, &c, NULL);
    }
    if (r) {
      cJSON_AddNumberToObject(r, "peak_gflops", s->o->peak_gflops);
      cJSON_AddNumberToObject(r, "peak_gbps", s->o->peak_gbps);
      cJSON_AddStringToObject(r, "machine", s->o->machine ? s->o->machine : "given");
      cJSON_AddNumberToObject(r, "seconds", total);
    }
  }
  cJSON *comps = cJSON_AddArrayToObject(root, "computations");
  for (int ci = 0; comps && ci < m->ncomps; ci++) {
    const hlo_computation *c = m->comps[ci];
    hlo_cost k = hlo_cost_of_computation(s->a, c);
    cJSON *co = cost_obj(s, &k);
    if (!co) break;
    cJSON_AddStringToObject(co, "name", c->name);
    cJSON_AddStringToObject(co, "kind", c->is_entry ? "entry" : c->is_fused ? "fused" : "called");
    cJSON *ins = cJSON_AddArrayToObject(co, "instructions");
    for (int i = 0; ins && i < c->ninstrs; i++) {
      hlo_cost ic = hlo_cost_of(s->a, c->instrs[i]);
      cJSON_AddItemToArray(ins, instr_obj(s, c->instrs[i], &ic));
    }
    cJSON_AddItemToArray(comps, co);
  }
  cJSON *ops = cJSON_AddObjectToObject(root, "opcodes");
  int order[HLO_OP_COUNT], nops = stats_opcode_order(s, order);
  for (int k = 0; ops && k < nops; k++)
    cJSON_AddNumberToObject(ops, hlo_opcode_name((hlo_opcode)order[k]), (double)s->ops[order[k]]);
  cJSON_AddItemToObject(root, "top_flops", top_list(s, s->by_flops));
  cJSON_AddItemToObject(root, "top_bytes", top_list(s, s->by_bytes));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) return HLO_ERR;
  hlo_buf_puts(out, text);
  hlo_buf_putc(out, '\n');
  cJSON_free(text);
  return HLO_OK;
}
