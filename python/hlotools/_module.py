"""Module: one parsed HLO module owning its libhlo handle, and parse /
parse_all, the entry points of the package."""
import ctypes
import json
import os
import shutil
import subprocess
import threading

from . import _index, _lib
from ._errors import DiagList, Source
from ._ir import Computation
from ._run import Executable

_FORMS = {"default": {}, "long": {"operand_shapes": True}, "short": {"short_form": True}}
_FUSE_KINDS = {"loop": 1, "input": 2, "output": 4, "multi": 8, "all": 15}


def _read(text_or_path, name):
    """(display name, bytes) of HLO given as text, bytes or a path."""
    if isinstance(text_or_path, os.PathLike):
        text_or_path = os.fspath(text_or_path)
    if isinstance(text_or_path, bytes):
        return name or "<bytes>", text_or_path
    if not isinstance(text_or_path, str):
        raise TypeError("parse() takes HLO text or a path, not %s" % type(text_or_path).__name__)
    looks_like_text = "{" in text_or_path or "\n" in text_or_path
    if not looks_like_text and os.path.exists(text_or_path):
        with open(text_or_path, "rb") as f:
            return name or text_or_path, f.read()
    if not looks_like_text:
        raise FileNotFoundError("no such file, and not HLO text: %r" % text_or_path)
    return name or "<string>", text_or_path.encode("utf-8")


def _chunks(source):
    """(begin, end) of every module of the text (split at "// -----"),
    skipping blank chunks after the first, as the tools do."""
    src = ctypes.byref(source.src)
    begin, out = 0, []
    n = len(source.data)
    while True:
        nxt = ctypes.c_size_t()
        end = _lib.hlo_module_chunk_end(src, begin, ctypes.byref(nxt))
        if not out or not _lib.hlo_chunk_is_blank(src, begin, end):
            out.append((begin, end))
        if nxt.value >= n or nxt.value <= begin:
            break
        begin = nxt.value
    return out


_BUF = object()  # where _buf_call puts the output buffer when it is not the first argument


def _buf_call(fn, *args, binary=False):
    """Call fn with a fresh hlo_buf (first argument, or in place of _BUF);
    returns (fn's result, the buffer's text or bytes)."""
    b = _lib.Buf()
    _lib.hlo_buf_init(ctypes.byref(b), None)
    try:
        if _BUF in args:
            rc = fn(*[ctypes.byref(b) if a is _BUF else a for a in args])
        else:
            rc = fn(ctypes.byref(b), *args)
        if b.failed:
            raise MemoryError("out of memory")
        return rc, (_lib.buf_bytes(b) if binary else _lib.buf_text(b))
    finally:
        _lib.hlo_buf_release(ctypes.byref(b))


def _parse_one(source, begin, end, max_errors):
    d = DiagList(max_errors)
    m = _lib.hlo_parse_module(ctypes.byref(source.src), begin, end, None, d.ref, None)
    if not m:
        raise d.error([source], "cannot parse %s" % source.name)
    return Module(source, m, begin, end)


def parse(text_or_path, name=None, max_errors=20):
    """Parse HLO text (a str holding the text, bytes, or a path to a file)
    into a Module.  A text with several modules (split by "// -----") gives
    the first; see parse_all.  `name` is the file name used in diagnostics.
    Raises HloError with every diagnostic (at most max_errors errors; 0 =
    all) when the text does not parse."""
    source = Source(*_read(text_or_path, name))
    begin, end = _chunks(source)[0]
    return _parse_one(source, begin, end, max_errors)


def parse_all(text_or_path, name=None, max_errors=20):
    """Every module of an HLO text (modules separated by lines "// -----"),
    as a list of Module.  Raises HloError for the first that does not parse."""
    source = Source(*_read(text_or_path, name))
    return [_parse_one(source, b, e, max_errors) for b, e in _chunks(source)]


class _Handle:
    """Owns one hlo_module and the source it was parsed from; shared by the
    Module and its Executables (which must not keep the Module itself: the
    Module's pool holds them, and a cycle would leave the library memory to
    Python's cycle collector)."""

    __slots__ = ("m", "source", "__weakref__")

    def __init__(self, m, source):
        self.m, self.source = m, source

    def __del__(self):
        m, self.m = self.m, None
        if m:
            _lib.hlo_module_free(m)


