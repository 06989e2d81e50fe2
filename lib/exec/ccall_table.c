/* ccall_table.c - the one table of custom-call targets hlo-run runs: each
 * target's chooser, its meaning and where that meaning comes from
 * (docs/custom_calls.md prints it); the dispatch of a custom-call step
 * (user definitions first) and the error for a target nobody defines. */
#include <string.h>

#include "exec/ccall.h"

typedef struct ccall_row {
  hlo_ccall_info info;
  int (*prep)(hlo_exec *e, plan_step *s, const char *t);
} ccall_row;

#define XLA_GPU "XLA's GPU compiler (xla/service/gpu/cublas_cudnn.cc, backend_configs.proto)"
#define XLA_MEM "XLA (xla/service/memory_annotations.h, host offloading)"
#define XLA_SPMD "XLA's SPMD partitioner (xla/service/spmd/spmd_partitioner.cc)"
#define SDY "Shardy's HLO round trip (xla/service/spmd/shardy/constants.h, round_trip_common/)"
#define TE "TransformerEngine for JAX (transformer_engine/jax/csrc/extensions/attention.cpp; enums in common/include/transformer_engine/fused_attn.h)"
#define TF_DYNAMIC "TensorFlow's XLA bridge; run as XLA's dynamic padder rewrites it (xla/service/dynamic_padder.cc)"
#define NEURON "PyTorch/XLA on AWS Neuron (torch-neuronx custom-call targets, neuronx-cc error codes)"

