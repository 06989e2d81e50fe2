/* hlo_core.h - foundations every stage of libhlo uses: status codes, the
 * allocator hook, arenas, source buffers with line maps, and diagnostics.
 *
 * Contract: the library never prints and never exits.  A function that can
 * fail returns HLO_ERR (or NULL) and, where a source position is known,
 * records a diagnostic in an hlo_diags list that the caller owns and renders.
 * Nothing here holds global mutable state. */
#ifndef HLO_CORE_H
#define HLO_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HLO_VERSION "0.1.0"

enum { HLO_OK = 0, HLO_ERR = -1 };

#if defined(__GNUC__)
#define HLO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HLO_PRINTF(a, b)
#endif

/* Marks the public API: libhlo is built with -fvisibility=hidden, so
 * libhlo.so exports exactly the functions declared HLO_API in include/hlo/
 * (testdata/docs/exports.test compares them). */
#if defined(__GNUC__)
#define HLO_API __attribute__((visibility("default")))
#else
#define HLO_API
#endif

/* ---- allocation ---------------------------------------------------------
 * All library allocations go through an hlo_allocator so tests can make the
 * Nth allocation fail.  NULL means the C library's malloc/realloc/free. */
typedef struct hlo_allocator {
  void *(*alloc)(void *ud, size_t n);
  void *(*realloc)(void *ud, void *p, size_t n);
  void (*free)(void *ud, void *p);
  void *ud;
} hlo_allocator;

HLO_API void *hlo_malloc(const hlo_allocator *a, size_t n);
HLO_API void *hlo_realloc(const hlo_allocator *a, void *p, size_t n);
HLO_API void hlo_free(const hlo_allocator *a, void *p);

/* Checked size arithmetic: return false (and leave *out untouched) on overflow. */
static inline bool hlo_mul_overflow(size_t a, size_t b, size_t *out) {
  return __builtin_mul_overflow(a, b, out);
}
static inline bool hlo_add_overflow(size_t a, size_t b, size_t *out) {
  return __builtin_add_overflow(a, b, out);
}

