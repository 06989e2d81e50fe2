/* calibrate.c - measures the two roofline limits of this machine:
 * single-precision GEMM throughput through OpenBLAS and memcpy bandwidth
 * (bytes read plus bytes written per second), each the best of a few runs. */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost/cost_internal.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double sgemm_gflops(void) {
  const int n = 1024;
  float *a = malloc(sizeof(float) * (size_t)n * n * 3);
  if (!a) return -1;
  float *b = a + (size_t)n * n, *c = b + (size_t)n * n;
  for (size_t i = 0; i < (size_t)n * n; i++) a[i] = (float)(i % 7) * 0.25f, b[i] = (float)(i % 5) * 0.5f;
  double best = 0;
  for (int r = 0; r < 4; r++) {
    double t = now_s();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    t = now_s() - t;
    double g = 2.0 * n * n * (double)n / t / 1e9;
    if (r > 0 && g > best) best = g; /* the first run warms up the threads */
  }
  free(a);
  return best;
}

static double memcpy_gbps(void) {
  const size_t n = (size_t)64 << 20; /* well beyond the last-level cache */
  char *src = malloc(n), *dst = malloc(n);
  if (!src || !dst) {
    free(src);
    free(dst);
    return -1;
  }
  memset(src, 1, n);
  memset(dst, 2, n);
  double best = 0;
  for (int r = 0; r < 5; r++) {
    double t = now_s();
    memcpy(dst, src, n);
    t = now_s() - t;
    double g = 2.0 * (double)n / t / 1e9;
    if (g > best) best = g;
    src[r] = dst[n - 1 - (size_t)r]; /* keep the copies observable */
  }
  free(src);
  free(dst);
  return best;
}

int hlo_cost_calibrate(double *gflops, double *gbps) {
  *gflops = sgemm_gflops();
  *gbps = memcpy_gbps();
  return *gflops > 0 && *gbps > 0 ? HLO_OK : HLO_ERR;
}
