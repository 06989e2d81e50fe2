"""Numeric checks of hlo-run for ragged-dot, scaled-dot, stochastic-convert and
ragged-all-to-all against numpy formulations written here (per-group matmuls,
explicit block scales, the floor/fraction rounding rule, row copies).  Every
case runs on the fast and the reference path.  Prints
"extra_ops: N checks, F failed" and the failures."""
import os
import subprocess
import sys
import tempfile

import numpy as np

HLO_RUN = "hlo-run"
RNG = np.random.default_rng(11)
checks = 0
failures = []


def run(name, text, inputs):
    with tempfile.TemporaryDirectory() as d:
        mod = os.path.join(d, "m.hlo")
        with open(mod, "w") as f:
            f.write(text)
        paths = []
        for i, v in enumerate(inputs):
            p = os.path.join(d, "in%d.npy" % i)
            np.save(p, v)
            paths.append(p)
        outs = []
        for ref in (False, True):
            out = os.path.join(d, "out%d.npz" % ref)
            cmd = [HLO_RUN, mod] + paths + ["-o", out] + (["--reference"] if ref else [])
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                failures.append("%s: hlo-run failed: %s" % (name, r.stderr.strip()[:300]))
                return None
            outs.append(np.load(out)["out0"])
        return outs


def check(name, text, inputs, want, exact=False):
    global checks
    checks += 1
    outs = run(name, text, inputs)
    if outs is None:
        return
    for got in outs:
        ok = got.shape == want.shape and (np.array_equal(got, want) if exact
                                          else np.allclose(got, want, rtol=1e-5, atol=1e-5))
        if not ok:
            failures.append("%s: got %s want %s" % (name, got.tolist(), want.tolist()))
            return


def f32(*shape):
    return RNG.uniform(-2, 2, shape).astype(np.float32)


def hlo(params, root):
    ps = "\n".join("  p%d = %s parameter(%d)" % (i, t, i) for i, t in enumerate(params))
    return "HloModule m\nENTRY e {\n%s\n  ROOT r = %s\n}\n" % (ps, root)


def groups_of(sizes):
    start = 0
    for s in sizes:
        yield start, start + s
        start += s


# ---- ragged-dot: non-contracting ragged dim (rows of lhs pick the rhs group)
def ragged_noncontracting():
    lhs, rhs = f32(6, 3), f32(3, 3, 4)
    gs = np.array([2, 0, 3], np.int32)           # row 5 is in no group -> zeros
    want = np.zeros((6, 4), np.float32)
    for g, (a, b) in enumerate(groups_of(gs)):
        want[a:b] = lhs[a:b] @ rhs[g]
    check("ragged-dot noncontracting",
          hlo(["f32[6,3]", "f32[3,3,4]", "s32[3]"],
              "f32[6,4] ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
              "lhs_ragged_dims={0}, rhs_group_dims={0}"), [lhs, rhs, gs], want)


def ragged_noncontracting_batch():
    lhs, rhs = f32(2, 4, 3), f32(2, 2, 3, 2)      # rhs [G, b, k, n]
    gs = np.array([[1, 3], [4, 0]], np.int32)     # per batch row
    want = np.zeros((2, 4, 2), np.float32)
    for b in range(2):
        for g, (lo, hi) in enumerate(groups_of(gs[b])):
            want[b, lo:hi] = lhs[b, lo:hi] @ rhs[g, b]
    check("ragged-dot noncontracting batched",
          hlo(["f32[2,4,3]", "f32[2,2,3,2]", "s32[2,2]"],
              "f32[2,4,2] ragged-dot(p0, p1, p2), lhs_batch_dims={0}, rhs_batch_dims={1}, "
              "lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}"),
          [lhs, rhs, gs], want)


def ragged_noncontracting_outer():
    # group_sizes [x, G]: one row per index of the lhs non-contracting
    # dimension before the ragged one (XLA's [b..., x..., g])
    lhs, rhs = f32(2, 6, 4), f32(3, 4, 5)
    gs = np.array([[2, 3, 1], [0, 4, 1]], np.int64)
    want = np.zeros((2, 6, 5), np.float32)
    for x in range(2):
        for g, (lo, hi) in enumerate(groups_of(gs[x])):
            want[x, lo:hi] = lhs[x, lo:hi] @ rhs[g]
    check("ragged-dot noncontracting, group rows per outer dimension",
          hlo(["f32[2,6,4]", "f32[3,4,5]", "s64[2,3]"],
              "f32[2,6,5] ragged-dot(p0, p1, p2), lhs_contracting_dims={2}, rhs_contracting_dims={1}, "
              "lhs_ragged_dims={1}, rhs_group_dims={0}"),
          [lhs, rhs, gs], want)


def ragged_contracting_outer():
    # contracting mode, group rows per index of the contracting dimension
    # before the ragged one
    lhs, rhs = f32(2, 3, 4), f32(3, 4, 5)
    gs = np.array([[1, 3], [4, 0], [2, 2]], np.int32)
    want = np.zeros((2, 2, 5), np.float32)
    for c1 in range(3):
        for g, (lo, hi) in enumerate(groups_of(gs[c1])):
            want[g] += lhs[:, c1, lo:hi] @ rhs[c1, lo:hi]
    check("ragged-dot contracting, group rows per outer contracting dimension",
          hlo(["f32[2,3,4]", "f32[3,4,5]", "s32[3,2]"],
              "f32[2,2,5] ragged-dot(p0, p1, p2), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, "
              "lhs_ragged_dims={2}"),
          [lhs, rhs, gs], want)


