/* pbmodule_test.c - HloModuleProto to HLO text: each proto field becomes the
 * attribute XLA's text format spells for it (expected lines written by hand
 * from that format), the text parses, and what is not converted is an error
 * naming its proto path. */
#include <stdio.h>
#include <string.h>

#include "hlo/hlo_ir.h"
#include "hlo/hlo_pbtxt.h"
#include "hlo/hlo_text.h"
#include "testing.h"

static hlo_arena A;

/* Convert a snapshot whose entry computation holds the instruction protos
 * `ins` (plus the computations `more`); the text into out.  Returns rc. */
static int convert(const char *ins, const char *more, hlo_buf *out, hlo_diags *d) {
  static char text[8192];
  snprintf(text, sizeof text,
           "hlo { hlo_module { name: \"m\" entry_computation_id: 1\n"
           "computations { name: \"e\" id: 1 %s }\n%s } }\n", ins, more);
  hlo_src *src = hlo_arena_alloc(&A, sizeof *src);
  char *copy = hlo_arena_strndup(&A, text, strlen(text));
  *src = (hlo_src){"snap", copy, strlen(copy)};
  hlo_pb_snapshot snap;
  if (hlo_pb_read_snapshot(&A, src, &snap, d)) return HLO_ERR;
  return hlo_pb_snapshot_module_text(&A, src, &snap, out, d);
}

/* want_error false: the converted text holds the line want, and parses;
 * true: the conversion fails with an error message holding want. */
static void check(const char *ins, const char *more, const char *want, bool want_error) {
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  int rc = convert(ins, more, &b, &d);
  bool ok = want_error ? rc == HLO_ERR && d.n >= 1 && strstr(d.v[0].msg, want)
                       : rc == HLO_OK && b.data && strstr(b.data, want);
  if (!ok) printf("want [%s] in:\n%s\n(rc %d %s)\n", want, b.data ? b.data : "", rc, d.n ? d.v[0].msg : "");
  CHECK(ok);
  if (rc == HLO_OK) {
    hlo_src src = {"text", b.data, b.len};
    hlo_diags pd;
    hlo_diags_init(&pd, NULL);
    hlo_module *m = hlo_parse_module(&src, 0, b.len, NULL, &pd, NULL);
    if (!m) printf("does not parse: %s\n%s\n", pd.n ? pd.v[0].msg : "", b.data);
    CHECK(m != NULL);
    hlo_module_free(m);
    hlo_diags_release(&pd);
  }
  hlo_buf_release(&b);
  hlo_diags_release(&d);
}

static void line_case(const char *ins, const char *more, const char *want) { check(ins, more, want, false); }
static void error_case(const char *ins, const char *more, const char *msg) { check(ins, more, msg, true); }

#define F32(dims) "shape { element_type: F32 " dims " }"
#define P(id, num, shp) "instructions { name: \"p" #num "\" opcode: \"parameter\" id: " #id " parameter_number: " #num " " shp " }"

