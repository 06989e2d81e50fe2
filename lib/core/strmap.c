/* strmap.c - open-addressing string -> pointer map stored in an arena.
 * Each slot keeps the key's hash, so probes compare strings only on a hash
 * match and growth never rehashes a key.  Growth leaves the old table in
 * the arena (freed with it). */
#include <string.h>

#include "hlo/hlo_core.h"

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 1099511628211ull;
  }
  return h | 1; /* never 0: 0 marks an empty slot */
}

void hlo_strmap_init(hlo_strmap *m, hlo_arena *arena) {
  memset(m, 0, sizeof *m);
  m->arena = arena;
}

static bool key_eq(const char *k, const char *s, size_t n) {
  return memcmp(k, s, n) == 0 && k[n] == 0;
}

static int grow(hlo_strmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  const char **keys = hlo_arena_array(m->arena, cap, sizeof *keys);
  void **vals = hlo_arena_array(m->arena, cap, sizeof *vals);
  uint64_t *hashes = hlo_arena_array(m->arena, cap, sizeof *hashes);
  if (!keys || !vals || !hashes) return HLO_ERR;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->hashes[i]) continue;
    size_t j = m->hashes[i] & (cap - 1);
    while (hashes[j]) j = (j + 1) & (cap - 1);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
    hashes[j] = m->hashes[i];
  }
  m->keys = keys;
  m->vals = vals;
  m->hashes = hashes;
  m->cap = cap;
  return HLO_OK;
}

int hlo_strmap_put(hlo_strmap *m, const char *key, void *val, void **old) {
  if (old) *old = NULL;
  if ((m->n + 1) * 4 > m->cap * 3 && grow(m)) return HLO_ERR;
  size_t n = strlen(key);
  uint64_t h = hash(key, n);
  size_t j = h & (m->cap - 1);
  while (m->hashes[j]) {
    if (m->hashes[j] == h && key_eq(m->keys[j], key, n)) {
      if (old) *old = m->vals[j];
      m->vals[j] = val;
      return HLO_OK;
    }
    j = (j + 1) & (m->cap - 1);
  }
  m->keys[j] = key;
  m->vals[j] = val;
  m->hashes[j] = h;
  m->n++;
  return HLO_OK;
}

void *hlo_strmap_getn(const hlo_strmap *m, const char *key, size_t n) {
  if (!m->cap) return NULL;
  uint64_t h = hash(key, n);
  size_t j = h & (m->cap - 1);
  while (m->hashes[j]) {
    if (m->hashes[j] == h && key_eq(m->keys[j], key, n)) return m->vals[j];
    j = (j + 1) & (m->cap - 1);
  }
  return NULL;
}

void *hlo_strmap_get(const hlo_strmap *m, const char *key) {
  return hlo_strmap_getn(m, key, strlen(key));
}
