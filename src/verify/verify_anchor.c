/* verify_anchor.c - an exact upper bound of the filtered sketches' lengths
 * from each document's winnowed anchors (ndd's addition to paper 002, made
 * once per document instead of once per pair; see ndd_verify.h).
 *
 * Anchors: the k-grams of the text (k = 8 for the paper's S = 16) get 32-bit
 * hashes; in every run of w = S - k + 1 consecutive k-grams the rightmost
 * one of least hash is selected (winnowing, Schleimer et al. 2003). A window
 * of S bytes holds exactly w k-grams, so two equal windows - one in A, one in
 * B - select the same k-gram at the same offset: some anchor of A inside the
 * window has a hash that is also an anchor hash of B. A byte that the
 * filtered sketch of A keeps lies in such a window, hence within
 * [p - w + 1, p + S) of an anchor p of A whose hash B has too. The bound is
 * the size of the union of those intervals (a hash shared by chance only
 * widens it): never below the sketch. */
#include "ndd_verify.h"
#include "verify_anchor_int.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void ndd_anchor_shape(size_t window, size_t *k, size_t *w)
{
    *k = window >= 16 ? 8 : window / 2 ? window / 2 : 1;
    *w = window >= *k ? window - *k + 1 : 1;
}

void ndd_anchors_prefetch(const ndd_anchors_t *a)
{
    if (!a->n)
        return;
    /* loads, not prefetch instructions: a byte of each line, summed so that
     * they are made. On the AMD EPYC of docs/BENCHMARKS.md (stop 48) the
     * near-duplicates' anchored sketches took 39.2-39.8 us a pair with
     * prefetcht0 over the same lines when the anchors had left the caches,
     * 35.1-35.4 with these loads (27.4 in cache either way) */
    const uint8_t *v = (const uint8_t *)a->v, *bits = (const uint8_t *)a->bits, *bidx = (const uint8_t *)a->bidx;
    size_t nv = a->n * (a->v_narrow ? 4 : 8), nbits = a->bits_shift < 32 ? ((size_t)1 << (32 - a->bits_shift)) / 8 : 8,
           nbidx = (((size_t)1 << (32 - a->bidx_shift)) + 1) * sizeof *a->bidx;
    unsigned acc = 0;
    for (size_t i = 0; i < nbits; i += 64)
        acc += bits[i];
    for (size_t i = 0; i < nbidx; i += 64)
        acc += bidx[i];
    for (size_t i = 0; i < nv; i += 64)
        acc += v[i];
    __asm__ volatile("" : : "r"(acc)); /* the sum is used: the loads stay */
}

void ndd_anchors_free(ndd_anchors_t *a)
{
    free(a->v);
    free(a->h);
    free(a->ppos);
    free(a->gap);
    free(a->bidx);
    free(a->pu);
    free(a->off);
    free(a->bits);
    memset(a, 0, sizeof *a);
}

static unsigned isa_max = 3; /* ndd_anchors_isa: 0 scalar, 1 SSE2, 2 AVX2, 3 AVX-512 */

unsigned ndd_anchors_isa(unsigned max)
{
    unsigned old = isa_max;
    isa_max = max;
    return old;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NDD_ANCHOR_AVX2 1
#include <immintrin.h>

/* dst[i] = the lesser of src[i] and src[i + d], i < len, 4 at a time (signed
 * 64-bit order; dst may be src: each 4 are read before they are written). */
__attribute__((target("avx2"))) static void min_pass(const uint64_t *src, size_t d, uint64_t *dst, size_t len)
{
    size_t i = 0;
    for (; i + 4 <= len; i += 4) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + d));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b)));
    }
    for (; i < len; i++)
        dst[i] = (int64_t)src[i] > (int64_t)src[i + d] ? src[i + d] : src[i];
}

/* key[i] = (the 8-gram hash at t + i << 32 | ~i) ^ flip for i < m (k = 8;
 * t holds m + 7 bytes), 4 at a time: one 16-byte load gives the 4 8-grams
 * (a byte shuffle), and bits 32..63 of each gram times the multiplier come
 * from three 32 x 32-bit products - ndd_kgram_hash's values. */
__attribute__((target("avx2"))) static size_t keys8_avx2(const uint8_t *t, size_t m, uint64_t flip, uint64_t *key)
{
    const uint64_t mul = 0x9E3779B97F4A7C15ULL;
    const __m256i grams = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 9, 3, 4,
                                           5, 6, 7, 8, 9, 10);
    const __m256i mlo = _mm256_set1_epi64x((long long)(mul & 0xFFFFFFFFu));
    const __m256i mhi = _mm256_set1_epi64x((long long)(mul >> 32));
    const __m256i fl = _mm256_set1_epi64x((long long)flip), step = _mm256_set1_epi64x(4);
    __m256i idx = _mm256_setr_epi64x(0xFFFFFFFFLL, 0xFFFFFFFELL, 0xFFFFFFFDLL, 0xFFFFFFFCLL); /* ~i, 32 bits */
    size_t i = 0;
    for (; i + 4 <= m && i + 16 <= m + 7; i += 4) { /* bytes t[i .. i + 16) lie inside the text */
        __m128i t16 = _mm_loadu_si128((const __m128i *)(const void *)(t + i));
        __m256i x = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(t16), grams);
        __m256i lo = _mm256_mul_epu32(x, mlo); /* the low halves' product: its top half carries */
        __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(x, mhi), _mm256_mul_epu32(_mm256_srli_epi64(x, 32), mlo));
        __m256i hi = _mm256_add_epi64(_mm256_srli_epi64(lo, 32), cross); /* bits 32..63 in its low half */
        __m256i k4 = _mm256_or_si256(_mm256_slli_epi64(hi, 32), idx);
        _mm256_storeu_si256((__m256i *)(void *)(key + i), _mm256_xor_si256(k4, fl));
        idx = _mm256_sub_epi64(idx, step);
    }
    return i;
}

/* The minimum of every run of w keys (w >= 2): min over [i, i + 2^b) for
 * b = 1, 2, .. while 2^b <= w (each level in place from the one before),
 * then run s = min(over [s, s + P), over [s + w - P, s + w)) with P the
 * largest such power of two. key[0..m) has the hash's top bit flipped, so
 * that a signed compare orders it as the unsigned key; mn[0..m - w] gets
 * the runs' minima (mn: room for m). */
