/* fuzz.h - what every fuzz target shares: the libFuzzer entry point, a
 * check that aborts with a message (so both libFuzzer and the plain replay
 * program report it as a crash), and the NUL-terminated copy of the input. */
#ifndef HLO_FUZZ_H
#define HLO_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                  \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz check failed at %s:%d: %s\n", __FILE__, __LINE__, \
              #cond);                                                          \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* Inputs larger than this are ignored (the targets look for logic errors,
 * not for quadratic behaviour on megabyte inputs). */
#define FUZZ_MAX_INPUT (64 * 1024)

#endif
