/* verify_myers.c - Myers' O(ND) difference algorithm (E. W. Myers, "An O(ND)
 * difference algorithm and its variations", 1986), linear-space version:
 * the middle snake splits the problem into two halves whose D values add up
 * to D, recursively. The bisection is the paper's, organised like GNU diff's
 * diag() (forward and backward furthest-reaching paths, diagonal range
 * clipped to the grid, no heuristic), extended with:
 *   - common prefix/suffix trimming before every bisection (word-at-a-time),
 *   - an explicit cost limit: the top-level bisection stops as soon as it
 *     knows D > max_d (like xdiff's mxcost, but without a heuristic: hitting
 *     the limit is reported, never answered with a non-minimal script), and
 *     also after NDD_MYERS_MAX_WORK diagonal steps + compared bytes (the
 *     recursion below costs at most about as much again), so that even a
 *     generous D limit on adversarial input gives a bounded run,
 *   - V arrays sized O(min(D, max_d)) and reused across calls (workspace).
 * The script is checked at the end: its DEL + INS count must equal D. */
#include "ndd_verify.h"
#include "verify_int.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

struct ndd_myers_ws {
    int32_t *v1, *v2; /* furthest x per diagonal (int32: sequences < 2^31 bytes) */
    size_t vcap;
    ndd_edit_t *script;
    size_t n, cap;
    size_t topd; /* D found by the top-level call */
    int32_t *pv; /* AVX2 bisection: F and B paths split by diagonal parity */
    size_t pvcap;
    uint64_t *rw; /* the splits from LCS rows: their rows, a stack (the halves use their parent's) */
    size_t rwcap, rtop;
    /* ... and B's match masks by byte, per direction (0 forward, 1 of B
     * reversed): those of the bytes pmb[d] .. pmb[d] + pmm[d], pms[d] words
     * a byte (pmb NULL: none, all zero), kept for the halves, which use a
     * part of them at a bit offset; zero again when ndd_myers_diff returns */
    uint64_t *pm[2];
    const uint8_t *pmb[2];
    size_t pmm[2], pms[2], pmcap[2];
};

int ndd_myers_ws_create(ndd_myers_ws_t **ws)
{
    *ws = calloc(1, sizeof **ws);
    return *ws ? NDD_OK : NDD_ERR_NOMEM;
}

void ndd_myers_ws_free(ndd_myers_ws_t *ws)
{
    if (!ws)
        return;
    free(ws->v1);
    free(ws->v2);
    free(ws->script);
    free(ws->pv);
    free(ws->rw);
    free(ws->pm[0]);
    free(ws->pm[1]);
    free(ws);
}

const ndd_edit_t *ndd_myers_script(const ndd_myers_ws_t *ws, size_t *n)
{
    *n = ws->n;
    return ws->script;
}

size_t ndd_myers_auto_limit(size_t n)
{
    if (n == 0)
        return 0;
    size_t d = NDD_MYERS_WORK / n;
    if (d < NDD_MYERS_MIN_LIMIT)
        d = NDD_MYERS_MIN_LIMIT;
    if (d > n)
        d = n;
    return d;
}

static int my_emit(ndd_myers_ws_t *ws, int op, size_t a, size_t b, size_t len)
{
    if (!len)
        return NDD_OK;
    if (ws->n) {
        ndd_edit_t *l = &ws->script[ws->n - 1];
        if (l->op == op) {
            if ((op == NDD_EDIT_EQ && l->a + l->len == a && l->b + l->len == b) ||
                (op == NDD_EDIT_DEL && l->a + l->len == a && l->b == b) ||
                (op == NDD_EDIT_INS && l->a == a && l->b + l->len == b)) {
                l->len += len;
                return NDD_OK;
            }
        }
    }
    if (ws->n == ws->cap) {
        size_t c = ws->cap ? 2 * ws->cap : 64;
        ndd_edit_t *s = realloc(ws->script, c * sizeof *s);
        if (!s)
            return NDD_ERR_NOMEM;
        ws->script = s;
        ws->cap = c;
    }
    ws->script[ws->n++] = (ndd_edit_t){op, a, b, len};
    return NDD_OK;
}

#define MY_DEFER 1 /* my_bisect_avx2: cstop rounds passed without a meeting; my_rec: no split yet */

/* LCS rows kept on the workspace's stack for the halves: at rw + off, s
 * words a row, each the window of the row's columns from word (x - g) / 64
 * on (from word 0 while x <= g), the LCS up to that word's first column at
 * rw[boff + x] (off = SIZE_MAX: none; see my_rows_split). */
typedef struct {
    size_t off, s, boff;
    int64_t g;
} my_view_t;
#define MY_NO_VIEW ((my_view_t){SIZE_MAX, 0, 0, 0})
#define MY_ROWS_KEEP ((size_t)1 << 22) /* words of rows a workspace keeps between calls (32 MiB) */

static int my_reserve_v(ndd_myers_ws_t *ws, size_t vlen)
{
    if (vlen <= ws->vcap)
        return NDD_OK;
    size_t c = ws->vcap ? ws->vcap : 256;
    while (c < vlen)
        c *= 2;
    int32_t *p = realloc(ws->v1, c * sizeof *p);
    if (!p)
        return NDD_ERR_NOMEM;
    ws->v1 = p;
    p = realloc(ws->v2, c * sizeof *p);
    if (!p)
        return NDD_ERR_NOMEM;
    ws->v2 = p;
    ws->vcap = c;
    return NDD_OK;
}

/* Where the snakes' lengths come from: the sequences (my_bisect) or the
 * small halves' run tables (my_bisect_small, below). */
typedef struct {
    const uint8_t *A, *B;
    const uint8_t (*rf)[32], (*rb)[32];
    int64_t n, m;
} my_snakes_t;

/* The scalar snakes of my_bisect (forward from x on diagonal k, backward). */
static inline int64_t my_snake_fwd(const uint8_t *A, int64_t n, const uint8_t *B, int64_t m, int64_t x, int64_t k,
                                   uint64_t *work)
{
    int64_t y = x - k;
    if (x < n && y < m && A[x] == B[y]) {
        size_t lim = (size_t)(n - x < m - y ? n - x : m - y) - 1;
        int64_t s = 1 + (int64_t)ndd_verify_prefix(A + x + 1, B + y + 1, lim);
        *work += (uint64_t)s;
        x += s;
    }
    return x;
}

static inline int64_t my_snake_bwd(const uint8_t *A, const uint8_t *B, int64_t x, int64_t k, uint64_t *work)
{
    int64_t y = x - k;
    if (x > 0 && y > 0 && A[x - 1] == B[y - 1]) {
        size_t lim = (size_t)(x < y ? x : y) - 1;
        int64_t s = 1 + (int64_t)ndd_verify_suffix(A + x - 1, B + y - 1, lim);
        *work += (uint64_t)s;
        x -= s;
    }
    return x;
}

/* The rounds of the bisection (my_bisect's comment), on V arrays v1 and v2
 * of 2 cmax + 3 entries; small: the snakes from q's tables and no work cap
 * (inlined into each caller with small a constant). */
