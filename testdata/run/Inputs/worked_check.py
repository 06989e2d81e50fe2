#!/usr/bin/env python3
"""Checks the result of worked_examples.hlo (an .npz, members out0...) against
the values of operation_semantics' worked examples (ops_catalog.md section 4),
written here as the spec states them."""
import sys

import numpy as np

FMAX = np.float32(3.40282347e38)
v = [[[10, 11, 12], [15, 16, 17]], [[20, 21, 22], [25, 26, 27]], [[30, 31, 32], [35, 36, 37]], [[40, 41, 42], [45, 46, 47]]]
flat = [10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47]
EXPECTED = [
    ("W6 f32 1.0 as two f16 (little-endian halves 0x0000, 0x3f80)", np.array([0, 0x3F80], np.uint16).view(np.float16)),
    ("W6 round trip", 1.0),
    ("W7", [[2, 2, 2], [2, 2, 2]]),
    ("W8", [0, 5, 6]),
    ("W9 {0,1,2}", flat),
    ("W9 {0,1}", [flat[0:6], flat[6:12], flat[12:18], flat[18:24]]),
    ("W10 {8,3}", [flat[i:i + 3] for i in range(0, 24, 3)]),
    ("W10 scalar", 5),
    ("W11", [[1, 2], [3, 4], [5, 6], [7, 8]]),
    ("W12", [0.0, 1.0, 2.0]),
    ("W13 contracting", [[6, 12], [15, 30]]),
    ("W13 batch", [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
    ("W14 1-D", [2, 3]),
    ("W14 2-D", [[7, 8], [10, 11]]),
    ("W15 1-D", [0, 1, 5, 6, 4]),
    ("W15 2-D", [[0, 1, 2], [3, 12, 13], [6, 14, 15], [9, 16, 17]]),
    ("W16 1-D", [2, 3]),
    ("W16 2-D", [[7, 8], [10, 11]]),
    ("W19 dim 0", [[r] * 8 for r in range(4)]),
    ("W19 dim 1", [list(range(8))] * 4),
    ("W20 dim 0", [[4, 8, 12], [16, 20, 24]]),
    ("W20 dim 2", [[6, 15]] * 4),
    ("W20 dims 0,1", [20, 28, 36]),
    ("W20 all", 84),
    ("W22 valid", [100, 1]),
    ("W22 same", [1000, 10, 1]),
    ("W23", [[0, 0], [3, 4]]),
    ("W25", [1, 200, 300, 4]),
    ("W27 operand 0", [1, 3]),
    ("W27 operand 1", [50, 42]),
    ("W27 operand 2", np.array([1.1, -3.0], np.float32)),
    ("W30 counter", 1000),
    ("W30 vector", [1000.0 * c for c in range(1, 11)]),
]


def main():
    z = np.load(sys.argv[1])
    got = [z["out%d" % i] for i in range(len(z.files))]
    failed = 0
    if len(got) != len(EXPECTED):
        print("FAIL: %d outputs, expected %d" % (len(got), len(EXPECTED)))
        failed += 1
    for (name, want), g in zip(EXPECTED, got):
        w = np.asarray(want)
        if g.shape != w.shape or not np.array_equal(g.astype(np.float64), w.astype(np.float64)):
            print("FAIL %s: got %r, expected %r" % (name, g, w))
            failed += 1
    print("worked examples: %d checked, %d failed" % (len(EXPECTED), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
