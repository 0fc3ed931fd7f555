/* test_lsi.c - src/lsi: the distributed randomized SVD against LAPACK's
 * dense SVD (LAPACKE_dgesvd) on small matrices, its bit-identity on 1-4
 * in-process ranks (even and skewed row splits), TF-IDF against a
 * brute-force recomputation, tokenisation (words, CJK n-grams), and the
 * cosine LSH against brute-force cosines.
 *
 * cmocka's assertions must not run on a rank's thread: rank functions record
 * a failing line in ctx->fail[rank] and the test thread asserts. */
#include "ndd_test.h"
#include "ndd_comm.h"
#include "ndd_lsi.h"

#include <lapacke.h>
#include <math.h>

#define MAXP 4

static uint64_t rng(uint64_t *s)
{
    uint64_t x = (*s += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
static double unif(uint64_t *s) { return (double)(rng(s) >> 11) / 9007199254740992.0; }

/* A dense n x m matrix (row-major) and its rows as a CSR matrix. */
typedef struct {
    size_t n, m;
    double *a;
} dense_t;

static void dense_random_sparse(dense_t *d, size_t n, size_t m, double density, uint64_t seed)
{
    d->n = n;
    d->m = m;
    d->a = calloc(n * m, sizeof *d->a);
    for (size_t i = 0; i < n * m; i++)
        if (unif(&seed) < density)
            d->a[i] = unif(&seed);
}

/* sum_j 0.5^j x_j y_j^T + tiny noise: a fast-decaying spectrum */
static void dense_decaying(dense_t *d, size_t n, size_t m, uint64_t seed)
{
    d->n = n;
    d->m = m;
    d->a = calloc(n * m, sizeof *d->a);
    double *x = malloc(n * sizeof *x), *y = malloc(m * sizeof *y);
    for (size_t j = 0; j < 30; j++) {
        for (size_t i = 0; i < n; i++)
            x[i] = unif(&seed) - 0.5;
        for (size_t i = 0; i < m; i++)
            y[i] = unif(&seed) - 0.5;
        double s = pow(0.5, (double)j);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < m; k++)
                d->a[i * m + k] += s * x[i] * y[k];
    }
    free(x);
    free(y);
}

/* ---- the SVD on P in-process ranks ---- */
typedef struct {
    const dense_t *d;
    ndd_lsi_params_t p;
    int skew;                /* 1: rank 0 holds most rows */
    double sigma[MAXP][256];
    double *u;               /* n x k, every rank writes its rows */
    unsigned kk[MAXP];
    int fail[MAXP];
} svd_ctx_t;

static void split(size_t n, int P, int rank, int skew, size_t *lo, size_t *hi)
{
    if (!skew) {
        *lo = n * (size_t)rank / (size_t)P;
        *hi = n * (size_t)(rank + 1) / (size_t)P;
        return;
    }
    size_t big = P > 1 ? n - (size_t)(P - 1) * 2 : n; /* rank 0 most, the others 2 rows each */
    *lo = rank == 0 ? 0 : big + (size_t)(rank - 1) * 2;
    *hi = rank == 0 ? big : *lo + 2;
}

static int svd_rank(ndd_comm_t *c, void *arg)
{
    svd_ctx_t *x = arg;
    ndd_lsi_mat_t m = NDD_LSI_MAT_INIT;
    size_t lo, hi;
    split(x->d->n, c->size, c->rank, x->skew, &lo, &hi);
    uint32_t *col = malloc(x->d->m * sizeof *col);
    double *val = malloc(x->d->m * sizeof *val);
    for (size_t i = lo; i < hi; i++) {
        size_t nz = 0;
        for (size_t k = 0; k < x->d->m; k++)
            if (x->d->a[i * x->d->m + k] != 0) {
                col[nz] = (uint32_t)k;
                val[nz++] = x->d->a[i * x->d->m + k];
            }
        if (ndd_lsi_mat_add_row(&m, col, val, nz))
            x->fail[c->rank] = __LINE__;
    }
    free(col);
    free(val);
    double *u = calloc((hi - lo) * x->p.k + 1, sizeof *u);
    int rc = ndd_lsi_svd(c, &m, x->d->m, &x->p, x->sigma[c->rank], u, &x->kk[c->rank]);
    if (!rc)
        memcpy(x->u + lo * x->p.k, u, (hi - lo) * x->p.k * sizeof *u);
    free(u);
    ndd_lsi_mat_free(&m);
    return rc;
}

/* Runs the SVD of d on P ranks; sigma/u (n x k) of rank 0's view. */
static void run_svd(const dense_t *d, const ndd_lsi_params_t *p, int P, int skew, double *sigma, double *u,
                    unsigned *kk)
{
    svd_ctx_t *x = calloc(1, sizeof *x);
    x->d = d;
    x->p = *p;
    x->skew = skew;
    x->u = u;
    assert_int_equal(ndd_comm_local_run(P, svd_rank, x, NULL), 0);
    for (int r = 0; r < P; r++) {
        assert_int_equal(x->fail[r], 0);
        assert_int_equal(x->kk[r], x->kk[0]);
        assert_memory_equal(x->sigma[r], x->sigma[0], p->k * sizeof(double));
    }
    memcpy(sigma, x->sigma[0], p->k * sizeof *sigma);
    *kk = x->kk[0];
    free(x);
}

/* LAPACK's dense SVD of d: s (min(n,m)), U (n x min, row-major). */
static void dense_svd(const dense_t *d, double *s, double *U)
{
    size_t mn = d->n < d->m ? d->n : d->m;
    double *a = malloc(d->n * d->m * sizeof *a), *superb = malloc(mn * sizeof *superb);
    memcpy(a, d->a, d->n * d->m * sizeof *a);
    assert_int_equal(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'S', 'N', (lapack_int)d->n, (lapack_int)d->m, a,
                                    (lapack_int)d->m, s, U, (lapack_int)mn, NULL, 1, superb),
                     0);
    free(a);
    free(superb);
}

