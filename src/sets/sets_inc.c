/* sets_inc.c - incremental links of an index batch (see ndd_sets.h): the
 * links of the lists a batch changes, after minus before, and their sum
 * with the index's links. Tested against ndd_sets_links_from_postings over
 * the lists before and after (tests/unit/test_sets.c). */
#include "ndd_sets.h"

#include <stdlib.h>
#include <string.h>

void ndd_list_counts_get(const ndd_counters_t *c, ndd_list_counts_t *x)
{
    *x = (ndd_list_counts_t){c->keys_distinct,          c->postings_single,    c->lists_live,
                             c->lists_dropped_frequent, c->lists_dropped_site, c->lists_dropped_template,
                             c->postings_dropped};
}

void ndd_list_counts_plus(ndd_list_counts_t *a, const ndd_list_counts_t *b)
{
    a->keys += b->keys;
    a->single += b->single;
    a->live += b->live;
    a->drop_frequent += b->drop_frequent;
    a->drop_site += b->drop_site;
    a->drop_template += b->drop_template;
    a->postings_dropped += b->postings_dropped;
}

void ndd_list_counts_add(ndd_counters_t *c, const ndd_list_counts_t *x)
{
    c->keys_distinct += x->keys;
    c->postings_single += x->single;
    c->lists_live += x->live;
    c->lists_dropped_frequent += x->drop_frequent;
    c->lists_dropped_site += x->drop_site;
    c->lists_dropped_template += x->drop_template;
    c->postings_dropped += x->postings_dropped;
}

/* One list's class, counted in d with `one` (1 or 2^64 - 1); *rep its
 * representative when live. An empty list is no list: not counted. */
static ndd_list_kind_t kind_of(const ndd_posting_t *p, size_t n, const ndd_postings_params_t *pp,
                               uint64_t *scratch, uint64_t one, ndd_list_counts_t *d, size_t *rep)
{
    if (!n)
        return NDD_LIST_SINGLE;
    d->keys += one;
    ndd_list_kind_t kind = ndd_postings_classify(p, n, pp, scratch);
    if (kind == NDD_LIST_SINGLE) {
        d->single += one;
    } else if (kind == NDD_LIST_LIVE) {
        d->live += one;
        *rep = ndd_postings_representative(p, n);
    } else {
        if (kind == NDD_LIST_DROP_FREQUENT)
            d->drop_frequent += one;
        else if (kind == NDD_LIST_DROP_SITE)
            d->drop_site += one;
        else
            d->drop_template += one;
        d->postings_dropped += one * (uint64_t)n;
    }
    return kind;
}

/* The links of p[0..n)'s members but p[skip] to document v, support one. */
static int add_links(const ndd_posting_t *p, size_t n, size_t skip, uint64_t v, uint64_t one, ndd_links_t *l)
{
    int rc = ndd_array_grow((void **)&l->v, &l->cap, l->n + n, sizeof *l->v);
    for (size_t x = 0; x < n && !rc; x++)
        if (x != skip) {
            uint64_t u = p[x].doc;
            l->v[l->n++] = (ndd_link_t){u < v ? u : v, u < v ? v : u, one};
        }
    return rc;
}

/* out = the unflagged postings of one key's p[0..n) with those flagged
 * `flag`, flags cleared, in document order, a document once. p is sorted by
 * doc with its flags: the unflagged first, then NDD_POST_NEW, then
 * NDD_POST_OLD, each run in document order. */
static size_t side(const ndd_posting_t *p, size_t n, uint64_t flag, ndd_posting_t *out)
{
    const uint64_t both = NDD_POST_OLD | NDD_POST_NEW;
    size_t a = 0, ea = 0, b, eb, m = 0;
    while (ea < n && !(p[ea].doc & both))
        ea++;
    for (b = ea; b < n && (p[b].doc & both) != flag; b++)
        ;
    for (eb = b; eb < n && (p[eb].doc & both) == flag; eb++)
        ;
    while (a < ea || b < eb) {
        ndd_posting_t x = b == eb || (a < ea && p[a].doc < (p[b].doc & NDD_POST_DOC)) ? p[a++] : p[b++];
        x.doc &= NDD_POST_DOC;
        if (!m || out[m - 1].doc != x.doc)
            out[m++] = x;
    }
    return m;
}

