/* npz.c - .npz archives: the zip container around .npy members.  Reading
 * walks the central directory (zip64 aware), checks every offset and size
 * against the buffer before use, inflates deflated members with zlib and
 * checks their CRC-32; mapping a file lets stored members be used in place.
 * Writing streams members from where their data lies, stored members
 * 64-byte aligned, with zip64 fields where sizes or offsets need them. */
#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "io/npy_internal.h"

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

enum {
  SIG_LOCAL = 0x04034b50,
  SIG_CENTRAL = 0x02014b50,
  SIG_EOCD = 0x06054b50,
  SIG_EOCD64 = 0x06064b50,
  SIG_LOC64 = 0x07064b50,
};

/* Inflate a raw deflate stream of exactly usize bytes. */
static int inflate_all(const char *name, const unsigned char *src, uint64_t csize, unsigned char *dst,
                       uint64_t usize, hlo_diags *d) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return hlo_errorf(d, NULL, 0, "%s: zlib init failed", name);
  uint64_t in_left = csize, out_left = usize;
  z.next_in = (unsigned char *)src;
  z.next_out = dst;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (z.avail_in == 0 && in_left) {
      z.avail_in = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
      in_left -= z.avail_in;
    }
    if (z.avail_out == 0 && out_left) {
      z.avail_out = out_left > (1u << 30) ? (1u << 30) : (uInt)out_left;
      out_left -= z.avail_out;
    }
    uInt before_in = z.avail_in, before_out = z.avail_out;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_BUF_ERROR || (rc == Z_OK && before_in == z.avail_in && before_out == z.avail_out)) {
      rc = Z_DATA_ERROR;
      break;
    }
  }
  uint64_t produced = usize - out_left - z.avail_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    return hlo_errorf(d, NULL, 0, "%s: corrupt or truncated deflate data", name);
  if (produced != usize)
    return hlo_errorf(d, NULL, 0, "%s: inflated to %llu bytes, directory says %llu", name,
                      (unsigned long long)produced, (unsigned long long)usize);
  return HLO_OK;
}

static uint32_t crc_all(const unsigned char *p, uint64_t n) {
  uLong c = crc32(0L, Z_NULL, 0);
  while (n) {
    uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
    c = crc32(c, p, k);
    p += k;
    n -= k;
  }
  return (uint32_t)c;
}

/* The members of the archive in buf; with view, stored members whose bytes
 * already are their array point into buf (which must then outlive them and
 * be writable copy-on-write memory), and *nviewed counts them. */