/* max |P1 - P2| of the projectors on the first k columns of U1 (n x k1 stride) and U2 (n x k2 stride). */
static double projector_diff(const double *U1, size_t s1, const double *U2, size_t s2, size_t n, size_t k)
{
    double worst = 0;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            double p1 = 0, p2 = 0;
            for (size_t j = 0; j < k; j++) {
                p1 += U1[a * s1 + j] * U1[b * s1 + j];
                p2 += U2[a * s2 + j] * U2[b * s2 + j];
            }
            worst = fabs(p1 - p2) > worst ? fabs(p1 - p2) : worst;
        }
    return worst;
}

static void check_against_lapack(const dense_t *d, const ndd_lsi_params_t *p, double tol_s, double tol_u)
{
    size_t mn = d->n < d->m ? d->n : d->m;
    double *s = malloc(mn * sizeof *s), *U = malloc(d->n * mn * sizeof *U);
    double sigma[256], *u = calloc(d->n * p->k, sizeof *u);
    unsigned kk;
    dense_svd(d, s, U);
    run_svd(d, p, 1, 0, sigma, u, &kk);
    assert_int_equal(kk, p->k);
    for (unsigned j = 0; j < kk; j++) {
        double rel = fabs(sigma[j] - s[j]) / s[0];
        if (rel > tol_s)
            fail_msg("sigma[%u] = %.15g, LAPACK %.15g (rel %.3g > %.3g)", j, sigma[j], s[j], rel, tol_s);
    }
    double pd = projector_diff(u, p->k, U, mn, d->n, kk);
    if (pd > tol_u)
        fail_msg("subspace differs from LAPACK's: max projector difference %.3g > %.3g", pd, tol_u);
    /* U has orthonormal columns */
    for (unsigned a = 0; a < kk; a++)
        for (unsigned b = 0; b < kk; b++) {
            double dot = 0;
            for (size_t i = 0; i < d->n; i++)
                dot += u[i * p->k + a] * u[i * p->k + b];
            assert_true(fabs(dot - (a == b)) < 1e-9);
        }
    free(s);
    free(U);
    free(u);
}

/* l >= columns: the range finder captures the whole range; equal to LAPACK
 * up to rounding (1e-10 of sigma_1, projectors 1e-8). */
static void test_svd_exact_range(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        dense_t d;
        dense_random_sparse(&d, 60, 40, 0.3, seed);
        ndd_lsi_params_t p;
        ndd_lsi_params_default(&p);
        p.k = 6;
        p.oversample = 40;
        p.power = 1;
        check_against_lapack(&d, &p, 1e-10, 1e-8);
        /* more columns than rows: rank-deficient Gram matrices */
        free(d.a);
        dense_random_sparse(&d, 25, 70, 0.2, seed + 100);
        p.oversample = 60;
        check_against_lapack(&d, &p, 1e-10, 1e-8);
        free(d.a);
    }
}

