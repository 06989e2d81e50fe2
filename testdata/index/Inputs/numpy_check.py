#!/usr/bin/env python3
"""Cross-checks hlo-index maps against numpy, independently of the seed.

Each case is an HLO instruction and the same operation written with numpy
over object arrays whose elements are sets of element ids: every operand
element starts as {its own id}, moving ops move the sets and reducing ops
take unions.  So out[o] is exactly the set of operand elements that output
element o reads.  The printed maps of hlo-index (output->input and, where a
rule exists, input->output) are evaluated by brute force and must give the
same sets, element by element."""
import itertools
import re
import subprocess
import sys
import tempfile

import numpy as np

U = np.frompyfunc(lambda a, b: a | b, 2, 1)


def ids(shape, k):
    a = np.empty(shape, dtype=object)
    for i, idx in enumerate(np.ndindex(*shape)):
        a[idx] = frozenset([(k, idx)])
    return a


def empty(shape):
    a = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        a[idx] = frozenset()
    return a


def reduce_axes(a, axes):
    for ax in sorted(axes, reverse=True):
        a = U.reduce(a, axis=ax) if a.shape[ax] else empty(a.shape[:ax] + a.shape[ax + 1:])
    return a


def parse_map(text):
    head, _, dom = text.partition(",\ndomain:\n")
    m = re.match(r"\((.*?)\)(?:\[(.*?)\])?(?:\{(.*?)\})? -> \((.*)\)$", head if dom else head.rstrip(","), re.S)
    dims = [v for v in m.group(1).split(", ") if v]
    syms = [v for v in (m.group(2) or "").split(", ") if v] + [v for v in (m.group(3) or "").split(", ") if v]
    py = lambda e: e.replace(" floordiv ", " // ").replace(" / ", " // ").replace(" mod ", " % ")
    results = compile("(" + py(m.group(4)) + ",)" if m.group(4).strip() else "()", "map", "eval")
    bounds, cons = {}, []
    for line in dom.split("\n") if dom else []:
        line = line.rstrip(",")
        e, lo, hi = re.match(r"(.*) in \[(-?\d+), (-?\d+)\]$", line).groups()
        if e in dims + syms and e not in bounds:
            bounds[e] = (int(lo), int(hi))
        else:
            cons.append((compile(py(e), "c", "eval"), int(lo), int(hi)))
    return dims, syms, bounds, results, cons


def map_sets(text, dshape):
    """{dim point: set of result tuples} for a printed map."""
    if text in ("UNDEFINED",):
        return None
    out = {}
    if text == "KNOWN EMPTY":
        return out
    dims, syms, bounds, results, cons = parse_map(text)
    sranges = [range(bounds[s][0], bounds[s][1] + 1) for s in syms]
    for d in np.ndindex(*dshape):
        env = dict(zip(dims, d))
        if any(not (bounds[n][0] <= v <= bounds[n][1]) for n, v in env.items()):
            continue
        acc = set()
        for sv in itertools.product(*sranges):
            env.update(zip(syms, sv))
            if all(lo <= eval(c, {}, env) <= hi for c, lo, hi in cons):
                acc.add(tuple(eval(results, {}, env)))
        if acc:
            out[d] = acc
    return out


def split_maps(text):
    maps, cur = [], []
    for line in text.splitlines():
        if ((line.startswith("(") and " -> " in line) or line in ("UNDEFINED", "KNOWN EMPTY")) and cur:
            maps.append("\n".join(cur))
            cur = []
        cur.append(line)
    if cur:
        maps.append("\n".join(cur))
    return maps


def hlo_index(args, path):
    r = subprocess.run(["hlo-index"] + args + [path], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr)
    return r.stdout


def union_of_maps(text, dshape):
    acc = {}
    for mt in split_maps(text):
        s = map_sets(mt, dshape)
        if s is None:
            return None
        for k, v in s.items():
            acc.setdefault(k, set()).update(v)
    return acc


