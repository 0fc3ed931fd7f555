/* ndd_rsplit.c - see ndd_rsplit.h */
#include "ndd_rsplit.h"
#include "ndd_rstream.h"
#include "ndd_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define SP_SCAN (64u << 10)       /* magic search chunk */
#define SP_VIN (16u << 10)        /* input chunk when checking a candidate member */
#define SP_VOUT (16u << 10)       /* ... its output chunk */
#define SP_HEAD 16                /* ... the bytes of its WARC version line looked at */
#define SP_VIN_MAX ((uint64_t)256 << 20) /* ... at most this much input */
#define SP_ZBUF0 ((size_t)4 << 20) /* zstd walk: first buffer size */
#define SP_ZBUF_MAX ((size_t)1 << 30)
#define SP_GZ_FIRST_IN ((size_t)1 << 20) /* detection: the first member within this much input */
#define SP_GZ_FIRST_OUT ((size_t)8 << 20) /* ... and this much output */
#define SP_STORED_MAX 65535u     /* a stored deflate block's data, at most */
#define SP_WIN 32768u            /* deflate's window */

static ssize_t sp_pread(int fd, void *buf, size_t n, uint64_t off)
{
    for (;;) {
        ssize_t k = pread(fd, buf, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        return k;
    }
}

static int sp_gz_magic(const unsigned char *b)
{
    return b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 && (b[3] & 0xE0) == 0;
}

/* Is b[0..n) the start of a WARC version line, "WARC/" digits "." digits and
 * a line end? 1 yes, 0 no, -1 not known yet (n too short). A member that
 * only begins with "WARC/" (a block's text can) is no record start. */
static int sp_version_line(const unsigned char *b, size_t n)
{
    static const char pre[] = "WARC/";
    size_t i = 0;
    for (; i < 5; i++)
        if (i >= n)
            return -1;
        else if (b[i] != (unsigned char)pre[i])
            return 0;
    for (int part = 0; part < 2; part++) {
        size_t d = 0;
        for (; i < n && b[i] >= '0' && b[i] <= '9' && d < 4; i++, d++)
            ;
        if (i >= n)
            return -1;
        if (!d)
            return 0;
        if (part == 0 && b[i++] != '.')
            return 0;
    }
    if (b[i] == '\n')
        return 1;
    if (b[i] != '\r')
        return 0;
    return i + 1 >= n ? -1 : b[i + 1] == '\n';
}

/* What the inflated bytes are given to (sp_inflate_end): 0 stops it. */
typedef int (*sp_sink_fn)(void *user, const unsigned char *p, size_t n);

/* Inflates with z (set up and reset by the caller) the file's bytes from
 * off on, at most max of them, giving each piece of output to sink (may
 * be NULL): 1 and *end (the offset just past the stream's end) when the
 * stream ends there, 0 when it does not (damage, not within max bytes, or
 * the sink stopped it), <0 on error. */
static int sp_inflate_end(int fd, z_stream *z, unsigned char *in, unsigned char *out, uint64_t off, uint64_t max,
                          sp_sink_fn sink, void *user, uint64_t *end)
{
    int ret = Z_OK;
    for (uint64_t got = 0; ret == Z_OK && got < max;) {
        uint64_t want = max - got;
        ssize_t k = sp_pread(fd, in, want < SP_VIN ? (size_t)want : SP_VIN, off + got);
        if (k <= 0)
            return k < 0 ? NDD_ERR_IO : 0;
        got += (uint64_t)k;
        z->next_in = in;
        z->avail_in = (uInt)k;
        while (z->avail_in > 0 && ret == Z_OK) {
            z->next_out = out;
            z->avail_out = SP_VOUT;
            ret = inflate(z, Z_NO_FLUSH);
            if (sink && !sink(user, out, SP_VOUT - z->avail_out))
                return 0;
        }
        if (ret == Z_STREAM_END) {
            *end = off + got - z->avail_in;
            return 1;
        }
    }
    return ret == Z_MEM_ERROR ? NDD_ERR_NOMEM : 0;
}

/* The first SP_HEAD bytes of a member's data; stops the inflation as soon
 * as they cannot begin a WARC version line. */
typedef struct {
    unsigned char b[SP_HEAD];
    size_t n;
} sp_head_t;

static int sp_head_sink(void *user, const unsigned char *p, size_t n)
{
    sp_head_t *h = user;
    size_t c = n < SP_HEAD - h->n ? n : SP_HEAD - h->n;
    memcpy(h->b + h->n, p, c);
    h->n += c;
    return sp_version_line(h->b, h->n) != 0;
}

/* 1 when a whole gzip member begins at off, its data begins with a WARC
 * version line ("WARC/1.0" CRLF), and it is followed by another member's
 * magic or the end of the file; 0 when not (no member, an empty member, other data, or a member stored
 * verbatim inside another record's compressed data, which is followed by
 * the rest of that data); <0 on error. */
static int sp_gz_is_warc(int fd, uint64_t fsize, z_stream *z, unsigned char *in, uint64_t off)
{
    unsigned char out[SP_VOUT], m[4];
    sp_head_t h = {.n = 0};
    uint64_t end = 0;
    if (inflateReset(z) != Z_OK)
        return NDD_ERR_INTERNAL;
    int got = sp_inflate_end(fd, z, in, out, off, SP_VIN_MAX, sp_head_sink, &h, &end);
    if (got <= 0 || sp_version_line(h.b, h.n) != 1)
        return got < 0 ? got : 0;
    if (end >= fsize)
        return 1;
    return sp_pread(fd, m, 4, end) == 4 && sp_gz_magic(m);
}

/* The end of a deflate stream whose blocks go on at file offset off (a
 * block start, at a byte's first bit), read with a window of zeros: the
 * bytes that come out are wrong where they copy from before off, but the
 * blocks, and so where the final one ends, are the stream's own. 1 and *end
 * (the offset after its final block) when it ends within SP_VIN_MAX, 0 when
 * not (off was no block start), <0 on error. */
static int sp_deflate_end(int fd, uint64_t off, unsigned char *in, unsigned char *out, uint64_t *end)
{
    static const unsigned char zeros[SP_WIN];
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK)
        return NDD_ERR_NOMEM;
    int res = inflateSetDictionary(&z, zeros, SP_WIN) == Z_OK
                  ? sp_inflate_end(fd, &z, in, out, off, SP_VIN_MAX, NULL, NULL, end)
                  : NDD_ERR_INTERNAL;
    inflateEnd(&z);
    return res;
}

