#!/usr/bin/env python3
"""numpy side of lib/io/npy_test.c (run by it through /usr/bin/python3).

  gen_npy.py gen DIR    write .npy/.npz files with numpy into DIR, plus
                        DIR/manifest.txt describing what the C reader must get
  gen_npy.py check DIR  load the files the C writer produced (DIR/ours_*) with
                        numpy and compare them with the expected arrays

manifest.txt: one line per array or expected failure, fields separated by
single spaces:
  ok   FILE MEMBER TYPE SHAPE VOID1 SAME   (expected row-major LE bytes in FILE.MEMBER.raw)
  err  FILE - - - VOID1 SUBSTRING           (reading must fail with SUBSTRING in the message)
MEMBER is '-' for .npy files; SHAPE is comma-separated ('-' for a scalar);
VOID1 is the type hint for '|V1' data ('-' for none); SAME=1 means our
writer must reproduce FILE byte for byte.  Nothing here is committed: the C
test creates DIR in /tmp and removes it.
"""
import io
import os
import sys
import zipfile

import numpy as np

TYPES = {  # numpy dtype -> XLA type name
    "bool": "pred", "int8": "s8", "int16": "s16", "int32": "s32", "int64": "s64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
}


def sample(dtype, shape, rng):
    dt = np.dtype(dtype)
    n = int(np.prod(shape)) if shape else 1
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        v[:2] = [info.min, info.max][: len(v[:2])]
    elif dt.kind == "f":
        v = (rng.standard_normal(n) * 100).astype(dt)
        special = np.array([np.nan, np.inf, -np.inf, -0.0], dtype=dt)
        v[: min(4, n)] = special[: min(4, n)]
    else:
        v = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
        if n:
            v[0] = complex(np.nan, -np.inf)
    return v.reshape(shape)


def canon(a):
    """Expected bytes: C order, little-endian, bool as 0/1 bytes."""
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "V":
        return a.tobytes()
    return a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()


class Gen:
    def __init__(self, d):
        self.d = d
        self.lines = []

    def ok(self, fname, member, typ, arr, void1="-", same=0):
        shape = ",".join(str(x) for x in arr.shape) if arr.shape else "-"
        self.lines.append("ok %s %s %s %s %s %d" % (fname, member, typ, shape, void1, same))
        with open(os.path.join(self.d, "%s.%s.raw" % (fname, member)), "wb") as f:
            f.write(canon(arr))

    def err(self, fname, substring, void1="-"):
        self.lines.append("err %s - - - %s %s" % (fname, void1, substring))

    def path(self, fname):
        return os.path.join(self.d, fname)

    def raw(self, fname, data):
        with open(self.path(fname), "wb") as f:
            f.write(data)


def npy_bytes(arr, version=None):
    b = io.BytesIO()
    if version is None:
        np.save(b, arr)
    else:
        np.lib.format.write_array(b, arr, version=version)
    return b.getvalue()


