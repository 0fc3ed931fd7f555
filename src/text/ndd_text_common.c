/* ndd_text_common.c - options, character references, byte classes and the
 * normalising emitter shared by the HTML and plain-text extractors.
 * See ndd_text.h, ndd_text_internal.h and docs/text.md. */
#include "ndd_text_internal.h"

#include <stdlib.h>
#include <string.h>

void ndd_text_opts_default(ndd_text_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->max_bytes = NDD_TEXT_DEFAULT_MAX_BYTES;
}

/* ---- byte classes (NDD_CC_*) ---- */
const uint8_t ndd_text_cclass[256] = {
    4, 4, 4, 4, 4, 4, 4, 4, 4, 1, 2, 1, 1, 3, 4, 4,  /* 00 */
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4,  /* 10 */
    1, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 20 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0,  /* 30 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 40 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 50 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 60 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4,  /* 70 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 80 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 90 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* A0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* B0 */
    0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* C0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* D0 */
    0, 8, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8,  /* E0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* F0 */
};

int ndd_text_uni_class(const unsigned char *s, size_t i, size_t n, size_t *len)
{
    unsigned c = s[i];
    *len = 1;
    if (c == 0xC2 && i + 1 < n) {
        unsigned d = s[i + 1];
        if (d == 0xA0 || d == 0x85) { /* NBSP, NEL */
            *len = 2;
            return NDD_CC_WS;
        }
        if (d >= 0x80 && d <= 0x9F) { /* C1 controls */
            *len = 2;
            return NDD_CC_CTRL;
        }
        return NDD_CC_ORD;
    }
    if (i + 2 >= n)
        return NDD_CC_ORD;
    unsigned d = s[i + 1], f = s[i + 2];
    int ws = 0, drop = 0;
    if (c == 0xE1)
        ws = d == 0x9A && f == 0x80; /* U+1680 */
    else if (c == 0xE2)
        ws = (d == 0x80 && ((f >= 0x80 && f <= 0x8A) || f == 0xA8 || f == 0xA9 || f == 0xAF)) || /* U+2000-200A, 2028, 2029, 202F */
             (d == 0x81 && f == 0x9F);                                                         /* U+205F */
    else if (c == 0xE3)
        ws = d == 0x80 && f == 0x80; /* U+3000 ideographic space */
    else if (c == 0xEF)
        drop = d == 0xBB && f == 0xBF; /* U+FEFF byte order mark */
    if (ws || drop) {
        *len = 3;
        return ws ? NDD_CC_WS : NDD_CC_CTRL;
    }
    return NDD_CC_ORD;
}

int ndd_text_cjk(uint32_t cp)
{
    return (cp >= 0x2E80 && cp <= 0x303F) ||   /* radicals, ideographic description, CJK punctuation */
           (cp >= 0x3040 && cp <= 0x31FF) ||   /* kana, bopomofo, kanbun, strokes */
           (cp >= 0x3200 && cp <= 0x4DBF) ||   /* enclosed, compatibility, extension A */
           (cp >= 0x4E00 && cp <= 0x9FFF) ||   /* unified ideographs */
           (cp >= 0xF900 && cp <= 0xFAFF) ||   /* compatibility ideographs */
           (cp >= 0xFE30 && cp <= 0xFE4F) ||   /* compatibility forms */
           (cp >= 0xFF00 && cp <= 0xFF60) ||   /* full-width forms */
           (cp >= 0xFFE0 && cp <= 0xFFE6) ||
           (cp >= 0x20000 && cp <= 0x3FFFF);    /* supplementary ideographic planes */
}