/* l < rank: a fast-decaying spectrum with power iterations: the top k
 * within 1e-7 of sigma_1 and the subspace within 1e-5. */
static void test_svd_truncated(void **state)
{
    (void)state;
    for (uint64_t seed = 7; seed <= 9; seed++) {
        dense_t d;
        dense_decaying(&d, 150, 90, seed);
        ndd_lsi_params_t p;
        ndd_lsi_params_default(&p);
        p.k = 5;
        p.oversample = 6;
        p.power = 2;
        check_against_lapack(&d, &p, 1e-7, 1e-5);
        free(d.a);
    }
}

/* The singular values and U of 2..MAXP ranks equal 1 rank's bit for bit,
 * with the document splits skew_from..skew_to (0 even, 1 skewed); 1 rank
 * finds all k concepts. */
static void check_rank_identical(const dense_t *d, const ndd_lsi_params_t *p, int skew_from, int skew_to)
{
    double s1[256], sP[256];
    double *u1 = calloc(d->n * p->k, sizeof *u1), *uP = calloc(d->n * p->k, sizeof *uP);
    unsigned k1, kP;
    assert_non_null(u1);
    assert_non_null(uP);
    run_svd(d, p, 1, 0, s1, u1, &k1);
    assert_int_equal(k1, p->k);
    for (int P = 2; P <= MAXP; P++)
        for (int skew = skew_from; skew <= skew_to; skew++) {
            memset(uP, 0, d->n * p->k * sizeof *uP);
            run_svd(d, p, P, skew, sP, uP, &kP);
            assert_int_equal(kP, k1);
            assert_memory_equal(sP, s1, p->k * sizeof *s1);
            assert_memory_equal(uP, u1, d->n * p->k * sizeof *u1);
        }
    free(u1);
    free(uP);
}

/* Many columns: A^T Q is summed over ranks in chunks of columns (two here);
 * still LAPACK's SVD, and the same bits on 1-4 ranks. */
static void test_svd_wide(void **state)
{
    (void)state;
    dense_t d;
    dense_random_sparse(&d, 30, 60000, 0.002, 77);
    ndd_lsi_params_t p;
    ndd_lsi_params_default(&p);
    p.k = 5;
    p.oversample = 40; /* l capped by the 30 rows: the whole range */
    p.power = 1;
    check_against_lapack(&d, &p, 1e-10, 1e-8);
    check_rank_identical(&d, &p, 1, 1);
    free(d.a);
}

/* The same singular values and U bit for bit on 1-4 ranks, even and skewed splits. */
static void test_svd_rank_identical(void **state)
{
    (void)state;
    dense_t d;
    dense_random_sparse(&d, 97, 50, 0.15, 42);
    ndd_lsi_params_t p;
    ndd_lsi_params_default(&p);
    p.k = 8;
    p.oversample = 5;
    p.power = 2;
    check_rank_identical(&d, &p, 0, 1);
    free(d.a);
}

/* ---- TF-IDF and fingerprints from texts, on P ranks ---- */
static const char *TEXTS[] = {
    "The cat sat on the mat with another cat.",
    "A dog sat on the log; the dog barked.",
    "Cats and dogs are common pets in many homes.",
    "The stock market fell sharply on Monday as investors sold shares.",
    "Shares fell on Monday: investors sold stock and the market dropped.",
    "Inheritance in object oriented programming lets a class reuse code.",
    "In object oriented programming a subclass inherits code from its class.",
    "中文没有空格，字符的二元组是词项。",
    "字符的二元组是中文的词项，因为中文没有空格。",
    "Dynamic programming solves problems by combining solutions of subproblems.",
    "the the the",
};
#define NTEXTS (sizeof TEXTS / sizeof *TEXTS)

typedef struct {
    ndd_lsi_params_t p;
    float fp[NTEXTS * 64];
    size_t ncols[MAXP];
    double val[NTEXTS][64]; /* tf-idf row values by compact column (up to 64 columns) */
    int fail[MAXP];
} text_ctx_t;

