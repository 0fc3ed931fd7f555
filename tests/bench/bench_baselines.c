/* bench_baselines.c - figures of the baseline methods on real text
 * (Reuters-21578 bodies, optionally with edited copies): keys per document
 * and CPU time, candidate pairs (pairs sharing >= 1 key) and how many the
 * natural verifier accepts, SimHash table false candidates, q-gram / spot
 * key order (hash vs df), and the SpotSigs all-pairs matcher against an
 * unpruned inverted index on the whole collection.
 * Usage: bench_baselines REUTERS_DIR [max_docs] [edited_copies] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndd_baselines.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng = 42;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double rndu(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

typedef struct corpus {
    char **doc;
    size_t *len;
    size_t n, cap;
} corpus_t;

static void add(corpus_t *c, const char *s, size_t n)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->doc = realloc(c->doc, c->cap * sizeof *c->doc);
        c->len = realloc(c->len, c->cap * sizeof *c->len);
        if (!c->doc || !c->len)
            exit(1);
    }
    c->doc[c->n] = malloc(n + 1);
    if (!c->doc[c->n])
        exit(1);
    memcpy(c->doc[c->n], s, n);
    c->doc[c->n][n] = 0;
    c->len[c->n++] = n;
}

/* The same body reader as the unit tests. */
static void load_reuters(const char *dir, corpus_t *c, size_t max)
{
    ndd_buf_t b = NDD_BUF_INIT;
    char path[1024];
    for (int f = 0; f < 22 && c->n < max; f++) {
        char *data;
        size_t n;
        const char *p;
        snprintf(path, sizeof path, "%s/reut2-%03d.sgm", dir, f);
        if (ndd_read_file(path, 0, &data, &n) != NDD_OK)
            continue;
        p = data;
        while (c->n < max && (p = strstr(p, "<BODY>")) != NULL) {
            const char *e = strstr(p, "</BODY>");
            int sp = 1;
            if (!e)
                break;
            ndd_buf_clear(&b);
            for (const char *q = p + 6; q < e; q++) {
                unsigned char ch = (unsigned char)*q;
                if (ch == '&') {
                    const char *semi = memchr(q, ';', (size_t)(e - q));
                    if (semi && semi - q < 8) {
                        char rep = 0;
                        if (!strncmp(q, "&lt;", 4))
                            rep = '<';
                        else if (!strncmp(q, "&gt;", 4))
                            rep = '>';
                        else if (!strncmp(q, "&amp;", 5))
                            rep = '&';
                        if (rep) {
                            ndd_buf_putc(&b, rep);
                            sp = 0;
                        }
                        q = semi;
                        continue;
                    }
                }
                if (ch <= ' ') {
                    if (!sp)
                        ndd_buf_putc(&b, ' ');
                    sp = 1;
                    continue;
                }
                sp = 0;
                if (ch < 0x80)
                    ndd_buf_putc(&b, (char)ch);
                else {
                    char u[2] = {(char)(0xC0 | (ch >> 6)), (char)(0x80 | (ch & 0x3F))};
                    ndd_buf_append(&b, u, 2);
                }
            }
            while (b.len && b.data[b.len - 1] == ' ')
                b.len--;
            if (b.len)
                add(c, b.data, b.len);
            p = e;
        }
        free(data);
    }
    ndd_buf_free(&b);
}

static void edit_copy(const char *s, size_t n, double rate, const char *donor, size_t dn, ndd_buf_t *out)
{
    size_t i = 0;
    ndd_buf_clear(out);
    while (i < n) {
        size_t j = i;
        double u;
        while (j < n && s[j] != ' ')
            j++;
        u = rndu();
        if (u < rate / 3) {
        } else if (u < 2 * rate / 3 && dn > 20) {
            size_t k = rnd() % (dn - 10), m = 0;
            while (k < dn && donor[k] != ' ')
                k++;
            k++;
            while (k + m < dn && donor[k + m] != ' ')
                m++;
            if (out->len)
                ndd_buf_putc(out, ' ');
            ndd_buf_append(out, donor + k, m);
        } else {
            if (out->len)
                ndd_buf_putc(out, ' ');
            ndd_buf_append(out, s + i, j - i);
            if (u < rate)
                ndd_buf_puts(out, " inserted");
        }
        i = j + 1;
    }
}

