/* cli.c - shared command-line plumbing for the hlo-* tools (see cli.h). */
#include "cli.h"
#include "cli_dump.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void print_help(const cli_tool *t) {
  printf("Usage: %s %s\n%s\n\nOptions:\n", t->prog, t->synopsis, t->summary);
  for (const cli_opt *o = t->opts; o && o->name; o++) {
    char left[96], sh[8] = "    ";
    const char *mv = o->metavar ? o->metavar : "ARG";
    if (o->short_name) snprintf(sh, sizeof sh, "-%c, ", o->short_name);
    if (o->arg == 1) snprintf(left, sizeof left, "%s--%s %s", sh, o->name, mv);
    else if (o->arg == 2) snprintf(left, sizeof left, "%s--%s[=%s]", sh, o->name, mv);
    else snprintf(left, sizeof left, "%s--%s", sh, o->name);
    if (strlen(left) >= 26) /* a long option gets its help on the next line */
      printf("  %s\n  %-26s %s\n", left, "", o->help);
    else
      printf("  %-26s %s\n", left, o->help);
  }
  cli_dump_help();
  printf("  %-26s %s\n", "-h, --help", "show this help and exit");
  printf("  %-26s %s\n", "    --version", "show the version and exit");
  if (t->epilog) printf("\n%s\n", t->epilog);
  if (!t->epilog || !strstr(t->epilog, "Exit status"))
    printf("\nExit status: 0 success, 1 invalid input, 2 usage or I/O error.\n");
}

void cli_usage_error(const cli_tool *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", t->prog);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry '%s --help' for more information.\n", t->prog);
  exit(CLI_USAGE);
}

void cli_errorf(const cli_tool *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", t->prog);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

int cli_parse(const cli_tool *t, int argc, char **argv,
              int (*on_opt)(int idx, const char *arg, void *ud), void *ud, int *npos_out) {
  int npos = 0;
  bool only_pos = false;
  char **pos = calloc((size_t)argc + 1, sizeof *pos);
  if (!pos) {
    cli_errorf(t, "out of memory");
    exit(CLI_USAGE);
  }
  for (int i = 1; i < argc; i++) {
    char *a = argv[i];
    if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
      pos[npos++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_pos = true;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      print_help(t);
      free(pos);
      exit(CLI_OK);
    }
    if (strcmp(a, "--version") == 0) {
      printf("%s (hlotools) %s\n", t->prog, HLO_VERSION);
      free(pos);
      exit(CLI_OK);
    }
    int idx = -1;
    const char *arg = NULL;
    int used = cli_dump_option(t, argc, argv, i);
    if (used) {
      i += used - 1;
      continue;
    }
    if (a[1] == '-') {
      const char *name = a + 2;
      const char *eq = strchr(name, '=');
      size_t n = eq ? (size_t)(eq - name) : strlen(name);
      for (int k = 0; t->opts[k].name; k++)
        if (strlen(t->opts[k].name) == n && strncmp(t->opts[k].name, name, n) == 0) idx = k;
      if (idx < 0) cli_usage_error(t, "unknown option '%s'", a);
      if (eq) {
        if (t->opts[idx].arg == 0) cli_usage_error(t, "option '--%s' takes no argument", t->opts[idx].name);
        arg = eq + 1;
      } else if (t->opts[idx].arg == 1) {
        if (i + 1 >= argc) cli_usage_error(t, "option '--%s' needs an argument", t->opts[idx].name);
        arg = argv[++i];
      }
    } else {
      for (int k = 0; t->opts[k].name; k++)
        if (t->opts[k].short_name && t->opts[k].short_name == a[1]) idx = k;
      if (idx < 0) cli_usage_error(t, "unknown option '%s'", a);
      if (t->opts[idx].arg == 1) {
        if (a[2]) arg = a + 2;
        else if (i + 1 < argc) arg = argv[++i];
        else cli_usage_error(t, "option '-%c' needs an argument", a[1]);
      } else if (a[2]) {
        cli_usage_error(t, "unknown option '%s'", a);
      }
    }
    int rc = on_opt(idx, arg, ud);
    if (rc) {
      free(pos);
      exit(rc);
    }
  }
  int first = argc - npos;
  for (int k = 0; k < npos; k++) argv[first + k] = pos[k];
  free(pos);
  *npos_out = npos;
  return first;
}

char **cli_files(const cli_tool *t, char **argv, int first, int npos, int *nfiles) {
  static char *stdin_only[] = {"-"};
  *nfiles = npos ? npos : 1;
  return npos ? cli_dump_expand(t, argv + first, nfiles) : stdin_only;
}

int cli_read(const cli_tool *t, const char *path, cli_input *in) {
  memset(in, 0, sizeof *in);
  path = cli_dump_resolve(t, path);
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    cli_errorf(t, "cannot read %s: %s", path, strerror(errno));
    return HLO_ERR;
  }
  size_t cap = 1 << 16, len = 0;
  struct stat st; /* a regular file is read with one allocation of its size */
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uint64_t)st.st_size < ((uint64_t)1 << 40))
    cap = (size_t)st.st_size + 2;
  char *data = malloc(cap);
  for (;;) {
    if (!data) {
      cli_errorf(t, "cannot read %s: out of memory", path);
      if (!is_stdin) fclose(f);
      return HLO_ERR;
    }
    size_t got = fread(data + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) break;
    if (len + 1 == cap) {
      char *nd = cap > ((size_t)1 << 40) ? NULL : realloc(data, cap * 2);
      if (!nd) free(data);
      data = nd;
      cap *= 2;
    }
  }
  bool err = ferror(f);
  if (!is_stdin) fclose(f);
  if (err) {
    cli_errorf(t, "cannot read %s: %s", path, strerror(errno));
    free(data);
    return HLO_ERR;
  }
  data[len] = 0;
  in->data = data;
  in->src.name = is_stdin ? "<stdin>" : path;
  in->src.text = data;
  in->src.len = len;
  return HLO_OK;
}

