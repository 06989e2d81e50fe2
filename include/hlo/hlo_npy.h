/* hlo_npy.h - numpy interchange: .npy and .npz files, numpy-style inline
 * literals ("[[1, 2], [3, 4]]") and numpy's repr text.
 *
 * Arrays are dense, row-major, hlo_type_bytes() per element in the layout of
 * hlo_literal (pred one byte 0/1, f8/f4/s4/u4 one element per byte, f16/bf16
 * raw 16-bit patterns, complex as (re, im) pairs), host byte order.
 * Everything an hlo_array points to lives in the arena passed in; nothing is
 * freed on its own.  Errors are recorded in an hlo_diags list and the
 * functions return HLO_ERR; file errors carry the file name in the message.
 * See docs/npy.md for the dtype mapping and the limits. */
#ifndef HLO_NPY_H
#define HLO_NPY_H

#include "hlo/hlo_ir.h"

#define HLO_NPY_MAX_RANK 64

typedef struct hlo_array {
  hlo_type type;
  int rank;
  int64_t *dims;   /* rank entries (NULL when rank == 0) */
  int64_t nelems;  /* product of dims (1 for a scalar) */
  void *data;      /* nelems * hlo_type_bytes(type) bytes (non-NULL) */
} hlo_array;

typedef struct hlo_npy_opts {
  /* Element type given to numpy void dtypes, which is how ml_dtypes types
   * (bfloat16, float8_*, float4_e2m1fn, int4, ...) are stored:
   * '|V2' -> void2 (default HLO_BF16), '|V1' -> void1 (default: error, the
   * 1-byte ml_dtypes types cannot be told apart).  HLO_TYPE_COUNT = default. */
  hlo_type void1, void2;
  /* Refuse arrays (or npz members) larger than this many bytes; 0 = 1 TiB.
   * Independently, an array may never claim more bytes than its file holds. */
  uint64_t max_bytes;
} hlo_npy_opts;

/* Default options (void1 unset, void2 = bf16). */
HLO_API hlo_npy_opts hlo_npy_default_opts(void);

/* ---- dtype mapping ----------------------------------------------------------- */
/* The numpy dtype string written for t ('<f4', '|b1', '<c16', '<V2' for bf16,
 * '|V1' for f8/f4/int4...); NULL for token/tuple/opaque. */
HLO_API const char *hlo_npy_descr(hlo_type t);
/* numpy's (or ml_dtypes') dtype name: "float32", "bool", "bfloat16",
 * "float8_e4m3fn", "int4", ...; "?" for types numpy has no name for. */
HLO_API const char *hlo_npy_dtype_name(hlo_type t);

/* ---- .npy -------------------------------------------------------------------- */
/* Parse a whole .npy image (versions 1.0, 2.0, 3.0; either byte order; C or
 * Fortran order) into out.  name is used in messages.  The buffer is not
 * kept. */
HLO_API int hlo_npy_read(hlo_arena *a, const char *name, const void *buf, size_t len,
                         const hlo_npy_opts *opts, hlo_array *out, hlo_diags *d);
/* Read the file at path (opts may be NULL). */
HLO_API int hlo_npy_load(hlo_arena *a, const char *path, const hlo_npy_opts *opts, hlo_array *out,
                         hlo_diags *d);
/* A file mapping made by hlo_npy_map (base NULL: nothing mapped). */
typedef struct hlo_npy_mapping {
  void *base;
  size_t len;
} hlo_npy_mapping;
/* Like hlo_npy_load, without copying when it can: a C-order file in host
 * byte order whose dtype needs no conversion (not bool) and whose data is
 * aligned for its element type is mapped (private copy-on-write pages: the file is never
 * changed) and out->data points into the mapping, which *m then holds until
 * hlo_npy_unmap.  Any other file is read and copied as by hlo_npy_load and
 * m->base is NULL.  The file size is checked against the header before any
 * data is used. */
HLO_API int hlo_npy_map(hlo_arena *a, const char *path, const hlo_npy_opts *opts, hlo_array *out,
                        hlo_npy_mapping *m, hlo_diags *d);
