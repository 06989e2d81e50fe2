/* baseline.c - machine limits for `make bench` (not part of libhlo): the
 * FLOP rate of OpenBLAS sgemm called directly (square n x n, best of a few
 * runs) and memcpy bandwidth (bytes read + written per second, 64 MB
 * buffers).  Built and run by testdata/bench.py; prints one line per
 * figure: "sgemm N GFLOPS", "memcpy GBPS". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double sgemm_rate(int n, int reps) {
  float *a = malloc(sizeof(float) * (size_t)n * (size_t)n);
  float *b = malloc(sizeof(float) * (size_t)n * (size_t)n);
  float *c = malloc(sizeof(float) * (size_t)n * (size_t)n);
  if (!a || !b || !c) return 0;
  for (size_t i = 0; i < (size_t)n * (size_t)n; i++) {
    a[i] = (float)(i % 17) * 0.01f;
    b[i] = (float)(i % 13) * 0.02f;
  }
  double best = 1e30;
  for (int r = 0; r < reps + 1; r++) {
    double t = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c,
                n);
    t = now() - t;
    if (r > 0 && t < best) best = t; /* first run warms up */
  }
  free(a);
  free(b);
  free(c);
  return 2.0 * n * (double)n * n / best / 1e9;
}

static double memcpy_rate(size_t bytes, int reps) {
  char *s = malloc(bytes), *d = malloc(bytes);
  if (!s || !d) return 0;
  memset(s, 1, bytes);
  memset(d, 2, bytes);
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t = now();
    memcpy(d, s, bytes);
    t = now() - t;
    if (t < best) best = t;
  }
  volatile char sink = d[bytes / 2];
  (void)sink;
  free(s);
  free(d);
  return 2.0 * (double)bytes / best / 1e9;
}

/* baseline [REPS [WHICH]]: WHICH is sgemm1024, sgemm2048 or memcpy (default: all). */
int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  const char *which = argc > 2 ? argv[2] : "";
  if (reps < 1) reps = 1;
  if (!*which || !strcmp(which, "sgemm1024")) printf("sgemm 1024 %.3f\n", sgemm_rate(1024, reps));
  if (!*which || !strcmp(which, "sgemm2048"))
    printf("sgemm 2048 %.3f\n", sgemm_rate(2048, reps > 3 ? 3 : reps));
  if (!*which || !strcmp(which, "memcpy")) printf("memcpy %.3f\n", memcpy_rate((size_t)64 << 20, reps * 2));
  return 0;
}
