/* ndd_lsi.h - Latent Semantic Indexing (paper 001's conceptual duplicates),
 * distributed: TF-IDF term-document vectors with document frequencies summed
 * across ranks, a truncated SVD by a randomized range finder (Halko,
 * Martinsson, Tropp 2011) computed across ranks, conceptual fingerprints (a
 * document's coordinates in the k-dimensional concept space, normalised), a
 * 64-bit SimHash of word 3-shingles for paper 001's textual gate th1, and a
 * cosine LSH (random hyperplanes) whose band keys make candidate pairs of
 * documents with little text in common. Plain C11, no MPI, no printing.
 *
 * Determinism: every sum across documents is taken in fixed point (each
 * document's contribution rounded to an integer pair on its own, integers
 * added modulo 2^64: an exact, associative sum), so the SVD and the
 * fingerprints are bit-identical for any number of ranks and any split of
 * the documents among them. Algorithm, parameters and deviations from the
 * paper: docs/lsi.md.
 *
 * Errors: NDD_ERR_INVAL (bad parameter), NDD_ERR_NOMEM, NDD_ERR_INTERNAL
 * (LAPACK failure), NDD_ERR_UNSUPPORTED (no LAPACK to load), and the
 * transport's codes. Functions taking an
 * ndd_comm_t are Collective on it; the others are Local. */
#ifndef NDD_LSI_H
#define NDD_LSI_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_comm.h"
#include "ndd_util.h"

typedef struct ndd_lsi_params {
    unsigned k;           /* concept dimensions (default 200) */
    unsigned oversample;  /* extra random directions of the range finder (default 10) */
    unsigned power;       /* power iterations (default 2) */
    unsigned bucket_bits; /* terms hashed into 2^bits columns, 8..20 (default 16) */
    unsigned cjk_gram;    /* character n-gram in runs of CJK characters, 1..4 (default 2) */
    unsigned bigrams;     /* 1: pairs of consecutive terms are terms too (default 1) */
    uint64_t seed;        /* the shared random test matrix and hyperplanes (default 1) */
    double th1;           /* textual gate: SimHash similarity (64 - Hamming) >= th1 (default 32) */
    double th4;           /* conceptual duplicate: cosine of fingerprints >= th4 (default 0.25) */
    double gate;          /* --verifier tlcs+lsi: also TLCS resemblance >= gate (default 0.02) */
    unsigned lsh_bands;   /* cosine LSH: bands (default 64; 0 = no LSH keys) */
    unsigned lsh_bits;    /* hyperplanes per band, 1..64 (default 6) */
} ndd_lsi_params_t;

void ndd_lsi_params_default(ndd_lsi_params_t *p);
int ndd_lsi_params_check(const ndd_lsi_params_t *p);

/* ---- terms ----
 * Words: maximal runs of ASCII letters/digits (lower-cased) and of non-ASCII
 * letters outside CJK; single ASCII characters are dropped. Runs of CJK
 * characters (no spaces between words): every character n-gram of cjk_gram
 * characters (a shorter run is one term). Each term is hashed (XXH3) into
 * one of 2^bucket_bits columns. */
/* The term-document matrix of a batch of documents: CSR, one row per
 * document; before ndd_lsi_tfidf the columns are buckets and the values raw
 * term counts, after it compact column numbers and TF-IDF weights. */
typedef struct ndd_lsi_mat {
    size_t n, nnz;
    size_t off_cap, nz_cap;
    size_t *off; /* n+1 */
    uint32_t *col;
    double *val;
} ndd_lsi_mat_t;

#define NDD_LSI_MAT_INIT {0}

void ndd_lsi_mat_free(ndd_lsi_mat_t *m);
/* Appends one row: text's terms with their counts (sorted by column). */
int ndd_lsi_mat_add_text(ndd_lsi_mat_t *m, const ndd_lsi_params_t *p, const char *text, size_t len);
/* Appends one row given as it is (col strictly increasing; tests). */
int ndd_lsi_mat_add_row(ndd_lsi_mat_t *m, const uint32_t *col, const double *val, size_t nnz);
/* Calls fn(user, hash) for each term of text in order (tests, SimHash). */
int ndd_lsi_terms(const ndd_lsi_params_t *p, const char *text, size_t len, void (*fn)(void *user, uint64_t h),
                  void *user);

/* Collective. Turns the raw counts of every rank's rows into paper 001's
 * TF-IDF (tf = n_td / sum_t n_td, idf = ln(N / df_t), N and df summed over
 * ranks), each row then normalised to unit length; terms that occur in no
 * document are dropped and the columns renumbered 0..*ncols-1 in bucket
 * order (the same on every rank). Terms in every document (idf 0) vanish. */
int ndd_lsi_tfidf(ndd_comm_t *c, ndd_lsi_mat_t *m, unsigned bucket_bits, size_t *ncols);

/* Collective. Truncated SVD A ~ U S V^T of the distributed matrix A whose
 * rows are every rank's rows of m in rank order (ncols columns, the same on
 * every rank), by the randomized range finder with l = k + oversample
 * random directions (a Rademacher test matrix generated from seed),
 * `power` power iterations, and a dense SVD (LAPACK) of the l x l Gram
 * matrix of the projected A. *kk = min(k, numerical rank found).
 * sigma[0..*kk) the singular values (decreasing); u (m->n x k, row-major,
 * may be NULL) this rank's rows of U (columns *kk..k-1 zero). The result
 * does not depend on the number of ranks or on the split of the rows. */
/* Local: 1 when LAPACK (liblapacke.so.3, loaded on first use with dlopen) is
 * there; ndd_lsi_svd fails with NDD_ERR_UNSUPPORTED otherwise. */
int ndd_lsi_lapack_available(void);
int ndd_lsi_svd(ndd_comm_t *c, const ndd_lsi_mat_t *m, size_t ncols, const ndd_lsi_params_t *p, double *sigma,
                double *u, unsigned *kk);

/* Local. Conceptual fingerprints: row i of U S (k coordinates; paper 001's
 * s * V^T for a term x document matrix), normalised to unit length, as
 * float (an all-zero row stays zero). u: n x k row-major. */
void ndd_lsi_fingerprints(const double *u, const double *sigma, size_t n, unsigned k, float *fp);
/* Local. Cosine of two fingerprints (0 when one is zero). */
double ndd_lsi_cosine(const float *a, const float *b, unsigned k);
/* Local. paper 001's textual fingerprint: 64-bit SimHash of the word
 * 3-shingles (each shingle weight 1; 0 for a text with no shingle). */
uint64_t ndd_lsi_simhash(const ndd_lsi_params_t *p, const char *text, size_t len);
/* Local. 64 - Hamming distance. */
static inline unsigned ndd_lsi_textsim(uint64_t a, uint64_t b) { return 64u - ndd_popcount64(a ^ b); }

/* ---- cosine LSH (random hyperplanes) ---- */
typedef struct ndd_lsi_lsh ndd_lsi_lsh_t;
/* Hyperplanes for fingerprints of k coordinates (lsh_bands x lsh_bits). */
int ndd_lsi_lsh_create(ndd_lsi_lsh_t **l, const ndd_lsi_params_t *p, unsigned k);
void ndd_lsi_lsh_free(ndd_lsi_lsh_t *l);
/* keys[0..lsh_bands): one key per band (the band number and its bits
 * hashed); *nkeys = 0 for a zero fingerprint. Two fingerprints at angle t
 * share band b with probability (1 - t/pi)^lsh_bits. */
void ndd_lsi_lsh_keys(const ndd_lsi_lsh_t *l, const float *fp, uint64_t *keys, size_t *nkeys);

#endif
