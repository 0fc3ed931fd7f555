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

/* The stages timed per rank, in stats.json order ("checkpoints": the writes
 * of the map shard, the verification checkpoint and --index's keys and
 * verdicts, which run between the stages). */
#define NDD_STAGES(X) \
    X(READ, "read") X(TEMPLATES, "templates") X(EXACT, "exact") X(SIG, "signatures") X(SHUFFLE1, "shuffle1") X(POSTINGS, "postings") X(CC, "components") \
    X(SHUFFLE2, "shuffle2") X(VERIFY, "verify") X(OUTPUT, "output") X(DEDUP, "dedup") X(CKPT, "checkpoints")

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
    uint64_t stage_rss_kib[NDD_ST_N]; /* peak RSS of each stage (0: not run, or not measured) */
} ndd_rank_stats_t;

typedef struct ndd_stats_in {
    const char *version;         /* NDD_VERSION */
    int ranks;
    double wall_seconds;
    const char *verifier;        /* "tlcs", "signcd", "lsi", "tlcs+lsi" or a baseline's name */
    const char *candidates;      /* "sentence" or a baseline's name */
    uint64_t min_link_signatures, giant_threshold, components_rounds;
    const ndd_counters_t *sum;   /* summed over ranks */
    const ndd_topsets_t *largest; /* merged over ranks */
    const ndd_rank_stats_t *per_rank; /* ranks entries */
    /* what was run (issue 17): written as "command" and "inputs" when given */
    const char *const *command;  /* the command line (options included), ncommand words */
    size_t ncommand;
    const char *const *inputs;   /* the input arguments, ninputs of them */
    size_t ninputs;
    uint64_t input_files;        /* the files they expand to */
    /* the work directory (issue 14): written as "work_dir" when path is given */
    const char *work_dir;
    uint64_t work_dir_bytes, work_dir_files;
    int work_dir_removed;        /* removed after this successful run (the default one) */
    /* the memory budget (issue 14): section "memory" with the spill counters */
    uint64_t budget, shuffle1_rounds;
    const char *budget_source;
} ndd_stats_in_t;

/* Appends the whole stats.json document to out. */
int ndd_stats_json(ndd_buf_t *out, const ndd_stats_in_t *in);

/* ---- reader ----
 * A small JSON tree (RFC 8259), enough for stats.json; unknown members are
 * kept, so fields added later still show in 'ndd stats'. Nesting deeper than
 * 64 levels is refused. */
typedef struct ndd_jv ndd_jv_t;
/* Parses s[0..n) as one JSON value (whitespace around it allowed) into a new
 * tree; NDD_ERR_FORMAT when malformed, NDD_ERR_NOMEM. */
int ndd_json_parse(const char *s, size_t n, ndd_jv_t **root);
/* Frees a tree returned by ndd_json_parse (NULL is fine). */
void ndd_json_free(ndd_jv_t *v);
/* Member lookup by a dotted path ("verify.accepted"); NULL when absent (or
 * obj is NULL or not an object). */
const ndd_jv_t *ndd_json_get(const ndd_jv_t *obj, const char *path);
/* 1 and *out when v is a number (v may be NULL: 0). */
int ndd_json_number(const ndd_jv_t *v, double *out);
/* Reads the counters of stats.json through the table: every counter with a
 * section (section.key), and the histogram from sets.size_histogram ("A-B"
 * with A = 2^b: hist[b]). sum is zeroed first; *found = how many counters
 * with a section were present as numbers. */
int ndd_stats_read_counters(const ndd_jv_t *root, ndd_counters_t *sum, size_t *found);

/* ---- more accessors of the tree ('ndd stats' walks it generically) ---- */
typedef enum { NDD_JV_ABSENT = -1, NDD_JV_NULL, NDD_JV_BOOL, NDD_JV_NUM, NDD_JV_STR, NDD_JV_ARR, NDD_JV_OBJ } ndd_jv_type_t;
/* As ndd_json_parse; on failure *at (may be NULL) = the byte offset where
 * parsing stopped. */
int ndd_json_parse_at(const char *s, size_t n, ndd_jv_t **root, size_t *at);
/* The type of v; NDD_JV_ABSENT when v is NULL. */
ndd_jv_type_t ndd_json_type(const ndd_jv_t *v);
/* Members of an array or object (0 for any other value or NULL). */
size_t ndd_json_count(const ndd_jv_t *v);
/* Member i (< ndd_json_count) of an array or object, in document order. */
const ndd_jv_t *ndd_json_item(const ndd_jv_t *v, size_t i);
/* The key of member i of an object (decoded, NUL-terminated); NULL otherwise. */
const char *ndd_json_key(const ndd_jv_t *v, size_t i);
/* The member of obj whose key is exactly key (no path splitting; the first
 * one when repeated); NULL when absent or obj is not an object. */
const ndd_jv_t *ndd_json_member(const ndd_jv_t *obj, const char *key);
/* A string's decoded text (UTF-8, NUL-terminated); NULL when v is not a string. */
const char *ndd_json_str(const ndd_jv_t *v);
/* A number as written in the document; NULL when v is not a number. */
const char *ndd_json_numtext(const ndd_jv_t *v);
/* 1 and *out (0 or 1) when v is true or false. */
int ndd_json_bool(const ndd_jv_t *v, int *out);

#endif
