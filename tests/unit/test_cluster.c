/* Unit tests for src/cluster: union-find, postings rules (against brute force),
 * radix sort, candidate selection (against a brute-force count), URL hosts. */
#include "ndd_test.h"
#include "ndd_cluster.h"
#include "ndd_util.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void) { return ndd_test_xorshift(&rng_state); }

static void test_uf(void **state)
{
    (void)state;
    ndd_uf_t uf;
    assert_int_equal(ndd_uf_init(&uf, 10), NDD_OK);
    assert_int_equal(ndd_uf_union(&uf, 7, 3), 1);
    assert_int_equal(ndd_uf_union(&uf, 3, 9), 1);
    assert_int_equal(ndd_uf_union(&uf, 9, 7), 0);
    assert_int_equal(ndd_uf_find(&uf, 9), 3); /* smallest element is the root */
    assert_int_equal(ndd_uf_union(&uf, 9, 1), 1);
    assert_int_equal(ndd_uf_find(&uf, 7), 1);
    assert_int_equal(ndd_uf_find(&uf, 5), 5);
    ndd_uf_free(&uf);
}

static int cmp_post(const void *a, const void *b)
{
    const ndd_posting_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->doc < y->doc ? -1 : x->doc > y->doc;
}

static int cmp_post_doc(const void *a, const void *b)
{
    const ndd_posting_t *x = a, *y = b;
    if (x->doc != y->doc)
        return x->doc < y->doc ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static void test_postings_sort(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        size_t n = round == 0 ? 300000 : 1 + rnd() % 5000; /* round 0: deep radix levels */
        ndd_posting_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *t = malloc(n * sizeof *t);
        for (size_t i = 0; i < n; i++) {
            a[i].key = round % 2 ? rnd() % 50 : rnd();
            a[i].doc = rnd() % (round % 3 ? 1000 : UINT64_MAX);
            a[i].site = (uint32_t)i;
            a[i].weight = 1;
        }
        memcpy(b, a, n * sizeof *a);
        assert_int_equal(ndd_postings_sort(a, t, n), NDD_OK);
        qsort(b, n, sizeof *b, cmp_post);
        /* the key-only sort of input ordered by doc gives the same order */
        ndd_posting_t *c = malloc(n * sizeof *c);
        memcpy(c, b, n * sizeof *c);
        qsort(c, n, sizeof *c, cmp_post_doc);
        assert_int_equal(ndd_postings_sort_key(c, t, n), NDD_OK);
        for (size_t i = 0; i < n; i++) {
            assert_true(c[i].key == b[i].key);
            assert_true(c[i].doc == b[i].doc);
        }
        free(c);
        for (size_t i = 0; i < n; i++) {
            assert_true(a[i].key == b[i].key);
            assert_true(a[i].doc == b[i].doc);
        }
        /* the in-place sort: same (key, doc) order from any input order, and
         * records equal in (key, doc) share site (a document's attribute) */
        ndd_posting_t *e = malloc(n * sizeof *e);
        memcpy(e, b, n * sizeof *e);
        for (size_t i = n - 1; i > 0; i--) { /* shuffled */
            size_t j = rnd() % (i + 1);
            ndd_posting_t x = e[i];
            e[i] = e[j];
            e[j] = x;
        }
        ndd_postings_sort_inplace(e, n);
        for (size_t i = 0; i < n; i++) {
            assert_true(e[i].key == b[i].key);
            assert_true(e[i].doc == b[i].doc);
        }
        free(e);
        free(a);
        free(b);
        free(t);
    }
}

/* Shuffle 1's groups: random documents' postings (split between P
 * destinations as the engine splits them) encoded and decoded give every
 * destination its postings in order, equal field by field; damaged blocks
 * are refused. */
