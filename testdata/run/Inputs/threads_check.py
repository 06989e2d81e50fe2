#!/usr/bin/env python3
"""Runs modules with hlo-run --threads 1, 2 and 3 and checks that every output
has the same bytes, as docs/fast.md ("Threads") promises for every kernel:
work items are fixed blocks whose results are combined in a fixed order,
whatever the number of threads.  The modules are each kernel family at a
size large enough to be split across threads (fused loops, f16 chains,
row/column/full reductions, softmax, sort, transpose, dot, dot with an
epilogue, convolutions ordinary and depthwise, batch norm, gather, scatter,
broadcast) and every runnable module of the shared corpus.  The ISA level
is the one HLO_ISA selects.  Prints one line per module and
"threads_check: N modules, M failed"."""
import os
import subprocess
import sys
import tempfile

HLO_RUN = os.environ.get("HLO_RUN", "hlo-run")
THREADS = (1, 2, 3)

ADD = "add { x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] add(x, y) }\n"
MAX = "max { x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] maximum(x, y) }\n"
ADD16 = "add16 { x = f16[] parameter(0)\n y = f16[] parameter(1)\n ROOT s = f16[] add(x, y) }\n"
LT = "lt { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = pred[] compare(a, b), direction=LT }\n"

MODULES = {
    "fused_loop": """HloModule m
f { p0 = f32[1024,1024] parameter(0)
  p1 = f32[1024] parameter(1)
  b = f32[1024,1024] broadcast(p1), dimensions={1}
  t = f32[1024,1024] tanh(p0)
  m = f32[1024,1024] multiply(t, b)
  ROOT a = f32[1024,1024] add(m, p0) }
ENTRY e { a = f32[1024,1024] parameter(0)
  b = f32[1024] parameter(1)
  ROOT r = f32[1024,1024] fusion(a, b), kind=kLoop, calls=f }
""",
    "f16_chain": """HloModule m
ENTRY e { a = f16[2048,1024] parameter(0)
  b = f16[2048,1024] parameter(1)
  e = f16[2048,1024] exponential(a)
  m = f16[2048,1024] multiply(e, b)
  ROOT s = f16[2048,1024] subtract(m, a) }
""",
    "reductions": "HloModule m\n" + ADD + MAX + """ENTRY e { a = f32[1024,2048] parameter(0)
  z = f32[] constant(0)
  ninf = f32[] constant(-inf)
  rows = f32[1024] reduce(a, z), dimensions={1}, to_apply=add
  cols = f32[2048] reduce(a, z), dimensions={0}, to_apply=add
  full = f32[] reduce(a, z), dimensions={0,1}, to_apply=add
  mx = f32[1024] reduce(a, ninf), dimensions={1}, to_apply=max
  ROOT t = (f32[1024], f32[2048], f32[], f32[1024]) tuple(rows, cols, full, mx) }
""",
    "f16_reduce": "HloModule m\n" + ADD16 + """ENTRY e { a = f16[512,4096] parameter(0)
  z = f16[] constant(0)
  ROOT r = f16[512] reduce(a, z), dimensions={1}, to_apply=add16 }
""",
    "softmax": "HloModule m\n" + ADD + MAX + """ENTRY e { a = f32[1024,1024] parameter(0)
  ninf = f32[] constant(-inf)
  z = f32[] constant(0)
  m = f32[1024] reduce(a, ninf), dimensions={1}, to_apply=max
  mb = f32[1024,1024] broadcast(m), dimensions={0}
  d = f32[1024,1024] subtract(a, mb)
  x = f32[1024,1024] exponential(d)
  s = f32[1024] reduce(x, z), dimensions={1}, to_apply=add
  sb = f32[1024,1024] broadcast(s), dimensions={0}
  ROOT y = f32[1024,1024] divide(x, sb) }
""",
    "sort": "HloModule m\n" + LT + """ENTRY e { a = f32[1048576] parameter(0)
  ROOT s = f32[1048576] sort(a), dimensions={0}, to_apply=lt }
""",
    "sort_rows": "HloModule m\n" + """lt2 { a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT }
ENTRY e { a = f32[256,4096] parameter(0)
  i = s32[256,4096] iota(), iota_dimension=1
  ROOT s = (f32[256,4096], s32[256,4096]) sort(a, i), dimensions={1}, is_stable=true, to_apply=lt2 }
""",
    "transpose": """HloModule m
ENTRY e { a = f32[1024,2048] parameter(0)
  ROOT t = f32[2048,1024] transpose(a), dimensions={1,0} }
""",
    "dot": """HloModule m
ENTRY e { a = f32[512,768] parameter(0)
  b = f32[768,640] parameter(1)
  ROOT d = f32[512,640] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0} }
""",
    "batched_dot": """HloModule m
ENTRY e { a = f32[16,128,256] parameter(0)
  b = f32[16,256,128] parameter(1)
  ROOT d = f32[16,128,128] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1} }
""",
    "dot_epilogue": """HloModule m
f { p0 = f32[512,512] parameter(0)
  p1 = f32[512,512] parameter(1)
  p2 = f32[512] parameter(2)
  d = f32[512,512] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[512,512] broadcast(p2), dimensions={1}
  a = f32[512,512] add(d, b)
  z = f32[] constant(0)
  zb = f32[512,512] broadcast(z), dimensions={}
  ROOT r = f32[512,512] maximum(a, zb) }
ENTRY e { a = f32[512,512] parameter(0)
  b = f32[512,512] parameter(1)
  c = f32[512] parameter(2)
  ROOT r = f32[512,512] fusion(a, b, c), kind=kOutput, calls=f }
""",
    "conv3x3": """HloModule m
ENTRY e { x = f32[8,32,32,32] parameter(0)
  k = f32[3,3,32,64] parameter(1)
  ROOT c = f32[8,32,32,64] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f }
""",
    "depthwise": """HloModule m
ENTRY e { x = f32[8,56,56,96] parameter(0)
  k = f32[3,3,1,96] parameter(1)
  ROOT c = f32[8,56,56,96] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=96 }
""",
    "batch_norm": """HloModule m
ENTRY e { x = f32[16,32,32,64] parameter(0)
  s = f32[64] parameter(1)
  o = f32[64] parameter(2)
  ROOT b = (f32[16,32,32,64], f32[64], f32[64]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=3 }
""",
    "gather": """HloModule m
ENTRY e { a = f32[4096,256] parameter(0)
  i = s32[65536,1] parameter(1)
  c = s32[] constant(4095)
  z = s32[] constant(0)
  cb = s32[65536,1] broadcast(c), dimensions={}
  zb = s32[65536,1] broadcast(z), dimensions={}
  ic = s32[65536,1] clamp(zb, i, cb)
  ROOT g = f32[65536,256] gather(a, ic), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,256} }
""",
    "scatter_add": "HloModule m\n" + ADD + """ENTRY e { a = f32[1024,512] parameter(0)
  i = s32[8192,1] parameter(1)
  u = f32[8192,512] parameter(2)
  ROOT s = f32[1024,512] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add }
""",
    "broadcast": """HloModule m
ENTRY e { a = f32[4096] parameter(0)
  ROOT b = f32[1024,4096] broadcast(a), dimensions={1} }
""",
}