void cli_input_release(cli_input *in) {
  free(in->data);
  in->data = NULL;
}

void cli_print_diags(const hlo_diags *d) {
  hlo_buf b;
  hlo_buf_init(&b, NULL);
  /* locations counted on from the previous diagnostic: linear, not
   * quadratic, for many errors in one big file */
  const hlo_src *last = NULL;
  size_t last_off = 0;
  hlo_loc loc = {1, 1};
  for (int i = 0; i < d->n; i++) {
    const hlo_diag *g = &d->v[i];
    if (g->src) {
      if (g->src != last) last = g->src, last_off = 0, loc.line = loc.col = 1;
      loc = hlo_src_loc_from(g->src, g->off, last_off, loc);
      last_off = g->off > g->src->len ? g->src->len : g->off;
    }
    hlo_diag_render_loc(&b, g, loc);
  }
  if (d->max_errors && d->nerrors > d->max_errors)
    hlo_buf_printf(&b, "(%d more error%s not shown)\n", d->nerrors - d->max_errors,
                   d->nerrors - d->max_errors == 1 ? "" : "s");
  if (d->oom) hlo_buf_puts(&b, "error: out of memory while recording diagnostics\n");
  if (b.len) fwrite(b.data, 1, b.len, stderr);
  hlo_buf_release(&b);
}

int cli_write(const cli_tool *t, const char *path, const char *data, size_t len) {
  if (!path || strcmp(path, "-") == 0) {
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
      cli_errorf(t, "cannot write to standard output: %s", strerror(errno));
      return HLO_ERR;
    }
    return HLO_OK;
  }
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp) return HLO_ERR;
  snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    cli_errorf(t, "cannot write %s: %s", path, strerror(errno));
    free(tmp);
    return HLO_ERR;
  }
  bool ok = fwrite(data, 1, len, f) == len;
  ok &= fclose(f) == 0;
  if (!ok || rename(tmp, path) != 0) {
    cli_errorf(t, "cannot write %s: %s", path, strerror(errno));
    remove(tmp);
    free(tmp);
    return HLO_ERR;
  }
  free(tmp);
  return HLO_OK;
}

long long cli_int_arg(const cli_tool *t, const char *opt, const char *arg) {
  char *end;
  errno = 0;
  long long v = arg ? strtoll(arg, &end, 10) : -1;
  if (!arg || errno || *end || v < 0 || end == arg)
    cli_usage_error(t, "option '%s' needs a non-negative integer, not '%s'", opt, arg ? arg : "");
  return v;
}

int cli_each_module(const cli_input *in, int (*fn)(const cli_input *in, size_t begin, size_t end, bool first,
                                                   void *ud),
                    void *ud) {
  int rc = CLI_OK;
  size_t begin = 0;
  bool first = true;
  for (;;) {
    size_t next;
    size_t end = hlo_module_chunk_end(&in->src, begin, &next);
    if (!hlo_chunk_is_blank(&in->src, begin, end) || (first && next >= in->src.len)) {
      int frc = fn(in, begin, end, first, ud);
      if (frc && rc == CLI_OK) rc = frc;
      first = false;
    }
    if (next >= in->src.len) break;
    begin = next;
  }
  return rc;
}

int cli_finish(const cli_tool *t, const char *path, const hlo_buf *out, int rc) {
  if (out->failed) {
    cli_errorf(t, "out of memory");
    return CLI_USAGE;
  }
  if (rc == CLI_OK && cli_write(t, path, out->data ? out->data : "", out->len)) return CLI_USAGE;
  return rc;
}
