# Fails unless every opcode of include/hlo/hlo_ops.def is used (as "opcode(")
# in each of the files given on the command line taken together.
import re, sys
root, files = sys.argv[1], sys.argv[2:]
ops = re.findall(r'^HLO_OP\(\w+,\s*"([^"]+)"', open(root + '/include/hlo/hlo_ops.def').read(), re.M)
text = ''.join(open(f).read() for f in files)
missing = [o for o in ops if not re.search(r'[\s)]' + re.escape(o) + r'\(', text)]
print('opcodes not covered:', ' '.join(missing) if missing else 'none')
sys.exit(1 if missing else 0)
