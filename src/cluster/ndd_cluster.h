/* ndd_cluster.h - the pure (MPI-free) pieces of the ndd run pipeline:
 * union-find, the postings rules of paper 002 (frequent / site-concentrated
 * signatures), candidate-pair selection inside a perhaps-similar set, and the
 * site (host) of a URL. Plain C, no MPI, no printing. */
#ifndef NDD_CLUSTER_H
#define NDD_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "ndd_wire.h"

/* ---- union-find over 0..n-1 (path halving, union by size; the root of a
 * component is always its smallest element, so results are deterministic) ---- */
typedef struct ndd_uf {
    uint32_t *parent;
    size_t n;
} ndd_uf_t;

int ndd_uf_init(ndd_uf_t *uf, size_t n);
void ndd_uf_free(ndd_uf_t *uf);
uint32_t ndd_uf_find(ndd_uf_t *uf, uint32_t x);
/* Returns 1 when x and y were in different components (now merged), else 0. */
int ndd_uf_union(ndd_uf_t *uf, uint32_t x, uint32_t y);

/* ---- postings (paper 002: drop signatures held by > max_docs documents, or
 * by > site_docs documents concentrated on a few sites) ---- */
typedef struct ndd_posting {
    uint64_t key;    /* signature key (ndd_sig_key) */
    uint64_t doc;    /* global document number */
    uint32_t site;   /* hash of the document's host (0 = unknown) */
    uint16_t url;    /* 16-bit hash of the document's URL (tells re-crawls of one URL from a site's other pages) */
    uint16_t weight; /* W_d: the document's signature count */
} ndd_posting_t;

typedef struct ndd_postings_params {
    size_t max_docs;        /* default 10000: lists longer than this are dropped */
    size_t site_docs;       /* default 400: lists longer than this are dropped when concentrated */
    double site_share;      /* default 0.5: "concentrated" = the top site_top sites hold >= this share */
    unsigned site_top;      /* default 3 */
    /* site-template rule (ndd's addition, for corpora where a site has far
     * fewer than site_docs pages): a list whose largest site holds at least
     * template_share of its documents, with at least template_urls distinct
     * URLs of that site, is the site's template, not shared content. */
    size_t template_urls;   /* default 5; 0 disables the rule */
    double template_share;  /* default 0.9 */
    /* corpus-share rule (ndd's addition: paper 002's max_docs assumes 430M
     * pages): lists held by more than max_share of all documents, and by
     * more than max_share_floor documents, are dropped as frequent. */
    double max_share;       /* default 0 (off); e.g. 0.01 */
    size_t max_share_floor; /* default 100 */
    uint64_t total_docs;    /* the corpus size N (set by the caller) */
} ndd_postings_params_t;

void ndd_postings_params_default(ndd_postings_params_t *p);

typedef enum {
    NDD_LIST_SINGLE = 0,
    NDD_LIST_LIVE,
    NDD_LIST_DROP_FREQUENT,
    NDD_LIST_DROP_SITE,
    NDD_LIST_DROP_TEMPLATE
} ndd_list_kind_t;

/* Classifies one posting list (all entries share one key; any order).
 * NDD_LIST_DROP_FREQUENT covers both max_docs and the corpus-share rule.
 * scratch must hold n uint64_t. */
ndd_list_kind_t ndd_postings_classify(const ndd_posting_t *list, size_t n, const ndd_postings_params_t *p,
                                      uint64_t *scratch);
/* Index of the representative of a list: the largest <weight, doc> key. */
size_t ndd_postings_representative(const ndd_posting_t *list, size_t n);
/* Sorts postings by (key, doc) (radix sort; tmp must hold n entries). */
int ndd_postings_sort(ndd_posting_t *a, ndd_posting_t *tmp, size_t n);
/* The same for input already ordered by doc: a stable radix sort on the key
 * alone (half the passes). */