static int npz_parse(hlo_arena *a, const char *name, const void *buf, size_t len,
                     const hlo_npy_opts *opts, bool view, hlo_npz *out, int *nviewed, hlo_diags *d) {
  const unsigned char *b = buf;
  *nviewed = 0;
  out->n = 0;
  out->v = NULL;
  if (len < 22) return hlo_errorf(d, NULL, 0, "%s: not a zip archive (too short)", name);
  /* End of central directory: 22 bytes plus a comment of up to 64 KiB. */
  size_t eocd = SIZE_MAX;
  size_t lo = len > 22 + 65535 ? len - 22 - 65535 : 0;
  for (size_t i = len - 22 + 1; i-- > lo;) {
    if (rd32(b + i) == SIG_EOCD && i + 22 + rd16(b + i + 20) <= len) {
      eocd = i;
      break;
    }
  }
  if (eocd == SIZE_MAX) return hlo_errorf(d, NULL, 0, "%s: not a zip archive (no end record)", name);
  const unsigned char *e = b + eocd;
  if (rd16(e + 4) != 0 || rd16(e + 6) != 0)
    return hlo_errorf(d, NULL, 0, "%s: multi-disk zip archives are not supported", name);
  uint64_t count = rd16(e + 10), cd_size = rd32(e + 12), cd_off = rd32(e + 16);
  if (count == 0xffff || cd_size == 0xffffffffu || cd_off == 0xffffffffu) {
    if (eocd < 20 || rd32(b + eocd - 20) != SIG_LOC64)
      return hlo_errorf(d, NULL, 0, "%s: zip64 end record locator missing", name);
    uint64_t off64 = rd64(b + eocd - 20 + 8);
    if (off64 > len || len - off64 < 56 || rd32(b + off64) != SIG_EOCD64)
      return hlo_errorf(d, NULL, 0, "%s: corrupt zip64 end record", name);
    count = rd64(b + off64 + 32);
    cd_size = rd64(b + off64 + 40);
    cd_off = rd64(b + off64 + 48);
  }
  if (cd_off > eocd || cd_size > eocd - cd_off)
    return hlo_errorf(d, NULL, 0, "%s: central directory lies outside the archive", name);
  if (count > cd_size / 46)
    return hlo_errorf(d, NULL, 0, "%s: central directory too small for %llu entries", name,
                      (unsigned long long)count);
  out->v = count ? hlo_arena_array(a, (size_t)count, sizeof *out->v) : NULL;
  if (count && !out->v) return hlo_errorf(d, NULL, 0, "%s: out of memory", name);
  uint64_t max = npy_max_bytes(opts);
  size_t p = (size_t)cd_off, cd_end = (size_t)(cd_off + cd_size);
  for (uint64_t k = 0; k < count; k++) {
    if (cd_end - p < 46 || rd32(b + p) != SIG_CENTRAL)
      return hlo_errorf(d, NULL, 0, "%s: corrupt central directory entry %llu", name,
                        (unsigned long long)k);
    const unsigned char *c = b + p;
    uint32_t flags = rd16(c + 8), method = rd16(c + 10), crc = rd32(c + 16);
    uint64_t csize = rd32(c + 20), usize = rd32(c + 24), loff = rd32(c + 42);
    size_t nlen = rd16(c + 28), xlen = rd16(c + 30), clen = rd16(c + 32);
    if (cd_end - p - 46 < nlen + xlen + clen)
      return hlo_errorf(d, NULL, 0, "%s: corrupt central directory entry %llu", name,
                        (unsigned long long)k);
    const char *mname = (const char *)c + 46;
    const unsigned char *x = c + 46 + nlen, *xend = x + xlen;
    while (xend - x >= 4) { /* zip64 extra: the fields that are all ones, in order */
      uint32_t id = rd16(x), sz = rd16(x + 2);
      if ((size_t)(xend - x - 4) < sz) break;
      if (id == 1) {
        const unsigned char *f = x + 4, *fend = f + sz;
        if (usize == 0xffffffffu && fend - f >= 8) usize = rd64(f), f += 8;
        if (csize == 0xffffffffu && fend - f >= 8) csize = rd64(f), f += 8;
        if (loff == 0xffffffffu && fend - f >= 8) loff = rd64(f);
      }
      x += 4 + sz;
    }
    char *mem = hlo_arena_strndup(a, mname, nlen);
    if (!mem) return hlo_errorf(d, NULL, 0, "%s: out of memory", name);
    char *where = hlo_arena_printf(a, "%s:%s", name, mem);
    if (!where) return hlo_errorf(d, NULL, 0, "%s: out of memory", name);
    if (flags & 1) return hlo_errorf(d, NULL, 0, "%s: encrypted members are not supported", where);
    if (method != 0 && method != 8)
      return hlo_errorf(d, NULL, 0, "%s: unsupported compression method %u", where, method);
    if (nlen < 4 || memcmp(mem + nlen - 4, ".npy", 4) != 0)
      return hlo_errorf(d, NULL, 0, "%s: member is not a .npy file", where);
    mem[nlen - 4] = 0;
    /* Local header: only its name and extra lengths are used. */
    if (loff > cd_off || cd_off - loff < 30 || rd32(b + loff) != SIG_LOCAL)
      return hlo_errorf(d, NULL, 0, "%s: corrupt local header", where);
    uint64_t data = loff + 30 + rd16(b + loff + 26) + rd16(b + loff + 28);
    if (data > cd_off || csize > cd_off - data)
      return hlo_errorf(d, NULL, 0, "%s: member data lies outside the archive", where);
    if (usize > max)
      return hlo_errorf(d, NULL, 0, "%s: member of %llu bytes exceeds the limit", where,
                        (unsigned long long)usize);
    if (method == 0 && usize != csize)
      return hlo_errorf(d, NULL, 0, "%s: stored member with different sizes", where);
    if (method == 8 && usize / 1032 > csize + 1) /* deflate cannot expand more */
      return hlo_errorf(d, NULL, 0, "%s: implausible uncompressed size %llu", where,
                        (unsigned long long)usize);
    const unsigned char *img = b + data;
    unsigned char *tmp = NULL;
    if (method == 8) {
      tmp = hlo_malloc(a->alloc, usize ? (size_t)usize : 1);
      if (!tmp) return hlo_errorf(d, NULL, 0, "%s: out of memory", where);
      if (inflate_all(where, b + data, csize, tmp, usize, d) != HLO_OK) {
        hlo_free(a->alloc, tmp);
        return HLO_ERR;
      }
      img = tmp;
    }
    int rc = HLO_OK;
    bool viewed = false;
    if (crc_all(img, usize) != crc)
      rc = hlo_errorf(d, NULL, 0, "%s: CRC-32 mismatch (corrupt member)", where);
    else if (view && !tmp)
      rc = npy_view(a, where, (void *)img, (size_t)usize, opts, &out->v[k].arr, &viewed, d);
    else
      rc = hlo_npy_read(a, where, img, (size_t)usize, opts, &out->v[k].arr, d);
    *nviewed += viewed;
    hlo_free(a->alloc, tmp);
    if (rc != HLO_OK) return HLO_ERR;
    out->v[k].name = mem;
    out->n = (int)(k + 1);
    p += 46 + nlen + xlen + clen;
  }
  return HLO_OK;
}

