#!/usr/bin/env python3
"""Summarises DOT text from hlo-dot (stdin) for FileCheck: one line with the
number of nodes, marker nodes, edges and clusters, then one line per edge
label ("label n3 -> n4 1").  Reads the statements, not the layout."""
import re
import sys

text = sys.stdin.read()
# statements are separated by ';' or newlines between ']' and the next id
nodes = re.findall(r'^\s*(n\d+)\s*\[', text, re.M)
edges = re.findall(r'^\s*(n\d+)\s*->\s*(n\d+)\s*(\[[^\]]*\])?', text, re.M | re.S)
clusters = re.findall(r'subgraph\s+cluster_', text)
markers = len(re.findall(r'class="?hlo-cut', text))
print("nodes %d markers %d edges %d clusters %d" % (len(nodes), markers, len(edges), len(clusters)))
for a, b, attrs in edges:
    m = re.search(r'\blabel=("?)(\d+)\1', attrs or "")
    if m:
        print("label %s -> %s %s" % (a, b, m.group(2)))
