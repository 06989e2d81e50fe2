/* hlo-run - run an HLO module on the CPU interpreter.  Inputs come from .npy
 * files, numpy-style inline literals, an .npz archive or a random generator,
 * matched to the entry parameters in order; results are printed numpy-style
 * or written to .npy/.npz; --spec runs a RUN.yaml test and compares. */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/ccall_cli.h"
#include "common/cli.h"
#include "common/run_literals.h"
#include "common/run_spec.h"
#include "hlo/hlo_exec.h"
#include "hlo/hlo_fuse.h"
#include "hlo/hlo_npy.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"

#include "hlo/hlo_verify.h"

enum { OPT_INPUTS, OPT_RANDOM, OPT_OUTPUT, OPT_SPEC, OPT_TIME, OPT_REFERENCE, OPT_ITER,
       OPT_RNG_SEED, OPT_MAX_ITERS, OPT_MAX_MEMORY, OPT_THREADS, OPT_BENCHMARK, OPT_PROFILE,
       OPT_ISA, OPT_LIST_ISAS, OPT_CHECK_FAST, OPT_CUSTOM_CALL, OPT_LIST_CCALLS, OPT_INPUT_LITERALS,
       OPT_SNAPSHOT, OPT_REPLICAS, OPT_PARTITIONS, OPT_DEVICE_ASSIGNMENT, OPT_COLLECTIVE_TIMEOUT,
       OPT_ARGUMENT_MODE, OPT_STACK_INPUTS, OPT_OUTPUT_DEVICE, OPT_MPI, OPT_NO_FUSE, OPT_DEVICES_PER_RANK };

static const cli_opt OPTS[] = {
    [OPT_INPUTS] = {"inputs", 0, 1, "FILE.npz", "take inputs from the members of an .npz archive, in order"},
    [OPT_RANDOM] = {"random", 0, 2, "SEED", "fill parameters without an input with random data (default seed 0)"},
    [OPT_OUTPUT] = {"output", 'o', 1, "OUT", "write the result to OUT.npy (one array) or OUT.npz (any result)"},
    [OPT_SPEC] = {"spec", 0, 1, "RUN.yaml", "run the test spec RUN.yaml; exit 1 if an output differs"},
    [OPT_TIME] = {"time", 0, 0, NULL, "report planning and run time on standard error"},
    [OPT_REFERENCE] = {"reference", 0, 0, NULL, "use the scalar reference implementation of every op"},
    [OPT_ITER] = {"iterations", 0, 1, "N", "run N times (for --time); results of the last run are used"},
    [OPT_RNG_SEED] = {"rng-seed", 0, 1, "N", "seed of the rng op (default 0)"},
    [OPT_MAX_ITERS] = {"max-while-iterations", 0, 1, "N", "fail a while loop after N iterations (default: no limit)"},
    [OPT_MAX_MEMORY] = {"max-memory", 0, 1, "BYTES", "fail when values need more than BYTES (K/M/G suffixes; 0 = no limit; default: half the RAM)"},
    [OPT_THREADS] = {"threads", 0, 1, "N", "use N threads for large kernels (default: all cores)"},
    [OPT_BENCHMARK] = {"benchmark", 0, 1, "N", "after a warm-up run, time N runs; print median, min and max"},
    [OPT_PROFILE] = {"profile", 0, 0, NULL, "print time, share, bytes and FLOPs per instruction on standard error"},
    [OPT_ISA] = {"isa", 0, 1, "LEVEL", "use vector kernels of at most LEVEL: baseline, avx2 or avx512 (default: $HLO_ISA, else the best this CPU has)"},
    [OPT_LIST_ISAS] = {"list-isas", 0, 0, NULL, "print each ISA level, whether it can run here and which one a run uses, then exit"},
    [OPT_NO_FUSE] = {"no-fuse", 0, 0, NULL, "run the instructions as written (by default a module whose intermediate arrays total 64 MB or more has its elementwise chains fused into loop fusions first)"},
    [OPT_CHECK_FAST] = {"check-fast", 0, 0, NULL, "run the reference kernel beside every fast kernel and fail where they differ by more than the op's tolerance in ulps"},
    [OPT_CUSTOM_CALL] = {"custom-call", 0, 1, "TARGET=DEF", "run custom calls to TARGET as DEF: the entry computation of FILE.hlo, or the stub identity or zeros (repeatable)"},
    [OPT_LIST_CCALLS] = {"list-custom-calls", 0, 0, NULL, "print the custom-call targets hlo-run runs, their meaning and its source, then exit"},
    [OPT_INPUT_LITERALS] = {"input-literals", 0, 1, "FILE.pbtxt", "take the arguments from a run_hlo_module literals file (text proto)"},
    [OPT_SNAPSHOT] = {"snapshot", 0, 1, "FILE.pbtxt", "replay an HloSnapshot (text proto): its arguments, and compare with its result"},
    [OPT_REPLICAS] = {"replicas", 0, 1, "R", "run R replicas (default: the module's replica_count, else the fewest its collectives need)"},
    [OPT_PARTITIONS] = {"partitions", 0, 1, "P", "run P partitions of each replica (default: the module's num_partitions, else the fewest its collectives need)"},
    [OPT_DEVICE_ASSIGNMENT] = {"device-assignment", 0, 1, "IDS", "comma-separated device ids of the logical devices replica*P+partition in order (default 0,1,2,...)"},
    [OPT_COLLECTIVE_TIMEOUT] = {"collective-timeout", 0, 1, "SECONDS", "fail a collective that not every device of its group reaches within SECONDS (default 60)"},
    [OPT_ARGUMENT_MODE] = {"argument-mode", 0, 1, "MODE", "inputs of the devices: same (default), random (each device its own, seeded by its id) or device-id"},
    [OPT_STACK_INPUTS] = {"stack-inputs", 0, 0, NULL, "every input has a leading device axis: device K takes slice K"},
    [OPT_OUTPUT_DEVICE] = {"output-device", 0, 1, "K", "print or write the result of device K only"},
    [OPT_MPI] = {"mpi", 0, 0, NULL, "run as one process of an MPI job (mpirun -np N hlo-run --mpi ...): each process runs its devices, rank 0 prints or writes the results"},
    [OPT_DEVICES_PER_RANK] = {"devices-per-rank", 0, 1, "K", "with --mpi: each process runs K devices in threads (default 1)"},
    {0},
};


static const cli_tool TOOL = {
    "hlo-run", "[OPTION]... FILE [INPUT]...",
    "Run the entry computation of the HLO module in FILE on the CPU interpreter.",
    OPTS,
    "Each INPUT is a .npy file or a numpy-style literal such as '[[1, 2], [3, 4]]';\n"
    "its dtype must be the element type of the matching parameter.\n"
    "Exit status: 0 success, 1 invalid module/input or --spec mismatch, 2 usage error.\n"};

typedef struct run_args {
  const char *npz, *output, *spec;
  bool random, time, reference;
  uint64_t seed, rng_seed;
  long long iterations, max_iters;
  uint64_t max_memory; /* 0 = no limit */
  long long threads, benchmark;
  bool profile, list_isas, check_fast, list_ccalls, no_fuse;
  hlo_isa isa;
  ccall_cli ccalls;
  const char *literals, *snapshot; /* XLA's input files (run_literals.h) */
  int replicas, partitions;     /* 0 = from the module */
  int *assignment, nassignment; /* --device-assignment */
  double coll_timeout;          /* 0 = the library's default */
  int arg_mode;                 /* ARG_SAME, ARG_RANDOM, ARG_DEVICE_ID */
  bool stack_inputs;
  int output_device;            /* -1 = every device */
  bool mpi;
  int per_rank;                 /* --devices-per-rank, 0 = 1 */
} run_args;

enum { ARG_SAME, ARG_RANDOM, ARG_DEVICE_ID };

/* Every value and plan allocation goes through the library's memory pool:
 * the --max-memory limit and the cache of large blocks (hlo_mempool). */
static hlo_mempool *POOL;
#define RUN_ALLOC (*hlo_mempool_allocator(POOL))

/* --list-isas: one line per level, "LEVEL  available" or "LEVEL  unavailable:
 * REASON", then "selected: LEVEL" (the level a run with these options uses);
 * exit 1 when HLO_ISA holds no level name. */
