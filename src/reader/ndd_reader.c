/* ndd_reader.c - reader objects, JSONL records and whole-file text/HTML
 * documents. WARC/WET is in ndd_warc.c, body checks in ndd_payload.c,
 * decompression in ndd_rstream.c, input expansion in ndd_input.c. */
#include "ndd_reader_int.h"
#include "ndd_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RD_SLACK ((size_t)1 << 20) /* window room beyond max_record (WARC headers, peeking) */
#define RD_PLAIN_CAP ((size_t)4 << 20)

void ndd_reader_reject_emit(ndd_reader_t *r, uint64_t ordinal, uint64_t offset, const char *reason)
{
    r->nrej++;
    if (!r->on_reject)
        return;
    ndd_reject_t rej;
    rej.file = r->name;
    rej.file_index = r->file_index;
    rej.ordinal = r->ranged ? UINT64_MAX : ordinal;
    rej.offset = offset;
    rej.reason = reason;
    r->on_reject(r->user, &rej);
}

void ndd_reader_set_max_record(ndd_reader_t *r, size_t bytes)
{
    if (!r)
        return;
    if (bytes < 16)
        bytes = 16;
    r->max_record = bytes;
    if (r->s_open)
        r->s.max_cap = bytes + RD_SLACK;
}

int ndd_reader_restream(ndd_reader_t *r, uint64_t off)
{
    ndd_rstream_t *s = &r->s;
    if (s->comp == NDD_RS_PLAIN)
        return ndd_rstream_seek(s, off);
    size_t cap = s->cap, max = s->max_cap;
    ndd_rstream_close(s);
    r->s_open = 0;
    int rc = ndd_rstream_open(s, r->path, cap, max);
    if (rc)
        return rc;
    r->s_open = 1;
    while (ndd_rstream_offset(s) + ndd_rstream_avail(s) < off) {
        s->pos = s->len; /* discard what lies before off */
        rc = ndd_rstream_fill(s, 1);
        if (rc == NDD_RS_BREAK && (rc = ndd_rstream_resume(s)) < 0)
            return rc;
        if (rc == NDD_RS_EOF || rc < 0)
            return rc < 0 ? rc : NDD_OK;
    }
    if (ndd_rstream_offset(s) < off)
        s->pos += (size_t)(off - ndd_rstream_offset(s));
    return NDD_OK;
}

int ndd_reader_open(ndd_reader_t **out, const ndd_input_t *in, uint64_t start, uint64_t end,
                    ndd_reject_fn on_reject, void *user)
{
    int rc = NDD_OK;
    ndd_reader_t *r = NULL;
    *out = NULL;
    if (!in || !in->path || in->format == NDD_FMT_AUTO || start > end)
        return NDD_ERR_INVAL;
    int ranged = !(start == 0 && end == UINT64_MAX);
    if (ranged && (!in->splittable || in->format != NDD_FMT_JSONL))
        return NDD_ERR_INVAL;
    r = calloc(1, sizeof *r);
    if (!r)
        return NDD_ERR_NOMEM;
    r->s.fd = -1;
    r->path = strdup(in->path);
    r->name = strdup(in->name ? in->name : in->path);
    if (!r->path || !r->name) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    r->file_index = in->file_index;
    r->format = in->format;
    r->start = start;
    r->end = end;
    r->ranged = ranged;
    r->need_align = ranged && start > 0;
    r->on_reject = on_reject;
    r->user = user;
    r->max_record = NDD_READER_MAX_RECORD;
    if (in->skip) { /* reported once by ndd_reader_next */
        r->skip = in->skip;
        goto out;
    }

    struct stat st;
    if (stat(r->path, &st) != 0) {
        r->open_errno = errno;
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        r->open_errno = EISDIR;
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        r->open_errno = -1;
        goto out;
    }
    r->file_size = (uint64_t)st.st_size;
    /* window: the whole file when small, else 4 MiB (grows for long records) */
    size_t cap = RD_PLAIN_CAP;
    if ((uint64_t)st.st_size + 2 < RD_PLAIN_CAP)
        cap = (size_t)st.st_size + 2 < 4096 ? 4096 : (size_t)st.st_size + 2;
    rc = ndd_rstream_open(&r->s, r->path, cap, r->max_record + RD_SLACK);
    if (rc == NDD_ERR_IO) {
        r->open_errno = errno ? errno : EIO;
        rc = NDD_OK;
        goto out;
    }
    if (rc)
        goto out;
    r->s_open = 1;
    if (r->s.comp != NDD_RS_PLAIN && ranged) {
        rc = NDD_ERR_INVAL; /* the input said splittable but the file is compressed */
        goto out;
    }
    if (r->need_align)
        rc = ndd_rstream_seek(&r->s, start - 1);
out:
    if (rc) {
        ndd_reader_free(r);
        return rc;
    }
    *out = r;
    return NDD_OK;
}