static int text_rank(ndd_comm_t *c, void *arg)
{
    text_ctx_t *x = arg;
    ndd_lsi_mat_t m = NDD_LSI_MAT_INIT;
    size_t lo = NTEXTS * (size_t)c->rank / (size_t)c->size, hi = NTEXTS * (size_t)(c->rank + 1) / (size_t)c->size;
    int rc = NDD_OK;
    for (size_t i = lo; i < hi && !rc; i++)
        rc = ndd_lsi_mat_add_text(&m, &x->p, TEXTS[i], strlen(TEXTS[i]));
    size_t ncols = 0;
    rc = ndd_comm_agree(c, rc);
    if (!rc)
        rc = ndd_lsi_tfidf(c, &m, x->p.bucket_bits, &ncols);
    x->ncols[c->rank] = ncols;
    double sigma[64], *u = calloc((hi - lo) * x->p.k + 1, sizeof *u);
    unsigned kk = 0;
    if (!rc)
        rc = ndd_lsi_svd(c, &m, ncols, &x->p, sigma, u, &kk);
    if (!rc) {
        ndd_lsi_fingerprints(u, sigma, hi - lo, x->p.k, x->fp + lo * x->p.k);
        for (size_t i = lo; i < hi; i++)
            for (size_t k = m.off[i - lo]; k < m.off[i - lo + 1]; k++)
                if (m.col[k] < 64)
                    x->val[i][m.col[k]] = m.val[k];
    }
    free(u);
    ndd_lsi_mat_free(&m);
    return rc;
}

typedef struct {
    uint64_t h[256];
    size_t n;
} hashes_t;

static void add_hash(void *user, uint64_t h)
{
    hashes_t *x = user;
    if (x->n < 256)
        x->h[x->n++] = h;
}

/* Brute-force TF-IDF of text i, column = rank of its bucket among all used buckets. */
static void brute_tfidf(const ndd_lsi_params_t *p, double out[NTEXTS][64])
{
    static hashes_t hs[NTEXTS];
    uint32_t mask = (1u << p->bucket_bits) - 1;
    static uint32_t used[NTEXTS * 256];
    size_t nu = 0;
    memset(out, 0, sizeof(double) * NTEXTS * 64);
    for (size_t i = 0; i < NTEXTS; i++) {
        hs[i].n = 0;
        assert_int_equal(ndd_lsi_terms(p, TEXTS[i], strlen(TEXTS[i]), add_hash, &hs[i]), 0);
        for (size_t k = 0; k < hs[i].n; k++) {
            uint32_t b = (uint32_t)(hs[i].h[k] & mask);
            size_t j = 0;
            while (j < nu && used[j] != b)
                j++;
            if (j == nu)
                used[nu++] = b;
        }
    }
    for (size_t i = 0; i < nu; i++) /* sort used buckets */
        for (size_t j = i + 1; j < nu; j++)
            if (used[j] < used[i]) {
                uint32_t t = used[i];
                used[i] = used[j];
                used[j] = t;
            }
    for (size_t i = 0; i < NTEXTS; i++) {
        double norm = 0;
        for (size_t c = 0; c < nu && c < 64; c++) {
            size_t cnt = 0, df = 0;
            for (size_t k = 0; k < hs[i].n; k++)
                cnt += (hs[i].h[k] & mask) == used[c];
            for (size_t t = 0; t < NTEXTS; t++) {
                size_t has = 0;
                for (size_t k = 0; k < hs[t].n; k++)
                    has |= (hs[t].h[k] & mask) == used[c];
                df += has;
            }
            out[i][c] = hs[i].n ? (double)cnt / (double)hs[i].n * log((double)NTEXTS / (double)df) : 0;
            norm += out[i][c] * out[i][c];
        }
        for (size_t c = 0; c < 64; c++)
            out[i][c] = norm > 0 ? out[i][c] / sqrt(norm) : 0;
    }
}

