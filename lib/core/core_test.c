/* core_test.c - unit tests for arenas, buffers, overflow checks and
 * diagnostic rendering. */
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_core.h"
#include "testing.h"

/* An allocator that fails the Nth allocation. */
typedef struct failing { int left; } failing;
static void *f_alloc(void *ud, size_t n) {
  failing *f = ud;
  if (f->left-- == 0) return NULL;
  return malloc(n);
}
static void *f_realloc(void *ud, void *p, size_t n) {
  failing *f = ud;
  if (f->left-- == 0) return NULL;
  return realloc(p, n);
}
static void f_free(void *ud, void *p) { (void)ud; free(p); }

static void test_arena(void) {
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  char *p = hlo_arena_alloc(&a, 10);
  CHECK(p != NULL);
  CHECK(((uintptr_t)p & 15) == 0);
  void *big = hlo_arena_alloc(&a, 1 << 20);
  CHECK(big != NULL);
  CHECK(hlo_arena_array(&a, SIZE_MAX / 2, 4) == NULL); /* overflow */
  CHECK(hlo_arena_alloc(&a, SIZE_MAX) == NULL);
  CHECK_STR(hlo_arena_printf(&a, "%s-%d", "x", 42), "x-42");
  CHECK_STR(hlo_arena_strndup(&a, "hello", 3), "hel");
  hlo_arena_release(&a);

  failing f = {1};
  hlo_allocator fa = {f_alloc, f_realloc, f_free, &f};
  hlo_arena_init(&a, &fa);
  CHECK(hlo_arena_alloc(&a, 8) != NULL);
  CHECK(hlo_arena_alloc(&a, 100000) == NULL); /* the second malloc fails */
  hlo_arena_release(&a);
}

/* Large blocks (mapped, 2 MiB-aligned and advised for huge pages from
 * 4 MiB on) arrive zeroed and writable end to end, and so do the blocks an
 * arena grows into as it fills; release unmaps them all. */
static void test_arena_large_blocks(void) {
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  static const size_t sizes[] = {(size_t)3 << 20, (size_t)4 << 20, ((size_t)6 << 20) + 123, (size_t)9 << 20};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    unsigned char *p = hlo_arena_alloc(&a, sizes[k]);
    CHECK(p != NULL);
    if (!p) continue;
    CHECK(((uintptr_t)p & 15) == 0);
    size_t nonzero = 0;
    for (size_t i = 0; i < sizes[k]; i += 4093) nonzero += p[i] != 0;
    nonzero += p[sizes[k] - 1] != 0;
    CHECK(nonzero == 0);
    memset(p, 0xa5, sizes[k]); /* every byte writable */
    CHECK(p[sizes[k] - 1] == 0xa5);
  }
  /* many small allocations: the arena grows to blocks of megabytes */
  size_t total = 0;
  bool zero = true;
  for (int i = 0; i < 200000; i++) {
    unsigned char *q = hlo_arena_alloc(&a, 200);
    if (!q) {
      zero = false;
      break;
    }
    zero &= q[0] == 0 && q[199] == 0;
    q[0] = q[199] = 1;
    total += 200;
  }
  CHECK(zero);
  CHECK(hlo_arena_used(&a) >= total);
  CHECK(a.bytes_reserved >= hlo_arena_used(&a));
  hlo_arena_release(&a);
  CHECK(hlo_arena_used(&a) == 0);
}

static void test_buf(void) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  for (int i = 0; i < 1000; i++) hlo_buf_printf(&b, "%d,", i);
  CHECK(b.len > 1000);
  CHECK(strncmp(b.data, "0,1,2,", 6) == 0);
  char *s = hlo_buf_take(&b);
  CHECK(s != NULL);
  free(s);
  size_t r = 0;
  CHECK(hlo_mul_overflow(SIZE_MAX, 2, &r));
  CHECK(!hlo_mul_overflow(3, 4, &r) && r == 12);
}

static void test_diag(void) {
  const char *text = "HloModule m\nENTRY e {\n  x = f32[] bogus()\n}\n";
  hlo_src src = {"t.hlo", text, strlen(text)};
  hlo_loc loc = hlo_src_loc(&src, (size_t)(strstr(text, "bogus") - text));
  CHECK_INT(loc.line, 3);
  CHECK_INT(loc.col, 13);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  CHECK_INT(hlo_errorf(&d, &src, (size_t)(strstr(text, "bogus") - text), "unknown opcode '%s'",
                       "bogus"),
            HLO_ERR);
  CHECK_INT(d.nerrors, 1);
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_diag_render(&b, &d.v[0]);
  CHECK_STR(b.data, "t.hlo:3:13: error: unknown opcode 'bogus'\n  x = f32[] bogus()\n            ^\n");
  hlo_buf_release(&b);
  hlo_diags_release(&d);
}

int main(void) {
  test_arena();
  test_arena_large_blocks();
  test_buf();
  test_diag();
  TEST_MAIN_END("core");
}
