#!/usr/bin/env python3
"""Runs every test suite of hlotools and ends with one line
"N passed, N failed, N skipped".

Suites: the unit-test programs (build/test/**), then lit over testdata/ (golden
.hlo tests, corpus checks against ../shared/corpus, numeric tests against numpy),
then pytest over python/tests (the hlotools package on the build's libhlo.so).
The tests of the fast path (the unit programs of lib/exec, the lit tests of
testdata/run and testdata/fuse) run once per ISA level (HLO_ISA=baseline,
avx2, avx512).  A level this build or CPU cannot run is printed as skipped
with its reason and counts the tests it would have run (as many as at the
baseline level, which every build runs), so passed + skipped is the same on
every machine.  Exit status 1 if any test failed or a suite could not run,
else 0."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
LIT = "/usr/lib/llvm-14/build/utils/lit/lit.py"
LEVELS = ("baseline", "avx2", "avx512")
FAST_UNIT_DIRS = ("exec",)        # build/test/<dir>/: unit programs of the fast path
FAST_LIT_DIRS = ("run", "fuse", "dynamic")   # testdata/<dir>/: lit tests that run modules


def isa_levels():
    """[(level, None | reason it cannot run)] from hlo-run --list-isas."""
    env = dict(os.environ)
    env.pop("HLO_ISA", None)
    r = subprocess.run([os.path.join(BUILD, "bin", "hlo-run"), "--list-isas"],
                       capture_output=True, text=True, env=env)
    found = {}
    for line in r.stdout.splitlines():
        m = re.match(r"(\w+)\s+(available|unavailable: (.*))$", line)
        if m:
            found[m.group(1)] = None if m.group(2) == "available" else m.group(3)
    if r.returncode != 0 or set(found) != set(LEVELS):
        print("isa: hlo-run --list-isas failed (exit %d): %s" % (r.returncode, r.stdout + r.stderr))
        return None
    return [(l, found[l]) for l in LEVELS]


def run_prog(p, env):
    """(passed, failed, output) of one unit-test program."""
    r = subprocess.run([p], capture_output=True, text=True, cwd=ROOT, env=env)
    out = r.stdout + r.stderr
    m = re.search(r"unit \S+: (\d+) passed, (\d+) failed", out)
    if m and r.returncode == (1 if int(m.group(2)) else 0):
        return int(m.group(1)), int(m.group(2)), out
    return 0, 1, out + "unit: %s exited %d without a summary\n" % (os.path.relpath(p, ROOT), r.returncode)


def run_unit(levels):
    passed = failed = skipped = 0
    tdir = os.path.join(BUILD, "test")
    progs = []
    for d, _, files in os.walk(tdir):
        progs += [os.path.join(d, f) for f in files if os.access(os.path.join(d, f), os.X_OK)]
    if not progs:
        print("unit: no unit-test programs found in", tdir)
        return 0, 1, 0
    for p in sorted(progs):
        rel = os.path.relpath(p, tdir)
        per_level = rel.split(os.sep)[0] in FAST_UNIT_DIRS
        counts = {}
        for level, why in (levels if per_level else [(None, None)]):
            if why is not None:
                continue
            env = dict(os.environ)
            if level:
                env["HLO_ISA"] = level
            ps, fl, out = run_prog(p, env)
            counts[level] = ps + fl
            passed += ps
            failed += fl
            if fl:
                sys.stdout.write(out if not level else out.replace("\n", " [HLO_ISA=%s]\n" % level))
        if not per_level:
            continue
        ran = sorted(set(counts.values()))
        if len(ran) > 1:  # every level must make the same checks
            failed += 1
            print("unit: %s makes a different number of checks per ISA level: %s" % (rel, counts))
        for level, why in levels:
            if why is not None:
                n = counts.get("baseline", 0)
                skipped += n
                print("unit %s [%s]: %d skipped: %s" % (rel, level, n, why))
    print("unit: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return passed, failed, skipped


def lit_counts(out):
    counts = {}
    for m in re.finditer(r"^\s*(Passed|Failed|Unsupported|Unresolved|Expectedly Failed|"
                         r"Unexpectedly Passed|Timed Out|Excluded|Skipped)\s*:\s*(\d+)",
                         out, re.M):
        counts[m.group(1)] = int(m.group(2))
    passed = counts.get("Passed", 0) + counts.get("Expectedly Failed", 0)
    failed = (counts.get("Failed", 0) + counts.get("Unresolved", 0) +
              counts.get("Unexpectedly Passed", 0) + counts.get("Timed Out", 0))
    return passed, failed


def run_lit_once(paths, level, label):
    env = dict(os.environ, HLO_BUILD=BUILD)
    env.pop("HLO_ISA", None)
    if level:
        env["HLO_ISA"] = level
    cmd = [sys.executable, LIT, "-sv" if os.environ.get("VERBOSE") else "-s", "-j2"] + paths
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = r.stdout + r.stderr
    passed, failed = lit_counts(out)
    if failed or r.returncode not in (0, 1):
        sys.stdout.write(out)
    if passed + failed == 0:
        sys.stdout.write(out)
        print("%s: no tests ran" % label)
        failed += 1
    print("%s: %d passed, %d failed" % (label, passed, failed))
    return passed, failed


def run_lit(levels):
    """Everything but the fast-path directories once, then those directories
    once per ISA level."""
    td = os.path.join(ROOT, "testdata")
    fast = "|".join(re.escape(d + "/") for d in FAST_LIT_DIRS)
    passed, failed = run_lit_once([td, "--filter", "^hlotools :: (?!%s)" % fast], None, "lit")
    skipped, done = 0, {}
    for level, why in levels:
        if why is None:
            p, f = run_lit_once([td, "--filter", "^hlotools :: (%s)" % fast], level,
                                "lit [HLO_ISA=%s]" % level)
            passed, failed, done[level] = passed + p, failed + f, p + f
    for level, why in levels:
        if why is not None:
            n = done.get("baseline", 0)
            skipped += n
            print("lit [HLO_ISA=%s]: %d skipped: %s" % (level, n, why))
    return passed, failed, skipped


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
    skipped = counts.get("skipped", 0)
    if failed or r.returncode not in (0, 1) or passed == 0:
        sys.stdout.write(out)
    if r.returncode not in (0, 1) or passed + failed == 0:
        print("python: pytest exited %d%s" % (r.returncode, " (no tests ran)" if r.returncode == 5 else ""))
        failed += 1
    print("python: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return passed, failed, skipped


def main():
    unit_only = "--unit-only" in sys.argv
    levels = isa_levels()
    if levels is None:
        print("0 passed, 1 failed")
        return 1
    p1, f1, s1 = run_unit(levels)
    p2, f2, s2 = (0, 0, 0) if unit_only else run_lit(levels)
    p3, f3, s3 = (0, 0, 0) if unit_only else run_python()
    passed, failed, skipped = p1 + p2 + p3, f1 + f2 + f3, s1 + s2 + s3
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
