/* lsi_svd.c - distributed TF-IDF and the randomized truncated SVD (Halko,
 * Martinsson, Tropp 2011, algorithms 4.3/4.4 with re-orthonormalisation)
 * over the transport. Every sum over documents is a fixed-point sum: each
 * document's contribution v becomes the integer pair (floor(v 2^20),
 * round(frac 2^36)) and the pairs are added modulo 2^64 (u64 Allreduce), so
 * the result is exact whatever the grouping: bit-identical for any rank
 * count. A contribution's absolute rounding error is <= 2^-57; values must
 * stay below 2^43 and a sum may hold up to 2^27 documents. Collective. */
#include "ndd_lsi.h"

#include <dlfcn.h>
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK is loaded on first use (dlopen), like the MPI plugin: linked into
 * ndd, LAPACKE + OpenBLAS (+ gfortran) cost every ndd command ~3.5 ms of
 * start-up (OpenBLAS starts its thread pool when loaded; scripts/bench-startup.sh
 * went from within its 1.5 ms goal to 4.3 ms). It runs single-threaded and one
 * call at a time: OpenBLAS's threaded kernels gave different bits from run to
 * run (ranks disagreed on LSH keys), and in-process ranks call it concurrently.
 * The matrices are small (l x l). */
typedef lapack_int (*dgesvd_fn)(int, char, char, lapack_int, lapack_int, double *, lapack_int, double *, double *,
                                lapack_int, double *, lapack_int, double *);
static pthread_mutex_t lapack_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t lapack_once = PTHREAD_ONCE_INIT;
static dgesvd_fn lapack_dgesvd;
static void (*lapack_threads)(int);

static void lapack_load(void)
{
    static const char *const names[] = {"liblapacke.so.3", "liblapacke.so"};
    for (size_t i = 0; i < sizeof names / sizeof *names && !lapack_dgesvd; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            continue;
        *(void **)&lapack_dgesvd = dlsym(h, "LAPACKE_dgesvd");
        *(void **)&lapack_threads = dlsym(h, "openblas_set_num_threads"); /* NULL without OpenBLAS */
        if (!lapack_dgesvd)
            dlclose(h);
    }
}

int ndd_lsi_lapack_available(void)
{
    pthread_once(&lapack_once, lapack_load);
    return lapack_dgesvd != NULL;
}

#define FX_HI 1048576.0              /* 2^20 */
#define FX_LO 68719476736.0          /* 2^36 */
#define FX_LO_INV (1.0 / 72057594037927936.0) /* 2^-56 */

static inline void fx_add(uint64_t *hi, uint64_t *lo, double v)
{
    /* floor without a libm call (the x86-64 baseline has no SSE4.1 roundsd):
     * truncation, one less for a negative non-integer; exact for |s| < 2^63 */
    double s = v * FX_HI;
    int64_t t = (int64_t)s;
    double f = (double)t - ((double)t > s);
    *hi += (uint64_t)(int64_t)f;
    *lo += (uint64_t)(int64_t)((s - f) * FX_LO + 0.5); /* s - f in [0, 1): rounds half up */
}

static inline double fx_get(uint64_t hi, uint64_t lo)
{
    return (double)(int64_t)hi / FX_HI + (double)(int64_t)lo * FX_LO_INV;
}

/* Sums fx[0..2n) (n hi words, then n lo words) over ranks into out[0..n). */
static int fx_reduce(ndd_comm_t *c, uint64_t *fx, size_t n, double *out)
{
    int rc = ndd_comm_allreduce(c, fx, 2 * n, NDD_TY_U64, NDD_RED_SUM);
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++)
        out[i] = fx_get(fx[i], fx[n + i]);
    return NDD_OK;
}