__attribute__((target("avx2"))) static void run_min_avx2(const uint64_t *key, uint64_t *mn, size_t m, size_t w)
{
    size_t step = 1;
    for (const uint64_t *src = key; 2 * step <= w; src = mn, step *= 2)
        min_pass(src, step, mn, m - 2 * step + 1);
    min_pass(mn, w - step, mn, m - w + 1);
}

#endif

/* ndd_anchors_make's picks from the runs' minima mn[0..nrun) (keys xor
 * flip): a new pick when a run's minimum moved (picks never move back:
 * positions increase), written always and kept when new (no branch). A
 * pick is its hash and its rank np in position order (ppos[np] is its
 * position); off[s] = run s's anchor offset when off. Returns np. From run
 * s0 with np0 picks so far and last = the position of run s0 - 1's. */
static size_t picks_from_minima(const uint64_t *mn, size_t s0, size_t nrun, uint64_t flip, uint8_t *off,
                                uint64_t *pick, uint32_t *ppos, size_t np0, uint32_t last)
{
    size_t np = np0;
    for (size_t s = s0; s < nrun; s++) {
        uint64_t x = mn[s];
        uint32_t pos = ~(uint32_t)x;
        if (off)
            off[s] = (uint8_t)(pos - s);
        pick[np] = ((x ^ flip) & 0xFFFFFFFF00000000ULL) | np;
        ppos[np] = pos;
        np += pos != last;
        last = pos;
    }
    return np;
}

#ifdef NDD_ANCHOR_AVX2
/* The same 4 runs at a time (AVX2): the runs whose position differs from
 * the run before are packed to the front by a permutation chosen by that
 * 4-bit mask, stored (4 lanes: the later ones are overwritten or past np)
 * with their ranks np, np + 1, ..; the rest one by one. */
__attribute__((target("avx2"))) static size_t picks_avx2(const uint64_t *mn, size_t nrun, uint64_t flip, uint8_t *off,
                                                        uint64_t *pick, uint32_t *ppos)
{
    /* pack[m]: the dword permutation that moves the qwords of mask m's set
     * bits, in order, to the front */
    static const int32_t pack[16][8] = {
        {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, {2, 3, 0, 1, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7},
        {4, 5, 0, 1, 2, 3, 6, 7}, {0, 1, 4, 5, 2, 3, 6, 7}, {2, 3, 4, 5, 0, 1, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7},
        {6, 7, 0, 1, 2, 3, 4, 5}, {0, 1, 6, 7, 2, 3, 4, 5}, {2, 3, 6, 7, 0, 1, 4, 5}, {0, 1, 2, 3, 6, 7, 4, 5},
        {4, 5, 6, 7, 0, 1, 2, 3}, {0, 1, 4, 5, 6, 7, 2, 3}, {2, 3, 4, 5, 6, 7, 0, 1}, {0, 1, 2, 3, 4, 5, 6, 7}};
    const __m256i hmask = _mm256_set1_epi64x((long long)0xFFFFFFFF00000000ULL), fl = _mm256_set1_epi64x((long long)flip);
    const __m256i lows = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6), ones = _mm256_set1_epi32(-1);
    const __m128i step = _mm_setr_epi32(0, 1, 2, 3), bytes = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1,
                                                                              -1, -1, -1, -1, -1);
    __m128i prev = _mm_set1_epi32(-1); /* lane 3: the position of the run before (none: UINT32_MAX) */
    size_t np = 0, s = 0;
    for (; s + 4 <= nrun; s += 4) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(mn + s));
        __m128i pos = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_xor_si256(x, ones), lows));
        if (off) {
            __m128i o = _mm_shuffle_epi8(_mm_sub_epi32(pos, _mm_add_epi32(_mm_set1_epi32((int)(uint32_t)s), step)), bytes);
            uint32_t o4 = (uint32_t)_mm_cvtsi128_si32(o);
            memcpy(off + s, &o4, 4);
        }
        __m128i before = _mm_alignr_epi8(pos, prev, 12); /* the position of each lane's run before */
        unsigned m = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(pos, before))) ^ 15u;
        __m256i perm = _mm256_loadu_si256((const __m256i *)(const void *)pack[m]);
        __m256i h = _mm256_permutevar8x32_epi32(_mm256_and_si256(_mm256_xor_si256(x, fl), hmask), perm);
        __m256i rank = _mm256_add_epi64(_mm256_set1_epi64x((long long)np), _mm256_setr_epi64x(0, 1, 2, 3));
        _mm256_storeu_si256((__m256i *)(void *)(pick + np), _mm256_or_si256(h, rank));
        __m256i pp = _mm256_permutevar8x32_epi32(_mm256_castsi128_si256(pos), _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3));
        pp = _mm256_permutevar8x32_epi32(_mm256_permutevar8x32_epi32(pp, perm), lows);
        _mm_storeu_si128((__m128i *)(void *)(ppos + np), _mm256_castsi256_si128(pp));
        np += (size_t)__builtin_popcount(m);
        prev = pos;
    }
    return picks_from_minima(mn, s, nrun, flip, off, pick, ppos, np, s ? (uint32_t)_mm_extract_epi32(prev, 3) : UINT32_MAX);
}
#endif

/* A stable LSD radix sort of the picks on their hash (the upper 32 bits),
 * 8 bits at a time, the four digits counted in one pass; dst is the other
 * buffer. Returns the buffer that holds the result (src: four passes). */
static const uint64_t *sort_picks(uint64_t *src, uint64_t *dst, size_t np)
{
    uint32_t cnt[4][256] = {{0}};
    for (size_t i = 0; i < np; i++) {
        uint32_t hh = (uint32_t)(src[i] >> 32);
        cnt[0][hh & 255]++;
        cnt[1][hh >> 8 & 255]++;
        cnt[2][hh >> 16 & 255]++;
        cnt[3][hh >> 24]++;
    }
    for (unsigned dg = 0; dg < 4; dg++) {
        unsigned sh = 32 + 8 * dg;
        uint32_t *c = cnt[dg];
        for (uint32_t d = 0, at = 0; d < 256; d++) {
            uint32_t x = c[d];
            c[d] = at;
            at += x;
        }
        for (size_t i = 0; i < np; i++)
            dst[c[(src[i] >> sh) & 255]++] = src[i];
        uint64_t *x = src;
        src = dst;
        dst = x;
    }
    return src;
}

