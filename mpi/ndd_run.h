/* ndd_run.h - the distributed near-duplicate job ('ndd run'). */
#ifndef NDD_RUN_H
#define NDD_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_baselines.h"
#include "ndd_cluster.h"
#include "ndd_reader.h"
#include "ndd_sig.h"
#include "ndd_text.h"

typedef enum { NDD_VERIFIER_TLCS = 0, NDD_VERIFIER_SIGNCD, NDD_VERIFIER_METHOD } ndd_verifier_kind_t;
typedef enum { NDD_KEEP_LONGEST = 0, NDD_KEEP_FIRST } ndd_keep_t;

typedef struct ndd_run_cfg {
    const char *outdir;
    const char *const *inputs;
    size_t ninputs;
    ndd_format_t format;
    ndd_text_opts_t text;
    ndd_sig_params_t sig;
    ndd_postings_params_t postings;
    ndd_cand_params_t cand;
    size_t min_link_sigs;      /* a link doc -> representative needs this many shared signatures (paper: 1) */
    size_t giant_set;          /* sets at least this big are reported as giant */
    int giant_guard;           /* 1: split giant sets by requiring more link support inside them */
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
    /* SigNCD */
    double tau;
    int verify_all;            /* verify every candidate pair, also those already joined */
    ndd_keep_t keep;
    const char *write_dedup;   /* NULL or FILE.jsonl.zst */
    /* checkpoints (docs/architecture.md) */
    const char *work_dir;      /* NULL: OUT/.ndd-work, removed after success */
    const char *resume;        /* work dir of an earlier run to continue */
    int map_task, map_tasks;   /* map_tasks > 0: run map task map_task of map_tasks only (no MPI) */
    int stop_after_verify;     /* stop once the verified rows are checkpointed */
    double progress;           /* seconds between progress lines on rank 0; 0 = off */
    int quiet;
} ndd_run_cfg_t;

void ndd_run_cfg_default(ndd_run_cfg_t *c);

/* Collective on MPI_COMM_WORLD: runs the whole job; returns 0 or an NDD_ERR_*
 * agreed by every rank. */
int ndd_run(const ndd_run_cfg_t *cfg);

#endif

/* ---- verifier adapter (run_verify.c): one interface for TLCS and SigNCD ---- */
typedef struct ndd_vres {
    int duplicate;
    double resemblance, containment; /* TLCS */
    double ncd;                      /* SigNCD */
    double score;                    /* the verifier's main similarity (TLCS: resemblance; SigNCD: ncd) */
    uint64_t tlcs;                   /* TLCS length in bytes */
    int pruned_by_bound, hit_cost_limit;
    double strain_away;              /* TLCS: 1 - (sketch_a + sketch_b) / (len_a + len_b) */
} ndd_vres_t;

typedef struct ndd_verifier ndd_verifier_t;
/* dfs: the corpus document-frequency sketches the baseline verifiers need (may be 0). */
int ndd_verifier_create(ndd_verifier_t **v, const ndd_run_cfg_t *cfg, ndd_df_t *const *dfs, size_t ndfs);
void ndd_verifier_free(ndd_verifier_t *v);
const char *ndd_verifier_name(const ndd_verifier_t *v);
/* Starts a perhaps-similar set of n members (texts stay owned by the caller
 * until the next set_begin). */
int ndd_verifier_set_begin(ndd_verifier_t *v, size_t n, const char *const *texts, const size_t *lens);
int ndd_verifier_pair(ndd_verifier_t *v, size_t i, size_t j, ndd_vres_t *r);
