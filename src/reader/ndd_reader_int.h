/* ndd_reader_int.h - internals shared by the reader sources (ndd_reader.c,
 * ndd_warc.c, ndd_payload.c). Not part of the public API. */
#ifndef NDD_READER_INT_H
#define NDD_READER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "ndd_reader.h"
#include "ndd_rstream.h"
#include "ndd_util.h"

struct ndd_reader {
    char *name;
    char *path;
    uint32_t file_index;
    ndd_format_t format;
    uint64_t start, end;
    int ranged;          /* a byte range was asked: ordinals are UINT64_MAX */
    int need_align;      /* ranged read not yet moved to its first line */
    int split;           /* NDD_SPLIT_* of the input (the way offsets and ranges are read) */
    uint64_t stop_comp;  /* compressed splits: records starting in a member/frame that begins at
                          * or after this file offset belong to the next range (UINT64_MAX: none) */
    uint64_t s_comp0, s_dec0; /* compressed splits: where the stream starts (file, stream offset) */
    int stopped;         /* the range is read (or empty) */
    ndd_reject_fn on_reject;
    void *user;
    ndd_rstream_t s;
    int s_open;
    int open_errno;      /* set when the file could not be opened (-1: not a regular file) */
    const char *skip;    /* the input was not to be read (ndd_input_t.skip) */
    uint64_t file_size;  /* bytes on disk when opened */
    int done;
    int after_break;     /* WARC: resync silently (the break was already rejected) */
    uint64_t next_ordinal;
    uint64_t nread, nrej;
    size_t max_record;
    ndd_buf_t id, url, date, body, tbody, tmp1, tmp2; /* tbody: JSONL, the text field decoded by the scan */
    /* JSONL field paths (ndd_reader_set_fields): per field the path with
     * '\0' between components, and the component count (0: not read) */
    char *fpath[5];
    int fdepth[5];
    ndd_buf_t rj_url, rj_ct; /* WARC: URL and media type of the record being read (for rejects, docs) */
    int rj_set;          /* rj_url / rj_ct describe the current record */
    char rtail[4];       /* WARC: the trailer of the last record (ndd_doc_t.raw_tail) */
    size_t rtail_len;
    z_stream hz;         /* HTTP Content-Encoding decoder */
    int hz_ready;
    char reason[192];
};

/* The offset reported for stream offset x: x itself, except for an input
 * split at gzip members (NDD_SPLIT_GZ_RECORDS), where it is the file offset
 * of the member holding x plus x's distance from that member's first byte
 * (for one record per member: the member's offset, as in CDX indexes). */
uint64_t ndd_reader_off(const ndd_reader_t *r, uint64_t x);
/* 1 when a record whose position is stream offset x belongs to the next
 * range (compressed splits); also lets the stream forget units before x. */
int ndd_reader_past_end(ndd_reader_t *r, uint64_t x);

/* Reports a rejected record and counts it. */
void ndd_reader_reject_emit(ndd_reader_t *r, uint64_t ordinal, uint64_t offset, const char *reason);

/* Final checks of a document body p[0..n) (p[n] must be writable): strips a
 * UTF-8 BOM; invalid UTF-8 is converted from windows-1252 when the declared
 * charset cs (or, for HTML without one, a <meta> charset) is a Latin-1
 * family name, else rejected; then NUL bytes and empty (whitespace-only)
 * bodies are rejected. On success doc->body/body_len are set (NUL
 * terminated) and NDD_OK is returned; else NDD_ERR_FORMAT and *why. */
int ndd_reader_payload(ndd_reader_t *r, char *p, size_t n, int is_html, const char *cs, size_t csn,
                       ndd_doc_t *doc, const char **why);

/* Media type of a Content-Type value: 1 HTML (text/html,
 * application/xhtml+xml), 0 plain text (text/plain), -1 anything else,
 * -2 empty. cs and csn get the charset parameter (csn 0 when none). */
int ndd_reader_ctype(const char *ct, size_t n, const char **cs, size_t *csn);

/* HTTP Transfer-Encoding: chunked. Decodes p[0..n) into out; a body cut
 * short keeps the chunks that are whole. Returns NDD_OK, or NDD_ERR_FORMAT
 * when p does not start with a chunk-size line (the caller keeps p). */
int ndd_reader_dechunk(const char *p, size_t n, ndd_buf_t *out);

/* HTTP Content-Encoding gzip / x-gzip / deflate into out (at most max
 * bytes). NDD_OK; NDD_ERR_LIMIT when larger than max; NDD_ERR_FORMAT when
 * nothing decodes. A stream cut short keeps what decoded. */
int ndd_reader_inflate(ndd_reader_t *r, const char *p, size_t n, ndd_buf_t *out, size_t max);

/* Next WARC/WET document (ndd_warc.c). */
int ndd_reader_warc_next(ndd_reader_t *r, ndd_doc_t *doc);
/* Restarts the stream of r at decompressed offset off: plain files seek;
 * compressed ones are opened again and decoded up to off (breaks met on the
 * way are passed silently: they were reported the first time). For going
 * back after a record that lied about its length. NDD_OK, or <0. */
int ndd_reader_restream(ndd_reader_t *r, uint64_t off);

/* case-insensitive equality of s[0..n) with the NUL-terminated lit */
int ndd_reader_ieq(const char *s, size_t n, const char *lit);
/* case-insensitive prefix test */
int ndd_reader_iprefix(const char *s, size_t n, const char *lit);

#endif
