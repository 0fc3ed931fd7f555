/* test_baselines.c - baseline methods (SimHash, MinHash-LSH, DDD q-grams,
 * I-Match, Cosine), the df count-min sketch, partitions and the tokeniser.
 * SpotSigs has its own executable (test_spotsigs.c). Oracles: brute force
 * over all pairs, hand-computed cases, exact document frequencies, real text
 * (Reuters-21578 bodies, Clough; skipped when absent). */
#include "ndd_test.h"

#include <dirent.h>
#include <math.h>
#include <openssl/sha.h>
#include <xxhash.h>

#include "base_internal.h"
#include "ndd_baselines.h"

/* ---------------------------------------------------------------- helpers */

#include "base_test_corpus.h"

static const char text_a[] =
    "The river flooded the lower town after three days of rain, and the council opened the school hall "
    "for families who had to leave their homes. Volunteers carried blankets, bread and dry clothes "
    "across the old stone bridge while the water kept rising. By the evening the mayor said the "
    "pumps were working again and that most streets would be passable by the weekend. Farmers upstream "
    "reported damaged fences and lost hay, but no animals were drowned. The weather office expects "
    "a dry week, although another storm may arrive from the west before the end of the month.";
static const char text_b[] =
    "A small software company released a new version of its accounting program on Tuesday, adding "
    "support for several currencies and a faster report generator. Customers had asked for the "
    "change for years, the founder said in a statement. The update is free for existing users and "
    "will be sold to new customers at the old price. Analysts expect the firm to double its sales in "
    "Europe next year if the launch goes well, while competitors are preparing similar tools.";

static ndd_df_t *df_of(const char *const *docs, size_t n)
{
    ndd_df_t *df;
    assert_int_equal(ndd_df_create(&df), NDD_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ndd_df_add_doc(df, docs[i], strlen(docs[i])), NDD_OK);
    return df;
}

/* ------------------------------------------------------------------ tests */

static void test_names_params(void **state)
{
    ndd_method_t m;
    ndd_method_params_t p;
    (void)state;
    for (int i = NDD_METHOD_SIMHASH; i <= NDD_METHOD_COSINE; i++) {
        assert_int_equal(ndd_method_parse(ndd_method_name((ndd_method_t)i), &m), NDD_OK);
        assert_int_equal(m, i);
        assert_int_equal(ndd_method_default_verifier((ndd_method_t)i), i);
    }
    assert_int_equal(ndd_method_parse("SimHash", &m), NDD_OK);
    assert_int_equal(m, NDD_METHOD_SIMHASH);
    assert_int_not_equal(ndd_method_parse("sentence", &m), NDD_OK);
    assert_string_equal(ndd_method_name((ndd_method_t)99), "?");
    assert_true(ndd_method_needs_df(NDD_METHOD_SIMHASH) && ndd_method_needs_df(NDD_METHOD_IMATCH) &&
                ndd_method_needs_df(NDD_METHOD_COSINE));
    assert_false(ndd_method_needs_df(NDD_METHOD_MINHASH) || ndd_method_needs_df(NDD_METHOD_SPOTSIGS) ||
                 ndd_method_needs_df(NDD_METHOD_QGRAM));

    ndd_method_params_default(&p);
    assert_int_equal(ndd_method_params_check(&p), NDD_OK);
    assert_int_equal(ndd_simhash_nkeys(&p), 10); /* C(5, 3) */
    assert_int_equal(ndd_method_params_set(&p, "simhash_blocks", "6"), NDD_OK);
    assert_int_equal(ndd_simhash_nkeys(&p), 20); /* Manku's 20 tables for k = 3 */
    assert_int_equal(ndd_method_params_set(&p, "spot_tau", "0.8"), NDD_OK);
    assert_true(p.spot_tau == 0.8);
    assert_int_equal(ndd_method_params_set(&p, "seed", "0x10"), NDD_OK);
    assert_true(p.seed == 16);
    assert_int_equal(ndd_method_params_set(&p, "bands", "-3"), NDD_ERR_INVAL);
    assert_int_equal(ndd_method_params_set(&p, "bands", "3x"), NDD_ERR_INVAL);
    assert_int_equal(ndd_method_params_set(&p, "nosuch", "1"), NDD_ERR_INVAL);
    assert_int_equal(ndd_method_params_check(&p), NDD_OK);
    p.simhash_blocks = 3; /* must be > k */
    assert_int_equal(ndd_method_params_check(&p), NDD_ERR_INVAL);
    ndd_method_params_default(&p);
    p.spot_tau = 0.0;
    assert_int_equal(ndd_method_params_check(&p), NDD_ERR_INVAL);
    ndd_method_params_default(&p);
    p.imatch_lo = 0.8;
    p.imatch_hi = 0.7;
    assert_int_equal(ndd_method_params_check(&p), NDD_ERR_INVAL);
    {
        ndd_method_ctx_t *c = NULL;
        assert_int_equal(ndd_method_ctx_create(&c, &p, NULL), NDD_ERR_INVAL);
        assert_null(c);
    }
}