static inline __attribute__((always_inline)) int my_rounds(const my_snakes_t *q, int small, int32_t *v1, int32_t *v2,
                                                           int64_t cmax, size_t dlim, int top, size_t *sx,
                                                           size_t *sy, size_t *D)
{
    uint64_t work = 0; /* diagonals visited + bytes compared (top level: capped) */
    const int64_t n = q->n, m = q->m, delta = n - m;
    const int odd = (delta & 1) != 0;
    const int64_t off = cmax + 1;
    /* F[k] at fv[k + off], B[k] at bv[k - delta + off] */
    int32_t *fv = v1 + off, *bv = v2 + off - delta;
    const int64_t dmin = -m, dmax = n;
    int64_t fmin = 0, fmax = 0, bmin = delta, bmax = delta;
    fv[0] = 0;
    bv[delta] = (int32_t)n;

    for (int64_t c = 1; c <= cmax; c++) {
        if (!small && top && work > NDD_MYERS_MAX_WORK)
            return NDD_ERR_LIMIT;
        /* forward: one more edit on every diagonal of the range */
        if (fmin > dmin)
            fv[--fmin - 1] = -1;
        else
            ++fmin;
        if (fmax < dmax)
            fv[++fmax + 1] = -1;
        else
            --fmax;
        work += (uint64_t)(fmax - fmin + 2);
        for (int64_t k = fmax; k >= fmin; k -= 2) {
            int64_t tlo = fv[k - 1], thi = fv[k + 1];
            int64_t x = tlo < thi ? thi : tlo + 1, y = x - k;
            if (small)
                x += x < n && y < m ? q->rf[x][y] : 0;
            else
                x = my_snake_fwd(q->A, n, q->B, m, x, k, &work);
            fv[k] = (int32_t)x;
        }
        /* overlap with the backward paths, checked after the round from the
         * highest diagonal down: the first hit is the one an in-loop check
         * would have returned (each F[k] is written once per round and B
         * does not change during it) */
        if (odd) {
            int64_t lo = fmin > bmin ? fmin : bmin, hi = fmax < bmax ? fmax : bmax;
            if (((hi - fmax) & 1) != 0)
                hi--; /* the forward round's parity */
            for (int64_t k = hi; k >= lo; k -= 2)
                if (bv[k] <= fv[k]) {
                    size_t dd = (size_t)(2 * c - 1);
                    if (dd > dlim)
                        return NDD_ERR_LIMIT;
                    *sx = (size_t)fv[k];
                    *sy = (size_t)(fv[k] - k);
                    *D = dd;
                    return NDD_OK;
                }
        }
        /* backward */
        if (bmin > dmin)
            bv[--bmin - 1] = INT32_MAX;
        else
            ++bmin;
        if (bmax < dmax)
            bv[++bmax + 1] = INT32_MAX;
        else
            --bmax;
        work += (uint64_t)(bmax - bmin + 2);
        for (int64_t k = bmax; k >= bmin; k -= 2) {
            int64_t tlo = bv[k - 1], thi = bv[k + 1];
            int64_t x = tlo < thi ? tlo : thi - 1, y = x - k;
            if (small)
                x -= x > 0 && y > 0 ? q->rb[x][y] : 0;
            else
                x = my_snake_bwd(q->A, q->B, x, k, &work);
            bv[k] = (int32_t)x;
        }
        if (!odd) { /* as above, for the backward round */
            int64_t lo = fmin > bmin ? fmin : bmin, hi = fmax < bmax ? fmax : bmax;
            if (((hi - bmax) & 1) != 0)
                hi--;
            for (int64_t k = hi; k >= lo; k -= 2)
                if (bv[k] <= fv[k]) {
                    size_t dd = (size_t)(2 * c);
                    if (dd > dlim)
                        return NDD_ERR_LIMIT;
                    *sx = (size_t)bv[k];
                    *sy = (size_t)(bv[k] - k);
                    *D = dd;
                    return NDD_OK;
                }
        }
    }
    return top ? NDD_ERR_LIMIT : NDD_ERR_INTERNAL;
}

/* rounds c = 1 .. cmax: D <= 2c, so c <= ceil(D / 2) <= ceil((N + M) / 2) */
static int64_t my_cmax(size_t N, size_t M, size_t dlim)
{
    int64_t cmax = (int64_t)((N + M + 1) / 2) + 1;
    if (dlim < N + M && (int64_t)((dlim + 1) / 2) + 1 < cmax)
        cmax = (int64_t)((dlim + 1) / 2) + 1;
    return cmax;
}

/* Finds the middle snake of A[0..N) x B[0..M) (N, M >= 1, first and last
 * bytes differ), as in Myers' paper (section 4b) and GNU diff's diag()
 * without its heuristics: forward furthest-reaching paths F[k] (x on
 * diagonal k = x - y) and backward ones B[k] (smallest x), both searched
 * with one more edit per round c and kept inside the grid by clipping the
 * diagonal range [dmin, dmax] = [-M, N]; the first overlap gives D = 2c - 1
 * (forward) or 2c (backward) and a split point (*sx, *sy) on an optimal path.
 * V arrays are indexed relative to the start diagonal of each direction, so
 * they need O(min(D, dlim)) entries. Returns NDD_ERR_LIMIT when D > dlim, or
 * (top level) when the work exceeds NDD_MYERS_MAX_WORK. */
static int my_bisect(ndd_myers_ws_t *ws, const uint8_t *A, size_t N, const uint8_t *B, size_t M,
                     size_t dlim, int top, size_t *sx, size_t *sy, size_t *D)
{
    const int64_t cmax = my_cmax(N, M, dlim);
    int rc = my_reserve_v(ws, (size_t)(2 * cmax + 3));
    if (rc)
        return rc;
    const my_snakes_t q = {A, B, NULL, NULL, (int64_t)N, (int64_t)M};
    return my_rounds(&q, 0, ws->v1, ws->v2, cmax, dlim, top, sx, sy, D);
}

/* ---- the same bisection, 8 diagonals at a time (AVX2) ----
 * Every diagonal of a round is computed from the other parity's values of
 * the round before, so a round's diagonals are independent: they are
 * computed 8 at once, with the furthest-reaching paths stored by diagonal
 * parity (diagonal k at index K = k + off of array K & 1, entry K >> 1; off
 * even) so that a round reads and writes consecutive entries. Each lane
 * compares the first 4 bytes of its snake at once (two gathers); a lane
 * whose 4 bytes all match, or that lies within 4 bytes of the grid's edge,
 * is finished by the scalar code. The work counted, the paths and the split
 * point are those of my_bisect, step for step (test_myers checks the
 * scripts against a reference on both). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MY_AVX2 1
#include <immintrin.h>

static unsigned my_isa = 3; /* ndd_myers_isa */
static int my_rows_on = 1;   /* ndd_myers_rows */
static uint64_t my_rows_n; /* splits from the rows (ndd_myers_rows_count) */
static uint64_t my_band_n, my_band_redo; /* rows made in a band narrower than a row, rows made again wider */

unsigned ndd_myers_isa(unsigned max)
{
    unsigned old = my_isa;
    my_isa = max;
    return old;
}

int ndd_myers_rows(int on)
{
    int old = my_rows_on;
    my_rows_on = on;
    return old;
}

uint64_t ndd_myers_rows_count(void)
{
    return my_rows_n;
}

uint64_t ndd_myers_band_count(uint64_t *redone)
{
    *redone = my_band_redo;
    return my_band_n;
}

typedef struct {
    int32_t *f[2], *b[2]; /* forward and backward paths by parity */
    int64_t off;
} my_par_t;

static inline int32_t *my_at(int32_t *const v[2], int64_t off, int64_t k)
{
    int64_t K = k + off;
    return &v[K & 1][K >> 1];
}

/* Parity arrays for diagonals [-cmax - 2, cmax + 2] and the same around delta. */
static int my_reserve_par(ndd_myers_ws_t *ws, int64_t cmax, int64_t delta, my_par_t *pp)
{
    int64_t klo = (delta < 0 ? delta : 0) - cmax - 2, khi = (delta > 0 ? delta : 0) + cmax + 2;
    pp->off = (-klo + 1) & ~(int64_t)1;
    size_t len = (size_t)((khi + pp->off) >> 1) + 2;
    if (4 * len > ws->pvcap) {
        int32_t *v = realloc(ws->pv, 4 * len * sizeof *v);
        if (!v)
            return NDD_ERR_NOMEM;
        ws->pv = v;
        ws->pvcap = 4 * len;
    }
    for (int q = 0; q < 2; q++) {
        pp->f[q] = ws->pv + (size_t)q * len;
        pp->b[q] = ws->pv + (size_t)(2 + q) * len;
    }
    return NDD_OK;
}

/* The lanes my_round_avx2 left to the scalar snakes: todo[i] = j << 8 | the
 * lanes (bits) of the 8 diagonals from entry j. */
#define MY_TODO 64
static void my_finish(int32_t *W, const int32_t *R, int p, int64_t off, int fwd, const uint8_t *A, int64_t n,
                      const uint8_t *B, int64_t m, const uint64_t *todo, size_t nt, uint64_t *work)
{
    for (size_t i = 0; i < nt; i++) {
        int64_t j = (int64_t)(todo[i] >> 8);
        for (unsigned slow = (unsigned)(todo[i] & 0xff); slow; slow &= slow - 1) {
            int64_t jj = j + __builtin_ctz(slow), kk = 2 * jj + p - off, lo = R[jj + p - 1], hi = R[jj + p];
            W[jj] = (int32_t)(fwd ? my_snake_fwd(A, n, B, m, lo < hi ? hi : lo + 1, kk, work)
                                  : my_snake_bwd(A, B, lo < hi ? lo : hi - 1, kk, work));
        }
    }
}

