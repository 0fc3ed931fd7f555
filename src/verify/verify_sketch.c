/* verify_sketch.c - filtered sketches of paper 002 (section 3.3).
 *
 * Every window of S bytes of both documents gets a Rabin-Karp fingerprint
 * h = sum c_i * M^(S-1-i) mod 2^64 (M odd), computed by rolling. The windows
 * of the shorter document X are put into a chained hash table (buckets as in
 * the paper: |A| + |B| - 2S + 2, capped at 4x X's windows for very uneven
 * pairs); identical window contents share one representative entry, so a
 * chain never holds duplicates and a highly repetitive text costs O(1) per
 * window. The other document Y is streamed: a window of Y whose fingerprint
 * AND bytes match a representative marks that representative and keeps Y's
 * S bytes. Then X keeps the bytes of its windows whose representative was
 * marked. O(na + nb) time; memory ~21 bytes per window of X plus the sketches. */
#include "ndd_verify.h"

#include <stdlib.h>
#include <string.h>

#define SK_MULT 0x100000001b3ULL /* odd multiplier of the rolling polynomial */

typedef struct sk_out {
    char *bytes;
    size_t len, cap;
    ndd_sketch_run_t *runs;
    size_t nruns, runcap;
} sk_out_t;

struct ndd_sketch_ws {
    uint64_t *fp;   /* fingerprint of each window of X */
    uint32_t *rep;  /* representative window of each window of X */
    uint32_t *next; /* chain link of representatives (index + 1, 0 = end) */
    uint8_t *hit;   /* representative occurs in Y */
    size_t wcap;
    uint32_t *head; /* buckets: representative index + 1, 0 = empty */
    size_t bcap;
    sk_out_t out[2];
};

int ndd_sketch_ws_create(ndd_sketch_ws_t **ws)
{
    *ws = calloc(1, sizeof **ws);
    return *ws ? NDD_OK : NDD_ERR_NOMEM;
}

void ndd_sketch_ws_free(ndd_sketch_ws_t *ws)
{
    if (!ws)
        return;
    free(ws->fp);
    free(ws->rep);
    free(ws->next);
    free(ws->hit);
    free(ws->head);
    for (int i = 0; i < 2; i++) {
        free(ws->out[i].bytes);
        free(ws->out[i].runs);
    }
    free(ws);
}

void ndd_sketch_get(const ndd_sketch_ws_t *ws, int which, ndd_sketch_view_t *v)
{
    const sk_out_t *o = &ws->out[which ? 1 : 0];
    v->bytes = o->bytes;
    v->len = o->len;
    v->runs = o->runs;
    v->nruns = o->nruns;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return NDD_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return NDD_ERR_NOMEM;
    *p = q;
    *cap = c;
    return NDD_OK;
}

static int ws_reserve(ndd_sketch_ws_t *ws, size_t nwin, size_t nbuckets)
{
    if (nwin > ws->wcap) {
        size_t c = ws->wcap ? ws->wcap : 256;
        while (c < nwin)
            c *= 2;
        uint64_t *fp = realloc(ws->fp, c * sizeof *fp);
        if (!fp)
            return NDD_ERR_NOMEM;
        ws->fp = fp;
        uint32_t *rep = realloc(ws->rep, c * sizeof *rep);
        if (!rep)
            return NDD_ERR_NOMEM;
        ws->rep = rep;
        uint32_t *next = realloc(ws->next, c * sizeof *next);
        if (!next)
            return NDD_ERR_NOMEM;
        ws->next = next;
        uint8_t *hit = realloc(ws->hit, c);
        if (!hit)
            return NDD_ERR_NOMEM;
        ws->hit = hit;
        ws->wcap = c;
    }
    return grow((void **)&ws->head, &ws->bcap, nbuckets, sizeof *ws->head);
}

/* Bucket of a fingerprint: mix (the low bits of a polynomial hash mod 2^64
 * are weak) and map to [0, n) with a multiply-shift (no division). */
static inline size_t sk_bucket(uint64_t h, size_t n)
{
    h ^= h >> 31;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
    return (size_t)(((unsigned __int128)h * n) >> 64);
}

static inline int sk_same(const uint8_t *p, const uint8_t *q, size_t s)
{
    if (s == 16) {
        uint64_t a0, a1, b0, b1;
        memcpy(&a0, p, 8);
        memcpy(&a1, p + 8, 8);
        memcpy(&b0, q, 8);
        memcpy(&b1, q + 8, 8);
        return a0 == b0 && a1 == b1;
    }
    return memcmp(p, q, s) == 0;
}

