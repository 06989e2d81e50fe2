"""Passes keep values: for every module of the corpus, of testdata and of
the generated random modules (gen_random.py), run each pass of hlo-opt
(and the whole list in a row) with --verify-each and compare hlo-run's
results before and after on the same random inputs: bit-identical for
every pass (each rewrite of docs/opt.md is exact on the interpreter),
except where fusion is made: the fast interpreter's fused kernels may
evaluate transcendental functions with vector code, so fusion and the whole
list are compared within 4 ulp there, and bit-identically with --reference.
A pass that reports no change must print exactly what the empty pass list
prints.  Prints one line per failure and a summary line."""
import glob, os, subprocess, sys, tempfile
import numpy as np

# usage: opt_corpus.py corpus DIR | testdata DIR | random GENERATOR (one lit test each, so they run in parallel)
which, where = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
if which == "corpus":
    files = sorted(glob.glob(os.path.join(where, "*.hlo")))
elif which == "testdata":
    files = sorted(f for f in glob.glob(os.path.join(where, "**", "*.hlo"), recursive=True)
                   if "/bad" not in f and "/opt/" not in f and "/diff/" not in f)
else:
    subprocess.run([sys.executable, where, tmp, "24"], check=True)
    files = sorted(glob.glob(os.path.join(tmp, "random_*.hlo")))
passes = subprocess.run(["hlo-opt", "--list-passes"], capture_output=True, text=True).stdout.split("\n")
passes = [p.split()[0] for p in passes if p.strip()]
PIPELINE = ",".join(passes)
SLOW = ("mobilenet_v2", "sharded_computation", "isolated_convolution")


def run(args, timeout=600):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def same(a, b, ulps=0):
    x, y = np.load(a), np.load(b)
    if sorted(x.files) != sorted(y.files):
        return "different outputs %s vs %s" % (x.files, y.files)
    for k in x.files:
        if x[k].dtype != y[k].dtype or x[k].shape != y[k].shape:
            return "output %s differs in type or shape" % k
        if x[k].tobytes() == y[k].tobytes():
            continue
        if not ulps or x[k].dtype.kind != "f":
            return "output %s differs" % k
        fx, fy = x[k].astype(np.float64), y[k].astype(np.float64)
        ulp = np.spacing(np.abs(x[k])).astype(np.float64)
        bad = ~((fx == fy) | (np.isnan(fx) & np.isnan(fy)) | (np.abs(fx - fy) <= ulps * ulp))
        if bad.any():
            return "output %s differs by more than %d ulp" % (k, ulps)
    return None


compared = failed = changed = 0
for i, f in enumerate(files):
    name = os.path.basename(f)
    base = os.path.join(tmp, "%d.base.hlo" % i)
    r = run(["hlo-opt", "--passes=", f, "-o", base])
    if r.returncode != 0:
        continue  # not a valid module
    valid = run(["hlo-verify", f]).returncode == 0
    if not valid:
        continue  # passes are specified on valid modules only
    slow = any(k in name for k in SLOW)
    a = os.path.join(tmp, "%d.a.npz" % i)
    runnable = not slow and run(["hlo-run", "--random=11", f, "-o", a]).returncode == 0
    for p in passes + [PIPELINE]:
        label = p if p != PIPELINE else "all"
        out = os.path.join(tmp, "%d.%s.hlo" % (i, label))
        r = run(["hlo-opt", "--verify-each", "--stats", "--passes=" + p, f, "-o", out])
        if r.returncode != 0:
            print("FAIL %s %s: hlo-opt: %s" % (name, label, r.stderr.strip()[:400]))
            failed += 1
            continue
        if p != PIPELINE and ": changed," not in r.stderr and open(out).read() != open(base).read():
            print("FAIL %s %s: reported unchanged but the text changed" % (name, label))
            failed += 1
            continue
        if ": changed," not in r.stderr:
            continue  # the text is the input's (checked above): same values
        changed += 1
        if not runnable:
            continue
        b = os.path.join(tmp, "%d.%s.npz" % (i, label))
        r = run(["hlo-run", "--random=11", out, "-o", b])
        fused = p in ("fusion", PIPELINE)
        why = "hlo-run after: " + r.stderr.strip()[:300] if r.returncode else same(a, b, 4 if fused else 0)
        if fused and not why:
            ra, rb = a + ".ref.npz", b + ".ref.npz"
            r = run(["hlo-run", "--reference", "--random=11", out, "-o", rb])
            if not os.path.exists(ra):
                run(["hlo-run", "--reference", "--random=11", f, "-o", ra])
            why = "reference hlo-run after: " + r.stderr.strip()[:300] if r.returncode else same(ra, rb)
        compared += 1
        if why:
            print("FAIL %s %s: %s" % (name, label, why))
            failed += 1
print("opt %s: %d runs compared, %d pass runs changed a module, %d failed" % (which, compared, changed, failed))
