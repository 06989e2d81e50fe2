"""Module.run / compile / Executable: results against numpy and against
hlo-run, inputs and outputs without copies (checked by buffer address),
element types, run errors with positions, threads, and handle lifetimes."""
import os
import threading

import numpy as np
import pytest

import hlotools
from hlotools import _lib, _run
from conftest import ROOT, tool

MLP = os.path.join(ROOT, "testdata", "examples", "mlp.hlo")


def mlp_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((4, 8)).astype(np.float32),
            rng.standard_normal((8, 16)).astype(np.float32),
            rng.standard_normal(16).astype(np.float32))


def test_mlp_against_numpy_and_hlo_run(tmp_path):
    x, w, b = mlp_inputs()
    m = hlotools.parse(MLP)
    got = m.run(x, w, b)
    want = np.maximum(x.astype(np.float64) @ w + b, 0)  # numpy, in double
    assert got.dtype == np.float32 and got.shape == (4, 16)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for name, a in (("x", x), ("w", w), ("b", b)):
        np.save(tmp_path / (name + ".npy"), a)
    tool("hlo-run", MLP, tmp_path / "x.npy", tmp_path / "w.npy", tmp_path / "b.npy",
         "-o", tmp_path / "out.npy")
    cli = np.load(tmp_path / "out.npy")
    np.testing.assert_array_equal(got, cli)  # the same interpreter: the same bits
    ref = m.run(x, w, b, reference=True)
    np.testing.assert_allclose(ref, want, rtol=1e-5, atol=1e-6)


def test_corpus_while_tuple_result(corpus):
    m = hlotools.parse(os.path.join(corpus, "xla__tools__multihost_hlo_runner__data__"
                                    "while_with_known_trip_count.hlo"))
    r = m.run()
    # (s32[]) tuple: the counter runs 0 -> 7 (trip count 7, by hand)
    assert isinstance(r, tuple) and len(r) == 1 and r[0].dtype == np.int32 and r[0] == 7


def test_nested_tuples_scalars_and_lists():
    m = hlotools.parse("ENTRY e {\n a = f32[] parameter(0)\n b = s32[2] parameter(1)\n"
                       " n = f32[] negate(a)\n m = s32[2] multiply(b, b)\n"
                       " i = (s32[2], f32[]) tuple(m, a)\n"
                       " ROOT t = (f32[], (s32[2], f32[])) tuple(n, i)\n}\n")
    r = m.run(2.5, [3, -4])
    assert isinstance(r, tuple) and isinstance(r[1], tuple)
    assert r[0].shape == () and r[0] == -2.5
    np.testing.assert_array_equal(r[1][0], np.array([9, 16], np.int32))
    assert r[1][1] == 2.5


def test_elided_constants_take_xla_parser_values():
    # XLA's parser fills {...} with a counter over the elided constants in
    # text order, one value per 32-bit word: a = 0, 1, 2 and b = 3, 4
    m = hlotools.parse("ENTRY e {\n a = s32[3] constant({...})\n b = u32[2] constant({...})\n"
                       " ROOT t = (s32[3], u32[2]) tuple(a, b)\n}\n")
    r = m.run()
    np.testing.assert_array_equal(r[0], np.array([0, 1, 2], np.int32))
    np.testing.assert_array_equal(r[1], np.array([3, 4], np.uint32))
    assert "constant({...})" in m.format()


def test_elementwise_types_against_numpy():
    rng = np.random.default_rng(1)
    cases = [("f64", np.float64), ("f16", np.float16), ("s8", np.int8), ("u16", np.uint16),
             ("s64", np.int64)]
    for t, dt in cases:
        m = hlotools.parse("ENTRY e {\n a = %s[5] parameter(0)\n b = %s[5] parameter(1)\n"
                           " ROOT c = %s[5] multiply(a, b)\n}\n" % (t, t, t))
        a = (rng.standard_normal(5) * 10).astype(dt)
        b = (rng.standard_normal(5) * 10).astype(dt)
        got = m.run(a, b)
        assert got.dtype == dt
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(got, a * b)
    m = hlotools.parse("ENTRY e {\n a = c64[3] parameter(0)\n ROOT c = c64[3] multiply(a, a)\n}\n")
    z = np.array([1 + 2j, -3j, 0.5], np.complex64)
    np.testing.assert_allclose(m.run(z), z * z, rtol=1e-6)
    m = hlotools.parse("ENTRY e {\n a = f32[4] parameter(0)\n z = f32[] constant(0)\n"
                       " zs = f32[4] broadcast(z), dimensions={}\n"
                       " ROOT c = pred[4] compare(a, zs), direction=GT\n}\n")
    np.testing.assert_array_equal(m.run(np.array([1, -1, 0, 2], np.float32)),
                                  [True, False, False, True])