__attribute__((target("avx2"))) static inline int32_t my_hsum(__m256i v)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

/* One round in one direction over diagonals kmin, kmin + 2, .., kmax (of
 * one parity): fwd = 1 forward (x = max(F[k+1], F[k-1] + 1), snake
 * forward), else backward (x = min(B[k-1], B[k+1] - 1), snake backward).
 * Returns the snake bytes compared (my_bisect's work beyond the diagonals). */
__attribute__((target("avx2"))) static uint64_t my_round_avx2(int32_t *const v[2], int64_t off, int fwd,
                                                              const uint8_t *A, int64_t n, const uint8_t *B,
                                                              int64_t m, int64_t kmin, int64_t kmax)
{
    const int p = (int)((kmin + off) & 1);
    int32_t *W = v[p];
    const int32_t *R = v[p ^ 1];
    int64_t j = (kmin + off) >> 1;
    const int64_t j1 = (kmax + off) >> 1;
    uint64_t work = 0;
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i lane2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    /* forward: a lane is fast when x + 4 <= n, 0 <= y, y + 4 <= m; its
     * bytes A[x..x+4), B[y..y+4) compared from the lowest; backward: when
     * 4 <= x <= n, 4 <= y <= m; A[x-4..x), B[y-4..y) from the highest */
    const __m256i xhi = _mm256_set1_epi32((int32_t)(fwd ? n - 3 : n + 1));
    const __m256i yhi = _mm256_set1_epi32((int32_t)(fwd ? m - 3 : m + 1));
    const __m256i lowb = _mm256_set1_epi32(fwd ? -1 : 3), back = _mm256_set1_epi32(fwd ? 0 : 4);
    const __m256i b1 = _mm256_set1_epi32(fwd ? 0xff : (int32_t)0xff000000u);
    const __m256i b2 = _mm256_set1_epi32(fwd ? 0xffff : (int32_t)0xffff0000u);
    const __m256i b3 = _mm256_set1_epi32(fwd ? 0xffffff : (int32_t)0xffffff00u);
    __m256i acc = zero;
    uint64_t todo[MY_TODO];
    size_t nt = 0, steps = 0;
    for (; j + 7 <= j1; j += 8) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)(R + j + p - 1));
        __m256i hi = _mm256_loadu_si256((const __m256i *)(R + j + p));
        __m256i x = fwd ? _mm256_max_epi32(hi, _mm256_add_epi32(lo, one)) : _mm256_min_epi32(lo, _mm256_sub_epi32(hi, one));
        __m256i k = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(2 * j + p - off)), lane2);
        __m256i y = _mm256_sub_epi32(x, k);
        __m256i ok = _mm256_and_si256(_mm256_cmpgt_epi32(xhi, x), _mm256_cmpgt_epi32(yhi, y));
        ok = _mm256_and_si256(ok, _mm256_cmpgt_epi32(y, lowb));
        if (!fwd)
            ok = _mm256_and_si256(ok, _mm256_cmpgt_epi32(x, lowb));
        __m256i ga = _mm256_mask_i32gather_epi32(zero, (const int *)A, _mm256_sub_epi32(x, back), ok, 1);
        __m256i gb = _mm256_mask_i32gather_epi32(zero, (const int *)B, _mm256_sub_epi32(y, back), ok, 1);
        __m256i t = _mm256_xor_si256(ga, gb);
        __m256i e1 = _mm256_cmpeq_epi32(_mm256_and_si256(t, b1), zero);
        __m256i e2 = _mm256_cmpeq_epi32(_mm256_and_si256(t, b2), zero);
        __m256i e3 = _mm256_cmpeq_epi32(_mm256_and_si256(t, b3), zero);
        __m256i e4 = _mm256_cmpeq_epi32(t, zero); /* 4 equal bytes, or a lane not fast (t = 0) */
        __m256i len = _mm256_andnot_si256(e4, _mm256_sub_epi32(zero, _mm256_add_epi32(_mm256_add_epi32(e1, e2), e3)));
        _mm256_storeu_si256((__m256i *)(W + j), fwd ? _mm256_add_epi32(x, len) : _mm256_sub_epi32(x, len));
        acc = _mm256_add_epi32(acc, len);
        /* lanes for the scalar code: listed without a branch, finished
         * after the loop (this round reads only R) */
        unsigned slow = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(e4));
        todo[nt] = (uint64_t)j << 8 | slow;
        nt += slow != 0;
        if (nt == MY_TODO) {
            my_finish(W, R, p, off, fwd, A, n, B, m, todo, nt, &work);
            nt = 0;
        }
        if (++steps == 1024) { /* a lane adds at most 3 a step: the 8 lanes' sum stays far below 2^31 */
            work += (uint64_t)(uint32_t)my_hsum(acc);
            acc = zero;
            steps = 0;
        }
    }
    work += (uint64_t)(uint32_t)my_hsum(acc);
    my_finish(W, R, p, off, fwd, A, n, B, m, todo, nt, &work);
    for (; j <= j1; j++) {
        int64_t kk = 2 * j + p - off, lo = R[j + p - 1], hi = R[j + p];
        W[j] = (int32_t)(fwd ? my_snake_fwd(A, n, B, m, lo < hi ? hi : lo + 1, kk, &work)
                             : my_snake_bwd(A, B, lo < hi ? lo : hi - 1, kk, &work));
    }
    return work;
}

/* The highest diagonal k of hi, hi - 2, .., >= lo (one parity) where the
 * backward path has met the forward one (B[k] <= F[k]); 0 when none. */
__attribute__((target("avx2"))) static int my_meet_avx2(const my_par_t *pp, int64_t lo, int64_t hi, int64_t *kout)
{
    if (hi < lo)
        return 0;
    const int p = (int)((hi + pp->off) & 1);
    const int32_t *F = pp->f[p], *Bv = pp->b[p];
    int64_t j = (hi + pp->off) >> 1;
    const int64_t jl = (lo + pp->off - p + 1) >> 1;
    for (; j - 7 >= jl; j -= 8) {
        __m256i f = _mm256_loadu_si256((const __m256i *)(F + j - 7));
        __m256i b = _mm256_loadu_si256((const __m256i *)(Bv + j - 7));
        unsigned met = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(b, f))) ^ 0xffu;
        if (met) {
            *kout = 2 * (j - 7 + (31 - __builtin_clz(met))) + p - pp->off;
            return 1;
        }
    }
    for (; j >= jl; j--)
        if (Bv[j] <= F[j]) {
            *kout = 2 * j + p - pp->off;
            return 1;
        }
    return 0;
}

/* my_bisect, the rounds 8 diagonals at a time. */
__attribute__((target("avx2"))) static int my_bisect_avx2(ndd_myers_ws_t *ws, const uint8_t *A, size_t N,
                                                          const uint8_t *B, size_t M, size_t dlim, int top,
                                                          int64_t cstop, size_t *sx, size_t *sy, size_t *D)
{
    uint64_t work = 0;
    const int64_t n = (int64_t)N, m = (int64_t)M, delta = n - m;
    const int odd = (delta & 1) != 0;
    const int64_t cmax = my_cmax(N, M, dlim);
    my_par_t pp;
    int rc = my_reserve_par(ws, cmax, delta, &pp);
    if (rc)
        return rc;
    const int64_t off = pp.off, dmin = -m, dmax = n;
    int64_t fmin = 0, fmax = 0, bmin = delta, bmax = delta, k;
    *my_at(pp.f, off, 0) = 0;
    *my_at(pp.b, off, delta) = (int32_t)n;
    for (int64_t c = 1; c <= cmax; c++) {
        if (top && work > NDD_MYERS_MAX_WORK)
            return NDD_ERR_LIMIT;
        if (c == cstop)
            return MY_DEFER;
        if (fmin > dmin)
            *my_at(pp.f, off, --fmin - 1) = -1;
        else
            ++fmin;
        if (fmax < dmax)
            *my_at(pp.f, off, ++fmax + 1) = -1;
        else
            --fmax;
        work += (uint64_t)(fmax - fmin + 2);
        work += my_round_avx2(pp.f, off, 1, A, n, B, m, fmin, fmax);
        if (odd) {
            int64_t lo = fmin > bmin ? fmin : bmin, hi = fmax < bmax ? fmax : bmax;
            if (((hi - fmax) & 1) != 0)
                hi--;
            if (my_meet_avx2(&pp, lo, hi, &k)) {
                size_t dd = (size_t)(2 * c - 1);
                if (dd > dlim)
                    return NDD_ERR_LIMIT;
                int64_t x = *my_at(pp.f, off, k);
                *sx = (size_t)x;
                *sy = (size_t)(x - k);
                *D = dd;
                return NDD_OK;
            }
        }
        if (bmin > dmin)
            *my_at(pp.b, off, --bmin - 1) = INT32_MAX;
        else
            ++bmin;
        if (bmax < dmax)
            *my_at(pp.b, off, ++bmax + 1) = INT32_MAX;
        else
            --bmax;
        work += (uint64_t)(bmax - bmin + 2);
        work += my_round_avx2(pp.b, off, 0, A, n, B, m, bmin, bmax);
        if (!odd) {
            int64_t lo = fmin > bmin ? fmin : bmin, hi = fmax < bmax ? fmax : bmax;
            if (((hi - bmax) & 1) != 0)
                hi--;
            if (my_meet_avx2(&pp, lo, hi, &k)) {
                size_t dd = (size_t)(2 * c);
                if (dd > dlim)
                    return NDD_ERR_LIMIT;
                int64_t x = *my_at(pp.b, off, k);
                *sx = (size_t)x;
                *sy = (size_t)(x - k);
                *D = dd;
                return NDD_OK;
            }
        }
    }
    return top ? NDD_ERR_LIMIT : NDD_ERR_INTERNAL;
}