def check(name, hlo, shapes, fn, check_ops, i2o=True):
    """shapes: operand shapes; fn(list of operand arrays) -> output array."""
    problems = []
    with tempfile.NamedTemporaryFile("w", suffix=".hlo", delete=False) as f:
        f.write(hlo)
        path = f.name
    for k in check_ops:
        ops = [ids(s, j) if j == k else empty(s) for j, s in enumerate(shapes)]
        out = fn(ops)
        want = {}
        for o in np.ndindex(*out.shape):
            reads = {idx for (_, idx) in out[o]}
            if reads:
                want[o] = reads
        got = union_of_maps(hlo_index(["--operand", str(k)], path), out.shape)
        if got != want:
            diff = [o for o in set(got or {}) | set(want) if (got or {}).get(o) != want.get(o)]
            problems.append("%s: output->input of operand %d differs at %s: got %s want %s" %
                            (name, k, diff[0] if diff else "?", (got or {}).get(diff[0]) if diff else got,
                             want.get(diff[0]) if diff else want))
        if not i2o:
            continue
        inv = {}
        for o, reads in want.items():
            for i in reads:
                inv.setdefault(i, set()).add(o)
        got = union_of_maps(hlo_index(["--input-to-output", "--operand", str(k), "--output", "0"], path),
                            shapes[k])
        if got != inv:
            diff = [o for o in set(got or {}) | set(inv) if (got or {}).get(o) != inv.get(o)]
            problems.append("%s: input->output of operand %d differs at %s: got %s want %s" %
                            (name, k, diff[0] if diff else "?", (got or {}).get(diff[0]) if diff else got,
                             inv.get(diff[0]) if diff else inv))
    for p in problems:
        print("FAIL " + p)
    print("%s: %s" % (name, "ok" if not problems else "FAILED"))
    return not problems


def physical(a, m2m):
    """Logical array -> its row-major physical order (dims major-to-minor)."""
    return np.transpose(a, list(reversed(m2m)))


def logical(flat, shape, m2m):
    order = list(reversed(m2m))
    phys = flat.reshape([shape[d] for d in order])
    return np.transpose(phys, np.argsort(order))


def mod(body, pre=""):
    return pre + "ENTRY e {\n" + body + "\n}\n"


MAX = "mx {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] maximum(a, b)\n}\n"


def pad_np(a, cfg, value):
    """cfg: [(lo, hi, interior)]; value: the padding element set."""
    for ax, (lo, hi, it) in enumerate(cfg):
        n = a.shape[ax]
        size = lo + hi + n + max(n - 1, 0) * it
        shape = list(a.shape)
        shape[ax] = size
        b = np.empty(shape, dtype=object)
        b.fill(value)
        for i in range(n):
            p = lo + i * (it + 1)
            if 0 <= p < size:
                src = [slice(None)] * a.ndim
                dst = [slice(None)] * a.ndim
                src[ax] = i
                dst[ax] = p
                b[tuple(dst)] = a[tuple(src)]
        a = b
    return a