def test_dot_against_numpy():
    m = hlotools.parse("ENTRY e {\n a = f32[3,5] parameter(0)\n b = f32[5,2] parameter(1)\n"
                       " ROOT d = f32[3,2] dot(a, b), lhs_contracting_dims={1},"
                       " rhs_contracting_dims={0}\n}\n")
    rng = np.random.default_rng(2)
    a, b = rng.random((3, 5), np.float32), rng.random((5, 2), np.float32)
    np.testing.assert_allclose(m.run(a, b), a.astype(np.float64) @ b, rtol=1e-5)


def test_inputs_by_pointer(monkeypatch):
    """The pointer handed to the library is the array's own buffer when the
    array is C-contiguous and of the parameter's dtype; otherwise a
    converted copy."""
    seen = []
    real = _lib.hlo_exec_run

    def spy(e, vals, n, res):  # the data pointers of the values the library is given
        seen.extend(vals[i].contents.data for i in range(n))
        assert all(vals[i].contents.borrowed for i in range(n))
        return real(e, vals, n, res)
    monkeypatch.setattr(_lib, "hlo_exec_run", spy)
    m = hlotools.parse("ENTRY e {\n a = f32[6] parameter(0)\n b = f32[6] parameter(1)\n"
                       " ROOT c = f32[6] add(a, b)\n}\n")
    exe = m.compile()
    a = np.arange(6, dtype=np.float32)
    b = np.ones(6, np.float32)
    b.flags.writeable = False  # read-only arrays pass by pointer too: the library never writes
    np.testing.assert_array_equal(exe.run(a, b), a + 1)
    assert seen == [a.ctypes.data, b.ctypes.data]
    seen.clear()
    big = np.arange(12, dtype=np.float32)
    strided = big[::2]  # not contiguous
    f64 = np.arange(6, dtype=np.float64)  # not the parameter's dtype
    np.testing.assert_array_equal(exe.run(strided, f64), strided + f64)
    assert seen[0] != strided.ctypes.data and seen[1] != f64.ctypes.data
    np.testing.assert_array_equal(a, np.arange(6))  # inputs untouched


def _owner(arr):
    base = arr
    while base is not None and not isinstance(base, _run._Owned):
        base = getattr(base, "base", None)
    return base


def test_outputs_without_copy():
    m = hlotools.parse("ENTRY e {\n a = f32[1000] parameter(0)\n b = f32[1000] negate(a)\n"
                       " c = f32[1000] exponential(a)\n ROOT t = (f32[1000], f32[1000]) tuple(b, c)\n}\n")
    exe = m.compile()
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    r1 = exe.run(x)
    for arr in r1:
        own = _owner(arr)
        assert own is not None  # the array's base holds the library's value
        assert own._val.contents.data == arr.ctypes.data  # same buffer address
        assert arr.flags.writeable and arr.flags.c_contiguous
    np.testing.assert_array_equal(r1[0], -x)
    np.testing.assert_allclose(r1[1], np.exp(x.astype(np.float64)), rtol=2e-6)
    r1[0][:] = 5  # the caller owns the buffer now
    r2 = exe.run(x)
    np.testing.assert_array_equal(r2[0], -x)
    assert r2[0].ctypes.data != r1[0].ctypes.data


def test_shared_results_are_copied():
    """A result the plan keeps (a constant) or that is an input comes back as
    a copy: writing to it must not change later runs or the input."""
    m = hlotools.parse("ENTRY e {\n p = f32[3] parameter(0)\n"
                       " c = f32[2] constant({1, 2})\n ROOT t = (f32[2], f32[3]) tuple(c, p)\n}\n")
    exe = m.compile()
    x = np.array([7, 8, 9], np.float32)
    c, p = exe.run(x)
    assert _owner(c) is None and not np.shares_memory(p, x)
    c[0] = 99
    p[0] = 99
    c2, p2 = exe.run(x)
    np.testing.assert_array_equal(c2, [1, 2])
    np.testing.assert_array_equal(x, [7, 8, 9])


