/* cost_analysis.c - runs the cost rules over a module: one table of
 * instruction costs per computation, each computation analyzed once (callees
 * first, on demand, with cycles and runaway nesting refused), and the public
 * accessors of hlo_cost.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost_internal.h"

double cost_elems(const hlo_shape *s) {
  int64_t n;
  return hlo_shape_is_array(s) && hlo_shape_elements(s, &n) ? (double)n : 0;
}

double hlo_cost_shape_bytes(const hlo_shape *s) {
  switch (hlo_type_kind_of(s->type)) {
  case HLO_KIND_TUPLE: return 8.0 * s->ntuple;
  case HLO_KIND_TOKEN: return 0;
  case HLO_KIND_OPAQUE: return 8;
  case HLO_KIND_PRED: case HLO_KIND_SINT: case HLO_KIND_UINT: case HLO_KIND_FLOAT: case HLO_KIND_COMPLEX:
    return cost_elems(s) * hlo_type_bytes(s->type);
  }
  return 0;
}

double hlo_cost_leaf_bytes(const hlo_shape *s) {
  if (s->type != HLO_TUPLE) return hlo_shape_is_array(s) ? hlo_cost_shape_bytes(s) : 0;
  double b = 0;
  for (int i = 0; i < s->ntuple; i++) b += hlo_cost_leaf_bytes(&s->tuple[i]);
  return b;
}

const hlo_computation *cost_called(const hlo_instruction *in, hlo_attr_key k) {
  const hlo_attr *a = hlo_instr_attr(in, k);
  if (!a) return NULL;
  if (a->kind == HLO_AK_COMP) return a->u.comp;
  if (a->kind == HLO_AK_COMPS && a->u.comps.n > 0) return a->u.comps.v[0];
  return NULL;
}

/* backend_config={"known_trip_count":{"n":"6"},...}, also inside a quoted
 * string with escaped quotes. */
int64_t hlo_cost_trip_count(const hlo_instruction *w, bool *known) {
  *known = false;
  const hlo_attr *a = hlo_instr_attr(w, HLO_A_BACKEND_CONFIG);
  const char *s = a && (a->kind == HLO_AK_RAW || a->kind == HLO_AK_STRING) ? a->u.s : NULL;
  const char *k = s ? strstr(s, "known_trip_count") : NULL;
  if (!k) return 1;
  for (const char *p = k + 16; *p && *p != '}'; p++) {
    if (p[0] != 'n' || (p[-1] != '"' && p[-1] != '\'')) continue;
    p++;
    while (*p == '"' || *p == '\\' || *p == '\'' || *p == ':' || *p == ' ') p++;
    if (!isdigit((unsigned char)*p)) return 1;
    int64_t n = 0;
    for (; isdigit((unsigned char)*p); p++) {
      if (n > (INT64_MAX - 9) / 10) return 1;
      n = n * 10 + (*p - '0');
    }
    *known = true;
    return n;
  }
  return 1;
}

static void add_cost(hlo_cost *sum, const hlo_cost *c) {
  sum->flops += c->flops;
  sum->transcendentals += c->transcendentals;
  sum->bytes += c->bytes;
  sum->unknown += c->unknown;
}

int cost_computation(hlo_cost_analysis *a, const hlo_computation *c, hlo_cost *out) {
  memset(out, 0, sizeof *out);
  if (!c || c->id < 0 || c->id >= a->m->ncomps || a->m->comps[c->id] != c) return HLO_OK;
  if (a->state[c->id] == 2) {
    *out = a->sum[c->id];
    return HLO_OK;
  }
  if (a->state[c->id] == 1)
    return hlo_errorf(a->d, NULL, 0, "computation %s calls itself (directly or through others)", c->name);
  if (a->depth >= COST_MAX_DEPTH)
    return hlo_errorf(a->d, NULL, 0, "computations nest deeper than %d calls at %s", COST_MAX_DEPTH, c->name);
  a->state[c->id] = 1;
  a->depth++;
  hlo_cost *t = c->ninstrs ? hlo_arena_array(&a->arena, (size_t)c->ninstrs, sizeof *t) : NULL;
  if (c->ninstrs && !t) {
    a->depth--;
    return hlo_errorf(a->d, NULL, 0, "out of memory");
  }
  hlo_cost sum = {0, 0, 0, 0};
  for (int i = 0; i < c->ninstrs; i++) {
    if (cost_rule(a, c->instrs[i], &t[i])) {
      a->depth--;
      return HLO_ERR;
    }
    add_cost(&sum, &t[i]);
  }
  a->depth--;
  a->instr[c->id] = t;
  a->sum[c->id] = sum;
  a->state[c->id] = 2;
  *out = sum;
  return HLO_OK;
}

hlo_cost_analysis *hlo_cost_analyze(const hlo_module *m, const hlo_allocator *alloc, hlo_diags *d) {
  hlo_cost_analysis *a = hlo_malloc(alloc, sizeof *a);
  if (!a) {
    hlo_errorf(d, NULL, 0, "out of memory");
    return NULL;
  }
  memset(a, 0, sizeof *a);
  hlo_arena_init(&a->arena, alloc);
  a->m = m;
  a->d = d;
  size_t n = m->ncomps > 0 ? (size_t)m->ncomps : 1;
  a->instr = hlo_arena_array(&a->arena, n, sizeof *a->instr);
  a->sum = hlo_arena_array(&a->arena, n, sizeof *a->sum);
  a->state = hlo_arena_array(&a->arena, n, 1);
  if (!a->instr || !a->sum || !a->state) {
    hlo_errorf(d, NULL, 0, "out of memory");
    hlo_cost_analysis_free(a);
    return NULL;
  }
  for (int i = 0; i < m->ncomps; i++) {
    hlo_cost s;
    if (cost_computation(a, m->comps[i], &s)) {
      hlo_cost_analysis_free(a);
      return NULL;
    }
  }
  return a;
}

void hlo_cost_analysis_free(hlo_cost_analysis *a) {
  if (!a) return;
  const hlo_allocator *alloc = a->arena.alloc;
  hlo_arena_release(&a->arena);
  hlo_free(alloc, a);
}

hlo_cost hlo_cost_of(const hlo_cost_analysis *a, const hlo_instruction *in) {
  hlo_cost z = {0, 0, 0, 0};
  const hlo_computation *c = in ? in->parent : NULL;
  if (!c || c->id < 0 || c->id >= a->m->ncomps || a->m->comps[c->id] != c || a->state[c->id] != 2 ||
      in->id < 0 || in->id >= c->ninstrs || c->instrs[in->id] != in)
    return z;
  return a->instr[c->id][in->id];
}

hlo_cost hlo_cost_of_computation(const hlo_cost_analysis *a, const hlo_computation *c) {
  hlo_cost z = {0, 0, 0, 0};
  if (!c || c->id < 0 || c->id >= a->m->ncomps || a->m->comps[c->id] != c || a->state[c->id] != 2) return z;
  return a->sum[c->id];
}

double hlo_cost_roofline(const hlo_cost *c, double peak_gflops, double peak_gbps, bool *memory_bound) {
  double tc = peak_gflops > 0 ? c->flops / (peak_gflops * 1e9) : 0;
  double tm = peak_gbps > 0 ? c->bytes / (peak_gbps * 1e9) : 0;
  if (memory_bound) *memory_bound = tm > tc;
  return tm > tc ? tm : tc;
}
