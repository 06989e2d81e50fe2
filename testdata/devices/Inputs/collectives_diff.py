"""Differential test of hlo-run's collectives against a numpy model of their
definition (XLA's group modes, replica groups, device-order folds), written
here independently of the C code.  For every device count R x P from 1x1 to
8x2, every group mode and several replica-group forms (all devices, explicit
unsorted groups, iota with a transpose), one module holds all-reduce
(several reducers and element types, tuple and async forms, a reducer that
is not a single op), all-gather, reduce-scatter, all-to-all (array and tuple
forms), collective-permute (and its async form), collective-broadcast,
send/recv pairs (cross-partition and, with channel_id=0, cross-replica), replica-id and partition-id.  Inputs are per device (an .npz of d<K>.<param>
members), results come back as d<K>.arr_<N>, and every element must have the
same bits as the model's.  Prints "collectives_diff: N runs, M checks, F
failed" and the failures."""
import os
import subprocess
import sys
import tempfile

import numpy as np

# Open MPI keeps its runtime state (in plugins it unloads, so that LSan cannot
# name them) until exit: leak detection is off for processes under mpirun
MPI_ENV = dict(os.environ, ASAN_OPTIONS=(os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":"))

HLO_RUN = os.environ.get("HLO_RUN", "hlo-run")
EXTRA = sys.argv[1:]  # more hlo-run flags (e.g. --reference)
# HLO_MPI_NP=N: run under `mpirun -np N hlo-run --mpi` (N or fewer processes,
# the devices spread evenly: --devices-per-rank), on a subset of the counts
MPI_NP = int(os.environ.get("HLO_MPI_NP", "0"))
RNG = np.random.default_rng(16)
runs = 0
checks = 0
failures = []

CR, CP, CRP, FLAT = "cross-replica", "cross-partition", "cross-replica-and-partition", "flattened-id"
N0 = 16  # split dimension: divisible by every group size up to 16

DT = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "s32": np.int32, "s8": np.int8,
      "u32": np.uint32, "s64": np.int64, "pred": np.bool_, "c64": np.complex64}


# ---- the model ----------------------------------------------------------------
def participants(mode, groups, R, P, k, permute=False):
    """Logical devices (r*P+p) that take part with device k, in order."""
    r, p = divmod(k, P)
    if permute:
        return [i * P + p for i in range(R)] if mode == CR else [r * P + i for i in range(P)]
    space = {CR: R, CP: P, CRP: R, FLAT: R * P}[mode]
    me = {CR: r, CP: p, CRP: r, FLAT: k}[mode]
    if not groups:
        groups = [list(range(space))]
    grp = [g for g in groups if me in g][0]
    if mode == CR:
        return [i * P + p for i in grp]
    if mode == CP:
        return [r * P + i for i in grp]
    if mode == CRP:
        return [i * P + q for i in grp for q in range(P)]
    return list(grp)


def fold(vals, op, dt):
    acc = vals[0].copy()
    for v in vals[1:]:
        if op == "add":
            acc = (acc + v).astype(dt)
        elif op == "mul":
            acc = (acc * v).astype(dt)
        elif op == "max":
            acc = np.maximum(acc, v)
        elif op == "min":
            acc = np.minimum(acc, v)
        elif op == "or":
            acc = acc | v
        elif op == "and":
            acc = acc & v
    return acc


# ---- module text ------------------------------------------------------------------
def shape(t, dims):
    return "%s[%s]" % (t, ",".join(str(d) for d in dims))


def groups_text(groups, iota):
    if iota:
        return "replica_groups=" + iota
    return "replica_groups={%s}" % ",".join("{%s}" % ",".join(map(str, g)) for g in groups)


REDUCERS = {"add": "add", "mul": "multiply", "max": "maximum", "min": "minimum", "or": "or", "and": "and"}


def reducer(name, t, op):
    return "%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n  ROOT r = %s[] %s(a, b)\n}\n" % (
        name, t, t, t, REDUCERS[op])


