/* ndd_baselines.h - the baseline near-duplicate methods as plain-C cores:
 * SimHash (paper 001 + Manku et al.'s permuted tables), MinHash-LSH over word
 * shingles, SpotSigs (paper 004, with its exact all-pairs matcher), DDD
 * q-grams (paper 003), I-Match (Chowdhury et al.) and Cosine on TF-IDF
 * vectors (verifier only), plus a count-min sketch of document frequencies.
 * Plain C11, no MPI, no printing. Algorithms, defaults, deviations from the
 * papers and measured figures: docs/baselines.md.
 *
 * How ndd run uses a method m:
 *   keys(text)      -> sorted unique 64-bit keys; the method's candidate pairs
 *                      are exactly the pairs of documents sharing >= 1 key;
 *   compare(a, b)   -> score + verdict of the method's natural verifier on two
 *                      normalised texts (ndd_method_default_verifier()).
 * Methods that weight terms (SimHash, I-Match, Cosine) need corpus document
 * frequencies: an ndd_df_t filled with every document (counters summed over
 * ranks with MPI_Allreduce), passed to ndd_method_ctx_create().
 *
 * Tokenisation (every method): words are maximal runs of letters/digits of
 * the UTF-8 text, ASCII letters lower-cased; each CJK ideograph / kana is a
 * word of its own (Chinese and Japanese have no spaces); punctuation, symbols,
 * spaces and invalid bytes separate words. Word/term hashes are XXH3_64bits
 * of the lower-cased word bytes. Details: docs/baselines.md.
 *
 * Errors: NDD_ERR_INVAL (bad argument or parameter; a df-weighted method with
 * no df), NDD_ERR_NOMEM, NDD_ERR_LIMIT (text of 4 GiB or more). */
#ifndef NDD_BASELINES_H
#define NDD_BASELINES_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"

typedef enum {
    NDD_METHOD_SIMHASH = 1,
    NDD_METHOD_MINHASH,
    NDD_METHOD_SPOTSIGS,
    NDD_METHOD_QGRAM,
    NDD_METHOD_IMATCH,
    NDD_METHOD_COSINE /* verifier only: ndd_method_keys() gives NDD_ERR_INVAL */
} ndd_method_t;

/* "simhash", "minhash", "spotsigs", "qgram", "imatch", "cosine" (case-insensitive). */
int ndd_method_parse(const char *name, ndd_method_t *m);
const char *ndd_method_name(ndd_method_t m); /* "?" for an unknown value */

typedef struct ndd_method_params {
    /* SimHash: 64-bit fingerprint over word shingles, TF-IDF weights */
    unsigned simhash_k;      /* duplicates: Hamming distance <= k (default 3) */
    unsigned simhash_blocks; /* the 64 bits split into t blocks (k < t <= 64, default 5); keys = one per
                              * choice of t-k blocks: C(t, k) keys of ~64(t-k)/t bits (default 10 keys
                              * of 25-26 bits; t = k+1 = 4 gives 4 keys of 16 bits but ~90x more false
                              * candidates on Reuters: docs/baselines.md) */
    unsigned shingle;        /* words per shingle, SimHash and MinHash (default 3) */
    /* MinHash-LSH */
    unsigned bands, rows;    /* b bands x r rows = b*r min-hashes (default 20 x 5) */
    double jaccard;          /* verifier: exact Jaccard of the shingle sets >= this (default 0.5) */
    /* SpotSigs */
    unsigned spot_chain;     /* chain length c (default 3) */
    unsigned spot_distance;  /* spot distance d (default 2) */
    double spot_tau;         /* multiset Jaccard threshold tau, 0 < tau <= 1 (default 0.44) */
    /* DDD q-grams */
    unsigned q;              /* q-gram length in characters (default 4) */
    double qgram_threshold;  /* doc_q >= this, 0 < t <= 1 (default 0.8) */
    /* I-Match: keep terms whose normalised idf log(N/df)/log(N) is in [lo, hi] */
    double imatch_lo, imatch_hi; /* default 0.4, 0.75 */
    /* Cosine on TF-IDF word vectors */
    double cosine;           /* default 0.95 (paper 002) */
    uint64_t seed;           /* seed of the MinHash family (default 0) */
} ndd_method_params_t;

