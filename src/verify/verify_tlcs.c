/* verify_tlcs.c - trustable LCS (paper 002, section 3.4) and the verdict.
 *
 * Pipeline for one pair (docs/verify.md has the full reading of the paper):
 *  1. filtered sketches of both documents (or the whole documents: exact);
 *  2. upper bound min(|sketch A|, |sketch B|): if even that cannot reach the
 *     thresholds, stop (pruned_by_bound);
 *  3. Myers LCS/SES of the sketches with a cost limit;
 *  4. the script is mapped back to the documents: matched bytes are "pieces"
 *     (x in X, y in Y, len); every other byte of X is a deletion at its own
 *     position, every other byte of Y an insertion at the boundary of X just
 *     after the previous matched byte. The edit curve d(x) counts them;
 *  5. k blocks, base regions = runs of blocks with slope <= threshold that
 *     satisfy centricity; the heaviest (most matched bytes), fewest blocks,
 *     extended byte-wise into the neighbouring blocks -> trustable region,
 *     TLCS = matched bytes inside it;
 *  6. iterative variant: remove the region from X and its TLCS from Y and
 *     repeat on the rest (max_iter, min_iter_tlcs);
 *  7. resemblance / containment from the total TLCS, verdict.
 * The curve is drawn along the shorter document X (ties: the lexicographically
 * smaller), which makes the verifier symmetric in its arguments. */
#include "ndd_verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tl_run {
    size_t sk;   /* offset in the current sketch bytes */
    size_t red;  /* offset in the current (reduced) document */
    size_t orig; /* offset in the original document */
    size_t len;
} tl_run_t;

typedef struct tl_doc {
    char *bytes;
    size_t len, cap;
    tl_run_t *runs, *tmp;
    size_t nruns, runcap, tmpcap;
    size_t cur; /* current length of the (reduced) document */
} tl_doc_t;

typedef struct tl_piece {
    size_t x, y;   /* reduced offsets in X and Y */
    size_t xo, yo; /* original offsets */
    size_t len;
} tl_piece_t;

typedef struct tl_span {
    size_t start, end;
} tl_span_t;

#define TL_MAX_TIES 8

struct ndd_tlcs_ws {
    ndd_sketch_ws_t *sk;
    ndd_myers_ws_t *my;
    tl_doc_t d[2];
    tl_piece_t *pc;
    size_t npc, pccap;
    size_t *pcum; /* pcum[i] = matched bytes in pieces [0, i) */
    size_t pcumcap;
    size_t *ig, *icum; /* insertion boundaries (increasing) and prefix counts */
    size_t nins, inscap;
    size_t *fs, *fe, *fcum; /* small substitutions: X gaps [fs, fe) (increasing), prefix lengths */
    size_t nfree, freecap;
    size_t *bm, *bilt, *bile, *bx, *bf; /* per block boundary: M, I(<), I(<=), offset, F */
    size_t bcap;
    tl_span_t rem[NDD_TLCS_MAX_REGIONS + 1]; /* removed X intervals, original offsets, sorted */
    size_t nrem;
    size_t cuts[NDD_TLCS_MAX_REGIONS]; /* where earlier regions were removed, reduced X offsets */
    size_t ncuts;
    tl_span_t *yrem; /* removed Y intervals of one iteration, reduced offsets */
    size_t yremcap;
    const ndd_anchors_t *anc[2]; /* ndd_tlcs_ws_anchors: of a and b, for the next compare */
    const ndd_anchors_t *ax, *ay; /* the same, of X and Y, during that compare */
    uint64_t *mark;               /* the anchor bound's scratch */
    size_t mark_cap;
};

void ndd_tlcs_ws_anchors(ndd_tlcs_ws_t *ws, const ndd_anchors_t *a, const ndd_anchors_t *b)
{
    ws->anc[0] = a;
    ws->anc[1] = b;
}

void ndd_tlcs_params_default(ndd_tlcs_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->window = NDD_SKETCH_DEFAULT_WINDOW;
    p->slope = 0.1;
    p->min_resemblance = 0.28;
    p->min_containment = 0.7;
    p->max_d = 0;
    p->max_iter = 4;
    p->exact = 0;
    p->min_iter_tlcs = 64;
    p->blocks = 0;
    p->reserve = 0;
    p->subst_share = NDD_TLCS_DEFAULT_SUBST_SHARE;
    p->subst_max = 0;
}

int ndd_tlcs_ws_create(ndd_tlcs_ws_t **ws)
{
    int rc;
    ndd_tlcs_ws_t *w = calloc(1, sizeof *w);
    if (!w)
        return NDD_ERR_NOMEM;
    if ((rc = ndd_sketch_ws_create(&w->sk)) || (rc = ndd_myers_ws_create(&w->my))) {
        ndd_tlcs_ws_free(w);
        return rc;
    }
    *ws = w;
    return NDD_OK;
}

void ndd_tlcs_ws_free(ndd_tlcs_ws_t *ws)
{
    if (!ws)
        return;
    ndd_sketch_ws_free(ws->sk);
    ndd_myers_ws_free(ws->my);
    free(ws->mark);
    for (int i = 0; i < 2; i++) {
        free(ws->d[i].bytes);
        free(ws->d[i].runs);
        free(ws->d[i].tmp);
    }
    free(ws->pc);
    free(ws->pcum);
    free(ws->ig);
    free(ws->icum);
    free(ws->fs);
    free(ws->fe);
    free(ws->fcum);
    free(ws->bf);
    free(ws->bm);
    free(ws->bilt);
    free(ws->bile);
    free(ws->bx);
    free(ws->yrem);
    free(ws);
}

