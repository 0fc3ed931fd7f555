/* ndd_rstream.c - see ndd_rstream.h */
#include "ndd_rstream.h"
#include "ndd_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <zstd_errors.h>

#define RS_IN_MAX (1u << 20)        /* compressed input buffer */
#define RS_IN_MIN (64u << 10)
#define RS_SCAN (64u << 10)         /* scan chunk when looking for the next member */
#define RS_PIN (64u << 10)          /* probe input chunk */
#define RS_POUT (64u << 10)         /* probe output chunk */
#define RS_PROBE_OUT (256u << 10)   /* a candidate member must decode this much (or end) */
#define RS_PROBE_IN (8u << 20)      /* ... reading at most this much input */

static ssize_t rs_pread(int fd, void *buf, size_t n, uint64_t off)
{
    for (;;) {
        ssize_t k = pread(fd, buf, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        return k;
    }
}

void ndd_rstream_close(ndd_rstream_t *s)
{
    int e = errno;
    free(s->w);
    free(s->in);
    free(s->scratch);
    free(s->u_comp);
    free(s->u_dec);
    if (s->z_ready)
        inflateEnd(&s->z);
    if (s->pz_ready)
        inflateEnd(&s->pz);
    ZSTD_freeDCtx(s->zd);
    ZSTD_freeDCtx(s->pzd);
    if (s->fd >= 0)
        close(s->fd);
    memset(s, 0, sizeof *s);
    s->fd = -1;
    errno = e;
}

int ndd_rstream_open(ndd_rstream_t *s, const char *path, size_t init_cap, size_t max_cap)
{
    int rc = NDD_OK;
    memset(s, 0, sizeof *s);
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0)
        return NDD_ERR_IO;
    unsigned char m[4] = {0, 0, 0, 0};
    ssize_t k = rs_pread(s->fd, m, 4, 0);
    if (k < 0) {
        rc = NDD_ERR_IO;
        goto out;
    }
    if (k >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        s->comp = NDD_RS_GZIP;
    else if (k >= 4 && ((m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) ||
                        ((m[0] & 0xF0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18)))
        s->comp = NDD_RS_ZSTD; /* a zstd frame, or a skippable frame (pzstd writes one first) */
    else
        s->comp = NDD_RS_PLAIN;

    if (max_cap < 256)
        max_cap = 256;
    if (init_cap < 256)
        init_cap = 256;
    if (init_cap > max_cap)
        init_cap = max_cap;
    s->max_cap = max_cap;
    s->cap = init_cap;
    s->w = malloc(s->cap);
    if (!s->w) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    s->w[0] = '\0';
    if (s->comp != NDD_RS_PLAIN) {
        s->in_cap = init_cap < RS_IN_MIN ? RS_IN_MIN : init_cap > RS_IN_MAX ? RS_IN_MAX : init_cap;
        s->in = malloc(s->in_cap);
        if (!s->in) {
            rc = NDD_ERR_NOMEM;
            goto out;
        }
    }
    if (s->comp == NDD_RS_GZIP) {
        if (inflateInit2(&s->z, 15 + 32) != Z_OK) {
            rc = NDD_ERR_NOMEM;
            goto out;
        }
        s->z_ready = 1;
    } else if (s->comp == NDD_RS_ZSTD) {
        s->zd = ZSTD_createDCtx();
        if (!s->zd) {
            rc = NDD_ERR_NOMEM;
            goto out;
        }
        ZSTD_DCtx_setParameter(s->zd, ZSTD_d_windowLogMax, NDD_ZSTD_WINDOW_LOG_MAX);
    }
out:
    if (rc)
        ndd_rstream_close(s);
    return rc;
}

int ndd_rstream_seek(ndd_rstream_t *s, uint64_t off)
{
    if (s->comp != NDD_RS_PLAIN)
        return NDD_ERR_INVAL;
    s->pos = s->len = 0;
    s->base = off;
    s->file_off = off;
    s->eof = 0;
    return NDD_OK;
}

int ndd_rstream_start_at(ndd_rstream_t *s, uint64_t comp_off, uint64_t dec_off)
{
    if (s->comp == NDD_RS_PLAIN || s->len || s->in_len)
        return NDD_ERR_INVAL;
    s->in_off = comp_off;
    s->base = dec_off;
    s->start_comp = comp_off;
    s->start_dec = dec_off;
    s->keep_from = dec_off;
    s->track_units = 1;
    return NDD_OK;
}

void ndd_rstream_unit_of(const ndd_rstream_t *s, uint64_t x, uint64_t *comp, uint64_t *dec)
{
    size_t lo = s->u_head, hi = s->u_n; /* the last i with u_dec[i] <= x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->u_dec[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == s->u_head) {
        *comp = s->start_comp;
        *dec = s->start_dec;
        return;
    }
    *comp = s->u_comp[lo - 1];
    *dec = s->u_dec[lo - 1];
}

/* Records that a member/frame begins at file offset unit_start. */
static int rs_unit_push(ndd_rstream_t *s)
{
    while (s->u_n - s->u_head >= 2 && s->u_dec[s->u_head + 1] <= s->keep_from)
        s->u_head++;
    if (s->u_head > 0 && s->u_head >= s->u_n / 2) {
        memmove(s->u_comp, s->u_comp + s->u_head, (s->u_n - s->u_head) * sizeof *s->u_comp);
        memmove(s->u_dec, s->u_dec + s->u_head, (s->u_n - s->u_head) * sizeof *s->u_dec);
        s->u_n -= s->u_head;
        s->u_head = 0;
    }
    if (s->u_n == s->u_cap) {
        size_t cap = s->u_cap ? s->u_cap * 2 : 64;
        uint64_t *c = realloc(s->u_comp, cap * sizeof *c);
        if (c)
            s->u_comp = c;
        uint64_t *d = c ? realloc(s->u_dec, cap * sizeof *d) : NULL;
        if (!d)
            return NDD_ERR_NOMEM;
        s->u_dec = d;
        s->u_cap = cap;
    }
    s->u_comp[s->u_n] = s->unit_start;
    s->u_dec[s->u_n] = s->base + s->len;
    s->u_n++;
    return NDD_OK;
}

/* ---- compressed input ---- */

/* Reads more compressed input, keeping the unread tail. */
static int rs_in_more(ndd_rstream_t *s)
{
    if (s->in_pos > 0) {
        memmove(s->in, s->in + s->in_pos, s->in_len - s->in_pos);
        s->in_off += s->in_pos;
        s->in_len -= s->in_pos;
        s->in_pos = 0;
    }
    if (s->in_len == s->in_cap || s->in_eof)
        return NDD_OK;
    ssize_t k = rs_pread(s->fd, s->in + s->in_len, s->in_cap - s->in_len, s->in_off + s->in_len);
    if (k < 0)
        return NDD_ERR_IO;
    if (k == 0)
        s->in_eof = 1;
    s->in_len += (size_t)k;
    return NDD_OK;
}

static int rs_is_magic(const ndd_rstream_t *s, const unsigned char *b)
{
    if (s->comp == NDD_RS_GZIP)
        return b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 && (b[3] & 0xE0) == 0;
    return b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd;
}

static int rs_scratch(ndd_rstream_t *s)
{
    if (s->scratch)
        return NDD_OK;
    s->scratch = malloc(RS_SCAN + RS_PIN + RS_POUT);
    return s->scratch ? NDD_OK : NDD_ERR_NOMEM;
}

/* Does a member/frame starting at file offset off decode (RS_PROBE_OUT
 * bytes, or its end, or up to the end of the file without error)? 1 yes,
 * 0 no, <0 error. Uses its own decoder and buffers: the main decoder state
 * is left alone. */
static int rs_probe(ndd_rstream_t *s, uint64_t off)
{
    int rc = rs_scratch(s);
    if (rc)
        return rc;
    unsigned char *pin = s->scratch + RS_SCAN, *pout = pin + RS_PIN;
    size_t total_out = 0, total_in = 0;
    if (s->comp == NDD_RS_GZIP) {
        if (!s->pz_ready) {
            memset(&s->pz, 0, sizeof s->pz);
            if (inflateInit2(&s->pz, 15 + 32) != Z_OK)
                return NDD_ERR_NOMEM;
            s->pz_ready = 1;
        } else {
            inflateReset(&s->pz);
        }
    } else {
        if (!s->pzd && !(s->pzd = ZSTD_createDCtx()))
            return NDD_ERR_NOMEM;
        ZSTD_DCtx_setParameter(s->pzd, ZSTD_d_windowLogMax, NDD_ZSTD_WINDOW_LOG_MAX);
        ZSTD_DCtx_reset(s->pzd, ZSTD_reset_session_only);
    }
    for (;;) {
        ssize_t k = rs_pread(s->fd, pin, RS_PIN, off);
        if (k < 0)
            return NDD_ERR_IO;
        if (k == 0)
            return 1; /* decodes up to the end of the file: a (truncated) member */
        off += (uint64_t)k;
        total_in += (size_t)k;
        if (s->comp == NDD_RS_GZIP) {
            s->pz.next_in = pin;
            s->pz.avail_in = (uInt)k;
            while (s->pz.avail_in > 0) {
                s->pz.next_out = pout;
                s->pz.avail_out = RS_POUT;
                int ret = inflate(&s->pz, Z_NO_FLUSH);
                total_out += RS_POUT - s->pz.avail_out;
                if (ret == Z_STREAM_END)
                    return 1;
                if (ret == Z_MEM_ERROR)
                    return NDD_ERR_NOMEM;
                if (ret != Z_OK && ret != Z_BUF_ERROR)
                    return 0;
                if (total_out >= RS_PROBE_OUT)
                    return 1;
            }
        } else {
            ZSTD_inBuffer ib = {pin, (size_t)k, 0};
            while (ib.pos < ib.size) {
                ZSTD_outBuffer ob = {pout, RS_POUT, 0};
                size_t r = ZSTD_decompressStream(s->pzd, &ob, &ib);
                if (ZSTD_isError(r))
                    return ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? NDD_ERR_NOMEM : 0;
                total_out += ob.pos;
                if (r == 0 || total_out >= RS_PROBE_OUT)
                    return 1;
            }
        }
        if (total_in >= RS_PROBE_IN)
            return 1;
    }
}

/* gzip: does the current member, whose decoder has taken the input up to
 * in[lim), go on to its own end (CRC and length checked by zlib) through
 * the bytes from there? Then a member that decodes at in[lim] lies inside
 * its data (a .gz file stored verbatim in a record), not after a cut. 1 yes,
 * 0 no (an error, or not within RS_PROBE_IN bytes), <0 error. The decoder
 * state is copied: the main decoder is left alone. */
static int rs_member_goes_on(ndd_rstream_t *s, size_t lim)
{
    int rc = rs_scratch(s), ok = 0;
    if (rc)
        return rc;
    unsigned char *pin = s->scratch + RS_SCAN, *pout = pin + RS_PIN;
    z_stream c;
    memset(&c, 0, sizeof c);
    if (inflateCopy(&c, &s->z) != Z_OK)
        return NDD_ERR_NOMEM;
    uint64_t off = s->in_off + s->in_len, total = 0;
    c.next_in = s->in + lim;
    c.avail_in = (uInt)(s->in_len - lim);
    for (;;) {
        if (c.avail_in == 0) {
            ssize_t k = total < RS_PROBE_IN ? rs_pread(s->fd, pin, RS_PIN, off) : 0;
            if (k <= 0) {
                rc = k < 0 ? NDD_ERR_IO : NDD_OK;
                break;
            }
            off += (uint64_t)k;
            total += (uint64_t)k;
            c.next_in = pin;
            c.avail_in = (uInt)k;
        }
        c.next_out = pout;
        c.avail_out = RS_POUT;
        int ret = inflate(&c, Z_NO_FLUSH);
        if (ret == Z_STREAM_END)
            ok = 1;
        if (ret == Z_MEM_ERROR)
            rc = NDD_ERR_NOMEM;
        if (ret != Z_OK && !(ret == Z_BUF_ERROR && c.avail_in == 0))
            break;
    }
    inflateEnd(&c);
    return rc ? rc : ok;
}

/* First offset >= from where a member/frame that decodes begins. */
static int rs_scan(ndd_rstream_t *s, uint64_t from, uint64_t *cand, int *found)
{
    *found = 0;
    int rc = rs_scratch(s);
    if (rc)
        return rc;
    unsigned char *buf = s->scratch;
    const unsigned char first = s->comp == NDD_RS_GZIP ? 0x1f : 0x28;
    uint64_t off = from;
    for (;;) {
        ssize_t k = rs_pread(s->fd, buf, RS_SCAN, off);
        if (k < 0)
            return NDD_ERR_IO;
        if (k < 4)
            return NDD_OK;
        size_t n = (size_t)k, i = 0;
        while (i + 4 <= n) {
            const unsigned char *p = memchr(buf + i, first, n - 3 - i);
            if (!p)
                break;
            i = (size_t)(p - buf);
            if (rs_is_magic(s, p)) {
                int ok = rs_probe(s, off + i);
                if (ok < 0)
                    return ok;
                if (ok) {
                    *cand = off + i;
                    *found = 1;
                    return NDD_OK;
                }
            }
            i++;
        }
        off += n - 3;
    }
}

static void rs_break(ndd_rstream_t *s, int truncated, int found, uint64_t at)
{
    int gz = s->comp == NDD_RS_GZIP;
    s->brk = 1;
    s->resume_ok = found;
    s->resume_at = at;
    s->in_unit = 0;
    if (truncated)
        s->brk_reason = gz ? "truncated gzip member" : "truncated zstd frame";
    else
        s->brk_reason = gz ? "corrupt gzip data" : "corrupt zstd data";
}

/* Damage found by the decoder. kind 0: the input ended inside a member;
 * 1: decoder error; 2: bytes that are no member at a member boundary.
 * Members are looked for from scan_from on. */
static int rs_damage(ndd_rstream_t *s, int kind, uint64_t scan_from)
{
    uint64_t cand = 0;
    int found = 0;
    int rc = rs_scan(s, scan_from, &cand, &found);
    if (rc < 0)
        return rc;
    rs_break(s, kind == 0, found, cand);
    return NDD_OK;
}

/* At a member/frame boundary: skips zero padding, checks the gzip magic. */
static int rs_unit_start(ndd_rstream_t *s)
{
    int rc;
    for (;;) {
        while (s->in_pos < s->in_len && s->in[s->in_pos] == 0)
            s->in_pos++;
        if (s->in_pos < s->in_len)
            break;
        if (s->in_eof) {
            s->eof = 1;
            return NDD_OK;
        }
        if ((rc = rs_in_more(s)) < 0)
            return rc;
    }
    if (s->comp == NDD_RS_GZIP) {
        if (s->in_len - s->in_pos < 2 && !s->in_eof && (rc = rs_in_more(s)) < 0)
            return rc;
        const unsigned char *p = s->in + s->in_pos;
        if (s->in_len - s->in_pos < 2 || p[0] != 0x1f || p[1] != 0x8b)
            return rs_damage(s, 2, s->in_off + s->in_pos);
        inflateReset(&s->z);
    }
    s->unit_start = s->in_off + s->in_pos;
    s->magic_from = s->unit_start + 1;
    s->in_unit = 1;
    return s->track_units ? rs_unit_push(s) : NDD_OK;
}

/* How far the decoder may read now: up to the next place where another
 * member/frame could begin (its magic), which must be looked at before the
 * decoder goes past it. *at_cand tells whether the limit is such a place. */
static size_t rs_limit(ndd_rstream_t *s, int *at_cand)
{
    *at_cand = 0;
    size_t from = s->in_pos;
    if (s->magic_from > s->in_off + from)
        from = (size_t)(s->magic_from - s->in_off);
    size_t end4 = s->in_len >= 4 ? s->in_len - 3 : 0; /* a magic needs 4 bytes */
    const unsigned char first = s->comp == NDD_RS_GZIP ? 0x1f : 0x28;
    size_t i = from;
    while (i < end4) {
        const unsigned char *p = memchr(s->in + i, first, end4 - i);
        if (!p)
            break;
        i = (size_t)(p - s->in);
        if (rs_is_magic(s, p)) {
            *at_cand = 1;
            return i;
        }
        i++;
    }
    if (end4 > from)
        s->magic_from = s->in_off + end4;
    if (s->in_eof)
        return s->in_len;
    return end4 > s->in_pos ? end4 : s->in_pos;
}

static int rs_decode(ndd_rstream_t *s)
{
    int rc;
    if (s->in_pos == s->in_len && !s->in_eof && (rc = rs_in_more(s)) < 0)
        return rc;
    if (!s->in_unit) {
        if ((rc = rs_unit_start(s)) < 0)
            return rc;
        if (s->eof || s->brk)
            return NDD_OK;
    }
    int at_cand;
    size_t lim = rs_limit(s, &at_cand);
    if (lim == s->in_pos && !at_cand && !s->in_eof)
        return rs_in_more(s); /* only a possible magic's first bytes are left */
    size_t len0 = s->len, in0 = s->in_pos;
    size_t room = s->cap - 1 - s->len;
    int out_full;
    if (s->comp == NDD_RS_GZIP) {
        s->z.next_in = s->in + s->in_pos;
        s->z.avail_in = (uInt)(lim - s->in_pos);
        s->z.next_out = (Bytef *)(s->w + s->len);
        s->z.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
        int ret = inflate(&s->z, Z_NO_FLUSH);
        s->in_pos = lim - s->z.avail_in;
        s->len = (size_t)((char *)s->z.next_out - s->w);
        if (ret == Z_STREAM_END) {
            s->in_unit = 0;
            return NDD_OK;
        }
        if (ret == Z_MEM_ERROR)
            return NDD_ERR_NOMEM;
        if (ret != Z_OK && ret != Z_BUF_ERROR)
            return rs_damage(s, 1, s->magic_from > s->unit_start + 1 ? s->magic_from : s->unit_start + 1);
        out_full = s->z.avail_out == 0;
    } else {
        ZSTD_inBuffer ib = {s->in, lim, s->in_pos};
        ZSTD_outBuffer ob = {s->w, s->cap - 1, s->len};
        size_t r = ZSTD_decompressStream(s->zd, &ob, &ib);
        s->in_pos = ib.pos;
        s->len = ob.pos;
        if (ZSTD_isError(r)) {
            if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
                return NDD_ERR_NOMEM;
            int rc2 = rs_damage(s, 1, s->magic_from > s->unit_start + 1 ? s->magic_from : s->unit_start + 1);
            if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
                s->brk_reason = "zstd frame needs a window over 128 MiB (NDD_ZSTD_WINDOW_LOG_MAX)";
            return rc2;
        }
        if (r == 0) {
            s->in_unit = 0;
            return NDD_OK;
        }
        out_full = ob.pos == ob.size;
    }
    if (at_cand && s->in_pos == lim && !out_full) {
        /* the member goes on past the start of what looks like another one:
         * if that one decodes, this member was cut short there */
        uint64_t at = s->in_off + lim;
        int ok = rs_probe(s, at);
        if (ok > 0 && s->comp == NDD_RS_GZIP)
            ok = (ok = rs_member_goes_on(s, lim)) < 0 ? ok : !ok;
        if (ok < 0)
            return ok;
        if (ok) {
            rs_break(s, 1, 1, at);
            return NDD_OK;
        }
        s->magic_from = at + 1; /* a chance match inside compressed data */
        return NDD_OK;
    }
    if (s->len == len0 && s->in_pos == in0) {
        /* no progress: the decoder wants input that is not there */
        if (s->in_eof)
            return rs_damage(s, 0, s->magic_from > s->unit_start + 1 ? s->magic_from : s->unit_start + 1);
        if ((rc = rs_in_more(s)) < 0)
            return rc;
    }
    return NDD_OK;
}

static int rs_plain(ndd_rstream_t *s)
{
    ssize_t k = rs_pread(s->fd, s->w + s->len, s->cap - 1 - s->len, s->file_off);
    if (k < 0)
        return NDD_ERR_IO;
    if (k == 0)
        s->eof = 1;
    s->len += (size_t)k;
    s->file_off += (uint64_t)k;
    return NDD_OK;
}

int ndd_rstream_fill(ndd_rstream_t *s, size_t need)
{
    if (s->len - s->pos >= need)
        return NDD_RS_OK;
    if (s->brk)
        return NDD_RS_BREAK;
    if (s->eof)
        return NDD_RS_EOF;
    if (need >= s->max_cap)
        return NDD_ERR_LIMIT;
    if (s->pos > 0) {
        memmove(s->w, s->w + s->pos, s->len - s->pos);
        s->base += s->pos;
        s->len -= s->pos;
        s->pos = 0;
    }
    /* grow when the request does not fit or the free room got small */
    if (need + 1 > s->cap || (s->cap - 1 - s->len < s->cap / 4 && s->cap < s->max_cap)) {
        size_t cap = s->cap;
        while (cap < need + 1 || cap - 1 - s->len < cap / 4) {
            if (cap >= s->max_cap / 2) {
                cap = s->max_cap;
                break;
            }
            cap *= 2;
        }
        char *w = realloc(s->w, cap);
        if (!w)
            return NDD_ERR_NOMEM;
        s->w = w;
        s->cap = cap;
    }
    while (s->len - s->pos < need) {
        if (s->brk)
            return NDD_RS_BREAK;
        if (s->eof)
            return NDD_RS_EOF;
        int rc = s->comp == NDD_RS_PLAIN ? rs_plain(s) : rs_decode(s);
        if (rc < 0)
            return rc;
    }
    return NDD_RS_OK;
}

int ndd_rstream_resume(ndd_rstream_t *s)
{
    if (!s->brk)
        return NDD_OK;
    s->brk = 0;
    s->pos = s->len;
    if (!s->resume_ok) {
        s->eof = 1;
        return NDD_OK;
    }
    s->in_off = s->resume_at;
    s->in_pos = s->in_len = 0;
    s->in_eof = 0;
    s->in_unit = 0;
    if (s->comp == NDD_RS_ZSTD)
        ZSTD_DCtx_reset(s->zd, ZSTD_reset_session_only);
    return NDD_OK;
}

int ndd_rstream_sniff(const char *path, char *buf, size_t cap, size_t *n, int *comp)
{
    ndd_rstream_t s;
    *n = 0;
    int rc = ndd_rstream_open(&s, path, 64u << 10, (64u << 10) + cap + 1);
    if (rc)
        return rc;
    *comp = s.comp;
    rc = ndd_rstream_fill(&s, cap);
    if (rc >= 0) {
        size_t k = ndd_rstream_avail(&s);
        if (k > cap)
            k = cap;
        memcpy(buf, ndd_rstream_ptr(&s), k);
        *n = k;
        rc = NDD_OK;
    }
    ndd_rstream_close(&s);
    return rc;
}
