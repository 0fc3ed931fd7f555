/* ndd_payload.c - body checks shared by the readers: charset (UTF-8, or
 * windows-1252/Latin-1 converted to UTF-8), NUL and empty bodies, HTTP
 * Content-Type parsing, chunked transfer decoding, gzip/deflate content
 * decoding (zlib). See ndd_reader_int.h. */
#include "ndd_reader_int.h"

#include <limits.h>
#include <string.h>

int ndd_reader_ieq(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    if (n != m)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char a = (unsigned char)s[i], b = (unsigned char)lit[i];
        if (a >= 'A' && a <= 'Z')
            a = (unsigned char)(a + 32);
        if (b >= 'A' && b <= 'Z')
            b = (unsigned char)(b + 32);
        if (a != b)
            return 0;
    }
    return 1;
}

int ndd_reader_iprefix(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && ndd_reader_ieq(s, m, lit);
}

static inline int pl_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* Finds charset=<token> in p[0..n) (case-insensitive, optional quotes). */
static int pl_find_charset(const char *p, size_t n, const char **cs, size_t *csn)
{
    for (size_t i = 0; i + 8 <= n; i++) {
        if ((p[i] | 0x20) != 'c' || !ndd_reader_iprefix(p + i, n - i, "charset"))
            continue;
        size_t j = i + 7;
        while (j < n && (p[j] == ' ' || p[j] == '\t'))
            j++;
        if (j >= n || p[j] != '=')
            continue;
        j++;
        while (j < n && (p[j] == ' ' || p[j] == '\t' || p[j] == '"' || p[j] == '\''))
            j++;
        size_t st = j;
        while (j < n) {
            unsigned char c = (unsigned char)p[j];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                  c == '_' || c == '.' || c == ':'))
                break;
            j++;
        }
        if (j > st) {
            *cs = p + st;
            *csn = j - st;
            return 1;
        }
    }
    return 0;
}

int ndd_reader_ctype(const char *ct, size_t n, const char **cs, size_t *csn)
{
    *cs = NULL;
    *csn = 0;
    if (!ct || !n)
        return -2;
    size_t i = 0;
    while (i < n && pl_space((unsigned char)ct[i]))
        i++;
    const char *semi = memchr(ct + i, ';', n - i);
    size_t e = semi ? (size_t)(semi - ct) : n;
    if (semi)
        pl_find_charset(semi, n - (size_t)(semi - ct), cs, csn);
    while (e > i && pl_space((unsigned char)ct[e - 1]))
        e--;
    if (e == i)
        return -2;
    if (ndd_reader_ieq(ct + i, e - i, "text/html") || ndd_reader_ieq(ct + i, e - i, "application/xhtml+xml"))
        return 1;
    if (ndd_reader_ieq(ct + i, e - i, "text/plain"))
        return 0;
    return -1;
}

/* 0 none/unknown, 1 UTF-8, 2 windows-1252 family, 3 another declared charset */
static int pl_charset_kind(const char *cs, size_t n)
{
    static const char *const utf8[] = {"utf-8", "utf8", "unicode-1-1-utf-8"};
    static const char *const latin[] = {"iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "latin1",
                                        "latin-1", "l1", "windows-1252", "cp1252", "x-cp1252", "us-ascii",
                                        "ascii", "iso-ir-100", "cp819", "ibm819", "csisolatin1", "ansi_x3.4-1968"};
    if (!cs || !n)
        return 0;
    for (size_t i = 0; i < sizeof utf8 / sizeof utf8[0]; i++)
        if (ndd_reader_ieq(cs, n, utf8[i]))
            return 1;
    for (size_t i = 0; i < sizeof latin / sizeof latin[0]; i++)
        if (ndd_reader_ieq(cs, n, latin[i]))
            return 2;
    return 3;
}

/* windows-1252 bytes 0x80..0x9F (WHATWG: undefined ones map to the C1 control) */
static const uint16_t cp1252_hi[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

static int pl_cp1252(const char *p, size_t n, ndd_buf_t *out)
{
    ndd_buf_clear(out);
    if (n > (SIZE_MAX - 1) / 3)
        return NDD_ERR_NOMEM;
    int rc = ndd_buf_reserve(out, 3 * n);
    if (rc)
        return rc;
    char *o = out->data;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)p[i];
        uint32_t cp = c >= 0x80 && c < 0xA0 ? cp1252_hi[c - 0x80] : c;
        if (cp < 0x80) {
            *o++ = (char)cp;
        } else if (cp < 0x800) {
            *o++ = (char)(0xC0 | (cp >> 6));
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else {
            *o++ = (char)(0xE0 | (cp >> 12));
            *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        }
    }
    out->len = (size_t)(o - out->data);
    out->data[out->len] = '\0';
    return NDD_OK;
}

