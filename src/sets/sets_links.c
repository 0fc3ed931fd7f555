/* sets_links.c - posting lists -> links to representatives, link support,
 * set sizes (see ndd_sets.h). */
#include "ndd_sets.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(ndd_link_t) == sizeof(ndd_posting_t), "links are written over the postings");

int ndd_sets_links_from_postings(ndd_posting_t *post, size_t np, const ndd_postings_params_t *pp, uint64_t *scratch,
                                 ndd_counters_t *c, ndd_u64s_t *dropped, size_t *nlinks)
{
    /* Link k is stored (by memcpy: the bytes change type) at entry k of
     * post[]. The links of the lists before post[a] number at most a (a list
     * of m entries gives at most m - 1), and inside a list the link made from
     * entry x goes to an index <= x after entry x is read: no entry is
     * overwritten before it is read. */
    char *out = (char *)post;
    size_t nl = 0;
    int rc = NDD_OK;
    for (size_t a = 0; a < np && !rc;) {
        size_t b = a + 1;
        while (b < np && post[b].key == post[a].key)
            b++;
        /* a document holding one key twice (two slots with equal bits) counts once */
        size_t w = a + 1;
        for (size_t x = a + 1; x < b; x++)
            if (post[x].doc != post[w - 1].doc)
                post[w++] = post[x];
        size_t n = w - a;
        c->keys_distinct++;
        ndd_list_kind_t kind = ndd_postings_classify(post + a, n, pp, scratch);
        if (kind == NDD_LIST_SINGLE) {
            c->postings_single++;
        } else if (kind == NDD_LIST_LIVE) {
            c->lists_live++;
            size_t rep = a + ndd_postings_representative(post + a, n);
            uint64_t v = post[rep].doc;
            for (size_t x = a; x < w; x++) {
                if (x == rep)
                    continue;
                uint64_t u = post[x].doc;
                ndd_link_t l = {u < v ? u : v, u < v ? v : u, 1};
                memcpy(out + nl++ * sizeof l, &l, sizeof l);
            }
        } else {
            if (kind == NDD_LIST_DROP_FREQUENT)
                c->lists_dropped_frequent++; /* > max_docs or > max_share of the corpus */
            else if (kind == NDD_LIST_DROP_SITE)
                c->lists_dropped_site++;
            else
                c->lists_dropped_template++;
            c->postings_dropped += n;
            rc = ndd_array_grow((void **)&dropped->v, &dropped->cap, dropped->n + 1, sizeof *dropped->v);
            if (!rc)
                dropped->v[dropped->n++] = post[a].key;
        }
        a = b;
    }
    *nlinks = nl;
    return rc;
}

