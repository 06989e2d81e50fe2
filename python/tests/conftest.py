"""Shared fixtures of the hlotools Python tests: where the build tree, the
command-line tools and the corpus are (the tests run in place, with
PYTHONPATH=python and HLO_LIBRARY or the build tree's libhlo.so)."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")


def tool(name, *args, check=True, **kw):
    """Run build/bin/<name> and return the CompletedProcess (stdout as text)."""
    exe = os.path.join(BUILD, "bin", name)
    r = subprocess.run([exe] + [str(a) for a in args], capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (name, r.returncode, r.stderr))
    return r


@pytest.fixture
def corpus():
    if not os.path.isdir(CORPUS):
        pytest.fail("corpus not found at %s" % CORPUS)
    return CORPUS
