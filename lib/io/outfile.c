/* outfile.c - writing an output file from pieces that stay where they lie:
 * the file's length reserved up front (fallocate, keeping the size, as
 * numpy.save does: a file rewritten after truncation is otherwise flushed
 * to disk on close by ext4's delayed-allocation safeguard, a third of a
 * second per gigabyte), each piece handed to write(2) straight from its
 * buffer with no stdio staging, and a regular file removed again when any
 * write fails, so no half-written output is left behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/npy_internal.h"

int npy_out_open(npy_out *o, const char *path, uint64_t total, hlo_diags *d) {
  o->path = path;
  o->err = 0;
  o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (o->fd < 0) return hlo_errorf(d, NULL, 0, "%s: cannot create: %s", path, strerror(errno));
  struct stat st;
  o->regular = fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!o->regular) return HLO_OK; /* a pipe or a device: written as it is */
#ifdef FALLOC_FL_KEEP_SIZE
  /* advice only: a file system without fallocate still takes the writes */
  if (total > 0 && total <= (uint64_t)INT64_MAX)
    (void)fallocate(o->fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)total);
#else
  (void)total;
#endif
  return HLO_OK;
}

void npy_out_put(npy_out *o, const void *p, size_t n) {
  const char *c = p;
  while (n && !o->err) {
    /* Linux moves at most 0x7ffff000 bytes per call */
    size_t k = n > (1u << 30) ? (1u << 30) : n;
    ssize_t w = write(o->fd, c, k);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      o->err = w < 0 ? errno : EIO;
      break;
    }
    c += w;
    n -= (size_t)w;
  }
}

int npy_out_close(npy_out *o, hlo_diags *d) {
  if (close(o->fd) != 0 && !o->err) o->err = errno;
  o->fd = -1;
  if (!o->err) return HLO_OK;
  if (o->regular) (void)unlink(o->path);
  return hlo_errorf(d, NULL, 0, "%s: write error: %s", o->path, strerror(o->err));
}
