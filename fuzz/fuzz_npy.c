/* fuzz_npy.c - fuzz target: the .npy, .npz and inline-literal readers.
 * The first byte picks the reader (0 .npy, 1 .npz, 2 inline literal with
 * the element type in the second byte).  Whatever reads must write and
 * read back to the same array, and print as numpy's repr. */
#include "fuzz.h"
#include "hlo/hlo_npy.h"

static void same_array(const hlo_array *a, const hlo_array *b) {
  FUZZ_CHECK(a->type == b->type && a->rank == b->rank && a->nelems == b->nelems,
             "array header changed on write/read");
  for (int i = 0; i < a->rank; i++) FUZZ_CHECK(a->dims[i] == b->dims[i], "dimension %d changed", i);
  size_t n = (size_t)a->nelems * (size_t)hlo_type_bytes(a->type);
  FUZZ_CHECK(memcmp(a->data, b->data, n) == 0, "data changed on write/read");
}

static void repr(const hlo_array *arr) {
  /* numpy summarises big arrays, but keep the cost bounded anyway */
  if (arr->nelems > 100000) return;
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_npy_repr(&b, arr, &d);
  hlo_diags_release(&d);
  hlo_buf_release(&b);
}

static void npy_round_trip(hlo_arena *A, const hlo_array *arr, const hlo_npy_opts *o) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  FUZZ_CHECK(hlo_npy_write(&b, arr, &d) == HLO_OK, "writing a .npy that was read failed");
  hlo_array back;
  int rc = hlo_npy_read(A, "written", b.data, b.len, o, &back, &d);
  FUZZ_CHECK(rc == HLO_OK, "written .npy does not read back: %s", d.n ? d.v[0].msg : "?");
  same_array(arr, &back);
  hlo_diags_release(&d);
  hlo_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 1 << 20) return 0;
  hlo_arena A;
  hlo_arena_init(&A, NULL);
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  hlo_npy_opts o = hlo_npy_default_opts();
  o.max_bytes = 64u << 20;
  o.void1 = HLO_F8E4M3FN;
  const uint8_t *p = data + 1;
  size_t n = size - 1;
  switch (data[0] % 3) {
  case 0: {
    hlo_array arr;
    if (hlo_npy_read(&A, "input.npy", p, n, &o, &arr, &d) == HLO_OK) {
      repr(&arr);
      npy_round_trip(&A, &arr, &o);
    } else {
      FUZZ_CHECK(d.nerrors > 0, ".npy read failed without a diagnostic");
    }
    break;
  }
  case 1: {
    hlo_npz z;
    if (hlo_npz_read(&A, "input.npz", p, n, &o, &z, &d) == HLO_OK) {
      hlo_buf b;
      hlo_buf_init(&b, NULL);
      FUZZ_CHECK(hlo_npz_write(&b, z.v, z.n, n & 1, &d) == HLO_OK, "writing the .npz failed");
      hlo_npz back;
      int rc = hlo_npz_read(&A, "written.npz", b.data, b.len, &o, &back, &d);
      FUZZ_CHECK(rc == HLO_OK, "written .npz does not read back: %s", d.n ? d.v[0].msg : "?");
      FUZZ_CHECK(back.n == z.n, "member count changed");
      for (int i = 0; i < z.n; i++) {
        FUZZ_CHECK(strcmp(z.v[i].name, back.v[i].name) == 0, "member name changed");
        same_array(&z.v[i].arr, &back.v[i].arr);
      }
      hlo_buf_release(&b);
    } else {
      FUZZ_CHECK(d.nerrors > 0, ".npz read failed without a diagnostic");
    }
    break;
  }
  default: {
    if (n < 1) break;
    hlo_type t = (hlo_type)(p[0] % HLO_TYPE_COUNT);
    if (!hlo_type_is_array(t)) break;
    hlo_src src = {"literal", (const char *)p + 1, n - 1};
    hlo_array arr;
    if (hlo_nplit_parse(&A, &src, t, &arr, &d) == HLO_OK) {
      repr(&arr);
      hlo_npy_opts o2 = o;
      if (hlo_type_bytes(t) == 1) o2.void1 = t; /* '|V1' reads back as t */
      if (hlo_npy_descr(t)) npy_round_trip(&A, &arr, &o2);
    } else {
      FUZZ_CHECK(d.nerrors > 0, "literal parse failed without a diagnostic");
      for (int i = 0; i < d.n; i++)
        FUZZ_CHECK(!d.v[i].src || d.v[i].off <= src.len, "diagnostic past the literal");
    }
    break;
  }
  }
  hlo_diags_release(&d);
  hlo_arena_release(&A);
  return 0;
}
