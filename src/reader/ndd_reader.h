/* ndd_reader.h - corpus readers with provenance: JSONL (plain/.gz/.zst),
 * WARC/WET (plain, gzip per record, single gzip stream), directories of
 * .txt/.html files. Bad records never stop a read: each is reported through
 * the reject callback (file, ordinal or byte offset, reason) and skipped.
 * Plain C, no MPI, no printing. */
#ifndef NDD_READER_H
#define NDD_READER_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"

typedef enum {
    NDD_FMT_AUTO = 0, /* from the file name (.jsonl/.json[.gz|.zst], .warc/.wet[.gz], .txt, .html/.htm) then content */
    NDD_FMT_JSONL,
    NDD_FMT_WARC,     /* WARC and WET */
    NDD_FMT_TEXT,     /* one whole file = one plain-text document */
    NDD_FMT_HTML      /* one whole file = one HTML document */
} ndd_format_t;

/* How an input can be read by byte ranges (ndd_input_t.splittable). */
enum {
    NDD_SPLIT_NONE = 0,       /* read whole by one task */
    NDD_SPLIT_BYTES = 1,      /* plain JSONL: a range reads the lines that start in it */
    NDD_SPLIT_GZ_RECORDS = 2, /* WARC/WET, one gzip member per record: a range reads the members
                               * that begin in it (from the first that begins with "WARC/") */
    NDD_SPLIT_ZST_FRAMES = 3  /* JSONL in several zstd frames: a range reads the lines whose
                               * preceding '\n' lies in a frame that begins in it */
};

/* One input file after expansion of directories. */
typedef struct ndd_input {
    char *path;          /* path to open */
    char *name;          /* as shown in ids/rejects: the path given, or the path relative to the directory given */
    uint32_t file_index; /* position in the expanded, deterministic input list */
    uint64_t size;       /* bytes on disk */
    ndd_format_t format; /* resolved (never AUTO after expansion) */
    int compression;     /* 0 none, 1 gzip, 2 zstd */
    int splittable;      /* NDD_SPLIT_*: how byte ranges can be read independently (0: not) */
    const char *skip;    /* not read: the reject reason the reader gives it (a directory
                          * loop, a second path to a file or directory, too deep); NULL */
} ndd_input_t;

/* Expands paths (files and directories, recursively, entries sorted bytewise)
 * into a deterministic list; file_index follows that order. fmt forces a
 * format for every file (NDD_FMT_AUTO to detect). Unreadable paths give
 * NDD_ERR_IO with *bad_path set to the offending argument and errno saying
 * why (ENOENT, EACCES, ...). Every directory
 * is walked once and every file read once, by (device, inode), whatever
 * the symlinks: a directory met again (a symlink loop, or a second path to
 * it), a file met again, and a directory nested deeper than
 * NDD_INPUT_MAX_DEPTH stay in the list with `skip` set, so that the reader
 * reports each of them as a reject. */
#define NDD_INPUT_MAX_DEPTH 1024
int ndd_input_expand(const char *const *paths, size_t npaths, ndd_format_t fmt,
                     ndd_input_t **out, size_t *nout, const char **bad_path);
void ndd_input_free(ndd_input_t *in, size_t n);
/* A line that pins input in as the run read it: "SIZE MTIME HASH NAME"
 * (bytes, modification time in ns, xxh3 of its first and last 64 KiB) or
 * "skip NAME". --resume compares these to refuse inputs changed since. */
int ndd_input_pin(const ndd_input_t *in, ndd_buf_t *line);

/* A document as read. Strings are NUL-terminated and owned by the reader:
 * valid until the next ndd_reader_next() / ndd_reader_free(). */
typedef struct ndd_doc {
    const char *id;      /* JSON "id" (string or number as text), WARC-Record-ID, or relative file path */
    const char *url;     /* JSON "url", WARC-Target-URI, or "" */
    const char *date;    /* WARC-Date or "" */
    const char *body;    /* raw body: HTML (is_html=1) or plain text; valid UTF-8, no NUL bytes */
    size_t body_len;
    int is_html;
    uint32_t file_index;
    uint64_t ordinal;    /* record number inside the file (0-based), counted over all records incl. rejected;
                            for a byte-range read of a splittable file: UINT64_MAX (use offset) */
    uint64_t offset;     /* byte offset of the record start in the decompressed stream: (file_index, offset)
                            is the rank-count independent order key */
    const char *raw;     /* the record as it is in the (decompressed) input, for a corpus written back
                            unchanged: raw[0..raw_len) then raw_tail[0..raw_tail_len): a JSONL line and
                            "\n"; a WARC record's header and block, then its trailer (CRLF CRLF);
                            NULL for a whole text/HTML file */
    size_t raw_len;
    const char *raw_tail;
    size_t raw_tail_len;
    const char *ctype;   /* WARC: the media type of the payload, lower case, without parameters
                            ("text/html"; the HTTP Content-Type of a response record), or ""; "" for
                            other formats */
} ndd_doc_t;

