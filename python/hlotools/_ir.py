"""Read-only Python views of a module's computations and instructions, built
from the library's lossless JSON form (hlo_json_write; docs/json.md)."""
import weakref

import numpy as np

from . import _dtypes


def _int(v):
    """JSON integers beyond 2^53 are decimal strings."""
    return int(v) if isinstance(v, str) and v.lstrip("-").isdigit() else v


class Shape:
    """An XLA shape: `type` is the XLA element type name ("f32", "bf16",
    "tuple", "token"), `dtype` the numpy dtype (None for tuple/token/opaque),
    `dims` a tuple of ints (None for an unbounded '?' dimension),
    `dynamic` a tuple of bools or None, `elements` the element shapes of a
    tuple, `layout` the minor_to_major tuple or None."""

    __slots__ = ("type", "dims", "dynamic", "elements", "layout")

    def __init__(self, j):
        self.type = j["type"]
        self.dims = tuple(None if d == "?" else _int(d) for d in j.get("dims", ()))
        dyn = j.get("dynamic")
        self.dynamic = tuple(dyn) if dyn else None
        self.elements = tuple(Shape(e) for e in j.get("elements", ()))
        lay = j.get("layout")
        self.layout = tuple(_int(x) for x in lay["minor_to_major"]) if lay else None

    @property
    def dtype(self):
        return _dtypes.dtype(self.type) if self.type not in ("tuple", "token", "opaque") else None

    @property
    def is_tuple(self):
        return self.type == "tuple"

    @property
    def rank(self):
        return len(self.dims)

    def __iter__(self):  # dtype, dims = instr.shape
        return iter((self.dtype, self.dims))

    def __eq__(self, other):
        if isinstance(other, tuple) and not self.is_tuple:
            return self.dims == other
        return isinstance(other, Shape) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    def __str__(self):
        if self.is_tuple:
            return "(" + ", ".join(str(e) for e in self.elements) + ")"
        if not self.dims and self.type in ("token", "opaque"):
            return self.type + "[]"
        dims = []
        for i, d in enumerate(self.dims):
            s = "?" if d is None else str(d)
            if self.dynamic and self.dynamic[i] and d is not None:
                s = "<=" + s
            dims.append(s)
        return "%s[%s]" % (self.type, ",".join(dims))

    def __repr__(self):
        return "Shape(%s)" % self


def _literal(j):
    """A constant's value as a numpy array (tuples as tuples; None if elided)."""
    if j.get("tuple") is not None or j["shape"]["type"] == "tuple":
        return tuple(_literal(e) for e in j.get("tuple", ()))
    if j.get("elided") or "data" not in j:
        return None
    sh = Shape(j["shape"])
    raw = np.frombuffer(bytes.fromhex(j["data"]), dtype=_dtypes.raw_dtype(sh.type))
    return raw.view(sh.dtype).reshape(sh.dims).copy()


def _attr_value(a):
    v = a.get("value")
    kind = a.get("kind")
    if kind == "int":
        return _int(v)
    if kind in ("ints",):
        return tuple(_int(x) for x in v)
    if kind in ("bools", "words", "computations", "instructions"):
        return tuple(v)
    if kind == "float" and isinstance(v, str):
        return float(v)  # "nan", "-nan", "inf", "-inf", "-0"
    if kind == "shape":
        return Shape(v)
    if kind == "shapes":
        return tuple(Shape(s) for s in v)
    if kind == "pairs":
        return tuple(tuple(_int(x) for x in p) for p in v)
    if kind == "literal":
        return _literal(v)
    return v  # bool, string, word, raw text, and the structured kinds as dicts/lists


class Instruction:
    """One instruction: `name`, `opcode` (XLA spelling), `shape` (Shape;
    `dtype` and `dims` are shortcuts), `operands` and `users` (Instruction
    lists), `attributes` (dict name -> Python value: ints, tuples, strings,
    Shape, dicts for structured attributes such as window or sharding),
    `computation` (the Computation it belongs to), `parameter_number`
    (parameters), `literal` (constants: a numpy array), `called_computations`
    (names)."""

    def __init__(self, comp, j):
        self.computation = comp
        self.name = j["name"]
        self.opcode = j["opcode"]
        self.shape = Shape(j["shape"])
        self._operands = j.get("operands", [])
        self._users = j.get("users", [])
        self.attributes = {a["name"]: _attr_value(a) for a in j.get("attrs", [])}
        self.parameter_number = j.get("parameter_number")
        self.literal = _literal(j["literal"]) if j.get("literal") else None
        self.called_computations = tuple(j.get("called_computations", ()))
        self.control_predecessors = tuple(j.get("control_predecessors", ()))

    @property
    def dtype(self):
        return self.shape.dtype

    @property
    def dims(self):
        return self.shape.dims

    @property
    def operands(self):
        return [self.computation[n] for n in self._operands]

    @property
    def users(self):
        return [self.computation[n] for n in self._users]

    @property
    def is_root(self):
        return self.computation.root is self

    def __repr__(self):
        return "<Instruction %%%s = %s %s>" % (self.name, self.shape, self.opcode)


class Computation:
    """A computation: `name`, `instructions` (text order), `root`,
    `is_entry`, `is_fused`, `parameters` (by number); indexable by
    instruction name."""

    def __init__(self, module, j):
        self._module = weakref.ref(module)  # no cycle through the Module's handle
        self.name = j["name"]
        self.is_entry = j["is_entry"]
        self.is_fused = j["is_fused"]
        self.instructions = [Instruction(self, i) for i in j["instructions"]]
        self._by_name = {i.name: i for i in self.instructions}
        self.root = self._by_name.get(j["root"]) if j.get("root") else None

    @property
    def module(self):
        """The Module (None once it was collected)."""
        return self._module()

    @property
    def parameters(self):
        ps = [i for i in self.instructions if i.opcode == "parameter"]
        return sorted(ps, key=lambda i: i.parameter_number)

    def __getitem__(self, name):
        return self._by_name[name.lstrip("%")]

    def __contains__(self, name):
        return name.lstrip("%") in self._by_name

    def __iter__(self):
        return iter(self.instructions)

    def __len__(self):
        return len(self.instructions)

    def __repr__(self):
        return "<Computation %s: %d instructions>" % (self.name, len(self.instructions))
