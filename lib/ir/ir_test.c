/* ir_test.c - unit tests for the IR tables and shape helpers: every table
 * entry looks itself up, sizes overflow cleanly, shapes copy and compare. */
#include "hlo/hlo_ir.h"
#include "testing.h"

static void test_tables(void) {
  for (int i = 0; i < HLO_OP_COUNT; i++) {
    hlo_opcode op;
    const char *n = hlo_opcode_name((hlo_opcode)i);
    CHECK(hlo_opcode_lookup(n, strlen(n), &op) && op == (hlo_opcode)i);
  }
  for (int i = 0; i < HLO_TYPE_COUNT; i++) {
    hlo_type t;
    const char *n = hlo_type_name((hlo_type)i);
    bool found = hlo_type_lookup(n, strlen(n), &t);
    if (i == HLO_TUPLE) CHECK(!found); /* tuples are written (...), never by name */
    else CHECK(found && t == (hlo_type)i);
  }
  for (int i = 0; i < HLO_ATTR_COUNT; i++) {
    hlo_attr_key k;
    const char *n = hlo_attr_name((hlo_attr_key)i);
    CHECK(hlo_attr_lookup(n, strlen(n), &k) && k == (hlo_attr_key)i);
  }
  hlo_opcode op;
  CHECK(!hlo_opcode_lookup("stablehlo.add", 13, &op)); /* DECISIONS.md: not HLO */
  CHECK(!hlo_opcode_lookup("ad", 2, &op));
  CHECK_INT(hlo_opcode_arity(HLO_OP_ADD), 2);
  CHECK_INT(hlo_opcode_arity(HLO_OP_TUPLE), HLO_VARIADIC);
  CHECK(hlo_opcode_flags(HLO_OP_EXP) & HLO_F_TRANSCENDENTAL);
  CHECK(hlo_opcode_flags(HLO_OP_WHILE) & HLO_F_CONTROL);
  CHECK(!(hlo_opcode_flags(HLO_OP_FUSION) & HLO_F_CONTROL)); /* fusion is not control flow */
  CHECK(hlo_opcode_flags(HLO_OP_RECV_DONE) & HLO_F_P2P);
  CHECK(!(hlo_opcode_flags(HLO_OP_INFEED) & HLO_F_P2P));
  CHECK_INT(hlo_type_bytes(HLO_C128), 16);
  CHECK_INT(hlo_type_bits(HLO_S4), 4);
  CHECK(hlo_type_is_float(HLO_F8E4M3FN) && !hlo_type_is_float(HLO_S8));
}

static void test_shapes(void) {
  hlo_arena a;
  hlo_arena_init(&a, NULL);
  int64_t dims[3] = {2, 3, 4};
  hlo_shape s, c;
  CHECK(hlo_shape_make_array(&a, &s, HLO_F32, 3, dims) == HLO_OK);
  int64_t n = 0;
  CHECK(hlo_shape_elements(&s, &n) && n == 24);
  CHECK(hlo_shape_bytes(&s, &n) && n == 96);
  CHECK(s.layout && s.layout->n == 3 && s.layout->minor_to_major[0] == 2);
  CHECK(hlo_shape_copy(&a, &c, &s) == HLO_OK);
  CHECK(hlo_shape_equal(&s, &c) && c.dims != s.dims);
  c.layout->minor_to_major[0] = 0;
  c.layout->minor_to_major[2] = 2;
  CHECK(hlo_shape_compatible(&s, &c) && !hlo_shape_equal(&s, &c));
  int64_t huge[2] = {INT64_MAX / 2, 4};
  hlo_shape h;
  CHECK(hlo_shape_make_array(&a, &h, HLO_F32, 2, huge) == HLO_OK);
  CHECK(!hlo_shape_elements(&h, &n)); /* overflows 64 bits */
  int64_t big[1] = {INT64_MAX / 2};
  CHECK(hlo_shape_make_array(&a, &h, HLO_F64, 1, big) == HLO_OK);
  CHECK(hlo_shape_elements(&h, &n) && !hlo_shape_bytes(&h, &n));
  hlo_arena_release(&a);
}

int main(void) {
  test_tables();
  test_shapes();
  TEST_MAIN_END("ir");
}
