"""lit test format of testdata/bad/: one test per file, expectations in
EXPECTATIONS.tsv (see bad/lit.local.cfg)."""
import os
import shlex
import subprocess
import lit.Test
import lit.formats


class BadInputFormat(lit.formats.TestFormat):
    def _table(self, here):
        rows = {}
        with open(os.path.join(here, "EXPECTATIONS.tsv"), encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    name, code, cmd, sub = line.rstrip("\n").split("\t")
                    rows[name] = (int(code), cmd, sub)
        return rows

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig, localConfig):
        here = os.path.join(testSuite.source_root, *path_in_suite)
        names = set(os.listdir(here)) | set(self._table(here))
        for n in sorted(names - {"lit.local.cfg", "EXPECTATIONS.tsv", "__pycache__"}):
            yield lit.Test.Test(testSuite, path_in_suite + (n,), localConfig)

    def execute(self, test, litConfig):
        here = os.path.join(test.suite.source_root, *test.path_in_suite[:-1])
        name = test.path_in_suite[-1]
        rows = self._table(here)
        if name not in rows:
            return lit.Test.FAIL, "no row for %s in EXPECTATIONS.tsv" % name
        path = os.path.join(here, name)
        if not os.path.exists(path):
            return lit.Test.FAIL, "EXPECTATIONS.tsv names a missing file"
        code, cmd, sub = rows[name]
        cmd = cmd.replace("%testdata", test.suite.source_root).replace("%s", shlex.quote(path))
        env = dict(os.environ, PATH=test.config.environment["PATH"])
        try:
            r = subprocess.run(["/bin/sh", "-c", cmd], capture_output=True, env=env, timeout=120,
                               cwd=here)
        except subprocess.TimeoutExpired:
            return lit.Test.FAIL, "timed out: " + cmd
        out = (r.stdout + r.stderr).decode("utf-8", "replace")
        why = []
        if r.returncode != code:
            why.append("exit %d, expected %d" % (r.returncode, code))
        if sub not in out:
            why.append("output lacks %r" % sub)
        if "Sanitizer" in out or "runtime error" in out:
            why.append("sanitizer report")
        if why:
            return lit.Test.FAIL, "%s\n$ %s\n%s" % ("; ".join(why), cmd, out[-2000:])
        return lit.Test.PASS, ""

