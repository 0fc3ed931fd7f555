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
#include <string.h>

struct ndd_myers_ws {
    int32_t *v1, *v2; /* furthest x per diagonal (int32: sequences < 2^31 bytes) */
    size_t vcap;
    ndd_edit_t *script;
    size_t n, cap;
    size_t topd; /* D found by the top-level call */
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
    uint64_t work = 0; /* diagonals visited + bytes compared (top level: capped) */
    const int64_t n = (int64_t)N, m = (int64_t)M, delta = n - m;
    const int odd = (delta & 1) != 0;
    /* rounds c = 1 .. cmax: D <= 2c, so c <= ceil(D / 2) <= ceil((N + M) / 2) */
    int64_t cmax = (int64_t)((N + M + 1) / 2) + 1;
    if (dlim < N + M && (int64_t)((dlim + 1) / 2) + 1 < cmax)
        cmax = (int64_t)((dlim + 1) / 2) + 1;
    const int64_t off = cmax + 1;
    const size_t vlen = (size_t)(2 * cmax + 3);
    int rc = my_reserve_v(ws, vlen);
    if (rc)
        return rc;
    /* F[k] at fv[k + off], B[k] at bv[k - delta + off] */
    int32_t *fv = ws->v1 + off, *bv = ws->v2 + off - delta;
    const int64_t dmin = -m, dmax = n;
    int64_t fmin = 0, fmax = 0, bmin = delta, bmax = delta;
    fv[0] = 0;
    bv[delta] = (int32_t)n;

    for (int64_t c = 1; c <= cmax; c++) {
        if (top && work > NDD_MYERS_MAX_WORK)
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
            if (x < n && y < m && A[x] == B[y]) { /* most snakes are empty */
                size_t lim = (size_t)(n - x < m - y ? n - x : m - y) - 1;
                int64_t s = 1 + (int64_t)ndd_verify_prefix(A + x + 1, B + y + 1, lim);
                work += (uint64_t)s;
                x += s;
                y += s;
            }
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
            if (x > 0 && y > 0 && A[x - 1] == B[y - 1]) {
                size_t lim = (size_t)(x < y ? x : y) - 1;
                int64_t s = 1 + (int64_t)ndd_verify_suffix(A + x - 1, B + y - 1, lim);
                work += (uint64_t)s;
                x -= s;
                y -= s;
            }
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

/* Emits the script of A[a0..a1) x B[b0..b1), whose SES size is <= dlim.
 * top = 1: exceeding dlim is a reported limit, else it is a bug. */
static int my_rec(ndd_myers_ws_t *ws, const uint8_t *A, size_t a0, size_t a1, const uint8_t *B,
                  size_t b0, size_t b1, size_t dlim, int top)
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
    if (a0 == a1 || b0 == b1) {
        if ((a1 - a0) + (b1 - b0) > dlim)
            return top ? NDD_ERR_LIMIT : NDD_ERR_INTERNAL;
        if (top)
            ws->topd = (a1 - a0) + (b1 - b0);
        if ((rc = my_emit(ws, NDD_EDIT_DEL, a0, b0, a1 - a0)) || (rc = my_emit(ws, NDD_EDIT_INS, a1, b0, b1 - b0)))
            return rc;
    } else {
        size_t x, y, D;
        rc = my_bisect(ws, A + a0, a1 - a0, B + b0, b1 - b0, dlim, top, &x, &y, &D);
        if (rc == NDD_ERR_LIMIT && !top)
            return NDD_ERR_INTERNAL;
        if (rc)
            return rc;
        if (top)
            ws->topd = D;
        if ((x == 0 && y == 0) || (x == a1 - a0 && y == b1 - b0))
            return NDD_ERR_INTERNAL; /* no progress: would recurse forever */
        if ((rc = my_rec(ws, A, a0, a0 + x, B, b0, b0 + y, D, 0)) ||
            (rc = my_rec(ws, A, a0 + x, a1, B, b0 + y, b1, D, 0)))
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
    size_t lim = na < nb ? na : nb;
    size_t p = ndd_verify_prefix(A, B, lim);
    size_t s = ndd_verify_suffix(A + na, B + nb, lim - p);
    /* D >= |na - nb|: no need to run when that already exceeds the limit */
    int rc = (na > nb ? na - nb : nb - na) > max_d ? NDD_ERR_LIMIT : my_rec(ws, A, 0, na, B, 0, nb, max_d, 1);
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
