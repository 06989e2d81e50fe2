# Writes testdata/verify/ops_invalid_<group>.hlo: one small module per broken
# constraint, each followed by the diagnostic hlo-verify must give for it
# (line and column of the bad instruction, its name, the rule's message with
# the expected/actual facts worked out by hand from the spec).
import os
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)

ADD = ['add_f32 {', '  x = f32[] parameter(0)', '  y = f32[] parameter(1)', '  ROOT s = f32[] add(x, y)', '}', '']
ADD_S32 = ['add_s32 {', '  x = s32[] parameter(0)', '  y = s32[] parameter(1)', '  ROOT s = s32[] add(x, y)', '}', '']

def case(params, bad, msg, comps=(), opts=None, extra_after=()):
    return dict(params=params, bad=bad, msg=msg, comps=list(comps), after=list(extra_after))

def write(group, cases, header, run='// RUN: not hlo-verify %s 2>&1 | FileCheck %s --implicit-check-not=error:'):
    lines = [header, run, '']
    for i, c in enumerate(cases):
        if i: lines += ['// -----', '']
        lines += ['HloModule m%d' % i, '']
        lines += c['comps']
        lines += ['ENTRY e {']
        lines += ['  ' + p for p in c['params']]
        bad = c['bad']
        root = bad.lstrip().startswith('ROOT')
        name = bad.split('=')[0].replace('ROOT', '').strip()
        col = 3 + (5 if root else 0)
        msgs = c['msg'] if isinstance(c['msg'], list) else [c['msg']]
        for k, m in enumerate(msgs):
            lines.append('// CHECK: .hlo:[[@LINE+%d]]:%d: error: %%%s: %s' % (len(msgs) - k, col, name, m))
        lines.append('  ' + bad)
        lines += ['  ' + a for a in c['after']]
        lines += ['}', '']
    open(os.path.join(OUT, 'ops_invalid_%s.hlo' % group), 'w').write('\n'.join(lines))

F23 = ['a = f32[2,3] parameter(0)']
elementwise = [
    case(F23, 'ROOT b = f32[3,2] negate(a)', 'Expected instruction to have shape equal to f32[2,3], actual shape is f32[3,2].'),
    case(['a = u32[2] parameter(0)'], 'ROOT b = u32[2] abs(a)', 'Expected element type in shape to be floating, complex or signed integral for abs operation; got u32.'),
    case(['a = c64[2] parameter(0)'], 'ROOT b = c64[2] abs(a)', 'Expected instruction to have shape equal to f32[2], actual shape is c64[2].'),
    case(['a = s32[2] parameter(0)'], 'ROOT b = s32[2] exponential(a)', 'Expected element type in shape to be floating or complex for exponential operation; got s32.'),
    case(['a = s32[2] parameter(0)'], 'ROOT b = s32[2] floor(a)', 'Expected element type in shape to be floating for floor operation; got s32.'),
    case(['a = f32[2] parameter(0)'], 'ROOT b = f32[2] not(a)', 'Expected pred or an integral element type in argument to not operation; got f32.'),
    case(['a = f32[2] parameter(0)'], 'ROOT b = f32[2] popcnt(a)', 'Expected an integral element type in argument to popcnt operation; got f32.'),
    case(['a = pred[2] parameter(0)'], 'ROOT b = pred[2] negate(a)', 'Expected element type in shape to be integral, floating or complex for negate operation; got pred.'),
    case(['a = f32[2] parameter(0)'], 'ROOT b = f32[2] is-finite(a)', 'Expected instruction to have shape equal to pred[2], actual shape is f32[2].'),
    case(['a = c64[2] parameter(0)'], 'ROOT b = c64[2] real(a)', 'Expected instruction to have shape equal to f32[2], actual shape is c64[2].'),
    case(['a = s32[2] parameter(0)'], 'ROOT b = s32[2] imag(a)', 'Expected element type in shape to be floating or complex for imag operation; got s32.'),
    case(['a = u8[2] parameter(0)'], 'ROOT b = u8[2] sign(a)', 'Expected element type in shape to be signed or complex for sign operation; got u8.'),
    case(['a = f32[2] parameter(0)', 'b = f32[3] parameter(1)'], 'ROOT c = f32[2] add(a, b)', 'Binary op add with incompatible shapes: f32[2] and f32[3].'),
    case(['a = f32[2] parameter(0)', 'b = f32[2,1] parameter(1)'], 'ROOT c = f32[2] add(a, b)', 'Binary op add with different ranks: f32[2] and f32[2,1].'),
    case(['a = f32[2] parameter(0)', 'b = s32[2] parameter(1)'], 'ROOT c = f32[2] multiply(a, b)', 'Binary op multiply with different element types: f32[2] and s32[2].'),
    case(['a = f32[1,3] parameter(0)', 'b = f32[2,3] parameter(1)'], 'ROOT c = f32[1,3] subtract(a, b)', 'Expected instruction to have shape equal to f32[2,3], actual shape is f32[1,3].'),
    case(['a = f32[2] parameter(0)'], 'ROOT c = f32[2] and(a, a)', 'Expected pred or integral type in argument to and operation; got f32.'),
    case(['a = f32[2] parameter(0)'], 'ROOT c = f32[2] shift-left(a, a)', 'Expected integral type in argument to shift-left operation; got f32.'),
    case(['a = s32[2] parameter(0)'], 'ROOT c = s32[2] atan2(a, a)', 'Expected input element type to be floating or complex for atan2 operation; got s32.'),
    case(['a = f16[2] parameter(0)'], 'ROOT c = c64[2] complex(a, a)', 'Expected element type in shape to be real (f32 or f64) for complex compose operation; got f16.'),
    case(['a = f64[2] parameter(0)'], 'ROOT c = c64[2] complex(a, a)', 'Expected instruction to have shape equal to c128[2], actual shape is c64[2].'),
    case(['a = f32[2] parameter(0)'], 'ROOT c = f32[2] compare(a, a), direction=LT', 'Expected instruction to have shape equal to pred[2], actual shape is f32[2].'),
    case(['a = f32[2] parameter(0)'], 'ROOT c = pred[2] compare(a, a), direction=XX', 'compare needs direction=EQ, NE, GE, GT, LE or LT; got XX'),
    case(['a = c64[2] parameter(0)'], 'ROOT c = pred[2] compare(a, a), direction=EQ, type=TOTALORDER', 'Expected comparison type FLOAT. actual: TOTALORDER'),
    case(['p = pred[3] parameter(0)', 'a = f32[2] parameter(1)'], 'ROOT c = f32[2] select(p, a, a)', 'Operands to select and predicate must be the same shape; got f32[2] and pred[3].'),
    case(['p = s32[2] parameter(0)', 'a = f32[2] parameter(1)'], 'ROOT c = f32[2] select(p, a, a)', "Select's pred operand must have PRED element type; got s32[2]."),
    case(['p = pred[] parameter(0)', 'a = f32[2] parameter(1)', 'b = f32[3] parameter(2)'], 'ROOT c = f32[2] select(p, a, b)', 'Operands to select must be the same shape; got f32[2] and f32[3].'),
    case(['lo = f32[2] parameter(0)', 'a = f32[3] parameter(1)'], 'ROOT c = f32[3] clamp(lo, a, lo)', 'Clamp with incompatible shapes: f32[2], f32[3], f32[2].'),
    case(['lo = s32[] parameter(0)', 'a = f32[3] parameter(1)'], 'ROOT c = f32[3] clamp(lo, a, lo)', 'Clamp with different element types: s32[], f32[3], s32[].'),
    case(['a = f32[2,3] parameter(0)'], 'ROOT c = s32[3,2] convert(a)', 'Expected instruction to have shape equal to s32[2,3], actual shape is s32[3,2].'),
    case(['a = c64[2] parameter(0)'], 'ROOT c = f32[2] convert(a)', 'Conversion from complex to real type c64[2] => f32 is not implemented.'),
    case(['a = f32[2] parameter(0)'], 'ROOT c = s8[2] bitcast-convert(a)', 'Expected instruction to have shape equal to s8[2,4], actual shape is s8[2].'),
    case(['a = s8[2,3] parameter(0)'], 'ROOT c = s32[2] bitcast-convert(a)', 'Cannot bitcast types with undivisible bit-widths: s8[2,3] => s32; the last dimension of the operand must be 4.'),
    case(['a = f32[2] parameter(0)'], 'ROOT c = f32[2] reduce-precision(a), exponent_bits=0, mantissa_bits=3', 'Expected exponent_bits >= 1; got 0.'),
    case(['a = s32[2] parameter(0)'], 'ROOT c = s32[2] reduce-precision(a), exponent_bits=5, mantissa_bits=3', 'Expected element type in shape to be floating point for reduce-precision operation; got s32.'),
    case(['a = f32[2] parameter(0)', 'r = u16[2] parameter(1)'], 'ROOT c = bf16[2] stochastic-convert(a, r)', 'stochastic-convert random operand must be an unsigned integer of the operand\'s bit width; got u16[2].'),
    case(['a = f32[2] parameter(0)', 'b = bf16[2] parameter(1)'], 'ROOT c = f32[2] add(a, b)', 'Seen floating point types of different precisions in %c (f32 and bf16), but mixed precision is disallowed.'),
]
write('elementwise', elementwise, '// Elementwise ops: one module per broken rule (XLA ShapeInference / HloVerifier).')