static void test_tokeniser(void **state)
{
    base_tok_t t = {0};
    static const char s[] = "Hello, WORLD! na\xc3\xafve caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97 don't 3.5 "
                            "x\xe2\x80\x94y \xef\xbc\x8cz \xff\xfeq";
    static const char *const want[] = {"hello", "world", "na\xc3\xafve", "caf\xc3\xa9", "\xe4\xb8\xad",
                                       "\xe6\x96\x87", "\xe5\xad\x97", "don", "t", "3", "5", "x", "y",
                                       "z", "q", NULL};
    size_t i;
    (void)state;
    assert_int_equal(base_tok_run(&t, s, sizeof s - 1), NDD_OK);
    for (i = 0; want[i]; i++) {
        assert_true(i < t.n);
        assert_int_equal(t.len[i], strlen(want[i]));
        assert_memory_equal(t.low + t.off[i], want[i], t.len[i]);
        assert_true(t.h[i] == ndd_df_term_hash(want[i], strlen(want[i])));
    }
    assert_int_equal(t.n, i);
    assert_int_equal(base_tok_run(&t, "", 0), NDD_OK);
    assert_int_equal(t.n, 0);
    base_tok_free(&t);
}

static void test_partitions(void **state)
{
    static const double taus[] = {0.1, 0.44, 0.5, 0.8, 0.9, 0.95, 1.0};
    (void)state;
    for (size_t ti = 0; ti < sizeof taus / sizeof taus[0]; ti++) {
        double t = taus[ti];
        uint64_t part[1601], k;
        for (uint64_t L = 1; L <= 1600; L++) {
            assert_int_equal(ndd_baselines_partition(t, L, &part[L]), NDD_OK);
            if (L > 1)
                assert_true(part[L] == part[L - 1] || part[L] == part[L - 1] + 1);
        }
        /* every length pair that can reach the threshold lies in the same
         * or adjacent partitions (condition A of paper 004 sec. 4.3) */
        for (uint64_t a = 1; a <= 1600; a++)
            for (uint64_t b = a; b <= 1600; b++) {
                if (!ndd_baselines_ratio_ge(a, b, t))
                    break;
                assert_true(part[b] - part[a] <= 1);
            }
        assert_int_equal(ndd_baselines_partition(t, 0, &k), NDD_ERR_INVAL);
    }
    {
        uint64_t k;
        assert_int_equal(ndd_baselines_partition(0.0, 5, &k), NDD_ERR_INVAL);
        assert_int_equal(ndd_baselines_partition(1.5, 5, &k), NDD_ERR_INVAL);
        /* tau = 1: one partition per length */
        assert_int_equal(ndd_baselines_partition(1.0, 7, &k), NDD_OK);
        assert_true(k == 6);
    }
}

/* ---- df sketch ---- */

static void test_df_exact_small(void **state)
{
    static const char *const docs[] = {"apple banana", "apple cherry", "Apple apple date!", "\xe4\xb8\xad apple"};
    ndd_df_t *df = df_of(docs, 4);
    (void)state;
    assert_true(*ndd_df_ndocs(df) == 4);
    assert_int_equal(ndd_df_get(df, ndd_df_term_hash("apple", 5)), 4);
    assert_int_equal(ndd_df_get(df, ndd_df_term_hash("banana", 6)), 1);
    assert_int_equal(ndd_df_get(df, ndd_df_term_hash("date", 4)), 1);
    assert_int_equal(ndd_df_get(df, ndd_df_term_hash("\xe4\xb8\xad", 3)), 1);
    assert_int_equal(ndd_df_get(df, ndd_df_term_hash("zebra", 5)), 0);
    {
        size_t n;
        uint32_t *cnt = ndd_df_counters(df, &n);
        uint64_t sum = 0;
        assert_int_equal(n, 4u << 20);
        for (size_t i = 0; i < n; i++)
            sum += cnt[i];
        assert_true(sum == 4 * (2 + 2 + 2 + 2)); /* 8 distinct-word entries x depth 4 */
    }
    ndd_df_clear(df);
    assert_true(*ndd_df_ndocs(df) == 0);
    assert_int_equal(ndd_df_get(df, ndd_df_term_hash("apple", 5)), 0);
    ndd_df_free(df);
    assert_int_equal(ndd_df_create_sized(&df, 0, 10), NDD_ERR_INVAL);
    assert_null(df);
    assert_int_equal(ndd_df_create_kind(&df, (ndd_df_kind_t)7, NULL, 4, 10), NDD_ERR_INVAL);
    ndd_df_free(NULL);
}