/* ---- TF-IDF ---- */
int ndd_lsi_tfidf(ndd_comm_t *c, ndd_lsi_mat_t *m, unsigned bucket_bits, size_t *ncols)
{
    size_t D = (size_t)1 << bucket_bits;
    uint64_t *df = calloc(D + 1, sizeof *df);
    uint32_t *map = malloc(D * sizeof *map);
    int rc = ndd_comm_agree(c, df && map && bucket_bits <= 24 ? NDD_OK : !df || !map ? NDD_ERR_NOMEM : NDD_ERR_INVAL);
    if (rc)
        goto out;
    for (size_t k = 0; k < m->nnz; k++) {
        if (m->col[k] >= D) {
            rc = NDD_ERR_INVAL;
            break;
        }
        df[m->col[k]]++;
    }
    df[D] = m->n;
    NDD_TRY(ndd_comm_agree(c, rc));
    NDD_TRY(ndd_comm_allreduce(c, df, D + 1, NDD_TY_U64, NDD_RED_SUM));
    double N = (double)df[D];
    size_t nc = 0;
    for (size_t b = 0; b < D; b++)
        map[b] = df[b] ? (uint32_t)nc++ : UINT32_MAX;
    *ncols = nc;
    size_t w = 0;
    for (size_t i = 0; i < m->n; i++) {
        size_t a = m->off[i], e = m->off[i + 1], start = w;
        double tot = 0, norm = 0;
        for (size_t k = a; k < e; k++)
            tot += m->val[k];
        for (size_t k = a; k < e; k++) {
            double idf = log(N / (double)df[m->col[k]]);
            double v = tot > 0 ? m->val[k] / tot * idf : 0;
            if (v == 0)
                continue;
            m->col[w] = map[m->col[k]];
            m->val[w++] = v;
            norm += v * v;
        }
        norm = sqrt(norm);
        for (size_t k = start; k < w; k++)
            m->val[k] /= norm;
        m->off[i] = start;
    }
    if (m->off)
        m->off[m->n] = w;
    m->nnz = w;
out:
    free(df);
    free(map);
    return rc;
}

/* ---- small dense pieces ---- */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Symmetric PSD g (r x r, row-major, overwritten) = W diag(s) W^T by LAPACK's
 * dgesvd (singular values decreasing); w r x r row-major. */
static int sym_svd(double *g, int r, double *s, double *w)
{
    double *superb = malloc((r > 1 ? (size_t)r : 2) * sizeof *superb);
    if (!superb)
        return NDD_ERR_NOMEM;
    if (!ndd_lsi_lapack_available()) {
        free(superb);
        return NDD_ERR_UNSUPPORTED;
    }
    pthread_mutex_lock(&lapack_lock);
    if (lapack_threads)
        lapack_threads(1);
    lapack_int info = lapack_dgesvd(LAPACK_ROW_MAJOR, 'A', 'N', r, r, g, r, s, w, r, NULL, 1, superb);
    pthread_mutex_unlock(&lapack_lock);
    free(superb);
    return info ? NDD_ERR_INTERNAL : NDD_OK;
}

/* Eigenvalues below this share of the largest are dropped as numerically zero. */
#define ORTH_EPS 1e-13

/* The Gram matrix g (r x r) of the columns of x (n x r, row-major): summed
 * across ranks in fixed point when c != NULL (x distributed by rows), a
 * plain local sum otherwise (x the same on every rank). */
static int gram(ndd_comm_t *c, const double *x, size_t n, size_t r, double *g)
{
    size_t nt = r * (r + 1) / 2;
    int rc = NDD_OK;
    if (c) {
        uint64_t *fx = calloc(2 * nt + 1, sizeof *fx);
        double *t = malloc((nt + 1) * sizeof *t);
        rc = ndd_comm_agree(c, fx && t ? NDD_OK : NDD_ERR_NOMEM);
        if (!rc) {
            for (size_t i = 0; i < n; i++) {
                const double *row = x + i * r;
                size_t at = 0;
                for (size_t a = 0; a < r; a++)
                    for (size_t b = a; b < r; b++, at++)
                        fx_add(&fx[at], &fx[nt + at], row[a] * row[b]);
            }
            rc = fx_reduce(c, fx, nt, t);
        }
        if (!rc)
            for (size_t a = 0, at = 0; a < r; a++)
                for (size_t b = a; b < r; b++, at++)
                    g[a * r + b] = g[b * r + a] = t[at];
        free(fx);
        free(t);
        return rc;
    }
    memset(g, 0, r * r * sizeof *g);
    for (size_t i = 0; i < n; i++) {
        const double *row = x + i * r;
        for (size_t a = 0; a < r; a++)
            for (size_t b = a; b < r; b++)
                g[a * r + b] += row[a] * row[b];
    }
    for (size_t a = 0; a < r; a++)
        for (size_t b = 0; b < a; b++)
            g[a * r + b] = g[b * r + a];
    return NDD_OK;
}

