#!/usr/bin/env python3
"""Writes a large synthetic HLO module (default ~100 MB) for the parser
benchmark, shaped like a real framework dump (the corpus's mobilenet_v2:
XLA's long form with operand shapes, metadata on nearly every
instruction): chains of broadcast/multiply/tanh/reduce/add.  Not
committed: make bench generates it under the build directory.
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
        def meta(op):
            return (', metadata={op_type="%s" op_name="model/layer_%d/%s" source_file="model.py" source_line=%d}'
                    % (op, k, op.lower(), k % 997))
        lines = [
            "  %%c.%d = f32[] constant(%g)%s\n" % (k, 0.5 + k % 7, meta("Const")),
            "  %%b.%d = f32[128,256]{1,0} broadcast(f32[] %%c.%d), dimensions={}%s\n" % (k, k, meta("BroadcastTo")),
            "  %%m.%d = f32[128,256]{1,0} multiply(f32[128,256]{1,0} %%%s, f32[128,256]{1,0} %%b.%d)%s\n" % (k, prev, k, meta("Mul")),
            "  %%t.%d = f32[128,256]{1,0} tanh(f32[128,256]{1,0} %%m.%d)%s\n" % (k, k, meta("Tanh")),
            "  %%r.%d = f32[128]{0} reduce(f32[128,256]{1,0} %%t.%d, f32[] %%c.%d), dimensions={1}, to_apply=%%add%s\n" % (k, k, k, meta("Sum")),
            "  %%rb.%d = f32[128,256]{1,0} broadcast(f32[128]{0} %%r.%d), dimensions={0}%s\n" % (k, k, meta("BroadcastTo")),
            "  %%a.%d = f32[128,256]{1,0} add(f32[128,256]{1,0} %%t.%d, f32[128,256]{1,0} %%rb.%d)%s\n" % (k, k, k, meta("AddV2")),
        ]
        for l in lines:
            f.write(l)
            size += len(l)
        prev = "a.%d" % k
    f.write("  ROOT %%out = f32[128,256]{1,0} copy(f32[128,256]{1,0} %%%s)\n}\n\n" % prev)