static void test_df_merge_and_bound(void **state)
{
    corpus_t c = {0};
    ndd_df_t *a, *b, *all, *small;
    size_t n, na, nb;
    (void)state;
    if (!load_reuters(&c, 3000)) {
        for (int i = 0; i < 200; i++)
            corpus_add(&c, i % 2 ? text_a : text_b, strlen(i % 2 ? text_a : text_b) - (size_t)(i % 37));
    }
    assert_int_equal(ndd_df_create_sized(&a, 4, 14), NDD_OK);
    assert_int_equal(ndd_df_create_sized(&b, 4, 14), NDD_OK);
    assert_int_equal(ndd_df_create_sized(&all, 4, 14), NDD_OK);
    for (size_t i = 0; i < c.n; i++) {
        assert_int_equal(ndd_df_add_doc(i % 3 ? a : b, c.doc[i], c.len[i]), NDD_OK);
        assert_int_equal(ndd_df_add_doc(all, c.doc[i], c.len[i]), NDD_OK);
    }
    /* merging by counter sums (what MPI_Allreduce(SUM) does) equals one sketch */
    {
        uint32_t *ca = ndd_df_counters(a, &na), *cb = ndd_df_counters(b, &nb), *cc = ndd_df_counters(all, &n);
        assert_int_equal(na, n);
        assert_int_equal(nb, n);
        for (size_t i = 0; i < n; i++)
            ca[i] += cb[i];
        assert_memory_equal(ca, cc, n * sizeof *ca);
        *ndd_df_ndocs(a) += *ndd_df_ndocs(b);
        assert_true(*ndd_df_ndocs(a) == *ndd_df_ndocs(all));
        assert_true(*ndd_df_ndocs(all) == c.n);
    }
    /* error bound of a deliberately small sketch against exact df:
     * est >= df always; est - df <= e/W * T except with probability e^-depth */
    {
        base_tok_t t = {0};
        uint64_t *x = NULL;
        size_t nx = 0, cap = 0, nterms = 0, over = 0;
        uint64_t T = 0;
        double eps;
        assert_int_equal(ndd_df_create_sized(&small, 4, 10), NDD_OK);
        for (size_t i = 0; i < c.n; i++) {
            size_t m0 = nx;
            assert_int_equal(ndd_df_add_doc(small, c.doc[i], c.len[i]), NDD_OK);
            assert_int_equal(base_tok_run(&t, c.doc[i], c.len[i]), NDD_OK);
            for (size_t j = 0; j < t.n; j++) {
                if (nx == cap) {
                    cap = cap ? 2 * cap : 4096;
                    x = realloc(x, cap * sizeof *x);
                    assert_non_null(x);
                }
                x[nx++] = t.h[j];
            }
            /* distinct per document */
            qsort(x + m0, nx - m0, sizeof *x, cmp_u64t);
            {
                size_t m = m0;
                for (size_t j = m0; j < nx; j++)
                    if (m == m0 || x[m - 1] != x[j])
                        x[m++] = x[j];
                nx = m;
            }
        }
        T = nx;
        qsort(x, nx, sizeof *x, cmp_u64t);
        eps = exp(1.0) / 1024.0 * (double)T;
        for (size_t i = 0; i < nx;) {
            size_t j = i;
            uint32_t est;
            while (j < nx && x[j] == x[i])
                j++;
            est = ndd_df_get(small, x[i]);
            assert_true(est >= j - i);
            if ((double)(est - (j - i)) > eps)
                over++;
            nterms++;
            i = j;
        }
        fprintf(stderr, "[ INFO     ] df sketch 4x2^10 over %zu docs: %zu terms, T=%llu, bound e/W*T=%.0f, "
                        "terms over the bound %zu (%.2f%%; theory <= %.2f%%)\n",
                c.n, nterms, (unsigned long long)T, eps, over, 100.0 * (double)over / (double)nterms,
                100.0 * exp(-4.0));
        assert_true((double)over <= 0.05 * (double)nterms);
        free(x);
        base_tok_free(&t);
        ndd_df_free(small);
    }
    ndd_df_free(a);
    ndd_df_free(b);
    ndd_df_free(all);
    corpus_free(&c);
}

/* ---- SimHash ---- */

static void test_simhash_text(void **state)
{
    static const char *const docs[] = {text_a, text_b, "the river", "a company", "rain in town"};
    ndd_df_t *df = df_of(docs, 5);
    ndd_method_ctx_t *c;
    uint64_t fa, fa2, fb, fe;
    int has;
    ndd_buf_t e = NDD_BUF_INIT;
    double sc;
    int dup;
    (void)state;
    assert_int_equal(ndd_method_ctx_create(&c, NULL, df), NDD_OK);
    assert_int_equal(ndd_simhash_fingerprint(c, text_a, strlen(text_a), &fa, &has), NDD_OK);
    assert_true(has);
    assert_int_equal(ndd_simhash_fingerprint(c, text_a, strlen(text_a), &fa2, &has), NDD_OK);
    assert_true(fa == fa2);
    assert_int_equal(ndd_simhash_fingerprint(c, text_b, strlen(text_b), &fb, &has), NDD_OK);
    /* one word changed */
    ndd_buf_puts(&e, text_a);
    memcpy(strstr(e.data, "blankets"), "pillows!", 8);
    assert_int_equal(ndd_simhash_fingerprint(c, e.data, e.len, &fe, &has), NDD_OK);
    fprintf(stderr, "[ INFO     ] simhash hamming: one word edited %d, unrelated %d\n",
            __builtin_popcountll(fa ^ fe), __builtin_popcountll(fa ^ fb));
    /* ~50 content words: one edited word changes 3 of ~48 shingles (a weighted
     * cosine near 0.94, angle 0.35 rad: Charikar's E[Hamming] = 64 * 0.35 / pi = 7) */
    assert_true(__builtin_popcountll(fa ^ fe) <= 14);
    assert_true(__builtin_popcountll(fa ^ fb) >= 20);
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_SIMHASH, text_a, strlen(text_a), text_a, strlen(text_a), &sc, &dup),
                     NDD_OK);
    assert_true(sc == 64.0 && dup);
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_SIMHASH, text_a, strlen(text_a), text_b, strlen(text_b), &sc, &dup),
                     NDD_OK);
    assert_true(sc == 64 - __builtin_popcountll(fa ^ fb) && !dup);
    /* stopwords only: no features, no keys, duplicate of nothing */
    assert_int_equal(ndd_simhash_fingerprint(c, "the and of", 10, &fe, &has), NDD_OK);
    assert_false(has);
    {
        const uint64_t *k;
        size_t nk;
        assert_int_equal(ndd_method_keys(c, NDD_METHOD_SIMHASH, "the and of", 10, &k, &nk), NDD_OK);
        assert_int_equal(nk, 0);
        assert_int_equal(ndd_method_keys(c, NDD_METHOD_SIMHASH, text_a, strlen(text_a), &k, &nk), NDD_OK);
        assert_int_equal(nk, 10);
        assert_int_equal(ndd_method_compare(c, NDD_METHOD_SIMHASH, "of", 2, "of", 2, &sc, &dup), NDD_OK);
        assert_true(sc == 0.0 && !dup);
    }
    ndd_buf_free(&e);
    ndd_method_ctx_free(c);
    /* a df-weighted method without df */
    assert_int_equal(ndd_method_ctx_create(&c, NULL, NULL), NDD_OK);
    {
        const uint64_t *k;
        size_t nk;
        assert_int_equal(ndd_method_keys(c, NDD_METHOD_SIMHASH, text_a, 10, &k, &nk), NDD_ERR_INVAL);
        assert_int_equal(ndd_method_compare(c, NDD_METHOD_COSINE, text_a, 10, text_a, 10, &sc, &dup), NDD_ERR_INVAL);
        assert_int_equal(ndd_method_keys(c, NDD_METHOD_COSINE, text_a, 10, &k, &nk), NDD_ERR_INVAL);
    }
    ndd_method_ctx_free(c);
    ndd_df_free(df);
}

