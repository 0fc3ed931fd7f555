/* ndd_text_sentence.c - sentence splitting of normalised text (paper 002:
 * visible text blocks partitioned by punctuation; sentences > 16 bytes kept).
 * Rules in ndd_text.h and docs/text.md. */
#include "ndd_text_internal.h"

#include <stdlib.h>

/* Words after which '.' does not end a sentence (case-sensitive). */
static const char *const ndd_abbrev[] = {"Dr", "Jr", "Mr", "Mrs", "Ms", "Prof", "Sr", "St", "cf", "e.g", "i.e", "vs"};

static int ndd_is_abbrev(const char *s, size_t start, size_t dot)
{
    size_t b = dot;
    while (b > start && (((s[b - 1] | 0x20) >= 'a' && (s[b - 1] | 0x20) <= 'z') || s[b - 1] == '.'))
        b--;
    if (b > start && s[b - 1] != ' ' && s[b - 1] != '(' && s[b - 1] != '"' && s[b - 1] != '\'')
        return 0;
    size_t len = dot - b;
    for (size_t k = 0; k < sizeof ndd_abbrev / sizeof ndd_abbrev[0]; k++)
        if (strlen(ndd_abbrev[k]) == len && memcmp(ndd_abbrev[k], s + b, len) == 0)
            return 1;
    return 0;
}

/* Byte length of a closing quote / bracket at s[i], 0 if none. */
static size_t ndd_closer(const unsigned char *s, size_t i, size_t n)
{
    unsigned c = s[i];
    if (c == '"' || c == '\'' || c == ')' || c == ']' || c == '}')
        return 1;
    if (i + 2 >= n)
        return 0;
    unsigned d = s[i + 1], f = s[i + 2];
    if (c == 0xE2 && d == 0x80 && (f == 0x99 || f == 0x9D)) /* ’ ” */
        return 3;
    if (c == 0xE3 && d == 0x80 && (f == 0x89 || f == 0x8B || f == 0x8D || f == 0x8F || f == 0x91 || f == 0x95 || f == 0x97))
        return 3; /* 〉 》 」 』 】 〕 〗 */
    if (c == 0xEF && d == 0xBC && (f == 0x89 || f == 0xBD)) /* ） ］ */
        return 3;
    if (c == 0xC2 && d == 0xBB) /* » */
        return 2;
    return 0;
}

/* Byte length of a CJK terminator 。！？； at s[i], 0 if none. */
static size_t ndd_cjk_term(const unsigned char *s, size_t i, size_t n)
{
    if (i + 2 >= n)
        return 0;
    if (s[i] == 0xE3 && s[i + 1] == 0x80 && s[i + 2] == 0x82) /* 。 */
        return 3;
    if (s[i] == 0xEF && s[i + 1] == 0xBC && (s[i + 2] == 0x81 || s[i + 2] == 0x9F || s[i + 2] == 0x9B)) /* ！？； */
        return 3;
    return 0;
}

static int ndd_is_ascii_term(unsigned c) { return c == '.' || c == '!' || c == '?' || c == ';'; }

static int ndd_push_span(const char *t, size_t a, size_t b, size_t min_len, ndd_span_t **spans, size_t *nspans, size_t *cap)
{
    while (a < b && t[a] == ' ')
        a++;
    while (b > a && t[b - 1] == ' ')
        b--;
    if (b == a || b - a < min_len)
        return NDD_OK;
    if (*nspans == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        ndd_span_t *p = realloc(*spans, nc * sizeof *p);
        if (!p)
            return NDD_ERR_NOMEM;
        *spans = p;
        *cap = nc;
    }
    (*spans)[*nspans].off = (uint32_t)a;
    (*spans)[*nspans].len = (uint32_t)(b - a);
    (*nspans)++;
    return NDD_OK;
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* The first byte at or after i that may end a sentence (the stop table's:
 * '\n', . ! ? ; and bytes >= 0xE3), 16 bytes at a time while 16 are left;
 * i + 16 > n: where the byte loop goes on. (ndd_text_sentences was 1.2 % of
 * ndd run, most of it in that loop; test_sentences_isa compares both.) */
static size_t skip_plain_sse2(const unsigned char *s, size_t i, size_t n)
{
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i x = _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'));
        x = _mm_or_si128(x, _mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
        x = _mm_or_si128(x, _mm_cmpeq_epi8(v, _mm_set1_epi8('!')));
        x = _mm_or_si128(x, _mm_cmpeq_epi8(v, _mm_set1_epi8('?')));
        x = _mm_or_si128(x, _mm_cmpeq_epi8(v, _mm_set1_epi8(';')));
        x = _mm_or_si128(x, _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8((char)0xE3)), v)); /* >= 0xE3 */
        unsigned m = (unsigned)_mm_movemask_epi8(x);
        if (m)
            return i + (size_t)__builtin_ctz(m);
        i += 16;
    }
    return i;
}
#endif