/* ---- the same split from bit-parallel LCS rows (large D) ----
 * Where the first bytes differ and so do the last, the forward path of round
 * c on diagonal k is the furthest point of k whose prefix distance (x + y -
 * 2 LCS of the prefixes) is at most c - Myers' lemma: the distance never
 * falls along a diagonal, and the snake follows the diagonal while it stays -
 * and the backward path the nearest point whose suffix distance is at most
 * c. So the round at which the two meet follows from D alone (odd delta:
 * forward round c = (D + 1) / 2 against backward round c - 1; even: both
 * c = D / 2), and the split is the highest diagonal of that round's range
 * where they meet: my_bisect_avx2's point, found in O(N M / 64) instead of
 * O(D^2). The lemma holds on every diagonal except those a path that
 * reached a far edge pushed out of the grid, and those never reach the
 * meeting round's range (my_rows_split). The LCS lengths of all prefixes
 * come from Hyyro's bit-vector recurrence over the rows of A (V = all ones;
 * V' = (V + (V & P)) | (V & ~P), P the positions of the row's byte in B;
 * LCS(x, y) = y - the ones of row x below y), every row kept; those of the
 * suffixes from the same over both sequences reversed. A half takes one
 * direction's rows from its parent (my_rec). test_myers checks the scripts
 * against the reference bisection and against the rounds on random,
 * periodic and reordered texts (docs/verify.md §3). */
#define MY_ROWS_MIN 32           /* N + M from which the rows may be used (64: 3 % more of Myers' time, 256: 25 %) */
#define MY_ROWS_MAX 32768        /* ... up to which (the rounds' work stays below NDD_MYERS_MAX_WORK) */
#define MY_ROWS_WORDS (1u << 22) /* words of one direction's rows at most (32 MiB) */
#define MY_ROWS_STACK (3u << 22) /* words of the rows kept for the halves at most */
/* A word of the rows costs about as much as MY_ROWS_COST diagonals of the
 * rounds (measured on ndd run's sketches: 0.125 and 0.25 alike, 0.5 and 1
 * slower; docs/BENCHMARKS.md, "twenty-seventh steps"). */
#define MY_ROWS_COST 0.25

/* Words a row: ceil(M / 64) and a spare one (read, masked away, at y = M),
 * to a multiple of 8. */
static inline size_t my_rows_stride(size_t M)
{
    return ((M + 63) / 64 + 1 + 7) & ~(size_t)7;
}

/* A band that holds every column: the rows of old, word 0 on. */
#define MY_BAND_ALL ((int64_t)1 << 60)

/* The first word of row x's window in a band of half-width g. */
static inline size_t my_band_w0(int64_t g, size_t x)
{
    return (int64_t)x > g ? (size_t)((int64_t)x - g) >> 6 : 0;
}

/* Words a row for a band of half-width g over M columns: the columns
 * x - g .. x + g lie in at most 2g / 64 + 2 words from the window's first
 * (word (x - g) / 64), to a multiple of 8; the whole row (my_rows_stride)
 * when that is no narrower. *gw: the widest half-width those words hold
 * (MY_BAND_ALL for a whole row). */
static size_t my_band_stride(int64_t g, size_t M, int64_t *gw)
{
    const size_t full = my_rows_stride(M);
    if (g >= (int64_t)(64 * full)) {
        *gw = MY_BAND_ALL;
        return full;
    }
    const size_t s = ((size_t)(2 * g) / 64 + 2 + 7) & ~(size_t)7;
    if (s >= full) {
        *gw = MY_BAND_ALL;
        return full;
    }
    *gw = (int64_t)((64 * (s - 2) + 63) / 2);
    return s;
}

/* The half-width that holds every path of D edits through N x M: a path
 * with E deletions and I insertions (E + I = D, E - I = N - M) stays on
 * the diagonals -I .. E. */
static inline int64_t my_band_need(size_t D, size_t N, size_t M)
{
    const size_t delta = N > M ? N - M : M - N;
    return (int64_t)((D + delta + 1) / 2);
}

static int my_rows_fit(size_t N, size_t M)
{
    return N + M >= MY_ROWS_MIN && N + M <= MY_ROWS_MAX && (N + 1) * my_rows_stride(M) <= MY_ROWS_WORDS;
}

/* Whether the rows cost less than the rounds for a split of known D, dirs of
 * the two directions' rows to be made (the others come from the parent). */
static int my_rows_pay(size_t N, size_t M, size_t d, int dirs)
{
    int64_t gw;
    const size_t s = my_band_stride(my_band_need(d, N, M), M, &gw);
    return (double)d * (double)d / 2 > MY_ROWS_COST * dirs * (double)(N + 1) * (double)s;
}

/* The round at which my_bisect_avx2 hands a top-level split (D unknown) to
 * the rows: its rounds so far (about c^2 diagonals both ways) cost a quarter
 * of what the rows do (a half or all of it: 3-6 % more of Myers' time on
 * ndd run's sketches; an eighth or a twentieth: the same). */
static int64_t my_rows_stop(size_t N, size_t M)
{
    int64_t gw;
    const size_t s = my_band_stride(my_band_need(N > M ? N - M : M - N, N, M), M, &gw);
    return (int64_t)sqrt(0.25 * 2.0 * (double)(N + 1) * (double)s * MY_ROWS_COST) + 1;
}

/* One row, a word at a time: w = (v + (v & p)) | (v & ~p), v the row
 * before from word sh on (1: its window moved a word), all ones past it, p
 * the match masks from bit pbit of p[0] on. */
__attribute__((always_inline)) static inline void my_row(const uint64_t *restrict v, size_t sh,
                                                         const uint64_t *restrict p, unsigned pbit,
                                                         uint64_t *restrict w, size_t W)
{
    unsigned char carry = 0;
    for (size_t q = 0; q < W; q++) {
        const uint64_t a = q + sh < W ? v[q + sh] : ~(uint64_t)0,
                       pq = pbit ? p[q] >> pbit | p[q + 1] << (64 - pbit) : p[q];
        unsigned long long t;
        carry = _addcarry_u64(carry, a, a & pq, &t);
        w[q] = t | (a & ~pq);
    }
}

/* The same 8 words at a time (AVX-512), the row in registers (NB blocks of
 * 8 words, s = 8 NB), rows 1 .. N written from w: each lane adds its words;
 * the carries between lanes come from the masks of the lanes that
 * overflowed (g) and of those an incoming carry passes through (all ones,
 * p): the lanes that receive one are ((g << 1 | carry in) + p) ^ p, and bit
 * 8 of that sum is the carry out. */
