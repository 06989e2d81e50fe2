#!/usr/bin/env python3
"""conv_bruteforce.py CORPUS: the FLOPs hlo-stats gives every convolution of
the corpus equal an independent brute-force count: for each spatial
dimension, every (output position, kernel tap) pair whose input position
(after padding, stride, base and window dilation) is a real input element,
times input features per group, output features and batch per batch group,
times 2 per multiply-add (XLA's HloCostAnalysis rule).  The module structure
comes from hlo-json, the costs from hlo-stats --csv.  Prints
"conv_bruteforce: N convolutions in M modules, K differ"."""
import csv
import io
import json
import os
import subprocess
import sys


def walk(o, out):
    if isinstance(o, dict):
        if "computations" in o and isinstance(o["computations"], list):
            for c in o["computations"]:
                out.append(c)
        for v in o.values():
            walk(v, out)
    elif isinstance(o, list):
        for v in o:
            walk(v, out)


def attr(ins, name, default=None):
    for a in ins.get("attrs", []):
        if a["name"] == name:
            return a["value"]
    return default


def positions(n_in, k, n_out, w):
    stride, base, wdil, lo = w["stride"], w["lhs_dilate"], w["rhs_dilate"], w["pad_lo"]
    count = 0
    for o in range(n_out):
        for t in range(k):
            u = o * stride - lo + t * wdil
            if u % base == 0 and 0 <= u // base < n_in:
                count += 1
    return count


def conv_flops(ins, by_name):
    lhs = by_name[ins["operands"][0]]["shape"]["dims"]
    rhs = by_name[ins["operands"][1]]["shape"]["dims"]
    res = ins["shape"]["dims"]
    dn = attr(ins, "dim_labels")
    win = attr(ins, "window", [])
    p = 1
    for i in range(len(dn["input_spatial"])):
        w = win[i] if i < len(win) else {"size": 1, "stride": 1, "pad_lo": 0, "pad_hi": 0,
                                         "lhs_dilate": 1, "rhs_dilate": 1}
        p *= positions(lhs[dn["input_spatial"][i]], rhs[dn["kernel_spatial"][i]],
                       res[dn["output_spatial"][i]], w)
    fgc = attr(ins, "feature_group_count", 1)
    bgc = attr(ins, "batch_group_count", 1)
    return 2 * (lhs[dn["input_feature"]] // fgc) * res[dn["output_feature"]] * (lhs[dn["input_batch"]] // bgc) * p


def main():
    corpus = sys.argv[1]
    nconv = nmod = bad = 0
    for f in sorted(os.listdir(corpus)):
        if not f.endswith(".hlo"):
            continue
        path = os.path.join(corpus, f)
        st = subprocess.run(["hlo-stats", "--csv", path], capture_output=True, text=True)
        if st.returncode:
            continue  # invalid modules (the verifier refuses them)
        js = subprocess.run(["hlo-json", path], capture_output=True, text=True)
        comps = []
        walk(json.loads(js.stdout), comps)
        rows = {(r["computation"], r["instruction"]): r for r in csv.DictReader(io.StringIO(st.stdout))}
        seen = False
        for c in comps:
            by_name = {i["name"]: i for i in c.get("instructions", [])}
            for ins in c.get("instructions", []):
                if ins.get("opcode") != "convolution":
                    continue
                seen = True
                nconv += 1
                want = conv_flops(ins, by_name)
                got = float(rows[(c["name"], ins["name"])]["flops"])
                if got != want:
                    bad += 1
                    print("DIFF %s %s: hlo-stats %d, brute force %d" % (f, ins["name"], got, want))
        nmod += seen
    print("conv_bruteforce: %d convolutions in %d modules, %d differ" % (nconv, nmod, bad))
    return 1 if bad or nconv == 0 else 0


sys.exit(main())
