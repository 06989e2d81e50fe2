/* replay_main.c - a main() for running a fuzz target without libFuzzer:
 * each argument is a file (or a directory of files) whose bytes are passed
 * once to LLVMFuzzerTestOneInput.  Used by the test suite to replay the
 * regression inputs in testdata/fuzz/<target>/. */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      uint8_t *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "replay: out of memory reading %s\n", path);
    return 1;
  }
  /* an exact-size copy, so ASan sees reads past the end of the input */
  uint8_t *exact = malloc(len ? len : 1);
  if (!exact) {
    free(buf);
    return 1;
  }
  memcpy(exact, buf, len);
  free(buf);
  LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, int *count) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: cannot stat %s\n", path);
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    (*count)++;
    return run_file(path);
  }
  DIR *dir = opendir(path);
  if (!dir) return 1;
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(dir))) {
    if (e->d_name[0] == '.') continue;
    char **nn = realloc(names, (n + 1) * sizeof *names);
    if (!nn) break;
    names = nn;
    size_t l = strlen(path) + strlen(e->d_name) + 2;
    names[n] = malloc(l);
    if (!names[n]) break;
    snprintf(names[n++], l, "%s/%s", path, e->d_name);
  }
  closedir(dir);
  if (n) qsort(names, n, sizeof *names, cmp_str);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    rc |= run_path(names[i], count);
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  int rc = 0, count = 0;
  for (int i = 1; i < argc; i++) rc |= run_path(argv[i], &count);
  printf("replayed %d input%s\n", count, count == 1 ? "" : "s");
  return rc;
}
