/* ndd_reader.c - reader objects, JSONL records and whole-file text/HTML
 * documents. WARC/WET is in ndd_warc.c, body checks in ndd_payload.c,
 * decompression in ndd_rstream.c, input expansion in ndd_input.c. */
#include "ndd_reader_int.h"
#include "ndd_json.h"
#include "ndd_rsplit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
    rej.offset = ndd_reader_off(r, offset);
    rej.reason = reason;
    rej.url = r->rj_set && r->rj_url.len ? r->rj_url.data : NULL;
    rej.ctype = r->rj_set && r->rj_ct.len ? r->rj_ct.data : NULL;
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

uint64_t ndd_reader_off(const ndd_reader_t *r, uint64_t x)
{
    if (r->split != NDD_SPLIT_GZ_RECORDS || !r->s_open)
        return x;
    uint64_t comp, dec;
    ndd_rstream_unit_of(&r->s, x, &comp, &dec);
    return comp + (x - dec);
}

int ndd_reader_past_end(ndd_reader_t *r, uint64_t x)
{
    if (r->split < NDD_SPLIT_GZ_RECORDS)
        return 0;
    uint64_t comp, dec;
    ndd_rstream_unit_of(&r->s, x, &comp, &dec);
    ndd_rstream_keep(&r->s, x);
    if (comp < r->stop_comp)
        return 0;
    r->stopped = 1;
    return 1;
}

/* Opens the stream of r (again); a compressed split starts at its first member/frame. */
static int rd_stream_open(ndd_reader_t *r, size_t cap, size_t max)
{
    int rc = ndd_rstream_open(&r->s, r->path, cap, max);
    if (rc)
        return rc;
    r->s_open = 1;
    if (r->split >= NDD_SPLIT_GZ_RECORDS && r->s.comp == (r->split == NDD_SPLIT_GZ_RECORDS ? NDD_RS_GZIP : NDD_RS_ZSTD))
        rc = ndd_rstream_start_at(&r->s, r->s_comp0, r->s_dec0);
    return rc;
}

