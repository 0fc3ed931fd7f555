/* test_spotsigs.c - SpotSigs (paper 004): spot extraction on the paper's
 * sentence, multiset Jaccard on the paper's example, the exact all-pairs
 * matcher against brute force (generated collections and real text:
 * Reuters-21578 bodies with edited copies, Clough; skipped when absent), and
 * the candidate keys ndd run uses (never missing a pair brute force accepts). */
#include "ndd_test.h"

#include <dirent.h>
#include <math.h>

#include "ndd_baselines.h"

/* ---------------------------------------------------------------- helpers */

#include "base_test_corpus.h"


/* ------------------------------------------------------------- vectors */

typedef struct vecs {
    ndd_spotsigs_vec_t *v;
    ndd_spot_entry_t **own;
    size_t n;
} vecs_t;

static void vecs_from_corpus(ndd_method_ctx_t *c, const corpus_t *cp, vecs_t *vs)
{
    vs->n = cp->n;
    vs->v = calloc(cp->n + 1, sizeof *vs->v);
    vs->own = calloc(cp->n + 1, sizeof *vs->own);
    assert_non_null(vs->v);
    assert_non_null(vs->own);
    for (size_t i = 0; i < cp->n; i++) {
        const ndd_spot_entry_t *e;
        size_t ne;
        assert_int_equal(ndd_spotsigs_vector(c, cp->doc[i], cp->len[i], &e, &ne), NDD_OK);
        vs->own[i] = malloc((ne + 1) * sizeof *e);
        assert_non_null(vs->own[i]);
        memcpy(vs->own[i], e, ne * sizeof *e);
        vs->v[i].e = vs->own[i];
        vs->v[i].n = ne;
    }
}

static void vecs_free(vecs_t *vs)
{
    for (size_t i = 0; i < vs->n; i++)
        free(vs->own[i]);
    free(vs->own);
    free(vs->v);
    memset(vs, 0, sizeof *vs);
}

static int cmp_entry(const void *x, const void *y)
{
    const ndd_spot_entry_t *a = x, *b = y;
    return (a->h > b->h) - (a->h < b->h);
}

/* Random multisets: signature ids from a Zipf-like vocabulary, lengths from
 * 1 to ~400, and near copies (frequencies changed, signatures dropped and
 * added) of earlier documents so that many pairs sit near any threshold. */
static void vecs_generate(vecs_t *vs, size_t n)
{
    vs->n = n;
    vs->v = calloc(n, sizeof *vs->v);
    vs->own = calloc(n, sizeof *vs->own);
    assert_non_null(vs->v);
    assert_non_null(vs->own);
    for (size_t i = 0; i < n; i++) {
        ndd_spot_entry_t *e = malloc(1000 * sizeof *e);
        size_t m = 0;
        assert_non_null(e);
        if (i >= 50 && rnd() % 3 != 0) {
            const ndd_spotsigs_vec_t *src = &vs->v[rnd() % i];
            double drop = 0.3 * rndu(), bump = 0.3 * rndu();
            for (size_t j = 0; j < src->n; j++) {
                ndd_spot_entry_t x = src->e[j];
                if (rndu() < drop)
                    continue;
                if (rndu() < bump)
                    x.f = x.f + 1 + (uint32_t)(rnd() % 3);
                else if (x.f > 1 && rndu() < bump)
                    x.f--;
                e[m++] = x;
            }
            for (size_t add = rnd() % 5; add > 0 && m < 990; add--) {
                e[m].h = 1000000 + rnd() % 100000;
                e[m].f = 1;
                m++;
            }
        } else {
            size_t len = 1 + (size_t)(rndu() * rndu() * 300);
            for (size_t j = 0; j < len && m < 990; j++) {
                /* rank ~ 1/u: a few very common signatures, a long tail */
                double u = rndu();
                e[m].h = (uint64_t)(1.0 / (u * u + 1e-6)) % 50000;
                e[m].f = 1 + (rnd() % 8 == 0 ? (uint32_t)(rnd() % 4) : 0);
                m++;
            }
        }
        /* canonical form: sorted, unique h (frequencies summed) */
        qsort(e, m, sizeof *e, cmp_entry);
        {
            size_t u = 0;
            for (size_t j = 0; j < m; j++) {
                if (u && e[u - 1].h == e[j].h)
                    e[u - 1].f += e[j].f;
                else
                    e[u++] = e[j];
            }
            m = u;
        }
        vs->own[i] = e;
        vs->v[i].e = e;
        vs->v[i].n = m;
    }
}

