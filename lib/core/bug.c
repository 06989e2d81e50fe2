/* bug.c - hlo_bug: the one place the library writes to stderr, for internal
 * errors only (see bug.h); user errors always go through hlo_diags. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/bug.h"

void hlo_bug(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "BUG: %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(stderr);
  abort();
}
