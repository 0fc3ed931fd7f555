/* ndd_warc.c - WARC / WET records (ISO 28500, WARC/0.x and 1.x headers).
 *
 * A record is "WARC/x.y" CRLF, header lines, CRLF, Content-Length bytes of
 * block, CRLF CRLF. The record is trusted only when its end is followed by
 * that trailer and then the end of data or the next "WARC/" line; otherwise
 * it is rejected ("WARC record length mismatch") and reading resynchronises
 * at the next line starting with "WARC/" after the record's header.
 * response (HTTP payload), resource (text/html) and conversion (WET text)
 * records give documents; other record types are skipped. */
#include "ndd_reader_int.h"

#include <stdio.h>
#include <string.h>

#define WARC_MAX_HEADER ((size_t)256 << 10)
#define WARC_MAX_PEEK 4096

enum { WH_OK = 0, WH_EOF = 1, WH_BREAK = 2, WH_NOTREC = 3, WH_BADHDR = 4, WH_TRUNC = 5 };

typedef struct {
    size_t off, n; /* relative to the record start */
} wspan_t;

typedef struct {
    size_t hdr_len; /* record start to block start */
    uint64_t clen;
    int has_clen;
    wspan_t type, id, uri, date, ctype;
} whdr_t;

static int w_trim(const char *p, size_t *a, size_t *b)
{
    while (*a < *b && (p[*a] == ' ' || p[*a] == '\t'))
        (*a)++;
    while (*b > *a && (p[*b - 1] == ' ' || p[*b - 1] == '\t'))
        (*b)--;
    return *b > *a;
}

/* Skips blank lines, then reads the header at the record start (left at
 * s->pos). */
static int w_header(ndd_reader_t *r, whdr_t *h)
{
    ndd_rstream_t *s = &r->s;
    int rc;
    memset(h, 0, sizeof *h);
    for (;;) {
        size_t a = ndd_rstream_avail(s), i = 0;
        const char *p = ndd_rstream_ptr(s);
        while (i < a && (p[i] == '\r' || p[i] == '\n'))
            i++;
        s->pos += i;
        if (i < a)
            break;
        rc = ndd_rstream_fill(s, 1);
        if (rc == NDD_RS_EOF)
            return WH_EOF;
        if (rc == NDD_RS_BREAK)
            return WH_BREAK;
        if (rc < 0)
            return rc;
    }
    size_t i = 0;
    int first = 1;
    for (;;) {
        const char *p = ndd_rstream_ptr(s);
        size_t a = ndd_rstream_avail(s);
        const char *nl = memchr(p + i, '\n', a - i);
        if (!nl) {
            if (first && a >= 5 && memcmp(p, "WARC/", 5) != 0)
                return WH_NOTREC;
            if (a >= WARC_MAX_HEADER)
                return first ? WH_NOTREC : WH_BADHDR;
            rc = ndd_rstream_fill(s, a + 1);
            if (rc == NDD_RS_OK)
                continue;
            if (rc == NDD_RS_EOF) {
                /* fill may have moved the window (memmove, realloc) before it
                 * met the end: p is stale */
                p = ndd_rstream_ptr(s);
                a = ndd_rstream_avail(s);
                return first && memcmp(p, "WARC/", a < 5 ? a : 5) != 0 ? WH_NOTREC : WH_TRUNC;
            }
            if (rc == NDD_RS_BREAK)
                return WH_BREAK;
            return rc;
        }
        size_t le = (size_t)(nl - p), ce = le;
        if (ce > i && p[ce - 1] == '\r')
            ce--;
        if (first) {
            if (ce - i < 5 || memcmp(p + i, "WARC/", 5) != 0)
                return WH_NOTREC;
            first = 0;
        } else if (ce == i) {
            h->hdr_len = le + 1;
            break;
        } else if (p[i] != ' ' && p[i] != '\t') {
            const char *colon = memchr(p + i, ':', ce - i);
            if (colon) {
                size_t na = i, nb = (size_t)(colon - p), va = nb + 1, vb = ce;
                w_trim(p, &na, &nb);
                w_trim(p, &va, &vb);
                const char *name = p + na;
                size_t nn = nb - na;
                wspan_t v = {va, vb - va};
                if (ndd_reader_ieq(name, nn, "WARC-Type"))
                    h->type = v;
                else if (ndd_reader_ieq(name, nn, "WARC-Record-ID"))
                    h->id = v;
                else if (ndd_reader_ieq(name, nn, "WARC-Target-URI"))
                    h->uri = v;
                else if (ndd_reader_ieq(name, nn, "WARC-Date"))
                    h->date = v;
                else if (ndd_reader_ieq(name, nn, "Content-Type"))
                    h->ctype = v;
                else if (ndd_reader_ieq(name, nn, "Content-Length")) {
                    uint64_t x = 0;
                    size_t k = va;
                    if (k == vb)
                        return WH_BADHDR;
                    for (; k < vb; k++) {
                        if (p[k] < '0' || p[k] > '9' || x > (UINT64_MAX - 9) / 10)
                            return WH_BADHDR;
                        x = x * 10 + (uint64_t)(p[k] - '0');
                    }
                    h->clen = x;
                    h->has_clen = 1;
                }
            }
        }
        i = le + 1;
        if (i >= WARC_MAX_HEADER)
            return WH_BADHDR;
    }
    return h->has_clen ? WH_OK : WH_BADHDR;
}