data = [
    case(F23, 'ROOT b = f32[7] reshape(a)', 'Reshape operation has mismatched element counts: from=6 (f32[2,3]) to=7 (f32[7]).'),
    case(F23, 'ROOT b = s32[6] reshape(a)', 'reshape changes the element type: f32[2,3] to s32[6].'),
    case(F23, 'ROOT b = f32[2,3] transpose(a), dimensions={1,0}', 'Expected instruction to have shape equal to f32[3,2], actual shape is f32[2,3].'),
    case(F23, 'ROOT b = f32[3,2] transpose(a), dimensions={1}', 'Transpose dimensions 1 must have the same rank as the operand f32[2,3].'),
    case(F23, 'ROOT b = f32[3,2] transpose(a), dimensions={1,1}', 'transpose dimensions contains 1 more than once'),
    case(F23, 'ROOT b = f32[4,2,3] broadcast(a), dimensions={0}', 'Broadcast HLO (b) has invalid number of dimensions: 1 != 2.'),
    case(['a = f32[2,2] parameter(0)'], 'ROOT b = f32[4,2,2] broadcast(a), dimensions={2,1}', 'Broadcast dimensions order is wrong: 1 comes after 2.'),
    case(F23, 'ROOT b = f32[4,2,5] broadcast(a), dimensions={1,2}', 'Broadcast operand dimension 1 has size 3 but result dimension 2 has size 5.'),
    case(F23, 'ROOT b = f32[2,3] broadcast(a), dimensions={0,2}', 'broadcast dimensions value 2 is out of range [0, 2)'),
    case(F23, 'ROOT b = f32[1,3] slice(a), slice={[0:1]}', 'Slice index count does not match argument rank: 1 vs 2.'),
    case(F23, 'ROOT b = f32[1,3] slice(a), slice={[0:1], [0:4]}', 'Limit index (4) must be less than or equal to dimension size (3)'),
    case(F23, 'ROOT b = f32[1,3] slice(a), slice={[1:0], [0:3]}', 'Limit index (0) must be greater or equal to start index (1) in slice with positive stride.'),
    case(F23, 'ROOT b = f32[1,1] slice(a), slice={[0:1], [0:3:2]}', 'Expected instruction to have shape equal to f32[1,2], actual shape is f32[1,1].'),
    case(F23 + ['i = s32[] parameter(1)'], 'ROOT b = f32[1,1] dynamic-slice(a, i), dynamic_slice_sizes={1,1}', 'Dynamic slice start number of dimensions 1 must match rank 2 of slice input f32[2,3].'),
    case(F23 + ['i = s32[] parameter(1)'], 'ROOT b = f32[1,4] dynamic-slice(a, i, i), dynamic_slice_sizes={1,4}', 'Slice dim size 4 greater than dynamic slice dimension: 3.'),
    case(F23 + ['i = s32[] parameter(1)', 'j = s64[] parameter(2)'], 'ROOT b = f32[1,1] dynamic-slice(a, i, j), dynamic_slice_sizes={1,1}', 'dynamic-slice start indices must all have the same type; got s32 and s64.'),
    case(F23 + ['i = f32[] parameter(1)'], 'ROOT b = f32[1,1] dynamic-slice(a, i, i), dynamic_slice_sizes={1,1}', 'dynamic-slice start index operand 0 must be an integer scalar; got f32[].'),
    case(F23 + ['u = f32[3,1] parameter(1)', 'i = s32[] parameter(2)'], 'ROOT b = f32[2,3] dynamic-update-slice(a, u, i, i)', 'Update dim size 3 greater than dynamic update slice dimension: 2.'),
    case(F23 + ['u = f32[1] parameter(1)', 'i = s32[] parameter(2)'], 'ROOT b = f32[2,3] dynamic-update-slice(a, u, i, i)', 'Dynamic update slice update rank does not match argument rank: 1 vs 2.'),
    case(F23 + ['u = s32[1,1] parameter(1)', 'i = s32[] parameter(2)'], 'ROOT b = f32[2,3] dynamic-update-slice(a, u, i, i)', 'Dynamic update slice update element type does not match argument. operand.element_type: f32 vs update.element_type: s32.'),
    case(F23 + ['z = f32[] parameter(1)'], 'ROOT b = f32[2,3] pad(a, z), padding=0_0', 'The rank of the operand and the padding configuration do not match: f32[2,3] vs 1 dimensions.'),
    case(F23 + ['z = f32[] parameter(1)'], 'ROOT b = f32[2,3] pad(a, z), padding=0_0_-1x0_0', 'Interior padding cannot be negative: -1.'),
    case(F23 + ['z = f32[] parameter(1)'], 'ROOT b = f32[2,3] pad(a, z), padding=0_0x-2_-2', 'Padding result in negative size for dimension 1 (-1).'),
    case(F23 + ['z = f32[] parameter(1)'], 'ROOT b = f32[2,3] pad(a, z), padding=1_1_1x0_0', 'Expected instruction to have shape equal to f32[5,3], actual shape is f32[2,3].'),
    case(F23 + ['z = f32[1] parameter(1)'], 'ROOT b = f32[2,3] pad(a, z), padding=0_0x0_0', 'Pad value must be a scalar; got f32[1].'),
    case(F23 + ['b = f32[2] parameter(1)'], 'ROOT c = f32[4,3] concatenate(a, b), dimensions={0}', 'Cannot concatenate arrays with different ranks: 2 (f32[2,3]) vs 1 (f32[2]).'),
    case(F23 + ['b = s32[2,3] parameter(1)'], 'ROOT c = f32[4,3] concatenate(a, b), dimensions={0}', 'Cannot concatenate arrays with different element types: f32 vs s32.'),
    case(F23, 'ROOT c = f32[4,3] concatenate(a, a), dimensions={2}', 'Concatenate dimension out of bounds: 2.'),
    case(F23, 'ROOT c = f32[4,6] concatenate(a, a), dimensions={1}', 'Expected instruction to have shape equal to f32[2,6], actual shape is f32[4,6].'),
    case(F23, 'ROOT c = f32[2,3] reverse(a), dimensions={2}', 'Reverse dimensions value 2 is out of range [0, 2)'),
    case([], 'ROOT i = f32[] iota(), iota_dimension=0', 'Iota does not support scalars.'),
    case([], 'ROOT i = s32[4,5] iota(), iota_dimension=2', 'The iota dimension cannot go beyond the operation rank or be negative'),
    case(F23, 'ROOT c = s32[] get-dimension-size(a), dimensions={2}', 'GetDimensionSize dimension out of bounds: 2.'),
    case(F23, 'ROOT c = f32[] get-dimension-size(a), dimensions={1}', 'Expected instruction to have shape equal to s32[], actual shape is f32[].'),
    case(F23 + ['n = s64[] parameter(1)'], 'ROOT c = f32[2,3] set-dimension-size(a, n), dimensions={1}', "SetDimensionSize's value has to be S32 scalar; got s64[]."),
    case(F23, 'ROOT c = f32[3] get-tuple-element(a), index=0', 'Cannot infer shape: attempting to index into non-tuple: f32[2,3].'),
    case(['t = (f32[], s32[]) parameter(0)'], 'ROOT c = f32[] get-tuple-element(t), index=2', 'Cannot infer shape: attempt to index out of tuple bounds: 2 >= 2 in shape (f32[], s32[]).'),
    case(['a = f32[] parameter(0)', 'b = s32[] parameter(1)'], 'ROOT c = (s32[], f32[]) tuple(a, b)', 'Expected instruction to have shape equal to (f32[], s32[]), actual shape is (s32[], f32[]).'),
    case(F23, 'ROOT b = f32[5] bitcast(a)', 'Bitcast cannot have different shape sizes of output (20) and operand (24)'),
]
write('data', data, '// Data-movement ops: one module per broken rule (XLA ShapeInference / HloVerifier).')

