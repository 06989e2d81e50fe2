#!/usr/bin/env python3
"""Runs valgrind memcheck (--leak-check=full --error-exitcode=1) over a
representative subset: hlo-fmt, hlo-verify, hlo-index, hlo-run, hlo-json,
hlo-shape on a few corpus files and hostile inputs.  Prints one line per run
and "memcheck: N runs, M failed".  Under an ASan build (valgrind cannot run
it) prints "memcheck: skipped (ASan build)".

usage: memcheck.py CORPUS TESTDATA"""
import os
import shutil
import subprocess
import sys

corpus, testdata = sys.argv[1], sys.argv[2]
tool = shutil.which("hlo-fmt")
if not tool or not shutil.which("valgrind"):
    print("memcheck: hlo-fmt or valgrind not found")
    sys.exit(1)
if b"__asan_init" in open(tool, "rb").read():
    print("memcheck: skipped (ASan build)")
    sys.exit(0)

C = lambda n: os.path.join(corpus, n)
B = lambda n: os.path.join(testdata, "bad", n)
add = C("xla__tools__data__add.hlo")
conv = C("xla__tests__isolated_convolution.hlo")
scatter = C("xla__backends__gpu__codegen__emitters__tests__scatter__add.hlo")
runs = [
    ["hlo-fmt", conv], ["hlo-fmt", B("trunc_05.hlo")],
    ["hlo-verify", scatter], ["hlo-verify", B("cycle_control.hlo")], ["hlo-verify", B("attr_slice_oob.hlo")],
    ["hlo-shape", scatter],
    ["hlo-index", scatter], ["hlo-index", "--all", add],
    ["hlo-json", conv], ["hlo-fmt", "--from-json", B("json_dangling.json")],
    ["hlo-run", "--random", add], ["hlo-run", "--random", scatter],
    ["hlo-run", "--max-while-iterations=5", B("while_forever_run.hlo")],
    ["hlo-run", B("run_module.hlo"), B("npy_truncated_data.npy")],
    ["hlo-run", "--spec=" + B("spec_dup_inputs.yaml")],
]
failed = 0
for r in runs:
    p = subprocess.run(["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
                        "--errors-for-leak-kinds=definite,indirect,possible"] + r,
                       capture_output=True, text=True, errors="replace")
    bad = p.returncode == 99  # --error-exitcode: a memory error or leak
    what = " ".join(os.path.basename(x) for x in r)
    print("%s %s" % ("FAIL" if bad else "ok", what))
    if bad:
        failed += 1
        sys.stdout.write(p.stderr[-3000:])
print("memcheck: %d runs, %d failed" % (len(runs), failed))