/* First "\nWARC/" in p[0..n), or NULL. */
static const char *w_find(const char *p, size_t n)
{
    const char *e = p + n;
    while (e - p >= 6) {
        const char *nl = memchr(p, '\n', (size_t)(e - p) - 5);
        if (!nl)
            return NULL;
        if (memcmp(nl + 1, "WARC/", 5) == 0)
            return nl;
        p = nl + 1;
    }
    return NULL;
}

/* Moves s->pos to the next line starting with "WARC/" at or after relative
 * index from (>= 1). NDD_RS_OK, NDD_RS_EOF (none: window emptied),
 * NDD_RS_BREAK or <0. */
static int w_resync(ndd_reader_t *r, size_t from)
{
    ndd_rstream_t *s = &r->s;
    size_t st = from - 1;
    for (;;) {
        const char *p = ndd_rstream_ptr(s);
        size_t a = ndd_rstream_avail(s);
        if (a >= st + 6) {
            const char *f = w_find(p + st, a - st);
            if (f) {
                s->pos += (size_t)(f - p) + 1;
                return NDD_RS_OK;
            }
            s->pos += a - 5;
            st = 0;
            a = 5;
        }
        int rc = ndd_rstream_fill(s, a + 1);
        if (rc == NDD_RS_EOF) {
            s->pos = s->len;
            return NDD_RS_EOF;
        }
        if (rc != NDD_RS_OK)
            return rc;
    }
}

/* Looks for a "WARC/" line in the bytes already held, from relative index
 * from; moves there and returns 1 when found. */
static int w_resync_held(ndd_reader_t *r, size_t from)
{
    ndd_rstream_t *s = &r->s;
    const char *p = ndd_rstream_ptr(s);
    size_t a = ndd_rstream_avail(s), st = from - 1;
    if (a < st + 6)
        return 0;
    const char *f = w_find(p + st, a - st);
    if (!f)
        return 0;
    s->pos += (size_t)(f - p) + 1;
    return 1;
}

/* The compressed data broke inside record ord (at offset off): rejects the
 * record with the stream's reason and resumes after the damage. */
static int w_reject_break(ndd_reader_t *r, uint64_t ord, uint64_t off)
{
    int rc;
    ndd_reader_reject_emit(r, ord, off, r->s.brk_reason);
    if ((rc = ndd_rstream_resume(&r->s)) < 0)
        return rc;
    r->after_break = 1;
    return NDD_OK;
}

