# lit configuration for hlotools' golden, corpus and numeric tests.
# Golden tests are .hlo/.test files with "// RUN:" lines; files under Inputs/
# are data.  Tools come from $HLO_BUILD/bin (default build/bin).
import os
import lit.formats

config.name = "hlotools"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".hlo", ".test"]
config.excludes = ["Inputs", "examples", "lit.cfg.py", "run_tests.py", "bench.py", "litsupport.py"]
config.test_source_root = os.path.dirname(__file__)
root = os.path.dirname(config.test_source_root)
build = os.environ.get("HLO_BUILD", os.path.join(root, "build"))
config.test_exec_root = os.path.join(build, "lit")
config.environment["PATH"] = os.pathsep.join(
    [os.path.join(build, "bin"), "/usr/lib/llvm-14/bin", config.environment.get("PATH", os.environ["PATH"])])
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
if "LSAN_OPTIONS" not in os.environ:  # third-party leaks only; see the file
    config.environment["LSAN_OPTIONS"] = "suppressions=%s:print_suppressions=0" % os.path.join(
        config.test_source_root, "lsan.supp")
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(("%corpus", os.path.join(os.path.dirname(root), "shared", "corpus")))
config.substitutions.append(("%testdata", config.test_source_root))
config.substitutions.append(("%root", root))
config.substitutions.append(("%fuzzbin", os.path.join(build, "fuzz")))
config.substitutions.append(("%libdir", os.path.join(build, "lib")))
# "mpi": this build has MPI support (hlo-run --mpi; the Makefile writes the file)
try:
    with open(os.path.join(build, "mpi-support")) as f:
        if f.read().strip() == "yes":
            config.available_features.add("mpi")
except OSError:
    pass
