/* ndd_ckpt.h - stage checkpoints of ndd run in a work directory:
 *
 *   DIR/manifest            "ndd-work 2": the options that decide the map stage, the inputs
 *   DIR/map/shard-I.zst     map task I: documents (id, url, text, site, keys),
 *                           rejects, read counters (zstd, one frame)
 *   DIR/map/shard-I.done    "docs BYTES XXH3": written after the rename, so a
 *                           shard counts only when complete and intact
 *   DIR/verify/part-R.zst   rank R's verified rows (pairs, clusters, scores,
 *                           keyed by global document number), counters, largest sets
 *   DIR/verify/part-R.done  "0 BYTES XXH3", as for shards
 *   DIR/verify/done         "ndd-verify 2 NPARTS CC_ROUNDS": written once every
 *                           part is complete
 *
 * Every file is versioned and fixed-width little-endian, its blob carries a
 * magic, a format version and the counters' schema hash; a checkpoint of
 * another ndd build is refused with NDD_ERR_VERSION, never misread (the blob
 * layouts are in ndd_ckpt.c). Every file is written to NAME.tmp.PID, flushed,
 * fsynced, closed (each checked) and renamed; a blob's marker after it.
 * Errors: NDD_ERR_IO for a missing or unwritable file, NDD_ERR_FORMAT for a
 * damaged one (checksum, size, truncation, marker), NDD_ERR_VERSION. Rows and
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

#define NDD_CKPT_MAX_SHARDS 65536 /* a manifest asking for more is malformed */
#define NDD_CKPT_VERSION 4 /* 1: native-layout files before issue 10; 2: before the template pass (issue 11);
                              3: before the capture date in map shards (issue 17) */

/* What the manifest pins (the options that decide the map stage). */
typedef struct ndd_manifest {
    int nshards;
    int format;             /* ndd_format_t */
    size_t max_doc_bytes;
    int boilerplate, soft_wrap, keep_title;
    int templates;          /* the template pass: the map stage then keeps more text and no signatures */
    unsigned sig_m, sig_n, sig_k;
    size_t min_sentence;
    int candidates;
    const char *const *inputs; /* owned by the manifest after _read */
    size_t ninputs;
    const char *const *pins;   /* one line per expanded input file (ndd_input_pin), owned after _read */
    size_t npins;
    const char *const *opts;   /* more map-stage options as "KEY VALUE" lines ("opt" lines: field paths,
                                * filters), owned after _read */
    size_t nopts;
    void *store_;           /* private */
} ndd_manifest_t;

/* Appends the manifest line "KEY VALUE\n" to b; NDD_ERR_INVAL when value
 * holds a newline (it could not be read back). */
int ndd_ckpt_put_line(ndd_buf_t *b, const char *key, const char *value);

/* Creates DIR, DIR/map and DIR/verify, writes DIR/manifest ("key value"
 * lines, one "input PATH" line per input: NDD_ERR_INVAL for a path holding a
 * newline). store_ is not read. */
int ndd_ckpt_manifest_write(const char *wd, const ndd_manifest_t *m);
/* Fills m from DIR/manifest (a field whose line is absent keeps its value;
 * store_ is overwritten, not freed); the inputs stay valid until
 * ndd_ckpt_manifest_free(m). NDD_ERR_VERSION when written by another format
 * version; NDD_ERR_FORMAT when malformed (no "ndd-work" line, shards < 1). */
int ndd_ckpt_manifest_read(const char *wd, ndd_manifest_t *m);
/* Frees what _read stored (inputs = NULL, ninputs = 0); m or store_ may be NULL. */
void ndd_ckpt_manifest_free(ndd_manifest_t *m);
/* The value of the manifest's "opt KEY VALUE" line (the last one when
 * repeated), or NULL. */
const char *ndd_ckpt_manifest_opt(const ndd_manifest_t *m, const char *key);

/* The map shard of task idx: documents with their keys, rejects (TSV rows;
 * may be NULL), the NDD_CST_READ counters of c (the others are not stored).
 * The marker's count is d->n. The file is a sequence of zstd frames - the
 * head and rejects, then the documents in frames of about 1 MiB (before
 * compression) each starting at a document - closed by a seek table (a
 * skippable frame: each document frame's offset and first document), so
 * that a reader of documents [skip, ...) starts at the frame holding `skip`
 * instead of decompressing everything before it. */
int ndd_ckpt_shard_write(const char *wd, int idx, const ndd_docs_t *d, const ndd_buf_t *rejects,
                         const ndd_counters_t *c);
/* Tests: the bytes of documents (or records) per frame of the shards and
 * framed blobs written from now on (0: the default, 1 MiB); returns the value
 * it replaces. _frame_bytes: the value now. */
size_t ndd_ckpt_shard_frame(size_t bytes);
size_t ndd_ckpt_frame_bytes(void);
/* 0 and the document count when shard idx is complete and intact (reads and
 * checksums the whole file, checks its head: magic, version, counters
 * schema, count = the marker's); _count trusts the marker alone. */