/* w_resync, and when it meets a break: reject it and resume after it. */
static int w_resync_rb(ndd_reader_t *r, size_t from)
{
    int rc = w_resync(r, from);
    if (rc == NDD_RS_BREAK)
        return w_reject_break(r, r->next_ordinal++, ndd_rstream_offset(&r->s));
    return rc < 0 ? rc : NDD_OK;
}

static int w_crlf_only(const char *p, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        if (p[i] != '\r' && p[i] != '\n')
            return 0;
    return 1;
}

/* Checks the record end at relative index bend (block fully held). *ok = 1
 * when followed by CRLF CRLF (or LF LF) and then the end of data, a break
 * or a "WARC/" line; *next = index after the trailer and blank lines. */
static int w_trailer(ndd_reader_t *r, size_t bend, int *ok, size_t *next)
{
    ndd_rstream_t *s = &r->s;
    *ok = 0;
    int rc = ndd_rstream_fill(s, bend + 4);
    if (rc < 0)
        return rc;
    const char *p = ndd_rstream_ptr(s);
    size_t a = ndd_rstream_avail(s);
    if (rc != NDD_RS_OK) { /* data ends within the trailer: accept a partial CR/LF trailer */
        *ok = a >= bend && w_crlf_only(p, bend, a);
        *next = a;
        return NDD_OK;
    }
    size_t i;
    if (memcmp(p + bend, "\r\n\r\n", 4) == 0)
        i = bend + 4;
    else if (p[bend] == '\n' && p[bend + 1] == '\n')
        i = bend + 2;
    else
        return NDD_OK;
    for (;;) {
        rc = ndd_rstream_fill(s, i + 5);
        if (rc == NDD_ERR_LIMIT) {
            *ok = 1;
            *next = i;
            return NDD_OK;
        }
        if (rc < 0)
            return rc;
        p = ndd_rstream_ptr(s);
        a = ndd_rstream_avail(s);
        while (i < a && (p[i] == '\r' || p[i] == '\n'))
            i++;
        *next = i;
        if (i + 5 <= a) {
            *ok = memcmp(p + i, "WARC/", 5) == 0;
            return NDD_OK;
        }
        if (rc == NDD_RS_EOF) {
            *ok = i == a;
            return NDD_OK;
        }
        if (rc == NDD_RS_BREAK || i - bend > WARC_MAX_PEEK) {
            *ok = 1;
            return NDD_OK;
        }
    }
}

/* Copies a header value, without surrounding angle brackets. */
static int w_copy(ndd_buf_t *b, const char *p, size_t n)
{
    if (n >= 2 && p[0] == '<' && p[n - 1] == '>') {
        p++;
        n -= 2;
    }
    ndd_buf_clear(b);
    int rc = ndd_buf_append(b, p, n);
    if (rc)
        return rc;
    if (!ndd_utf8_valid(b->data, b->len) || memchr(b->data, 0, b->len)) {
        /* keep ids printable and valid: replace bad bytes by '?' */
        for (size_t i = 0; i < b->len;) {
            size_t k = ndd_utf8_valid_prefix(b->data + i, b->len - i);
            i += k;
            if (i < b->len)
                b->data[i++] = '?';
        }
        for (size_t i = 0; i < b->len; i++)
            if (!b->data[i])
                b->data[i] = '?';
    }
    return NDD_OK;
}

/* HTTP response block b[0..n): status, headers, payload. */
typedef struct {
    int status;
    const char *ct, *te, *ce;
    size_t ctn, ten, cen;
    size_t body; /* index of the payload */
} whttp_t;