static const ccall_row ROWS[] = {
    /* XLA's GPU compiler */
    {{"__cublas$gemm", "alpha * dot(a, b) + beta * c, dot dimensions from backend_config; tuple with a zero workspace", XLA_GPU " and gemm_rewriter.cc"}, hlo_ccall_prep_gemm},
    {{"__cublas$lt$matmul", "as __cublas$gemm, then the epilogue: + bias vector, relu, gelu (tanh form), aux output", XLA_GPU " and gemm_rewriter.cc"}, hlo_ccall_prep_gemm},
    {{"__cublas$lt$matmul$f8", "as __cublas$lt$matmul on operands scaled by a_scale, b_scale; result divided by d_scale", XLA_GPU " and gemm_rewriter.cc"}, hlo_ccall_prep_gemm},
    {{"__cudnn$convForward", "convolution with the instruction's window, dim_labels and groups, times conv_result_scale; tuple with zero scratch", XLA_GPU " and gpu_conv_rewriter.cc"}, hlo_ccall_prep_conv},
    {{"__cudnn$convBackwardInput", "gradient of the convolution (window, dim_labels) with respect to its input", XLA_GPU " and gpu_conv_rewriter.cc"}, hlo_ccall_prep_conv},
    {{"__cudnn$convBackwardFilter", "gradient of the convolution (window, dim_labels) with respect to its filter", XLA_GPU " and gpu_conv_rewriter.cc"}, hlo_ccall_prep_conv},
    {{"__cudnn$convBiasActivationForward", "activation(conv_result_scale * conv + side_input_scale * side_input + bias)", XLA_GPU " and cudnn_fused_conv_rewriter.cc"}, hlo_ccall_prep_conv},
    {{"__triton", "its called computation", "XLA's GPU compiler (Triton kernels keep the computation they compute)"}, hlo_ccall_prep_called},
    {{"cuda_threefry2x32", "Threefry-2x32 (20 rounds) of counters (x0, x1) under keys (k0, k1), elementwise", "JAX's GPU PRNG kernel (jaxlib/gpu/prng_kernels.cc); Salmon et al., SC'11"}, hlo_ccall_prep_threefry},
    {{"cu_threefry2x32", "as cuda_threefry2x32 (older jaxlib name)", "jaxlib before 0.4"}, hlo_ccall_prep_threefry},
    {{"cu_threefry2x32_ffi", "as cuda_threefry2x32 (jaxlib's typed FFI name)", "jaxlib (jaxlib/gpu/prng_kernels.cc)"}, hlo_ccall_prep_threefry},
    {{"Pin", "its operand (keeps a buffer in place)", "XLA's GPU compiler (no thunk; ir_emitter_unnested.cc)"}, hlo_ccall_prep_marker},
    {{"Unpin", "its operand", "XLA's GPU compiler (no thunk; ir_emitter_unnested.cc)"}, hlo_ccall_prep_marker},
    {{"CreateBuffer", "a new buffer of the result shape (zeros here)", "XLA's GPU compiler (no thunk; ir_emitter_unnested.cc)"}, hlo_ccall_prep_zeros},
    {{"AllocateBuffer", "a new buffer of the result shape (zeros here)", "XLA's CPU compiler (xla/service/cpu/ir_emitter.cc: an uninitialised buffer)"}, hlo_ccall_prep_zeros},
    /* Transformer Engine (JAX) */
    {{"te_fused_attn_forward_ffi", "(softmax(mask(scale Q K^T [+ bias])) V, log-sum-exp stats, zero rng_state, zero workspace); GQA, causal/padding/window masks, SBHD/BSHD layouts; no dropout", TE}, hlo_ccall_prep_attn},
    {{"te_fused_attn_backward_ffi", "(dQ, dK, dV, dbias, zero workspace) of that attention from (q, k, v, bias, stats, rng_state, O, dO, cu_seqlens...)", TE}, hlo_ccall_prep_attn},
    /* framework markers */
    {{"Sharding", "its operand (a sharding annotation)", XLA_SPMD}, hlo_ccall_prep_marker},
    {{"SPMDFullToShardShape", "the shard of this partition (partition_id) under the operand's sharding; the operand when shapes agree", XLA_SPMD}, hlo_ccall_prep_spmd},
    {{"SPMDShardToFullShape", "the operand when shapes agree; else the full value: every partition's shard at its offset, gathered over the replica's partitions (alone: its own shard in zeros)", XLA_SPMD}, hlo_ccall_prep_spmd},
    {{"xla.sdy.FuncResultSharding", "its operand (the sharding of a function result)", SDY}, hlo_ccall_prep_marker},
    {{"xla.sdy.PropagationBarrier", "its operand (a barrier for sharding propagation)", SDY}, hlo_ccall_prep_marker},
    {{"xla.sdy.ShardingGroup", "nothing: an empty tuple (operands grouped to share a sharding)", SDY}, hlo_ccall_prep_zeros},
    {{"xla.sdy.GlobalToLocalShape", "each operand's tile of this partition under xla.sdy.in_shardings over the manual axes (the operand when the shapes agree)", SDY}, hlo_ccall_prep_sdy_shape},
    {{"xla.sdy.LocalToGlobalShape", "the global value of each operand: every partition's tile (xla.sdy.out_shardings, manual axes) at its offset, gathered over the replica's partitions (alone: its own tile in zeros)", SDY}, hlo_ccall_prep_sdy_shape},
    {{"MoveToHost", "its operand (memory-space annotation)", XLA_MEM}, hlo_ccall_prep_marker},
    {{"MoveToDevice", "its operand (memory-space annotation)", XLA_MEM}, hlo_ccall_prep_marker},
    {{"annotate_device_placement", "its operand (memory-space annotation)", XLA_MEM}, hlo_ccall_prep_marker},
    {{"LayoutConstraint", "its operand (a layout requirement)", "XLA's layout assignment (layout_assignment.cc)"}, hlo_ccall_prep_marker},
    {{"SetBound", "its operand (an upper bound on dynamic dimensions)", "TensorFlow's XLA bridge (tf2xla; XLA's dynamic padder removes it)"}, hlo_ccall_prep_marker},
    {{"DynamicConvolutionForward", "convolution(input, kernel) of the call's window, zero past the input's actual sizes; with padding_type=PADDING_SAME the low padding of a dynamic spatial dimension is SAME's for its actual size", TF_DYNAMIC}, hlo_ccall_prep_dynconv},
    {{"DynamicConvolutionInputGrad", "convolution(gradient, kernel) of operands (input sizes, gradient, kernel), SAME padding as for the forward input sizes; the result has those sizes", TF_DYNAMIC}, hlo_ccall_prep_dynconv},
    {{"DynamicConvolutionKernelGrad", "convolution(activations, gradients), both zero past their actual sizes, SAME padding as for the activations' actual size; a static result", TF_DYNAMIC}, hlo_ccall_prep_dynconv},
    {{"DynamicReduceWindowSamePadding", "reduce-window(input, init) of the call's window and reducer; a dynamic dimension's window takes SAME padding for its actual size, positions past it hold init", TF_DYNAMIC}, hlo_ccall_prep_dynwindow},
    {{"DynamicSelectAndScatterSamePadding", "select-and-scatter(operand, source, init) of a max pooling's gradient; a dynamic dimension's window takes SAME padding for its actual size, the operand past it holds the lowest value", TF_DYNAMIC}, hlo_ccall_prep_dynsas},
    {{"PadToStatic", "(the operand padded to its bounds, zero past the actual sizes; one s32 actual size per dimension)", "XLA's dynamic padder (xla/service/dynamic_padder.cc)"}, hlo_ccall_prep_dyn},
    {{"SliceToDynamic", "operand 0 with the actual size of each dynamic dimension set from the s32 operands that follow", "XLA's dynamic padder (xla/service/dynamic_padder.cc)"}, hlo_ccall_prep_dyn},
    {{"TopK", "values and indices of the k largest elements of the last dimension, descending", "XLA (xla/service/topk_rewriter.cc)"}, hlo_ccall_prep_topk},
    /* AWS Neuron */
    {{"AwsNeuronTransferWithStaticRing", "its operand (a same-shape transfer)", NEURON}, hlo_ccall_prep_marker},
    {{"AwsNeuronGelu", "gelu(x) = x/2 (1 + erf(x/sqrt 2))", NEURON " (torch-xla GeluForwardImpl, torch's exact gelu)"}, hlo_ccall_prep_act},
    {{"AwsNeuronGeluApprxTanh", "x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))", NEURON}, hlo_ccall_prep_act},
    {{"AwsNeuronGeluBackward", "operands (dy, x): dy * gelu'(x), exact form", NEURON " (torch gelu_backward(grad, self))"}, hlo_ccall_prep_act},
    {{"AwsNeuronSilu", "x * logistic(x)", NEURON}, hlo_ccall_prep_act},
    {{"AwsNeuronSoftmax", "softmax along the dimension in backend_config (default: the last)", NEURON " (transformers-neuronx softmax_new: backend_config = str(dim))"}, hlo_ccall_prep_act},
    {{"AwsNeuronSoftmaxBackward", "operands (dy, y): y * (dy - sum(dy * y)) along the backend_config dimension", NEURON " (torch _softmax_backward_data(grad, output, dim))"}, hlo_ccall_prep_act},
};
#define NROWS ((int)(sizeof ROWS / sizeof ROWS[0]))