/* Brute force: every pair, multiset Jaccard >= tau (same predicate). */
static ndd_spotsigs_pair_t *brute(const vecs_t *vs, double tau, size_t *np)
{
    ndd_spotsigs_pair_t *p = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < vs->n; i++)
        for (size_t j = i + 1; j < vs->n; j++) {
            uint64_t num, den;
            ndd_spotsigs_jaccard(vs->v[i].e, vs->v[i].n, vs->v[j].e, vs->v[j].n, &num, &den);
            if (!ndd_baselines_ratio_ge(num, den, tau))
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                p = realloc(p, cap * sizeof *p);
                assert_non_null(p);
            }
            p[n].a = (uint32_t)i;
            p[n].b = (uint32_t)j;
            p[n].sim = (double)num / (double)den;
            n++;
        }
    *np = n;
    return p;
}

static void check_allpairs(const vecs_t *vs, double tau, const char *what)
{
    ndd_spotsigs_pair_t *got = NULL, *want;
    size_t ngot = 0, nwant;
    ndd_spotsigs_stats_t st;
    want = brute(vs, tau, &nwant);
    assert_int_equal(ndd_spotsigs_allpairs(vs->v, vs->n, tau, &got, &ngot, &st), NDD_OK);
    fprintf(stderr, "[ INFO     ] spotsigs all-pairs %s tau=%.2f: %llu docs, %llu partitions, %zu pairs (brute "
                    "force %zu); Jaccard computations %llu = %.4f%% of the %llu pairs, %.3f%% of the %llu "
                    "same/adjacent-partition pairs; postings read %llu, early ends %llu\n",
            what, tau, (unsigned long long)st.docs, (unsigned long long)st.partitions, ngot, nwant,
            (unsigned long long)st.jaccard_calls, st.pairs_all ? 100.0 * (double)st.jaccard_calls / (double)st.pairs_all : 0.0,
            (unsigned long long)st.pairs_all,
            st.pairs_partition ? 100.0 * (double)st.jaccard_calls / (double)st.pairs_partition : 0.0,
            (unsigned long long)st.pairs_partition, (unsigned long long)st.postings_read,
            (unsigned long long)st.early_breaks);
    assert_int_equal(ngot, nwant);
    for (size_t i = 0; i < ngot; i++) {
        assert_int_equal(got[i].a, want[i].a);
        assert_int_equal(got[i].b, want[i].b);
        assert_true(got[i].sim == want[i].sim);
    }
    assert_true(st.jaccard_calls <= st.pairs_partition);
    assert_true(st.pairs_partition <= st.pairs_all);
    free(got);
    free(want);
}

