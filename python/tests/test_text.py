"""parse / parse_all, HloError and its diagnostics, format/str, verify,
infer_shapes, and the computation/instruction views."""
import os

import numpy as np
import pytest

import hlotools
from conftest import ROOT, tool

NEG = "ENTRY e {\n p = f32[3] parameter(0)\n ROOT n = f32[3] negate(p)\n}\n"


def test_parse_text_and_str():
    m = hlotools.parse(NEG)
    assert isinstance(m, hlotools.Module)
    text = str(m)
    assert text == m.format() == m.format("default")
    # XLA's printer: '%' sigils, default layouts, signature of the entry
    assert "ENTRY %e (p: f32[3]) -> f32[3] {" in text
    assert "ROOT %n = f32[3]{0} negate(%p)" in text
    assert m.name is None  # no HloModule header


def test_parse_path_bytes_and_pathlike(tmp_path):
    path = os.path.join(ROOT, "testdata", "examples", "mlp.hlo")
    a = hlotools.parse(path)
    import pathlib
    b = hlotools.parse(pathlib.Path(path))
    c = hlotools.parse(open(path, "rb").read())
    assert a.name == b.name == c.name == "mlp"
    assert a.source_name == path
    assert str(a) == str(b) == str(c)
    with pytest.raises(FileNotFoundError):
        hlotools.parse(str(tmp_path / "missing.hlo"))
    with pytest.raises(TypeError):
        hlotools.parse(42)


def test_format_forms_match_hlo_fmt(tmp_path):
    path = os.path.join(ROOT, "testdata", "examples", "mlp.hlo")
    m = hlotools.parse(path)
    assert m.format() == tool("hlo-fmt", path).stdout
    assert m.format("long") == tool("hlo-fmt", "--operand-shapes", path).stdout
    assert m.format("short") == tool("hlo-fmt", "--short", path).stdout
    # independent of the tool: what each form writes
    assert "dot(f32[4,8]{1,0} %x, f32[8,16]{1,0} %w)" in m.format("long")
    assert "%" not in m.format("short")
    assert "%dot = f32[4,16] dot(%x, %w)" in m.format(no_layouts=True)
    with pytest.raises(ValueError):
        m.format("tiny")


def test_parse_all():
    text = NEG + "// -----\nHloModule second\nENTRY f {\n ROOT c = s32[] constant(7)\n}\n// -----\n"
    mods = hlotools.parse_all(text)
    assert [m.name for m in mods] == [None, "second"]  # the trailing empty chunk is skipped
    assert hlotools.parse(text).format() == mods[0].format()
    assert mods[1].run() == 7


def test_parse_error_carries_every_diagnostic():
    text = ("ENTRY e {\n"
            " p = f32[3] parameter(0)\n"
            " a = f32[3] negat(p)\n"
            " ROOT b = f32[3] bogus(a)\n"
            "}\n")
    with pytest.raises(hlotools.HloError) as ei:
        hlotools.parse(text, name="bad.hlo")
    e = ei.value
    errs = e.errors
    assert len(errs) == 2
    # positions counted by hand: line 3 " a = f32[3] negat(p)", the opcode at column 13
    assert (errs[0].file, errs[0].line, errs[0].column) == ("bad.hlo", 3, 13)
    assert errs[0].location == "bad.hlo:3:13"
    assert "negat" in errs[0].message
    assert errs[0].source_line == " a = f32[3] negat(p)"
    assert (errs[1].line, errs[1].column) == (4, 18)
    assert errs[1].source_line == " ROOT b = f32[3] bogus(a)"
    # rendering as the tools do: location, message, source line, caret
    s = str(errs[0]).split("\n")
    assert s[0].startswith("bad.hlo:3:13: error: ")
    assert s[2] == " " * 12 + "^"
    assert str(e).count("error:") == 2


def test_parse_error_max_errors():
    text = "ENTRY e {\n" + "".join(" a%d = f32[] bad%d()\n" % (i, i) for i in range(30)) + "}\n"
    with pytest.raises(hlotools.HloError) as ei:
        hlotools.parse(text, max_errors=5)
    assert len(ei.value.errors) == 5


