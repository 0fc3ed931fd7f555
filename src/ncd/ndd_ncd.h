/* ndd_ncd.h - SigNCD (paper 000): normalized compression distance on
 * punctuation-spot signatures, with the exact P1 (size-ratio) pruning and the
 * P2 (triangle inequality) pruning for all-pairs search. Plain C, no MPI, no
 * printing. See docs/signcd.md for the definitions, defaults and measurements.
 *
 * Definitions used everywhere in this module:
 *   C(s)      |zstd(s)| - |zstd("")|: the zstd frame size of s (no checksum,
 *             no content size, literals stored raw so that zstd acts as an
 *             LZ-only compressor like the paper's Snappy; the context's level)
 *             minus the size of the empty frame, which carries no information.
 *             So C("") = 0 and C(s) >= 1 for s non-empty (paper 000, Def. 1).
 *   x . y     the concatenation in CANONICAL order: the string with the smaller
 *             C first, ties by bytes (memcmp, then length). So C(x.y) and the
 *             NCD are pure functions of the unordered pair {x, y}.
 *   C'(xy)    = max(C(x.y), C(x), C(y))   (zstd is not a "normal" compressor:
 *             on tiny inputs C(x.y) < max(C(x), C(y)) happens)
 *   NCD(x,y)  = min(1, (C'(xy) - min(C(x),C(y))) / max(C(x),C(y)))  in [0, 1];
 *             NCD("", "") = 0 (no division by zero), NCD("", y) = 1.
 *   SigNCD    = NCD(sig(x), sig(y)); a pair is a duplicate when NCD <= tau.
 * With C'(xy) >= max(C(x),C(y)), NCD >= 1 - min/max holds for every pair, so
 * the P1 bound (Lemma 3 of the paper) is exact for this definition.
 */
#ifndef NDD_NCD_H
#define NDD_NCD_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"

#define NDD_NCD_DEFAULT_TAU 0.7        /* paper 000: best F1 on its Gold Set */
#define NDD_NCD_DEFAULT_LEVEL 3        /* zstd level, chosen by measurement (docs/signcd.md) */
#define NDD_NCD_DEFAULT_MIN_SPOTS 3    /* paper 000: fewer spots -> whole document */
#define NDD_NCD_DEFAULT_CJK_CHARS 4    /* CJK rule: at most this many chars before a comma (measured) */
#define NDD_NCD_DEFAULT_P2_BLOCK 64    /* P2 pivot window: rows of the same block (rank-count independent) */
#define NDD_NCD_DEFAULT_P2_SLACK 0.1   /* P2 margin for zstd's triangle-inequality violations (paper's epsilon) */

/* ---- signatures ---- */

typedef struct ndd_ncd_sig_opts {
    size_t min_spots;     /* fewer non-empty spot words than this: signature = whole text */
    size_t cjk_max_chars; /* CJK rule: characters taken before a comma (stops earlier at punctuation/space) */
} ndd_ncd_sig_opts_t;

void ndd_ncd_sig_opts_default(ndd_ncd_sig_opts_t *o);

/* Punctuation-spot signature Sig-1L: the word before each comma (',' U+002C,
 * '，' U+FF0C, '、' U+3001, '﹐' U+FE50, '､' U+FF64), joined by single spaces.
 * Latin rule: the token of non-space characters before the comma (spaces
 * between word and comma skipped), ending at whitespace, a CJK character or
 * CJK punctuation, with ASCII punctuation trimmed from both ends. CJK rule
 * (the character before the comma is Han/kana): up to cjk_max_chars
 * characters, stopping at punctuation, whitespace or a non-CJK character.
 * When fewer than min_spots words were found, the signature is the whole text.
 * sig is cleared first; *nspots (may be NULL) receives the number of words
 * found (before the fallback). Invalid UTF-8 bytes count as one non-CJK,
 * non-space character each (never an error). o may be NULL (defaults). */
int ndd_ncd_signature_ex(const char *text, size_t n, const ndd_ncd_sig_opts_t *o,
                         ndd_buf_t *sig, size_t *nspots);
int ndd_ncd_signature(const char *text, size_t n, ndd_buf_t *sig); /* defaults */

/* ---- compression distance ---- */

/* Owns a ZSTD_CCtx (created once, parameters set once) and the reusable
 * concatenation and output buffers. Not thread-safe: one per thread/rank. */
typedef struct ndd_ncd_ctx ndd_ncd_ctx_t;

/* level: any zstd level (negative = fast levels); 0 means NDD_NCD_DEFAULT_LEVEL. */
int ndd_ncd_ctx_create(ndd_ncd_ctx_t **c, int level);
/* flags: NDD_NCD_HUFFMAN_LITERALS lets zstd entropy-code literals (its
 * default; not ours, see docs/signcd.md) - for measurements only. */