static int list_isas(hlo_isa cap) {
  for (int l = HLO_ISA_BASELINE; l <= HLO_ISA_MAX; l++) {
    const char *why = NULL;
    if (hlo_isa_available((hlo_isa)l, &why)) printf("%-9s available\n", hlo_isa_name((hlo_isa)l));
    else printf("%-9s unavailable: %s\n", hlo_isa_name((hlo_isa)l), why);
  }
  hlo_isa sel;
  const char *why = NULL;
  if (hlo_isa_effective(cap, &sel, &why) != HLO_OK) {
    cli_errorf(&TOOL, "%s", why);
    return CLI_INVALID;
  }
  printf("selected: %s\n", hlo_isa_name(sel));
  return CLI_OK;
}


static uint64_t parse_bytes(const char *arg) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(arg, &end, 10);
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10, end++;
  else if (*end == 'M' || *end == 'm') shift = 20, end++;
  else if (*end == 'G' || *end == 'g') shift = 30, end++;
  if (end == arg || *end || errno || arg[0] == '-' || (shift && v > (UINT64_MAX >> shift)))
    cli_usage_error(&TOOL, "--max-memory needs a byte count such as 512M, got '%s'", arg);
  return (uint64_t)v << shift;
}

/* Refuse, before running, any instruction whose result alone is larger than
 * the memory limit. */
static int check_sizes(const hlo_module *m, uint64_t limit, const hlo_src *src, hlo_diags *d) {
  if (!limit) return CLI_OK;
  for (int c = 0; c < m->ncomps; c++)
    for (int i = 0; i < m->comps[c]->ninstrs; i++) {
      const hlo_instruction *in = m->comps[c]->instrs[i];
      if (!hlo_type_is_array(in->shape.type)) continue;
      bool unbounded = false; /* '?': the planner says it cannot run */
      for (int k = 0; k < in->shape.rank; k++) unbounded |= in->shape.dims[k] < 0;
      if (unbounded) continue;
      int64_t bytes;
      if (!hlo_shape_bytes(&in->shape, &bytes)) continue; /* the planner refused it */
      if ((uint64_t)bytes > limit) {
        hlo_errorf(d, src, in->off, "instruction %%%s needs %lld bytes, more than the memory limit of %llu bytes "
                   "(--max-memory)", in->name, (long long)bytes, (unsigned long long)limit);
        cli_print_diags(d);
        return CLI_INVALID;
      }
    }
  return CLI_OK;
}

static int on_opt(int idx, const char *arg, void *ud) {
  run_args *a = ud;
  switch (idx) {
  case OPT_INPUTS: a->npz = arg; break;
  case OPT_RANDOM:
    a->random = true;
    a->seed = arg ? (uint64_t)cli_int_arg(&TOOL, "--random", arg) : 0;
    break;
  case OPT_OUTPUT: a->output = arg; break;
  case OPT_SPEC: a->spec = arg; break;
  case OPT_TIME: a->time = true; break;
  case OPT_REFERENCE: a->reference = true; break;
  case OPT_ITER:
    a->iterations = cli_int_arg(&TOOL, "--iterations", arg);
    if (a->iterations < 1) cli_usage_error(&TOOL, "--iterations needs N >= 1");
    break;
  case OPT_RNG_SEED: a->rng_seed = (uint64_t)cli_int_arg(&TOOL, "--rng-seed", arg); break;
  case OPT_MAX_ITERS: a->max_iters = cli_int_arg(&TOOL, "--max-while-iterations", arg); break;
  case OPT_MAX_MEMORY: a->max_memory = parse_bytes(arg); break;
  case OPT_THREADS:
    a->threads = cli_int_arg(&TOOL, "--threads", arg);
    if (a->threads < 1 || a->threads > 256) cli_usage_error(&TOOL, "--threads needs 1 <= N <= 256");
    break;
  case OPT_BENCHMARK:
    a->benchmark = cli_int_arg(&TOOL, "--benchmark", arg);
    if (a->benchmark < 1 || a->benchmark > 1000000) cli_usage_error(&TOOL, "--benchmark needs 1 <= N <= 1000000");
    break;
  case OPT_PROFILE: a->profile = true; break;
  case OPT_ISA:
    if (hlo_isa_parse(arg, &a->isa) != HLO_OK)
      cli_usage_error(&TOOL, "--isa needs baseline, avx2 or avx512");
    break;
  case OPT_LIST_ISAS: a->list_isas = true; break;
  case OPT_CHECK_FAST: a->check_fast = true; break;
  case OPT_NO_FUSE: a->no_fuse = true; break;
  case OPT_CUSTOM_CALL: ccall_cli_add(&TOOL, &a->ccalls, arg); break;
  case OPT_LIST_CCALLS: a->list_ccalls = true; break;
  case OPT_INPUT_LITERALS: a->literals = arg; break;
  case OPT_SNAPSHOT: a->snapshot = arg; break;
  case OPT_REPLICAS: case OPT_PARTITIONS: {
    const char *o = idx == OPT_REPLICAS ? "--replicas" : "--partitions";
    long long v = cli_int_arg(&TOOL, o, arg);
    if (v < 1 || v > 4096) cli_usage_error(&TOOL, "%s needs 1 <= N <= 4096", o);
    *(idx == OPT_REPLICAS ? &a->replicas : &a->partitions) = (int)v;
    break;
  }
  case OPT_DEVICE_ASSIGNMENT: {
    free(a->assignment);
    a->assignment = malloc(sizeof(int) * (strlen(arg) / 2 + 2));
    if (!a->assignment) cli_usage_error(&TOOL, "out of memory");
    a->nassignment = 0;
    for (const char *p = arg;;) {
      char *end;
      errno = 0;
      long v = strtol(p, &end, 10);
      if (end == p || errno || v < 0 || v > 4095 || (*end && *end != ','))
        cli_usage_error(&TOOL, "--device-assignment needs comma-separated device ids such as 0,1,2,3, got '%s'", arg);
      a->assignment[a->nassignment++] = (int)v;
      if (!*end) break;
      p = end + 1;
    }
    break;
  }
  case OPT_COLLECTIVE_TIMEOUT: {
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno || !(v > 0) || v > 1e6)
      cli_usage_error(&TOOL, "--collective-timeout needs a positive number of seconds, got '%s'", arg);
    a->coll_timeout = v;
    break;
  }
  case OPT_ARGUMENT_MODE:
    if (strcmp(arg, "same") == 0) a->arg_mode = ARG_SAME;
    else if (strcmp(arg, "random") == 0) a->arg_mode = ARG_RANDOM;
    else if (strcmp(arg, "device-id") == 0) a->arg_mode = ARG_DEVICE_ID;
    else cli_usage_error(&TOOL, "--argument-mode needs same, random or device-id, got '%s'", arg);
    break;
  case OPT_STACK_INPUTS: a->stack_inputs = true; break;
  case OPT_MPI: a->mpi = true; break;
  case OPT_DEVICES_PER_RANK:
    a->per_rank = (int)cli_int_arg(&TOOL, "--devices-per-rank", arg);
    if (a->per_rank < 1 || a->per_rank > 4096) cli_usage_error(&TOOL, "--devices-per-rank needs 1 <= K <= 4096");
    break;
  case OPT_OUTPUT_DEVICE:
    a->output_device = (int)cli_int_arg(&TOOL, "--output-device", arg);
    if (a->output_device < 0 || a->output_device > 4095) cli_usage_error(&TOOL, "--output-device needs 0 <= K < 4096");
    break;
  }
  return 0;
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

static void shape_text(const hlo_shape *s, char *buf, size_t len) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_print_shape(&b, s, false);
  snprintf(buf, len, "%s", b.data ? b.data : "?");
  hlo_buf_release(&b);
}

/* Make the input value of parameter i from an array, checking its dtype and
 * shape.  what names the input in messages. */