/* Each anchor's share of the cover when the anchor before it (in position
 * order) is flagged too: min(cap, its gap to that one), cap = S + w - 1 (one
 * anchor's whole interval), as a byte (0 for the first). Not made (a->gap
 * NULL) when cap > 255: the bound then takes every anchor's share alone. */
static int cover_gaps(ndd_anchors_t *a, size_t np, size_t cap)
{
    if (cap > 255) {
        free(a->gap);
        a->gap = NULL;
        a->gcap = 0;
        return NDD_OK;
    }
    int rc = ndd_array_grow((void **)&a->gap, &a->gcap, np, 1);
    if (rc)
        return rc;
    a->gap[0] = 0;
    for (size_t q = 1; q < np; q++) {
        size_t gap = a->ppos[q] - a->ppos[q - 1];
        a->gap[q] = (uint8_t)(gap < cap ? gap : cap);
    }
    return NDD_OK;
}

int ndd_anchors_make(ndd_anchors_t *a, const void *text, size_t n, size_t window, uint64_t **scratch,
                     size_t *scratch_cap)
{
    const uint8_t *t = text;
    size_t k, w;
    a->n = a->nh = a->ns = a->nlo = a->noff = 0;
    a->v_narrow = a->pu_wide = 0;
    a->len = n;
    a->window = window;
    if (window == 0 || (!t && n))
        return NDD_ERR_INVAL;
    if (n >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    ndd_anchor_shape(window, &k, &w);
    if (n < window || n < k)
        return NDD_OK; /* no window of S bytes: empty sketches, bound 0 */
    size_t m = n - k + 1; /* k-grams */
    /* scratch: the k-gram keys (m entries; the picks overwrite them once the
     * runs' minima are made), then the runs' minima (m entries; the sort's
     * second array afterwards), then the picks' positions (m uint32_t) */
    int rc = ndd_array_grow((void **)scratch, scratch_cap, 2 * m + (m + 1) / 2, sizeof **scratch);
    if (rc)
        return rc;
    uint32_t *ppos = (uint32_t *)(void *)(*scratch + 2 * m);
    /* key = hash << 32 | ~index: the least key of a run is its least hash,
     * the rightmost one among equal hashes */
    uint64_t *key = *scratch, *suf = *scratch + m, *pick = key;
    /* each window's anchor offset (a byte: only when w <= 255) */
    uint8_t *off = NULL;
    if (w <= 255) {
        if ((rc = ndd_array_grow((void **)&a->off, &a->off_cap, m + 1 - w, 1)))
            return rc;
        off = a->off;
    }
    int wide = 0; /* the runs' minima 4 at a time (AVX2), on keys whose top bit is flipped */
#ifdef NDD_ANCHOR_AVX2
    wide = w >= 2 && isa_max >= 2 && __builtin_cpu_supports("avx2");
#endif
    const uint64_t flip = wide ? 0x8000000000000000ULL : 0;
    if (k == 8) { /* the paper's S = 16: one load per k-gram */
        size_t i = 0;
#ifdef NDD_ANCHOR_AVX2
        if (isa_max >= 2 && __builtin_cpu_supports("avx2"))
            i = keys8_avx2(t, m, flip, key);
#endif
        for (; i < m; i++)
            key[i] = ((uint64_t)ndd_kgram_hash(t + i, 8) << 32 | (uint32_t)~(uint32_t)i) ^ flip;
    } else {
        for (size_t i = 0; i < m; i++)
            key[i] = ((uint64_t)ndd_kgram_hash(t + i, k) << 32 | (uint32_t)~(uint32_t)i) ^ flip;
    }
#ifdef NDD_ANCHOR_AVX2
    if (wide)
        run_min_avx2(key, suf, m, w);
#endif
    /* else the minimum of every run of w keys by van Herk / Gil-Werman:
     * blocks of w keys, suffix minima inside each block, prefix minima on
     * the fly; run [i, i + w - 1] = min(suffix min at i, prefix min at
     * i + w - 1), written over the suffix minimum at i (read for the last
     * time) */
    for (size_t b = 0; !wide && b < m; b += w) {
        size_t e = b + w < m ? b + w : m;
        uint64_t x = UINT64_MAX;
        for (size_t i = e; i-- > b;) {
            x = key[i] < x ? key[i] : x;
            suf[i] = x;
        }
    }
    uint64_t pre = UINT64_MAX;
    for (size_t j = 0, jw = 0; !wide && j < m; j++) { /* j = the run's last k-gram, jw = j % w (no division) */
        pre = jw == 0 ? key[j] : (key[j] < pre ? key[j] : pre);
        if (++jw == w)
            jw = 0;
        if (j + 1 < w)
            continue;
        uint64_t s0 = suf[j + 1 - w];
        suf[j + 1 - w] = jw == 0 ? s0 : (s0 < pre ? s0 : pre); /* jw == (j + 1) % w */
    }
    /* the keys are read no more: the picks take their room */
    size_t np;
#ifdef NDD_ANCHOR_AVX2
    if (isa_max >= 2 && __builtin_cpu_supports("avx2"))
        np = picks_avx2(suf, m - w + 1, flip, off, pick, ppos);
    else
#endif
        np = picks_from_minima(suf, 0, m - w + 1, flip, off, pick, ppos, 0, UINT32_MAX);
    a->pu_wide = np > 65536; /* (2-byte indexes up to 65,536 distinct hashes: nh <= np) */
    if ((rc = ndd_array_grow((void **)&a->ppos, &a->pcap, np, sizeof *a->ppos)) ||
        (rc = ndd_array_grow((void **)&a->pu, &a->ucap, np * (a->pu_wide ? 4 : 2), 1)))
        return rc;
    memcpy(a->ppos, ppos, np * sizeof *ppos);
    /* by (hash, position): a stable LSD radix sort of the picks (made in
     * position order) on the hash, 8 bits at a time; the suffix minima's
     * room is free again and takes the other half */
    const uint64_t *src = sort_picks(pick, suf, np);
    /* by (hash, position) with the positions back; the distinct hashes;
     * each anchor's distinct hash in position order; where each hash
     * bucket (top bits) starts in v: about 4 anchors a bucket, so a lookup
     * reads a few neighbours instead of searching; the filter: 16 or more
     * bits per anchor (a power of two), at least 64 */
    unsigned lb = 0, lg = 6;
    while (((size_t)1 << lb) < np / 4 && lb < 24)
        lb++;
    while (((size_t)1 << lg) < 16 * np && lg < 32)
        lg++;
    size_t nbk = (size_t)1 << lb, nw = ((size_t)1 << lg) / 64;
    /* v in 4 bytes an entry when the positions fit 16 bits: 16 bits of the
     * hash below the bucket's (lb <= 16 here) and the position */
    const int narrow = n <= 65536 && lb <= 16;
    if ((rc = ndd_array_grow((void **)&a->v, &a->cap, np * (narrow ? 4 : 8), 1)) ||
        (rc = ndd_array_grow((void **)&a->h, &a->hcap, np, sizeof *a->h)) ||
        (rc = ndd_array_grow((void **)&a->bidx, &a->bidx_cap, nbk + 1, sizeof *a->bidx)) ||
        (rc = ndd_array_grow((void **)&a->bits, &a->bits_cap, nw, sizeof *a->bits)))
        return rc;
    a->bidx_shift = 32 - lb;
    a->bits_shift = 32 - lg;
    a->v_narrow = (unsigned)narrow;
    memset(a->bits, 0, nw * sizeof *a->bits);
    /* (the arrays in locals: stores through them could alias a's fields) */
    uint32_t *h = a->h, *bidx = a->bidx, *pu32 = a->pu_wide ? a->pu : NULL;
    uint16_t *pu16 = a->pu_wide ? NULL : a->pu;
    const uint32_t *pp = a->ppos;
    uint64_t *v = narrow ? NULL : a->v, *bits = a->bits;
    uint32_t *vn = narrow ? a->v : NULL;
    const unsigned bs = a->bits_shift, xs = a->bidx_shift, fs = narrow ? xs - 16 : 0;
    size_t nh = 0, bk = 0, ns = 0, nlo = 0;
    int mixed = 0; /* two distinct hashes with the same bucket and 16 bits (narrow v) */
    for (size_t i = 0; i < np; i++) {
        uint32_t hh = (uint32_t)(src[i] >> 32), r = (uint32_t)src[i];
        if (!nh || h[nh - 1] != hh) {
            mixed |= nh && h[nh - 1] >> fs == hh >> fs;
            ns += hh < NDD_ANCHOR_SAMPLE_CUT;
            nlo += hh < NDD_ANCHOR_SPLIT;
            h[nh++] = hh;
            uint32_t fb = bs < 32 ? hh >> bs : 0;
            bits[fb >> 6] |= 1ULL << (fb & 63);
            for (size_t to = (size_t)((uint64_t)hh >> xs); bk <= to; bk++)
                bidx[bk] = (uint32_t)i;
        }
        if (vn)
            vn[i] = (hh >> fs & 0xffff) << 16 | pp[r];
        else
            v[i] = (uint64_t)hh << 32 | pp[r];
        if (pu16)
            pu16[r] = (uint16_t)(nh - 1);
        else
            pu32[r] = (uint32_t)(nh - 1);
    }
    for (; bk <= nbk; bk++)
        bidx[bk] = (uint32_t)np;
    /* narrow: the entries of hashes that share their bucket and 16 bits
     * (in one 10 KB text in ten, one 3 KB text in forty) are one key to a
     * lookup; their positions are put in increasing order (an insertion
     * sort of each bucket: a few entries) */
    for (size_t b = 0; vn && mixed && b < nbk; b++)
        for (size_t i = bidx[b] + 1; i < bidx[b + 1]; i++)
            for (size_t j = i; j > bidx[b] && vn[j - 1] > vn[j]; j--) {
                uint32_t e = vn[j];
                vn[j] = vn[j - 1];
                vn[j - 1] = e;
            }
    if ((rc = cover_gaps(a, np, window + w - 1)))
        return rc;
    a->nh = nh;
    a->ns = ns;
    a->nlo = nlo;
    a->n = np;
    a->noff = off ? m + 1 - w : 0;
    return NDD_OK;
}

/* Union of [p - w + 1, p + S) within [0, len) over the anchors p whose
 * distinct hash is flagged in mu, walked in position order 64 anchors at a
 * time. The intervals' ends increase with p, so a flagged anchor adds what
 * lies past the end of the flagged one before it (q): its interval less
 * [.., q + S). When that one is the anchor just before it, this is its gap
 * byte (a->gap: min(S + w - 1, p - q); at p < w - 1 the gap is below the
 * cap too): those are summed under a mask (by AVX2 where the CPU has it);
 * an anchor after an unflagged one (the start of a run of flags) finds q
 * among the flags below it or the blocks before. */

/* The flags of the anchors t0 .. t0 + nt - 1 (nt <= 64): their distinct
 * hashes looked up in mu. */
static inline uint64_t flags64(const ndd_anchors_t *a, size_t t0, const uint64_t *mu, size_t nt)
{
    uint64_t f = 0;
    for (size_t t = 0; t < nt; t++) {
        uint32_t u = ndd_anchors_pu(a, t0 + t);
        f |= (mu[u / 64] >> (u % 64) & 1) << t;
    }
    return f;
}

/* The shares of the anchors t0 + b (b a bit of starts: flagged, the one
 * before not) of a block with flags f; *last: the position of the last
 * flagged anchor before the block (SIZE_MAX: none). */
static inline size_t cover_starts(const ndd_anchors_t *a, size_t t0, uint64_t f, uint64_t starts, size_t last,
                                  size_t w)
{
    size_t total = 0, S = a->window;
    for (; starts; starts &= starts - 1) {
        unsigned bit = (unsigned)__builtin_ctzll(starts);
        uint64_t below = f & ((1ULL << bit) - 1);
        size_t p = a->ppos[t0 + bit], q = below ? a->ppos[t0 + 63 - (unsigned)__builtin_clzll(below)] : last;
        size_t lo = p + 1 >= w ? p + 1 - w : 0, end = q == SIZE_MAX ? 0 : q + S;
        total += p + S - (lo < end ? end : lo); /* q < p: q + S < p + S */
    }
    return total;
}

/* The sum of the cover (per flagged anchor: what its interval adds) less
 * what the last interval passes len. */
static size_t cover_end(const ndd_anchors_t *a, size_t total, size_t last)
{
    size_t end = last == SIZE_MAX ? 0 : last + a->window;
    return total - (end > a->len ? end - a->len : 0);
}

static size_t cover_plain(const ndd_anchors_t *a, const uint64_t *mu, size_t w)
{
    size_t total = 0, last = SIZE_MAX;
    uint64_t carry = 0; /* the flag of the anchor before the block */
    for (size_t t0 = 0; t0 < a->n; t0 += 64) {
        size_t nt = a->n - t0 < 64 ? a->n - t0 : 64;
        uint64_t f = flags64(a, t0, mu, nt);
        if (!f) {
            carry = 0;
            continue;
        }
        uint64_t after = a->gap ? f & (f << 1 | carry) : 0;
        for (uint64_t c = after; c; c &= c - 1)
            total += a->gap[t0 + (unsigned)__builtin_ctzll(c)];
        total += cover_starts(a, t0, f, f & ~after, last, w);
        last = a->ppos[t0 + 63 - (unsigned)__builtin_clzll(f)];
        carry = f >> 63;
    }
    return cover_end(a, total, last);
}

#ifdef NDD_ANCHOR_AVX2
/* The flags of the 64 anchors from t0 (their distinct hashes in mu), 8 at a
 * time: gathers of mu's 32-bit words, each anchor's bit shifted to the top
 * of its lane (AVX2: the caller checked). */
__attribute__((target("avx2"), always_inline)) static inline uint64_t flags64_avx2(const ndd_anchors_t *a,
                                                                                   size_t t0, const uint64_t *mu,
                                                                                   int wide)
{
    const int *mw = (const int *)(const void *)mu; /* x86: little-endian, bit u is bit u % 32 of word u / 32 */
    const __m256i c31 = _mm256_set1_epi32(31);
    const uint32_t *pw = (const uint32_t *)a->pu + t0;
    const uint16_t *ph = (const uint16_t *)a->pu + t0;
    uint64_t f = 0;
    for (unsigned t = 0; t < 64; t += 8) {
        __m256i u = wide ? _mm256_loadu_si256((const __m256i *)(const void *)(pw + t))
                               : _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(ph + t)));
        __m256i wd = _mm256_i32gather_epi32(mw, _mm256_srli_epi32(u, 5), 4);
        __m256i top = _mm256_sllv_epi32(wd, _mm256_sub_epi32(c31, _mm256_and_si256(u, c31)));
        f |= (uint64_t)(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(top)) << t;
    }
    return f;
}