/* Whether x is one of the n values at v (dimension lists of attributes). */
static inline bool hlo_ints_contain(const int64_t *v, int n, int64_t x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

/* ---- arena ---------------------------------------------------------------
 * A bump allocator: many allocations, one release.  Memory is 16-byte
 * aligned and zeroed.  hlo_arena_alloc returns NULL on overflow or when the
 * allocator fails; the arena stays usable. */
typedef struct hlo_arena_block hlo_arena_block;
typedef struct hlo_arena {
  hlo_arena_block *head;
  const hlo_allocator *alloc;
  unsigned char *cur, *lim; /* free space of the head block */
  size_t bytes_reserved;    /* total block bytes obtained from the allocator */
  size_t bytes_retired;     /* bytes used in blocks other than the head */
} hlo_arena;

HLO_API void hlo_arena_init(hlo_arena *a, const hlo_allocator *alloc);
HLO_API void hlo_arena_release(hlo_arena *a);
HLO_API void *hlo_arena_alloc(hlo_arena *a, size_t n);
/* n elements of size sz, overflow-checked. */
HLO_API void *hlo_arena_array(hlo_arena *a, size_t n, size_t sz);
HLO_API char *hlo_arena_strndup(hlo_arena *a, const char *s, size_t n);
HLO_API char *hlo_arena_strdup(hlo_arena *a, const char *s);
HLO_API char *hlo_arena_printf(hlo_arena *a, const char *fmt, ...) HLO_PRINTF(2, 3);
/* Bytes handed out so far (including alignment padding). */
HLO_API size_t hlo_arena_used(const hlo_arena *a);

/* ---- growable byte buffer (for printers) ------------------------------- */
typedef struct hlo_buf {
  char *data;
  size_t len, cap;
  bool failed; /* an allocation failed: contents are truncated */
  const hlo_allocator *alloc;
} hlo_buf;

HLO_API void hlo_buf_init(hlo_buf *b, const hlo_allocator *alloc);
HLO_API void hlo_buf_release(hlo_buf *b);
HLO_API void hlo_buf_put(hlo_buf *b, const char *s, size_t n);
HLO_API void hlo_buf_puts(hlo_buf *b, const char *s);
HLO_API void hlo_buf_putc(hlo_buf *b, char c);
HLO_API void hlo_buf_printf(hlo_buf *b, const char *fmt, ...) HLO_PRINTF(2, 3);
/* Decimal text of v (faster than hlo_buf_printf for the printers' hot paths). */
HLO_API void hlo_buf_put_i64(hlo_buf *b, int64_t v);
HLO_API void hlo_buf_put_u64(hlo_buf *b, uint64_t v);
HLO_API void hlo_buf_vprintf(hlo_buf *b, const char *fmt, va_list ap);
/* Detach the NUL-terminated contents (caller frees with hlo_free). */
HLO_API char *hlo_buf_take(hlo_buf *b);

/* ---- sources ---------------------------------------------------------------
 * A named text buffer.  Locations everywhere are byte offsets into it; line
 * and column are computed only when a diagnostic is rendered. */
typedef struct hlo_src {
  const char *name; /* file name as given by the user, "<stdin>" for - */
  const char *text; /* not necessarily NUL-terminated */
  size_t len;
} hlo_src;

typedef struct hlo_loc {
  uint32_t line, col; /* 1-based; col counts bytes */
} hlo_loc;

HLO_API hlo_loc hlo_src_loc(const hlo_src *src, size_t off);
/* The same, counting on from a known location `at` of offset from (restarts
 * from the beginning if from > off): rendering many diagnostics in offset
 * order stays linear in the source size. */
HLO_API hlo_loc hlo_src_loc_from(const hlo_src *src, size_t off, size_t from, hlo_loc at);

/* ---- diagnostics ------------------------------------------------------- */
typedef enum hlo_severity { HLO_SEV_ERROR, HLO_SEV_WARNING, HLO_SEV_NOTE } hlo_severity;

typedef struct hlo_diag {
  hlo_severity sev;
  const hlo_src *src; /* may be NULL: no position */
  size_t off;
  char *msg;
} hlo_diag;

typedef struct hlo_diags {
  hlo_diag *v;
  int n, cap;
  int nerrors;
  int max_errors; /* 0 = unlimited; further errors are counted, not stored */
  bool oom;       /* a diagnostic could not be stored */
  const hlo_allocator *alloc;
} hlo_diags;

HLO_API void hlo_diags_init(hlo_diags *d, const hlo_allocator *alloc);
HLO_API void hlo_diags_release(hlo_diags *d);
/* Record an error at src+off; always returns HLO_ERR so callers can
 * `return hlo_errorf(...)`. */
HLO_API int hlo_errorf(hlo_diags *d, const hlo_src *src, size_t off, const char *fmt, ...)
            HLO_PRINTF(4, 5);
HLO_API int hlo_vdiagf(hlo_diags *d, hlo_severity sev, const hlo_src *src, size_t off,
                       const char *fmt, va_list ap);
HLO_API void hlo_notef(hlo_diags *d, const hlo_src *src, size_t off, const char *fmt, ...)
            HLO_PRINTF(4, 5);
HLO_API void hlo_warnf(hlo_diags *d, const hlo_src *src, size_t off, const char *fmt, ...)
            HLO_PRINTF(4, 5);

/* Render one diagnostic as "file:line:col: error: msg\n<source line>\n   ^\n"
 * (or "file: error: msg\n" without a position) into b. */
HLO_API void hlo_diag_render(hlo_buf *b, const hlo_diag *d);
/* The same with d's location already computed (see hlo_src_loc_from). */
HLO_API void hlo_diag_render_loc(hlo_buf *b, const hlo_diag *d, hlo_loc loc);

/* ---- string map ------------------------------------------------------------
 * Open-addressing hash map from NUL-terminated strings to pointers, storage
 * in an arena (keys are not copied: they must outlive the map). */
typedef struct hlo_strmap_slot {
  uint64_t hash; /* 0: empty */
  const char *key;
  void *val;
} hlo_strmap_slot;
typedef struct hlo_strmap {
  hlo_arena *arena;
  size_t cap, n; /* cap is a power of two or 0 */
  hlo_strmap_slot *slots;
} hlo_strmap;

HLO_API void hlo_strmap_init(hlo_strmap *m, hlo_arena *arena);
/* Insert or replace; HLO_ERR on allocation failure. *old gets the previous
 * value (NULL if none) when old is not NULL. */
HLO_API int hlo_strmap_put(hlo_strmap *m, const char *key, void *val, void **old);
HLO_API void *hlo_strmap_get(const hlo_strmap *m, const char *key);
HLO_API void *hlo_strmap_getn(const hlo_strmap *m, const char *key, size_t n);
/* The hash of key[0..n) (never 0); with it, a caller that knows a key long
 * before inserting it can prefetch its slot (a large map's insert is a
 * cache miss) and insert without hashing again.  key must be n bytes long
 * and NUL-terminated for put_hashed. */
HLO_API uint64_t hlo_strmap_hash(const char *key, size_t n);
HLO_API void hlo_strmap_prefetch(const hlo_strmap *m, uint64_t h);
HLO_API int hlo_strmap_put_hashed(hlo_strmap *m, const char *key, size_t n, uint64_t h, void *val, void **old);

#endif
