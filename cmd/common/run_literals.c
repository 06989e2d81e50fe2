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

static void shape_text(const hlo_shape *s, char *buf, size_t len) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_print_shape(&b, s, false);
  snprintf(buf, len, "%s", b.data ? b.data : "?");
  hlo_buf_release(&b);
}

/* Copy lit into v (made with v's shape); an error into d when it does not
 * fit. */
static int fill(hlo_val *v, const hlo_pb_literal *lit, const hlo_src *src, hlo_diags *d, int i) {
  const hlo_shape *ps = v->shape;
  char st[256];
  shape_text(ps, st, sizeof st);
  if (ps->type == HLO_TUPLE || lit->is_tuple) {
    if (ps->type != HLO_TUPLE || !lit->is_tuple || lit->ntuple != v->ntuple)
      return hlo_errorf(d, src, lit->off, "argument %d: a %s of %d elements given for the parameter of shape %s", i,
                        lit->is_tuple ? "tuple" : "array", lit->is_tuple ? lit->ntuple : 1, st);
    for (int k = 0; k < v->ntuple; k++)
      if (fill(v->tuple[k], &lit->tuple[k], src, d, i)) return HLO_ERR;
    return HLO_OK;
  }
  bool same = lit->arr.type == ps->type && lit->arr.rank == ps->rank;
  for (int k = 0; same && k < ps->rank; k++) same = lit->arr.dims[k] == ps->dims[k];
  if (!same) {
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    hlo_buf_puts(&b, hlo_type_name(lit->arr.type));
    hlo_buf_putc(&b, '[');
    for (int k = 0; k < lit->arr.rank; k++) hlo_buf_printf(&b, "%s%lld", k ? "," : "", (long long)lit->arr.dims[k]);
    hlo_buf_putc(&b, ']');
    hlo_errorf(d, src, lit->off, "argument %d: a literal of shape %s given for the parameter of shape %s", i,
               b.data ? b.data : "?", st);
    hlo_buf_release(&b);
    return HLO_ERR;
  }
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
