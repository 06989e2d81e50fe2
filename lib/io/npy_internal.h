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

/* Effective byte limit of opts (default 1 TiB). */
uint64_t npy_max_bytes(const hlo_npy_opts *opts);

#endif