/* acc + the bytes g[0..64) under the mask m (bit b: byte b), as four sums. */
__attribute__((target("avx2"))) static inline __m256i masked_bytes_avx2(const uint8_t *g, uint64_t m, __m256i acc)
{
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
                                            3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ULL);
    for (unsigned h = 0; h < 2; h++) { /* 32 bytes each: byte b gets mask byte b / 8, then its bit b % 8 */
        __m256i mm = _mm256_shuffle_epi8(_mm256_set1_epi32((int)(uint32_t)(m >> (32 * h))), spread);
        mm = _mm256_cmpeq_epi8(_mm256_and_si256(mm, bit), bit);
        __m256i gv = _mm256_loadu_si256((const __m256i *)(const void *)(g + 32 * h));
        acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_and_si256(gv, mm), _mm256_setzero_si256()));
    }
    return acc;
}

/* (wide: a->pu_wide, a constant in each of cover_avx2's two calls) */
__attribute__((target("avx2"), always_inline)) static inline size_t cover_avx2_pu(const ndd_anchors_t *a,
                                                                                const uint64_t *mu, size_t w,
                                                                                int wide)
{
    size_t total = 0, last = SIZE_MAX;
    uint64_t carry = 0;
    __m256i acc = _mm256_setzero_si256();
    for (size_t t0 = 0; t0 < a->n; t0 += 64) {
        size_t nt = a->n - t0 < 64 ? a->n - t0 : 64;
        uint64_t f = nt == 64 ? flags64_avx2(a, t0, mu, wide) : flags64(a, t0, mu, nt);
        if (!f) {
            carry = 0;
            continue;
        }
        uint64_t after = a->gap ? f & (f << 1 | carry) : 0;
        if (after && nt == 64)
            acc = masked_bytes_avx2(a->gap + t0, after, acc);
        else
            for (uint64_t c = after; c; c &= c - 1)
                total += a->gap[t0 + (unsigned)__builtin_ctzll(c)];
        total += cover_starts(a, t0, f, f & ~after, last, w);
        last = a->ppos[t0 + 63 - (unsigned)__builtin_clzll(f)];
        carry = f >> 63;
    }
    __m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    total += (size_t)_mm_cvtsi128_si64(s2) + (size_t)_mm_extract_epi64(s2, 1);
    return cover_end(a, total, last);
}

