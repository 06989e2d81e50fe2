"""make bench, convolution part: every distinct convolution of mobilenet_v2
(forward, backward data, backward weights, depthwise included) and the 3x3
NHWC case, timed with `hlo-run --benchmark` (in-process, best run) beside
oneDNN (testdata/bench/onednn_conv.c, the library XLA's CPU backend calls
for convolutions), when <oneapi/dnnl/dnnl.h> and -ldnnl are found.
Each HLO convolution is rewritten as its forward problem (N C H W -> O,
kernel, stride, padding, groups) and oneDNN runs the same pass.
Timings are never asserted."""
import os
import re
import subprocess
import sys

CONV_RE = re.compile(r"= (f32\[[\d,]*\])\S* convolution\((f32\[[\d,]*\])\S* %\S+, (f32\[[\d,]*\])\S* %\S+\), "
                     r"window=\{([^}]*)\}, dim_labels=(\S+?)(?:,|$)(.*)")


def dims(t):
    return [int(x) for x in t[t.index("[") + 1:-1].split(",") if x]


def window(w):
    f = dict(kv.split("=") for kv in w.split())
    size = [int(x) for x in f["size"].split("x")]
    get = lambda k: [int(x) for x in f[k].split("x")] if k in f else [1] * len(size)
    pads = [[int(x) for x in p.split("_")] for p in f["pad"].split("x")] if "pad" in f else [[0, 0]] * len(size)
    return size, get("stride"), pads, get("lhs_dilate"), get("rhs_dilate")


def forward_problem(out, lhs, rhs, win, labels, rest):
    """(kind, layout, N C H W O KH KW SH SW PT PL HO WO G) of one HLO convolution, or None."""
    size, stride, pads, ldil, rdil = window(win)
    fgc = int(re.search(r"feature_group_count=(\d+)", rest).group(1)) if "feature_group_count" in rest else 1
    bgc = int(re.search(r"batch_group_count=(\d+)", rest).group(1)) if "batch_group_count" in rest else 1
    if labels == "bf01_oi01->bf01" and ldil == [1, 1] and rdil == [1, 1]:
        return ("f", "c", lhs[0], lhs[1], lhs[2], lhs[3], rhs[0], rhs[2], rhs[3], stride[0], stride[1],
                pads[0][0], pads[1][0], out[2], out[3], fgc)
    if labels == "b01f_01io->b01f" and ldil == [1, 1] and rdil == [1, 1]:
        return ("f", "l", lhs[0], lhs[3], lhs[1], lhs[2], rhs[3], rhs[0], rhs[1], stride[0], stride[1],
                pads[0][0], pads[1][0], out[1], out[2], fgc)
    if labels == "bf01_01oi->bf01" and stride == [1, 1] and rdil == [1, 1]:
        # dx = conv(dy, reversed w): the forward stride is the lhs dilation
        return ("d", "c", out[0], out[1], out[2], out[3], lhs[1], size[0], size[1], ldil[0], ldil[1],
                size[0] - 1 - pads[0][0], size[1] - 1 - pads[1][0], lhs[2], lhs[3], fgc)
    if labels == "fb01_io01->01bf" and stride == [1, 1] and ldil == [1, 1]:
        # dw = conv(x, dy) over the batch: the forward stride is the rhs dilation
        return ("w", "c", lhs[0], lhs[1], lhs[2], lhs[3], rhs[1], out[0], out[1], rdil[0], rdil[1],
                pads[0][0], pads[1][0], rhs[2], rhs[3], bgc)
    return None


def shape_class(p):
    kind, n, c, kh, kw, g = p[0], p[2], p[3], p[7], p[8], p[15]
    geo = "depthwise" if g > 1 and g == c else "1x1" if kh == kw == 1 else "%dx%d" % (kh, kw)
    return {"f": "forward", "d": "bwd-data", "w": "bwd-weights"}[kind] + " " + geo


def mobilenet_convs(path):
    """distinct convolutions of the module: [(hlo text of the instruction, count, problem)]"""
    seen = {}
    with open(path) as f:
        for line in f:
            if " convolution(" not in line:
                continue
            line = re.sub(r", metadata=\{.*", "", line.rstrip())
            m = CONV_RE.search(line)
            if not m:
                continue
            key = (m.group(1), m.group(2), m.group(3), m.group(4), m.group(5), m.group(6).strip(", "))
            seen[key] = seen.get(key, 0) + 1
    return [(k, n) for k, n in seen.items()]


def module_text(key):
    out, lhs, rhs, win, labels, rest = key
    extra = (", " + rest) if rest else ""
    return ("HloModule c\nENTRY e { a = %s parameter(0)\n b = %s parameter(1)\n"
            " ROOT c = %s convolution(a, b), window={%s}, dim_labels=%s%s }\n" % (lhs, rhs, out, win, labels, extra))


