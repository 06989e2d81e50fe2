/* imap_listing.c - reads a whole indexing listing (`operand id = N` blocks
 * of maps, `unknown indexing`, XLA's `replica id:` maps and its `runtime
 * variables:` notes, which are skipped) and compares two indexings by
 * meaning, block by block, as sets of maps. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "hlo/hlo_imap.h"
#include "index/imap_internal.h"
#include "index/imap_ops.h"

static void skip_ws(const char *s, size_t len, size_t *p) {
  while (*p < len && isspace((unsigned char)s[*p])) (*p)++;
}

static bool starts(const char *s, size_t len, size_t p, const char *w) {
  size_t n = strlen(w);
  return len - p >= n && memcmp(s + p, w, n) == 0;
}

/* `rt<digits>:` at p: an entry of a `runtime variables:` section. */
static bool rtvar_entry(const char *s, size_t len, size_t p) {
  if (!starts(s, len, p, "rt")) return false;
  p += 2;
  size_t q = p;
  while (q < len && isdigit((unsigned char)s[q])) q++;
  return q > p && q < len && s[q] == ':';
}

int imap_parse_indexing(imap_ctx *c, const char *s, size_t len, imap_indexing *out, char *err, size_t errn,
                        size_t *errpos) {
  int cap = 8;
  out->n = 0;
  out->sets = imap_alloc(c, (size_t)cap, sizeof *out->sets);
  if (!out->sets) return HLO_ERR;
  size_t p = 0;
  int cur = -1;
  bool in_rt = false;
  for (;;) {
    skip_ws(s, len, &p);
    if (p >= len) break;
    bool label = starts(s, len, p, "operand id");
    if (label || cur < 0) {
      if (out->n == cap) {
        imap_set *ns = imap_alloc(c, (size_t)cap * 2, sizeof *ns);
        if (!ns) return HLO_ERR;
        memcpy(ns, out->sets, (size_t)cap * sizeof *ns);
        out->sets = ns;
        cap *= 2;
      }
      cur = out->n++;
    }
    if (label) {
      in_rt = false;
      p += strlen("operand id");
      skip_ws(s, len, &p);
      if (p < len && s[p] == '=') p++;
      skip_ws(s, len, &p);
      while (p < len && isdigit((unsigned char)s[p])) p++;
      continue;
    }
    if (starts(s, len, p, "unknown indexing")) {
      p += strlen("unknown indexing");
      if (imap_set_add(c, &out->sets[cur], imap_map_undefined(c))) return HLO_ERR;
      continue;
    }
    if (starts(s, len, p, "runtime variables:")) {
      p += strlen("runtime variables:");
      in_rt = true;
      continue;
    }
    if (starts(s, len, p, "replica id:")) {
      /* the replica map belongs to the map before it */
      p += strlen("replica id:");
      in_rt = false;
      imap_set *set = &out->sets[cur];
      imap_map *r = imap_parse_map(c, s, len, &p, err, errn);
      if (!r || !set->n) {
        if (r) snprintf(err, errn, "'replica id:' without a map before it");
        if (errpos) *errpos = p;
        return HLO_ERR;
      }
      set->v[set->n - 1]->replica = r;
      continue;
    }
    /* `rtN: <instruction>; <map>`, the map in any layout */
    if (in_rt && rtvar_entry(s, len, p)) {
      while (p < len && s[p] != ';') p++;
      if (p < len) p++;
      if (!imap_parse_map(c, s, len, &p, err, errn)) {
        if (errpos) *errpos = p;
        return HLO_ERR;
      }
      continue;
    }
    in_rt = false;
    imap_map *m = imap_parse_map(c, s, len, &p, err, errn);
    if (!m) {
      if (errpos) *errpos = p;
      return HLO_ERR;
    }
    if (imap_set_add(c, &out->sets[cur], m)) return HLO_ERR;
  }
  return HLO_OK;
}

int imap_indexing_equal(const imap_indexing *a, const imap_indexing *b, char *why, size_t whyn) {
  char tmp[256];
  if (a->n != b->n) {
    snprintf(why, whyn, "%d blocks vs %d blocks", a->n, b->n);
    return 0;
  }
  for (int k = 0; k < a->n; k++) {
    for (int dir = 0; dir < 2; dir++) {
      const imap_set *x = dir ? &b->sets[k] : &a->sets[k], *y = dir ? &a->sets[k] : &b->sets[k];
      for (int i = 0; i < x->n; i++) {
        int best = 0;
        for (int j = 0; j < y->n && best != 1; j++) {
          int r = imap_equal_meaning(x->v[i], y->v[j], tmp, sizeof tmp);
          const imap_map *xr = x->v[i]->replica, *yr = y->v[j]->replica;
          if (r == 1 && (xr || yr)) { /* and the same replica map */
            if (!xr || !yr) {
              snprintf(tmp, sizeof tmp, "only one side has a replica id map");
              r = 0;
            } else {
              r = imap_equal_meaning(xr, yr, tmp, sizeof tmp);
            }
          }
          if (r == 1 || (r < 0 && best == 0)) best = r;
        }
        if (best != 1) {
          snprintf(why, whyn, "block %d: map %d of the %s listing has %s in the other%s%s", k, i,
                   dir ? "second" : "first", best < 0 ? "no decidable match" : "no equal map",
                   y->n == 1 ? ": " : "", y->n == 1 ? tmp : "");
          return best < 0 ? -1 : 0;
        }
      }
    }
  }
  return 1;
}
