/* difftest.h - differential test helpers for fast kernels (included by
 * test programs only): random inputs with edge values, ties and NaN, runs
 * of a module on the reference and the fast path, byte comparison, and a
 * check that the expected fast kernel was chosen for the entry root.
 * The including file defines dt_name (its name, for messages). */
#ifndef HLO_EXEC_DIFFTEST_H
#define HLO_EXEC_DIFFTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/fast.h"
#include "hlo/hlo_text.h"
#include "testing.h"

static inline uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
  return *s;
}

/* Bits of one element of type t: mostly random bits, often one of a few
 * edge values (zeros of both signs, infinities, extremes), often one of 6
 * repeated values (ties).  A NaN (random sign and payload) when nan. */
static inline uint64_t elem_bits(hlo_type t, uint64_t *s, bool nan, const uint64_t *pool) {
  int w = hlo_type_bytes(t) * 8;
  uint64_t M = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1, S = (uint64_t)1 << (w - 1);
  uint64_t r = rnd(s), b;
  switch (r % 8) {
  case 0: case 1: b = pool[(r >> 8) % 6]; break;
  case 2: {
    static const uint64_t f32e[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 1, 0x80000001u,
                                    0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u};
    static const uint64_t f64e[] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                    0xfff0000000000000ull, 1, 0x8000000000000001ull,
                                    0x7fefffffffffffffull, 0xffefffffffffffffull};
    static const uint64_t f16e[] = {0, 0x8000, 0x7c00, 0xfc00, 1, 0x8001, 0x7bff, 0xfbff};
    static const uint64_t bf16e[] = {0, 0x8000, 0x7f80, 0xff80, 1, 0x8001, 0x7f7f, 0xff7f};
    uint64_t q = r >> 12;
    if (t == HLO_F32) b = f32e[q % 10];
    else if (t == HLO_F64) b = f64e[q % 8];
    else if (t == HLO_F16) b = f16e[q % 8];
    else if (t == HLO_BF16) b = bf16e[q % 8];
    else b = (uint64_t[]){0, S, S - 1, M, 1}[q % 5];
    break;
  }
  default: b = rnd(s); break;
  }
  b &= M;
  if (t == HLO_PRED) b = b & 1;
  if (hlo_type_kind_of(t) == HLO_KIND_FLOAT) {
    uint64_t inf = w == 64 ? 0x7ff0000000000000ull : w == 32 ? 0x7f800000u
                 : t == HLO_F16 ? 0x7c00 : 0x7f80;
    if (nan) {
      uint64_t pay = rnd(s) & (inf - 1) & ~(inf >> 1) & M; /* below the exponent */
      b = (b & S) | inf | (pay ? pay : 1);
    } else if ((b & ~S) > inf) {
      b ^= inf & ~(inf >> 1); /* no NaN: clear the top exponent bit */
    }
  }
  return b;
}

/* nan: one element in nan is a NaN (0: none). */
static inline void fill_val(hlo_val *v, uint64_t seed, int nan) {
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++) fill_val(v->tuple[i], seed + 7 * (uint64_t)i, nan);
    return;
  }
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1, pool[6];
  hlo_type t = v->shape->type;
  hlo_type pt = hlo_type_bytes(t) > 8 ? HLO_F64 : t;
  for (int i = 0; i < 6; i++) pool[i] = elem_bits(pt, &s, false, (uint64_t[6]){0});
  int es = hlo_type_bytes(t);
  for (int64_t k = 0; k < v->nelems; k++) {
    if (es > 8) { /* c128: two f64 parts */
      for (int part = 0; part < es / 8; part++) {
        uint64_t b = elem_bits(HLO_F64, &s, nan && rnd(&s) % (uint64_t)nan == 0, pool);
        memcpy((char *)v->data + k * es + part * 8, &b, 8);
      }
      continue;
    }
    uint64_t b = elem_bits(t, &s, nan && rnd(&s) % (uint64_t)nan == 0, pool);
    memcpy((char *)v->data + k * es, &b, (size_t)es);
  }
}

/* Run text with the reference or the fast path; *kname gets the kernel
 * chosen for the entry root. */
static hlo_val *run_mod(hlo_module *m, bool fast, hlo_val **args, int nargs, char *kname,
                        size_t kl, int threads) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_exec_options o = {0};
  o.reference = !fast;
  o.threads = threads;
  hlo_exec *e = hlo_exec_new(m, &o, NULL, &d);
  hlo_val *res = NULL;
  if (e && kname)
    for (int k = 0; k < e->entry->nsteps; k++)
      if (e->entry->steps[k].in == m->entry->root)
        snprintf(kname, kl, "%s", e->entry->steps[k].kname);
  if (!e || hlo_exec_run(e, args, nargs, &res)) {
    printf("%s: %s run failed:", dt_name, fast ? "fast" : "reference");
    for (int i = 0; i < d.n; i++) printf(" %s", d.v[i].msg);
    printf("\n");
    res = NULL;
  }
  hlo_exec_free(e);
  hlo_diags_release(&d);
  return res;
}

