"""indexing maps, fusion and the exports (JSON, graph JSON, dot, SVG, PNG,
HTML)."""
import json
import os

import numpy as np
import pytest

import hlotools
from conftest import ROOT, tool

TEXT = ("HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
        " ROOT c = f32[] add(a, b)\n}\n"
        "ENTRY e {\n p = f32[4,6] parameter(0)\n t = f32[6,4] transpose(p), dimensions={1,0}\n"
        " z = f32[] constant(0)\n ROOT r = f32[6] reduce(t, z), dimensions={1}, to_apply=add\n}\n")


def test_indexing_transpose_text_and_evaluate(tmp_path):
    m = hlotools.parse(TEXT)
    x = m.indexing("t")
    assert isinstance(x, hlotools.Indexing) and len(x) == 1 and len(x[0]) == 1
    # XLA's format, written by hand: out[d0, d1] = in[d1, d0] over the output's bounds
    want = "operand id = 0\n(d0, d1) -> (d1, d0),\ndomain:\nd0 in [0, 5],\nd1 in [0, 3]\n"
    assert str(x) == want
    f = tmp_path / "m.hlo"
    f.write_text(TEXT)
    assert str(x) == tool("hlo-index", "-i", "t", f).stdout
    mp = x[0][0]
    assert mp.state == "defined" and mp.ndims == 2 and mp.nsymbols == 0
    assert mp.domain == ((0, 5), (0, 3))
    # against numpy: every output element of the transpose reads the input
    # element the map names
    p = np.arange(24, dtype=np.float32).reshape(4, 6)
    out = p.T
    for i in range(6):
        for j in range(4):
            assert out[i, j] == p[mp.evaluate((i, j))]
    with pytest.raises(ValueError, match="outside the domain"):
        mp.evaluate((6, 0))
    with pytest.raises(ValueError, match="takes 2 dimension values"):
        mp.evaluate((1,))


def test_indexing_reduce_symbols_and_operand():
    m = hlotools.parse(TEXT)
    x = m.indexing()  # the entry ROOT: the reduce
    assert x.instruction.name == "r" and len(x) == 2
    maps = m.indexing(operand=0)
    assert isinstance(maps, hlotools.MapSet) and len(maps) == 1
    mp = maps[0]
    assert str(mp) == "(d0)[s0] -> (d0, s0),\ndomain:\nd0 in [0, 5],\ns0 in [0, 3]"
    assert str(maps) == str(mp) + "\n"
    assert mp.nsymbols == 1 and mp.symbol_bounds == ((0, 3),)
    t = np.arange(24.0).reshape(6, 4)
    # r[d0] sums t[d0, s0] over the symbol's range: the same as numpy's sum
    for d0 in range(6):
        assert sum(t[mp.evaluate((d0,), symbols=(s,))] for s in range(4)) == t.sum(axis=1)[d0]
    with pytest.raises(ValueError, match="symbol"):
        mp.evaluate((0,))
    init = m.indexing(operand=1)[0]
    assert init.nresults == 0 and init.evaluate((3,)) == ()


def test_indexing_in2out_and_errors():
    m = hlotools.parse(TEXT)
    x = m.indexing("t", direction="in2out")
    assert x.direction == "in2out"
    assert str(x[0][0]) == "(d0, d1) -> (d1, d0),\ndomain:\nd0 in [0, 3],\nd1 in [0, 5]"
    assert m.indexing("t", direction="in2out", output=0)[0].evaluate((3, 5)) == (5, 3)
    with pytest.raises(ValueError):
        m.indexing("t", direction="sideways")
    with pytest.raises(IndexError, match="no operand 2"):
        m.indexing("r", operand=2)
    with pytest.raises(ValueError, match="no operands"):
        m.indexing("p", direction="in2out")
    with pytest.raises(KeyError):
        m.indexing("missing")
    phys = hlotools.parse("ENTRY e {\n p = f32[2,3]{0,1} parameter(0)\n"
                          " ROOT n = f32[2,3]{0,1} negate(p)\n}\n")
    assert str(phys.indexing(physical=True)[0][0]).startswith("(d0, d1) -> (d0, d1)")