static int w_http(const char *b, size_t n, whttp_t *h)
{
    memset(h, 0, sizeof *h);
    const char *nl = memchr(b, '\n', n);
    if (!nl || n < 5 || memcmp(b, "HTTP/", 5) != 0)
        return NDD_ERR_FORMAT;
    const char *sp = memchr(b, ' ', (size_t)(nl - b));
    if (!sp || nl - sp < 4)
        return NDD_ERR_FORMAT;
    int code = 0;
    for (int k = 1; k <= 3; k++) {
        if (sp[k] < '0' || sp[k] > '9')
            return NDD_ERR_FORMAT;
        code = code * 10 + (sp[k] - '0');
    }
    h->status = code;
    size_t i = (size_t)(nl - b) + 1;
    for (;;) {
        if (i >= n)
            return NDD_ERR_FORMAT; /* no blank line after the headers */
        nl = memchr(b + i, '\n', n - i);
        size_t le = nl ? (size_t)(nl - b) : n, ce = le;
        if (ce > i && b[ce - 1] == '\r')
            ce--;
        if (ce == i) {
            if (!nl)
                return NDD_ERR_FORMAT;
            h->body = le + 1;
            return NDD_OK;
        }
        const char *colon = memchr(b + i, ':', ce - i);
        if (colon) {
            size_t na = i, nb = (size_t)(colon - b), va = nb + 1, vb = ce;
            w_trim(b, &na, &nb);
            w_trim(b, &va, &vb);
            if (ndd_reader_ieq(b + na, nb - na, "Content-Type")) {
                h->ct = b + va;
                h->ctn = vb - va;
            } else if (ndd_reader_ieq(b + na, nb - na, "Transfer-Encoding")) {
                h->te = b + va;
                h->ten = vb - va;
            } else if (ndd_reader_ieq(b + na, nb - na, "Content-Encoding")) {
                h->ce = b + va;
                h->cen = vb - va;
            }
        }
        if (!nl)
            return NDD_ERR_FORMAT;
        i = le + 1;
    }
}

static int w_contains_ci(const char *p, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    for (size_t i = 0; i + m <= n; i++)
        if (ndd_reader_ieq(p + i, m, lit))
            return 1;
    return 0;
}

/* Payload of a response/resource record: content type, transfer and
 * content codings, then the common body checks. */
static int w_payload(ndd_reader_t *r, char *p, size_t n, const char *ct, size_t ctn, const whttp_t *http,
                     ndd_doc_t *doc, const char **why)
{
    const char *cs;
    size_t csn;
    int kind = ndd_reader_ctype(ct, ctn, &cs, &csn);
    if (kind == -1) {
        *why = "non-text payload";
        return NDD_ERR_FORMAT;
    }
    int rc;
    if (http && http->ten && w_contains_ci(http->te, http->ten, "chunked")) {
        rc = ndd_reader_dechunk(p, n, &r->tmp1);
        if (rc == NDD_OK) {
            p = r->tmp1.data;
            n = r->tmp1.len;
        } else if (rc != NDD_ERR_FORMAT) {
            return rc;
        }
    }
    if (http && http->cen && !ndd_reader_ieq(http->ce, http->cen, "identity")) {
        if (ndd_reader_ieq(http->ce, http->cen, "gzip") || ndd_reader_ieq(http->ce, http->cen, "x-gzip") ||
            ndd_reader_ieq(http->ce, http->cen, "deflate")) {
            rc = ndd_reader_inflate(r, p, n, &r->body, r->max_record);
            if (rc == NDD_ERR_LIMIT) {
                *why = "document too large";
                return NDD_ERR_FORMAT;
            }
            if (rc == NDD_ERR_FORMAT) {
                *why = "corrupt content encoding";
                return rc;
            }
            if (rc)
                return rc;
            p = r->body.data;
            n = r->body.len;
        } else {
            *why = "unsupported content encoding";
            return NDD_ERR_FORMAT;
        }
    }
    if (kind == -2) { /* no type given: HTML when it starts with '<' */
        size_t i = 0;
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
            i++;
        if (n - i >= 3 && (unsigned char)p[i] == 0xEF && (unsigned char)p[i + 1] == 0xBB &&
            (unsigned char)p[i + 2] == 0xBF)
            i += 3;
        kind = i < n && p[i] == '<';
    }
    return ndd_reader_payload(r, p, n, kind == 1, cs, csn, doc, why);
}

