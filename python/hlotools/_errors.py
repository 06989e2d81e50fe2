"""Diagnostics of libhlo as Python records, and HloError which carries them."""
import ctypes

from . import _lib


class Diagnostic:
    """One diagnostic: severity ("error", "warning", "note"), file, line and
    column (1-based; None when the library gave no position), message, and
    the text of the source line (None without a position)."""

    __slots__ = ("severity", "file", "line", "column", "message", "source_line")

    def __init__(self, severity, file, line, column, message, source_line):
        self.severity, self.file, self.line, self.column = severity, file, line, column
        self.message, self.source_line = message, source_line

    @property
    def location(self):
        """"file:line:col" (or the file name alone without a position)."""
        if self.line is None:
            return self.file or ""
        return "%s:%d:%d" % (self.file, self.line, self.column)

    def __str__(self):
        """The rendering of the command-line tools: location, message, the
        source line and a caret under the column."""
        head = "%s: %s: %s" % (self.location, self.severity, self.message) if self.file or \
            self.line is not None else "%s: %s" % (self.severity, self.message)
        if self.source_line is None:
            return head
        return "%s\n%s\n%s^" % (head, self.source_line, " " * (self.column - 1))

    def __repr__(self):
        return "Diagnostic(%r, %r, %r)" % (self.severity, self.location, self.message)


class HloError(Exception):
    """A module failed to parse, verify, plan or run.  `diagnostics` holds
    every Diagnostic the library reported (errors, and notes or warnings
    that came with them); str() renders them all."""

    def __init__(self, diagnostics, summary=None):
        self.diagnostics = list(diagnostics)
        text = "\n".join(str(d) for d in self.diagnostics)
        if summary and not text:
            text = summary
        super().__init__(text)

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]


class Source:
    """A named text that diagnostics point into (owns the bytes the hlo_src
    struct points at)."""

    def __init__(self, name, data):
        self.name = name
        self.data = data  # bytes, kept alive for the C struct
        self._cname = name.encode("utf-8", "replace")
        self.src = _lib.Src(self._cname, data, len(data))

    def line_text(self, line):
        start = 0
        for _ in range(line - 1):
            start = self.data.find(b"\n", start) + 1
            if start == 0:
                return ""
        end = self.data.find(b"\n", start)
        return self.data[start:end if end >= 0 else len(self.data)].decode("utf-8", "replace")


class DiagList:
    """An hlo_diags list owned from Python."""

    def __init__(self, max_errors=0):
        self.d = _lib.Diags()
        _lib.hlo_diags_init(ctypes.byref(self.d), None)
        self.d.max_errors = max_errors
        self.ref = ctypes.byref(self.d)

    def collect(self, sources):
        """The diagnostics as Diagnostic records; sources are the Source
        objects their positions may point into."""
        out = []
        by_addr = {ctypes.addressof(s.src): s for s in sources}
        for i in range(self.d.n):
            g = self.d.v[i]
            msg = (g.msg or b"").decode("utf-8", "replace")
            sev = _lib.SEVERITIES[g.sev] if 0 <= g.sev < 3 else "error"
            s = by_addr.get(ctypes.addressof(g.src.contents)) if g.src else None
            if s is None:
                out.append(Diagnostic(sev, None, None, None, msg, None))
                continue
            loc = _lib.hlo_src_loc(ctypes.byref(s.src), g.off)
            out.append(Diagnostic(sev, s.name, loc.line, loc.col, msg, s.line_text(loc.line)))
        if self.d.oom:
            out.append(Diagnostic("error", None, None, None, "out of memory", None))
        return out

    @property
    def nerrors(self):
        return self.d.nerrors

    def reset(self):
        _lib.hlo_diags_release(self.ref)
        _lib.hlo_diags_init(self.ref, None)

    def release(self):
        if self.ref is not None:
            _lib.hlo_diags_release(self.ref)
            self.ref = None

    def __del__(self):
        self.release()

    def error(self, sources, summary):
        return HloError(self.collect(sources), summary)
