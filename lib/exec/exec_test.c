/* exec_test.c - unit tests of the interpreter: small modules with constant
 * inputs, each run on the fast path and the reference path, checked against
 * values computed by hand or taken from the worked examples of the spec
 * (ops_catalog.md section 4, stablehlo_digest.md). */
#include <math.h>
#include <stdlib.h>

#include "exec/exec.h"
#include "hlo/hlo_text.h"
#include "testing.h"

/* Run the module text on both paths; the flattened leaves of the result are
 * compared with want[0..n) (doubles; NaN matches NaN). */
static void check_run(int line, const char *text, const double *want, int n) {
  for (int ref = 0; ref < 2; ref++) {
    hlo_src src = {"test", text, strlen(text)};
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
    hlo_exec_options o = {0};
    o.reference = ref;
    hlo_exec *e = m ? hlo_exec_new(m, &o, NULL, &d) : NULL;
    hlo_val *res = NULL;
    if (!e || hlo_exec_run(e, NULL, 0, &res)) {
      t_fail++;
      printf("exec_test.c:%d: %s path failed:", line, ref ? "reference" : "fast");
      for (int i = 0; i < d.n; i++) printf(" %s", d.v[i].msg);
      printf("\n");
    } else {
      /* flatten */
      const hlo_val *stack[64];
      int sp = 0, k = 0;
      stack[sp++] = res;
      bool ok = true;
      const hlo_val *leaves[64];
      int nl = 0;
      while (sp) {
        const hlo_val *v = stack[--sp];
        if (v->ntuple)
          for (int i = v->ntuple - 1; i >= 0; i--) stack[sp++] = v->tuple[i];
        else if (nl < 64)
          leaves[nl++] = v;
      }
      char got[2048];
      size_t gl = 0;
      got[0] = 0;
      for (int li = 0; li < nl; li++)
        for (int64_t j = 0; j < leaves[li]->nelems; j++, k++) {
          hlo_sc sc = hlo_sc_load(leaves[li]->shape->type, leaves[li]->data, j);
          double g = hlo_val_get_f64(leaves[li], j);
          double gi = sc.im;
          if (gl < sizeof got - 40)
            gl += (size_t)snprintf(got + gl, sizeof got - gl, "%.9g%s ", g,
                                   gi != 0 ? "(+im)" : "");
          if (hlo_type_kind_of(leaves[li]->shape->type) == HLO_KIND_COMPLEX) {
            /* complex: want holds re, im pairs */
            if (k + 1 >= n + 1) { ok = false; continue; }
            double wr = want[k], wi = k + 1 < n ? want[k + 1] : 0;
            if (fabs(g - wr) > 1e-5 * (1 + fabs(wr)) || fabs(gi - wi) > 1e-5 * (1 + fabs(wi)))
              ok = false;
            k++;
            continue;
          }
          if (k >= n) { ok = false; continue; }
          double w = want[k];
          if (isnan(w) ? !isnan(g) : (fabs(g - w) > 1e-5 * (1 + fabs(w)) || (w == 0 && signbit(w) != signbit(g) && hlo_type_is_float(leaves[li]->shape->type))))
            ok = false;
        }
      if (k != n) ok = false;
      if (ok) t_pass++;
      else {
        t_fail++;
        printf("exec_test.c:%d: %s path: got [ %s] (%d values, want %d)\n", line,
               ref ? "reference" : "fast", got, k, n);
      }
      hlo_val_release(NULL, res);
    }
    hlo_exec_free(e);
    hlo_module_free(m);
    hlo_diags_release(&d);
  }
}

#define RUN(text, ...)                                                     \
  do {                                                                     \
    static const double w_[] = {__VA_ARGS__};                              \
    check_run(__LINE__, text, w_, (int)(sizeof w_ / sizeof w_[0]));        \
  } while (0)