class Module:
    """A parsed HLO module.  It owns its libhlo module (freed with the
    object) and is never changed by its methods: fuse() and infer_shapes()
    return new modules.  Methods that run the library on it (verify, run,
    indexing, ...) may be called from several threads."""

    def __init__(self, source, m, begin, end):
        self._h = _Handle(m, source)
        self._source, self._m, self._range = source, m, (begin, end)
        self._lock = threading.Lock()
        self._filled = False
        self._view = None
        self._pool = {}  # options -> idle Executables for run()
        self.diagnostics = []  # warnings of the step that made the module (infer_shapes)

    # -- identity ---------------------------------------------------------------
    @property
    def name(self):
        n = self._m.contents.name
        return n.decode() if n else None

    @property
    def source_name(self):
        return self._source.name

    def __repr__(self):
        return "<hlotools.Module %s>" % (self.name or self._source.name)

    # -- shapes -------------------------------------------------------------
    def _fill(self):
        """Infer the shapes the text left out (needed before verifying,
        running, indexing, JSON)."""
        with self._lock:
            if self._filled:
                return
            d = DiagList()
            if _lib.hlo_shape_fill_omitted(self._m, d.ref, ctypes.byref(self._source.src)):
                raise d.error([self._source], "cannot infer omitted shapes")
            # constants written as {...} take XLA's parser's default values
            # (they keep printing as {...})
            if _lib.hlo_module_fill_elided_constants(self._m):
                raise MemoryError("no memory for the constants written as {...}")
            self._filled = True

    def verify(self, layout_sensitive=False, allow_mixed_precision=False,
               allow_unbounded_dynamism=False, replica_count=0, num_partitions=0, **opts):
        """Check the module as XLA's HloVerifier does (options as its
        HloVerifierOpts).  Further keyword options are the other fields of
        hlo_verify_options (verify_reshape_is_bitcast=True, ...; the flags of
        hlo-verify with '_' for '-').  Returns the list of warnings (usually
        empty); raises HloError with every error found."""
        self._fill()
        known = {f for f, _ in _lib.VerifyOptions._fields_}
        unknown = sorted(set(opts) - known)
        if unknown:
            raise TypeError("verify() got unknown option(s): " + ", ".join(unknown))
        o = _lib.VerifyOptions(layout_sensitive=layout_sensitive,
                               allow_mixed_precision=allow_mixed_precision,
                               allow_unbounded_dynamism=allow_unbounded_dynamism,
                               replica_count=replica_count, num_partitions=num_partitions, **opts)
        d = DiagList()
        if _lib.hlo_verify_module(self._m, ctypes.byref(o), d.ref,
                                  ctypes.byref(self._source.src)) != _lib.HLO_OK:
            raise d.error([self._source], "the module is invalid")
        return d.collect([self._source])

    def _parse_copy(self):
        """A new handle parsed from this module's text, for a method that
        changes it (the caller frees it), and the DiagList it reports into."""
        begin, end = self._range
        d = DiagList()
        m = _lib.hlo_parse_module(ctypes.byref(self._source.src), begin, end, None, d.ref, None)
        if not m:
            raise d.error([self._source], "cannot parse")
        return m, d

    def stats(self, top=10, peak_gflops=0.0, peak_gbps=0.0):
        """The hlo-stats report as a dict (the object `hlo-stats --json`
        prints): FLOPs, transcendentals and bytes accessed as XLA's
        HloCostAnalysis counts them, per module, computation and
        instruction; the top instructions by FLOPs and by bytes; the peak
        of live memory with the buffers live there; with peak_gflops and
        peak_gbps (the machine's rates) the roofline estimate.  Raises
        HloError when the module does not verify (mixed precision allowed,
        as hlo-stats)."""
        if (peak_gflops > 0) != (peak_gbps > 0):
            raise ValueError("peak_gflops and peak_gbps go together")
        m, d = self._parse_copy()
        ca = None
        arena = _lib.Arena()
        _lib.hlo_arena_init(ctypes.byref(arena), None)
        try:
            vo = _lib.VerifyOptions(allow_mixed_precision=True)
            if _lib.hlo_shape_fill_omitted(m, d.ref, ctypes.byref(self._source.src)) or \
                    _lib.hlo_verify_module(m, ctypes.byref(vo), d.ref, ctypes.byref(self._source.src)):
                raise d.error([self._source], "the module does not verify")
            peak = _lib.MemPeak()
            ca = _lib.hlo_cost_analyze(m, None, d.ref)
            if not ca or _lib.hlo_mem_peak_compute(m, ctypes.byref(arena), ctypes.byref(peak), d.ref):
                raise d.error([self._source], "cannot analyse the module")
            so = _lib.StatsOptions(format=_lib.HLO_STATS_JSON, top=int(top),
                                   peak_gflops=float(peak_gflops), peak_gbps=float(peak_gbps),
                                   machine=b"given")
            rc, text = _buf_call(_lib.hlo_stats_render, m, ca, ctypes.byref(peak), ctypes.byref(so))
            if rc:
                raise MemoryError("out of memory")
        finally:
            if ca:
                _lib.hlo_cost_analysis_free(ca)
            _lib.hlo_arena_release(ctypes.byref(arena))
            _lib.hlo_module_free(m)
        return json.loads(text)

    def infer_shapes(self):
        """A new Module with every instruction's shape inferred and written
        (the text hlo-shape prints).  A declared shape that differs from
        the inferred one is replaced, with a warning in the new module's
        `diagnostics`.  Raises HloError if some shape cannot be inferred."""
        m, d = self._parse_copy()
        try:
            changed = ctypes.c_int()
            if _lib.hlo_shape_infer_module(m, d.ref, ctypes.byref(self._source.src),
                                           ctypes.byref(changed)):
                raise d.error([self._source], "cannot infer shapes")
            warnings = d.collect([self._source])
            _for_each_instruction(m, _show_inferred_shape)
            _, text = _buf_call(_lib.hlo_print_module, m, None)
        finally:
            _lib.hlo_module_free(m)
        out = parse(text, name=self._source.name + " (shapes inferred)")
        out.diagnostics = warnings
        return out

    # -- text -------------------------------------------------------------------
    def format(self, form="default", elide_constants=False, shortest_floats=False,
               no_layouts=False):
        """The module as text in XLA's printer form: form "default" (what
        hlo-fmt prints), "long" (operand shapes, hlo-fmt --operand-shapes) or
        "short" (no '%', no metadata, hlo-fmt --short)."""
        if form not in _FORMS:
            raise ValueError("form must be one of %s" % ", ".join(_FORMS))
        o = _lib.PrintOptions(elide_constants=elide_constants, shortest_floats=shortest_floats,
                              no_layouts=no_layouts, **_FORMS[form])
        _, text = _buf_call(_lib.hlo_print_module, self._m, ctypes.byref(o))
        return text

    def __str__(self):
        return self.format()

    # -- structure ----------------------------------------------------------------
    def _json_doc(self, pretty=False):
        self._fill()
        mods = (ctypes.POINTER(_lib.ModuleHead) * 1)(self._m)
        rc, text = _buf_call(_lib.hlo_json_write, mods, 1,
                             ctypes.byref(_lib.JsonOptions(pretty)))
        if rc:
            raise MemoryError("out of memory while writing JSON")
        return text

    def _structure(self):
        if self._view is None:
            j = json.loads(self._json_doc())["modules"][0]
            comps = [Computation(self, c) for c in j["computations"]]
            self._view = (comps, {c.name: c for c in comps}, j.get("entry"))
        return self._view

    @property
    def computations(self):
        """The computations (Computation objects) in text order."""
        return list(self._structure()[0])

    @property
    def entry(self):
        """The entry Computation (None if the module has none)."""
        _, by_name, entry = self._structure()
        return by_name.get(entry) if entry else None

    @property
    def instructions(self):
        """Every instruction of every computation, in text order."""
        return [i for c in self._structure()[0] for i in c.instructions]

    def computation(self, name):
        """The Computation called `name` (KeyError if absent)."""
        return self._structure()[1][name.lstrip("%")]

    def instruction(self, name):
        """The instruction called `name`: looked up in the entry computation
        first, then in every computation in text order (KeyError if absent)."""
        name = name.lstrip("%")
        comps, _, _ = self._structure()
        e = self.entry
        for c in ([e] if e else []) + comps:
            if name in c:
                return c[name]
        raise KeyError("no instruction named %r" % name)

    # -- export -----------------------------------------------------------------
    def to_json(self, pretty=False, graph=False, computation=None):
        """The module as hlo-json (lossless, docs/json.md; what hlo-json
        prints), or with graph=True Model Explorer's graph JSON of one
        computation (default: entry)."""
        if not graph:
            if computation is not None:
                raise ValueError("computation= needs graph=True")
            return self._json_doc(pretty)
        self._fill()
        d = DiagList()
        o = _lib.JsonGraphOptions(computation.encode() if computation else None, pretty)
        rc, text = _buf_call(_lib.hlo_json_graph_write, self._m, ctypes.byref(o), d.ref)
        if rc:
            raise d.error([self._source], "cannot write graph JSON")
        return text

    def _select(self, computation, around, radius, max_nodes, expand_fusions, expand_bodies):
        """The hlo_dot view of the module (free with hlo_dot_graph_free)."""
        o = _lib.DotOptions(computation.encode() if computation else None,
                            around.lstrip("%").encode() if around else None, radius, max_nodes,
                            expand_fusions, expand_bodies)
        d = DiagList()
        g = _lib.hlo_dot_select(self._m, ctypes.byref(o), None, d.ref)
        if not g:
            raise d.error([self._source], "cannot select the graph")
        return g

    def _dot_text(self, g):
        d = DiagList()
        graph = _lib.hlo_dot_build(g, d.ref)
        if not graph:
            raise d.error([self._source], "cannot build the graph")
        try:
            rc, out = _buf_call(_lib.hlo_dot_render, graph, b"dot", _BUF, d.ref)
            if rc:
                raise d.error([self._source], "cannot write the graph")
            return out
        finally:
            if _lib.agclose:
                _lib.agclose(graph)

    def to_dot(self, computation=None, around=None, radius=2, max_nodes=0, expand_fusions=False,
               expand_bodies=False, format="dot"):
        """The graph hlo-dot draws: Graphviz text (format "dot"), or
        rendered "svg" (str) or "png" (bytes) by Graphviz's `dot` program
        (the same layout as hlo-dot -T svg; docs/python.md says why a
        separate process).  Options as hlo-dot's: computation (default
        entry), the neighbourhood of instruction `around` within `radius`
        edges, at most max_nodes instructions, fusions and loop/branch
        bodies drawn as clusters."""
        if format not in ("dot", "svg", "png"):
            raise ValueError("format must be dot, svg or png")
        g = self._select(computation, around, radius, max_nodes, expand_fusions, expand_bodies)
        try:
            text = self._dot_text(g)
        finally:
            _lib.hlo_dot_graph_free(g)
        if format == "dot":
            return text
        out = _graphviz(text, format)
        return out if format == "png" else out.decode("utf-8")

    def to_html(self, computation=None, around=None, radius=2, max_nodes=0,
                expand_fusions=False, expand_bodies=False):
        """The self-contained HTML viewer of hlo-dot -T html (inline SVG,
        pan/zoom, search, instruction text on click); options as to_dot."""
        g = self._select(computation, around, radius, max_nodes, expand_fusions, expand_bodies)
        try:
            svg = _graphviz(self._dot_text(g), "svg")
            # hlo-dot's title: the module name, else the drawn computation
            drawn = computation or (self.instruction(around).computation.name if around else
                                    (self.entry.name if self.entry else ""))
            title = (self.name or drawn).encode()
            rc, html = _buf_call(_lib.hlo_dot_html, g, svg, len(svg), title)
            if rc:
                raise MemoryError("out of memory while writing HTML")
            return html
        finally:
            _lib.hlo_dot_graph_free(g)

    # -- analyses and passes -------------------------------------------------------
    def _instr_ptr(self, instruction):
        if instruction is None:
            e = self.entry
            if e is None or e.root is None:
                raise ValueError("the module has no entry computation with a ROOT")
            ins = e.root
        elif isinstance(instruction, str):
            ins = self.instruction(instruction)
        else:
            ins = instruction
        c = _lib.hlo_module_find_computation(self._m, ins.computation.name.encode())
        p = _lib.hlo_computation_find(c, ins.name.encode()) if c else None
        if not p:
            raise KeyError("instruction %r is not in this module" % ins.name)
        return ins, p

    def indexing(self, instruction=None, direction="out2in", operand=None, output=None,
                 physical=False):
        """Indexing maps of `instruction` (an Instruction or its name;
        default the entry ROOT), as hlo-index computes them.

        direction="out2in": maps from output `output` (default 0; for
        tuple-shaped ops) to each operand: an Indexing (one MapSet per
        operand), or with operand=N only that operand's MapSet.
        direction="in2out": maps from operand `operand` (default 0) to each
        output: an Indexing (one MapSet per output), or with output=N only
        that output's MapSet.  physical=True indexes physical positions
        (dims in each layout's major-to-minor order)."""
        if direction not in ("out2in", "in2out"):
            raise ValueError('direction must be "out2in" or "in2out"')
        self._fill()
        ins, p = self._instr_ptr(instruction)
        i2o = direction == "in2out"
        nout = len(ins.shape.elements) if ins.shape.is_tuple else 1
        nops = len(ins._operands)
        if output is not None and not 0 <= output < nout:
            raise IndexError("instruction '%s' has %d output%s; there is no output %d" %
                             (ins.name, nout, "" if nout == 1 else "s", output))
        if operand is not None and not 0 <= operand < nops:
            raise IndexError("instruction '%s' has %d operand%s; there is no operand %d" %
                             (ins.name, nops, "" if nops == 1 else "s", operand))
        if i2o and nops == 0:
            raise ValueError("instruction '%s' has no operands" % ins.name)
        ctx = _index._Ctx()
        x = _lib.ImapIndexing()
        d = DiagList()
        idx = (operand or 0) if i2o else (output or 0)
        fn = _lib.imap_input_to_output if i2o else _lib.imap_output_to_input
        rc = fn(ctypes.byref(ctx.c), p, idx, ctypes.byref(x), d.ref)
        if not rc and physical:
            rc = _lib.imap_use_physical_layout(ctypes.byref(ctx.c), p, i2o, idx, ctypes.byref(x),
                                               d.ref)
        if rc:
            raise d.error([self._source], "cannot compute the indexing of %s" % ins.name)
        result = _index.Indexing(ctx, x, direction, ins)
        if not i2o and operand is not None:
            return result[operand]
        if i2o and output is not None:
            return result[output]
        return result

    def fuse(self, kinds="all", max_size=0, max_outputs=0):
        """A new Module with producers fused into XLA-style fusion
        instructions, as hlo-fuse does.  kinds: "all" or an iterable of
        "loop", "input", "output", "multi"; max_size (instructions per fused
        computation, 0 = 64) and max_outputs (0 = 8) as hlo-fuse's options."""
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        bits = 0
        for k in names:
            if k not in _FUSE_KINDS:
                raise ValueError("unknown fusion kind %r (loop, input, output, multi, all)" % k)
            bits |= _FUSE_KINDS[k]
        m, d = self._parse_copy()
        try:
            if _lib.hlo_shape_fill_omitted(m, d.ref, ctypes.byref(self._source.src)):
                raise d.error([self._source], "cannot infer omitted shapes")
            _for_each_instruction(m, _show_shape)  # fused computations need every shape
            o = _lib.FuseOptions(bits, max_size, max_outputs)
            if _lib.hlo_fuse_module(m, ctypes.byref(o), None, d.ref) < 0:
                raise d.error([self._source], "fusion failed")
            _, text = _buf_call(_lib.hlo_print_module, m, None)
        finally:
            _lib.hlo_module_free(m)
        return parse(text, name=self._source.name + " (fused)")

    # -- execution ------------------------------------------------------------------
    def compile(self, threads=0, reference=False, rng_seed=0, max_while_iterations=0, fuse=True):
        """Plan the module for the CPU interpreter once: an Executable to run
        many times.  threads: worker threads of large kernels (0 = all
        cores); reference: every op through the scalar reference code;
        rng_seed: seed of the rng op; max_while_iterations: fail a while
        loop after that many iterations (0 = no limit); fuse: as hlo-run,
        a module whose intermediate arrays total 64 MB or more first has
        its elementwise chains fused (False: run as written, hlo-run
        --no-fuse).  Raises HloError (with positions) if the module is
        invalid or cannot run."""
        self.verify(allow_mixed_precision=True)  # diagnostics with positions, as hlo-run
        src = self._fused_for_run() if fuse and not reference else self
        return Executable(src._h, self.name or self._source.name, threads, reference, rng_seed,
                          max_while_iterations)

    def device_counts(self):
        """(replicas, partitions) the module is written for: the header's
        replica_count and num_partitions, else the fewest its collectives
        need (hlo-run's default)."""
        r, p, inferred = ctypes.c_int(1), ctypes.c_int(1), ctypes.c_bool(False)
        d = DiagList()
        if _lib.hlo_module_device_counts(self._h.m, ctypes.byref(r), ctypes.byref(p),
                                         ctypes.byref(inferred), d.ref):
            raise d.error([self._source], "bad device groups")
        return r.value, p.value

    def compile_devices(self, replicas=None, partitions=None, threads=0, reference=False, rng_seed=0,
                        max_while_iterations=0, fuse=True, timeout=60.0):
        """Plan the module once per device, as hlo-run runs a module written
        for several devices: replicas x partitions devices (each None: the
        module's count, device_counts()) in threads of this process, their
        collectives meeting in one communicator; a collective that some
        device never reaches fails after timeout seconds.  threads: worker
        threads shared among the devices.  Returns a DeviceExecutable."""
        from ._devices import DeviceExecutable
        self.verify(allow_mixed_precision=True)
        r0, p0 = self.device_counts()
        src = self._fused_for_run() if fuse and not reference else self
        return DeviceExecutable(src._h, self.name or self._source.name,
                                r0 if replicas is None else replicas,
                                p0 if partitions is None else partitions, threads, reference,
                                rng_seed, max_while_iterations, timeout)

    def _fused_for_run(self):
        """This module as hlo_fuse_for_run leaves it: a new Module when it
        fused something, else self."""
        m, d = self._parse_copy()
        try:
            if _lib.hlo_shape_fill_omitted(m, d.ref, ctypes.byref(self._source.src)):
                return self
            _for_each_instruction(m, _show_shape)  # fused computations need every shape
            r = _lib.hlo_fuse_for_run(m, d.ref)
            if r < 0:
                raise d.error([self._source], "fusion failed")
            if r == 0:
                return self
            _, text = _buf_call(_lib.hlo_print_module, m, None)
        finally:
            _lib.hlo_module_free(m)
        return parse(text, name=self._source.name)

    def run(self, *arrays, threads=0, reference=False, replicas=None, partitions=None, rng_seed=0,
            max_while_iterations=0, fuse=True, per_device=False):
        """Run the entry computation on numpy arrays (one per parameter) and
        return the result as numpy arrays (a tuple result as a tuple).
        Inputs of the parameter's dtype that are C-contiguous are passed by
        pointer; results own the library's buffers.  The plan is made on
        first use and kept (one per set of options and concurrent caller).
        A module written for several devices (device_counts()), or run with
        replicas or partitions above 1, runs on every device in threads and
        returns a list of per-device results (compile_devices();
        per_device=True: one input per device for each parameter)."""
        r0, p0 = self.device_counts()
        R = r0 if replicas is None else int(replicas)
        P = p0 if partitions is None else int(partitions)
        if R * P != 1 or per_device:
            exe = self.compile_devices(R, P, threads, reference, rng_seed, max_while_iterations, fuse)
            try:
                return exe.run(*arrays, per_device=per_device)
            finally:
                exe.close()
        key = (int(threads or 0), bool(reference), int(rng_seed), int(max_while_iterations), bool(fuse))
        with self._lock:
            idle = self._pool.setdefault(key, [])
            exe = idle.pop() if idle else None
        if exe is None:
            exe = self.compile(*key)
        try:
            return exe.run(*arrays)
        finally:
            with self._lock:
                if self._pool is not None:
                    self._pool.setdefault(key, []).append(exe)