def test_verify_and_options(tmp_path):
    assert hlotools.parse(NEG).verify() == []
    mixed = ("HloModule m\nENTRY e {\n a = f32[2] parameter(0)\n b = bf16[2] parameter(1)\n"
             " ROOT c = f32[2] add(a, b)\n}\n")
    with pytest.raises(hlotools.HloError) as ei:
        hlotools.parse(mixed).verify()
    d = ei.value.errors[0]
    assert (d.line, d.column) == (5, 7) and "mixed precision" in d.message
    assert hlotools.parse(mixed).verify(allow_mixed_precision=True) == []
    layout = ("HloModule m\nENTRY e {\n a = f32[2,3]{0,1} parameter(0)\n"
              " ROOT n = f32[2,3]{1,0} negate(a)\n}\n")
    assert hlotools.parse(layout).verify() == []
    with pytest.raises(hlotools.HloError) as ei:
        hlotools.parse(layout).verify(layout_sensitive=True)
    assert (ei.value.errors[0].line, ei.value.errors[0].column) == (4, 7)
    # every error of a module is reported
    two = ("ENTRY e {\n a = f32[2] parameter(0)\n b = f32[3] negate(a)\n"
           " ROOT c = s32[2] negate(a)\n}\n")
    with pytest.raises(hlotools.HloError) as ei:
        hlotools.parse(two).verify()
    assert sorted(d.line for d in ei.value.errors) == [3, 4]


def test_infer_shapes():
    m = hlotools.parse("ENTRY e {\n p = f32[3] parameter(0)\n ROOT n = negate(p)\n}\n")
    out = m.infer_shapes()
    assert out is not m and out.diagnostics == []
    assert "ROOT %n = f32[3]{0} negate(%p)" in str(out)
    assert m.instruction("n").shape == (3,)  # omitted shapes are inferred for the views too
    wrong = hlotools.parse("ENTRY e {\n p = f32[3] parameter(0)\n ROOT n = f32[4] negate(p)\n}\n")
    fixed = wrong.infer_shapes()
    assert "f32[3]{0} negate" in str(fixed)
    w = fixed.diagnostics
    assert len(w) == 1 and w[0].severity == "warning" and (w[0].line, w[0].column) == (3, 7)
    assert "differs from the inferred shape f32[3]" in w[0].message
    with pytest.raises(hlotools.HloError):
        hlotools.parse("ENTRY e {\n p = f32[3] parameter(0)\n q = f32[2] parameter(1)\n"
                       " ROOT n = add(p, q)\n}\n").infer_shapes()


def test_computations_and_instructions():
    m = hlotools.parse(os.path.join(ROOT, "testdata", "examples", "mlp.hlo"))
    comps = m.computations
    assert [c.name for c in comps] == ["max_f32", "main"]
    assert m.entry.name == "main" and m.entry.is_entry and not comps[0].is_entry
    assert [i.name for i in m.entry.parameters] == ["x", "w", "bias"]
    assert len(m.instructions) == 3 + 9
    dot = m.instruction("dot")
    assert dot.opcode == "dot" and dot.computation is m.entry
    assert dot.dtype == np.float32 and dot.dims == (4, 16)
    dtype, dims = dot.shape
    assert dtype == np.dtype("float32") and dims == (4, 16) and str(dot.shape) == "f32[4,16]"
    assert dot.shape.layout == (1, 0)
    assert [o.name for o in dot.operands] == ["x", "w"]
    assert [u.name for u in dot.users] == ["pre"]
    assert dot.attributes == {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)}
    assert m.instruction("bias.b").attributes["dimensions"] == (1,)
    assert m.instruction("x").parameter_number == 0
    assert m.instruction("bias").parameter_number == 2
    zero = m.instruction("%zero")
    assert zero.literal.dtype == np.float32 and zero.literal.shape == () and zero.literal == 0
    relu = m.entry.root
    assert relu.name == "relu" and relu.is_root and relu.users == []
    assert m.computation("max_f32").root.opcode == "maximum"
    with pytest.raises(KeyError):
        m.instruction("nope")


