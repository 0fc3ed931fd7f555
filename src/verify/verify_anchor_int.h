/* verify_anchor_int.h - what verify_anchor.c and verify_sketch.c share: the
 * k-gram hash of the anchors and the membership filter of anchor hashes. */
#ifndef NDD_VERIFY_ANCHOR_INT_H
#define NDD_VERIFY_ANCHOR_INT_H

#include <stdint.h>
#include <string.h>

#include "ndd_verify.h"

/* 32-bit hash of the k bytes at p (k = 8: one load). */
static inline uint32_t ndd_kgram_hash(const uint8_t *p, size_t k)
{
    uint64_t h;
    if (k == 8) {
        memcpy(&h, p, 8);
    } else {
        h = 0;
        for (size_t i = 0; i < k; i++)
            h = h << 8 | p[i];
    }
    h *= 0x9E3779B97F4A7C15ULL;
    return (uint32_t)(h >> 32);
}

/* May a's anchors hold hash h? (a one-bit-per-slot filter: no false "no") */
static inline int ndd_anchors_may_hold(const ndd_anchors_t *a, uint32_t h)
{
    uint32_t i = a->bits_shift < 32 ? h >> a->bits_shift : 0;
    return (int)(a->bits[i >> 6] >> (i & 63)) & 1;
}

/* For tests: the widest instructions the anchor bound may use (0 plain C,
 * 1 SSE2, 2 AVX2, 3 AVX-512 where the CPU has them; the default 3); returns
 * the former setting. Not thread-safe: set it before any bound runs. */
unsigned ndd_anchors_isa(unsigned max);

#endif