void ndd_tlcs_scores(size_t t, size_t na, size_t nb, double *resemblance, double *containment)
{
    size_t mn = na < nb ? na : nb;
    double un = (double)na + (double)nb - (double)t;
    *resemblance = un > 0 ? (double)t / un : 0.0;
    *containment = mn > 0 ? (double)t / (double)mn : 0.0;
}

int ndd_tlcs_verdict(const ndd_tlcs_params_t *p, double resemblance, double containment)
{
    return resemblance >= p->min_resemblance || containment >= p->min_containment;
}

/* Loads a document's sketch (or the whole document) into d. */
static int tl_load(tl_doc_t *d, const char *bytes, size_t len, const ndd_sketch_run_t *runs,
                   size_t nruns, size_t doclen)
{
    int rc;
    if ((rc = ndd_array_grow((void **)&d->bytes, &d->cap, len ? len : 1, 1)) ||
        (rc = ndd_array_grow((void **)&d->runs, &d->runcap, nruns ? nruns : 1, sizeof *d->runs)))
        return rc;
    if (len)
        memcpy(d->bytes, bytes, len);
    d->len = len;
    for (size_t i = 0; i < nruns; i++)
        d->runs[i] = (tl_run_t){runs[i].sk, runs[i].pos, runs[i].pos, runs[i].len};
    d->nruns = nruns;
    d->cur = doclen;
    return NDD_OK;
}

/* ---- the edit curve along X ---- */

static int tl_walk = 1; /* ndd_tlcs_curve_walk */

int ndd_tlcs_curve_walk(int on)
{
    int old = tl_walk;
    tl_walk = on;
    return old;
}

/* tl_m given lo, the number of pieces starting before x. */
static size_t tl_m_at(const ndd_tlcs_ws_t *ws, size_t lo, size_t x)
{
    size_t m = ws->pcum[lo];
    if (lo > 0) {
        const tl_piece_t *p = &ws->pc[lo - 1];
        if (p->x + p->len > x)
            m -= p->x + p->len - x;
    }
    return m;
}

/* Matched X bytes at reduced offsets < x. */
static size_t tl_m(const ndd_tlcs_ws_t *ws, size_t x)
{
    size_t lo = 0, hi = ws->npc; /* number of pieces starting before x */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ws->pc[mid].x < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return tl_m_at(ws, lo, x);
}