__attribute__((target("avx2"))) static size_t cover_avx2(const ndd_anchors_t *a, const uint64_t *mu, size_t w)
{
    return a->pu_wide ? cover_avx2_pu(a, mu, w, 1) : cover_avx2_pu(a, mu, w, 0);
}

/* AVX-512 (F, BW, CD, VL: the caller checked the CPU has them). */
#define NDD_A512 __attribute__((target("avx512f,avx512bw,avx512cd,avx512vl,avx2")))

static int a512_cpu(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vl");
}

/* The flags of the up to 64 anchors with 2-byte hash indexes pu[0..nt), 16
 * at a time, without gathers: the marks mu of at most 2,048 distinct hashes
 * are 64 32-bit words held in four registers t[0..4); an anchor's word is
 * picked by two two-register permutations (bits 0-4 of u / 32) and a blend
 * (bit 5), its bit tested after a shift by u % 32 (wide = 0: at most 1,024
 * hashes, the first permutation alone). Lanes past nt are not loaded. */
NDD_A512 static inline uint64_t flags64_512(const uint16_t *pu, size_t nt, const __m512i t[4], int wide)
{
    const __m512i c31 = _mm512_set1_epi32(31), c32 = _mm512_set1_epi32(32), one = _mm512_set1_epi32(1);
    uint64_t f = 0;
    for (unsigned q = 0; q < 4 && 16 * q < nt; q++) {
        size_t left = nt - 16 * q;
        __mmask16 in = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
        __m512i u = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(in, pu + 16 * q)), wi = _mm512_srli_epi32(u, 5);
        __m512i wd = _mm512_permutex2var_epi32(t[0], wi, t[1]);
        if (wide)
            wd = _mm512_mask_blend_epi32(_mm512_test_epi32_mask(wi, c32), wd,
                                         _mm512_permutex2var_epi32(t[2], wi, t[3]));
        __mmask16 k = _mm512_mask_test_epi32_mask(in, _mm512_srlv_epi32(wd, _mm512_and_si512(u, c31)), one);
        f |= (uint64_t)k << (16 * q);
    }
    return f;
}

