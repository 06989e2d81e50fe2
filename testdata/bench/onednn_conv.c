/* onednn_conv.c - the convolution yardstick of `make bench` (not part of
 * libhlo): times 2-D f32 convolutions through oneDNN (libdnnl), the library
 * XLA's CPU backend hands convolutions to.  Built by testdata/bench.py when
 * <oneapi/dnnl/dnnl.h> and -ldnnl are found.
 *
 * argv[1] = runs timed (best taken, after one warm-up run).  Each stdin line
 * describes one problem in forward terms:
 *   NAME KIND LAYOUT N C H W O KH KW SH SW PT PL HO WO G
 * KIND: f (forward), d (backward data: dx from dy and w), w (backward
 * weights: dw from x and dy); LAYOUT: c (nchw/oihw) or l (nhwc/hwio);
 * PT, PL: top/left padding, the bottom/right padding follows from HO, WO;
 * G: groups (G = C = O is depthwise).  Prints per line
 *   NAME PLAIN_MS ANY_MS PLAIN_CPU_MS ANY_CPU_MS
 * PLAIN: the primitive on tensors in LAYOUT; ANY: on the layouts the
 * primitive prefers (blocked), reorders not timed; -1 if not created.
 * CPU: process CPU time of the best run by that measure (all threads; run
 * with OMP_WAIT_POLICY=passive so idle threads do not spin). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  char kind, layout;
  long n, c, h, w, o, kh, kw, sh, sw, pt, pl, ho, wo, g;
} problem;

/* the memory descriptors of src, weights, dst with tag or "any" */
static int descs(const problem *p, int any, dnnl_memory_desc_t *src, dnnl_memory_desc_t *wei,
                 dnnl_memory_desc_t *dst) {
  dnnl_dims_t sd = {p->n, p->c, p->h, p->w}, dd = {p->n, p->o, p->ho, p->wo};
  dnnl_format_tag_t dt = any ? dnnl_format_tag_any : p->layout == 'l' ? dnnl_nhwc : dnnl_nchw;
  if (dnnl_memory_desc_init_by_tag(src, 4, sd, dnnl_f32, dt) ||
      dnnl_memory_desc_init_by_tag(dst, 4, dd, dnnl_f32, dt))
    return 1;
  if (p->g > 1) {
    dnnl_dims_t wd = {p->g, p->o / p->g, p->c / p->g, p->kh, p->kw};
    dnnl_format_tag_t wt = any ? dnnl_format_tag_any : p->layout == 'l' ? dnnl_hwigo : dnnl_goihw;
    return dnnl_memory_desc_init_by_tag(wei, 5, wd, dnnl_f32, wt) != dnnl_success;
  }
  dnnl_dims_t wd = {p->o, p->c, p->kh, p->kw};
  dnnl_format_tag_t wt = any ? dnnl_format_tag_any : p->layout == 'l' ? dnnl_hwio : dnnl_oihw;
  return dnnl_memory_desc_init_by_tag(wei, 4, wd, dnnl_f32, wt) != dnnl_success;
}