#define MY_A512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,popcnt")))
MY_A512 __attribute__((always_inline)) static inline void my_rows_512_nb(const uint8_t *A, size_t N, int rev,
                                                                          const uint64_t *pm, size_t spm,
                                                                          unsigned pbit, uint64_t *w, size_t s,
                                                                          int64_t band, uint64_t *base, const int NB,
                                                                          const int shifted)
{
    const __m512i ones = _mm512_set1_epi64(-1);
    const __m128i lo = _mm_cvtsi32_si128((int)pbit), hi = _mm_cvtsi32_si128(64 - (int)pbit); /* (64: none) */
    __m512i V[8];
    for (int b = 0; b < NB; b++)
        V[b] = _mm512_loadu_si512(w - s + 8 * b);
    uint64_t lcs0 = base[0];
    size_t w0 = 0;
    for (size_t x = 1; x <= N; x++, w += s) {
        if (my_band_w0(band, x) != w0) { /* the window moves a word: its first word's LCS into the base */
            w0++;
            lcs0 += 64 - (uint64_t)_mm_popcnt_u64((uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(V[0])));
            for (int b = 0; b < NB; b++)
                V[b] = _mm512_alignr_epi64(b + 1 < NB ? V[b + 1] : ones, V[b], 1);
        }
        base[x] = lcs0;
        const uint64_t *p = pm + (size_t)(rev ? A[N - x] : A[x - 1]) * spm + w0;
        __mmask16 cin = 0; /* the carries in mask registers (no trip through the integer ones) */
        for (int b = 0; b < NB; b++) {
            /* (masks at a bit offset: a half's part of its parent's) */
            const __m512i a = V[b], pq = shifted ? _mm512_or_si512(_mm512_srl_epi64(_mm512_loadu_si512(p + 8 * b), lo),
                                                                   _mm512_sll_epi64(_mm512_loadu_si512(p + 8 * b + 1), hi))
                                                 : _mm512_loadu_si512(p + 8 * b);
            __m512i sm = _mm512_add_epi64(a, _mm512_and_si512(a, pq));
            const __mmask16 g = _mm512_cmplt_epu64_mask(sm, a), pr = _mm512_cmpeq_epi64_mask(sm, ones);
            const __mmask16 t = _kadd_mask16(b ? _kor_mask16(_kshiftli_mask16(g, 1), cin) : _kshiftli_mask16(g, 1), pr);
            if (b + 1 < NB)
                cin = _kshiftri_mask16(t, 8);
            sm = _mm512_mask_sub_epi64(sm, (__mmask8)_kxor_mask16(t, pr), sm, ones);
            V[b] = _mm512_ternarylogic_epi64(sm, a, pq, 0xF4); /* sm | (a & ~pq) */
            _mm512_storeu_si512(w + 8 * b, V[b]);
        }
    }
}

/* The same for longer rows, each read back from memory. */
MY_A512 static void my_rows_512_long(const uint8_t *A, size_t N, int rev, const uint64_t *pm, size_t spm,
                                     unsigned pbit, uint64_t *w, size_t s, int64_t band, uint64_t *base)
{
    const __m512i ones = _mm512_set1_epi64(-1);
    const __m128i lo = _mm_cvtsi32_si128((int)pbit), hi = _mm_cvtsi32_si128(64 - (int)pbit);
    uint64_t lcs0 = base[0];
    size_t w0 = 0;
    for (size_t x = 1; x <= N; x++, w += s) {
        const uint64_t *v = w - s;
        size_t sh = 0;
        if (my_band_w0(band, x) != w0) {
            w0++;
            lcs0 += 64 - (uint64_t)_mm_popcnt_u64(v[0]);
            sh = 1;
        }
        base[x] = lcs0;
        const uint64_t *p = pm + (size_t)(rev ? A[N - x] : A[x - 1]) * spm + w0;
        __mmask16 cin = 0;
        for (size_t q = 0; q < s; q += 8) {
            /* (moved a word: the last lane reads this row's first word, replaced by ones) */
            __m512i a = _mm512_loadu_si512(v + q + sh);
            if (sh && q + 8 == s)
                a = _mm512_mask_blend_epi64((__mmask8)0x80, a, ones);
            const __m512i pq = _mm512_or_si512(_mm512_srl_epi64(_mm512_loadu_si512(p + q), lo),
                                               _mm512_sll_epi64(_mm512_loadu_si512(p + q + 1), hi));
            __m512i sm = _mm512_add_epi64(a, _mm512_and_si512(a, pq));
            const __mmask16 g = _mm512_cmplt_epu64_mask(sm, a), pr = _mm512_cmpeq_epi64_mask(sm, ones);
            const __mmask16 t = _kadd_mask16(_kor_mask16(_kshiftli_mask16(g, 1), cin), pr);
            cin = _kshiftri_mask16(t, 8);
            sm = _mm512_mask_sub_epi64(sm, (__mmask8)_kxor_mask16(t, pr), sm, ones);
            _mm512_storeu_si512(w + q, _mm512_ternarylogic_epi64(sm, a, pq, 0xF4));
        }
    }
}

MY_A512 static void my_rows_512(const uint8_t *A, size_t N, int rev, const uint64_t *pm, size_t spm, unsigned pbit,
                                uint64_t *w, size_t s, int64_t g, uint64_t *base)
{
#define MY_NB(nb)                                                                                                      \
    (pbit ? my_rows_512_nb(A, N, rev, pm, spm, pbit, w, s, g, base, nb, 1)                                             \
          : my_rows_512_nb(A, N, rev, pm, spm, pbit, w, s, g, base, nb, 0))
    switch (s / 8) {
    case 1: MY_NB(1); return;
    case 2: MY_NB(2); return;
    case 3: MY_NB(3); return;
    case 4: MY_NB(4); return;
    case 5: MY_NB(5); return;
    case 6: MY_NB(6); return;
    case 7: MY_NB(7); return;
    case 8: MY_NB(8); return;
    default: my_rows_512_long(A, N, rev, pm, spm, pbit, w, s, g, base); return;
    }
#undef MY_NB
}

static int my_a512; /* my_rows_512 runs here (set by my_bisect_rows) */

/* Sets (on = 1) or clears the match masks of B[0..M) (reversed when rev),
 * spm words a byte. */
static void my_pm_mark(uint64_t *pm, size_t spm, const uint8_t *B, size_t M, int rev, int on)
{
    if (on)
        for (size_t y = 0; y < M; y++)
            pm[(size_t)(rev ? B[M - 1 - y] : B[y]) * spm + (y >> 6)] |= (uint64_t)1 << (y & 63);
    else
        for (size_t y = 0; y < M; y++) /* the words set */
            pm[(size_t)(rev ? B[M - 1 - y] : B[y]) * spm + (y >> 6)] = 0;
}

/* The match masks of B[0..M) in direction rev, from those kept when they
 * hold these bytes (a half's B is a part of its parent's), else made for
 * them: *p the masks of B's (or reversed B's) first column's word, from bit
 * *pbit on, *spm words a byte. Room for rows of up to my_rows_stride(M)
 * words read from any window. */
static int my_pm_get(ndd_myers_ws_t *ws, const uint8_t *B, size_t M, int rev, const uint64_t **p, size_t *spm,
                     unsigned *pbit)
{
    const uint8_t *kb = ws->pmb[rev];
    if (!kb || B < kb || B + M > kb + ws->pmm[rev]) {
        if (kb) /* (B of a later top-level split: the others' masks cleared) */
            my_pm_mark(ws->pm[rev], ws->pms[rev], kb, ws->pmm[rev], rev, 0);
        ws->pmb[rev] = NULL;
        const size_t st = (M >> 6) + 3 + my_rows_stride(M);
        if (256 * st > ws->pmcap[rev]) {
            free(ws->pm[rev]);
            if (!(ws->pm[rev] = calloc(256 * st, sizeof *ws->pm[rev]))) {
                ws->pmcap[rev] = 0;
                return NDD_ERR_NOMEM;
            }
            ws->pmcap[rev] = 256 * st;
        }
        my_pm_mark(ws->pm[rev], st, B, M, rev, 1);
        ws->pmb[rev] = kb = B;
        ws->pmm[rev] = M;
        ws->pms[rev] = st;
    }
    /* B's first column in the kept masks: forward, B - kb; reversed, the
     * bytes kept past B's end */
    const size_t col = rev ? (size_t)((kb + ws->pmm[rev]) - (B + M)) : (size_t)(B - kb);
    *p = ws->pm[rev] + (col >> 6);
    *spm = ws->pms[rev];
    *pbit = (unsigned)(col & 63);
    return NDD_OK;
}