void ndd_method_params_default(ndd_method_params_t *p);
/* NDD_OK or NDD_ERR_INVAL when a field is out of range. */
int ndd_method_params_check(const ndd_method_params_t *p);
/* Sets one field by name ("simhash_k", "simhash_blocks", "shingle", "bands",
 * "rows", "jaccard", "spot_chain", "spot_distance", "spot_tau", "q",
 * "qgram_threshold", "imatch_lo", "imatch_hi", "cosine", "seed") from its text
 * value, e.g. for a CLI option "name=value". NDD_ERR_INVAL for an unknown
 * name or a malformed value (range is checked by ndd_method_params_check). */
int ndd_method_params_set(ndd_method_params_t *p, const char *name, const char *value);

/* 1 when method m (as candidate generator or verifier) needs word document
 * frequencies (a NDD_DF_WORDS sketch): SimHash, I-Match, Cosine. */
int ndd_method_needs_df(ndd_method_t m);
/* The natural verifier of a candidate method (itself; Cosine for Cosine). */
ndd_method_t ndd_method_default_verifier(ndd_method_t candidates);

/* ---- document frequencies: count-min sketch ----
 * depth rows x width uint32 counters (default 4 x 2^20 = 16 MiB). add_doc
 * adds 1 to the counters of every DISTINCT feature of a text; get = minimum
 * over rows, never below the true df. Sketches of disjoint corpora merge by
 * summing counters and ndocs (integer sums: identical for any rank count).
 * Error: est - df <= e/width * T with probability >= 1 - e^-depth, T = sum
 * over documents of their distinct features (docs/baselines.md).
 * The feature kind: words (term weights of SimHash, I-Match, Cosine), or
 * q-grams / spot signatures, whose df orders the prefix-filter keys of the
 * q-gram and SpotSigs methods rarest first (paper 004 sec. 4.4: lists in
 * ascending df) so that common features rarely become keys. */
typedef enum {
    NDD_DF_WORDS = 0,
    NDD_DF_QGRAMS = 1,   /* distinct q-grams (params q) */
    NDD_DF_SPOTSIGS = 2  /* distinct spot signatures (params spot_chain, spot_distance) */
} ndd_df_kind_t;
typedef struct ndd_df ndd_df_t;
int ndd_df_create(ndd_df_t **df); /* words, 4 x 2^20 */
/* kind's features under params p (NULL = defaults; only q / spot_chain /
 * spot_distance matter); depth 1..16, log2_width 4..28. */
int ndd_df_create_kind(ndd_df_t **df, ndd_df_kind_t kind, const ndd_method_params_t *p,
                       unsigned depth, unsigned log2_width);
int ndd_df_create_sized(ndd_df_t **df, unsigned depth, unsigned log2_width); /* words */
void ndd_df_free(ndd_df_t *df);
ndd_df_kind_t ndd_df_kind(const ndd_df_t *df);
int ndd_df_add_doc(ndd_df_t *df, const char *text, size_t n);
uint32_t *ndd_df_counters(ndd_df_t *df, size_t *n); /* raw counters, for MPI_Allreduce(SUM) */
uint64_t *ndd_df_ndocs(ndd_df_t *df);               /* document count N, for MPI_Allreduce(SUM) */
uint64_t ndd_df_term_hash(const char *word, size_t n); /* XXH3_64bits of the (lower-cased) word */
uint32_t ndd_df_get(const ndd_df_t *df, uint64_t feature_hash);
void ndd_df_clear(ndd_df_t *df);

/* Bit (1 << kind) set for every sketch kind method m uses: SimHash, I-Match,
 * Cosine need NDD_DF_WORDS (ndd_method_needs_df); q-grams use NDD_DF_QGRAMS
 * and SpotSigs NDD_DF_SPOTSIGS for their key order when one is attached
 * (without one their keys are still exact, in hash order: many more
 * candidate pairs, see docs/baselines.md). */