typedef struct kd {
    uint64_t key;
    uint32_t doc;
} kd_t;
static int cmp_kd(const void *x, const void *y)
{
    const kd_t *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->doc > b->doc) - (a->doc < b->doc);
}
static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* pairs sharing >= 1 key (a << 32 | b), sorted unique; the largest list too */
static uint64_t *candidates(kd_t *kd, size_t nkd, size_t *ncand, size_t *maxlist)
{
    uint64_t *p = NULL;
    size_t n = 0, cap = 0;
    *maxlist = 0;
    qsort(kd, nkd, sizeof *kd, cmp_kd);
    for (size_t i = 0; i < nkd;) {
        size_t j = i;
        while (j < nkd && kd[j].key == kd[i].key)
            j++;
        if (j - i > *maxlist)
            *maxlist = j - i;
        for (size_t a = i; a < j; a++)
            for (size_t b = a + 1; b < j; b++) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 1 << 16;
                    p = realloc(p, cap * sizeof *p);
                    if (!p)
                        exit(1);
                }
                p[n++] = (uint64_t)kd[a].doc << 32 | kd[b].doc;
            }
        i = j;
    }
    if (n)
        qsort(p, n, sizeof *p, cmp_u64);
    {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (!m || p[m - 1] != p[i])
                p[m++] = p[i];
        n = m;
    }
    *ncand = n;
    return p;
}

/* keys of every document, candidate pairs, verifier on the candidates */
static void run_method(const corpus_t *c, ndd_method_ctx_t *ctx, ndd_method_t m, const char *label, int verify)
{
    kd_t *kd = NULL;
    size_t nkd = 0, cap = 0, ncand, maxlist, dups = 0, nodocs = 0;
    double t0 = cpu_now(), tk, tv = 0.0;
    uint64_t *cand;
    for (size_t i = 0; i < c->n; i++) {
        const uint64_t *k;
        size_t nk;
        if (ndd_method_keys(ctx, m, c->doc[i], c->len[i], &k, &nk) != NDD_OK)
            exit(1);
        nodocs += nk == 0;
        if (nkd + nk > cap) {
            cap = (nkd + nk) * 2;
            kd = realloc(kd, cap * sizeof *kd);
            if (!kd)
                exit(1);
        }
        for (size_t j = 0; j < nk; j++) {
            kd[nkd].key = k[j];
            kd[nkd].doc = (uint32_t)i;
            nkd++;
        }
    }
    tk = cpu_now() - t0;
    cand = candidates(kd, nkd, &ncand, &maxlist);
    if (verify && ncand > 400000)
        verify = 0; /* too many to verify in a benchmark run */
    if (verify) {
        double t1 = cpu_now();
        for (size_t i = 0; i < ncand; i++) {
            uint32_t a = (uint32_t)(cand[i] >> 32), b = (uint32_t)cand[i];
            double sc;
            int dup;
            if (ndd_method_compare(ctx, m, c->doc[a], c->len[a], c->doc[b], c->len[b], &sc, &dup) != NDD_OK)
                exit(1);
            dups += dup;
        }
        tv = cpu_now() - t1;
    }
    printf("%-34s keys %6.1f/doc (%zu docs without) %7.1f us/doc | candidate pairs %9zu (%.3g of all), largest "
           "key list %zu | verified duplicates %zu",
           label, (double)nkd / (double)c->n, nodocs, 1e6 * tk / (double)c->n, ncand,
           (double)ncand / ((double)c->n * (double)(c->n - 1) / 2), maxlist, dups);
    if (!verify)
        printf(" (not verified)");
    if (verify && ncand)
        printf(" (%.1f us/compare)", 1e6 * tv / (double)ncand);
    printf("\n");
    free(cand);
    free(kd);
}