/* Clears the kept match masks (before B goes away). */
static void my_pm_drop(ndd_myers_ws_t *ws)
{
    for (int d = 0; d < 2; d++)
        if (ws->pmb[d]) {
            my_pm_mark(ws->pm[d], ws->pms[d], ws->pmb[d], ws->pmm[d], d, 0);
            ws->pmb[d] = NULL;
        }
}

/* Rows 0 .. N of A (reversed when rev) against B (reversed when rev), s
 * words a row in a band of half-width g (my_rows_split), with the LCS
 * before each row's window in base[0 .. N]; B's match masks at pm, spm
 * words a byte, from bit pbit on. */
static void my_rows_make(const uint8_t *A, size_t N, int rev, const uint64_t *pm, size_t spm, unsigned pbit,
                         uint64_t *w, size_t s, int64_t g, uint64_t *base)
{
    for (size_t q = 0; q < s; q++) /* row 0: no LCS anywhere (the bits past M are never counted) */
        w[q] = ~(uint64_t)0;
    base[0] = 0;
    if (my_a512)
        my_rows_512(A, N, rev, pm, spm, pbit, w + s, s, g, base);
    else
        for (size_t x = 1, w0 = 0; x <= N; x++, w += s) {
            size_t sh = my_band_w0(g, x) - w0;
            base[x] = base[x - 1] + (sh ? 64 - (uint64_t)__builtin_popcountll(w[0]) : 0);
            w0 += sh;
            my_row(w, sh, pm + (size_t)(rev ? A[N - x] : A[x - 1]) * spm + w0, pbit, w + s, s);
        }
}

typedef struct {
    const uint64_t *w;    /* row x at w + x s */
    size_t s;             /* words a row */
    int64_t g;            /* the band's half-width */
    const uint64_t *base; /* the LCS before each row's window */
} my_rows_t;

#define MY_FAR ((int64_t)1 << 60) /* the distance of a point outside the band */

/* The distance of the prefixes (x, y), x + y - 2 LCS, the LCS being the
 * base plus the window's columns below y less its ones (the bits past M,
 * carries of the padding words, lie above y); MY_FAR when y is outside
 * row x's window. Exact when it is at most the band's half-width, never
 * below the exact one (my_rows_split). The queries below are compiled for
 * POPCNT, so that this is inlined into them. */
#define MY_POP __attribute__((target("popcnt")))
MY_POP static inline int64_t my_dist(const my_rows_t *r, size_t x, size_t y)
{
    const size_t c0 = 64 * my_band_w0(r->g, x);
    if (y < c0 || y - c0 >= 64 * r->s)
        return MY_FAR;
    const uint64_t *w = r->w + x * r->s;
    const size_t rel = y - c0;
    int64_t n = 0;
    size_t q = 0;
    for (; q < (rel >> 6); q++)
        n += __builtin_popcountll(w[q]);
    if (rel & 63)
        n += __builtin_popcountll(w[q] & (((uint64_t)1 << (rel & 63)) - 1));
    return (int64_t)x + (int64_t)y - 2 * ((int64_t)r->base[x] + (int64_t)rel - n);
}

/* prefix distance of (x, y) */
MY_POP static inline int64_t my_dist_f(const my_rows_t *f, int64_t x, int64_t y)
{
    return my_dist(f, (size_t)x, (size_t)y);
}

/* suffix distance of (x, y) in n x m */
MY_POP static inline int64_t my_dist_b(const my_rows_t *b, int64_t n, int64_t m, int64_t x, int64_t y)
{
    return my_dist(b, (size_t)(n - x), (size_t)(m - y));
}

/* The furthest x of diagonal k with prefix distance <= c (|k| <= c), the
 * search starting from the guess g (galloping out from it). */
