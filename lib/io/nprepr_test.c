/* nprepr_test.c - numpy's repr text, checked against numpy itself:
 * testdata/npy/Inputs/gen_repr.py (run through /usr/bin/python3 from the
 * repo root) saves arrays of every numpy dtype, shapes that wrap and
 * summarise, and float values that exercise every formatting rule, with
 * numpy's repr of each; this program prints each array and compares. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlo/hlo_npy.h"
#include "testing.h"

static char dir[64];

static void remove_dir(void) {
  DIR *dp = opendir(dir);
  if (!dp) return;
  struct dirent *e;
  char p[1024];
  while ((e = readdir(dp))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  closedir(dp);
  rmdir(dir);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = calloc((size_t)n + 1, 1);
  if (fread(p, 1, (size_t)n, f) != (size_t)n) p[0] = 0;
  fclose(f);
  return p;
}

static void test_numpy(void) {
  strcpy(dir, "/tmp/hlo_repr_XXXXXX");
  if (!mkdtemp(dir)) {
    CHECK(!"mkdtemp");
    return;
  }
  char cmd[256];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 testdata/npy/Inputs/gen_repr.py %s", dir);
  CHECK_INT(system(cmd), 0);
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  int n = 0;
  for (int i = 0;; i++) {
    char p[1024];
    snprintf(p, sizeof p, "%s/r%03d.txt", dir, i);
    char *want = slurp(p);
    if (!want) break;
    n++;
    snprintf(p, sizeof p, "%s/r%03d.npy", dir, i);
    hlo_diags d;
    hlo_diags_init(&d, NULL);
    hlo_array arr;
    CHECK_INT(hlo_npy_load(&a, p, NULL, &arr, &d), HLO_OK);
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    CHECK_INT(hlo_npy_repr(&b, &arr, &d), HLO_OK);
    hlo_buf_putc(&b, 0);
    if (strcmp(b.data, want) != 0) printf("case r%03d:\n--- numpy\n%s\n--- ours\n%s\n", i, want, b.data);
    CHECK(strcmp(b.data, want) == 0);
    hlo_buf_release(&b);
    hlo_diags_release(&d);
    free(want);
  }
  CHECK(n > 60);
  hlo_arena_release(&a);
  remove_dir();
}

/* Types numpy itself lacks (ml_dtypes names), printed with the same rules. */
static void test_other_types(void) {
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_array x;
  hlo_src src = {"lit", "[1.5, -2, 448]", 14};
  CHECK_INT(hlo_nplit_parse(&a, &src, HLO_F8E4M3FN, &x, &d), HLO_OK);
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  CHECK_INT(hlo_npy_repr(&b, &x, &d), HLO_OK);
  hlo_buf_putc(&b, 0);
  CHECK_STR(b.data, "array([  1.5,  -2. , 448. ], dtype='float8_e4m3fn')");
  b.len = 0;
  hlo_src s2 = {"lit", "[-8, 7]", 7};
  CHECK_INT(hlo_nplit_parse(&a, &s2, HLO_S4, &x, &d), HLO_OK);
  CHECK_INT(hlo_npy_repr(&b, &x, &d), HLO_OK);
  hlo_buf_putc(&b, 0);
  CHECK_STR(b.data, "array([-8,  7], dtype=int4)");
  hlo_buf_release(&b);
  hlo_diags_release(&d);
  hlo_arena_release(&a);
}

int main(void) {
  test_numpy();
  test_other_types();
  TEST_MAIN_END("nprepr");
}
