#!/usr/bin/env python3
"""check_exports.py ROOT LIBHLO_SO - libhlo.so must export exactly the
functions declared HLO_API in ROOT/include/hlo/*.h: prints what the headers
declare but the library does not define, and what the library exports
although no header declares it.  Exit 1 if either list is not empty."""
import glob
import re
import subprocess
import sys

root, so = sys.argv[1], sys.argv[2]
declared = set()
for h in glob.glob(root + "/include/hlo/*.h"):
    text = re.sub(r"/\*.*?\*/", " ", open(h).read(), flags=re.S)
    text = re.sub(r"^#.*$", "", text, flags=re.M)
    for m in re.finditer(r"\bHLO_API\b([^;(]*?)\b(\w+)\s*\(", text):
        declared.add(m.group(2))
    # a declaration without the macro would stay hidden: catch it too
    for m in re.finditer(r"^(?!HLO_API|typedef|static|#|\s)[^;{}()]*?\b(hlo_\w+|imap_\w+)\s*\(", text, re.M):
        print("declared without HLO_API:", m.group(1))
        sys.exit(1)
nm = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True, check=True).stdout
exported = {l.split()[-1] for l in nm.splitlines() if len(l.split()) == 3 and l.split()[1] in "TtWiDdBbRr"}
exported = {s for s in exported if not s.startswith(("_init", "_fini", "__bss", "_edata", "_end", "__data"))}
missing, extra = sorted(declared - exported), sorted(exported - declared)
print("declared: %d, exported: %d" % (len(declared), len(exported)))
print("declared but not exported:", " ".join(missing) if missing else "none")
print("exported but not declared:", " ".join(extra) if extra else "none")
sys.exit(1 if missing or extra else 0)
