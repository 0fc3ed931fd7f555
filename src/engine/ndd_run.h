/* ndd_run.h - the near-duplicate job ('ndd run') as one core call over a
 * transport (ndd_comm.h): paper 002's three steps as a MapReduce-style job.
 * The stage drivers (run_*.c) call the stage kernels of src/ and the
 * transport; they never print: messages go to cfg->log, the summary comes
 * back in ndd_run_summary_t. */
#ifndef NDD_RUN_H
#define NDD_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_baselines.h"
#include "ndd_cluster.h"
#include "ndd_comm.h"
#include "ndd_lsi.h"
#include "ndd_reader.h"
#include "ndd_rows.h"
#include "ndd_sig.h"
#include "ndd_text.h"
#include "ndd_tmpl.h"

/* NDD_VERIFIER_LSI: paper 001's conceptual duplicates alone; NDD_VERIFIER_TLCS_LSI:
 * TLCS decides textual duplicates and LSI adds conceptual ones (src/lsi, run_lsi.c). */
typedef enum {
    NDD_VERIFIER_TLCS = 0,
    NDD_VERIFIER_SIGNCD,
    NDD_VERIFIER_METHOD,
    NDD_VERIFIER_LSI,
    NDD_VERIFIER_TLCS_LSI
} ndd_verifier_kind_t;
#define NDD_VERIFIER_HAS_LSI(k) ((k) == NDD_VERIFIER_LSI || (k) == NDD_VERIFIER_TLCS_LSI)
typedef enum { NDD_KEEP_LONGEST = 0, NDD_KEEP_FIRST, NDD_KEEP_NEWEST, NDD_KEEP_OLDEST } ndd_keep_t;

/* Log sink: level 0 error, 1 info, 2 debug; msg has no newline. */
typedef void (*ndd_log_fn)(void *user, int rank, int level, const char *msg);
/* Progress sink (called on rank 0 only): totals over all ranks. */
typedef struct ndd_progress_report {
    const char *stage, *unit; /* unit "bytes" or a word; "" for a stage that counts no items */
    uint64_t done, total, ranks_done;
    int ranks, final;
    double elapsed;
    int stage_no, nstages;    /* the stage's place in the job (1-based) and the job's stages */
    double run_elapsed;       /* seconds since the job started */
} ndd_progress_report_t;
typedef void (*ndd_progress_fn)(void *user, const ndd_progress_report_t *rep);

typedef struct ndd_run_cfg {
    const char *outdir;
    const char *const *inputs;
    size_t ninputs;
    ndd_format_t format;
    ndd_fields_t fields;       /* JSONL field paths (dotted; NULL members: the defaults, ndd_reader.h) */
    int allow_empty;           /* 1: a run that reads no document succeeds (else NDD_ERR_EMPTY) */
    /* archive controls (a document outside them is a reject; src/engine/run_read.c ndd_doc_admit) */
    const char *content_types; /* comma-separated media types a document with one (WARC) may have;
                                * NULL: NDD_DEFAULT_CONTENT_TYPES */
    const char *url_include;   /* NULL, or glob patterns (fnmatch) separated by '\x1f': a document with a
                                * URL must match one */
    const char *url_exclude;   /* the same: a URL matching one is not read (default NDD_DEFAULT_URL_EXCLUDE) */
    ndd_text_opts_t text;
    int templates;             /* 1: the template pass (src/tmpl) before signatures and verification */
    ndd_tmpl_params_t tmpl;
    int exact;                 /* 1: the exact-duplicate pass (identical texts grouped by hash before the sets) */
    ndd_sig_params_t sig;
    ndd_postings_params_t postings;
    ndd_cand_params_t cand;
    size_t min_link_sigs;      /* a link doc -> representative needs this many shared signatures (paper: 1) */
    size_t giant_set;          /* sets at least this big are giant: reported, and split by the guard */
    int giant_guard;           /* 1: split giant sets by size-capped single linkage */
    size_t big_set;            /* sets at least this big are placed by cost (LPT), smaller ones by hash */
    ndd_verifier_kind_t verifier;
    ndd_method_t vmethod;      /* with NDD_VERIFIER_METHOD: a baseline verifier (src/baselines) */
    int candidates;            /* 0: paper 002 sentence signatures; else an ndd_method_t (baselines) */
    ndd_method_params_t mparams; /* baseline parameters */
    /* TLCS */
    size_t window;
    double slope;
    double min_resemblance;
    double min_containment;
    size_t max_d;
    unsigned max_iter;
    int formula;               /* 1: the formulaic-text check after a TLCS duplicate */
    int subst;                 /* 1: TLCS small-substitution rule (0: paper 002's curve) */
    /* SigNCD */
    double tau;
    /* LSI (paper 001): --verifier lsi | tlcs+lsi */
    ndd_lsi_params_t lsi;
    int verify_all;            /* verify every candidate pair, also those already joined */
    ndd_keep_t keep;
    const char *write_dedup;   /* NULL or the corpus without the removed documents: each kept record as it
                                * was read (JSONL line, WARC record); FILE.warc[.gz|.zst] for WARC,
                                * else JSONL; .zst / .gz compress it (ndd_dedup_kind) */
    /* checkpoints (docs/architecture.md) */
    const char *work_dir;      /* NULL: OUT/.ndd-work, removed after success */
    const char *resume;        /* work dir of an earlier run to continue */
    const char *const *argv;   /* the command line, recorded in stats.json (may be NULL) */
    size_t argc;
    const char *command;       /* NULL, or what identifies this command line (a hash of its arguments): a
                                * default work directory (OUT/.ndd-work) left by a run of the same command
                                * on the same inputs is resumed automatically */
    const char *index_dir;     /* --index DIR (issue 15, docs/index.md): this run's inputs are a batch added
                                * to the persistent index in DIR; the outputs are those of the whole index */
    const char *index_opts;    /* with index_dir: the options that decide results, as one string (all
                                * batches of an index must have the same) */
    int map_task, map_tasks;   /* map_tasks > 0: run map task map_task of map_tasks only (one rank) */
    int stop_after_verify;     /* stop once the verified rows are checkpointed */
    uint64_t mem_per_rank;     /* the memory budget per rank in bytes (run_budget.c); 0: from the machine */
    double progress;           /* seconds between progress reports; 0 = off */
    ndd_log_fn log;            /* may be NULL */
    void *log_user;
    ndd_progress_fn progress_fn; /* may be NULL */
    void *progress_user;
} ndd_run_cfg_t;