/* Inserted Y bytes at boundaries g < x (le = 0) or g <= x (le = 1). */
static size_t tl_i(const ndd_tlcs_ws_t *ws, size_t x, int le)
{
    size_t lo = 0, hi = ws->nins;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ws->ig[mid] < x || (le && ws->ig[mid] == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return ws->icum[lo];
}

/* tl_f given lo, the number of gaps starting before x. */
static size_t tl_f_at(const ndd_tlcs_ws_t *ws, size_t lo, size_t x)
{
    size_t f = ws->fcum[lo];
    if (lo > 0 && ws->fe[lo - 1] > x)
        f -= ws->fe[lo - 1] - x;
    return f;
}

/* X bytes of small substitutions at reduced offsets < x. */
static size_t tl_f(const ndd_tlcs_ws_t *ws, size_t x)
{
    size_t lo = 0, hi = ws->nfree; /* gaps starting before x */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ws->fs[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return tl_f_at(ws, lo, x);
}

/* Edit operations inside [s, e): deleted X bytes in it plus insertions at
 * boundaries strictly inside it, small substitutions left out; *fr = the
 * X bytes of small substitutions in it. */
static size_t tl_ops(const ndd_tlcs_ws_t *ws, size_t s, size_t e, size_t *fr)
{
    size_t m = tl_m(ws, e) - tl_m(ws, s);
    *fr = tl_f(ws, e) - tl_f(ws, s);
    return (e - s) - m - *fr + (tl_i(ws, e, 0) - tl_i(ws, s, 1));
}

/* Continuity: edits <= slope per byte, small substitutions <= subst_share. */
static inline int tl_slope_ok(size_t ops, size_t fr, size_t len, const ndd_tlcs_params_t *p)
{
    return len > 0 && (double)ops <= p->slope * (double)len + 1e-9 &&
           (double)fr <= p->subst_share * (double)len + 1e-9;
}

/* tl_slope_ok of [s, e). */
static int tl_cont(const ndd_tlcs_ws_t *ws, size_t s, size_t e, const ndd_tlcs_params_t *p)
{
    size_t fr, ops = tl_ops(ws, s, e, &fr);
    return tl_slope_ok(ops, fr, e - s, p);
}

/* Span in Y of the partners of the matched X bytes of [s, e); 0 if none. */
static int tl_partner(const ndd_tlcs_ws_t *ws, size_t s, size_t e, size_t *ys, size_t *ye)
{
    size_t lo = 0, hi = ws->npc; /* first piece ending after s */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ws->pc[mid].x + ws->pc[mid].len <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == ws->npc || ws->pc[lo].x >= e)
        return 0;
    const tl_piece_t *f = &ws->pc[lo];
    *ys = f->y + (s > f->x ? s - f->x : 0);
    lo = 0;
    hi = ws->npc; /* number of pieces starting before e */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ws->pc[mid].x < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    const tl_piece_t *l = &ws->pc[lo - 1];
    size_t xend = l->x + l->len < e ? l->x + l->len : e;
    *ye = l->y + (xend - l->x);
    return 1;
}

/* Centricity: [s, e) meets the central band of X (the middle block, or the
 * two middle blocks when k is even), or the span of its partners meets the
 * central band of Y (same fractions of Y's length). In later iterations of
 * the iterative variant, meeting the neighbourhood of a cut point (where an
 * earlier trustable region was removed, +- half the central band) counts as
 * central too: that is where the rest of the main content now lies. */
typedef struct tl_band {
    size_t x0, x1, y0, y1, half;
    const size_t *cuts;
    size_t ncuts;
} tl_band_t;

static int tl_central(const ndd_tlcs_ws_t *ws, size_t s, size_t e, const tl_band_t *b)
{
    if (s < b->x1 && e > b->x0)
        return 1;
    for (size_t i = 0; i < b->ncuts; i++) {
        size_t c0 = b->cuts[i] > b->half ? b->cuts[i] - b->half : 0, c1 = b->cuts[i] + b->half;
        if (s < c1 && e > c0)
            return 1;
    }
    size_t ys, ye;
    return tl_partner(ws, s, e, &ys, &ye) && ys < b->y1 && ye > b->y0;
}

/* Grows n size_t arrays that share the capacity *cap to hold need elements. */
static int tl_grow_parallel(size_t **const *arr, int n, size_t *cap, size_t need)
{
    if (need <= *cap)
        return NDD_OK;
    size_t c = *cap;
    for (int i = 0; i < n; i++) {
        c = *cap;
        int rc = ndd_array_grow((void **)arr[i], &c, need, sizeof **arr[i]);
        if (rc)
            return rc;
    }
    *cap = c;
    return NDD_OK;
}

/* tl_strained given lo, the first run of d ending after s. */
static int tl_strained_at(const tl_doc_t *d, size_t lo, size_t e) { return lo == d->nruns || d->runs[lo].red >= e; }

/* 1 when no kept sketch byte of d lies in the reduced range [s, e): the
 * sketch strained all of it away. */
static int tl_strained(const tl_doc_t *d, size_t s, size_t e)
{
    size_t lo = 0, hi = d->nruns; /* first run ending after s */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (d->runs[mid].red + d->runs[mid].len <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return tl_strained_at(d, lo, e);
}

/* Small substitutions: interior gaps between pieces i-1 and i that are
 * non-empty in both documents, at most gmax bytes in each, and strained
 * away by both sketches (a paragraph that moved is kept by the sketches:
 * it is no substitution, the iterative variant finds it). */
static int tl_free_gaps(ndd_tlcs_ws_t *ws, size_t gmax)
{
    size_t **arr[3] = {&ws->fs, &ws->fe, &ws->fcum};
    int rc = tl_grow_parallel(arr, 3, &ws->freecap, ws->npc + 1);
    if (rc)
        return rc;
    ws->nfree = 0;
    ws->fcum[0] = 0;
    size_t rx = 0, ry = 0; /* (tl_walk) the first run of X, of Y ending after the gap's start */
    for (size_t i = 1; gmax && i < ws->npc; i++) {
        const tl_piece_t *a = &ws->pc[i - 1], *b = &ws->pc[i];
        size_t gx = b->x - (a->x + a->len), gy = b->y - (a->y + a->len);
        if (gx == 0 || gy == 0 || gx > gmax || gy > gmax)
            continue;
        if (tl_walk) { /* the gaps' starts increase in X and in Y */
            const tl_doc_t *X = &ws->d[0], *Y = &ws->d[1];
            while (rx < X->nruns && X->runs[rx].red + X->runs[rx].len <= a->x + a->len)
                rx++;
            while (ry < Y->nruns && Y->runs[ry].red + Y->runs[ry].len <= a->y + a->len)
                ry++;
            if (!tl_strained_at(X, rx, b->x) || !tl_strained_at(Y, ry, b->y))
                continue;
        } else if (!tl_strained(&ws->d[0], a->x + a->len, b->x) || !tl_strained(&ws->d[1], a->y + a->len, b->y)) {
            continue;
        }
        ws->fs[ws->nfree] = a->x + a->len;
        ws->fe[ws->nfree] = b->x;
        ws->fcum[ws->nfree + 1] = ws->fcum[ws->nfree] + gx;
        ws->nfree++;
    }
    return NDD_OK;
}

/* tl_gap_free given lo, the first small substitution starting at or after
 * the end x of piece i - 1. */
static int tl_gap_free_at(const ndd_tlcs_ws_t *ws, size_t i, size_t lo, size_t x)
{
    return lo < ws->nfree && ws->fs[lo] == x && ws->fe[lo] == ws->pc[i].x;
}

/* 1 when the Y bytes before piece i are the Y side of a small substitution. */
static int tl_gap_free(const ndd_tlcs_ws_t *ws, size_t i)
{
    if (i == 0 || i >= ws->npc || !ws->nfree)
        return 0;
    size_t x = ws->pc[i - 1].x + ws->pc[i - 1].len, lo = 0, hi = ws->nfree;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ws->fs[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return tl_gap_free_at(ws, i, lo, x);
}

/* Maps the script of the sketches to pieces and builds the curve arrays. */
static int tl_build_curve(ndd_tlcs_ws_t *ws, size_t gmax)
{
    int rc;
    size_t ns;
    const ndd_edit_t *s = ndd_myers_script(ws->my, &ns);
    const tl_doc_t *X = &ws->d[0], *Y = &ws->d[1];
    ws->npc = 0;
    size_t rx = 0, ry = 0;
    for (size_t i = 0; i < ns; i++) {
        if (s[i].op != NDD_EDIT_EQ)
            continue;
        size_t as = s[i].a, bs = s[i].b, len = s[i].len;
        while (len) {
            while (X->runs[rx].sk + X->runs[rx].len <= as)
                rx++;
            while (Y->runs[ry].sk + Y->runs[ry].len <= bs)
                ry++;
            const tl_run_t *a = &X->runs[rx], *b = &Y->runs[ry];
            size_t ox = as - a->sk, oy = bs - b->sk;
            size_t c = len;
            if (a->len - ox < c)
                c = a->len - ox;
            if (b->len - oy < c)
                c = b->len - oy;
            tl_piece_t p = {a->red + ox, b->red + oy, a->orig + ox, b->orig + oy, c};
            tl_piece_t *l = ws->npc ? &ws->pc[ws->npc - 1] : NULL;
            if (l && l->x + l->len == p.x && l->y + l->len == p.y && l->xo + l->len == p.xo &&
                l->yo + l->len == p.yo) {
                l->len += c;
            } else {
                if ((rc = ndd_array_grow((void **)&ws->pc, &ws->pccap, ws->npc + 1, sizeof *ws->pc)))
                    return rc;
                ws->pc[ws->npc++] = p;
            }
            as += c;
            bs += c;
            len -= c;
        }
    }
    if ((rc = ndd_array_grow((void **)&ws->pcum, &ws->pcumcap, ws->npc + 1, sizeof *ws->pcum)))
        return rc;
    ws->pcum[0] = 0;
    for (size_t i = 0; i < ws->npc; i++)
        ws->pcum[i + 1] = ws->pcum[i] + ws->pc[i].len;
    /* insertions: the Y bytes between consecutive partners, at the X
     * boundary right after the previous matched byte */
    size_t **arr[2] = {&ws->ig, &ws->icum};
    if ((rc = tl_grow_parallel(arr, 2, &ws->inscap, ws->npc + 2)) || (rc = tl_free_gaps(ws, gmax)))
        return rc;
    ws->nins = 0;
    ws->icum[0] = 0;
    size_t gx = 0, gy = 0, fi = 0;
    for (size_t i = 0; i <= ws->npc; i++) {
        size_t ynext = i < ws->npc ? ws->pc[i].y : Y->cur;
        int gap_free;
        if (tl_walk) { /* tl_gap_free by a walk: the gaps' starts increase */
            gap_free = 0;
            if (i > 0 && i < ws->npc && ws->nfree) {
                size_t x = ws->pc[i - 1].x + ws->pc[i - 1].len;
                while (fi < ws->nfree && ws->fs[fi] < x)
                    fi++;
                gap_free = tl_gap_free_at(ws, i, fi, x);
            }
        } else {
            gap_free = tl_gap_free(ws, i);
        }
        if (ynext > gy && !gap_free) {
            ws->ig[ws->nins] = gx;
            ws->icum[ws->nins + 1] = ws->icum[ws->nins] + (ynext - gy);
            ws->nins++;
        }
        if (i < ws->npc) {
            gx = ws->pc[i].x + ws->pc[i].len;
            gy = ws->pc[i].y + ws->pc[i].len;
        }
    }
    return NDD_OK;
}

/* Shrinks [s, e) to its first and last matched X byte (it holds one). */
static void tl_trim(const ndd_tlcs_ws_t *ws, size_t *s, size_t *e)
{
    size_t lo = 0, hi = ws->npc; /* first piece ending after s */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ws->pc[mid].x + ws->pc[mid].len <= *s)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == ws->npc || ws->pc[lo].x >= *e)
        return;
    if (ws->pc[lo].x > *s)
        *s = ws->pc[lo].x;
    lo = 0;
    hi = ws->npc; /* pieces starting before e */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ws->pc[mid].x < *e)
            lo = mid + 1;
        else
            hi = mid;
    }
    const tl_piece_t *l = &ws->pc[lo - 1];
    if (l->x + l->len < *e)
        *e = l->x + l->len;
}

