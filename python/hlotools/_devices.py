"""DeviceExecutable: a module written for several devices (replicas and
SPMD partitions) planned once per device (hlo_devices_new) and run with
every device in its own thread, their collectives meeting in one in-process
communicator (hlo_comm_new), as `hlo-run` runs it.  Inputs and results are
numpy arrays, one result per logical device (replica * partitions +
partition)."""
import ctypes

import numpy as np

from . import _lib
from ._errors import DiagList
from ._run import Executable, _param_info, _P_VAL


class DeviceExecutable(Executable):
    """Module.compile_devices(): run(*arrays) gives every device the same
    inputs; run(*arrays, per_device=True) takes, per parameter, a sequence
    of one input per device (or an array whose leading axis is the device).
    Returns a list of results, one per device.  One run at a time."""

    def __init__(self, handle, name, replicas, partitions, threads=0, reference=False, rng_seed=0,
                 max_while_iterations=0, timeout=60.0):
        import threading
        self._h = handle
        self.name = name
        self._lock = threading.Lock()
        self._diags = DiagList()
        self._e = None
        self._comm = None
        self._g = None
        self._fixed = ()
        self._leaf_info = {}
        self.replicas, self.partitions = int(replicas), int(partitions)
        copts = _lib.CommOptions(replicas=self.replicas, partitions=self.partitions,
                                 timeout_seconds=float(timeout))
        self._comm = _lib.hlo_comm_new(ctypes.byref(copts), None, self._diags.ref)
        if not self._comm:
            raise self._diags.error([handle.source], "cannot make the devices")
        self._opts = _lib.ExecOptions(reference=bool(reference), rng_seed=int(rng_seed),
                                      max_while_iters=int(max_while_iterations),
                                      threads=int(threads or 0),
                                      src=ctypes.pointer(handle.source.src),
                                      allow_mixed_precision=True)
        self._g = _lib.hlo_devices_new(handle.m, ctypes.byref(self._opts), self._comm, None,
                                       self._diags.ref)
        if not self._g:
            raise self._diags.error([handle.source], "the module cannot run on these devices")
        self.devices = _lib.hlo_devices_count(self._g)
        e = _lib.hlo_devices_exec(self._g, 0)
        n = _lib.hlo_exec_nparams(e)
        self._pshapes = [_lib.hlo_exec_param_shape(e, i) for i in range(n)]
        self.parameters = [_param_info(p) for p in self._pshapes]
        from . import _dtypes
        self._pinfo = [(nm, dims, _dtypes.dtype(nm), _dtypes.raw_dtype(nm))
                       for nm, dims in self.parameters]

    def close(self):
        """Free the plans and the communicator now (also done when collected)."""
        with self._lock:
            self._free()

    def _free(self):
        if getattr(self, "_g", None):
            _lib.hlo_devices_free(self._g)
            self._g = None
        if getattr(self, "_comm", None):
            _lib.hlo_comm_free(self._comm)
            self._comm = None

    def __del__(self):
        self._free()

    def _device_inputs(self, i, a, per_device):
        if not per_device:
            return [a] * self.devices
        if isinstance(a, np.ndarray) and a.ndim >= 1 and a.shape[0] == self.devices and \
                self._pinfo[i][3] is not None:
            return list(a)
        try:
            seq = list(a)
        except TypeError:
            raise TypeError("per_device: parameter %d needs one input per device (%d)" %
                            (i, self.devices)) from None
        if len(seq) != self.devices:
            raise ValueError("per_device: parameter %d has %d inputs for %d devices" %
                             (i, len(seq), self.devices))
        return seq

    def run(self, *arrays, per_device=False):
        """Run every device; returns a list with each device's result (a
        numpy array, or a tuple for a tuple result).  Raises HloError when a
        device fails (the first failure, with its position; a collective
        that some device never reaches fails after the timeout)."""
        n = len(self._pinfo)
        if len(arrays) != n:
            raise TypeError("the entry computation takes %d input%s, got %d" %
                            (n, "" if n == 1 else "s", len(arrays)))
        D = self.devices
        per = [self._device_inputs(i, a, per_device) for i, a in enumerate(arrays)]
        keep, made = [], []
        rows = (ctypes.POINTER(_P_VAL) * max(1, D))()
        row_vals = []
        results = (_P_VAL * max(1, D))()
        with self._lock:
            if not self._g:
                raise ValueError("the DeviceExecutable was closed")
            try:
                for k in range(D):
                    vals = (_P_VAL * max(1, n))()
                    for i in range(n):
                        a = per[i][k]
                        if self._pinfo[i][3] is not None:
                            arr = self._arg(i, a)
                            keep.append(arr)
                            v = _lib.hlo_val_borrow(None, self._pshapes[i], arr.ctypes.data)
                            if not v:
                                raise MemoryError("cannot make input %d" % i)
                        else:
                            v = self._make(i, self._pshapes[i], a, keep)
                        made.append(v)
                        vals[i] = v
                    row_vals.append(vals)
                    rows[k] = ctypes.cast(vals, ctypes.POINTER(_P_VAL))
                rc = _lib.hlo_devices_run(self._g, rows, n, results)
                if rc != _lib.HLO_OK:
                    err = self._diags.error([self._h.source], "the run failed")
                    self._diags.reset()
                    raise err
                return [self._result(results[k]) for k in range(D)]
            finally:
                for v in made:
                    _lib.hlo_val_release(None, v)

    __call__ = run

    def __repr__(self):
        return "<DeviceExecutable of %s: %d replicas x %d partitions>" % (
            self.name, self.replicas, self.partitions)
