/* verify_int.h - helpers shared by the verifier's files (not an API). */
#ifndef NDD_VERIFY_INT_H
#define NDD_VERIFY_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NDD_VERIFY_WORDS 1 /* compare 8 bytes at a time */
#else
#define NDD_VERIFY_WORDS 0
#endif

/* Length of the common prefix of a[0..n) and b[0..n) (Myers' snakes, the
 * anchored sketches' runs). */
static inline size_t ndd_verify_prefix(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    while (i + 16 <= n) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
        unsigned ne = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) ^ 0xffffu;
        if (ne)
            return i + (size_t)__builtin_ctz(ne);
        i += 16;
    }
#endif
#if NDD_VERIFY_WORDS
    while (i + 8 <= n) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return i + ((size_t)__builtin_ctzll(x ^ y) >> 3);
        i += 8;
    }
#endif
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* Length of the common suffix of the n bytes before ae and before be. */
static inline size_t ndd_verify_suffix(const uint8_t *ae, const uint8_t *be, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    while (i + 16 <= n) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(ae - i - 16));
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(be - i - 16));
        unsigned ne = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) ^ 0xffffu;
        if (ne)
            return i + (size_t)__builtin_clz(ne) - 16; /* (the highest differing byte: from the end) */
        i += 16;
    }
#endif
#if NDD_VERIFY_WORDS
    while (i + 8 <= n) {
        uint64_t x, y;
        memcpy(&x, ae - i - 8, 8);
        memcpy(&y, be - i - 8, 8);
        if (x != y)
            return i + ((size_t)__builtin_clzll(x ^ y) >> 3);
        i += 8;
    }
#endif
    while (i < n && ae[-1 - (ptrdiff_t)i] == be[-1 - (ptrdiff_t)i])
        i++;
    return i;
}

/* For tests: the widest instructions Myers' bisection may use (0 plain C,
 * 2 AVX2 where the CPU has it, 3 also AVX-512 in the LCS rows; the default
 * 3); returns the former setting. Not thread-safe: set it before any
 * comparison runs. */
unsigned ndd_myers_isa(unsigned max);
/* For tests: 2 splits large-D bisections from bit-parallel LCS rows wherever
 * they apply (forced, whatever they cost), 1 where they cost less than the
 * rounds (the default), 0 never; returns the former setting. The scripts must
 * not depend on it. Not thread-safe. */
int ndd_myers_rows(int on);
/* For tests: the splits found from the rows so far. */
uint64_t ndd_myers_rows_count(void);
/* For tests: the rows made so far in a band narrower than a whole row, and
 * in *redone those made again in a wider band (their D needed more). */
uint64_t ndd_myers_band_count(uint64_t *redone);

/* For tests: the order of the anchor bound and the sketches in
 * ndd_tlcs_compare (0 as a sample of the anchors suggests, the default; 1
 * the bound first; 2 the sketches first); returns the former setting. The
 * results must not depend on it. Not thread-safe. */
int ndd_tlcs_bound_order(int order);
/* For tests: 1 (the default) fills the curve's block sums, small
 * substitutions and insertions by walks, 0 by a search at each point (the
 * reference); returns the former setting. The results must not depend on
 * it. Not thread-safe. */
int ndd_tlcs_curve_walk(int on);

/* ---- the formulaic check's helpers (verify_formula.c; the test's copy of
 * the former tokenizer uses them too) ---- */

/* The code point of the UTF-8 sequence at s (n > 0 bytes left) and its
 * length; an invalid byte (no lead byte, or not followed by its
 * continuation bytes) is one byte, code point 0xFFFD. */
static inline size_t ndd_formula_utf8_cp(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : u[0] >= 0xC0 ? 2 : 1;
    if (len > n || len == 1) {
        *cp = u[0] < 0x80 ? u[0] : 0xFFFD;
        return 1;
    }
    uint32_t c = u[0] & (0x7F >> len);
    for (size_t k = 1; k < len; k++) {
        if ((u[k] & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return 1;
        }
        c = (c << 6) | (u[k] & 0x3F);
    }
    *cp = c;
    return len;
}

static inline int ndd_formula_is_cjk(uint32_t cp)
{
    return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3400 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x2FFFF);
}

/* The value of the number word low[0..l) (lowercase: one .. twelve), 0
 * when it is none. low must have 8 bytes to read (the tokenizer's holds 80).
 * Only the words of its first letter are compared (a loop over all twelve
 * for every word of 3-6 letters was 14 % of the tokenizer; numw_first: bit w
 * set when numw[w] starts with that letter), each as one 8-byte word: low's
 * first l bytes (the rest masked off) against the name zero-padded, equal
 * only for the same letters and length (instead of a memcmp a candidate;
 * the function was 0.7 % of a rank's samples before, the change was not
 * timed apart). */
static inline unsigned ndd_formula_number_word(const char *low, size_t l)
{
    static const char numw[12][8] = {"one", "two",   "three", "four", "five",   "six",
                                     "seven", "eight", "nine", "ten",  "eleven", "twelve"};
    static const uint16_t numw_first[26] = {
        ['e' - 'a'] = 1u << 7 | 1u << 10,           /* eight, eleven */
        ['f' - 'a'] = 1u << 3 | 1u << 4,            /* four, five */
        ['n' - 'a'] = 1u << 8,                      /* nine */
        ['o' - 'a'] = 1u << 0,                      /* one */
        ['s' - 'a'] = 1u << 5 | 1u << 6,            /* six, seven */
        ['t' - 'a'] = 1u << 1 | 1u << 2 | 1u << 9 | 1u << 11, /* two, three, ten, twelve */
    };
    static const unsigned char ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    unsigned char f = (unsigned char)low[0];
    if (l < 3 || l > 6 || f < 'a' || f > 'z')
        return 0;
    uint64_t key, mask, name;
    memcpy(&key, low, 8);
    memcpy(&mask, ones + 8 - l, 8); /* l bytes of ones, then zeros, in memory order */
    key &= mask;
    for (unsigned m = numw_first[f - 'a']; m; m &= m - 1) {
        unsigned w = (unsigned)__builtin_ctz(m);
        memcpy(&name, numw[w], 8);
        if (name == key)
            return w + 1;
    }
    return 0;
}

/* The formulaic check's tokens (verify_formula.c): per token its kind
 * (0 word, 1 name, 2 number), its block (line) of the span and that block's
 * length; the hashes in a parallel array. */
typedef struct ndd_ftok {
    int kind;
    uint32_t blk, blen;
} ndd_ftok_t;
/* The tokens of t[0..n) into (*h)[0..*nv), (*m)[0..*nv) (grown together, *cap
 * entries; free both). */
int ndd_formula_tokens(const char *t, size_t n, uint64_t **h, ndd_ftok_t **m, size_t *nv, size_t *cap);
/* The check's alignment of the token hashes x[0..nx) and y[0..ny): rep[i]
 * for each token of x, 0 matched, 1 in a small replacement (a gap of
 * 1..gmax tokens on both sides), 2 elsewhere; 1 when made, 0 when D > max_d,
 * < 0 on an error. */
int ndd_formula_align(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, size_t max_d, long gmax,
                      uint8_t *rep);
/* For tests: the widest instructions the alignment's rounds may use (0
 * plain C, 1 AVX-512 where the CPU has it: the default); returns the former
 * setting. Not thread-safe. */
unsigned ndd_formula_isa(unsigned max);

#endif
