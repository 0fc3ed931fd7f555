/* run_internal.h - the state one rank of ndd run holds between stages, and
 * the stage drivers (run_*.c). Private to src/engine. A stage driver is a
 * short function that calls the kernels of src/ and the transport
 * (ndd_comm.h); every driver is Collective on r->comm unless marked Local,
 * and returns an rc agreed by all ranks. */
#ifndef NDD_RUN_INTERNAL_H
#define NDD_RUN_INTERNAL_H

#include "ndd_comm.h"
#include "ndd_counters.h"
#include "ndd_docs.h"
#include "ndd_index.h"
#include "ndd_part.h"
#include "ndd_run.h"
#include "ndd_sets.h"
#include "ndd_spill.h"
#include "ndd_stats.h"
#include "ndd_tmpl.h"
#include "ndd_util.h"
#include "ndd_wire.h"

#include <xxhash.h>

enum { NDD_ROWS_PAIRS = 0, NDD_ROWS_CLUSTERS = 1, NDD_ROWS_SCORES = 2 };

/* run_progress.c: the state of the progress rounds of one stage. */
typedef struct ndd_prog {
    struct run *r;
    const char *stage, *unit;
    double start, last;
    uint64_t total, done;
    uint64_t recv[3];
    ndd_comm_req_t *req;
} ndd_prog_t;

typedef struct run {
    ndd_comm_t *comm;
    const ndd_run_cfg_t *cfg;
    int P, me;
    uint64_t ninputs_expanded; /* the input files (stats.json "inputs") */
    double t_start;      /* when the job started (progress reports) */
    ndd_docs_t d;        /* this rank's documents: global numbers first + i */
    uint64_t first;
    uint64_t *starts;    /* P+1: every rank's first document and the total */
    uint8_t *in_set, *removed;
    uint64_t *label;     /* perhaps-similar set of each local document */
    uint64_t *size_of;   /* its set's size (1 outside sets) */
    uint64_t *exact_rep; /* ndd_stage_exact: each local document's representative (ndd_exact_reps); NULL without the pass */
    ndd_buf_t rejects;   /* rejects.tsv rows of this rank's input */
    ndd_counters_t c;
    double t[NDD_ST_N];
    uint64_t rss[NDD_ST_N];
    const char *wd;          /* the work directory, and (rank 0) its disk use at the end: stats.json */
    uint64_t wd_bytes, wd_files;
    int wd_removed; /* peak RSS (KiB) of each stage: since the previous stage ended (ndd_stage_rss) */
    int keys_kept;       /* the documents' keys kept after shuffle 1 for shuffle 2 (ndd_stage_postings) */
    uint64_t *dropped;   /* sorted keys of dropped posting lists (all ranks) */
    size_t ndropped;
    ndd_links_t links;   /* the links this rank holds, with their support */
    ndd_setsize_t *owned; /* the sets whose label this rank owns, with sizes */
    size_t nowned;
    uint64_t cc_rounds;
    ndd_topsets_t top;
    ndd_buf_t rows[3];   /* received keyed rows: pairs, clusters, scores */
    ndd_df_t *dfs[3];    /* corpus df sketches of the baseline methods (summed over ranks) */
    size_t ndfs;
    ndd_method_ctx_t *mctx; /* baseline candidate keys */
    ndd_prog_t prog;     /* the stage reporting progress (one at a time) */
    /* LSI (run_lsi.c): this rank's documents' fingerprints and SimHashes, then
     * those of the documents verified here (by number) */
    unsigned lsi_k;      /* coordinates per fingerprint (the same on every rank) */
    float *lsi_fp;
    uint64_t *lsi_sim;
    ndd_lsi_lsh_t *lsh;
    size_t lsi_rn;
    uint64_t *lsi_rg, *lsi_rsim;
    float *lsi_rfp;
    /* the memory budget (run_budget.c) */
    uint64_t budget;         /* bytes per rank */
    char budget_src[160];    /* where it came from (stats.json, the log) */
    ndd_spill_t text_spill;  /* this rank's texts, once spilled (texts_spilled) */
    int texts_spilled;
    unsigned s1_rounds;      /* shuffle 1's rounds of key ranges */
    struct ndd_ixrun *ix; /* --index (run_index.c): the index this batch joins; NULL without */
} run_t;