def ragged_contracting():
    lhs, rhs = f32(2, 5), f32(5, 3)
    gs = np.array([2, 3], np.int32)
    want = np.stack([lhs[:, a:b] @ rhs[a:b] for a, b in groups_of(gs)])
    check("ragged-dot contracting",
          hlo(["f32[2,5]", "f32[5,3]", "s32[2]"],
              "f32[2,2,3] ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
              "lhs_ragged_dims={1}"), [lhs, rhs, gs], want)


def ragged_batch():
    lhs, rhs = f32(2, 2, 3), f32(2, 3, 2)
    gs = np.array([1, 1], np.int32)
    want = np.einsum("bmk,bkn->bmn", lhs, rhs)
    check("ragged-dot batch",
          hlo(["f32[2,2,3]", "f32[2,3,2]", "s32[2]"],
              "f32[2,2,2] ragged-dot(p0, p1, p2), lhs_batch_dims={0}, rhs_batch_dims={0}, "
              "lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}"),
          [lhs, rhs, gs], want)


# ---- scaled-dot: scale element (i // block) multiplies every operand element
def scaled_dot():
    lhs, ls, rhs, rs = f32(2, 4), f32(2, 2), f32(4, 3), f32(2, 1)
    le = lhs * np.repeat(np.repeat(ls, 1, 0), 2, 1)
    re = rhs * np.repeat(np.repeat(rs, 2, 0), 3, 1)
    check("scaled-dot blocks",
          hlo(["f32[2,4]", "f32[2,2]", "f32[4,3]", "f32[2,1]"],
              "f32[2,3] scaled-dot(p0, p2, p1, p3), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
          [lhs, ls, rhs, rs], le @ re)
    s1, s2 = np.float32(0.5), np.float32(4.0)
    check("scaled-dot one-block scales",
          hlo(["f32[2,4]", "f32[1,1]", "f32[4,3]", "f32[1,1]"],
              "f32[2,3] scaled-dot(p0, p2, p1, p3), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
          [lhs, np.full((1, 1), s1), rhs, np.full((1, 1), s2)], (lhs * s1) @ (rhs * s2))


# ---- stochastic-convert: floor(|x|) + (random < frac(|x|) * 2^bits), sign restored, clamped
def stochastic_convert():
    x = np.array([2.25, 2.25, -2.25, -2.25, 0.5, 0.5, 7.0, -1e10, 1e10, np.nan, 127.9, -128.5],
                 np.float32)
    u = np.array([0x3fffffff, 0x40000000, 0x3fffffff, 0x40000000, 0x7fffffff, 0x80000000,
                  0, 0, 0, 0, 0xffffffff, 0], np.uint32)
    want = []
    for xv, uv in zip(x.astype(np.float64), u.astype(np.uint64)):
        if np.isnan(xv):
            want.append(0)
        elif xv <= -2**31:
            want.append(-2**31)
        elif xv >= 2**31 - 1:
            want.append(2**31 - 1)
        else:
            a = abs(xv)
            t = np.floor(a)
            up = int(uv) < int((a - t) * 2**32)
            m = int(t) + (1 if up else 0)
            want.append(-m if xv < 0 else m)
    check("stochastic-convert f32->s32",
          hlo(["f32[12]", "u32[12]"], "s32[12] stochastic-convert(p0, p1)"), [x, u],
          np.array(want, np.int32), exact=True)
    # hand-computed: 2.25 has fraction 0.25 -> 0x4000 of 2^16; s8 clamps at -128/127
    xb = np.array([2.25, 2.25, -0.75, 300.0, -300.0], np.float16)
    ub = np.array([0x3fff, 0x4000, 0xbfff, 0, 0], np.uint16)
    check("stochastic-convert f16->s8",
          hlo(["f16[5]", "u16[5]"], "s8[5] stochastic-convert(p0, p1)"), [xb, ub],
          np.array([3, 2, -1, 127, -128], np.int8), exact=True)
    # f64 with u64 bits: fraction 0.5 -> 2^63
    xd = np.array([-3.5, -3.5, 1e300], np.float64)
    ud = np.array([2**63 - 1, 2**63, 5], np.uint64)
    check("stochastic-convert f64->s64",
          hlo(["f64[3]", "u64[3]"], "s64[3] stochastic-convert(p0, p1)"), [xd, ud],
          np.array([-4, -3, 2**63 - 1], np.int64), exact=True)


# ---- ragged-all-to-all with one replica: rows of input copied into output
def ragged_all_to_all():
    inp = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
    outp = np.full((5, 2), -1, np.float32)
    io, ss, oo, rs = (np.array([[a, b]], np.int64) for a, b in ((0, 2), (2, 1), (3, 0), (2, 1)))
    want = outp.copy()
    want[3:5] = inp[0:2]
    want[0:1] = inp[2:3]
    check("ragged-all-to-all one replica",
          hlo(["f32[4,2]", "f32[5,2]", "s64[1,2]", "s64[1,2]", "s64[1,2]", "s64[1,2]"],
              "f32[5,2] ragged-all-to-all(p0, p1, p2, p3, p4, p5), replica_groups={{0}}"),
          [inp, outp, io, ss, oo, rs], want, exact=True)


for case in (ragged_noncontracting, ragged_noncontracting_batch, ragged_noncontracting_outer, ragged_contracting,
             ragged_contracting_outer, ragged_batch,
             scaled_dot, stochastic_convert, ragged_all_to_all):
    case()
print("extra_ops: %d checks, %d failed" % (checks, len(failures)))
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
