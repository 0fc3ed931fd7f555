/* ndd_flow.h - flow mode (paper 003, Montanari & Puglisi, DDD): a stream of
 * timestamped documents, each decided on arrival against the documents of a
 * sliding time window, kept as one inverted index (q-gram -> postings, or the
 * paper's bitmap, of the segment's documents) per hour. Plain C, no MPI, no
 * printing.
 *
 * The window. A document b (timestamp t_b, seconds) is compared with every
 * document a that arrived before it, was not itself late or undated, and has
 * |t_b - t_a| < window. In a stream in time order that is t_a in
 * (t_b - window, t_b]: a document exactly one window older is outside.
 *
 * Out of time order. The clock C is the largest timestamp accepted so far.
 * A document with t_b >= C - max_late is accepted (counted out_of_order when
 * t_b < C) and compared as above. A document with t_b < C - max_late is
 * "late": reported with its own verdict, counted, neither compared nor
 * indexed (its window may already be dropped). A document without a usable
 * timestamp is "undated", likewise. Segments are dropped when every document
 * in them has t <= C - max_late - window: no accepted document can reach them
 * again, so the verdicts equal brute force over the rule above. At most
 * (window + max_late) / 1h + 1 segments are held (both multiples of 1 h).
 *
 * Measures. qgram: the paper's doc_q = |A n B| / max(|A|, |B|) over the sets
 * of distinct q-grams of the normal form (ndd_qgram_set, docs/baselines.md),
 * counted exactly through the segments' inverted indexes (the paper's
 * list_counters, Fig. 2); duplicate when doc_q >= threshold. tlcs: paper
 * 002's trustable LCS (src/verify) on the pairs the q-gram index proposes
 * (shared q-grams >= candidate_min * the smaller set; 0 = every document in
 * the window), then ndd run's formulaic-text check; score = resemblance.
 * The best match (highest score, then the earliest arrival) is the
 * verdict's partner. docs/flow.md. */
#ifndef NDD_FLOW_H
#define NDD_FLOW_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"
#include "ndd_verify.h"

#define NDD_FLOW_HOUR 3600
#define NDD_FLOW_DEFAULT_WINDOW (24 * NDD_FLOW_HOUR) /* paper 003 sec. 3.6: w = 24 hours */
#define NDD_FLOW_DEFAULT_Q 4                          /* paper 003 sec. 4: q = 4 "the best value" */
#define NDD_FLOW_DEFAULT_THRESHOLD 0.8                /* paper 003 abstract; Fig. 5: best F1 at 0.7 and 0.8 */
#define NDD_FLOW_DEFAULT_MAX_LATE NDD_FLOW_HOUR
#define NDD_FLOW_DEFAULT_CANDIDATE_MIN 0.5

typedef enum { NDD_FLOW_QGRAM = 0, NDD_FLOW_TLCS = 1 } ndd_flow_measure_t;
/* How an hour segment lists a q-gram's documents: chained postings (default),
 * or the paper's bitmap of the segment's documents (sec. 3.6, Fig. 4). The
 * verdicts are the same; memory and time differ (docs/flow.md). */
typedef enum { NDD_FLOW_INDEX_POSTINGS = 0, NDD_FLOW_INDEX_BITMAP = 1 } ndd_flow_index_t;

typedef struct ndd_flow_params {
    int64_t window;       /* seconds, >= 1 */
    int64_t max_late;     /* seconds, >= 0 */
    unsigned q;           /* 1..64 characters */
    double threshold;     /* qgram: doc_q >= threshold, (0, 1] */
    ndd_flow_measure_t measure;
    ndd_flow_index_t index;
    double candidate_min; /* tlcs: [0, 1] */
    int keep_text;        /* keep texts in the segments (set by measure tlcs; read only) */
    ndd_tlcs_params_t tlcs;
    int formulaic;        /* tlcs: a duplicate that ndd_formula_check finds formulaic (the same
                           * wording about other names or numbers) is not one (default 1, as ndd run) */
    ndd_formula_params_t fp;
} ndd_flow_params_t;

