/* sparse_dot.c - a dot with sparsity=L.d@N:M (or R., or both, joined by _):
 * the sparse operand holds, along dimension d, N of every M values; its
 * metadata operand (u16, the operand's shape with dimension d divided by
 * 16/b, b = bits of an index below M) gives, for the k-th stored value, its
 * position within its group of M in the b bits starting at bit b*(k mod
 * 16/b) of element k div (16/b), low bits first.  The run expands the
 * stored values to the dense operand (zeros elsewhere) and runs the
 * ordinary dot kernels on it (XLA: SparsityDescriptor in xla_data.proto,
 * ShapeInference::InferSparseDotMetadataShape). */
#include <stdlib.h>
#include <string.h>

#include "exec/ccall.h"
#include "hlo/hlo_shape_infer.h"

typedef struct sparse_side {
  int dim, n, m, bits, meta;     /* meta: operand number of the metadata */
  hlo_shape dense;
} sparse_side;

typedef struct sparse_p {
  plan_step *dot;
  sparse_side side[2];
  bool has[2];
} sparse_p;

/* the dense value of a compressed operand */
static hlo_val *expand(hlo_run *r, const sparse_side *sd, const hlo_val *c, const hlo_val *meta) {
  hlo_val *d = hlo_run_new(r, &sd->dense);
  if (!d) return NULL;
  const hlo_shape *cs = c->shape;
  int64_t eb = hlo_type_bytes(cs->type), per = 16 / sd->bits;
  int64_t outer = 1, inner = 1, kc = cs->dims[sd->dim], kd = sd->dense.dims[sd->dim];
  int64_t km = meta->shape->dims[sd->dim];
  for (int i = 0; i < sd->dim; i++) outer *= cs->dims[i];
  for (int i = sd->dim + 1; i < cs->rank; i++) inner *= cs->dims[i];
  const uint16_t *mv = meta->data;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < kc; k++)
      for (int64_t i = 0; i < inner; i++) {
        uint16_t w = mv[(o * km + k / per) * inner + i];
        int64_t pos = (w >> (sd->bits * (k % per))) & ((1 << sd->bits) - 1);
        int64_t dk = (k / sd->n) * sd->m + pos;
        if (pos >= sd->m || dk >= kd) continue; /* malformed metadata: the value is dropped */
        memcpy((char *)d->data + ((o * kd + dk) * inner + i) * eb,
               (const char *)c->data + ((o * kc + k) * inner + i) * eb, (size_t)eb);
      }
  return d;
}

static DECL_KERN(sparse_dot_run) {
  const sparse_p *p = s->p;
  hlo_val *ops[2] = {args[0], args[1]}, *dense[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++)
    if (p->has[k]) {
      dense[k] = expand(r, &p->side[k], args[k], args[p->side[k].meta]);
      if (!dense[k]) {
        hlo_run_release(r, dense[0]);
        return hlo_run_errorf(r, s->in, "out of memory");
      }
      ops[k] = dense[k];
    }
  int rc = hlo_ccall_sub_run(r, p->dot, ops, out);
  hlo_run_release(r, dense[0]);
  hlo_run_release(r, dense[1]);
  return rc;
}

/* "L.1@2:4" into side k, dim, n, m; HLO_ERR if malformed */
static int parse_one(const char *t, const char **end, int *k, int *dim, int *n, int *m) {
  char *e;
  if ((t[0] != 'L' && t[0] != 'R') || t[1] != '.') return HLO_ERR;
  *k = t[0] == 'R';
  long v[3];
  t += 2;
  for (int i = 0; i < 3; i++) {
    v[i] = strtol(t, &e, 10);
    if (e == t || v[i] < 0 || v[i] > 64) return HLO_ERR;
    t = e;
    if (i < 2 && *t != (i == 0 ? '@' : ':')) return HLO_ERR;
    if (i < 2) t++;
  }
  *dim = (int)v[0], *n = (int)v[1], *m = (int)v[2];
  *end = t;
  return HLO_OK;
}

