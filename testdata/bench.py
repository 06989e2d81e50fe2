#!/usr/bin/env python3
"""make bench: measured figures with same-run baselines (this machine is
shared and noisy, so every figure is printed next to a baseline).

Parser: parse + build IR + print for mobilenet_v2.hlo (the corpus's largest
module) and generated modules of 100 MB and 1 GB; MB/s of parsing, IR bytes (arena bytes in use) / text bytes, peak RSS
of the process, next to the time `cat FILE > /dev/null` takes.

Interpreter: a fixed workload set run with `hlo-run --benchmark N` (best of
N runs after a warm-up, in-process), numpy on the same data in this same
run, and machine limits from testdata/bench/baseline.c (OpenBLAS sgemm
called directly, memcpy bandwidth) built here.  Prints our time, numpy's,
the ratio numpy/ours (> 1: we are faster), our % of the machine limit, and
the target of issue 9.  Timings are never asserted."""
import os
import re
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
FMT = os.path.join(BUILD, "bin", "hlo-fmt")


def best_of(n, fn):
    return min(fn() for _ in range(n))


def cat_time(path):
    def run():
        t = time.perf_counter()
        subprocess.run("cat '%s' > /dev/null" % path, shell=True, check=True)
        return time.perf_counter() - t
    return best_of(3, run)


def fmt_stats(path):
    best = None
    for _ in range(3):
        t = time.perf_counter()
        r = subprocess.run([FMT, "--stats", "-o", "/dev/null", path], capture_output=True, text=True)
        wall = time.perf_counter() - t
        if r.returncode != 0:
            sys.exit("hlo-fmt failed on %s:\n%s" % (path, r.stderr))
        m = re.search(r"text (\d+) bytes, parse ([\d.]+) s \(cpu ([\d.]+) s\), print ([\d.]+) s, "
                      r"ir (\d+) bytes reserved \((\d+) used\)", r.stderr)
        cur = dict(text=int(m.group(1)), parse=float(m.group(2)), cpu=float(m.group(3)), print=float(m.group(4)),
                   ir=int(m.group(5)), used=int(m.group(6)), wall=wall)
        if best is None or cur["parse"] < best["parse"]:
            best = cur
    return best


