/* strmap.c - open-addressing string -> pointer map stored in an arena.
 * A slot holds the key's hash, the key and the value together (one cache
 * line per probe); probes compare strings only on a hash match and growth
 * never rehashes a key.  Growth leaves the old table in the arena (freed
 * with it). */
#include <string.h>

#include "hlo/hlo_core.h"

/* Eight bytes at a time, multiply-xorshift mixing: names are short, and
 * this costs a few instructions per word instead of per byte. */
uint64_t hlo_strmap_hash(const char *s, size_t n) {
  const uint64_t K = 0x9e3779b97f4a7c15ull;
  uint64_t h = (uint64_t)n * K;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * K;
    h ^= h >> 29;
    s += 8;
    n -= 8;
  }
  if (n) {
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = (h ^ w) * K;
  }
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  h ^= h >> 32;
  return h ? h : 1; /* never 0: 0 marks an empty slot (and "| 1" would leave
                      * every even slot unused) */
}

void hlo_strmap_init(hlo_strmap *m, hlo_arena *arena) {
  memset(m, 0, sizeof *m);
  m->arena = arena;
}

/* Names are short: word compares and a byte tail beat a call to memcmp. */
static bool key_eq(const char *k, const char *s, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    memcpy(&x, k + i, 8);
    memcpy(&y, s + i, 8);
    if (x != y) return false;
  }
  for (; i < n; i++)
    if (k[i] != s[i]) return false;
  return k[n] == 0;
}

static int grow(hlo_strmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  hlo_strmap_slot *slots = hlo_arena_array(m->arena, cap, sizeof *slots);
  if (!slots) return HLO_ERR;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].hash) continue;
    size_t j = m->slots[i].hash & (cap - 1);
    while (slots[j].hash) j = (j + 1) & (cap - 1);
    slots[j] = m->slots[i];
  }
  m->slots = slots;
  m->cap = cap;
  return HLO_OK;
}

int hlo_strmap_put(hlo_strmap *m, const char *key, void *val, void **old) {
  size_t n = strlen(key);
  return hlo_strmap_put_hashed(m, key, n, hlo_strmap_hash(key, n), val, old);
}

void hlo_strmap_prefetch(const hlo_strmap *m, uint64_t h) {
  if (m->cap) __builtin_prefetch(&m->slots[h & (m->cap - 1)], 1);
}

int hlo_strmap_put_hashed(hlo_strmap *m, const char *key, size_t n, uint64_t h, void *val, void **old) {
  if (old) *old = NULL;
  if ((m->n + 1) * 4 > m->cap * 3 && grow(m)) return HLO_ERR;
  size_t j = h & (m->cap - 1);
  while (m->slots[j].hash) {
    if (m->slots[j].hash == h && key_eq(m->slots[j].key, key, n)) {
      if (old) *old = m->slots[j].val;
      m->slots[j].val = val;
      return HLO_OK;
    }
    j = (j + 1) & (m->cap - 1);
  }
  m->slots[j] = (hlo_strmap_slot){h, key, val};
  m->n++;
  return HLO_OK;
}

void *hlo_strmap_getn(const hlo_strmap *m, const char *key, size_t n) {
  if (!m->cap) return NULL;
  uint64_t h = hlo_strmap_hash(key, n);
  size_t j = h & (m->cap - 1);
  while (m->slots[j].hash) {
    if (m->slots[j].hash == h && key_eq(m->slots[j].key, key, n)) return m->slots[j].val;
    j = (j + 1) & (m->cap - 1);
  }
  return NULL;
}

void *hlo_strmap_get(const hlo_strmap *m, const char *key) {
  return hlo_strmap_getn(m, key, strlen(key));
}