/* Orthonormalises the columns of x (n x *r, row-major, in place): twice
 * x <- x W_r S_r^(-1/2) from the eigen-decomposition of its Gram matrix
 * (Cholesky-QR's idea without its breakdown on rank deficiency: directions
 * with eigenvalue below ORTH_EPS of the largest are dropped). *r shrinks to
 * the rank kept; x keeps row stride *r on return. Collective when c. */
static int orth(ndd_comm_t *c, double *x, size_t n, size_t *r)
{
    size_t r0 = *r;
    double *g = malloc((r0 * r0 + 1) * sizeof *g), *w = malloc((r0 * r0 + 1) * sizeof *w);
    double *s = malloc((r0 + 1) * sizeof *s), *row = malloc((r0 + 1) * sizeof *row);
    int rc = !g || !w || !s || !row ? NDD_ERR_NOMEM : NDD_OK;
    if (c)
        rc = ndd_comm_agree(c, rc);
    for (int pass = 0; pass < 2 && !rc && *r; pass++) {
        size_t rr = *r, keep = 0;
        if ((rc = gram(c, x, n, rr, g)) || (rc = sym_svd(g, (int)rr, s, w)))
            break;
        while (keep < rr && s[keep] > s[0] * ORTH_EPS && s[keep] > 0)
            keep++;
        for (size_t j = 0; j < keep; j++) { /* w's column j scaled by s_j^(-1/2) */
            double f = 1.0 / sqrt(s[j]);
            for (size_t a = 0; a < rr; a++)
                w[a * rr + j] *= f;
        }
        for (size_t i = 0; i < n; i++) { /* row i of x W (stride rr -> keep, in place) */
            const double *xi = x + i * rr;
            memset(row, 0, keep * sizeof *row);
            for (size_t a = 0; a < rr; a++) {
                const double xa = xi[a], *wa = w + a * rr;
                for (size_t j = 0; j < keep; j++)
                    row[j] += xa * wa[j];
            }
            memcpy(x + i * keep, row, keep * sizeof *row);
        }
        *r = keep;
    }
    free(g);
    free(w);
    free(s);
    free(row);
    return rc;
}

/* Rows of Z summed per Allreduce: the fixed-point buffer stays near 16 MiB
 * (the same chunks on every rank: they depend on ncols and r only). */
#define AT_CHUNK_BYTES ((size_t)16 << 20)

/* z (ncols x r) = A^T q summed across ranks (q: this rank's n x r rows),
 * in chunks of columns; each row's entries are sorted by column, so a cursor
 * per row walks them chunk by chunk. */
static int at_times(ndd_comm_t *c, const ndd_lsi_mat_t *m, size_t ncols, const double *q, size_t r, double *z)
{
    size_t rows = AT_CHUNK_BYTES / (16 * r) ? AT_CHUNK_BYTES / (16 * r) : 1;
    if (rows > ncols)
        rows = ncols;
    uint64_t *fx = malloc((2 * rows * r + 1) * sizeof *fx);
    size_t *cur = malloc((m->n + 1) * sizeof *cur);
    int rc = ndd_comm_agree(c, fx && cur ? NDD_OK : NDD_ERR_NOMEM);
    for (size_t i = 0; i < m->n && !rc; i++)
        cur[i] = m->off[i];
    for (size_t lo = 0; lo < ncols && !rc; lo += rows) {
        size_t hi = lo + rows < ncols ? lo + rows : ncols, nz = (hi - lo) * r;
        memset(fx, 0, 2 * nz * sizeof *fx);
        for (size_t i = 0; i < m->n; i++)
            for (size_t k = cur[i]; k < m->off[i + 1] && m->col[k] < hi; k = ++cur[i]) {
                size_t base = ((size_t)m->col[k] - lo) * r;
                double v = m->val[k];
                for (size_t j = 0; j < r; j++)
                    fx_add(&fx[base + j], &fx[nz + base + j], v * q[i * r + j]);
            }
        rc = fx_reduce(c, fx, nz, z + lo * r);
    }
    free(fx);
    free(cur);
    return rc;
}

