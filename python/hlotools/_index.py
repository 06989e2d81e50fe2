"""Indexing maps of an instruction (lib/index) as Python objects: str() in
XLA's multi-line format (what hlo-index prints) and evaluation at a point."""
import ctypes

from . import _lib


class _Ctx:
    """Owns one imap_ctx: every map of one indexing() call lives in it."""

    def __init__(self):
        self.c = _lib.ImapCtx()
        _lib.imap_ctx_init(ctypes.byref(self.c), None)

    def __del__(self):
        if self.c is not None:
            _lib.imap_ctx_release(ctypes.byref(self.c))
            self.c = None


def _text(fn, *args):
    b = _lib.Buf()
    _lib.hlo_buf_init(ctypes.byref(b), None)
    try:
        fn(ctypes.byref(b), *args)
        if b.failed:
            raise MemoryError("out of memory while printing an indexing map")
        return _lib.buf_text(b)
    finally:
        _lib.hlo_buf_release(ctypes.byref(b))


class IndexingMap:
    """One indexing map (d0, ...)[s0, ...]{rt0, ...} -> (results) with a
    domain.  `state` is "defined", "undefined" or "known empty"; `ndims`,
    `nsymbols`, `nruntime`, `nresults`; `domain` lists the (lo, hi) bounds
    of the dimension variables, `symbol_bounds` those of the symbols."""

    def __init__(self, ctx, ptr):
        self._ctx = ctx  # keeps the maps' memory alive
        self._p = ptr
        m = ptr.contents
        self.state = _lib.IMAP_STATES[m.state]
        self.ndims, self.nsymbols, self.nruntime = m.ndims, m.nsyms, m.nrts
        self.nresults = m.nresults
        self.domain = tuple((m.dims[i].lo, m.dims[i].hi) for i in range(m.ndims))
        self.symbol_bounds = tuple((m.syms[i].lo, m.syms[i].hi) for i in range(m.nsyms))

    def __str__(self):
        return _text(_lib.imap_map_print, self._p)

    def __repr__(self):
        return "<IndexingMap %s>" % str(self).split("\n", 1)[0]

    def evaluate(self, index, symbols=(), runtime=()):
        """The result index (a tuple of ints) at dimension point `index`,
        with the given range symbol and runtime variable values.  Raises
        ValueError for an undefined map, a wrong number of values or a point
        outside the domain, OverflowError on int64 overflow."""
        if self.state != "defined":
            raise ValueError("cannot evaluate a %s map" % self.state)
        index, symbols, runtime = tuple(index), tuple(symbols), tuple(runtime)
        for what, got, want in (("dimension", index, self.ndims),
                                ("symbol", symbols, self.nsymbols),
                                ("runtime variable", runtime, self.nruntime)):
            if len(got) != want:
                raise ValueError("the map takes %d %s value%s, got %d" %
                                 (want, what, "" if want == 1 else "s", len(got)))
        for i, (v, (lo, hi)) in enumerate(zip(index, self.domain)):
            if not lo <= v <= hi:
                raise ValueError("d%d = %d is outside the domain [%d, %d]" % (i, v, lo, hi))
        for i, (v, (lo, hi)) in enumerate(zip(symbols, self.symbol_bounds)):
            if not lo <= v <= hi:
                raise ValueError("s%d = %d is outside its range [%d, %d]" % (i, v, lo, hi))

        def arr(vals):
            a = (ctypes.c_int64 * max(1, len(vals)))(*vals)
            return a

        d, s, rt = arr(index), arr(symbols), arr(runtime)
        out = ctypes.c_int64()
        m = self._p.contents
        res = []
        for i in range(self.nresults):
            if not _lib.imap_eval(m.results[i], d, s, rt, ctypes.byref(out)):
                raise OverflowError("int64 overflow evaluating result %d" % i)
            res.append(out.value)
        return tuple(res)


class MapSet(list):
    """The maps of one operand (output->input) or one output (input->output);
    str() prints each map followed by a newline."""

    def __str__(self):
        return "".join(str(m) + "\n" for m in self)


class Indexing(list):
    """The indexing of one instruction: a list of MapSet, one per operand
    (direction "out2in") or one per output (direction "in2out").  str() is
    the listing hlo-index prints ("operand id = N" blocks)."""

    def __init__(self, ctx, x, direction, instruction):
        super().__init__(MapSet(IndexingMap(ctx, x.sets[i].v[j]) for j in range(x.sets[i].n))
                         for i in range(x.n))
        self._ctx = ctx
        self._x = x
        self.direction = direction
        self.instruction = instruction

    def __str__(self):
        return _text(_lib.imap_indexing_print, ctypes.byref(self._x), b"operand")