def test_bf16_f8_int4_raw_bits():
    assert hlotools.raw_dtype("bf16") == np.uint16
    assert hlotools.raw_dtype("f8e4m3fn") == np.uint8
    assert hlotools.raw_dtype("s4") == np.int8 and hlotools.raw_dtype("u4") == np.uint8
    if _run._dtypes.ml_dtypes is not None:
        pytest.skip("ml_dtypes is installed: raw-bits paths are not used")
    m = hlotools.parse("ENTRY e {\n p = bf16[3] parameter(0)\n ROOT c = f32[3] convert(p)\n}\n")
    # bf16 bit patterns by hand: 1.5 = 0x3FC0, -2 = 0xC000, 0.25 = 0x3E80
    bits = np.array([0x3FC0, 0xC000, 0x3E80], np.uint16)
    np.testing.assert_array_equal(m.run(bits), [1.5, -2, 0.25])
    # floats given for a bf16 parameter are rounded to nearest even:
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7 -> 1 (even); 1 + 3*2^-8 -> 1 + 2^-6
    np.testing.assert_array_equal(m.run(np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.0])),
                                  [1, 1 + 2 ** -6, 3])
    m = hlotools.parse("ENTRY e {\n p = f32[2] parameter(0)\n ROOT c = bf16[2] convert(p)\n}\n")
    out = m.run(np.array([1.5, -2], np.float32))
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(out, [0x3FC0, 0xC000])
    m = hlotools.parse("ENTRY e {\n p = f8e4m3fn[2] parameter(0)\n ROOT c = f32[2] convert(p)\n}\n")
    # e4m3fn: bias 7; 1.0 = 0 0111 000 = 0x38, -2.0 = 1 1000 000 = 0xC0
    np.testing.assert_array_equal(m.run(np.array([0x38, 0xC0], np.uint8)), [1, -2])
    with pytest.raises(TypeError):
        m.run(np.array([1.0, 2.0], np.float32))
    m = hlotools.parse("ENTRY e {\n p = s4[3] parameter(0)\n ROOT c = s32[3] convert(p)\n}\n")
    np.testing.assert_array_equal(m.run(np.array([-8, 7, -1], np.int8)), [-8, 7, -1])


def test_ml_dtypes_mapping_when_importable():
    class FakeMl:  # stands in for ml_dtypes: any numpy scalar types will do
        bfloat16 = np.float16
        int4 = np.int16
    assert hlotools.dtype("bf16", ml=FakeMl) == np.float16
    assert hlotools.dtype("s4", ml=FakeMl) == np.int16
    assert hlotools.dtype("f8e5m2", ml=FakeMl) == np.uint8  # FakeMl lacks it: raw bits
    assert hlotools.dtype("f32", ml=FakeMl) == np.float32


def test_tuple_and_token_parameters():
    m = hlotools.parse("add {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
                       " ROOT w = f32[] add(x, y)\n}\n"
                       "ENTRY e {\n p = (f32[2], (s32[], f32[3])) parameter(0)\n"
                       " t = token[] parameter(1)\n"
                       " a = f32[2] get-tuple-element(p), index=0\n"
                       " q = (s32[], f32[3]) get-tuple-element(p), index=1\n"
                       " b = f32[3] get-tuple-element(q), index=1\n"
                       " i = s32[] get-tuple-element(q), index=0\n"
                       " z = f32[] constant(0)\n"
                       " s = f32[] reduce(b, z), dimensions={0}, to_apply=add\n"
                       " ROOT r = (f32[2], s32[], f32[]) tuple(a, i, s)\n}\n")
    a = np.array([1, 2], np.float32)
    b = np.array([0.5, 1.5, 2.0], np.float32)
    r = m.run((a, (np.int32(7), b)), None)
    np.testing.assert_array_equal(r[0], a)
    assert r[1] == 7 and r[2] == b.sum()
    assert not np.shares_memory(r[0], a)
    with pytest.raises(TypeError, match="tuple"):
        m.run(a, None)


def test_compile_runs_many_times():
    m = hlotools.parse("ENTRY e {\n a = s32[4] parameter(0)\n ROOT c = s32[4] add(a, a)\n}\n")
    exe = m.compile(threads=1)
    assert exe.parameters == [("s32", (4,))]
    for k in range(50):
        a = np.arange(4, dtype=np.int32) + k
        np.testing.assert_array_equal(exe(a), 2 * a)
    exe.close()
    with pytest.raises(ValueError):
        exe.run(np.zeros(4, np.int32))