#define NDD_DEFAULT_CONTENT_TYPES "text/html,application/xhtml+xml,text/plain"
#define NDD_DEFAULT_URL_EXCLUDE "*/robots.txt"

void ndd_run_cfg_default(ndd_run_cfg_t *c);

/* What a finished run reports (the same on every rank). */
typedef struct ndd_run_summary {
    uint64_t docs, rejected, sets, cand_pairs, accepted, clusters, docs_in_clusters, removed, removed_exact;
    double wall;
    int ranks;
    int map_already_done; /* map task mode: the shard was complete already */
    int stopped_after_verify;
    uint64_t index_batch, index_docs_new; /* --index: the batch number landed and its documents */
    char work_dir[4096];  /* the work directory used */
} ndd_run_summary_t;

/* Collective on comm: runs the whole job (or, with cfg->map_tasks, one map
 * task: then comm must have one rank). Returns 0 or an NDD_ERR_* agreed by
 * every rank; sum (may be NULL) is filled on success. */
int ndd_run(ndd_comm_t *comm, const ndd_run_cfg_t *cfg, ndd_run_summary_t *sum);

/* ---- verifier adapter (run_verifier.c): one interface for TLCS, SigNCD and
 * the baseline verifiers. Local. ---- */
/* ndd_vres_t: the result of one pair (src/out/ndd_rows.h). */

typedef struct ndd_verifier ndd_verifier_t;
/* dfs: the corpus document-frequency sketches the baseline verifiers need (may be 0). */
int ndd_verifier_create(ndd_verifier_t **v, const ndd_run_cfg_t *cfg, ndd_df_t *const *dfs, size_t ndfs);
void ndd_verifier_free(ndd_verifier_t *v);
const char *ndd_verifier_name(const ndd_verifier_t *v);
/* Starts a perhaps-similar set of n members (texts stay owned by the caller
 * until the next set_begin). */
int ndd_verifier_set_begin(ndd_verifier_t *v, size_t n, const char *const *texts, const size_t *lens);
/* LSI kinds: the current set's conceptual fingerprints (k floats each) and
 * textual SimHashes, after set_begin (borrowed until the next set_begin). */
void ndd_verifier_set_lsi(ndd_verifier_t *v, const float *const *fps, const uint64_t *sims, unsigned k);
int ndd_verifier_pair(ndd_verifier_t *v, size_t i, size_t j, ndd_vres_t *r);
/* The result recorded for two identical texts of length len (no verification). */
void ndd_verifier_identical(const ndd_verifier_t *v, size_t len, ndd_vres_t *r);

#endif