int hlo_sparse_dot_prep(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_SPARSITY);
  if (!a) return HLO_OK;
  sparse_p *p = hlo_arena_alloc(&e->arena, sizeof *p);
  hlo_instruction *f = hlo_ccall_fake(e, in, HLO_OP_DOT, &in->shape, 2);
  if (!p || !f) return HLO_PLAN_ERR(e, in, "out of memory");
  memset(p, 0, sizeof *p);
  const char *t = a->u.s ? a->u.s : "";
  if (*t == '"') t++;
  int nmeta = 0;
  while (*t && *t != '"') {
    int k, dim, n, m;
    if (parse_one(t, &t, &k, &dim, &n, &m) || p->has[k] || n < 1 || m <= n || 2 + nmeta >= in->noperands)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: sparsity=%s is not L.dim@N:M or R.dim@N:M (joined by _) "
                          "with one metadata operand each", in->name, a->u.s);
    if (*t == '_') t++;
    sparse_side *sd = &p->side[k];
    const hlo_shape *cs = &in->operands[k]->shape, *ms = &in->operands[2 + nmeta]->shape;
    sd->dim = dim, sd->n = n, sd->m = m, sd->meta = 2 + nmeta++;
    sd->bits = 1;
    while ((1 << sd->bits) < m) sd->bits++;
    int per = 16 / sd->bits;
    bool ok = dim < cs->rank && cs->dims[dim] % n == 0 && ms->type == HLO_U16 && ms->rank == cs->rank;
    for (int i = 0; ok && i < cs->rank; i++)
      ok = ms->dims[i] == (i == dim ? (cs->dims[i] + per - 1) / per : cs->dims[i]);
    if (!ok)
      return HLO_PLAN_ERR(e, in, "instruction %%%s: the metadata of sparse operand %d must be u16 of its shape "
                          "with dimension %d holding %d indices per element", in->name, k, dim, per);
    sd->dense = *cs;
    int64_t *dims = hlo_arena_array(&e->arena, (size_t)cs->rank + 1, sizeof *dims);
    if (!dims) return HLO_PLAN_ERR(e, in, "out of memory");
    memcpy(dims, cs->dims, sizeof *dims * (size_t)cs->rank);
    dims[dim] = cs->dims[dim] / n * m;
    sd->dense.dims = dims;
    sd->dense.dynamic = NULL;
    sd->dense.layout = NULL;
    hlo_instruction *o = hlo_arena_alloc(&e->arena, sizeof *o);
    if (!o) return HLO_PLAN_ERR(e, in, "out of memory");
    *o = *in->operands[k];
    o->shape = sd->dense;
    f->operands[k] = o;
    p->has[k] = true;
  }
  if (2 + nmeta != in->noperands)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: a dot with sparsity=%s takes %d operands, not %d", in->name,
                        a->u.s, 2 + nmeta, in->noperands);
  f->nattrs = 0; /* the dense dot: its dimension attributes, without sparsity */
  hlo_attr *attrs = hlo_arena_array(&e->arena, (size_t)in->nattrs + 1, sizeof *attrs);
  if (!attrs) return HLO_PLAN_ERR(e, in, "out of memory");
  for (int i = 0; i < in->nattrs; i++)
    if (in->attrs[i].key != HLO_A_SPARSITY) attrs[f->nattrs++] = in->attrs[i];
  f->attrs = attrs;
  /* the dense dot must give the declared shape: the kernel writes that many */
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_shape dense_shape;
  bool fits = hlo_infer_shape(f, &e->arena, &dense_shape, &d, NULL) == HLO_OK &&
              hlo_shape_xla_compatible(&dense_shape, &in->shape, false);
  hlo_diags_release(&d);
  if (!fits)
    return HLO_PLAN_ERR(e, in, "instruction %%%s: the dense form of this sparse dot does not give its declared shape",
                        in->name);
  p->dot = hlo_ccall_sub_step(e, f);
  if (!p->dot) return HLO_ERR;
  s->fn = sparse_dot_run;
  s->kname = "sparse_dot_run";
  s->p = p;
  return HLO_OK;
}