/* The block of a good record, at p (p[n] writable). Returns NDD_OK with a
 * document, 1 when the record type gives none, NDD_ERR_FORMAT with *why. */
/* The media type of Content-Type value ct[0..n) (lower case, no parameters)
 * as the current record's (r->rj_ct). */
static int w_set_ctype(ndd_reader_t *r, const char *ct, size_t n)
{
    size_t a = 0, b = 0;
    while (a < n && (ct[a] == ' ' || ct[a] == '\t'))
        a++;
    b = a;
    while (b < n && ct[b] != ';' && ct[b] != ' ' && ct[b] != '\t' && ct[b] != '\r' && ct[b] != '\n')
        b++;
    ndd_buf_clear(&r->rj_ct);
    int rc = ndd_buf_append(&r->rj_ct, ct + a, b - a);
    for (size_t i = 0; !rc && i < r->rj_ct.len; i++)
        if (r->rj_ct.data[i] >= 'A' && r->rj_ct.data[i] <= 'Z')
            r->rj_ct.data[i] = (char)(r->rj_ct.data[i] - 'A' + 'a');
        else if ((unsigned char)r->rj_ct.data[i] < 0x20 || (unsigned char)r->rj_ct.data[i] >= 0x7f)
            r->rj_ct.data[i] = '?';
    return rc;
}

static int w_record(ndd_reader_t *r, const char *rec, const whdr_t *h, char *p, size_t n, ndd_doc_t *doc,
                    const char **why)
{
    const char *type = rec + h->type.off, *ct = rec + h->ctype.off;
    size_t tn = h->type.n, ctn = h->ctype.n;
    int rc;
    if ((rc = w_set_ctype(r, ct, ctn)))
        return rc;
    if (ndd_reader_ieq(type, tn, "response")) {
        if ((ctn && ndd_reader_iprefix(ct, ctn, "application/http")) ||
            (!ctn && n >= 5 && memcmp(p, "HTTP/", 5) == 0)) {
            whttp_t http;
            if (w_http(p, n, &http)) {
                *why = "malformed HTTP response";
                return NDD_ERR_FORMAT;
            }
            if ((rc = w_set_ctype(r, http.ct ? http.ct : "", http.ctn)))
                return rc;
            if (http.status < 200 || http.status > 299) {
                *why = "HTTP status not 2xx";
                return NDD_ERR_FORMAT;
            }
            rc = w_payload(r, p + http.body, n - http.body, http.ct, http.ctn, &http, doc, why);
        } else {
            rc = w_payload(r, p, n, ct, ctn, NULL, doc, why);
        }
    } else if (ndd_reader_ieq(type, tn, "resource")) {
        const char *cs;
        size_t csn;
        if (ndd_reader_ctype(ct, ctn, &cs, &csn) != 1)
            return 1; /* crawler logs, images, ...: not pages */
        rc = w_payload(r, p, n, ct, ctn, NULL, doc, why);
    } else if (ndd_reader_ieq(type, tn, "conversion")) {
        const char *cs;
        size_t csn;
        ndd_reader_ctype(ct, ctn, &cs, &csn);
        rc = ndd_reader_payload(r, p, n, 0, cs, csn, doc, why);
    } else {
        return 1; /* warcinfo, request, metadata, revisit, continuation */
    }
    return rc;
}

/* The header read at rec_off starts no usable record (wr: WH_BREAK,
 * WH_TRUNC, WH_NOTREC or WH_BADHDR): rejects it, unless it is the rest of
 * a break already rejected, and moves to where reading goes on. NDD_OK or
 * <0. */
