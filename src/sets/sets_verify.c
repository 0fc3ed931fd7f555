/* sets_verify.c - one set's verification schedule, its clusters and the
 * keep rule; the largest sets (see ndd_sets.h). */
#include "ndd_sets.h"

#include <string.h>

/* (size desc, label asc) */
static int top_before(const ndd_topset_t *x, const ndd_topset_t *y)
{
    return x->size != y->size ? x->size > y->size : x->label < y->label;
}

void ndd_topsets_note(ndd_topsets_t *t, uint64_t size, uint64_t label, const char *id, size_t idlen)
{
    if (t->n == NDD_TOP_N && size <= t->v[NDD_TOP_N - 1].size)
        return;
    ndd_topset_t x = {size, label, {0}};
    size_t n = idlen < sizeof x.first_id - 1 ? idlen : sizeof x.first_id - 1;
    memcpy(x.first_id, id, n);
    size_t pos = t->n < NDD_TOP_N ? t->n++ : NDD_TOP_N - 1;
    t->v[pos] = x;
    while (pos > 0 && top_before(&t->v[pos], &t->v[pos - 1])) {
        ndd_topset_t s = t->v[pos];
        t->v[pos] = t->v[pos - 1];
        t->v[pos - 1] = s;
        pos--;
    }
}

void ndd_topsets_merge(ndd_topsets_t *t, const ndd_topset_t *v, size_t n)
{
    /* insertion into the sorted list t (v in any order) */
    for (size_t i = 0; i < n; i++) {
        if (t->n == NDD_TOP_N && !top_before(&v[i], &t->v[NDD_TOP_N - 1]))
            continue;
        size_t pos = t->n < NDD_TOP_N ? t->n++ : NDD_TOP_N - 1;
        t->v[pos] = v[i];
        while (pos > 0 && top_before(&t->v[pos], &t->v[pos - 1])) {
            ndd_topset_t s = t->v[pos];
            t->v[pos] = t->v[pos - 1];
            t->v[pos - 1] = s;
            pos--;
        }
    }
}

int ndd_topsets_pack(const ndd_topsets_t *t, ndd_buf_t *out)
{
    size_t n = t->n < NDD_TOP_N ? t->n : NDD_TOP_N;
    int rc = ndd_put32(out, (uint32_t)n);
    for (size_t k = 0; k < n && !rc; k++) {
        const ndd_topset_t *x = &t->v[k];
        if (!(rc = ndd_put64(out, x->size)) && !(rc = ndd_put64(out, x->label)))
            rc = ndd_putstr(out, x->first_id, strnlen(x->first_id, sizeof x->first_id - 1));
    }
    return rc;
}

int ndd_topsets_unpack(ndd_cur_t *c, ndd_topset_t *v, size_t *n)
{
    uint32_t nt = ndd_get32(c);
    if (c->bad || nt > NDD_TOP_N)
        return NDD_ERR_FORMAT;
    for (uint32_t k = 0; k < nt; k++) {
        memset(&v[k], 0, sizeof v[k]);
        v[k].size = ndd_get64(c);
        v[k].label = ndd_get64(c);
        uint32_t l = ndd_get32(c);
        const char *id = !c->bad && l < sizeof v[k].first_id ? ndd_getbytes(c, l) : NULL;
        if (!id)
            return NDD_ERR_FORMAT;
        memcpy(v[k].first_id, id, l);
    }
    *n = nt;
    return NDD_OK;
}

/* Clusters of the accepted pairs (followers joined to their
 * representatives): root = first member, kept = longest text (ties: first)
 * or the root, never a follower; hooks->member for every member of a cluster. */
