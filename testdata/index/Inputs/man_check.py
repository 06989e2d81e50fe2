#!/usr/bin/env python3
"""Checks man/man1/hlo-index.1 against the tool: every long option of
`hlo-index --help` is documented under OPTIONS, and every EXAMPLES session
("$ cat FILE" shows a file, any other "$ command" is run in a scratch
directory and must print exactly the lines that follow it)."""
import os
import re
import subprocess
import sys
import tempfile


def unescape(s):
    return s.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")


def main():
    man = open(sys.argv[1]).read()
    helptext = subprocess.run(["hlo-index", "--help"], capture_output=True, text=True).stdout
    bad = 0
    opts = man[man.index(".SH OPTIONS"):man.index(".SH EXIT STATUS")]
    for o in sorted(set(re.findall(r"--([a-z][a-z-]+)", helptext))):
        if "\\-\\-" + o.replace("-", "\\-") not in opts:
            print("option --%s is not documented in OPTIONS" % o)
            bad += 1
    ex = man[man.index(".SH EXAMPLES"):man.index(".SH SEE ALSO")]
    blocks = re.findall(r"^\.nf\n(.*?)^\.fi", ex, re.S | re.M)
    nrun = 0
    with tempfile.TemporaryDirectory() as tmp:
        for blk in blocks:
            lines = [unescape(l) for l in blk.split("\n") if l not in (".RS", ".RE", "")]
            i = 0
            while i < len(lines):
                cmd = lines[i][2:]
                i += 1
                while cmd.count("'") % 2:  # a quoted argument spanning lines
                    cmd += "\n" + lines[i]
                    i += 1
                out = []
                while i < len(lines) and not lines[i].startswith("$ "):
                    out.append(lines[i])
                    i += 1
                if cmd.startswith("cat "):
                    open(os.path.join(tmp, cmd[4:]), "w").write("\n".join(out) + "\n")
                    continue
                r = subprocess.run(cmd, shell=True, cwd=tmp, capture_output=True, text=True)
                nrun += 1
                if r.stdout.rstrip("\n").split("\n") != out:
                    print("example `%s` printed:\n%s\nexpected:\n%s" % (cmd, r.stdout, "\n".join(out)))
                    bad += 1
    print("man page: %d examples run, %d problems" % (nrun, bad))
    return 1 if bad or nrun == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