def test_input_errors():
    m = hlotools.parse("ENTRY e {\n a = f32[2,3] parameter(0)\n ROOT c = f32[2,3] negate(a)\n}\n")
    with pytest.raises(TypeError, match="takes 1 input, got 2"):
        m.run(np.zeros((2, 3), np.float32), np.zeros(1))
    with pytest.raises(ValueError, match=r"parameter 0 is f32\[2, 3\]: got an array of shape \(3, 2\)"):
        m.run(np.zeros((3, 2), np.float32))
    # replicas=2: the same computation on two devices, one result each
    two = m.run(np.ones((2, 3)), replicas=2)
    assert isinstance(two, list) and len(two) == 2
    for r in two:
        np.testing.assert_array_equal(r, -np.ones((2, 3)))
    np.testing.assert_array_equal(m.run(np.ones((2, 3)), replicas=1), -np.ones((2, 3)))


ALL_REDUCE = """HloModule ar, replica_count=2, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[3] parameter(0)
  id = u32[] replica-id()
  pid = u32[] partition-id()
  ar = f32[3] all-reduce(p), replica_groups={}, to_apply=add
  ROOT t = (f32[3], u32[], u32[]) tuple(ar, id, pid)
}
"""


def test_devices_run_collectives():
    """A module for 2 replicas x 2 partitions runs on 4 devices: the
    all-reduce (over the replicas of each partition, XLA's cross-replica
    mode) sums the inputs of devices k and k+2; replica-id and
    partition-id are each device's (logical device = replica * 2 +
    partition)."""
    m = hlotools.parse(ALL_REDUCE)
    assert m.device_counts() == (2, 2)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    res = m.run(x, per_device=True)
    assert len(res) == 4
    for k in range(4):
        s, rid, pid = res[k]
        np.testing.assert_array_equal(s, x[k % 2] + x[k % 2 + 2])
        assert (int(rid), int(pid)) == (k // 2, k % 2)
    # the same inputs everywhere: twice the input
    same = m.run(np.ones(3, np.float32))
    for s, _, _ in same:
        np.testing.assert_array_equal(s, 2 * np.ones(3))
    exe = m.compile_devices()
    assert (exe.devices, exe.replicas, exe.partitions) == (4, 2, 2)
    for _ in range(2):  # plans and threads are kept between runs
        out = exe.run([np.full(3, k, np.float32) for k in range(4)], per_device=True)
        np.testing.assert_array_equal(out[1][0], np.full(3, 1 + 3))
    with pytest.raises(ValueError, match="3 inputs for 4 devices"):
        exe.run([np.ones(3, np.float32)] * 3, per_device=True)
    exe.close()


def test_devices_collective_timeout_is_an_error():
    """A collective that one device never reaches fails after the timeout
    with an HloError naming the instruction, instead of hanging."""
    text = ("HloModule t, replica_count=2\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
            " ROOT s = f32[] add(a, b)\n}\nbody {\n p = f32[2] parameter(0)\n"
            " ROOT r = f32[2] all-reduce(p), replica_groups={}, to_apply=add\n}\nskip {\n"
            " p = f32[2] parameter(0)\n ROOT n = f32[2] negate(p)\n}\nENTRY e {\n"
            " x = f32[2] parameter(0)\n id = u32[] replica-id()\n zero = u32[] constant(0)\n"
            " c = pred[] compare(id, zero), direction=EQ\n"
            " ROOT o = f32[2] conditional(c, x, x), true_computation=body, false_computation=skip\n}\n")
    exe = hlotools.parse(text).compile_devices(timeout=1)
    with pytest.raises(hlotools.HloError,
                       match=r"instruction %r \(all-reduce\): collective timed out.*device 1 never arrived"):
        exe.run(np.ones(2, np.float32))
    exe.close()


def test_run_error_has_the_instruction_position():
    text = ("c {\n p = s32[] parameter(0)\n ROOT t = pred[] constant(true)\n}\n"
            "b {\n p = s32[] parameter(0)\n ROOT q = s32[] add(p, p)\n}\n"
            "ENTRY e {\n z = s32[] constant(1)\n ROOT w = s32[] while(z), condition=c, body=b\n}\n")
    m = hlotools.parse(text, name="loop.hlo")
    with pytest.raises(hlotools.HloError) as ei:
        m.run(max_while_iterations=5)
    d = ei.value.errors[0]
    # line 11 " ROOT w = ...": the name w at column 7 (counted by hand)
    assert (d.file, d.line, d.column) == ("loop.hlo", 11, 7)
    assert "exceeded 5 iterations" in d.message and "%w" in d.message
    assert d.source_line.startswith(" ROOT w = s32[] while(z)")
    # the Executable stays usable after a failed run
    exe = m.compile(max_while_iterations=5)
    for _ in range(2):
        with pytest.raises(hlotools.HloError) as ei:
            exe.run()
        assert len(ei.value.errors) == 1  # diagnostics do not pile up across runs


def test_plan_error_has_the_instruction_position():
    m = hlotools.parse("ENTRY e {\n t = token[] after-all()\n"
                       " ROOT i = (f32[2], token[]) infeed(t)\n}\n", name="in.hlo")
    with pytest.raises(hlotools.HloError) as ei:
        m.compile()
    d = ei.value.errors[0]
    assert (d.line, d.column) == (3, 7) and "infeed" in d.message


def test_invalid_module_does_not_run():
    m = hlotools.parse("ENTRY e {\n a = f32[2] parameter(0)\n ROOT b = f32[3] negate(a)\n}\n")
    with pytest.raises(hlotools.HloError) as ei:
        m.run(np.zeros(2, np.float32))
    assert ei.value.errors[0].line == 3


def test_threaded_runs():
    """Several threads run modules at once (the library runs without the
    GIL); each gets its own plan from the module's pool, and a shared
    Executable serializes its callers.  Every result is checked."""
    m = hlotools.parse(MLP)
    shared = m.compile(threads=1)
    errors = []

    def work(seed):
        try:
            for k in range(20):
                x, w, b = mlp_inputs(seed * 100 + k)
                want = np.maximum(x.astype(np.float64) @ w + b, 0)
                np.testing.assert_allclose(m.run(x, w, b, threads=1), want, rtol=1e-5, atol=1e-6)
                np.testing.assert_allclose(shared(x, w, b), want, rtol=1e-5, atol=1e-6)
        except Exception as e:  # reported by the main thread
            errors.append(e)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []
    assert 1 <= len(m._pool[(1, False, 0, 0, True)]) <= 4


def _rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


@pytest.mark.skipif(os.environ.get("HLO_SAN") == "1", reason="RSS is not meaningful under ASan")
def test_no_leak_over_parse_run_cycles():
    text = open(MLP).read()
    x, w, b = mlp_inputs()
    for _ in range(200):  # warm-up: allocator pools, numpy caches
        hlotools.parse(text).run(x, w, b)
    before = _rss_kb()
    for _ in range(2000):
        hlotools.parse(text).run(x, w, b)
    grown = _rss_kb() - before
    # a leaked module or plan is tens of KB per cycle: 2000 cycles would
    # grow by far more than this bound
    assert grown < 8 * 1024, "RSS grew by %d KB over 2000 parse/run cycles" % grown


def test_gil_released_during_run(monkeypatch):
    """While one thread is inside the library's hlo_exec_run, another thread
    keeps running Python code: it records timestamps, and some fall inside
    the foreign call's window (with the GIL held, as a ctypes.PyDLL call
    would, none can)."""
    import time
    calls = []
    real = _lib.hlo_exec_run

    def timed(*a):
        t0 = time.perf_counter()
        rc = real(*a)
        calls.append((t0, time.perf_counter()))
        return rc
    monkeypatch.setattr(_lib, "hlo_exec_run", timed)
    m = hlotools.parse("ENTRY e {\n a = f32[256,256] parameter(0)\n"
                       " b = f32[256,256] exponential(a)\n c = f32[256,256] sine(b)\n"
                       " ROOT r = f32[256,256] tanh(c)\n}\n")
    exe = m.compile(threads=1, reference=True)
    x = np.random.default_rng(3).random((256, 256), np.float32)
    stamps, done = [], threading.Event()

    def runner():
        for _ in range(3):
            exe(x)
        done.set()
    t = threading.Thread(target=runner)
    t.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
    t.join()
    assert len(calls) == 3
    inside = sum(1 for t0, t1 in calls for s in stamps if t0 < s < t1)
    assert inside > 0, "no Python ran while the library ran: the GIL was held"


def test_handles_freed_without_the_cycle_collector():
    """Modules, Executables and results are freed by reference counting
    alone: no reference cycle keeps library memory for the cycle collector."""
    import gc
    import weakref
    x, w, b = mlp_inputs()
    gc.disable()
    try:
        m = hlotools.parse(MLP)
        out = m.run(x, w, b)
        exe = m.compile()
        exe(x, w, b)
        refs = [weakref.ref(m), weakref.ref(exe), weakref.ref(m._h), weakref.ref(_owner(out))]
        _ = m.computations[0].module, m.instructions  # views do not tie the module either
        del m, exe, out, _
        assert [r() is None for r in refs] == [True] * 4
    finally:
        gc.enable()


def test_jax_style_text():
    """HLO text in the form jax.jit(f).lower(x).as_text(dialect="hlo") writes
    (numbered names, metadata, a layout-carrying header), for
    f(x) = tanh(x @ x.T).sum(axis=0); checked against numpy."""
    text = '''HloModule jit_f, entry_computation_layout={(f32[8,4]{1,0})->f32[8]{0}}

region_0.7 {
  Arg_0.8 = f32[] parameter(0)
  Arg_1.9 = f32[] parameter(1)
  ROOT add.10 = f32[] add(Arg_0.8, Arg_1.9), metadata={op_name="jit(f)/jit(main)/reduce_sum[axes=(0,)]" source_file="<stdin>" source_line=4}
}

ENTRY main.12 {
  Arg_0.1 = f32[8,4]{1,0} parameter(0), metadata={op_name="x"}
  transpose.2 = f32[4,8]{0,1} transpose(Arg_0.1), dimensions={1,0}, metadata={op_name="jit(f)/jit(main)/transpose[permutation=(1, 0)]" source_file="<stdin>" source_line=4}
  dot.3 = f32[8,8]{1,0} dot(Arg_0.1, transpose.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(f)/jit(main)/dot_general" source_file="<stdin>" source_line=4}
  tanh.4 = f32[8,8]{1,0} tanh(dot.3), metadata={op_name="jit(f)/jit(main)/tanh" source_file="<stdin>" source_line=4}
  constant.5 = f32[] constant(0)
  ROOT reduce.11 = f32[8]{0} reduce(tanh.4, constant.5), dimensions={0}, to_apply=region_0.7, metadata={op_name="jit(f)/jit(main)/reduce_sum[axes=(0,)]" source_file="<stdin>" source_line=4}
}
'''
    x = np.random.default_rng(5).random((8, 4)).astype(np.float32)
    want = np.tanh(x.astype(np.float64) @ x.T).sum(axis=0)
    np.testing.assert_allclose(hlotools.parse(text).run(x), want, rtol=1e-5)


def test_results_outlive_their_module_and_plan():
    import gc
    m = hlotools.parse("ENTRY e {\n a = f32[64] parameter(0)\n b = f32[64] multiply(a, a)\n"
                       " ROOT t = (f32[64], f32[64]) tuple(b, a)\n}\n")
    exe = m.compile()
    x = np.linspace(0, 1, 64, dtype=np.float32)
    sq, same = exe(x)
    del m, exe
    gc.collect()
    np.testing.assert_array_equal(sq, x * x)  # the buffers live on with the arrays
    np.testing.assert_array_equal(same, x)


BIG_CHAIN = """HloModule big_chain
ENTRY e {
  x = f32[2048,2048] parameter(0)
  three = f32[] constant(3)
  b3 = f32[2048,2048] broadcast(three), dimensions={}
  m = f32[2048,2048] multiply(x, b3)
  one = f32[] constant(1)
  b1 = f32[2048,2048] broadcast(one), dimensions={}
  ROOT a = f32[2048,2048] add(m, b1)
}
"""


def test_large_module_fused_as_hlo_run_and_unfused_alike():
    # 80 MB of results: the elementwise chain is fused first (as hlo-run does),
    # fuse=False runs it as written; x * 3 + 1 on small integers is exact
    m = hlotools.parse(BIG_CHAIN)
    x = (np.arange(2048 * 2048, dtype=np.float32) % 1000).reshape(2048, 2048)
    fused_src = m._fused_for_run()
    assert fused_src is not m and "fusion(" in fused_src.format()
    small = hlotools.parse(MLP)
    assert small._fused_for_run() is small  # below 64 MB: as written
    got, plain = m.run(x), m.run(x, fuse=False)
    np.testing.assert_array_equal(got, x * 3 + 1)
    np.testing.assert_array_equal(plain, got)
