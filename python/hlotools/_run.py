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

    __slots__ = ("_val", "__array_interface__")

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

    def __init__(self, module, threads=0, reference=False, rng_seed=0, max_while_iterations=0):
        self.module = module
        self._lock = threading.Lock()
        self._diags = DiagList()
        self._e = None
        self._opts = _lib.ExecOptions(bool(reference), int(rng_seed), int(max_while_iterations),
                                      int(threads or 0), False,
                                      ctypes.pointer(module._source.src))
        e = _lib.hlo_exec_new(module._m, ctypes.byref(self._opts), None, self._diags.ref)
        if not e:
            raise self._diags.error([module._source], "the module cannot run")
        self._e = e
        n = _lib.hlo_exec_nparams(e)
        self._pshapes = [_lib.hlo_exec_param_shape(e, i) for i in range(n)]
        self.parameters = [_param_info(p) for p in self._pshapes]

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

    # -- inputs ------------------------------------------------------------
    def _arg(self, i, a):
        name, dims = self.parameters[i]
        want = _dtypes.dtype(name)
        if want is None:
            raise TypeError("parameter %d has type %s, which cannot be passed from Python" %
                            (i, name))
        if isinstance(a, np.ndarray) and _dtypes.accepts(a.dtype, name) and \
                a.flags.c_contiguous and a.flags.aligned:
            arr = a  # by pointer
        else:
            src = np.asarray(a)
            raw = _dtypes.raw_dtype(name)
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
        s = c.shape.contents
        name = _dtypes.NAME.get(s.type, "?")
        raw = _dtypes.raw_dtype(name)
        if raw is None:  # token / opaque
            _lib.hlo_val_release(None, leaf)
            return None
        dims = tuple(s.dims[i] for i in range(s.rank))
        dt = _dtypes.dtype(name)
        if c.nbytes == 0 or not c.data:
            _lib.hlo_val_release(None, leaf)
            return np.zeros(dims, dtype=dt)
        if c.refs == 1 and not c.borrowed:  # ours alone: hand it over
            return np.asarray(_Owned(leaf, dims, raw)).view(dt)
        buf = (ctypes.c_char * c.nbytes).from_address(c.data)
        arr = np.frombuffer(buf, dtype=raw).reshape(dims).copy().view(dt)
        _lib.hlo_val_release(None, leaf)
        return arr

    def _result(self, res):
        leaves = []
        tree = self._leaves(res, leaves)
        _lib.hlo_val_release(None, res)  # the leaves keep their own references

        def build(t):
            return tuple(build(x) for x in t) if isinstance(t, tuple) else self._array(t)
        return build(tree)

    # -- running -------------------------------------------------------------
    def run(self, *arrays):
        """Run on one array (or array-like) per entry parameter; returns a
        numpy array, or a tuple (nested as the result shape) for a tuple
        result.  Raises HloError (with the instruction's position) when the
        run fails, TypeError/ValueError for inputs of the wrong type or
        shape."""
        if len(arrays) != len(self.parameters):
            raise TypeError("the entry computation takes %d input%s, got %d" %
                            (len(self.parameters), "" if len(self.parameters) == 1 else "s",
                             len(arrays)))
        args = [self._arg(i, a) for i, a in enumerate(arrays)]
        n = len(args)
        vals = (_P_VAL * max(1, n))()
        made = []
        try:
            for i, a in enumerate(args):
                v = _lib.hlo_val_borrow(None, self._pshapes[i], ctypes.c_void_p(a.ctypes.data))
                if not v:
                    raise MemoryError("cannot make input %d" % i)
                made.append(v)
                vals[i] = v
            res = _P_VAL()
            with self._lock:
                if not self._e:
                    raise ValueError("the Executable was closed")
                rc = _lib.hlo_exec_run(self._e, vals, n, ctypes.byref(res))
                if rc != _lib.HLO_OK:
                    err = self._diags.error([self.module._source], "the run failed")
                    self._diags.reset()
                    raise err
                return self._result(res)
        finally:
            for v in made:
                _lib.hlo_val_release(None, v)
            del args

    __call__ = run

    def __repr__(self):
        return "<Executable of %s: %d parameters>" % (self.module.name, len(self.parameters))