/* P[i] = g[0] + .. + g[i] for the 64 gap bytes g of a block (those past
 * nt read as 0), as 16-bit sums (at most 64 * 255): five steps of a shift
 * across the register (vpermw) and an add in each half, then the low half's
 * last sum added to the high half. */
NDD_A512 static inline void gap_prefix(const uint8_t *g, size_t nt, uint16_t P[64])
{
    static const uint16_t iota[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    const __m512i io = _mm512_loadu_si512(iota);
    __m512i x = _mm512_maskz_loadu_epi8(nt >= 64 ? ~0ULL : (1ULL << nt) - 1, g);
    __m512i lo = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(x));
    __m512i hi = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(x, 1));
    for (unsigned sh = 1; sh < 32; sh *= 2) { /* lane i += lane i - sh (lanes i >= sh) */
        __m512i idx = _mm512_sub_epi16(io, _mm512_set1_epi16((short)sh));
        __mmask32 m = ~0u << sh;
        lo = _mm512_add_epi16(lo, _mm512_maskz_permutexvar_epi16(m, idx, lo));
        hi = _mm512_add_epi16(hi, _mm512_maskz_permutexvar_epi16(m, idx, hi));
    }
    hi = _mm512_add_epi16(hi, _mm512_permutexvar_epi16(_mm512_set1_epi16(31), lo));
    _mm512_storeu_si512(P, lo);
    _mm512_storeu_si512(P + 32, hi);
}

/* cover() with the flags by flags64_512 (mu of at most 2,048 hashes), the
 * gap bytes under the mask summed by one masked load and psadbw, and the
 * shares of the starts of runs from the gap bytes instead of the positions
 * (which a cold cache would fetch line by line): a start t whose flagged
 * predecessor is q adds min(S + w - 1, p_t - p_q), and p_t - p_q is the sum
 * of the gap bytes q + 1 .. t when none of them is capped; a capped one
 * means a gap of at least the cap, and so does that sum. The sums are
 * differences of the block's prefix sums (and of the block before's, when q
 * is there); q further back is at least 64 anchors away, so its share is
 * the cap when that is at most 64, else it is taken from the positions.
 * Only the first flagged anchor and the last read a position. (2-byte hash
 * indexes: at most 65,536 anchors.) */
NDD_A512 static size_t cover_512(const ndd_anchors_t *a, const uint64_t *mu, size_t w)
{
    uint64_t tw[32] = {0}; /* mu, padded: the registers read whole words */
    memcpy(tw, mu, (a->nh + 63) / 64 * sizeof *mu);
    const __m512i t[4] = {_mm512_loadu_si512(tw), _mm512_loadu_si512(tw + 8), _mm512_loadu_si512(tw + 16),
                          _mm512_loadu_si512(tw + 24)};
    uint16_t pre[2][64]; /* the gap bytes' prefix sums of this block and of block pb */
    const size_t cap = a->window + w - 1;
    size_t total = 0, lt = SIZE_MAX, pb = SIZE_MAX; /* lt: the last flagged anchor */
    uint64_t carry = 0;
    unsigned cur = 0;
    __m512i acc = _mm512_setzero_si512();
    for (size_t t0 = 0; t0 < a->n; t0 += 64) {
        size_t nt = a->n - t0 < 64 ? a->n - t0 : 64;
        const uint16_t *pu = (const uint16_t *)a->pu + t0;
        uint64_t f = a->nh > 1024 ? flags64_512(pu, nt, t, 1) : flags64_512(pu, nt, t, 0);
        if (!f) {
            carry = 0;
            continue;
        }
        uint64_t after = f & (f << 1 | carry); /* bits below nt only: f has no others */
        if (after)
            acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(after, a->gap + t0),
                                                        _mm512_setzero_si512()));
        uint64_t starts = f & ~after;
        if (starts) {
            uint16_t *P = pre[cur], *PP = pre[cur ^ 1];
            gap_prefix(a->gap + t0, nt, P);
            for (; starts; starts &= starts - 1) {
                unsigned bit = (unsigned)__builtin_ctzll(starts);
                uint64_t below = f & ((1ULL << bit) - 1);
                size_t tt = t0 + bit, share;
                if (below) {
                    share = (size_t)P[bit] - P[63 - (unsigned)__builtin_clzll(below)];
                } else if (lt == SIZE_MAX) { /* the first: its interval, cut at the text's start */
                    size_t p = a->ppos[tt];
                    share = p + 1 >= w ? cap : p + a->window;
                } else if (lt + 64 >= t0) { /* in the block before */
                    if (pb != t0 - 64) {
                        gap_prefix(a->gap + t0 - 64, 64, PP);
                        pb = t0 - 64;
                    }
                    share = (size_t)P[bit] + PP[63] - PP[lt + 64 - t0];
                } else {
                    share = cap <= 64 ? cap : a->ppos[tt] - a->ppos[lt];
                }
                total += share < cap ? share : cap;
            }
            pb = t0;
            cur ^= 1;
        }
        lt = t0 + 63 - (unsigned)__builtin_clzll(f);
        carry = f >> 63;
    }
    total += (size_t)_mm512_reduce_add_epi64(acc);
    return cover_end(a, total, lt == SIZE_MAX ? SIZE_MAX : a->ppos[lt]);
}
#endif

static size_t cover(const ndd_anchors_t *a, const uint64_t *mu, size_t w)
{
#ifdef NDD_ANCHOR_AVX2
    if (isa_max >= 3 && a->nh <= 2048 && a->gap && !a->pu_wide && a512_cpu())
        return cover_512(a, mu, w);
    if (isa_max >= 2 && __builtin_cpu_supports("avx2"))
        return cover_avx2(a, mu, w);
#endif
    return cover_plain(a, mu, w);
}

#ifdef NDD_ANCHOR_AVX2
/* The end of a step of the 8-against-8 merges: the two blocks' flags stored
 * as their bytes (i, j: multiples of 8), the block whose last hash is
 * smaller left (both on a tie) without a branch; a new block starts with no
 * flag. */