def test_attribute_kinds():
    text = ("HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
            " ROOT c = f32[] add(a, b)\n}\n"
            "ENTRY e {\n p = f32[4,6] parameter(0)\n"
            " s = f32[2,3] slice(p), slice={[0:4:2], [1:4]}\n"
            " k = s32[3] constant({1, -2, 3})\n"
            " c = pred[2,3] compare(s, s), direction=LT\n"
            " z = f32[] constant(0)\n"
            " r = f32[2] reduce(s, z), dimensions={1}, to_apply=add\n"
            " t = (f32[2], s32[3], pred[2,3]) tuple(r, k, c)\n"
            " ROOT g = f32[2] get-tuple-element(t), index=0\n}\n")
    m = hlotools.parse(text)
    s = m.instruction("s").attributes["slice"]
    assert [(d["start"], d["limit"], d["stride"]) for d in s] == [(0, 4, 2), (1, 4, 1)]
    assert m.instruction("c").attributes["direction"] == "LT"
    assert m.instruction("c").dtype == np.bool_
    assert m.instruction("r").attributes["to_apply"] == "add"
    assert m.instruction("r").called_computations == ("add",)
    assert m.instruction("g").attributes["index"] == 0
    np.testing.assert_array_equal(m.instruction("k").literal, np.array([1, -2, 3], np.int32))
    t = m.instruction("t").shape
    assert t.is_tuple and t.dtype is None and [str(e) for e in t.elements] == \
        ["f32[2]", "s32[3]", "pred[2,3]"]


def test_binds_only_the_public_api():
    """Every libhlo function the package calls is declared in a public
    header (include/hlo/*.h): libhlo.so may export nothing else."""
    import glob
    import re
    from hlotools import _lib
    headers = "".join(open(h).read() for h in glob.glob(os.path.join(ROOT, "include", "hlo", "*.h")))
    src = open(_lib.__file__).read()
    bound = set(re.findall(r'_fn\("(\w+)"', src))
    assert len(bound) > 30
    missing = [f for f in sorted(bound) if not re.search(r"\b%s\s*\(" % f, headers)]
    assert missing == []


def _header_fields(headers, name):
    """The member names of struct `name` as a public header declares them,
    in order (comments dropped; `a, b` and arrays and function pointers
    handled), or None when the header has no body for it."""
    import re
    m = re.search(r"struct %s \{(.*?)\n\}" % name, headers, re.S)
    if not m:
        return None
    body = re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S))
    names = []
    for decl in (d.strip() for d in body.split(";")):
        if not decl:
            continue
        fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
        if fp:
            names.append(fp.group(1))
            continue
        for part in re.sub(r"\[[^\]]*\]", "", decl).split(","):
            names.append(re.findall(r"\w+", part)[-1])
    return names


def test_structures_mirror_their_headers():
    """Every ctypes Structure names the C struct it mirrors in a comment;
    its fields are that struct's members in order (all of them, or the
    leading ones where the comment says so).  A member added to an options
    struct and not here would make libhlo read past the Python object."""
    import ctypes
    import glob
    import inspect
    import re
    from hlotools import _lib
    headers = "".join(open(h).read() for h in glob.glob(os.path.join(ROOT, "include", "hlo", "*.h")))
    checked = 0
    for cls in vars(_lib).values():
        if not (isinstance(cls, type) and issubclass(cls, ctypes.Structure)) or cls is ctypes.Structure:
            continue
        comment = re.search(r"#\s*(leading fields of )?(\w+)", inspect.getsource(cls).splitlines()[0])
        assert comment, "%s names no C struct" % cls.__name__
        want = _header_fields(headers, comment.group(2))
        assert want is not None, "%s: struct %s not in include/hlo" % (cls.__name__, comment.group(2))
        have = [f for f, _ in cls._fields_]
        if comment.group(1):
            want = want[:len(have)]
        assert have == want, cls.__name__
        checked += 1
    assert checked >= 20


def test_verify_takes_every_verifier_option():
    reshape = "HloModule r\nENTRY e {\n  p = f32[2,3]{1,0} parameter(0)\n" \
              "  ROOT r = f32[3,2]{0,1} reshape(p)\n}\n"
    assert hlotools.parse(reshape).verify() == []
    with pytest.raises(hlotools.HloError):
        hlotools.parse(reshape).verify(layout_sensitive=True, verify_reshape_is_bitcast=True)
    with pytest.raises(TypeError):
        hlotools.parse(reshape).verify(no_such_option=True)
