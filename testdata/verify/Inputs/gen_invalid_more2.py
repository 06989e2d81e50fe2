# Writes testdata/verify/ops_invalid_more2.hlo: one module per verifier or
# shape-inference message that no other test exercised.  Each case is the
# module text with the bad line marked by a leading '@', and the message
# worked out by hand from the input (the column is the name of the marked
# instruction; the line comes from FileCheck's @LINE).
# The modules with dimensions={} on sort, concatenate and get/set-dimension-size,
# and two split dimensions on all-to-all,
# are refused by the parser (as by XLA's parser); their CHECK lines in the .hlo
# were changed by hand to the parser's error.
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

ADD_S32 = ADD.replace('f32', 's32')

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
('''ENTRY e {
  l = f32[2,3] parameter(0)
  r = f32[3,4] parameter(1)
@  ROOT d = f32[2,4] dot(l, r), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={0}
}''', 'Must specify the same number of batch dimensions for lhs and rhs (1 vs 0).'),
('''ENTRY e {
  l = f32[2,3] parameter(0)
  r = f32[2,3] parameter(1)
@  ROOT d = f32[2] dot(l, r), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={0}, rhs_contracting_dims={1}
}''', 'A dimension number is not unique in the dot dimension numbers: lhs dimension 0 is both batch and contracting.'),
('''ENTRY e {
  l = f32[2,3] parameter(0)
  r = f32[2,3] parameter(1)
@  ROOT d = f32[2] dot(l, r), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={0}
}''', 'A dimension number is not unique in the dot dimension numbers: rhs dimension 0 is both batch and contracting.'),
('''ENTRY e {
  l = f32[1,4,2] parameter(0)
  r = s32[3,2,2] parameter(1)
@  ROOT c = f32[1,2,2] convolution(l, r), window={size=3}, dim_labels=b0f_0io->b0f
}''', 'Convolution with different element types: f32[1,4,2] and s32[3,2,2].'),
('''ENTRY e {
  l = f32[1,4] parameter(0)
  r = f32[3,2,2] parameter(1)
@  ROOT c = f32[1,2,2] convolution(l, r), window={size=3}, dim_labels=b0f_0io->b0f
}''', 'Convolution arguments must have rank 3 (from dim_labels); got lhs f32[1,4] and rhs f32[3,2,2].'),
('''ENTRY e {
  l = f32[1,4,2] parameter(0)
  r = f32[3,2,2] parameter(1)
@  ROOT c = f32[1,2,2] convolution(l, r), window={size=3x3}, dim_labels=b0f_0io->b0f
}''', 'Window must have 1 dimensions (one per spatial dimension); got 2.'),
('''ENTRY e {
  l = f32[2,4,2] parameter(0)
  r = f32[3,1,2] parameter(1)
@  ROOT c = f32[1,2,2] convolution(l, r), window={size=3}, dim_labels=b0f_0io->b0f, feature_group_count=2, batch_group_count=2
}''', 'Both feature_group_count (2) and batch_group_count (2) cannot be greater than 1'),
('''ENTRY e {
  l = f32[1,4,3] parameter(0)
  r = f32[3,1,2] parameter(1)
@  ROOT c = f32[1,2,2] convolution(l, r), window={size=3}, dim_labels=b0f_0io->b0f, feature_group_count=2
}''', 'Expected the input feature dimension (3) to be a multiple of feature_group_count (2).'),
('''ENTRY e {
  l = f32[2,4,2] parameter(0)
  r = f32[3,2,3] parameter(1)
@  ROOT c = f32[1,2,3] convolution(l, r), window={size=3}, dim_labels=b0f_0io->b0f, batch_group_count=2
}''', 'Expected output feature dimension size (value 3) to be a multiple of batch group count 2.'),
('''ENTRY e {
  l = f32[1,4,2] parameter(0)
  r = f32[3,2,2] parameter(1)
@  ROOT c = f32[1,2,2] convolution(l, r), window={size=3}, dim_labels=b0f_0io->b0f, batch_group_count=0
}''', 'batch_group_count must be a positive number, got 0'),
('''ENTRY e {
  l = f32[1,4,2] parameter(0)
  r = f32[3,2,2] parameter(1)
@  ROOT c = f32[1,2,2] convolution(l, r), window={size=3 stride=0}, dim_labels=b0f_0io->b0f
}''', 'Window dimension 0 has a non-positive size, stride or dilation.'),
('''ENTRY e {
  l = f32[1,4,2] parameter(0)
  r = f32[0,2,2] parameter(1)
@  ROOT c = f32[1,5,2] convolution(l, r), window={size=0}, dim_labels=b0f_0io->b0f
}''', 'Window dimension 0 has a non-positive size, stride or dilation.'),
('''ENTRY e {
  l = f32[1,3,2] parameter(0)
  r = f32[3,2,2] parameter(1)
@  ROOT c = f32[1,1,2] convolution(l, r), window={size=3 lhs_dilate=4611686018427387904}, dim_labels=b0f_0io->b0f
}''', 'Window dimension 0 gives an invalid output size.'),
('''ENTRY e {
  a = s32[2,2] parameter(0)
@  ROOT x = s32[2,2] triangular-solve(a, a), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
}''', 'Expected element types in shape to be floating or complex for TriangularSolve; got s32.'),
('''ENTRY e {
  a = f32[2,2] parameter(0)
  b = c64[2,2] parameter(1)
@  ROOT x = c64[2,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
}''', 'Arguments to triangular solve must have equal element types; got f32 and c64.'),
('''ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
@  ROOT x = f32[2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
}''', "The 'a' argument to TriangularSolve must have rank >= 2, got shape f32[2]"),
('''ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[3,2,2] parameter(1)
@  ROOT x = f32[3,2,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
}''', 'Arguments to triangular solve must have equal rank; got f32[2,2] and f32[3,2,2].'),
('''ENTRY e {
  a = f32[3,2,2] parameter(0)
  b = f32[4,2,2] parameter(1)
@  ROOT x = f32[4,2,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
}''', 'The leading batch dimensions of the arguments to triangular solve must be equal; got f32[3,2,2] and f32[4,2,2].'),
('''add2 {
  x0 = f32[] parameter(0)
  x1 = f32[] parameter(1)
  y0 = f32[] parameter(2)
  y1 = f32[] parameter(3)
  s0 = f32[] add(x0, y0)
  s1 = f32[] add(x1, y1)
  ROOT t = (f32[], f32[]) tuple(s0, s1)
}

ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  z = f32[] constant(0)
@  ROOT r = (f32[2], f32[2]) reduce(a, b, z, z), dimensions={1}, to_apply=add2
}''', 'All inputs of reduce must have the same dimensions; got f32[2,3] and f32[3,2].'),
(ADD + '''
ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] constant(0)
@  ROOT r = f32[2] reduce(a, z, z), dimensions={1}, to_apply=add_f32
}''', 'reduce takes N inputs and N init values; got 3 operands.'),
(ADD + '''
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
@  ROOT r = f32[2] reduce-window(a, z), window={size=2 stride=0}, to_apply=add_f32
}''', 'Window dimension 0 has a non-positive size, stride or dilation.'),
('''ge_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT g = pred[] compare(x, y), direction=GE
}

''' + ADD + '''
ENTRY e {
  a = f32[4] parameter(0)
  s = f32[2] parameter(1)
  z = f32[1] parameter(2)
@  ROOT r = f32[4] select-and-scatter(a, s, z), window={size=2 stride=2}, select=ge_f32, scatter=add_f32
}''', 'select-and-scatter init value must be a scalar; got f32[1].'),
('''ge_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT g = pred[] compare(x, y), direction=GE
}

''' + ADD_S32 + '''
ENTRY e {
  a = f32[4] parameter(0)
  s = f32[2] parameter(1)
  z = s32[] parameter(2)
@  ROOT r = f32[4] select-and-scatter(a, s, z), window={size=2 stride=2}, select=ge_f32, scatter=add_s32
}''', ['select-and-scatter operand, source and init value must have the same element type; got f32[4], f32[2], s32[].', "Reduction function add_s32's 1-th parameter shape must be compatible with input element type f32, but got s32[]"]),
('''lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT
}

ENTRY e {
  a = f32[4] parameter(0)
@  ROOT s = f32[4] sort(a), dimensions={}, to_apply=lt
}''', 'sort needs exactly one dimension in dimensions={...}; got 0.'),
('''ENTRY e {
  a = f32[2,3] parameter(0)
  s = f32[3] parameter(1)
@  ROOT b = (f32[2,3], f32[3], f32[3]) batch-norm-training(a, s, a), epsilon=0.001, feature_index=1
}''', 'Batch norm operand 2 must have rank 1; got f32[2,3].'),
('''ENTRY e {
  a = f32[2,3] parameter(0)
  s = s32[3] parameter(1)
  o = f32[3] parameter(2)
@  ROOT b = (f32[2,3], f32[3], f32[3]) batch-norm-training(a, s, o), epsilon=0.001, feature_index=1
}''', 'The inputs to batch norm should have the same element type; operand 1 is s32[3], operand 0 is f32[2,3].'),
('''ENTRY e {
  a = f32[2,3] parameter(0)
  s = f32[3] parameter(1)
  g = f32[3,2] parameter(2)
@  ROOT b = (f32[2,3], f32[3], f32[3]) batch-norm-grad(a, s, s, s, g), epsilon=0.001, feature_index=1
}''', 'The grad_output shape f32[3,2] must be the operand shape f32[2,3].'),
('''ENTRY e {
  o = f32[4,3] parameter(0)
  i = s32[2,1] parameter(1)
@  ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
}''', 'All components of the offset index in a gather op must either be a offset dimension or explicitly collapsed/batching; got len(slice_sizes)=2, output_slice_sizes=1, collapsed_slice_dims=0, operand_batching_dims=0.'),
('''ENTRY e {
  o = f32[4,3] parameter(0)
  i = s32[2,2] parameter(1)
@  ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0,0}, index_vector_dim=1, slice_sizes={1,3}
}''', 'Repeated dimensions are not allowed in start_index_map; got 0 twice.'),
('''ENTRY e {
  o = f32[4,3] parameter(0)
  i = s32[2,1] parameter(1)
@  ROOT g = f32[2,3] gather(o, i), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
}''', 'Offset dimension 2 in gather op is out of bounds for an output of rank 2.'),
('''ENTRY e {
  o = f32[2,4,3] parameter(0)
  i = s32[2,1] parameter(1)
@  ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={1}, start_index_map={0}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1,3}
}''', 'operand_batching_dims and start_index_map must be disjoint; 0 is in both.'),
('''ENTRY e {
  o = f32[2,4,3] parameter(0)
  i = s32[2,1] parameter(1)
@  ROOT g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1,3}
}''', 'operand_batching_dims and start_indices_batching_dims must have the same size; got 1 and 0.'),
('''add2 {
  x0 = f32[] parameter(0)
  x1 = f32[] parameter(1)
  y0 = f32[] parameter(2)
  y1 = f32[] parameter(3)
  s0 = f32[] add(x0, y0)
  s1 = f32[] add(x1, y1)
  ROOT t = (f32[], f32[]) tuple(s0, s1)
}

ENTRY e {
  o = f32[4,3] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2,3] parameter(2)
  v = f32[2,2] parameter(3)
@  ROOT s = (f32[4,3], f32[4,3]) scatter(o, o, i, u, v), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add2
}''', 'Scatter updates must all have the same dimensions; got f32[2,3] and f32[2,2].'),
(ADD + '''
ENTRY e {
  o = f32[4,3] parameter(0)
  i = f32[2,1] parameter(1)
  u = f32[2,3] parameter(2)
@  ROOT s = f32[4,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
}''', 'Scatter indices parameter must be an integral tensor; got f32[2,1].'),
(ADD + '''
ENTRY e {
  o = f32[4,3] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2,3] parameter(2)
@  ROOT s = f32[4,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=3, to_apply=add_f32
}''', 'Scatter index leaf dimension must be within [0, rank(scatter_indices) + 1). rank(scatter_indices) is 2 and scatter index leaf dimension is 3.'),
(ADD + '''
ENTRY e {
  o = f32[4,3] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2,3] parameter(2)
@  ROOT s = f32[4,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={2}, index_vector_dim=1, to_apply=add_f32
}''', 'Invalid scatter_dims_to_operand_dims mapping; domain is [0, 2), got: 0->2.'),
(ADD + '''
ENTRY e {
  o = f32[4,3] parameter(0)
  i = s32[2,2] parameter(1)
  u = f32[2,3] parameter(2)
@  ROOT s = f32[4,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,0}, index_vector_dim=1, to_apply=add_f32
}''', 'Repeated dimensions not allowed in scatter_dims_to_operand_dims; got: 0.'),
(ADD + '''
ENTRY e {
  o = f32[2,4,3] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2,3] parameter(2)
@  ROOT s = f32[2,4,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=add_f32
}''', 'inserted_window_dims and input_batching_dims must be disjoint; 0 is in both.'),
(ADD + '''
ENTRY e {
  o = f32[2,4,3] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2,3] parameter(2)
@  ROOT s = f32[2,4,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
}''', 'scatter_dims_to_operand_dims and input_batching_dims must be disjoint; 0 is in both.'),
(ADD + '''
ENTRY e {
  o = f32[2,4,3] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2,3] parameter(2)
@  ROOT s = f32[2,4,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=add_f32
}''', 'scatter_indices_batching_dims must not contain index_vector_dim 1.'),
(ADD + '''
ENTRY e {
  o = f32[2,4,3] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2,3] parameter(2)
@  ROOT s = f32[2,4,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={1}, input_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=add_f32
}''', 'input_batching_dims and scatter_indices_batching_dims must have the same size; got 1 and 0.'),
(ADD + '''
ENTRY e {
  o = f32[2,4,3] parameter(0)
  i = s32[3,1] parameter(1)
  u = f32[3,3] parameter(2)
@  ROOT s = f32[2,4,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=add_f32
}''', 'Scatter batching dimension sizes differ: operand dim 0 is 2, indices dim 0 is 3.'),
('''ENTRY e {
  a = f32[2] parameter(0)
  b = f32[] parameter(1)
@  ROOT r = f32[2] rng(a, b), distribution=rng_uniform
}''', 'Expected scalar types for the two operands of Rng instruction; got f32[2] and f32[].'),
('''ENTRY e {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
@  ROOT r = f32[2] rng(a, b), distribution=rng_uniform
}''', 'Expected compatible element types for the result and the two operands of Rng instruction; got f32[2], f32[] and s32[].'),
('''ENTRY e {
  a = c64[] parameter(0)
@  ROOT r = c64[2] rng(a, a), distribution=rng_uniform
}''', 'Element type not supported. Expected element to be of floating point type, integral type or predicate type for RngUniform; got c64.'),
('''ENTRY e {
  a = s32[] parameter(0)
@  ROOT r = s32[2] rng(a, a), distribution=rng_normal
}''', 'Element type not supported. Expected element to be FloatingPointType for RngNormal; got s32.'),
('''ENTRY e {
  a = f32[] parameter(0)
@  ROOT r = f32[2] rng(a), distribution=rng_uniform
}''', 'rng expects 2 operands, got 1.'),
('''ENTRY e {
  a = f32[] parameter(0)
@  ROOT r = f32[2] rng(a, a), distribution=rng_bogus
}''', 'rng needs distribution=rng_uniform or rng_normal; got rng_bogus'),
('''ENTRY e {
  s = u64[2,1] parameter(0)
@  ROOT r = (u64[2,1], u32[4]) rng-bit-generator(s), algorithm=rng_default
}''', 'rng-bit-generator state must be a rank-1 array; got u64[2,1].'),
('''ENTRY e {
  s = u64[2] parameter(0)
@  ROOT r = (u64[2], u32[4], u32[4]) rng-bit-generator(s), algorithm=rng_default
}''', 'Expected tuple shape with 2 elements (state, output) for rng-bit-generator; got (u64[2], u32[4], u32[4]).'),
('''ENTRY e {
  s = u64[4] parameter(0)
@  ROOT r = (u64[4], u32[4]) rng-bit-generator(s), algorithm=rng_philox
}''', 'rng_philox needs a state of 2 or 3 elements; got u64[4].'),
('''ENTRY e {
  s = u64[2] parameter(0)
@  ROOT r = (u64[2], u32[4]) rng-bit-generator(s), algorithm=rng_other
}''', 'unknown rng-bit-generator algorithm rng_other'),
('''ENTRY e {
  a = f32[2] parameter(0)
@  ROOT c = pred[2] compare(a, a), direction=LT, type=SIGNED
}''', 'Expected comparison type FLOAT or TOTALORDER. actual: SIGNED, operand: f32[2]'),
('''ENTRY e {
  a = f32[2,2] parameter(0)
@  ROOT d = f32[2,2] dot(a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}''', 'dot expects 2 to 3 operands, got 1.'),
(ADD + '''
ENTRY e {
  a = f32[2] parameter(0)
@  ROOT r = f32[] reduce(a), dimensions={0}, to_apply=add_f32
}''', 'reduce expects at least 2 operands, got 1.'),
('''ENTRY e {
  a = f32[2] parameter(0)
@  ROOT c = f32[4] concatenate(a, a), dimensions={}
}''', 'Concatenate needs exactly one dimension in dimensions={...}; got 0.'),
('''ENTRY e {
  a = f32[2] parameter(0)
  s = s32[] parameter(1)
@  ROOT r = f32[<=2] set-dimension-size(a, s), dimensions={1}
}''', 'SetDimensionSize dimension out of bounds: 1.'),
('''ENTRY e {
  a = f32[2] parameter(0)
  s = s32[] parameter(1)
@  ROOT r = f32[<=2] set-dimension-size(a, s), dimensions={}
}''', 'set-dimension-size needs exactly one dimension; got 0.'),
('''ENTRY e {
  a = f32[2] parameter(0)
@  ROOT r = s32[] get-dimension-size(a), dimensions={}
}''', 'get-dimension-size needs exactly one dimension; got 0.'),
('''ENTRY e {
  a = f32[2] parameter(0)
@  ROOT b = (f32[2]) broadcast(a), dimensions={0}
}''', 'broadcast result must be an array; got (f32[2]).'),
('''ENTRY e {
  a = f32[4] parameter(0)
  n = f32[] parameter(1)
@  ROOT r = f32[4] dynamic-reshape(a, n)
}''', 'dynamic-reshape size operand 1 must be an integer scalar; got f32[].'),
('''ENTRY e {
  a = f32[4] parameter(0)
  n = s32[] parameter(1)
@  ROOT r = (f32[4]) dynamic-reshape(a, n)
}''', 'dynamic-reshape result must be an array'),
(ADD + '''
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
@  ROOT r = f32[4] reduce-window(a, z), to_apply=add_f32
}''', 'reduce-window needs a window={...} attribute'),
('''ENTRY e {
  t = (f32[2]) parameter(0)
@  ROOT b = f32[2] transpose(t), dimensions={0}
}''', 'Expected array argument for transpose, but got (f32[2]).'),
('''ENTRY e {
  p = pred[2] parameter(0)
  t = (f32[2]) parameter(1)
@  ROOT b = (f32[2]) select(p, t, t)
}''', 'Expected array argument for select, but got (f32[2]).'),
('''ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = f32[4] all-to-all(v), replica_groups={{0,1}}, dimensions={1}
}''', 'all-to-all split dimension 1 is out of range for operand f32[4].'),
('''ENTRY e {
  v = f32[4,4] parameter(0)
@  ROOT a = f32[4,4] all-to-all(v), replica_groups={{0,1}}, dimensions={0,1}
}''', 'all-to-all takes at most one split dimension; got 2.'),
(ADD + '''
ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = f32[4] all-reduce(v), replica_groups={{0,-1}}, to_apply=add_f32
}''', 'Replica id -1 in replica_groups is negative.'),
('''ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = f32[4] collective-permute(v), source_target_pairs={{0,-1}}
}''', 'Source-target pair {0,-1} has a negative id.'),
(ADD + '''
ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = f32[4] all-reduce(v), channel_id=-1, replica_groups={{0,1}}, to_apply=add_f32
}''', 'channel_id -1 is negative'),
('''ENTRY e {
  a = f32[] parameter(0)
@  ROOT b = (f32[2], token[]) infeed(a)
}''', 'The operand of infeed must be a token; got f32[].'),
('''ENTRY e {
  a = f32[] parameter(0)
@  ROOT b = (f32[2], u32[], token[]) recv(a), channel_id=1
}''', 'The operand of recv must be a token; got f32[].'),
('''ENTRY e {
  a = f32[] parameter(0)
@  ROOT b = token[] outfeed(a, a)
}''', 'The second operand of outfeed must be a token; got f32[].'),
('''ENTRY e {
  a = f32[] parameter(0)
@  ROOT b = (f32[2], token[]) recv-done(a), channel_id=1
}''', ['The operand of recv-done must be a recv context tuple; got f32[].', 'The operand of a recv-done instruction needs to be recv, found parameter']),
('''ENTRY e {
  a = f32[] parameter(0)
@  ROOT b = token[] send-done(a), channel_id=1
}''', ['The operand of send-done must be a send context tuple; got f32[].', 'The operand of a send-done instruction needs to be send, found parameter']),
('''cond {
  p = s32[] parameter(0)
  q = s32[] parameter(1)
  ROOT lt = pred[] compare(p, q), direction=LT
}

body {
  p = s32[] parameter(0)
  ROOT n = s32[] negate(p)
}

ENTRY e {
  a = s32[] parameter(0)
@  ROOT w = s32[] while(a), condition=cond, body=body
}''', 'Condition must take 1 arguments; got 2.'),
('''cond {
  p = s32[] parameter(0)
  ROOT lt = pred[] compare(p, p), direction=LT
}

body {
  p = s32[] parameter(0)
  q = s32[] parameter(1)
  ROOT n = s32[] negate(p)
}

ENTRY e {
  a = s32[] parameter(0)
@  ROOT w = s32[] while(a), condition=cond, body=body
}''', 'Body must take 1 arguments; got 2.'),
('''lt {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT
}

ENTRY e {
  a = f32[4] parameter(0)
@  ROOT s = f32[4] sort(a), dimensions={0}, to_apply=lt
}''', ["Parameter 0 of the Sort compare computation lt has shape s32[], expected f32[] (operand 0's element type).", "Parameter 1 of the Sort compare computation lt has shape s32[], expected f32[] (operand 0's element type)."]),
('''r2 {
  x0 = f32[] parameter(0)
  x1 = f32[] parameter(1)
  y0 = f32[] parameter(2)
  y1 = f32[] parameter(3)
  ROOT s = f32[] add(x0, y0)
}

ENTRY e {
  a = f32[2] parameter(0)
  z = f32[] constant(0)
@  ROOT r = (f32[], f32[]) reduce(a, a, z, z), dimensions={0}, to_apply=r2
}''', 'Reduction function r2 must produce a tuple with 2 elements, but has shape f32[]'),
('''r1 {
  x = f32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = f32[] add(x, x)
}

ENTRY e {
  a = f32[2] parameter(0)
  z = f32[] constant(0)
@  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=r1
}''', "Reduction function r1's 1-th parameter shape differs from the result shape: s32[] vs f32[]"),
('''sel {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  z = f32[] parameter(2)
  ROOT g = pred[] compare(x, y), direction=GE
}

''' + ADD + '''
ENTRY e {
  a = f32[4] parameter(0)
  s = f32[2] parameter(1)
  z = f32[] constant(0)
@  ROOT r = f32[4] select-and-scatter(a, s, z), window={size=2 stride=2}, select=sel, scatter=add_f32
}''', 'Select function must take 2 parameters, but takes 3 parameter(s).'),
('''sel {
  x = f32[] parameter(0)
  y = s32[] parameter(1)
  ROOT g = pred[] compare(x, x), direction=GE
}

''' + ADD + '''
ENTRY e {
  a = f32[4] parameter(0)
  s = f32[2] parameter(1)
  z = f32[] constant(0)
@  ROOT r = f32[4] select-and-scatter(a, s, z), window={size=2 stride=2}, select=sel, scatter=add_f32
}''', "Select function's parameter 1 has shape s32[], expected f32[]."),
('''f {
  p0 = f32[2] parameter(0)
  p1 = f32[2] parameter(1)
  ROOT s = f32[2] add(p0, p1)
}

ENTRY e {
  a = f32[2] parameter(0)
@  ROOT r = f32[2] fusion(a), kind=kLoop, calls=f
}''', 'Fused parameter count (2) is greater than the number of operands (1) passed to the fusion instruction.'),
('''g {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}

ENTRY e {
  a = f32[2] parameter(0)
@  ROOT r = f32[2] call(a), to_apply=g, is_composite=true, frontend_attributes={composite.name="foo",composite.attributes={}}
}''', 'A composite call op must have frontend attributes with key composite.version'),
('''ENTRY e {
  a = f32[4611686018427387904] parameter(0)
@  ROOT c = f32[4] concatenate(a, a), dimensions={0}
}''', 'Concatenated dimension size overflows.'),
('''ENTRY e {
  a = f32[9223372036854775807] parameter(0)
  z = f32[] constant(0)
@  ROOT b = f32[4] pad(a, z), padding=1_0
}''', 'Padding result overflows in dimension 0.'),
('''r2 {
  x0 = f32[] parameter(0)
  x1 = f32[] parameter(1)
  y0 = f32[] parameter(2)
  y1 = f32[] parameter(3)
  s = f32[] add(x0, y0)
  b = f32[1] broadcast(s), dimensions={}
  ROOT t = (f32[], f32[1]) tuple(s, b)
}

ENTRY e {
  a = f32[2] parameter(0)
  z = f32[] constant(0)
@  ROOT r = (f32[], f32[]) reduce(a, a, z, z), dimensions={0}, to_apply=r2
}''', 'Reduction function r2 must produce scalars; result 1 is f32[1]'),
('''ENTRY e {
  a = c64[4] parameter(0)
@  ROOT b = c64[4] fft(a), fft_type=XFFT, fft_length={4}
}''', 'Unknown fft_type XFFT.'),
('''ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = f32[8] all-gather-start(v), replica_groups={{0,1}}, dimensions={0}
}''', ['The all-gather-start instruction requires one consumer, found 0',
       'all-gather-start must have a 2-element tuple shape (operands, results); got f32[8].']),