/* run_main.c */
void ndd_run_log(const run_t *r, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ndd_run_state_free(run_t *r);

/* run_read.c: the map stage (read, text, signatures) of task `task` of
 * `ntasks` (a normal run: task = rank, ntasks = P). Local when progress = 0. */
int ndd_stage_read(run_t *r, const ndd_input_t *in, size_t nin, int task, int ntasks, int progress);
/* run_tmpl.c: the template pass (cfg->templates: strips template blocks,
 * cuts to --max-doc-bytes, computes the sentence signatures), then the
 * signature counters of the batch (with or without the pass). */
int ndd_stage_templates(run_t *r);
/* run_exact.c: the exact-duplicate pass (cfg->exact): groups identical
 * texts by content hash, fills r->exact_rep and drops the followers'
 * candidate keys. After ndd_stage_templates, before the keys are used. */
int ndd_stage_exact(run_t *r);
/* --keep newest|oldest (run_keep.c): the kept member of each cluster by capture date. */
int ndd_stage_keep_dates(run_t *r);
/* Duplicate ids (run_ids.c): counts them (read.duplicate_ids) and warns. */
int ndd_stage_dup_ids(run_t *r);
/* After ndd_stage_components: every follower joins its representative's
 * set (label, size; a representative in no set gets a set of its own). */
int ndd_stage_exact_attach(run_t *r);
/* Local: whether local document i is an exact follower (0 without the pass). */
int ndd_exact_is_follower(const run_t *r, size_t i);
/* Baseline methods: corpus df sketches summed over ranks, baseline keys. */
int ndd_stage_baselines(run_t *r);
/* --write-dedup: the second pass over this rank's shard. */
int ndd_stage_dedup(run_t *r, const ndd_input_t *in, size_t nin);
/* NULL when doc is within the archive controls of cfg (content type, URL
 * include / exclude patterns), else the reject reason. Local. */
const char *ndd_doc_admit(const ndd_run_cfg_t *cfg, const ndd_doc_t *doc);
/* The --write-dedup file's kind from its name: *warc (1: WARC, 0: JSONL),
 * *comp (0 none, 1 gzip, 2 zstd). Local. */
void ndd_dedup_kind(const char *path, int *warc, int *comp);

/* run_sets.c */
int ndd_stage_postings(run_t *r);
int ndd_stage_components(run_t *r);
/* Asks the owners of the documents ids[0..n) (sorted) for answer(g) of each. */
typedef uint64_t (*ndd_answer_fn)(run_t *r, uint64_t g);
int ndd_request_by_owner(run_t *r, const uint64_t *ids, size_t n, ndd_answer_fn fn, uint64_t *reply);

/* run_verify.c: placement, shuffle 2, verification, rows to their writers. */
int ndd_stage_verify(run_t *r);

/* run_lsi.c: TF-IDF, the distributed SVD, fingerprints and SimHashes of
 * this rank's documents, their LSH keys added to the candidate keys (with
 * an LSI verifier; after ndd_stage_exact, before the postings). */
int ndd_stage_lsi(run_t *r);
/* After the placement: every set member's fingerprint to its set's rank. */
int ndd_lsi_send(run_t *r, const uint32_t *dest_of);
/* Local: the fingerprint and SimHash of document g received by ndd_lsi_send (NULL if none). */
const float *ndd_lsi_find(const run_t *r, uint64_t g, uint64_t *sim);
/* Local: appends the LSH keys of fingerprint fp to keys[*n..] (room for lsh_bands more). */
void ndd_lsi_add_keys(const run_t *r, const float *fp, uint64_t *keys, size_t *n);
void ndd_lsi_state_free(run_t *r);

/* run_index.c: --index DIR (issue 15, docs/index.md). */
/* After the inputs are expanded: reads DIR/INDEX (every rank), refuses another
 * format version, other options, a directory that is no index, inputs
 * already indexed; sets r->ix. */
int ndd_index_open(run_t *r, const ndd_input_t *in, size_t nin);
/* After this batch's map shards are in wd/map (nshards): replaces this
 * rank's documents, rejects and read counters by its contiguous range of
 * all batches' documents (the index's, then this batch's). */
int ndd_index_load_map(run_t *r, const char *wd, int nshards);
/* Loads all documents of the map shards of the sources (dirs[s] holds
 * nshards[s] shards in dirs[s]/map), in order: this rank's contiguous range
 * of them (an index batch: its new documents weigh IX_NEW_WEIGHT in the
 * split), and the rejects and read counters of its range of shards. */
int ndd_shards_load(run_t *r, const char *const *dirs, const int *nshards, size_t nsrc);
/* Before ndd_stage_verify: every rank loads its share of the index's
 * verdict files (file i of all batches' parts if i mod P is its rank). */
int ndd_index_verdicts_load(run_t *r);
/* In ndd_stage_verify, once the sets are placed (dest_of[i]: the rank of
 * local document i's set): every verdict to the rank that verifies the set
 * of its pair's first document, through that document's rank (two
 * exchanges; a verdict whose document is in no set is dropped), then the
 * cache indexed for lookups. Collective; no-op without a cacheable --index. */
int ndd_index_verdicts_route(run_t *r, const uint32_t *dest_of);
/* Local: the verifier's result of pair (i, j) of the current set (global
 * numbers ga, gb; ha, hb: XXH3-64 of their texts as verified): from the
 * cache when the same pair with the same texts was verified before, else
 * verified (and kept for the index). */
int ndd_index_pair(run_t *r, ndd_verifier_t *vf, uint32_t i, uint32_t j, uint64_t ga, uint64_t gb, uint64_t ha,
                   uint64_t hb, ndd_vres_t *v);
/* Local: the signature keys of document g, whose text after the template
 * strip and the cut has XXH3-64 hash, as the batch that last signed it
 * computed them (*n of them); NULL when its text was then another, or r
 * has no index (then the caller signs the text). */
const uint64_t *ndd_index_keys(const run_t *r, uint64_t g, uint64_t hash, size_t *n);
/* How many keys documents g0..g0+n) are expected to have: the key table's
 * counts, and their mean for documents it lacks (0 without --index). */
size_t ndd_index_keys_expected(const run_t *r, uint64_t g0, size_t n);
/* Frees the key table (a cache: a document it no longer has is signed
 * again), once the keys travel with the texts (r->keys_kept). */
void ndd_index_keys_release(run_t *r);
/* Local: notes document g's hash and keys for this batch's key file (the
 * documents this batch signed). */
int ndd_index_keys_note(run_t *r, uint64_t g, uint64_t hash, const uint64_t *keys, size_t n);
/* After the template pass: this rank's noted keys to wd/keys/keys-R. */
int ndd_index_keys_write(run_t *r, const char *wd);
/* --index: document g's template occurrences as a batch before made them
 * (*n of them; only this rank's range of old documents), else NULL; the
 * ones this batch makes are noted (_note) for its occurrence file, written
 * after the template pass (_write: WD/tmpl/occ-R, which also frees the
 * table). */
const ndd_tmpl_occ_t *ndd_index_occ(const run_t *r, uint64_t g, size_t *n);
int ndd_index_occ_note(run_t *r, uint64_t g, const ndd_tmpl_occ_t *v, size_t n);
int ndd_index_occ_write(run_t *r, const char *wd);
/* After ndd_stage_verify: this rank's new verdicts to wd/verify/verdicts-R. */
int ndd_index_verdicts_write(run_t *r, const char *wd);
/* 1 when the batch writes no verification checkpoint (verify/part-R): with
 * --index and a verifier whose verdicts are cached (TLCS, SigNCD), its
 * verdict files stand for it (a resumed batch redoes the reduce stages and
 * takes every verdict from them, ndd_index_own_load). */
int ndd_index_skips_verify_ckpt(const run_t *r);
/* A resumed batch whose verification had ended: loads the verdicts it wrote
 * then (WD/verify/verdicts-R, R < nparts; every rank). Unreadable ones are
 * logged and left out (those pairs are verified again). */
int ndd_index_own_load(run_t *r, const char *wd, int nparts);
/* After the outputs: the batch lands (shards, verdicts and keys copied into
 * DIR/batch-NNNN, then DIR/INDEX replaced atomically). */
int ndd_index_land(run_t *r, const char *wd, int nshards, size_t nin, ndd_run_summary_t *s);
void ndd_index_state_free(run_t *r);
/* Local: the number of this batch's first document (the index's count before it). */
uint64_t ndd_index_first_new(const run_t *r);
/* Local: document g's record in the key table whatever its text hash (*n
 * keys; NULL: none), and *resigned = 1 when this batch's template pass
 * signed the old document g again (its stripped text changed). */
const uint64_t *ndd_index_keys_raw(const run_t *r, uint64_t g, size_t *n, int *resigned);
/* The links the last batch left (ndd_linkstate_t, docs/index.md
 * "Postings"): its parts dealt out (part p to rank p % P), each read by one
 * rank, their counters summed there; their links routed to the owners of
 * their pairs, their dropped keys to the owners of the keys, their
 * followers to the ranks that hold them, each sorted. *have = 0 (agreed)
 * when the last batch kept none, or a part is unreadable or describes
 * another index (logged): the postings stage then builds every list.
 * Collective. */
int ndd_index_links_load(run_t *r, ndd_linkstate_t *mine, int *have);
/* The rank that owns link (u, v) in the postings stage: XXH3 of the pair. */
static inline int ndd_link_dest(uint64_t u, uint64_t v, int P)
{
    char x[16];
    ndd_le64_store(x, u);
    ndd_le64_store(x + 8, v);
    return (int)(XXH3_64bits(x, sizeof x) % (uint64_t)P);
}
/* Removes WD/links, the links a run of this batch stopped before its end
 * may have left (this run may keep none, or on another rank count), before
 * the postings stage writes its own. Collective. */
int ndd_index_links_clear(run_t *r);
/* This rank's links, counters, dropped keys and followers into WD/links/links-R.zst. Collective. */
int ndd_index_links_write(run_t *r, const ndd_linkstate_t *s);

/* run_output.c */
int ndd_stage_outputs(run_t *r);
/* One output file written in rank order (ndd_comm_write_ordered); on a
 * failure rank 0 removes the partial file and logs its name. Collective. */
int ndd_write_output(run_t *r, const char *path, const void *data, size_t len);
int ndd_stage_stats(run_t *r, double wall, ndd_run_summary_t *sum);
/* Ends stage st's memory record: r->rss[st] = the peak RSS since the
 * previous stage ended, and a new peak starts (ndd_rss_peak_reset). */
void ndd_stage_rss(run_t *r, int st);

/* run_budget.c: the memory budget per rank (issue 14). */
#define NDD_MAX_ROUNDS 4096 /* shuffle 1's rounds at most */
/* Collective: r->budget from cfg->mem_per_rank or the node's memory shared
 * by its ranks (DEFAULT_SHARE), logged by rank 0. */
int ndd_budget_init(run_t *r);
/* Local: this rank's resident bytes now (its share of the process with the
 * in-process engine), and what the budget leaves beside them (at least an
 * eighth of the budget: a stage always makes progress). */
uint64_t ndd_budget_rss(const run_t *r);
/* Local: a rank's part of a figure measured for its process (the whole of
 * it, or 1/P with the in-process engine). */
uint64_t ndd_budget_share(const run_t *r, uint64_t process);
uint64_t ndd_budget_room(const run_t *r);
/* Collective, before shuffle 1: spills this rank's texts when the postings
 * would not fit beside them, and *rounds = shuffle 1's rounds (the same on
 * every rank). */
int ndd_budget_postings(run_t *r, unsigned *rounds);
/* Local: local document i's text, from memory or (spilled) read into scratch. */
int ndd_budget_text(run_t *r, size_t i, ndd_buf_t *scratch, const char **text);

/* run_progress.c: progress rounds over the transport's non-blocking sum. */
/* Collective (when cfg->progress > 0 and the backend supports it; else NULL). */
ndd_prog_t *ndd_prog_begin(run_t *r, const char *stage, const char *unit, uint64_t my_total);
void ndd_prog_update(ndd_prog_t *p, uint64_t my_done); /* Local, never blocks */
void ndd_prog_end(ndd_prog_t *p, uint64_t my_done);    /* Collective; p (r->prog) is free again */
/* Local (rank 0 reports): stage, which counts no items, ended (started at t0). */
void ndd_prog_stage_done(run_t *r, const char *stage, double t0);

#endif
