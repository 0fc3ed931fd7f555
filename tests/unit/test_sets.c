/* Unit tests for src/sets (the stage kernels of paper 002's step 1 and of the
 * verification schedule), each against a brute-force oracle on many random
 * instances: posting lists -> links with support, link merging, connected
 * components played over simulated ranks, size-capped single linkage, the
 * largest sets, and one set's verification schedule with its clusters. */
#include "ndd_test.h"
#include "ndd_sets.h"
#include "ndd_util.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { return ndd_test_xorshift(&rng_state); }
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* ---- a slow union-find: component ids relabelled in full on every union ---- */
typedef struct {
    uint64_t *comp;
    size_t n;
} slow_uf_t;

static void slow_init(slow_uf_t *s, size_t n)
{
    s->n = n;
    s->comp = malloc((n ? n : 1) * sizeof *s->comp);
    for (size_t i = 0; i < n; i++)
        s->comp[i] = i;
}
static uint64_t slow_size(const slow_uf_t *s, size_t x)
{
    uint64_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        k += s->comp[i] == s->comp[x];
    return k;
}
static void slow_union(slow_uf_t *s, size_t x, size_t y)
{
    uint64_t a = s->comp[x], b = s->comp[y], m = a < b ? a : b;
    for (size_t i = 0; i < s->n; i++)
        if (s->comp[i] == a || s->comp[i] == b)
            s->comp[i] = m;
}
/* the smallest member of x's component */
static size_t slow_min(const slow_uf_t *s, size_t x)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->comp[i] == s->comp[x])
            return i;
    return x;
}