# corpus modules too slow to run three times here (see corpus_run.py)
CORPUS_SKIP = ("mobilenet_v2", "sharded_computation", "isolated_convolution",
               "print_indexing_test", "invalid_concat", "hlo_to_mhlo__tests__import")


def run(path, threads, out):
    cmd = [HLO_RUN, "--random=7", "--threads", str(threads), path, "-o", out]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def check(name, path, d):
    blobs = []
    for t in THREADS:
        out = os.path.join(d, "t%d.npz" % t)
        r = run(path, t, out)
        if r.returncode != 0:
            return "FAIL %s: --threads %d exit %d: %s" % (name, t, r.returncode, r.stderr.strip()[:300])
        with open(out, "rb") as f:
            blobs.append(f.read())
    for t, b in zip(THREADS[1:], blobs[1:]):
        if b != blobs[0]:
            return "FAIL %s: --threads %d differs from --threads 1" % (name, t)
    return "PASS %s: the same bytes with %s threads" % (name, "/".join(map(str, THREADS)))


def main():
    corpus = sys.argv[1]
    failed = n = 0
    with tempfile.TemporaryDirectory() as d:
        items = []
        for name, text in MODULES.items():
            p = os.path.join(d, name + ".hlo")
            with open(p, "w") as f:
                f.write(text)
            items.append((name, p))
        for f in sorted(os.listdir(corpus)):
            if f.endswith(".hlo") and not any(s in f for s in CORPUS_SKIP):
                items.append((f, os.path.join(corpus, f)))
        for name, p in items:
            line = check(name, p, d)
            print(line)
            n += 1
            failed += line.startswith("FAIL")
    print("threads_check: %d modules, %d failed" % (n, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
