/* ndd_ckpt.h - stage checkpoints of ndd run in a work directory:
 *
 *   DIR/manifest            "ndd-work 2": the options that decide the map stage, the inputs
 *   DIR/map/shard-I.zst     map task I: documents (id, url, text, site, keys),
 *                           rejects, read counters (zstd, one frame)
 *   DIR/map/shard-I.done    "docs BYTES XXH3": written after the rename, so a
 *                           shard counts only when complete and intact
 *   DIR/verify/part-R.zst   rank R's verified rows (pairs, clusters, scores,
 *                           keyed by global document number), counters, largest sets
 *   DIR/verify/done         written once every part is complete
 *
 * Every file is versioned and fixed-width little-endian, its blob carries a
 * magic, a format version and the counters' schema hash; a checkpoint of
 * another ndd build is refused with NDD_ERR_VERSION, never misread. Rows and
 * documents are keyed by global document numbers, which do not depend on
 * the rank count, so a resumed run may use any number of ranks.
 * Local functions (no communication). */
#ifndef NDD_CKPT_H
#define NDD_CKPT_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_counters.h"
#include "ndd_docs.h"
#include "ndd_sets.h"
#include "ndd_util.h"

#define NDD_CKPT_VERSION 2

/* What the manifest pins (the options that decide the map stage). */
typedef struct ndd_manifest {
    int nshards;
    int format;             /* ndd_format_t */
    size_t max_doc_bytes;
    int boilerplate, soft_wrap, keep_title;
    unsigned sig_m, sig_n, sig_k;
    size_t min_sentence;
    int candidates;
    const char *const *inputs; /* owned by the manifest after _read */
    size_t ninputs;
    void *store_;           /* private */
} ndd_manifest_t;

int ndd_ckpt_manifest_write(const char *wd, const ndd_manifest_t *m);
/* NDD_ERR_VERSION when written by another format version; NDD_ERR_FORMAT when malformed. */
int ndd_ckpt_manifest_read(const char *wd, ndd_manifest_t *m);
void ndd_ckpt_manifest_free(ndd_manifest_t *m);

/* The map shard of task idx: documents, rejects (TSV rows), read counters. */
int ndd_ckpt_shard_write(const char *wd, int idx, const ndd_docs_t *d, const ndd_buf_t *rejects,
                         const ndd_counters_t *c);
/* 0 and the document count when shard idx is complete and intact (reads and
 * checksums the whole shard); _count trusts the marker alone. */
int ndd_ckpt_shard_check(const char *wd, int idx, uint64_t *ndocs);
int ndd_ckpt_shard_count(const char *wd, int idx, uint64_t *ndocs);
/* Appends documents [skip, skip + take) of shard idx to d and, when
 * with_meta, adds its rejects and read counters. */
int ndd_ckpt_shard_load(const char *wd, int idx, ndd_docs_t *d, ndd_buf_t *rejects, ndd_counters_t *c,
                        uint64_t skip, uint64_t take, int with_meta);

/* Rank idx's verified rows (rows[0] pairs, rows[1] clusters, rows[2] scores:
 * keyed records of ndd_rows.h), its reduce-stage counters and largest sets. */
int ndd_ckpt_verify_write(const char *wd, int idx, const ndd_counters_t *c, const ndd_topsets_t *top,
                          const ndd_buf_t rows[3]);
int ndd_ckpt_verify_done_write(const char *wd, int nparts, uint64_t cc_rounds);
int ndd_ckpt_verify_done_read(const char *wd, int *nparts, uint64_t *cc_rounds);
/* Appends the rows of part idx whose first key lies in [lo, hi); with_meta:
 * adds its counters and merges its largest sets. */
int ndd_ckpt_verify_load(const char *wd, int idx, ndd_counters_t *c, ndd_topsets_t *top, ndd_buf_t rows[3],
                         uint64_t lo, uint64_t hi, int with_meta);

/* 1 when DIR/manifest exists. */
int ndd_ckpt_exists(const char *wd);
/* Removes DIR and its files (the default work dir after a successful run). */
int ndd_ckpt_remove(const char *wd);

#endif
