/* ncd_allpairs.c - all-pairs SigNCD over a list sorted by C(sig), with the
 * exact P1 matching partitions and the P2 triangle-inequality pruning
 * (paper 000, section 4.2 and Algorithm 1, without its heuristic "checked"
 * set, so that every pair with NCD <= tau is returned). */
#include "ndd_ncd.h"

#include <math.h>
#include <stdlib.h>

void ndd_ncd_allpairs_opts_default(ndd_ncd_allpairs_opts_t *o)
{
    o->tau = NDD_NCD_DEFAULT_TAU;
    o->p1 = 1;
    o->p2 = 0;
    o->p2_block = NDD_NCD_DEFAULT_P2_BLOCK;
    o->p2_slack = NDD_NCD_DEFAULT_P2_SLACK;
}

void ndd_ncd_hits_free(ndd_ncd_hits_t *h)
{
    if (!h)
        return;
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

static int ncd_item_cmp(const void *pa, const void *pb)
{
    const ndd_ncd_item_t *a = pa, *b = pb;
    if (a->csize != b->csize)
        return a->csize < b->csize ? -1 : 1;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return 0;
}

void ndd_ncd_sort(ndd_ncd_item_t *items, size_t n)
{
    if (n > 1)
        qsort(items, n, sizeof *items, ncd_item_cmp);
}

/* The P1 lower bound of NCD(x, y) for C(x) = ci <= C(y) = cj, computed with
 * the same floating-point operations as ndd_ncd_value: since C'(xy) >= cj,
 * the computed NCD is >= this computed bound (division is monotone). */
static double ncd_p1_bound(size_t ci, size_t cj)
{
    if (cj == 0)
        return 0.0;
    return (double)(cj - ci) / (double)cj;
}

size_t ndd_ncd_p1_end(const ndd_ncd_item_t *sorted, size_t n, size_t i, double tau)
{
    /* the bound is non-decreasing in C_j: binary search for the first j > i
     * with bound > tau */
    size_t lo = i + 1, hi = n;
    size_t ci = sorted[i].csize;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ncd_p1_bound(ci, sorted[mid].csize) > tau)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static int ncd_hit_push(ndd_ncd_hits_t *h, uint64_t a, uint64_t b, double v)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 256;
        ndd_ncd_hit_t *p = realloc(h->v, cap * sizeof *p);
        if (!p)
            return NDD_ERR_NOMEM;
        h->v = p;
        h->cap = cap;
    }
    h->v[h->n].a = a;
    h->v[h->n].b = b;
    h->v[h->n].ncd = v;
    h->n++;
    return NDD_OK;
}

typedef struct ncd_pivot {
    const double *row; /* distances of pivot row k, indexed by column j */
    double d;          /* NCD(k, i) */
} ncd_pivot_t;