static hlo_val *val_from_array(const hlo_shape *ps, const hlo_array *arr, int i, const char *what,
                               bool borrow) {
  char st[256];
  shape_text(ps, st, sizeof st);
  if (ps->type == HLO_TUPLE || !hlo_type_is_array(ps->type)) {
    cli_errorf(&TOOL, "input %d (%s): parameter %d has shape %s, which an array cannot give "
               "(use --random)", i, what, i, st);
    return NULL;
  }
  if (arr->type != ps->type) {
    cli_errorf(&TOOL, "input %d (%s): dtype %s does not match parameter %d of type %s", i, what,
               hlo_npy_dtype_name(arr->type), i, hlo_type_name(ps->type));
    return NULL;
  }
  /* a dynamic dimension ('<=N') takes any size up to its bound: the
   * array's size is its actual size */
  bool same = arr->rank == ps->rank, below = false;
  for (int d = 0; same && d < ps->rank; d++) {
    bool dyn = ps->dynamic && ps->dynamic[d] && arr->dims[d] < ps->dims[d];
    same = arr->dims[d] == ps->dims[d] || dyn;
    below |= dyn;
  }
  if (!same) {
    char got[256];
    int n = snprintf(got, sizeof got, "(");
    for (int d = 0; d < arr->rank && n < 200; d++)
      n += snprintf(got + n, sizeof got - (size_t)n, "%s%lld", d ? ", " : "", (long long)arr->dims[d]);
    snprintf(got + n, sizeof got - (size_t)n, "%s)", arr->rank == 1 ? "," : "");
    for (int d = 0; arr->rank == ps->rank && d < ps->rank; d++)
      if (ps->dynamic && ps->dynamic[d] && arr->dims[d] > ps->dims[d]) {
        cli_errorf(&TOOL, "input %d (%s): shape %s: dimension %d has size %lld, above the bound "
                   "%lld of parameter %d of shape %s", i, what, got, d, (long long)arr->dims[d],
                   (long long)ps->dims[d], i, st);
        return NULL;
      }
    cli_errorf(&TOOL, "input %d (%s): shape %s does not match parameter %d of shape %s", i, what,
               got, i, st);
    return NULL;
  }
  if (below) {
    hlo_val *v = hlo_val_new_dynamic(&RUN_ALLOC, ps, arr->dims);
    if (!v) cli_errorf(&TOOL, "out of memory");
    else if (v->nbytes) memcpy(v->data, arr->data, v->nbytes);
    return v;
  }
  if (borrow) { /* a mapped file or the arena: never written, reused or freed */
    hlo_val *v = hlo_val_borrow(&RUN_ALLOC, ps, arr->data);
    if (!v) cli_errorf(&TOOL, "out of memory");
    return v;
  }
  hlo_val *v = hlo_val_new(&RUN_ALLOC, ps);
  if (!v) {
    cli_errorf(&TOOL, "out of memory");
    return NULL;
  }
  if (v->nbytes) memcpy(v->data, arr->data, v->nbytes);
  return v;
}

/* Input files mapped by hlo_npy_map; the values borrowing them are
 * released before unmap_inputs runs at exit. */
static hlo_npy_mapping MAPS[64];
static int NMAPS;

static void unmap_inputs(void) {
  for (int i = 0; i < NMAPS; i++) hlo_npy_unmap(&MAPS[i]);
  NMAPS = 0;
}

/* The --inputs archive, mapped: its stored members are used in place. */
static int load_npz(hlo_arena *A, const char *path, hlo_npz *npz, hlo_diags *d) {
  if (NMAPS >= (int)(sizeof MAPS / sizeof *MAPS)) return hlo_npz_load(A, path, NULL, npz, d);
  hlo_npy_mapping map = {NULL, 0};
  int rc = hlo_npz_map(A, path, NULL, npz, &map, d);
  if (map.base) MAPS[NMAPS++] = map;
  return rc;
}

/* One input: a .npy path or an inline literal typed by the parameter. */
static hlo_val *load_input(hlo_arena *A, const hlo_shape *ps, int i, const char *text, bool is_file) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_array arr;
  int rc;
  char name[32];
  hlo_src src = {name, text, strlen(text)}; /* diagnostics point into it */
  snprintf(name, sizeof name, "<input %d>", i);
  hlo_npy_mapping map = {NULL, 0};
  if (is_file && NMAPS < (int)(sizeof MAPS / sizeof *MAPS)) {
    rc = hlo_npy_map(A, text, NULL, &arr, &map, &d);
  } else if (is_file) {
    rc = hlo_npy_load(A, text, NULL, &arr, &d);
  } else {
    if (ps->type == HLO_TUPLE || !hlo_type_is_array(ps->type)) {
      char st[256];
      shape_text(ps, st, sizeof st);
      cli_errorf(&TOOL, "input %d: parameter %d has shape %s, which a literal cannot give", i, i, st);
      hlo_diags_release(&d);
      return NULL;
    }
    rc = hlo_nplit_parse(A, &src, ps->type, &arr, &d);
  }
  if (rc != HLO_OK) {
    cli_print_diags(&d);
    hlo_diags_release(&d);
    return NULL;
  }
  hlo_diags_release(&d);
  hlo_val *v = val_from_array(ps, &arr, i, is_file ? text : "literal", map.base != NULL);
  if (v && map.base) MAPS[NMAPS++] = map;
  else hlo_npy_unmap(&map);
  return v;
}

/* A token or an opaque value has no elements: it is written as an empty
 * uint8 array of shape (0,) (docs/custom_calls.md, man page). */
static void val_to_array(const hlo_val *v, hlo_array *arr) {
  static int64_t zero_dim = 0;
  static unsigned char no_data;
  if (!hlo_type_is_array(v->shape->type)) {
    arr->type = HLO_U8;
    arr->rank = 1;
    arr->dims = &zero_dim;
    arr->nelems = 0;
    arr->data = &no_data;
    return;
  }
  arr->type = v->shape->type;
  arr->rank = v->shape->rank;
  arr->dims = v->dims ? v->dims : v->shape->dims; /* a dynamic dimension: its actual size */
  arr->nelems = v->nelems;
  arr->data = v->data;
}

/* Flatten the leaves of a result (depth first). */
static int leaves(const hlo_val *v, const hlo_val **out, int n, int cap) {
  if (v->ntuple || v->shape->type == HLO_TUPLE) {
    for (int i = 0; i < v->ntuple; i++) n = leaves(v->tuple[i], out, n, cap);
    return n;
  }
  if (n < cap) out[n] = v;
  return n + 1;
}

static void print_value(hlo_buf *b, const hlo_val *v, int depth) {
  if (v->shape->type == HLO_TUPLE) {
    hlo_buf_putc(b, '(');
    for (int i = 0; i < v->ntuple; i++) {
      if (i) hlo_buf_puts(b, ", ");
      print_value(b, v->tuple[i], depth + 1);
    }
    if (v->ntuple == 1) hlo_buf_putc(b, ',');
    hlo_buf_putc(b, ')');
    return;
  }
  if (!hlo_type_is_array(v->shape->type)) {
    hlo_buf_puts(b, hlo_type_name(v->shape->type));
    return;
  }
  hlo_array arr;
  val_to_array(v, &arr);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  if (hlo_npy_repr(b, &arr, &d)) hlo_buf_puts(b, "<unprintable>");
  hlo_diags_release(&d);
}

static int write_output(const char *path, const hlo_val *res) {
  int n = leaves(res, NULL, 0, 0); /* count first: any number of leaves */
  const hlo_val **lv = malloc(sizeof *lv * (size_t)(n + 1));
  hlo_npz_member *m = malloc(sizeof *m * (size_t)(n + 1));
  char(*names)[24] = malloc(sizeof *names * (size_t)(n + 1));
  int rc = HLO_OK;
  if (!lv || !m || !names) {
    cli_errorf(&TOOL, "out of memory");
    rc = HLO_ERR;
    goto done;
  }
  leaves(res, lv, 0, n);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  if (ends_with(path, ".npz")) {
    for (int i = 0; i < n; i++) {
      snprintf(names[i], sizeof names[i], "out%d", i);
      m[i].name = names[i];
      val_to_array(lv[i], &m[i].arr);
    }
    rc = hlo_npz_save(path, m, n, false, &d);
  } else if (res->shape->type == HLO_TUPLE) {
    cli_errorf(&TOOL, "the result is a tuple of %d arrays: write it to an .npz file", n);
    rc = HLO_ERR;
  } else {
    hlo_array arr;
    val_to_array(res, &arr);
    rc = hlo_npy_save(path, &arr, &d);
  }
  if (rc) cli_print_diags(&d);
  hlo_diags_release(&d);
done:
  free(lv);
  free(m);
  free(names);
  return rc ? CLI_INVALID : CLI_OK;
}

