/* cli_dump.c - dump folders on the command line of every tool: the shared
 * --module/--stage/--list options, directory arguments resolved to module
 * files, and the module table of hlo-ls (see cli_dump.h). */
#include "cli_dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dumpdir.h"
#include "hlo/hlo_exec.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"

/* The shared options of this process (cmd/ only: one command line). */
static struct {
  const char *module, *stage;
  bool list, expanded, disabled;
  char **files; /* the expanded file list */
  char **kept;  /* names of the module files hlo-ls lists, kept to the end */
  int nkept;
  dump_list *lists;
  int nlists;
} PICK;

void cli_dump_disable(void) { PICK.disabled = true; }

void cli_dump_help(void) {
  if (PICK.disabled) return;
  printf("  %-26s %s\n", "    --module NAME|NUMBER", "in a dump folder, the modules of this number or name (glob)");
  printf("  %-26s %s\n", "    --stage STAGE", "in a dump folder, the modules of this stage or pass (glob)");
  printf("  %-26s %s\n", "    --list", "print the table of the modules in the dump folders given and exit");
}

int cli_dump_option(const cli_tool *t, int argc, char **argv, int i) {
  const char *a = argv[i];
  if (PICK.disabled) return 0;
  if (strcmp(a, "--list") == 0) {
    PICK.list = true;
    return 1;
  }
  const char *names[] = {"--module", "--stage"};
  const char **slots[] = {&PICK.module, &PICK.stage};
  for (int k = 0; k < 2; k++) {
    size_t n = strlen(names[k]);
    if (strncmp(a, names[k], n) != 0) continue;
    if (a[n] == '=') {
      *slots[k] = a + n + 1;
      return 1;
    }
    if (a[n]) continue;
    if (i + 1 >= argc) cli_usage_error(t, "option '%s' needs an argument", names[k]);
    *slots[k] = argv[i + 1];
    return 2;
  }
  return 0;
}

bool cli_dump_expanded(void) { return PICK.expanded; }

static _Noreturn void out_of_memory(const cli_tool *t) {
  cli_errorf(t, "out of memory");
  exit(CLI_USAGE);
}

/* Scan dir (a usage error when it cannot be read); the list stays alive. */
static dump_list *scan(const cli_tool *t, const char *dir) {
  dump_list *nl = realloc(PICK.lists, sizeof *nl * (size_t)(PICK.nlists + 1));
  if (!nl) out_of_memory(t);
  PICK.lists = nl;
  dump_list *l = &nl[PICK.nlists];
  if (dump_scan(dir, l)) {
    if (errno == ENOMEM) out_of_memory(t);
    cli_errorf(t, "cannot read %s: %s", dir, strerror(errno));
    exit(CLI_USAGE);
  }
  PICK.nlists++;
  return l;
}

static int npicked(const dump_list *l) {
  int n = 0;
  for (int i = 0; i < l->n; i++) n += dump_matches(&l->v[i], PICK.module, PICK.stage);
  return n;
}

/* The usage error for a folder in which the picks choose no module or (for a
 * tool that reads one) several: the candidates, then exit 2. */
static _Noreturn void no_pick(const cli_tool *t, const char *dir, const dump_list *l, int n) {
  if (!l->n) {
    cli_errorf(t, "%s holds no HLO module text (XLA writes module_NNNN.NAME.STAGE.txt with "
               "--xla_dump_hlo_as_text)", dir);
    exit(CLI_USAGE);
  }
  if (n) cli_errorf(t, "%s: %d modules match; pick one with --module NAME|NUMBER and --stage STAGE:", dir, n);
  else cli_errorf(t, "%s: no module matches%s%s%s%s; the folder holds:", dir, PICK.module ? " --module " : "",
                  PICK.module ? PICK.module : "", PICK.stage ? " --stage " : "", PICK.stage ? PICK.stage : "");
  for (int i = 0; i < l->n; i++)
    if (!n || dump_matches(&l->v[i], PICK.module, PICK.stage))
      fprintf(stderr, "  %04d  %s  %s  (%s)\n", l->v[i].number, l->v[i].name, l->v[i].stage, l->v[i].file);
  exit(CLI_USAGE);
}