static int cmp_post(const void *a, const void *b)
{
    const ndd_posting_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->doc < y->doc ? -1 : x->doc > y->doc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_link(const void *a, const void *b)
{
    const ndd_link_t *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->support < y->support ? -1 : x->support > y->support;
}

/* Posting lists -> links: every live list links each distinct member to the
 * member with the largest (weight, doc); dropped lists give their key. */
static void test_links_from_postings(void **state)
{
    (void)state;
    for (int round = 0; round < 300; round++) {
        size_t np = 1 + rndn(400), nkeys = 1 + rndn(40), ndocs = 1 + rndn(60);
        ndd_posting_t *post = malloc(np * sizeof *post), *copy = malloc(np * sizeof *copy);
        uint64_t *scratch = malloc(np * sizeof *scratch);
        for (size_t i = 0; i < np; i++) {
            uint64_t doc = rndn(ndocs);
            post[i] = (ndd_posting_t){rndn(nkeys) * 0x1000193u + 7, doc, (uint32_t)(doc % 5), (uint16_t)(doc % 7),
                                      (uint16_t)(1 + doc % 9)};
        }
        ndd_qsort(post, np, sizeof *post, cmp_post);
        memcpy(copy, post, np * sizeof *post);
        ndd_postings_params_t pp;
        ndd_postings_params_default(&pp);
        pp.max_docs = 3 + rndn(20);
        pp.site_docs = 2 + rndn(20);
        pp.total_docs = ndocs;
        ndd_counters_t c = {0};
        ndd_u64s_t dropped = {0};
        ndd_links_t links = {0};
        assert_int_equal(ndd_sets_links_from_postings(post, np, &pp, scratch, &c, &dropped, &links.n), NDD_OK);
        assert_true(links.n < np);
        links.v = (ndd_link_t *)(void *)post; /* written over the postings */
        post = NULL;
        /* brute force */
        ndd_link_t *want = malloc((np + 1) * sizeof *want);
        uint64_t *wdrop = malloc((np + 1) * sizeof *wdrop);
        size_t nw = 0, nd = 0, keys = 0, live = 0, single = 0, ndropped_post = 0;
        for (size_t a = 0; a < np;) {
            size_t b = a;
            while (b < np && copy[b].key == copy[a].key)
                b++;
            ndd_posting_t list[400];
            size_t n = 0;
            for (size_t x = a; x < b; x++)
                if (!n || list[n - 1].doc != copy[x].doc)
                    list[n++] = copy[x];
            keys++;
            ndd_list_kind_t kind = ndd_postings_classify(list, n, &pp, scratch);
            if (kind == NDD_LIST_SINGLE)
                single++;
            else if (kind == NDD_LIST_LIVE) {
                live++;
                size_t rep = 0;
                for (size_t x = 1; x < n; x++)
                    if (list[x].weight > list[rep].weight ||
                        (list[x].weight == list[rep].weight && list[x].doc > list[rep].doc))
                        rep = x;
                for (size_t x = 0; x < n; x++)
                    if (x != rep) {
                        uint64_t u = list[x].doc, v = list[rep].doc;
                        want[nw++] = (ndd_link_t){u < v ? u : v, u < v ? v : u, 1};
                    }
            } else {
                wdrop[nd++] = list[0].key;
                ndropped_post += n;
            }
            a = b;
        }
        assert_int_equal(c.keys_distinct, keys);
        assert_int_equal(c.lists_live, live);
        assert_int_equal(c.postings_single, single);
        assert_int_equal(c.lists_dropped_frequent + c.lists_dropped_site + c.lists_dropped_template, nd);
        assert_int_equal(c.postings_dropped, ndropped_post);
        assert_int_equal(dropped.n, nd);
        for (size_t i = 0; i < nd; i++)
            assert_int_equal(dropped.v[i], wdrop[i]);
        assert_int_equal(links.n, nw);
        ndd_qsort(links.v, links.n, sizeof *links.v, cmp_link);
        ndd_qsort(want, nw, sizeof *want, cmp_link);
        for (size_t i = 0; i < nw; i++)
            assert_memory_equal(&links.v[i], &want[i], sizeof *want);
        free(post);
        free(copy);
        free(scratch);
        free(want);
        free(wdrop);
        free(dropped.v);
        free(links.v);
    }
}

/* A state of the corpus for test_links_diff: per document its keys (a bit
 * per key; 0: no postings) and weight. */
#define LD_DOCS 48
#define LD_KEYS 24
typedef struct {
    uint32_t keys[LD_DOCS];
    uint16_t weight[LD_DOCS];
} ld_state_t;

static uint64_t ld_key(size_t k) { return (uint64_t)k * 0x9E3779B97F4A7C15ull + 11; }

/* Document doc's postings in state s of the keys in `only`, flagged `flag`
 * (some twice: a document may hold a key twice), appended to p[n..);
 * returns the new count. */
static size_t ld_posts(const ld_state_t *s, size_t doc, uint64_t flag, uint32_t only, ndd_posting_t *p, size_t n)
{
    for (size_t k = 0; k < LD_KEYS; k++)
        for (size_t t = (doc + k) % 5 ? 1 : 0; t < 2 && s->keys[doc] >> k & 1 && only >> k & 1; t++) /* (some twice) */
            p[n++] = (ndd_posting_t){ld_key(k), doc | flag, (uint32_t)(doc % 3), (uint16_t)(doc % 4), s->weight[doc]};
    return n;
}

/* The links of every list of state s (all pairs, before --min-link), its
 * counters and dropped keys: ndd_sets_links_from_postings, the oracle. */
static void ld_full(const ld_state_t *s, size_t ndocs, const ndd_postings_params_t *pp, ndd_links_t *l,
                    ndd_counters_t *c, ndd_u64s_t *dropped)
{
    ndd_posting_t *p = malloc((2 * LD_DOCS * LD_KEYS + 1) * sizeof *p);
    uint64_t *scratch = malloc((LD_DOCS + 1) * sizeof *scratch);
    size_t np = 0, nl = 0;
    for (size_t d = 0; d < ndocs; d++)
        np = ld_posts(s, d, 0, UINT32_MAX, p, np);
    ndd_qsort(p, np, sizeof *p, cmp_post);
    assert_int_equal(ndd_sets_links_from_postings(p, np, pp, scratch, c, dropped, &nl), NDD_OK);
    l->v = (ndd_link_t *)(void *)p;
    l->n = ndd_sets_links_merge(l->v, nl, 0, NULL);
    l->cap = np ? np : 1;
    ndd_qsort(dropped->v, dropped->n, sizeof *dropped->v, cmp_u64);
    free(scratch);
}

/* Incremental links: the links of the index before a batch plus the
 * differences of the lists the batch touches (new documents, documents
 * whose keys or weight changed, documents that lost every posting - an
 * exact-pass follower) equal the links made from every list after it; the
 * same for the counters and the dropped keys. */
static void test_links_diff(void **state)
{
    (void)state;
    for (int round = 0; round < 400; round++) {
        ld_state_t a = {0}, b = {0};
        size_t nold = 1 + rndn(LD_DOCS - 1), nall = nold + rndn(LD_DOCS - nold + 1);
        for (size_t d = 0; d < LD_DOCS; d++) {
            a.keys[d] = d < nold && rndn(8) ? (uint32_t)rnd() & ((1u << LD_KEYS) - 1) & (uint32_t)rnd() : 0;
            a.weight[d] = (uint16_t)(1 + rndn(6));
            b.keys[d] = a.keys[d];
            b.weight[d] = a.weight[d];
            int change = d >= nold ? 1 : (int)rndn(6) == 0 ? 2 : (int)rndn(12) == 0 ? 3 : 0;
            if (change == 1 || change == 2) { /* new, or signed again */
                b.keys[d] = (uint32_t)rnd() & ((1u << LD_KEYS) - 1) & (uint32_t)(rndn(2) ? rnd() : UINT32_MAX);
                b.weight[d] = (uint16_t)(1 + rndn(6));
            } else if (change == 3) { /* a follower now, or no longer */
                b.keys[d] = a.keys[d] ? 0 : (uint32_t)rnd() & ((1u << LD_KEYS) - 1);
            }
            if (d >= nall)
                b.keys[d] = 0;
        }
        ndd_postings_params_t pp;
        ndd_postings_params_default(&pp);
        pp.max_docs = 3 + rndn(20);
        pp.site_docs = 2 + rndn(12);
        pp.template_urls = rndn(3) ? 2 + rndn(3) : 0;
        ndd_links_t base = {0}, after = {0}, diff = {0}, got = {0};
        ndd_counters_t ca = {0}, cb = {0};
        ndd_u64s_t da = {0}, db = {0}, touched = {0}, dnew = {0};
        ld_full(&a, nold, &pp, &base, &ca, &da);
        ld_full(&b, nall, &pp, &after, &cb, &db);
        /* the batch's postings: changed documents' before and after apart, the
         * others' unflagged for the keys the changed ones touch (and some more) */
        uint32_t tk = 0;
        for (size_t d = 0; d < nall; d++)
            if (d >= nold || a.keys[d] != b.keys[d] || a.weight[d] != b.weight[d])
                tk |= (d < nold ? a.keys[d] : 0) | b.keys[d];
        uint32_t pass = tk | ((uint32_t)rnd() & (uint32_t)rnd());
        ndd_posting_t *p = malloc((4 * LD_DOCS * LD_KEYS + 1) * sizeof *p);
        size_t np = 0;
        for (size_t d = 0; d < nall; d++) {
            if (d >= nold) {
                np = ld_posts(&b, d, NDD_POST_NEW, UINT32_MAX, p, np);
            } else if (a.keys[d] != b.keys[d] || a.weight[d] != b.weight[d]) {
                np = ld_posts(&a, d, NDD_POST_OLD, UINT32_MAX, p, np);
                np = ld_posts(&b, d, NDD_POST_NEW, UINT32_MAX, p, np);
            } else {
                np = ld_posts(&b, d, 0, pass, p, np);
            }
        }
        ndd_postings_sort_inplace(p, np);
        ndd_list_counts_t dc = {0}, now;
        assert_int_equal(ndd_sets_links_diff(p, np, &pp, &diff, &dc, &touched, &dnew), NDD_OK);
        diff.n = ndd_sets_links_merge(diff.v, diff.n, 0, NULL);
        assert_int_equal(ndd_sets_links_apply(base.v, base.n, diff.v, diff.n, &got), NDD_OK);
        assert_int_equal(got.n, after.n);
        for (size_t i = 0; i < got.n; i++)
            assert_memory_equal(&got.v[i], &after.v[i], sizeof *got.v);
        ndd_list_counts_add(&ca, &dc);
        ndd_list_counts_get(&ca, &now);
        ndd_list_counts_t want;
        ndd_list_counts_get(&cb, &want);
        assert_memory_equal(&now, &want, sizeof now);
        /* dropped: the ones before whose list was not touched, and the touched ones dropped now */
        for (size_t i = 1; i < touched.n; i++)
            assert_true(touched.v[i - 1] < touched.v[i]);
        size_t nd = 0;
        uint64_t *dk = malloc((da.n + dnew.n + 1) * sizeof *dk);
        for (size_t i = 0; i < da.n; i++)
            if (!bsearch(&da.v[i], touched.v, touched.n, sizeof *touched.v, cmp_u64))
                dk[nd++] = da.v[i];
        for (size_t i = 0; i < dnew.n; i++)
            dk[nd++] = dnew.v[i];
        ndd_qsort(dk, nd, sizeof *dk, cmp_u64);
        assert_int_equal(nd, db.n);
        for (size_t i = 0; i < nd; i++)
            assert_int_equal(dk[i], db.v[i]);
        /* a difference that was not made against this base is refused */
        if (base.n) {
            ndd_link_t neg = {base.v[0].u, base.v[0].v, (uint64_t)0 - base.v[0].support - 1};
            ndd_links_t bad = {0};
            assert_int_equal(ndd_sets_links_apply(base.v, base.n, &neg, 1, &bad), NDD_ERR_INTERNAL);
            free(bad.v);
        }
        free(dk);
        free(p);
        free(base.v);
        free(after.v);
        free(diff.v);
        free(got.v);
        free(da.v);
        free(db.v);
        free(touched.v);
        free(dnew.v);
    }
}

/* Merged support = number of copies of each pair (times their supports);
 * the filter keeps exactly the pairs at or above the threshold. */
static void test_links_merge(void **state)
{
    (void)state;
    for (int round = 0; round < 500; round++) {
        size_t n = rndn(300), V = 2 + rndn(30);
        uint64_t min_support = rndn(5);
        ndd_link_t *l = malloc((n + 1) * sizeof *l);
        uint64_t *sup = calloc(V * V, sizeof *sup);
        for (size_t i = 0; i < n; i++) {
            uint64_t u = rndn(V), v = rndn(V), s = 1 + rndn(3);
            if (u == v)
                v = (v + 1) % V;
            l[i] = (ndd_link_t){u < v ? u : v, u < v ? v : u, s};
            sup[l[i].u * V + l[i].v] += s;
        }
        uint64_t distinct = 0, want_distinct = 0;
        size_t kept = ndd_sets_links_merge(l, n, min_support, &distinct), k = 0;
        for (uint64_t u = 0; u < V; u++)
            for (uint64_t v = u + 1; v < V; v++) {
                if (!sup[u * V + v])
                    continue;
                want_distinct++;
                if (sup[u * V + v] < min_support)
                    continue;
                assert_true(k < kept);
                assert_int_equal(l[k].u, u); /* in (u, v) order */
                assert_int_equal(l[k].v, v);
                assert_int_equal(l[k].support, sup[u * V + v]);
                k++;
            }
        assert_int_equal(k, kept);
        assert_int_equal(distinct, want_distinct);
        free(l);
        free(sup);
    }
}

static int cmp_link_uv(const void *a, const void *b)
{
    const ndd_link_t *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Large link sets (the radix sort path) with document numbers of every
 * width, also u and v too wide to pack together (the qsort fallback):
 * against qsort + merge. */
static void test_links_merge_large(void **state)
{
    (void)state;
    static const uint64_t bases[] = {0, 1000, (uint64_t)1 << 31, (uint64_t)1 << 40, (uint64_t)1 << 62};
    for (int round = 0; round < 40; round++) {
        /* round 0: more links than the sort's room for a bucket (its in-place permutation) */
        size_t n = round == 0 ? 100000 : 1024 + rndn(6000);
        uint64_t base = bases[round % 5], span = 2 + rndn(round % 2 ? 50 : 100000);
        ndd_link_t *l = malloc(n * sizeof *l), *w = malloc(n * sizeof *w);
        for (size_t i = 0; i < n; i++) {
            uint64_t u = base + rndn(span), v = base + rndn(span);
            if (u == v)
                v++;
            l[i] = (ndd_link_t){u < v ? u : v, u < v ? v : u, 1 + rndn(3)};
        }
        memcpy(w, l, n * sizeof *l);
        qsort(w, n, sizeof *w, cmp_link_uv);
        size_t m = 0, distinct = 0;
        uint64_t min_support = rndn(4), got_distinct = 0;
        for (size_t e = 0; e < n;) { /* oracle: merge, sum, filter */
            size_t f = e;
            uint64_t s = 0;
            while (f < n && w[f].u == w[e].u && w[f].v == w[e].v)
                s += w[f++].support;
            distinct++;
            if (s >= min_support)
                w[m++] = (ndd_link_t){w[e].u, w[e].v, s};
            e = f;
        }
        size_t kept = ndd_sets_links_merge(l, n, min_support, &got_distinct);
        assert_int_equal(kept, m);
        assert_int_equal(got_distinct, distinct);
        for (size_t k = 0; k < m; k++) {
            assert_true(l[k].u == w[k].u && l[k].v == w[k].v);
            assert_int_equal(l[k].support, w[k].support);
        }
        free(l);
        free(w);
    }
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    const ndd_link_t *v;
    size_t n, at;
    int fail_at; /* the read that fails (-1: none) */
} link_run_t;

static int link_run_next(void *run, ndd_link_t *l)
{
    link_run_t *r = run;
    if (r->fail_at >= 0 && r->at == (size_t)r->fail_at)
        return NDD_ERR_IO;
    if (r->at == r->n)
        return 0;
    *l = r->v[r->at++];
    return 1;
}

/* Runs spilled by the memory budget: links cut into R random runs, each
 * merged on its own (support summed, no filter), then merged together by
 * ndd_sets_links_merge_runs: the same links, supports and distinct count as
 * ndd_sets_links_merge over all of them at once; a failing run's error
 * comes back. */
static void test_links_merge_runs(void **state)
{
    (void)state;
    for (int round = 0; round < 400; round++) {
        size_t n = rndn(round % 4 ? 400 : 5000), V = 2 + rndn(round % 2 ? 20 : 3000), R = 1 + rndn(round % 3 ? 6 : 40);
        uint64_t min_support = rndn(5);
        ndd_link_t *l = malloc((n + 1) * sizeof *l), *all = malloc((n + 1) * sizeof *all);
        link_run_t *runs = calloc(R, sizeof *runs);
        void **rp = calloc(R, sizeof *rp);
        size_t *cut = calloc(R + 1, sizeof *cut);
        for (size_t i = 0; i < n; i++) {
            uint64_t u = rndn(V), v = rndn(V);
            if (u == v)
                v++;
            l[i] = (ndd_link_t){u < v ? u : v, u < v ? v : u, 1 + rndn(3)};
        }
        memcpy(all, l, n * sizeof *l);
        for (size_t k = 1; k < R; k++) /* random cut points, sorted */
            cut[k] = rndn(n + 1);
        cut[R] = n;
        qsort(cut, R + 1, sizeof *cut, cmp_size);
        for (size_t k = 0; k < R; k++) {
            size_t m = ndd_sets_links_merge(l + cut[k], cut[k + 1] - cut[k], 0, NULL);
            runs[k] = (link_run_t){l + cut[k], m, 0, -1};
            rp[k] = &runs[k];
        }
        uint64_t want_distinct = 0, got_distinct = 0;
        size_t want = ndd_sets_links_merge(all, n, min_support, &want_distinct);
        ndd_links_t out = {0};
        assert_int_equal(ndd_sets_links_merge_runs(link_run_next, rp, R, min_support, &out, &got_distinct), NDD_OK);
        assert_int_equal(out.n, want);
        assert_int_equal(got_distinct, want_distinct);
        for (size_t k = 0; k < want; k++) {
            assert_true(out.v[k].u == all[k].u && out.v[k].v == all[k].v);
            assert_int_equal(out.v[k].support, all[k].support);
        }
        if (R > 1 && n > 10) { /* a run that fails on its second read */
            for (size_t k = 0; k < R; k++)
                runs[k].at = 0;
            runs[R - 1].fail_at = 1;
            out.n = 0;
            int rc = ndd_sets_links_merge_runs(link_run_next, rp, R, min_support, &out, NULL);
            assert_int_equal(rc, runs[R - 1].n >= 1 ? NDD_ERR_IO : NDD_OK);
        }
        free(out.v);
        free(l);
        free(all);
        free(runs);
        free(rp);
        free(cut);
    }
}

/* Connected components played as the engine does: documents owned by R
 * simulated ranks (labels at the owner), links spread over ranks at random,
 * label rounds until nothing changes; labels must equal the smallest member
 * of each component of all links (brute force), whatever the split. */
static void test_components_over_ranks(void **state)
{
    (void)state;
    for (int round = 0; round < 200; round++) {
        size_t N = 1 + rndn(80), nl = rndn(120), R = 1 + rndn(6);
        /* document numbers close together (ndd_cc_local_init indexes the
         * ends through one array) or far apart (binary search) */
        const uint64_t sc = round % 2 ? 1 : 1000003;
        ndd_link_t *all = malloc((nl + 1) * sizeof *all);
        ndd_links_t *part = calloc(R, sizeof *part);
        slow_uf_t oracle;
        slow_init(&oracle, N);
        for (size_t e = 0; e < nl; e++) {
            uint64_t u = rndn(N), v = rndn(N);
            if (u == v)
                continue;
            ndd_link_t k = {(u < v ? u : v) * sc, (u < v ? v : u) * sc, 1};
            size_t r = rndn(R);
            assert_int_equal(ndd_array_grow((void **)&part[r].v, &part[r].cap, part[r].n + 1, sizeof k), NDD_OK);
            part[r].v[part[r].n++] = k;
            slow_union(&oracle, u, v);
        }
        uint64_t *label = malloc(N * sizeof *label);
        for (size_t i = 0; i < N; i++)
            label[i] = i;
        ndd_cc_local_t *cc = calloc(R, sizeof *cc);
        for (size_t r = 0; r < R; r++)
            assert_int_equal(ndd_cc_local_init(&cc[r], part[r].v, part[r].n), NDD_OK);
        int changed = 1, rounds = 0;
        while (changed) {
            changed = 0;
            rounds++;
            assert_true(rounds < 200);
            for (size_t r = 0; r < R; r++) {
                uint64_t lab[300], newlab[300];
                assert_true(cc[r].n <= 300);
                for (size_t i = 0; i < cc[r].n; i++) {
                    lab[i] = label[cc[r].ends[i] / sc];
                    assert_int_equal(ndd_cc_local_index(&cc[r], cc[r].ends[i]), i);
                }
                ndd_cc_local_step(&cc[r], lab, newlab);
                for (size_t i = 0; i < cc[r].n; i++)
                    if (newlab[i] < label[cc[r].ends[i] / sc]) {
                        label[cc[r].ends[i] / sc] = newlab[i];
                        changed = 1;
                    }
            }
        }
        for (size_t i = 0; i < N; i++)
            assert_int_equal(label[i], slow_min(&oracle, i));
        for (size_t r = 0; r < R; r++) {
            ndd_cc_local_free(&cc[r]);
            free(part[r].v);
        }
        free(cc);
        free(part);
        free(all);
        free(label);
        free(oracle.comp);
    }
}

static void test_setsizes_merge(void **state)
{
    (void)state;
    for (int round = 0; round < 300; round++) {
        size_t n = rndn(200), L = 1 + rndn(30);
        ndd_setsize_t *v = malloc((n + 1) * sizeof *v);
        uint64_t *sum = calloc(L, sizeof *sum);
        for (size_t i = 0; i < n; i++) {
            v[i] = (ndd_setsize_t){rndn(L) * 1000003u, 1 + rndn(9)};
            sum[v[i].label / 1000003u] += v[i].size;
        }
        size_t m = ndd_setsizes_merge(v, n), k = 0;
        for (size_t l = 0; l < L; l++)
            if (sum[l]) {
                assert_true(k < m);
                assert_int_equal(v[k].label, l * 1000003u);
                assert_int_equal(v[k].size, sum[l]);
                k++;
            }
        assert_int_equal(k, m);
        free(v);
        free(sum);
    }
}

/* ---- size-capped single linkage ---- */

typedef struct {
    uint64_t node[400], root[400], size[400];
    size_t n;
} nodes_t;

static int collect(void *user, uint64_t node, uint64_t root, uint64_t size)
{
    nodes_t *x = user;
    x->node[x->n] = node;
    x->root[x->n] = root;
    x->size[x->n] = size;
    x->n++;
    return NDD_OK;
}

static int cmp_glink_oracle(const void *a, const void *b)
{
    const ndd_glink_t *x = a, *y = b;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    if (x->support != y->support)
        return x->support > y->support ? -1 : 1;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static int cmp_glink_uv(const void *a, const void *b)
{
    const ndd_glink_t *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* ndd_sets_glinks_sort against qsort: random links as 1..12 runs in (u, v)
 * order (up to 8 are merged) or in no order, with few or many labels (over
 * 64: the radix passes), small or large supports (a second key over 16
 * bits), document numbers too wide for the radix keys, many equal pairs
 * and duplicate links (the order compares all four fields: links it cannot
 * tell apart are copies of each other). */
static void test_glinks_sort(void **state)
{
    (void)state;
    enum { NMAX = 3000 };
    ndd_glink_t *gl = malloc(NMAX * sizeof *gl), *want = malloc(NMAX * sizeof *want);
    assert_non_null(gl);
    assert_non_null(want);
    for (int round = 0; round < 400; round++) {
        size_t n = (size_t)(round % 5 == 0 ? rndn(64) : 64 + rndn(NMAX - 64));
        uint64_t nlab = (uint64_t[]){1, 2, 3, 64, 65, 500}[round % 6];
        uint64_t smax = (uint64_t[]){1, 7, 200, 70000}[round / 6 % 4];
        uint64_t scale = (uint64_t[]){1, 1, 1000, (uint64_t)1 << 40}[round / 24 % 4];
        size_t span = 1 + rndn(round % 3 ? 200 : 5); /* few ends: many equal (u, v) */
        for (size_t k = 0; k < n; k++) {
            uint64_t u = rndn(span) * scale, v = u + (1 + rndn(span)) * scale;
            gl[k] = (ndd_glink_t){1000 + 977 * rndn(nlab), u, v, 1 + rndn(smax)};
            if (k && rndn(10) == 0)
                gl[k] = gl[k - 1]; /* a duplicate link */
        }
        size_t nruns = 1 + rndn(12);
        if (round % 7 != 6) /* else no order at all */
            for (size_t r = 0; r < nruns; r++) {
                size_t a = n * r / nruns, b = n * (r + 1) / nruns;
                ndd_qsort(gl + a, b - a, sizeof *gl, cmp_glink_uv);
            }
        memcpy(want, gl, n * sizeof *gl);
        ndd_qsort(want, n, sizeof *want, cmp_glink_oracle);
        ndd_sets_glinks_sort(gl, n);
        if (n)
            assert_memory_equal(gl, want, n * sizeof *gl);
    }
    free(gl);
    free(want);
}

/* Whether any member of x's component is marked closed. */
static int slow_closed(const slow_uf_t *s, const unsigned char *closed, size_t x)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->comp[i] == s->comp[x] && closed[i])
            return 1;
    return 0;
}

/* Oracle: per set, links strongest first (ties by ends), a union is taken
 * when the merged component stays below cap and does not join a closed
 * component with one of `small` members or more; a refused union closes each
 * side of `small` members or more (relabelling arrays, a closed mark on a
 * member: a component is closed when any member is marked); nodes are
 * reported in document order with the smallest member of their component.
 * small = UINT64_MAX is plain size-capped single linkage. */
static void test_capped_linkage(void **state)
{
    (void)state;
    for (int round = 0; round < 600; round++) {
        size_t nsets = 1 + rndn(3), n = 0;
        uint64_t cap = 2 + rndn(12);
        uint64_t small = (uint64_t[]){UINT64_MAX, 1, 2, 3, 5, NDD_GIANT_SMALL}[round % 6];
        /* document numbers close together (one index array), spread apart
         * (binary search), and too wide for the radix keys (qsort) */
        uint64_t scale = (uint64_t[]){1, 1000, (uint64_t)1 << 40}[round % 3];
        ndd_glink_t gl[150], sorted[150];
        for (size_t s = 0; s < nsets; s++) {
            size_t m = 1 + rndn(50), base = 1000 * (s + 1) + rndn(100);
            for (size_t k = 0; k < m && n < 150; k++) {
                uint64_t u = (base + rndn(40)) * scale, v = (base + rndn(40)) * scale;
                if (u == v)
                    v += scale;
                gl[n++] = (ndd_glink_t){base * 7, u < v ? u : v, u < v ? v : u, 1 + rndn(6)};
            }
        }
        memcpy(sorted, gl, n * sizeof *gl);
        ndd_qsort(sorted, n, sizeof *sorted, cmp_glink_oracle);
        nodes_t got = {{0}, {0}, {0}, 0};
        uint64_t refused = 0, sets = 0, want_refused = 0;
        assert_int_equal(ndd_sets_capped_linkage(gl, n, cap, small, collect, &got, &refused, &sets), NDD_OK);
        assert_int_equal(sets, nsets);
        size_t at = 0;
        for (size_t a = 0; a < n;) {
            size_t b = a;
            while (b < n && sorted[b].label == sorted[a].label)
                b++;
            uint64_t ids[300];
            size_t nn = 0;
            for (size_t k = a; k < b; k++) {
                ids[nn++] = sorted[k].u;
                ids[nn++] = sorted[k].v;
            }
            /* sort + unique */
            for (size_t i = 1; i < nn; i++)
                for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
                    uint64_t t = ids[j];
                    ids[j] = ids[j - 1];
                    ids[j - 1] = t;
                }
            size_t w = 0;
            for (size_t i = 0; i < nn; i++)
                if (!w || ids[i] != ids[w - 1])
                    ids[w++] = ids[i];
            nn = w;
            slow_uf_t s;
            slow_init(&s, nn);
            unsigned char closed[300] = {0};
            for (size_t k = a; k < b; k++) {
                size_t x = 0, y = 0;
                while (ids[x] != sorted[k].u)
                    x++;
                while (ids[y] != sorted[k].v)
                    y++;
                if (s.comp[x] == s.comp[y])
                    continue;
                uint64_t sx = slow_size(&s, x), sy = slow_size(&s, y);
                if (sx + sy >= cap || (slow_closed(&s, closed, x) && sy >= small) ||
                    (slow_closed(&s, closed, y) && sx >= small)) {
                    want_refused++;
                    closed[x] |= sx >= small;
                    closed[y] |= sy >= small;
                    continue;
                }
                slow_union(&s, x, y);
            }
            for (size_t i = 0; i < nn; i++, at++) {
                assert_true(at < got.n);
                assert_int_equal(got.node[at], ids[i]);
                assert_int_equal(got.root[at], ids[slow_min(&s, i)]);
                assert_int_equal(got.size[at], slow_size(&s, i));
                assert_true(got.size[at] < cap); /* no component reaches the cap */
            }
            free(s.comp);
            a = b;
        }
        assert_int_equal(at, got.n);
        assert_int_equal(refused, want_refused);
    }
}

/* ---- the largest sets ---- */

static int cmp_top_oracle(const void *a, const void *b)
{
    const ndd_topset_t *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->label < y->label ? -1 : x->label > y->label;
}

static void test_topsets(void **state)
{
    (void)state;
    for (int round = 0; round < 300; round++) {
        size_t n = rndn(40), parts = 1 + rndn(4);
        ndd_topset_t all[40];
        ndd_topsets_t per[4], merged;
        memset(per, 0, sizeof per);
        memset(&merged, 0, sizeof merged);
        for (size_t i = 0; i < n; i++) {
            char id[32];
            snprintf(id, sizeof id, "doc-%zu", i);
            all[i] = (ndd_topset_t){2 + rndn(20), i * 13 + 1, {0}};
            snprintf(all[i].first_id, sizeof all[i].first_id, "%s", id);
            ndd_topsets_note(&per[i % parts], all[i].size, all[i].label, id, strlen(id));
        }
        for (size_t p = 0; p < parts; p++)
            ndd_topsets_merge(&merged, per[p].v, per[p].n);
        /* oracle: with ties by size, a full list keeps the first noted of equal
         * size (note ignores a set no larger than the smallest kept); for
         * distinct sizes the merged list is the top of the sorted union */
        int distinct = 1;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                distinct &= all[i].size != all[j].size;
        ndd_qsort(all, n, sizeof *all, cmp_top_oracle);
        size_t want = n < NDD_TOP_N ? n : NDD_TOP_N;
        assert_int_equal(merged.n, want);
        for (size_t k = 0; k + 1 < merged.n; k++)
            assert_true(cmp_top_oracle(&merged.v[k], &merged.v[k + 1]) < 0);
        if (distinct)
            for (size_t k = 0; k < want; k++) {
                assert_int_equal(merged.v[k].size, all[k].size);
                assert_int_equal(merged.v[k].label, all[k].label);
                assert_string_equal(merged.v[k].first_id, all[k].first_id);
            }
    }
    /* a long id is cut to fit */
    ndd_topsets_t t = {0};
    char longid[300];
    memset(longid, 'x', sizeof longid);
    ndd_topsets_note(&t, 5, 1, longid, sizeof longid);
    assert_int_equal(strlen(t.v[0].first_id), sizeof t.v[0].first_id - 1);
}

/* ---- one set's verification ---- */

typedef struct {
    size_t n;
    int dup[20][20];       /* the fake verifier's verdict */
    char calls[4096];      /* what the hooks saw, as text */
    size_t len;
    /* a set verified in blocks: the load hook shows only the pair's two
     * texts in shown[] (the others NULL), from src[] */
    const char **src, **shown;
    size_t ntexts, loads;
} fake_t;

static int f_load(void *user, uint32_t i, uint32_t j)
{
    fake_t *f = user;
    for (size_t k = 0; k < f->ntexts; k++)
        f->shown[k] = k == i || k == j ? f->src[k] : NULL;
    f->loads++;
    return NDD_OK;
}

static void say(fake_t *f, const char *fmt, uint32_t a, uint32_t b, int c)
{
    f->len += (size_t)snprintf(f->calls + f->len, sizeof f->calls - f->len, fmt, a, b, c);
}

static int f_pair(void *u, uint32_t i, uint32_t j, ndd_vres_t *r)
{
    fake_t *f = u;
    memset(r, 0, sizeof *r);
    r->duplicate = f->dup[i][j];
    r->pruned_by_bound = !r->duplicate && (i + j) % 3 == 0;
    say(f, "P%u,%u%c ", i, j, 'v');
    return NDD_OK;
}
static void f_identical(void *u, uint32_t i, uint32_t j, ndd_vres_t *r)
{
    fake_t *f = u;
    memset(r, 0, sizeof *r);
    r->duplicate = 1;
    say(f, "I%u,%u%c ", i, j, 'i');
}
static int f_scored(void *u, uint32_t i, uint32_t j, const ndd_vres_t *r)
{
    say(u, "S%u,%u:%d ", i, j, r->duplicate);
    return NDD_OK;
}
static int f_member(void *u, uint32_t i, uint32_t root, int kept)
{
    say(u, "M%u<%u:%d ", i, root, kept);
    return NDD_OK;
}

/* The oracle plays the schedule with a relabelling union-find and writes the
 * calls it expects in the same notation. */
static void oracle_verify(fake_t *f, const ndd_cand_t *cand, size_t nc, size_t n, const char *const *texts,
                          const size_t *lens, const uint32_t *fol_rep, size_t nf, int verify_all, int keep_longest,
                          ndd_counters_t *c)
{
    slow_uf_t s;
    slow_init(&s, n + nf);
    for (size_t q = 0; q < nc; q++) {
        uint32_t i = cand[q].i, j = cand[q].j;
        int dup;
        if (!verify_all && s.comp[i] == s.comp[j]) {
            c->pairs_skipped_joined++;
            continue;
        }
        if (lens[i] == lens[j] && !memcmp(texts[i], texts[j], lens[i])) {
            say(f, "I%u,%u%c ", i, j, 'i');
            dup = 1;
            c->pairs_exact++;
        } else {
            say(f, "P%u,%u%c ", i, j, 'v');
            dup = f->dup[i][j];
            c->pairs_verified++;
            c->pairs_pruned_bound += !dup && (i + j) % 3 == 0;
        }
        say(f, "S%u,%u:%d ", i, j, dup);
        if (dup) {
            c->pairs_accepted++;
            slow_union(&s, i, j);
        }
    }
    /* exact followers: an identical pair with their representative each */
    for (size_t k = 0; k < nf; k++) {
        say(f, "I%u,%u%c ", fol_rep[k], (uint32_t)(n + k), 'i');
        say(f, "S%u,%u:%d ", fol_rep[k], (uint32_t)(n + k), 1);
        slow_union(&s, fol_rep[k], n + k);
    }
    for (size_t i = 0; i < n + nf; i++) {
        size_t root = slow_min(&s, i), sz = slow_size(&s, i), keep = root, nreal = 0;
        if (sz < 2)
            continue;
        for (size_t k = 0; k < n; k++)
            nreal += s.comp[k] == s.comp[i];
        if (keep_longest)
            for (size_t k = 0; k < n; k++) /* a follower is never kept */
                if (s.comp[k] == s.comp[i] && lens[k] > lens[keep])
                    keep = k;
        c->clusters += root == i;
        c->docs_in_clusters++;
        c->docs_removed += keep != i;
        c->docs_removed_exact += i >= n;
        c->docs_removed_near += keep != i && i < n;
        c->docs_in_near_clusters += i < n && nreal >= 2;
        say(f, "M%u<%u:%d ", (uint32_t)i, (uint32_t)root, keep == i);
    }
    free(s.comp);
}

static void test_set_verify(void **state)
{
    (void)state;
    static const char *pool[] = {"alpha", "beta", "alpha", "gamma gamma", "beta", "delta delta delta", "x"};
    for (int round = 0; round < 3000; round++) {
        size_t n = 1 + rndn(11), nc = 0, nf = round % 3 ? rndn(6) : 0;
        uint32_t fol_rep[8];
        const char *texts[20];
        size_t lens[20];
        ndd_cand_t cand[200];
        fake_t got, want;
        memset(&got, 0, sizeof got);
        for (size_t i = 0; i < n; i++) {
            texts[i] = pool[rndn(7)];
            lens[i] = strlen(texts[i]);
        }
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++) {
                got.dup[i][j] = rndn(3) == 0;
                if (rndn(2))
                    cand[nc++] = (ndd_cand_t){(uint32_t)i, (uint32_t)j, (uint32_t)rndn(5)};
            }
        for (size_t k = nc; k > 1; k--) { /* any order: the kernel follows it */
            size_t x = rndn(k);
            ndd_cand_t t = cand[k - 1];
            cand[k - 1] = cand[x];
            cand[x] = t;
        }
        for (size_t k = 0; k < nf; k++) /* exact followers of random members */
            fol_rep[k] = (uint32_t)rndn(n);
        want = got;
        int verify_all = (int)rndn(2), keep_longest = (int)rndn(2);
        ndd_counters_t cg = {0}, cw = {0};
        /* every other round the texts are shown pair by pair (a set verified
         * in blocks): the same calls */
        const char *shown[20] = {NULL};
        int lazy = round % 2;
        got.src = texts, got.shown = shown, got.ntexts = n, got.loads = 0;
        ndd_set_hooks_t hooks = {&got, f_pair, f_identical, f_scored, f_member, lazy ? f_load : NULL};
        assert_int_equal(ndd_set_verify(cand, nc, n, lazy ? shown : texts, lens, fol_rep, nf, verify_all, keep_longest,
                                        &hooks, &cg),
                         NDD_OK);
        oracle_verify(&want, cand, nc, n, texts, lens, fol_rep, nf, verify_all, keep_longest, &cw);
        assert_string_equal(got.calls, want.calls);
        assert_memory_equal(&cg, &cw, sizeof cg);
        if (lazy) /* one load per pair looked at */
            assert_int_equal(got.loads, cw.pairs_exact + cw.pairs_verified);
    }
    /* a follower whose representative is not a verified member is refused */
    uint32_t bad = 2;
    const char *t2[2] = {"a", "b"};
    size_t l2[2] = {1, 1};
    fake_t f;
    memset(&f, 0, sizeof f);
    ndd_counters_t c0 = {0};
    ndd_set_hooks_t hooks = {&f, f_pair, f_identical, f_scored, f_member, NULL};
    assert_int_equal(ndd_set_verify(NULL, 0, 2, t2, l2, &bad, 1, 0, 0, &hooks, &c0), NDD_ERR_INVAL);
}

