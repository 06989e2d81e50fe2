/* groups_test.c - unit tests of the participants of collectives (XLA's
 * four group modes, explicit and iota groups), the device counts a module
 * needs, the communicator's checks, a device group run through the
 * library API, and send/recv pairs between the devices of a group.  Expected values worked out by hand from the rules in
 * docs/devices.md. */
#include "exec/groups.h"
#include "hlo/hlo_exec.h"
#include "hlo/hlo_text.h"
#include "testing.h"

static const char *MOD =
    "HloModule g\n\n"
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n"
    "ENTRY e {\n"
    "  p = f32[4] parameter(0)\n"
    "  cr = f32[4] all-reduce(p), replica_groups={{1,0},{2,3}}, to_apply=add\n"
    "  crp = f32[4] all-reduce(p), replica_groups={{1,0}}, channel_id=1, to_apply=add\n"
    "  flat = f32[4] all-reduce(p), replica_groups=[2,2]<=[2,2]T(1,0), channel_id=2, "
    "use_global_device_ids=true, to_apply=add\n"
    "  cp = f32[4] all-to-all(p), replica_groups={}, channel_id=3, dimensions={0}\n"
    "  perm = f32[4] collective-permute(p), source_target_pairs={{0,1},{1,0}}, channel_id=4\n"
    "  ROOT t = (f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(cr, crp, flat, cp, perm)\n"
    "}\n";

static void check_part(const hlo_module *m, const char *name, int R, int P, int self, const int *want,
                       int nwant, int wantpos) {
  const hlo_instruction *in = hlo_computation_find(m->entry, name);
  hlo_arena A;
  hlo_arena_init(&A, NULL);
  int part[64], n = -1, pos = -1;
  char why[256] = "";
  int rc = in ? hlo_group_participants(in, R, P, self, &A, part, &n, &pos, why, sizeof why) : HLO_ERR;
  CHECK_INT(rc, HLO_OK);
  if (rc) printf("  %s: %s\n", name, why);
  CHECK_INT(n, nwant);
  for (int i = 0; i < nwant && i < n; i++) CHECK_INT(part[i], want[i]);
  CHECK_INT(pos, wantpos);
  hlo_arena_release(&A);
}

static hlo_module *parse(const char *text, hlo_diags *d) {
  hlo_src src = {"test", text, strlen(text)};
  return hlo_parse_module(&src, 0, src.len, NULL, d, NULL);
}

/* Run a 4-replica group with per-device inputs of f32[n] (and s32 scalar
 * flags when flags is set); HLO_OK or HLO_ERR, results in res. */
static int run4(hlo_devices *g, const float (*x)[2], const int32_t *flags, hlo_val **res) {
  hlo_val *a[4][2] = {{NULL}};
  hlo_val **args[4];
  int np = flags ? 2 : 1;
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < np; i++) a[k][i] = hlo_val_new(NULL, hlo_exec_param_shape(hlo_devices_exec(g, k), i));
    memcpy(a[k][0]->data, x[k], sizeof x[k]);
    if (flags) memcpy(a[k][1]->data, &flags[k], sizeof flags[k]);
    args[k] = a[k];
  }
  int rc = hlo_devices_run(g, args, np, res);
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < np; i++) hlo_val_release(NULL, a[k][i]);
  return rc;
}

/* The device group's threads persist between runs: many runs in a row give
 * the same bits (the sum folds in participant order: element 0 is
 * ((1e8 + 1) + -1e8) + 1 = 1 in f32, not 2 or 0); a run in which device 2
 * skips the all-reduce fails after the timeout naming it, and the next run
 * of the same group, with every device taking part, succeeds. */