def peak_rss(path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([FMT, "-o", "/dev/null", path], check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, before


def report(name, path):
    s = fmt_stats(path)
    c = cat_time(path)
    mb = s["text"] / 1e6
    rss, _ = peak_rss(path)
    print("%-22s %8.1f MB  parse %7.3f s = %7.1f MB/s (cpu %6.3f s = %7.1f MB/s)  print %6.3f s  wall %6.3f s"
          "  cat %6.3f s (%5.0fx)  IR %5.2fx text  peak RSS %6.1f MB" % (
              name, mb, s["parse"], mb / s["parse"], s["cpu"], mb / s["cpu"] if s["cpu"] > 0 else 0,
              s["print"], s["wall"], c, s["wall"] / c if c > 0 else 0, s["used"] / s["text"], rss / 1e6))


def generated(mb):
    """testdata/gen_big_module.py's module of about mb MB, made once per build dir."""
    gen = os.path.join(BUILD, "bench", "big.hlo" if mb == 100 else "big%d.hlo" % mb)
    os.makedirs(os.path.dirname(gen), exist_ok=True)
    if not os.path.exists(gen) or os.path.getmtime(gen) < os.path.getmtime(os.path.join(ROOT, "testdata", "gen_big_module.py")):
        subprocess.run([sys.executable, os.path.join(ROOT, "testdata", "gen_big_module.py"), gen, str(mb)], check=True)
    return gen


def main():
    print("parser benchmark (best of 3; IR = arena bytes in use / text bytes; cat = same-run baseline)")
    report("mobilenet_v2.hlo", os.path.join(CORPUS, "xla__tools__data__benchmarking__mobilenet_v2.hlo"))
    report("generated 100 MB", generated(100))
    # the 1 GB module takes about a minute in all; BENCH_PARSER_1G=0 leaves it out
    if os.environ.get("BENCH_PARSER_1G", "1") != "0":
        report("generated 1 GB", generated(1000))


# ---- interpreter benchmark ------------------------------------------------------------
RUN = os.path.join(BUILD, "bin", "hlo-run")
REPS = int(os.environ.get("BENCH_REPS", "7"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))


def build_baseline():
    out = os.path.join(BUILD, "bench", "baseline")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    src = os.path.join(ROOT, "testdata", "bench", "baseline.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "openblas"], capture_output=True,
                               text=True, check=True).stdout.split()
        subprocess.run(["cc", "-O2", "-o", out, src] + flags, check=True)
    return measure_limits(out, REPS)


def measure_limits(prog, reps, which=""):
    r = subprocess.run([prog, str(reps)] + ([which] if which else []), capture_output=True, text=True,
                       check=True)
    lim = {}
    for line in r.stdout.splitlines():
        f = line.split()
        lim[" ".join(f[:-1])] = float(f[-1])
    return lim


def np_time(fn, reps=REPS):
    """(best wall time, best process CPU time) of fn."""
    fn()
    best, cbest = 1e30, 1e30
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        fn()
        best = min(best, time.perf_counter() - t)
        cbest = min(cbest, time.process_time() - c)
    return best, cbest


def our_time(name, text, inputs, reps=REPS, extra=()):
    import numpy as np
    d = os.path.join(BUILD, "bench", "run")
    os.makedirs(d, exist_ok=True)
    mod = os.path.join(d, name + ".hlo")
    with open(mod, "w") as f:
        f.write(text)
    paths = []
    for i, a in enumerate(inputs):
        p = os.path.join(d, "%s_in%d.npy" % (name, i))
        np.save(p, a)
        paths.append(p)
    if os.environ.get("BENCH_THREADS"):
        extra = ["--threads", os.environ["BENCH_THREADS"]] + list(extra)
    if "unfused" in name:  # as written: hlo-run would fuse the chain of a large module
        extra = ["--no-fuse"] + list(extra)
    r = subprocess.run([RUN, "--benchmark", str(reps)] + list(extra) + [mod] + paths +
                       ["-o", os.path.join(d, name + "_out.npz")], capture_output=True, text=True)
    if r.returncode != 0:
        print("  %s: hlo-run failed: %s" % (name, r.stderr.strip()[:300]))
        return None
    m = re.search(r"median ([\d.]+) ms, min ([\d.]+) ms.*CPU time median ([\d.]+) ms, min ([\d.]+) ms", r.stderr)
    return float(m.group(2)) / 1e3, float(m.group(4)) / 1e3


ADD = "add { x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] add(x, y) }\n"
MAX = "max { x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] maximum(x, y) }\n"


def workloads(np):
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    n = 1 << 22
    a, b, c = f32(n), f32(n), f32(n)
    W = []
    W.append(("elementwise add", "HloModule m\nENTRY e { a = f32[%d] parameter(0)\n b = f32[%d] parameter(1)\n"
              " ROOT r = f32[%d] add(a, b) }\n" % (n, n, n), [a, b], lambda: np.add(a, b),
              ("bw", 3 * 4 * n), "(one op, memory-bound: no ratio target)"))
    chain = ("t = f32[%d] tanh(a)\n m = f32[%d] multiply(t, b)\n ROOT r = f32[%d] add(m, c)" % (n, n, n))
    W.append(("tanh*b+c unfused", "HloModule m\nENTRY e { a = f32[%d] parameter(0)\n b = f32[%d] parameter(1)\n"
              " c = f32[%d] parameter(2)\n %s }\n" % (n, n, n, chain), [a, b, c],
              lambda: np.add(np.multiply(np.tanh(a), b), c), ("bw", 4 * 4 * n), "(unfused, for comparison)"))
    W.append(("tanh*b+c fused", "HloModule m\nf { a = f32[%d] parameter(0)\n b = f32[%d] parameter(1)\n"
              " c = f32[%d] parameter(2)\n %s }\nENTRY e { a = f32[%d] parameter(0)\n b = f32[%d] parameter(1)\n"
              " c = f32[%d] parameter(2)\n ROOT r = f32[%d] fusion(a, b, c), kind=kLoop, calls=f }\n"
              % (n, n, n, chain, n, n, n, n), [a, b, c],
              lambda: np.add(np.multiply(np.tanh(a), b), c), ("bw", 4 * 4 * n), ">= 3x numpy, >= 70% memcpy"))
    x = f32(4096, 1024)
    W.append(("row reduction", "HloModule m\n%sENTRY e { a = f32[4096,1024] parameter(0)\n z = f32[] constant(0)\n"
              " ROOT r = f32[4096] reduce(a, z), dimensions={1}, to_apply=add }\n" % ADD, [x],
              lambda: x.sum(axis=1), ("bw", 4 * x.size), ">= 1.5x numpy"))
    W.append(("full reduction", "HloModule m\n%sENTRY e { a = f32[%d] parameter(0)\n z = f32[] constant(0)\n"
              " ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=add }\n" % (ADD, n), [a],
              lambda: a.sum(), ("bw", 4 * n), ">= 1.5x numpy"))
    s = f32(1024, 1024)
    W.append(("softmax 1024x1024", "HloModule m\n%s%s"
              "fe { p = f32[1024,1024] parameter(0)\n m = f32[1024] parameter(1)\n"
              " b = f32[1024,1024] broadcast(m), dimensions={0}\n d = f32[1024,1024] subtract(p, b)\n"
              " ROOT x = f32[1024,1024] exponential(d) }\n"
              "fd { e = f32[1024,1024] parameter(0)\n s = f32[1024] parameter(1)\n"
              " b = f32[1024,1024] broadcast(s), dimensions={0}\n ROOT q = f32[1024,1024] divide(e, b) }\n"
              "ENTRY e { a = f32[1024,1024] parameter(0)\n ninf = f32[] constant(-inf)\n z = f32[] constant(0)\n"
              " m = f32[1024] reduce(a, ninf), dimensions={1}, to_apply=max\n"
              " x = f32[1024,1024] fusion(a, m), kind=kLoop, calls=fe\n"
              " s = f32[1024] reduce(x, z), dimensions={1}, to_apply=add\n"
              " ROOT r = f32[1024,1024] fusion(x, s), kind=kLoop, calls=fd }\n" % (ADD, MAX), [s],
              lambda: (lambda e: e / e.sum(axis=1, keepdims=True))(np.exp(s - s.max(axis=1, keepdims=True))),
              None, ">= 1x numpy"))
    for k in (1024, 2048):
        p, q = f32(k, k), f32(k, k)
        W.append(("dot %d^2" % k, "HloModule m\nENTRY e { a = f32[%d,%d] parameter(0)\n b = f32[%d,%d] parameter(1)\n"
                  " ROOT d = f32[%d,%d] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0} }\n"
                  % (k, k, k, k, k, k), [p, q], lambda p=p, q=q: p @ q, ("gemm%d" % k, 2.0 * k ** 3),
                  ">= 0.9x OpenBLAS"))
    p, q, bias = f32(1024, 1024), f32(1024, 1024), f32(1024)
    W.append(("dot+bias+relu 1024^2", "HloModule m\nf { a = f32[1024,1024] parameter(0)\n b = f32[1024,1024] parameter(1)\n"
              " c = f32[1024] parameter(2)\n d = f32[1024,1024] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
              " bc = f32[1024,1024] broadcast(c), dimensions={1}\n s = f32[1024,1024] add(d, bc)\n z = f32[] constant(0)\n"
              " zb = f32[1024,1024] broadcast(z), dimensions={}\n ROOT r = f32[1024,1024] maximum(s, zb) }\n"
              "ENTRY e { a = f32[1024,1024] parameter(0)\n b = f32[1024,1024] parameter(1)\n c = f32[1024] parameter(2)\n"
              " ROOT r = f32[1024,1024] fusion(a, b, c), kind=kOutput, calls=f }\n",
              [p, q, bias], lambda p=p, q=q, bias=bias: np.maximum(p @ q + bias, 0), ("gemm1024", 2.0 * 1024 ** 3),
              ">= 0.9x OpenBLAS"))
    p, q = f32(32, 256, 256), f32(32, 256, 256)
    W.append(("batched dot 32x256^2", "HloModule m\nENTRY e { a = f32[32,256,256] parameter(0)\n b = f32[32,256,256] parameter(1)\n"
              " ROOT d = f32[32,256,256] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0},"
              " rhs_contracting_dims={1} }\n", [p, q], lambda: np.matmul(p, q), ("gemm1024", 2.0 * 32 * 256 ** 3),
              ">= 0.9x OpenBLAS"))
    p64, q64 = f32(64, 256, 256), f32(64, 256, 256)
    W.append(("batched dot 64x256^3", "HloModule m\nENTRY e { a = f32[64,256,256] parameter(0)\n b = f32[64,256,256] parameter(1)\n"
              " ROOT d = f32[64,256,256] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0},"
              " rhs_contracting_dims={1} }\n", [p64, q64], lambda: np.matmul(p64, q64), ("gemm1024", 2.0 * 64 * 256 ** 3),
              ">= 0.9x OpenBLAS"))
    img, ker = f32(8, 56, 56, 64), f32(3, 3, 64, 64)

    def np_conv():
        xp = np.pad(img, ((0, 0), (1, 1), (1, 1), (0, 0)))
        win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(1, 2))  # b,h,w,c,kh,kw
        return np.tensordot(win, ker, axes=([4, 5, 3], [0, 1, 2]))
    W.append(("conv 3x3 NHWC 8x56x56x64", "HloModule m\nENTRY e { a = f32[8,56,56,64] parameter(0)\n k = f32[3,3,64,64] parameter(1)\n"
              " ROOT c = f32[8,56,56,64] convolution(a, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f }\n",
              [img, ker], np_conv, ("gemm2048", 2.0 * 8 * 56 * 56 * 64 * 64 * 9), ">= 50% sgemm FLOP rate"))
    t = f32(4096, 4096)
    W.append(("transpose 4096^2", "HloModule m\nENTRY e { a = f32[4096,4096] parameter(0)\n"
              " ROOT t = f32[4096,4096] transpose(a), dimensions={1,0} }\n", [t],
              lambda: np.ascontiguousarray(t.T), ("bw", 2 * 4 * t.size), ">= 1x numpy"))
    tab = f32(100000, 64)
    idx = rng.integers(0, 100000, size=(100000, 1)).astype(np.int32)
    W.append(("gather 100000 rows of 64", "HloModule m\nENTRY e { a = f32[100000,64] parameter(0)\n i = s32[100000,1] parameter(1)\n"
              " ROOT g = f32[100000,64] gather(a, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0},"
              " index_vector_dim=1, slice_sizes={1,64} }\n", [tab, idx], lambda: tab[idx[:, 0]],
              ("bw", 2 * 4 * tab.size), ">= 1x numpy"))
    ca, cb = f32(2048, 2048), f32(2048, 2048)
    W.append(("concatenate 2x2048^2 dim 1", "HloModule m\nENTRY e { a = f32[2048,2048] parameter(0)\n"
              " b = f32[2048,2048] parameter(1)\n"
              " ROOT c = f32[2048,4096] concatenate(a, b), dimensions={1} }\n", [ca, cb],
              lambda: np.concatenate((ca, cb), axis=1), ("bw", 2 * 4 * 2 * ca.size), ">= 1x numpy"))
    sx, sidx, supd = f32(10000, 64), rng.integers(0, 10000, size=(100000, 1)).astype(np.int32), f32(100000, 64)

    def np_scatter_add():
        o = sx.copy()
        np.add.at(o, sidx[:, 0], supd)
        return o
    W.append(("scatter-add 100000 rows", "HloModule m\n%sENTRY e { a = f32[10000,64] parameter(0)\n"
              " i = s32[100000,1] parameter(1)\n u = f32[100000,64] parameter(2)\n"
              " ROOT s = f32[10000,64] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0},"
              " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add }\n" % ADD,
              [sx, sidx, supd], np_scatter_add, ("bw", 4 * (2 * sx.size + 2 * supd.size)),
              "np.add.at (duplicates)"))
    so = f32(1 << 20)
    W.append(("sort 1M f32", "HloModule m\ncmp { x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
              " ROOT l = pred[] compare(x, y), direction=LT }\nENTRY e { a = f32[1048576] parameter(0)\n"
              " ROOT s = f32[1048576] sort(a), dimensions={0}, to_apply=cmp }\n", [so], lambda: np.sort(so),
              None, ">= 1x numpy"))
    return W


WHILE_ITERS = 1000000
WHILE = ("HloModule m\ncond { p = (s32[], f32[]) parameter(0)\n i = s32[] get-tuple-element(p), index=0\n"
         " n = s32[] constant(%d)\n ROOT c = pred[] compare(i, n), direction=LT }\n"
         "body { p = (s32[], f32[]) parameter(0)\n i = s32[] get-tuple-element(p), index=0\n"
         " x = f32[] get-tuple-element(p), index=1\n one = s32[] constant(1)\n j = s32[] add(i, one)\n"
         " h = f32[] constant(0.5)\n y = f32[] multiply(x, h)\n z = f32[] add(y, h)\n"
         " ROOT t = (s32[], f32[]) tuple(j, z) }\n"
         "ENTRY e { z = s32[] constant(0)\n x = f32[] constant(1)\n t = (s32[], f32[]) tuple(z, x)\n"
         " ROOT w = (s32[], f32[]) while(t), condition=cond, body=body }\n" % WHILE_ITERS)
WHILE_INSTRS = 3 + 8  # cond: gte, constant, compare; body: 2 gte, 2 constants, 3 arithmetic, tuple


def interp_bench():
    try:
        import numpy as np
    except ImportError:
        print("interpreter benchmark skipped: numpy is not installed for %s" % sys.executable)
        return
    try:
        lim = build_baseline()
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        print("interpreter benchmark skipped: baseline did not build (%s)" % e)
        return
    load = os.getloadavg()
    print("\ninterpreter benchmark: best of %d rounds of %d runs after a warm-up, numpy and ours alternating; machine: %d cores, load average %.1f %.1f %.1f; "
          "hlo-run threads: %s" % (ROUNDS, REPS, os.cpu_count(), *load, os.environ.get("BENCH_THREADS", "all cores")))
    isa = subprocess.run([RUN, "--list-isas"], capture_output=True, text=True).stdout
    m = re.search(r"selected: (\S+)", isa)
    print("vector ISA level of hlo-run: %s (HLO_ISA=%s; set HLO_ISA=avx2 or baseline to cap it)"
          % (m.group(1) if m else "?", os.environ.get("HLO_ISA", "unset")))
    print("limits at the start: OpenBLAS sgemm 1024^2 %.1f GFLOP/s, 2048^2 %.1f GFLOP/s; memcpy %.1f GB/s (read+write); "
          "measured again before each round of a workload: %% of limit is the best round's against that "
          "(in brackets: against the best limit of the run so far)"
          % (lim["sgemm 1024"], lim["sgemm 2048"], lim["memcpy"]))
    print("times are the best of the runs; cpu = process CPU time (all threads), which a loaded machine distorts less")
    print("%-26s %9s %9s %8s %9s %9s %8s %20s   %s" % ("workload", "ours ms", "numpy ms", "np/ours", "ours cpu",
                                                     "np cpu", "cpu rat", "% of limit", "target"))
    only = os.environ.get("BENCH_WORKLOADS")  # substrings of workload names, comma-separated
    for name, text, inputs, fn, limit, target in workloads(np):
        if only and not any(w in name for w in only.split(",")):
            continue
        theirs, theirs_c = np_time(fn)
        # short workloads get more runs: the minimum is what survives a shared machine's noise
        reps = REPS if theirs > 0.05 else max(REPS, 25)
        # rounds alternate numpy and ours, so a slow phase of the shared
        # machine (they last seconds here) does not fall on one side only
        ours = ours_c = 1e30
        key = None
        share = 0.0  # best share of the limit, each round against the limit measured next to it
        if limit:
            key = {"bw": "memcpy", "gemm2048": "sgemm 2048"}.get(limit[0], "sgemm 1024")
        for _ in range(ROUNDS):
            if key:
                now = measure_limits(os.path.join(BUILD, "bench", "baseline"), 3, key.replace(" ", ""))[key]
                lim[key] = max(lim[key], now)
            t2, c2 = np_time(fn, reps)
            theirs, theirs_c = min(theirs, t2), min(theirs_c, c2)
            got = our_time(re.sub(r"[^a-z0-9]+", "_", name), text, inputs, reps)
            if got is None:
                break
            ours, ours_c = min(ours, got[0]), min(ours_c, got[1])
            if key:
                share = max(share, limit[1] / got[0] / 1e9 / now)
        if got is None:
            continue
        pct = ""
        if limit:
            # the round's own limit, and (in brackets) the best limit of the run so far
            pct = "%5.1f%% %s (%.0f%%)" % (100 * share, "memcpy" if key == "memcpy" else "sgemm",
                                          100 * limit[1] / ours / 1e9 / lim[key])
        print("%-26s %9.3f %9.3f %7.2fx %9.3f %9.3f %7.2fx %20s   %s" % (
            name, ours * 1e3, theirs * 1e3, theirs / ours, ours_c * 1e3, theirs_c * 1e3,
            theirs_c / ours_c if ours_c > 0 else 0, pct, target))
    print("limits, best of the run: sgemm 1024^2 %.1f, 2048^2 %.1f GFLOP/s; memcpy %.1f GB/s"
          % (lim["sgemm 1024"], lim["sgemm 2048"], lim["memcpy"]))
    got = our_time("while", WHILE, [], reps=3)
    if got is not None:
        t, tc = got
        print("%-26s %9.3f %9s %8s %9.3f %9s %8s %20s   %s" % ("scalar while loop", t * 1e3, "-", "-", tc * 1e3, "-", "-",
              "%.1f ns/instr" % (t / (WHILE_ITERS * WHILE_INSTRS) * 1e9), "<= 50 ns per executed instruction"))
    if os.environ.get("BENCH_CONV", "1") != "0":
        import bench_conv
        bench_conv.conv_bench(ROOT, BUILD, CORPUS, lim["sgemm 2048"])
    mob = os.path.join(CORPUS, "xla__tools__data__benchmarking__mobilenet_v2.hlo")
    if os.path.exists(mob) and os.environ.get("BENCH_MOBILENET", "1") != "0":
        model_bench(mob, lim)


def model_bench(mob, lim):
    """mobilenet_v2 (training step, batch 96): time per run and FLOP rate
    against the sgemm rate, the top instructions of --profile, and the peak
    RSS of a one-shot run beside the live buffers the module needs."""
    import json
    st = subprocess.run([os.path.join(BUILD, "bin", "hlo-stats"), "--json", mob], capture_output=True, text=True)
    stats = json.loads(st.stdout) if st.returncode == 0 else None
    flops = stats["totals"]["flops"] if stats else 0
    out = os.path.join(BUILD, "bench", "mob.npz")
    reps = os.environ.get("BENCH_MOBILENET_RUNS", "2")
    r = subprocess.run([RUN, "--random", "--benchmark", reps, "--profile", mob, "-o", out], capture_output=True, text=True)
    m = re.search(r"min ([\d.]+) ms.*CPU time median [\d.]+ ms, min ([\d.]+) ms", r.stderr)
    if not m:
        print("mobilenet_v2.hlo: hlo-run failed: %s" % r.stderr.strip()[:300])
        return
    t, tc = float(m.group(1)) / 1e3, float(m.group(2)) / 1e3
    rate = flops / t / 1e9
    print("\nmobilenet_v2.hlo (training step, batch 96; no numpy equivalent): best of %s runs after a warm-up" % reps)
    print("  %.3f s per run (process CPU %.3f s); %.1f GFLOP counted by hlo-stats = %.1f GFLOP/s = %.1f%% of "
          "the sgemm 2048^2 rate (%.1f GFLOP/s); target >= 50%%" % (t, tc, flops / 1e9, rate,
                                                                   100 * rate / lim["sgemm 2048"], lim["sgemm 2048"]))
    rn = subprocess.run([RUN, "--random", "--no-fuse", "--benchmark", reps, mob, "-o", out], capture_output=True,
                        text=True)
    mn = re.search(r"min ([\d.]+) ms", rn.stderr)
    if mn:
        print("  as written (--no-fuse: elementwise chains not fused first): %.3f s per run"
              % (float(mn.group(1)) / 1e3))
    rows = []
    for line in r.stderr.splitlines():
        f = line.split()
        if len(f) >= 9 and re.match(r"^[\d.]+$", f[0]) and f[1].endswith("%"):
            rows.append((float(f[0]), f[1], float(f[5]), float(f[6]), " ".join(f[7:-1]), f[-1]))
    rows.sort(reverse=True)
    print("  top instructions by time (--profile, ms per run):")
    for ms, share, gbs, gfs, kern, name in rows[:12]:
        print("    %9.2f %7s %7.2f GB/s %7.2f GFLOP/s  %-34s %s" % (ms, share, gbs, gfs, kern, name))
    by_kernel = {}
    for ms, share, gbs, gfs, kern, name in rows:
        k = re.sub(r"\(.*", "", kern)
        by_kernel[k] = by_kernel.get(k, 0.0) + ms
    print("  by kernel: " + ", ".join("%s %.0f ms" % kv for kv in sorted(by_kernel.items(), key=lambda kv: -kv[1])[:8]))
    pk = re.search(r"peak of live buffers during a run: (\d+) bytes above the (\d+) bytes", r.stderr)
    # one run in a fresh process: its peak RSS beside what the module needs
    t0 = time.perf_counter()
    one = subprocess.Popen([RUN, "--random", mob, "-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(one.pid, 0)
    one.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    rss = ru.ru_maxrss * 1024
    print("  one-shot run: wall %.2f s (exit %d), peak RSS %.0f MB; live buffers at the module's peak: %.0f MB "
          "(hlo-stats, text order)%s" % (
              wall, one.returncode, rss / 1e6,
              stats["peak_memory"]["bytes"] / 1e6 if stats else 0,
              "; hlo-run's own schedule: %.0f MB above %.0f MB of inputs and plan" % (
                  int(pk.group(1)) / 1e6, int(pk.group(2)) / 1e6) if pk else ""))


# ---- collectives (docs/devices.md) --------------------------------------------------
ALLREDUCE = """HloModule allreduce, replica_count=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[NELEMS] parameter(0)
  ROOT r = f32[NELEMS] all-reduce(p), replica_groups={}, to_apply=add
}
"""
MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "4"]


def hlo_best(path, reps, mpi):
    """Best time of `reps` runs of the module at path on random inputs (4 MPI
    processes with mpi), from hlo-run --benchmark."""
    cmd = [os.path.join(BUILD, "bin", "hlo-run"), path, "--random", "--benchmark", str(reps),
           "--output-device", "0", "-o", "/dev/null"]
    r = subprocess.run((MPIRUN if mpi else []) + cmd + (["--mpi"] if mpi else []), capture_output=True, text=True)
    m = re.search(r"min ([\d.]+) ms", r.stderr)
    return float(m.group(1)) / 1e3 if m else None


def collective_bench():
    """All-reduce (f32 sum) of 1 KB to 256 MB across 4 devices: hlo-run in
    threads, hlo-run over MPI (4 processes), and MPI_Allreduce called
    directly (testdata/bench/mpi_allreduce.c) in the same run.  Bandwidth =
    message bytes / time (the best run; hlo-run's time is a whole run of the
    module on every device).  "memcpy 4x ms" is numpy copying 4x the message
    in the same run: the memory-bound floor of the threads run, in which each
    device's contribution is read once and each device's result written
    once; "share" = that floor / the threads time.  BENCH_COLL_MAX caps the
    largest size."""
    import numpy as np
    d = os.path.join(BUILD, "bench", "coll")
    os.makedirs(d, exist_ok=True)
    have_mpi = open(os.path.join(BUILD, "mpi-support")).read().strip() == "yes"
    cap = int(os.environ.get("BENCH_COLL_MAX", str(256 << 20)))
    sizes = [s for s in (1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20, 256 << 20) if s <= cap]
    base = {}
    if have_mpi:
        prog = os.path.join(d, "mpi_allreduce")
        src = os.path.join(ROOT, "testdata", "bench", "mpi_allreduce.c")
        if not os.path.exists(prog) or os.path.getmtime(prog) < os.path.getmtime(src):
            subprocess.run(["mpicc", "-O2", "-o", prog, src], check=True)
        r = subprocess.run(MPIRUN + [prog, "5"] + [str(s) for s in sizes], capture_output=True, text=True, check=True)
        for line in r.stdout.splitlines():
            b, t = line.split()
            base[int(b)] = float(t)
    print("\nall-reduce benchmark: f32 sum across 4 devices, best of the runs; GB/s = message bytes / time; "
          "machine: %d cores%s" % (os.cpu_count(), "" if have_mpi else " (no MPI in this build)"))
    print("%10s %12s %9s %12s %9s %14s %9s %10s %12s %7s" % ("bytes", "threads ms", "GB/s", "hlo MPI ms", "GB/s",
                                                              "MPI_Allreduce", "GB/s", "hlo/MPI", "memcpy 4x ms",
                                                              "share"))
    for s in sizes:
        path = os.path.join(d, "ar_%d.hlo" % s)
        with open(path, "w") as f:
            f.write(ALLREDUCE.replace("NELEMS", str(s // 4)))
        reps = 20 if s <= (4 << 20) else 3
        th = hlo_best(path, reps, False)
        mp = hlo_best(path, reps, True) if have_mpi else None
        mb = base.get(s)
        src = np.ones(s, np.uint8)
        dst = np.empty_like(src)
        cp = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(4):
                np.copyto(dst, src)
            cp.append(time.perf_counter() - t0)
        cp = min(cp)
        fmt = lambda t: ("%.4f" % (t * 1e3), "%.2f" % (s / t / 1e9)) if t else ("-", "-")
        print("%10d %12s %9s %12s %9s %14s %9s %10s %12.4f %7s" % ((s,) + fmt(th) + fmt(mp) + fmt(mb) + (
            "%.2fx" % (mb / mp) if mp and mb else "-", cp * 1e3, "%.2f" % (cp / th) if th else "-")))
    mlp_bench(d)


def mlp_bench(d):
    """One data-parallel SGD step of an MLP (testdata/devices/Inputs/mlp_step.py)
    on 4 devices in threads (a quarter of the batch each, gradients
    all-reduced) beside the same step on one device."""
    sys.path.insert(0, os.path.join(ROOT, "testdata", "devices", "Inputs"))
    from mlp_step import ALLRED, LOCAL, mlp
    B, F, H, O = 4096, 256, 1024, 64
    one = os.path.join(d, "mlp1.hlo")
    four = os.path.join(d, "mlp4.hlo")
    with open(one, "w") as f:
        f.write(mlp(B, LOCAL, "HloModule mlp\n", B, F, H, O))
    with open(four, "w") as f:
        f.write(mlp(B // 4, ALLRED, "HloModule mlp_dp, replica_count=4\n", B, F, H, O))
    t1, t4 = hlo_best(one, 5, False), hlo_best(four, 5, False)
    print("\nMLP training step (batch %d, %d-%d-%d, f32): 1 device %s ms; 4 devices in threads (%d rows each, "
          "gradients all-reduced) %s ms%s" % (
              B, F, H, O, "%.3f" % (t1 * 1e3) if t1 else "failed", B // 4, "%.3f" % (t4 * 1e3) if t4 else "failed",
              " (%.2fx)" % (t1 / t4) if t1 and t4 else ""))


def child_run(argv):
    """Wall seconds and peak RSS (MB) of one child process, from wait4."""
    t = time.perf_counter()
    pr = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(pr.pid, 0)
    wall = time.perf_counter() - t
    pr.returncode = os.waitstatus_to_exitcode(status)
    return (wall if pr.returncode == 0 else None), ru.ru_maxrss / 1024.0


def io_bench():
    """End to end: hlo-run negating a 64 MB and a 1 GB .npy into a .npy
    (inputs mapped, output written from the result) beside a numpy script
    doing the same (np.load, negate, np.save).  Best wall time of
    BENCH_IO_RUNS runs and the peak RSS of that child, and that peak over
    the bytes of input plus output (the target: at most 1.1).  BENCH_IO=0
    skips it; BENCH_IO_MAX (bytes) caps the sizes."""
    import tempfile
    import numpy as np
    runs = int(os.environ.get("BENCH_IO_RUNS", "3"))
    cap = int(os.environ.get("BENCH_IO_MAX", str(1 << 30)))

    def fmt(rs, io_bytes):
        ok = [r for r in rs if r[0] is not None]
        if not ok:
            return "failed"
        w, rss = min(ok)
        return "%.3f s, peak RSS %.0f MB = %.2fx input+output" % (w, rss, rss * (1 << 20) / io_bytes)
    for nbytes in (64 << 20, 1 << 30):
        if nbytes > cap:
            continue
        n = nbytes // 4  # f32 elements
        with tempfile.TemporaryDirectory(prefix="hlo_bench_io_") as d:
            src, out, hlo = (os.path.join(d, f) for f in ("in.npy", "out.npy", "neg.hlo"))
            np.save(src, np.arange(n, dtype=np.float32))
            with open(hlo, "w") as f:
                f.write("HloModule neg\nENTRY e {\n  p = f32[%d] parameter(0)\n  ROOT n = f32[%d] negate(p)\n}\n" % (n, n))
            ours = [child_run([os.path.join(BUILD, "bin", "hlo-run"), hlo, src, "-o", out]) for _ in range(runs)]
            script = "import numpy as np, sys; np.save(sys.argv[2], -np.load(sys.argv[1]))"
            theirs = [child_run([sys.executable, "-c", script, src, out]) for _ in range(runs)]
            # the same job between stored .npz archives: hlo-run's own
            # archive (members aligned, so mapped) in, a new one out
            zsrc, zout = os.path.join(d, "in.npz"), os.path.join(d, "out.npz")
            zours_in = child_run([os.path.join(BUILD, "bin", "hlo-run"), hlo, src, "-o", zsrc])
            zours = [child_run([os.path.join(BUILD, "bin", "hlo-run"), hlo, "--inputs", zsrc, "-o", zout])
                     for _ in range(runs)] if zours_in[0] is not None else []
            zscript = ("import numpy as np, sys; z = np.load(sys.argv[1]); "
                       "np.savez(sys.argv[2], out0=-z[z.files[0]])")
            ztheirs = [child_run([sys.executable, "-c", zscript, zsrc, zout]) for _ in range(runs)]
        print("\nend to end, negate a %d MB f32 .npy into a .npy (best of %d; peak RSS of that run):" % (nbytes >> 20, runs))
        print("  hlo-run: %s" % fmt(ours, 2 * nbytes))
        print("  numpy:   %s" % fmt(theirs, 2 * nbytes))
        print("the same between stored .npz archives (CRC-32 checked on reading, computed on writing):")
        print("  hlo-run: %s" % fmt(zours, 2 * nbytes))
        print("  numpy:   %s" % fmt(ztheirs, 2 * nbytes))

if __name__ == "__main__":
    # BENCH_ONLY=parser, interp, collectives or io runs one part only
    only = os.environ.get("BENCH_ONLY")
    if only in (None, "parser"):
        main()
    if only in (None, "interp"):
        interp_bench()
    if only in (None, "collectives"):
        collective_bench()
    if only == "io" or (only is None and os.environ.get("BENCH_IO", "1") != "0"):
        io_bench()