def reduce_window_np(a, size, stride, pad, base):
    a = pad_np(a, [(lo, hi, b - 1) for (lo, hi), b in zip(pad, base)], frozenset())
    outshape = [(a.shape[i] - size[i]) // stride[i] + 1 for i in range(a.ndim)]
    out = empty(outshape)
    for o in np.ndindex(*outshape):
        acc = frozenset()
        for w in np.ndindex(*size):
            acc |= a[tuple(o[i] * stride[i] + w[i] for i in range(a.ndim))]
        out[o] = acc
    return out


def conv_np(x, k, stride, pad):
    """b01f input, 01io kernel, b01f output, no dilation, one group."""
    x = pad_np(x, [(0, 0, 0)] + [(lo, hi, 0) for lo, hi in pad] + [(0, 0, 0)], frozenset())
    b, h, w, f = x.shape
    kh, kw, ki, ko = k.shape
    oh, ow = (h - kh) // stride[0] + 1, (w - kw) // stride[1] + 1
    out = empty((b, oh, ow, ko))
    for n, i, j, o in np.ndindex(b, oh, ow, ko):
        acc = frozenset()
        for p, q, c in np.ndindex(kh, kw, ki):
            acc |= x[n, i * stride[0] + p, j * stride[1] + q, c] | k[p, q, c, o]
        out[n, i, j, o] = acc
    return out


def dot_np(l, r):
    """[B, M, K] x [B, K, N]."""
    B, M, K = l.shape
    N = r.shape[2]
    out = empty((B, M, N))
    for b, m, n in np.ndindex(B, M, N):
        acc = frozenset()
        for k in range(K):
            acc |= l[b, m, k] | r[b, k, n]
        out[b, m, n] = acc
    return out


CASES = [
    ("reshape 4x6->3x8", mod("  p = f32[4,6] parameter(0)\n  ROOT r = f32[3,8] reshape(p)"), [(4, 6)],
     lambda o: o[0].reshape(3, 8), [0]),
    ("reshape 2x3x4->4x6", mod("  p = f32[2,3,4] parameter(0)\n  ROOT r = f32[4,6] reshape(p)"), [(2, 3, 4)],
     lambda o: o[0].reshape(4, 6), [0]),
    ("reshape 6x4->2x3x4", mod("  p = f32[6,4] parameter(0)\n  ROOT r = f32[2,3,4] reshape(p)"), [(6, 4)],
     lambda o: o[0].reshape(2, 3, 4), [0]),
    ("reshape 1x6x1->2x1x3", mod("  p = f32[1,6,1] parameter(0)\n  ROOT r = f32[2,1,3] reshape(p)"), [(1, 6, 1)],
     lambda o: o[0].reshape(2, 1, 3), [0]),
    ("bitcast {0,1}->{1,0}", mod("  p = f32[2,3]{0,1} parameter(0)\n  ROOT r = f32[3,2]{1,0} bitcast(p)"), [(2, 3)],
     lambda o: logical(physical(o[0], [0, 1]).reshape(-1), (3, 2), [1, 0]), [0]),
    ("bitcast 3d layouts", mod("  p = f32[2,3,4]{1,2,0} parameter(0)\n  ROOT r = f32[4,6]{0,1} bitcast(p)"),
     [(2, 3, 4)], lambda o: logical(physical(o[0], [1, 2, 0]).reshape(-1), (4, 6), [0, 1]), [0]),
    ("transpose", mod("  p = f32[2,3,4] parameter(0)\n  ROOT r = f32[4,2,3] transpose(p), dimensions={2,0,1}"),
     [(2, 3, 4)], lambda o: np.transpose(o[0], (2, 0, 1)), [0]),
    ("reverse", mod("  p = f32[3,2,4] parameter(0)\n  ROOT r = f32[3,2,4] reverse(p), dimensions={0,2}"),
     [(3, 2, 4)], lambda o: o[0][::-1, :, ::-1], [0]),
    ("slice", mod("  p = f32[7,9] parameter(0)\n  ROOT r = f32[3,2] slice(p), slice={[1:7:2], [2:9:4]}"),
     [(7, 9)], lambda o: o[0][1:7:2, 2:9:4], [0]),
    ("pad", mod("  p = f32[4,5] parameter(0)\n  v = f32[] parameter(1)\n"
                "  ROOT r = f32[9,6] pad(p, v), padding=-1_3_1x2_-1_0"), [(4, 5), ()],
     # only operand 0: the seed maps the padding value from every output
     # element (G16), a superset of the positions that really hold it
     lambda o: pad_np(o[0], [(-1, 3, 1), (2, -1, 0)], o[1][()]), [0], False),
    ("concatenate", mod("  a = f32[2,3] parameter(0)\n  b = f32[2,1] parameter(1)\n  c = f32[2,4] parameter(2)\n"
                        "  ROOT r = f32[2,8] concatenate(a, b, c), dimensions={1}"), [(2, 3), (2, 1), (2, 4)],
     lambda o: np.concatenate(o, axis=1), [0, 1, 2]),
    ("broadcast", mod("  p = f32[3] parameter(0)\n  ROOT r = f32[2,3,4] broadcast(p), dimensions={1}"), [(3,)],
     lambda o: np.broadcast_to(o[0].reshape(1, 3, 1), (2, 3, 4)).copy(), [0]),
    ("reduce", mod("  p = f32[3,4,5] parameter(0)\n  z = f32[] parameter(1)\n"
                   "  ROOT r = f32[4] reduce(p, z), dimensions={0,2}, to_apply=mx", MAX), [(3, 4, 5), ()],
     lambda o: U(reduce_axes(o[0], [0, 2]), np.full(4, o[1][()], dtype=object)), [0, 1]),
    ("reduce-window", mod("  p = f32[5,4] parameter(0)\n  z = f32[] parameter(1)\n"
                          "  ROOT r = f32[3,4] reduce-window(p, z), window={size=2x3 stride=2x2 pad=1_0x1_2 "
                          "lhs_dilate=1x2}, to_apply=mx", MAX), [(5, 4), ()],
     lambda o: reduce_window_np(o[0], (2, 3), (2, 2), [(1, 0), (1, 2)], (1, 2)), [0], False),
    ("dot", mod("  a = f32[2,3,4] parameter(0)\n  b = f32[2,4,5] parameter(1)\n"
                "  ROOT r = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
                "lhs_contracting_dims={2}, rhs_contracting_dims={1}"), [(2, 3, 4), (2, 4, 5)],
     lambda o: dot_np(o[0], o[1]), [0, 1]),
    ("convolution", mod("  x = f32[1,5,6,2] parameter(0)\n  k = f32[3,3,2,3] parameter(1)\n"
                        "  ROOT r = f32[1,3,3,3] convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_0}, "
                        "dim_labels=b01f_01io->b01f"), [(1, 5, 6, 2), (3, 3, 2, 3)],
     lambda o: conv_np(o[0], o[1], (2, 2), [(1, 1), (1, 0)]), [0, 1], False),
    ("select with a scalar predicate", mod("  p = pred[] parameter(0)\n  a = f32[2,3] parameter(1)\n"
                                           "  b = f32[2,3] parameter(2)\n  ROOT r = f32[2,3] select(p, a, b)"),
     [(), (2, 3), (2, 3)], lambda o: U(U(np.full((2, 3), o[0][()], dtype=object), o[1]), o[2]), [0, 1, 2]),
    ("fusion reshape-transpose-slice",
     "f {\n  p = f32[4,6] parameter(0)\n  r = f32[3,8] reshape(p)\n  t = f32[8,3] transpose(r), dimensions={1,0}\n"
     "  ROOT s = f32[3,2] slice(t), slice={[2:8:2], [1:3]}\n}\n" +
     mod("  p = f32[4,6] parameter(0)\n  ROOT f = f32[3,2] fusion(p), kind=kLoop, calls=f"), [(4, 6)],
     lambda o: np.transpose(o[0].reshape(3, 8))[2:8:2, 1:3], [0], False),
    ("fusion reduce of broadcast",
     MAX + "f {\n  p = f32[3] parameter(0)\n  z = f32[] parameter(1)\n  b = f32[4,3] broadcast(p), dimensions={1}\n"
     "  ROOT r = f32[4] reduce(b, z), dimensions={1}, to_apply=mx\n}\n" +
     mod("  p = f32[3] parameter(0)\n  z = f32[] parameter(1)\n  ROOT f = f32[4] fusion(p, z), kind=kLoop, calls=f"),
     [(3,), ()], lambda o: U(reduce_axes(np.broadcast_to(o[0].reshape(1, 3), (4, 3)).copy(), [1]),
                             np.full(4, o[1][()], dtype=object)), [0, 1], False),
]


def main():
    ok = 0
    for c in CASES:
        ok += check(*c)
    print("numpy cross-check: %d of %d cases agree" % (ok, len(CASES)))
    return 0 if ok == len(CASES) else 1


if __name__ == "__main__":
    sys.exit(main())