static double run(dnnl_engine_t eng, dnnl_stream_t st, const problem *p, int any, int reps,
                  double *cpu) {
  dnnl_memory_desc_t src, wei, dst;
  *cpu = -1e-3;
  if (descs(p, any, &src, &wei, &dst)) return -1;
  dnnl_dims_t strides = {p->sh, p->sw}, pl = {p->pt, p->pl};
  dnnl_dims_t pr = {(p->ho - 1) * p->sh + p->kh - p->h - p->pt, (p->wo - 1) * p->sw + p->kw - p->w - p->pl};
  dnnl_convolution_desc_t fd, bd;
  dnnl_primitive_desc_t fpd = NULL, pd = NULL;
  if (dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct, &src,
                                         &wei, NULL, &dst, strides, pl, pr) ||
      dnnl_primitive_desc_create(&fpd, &fd, NULL, eng, NULL))
    return -1;
  int a_src, a_wei, a_dst; /* exec argument ids */
  dnnl_query_t q_src, q_wei, q_dst;
  if (p->kind == 'f') {
    pd = fpd;
    fpd = NULL;
    a_src = DNNL_ARG_SRC, a_wei = DNNL_ARG_WEIGHTS, a_dst = DNNL_ARG_DST;
    q_src = dnnl_query_src_md, q_wei = dnnl_query_weights_md, q_dst = dnnl_query_dst_md;
  } else if (p->kind == 'd') {
    if (dnnl_convolution_backward_data_desc_init(&bd, dnnl_convolution_direct, &src, &wei, &dst,
                                                 strides, pl, pr) ||
        dnnl_primitive_desc_create(&pd, &bd, NULL, eng, fpd))
      pd = NULL;
    a_src = DNNL_ARG_DIFF_SRC, a_wei = DNNL_ARG_WEIGHTS, a_dst = DNNL_ARG_DIFF_DST;
    q_src = dnnl_query_diff_src_md, q_wei = dnnl_query_weights_md, q_dst = dnnl_query_diff_dst_md;
  } else {
    if (dnnl_convolution_backward_weights_desc_init(&bd, dnnl_convolution_direct, &src, &wei, NULL,
                                                    &dst, strides, pl, pr) ||
        dnnl_primitive_desc_create(&pd, &bd, NULL, eng, fpd))
      pd = NULL;
    a_src = DNNL_ARG_SRC, a_wei = DNNL_ARG_DIFF_WEIGHTS, a_dst = DNNL_ARG_DIFF_DST;
    q_src = dnnl_query_src_md, q_wei = dnnl_query_diff_weights_md, q_dst = dnnl_query_diff_dst_md;
  }
  if (fpd) dnnl_primitive_desc_destroy(fpd);
  if (!pd) return -1;
  const dnnl_memory_desc_t *md[3] = {dnnl_primitive_desc_query_md(pd, q_src, 0),
                                     dnnl_primitive_desc_query_md(pd, q_wei, 0),
                                     dnnl_primitive_desc_query_md(pd, q_dst, 0)};
  int ids[3] = {a_src, a_wei, a_dst};
  dnnl_memory_t mem[3] = {NULL, NULL, NULL};
  dnnl_exec_arg_t args[3];
  double best = -1;
  dnnl_primitive_t prim = NULL;
  for (int i = 0; i < 3; i++) {
    if (dnnl_memory_create(&mem[i], md[i], eng, DNNL_MEMORY_ALLOCATE)) goto done;
    void *h = NULL;
    dnnl_memory_get_data_handle(mem[i], &h);
    size_t sz = dnnl_memory_desc_get_size(md[i]);
    for (size_t k = 0; k < sz / 4; k++) ((float *)h)[k] = (float)((k * 7919) % 1000) * 1e-3f - 0.5f;
    args[i].arg = ids[i];
    args[i].memory = mem[i];
  }
  if (dnnl_primitive_create(&prim, pd)) goto done;
  best = 1e30;
  *cpu = 1e30;
  for (int r = 0; r <= reps; r++) {
    double t = clock_s(CLOCK_MONOTONIC), c = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (dnnl_primitive_execute(prim, st, 3, args) || dnnl_stream_wait(st)) {
      best = -1;
      goto done;
    }
    t = clock_s(CLOCK_MONOTONIC) - t;
    c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c;
    if (r > 0 && t < best) best = t;
    if (r > 0 && c < *cpu) *cpu = c;
  }
done:
  if (prim) dnnl_primitive_destroy(prim);
  for (int i = 0; i < 3; i++)
    if (mem[i]) dnnl_memory_destroy(mem[i]);
  dnnl_primitive_desc_destroy(pd);
  return best < 0 ? -1 : best * 1e3;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  dnnl_engine_t eng;
  dnnl_stream_t st;
  if (dnnl_engine_create(&eng, dnnl_cpu, 0) || dnnl_stream_create(&st, eng, dnnl_stream_default_flags)) {
    fprintf(stderr, "onednn_conv: no CPU engine\n");
    return 2;
  }
  char line[512], name[128];
  while (fgets(line, sizeof line, stdin)) {
    problem p;
    if (sscanf(line, "%127s %c %c %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld", name,
               &p.kind, &p.layout, &p.n, &p.c, &p.h, &p.w, &p.o, &p.kh, &p.kw, &p.sh, &p.sw, &p.pt,
               &p.pl, &p.ho, &p.wo, &p.g) != 17)
      continue;
    double pc, ac;
    double plain = run(eng, st, &p, 0, reps, &pc);
    double any = run(eng, st, &p, 1, reps, &ac);
    printf("%s %.3f %.3f %.3f %.3f\n", name, plain, any, pc * 1e3, ac * 1e3);
    fflush(stdout);
  }
  dnnl_stream_destroy(st);
  dnnl_engine_destroy(eng);
  return 0;
}