/* ---- comparison for --spec ---------------------------------------------------- */
static void index_text(const hlo_shape *s, int64_t k, char *buf, size_t len) {
  int64_t idx[HLO_EXEC_MAX_RANK];
  for (int d = s->rank - 1; d >= 0; d--) {
    idx[d] = s->dims[d] ? k % s->dims[d] : 0;
    k = s->dims[d] ? k / s->dims[d] : 0;
  }
  int n = snprintf(buf, len, "[");
  for (int d = 0; d < s->rank && (size_t)n < len; d++)
    n += snprintf(buf + n, len - (size_t)n, "%s%lld", d ? ", " : "", (long long)idx[d]);
  if ((size_t)n < len) snprintf(buf + n, len - (size_t)n, "]");
}

static double elem(const hlo_array *a, int64_t k, bool imag) {
  /* via the interpreter's value accessors: wrap in a temporary value */
  hlo_shape sh = {0};
  sh.type = a->type;
  hlo_val v = {0};
  v.shape = &sh;
  v.data = a->data;
  v.nelems = a->nelems;
  if (imag) {
    if (hlo_type_kind_of(a->type) != HLO_KIND_COMPLEX) return 0;
    const unsigned char *p = (const unsigned char *)a->data + k * hlo_type_bytes(a->type);
    if (a->type == HLO_C64) { float f[2]; memcpy(f, p, 8); return f[1]; }
    double f[2];
    memcpy(f, p, 16);
    return f[1];
  }
  return hlo_val_get_f64(&v, k);
}

static bool close_enough(double g, double w, double rtol, double atol) {
  if (isnan(w) || isnan(g)) return isnan(w) && isnan(g);
  if (isinf(w) || isinf(g)) return g == w;
  return fabs(g - w) <= atol + rtol * fabs(w);
}

static int compare_output(int i, const hlo_val *got, const hlo_array *want, double rtol, double atol) {
  hlo_array g;
  val_to_array(got, &g);
  bool same = g.rank == want->rank && g.type == want->type;
  for (int d = 0; same && d < g.rank; d++) same = g.dims[d] == want->dims[d];
  if (!same) {
    char st[256];
    shape_text(got->shape, st, sizeof st);
    printf("output %d: result has shape %s, the expected array has dtype %s and rank %d\n", i, st,
           hlo_npy_dtype_name(want->type), want->rank);
    return 1;
  }
  int64_t nbad = 0, first = -1, worst = -1;
  double worst_err = -1;
  for (int64_t k = 0; k < g.nelems; k++) {
    for (int part = 0; part < 2; part++) {
      double a = elem(&g, k, part), b = elem(want, k, part);
      if (!close_enough(a, b, rtol, atol)) {
        double e = isnan(a) || isnan(b) || isinf(a) || isinf(b) ? INFINITY : fabs(a - b);
        if (first < 0) first = k;
        if (e > worst_err) { worst_err = e; worst = k; }
        nbad++;
        break;
      }
    }
  }
  if (!nbad) return 0;
  char ib[128];
  index_text(got->shape, first, ib, sizeof ib);
  printf("output %d: %lld of %lld elements differ (rtol=%g, atol=%g)\n", i, (long long)nbad,
         (long long)g.nelems, rtol, atol);
  printf("  first at %s: got %.9g, expected %.9g\n", ib, elem(&g, first, false), elem(want, first, false));
  index_text(got->shape, worst, ib, sizeof ib);
  printf("  worst at %s: got %.9g, expected %.9g (difference %.3g)\n", ib, elem(&g, worst, false),
         elem(want, worst, false), worst_err);
  return 1;
}

/* ---- --benchmark and --profile ------------------------------------------------------ */
static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* One warm-up run, then n timed runs; the profile counts the timed runs. */
static int bench(hlo_exec *e, hlo_val **args, int nargs, long long n, const char *file,
                 const run_args *a, hlo_diags *d) {
  hlo_val *res = NULL;
  if (hlo_exec_run(e, args, nargs, &res)) { cli_print_diags(d); return 1; }
  hlo_val_release(&RUN_ALLOC, res);
  if (a->profile) hlo_exec_profile_reset(e);
  double *ts = malloc(sizeof(double) * (size_t)n * 2);
  if (!ts) { cli_errorf(&TOOL, "out of memory"); return 1; }
  double *cs = ts + n;
  for (long long i = 0; i < n; i++) {
    double t = now_ms(), c = cpu_ms();
    if (hlo_exec_run(e, args, nargs, &res)) { cli_print_diags(d); free(ts); return 1; }
    ts[i] = now_ms() - t;
    cs[i] = cpu_ms() - c;
    hlo_val_release(&RUN_ALLOC, res);
  }
  qsort(ts, (size_t)n, sizeof(double), cmp_double);
  qsort(cs, (size_t)n, sizeof(double), cmp_double);
  double med = n % 2 ? ts[n / 2] : 0.5 * (ts[n / 2 - 1] + ts[n / 2]);
  double cmed = n % 2 ? cs[n / 2] : 0.5 * (cs[n / 2 - 1] + cs[n / 2]);
  fprintf(stderr, "hlo-run: %s: benchmark %lld runs after a warm-up: median %.4f ms, min %.4f ms, "
          "max %.4f ms (%s path); process CPU time median %.4f ms, min %.4f ms\n", file, n, med,
          ts[0], ts[n - 1], a->reference ? "reference" : "fast", cmed, cs[0]);
  free(ts);
  return 0;
}

static int cmp_prof(const void *x, const void *y) {
  const hlo_exec_prof *a = *(const hlo_exec_prof *const *)x, *b = *(const hlo_exec_prof *const *)y;
  return a->seconds > b->seconds ? -1 : a->seconds < b->seconds;
}

/* The profile of one execution on standard error, written at once; with
 * several devices each block is labelled ("device K", and its MPI rank). */
static void print_profile(const hlo_exec *e, long long runs, const char *label) {
  int n = 0;
  const hlo_exec_prof *p = hlo_exec_profile(e, &n);
  const hlo_exec_prof **v = malloc(sizeof(*v) * (size_t)(n + 1));
  if (!v) return;
  int k = 0;
  double top = 0;
  for (int i = 0; i < n; i++) {
    if (p[i].calls == 0) continue;
    v[k++] = &p[i];
    if (p[i].in->parent && p[i].in->parent->is_entry) top += p[i].seconds;
  }
  qsort(v, (size_t)k, sizeof(*v), cmp_prof);
  if (runs < 1) runs = 1;
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_buf_printf(&b, "hlo-run: %s%sprofile over %lld run%s; entry instructions total %.4f ms per run\n",
                 label ? label : "", label ? ": " : "", runs, runs == 1 ? "" : "s", top * 1e3 / (double)runs);
  hlo_buf_printf(&b, "%12s %7s %8s %14s %14s %9s %9s  %-24s %s\n", "ms/run", "share", "calls/run",
                 "bytes/run", "flops/run", "GB/s", "GFLOP/s", "kernel", "instruction");
  for (int i = 0; i < k; i++) {
    const hlo_exec_prof *q = v[i];
    double s = q->seconds > 0 ? q->seconds : 1e-12;
    hlo_buf_printf(&b, "%12.4f %6.1f%% %9.1f %14.0f %14.0f %9.2f %9.2f  %-24s %s/%%%s\n",
                   q->seconds * 1e3 / (double)runs, top > 0 ? 100 * q->seconds / top : 0,
                   (double)q->calls / (double)runs, q->bytes / (double)runs, q->flops / (double)runs,
                   q->bytes / s / 1e9, q->flops / s / 1e9, q->kernel ? q->kernel : "?",
                   q->in->parent ? q->in->parent->name : "?", q->in->name);
  }
  fwrite(b.data, 1, b.len, stderr);
  fflush(stderr);
  hlo_buf_release(&b);
  free(v);
}

/* ---- many devices (--replicas, --partitions) -------------------------------------- */
/* The logical device whose id is id, or -1. */
static int logical_of(const hlo_comm *c, int ndev, int id) {
  for (int k = 0; k < ndev; k++)
    if (hlo_comm_device_id(c, k) == id) return k;
  return -1;
}

