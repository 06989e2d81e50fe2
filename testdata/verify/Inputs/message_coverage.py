#!/usr/bin/env python3
"""message_coverage.py ROOT - lists every distinct error-message format
string passed to sx_fail / vx_fail / vx_fail_at / hlo_errorf in
lib/verify/*.c and lib/shape/*.c, and reports those that no expected-output
line (CHECK / expected-error) under testdata/verify, testdata/shape or
testdata/xla/verify_* matches.
Exits 1 when an uncovered message is not in the EXCLUDED list below."""
import glob
import os
import re
import sys

# Messages that cannot be triggered from HLO text, with the reason.
EXCLUDED = {
    'parameter number %lld is already used by %%%s':
        'unreachable from text: XLA\'s parser (and lib/text/parse.c) refuses a parameter number used twice in a computation; the check guards modules built through the API',
    '%s needs exactly one dimension in dimensions={...}; got %d.':
        'unreachable from text: XLA\'s parser (and lib/text/parse_checks.c) refuses dimensions= of other than one entry on all-gather, reduce-scatter, all-to-all, concatenate, sort, scan and get/set-dimension-size; the check guards modules built through the API',
    'sort needs exactly one dimension in dimensions={...}; got %d.':
        'unreachable from text: XLA\'s parser (and lib/text/parse_checks.c) refuses dimensions= of other than one entry on all-gather, reduce-scatter, all-to-all, concatenate, sort, scan and get/set-dimension-size; the check guards modules built through the API',
    'all-to-all takes at most one split dimension; got %d.':
        'unreachable from text: XLA\'s parser (and lib/text/parse_checks.c) refuses dimensions= of other than one entry on all-gather, reduce-scatter, all-to-all, concatenate, sort, scan and get/set-dimension-size; the check guards modules built through the API',
    'Concatenate needs exactly one dimension in dimensions={...}; got %d.':
        'unreachable from text: XLA\'s parser (and lib/text/parse_checks.c) refuses dimensions= of other than one entry on all-gather, reduce-scatter, all-to-all, concatenate, sort, scan and get/set-dimension-size; the check guards modules built through the API',
    'get-dimension-size needs exactly one dimension; got %d.':
        'unreachable from text: XLA\'s parser (and lib/text/parse_checks.c) refuses dimensions= of other than one entry on all-gather, reduce-scatter, all-to-all, concatenate, sort, scan and get/set-dimension-size; the check guards modules built through the API',
    'set-dimension-size needs exactly one dimension; got %d.':
        'unreachable from text: XLA\'s parser (and lib/text/parse_checks.c) refuses dimensions= of other than one entry on all-gather, reduce-scatter, all-to-all, concatenate, sort, scan and get/set-dimension-size; the check guards modules built through the API',
    '%s (opcode: %s) expects the async shape to be in the form of ((op0_shape, op1_shape, ...), output_shape, ...), found %s.':
        'unreachable from text: the parser refuses an async-start or async-update whose shape is not ((operands...), result, ...) and an async-update or async-done whose first operand is not an async-start or async-update (lib/text/parse_checks.c, as XLA\'s parser does); the check guards modules built through the API',
    '%s (opcode: %s) expects a single operand, found %d.':
        'unreachable from text: the parser refuses an async-start or async-update whose shape is not ((operands...), result, ...) and an async-update or async-done whose first operand is not an async-start or async-update (lib/text/parse_checks.c, as XLA\'s parser does); the check guards modules built through the API',
    '%s (opcode: %s) expects at least one operand, found 0.':
        'unreachable from text: the parser refuses an async-start or async-update whose shape is not ((operands...), result, ...) and an async-update or async-done whose first operand is not an async-start or async-update (lib/text/parse_checks.c, as XLA\'s parser does); the check guards modules built through the API',
    '%s (opcode: %s) expects the operand to be async-start or async-update, found %s.':
        'unreachable from text: the parser refuses an async-start or async-update whose shape is not ((operands...), result, ...) and an async-update or async-done whose first operand is not an async-start or async-update (lib/text/parse_checks.c, as XLA\'s parser does); the check guards modules built through the API',
    'Unknown fft_type %s.':
        'unreachable from text: the parser takes only the words XLA\'s parser takes for this attribute (lib/text/attr_words.c); the check guards modules built through the API',
    'compare needs direction=EQ, NE, GE, GT, LE or LT; got %s':
        'unreachable from text: the parser takes only the words XLA\'s parser takes for this attribute (lib/text/attr_words.c); the check guards modules built through the API',
    'fusion kind must be kLoop, kInput, kOutput or kCustom; got %s':
        'unreachable from text: the parser takes only the words XLA\'s parser takes for this attribute (lib/text/attr_words.c); the check guards modules built through the API',
    'rng needs distribution=rng_uniform or rng_normal; got %s':
        'unreachable from text: the parser takes only the words XLA\'s parser takes for this attribute (lib/text/attr_words.c); the check guards modules built through the API',
    'unknown rng-bit-generator algorithm %s':
        'unreachable from text: the parser takes only the words XLA\'s parser takes for this attribute (lib/text/attr_words.c); the check guards modules built through the API',
    '%%%s: cannot infer its shape: an operand depends on it (cycle)':
        'unreachable from text: the parser refuses a name used above its definition (lib/text/parse.c, as XLA\'s parser does), so no cycle or forward use can be written; the check guards modules built through the API',
    "calls computation '%s' recursively (the call graph has a cycle)":
        'unreachable from text: the parser refuses a name used above its definition (lib/text/parse.c, as XLA\'s parser does), so no cycle or forward use can be written; the check guards modules built through the API',
    'instruction is part of a cycle through %%%s (%s)':
        'unreachable from text: the parser refuses a name used above its definition (lib/text/parse.c, as XLA\'s parser does), so no cycle or forward use can be written; the check guards modules built through the API',
    'operand %d (%%%s) is used before it is defined':
        'unreachable from text: the parser refuses a name used above its definition (lib/text/parse.c, as XLA\'s parser does), so no cycle or forward use can be written; the check guards modules built through the API',
    'Expected to have the same channel id, actual channel ids are: %%%s (%lld), %%%s (%lld)':
        'unreachable from text: the parser rejects a send-done/recv-done whose channel_id differs from its operand\'s (lib/text/parse_checks.c)',
    'bitcast-convert from %s to %s: widths do not divide':
        'unreachable: every element type width is a power of two (hlo_types.def), so one always divides the other',
    'Size index %lld to dynamic update slice must be >= 0.':
        "unreachable from text: parsed dimension sizes are never negative, and unbounded '?' dimensions are skipped",
    "computation name '%s' is not unique":
        'unreachable from text: the parser rejects such a module first; the check guards modules built through the API',
    "instruction name is not unique in computation '%s'":
        'unreachable from text: the parser rejects such a module first; the check guards modules built through the API',
    'module has no entry computation':
        'unreachable from text: the parser rejects such a module first; the check guards modules built through the API (without ENTRY the last computation is the entry)',
    "computation '%s' has no root instruction":
        'unreachable from text: the parser rejects such a module first; the check guards modules built through the API',
    "the root of computation '%s' is not one of its instructions":
        'unreachable from text: the parser rejects such a module first; the check guards modules built through the API',
    'called computation %%%s has no root instruction':
        'unreachable from text: the parser rejects such a module first; the check guards modules built through the API',
    "operand %d (%%%s) is not an instruction of computation '%s'":
        'unreachable from text: the parser rejects such a module first; the check guards modules built through the API',
    "control predecessor %%%s is not an instruction of computation '%s'":
        'unreachable from text: the parser rejects such a module first; the check guards modules built through the API',
    'operand %d is missing':
        'unreachable from text: the parser rejects such a module first; the check guards modules built through the API',
    'out of memory while checking for cycles':
        'allocation failure; not triggerable from text',
    'out of memory while inferring shapes':
        'allocation failure; not triggerable from text',
    'the result shape was omitted and has not been inferred':
        'hlo-verify infers omitted shapes before verifying; exercised by the unit test lib/verify/verify_test.c',
    '%s needs a %s= computation':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    '%s needs a called computation (%s)':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'A conditional with a PRED predicate must have 2 branches; got %d.':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'The first operand of conditional must be a scalar of PRED or S32, got %s.':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'conditional needs branch computations':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'conditional needs branch_computations= or true_computation= and false_computation=':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'convolution needs a dim_labels attribute':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'fft needs an fft_type attribute':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'iota needs an iota_dimension attribute':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'pad needs a padding= attribute':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'slice needs a slice={...} attribute':
        'unreachable from text: the parser rejects a missing or misplaced required attribute first (lib/text/attr_rules.c)',
    'Number of operand layout constraints (%d) must match the number of operands (%d).':
        'unreachable from text: the parser checks operand_layout_constraints first (lib/text/parse_checks.c)',
    'Operand %d shape %s is not compatible with its layout constraint %s.':
        'unreachable from text: the parser checks operand_layout_constraints first (lib/text/parse_checks.c)',
}