static void test_pgroups(void **state)
{
    (void)state;
    for (int round = 0; round < 40; round++) {
        size_t P = 1 + rnd() % 4, ndoc = rnd() % 60, cap = 64;
        ndd_posting_t *want = malloc(P * cap * sizeof *want), *got = malloc((cap + 1) * sizeof *got);
        size_t *nw = calloc(P, sizeof *nw), *head = calloc(P, sizeof *head), *last = calloc(P, sizeof *last);
        ndd_buf_t *blk = calloc(P, sizeof *blk);
        for (size_t i = 0; i < ndoc; i++) {
            uint64_t doc = round % 2 ? rnd() : i;
            uint32_t site = (uint32_t)rnd();
            uint16_t url = (uint16_t)rnd(), weight = (uint16_t)rnd();
            for (size_t k = rnd() % 6; k > 0; k--) {
                uint64_t key = rnd();
                size_t s = key % P;
                if (nw[s] == cap)
                    continue;
                want[s * cap + nw[s]++] = (ndd_posting_t){key, doc, site, url, weight};
                if (last[s] != i + 1)
                    assert_int_equal(ndd_pgroup_begin(&blk[s], doc, site, url, weight, &head[s]), NDD_OK);
                last[s] = i + 1;
                assert_int_equal(ndd_pgroup_add(&blk[s], head[s], key), NDD_OK);
            }
        }
        for (size_t s = 0; s < P; s++) {
            assert_int_equal(ndd_pgroups_decode(blk[s].data, blk[s].len, got, nw[s]), NDD_OK);
            for (size_t e = 0; e < nw[s]; e++) {
                const ndd_posting_t *a = &got[e], *b = &want[s * cap + e];
                assert_true(a->key == b->key && a->doc == b->doc && a->site == b->site);
                assert_true(a->url == b->url && a->weight == b->weight);
            }
            /* one posting more or fewer than the block holds */
            assert_int_equal(ndd_pgroups_decode(blk[s].data, blk[s].len, got, nw[s] + 1), NDD_ERR_FORMAT);
            if (nw[s]) {
                assert_int_equal(ndd_pgroups_decode(blk[s].data, blk[s].len, got, nw[s] - 1), NDD_ERR_FORMAT);
                /* cut anywhere inside: in a header or a group's keys */
                size_t cut = 1 + rnd() % (blk[s].len - 1);
                assert_int_equal(ndd_pgroups_decode(blk[s].data, cut, got, nw[s]), NDD_ERR_FORMAT);
                /* a group's count of keys 0, or past the block */
                uint32_t k0 = ndd_le32_load(blk[s].data + 16);
                ndd_le32_store(blk[s].data + 16, 0);
                assert_int_equal(ndd_pgroups_decode(blk[s].data, blk[s].len, got, nw[s]), NDD_ERR_FORMAT);
                ndd_le32_store(blk[s].data + 16, k0 + 1);
                assert_int_equal(ndd_pgroups_decode(blk[s].data, blk[s].len, got, nw[s] + 1), NDD_ERR_FORMAT);
                ndd_le32_store(blk[s].data + 16, k0);
                assert_int_equal(ndd_pgroups_decode(blk[s].data, blk[s].len, got, nw[s]), NDD_OK);
            } else {
                assert_int_equal(blk[s].len, 0);
            }
            ndd_buf_free(&blk[s]);
        }
        free(want);
        free(got);
        free(nw);
        free(head);
        free(last);
        free(blk);
    }
}