typedef struct tl_region {
    size_t s, e, tlcs;
} tl_region_t;

/* k = n / 32 rounded up to an even number, 2 .. 64: blocks of 32 bytes on
 * short documents (coarser blocks found no base region at all on 200-byte
 * wire stories whose headline and last line differ), n / 64 on long ones. */
static unsigned tl_auto_blocks(size_t n)
{
    size_t k = (n + 31) / 32;
    k += k & 1;
    if (k < 2)
        k = 2;
    if (k > 64)
        k = 64;
    return (unsigned)k;
}

/* Finds the trustable region along X; *found = 0 when there is none. */
static int tl_region(ndd_tlcs_ws_t *ws, const ndd_tlcs_params_t *p, tl_region_t *out, int *found)
{
    const size_t n = ws->d[0].cur, ny = ws->d[1].cur;
    *found = 0;
    if (n == 0 || ws->npc == 0)
        return NDD_OK;
    size_t k = p->blocks ? p->blocks : tl_auto_blocks(n);
    if (k > n)
        k = n;
    if (k + 1 > ws->bcap) {
        size_t c = ws->bcap ? ws->bcap : 64;
        while (c < k + 1)
            c *= 2;
        size_t **arr[5] = {&ws->bx, &ws->bm, &ws->bilt, &ws->bile, &ws->bf};
        for (int i = 0; i < 5; i++) {
            size_t *t = realloc(*arr[i], c * sizeof *t);
            if (!t)
                return NDD_ERR_NOMEM;
            *arr[i] = t;
        }
        ws->bcap = c;
    }
    if (tl_walk) {
        /* the boundaries increase: one walk over the pieces, insertion
         * boundaries and small substitutions gives what tl_m, tl_i and
         * tl_f would find by a search at each */
        size_t pi = 0, ii = 0, il = 0, fi = 0;
        for (size_t i = 0; i <= k; i++) {
            size_t x = (size_t)(((unsigned __int128)n * i) / k);
            ws->bx[i] = x;
            while (pi < ws->npc && ws->pc[pi].x < x)
                pi++;
            ws->bm[i] = tl_m_at(ws, pi, x);
            while (ii < ws->nins && ws->ig[ii] < x)
                ii++;
            while (il < ws->nins && ws->ig[il] <= x)
                il++;
            ws->bilt[i] = ws->icum[ii];
            ws->bile[i] = ws->icum[il];
            while (fi < ws->nfree && ws->fs[fi] < x)
                fi++;
            ws->bf[i] = tl_f_at(ws, fi, x);
        }
    } else {
        for (size_t i = 0; i <= k; i++) {
            size_t x = (size_t)(((unsigned __int128)n * i) / k);
            ws->bx[i] = x;
            ws->bm[i] = tl_m(ws, x);
            ws->bilt[i] = tl_i(ws, x, 0);
            ws->bile[i] = tl_i(ws, x, 1);
            ws->bf[i] = tl_f(ws, x);
        }
    }
    const size_t c0 = (k - 1) / 2, c1 = k / 2; /* the central block(s) */
    tl_band_t band = {ws->bx[c0], ws->bx[c1 + 1], (size_t)(((unsigned __int128)ny * c0) / k),
                      (size_t)(((unsigned __int128)ny * (c1 + 1)) / k), (ws->bx[c1 + 1] - ws->bx[c0] + 1) / 2,
                      ws->cuts, ws->ncuts};
    /* base regions: blocks i .. j-1 */
    size_t bestw = 0, bestn = 0, nties = 0;
    size_t ti[TL_MAX_TIES], tj[TL_MAX_TIES];
    for (size_t i = 0; i < k; i++) {
        if (tl_walk && ws->bm[k] - ws->bm[i] < bestw)
            continue; /* (w of every j below, bm being nondecreasing: each would be passed over) */
        for (size_t j = i + 1; j <= k; j++) {
            size_t s = ws->bx[i], e = ws->bx[j];
            size_t w = ws->bm[j] - ws->bm[i];
            if (w == 0 || w < bestw)
                continue;
            size_t fr = ws->bf[j] - ws->bf[i];
            size_t ops = (e - s) - w - fr + (ws->bilt[j] - ws->bile[i]);
            if (!tl_slope_ok(ops, fr, e - s, p))
                continue;
            size_t nb = j - i;
            if (w == bestw && nb > bestn)
                continue;
            if (!tl_central(ws, s, e, &band))
                continue;
            if (w > bestw || nb < bestn) {
                bestw = w;
                bestn = nb;
                nties = 0;
            }
            if (nties < TL_MAX_TIES) {
                ti[nties] = i;
                tj[nties] = j;
                nties++;
            }
        }
    }
    if (!nties)
        return NDD_OK;
    /* extend each tie into its neighbouring blocks, left then right, only
     * at offsets where the curve changes (piece starts / ends) */
    tl_region_t best = {0, 0, 0};
    for (size_t c = 0; c < nties; c++) {
        size_t s = ws->bx[ti[c]], e = ws->bx[tj[c]];
        if (ti[c] > 0) {
            size_t lim = ws->bx[ti[c] - 1], bs = s;
            if (tl_cont(ws, lim, e, p)) {
                bs = lim;
            } else {
                /* piece starts in (lim, s) */
                size_t lo = 0, hi = ws->npc;
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (ws->pc[mid].x <= lim)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                for (size_t q = lo; q < ws->npc && ws->pc[q].x < s; q++)
                    if (tl_cont(ws, ws->pc[q].x, e, p)) {
                        bs = ws->pc[q].x;
                        break; /* the first feasible is the smallest */
                    }
            }
            s = bs;
        }
        if (tj[c] < k) {
            size_t lim = ws->bx[tj[c] + 1], be = e;
            if (tl_cont(ws, s, lim, p)) {
                be = lim;
            } else {
                /* piece ends in (e, lim): scan from the right */
                size_t lo = 0, hi = ws->npc; /* pieces starting before lim */
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (ws->pc[mid].x < lim)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                for (size_t q = lo; q-- > 0;) {
                    size_t pe = ws->pc[q].x + ws->pc[q].len;
                    if (pe <= e)
                        break;
                    if (pe >= lim)
                        continue;
                    if (tl_cont(ws, s, pe, p)) {
                        be = pe;
                        break;
                    }
                }
            }
            e = be;
        }
        /* trim to the first and last matched byte: same TLCS, and the slope
         * only drops (the cut ends are deletions and slope <= threshold < 1) */
        tl_trim(ws, &s, &e);
        size_t tl = tl_m(ws, e) - tl_m(ws, s);
        if (e - s > best.e - best.s || (e - s == best.e - best.s && tl > best.tlcs))
            best = (tl_region_t){s, e, tl};
    }
    *out = best;
    *found = best.tlcs > 0;
    return NDD_OK;
}