/* Seed of parameter i's random data on device id: device 0 gets the values
 * a single-device --random run gives. */
static uint64_t device_seed(uint64_t seed, int i, int id) {
  return (seed * 1000003u + (uint64_t)i) ^ ((uint64_t)id << 32);
}

/* An explicit input as an array of the parameter's type (shape unchecked). */
static int input_array(hlo_arena *A, const hlo_shape *ps, int i, const char *text, bool is_file,
                       hlo_array *arr) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  char name[32];
  snprintf(name, sizeof name, "<input %d>", i);
  hlo_src src = {name, text, strlen(text)};
  int rc = is_file ? hlo_npy_load(A, text, NULL, arr, &d) : hlo_nplit_parse(A, &src, ps->type, arr, &d);
  if (rc) cli_print_diags(&d);
  hlo_diags_release(&d);
  return rc;
}

/* Check that arr stacks ndev values of shape ps along a leading axis. */
static int check_stacked(const hlo_shape *ps, const hlo_array *arr, int i, int ndev, const char *what) {
  char st[256];
  shape_text(ps, st, sizeof st);
  if (!hlo_type_is_array(ps->type) || arr->type != ps->type) {
    cli_errorf(&TOOL, "input %d (%s): dtype %s does not match parameter %d of shape %s", i, what,
               hlo_npy_dtype_name(arr->type), i, st);
    return CLI_INVALID;
  }
  bool same = arr->rank == ps->rank + 1 && arr->dims[0] == ndev;
  for (int k = 0; same && k < ps->rank; k++) same = arr->dims[k + 1] == ps->dims[k];
  if (!same) {
    cli_errorf(&TOOL, "input %d (%s): --stack-inputs needs shape (%d, ...) of parameter %d's %s",
               i, what, ndev, i, st);
    return CLI_INVALID;
  }
  return CLI_OK;
}

/* The per-device member "d<id>.<param name>" (or "d<id>.<i>") of npz. */
static const hlo_npz_member *device_member(const hlo_npz *npz, int id, int i, const char *pname) {
  char a[300], b[64];
  snprintf(a, sizeof a, "d%d.%s", id, pname);
  snprintf(b, sizeof b, "d%d.%d", id, i);
  for (int k = 0; k < npz->n; k++)
    if (strcmp(npz->v[k].name, a) == 0 || strcmp(npz->v[k].name, b) == 0) return &npz->v[k];
  return NULL;
}

static bool npz_per_device(const hlo_npz *npz) {
  for (int k = 0; k < npz->n; k++) {
    const char *nm = npz->v[k].name;
    if (nm[0] != 'd' || !(nm[1] >= '0' && nm[1] <= '9')) return false;
    const char *p = nm + 1;
    while (*p >= '0' && *p <= '9') p++;
    if (*p != '.') return false;
  }
  return npz->n > 0;
}

typedef struct dev_inputs {
  int ndev, nparams;
  hlo_val ***args; /* [device][param] */
  hlo_val **shared; /* values the devices borrow from (same mode) */
} dev_inputs;

static void dev_inputs_free(dev_inputs *in) {
  for (int k = 0; in->args && k < in->ndev; k++) {
    for (int i = 0; in->args[k] && i < in->nparams; i++)
      if (in->args[k][i]) hlo_val_release(&RUN_ALLOC, in->args[k][i]);
    free(in->args[k]);
  }
  for (int i = 0; in->shared && i < in->nparams; i++)
    if (in->shared[i]) hlo_val_release(&RUN_ALLOC, in->shared[i]);
  free(in->args);
  free(in->shared);
}

/* Device k's value of parameter i. */
static hlo_val *device_input(const run_args *a, hlo_arena *A, const hlo_comm *c, const hlo_npz *npz,
                             bool per_device, char **inputs, int ninputs, const hlo_shape *ps,
                             const char *pname, int i, int k, int ndev, dev_inputs *din) {
  int id = hlo_comm_device_id(c, k);
  if (per_device) {
    const hlo_npz_member *mb = device_member(npz, id, i, pname);
    if (!mb) {
      cli_errorf(&TOOL, "%s has no member d%d.%s (or d%d.%d) for parameter %d of device %d", a->npz,
                 id, pname, id, i, i, id);
      return NULL;
    }
    char what[300];
    snprintf(what, sizeof what, "%s:%s", a->npz, mb->name);
    return val_from_array(ps, &mb->arr, i, what, true);
  }
  bool given = i < npz->n + ninputs;
  if (given && a->stack_inputs) {
    hlo_array arr;
    const char *what = i < npz->n ? npz->v[i].name : inputs[i - npz->n];
    if (i < npz->n) arr = npz->v[i].arr;
    else if (input_array(A, ps, i, what, ends_with(what, ".npy"), &arr)) return NULL;
    if (check_stacked(ps, &arr, i, ndev, what)) return NULL;
    int64_t b;
    hlo_shape_bytes(ps, &b);
    return hlo_val_borrow(&RUN_ALLOC, ps, (char *)arr.data + (size_t)b * (size_t)k);
  }
  if (!given && a->arg_mode != ARG_SAME) {
    hlo_val *v = hlo_val_new(&RUN_ALLOC, ps);
    if (!v) return NULL;
    if (a->arg_mode == ARG_RANDOM) hlo_val_randomize(v, device_seed(a->seed, i, id));
    else hlo_val_fill_int(v, id);
    return v;
  }
  if (!din->shared[i]) { /* one value that every device borrows */
    if (i < npz->n) {
      char what[300];
      snprintf(what, sizeof what, "%s:%s", a->npz, npz->v[i].name);
      din->shared[i] = val_from_array(ps, &npz->v[i].arr, i, what, true);
    } else if (given) {
      const char *t = inputs[i - npz->n];
      din->shared[i] = load_input(A, ps, i, t, ends_with(t, ".npy"));
    } else {
      din->shared[i] = hlo_val_new(&RUN_ALLOC, ps);
      if (din->shared[i]) hlo_val_randomize(din->shared[i], a->seed * 1000003u + (uint64_t)i);
    }
    if (!din->shared[i]) return NULL;
  }
  if (ps->type != HLO_TUPLE) return hlo_val_borrow(&RUN_ALLOC, ps, din->shared[i]->data);
  hlo_val *v = hlo_val_new(&RUN_ALLOC, ps); /* tuples are random: the same seed again */
  if (v) hlo_val_randomize(v, a->seed * 1000003u + (uint64_t)i);
  return v;
}

/* -o with every device: an .npz whose members are d<id>.arr_<N>. */
static int write_devices(const char *path, const hlo_comm *c, hlo_val **res, int ndev) {
  if (!ends_with(path, ".npz")) {
    cli_errorf(&TOOL, "the results of %d devices go to an .npz file (or choose one with --output-device)", ndev);
    return CLI_INVALID;
  }
  int total = 0;
  for (int k = 0; k < ndev; k++) total += leaves(res[k], NULL, 0, 0);
  const hlo_val **lv = malloc(sizeof *lv * (size_t)(total + 1));
  hlo_npz_member *m = malloc(sizeof *m * (size_t)(total + 1));
  char(*names)[48] = malloc(sizeof *names * (size_t)(total + 1));
  int rc = CLI_OK, n = 0;
  if (!lv || !m || !names) { cli_errorf(&TOOL, "out of memory"); rc = CLI_INVALID; goto done; }
  for (int id = 0; id < ndev; id++) {
    int k = logical_of(c, ndev, id);
    int cnt = leaves(res[k], lv + n, 0, total - n);
    for (int j = 0; j < cnt; j++, n++) {
      if (!hlo_type_is_array(lv[n]->shape->type)) {
        cli_errorf(&TOOL, "result element %d is a %s, which cannot be saved", j, hlo_type_name(lv[n]->shape->type));
        rc = CLI_INVALID;
        goto done;
      }
      snprintf(names[n], sizeof names[n], "d%d.arr_%d", id, j);
      m[n].name = names[n];
      val_to_array(lv[n], &m[n].arr);
    }
  }
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  if (hlo_npz_save(path, m, n, false, &d)) { cli_print_diags(&d); rc = CLI_INVALID; }
  hlo_diags_release(&d);
done:
  free(lv);
  free(m);
  free(names);
  return rc;
}

