/* bug.c - the one place the library writes to standard error: a BUG report
 * for an internal error (bug.h), just before it aborts. */
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
  abort();
}
