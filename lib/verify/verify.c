/* verify.c - hlo_verify_module: runs the structural checks, then for every
 * instruction the shape check (inferred vs declared, XLA's CheckShape),
 * the called-computation signatures, the op-specific checks and sharding;
 * and XLA's module-wide passes (verify_module.c). */
#include <stdio.h>
#include <string.h>

#include "verify/verify_internal.h"

/* "%name: <message>", then XLA's RET_CHECK text when cond is given. */
static void vfail(vctx *v, const hlo_instruction *in, const char *cond, const char *fmt, va_list ap) {
  hlo_buf b;
  hlo_buf_init(&b, v->d->alloc);
  hlo_buf_vprintf(&b, fmt, ap);
  if (cond) hlo_buf_printf(&b, " [XLA: RET_CHECK failure: %s]", cond);
  v->nerr++;
  hlo_errorf(v->d, v->src, in->off, "%%%s: %s", in->name ? in->name : "?",
             b.data && !b.failed ? b.data : "(out of memory)");
  hlo_buf_release(&b);
}

void vx_fail(vctx *v, const hlo_instruction *in, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(v, in, NULL, fmt, ap);
  va_end(ap);
}

void vx_fail_ret_check(vctx *v, const hlo_instruction *in, const char *cond, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(v, in, cond, fmt, ap);
  va_end(ap);
}

void vx_fail_at(vctx *v, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  v->nerr++;
  hlo_vdiagf(v->d, HLO_SEV_ERROR, v->src, off, fmt, ap);
  va_end(ap);
}

const char *vx_str(vctx *v, const hlo_shape *s) {
  const char *r = hlo_shape_str(&v->scratch, s, false);
  return r ? r : "?";
}

const char *vx_str_layout(vctx *v, const hlo_shape *s) {
  const char *r = hlo_shape_str(&v->scratch, s, true);
  return r ? r : "?";
}

bool vx_layout_equal(const hlo_shape *a, const hlo_shape *b) {
  if (a->type == HLO_TUPLE || b->type == HLO_TUPLE) {
    if (a->type != b->type || a->ntuple != b->ntuple) return false;
    for (int i = 0; i < a->ntuple; i++)
      if (!vx_layout_equal(&a->tuple[i], &b->tuple[i])) return false;
    return true;
  }
  if (!hlo_type_is_array(a->type) || a->rank != b->rank) return true;
  for (int i = 0; i < a->rank; i++) {
    int64_t x = a->layout && a->layout->n == a->rank ? a->layout->minor_to_major[i] : a->rank - 1 - i;
    int64_t y = b->layout && b->layout->n == b->rank ? b->layout->minor_to_major[i] : b->rank - 1 - i;
    if (x != y) return false;
  }
  return true;
}

/* The subshape of s at index idx (NULL if the index is invalid). */
const hlo_shape *vx_subshape(const hlo_shape *s, const int64_t *idx, int n) {
  for (int i = 0; i < n; i++) {
    if (s->type != HLO_TUPLE || idx[i] < 0 || idx[i] >= s->ntuple) return NULL;
    s = &s->tuple[idx[i]];
  }
  return s;
}

const char *vx_index_str(vctx *v, const int64_t *idx, int n) {
  hlo_buf b;
  hlo_buf_init(&b, v->d->alloc);
  hlo_buf_printf(&b, "{");
  for (int i = 0; i < n; i++) hlo_buf_printf(&b, "%s%lld", i ? "," : "", (long long)idx[i]);
  hlo_buf_printf(&b, "}");
  const char *r = b.data && !b.failed ? hlo_arena_strdup(&v->scratch, b.data) : NULL;
  hlo_buf_release(&b);
  return r ? r : "?";
}

bool vx_same(const vctx *v, const hlo_shape *a, const hlo_shape *b) {
  if (!hlo_shape_xla_compatible(a, b, false)) return false;
  return !v->o.layout_sensitive || vx_layout_equal(a, b);
}

bool vx_same_text(const char *p, const char *q) {
  p = p ? p : "", q = q ? q : "";
  for (;;) {
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
    while (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r') q++;
    if (*p != *q) return false;
    if (!*p) return true;
    p++, q++;
  }
}

bool vx_has_unbounded(const hlo_shape *s) {
  if (s->type == HLO_TUPLE) {
    for (int i = 0; i < s->ntuple; i++)
      if (vx_has_unbounded(&s->tuple[i])) return true;
    return false;
  }
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] == HLO_DIM_UNBOUNDED) return true;
  return false;
}

/* A layout-sensitive copy into or out of host memory (XLA's CheckShape):
 * into host it may transpose but not convert; out of host it must keep
 * everything but the memory space.  1 or 0 for such a copy, -1 for any
 * other (then the usual compatibility rule applies). */