/* SimHash tables on real fingerprints: pairs within k found, extra candidates */
static void simhash_tables(const corpus_t *c, const ndd_df_t *df)
{
    ndd_method_ctx_t *ctx;
    uint64_t *fp = malloc(c->n * sizeof *fp);
    int *has = malloc(c->n * sizeof *has);
    size_t within = 0, npair = 0;
    if (!fp || !has || ndd_method_ctx_create(&ctx, NULL, df) != NDD_OK)
        exit(1);
    for (size_t i = 0; i < c->n; i++)
        if (ndd_simhash_fingerprint(ctx, c->doc[i], c->len[i], &fp[i], &has[i]) != NDD_OK)
            exit(1);
    for (size_t i = 0; i < c->n; i++)
        for (size_t j = i + 1; j < c->n; j++)
            if (has[i] && has[j]) {
                npair++;
                within += __builtin_popcountll(fp[i] ^ fp[j]) <= 3;
            }
    for (unsigned t = 4; t <= 6; t++) {
        ndd_method_params_t p;
        kd_t *kd;
        size_t nkd = 0, ncand, maxlist, extra = 0, found = 0, nk1;
        uint64_t keys[64], *cand;
        ndd_method_params_default(&p);
        p.simhash_blocks = t;
        nk1 = ndd_simhash_nkeys(&p);
        kd = malloc(c->n * nk1 * sizeof *kd);
        if (!kd)
            exit(1);
        for (size_t i = 0; i < c->n; i++) {
            size_t nk;
            if (!has[i])
                continue;
            ndd_simhash_fp_keys(&p, fp[i], keys, 64, &nk);
            for (size_t j = 0; j < nk; j++) {
                kd[nkd].key = keys[j];
                kd[nkd].doc = (uint32_t)i;
                nkd++;
            }
        }
        cand = candidates(kd, nkd, &ncand, &maxlist);
        for (size_t i = 0; i < ncand; i++) {
            uint32_t a = (uint32_t)(cand[i] >> 32), b = (uint32_t)cand[i];
            if (__builtin_popcountll(fp[a] ^ fp[b]) <= 3)
                found++;
            else
                extra++;
        }
        printf("simhash tables t=%u k=3 (%zu keys)     pairs within k=3: %zu, found %zu; extra candidates %zu "
               "(%.3g per pair beyond k), largest key list %zu\n",
               t, nk1, within, found, extra, (double)extra / (double)(npair - within), maxlist);
        free(cand);
        free(kd);
    }
    ndd_method_ctx_free(ctx);
    free(fp);
    free(has);
}

/* SpotSigs all-pairs vs an unpruned inverted index (every pair sharing a
 * signature gets an exact Jaccard) on the whole collection */
static void spotsigs_allpairs(const corpus_t *c, double tau)
{
    ndd_method_ctx_t *ctx;
    ndd_spotsigs_vec_t *v = malloc(c->n * sizeof *v);
    ndd_spotsigs_pair_t *pairs;
    ndd_spotsigs_stats_t st;
    size_t np, nkd = 0, cap = 0, shared = 0, oracle = 0;
    kd_t *kd = NULL;
    double t0, t1, t2;
    if (!v || ndd_method_ctx_create(&ctx, NULL, NULL) != NDD_OK)
        exit(1);
    for (size_t i = 0; i < c->n; i++) {
        const ndd_spot_entry_t *e;
        size_t ne;
        ndd_spot_entry_t *own;
        if (ndd_spotsigs_vector(ctx, c->doc[i], c->len[i], &e, &ne) != NDD_OK)
            exit(1);
        own = malloc((ne + 1) * sizeof *own);
        if (!own)
            exit(1);
        memcpy(own, e, ne * sizeof *e);
        v[i].e = own;
        v[i].n = ne;
    }
    t0 = cpu_now();
    if (ndd_spotsigs_allpairs(v, c->n, tau, &pairs, &np, &st) != NDD_OK)
        exit(1);
    t1 = cpu_now();
    for (size_t i = 0; i < c->n; i++)
        for (size_t j = 0; j < v[i].n; j++) {
            if (nkd == cap) {
                cap = cap ? 2 * cap : 1 << 16;
                kd = realloc(kd, cap * sizeof *kd);
                if (!kd)
                    exit(1);
            }
            kd[nkd].key = v[i].e[j].h;
            kd[nkd].doc = (uint32_t)i;
            nkd++;
        }
    {
        size_t maxlist;
        uint64_t *cand = candidates(kd, nkd, &shared, &maxlist);
        for (size_t i = 0; i < shared; i++) {
            uint32_t a = (uint32_t)(cand[i] >> 32), b = (uint32_t)cand[i];
            uint64_t num, den;
            ndd_spotsigs_jaccard(v[a].e, v[a].n, v[b].e, v[b].n, &num, &den);
            oracle += ndd_baselines_ratio_ge(num, den, tau);
        }
        free(cand);
    }
    t2 = cpu_now();
    printf("spotsigs all-pairs tau=%.2f             %llu docs with signatures, %llu partitions: %zu pairs "
           "(unpruned index: %zu) | Jaccard computations %llu vs %zu pairs sharing a signature (%.2f%%) and "
           "%llu brute-force pairs | %.3f s vs unpruned %.3f s CPU\n",
           tau, (unsigned long long)st.docs, (unsigned long long)st.partitions, np, oracle,
           (unsigned long long)st.jaccard_calls, shared, 100.0 * (double)st.jaccard_calls / (double)(shared ? shared : 1),
           (unsigned long long)st.pairs_all, t1 - t0, t2 - t1);
    if (np != oracle)
        printf("MISMATCH\n");
    free(pairs);
    free(kd);
    for (size_t i = 0; i < c->n; i++)
        free((void *)v[i].e);
    free(v);
    ndd_method_ctx_free(ctx);
}

