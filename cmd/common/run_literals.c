/* run_literals.c - literals files and HLO snapshots as hlo-run inputs (see
 * run_literals.h). */
#include "run_literals.h"

#include <stdio.h>
#include <string.h>

int run_lit_load(const cli_tool *t, hlo_arena *A, const char *path, bool snapshot, cli_input *in, hlo_pb_run *run,
                 hlo_pb_snapshot *snap) {
  if (cli_read(t, path, in)) return CLI_USAGE;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  int rc = CLI_OK;
  if (snapshot) {
    if (hlo_pb_read_snapshot(A, &in->src, snap, &d)) rc = CLI_INVALID;
    else *run = snap->run;
  } else {
    hlo_pb_literals lits;
    if (hlo_pb_read_literals(A, &in->src, &lits, &d)) rc = CLI_INVALID;
    else *run = lits.iters[0];
    if (!rc && lits.n > 1)
      fprintf(stderr, "%s: %s holds %d iterations; the arguments of the first are used\n", t->prog, path, lits.n);
  }
  cli_print_diags(&d);
  hlo_diags_release(&d);
  return rc;
}

int run_lit_module(hlo_arena *A, const cli_input *in, const hlo_pb_snapshot *snap, cli_input *text, hlo_diags *d) {
  memset(text, 0, sizeof *text);
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  if (hlo_pb_snapshot_module_text(A, &in->src, snap, &b, d)) {
    hlo_buf_release(&b);
    return HLO_ERR;
  }
  hlo_buf name;
  hlo_buf_init(&name, NULL);
  hlo_buf_printf(&name, "%s (hlo_module as HLO text)", in->src.name);
  const char *nm = name.data ? hlo_arena_strndup(A, name.data, name.len) : NULL;
  hlo_buf_release(&name);
  if (!nm) {
    hlo_buf_release(&b);
    return hlo_errorf(d, &in->src, 0, "out of memory");
  }
  text->data = b.data; /* hlo_buf's default allocator is malloc: cli_input_release frees it */
  text->src.name = nm;
  text->src.text = b.data;
  text->src.len = b.len;
  return HLO_OK;
}

/* Copy lit into v (made with v's shape); an error into d when it does not
 * fit. */
static int fill(hlo_val *v, const hlo_pb_literal *lit, const hlo_src *src, hlo_diags *d, int i) {
  const hlo_shape *ps = v->shape;
  bool same = (ps->type == HLO_TUPLE) == lit->is_tuple;
  if (same && lit->is_tuple) {
    same = lit->ntuple == v->ntuple;
    for (int k = 0; same && k < v->ntuple; k++)
      if (fill(v->tuple[k], &lit->tuple[k], src, d, i)) return HLO_ERR;
  } else if (same) {
    same = lit->arr.type == ps->type && lit->arr.rank == ps->rank;
    for (int k = 0; same && k < ps->rank; k++) same = lit->arr.dims[k] == ps->dims[k];
  }
  if (!same) { /* "a literal of shape f32[6] given for the parameter of shape f32[3,2]" */
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    if (lit->is_tuple) {
      hlo_buf_printf(&b, "a tuple of %d elements", lit->ntuple);
    } else {
      hlo_buf_printf(&b, "a literal of shape %s[", hlo_type_name(lit->arr.type));
      for (int k = 0; k < lit->arr.rank; k++) hlo_buf_printf(&b, "%s%lld", k ? "," : "", (long long)lit->arr.dims[k]);
      hlo_buf_putc(&b, ']');
    }
    hlo_buf_puts(&b, " given for the parameter of shape ");
    hlo_print_shape(&b, ps, false);
    hlo_errorf(d, src, lit->off, "argument %d: %s", i, b.data ? b.data : "?");
    hlo_buf_release(&b);
    return HLO_ERR;
  }
  if (lit->is_tuple) return HLO_OK;
  if (v->nbytes) memcpy(v->data, lit->arr.data, v->nbytes);
  return HLO_OK;
}

hlo_val *run_lit_value(const hlo_allocator *alloc, const hlo_shape *ps, const hlo_pb_literal *lit,
                       const hlo_src *src, int i) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_val *v = hlo_val_new(alloc, ps);
  if (!v) hlo_errorf(&d, src, lit->off, "argument %d: cannot allocate its value", i);
  else if (fill(v, lit, src, &d, i)) {
    hlo_val_release(alloc, v);
    v = NULL;
  }
  cli_print_diags(&d);
  hlo_diags_release(&d);
  return v;
}

int run_lit_leaves(const hlo_pb_literal *lit, const hlo_array **out, int n, int cap) {
  if (lit->is_tuple) {
    for (int k = 0; k < lit->ntuple; k++) n = run_lit_leaves(&lit->tuple[k], out, n, cap);
    return n;
  }
  if (n < cap) out[n] = &lit->arr;
  return n + 1;
}