char **cli_dump_expand(const cli_tool *t, char **files, int *n) {
  if (PICK.list) exit(cli_dump_table(t, files, *n, false));
  bool any = false;
  for (int i = 0; i < *n; i++) any |= dump_is_dir(files[i]);
  if (!any) return files;
  int cap = 0, m = 0;
  char **out = NULL;
  for (int i = 0; i < *n; i++) {
    int add = 1;
    dump_list *l = NULL;
    if (dump_is_dir(files[i])) {
      l = scan(t, files[i]);
      add = npicked(l);
      if (!add) no_pick(t, files[i], l, 0);
      if (add > 1) PICK.expanded = true;
    }
    if (m + add > cap) {
      cap = 2 * (m + add);
      char **no = realloc(out, sizeof *no * (size_t)cap);
      if (!no) out_of_memory(t);
      out = no;
    }
    if (!l) out[m++] = files[i];
    else
      for (int k = 0; k < l->n; k++)
        if (dump_matches(&l->v[k], PICK.module, PICK.stage)) out[m++] = l->v[k].path;
  }
  PICK.files = out;
  *n = m;
  return out;
}

const char *cli_dump_resolve(const cli_tool *t, const char *path) {
  if (PICK.list) {
    char *one[] = {(char *)path};
    exit(cli_dump_table(t, one, 1, false));
  }
  if (!dump_is_dir(path)) return path;
  dump_list *l = scan(t, path);
  int n = npicked(l);
  if (n != 1) no_pick(t, path, l, n);
  for (int k = 0; k < l->n; k++)
    if (dump_matches(&l->v[k], PICK.module, PICK.stage)) return l->v[k].path;
  return path; /* not reached: n == 1 */
}

/* Bytes of the leaves of a shape; -1 when unbounded or too large. */
static int64_t shape_bytes(const hlo_shape *s) {
  if (s->type == HLO_TUPLE) {
    int64_t sum = 0;
    for (int i = 0; i < s->ntuple; i++) {
      int64_t b = shape_bytes(&s->tuple[i]);
      if (b < 0 || sum > INT64_MAX - b) return -1;
      sum += b;
    }
    return sum;
  }
  if (!hlo_type_is_array(s->type)) return 0;
  int64_t b;
  return hlo_shape_bytes(s, &b) ? b : -1;
}

/* One row of the table. */
typedef struct row {
  char number[16], instrs[24], bytes[24];
  const char *name, *stage, *file;
  char *runnable;
} row;

/* The first error of d as one line ("no: why"); NULL when out of memory. */
static char *why_not(const hlo_diags *d) {
  const char *msg = "cannot be planned";
  for (int i = 0; i < d->n; i++)
    if (d->v[i].sev == HLO_SEV_ERROR && d->v[i].msg) {
      msg = d->v[i].msg;
      break;
    }
  size_t n = strcspn(msg, "\n");
  char *s = malloc(n + 5);
  if (s) snprintf(s, n + 5, "no: %.*s", (int)n, msg);
  return s;
}

/* Parse, count and plan the module in path into r. */
static void fill_row(const cli_tool *t, const char *path, row *r) {
  cli_input in;
  snprintf(r->instrs, sizeof r->instrs, "?");
  snprintf(r->bytes, sizeof r->bytes, "?");
  if (cli_read(t, path, &in)) {
    r->runnable = strdup("no: cannot be read");
    return;
  }
  hlo_diags d;
  hlo_diags_init(&d, NULL);
  size_t next, end = hlo_module_chunk_end(&in.src, 0, &next);
  hlo_module *m = hlo_parse_module(&in.src, 0, end, NULL, &d, NULL);
  if (m && hlo_shape_fill_omitted(m, &d, &in.src) == HLO_OK) {
    long long ni = 0;
    for (int c = 0; c < m->ncomps; c++) ni += m->comps[c]->ninstrs;
    snprintf(r->instrs, sizeof r->instrs, "%lld", ni);
    int64_t pb = 0;
    for (int p = 0; m->entry && p < m->entry->nparams && pb >= 0; p++) {
      int64_t b = m->entry->params[p] ? shape_bytes(&m->entry->params[p]->shape) : 0;
      pb = b < 0 || pb > INT64_MAX - b ? -1 : pb + b;
    }
    if (pb >= 0) snprintf(r->bytes, sizeof r->bytes, "%lld", (long long)pb);
    hlo_exec_options eo = {0};
    eo.threads = 1;
    hlo_exec *e = hlo_exec_new(m, &eo, NULL, &d);
    r->runnable = e ? strdup("yes") : why_not(&d);
    hlo_exec_free(e);
  } else {
    r->runnable = why_not(&d);
  }
  hlo_module_free(m);
  hlo_diags_release(&d);
  cli_input_release(&in);
}