/* Run m as R x P devices in threads: inputs per device, the runs, and the
 * results printed or written per device. */
static int run_devices(const hlo_module *m, const hlo_exec_options *eo, const run_args *a, int R, int P,
                       const char *file, char **inputs, int ninputs, hlo_arena *A, hlo_diags *d,
                       double t0) {
  int ndev = R * P, rc = CLI_OK;
  if (a->nassignment && a->nassignment != ndev) {
    cli_errorf(&TOOL, "--device-assignment lists %d ids for %d devices (%d replica%s x %d partition%s)",
               a->nassignment, ndev, R, R == 1 ? "" : "s", P, P == 1 ? "" : "s");
    return CLI_USAGE;
  }
  if (a->output_device >= ndev) {
    cli_errorf(&TOOL, "--output-device %d: there are %d devices", a->output_device, ndev);
    return CLI_USAGE;
  }
  hlo_comm_options co = {R, P, a->nassignment ? a->assignment : NULL, a->coll_timeout};
  hlo_comm *c = a->mpi ? hlo_comm_new_mpi(&co, a->per_rank ? a->per_rank : 1, NULL, d)
                       : hlo_comm_new(&co, NULL, d);
  hlo_devices *g = c ? hlo_devices_new(m, eo, c, &RUN_ALLOC, d) : NULL;
  int first = 0, nlocal = ndev, rank = 0;
  bool ran = false; /* over MPI, a failure of the run is known to every process */
  if (c) hlo_comm_local(c, &first, &nlocal, &rank);
  double t_plan = now_ms() - t0, t_run = 0;
  dev_inputs din = {ndev, 0, NULL, NULL};
  hlo_val **res = calloc((size_t)ndev, sizeof *res);
  hlo_npz npz = {0, NULL};
  if (!g || !res) { if (!res) cli_errorf(&TOOL, "out of memory"); cli_print_diags(d); rc = CLI_INVALID; goto out; }
  if ((rc = check_sizes(m, a->max_memory, eo->src, d)) != CLI_OK) goto out;
  hlo_exec *e0 = hlo_devices_exec(g, first);
  int nparams = din.nparams = hlo_exec_nparams(e0);
  din.args = calloc((size_t)ndev, sizeof *din.args);
  din.shared = calloc((size_t)nparams + 1, sizeof *din.shared);
  if (!din.args || !din.shared) { cli_errorf(&TOOL, "out of memory"); rc = CLI_INVALID; goto out; }
  if (a->npz && load_npz(A, a->npz, &npz, d)) { cli_print_diags(d); rc = CLI_INVALID; goto out; }
  bool per_device = npz_per_device(&npz) && !a->stack_inputs;
  int given = per_device ? nparams : ninputs + npz.n;
  if (given > nparams || (given < nparams && !a->random && a->arg_mode == ARG_SAME)) {
    cli_errorf(&TOOL, "the entry computation takes %d input%s, %d given%s", nparams, nparams == 1 ? "" : "s",
               given, given < nparams ? " (use --random or --argument-mode to fill the rest)" : "");
    rc = CLI_INVALID;
    goto out;
  }
  for (int k = first; k < first + nlocal; k++) {
    din.args[k] = calloc((size_t)nparams + 1, sizeof(hlo_val *));
    if (!din.args[k]) { cli_errorf(&TOOL, "out of memory"); rc = CLI_INVALID; goto out; }
    for (int i = 0; i < nparams; i++) {
      const hlo_shape *ps = hlo_exec_param_shape(e0, i);
      const hlo_instruction *pin = m->entry->params[i];
      din.args[k][i] = ps ? device_input(a, A, c, &npz, per_device, inputs, ninputs, ps,
                                         pin ? pin->name : "?", i, k, ndev, &din) : NULL;
      if (!din.args[k][i]) { rc = CLI_INVALID; goto out; }
    }
  }
  long long runs = a->iterations;
  if (a->benchmark > 0) runs += 1 + a->benchmark;
  double *ts = malloc(sizeof(double) * (size_t)(runs + 1));
  if (!ts) { cli_errorf(&TOOL, "out of memory"); rc = CLI_INVALID; goto out; }
  for (long long it = 0; it < runs; it++) {
    for (int k = 0; k < ndev; k++)
      if (res[k]) { hlo_val_release(&RUN_ALLOC, res[k]); res[k] = NULL; }
    double t1 = now_ms();
    ran = true;
    /* only the last run brings every result to rank 0 */
    int (*run)(hlo_devices *, hlo_val ***, int, hlo_val **) = it + 1 == runs ? hlo_devices_run
                                                                             : hlo_devices_run_local;
    if (run(g, din.args, nparams, res)) { cli_print_diags(d); rc = CLI_INVALID; free(ts); goto out; }
    ts[it] = now_ms() - t1;
    for (int k = first; k < first + nlocal && a->benchmark > 0 && it == 0; k++)
      hlo_exec_profile_reset(hlo_devices_exec(g, k));
    if (a->benchmark > 0 && it >= 1 && it <= a->benchmark) continue;
    t_run += ts[it];
  }
  if (a->benchmark > 0) {
    long long n = a->benchmark;
    qsort(ts + 1, (size_t)n, sizeof(double), cmp_double);
    double med = n % 2 ? ts[1 + n / 2] : 0.5 * (ts[n / 2] + ts[1 + n / 2]);
    fprintf(stderr, "hlo-run: %s: benchmark %lld runs of %d devices after a warm-up: median %.4f ms, "
            "min %.4f ms, max %.4f ms\n", file, n, ndev, med, ts[1], ts[n]);
  }
  free(ts);
  if (a->time)
    fprintf(stderr, "hlo-run: %s: plan %.3f ms, run %.3f ms per iteration (%d devices in threads; %lld iteration%s)\n",
            file, t_plan, t_run / (double)a->iterations, ndev, a->iterations, a->iterations == 1 ? "" : "s");
  /* each process prints the profiles of its own devices, in device order */
  for (int id = 0; id < ndev && a->profile; id++) {
    int k = logical_of(c, ndev, id);
    if (k < first || k >= first + nlocal) continue;
    char label[64];
    if (a->mpi) snprintf(label, sizeof label, "device %d (MPI rank %d)", id, rank);
    else snprintf(label, sizeof label, "device %d", id);
    print_profile(hlo_devices_exec(g, k), runs - (a->benchmark > 0), label);
  }
  if (rank != 0) goto out; /* rank 0 has every result */
  if (a->output_device >= 0) {
    int k = logical_of(c, ndev, a->output_device);
    if (a->output) rc = write_output(a->output, res[k]);
    else {
      hlo_buf b;
      hlo_buf_init(&b, NULL);
      print_value(&b, res[k], 0);
      hlo_buf_putc(&b, '\n');
      fwrite(b.data, 1, b.len, stdout);
      hlo_buf_release(&b);
    }
  } else if (a->output) {
    rc = write_devices(a->output, c, res, ndev);
  } else {
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    for (int id = 0; id < ndev; id++) {
      hlo_buf_printf(&b, "device %d:\n", id);
      print_value(&b, res[logical_of(c, ndev, id)], 0);
      hlo_buf_putc(&b, '\n');
    }
    fwrite(b.data, 1, b.len, stdout);
    hlo_buf_release(&b);
  }
out:
  /* over MPI, a failure outside a run is this process's alone: end the job
   * rather than leave the others waiting for it */
  if (rc != CLI_OK && !ran && c) hlo_comm_abort_job(c, rc);
  for (int k = 0; res && k < ndev; k++)
    if (res[k]) hlo_val_release(&RUN_ALLOC, res[k]);
  free(res);
  dev_inputs_free(&din);
  hlo_devices_free(g);
  hlo_comm_free(c);
  return rc;
}

