/* npy_internal.h - helpers shared by the numpy interchange files of lib/io
 * (npy.c, npz.c, nplit.c, nprepr.c); not part of the public API. */
#ifndef HLO_NPY_INTERNAL_H
#define HLO_NPY_INTERNAL_H

#include "hlo/hlo_npy.h"

/* Read a whole file into memory from the allocator (caller frees with
 * hlo_free(alloc, *buf)).  max_len bounds the size. */
int npy_read_file(const hlo_allocator *alloc, const char *path, uint64_t max_len, void **buf,
                  size_t *len, hlo_diags *d);
/* Write len bytes to path (created or truncated). */
int npy_write_file(const char *path, const void *buf, size_t len, hlo_diags *d);

/* An output file written from pieces in place (outfile.c): open creates
 * or truncates path and reserves total bytes (0: unknown); put writes a
 * piece, remembering the first error; close reports it and removes the
 * file when any write failed. */
typedef struct npy_out {
  int fd, err;
  bool regular; /* a regular file (reserved up front, removed on failure) */
  const char *path;
} npy_out;
int npy_out_open(npy_out *o, const char *path, uint64_t total, hlo_diags *d);
void npy_out_put(npy_out *o, const void *p, size_t n);
int npy_out_close(npy_out *o, hlo_diags *d);

/* Whether arr's bytes are already its .npy payload (no conversion). */
bool npy_direct(const hlo_array *arr);
/* The .npy header of arr (magic to the newline), appended to b. */
int npy_header_of(hlo_buf *b, const hlo_array *arr, hlo_diags *d);

/* The array of the .npy image at p: pointing into p (*viewed) when the
 * bytes already are the array (C order or rank < 2, host byte order, not
 * bool, data aligned for its C type), else converted into the arena. */
int npy_view(hlo_arena *a, const char *name, void *p, size_t len, const hlo_npy_opts *opts,
             hlo_array *out, bool *viewed, hlo_diags *d);
/* Map a regular file of at least 64 bytes privately (copy-on-write);
 * m->base stays NULL (and HLO_OK) for pipes, devices, tiny files or a
 * failed mmap, which the caller reads instead. */
int npy_map_file(const char *path, uint64_t max_len, hlo_npy_mapping *m, hlo_diags *d);

/* Effective byte limit of opts (default 1 TiB). */
uint64_t npy_max_bytes(const hlo_npy_opts *opts);

#endif