int ndd_postings_sort_key(ndd_posting_t *a, ndd_posting_t *tmp, size_t n);
/* Sorts postings by (key, doc) in place, with no memory beyond the stack (an
 * MSD radix sort; recursion at most 16 levels deep). Not stable: entries
 * equal in (key, doc) may be reordered among themselves; where those are
 * whole-record equal (a document's site, URL hash and weight are the
 * document's), the result is that of ndd_postings_sort. */
void ndd_postings_sort_inplace(ndd_posting_t *a, size_t n);

/* ---- shuffle 1's wire form of postings: grouped by document ----
 * A posting's site, URL hash and weight are its document's, so a rank sends
 * another a document's postings as one group: a header of NDD_PGROUP_HEAD
 * bytes (LE u64 doc, u32 site, u32 url | weight << 16, u32 k >= 1) and the
 * group's k keys (LE u64 each), in the order they were added. */
#define NDD_PGROUP_HEAD 20
/* Appends to b a group's header, with no key yet; *head = where it is. */
static inline int ndd_pgroup_begin(ndd_buf_t *b, uint64_t doc, uint32_t site, uint16_t url, uint16_t weight,
                                   size_t *head)
{
    char h[NDD_PGROUP_HEAD];
    ndd_le64_store(h, doc);
    ndd_le32_store(h + 8, site);
    ndd_le32_store(h + 12, (uint32_t)url | (uint32_t)weight << 16);
    ndd_le32_store(h + 16, 0);
    *head = b->len;
    return ndd_buf_append(b, h, sizeof h);
}
/* Appends key to b, one more key of the group whose header is at head. */
static inline int ndd_pgroup_add(ndd_buf_t *b, size_t head, uint64_t key)
{
    int rc = ndd_put64(b, key);
    if (!rc)
        ndd_le32_store(b->data + head + 16, ndd_le32_load(b->data + head + 16) + 1);
    return rc;
}
/* The groups in x[0..len) expanded into p[0..n): one posting per key, in
 * order. NDD_ERR_FORMAT (p partly written) unless they hold exactly n
 * postings and fill x exactly (no group without a key, none cut short). */
int ndd_pgroups_decode(const char *x, size_t len, ndd_posting_t *p, uint64_t n);

/* ---- candidate pairs inside one perhaps-similar set ----
 * Input: for each set member i (0..n-1), its signature keys (already without
 * globally dropped keys). Output: candidate pairs (i < j) with the number of
 * keys they share, strongest first then (i, j); each member keeps at most
 * per_doc partners (the strongest); lists longer than list_cap inside the set
 * only link each member to the list's first member (bounded cost); sets with at
 * most all_pairs_upto members give every pair. */
typedef struct ndd_cand {
    uint32_t i, j;
    uint32_t shared;
} ndd_cand_t;

typedef struct ndd_cand_params {
    unsigned per_doc;        /* default 8 */
    unsigned list_cap;       /* default 64 */
    unsigned all_pairs_upto; /* default 8 */
    unsigned min_shared;     /* larger sets: pairs sharing fewer keys are not candidates (default 2) */
} ndd_cand_params_t;

void ndd_cand_params_default(ndd_cand_params_t *p);

typedef struct ndd_cand_ws ndd_cand_ws_t;
int ndd_cand_ws_create(ndd_cand_ws_t **ws);
void ndd_cand_ws_free(ndd_cand_ws_t *ws);
/* keys: concatenated keys of all members; off[i]..off[i+1] are member i's.
 * *out is owned by ws (valid until the next call). */
int ndd_cand_select(ndd_cand_ws_t *ws, const ndd_cand_params_t *p, size_t n, const uint64_t *keys,
                    const size_t *off, const ndd_cand_t **out, size_t *nout);

/* ---- sites ---- */
/* Host of a URL, lower-cased, without "www." and port: writes at most cap-1
 * bytes + NUL into host; returns its length (0 when the URL has no host). */
size_t ndd_url_host(const char *url, char *host, size_t cap);
/* 32-bit site id of a URL (hash of ndd_url_host; 0 when no host). */
uint32_t ndd_url_site(const char *url);
/* 16-bit hash of the whole URL (0 for an empty URL). */
uint16_t ndd_url_hash16(const char *url);

#endif
