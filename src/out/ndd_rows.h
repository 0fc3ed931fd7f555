/* ndd_rows.h - the row schema of ndd run's outputs: the TSV headers, how a
 * verified pair, a cluster member and a reject are formatted, and the keyed
 * records in which rows travel to the rank that writes them (sorted by their
 * keys there). Local. */
#ifndef NDD_ROWS_H
#define NDD_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"

#define NDD_HDR_PAIRS "id_a\tid_b\tverifier\tresemblance\tcontainment\tncd\ttlcs\tscore\turl_a\turl_b\n"
#define NDD_HDR_SCORES "id_a\tid_b\tverifier\tresemblance\tcontainment\tncd\ttlcs\tscore\taccepted\turl_a\turl_b\n"
#define NDD_HDR_CLUSTERS "id\tcluster\tkeep\turl\n"
#define NDD_HDR_REJECTS "file\trecord\toffset\treason\turl\tcontent_type\n"

/* One verified pair (the verifier adapter's result). */
typedef struct ndd_vres {
    int duplicate;
    double resemblance, containment; /* TLCS */
    double ncd;                      /* SigNCD */
    double score;                    /* the verifier's main similarity (TLCS: resemblance; SigNCD: ncd) */
    uint64_t tlcs;                   /* TLCS length in bytes */
    int pruned_by_bound, hit_cost_limit;
    double strain_away;              /* TLCS: 1 - (sketch_a + sketch_b) / (len_a + len_b) */
    int formulaic;                   /* TLCS: rejected by the formulaic-text check (added last) */
    int sketched;                    /* TLCS: the sketches were made (strain_away is theirs); 0 when
                                        the anchor bound stopped the pair first */
    int conceptual;                  /* accepted by LSI's conceptual rule (paper 001 th1/th4), not textually */
} ndd_vres_t;

/* Which score columns a verifier fills. */
typedef enum { NDD_COLS_TLCS = 0, NDD_COLS_SIGNCD, NDD_COLS_SCORE } ndd_cols_t;

/* line = "id_a \t id_b \t vname \t res \t cont \t ncd \t tlcs \t score" (line is
 * cleared first; no newline; ids TSV-escaped, vname as is; '-' in the columns
 * the verifier does not fill; %.6f scores, %llu tlcs). A scores.tsv row
 * appends "\t1\n" or "\t0\n" (accepted), a pairs.tsv row "\n". */
int ndd_rows_fmt_pair(ndd_buf_t *line, ndd_cols_t cols, const char *ida, size_t idalen, const char *idb,
                      size_t idblen, const char *vname, const ndd_vres_t *v);
/* line = "id \t cluster \t 1|0 \t url \n" (cleared first; fields TSV-escaped). */
int ndd_rows_fmt_cluster(ndd_buf_t *line, const char *id, size_t idlen, const char *cluster, size_t clen, int kept,
                         const char *url, size_t urllen);
/* Appends "\tURL_A\tURL_B\n" (TSV-escaped) to a pair row: the last columns
 * of pairs.tsv and scores.tsv. */
int ndd_rows_fmt_urls(ndd_buf_t *line, const char *ua, size_t na, const char *ub, size_t nb);
/* Appends "file \t record|- \t offset \t reason \t url \t content_type \n"
 * (ordinal UINT64_MAX: '-'; url and ctype: the record's URL and media type
 * when known, else NULL: '-'; strings TSV-escaped). */
int ndd_rows_fmt_reject(ndd_buf_t *b, const char *file, uint64_t ordinal, uint64_t offset, const char *reason,
                        const char *url, const char *ctype);

/* ---- keyed records: u64 k1, u64 k2, u32 len, then len bytes (LE) ---- */
typedef struct ndd_row {
    uint64_t k1, k2;
    const char *line;
    uint32_t len;
} ndd_row_t;

#define NDD_ROW_HEAD 20 /* a record's bytes before its line */

/* Appends one record; NDD_ERR_LIMIT when len does not fit in a u32. */
int ndd_row_put(ndd_buf_t *b, uint64_t k1, uint64_t k2, const char *line, size_t len);
/* Appends the records of p[0..n) to (*v)[*nv..] (grown with ndd_array_grow,
 * *cap its capacity; lines point into p); NDD_ERR_FORMAT when a record is cut
 * short (the whole ones before it are kept). */
int ndd_rows_parse(const char *p, size_t n, ndd_row_t **v, size_t *nv, size_t *cap);
/* Sorts by (k1, k2). */
void ndd_rows_sort(ndd_row_t *v, size_t n);
/* Appends to dst the records of p[0..n) whose k1 lies in [lo, hi), as they
 * are (bytes unchanged); NDD_ERR_FORMAT when a record is cut short. */
int ndd_rows_filter(ndd_buf_t *dst, const char *p, size_t n, uint64_t lo, uint64_t hi);

#endif
