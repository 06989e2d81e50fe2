/* npz.c - .npz archives: the zip container around .npy members.  Reading
 * walks the central directory (zip64 aware), checks every offset and size
 * against the buffer before use, inflates deflated members with zlib and
 * checks their CRC-32; writing produces a plain (non-zip64) archive. */
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

int hlo_npz_read(hlo_arena *a, const char *name, const void *buf, size_t len,
                 const hlo_npy_opts *opts, hlo_npz *out, hlo_diags *d) {
  const unsigned char *b = buf;
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
    if (crc_all(img, usize) != crc)
      rc = hlo_errorf(d, NULL, 0, "%s: CRC-32 mismatch (corrupt member)", where);
    else
      rc = hlo_npy_read(a, where, img, (size_t)usize, opts, &out->v[k].arr, d);
    hlo_free(a->alloc, tmp);
    if (rc != HLO_OK) return HLO_ERR;
    out->v[k].name = mem;
    out->n = (int)(k + 1);
    p += 46 + nlen + xlen + clen;
  }
  return HLO_OK;
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

static void put16(hlo_buf *b, uint32_t v) {
  char c[2] = {(char)(v & 0xff), (char)(v >> 8 & 0xff)};
  hlo_buf_put(b, c, 2);
}
static void put32(hlo_buf *b, uint32_t v) {
  put16(b, v & 0xffff);
  put16(b, v >> 16);
}

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

int hlo_npz_write(hlo_buf *b, const hlo_npz_member *m, int n, bool compress, hlo_diags *d) {
  typedef struct { uint32_t crc, csize, usize, off; size_t nlen; } ent;
  ent *ents = n ? hlo_malloc(b->alloc, (size_t)n * sizeof *ents) : NULL;
  if (n && !ents) return hlo_errorf(d, NULL, 0, "out of memory writing .npz");
  int rc = HLO_OK;
  size_t base = b->len;
  for (int i = 0; i < n && rc == HLO_OK; i++) {
    hlo_buf img, z;
    hlo_buf_init(&img, b->alloc);
    hlo_buf_init(&z, b->alloc);
    rc = hlo_npy_write(&img, &m[i].arr, d);
    const unsigned char *data = (const unsigned char *)img.data;
    size_t usize = img.len, csize = usize;
    if (rc == HLO_OK && compress) {
      rc = deflate_into(&z, data, usize, d);
      data = (const unsigned char *)z.data;
      csize = z.len;
    }
    size_t nlen = strlen(m[i].name) + 4;
    if (rc == HLO_OK && (usize > 0xfffffffeu || csize > 0xfffffffeu || b->len - base > 0xfffffffeu ||
                         nlen > 0xffff))
      rc = hlo_errorf(d, NULL, 0, "%s: member too large for a zip archive without zip64",
                      m[i].name);
    if (rc == HLO_OK) {
      ents[i].crc = crc_all((const unsigned char *)img.data, usize);
      ents[i].csize = (uint32_t)csize;
      ents[i].usize = (uint32_t)usize;
      ents[i].off = (uint32_t)(b->len - base);
      ents[i].nlen = nlen;
      put32(b, SIG_LOCAL);
      put16(b, 20);               /* version needed */
      put16(b, 0);                /* flags */
      put16(b, compress ? 8 : 0); /* method */
      put16(b, 0);                /* time 00:00 */
      put16(b, 0x21);             /* date 1980-01-01 */
      put32(b, ents[i].crc);
      put32(b, ents[i].csize);
      put32(b, ents[i].usize);
      put16(b, (uint32_t)nlen);
      put16(b, 0);
      hlo_buf_puts(b, m[i].name);
      hlo_buf_puts(b, ".npy");
      hlo_buf_put(b, (const char *)data, csize);
    }
    hlo_buf_release(&img);
    hlo_buf_release(&z);
  }
  if (rc == HLO_OK) {
    size_t cd = b->len;
    for (int i = 0; i < n; i++) {
      put32(b, SIG_CENTRAL);
      put16(b, 20); /* version made by */
      put16(b, 20);
      put16(b, 0);
      put16(b, compress ? 8 : 0);
      put16(b, 0);
      put16(b, 0x21);
      put32(b, ents[i].crc);
      put32(b, ents[i].csize);
      put32(b, ents[i].usize);
      put16(b, (uint32_t)ents[i].nlen);
      put16(b, 0); /* extra */
      put16(b, 0); /* comment */
      put16(b, 0); /* disk */
      put16(b, 0); /* internal attributes */
      put32(b, 0x1800000u); /* external: -rw------- */
      put32(b, ents[i].off);
      hlo_buf_puts(b, m[i].name);
      hlo_buf_puts(b, ".npy");
    }
    size_t cd_size = b->len - cd;
    if (n > 0xffff || cd - base > 0xfffffffeu || cd_size > 0xfffffffeu) {
      rc = hlo_errorf(d, NULL, 0, "archive too large for zip without zip64");
    } else {
      put32(b, SIG_EOCD);
      put16(b, 0);
      put16(b, 0);
      put16(b, (uint32_t)n);
      put16(b, (uint32_t)n);
      put32(b, (uint32_t)cd_size);
      put32(b, (uint32_t)(cd - base));
      put16(b, 0);
    }
  }
  hlo_free(b->alloc, ents);
  if (rc == HLO_OK && b->failed) rc = hlo_errorf(d, NULL, 0, "out of memory writing .npz");
  return rc;
}

int hlo_npz_save(const char *path, const hlo_npz_member *m, int n, bool compress, hlo_diags *d) {
  hlo_buf b;
  hlo_buf_init(&b, d ? d->alloc : NULL);
  int rc = hlo_npz_write(&b, m, n, compress, d);
  if (rc == HLO_OK) rc = npy_write_file(path, b.data, b.len, d);
  hlo_buf_release(&b);
  return rc;
}
