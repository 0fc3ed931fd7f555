/* base_internal.h - shared internals of the baselines module (tokeniser,
 * stopwords, scratch arrays, partitions, prefix keys). Not a public header. */
#ifndef NDD_BASE_INTERNAL_H
#define NDD_BASE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_baselines.h"

/* ---- scratch arrays ---- */
/* Ensures *p holds at least need elements of size el (grows geometrically). */
int base_grow(void **p, size_t *cap, size_t need, size_t el);

/* ---- hashing ---- */
static inline uint64_t base_mix64(uint64_t x)
{
    /* splitmix64 finaliser: a bijection with full avalanche */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}
uint64_t base_hash2(uint64_t a, uint64_t b); /* XXH3 over the 16 bytes (a, b) */

/* ---- tokeniser ---- */
enum { BASE_SEP = 0, BASE_WORD = 1, BASE_CJK = 2 };
int base_cp_class(uint32_t cp);
/* Decodes one UTF-8 character at s[i] (i < n): returns its byte length
 * (1 for an invalid byte, then *cp = 0xFFFD). */
size_t base_utf8_next(const unsigned char *s, size_t n, size_t i, uint32_t *cp);

typedef struct base_tok {
    char *low;          /* lower-cased (ASCII) copy of the text */
    size_t lowcap;
    uint32_t *off, *len;/* word spans in low */
    uint64_t *h;        /* word hashes */
    size_t n, cap;
} base_tok_t;
int base_tok_run(base_tok_t *t, const char *text, size_t n);
void base_tok_free(base_tok_t *t);

/* ---- stopwords (English) and SpotSigs antecedents ---- */
typedef struct base_words {
    uint64_t *slot;     /* open addressing table of word hashes (0 = empty) */
    uint8_t *kind;      /* bit 0 stopword, bit 1 antecedent */
    size_t mask;
} base_words_t;
int base_words_init(base_words_t *w);
void base_words_free(base_words_t *w);
int base_words_kind(const base_words_t *w, uint64_t h); /* 0 when not listed */
#define BASE_STOP 1
#define BASE_ANTE 2

/* ---- sorting ---- */
void base_sort_u64(uint64_t *a, size_t n);
size_t base_unique_u64(uint64_t *a, size_t n); /* on a sorted array */

/* ---- partitions (SpotSigs length partitioning, reused by q-grams) ---- */
typedef struct base_parts {
    double t;
    uint64_t *b;        /* b[0] = 1 < b[1] < ...: partition k = [b[k], b[k+1]) */
    size_t n, cap;
} base_parts_t;
int base_parts_index(base_parts_t *pt, double t, uint64_t len, uint64_t *k);
void base_parts_free(base_parts_t *pt);

/* Prefix-filter keys of a set of distinct elements (id, with rank = its
 * estimated df or 0) of size len under threshold t: the len - ceil(t*len) + 1
 * first elements in the global order (rank, id), each keyed with the set's
 * partition k and with k+1: key = hash(tag, partition, id). el is sorted in
 * place. Appends to *keys (the caller sorts and uniques). */
typedef struct base_rank {
    uint64_t rank;
    uint64_t id;
} base_rank_t;
int base_prefix_keys(base_parts_t *pt, double t, uint64_t tag, base_rank_t *el, size_t nel,
                     uint64_t **keys, size_t *keycap, size_t *nkeys);

/* ---- document frequencies (base_df.c) ---- */
uint64_t base_df_ndocs(const ndd_df_t *df);
const ndd_method_params_t *base_df_params(const ndd_df_t *df); /* the params a sketch was built with */
/* Smoothed idf 1 + ln((1 + N) / (1 + df)) (SimHash and Cosine weights). */
double base_idf_smooth(const ndd_df_t *df, uint64_t h);
/* Normalised idf ln(N / df) / ln(N) in [0, 1] (I-Match band; 1 when N < 2). */
double base_idf_norm(const ndd_df_t *df, uint64_t h);

/* ---- the context ---- */
typedef struct base_slot {
    uint64_t *h;        /* set elements / term hashes */
    size_t hcap;
    uint32_t *f;        /* frequencies parallel to h */
    size_t fcap;
    ndd_spot_entry_t *e;/* SpotSigs vector */
    size_t ecap;
    size_t n;
} base_slot_t;

typedef struct base_term {
    const char *p;
    size_t len;
    uint64_t h;
} base_term_t;

typedef struct base_hw {
    uint64_t h;
    double w;
} base_hw_t;

struct ndd_method_ctx {
    ndd_method_params_t p;
    const ndd_df_t *df;       /* words */
    const ndd_df_t *df_q;     /* q-grams (key order) */
    const ndd_df_t *df_spot;  /* spot signatures (key order) */
    base_words_t words;
    base_tok_t tok;
    base_slot_t slot[2];
    uint64_t *tmp;      /* scratch */
    size_t tmpcap;
    base_hw_t *hw;
    size_t hwcap;
    uint32_t *pos;
    size_t poscap;
    double *wd;         /* per-word weights */
    size_t wdcap;
    base_term_t *terms; /* I-Match terms */
    size_t termcap;
    base_rank_t *rk;    /* prefix-filter elements */
    size_t rkcap;
    ndd_buf_t sbuf;
    uint64_t *keys;
    size_t keycap, nkeys;
    uint64_t *mh;       /* bands * rows min-hashes */
    base_parts_t parts_spot, parts_q;
};

/* Per-method feature extraction into a slot (method files). */
int base_simhash_fp(ndd_method_ctx_t *c, const char *text, size_t n, uint64_t *fp, int *has);
int base_shingle_set(ndd_method_ctx_t *c, base_slot_t *s, const char *text, size_t n);
int base_spot_vec(ndd_method_ctx_t *c, base_slot_t *s, const char *text, size_t n, ndd_buf_t *strings);
int base_qgram_set(ndd_method_ctx_t *c, base_slot_t *s, const char *text, size_t n);
int base_tf_vec(ndd_method_ctx_t *c, base_slot_t *s, const char *text, size_t n);
double base_cosine(const ndd_method_ctx_t *c, const base_slot_t *a, const base_slot_t *b);
int base_imatch(ndd_method_ctx_t *c, const char *text, size_t n, unsigned char md[20], size_t *nterms);

#endif