static int host_copy(const vctx *v, const hlo_instruction *in, const hlo_shape *inf) {
  const hlo_shape *s = &in->shape;
  if (!v->o.layout_sensitive || !hlo_shape_is_array(s) || !hlo_shape_is_array(inf) || !s->layout || !inf->layout)
    return -1;
  int64_t to = s->layout->memory_space, from = inf->layout->memory_space;
  if (to == from || (to != VX_HOST_SPACE && from != VX_HOST_SPACE)) return -1;
  if (to == VX_HOST_SPACE) return s->type == inf->type;
  /* equal but for the memory space */
  if (!hlo_shape_compatible(s, inf) || !vx_layout_equal(s, inf)) return 0;
  const hlo_layout *a = s->layout, *b = inf->layout;
  if (a->ntiles != b->ntiles || a->element_size_bits != b->element_size_bits) return 0;
  for (int i = 0; i < a->ntiles; i++) {
    if (a->tiles[i].n != b->tiles[i].n) return 0;
    for (int k = 0; k < a->tiles[i].n; k++)
      if (a->tiles[i].dims[k] != b->tiles[i].dims[k]) return 0;
  }
  return 1;
}

static void check_shape(vctx *v, const hlo_instruction *in) {
  hlo_shape inf;
  if (hlo_infer_shape(in, &v->scratch, &inf, v->d, v->src)) {
    v->nerr++;
    return;
  }
  bool strict = hlo_verify_rules[in->op].strict_shape;
  bool ok = strict ? vx_same(v, &in->shape, &inf)
                                 : hlo_shape_xla_compatible(&in->shape, &inf, v->o.allow_mixed_precision);
  int offload = in->op == HLO_OP_COPY ? host_copy(v, in, &inf) : -1;
  if (offload >= 0) {
    ok = offload;
    strict = true; /* the message shows the layouts */
  }
  if (ok) return;
  if (in->op == HLO_OP_FUSION)
    vx_fail(v, in, "Fused computation shape (%s) is not equal to the fusion shape (%s)", vx_str(v, &inf),
            vx_str(v, &in->shape));
  else
    vx_fail(v, in, "Expected instruction to have shape equal to %s, actual shape is %s.",
            v->o.layout_sensitive && strict ? vx_str_layout(v, &inf) : vx_str(v, &inf),
            v->o.layout_sensitive && strict ? vx_str_layout(v, &in->shape) : vx_str(v, &in->shape));
}

static int64_t module_int(const hlo_module *m, hlo_attr_key k, int64_t dflt) {
  const hlo_attr *a = hlo_module_attr(m, k);
  return a && a->kind == HLO_AK_INT ? a->u.i : dflt;
}

int hlo_verify_module(const hlo_module *m, const hlo_verify_options *opts, hlo_diags *d, const hlo_src *src) {
  vctx v = {.m = m, .d = d, .src = src};
  if (opts) v.o = *opts;
  if (v.o.replica_count <= 0) v.o.replica_count = module_int(m, HLO_A_REPLICA_COUNT, 1);
  if (v.o.num_partitions <= 0) v.o.num_partitions = module_int(m, HLO_A_NUM_PARTITIONS, 0);
  if (v.o.no_verify_sharding_device_numbers) v.o.num_partitions = 0; /* 0: device ids unchecked */
  v.replicas = v.o.replica_count > 0 ? v.o.replica_count : 1;
  v.partitions = opts && opts->num_partitions > 0 ? opts->num_partitions : module_int(m, HLO_A_NUM_PARTITIONS, 1);
  if (v.partitions <= 0) v.partitions = 1;
  hlo_arena_init(&v.scratch, d->alloc);
  int start = d->nerrors;
  hlo_verify_structure(&v);
  vx_compute_threads(&v);
  hlo_verify_module_passes(&v);
  for (int ci = 0; ci < m->ncomps; ci++) {
    const hlo_computation *c = m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      const hlo_instruction *in = c->instrs[i];
      bool ops_ok = true;
      for (int k = 0; k < in->noperands; k++) ops_ok &= in->operands[k] != NULL;
      if (!ops_ok) continue; /* reported by the structure checks */
      if (in->shape_omitted && in->shape.type == HLO_PRED && in->shape.rank == 0 && !in->shape.layout) {
        /* never filled in (hlo_shape_fill_omitted not run, or it failed) */
        vx_fail(&v, in, "the result shape was omitted and has not been inferred");
        continue;
      }
      const vx_rule *r = &hlo_verify_rules[in->op];
      if (r->check_first) {
        int before = v.nerr;
        r->check(&v, in);
        if (v.nerr > before) continue; /* XLA stops before the shape check */
      }
      if (!r->own_shape) check_shape(&v, in);
      if (!hlo_shape_operand_count_ok(in, NULL, NULL) || in->ncalled > HLO_INFER_MAX_OPERANDS) continue; /* reported by check_shape */
      if (r->calls) r->calls(&v, in);
      hlo_verify_op(&v, in);
      if (r->check && !r->check_first) r->check(&v, in);
      hlo_verify_instr(&v, in);
      hlo_verify_sharding(&v, in);
    }
  }
  hlo_arena_release(&v.scratch);
  return v.nerr || d->nerrors > start ? HLO_ERR : HLO_OK;
}
