#!/usr/bin/env python3
"""make bench: measured figures with same-run baselines (this machine is
shared and noisy, so every figure is printed next to a baseline).

Parser: parse + build IR + print for mobilenet_v2.hlo (corpus) and a
generated ~100 MB module; MB/s of parsing, IR bytes (arena bytes in use) / text bytes, peak RSS
of the process, next to the time `cat FILE > /dev/null` takes."""
import os
import re
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
FMT = os.path.join(BUILD, "bin", "hlo-fmt")


def best_of(n, fn):
    return min(fn() for _ in range(n))


def cat_time(path):
    def run():
        t = time.perf_counter()
        subprocess.run("cat '%s' > /dev/null" % path, shell=True, check=True)
        return time.perf_counter() - t
    return best_of(3, run)


def fmt_stats(path):
    best = None
    for _ in range(3):
        t = time.perf_counter()
        r = subprocess.run([FMT, "--stats", "-o", "/dev/null", path], capture_output=True, text=True)
        wall = time.perf_counter() - t
        if r.returncode != 0:
            sys.exit("hlo-fmt failed on %s:\n%s" % (path, r.stderr))
        m = re.search(r"text (\d+) bytes, parse ([\d.]+) s, print ([\d.]+) s, ir (\d+) bytes reserved \((\d+) used\)", r.stderr)
        cur = dict(text=int(m.group(1)), parse=float(m.group(2)), print=float(m.group(3)),
                   ir=int(m.group(4)), used=int(m.group(5)), wall=wall)
        if best is None or cur["parse"] < best["parse"]:
            best = cur
    return best


def peak_rss(path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([FMT, "-o", "/dev/null", path], check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, before


def report(name, path):
    s = fmt_stats(path)
    c = cat_time(path)
    mb = s["text"] / 1e6
    rss, _ = peak_rss(path)
    print("%-22s %8.1f MB  parse %7.3f s = %7.1f MB/s  print %6.3f s  wall %6.3f s  cat %6.3f s (%5.0fx)"
          "  IR %5.2fx text  peak RSS %6.1f MB" % (
              name, mb, s["parse"], mb / s["parse"], s["print"], s["wall"], c,
              s["wall"] / c if c > 0 else 0, s["used"] / s["text"], rss / 1e6))


def main():
    gen = os.path.join(BUILD, "bench", "big.hlo")
    os.makedirs(os.path.dirname(gen), exist_ok=True)
    if not os.path.exists(gen) or os.path.getmtime(gen) < os.path.getmtime(os.path.join(ROOT, "testdata", "gen_big_module.py")):
        subprocess.run([sys.executable, os.path.join(ROOT, "testdata", "gen_big_module.py"), gen, "100"], check=True)
    print("parser benchmark (best of 3; IR = arena bytes in use / text bytes; cat = same-run baseline)")
    report("mobilenet_v2.hlo", os.path.join(CORPUS, "xla__tools__data__benchmarking__mobilenet_v2.hlo"))
    report("generated", gen)


main()
