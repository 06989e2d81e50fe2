"""Inputs and outputs per device: --stack-inputs (device K takes slice K of
a leading device axis), per-device .npz members d<K>.<param>, the argument
modes (random: device 0 as a one-device --random run, the others different;
device-id), and -o out.npz with d<K>.arr_<N> members in device-id order under
a device assignment.  The module gathers its parameter across 4 replicas, so
every device's result shows every device's input.  Prints "inputs_outputs:
N checks, F failed" and the failures."""
import os
import subprocess
import tempfile

import numpy as np

checks = 0
failures = []
MOD = """HloModule io, replica_count=4

ENTRY e {
  p = f32[2,3] parameter(0)
  q = s32[] parameter(1)
  g = f32[8,3] all-gather(p), replica_groups={}, dimensions={0}
  r = u32[] replica-id()
  ROOT t = (f32[8,3], s32[], u32[]) tuple(g, q, r)
}
"""


def run(d, args):
    r = subprocess.run(["hlo-run", os.path.join(d, "m.hlo")] + args, capture_output=True, text=True)
    if r.returncode:
        failures.append("hlo-run %s: %s" % (" ".join(args), r.stderr.strip()[:300]))
    return r


def check(name, ok):
    global checks
    checks += 1
    if not ok:
        failures.append(name)


with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "m.hlo"), "w") as f:
        f.write(MOD)
    x = np.arange(4 * 2 * 3, dtype=np.float32).reshape(4, 2, 3)
    q = np.array([10, 11, 12, 13], np.int32)
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "q.npy"), q)
    out = os.path.join(d, "o.npz")
    # stacked inputs, results of every device with an assignment
    run(d, ["--stack-inputs", os.path.join(d, "x.npy"), os.path.join(d, "q.npy"), "-o", out,
            "--device-assignment", "2,0,3,1"])
    if os.path.exists(out):
        got = np.load(out)
        check("member names", sorted(got.files) == sorted("d%d.arr_%d" % (k, n) for k in range(4) for n in range(3)))
        ids = [2, 0, 3, 1]  # logical device k has id ids[k]
        for k in range(4):
            check("gather on d%d" % ids[k], np.array_equal(got["d%d.arr_0" % ids[k]], x.reshape(8, 3)))
            check("q on d%d" % ids[k], got["d%d.arr_1" % ids[k]] == q[k])
            check("replica-id on d%d" % ids[k], got["d%d.arr_2" % ids[k]] == k)
        os.remove(out)
    # per-device npz members by parameter name, by device id
    per = {"d%d.p" % k: x[k] * 2 for k in range(4)}
    per.update({"d%d.1" % k: np.int32(q[k] + 1) for k in range(4)})
    np.savez(os.path.join(d, "per.npz"), **per)
    run(d, ["--inputs", os.path.join(d, "per.npz"), "-o", out])
    if os.path.exists(out):
        got = np.load(out)
        check("per-device npz gather", np.array_equal(got["d3.arr_0"], (x * 2).reshape(8, 3)))
        check("per-device npz q", got["d2.arr_1"] == q[2] + 1)
        os.remove(out)
    # random per device: device 0 is the one-device --random value
    run(d, ["--argument-mode", "random", "--random=5", "-o", out])
    one = os.path.join(d, "one.hlo")
    with open(one, "w") as f:
        f.write("HloModule one\n\nENTRY e {\n  p = f32[2,3] parameter(0)\n  q = s32[] parameter(1)\n"
                "  ROOT t = (f32[2,3], s32[]) tuple(p, q)\n}\n")
    o1 = os.path.join(d, "one.npz")
    r = subprocess.run(["hlo-run", one, "--random=5", "-o", o1], capture_output=True, text=True)
    if os.path.exists(out) and r.returncode == 0:
        got, ref = np.load(out), np.load(o1)
        g = got["d0.arr_0"].reshape(4, 2, 3)
        check("random: device 0 = one-device --random", np.array_equal(g[0], ref["out0"]))
        check("random: devices differ", not np.array_equal(g[0], g[1]) and not np.array_equal(g[1], g[2]))
        check("random: every device sees the same gather", all(
            np.array_equal(got["d%d.arr_0" % k], got["d0.arr_0"]) for k in range(4)))
        os.remove(out)
    # device-id: every parameter holds the device's id
    run(d, ["--argument-mode", "device-id", "-o", out])
    if os.path.exists(out):
        got = np.load(out)
        want = np.repeat(np.arange(4, dtype=np.float32), 6).reshape(8, 3)
        check("device-id gather", np.array_equal(got["d1.arr_0"], want))
        check("device-id q", got["d3.arr_1"] == 3)
    # errors: a wrong stacked shape, an assignment that is no permutation
    np.save(os.path.join(d, "bad.npy"), np.zeros((4, 3, 2), np.float32))
    r = subprocess.run(["hlo-run", os.path.join(d, "m.hlo"), "--stack-inputs", os.path.join(d, "bad.npy"),
                        os.path.join(d, "q.npy")], capture_output=True, text=True)
    check("stacked shape error", r.returncode == 1 and "--stack-inputs needs shape (4, ...)" in r.stderr)
    r = subprocess.run(["hlo-run", os.path.join(d, "m.hlo"), "--random", "--device-assignment", "0,0,1,2"],
                       capture_output=True, text=True)
    check("assignment error", r.returncode == 1 and "each device id 0..3 once" in r.stderr)
    r = subprocess.run(["hlo-run", os.path.join(d, "m.hlo"), "--random", "-o", os.path.join(d, "x.npy")],
                       capture_output=True, text=True)
    check(".npy for many devices", r.returncode == 1 and "go to an .npz file" in r.stderr)

print("inputs_outputs: %d checks, %d failed" % (checks, len(failures)))
for f in failures:
    print("FAIL:", f)
