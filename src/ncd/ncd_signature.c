/* ncd_signature.c - punctuation-spot signatures (paper 000, Sig-1L) with the
 * CJK rule. See ndd_ncd.h and docs/signcd.md. */
#include "ndd_ncd.h"

#include <string.h>

void ndd_ncd_sig_opts_default(ndd_ncd_sig_opts_t *o)
{
    o->min_spots = NDD_NCD_DEFAULT_MIN_SPOTS;
    o->cjk_max_chars = NDD_NCD_DEFAULT_CJK_CHARS;
}

/* Sentinel code point for a byte that does not start a valid UTF-8 sequence. */
#define NCD_BAD_CP 0xFFFFFFFFu

/* Decodes the code point starting at s[i] (i < n); *len receives its length
 * (1 for an invalid byte, reported as NCD_BAD_CP). */
static uint32_t ncd_decode(const unsigned char *s, size_t n, size_t i, size_t *len)
{
    unsigned c = s[i];
    uint32_t cp;
    size_t k;
    *len = 1;
    if (c < 0x80)
        return c;
    if (c >= 0xC2 && c <= 0xDF) {
        k = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        cp = c & 0x07;
    } else {
        return NCD_BAD_CP;
    }
    if (i + k > n)
        return NCD_BAD_CP;
    for (size_t t = 1; t < k; t++) {
        unsigned d = s[i + t];
        if ((d & 0xC0) != 0x80)
            return NCD_BAD_CP;
        cp = (cp << 6) | (d & 0x3F);
    }
    if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return NCD_BAD_CP;
    *len = k;
    return cp;
}

/* Start of the code point that ends right before byte position `end` (> 0). */
static size_t ncd_prev(const unsigned char *s, size_t n, size_t end, uint32_t *cp)
{
    for (size_t back = 2; back <= 4 && back <= end; back++) {
        size_t st = end - back;
        if ((s[st] & 0xC0) == 0x80)
            continue;
        size_t len;
        uint32_t c = ncd_decode(s, n, st, &len);
        if (c != NCD_BAD_CP && st + len == end) {
            *cp = c;
            return st;
        }
        break;
    }
    size_t len;
    uint32_t c = ncd_decode(s, n, end - 1, &len);
    *cp = (len == 1) ? c : NCD_BAD_CP;
    return end - 1;
}

static int ncd_is_spot(uint32_t c)
{
    return c == 0x2C || c == 0xFF0C || c == 0x3001 || c == 0xFE50 || c == 0xFF64;
}

static int ncd_is_space(uint32_t c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0xA0 || c == 0x3000 ||
           (c >= 0x2000 && c <= 0x200B) || c == 0x202F || c == 0x205F || c == 0xFEFF;
}

/* Scripts written without spaces between words: Han, kana. */
static int ncd_is_cjk(uint32_t c)
{
    if (c == NCD_BAD_CP)
        return 0;
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x3FFFF) ||
           (c >= 0x3040 && c <= 0x309F) || (c >= 0x30A0 && c <= 0x30FA) ||
           (c >= 0x30FC && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF) ||
           c == 0x3005 || c == 0x3007;
}

/* Punctuation of the CJK blocks (fullwidth forms, CJK symbols, vertical and
 * small forms): ends a Latin token as well as a CJK run. */
static int ncd_is_wide_punct(uint32_t c)
{
    if (c == 0x3005 || c == 0x3007)
        return 0;
    return (c >= 0x3000 && c <= 0x303F) || (c >= 0xFE10 && c <= 0xFE1F) ||
           (c >= 0xFE30 && c <= 0xFE6F) || (c >= 0xFF01 && c <= 0xFF0F) ||
           (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
           (c >= 0xFF5B && c <= 0xFF65) || c == 0x30FB;
}

/* Punctuation trimmed from the ends of a Latin token: ASCII punctuation and
 * the General Punctuation block (quotes, dashes, ellipsis). */
static int ncd_is_trim_punct(uint32_t c)
{
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E) || (c >= 0x2010 && c <= 0x205E) || c == 0xAB || c == 0xBB;
}

static int ncd_is_any_punct(uint32_t c) { return ncd_is_trim_punct(c) || ncd_is_wide_punct(c); }

/* Finds the word before the spot starting at byte `spot`. Returns its byte
 * range [*ws, *we) (empty when there is none). */
static void ncd_word_before(const unsigned char *s, size_t n, size_t spot, size_t cjk_max,
                            size_t *ws, size_t *we)
{
    size_t end = spot;
    uint32_t c = 0;
    *ws = *we = spot;
    /* skip spaces and closing punctuation between the word and the comma */
    while (end > 0) {
        size_t st = ncd_prev(s, n, end, &c);
        if (ncd_is_spot(c))
            return;
        if (!ncd_is_space(c) && !ncd_is_any_punct(c))
            break;
        end = st;
    }
    if (end == 0)
        return;
    ncd_prev(s, n, end, &c);
    size_t start = end;
    if (ncd_is_cjk(c)) {
        size_t k = 0;
        while (start > 0 && k < cjk_max) {
            size_t st = ncd_prev(s, n, start, &c);
            if (!ncd_is_cjk(c))
                break;
            start = st;
            k++;
        }
    } else {
        while (start > 0) {
            size_t st = ncd_prev(s, n, start, &c);
            if (ncd_is_space(c) || ncd_is_spot(c) || ncd_is_cjk(c) || ncd_is_wide_punct(c))
                break;
            start = st;
        }
        /* trim leading punctuation (trailing was skipped above) */
        while (start < end) {
            size_t len;
            c = ncd_decode(s, n, start, &len);
            if (!ncd_is_trim_punct(c))
                break;
            start += len;
        }
    }
    *ws = start;
    *we = end;
}

int ndd_ncd_signature_ex(const char *text, size_t n, const ndd_ncd_sig_opts_t *o,
                         ndd_buf_t *sig, size_t *nspots)
{
    ndd_ncd_sig_opts_t def;
    const unsigned char *s = (const unsigned char *)text;
    size_t words = 0;
    int rc = NDD_OK;
    if (!o) {
        ndd_ncd_sig_opts_default(&def);
        o = &def;
    }
    if (!sig || (!text && n))
        return NDD_ERR_INVAL;
    ndd_buf_clear(sig);
    for (size_t i = 0; i < n;) {
        size_t len;
        uint32_t c = ncd_decode(s, n, i, &len);
        /* a comma between two digits is a thousands separator, not a spot */
        int in_number = c == ',' && i > 0 && i + 1 < n && s[i - 1] >= '0' && s[i - 1] <= '9' &&
                        s[i + 1] >= '0' && s[i + 1] <= '9';
        if (ncd_is_spot(c) && !in_number) {
            size_t ws, we;
            ncd_word_before(s, n, i, o->cjk_max_chars, &ws, &we);
            if (we > ws) {
                if (words && (rc = ndd_buf_putc(sig, ' ')))
                    goto out;
                if ((rc = ndd_buf_append(sig, s + ws, we - ws)))
                    goto out;
                words++;
            }
        }
        i += len;
    }
    if (words < o->min_spots) {
        ndd_buf_clear(sig);
        rc = ndd_buf_append(sig, text, n);
    } else if (!sig->data) {
        rc = ndd_buf_reserve(sig, 0);
    }
out:
    if (nspots)
        *nspots = words;
    return rc;
}

int ndd_ncd_signature(const char *text, size_t n, ndd_buf_t *sig)
{
    return ndd_ncd_signature_ex(text, n, NULL, sig, NULL);
}
