/* ccall_cli.c - hlo-run's custom-call definitions: --custom-call
 * TARGET=FILE.hlo (a module run in the target's place), TARGET=identity and
 * TARGET=zeros (stubs, reported on stderr at every run since their values
 * are not the target's), and --list-custom-calls (the built-in table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccall_cli.h"
#include "hlo/hlo_shape_infer.h"
#include "hlo/hlo_text.h"

void ccall_cli_add(const cli_tool *t, ccall_cli *c, const char *arg) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || !eq[1])
    cli_usage_error(t, "--custom-call takes TARGET=FILE.hlo, TARGET=identity or TARGET=zeros, not '%s'", arg);
  if (c->n >= CCALL_CLI_MAX) cli_usage_error(t, "more than %d --custom-call options", CCALL_CLI_MAX);
  c->spec[c->n++] = arg;
}

int ccall_cli_load(const cli_tool *t, ccall_cli *c, hlo_diags *d) {
  for (int i = 0; i < c->n; i++) {
    const char *arg = c->spec[i], *eq = strchr(arg, '=');
    hlo_ccall_user *u = &c->user[i];
    char *target = strndup(arg, (size_t)(eq - arg));
    if (!target) {
      cli_errorf(t, "out of memory");
      return CLI_INVALID;
    }
    u->target = target;
    const char *v = eq + 1;
    if (!strcmp(v, "identity") || !strcmp(v, "zeros")) {
      u->kind = v[0] == 'i' ? HLO_CCALL_IDENTITY : HLO_CCALL_ZEROS;
      fprintf(stderr, "%s: warning: custom call \"%s\" is stubbed with %s: its results are %s, "
              "not what the target computes\n", t->prog, target, v,
              u->kind == HLO_CCALL_IDENTITY ? "its first operand" : "zeros");
      continue;
    }
    u->kind = HLO_CCALL_MODULE;
    if (cli_read(t, v, &c->input[i])) return CLI_USAGE; /* an I/O error */
    size_t next, end = hlo_module_chunk_end(&c->input[i].src, 0, &next);
    c->module[i] = hlo_parse_module(&c->input[i].src, 0, end, NULL, d, NULL);
    if (!c->module[i] || hlo_shape_fill_omitted(c->module[i], d, &c->input[i].src) != HLO_OK) {
      cli_print_diags(d);
      return CLI_INVALID;
    }
    u->module = c->module[i];
    u->src = &c->input[i].src;
  }
  return CLI_OK;
}

void ccall_cli_release(ccall_cli *c) {
  for (int i = 0; i < c->n; i++) {
    free((char *)c->user[i].target);
    hlo_module_free(c->module[i]);
    if (c->input[i].data) cli_input_release(&c->input[i]);
  }
}

int ccall_cli_list(void) {
  const hlo_ccall_info *r;
  for (int i = 0; (r = hlo_ccall_builtin(i)) != NULL; i++)
    printf("%s\n    %s\n    source: %s\n", r->target, r->meaning, r->source);
  return CLI_OK;
}
