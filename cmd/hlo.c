/* hlo - the front door of the hlo-* tools, as git is of git-*: `hlo TOOL
 * ARGS...` runs hlo-TOOL (next to this program first, then on PATH),
 * `hlo help` lists every tool found with the one-line purpose its --help
 * gives, `hlo help TOOL` opens its man page. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/cli_dump.h"

static const cli_opt OPTS[] = {{0}};

static const cli_tool TOOL = {
    "hlo", "TOOL [ARG]...",
    "Run the hlotools command hlo-TOOL with ARGs; 'hlo help' lists the tools, 'hlo help TOOL' shows a manual.",
    OPTS,
    "TOOL is looked up as hlo-TOOL beside this program first, then on PATH.\n"
    "Exit status: that of the tool; 2 for an unknown tool or a usage error."};

/* The directory of this program ("" if unknown). */
static void self_dir(char *dir, size_t n) {
  ssize_t k = readlink("/proc/self/exe", dir, n - 1);
  dir[k > 0 ? k : 0] = 0;
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else dir[0] = 0;
}

static bool is_exec_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A tool name: letters, digits, '-' and '_' (no path, no option). */
static bool valid_name(const char *s) {
  if (!*s || *s == '-') return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
          *s == '_' || *s == '.'))
      return false;
  return true;
}

/* Full path of hlo-NAME: beside this program, else the first on PATH. */
static bool find_tool(const char *name, char *out, size_t n) {
  char dir[PATH_MAX];
  self_dir(dir, sizeof dir);
  if (dir[0] && snprintf(out, n, "%s/hlo-%s", dir, name) < (int)n && is_exec_file(out)) return true;
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > 0 && snprintf(out, n, "%.*s/hlo-%s", (int)len, p, name) < (int)n && is_exec_file(out)) return true;
    p = end ? end + 1 : NULL;
  }
  return false;
}

/* ---- hlo help: the tools found, each with its purpose ---------------------- */
typedef struct tool_list {
  char **names;
  int n, cap;
} tool_list;

static void add_tools_of(tool_list *t, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "hlo-", 4) != 0 || !valid_name(e->d_name + 4)) continue;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path || !is_exec_file(path)) continue;
    bool seen = false;
    for (int i = 0; i < t->n && !seen; i++) seen = strcmp(t->names[i], e->d_name + 4) == 0;
    if (seen) continue;
    if (t->n == t->cap) {
      int cap = t->cap ? 2 * t->cap : 16;
      char **nv = realloc(t->names, sizeof *nv * (size_t)cap);
      if (!nv) break;
      t->names = nv, t->cap = cap;
    }
    char *s = strdup(e->d_name + 4);
    if (!s) break;
    t->names[t->n++] = s;
  }
  closedir(d);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The purpose line of a tool: the line after "Usage:" of its --help. */
static void purpose_of(const char *path, char *out, size_t n) {
  out[0] = 0;
  int fd[2];
  if (pipe(fd)) return;
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]), close(fd[1]);
    FILE *nul = freopen("/dev/null", "w", stderr);
    (void)nul;
    execl(path, path, "--help", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  char buf[4096];
  size_t len = 0;
  ssize_t k;
  while ((k = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0 && len + (size_t)k < sizeof buf - 1) len += (size_t)k;
  if (k > 0) len += (size_t)k;
  close(fd[0]);
  waitpid(pid, NULL, 0);
  buf[len] = 0;
  char *line = buf;
  if (strncmp(line, "Usage:", 6) == 0) line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + len;
  char *nl = strchr(line, '\n');
  if (nl) *nl = 0;
  size_t l = strlen(line);
  if (l >= n) l = n - 1;
  memcpy(out, line, l);
  out[l] = 0;
}

static int list_tools(void) {
  tool_list t = {0};
  char dir[PATH_MAX];
  self_dir(dir, sizeof dir);
  if (dir[0]) add_tools_of(&t, dir);
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > 0 && len < sizeof dir) {
      memcpy(dir, p, len);
      dir[len] = 0;
      add_tools_of(&t, dir);
    }
    p = end ? end + 1 : NULL;
  }
  if (t.n) qsort(t.names, (size_t)t.n, sizeof *t.names, cmp_str);
  printf("Usage: hlo TOOL [ARG]...\n\nThe hlotools found (beside hlo, then on PATH):\n");
  for (int i = 0; i < t.n; i++) {
    char p[PATH_MAX], purpose[1024];
    purpose[0] = 0;
    if (find_tool(t.names[i], p, sizeof p)) purpose_of(p, purpose, sizeof purpose);
    printf("  %-10s %s\n", t.names[i], purpose);
    free(t.names[i]);
  }
  free(t.names);
  printf("\n'hlo help TOOL' shows the manual of hlo-TOOL.\n");
  return fflush(stdout) == 0 ? CLI_OK : CLI_USAGE;
}