void ndd_flow_params_default(ndd_flow_params_t *p);
int ndd_flow_params_check(const ndd_flow_params_t *p); /* NDD_OK or NDD_ERR_INVAL */

typedef enum {
    NDD_FLOW_NEW = 0,
    NDD_FLOW_DUP,     /* near-duplicate of of_id */
    NDD_FLOW_LATE,    /* more than max_late behind the clock: not compared */
    NDD_FLOW_UNDATED  /* no timestamp: not compared */
} ndd_flow_kind_t;
const char *ndd_flow_kind_name(ndd_flow_kind_t k); /* "new", "near-duplicate", "late", "undated" */

typedef struct ndd_flow_verdict {
    ndd_flow_kind_t kind;
    uint64_t seq;       /* this document's arrival number (0-based, every document counts) */
    uint64_t of_seq;    /* DUP: the partner's arrival number */
    const char *of_id;  /* DUP: the partner's id (valid until the next ndd_flow_add) */
    int64_t of_time;    /* DUP: the partner's timestamp */
    double score;       /* DUP: doc_q or TLCS resemblance */
    uint64_t compared;  /* documents in the window this one was held against */
    uint64_t verified;  /* tlcs: TLCS runs for this document */
} ndd_flow_verdict_t;

typedef struct ndd_flow_stats {
    uint64_t docs, new_docs, dups, late, undated, out_of_order;
    uint64_t pairs_in_window;    /* sum of compared */
    uint64_t pairs_sharing;      /* pairs in the window sharing >= 1 q-gram */
    uint64_t lookups;            /* q-gram lookups in hour tables */
    uint64_t postings_read;      /* postings counted (the paper's list_counters updates) */
    uint64_t tlcs_runs;
    uint64_t formulaic;          /* tlcs duplicates rejected as formulaic */
    uint64_t segments_created, segments_dropped, segments_held, segments_held_max;
    size_t bytes_held, bytes_held_max;   /* all segments, as counted by the flow (allocations) */
    size_t segment_bytes_max;            /* the largest hour segment seen */
    uint64_t segment_docs_max;           /* its most documents */
    size_t segment_bitmap_bytes_max;     /* the paper's bitmaps for the same segment: distinct
                                            q-grams x ceil(documents / 8) bytes (sec. 3.6) */
    int64_t clock;                       /* C */
} ndd_flow_stats_t;

typedef struct ndd_flow ndd_flow_t;
int ndd_flow_create(ndd_flow_t **f, const ndd_flow_params_t *p);
void ndd_flow_free(ndd_flow_t *f);
/* Decides one document (text: the prepared text) and indexes it. dated = 0:
 * undated (t ignored). v receives the verdict. */
int ndd_flow_add(ndd_flow_t *f, const char *id, int dated, int64_t t, const char *text, size_t n,
                 ndd_flow_verdict_t *v);
void ndd_flow_get_stats(const ndd_flow_t *f, ndd_flow_stats_t *s);

/* The set of distinct q-gram hashes of a text as the flow uses it (sorted;
 * valid until the next call on f). */
int ndd_flow_qgrams(ndd_flow_t *f, const char *text, size_t n, const uint64_t **set, size_t *nset);

/* Timestamps: "YYYY-MM-DD", "YYYY-MM-DD[T ]hh:mm[:ss[.frac]][Z|+hh:mm|-hh:mm|+hhmm]"
 * (RFC 3339 / ISO 8601, WARC-Date), or 14 digits "YYYYMMDDhhmmss" (UTC) -> seconds since
 * 1970-01-01T00:00:00Z (fractions dropped). NDD_ERR_FORMAT otherwise. */
int ndd_flow_parse_time(const char *s, int64_t *t);
/* "90s", "90m", "24h", "3d", "1w" (a positive integer and a unit) -> seconds. */
int ndd_flow_parse_duration(const char *s, int64_t *sec);
/* Floor division of a timestamp into its hour. */
static inline int64_t ndd_flow_hour(int64_t t)
{
    return t >= 0 ? t / NDD_FLOW_HOUR : -((-t + NDD_FLOW_HOUR - 1) / NDD_FLOW_HOUR);
}

#endif
