/* dumpdir.c - finds the module text files of an XLA dump folder and parses
 * their names the way XLA's dump.cc forms them (see dumpdir.h). */
#include "dumpdir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool dump_is_dir(const char *path) {
  struct stat st;
  return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

char *dump_module_name(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = buf;
  for (;;) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') p++;
      continue;
    }
    break;
  }
  if (strncmp(p, "HloModule", 9) != 0 || !isspace((unsigned char)p[9])) return NULL;
  p += 10;
  while (*p == ' ' || *p == '\t') p++;
  size_t len = strcspn(p, ", \t\r\n");
  if (!len || !p[len]) return NULL; /* no name, or cut off by the buffer */
  return strndup(p, len);
}

/* XLA's file-name form of a module name: '/', '\\', '[', ']' and ' '
 * become '_'. */
static void sanitize(char *s) {
  for (; *s; s++)
    if (strchr("/\\[] ", *s)) *s = '_';
}

/* Fill e's stage fields from the stage text. */
static void classify(dump_entry *e) {
  const char *s = e->stage;
  e->rank = 3;
  if (strcmp(s, "before_optimizations") == 0) {
    e->rank = 0;
  } else if (ends_with(s, "after_optimizations")) {
    e->rank = 2;
  } else if (isdigit((unsigned char)s[0])) { /* STEP.PIPELINE.after_A.before_B or STEP.PASS.STEP_NAME */
    char *dot;
    long step = strtol(s, &dot, 10);
    if (*dot != '.') return;
    e->rank = 1;
    e->step = step > 1000000000 ? 1000000000 : (int)step;
    const char *after = strstr(dot, ".after_");
    const char *before = after ? strstr(after + 7, ".before_") : NULL;
    if (after && before) e->pass = strndup(after + 7, (size_t)(before - after - 7));
    else if (strchr(dot + 1, '.')) e->pass = strndup(dot + 1, strcspn(dot + 1, "."));
  }
}

/* Parse file name fn of dir as a dump module; 0 if it is one (e filled),
 * 1 if not, -1 when out of memory. */
static int parse_entry(const char *dir, const char *fn, dump_entry *e) {
  memset(e, 0, sizeof *e);
  const char *p = fn;
  if (isdigit((unsigned char)*p)) { /* --xla_dump_include_timestamp prefix */
    while (isdigit((unsigned char)*p)) p++;
    if (*p++ != '.') return 1;
  }
  if (strncmp(p, "module_", 7) != 0 || !isdigit((unsigned char)p[7])) return 1;
  p += 7;
  long num = strtol(p, (char **)&p, 10);
  if (*p != '.' || !ends_with(fn, ".txt") || num > 1000000000) return 1;
  p++; /* p: [NAME.]STAGE.txt */
  size_t n = strlen(dir) + strlen(fn) + 2;
  e->path = malloc(n);
  if (!e->path) return -1;
  snprintf(e->path, n, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", fn);
  e->file = e->path + strlen(e->path) - strlen(fn);
  e->name = dump_module_name(e->path);
  if (!e->name) {
    free(e->path);
    e->path = NULL;
    return 1;
  }
  e->number = (int)num;
  char *safe = strdup(e->name);
  if (!safe) return -1;
  sanitize(safe);
  size_t sl = strlen(safe);
  if (strncmp(p, safe, sl) == 0 && p[sl] == '.') p += sl + 1; /* XLA drops a name that makes the file name too long */
  free(safe);
  if (strncmp(p, "cl_", 3) == 0 && strchr(p, '.')) p = strchr(p, '.') + 1; /* builds that stamp a changelist */
  e->stage = strndup(p, strlen(p) - 4);
  if (!e->stage) return -1;
  classify(e);
  return 0;
}

static void entry_release(dump_entry *e) {
  free(e->path);
  free(e->name);
  free(e->stage);
  free(e->pass);
}

static int entry_cmp(const void *pa, const void *pb) {
  const dump_entry *a = pa, *b = pb;
  if (a->number != b->number) return a->number < b->number ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  return strcmp(a->file, b->file);
}

int dump_scan(const char *dir, dump_list *out) {
  out->v = NULL;
  out->n = 0;
  DIR *d = opendir(dir);
  if (!d) return -1;
  int cap = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    dump_entry e;
    int r = parse_entry(dir, de->d_name, &e);
    if (r > 0) continue;
    if (r == 0 && out->n == cap) {
      dump_entry *nv = cap > (1 << 24) ? NULL : realloc(out->v, sizeof *nv * (size_t)(cap ? 2 * cap : 16));
      if (nv) out->v = nv, cap = cap ? 2 * cap : 16;
      else r = -1;
    }
    if (r < 0) {
      entry_release(&e);
      closedir(d);
      dump_list_release(out);
      errno = ENOMEM;
      return -1;
    }
    out->v[out->n++] = e;
  }
  closedir(d);
  if (out->n) qsort(out->v, (size_t)out->n, sizeof *out->v, entry_cmp);
  return 0;
}

void dump_list_release(dump_list *l) {
  for (int i = 0; i < l->n; i++) entry_release(&l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = 0;
}

bool dump_matches(const dump_entry *e, const char *module_pick, const char *stage_pick) {
  if (module_pick) {
    char *end;
    long num = strtol(module_pick, &end, 10);
    bool numeric = *module_pick && !*end && isdigit((unsigned char)*module_pick);
    if (numeric ? num != e->number : fnmatch(module_pick, e->name, 0) != 0) return false;
  }
  if (stage_pick) {
    const char *kind = e->rank == 0 ? "before_optimizations" : e->rank == 2 ? "after_optimizations" : NULL;
    bool hit = fnmatch(stage_pick, e->stage, 0) == 0 || (kind && fnmatch(stage_pick, kind, 0) == 0) ||
               (e->pass && fnmatch(stage_pick, e->pass, 0) == 0);
    if (!hit) return false;
  }
  return true;
}