/* Expect plan or run failure with a message containing needle. */
static void check_fail(int line, const char *text, const char *needle) {
  hlo_src src = {"test", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  hlo_exec *e = m ? hlo_exec_new(m, NULL, NULL, &d) : NULL;
  hlo_val *res = NULL;
  int rc = e ? hlo_exec_run(e, NULL, 0, &res) : HLO_ERR;
  bool found = false;
  for (int i = 0; i < d.n; i++)
    if (strstr(d.v[i].msg, needle)) found = true;
  if (rc != HLO_OK && found) t_pass++;
  else {
    t_fail++;
    printf("exec_test.c:%d: expected failure mentioning '%s'\n", line, needle);
    for (int i = 0; i < d.n; i++) printf("  %s\n", d.v[i].msg);
  }
  if (res) hlo_val_release(NULL, res);
  hlo_exec_free(e);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

/* An allocator that fails the Nth allocation (and every later one). */
typedef struct failing { int n, count; } failing;
static void *f_alloc(void *ud, size_t n) {
  failing *f = ud;
  return ++f->count >= f->n ? NULL : malloc(n);
}
static void *f_realloc(void *ud, void *p, size_t n) {
  failing *f = ud;
  return ++f->count >= f->n ? NULL : realloc(p, n);
}
static void f_free(void *ud, void *p) { (void)ud; free(p); }

/* Plan and run text with allocation k failing, for every k until a run
 * succeeds: each attempt must fail cleanly (no crash, no leak under ASan). */
static void check_alloc_failures(int line, const char *text) {
  hlo_src src = {"test", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  bool done = false;
  for (int k = 1; m && k < 5000 && !done; k++) {
    failing f = {k, 0};
    hlo_allocator a = {f_alloc, f_realloc, f_free, &f};
    hlo_diags d2;
    hlo_diags_init(&d2, NULL);
    for (int ref = 0; ref < 2; ref++) {
      hlo_exec_options o = {0};
      o.reference = ref;
      hlo_exec *e = hlo_exec_new(m, &o, &a, &d2);
      hlo_val *res = NULL;
      if (e && hlo_exec_run(e, NULL, 0, &res) == HLO_OK) {
        if (ref) done = true;
        hlo_val_release(&a, res);
      }
      hlo_exec_free(e);
    }
    hlo_diags_release(&d2);
  }
  if (done) t_pass++;
  else { t_fail++; printf("exec_test.c:%d: never succeeded\n", line); }
  hlo_module_free(m);
  hlo_diags_release(&d);
}

#define ADD_COMP "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }\n"
#define MAX_COMP "max { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] maximum(a, b) }\n"
#define ADDI_COMP "addi { a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT c = s32[] add(a, b) }\n"

/* hlo_val_borrow: inputs passed without a copy are read in place and never
 * written, freed or taken over, even where the value dies and a kernel could
 * reuse its buffer; hlo_exec_options.src puts run errors at the instruction. */
static void check_borrow(void) {
  const char *text = "ENTRY e {\n p = f32[4] parameter(0)\n n = f32[4] negate(p)\n"
                     " ROOT r = f32[2,2] reshape(n) }\n";
  hlo_src src = {"borrow.hlo", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  for (int ref = 0; ref < 2 && m; ref++) {
    hlo_exec_options o = {0};
    o.reference = ref;
    hlo_exec *e = hlo_exec_new(m, &o, NULL, &d);
    CHECK(e != NULL);
    if (!e) break;
    float in[4] = {1, -2, 3, -4};
    hlo_val *arg = hlo_val_borrow(NULL, hlo_exec_param_shape(e, 0), in);
    CHECK(arg && arg->borrowed && arg->data == (void *)in && arg->nbytes == sizeof in);
    hlo_val *res = NULL;
    CHECK_INT(hlo_exec_run(e, &arg, 1, &res), HLO_OK);
    CHECK(res && res->data != (void *)in && res->nelems == 4);
    if (res && res->data) CHECK(((float *)res->data)[3] == 4.0f && ((float *)res->data)[0] == -1.0f);
    CHECK(in[0] == 1.0f && in[3] == -4.0f);
    CHECK_INT(arg->refs, 1);
    hlo_val_release(NULL, res);
    hlo_val_release(NULL, arg); /* frees the header only: `in` is on the stack */
    hlo_exec_free(e);
  }
  CHECK(hlo_val_borrow(NULL, &m->entry->root->shape, NULL) == NULL); /* 16 bytes, no data */
  hlo_module_free(m);
  /* a run error at the instruction's position */
  const char *loop = "c { p = s32[] parameter(0)\n ROOT t = pred[] constant(true) }\n"
                     "b { p = s32[] parameter(0)\n ROOT q = s32[] add(p, p) }\n"
                     "ENTRY e {\n z = s32[] constant(1)\n ROOT w = s32[] while(z), condition=c, body=b }\n";
  hlo_src lsrc = {"loop.hlo", loop, strlen(loop)};
  m = hlo_parse_module(&lsrc, 0, lsrc.len, NULL, &d, NULL);
  hlo_exec_options o = {0};
  o.max_while_iters = 3;
  o.src = &lsrc;
  hlo_exec *e = m ? hlo_exec_new(m, &o, NULL, &d) : NULL;
  hlo_val *res = NULL;
  CHECK(e && hlo_exec_run(e, NULL, 0, &res) == HLO_ERR);
  CHECK(d.n >= 1 && d.v[d.n - 1].src == &lsrc);
  if (d.n >= 1 && d.v[d.n - 1].src) {
    hlo_loc l = hlo_src_loc(&lsrc, d.v[d.n - 1].off);
    CHECK_INT(l.line, 7); /* " ROOT w = ..." */
    CHECK_INT(l.col, 7);
  }
  hlo_exec_free(e);
  hlo_module_free(m);
  hlo_diags_release(&d);
}

/* Mixed float precision runs only when the options allow it, and then with
 * the f32 operand rounded to bf16 before a bf16 multiply: 1 + 2^-8 is a tie
 * that rounds to 1, so 1 * 3 = 3 (multiplying first would give 3.015625). */
static void check_mixed_precision(void) {
  static const char text[] = "ENTRY e { a = f32[2] constant({1.00390625, -2})\n"
                             " b = bf16[2] constant({3, 4})\n ROOT m = bf16[2] multiply(b, a) }";
  for (int mode = 0; mode < 3; mode++) {
    hlo_src src = {"mixed", text, strlen(text)};
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
    hlo_exec_options o = {0};
    o.allow_mixed_precision = mode > 0;
    o.reference = mode == 2;
    hlo_exec *e = m ? hlo_exec_new(m, &o, NULL, &d) : NULL;
    if (mode == 0) {
      bool found = false;
      for (int i = 0; i < d.n; i++) found |= strstr(d.v[i].msg, "mixed precision is disallowed") != NULL;
      CHECK(!e && found);
    } else {
      hlo_val *res = NULL;
      CHECK(e && hlo_exec_run(e, NULL, 0, &res) == HLO_OK);
      if (res) {
        CHECK(hlo_val_get_f64(res, 0) == 3.0);
        CHECK(hlo_val_get_f64(res, 1) == -8.0);
        hlo_val_release(NULL, res);
      }
    }
    hlo_exec_free(e);
    hlo_module_free(m);
    hlo_diags_release(&d);
  }
}

/* hlo_val_new_dynamic: sizes checked against the bounds and the dynamic
 * flags; a run takes and gives the actual sizes' elements densely: x is
 * [[1,2,3],[4,5,6]] of bound [<=4,3]; the column sums over the dynamic
 * dimension are [5,7,9] and the negation keeps the actual size 2. */
static void check_dynamic(void) {
  const char *text = "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                     " ROOT c = f32[] add(a, b) }\n"
                     "ENTRY e {\n x = f32[<=4,3] parameter(0)\n n = f32[<=4,3] negate(x)\n"
                     " z = f32[] constant(0)\n s = f32[3] reduce(x, z), dimensions={0}, to_apply=add\n"
                     " ROOT t = (f32[<=4,3], f32[3]) tuple(n, s) }\n";
  hlo_src src = {"dyn.hlo", text, strlen(text)};
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, &d, NULL);
  CHECK(m != NULL);
  if (!m) return;
  const hlo_shape *ps = &m->entry->params[0]->shape;
  CHECK(hlo_val_new_dynamic(NULL, ps, (int64_t[]){5, 3}) == NULL); /* above the bound */
  CHECK(hlo_val_new_dynamic(NULL, ps, (int64_t[]){2, 2}) == NULL); /* static dimension */
  hlo_val *full = hlo_val_new_dynamic(NULL, ps, (int64_t[]){4, 3});
  CHECK(full && !full->dims && full->nelems == 12);
  hlo_val_release(NULL, full);
  for (int ref = 0; ref < 2; ref++) {
    hlo_exec_options o = {0};
    o.reference = ref;
    hlo_exec *e = hlo_exec_new(m, &o, NULL, &d);
    CHECK(e != NULL);
    if (!e) break;
    hlo_val *x = hlo_val_new_dynamic(NULL, ps, (int64_t[]){2, 3});
    CHECK(x && x->dims && x->nelems == 6 && x->nbytes == 24);
    if (!x) { hlo_exec_free(e); break; }
    for (int i = 0; i < 6; i++) ((float *)x->data)[i] = (float)(i + 1);
    hlo_val *res = NULL;
    CHECK_INT(hlo_exec_run(e, &x, 1, &res), HLO_OK);
    if (res && res->ntuple == 2) {
      const hlo_val *n = res->tuple[0], *sum = res->tuple[1];
      CHECK(n->dims && n->dims[0] == 2 && n->dims[1] == 3 && n->nelems == 6);
      CHECK(((float *)n->data)[5] == -6.0f && ((float *)n->data)[3] == -4.0f);
      CHECK(!sum->dims && hlo_val_get_f64(sum, 0) == 5.0 && hlo_val_get_f64(sum, 2) == 9.0);
    }
    hlo_val_release(NULL, res);
    hlo_val_release(NULL, x);
    hlo_exec_free(e);
  }
  hlo_module_free(m);
  hlo_diags_release(&d);
}

int main(void) {
  /* integer numerics decisions (DECISIONS.md) */
  RUN("ENTRY e { a = s32[4] constant({7, -7, -2147483648, 5})\n"
      " b = s32[4] constant({0, 2, -1, -1})\n ROOT d = s32[4] divide(a, b) }",
      -1, -3, -2147483648.0, -5);
  RUN("ENTRY e { a = s32[4] constant({7, -7, -2147483648, 5})\n"
      " b = s32[4] constant({0, 2, -1, 3})\n ROOT d = s32[4] remainder(a, b) }",
      7, -1, 0, 2);
  RUN("ENTRY e { a = u8[2] constant({7, 200})\n b = u8[2] constant({0, 3})\n"
      " ROOT d = u8[2] divide(a, b) }", 255, 66);
  RUN("ENTRY e { a = s8[4] constant({1, -128, 64, -1})\n b = s8[4] constant({8, 1, 1, 9})\n"
      " ROOT d = s8[4] shift-left(a, b) }", 0, 0, -128, 0);
  RUN("ENTRY e { a = s8[3] constant({-128, -128, 64})\n b = s8[3] constant({8, 7, 3})\n"
      " ROOT d = s8[3] shift-right-arithmetic(a, b) }", -1, -1, 8);
  RUN("ENTRY e { a = s8[3] constant({-128, -128, 64})\n b = s8[3] constant({8, 7, 3})\n"
      " ROOT d = s8[3] shift-right-logical(a, b) }", 0, 1, 8);
  RUN("ENTRY e { a = s32[3] constant({2147483647, -2147483648, 5})\n"
      " b = s32[3] constant({1, -1, 6})\n ROOT d = s32[3] add(a, b) }",
      -2147483648.0, 2147483647.0, 11);
  /* float -> int convert saturates, NaN -> 0 */
  RUN("ENTRY e { a = f32[5] constant({1e10, -1e10, nan, -2.7, 2.7})\n"
      " ROOT d = s32[5] convert(a) }", 2147483647.0, -2147483648.0, 0, -2, 2);
  RUN("ENTRY e { a = f32[3] constant({300, -5, 255.9})\n ROOT d = u8[3] convert(a) }",
      255, 0, 255);
  /* max/min propagate NaN */
  RUN("ENTRY e { a = f32[3] constant({nan, 1, 2})\n b = f32[3] constant({1, nan, 3})\n"
      " ROOT d = f32[3] maximum(a, b) }", NAN, NAN, 3);
  RUN("ENTRY e { a = f32[3] constant({nan, 1, 2})\n b = f32[3] constant({1, nan, 3})\n"
      " ROOT d = f32[3] minimum(a, b) }", NAN, NAN, 2);
  /* total order compare: -nan < -inf < -0 < +0 < inf < nan */
  RUN("ENTRY e { a = f32[4] constant({-0, -inf, nan, 1})\n b = f32[4] constant({0, -nan, inf, 1})\n"
      " ROOT d = pred[4] compare(a, b), direction=LT, type=TOTALORDER }", 1, 0, 0, 0);
  RUN("ENTRY e { a = f32[3] constant({-0, nan, 1})\n b = f32[3] constant({0, nan, 2})\n"
      " ROOT d = pred[3] compare(a, b), direction=EQ }", 1, 0, 0);
  RUN("ENTRY e { a = f32[3] constant({-0, nan, 1})\n b = f32[3] constant({0, nan, 2})\n"
      " ROOT d = pred[3] compare(a, b), direction=NE }", 0, 1, 1);
  RUN("ENTRY e { a = u32[2] constant({4294967295, 1})\n b = u32[2] constant({1, 2})\n"
      " ROOT d = pred[2] compare(a, b), direction=GT }", 1, 0);
  /* bf16/f16 rounding after every instruction */
  RUN("ENTRY e { a = bf16[2] constant({1, 256})\n b = bf16[2] constant({0.00390625, 1})\n"
      " ROOT d = bf16[2] add(a, b) }", 1, 256);
  RUN("ENTRY e { a = f16[2] constant({65504, 1})\n b = f16[2] constant({65504, 0.0001})\n"
      " ROOT d = f16[2] add(a, b) }", INFINITY, 1.0);
  /* elementwise unary */
  RUN("ENTRY e { a = f32[4] constant({-2.5, 0.5, 1.5, 2.5})\n"
      " ROOT d = f32[4] round-nearest-even(a) }", -2, 0, 2, 2);
  RUN("ENTRY e { a = f32[4] constant({-2.5, 0.5, 1.5, 2.5})\n"
      " ROOT d = f32[4] round-nearest-afz(a) }", -3, 1, 2, 3);
  RUN("ENTRY e { a = f32[4] constant({-2, -0, 0, nan})\n ROOT d = f32[4] sign(a) }",
      -1, -0.0, 0, NAN);
  RUN("ENTRY e { a = s32[3] constant({0, 1, -1})\n ROOT d = s32[3] count-leading-zeros(a) }",
      32, 31, 0);
  RUN("ENTRY e { a = u8[3] constant({0, 255, 7})\n ROOT d = u8[3] popcnt(a) }", 0, 8, 3);
  RUN("ENTRY e { a = s32[2] constant({5, -1})\n ROOT d = s32[2] not(a) }", -6, 0);
  RUN("ENTRY e { a = pred[2] constant({true, false})\n ROOT d = pred[2] not(a) }", 0, 1);
  RUN("ENTRY e { a = f32[3] constant({0, 1, -1})\n ROOT d = f32[3] exponential(a) }",
      1, 2.71828182845904, 0.367879441171442);
  RUN("ENTRY e { a = f32[3] constant({inf, nan, 1})\n ROOT d = pred[3] is-finite(a) }", 0, 0, 1);
  RUN("ENTRY e { a = f32[2] constant({0, 100})\n ROOT d = f32[2] logistic(a) }", 0.5, 1);
  RUN("ENTRY e { a = c64[2] constant({(1, 2), (3, -4)})\n ROOT d = f32[2] abs(a) }",
      2.2360679774997896, 5);
  RUN("ENTRY e { a = f32[2] constant({1, 3})\n b = f32[2] constant({2, -4})\n"
      " ROOT d = c64[2] complex(a, b) }", 1, 2, 3, -4);
  RUN("ENTRY e { a = c64[1] constant({(1, 2)})\n b = c64[1] constant({(3, 4)})\n"
      " ROOT d = c64[1] multiply(a, b) }", -5, 10);
  RUN("ENTRY e { a = f32[2] constant({2, -8})\n b = f32[2] constant({10, 0.5})\n"
      " ROOT d = f32[2] power(a, b) }", 1024, NAN);
  RUN("ENTRY e { a = s32[3] constant({2, 2, -1})\n b = s32[3] constant({10, -1, -3})\n"
      " ROOT d = s32[3] power(a, b) }", 1024, 0, -1);
  RUN("ENTRY e { lo = f32[] constant(0)\n x = f32[4] constant({-1, 0.5, 2, nan})\n"
      " hi = f32[] constant(1)\n ROOT d = f32[4] clamp(lo, x, hi) }", 0, 0.5, 1, NAN);
  RUN("ENTRY e { p = pred[3] constant({true, false, true})\n a = s32[3] constant({1, 2, 3})\n"
      " b = s32[3] constant({4, 5, 6})\n ROOT d = s32[3] select(p, a, b) }", 1, 5, 3);
  RUN("ENTRY e { a = u32[2] constant({4294967295, 3})\n b = u32[2] constant({2, 5})\n"
      " ROOT d = u32[2] mulhi(a, b) }", 1, 0);
  /* reduce-precision to bf16 precision */
  RUN("ENTRY e { a = f32[2] constant({1.00390625, 1e5})\n"
      " ROOT d = f32[2] reduce-precision(a), exponent_bits=5, mantissa_bits=10 }", 1.00390625, INFINITY);
  RUN("ENTRY e { a = f32[1] constant({1.001})\n"
      " ROOT d = f32[1] reduce-precision(a), exponent_bits=8, mantissa_bits=7 }", 1.0);
  /* bitcast-convert */
  RUN("ENTRY e { a = f32[2] constant({1, -2})\n ROOT d = s32[2] bitcast-convert(a) }",
      1065353216, -1073741824);
  RUN("ENTRY e { a = s32[1] constant({1065353216})\n ROOT d = u8[1,4] bitcast-convert(a) }",
      0, 0, 128, 63);
  RUN("ENTRY e { a = u16[2] constant({1, 2})\n ROOT d = u32[] bitcast-convert(a) }", 131073);
  /* iota and data movement */
  RUN("ENTRY e { ROOT d = s32[2,3] iota(), iota_dimension=1 }", 0, 1, 2, 0, 1, 2);
  RUN("ENTRY e { ROOT d = f32[2,3] iota(), iota_dimension=0 }", 0, 0, 0, 1, 1, 1);
  RUN("ENTRY e { a = s32[2,3] constant({{1,2,3},{4,5,6}})\n"
      " ROOT d = s32[3,2] transpose(a), dimensions={1,0} }", 1, 4, 2, 5, 3, 6);
  RUN("ENTRY e { a = s32[2,3] constant({{1,2,3},{4,5,6}})\n ROOT d = s32[3,2] reshape(a) }",
      1, 2, 3, 4, 5, 6);
  RUN("ENTRY e { a = s32[2] constant({1,2})\n ROOT d = s32[2,3] broadcast(a), dimensions={0} }",
      1, 1, 1, 2, 2, 2);
  RUN("ENTRY e { a = s32[5] constant({0,1,2,3,4})\n ROOT d = s32[2] slice(a), slice={[1:5:2]} }",
      1, 3);
  RUN("ENTRY e { a = s32[5] constant({0,1,2,3,4})\n i = s32[] constant(4)\n"
      " ROOT d = s32[2] dynamic-slice(a, i), dynamic_slice_sizes={2} }", 3, 4);
  RUN("ENTRY e { a = s32[5] constant({0,1,2,3,4})\n u = s32[2] constant({9,8})\n"
      " i = s32[] constant(-3)\n ROOT d = s32[5] dynamic-update-slice(a, u, i) }", 9, 8, 2, 3, 4);
  /* pad: interior then negative edge (ops_catalog 3.4) */
  RUN("ENTRY e { a = s32[3] constant({1,2,3})\n z = s32[] constant(0)\n"
      " ROOT d = s32[6] pad(a, z), padding=-1_2_1 }", 0, 2, 0, 3, 0, 0);
  RUN("ENTRY e { a = s32[2,2] constant({{1,2},{3,4}})\n z = s32[] constant(9)\n"
      " ROOT d = s32[3,4] pad(a, z), padding=1_0_0x0_1_1 }", 9, 9, 9, 9, 1, 9, 2, 9, 3, 9, 4, 9);
  RUN("ENTRY e { a = s32[2] constant({1,2})\n b = s32[1] constant({3})\n"
      " ROOT d = s32[3] concatenate(a, b), dimensions={0} }", 1, 2, 3);
  RUN("ENTRY e { a = s32[2,2] constant({{1,2},{3,4}})\n"
      " ROOT d = s32[2,2] reverse(a), dimensions={0,1} }", 4, 3, 2, 1);
  /* gather: the diagonal (hlo_evaluator_test EvaluateGather_GetDiagonal) */
  RUN("ENTRY e { a = s32[3,3] constant({{1,2,3},{4,5,6},{7,8,9}})\n"
      " i = s32[3,2] constant({{0,0},{1,1},{2,2}})\n"
      " ROOT d = s32[3] gather(a, i), offset_dims={}, collapsed_slice_dims={0,1},"
      " start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1} }", 1, 5, 9);
  /* gather rows (operation_semantics example style) */
  RUN("ENTRY e { a = s32[3,3] constant({{1,2,3},{4,5,6},{7,8,9}})\n"
      " i = s32[2] constant({0, 2})\n"
      " ROOT d = s32[2,3] gather(a, i), offset_dims={1}, collapsed_slice_dims={0},"
      " start_index_map={0}, index_vector_dim=1, slice_sizes={1,3} }", 1, 2, 3, 7, 8, 9);
  /* scatter add (EvaluateScatter_TensorFlowScatter_Add) */
  RUN(ADDI_COMP "ENTRY e { a = s32[3,3] constant({{1,2,3},{4,5,6},{7,8,9}})\n"
      " i = s32[2] constant({0, 2})\n u = s32[2,3] constant({{10,20,30},{70,80,90}})\n"
      " ROOT d = s32[3,3] scatter(a, i, u), update_window_dims={1},"
      " inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1,"
      " to_apply=addi }", 11, 22, 33, 4, 5, 6, 77, 88, 99);
  /* reduce */
  RUN(ADD_COMP "ENTRY e { a = f32[2,3] constant({{1,2,3},{4,5,6}})\n z = f32[] constant(0)\n"
      " ROOT d = f32[2] reduce(a, z), dimensions={1}, to_apply=add }", 6, 15);
  RUN(ADD_COMP "ENTRY e { a = f32[2,3] constant({{1,2,3},{4,5,6}})\n z = f32[] constant(0)\n"
      " ROOT d = f32[3] reduce(a, z), dimensions={0}, to_apply=add }", 5, 7, 9);
  RUN(MAX_COMP "ENTRY e { a = f32[2,3] constant({{1,7,3},{4,5,6}})\n z = f32[] constant(-inf)\n"
      " ROOT d = f32[] reduce(a, z), dimensions={0,1}, to_apply=max }", 7);
  /* variadic reduce: argmax */
  RUN("am { a = f32[] parameter(0)\n ai = s32[] parameter(1)\n b = f32[] parameter(2)\n"
      " bi = s32[] parameter(3)\n g = pred[] compare(a, b), direction=GE\n"
      " m = f32[] select(g, a, b)\n mi = s32[] select(g, ai, bi)\n ROOT t = (f32[], s32[]) tuple(m, mi) }\n"
      "ENTRY e { a = f32[4] constant({3, 9, 2, 9})\n i = s32[4] iota(), iota_dimension=0\n"
      " z = f32[] constant(-inf)\n zi = s32[] constant(-1)\n"
      " ROOT d = (f32[], s32[]) reduce(a, i, z, zi), dimensions={0}, to_apply=am }", 9, 1);
  /* reduce-window: 2x2 max pool, stride 2 */
  RUN(MAX_COMP "ENTRY e { a = f32[4,4] constant({{1,2,3,4},{5,6,7,8},{9,10,11,12},{13,14,15,16}})\n"
      " z = f32[] constant(-inf)\n"
      " ROOT d = f32[2,2] reduce-window(a, z), window={size=2x2 stride=2x2}, to_apply=max }",
      6, 8, 14, 16);
  /* reduce-window with padding: sum of 3 with pad 1 */
  RUN(ADD_COMP "ENTRY e { a = f32[4] constant({1,2,3,4})\n z = f32[] constant(0)\n"
      " ROOT d = f32[4] reduce-window(a, z), window={size=3 pad=1_1}, to_apply=add }", 3, 6, 9, 7);
  /* select-and-scatter (max pool gradient) */
  RUN("ge { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = pred[] compare(a, b), direction=GE }\n"
      ADD_COMP "ENTRY e { a = f32[4] constant({1,5,3,2})\n s = f32[2] constant({10, 20})\n"
      " z = f32[] constant(0)\n ROOT d = f32[4] select-and-scatter(a, s, z),"
      " window={size=2 stride=2}, select=ge, scatter=add }", 0, 10, 20, 0);
  /* dot */
  RUN("ENTRY e { a = f32[2,3] constant({{1,2,3},{4,5,6}})\n b = f32[3,2] constant({{1,0},{0,1},{1,1}})\n"
      " ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0} }",
      4, 5, 10, 11);
  RUN("ENTRY e { a = s32[2,1,2] constant({{{1,2}},{{3,4}}})\n b = s32[2,2,1] constant({{{1},{1}},{{2},{0}}})\n"
      " ROOT d = s32[2,1,1] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},"
      " lhs_contracting_dims={2}, rhs_contracting_dims={1} }", 3, 6);
  /* convolution: 1-D, padding 1, kernel [1,2,3] (cross-correlation) */
  RUN("ENTRY e { a = f32[1,1,4] constant({{{1,2,3,4}}})\n k = f32[1,1,3] constant({{{1,2,3}}})\n"
      " ROOT d = f32[1,1,4] convolution(a, k), window={size=3 pad=1_1}, dim_labels=bf0_oi0->bf0 }",
      8, 14, 20, 11);
  /* lhs dilation 2, stride 1 */
  RUN("ENTRY e { a = f32[1,1,2] constant({{{1,2}}})\n k = f32[1,1,2] constant({{{1,1}}})\n"
      " ROOT d = f32[1,1,2] convolution(a, k), window={size=2 lhs_dilate=2}, dim_labels=bf0_oi0->bf0 }",
      1, 2);
  /* feature groups: depthwise, 2 channels */
  RUN("ENTRY e { a = f32[1,2,2] constant({{{1,2},{3,4}}})\n k = f32[2,1,1] constant({{{10}},{{100}}})\n"
      " ROOT d = f32[1,2,2] convolution(a, k), window={size=1}, dim_labels=bf0_oi0->bf0,"
      " feature_group_count=2 }", 10, 20, 300, 400);
  /* sort, multi-operand, stable */
  RUN("lt { a = f32[] parameter(0)\n b = f32[] parameter(1)\n c = s32[] parameter(2)\n"
      " d = s32[] parameter(3)\n ROOT r = pred[] compare(a, b), direction=LT }\n"
      "ENTRY e { a = f32[4] constant({3, 1, 3, 0})\n i = s32[4] constant({0,1,2,3})\n"
      " ROOT d = (f32[4], s32[4]) sort(a, i), dimensions={0}, is_stable=true, to_apply=lt }",
      0, 1, 3, 3, 3, 1, 0, 2);
  /* topk */
  RUN("ENTRY e { a = f32[5] constant({1, 5, 3, 5, 2})\n"
      " ROOT d = (f32[2], s32[2]) topk(a), k=2, largest=true }", 5, 5, 1, 3);
  /* while: count to 9 (stablehlo digest errata: the example gives 9) */
  RUN("c { p = s32[] parameter(0)\n t = s32[] constant(9)\n ROOT l = pred[] compare(p, t), direction=LT }\n"
      "b { p = s32[] parameter(0)\n o = s32[] constant(1)\n ROOT a = s32[] add(p, o) }\n"
      "ENTRY e { z = s32[] constant(0)\n ROOT w = s32[] while(z), condition=c, body=b }", 9);
  /* conditional, indexed with out-of-range index -> last branch */
  RUN("b0 { p = s32[] parameter(0)\n ROOT n = s32[] negate(p) }\n"
      "b1 { p = s32[] parameter(0)\n ROOT n = s32[] add(p, p) }\n"
      "ENTRY e { i = s32[] constant(7)\n x = s32[] constant(5)\n"
      " ROOT c = s32[] conditional(i, x, x), branch_computations={b0, b1} }", 10);
  RUN("b0 { p = s32[] parameter(0)\n ROOT n = s32[] negate(p) }\n"
      "b1 { p = s32[] parameter(0)\n ROOT n = s32[] add(p, p) }\n"
      "ENTRY e { i = pred[] constant(true)\n x = s32[] constant(5)\n"
      " ROOT c = s32[] conditional(i, x, x), true_computation=b0, false_computation=b1 }", -5);
  /* call, fusion, map, tuple */
  RUN(ADD_COMP "ENTRY e { a = f32[2] constant({1,2})\n b = f32[2] constant({3,4})\n"
      " ROOT m = f32[2] map(a, b), dimensions={0}, to_apply=add }", 4, 6);
  RUN("f { a = f32[2] parameter(0)\n ROOT n = f32[2] negate(a) }\n"
      "ENTRY e { a = f32[2] constant({1,2})\n ROOT c = f32[2] fusion(a), kind=kLoop, calls=f }", -1, -2);
  RUN("f { a = f32[2] parameter(0)\n ROOT n = f32[2] negate(a) }\n"
      "ENTRY e { a = f32[2] constant({1,2})\n c = f32[2] call(a), to_apply=f\n"
      " t = (f32[2], f32[2]) tuple(a, c)\n ROOT g = f32[2] get-tuple-element(t), index=1 }", -1, -2);
  /* fft: length-4 FFT of [1,0,0,0] is all ones; of [0,1,0,0] is [1,-i,-1,i] */
  RUN("ENTRY e { a = c64[4] constant({(0,0),(1,0),(0,0),(0,0)})\n"
      " ROOT f = c64[4] fft(a), fft_type=FFT, fft_length={4} }", 1, 0, 0, -1, -1, 0, 0, 1);
  RUN("ENTRY e { a = f32[4] constant({1,2,3,4})\n"
      " ROOT f = c64[3] fft(a), fft_type=RFFT, fft_length={4} }", 10, 0, -2, 2, -2, 0);
  RUN("ENTRY e { a = c64[3] constant({(10,0),(-2,2),(-2,0)})\n"
      " ROOT f = f32[4] fft(a), fft_type=IRFFT, fft_length={4} }", 1, 2, 3, 4);
  RUN("ENTRY e { a = c64[2] constant({(3,0),(-1,0)})\n"
      " ROOT f = c64[2] fft(a), fft_type=IFFT, fft_length={2} }", 1, 0, 2, 0);
  /* triangular solve, left_side=true: op(a) x = b (DECISIONS errata) */
  RUN("ENTRY e { a = f32[2,2] constant({{2,0},{1,4}})\n b = f32[2,1] constant({{2},{9}})\n"
      " ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, lower=true,"
      " transpose_a=NO_TRANSPOSE }", 1, 2);
  RUN("ENTRY e { a = f32[2,2] constant({{2,0},{1,4}})\n b = f32[1,2] constant({{4,8}})\n"
      " ROOT x = f32[1,2] triangular-solve(a, b), left_side=false, lower=true,"
      " transpose_a=NO_TRANSPOSE }", 1, 2);
  /* cholesky */
  RUN("ENTRY e { a = f32[2,2] constant({{4,2},{2,5}})\n ROOT l = f32[2,2] cholesky(a), lower=true }",
      2, 0, 1, 2);
  /* batch norm inference */
  RUN("ENTRY e { x = f32[2,2] constant({{1,2},{3,4}})\n s = f32[2] constant({1,2})\n"
      " o = f32[2] constant({0,1})\n m = f32[2] constant({2,3})\n v = f32[2] constant({1,4})\n"
      " ROOT y = f32[2,2] batch-norm-inference(x, s, o, m, v), epsilon=0, feature_index=1 }",
      -1, 0, 1, 2);
  RUN("ENTRY e { x = f32[2,1] constant({{1},{3}})\n s = f32[1] constant({1})\n o = f32[1] constant({0})\n"
      " ROOT y = (f32[2,1], f32[1], f32[1]) batch-norm-training(x, s, o), epsilon=0, feature_index=1 }",
      -1, 1, 2, 1);
  /* collectives with one replica */
  RUN(ADD_COMP "ENTRY e { a = f32[2] constant({1,2})\n"
      " ROOT r = f32[2] all-reduce(a), replica_groups={}, to_apply=add }", 1, 2);
  RUN("ENTRY e { ROOT r = u32[] replica-id() }", 0);
  /* gather/scatter with batching dimensions: out[i] = a[i, idx[i]] */
  RUN("ENTRY e { a = s32[2,3] constant({{1,2,3},{4,5,6}})\n i = s32[2,1] constant({{2},{0}})\n"
      " ROOT g = s32[2] gather(a, i), offset_dims={}, collapsed_slice_dims={1},"
      " start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0},"
      " index_vector_dim=1, slice_sizes={1,1} }", 3, 4);
  RUN(ADDI_COMP "ENTRY e { a = s32[2,3] constant({{1,2,3},{4,5,6}})\n i = s32[2,1] constant({{2},{0}})\n"
      " u = s32[2] constant({10, 20})\n"
      " ROOT g = s32[2,3] scatter(a, i, u), update_window_dims={}, inserted_window_dims={1},"
      " scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0},"
      " index_vector_dim=1, to_apply=addi }", 1, 2, 13, 24, 5, 6);
  /* scatter skips an out-of-bounds window; gather clamps */
  RUN(ADDI_COMP "ENTRY e { a = s32[3] constant({1,2,3})\n i = s32[2,1] constant({{5},{1}})\n"
      " u = s32[2,2] constant({{10,10},{20,30}})\n"
      " ROOT g = s32[3] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={},"
      " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=addi }", 1, 22, 33);
  RUN("ENTRY e { a = s32[3] constant({1,2,3})\n i = s32[1] constant({7})\n"
      " ROOT g = s32[2] gather(a, i), offset_dims={0}, collapsed_slice_dims={},"
      " start_index_map={0}, index_vector_dim=0, slice_sizes={2} }", 2, 3);
  /* dot with a wider result type (s8 x s8 -> s32, f16 x f16 -> f32) */
  RUN("ENTRY e { a = s8[2] constant({100, 100})\n b = s8[2] constant({100, -50})\n"
      " ROOT d = s32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0} }", 5000);
  RUN("ENTRY e { a = f16[2] constant({60000, 60000})\n b = f16[2] constant({2, 2})\n"
      " ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0} }", 240000);
  /* intermediates that die are overwritten in place on the fast path */
  RUN("ENTRY e { a = f32[3] constant({1, 2, 3})\n b = f32[3] constant({10, 20, 30})\n"
      " c = f32[3] add(a, b)\n d = f32[3] multiply(c, b)\n n = f32[3] negate(d)\n"
      " r = f32[3] reshape(n)\n s = f32[3] subtract(r, a)\n ROOT t = (f32[3], f32[3]) tuple(s, c) }",
      -111, -442, -993, 11, 22, 33);
  /* a while loop filling a buffer with dynamic-update-slice (in place) */
  RUN("c { p = (s32[], s32[4]) parameter(0)\n i = s32[] get-tuple-element(p), index=0\n"
      " n = s32[] constant(4)\n ROOT l = pred[] compare(i, n), direction=LT }\n"
      "b { p = (s32[], s32[4]) parameter(0)\n i = s32[] get-tuple-element(p), index=0\n"
      " v = s32[4] get-tuple-element(p), index=1\n sq = s32[] multiply(i, i)\n"
      " u = s32[1] broadcast(sq), dimensions={}\n w = s32[4] dynamic-update-slice(v, u, i)\n"
      " o = s32[] constant(1)\n j = s32[] add(i, o)\n ROOT t = (s32[], s32[4]) tuple(j, w) }\n"
      "ENTRY e { z = s32[] constant(0)\n v = s32[4] constant({7, 7, 7, 7})\n"
      " t = (s32[], s32[4]) tuple(z, v)\n w = (s32[], s32[4]) while(t), condition=c, body=b\n"
      " ROOT r = s32[4] get-tuple-element(w), index=1 }", 0, 1, 4, 9);
  /* the constant is shared and must not be overwritten by a later step */
  RUN("ENTRY e { a = f32[2] constant({1, 2})\n b = f32[2] negate(a)\n c = f32[2] negate(a)\n"
      " ROOT t = (f32[2], f32[2], f32[2]) tuple(a, b, c) }", 1, 2, -1, -2, -1, -2);
  /* allocation failures anywhere in planning or running fail cleanly */
  check_alloc_failures(__LINE__, ADD_COMP "lt2 { a = f32[] parameter(0)\n b = f32[] parameter(1)\n c = s32[] parameter(2)\n"
      " d = s32[] parameter(3)\n ROOT l = pred[] compare(a, b), direction=GT }\n"
      "ENTRY e { a = f32[2,3] constant({{1,2,3},{4,5,6}})\n"
      " z = f32[] constant(0)\n r = f32[2] reduce(a, z), dimensions={1}, to_apply=add\n"
      " b = f32[3,2] transpose(a), dimensions={1,0}\n d = f32[2,2] dot(a, b), lhs_contracting_dims={1},"
      " rhs_contracting_dims={0}\n r2 = s32[2] iota(), iota_dimension=0\n"
      " s = (f32[2], s32[2]) sort(r, r2), dimensions={0}, to_apply=lt2\n ROOT t = (f32[2], f32[2,2], (f32[2], s32[2])) tuple(r, d, s) }");
  /* unsupported ops name the instruction */
  check_fail(__LINE__, "ENTRY e { t = token[] after-all()\n ROOT i = (f32[2], token[]) infeed(t) }",
             "instruction %i: op 'infeed' is not supported by hlo-run");
  check_fail(__LINE__, "ENTRY e { a = f32[2] constant({1,2})\n"
             " ROOT c = f32[2] custom-call(a), custom_call_target=\"foo\" }",
             "custom-call target \"foo\" is not known to hlo-run");
  check_borrow();
  check_mixed_precision();
  check_dynamic();
  TEST_MAIN_END("exec");
}