gs = [
    case(['o = f32[3,3] parameter(0)', 'i = s32[2] parameter(1)'], 'ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3}', 'Gather op can only collapse slice dims with bound 1 or 0, but bound is 2 for index 0 at position 0.'),
    case(['o = f32[3,3] parameter(0)', 'i = s32[2] parameter(1)'], 'ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1}', 'Gather op must have one slice size for every input dimension; got: len(slice_sizes)=1, input_shape.rank=2.'),
    case(['o = f32[3,3] parameter(0)', 'i = s32[2] parameter(1)'], 'ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,3}', 'Gather op has 2 elements in start_index_map and the bound of dimension index_vector_dim=1 of start_indices is 1. These two numbers must be equal.'),
    case(['o = f32[3,3] parameter(0)', 'i = s32[2] parameter(1)'], 'ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}', 'Slice size at index 1 in gather op is out of range, must be within [0, 3], got 4.'),
    case(['o = f32[3,3] parameter(0)', 'i = f32[2] parameter(1)'], 'ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}', 'Gather indices parameter must be an integral tensor; got f32[2].'),
    case(['o = f32[3,3] parameter(0)', 'i = s32[2] parameter(1)'], 'ROOT g = f32[3,2] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}', 'Expected instruction to have shape equal to f32[2,3], actual shape is f32[3,2].'),
    case(['o = f32[4,5,6] parameter(0)', 'i = s32[3,3,1] parameter(1)'], 'ROOT g = f32[4,3,6] gather(o, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,6}', 'Gather batching dimension sizes differ: operand dim 0 is 4, start_indices dim 0 is 3.'),
    case(['o = s32[3,3] parameter(0)', 'i = s32[2] parameter(1)', 'u = s32[2,4] parameter(2)'], 'ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_s32', 'Bounds of the window dimensions of updates must not exceed the bounds of the corresponding dimensions of operand. For dimension 1, updates bound is 4, operand bound is 3.', comps=ADD_S32),
    case(['o = s32[3,3] parameter(0)', 'i = s32[2] parameter(1)', 'u = s32[3,3] parameter(2)'], 'ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_s32', 'Bounds of the scatter dimensions of updates must be same as the bounds of the corresponding dimensions of scatter indices. For scatter dimension 0, updates bound is 3, scatter_indices bound is 2.', comps=ADD_S32),
    case(['o = s32[3,3] parameter(0)', 'i = s32[2] parameter(1)', 'u = s32[2,3] parameter(2)'], 'ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_s32', 'Scatter op has window of size 1; doesn\'t match operand of rank 2.', comps=ADD_S32),
    case(['o = s32[3,3] parameter(0)', 'i = s32[2] parameter(1)', 'u = f32[2,3] parameter(2)'], 'ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_s32', ['Expected the updates 0 (f32[2,3]) to have the element type of the operand (s32).', "Reduction function add_s32's 1-th parameter shape must be compatible with input element type f32, but got s32[]"], comps=ADD_S32),
    case(['o = s32[3,3] parameter(0)', 'i = s32[2] parameter(1)', 'u = s32[2,3] parameter(2)'], 'ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32', ["Reduction function add_f32's accumulator shape at index 0 differs from the init_value shape: f32[] vs s32[]", "Reduction function add_f32's 1-th parameter shape must be compatible with input element type s32, but got f32[]"], comps=ADD),
    case(['o = f32[3,3] parameter(0)', 'i = s32[2] parameter(1)'], 'ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,3}', 'Gather index leaf dimension must be within [0, rank(start_indices) + 1). rank(start_indices) is 1 and gather index leaf dimension is 2.'),
    case(['o = f32[3,3,3] parameter(0)', 'i = s32[2] parameter(1)'], 'ROOT g = f32[2,3,3] gather(o, i), offset_dims={2,1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3,3}', 'Output window dimensions (offset_dims) in gather/scatter op must be sorted and unique; got 1 after 2.'),
    case(['o = f32[4,5,6] parameter(0)', 'i = s32[4,3,1] parameter(1)'], 'ROOT g = f32[4,3,6] gather(o, i), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,6}', 'operand_batching_dims and collapsed_slice_dims must be disjoint; 0 is in both.'),
    case(['o = f32[4,5,6] parameter(0)', 'i = s32[4,3,1] parameter(1)'], 'ROOT g = f32[4,3,6] gather(o, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={2}, index_vector_dim=2, slice_sizes={1,1,6}', 'start_indices_batching_dims must not contain index_vector_dim 2.'),
    case(['o = f32[3,3] parameter(0)', 'i = s32[2] parameter(1)'], 'ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={3}, index_vector_dim=1, slice_sizes={1,3}', 'start_index_map value 3 is out of range [0, 2)'),
    case(['o = s32[3,3] parameter(0)', 'i = s32[2] parameter(1)', 'u = s32[2,3] parameter(2)'], 'ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=add_s32', 'Scatter op has 2 elements in scatter_dims_to_operand_dims and the bound of dimension index_vector_dim=1 of scatter_indices is 1. These two numbers must be equal.', comps=ADD_S32),
    case(['o = s32[3,3] parameter(0)', 'i = s32[2] parameter(1)', 'u = s32[2,3,1] parameter(2)'], 'ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_s32', 'Updates tensor must be of rank 2; got 3.', comps=ADD_S32),
    case(['o = s32[3,3] parameter(0)', 'i = s32[2] parameter(1)', 'u = s32[2,3] parameter(2)'], 'ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32', ["Reduction function add_f32's accumulator shape at index 0 differs from the init_value shape: f32[] vs s32[]", "Reduction function add_f32's 1-th parameter shape must be compatible with input element type s32, but got f32[]"], comps=ADD) if False else
    case(['o = s32[3,3] parameter(0)', 'i = s32[2] parameter(1)', 'u = s32[2,3] parameter(2)', 'o2 = s32[3,4] parameter(3)'], 'ROOT s = (s32[3,3], s32[3,4]) scatter(o, o2, i, u, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_s32', ['Scatter operands must all have the same dimensions; got s32[3,3] and s32[3,4].', 'Reduction function add_s32 must take 4 parameters, but takes 2 parameter(s).'], comps=ADD_S32),
]
write('gather_scatter', gs, '// gather and scatter: one module per broken rule (stablehlo_digest.md 2.4, 2.5).')