def flops(p):
    kind, lay, n, c, h, w, o, kh, kw, sh, sw, pt, pl, ho, wo, g = p
    return 2.0 * n * o * ho * wo * (c // g) * kh * kw


def build_onednn(build, root):
    out = os.path.join(build, "bench", "onednn_conv")
    src = os.path.join(root, "testdata", "bench", "onednn_conv.c")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        return out
    r = subprocess.run(["cc", "-O2", "-o", out, src, "-ldnnl"], capture_output=True, text=True)
    return out if r.returncode == 0 else None


def onednn_times(prog, problems, reps):
    text = "".join("p%d %s\n" % (i, " ".join(str(x) for x in p)) for i, p in enumerate(problems))
    env = dict(os.environ, OMP_WAIT_POLICY="passive")  # idle threads must not spin into the CPU time
    r = subprocess.run([prog, str(reps)], input=text, capture_output=True, text=True, env=env)
    got = {}
    for line in r.stdout.splitlines():
        f = line.split()
        got[int(f[0][1:])] = tuple(float(x) for x in f[1:5])
    return got


def our_conv_time(run, build, name, text, reps, extra=()):
    d = os.path.join(build, "bench", "conv")
    os.makedirs(d, exist_ok=True)
    mod = os.path.join(d, name + ".hlo")
    with open(mod, "w") as f:
        f.write(text)
    r = subprocess.run([run, "--random", "--benchmark", str(reps)] + list(extra) + [mod, "-o", os.path.join(d, "out.npz")],
                       capture_output=True, text=True)
    m = re.search(r"min ([\d.]+) ms.*CPU time median [\d.]+ ms, min ([\d.]+) ms", r.stderr)
    return (float(m.group(1)), float(m.group(2))) if m else (None, None)


NHWC = ("f32[8,56,56,64]", "f32[8,56,56,64]", "f32[3,3,64,64]", "size=3x3 pad=1_1x1_1", "b01f_01io->b01f", "")


def conv_bench(root, build, corpus, sgemm_rate):
    run = os.path.join(build, "bin", "hlo-run")
    reps = int(os.environ.get("BENCH_CONV_REPS", "3"))
    prog = build_onednn(build, root)
    mob = os.path.join(corpus, "xla__tools__data__benchmarking__mobilenet_v2.hlo")
    convs = [(NHWC, 0)] + (mobilenet_convs(mob) if os.path.exists(mob) else [])
    only = os.environ.get("BENCH_CONV_ONLY")  # a substring of the class, e.g. "depthwise"
    rows = []
    for key, count in convs:
        p = forward_problem(dims(key[0]), dims(key[1]), dims(key[2]), key[3], key[4], key[5])
        if p is None or (only and only not in shape_class(p)):
            continue
        rows.append((key, count, p))
    print("\nconvolutions beside oneDNN (%s): best of %d runs after a warm-up; oneDNN plain = on our layout, "
          "blocked = on its preferred layout, reorders not timed; ratio = best oneDNN / ours (>= 0.8 is the target); "
          "cpu = process CPU time of the best run (all threads), which a loaded machine distorts less"
          % ("libdnnl found" if prog else "libdnnl NOT found: our times only", reps))
    print("%-46s %5s %9s %9s %9s %7s %8s %8s %7s %7s  %s" % (
        "shape (count in mobilenet_v2)", "", "ours ms", "dnnl pl", "dnnl blk", "ratio", "ours cpu", "dnnl cpu",
        "cpu rat", "GF/s", "class"))
    classes = {}
    for i, (key, count, p) in enumerate(rows):
        # oneDNN and ours back to back, shape by shape: on a shared machine
        # the two then see the same load
        dn = onednn_times(prog, [p], reps) if prog else {}
        ours, ours_c = our_conv_time(run, build, "c%d" % i, module_text(key), reps)
        plain, blk, plain_c, blk_c = dn.get(0, (-1, -1, -1, -1))
        best = min(x for x in (plain, blk, 1e30) if x > 0)
        best_c = min(x for x in (plain_c, blk_c, 1e30) if x > 0)
        cls = shape_class(p)
        label = "NHWC 3x3 8x56x56x64" if count == 0 else "%s %s" % (key[0], key[4])
        ratio = best / ours if ours and best < 1e30 else 0
        print("%-46s %5s %9s %9.2f %9.2f %7.2f %8.2f %8.2f %7.2f %7.1f  %s" % (
            label[:46], "x%d" % count if count else "", "%.2f" % ours if ours else "failed", plain, blk, ratio,
            ours_c or 0, best_c if best_c < 1e30 else -1, best_c / ours_c if ours_c and best_c < 1e30 else 0,
            flops(p) / ours / 1e6 if ours else 0, cls))
        sys.stdout.flush()
        if count and ours:
            c = classes.setdefault(cls, [0.0, 0.0, 0.0, 0.0, 0.0])
            c[0] += count * ours
            c[1] += count * (best if best < 1e30 else 0)
            c[2] += count * flops(p)
            c[3] += count * ours_c
            c[4] += count * (best_c if best_c < 1e30 else 0)
    if classes:
        print("per class, weighted by count in mobilenet_v2 (one training step):")
        print("%-26s %10s %10s %7s %10s %10s %7s %9s %8s" % ("class", "ours ms", "oneDNN ms", "ratio", "ours cpu",
                                                          "dnnl cpu", "cpu rat", "GFLOP", "% sgemm"))
        tot = [0.0] * 5
        for cls in sorted(classes) + ["all convolutions"]:
            o, b, f, oc, bc = tot if cls == "all convolutions" else classes[cls]
            if cls != "all convolutions":
                tot = [x + y for x, y in zip(tot, classes[cls])]
            print("%-26s %10.1f %10.1f %7.2f %10.1f %10.1f %7.2f %9.1f %7.1f%%" % (
                cls, o, b, b / o if o else 0, oc, bc, bc / oc if oc else 0, f / 1e9,
                100 * f / (o / 1e3) / 1e9 / sgemm_rate))