#define NDD_NCD_HUFFMAN_LITERALS 1u
int ndd_ncd_ctx_create_ex(ndd_ncd_ctx_t **c, int level, unsigned flags);
void ndd_ncd_ctx_free(ndd_ncd_ctx_t *c);

/* C(s): compressed size of s[0..n) (n may be 0). */
int ndd_ncd_csize(ndd_ncd_ctx_t *c, const char *s, size_t n, size_t *csize);

/* The clamped NCD formula from the three sizes (see the top of this file).
 * cx = cy = 0 gives 0; never divides by zero. */
double ndd_ncd_value(size_t cx, size_t cy, size_t cxy);

/* NCD(x, y) with cx = C(x) and cy = C(y) given (from ndd_ncd_csize): compresses
 * the canonical concatenation once. *cxy (may be NULL) receives the raw
 * C(x.y) before clamping. Symmetric: swapping x and y gives the same result. */
int ndd_ncd_pair(ndd_ncd_ctx_t *c, const char *x, size_t nx, size_t cx,
                 const char *y, size_t ny, size_t cy, double *ncd, size_t *cxy);

/* ---- all-pairs search with P1 (+ P2) ---- */

typedef struct ndd_ncd_item {
    const char *s;  /* signature (or whole text); not owned */
    size_t len;
    size_t csize;   /* C(s) from ndd_ncd_csize */
    uint64_t key;   /* order key of the document (e.g. its index); unique */
} ndd_ncd_item_t;

/* Sorts by (csize, key) ascending: the list L of the paper. */
void ndd_ncd_sort(ndd_ncd_item_t *items, size_t n);

typedef struct ndd_ncd_allpairs_opts {
    double tau;        /* duplicate when NCD <= tau (default 0.7) */
    int p1;            /* 1: skip rows past the matching partition (exact) */
    int p2;            /* 1: triangle-inequality pruning (see p2_slack) */
    size_t p2_block;   /* pivots z of row x are the rows of x's block [x - x % p2_block, x) */
    double p2_slack;   /* P2 skips <x,y> when |NCD(x,z) - NCD(y,z)| > tau + p2_slack (default 0.1) */
} ndd_ncd_allpairs_opts_t;

void ndd_ncd_allpairs_opts_default(ndd_ncd_allpairs_opts_t *o); /* tau 0.7, p1 on, p2 off, block 64, slack 0.1 */

typedef struct ndd_ncd_stats {
    uint64_t pairs;      /* pairs <x,y> (x in the rows, y after x) considered */
    uint64_t compared;   /* pairs whose C(x.y) was computed */
    uint64_t pruned_p1;  /* skipped by P1 (outside the matching partition) */
    uint64_t pruned_p2;  /* skipped by P2 */
    uint64_t found;      /* pairs with NCD <= tau */
} ndd_ncd_stats_t;

typedef struct ndd_ncd_hit {
    uint64_t a, b;   /* rows in the sorted list, a < b */
    double ncd;
} ndd_ncd_hit_t;

typedef struct ndd_ncd_hits {
    ndd_ncd_hit_t *v;
    size_t n, cap;
} ndd_ncd_hits_t;

void ndd_ncd_hits_free(ndd_ncd_hits_t *h);

/* First row after i outside i's matching partition: the first j > i with
 * (C_j - C_i) / C_j > tau (the P1 lower bound exceeds tau), or n. */
size_t ndd_ncd_p1_end(const ndd_ncd_item_t *sorted, size_t n, size_t i, double tau);

/* Every pair <x, y> with x in rows [row_lo, row_hi) of the sorted list, y a
 * later row, and NCD <= tau, appended to hits in (a, b) order; counters are
 * ADDED to *st (may be NULL). With P2 on, row_lo must be a multiple of
 * p2_block (so that results and counters do not depend on how rows are split;
 * use ndd_ncd_split). The union over any split of [0, n) equals the brute
 * force result (P1 exactly; P2 as long as the triangle inequality holds
 * within p2_slack, see docs/signcd.md). */
int ndd_ncd_allpairs(ndd_ncd_ctx_t *c, const ndd_ncd_item_t *sorted, size_t n,
                     size_t row_lo, size_t row_hi, const ndd_ncd_allpairs_opts_t *o,
                     ndd_ncd_hits_t *hits, ndd_ncd_stats_t *st);

/* Rows [*lo, *hi) of part `part` out of nparts: contiguous, aligned to
 * p2_block, balanced by the number of pairs each row has inside its matching
 * partition (P1 widths, or n - i - 1 without P1). Deterministic. */
int ndd_ncd_split(const ndd_ncd_item_t *sorted, size_t n, const ndd_ncd_allpairs_opts_t *o,
                  size_t nparts, size_t part, size_t *lo, size_t *hi);

#endif