red = [
    case(['a = f32[4,3] parameter(0)', 'z = f32[] constant(0)'], 'ROOT r = f32[4] reduce(a, z), dimensions={0}, to_apply=add_f32', 'Expected instruction to have shape equal to f32[3], actual shape is f32[4].', comps=ADD),
    case(['a = f32[4,3] parameter(0)', 'z = f32[] constant(0)'], 'ROOT r = f32[3] reduce(a, z), dimensions={2}, to_apply=add_f32', 'Reducing dimension value 2 is out of range [0, 2)', comps=ADD),
    case(['a = f32[4,3] parameter(0)', 'z = s32[] constant(0)'], 'ROOT r = f32[3] reduce(a, z), dimensions={0}, to_apply=add_f32', ['reduce input 0 has element type f32 but its init value has s32.', "Reduction function add_f32's accumulator shape at index 0 differs from the init_value shape: f32[] vs s32[]"], comps=ADD),
    case(['a = f32[4,3] parameter(0)', 'z = f32[] constant(0)'], 'ROOT r = f32[3] reduce(a, z), dimensions={0}, to_apply=bad', 'Reduction function bad must take 2 parameters, but takes 1 parameter(s).', comps=['bad {', '  x = f32[] parameter(0)', '  ROOT n = f32[] negate(x)', '}', '']),
    case(['a = f32[4,3] parameter(0)', 'z = f32[] constant(0)'], 'ROOT r = f32[3] reduce(a, a, z, z), dimensions={0}, to_apply=add_f32', ['Expected instruction to have shape equal to (f32[3], f32[3]), actual shape is f32[3].', 'Reduction function add_f32 must take 4 parameters, but takes 2 parameter(s).'], comps=ADD, ) ,
    case(['a = f32[5] parameter(0)', 'z = f32[] constant(0)'], 'ROOT r = f32[3] reduce-window(a, z), window={size=3 stride=2}, to_apply=add_f32', 'Expected instruction to have shape equal to f32[2], actual shape is f32[3].', comps=ADD),
    case(['a = f32[5,2] parameter(0)', 'z = f32[] constant(0)'], 'ROOT r = f32[2] reduce-window(a, z), window={size=3 stride=2}, to_apply=add_f32', 'Window has 1 dimensions but the operand of reduce-window has rank 2.', comps=ADD),
    case(['a = f32[5] parameter(0)', 's = f32[3] parameter(1)', 'z = f32[] constant(0)'], 'ROOT r = f32[5] select-and-scatter(a, s, z), window={size=3 stride=2}, select=ge, scatter=add_f32', 'Source shape does not match the shape of window-reduced operand: source(f32[3]), window-reduced operand(f32[2]).', comps=ADD + ['ge {', '  x = f32[] parameter(0)', '  y = f32[] parameter(1)', '  ROOT c = pred[] compare(x, y), direction=GE', '}', '']),
    case(['a = f32[5] parameter(0)', 's = f32[2] parameter(1)', 'z = f32[] constant(0)'], 'ROOT r = f32[5] select-and-scatter(a, s, z), window={size=3 stride=2}, select=add_f32, scatter=add_f32', 'Select function must have rank-0 PRED result; got f32[].', comps=ADD),
    case(['a = f32[8] parameter(0)', 'b = s32[7] parameter(1)'], 'ROOT s = (f32[8], s32[7]) sort(a, b), dimensions={0}, to_apply=lt', 'Expected sort operand 1 to have the dimensions of operand 0; got s32[7] and f32[8].', comps=['lt {', '  p0 = f32[] parameter(0)', '  p1 = f32[] parameter(1)', '  p2 = s32[] parameter(2)', '  p3 = s32[] parameter(3)', '  ROOT c = pred[] compare(p0, p1), direction=LT', '}', '']),
    case(['a = f32[8] parameter(0)'], 'ROOT s = f32[8] sort(a), dimensions={0}, to_apply=lt', 'The Sort compare computation lt must have 2 parameters (2 per operand), but has 1.', comps=['lt {', '  p0 = f32[] parameter(0)', '  ROOT c = pred[] compare(p0, p0), direction=LT', '}', '']),
    case(['a = f32[8] parameter(0)'], 'ROOT s = f32[8] sort(a), dimensions={1}, to_apply=lt', 'sort dimension 1 is out of range for an operand of rank 1.', comps=['lt {', '  p0 = f32[] parameter(0)', '  p1 = f32[] parameter(1)', '  ROOT c = pred[] compare(p0, p1), direction=LT', '}', '']),
    case(['a = f32[2,3] parameter(0)'], 'ROOT t = (f32[2,4], s32[2,4]) topk(a), k=4', 'topk k (4) is larger than the last dimension (3).'),
    case(['a = f32[2,3] parameter(0)'], 'ROOT t = (f32[2,2], f32[2,2]) topk(a), k=2', 'Expected instruction to have shape equal to (f32[2,2], s32[2,2]), actual shape is (f32[2,2], f32[2,2]).'),
    case(['a = f32[4,2] parameter(0)', 's = f32[3] parameter(1)'], 'ROOT b = (f32[4,2], f32[2], f32[2]) batch-norm-training(a, s, s), epsilon=0.001, feature_index=1', 'The size of operand 1 (3) must equal the feature dimension size 2 of the operand.'),
    case(['a = f32[4,2] parameter(0)', 's = f32[2] parameter(1)'], 'ROOT b = f32[4,2] batch-norm-inference(a, s, s, s, s), epsilon=0.001, feature_index=2', 'Expected feature_index of batch-norm to be smaller than the rank of operand_shape; got feature_index 2, and rank 2.'),
    case(['a = s32[4,2] parameter(0)', 's = s32[2] parameter(1)'], 'ROOT b = (s32[4,2], s32[2], s32[2]) batch-norm-grad(a, s, s, s, a), epsilon=0.001, feature_index=1', 'The operand to batch norm must have a floating point element type, but the shape is s32[4,2].'),
]
write('reduce', red, '// Reductions, windows, sort, topk, batch norm: one module per broken rule.')