static inline void block_step(const uint32_t *ha, const uint32_t *hb, uint8_t *ba, uint8_t *bb, size_t *i,
                              size_t *j, unsigned *acc_a, unsigned *acc_b)
{
    ba[*i / 8] = (uint8_t)*acc_a;
    bb[*j / 8] = (uint8_t)*acc_b;
    uint32_t la = ha[*i + 7], lb = hb[*j + 7];
    size_t si = la <= lb, sj = lb <= la;
    *i += 8 * si;
    *j += 8 * sj;
    *acc_a &= (unsigned)si - 1u;
    *acc_b &= (unsigned)sj - 1u;
}

/* Lane l: is v[l] one of o[0..8)? (8 broadcasts, independent compares) */
__attribute__((target("avx2"))) static inline __m256i any_of8(__m256i v, const int *o)
{
#define NDD_EQ(k) _mm256_cmpeq_epi32(v, _mm256_set1_epi32(o[k]))
    __m256i e01 = _mm256_or_si256(NDD_EQ(0), NDD_EQ(1)), e23 = _mm256_or_si256(NDD_EQ(2), NDD_EQ(3));
    __m256i e45 = _mm256_or_si256(NDD_EQ(4), NDD_EQ(5)), e67 = _mm256_or_si256(NDD_EQ(6), NDD_EQ(7));
#undef NDD_EQ
    return _mm256_or_si256(_mm256_or_si256(e01, e23), _mm256_or_si256(e45, e67));
}

static void shared_rest(const uint32_t *ha, const uint32_t *hb, uint64_t *ma, uint64_t *mb, size_t i, size_t na,
                        size_t j, size_t nb);

/* Blocks of 8 against 8 (AVX2; the caller checked the CPU has it). Each
 * lane of a block is compared with the 8 hashes of the other broadcast one
 * by one (loads, no shuffles: the 16 compares are independent). A block's
 * flags are gathered in a register while its index stays and stored as the
 * block's byte of ma / mb (bit u of a mark is bit u % 8 of its byte u / 8:
 * x86 is little-endian), so no step waits on the store of the one before;
 * the indexes move without a branch. */
__attribute__((target("avx2"))) static void shared_avx2(const ndd_anchors_t *a, const ndd_anchors_t *b,
                                                       uint64_t *ma, uint64_t *mb)
{
    const uint32_t *ha = a->h, *hb = b->h;
    const int *ia = (const int *)(const void *)ha, *ib = (const int *)(const void *)hb;
    uint8_t *ba = (uint8_t *)ma, *bb = (uint8_t *)mb;
    size_t i = 0, j = 0, na = a->nh, nb = b->nh;
    unsigned acc_a = 0, acc_b = 0;
    while (i + 8 <= na && j + 8 <= nb) {
        __m256i va = _mm256_loadu_si256((const __m256i *)(const void *)(ha + i));
        __m256i vb = _mm256_loadu_si256((const __m256i *)(const void *)(hb + j));
        __m256i ea = any_of8(va, ib + j), eb = any_of8(vb, ia + i);
        acc_a |= (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(ea));
        acc_b |= (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(eb));
        block_step(ha, hb, ba, bb, &i, &j, &acc_a, &acc_b);
    }
    shared_rest(ha, hb, ma, mb, i, na, j, nb);
}

/* A step of shared_avx2's merge with the 64 compares of two blocks by one
 * conflict detection: a's block in lanes 0-7 and b's in lanes 8-15 of one
 * register, vpconflictd gives each lane the lanes before it that hold its
 * value. Within a block the hashes are distinct, so lane 8 + t's bits are
 * the a lanes equal to b's hash t: b's flags are the lanes 8-15 with a bit,
 * a's the OR of their bits. (Only where the instruction is fast: AMD cores;
 * on Intel cores it is microcoded, and the AVX2 merge is kept.) */
