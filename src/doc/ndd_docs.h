/* ndd_docs.h - a batch of documents as ndd run holds them: ids, URLs,
 * visible texts, site and URL hashes, signature weights, and each document's
 * candidate keys (paper 002 signatures or a baseline's keys). Documents are
 * numbered 0..n-1 in the batch (the engine adds the rank's first global
 * number). Also the packed record of a document sent to its set's owner in
 * shuffle 2. Local. */
#ifndef NDD_DOCS_H
#define NDD_DOCS_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"
#include "ndd_wire.h"

typedef struct ndd_docs {
    size_t n, cap;
    uint64_t *id_off, *url_off; /* into strs (NUL-terminated strings) */
    uint64_t *text_off;         /* into texts */
    uint32_t *text_len, *site, *weight;
    uint16_t *urlh;
    uint64_t *date;    /* capture date key (ndd_date_key; 0 = unknown), set with ndd_docs_set_date */
    ndd_buf_t strs, texts;
    uint64_t *keys;    /* keys of document i: keys[key_off[i] .. key_off[i+1]) */
    uint64_t *key_off; /* n+1 entries once reserved (key_off[0] = 0) */
    size_t nkeys, keys_cap;
} ndd_docs_t;

#define NDD_DOCS_INIT {0}

/* Room for need documents (key_off gets need+1; key_off[0] is set to 0). */
int ndd_docs_reserve(ndd_docs_t *d, size_t need);
void ndd_docs_free(ndd_docs_t *d); /* resets to empty */
/* Appends one document with its keys. */
int ndd_docs_add(ndd_docs_t *d, const char *id, size_t idlen, const char *url, size_t urllen, const char *text,
                 size_t textlen, uint32_t site, uint16_t urlh, uint32_t weight, const uint64_t *keys, size_t nkeys);
/* The capture date key of document i (ndd_date_key). */
static inline void ndd_docs_set_date(ndd_docs_t *d, size_t i, uint64_t key) { d->date[i] = key; }
/* A sortable key of a date as crawls write it: its first 14 digits
 * (YYYYMMDDhhmmss: "2020-03-29T09:04:10Z", "20080430204825"), missing ones
 * as 0; 0 when it holds fewer than 8 digits (no date). */
uint64_t ndd_date_key(const char *s);
/* Drops every document's keys (n stays). */
void ndd_docs_drop_keys(ndd_docs_t *d);
/* Frees every document's text (n, ids, URLs and text lengths stay); the
 * texts must not be read afterwards. */
void ndd_docs_drop_texts(ndd_docs_t *d);
static inline const char *ndd_docs_id(const ndd_docs_t *d, size_t i) { return d->strs.data + d->id_off[i]; }
static inline const char *ndd_docs_url(const ndd_docs_t *d, size_t i) { return d->strs.data + d->url_off[i]; }
static inline const char *ndd_docs_text(const ndd_docs_t *d, size_t i) { return d->texts.data + d->text_off[i]; }

/* ---- shuffle 2 records: one document on its way to its set's owner ----
 * Wire form (little-endian, 32-byte header): u64 g, u64 label, u32 idlen,
 * u32 urllen, u32 textlen, u32 flags, [u64 rep when flags & 1], [u32 nkeys
 * when flags & 2], then id, url, text bytes, [nkeys u64 keys]. rep: an
 * exact follower's representative (it travels without its text);
 * UINT64_MAX for every other document. keys: the document's candidate keys
 * (its signature keys without the dropped ones), sent when the sender kept
 * them from the template pass so that the receiver need not sign the text
 * again. */
typedef struct ndd_docrec {
    uint64_t g, label, rep;
    const char *id, *url, *text;
    uint32_t idlen, urllen, textlen;
    uint64_t text_at;     /* not on the wire: where the text lies in a spill file when text is NULL */
    const uint64_t *keys; /* ndd_docrec_put: nkeys keys to send (native order); NULL: those at keys_le */
    uint32_t nkeys;       /* keys sent (0: none) */
    const char *keys_le;  /* parsed: the nkeys keys as sent (8 bytes each, little-endian); NULL from
                             ndd_docrec_head or when none were sent */
} ndd_docrec_t;

/* Key k of a parsed record (k < r->nkeys, r->keys_le set). */
static inline uint64_t ndd_docrec_key(const ndd_docrec_t *r, size_t k) { return ndd_le64_load(r->keys_le + 8 * k); }

int ndd_docrec_put(ndd_buf_t *b, const ndd_docrec_t *r);
/* Bytes record r takes on the wire. */
size_t ndd_docrec_size(const ndd_docrec_t *r);
/* The header of the record at p[0..n) (32 bytes, 8 more with a
 * representative, 4 more with keys): r's numbers and lengths (id, url, text
 * and keys_le NULL), *head = its bytes; the id, URL, text and keys follow
 * it. NDD_ERR_FORMAT when p is too short or a flag is unknown. */
int ndd_docrec_head(const char *p, size_t n, ndd_docrec_t *r, size_t *head);
/* Parses every record of p[0..n) into *v (grown with ndd_array_grow; the
 * strings point into p); NDD_ERR_FORMAT on a truncated record. */
int ndd_docrec_parse(const char *p, size_t n, ndd_docrec_t **v, size_t *nv, size_t *cap);

#endif