/* ---- character references ---- */
const ndd_text_entity_t *ndd_text_entity_find(const char *name, size_t len)
{
    size_t lo = 0, hi = ndd_text_nentities;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ndd_text_entity_t *e = &ndd_text_entities[mid];
        size_t m = len < e->len ? len : e->len;
        int c = memcmp(name, e->name, m);
        if (c == 0)
            c = len < e->len ? -1 : len > e->len ? 1 : 0;
        if (c == 0)
            return e;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* Windows-1252 for numeric references &#128; .. &#159; (HTML5 does the same). */
static const uint16_t ndd_cp1252[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

static int ndd_isalnum(unsigned c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static int ndd_hexval(unsigned c)
{
    if (c >= '0' && c <= '9')
        return (int)(c - '0');
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return (int)(c - 'a' + 10);
    return -1;
}

size_t ndd_text_decode_ref(const char *str, size_t i, size_t end, char out[8], size_t *olen)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t j = i + 1;
    *olen = 0;
    if (j >= end)
        return 0;
    if (s[j] == '#') {
        int hex = 0;
        j++;
        if (j < end && (s[j] | 0x20) == 'x') {
            hex = 1;
            j++;
        }
        size_t d0 = j;
        uint32_t cp = 0;
        while (j < end) {
            int v = hex ? ndd_hexval(s[j]) : (s[j] >= '0' && s[j] <= '9' ? (int)(s[j] - '0') : -1);
            if (v < 0)
                break;
            cp = cp * (hex ? 16u : 10u) + (uint32_t)v;
            if (cp > 0x10FFFF)
                cp = 0x110000; /* saturate: stays invalid */
            j++;
        }
        if (j == d0)
            return 0; /* "&#" or "&#x" without digits: literal text */
        if (j < end && s[j] == ';')
            j++;
        if (cp >= 0x80 && cp <= 0x9F)
            cp = ndd_cp1252[cp - 0x80];
        if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            cp = 0xFFFD;
        *olen = ndd_utf8_encode(cp, out);
        return j - i;
    }
    while (j < end && j - i <= 32 && ndd_isalnum(s[j]))
        j++;
    size_t len = j - i - 1;
    if (len == 0 || len > 31)
        return 0;
    const ndd_text_entity_t *e = ndd_text_entity_find(str + i + 1, len);
    if (!e)
        return 0;
    if (j < end && s[j] == ';')
        j++;
    else if (!e->legacy)
        return 0; /* only the legacy names may omit the ';' */
    memcpy(out, e->val, e->vlen);
    *olen = e->vlen;
    return j - i;
}

/* ---- emitter ---- */
void ndd_text_em_init(ndd_text_em_t *e, ndd_buf_t *out, int track)
{
    memset(e, 0, sizeof *e);
    e->out = out;
    e->track = track;
    ndd_buf_clear(out);
    if (ndd_buf_reserve(out, 256) != NDD_OK)
        e->err = NDD_ERR_NOMEM;
}

void ndd_text_em_close_block(ndd_text_em_t *e)
{
    if (!e->block_open)
        return;
    e->block_open = 0;
    if (e->link_chars * 2 > e->block_chars && !e->err) {
        e->out->len = e->block_start;
        e->out->data[e->out->len] = '\0';
    }
}

static uint32_t ndd_utf8_decode_at(const unsigned char *s, size_t n, size_t *len)
{
    unsigned c = s[0];
    size_t k = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (k > n || k == 1) {
        *len = 1;
        return c;
    }
    uint32_t cp = c & (0x7F >> k);
    for (size_t t = 1; t < k; t++)
        cp = (cp << 6) | (s[t] & 0x3F);
    *len = k;
    return cp;
}

static uint32_t ndd_last_cp(const ndd_buf_t *b)
{
    size_t i = b->len, len;
    const unsigned char *s = (const unsigned char *)b->data;
    while (i > 0 && b->len - i < 4 && (s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i > 0)
        i--;
    return ndd_utf8_decode_at(s + i, b->len - i, &len);
}

void ndd_text_em_sep(ndd_text_em_t *e, const char *p, size_t k)
{
    ndd_buf_t *b = e->out;
    if (e->track && !e->block_open) {
        e->block_open = 1;
        e->block_start = b->len;
        e->block_chars = e->link_chars = 0;
    }
    if (e->pend && b->len > 0 && !e->err) {
        char c = ' ';
        if (e->pend & NDD_EM_BREAK) {
            c = '\n';
        } else if (e->pend & NDD_EM_SOFT) {
            size_t len;
            if (ndd_text_cjk(ndd_last_cp(b)) && ndd_text_cjk(ndd_utf8_decode_at((const unsigned char *)p, k, &len)))
                c = 0;
        }
        if (c) {
            if (ndd_buf_reserve(b, 1) != NDD_OK) {
                e->err = NDD_ERR_NOMEM;
            } else {
                b->data[b->len++] = c;
            }
        }
    }
    e->pend = 0;
}

void ndd_text_em_cp(ndd_text_em_t *e, uint32_t cp)
{
    char u[4];
    if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v' ||
        cp == 0xA0 || cp == 0x85 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
        cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000) {
        ndd_text_em_space(e);
        return;
    }
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFEFF)
        return;
    size_t k = ndd_utf8_encode(cp, u);
    if (k)
        ndd_text_em_text(e, u, k);
}

void ndd_text_em_utf8(ndd_text_em_t *e, const char *p, size_t k)
{
    const unsigned char *s = (const unsigned char *)p;
    size_t i = 0, len;
    while (i < k) {
        uint32_t cp = ndd_utf8_decode_at(s + i, k - i, &len);
        ndd_text_em_cp(e, cp);
        i += len;
    }
}

int ndd_text_utf8_repair(const char *s, size_t n, ndd_buf_t *dst)
{
    size_t i = 0;
    int rc = NDD_OK;
    ndd_buf_clear(dst);
    if ((rc = ndd_buf_reserve(dst, n + 16)))
        return rc;
    while (i < n) {
        size_t v = ndd_utf8_valid_prefix(s + i, n - i);
        if ((rc = ndd_buf_append(dst, s + i, v)))
            return rc;
        i += v;
        if (i < n) {
            if ((rc = ndd_buf_append(dst, "\xEF\xBF\xBD", 3)))
                return rc;
            i++;
        }
    }
    return NDD_OK;
}

static int ndd_text_repair_utf8(ndd_buf_t *b)
{
    ndd_buf_t t = NDD_BUF_INIT;
    int rc = ndd_text_utf8_repair(b->data, b->len, &t);
    if (rc) {
        ndd_buf_free(&t);
        return rc;
    }
    ndd_buf_free(b);
    *b = t;
    return NDD_OK;
}

int ndd_text_em_finish(ndd_text_em_t *e, size_t max_bytes)
{
    ndd_buf_t *b = e->out;
    ndd_text_em_close_block(e);
    if (e->err)
        return e->err;
    if (!ndd_utf8_valid(b->data, b->len)) {
        int rc = ndd_text_repair_utf8(b);
        if (rc)
            return rc;
    }
    if (max_bytes && b->len > max_bytes)
        b->len = ndd_utf8_cut(b->data, b->len, max_bytes);
    while (b->len > 0 && (b->data[b->len - 1] == ' ' || b->data[b->len - 1] == '\n'))
        b->len--;
    b->data[b->len] = '\0';
    return NDD_OK;
}
