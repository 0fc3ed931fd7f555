/* run_internal.h - types shared by the run pipeline (run_pipeline.c) and its
 * checkpoints (run_ckpt.c). Private to mpi/. */
#ifndef NDD_RUN_INTERNAL_H
#define NDD_RUN_INTERNAL_H

#include "ndd_run.h"
#include "ndd_util.h"

enum {
    ST_READ, ST_SIG, ST_SHUFFLE1, ST_POSTINGS, ST_CC, ST_SHUFFLE2, ST_VERIFY, ST_OUTPUT, ST_DEDUP, ST_N
};


#define HIST_N 24 /* set sizes: bucket b holds sizes in [2^b, 2^(b+1)) */
#define TOP_N 10

typedef struct {
    uint64_t size;
    uint64_t label;
    char first_id[120];
} topset_t;

typedef struct {
    uint64_t label, count;
} lc_t;

/* Counters summed over ranks (all uint64 so one MPI_Allreduce does them). */
typedef struct {
    uint64_t docs_read, rejected, no_text, no_sigs, input_bytes, text_bytes;
    uint64_t signatures, postings_single, lists_live, lists_dropped_frequent, lists_dropped_site, lists_dropped_template;
    uint64_t postings_dropped, keys_distinct, edges, links_all, links_cut_giant, giant_sets_split;
    uint64_t sets, docs_in_sets, giant_sets, docs_in_giant_sets;
    uint64_t hist[HIST_N];
    uint64_t shuffle1_bytes, shuffle2_bytes, shuffle2_raw_bytes, shuffle3_bytes;
    uint64_t cand_pairs, pairs_skipped_joined, pairs_exact, pairs_verified, pairs_pruned_bound,
        pairs_cost_limit, pairs_accepted;
    uint64_t clusters, docs_in_clusters, docs_removed;
    uint64_t verify_work; /* per rank: candidate pairs (used for max/min skew) */
    uint64_t sketch_pairs, strain_away_micro; /* TLCS pairs verified and the sum of their strain-away rates (x1e6) */
} counters_t;

#define NCOUNTERS (sizeof(counters_t) / sizeof(uint64_t))

typedef struct {
    /* local documents, g = first + i */
    size_t n, cap;
    uint64_t *id_off, *url_off; /* into strs (NUL-terminated) */
    uint64_t *text_off;         /* into texts */
    uint32_t *text_len, *site, *weight;
    uint16_t *urlh;
    ndd_buf_t strs, texts;
    /* signatures of local docs, for shuffle 1 */
    uint64_t *keys;
    uint64_t *key_off; /* n+1 */
    size_t nkeys, keys_cap;
    uint8_t *in_set, *removed;
    uint64_t *label;
    uint64_t first;
    uint64_t *starts; /* P+1 */
} docs_t;

typedef struct {
    const ndd_run_cfg_t *cfg;
    int P, me;
    docs_t d;
    ndd_buf_t rejects;
    counters_t c;
    double t[ST_N];
    uint64_t *dropped; /* sorted keys of dropped lists (all ranks) */
    size_t ndropped;
    uint64_t *edges; /* pairs (u, v) */
    uint32_t *emult; /* signatures supporting each link */
    size_t nedges;
    lc_t *owned; /* labels this rank owns, with their set sizes */
    size_t nowned;
    uint64_t cc_rounds;
    topset_t top[TOP_N];
    size_t ntop;
    ndd_buf_t pair_rows, cluster_rows, score_rows; /* received rows: [u64 k1][u64 k2][u32 len][bytes] */
    ndd_df_t *dfs[3];          /* corpus df sketches of the baseline methods (summed over ranks) */
    size_t ndfs;
    ndd_method_ctx_t *mctx;    /* baseline candidate keys */
} run_t;

int ndd_docs_reserve(docs_t *d, size_t need);
void ndd_docs_free(docs_t *d);
const char *ndd_doc_id(const run_t *r, size_t i);
const char *ndd_doc_url(const run_t *r, size_t i);

/* ---- checkpoints (run_ckpt.c): all Local unless said otherwise ---- */
/* Writes DIR/manifest: the options that decide the map stage and the inputs. */
int ndd_ckpt_manifest_write(const char *wd, const ndd_run_cfg_t *cfg, int nshards);
/* Reads DIR/manifest into cfg (format, text, signature options, inputs: the
 * strings are owned by *store, freed with ndd_ckpt_manifest_free). */
int ndd_ckpt_manifest_read(const char *wd, ndd_run_cfg_t *cfg, int *nshards, void **store);
void ndd_ckpt_manifest_free(void *store);
/* The map shard of task idx: all of r's documents, their keys, rejects and
 * read counters; written to a temporary name, then renamed, then a marker
 * with its size and checksum. */
int ndd_ckpt_shard_write(const char *wd, int idx, const run_t *r);
/* 0 and the document count when shard idx is complete and intact (reads and
 * checksums the whole shard); _count trusts the marker alone. */
int ndd_ckpt_shard_check(const char *wd, int idx, uint64_t *ndocs);
int ndd_ckpt_shard_count(const char *wd, int idx, uint64_t *ndocs);
/* Appends documents [skip, skip + take) of shard idx to r (and, when
 * with_meta, its rejects and read counters). */
int ndd_ckpt_shard_load(const char *wd, int idx, run_t *r, uint64_t skip, uint64_t take, int with_meta);
/* This rank's verified rows and verify counters (part idx), and the marker
 * written by rank 0 when every part is complete. */
int ndd_ckpt_verify_write(const char *wd, int idx, const run_t *r);
int ndd_ckpt_verify_done_write(const char *wd, int nparts, const run_t *r);
int ndd_ckpt_verify_done_read(const char *wd, int *nparts, run_t *r);
/* Appends the rows of part idx whose first key lies in [lo, hi); adds its
 * counters when with_meta. */
int ndd_ckpt_verify_load(const char *wd, int idx, run_t *r, uint64_t lo, uint64_t hi, int with_meta);
/* Removes DIR and its files (the default work dir after a successful run). */
int ndd_ckpt_remove(const char *wd);

#endif