/* Original offset of reduced X offset r (X lost the intervals ws->rem). */
static size_t tl_x_orig(const ndd_tlcs_ws_t *ws, size_t r)
{
    size_t o = r;
    for (size_t i = 0; i < ws->nrem; i++) {
        if (ws->rem[i].start <= o)
            o += ws->rem[i].end - ws->rem[i].start;
        else
            break;
    }
    return o;
}

/* Removes reduced [s, e) from X (sketch bytes, runs, length). */
static int tl_remove_x(ndd_tlcs_ws_t *ws, size_t s, size_t e)
{
    int rc;
    tl_doc_t *X = &ws->d[0];
    /* record the interval in original offsets, merged into the sorted list */
    tl_span_t iv = {tl_x_orig(ws, s), tl_x_orig(ws, e - 1) + 1};
    size_t w = 0;
    tl_span_t merged[NDD_TLCS_MAX_REGIONS + 1];
    int placed = 0;
    for (size_t i = 0; i < ws->nrem; i++) {
        tl_span_t r = ws->rem[i];
        if (r.end < iv.start) {
            merged[w++] = r;
        } else if (r.start > iv.end) {
            if (!placed) {
                merged[w++] = iv;
                placed = 1;
            }
            merged[w++] = r;
        } else { /* overlaps or touches: absorb */
            if (r.start < iv.start)
                iv.start = r.start;
            if (r.end > iv.end)
                iv.end = r.end;
        }
    }
    if (!placed)
        merged[w++] = iv;
    memcpy(ws->rem, merged, w * sizeof *merged);
    ws->nrem = w;

    /* cut points: those inside [s, e) collapse to s, later ones shift */
    for (size_t i = 0; i < ws->ncuts; i++)
        ws->cuts[i] = ws->cuts[i] >= e ? ws->cuts[i] - (e - s) : ws->cuts[i] > s ? s : ws->cuts[i];
    if (ws->ncuts < NDD_TLCS_MAX_REGIONS)
        ws->cuts[ws->ncuts++] = s;

    if ((rc = ndd_array_grow((void **)&X->tmp, &X->tmpcap, X->nruns + 1, sizeof *X->tmp)))
        return rc;
    size_t nr = 0, wb = 0, cut = e - s;
    for (size_t i = 0; i < X->nruns; i++) {
        tl_run_t r = X->runs[i];
        size_t rs = r.red, re = r.red + r.len;
        if (rs < s) { /* part before s */
            size_t pe = re < s ? re : s;
            memmove(X->bytes + wb, X->bytes + r.sk, pe - rs);
            X->tmp[nr++] = (tl_run_t){wb, rs, r.orig, pe - rs};
            wb += pe - rs;
        }
        if (re > e) { /* part after e, shifted */
            size_t ps = rs > e ? rs : e;
            memmove(X->bytes + wb, X->bytes + r.sk + (ps - rs), re - ps);
            X->tmp[nr++] = (tl_run_t){wb, ps - cut, r.orig + (ps - rs), re - ps};
            wb += re - ps;
        }
    }
    tl_run_t *t = X->runs;
    X->runs = X->tmp;
    X->tmp = t;
    size_t c = X->runcap;
    X->runcap = X->tmpcap;
    X->tmpcap = c;
    X->nruns = nr;
    X->len = wb;
    X->cur -= cut;
    return NDD_OK;
}