('''b0 {
  p = f32[] parameter(0)
  ROOT r = f32[] negate(p)
}

ENTRY e {
  i = s32[] parameter(0)
  a = f32[] parameter(1)
@  ROOT r = f32[] conditional(i, a), branch_computations={b0, b0}
}''', 'conditional has 2 branch computations but 1 branch operands.'),
(ADD + '''
ENTRY e {
  o = f32[4,3] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2,3] parameter(2)
@  ROOT s = f32[4,3] scatter(o, i, u, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
}''', 'scatter takes N operands, the indices and N updates (an odd count >= 3); got 4.'),
('''ENTRY e {
  rl = f32[11,5] parameter(0)
  rr = f32[3,5,7] parameter(1)
  gs = s32[3] parameter(2)
@  ROOT rd = f32[11,7] ragged-dot(rl, rr, gs), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={}, rhs_group_dims={0}
}''', 'ragged-dot needs exactly one lhs_ragged_dims entry; got 0.'),
('''ENTRY e {
  rl = f32[11,5] parameter(0)
  rr = f32[3,5,7] parameter(1)
  gs = s32[3] parameter(2)
@  ROOT rd = f32[11,7] ragged-dot(rl, rr, gs), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
}''', 'ragged-dot with a ragged non-contracting dimension needs one rhs_group_dims entry.'),
('''ENTRY e {
  sl = f8e4m3fn[2,32] parameter(0)
  sls = f8e8m0fnu[2,1] parameter(1)
  sr = f8e4m3fn[32,4] parameter(2)
  srs = f8e8m0fnu[4] parameter(3)
@  ROOT sd = f32[2,4] scaled-dot(sl, sr, sls, srs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}''', 'Scale operand srs has a different number of dimensions than operand sr in sd'),
('''ENTRY e {
  v = f32[4] parameter(0)
  w = f32[2,2] parameter(1)
  off = s32[4] parameter(2)
@  ROOT r = f32[2,2] ragged-all-to-all(v, w, off, off, off, off), replica_groups={{0,1,2,3}}
}''', 'ragged-all-to-all input f32[4] and output f32[2,2] must have the same rank and element type.'),
('''ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = f32[4] copy(v), sharding={devices=[2]0,0}
}''', 'device 0 appears more than once in the tile assignment of {devices=[2]0,0}'),
('''ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = (f32[4], f32[4]) tuple(v, v), sharding={{devices=[2]0,1}}
}''', ['Tuple sharding has 1 elements but the shape (f32[4], f32[4]) has 2 leaves.', 'a tiled sharding {devices=[2]0,1} needs an array shape; got (f32[4], f32[4])']),
('''ENTRY e {
@  ROOT v = f32[?] parameter(0)
}''', ['Unbounded dynamism is disabled for instruction: f32[?]']),
('''ENTRY e {
  v = f32[4] parameter(0)
@  ROOT r = f32[4] collective-permute-done(v)
}''', ['The operand of collective-permute-done must be a tuple with at least 2 elements; got f32[4].', 'The operand of a collective-permute-done instruction needs to be collective-permute-start, found parameter']),
('''ENTRY e {
  v = f32[4611686018427387904] parameter(0)
@  ROOT r = f32[9223372036854775807] all-gather(v), replica_groups={{0,1}}, dimensions={0}
}''', 'all-gather result dimension overflows'),
('''ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = all-gather(v), dimensions={0}
}''', 'cannot infer the shard count of all-gather: no replica groups and no declared shape'),
('''ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = f32[4] copy(v), sharding={devices=[0]0}
}''', 'tile assignment dimensions of {devices=[0]0} must be positive'),
('''ENTRY e {
  v = f32[4] parameter(0)
@  ROOT a = (f32[8], f32[4], u32[], u32[]) collective-permute-start(v), source_target_pairs={{0,1}}
}''', 'collective-permute-start buffers (f32[8], f32[4], u32[], u32[]) must have the operand shape f32[4].'),
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
                msgs = msg if isinstance(msg, list) else [msg]
                for k, one in enumerate(msgs):
                    lines.append('// CHECK: .hlo:[[@LINE+%d]]:%d: error: %%%s: %s' % (len(msgs) - k, col, name, one))
            lines.append(l)
        lines.append('')
    with open(sys.argv[1] if len(sys.argv) > 1 else OUT, 'w') as f:
        f.write('\n'.join(lines))


main()
