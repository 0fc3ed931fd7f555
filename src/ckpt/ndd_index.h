/* ndd_index.h - the persistent index of ndd run --index DIR (issue 15,
 * docs/index.md): its manifest and the verdict cache. Local functions (no
 * communication), plain C.
 *
 *   DIR/INDEX                      the manifest (text, below): written to
 *                                  INDEX.tmp.PID, fsynced and renamed, so a
 *                                  batch lands whole or not at all
 *   DIR/batch-NNNN/map/shard-I.zst the batch's map shards (ndd_ckpt.h), with
 *                  map/shard-I.done their markers
 *   DIR/batch-NNNN/verify/verdicts-R.zst  the pair verdicts the batch computed
 *                  verify/verdicts-R.done (rank R of the run that verified)
 *   DIR/batch-NNNN/keys/keys-R.zst  the signature keys of the documents the
 *                  keys/keys-R.done batch signed (its new ones, and old ones
 *                  whose text after the template strip changed), by rank R
 *
 * The manifest, one item per line:
 *   ndd-index VERSION
 *   opts OPTIONS          the options that decide results (all batches alike)
 *   batch DOCS FILES NSHARDS NVERDICTS   one per batch, in order, followed by
 *   pin LINE              one per expanded input file of that batch (ndd_input_pin)
 *   end
 * A batch directory the manifest does not list is the remains of a batch
 * that did not land; it is replaced by the next batch. */
#ifndef NDD_INDEX_H
#define NDD_INDEX_H

#include "ndd_tmpl.h"
#include <stddef.h>
#include <stdint.h>
#include "ndd_rows.h"
#include "ndd_sets.h"
#include "ndd_util.h"

/* 3: map shards in frames with a seek table (ndd_ckpt_shard_write), which
 * an ndd that reads version 2 only cannot read; an index of version 2 (its
 * shards one frame each) is read, and written as version 3 with its next batch */
#define NDD_INDEX_VERSION 3
#define NDD_INDEX_VERSION_MIN 2 /* the oldest version read */

typedef struct ndd_ixbatch {
    uint64_t docs;  /* documents the batch added */
    uint64_t files; /* its expanded input files */
    int nshards;    /* map shards in batch-NNNN/map */
    int nverdicts;  /* verdict parts in batch-NNNN/verify */
    char **pins;    /* its input pins */
    size_t npins;
} ndd_ixbatch_t;

typedef struct ndd_index_man {
    int version;    /* the version read (set also when _read refuses it) */
    char *opts;     /* the options string of the index (owned) */
    ndd_ixbatch_t *b;
    size_t nb;
} ndd_index_man_t;

/* Fills m from DIR/INDEX. NDD_ERR_IO when there is no manifest (errno
 * ENOENT: not an index), NDD_ERR_VERSION when it has another format version
 * (m->version = its version; nothing else is kept), NDD_ERR_FORMAT when
 * malformed (no "end" line, counts out of range, a pin outside a batch). */
int ndd_index_read(const char *dir, ndd_index_man_t *m);
/* Writes DIR/INDEX atomically (NDD_ERR_INVAL for a newline in a string). */
int ndd_index_write(const char *dir, const ndd_index_man_t *m);
/* Appends a batch (the pins are copied). */
int ndd_index_add(ndd_index_man_t *m, uint64_t docs, uint64_t files, int nshards, int nverdicts,
                  const char *const *pins, size_t npins);
void ndd_index_free(ndd_index_man_t *m);
/* The sum of the batches' documents (*files: of their input files; may be NULL). */
uint64_t ndd_index_docs(const ndd_index_man_t *m, uint64_t *files);
/* buf = DIR/batch-NNNN (k from 1); NDD_ERR_INVAL when it does not fit. */
int ndd_index_batch_dir(char *buf, size_t cap, const char *dir, size_t k);

/* Copies src to a new file dst: a hard link when both are on one file
 * system, else the bytes (written, fsynced, closed; dst removed on failure).
 * NDD_ERR_IO when dst exists (never written over) or src is missing. */
int ndd_index_copy_file(const char *src, const char *dst);
/* fsync of a directory (after a rename in it). */
int ndd_index_fsync_dir(const char *dir);

/* ---- the verdict cache: (a, b, hash of a's text, hash of b's text) -> the
 * verifier's result. a, b are global document numbers (the same in every
 * batch), the hashes XXH3-64 of the texts as verified (after the template
 * strip and the cut), so a pair whose text changed is not found. ---- */