/* Removes the Y partners of the matched X bytes of [s, e) from Y. */
static int tl_remove_y(ndd_tlcs_ws_t *ws, size_t s, size_t e)
{
    int rc;
    tl_doc_t *Y = &ws->d[1];
    size_t nr = 0, total = 0;
    for (size_t i = 0; i < ws->npc; i++) {
        const tl_piece_t *p = &ws->pc[i];
        size_t ps = p->x > s ? p->x : s, pe = p->x + p->len < e ? p->x + p->len : e;
        if (ps >= pe)
            continue;
        if ((rc = ndd_array_grow((void **)&ws->yrem, &ws->yremcap, nr + 1, sizeof *ws->yrem)))
            return rc;
        ws->yrem[nr++] = (tl_span_t){p->y + (ps - p->x), p->y + (pe - p->x)};
        total += pe - ps;
    }
    if ((rc = ndd_array_grow((void **)&Y->tmp, &Y->tmpcap, Y->nruns + nr + 1, sizeof *Y->tmp)))
        return rc;
    size_t out = 0, wb = 0, shift = 0, ri = 0;
    for (size_t i = 0; i < Y->nruns; i++) {
        tl_run_t r = Y->runs[i];
        size_t pos = r.red, end = r.red + r.len;
        while (pos < end) {
            while (ri < nr && ws->yrem[ri].end <= pos) {
                shift += ws->yrem[ri].end - ws->yrem[ri].start;
                ri++;
            }
            if (ri < nr && ws->yrem[ri].start <= pos) {
                pos = ws->yrem[ri].end < end ? ws->yrem[ri].end : end;
                continue;
            }
            size_t cut = ri < nr && ws->yrem[ri].start < end ? ws->yrem[ri].start : end;
            size_t off = pos - r.red;
            memmove(Y->bytes + wb, Y->bytes + r.sk + off, cut - pos);
            Y->tmp[out++] = (tl_run_t){wb, pos - shift, r.orig + off, cut - pos};
            wb += cut - pos;
            pos = cut;
        }
    }
    tl_run_t *t = Y->runs;
    Y->runs = Y->tmp;
    Y->tmp = t;
    size_t c = Y->runcap;
    Y->runcap = Y->tmpcap;
    Y->tmpcap = c;
    Y->nruns = out;
    Y->len = wb;
    Y->cur -= total;
    return NDD_OK;
}

static int tl_passes(const ndd_tlcs_params_t *p, size_t t, size_t nx, size_t ny)
{
    double rs, cs;
    ndd_tlcs_scores(t, nx, ny, &rs, &cs);
    return ndd_tlcs_verdict(p, rs, cs);
}