static int set_clusters(ndd_uf_t *uf, size_t n, size_t nf, const size_t *lens, int keep_longest,
                        const ndd_set_hooks_t *h, ndd_counters_t *c)
{
    size_t all = n + nf;
    uint32_t *csize = calloc(all, sizeof *csize), *creal = calloc(all, sizeof *creal);
    uint32_t *keep = malloc(all * sizeof *keep);
    int rc = !csize || !creal || !keep ? NDD_ERR_NOMEM : NDD_OK;
    for (size_t i = 0; i < all && !rc; i++) {
        uint32_t root = ndd_uf_find(uf, (uint32_t)i);
        creal[root] += i < n;
        if (!csize[root]++)
            keep[root] = root;
        else if (keep_longest && i < n && lens[i] > lens[keep[root]])
            keep[root] = (uint32_t)i;
    }
    for (size_t i = 0; i < all && !rc; i++) {
        uint32_t root = ndd_uf_find(uf, (uint32_t)i);
        if (csize[root] < 2)
            continue;
        int kept = keep[root] == i;
        c->clusters += root == i;
        c->docs_in_clusters++;
        c->docs_removed += !kept;
        c->docs_removed_exact += i >= n;
        c->docs_removed_near += !kept && i < n;
        c->docs_in_near_clusters += i < n && creal[root] >= 2;
        rc = h->member(h->user, (uint32_t)i, root, kept);
    }
    free(csize);
    free(creal);
    free(keep);
    return rc;
}

int ndd_set_verify(const ndd_cand_t *cand, size_t nc, size_t n, const char *const *texts, const size_t *lens,
                   const uint32_t *fol_rep, size_t nf, int verify_all, int keep_longest, const ndd_set_hooks_t *h,
                   ndd_counters_t *c)
{
    ndd_uf_t uf = {0};
    int rc = n + nf > UINT32_MAX ? NDD_ERR_LIMIT : ndd_uf_init(&uf, n + nf);
    for (size_t k = 0; k < nf && !rc; k++)
        if (fol_rep[k] >= n)
            rc = NDD_ERR_INVAL;
    for (size_t q = 0; q < nc && !rc; q++) {
        uint32_t i = cand[q].i, j = cand[q].j;
        ndd_vres_t v;
        if (!verify_all && ndd_uf_find(&uf, i) == ndd_uf_find(&uf, j)) {
            c->pairs_skipped_joined++;
            continue;
        }
        if (h->load && (rc = h->load(h->user, i, j)))
            break;
        if (lens[i] == lens[j] && !memcmp(texts[i], texts[j], lens[i])) {
            h->identical(h->user, i, j, &v);
            c->pairs_exact++;
        } else {
            if ((rc = h->pair(h->user, i, j, &v)))
                break;
            c->pairs_verified++;
            c->pairs_pruned_bound += (uint64_t)v.pruned_by_bound;
            c->pairs_formulaic += (uint64_t)v.formulaic;
            c->pairs_cost_limit += (uint64_t)v.hit_cost_limit;
        }
        if ((rc = h->scored(h->user, i, j, &v)) || !v.duplicate)
            continue;
        c->pairs_accepted++;
        ndd_uf_union(&uf, i, j);
    }
    for (size_t k = 0; k < nf && !rc; k++) {
        ndd_vres_t v;
        uint32_t i = fol_rep[k], j = (uint32_t)(n + k);
        h->identical(h->user, i, j, &v);
        rc = h->scored(h->user, i, j, &v);
        ndd_uf_union(&uf, i, j);
    }
    if (!rc)
        rc = set_clusters(&uf, n, nf, lens, keep_longest, h, c);
    ndd_uf_free(&uf);
    return rc;
}

/* ---- exact duplicates ---- */

typedef struct {
    uint64_t hi, lo, g;
    size_t k;
} exact_ord_t;

static int cmp_exact(const void *a, const void *b)
{
    const exact_ord_t *x = a, *y = b;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->g < y->g ? -1 : x->g > y->g;
}

int ndd_exact_reps(const ndd_exact_rec_t *v, size_t n, uint64_t *rep, uint64_t *groups, uint64_t *followers)
{
    exact_ord_t *o = malloc((n ? n : 1) * sizeof *o);
    if (!o)
        return NDD_ERR_NOMEM;
    for (size_t k = 0; k < n; k++)
        o[k] = (exact_ord_t){v[k].hi, v[k].lo, v[k].g, k};
    ndd_qsort(o, n, sizeof *o, cmp_exact);
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && o[b].hi == o[a].hi && o[b].lo == o[a].lo)
            b++;
        rep[o[a].k] = o[a].g | (b - a > 1 ? NDD_EXACT_LEADS : 0);
        for (size_t t = a + 1; t < b; t++)
            rep[o[t].k] = o[a].g;
        if (b - a > 1) {
            *groups += 1;
            *followers += b - a - 1;
        }
        a = b;
    }
    free(o);
    return NDD_OK;
}
