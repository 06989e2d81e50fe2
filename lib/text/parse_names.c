/* parse_names.c - names of instructions written without one (nested
 * operands: "<opcode>.anon"; compact get-tuple-elements `p#1`: "p_1"),
 * made as XLA's parser makes them: the name passed
 * through the module's name uniquer (xla/service/name_uniquer.cc), in
 * which every named instruction was registered before, in text order. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/scan.h"

typedef struct uniquer {
  hlo_arena *a;
  hlo_strmap next; /* root -> next id to try (int64_t *) */
  hlo_strmap used; /* "root\x1fid" -> non-NULL */
} uniquer;

/* Register id under root; if taken, the smallest free id from the root's
 * counter on (NameUniquer's SequentialIdGenerator).  -1 on failure. */
static int take_id(uniquer *u, const char *root, int64_t id, int64_t *out) {
  int64_t *next = hlo_strmap_get(&u->next, root);
  if (!next) {
    const char *k = hlo_arena_strdup(u->a, root);
    if (!k || !(next = hlo_arena_alloc(u->a, sizeof *next)) || hlo_strmap_put(&u->next, k, next, NULL)) return -1;
  }
  for (bool first = true;; first = false) {
    int64_t want = first ? id : (*next)++;
    char key[600];
    if (snprintf(key, sizeof key, "%s\x1f%" PRId64, root, want) >= (int)sizeof key) {
      *out = want; /* a name too long to track: leave it as it is */
      return 0;
    }
    if (hlo_strmap_get(&u->used, key)) continue;
    const char *k = hlo_arena_strdup(u->a, key);
    if (!k || hlo_strmap_put(&u->used, k, (void *)1, NULL)) return -1;
    *out = want;
    return 0;
  }
}

/* NameUniquer::GetUniqueName(name): the name to use, in arena ir (or
 * NULL on allocation failure). */
static const char *unique_name(uniquer *u, hlo_arena *ir, const char *name) {
  size_t n = strlen(name);
  const char *dot = strrchr(name, '.');
  bool suffixed = false;
  int64_t id = 0;
  size_t rootlen = n;
  if (dot && dot > name && dot[1]) {
    char *end;
    long long v = strtoll(dot + 1, &end, 10);
    if (!*end && (dot[1] == '-' || dot[1] == '+' || (dot[1] >= '0' && dot[1] <= '9'))) {
      suffixed = true;
      id = v;
      rootlen = (size_t)(dot - name);
    }
  }
  char *root = hlo_arena_strndup(u->a, name, rootlen);
  int64_t got;
  if (!root || take_id(u, root, id, &got)) return NULL;
  if (got == 0 && !suffixed) return root == NULL ? NULL : hlo_arena_strdup(ir, root);
  char buf[64];
  snprintf(buf, sizeof buf, ".%" PRId64, got);
  char *r = hlo_arena_alloc(ir, rootlen + strlen(buf) + 1);
  if (r) {
    memcpy(r, root, rootlen);
    strcpy(r + rootlen, buf);
  }
  return r;
}

static int ptr_cmp(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
  return x < y ? -1 : x > y;
}

int scan_name_anonymous(hlo_arena *scratch, hlo_arena *ir, hlo_computation **comps, int ncomps,
                        hlo_instruction **anon, int nanon, hlo_computation *const *skip, int nskip) {
  uniquer u = {.a = scratch};
  hlo_strmap_init(&u.next, scratch);
  hlo_strmap_init(&u.used, scratch);
  qsort(anon, (size_t)nanon, sizeof *anon, ptr_cmp);
  for (int ci = 0; ci < ncomps; ci++) {
    bool made = false; /* computations the parser made itself register nothing */
    for (int k = 0; k < nskip; k++) made |= skip[k] == comps[ci];
    if (made) continue;
    for (int i = 0; i < comps[ci]->ninstrs; i++) {
      hlo_instruction *in = comps[ci]->instrs[i];
      if (bsearch(&in, anon, (size_t)nanon, sizeof *anon, ptr_cmp)) {
        char want[512];
        if (strchr(in->name, '#')) { /* a compact get-tuple-element: p#1#0 -> p_1_0 */
          snprintf(want, sizeof want, "%s", in->name);
          for (char *c = want; *c; c++)
            if (*c == '#') *c = '_';
        } else {
          snprintf(want, sizeof want, "%s.anon", hlo_opcode_name(in->op));
        }
        const char *nm = unique_name(&u, ir, want);
        if (!nm) return HLO_ERR;
        in->name = nm;
      } else if (!unique_name(&u, scratch, in->name)) {
        return HLO_ERR;
      }
    }
  }
  return HLO_OK;
}