static void test_postings_classify(void **state)
{
    (void)state;
    ndd_postings_params_t p;
    ndd_postings_params_default(&p);
    p.max_docs = 100;
    p.site_docs = 20;
    p.template_urls = 0; /* first the paper's rules alone */
    p.max_share = 0;
    ndd_posting_t list[200];
    uint64_t scratch[200];
    for (size_t i = 0; i < 200; i++)
        list[i] = (ndd_posting_t){42, i, (uint32_t)(1 + i % 50), (uint16_t)i, 112};
    assert_int_equal(ndd_postings_classify(list, 1, &p, scratch), NDD_LIST_SINGLE);
    assert_int_equal(ndd_postings_classify(list, 20, &p, scratch), NDD_LIST_LIVE);
    /* 30 docs on 30 sites: long but spread -> live */
    assert_int_equal(ndd_postings_classify(list, 30, &p, scratch), NDD_LIST_LIVE);
    assert_int_equal(ndd_postings_classify(list, 101, &p, scratch), NDD_LIST_DROP_FREQUENT);
    /* 30 docs, 20 on one site -> concentrated */
    for (size_t i = 0; i < 20; i++)
        list[i].site = 7;
    assert_int_equal(ndd_postings_classify(list, 30, &p, scratch), NDD_LIST_DROP_SITE);
    /* brute force on random lists: top-3 site share >= 0.5 */
    for (int round = 0; round < 500; round++) {
        size_t n = 21 + rnd() % 79;
        unsigned nsites = 1 + (unsigned)(rnd() % 12);
        size_t per[13] = {0};
        for (size_t i = 0; i < n; i++) {
            list[i].site = 1 + (uint32_t)(rnd() % nsites);
            per[list[i].site]++;
        }
        size_t top[3] = {0, 0, 0};
        for (unsigned s = 1; s <= nsites; s++) {
            size_t c = per[s];
            for (int k = 0; k < 3; k++)
                if (c > top[k]) {
                    size_t t = top[k];
                    top[k] = c;
                    c = t;
                }
        }
        int conc = (double)(top[0] + top[1] + top[2]) >= 0.5 * (double)n;
        assert_int_equal(ndd_postings_classify(list, n, &p, scratch), conc ? NDD_LIST_DROP_SITE : NDD_LIST_LIVE);
    }
    /* representative: largest <weight, doc> */
    /* corpus-share rule: N = 10000 -> 1 % = 100 (floor 100): 101 docs on 101 sites dropped */
    ndd_posting_t big[150];
    uint64_t sc2[150];
    ndd_postings_params_default(&p);
    p.max_share = 0.01;
    p.total_docs = 10000;
    for (size_t i = 0; i < 150; i++)
        big[i] = (ndd_posting_t){9, i, (uint32_t)(1 + i), (uint16_t)i, 50};
    assert_int_equal(ndd_postings_classify(big, 100, &p, sc2), NDD_LIST_LIVE);
    assert_int_equal(ndd_postings_classify(big, 101, &p, sc2), NDD_LIST_DROP_FREQUENT);
    p.total_docs = 1000000; /* 1 % = 10000: the same list is live */
    assert_int_equal(ndd_postings_classify(big, 150, &p, sc2), NDD_LIST_LIVE);
    p.total_docs = 1000; /* floor 100 still applies */
    assert_int_equal(ndd_postings_classify(big, 100, &p, sc2), NDD_LIST_LIVE);
    ndd_posting_t r[4] = {{1, 10, 0, 0, 50}, {1, 3, 0, 0, 112}, {1, 11, 0, 0, 112}, {1, 2, 0, 0, 7}};
    assert_int_equal(ndd_postings_representative(r, 4), 2);
}

static void test_postings_template_rule(void **state)
{
    (void)state;
    ndd_postings_params_t p;
    ndd_postings_params_default(&p);
    ndd_posting_t l[40];
    uint64_t scratch[40];
    /* 30 pages of one site, 30 URLs: the site's template */
    for (size_t i = 0; i < 30; i++)
        l[i] = (ndd_posting_t){7, i, 99, (uint16_t)(100 + i), 100};
    assert_int_equal(ndd_postings_classify(l, 30, &p, scratch), NDD_LIST_DROP_TEMPLATE);
    /* 4 URLs only: below template_urls -> live */
    assert_int_equal(ndd_postings_classify(l, 4, &p, scratch), NDD_LIST_LIVE);
    /* 20 captures of one URL (re-crawls): live */
    for (size_t i = 0; i < 20; i++)
        l[i].url = 5;
    assert_int_equal(ndd_postings_classify(l, 20, &p, scratch), NDD_LIST_LIVE);
    /* an article copied on 12 different sites: live */
    for (size_t i = 0; i < 12; i++)
        l[i] = (ndd_posting_t){7, i, (uint32_t)(1 + i), (uint16_t)i, 100};
    assert_int_equal(ndd_postings_classify(l, 12, &p, scratch), NDD_LIST_LIVE);
    /* 8 pages of one site plus 4 other sites: top share 8/12 < 0.9 -> live */
    for (size_t i = 0; i < 8; i++)
        l[i].site = 50;
    assert_int_equal(ndd_postings_classify(l, 12, &p, scratch), NDD_LIST_LIVE);
    /* brute force over random small lists */
    for (int round = 0; round < 2000; round++) {
        size_t n = 2 + rnd() % 39;
        unsigned nsites = 1 + (unsigned)(rnd() % 4), nurls = 1 + (unsigned)(rnd() % 12);
        for (size_t i = 0; i < n; i++)
            l[i] = (ndd_posting_t){7, i, 1 + (uint32_t)(rnd() % nsites), (uint16_t)(rnd() % nurls), 1};
        size_t cnt[5] = {0}, best = 0, best_urls = 0;
        for (size_t i = 0; i < n; i++)
            cnt[l[i].site]++;
        for (unsigned s = 1; s <= nsites; s++) {
            int seen[12] = {0};
            size_t urls = 0;
            for (size_t i = 0; i < n; i++)
                if (l[i].site == s && !seen[l[i].url]++)
                    urls++;
            if (cnt[s] > best || (cnt[s] == best && urls > best_urls)) {
                best = cnt[s];
                best_urls = urls;
            }
        }
        int tmpl = best_urls >= 5 && (double)best >= 0.9 * (double)n;
        assert_int_equal(ndd_postings_classify(l, n, &p, scratch), tmpl ? NDD_LIST_DROP_TEMPLATE : NDD_LIST_LIVE);
    }
}