/* hlo help TOOL: the man page from the source tree (build/bin/../../man)
 * or the install prefix (bin/../share/man), else man's own search. */
static int show_manual(const char *name) {
  char p[PATH_MAX], dir[PATH_MAX], page[PATH_MAX];
  if (strcmp(name, "hlo") != 0 && !find_tool(name, p, sizeof p)) {
    cli_errorf(&TOOL, "'%s' is not an hlo tool. See 'hlo help'.", name);
    return CLI_USAGE;
  }
  char title[PATH_MAX];
  snprintf(title, sizeof title, strcmp(name, "hlo") == 0 ? "%s" : "hlo-%s", name);
  self_dir(dir, sizeof dir);
  const char *rel[] = {"../../man/man1", "../share/man/man1"};
  for (int i = 0; dir[0] && i < 2; i++)
    if (snprintf(page, sizeof page, "%s/%s/%s.1", dir, rel[i], title) < (int)sizeof page && access(page, R_OK) == 0) {
      fflush(stdout);
      execlp("man", "man", "-l", page, (char *)NULL);
      cli_errorf(&TOOL, "cannot run man: %s", strerror(errno));
      return CLI_USAGE;
    }
  fflush(stdout);
  execlp("man", "man", title, (char *)NULL);
  cli_errorf(&TOOL, "cannot run man: %s", strerror(errno));
  return CLI_USAGE;
}

static int on_opt(int idx, const char *arg, void *ud) {
  (void)idx, (void)arg, (void)ud;
  return 0;
}

int main(int argc, char **argv) {
  /* options of hlo itself come before the tool's name */
  int i = 1;
  cli_dump_disable(); /* the tool, not hlo, reads dump folders */
  if (i < argc && argv[i][0] == '-') {
    int npos; /* --help, --version or a usage error */
    char *only[] = {argv[0], argv[i], NULL};
    cli_parse(&TOOL, 2, only, on_opt, NULL, &npos);
    cli_usage_error(&TOOL, "unknown option '%s'", argv[i]);
  }
  if (i >= argc) cli_usage_error(&TOOL, "missing TOOL (try 'hlo help')");
  if (strcmp(argv[i], "help") == 0) {
    if (i + 1 >= argc) return list_tools();
    if (i + 2 < argc) cli_usage_error(&TOOL, "'hlo help' takes one TOOL");
    if (!valid_name(argv[i + 1])) cli_usage_error(&TOOL, "'%s' is not a tool name", argv[i + 1]);
    return show_manual(argv[i + 1]);
  }
  char path[PATH_MAX];
  if (!valid_name(argv[i]) || !find_tool(argv[i], path, sizeof path)) {
    cli_errorf(&TOOL, "'%s' is not an hlo tool. See 'hlo help'.", argv[i]);
    return CLI_USAGE;
  }
  char name[PATH_MAX];
  snprintf(name, sizeof name, "hlo-%s", argv[i]);
  argv[i] = name; /* the tool sees its own name as argv[0] */
  execv(path, argv + i);
  cli_errorf(&TOOL, "cannot run %s: %s", path, strerror(errno));
  return CLI_USAGE;
}