int hlo_npz_read(hlo_arena *a, const char *name, const void *buf, size_t len,
                 const hlo_npy_opts *opts, hlo_npz *out, hlo_diags *d) {
  int nviewed;
  return npz_parse(a, name, buf, len, opts, false, out, &nviewed, d);
}

int hlo_npz_map(hlo_arena *a, const char *path, const hlo_npy_opts *opts, hlo_npz *out,
                hlo_npy_mapping *m, hlo_diags *d) {
  out->n = 0;
  out->v = NULL;
  if (npy_map_file(path, npy_max_bytes(opts), m, d) != HLO_OK) return HLO_ERR;
  if (!m->base) return hlo_npz_load(a, path, opts, out, d);
  int nviewed;
  int rc = npz_parse(a, path, m->base, m->len, opts, true, out, &nviewed, d);
  if (rc != HLO_OK || nviewed == 0) hlo_npy_unmap(m);
  return rc;
}

int hlo_npz_load(hlo_arena *a, const char *path, const hlo_npy_opts *opts, hlo_npz *out,
                 hlo_diags *d) {
  void *buf;
  size_t len;
  if (npy_read_file(a->alloc, path, npy_max_bytes(opts), &buf, &len, d) != HLO_OK) return HLO_ERR;
  int rc = hlo_npz_read(a, path, buf, len, opts, out, d);
  hlo_free(a->alloc, buf);
  return rc;
}

/* ---- writing ----------------------------------------------------------------- */

/* Where the archive goes: a buffer, a file, or nowhere (a sizing pass that
 * only counts bytes and skips the CRCs). */
typedef struct zsink {
  hlo_buf *b;
  npy_out *f;
  uint64_t len;
} zsink;

static void zput(zsink *s, const void *p, size_t n) {
  if (s->b) hlo_buf_put(s->b, p, n);
  else if (s->f) npy_out_put(s->f, p, n);
  s->len += n;
}
static void zput16(zsink *s, uint32_t v) {
  unsigned char c[2] = {(unsigned char)(v & 0xff), (unsigned char)(v >> 8 & 0xff)};
  zput(s, c, 2);
}
static void zput32(zsink *s, uint32_t v) {
  zput16(s, v & 0xffff);
  zput16(s, v >> 16);
}
static void zput64(zsink *s, uint64_t v) {
  zput32(s, (uint32_t)v);
  zput32(s, (uint32_t)(v >> 32));
}
static bool counting(const zsink *s) { return !s->b && !s->f; }

/* Deflate src into b as a raw stream (zipfile's defaults: level 6, memLevel 8). */
static int deflate_into(hlo_buf *b, const unsigned char *src, size_t n, hlo_diags *d) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return hlo_errorf(d, NULL, 0, "zlib init failed");
  z.next_in = (unsigned char *)src;
  size_t left = n;
  int rc = Z_OK;
  unsigned char chunk[65536];
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0 && left) {
      z.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
      left -= z.avail_in;
    }
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    rc = deflate(&z, left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
    if (rc == Z_STREAM_ERROR) break;
    hlo_buf_put(b, (const char *)chunk, sizeof chunk - z.avail_out);
  }
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return hlo_errorf(d, NULL, 0, "deflate failed");
  return HLO_OK;
}

enum {
  ZIP_MAX32 = 0xffffffffu, /* a 32-bit field at this value defers to the zip64 extra */
  ZIP_ALIGN = 64,          /* stored array data starts on this file offset */
  XID_ZIP64 = 0x0001,
  XID_ALIGN = 0xd935,      /* zipalign's padding field: u16 alignment, then zeros */
};