static void test_cand_small_all_pairs(void **state)
{
    (void)state;
    ndd_cand_ws_t *ws;
    assert_int_equal(ndd_cand_ws_create(&ws), NDD_OK);
    ndd_cand_params_t p;
    ndd_cand_params_default(&p);
    /* 3 members: 0 and 2 share keys {5, 6}; 1 shares {6} with both */
    uint64_t keys[] = {5, 6, 9, 6, 1, 5, 6};
    size_t off[] = {0, 3, 5, 7};
    const ndd_cand_t *c;
    size_t nc;
    assert_int_equal(ndd_cand_select(ws, &p, 3, keys, off, &c, &nc), NDD_OK);
    assert_int_equal(nc, 3);
    assert_int_equal(c[0].i, 0);
    assert_int_equal(c[0].j, 2);
    assert_int_equal(c[0].shared, 2);
    assert_int_equal(c[1].shared, 1);
    assert_int_equal(c[2].shared, 1);
    ndd_cand_ws_free(ws);
}

static void test_cand_brute(void **state)
{
    (void)state;
    ndd_cand_ws_t *ws;
    assert_int_equal(ndd_cand_ws_create(&ws), NDD_OK);
    ndd_cand_params_t p;
    ndd_cand_params_default(&p);
    p.all_pairs_upto = 2;
    p.per_doc = 3;
    p.min_shared = 1;
    for (int round = 0; round < 50; round++) {
        size_t n = 3 + rnd() % 40;
        size_t kper = 1 + rnd() % 10;
        uint64_t *keys = malloc(n * kper * sizeof *keys);
        size_t *off = malloc((n + 1) * sizeof *off);
        for (size_t i = 0; i < n; i++) {
            off[i] = i * kper;
            for (size_t k = 0; k < kper; k++)
                keys[i * kper + k] = k * 1000 + rnd() % 6; /* distinct keys inside one doc */
        }
        off[n] = n * kper;
        const ndd_cand_t *c;
        size_t nc;
        assert_int_equal(ndd_cand_select(ws, &p, n, keys, off, &c, &nc), NDD_OK);
        /* brute-force shared counts; every output pair has the right count, i<j,
         * order is strongest first; each member's strongest partner is present */
        for (size_t q = 0; q < nc; q++) {
            assert_true(c[q].i < c[q].j);
            uint32_t s = 0;
            for (size_t a = 0; a < kper; a++)
                for (size_t b = 0; b < kper; b++)
                    s += keys[c[q].i * kper + a] == keys[c[q].j * kper + b];
            assert_int_equal(s, c[q].shared);
            if (q)
                assert_true(c[q - 1].shared >= c[q].shared);
        }
        for (size_t i = 0; i < n; i++) {
            uint32_t best = 0;
            for (size_t j = 0; j < n; j++) {
                if (j == i)
                    continue;
                uint32_t s = 0;
                for (size_t a = 0; a < kper; a++)
                    for (size_t b = 0; b < kper; b++)
                        s += keys[i * kper + a] == keys[j * kper + b];
                if (s > best)
                    best = s;
            }
            if (!best)
                continue;
            int found = 0;
            for (size_t q = 0; q < nc; q++)
                if ((c[q].i == i || c[q].j == i) && c[q].shared == best)
                    found = 1;
            assert_true(found);
        }
        free(keys);
        free(off);
    }
    ndd_cand_ws_free(ws);
}