int ndd_ckpt_shard_check(const char *wd, int idx, uint64_t *ndocs);
int ndd_ckpt_shard_count(const char *wd, int idx, uint64_t *ndocs);
/* Appends documents [skip, skip + take) of shard idx (clipped to the shard;
 * take UINT64_MAX: to the end) to d with ndd_docs_add and, when with_meta,
 * appends its rejects to *rejects and adds its read counters to *c (c +=).
 * rejects and c are not touched without with_meta. The whole file is
 * checksummed (its marker); of the documents before skip, only those of the
 * frame that holds skip are decompressed (a shard without a seek table, as
 * ndd wrote them before, is decompressed from its start). */
int ndd_ckpt_shard_load(const char *wd, int idx, ndd_docs_t *d, ndd_buf_t *rejects, ndd_counters_t *c,
                        uint64_t skip, uint64_t take, int with_meta);

/* Rank idx's verified rows (rows[0] pairs, rows[1] clusters, rows[2] scores:
 * keyed records of ndd_rows.h, stored as they are), the NDD_CST_REDUCE
 * counters of c (the read ones live in the shards) and its largest sets (top
 * may be NULL: none). */
int ndd_ckpt_verify_write(const char *wd, int idx, const ndd_counters_t *c, const ndd_topsets_t *top,
                          const ndd_buf_t rows[3]);
int ndd_ckpt_verify_done_write(const char *wd, int nparts, uint64_t cc_rounds);
int ndd_ckpt_verify_done_read(const char *wd, int *nparts, uint64_t *cc_rounds);
/* Appends to rows[r] the records of part idx whose first key lies in
 * [lo, hi) (bytes unchanged); with_meta: adds its counters to *c (c +=) and
 * merges its largest sets into *top (ndd_topsets_merge). */
int ndd_ckpt_verify_load(const char *wd, int idx, ndd_counters_t *c, ndd_topsets_t *top, ndd_buf_t rows[3],
                         uint64_t lo, uint64_t hi, int with_meta);

/* Writes p[0..n) to path atomically (path.tmp.PID, flushed, fsynced, renamed). */
int ndd_ckpt_write_atomic(const char *path, const void *p, size_t n);
/* raw as one zstd frame at path (atomically), then marker "count bytes xxh3". */
int ndd_ckpt_blob_write(const char *path, const char *marker, const ndd_buf_t *raw, uint64_t count);
/* The same in frames with a seek table (as a map shard): raw[0, cut[0]) is
 * frame 0 (the head), raw[cut[i], cut[i + 1]) frame i + 1 (the last to the
 * end), key[i] the key of the frame at cut[i] (a record's document); cuts
 * and keys increasing (else NDD_ERR_INVAL); ncut 0: one frame, no table. */
int ndd_ckpt_blob_write_framed(const char *path, const char *marker, const ndd_buf_t *raw, uint64_t count,
                               const uint64_t *cut, const uint64_t *key, size_t ncut);
/* A blob written by ndd_ckpt_blob_write read back as a stream, piece by
 * piece (neither the file nor its contents held whole): _open checks the
 * whole file against its marker, size and XXH3 (NDD_ERR_FORMAT: damaged;
 * *count = the marker's count, may be NULL); _need makes at least n bytes
 * not taken yet available at *p (*avail bytes; fewer only where the blob
 * ends), _take marks n of them parsed; _close, with whole, also checks that
 * every byte was taken and the frame is complete (NDD_ERR_FORMAT), returns
 * rc otherwise and frees the stream. */
typedef struct ndd_blob_stream ndd_blob_stream_t;
int ndd_blob_open(const char *path, const char *marker, ndd_blob_stream_t **s, uint64_t *count);
int ndd_blob_need(ndd_blob_stream_t *s, size_t n, const char **p, size_t *avail);
void ndd_blob_take(ndd_blob_stream_t *s, size_t n);
uint64_t ndd_blob_file_bytes(const ndd_blob_stream_t *s); /* the compressed file's size */
int ndd_blob_close(ndd_blob_stream_t *s, int rc, int whole);
/* A blob written by ndd_ckpt_blob_write_framed, read from its frame of the
 * largest key at most `key`: *first_key = the first frame's key (UINT64_MAX
 * without a table), and when such a frame exists, the stream goes on from
 * its start (what was read and not taken is dropped) and *at = its key;
 * else (no table, or key below every frame's) the stream is left where it
 * is and *at = UINT64_MAX. NDD_ERR_FORMAT for a table that does not hold
 * together. */
int ndd_blob_seek(ndd_blob_stream_t *s, uint64_t key, uint64_t *first_key, uint64_t *at);

/* 1 when DIR/manifest exists. */
int ndd_ckpt_exists(const char *wd);
/* Removes DIR and its files (the default work dir after a successful run). */
int ndd_ckpt_remove(const char *wd);
/* Removes the map shards i = first, first + step, ... below nshards and the
 * verification parts of the same numbers (up to the first one missing),
 * each with its marker (the marker first): the ranks of a finished run
 * share the unlinking of its default work directory's large files (first =
 * the rank, step = P), then one rank removes the rest with
 * ndd_ckpt_remove. Best effort: what cannot be removed is left to it. */
void ndd_ckpt_remove_share(const char *wd, int first, int step, int nshards);
/* The disk use of work directory wd: *bytes = the sizes of its files, *files
 * their count (directories walked, symbolic links not followed). */
int ndd_ckpt_disk_use(const char *wd, uint64_t *bytes, uint64_t *files);

#endif