unsigned ndd_method_df_kinds(ndd_method_t m);

/* ---- per-thread context: parameters, df, reusable buffers ---- */
typedef struct ndd_method_ctx ndd_method_ctx_t;
/* p NULL = defaults (copied); df (any kind, attached as by add_df) may be
 * NULL; without a words sketch the df-weighted methods fail with
 * NDD_ERR_INVAL. Sketches are borrowed, read only, and must outlive c. */
int ndd_method_ctx_create(ndd_method_ctx_t **c, const ndd_method_params_t *p, const ndd_df_t *df);
/* Attaches one more sketch (replacing one of the same kind). A q-gram or
 * spot sketch must have been built with the same q / spot_chain /
 * spot_distance as c (NDD_ERR_INVAL otherwise). Every rank must attach the
 * same (reduced) sketches: keys depend on them. */
int ndd_method_ctx_add_df(ndd_method_ctx_t *c, const ndd_df_t *df);
void ndd_method_ctx_free(ndd_method_ctx_t *c);
const ndd_method_params_t *ndd_method_ctx_params(const ndd_method_ctx_t *c);

/* Candidate keys of one text (sorted, unique; possibly none, e.g. a text with
 * no words). *keys is owned by c and valid until the next call on c. */
int ndd_method_keys(ndd_method_ctx_t *c, ndd_method_t m, const char *text, size_t n,
                    const uint64_t **keys, size_t *nkeys);
/* Verifier v on two texts: *score is the similarity (SimHash: 64 - Hamming
 * distance; MinHash: exact Jaccard; SpotSigs: multiset Jaccard; q-grams:
 * doc_q; I-Match: 1 equal digests / 0; Cosine: cosine) and *duplicate the
 * verdict. A text with no features (no words, no q-gram, no spot signature,
 * no I-Match term) is a duplicate of nothing (score 0). */
int ndd_method_compare(ndd_method_ctx_t *c, ndd_method_t v, const char *a, size_t na,
                       const char *b, size_t nb, double *score, int *duplicate);

/* ---- lower-level pieces (tests, benchmarks, measurement) ---- */

/* Partition index of a set/multiset size len >= 1 under threshold t (the
 * SpotSigs partitioning, paper 004 sec. 4.3): p_0 = 1, p_{k+1} = smallest
 * integer > p_k with t * p_{k+1} > p_k; len is in partition k when
 * p_k <= len < p_{k+1}. Two sizes whose ratio min/max is >= t are in the
 * same or adjacent partitions. NDD_ERR_INVAL for t outside (0,1] or len 0. */
int ndd_baselines_partition(double t, uint64_t len, uint64_t *k);
/* The similarity predicate every method uses: num >= t * den (double
 * arithmetic, integer num/den exact up to 2^53) and den > 0. */
int ndd_baselines_ratio_ge(uint64_t num, uint64_t den, double t);

/* SimHash fingerprint (*has = 0 for a text with no word after stopword removal). */
int ndd_simhash_fingerprint(ndd_method_ctx_t *c, const char *text, size_t n, uint64_t *fp, int *has);
/* Permuted-table keys of one fingerprint (sorted, unique); cap >= C(t, k). */
int ndd_simhash_fp_keys(const ndd_method_params_t *p, uint64_t fp, uint64_t *keys, size_t cap, size_t *nkeys);
size_t ndd_simhash_nkeys(const ndd_method_params_t *p); /* C(t, k), 0 if the params are invalid */

