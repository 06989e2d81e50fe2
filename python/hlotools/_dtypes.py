"""XLA element types <-> numpy dtypes.

Standard types map to numpy's own dtypes.  bf16, the f8/f4 types and the
sub-byte integers map to ml_dtypes' types when `ml_dtypes` is importable;
otherwise to raw-bits dtypes holding the library's storage unchanged:
bf16 -> uint16 (the bit pattern), f8*/f4e2m1fn -> uint8 (the pattern in the
low bits), s1/s2/s4 -> int8 and u1/u2/u4 -> uint8 (one element per byte).
`raw_dtype(t)` always gives the raw-bits dtype."""
import numpy as np

from . import _lib

try:  # optional: numpy types for bfloat16, float8_*, int4, ...
    import ml_dtypes
except ImportError:  # pragma: no cover - depends on the machine
    ml_dtypes = None

TYPE = {}  # XLA type name -> enum value of hlo_type (hlo_type_name is "?" past the end)
for _v in range(256):
    _n = _lib.hlo_type_name(_v).decode()
    if _n == "?":
        break
    TYPE[_n] = _v
NAME = {v: k for k, v in TYPE.items()}

_NUMPY = {"pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
          "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
          "f16": np.float16, "f32": np.float32, "f64": np.float64, "c64": np.complex64,
          "c128": np.complex128}
_RAW = {"bf16": np.uint16, "s1": np.int8, "s2": np.int8, "s4": np.int8, "u1": np.uint8,
        "u2": np.uint8, "u4": np.uint8}
_ML = {"bf16": "bfloat16", "f8e5m2": "float8_e5m2", "f8e4m3": "float8_e4m3",
       "f8e4m3fn": "float8_e4m3fn", "f8e4m3b11fnuz": "float8_e4m3b11fnuz",
       "f8e5m2fnuz": "float8_e5m2fnuz", "f8e4m3fnuz": "float8_e4m3fnuz", "f8e3m4": "float8_e3m4",
       "f8e8m0fnu": "float8_e8m0fnu", "f4e2m1fn": "float4_e2m1fn", "s4": "int4", "u4": "uint4",
       "s2": "int2", "u2": "uint2"}


def raw_dtype(name):
    """The raw-bits numpy dtype of XLA type `name` (None for token/opaque/tuple)."""
    if name in _NUMPY:
        return np.dtype(_NUMPY[name])
    if name in _RAW:
        return np.dtype(_RAW[name])
    if name.startswith("f8") or name.startswith("f4"):
        return np.dtype(np.uint8)
    return None


def dtype(name, ml=None):
    """The numpy dtype for XLA type `name`: ml_dtypes' type where it has one
    and is importable (`ml` overrides the module, for tests), else raw_dtype."""
    ml = ml_dtypes if ml is None else ml
    if name in _ML and ml is not None and hasattr(ml, _ML[name]):
        return np.dtype(getattr(ml, _ML[name]))
    return raw_dtype(name)