/* Brute force over random fingerprints and planted near pairs: every pair
 * within Hamming k shares a key (pigeonhole, exact); pairs beyond k that
 * share a key are the extra candidates, compared with the analytic rate. */
static void check_simhash_tables(unsigned blocks)
{
    enum { NR = 2000, NP = 600 };
    ndd_method_params_t p;
    uint64_t fp[NR + NP], (*keys)[32];
    size_t nk[NR + NP], nkey;
    size_t within = 0, found = 0, beyond = 0, extra = 0, total;
    double expect = 0.0;
    ndd_method_params_default(&p);
    p.simhash_blocks = blocks;
    nkey = ndd_simhash_nkeys(&p);
    assert_true(nkey > 0 && nkey <= 32);
    keys = malloc(sizeof(*keys) * (NR + NP));
    assert_non_null(keys);
    for (size_t i = 0; i < NR; i++)
        fp[i] = rnd();
    for (size_t i = 0; i < NP; i++) {
        /* 0..k+2 flipped bits of a random earlier fingerprint */
        uint64_t x = fp[rnd() % NR], flipped = 0;
        unsigned flips = (unsigned)(i % (p.simhash_k + 3));
        while ((unsigned)__builtin_popcountll(flipped) < flips)
            flipped |= (uint64_t)1 << (rnd() % 64);
        fp[NR + i] = x ^ flipped;
    }
    for (size_t i = 0; i < NR + NP; i++)
        assert_int_equal(ndd_simhash_fp_keys(&p, fp[i], keys[i], 32, &nk[i]), NDD_OK);
    for (size_t i = 0; i < NR + NP; i++)
        for (size_t j = i + 1; j < NR + NP; j++) {
            int ham = __builtin_popcountll(fp[i] ^ fp[j]);
            size_t a = 0, b = 0;
            int share = 0;
            while (a < nk[i] && b < nk[j] && !share) {
                if (keys[i][a] < keys[j][b])
                    a++;
                else if (keys[i][a] > keys[j][b])
                    b++;
                else
                    share = 1;
            }
            if (ham <= (int)p.simhash_k) {
                within++;
                found += share;
            } else {
                beyond++;
                extra += share;
            }
        }
    /* a random pair shares the key of a choice of t-k blocks with
     * probability 2^-bits(choice); summed over the C(t,k) choices */
    {
        unsigned t = blocks, r = t - p.simhash_k, idx[64];
        for (unsigned i = 0; i < r; i++)
            idx[i] = i;
        for (;;) {
            unsigned bits = 0;
            int i;
            for (unsigned q = 0; q < r; q++)
                bits += (idx[q] + 1) * 64 / t - idx[q] * 64 / t;
            expect += ldexp(1.0, -(int)bits);
            i = (int)r - 1;
            while (i >= 0 && idx[i] == t - r + (unsigned)i)
                i--;
            if (i < 0)
                break;
            idx[i]++;
            for (unsigned q = (unsigned)i + 1; q < r; q++)
                idx[q] = idx[q - 1] + 1;
        }
    }
    total = within + beyond;
    fprintf(stderr, "[ INFO     ] simhash tables t=%u k=%u (%zu keys): %zu/%zu pairs within k share a key; "
                    "extra candidates %zu of %zu pairs beyond k (%.3g per pair, analytic %.3g)\n",
            blocks, p.simhash_k, nkey, found, within, extra, beyond, (double)extra / (double)beyond, expect);
    assert_true(within >= NP / 2);
    assert_int_equal(found, within);
    /* the planted pairs at k+1, k+2 bits share keys far more often than random
     * ones; only require the measured rate to be of the analytic order */
    assert_true((double)extra <= 3.0 * expect * (double)total + 0.5 * NP);
    free(keys);
}

static void test_simhash_tables(void **state)
{
    (void)state;
    check_simhash_tables(4);
    check_simhash_tables(6);
    check_simhash_tables(5);
}

