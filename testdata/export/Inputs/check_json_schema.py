#!/usr/bin/env python3
"""Validates hlo-json documents against the schema in docs/json.md.

The schema is the ```json block of docs/json.md (a subset of JSON Schema:
type, properties, required, items, enum, const, oneOf, $ref, pattern,
additionalProperties).  Attribute values are also checked against the kind
table of docs/json.md.  Prints "ok N files, M modules" or the first errors
with their JSON paths; exit status 1 on any error.

usage: check_json_schema.py DOCS_JSON_MD FILE.json..."""
import json
import re
import sys

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


class Checker:
    def __init__(self, schema):
        self.root = schema
        self.errors = []

    def resolve(self, ref):
        node = self.root
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        return node

    def ok(self, s, v):
        """True if v matches s (no error recording)."""
        saved = self.errors
        self.errors = []
        self.check(s, v, "")
        good = not self.errors
        self.errors = saved
        return good

    def err(self, path, msg):
        self.errors.append("%s: %s" % (path or "$", msg))

    def check(self, s, v, path):
        if "$ref" in s:
            self.check(self.resolve(s["$ref"]), v, path)
        if "const" in s and v != s["const"]:
            self.err(path, "expected %r, got %r" % (s["const"], v))
        if "enum" in s and v not in s["enum"]:
            self.err(path, "%r is not one of the allowed values" % (v,))
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(TYPES[t](v) for t in types):
                self.err(path, "expected %s, got %s" % ("/".join(types), type(v).__name__))
                return
        if "pattern" in s and isinstance(v, str) and not re.search(s["pattern"], v):
            self.err(path, "%r does not match %s" % (v[:40], s["pattern"]))
        if "oneOf" in s:
            n = sum(self.ok(alt, v) for alt in s["oneOf"])
            if n != 1:
                self.err(path, "%r matches %d alternatives of oneOf" % (v, n))
        if isinstance(v, dict) and "properties" in s:
            for k in s.get("required", []):
                if k not in v:
                    self.err(path, "missing field %r" % k)
            for k, sub in v.items():
                if k in s["properties"]:
                    self.check(s["properties"][k], sub, path + "." + k)
                elif s.get("additionalProperties") is False:
                    self.err(path, "unexpected field %r" % k)
        if isinstance(v, list) and "items" in s:
            for i, x in enumerate(v):
                self.check(s["items"], x, "%s[%d]" % (path, i))


def is_int(v):
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, str) and re.fullmatch(r"-?[0-9]+", v) is not None)


def check_attr_values(doc, c):
    """The value of each attribute has the form its kind prescribes."""
    def walk_attrs(attrs, path):
        for i, a in enumerate(attrs):
            p = "%s[%d](%s)" % (path, i, a.get("name"))
            k, v = a.get("kind"), a.get("value")
            good = {
                "int": lambda: is_int(v),
                "bool": lambda: isinstance(v, bool),
                "float": lambda: isinstance(v, (int, float)) and not isinstance(v, bool)
                or v in ("nan", "-nan", "inf", "-inf", "-0"),
                "string": lambda: isinstance(v, str) or v is None,
                "word": lambda: isinstance(v, str),
                "raw": lambda: isinstance(v, str),
                "ints": lambda: isinstance(v, list) and all(is_int(x) for x in v),
                "bools": lambda: isinstance(v, list) and all(isinstance(x, bool) for x in v),
                "words": lambda: isinstance(v, list) and all(isinstance(x, str) for x in v),
                "computation": lambda: isinstance(v, str) or v is None,
                "computations": lambda: isinstance(v, list) and all(isinstance(x, str) for x in v),
                "instructions": lambda: isinstance(v, list) and all(isinstance(x, str) for x in v),
                "window": lambda: isinstance(v, list) and all(
                    set(x) == {"size", "stride", "pad_lo", "pad_hi", "lhs_dilate", "rhs_dilate", "reversal"}
                    for x in v),
                "conv_dnums": lambda: isinstance(v, dict) and set(v) == {
                    "input_batch", "input_feature", "input_spatial", "kernel_input_feature",
                    "kernel_output_feature", "kernel_spatial", "output_batch", "output_feature",
                    "output_spatial"},
                "slices": lambda: isinstance(v, list) and all(set(x) == {"start", "limit", "stride"} for x in v),
                "padding": lambda: isinstance(v, dict) and set(v) == {"has_interior", "dims"},
                "replica_groups": lambda: isinstance(v, dict) and "iota" in v,
                "pairs": lambda: isinstance(v, list) and all(len(x) == 2 for x in v),
                "shape": lambda: c.ok({"$ref": "#/defs/shape"}, v),
                "shapes": lambda: isinstance(v, list) and all(c.ok({"$ref": "#/defs/shape"}, x) for x in v),
                "sharding": lambda: isinstance(v, dict) and "kind" in v and "text" in v,
                "program_shape": lambda: isinstance(v, dict) and set(v) == {"parameters", "result"},
                "literal": lambda: c.ok({"$ref": "#/defs/literal"}, v),
                "aliasing": lambda: isinstance(v, dict) and set(v) <= {"entries", "text"} and all(
                    {"output_index", "operand", "operand_index"} <= set(e) <= {
                        "output_index", "operand", "operand_index", "kind"} for e in v.get("entries", [])),
            }.get(k, lambda: False)()
            if not good:
                c.err(p, "value does not fit kind %r" % k)

    for mi, m in enumerate(doc.get("modules", [])):
        walk_attrs(m.get("attrs", []), "modules[%d].attrs" % mi)
        for ci, comp in enumerate(m.get("computations", [])):
            walk_attrs(comp.get("attrs", []), "modules[%d].computations[%d].attrs" % (mi, ci))
            for ii, ins in enumerate(comp.get("instructions", [])):
                walk_attrs(ins.get("attrs", []),
                           "modules[%d].computations[%d].instructions[%d].attrs" % (mi, ci, ii))


def main():
    md = open(sys.argv[1]).read()
    m = re.search(r"```json\n(.*?)```", md, re.S)
    if not m:
        print("no ```json schema block in", sys.argv[1])
        return 1
    schema = json.loads(m.group(1))
    nmods = 0
    failed = False
    for path in sys.argv[2:]:
        doc = json.load(open(path))
        c = Checker(schema)
        c.check(schema, doc, "")
        check_attr_values(doc, c)
        nmods += len(doc.get("modules", [])) if isinstance(doc, dict) else 0
        if c.errors:
            failed = True
            print("%s: %d errors" % (path, len(c.errors)))
            for e in c.errors[:10]:
                print("  " + e)
    if failed:
        return 1
    print("ok %d files, %d modules" % (len(sys.argv) - 2, nmods))
    return 0


if __name__ == "__main__":
    sys.exit(main())