static void test_attributes(void) {
  /* NHWC convolution, 3x3 window with one of padding on each side */
  line_case(P(1, 0, F32("dimensions: [1, 4, 4, 2]")) P(2, 1, F32("dimensions: [3, 3, 2, 1]"))
            "instructions { name: \"c\" opcode: \"convolution\" id: 3 operand_ids: [1, 2] "
            F32("dimensions: [1, 4, 4, 1]")
            " window { dimensions { size: 3 stride: 1 padding_low: 1 padding_high: 1 window_dilation: 1 base_dilation: 1 }"
            " dimensions { size: 3 stride: 1 padding_low: 1 padding_high: 1 } }"
            " convolution_dimension_numbers { input_batch_dimension: 0 input_feature_dimension: 3"
            " input_spatial_dimensions: [1, 2] kernel_input_feature_dimension: 2 kernel_output_feature_dimension: 3"
            " kernel_spatial_dimensions: [0, 1] output_batch_dimension: 0 output_feature_dimension: 3"
            " output_spatial_dimensions: [1, 2] } feature_group_count: 1 batch_group_count: 1 }",
            "", "  ROOT %c = f32[1,4,4,1] convolution(%p0, %p1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n");
  /* reduce-window: stride and base dilation are written, defaults not */
  line_case(P(1, 0, F32("dimensions: [4]")) P(2, 1, F32(""))
            "instructions { name: \"r\" opcode: \"reduce-window\" id: 3 operand_ids: [1, 2] called_computation_ids: 7 "
            F32("dimensions: [2]") " window { dimensions { size: 2 stride: 2 base_dilation: 1 } } }",
            "computations { name: \"add\" id: 7 " P(71, 0, F32("")) P(72, 1, F32(""))
            " instructions { name: \"s\" opcode: \"add\" id: 73 operand_ids: [71, 72] " F32("") " } }",
            "  ROOT %r = f32[2] reduce-window(%p0, %p1), to_apply=%add, window={size=2 stride=2}\n");
  line_case(P(1, 0, F32("dimensions: [4, 4]"))
            "instructions { name: \"s\" opcode: \"slice\" id: 2 operand_ids: 1 " F32("dimensions: [2, 1]")
            " slice_dimensions { start: 0 limit: 2 stride: 1 } slice_dimensions { start: 1 limit: 4 stride: 3 } }",
            "", "  ROOT %s = f32[2,1] slice(%p0), slice={[0:2:1], [1:4:3]}\n");
  line_case(P(1, 0, F32("dimensions: [2, 3]")) P(2, 1, F32(""))
            "instructions { name: \"q\" opcode: \"pad\" id: 3 operand_ids: [1, 2] " F32("dimensions: [3, 9]")
            " padding_config { dimensions { edge_padding_high: 1 } dimensions { edge_padding_low: 2 edge_padding_high: 2 interior_padding: 1 } } }",
            "", "  ROOT %q = f32[3,9] pad(%p0, %p1), padding=0_1x2_2_1\n");
  line_case(P(1, 0, F32("dimensions: [5, 3]"))
            "instructions { name: \"i\" opcode: \"parameter\" id: 2 parameter_number: 1 shape { element_type: S32 dimensions: [2, 1] } }"
            "instructions { name: \"g\" opcode: \"gather\" id: 3 operand_ids: [1, 2] " F32("dimensions: [2, 3]")
            " gather_dimension_numbers { offset_dims: 1 collapsed_slice_dims: 0 start_index_map: 0 index_vector_dim: 1 }"
            " gather_slice_sizes: [1, 3] indices_are_sorted: true }",
            "", "  ROOT %g = f32[2,3] gather(%p0, %i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
                "index_vector_dim=1, slice_sizes={1,3}, indices_are_sorted=true\n");
  /* topk: the proto's absent largest and is_stable are false, which the
   * text must say (absent there, they are true) */
  line_case(P(1, 0, F32("dimensions: [4]"))
            "instructions { name: \"t\" opcode: \"topk\" id: 2 operand_ids: 1 k: 2 shape { element_type: TUPLE"
            " tuple_shapes { element_type: F32 dimensions: 2 } tuple_shapes { element_type: S32 dimensions: 2 } } }",
            "", "topk(%p0), largest=false, is_stable=false, k=2\n");
  line_case(P(1, 0, F32("dimensions: [4]"))
            "instructions { name: \"t\" opcode: \"topk\" id: 2 operand_ids: 1 k: 2 largest: true shape { element_type: TUPLE"
            " tuple_shapes { element_type: F32 dimensions: 2 } tuple_shapes { element_type: S32 dimensions: 2 } } }",
            "", "topk(%p0), is_stable=false, k=2, largest=true\n");
  line_case("instructions { name: \"i\" opcode: \"iota\" id: 1 dimensions: 1 shape { element_type: S32 dimensions: [2, 3] layout { minor_to_major: [0, 1] } } }",
            "", "  ROOT %i = s32[2,3]{0,1} iota(), iota_dimension=1\n");
  line_case("instructions { name: \"k\" opcode: \"constant\" id: 1 shape { element_type: BF16 dimensions: 3 }"
            " literal { shape { element_type: BF16 dimensions: 3 } bf16s: \"\\200?\\000@\\200\\377\" } }",
            "", "  ROOT %k = bf16[3] constant({1,2,-inf})\n");
  line_case("instructions { name: \"k\" opcode: \"constant\" id: 1 shape { element_type: PRED dimensions: [1, 2] }"
            " literal { shape { element_type: PRED dimensions: [1, 2] } preds: [true, false] } }",
            "", "  ROOT %k = pred[1,2] constant({{true,false}})\n");
  line_case(P(1, 0, "shape { element_type: F32 dimensions: 4 is_dynamic_dimension: true }")
            "instructions { name: \"cc\" opcode: \"custom-call\" id: 2 operand_ids: 1 "
            "shape { element_type: F32 dimensions: 4 is_dynamic_dimension: true } custom_call_target: \"foo\""
            " backend_config: \"{\\\"a\\\":1}\" }",
            "", "  ROOT %cc = f32[<=4] custom-call(%p0), custom_call_target=\"foo\", backend_config=\"{\\\"a\\\":1}\"\n");
  line_case(P(1, 0, F32("dimensions: 4"))
            "instructions { name: \"ar\" opcode: \"all-reduce\" id: 2 operand_ids: 1 called_computation_ids: 7 "
            F32("dimensions: 4") " replica_groups { replica_ids: [0, 1] } channel_id: 3 use_global_device_ids: true }",
            "computations { name: \"add\" id: 7 " P(71, 0, F32("")) P(72, 1, F32(""))
            " instructions { name: \"s\" opcode: \"add\" id: 73 operand_ids: [71, 72] " F32("") " } }",
            "  ROOT %ar = f32[4] all-reduce(%p0), to_apply=%add, replica_groups={{0,1}}, channel_id=3, "
            "use_global_device_ids=true\n");
  line_case(P(1, 0, F32("")) P(2, 1, F32(""))
            "instructions { name: \"r\" opcode: \"rng\" id: 3 operand_ids: [1, 2] distribution: RNG_NORMAL "
            F32("dimensions: 2") " }",
            "", "  ROOT %r = f32[2] rng(%p0, %p1), distribution=rng_normal\n");
  line_case(P(1, 0, F32("dimensions: 2"))
            "instructions { name: \"t\" opcode: \"tuple\" id: 2 operand_ids: [1, 1] "
            "shape { element_type: TUPLE tuple_shapes { element_type: F32 dimensions: 2 } tuple_shapes { element_type: F32 dimensions: 2 } } }"
            "instructions { name: \"g\" opcode: \"get-tuple-element\" id: 3 operand_ids: 2 " F32("dimensions: 2") " }",
            "", "  ROOT %g = f32[2] get-tuple-element(%t), index=0\n");
  line_case(P(1, 0, F32("dimensions: [2, 3]")) P(2, 1, F32("dimensions: 3")) P(3, 2, F32("dimensions: 3"))
            "instructions { name: \"bn\" opcode: \"batch-norm-inference\" id: 4 operand_ids: [1, 2, 3, 2, 3] "
            F32("dimensions: [2, 3]") " epsilon: 0.001 feature_index: 1 }",
            "", "  ROOT %bn = f32[2,3] batch-norm-inference(%p0, %p1, %p2, %p1, %p2), epsilon=0.001, feature_index=1\n");
  line_case(P(1, 0, F32("dimensions: [2, 3]"))
            "instructions { name: \"cc\" opcode: \"custom-call\" id: 2 operand_ids: 1 " F32("dimensions: [2, 3]")
            " custom_call_target: \"t\" operand_shapes_with_layout { element_type: F32 dimensions: [2, 3]"
            " layout { minor_to_major: [0, 1] } } }",
            "", "  ROOT %cc = f32[2,3] custom-call(%p0), custom_call_target=\"t\", operand_layout_constraints={f32[2,3]{0,1}}\n");
  /* proto3 text leaves zeros out: parameter_number, id, root_id, index_vector_dim, conv dimensions */
  const char *zeros = "instructions { name: \"x\" opcode: \"parameter\" " F32("dimensions: [2, 5, 3]") " }"
            "instructions { name: \"w\" opcode: \"parameter\" id: 2 parameter_number: 1 " F32("dimensions: [3, 2, 4]") " }"
            "instructions { name: \"c\" opcode: \"convolution\" id: 3 operand_ids: [0, 2] " F32("dimensions: [2, 5, 4]")
            " window { dimensions { size: 3 stride: 1 padding_low: 1 padding_high: 1 window_dilation: 1 base_dilation: 1 } }"
            " convolution_dimension_numbers { input_feature_dimension: 2 input_spatial_dimensions: 1"
            " kernel_input_feature_dimension: 1 kernel_output_feature_dimension: 2 kernel_spatial_dimensions: 0"
            " output_feature_dimension: 2 output_spatial_dimensions: 1 } }"
            "instructions { name: \"i\" opcode: \"parameter\" id: 4 parameter_number: 2 shape { element_type: S32 dimensions: 1 } }"
            "instructions { name: \"g\" opcode: \"gather\" id: 5 operand_ids: [0, 4] " F32("dimensions: [2, 5, 3]")
            " gather_dimension_numbers { offset_dims: [0, 1, 2] start_index_map: 0 } gather_slice_sizes: [2, 5, 3] }"
            "instructions { name: \"t\" opcode: \"tuple\" id: 1 operand_ids: [3, 5] shape { element_type: TUPLE tuple_shapes { "
            "element_type: F32 dimensions: [2, 5, 4] } tuple_shapes { element_type: F32 dimensions: [2, 5, 3] } } }"
            "root_id: 1";
  line_case(zeros, "", "  %x = f32[2,5,3] parameter(0)\n");
  line_case(zeros, "", "window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f\n");
  line_case(zeros, "", "gather(%x, %i), offset_dims={0,1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=0, slice_sizes={2,5,3}\n");
  line_case("instructions { name: \"x\" opcode: \"parameter\" " F32("") " }"
            "instructions { name: \"y\" opcode: \"negate\" id: 1 operand_ids: 0 " F32("") " }",
            "", "  %y = f32[] negate(%x)\n"); /* no root_id: id 0 is the root */
  /* conditional: a pred index takes true/false, an s32 index a list */
  const char *branches =
      "computations { name: \"b0\" id: 7 " P(71, 0, F32("")) " instructions { name: \"n0\" opcode: \"negate\" id: 72 operand_ids: 71 " F32("") " } root_id: 72 }"
      "computations { name: \"b1\" id: 8 " P(81, 0, F32("")) " }";
  line_case("instructions { name: \"q\" opcode: \"parameter\" id: 1 parameter_number: 0 shape { element_type: PRED } }"
            P(2, 1, F32(""))
            "instructions { name: \"c\" opcode: \"conditional\" id: 3 operand_ids: [1, 2, 2] called_computation_ids: [7, 8] " F32("") " }",
            branches, "  ROOT %c = f32[] conditional(%q, %p1, %p1), true_computation=%b0, false_computation=%b1\n");
  line_case("instructions { name: \"q\" opcode: \"parameter\" id: 1 parameter_number: 0 shape { element_type: S32 } }"
            P(2, 1, F32(""))
            "instructions { name: \"c\" opcode: \"conditional\" id: 3 operand_ids: [1, 2, 2] called_computation_ids: [7, 8] " F32("") " }",
            branches, "  ROOT %c = f32[] conditional(%q, %p1, %p1), branch_computations={%b0, %b1}\n");
  /* while: the proto lists body then condition */
  line_case(P(1, 0, "shape { element_type: PRED }")
            "instructions { name: \"w\" opcode: \"while\" id: 2 operand_ids: 1 called_computation_ids: [7, 8] shape { element_type: PRED } }",
            "computations { name: \"body\" id: 7 " P(71, 0, "shape { element_type: PRED }") " }"
            "computations { name: \"cond\" id: 8 " P(81, 0, "shape { element_type: PRED }") " }",
            "  ROOT %w = pred[] while(%p0), condition=%cond, body=%body\n");
}