def build(R, P, mode, groups, iota):
    """Module text, its parameters [(name, type, dims)] and the result list
    [(kind, args)] the model evaluates, in root tuple order."""
    comps = []
    params = []
    body = []
    results = []
    g = groups_text(groups, iota)
    channels = [0]

    def chan(on):
        """', channel_id=N' with a new N (every instruction its own), or ''"""
        if not on:
            return ""
        channels[0] += 1
        return ", channel_id=%d" % channels[0]

    class GA:  # the group attributes of one instruction: groups, channel, global ids
        def __str__(self):
            return g + chan(mode != CR) + (", use_global_device_ids=true" if mode == FLAT else "")
    ga = GA()

    def param(t, dims):
        name = "p%d" % len(params)
        params.append((name, t, dims))
        body.append("  %s = %s parameter(%d)" % (name, shape(t, dims), len(params) - 1))
        return name

    def emit(name, text, kind, *args):
        body.append("  %s = %s" % (name, text))
        results.append((name, kind, args))

    n = len(participants(mode, groups, R, P, 0)) if mode != CP else None
    if mode in (CR, CRP, FLAT):
        for t, op in (("f32", "add"), ("f64", "mul"), ("f16", "add"), ("s32", "add"), ("s8", "max"),
                      ("u32", "min"), ("s64", "add"), ("pred", "or"), ("pred", "and"), ("c64", "add")):
            x = param(t, [N0, 3])
            comps.append(reducer("red_%s_%s" % (t, op), t, op))
            emit("ar_%s_%s" % (t, op), "%s all-reduce(%s), %s, to_apply=red_%s_%s" % (
                shape(t, [N0, 3]), x, ga, t, op), "all-reduce", x, op, t)
        # a reducer that is not one op: (a + b) * 1
        comps.append("gen {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  s = f32[] add(a, b)\n"
                     "  one = f32[] constant(1)\n  ROOT r = f32[] multiply(s, one)\n}\n")
        x = param("f32", [5])
        emit("ar_gen", "f32[5] all-reduce(%s), %s, to_apply=gen" % (x, ga), "all-reduce", x, "add", "f32")
        # tuple (combined) all-reduce and the async form
        y = param("f32", [4])
        emit("ar_tup", "(f32[5], f32[4]) all-reduce(%s, %s), %s, to_apply=red_f32_add" % (x, y, ga),
             "all-reduce-tuple", (x, y), "add")
        body.append("  ars = f32[5] all-reduce-start(%s), %s, to_apply=red_f32_add" % (x, ga))
        emit("ard", "f32[5] all-reduce-done(ars)", "all-reduce", x, "add", "f32")
        # all-gather and reduce-scatter in every mode, including
        # cross-replica-and-partition with explicit groups over several
        # partitions (each group then spans all partitions)
        shaped = True
        for t in ("f32", "s8") if shaped else ():
            z = param(t, [3, 2])
            for d in (0, 1):
                dims = [3 * n, 2] if d == 0 else [3, 2 * n]
                emit("ag_%s_%d" % (t, d), "%s all-gather(%s), %s, dimensions={%d}" % (shape(t, dims), z, ga, d),
                     "all-gather", z, d)
        z = param("f32", [3, 2])
        if shaped:
            body.append("  ags = (f32[3,2], f32[%d,2]) all-gather-start(%s), %s, dimensions={0}" % (3 * n, z, ga))
            emit("agd", "f32[%d,2] all-gather-done(ags)" % (3 * n), "all-gather", z, 0)
        for t, op in (("f32", "add"), ("s32", "max")) if shaped else ():
            comps.append(reducer("red_%s_%s" % (t, op), t, op))
            w = param(t, [N0, 2])
            emit("rs_%s_0" % t, "%s reduce-scatter(%s), %s, dimensions={0}, to_apply=red_%s_%s" % (
                shape(t, [N0 // n, 2]), w, ga, t, op), "reduce-scatter", w, 0, op, t)
            w = param(t, [2, N0])
            emit("rs_%s_1" % t, "%s reduce-scatter(%s), %s, dimensions={1}, to_apply=red_%s_%s" % (
                shape(t, [2, N0 // n]), w, ga, t, op), "reduce-scatter", w, 1, op, t)
    if mode in (CR, CP):
        # all-to-all, collective-broadcast: a channel means cross-partition
        class A2:
            def __str__(self):
                return g + chan(mode == CP)
        a2 = A2()
        n = len(participants(mode, groups, R, P, 0))
        for d in (0, 1):
            dims = [N0, 3] if d == 0 else [3, N0]
            v = param("f32", dims)
            emit("a2a_%d" % d, "%s all-to-all(%s), %s, dimensions={%d}" % (shape("f32", dims), v, a2, d),
                 "all-to-all", v, d)
        vs = [param("s32", [2]) for _ in range(n)]
        tup = "(%s)" % ", ".join(["s32[2]"] * n) if n > 1 else "s32[2]"
        emit("a2a_tup", "%s all-to-all(%s), %s" % (tup, ", ".join(vs), a2),
             "all-to-all-tuple", tuple(vs))
        v = param("f64", [4])
        emit("cb", "f64[4] collective-broadcast(%s), %s" % (v, a2), "broadcast", v)
        # permute: a shift by one over the domain, one pair left out
        dom = R if mode == CR else P
        pairs = [(i, (i + 1) % dom) for i in range(dom)][: max(dom - 1, 1)] if dom > 1 else [(0, 0)]
        pt = "source_target_pairs={%s}" % ",".join("{%d,%d}" % pq for pq in pairs)
        v = param("f32", [2, 3])
        emit("cp", "f32[2,3] collective-permute(%s), %s%s" % (v, pt, chan(mode == CP)), "permute", v, pairs)
        body.append("  cps = (f32[2,3], f32[2,3], u32[], u32[]) collective-permute-start(%s), %s%s" % (
            v, pt, chan(mode == CP)))
        emit("cpd", "f32[2,3] collective-permute-done(cps)", "permute", v, pairs)
    if mode in (CR, CP):
        # send/recv pairs (partition ids with a positive channel_id, replica
        # ids with channel_id=0): the shift backwards, one pair left out, so
        # one device of each ring receives zeros
        dom = R if mode == CR else P
        pairs = [((i + 1) % dom, i) for i in range(dom)][: max(dom - 1, 1)] if dom > 1 else [(0, 0)]
        fa = 'frontend_attributes={_xla_send_recv_source_target_pairs="{%s}"}' % ",".join(
            "{%d,%d}" % pq for pq in pairs)
        v = param("s32", [3, 2])
        c = chan(True) if mode == CP else ", channel_id=0"
        body.append("  tok = token[] after-all()")
        body.append("  rcv = (s32[3,2], u32[], token[]) recv(tok)%s, %s" % (c, fa))
        body.append("  snd = (s32[3,2], u32[], token[]) send(%s, tok)%s, %s" % (v, c, fa))
        body.append("  rcvd = (s32[3,2], token[]) recv-done(rcv)%s" % c)
        body.append("  sndd = token[] send-done(snd)%s" % c)
        emit("sr", "s32[3,2] get-tuple-element(rcvd), index=0", "permute", v, pairs)
    emit("rid", "u32[] replica-id()", "replica-id")
    emit("pid", "u32[] partition-id()", "partition-id")
    root = "  ROOT out = (%s) tuple(%s)" % (
        ", ".join(b.split(" = ")[1].split(" ")[0] if not b.split(" = ")[1].startswith("(")
                  else b.split(" = ")[1][: b.split(" = ")[1].index(")") + 1] for b in [
                      l for l in body if l.split(" = ")[0].strip() in [r[0] for r in results]]),
        ", ".join(r[0] for r in results))
    text = "HloModule m, replica_count=%d, num_partitions=%d\n\n%s\nENTRY e {\n%s\n%s\n}\n" % (
        R, P, "\n".join(dict.fromkeys(comps)), "\n".join(body), root)
    return text, params, results


def value(t, dims):
    if t in ("f32", "f64", "f16"):
        return (RNG.integers(-64, 64, dims) / 8).astype(DT[t])
    if t == "c64":
        return (RNG.integers(-8, 8, dims) + 1j * RNG.integers(-8, 8, dims)).astype(np.complex64)
    if t == "pred":
        return RNG.integers(0, 2, dims).astype(np.bool_)
    return RNG.integers(-8, 8, dims).astype(DT[t])


def model(kind, args, inputs, R, P, k, mode, groups):
    """The result of device k for one result of the module."""
    if kind == "replica-id":
        return np.uint32(k // P)
    if kind == "partition-id":
        return np.uint32(k % P)
    if kind == "permute":
        v, pairs = args
        part = participants(mode, groups, R, P, k, permute=True)
        me = part.index(k)
        src = [s for s, t in pairs if t == me]
        return inputs[part[src[0]]][v] if src else np.zeros_like(inputs[k][v])
    part = participants(mode, groups, R, P, k)
    pos = part.index(k)
    n = len(part)
    if kind == "all-reduce":
        v, op, t = args
        return fold([inputs[j][v] for j in part], op, DT[t])
    if kind == "all-reduce-tuple":
        (x, y), op = args
        return (fold([inputs[j][x] for j in part], op, np.float32),
                fold([inputs[j][y] for j in part], op, np.float32))
    if kind == "all-gather":
        v, d = args
        return np.concatenate([inputs[j][v] for j in part], axis=d)
    if kind == "reduce-scatter":
        v, d, op, t = args
        full = fold([inputs[j][v] for j in part], op, DT[t])
        return np.split(full, n, axis=d)[pos]
    if kind == "all-to-all":
        v, d = args
        return np.concatenate([np.split(inputs[j][v], n, axis=d)[pos] for j in part], axis=d)
    if kind == "all-to-all-tuple":
        vs = args[0]
        return tuple(inputs[j][vs[pos]] for j in part)
    if kind == "broadcast":
        return inputs[part[0]][args[0]]
    raise ValueError(kind)


def flatten(x):
    return [a for e in x for a in flatten(e)] if isinstance(x, tuple) else [np.asarray(x)]


def case(R, P, mode, groups, iota, assignment=None):
    global runs, checks
    text, params, results = build(R, P, mode, groups, iota)
    ndev = R * P
    ids = assignment or list(range(ndev))
    inputs = [{name: value(t, dims) for name, t, dims in params} for _ in range(ndev)]  # by logical
    tag = "%dx%d %s %s%s" % (R, P, mode, iota or groups, " assignment=%s" % ids if assignment else "")
    with tempfile.TemporaryDirectory() as d:
        mod = os.path.join(d, "m.hlo")
        with open(mod, "w") as f:
            f.write(text)
        npz = os.path.join(d, "in.npz")
        np.savez(npz, **{"d%d.%s" % (ids[k], name): inputs[k][name] for k in range(ndev) for name in inputs[k]})
        out = os.path.join(d, "out.npz")
        cmd = [HLO_RUN, mod, "--inputs", npz, "-o", out] + EXTRA
        if MPI_NP:
            np_ = min(MPI_NP, ndev)
            while ndev % np_:
                np_ -= 1
            cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(np_)] + cmd + [
                "--mpi", "--devices-per-rank", str(ndev // np_)]
        if assignment:
            cmd += ["--device-assignment", ",".join(map(str, assignment))]
        runs += 1
        r = subprocess.run(cmd, capture_output=True, text=True, env=MPI_ENV if MPI_NP else None)
        if r.returncode != 0:
            failures.append("%s: hlo-run failed: %s" % (tag, r.stderr.strip()[:600]))
            return
        got = np.load(out)
        for k in range(ndev):
            leaf = 0
            for name, kind, args in results:
                for want in flatten(model(kind, args, inputs, R, P, k, mode, groups)):
                    checks += 1
                    # one device: the single-device names out<N>
                    key = "d%d.arr_%d" % (ids[k], leaf) if ndev > 1 else "out%d" % leaf
                    leaf += 1
                    g = got[key] if key in got else None
                    if g is None or g.shape != want.shape or g.dtype != want.dtype or \
                            g.tobytes() != want.astype(g.dtype).tobytes():
                        failures.append("%s: device %d %s: got %s want %s" % (
                            tag, ids[k], name, None if g is None else g.tolist(), want.tolist()))


def group_forms(space):
    """(groups, iota text) variants over ids 0..space-1."""
    yield [], None
    if space >= 2 and space % 2 == 0:
        perm = [int(i) for i in RNG.permutation(space)]
        yield [perm[: space // 2], perm[space // 2:]], None
        h = space // 2
        yield [list(range(g, space, 2)) for g in range(2)], "[2,%d]<=[%d,2]T(1,0)" % (h, h)


COUNTS = ((1, 1), (2, 1), (4, 1), (1, 2), (1, 4), (2, 2), (8, 1), (4, 2), (8, 2))
for R, P in COUNTS if not MPI_NP else ((4, 1), (2, 2), (8, 2)):
    for mode in (CR, CP, CRP, FLAT):
        if mode == CP and P == 1 and R > 1:
            continue
        space = {CR: R, CP: P, CRP: R, FLAT: R * P}[mode]
        for groups, iota in group_forms(space):
            if mode == FLAT and not groups:
                groups = [list(range(space))]
            case(R, P, mode, groups, iota)
case(2, 2, CRP, [], None, assignment=[3, 1, 0, 2])
case(4, 1, CR, [[2, 0], [3, 1]], None, assignment=[1, 2, 3, 0])

print("collectives_diff: %d runs, %d checks, %d failed" % (runs, checks, len(failures)))
for f in failures[:20]:
    print("FAIL:", f)