typedef struct ndd_verdict {
    uint64_t a, b, ha, hb;
    ndd_vres_t v;
} ndd_verdict_t;

typedef struct ndd_vcache {
    ndd_verdict_t *v;
    size_t n, cap;
    uint32_t *slot; /* after _sort: a hash table of v's indices + 1 (0: empty), nslot a power of 2 */
    size_t nslot;
} ndd_vcache_t;

/* Appends v (a sorted cache is unsorted again: its hash table is dropped). */
int ndd_vcache_add(ndd_vcache_t *c, const ndd_verdict_t *v);
/* Sorts by (a, b, ha, hb), drops repeated keys (one is kept: equal keys
 * hold equal verdicts, the verifier being a function of the two texts) and
 * indexes the keys in a hash table (without memory for it: binary search). */
void ndd_vcache_sort(ndd_vcache_t *c);
/* The verdict of the key in a sorted cache, or NULL. */
const ndd_verdict_t *ndd_vcache_find(const ndd_vcache_t *c, uint64_t a, uint64_t b, uint64_t ha, uint64_t hb);
void ndd_vcache_free(ndd_vcache_t *c);
/* v[0..n) as one blob (magic "NDDVERDS", u32 version, u64 count, then 84-B
 * records: a, b, ha, hb, u32 flags, resemblance, containment, ncd, score,
 * strain_away as IEEE-754 bits, tlcs) at path with its marker. */
int ndd_vcache_write(const char *path, const char *marker, const ndd_verdict_t *v, size_t n);
/* Appends the verdicts of a file written by _write (NDD_ERR_VERSION: of
 * another version; NDD_ERR_FORMAT: damaged). */
int ndd_vcache_load(const char *path, const char *marker, ndd_vcache_t *c);
/* One verdict as the file's 84-byte record (also between ranks), and back
 * from NDD_VERDICT_BYTES bytes at p. */
#define NDD_VERDICT_BYTES 84
int ndd_verdict_put(ndd_buf_t *b, const ndd_verdict_t *v);
int ndd_verdict_get(const char *p, ndd_verdict_t *v);

/* ---- the key table: document number g -> (XXH3-64 of its text after the
 * template strip and the cut, its signature keys), so that a document whose
 * stripped text did not change since the batch that signed it is not signed
 * again (the keys are a function of that text and the options). ---- */
typedef struct ndd_keytab {
    uint64_t n;      /* documents 0..n) may be in the table */
    uint64_t lo, hi; /* the records of documents [lo, hi) are kept (ndd_keytab_range), others skipped */
    uint64_t *hash;  /* [n] */
    uint64_t *off;   /* [n]: keys[off[g] .. off[g] + cnt[g]) */
    uint32_t *cnt;   /* [n]; UINT32_MAX: g not in the table */
    uint64_t *keys;
    size_t nkeys, cap;
    uint64_t first; /* the file loaded last: its first record's document (UINT64_MAX: it had none) */
} ndd_keytab_t;

/* An empty table for documents 0..n), all of them kept. */
int ndd_keytab_init(ndd_keytab_t *t, uint64_t n);
/* Keeps only the records of documents [lo, hi) from the next loads (a
 * rank's own documents: the others are not read into memory; a document
 * outside is not found, as if never signed). */
void ndd_keytab_range(ndd_keytab_t *t, uint64_t lo, uint64_t hi);
void ndd_keytab_free(ndd_keytab_t *t);
/* Adds the records of a file written by ndd_keys_write; a record of a
 * document already in the table replaces it (files are loaded in batch
 * order: the last batch that signed a document has its current keys).
 * A file's records are in document order: its first record's document is
 * left in t->first, and the records from the first one at or past t->hi on
 * are not read. NDD_ERR_VERSION: of another version; NDD_ERR_FORMAT:
 * damaged, or a number >= t->n. */
int ndd_keytab_load(const char *path, const char *marker, ndd_keytab_t *t);
/* Document g's keys when it is in the table with this text hash (*n of
 * them), else NULL. */
const uint64_t *ndd_keytab_find(const ndd_keytab_t *t, uint64_t g, uint64_t hash, size_t *n);
/* A key file: ndd_keys_begin on an empty buffer (magic "NNDKEYS1", u32
 * version, u64 count), one ndd_keys_put per document (u64 g, u64 hash, u32 n,
 * n u64 keys), then ndd_keys_write (the count filled in). */
