/* base_simhash.c - SimHash (Charikar; paper 001's variant over word
 * 3-shingles with TF-IDF weights) and Manku et al.'s permuted-table keys
 * (pigeonhole over t blocks: fingerprints within Hamming k agree exactly on at
 * least t - k blocks), plus MinHash over word shingles. */
#include "base_internal.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

static int cmp_hw(const void *x, const void *y)
{
    const base_hw_t *a = x, *b = y;
    return (a->h > b->h) - (a->h < b->h);
}

int base_simhash_fp(ndd_method_ctx_t *c, const char *text, size_t n, uint64_t *fp, int *has)
{
    size_t m = 0, span, nsh;
    double v[64] = {0};
    uint64_t out = 0;
    int rc;
    *fp = 0;
    *has = 0;
    if (!c->df)
        return NDD_ERR_INVAL;
    if ((rc = base_tok_run(&c->tok, text, n)))
        return rc;
    if ((rc = base_grow((void **)&c->tmp, &c->tmpcap, c->tok.n + 1, sizeof *c->tmp)) ||
        (rc = base_grow((void **)&c->wd, &c->wdcap, c->tok.n + 1, sizeof *c->wd)) ||
        (rc = base_grow((void **)&c->hw, &c->hwcap, c->tok.n + 1, sizeof *c->hw)))
        return rc;
    /* paper 001 step 1: stopwords removed; weights: smoothed idf per word */
    for (size_t i = 0; i < c->tok.n; i++) {
        if (base_words_kind(&c->words, c->tok.h[i]) & BASE_STOP)
            continue;
        c->tmp[m] = c->tok.h[i];
        c->wd[m] = base_idf_smooth(c->df, c->tok.h[i]);
        m++;
    }
    if (m == 0)
        return NDD_OK;
    span = m < c->p.shingle ? m : c->p.shingle;
    nsh = m - span + 1;
    for (size_t i = 0; i < nsh; i++) {
        double w = 0.0;
        for (size_t j = 0; j < span; j++)
            w += c->wd[i + j];
        c->hw[i].h = XXH3_64bits(c->tmp + i, span * sizeof *c->tmp);
        c->hw[i].w = w / (double)span; /* mean idf of the shingle's words */
    }
    /* sorted, so the sums are formed in one order whatever the text order */
    if (nsh > 1)
        qsort(c->hw, nsh, sizeof *c->hw, cmp_hw);
    for (size_t i = 0; i < nsh;) {
        uint64_t h = c->hw[i].h;
        double w = 0.0;
        for (; i < nsh && c->hw[i].h == h; i++)
            w += c->hw[i].w; /* tf x mean idf */
        for (int b = 0; b < 64; b++)
            v[b] += ((h >> b) & 1) ? w : -w;
    }
    for (int b = 0; b < 64; b++)
        if (v[b] > 0.0)
            out |= (uint64_t)1 << b;
    *fp = out;
    *has = 1;
    return NDD_OK;
}

int ndd_simhash_fingerprint(ndd_method_ctx_t *c, const char *text, size_t n, uint64_t *fp, int *has)
{
    if (!c || !fp || !has || (n && !text))
        return NDD_ERR_INVAL;
    return base_simhash_fp(c, text, n, fp, has);
}