/* ---- main ------------------------------------------------------------------------- */
int main(int argc, char **argv) {
  /* keep freed large buffers in the heap: repeated runs (--benchmark,
   * --iterations, while loops) then reuse pages instead of faulting in fresh
   * ones from mmap every time */
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  run_args a = {0};
  a.iterations = 1;
  a.output_device = -1;
  a.max_memory = hlo_mempool_default_limit();
  int npos = 0;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  if (a.list_isas) return list_isas(a.isa);
  if (a.list_ccalls) return ccall_cli_list();
  {
    hlo_isa sel;
    const char *why = NULL;
    if (hlo_isa_effective(a.isa, &sel, &why) != HLO_OK) cli_usage_error(&TOOL, "%s", why);
  }
  run_spec spec;
  memset(&spec, 0, sizeof spec);
  const char *file = NULL;
  if (a.spec) {
    char err[512];
    if (run_spec_load(a.spec, &spec, err, sizeof err)) {
      cli_errorf(&TOOL, "%s: %s", a.spec, err);
      return CLI_INVALID;
    }
    if (npos > 0) cli_usage_error(&TOOL, "--spec takes no FILE or INPUT arguments");
    file = spec.module;
    if (spec.reference) a.reference = true;
    if (a.iterations == 1) a.iterations = spec.iterations;
  } else {
    if (a.literals && a.snapshot) cli_usage_error(&TOOL, "--input-literals and --snapshot exclude each other");
    if ((a.literals || a.snapshot) && (npos > 1 || a.npz))
      cli_usage_error(&TOOL, "--%s gives every input: no INPUT arguments or --inputs", a.literals ? "input-literals" : "snapshot");
    if (npos < 1 && !a.snapshot) cli_usage_error(&TOOL, "missing FILE");
    file = npos ? argv[first] : NULL;
  }
  POOL = hlo_mempool_new(a.max_memory);
  if (!POOL) {
    cli_errorf(&TOOL, "out of memory");
    run_spec_free(&spec);
    return CLI_USAGE;
  }
  char **inputs = argv + first + (a.spec ? 0 : 1);
  int ninputs = a.spec || !npos ? 0 : npos - 1;

  hlo_arena A;
  hlo_arena_init(&A, NULL);
  cli_input lin = {0};
  hlo_pb_run lrun = {0};
  hlo_pb_snapshot snap = {0};
  cli_input mtext = {0}; /* the snapshot's module as HLO text, when no FILE is given */
  const char *lpath = a.snapshot ? a.snapshot : a.literals;
  if (lpath) {
    int lrc = run_lit_load(&TOOL, &A, lpath, a.snapshot != NULL, &lin, &lrun, &snap);
    if (lrc == CLI_OK && !file && snap.has_module_proto) {
      hlo_diags sd;
      hlo_diags_init(&sd, NULL);
      if (run_lit_module(&A, &lin, &snap, &mtext, &sd)) lrc = CLI_INVALID;
      cli_print_diags(&sd);
      hlo_diags_release(&sd);
    } else if (lrc == CLI_OK && !file) {
      hlo_diags sd;
      hlo_diags_init(&sd, NULL);
      hlo_errorf(&sd, &lin.src, 0, "the snapshot holds no module (hlo { hlo_module { ... } }); give FILE");
      cli_print_diags(&sd);
      hlo_diags_release(&sd);
      lrc = CLI_INVALID;
    }
    if (lrc != CLI_OK) {
      cli_input_release(&lin);
      hlo_arena_release(&A);
      hlo_mempool_free(POOL);
      return lrc;
    }
  }

  cli_input in = mtext;
  if (!mtext.data && cli_read(&TOOL, file, &in)) {
    cli_input_release(&lin);
    hlo_arena_release(&A);
    run_spec_free(&spec);
    hlo_mempool_free(POOL);
    return CLI_INVALID;
  }
  int rc = CLI_OK;
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = NULL;
  hlo_exec *e = NULL;
  hlo_val **args = NULL, *res = NULL;
  int nparams = 0;
  double t0 = now_ms(), t_plan = 0, t_run = 0, c_run = 0;
  size_t next;
  size_t end = hlo_module_chunk_end(&in.src, 0, &next);
  m = hlo_parse_module(&in.src, 0, end, NULL, &d, NULL);
  if (!m || hlo_shape_fill_omitted(m, &d, &in.src) != HLO_OK) {
    cli_print_diags(&d);
    rc = CLI_INVALID;
    goto out;
  }
  if (hlo_module_fill_elided_constants(m) != HLO_OK) { /* XLA's parser does it by default */
    cli_errorf(&TOOL, "%s: out of memory for the constants written as {...}", in.src.name);
    rc = CLI_INVALID;
    goto out;
  }
  if ((rc = ccall_cli_load(&TOOL, &a.ccalls, &d)) != CLI_OK) goto out;
  if (!a.reference && !a.no_fuse && hlo_fuse_for_run(m, &d) < 0) {
    cli_print_diags(&d);
    rc = CLI_INVALID;
    goto out;
  }
  hlo_exec_options eo = {0};
  eo.ccalls = a.ccalls.user;
  eo.nccalls = a.ccalls.n;
  eo.reference = a.reference;
  eo.rng_seed = a.rng_seed;
  eo.max_while_iters = a.max_iters;
  eo.threads = (int)a.threads;
  eo.src = &in.src; /* the library verifies the module, with positions */
  eo.isa = a.isa;
  eo.check_fast = a.check_fast;
  eo.allow_mixed_precision = true; /* as hlo-verify --allow-mixed-precision */
  eo.profile = a.profile || a.time;
  {
    int mr = 1, mp = 1;
    bool inferred = false;
    if (hlo_module_device_counts(m, &mr, &mp, &inferred, &d)) { cli_print_diags(&d); rc = CLI_INVALID; goto out; }
    int R = a.replicas ? a.replicas : mr, P = a.partitions ? a.partitions : mp;
    if (a.per_rank && !a.mpi) cli_usage_error(&TOOL, "--devices-per-rank needs --mpi");
    if (inferred && !(a.replicas && a.partitions))
      fprintf(stderr, "hlo-run: %s: running %d replica%s x %d partition%s, the fewest its collectives "
              "need (the module does not say; set --replicas/--partitions)\n", file, R, R == 1 ? "" : "s",
              P, P == 1 ? "" : "s");
    if (R * P > 1 || a.nassignment || a.output_device > 0 || a.mpi) {
      if (a.spec) cli_usage_error(&TOOL, "--spec runs one device; this module runs %d", R * P);
      if (lpath) cli_usage_error(&TOOL, "%s runs one device; this module runs %d", a.snapshot ? "--snapshot" : "--input-literals", R * P);
      rc = run_devices(m, &eo, &a, R, P, file, inputs, ninputs, &A, &d, t0);
      goto out;
    }
    if (a.arg_mode == ARG_RANDOM) a.random = true;
  }
  e = hlo_exec_new(m, &eo, &RUN_ALLOC, &d);
  t_plan = now_ms() - t0;
  if (!e) { cli_print_diags(&d); rc = CLI_INVALID; goto out; }
  if ((rc = check_sizes(m, a.max_memory, &in.src, &d)) != CLI_OK) goto out;
  nparams = hlo_exec_nparams(e);
  args = calloc((size_t)nparams + 1, sizeof *args);
  if (!args) { cli_errorf(&TOOL, "out of memory"); rc = CLI_INVALID; goto out; }

  /* inputs, in parameter order */
  hlo_npz npz = {0, NULL};
  if (a.npz) {
    if (load_npz(&A, a.npz, &npz, &d)) { cli_print_diags(&d); rc = CLI_INVALID; goto out; }
  }
  int given = a.spec ? spec.ninputs : lpath ? lrun.nargs : ninputs + npz.n;
  if (given > nparams || (given < nparams && !a.random && !a.spec && a.arg_mode == ARG_SAME)) {
    cli_errorf(&TOOL, "the entry computation takes %d input%s, %d given%s", nparams,
               nparams == 1 ? "" : "s", given, given < nparams ? " (use --random to fill the rest)" : "");
    for (int i = 0; i < nparams; i++) {
      char st[256];
      shape_text(hlo_exec_param_shape(e, i), st, sizeof st);
      fprintf(stderr, "  parameter %d: %s\n", i, st);
    }
    rc = CLI_INVALID;
    goto out;
  }
  if (a.spec && given != nparams) {
    cli_errorf(&TOOL, "%s: the module takes %d inputs, the spec gives %d", a.spec, nparams, given);
    rc = CLI_INVALID;
    goto out;
  }
  for (int i = 0; i < nparams; i++) {
    const hlo_shape *ps = hlo_exec_param_shape(e, i);
    if (!ps) { cli_errorf(&TOOL, "parameter %d is missing from the entry computation", i); rc = CLI_INVALID; goto out; }
    if (lpath) {
      args[i] = i < lrun.nargs ? run_lit_value(&RUN_ALLOC, ps, &lrun.args[i], &lin.src, i) : NULL;
      if (!args[i]) { rc = CLI_INVALID; goto out; }
    } else if (a.spec) {
      run_src *s = &spec.inputs[i];
      if (s->kind == RS_RANDOM) {
        args[i] = hlo_val_new(&RUN_ALLOC, ps);
        if (args[i]) hlo_val_randomize(args[i], s->seed * 1000003u + (uint64_t)i);
      } else {
        args[i] = load_input(&A, ps, i, s->text, s->kind == RS_FILE);
      }
    } else if (i < npz.n) {
      char what[300];
      snprintf(what, sizeof what, "%s:%s", a.npz, npz.v[i].name);
      args[i] = val_from_array(ps, &npz.v[i].arr, i, what, true);
    } else if (i - npz.n < ninputs) {
      const char *t = inputs[i - npz.n];
      args[i] = load_input(&A, ps, i, t, ends_with(t, ".npy"));
    } else {
      args[i] = hlo_val_new(&RUN_ALLOC, ps);
      if (args[i] && a.arg_mode == ARG_DEVICE_ID) hlo_val_fill_int(args[i], 0);
      else if (args[i]) hlo_val_randomize(args[i], a.seed * 1000003u + (uint64_t)i);
    }
    if (!args[i]) {
      if (hlo_mempool_stats_of(POOL).refused) cli_errorf(&TOOL, "parameter %d: cannot allocate its value", i);
      rc = CLI_INVALID;
      goto out;
    }
  }

  long long nprofiled = 0;
  if (a.benchmark > 0) {
    if (bench(e, args, nparams, a.benchmark, file, &a, &d)) { rc = CLI_INVALID; goto out; }
    nprofiled = a.benchmark;
  }
  uint64_t live_before = 0, run_peak = 0; /* for --profile: bytes allocated during a run at most */
  for (long long it = 0; it < a.iterations; it++) {
    if (res) { hlo_val_release(&RUN_ALLOC, res); res = NULL; }
    live_before = hlo_mempool_reset_peak(POOL);
    double t1 = now_ms(), c1 = cpu_ms();
    int run_rc = hlo_exec_run(e, args, nparams, &res);
    uint64_t pk = hlo_mempool_stats_of(POOL).peak - live_before;
    if (pk > run_peak) run_peak = pk;
    if (run_rc) {
      cli_print_diags(&d);
      rc = CLI_INVALID;
      goto out;
    }
    t_run += now_ms() - t1;
    c_run += cpu_ms() - c1;
  }
  if (a.time)
    fprintf(stderr, "hlo-run: %s: plan %.3f ms, run %.3f ms per iteration (cpu %.3f ms; %lld iteration%s, %s path%s%s)\n",
            file, t_plan, t_run / (double)a.iterations, c_run / (double)a.iterations, a.iterations,
            a.iterations == 1 ? "" : "s", a.reference ? "reference" : "fast",
            a.reference ? "" : ", ", a.reference ? "" : hlo_isa_name(hlo_exec_isa(e)));
  if (a.profile) {
    print_profile(e, nprofiled + a.iterations, NULL);
    fprintf(stderr, "hlo-run: peak of live buffers during a run: %llu bytes above the %llu bytes live before it "
            "(plan, constants and inputs)\n", (unsigned long long)run_peak, (unsigned long long)live_before);
  }
  if (a.time) { /* the five opcodes that took longest, from the per-instruction profile */
    int np = 0;
    const hlo_exec_prof *p = hlo_exec_profile(e, &np);
    double ms[HLO_OP_COUNT] = {0};
    int64_t calls[HLO_OP_COUNT] = {0};
    for (int i = 0; i < np; i++) {
      hlo_opcode op = p[i].in->op;
      /* control ops include their callees' time: count it once, at the leaves */
      if (op == HLO_OP_WHILE || op == HLO_OP_CALL || op == HLO_OP_CONDITIONAL || op == HLO_OP_FUSION ||
          op == HLO_OP_ASYNC_START)
        continue;
      ms[op] += p[i].seconds * 1e3;
      calls[op] += p[i].calls;
    }
    long long runs = nprofiled + a.iterations;
    bool used[HLO_OP_COUNT] = {false};
    for (int k = 0; k < 5; k++) {
      int best = -1;
      for (int op = 0; op < HLO_OP_COUNT; op++)
        if (!used[op] && calls[op] && (best < 0 || ms[op] > ms[best])) best = op;
      if (best < 0) break;
      used[best] = true;
      fprintf(stderr, "hlo-run:   %-22s %10.3f ms in %lld executions\n", hlo_opcode_name((hlo_opcode)best),
              ms[best] / (double)runs, (long long)(calls[best] / runs));
    }
  }

  if (a.spec) {
    const hlo_val *lv[256];
    int n = leaves(res, lv, 0, 256);
    if (spec.noutputs && n != spec.noutputs) {
      printf("the result has %d arrays, the spec expects %d\n", n, spec.noutputs);
      rc = CLI_INVALID;
    }
    for (int i = 0; i < spec.noutputs && i < n && i < 256; i++) {
      run_src *s = &spec.outputs[i];
      hlo_array want;
      hlo_diags_release(&d);
      hlo_diags_init(&d, NULL);
      int lr;
      hlo_src esrc = {"<expected>", s->text, strlen(s->text)}; /* outlives d's use */
      if (s->kind == RS_FILE)
        lr = hlo_npy_load(&A, s->text, NULL, &want, &d);
      else
        lr = hlo_nplit_parse(&A, &esrc, lv[i]->shape->type, &want, &d);
      if (lr) { cli_print_diags(&d); rc = CLI_INVALID; continue; }
      if (compare_output(i, lv[i], &want, s->rtol, s->atol)) rc = CLI_INVALID;
    }
    if (rc == CLI_OK) printf("%s: %d output%s match\n", a.spec, spec.noutputs, spec.noutputs == 1 ? "" : "s");
  } else if (a.snapshot && lrun.result && !a.output) {
    /* as run_hlo_module: the recorded result within its default error bounds */
    const hlo_val *lv[256];
    const hlo_array *want[256];
    int n = leaves(res, lv, 0, 256), nw = run_lit_leaves(lrun.result, want, 0, 256);
    if (n != nw) {
      printf("the result has %d arrays, the snapshot records %d\n", n, nw);
      rc = CLI_INVALID;
    }
    for (int i = 0; i < n && i < nw && i < 256; i++)
      if (compare_output(i, lv[i], want[i], 1e-3, 1e-3)) rc = CLI_INVALID;
    if (rc == CLI_OK)
      printf("%s: the result matches the recorded one (%d array%s, rtol=0.001, atol=0.001)\n", a.snapshot, n,
             n == 1 ? "" : "s");
  } else if (a.output) {
    rc = write_output(a.output, res);
  } else {
    hlo_buf b;
    hlo_buf_init(&b, NULL);
    print_value(&b, res, 0);
    hlo_buf_putc(&b, '\n');
    fwrite(b.data, 1, b.len, stdout);
    hlo_buf_release(&b);
  }

out:
  if (hlo_mempool_stats_of(POOL).refused)
    cli_errorf(&TOOL, "memory limit of %llu bytes reached (a request of %llu bytes was refused); "
               "raise it with --max-memory", (unsigned long long)hlo_mempool_stats_of(POOL).limit,
               (unsigned long long)hlo_mempool_stats_of(POOL).refused);
  if (res) hlo_val_release(&RUN_ALLOC, res);
  for (int i = 0; args && i < nparams; i++) hlo_val_release(&RUN_ALLOC, args[i]);
  free(args);
  hlo_exec_free(e);
  hlo_module_free(m);
  ccall_cli_release(&a.ccalls);
  hlo_arena_release(&A);
  hlo_diags_release(&d);
  cli_input_release(&in);
  cli_input_release(&lin);
  run_spec_free(&spec);
  hlo_mempool_free(POOL);
  free(a.assignment);
  unmap_inputs();
  return rc;
}