la = [
    case(['a = f32[2,3] parameter(0)', 'b = f32[4,5] parameter(1)'], 'ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}', 'Contracting dimension sizes do not match: lhs dimension 1 is 3, rhs dimension 0 is 4.'),
    case(['a = f32[2,3] parameter(0)', 'b = f32[3,5] parameter(1)'], 'ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}', 'Must specify the same number of contracting dimensions for lhs and rhs (1 vs 0).'),
    case(['a = f32[2,3] parameter(0)', 'b = f32[3,5] parameter(1)'], 'ROOT d = f32[5,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}', 'Expected instruction to have shape equal to f32[2,5], actual shape is f32[5,2].'),
    case(['a = f32[2,3] parameter(0)', 'b = f32[3,5] parameter(1)'], 'ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}', 'lhs_contracting_dims value 2 is out of range [0, 2)'),
    case(['a = f32[4,2,3] parameter(0)', 'b = f32[5,3,6] parameter(1)'], 'ROOT d = f32[4,2,6] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}', 'Batch dimension sizes do not match: lhs dimension 0 is 4, rhs dimension 0 is 5.'),
    case(['a = f32[2,3] parameter(0)', 'b = s32[3,5] parameter(1)'], 'ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}', 'Cannot infer shape for dot operation: f32[2,3] <dot> s32[3,5]: element types differ.'),
    case(['a = f32[2,3] parameter(0)', 'b = f32[3,5] parameter(1)'], 'ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={high}', 'operand_precision must have 2 entries; got 1.'),
    case(['i = f32[1,1,4,4] parameter(0)', 'k = f32[1,1,2,2] parameter(1)'], 'ROOT c = f32[1,1,4,4] convolution(i, k), window={size=2x2}, dim_labels=bf01_oi01->bf01', 'Expected instruction to have shape equal to f32[1,1,3,3], actual shape is f32[1,1,4,4].'),
    case(['i = f32[1,1,4,4] parameter(0)', 'k = f32[1,1,2,2] parameter(1)'], 'ROOT c = f32[1,1,3,3] convolution(i, k), window={size=3x2}, dim_labels=bf01_oi01->bf01', 'Window dimensions do not match RHS shape: RHS spatial dimension 0 is 2 but the window size is 3.'),
    case(['i = f32[1,3,4,4] parameter(0)', 'k = f32[1,2,2,2] parameter(1)'], 'ROOT c = f32[1,1,3,3] convolution(i, k), window={size=2x2}, dim_labels=bf01_oi01->bf01', 'Expected LHS feature dimension (value 3) to match RHS input feature dimension * feature_group_count (value 2 * 1); got <conv>(f32[1,3,4,4], f32[1,2,2,2]).'),
    case(['i = f32[1,4,4,4] parameter(0)', 'k = f32[3,2,2,2] parameter(1)'], 'ROOT c = f32[1,3,3,3] convolution(i, k), window={size=2x2}, dim_labels=bf01_oi01->bf01, feature_group_count=2', 'Expected output feature dimension (value 3) to be divisible by feature_group_count (value 2).'),
    case(['i = f32[3,2,4,4] parameter(0)', 'k = f32[4,2,2,2] parameter(1)'], 'ROOT c = f32[1,4,3,3] convolution(i, k), window={size=2x2}, dim_labels=bf01_oi01->bf01, batch_group_count=2', 'Expected input batch dimension (3) to be divisible by batch_group_count (2).'),
    case(['i = f32[1,1,4,4] parameter(0)', 'k = f32[1,1,2,2] parameter(1)'], 'ROOT c = f32[1,1,3,3] convolution(i, k), window={size=2x2}, dim_labels=bf01_oi01->bf01, feature_group_count=0', 'feature_group_count must be a positive number, got 0'),
    case(['x = f32[4,16] parameter(0)'], 'ROOT f = c64[4,16] fft(x), fft_type=RFFT, fft_length={16}', 'Expected instruction to have shape equal to c64[4,9], actual shape is c64[4,16].'),
    case(['x = f32[4,16] parameter(0)'], 'ROOT f = c64[4,16] fft(x), fft_type=FFT, fft_length={16}', 'FFT requires complex input type, found f32.'),
    case(['x = c64[4,9] parameter(0)'], 'ROOT f = f32[4,16] fft(x), fft_type=IRFFT, fft_length={15}', 'IRFFT requires innermost dimension to be fft_length[-1] / 2 + 1 = 8; got 9.'),
    case(['x = c64[4,9] parameter(0)'], 'ROOT f = c64[4,9] fft(x), fft_type=FFT, fft_length={1,2,3,4}', 'FFT only supports ranks 1-3; got 4.'),
    case(['a = f32[3,3] parameter(0)', 'b = f32[4,5] parameter(1)'], 'ROOT t = f32[4,5] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE', 'The shared dimension of \'a\' and \'b\' does not match, got shapes f32[3,3] and f32[4,5]'),
    case(['a = f32[3,4] parameter(0)', 'b = f32[3,5] parameter(1)'], 'ROOT t = f32[3,5] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE', 'The two minor dimensions of \'a\' must have equal size, got f32[3,4].'),
    case(['a = s32[3,3] parameter(0)'], 'ROOT c = s32[3,3] cholesky(a), lower=true', 'Expected element type in shape to be floating or complex for Cholesky; got s32.'),
    case(['a = f32[3] parameter(0)'], 'ROOT c = f32[3] cholesky(a), lower=true', "The 'a' argument to Cholesky must have rank >= 2, got shape f32[3]"),
]
write('linalg', la, '// dot, convolution, fft, triangular-solve, cholesky: one module per broken rule.')