/* The keys of every vector: pairs sharing a key include every brute-force pair. */
static void check_keys(ndd_method_ctx_t *c, const vecs_t *vs, double tau, const char *what)
{
    keyed_t *kd = NULL;
    size_t nkd = 0, cap = 0, ncand, nwant, nkeys = 0, nsig = 0;
    uint64_t *cand;
    ndd_spotsigs_pair_t *want = brute(vs, tau, &nwant);
    assert_true(ndd_method_ctx_params(c)->spot_tau == tau);
    for (size_t i = 0; i < vs->n; i++) {
        const uint64_t *k;
        size_t nk;
        assert_int_equal(ndd_spotsigs_vec_keys(c, vs->v[i].e, vs->v[i].n, &k, &nk), NDD_OK);
        nkeys += nk;
        for (size_t j = 0; j < vs->v[i].n; j++)
            nsig += vs->v[i].e[j].f;
        for (size_t j = 0; j < nk; j++) {
            if (nkd == cap) {
                cap = cap ? 2 * cap : 4096;
                kd = realloc(kd, cap * sizeof *kd);
                assert_non_null(kd);
            }
            kd[nkd].key = k[j];
            kd[nkd].doc = (uint32_t)i;
            nkd++;
        }
    }
    cand = cand_pairs(kd, nkd, &ncand);
    for (size_t i = 0; i < nwant; i++)
        assert_true(has_pair(cand, ncand, want[i].a, want[i].b));
    fprintf(stderr, "[ INFO     ] spotsigs keys %s tau=%.2f: %zu pairs >= tau, all among %zu candidate pairs of "
                    "%zu; %.1f keys per doc (%.1f%% of its signatures)\n",
            what, tau, nwant, ncand, vs->n * (vs->n - 1) / 2, (double)nkeys / (double)vs->n,
            nsig ? 100.0 * (double)nkeys / (double)nsig : 0.0);
    free(cand);
    free(kd);
    free(want);
}

/* ------------------------------------------------------------------ tests */

static const char paper_sentence[] =
    "At a rally to kick off a weeklong campaign for the South Carolina primary, Obama tried to set the "
    "record straight from an attack circulating widely on the Internet that is designed to play into "
    "prejudices against Muslims and fears of terrorism.";

static void expect_strings(ndd_method_ctx_t *c, const char *text, const char *want)
{
    ndd_buf_t out = NDD_BUF_INIT;
    assert_int_equal(ndd_spotsigs_strings(c, text, strlen(text), &out), NDD_OK);
    assert_string_equal(out.data ? out.data : "", want);
    ndd_buf_free(&out);
}

static void test_extraction(void **state)
{
    ndd_method_params_t p;
    ndd_method_ctx_t *c;
    (void)state;
    /* the paper's example (sec. 3): antecedents a, an, the, is; d = 1, c = 2
     * (our default antecedents add be/can/will/have/do forms, absent here) */
    ndd_method_params_default(&p);
    p.spot_distance = 1;
    p.spot_chain = 2;
    assert_int_equal(ndd_method_ctx_create(&c, &p, NULL), NDD_OK);
    expect_strings(c, paper_sentence,
                   "a:rally:kick\na:weeklong:campaign\nthe:south:carolina\nthe:record:straight\n"
                   "an:attack:circulating\nthe:internet:designed\nis:designed:play\n");
    /* cut off by the end of the text once one word is found; none without */
    expect_strings(c, "Where is the end", "is:end\nthe:end\n");
    expect_strings(c, "this is", "");
    expect_strings(c, "Mais n'est-ce pas le cas? \xe6\x98\xaf\xe7\x9a\x84", "");
    ndd_method_ctx_free(c);
    /* defaults d = 2, c = 3, hand-derived: every 2nd word, stopwords skipped */
    assert_int_equal(ndd_method_ctx_create(&c, NULL, NULL), NDD_OK);
    expect_strings(c, paper_sentence,
                   "a:kick:weeklong:south\na:campaign:south:primary\nthe:carolina:obama:set\n"
                   "the:straight:attack:widely\nan:circulating:internet:designed\n"
                   "the:designed:play:prejudices\nis:play:prejudices:muslims\n");
    {
        const ndd_spot_entry_t *e;
        size_t ne;
        ndd_buf_t t = NDD_BUF_INIT;
        /* the sentence twice: every signature twice (a multiset) */
        ndd_buf_puts(&t, paper_sentence);
        ndd_buf_puts(&t, " ");
        ndd_buf_puts(&t, paper_sentence);
        assert_int_equal(ndd_spotsigs_vector(c, t.data, t.len, &e, &ne), NDD_OK);
        assert_true(ne >= 7);
        for (size_t i = 1; i < ne; i++)
            assert_true(e[i - 1].h < e[i].h);
        {
            uint64_t twice = 0;
            for (size_t i = 0; i < ne; i++)
                twice += e[i].f >= 2;
            assert_true(twice >= 6); /* chains across the junction differ */
        }
        ndd_buf_free(&t);
    }
    ndd_method_ctx_free(c);
}

