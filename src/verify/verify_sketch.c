/* verify_sketch.c - filtered sketches of paper 002 (section 3.3).
 *
 * Every window of S bytes of both documents gets a Rabin-Karp fingerprint
 * h = sum c_i * M^(S-1-i) mod 2^64 (M odd), computed by rolling. The windows
 * of the shorter document X go into a hash table of |A| + |B| - 2S + 2 slots
 * (the paper's size; capped at 4x X's windows for very uneven pairs, so the
 * load factor is at most 1/2). The table is open-addressed (linear probing)
 * and holds one entry per distinct window content: a window equal to one
 * already present (confirmed by comparing the S bytes) only records that
 * representative, so a repetitive text costs O(1) per window. The other
 * document Y is streamed: a window of Y equal to a representative (bytes
 * compared: no false match is possible) marks it and keeps Y's S bytes.
 * While Y matches X window by window, the next Y window is checked against
 * the next X window directly (one byte comparison, no table access). Then X
 * keeps the bytes of its windows whose representative was marked.
 * O(na + nb) time; memory ~13 bytes per window of X plus the sketches.
 * A slot also carries 8 bits of the fingerprint (when X has < 2^24 windows)
 * so that most probes of absent windows need no byte comparison. */
#include "ndd_verify.h"
#include "verify_anchor_int.h"
#include "verify_int.h"

#include <stdlib.h>
#include <string.h>

#define SK_MULT 0x100000001b3ULL /* odd multiplier of the rolling polynomial */

typedef struct sk_out {
    char *bytes;
    size_t len, cap;
    ndd_sketch_run_t *runs;
    size_t nruns, runcap;
    size_t pend_from, pend_to; /* kept bytes not yet copied */
} sk_out_t;

