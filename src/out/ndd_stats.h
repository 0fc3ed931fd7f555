/* ndd_stats.h - stats.json of ndd run: the writer (from the counters summed
 * over ranks and the per-rank figures gathered on rank 0) and the reader
 * ('ndd stats', tests), both driven by the counters table (ndd_counters.h)
 * and the stage table below. Local. */
#ifndef NDD_STATS_H
#define NDD_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_counters.h"
#include "ndd_sets.h"
#include "ndd_util.h"

/* The stages timed per rank, in stats.json order. */
#define NDD_STAGES(X) \
    X(READ, "read") X(SIG, "signatures") X(SHUFFLE1, "shuffle1") X(POSTINGS, "postings") X(CC, "components") \
    X(SHUFFLE2, "shuffle2") X(VERIFY, "verify") X(OUTPUT, "output") X(DEDUP, "dedup")

enum {
#define NDD_X_STAGE(e, s) NDD_ST_##e,
    NDD_STAGES(NDD_X_STAGE)
#undef NDD_X_STAGE
    NDD_ST_N
};
extern const char *const ndd_stage_names[NDD_ST_N];

/* Per-rank figures, one of these per rank (gathered as a fixed-width record). */
typedef struct ndd_rank_stats {
    double seconds[NDD_ST_N];
    uint64_t input_bytes;
    uint64_t peak_rss_kib;
    uint64_t verify_work;
} ndd_rank_stats_t;

typedef struct ndd_stats_in {
    const char *version;         /* NDD_VERSION */
    int ranks;
    double wall_seconds;
    const char *verifier;        /* "tlcs", "signcd" or a baseline's name */
    const char *candidates;      /* "sentence" or a baseline's name */
    uint64_t min_link_signatures, giant_threshold, components_rounds;
    const ndd_counters_t *sum;   /* summed over ranks */
    const ndd_topsets_t *largest; /* merged over ranks */
    const ndd_rank_stats_t *per_rank; /* ranks entries */
} ndd_stats_in_t;

/* Appends the whole stats.json document to out. */
int ndd_stats_json(ndd_buf_t *out, const ndd_stats_in_t *in);

/* ---- reader ----
 * A small JSON tree (RFC 8259), enough for stats.json; unknown members are
 * kept, so fields added later still show in 'ndd stats'. */
typedef struct ndd_jv ndd_jv_t;
int ndd_json_parse(const char *s, size_t n, ndd_jv_t **root);
void ndd_json_free(ndd_jv_t *v);
/* Member lookup by a dotted path ("verify.accepted"); NULL when absent. */
const ndd_jv_t *ndd_json_get(const ndd_jv_t *obj, const char *path);
/* 1 and *out when v is a number. */
int ndd_json_number(const ndd_jv_t *v, double *out);
/* Reads the counters of stats.json through the table: every counter with a
 * section; *found = how many were present. */
int ndd_stats_read_counters(const ndd_jv_t *root, ndd_counters_t *sum, size_t *found);

#endif