int ndd_reader_restream(ndd_reader_t *r, uint64_t off)
{
    ndd_rstream_t *s = &r->s;
    if (s->comp == NDD_RS_PLAIN)
        return ndd_rstream_seek(s, off);
    size_t cap = s->cap, max = s->max_cap;
    ndd_rstream_close(s);
    r->s_open = 0;
    int rc = rd_stream_open(r, cap, max);
    if (rc)
        return rc;
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

/* A compressed split: the first member/frame of [start, end) and the one
 * where the next range begins (ndd_rsplit.c). An empty range is stopped. */
static int rd_split_setup(ndd_reader_t *r, uint64_t start, uint64_t end)
{
    uint64_t a = 0, a_dec = 0, b = UINT64_MAX;
    int rc = NDD_OK, fd = open(r->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NDD_ERR_IO;
    if (r->split == NDD_SPLIT_GZ_RECORDS) {
        if (start > 0)
            rc = ndd_rsplit_gz_next(fd, r->file_size, start, &a);
        if (!rc && end < r->file_size)
            rc = ndd_rsplit_gz_next(fd, r->file_size, end, &b);
    } else if (start > 0 || end < r->file_size) {
        rc = ndd_rsplit_zst_walk(fd, r->file_size, start, end, &a, &a_dec, &b);
        if (start == 0)
            a = a_dec = 0;
    }
    close(fd);
    r->s_comp0 = a;
    r->s_dec0 = r->split == NDD_SPLIT_GZ_RECORDS ? 0 : a_dec;
    r->stop_comp = b;
    r->stopped = a == UINT64_MAX || a >= b;
    r->need_align = r->split == NDD_SPLIT_ZST_FRAMES && a > 0;
    return rc;
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
    int fmt_ok = in->format == (in->splittable == NDD_SPLIT_GZ_RECORDS ? NDD_FMT_WARC : NDD_FMT_JSONL);
    if (ranged && (!in->splittable || !fmt_ok))
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
    r->split = fmt_ok ? in->splittable : NDD_SPLIT_NONE;
    r->stop_comp = UINT64_MAX;
    r->on_reject = on_reject;
    r->user = user;
    r->max_record = NDD_READER_MAX_RECORD;
    ndd_fields_t dflt = {NULL, NULL, NULL, NULL, NULL};
    if ((rc = ndd_reader_set_fields(r, &dflt)))
        goto out;
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
    if (r->split >= NDD_SPLIT_GZ_RECORDS && (rc = rd_split_setup(r, start, end)))
        goto out;
    rc = r->stopped ? NDD_OK : rd_stream_open(r, cap, r->max_record + RD_SLACK);
    if (rc == NDD_ERR_IO) {
        r->open_errno = errno ? errno : EIO;
        rc = NDD_OK;
        goto out;
    }
    if (rc || r->stopped)
        goto out;
    if (r->split == NDD_SPLIT_BYTES && r->s.comp != NDD_RS_PLAIN && ranged)
        rc = NDD_ERR_INVAL; /* the input said splittable but the file is compressed */
    else if (r->split >= NDD_SPLIT_GZ_RECORDS &&
             r->s.comp != (r->split == NDD_SPLIT_GZ_RECORDS ? NDD_RS_GZIP : NDD_RS_ZSTD))
        rc = NDD_ERR_INVAL; /* the file changed since the input list was made */
    else if (r->need_align && r->split == NDD_SPLIT_BYTES)
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
    ndd_buf_free(&r->tbody);
    ndd_buf_free(&r->tmp1);
    ndd_buf_free(&r->tmp2);
    ndd_buf_free(&r->rj_url);
    ndd_buf_free(&r->rj_ct);
    for (int f = 0; f < 5; f++)
        free(r->fpath[f]);
    free(r->name);
    free(r->path);
    free(r);
}

/* ---- JSONL field paths ---- */

enum { F_ID, F_URL, F_TEXT, F_HTML, F_DATE, F_N };

int ndd_fields_check(const char *path)
{
    if (!path || !*path)
        return NDD_ERR_INVAL;
    int depth = 1;
    size_t comp = 0;
    for (const char *p = path;; p++) {
        if (*p == '.' || !*p) {
            if (comp == 0 || comp > 63)
                return NDD_ERR_INVAL;
            if (!*p)
                break;
            if (++depth > NDD_FIELD_MAX_DEPTH)
                return NDD_ERR_INVAL;
            comp = 0;
        } else {
            comp++;
        }
    }
    return NDD_OK;
}

/* Field f of r as path (NULL: disabled). */
static int field_set(ndd_reader_t *r, int f, const char *path)
{
    free(r->fpath[f]);
    r->fpath[f] = NULL;
    r->fdepth[f] = 0;
    if (!path)
        return NDD_OK;
    if (ndd_fields_check(path))
        return NDD_ERR_INVAL;
    if (!(r->fpath[f] = strdup(path)))
        return NDD_ERR_NOMEM;
    r->fdepth[f] = 1;
    for (char *p = r->fpath[f]; *p; p++)
        if (*p == '.') {
            *p = '\0';
            r->fdepth[f]++;
        }
    return NDD_OK;
}

int ndd_reader_set_fields(ndd_reader_t *r, const ndd_fields_t *fl)
{
    if (!r || !fl)
        return NDD_ERR_INVAL;
    const char *html = fl->html ? fl->html : fl->text ? NULL : "html";
    int rc = field_set(r, F_ID, fl->id ? fl->id : "id");
    if (!rc)
        rc = field_set(r, F_URL, fl->url ? fl->url : "url");
    if (!rc)
        rc = field_set(r, F_TEXT, fl->text ? fl->text : "text");
    if (!rc)
        rc = field_set(r, F_HTML, html);
    if (!rc)
        rc = field_set(r, F_DATE, fl->date);
    return rc;
}

uint64_t ndd_reader_nread(const ndd_reader_t *r) { return r ? r->nread : 0; }
uint64_t ndd_reader_nrejected(const ndd_reader_t *r) { return r ? r->nrej : 0; }

uint64_t ndd_reader_input_bytes(const ndd_reader_t *r)
{
    if (!r || r->skip || (!r->s_open && !r->stopped))
        return 0;
    if (r->split >= NDD_SPLIT_GZ_RECORDS) {
        uint64_t b = r->stop_comp < r->file_size ? r->stop_comp : r->file_size;
        return r->stopped && !r->s_open ? 0 : b > r->s_comp0 ? b - r->s_comp0 : 0;
    }
    uint64_t e = r->end < r->file_size ? r->end : r->file_size;
    return e > r->start ? e - r->start : 0;
}

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
        if (rc == NDD_RS_BREAK) /* after damage reading goes on at a line start (as a whole read) */
            return ndd_rstream_resume(s);
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

/* Follows the rest of field f's path (components 2..) down from the value
 * w holds (its first component's); w becomes the value found, or ABSENT. */
static int jsonl_descend(const ndd_reader_t *r, int f, ndd_json_want_t *w, const char **why)
{
    const char *comp = r->fpath[f];
    for (int d = 1; d < r->fdepth[f]; d++) {
        comp += strlen(comp) + 1;
        if (w->type != NDD_JSON_OBJECT) {
            w->type = NDD_JSON_ABSENT;
            return NDD_OK;
        }
        ndd_json_want_t sub = {comp, NDD_JSON_ABSENT, NULL, 0, NULL, 0};
        int rc = ndd_json_object_scan(w->p, w->n, &sub, 1, why);
        if (rc)
            return rc;
        *w = sub;
    }
    return NDD_OK;
}

/* One JSONL record; NDD_OK with doc filled or NDD_ERR_FORMAT with *why. */
/* A date written as a JSON number: seconds since 1970-01-01T00:00:00Z, or
 * milliseconds when above 10^11 (a seconds count that large is beyond the
 * year 5000), written out as RFC 3339 UTC (fractions dropped), which ndd
 * run's --keep and ndd flow read; a negative, non-finite or too large
 * number leaves the date empty (an undated document). */
static int date_from_number(const char *p, size_t n, ndd_buf_t *out)
{
    char num[64], txt[32];
    if (n >= sizeof num)
        return NDD_OK;
    memcpy(num, p, n);
    num[n] = '\0';
    double v = strtod(num, NULL);
    if (!(v >= 0) || v >= 1e15)
        return NDD_OK;
    if (v > 1e11)
        v /= 1000;
    time_t t = (time_t)v;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(txt, sizeof txt, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return NDD_OK;
    return ndd_buf_puts(out, txt);
}

static int jsonl_record(ndd_reader_t *r, const char *line, size_t n, ndd_doc_t *doc, const char **why)
{
    ndd_json_want_t w[F_N], want[F_N];
    int map[F_N], nwant = 0, rc;
    for (int f = 0; f < F_N; f++) {
        w[f].type = NDD_JSON_ABSENT;
        map[f] = -1;
        if (r->fdepth[f]) {
            want[nwant].key = r->fpath[f];
            /* the body's candidates, when they are top-level members, are
             * decoded as they are scanned (html into body, text into tbody) */
            want[nwant].decode = r->fdepth[f] != 1 ? NULL : f == F_HTML ? &r->body : f == F_TEXT ? &r->tbody : NULL;
            map[f] = nwant++;
        }
    }
    if ((rc = ndd_json_object_scan(line, n, want, (size_t)nwant, why)))
        return rc;
    for (int f = 0; f < F_N; f++)
        if (map[f] >= 0) {
            w[f] = want[map[f]];
            if ((rc = jsonl_descend(r, f, &w[f], why)))
                return rc;
        }
    /* id: string or number */
    if (w[F_ID].type == NDD_JSON_ABSENT || w[F_ID].type == NDD_JSON_NULL) {
        *why = "missing id";
        return NDD_ERR_FORMAT;
    }
    if (w[F_ID].type == NDD_JSON_STRING) {
        if ((rc = jsonl_str(r, &w[F_ID], &r->id, why)))
            return rc;
        if (r->id.len == 0) {
            *why = "missing id";
            return NDD_ERR_FORMAT;
        }
    } else if (w[F_ID].type == NDD_JSON_NUMBER) {
        ndd_buf_clear(&r->id);
        if ((rc = ndd_buf_append(&r->id, w[F_ID].p, w[F_ID].n)))
            return rc;
    } else {
        *why = "invalid id";
        return NDD_ERR_FORMAT;
    }
    /* body: the html field when it is given (not null), else the text field */
    const ndd_json_want_t *b = &w[F_HTML];
    int is_html = 1;
    if (b->type == NDD_JSON_ABSENT || b->type == NDD_JSON_NULL) {
        b = &w[F_TEXT];
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
    if (w[F_URL].type == NDD_JSON_STRING && (rc = jsonl_str(r, &w[F_URL], &r->url, why)))
        return rc;
    ndd_buf_clear(&r->date);
    if (w[F_DATE].type == NDD_JSON_STRING && (rc = jsonl_str(r, &w[F_DATE], &r->date, why)))
        return rc;
    if (w[F_DATE].type == NDD_JSON_NUMBER && (rc = date_from_number(w[F_DATE].p, w[F_DATE].n, &r->date)))
        return rc;
    /* the body as the scan decoded it (a top-level member), else decoded now */
    ndd_buf_t *body = is_html ? &r->body : &r->tbody;
    if (b->decoded < 0) {
        *why = "invalid JSON escape"; /* (what ndd_json_string_decode says of it) */
        return NDD_ERR_FORMAT;
    }
    if (!b->decoded && (rc = ndd_json_string_decode(b->p, b->n, body, why)))
        return rc;
    if ((rc = ndd_reader_payload(r, body->data, body->len, is_html, "utf-8", 5, doc, why)))
        return rc;
    doc->id = r->id.data;
    doc->url = r->url.data ? r->url.data : "";
    doc->date = r->date.data ? r->date.data : "";
    doc->raw = line;
    doc->raw_len = n;
    doc->raw_tail = "\n";
    doc->raw_tail_len = 1;
    doc->ctype = "";
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
        if (r->split == NDD_SPLIT_ZST_FRAMES ? off > 0 && ndd_reader_past_end(r, off - 1) : off >= r->end)
            return NDD_ERR_EOF; /* frames: a line goes with the frame of the '\n' before it */
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
    doc->raw = NULL;
    doc->raw_len = 0;
    doc->raw_tail = NULL;
    doc->raw_tail_len = 0;
    doc->ctype = "";
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
    if (r->stopped)
        return NDD_ERR_EOF;
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
