"""Write a Transformer Engine fused-attention module and the same attention in
plain HLO ops, for pair.py to run on the same random inputs.

usage: attn_gen.py OUT_PREFIX key=value...
  layout=0..9 (NVTE_QKV_Layout: SB3HD SBH3D SBHD_SB2HD SBHD_SBH2D SBHD_SBHD_SBHD,
  then the same five with BS)
  b=2 sq=8 skv=8 h=4 g=2 d=8 dv=8 mask=0..5 bias=0|1|2 bb=1 (bias batch)
  cuq=0,5,13 cukv=0,8,16 (cumulative lengths; default full) wl=-1 wr=-1
  scale=0.35 bwd=0|1 type=f32
Writes OUT_PREFIX.te.txt (the custom calls) and OUT_PREFIX.plain.txt.

The plain module is the textbook definition written out op by op
(TransformerEngine's fused_attn.h: P = scale Q K^T + bias, S = masked softmax,
O = S V; the backward dP = dO V^T, dS = P (dP - rowsum(dO O)), dQ = scale dS K,
dK = scale dS^T Q, dV = P^T dO, summed over the query heads sharing a K/V head).
The statistics are max + log(sum exp) of each row of masked logits; a row with
no key gives zeros (output and statistics).
"""
import sys

A = dict(layout=9, b=2, sq=8, skv=8, h=4, g=2, d=8, dv=8, mask=0, bias=0, bb=1,
         cuq=None, cukv=None, wl=-1, wr=-1, scale=0.35, bwd=0, type="f32")
for kv in sys.argv[2:]:
    k, v = kv.split("=")
    A[k] = v if k in ("cuq", "cukv", "type") else (float(v) if k == "scale" else int(v))
prefix = sys.argv[1]
B, SQ, SKV, H, G, D, DV = (A[k] for k in ("b", "sq", "skv", "h", "g", "d", "dv"))
R = H // G
T = A["type"]
L = A["layout"]
bshd = L >= 5
grp = L % 5
ax = 3 if grp in (1, 3) else 2  # the axis of the packed 3 or 2
if grp != 4:
    DV = D
cuq = [int(x) for x in A["cuq"].split(",")] if A["cuq"] else [i * SQ for i in range(B + 1)]
cukv = [int(x) for x in A["cukv"].split(",")] if A["cukv"] else [i * SKV for i in range(B + 1)]
lq = [cuq[i + 1] - cuq[i] for i in range(B)]
lkv = [cukv[i + 1] - cukv[i] for i in range(B)]
padding = A["mask"] in (1, 3, 5)
if not padding:
    lq, lkv = [SQ] * B, [SKV] * B


def outer(s):
    return [B, s] if bshd else [s, B]


def sh(dims, t=T):
    return "%s[%s]" % (t, ",".join(str(x) for x in dims))


def lst(v):
    return "{%s}" % ",".join(str(x) for x in v)


# operand shapes
if grp == 0:
    ops = [outer(SQ) + [3, H, D], None, None]
elif grp == 1:
    ops = [outer(SQ) + [H, 3, D], None, None]
elif grp == 2:
    ops = [outer(SQ) + [H, D], outer(SKV) + [2, G, D], None]
elif grp == 3:
    ops = [outer(SQ) + [H, D], outer(SKV) + [G, 2, D], None]
else:
    ops = [outer(SQ) + [H, D], outer(SKV) + [G, D], outer(SKV) + [G, DV]]
oshape = outer(SQ) + [H, DV]
bshape = [A["bb"], H, SQ, SKV]

params = []  # (name, dims)
for i, n in enumerate(("q", "k", "v")):
    if ops[i] is not None:
        params.append((n, ops[i]))
if A["bias"]:
    params.append(("bias", bshape))
if A["bwd"]:
    params.append(("dout", oshape))


def head(f, name, comps=""):
    f.write("HloModule %s\n%sENTRY e {\n" % (name, comps))
    for i, (n, dims) in enumerate(params):
        f.write("  %s = %s parameter(%d)\n" % (n, sh(dims), i))


def roots():
    r = [("out", oshape, T), ("stats", [B, H, SQ, 1], "f32")]
    if A["bwd"]:
        r += [("dq", ops[0], T)]
        r += [("dk", ops[1], T)] if ops[1] else [("dk", [0], T)]
        r += [("dv", ops[2], T)] if ops[2] else [("dv", [0], T)]
        if A["bias"]:
            r += [("dbias", bshape, T)]
    return r