int cli_dump_table(const cli_tool *t, char **paths, int n, bool paths_only) {
  int rc = CLI_OK, nrows = 0;
  row *rows = NULL;
  PICK.list = false; /* the rows read their files through cli_read */
  for (int i = 0; i < n; i++) {
    dump_list one = {0}, *l = &one;
    dump_entry fe = {0};
    if (dump_is_dir(paths[i])) {
      l = scan(t, paths[i]);
      if (!l->n) {
        cli_errorf(t, "%s holds no HLO module text", paths[i]);
        rc = CLI_USAGE;
        continue;
      }
    } else { /* a module file of its own: no number, no stage */
      FILE *f = fopen(paths[i], "rb");
      if (!f) {
        cli_errorf(t, "cannot read %s: %s", paths[i], strerror(errno));
        rc = CLI_USAGE;
        continue;
      }
      fclose(f);
      fe.name = dump_module_name(paths[i]);
      fe.path = paths[i];
      fe.file = paths[i];
      fe.number = -1;
      one.v = &fe;
      one.n = 1;
    }
    row *nr = realloc(rows, sizeof *nr * (size_t)(nrows + l->n));
    if (!nr) out_of_memory(t);
    rows = nr;
    for (int k = 0; k < l->n; k++) {
      const dump_entry *e = &l->v[k];
      if (e->number >= 0 && !dump_matches(e, PICK.module, PICK.stage)) continue;
      row *r = &rows[nrows++];
      memset(r, 0, sizeof *r);
      r->file = e->path;
      if (paths_only) continue;
      if (e->number >= 0) snprintf(r->number, sizeof r->number, "%04d", e->number);
      else snprintf(r->number, sizeof r->number, "-");
      r->name = e->name ? e->name : "-";
      r->stage = e->stage ? e->stage : "-";
      fill_row(t, e->path, r);
      if (!r->runnable) out_of_memory(t);
    }
    if (l == &one && fe.name) { /* the row keeps its name until printed */
      char **keep = realloc(PICK.kept, sizeof *keep * (size_t)(PICK.nkept + 1));
      if (!keep) out_of_memory(t);
      PICK.kept = keep;
      keep[PICK.nkept++] = fe.name;
    }
  }
  int w[5] = {6, 4, 5, 6, 11};
  for (int i = 0; i < nrows && !paths_only; i++) {
    const char *cols[5] = {rows[i].number, rows[i].name, rows[i].stage, rows[i].instrs, rows[i].bytes};
    for (int c = 0; c < 5; c++)
      if ((int)strlen(cols[c]) > w[c]) w[c] = (int)strlen(cols[c]);
  }
  if (!paths_only && nrows)
    printf("%-*s  %-*s  %-*s  %*s  %*s  %s\n", w[0], "NUMBER", w[1], "NAME", w[2], "STAGE", w[3], "INSTRS", w[4],
           "PARAM-BYTES", "RUNNABLE");
  for (int i = 0; i < nrows; i++) {
    row *r = &rows[i];
    if (paths_only) printf("%s\n", r->file);
    else
      printf("%-*s  %-*s  %-*s  %*s  %*s  %s\n", w[0], r->number, w[1], r->name, w[2], r->stage, w[3], r->instrs,
             w[4], r->bytes, r->runnable);
    free(r->runnable);
  }
  free(rows);
  if (fflush(stdout) != 0) {
    cli_errorf(t, "cannot write to standard output: %s", strerror(errno));
    rc = CLI_USAGE;
  }
  return rc;
}
