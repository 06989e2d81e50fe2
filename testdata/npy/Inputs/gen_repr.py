#!/usr/bin/env python3
"""numpy side of lib/io/nprepr_test.c: `gen_repr.py DIR` writes arrays as
DIR/rNNN.npy and numpy's repr() of each as DIR/rNNN.txt (default print
options).  The C test prints each array and compares; DIR is a temporary
directory the test creates and removes."""
import os
import sys

import numpy as np


def cases():
    rng = np.random.default_rng(5)
    yield np.array([1.0, 2.5])
    yield np.array([[1, 2], [3, 4]], dtype=np.float32)
    yield np.array(3.5)
    yield np.array(3.5, dtype=np.float32)
    yield np.array(True)
    yield np.array(-7, dtype=np.int8)
    yield np.array([0.1, 0.2, 0.3], dtype=np.float32)
    yield np.array([0.1, 0.2, 0.3])
    yield np.array([np.pi, 1 / 3, 123456.789123])
    yield np.array([1e8, 1.0])
    yield np.array([1e-5, 1.0])
    yield np.array([1e-4, 1.0], dtype=np.float32)
    yield np.array([0.001, 1.0, 1000.0])
    yield np.array([0.001, 1.0, 1000.5])
    yield np.array([1e100, 1e-100, -3.0])
    yield np.array([np.nan, np.inf, -np.inf, 1.5, -0.0])
    yield np.array([np.nan, np.inf])
    yield np.array([np.nan])
    yield np.array([-np.inf, 1e10])
    yield np.array([-0.0, 0.0])
    yield np.array([65504, 0.1, 6e-8, -2.5], dtype=np.float16)
    yield np.array([1.0000001, 2.0], dtype=np.float64)
    yield np.array([0.999999999, 1.23456789012])
    yield np.array([12345678.9, 1.5])
    yield np.array([5e-324, 1.7976931348623157e308])
    yield np.array([2 ** -20, 2.0 ** 30], dtype=np.float32)
    for dt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        info = np.iinfo(dt)
        yield np.array([info.min, 0, info.max, 5], dtype=dt)
        yield rng.integers(info.min, info.max, (3, 4), dtype=dt, endpoint=True)
    yield np.array([True, False, True])
    yield np.array([[True], [False]])
    yield np.array([1 + 2j, -3.5 - 0.25j, np.nan + 1j, complex(1, np.inf)])
    yield np.array([1 + 2j, 3 - 4j], dtype=np.complex64)
    yield np.array([1e-7 + 1e7j, 1 + 1j])
    yield np.array(2 - 3j)
    yield np.arange(30.0)
    yield np.arange(100)
    yield np.linspace(0, 1, 25)
    yield np.linspace(0, 1, 25, dtype=np.float32)
    yield rng.standard_normal((10, 12))
    yield rng.standard_normal((4, 3, 5)).astype(np.float32)
    yield rng.standard_normal((2, 2, 2, 2)) * 1e6
    yield np.arange(2000)
    yield np.arange(1001, dtype=np.float32) / 7
    yield np.zeros((30, 40))
    yield rng.standard_normal((10, 11, 12))
    yield rng.integers(-1000, 1000, (50, 50))
    yield np.zeros(0)
    yield np.zeros(0, dtype=np.int32)
    yield np.zeros((2, 0), dtype=np.int32)
    yield np.zeros((0, 3))
    yield np.ones((1, 1, 1))
    yield np.array([1e16, 1.0])
    yield rng.standard_normal(40) * 10.0 ** rng.integers(-12, 12, 40)
    yield (rng.standard_normal(30) * 1e3).astype(np.float16)
    yield rng.standard_normal(20).astype(np.complex64) * (1 + 1j)
    yield np.array([123456789012345678], dtype=np.int64)
    yield np.full((3, 26), 7.25)
    yield np.full(80, -1, dtype=np.int8)
    # Random arrays: dtypes, shapes and magnitudes that stress the rules.
    for k in range(150):
        dt = ["float16", "float32", "float64", "complex64", "complex128"][k % 5]
        shape = tuple(int(x) for x in rng.integers(1, 7, rng.integers(0, 4)))
        scale = 10.0 ** float(rng.integers(-10, 10))
        a = rng.standard_normal(shape) * scale
        if k % 3 == 0:
            a = np.round(a, int(rng.integers(0, 4)))
        if dt.startswith("complex"):
            a = a + 1j * rng.standard_normal(shape) * scale
        with np.errstate(over="ignore"):
            a = np.asarray(a).astype(dt)
        if k % 7 == 0 and a.size:
            a.flat[0] = [np.nan, np.inf, -np.inf][k % 3]
        yield a


def main(d):
    for i, a in enumerate(cases()):
        np.save(os.path.join(d, "r%03d.npy" % i), a)
        with open(os.path.join(d, "r%03d.txt" % i), "w") as f:
            f.write(repr(a))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