static int cmp_link(const void *a, const void *b)
{
    const ndd_link_t *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static inline uint64_t link_key(const ndd_link_t *x, unsigned bv) { return bv >= 64 ? x->v : x->u << bv | x->v; }

/* In-place MSD radix sort (American flag sort) of l[0..n) on link_key's
 * byte at shift sh and the bytes below it; buckets of at most 32 links take
 * insertion sort. The last digit is the key's lowest byte even when it
 * overlaps the one before (bits a bucket agrees on do not reorder it). A
 * bucket that fits in scr[0..scap) is distributed into it and copied back
 * (no chain of dependent loads: as ndd_postings_sort_inplace does). */
static void links_flag(ndd_link_t *l, size_t n, unsigned bv, unsigned sh, ndd_link_t *scr, size_t scap)
{
    size_t count[256], head[256], end[256];
    for (; n > 32; sh = sh > 8 ? sh - 8 : 0) {
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[link_key(&l[i], bv) >> sh & 255]++;
        if (count[link_key(&l[0], bv) >> sh & 255] != n) {
#define LINK_DIGIT(x) (link_key(&(x), bv) >> sh & 255)
            NDD_FLAG_LEVEL(ndd_link_t, l, n, count, head, end, LINK_DIGIT, scr, scap);
#undef LINK_DIGIT
            for (size_t b = 0, at = 0; sh && b < 256; at += count[b], b++)
                if (count[b] > 1)
                    links_flag(l + at, count[b], bv, sh > 8 ? sh - 8 : 0, scr, scap);
            return;
        }
        if (!sh)
            return; /* every key equal */
    }
    for (size_t i = 1; i < n; i++) {
        ndd_link_t x = l[i];
        uint64_t k = link_key(&x, bv);
        size_t j = i;
        for (; j > 0 && k < link_key(&l[j - 1], bv); j--)
            l[j] = l[j - 1];
        l[j] = x;
    }
}

/* Sorts l by (u, v): the in-place radix sort above on the key
 * u << bits(max v) | v when u and v fit together in 64 bits (document
 * numbers: always, below 2^32 documents), else qsort. Equal pairs may end in
 * any order: callers only sum their supports. In place: the LSD radix sort
 * it replaces took a second array as large as the links (fresh pages: 1.8 %
 * of a 1-rank run) and copied the result back. */
static void links_sort(ndd_link_t *l, size_t n)
{
    uint64_t mu = 0, mv = 0;
    for (size_t e = 0; e < n; e++) {
        mu = l[e].u > mu ? l[e].u : mu;
        mv = l[e].v > mv ? l[e].v : mv;
    }
    unsigned bv = ndd_bits_of(mv), total = ndd_bits_of(mu) + bv;
    if (total > 64) {
        ndd_qsort(l, n, sizeof *l, cmp_link);
        return;
    }
    size_t scap = n < NDD_FLAG_SCRATCH ? n : NDD_FLAG_SCRATCH;
    ndd_link_t *scr = scap > 32 ? malloc(scap * sizeof *scr) : NULL;
    links_flag(l, n, bv, total > 8 ? total - 8 : 0, scr, scr ? scap : 0);
    free(scr);
}

size_t ndd_sets_links_merge(ndd_link_t *l, size_t n, uint64_t min_support, uint64_t *ndistinct)
{
    size_t kept = 0, distinct = 0;
    links_sort(l, n);
    for (size_t e = 0; e < n;) {
        size_t f = e;
        uint64_t support = 0;
        while (f < n && l[f].u == l[e].u && l[f].v == l[e].v)
            support += l[f++].support;
        distinct++;
        if (support >= min_support)
            l[kept++] = (ndd_link_t){l[e].u, l[e].v, support};
        e = f;
    }
    if (ndistinct)
        *ndistinct = distinct;
    return kept;
}

static int link_less(const ndd_link_t *a, const ndd_link_t *b)
{
    return a->u != b->u ? a->u < b->u : a->v < b->v;
}

/* Restores the heap order (smallest head on top) below slot k. */
static void heap_down(size_t *heap, size_t n, const ndd_link_t *head, size_t k)
{
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= n)
            return;
        if (c + 1 < n && link_less(&head[heap[c + 1]], &head[heap[c]]))
            c++;
        if (!link_less(&head[heap[c]], &head[heap[k]]))
            return;
        size_t t = heap[c];
        heap[c] = heap[k];
        heap[k] = t;
        k = c;
    }
}

int ndd_sets_links_merge_runs(ndd_links_next_fn next, void *const *run, size_t nrun, uint64_t min_support,
                              ndd_links_t *out, uint64_t *ndistinct)
{
    ndd_link_t *head = malloc((nrun ? nrun : 1) * sizeof *head), cur = {0, 0, 0};
    size_t *heap = malloc((nrun ? nrun : 1) * sizeof *heap), nh = 0;
    uint64_t distinct = 0;
    int rc = head && heap ? NDD_OK : NDD_ERR_NOMEM, have = 0;
    for (size_t k = 0; k < nrun && !rc; k++) {
        int got = next(run[k], &head[k]);
        if (got < 0)
            rc = got;
        else if (got)
            heap[nh++] = k;
    }
    for (size_t k = nh / 2; k-- > 0 && !rc;)
        heap_down(heap, nh, head, k);
    while (!rc && (nh || have)) {
        if (nh && have && head[heap[0]].u == cur.u && head[heap[0]].v == cur.v) {
            cur.support += head[heap[0]].support;
        } else {
            if (have && cur.support >= min_support) {
                rc = ndd_array_grow((void **)&out->v, &out->cap, out->n + 1, sizeof *out->v);
                if (!rc)
                    out->v[out->n++] = cur;
            }
            if (!nh || rc)
                break;
            cur = head[heap[0]];
            have = 1;
            distinct++;
        }
        int got = next(run[heap[0]], &head[heap[0]]); /* the top run moves on */
        if (got < 0)
            rc = got;
        else if (!got)
            heap[0] = heap[--nh];
        heap_down(heap, nh, head, 0);
    }
    if (ndistinct)
        *ndistinct = distinct;
    free(head);
    free(heap);
    return rc;
}

static int cmp_setsize(const void *a, const void *b)
{
    const ndd_setsize_t *x = a, *y = b;
    return x->label < y->label ? -1 : x->label > y->label;
}

uint64_t ndd_setsizes_find(const ndd_setsize_t *v, size_t n, uint64_t label)
{
    ndd_setsize_t key = {label, 0};
    const ndd_setsize_t *hit = bsearch(&key, v, n, sizeof *v, cmp_setsize);
    return hit ? hit->size : 1;
}

size_t ndd_setsizes_merge(ndd_setsize_t *v, size_t n)
{
    size_t m = 0;
    ndd_qsort(v, n, sizeof *v, cmp_setsize);
    for (size_t i = 0; i < n; i++) {
        if (m && v[m - 1].label == v[i].label)
            v[m - 1].size += v[i].size;
        else
            v[m++] = v[i];
    }
    return m;
}
