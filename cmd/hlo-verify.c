/* hlo-verify - check HLO modules: structure, every shape constraint and
 * XLA's verifier rules.  Reports every error of every module; exit 0 if all
 * are valid, 1 if any is invalid, 2 on usage or I/O errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "common/cli.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"
#include "hlo/hlo_verify.h"

enum {
  OPT_JSON, OPT_LAYOUT, OPT_MIXED, OPT_UNBOUNDED, OPT_REPLICAS, OPT_PARTITIONS, OPT_QUIET, OPT_MAX_ERRORS,
  OPT_BCAST_ORDER, OPT_RESHAPE_BITCAST, OPT_NO_HOST_MEMORY, OPT_NAME_UNCHANGED, OPT_CALL_THREADS,
  OPT_BITCAST_SIZE, OPT_NO_SHARDING_DEVICES, OPT_NO_UNIQUE_CHANNELS, OPT_NO_S4U4,
  OPT_DEADLOCKS, OPT_NO_REPLICA_GROUPS
};

static const cli_opt OPTS[] = {
    [OPT_JSON] = {"json", 0, 0, NULL, "print the results as JSON on standard output"},
    [OPT_LAYOUT] = {"layout-sensitive", 0, 0, NULL, "compare layouts too (XLA's layout_sensitive)"},
    [OPT_MIXED] = {"allow-mixed-precision", 0, 0, NULL, "(XLA's allow_mixed_precision) let precisions mix"},
    [OPT_UNBOUNDED] = {"allow-unbounded-dynamism", 0, 0, NULL, "('?' dimensions) accept unbounded dimensions"},
    [OPT_REPLICAS] = {"replica-count", 0, 1, "N", "number of replicas (default: the module's replica_count)"},
    [OPT_PARTITIONS] = {"num-partitions", 0, 1, "N", "number of partitions (default: the module's num_partitions)"},
    [OPT_QUIET] = {"quiet", 'q', 0, NULL, "print nothing for valid modules"},
    [OPT_MAX_ERRORS] = {"max-errors", 0, 1, "N", "report at most N errors per module (default: all)"},
    [OPT_BCAST_ORDER] = {"verify-broadcast-dimensions-order", 0, 0, NULL, "broadcast dimensions must be sorted"},
    [OPT_RESHAPE_BITCAST] = {"verify-reshape-is-bitcast", 0, 0, NULL, "a reshape must keep the physical element order"},
    [OPT_NO_HOST_MEMORY] = {"verify-no-host-memory-space", 0, 0, NULL, "no result may live in host memory S(5)"},
    [OPT_NAME_UNCHANGED] = {"verify-instruction-name-unchanged", 0, 0, NULL,
                            "names must equal metadata's scheduling_name (unless .remat/.clone)"},
    [OPT_CALL_THREADS] = {"verify-call-nested-computation-thread-name", 0, 0, NULL,
                          "call, custom-call and to_apply computations run on the caller's thread"},
    [OPT_BITCAST_SIZE] = {"allow-bitcast-to-have-different-size", 0, 0, NULL,
                          "with --layout-sensitive, do not compare bitcast byte sizes"},
    [OPT_NO_SHARDING_DEVICES] = {"no-verify-sharding-device-numbers", 0, 0, NULL,
                                 "do not bound sharding device ids by num_partitions"},
    [OPT_NO_UNIQUE_CHANNELS] = {"no-verify-unique-channel-ids", 0, 0, NULL, "accepted for XLA compatibility; no effect"},
    [OPT_NO_S4U4] = {"no-verify-s4u4-usage", 0, 0, NULL, "accepted for XLA compatibility; no effect"},
    [OPT_DEADLOCKS] = {"verify-no-collective-deadlocks", 0, 0, NULL,
                       "scheduled sends/recvs pair up before other collectives"},
    [OPT_NO_REPLICA_GROUPS] = {"no-check-replica-groups", 0, 0, NULL, "do not check replica groups"},
    {0},
};

static const cli_tool TOOL = {
    "hlo-verify", "[OPTION]... [FILE]...",
    "Verify HLO modules (standard input if no FILE or FILE is -); every error is reported.", OPTS,
    "Each file may hold several modules separated by a line \"// -----\".\n"
    "Valid modules are reported as \"FILE: ok\" on standard output; errors go to standard error\n"
    "as FILE:LINE:COL: error: %instruction: message."};

typedef struct args {
  hlo_verify_options vo;
  bool json, quiet;
  int max_errors;
} args;

static int on_opt(int idx, const char *arg, void *ud) {
  args *a = ud;
  switch (idx) {
  case OPT_JSON: a->json = true; break;
  case OPT_LAYOUT: a->vo.layout_sensitive = true; break;
  case OPT_MIXED: a->vo.allow_mixed_precision = true; break;
  case OPT_UNBOUNDED: a->vo.allow_unbounded_dynamism = true; break;
  case OPT_REPLICAS: a->vo.replica_count = cli_int_arg(&TOOL, "--replica-count", arg); break;
  case OPT_PARTITIONS: a->vo.num_partitions = cli_int_arg(&TOOL, "--num-partitions", arg); break;
  case OPT_QUIET: a->quiet = true; break;
  case OPT_MAX_ERRORS: a->max_errors = (int)cli_int_arg(&TOOL, "--max-errors", arg); break;
  case OPT_BCAST_ORDER: a->vo.verify_broadcast_dimensions_order = true; break;
  case OPT_RESHAPE_BITCAST: a->vo.verify_reshape_is_bitcast = true; break;
  case OPT_NO_HOST_MEMORY: a->vo.verify_no_host_memory_space = true; break;
  case OPT_NAME_UNCHANGED: a->vo.verify_instruction_name_unchanged = true; break;
  case OPT_CALL_THREADS: a->vo.verify_call_nested_computation_thread_name = true; break;
  case OPT_BITCAST_SIZE: a->vo.allow_bitcast_to_have_different_size = true; break;
  case OPT_NO_SHARDING_DEVICES: a->vo.no_verify_sharding_device_numbers = true; break;
  case OPT_NO_UNIQUE_CHANNELS: a->vo.no_verify_unique_channel_ids = true; break;
  case OPT_NO_S4U4: a->vo.no_verify_s4u4_usage = true; break;
  case OPT_DEADLOCKS: a->vo.verify_no_collective_deadlocks = true; break;
  case OPT_NO_REPLICA_GROUPS: a->vo.no_check_replica_groups = true; break;
  }
  return 0;
}

static void json_diags(cJSON *arr, const hlo_diags *d) {
  size_t last_off = 0; /* count lines on from the previous diagnostic */
  hlo_loc at = {1, 1};
  for (int i = 0; i < d->n; i++) {
    const hlo_diag *g = &d->v[i];
    cJSON *o = cJSON_CreateObject();
    const char *sev = g->sev == HLO_SEV_ERROR ? "error" : g->sev == HLO_SEV_WARNING ? "warning" : "note";
    cJSON_AddStringToObject(o, "severity", sev);
    if (g->src) {
      hlo_loc l = at = hlo_src_loc_from(g->src, g->off, last_off, at);
      last_off = g->off > g->src->len ? g->src->len : g->off;
      cJSON_AddNumberToObject(o, "line", l.line);
      cJSON_AddNumberToObject(o, "column", l.col);
    }
    cJSON_AddStringToObject(o, "message", g->msg ? g->msg : "");
    cJSON_AddItemToArray(arr, o);
  }
}