COND = ['cond {', '  p = (s32[], f32[4]) parameter(0)', '  i = s32[] get-tuple-element(p), index=0', '  ROOT lt = pred[] compare(i, i), direction=LT', '}', '']
BODY = ['body {', '  p = (s32[], f32[4]) parameter(0)', '  ROOT q = (s32[], f32[4]) tuple(s32[] get-tuple-element(p), index=0, f32[4] get-tuple-element(p), index=1)', '}', '']
BODY = ['body {', '  p = (s32[], f32[4]) parameter(0)', '  i = s32[] get-tuple-element(p), index=0', '  v = f32[4] get-tuple-element(p), index=1', '  ROOT q = (s32[], f32[4]) tuple(i, v)', '}', '']
BADCOND = ['cond {', '  p = (s32[], f32[4]) parameter(0)', '  ROOT i = s32[] get-tuple-element(p), index=0', '}', '']
BADBODY = ['body {', '  p = (s32[], f32[4]) parameter(0)', '  ROOT i = s32[] get-tuple-element(p), index=0', '}', '']
INIT = ['z = s32[] constant(0)', 'v = f32[4] parameter(0)', 'init = (s32[], f32[4]) tuple(z, v)']
NEG = ['neg {', '  p = f32[4] parameter(0)', '  ROOT n = f32[4] negate(p)', '}', '']
NEG2 = ['neg2 {', '  p = f32[2] parameter(0)', '  ROOT n = f32[2] negate(p)', '}', '']
ctl = [
    case(INIT, 'ROOT w = (s32[], f32[4]) while(init), condition=cond, body=body', 'Condition must return a boolean; got s32[].', comps=BADCOND + BODY),
    case(INIT, 'ROOT w = (s32[], f32[4]) while(init), condition=cond, body=body', 'The body\'s result shape s32[] must be the while loop\'s init shape (s32[], f32[4]).', comps=COND + BADBODY),
    case(INIT, 'ROOT w = (s32[], f32[2]) while(init), condition=cond, body=body', 'Expected instruction to have shape equal to (s32[], f32[4]), actual shape is (s32[], f32[2]).', comps=COND + BODY),
    case(['v = f32[4] parameter(0)', 'b = s32[] parameter(1)'], 'ROOT c = f32[4] conditional(b, v, v), branch_computations={neg, neg2}', ["Operand 2 shape does not match parameter 0 of computation 'neg2': operand is f32[4], parameter is f32[2]", "branch computation 1 (neg2) returns f32[2], but the conditional's shape is f32[4]"], comps=NEG + NEG2),
    case(['v = f32[4] parameter(0)'], 'ROOT c = f32[4] call(v, v), to_apply=neg', 'Expected computation neg called from c to have 1 parameters, has 2', comps=NEG) if False else
    case(['v = f32[4] parameter(0)'], 'ROOT c = f32[4] call(v, v), to_apply=neg', 'Expected computation neg called from c to have 2 parameters, has 1', comps=NEG),
    case(['v = f32[4] parameter(0)'], 'ROOT c = f32[2] call(v), to_apply=neg', 'Expected instruction to have shape equal to f32[4], actual shape is f32[2].', comps=NEG),
    case(['v = f32[4] parameter(0)', 'w = f32[5] parameter(1)'], 'ROOT m = f32[4] map(v, w), dimensions={0}, to_apply=add_f32', 'Map operation requires all operands to have the same shape; got: f32[4] and f32[5].', comps=ADD),
    case(['v = s32[4] parameter(0)'], 'ROOT m = f32[4] map(v, v), dimensions={0}, to_apply=add_f32', ["Mapped computation's parameter 0 has shape f32[], expected s32[].", "Mapped computation's parameter 1 has shape f32[], expected s32[]."], comps=ADD),
    case(['v = f32[4] parameter(0)'], 'ROOT f = f32[4] fusion(v), kind=kLoop, calls=neg2', ['Fused computation shape (f32[2]) is not equal to the fusion shape (f32[4])', 'Shape mismatch between parameter number 0 and its operand: parameter is f32[2], operand is f32[4].'], comps=NEG2),
    case(['v = f32[4] parameter(0)'], 'ROOT f = f32[4] fusion(v, v), kind=kLoop, calls=neg', 'Fused parameter count (1) does not match the number of operands (2) passed to the fusion instruction.', comps=NEG),
    case(['v = f32[4] parameter(0)', 'a = ((f32[4]), f32[4], s32[]) async-start(v), calls=neg', 'u = ((f32[4]), f32[4], s32[]) async-update(a)'], 'ROOT d = f32[2] async-done(u)', 'Expected instruction to have shape equal to f32[4], actual shape is f32[2].', comps=NEG),
    case(['v = f32[4] parameter(0)'], 'ROOT a = ((f32[4]), f32[2], s32[]) async-start(v), calls=neg', 'Expected instruction to have shape equal to ((f32[4]), f32[4], s32[]), actual shape is ((f32[4]), f32[2], s32[]).', comps=NEG),
    case(['v = f32[4] parameter(0)'], 'ROOT c = f32[4] call(v), to_apply=neg, is_composite=true, frontend_attributes={composite.version="1"}', 'A composite call op must have frontend attributes with key composite.name whose value is non-empty', comps=NEG),
]
write('control', ctl, '// while, conditional, call, map, fusion, async: one module per broken rule.')