void ndd_reader_free(ndd_reader_t *r)
{
    if (!r)
        return;
    if (r->s_open)
        ndd_rstream_close(&r->s);
    if (r->hz_ready)
        inflateEnd(&r->hz);
    ndd_buf_free(&r->id);
    ndd_buf_free(&r->url);
    ndd_buf_free(&r->date);
    ndd_buf_free(&r->body);
    ndd_buf_free(&r->tmp1);
    ndd_buf_free(&r->tmp2);
    free(r->name);
    free(r->path);
    free(r);
}

uint64_t ndd_reader_nread(const ndd_reader_t *r) { return r ? r->nread : 0; }
uint64_t ndd_reader_nrejected(const ndd_reader_t *r) { return r ? r->nrej : 0; }

/* ---- JSONL ---- */

/* Ranged read starting inside the file: the line holding byte start-1
 * belongs to the previous range; skip to just after its '\n'. */
static int jsonl_align(ndd_reader_t *r)
{
    ndd_rstream_t *s = &r->s;
    for (;;) {
        size_t a = ndd_rstream_avail(s);
        const char *nl = memchr(ndd_rstream_ptr(s), '\n', a);
        if (nl) {
            s->pos += (size_t)(nl - ndd_rstream_ptr(s)) + 1;
            return NDD_OK;
        }
        s->pos = s->len;
        int rc = ndd_rstream_fill(s, 1);
        if (rc == NDD_RS_EOF)
            return NDD_OK;
        if (rc < 0)
            return rc;
    }
}

/* Skips the rest of an over-long line. 0 ok, NDD_RS_EOF, NDD_RS_BREAK or <0. */
static int jsonl_skip_line(ndd_reader_t *r)
{
    ndd_rstream_t *s = &r->s;
    for (;;) {
        size_t a = ndd_rstream_avail(s);
        const char *nl = memchr(ndd_rstream_ptr(s), '\n', a);
        if (nl) {
            s->pos += (size_t)(nl - ndd_rstream_ptr(s)) + 1;
            return NDD_OK;
        }
        s->pos = s->len;
        int rc = ndd_rstream_fill(s, 1);
        if (rc != NDD_RS_OK)
            return rc;
    }
}

static int jsonl_str(ndd_reader_t *r, const ndd_json_want_t *w, ndd_buf_t *out, const char **why)
{
    int rc = ndd_json_string_decode(w->p, w->n, out, why);
    if (rc)
        return rc;
    if (!ndd_utf8_valid(out->data, out->len)) {
        *why = "invalid UTF-8";
        return NDD_ERR_FORMAT;
    }
    if (memchr(out->data, 0, out->len)) {
        *why = "NUL byte in document";
        return NDD_ERR_FORMAT;
    }
    (void)r;
    return NDD_OK;
}