struct ndd_sketch_ws {
    uint32_t *rep; /* representative window of each window of X */
    uint8_t *hit;  /* representative occurs in Y */
    size_t wcap;
    uint32_t *slot; /* open-addressed table: representative index + 1, 0 = empty */
    size_t scap;
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
    free(ws->rep);
    free(ws->hit);
    free(ws->slot);
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

static int ws_reserve(ndd_sketch_ws_t *ws, size_t nwin, size_t nslots)
{
    if (nwin > ws->wcap) {
        size_t c = ws->wcap ? ws->wcap : 256;
        while (c < nwin)
            c *= 2;
        uint32_t *rep = realloc(ws->rep, c * sizeof *rep);
        if (!rep)
            return NDD_ERR_NOMEM;
        ws->rep = rep;
        uint8_t *hit = realloc(ws->hit, c);
        if (!hit)
            return NDD_ERR_NOMEM;
        ws->hit = hit;
        ws->wcap = c;
    }
    return ndd_array_grow((void **)&ws->slot, &ws->scap, nslots, sizeof *ws->slot);
}

/* Home slot of a fingerprint: mix (the low bits of a polynomial hash mod 2^64
 * are weak) and map to [0, n) with a multiply-shift (no division). */
static inline size_t sk_home(uint64_t h, size_t n)
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
        memcpy(&b0, q, 8);
        if (a0 != b0)
            return 0;
        memcpy(&a1, p + 8, 8);
        memcpy(&b1, q + 8, 8);
        return a1 == b1;
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

/* Windows are looked up SK_PF positions after their slot was prefetched:
 * a rolling hash runs ahead and queues (home slot, tag) in a ring. */
#define SK_PF 8

typedef struct sk_ring {
    size_t k[SK_PF];
    uint32_t t[SK_PF];
    uint64_t h;   /* fingerprint of window a */
    size_t a;     /* next window to queue */
    const uint8_t *d;
    size_t w, s, nslots;
    uint64_t mpow;
    const uint32_t *slot;
    int tagged;
} sk_ring_t;

static inline void sk_ring_push(sk_ring_t *q)
{
    if (q->a >= q->w)
        return;
    size_t k = sk_home(q->h, q->nslots);
    __builtin_prefetch(q->slot + k);
    q->k[q->a % SK_PF] = k;
    q->t[q->a % SK_PF] = q->tagged ? (uint32_t)(q->h >> 56) << 24 : 0u;
    if (q->a + 1 < q->w)
        q->h = (q->h - q->d[q->a] * q->mpow) * SK_MULT + q->d[q->a + q->s];
    q->a++;
}

static void sk_ring_init(sk_ring_t *q, const uint8_t *d, size_t w, size_t s, uint64_t mpow, size_t nslots,
                         const uint32_t *slot, int tagged)
{
    q->h = 0;
    for (size_t i = 0; i < s; i++)
        q->h = q->h * SK_MULT + d[i];
    q->a = 0;
    q->d = d;
    q->w = w;
    q->s = s;
    q->nslots = nslots;
    q->mpow = mpow;
    q->slot = slot;
    q->tagged = tagged;
    for (int i = 0; i < SK_PF; i++)
        sk_ring_push(q);
}

/* Copies the pending kept bytes [pend_from, pend_to) of doc as one run. */
static int sk_flush(sk_out_t *o, const uint8_t *doc)
{
    size_t n = o->pend_to - o->pend_from;
    if (!n)
        return NDD_OK;
    int rc = ndd_array_grow((void **)&o->runs, &o->runcap, o->nruns + 1, sizeof *o->runs);
    if (rc)
        return rc;
    o->runs[o->nruns++] = (ndd_sketch_run_t){o->len, o->pend_from, n};
    memcpy(o->bytes + o->len, doc + o->pend_from, n);
    o->len += n;
    o->pend_from = o->pend_to = 0;
    return NDD_OK;
}

/* Keeps bytes [p, p+s): extends the pending run when they overlap or touch it. */
static inline int sk_keep(sk_out_t *o, const uint8_t *doc, size_t p, size_t s)
{
    if (o->pend_to > o->pend_from && p <= o->pend_to) {
        o->pend_to = p + s;
        return NDD_OK;
    }
    int rc = sk_flush(o, doc);
    o->pend_from = p;
    o->pend_to = p + s;
    return rc;
}

int ndd_sketch_filter(ndd_sketch_ws_t *ws, const void *a, size_t na, const void *b, size_t nb,
                      size_t window)
{
    int rc;
    if (!ws || (!a && na) || (!b && nb) || window == 0)
        return NDD_ERR_INVAL;
    if (na >= UINT32_MAX || nb >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    for (int i = 0; i < 2; i++)
        ws->out[i].len = ws->out[i].nruns = ws->out[i].pend_from = ws->out[i].pend_to = 0;
    if (na < window || nb < window)
        return NDD_OK;

    /* X = the document put in the table (the shorter one), Y = the streamed one */
    const int x_is_a = na <= nb;
    const uint8_t *X = x_is_a ? a : b, *Y = x_is_a ? b : a;
    const size_t nx = x_is_a ? na : nb, ny = x_is_a ? nb : na;
    sk_out_t *ox = &ws->out[x_is_a ? 0 : 1], *oy = &ws->out[x_is_a ? 1 : 0];
    const size_t S = window, wx = nx - S + 1, wy = ny - S + 1;
    size_t nslots = wx + wy; /* the paper's |A| + |B| - 2S + 2 */
    if (nslots > 4 * wx)
        nslots = 4 * wx;
    if ((rc = ws_reserve(ws, wx, nslots)))
        return rc;
    if ((rc = ndd_array_grow((void **)&ox->bytes, &ox->cap, nx, 1)) ||
        (rc = ndd_array_grow((void **)&oy->bytes, &oy->cap, ny, 1)))
        return rc;
    uint32_t *slot = ws->slot, *rep = ws->rep;
    uint8_t *hit = ws->hit;
    memset(slot, 0, nslots * sizeof *slot);
    memset(hit, 0, wx);

    const uint64_t mpow = sk_pow(S - 1); /* M^(S-1): weight of the byte leaving the window */
    /* a slot holds index + 1 in its low bits and, when X has fewer than
     * 2^24 windows, 8 bits of the fingerprint above them (a cheap filter
     * before the byte comparison) */
    const int tagged = wx < ((size_t)1 << 24) - 1;
    const uint32_t imask = tagged ? 0xFFFFFFu : 0xFFFFFFFFu;
    sk_ring_t q;
    sk_ring_init(&q, X, wx, S, mpow, nslots, slot, tagged);
    for (size_t i = 0; i < wx; i++) {
        size_t k = q.k[i % SK_PF];
        const uint32_t tag = q.t[i % SK_PF];
        sk_ring_push(&q);
        for (;;) {
            uint32_t r = slot[k];
            if (!r) {
                slot[k] = tag | ((uint32_t)i + 1);
                rep[i] = (uint32_t)i;
                break;
            }
            if ((r & ~imask) == tag && sk_same(X + ((r & imask) - 1), X + i, S)) {
                rep[i] = (r & imask) - 1;
                break;
            }
            if (++k == nslots)
                k = 0;
        }
    }

    /* stream Y; `next` = the X window that continues the last match */
    size_t next = SIZE_MAX;
    sk_ring_init(&q, Y, wy, S, mpow, nslots, slot, tagged);
    for (size_t j = 0; j < wy; j++) {
        size_t m = SIZE_MAX;
        size_t k = q.k[j % SK_PF];
        const uint32_t tag = q.t[j % SK_PF];
        sk_ring_push(&q);
        if (next < wx && X[next + S - 1] == Y[j + S - 1]) {
            m = next; /* windows j-1 and next-1 were equal, and so are the new last bytes */
        } else {
            uint32_t r;
            while ((r = slot[k])) {
                if ((r & ~imask) == tag && sk_same(X + ((r & imask) - 1), Y + j, S)) {
                    m = (r & imask) - 1;
                    break;
                }
                if (++k == nslots)
                    k = 0;
            }
        }
        if (m != SIZE_MAX) {
            hit[rep[m]] = 1;
            if ((rc = sk_keep(oy, Y, j, S)))
                return rc;
            next = m + 1;
        } else {
            next = SIZE_MAX;
        }
    }
    if ((rc = sk_flush(oy, Y)))
        return rc;

    /* X keeps the windows whose representative occurred in Y */
    for (size_t i = 0; i < wx; i++)
        if (hit[rep[i]] && (rc = sk_keep(ox, X, i, S)))
            return rc;
    return sk_flush(ox, X);
}

/* ---- the same sketches from anchors (no table of windows) ----
 * Window j of D is kept iff its content occurs as a window of E. It does
 * when it continues the previous match (one byte compared), else an equal
 * window E_i holds D_j's anchor k-gram at the same offset o, and that
 * k-gram is an anchor of E (winnowing depends on the window's content
 * only): every E anchor of the same hash at a position q >= o gives the
 * candidate i = q - o, confirmed byte by byte (with E's 4-byte entries,
 * those of hashes that share the entry's bits come too: a few more
 * candidates, rejected by the bytes). The filter of E's anchor hashes
 * answers most misses at once. Consecutive windows mostly share their
 * anchor: its candidates are looked up once. */
#define SK_GIVE_UP 1 /* sk_side: the candidates ran past the budget */
#define SK_CAND_MEMO 8 /* candidates of one anchor whose last failure is remembered */

/* The S bytes at d and e (window j of D, a window of E) compared from the
 * end: 0 when they are equal, else the offset x just past their last
 * mismatch - the windows j' < j + x hold it too and fail on that diagonal. */
static inline size_t sk_last_miss(const uint8_t *d, const uint8_t *e, size_t S)
{
    return S - ndd_verify_suffix(d + S, e + S, S);
}

static int sk_side(sk_out_t *o, const uint8_t *D, size_t nd, const ndd_anchors_t *ad, const uint8_t *E,
                   size_t ne, const ndd_anchors_t *ae, size_t S, size_t k, size_t *budget)
{
    int rc;
    const size_t wd = nd - S + 1, we = ne - S + 1;
    size_t next = SIZE_MAX, last_p = SIZE_MAX, lo = 0, hi = 0, diag = 0;
    /* A window that holds a mismatch on a diagonal fails there, and so do
     * the next windows up to that mismatch: diag_live = the first window
     * that may match on `diag` again (SIZE_MAX before the first match),
     * cand_live = the first window that any candidate of the anchor at
     * last_p may match, dead[] = the same for each of its first
     * SK_CAND_MEMO candidates. Consecutive windows share their anchor: a
     * substitution costs one comparison per diagonal, not one per window
     * over it. */
    size_t diag_live = SIZE_MAX, cand_live = 0, dead[SK_CAND_MEMO];
    const uint8_t *off = ad->off;
    /* E's anchors by hash (ndd_verify.h): 4-byte entries, or 8 */
    const uint32_t *ev32 = ae->v_narrow ? ae->v : NULL;
    const uint64_t *ev64 = ae->v_narrow ? NULL : ae->v;
    for (size_t j = 0; j < wd; j++) {
        size_t m = SIZE_MAX;
        if (next == SIZE_MAX && j < diag_live && j < cand_live && j + off[j] == last_p) {
            /* a dead window (no match to continue, the diagonal and every
             * candidate of its anchor fail before diag_live and cand_live):
             * so are the next ones with that anchor, passed over in one
             * loop; the first other window is handled below */
            size_t lim = diag_live < cand_live ? diag_live : cand_live;
            lim = lim < wd ? lim : wd;
            do
                j++;
            while (j < lim && j + off[j] == last_p);
            if (j == wd)
                break;
        }
        if (next < we && E[next + S - 1] == D[j + S - 1]) {
            m = next;
        } else {
            if (j >= diag_live && j + diag < we) { /* back on the diagonal of the last match? */
                size_t x = sk_last_miss(D + j, E + (j + diag), S);
                if (x == 0)
                    m = j + diag;
                else
                    diag_live = j + x;
            }
            size_t p = j + off[j], q0 = p - j;
            if (m == SIZE_MAX && p != last_p) {
                last_p = p;
                cand_live = 0;
                uint32_t h = ndd_kgram_hash(D + p, k);
                lo = hi = 0;
                if (ndd_anchors_may_hold(ae, h)) { /* its bucket, then a few neighbours */
                    size_t bk = (size_t)((uint64_t)h >> ae->bidx_shift), end = ae->bidx[bk + 1];
                    if (ev32) { /* 16 bits of the hash below the bucket's: hashes sharing them are one key */
                        uint32_t f = h >> (ae->bidx_shift - 16) & 0xffff;
                        for (lo = ae->bidx[bk]; lo < end && ev32[lo] >> 16 < f; lo++)
                            ;
                        for (hi = lo; hi < end && ev32[hi] >> 16 == f; hi++)
                            ;
                    } else {
                        for (lo = ae->bidx[bk]; lo < end && (uint32_t)(ev64[lo] >> 32) < h; lo++)
                            ;
                        for (hi = lo; hi < end && (uint32_t)(ev64[hi] >> 32) == h; hi++)
                            ;
                    }
                }
                for (size_t t = 0; t < hi - lo && t < SK_CAND_MEMO; t++)
                    dead[t] = 0;
            }
            if (m == SIZE_MAX && j >= cand_live) {
                size_t live = SIZE_MAX; /* the first window after j that a candidate may match */
                for (size_t t = lo; t < hi; t++) { /* positions increase */
                    size_t q = ev32 ? ev32[t] & 0xffff : (uint32_t)ev64[t];
                    if (q < q0) { /* before E's start for this window; a later one may fit */
                        live = live < j + (q0 - q) ? live : j + (q0 - q);
                        continue;
                    }
                    if (q - q0 >= we)
                        break; /* past E's end, and further for the next windows */
                    if (t - lo < SK_CAND_MEMO && j < dead[t - lo]) {
                        live = live < dead[t - lo] ? live : dead[t - lo];
                        continue;
                    }
                    if (!(*budget)--)
                        return SK_GIVE_UP; /* one k-gram anchored all over E (repetitive text) */
                    size_t x = sk_last_miss(D + j, E + (q - q0), S);
                    if (x == 0) {
                        m = q - q0;
                        break;
                    }
                    if (t - lo < SK_CAND_MEMO) {
                        dead[t - lo] = j + x;
                        live = live < j + x ? live : j + x;
                    } else {
                        live = j + 1;
                    }
                }
                cand_live = m == SIZE_MAX ? live : 0; /* a match: the later candidates were not seen */
            }
        }
        if (m != SIZE_MAX) {
            /* the match runs on while the next bytes agree: windows j + 1 ..
             * j + run all match (E's m + 1 .. m + run), kept in one step */
            size_t run = ndd_verify_prefix(D + j + S, E + m + S, nd - j - S < ne - m - S ? nd - j - S : ne - m - S);
            if ((rc = sk_keep(o, D, j, S + run)))
                return rc;
            j += run;
            m += run;
            next = m + 1;
            diag = m - j; /* modulo 2^64: j + diag is m again, and wraps past we when negative */
            /* the run stopped at a mismatch (or an end): the windows over it fail on diag */
            diag_live = j + S + 1;
        } else {
            next = SIZE_MAX;
        }
    }
    return sk_flush(o, D);
}

int ndd_sketch_filter_anchored(ndd_sketch_ws_t *ws, const void *a, size_t na, const ndd_anchors_t *xa,
                               const void *b, size_t nb, const ndd_anchors_t *xb, size_t window)
{
    if (!ws || !xa || !xb || (!a && na) || (!b && nb) || window == 0)
        return NDD_ERR_INVAL;
    if (na < window || nb < window || xa->window != window || xb->window != window || xa->len != na ||
        xb->len != nb || xa->noff != na - window + 1 || xb->noff != nb - window + 1)
        return ndd_sketch_filter(ws, a, na, b, nb, window);
    if (na >= UINT32_MAX || nb >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    int rc;
    for (int i = 0; i < 2; i++)
        ws->out[i].len = ws->out[i].nruns = ws->out[i].pend_from = ws->out[i].pend_to = 0;
    if ((rc = ndd_array_grow((void **)&ws->out[0].bytes, &ws->out[0].cap, na, 1)) ||
        (rc = ndd_array_grow((void **)&ws->out[1].bytes, &ws->out[1].cap, nb, 1)))
        return rc;
    size_t k, w, budget = 4 * (na + nb) + 1024;
    ndd_anchor_shape(window, &k, &w);
    /* the lookup arrays read at random (a document's anchors may have left
     * the caches since they were made): asked for in one stream now */
    ndd_anchors_prefetch(xb);
    ndd_anchors_prefetch(xa);
    /* candidates are bounded so that this stays linear: past 4 per byte,
     * the table (linear whatever the text) makes the same sketches */
    if ((rc = sk_side(&ws->out[0], a, na, xa, b, nb, xb, window, k, &budget)) ||
        (rc = sk_side(&ws->out[1], b, nb, xb, a, na, xa, window, k, &budget)))
        return rc == SK_GIVE_UP ? ndd_sketch_filter(ws, a, na, b, nb, window) : rc;
    return NDD_OK;
}
