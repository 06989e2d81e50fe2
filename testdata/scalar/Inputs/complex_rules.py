#!/usr/bin/env python3
"""atan2, maximum, minimum and clamp of complex numbers against XLA's
evaluator's definitions written out in numpy: atan2(p0, p1) =
-i log((p1 + i p0) / sqrt(p1^2 + p0^2)), the first operand in the role of
y as for reals (HandleAtan2); maximum/minimum/clamp order (real, imaginary) pairs
lexicographically.  Runs hlo-run on both paths; prints "complex_rules: ok"
or the first difference."""
import os
import subprocess
import sys
import tempfile

import numpy as np

HLO_RUN = os.environ.get("HLO_RUN", "hlo-run")
rng = np.random.default_rng(7)
n = 64


def cplx(dtype):
    re = rng.integers(-3, 4, n).astype(np.float64) / 2  # ties in the real part on purpose
    im = rng.standard_normal(n)
    return (re + 1j * im).astype(dtype)


def lex_max(a, b):
    take_a = (a.real > b.real) | ((a.real == b.real) & (a.imag >= b.imag))
    return np.where(take_a, a, b)


def lex_min(a, b):
    take_a = (a.real < b.real) | ((a.real == b.real) & (a.imag <= b.imag))
    return np.where(take_a, a, b)


def main():
    bad = []
    with tempfile.TemporaryDirectory() as d:
        for t, dt, tol in (("c64", np.complex64, 2e-6), ("c128", np.complex128, 1e-14)):
            x, y, z = cplx(dt), cplx(dt), cplx(dt)
            for name, a in (("x", x), ("y", y), ("z", z)):
                np.save(os.path.join(d, name + ".npy"), a)
            cases = {
                "atan2": ("atan2(p0, p1)", -1j * np.log((y.astype(np.complex128) + 1j * x) /
                                                        np.sqrt(y.astype(np.complex128) ** 2 + x.astype(np.complex128) ** 2))),
                "maximum": ("maximum(p0, p1)", lex_max(x, y)),
                "minimum": ("minimum(p0, p1)", lex_min(x, y)),
                "clamp": ("clamp(p0, p2, p1)", lex_min(lex_max(z, lex_min(x, y)), lex_max(x, y))),
            }
            for op, (expr, want) in cases.items():
                if op == "clamp":  # lo = min(x, y), hi = max(x, y) computed by the module
                    expr = "clamp(lo, p2, hi)"
                text = ("HloModule m\nENTRY e {\n  p0 = %s[%d] parameter(0)\n  p1 = %s[%d] parameter(1)\n"
                        "  p2 = %s[%d] parameter(2)\n  lo = %s[%d] minimum(p0, p1)\n  hi = %s[%d] maximum(p0, p1)\n"
                        "  ROOT r = %s[%d] %s\n}\n") % ((t, n) * 6 + (expr,))
                path = os.path.join(d, "m.hlo")
                open(path, "w").write(text)
                for ref in (True, False):
                    out = os.path.join(d, "out.npy")
                    r = subprocess.run([HLO_RUN, path] + [os.path.join(d, v + ".npy") for v in "xyz"] +
                                       ["-o", out] + (["--reference"] if ref else []),
                                       capture_output=True, text=True)
                    if r.returncode != 0:
                        bad.append("%s %s: exit %d %s" % (op, t, r.returncode, r.stderr.strip()[:200]))
                        continue
                    got = np.load(out)
                    exact = op != "atan2"
                    ok = np.array_equal(got, want.astype(dt)) if exact else \
                        np.allclose(got, want, rtol=tol, atol=tol)
                    if not ok:
                        bad.append("%s %s%s: got %s want %s" % (op, t, " (reference)" if ref else "",
                                                               got[:3], want[:3]))
    print("\n".join(bad) if bad else "complex_rules: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