static int w_skip_bad_header(ndd_reader_t *r, int wr, uint64_t rec_off)
{
    ndd_rstream_t *s = &r->s;
    if (wr == WH_BREAK)
        return w_reject_break(r, r->next_ordinal++, rec_off);
    if (wr == WH_TRUNC) {
        ndd_reader_reject_emit(r, r->next_ordinal++, rec_off, "truncated WARC record");
        s->pos = s->len;
        return NDD_OK;
    }
    if (wr == WH_BADHDR || !r->after_break)
        ndd_reader_reject_emit(r, r->next_ordinal++, rec_off,
                               wr == WH_BADHDR ? "malformed WARC header" : "malformed WARC record");
    r->after_break = 0;
    return w_resync_rb(r, 1);
}

/* Moves past the next left bytes of record ord (at rec_off) without holding
 * them; *cand = the stream offset of the first line starting with "WARC/"
 * among them at or after stream offset scan_from (UINT64_MAX: none seen;
 * also a line cut between two window fills, as at the end of a gzip member
 * holding one record, is seen). NDD_OK when done; 1
 * when the data ended (*end_eof = 1) or broke first: the record is rejected
 * and reading goes on from there, unless a candidate was seen (then
 * nothing is rejected: the caller goes back to it); <0 on error. */
static int w_skip_bytes(ndd_reader_t *r, uint64_t left, uint64_t ord, uint64_t rec_off, uint64_t scan_from,
                        uint64_t *cand, int *end_eof)
{
    ndd_rstream_t *s = &r->s;
    int rc;
    char tail[11]; /* the last bytes of the previous piece, then the first of the next */
    size_t ntail = 0;
    *cand = UINT64_MAX;
    *end_eof = 0;
    while (left) {
        size_t a = ndd_rstream_avail(s);
        if (a == 0) {
            rc = ndd_rstream_fill(s, 1);
            if (rc == NDD_RS_EOF) {
                *end_eof = 1;
                if (*cand == UINT64_MAX)
                    ndd_reader_reject_emit(r, ord, rec_off, "truncated WARC record");
                return 1;
            }
            if (rc == NDD_RS_BREAK) {
                if (*cand != UINT64_MAX)
                    return 1; /* the break is met again after going back */
                rc = w_reject_break(r, ord, rec_off);
                return rc < 0 ? rc : 1;
            }
            if (rc < 0)
                return rc;
            continue;
        }
        size_t take = (uint64_t)a < left ? a : (size_t)left;
        uint64_t at = ndd_rstream_offset(s);
        const char *p = ndd_rstream_ptr(s);
        if (*cand == UINT64_MAX && ntail) { /* a "WARC/" line across the two pieces */
            size_t k = take < 5 ? take : 5;
            memcpy(tail + ntail, p, k);
            const char *f = w_find(tail, ntail + k);
            uint64_t c = f ? at - ntail + (uint64_t)(f - tail) + 1 : UINT64_MAX;
            if (f && c >= scan_from)
                *cand = c;
        }
        if (*cand == UINT64_MAX && at + take > scan_from) {
            size_t from = at >= scan_from ? 0 : (size_t)(scan_from - at);
            const char *f = w_find(p + from, take - from);
            if (f)
                *cand = at + (uint64_t)(f - p) + 1;
        }
        ntail = take < 5 ? take : 5; /* (a piece shorter than 5 bytes: a rare miss, never a false match) */
        memcpy(tail, p + take - ntail, ntail);
        s->pos += take;
        left -= take;
    }
    return NDD_OK;
}

/* Record ord (at rec_off, header h) has a block larger than r->max_record:
 * streams past it, then checks its end; a good one of a type that gives
 * documents is rejected as "document too large". A record whose end is not
 * where its Content-Length says (the data ends or breaks first, or no
 * trailer follows) is rejected, and reading goes back to the first record
 * header seen inside the skipped block: a lying length loses no valid
 * record after it, in compressed data as in plain files. NDD_OK or <0. */