/* ---- MinHash ---- */

static void test_minhash(void **state)
{
    ndd_method_params_t p;
    uint64_t *a, *b, sa[100], sb[100];
    double sum_err = 0.0;
    int runs = 0;
    (void)state;
    ndd_method_params_default(&p);
    a = malloc(2000 * sizeof *a);
    b = malloc(2000 * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (int jt = 0; jt <= 10; jt++)
        for (int rep = 0; rep < 4; rep++) {
            /* |A u B| = 600 + 100*rep, |A n B| = J * |A u B| */
            size_t u = 600 + 100 * (size_t)rep, in = u * (size_t)jt / 10, oa = (u - in) / 2, ob = u - in - oa;
            size_t na = 0, nb = 0;
            double exact, est;
            for (size_t i = 0; i < in; i++) {
                uint64_t x = rnd();
                a[na++] = x;
                b[nb++] = x;
            }
            for (size_t i = 0; i < oa; i++)
                a[na++] = rnd();
            for (size_t i = 0; i < ob; i++)
                b[nb++] = rnd();
            qsort(a, na, sizeof *a, cmp_u64t);
            qsort(b, nb, sizeof *b, cmp_u64t);
            exact = ndd_jaccard_sets(a, na, b, nb);
            assert_true(fabs(exact - (double)in / (double)u) < 1e-12);
            ndd_minhash_of_set(&p, a, na, sa);
            ndd_minhash_of_set(&p, b, nb, sb);
            est = ndd_minhash_estimate(sa, sb, 100);
            assert_true(fabs(est - exact) <= 0.16); /* > 3 sigma of 100 hashes */
            sum_err += fabs(est - exact);
            runs++;
        }
    fprintf(stderr, "[ INFO     ] minhash 100 hashes: mean |estimate - exact| = %.4f over %d set pairs\n",
            sum_err / runs, runs);
    assert_true(sum_err / runs <= 0.05);
    free(a);
    free(b);

    /* the verifier: exact Jaccard of word 3-shingle sets */
    {
        ndd_method_ctx_t *c;
        double sc;
        int dup;
        const uint64_t *k1, *k2;
        size_t n1, n2;
        uint64_t keep[20];
        assert_int_equal(ndd_method_ctx_create(&c, NULL, NULL), NDD_OK);
        assert_int_equal(ndd_method_compare(c, NDD_METHOD_MINHASH, "a b c d e", 9, "A b c, d f", 10, &sc, &dup),
                         NDD_OK);
        assert_true(fabs(sc - 0.5) < 1e-12 && dup); /* {abc,bcd,cde} vs {abc,bcd,cdf} */
        assert_int_equal(ndd_method_compare(c, NDD_METHOD_MINHASH, "a b c d e", 9, "a b x d e", 9, &sc, &dup),
                         NDD_OK);
        assert_true(sc == 0.0 && !dup);
        assert_int_equal(ndd_method_compare(c, NDD_METHOD_MINHASH, "a b", 3, "a b", 3, &sc, &dup), NDD_OK);
        assert_true(sc == 1.0 && dup); /* shorter than a shingle: one shingle of all words */
        assert_int_equal(ndd_method_keys(c, NDD_METHOD_MINHASH, text_a, strlen(text_a), &k1, &n1), NDD_OK);
        assert_int_equal(n1, 20);
        memcpy(keep, k1, sizeof keep);
        assert_int_equal(ndd_method_keys(c, NDD_METHOD_MINHASH, text_b, strlen(text_b), &k2, &n2), NDD_OK);
        assert_int_equal(n2, 20);
        for (size_t i = 0; i < 20; i++)
            assert_null(bsearch(&k2[i], keep, 20, sizeof *keep, cmp_u64t));
        assert_int_equal(ndd_method_keys(c, NDD_METHOD_MINHASH, "", 0, &k2, &n2), NDD_OK);
        assert_int_equal(n2, 0);
        ndd_method_ctx_free(c);
    }
}

/* ---- DDD q-grams ---- */

static void test_qgram_hand(void **state)
{
    ndd_method_params_t p;
    ndd_method_ctx_t *c;
    const uint64_t *set;
    size_t n;
    double sc;
    int dup;
    static const char *const g3[] = {"Aro", "ros", "ose", "sei", "eis", "isa", "saf", "afl", "flo", "low", "owe", "wer"};
    (void)state;
    ndd_method_params_default(&p);
    p.q = 3;
    p.qgram_threshold = 0.5;
    assert_int_equal(ndd_method_ctx_create(&c, &p, NULL), NDD_OK);
    /* the paper's example: "A rose is a flower" -> Aroseisaflower -> 12 3-grams */
    assert_int_equal(ndd_qgram_set(c, "A rose is a flower.", 19, &set, &n), NDD_OK);
    assert_int_equal(n, 12);
    for (int i = 0; i < 12; i++) {
        uint64_t h = XXH3_64bits(g3[i], 3);
        assert_non_null(bsearch(&h, set, n, sizeof *set, cmp_u64t));
    }
    /* doc_q = |A n B| / max(|A|, |B|): {abc,bcd,cde,def} vs {abc,bcd,cdx,dxy,xyz} = 2/5 */
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_QGRAM, "ab cd-ef", 8, "abcdxyz", 7, &sc, &dup), NDD_OK);
    assert_true(fabs(sc - 0.4) < 1e-12 && !dup);
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_QGRAM, "abcdef", 6, "abcdxy", 6, &sc, &dup), NDD_OK);
    assert_true(fabs(sc - 0.5) < 1e-12 && dup);
    /* characters, not bytes: 4 CJK characters = 2 3-grams */
    assert_int_equal(ndd_qgram_set(c, "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97\xe5\x85\xb8", 12, &set, &n), NDD_OK);
    assert_int_equal(n, 2);
    /* shorter than q: no q-gram, duplicate of nothing */
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_QGRAM, "ab", 2, "ab", 2, &sc, &dup), NDD_OK);
    assert_true(sc == 0.0 && !dup);
    ndd_method_ctx_free(c);
}

