"""hlo-diff on real modules: every valid module of the corpus and of
testdata against itself (exit 0, nothing but unchanged), against its
hlo-fuse result (exit 0 or 1; fusion moves instructions and keeps their
names, so every instruction must be matched: nothing removed), and against the
result of all hlo-opt passes (exit 0 or 1, never a crash).  Prints one line
per failure and a summary line."""
import glob, json, os, subprocess, sys, tempfile

corpus, testdata = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(corpus, "*.hlo")))
files += sorted(f for f in glob.glob(os.path.join(testdata, "**", "*.hlo"), recursive=True)
                if "/bad" not in f and "/diff/" not in f)
tmp = tempfile.mkdtemp()
passes = [l.split()[0] for l in subprocess.run(["hlo-opt", "--list-passes"], capture_output=True,
                                               text=True).stdout.splitlines() if l.strip()]


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=600)


def report(a, b):
    r = run(["hlo-diff", "--json", a, b])
    if r.returncode not in (0, 1):
        return None, "exit %d: %s" % (r.returncode, r.stderr.strip()[:300])
    d = json.loads(r.stdout)
    if d["equal"] != (r.returncode == 0):
        return None, "exit status and 'equal' disagree"
    return d["summary"], None


checked = failed = 0
for i, f in enumerate(files):
    name = os.path.relpath(f, os.path.dirname(corpus))
    if run(["hlo-verify", f]).returncode != 0:
        continue
    checked += 1
    why = None
    s, why = report(f, f)
    if not why and (s["changed"] or s["added"] or s["removed"] or s["renamed"] or s["moved"]):
        why = "itself: %s" % s
    fused = os.path.join(tmp, "%d.fused.hlo" % i)
    if not why and run(["hlo-fuse", f, "-o", fused]).returncode == 0:
        s, why = report(f, fused)
        if not why and s["removed"]:
            why = "fused: %s" % s
    opt = os.path.join(tmp, "%d.opt.hlo" % i)
    if not why and run(["hlo-opt", "--passes=" + ",".join(passes), f, "-o", opt]).returncode == 0:
        _, why = report(f, opt)
    if why:
        print("FAIL %s: %s" % (name, why))
        failed += 1
print("diff corpus: %d modules checked, %d failed" % (checked, failed))