def gen(d):
    rng = np.random.default_rng(1234)
    g = Gen(d)
    for dtype, typ in TYPES.items():
        for shape in [(2, 3), (), (0,), (2, 0), (5,), (1, 1, 1, 2)]:
            a = sample(dtype, shape, rng)
            name = "%s_%s.npy" % (dtype, "x".join(map(str, shape)) or "scalar")
            np.save(g.path(name), a)
            g.ok(name, "-", typ, a, same=1)
        a = sample(dtype, (3, 4), rng)
        big = a.astype(a.dtype.newbyteorder(">"))
        if a.dtype.itemsize > 1:
            g.raw("%s_be.npy" % dtype, npy_bytes(big))
            g.ok("%s_be.npy" % dtype, "-", typ, a)
        f = np.asfortranarray(sample(dtype, (3, 4, 2), rng))
        g.raw("%s_fortran.npy" % dtype, npy_bytes(f))
        g.ok("%s_fortran.npy" % dtype, "-", typ, f)
        fb = np.asfortranarray(f.astype(f.dtype.newbyteorder(">")))
        g.raw("%s_fortran_be.npy" % dtype, npy_bytes(fb))
        g.ok("%s_fortran_be.npy" % dtype, "-", typ, f)
        for v in [(2, 0), (3, 0)]:
            name = "%s_v%d.npy" % (dtype, v[0])
            g.raw(name, npy_bytes(a, v))
            g.ok(name, "-", typ, a)
    # ml_dtypes types are stored as void: '<V2' for bfloat16, '|V1' for float8.
    bits16 = rng.integers(0, 65536, 6, dtype=np.uint16).reshape(2, 3)
    g.raw("bf16.npy", npy_bytes(bits16.view("V2")))
    g.ok("bf16.npy", "-", "bf16", bits16)
    bits8 = rng.integers(0, 256, 7, dtype=np.uint8)
    g.raw("f8.npy", npy_bytes(bits8.view("V1")))
    g.ok("f8.npy", "-", "f8e4m3fn", bits8, void1="f8e4m3fn")
    g.err("f8.npy", "1-byte")
    wide = np.zeros((1,) * 32, dtype=np.float32)  # numpy 1.x max rank
    g.raw("rank32.npy", npy_bytes(wide))
    g.ok("rank32.npy", "-", "f32", wide, same=1)
    # .npz, stored and deflated, several members.
    arrs = {"a": sample("float32", (4, 5), rng), "b": sample("int16", (7,), rng),
            "c": sample("complex128", (2, 2), rng), "empty": np.zeros((0, 3), np.float64),
            "s": np.array(True)}
    types = {"a": "f32", "b": "s16", "c": "c128", "empty": "f64", "s": "pred"}
    np.savez(g.path("stored.npz"), **arrs)
    np.savez_compressed(g.path("deflated.npz"), **arrs)
    for fname in ["stored.npz", "deflated.npz"]:
        for k, v in arrs.items():
            g.ok(fname, k, types[k], v)
    # Corrupt and unsupported files.
    good = npy_bytes(sample("float64", (4, 4), rng))
    g.raw("trunc_data.npy", good[:-3]); g.err("trunc_data.npy", "truncated")
    g.raw("trunc_header.npy", good[:40]); g.err("trunc_header.npy", "truncated")
    g.raw("short.npy", good[:7]); g.err("short.npy", "magic")
    g.raw("empty.npy", b""); g.err("empty.npy", "magic")
    g.raw("bad_magic.npy", b"\x93NUMPZ" + good[6:]); g.err("bad_magic.npy", "magic")
    g.raw("trailing.npy", good + b"xyz"); g.err("trailing.npy", "trailing")
    g.raw("version9.npy", good[:6] + b"\x09\x00" + good[8:]); g.err("version9.npy", "version")

    def with_header(h, data=b"\0" * 16, version=1):
        h = h.encode("latin1") + b"\n"
        if version == 1:
            return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data
        return b"\x93NUMPY\x02\x00" + len(h).to_bytes(4, "little") + h + data

    g.raw("lying_shape.npy", with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }"))
    g.err("lying_shape.npy", "truncated")
    g.raw("overflow_shape.npy", with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }"))
    g.err("overflow_shape.npy", "too large")
    g.raw("huge_dim.npy", with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }"))
    g.err("huge_dim.npy", "shape")
    g.raw("neg_dim.npy", with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }"))
    g.err("neg_dim.npy", "shape")
    g.raw("not_dict.npy", with_header("[1, 2]")); g.err("not_dict.npy", "dict")
    g.raw("missing_key.npy", with_header("{'descr': '<f8', 'shape': (2,), }"))
    g.err("missing_key.npy", "lacks")
    g.raw("extra_key.npy", with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}"))
    g.err("extra_key.npy", "unexpected")
    g.raw("hlen_lies.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\x7f{'descr'")
    g.err("hlen_lies.npy", "truncated")
    g.raw("nul_header.npy", with_header("{'descr': '<f8',\0 'fortran_order': False, 'shape': (2,), }"))
    g.err("nul_header.npy", "bad byte")
    obj = io.BytesIO()
    np.save(obj, np.array([1, "a", None], dtype=object), allow_pickle=True)
    g.raw("object.npy", obj.getvalue()); g.err("object.npy", "object arrays")
    g.raw("structured.npy", npy_bytes(np.zeros(3, dtype=[("x", "<i4"), ("y", "<f4")])))
    g.err("structured.npy", "structured")
    g.raw("datetime.npy", npy_bytes(np.array(["2020-01-01"], dtype="M8[D]")))
    g.err("datetime.npy", "unsupported dtype")
    g.raw("unicode.npy", npy_bytes(np.array(["ab"]))); g.err("unicode.npy", "unsupported dtype")
    with open(g.path("deflated.npz"), "rb") as f:
        z = f.read()
    g.raw("trunc.npz", z[: len(z) // 2]); g.err("trunc.npz", "zip")
    g.raw("trunc_tail.npz", z[:-5]); g.err("trunc_tail.npz", "zip")
    with open(g.path("stored.npz"), "rb") as f:
        zs = bytearray(f.read())
    i = zs.index(b"NUMPY") + 200  # inside the first member's data
    zs[i] ^= 0x55
    g.raw("crc.npz", bytes(zs)); g.err("crc.npz", "CRC")
    zd = bytearray(z)
    j = zd.index(b"a.npy") + 60
    for k in range(j, j + 40):
        zd[k] ^= 0xA5
    g.raw("bad_deflate.npz", bytes(zd)); g.err("bad_deflate.npz", "deflate")
    with zipfile.ZipFile(g.path("other_member.npz"), "w") as zf:
        zf.writestr("x.txt", "hello")
    g.err("other_member.npz", "not a .npy")
    g.raw("garbage.npz", b"PK" + bytes(range(200))); g.err("garbage.npz", "zip")
    with open(g.path("manifest.txt"), "w") as f:
        f.write("\n".join(g.lines) + "\n")


def check(d):
    """Files written by the C side: ours_<name>.npy (from the manifest's ok
    .npy lines) and ours_stored.npz / ours_deflated.npz."""
    bad = n = 0
    for line in open(os.path.join(d, "manifest.txt")):
        f = line.split()
        if f[0] != "ok" or f[2] != "-" or f[5] != "-":
            continue
        ours = os.path.join(d, "ours_" + f[1])
        if not os.path.exists(ours):
            continue
        a = np.load(ours)
        want = open(os.path.join(d, "%s.-.raw" % f[1]), "rb").read()
        n += 1
        if canon(a) != want and not (a.dtype.kind == "V" and a.tobytes() == want):
            print("mismatch", ours)
            bad += 1
    for z in ["ours_stored.npz", "ours_deflated.npz"]:
        with np.load(os.path.join(d, z)) as zz:
            src = np.load(os.path.join(d, z[5:]))
            for k in src.files:
                n += 1
                if canon(zz[k]) != canon(src[k]) or zz[k].dtype != src[k].dtype:
                    print("mismatch", z, k)
                    bad += 1
        if zipfile.ZipFile(os.path.join(d, z)).testzip() is not None:
            print("bad zip", z)
            bad += 1
    print("checked %d arrays, %d bad" % (n, bad))
    return 1 if bad or n == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("gen", "check"):
        sys.exit("usage: gen_npy.py gen|check DIR")
    sys.exit(gen(sys.argv[2]) if sys.argv[1] == "gen" else check(sys.argv[2]))