/* Prefix-filter keys never miss a pair with doc_q >= t (brute force). */
static void check_qgram_keys(ndd_method_ctx_t *c, uint64_t **sets, size_t *ns, size_t n, const char *what)
{
    keyed_t *kd = NULL;
    size_t nkd = 0, cap = 0, ncand, npairs = 0, nkeys = 0, nel = 0;
    uint64_t *cand;
    double t = ndd_method_ctx_params(c)->qgram_threshold;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *k;
        size_t nk;
        assert_int_equal(ndd_qgram_set_keys(c, sets[i], ns[i], &k, &nk), NDD_OK);
        nkeys += nk;
        nel += ns[i];
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
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            uint64_t in;
            size_t mx = ns[i] > ns[j] ? ns[i] : ns[j];
            ndd_qgram_docq(sets[i], ns[i], sets[j], ns[j], &in);
            if (ndd_baselines_ratio_ge(in, mx, t)) {
                npairs++;
                assert_true(has_pair(cand, ncand, (uint32_t)i, (uint32_t)j));
            }
        }
    fprintf(stderr, "[ INFO     ] qgram keys %s t=%.2f: %zu docs, %zu pairs >= t, all among %zu candidate pairs "
                    "of %zu; %.1f keys per doc (%.1f%% of its q-grams)\n",
            what, t, n, npairs, ncand, n * (n - 1) / 2, (double)nkeys / (double)n, 100.0 * (double)nkeys / (double)nel);
    free(cand);
    free(kd);
}

static void test_qgram_keys_generated(void **state)
{
    static const double ts[] = {0.5, 0.8, 0.95, 1.0};
    enum { N = 1200 };
    uint64_t *sets[N];
    size_t ns[N];
    (void)state;
    for (size_t ti = 0; ti < 4; ti++) {
        ndd_method_params_t p;
        ndd_method_ctx_t *c;
        ndd_method_params_default(&p);
        p.qgram_threshold = ts[ti];
        assert_int_equal(ndd_method_ctx_create(&c, &p, NULL), NDD_OK);
        for (size_t i = 0; i < N; i++) {
            size_t len = 1 + rnd() % 200, m = 0;
            sets[i] = malloc((len + 210) * sizeof **sets);
            assert_non_null(sets[i]);
            if (i >= 100 && rnd() % 2) {
                /* near copy of an earlier set: drop and add a few elements */
                size_t src = rnd() % i;
                double keep = 0.7 + 0.3 * rndu();
                for (size_t j = 0; j < ns[src]; j++)
                    if (rndu() < keep)
                        sets[i][m++] = sets[src][j];
                for (size_t add = rnd() % 4; add > 0; add--)
                    sets[i][m++] = rnd() % 5000;
            } else {
                for (size_t j = 0; j < len; j++)
                    sets[i][m++] = rnd() % 5000; /* a small universe: many chance overlaps */
            }
            qsort(sets[i], m, sizeof **sets, cmp_u64t);
            {
                size_t u = 0;
                for (size_t j = 0; j < m; j++)
                    if (!u || sets[i][u - 1] != sets[i][j])
                        sets[i][u++] = sets[i][j];
                ns[i] = u;
            }
        }
        check_qgram_keys(c, sets, ns, N, "generated");
        for (size_t i = 0; i < N; i++)
            free(sets[i]);
        ndd_method_ctx_free(c);
    }
}