int ndd_ncd_allpairs(ndd_ncd_ctx_t *c, const ndd_ncd_item_t *sorted, size_t n,
                     size_t row_lo, size_t row_hi, const ndd_ncd_allpairs_opts_t *o,
                     ndd_ncd_hits_t *hits, ndd_ncd_stats_t *st)
{
    ndd_ncd_allpairs_opts_t def;
    ndd_ncd_stats_t s = {0, 0, 0, 0, 0};
    double *dist = NULL;     /* p2: block rows x n distances, < 0 = unknown */
    ncd_pivot_t *piv = NULL; /* p2: pivots of the current row */
    size_t B = 0;
    int rc = NDD_OK;
    if (!o) {
        ndd_ncd_allpairs_opts_default(&def);
        o = &def;
    }
    if (!c || !hits || (!sorted && n) || row_lo > row_hi || row_hi > n || !(o->tau >= 0.0))
        return NDD_ERR_INVAL;
    if (o->p2) {
        B = o->p2_block;
        if (B == 0 || row_lo % B != 0 || !(o->p2_slack >= 0.0))
            return NDD_ERR_INVAL;
        size_t rows = row_hi - row_lo < B ? row_hi - row_lo : B;
        if (rows && n > SIZE_MAX / sizeof(double) / rows)
            return NDD_ERR_NOMEM;
        dist = malloc((rows ? rows : 1) * (n ? n : 1) * sizeof *dist);
        piv = malloc((rows ? rows : 1) * sizeof *piv);
        if (!dist || !piv) {
            rc = NDD_ERR_NOMEM;
            goto out;
        }
    }
    const double p2_limit = o->tau + o->p2_slack;
    for (size_t i = row_lo; i < row_hi; i++) {
        const ndd_ncd_item_t *x = &sorted[i];
        size_t m = o->p1 ? ndd_ncd_p1_end(sorted, n, i, o->tau) : n;
        size_t npiv = 0;
        double *drow = NULL;
        s.pairs += n - i - 1;
        s.pruned_p1 += n - m;
        if (o->p2) {
            size_t base = i - i % B, r = i - base;
            drow = dist + r * n;
            for (size_t j = i + 1; j < n; j++)
                drow[j] = -1.0;
            for (size_t k = 0; k < r; k++) {
                const double *krow = dist + k * n;
                if (krow[i] >= 0.0) {
                    piv[npiv].row = krow;
                    piv[npiv].d = krow[i];
                    npiv++;
                }
            }
        }
        for (size_t j = i + 1; j < m; j++) {
            const ndd_ncd_item_t *y = &sorted[j];
            if (npiv) {
                size_t p;
                for (p = 0; p < npiv; p++) {
                    double dkj = piv[p].row[j];
                    if (dkj >= 0.0 && fabs(piv[p].d - dkj) > p2_limit)
                        break;
                }
                if (p < npiv) {
                    s.pruned_p2++;
                    continue;
                }
            }
            double v;
            if ((rc = ndd_ncd_pair(c, x->s, x->len, x->csize, y->s, y->len, y->csize, &v, NULL)))
                goto out;
            s.compared++;
            if (drow)
                drow[j] = v;
            if (v <= o->tau) {
                if ((rc = ncd_hit_push(hits, i, j, v)))
                    goto out;
                s.found++;
            }
        }
    }
out:
    if (st) {
        st->pairs += s.pairs;
        st->compared += s.compared;
        st->pruned_p1 += s.pruned_p1;
        st->pruned_p2 += s.pruned_p2;
        st->found += s.found;
    }
    free(dist);
    free(piv);
    return rc;
}

int ndd_ncd_split(const ndd_ncd_item_t *sorted, size_t n, const ndd_ncd_allpairs_opts_t *o,
                  size_t nparts, size_t part, size_t *lo, size_t *hi)
{
    ndd_ncd_allpairs_opts_t def;
    if (!o) {
        ndd_ncd_allpairs_opts_default(&def);
        o = &def;
    }
    if (!lo || !hi || nparts == 0 || part >= nparts || (!sorted && n) || (o->p2 && o->p2_block == 0))
        return NDD_ERR_INVAL;
    size_t g = o->p2 ? o->p2_block : 1;
    size_t nb = (n + g - 1) / g;
    /* total weight: pairs inside the matching partitions, plus one per row */
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += (uint64_t)((o->p1 ? ndd_ncd_p1_end(sorted, n, i, o->tau) : n) - i);
    /* boundary(p) = first block b whose cumulative weight before it reaches
     * p * total / nparts (as a long double: no overflow) */
    long double want_lo = (long double)total * part / nparts;
    long double want_hi = (long double)total * (part + 1) / nparts;
    size_t b_lo = nb, b_hi = nb;
    uint64_t cum = 0;
    for (size_t b = 0; b <= nb; b++) {
        if (b_lo == nb && (long double)cum >= want_lo)
            b_lo = b;
        if (part + 1 < nparts && b_hi == nb && (long double)cum >= want_hi)
            b_hi = b;
        if (b == nb)
            break;
        size_t e = (b + 1) * g < n ? (b + 1) * g : n;
        for (size_t i = b * g; i < e; i++)
            cum += (uint64_t)((o->p1 ? ndd_ncd_p1_end(sorted, n, i, o->tau) : n) - i);
    }
    if (part == 0)
        b_lo = 0;
    if (part + 1 == nparts)
        b_hi = nb;
    *lo = b_lo * g < n ? b_lo * g : n;
    *hi = b_hi * g < n ? b_hi * g : n;
    if (*hi < *lo)
        *hi = *lo;
    return NDD_OK;
}
