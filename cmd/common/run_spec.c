/* run_spec.c - reads the RUN.yaml spec of hlo-run --spec with libyaml's
 * document API into a run_spec (see run_spec.h). */
#include "run_spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static char *dupstr(const char *s) {
  size_t n = strlen(s);
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

/* path relative to the directory of the spec file */
static char *resolve(const char *spec, const char *p) {
  if (p[0] == '/') return dupstr(p);
  const char *slash = strrchr(spec, '/');
  size_t dl = slash ? (size_t)(slash - spec + 1) : 0;
  char *r = malloc(dl + strlen(p) + 1);
  if (!r) return NULL;
  memcpy(r, spec, dl);
  memcpy(r + dl, p, strlen(p) + 1);
  return r;
}

static const char *scalar(yaml_document_t *doc, yaml_node_t *n) {
  (void)doc;
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int fail(char *err, size_t len, yaml_node_t *n, const char *msg) {
  if (n) snprintf(err, len, "line %lu: %s", (unsigned long)n->start_mark.line + 1, msg);
  else snprintf(err, len, "%s", msg);
  return -1;
}

static bool num(const char *s, double *out) {
  char *end;
  if (!s || !*s) return false;
  *out = strtod(s, &end);
  return *end == 0 && isfinite(*out);
}

static int parse_list(const char *path, yaml_document_t *doc, yaml_node_t *seq, bool outputs,
                      run_src **out, int *nout, char *err, size_t len) {
  if (seq->type != YAML_SEQUENCE_NODE) return fail(err, len, seq, "expected a list");
  if (*out) return fail(err, len, seq, outputs ? "outputs: given twice" : "inputs: given twice");
  int n = (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
  *out = calloc((size_t)n + 1, sizeof(run_src));
  if (!*out) return fail(err, len, seq, "out of memory");
  *nout = n;
  for (int i = 0; i < n; i++) {
    yaml_node_t *it = yaml_document_get_node(doc, seq->data.sequence.items.start[i]);
    run_src *r = &(*out)[i];
    r->rtol = r->atol = -1;
    if (!it || it->type != YAML_MAPPING_NODE)
      return fail(err, len, it, "each entry must be a mapping (file:, inline: or random:)");
    bool have = false;
    for (yaml_node_pair_t *p = it->data.mapping.pairs.start; p < it->data.mapping.pairs.top; p++) {
      const char *k = scalar(doc, yaml_document_get_node(doc, p->key));
      yaml_node_t *vn = yaml_document_get_node(doc, p->value);
      const char *v = scalar(doc, vn);
      if (!k || !v) return fail(err, len, vn, "expected 'key: value'");
      if (have && (strcmp(k, "file") == 0 || strcmp(k, "inline") == 0 || strcmp(k, "random") == 0))
        return fail(err, len, vn, "entry has more than one of file:, inline:, random:");
      if (strcmp(k, "file") == 0) {
        r->kind = RS_FILE;
        r->text = resolve(path, v);
        have = true;
      } else if (strcmp(k, "inline") == 0) {
        r->kind = RS_INLINE;
        r->text = dupstr(v);
        have = true;
      } else if (strcmp(k, "random") == 0 && !outputs) {
        double d;
        if (!num(v, &d) || d < 0 || d >= 18446744073709551616.0)
          return fail(err, len, vn, "random: needs a seed in [0, 2^64)");
        r->kind = RS_RANDOM;
        r->seed = (uint64_t)d;
        have = true;
      } else if (outputs && strcmp(k, "rtol") == 0) {
        if (!num(v, &r->rtol) || r->rtol < 0) return fail(err, len, vn, "rtol: needs a number >= 0");
      } else if (outputs && strcmp(k, "atol") == 0) {
        if (!num(v, &r->atol) || r->atol < 0) return fail(err, len, vn, "atol: needs a number >= 0");
      } else {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown key '%s' in %s entry", k, outputs ? "an output" : "an input");
        return fail(err, len, vn, msg);
      }
      if ((r->kind == RS_FILE || r->kind == RS_INLINE) && have && !r->text)
        return fail(err, len, vn, "out of memory");
    }
    if (!have) return fail(err, len, it, "entry needs file:, inline: or random:");
  }
  return 0;
}

int run_spec_load(const char *path, run_spec *s, char *err, size_t len) {
  memset(s, 0, sizeof *s);
  s->iterations = 1;
  s->rtol = 1e-5;
  s->atol = 1e-6;
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, len, NULL, "cannot open the spec file");
  yaml_parser_t p;
  yaml_document_t doc;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_file(&p, f);
  int rc = 0;
  if (!yaml_parser_load(&p, &doc)) {
    snprintf(err, len, "line %lu: %s", (unsigned long)p.problem_mark.line + 1,
             p.problem ? p.problem : "YAML syntax error");
    yaml_parser_delete(&p);
    fclose(f);
    return -1;
  }
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root || root->type != YAML_MAPPING_NODE) {
    rc = fail(err, len, root, "the spec must be a mapping with module:, inputs:, outputs:");
    goto done;
  }
  for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top && !rc; pr++) {
    const char *k = scalar(&doc, yaml_document_get_node(&doc, pr->key));
    yaml_node_t *vn = yaml_document_get_node(&doc, pr->value);
    const char *v = scalar(&doc, vn);
    double d;
    if (!k) { rc = fail(err, len, vn, "keys must be plain words"); break; }
    if (strcmp(k, "module") == 0 && v) {
      if (s->module) { rc = fail(err, len, vn, "module: given twice"); break; }
      s->module = resolve(path, v);
      if (!s->module) rc = fail(err, len, vn, "out of memory");
    } else if (strcmp(k, "inputs") == 0) {
      rc = parse_list(path, &doc, vn, false, &s->inputs, &s->ninputs, err, len);
    } else if (strcmp(k, "outputs") == 0) {
      rc = parse_list(path, &doc, vn, true, &s->outputs, &s->noutputs, err, len);
    } else if (strcmp(k, "iterations") == 0 && num(v, &d) && d >= 1 && d <= 1e9) {
      s->iterations = (int)d;
    } else if (strcmp(k, "reference") == 0 && v) {
      s->reference = strcmp(v, "true") == 0 || strcmp(v, "yes") == 0;
    } else if (strcmp(k, "rtol") == 0 && num(v, &d) && d >= 0) {
      s->rtol = d;
    } else if (strcmp(k, "atol") == 0 && num(v, &d) && d >= 0) {
      s->atol = d;
    } else {
      char msg[160];
      snprintf(msg, sizeof msg, "unknown key or bad value for '%s'", k);
      rc = fail(err, len, vn, msg);
    }
  }
  if (!rc && !s->module) rc = fail(err, len, root, "module: is required");
  for (int i = 0; !rc && i < s->noutputs; i++) {
    if (s->outputs[i].rtol < 0) s->outputs[i].rtol = s->rtol;
    if (s->outputs[i].atol < 0) s->outputs[i].atol = s->atol;
  }
done:
  yaml_document_delete(&doc);
  yaml_parser_delete(&p);
  fclose(f);
  if (rc) run_spec_free(s);
  return rc;
}

void run_spec_free(run_spec *s) {
  for (int i = 0; i < s->ninputs; i++) free(s->inputs[i].text);
  for (int i = 0; i < s->noutputs; i++) free(s->outputs[i].text);
  free(s->inputs);
  free(s->outputs);
  free(s->module);
  memset(s, 0, sizeof *s);
}