def _graphviz(dot_text, fmt):
    """Lay out and render DOT text with Graphviz's `dot` program."""
    exe = shutil.which("dot")
    if not exe:
        raise RuntimeError("rendering %s needs Graphviz's `dot` program (Debian: graphviz)" % fmt)
    r = subprocess.run([exe, "-T" + fmt], input=dot_text.encode("utf-8"), capture_output=True)
    if r.returncode != 0:
        raise RuntimeError("dot -T%s failed: %s" % (fmt, r.stderr.decode("utf-8", "replace")))
    return r.stdout


# ---- walking the IR (leading fields of the public structs) ---------------------
def _for_each_instruction(m, fn):
    mod = m.contents
    for ci in range(mod.ncomps):
        c = ctypes.cast(mod.comps[ci], ctypes.POINTER(_lib.ComputationHead)).contents
        for k in range(c.ninstrs):
            fn(ctypes.cast(c.instrs[k], ctypes.POINTER(_lib.InstructionHead)).contents)


def _show_shape(x):
    x.shape_omitted = False


def _show_inferred_shape(x):
    """What hlo-shape prints: omitted shapes written once inferred."""
    s = x.shape
    if x.shape_omitted and (s.type == _TUPLE or s.layout or s.type in (_TOKEN, _OPAQUE)):
        x.shape_omitted = False


from ._dtypes import TYPE as _T  # noqa: E402

_TUPLE, _TOKEN, _OPAQUE = _T["tuple"], _T["token"], _T["opaque"]