/* y (n x r) = A z for this rank's rows (local). */
static void a_times(const ndd_lsi_mat_t *m, const double *z, size_t r, double *y)
{
    memset(y, 0, m->n * r * sizeof *y);
    for (size_t i = 0; i < m->n; i++)
        for (size_t k = m->off[i]; k < m->off[i + 1]; k++) {
            const double *zr = z + (size_t)m->col[k] * r;
            double v = m->val[k];
            for (size_t j = 0; j < r; j++)
                y[i * r + j] += v * zr[j];
        }
}

int ndd_lsi_svd(ndd_comm_t *c, const ndd_lsi_mat_t *m, size_t ncols, const ndd_lsi_params_t *p, double *sigma,
                double *u, unsigned *kk)
{
    size_t l = (size_t)p->k + p->oversample, r = l, n = m->n;
    double *y = NULL, *z = NULL, *g = NULL, *w = NULL, *s = NULL;
    int rc = ndd_lsi_params_check(p);
    if (!rc && !ndd_lsi_lapack_available())
        rc = NDD_ERR_UNSUPPORTED;
    rc = ndd_comm_agree(c, rc);
    *kk = 0;
    if (rc)
        return rc;
    memset(sigma, 0, p->k * sizeof *sigma);
    if (u)
        memset(u, 0, n * p->k * sizeof *u);
    uint64_t N = n;
    NDD_TRY(ndd_comm_allreduce(c, &N, 1, NDD_TY_U64, NDD_RED_SUM));
    if (l > N) /* the rank is at most the number of documents */
        l = r = (size_t)N;
    if (!ncols || !l)
        return NDD_OK;
    y = malloc((n * l + 1) * sizeof *y);
    z = malloc((ncols * l + 1) * sizeof *z);
    g = malloc((l * l + 1) * sizeof *g);
    w = malloc((l * l + 1) * sizeof *w);
    s = malloc((l + 1) * sizeof *s);
    NDD_TRY(ndd_comm_agree(c, y && z && g && w && s ? NDD_OK : NDD_ERR_NOMEM));
    /* Y = A Omega, Omega (ncols x l) Rademacher: entry (col, j) is bit j of
     * the hash of (seed, col, j / 64), the same on every rank */
    memset(y, 0, n * l * sizeof *y);
    for (size_t i = 0; i < n; i++)
        for (size_t k = m->off[i]; k < m->off[i + 1]; k++) {
            double v = m->val[k];
            uint64_t col = m->col[k];
            for (size_t j0 = 0; j0 < l; j0 += 64) {
                uint64_t bits = mix64(p->seed * 0x100000001B3ull ^ mix64(col << 16 | j0 / 64));
                for (size_t j = j0; j < l && j < j0 + 64; j++)
                    y[i * l + j] += (bits >> (j - j0) & 1) ? v : -v;
            }
        }
    NDD_TRY(orth(c, y, n, &r)); /* Q */
    for (unsigned it = 0; it < p->power && r; it++) {
        NDD_TRY(at_times(c, m, ncols, y, r, z)); /* Z = A^T Q, orthonormalised (replicated) */
        NDD_TRY(ndd_comm_agree(c, orth(NULL, z, ncols, &r)));
        a_times(m, z, r, y); /* Y = A Z, then Q */
        NDD_TRY(orth(c, y, n, &r));
    }
    if (!r)
        goto out;
    /* C = Q^T A = Z^T with Z = A^T Q; C C^T = Z^T Z = W S^2 W^T: U = Q W */
    NDD_TRY(at_times(c, m, ncols, y, r, z));
    NDD_TRY(ndd_comm_agree(c, gram(NULL, z, ncols, r, g)));
    NDD_TRY(ndd_comm_agree(c, sym_svd(g, (int)r, s, w)));
    unsigned k = 0;
    while (k < p->k && k < r && s[k] > s[0] * ORTH_EPS && s[k] > 0)
        k++;
    for (unsigned j = 0; j < k; j++)
        sigma[j] = sqrt(s[j]);
    if (u)
        for (size_t i = 0; i < n; i++)
            for (size_t a = 0; a < r; a++) {
                const double ya = y[i * r + a], *wa = w + a * r;
                for (unsigned j = 0; j < k; j++)
                    u[i * p->k + j] += ya * wa[j];
            }
    *kk = k;
out:
    free(y);
    free(z);
    free(g);
    free(w);
    free(s);
    return rc;
}