def test_fuse_returns_a_new_module_that_runs_the_same():
    m = hlotools.parse(TEXT)
    f = m.fuse()
    assert f is not m and isinstance(f, hlotools.Module)
    ops = [i.opcode for i in f.entry.instructions]
    assert ops == ["parameter", "fusion"]
    assert f.entry.root.attributes["kind"] == "kInput"
    assert [i.opcode for i in m.entry.instructions] == ["parameter", "transpose", "constant",
                                                        "reduce"]  # the original is unchanged
    p = np.random.default_rng(0).random((4, 6), np.float32)
    want = p.T.astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(f.run(p), want, rtol=1e-6)
    np.testing.assert_allclose(m.run(p), want, rtol=1e-6)
    assert "fusion" not in str(m.fuse(kinds=["loop"]).entry.root.opcode)  # no loop fusion here
    with pytest.raises(ValueError):
        m.fuse(kinds=["bogus"])
    mlp = hlotools.parse(os.path.join(ROOT, "testdata", "examples", "mlp.hlo"))
    assert str(mlp.fuse()) == tool("hlo-fuse", os.path.join(ROOT, "testdata", "examples",
                                                            "mlp.hlo")).stdout


def test_to_json_round_trip(tmp_path):
    m = hlotools.parse(TEXT)
    f = tmp_path / "m.hlo"
    f.write_text(TEXT)
    assert m.to_json() == tool("hlo-json", f).stdout
    doc = json.loads(m.to_json())
    assert doc["format"] == "hlo-json" and doc["version"] == 1
    mod = doc["modules"][0]
    assert mod["name"] == "m" and mod["entry"] == "e"
    assert [i["name"] for i in mod["computations"][1]["instructions"]] == ["p", "t", "z", "r"]
    assert "\n\t" in m.to_json(pretty=True) and "\n" not in m.to_json().rstrip("\n")
    g = json.loads(m.to_json(graph=True))
    labels = [n["label"] for n in g[0]["subgraphs"][0]["nodes"]]
    assert {"p", "t", "z", "r"} <= set(labels)
    with pytest.raises(hlotools.HloError):
        m.to_json(graph=True, computation="nope")


def test_dot_svg_png_html(tmp_path):
    m = hlotools.parse(TEXT)
    f = tmp_path / "m.hlo"
    f.write_text(TEXT)
    assert m.to_dot() == tool("hlo-dot", f).stdout
    assert m.to_dot(format="svg") == tool("hlo-dot", "-T", "svg", f).stdout
    assert m.to_html() == tool("hlo-dot", "-T", "html", f).stdout
    dot = m.to_dot()
    assert dot.startswith("digraph") and "transpose" in dot
    svg = m.to_dot(format="svg")
    assert "<svg" in svg and "</svg>" in svg
    png = m.to_dot(format="png")
    assert isinstance(png, bytes) and png[:8] == b"\x89PNG\r\n\x1a\n"
    html = m.to_html()
    assert html.lstrip().lower().startswith("<!doctype html") and "<svg" in html and "transpose" in html
    near = m.to_dot(around="t", radius=1)
    assert "transpose" in near
    with pytest.raises(hlotools.HloError, match="nope"):
        m.to_dot(around="nope")
    with pytest.raises(ValueError):
        m.to_dot(format="gif")


def test_stats_counts_as_xla_and_matches_hlo_stats():
    """dot f32[2,3] x f32[3,4]: 2*2*3*4 = 48 FLOPs (a multiply and an add per
    term, HloCostAnalysis); the add of f32[2,4]: 8.  The dict is the object
    `hlo-stats --json` prints."""
    text = ("HloModule s\nENTRY e {\n a = f32[2,3] parameter(0)\n b = f32[3,4] parameter(1)\n"
            " c = f32[2,4] parameter(2)\n d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={0}\n ROOT s = f32[2,4] add(d, c)\n}\n")
    st = hlotools.parse(text).stats()
    assert st["totals"]["flops"] == 48 + 8
    assert st["parameter_bytes"] == 4 * (6 + 12 + 8)
    assert json.loads(tool("hlo-stats", "--json", "-", input=text).stdout) == st
    assert "roofline" in hlotools.parse(text).stats(peak_gflops=10, peak_gbps=1)
    with pytest.raises(ValueError):
        hlotools.parse(text).stats(peak_gflops=10)
    with pytest.raises(hlotools.HloError):
        hlotools.parse("ENTRY e {\n ROOT p = f32[2] add(f32[2] parameter(0), f32[3] parameter(1))\n}\n").stats()