int ndd_reader_payload(ndd_reader_t *r, char *p, size_t n, int is_html, const char *cs, size_t csn,
                       ndd_doc_t *doc, const char **why)
{
    if (n >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) {
        p += 3;
        n -= 3;
    }
    if (!ndd_utf8_valid(p, n)) {
        if (!csn && is_html)
            pl_find_charset(p, n < 1024 ? n : 1024, &cs, &csn);
        int kind = pl_charset_kind(cs, csn);
        if (kind == 2) {
            int rc = pl_cp1252(p, n, &r->tmp2);
            if (rc)
                return rc;
            p = r->tmp2.data;
            n = r->tmp2.len;
        } else {
            *why = kind == 3 ? "unsupported charset" : "invalid UTF-8";
            return NDD_ERR_FORMAT;
        }
    }
    if (memchr(p, 0, n)) {
        *why = "NUL byte in document";
        return NDD_ERR_FORMAT;
    }
    size_t i = 0;
    while (i < n && pl_space((unsigned char)p[i]))
        i++;
    if (i == n) {
        *why = "empty document";
        return NDD_ERR_FORMAT;
    }
    p[n] = '\0';
    doc->body = p;
    doc->body_len = n;
    doc->is_html = is_html;
    return NDD_OK;
}

static int pl_hex(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int ndd_reader_dechunk(const char *p, size_t n, ndd_buf_t *out)
{
    ndd_buf_clear(out);
    size_t i = 0;
    int first = 1;
    for (;;) {
        size_t sz = 0, digits = 0;
        int h;
        while (i < n && (h = pl_hex((unsigned char)p[i])) >= 0) {
            if (sz > (SIZE_MAX >> 4))
                return first ? NDD_ERR_FORMAT : NDD_OK;
            sz = sz << 4 | (size_t)h;
            i++;
            digits++;
        }
        if (!digits)
            return first ? NDD_ERR_FORMAT : NDD_OK;
        const char *nl = memchr(p + i, '\n', n - i);
        if (!nl)
            return first ? NDD_ERR_FORMAT : NDD_OK;
        /* only a chunk extension, blanks or CR may follow the size */
        if (first && p + i < nl && p[i] != ';' && p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return NDD_ERR_FORMAT;
        first = 0;
        i = (size_t)(nl - p) + 1;
        if (sz == 0)
            return NDD_OK;
        size_t take = sz < n - i ? sz : n - i;
        int rc = ndd_buf_append(out, p + i, take);
        if (rc)
            return rc;
        i += take;
        if (take < sz)
            return NDD_OK;
        if (i < n && p[i] == '\r')
            i++;
        if (i < n && p[i] == '\n')
            i++;
        else
            return NDD_OK;
    }
}

/* one pass with the given windowBits; returns bytes decoded or <0 */
static int pl_inflate_run(ndd_reader_t *r, int wbits, const char *p, size_t n, ndd_buf_t *out, size_t max)
{
    z_stream *z = &r->hz;
    ndd_buf_clear(out);
    if (inflateReset2(z, wbits) != Z_OK)
        return NDD_ERR_INTERNAL;
    size_t i = 0;
    for (;;) {
        int rc = ndd_buf_reserve(out, 64u << 10);
        if (rc)
            return rc;
        size_t in_left = n - i;
        uInt give = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
        z->next_in = (Bytef *)(uintptr_t)(p + i);
        z->avail_in = give;
        z->next_out = (Bytef *)(out->data + out->len);
        size_t room = out->cap - 1 - out->len;
        z->avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
        int ret = inflate(z, Z_NO_FLUSH);
        i += give - z->avail_in;
        out->len = (size_t)((char *)z->next_out - out->data);
        out->data[out->len] = '\0';
        if (out->len > max)
            return NDD_ERR_LIMIT;
        if (ret == Z_STREAM_END) {
            /* another gzip member? */
            if (wbits != -15 && n - i >= 2 && (unsigned char)p[i] == 0x1f && (unsigned char)p[i + 1] == 0x8b) {
                inflateReset(z);
                continue;
            }
            return NDD_OK;
        }
        if (ret == Z_MEM_ERROR)
            return NDD_ERR_NOMEM;
        if (ret == Z_BUF_ERROR && i >= n)
            return NDD_OK; /* cut short: keep what decoded */
        if (ret != Z_OK && ret != Z_BUF_ERROR)
            return out->len ? NDD_OK : NDD_ERR_FORMAT;
    }
}

int ndd_reader_inflate(ndd_reader_t *r, const char *p, size_t n, ndd_buf_t *out, size_t max)
{
    if (!r->hz_ready) {
        memset(&r->hz, 0, sizeof r->hz);
        if (inflateInit2(&r->hz, 15 + 32) != Z_OK)
            return NDD_ERR_NOMEM;
        r->hz_ready = 1;
    }
    int rc = pl_inflate_run(r, 15 + 32, p, n, out, max); /* gzip or zlib */
    if (rc == NDD_ERR_FORMAT)
        rc = pl_inflate_run(r, -15, p, n, out, max); /* raw deflate */
    return rc;
}