/* The verdict grows with L (both scores are quotients that grow with it, in
 * floating point too), so the least passing L is guessed from the
 * thresholds' closed forms, L >= r (na + nb) / (1 + r) and L >= c min(na, nb)
 * (0 for a threshold <= 0; NaN, ignored by fmin, for one no length meets:
 * NaN or infinite), and moved to where the verdict itself turns: a step or
 * two for the rounding. */
size_t ndd_tlcs_need(const ndd_tlcs_params_t *p, size_t nx, size_t ny)
{
    size_t mn = nx < ny ? nx : ny;
    double r = p->min_resemblance, c = p->min_containment;
    double gr = r <= 0 ? 0 : ceil(r * ((double)nx + (double)ny) / (1 + r)), gc = c <= 0 ? 0 : ceil(c * (double)mn);
    double g = fmin(gr, gc);
    size_t t = isnan(g) || g > (double)mn ? mn + 1 : (size_t)g;
    while (t > 0 && tl_passes(p, t - 1, nx, ny))
        t--;
    while (t <= mn && !tl_passes(p, t, nx, ny))
        t++;
    return t;
}

static int tl_order; /* ndd_tlcs_bound_order */

int ndd_tlcs_bound_order(int order)
{
    int old = tl_order;
    tl_order = order;
    return old;
}

/* The anchor bound of ws->ax x ws->ay: 1 when it stops the pair (r says
 * so: pruned by the bound, lcs_upper the bound), 0 when not (r untouched),
 * <0 on error. */
static int tl_anchor_bound(ndd_tlcs_ws_t *ws, const ndd_tlcs_params_t *p, size_t nx, size_t ny, ndd_tlcs_result_t *r)
{
    size_t ua, ub;
    double ru, cu;
    int rc = ndd_anchors_bound(ws->ax, ws->ay, &ws->mark, &ws->mark_cap, ndd_tlcs_need(p, nx, ny), &ua, &ub);
    if (rc)
        return rc;
    ndd_tlcs_scores(ua < ub ? ua : ub, nx, ny, &ru, &cu);
    if (ndd_tlcs_verdict(p, ru, cu))
        return 0;
    r->lcs_upper = ua < ub ? ua : ub;
    r->pruned_by_bound = r->anchor_pruned = 1;
    return 1;
}

static int tl_run_pair(ndd_tlcs_ws_t *ws, const ndd_tlcs_params_t *p, const char *x, size_t nx,
                       const char *y, size_t ny, ndd_tlcs_result_t *r, tl_span_t *yspan)
{
    int rc, late_bound = 0;
    /* 1. sketches */
    if (p->exact) {
        ndd_sketch_run_t rx = {0, 0, nx}, ry = {0, 0, ny};
        if ((rc = tl_load(&ws->d[0], x, nx, &rx, nx ? 1 : 0, nx)) ||
            (rc = tl_load(&ws->d[1], y, ny, &ry, ny ? 1 : 0, ny)))
            return rc;
    } else {
        ndd_sketch_view_t vx, vy;
        /* the anchor bound (>= both sketch lengths) first, unless a sample of
         * the anchors says the pair is close: then its sketches are made
         * first, and the bound only when they stop the pair (step 2) */
        late_bound = ws->ax && ws->ay && (tl_order ? tl_order == 2 : ndd_anchors_likely_close(ws->ax, ws->ay));
        if (ws->ax && ws->ay && !late_bound && (rc = tl_anchor_bound(ws, p, nx, ny, r)))
            return rc < 0 ? rc : NDD_OK;
        if ((rc = ws->ax && ws->ay ? ndd_sketch_filter_anchored(ws->sk, x, nx, ws->ax, y, ny, ws->ay, p->window)
                                   : ndd_sketch_filter(ws->sk, x, nx, y, ny, p->window)))
            return rc;
        ndd_sketch_get(ws->sk, 0, &vx);
        ndd_sketch_get(ws->sk, 1, &vy);
        if ((rc = tl_load(&ws->d[0], vx.bytes, vx.len, vx.runs, vx.nruns, nx)) ||
            (rc = tl_load(&ws->d[1], vy.bytes, vy.len, vy.runs, vy.nruns, ny)))
            return rc;
    }
    r->sketch_a = ws->d[0].len;
    r->sketch_b = ws->d[1].len;
    r->strain_away = nx + ny ? 1.0 - (double)(r->sketch_a + r->sketch_b) / (double)(nx + ny) : 0.0;
    ws->nrem = 0;
    ws->ncuts = 0;

    /* 2. upper bound */
    r->lcs_upper = r->sketch_a < r->sketch_b ? r->sketch_a : r->sketch_b;
    double ru, cu;
    ndd_tlcs_scores(r->lcs_upper, nx, ny, &ru, &cu);
    if (!ndd_tlcs_verdict(p, ru, cu) && late_bound) {
        /* stopped: by the anchor bound, had it come first? Then the result
         * is that one's (no sketch lengths); else this one's (the bound
         * leaves r alone when it passes). When the sketches pass, the bound
         * (>= them) passes too: the order changes nothing */
        if ((rc = tl_anchor_bound(ws, p, nx, ny, r)) < 0)
            return rc;
        if (rc) {
            r->sketch_a = r->sketch_b = 0;
            r->strain_away = 0.0;
            return NDD_OK;
        }
    }
    if (!ndd_tlcs_verdict(p, ru, cu)) {
        r->pruned_by_bound = 1;
        return NDD_OK;
    }

    unsigned max_iter = p->max_iter ? p->max_iter : 1;
    if (max_iter > NDD_TLCS_MAX_REGIONS)
        max_iter = NDD_TLCS_MAX_REGIONS;
    for (unsigned it = 0; it < max_iter; it++) {
        tl_doc_t *X = &ws->d[0], *Y = &ws->d[1];
        if (X->len == 0 || Y->len == 0)
            break;
        /* 3. Myers on the sketches */
        size_t maxd = p->max_d ? p->max_d : ndd_myers_auto_limit(X->len + Y->len);
        ndd_myers_out_t mo;
        if ((rc = ndd_myers_diff(ws->my, X->bytes, X->len, Y->bytes, Y->len, maxd, &mo)))
            return rc;
        r->iterations++;
        if (it == 0) {
            r->lcs = mo.lcs;
            r->d = mo.d;
            r->max_d = maxd;
        }
        if (mo.hit_limit) {
            r->hit_cost_limit = 1;
            break;
        }
        /* 4. curve, 5. region */
        size_t gmax = 0;
        if (p->subst_share > 0) {
            gmax = p->subst_max ? p->subst_max : X->cur / 8;
            if (!p->subst_max && gmax < 4 * p->window)
                gmax = 4 * p->window;
        }
        if ((rc = tl_build_curve(ws, gmax)))
            return rc;
        tl_region_t reg;
        int found;
        if ((rc = tl_region(ws, p, &reg, &found)))
            return rc;
        if (!found || (it > 0 && reg.tlcs < p->min_iter_tlcs))
            break;
        ndd_tlcs_region_t *o = &r->regions[r->nregions];
        o->a_start = tl_x_orig(ws, reg.s);
        o->a_end = tl_x_orig(ws, reg.e - 1) + 1;
        /* partner span in original Y offsets: from the pieces */
        {
            size_t bs = SIZE_MAX, be = 0;
            for (size_t i = 0; i < ws->npc; i++) {
                const tl_piece_t *pp = &ws->pc[i];
                size_t ps = pp->x > reg.s ? pp->x : reg.s;
                size_t pe = pp->x + pp->len < reg.e ? pp->x + pp->len : reg.e;
                if (ps >= pe)
                    continue;
                size_t b0 = pp->yo + (ps - pp->x), b1 = pp->yo + (pe - pp->x);
                if (b0 < bs)
                    bs = b0;
                if (b1 > be)
                    be = b1;
            }
            yspan[r->nregions] = (tl_span_t){bs, be};
        }
        o->tlcs = reg.tlcs;
        r->nregions++;
        r->tlcs += reg.tlcs;
        /* 6. iterate on the rest */
        if (it + 1 < max_iter) {
            if ((rc = tl_remove_y(ws, reg.s, reg.e)) || (rc = tl_remove_x(ws, reg.s, reg.e)))
                return rc;
        }
    }
    return NDD_OK;
}