MY_POP static int64_t my_far(const my_rows_t *f, int64_t n, int64_t m, int64_t k, int64_t c, int64_t g)
{
    int64_t lo = k > 0 ? k : 0, hi = n < m + k ? n : m + k;
    if (g > lo && g < hi) { /* narrow [lo, hi] around g: lo stays a point <= c, hi + 1 one > c */
        if (my_dist_f(f, g, g - k) <= c) {
            int64_t st = 1;
            lo = g;
            while (lo + st <= hi && my_dist_f(f, lo + st, lo + st - k) <= c) {
                lo += st;
                st *= 2;
            }
            if (lo + st <= hi)
                hi = lo + st - 1;
        } else {
            int64_t st = 1;
            hi = g - 1;
            while (hi - st >= lo && my_dist_f(f, hi - st + 1, hi - st + 1 - k) > c) {
                hi -= st;
                st *= 2;
            }
            if (hi - st + 1 > lo)
                lo = hi - st + 1;
        }
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (my_dist_f(f, mid, mid - k) <= c)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The nearest x of diagonal k with suffix distance <= c (|k - delta| <= c),
 * the search starting from the guess g. */
MY_POP static int64_t my_near(const my_rows_t *b, int64_t n, int64_t m, int64_t k, int64_t c, int64_t g)
{
    int64_t lo = k > 0 ? k : 0, hi = n < m + k ? n : m + k;
    if (g > lo && g < hi) { /* hi stays a point <= c, lo - 1 one > c */
        if (my_dist_b(b, n, m, g, g - k) <= c) {
            int64_t st = 1;
            hi = g;
            while (hi - st >= lo && my_dist_b(b, n, m, hi - st, hi - st - k) <= c) {
                hi -= st;
                st *= 2;
            }
            if (hi - st >= lo)
                lo = hi - st + 1;
        } else {
            int64_t st = 1;
            lo = g + 1;
            while (lo + st <= hi && my_dist_b(b, n, m, lo + st - 1, lo + st - 1 - k) > c) {
                lo += st;
                st *= 2;
            }
            if (lo + st - 1 < hi)
                hi = lo + st - 1;
        }
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (my_dist_b(b, n, m, mid, mid - k) <= c)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Rows of one direction on the workspace's stack, s words a row in a band
 * of half-width g: *v their view. MY_DEFER when the stack is full. */
static int my_rows_push(ndd_myers_ws_t *ws, const uint8_t *A, size_t N, const uint8_t *B, size_t M, int rev,
                        size_t s, int64_t g, my_view_t *v)
{
    const size_t need = (N + 1) * (s + 1);
    if (ws->rtop + need > MY_ROWS_STACK)
        return MY_DEFER; /* (the rounds then) */
    if (ws->rtop + need > ws->rwcap) {
        size_t cap = 2 * ws->rwcap > ws->rtop + need ? 2 * ws->rwcap : ws->rtop + need;
        cap = cap < MY_ROWS_STACK ? cap : MY_ROWS_STACK;
        uint64_t *p = realloc(ws->rw, cap * sizeof *p);
        if (!p)
            return NDD_ERR_NOMEM;
        ws->rw = p;
        ws->rwcap = cap;
    }
    const uint64_t *pm;
    size_t spm;
    unsigned pbit;
    int rc = my_pm_get(ws, B, M, rev, &pm, &spm, &pbit);
    if (rc)
        return rc;
    *v = (my_view_t){ws->rtop, s, ws->rtop + (N + 1) * s, g};
    my_band_n += g != MY_BAND_ALL;
    ws->rtop += need;
    my_rows_make(A, N, rev, pm, spm, pbit, ws->rw + v->off, s, g, ws->rw + v->boff);
    return NDD_OK;
}

/* my_bisect_avx2's split of A x B (first bytes differ, last bytes differ)
 * from the rows; NDD_ERR_LIMIT when D > dlim. dh: D when known (a half),
 * else SIZE_MAX and dlb a bound below it.
 *
 * The rows are made in a band: row x holds the words of the columns x - g
 * .. x + g (and more, to the window's end), each word computed from the row
 * before as if the column before the window kept its LCS and the columns
 * past the window's end of the row before had none. Those are bounds below
 * the LCS and the recurrence keeps them so: the distance read from a window
 * is never below the true one, and it is the true one where a path of that
 * many edits exists, as such a path never leaves the diagonals -g .. g. So
 * every query "distance <= c" with c <= g has the true answer, and D is
 * exact once the band holds a path of D edits (my_band_need): with D
 * unknown the rows are made for a guess and again, wider, when the D they
 * give needs more. A half's band holds its own paths: its D and the
 * offset of its corner are at most its parent's c. */
MY_POP static int my_rows_split(ndd_myers_ws_t *ws, const uint8_t *A, size_t N, const uint8_t *B, size_t M,
                                size_t dlim, size_t dh, size_t dlb, my_view_t *fv, my_view_t *bv, size_t *sx,
                                size_t *sy, size_t *D)
{
    const int64_t n = (int64_t)N, m = (int64_t)M, delta = n - m;
    int64_t d, gb;
    size_t s;
    int rc;
    /* a half's rows from its parent: the left half's forward ones (the
     * same start), the right half's backward ones (the same end) */
    if (fv->off != SIZE_MAX) {
        const my_rows_t f = {ws->rw + fv->off, fv->s, fv->g, ws->rw + fv->boff};
        d = my_dist(&f, N, M);
    } else {
        size_t want = dh != SIZE_MAX ? dh : dlb;
        for (;;) {
            s = my_band_stride(my_band_need(want < dlim ? want : dlim, N, M), M, &gb);
            const size_t top = ws->rtop;
            if ((rc = my_rows_push(ws, A, N, B, M, 0, s, gb, fv)))
                return rc;
            const my_rows_t f = {ws->rw + fv->off, fv->s, fv->g, ws->rw + fv->boff};
            d = my_dist(&f, N, M);
            /* exact when the band holds a path of d edits; above dlim
             * for sure when it holds one of dlim edits */
            if (gb >= my_band_need((size_t)d < dlim ? (size_t)d : dlim, N, M))
                break;
            want = (size_t)d;
            my_band_redo++;
            ws->rtop = top;
            *fv = MY_NO_VIEW;
        }
    }
    if ((size_t)d > dlim)
        return NDD_ERR_LIMIT;
    const int odd = (delta & 1) != 0;
    const int64_t c = (d + 1) / 2, cb = odd ? c - 1 : c; /* the rounds of each direction */
    if (bv->off == SIZE_MAX) {
        s = my_band_stride(my_band_need((size_t)d, N, M), M, &gb);
        if ((rc = my_rows_push(ws, A, N, B, M, 1, s, gb, bv)))
            return rc;
    }
    const my_rows_t f = {ws->rw + fv->off, fv->s, fv->g, ws->rw + fv->boff};
    const my_rows_t b = {ws->rw + bv->off, bv->s, bv->g, ws->rw + bv->boff};
    /* the meeting round's diagonal ranges, clipped to [-M, N] as the rounds clip them */
    int64_t fmin = 0, fmax = 0, bmin = delta, bmax = delta;
    for (int64_t r = 1; r <= c; r++) {
        fmin = fmin > -m ? fmin - 1 : fmin + 1;
        fmax = fmax < n ? fmax + 1 : fmax - 1;
    }
    for (int64_t r = 1; r <= cb; r++) {
        bmin = bmin > -m ? bmin - 1 : bmin + 1;
        bmax = bmax < n ? bmax + 1 : bmax - 1;
    }
    /* (both ranges keep the parity of c: hi and lo are of it) */
    const int64_t lo = fmin > bmin ? fmin : bmin, hi = fmax < bmax ? fmax : bmax;
    /* A path that reached a far edge (forward: x = N or y = M; backward:
     * x = 0 or y = 0) leaves the grid in the next round, on the neighbouring
     * diagonal, and from there one more diagonal each way a round, and there
     * the lemma does not hold. It never reaches the meeting round's range:
     * forward from (N, y) of distance d <= c - 1, the diagonals out of the
     * grid at round c are N - y + 1 +- (c - 1 - d); as D <= d + (M - y), the
     * lowest is >= delta + cb + 2, above the backward range; from (x, M) the
     * highest is <= delta - cb - 2, below it; backward from (0, y) of
     * distance d (D <= y + d) the highest is <= -c - 2, from (x, 0) the
     * lowest >= c + 2, outside the forward range. */
    int64_t g = -1; /* the last diagonal's point: the next one's lies near it */
    for (int64_t k = hi; k >= lo; k -= 2) {
        if (odd) {
            const int64_t x = my_far(&f, n, m, k, c, g - 1);
            g = x;
            if (my_dist_b(&b, n, m, x, x - k) <= cb) {
                *sx = (size_t)x;
                *sy = (size_t)(x - k);
                *D = (size_t)d;
                return NDD_OK;
            }
        } else {
            const int64_t x = my_near(&b, n, m, k, cb, g - 1);
            g = x;
            if (my_dist_f(&f, x, x - k) <= c) {
                *sx = (size_t)x;
                *sy = (size_t)(x - k);
                *D = (size_t)d;
                return NDD_OK;
            }
        }
    }
    return NDD_ERR_INTERNAL;
}

static int my_bisect_rows(ndd_myers_ws_t *ws, const uint8_t *A, size_t N, const uint8_t *B, size_t M, size_t dlim,
                          size_t dh, size_t dlb, my_view_t *fv, my_view_t *bv, size_t *sx, size_t *sy, size_t *D)
{
    static int cpu512 = -1; /* the CPU's answer, asked once */
    if (cpu512 < 0)
        cpu512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    my_a512 = my_isa >= 3 && cpu512;
    int rc = my_rows_split(ws, A, N, B, M, dlim, dh, dlb, fv, bv, sx, sy, D);
    my_rows_n += rc == NDD_OK;
    return rc;
}

/* ---- small halves: my_bisect with its snakes from tables ----
 * The recursion's leaves are many and small (on the bench-run corpus 3.3 M
 * bisections of N + M below 16 bytes and 0.6 M below 32 in one run, most of
 * the plain bisection's time): there the byte compare that starts each snake
 * is an unpredictable branch. For N, M <= MY_SMALL the common runs are made
 * first, N x M steps without branches on the data: rf[x][y], the run of equal
 * bytes from (x, y) on (the forward snake: A[x] == B[y] ? 1 + the common
 * prefix after it : 0), and rb[x][y], the run that ends before (x, y) (the
 * backward snake); then the rounds of my_bisect, the same paths and the same
 * split, read each snake's length from them. */
#define MY_SMALL 31 /* (a row of rf or rb, M + 1 entries, in one vector) */

__attribute__((target("avx2"))) static int my_bisect_small(const uint8_t *A, size_t N, const uint8_t *B, size_t M,
                                                          size_t dlim, int top, size_t *sx, size_t *sy, size_t *D)
{
    /* one vector a row, kept in a register for the next (read back from
     * memory it would wait on the store: 45 % of this function) */
    uint8_t rf[MY_SMALL + 1][32], rb[MY_SMALL + 1][32], bf[32] = {0};
    int32_t v1[2 * MY_SMALL + 8], v2[2 * MY_SMALL + 8];
    memcpy(bf, B, M); /* (B may end before 32 bytes) */
    const __m256i iota = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                          21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31),
                  vm = _mm256_set1_epi8((char)M), one = _mm256_set1_epi8(1);
    const __m256i vbf = _mm256_loadu_si256((const __m256i *)(const void *)bf), /* B[j] at j */
        vbs = _mm256_alignr_epi8(vbf, _mm256_permute2x128_si256(vbf, vbf, 0x08), 15), /* B[j - 1] at j */
        vkf = _mm256_cmpgt_epi8(vm, iota),                                           /* columns 0 .. M - 1 */
        vks = _mm256_andnot_si256(_mm256_cmpeq_epi8(iota, _mm256_setzero_si256()),
                                  _mm256_cmpgt_epi8(_mm256_add_epi8(vm, one), iota)); /* columns 1 .. M */
    __m256i row = _mm256_setzero_si256();
    _mm256_storeu_si256((__m256i *)(void *)rf[N], row);
    for (size_t i = N; i-- > 0;) { /* rf[i][j] = A[i] == B[j] ? rf[i + 1][j + 1] + 1 : 0 */
        __m256i up = _mm256_alignr_epi8(_mm256_permute2x128_si256(row, row, 0x81), row, 1); /* lane j: j + 1 */
        __m256i eq = _mm256_and_si256(_mm256_cmpeq_epi8(vbf, _mm256_set1_epi8((char)A[i])), vkf);
        row = _mm256_and_si256(eq, _mm256_add_epi8(up, one));
        _mm256_storeu_si256((__m256i *)(void *)rf[i], row);
    }
    row = _mm256_setzero_si256();
    _mm256_storeu_si256((__m256i *)(void *)rb[0], row);
    for (size_t i = 1; i <= N; i++) { /* rb[i][j] = A[i - 1] == B[j - 1] ? rb[i - 1][j - 1] + 1 : 0 */
        __m256i up = _mm256_alignr_epi8(row, _mm256_permute2x128_si256(row, row, 0x08), 15); /* lane j: j - 1 */
        __m256i eq = _mm256_and_si256(_mm256_cmpeq_epi8(vbs, _mm256_set1_epi8((char)A[i - 1])), vks);
        row = _mm256_and_si256(eq, _mm256_add_epi8(up, one));
        _mm256_storeu_si256((__m256i *)(void *)rb[i], row);
    }
    /* the rounds of my_bisect, without the work cap (these sizes cannot reach it) */
    const my_snakes_t q = {A, B, (const uint8_t(*)[32])rf, (const uint8_t(*)[32])rb, (int64_t)N, (int64_t)M};
    return my_rounds(&q, 1, v1, v2, my_cmax(N, M, dlim), dlim, top, sx, sy, D);
}

#else
unsigned ndd_myers_isa(unsigned max)
{
    (void)max;
    return 0;
}

int ndd_myers_rows(int on)
{
    (void)on;
    return 0;
}

uint64_t ndd_myers_rows_count(void)
{
    return 0;
}

uint64_t ndd_myers_band_count(uint64_t *redone)
{
    *redone = 0;
    return 0;
}
#endif

/* Emits the script of A[a0..a1) x B[b0..b1), whose SES size is <= dlim.
 * top = 1: exceeding dlim is a reported limit, else it is a bug. */
static int my_rec(ndd_myers_ws_t *ws, const uint8_t *A, size_t a0, size_t a1, const uint8_t *B,
                  size_t b0, size_t b1, size_t dlim, int top, size_t dh, my_view_t fv, my_view_t bv)
{
    int rc;
    size_t lim = a1 - a0 < b1 - b0 ? a1 - a0 : b1 - b0;
    size_t p = ndd_verify_prefix(A + a0, B + b0, lim);
    if ((rc = my_emit(ws, NDD_EDIT_EQ, a0, b0, p)))
        return rc;
    a0 += p;
    b0 += p;
    lim -= p;
    size_t s = ndd_verify_suffix(A + a1, B + b1, lim);
    a1 -= s;
    b1 -= s;
    /* The parent's rows hold the distances from its start and to its end; a
     * left half starts where its trimmed parent does (first bytes differ:
     * p = 0), a right half ends there (s = 0): a guard, not a case. */
    if (p)
        fv = MY_NO_VIEW;
    if (s)
        bv = MY_NO_VIEW;
    const size_t rtop = ws->rtop; /* the rows this call keeps for its halves go at the end */
    if (a0 == a1 || b0 == b1) {
        if ((a1 - a0) + (b1 - b0) > dlim)
            return top ? NDD_ERR_LIMIT : NDD_ERR_INTERNAL;
        if (top)
            ws->topd = (a1 - a0) + (b1 - b0);
        if ((rc = my_emit(ws, NDD_EDIT_DEL, a0, b0, a1 - a0)) || (rc = my_emit(ws, NDD_EDIT_INS, a1, b0, b1 - b0)))
            return rc;
    } else {
        size_t x, y, D;
        const size_t n = a1 - a0, m = b1 - b0;
        const size_t adelta = n > m ? n - m : m - n; /* D >= adelta: the rows' first band */
        (void)dh; /* (the rows need x86-64) */
        (void)adelta;
        rc = MY_DEFER;
#ifdef MY_AVX2
        const int wide = my_isa >= 2 && __builtin_cpu_supports("avx2");
        int64_t cstop = 0;
        if (wide && my_rows_on && my_rows_fit(n, m) && __builtin_cpu_supports("popcnt")) {
            if (top && my_rows_on == 1) { /* D unknown: the rounds first, while they cost less */
                if (n + m >= 64)
                    cstop = my_rows_stop(n, m);
            } else if (my_rows_on == 2 || my_rows_pay(n, m, dh, (fv.off == SIZE_MAX) + (bv.off == SIZE_MAX)))
                rc = my_bisect_rows(ws, A + a0, n, B + b0, m, dlim, top ? SIZE_MAX : dh, adelta, &fv, &bv, &x, &y,
                                    &D);
        }
        if (rc == MY_DEFER && wide && n + m >= 64) {
            rc = my_bisect_avx2(ws, A + a0, n, B + b0, m, dlim, top, cstop, &x, &y, &D);
            if (rc == MY_DEFER) /* D above 2 (cstop - 1): the rows cost less */
                rc = my_bisect_rows(ws, A + a0, n, B + b0, m, dlim, top ? SIZE_MAX : dh,
                                    (size_t)(2 * cstop - 1) > adelta ? (size_t)(2 * cstop - 1) : adelta, &fv, &bv,
                                    &x, &y, &D);
        }
        if (rc == MY_DEFER && wide && n <= MY_SMALL && m <= MY_SMALL)
            rc = my_bisect_small(A + a0, n, B + b0, m, dlim, top, &x, &y, &D);
#endif
        if (rc == MY_DEFER)
            rc = my_bisect(ws, A + a0, n, B + b0, m, dlim, top, &x, &y, &D);
        if (rc == NDD_ERR_LIMIT && !top)
            return NDD_ERR_INTERNAL;
        if (rc)
            return rc;
        if (top)
            ws->topd = D;
        if ((x == 0 && y == 0) || (x == a1 - a0 && y == b1 - b0))
            return NDD_ERR_INTERNAL; /* no progress: would recurse forever */
        /* the halves' D: c and c - 1 (D = 2c - 1), or c and c (D = 2c) */
        rc = my_rec(ws, A, a0, a0 + x, B, b0, b0 + y, D, 0, (D + 1) / 2, fv, MY_NO_VIEW);
        if (!rc)
            rc = my_rec(ws, A, a0 + x, a1, B, b0 + y, b1, D, 0, D / 2, MY_NO_VIEW, bv);
        ws->rtop = rtop;
        if (rc)
            return rc;
    }
    return my_emit(ws, NDD_EDIT_EQ, a1, b1, s);
}

int ndd_myers_diff(ndd_myers_ws_t *ws, const void *a, size_t na, const void *b, size_t nb,
                   size_t max_d, ndd_myers_out_t *out)
{
    if (!ws || !out || (!a && na) || (!b && nb))
        return NDD_ERR_INVAL;
    if (na > NDD_MYERS_MAX_LEN || nb > NDD_MYERS_MAX_LEN)
        return NDD_ERR_LIMIT;
    static const uint8_t empty[1] = {0};
    const uint8_t *A = na ? a : empty, *B = nb ? b : empty;
    memset(out, 0, sizeof *out);
    ws->n = 0;
    ws->topd = 0;
    ws->rtop = 0;
    size_t lim = na < nb ? na : nb;
    size_t p = ndd_verify_prefix(A, B, lim);
    size_t s = ndd_verify_suffix(A + na, B + nb, lim - p);
    /* D >= |na - nb|: no need to run when that already exceeds the limit */
    int rc = (na > nb ? na - nb : nb - na) > max_d
                 ? NDD_ERR_LIMIT
                 : my_rec(ws, A, 0, na, B, 0, nb, max_d, 1, SIZE_MAX, MY_NO_VIEW, MY_NO_VIEW);
#ifdef MY_AVX2
    my_pm_drop(ws); /* (B's match masks zero for the next call) */
#endif
    if (ws->rwcap > MY_ROWS_KEEP) { /* the rows of large inputs are not kept between calls */
        free(ws->rw);
        ws->rw = NULL;
        ws->rwcap = 0;
    }
    if (rc == NDD_ERR_LIMIT) {
        ws->n = 0;
        out->hit_limit = 1;
        out->lcs = p + s;
        out->d = 0;
        return NDD_OK;
    }
    if (rc) {
        ws->n = 0;
        return rc;
    }
    size_t eq = 0, ed = 0;
    for (size_t i = 0; i < ws->n; i++) {
        if (ws->script[i].op == NDD_EDIT_EQ)
            eq += ws->script[i].len;
        else
            ed += ws->script[i].len;
    }
    if (2 * eq + ed != na + nb || ed != ws->topd) {
        ws->n = 0;
        return NDD_ERR_INTERNAL;
    }
    out->d = ed;
    out->lcs = eq;
    return NDD_OK;
}