static uint64_t sk_pow(size_t e)
{
    uint64_t r = 1, m = SK_MULT;
    while (e) {
        if (e & 1)
            r *= m;
        m *= m;
        e >>= 1;
    }
    return r;
}

/* Marks bytes [p, p+s) of doc as kept, extending the open run when they touch it. */
static inline int sk_keep(sk_out_t *o, const uint8_t *doc, size_t p, size_t s, size_t *cover_end)
{
    size_t from = p > *cover_end ? p : *cover_end;
    size_t to = p + s;
    if (to <= from)
        return NDD_OK;
    if (o->nruns && o->runs[o->nruns - 1].pos + o->runs[o->nruns - 1].len == from) {
        o->runs[o->nruns - 1].len += to - from;
    } else {
        int rc = grow((void **)&o->runs, &o->runcap, o->nruns + 1, sizeof *o->runs);
        if (rc)
            return rc;
        o->runs[o->nruns].sk = o->len;
        o->runs[o->nruns].pos = from;
        o->runs[o->nruns].len = to - from;
        o->nruns++;
    }
    memcpy(o->bytes + o->len, doc + from, to - from);
    o->len += to - from;
    *cover_end = to;
    return NDD_OK;
}

int ndd_sketch_filter(ndd_sketch_ws_t *ws, const void *a, size_t na, const void *b, size_t nb,
                      size_t window)
{
    int rc;
    if (!ws || (!a && na) || (!b && nb) || window == 0)
        return NDD_ERR_INVAL;
    if (na >= UINT32_MAX || nb >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    ws->out[0].len = ws->out[0].nruns = 0;
    ws->out[1].len = ws->out[1].nruns = 0;
    if (na < window || nb < window)
        return NDD_OK;

    /* X = the document put in the table (the shorter one), Y = the streamed one */
    int x_is_a = na <= nb;
    const uint8_t *X = x_is_a ? a : b, *Y = x_is_a ? b : a;
    size_t nx = x_is_a ? na : nb, ny = x_is_a ? nb : na;
    sk_out_t *ox = &ws->out[x_is_a ? 0 : 1], *oy = &ws->out[x_is_a ? 1 : 0];
    size_t wx = nx - window + 1, wy = ny - window + 1;
    size_t nbuckets = wx + wy; /* the paper's |A| + |B| - 2S + 2 */
    if (nbuckets > 4 * wx)
        nbuckets = 4 * wx;
    if ((rc = ws_reserve(ws, wx, nbuckets)))
        return rc;
    if ((rc = grow((void **)&ox->bytes, &ox->cap, nx, 1)) || (rc = grow((void **)&oy->bytes, &oy->cap, ny, 1)))
        return rc;
    memset(ws->head, 0, nbuckets * sizeof *ws->head);

    const uint64_t mpow = sk_pow(window - 1); /* M^(S-1): weight of the byte leaving the window */
    uint64_t h = 0;
    for (size_t i = 0; i < window; i++)
        h = h * SK_MULT + X[i];
    for (size_t i = 0;; i++) {
        size_t bk = sk_bucket(h, nbuckets);
        uint32_t r = ws->head[bk], rep = (uint32_t)i;
        while (r) {
            uint32_t c = r - 1;
            if (ws->fp[c] == h && sk_same(X + c, X + i, window)) {
                rep = c;
                break;
            }
            r = ws->next[c];
        }
        ws->fp[i] = h;
        ws->rep[i] = rep;
        ws->hit[i] = 0;
        if (rep == i) {
            ws->next[i] = ws->head[bk];
            ws->head[bk] = (uint32_t)i + 1;
        }
        if (i + 1 == wx)
            break;
        h = (h - X[i] * mpow) * SK_MULT + X[i + window];
    }

    /* stream Y */
    size_t cover = 0;
    h = 0;
    for (size_t j = 0; j < window; j++)
        h = h * SK_MULT + Y[j];
    for (size_t j = 0;; j++) {
        uint32_t r = ws->head[sk_bucket(h, nbuckets)];
        while (r) {
            uint32_t c = r - 1;
            if (ws->fp[c] == h && sk_same(X + c, Y + j, window)) {
                ws->hit[c] = 1;
                if ((rc = sk_keep(oy, Y, j, window, &cover)))
                    return rc;
                break;
            }
            r = ws->next[c];
        }
        if (j + 1 == wy)
            break;
        h = (h - Y[j] * mpow) * SK_MULT + Y[j + window];
    }

    /* X keeps the windows whose representative occurred in Y */
    cover = 0;
    for (size_t i = 0; i < wx; i++)
        if (ws->hit[ws->rep[i]] && (rc = sk_keep(ox, X, i, window, &cover)))
            return rc;
    return NDD_OK;
}