/* Verify every module of one file; returns CLI_OK or CLI_INVALID. */
static int verify_file(const char *name, const cli_input *in, const args *a, cJSON *jfiles) {
  int rc = CLI_OK, index = 0;
  size_t begin = 0;
  for (;;) {
    size_t next, end = hlo_module_chunk_end(&in->src, begin, &next);
    if (!hlo_chunk_is_blank(&in->src, begin, end) || (index == 0 && next >= in->src.len)) {
      hlo_diags d;
      hlo_diags_init(&d, NULL);
      d.max_errors = a->max_errors;
      hlo_module *m = hlo_parse_module(&in->src, begin, end, NULL, &d, NULL);
      bool ok = m && hlo_shape_fill_omitted(m, &d, &in->src) == HLO_OK &&
                hlo_verify_module(m, &a->vo, &d, &in->src) == HLO_OK;
      if (!ok) rc = CLI_INVALID;
      if (jfiles) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", name);
        cJSON_AddNumberToObject(o, "module", index);
        if (m && m->name) cJSON_AddStringToObject(o, "name", m->name);
        cJSON_AddBoolToObject(o, "valid", ok);
        cJSON_AddNumberToObject(o, "errors", d.nerrors);
        json_diags(cJSON_AddArrayToObject(o, "diagnostics"), &d);
        cJSON_AddItemToArray(jfiles, o);
      } else {
        cli_print_diags(&d);
        if (ok && !a->quiet) {
          if (index || next < in->src.len) printf("%s (module %d): ok\n", name, index);
          else printf("%s: ok\n", name);
        } else if (!ok) {
          fprintf(stderr, "%s: module %d is invalid (%d error%s)\n", name, index, d.nerrors,
                  d.nerrors == 1 ? "" : "s");
        }
        fflush(stdout); /* keep reports in module order when both streams are merged */
      }
      hlo_module_free(m);
      hlo_diags_release(&d);
      index++;
    }
    if (next >= in->src.len || next <= begin) break;
    begin = next;
  }
  return rc;
}

int main(int argc, char **argv) {
  args a = {0};
  int npos;
  int first = cli_parse(&TOOL, argc, argv, on_opt, &a, &npos);
  int nfiles;
  char **files = cli_files(&TOOL, argv, first, npos, &nfiles);
  cJSON *jfiles = a.json ? cJSON_CreateArray() : NULL;
  int rc = CLI_OK;
  for (int i = 0; i < nfiles; i++) {
    cli_input in;
    if (cli_read(&TOOL, files[i], &in)) {
      rc = CLI_USAGE;
      continue;
    }
    int frc = verify_file(in.src.name ? in.src.name : files[i], &in, &a, jfiles);
    if (frc && rc == CLI_OK) rc = frc;
    cli_input_release(&in);
  }
  if (jfiles) {
    char *s = cJSON_Print(jfiles);
    if (s) {
      puts(s);
      free(s);
    } else {
      cli_errorf(&TOOL, "out of memory");
      rc = CLI_USAGE;
    }
    cJSON_Delete(jfiles);
  }
  return rc;
}
