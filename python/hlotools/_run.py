"""Executable: a module planned once for the CPU interpreter (hlo_exec_new)
and run on numpy arrays any number of times.

Inputs that are C-contiguous, aligned and of the parameter's dtype are
passed by pointer (hlo_val_borrow): the library reads them in place and never
writes them.  Result arrays own the library's buffers (no copy); a result
buffer that the library still shares (a constant of the plan, an input passed
through) is copied so that writing to the array cannot change the plan."""
import ctypes
import threading

import numpy as np

from . import _dtypes, _lib
from ._errors import DiagList

_P_VAL = ctypes.POINTER(_lib.Val)


class _Owned:
    """Holds one reference to a result leaf; the numpy array made from it
    has this object as its base, so the buffer is freed with the array."""

    __slots__ = ("_val", "__array_interface__", "__weakref__")

    def __init__(self, val, shape, dt):
        self._val = val
        self.__array_interface__ = {"shape": shape, "typestr": dt.str,
                                    "data": (val.contents.data, False), "version": 3}

    def __del__(self):
        if self._val is not None:
            _lib.hlo_val_release(None, self._val)
            self._val = None


def _param_info(shape_ptr):
    s = shape_ptr.contents
    name = _dtypes.NAME.get(s.type, "?")
    dims = tuple(s.dims[i] for i in range(s.rank))
    return name, dims


def _to_bf16_bits(a):
    """float arrays -> bf16 bit patterns, rounding to nearest even (NaN stays
    a quiet NaN), for bf16 parameters when ml_dtypes is absent."""
    f = np.asarray(a, dtype=np.float32, order="C")
    u = f.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    if nan.any():
        r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r


