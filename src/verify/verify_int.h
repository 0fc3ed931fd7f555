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
 * 2 AVX2 where the CPU has it; the default 2); returns the former setting.
 * Not thread-safe: set it before any comparison runs. */
unsigned ndd_myers_isa(unsigned max);

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

#endif
