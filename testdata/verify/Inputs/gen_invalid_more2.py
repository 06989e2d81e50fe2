# Writes testdata/verify/ops_invalid_more2.hlo: one module per verifier or
# shape-inference message that no other test exercised.  Each case is the
# module text with the bad line marked by a leading '@', and the message
# worked out by hand from the input (the column is the name of the marked
# instruction; the line comes from FileCheck's @LINE).
import os
import sys
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), 'ops_invalid_more2.hlo')

ADD = '''add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
'''

CASES = [
('''ENTRY e {
  a = s32[2] parameter(0)
@  ROOT b = pred[2] is-finite(a)
}''', 'Expected element type in shape to be floating point for is-finite operation; got s32.'),
('''ENTRY e {
  a = pred[2] parameter(0)
@  ROOT b = pred[2] subtract(a, a)
}''', 'Expected arithmetic element type for subtract operation; got pred.'),
('''ENTRY e {
  a = c64[2] parameter(0)
@  ROOT b = f32[2] bitcast-convert(a)
}''', 'Conversion between complex and real type c64[2] => f32.'),
('''ENTRY e {
  a = f32[2] parameter(0)
@  ROOT b = (f32[2]) convert(a)
}''', 'Convert does not allow non-array result; got (f32[2]).'),
('''ENTRY e {
  a = f32[2] parameter(0)
@  ROOT b = (f32[2]) bitcast-convert(a)
}''', 'bitcast-convert does not allow non-array result; got (f32[2]).'),
('''ENTRY e {
  a = s32[2] parameter(0)
  r = u32[2] parameter(1)
@  ROOT b = s8[2] stochastic-convert(a, r)
}''', 'stochastic-convert operand must be floating point; got s32[2].'),
('''ENTRY e {
  a = f32[2] parameter(0)
  r = u32[3] parameter(1)
@  ROOT b = s8[2] stochastic-convert(a, r)
}''', 'stochastic-convert random operand shape u32[3] differs from operand shape f32[2].'),
('''ENTRY e {
  a = f32[2] parameter(0)
@  ROOT b = f32[2] reduce-precision(a), exponent_bits=5, mantissa_bits=-1
}''', 'Expected mantissa_bits >= 0; got -1.'),
('''ENTRY e {
@  ROOT b = (f32[2]) iota(), iota_dimension=0
}''', 'Iota does not support non-array result.'),
('''ENTRY e {
@  ROOT b = f32[2] iota(), iota_dimension=1
}''', 'The iota dimension cannot go beyond the operation rank or be negative (iota_dimension=1, rank 1).'),
('''ENTRY e {
@  ROOT b = pred[2] iota(), iota_dimension=0
}''', 'Iota does not support the pred element type.'),
('''ENTRY e {
  a = f32[4] parameter(0)
@  ROOT b = f32[2] slice(a), slice={[0:4:0]}
}''', 'Stride (0) must be positive.'),
('''ENTRY e {
  a = f32[4] parameter(0)
@  ROOT b = f32[2] slice(a), slice={[-1:1]}
}''', 'Negative start index to slice: -1.'),
('''ENTRY e {
  a = f32[4] parameter(0)
  i = s32[] parameter(1)
@  ROOT b = f32[2] dynamic-slice(a, i), dynamic_slice_sizes={-1}
}''', 'Negative size index to dynamic slice: -1.'),
('''ENTRY e {
  a = f32[4] parameter(0)
  i = s32[] parameter(1)
@  ROOT b = f32[2] dynamic-slice(a, i), dynamic_slice_sizes={2,2}
}''', 'Dynamic slice number of slice sizes 2 must match rank 1 of slice input f32[4].'),
('''ENTRY e {
  a = f32[4] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
@  ROOT b = f32[4] dynamic-update-slice(a, u, i, i)
}''', 'Dynamic update slice start number of dimensions 2 must match rank 1 of slice input f32[4].'),
('''ENTRY e {
  a = f32[4] parameter(0)
  p = s32[] parameter(1)
@  ROOT b = f32[6] pad(a, p), padding=1_1
}''', 'The element types of the operands to Pad do not match: f32 vs s32.'),
('''ENTRY e {
  a = f32[2] parameter(0)
@  ROOT b = s32[2,3] broadcast(a), dimensions={0}
}''', 'broadcast changes the element type: f32[2] to s32[2,3].'),
('''ENTRY e {
  a = f32[2] parameter(0)
@  ROOT b = (f32[2]) reshape(a)
}''', 'reshape result must be an array; got (f32[2]).'),
(ADD + '''
ENTRY e {
  a = f32[2,3] parameter(0)
@  ROOT b = f32[2,3] map(a, a), dimensions={0}, to_apply=add_f32
}''', 'Map applied to a subset of dimensions currently not supported: arg_dimension_size: 2, requested_map_dimensions_size: 1.'),
(ADD + '''
ENTRY e {
  a = f32[2,3] parameter(0)
@  ROOT b = f32[2,3] map(a, a), dimensions={1,0}, to_apply=add_f32
}''', 'Map requires monotonically increasing dimension numbers; found: 1.'),
('''ENTRY e {
  a = f32[] parameter(0)
@  ROOT b = (f32[], s32[]) topk(a), k=1
}''', 'topk operand must have rank >= 1; got f32[].'),
('''ENTRY e {
  a = f32[4] parameter(0)
@  ROOT b = (f32[1], s32[1]) topk(a), k=-1
}''', 'topk needs a non-negative k attribute.'),
('''ENTRY e {
  a = f32[4] parameter(0)
@  ROOT b = c64[3] fft(a), fft_type=RFFT, fft_length={4,4}
}''', 'FFT of rank 2 requires input of at least same rank; got input of rank 1'),
('''ENTRY e {
  a = s32[4] parameter(0)
@  ROOT b = c64[3] fft(a), fft_type=RFFT, fft_length={4}
}''', 'RFFT requires f32 or f64 input type, found s32.'),
('''ENTRY e {
  a = f32[4] parameter(0)
@  ROOT b = c64[5] fft(a), fft_type=RFFT, fft_length={8}
}''', 'RFFT requires innermost dimensions match fft_length but dimension 0 is 4 and should be 8.'),
('''ENTRY e {
  a = f32[3] parameter(0)
@  ROOT b = f32[4] fft(a), fft_type=IRFFT, fft_length={4}
}''', 'IRFFT requires complex input type, found f32.'),
('''ENTRY e {
  a = c64[2,3] parameter(0)
@  ROOT b = f32[4,4] fft(a), fft_type=IRFFT, fft_length={4,4}
}''', 'IRFFT requires all but one innermost dimensions match fft_length, but dimension 0 is 2 and should be 4.'),
]


def main():
    lines = ['// Verifier and shape-inference messages not exercised elsewhere: one module per message.',
             '// Generated by Inputs/gen_invalid_more2.py; messages written by hand from each input.',
             '// RUN: not hlo-verify %s 2>&1 | FileCheck %s --implicit-check-not=error:', '']
    for i, (text, msg) in enumerate(CASES):
        if i:
            lines += ['// -----', '']
        lines += ['HloModule m%d' % i, '']
        for l in text.split('\n'):
            if l.startswith('@'):
                l = l[1:]
                lhs = l.split('=')[0].split()
                name = lhs[-1]
                col = l.index(' ' + name + ' ') + 2
                lines.append('// CHECK: .hlo:[[@LINE+1]]:%d: error: %%%s: %s' % (col, name, msg))
            lines.append(l)
        lines.append('')
    with open(sys.argv[1] if len(sys.argv) > 1 else OUT, 'w') as f:
        f.write('\n'.join(lines))


main()