int ndd_text_sentences(const char *text, size_t n, size_t min_len,
                       ndd_span_t **spans, size_t *nspans, size_t *cap)
{
    const unsigned char *s = (const unsigned char *)text;
    int rc = NDD_OK;
    if (!spans || !nspans || !cap || (!text && n))
        return NDD_ERR_INVAL;
    *nspans = 0;
    if (n > UINT32_MAX)
        return NDD_ERR_LIMIT;
    /* bytes that may end a sentence: '\n', . ! ? ; and lead bytes of CJK
     * terminators (>= 0xE3); all others are skipped in a tight loop */
    static const uint8_t stop[256] = {
        ['\n'] = 1, ['.'] = 1, ['!'] = 1, ['?'] = 1, [';'] = 1,
        [0xE3] = 1, [0xE4] = 1, [0xE5] = 1, [0xE6] = 1, [0xE7] = 1, [0xE8] = 1, [0xE9] = 1, [0xEA] = 1,
        [0xEB] = 1, [0xEC] = 1, [0xED] = 1, [0xEE] = 1, [0xEF] = 1, [0xF0] = 1, [0xF1] = 1, [0xF2] = 1,
        [0xF3] = 1, [0xF4] = 1, [0xF5] = 1, [0xF6] = 1, [0xF7] = 1, [0xF8] = 1, [0xF9] = 1, [0xFA] = 1,
        [0xFB] = 1, [0xFC] = 1, [0xFD] = 1, [0xFE] = 1, [0xFF] = 1};
    size_t start = 0, i = 0;
    while (i < n) {
#if defined(__SSE2__)
        if (ndd_text_isa_max)
            i = skip_plain_sse2(s, i, n);
#endif
        while (i < n && !stop[s[i]])
            i++;
        if (i == n)
            break;
        unsigned c = s[i];
        size_t k, tl;
        if (c == '\n') {
            if ((rc = ndd_push_span(text, start, i, min_len, spans, nspans, cap)))
                goto out;
            start = ++i;
        } else if (ndd_is_ascii_term(c)) {
            k = i + 1;
            while (k < n && ndd_is_ascii_term(s[k]))
                k++;
            size_t run = k - i;
            while (k < n && (tl = ndd_closer(s, k, n)))
                k += tl;
            if ((k == n || s[k] == ' ' || s[k] == '\n') &&
                !(c == '.' && run == 1 && k == i + 1 && ndd_is_abbrev(text, start, i))) {
                if ((rc = ndd_push_span(text, start, k, min_len, spans, nspans, cap)))
                    goto out;
                start = k;
            }
            i = k > i + run ? k : i + run;
        } else if (c >= 0xE3 && (tl = ndd_cjk_term(s, i, n))) {
            k = i + tl;
            while (k < n && ((tl = ndd_cjk_term(s, k, n)) || (tl = ndd_closer(s, k, n))))
                k += tl;
            if ((rc = ndd_push_span(text, start, k, min_len, spans, nspans, cap)))
                goto out;
            start = i = k;
        } else {
            i++;
        }
    }
    rc = ndd_push_span(text, start, n, min_len, spans, nspans, cap);
out:
    return rc;
}
