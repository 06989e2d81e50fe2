#!/usr/bin/env python3
"""Writes a large synthetic HLO module (default ~100 MB) for the parser
benchmark: many computations of elementwise chains, reductions and
dot/convolution-like ops with metadata, as XLA dumps look.  Not committed:
make bench generates it under the build directory.
Usage: gen_big_module.py OUT [MEGABYTES]"""
import sys

out, mb = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 100.0
target = int(mb * 1e6)
with open(out, "w") as f:
    f.write("HloModule big, entry_computation_layout={(f32[128,256]{1,0})->f32[128,256]{1,0}}\n\n")
    f.write("%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
            "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\n\n")
    size, k = 0, 0
    body = []
    f.write("ENTRY %main (p0: f32[128,256]) -> f32[128,256] {\n  %p0 = f32[128,256]{1,0} parameter(0)\n")
    prev = "p0"
    while size < target:
        k += 1
        meta = ' metadata={op_type="Mul" op_name="model/layer_%d/mul" source_file="model.py" source_line=%d}' % (k, k % 997)
        lines = [
            "  %%c.%d = f32[] constant(%g)\n" % (k, 0.5 + k % 7),
            "  %%b.%d = f32[128,256]{1,0} broadcast(f32[] %%c.%d), dimensions={}\n" % (k, k),
            "  %%m.%d = f32[128,256]{1,0} multiply(f32[128,256]{1,0} %%%s, f32[128,256]{1,0} %%b.%d),%s\n" % (k, prev, k, meta),
            "  %%t.%d = f32[128,256]{1,0} tanh(f32[128,256]{1,0} %%m.%d)\n" % (k, k),
            "  %%r.%d = f32[128]{0} reduce(f32[128,256]{1,0} %%t.%d, f32[] %%c.%d), dimensions={1}, to_apply=%%add\n" % (k, k, k),
            "  %%rb.%d = f32[128,256]{1,0} broadcast(f32[128]{0} %%r.%d), dimensions={0}\n" % (k, k),
            "  %%a.%d = f32[128,256]{1,0} add(f32[128,256]{1,0} %%t.%d, f32[128,256]{1,0} %%rb.%d)\n" % (k, k, k),
        ]
        for l in lines:
            f.write(l)
            size += len(l)
        prev = "a.%d" % k
    f.write("  ROOT %%out = f32[128,256]{1,0} copy(f32[128,256]{1,0} %%%s)\n}\n\n" % prev)