int ndd_keys_begin(ndd_buf_t *b);
int ndd_keys_put(ndd_buf_t *b, uint64_t g, uint64_t hash, const uint64_t *keys, size_t n);
int ndd_keys_write(const char *path, const char *marker, ndd_buf_t *b, uint64_t count);

/* ---- the template occurrences: document number g -> the block
 * occurrences the template pass makes of its stored text (ndd_tmpl_doc_occ:
 * block hash, page, site, content). A stored text never changes and the
 * options are the index's, so they are a function of g: made once, by the
 * batch that added the document, and read back by every later batch instead
 * of hashing every old document's blocks again. ---- */
typedef struct ndd_occtab {
    uint64_t n;       /* documents 0..n) may be in the table */
    uint64_t lo, hi;  /* only the records of [lo, hi) are kept (ndd_occtab_range) */
    uint64_t *off;    /* [n]: v[off[g] .. off[g] + cnt[g]) */
    uint32_t *cnt;    /* [n]; UINT32_MAX: g not in the table */
    ndd_tmpl_occ_t *v;
    size_t nv, cap;
    uint64_t first;   /* the file loaded last: its first record's document (UINT64_MAX: it had none) */
} ndd_occtab_t;

/* An empty table for documents 0..n), all of them kept. */
int ndd_occtab_init(ndd_occtab_t *t, uint64_t n);
/* Keeps only the records of documents [lo, hi) from the next loads. */
void ndd_occtab_range(ndd_occtab_t *t, uint64_t lo, uint64_t hi);
void ndd_occtab_free(ndd_occtab_t *t);
/* Adds the records of a file written by ndd_occ_write (a later record of a
 * document replaces an earlier one; t->first and t->hi as for the key
 * table). NDD_ERR_VERSION: of another version;
 * NDD_ERR_FORMAT: damaged, or a number >= t->n. */
int ndd_occtab_load(const char *path, const char *marker, ndd_occtab_t *t);
/* Document g's occurrences (*n of them) when it is in the table, else NULL. */
const ndd_tmpl_occ_t *ndd_occtab_find(const ndd_occtab_t *t, uint64_t g, size_t *n);
/* An occurrence file: ndd_occ_begin on an empty buffer (magic "NNDOCCS1",
 * u32 version, u64 count), one ndd_occ_put per document (u64 g, u32 n, n
 * records of u64 block, u32 page, u32 site, u32 content), then ndd_occ_write
 * (the count filled in). */
int ndd_occ_begin(ndd_buf_t *b);
int ndd_occ_put(ndd_buf_t *b, uint64_t g, const ndd_tmpl_occ_t *v, size_t n);
int ndd_occ_write(const char *path, const char *marker, ndd_buf_t *b, uint64_t count);

/* ---- the index's links (incremental postings, docs/index.md "Postings"):
 * what the postings stage of the last batch left, per rank R of that batch:
 * the links of the lists R owned (every pair with its support, before
 * --min-link, owned by XXH3(u, v) % P), their list counters and dropped
 * keys, and the exact-pass followers among R's documents. The next batch
 * adds the differences of the lists it changes instead of rebuilding every
 * list. ---- */
typedef struct ndd_linkstate {
    uint64_t ndocs;           /* the documents of the index these describe */
    ndd_list_counts_t counts; /* the counters of the part's lists */
    uint64_t *dropped;        /* the part's dropped keys, increasing */
    size_t ndropped;
    uint64_t *fol;            /* the followers among the part's documents, increasing */
    size_t nfol;
    ndd_link_t *links;        /* the part's pairs, in (u, v) order, u < v, support > 0 */
    size_t nlinks;
} ndd_linkstate_t;

/* s as one blob (magic "NNDLINK1", u32 version, u64 link count, u64 ndocs,
 * the 7 counters, u64 ndropped, u64 nfol, the dropped keys, the followers,
 * then per link u64 u, v, support) at path with its marker. */
int ndd_linkstate_write(const char *path, const char *marker, const ndd_linkstate_t *s);
/* Reads a file written by _write into s (zeroed first); with links 0 the
 * links are not read (nlinks is their count). NDD_ERR_VERSION: of another
 * version; NDD_ERR_FORMAT: damaged, or a list out of order. */
int ndd_linkstate_load(const char *path, const char *marker, ndd_linkstate_t *s, int links);
void ndd_linkstate_free(ndd_linkstate_t *s);

#endif