/* The candidate selection as its rules say, by qsort at every step (the
 * reference for ndd_cand_select's bucket and radix sorts): (key, member)
 * pairs grouped by key; a group of 2..list_cap entries gives all its pairs
 * of different members, a larger one the pairs of its first (least) member;
 * equal pairs counted; sets above all_pairs_upto keep the pairs sharing >=
 * min_shared keys and, of those, each member's per_doc strongest (ties: the
 * lesser partner); smaller sets every pair; out by shared count (more
 * first), then i, then j. */
typedef struct {
    uint64_t key;
    uint32_t m;
} ref_km_t;
static int ref_cmp_km(const void *a, const void *b)
{
    const ref_km_t *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->m > y->m) - (x->m < y->m);
}
static int ref_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}
static int ref_cmp_out(const void *a, const void *b)
{
    const ndd_cand_t *x = a, *y = b;
    if (x->shared != y->shared)
        return x->shared > y->shared ? -1 : 1;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}
static size_t ref_cand(const ndd_cand_params_t *p, size_t n, const uint64_t *keys, const size_t *off, ndd_cand_t *out)
{
    size_t nk = off[n], nr = 0, np = 0, no = 0, rcap = 0, pcap = 0;
    ref_km_t *km = malloc((nk + 1) * sizeof *km);
    uint64_t *raw = NULL;
    ndd_cand_t *pr = NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t k = off[i]; k < off[i + 1]; k++)
            km[k] = (ref_km_t){keys[k], (uint32_t)i};
    ndd_qsort(km, nk, sizeof *km, ref_cmp_km);
    for (size_t a = 0, b; a < nk; a = b) {
        for (b = a + 1; b < nk && km[b].key == km[a].key; b++)
            ;
        for (size_t x = a; b - a >= 2 && x < b; x++)
            for (size_t y = x + 1; y < b; y++) {
                uint32_t u = km[b - a <= p->list_cap ? x : a].m, v = km[y].m;
                if (b - a > p->list_cap && x != a)
                    break;
                if (u == v)
                    continue;
                assert_int_equal(ndd_array_grow((void **)&raw, &rcap, nr + 1, sizeof *raw), NDD_OK);
                raw[nr++] = (uint64_t)(u < v ? u : v) << 32 | (u < v ? v : u);
            }
    }
    ndd_qsort(raw, nr, sizeof *raw, ref_cmp_u64);
    for (size_t a = 0, b; a < nr; a = b) {
        for (b = a + 1; b < nr && raw[b] == raw[a]; b++)
            ;
        if (n > p->all_pairs_upto && b - a < p->min_shared)
            continue;
        assert_int_equal(ndd_array_grow((void **)&pr, &pcap, np + 1, sizeof *pr), NDD_OK);
        pr[np++] = (ndd_cand_t){(uint32_t)(raw[a] >> 32), (uint32_t)raw[a], (uint32_t)(b - a)};
    }
    if (n <= p->all_pairs_upto) {
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++) {
                uint32_t sh = 0;
                for (size_t q = 0; q < np; q++)
                    if (pr[q].i == i && pr[q].j == j)
                        sh = pr[q].shared;
                out[no++] = (ndd_cand_t){i, j, sh};
            }
    } else {
        /* each member's pairs, strongest first (ties: the lesser partner); its first per_doc kept */
        uint64_t(*h)[2] = malloc((2 * np + 1) * sizeof *h);
        uint8_t *keep = calloc(np + 1, 1);
        for (size_t q = 0; q < np; q++)
            for (int side = 0; side < 2; side++) {
                uint64_t me = side ? pr[q].j : pr[q].i, other = side ? pr[q].i : pr[q].j;
                h[2 * q + side][0] = me << 40 | (uint64_t)(0xFFFFFu - pr[q].shared) << 20 | other;
                h[2 * q + side][1] = q;
            }
        ndd_qsort(h, 2 * np, sizeof *h, ref_cmp_u64); /* by the first word: (member, -shared, partner) */
        for (size_t a = 0, taken = 0; a < 2 * np; a++) {
            taken = a && h[a][0] >> 40 == h[a - 1][0] >> 40 ? taken + 1 : 0;
            if (taken < p->per_doc)
                keep[h[a][1]] = 1;
        }
        for (size_t q = 0; q < np; q++)
            if (keep[q])
                out[no++] = pr[q];
        free(h);
        free(keep);
    }
    ndd_qsort(out, no, sizeof *out, ref_cmp_out);
    free(km);
    free(raw);
    free(pr);
    return no;
}