/* One touched list: its links after minus before. */
static int list_diff(const ndd_posting_t *ol, size_t no, const ndd_posting_t *nl, size_t nn,
                     const ndd_postings_params_t *pp, uint64_t *scratch, ndd_list_counts_t *d, ndd_links_t *diff,
                     int *dropped)
{
    size_t ro = 0, rn = 0;
    ndd_list_kind_t ko = kind_of(ol, no, pp, scratch, UINT64_MAX, d, &ro);
    ndd_list_kind_t kn = kind_of(nl, nn, pp, scratch, 1, d, &rn);
    int rc = NDD_OK;
    *dropped = nn && kn != NDD_LIST_SINGLE && kn != NDD_LIST_LIVE;
    if (ko == NDD_LIST_LIVE && kn == NDD_LIST_LIVE && ol[ro].doc == nl[rn].doc) {
        /* one representative: the links of the members both lists hold cancel */
        uint64_t v = nl[rn].doc;
        for (size_t i = 0, j = 0; !rc && (i < no || j < nn);) {
            if (j == nn || (i < no && ol[i].doc < nl[j].doc)) { /* went */
                rc = add_links(ol + i, 1, ol[i].doc == v ? 0 : 1, v, UINT64_MAX, diff);
                i++;
            } else if (i == no || nl[j].doc < ol[i].doc) { /* came */
                rc = add_links(nl + j, 1, nl[j].doc == v ? 0 : 1, v, 1, diff);
                j++;
            } else {
                i++;
                j++;
            }
        }
        return rc;
    }
    if (ko == NDD_LIST_LIVE)
        rc = add_links(ol, no, ro, ol[ro].doc, UINT64_MAX, diff);
    if (!rc && kn == NDD_LIST_LIVE)
        rc = add_links(nl, nn, rn, nl[rn].doc, 1, diff);
    return rc;
}

int ndd_sets_links_diff(const ndd_posting_t *post, size_t np, const ndd_postings_params_t *pp, ndd_links_t *diff,
                        ndd_list_counts_t *d, ndd_u64s_t *touched, ndd_u64s_t *dropped)
{
    const uint64_t both = NDD_POST_OLD | NDD_POST_NEW;
    size_t longest = 1;
    for (size_t a = 0, b; a < np; a = b) {
        for (b = a + 1; b < np && post[b].key == post[a].key; b++)
            ;
        longest = b - a > longest ? b - a : longest;
    }
    uint64_t *scratch = malloc(longest * sizeof *scratch);
    ndd_posting_t *ol = malloc(longest * sizeof *ol), *nl = malloc(longest * sizeof *nl);
    int rc = scratch && ol && nl ? NDD_OK : NDD_ERR_NOMEM;
    for (size_t a = 0, b; a < np && !rc; a = b) {
        int flagged = 0;
        for (b = a; b < np && post[b].key == post[a].key; b++)
            flagged |= (post[b].doc & both) != 0;
        if (!flagged)
            continue;
        size_t no = side(post + a, b - a, NDD_POST_OLD, ol), nn = side(post + a, b - a, NDD_POST_NEW, nl);
        int drop = 0;
        rc = list_diff(ol, no, nl, nn, pp, scratch, d, diff, &drop);
        if (!rc && !(rc = ndd_array_grow((void **)&touched->v, &touched->cap, touched->n + 1, sizeof *touched->v)))
            touched->v[touched->n++] = post[a].key;
        if (!rc && drop && !(rc = ndd_array_grow((void **)&dropped->v, &dropped->cap, dropped->n + 1, 8)))
            dropped->v[dropped->n++] = post[a].key;
    }
    free(scratch);
    free(ol);
    free(nl);
    return rc;
}

int ndd_sets_links_apply(const ndd_link_t *base, size_t nb, const ndd_link_t *diff, size_t nd, ndd_links_t *out)
{
    int rc = ndd_array_grow((void **)&out->v, &out->cap, out->n + nb + nd + 1, sizeof *out->v);
    for (size_t i = 0, j = 0; !rc && (i < nb || j < nd);) {
        ndd_link_t x;
        int bi = i < nb, dj = j < nd;
        if (bi && dj && base[i].u == diff[j].u && base[i].v == diff[j].v) {
            x = base[i++];
            x.support += diff[j++].support;
        } else if (!dj || (bi && (base[i].u < diff[j].u || (base[i].u == diff[j].u && base[i].v < diff[j].v)))) {
            x = base[i++];
        } else {
            x = diff[j++];
        }
        if (x.support >> 63)
            rc = NDD_ERR_INTERNAL;
        else if (x.support)
            out->v[out->n++] = x;
    }
    return rc;
}