static void test_paper_example(void **state)
{
    /* sec. 4.5: d1 = {s1:5, s2:4, s3:4}, d2 = {s1:8, s2:4}, d3 = {s1:4, s2:5, s3:5} */
    static const ndd_spot_entry_t d1[] = {{1, 5}, {2, 4}, {3, 4}}, d2[] = {{1, 8}, {2, 4}}, d3[] = {{1, 4}, {2, 5}, {3, 5}};
    ndd_spotsigs_vec_t v[3] = {{d1, 3}, {d2, 2}, {d3, 3}};
    ndd_spotsigs_pair_t *p;
    size_t np;
    uint64_t num, den;
    (void)state;
    ndd_spotsigs_jaccard(d1, 3, d3, 3, &num, &den);
    assert_true(num == 12 && den == 15); /* 0.8 */
    ndd_spotsigs_jaccard(d1, 3, d2, 2, &num, &den);
    assert_true(num == 9 && den == 16);
    ndd_spotsigs_jaccard(d2, 2, d3, 3, &num, &den);
    assert_true(num == 8 && den == 18);
    assert_int_equal(ndd_spotsigs_allpairs(v, 3, 0.8, &p, &np, NULL), NDD_OK);
    assert_int_equal(np, 1);
    assert_true(p[0].a == 0 && p[0].b == 2 && fabs(p[0].sim - 0.8) < 1e-15);
    free(p);
    assert_int_equal(ndd_spotsigs_allpairs(v, 3, 0.5, &p, &np, NULL), NDD_OK);
    assert_int_equal(np, 2);
    assert_true(p[0].a == 0 && p[0].b == 1 && p[1].a == 0 && p[1].b == 2);
    free(p);
    assert_int_equal(ndd_spotsigs_allpairs(v, 3, 0.0, &p, &np, NULL), NDD_ERR_INVAL);
    assert_int_equal(ndd_spotsigs_allpairs(v, 0, 0.5, &p, &np, NULL), NDD_OK);
    assert_int_equal(np, 0);
    assert_null(p);
    /* the verifier through texts: identical -> 1, no signature -> nothing */
    {
        ndd_method_ctx_t *c;
        double sc;
        int dup;
        assert_int_equal(ndd_method_ctx_create(&c, NULL, NULL), NDD_OK);
        assert_int_equal(ndd_method_compare(c, NDD_METHOD_SPOTSIGS, paper_sentence, strlen(paper_sentence),
                                            paper_sentence, strlen(paper_sentence), &sc, &dup), NDD_OK);
        assert_true(sc == 1.0 && dup);
        assert_int_equal(ndd_method_compare(c, NDD_METHOD_SPOTSIGS, "stock up", 8, "stock up", 8, &sc, &dup), NDD_OK);
        assert_true(sc == 0.0 && !dup);
        ndd_method_ctx_free(c);
    }
}

static void test_allpairs_generated(void **state)
{
    static const double taus[] = {0.1, 0.44, 0.6, 0.8, 0.9, 1.0};
    vecs_t vs = {0};
    (void)state;
    vecs_generate(&vs, 1500);
    for (size_t i = 0; i < sizeof taus / sizeof taus[0]; i++) {
        ndd_method_params_t p;
        ndd_method_ctx_t *c;
        check_allpairs(&vs, taus[i], "generated");
        ndd_method_params_default(&p);
        p.spot_tau = taus[i];
        assert_int_equal(ndd_method_ctx_create(&c, &p, NULL), NDD_OK);
        check_keys(c, &vs, taus[i], "generated");
        ndd_method_ctx_free(c);
    }
    vecs_free(&vs);
}