/* ndd_cand_select equals the reference, pair for pair: sets of 2..300
 * members, a few of 2,100..2,600 (three radix digits) and of 3 sharing
 * ~1,200 keys (shared counts far above the pairs' number), keys drawn from
 * small pools (large groups, past list_cap), keys that share their top 16
 * bits (several keys in one bucket, past the insertion sort's 32),
 * repeated keys inside a document, every parameter varied (per_doc 0 and
 * past the 16 of the small sorted list). */
static void test_cand_reference(void **state)
{
    (void)state;
    ndd_cand_ws_t *ws;
    assert_int_equal(ndd_cand_ws_create(&ws), NDD_OK);
    for (int round = 0; round < 400; round++) {
        ndd_cand_params_t p;
        ndd_cand_params_default(&p);
        if (round % 2) {
            p.list_cap = 2 + (unsigned)(rnd() % 70);
            p.all_pairs_upto = 1 + (unsigned)(rnd() % 10);
            p.per_doc = (unsigned)(rnd() % (round % 4 == 1 ? 41 : 10)); /* 0: none kept; above 16: sorted buckets */
            p.min_shared = 1 + (unsigned)(rnd() % 3);
        }
        size_t n = round % 50 == 7 ? 2100 + rnd() % 500 : round % 50 == 9 ? 3 : 2 + rnd() % 300;
        size_t kmax = n > 1000 ? 2 : n == 3 ? 1200 : 1 + rnd() % 12, pool = 1 + rnd() % (round % 3 ? 40 : 400);
        if (n == 3) /* three documents sharing about a thousand keys: counts far above the pairs' number */
            pool = 100000;
        uint64_t top = rnd();
        size_t *off = malloc((n + 1) * sizeof *off);
        uint64_t *keys = malloc(n * kmax * sizeof *keys);
        off[0] = 0;
        for (size_t i = 0; i < n; i++) {
            size_t kn = n == 3 ? kmax : rnd() % (kmax + 1);
            for (size_t k = 0; k < kn; k++) {
                uint64_t v = n == 3 ? k : rnd() % pool;
                /* a third of the rounds: all keys in one top-16-bit bucket */
                keys[off[i] + k] = round % 3 == 2 ? (top & 0xFFFF000000000000ULL) | (v * 0x9E3779B97F4A7C15ULL >> 16)
                                                 : v * 0x9E3779B97F4A7C15ULL;
            }
            off[i + 1] = off[i] + kn;
        }
        const ndd_cand_t *c;
        size_t nc;
        assert_int_equal(ndd_cand_select(ws, &p, n, keys, off, &c, &nc), NDD_OK);
        ndd_cand_t *ref = malloc((nc + n * (n - 1) / 2 + 1) * sizeof *ref);
        size_t nr = ref_cand(&p, n, keys, off, ref);
        assert_int_equal(nc, nr);
        for (size_t q = 0; q < nc; q++) {
            assert_int_equal(c[q].i, ref[q].i);
            assert_int_equal(c[q].j, ref[q].j);
            assert_int_equal(c[q].shared, ref[q].shared);
        }
        free(ref);
        free(keys);
        free(off);
    }
    ndd_cand_ws_free(ws);
}

static void test_url_host(void **state)
{
    (void)state;
    char h[64];
    assert_int_equal(ndd_url_host("https://WWW.Example.COM:8080/a/b?c", h, sizeof h), 11);
    assert_string_equal(h, "example.com");
    ndd_url_host("http://user:pw@news.site.org/x", h, sizeof h);
    assert_string_equal(h, "news.site.org");
    assert_int_equal(ndd_url_host("no-scheme/path", h, sizeof h), 0);
    assert_int_equal(ndd_url_host("", h, sizeof h), 0);
    assert_true(ndd_url_site("https://a.com/1") == ndd_url_site("http://www.a.com/2"));
    assert_true(ndd_url_site("https://a.com/1") != ndd_url_site("https://b.com/1"));
    assert_int_equal(ndd_url_site(""), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uf),
        cmocka_unit_test(test_postings_sort),
        cmocka_unit_test(test_pgroups),
        cmocka_unit_test(test_postings_classify),
        cmocka_unit_test(test_postings_template_rule),
        cmocka_unit_test(test_cand_small_all_pairs),
        cmocka_unit_test(test_cand_brute),
        cmocka_unit_test(test_cand_reference),
        cmocka_unit_test(test_url_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
