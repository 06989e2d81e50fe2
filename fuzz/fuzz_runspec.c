/* fuzz_runspec.c - fuzz target: the RUN.yaml reader of hlo-run --spec.
 * The reader lives in cmd/common/run_spec.c (not in libhlo) and reads a
 * path, so the input is written to a temporary file first. */
#include <unistd.h>

#include "common/run_spec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > FUZZ_MAX_INPUT) return 0;
  char path[] = "/tmp/hlo-fuzz-spec-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return 0;
  size_t off = 0;
  while (off < size) {
    ssize_t w = write(fd, data + off, size - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  close(fd);
  run_spec s;
  char err[512];
  err[0] = 0;
  int rc = run_spec_load(path, &s, err, sizeof err);
  unlink(path);
  if (rc == 0) {
    FUZZ_CHECK(s.module != NULL, "spec accepted without a module");
    FUZZ_CHECK(s.iterations >= 1, "iterations %d", s.iterations);
    for (int i = 0; i < s.ninputs; i++) FUZZ_CHECK(s.inputs[i].text || s.inputs[i].kind == RS_RANDOM, "input %d without text", i);
    for (int i = 0; i < s.noutputs; i++) FUZZ_CHECK(s.outputs[i].text, "output %d without text", i);
    run_spec_free(&s);
  } else {
    FUZZ_CHECK(err[0] != 0, "spec rejected without a message");
    FUZZ_CHECK(memchr(err, 0, sizeof err) != NULL, "message not terminated");
  }
  return 0;
}
