/* npy_test.c - .npy/.npz reading and writing against numpy itself.
 * testdata/npy/Inputs/gen_npy.py (run through /usr/bin/python3, cwd = repo
 * root as make check runs unit tests) writes numpy files of every dtype,
 * both byte orders, Fortran order, header versions 1-3, stored and deflated
 * .npz, and corrupt files, with a manifest of what must come out; this
 * program checks each, writes its own files, and has numpy load those back.
 * Everything lives in a fresh /tmp directory that is removed at the end. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlo/hlo_npy.h"
#include "testing.h"

#define GEN "testdata/npy/Inputs/gen_npy.py"

static char dir[64];

static char *path_of(const char *name, char *buf, size_t cap) {
  snprintf(buf, cap, "%s/%s", dir, name);
  return buf;
}

static void *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc(n > 0 ? (size_t)n : 1);
  *len = fread(p, 1, (size_t)n, f);
  fclose(f);
  return p;
}

static void remove_dir(void) {
  DIR *dp = opendir(dir);
  if (!dp) return;
  struct dirent *e;
  char p[2048];
  while ((e = readdir(dp)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(path_of(e->d_name, p, sizeof p));
  closedir(dp);
  rmdir(dir);
}

static bool run_py(const char *mode) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s %s", GEN, mode, dir);
  FILE *p = popen(cmd, "r");
  if (!p) return false;
  char line[512];
  while (fgets(line, sizeof line, p)) printf("python: %s", line);
  return pclose(p) == 0;
}

static const char *last_msg(hlo_diags *d) { return d->n ? d->v[d->n - 1].msg : ""; }

static bool same_shape(const hlo_array *a, const char *shape) {
  if (strcmp(shape, "-") == 0) return a->rank == 0;
  int r = 0;
  const char *s = shape;
  while (*s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (r >= a->rank || a->dims[r] != v) return false;
    r++;
    s = *end == ',' ? end + 1 : end;
  }
  return r == a->rank;
}

static void check_array(const char *what, const hlo_array *a, const char *type, const char *shape,
                        const char *raw) {
  hlo_type t;
  bool ok = hlo_type_lookup(type, strlen(type), &t) && a->type == t && same_shape(a, shape);
  size_t len = 0;
  char p[2048];
  void *want = slurp(path_of(raw, p, sizeof p), &len);
  ok = ok && want && len == (size_t)a->nelems * (size_t)hlo_type_bytes(a->type) &&
       memcmp(want, a->data, len) == 0;
  if (!ok) printf("%s: wrong type, shape or data\n", what);
  CHECK(ok);
  free(want);
}

typedef struct npz_cache {
  char file[64];
  hlo_npz z;
  int rc;
} npz_cache;

static void test_files(void) {
  strcpy(dir, "/tmp/hlo_npy_XXXXXX");
  if (!mkdtemp(dir)) {
    CHECK(!"mkdtemp");
    return;
  }
  bool gen_ok = run_py("gen");
  CHECK(gen_ok);
  char p[2048];
  FILE *m = fopen(path_of("manifest.txt", p, sizeof p), "r");
  CHECK(m != NULL);
  if (!gen_ok || !m) {
    if (m) fclose(m);
    remove_dir();
    return;
  }
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  npz_cache cache[8];
  int ncache = 0, nok = 0, nerr = 0, nmapped = 0;
  char line[512];
  while (fgets(line, sizeof line, m)) {
    char kind[8], file[64], member[32], type[32], shape[256], void1[32], last[64];
    if (sscanf(line, "%7s %63s %31s %31s %255s %31s %63s", kind, file, member, type, shape, void1,
               last) != 7) {
      CHECK(!"manifest line");
      continue;
    }
    hlo_npy_opts o = hlo_npy_default_opts();
    if (strcmp(void1, "-") != 0) hlo_type_lookup(void1, strlen(void1), &o.void1);
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    bool npz = strstr(file, ".npz") != NULL;
    if (strcmp(kind, "ok") == 0) {
      nok++;
      char raw[1024];
      snprintf(raw, sizeof raw, "%s.%s.raw", file, member);
      if (!npz) {
        hlo_array arr;
        int rc = hlo_npy_load(&a, path_of(file, p, sizeof p), &o, &arr, &d);
        if (rc != HLO_OK) printf("%s: %s\n", file, last_msg(&d));
        CHECK_INT(rc, HLO_OK);
        if (rc == HLO_OK) {
          check_array(file, &arr, type, shape, raw);
          hlo_buf b;
          hlo_buf_init(&b, NULL);
          CHECK_INT(hlo_npy_write(&b, &arr, &d), HLO_OK);
          if (atoi(last)) { /* numpy.save's exact bytes */
            size_t len;
            void *orig = slurp(path_of(file, p, sizeof p), &len);
            bool same = orig && len == b.len && memcmp(orig, b.data, len) == 0;
            if (!same) printf("%s: written bytes differ from numpy.save\n", file);
            CHECK(same);
            free(orig);
          }
          if (strcmp(void1, "-") == 0) {
            char ours[1024];
            snprintf(ours, sizeof ours, "ours_%s", file);
            CHECK_INT(hlo_npy_save(path_of(ours, p, sizeof p), &arr, &d), HLO_OK);
          }
          hlo_buf_release(&b);
        }
        /* The mapping path gives the same values; it maps exactly the
         * C-order, little-endian, non-bool files and copies the rest. */
        hlo_npy_mapping map;
        hlo_array marr;
        int mrc = hlo_npy_map(&a, path_of(file, p, sizeof p), &o, &marr, &map, &d);
        CHECK_INT(mrc, HLO_OK);
        if (mrc == HLO_OK) {
          check_array(file, &marr, type, shape, raw);
          if (map.base) {
            nmapped++;
            const char *lo = map.base;
            CHECK((const char *)marr.data >= lo && (const char *)marr.data < lo + map.len + 1);
            CHECK(marr.type != HLO_PRED);
          }
          /* the copy path takes Fortran order (rank 3 here) and big-endian
           * multi-byte types */
          if (strstr(file, "_fortran")) CHECK(map.base == NULL);
          if (strstr(file, "_be.npy") && hlo_type_bytes(marr.type) > 1) CHECK(map.base == NULL);
          hlo_npy_unmap(&map);
        }
      } else {
        npz_cache *c = NULL;
        for (int i = 0; i < ncache; i++)
          if (strcmp(cache[i].file, file) == 0) c = &cache[i];
        if (!c && ncache < 8) {
          c = &cache[ncache++];
          snprintf(c->file, sizeof c->file, "%s", file);
          c->rc = hlo_npz_load(&a, path_of(file, p, sizeof p), &o, &c->z, &d);
          if (c->rc != HLO_OK) printf("%s: %s\n", file, last_msg(&d));
          CHECK_INT(c->rc, HLO_OK);
          /* numpy's archive mapped: the same members and bytes */
          hlo_npz mz;
          hlo_npy_mapping map;
          int mrc = hlo_npz_map(&a, p, &o, &mz, &map, &d);
          CHECK_INT(mrc, c->rc);
          for (int k = 0; mrc == HLO_OK && c->rc == HLO_OK && k < mz.n && k < c->z.n; k++) {
            const hlo_array *x = &c->z.v[k].arr, *y = &mz.v[k].arr;
            size_t bytes = (size_t)x->nelems * (size_t)hlo_type_bytes(x->type);
            CHECK(strcmp(mz.v[k].name, c->z.v[k].name) == 0 && y->type == x->type &&
                  y->nelems == x->nelems && memcmp(x->data, y->data, bytes) == 0);
          }
          hlo_npy_unmap(&map);
        }
        const hlo_array *arr = NULL;
        for (int i = 0; c && c->rc == HLO_OK && i < c->z.n; i++)
          if (strcmp(c->z.v[i].name, member) == 0) arr = &c->z.v[i].arr;
        if (!arr) printf("%s: member %s missing\n", file, member);
        CHECK(arr != NULL);
        if (arr) check_array(file, arr, type, shape, raw);
      }
    } else {
      nerr++;
      int rc;
      if (npz) {
        hlo_npz z;
        rc = hlo_npz_load(&a, path_of(file, p, sizeof p), &o, &z, &d);
        hlo_npy_mapping map;
        hlo_diags md;
        hlo_diags_init(&md, NULL);
        int mrc = hlo_npz_map(&a, p, &o, &z, &map, &md);
        bool mgood = mrc == HLO_ERR && map.base == NULL && md.nerrors > 0 && strstr(last_msg(&md), last);
        if (!mgood) printf("%s (mapped): expected an error with '%s', got rc=%d\n", file, last, mrc);
        CHECK(mgood);
        hlo_diags_release(&md);
      } else {
        hlo_array arr;
        rc = hlo_npy_load(&a, path_of(file, p, sizeof p), &o, &arr, &d);
        /* The mapping path finds the same fault before touching data. */
        hlo_npy_mapping map;
        hlo_diags md;
        hlo_diags_init(&md, NULL);
        int mrc = hlo_npy_map(&a, path_of(file, p, sizeof p), &o, &arr, &map, &md);
        bool mgood = mrc == HLO_ERR && map.base == NULL && md.nerrors > 0 &&
                     strstr(last_msg(&md), last) && strstr(last_msg(&md), file);
        if (!mgood) printf("%s (mapped): expected an error with '%s', got rc=%d\n", file, last, mrc);
        CHECK(mgood);
        hlo_diags_release(&md);
      }
      bool good = rc == HLO_ERR && d.nerrors > 0 && strstr(last_msg(&d), last) &&
                  strstr(last_msg(&d), file);
      if (!good) printf("%s: expected an error with '%s', got rc=%d [%s]\n", file, last, rc, last_msg(&d));
      CHECK(good);
    }
    hlo_diags_release(&d);
  }
  fclose(m);
  CHECK(nok > 150);
  CHECK(nerr > 20);
  printf("npy: %d of %d readable .npy files mapped\n", nmapped, nok);
  CHECK(nmapped > 20);
  /* Our .npz files, read back by numpy. */
  int nviewed_all = 0;
  for (int i = 0; i < ncache; i++) {
    if (cache[i].rc != HLO_OK) continue;
    bool compress = strcmp(cache[i].file, "deflated.npz") == 0;
    char ours[1024];
    snprintf(ours, sizeof ours, "ours_%s", cache[i].file);
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    CHECK_INT(hlo_npz_save(path_of(ours, p, sizeof p), cache[i].z.v, cache[i].z.n, compress, &d),
              HLO_OK);
    hlo_npz back;
    CHECK_INT(hlo_npz_load(&a, p, NULL, &back, &d), HLO_OK);
    CHECK_INT(back.n, cache[i].z.n);
    /* Mapped back: each stored member that needs no conversion points
     * into the mapping, 64-byte aligned, with the same bytes. */
    hlo_npz mz;
    hlo_npy_mapping map;
    CHECK_INT(hlo_npz_map(&a, p, NULL, &mz, &map, &d), HLO_OK);
    CHECK_INT(mz.n, cache[i].z.n);
    int nview = 0, nwant = 0;
    for (int k = 0; k < mz.n && k < cache[i].z.n; k++) {
      const hlo_array *x = &cache[i].z.v[k].arr, *y = &mz.v[k].arr;
      size_t bytes = (size_t)x->nelems * (size_t)hlo_type_bytes(x->type);
      CHECK(y->type == x->type && y->nelems == x->nelems && memcmp(x->data, y->data, bytes) == 0);
      const char *lo = map.base;
      bool in = lo && (const char *)y->data >= lo && (const char *)y->data <= lo + map.len;
      nview += in;
      nwant += !compress && x->type != HLO_PRED;
      if (in) CHECK((size_t)((const char *)y->data - lo) % 64 == 0);
    }
    if (nview != nwant) printf("%s: %d of %d members mapped\n", ours, nview, nwant);
    CHECK_INT(nview, nwant);
    nviewed_all += nview;
    if (compress) CHECK(map.base == NULL);
    hlo_npy_unmap(&map);
    hlo_diags_release(&d);
  }
  printf("npz: %d members of our archives mapped\n", nviewed_all);
  CHECK(nviewed_all >= 4);
  CHECK(run_py("check"));
  hlo_arena_release(&a);
  remove_dir();
}

