#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target into a directory (at run time;
seeds are never committed).  Sources: testdata/ and ../shared/corpus beside
the checkout, plus a few generated .npy/.npz files and RUN.yaml specs, and
for the run target copies of the modules with one dimension size set to 0.

usage: seeds.py TARGET OUTDIR    (TARGET: parse verify run imap npy runspec)"""
import glob
import hashlib
import io
import os
import re
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))


def hlo_texts():
    files = sorted(glob.glob(os.path.join(ROOT, "testdata", "**", "*.hlo"), recursive=True))
    files += sorted(glob.glob(os.path.join(CORPUS, "*.hlo")))
    for f in files:
        with open(f, "rb") as fh:
            text = fh.read()
        # one seed per module chunk; RUN/CHECK comment lines dropped
        for chunk in re.split(rb"\n// -----\n", text):
            lines = [l for l in chunk.split(b"\n") if not l.lstrip().startswith(b"// ")]
            chunk = b"\n".join(lines).strip() + b"\n"
            if len(chunk) > 2:
                yield chunk
    for md in sorted(glob.glob(os.path.join(CORPUS, "*.md"))):
        with open(md, "rb") as fh:
            for block in re.findall(rb"```[a-z]*\n(.*?)```", fh.read(), re.S):
                if b"ENTRY" in block or b"HloModule" in block:
                    yield block


SHAPE = re.compile(rb"\b([a-z][a-z0-9]*)\[([0-9,]+)\]")


def zero_variants(text, most=3):
    """Copies of text with every shape dimension of one size written as 0
    (for the run target: zero-sized operands, results and batches), one copy
    for each of the first few distinct sizes."""
    sizes = sorted({d for m in SHAPE.finditer(text) for d in m.group(2).split(b",") if d and d != b"0"},
                   key=int)
    for v in sizes[:most]:
        def zero(m):
            dims = [b"0" if d == v else d for d in m.group(2).split(b",")]
            return m.group(1) + b"[" + b",".join(dims) + b"]"
        yield SHAPE.sub(zero, text)


def imap_texts():
    for md in sorted(glob.glob(os.path.join(CORPUS, "*.md"))):
        with open(md, "rb") as fh:
            for block in re.findall(rb"```[a-z]*\n(.*?)```", fh.read(), re.S):
                if b"->" in block and b"ENTRY" not in block:
                    yield block
                    # single maps too
                    for m in re.split(rb"operand id = \d+\n|output id = \d+\n", block):
                        if b"->" in m:
                            yield m.strip() + b"\n"
    yield b"(d0, d1)[s0] -> (d0 + s0, d1 floordiv 4), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], d0 + s0 in [0, 10]"
    yield b"(d0){rt0} -> (d0 mod 8, rt0 * 2), domain: d0 in [0, 63], rt0 in [0, 5]"
    yield b"KNOWN EMPTY"
    yield b"UNDEFINED"


def npy_bytes(arr):
    import numpy as np
    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()


def npy_seeds():
    try:
        import numpy as np
    except ImportError:
        return
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array(3.5), np.array([True, False]),
              np.arange(4, dtype=np.int8), np.zeros((0, 3), np.int64), np.array([1 + 2j], np.complex64),
              np.arange(8, dtype=">i4"), np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
              np.array([1, 2], dtype=np.uint16), np.array([1.5], dtype=np.float16)]
    for a in arrays:
        yield b"\x00" + npy_bytes(a)
    for compress in (False, True):
        b = io.BytesIO()
        (np.savez_compressed if compress else np.savez)(b, x=arrays[0], y=arrays[3])
        yield b"\x01" + b.getvalue()
    # inline literals: selector 2, then the element type index
    for t, text in [(17, b"[[1, 2], [3, 4]]"), (6, b"[1, -2, 3,]"), (0, b"[true, False]"),
                    (18, b"[nan, -inf, 1e-3]"), (28, b"[1+2j, 2j]"), (16, b"3.25"), (7, b"[]"), (3, b"[-8, 7]")]:
        yield b"\x02" + bytes([t]) + text


SPECS = [
    b"module: m.hlo\ninputs:\n  - file: a.npy\n  - inline: '[1, 2, 3]'\n  - random: 7\noutputs:\n  - file: out.npy\n    rtol: 1e-3\n    atol: 0\n",
    b"module: /abs/m.hlo\niterations: 3\nreference: true\nrtol: 0.5\natol: 1e-9\n",
    b"module: m.hlo\ninputs: []\noutputs:\n  - inline: \"[[1.0, 2.0]]\"\n",
    b"{module: m.hlo, inputs: [{random: 1}], outputs: [{inline: '3'}]}\n",
]


def main():
    target, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if target in ("parse", "verify", "run"):
        seeds = list(hlo_texts())
        if target == "run":
            seeds = [s for s in seeds if len(s) <= 16384]
            seeds += [z for s in seeds for z in zero_variants(s)]
    elif target == "imap":
        seeds = list(imap_texts())
    elif target == "npy":
        seeds = list(npy_seeds())
    elif target == "runspec":
        seeds = SPECS
    else:
        sys.exit("seeds.py: unknown target " + target)
    for s in seeds:
        name = hashlib.sha1(s).hexdigest()
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(s)
    print("seeds.py: %d seeds for %s" % (len(seeds), target))


if __name__ == "__main__":
    main()