coll = [
    case(['v = f32[4] parameter(0)'], 'ROOT a = f32[6] all-gather(v), replica_groups={{0,1}}, dimensions={0}', 'Expected instruction to have shape equal to f32[8], actual shape is f32[6].'),
    case(['v = f32[4] parameter(0)'], 'ROOT a = f32[8] all-gather(v), replica_groups={{0,1}}, dimensions={1}', 'all-gather dimension 1 is out of range for operand f32[4].'),
    case(['v = f32[4] parameter(0)'], 'ROOT a = f32[8] all-gather(v), replica_groups={{0,1},{2}}, dimensions={0}', 'Replica groups expected to be of uniform size; group 0 has 2 members, group 1 has 1.'),
    case(['v = f32[5] parameter(0)'], 'ROOT r = f32[2] reduce-scatter(v), replica_groups={{0,1}}, dimensions={0}, to_apply=add_f32', 'shard_count = 3, subgroup_size = 2', comps=ADD),
    case(['v = f32[4] parameter(0)'], 'ROOT r = f32[4] all-reduce(v), replica_groups={{0,1},{1,2}}, to_apply=add_f32', "Replica 1 is repeated in instruction's replica-groups", comps=ADD),
    case(['v = f32[4] parameter(0)'], 'ROOT r = f32[4] all-reduce(v), replica_groups={{0,1}}, to_apply=neg', 'Reduction function neg must take 2 parameters, but takes 1 parameter(s).', comps=['neg {', '  p = f32[] parameter(0)', '  ROOT n = f32[] negate(p)', '}', '']),
    case(['v = f32[5] parameter(0)'], 'ROOT r = f32[5] all-to-all(v), replica_groups={{0,1}}, dimensions={0}', 'AllToAll split dimension size 5 must be dividable by split_count 2.'),
    case(['v = f32[4] parameter(0)'], 'ROOT p = f32[4] collective-permute(v), source_target_pairs={{0,1},{2,1}}', "Target 1 appears more than once in instruction's source-target pairs"),
    case(['v = f32[4] parameter(0)'], 'ROOT p = f32[2] collective-permute(v), source_target_pairs={{0,1}}', 'Expected instruction to have shape equal to f32[4], actual shape is f32[2].'),
    case(['v = f32[4] parameter(0)'], 'ROOT s = (f32[4], f32[8]) all-gather-start(v), replica_groups={{0,1}}, dimensions={0}', 'Expected instruction to have shape equal to (f32[4], f32[8]), actual shape is (f32[4], f32[8]).') if False else
    case(['v = f32[4] parameter(0)', 'c = f32[8] concatenate(v, v), dimensions={0}', 't = (f32[4], f32[8]) tuple(v, c)'], 'ROOT d = f32[8] all-gather-done(t)', 'The operand of a all-gather-done instruction needs to be all-gather-start, found tuple'),
    case(['v = f32[4] parameter(0)', 't = token[] after-all()'], 'ROOT s = (f32[4], s32[], token[]) send(v, t), channel_id=1', 'Expected instruction to have shape equal to (f32[4], u32[], token[]), actual shape is (f32[4], s32[], token[]).', extra_after=[]),
    case(['v = f32[4] parameter(0)'], 'ROOT s = (f32[4], u32[], token[]) send(v, v), channel_id=1', 'The second operand of send must be a token; got f32[4].'),
    case(['t = token[] after-all()'], 'ROOT r = (f32[4], token[]) recv(t), channel_id=1', 'recv must have shape (data, u32[], token[]); got (f32[4], token[]).'),
    case(['t = token[] after-all()'], 'ROOT i = (f32[4], f32[4]) infeed(t)', 'infeed must have shape (data, token[]); got (f32[4], f32[4]).'),
    case(['v = f32[4] parameter(0)', 't = token[] after-all()'], 'ROOT o = token[] outfeed(v, t), outfeed_shape=f32[5]', "Expected outfeed shape to be equal to operand's shape f32[4], actual shape is f32[5]."),
    case(['v = f32[4] parameter(0)'], 'ROOT t = token[] after-all(v)', 'Operands of token instructions must be TOKEN types; operand 0 is f32[4].'),
    case([], 'ROOT r = s32[] replica-id()', 'Expected instruction to have shape equal to u32[], actual shape is s32[].'),
    case([], 'ROOT r = u32[2] partition-id()', 'Expected instruction to have shape equal to u32[], actual shape is u32[2].'),
    case(['v = f32[4] parameter(0)', 't = f32[4] parameter(1)'], 'ROOT d = f32[4] add-dependency(v, t)', 'The second operand of add-dependency must be a token; got f32[4].'),
    case(['s = u64[2] parameter(0)'], 'ROOT r = (u64[3], u32[8]) rng-bit-generator(s), algorithm=rng_three_fry', 'Expected instruction to have shape equal to (u64[2], u32[8]), actual shape is (u64[3], u32[8]).'),
    case(['s = u64[3] parameter(0)'], 'ROOT r = (u64[3], u32[8]) rng-bit-generator(s), algorithm=rng_three_fry', 'rng_three_fry needs a state of 2 elements; got u64[3].'),
    case([], 'ROOT r = u64[3] rng-get-and-update-state(), delta=1', 'Expected instruction to have shape equal to u64[2], actual shape is u64[3].'),
    case(['v = f32[4] parameter(0)'], 'ROOT b = f32[2] opt-barrier(v)', 'Expected instruction to have shape equal to f32[4], actual shape is f32[2].'),
    case(['v = f32[4] parameter(0)'], 'ROOT c = f32[4] custom-call(v), custom_call_target="foo", sharding={devices=[2,2]0,1,2,3}', 'Number of tile assignment dimensions (excluding subgroups) is different than the input rank. sharding={devices=[2,2]0,1,2,3}, input_shape=f32[4]'),
]
write('collectives', coll, '// Collectives, communication, tokens and the remaining ops: one module per broken rule.')

