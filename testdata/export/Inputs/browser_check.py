#!/usr/bin/env python3
"""Loads an hlo-dot HTML page in headless Chromium with a URL fragment
"#search=NAME&click=NAME", lets the page's script search and click, and
prints the text the page wrote into <pre id="hlo-test-result"> so FileCheck
can check it.  Standard library only; fails if Chromium is missing.

usage: browser_check.py PAGE.html SEARCH CLICK"""
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse


def main():
    page, search, click = sys.argv[1:4]
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print("browser_check: chromium is not installed (see .ci/deps.sh)", file=sys.stderr)
        return 2
    frag = "search=%s&click=%s" % (urllib.parse.quote(search), urllib.parse.quote(click))
    url = "file://" + os.path.abspath(page) + "#" + frag
    with tempfile.TemporaryDirectory() as prof:
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--user-data-dir=" + prof, "--run-all-compositor-stages-before-draw",
               "--virtual-time-budget=5000", "--dump-dom", url]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="hlo-test-result">(.*?)</pre>', r.stdout, re.S)
    if not m:
        print("browser_check: no test result in the page (exit %d)\n%s" % (r.returncode, r.stderr[-2000:]),
              file=sys.stderr)
        return 1
    print(html.unescape(m.group(1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