int main(int argc, char **argv)
{
    corpus_t c = {0};
    size_t max = argc > 2 ? (size_t)atol(argv[2]) : 100000, edits = argc > 3 ? (size_t)atol(argv[3]) : 0;
    ndd_df_t *dw, *dq, *ds;
    ndd_method_ctx_t *plain, *withdf;
    ndd_buf_t e = NDD_BUF_INIT;
    double t0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s REUTERS_DIR [max_docs] [edited_copies]\n", argv[0]);
        return 2;
    }
    load_reuters(argv[1], &c, max);
    if (c.n < 2) {
        fprintf(stderr, "no Reuters bodies under %s\n", argv[1]);
        return 1;
    }
    {
        size_t base = c.n;
        for (size_t i = 0; i < edits; i++) {
            size_t s = rnd() % base, d = rnd() % base;
            edit_copy(c.doc[s], c.len[s], 0.3 * rndu(), c.doc[d], c.len[d], &e);
            add(&c, e.data, e.len);
        }
        printf("collection: %zu Reuters bodies + %zu copies with 0-30%% of the words edited\n", base, edits);
    }
    t0 = cpu_now();
    if (ndd_df_create(&dw) || ndd_df_create_kind(&dq, NDD_DF_QGRAMS, NULL, 4, 20) ||
        ndd_df_create_kind(&ds, NDD_DF_SPOTSIGS, NULL, 4, 20))
        return 1;
    for (size_t i = 0; i < c.n; i++)
        ndd_df_add_doc(dw, c.doc[i], c.len[i]);
    printf("df sketch (words) %.1f us/doc\n", 1e6 * (cpu_now() - t0) / (double)c.n);
    for (size_t i = 0; i < c.n; i++) {
        ndd_df_add_doc(dq, c.doc[i], c.len[i]);
        ndd_df_add_doc(ds, c.doc[i], c.len[i]);
    }
    if (ndd_method_ctx_create(&plain, NULL, dw) || ndd_method_ctx_create(&withdf, NULL, dw) ||
        ndd_method_ctx_add_df(withdf, dq) || ndd_method_ctx_add_df(withdf, ds))
        return 1;
    run_method(&c, plain, NDD_METHOD_SIMHASH, "simhash (k=3, t=5: 10 tables)", 1);
    run_method(&c, plain, NDD_METHOD_MINHASH, "minhash (20x5, J>=0.5)", 1);
    run_method(&c, withdf, NDD_METHOD_SPOTSIGS, "spotsigs (tau 0.44, df order)", 1);
    run_method(&c, plain, NDD_METHOD_SPOTSIGS, "spotsigs (tau 0.44, hash order)", 0);
    run_method(&c, withdf, NDD_METHOD_QGRAM, "qgram (q=4, 0.8, df order)", 1);
    run_method(&c, plain, NDD_METHOD_IMATCH, "imatch ([0.4,0.75])", 1);
    if (c.n <= 6000)
        run_method(&c, plain, NDD_METHOD_QGRAM, "qgram (q=4, 0.8, hash order)", 0);
    simhash_tables(&c, dw);
    spotsigs_allpairs(&c, 0.44);
    spotsigs_allpairs(&c, 0.8);
    ndd_method_ctx_free(plain);
    ndd_method_ctx_free(withdf);
    ndd_df_free(dw);
    ndd_df_free(dq);
    ndd_df_free(ds);
    ndd_buf_free(&e);
    for (size_t i = 0; i < c.n; i++)
        free(c.doc[i]);
    free(c.doc);
    free(c.len);
    return 0;
}