cfg = ("{attn_heads = %d : i64, bias_batch = %d : i64, bias_heads = %d : i64, bias_type = %d : i64, "
       "deterministic = false, dropout_probability = 0.000000e+00 : f64, input_batch = %d : i64, "
       "is_training = true, kv_max_seqlen = %d : i64, mask_type = %d : i64, max_segments_per_seq = 1 : i64, "
       "num_gqa_groups = %d : i64, q_max_seqlen = %d : i64, qk_head_dim = %d : i64, qkv_layout = %d : i64, "
       "scaling_factor = %e : f64, v_head_dim = %d : i64, window_size_left = %d : i64, window_size_right = %d : i64}"
       % (H, A["bb"] if A["bias"] else 0, H if A["bias"] else 0, A["bias"], B, SKV, A["mask"], G, SQ, D, L,
          A["scale"], DV, A["wl"], A["wr"]))

with open(prefix + ".te.txt", "w") as f:
    head(f, "te_attn")
    f.write("  e0 = %s constant({})\n  z0 = f32[0] constant({})\n" % sh([0]))
    names = [n if ops[i] is not None else "e0" for i, n in enumerate(("q", "k", "v"))]
    bias = "bias" if A["bias"] else "e0"
    f.write("  seed = u32[2] constant({7, 9})\n")
    f.write("  cuq = s32[%d] constant(%s)\n  cukv = s32[%d] constant(%s)\n" % (B + 1, lst(cuq), B + 1, lst(cukv)))
    z6 = ", ".join(["z0"] * 6)
    f.write("  fwd = (%s, f32[%d,%d,%d,1], u32[2,4], u8[16]) custom-call(%s, %s, seed, cuq, cukv, %s), "
            "custom_call_target=\"te_fused_attn_forward_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config=%s\n"
            % (sh(oshape), B, H, SQ, ", ".join(names), bias, z6, cfg))
    f.write("  out = %s get-tuple-element(fwd), index=0\n" % sh(oshape))
    f.write("  stats = f32[%d,%d,%d,1] get-tuple-element(fwd), index=1\n" % (B, H, SQ))
    f.write("  rng = u32[2,4] get-tuple-element(fwd), index=2\n")
    if A["bwd"]:
        dshapes = [ops[i] if ops[i] else [0] for i in range(3)]
        f.write("  bwd = (%s, %s, %s, %s, u8[16]) custom-call(%s, %s, stats, rng, out, dout, cuq, cukv, %s), "
                "custom_call_target=\"te_fused_attn_backward_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config=%s\n"
                % (sh(dshapes[0]), sh(dshapes[1]), sh(dshapes[2]), sh(bshape if A["bias"] else [0]),
                   ", ".join(names), bias, z6, cfg))
        for i, n in enumerate(("dq", "dk", "dv", "dbias")):
            dims = dshapes[i] if i < 3 else (bshape if A["bias"] else [0])
            f.write("  %s = %s get-tuple-element(bwd), index=%d\n" % (n, sh(dims), i))
    rs = roots()
    outs = []
    for n, d, t in rs:  # results of a 16-bit type are compared as f32 (numpy has no bf16)
        if t != "f32":
            f.write("  %s_f = %s convert(%s)\n" % (n, sh(d, "f32"), n))
            n = n + "_f"
        outs.append(n)
    f.write("  ROOT r = (%s) tuple(%s)\n}\n" % (", ".join(sh(d, "f32") for _, d, t in rs), ", ".join(outs)))

# ---- the plain module: everything in f32 on [B, heads, S, D] ----
lines = []
cnt = [0]


def op(dims, text, t="f32"):
    cnt[0] += 1
    n = "t%d" % cnt[0]
    lines.append("  %s = %s %s" % (n, sh(dims, t), text))
    return n


def cvt(x, dims, t):
    return x if t == "f32" else op(dims, "convert(%s)" % x, t)


def to_bhsd(x, dims_in):
    """[B,S,n,d] or [S,B,n,d] -> [B,n,S,d]"""
    perm = [0, 2, 1, 3] if bshd else [1, 2, 0, 3]
    return op([dims_in[p] for p in perm], "transpose(%s), dimensions=%s" % (x, lst(perm)))


def from_bhsd(x, dims):
    """[B,n,S,d] -> the operand layout"""
    perm = [0, 2, 1, 3] if bshd else [2, 0, 1, 3]
    return op([dims[p] for p in perm], "transpose(%s), dimensions=%s" % (x, lst(perm)))


def part(x, dims5, axis, idx):
    lo = [0] * 5
    hi = list(dims5)
    lo[axis], hi[axis] = idx, idx + 1
    sl = "slice(%s), slice={%s}" % (x, ",".join("[%d:%d]" % (a, b) for a, b in zip(lo, hi)))
    sd = list(dims5)
    sd[axis] = 1
    y = op(sd, sl)
    rd = [sd[i] for i in range(5) if i != axis]
    return op(rd, "reshape(%s)" % y), rd


def scalar(v, dims, t="f32"):
    c = op([], "constant(%s)" % v, t)
    return op(dims, "broadcast(%s), dimensions={}" % c, t)


