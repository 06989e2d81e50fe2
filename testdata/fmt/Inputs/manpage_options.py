#!/usr/bin/env python3
"""manpage_options.py HELP_TEXT MAN_PAGE: the options listed by --help and
the options documented in the man page's OPTIONS section are the same set
(long and short names, and the argument name of options that take one)."""
import re
import sys


def help_options(text):
    opts = set()
    for line in text.splitlines():
        m = re.match(r"\s+(-\w)?,?\s*(--[\w-]+)(?:[ =](\w+))?", line)
        if m:
            opts.update(x for x in (m.group(1), m.group(2)) if x)
            if m.group(3):
                opts.add(m.group(2) + "=" + m.group(3))
    return opts


def man_options(text):
    sec = re.search(r"^\.SH OPTIONS\n(.*?)^\.SH ", text, re.S | re.M)
    if not sec:
        sys.exit("man page has no OPTIONS section")
    opts = set()
    lines = sec.group(1).splitlines()
    for i, line in enumerate(lines):
        if line.strip() != ".TP" or i + 1 >= len(lines):
            continue
        tag = lines[i + 1].replace("\\-", "-").replace("\\fI", "").replace("\\fR", "")
        tag = re.sub(r'^\.\w+\s*', "", tag).replace('"', "").replace(" =", "=")
        for m in re.finditer(r"(--[\w-]+)(?:=(\w+))?|(?<![\w-])(-\w)\b", tag):
            if m.group(1):
                opts.add(m.group(1))
                if m.group(2):
                    opts.add(m.group(1) + "=" + m.group(2))
            else:
                opts.add(m.group(3))
    return opts


def main():
    h = help_options(open(sys.argv[1]).read())
    m = man_options(open(sys.argv[2]).read())
    if not h:
        sys.exit("no options found in the --help text")
    ok = True
    for o in sorted(h - m):
        print("in --help but not in the man page: " + o)
        ok = False
    for o in sorted(m - h):
        print("in the man page but not in --help: " + o)
        ok = False
    if ok:
        print("same %d options" % len(h))
    return 0 if ok else 1


sys.exit(main())
