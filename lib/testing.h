/* testing.h - the tiny unit-test harness used by the lib/STAGE/NAME_test.c programs.
 * Each test program runs its checks, prints one line per failure as
 * "file:line: expected X got Y", and ends with "unit NAME: N passed, M failed";
 * the exit status is 1 if anything failed. */
#ifndef HLO_TESTING_H
#define HLO_TESTING_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo_core.h"

static int t_pass, t_fail;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (cond) t_pass++;                                                    \
    else {                                                                 \
      t_fail++;                                                            \
      printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);      \
    }                                                                      \
  } while (0)

#define CHECK_INT(got, want)                                               \
  do {                                                                     \
    long long g_ = (long long)(got), w_ = (long long)(want);               \
    if (g_ == w_) t_pass++;                                                \
    else {                                                                 \
      t_fail++;                                                            \
      printf("%s:%d: %s: expected %lld got %lld\n", __FILE__, __LINE__,    \
             #got, w_, g_);                                                \
    }                                                                      \
  } while (0)

#define CHECK_STR(got, want)                                               \
  do {                                                                     \
    const char *g_ = (got), *w_ = (want);                                  \
    if (g_ && w_ && strcmp(g_, w_) == 0) t_pass++;                         \
    else {                                                                 \
      t_fail++;                                                            \
      printf("%s:%d: %s: expected [%s] got [%s]\n", __FILE__, __LINE__,    \
             #got, w_ ? w_ : "(null)", g_ ? g_ : "(null)");                \
    }                                                                      \
  } while (0)

/* An allocator that fails every allocation once `left` more have been
 * made, and counts live blocks: after everything is released, live must be
 * 0 (tests sweep `left` over 0, 1, 2, ... to fail each allocation in turn). */
typedef struct test_counting {
  long left, live;
} test_counting;

static inline void *test_c_alloc(void *ud, size_t n) {
  test_counting *c = ud;
  if (c->left-- == 0) return NULL;
  c->live++;
  return malloc(n);
}

static inline void *test_c_realloc(void *ud, void *p, size_t n) {
  test_counting *c = ud;
  if (c->left-- == 0) return NULL;
  if (!p) c->live++;
  return realloc(p, n);
}

static inline void test_c_free(void *ud, void *p) {
  test_counting *c = ud;
  if (p) c->live--;
  free(p);
}

#define TEST_COUNTING_ALLOCATOR(c) ((hlo_allocator){test_c_alloc, test_c_realloc, test_c_free, (c)})

#define TEST_MAIN_END(name)                                                \
  do {                                                                     \
    printf("unit %s: %d passed, %d failed\n", name, t_pass, t_fail);       \
    return t_fail ? 1 : 0;                                                 \
  } while (0)

#endif