typedef struct zent {
  uint32_t crc;
  uint64_t csize, usize, off;
  size_t nlen;
  bool stored;
} zent;

/* Emit the archive of n members into s.  A stored member whose bytes are
 * its payload goes out as header + data from where the data lies; its
 * local header is padded so the data starts 64-byte aligned (a reader can
 * then map it).  Sizes or offsets beyond 32 bits get zip64 fields, as
 * numpy's own archives (written with force_zip64) have. */
static int npz_emit(zsink *s, const hlo_allocator *alloc, const hlo_npz_member *m, int n,
                    bool compress, hlo_diags *d) {
  zent *ents = n ? hlo_malloc(alloc, (size_t)n * sizeof *ents) : NULL;
  if (n && !ents) return hlo_errorf(d, NULL, 0, "out of memory writing .npz");
  int rc = HLO_OK;
  uint64_t base = s->len;
  for (int i = 0; i < n && rc == HLO_OK; i++) {
    hlo_buf img, z;
    hlo_buf_init(&img, alloc);
    hlo_buf_init(&z, alloc);
    bool direct = !compress && npy_direct(&m[i].arr);
    const void *data = NULL; /* the payload after img, for a direct member */
    size_t dbytes = 0;
    if (direct) {
      rc = npy_header_of(&img, &m[i].arr, d);
      data = m[i].arr.data;
      dbytes = (size_t)m[i].arr.nelems * (size_t)hlo_type_bytes(m[i].arr.type);
    } else {
      rc = hlo_npy_write(&img, &m[i].arr, d);
    }
    zent *e = &ents[i];
    e->usize = (uint64_t)img.len + dbytes;
    e->csize = e->usize;
    e->stored = !compress;
    e->nlen = strlen(m[i].name) + 4;
    e->off = s->len - base;
    if (rc == HLO_OK && compress) {
      rc = deflate_into(&z, (const unsigned char *)img.data, img.len, d);
      e->csize = z.len;
    }
    if (rc == HLO_OK && (img.failed || z.failed)) rc = hlo_errorf(d, NULL, 0, "out of memory writing .npz");
    if (rc == HLO_OK && e->nlen > 0xffff)
      rc = hlo_errorf(d, NULL, 0, "%s: member name too long for a zip archive", m[i].name);
    if (rc == HLO_OK) {
      if (!counting(s)) {
        uLong c = crc32(0L, Z_NULL, 0);
        c = crc32(c, (const unsigned char *)img.data, (uInt)img.len);
        e->crc = /* the header's CRC extended over the data */ (uint32_t)crc32_combine(c, crc_all(data, dbytes), (z_off_t)dbytes);
      } else {
        e->crc = 0;
      }
      bool big = e->usize >= ZIP_MAX32 || e->csize >= ZIP_MAX32;
      size_t x64 = big ? 20 : 0; /* id, size, usize, csize */
      size_t pad = 0;
      if (e->stored) { /* the data (after the 64-byte padded header) on a 64-byte boundary */
        uint64_t at = s->len + 30 + e->nlen + x64 + 6 + img.len;
        pad = (size_t)((ZIP_ALIGN - at % ZIP_ALIGN) % ZIP_ALIGN);
      }
      zput32(s, SIG_LOCAL);
      zput16(s, big ? 45 : 20);    /* version needed */
      zput16(s, 0);                /* flags */
      zput16(s, compress ? 8 : 0); /* method */
      zput16(s, 0);                /* time 00:00 */
      zput16(s, 0x21);             /* date 1980-01-01 */
      zput32(s, e->crc);
      zput32(s, big ? ZIP_MAX32 : (uint32_t)e->csize);
      zput32(s, big ? ZIP_MAX32 : (uint32_t)e->usize);
      zput16(s, (uint32_t)e->nlen);
      zput16(s, (uint32_t)(x64 + (e->stored ? 6 + pad : 0)));
      zput(s, m[i].name, e->nlen - 4);
      zput(s, ".npy", 4);
      if (big) {
        zput16(s, XID_ZIP64);
        zput16(s, 16);
        zput64(s, e->usize);
        zput64(s, e->csize);
      }
      if (e->stored) {
        static const char zeros[ZIP_ALIGN];
        zput16(s, XID_ALIGN);
        zput16(s, (uint32_t)(2 + pad));
        zput16(s, ZIP_ALIGN);
        zput(s, zeros, pad);
        zput(s, img.data, img.len);
        if (dbytes) zput(s, data, dbytes);
      } else {
        zput(s, z.data, z.len);
      }
    }
    hlo_buf_release(&img);
    hlo_buf_release(&z);
  }
  uint64_t cd = s->len;
  for (int i = 0; i < n && rc == HLO_OK; i++) {
    const zent *e = &ents[i];
    bool bu = e->usize >= ZIP_MAX32, bc = e->csize >= ZIP_MAX32, bo = e->off >= ZIP_MAX32;
    size_t x64 = 8 * ((size_t)bu + (size_t)bc + (size_t)bo);
    zput32(s, SIG_CENTRAL);
    zput16(s, x64 ? 45 : 20); /* version made by */
    zput16(s, x64 ? 45 : 20); /* version needed */
    zput16(s, 0);
    zput16(s, e->stored ? 0 : 8);
    zput16(s, 0);
    zput16(s, 0x21);
    zput32(s, e->crc);
    zput32(s, bc ? ZIP_MAX32 : (uint32_t)e->csize);
    zput32(s, bu ? ZIP_MAX32 : (uint32_t)e->usize);
    zput16(s, (uint32_t)e->nlen);
    zput16(s, (uint32_t)(x64 ? 4 + x64 : 0)); /* extra */
    zput16(s, 0); /* comment */
    zput16(s, 0); /* disk */
    zput16(s, 0); /* internal attributes */
    zput32(s, 0x1800000u); /* external: -rw------- */
    zput32(s, bo ? ZIP_MAX32 : (uint32_t)e->off);
    zput(s, m[i].name, e->nlen - 4);
    zput(s, ".npy", 4);
    if (x64) { /* the deferred fields, in the order the format fixes */
      zput16(s, XID_ZIP64);
      zput16(s, (uint32_t)x64);
      if (bu) zput64(s, e->usize);
      if (bc) zput64(s, e->csize);
      if (bo) zput64(s, e->off);
    }
  }
  if (rc == HLO_OK) {
    uint64_t cd_size = s->len - cd, cd_off = cd - base;
    if (n >= 0xffff || cd_size >= ZIP_MAX32 || cd_off >= ZIP_MAX32) {
      uint64_t at = s->len - base;
      zput32(s, SIG_EOCD64);
      zput64(s, 44); /* size of the rest of this record */
      zput16(s, 45);
      zput16(s, 45);
      zput32(s, 0);
      zput32(s, 0);
      zput64(s, (uint64_t)n);
      zput64(s, (uint64_t)n);
      zput64(s, cd_size);
      zput64(s, cd_off);
      zput32(s, SIG_LOC64);
      zput32(s, 0);
      zput64(s, at);
      zput32(s, 1);
    }
    zput32(s, SIG_EOCD);
    zput16(s, 0);
    zput16(s, 0);
    zput16(s, n >= 0xffff ? 0xffff : (uint32_t)n);
    zput16(s, n >= 0xffff ? 0xffff : (uint32_t)n);
    zput32(s, cd_size >= ZIP_MAX32 ? ZIP_MAX32 : (uint32_t)cd_size);
    zput32(s, cd_off >= ZIP_MAX32 ? ZIP_MAX32 : (uint32_t)cd_off);
    zput16(s, 0);
  }
  hlo_free(alloc, ents);
  if (rc == HLO_OK && s->b && s->b->failed) rc = hlo_errorf(d, NULL, 0, "out of memory writing .npz");
  return rc;
}

int hlo_npz_write(hlo_buf *b, const hlo_npz_member *m, int n, bool compress, hlo_diags *d) {
  zsink s = {b, NULL, b->len};
  return npz_emit(&s, b->alloc, m, n, compress, d);
}

int hlo_npz_save(const char *path, const hlo_npz_member *m, int n, bool compress, hlo_diags *d) {
  const hlo_allocator *alloc = d ? d->alloc : NULL;
  /* stored: a counting pass gives the exact size to reserve */
  zsink count = {NULL, NULL, 0};
  if (!compress && npz_emit(&count, alloc, m, n, compress, d) != HLO_OK) return HLO_ERR;
  npy_out o;
  if (npy_out_open(&o, path, count.len, d) != HLO_OK) return HLO_ERR;
  zsink s = {NULL, &o, 0};
  int rc = npz_emit(&s, alloc, m, n, compress, d);
  if (rc != HLO_OK) o.err = o.err ? o.err : EIO; /* nothing half-written is left */
  int crc = npy_out_close(&o, rc == HLO_OK ? d : NULL);
  return rc == HLO_OK ? crc : rc;
}