static int w_skip_large(ndd_reader_t *r, const whdr_t *h, uint64_t ord, uint64_t rec_off)
{
    ndd_rstream_t *s = &r->s;
    const char *type = ndd_rstream_ptr(s) + h->type.off; /* valid until the skip */
    int doc_type = ndd_reader_ieq(type, h->type.n, "response") || ndd_reader_ieq(type, h->type.n, "resource") ||
                   ndd_reader_ieq(type, h->type.n, "conversion");
    int ok = 0, rc, eof = 0;
    size_t next = 0;
    uint64_t cand;
    rc = w_skip_bytes(r, h->hdr_len + h->clen, ord, rec_off, rec_off + h->hdr_len, &cand, &eof);
    if (rc < 0 || (rc == 1 && cand == UINT64_MAX))
        return rc < 0 ? rc : NDD_OK;
    if (rc == NDD_OK && (rc = w_trailer(r, 0, &ok, &next)) < 0)
        return rc;
    if (!ok) {
        ndd_reader_reject_emit(r, ord, rec_off,
                               eof ? "WARC Content-Length beyond the end of the data" : "WARC record length mismatch");
        if (cand == UINT64_MAX)
            return w_resync_rb(r, 1);
        r->after_break = 0;
        return ndd_reader_restream(r, cand);
    }
    s->pos += next;
    if (doc_type)
        ndd_reader_reject_emit(r, ord, rec_off, "document too large");
    return NDD_OK;
}

/* The data ended (rc = NDD_RS_EOF) or broke (NDD_RS_BREAK) inside the block
 * of record ord, which starts at relative index blk: rejects the record and
 * moves to where reading goes on. NDD_OK or <0. */
static int w_block_cut(ndd_reader_t *r, int rc, size_t blk, uint64_t ord, uint64_t rec_off)
{
    if (w_resync_held(r, blk)) {
        ndd_reader_reject_emit(r, ord, rec_off, "WARC record length mismatch");
        return NDD_OK;
    }
    if (rc == NDD_RS_EOF) {
        ndd_reader_reject_emit(r, ord, rec_off, "truncated WARC record");
        r->s.pos = r->s.len;
        return NDD_OK;
    }
    return w_reject_break(r, ord, rec_off);
}

/* Provenance of the good record at rec (header h) whose payload is already
 * in *doc: id (WARC-Record-ID, or name@offset), url, date, position. */
static int w_doc_fields(ndd_reader_t *r, const whdr_t *h, const char *rec, uint64_t ord, uint64_t rec_off,
                        ndd_doc_t *doc)
{
    int rc;
    if (h->id.n) {
        if ((rc = w_copy(&r->id, rec + h->id.off, h->id.n)))
            return rc;
    } else {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "@%llu", (unsigned long long)ndd_reader_off(r, rec_off));
        ndd_buf_clear(&r->id);
        if ((rc = ndd_buf_puts(&r->id, r->name)) || (rc = ndd_buf_puts(&r->id, tmp)))
            return rc;
    }
    ndd_buf_clear(&r->url);
    ndd_buf_clear(&r->date);
    if (h->uri.n && (rc = w_copy(&r->url, rec + h->uri.off, h->uri.n)))
        return rc;
    if (h->date.n && (rc = w_copy(&r->date, rec + h->date.off, h->date.n)))
        return rc;
    doc->id = r->id.data;
    doc->url = r->url.data ? r->url.data : "";
    doc->date = r->date.data ? r->date.data : "";
    doc->file_index = r->file_index;
    doc->ordinal = r->ranged ? UINT64_MAX : ord;
    doc->offset = ndd_reader_off(r, rec_off);
    r->nread++;
    return NDD_OK;
}

/* Record ord (at rec_off, header h) has a block of at most r->max_record:
 * holds it, checks its end and reads its document. NDD_OK with *doc; 1 when
 * the record gives none (rejected, or a type that holds no page); <0 on
 * error. */
