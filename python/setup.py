"""Builds the hlotools package.  The package is pure Python over libhlo.so;
when a built library is found (HLO_LIBRARY, else ../build/lib/libhlo.so next
to this directory) a copy goes into the package as hlotools/libhlo.so.0, so
`make && pip install --no-build-isolation ./python` gives a self-contained
install.  Without one the package looks for the library at run time
(docs/python.md)."""
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def built_library():
    env = os.environ.get("HLO_LIBRARY")
    if env:
        return env if os.path.exists(env) else None
    p = os.path.join(os.path.dirname(HERE), os.environ.get("BUILD", "build"), "lib", "libhlo.so")
    return p if os.path.exists(p) else None


class BuildPy(build_py):
    def run(self):
        super().run()
        lib = built_library()
        if lib:
            shutil.copy2(os.path.realpath(lib), os.path.join(self.build_lib, "hlotools", "libhlo.so.0"))
        else:
            sys.stderr.write("hlotools: no built libhlo.so found (run make first or set HLO_LIBRARY);"
                             " the package will look for an installed one\n")


class BinaryDistribution(Distribution):
    """The bundled library makes the package platform-specific."""

    def has_ext_modules(self):
        return built_library() is not None


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