/* Is there a whole gzip member, its CRC and length checked by zlib, that
 * begins before c (at most SP_VIN_MAX before) and ends exactly at after?
 * The magics before c are tried from the nearest back. 1 yes, 0 no, <0 on
 * error. */
static int sp_gz_member_to(int fd, z_stream *z, unsigned char *in, unsigned char *out, uint64_t c, uint64_t after)
{
    uint64_t floor = c > SP_VIN_MAX ? c - SP_VIN_MAX : 0;
    unsigned char *b = malloc(SP_SCAN + 3);
    if (!b)
        return NDD_ERR_NOMEM;
    int res = 0;
    for (uint64_t top = c; top > floor && !res;) { /* magics at [s, top) */
        uint64_t s = top - floor > SP_SCAN ? top - SP_SCAN : floor;
        ssize_t k = sp_pread(fd, b, (size_t)(top - s) + 3, s);
        if (k < 0) {
            res = NDD_ERR_IO;
            break;
        }
        for (size_t i = (size_t)(top - s); i-- > 0 && !res;) {
            if (i + 4 > (size_t)k || !sp_gz_magic(b + i))
                continue;
            uint64_t m = s + i, end = 0;
            if (inflateReset(z) != Z_OK) {
                res = NDD_ERR_INTERNAL;
                break;
            }
            int got = sp_inflate_end(fd, z, in, out, m, after - m, NULL, NULL, &end); /* never reads past after */
            res = got < 0 ? got : got && end == after;
        }
        top = s;
    }
    free(b);
    return res;
}

/* Is the member at c a gzip member kept verbatim inside another one (a
 * record whose payload is a .warc.gz: deflate stores incompressible data
 * as it is, in stored blocks of at most 65,535 bytes)? Its magic then lies
 * in the data of a stored block whose header (LEN, ~LEN, at a byte start)
 * is at most 65,539 bytes before it. For each such header, the enclosing
 * stream's end is found from the block after it (sp_deflate_end; or the
 * stored block was the final one), and taken only when a whole member that
 * begins before c ends there (sp_gz_member_to): a header by chance
 * in a true member's data fails that check. 1 and *after (where the
 * enclosing member ends) when c is inside one, 0 when not, <0 on error. */
