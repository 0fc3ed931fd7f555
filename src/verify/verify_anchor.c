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

void ndd_anchor_shape(size_t window, size_t *k, size_t *w)
{
    *k = window >= 16 ? 8 : window / 2 ? window / 2 : 1;
    *w = window >= *k ? window - *k + 1 : 1;
}

void ndd_anchors_free(ndd_anchors_t *a)
{
    free(a->v);
    free(a->off);
    free(a->bits);
    memset(a, 0, sizeof *a);
}

int ndd_anchors_make(ndd_anchors_t *a, const void *text, size_t n, size_t window, uint64_t **scratch,
                     size_t *scratch_cap)
{
    const uint8_t *t = text;
    size_t k, w;
    a->n = a->noff = 0;
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
    /* scratch: the k-gram keys (m entries; the picks overwrite them from the
     * front, behind the reading point), then the suffix minima (m entries;
     * the sort's second array afterwards) */
    int rc = ndd_array_grow((void **)scratch, scratch_cap, 2 * m, sizeof **scratch);
    if (rc)
        return rc;
    /* key = hash << 32 | ~index: the least key of a run is its least hash,
     * the rightmost one among equal hashes */
    uint64_t *key = *scratch, *suf = *scratch + m, *pick = key;
    if (k == 8) /* the paper's S = 16: one load per k-gram */
        for (size_t i = 0; i < m; i++)
            key[i] = (uint64_t)ndd_kgram_hash(t + i, 8) << 32 | (uint32_t)~(uint32_t)i;
    else
        for (size_t i = 0; i < m; i++)
            key[i] = (uint64_t)ndd_kgram_hash(t + i, k) << 32 | (uint32_t)~(uint32_t)i;
    /* the minimum of every run of w keys by van Herk / Gil-Werman: blocks of
     * w keys, suffix minima inside each block, prefix minima on the fly;
     * run [i, i + w - 1] = min(suffix min at i, prefix min at i + w - 1) */
    for (size_t b = 0; b < m; b += w) {
        size_t e = b + w < m ? b + w : m;
        uint64_t x = UINT64_MAX;
        for (size_t i = e; i-- > b;) {
            x = key[i] < x ? key[i] : x;
            suf[i] = x;
        }
    }
    /* each window's anchor offset (a byte: only when w <= 255) */
    uint8_t *off = NULL;
    if (w <= 255) {
        if ((rc = ndd_array_grow((void **)&a->off, &a->off_cap, m + 1 - w, 1)))
            return rc;
        off = a->off;
    }
    size_t np = 0;
    uint32_t last = UINT32_MAX;
    uint64_t pre = UINT64_MAX;
    for (size_t j = 0, jw = 0; j < m; j++) { /* j = the run's last k-gram, jw = j % w (no division) */
        pre = jw == 0 ? key[j] : (key[j] < pre ? key[j] : pre);
        if (++jw == w)
            jw = 0;
        if (j + 1 < w)
            continue;
        uint64_t s0 = suf[j + 1 - w], mn = jw == 0 ? s0 : (s0 < pre ? s0 : pre); /* jw == (j + 1) % w */
        uint32_t pos = ~(uint32_t)mn;
        if (off)
            off[j + 1 - w] = (uint8_t)(pos - (j + 1 - w));
        /* a new pick when the minimum moved (picks never move back:
         * positions increase); written always, kept when new (no branch);
         * np <= j + 1 - w: behind key[j] */
        pick[np] = (mn & 0xFFFFFFFF00000000ULL) | pos;
        np += pos != last;
        last = pos;
    }
    /* by (hash, position): a stable LSD radix sort of the picks (made in
     * position order) on the hash, 8 bits at a time; the suffix minima's
     * room is free again and takes the other half */
    if ((rc = ndd_array_grow((void **)&a->v, &a->cap, np, sizeof *a->v)))
        return rc;
    uint64_t *src = pick, *dst = suf;
    for (unsigned sh = 32; sh < 64; sh += 8) {
        size_t cnt[256] = {0};
        for (size_t i = 0; i < np; i++)
            cnt[(src[i] >> sh) & 255]++;
        for (size_t d = 0, at = 0; d < 256; d++) {
            size_t c = cnt[d];
            cnt[d] = at;
            at += c;
        }
        for (size_t i = 0; i < np; i++)
            dst[cnt[(src[i] >> sh) & 255]++] = src[i];
        uint64_t *x = src;
        src = dst;
        dst = x;
    }
    memcpy(a->v, src, np * sizeof *src);
    /* the filter: 16 or more bits per anchor (a power of two), at least 64 */
    unsigned lg = 6;
    while (((size_t)1 << lg) < 16 * np && lg < 32)
        lg++;
    size_t nw = ((size_t)1 << lg) / 64;
    if ((rc = ndd_array_grow((void **)&a->bits, &a->bits_cap, nw, sizeof *a->bits)))
        return rc;
    memset(a->bits, 0, nw * sizeof *a->bits);
    a->bits_shift = 32 - lg;
    for (size_t i = 0; i < np; i++) {
        uint32_t h = (uint32_t)(a->v[i] >> 32), b = a->bits_shift < 32 ? h >> a->bits_shift : 0;
        a->bits[b >> 6] |= 1ULL << (b & 63);
    }
    a->n = np;
    a->noff = off ? m + 1 - w : 0;
    return NDD_OK;
}