typedef struct ndd_reject {
    const char *file;    /* input name */
    uint32_t file_index;
    uint64_t ordinal;    /* as in ndd_doc_t (UINT64_MAX when unknown) */
    uint64_t offset;     /* byte offset in the decompressed stream */
    const char *reason;  /* short, stable text, e.g. "malformed JSON", "invalid UTF-8", "truncated gzip member",
                            "WARC record length mismatch", "NUL byte in document", "empty document" */
    const char *url;     /* the record's URL when known (WARC-Target-URI), else NULL */
    const char *ctype;   /* its media type when known (as ndd_doc_t.ctype), else NULL */
} ndd_reject_t;

typedef void (*ndd_reject_fn)(void *user, const ndd_reject_t *rej);

typedef struct ndd_reader ndd_reader_t;

/* Opens one input. Reads records whose start offset lies in [start, end)
 * (start = 0, end = UINT64_MAX for the whole file; a non-zero range is only
 * allowed when in->splittable). on_reject may be NULL. */
int ndd_reader_open(ndd_reader_t **r, const ndd_input_t *in, uint64_t start, uint64_t end,
                    ndd_reject_fn on_reject, void *user);
/* Next document: 0 ok, NDD_ERR_EOF at the end, another negative code on a
 * fatal I/O error (rejects are not errors). */
int ndd_reader_next(ndd_reader_t *r, ndd_doc_t *doc);
/* Largest record (JSONL line, WARC record block, whole text/HTML file) a
 * reader holds in memory; larger ones are skipped as "document too large".
 * May be called at any time; default NDD_READER_MAX_RECORD. */
#define NDD_READER_MAX_RECORD ((size_t)64 << 20)
void ndd_reader_set_max_record(ndd_reader_t *r, size_t bytes);
/* JSONL fields (ndd run --id-field ...): each a dotted path into nested
 * objects ("metadata.url"; a key holding a dot cannot be named). NULL keeps
 * the default: id "id", text "text", html "html", url "url", no date.
 * When text is given and html is not, no html field is read. The id may be
 * a string or a number; the others must be strings (url and date may be
 * absent or null). Other formats ignore them. */
typedef struct ndd_fields {
    const char *id, *text, *html, *url, *date;
} ndd_fields_t;
#define NDD_FIELD_MAX_DEPTH 8 /* components of a path */
/* 0 when path is a usable field path (1..NDD_FIELD_MAX_DEPTH non-empty
 * components of at most 63 bytes), else NDD_ERR_INVAL. */
int ndd_fields_check(const char *path);
/* Sets the JSONL fields of r (copied). NDD_OK, NDD_ERR_INVAL for a bad path. */
int ndd_reader_set_fields(ndd_reader_t *r, const ndd_fields_t *f);
/* Counters so far. */
uint64_t ndd_reader_nread(const ndd_reader_t *r);
uint64_t ndd_reader_nrejected(const ndd_reader_t *r);
/* Bytes of the file this reader's records come from: the whole file, or for
 * a range the bytes from its first record (line, gzip member, zstd frame)
 * to the next range's (known at open; per-rank input_bytes in stats.json). */
uint64_t ndd_reader_input_bytes(const ndd_reader_t *r);
void ndd_reader_free(ndd_reader_t *r);

/* Archive controls: NULL when the record is to be read, else why not (a
 * reject reason naming the option). types: the media types, separated by
 * commas (* for any), that a record which has one (WARC) must have (NULL:
 * any); url_include / url_exclude: fnmatch patterns separated by '\x1f'
 * (NULL: none), for records that have a URL. */
const char *ndd_reader_admit(const char *types, const char *url_include, const char *url_exclude,
                             const ndd_doc_t *doc);

#endif
