"""A partitioned computation against the same computation on one device:
(1) one SGD step of a two-layer MLP, data-parallel over 4 replicas (each
replica the gradient of its quarter of the batch, all-reduced, scaled by the
global batch), against the unpartitioned step; (2) a tensor-parallel matmul
over 4 partitions (SPMD form: channel_id, use_global_device_ids), column
parallel (all-gather of the output columns) and row parallel (partial
products reduce-scattered over rows, then all-gathered), against X @ W on one
device and numpy.  The partitioned results differ from the unpartitioned ones
only by the order of float additions (a batch or contraction split in four
partial sums): they must agree within 1e-5 relative, and every replica of the
data-parallel step must hold the same bits.  Prints "spmd_models: N checks, F
failed" and the failures."""
import os
import subprocess
import sys
import tempfile

import numpy as np

# Open MPI keeps its runtime state (in plugins it unloads, so that LSan cannot
# name them) until exit: leak detection is off for processes under mpirun
MPI_ENV = dict(os.environ, ASAN_OPTIONS=(os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":"))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mlp_step import ALLRED, LOCAL, mlp  # noqa: E402

RNG = np.random.default_rng(7)
checks = 0
failures = []

GLOBAL_B = 16
SCALE = np.float32(2.0 / (GLOBAL_B * 2))  # d mean((o-y)^2) / do

MM_COL = """HloModule colpar, num_partitions=4

ENTRY e {
  x = f32[8,16] parameter(0)
  w = f32[16,3] parameter(1)
  y = f32[8,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT g = f32[8,12] all-gather(y), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={1}
}
"""
MM_ROW = """HloModule rowpar, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[8,4] parameter(0)
  w = f32[4,12] parameter(1)
  p = f32[8,12] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  rs = f32[2,12] reduce-scatter(p), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, dimensions={0}, to_apply=add
  ROOT g = f32[8,12] all-gather(rs), channel_id=2, replica_groups=[1,4]<=[4], use_global_device_ids=true, dimensions={0}
}
"""
MM_ONE = """HloModule mm

ENTRY e {
  x = f32[8,16] parameter(0)
  w = f32[16,12] parameter(1)
  ROOT y = f32[8,12] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


# HLO_MPI_NP=N: also run the partitioned modules under mpirun -np N and
# require the same bits as the threads
MPI_NP = int(os.environ.get("HLO_MPI_NP", "0"))


def hlo_run(d, text, args, mpi=False):
    path = os.path.join(d, "m%d.hlo" % abs(hash(text)))
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(d, "o%d%s.npz" % (abs(hash((text, tuple(args)))), "mpi" if mpi else ""))
    pre = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(MPI_NP)] if mpi else []
    r = subprocess.run(pre + ["hlo-run", path, "-o", out] + args + (["--mpi"] if mpi else []),
                       capture_output=True, text=True, env=MPI_ENV if mpi else None)
    if r.returncode:
        failures.append("hlo-run failed: %s" % r.stderr.strip()[:400])
        return None
    return np.load(out)


def close(name, got, want, rtol=1e-5):
    global checks
    checks += 1
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=rtol):
        failures.append("%s: max difference %g" % (name, float(np.max(np.abs(got - want)))
                                                  if got.shape == want.shape else -1))


def same(name, a, b):
    global checks
    checks += 1
    if a.tobytes() != b.tobytes():
        failures.append(name)


with tempfile.TemporaryDirectory() as d:
    f32 = lambda *s: RNG.uniform(-1, 1, s).astype(np.float32)
    x, y = f32(GLOBAL_B, 4), f32(GLOBAL_B, 2)
    w1, b1, w2 = f32(4, 8), f32(8), f32(8, 2)
    for name, v in (("x", x), ("y", y), ("w1", w1), ("b1", b1), ("w2", w2)):
        np.save(os.path.join(d, name + ".npy"), v)
    one = hlo_run(d, mlp(GLOBAL_B, LOCAL, "HloModule mlp\n"),
                  [os.path.join(d, n + ".npy") for n in ("x", "y", "w1", "b1", "w2")])
    # data parallel: replica k takes rows 4k..4k+3 of the batch
    per = {}
    for k in range(4):
        per.update({"d%d.x" % k: x[4 * k:4 * k + 4], "d%d.y" % k: y[4 * k:4 * k + 4],
                    "d%d.w1" % k: w1, "d%d.b1" % k: b1, "d%d.w2" % k: w2})
    np.savez(os.path.join(d, "dp.npz"), **per)
    dp = hlo_run(d, mlp(4, ALLRED, "HloModule mlp_dp, replica_count=4\n", GLOBAL_B),
                 ["--inputs", os.path.join(d, "dp.npz")])
    if one is not None and dp is not None:
        for n in range(3):
            close("data-parallel MLP step, result %d" % n, dp["d0.arr_%d" % n], one["out%d" % n])
            for k in range(1, 4):
                same("replica %d result %d = replica 0's" % (k, n), dp["d%d.arr_%d" % (k, n)], dp["d0.arr_%d" % n])
        # numpy's step, as a check of the one-device module itself
        z = x @ w1 + b1
        h = np.maximum(z, 0)
        do = (h @ w2 - y) * SCALE
        dz = np.where(z > 0, do @ w2.T, 0)
        close("MLP step against numpy, w1", one["out0"], w1 - 0.1 * (x.T @ dz), 1e-4)
        close("MLP step against numpy, w2", one["out2"], w2 - 0.1 * (h.T @ do), 1e-4)
    # tensor parallel matmul
    X, W = f32(8, 16), f32(16, 12)
    np.save(os.path.join(d, "X.npy"), X)
    np.save(os.path.join(d, "W.npy"), W)
    ref = hlo_run(d, MM_ONE, [os.path.join(d, "X.npy"), os.path.join(d, "W.npy")])
    col = {}
    row = {}
    for k in range(4):
        col.update({"d%d.x" % k: X, "d%d.w" % k: W[:, 3 * k:3 * k + 3]})
        row.update({"d%d.x" % k: X[:, 4 * k:4 * k + 4], "d%d.w" % k: W[4 * k:4 * k + 4]})
    np.savez(os.path.join(d, "col.npz"), **col)
    np.savez(os.path.join(d, "row.npz"), **row)
    c = hlo_run(d, MM_COL, ["--inputs", os.path.join(d, "col.npz")])
    rr = hlo_run(d, MM_ROW, ["--inputs", os.path.join(d, "row.npz")])
    if ref is not None:
        close("one-device matmul against numpy", ref["out0"], X @ W)
    if ref is not None and c is not None:
        for k in range(4):
            close("column-parallel matmul, partition %d" % k, c["d%d.arr_0" % k], ref["out0"])
    if ref is not None and rr is not None:
        for k in range(4):
            close("row-parallel matmul, partition %d" % k, rr["d%d.arr_0" % k], ref["out0"])

    if MPI_NP:
        runs = ((mlp(4, ALLRED, "HloModule mlp_dp, replica_count=4\n", GLOBAL_B), "dp.npz", dp),
                (MM_COL, "col.npz", c), (MM_ROW, "row.npz", rr))
        for text, npz, thr in runs:
            m = hlo_run(d, text, ["--inputs", os.path.join(d, npz), "--devices-per-rank", str(4 // MPI_NP)],
                        mpi=True)
            if m is not None and thr is not None:
                for key in thr.files:
                    same("MPI = threads: %s %s" % (text.split()[1], key), m[key], thr[key])

print("spmd_models: %d checks, %d failed" % (checks, len(failures)))
for f in failures:
    print("FAIL:", f)