S2 = ['a = s32[2] parameter(0)']
more = []
for op in ['acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'cbrt', 'cosine', 'cosh', 'exponential-minus-one',
           'log', 'log-plus-one', 'logistic', 'rsqrt', 'sine', 'sinh', 'sqrt', 'tan', 'tanh']:
    more.append(case(S2, 'ROOT b = s32[2] %s(a)' % op,
                     'Expected element type in shape to be floating or complex for %s operation; got s32.' % op))
for op in ['ceil', 'erf', 'round-nearest-afz', 'round-nearest-even']:
    more.append(case(S2, 'ROOT b = s32[2] %s(a)' % op, 'Expected element type in shape to be floating for %s operation; got s32.' % op))
more.append(case(['a = f32[2] parameter(0)'], 'ROOT b = f32[2] count-leading-zeros(a)',
                 'Expected an integral element type in argument to count-leading-zeros operation; got f32.'))
for op in ['divide', 'maximum', 'minimum', 'power', 'remainder']:
    more.append(case(['a = f32[2] parameter(0)', 'b = f32[3] parameter(1)'], 'ROOT c = f32[2] %s(a, b)' % op,
                     'Binary op %s with incompatible shapes: f32[2] and f32[3].' % op))
for op in ['or', 'xor']:
    more.append(case(['a = f32[2] parameter(0)'], 'ROOT c = f32[2] %s(a, a)' % op,
                     'Expected pred or integral type in argument to %s operation; got f32.' % op))
for op in ['shift-right-arithmetic', 'shift-right-logical', 'mulhi']:
    more.append(case(['a = f32[2] parameter(0)'], 'ROOT c = f32[2] %s(a, a)' % op,
                     'Expected integral type in argument to %s operation; got f32.' % op))
more += [
    case(['v = f32[4] parameter(0)'], 'ROOT s = (f32[4], f32[6]) all-gather-start(v), replica_groups={{0,1}}, dimensions={0}',
         'Expected instruction to have shape equal to (f32[4], f32[8]), actual shape is (f32[4], f32[6]).'),
    case(['v = f32[4] parameter(0)'], 'ROOT b = f32[8] collective-broadcast(v), replica_groups={{0,1}}',
         'Expected instruction to have shape equal to f32[4], actual shape is f32[8].'),
    case(['t = (f32[4], f32[4], u32[], u32[]) parameter(0)'], 'ROOT d = f32[4] collective-permute-done(t)',
         'The operand of a collective-permute-done instruction needs to be collective-permute-start, found parameter'),
    case(['v = f32[4] parameter(0)'], 'ROOT s = (f32[4], f32[4], u32[], u32[]) collective-permute-start(v), source_target_pairs={{0,1},{0,2}}',
         "Source 0 appears more than once in instruction's source-target pairs"),
    case(['v = f32[4] parameter(0)'], 'ROOT r = f32[4] collective-reduce(v), replica_groups={{0,1}}, to_apply=add_s32',
         "Reduction function add_s32's 1-th parameter shape must be compatible with input element type f32, but got s32[]", comps=ADD_S32),
    case(['v = f32[4] parameter(0)'], 'ROOT d = f32[5] domain(v), domain={kind="sharding", entry={maximal device=0}, exit={maximal device=1}}',
         'Expected instruction to have shape equal to f32[4], actual shape is f32[5].'),
    case(['v = f32[2,3] parameter(0)', 'i = s32[] parameter(1)'], 'ROOT r = f32[3,2] dynamic-reshape(v, i)',
         'dynamic-reshape needs one size operand per result dimension (2); got 1.'),
    case(['v = f32[4] parameter(0)', 'o = f32[4] parameter(1)'], 'ROOT r = f32[4] ragged-all-to-all(v, v, o, o, o, o), replica_groups={{0,1}}',
         'ragged-all-to-all offsets and sizes must be integers; operand 2 is f32[4].'),
    case(['l = f32[11,5] parameter(0)', 'r = f32[3,5,7] parameter(1)', 'g = f32[3] parameter(2)'],
         'ROOT d = f32[11,7] ragged-dot(l, r, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}',
         'ragged-dot group_sizes must be integers; got f32[3].'),
    case(['t = (f32[4], u32[], token[]) parameter(0)'], 'ROOT d = (f32[4], token[]) recv-done(t), channel_id=1',
         'The operand of a recv-done instruction needs to be recv or get-tuple-element, found parameter'),
    case(['t = (f32[4], u32[], token[]) parameter(0)'], 'ROOT d = token[] send-done(t), channel_id=1',
         'The operand of a send-done instruction needs to be send or get-tuple-element, found parameter'),
    case(['l = f8e4m3fn[2,32] parameter(0)', 'ls = f8e8m0fnu[2] parameter(1)', 'r = f8e4m3fn[32,4] parameter(2)', 'rs = f8e8m0fnu[1,4] parameter(3)'],
         'ROOT d = f32[2,4] scaled-dot(l, r, ls, rs), lhs_contracting_dims={1}, rhs_contracting_dims={0}',
         'Scale operand ls has a different number of dimensions than operand l in d'),
    case(['v = f32[4] parameter(0)'], 'ROOT s = scan(v), to_apply=add_f32, dimensions={0}, num_carries=0',
         'the result shape of scan cannot be inferred from its operands; write it', comps=ADD),
    case(['v = f32[4] parameter(0)'], 'ROOT s = shuffle(v)',
         'the result shape of shuffle cannot be inferred from its operands; write it'),
]
write('more', more, '// The remaining opcodes: one module per broken rule (same rules as the groups above).')