NDD_A512 static inline void step_512(const uint32_t *ha, const uint32_t *hb, uint8_t *ba, uint8_t *bb, size_t *i,
                                     size_t *j, unsigned *acc_a, unsigned *acc_b)
{
    const __m512i low = _mm512_set1_epi32(0xff);
    __m256i va = _mm256_loadu_si256((const __m256i *)(const void *)(ha + *i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(const void *)(hb + *j));
    __m512i c = _mm512_conflict_epi32(_mm512_inserti64x4(_mm512_castsi256_si512(va), vb, 1));
    __m256i cb = _mm512_extracti64x4_epi64(c, 1);
    __m128i o = _mm_or_si128(_mm256_castsi256_si128(cb), _mm256_extracti128_si256(cb, 1));
    o = _mm_or_si128(o, _mm_shuffle_epi32(o, 0x4e));
    o = _mm_or_si128(o, _mm_shuffle_epi32(o, 0xb1));
    *acc_a |= (unsigned)_mm_cvtsi128_si32(o) & 0xffu;
    *acc_b |= (unsigned)_mm512_test_epi32_mask(c, low) >> 8;
    block_step(ha, hb, ba, bb, i, j, acc_a, acc_b);
}

/* The merge as two merges at once: the distinct hashes below
 * NDD_ANCHOR_SPLIT (about half of them) against each other, the others
 * against each other, a step of each in turn - two chains of dependent
 * loads instead of one (stop 49: the 3 KB template pairs' bound 5.6-5.8 ->
 * 4.8-4.9 us with the anchors out of the caches, 2.35 -> 2.06 us in
 * cache). The second merge starts at the block that holds the first hash of
 * its part, so it may see a few of the first part's (equal ones are shared
 * all the same); the two never store the same flag byte whole (the first's
 * steps end before that block), and the first merge's last hashes are ORed
 * in after the second's steps. (Four merges, their states in arrays, took
 * 2.9 us in cache; two with the AVX2 steps 4.9 against 3.7 for one: the
 * registers do not hold two.) */
NDD_A512 static void shared_512(const ndd_anchors_t *a, const ndd_anchors_t *b, uint64_t *ma, uint64_t *mb)
{
    const uint32_t *ha = a->h, *hb = b->h;
    uint8_t *ba = (uint8_t *)ma, *bb = (uint8_t *)mb;
    const size_t la = a->nlo, lb = b->nlo, na = a->nh, nb = b->nh;
    size_t i1 = 0, j1 = 0, i2 = la & ~(size_t)7, j2 = lb & ~(size_t)7;
    unsigned a1 = 0, b1 = 0, a2 = 0, b2 = 0;
    while (i1 + 8 <= la && j1 + 8 <= lb && i2 + 8 <= na && j2 + 8 <= nb) {
        step_512(ha, hb, ba, bb, &i1, &j1, &a1, &b1);
        step_512(ha, hb, ba, bb, &i2, &j2, &a2, &b2);
    }
    while (i2 + 8 <= na && j2 + 8 <= nb)
        step_512(ha, hb, ba, bb, &i2, &j2, &a2, &b2);
    shared_rest(ha, hb, ma, mb, i2, na, j2, nb);
    while (i1 + 8 <= la && j1 + 8 <= lb)
        step_512(ha, hb, ba, bb, &i1, &j1, &a1, &b1);
    shared_rest(ha, hb, ma, mb, i1, la, j1, lb);
}
#endif

/* Flags, in ma and mb (a bit per distinct hash), the hashes a and b share: a merge
 * of the two increasing lists of distinct hashes. It compares blocks of 8
 * against 8 (AVX2) or 4 against 4 (SSE2), all pairs at once, and moves past
 * the block whose last hash is smaller (both when equal): a hash that is in
 * both lists meets its partner in some compared pair of blocks, as the
 * hashes are distinct and increasing (Schlegel et al. 2011, "Fast
 * sorted-set intersection using SIMD instructions"). The rest is merged
 * one by one. */
static void shared_hashes(const ndd_anchors_t *a, const ndd_anchors_t *b, uint64_t *ma, uint64_t *mb)
{
#ifdef NDD_ANCHOR_AVX2
    if (isa_max >= 3 && a512_cpu() && __builtin_cpu_is("amd")) {
        shared_512(a, b, ma, mb);
        return;
    }
    if (isa_max >= 2 && __builtin_cpu_supports("avx2")) {
        shared_avx2(a, b, ma, mb);
        return;
    }
#endif
    shared_rest(a->h, b->h, ma, mb, 0, a->nh, 0, b->nh);
}

/* The merge from ha[i], hb[j] on (i, j: multiples of 8, or 0) to na, nb:
 * 4 against 4 (SSE2), then one by one; flags ORed in. */
static void shared_rest(const uint32_t *ha, const uint32_t *hb, uint64_t *ma, uint64_t *mb, size_t i, size_t na,
                        size_t j, size_t nb)
{
#if defined(__SSE2__)
    while (isa_max >= 1 && i + 4 <= na && j + 4 <= nb) {
        __m128i va = _mm_loadu_si128((const __m128i *)(const void *)(ha + i));
        __m128i vb = _mm_loadu_si128((const __m128i *)(const void *)(hb + j));
        /* e_k lane l: ha[i + l] == hb[j + (l + k) % 4] */
        __m128i e0 = _mm_cmpeq_epi32(va, vb);
        __m128i e1 = _mm_cmpeq_epi32(va, _mm_shuffle_epi32(vb, _MM_SHUFFLE(0, 3, 2, 1)));
        __m128i e2 = _mm_cmpeq_epi32(va, _mm_shuffle_epi32(vb, _MM_SHUFFLE(1, 0, 3, 2)));
        __m128i e3 = _mm_cmpeq_epi32(va, _mm_shuffle_epi32(vb, _MM_SHUFFLE(2, 1, 0, 3)));
        __m128i any = _mm_or_si128(_mm_or_si128(e0, e1), _mm_or_si128(e2, e3));
        unsigned fa = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(any));
        if (fa) {
            /* b's lane t matched a's lane (t - k) % 4 in e_k */
            __m128i r = _mm_or_si128(_mm_or_si128(e0, _mm_shuffle_epi32(e1, _MM_SHUFFLE(2, 1, 0, 3))),
                                     _mm_or_si128(_mm_shuffle_epi32(e2, _MM_SHUFFLE(1, 0, 3, 2)),
                                                  _mm_shuffle_epi32(e3, _MM_SHUFFLE(0, 3, 2, 1))));
            unsigned fb = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(r));
            ma[i / 64] |= (uint64_t)fa << (i % 64); /* i, j: multiples of 4 */
            mb[j / 64] |= (uint64_t)fb << (j % 64);
        }
        uint32_t la = ha[i + 3], lb = hb[j + 3];
        i += la <= lb ? 4 : 0;
        j += lb <= la ? 4 : 0;
    }
#endif
    while (i < na && j < nb) {
        uint32_t x = ha[i], y = hb[j];
        if (x == y) {
            ma[i / 64] |= 1ULL << (i % 64);
            mb[j / 64] |= 1ULL << (j % 64);
        }
        i += x <= y;
        j += y <= x;
    }
}

int ndd_anchors_likely_close(const ndd_anchors_t *a, const ndd_anchors_t *b)
{
    size_t na = a->ns, nb = b->ns, m = na < nb ? na : nb;
    if (m < 16)
        return 0;
    size_t i = 0, j = 0, shared = 0;
    while (i < na && j < nb) { /* both increasing */
        uint32_t x = a->h[i], y = b->h[j];
        shared += x == y;
        i += x <= y;
        j += y <= x;
    }
    return 4 * shared >= 3 * m;
}

int ndd_anchors_bound(const ndd_anchors_t *a, const ndd_anchors_t *b, uint64_t **mark, size_t *mark_cap,
                      size_t need, size_t *ua, size_t *ub)
{
    *ua = *ub = 0;
    if (a->window != b->window || !a->window)
        return NDD_ERR_INVAL;
    if (!a->n || !b->n)
        return NDD_OK;
    size_t wa = (a->nh + 63) / 64, wb = (b->nh + 63) / 64;
    int rc = ndd_array_grow((void **)mark, mark_cap, wa + wb, sizeof **mark);
    if (rc)
        return rc;
    uint64_t *ma = *mark, *mb = *mark + wa;
    memset(ma, 0, (wa + wb) * sizeof *ma);
    shared_hashes(a, b, ma, mb);
    size_t k, w;
    ndd_anchor_shape(a->window, &k, &w);
    *ua = cover(a, ma, w);
    *ub = *ua < need ? b->len : cover(b, mb, w);
    return NDD_OK;
}
