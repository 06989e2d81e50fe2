#!/usr/bin/env python3
"""Prints Model Explorer graph JSON (stdin) one node per line for FileCheck:
"ID NAMESPACE opcode <- SOURCE:INPUT ..." after a header with the number of
graphs, the label and subgraph ids.  Fails on a node without the fields
Model Explorer's GraphNode requires."""
import json
import sys

g = json.load(sys.stdin)
assert isinstance(g, list), "a GraphCollection is a JSON array of graphs"
print("graphs %d label %s subgraphs %s" % (len(g), g[0]["label"], ",".join(s["id"] for s in g[0]["subgraphs"])))
for sg in g[0]["subgraphs"]:
    print("nodes %d" % len(sg["nodes"]))
    for n in sg["nodes"]:
        for k in ("id", "label", "namespace", "subgraphIds", "attrs", "incomingEdges",
                  "inputsMetadata", "outputsMetadata"):
            assert k in n, "node %s lacks %s" % (n.get("id"), k)
        op = [a["value"] for a in n["attrs"] if a["key"] == "opcode"][0]
        edges = " ".join("%s:%s" % (e["sourceNodeId"], e["targetNodeInputId"]) for e in n["incomingEdges"])
        shape = [a["value"] for o in n["outputsMetadata"] for a in o["attrs"] if a["key"] == "tensor_shape"]
        print("%s %s %s %s <- %s" % (n["id"], n["namespace"], op, shape[0] if shape else "-", edges))