static int sp_gz_embedded(int fd, uint64_t fsize, z_stream *z, uint64_t c, uint64_t *after)
{
    uint64_t lo = c > SP_STORED_MAX + 4 ? c - SP_STORED_MAX - 4 : 0;
    size_t n = (size_t)(c - lo);
    unsigned char *b = malloc(n + 4 + SP_VIN + SP_VOUT), *in = b + n + 4, *out = in + SP_VIN;
    int res = 0;
    if (!b)
        return NDD_ERR_NOMEM;
    if (sp_pread(fd, b, n, lo) != (ssize_t)n)
        res = NDD_ERR_IO;
    for (size_t k = n; !res && k >= 4; k--) { /* a header at h = lo + k - 4 */
        unsigned len = b[k - 4] | (unsigned)b[k - 3] << 8, nlen = b[k - 2] | (unsigned)b[k - 1] << 8;
        uint64_t data_end = lo + k + len, ends[2] = {data_end, 0};
        if ((len ^ nlen) != 0xffff || data_end <= c)
            continue;
        int got = sp_deflate_end(fd, data_end, in, out, &ends[1]);
        if (got < 0) {
            res = got;
            break;
        }
        for (int e = 0; e < 1 + got && !res; e++) { /* the final stored block, or after the next ones */
            uint64_t a = ends[e] + 8;
            unsigned char m[4];
            if (a > fsize || (a < fsize && (sp_pread(fd, m, 4, a) != 4 || !sp_gz_magic(m))))
                continue;
            res = sp_gz_member_to(fd, z, in, out, c, a);
            if (res == 1)
                *after = a;
        }
    }
    free(b);
    return res;
}

int ndd_rsplit_gz_next(int fd, uint64_t fsize, uint64_t from, uint64_t *at)
{
    z_stream z;
    unsigned char *buf = malloc(SP_SCAN + SP_VIN);
    int rc = NDD_OK;
    *at = UINT64_MAX;
    memset(&z, 0, sizeof z);
    if (!buf)
        return NDD_ERR_NOMEM;
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        free(buf);
        return NDD_ERR_NOMEM;
    }
    for (uint64_t off = from; off + 4 <= fsize && *at == UINT64_MAX;) {
        ssize_t k = sp_pread(fd, buf, SP_SCAN, off);
        if (k < 0) {
            rc = NDD_ERR_IO;
            break;
        }
        if (k < 4)
            break;
        size_t n = (size_t)k, i = 0;
        uint64_t next = off + n - 3, after = 0;
        while (i + 4 <= n) {
            const unsigned char *p = memchr(buf + i, 0x1f, n - 3 - i);
            if (!p)
                break;
            i = (size_t)(p - buf);
            int ok = sp_gz_magic(p) ? sp_gz_is_warc(fd, fsize, &z, buf + SP_SCAN, off + i) : 0;
            if (ok > 0) { /* a member inside another one is no cut point: look on after it */
                int e = sp_gz_embedded(fd, fsize, &z, off + i, &after);
                ok = e < 0 ? e : !e;
            }
            if (ok < 0) {
                rc = ok;
                break;
            }
            if (ok) {
                *at = off + i;
                break;
            }
            if (after > off + i) {
                next = after;
                break;
            }
            i++;
        }
        if (rc)
            break;
        off = next;
    }
    inflateEnd(&z);
    free(buf);
    return rc;
}

/* ---- zstd frames ---- */

typedef struct {
    int fd;
    uint64_t fsize;
    unsigned char *buf;
    size_t cap, len;
    uint64_t boff; /* file offset of buf[0] */
} sp_zbuf_t;

/* Makes buf hold file bytes from off on (as many as fit, or to the end of the file). */
static int sp_zfill(sp_zbuf_t *b, uint64_t off)
{
    ssize_t k = sp_pread(b->fd, b->buf, b->cap, off);
    if (k < 0)
        return NDD_ERR_IO;
    b->boff = off;
    b->len = (size_t)k;
    return NDD_OK;
}

