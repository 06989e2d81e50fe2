"""hlotools: XLA HLO text from Python, over libhlo.

    import numpy as np, hlotools
    m = hlotools.parse("ENTRY e { p = f32[3] parameter(0)\\n ROOT n = f32[3] negate(p) }")
    m.verify()
    m.run(np.arange(3, dtype=np.float32))      # array([-0., -1., -2.], dtype=float32)

parse / parse_all give Module objects (format, verify, infer_shapes,
computations and instructions, indexing, fuse, compile / run (on every
device of a multi-device module: compile_devices), to_json,
to_dot, to_html).  Errors raise HloError carrying every Diagnostic.  See
docs/python.md."""
from ._dtypes import dtype, raw_dtype
from ._errors import Diagnostic, HloError
from ._index import Indexing, IndexingMap, MapSet
from ._ir import Computation, Instruction, Shape
from ._lib import LIBRARY_PATH
from ._module import Module, parse, parse_all
from ._devices import DeviceExecutable
from ._run import Executable

__version__ = "0.1.0"
__all__ = ["parse", "parse_all", "Module", "Executable", "DeviceExecutable", "HloError", "Diagnostic", "Computation",
           "Instruction", "Shape", "Indexing", "MapSet", "IndexingMap", "dtype", "raw_dtype",
           "LIBRARY_PATH"]
