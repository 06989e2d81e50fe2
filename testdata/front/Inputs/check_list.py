#!/usr/bin/env python3
"""check_list.py LIST: the output of `hlo help` names every hlo-* program in
the directory of the hlo found on PATH, and gives for each the line that
follows "Usage:" in that program's --help."""
import os
import shutil
import subprocess
import sys

text = open(sys.argv[1]).read().splitlines()
listed = {}
for line in text:
    if line.startswith("  ") and not line.startswith("   "):
        name, _, purpose = line.strip().partition(" ")
        listed[name] = purpose.strip()
bindir = os.path.dirname(shutil.which("hlo"))
tools = sorted(f[4:] for f in os.listdir(bindir) if f.startswith("hlo-") and os.access(os.path.join(bindir, f), os.X_OK))
bad = 0
for t in tools:
    h = subprocess.run([os.path.join(bindir, "hlo-" + t), "--help"], capture_output=True, text=True).stdout.splitlines()
    want = h[1] if h and h[0].startswith("Usage:") and len(h) > 1 else (h[0] if h else "")
    if t not in listed:
        print("not listed: " + t)
        bad += 1
    elif listed[t] != want:
        print("%s: listed %r, --help says %r" % (t, listed[t], want))
        bad += 1
if not tools:
    print("no tools found in " + bindir)
    bad += 1
if not bad:
    print("listed %d tools, each with its --help purpose" % len(tools))
sys.exit(1 if bad else 0)