/* One JSONL record; NDD_OK with doc filled or NDD_ERR_FORMAT with *why. */
static int jsonl_record(ndd_reader_t *r, const char *line, size_t n, ndd_doc_t *doc, const char **why)
{
    enum { W_ID, W_URL, W_TEXT, W_HTML, W_N };
    ndd_json_want_t w[W_N] = {{"id", NDD_JSON_ABSENT, NULL, 0},
                              {"url", NDD_JSON_ABSENT, NULL, 0},
                              {"text", NDD_JSON_ABSENT, NULL, 0},
                              {"html", NDD_JSON_ABSENT, NULL, 0}};
    int rc = ndd_json_object_scan(line, n, w, W_N, why);
    if (rc)
        return rc;
    /* id: string or number */
    if (w[W_ID].type == NDD_JSON_ABSENT || w[W_ID].type == NDD_JSON_NULL) {
        *why = "missing id";
        return NDD_ERR_FORMAT;
    }
    if (w[W_ID].type == NDD_JSON_STRING) {
        if ((rc = jsonl_str(r, &w[W_ID], &r->id, why)))
            return rc;
        if (r->id.len == 0) {
            *why = "missing id";
            return NDD_ERR_FORMAT;
        }
    } else if (w[W_ID].type == NDD_JSON_NUMBER) {
        ndd_buf_clear(&r->id);
        if ((rc = ndd_buf_append(&r->id, w[W_ID].p, w[W_ID].n)))
            return rc;
    } else {
        *why = "invalid id";
        return NDD_ERR_FORMAT;
    }
    /* body: "html" when it is given (not null), else "text" */
    const ndd_json_want_t *b = &w[W_HTML];
    int is_html = 1;
    if (b->type == NDD_JSON_ABSENT || b->type == NDD_JSON_NULL) {
        b = &w[W_TEXT];
        is_html = 0;
    }
    if (b->type == NDD_JSON_ABSENT || b->type == NDD_JSON_NULL) {
        *why = "missing text";
        return NDD_ERR_FORMAT;
    }
    if (b->type != NDD_JSON_STRING) {
        *why = "invalid text";
        return NDD_ERR_FORMAT;
    }
    ndd_buf_clear(&r->url);
    if (w[W_URL].type == NDD_JSON_STRING && (rc = jsonl_str(r, &w[W_URL], &r->url, why)))
        return rc;
    if ((rc = ndd_json_string_decode(b->p, b->n, &r->body, why)))
        return rc;
    if ((rc = ndd_reader_payload(r, r->body.data, r->body.len, is_html, "utf-8", 5, doc, why)))
        return rc;
    doc->id = r->id.data;
    doc->url = r->url.data ? r->url.data : "";
    doc->date = "";
    return NDD_OK;
}