/* Decompressed size of the whole frame f[0..n) that does not declare it. */
static int sp_zcount(const unsigned char *f, size_t n, uint64_t *size)
{
    ZSTD_DCtx *d = ZSTD_createDCtx();
    unsigned char *out = malloc(ZSTD_DStreamOutSize());
    int rc = d && out ? NDD_OK : NDD_ERR_NOMEM;
    ZSTD_inBuffer ib = {f, n, 0};
    *size = 0;
    if (!rc)
        ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, NDD_ZSTD_WINDOW_LOG_MAX);
    while (!rc) {
        ZSTD_outBuffer ob = {out, ZSTD_DStreamOutSize(), 0};
        size_t r = ZSTD_decompressStream(d, &ob, &ib);
        if (ZSTD_isError(r)) {
            rc = NDD_ERR_FORMAT;
            break;
        }
        *size += ob.pos;
        if (r == 0)
            break;
        if (ib.pos == ib.size && ob.pos < ob.size) {
            rc = NDD_ERR_FORMAT;
            break;
        }
    }
    ZSTD_freeDCtx(d);
    free(out);
    return rc;
}

/* The frame at off: its compressed size *n and decompressed size *dn.
 * NDD_ERR_FORMAT when no whole frame begins there. */
static int sp_zframe(sp_zbuf_t *b, uint64_t off, size_t *n, uint64_t *dn)
{
    int rc;
    for (;;) {
        if (off < b->boff || off >= b->boff + b->len) {
            if ((rc = sp_zfill(b, off)))
                return rc;
        }
        const unsigned char *p = b->buf + (off - b->boff);
        size_t avail = b->len - (size_t)(off - b->boff);
        size_t fn = ZSTD_findFrameCompressedSize(p, avail);
        if (!ZSTD_isError(fn)) {
            unsigned long long cs = ZSTD_getFrameContentSize(p, avail);
            *n = fn;
            if (cs == ZSTD_CONTENTSIZE_ERROR)
                return NDD_ERR_FORMAT;
            if (cs != ZSTD_CONTENTSIZE_UNKNOWN) {
                *dn = cs;
                return NDD_OK;
            }
            return sp_zcount(p, fn, dn);
        }
        if (ZSTD_getErrorCode(fn) != ZSTD_error_srcSize_wrong || off + avail >= b->fsize)
            return NDD_ERR_FORMAT;
        if (off == b->boff) { /* the frame is longer than the buffer: grow it */
            if (b->cap >= SP_ZBUF_MAX)
                return NDD_ERR_FORMAT;
            unsigned char *nb = realloc(b->buf, b->cap * 2);
            if (!nb)
                return NDD_ERR_NOMEM;
            b->buf = nb;
            b->cap *= 2;
        }
        if ((rc = sp_zfill(b, off)))
            return rc;
    }
}

int ndd_rsplit_zst_walk(int fd, uint64_t fsize, uint64_t lo, uint64_t hi, uint64_t *a, uint64_t *a_dec, uint64_t *b)
{
    sp_zbuf_t zb = {fd, fsize, NULL, 0, 0, 0};
    uint64_t off = 0, dec = 0;
    int rc = NDD_OK;
    *a = *b = UINT64_MAX;
    *a_dec = 0;
    zb.cap = fsize < SP_ZBUF0 ? (size_t)fsize + 1 : SP_ZBUF0;
    if (!(zb.buf = malloc(zb.cap)))
        return NDD_ERR_NOMEM;
    while (off < fsize) {
        if (off < zb.boff || off >= zb.boff + zb.len) {
            if ((rc = sp_zfill(&zb, off)))
                break;
            if (zb.len == 0)
                break;
        }
        if (zb.buf[off - zb.boff] == 0) { /* zero padding between frames, as the reader skips it */
            off++;
            continue;
        }
        if (*a == UINT64_MAX && off >= lo) {
            *a = off;
            *a_dec = dec;
        }
        if (off >= hi) {
            *b = off;
            break;
        }
        size_t n = 0;
        uint64_t dn = 0;
        rc = sp_zframe(&zb, off, &n, &dn);
        if (rc == NDD_ERR_FORMAT) { /* the chain breaks here: no cut point after it */
            rc = NDD_OK;
            break;
        }
        if (rc)
            break;
        off += n;
        dec += dn;
    }
    free(zb.buf);
    return rc;
}

/* ---- detection at input listing ---- */