class Executable:
    """A compiled module (Module.compile()).  run(*arrays) or calling the
    object runs it; the plan is made once.  One run at a time per
    Executable (runs from several threads queue on a lock; compile one
    Executable per thread to run in parallel: the GIL is released while the
    library runs)."""

    def __init__(self, handle, name, threads=0, reference=False, rng_seed=0,
                 max_while_iterations=0):
        self._h = handle  # keeps the module alive and unchanged while the plan lives
        self.name = name
        self._lock = threading.Lock()
        self._diags = DiagList()
        self._e = None
        self._opts = _lib.ExecOptions(reference=bool(reference), rng_seed=int(rng_seed),
                                      max_while_iters=int(max_while_iterations),
                                      threads=int(threads or 0),
                                      src=ctypes.pointer(handle.source.src),
                                      allow_mixed_precision=True)  # as hlo-run
        e = _lib.hlo_exec_new(handle.m, ctypes.byref(self._opts), None, self._diags.ref)
        if not e:
            raise self._diags.error([handle.source], "the module cannot run")
        self._e = e
        n = _lib.hlo_exec_nparams(e)
        self._pshapes = [_lib.hlo_exec_param_shape(e, i) for i in range(n)]
        self.parameters = [_param_info(p) for p in self._pshapes]
        # per array parameter: (name, dims, dtype, raw dtype) and one
        # borrowed value reused by every run (its data pointer is set under
        # the lock); tuple/token parameters get values made per run
        self._pinfo = [(nm, dims, _dtypes.dtype(nm), _dtypes.raw_dtype(nm))
                       for nm, dims in self.parameters]
        self._vals = (_P_VAL * max(1, n))()
        self._fixed = []
        self._dummy = np.zeros(1, np.uint8)  # placeholder storage between runs
        self._dummy_addr = self._dummy.ctypes.data
        for i, (nm, dims, want, raw) in enumerate(self._pinfo):
            v = None
            if raw is not None:
                v = _lib.hlo_val_borrow(None, self._pshapes[i], self._dummy.ctypes.data)
                if not v:
                    raise MemoryError("cannot make input %d" % i)
                self._vals[i] = v
            self._fixed.append(v)
        self._leaf_info = {}  # shape address -> (dims, raw dtype, dtype) of result leaves

    def close(self):
        """Free the plan now (also done when the object is collected)."""
        with self._lock:
            if self._e:
                _lib.hlo_exec_free(self._e)
                self._e = None

    def __del__(self):
        if getattr(self, "_e", None):
            _lib.hlo_exec_free(self._e)
            self._e = None
        for v in getattr(self, "_fixed", ()):
            if v:
                _lib.hlo_val_release(None, v)
        self._fixed = ()

    # -- inputs ------------------------------------------------------------
    def _arg(self, i, a):
        """Array argument i as an array the library can read in place: a
        itself when possible, else a converted copy."""
        name, dims, want, raw = self._pinfo[i]
        if type(a) is np.ndarray and (a.dtype == want or a.dtype == raw) and \
                a.flags.c_contiguous and a.flags.aligned:
            arr = a  # by pointer
        else:
            src = np.asarray(a)
            if want == raw and name == "bf16" and src.dtype.kind == "f":
                arr = _to_bf16_bits(src)  # no ml_dtypes: round floats to bf16 bits
            elif want == raw and (name.startswith("f8") or name.startswith("f4")) and \
                    src.dtype != raw:
                raise TypeError("parameter %d is %s: without ml_dtypes pass its raw bits as %s" %
                                (i, name, raw))
            else:
                arr = np.asarray(src, dtype=want, order="C")
        if arr.shape != dims:
            raise ValueError("parameter %d is %s%s: got an array of shape %s" %
                             (i, name, list(dims), arr.shape))
        return arr

    def _make(self, i, shape, obj, keep):
        """A new value for a tuple or token parameter (tuples recursively;
        array leaves borrowed from the arrays, which go to keep)."""
        s = shape.contents
        if s.type == _dtypes.TYPE["tuple"]:
            if not isinstance(obj, (tuple, list)) or len(obj) != s.ntuple:
                raise TypeError("parameter %d is a tuple of %d elements: pass a tuple" %
                                (i, s.ntuple))
            v = _lib.hlo_val_new(None, shape)
            if not v:
                raise MemoryError("cannot make input %d" % i)
            try:
                for k in range(s.ntuple):
                    child = self._make(i, ctypes.pointer(s.tuple[k]), obj[k], keep)
                    _lib.hlo_val_release(None, v.contents.tuple[k])
                    v.contents.tuple[k] = child
            except BaseException:
                _lib.hlo_val_release(None, v)
                raise
            return v
        name = _dtypes.NAME.get(s.type, "?")
        raw = _dtypes.raw_dtype(name)
        if raw is None:  # token / opaque: no data
            v = _lib.hlo_val_new(None, shape)
        else:
            dims = tuple(s.dims[k] for k in range(s.rank))
            want = _dtypes.dtype(name)
            if type(obj) is np.ndarray and (obj.dtype == want or obj.dtype == raw) and \
                    obj.flags.c_contiguous and obj.flags.aligned:
                arr = obj
            else:
                arr = np.asarray(obj, dtype=want, order="C")
            if arr.shape != dims:
                raise ValueError("an element of parameter %d is %s%s: got shape %s" %
                                 (i, name, list(dims), arr.shape))
            keep.append(arr)
            v = _lib.hlo_val_borrow(None, shape, arr.ctypes.data)
        if not v:
            raise MemoryError("cannot make input %d" % i)
        return v

    # -- outputs -------------------------------------------------------------
    def _leaves(self, v, out):
        """Take a reference on every leaf of result v (tuples recursively);
        returns the nested structure of leaf pointers."""
        c = v.contents
        if c.shape and c.shape.contents.type == _dtypes.TYPE["tuple"]:
            return tuple(self._leaves(c.tuple[i], out) for i in range(c.ntuple))
        leaf = _lib.hlo_val_ref(v)
        out.append(leaf)
        return leaf

    def _array(self, leaf):
        c = leaf.contents
        key = ctypes.addressof(c.shape.contents)
        info = self._leaf_info.get(key)
        if info is None:
            s = c.shape.contents
            name = _dtypes.NAME.get(s.type, "?")
            info = (tuple(s.dims[i] for i in range(s.rank)), _dtypes.raw_dtype(name),
                    _dtypes.dtype(name))
            self._leaf_info[key] = info
        dims, raw, dt = info
        if c.dims:  # a dynamic dimension below its bound: the actual sizes
            dims = tuple(c.dims[i] for i in range(len(dims)))
        if raw is None:  # token / opaque
            _lib.hlo_val_release(None, leaf)
            return None
        if c.nbytes == 0 or not c.data:
            _lib.hlo_val_release(None, leaf)
            return np.zeros(dims, dtype=dt)
        if c.refs == 1 and not c.borrowed:  # ours alone: hand it over
            arr = np.asarray(_Owned(leaf, dims, raw))
            return arr if dt is raw else arr.view(dt)
        buf = (ctypes.c_char * c.nbytes).from_address(c.data)
        arr = np.frombuffer(buf, dtype=raw).reshape(dims).copy().view(dt)
        _lib.hlo_val_release(None, leaf)
        return arr

    def _result(self, res):
        leaves = []
        tree = self._leaves(res, leaves)
        _lib.hlo_val_release(None, res)  # the leaves keep their own references
        return self._build(tree)

    def _build(self, t):
        """Arrays for the leaves of a tree from _leaves (no closure: a
        recursive closure would tie the Executable into a reference cycle)."""
        return tuple(self._build(x) for x in t) if isinstance(t, tuple) else self._array(t)

    # -- running -------------------------------------------------------------
    def run(self, *arrays):
        """Run on one array (or array-like; a tuple for a tuple parameter)
        per entry parameter; returns a numpy array, or a tuple (nested as
        the result shape) for a tuple result.  Raises HloError (with the
        instruction's position) when the run fails, TypeError/ValueError for
        inputs of the wrong type or shape."""
        n = len(self._pinfo)
        if len(arrays) != n:
            raise TypeError("the entry computation takes %d input%s, got %d" %
                            (n, "" if n == 1 else "s", len(arrays)))
        args = [self._arg(i, a) if self._fixed[i] else a for i, a in enumerate(arrays)]
        res = _P_VAL()
        made, keep = [], []
        with self._lock:
            if not self._e:
                raise ValueError("the Executable was closed")
            try:
                for i, a in enumerate(args):
                    v = self._fixed[i]
                    if v:
                        v.contents.data = a.ctypes.data
                    else:
                        v = self._make(i, self._pshapes[i], a, keep)
                        made.append(v)
                        self._vals[i] = v
                rc = _lib.hlo_exec_run(self._e, self._vals, n, ctypes.byref(res))
                if rc != _lib.HLO_OK:
                    err = self._diags.error([self._h.source], "the run failed")
                    self._diags.reset()
                    raise err
                return self._result(res)
            finally:
                for v in self._fixed:
                    if v:
                        v.contents.data = self._dummy_addr
                for v in made:
                    _lib.hlo_val_release(None, v)

    __call__ = run

    def __repr__(self):
        return "<Executable of %s: %d parameters>" % (self.name, len(self.parameters))
