# Regenerates testdata/verify/xla_cases/ from corpus/verifier_cases.md: one
# lit test per XLA verifier case; the expected line:column is that of the
# named instruction's definition, found here in the case text.
import re, os
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
md = open(os.path.join(os.path.dirname(ROOT), 'shared', 'corpus', 'verifier_cases.md')).read()
secs = re.split(r'^## (\d+)\. (\w+)\n', md, flags=re.M)[1:]
instr = {1:'mycall',2:'concat0',3:'conditional',4:'rng.0',5:'rng.0',6:'rng.0',7:'rng.0',8:'mycall',9:'select',
 10:'select',11:'copy-start',12:'copy-start',13:'copy-done',14:'iota',15:'iota',16:'start',17:'permute',18:'out',
 19:'out',20:'cmp',21:'cmp',22:'cmp',23:'cmp',24:'scatter',25:'p',26:'p',27:'param0',28:'dslice0',29:'bitcast',30:'%dus'}
extra = {17:'--replica-count 3 ', 26:'--num-partitions 2 '}
out = os.path.join(ROOT, 'testdata', 'verify', 'xla_cases')
for i in range(0, len(secs), 3):
    n, name, body = int(secs[i]), secs[i+1], secs[i+2]
    fixture = re.search(r'fixture: `(\w+)`', body).group(1)
    sub = re.search(r'expected error substring: `(.*)`', body).group(1)
    code = re.search(r'```\n(.*?)```', body, re.S).group(1)
    opts = ''
    if 'LayoutSensitive' in fixture: opts += '--layout-sensitive '
    if 'AllowMixedPrecision' in fixture: opts += '--allow-mixed-precision '
    opts += extra.get(n, '')
    header = ['// XLA hlo_verifier_test.cc, test %s (corpus/verifier_cases.md case %d, fixture %s).' % (name, n, fixture),
              '// Expected: XLA\'s message substring "%s".' % sub,
              '// RUN: not hlo-verify %s%%s 2>&1 | FileCheck %%s' % opts,
              'CHECKLINE']
    lines = header + code.rstrip('\n ').split('\n')
    nm = instr[n].lstrip('%')
    pat = re.compile(r'^(\s*(?:ROOT\s+)?)%?' + re.escape(nm) + r'\s*=')
    ln = col = None
    for k, l in enumerate(lines):
        m = pat.match(l)
        if m:
            ln, col = k + 1, len(m.group(1)) + 1  # last definition: the entry's
    assert ln, (n, name)
    fn = '%02d_%s.hlo' % (n, name)
    lines[3] = '// CHECK: %s:%d:%d: error: %%%s: {{.*}}%s' % (fn, ln, col, nm, sub.replace('{{', '{{[{][{]}}'))
    open(os.path.join(out, fn), 'w').write('\n'.join(lines) + '\n')