CALL = re.compile(r"\b(sx_fail|vx_fail_at|vx_fail|hlo_errorf|VX_RET_CHECK)\s*\(")
STR = re.compile(r'"((?:[^"\\]|\\.)*)"')
PREFIXED = re.compile(r"\s*//\s*[A-Z][A-Z0-9-]*: ")  # FileCheck --check-prefix lines
MACRO = re.compile(r"\bPRI[diux](8|16|32|64)\b")


def formats(text):
    """Yield the format string of every diagnostic call in C source text."""
    for m in CALL.finditer(text):
        i = m.end()
        # Find the first string literal argument, then concatenate adjacent
        # literals (and PRId64-style macros between them).
        q = text.find('"', i)
        if q < 0:
            continue
        # The literal must come before the call's closing parenthesis.
        depth, j = 0, i
        while j < q:
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                if depth == 0:
                    break
                depth -= 1
            j += 1
        if j < q:
            continue
        parts, pos = [], q
        if m.group(1) == "VX_RET_CHECK":  # (v, in, ok, cond, fmt, ...): skip XLA's condition text
            while True:
                s = STR.match(text, pos)
                if not s:
                    break
                pos = s.end()
                pos += re.match(r"\s*", text[pos:]).end()
                if text[pos:pos + 1] != '"':
                    break
            pos = text.find('"', pos)
            if pos < 0:
                continue
        while True:
            s = STR.match(text, pos)
            if not s:
                break
            parts.append(s.group(1))
            pos = s.end()
            rest = re.match(r"\s*(PRI[diux](?:8|16|32|64))?\s*", text[pos:])
            if rest.group(1):
                parts.append("d")
            pos += rest.end()
            if pos >= len(text) or text[pos] != '"':
                break
        yield "".join(parts)


