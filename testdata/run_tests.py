#!/usr/bin/env python3
"""Runs every test suite of hlotools and ends with one line "N passed, N failed".

Suites: the unit-test programs (build/test/**), then lit over testdata/ (golden
.hlo tests, corpus checks against ../shared/corpus, numeric tests against numpy),
then pytest over python/tests (the hlotools package on the build's libhlo.so).
Exit status 1 if any test failed or a suite could not run, else 0."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
LIT = "/usr/lib/llvm-14/build/utils/lit/lit.py"


def run_unit():
    passed = failed = 0
    tdir = os.path.join(BUILD, "test")
    progs = []
    for d, _, files in os.walk(tdir):
        progs += [os.path.join(d, f) for f in files if os.access(os.path.join(d, f), os.X_OK)]
    if not progs:
        print("unit: no unit-test programs found in", tdir)
        return 0, 1
    for p in sorted(progs):
        r = subprocess.run([p], capture_output=True, text=True, cwd=ROOT)
        out = r.stdout + r.stderr
        m = re.search(r"unit \S+: (\d+) passed, (\d+) failed", out)
        if m and r.returncode == (1 if int(m.group(2)) else 0):
            passed += int(m.group(1))
            failed += int(m.group(2))
            if int(m.group(2)):
                sys.stdout.write(out)
        else:  # crashed or printed no summary
            failed += 1
            sys.stdout.write(out)
            print("unit: %s exited %d without a summary" % (os.path.relpath(p, ROOT), r.returncode))
    print("unit: %d passed, %d failed" % (passed, failed))
    return passed, failed


def run_lit():
    env = dict(os.environ, HLO_BUILD=BUILD)
    cmd = [sys.executable, LIT, "-sv" if os.environ.get("VERBOSE") else "-s",
           "-j2", os.path.join(ROOT, "testdata")]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = r.stdout + r.stderr
    counts = {}
    for m in re.finditer(r"^\s*(Passed|Failed|Unsupported|Unresolved|Expectedly Failed|"
                         r"Unexpectedly Passed|Timed Out|Excluded|Skipped)\s*:\s*(\d+)",
                         out, re.M):
        counts[m.group(1)] = int(m.group(2))
    passed = counts.get("Passed", 0) + counts.get("Expectedly Failed", 0)
    failed = (counts.get("Failed", 0) + counts.get("Unresolved", 0) +
              counts.get("Unexpectedly Passed", 0) + counts.get("Timed Out", 0))
    if failed or r.returncode not in (0, 1):
        sys.stdout.write(out)
    if passed + failed == 0:
        sys.stdout.write(out)
        print("lit: no tests ran")
        failed += 1
    print("lit: %d passed, %d failed" % (passed, failed))
    return passed, failed


def run_python():
    """pytest over python/tests; its summary ("N passed, M failed, K errors")
    is counted.  No summary, no test run (exit 5) or a crash is a failure.
    Under SAN=1 the ASan runtime is preloaded into python (libhlo.so is
    instrumented, python is not) and leak detection is off: the
    interpreter's own allocations at exit are not ours (docs/python.md)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(ROOT, "python"), os.path.join(ROOT, "python", "tests")]),
        HLO_LIBRARY=os.path.join(BUILD, "lib", "libhlo.so"), PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("SAN") == "1":
        asan = subprocess.run([os.environ.get("CC", "cc"), "-print-file-name=libasan.so"],
                              capture_output=True, text=True).stdout.strip()
        env.update(LD_PRELOAD=asan, HLO_SAN="1",
                   ASAN_OPTIONS="detect_leaks=0:" + os.environ.get("ASAN_OPTIONS", ""))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           os.path.join(ROOT, "python", "tests")]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    out = r.stdout + r.stderr
    counts = {}
    lines = [l for l in out.splitlines() if re.search(r"\b(passed|failed|error|errors|no tests ran)\b", l)]
    if lines:
        for m in re.finditer(r"(\d+) (passed|failed|errors?|skipped)", lines[-1]):
            counts[m.group(2).rstrip("s") if m.group(2).startswith("error") else m.group(2)] = \
                int(m.group(1))
    passed = counts.get("passed", 0)
    failed = counts.get("failed", 0) + counts.get("error", 0)
    if failed or r.returncode not in (0, 1) or passed == 0:
        sys.stdout.write(out)
    if r.returncode not in (0, 1) or passed + failed == 0:
        print("python: pytest exited %d%s" % (r.returncode, " (no tests ran)" if r.returncode == 5 else ""))
        failed += 1
    print("python: %d passed, %d failed" % (passed, failed))
    return passed, failed


def main():
    unit_only = "--unit-only" in sys.argv
    p1, f1 = run_unit()
    p2, f2 = (0, 0) if unit_only else run_lit()
    p3, f3 = (0, 0) if unit_only else run_python()
    passed, failed = p1 + p2 + p3, f1 + f2 + f3
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