static void test_errors(void) {
  const char *p = P(1, 0, F32("dimensions: 4"));
  char buf[2048];
  snprintf(buf, sizeof buf, "%s instructions { name: \"n\" opcode: \"negate\" id: 2 operand_ids: 1 %s sharding { type: REPLICATED } }", p, F32("dimensions: 4"));
  error_case(buf, "", "hlo.hlo_module.computations[0].instructions[1].sharding: unsupported field");
  snprintf(buf, sizeof buf, "%s instructions { name: \"n\" opcode: \"reduce-window\" id: 2 operand_ids: 1 %s window { dimensions { size: 1 bogus: 2 } } }", p, F32("dimensions: 4"));
  error_case(buf, "", "hlo.hlo_module.computations[0].instructions[1].window.bogus: unsupported field");
  snprintf(buf, sizeof buf, "%s instructions { name: \"n\" opcode: \"frobnicate\" id: 2 operand_ids: 1 %s }", p, F32("dimensions: 4"));
  error_case(buf, "", "hlo.hlo_module.computations[0].instructions[1].opcode: unknown opcode \"frobnicate\"");
  snprintf(buf, sizeof buf, "%s instructions { name: \"n\" opcode: \"negate\" id: 2 operand_ids: 9 %s }", p, F32("dimensions: 4"));
  error_case(buf, "", "hlo.hlo_module.computations[0].instructions[1].operand_ids: no instruction has id 9");
  snprintf(buf, sizeof buf, "%s instructions { name: \"n\" opcode: \"negate\" operand_ids: 1 %s }"
           "instructions { name: \"m\" opcode: \"negate\" operand_ids: 1 %s }", p, F32("dimensions: 4"), F32("dimensions: 4"));
  error_case(buf, "", "hlo.hlo_module.computations[0].instructions[2]: id 0 is used twice (an instruction without id has id 0)");
  snprintf(buf, sizeof buf, "%s instructions { name: \"n\" opcode: \"negate\" id: 1 operand_ids: 1 %s }", p, F32("dimensions: 4"));
  error_case(buf, "", "id 1 is used twice");
  snprintf(buf, sizeof buf, "%s instructions { name: \"n\" opcode: \"negate\" id: 2 operand_ids: 1 shape { element_type: F32 dimensions: 4 layout { minor_to_major: 0 tiles { dimensions: 8 } } } }", p);
  error_case(buf, "", "hlo.hlo_module.computations[0].instructions[1].shape.tiles: unsupported field");
  snprintf(buf, sizeof buf, "%s instructions { name: \"n\" opcode: \"map\" id: 2 operand_ids: 1 called_computation_ids: 5 %s }", p, F32("dimensions: 4"));
  error_case(buf, "", "called_computation_ids: no computation has id 5");
  error_case(p, "computations { name: \"x\" id: 2 instructions { name: \"y\" opcode: \"call\" id: 3 called_computation_ids: 2 shape { element_type: F32 } } }",
             "computation x calls itself");
}

int main(void) {
  hlo_arena_init(&A, NULL);
  test_attributes();
  test_errors();
  hlo_arena_release(&A);
  TEST_MAIN_END("pbmodule");
}
