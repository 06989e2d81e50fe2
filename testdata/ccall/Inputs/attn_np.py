"""Check a module from attn_gen.py (f32, separate q/k/v layouts 4 or 9)
against attention computed with numpy in float64 on inputs numpy draws.

usage: attn_np.py PREFIX key=value...   (the attn_gen.py arguments)
Runs hlo-run PREFIX.te.txt --inputs (q, k, v, [bias], [dout]) and prints
"numpy: N results within R" with R the largest |a - b| / (1 + max |b|), or
the first result that differs by more than 1e-5 of that, exiting 1.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

A = dict(layout=9, b=2, sq=8, skv=8, h=4, g=2, d=8, dv=8, mask=0, bias=0, bb=1,
         cuq=None, cukv=None, wl=-1, wr=-1, scale=0.35, bwd=0)
for kv in sys.argv[2:]:
    k, v = kv.split("=")
    A[k] = v if k in ("cuq", "cukv", "type") else (float(v) if k == "scale" else int(v))
assert A["layout"] in (4, 9), "separate q, k, v layouts only"
B, SQ, SKV, H, G, D, DV = (A[k] for k in ("b", "sq", "skv", "h", "g", "d", "dv"))
bshd = A["layout"] == 9
rng = np.random.default_rng(11)


def draw(shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def lay(s, n, d):  # operand shape for [B, s, n, d]
    return (B, s, n, d) if bshd else (s, B, n, d)


def to_bhsd(x):  # operand -> [B, n, s, d]
    return x.transpose(0, 2, 1, 3) if bshd else x.transpose(1, 2, 0, 3)


def from_bhsd(x):
    return x.transpose(0, 2, 1, 3) if bshd else x.transpose(2, 0, 1, 3)


ins = [draw(lay(SQ, H, D)), draw(lay(SKV, G, D)), draw(lay(SKV, G, DV))]
if A["bias"]:
    ins.append(draw((A["bb"], H, SQ, SKV)))
if A["bwd"]:
    ins.append(draw(lay(SQ, H, DV)))
cuq = [int(x) for x in A["cuq"].split(",")] if A["cuq"] else [i * SQ for i in range(B + 1)]
cukv = [int(x) for x in A["cukv"].split(",")] if A["cukv"] else [i * SKV for i in range(B + 1)]
pad = A["mask"] in (1, 3, 5)

q, k, v = (to_bhsd(x).astype(np.float64) for x in ins[:3])
R = H // G
k, v = np.repeat(k, R, axis=1), np.repeat(v, R, axis=1)  # query head h uses K/V head h // R
s = A["scale"]
L = np.einsum("bhid,bhjd->bhij", q, k)
bias = ins[3].astype(np.float64) if A["bias"] else 0
L = s * (L + bias) if A["bias"] == 1 else s * L + bias
keep = np.zeros((B, 1, SQ, SKV), bool)
for b in range(B):
    lq = cuq[b + 1] - cuq[b] if pad else SQ
    lkv = cukv[b + 1] - cukv[b] if pad else SKV
    diag = 0 if A["mask"] in (2, 3) else lkv - lq
    i, j = np.arange(SQ)[:, None], np.arange(SKV)[None, :]
    m = (i < lq) & (j < lkv)
    if A["mask"] >= 2:
        m &= j <= i + diag
    if A["wr"] >= 0:
        m &= j <= i + diag + A["wr"]
    if A["wl"] >= 0:
        m &= j >= i + diag - A["wl"]
    keep[b, 0] = m
L = np.where(keep, L, -np.inf)
mx = L.max(axis=3, keepdims=True)
mx = np.where(np.isfinite(mx), mx, 0)
E = np.where(keep, np.exp(L - mx), 0)
ssum = E.sum(axis=3, keepdims=True)
ssum = np.where(ssum == 0, 1, ssum)
P = E / ssum
O = np.einsum("bhij,bhjd->bhid", P, v)
want = [from_bhsd(O), mx + np.log(ssum)]
if A["bwd"]:
    dO = to_bhsd(ins[-1]).astype(np.float64)
    dP = np.einsum("bhid,bhjd->bhij", dO, v)
    dS = P * (dP - (dO * O).sum(axis=3, keepdims=True))
    dq = s * np.einsum("bhij,bhjd->bhid", dS, k)
    dk = (s * np.einsum("bhij,bhid->bhjd", dS, q)).reshape(B, G, R, SKV, D).sum(axis=2)
    dv = np.einsum("bhij,bhid->bhjd", P, dO).reshape(B, G, R, SKV, DV).sum(axis=2)
    want += [from_bhsd(dq), from_bhsd(dk), from_bhsd(dv)]
    if A["bias"]:
        db = dS if A["bias"] == 2 else s * dS
        want.append(db.sum(axis=0, keepdims=True) if A["bb"] == 1 else db)

with tempfile.TemporaryDirectory(prefix="attn_np") as d:
    inp, out = os.path.join(d, "in.npz"), os.path.join(d, "out.npz")
    np.savez(inp, *ins)
    subprocess.run(["hlo-run", sys.argv[1] + ".te.txt", "--inputs=" + inp, "-o", out], check=True)
    z = np.load(out)
    got = [z[n] for n in z.files]
if len(got) != len(want):
    print("numpy: %d results vs %d" % (len(got), len(want)))
    sys.exit(1)
worst = 0.0
for n, (a, b) in enumerate(zip(got, want)):
    b = b.reshape(a.shape)
    err = np.abs(a.astype(np.float64) - b).max(initial=0) / (1 + np.abs(b).max(initial=0))
    if err > 1e-5:
        print("numpy: result %d differs by %g of its largest value" % (n, err))
        sys.exit(1)
    worst = max(worst, err)
print("numpy: %d results within %s" % (len(got), "1e-6" if worst <= 1e-6 else "1e-5"))