HLO_API void hlo_npy_unmap(hlo_npy_mapping *m);
/* Append the .npy image of arr (little-endian, C order, version 1.0 unless
 * the header needs 2.0), byte-identical to numpy.save, to b. */
HLO_API int hlo_npy_write(hlo_buf *b, const hlo_array *arr, hlo_diags *d);
/* Write the .npy image of arr to path; the data goes to the file straight
 * from arr->data when no conversion is needed. */
HLO_API int hlo_npy_save(const char *path, const hlo_array *arr, hlo_diags *d);

/* ---- .npz -------------------------------------------------------------------- */
typedef struct hlo_npz_member {
  const char *name; /* archive name without the ".npy" suffix */
  hlo_array arr;
} hlo_npz_member;

typedef struct hlo_npz {
  int n;
  hlo_npz_member *v;
} hlo_npz;

/* Read a zip archive of .npy members (stored or deflated, zip64 aware;
 * CRCs are checked).  Members not ending in ".npy" are an error. */
HLO_API int hlo_npz_read(hlo_arena *a, const char *name, const void *buf, size_t len,
                         const hlo_npy_opts *opts, hlo_npz *out, hlo_diags *d);
HLO_API int hlo_npz_load(hlo_arena *a, const char *path, const hlo_npy_opts *opts, hlo_npz *out,
                         hlo_diags *d);
/* As hlo_npz_load, but the file is mapped (as hlo_npy_map does) and the
 * stored members whose bytes already are their arrays point into the
 * mapping, which must outlive them (hlo_npy_unmap; m->base is NULL when
 * nothing was mapped).  Deflated or converted members are copied. */
HLO_API int hlo_npz_map(hlo_arena *a, const char *path, const hlo_npy_opts *opts, hlo_npz *out,
                        hlo_npy_mapping *m, hlo_diags *d);
/* Write n members as "<name>.npy" entries, deflated (compress, like
 * numpy.savez_compressed) or stored (like numpy.savez; the data of each
 * stored member 64-byte aligned in the archive, written from where it
 * lies by hlo_npz_save); zip64 fields where a size or offset needs them. */
HLO_API int hlo_npz_write(hlo_buf *b, const hlo_npz_member *m, int n, bool compress, hlo_diags *d);
HLO_API int hlo_npz_save(const char *path, const hlo_npz_member *m, int n, bool compress,
                         hlo_diags *d);

/* ---- inline literals ------------------------------------------------------ */
/* Parse src->text as a numpy-style literal of element type t: a scalar
 * (3, -2.5e3, true, False, nan, -inf, 1+2j, 2j) or nested lists
 * ("[[1, 2], [3, 4]]", trailing commas allowed, "[]" is shape (0,)).  The
 * shape is inferred; ragged lists, values of the wrong kind (1.5 for an
 * integer type, 1j for a real type) and values out of the type's range are
 * errors located at the offending byte of src. */
HLO_API int hlo_nplit_parse(hlo_arena *a, const hlo_src *src, hlo_type t, hlo_array *out,
                            hlo_diags *d);

/* ---- numpy repr ------------------------------------------------------------ */
/* Append numpy's repr(array) of arr to b, as numpy 1.24 prints with default
 * print options: "array([[1., 2.],\n       [3., 4.]], dtype=float32)",
 * 75-column wrapping, summarisation with "..." above 1000 elements
 * (3 edge items), dtype suffix omitted for float64/int64/bool/complex128. */
HLO_API int hlo_npy_repr(hlo_buf *b, const hlo_array *arr, hlo_diags *d);

/* ---- helpers ------------------------------------------------------------- */
/* Allocate an array of type t and shape dims[rank] in the arena (data
 * zeroed); HLO_ERR on overflow or allocation failure. */
HLO_API int hlo_array_alloc(hlo_arena *a, hlo_type t, int rank, const int64_t *dims, hlo_array *out);
/* View arr as an hlo_literal (shape with the default layout, data shared). */
HLO_API int hlo_array_to_literal(hlo_arena *a, const hlo_array *arr, hlo_literal *lit);

#endif