/* Union of [p - w + 1, p + S) over the marked positions p (a bitmap over
 * the text, scanned in increasing order), within [0, len). */
static size_t cover(const uint64_t *bits, size_t len, size_t window, size_t w)
{
    size_t total = 0, end = 0;
    for (size_t x = 0; x < (len + 63) / 64; x++)
        for (uint64_t b = bits[x]; b; b &= b - 1) {
            size_t p = x * 64 + (size_t)__builtin_ctzll(b), lo = p + 1 >= w ? p + 1 - w : 0, hi = p + window;
            if (hi > len)
                hi = len;
            if (lo < end)
                lo = end;
            if (hi > lo) {
                total += hi - lo;
                end = hi;
            }
        }
    return total;
}

int ndd_anchors_bound(const ndd_anchors_t *a, const ndd_anchors_t *b, uint64_t **mark, size_t *mark_cap,
                      size_t *ua, size_t *ub)
{
    *ua = *ub = 0;
    if (a->window != b->window || !a->window)
        return NDD_ERR_INVAL;
    if (!a->n || !b->n)
        return NDD_OK;
    size_t wa = (a->len + 63) / 64, wb = (b->len + 63) / 64;
    int rc = ndd_array_grow((void **)mark, mark_cap, wa + wb, sizeof **mark);
    if (rc)
        return rc;
    uint64_t *ma = *mark, *mb = *mark + wa;
    memset(ma, 0, (wa + wb) * sizeof *ma);
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        uint32_t ha = (uint32_t)(a->v[i] >> 32), hb = (uint32_t)(b->v[j] >> 32);
        if (ha < hb) {
            i++;
        } else if (hb < ha) {
            j++;
        } else {
            for (; i < a->n && (uint32_t)(a->v[i] >> 32) == ha; i++)
                ma[(uint32_t)a->v[i] / 64] |= 1ULL << ((uint32_t)a->v[i] % 64);
            for (; j < b->n && (uint32_t)(b->v[j] >> 32) == ha; j++)
                mb[(uint32_t)b->v[j] / 64] |= 1ULL << ((uint32_t)b->v[j] % 64);
        }
    }
    size_t k, w;
    ndd_anchor_shape(a->window, &k, &w);
    *ua = cover(ma, a->len, a->window, w);
    *ub = cover(mb, b->len, b->window, w);
    return NDD_OK;
}