static void test_qgram_keys_real(void **state)
{
    corpus_t c = {0}, r = {0};
    ndd_method_ctx_t *ctx;
    ndd_buf_t e = NDD_BUF_INIT;
    uint64_t **sets;
    size_t *ns;
    int have = 0;
    (void)state;
    have |= load_clough(&c);
    if (load_reuters(&r, 250)) {
        /* Reuters bodies plus edited copies at 0-20% word edits */
        for (size_t i = 0; i < r.n; i++) {
            corpus_add(&c, r.doc[i], r.len[i]);
            edit_copy(r.doc[i], r.len[i], 0.2 * rndu(), r.doc[(i + 7) % r.n], r.len[(i + 7) % r.n], &e);
            corpus_add(&c, e.data, e.len);
        }
        have = 1;
    }
    if (!have) {
        corpus_free(&c);
        skip();
    }
    for (int pass = 0; pass < 3; pass++) {
        ndd_method_params_t p;
        ndd_df_t *dq = NULL;
        ndd_method_params_default(&p);
        p.qgram_threshold = pass == 2 ? 0.5 : 0.8;
        assert_int_equal(ndd_method_ctx_create(&ctx, &p, NULL), NDD_OK);
        if (pass > 0) {
            /* keys rarest q-gram first: a q-gram df sketch over the corpus */
            assert_int_equal(ndd_df_create_kind(&dq, NDD_DF_QGRAMS, &p, 4, 20), NDD_OK);
            for (size_t i = 0; i < c.n; i++)
                assert_int_equal(ndd_df_add_doc(dq, c.doc[i], c.len[i]), NDD_OK);
            assert_int_equal(ndd_method_ctx_add_df(ctx, dq), NDD_OK);
        }
        sets = calloc(c.n, sizeof *sets);
        ns = calloc(c.n, sizeof *ns);
        for (size_t i = 0; i < c.n; i++) {
            const uint64_t *s;
            const uint64_t *k1;
            size_t n1;
            assert_int_equal(ndd_qgram_set(ctx, c.doc[i], c.len[i], &s, &ns[i]), NDD_OK);
            sets[i] = malloc((ns[i] + 1) * sizeof **sets);
            memcpy(sets[i], s, ns[i] * sizeof *s);
            /* ndd_method_keys = keys of the set */
            if (i < 5) {
                uint64_t *copy;
                const uint64_t *k2;
                size_t n2;
                assert_int_equal(ndd_method_keys(ctx, NDD_METHOD_QGRAM, c.doc[i], c.len[i], &k1, &n1), NDD_OK);
                copy = malloc((n1 + 1) * sizeof *copy);
                memcpy(copy, k1, n1 * sizeof *k1);
                assert_int_equal(ndd_qgram_set_keys(ctx, sets[i], ns[i], &k2, &n2), NDD_OK);
                assert_int_equal(n1, n2);
                assert_memory_equal(copy, k2, n1 * sizeof *k2);
                free(copy);
            }
        }
        check_qgram_keys(ctx, sets, ns, c.n, pass ? "clough+reuters, df order" : "clough+reuters, hash order");
        for (size_t i = 0; i < c.n; i++)
            free(sets[i]);
        free(sets);
        free(ns);
        ndd_method_ctx_free(ctx);
        ndd_df_free(dq);
    }
    ndd_buf_free(&e);
    corpus_free(&c);
    corpus_free(&r);
}

/* ---- I-Match ---- */

static void test_imatch(void **state)
{
    static const char *const docs[] = {"common alpha beta", "common gamma", "common delta alpha",
                                       "common epsilon", "common zeta", "common eta", "common theta beta"};
    ndd_df_t *df = df_of(docs, 7);
    ndd_method_params_t p;
    ndd_method_ctx_t *c;
    unsigned char m1[20], m2[20], m3[20];
    size_t n1, n2, n3;
    double sc;
    int dup;
    (void)state;
    ndd_method_params_default(&p);
    p.imatch_lo = 0.1;
    p.imatch_hi = 1.0;
    assert_int_equal(ndd_method_ctx_create(&c, &p, df), NDD_OK);
    /* re-ordered and repeated terms, different case: one digest; "common"
     * (idf 0) is outside the band */
    assert_int_equal(ndd_imatch_digest(c, "alpha beta gamma", 16, m1, &n1), NDD_OK);
    assert_int_equal(ndd_imatch_digest(c, "Gamma, beta; ALPHA beta alpha common", 36, m2, &n2), NDD_OK);
    assert_int_equal(n1, 3);
    assert_int_equal(n2, 3);
    assert_memory_equal(m1, m2, 20);
    /* the oracle: SHA1 of the sorted terms, each followed by '\n' */
    {
        unsigned char want[20];
        SHA1((const unsigned char *)"alpha\nbeta\ngamma\n", 17, want);
        assert_memory_equal(m1, want, 20);
    }
    assert_int_equal(ndd_imatch_digest(c, "alpha beta delta", 16, m3, &n3), NDD_OK);
    assert_memory_not_equal(m1, m3, 20);
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_IMATCH, "alpha beta gamma", 16, "beta gamma alpha alpha", 22,
                                        &sc, &dup), NDD_OK);
    assert_true(dup && sc == 1.0);
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_IMATCH, "alpha beta gamma", 16, "alpha beta delta", 16, &sc,
                                        &dup), NDD_OK);
    assert_true(!dup && sc == 0.0);
    {
        const uint64_t *k;
        size_t nk;
        uint64_t want;
        assert_int_equal(ndd_method_keys(c, NDD_METHOD_IMATCH, "gamma alpha beta", 16, &k, &nk), NDD_OK);
        assert_int_equal(nk, 1);
        memcpy(&want, m1, 8);
        assert_true(k[0] == want);
        /* only out-of-band terms: no key, duplicate of nothing */
        assert_int_equal(ndd_method_keys(c, NDD_METHOD_IMATCH, "common", 6, &k, &nk), NDD_OK);
        assert_int_equal(nk, 0);
        assert_int_equal(ndd_method_compare(c, NDD_METHOD_IMATCH, "common", 6, "common", 6, &sc, &dup), NDD_OK);
        assert_false(dup);
    }
    ndd_method_ctx_free(c);
    /* the default band [0.4, 0.75]: with N = 7, idf(df=1) = 1 is outside,
     * idf(df=2) = ln(3.5)/ln(7) = 0.64 inside */
    assert_int_equal(ndd_method_ctx_create(&c, NULL, df), NDD_OK);
    assert_int_equal(ndd_imatch_digest(c, "alpha gamma beta zeta", 21, m1, &n1), NDD_OK);
    assert_int_equal(n1, 2); /* alpha, beta */
    ndd_method_ctx_free(c);
    ndd_df_free(df);
}