def binop(o, a, b, dims, t="f32"):
    return op(dims, "%s(%s, %s)" % (o, a, b), t)


lines.append("  fmax = f32[] constant(-inf)")
qf = cvt("q", ops[0], T)
if grp <= 1:
    (q3, dq3), (k3, dk3), (v3, dv3) = (part(qf, ops[0], ax, i) for i in range(3))
elif grp <= 3:
    q3, dq3 = qf, ops[0]
    kvf = cvt("k", ops[1], T)
    (k3, dk3), (v3, dv3) = (part(kvf, ops[1], ax, i) for i in range(2))
else:
    q3, dq3 = qf, ops[0]
    k3, dk3 = cvt("k", ops[1], T), ops[1]
    v3, dv3 = cvt("v", ops[2], T), ops[2]
Q = to_bhsd(q3, dq3)
K = to_bhsd(k3, dk3)
V = to_bhsd(v3, dv3)


def heads(x, s, d):  # [B,G,s,d] -> [B,H,s,d]
    y = op([B, G, R, s, d], "broadcast(%s), dimensions={0,1,3,4}" % x)
    return op([B, H, s, d], "reshape(%s)" % y)


Kh, Vh = heads(K, SKV, D), heads(V, SKV, DV)
S4 = [B, H, SQ, SKV]
P0 = op(S4, "dot(%s, %s), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, "
        "rhs_contracting_dims={3}" % (Q, Kh))
sc = scalar(repr(A["scale"]), S4)
if A["bias"]:
    bf = cvt("bias", bshape, T)
    if A["bb"] == 1:
        b3 = op([H, SQ, SKV], "reshape(%s)" % bf)
        bb = op(S4, "broadcast(%s), dimensions={1,2,3}" % b3)
    else:
        bb = bf
if A["bias"] == 1:
    logit = binop("multiply", binop("add", P0, bb, S4), sc, S4)
elif A["bias"] == 2:
    logit = binop("add", binop("multiply", P0, sc, S4), bb, S4)
else:
    logit = binop("multiply", P0, sc, S4)
# mask from iotas: i row, j column, per-batch lengths and diagonal
I = op(S4, "iota(), iota_dimension=2", "s32")
J = op(S4, "iota(), iota_dimension=3", "s32")
top_left = A["mask"] in (2, 3)
diag = [0 if top_left else lkv[i] - lq[i] for i in range(B)]


def per_batch(v):
    c = op([B], "constant(%s)" % lst(v), "s32")
    return op(S4, "broadcast(%s), dimensions={0}" % c, "s32")


ok = op(S4, "broadcast(%s), dimensions={}" % op([], "constant(true)", "pred"), "pred")
LQ, LKV, DG = per_batch(lq), per_batch(lkv), per_batch(diag)
ok = binop("and", ok, op(S4, "compare(%s, %s), direction=LT" % (I, LQ), "pred"), S4, "pred")
ok = binop("and", ok, op(S4, "compare(%s, %s), direction=LT" % (J, LKV), "pred"), S4, "pred")
ID = binop("add", I, DG, S4, "s32")
if A["mask"] >= 2:
    ok = binop("and", ok, op(S4, "compare(%s, %s), direction=LE" % (J, ID), "pred"), S4, "pred")
if A["wr"] >= 0:
    lim = binop("add", ID, op(S4, "broadcast(%s), dimensions={}" % op([], "constant(%d)" % A["wr"], "s32"), "s32"), S4, "s32")
    ok = binop("and", ok, op(S4, "compare(%s, %s), direction=LE" % (J, lim), "pred"), S4, "pred")
if A["wl"] >= 0:
    lim = binop("subtract", ID, op(S4, "broadcast(%s), dimensions={}" % op([], "constant(%d)" % A["wl"], "s32"), "s32"), S4, "s32")
    ok = binop("and", ok, op(S4, "compare(%s, %s), direction=GE" % (J, lim), "pred"), S4, "pred")
ninf = scalar("-inf", S4)
Sm = op(S4, "select(%s, %s, %s)" % (ok, logit, ninf))
R3 = [B, H, SQ]
m = op(R3, "reduce(%s, fmax), dimensions={3}, to_apply=max" % Sm)
isninf = op(R3, "compare(%s, %s), direction=EQ" % (m, scalar("-inf", R3)), "pred")
ms = op(R3, "select(%s, %s, %s)" % (isninf, scalar("0", R3), m))
E = op(S4, "exponential(%s)" % binop("subtract", Sm, op(S4, "broadcast(%s), dimensions={0,1,2}" % ms), S4))
lines.append("  fzero = f32[] constant(0)")
ssum = op(R3, "reduce(%s, fzero), dimensions={3}, to_apply=add" % E)
iszero = op(R3, "compare(%s, %s), direction=EQ" % (ssum, scalar("0", R3)), "pred")
ss = op(R3, "select(%s, %s, %s)" % (iszero, scalar("1", R3), ssum))
P = binop("divide", E, op(S4, "broadcast(%s), dimensions={0,1,2}" % ss), S4)
lse = binop("add", ms, op(R3, "log(%s)" % ss), R3)
stats = op([B, H, SQ, 1], "reshape(%s)" % lse)
O4 = op([B, H, SQ, DV], "dot(%s, %s), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, "
        "rhs_contracting_dims={2}" % (P, Vh))