def to_regex(fmt):
    """A regex matching any expansion of a printf format."""
    out, i = [], 0
    spec = re.compile(r"%%|%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp]")
    for m in spec.finditer(fmt):
        out.append(re.escape(fmt[i:m.start()].encode().decode("unicode_escape")))
        out.append("%" if m.group(0) == "%%" else ".*?")
        i = m.end()
    out.append(re.escape(fmt[i:].encode().decode("unicode_escape")))
    return re.compile("".join(out))


def main():
    root = sys.argv[1]
    fmts = set()
    for path in sorted(glob.glob(os.path.join(root, "lib/verify/*.c")) +
                       glob.glob(os.path.join(root, "lib/shape/*.c"))):
        if path.endswith("_test.c"):
            continue
        with open(path, encoding="utf-8") as f:
            fmts.update(formats(f.read()))
    # Wrappers that only forward a message are not messages themselves.
    fmts.discard("%%%s: %s")
    expected = []
    for path in glob.glob(os.path.join(root, "testdata/verify/**/*"), recursive=True) + \
            glob.glob(os.path.join(root, "testdata/shape/**/*"), recursive=True) + \
            glob.glob(os.path.join(root, "testdata/xla/verify_*")):
        if os.path.isfile(path) and "/Inputs/" not in path:
            with open(path, encoding="utf-8", errors="replace") as f:
                expected += [l for l in f if "CHECK" in l or "expected-error" in l or PREFIXED.match(l)]
    missing = []
    for fmt in sorted(fmts):
        rx = to_regex(fmt)
        if not any(rx.search(l) for l in expected):
            missing.append(fmt)
    bad = [f for f in missing if f not in EXCLUDED]
    stale = [f for f in EXCLUDED if f not in missing]
    print("messages: %d, covered: %d, excluded: %d" %
          (len(fmts), len(fmts) - len(missing), len(missing) - len(bad)))
    for f in bad:
        print("not covered: " + f)
    for f in stale:
        print("exclusion no longer needed: " + f)
    print("uncovered messages: %s" % ("none" if not bad and not stale else len(bad) + len(stale)))
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