static void test_tfidf_fingerprints_ranks(void **state)
{
    (void)state;
    text_ctx_t *ref = calloc(1, sizeof *ref), *x = calloc(1, sizeof *x);
    ndd_lsi_params_default(&ref->p);
    ref->p.k = 6;
    ref->p.oversample = 4;
    ref->p.bucket_bits = 10;
    ref->p.bigrams = 0; /* at most 64 distinct columns for the brute force */
    assert_int_equal(ndd_comm_local_run(1, text_rank, ref, NULL), 0);
    assert_true(ref->ncols[0] > 20 && ref->ncols[0] <= 64);
    static double want[NTEXTS][64];
    brute_tfidf(&ref->p, want);
    for (size_t i = 0; i < NTEXTS; i++)
        for (size_t c = 0; c < 64; c++)
            if (fabs(want[i][c] - ref->val[i][c]) > 1e-12)
                fail_msg("tf-idf of text %zu column %zu: %.15g, brute force %.15g", i, c, ref->val[i][c],
                         want[i][c]);
    /* "the the the": its one term is in 3 texts, not all: it keeps a unit vector */
    for (int P = 2; P <= MAXP; P++) {
        memset(x, 0, sizeof *x);
        x->p = ref->p;
        assert_int_equal(ndd_comm_local_run(P, text_rank, x, NULL), 0);
        assert_memory_equal(x->fp, ref->fp, sizeof ref->fp);
        assert_memory_equal(x->val, ref->val, sizeof ref->val);
    }
    /* paraphrases are nearer in the concept space than unrelated texts */
    double para = ndd_lsi_cosine(ref->fp + 3 * ref->p.k, ref->fp + 4 * ref->p.k, ref->p.k);
    double other = ndd_lsi_cosine(ref->fp + 3 * ref->p.k, ref->fp + 5 * ref->p.k, ref->p.k);
    assert_true(para > other);
    free(ref);
    free(x);
}

static void test_terms(void **state)
{
    (void)state;
    ndd_lsi_params_t p;
    ndd_lsi_params_default(&p);
    p.bigrams = 0;
    hashes_t a = {.n = 0}, b = {.n = 0}, c = {.n = 0}, d = {.n = 0};
    const char *t1 = "Hello, WORLD a \xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97 x";  /* 中文字 */
    assert_int_equal(ndd_lsi_terms(&p, t1, strlen(t1), add_hash, &a), 0);
    assert_int_equal(a.n, 4); /* hello, world, 中文, 文字 ("a", "x" dropped) */
    assert_int_equal(ndd_lsi_terms(&p, "hello world", 11, add_hash, &b), 0);
    assert_int_equal(b.n, 2);
    /* with bigrams: hello, world, then the pair (hello world) */
    hashes_t bg = {.n = 0};
    p.bigrams = 1;
    assert_int_equal(ndd_lsi_terms(&p, "hello world", 11, add_hash, &bg), 0);
    assert_int_equal(bg.n, 3);
    assert_true(bg.h[0] == b.h[0] && bg.h[1] == b.h[1] && bg.h[2] != b.h[0] && bg.h[2] != b.h[1]);
    p.bigrams = 0;
    assert_true(a.h[0] == b.h[0] && a.h[1] == b.h[1]);
    assert_int_equal(ndd_lsi_terms(&p, "\xe6\x96\x87\xe5\xad\x97", 6, add_hash, &c), 0); /* 文字 */
    assert_int_equal(c.n, 1);
    assert_true(c.h[0] == a.h[3]);
    assert_int_equal(ndd_lsi_terms(&p, "\xe4\xb8\xad", 3, add_hash, &d), 0); /* one character: one term */
    assert_int_equal(d.n, 1);
    /* non-ASCII letters are words (Indonesian/accents), invalid bytes separate */
    hashes_t e = {.n = 0};
    assert_int_equal(ndd_lsi_terms(&p, "caf\xc3\xa9 \xff\xfe ok", 11, add_hash, &e), 0);
    assert_int_equal(e.n, 2);
    /* SimHash: equal texts equal, a text with < 3 terms 0 */
    assert_true(ndd_lsi_simhash(&p, "one two three four", 18) == ndd_lsi_simhash(&p, "One two three four", 18));
    assert_true(ndd_lsi_simhash(&p, "one two", 7) == 0);
    assert_int_equal(ndd_lsi_textsim(0, ~0ull), 0);
    /* rows: a text without terms is an empty row; counts of repeated terms */
    ndd_lsi_mat_t m = NDD_LSI_MAT_INIT;
    assert_int_equal(ndd_lsi_mat_add_text(&m, &p, "x", 1), 0);
    assert_int_equal(ndd_lsi_mat_add_text(&m, &p, "ab ab cd", 8), 0);
    assert_int_equal(m.n, 2);
    assert_int_equal(m.off[1], 0);
    assert_int_equal(m.off[2], 2);
    assert_true((m.val[0] == 2 && m.val[1] == 1) || (m.val[0] == 1 && m.val[1] == 2));
    ndd_lsi_mat_free(&m);
}