/* ---- exact duplicates ---- */

static void test_exact_reps(void **state)
{
    (void)state;
    for (int round = 0; round < 500; round++) {
        size_t n = rndn(300);
        uint64_t nh = 1 + rndn(round % 2 ? 5 : 400); /* few or many distinct texts */
        ndd_exact_rec_t *v = malloc((n + 1) * sizeof *v);
        uint64_t *rep = malloc((n + 1) * sizeof *rep), groups = 0, followers = 0;
        uint64_t *g = malloc((n + 1) * sizeof *g);
        for (size_t k = 0; k < n; k++) /* distinct document numbers in any order */
            g[k] = k * 7 + 3;
        for (size_t k = n; k > 1; k--) {
            size_t x = rndn(k), t = g[k - 1];
            g[k - 1] = g[x];
            g[x] = t;
        }
        for (size_t k = 0; k < n; k++) {
            uint64_t h = rndn(nh);
            v[k] = (ndd_exact_rec_t){h * 0x9E3779B97F4A7C15ull, h % 2 ? h : ~h, g[k]}; /* (hi, lo) pairs */
        }
        if (n > 2) /* same hi, other lo: a different text */
            v[1].hi = v[0].hi, v[1].lo = v[0].lo ^ 1;
        assert_int_equal(ndd_exact_reps(v, n, rep, &groups, &followers), NDD_OK);
        uint64_t wg = 0, wf = 0;
        for (size_t k = 0; k < n; k++) { /* brute force */
            uint64_t min = v[k].g, size = 0;
            for (size_t t = 0; t < n; t++)
                if (v[t].hi == v[k].hi && v[t].lo == v[k].lo) {
                    size++;
                    if (v[t].g < min)
                        min = v[t].g;
                }
            uint64_t want = min == v[k].g && size > 1 ? min | NDD_EXACT_LEADS : min;
            assert_true(rep[k] == want);
            wg += min == v[k].g && size > 1;
            wf += min != v[k].g;
        }
        assert_int_equal(groups, wg);
        assert_int_equal(followers, wf);
        free(v);
        free(rep);
        free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_links_from_postings), cmocka_unit_test(test_links_diff),
        cmocka_unit_test(test_links_merge),
        cmocka_unit_test(test_links_merge_large), cmocka_unit_test(test_links_merge_runs),
        cmocka_unit_test(test_components_over_ranks), cmocka_unit_test(test_setsizes_merge),
        cmocka_unit_test(test_capped_linkage), cmocka_unit_test(test_glinks_sort), cmocka_unit_test(test_topsets),
        cmocka_unit_test(test_set_verify), cmocka_unit_test(test_exact_reps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