/* 1 when d[0..n) is exactly one WARC record: header, Content-Length bytes, CRLF CRLF. */
static int sp_one_record(const unsigned char *d, size_t n)
{
    const char *p = (const char *)d;
    if (n < 9 || memcmp(p, "WARC/", 5) != 0)
        return 0;
    uint64_t clen = UINT64_MAX;
    size_t i = 0;
    for (;;) {
        const char *nl = memchr(p + i, '\n', n - i);
        if (!nl)
            return 0;
        size_t le = (size_t)(nl - p), ce = le > i && p[le - 1] == '\r' ? le - 1 : le;
        if (ce == i) { /* blank line: end of the header */
            i = le + 1;
            break;
        }
        if (ce - i > 15 && !strncasecmp(p + i, "Content-Length:", 15)) {
            size_t k = i + 15;
            while (k < ce && (p[k] == ' ' || p[k] == '\t'))
                k++;
            clen = 0;
            for (; k < ce && p[k] >= '0' && p[k] <= '9' && clen < ((uint64_t)1 << 40); k++)
                clen = clen * 10 + (uint64_t)(p[k] - '0');
        }
        i = le + 1;
    }
    return clen != UINT64_MAX && clen <= n && i + clen + 4 == n && memcmp(p + n - 4, "\r\n\r\n", 4) == 0;
}

/* WARC with one gzip member per record? */
static int sp_detect_gz(int fd, uint64_t fsize)
{
    size_t inn = fsize < SP_GZ_FIRST_IN ? (size_t)fsize : SP_GZ_FIRST_IN, cap = 64u << 10;
    unsigned char *in = malloc(inn ? inn : 1), *out = malloc(cap);
    z_stream z;
    int split = 0;
    memset(&z, 0, sizeof z);
    ssize_t k = in && out ? sp_pread(fd, in, inn, 0) : -1;
    if (k <= 0 || inflateInit2(&z, 15 + 16) != Z_OK)
        goto out;
    z.next_in = in;
    z.avail_in = (uInt)k;
    for (;;) {
        z.next_out = out + z.total_out;
        z.avail_out = (uInt)(cap - z.total_out);
        int ret = inflate(&z, Z_NO_FLUSH);
        if (ret == Z_STREAM_END)
            break;
        if ((ret != Z_OK && ret != Z_BUF_ERROR) || z.avail_in == 0 || cap >= SP_GZ_FIRST_OUT)
            goto end; /* not one whole member within the limits */
        if (z.avail_out == 0) {
            unsigned char *o = realloc(out, cap * 2);
            if (!o)
                goto end;
            out = o;
            cap *= 2;
        }
    }
    uint64_t at = 0;
    if (sp_one_record(out, z.total_out) && z.total_in < fsize &&
        ndd_rsplit_gz_next(fd, fsize, z.total_in, &at) == NDD_OK && at == z.total_in)
        split = 1;
end:
    inflateEnd(&z);
out:
    free(in);
    free(out);
    return split;
}

/* JSONL as several zstd frames? */
static int sp_detect_zst(int fd, uint64_t fsize)
{
    size_t n = fsize < NDD_RSPLIT_DETECT_MAX ? (size_t)fsize : NDD_RSPLIT_DETECT_MAX;
    unsigned char *b = malloc(n + 4);
    int split = 0;
    ssize_t k = b ? sp_pread(fd, b, n, 0) : -1;
    if (k > 0) {
        size_t fn = ZSTD_findFrameCompressedSize(b, (size_t)k);
        unsigned char m[18]; /* ZSTD_FRAMEHEADERSIZE_MAX: the next frame's header, checked by libzstd */
        ssize_t h = !ZSTD_isError(fn) && fn < fsize ? sp_pread(fd, m, sizeof m, fn) : -1;
        if (h >= 5 && ZSTD_getFrameContentSize(m, (size_t)h) != ZSTD_CONTENTSIZE_ERROR)
            split = 1;
    }
    free(b);
    return split;
}

int ndd_rsplit_detect(const char *path, ndd_format_t fmt, int comp)
{
    int want = fmt == NDD_FMT_WARC && comp == 1 ? NDD_SPLIT_GZ_RECORDS
               : fmt == NDD_FMT_JSONL && comp == 2 ? NDD_SPLIT_ZST_FRAMES
                                                   : NDD_SPLIT_NONE;
    if (want == NDD_SPLIT_NONE)
        return want;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int ok = 0;
    if (fd < 0)
        return NDD_SPLIT_NONE;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        ok = want == NDD_SPLIT_GZ_RECORDS ? sp_detect_gz(fd, (uint64_t)st.st_size)
                                          : sp_detect_zst(fd, (uint64_t)st.st_size);
    close(fd);
    return ok ? want : NDD_SPLIT_NONE;
}