const hlo_ccall_info *hlo_ccall_builtin(int i) {
  return i >= 0 && i < NROWS ? &ROWS[i].info : NULL;
}

static const hlo_ccall_user *user_of(const hlo_exec *e, const char *t) {
  for (int i = 0; i < e->opts.nccalls; i++)
    if (e->opts.ccalls[i].target && strcmp(e->opts.ccalls[i].target, t) == 0) return &e->opts.ccalls[i];
  return NULL;
}

/* Targets seen in real dumps whose meaning the module does not hold: the
 * code lives in the process that wrote the dump. */
static const char *const PYTHON_CALLBACK =
    "a Python host callback (jax.pure_callback, io_callback or debug.callback); "
    "the function is not in the module";
static const struct {
  const char *target, *why;
} NOT_IN_MODULE[] = {
    {"CustomSPMDPartitioning",
     "JAX custom_partitioning: the implementation is a Python function registered "
     "under the key in backend_config, which the module does not hold (the "
     "after-optimizations module of the same dump holds the partitioned calls)"},
    {"xla_python_cpu_callback", NULL},
    {"xla_python_gpu_callback", NULL},
    {"xla_ffi_python_cpu_callback", NULL},
    {"xla_ffi_python_gpu_callback", NULL},
};

int hlo_ccall_prep(hlo_exec *e, plan_step *s) {
  const hlo_instruction *in = s->in;
  const hlo_attr *a = hlo_instr_attr(in, HLO_A_CUSTOM_CALL_TARGET);
  const char *t = a && a->u.s ? a->u.s : "";
  const hlo_ccall_user *u = user_of(e, t);
  if (u) return hlo_ccall_prep_user(e, s, u);
  for (int i = 0; i < NROWS; i++)
    if (strcmp(ROWS[i].info.target, t) == 0) return ROWS[i].prep(e, s, t);
  for (size_t i = 0; i < sizeof NOT_IN_MODULE / sizeof NOT_IN_MODULE[0]; i++)
    if (strcmp(NOT_IN_MODULE[i].target, t) == 0)
      return HLO_PLAN_ERR(e, in,
                          "instruction %%%s: custom-call target \"%s\" cannot run from the module "
                          "alone: %s; define it with --custom-call '%s=FILE.hlo' (or =identity, =zeros)",
                          in->name, t, NOT_IN_MODULE[i].why ? NOT_IN_MODULE[i].why : PYTHON_CALLBACK, t);
  hlo_buf b;
  hlo_buf_init(&b, e->alloc);
  for (int i = 0; i < NROWS; i++) hlo_buf_printf(&b, "%s%s", i ? ", " : "", ROWS[i].info.target);
  int rc = HLO_PLAN_ERR(e, in,
                        "instruction %%%s: custom-call target \"%s\" is not known to hlo-run "
                        "(known: %s); define it with --custom-call '%s=FILE.hlo' (or =identity, =zeros)",
                        in->name, t, b.data ? b.data : "", t);
  hlo_buf_release(&b);
  return rc;
}