/* Sorted unique 64-bit hashes of the word shingles of a text (MinHash's set). */
int ndd_minhash_shingles(ndd_method_ctx_t *c, const char *text, size_t n, const uint64_t **set, size_t *nset);
/* bands*rows min-hashes of a set of 64-bit elements into sig[bands*rows]. */
void ndd_minhash_of_set(const ndd_method_params_t *p, const uint64_t *set, size_t n, uint64_t *sig);
double ndd_minhash_estimate(const uint64_t *a, const uint64_t *b, size_t m); /* fraction of equal positions */
/* Exact Jaccard |A n B| / |A u B| of two sorted unique arrays (0 when both empty). */
double ndd_jaccard_sets(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

/* SpotSigs: a document's spot-signature multiset, sorted by h, unique h, f >= 1.
 * h = XXH3_64bits of the signature text "antecedent:word1:...:wordc". */
typedef struct ndd_spot_entry {
    uint64_t h;
    uint32_t f;
} ndd_spot_entry_t;
typedef struct ndd_spotsigs_vec {
    const ndd_spot_entry_t *e;
    size_t n;
} ndd_spotsigs_vec_t;
/* Vector of one text (*e owned by c, valid until the next call on c). */
int ndd_spotsigs_vector(ndd_method_ctx_t *c, const char *text, size_t n, const ndd_spot_entry_t **e, size_t *ne);
/* The signatures as text, one per line in text order (for tests and docs). out is cleared first. */
int ndd_spotsigs_strings(ndd_method_ctx_t *c, const char *text, size_t n, ndd_buf_t *out);
/* Multiset Jaccard: *num = sum min(fa, fb), *den = sum max(fa, fb). */
void ndd_spotsigs_jaccard(const ndd_spot_entry_t *a, size_t na, const ndd_spot_entry_t *b, size_t nb,
                          uint64_t *num, uint64_t *den);
/* Candidate keys of one vector (what ndd_method_keys gives for SpotSigs). */
int ndd_spotsigs_vec_keys(ndd_method_ctx_t *c, const ndd_spot_entry_t *e, size_t ne,
                          const uint64_t **keys, size_t *nkeys);

/* The paper's exact all-pairs matcher (sec. 4.3-4.5): length partitions,
 * per-partition inverted index sorted by descending length, signatures in
 * ascending partition df, bound-based continue/break conditions and early
 * termination, each document against its own and the next partition. Returns
 * exactly the pairs (a < b) with multiset Jaccard >= tau (num >= tau * den,
 * den > 0), sorted by (a, b). *pairs is malloc'ed (caller frees; NULL when
 * none). st may be NULL. NDD_ERR_INVAL for tau outside (0,1]. */
typedef struct ndd_spotsigs_pair {
    uint32_t a, b;
    double sim;
} ndd_spotsigs_pair_t;
typedef struct ndd_spotsigs_stats {
    uint64_t docs;            /* documents with >= 1 signature */
    uint64_t partitions;      /* non-empty partitions */
    uint64_t pairs_all;       /* docs * (docs - 1) / 2: what brute force compares */
    uint64_t pairs_partition; /* pairs in the same or adjacent partitions */
    uint64_t jaccard_calls;   /* exact multiset Jaccard computations done */
    uint64_t postings_read;   /* inverted-list entries visited */
    uint64_t early_breaks;    /* documents whose traversal ended early (delta1 bound) */
} ndd_spotsigs_stats_t;
int ndd_spotsigs_allpairs(const ndd_spotsigs_vec_t *docs, size_t ndocs, double tau,
                          ndd_spotsigs_pair_t **pairs, size_t *npairs, ndd_spotsigs_stats_t *st);

/* DDD q-grams: sorted unique hashes of the q-grams (q characters) of the text
 * with everything but letters/digits removed (case kept). */
int ndd_qgram_set(ndd_method_ctx_t *c, const char *text, size_t n, const uint64_t **set, size_t *nset);
/* doc_q = |A n B| / max(|A|, |B|); *inter receives |A n B| (may be NULL). */
double ndd_qgram_docq(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *inter);
/* Candidate keys of one q-gram set (what ndd_method_keys gives for q-grams). */
int ndd_qgram_set_keys(ndd_method_ctx_t *c, const uint64_t *set, size_t nset,
                       const uint64_t **keys, size_t *nkeys);

/* I-Match: SHA1 over the sorted unique terms kept by the idf band, each
 * followed by '\n'. *nterms = 0: no term kept (digest zeroed, no key). */
int ndd_imatch_digest(ndd_method_ctx_t *c, const char *text, size_t n, unsigned char digest[20], size_t *nterms);

#endif