int ndd_tlcs_compare(ndd_tlcs_ws_t *ws, const ndd_tlcs_params_t *p, const char *a, size_t na,
                     const char *b, size_t nb, ndd_tlcs_result_t *r)
{
    int rc;
    const ndd_anchors_t *pa = ws ? ws->anc[0] : NULL, *pb = ws ? ws->anc[1] : NULL;
    if (ws)
        ws->anc[0] = ws->anc[1] = NULL; /* for this call only, whatever happens */
    if (!ws || !p || !r || (!a && na) || (!b && nb) || p->window == 0 || !(p->slope >= 0) ||
        isnan(p->min_resemblance) || isnan(p->min_containment))
        return NDD_ERR_INVAL;
    if (na >= UINT32_MAX || nb >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    memset(r, 0, sizeof *r);
    r->len_a = na;
    r->len_b = nb;
    r->reserve = -1.0;
    if (na == 0 || nb == 0)
        return NDD_OK;

    /* X = the shorter document (ties: the lexicographically smaller) */
    int swap = nb < na || (na == nb && memcmp(b, a, na) < 0);
    const char *x = swap ? b : a, *y = swap ? a : b;
    size_t nx = swap ? nb : na, ny = swap ? na : nb;
    tl_span_t yspan[NDD_TLCS_MAX_REGIONS];
    ws->ax = swap ? pb : pa;
    ws->ay = swap ? pa : pb;
    rc = tl_run_pair(ws, p, x, nx, y, ny, r, yspan);
    ws->ax = ws->ay = NULL;
    if (rc)
        return rc;
    for (unsigned i = 0; i < r->nregions; i++) {
        ndd_tlcs_region_t *g = &r->regions[i];
        size_t xs = g->a_start, xe = g->a_end;
        if (swap) {
            g->a_start = yspan[i].start;
            g->a_end = yspan[i].end;
            g->b_start = xs;
            g->b_end = xe;
        } else {
            g->b_start = yspan[i].start;
            g->b_end = yspan[i].end;
        }
    }
    if (swap) {
        size_t t = r->sketch_a;
        r->sketch_a = r->sketch_b;
        r->sketch_b = t;
    }
    r->len_a = na;
    r->len_b = nb;
    ndd_tlcs_scores(r->tlcs, na, nb, &r->resemblance, &r->containment);
    r->duplicate = !r->pruned_by_bound && !(r->hit_cost_limit && r->iterations == 1) &&
                   ndd_tlcs_verdict(p, r->resemblance, r->containment);

    if (p->reserve && !p->exact && !r->pruned_by_bound) {
        ndd_tlcs_params_t pe = *p;
        pe.exact = 1;
        pe.reserve = 0;
        ndd_tlcs_result_t re;
        if ((rc = ndd_tlcs_compare(ws, &pe, a, na, b, nb, &re)))
            return rc;
        if (re.tlcs > 0 && !re.hit_cost_limit)
            r->reserve = (double)r->tlcs / (double)re.tlcs;
    }
    return NDD_OK;
}