static int jsonl_next(ndd_reader_t *r, ndd_doc_t *doc)
{
    ndd_rstream_t *s = &r->s;
    int rc;
    if (r->need_align) {
        r->need_align = 0;
        if ((rc = jsonl_align(r)) < 0)
            return rc;
    }
    for (;;) {
        uint64_t off = ndd_rstream_offset(s);
        if (off >= r->end)
            return NDD_ERR_EOF;
        size_t scanned = 0, n;
        const char *nl;
        for (;;) {
            size_t a = ndd_rstream_avail(s);
            nl = memchr(ndd_rstream_ptr(s) + scanned, '\n', a - scanned);
            if (nl) {
                n = (size_t)(nl - ndd_rstream_ptr(s));
                break;
            }
            scanned = a;
            if (a > r->max_record) {
                ndd_reader_reject_emit(r, r->next_ordinal++, off, "document too large");
                rc = jsonl_skip_line(r);
                if (rc == NDD_RS_BREAK) {
                    ndd_reader_reject_emit(r, r->next_ordinal++, ndd_rstream_offset(s), s->brk_reason);
                    if ((rc = ndd_rstream_resume(s)) < 0)
                        return rc;
                }
                if (rc < 0)
                    return rc;
                goto next_line;
            }
            rc = ndd_rstream_fill(s, a + 1);
            if (rc == NDD_RS_OK)
                continue;
            if (rc == NDD_RS_EOF) {
                if (a == 0)
                    return NDD_ERR_EOF;
                n = a; /* last line without '\n' */
                break;
            }
            if (rc == NDD_RS_BREAK) {
                ndd_reader_reject_emit(r, r->next_ordinal++, off, s->brk_reason);
                if ((rc = ndd_rstream_resume(s)) < 0)
                    return rc;
                goto next_line;
            }
            if (rc == NDD_ERR_LIMIT) { /* cannot happen: a > max_record is checked */
                return NDD_ERR_INTERNAL;
            }
            return rc;
        }
        {
            char *line = ndd_rstream_ptr(s);
            s->pos += n + (nl ? 1 : 0);
            size_t k = 0;
            while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
                k++;
            if (k == n)
                continue; /* blank line: not a record */
            uint64_t ord = r->next_ordinal++;
            const char *why = NULL;
            if (n > r->max_record) {
                ndd_reader_reject_emit(r, ord, off, "document too large");
                continue;
            }
            rc = jsonl_record(r, line, n, doc, &why);
            if (rc == NDD_ERR_FORMAT) {
                ndd_reader_reject_emit(r, ord, off, why);
                continue;
            }
            if (rc)
                return rc;
            doc->file_index = r->file_index;
            doc->ordinal = r->ranged ? UINT64_MAX : ord;
            doc->offset = off;
            r->nread++;
            return NDD_OK;
        }
    next_line:;
    }
}

/* ---- one whole file = one document ---- */

static int file_next(ndd_reader_t *r, ndd_doc_t *doc)
{
    ndd_rstream_t *s = &r->s;
    if (r->done)
        return NDD_ERR_EOF;
    r->done = 1;
    for (;;) {
        size_t a = ndd_rstream_avail(s);
        if (a > r->max_record) {
            ndd_reader_reject_emit(r, 0, 0, "document too large");
            return NDD_ERR_EOF;
        }
        int rc = ndd_rstream_fill(s, a + 1);
        if (rc == NDD_RS_OK)
            continue;
        if (rc == NDD_RS_EOF)
            break;
        if (rc == NDD_RS_BREAK) {
            ndd_reader_reject_emit(r, 0, 0, s->brk_reason);
            return NDD_ERR_EOF;
        }
        return rc;
    }
    const char *why = NULL;
    int rc = ndd_reader_payload(r, ndd_rstream_ptr(s), ndd_rstream_avail(s), r->format == NDD_FMT_HTML, NULL, 0,
                                doc, &why);
    if (rc == NDD_ERR_FORMAT) {
        ndd_reader_reject_emit(r, 0, 0, why);
        return NDD_ERR_EOF;
    }
    if (rc)
        return rc;
    doc->id = r->name;
    doc->url = "";
    doc->date = "";
    doc->file_index = r->file_index;
    doc->ordinal = 0;
    doc->offset = 0;
    r->nread++;
    return NDD_OK;
}

int ndd_reader_next(ndd_reader_t *r, ndd_doc_t *doc)
{
    if (!r || !doc)
        return NDD_ERR_INVAL;
    if (!r->s_open) {
        if (r->done)
            return NDD_ERR_EOF;
        r->done = 1;
        if (r->skip)
            snprintf(r->reason, sizeof r->reason, "%s", r->skip);
        else
            snprintf(r->reason, sizeof r->reason, "cannot open: %s",
                     r->open_errno > 0 ? strerror(r->open_errno) : "not a regular file");
        ndd_reader_reject_emit(r, UINT64_MAX, 0, r->reason);
        return NDD_ERR_EOF;
    }
    switch (r->format) {
    case NDD_FMT_JSONL:
        return jsonl_next(r, doc);
    case NDD_FMT_WARC:
        return ndd_reader_warc_next(r, doc);
    case NDD_FMT_TEXT:
    case NDD_FMT_HTML:
        return file_next(r, doc);
    default:
        return NDD_ERR_INVAL;
    }
}