/* In-memory corner cases that need no numpy. */
static void test_memory(void) {
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  int64_t dims[2] = {2, 3};
  hlo_array x;
  CHECK_INT(hlo_array_alloc(&a, HLO_F8E5M2, 2, dims, &x), HLO_OK);
  for (int i = 0; i < 6; i++) ((unsigned char *)x.data)[i] = (unsigned char)(0x38 + i);
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  CHECK_INT(hlo_npy_write(&b, &x, &d), HLO_OK);
  CHECK((b.len - 6) % 64 == 0);
  CHECK(memmem(b.data, b.len, "'descr': '|V1'", 14) != NULL);
  hlo_array y;
  hlo_npy_opts o = hlo_npy_default_opts();
  CHECK_INT(hlo_npy_read(&a, "mem", b.data, b.len, &o, &y, &d), HLO_ERR); /* needs a hint */
  o.void1 = HLO_F8E5M2;
  CHECK_INT(hlo_npy_read(&a, "mem", b.data, b.len, &o, &y, &d), HLO_OK);
  CHECK(y.type == HLO_F8E5M2 && y.rank == 2 && memcmp(x.data, y.data, 6) == 0);
  o.void1 = HLO_S16; /* wrong size for V1 */
  CHECK_INT(hlo_npy_read(&a, "mem", b.data, b.len, &o, &y, &d), HLO_ERR);
  CHECK(strstr(last_msg(&d), "size") != NULL);
  /* Every truncation of a valid file fails cleanly. */
  int bad = 0;
  o.void1 = HLO_F8E5M2;
  for (size_t n = 0; n < b.len; n++)
    if (hlo_npy_read(&a, "mem", b.data, n, &o, &y, &d) != HLO_ERR) bad++;
  CHECK_INT(bad, 0);
  /* Flipping any byte of a valid image never crashes (errors or not). */
  for (size_t i = 0; i < b.len; i++) {
    for (int bit = 0; bit < 8; bit++) {
      b.data[i] ^= (char)(1 << bit);
      (void)hlo_npy_read(&a, "mem", b.data, b.len, &o, &y, &d);
      b.data[i] ^= (char)(1 << bit);
    }
  }
  /* npz of two members, every truncation fails, flipping any byte never crashes. */
  hlo_npz_member mem[2] = {{"x", x}, {"y", y}};
  hlo_buf z;
  hlo_buf_init(&z, NULL);
  CHECK_INT(hlo_npz_write(&z, mem, 2, true, &d), HLO_OK);
  hlo_npz back;
  CHECK_INT(hlo_npz_read(&a, "mem.npz", z.data, z.len, &o, &back, &d), HLO_OK);
  CHECK(back.n == 2 && strcmp(back.v[1].name, "y") == 0);
  bad = 0;
  for (size_t n = 0; n + 1 < z.len; n++)
    if (hlo_npz_read(&a, "mem.npz", z.data, n, &o, &back, &d) != HLO_ERR) bad++;
  CHECK_INT(bad, 0);
  for (size_t i = 0; i < z.len; i++) {
    z.data[i] ^= 0x41;
    (void)hlo_npz_read(&a, "mem.npz", z.data, z.len, &o, &back, &d);
    z.data[i] ^= 0x41;
  }
  /* The max_bytes limit applies before any allocation. */
  o.max_bytes = 4;
  CHECK_INT(hlo_npy_read(&a, "mem", b.data, b.len, &o, &y, &d), HLO_ERR);
  CHECK(strstr(last_msg(&d), "limit") != NULL);
  /* Literal view. */
  hlo_literal lit;
  CHECK_INT(hlo_array_to_literal(&a, &x, &lit), HLO_OK);
  CHECK(lit.shape.rank == 2 && lit.shape.dims[1] == 3 && lit.data == x.data && lit.nelems == 6);
  CHECK_STR(hlo_npy_descr(HLO_C128), "<c16");
  CHECK_STR(hlo_npy_dtype_name(HLO_F8E4M3B11FNUZ), "float8_e4m3b11fnuz");
  CHECK(hlo_npy_descr(HLO_TUPLE) == NULL);
  hlo_buf_release(&b);
  hlo_buf_release(&z);
  hlo_diags_release(&d);
  hlo_arena_release(&a);
}

int main(void) {
  test_memory();
  test_files();
  TEST_MAIN_END("npy");
}