/* ---- cosine LSH against brute-force cosines ---- */
static void random_unit(float *v, unsigned k, uint64_t *s)
{
    double n = 0;
    for (unsigned j = 0; j < k; j++) {
        double u1 = unif(s) + 1e-300, u2 = unif(s);
        v[j] = (float)(sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
        n += (double)v[j] * v[j];
    }
    for (unsigned j = 0; j < k; j++)
        v[j] = (float)(v[j] / sqrt(n));
}

static int share_key(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (a[i] == b[j])
                return 1;
    return 0;
}

static void test_lsh(void **state)
{
    (void)state;
    enum { K = 24, N = 300 };
    ndd_lsi_params_t p;
    ndd_lsi_params_default(&p);
    p.lsh_bands = 16;
    p.lsh_bits = 12;
    ndd_lsi_lsh_t *l = NULL;
    assert_int_equal(ndd_lsi_lsh_create(&l, &p, K), 0);
    static float fp[N][K];
    static uint64_t keys[N][16];
    size_t nk[N];
    uint64_t s = 5;
    /* clusters of perturbed copies around 30 centres: many near pairs */
    for (int i = 0; i < N; i++) {
        if (i % 10 == 0)
            random_unit(fp[i], K, &s);
        else {
            float noise[K];
            random_unit(noise, K, &s);
            double amp = 0.05 + 0.6 * unif(&s), n = 0;
            for (int j = 0; j < K; j++) {
                fp[i][j] = (float)(fp[i - i % 10][j] + amp * noise[j]);
                n += (double)fp[i][j] * fp[i][j];
            }
            for (int j = 0; j < K; j++)
                fp[i][j] = (float)(fp[i][j] / sqrt(n));
        }
        ndd_lsi_lsh_keys(l, fp[i], keys[i], &nk[i]);
        assert_int_equal(nk[i], 16);
    }
    size_t near = 0, near_found = 0, far = 0, far_found = 0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            double c = ndd_lsi_cosine(fp[i], fp[j], K), bf = 0;
            for (int t = 0; t < K; t++)
                bf += (double)fp[i][t] * fp[j][t];
            assert_true(fabs(c - bf) < 1e-6); /* vectors are unit length */
            int sh = share_key(keys[i], nk[i], keys[j], nk[j]);
            if (c >= 0.95) {
                near++;
                near_found += sh;
            } else if (c < 0.3) {
                far++;
                far_found += sh;
            }
        }
    /* (1 - t/pi)^12 per band: >= 0.278 at cos 0.95, so >= 0.994 over 16 bands;
     * <= 0.0011 per band below cos 0.3, so <= 0.018 over 16 */
    assert_true(near > 200);
    if (near_found < near * 0.97)
        fail_msg("LSH found %zu of %zu pairs with cosine >= 0.95", near_found, near);
    if (far_found > far * 0.04)
        fail_msg("LSH paired %zu of %zu pairs with cosine < 0.3", far_found, far);
    /* the same vector shares every key, its opposite none; zero: no key */
    uint64_t kneg[16];
    size_t nneg;
    float neg[K], zero[K] = {0};
    for (int t = 0; t < K; t++)
        neg[t] = -fp[0][t];
    ndd_lsi_lsh_keys(l, neg, kneg, &nneg);
    assert_false(share_key(keys[0], 16, kneg, nneg));
    ndd_lsi_lsh_keys(l, zero, kneg, &nneg);
    assert_int_equal(nneg, 0);
    ndd_lsi_lsh_free(l);
}

static void test_params(void **state)
{
    (void)state;
    ndd_lsi_params_t p;
    ndd_lsi_params_default(&p);
    assert_int_equal(ndd_lsi_params_check(&p), 0);
    p.k = 0;
    assert_int_equal(ndd_lsi_params_check(&p), NDD_ERR_INVAL);
    ndd_lsi_params_default(&p);
    p.bucket_bits = 30;
    assert_int_equal(ndd_lsi_params_check(&p), NDD_ERR_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_terms),
        cmocka_unit_test(test_svd_exact_range),
        cmocka_unit_test(test_svd_truncated),
        cmocka_unit_test(test_svd_rank_identical),
        cmocka_unit_test(test_svd_wide),
        cmocka_unit_test(test_tfidf_fingerprints_ranks),
        cmocka_unit_test(test_lsh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
