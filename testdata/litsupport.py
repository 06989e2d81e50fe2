"""lit test format: one test per (check script, corpus file) pair."""
import glob
import os
import subprocess
import lit.Test
import lit.formats


class CorpusFormat(lit.formats.TestFormat):
    def __init__(self, corpus):
        self.corpus = corpus

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig, localConfig):
        here = os.path.join(testSuite.source_root, *path_in_suite)
        checks = sorted(glob.glob(os.path.join(here, "check_*.py")))
        files = sorted(glob.glob(os.path.join(self.corpus, "*.hlo")))
        if not files:
            # no corpus: one test that fails loudly instead of silently passing
            yield lit.Test.Test(testSuite, path_in_suite + ("missing-corpus",), localConfig)
            return
        for c in checks:
            for f in files:
                name = os.path.basename(c)[len("check_"):-3] + ":" + os.path.basename(f)
                yield lit.Test.Test(testSuite, path_in_suite + (name,), localConfig)

    def execute(self, test, litConfig):
        name = test.path_in_suite[-1]
        if name == "missing-corpus":
            return lit.Test.FAIL, "corpus not found at " + self.corpus
        check, fname = name.split(":", 1)
        script = os.path.join(test.suite.source_root, *test.path_in_suite[:-1], "check_" + check + ".py")
        env = dict(os.environ, PATH=test.config.environment["PATH"])
        r = subprocess.run(["/usr/bin/python3", script, os.path.join(self.corpus, fname)],
                           capture_output=True, text=True, env=env, timeout=300)
        if r.returncode == 0:
            return lit.Test.PASS, ""
        return lit.Test.FAIL, r.stdout + r.stderr