static inline bool same_bits(const hlo_val *a, const hlo_val *b, char *why, size_t wl) {
  if (a->ntuple != b->ntuple) return snprintf(why, wl, "tuple arity"), false;
  for (int i = 0; i < a->ntuple; i++)
    if (!same_bits(a->tuple[i], b->tuple[i], why, wl)) return false;
  if (a->ntuple) return true;
  if (a->nbytes != b->nbytes) return snprintf(why, wl, "sizes differ"), false;
  int es = hlo_type_bytes(a->shape->type);
  for (size_t i = 0; i < a->nbytes; i++)
    if (((const char *)a->data)[i] != ((const char *)b->data)[i]) {
      size_t e = i / (size_t)es * (size_t)es, m = es < 8 ? (size_t)es : 8;
      uint64_t x = 0, y = 0;
      memcpy(&x, (const char *)a->data + e, m);
      memcpy(&y, (const char *)b->data + e, m);
      return snprintf(why, wl, "element %lld differs: reference 0x%llx fast 0x%llx",
                      (long long)(i / (size_t)es), (unsigned long long)x, (unsigned long long)y), false;
    }
  return true;
}

/* Parse text (a failure counts and is printed; NULL) and make its entry's
 * arguments (at most 8) filled by fill_val from seed; free both with
 * dt_module_free. */
static inline hlo_module *dt_module_new(int line, const char *text, hlo_diags *d, hlo_val **args,
                                        int *na, uint64_t seed, int nan) {
  hlo_src src = {"test", text, strlen(text)};
  hlo_diags_init(d, NULL);
  hlo_module *m = hlo_parse_module(&src, 0, src.len, NULL, d, NULL);
  if (!m) {
    t_fail++;
    printf("%s:%d: parse failed: %s\n", dt_name, line, d->n ? d->v[0].msg : "");
    hlo_diags_release(d);
    return NULL;
  }
  *na = m->entry->nparams;
  for (int i = 0; i < *na; i++) {
    args[i] = hlo_val_new(NULL, &m->entry->params[i]->shape);
    fill_val(args[i], seed + (uint64_t)i * 31, nan);
  }
  return m;
}

static inline void dt_module_free(hlo_module *m, hlo_diags *d, hlo_val **args, int na) {
  for (int i = 0; i < na; i++) hlo_val_release(NULL, args[i]);
  hlo_module_free(m);
  hlo_diags_release(d);
}

/* Run text both ways (the fast path on threads threads, 0 = all cores);
 * the fast kernel's name must contain want. */
static inline void check_th(int line, const char *text, const char *want, int nan, int threads) {
  hlo_diags d;
  hlo_val *args[8];
  int na;
  hlo_module *m = dt_module_new(line, text, &d, args, &na, 17 + (uint64_t)line, nan);
  if (!m) return;
  char kname[128] = "";
  hlo_val *ref = run_mod(m, false, args, na, NULL, 0, 0);
  hlo_val *fast = run_mod(m, true, args, na, kname, sizeof kname, threads);
  char why[256] = "";
  /* the bit-identity asked here is what the tolerance table states */
  hlo_tol tol = hlo_tol_of(m->entry->root, hlo_shape_is_array(&m->entry->root->shape)
                                               ? m->entry->root->shape.type : HLO_F32);
  if (tol.ulps || tol.terms) snprintf(why, sizeof why, "tolerance.c does not promise the same bits");
  if (!ref || !fast || !strstr(kname, want) || *why || !same_bits(ref, fast, why, sizeof why)) {
    t_fail++;
    printf("%s:%d: %s (kernel %s)\n", dt_name, line,
           ref && fast && !strstr(kname, want) ? "expected fast kernel not chosen" : why, kname);
  } else {
    t_pass++;
  }
  hlo_val_release(NULL, ref);
  hlo_val_release(NULL, fast);
  dt_module_free(m, &d, args, na);
}

static inline void check(int line, const char *text, const char *want, int nan) {
  check_th(line, text, want, nan, 0);
}

/* Copy tmpl to out with every "%s" replaced by t. */
static inline void subst(char *out, size_t n, const char *tmpl, const char *t) {
  size_t k = 0, tl = strlen(t);
  for (const char *p = tmpl; *p && k + tl + 1 < n; p++) {
    if (p[0] == '%' && p[1] == 's') {
      memcpy(out + k, t, tl);
      k += tl;
      p++;
    } else {
      out[k++] = *p;
    }
  }
  out[k] = 0;
}

#endif