static void test_persistent_group(hlo_diags *d) {
  hlo_module *m = parse("HloModule rep, replica_count=4\nadd {\n  a = f32[] parameter(0)\n"
                        "  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
                        "sum {\n  x = f32[2] parameter(0)\n"
                        "  ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=add\n}\n"
                        "skip {\n  ROOT x = f32[2] parameter(0)\n}\n"
                        "ENTRY e {\n  p = f32[2] parameter(0)\n  f = s32[] parameter(1)\n"
                        "  z = s32[] constant(0)\n  c = pred[] compare(f, z), direction=NE\n"
                        "  ROOT o = f32[2] conditional(c, p, p), true_computation=sum, "
                        "false_computation=skip\n}\n", d);
  CHECK(m != NULL);
  if (!m) return;
  hlo_comm_options co = {4, 1, NULL, 0.3};
  hlo_comm *c = hlo_comm_new(&co, NULL, d);
  hlo_devices *g = c ? hlo_devices_new(m, NULL, c, NULL, d) : NULL;
  CHECK(g != NULL);
  const float x[4][2] = {{1e8f, 0.5f}, {1, 0.25f}, {-1e8f, 2}, {1, -4}};
  const int32_t all[4] = {1, 1, 1, 1}, but2[4] = {1, 1, 0, 1};
  hlo_val *res[4] = {NULL};
  int bad = 0;
  for (int run = 0; g && run < 300; run++) {
    CHECK_INT(run4(g, x, all, res), HLO_OK);
    for (int k = 0; k < 4; k++) {
      const float *r = res[k] ? res[k]->data : NULL;
      bad += !r || r[0] != 1.0f || r[1] != -1.25f;
      hlo_val_release(NULL, res[k]);
    }
  }
  CHECK_INT(bad, 0);
  hlo_diags fd;
  hlo_diags_init(&fd, NULL);
  hlo_devices *g2 = c ? hlo_devices_new(m, NULL, c, NULL, &fd) : NULL;
  CHECK(g2 != NULL);
  if (g2) {
    CHECK_INT(run4(g2, x, but2, res), HLO_ERR);
    for (int k = 0; k < 4; k++) CHECK(res[k] == NULL);
    CHECK(fd.n >= 1 && strstr(fd.v[0].msg, "collective timed out") && strstr(fd.v[0].msg, "device 2 never arrived"));
    CHECK_INT(run4(g2, x, all, res), HLO_OK);
    for (int k = 0; k < 4; k++) {
      CHECK(res[k] && ((const float *)res[k]->data)[0] == 1.0f);
      hlo_val_release(NULL, res[k]);
    }
  }
  hlo_devices_free(g2); /* after a failed run too: joins its threads */
  hlo_diags_release(&fd);
  hlo_devices_free(g);
  hlo_comm_free(c);
  hlo_module_free(m);
}