res = [cvt(from_bhsd(O4, [B, H, SQ, DV]), oshape, "f32"), stats]
if T != "f32":
    res[0] = op(oshape, "convert(%s)" % from_bhsd(O4, [B, H, SQ, DV]), T)

if A["bwd"]:
    dO = to_bhsd(cvt("dout", oshape, T), oshape)
    dP = op(S4, "dot(%s, %s), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, "
            "rhs_contracting_dims={3}" % (dO, Vh))
    Di = op(R3, "reduce(%s, fzero), dimensions={3}, to_apply=add" % binop("multiply", dO, O4, [B, H, SQ, DV]))
    dS = binop("multiply", P, binop("subtract", dP, op(S4, "broadcast(%s), dimensions={0,1,2}" % Di), S4), S4)
    dQ = op([B, H, SQ, D], "dot(%s, %s), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, "
            "rhs_contracting_dims={2}" % (dS, Kh))
    dQ = binop("multiply", dQ, scalar(repr(A["scale"]), [B, H, SQ, D]), [B, H, SQ, D])
    dKh = op([B, H, SKV, D], "dot(%s, %s), lhs_batch_dims={0,1}, lhs_contracting_dims={2}, rhs_batch_dims={0,1}, "
             "rhs_contracting_dims={2}" % (dS, Q))
    dKh = binop("multiply", dKh, scalar(repr(A["scale"]), [B, H, SKV, D]), [B, H, SKV, D])
    dVh = op([B, H, SKV, DV], "dot(%s, %s), lhs_batch_dims={0,1}, lhs_contracting_dims={2}, rhs_batch_dims={0,1}, "
             "rhs_contracting_dims={2}" % (P, dO))

    def groups(x, d):
        y = op([B, G, R, SKV, d], "reshape(%s)" % x)
        return op([B, G, SKV, d], "reduce(%s, fzero), dimensions={2}, to_apply=add" % y)

    dK, dV = groups(dKh, D), groups(dVh, DV)
    gq = from_bhsd(dQ, [B, H, SQ, D])
    gk = from_bhsd(dK, [B, G, SKV, D])
    gv = from_bhsd(dV, [B, G, SKV, DV])
    if grp <= 1:
        parts = [op(outer(SQ) + ([1, H, D] if ax == 2 else [H, 1, D]), "reshape(%s)" % x) for x in (gq, gk, gv)]
        g0 = op(ops[0], "concatenate(%s), dimensions={%d}" % (", ".join(parts), ax))
        grads = [(g0, ops[0]), (op([0], "constant({})"), [0]), (op([0], "constant({})"), [0])]
    elif grp <= 3:
        parts = [op(outer(SKV) + ([1, G, D] if ax == 2 else [G, 1, D]), "reshape(%s)" % x) for x in (gk, gv)]
        g1 = op(ops[1], "concatenate(%s), dimensions={%d}" % (", ".join(parts), ax))
        grads = [(gq, ops[0]), (g1, ops[1]), (op([0], "constant({})"), [0])]
    else:
        grads = [(gq, ops[0]), (gk, ops[1]), (gv, ops[2])]
    for x, dims in grads:
        res.append(x if T == "f32" else op(dims, "convert(%s)" % x, T))
    if A["bias"]:
        db = dS if A["bias"] == 2 else binop("multiply", dS, sc, S4)
        if A["bb"] == 1:
            db = op([1, H, SQ, SKV], "reshape(%s)" % op([H, SQ, SKV], "reduce(%s, fzero), dimensions={0}, to_apply=add" % db))
        res.append(db if T == "f32" else op(bshape, "convert(%s)" % db, T))

with open(prefix + ".plain.txt", "w") as f:
    head(f, "te_attn_plain", "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
         "  ROOT m = f32[] maximum(a, b)\n}\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
         "  ROOT s = f32[] add(a, b)\n}\n")
    rs = roots()
    res = [x if t == "f32" else op(d, "convert(%s)" % x) for x, (_, d, t) in zip(res, rs)]
    for l in lines:
        f.write(l + "\n")
    f.write("  ROOT r = (%s) tuple(%s)\n}\n" % (", ".join(sh(d, "f32") for _, d, t in rs), ", ".join(res)))