static int w_take_record(ndd_reader_t *r, const whdr_t *h, uint64_t ord, uint64_t rec_off, ndd_doc_t *doc)
{
    ndd_rstream_t *s = &r->s;
    size_t blk = h->hdr_len, bend = blk + (size_t)h->clen, next = 0;
    int ok = 0, rc;
    if ((rc = ndd_rstream_fill(s, bend)) < 0)
        return rc;
    if (rc != NDD_RS_OK) { /* the data ends inside the block */
        rc = w_block_cut(r, rc, blk, ord, rec_off);
        return rc < 0 ? rc : 1;
    }
    if ((rc = w_trailer(r, bend, &ok, &next)) < 0)
        return rc;
    if (!ok) {
        ndd_reader_reject_emit(r, ord, rec_off, "WARC record length mismatch");
        rc = w_resync_rb(r, blk);
        return rc < 0 ? rc : 1;
    }
    /* a good record: the window holds [pos, pos + next) */
    char *rec = ndd_rstream_ptr(s);
    s->pos += next;
    /* the trailer as written (CRLF CRLF, LF LF, or what the data held of it
     * at its end), saved before the body check ends the block with a NUL */
    size_t tl = next - bend;
    if (tl >= 4 && memcmp(rec + bend, "\r\n\r\n", 4) == 0)
        tl = 4;
    else if (tl >= 2 && rec[bend] == '\n' && rec[bend + 1] == '\n')
        tl = 2;
    else if (tl > 4)
        tl = 4;
    memcpy(r->rtail, rec + bend, tl);
    r->rtail_len = tl;
    const char *why = NULL;
    ndd_buf_clear(&r->rj_url);
    ndd_buf_clear(&r->rj_ct);
    if (h->uri.n && (rc = w_copy(&r->rj_url, rec + h->uri.off, h->uri.n)))
        return rc;
    r->rj_set = 1;
    rc = w_record(r, rec, h, rec + blk, (size_t)h->clen, doc, &why);
    if (rc == NDD_ERR_FORMAT)
        ndd_reader_reject_emit(r, ord, rec_off, why);
    r->rj_set = 0;
    if (rc == 1 || rc == NDD_ERR_FORMAT)
        return 1;
    if (rc)
        return rc;
    doc->ctype = r->rj_ct.data ? r->rj_ct.data : "";
    doc->raw = rec;
    doc->raw_len = blk + (size_t)h->clen;
    doc->raw_tail = r->rtail;
    doc->raw_tail_len = r->rtail_len;
    return w_doc_fields(r, h, rec, ord, rec_off, doc);
}

int ndd_reader_warc_next(ndd_reader_t *r, ndd_doc_t *doc)
{
    int rc;
    for (;;) {
        whdr_t h;
        int wr = w_header(r, &h);
        uint64_t rec_off = ndd_rstream_offset(&r->s);
        if (wr < 0)
            return wr;
        if (wr == WH_EOF)
            return NDD_ERR_EOF;
        if (ndd_reader_past_end(r, rec_off))
            return NDD_ERR_EOF; /* the next range's first record */
        if (wr != WH_OK) {
            if ((rc = w_skip_bad_header(r, wr, rec_off)) < 0)
                return rc;
            continue;
        }
        r->after_break = 0;
        uint64_t ord = r->next_ordinal++;
        if (r->s.comp == NDD_RS_PLAIN && rec_off <= r->file_size && h.clen > r->file_size - rec_off) {
            /* a length the file cannot hold: never taken at its word; the
             * records after it are found by their headers */
            ndd_reader_reject_emit(r, ord, rec_off, "WARC Content-Length beyond the end of the file");
            if ((rc = w_resync_rb(r, 1)) < 0)
                return rc;
            continue;
        }
        if (h.clen > r->max_record) {
            /* too big to hold: stream past it, then check its end */
            if ((rc = w_skip_large(r, &h, ord, rec_off)) < 0)
                return rc;
            continue;
        }
        if ((rc = w_take_record(r, &h, ord, rec_off, doc)) != 1)
            return rc;
    }
}