static void test_allpairs_real(void **state)
{
    corpus_t r = {0}, cl = {0}, all = {0};
    ndd_buf_t e = NDD_BUF_INIT;
    ndd_method_ctx_t *c;
    vecs_t vs = {0};
    int have_r, have_c;
    (void)state;
    have_r = load_reuters(&r, 2500);
    have_c = load_clough(&cl);
    if (!have_r && !have_c)
        skip();
    assert_int_equal(ndd_method_ctx_create(&c, NULL, NULL), NDD_OK);
    if (have_c) {
        vecs_from_corpus(c, &cl, &vs);
        check_allpairs(&vs, 0.44, "clough");
        check_allpairs(&vs, 0.2, "clough");
        vecs_free(&vs);
    }
    if (have_r) {
        /* the bodies plus 500 copies with 0-30% of their words edited */
        for (size_t i = 0; i < r.n; i++)
            corpus_add(&all, r.doc[i], r.len[i]);
        for (size_t i = 0; i < 500; i++) {
            size_t s = rnd() % r.n, d = rnd() % r.n;
            edit_copy(r.doc[s], r.len[s], 0.3 * rndu(), r.doc[d], r.len[d], &e);
            corpus_add(&all, e.data, e.len);
        }
        vecs_from_corpus(c, &all, &vs);
        check_allpairs(&vs, 0.44, "reuters+edits");
        check_allpairs(&vs, 0.8, "reuters+edits");
        check_allpairs(&vs, 1.0, "reuters+edits");
        check_keys(c, &vs, 0.44, "reuters+edits, hash order");
        {
            /* keys rarest signature first: a spot df sketch over the collection */
            ndd_df_t *ds;
            ndd_method_ctx_t *c2;
            const uint64_t *k1;
            size_t n1;
            assert_int_equal(ndd_df_create_kind(&ds, NDD_DF_SPOTSIGS, NULL, 4, 20), NDD_OK);
            for (size_t i = 0; i < all.n; i++)
                assert_int_equal(ndd_df_add_doc(ds, all.doc[i], all.len[i]), NDD_OK);
            assert_int_equal(ndd_method_ctx_create(&c2, NULL, ds), NDD_OK);
            check_keys(c2, &vs, 0.44, "reuters+edits, df order");
            /* ndd_method_keys on the text = keys of its vector */
            for (size_t i = 0; i < 20; i++) {
                uint64_t *copy;
                const uint64_t *k2;
                size_t n2;
                assert_int_equal(ndd_method_keys(c2, NDD_METHOD_SPOTSIGS, all.doc[i], all.len[i], &k1, &n1), NDD_OK);
                copy = malloc((n1 + 1) * sizeof *copy);
                memcpy(copy, k1, n1 * sizeof *k1);
                assert_int_equal(ndd_spotsigs_vec_keys(c2, vs.v[i].e, vs.v[i].n, &k2, &n2), NDD_OK);
                assert_int_equal(n1, n2);
                assert_memory_equal(copy, k2, n1 * sizeof *k2);
                free(copy);
            }
            /* a sketch built with other spot parameters is refused */
            {
                ndd_method_params_t p;
                ndd_method_params_default(&p);
                p.spot_chain = 2;
                ndd_method_ctx_free(c2);
                assert_int_equal(ndd_method_ctx_create(&c2, &p, ds), NDD_ERR_INVAL);
            }
            ndd_df_free(ds);
        }
        vecs_free(&vs);
    }
    ndd_method_ctx_free(c);
    ndd_buf_free(&e);
    corpus_free(&r);
    corpus_free(&cl);
    corpus_free(&all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extraction),
        cmocka_unit_test(test_paper_example),
        cmocka_unit_test(test_allpairs_generated),
        cmocka_unit_test(test_allpairs_real),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