int ndd_simhash_fp_keys(const ndd_method_params_t *p, uint64_t fp, uint64_t *keys, size_t cap, size_t *nkeys)
{
    unsigned t, r, idx[64];
    uint64_t bmask[64];
    size_t nk = ndd_simhash_nkeys(p), ci = 0;
    if (!nkeys || !keys || nk == 0 || cap < nk)
        return NDD_ERR_INVAL;
    t = p->simhash_blocks;
    r = t - p->simhash_k; /* blocks that must agree */
    for (unsigned b = 0; b < t; b++) {
        unsigned lo = b * 64 / t, hi = (b + 1) * 64 / t;
        bmask[b] = (hi - lo == 64) ? ~(uint64_t)0 : (((uint64_t)1 << (hi - lo)) - 1) << lo;
    }
    for (unsigned i = 0; i < r; i++)
        idx[i] = i;
    for (;;) {
        uint64_t m = 0;
        for (unsigned i = 0; i < r; i++)
            m |= bmask[idx[i]];
        /* the combination's number makes keys of different tables distinct */
        keys[ci] = base_hash2(fp & m, ((uint64_t)t << 48) | ((uint64_t)p->simhash_k << 40) | ci);
        ci++;
        /* next combination of r out of t in lexicographic order */
        {
            int i = (int)r - 1;
            while (i >= 0 && idx[i] == t - r + (unsigned)i)
                i--;
            if (i < 0)
                break;
            idx[i]++;
            for (unsigned j = (unsigned)i + 1; j < r; j++)
                idx[j] = idx[j - 1] + 1;
        }
    }
    base_sort_u64(keys, ci);
    *nkeys = base_unique_u64(keys, ci);
    return NDD_OK;
}

/* ---- MinHash ---- */

int base_shingle_set(ndd_method_ctx_t *c, base_slot_t *s, const char *text, size_t n)
{
    size_t m, span, nsh;
    int rc;
    s->n = 0;
    if ((rc = base_tok_run(&c->tok, text, n)))
        return rc;
    m = c->tok.n;
    if (m == 0)
        return NDD_OK;
    span = m < c->p.shingle ? m : c->p.shingle;
    nsh = m - span + 1;
    if ((rc = base_grow((void **)&s->h, &s->hcap, nsh, sizeof *s->h)))
        return rc;
    for (size_t i = 0; i < nsh; i++)
        s->h[i] = XXH3_64bits(c->tok.h + i, span * sizeof *c->tok.h);
    base_sort_u64(s->h, nsh);
    s->n = base_unique_u64(s->h, nsh);
    return NDD_OK;
}

int ndd_minhash_shingles(ndd_method_ctx_t *c, const char *text, size_t n, const uint64_t **set, size_t *nset)
{
    int rc;
    if (!c || !set || !nset || (n && !text))
        return NDD_ERR_INVAL;
    if ((rc = base_shingle_set(c, &c->slot[0], text, n)))
        return rc;
    *set = c->slot[0].h;
    *nset = c->slot[0].n;
    return NDD_OK;
}

void ndd_minhash_of_set(const ndd_method_params_t *p, const uint64_t *set, size_t n, uint64_t *sig)
{
    size_t m = (size_t)p->bands * p->rows;
    uint64_t seeds[1024];
    if (m > 1024)
        m = 1024;
    for (size_t i = 0; i < m; i++) {
        seeds[i] = base_mix64(p->seed + (i + 1) * 0x9e3779b97f4a7c15ULL);
        sig[i] = UINT64_MAX;
    }
    /* h_i(x) = mix(x ^ seed_i): a different bijection of the 64-bit hashes per i */
    for (size_t j = 0; j < n; j++) {
        uint64_t x = set[j];
        for (size_t i = 0; i < m; i++) {
            uint64_t v = base_mix64(x ^ seeds[i]);
            if (v < sig[i])
                sig[i] = v;
        }
    }
}

double ndd_minhash_estimate(const uint64_t *a, const uint64_t *b, size_t m)
{
    size_t eq = 0;
    if (m == 0)
        return 0.0;
    for (size_t i = 0; i < m; i++)
        eq += a[i] == b[i];
    return (double)eq / (double)m;
}

double ndd_jaccard_sets(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    size_t i = 0, j = 0, inter = 0;
    if (na + nb == 0)
        return 0.0;
    while (i < na && j < nb) {
        if (a[i] < b[j])
            i++;
        else if (a[i] > b[j])
            j++;
        else {
            inter++;
            i++;
            j++;
        }
    }
    return (double)inter / (double)(na + nb - inter);
}