int main(void) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_module *m = parse(MOD, &d);
  CHECK(m != NULL);
  if (!m) TEST_MAIN_END("groups");
  /* cross-replica: device 2 of 4x2 is replica 1, partition 0: group {1,0} */
  check_part(m, "cr", 4, 2, 2, (const int[]){2, 0}, 2, 0);
  check_part(m, "cr", 4, 2, 7, (const int[]){5, 7}, 2, 1);
  /* cross-replica-and-partition: replicas {1,0} x every partition, replica-major */
  check_part(m, "crp", 2, 2, 3, (const int[]){2, 3, 0, 1}, 4, 1);
  /* flattened ids, iota [2,2]<=[2,2]T(1,0) = {{0,2},{1,3}} */
  check_part(m, "flat", 2, 2, 3, (const int[]){1, 3}, 2, 1);
  check_part(m, "flat", 2, 2, 0, (const int[]){0, 2}, 2, 0);
  /* all-to-all with a channel: the partitions of the device's replica */
  check_part(m, "cp", 2, 3, 4, (const int[]){3, 4, 5}, 3, 1);
  /* collective-permute with a channel: every partition of the replica */
  check_part(m, "perm", 3, 2, 5, (const int[]){4, 5}, 2, 1);
  /* counts: cr names replicas up to 3 (4 replicas), the channel permute
   * partitions up to 1 (2 partitions), flat device ids up to 3 (fits 4 x 2) */
  int R = 0, P = 0;
  bool inferred = false;
  CHECK_INT(hlo_module_device_counts(m, &R, &P, &inferred, &d), HLO_OK);
  CHECK_INT(R, 4);
  CHECK_INT(P, 2);
  CHECK(inferred);
  /* out of range and no group */
  {
    const hlo_instruction *in = hlo_computation_find(m->entry, "crp");
    hlo_arena A;
    hlo_arena_init(&A, NULL);
    int part[64], n, pos;
    char why[256] = "";
    CHECK_INT(hlo_group_participants(in, 2, 1, 0, &A, part, &n, &pos, why, sizeof why), HLO_OK);
    CHECK_INT(hlo_group_participants(in, 3, 1, 2, &A, part, &n, &pos, why, sizeof why), HLO_ERR);
    CHECK_STR(why, "replica 2 is in no replica group");
    hlo_arena_release(&A);
  }
  hlo_module_free(m);

  /* use_global_device_ids without a channel is an error */
  m = parse("HloModule bad\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
            "  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[2] parameter(0)\n"
            "  ROOT r = f32[2] all-reduce(p), replica_groups={{0,1}}, use_global_device_ids=true, "
            "to_apply=add\n}\n", &d);
  CHECK(m != NULL);
  if (m) {
    hlo_group_mode mode;
    char why[256] = "";
    CHECK_INT(hlo_group_mode_of(hlo_computation_find(m->entry, "r"), &mode, why, sizeof why), HLO_ERR);
    CHECK_STR(why, "use_global_device_ids=true needs a channel_id");
    hlo_module_free(m);
  }

  /* the communicator refuses an assignment that is not a permutation */
  {
    hlo_diags cd;
    hlo_diags_init(&cd, NULL);
    hlo_comm_options co = {2, 1, (const int[]){1, 1}, 0};
    CHECK(hlo_comm_new(&co, NULL, &cd) == NULL);
    CHECK(cd.n == 1 && strstr(cd.v[0].msg, "each device id 0..1 once") != NULL);
    co.assignment = (const int[]){1, 0};
    hlo_comm *c = hlo_comm_new(&co, NULL, &cd);
    CHECK(c != NULL);
    CHECK_INT(hlo_comm_device_id(c, 0), 1);
    hlo_comm_free(c);
    hlo_diags_release(&cd);
  }

  /* a device group through the API: 2 replicas, all-reduce and replica-id */
  m = parse("HloModule two, replica_count=2\nadd {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
            "  ROOT s = s32[] add(a, b)\n}\nENTRY e {\n  p = s32[3] parameter(0)\n"
            "  r = s32[3] all-reduce(p), replica_groups={}, to_apply=add\n"
            "  id = u32[] replica-id()\n  ROOT t = (s32[3], u32[]) tuple(r, id)\n}\n", &d);
  CHECK(m != NULL);
  if (m) {
    hlo_comm_options co = {2, 1, NULL, 5};
    hlo_comm *c = hlo_comm_new(&co, NULL, &d);
    hlo_devices *g = c ? hlo_devices_new(m, NULL, c, NULL, &d) : NULL;
    CHECK(g != NULL);
    if (g) {
      CHECK_INT(hlo_devices_count(g), 2);
      const hlo_shape *ps = hlo_exec_param_shape(hlo_devices_exec(g, 0), 0);
      hlo_val *a0 = hlo_val_new(NULL, ps), *a1 = hlo_val_new(NULL, ps);
      int32_t x0[3] = {1, 2, 3}, x1[3] = {10, -20, 30};
      memcpy(a0->data, x0, sizeof x0);
      memcpy(a1->data, x1, sizeof x1);
      hlo_val *args0[1] = {a0}, *args1[1] = {a1}, **args[2] = {args0, args1}, *res[2] = {NULL, NULL};
      CHECK_INT(hlo_devices_run(g, args, 1, res), HLO_OK);
      for (int k = 0; k < 2 && res[k]; k++) {
        const int32_t *r = res[k]->tuple[0]->data;
        CHECK_INT(r[0], 11);
        CHECK_INT(r[1], -18);
        CHECK_INT(r[2], 33);
        CHECK_INT(*(const uint32_t *)res[k]->tuple[1]->data, k);
        hlo_val_release(NULL, res[k]);
      }
      hlo_val_release(NULL, a0);
      hlo_val_release(NULL, a1);
    }
    hlo_devices_free(g);
    hlo_comm_free(c);
    hlo_module_free(m);
  }
  /* send/recv pairs from the frontend attribute, and a 2-partition device
   * group whose send 0 -> 1 runs twice: the second run matches its own
   * send and recv again (the counts of the first run are forgotten) */
  m = parse("HloModule sr, num_partitions=2\nENTRY e {\n  p = s32[2] parameter(0)\n"
            "  tok = token[] after-all()\n"
            "  r = (s32[2], u32[], token[]) recv(tok), channel_id=5, "
            "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1}}\"}\n"
            "  s = (s32[2], u32[], token[]) send(p, tok), channel_id=5, "
            "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1}}\"}\n"
            "  rd = (s32[2], token[]) recv-done(r), channel_id=5\n"
            "  sd = token[] send-done(s), channel_id=5\n"
            "  ROOT g = s32[2] get-tuple-element(rd), index=0\n}\n", &d);
  CHECK(m != NULL);
  if (m) {
    hlo_arena A;
    hlo_arena_init(&A, NULL);
    int np = -1;
    int64_t(*pv)[2] = NULL;
    char why[256] = "";
    CHECK_INT(hlo_p2p_pairs(hlo_computation_find(m->entry, "s"), &A, &np, &pv, why, sizeof why), HLO_OK);
    CHECK_INT(np, 1);
    if (np == 1) CHECK(pv[0][0] == 0 && pv[0][1] == 1);
    CHECK_INT(hlo_p2p_pairs(hlo_computation_find(m->entry, "rd"), &A, &np, &pv, why, sizeof why), HLO_OK);
    CHECK_INT(np, -1); /* no attribute */
    hlo_arena_release(&A);
    R = 0, P = 0, inferred = true;
    CHECK_INT(hlo_module_device_counts(m, &R, &P, &inferred, &d), HLO_OK);
    CHECK(R == 1 && P == 2 && !inferred);
    hlo_comm_options co = {1, 2, NULL, 5};
    hlo_comm *c = hlo_comm_new(&co, NULL, &d);
    hlo_devices *g = c ? hlo_devices_new(m, NULL, c, NULL, &d) : NULL;
    CHECK(g != NULL);
    for (int run = 0; g && run < 2; run++) {
      const hlo_shape *ps = hlo_exec_param_shape(hlo_devices_exec(g, 0), 0);
      hlo_val *a0 = hlo_val_new(NULL, ps), *a1 = hlo_val_new(NULL, ps);
      int32_t x0[2] = {7 + run, -3}, x1[2] = {100, 200};
      memcpy(a0->data, x0, sizeof x0);
      memcpy(a1->data, x1, sizeof x1);
      hlo_val *args0[1] = {a0}, *args1[1] = {a1}, **args[2] = {args0, args1}, *res[2] = {NULL, NULL};
      CHECK_INT(hlo_devices_run(g, args, 1, res), HLO_OK);
      if (res[0] && res[1]) {
        const int32_t *r0 = res[0]->data, *r1 = res[1]->data;
        CHECK(r0[0] == 0 && r0[1] == 0);         /* no pair targets partition 0 */
        CHECK(r1[0] == 7 + run && r1[1] == -3);  /* partition 0's input */
      }
      for (int k = 0; k < 2; k++) hlo_val_release(NULL, res[k]);
      hlo_val_release(NULL, a0);
      hlo_val_release(NULL, a1);
    }
    hlo_devices_free(g);
    hlo_comm_free(c);
    hlo_module_free(m);
  }
  test_persistent_group(&d);
  for (int i = 0; i < d.n; i++) printf("  diag: %s\n", d.v[i].msg);
  hlo_diags_release(&d);
  TEST_MAIN_END("groups");
}