/* ---- Cosine ---- */

static void test_cosine(void **state)
{
    static const char *const docs[] = {"red apple", "green apple", "red car", "blue sky"};
    ndd_df_t *df = df_of(docs, 4);
    ndd_method_ctx_t *c;
    double sc, x, y;
    int dup;
    (void)state;
    assert_int_equal(ndd_method_ctx_create(&c, NULL, df), NDD_OK);
    /* red and apple have the same df, so idf cancels: (1,2).(1,1) / (|(1,2)| |(1,1)|) = 3/sqrt(10) */
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_COSINE, "red apple apple", 15, "Red, apple.", 11, &sc, &dup),
                     NDD_OK);
    assert_true(fabs(sc - 3.0 / sqrt(10.0)) < 1e-12);
    assert_false(dup); /* 0.9487 < 0.95 */
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_COSINE, "apple red", 9, "red apple", 9, &sc, &dup), NDD_OK);
    assert_true(fabs(sc - 1.0) < 1e-12 && dup);
    /* different idf: red df 2, sky df 1, car df 1 (N = 4):
     * idf = 1 + ln(5 / (1 + df)) */
    x = 1.0 + log(5.0 / 3.0);
    y = 1.0 + log(5.0 / 2.0);
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_COSINE, "red sky", 7, "red car", 7, &sc, &dup), NDD_OK);
    assert_true(fabs(sc - x * x / (x * x + y * y)) < 1e-12);
    assert_false(dup);
    assert_int_equal(ndd_method_compare(c, NDD_METHOD_COSINE, "", 0, "red", 3, &sc, &dup), NDD_OK);
    assert_true(sc == 0.0 && !dup);
    ndd_method_ctx_free(c);
    ndd_df_free(df);
}

/* ---- every method on real text: identical texts are duplicates, distinct
 * articles mostly are not, keys sorted unique and stable ---- */

static void test_methods_real(void **state)
{
    corpus_t c = {0};
    ndd_df_t *df;
    ndd_method_ctx_t *ctx;
    (void)state;
    if (!load_reuters(&c, 400) && !load_clough(&c)) {
        skip();
    }
    assert_int_equal(ndd_df_create(&df), NDD_OK);
    for (size_t i = 0; i < c.n; i++)
        assert_int_equal(ndd_df_add_doc(df, c.doc[i], c.len[i]), NDD_OK);
    assert_int_equal(ndd_method_ctx_create(&ctx, NULL, df), NDD_OK);
    for (int m = NDD_METHOD_SIMHASH; m <= NDD_METHOD_COSINE; m++) {
        size_t self_dup = 0, self_n = 0, other_dup = 0, other_n = 0;
        for (size_t i = 0; i + 1 < c.n; i += 2) {
            double sc;
            int dup;
            if (m != NDD_METHOD_COSINE) {
                const uint64_t *k;
                size_t nk;
                uint64_t first = 0;
                assert_int_equal(ndd_method_keys(ctx, (ndd_method_t)m, c.doc[i], c.len[i], &k, &nk), NDD_OK);
                for (size_t j = 1; j < nk; j++)
                    assert_true(k[j - 1] < k[j]);
                if (nk)
                    first = k[0];
                assert_int_equal(ndd_method_keys(ctx, (ndd_method_t)m, c.doc[i], c.len[i], &k, &nk), NDD_OK);
                assert_true(!nk || k[0] == first);
            }
            assert_int_equal(ndd_method_compare(ctx, (ndd_method_t)m, c.doc[i], c.len[i], c.doc[i], c.len[i], &sc, &dup),
                             NDD_OK);
            self_n++;
            self_dup += dup;
            assert_int_equal(ndd_method_compare(ctx, (ndd_method_t)m, c.doc[i], c.len[i], c.doc[i + 1], c.len[i + 1],
                                                &sc, &dup), NDD_OK);
            other_n++;
            other_dup += dup;
        }
        fprintf(stderr, "[ INFO     ] %-8s: a text vs itself duplicate %zu/%zu, vs the next article %zu/%zu\n",
                ndd_method_name((ndd_method_t)m), self_dup, self_n, other_dup, other_n);
        /* texts with no features (no spot signature, no I-Match term) are no one's duplicate */
        if (m == NDD_METHOD_SPOTSIGS || m == NDD_METHOD_IMATCH)
            assert_true(self_dup >= self_n * 6 / 10);
        else
            assert_true(self_dup == self_n);
        assert_true(other_dup <= other_n / 10);
    }
    ndd_method_ctx_free(ctx);
    ndd_df_free(df);
    corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_params),
        cmocka_unit_test(test_tokeniser),
        cmocka_unit_test(test_partitions),
        cmocka_unit_test(test_df_exact_small),
        cmocka_unit_test(test_df_merge_and_bound),
        cmocka_unit_test(test_simhash_text),
        cmocka_unit_test(test_simhash_tables),
        cmocka_unit_test(test_minhash),
        cmocka_unit_test(test_qgram_hand),
        cmocka_unit_test(test_qgram_keys_generated),
        cmocka_unit_test(test_qgram_keys_real),
        cmocka_unit_test(test_imatch),
        cmocka_unit_test(test_cosine),
        cmocka_unit_test(test_methods_real),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
