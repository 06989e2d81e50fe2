"""Fusion keeps values: for every module of the corpus and of testdata that
hlo-run can run, run it before and after hlo-fuse on the same random inputs
and require bit-identical outputs; the fused module must verify whenever the
original does; hlo-fuse --unfuse of the fused module must run to the same
values too.  Prints one line per failure and a summary line."""
import glob, os, subprocess, sys, tempfile
import numpy as np

corpus, testdata = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(corpus, "*.hlo")))
files += sorted(f for f in glob.glob(os.path.join(testdata, "**", "*.hlo"), recursive=True)
                if "/bad" not in f and "/fuse/" not in f)
tmp = tempfile.mkdtemp()
# Modules too slow for the interpreter in a test run (checked by hand: see
# docs/fusion.md); every other module is compared, whatever the machine's speed.
SLOW = ("mobilenet_v2", "sharded_computation", "isolated_convolution")


def run(args, timeout=900):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def same(a, b):
    x, y = np.load(a), np.load(b)
    if sorted(x.files) != sorted(y.files):
        return "different outputs %s vs %s" % (x.files, y.files)
    for k in x.files:
        if x[k].dtype != y[k].dtype or x[k].shape != y[k].shape or x[k].tobytes() != y[k].tobytes():
            return "output %s differs" % k
    return None


compared = failed = 0
for i, f in enumerate(files):
    name = os.path.relpath(f, os.path.dirname(corpus))
    if run(["hlo-fmt", f]).returncode != 0:
        continue  # not a valid module: nothing to fuse
    fused = os.path.join(tmp, "%d.fused.hlo" % i)
    valid = run(["hlo-verify", f]).returncode == 0
    r = run(["hlo-fuse", f, "-o", fused])
    if r.returncode != 0:
        if valid:  # an invalid module may be refused
            print("FAIL %s: hlo-fuse: %s" % (name, r.stderr.strip()[:300]))
            failed += 1
        continue
    if not valid:
        continue  # the interpreter's behaviour on invalid modules is not specified
    if valid:
        r = run(["hlo-verify", fused])
        if r.returncode != 0:
            print("FAIL %s: fused module does not verify: %s" % (name, r.stderr.strip()[:300]))
            failed += 1
            continue
    if any(k in name for k in SLOW):
        continue
    a = os.path.join(tmp, "%d.a.npz" % i)
    if run(["hlo-run", "--random=11", f, "-o", a]).returncode != 0:
        continue  # not runnable by hlo-run
    b = os.path.join(tmp, "%d.b.npz" % i)
    r = run(["hlo-run", "--random=11", fused, "-o", b])
    why = "hlo-run: " + r.stderr.strip()[:300] if r.returncode else same(a, b)
    if not why:
        unf = os.path.join(tmp, "%d.unfused.hlo" % i)
        c = os.path.join(tmp, "%d.c.npz" % i)
        r = run(["hlo-fuse", "--unfuse", fused, "-o", unf])
        if r.returncode or "fusion(" in open(unf).read() and "fusion(" not in open(f).read():
            why = "unfuse failed or left a fusion"
        else:
            r = run(["hlo-run", "--random=11", unf, "-o", c])
            why = "unfused hlo-run: " + r.stderr.strip()[:300] if r.returncode else same(a, c)
    compared += 1
    if why:
        print("FAIL %s: %s" % (name, why))
        failed += 1
print("fuse corpus: %d modules compared, %d failed" % (compared, failed))
