/* ndd_index.c - see ndd_index.h. */
#include "ndd_index.h"
#include "ndd_ckpt.h"
#include "ndd_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC_VERDS 0x5344524556444E4Eull /* "NNDVERDS" as LE bytes */
#define VERDS_VERSION 1
#define VERD_BYTES NDD_VERDICT_BYTES
#define IX_PATH 4096
#define IX_MAX_SHARDS 65536

/* ---- the manifest ---- */

static void batch_free(ndd_ixbatch_t *b)
{
    for (size_t i = 0; i < b->npins; i++)
        free(b->pins[i]);
    free(b->pins);
    memset(b, 0, sizeof *b);
}

void ndd_index_free(ndd_index_man_t *m)
{
    if (!m)
        return;
    for (size_t k = 0; k < m->nb; k++)
        batch_free(&m->b[k]);
    free(m->b);
    free(m->opts);
    memset(m, 0, sizeof *m);
}

int ndd_index_add(ndd_index_man_t *m, uint64_t docs, uint64_t files, int nshards, int nverdicts,
                  const char *const *pins, size_t npins)
{
    ndd_ixbatch_t *nb = realloc(m->b, (m->nb + 1) * sizeof *nb);
    if (!nb)
        return NDD_ERR_NOMEM;
    m->b = nb;
    ndd_ixbatch_t *b = &m->b[m->nb];
    memset(b, 0, sizeof *b);
    b->docs = docs;
    b->files = files;
    b->nshards = nshards;
    b->nverdicts = nverdicts;
    if (npins && !(b->pins = calloc(npins, sizeof *b->pins)))
        return NDD_ERR_NOMEM;
    m->nb++;
    for (size_t i = 0; i < npins; i++) {
        if (!(b->pins[i] = strdup(pins[i])))
            return NDD_ERR_NOMEM;
        b->npins++;
    }
    return NDD_OK;
}

uint64_t ndd_index_docs(const ndd_index_man_t *m, uint64_t *files)
{
    uint64_t n = 0, f = 0;
    for (size_t k = 0; k < m->nb; k++) {
        n += m->b[k].docs;
        f += m->b[k].files;
    }
    if (files)
        *files = f;
    return n;
}

int ndd_index_batch_dir(char *buf, size_t cap, const char *dir, size_t k)
{
    int n = snprintf(buf, cap, "%s/batch-%04zu", dir, k);
    return n < 0 || (size_t)n >= cap ? NDD_ERR_INVAL : NDD_OK;
}

int ndd_index_write(const char *dir, const ndd_index_man_t *m)
{
    char path[IX_PATH], line[160];
    ndd_buf_t b = NDD_BUF_INIT;
    int rc;
    snprintf(line, sizeof line, "ndd-index %d\n", NDD_INDEX_VERSION);
    NDD_TRY(ndd_buf_puts(&b, line));
    NDD_TRY(ndd_ckpt_put_line(&b, "opts", m->opts ? m->opts : ""));
    for (size_t k = 0; k < m->nb; k++) {
        const ndd_ixbatch_t *x = &m->b[k];
        snprintf(line, sizeof line, "batch %llu %llu %d %d\n", (unsigned long long)x->docs,
                 (unsigned long long)x->files, x->nshards, x->nverdicts);
        NDD_TRY(ndd_buf_puts(&b, line));
        for (size_t i = 0; i < x->npins; i++)
            NDD_TRY(ndd_ckpt_put_line(&b, "pin", x->pins[i]));
    }
    NDD_TRY(ndd_buf_puts(&b, "end\n"));
    if (snprintf(path, sizeof path, "%s/INDEX", dir) >= (int)sizeof path) {
        rc = NDD_ERR_INVAL;
        goto out;
    }
    rc = ndd_ckpt_write_atomic(path, b.data, b.len);
out:
    ndd_buf_free(&b);
    return rc;
}

/* One line (NUL-terminated, no newline) of the manifest into m; *end = 1 at "end". */
static int index_line(ndd_index_man_t *m, char *line, int *end)
{
    char *sp = strchr(line, ' ');
    const char *v = sp ? sp + 1 : "";
    if (sp)
        *sp = '\0';
    if (*end)
        return NDD_ERR_FORMAT; /* nothing after "end" */
    if (!strcmp(line, "end")) {
        *end = 1;
        return NDD_OK;
    }
    if (!strcmp(line, "opts")) {
        free(m->opts);
        return (m->opts = strdup(v)) ? NDD_OK : NDD_ERR_NOMEM;
    }
    if (!strcmp(line, "batch")) {
        unsigned long long docs, files;
        int ns, nv, used = 0;
        if (sscanf(v, "%llu %llu %d %d%n", &docs, &files, &ns, &nv, &used) != 4 || v[used] || ns < 1 ||
            ns > IX_MAX_SHARDS || nv < 0 || nv > IX_MAX_SHARDS)
            return NDD_ERR_FORMAT;
        return ndd_index_add(m, docs, files, ns, nv, NULL, 0);
    }
    if (!strcmp(line, "pin")) {
        if (!m->nb)
            return NDD_ERR_FORMAT;
        ndd_ixbatch_t *b = &m->b[m->nb - 1];
        char **np = realloc(b->pins, (b->npins + 1) * sizeof *np);
        if (!np)
            return NDD_ERR_NOMEM;
        b->pins = np;
        if (!(b->pins[b->npins] = strdup(v)))
            return NDD_ERR_NOMEM;
        b->npins++;
        return NDD_OK;
    }
    return NDD_ERR_FORMAT;
}

int ndd_index_read(const char *dir, ndd_index_man_t *m)
{
    char path[IX_PATH], *text = NULL;
    size_t n = 0;
    int rc, end = 0;
    memset(m, 0, sizeof *m);
    m->version = -1;
    if (snprintf(path, sizeof path, "%s/INDEX", dir) >= (int)sizeof path)
        return NDD_ERR_INVAL;
    errno = 0;
    NDD_TRY(ndd_read_file(path, 1 << 28, &text, &n));
    if (strlen(text) != n) { /* a NUL inside */
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    if (strncmp(text, "ndd-index ", 10)) {
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    m->version = atoi(text + 10);
    if (m->version < NDD_INDEX_VERSION_MIN || m->version > NDD_INDEX_VERSION) {
        rc = NDD_ERR_VERSION; /* never misread an index of another format */
        goto out;
    }
    char *line = strchr(text, '\n');
    for (line = line ? line + 1 : NULL; line && *line && !rc;) {
        char *next = strchr(line, '\n');
        if (!next) {
            rc = NDD_ERR_FORMAT; /* a cut last line */
            break;
        }
        *next = '\0';
        rc = index_line(m, line, &end);
        line = next + 1;
    }
    if (!rc && (!end || !m->opts))
        rc = NDD_ERR_FORMAT;
out:
    free(text);
    if (rc) {
        int version = m->version;
        ndd_index_free(m);
        m->version = version;
    }
    return rc;
}

int ndd_index_fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return NDD_ERR_IO;
    int rc = fsync(fd) ? NDD_ERR_IO : NDD_OK;
    close(fd);
    return rc;
}

int ndd_index_copy_file(const char *src, const char *dst)
{
    char buf[1 << 16];
    if (link(src, dst) == 0)
        return NDD_OK;
    if (errno == EEXIST || errno == ENOENT)
        return NDD_ERR_IO; /* never written over; a missing source or folder */
    int in = open(src, O_RDONLY | O_CLOEXEC), rc = NDD_OK;
    int out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (in < 0 || out < 0)
        rc = NDD_ERR_IO;
    while (!rc) {
        ssize_t got = read(in, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            rc = got < 0 ? NDD_ERR_IO : NDD_OK;
            break;
        }
        for (ssize_t off = 0; off < got && !rc;) {
            ssize_t w = write(out, buf + off, (size_t)(got - off));
            if (w < 0 && errno != EINTR)
                rc = NDD_ERR_IO;
            off += w > 0 ? w : 0;
        }
    }
    if (out >= 0 && ((!rc && fsync(out)) | close(out)))
        rc = NDD_ERR_IO;
    if (in >= 0)
        close(in);
    if (rc && out >= 0)
        unlink(dst);
    return rc;
}

/* ---- the verdict cache ---- */

int ndd_vcache_add(ndd_vcache_t *c, const ndd_verdict_t *v)
{
    free(c->slot);
    c->slot = NULL;
    c->nslot = 0;
    int rc = ndd_array_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v);
    if (rc)
        return rc;
    c->v[c->n++] = *v;
    return NDD_OK;
}

static int cmp_key(uint64_t a, uint64_t b, uint64_t ha, uint64_t hb, const ndd_verdict_t *y)
{
    if (a != y->a)
        return a < y->a ? -1 : 1;
    if (b != y->b)
        return b < y->b ? -1 : 1;
    if (ha != y->ha)
        return ha < y->ha ? -1 : 1;
    return hb < y->hb ? -1 : hb > y->hb;
}

/* (the hashes of texts are XXH3 values already: mixed with the numbers) */
static uint64_t key_hash(uint64_t a, uint64_t b, uint64_t ha, uint64_t hb)
{
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ ha ^ (hb * 0x165667B19E3779F9ull);
    return h ^ (h >> 29);
}

static int cmp_verdict(const void *p, const void *q)
{
    const ndd_verdict_t *x = p;
    return cmp_key(x->a, x->b, x->ha, x->hb, q);
}

void ndd_vcache_sort(ndd_vcache_t *c)
{
    if (c->n < 2)
        return;
    /* equal keys hold equal verdicts (the verifier is a function of the two texts) */
    ndd_qsort(c->v, c->n, sizeof *c->v, cmp_verdict);
    size_t w = 1;
    for (size_t i = 1; i < c->n; i++)
        if (cmp_verdict(&c->v[i], &c->v[w - 1]))
            c->v[w++] = c->v[i];
    c->n = w;
    /* the hash table: a binary search over 100,000 verdicts of 104 bytes
     * missed the cache at most of its 17 steps */
    free(c->slot);
    c->nslot = 0;
    size_t ns = 4;
    while (ns < 2 * c->n)
        ns *= 2;
    if (c->n >= UINT32_MAX || !(c->slot = calloc(ns, sizeof *c->slot)))
        return;
    c->nslot = ns;
    for (size_t i = 0; i < c->n; i++) {
        size_t s = (size_t)key_hash(c->v[i].a, c->v[i].b, c->v[i].ha, c->v[i].hb) & (ns - 1);
        while (c->slot[s])
            s = (s + 1) & (ns - 1);
        c->slot[s] = (uint32_t)i + 1;
    }
}

const ndd_verdict_t *ndd_vcache_find(const ndd_vcache_t *c, uint64_t a, uint64_t b, uint64_t ha, uint64_t hb)
{
    if (c->slot) { /* linear probing; the table is at most half full */
        for (size_t s = (size_t)key_hash(a, b, ha, hb) & (c->nslot - 1); c->slot[s]; s = (s + 1) & (c->nslot - 1))
            if (!cmp_key(a, b, ha, hb, &c->v[c->slot[s] - 1]))
                return &c->v[c->slot[s] - 1];
        return NULL;
    }
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = cmp_key(a, b, ha, hb, &c->v[mid]);
        if (!d)
            return &c->v[mid];
        if (d < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

void ndd_vcache_free(ndd_vcache_t *c)
{
    if (!c)
        return;
    free(c->v);
    free(c->slot);
    memset(c, 0, sizeof *c);
}

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

int ndd_verdict_put(ndd_buf_t *b, const ndd_verdict_t *v)
{
    const ndd_vres_t *r = &v->v;
    uint32_t fl = (uint32_t)((r->duplicate != 0) | (r->pruned_by_bound != 0) << 1 | (r->hit_cost_limit != 0) << 2 |
                             (r->formulaic != 0) << 3 | (r->sketched != 0) << 4 | (r->conceptual != 0) << 5);
    uint64_t w[10] = {v->a, v->b, v->ha, v->hb, f64_bits(r->resemblance), f64_bits(r->containment),
                      f64_bits(r->ncd), f64_bits(r->score), f64_bits(r->strain_away), r->tlcs};
    int rc = ndd_buf_reserve(b, VERD_BYTES);
    if (!rc)
        rc = ndd_put64s(b, w, 4);
    if (!rc)
        rc = ndd_put32(b, fl);
    return rc ? rc : ndd_put64s(b, w + 4, 6);
}

int ndd_verdict_get(const char *p, ndd_verdict_t *x)
{
    ndd_cur_t cur = {p, p + VERD_BYTES, 0};
    memset(x, 0, sizeof *x);
    x->a = ndd_get64(&cur);
    x->b = ndd_get64(&cur);
    x->ha = ndd_get64(&cur);
    x->hb = ndd_get64(&cur);
    uint32_t fl = ndd_get32(&cur);
    x->v.duplicate = fl & 1;
    x->v.pruned_by_bound = fl >> 1 & 1;
    x->v.hit_cost_limit = fl >> 2 & 1;
    x->v.formulaic = fl >> 3 & 1;
    x->v.sketched = fl >> 4 & 1;
    x->v.conceptual = fl >> 5 & 1;
    x->v.resemblance = bits_f64(ndd_get64(&cur));
    x->v.containment = bits_f64(ndd_get64(&cur));
    x->v.ncd = bits_f64(ndd_get64(&cur));
    x->v.score = bits_f64(ndd_get64(&cur));
    x->v.strain_away = bits_f64(ndd_get64(&cur));
    x->v.tlcs = ndd_get64(&cur);
    return cur.bad ? NDD_ERR_FORMAT : NDD_OK;
}

int ndd_vcache_write(const char *path, const char *marker, const ndd_verdict_t *v, size_t n)
{
    ndd_buf_t b = NDD_BUF_INIT;
    int rc = ndd_buf_reserve(&b, 20 + n * VERD_BYTES);
    if (!rc)
        rc = ndd_put64(&b, MAGIC_VERDS);
    if (!rc)
        rc = ndd_put32(&b, VERDS_VERSION);
    if (!rc)
        rc = ndd_put64(&b, n);
    for (size_t i = 0; i < n && !rc; i++)
        rc = ndd_verdict_put(&b, &v[i]);
    if (!rc)
        rc = ndd_ckpt_blob_write(path, marker, &b, n);
    ndd_buf_free(&b);
    return rc;
}

/* Opens the blob at path as a stream (marker checked, ndd_blob_open) and
 * takes its head (u64 magic, u32 version, u64 record count): NDD_ERR_FORMAT
 * for another magic or a short head, NDD_ERR_VERSION for another version.
 * On an error *s is closed (NULL). */
static int blob_head(const char *path, const char *marker, ndd_blob_stream_t **s, uint64_t magic, uint32_t version,
                     uint64_t *n)
{
    const char *p;
    size_t avail;
    int rc = ndd_blob_open(path, marker, s, NULL);
    if (rc)
        return rc;
    rc = ndd_blob_need(*s, 20, &p, &avail);
    if (!rc) {
        ndd_cur_t cur = {p, p + avail, 0};
        uint64_t mg = ndd_get64(&cur);
        uint32_t ver = ndd_get32(&cur);
        *n = ndd_get64(&cur);
        rc = cur.bad || mg != magic ? NDD_ERR_FORMAT : ver != version ? NDD_ERR_VERSION : NDD_OK;
        ndd_blob_take(*s, 20);
    }
    if (rc) {
        rc = ndd_blob_close(*s, rc, 0);
        *s = NULL;
    }
    return rc;
}

int ndd_vcache_load(const char *path, const char *marker, ndd_vcache_t *c)
{
    ndd_blob_stream_t *s = NULL;
    uint64_t n = 0;
    size_t n0 = c->n;
    int rc = blob_head(path, marker, &s, MAGIC_VERDS, VERDS_VERSION, &n);
    if (rc)
        return rc;
    /* room for the file's verdicts at once; its count is checked as they
     * come, so no more is trusted ahead than the file can plausibly hold (a
     * verdict's 84 bytes, two hashes and doubles, compress about 1.2:1) */
    uint64_t ahead = ndd_blob_file_bytes(s) / 32 + 64;
    rc = ndd_array_grow((void **)&c->v, &c->cap, c->n + (size_t)(n < ahead ? n : ahead), sizeof *c->v);
    for (uint64_t i = 0; i < n && !rc; i++) {
        const char *p;
        size_t avail;
        if ((rc = ndd_blob_need(s, VERD_BYTES, &p, &avail)))
            break;
        if (avail < VERD_BYTES) {
            rc = NDD_ERR_FORMAT;
            break;
        }
        ndd_verdict_t x;
        int bad = ndd_verdict_get(p, &x);
        ndd_blob_take(s, VERD_BYTES);
        rc = bad ? bad : ndd_vcache_add(c, &x);
    }
    rc = ndd_blob_close(s, rc, 1);
    if (rc) /* nothing of a damaged file stays */
        c->n = n0;
    return rc;
}

/* ---- tables by document number (the key and occurrence files) ---- */

/* Stores one record of document g (hash h, k items at p). */
typedef int (*rec_put_fn)(void *table, uint64_t g, uint64_t h, const char *p, uint32_t k);

/* Takes the n records of the blob s (after its head), each u64 g, with
 * hashed a u64 hash, u32 k, then k items of isize bytes, and hands those
 * with lo <= g < hi to put; closes s. *first: the first record's g
 * (UINT64_MAX when there is none). A file's records are in document order
 * (each rank writes its own documents in order): the walk stops at the
 * first g >= hi, and reads no further; a file in frames with a seek table
 * (records_write) is read from the frame that holds lo's records, its
 * records walked to the file's end then (the count is the table's frames',
 * not checked). NDD_ERR_FORMAT: a record cut short, g >= tn, k = UINT32_MAX,
 * a frame sought that does not start with its key's record, a seek table
 * that does not hold together, or bytes after the last record. */
static int walk_records(ndd_blob_stream_t *s, uint64_t n, int hashed, size_t isize, uint64_t tn, uint64_t lo,
                        uint64_t hi, rec_put_fn put, void *table, uint64_t *first)
{
    const size_t head = hashed ? 20 : 12;
    int rc = NDD_OK, past = 0, sought = 0;
    uint64_t at = UINT64_MAX;
    *first = UINT64_MAX;
    if (lo > 0 && n > 0 && (rc = ndd_blob_seek(s, lo, first, &at)) == NDD_OK)
        sought = at != UINT64_MAX;
    for (uint64_t i = 0; (sought || i < n) && !rc; i++) {
        const char *p;
        size_t avail;
        if ((rc = ndd_blob_need(s, head, &p, &avail)))
            break;
        if (sought && avail == 0)
            break; /* the end of the file */
        ndd_cur_t cur = {p, p + avail, 0};
        uint64_t g = ndd_get64(&cur), h = hashed ? ndd_get64(&cur) : 0;
        uint32_t k = ndd_get32(&cur);
        if (cur.bad || g >= tn || k == UINT32_MAX || (i == 0 && sought && g != at)) {
            rc = NDD_ERR_FORMAT;
            break;
        }
        if (i == 0 && !sought)
            *first = g;
        if (g >= hi) { /* (the rest is past the range too) */
            past = 1;
            break;
        }
        size_t bytes = head + (size_t)k * isize;
        if ((rc = ndd_blob_need(s, bytes, &p, &avail)))
            break;
        if (avail < bytes) {
            rc = NDD_ERR_FORMAT;
            break;
        }
        if (g >= lo) /* (a later record of g replaces an earlier one) */
            rc = put(table, g, h, p + head, k);
        ndd_blob_take(s, bytes);
    }
    /* (a damaged file's records may be in the table: the caller gives up) */
    return ndd_blob_close(s, rc, !past);
}

/* A key or occurrence file (records from byte `head` of b, each u64 g,
 * u32 k when fixed is 12 - or u64 g, u64 hash, u32 k when fixed is 20 -
 * then k items of isize bytes) written in frames of about
 * ndd_ckpt_shard_frame's bytes, each starting at a record, with a seek table
 * keyed by each frame's first g: a rank that reads a part of it from its own
 * documents on starts at their frame (walk_records). */
static int records_write(const char *path, const char *marker, const ndd_buf_t *b, uint64_t count, size_t head,
                         size_t fixed, size_t isize)
{
    uint64_t *cut = NULL, *key = NULL;
    size_t ncut = 0, ccap = 0, kcap = 0, frame = ndd_ckpt_frame_bytes(), last = 0;
    uint64_t gmax = 0;
    int rc = NDD_OK;
    for (size_t at = head; at + fixed <= b->len && !rc;) {
        uint64_t g = ndd_le64_load(b->data + at);
        uint32_t k = ndd_le32_load(b->data + at + fixed - 4);
        /* a frame starts at a record whose g is above every g before it, so
         * that the frames before the one a reader starts at hold no record
         * it wants (a file may repeat a document: the later record counts) */
        if (at == head || (at - last >= frame && g > gmax)) {
            if (!(rc = ndd_array_grow((void **)&cut, &ccap, ncut + 1, sizeof *cut)) &&
                !(rc = ndd_array_grow((void **)&key, &kcap, ncut + 1, sizeof *key))) {
                cut[ncut] = at;
                key[ncut++] = g;
                last = at;
            }
        }
        gmax = at == head || g > gmax ? g : gmax;
        at += fixed + (size_t)k * isize;
    }
    if (!rc)
        rc = ndd_ckpt_blob_write_framed(path, marker, b, count, cut, key, ncut);
    free(cut);
    free(key);
    return rc;
}

/* ---- the key table ---- */

#define MAGIC_KEYS 0x315359454B444E4Eull /* "NNDKEYS1" as LE bytes */
#define KEYS_VERSION 1
#define KEYS_HEAD 20

/* A table's index by document, for documents 0..n) (at least one entry):
 * off[n] and cnt[n], every cnt UINT32_MAX (not in the table). */
static int doc_index(uint64_t n, uint64_t **off, uint32_t **cnt)
{
    size_t m = n ? (size_t)n : 1;
    *off = malloc(m * sizeof **off);
    *cnt = malloc(m * sizeof **cnt);
    if (!*off || !*cnt)
        return NDD_ERR_NOMEM;
    memset(*cnt, 0xff, m * sizeof **cnt);
    return NDD_OK;
}

/* [lo, hi) clamped to a table of n documents. */
static void clamp_range(uint64_t n, uint64_t lo, uint64_t hi, uint64_t *tlo, uint64_t *thi)
{
    *tlo = lo < n ? lo : n;
    *thi = hi < n ? hi : n;
}

int ndd_keytab_init(ndd_keytab_t *t, uint64_t n)
{
    memset(t, 0, sizeof *t);
    t->hash = malloc((n ? (size_t)n : 1) * sizeof *t->hash);
    if (!t->hash || doc_index(n, &t->off, &t->cnt)) {
        ndd_keytab_free(t);
        return NDD_ERR_NOMEM;
    }
    t->n = t->hi = n;
    return NDD_OK;
}

void ndd_keytab_range(ndd_keytab_t *t, uint64_t lo, uint64_t hi) { clamp_range(t->n, lo, hi, &t->lo, &t->hi); }

void ndd_keytab_free(ndd_keytab_t *t)
{
    if (!t)
        return;
    free(t->hash);
    free(t->off);
    free(t->cnt);
    free(t->keys);
    memset(t, 0, sizeof *t);
}

static int keys_rec(void *table, uint64_t g, uint64_t h, const char *p, uint32_t k)
{
    ndd_keytab_t *t = table;
    int rc = ndd_array_grow((void **)&t->keys, &t->cap, t->nkeys + k + 1, sizeof *t->keys);
    if (rc)
        return rc;
    t->hash[g] = h;
    t->off[g] = t->nkeys;
    t->cnt[g] = k;
    ndd_load64s(t->keys + t->nkeys, p, k);
    t->nkeys += k;
    return NDD_OK;
}

int ndd_keytab_load(const char *path, const char *marker, ndd_keytab_t *t)
{
    ndd_blob_stream_t *s = NULL;
    uint64_t n = 0;
    int rc = blob_head(path, marker, &s, MAGIC_KEYS, KEYS_VERSION, &n);
    return rc ? rc : walk_records(s, n, 1, 8, t->n, t->lo, t->hi, keys_rec, t, &t->first);
}

const uint64_t *ndd_keytab_find(const ndd_keytab_t *t, uint64_t g, uint64_t hash, size_t *n)
{
    if (g >= t->n || t->cnt[g] == UINT32_MAX || t->hash[g] != hash)
        return NULL;
    *n = t->cnt[g];
    return t->keys ? t->keys + t->off[g] : (const uint64_t *)t; /* (no key at all: a valid, empty array) */
}

int ndd_keys_begin(ndd_buf_t *b)
{
    int rc = ndd_put64(b, MAGIC_KEYS);
    if (!rc)
        rc = ndd_put32(b, KEYS_VERSION);
    return rc ? rc : ndd_put64(b, 0);
}

int ndd_keys_put(ndd_buf_t *b, uint64_t g, uint64_t hash, const uint64_t *keys, size_t n)
{
    if (n >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    int rc = ndd_buf_reserve(b, 20 + n * 8);
    if (!rc)
        rc = ndd_put64(b, g);
    if (!rc)
        rc = ndd_put64(b, hash);
    if (!rc)
        rc = ndd_put32(b, (uint32_t)n);
    return rc ? rc : ndd_put64s(b, keys, n);
}

int ndd_keys_write(const char *path, const char *marker, ndd_buf_t *b, uint64_t count)
{
    if (b->len < KEYS_HEAD)
        return NDD_ERR_INVAL;
    ndd_le64_store(b->data + 12, count);
    return records_write(path, marker, b, count, KEYS_HEAD, 20, 8);
}

/* ---- the template occurrences ---- */

#define MAGIC_OCCS 0x315343434F444E4Eull /* "NNDOCCS1" as LE bytes */
#define OCCS_VERSION 1
#define OCCS_HEAD 20

int ndd_occtab_init(ndd_occtab_t *t, uint64_t n)
{
    memset(t, 0, sizeof *t);
    if (doc_index(n, &t->off, &t->cnt)) {
        ndd_occtab_free(t);
        return NDD_ERR_NOMEM;
    }
    t->n = t->hi = n;
    return NDD_OK;
}

void ndd_occtab_range(ndd_occtab_t *t, uint64_t lo, uint64_t hi) { clamp_range(t->n, lo, hi, &t->lo, &t->hi); }

void ndd_occtab_free(ndd_occtab_t *t)
{
    if (!t)
        return;
    free(t->off);
    free(t->cnt);
    free(t->v);
    memset(t, 0, sizeof *t);
}

static int occ_rec(void *table, uint64_t g, uint64_t h, const char *p, uint32_t k)
{
    ndd_occtab_t *t = table;
    (void)h;
    int rc = ndd_array_grow((void **)&t->v, &t->cap, t->nv + k + 1, sizeof *t->v);
    if (rc)
        return rc;
    t->off[g] = t->nv;
    t->cnt[g] = k;
    for (uint32_t j = 0; j < k; j++, p += NDD_TMPL_OCC_BYTES)
        t->v[t->nv++] = ndd_tmpl_occ_load(p);
    return NDD_OK;
}

int ndd_occtab_load(const char *path, const char *marker, ndd_occtab_t *t)
{
    ndd_blob_stream_t *s = NULL;
    uint64_t n = 0;
    int rc = blob_head(path, marker, &s, MAGIC_OCCS, OCCS_VERSION, &n);
    return rc ? rc : walk_records(s, n, 0, NDD_TMPL_OCC_BYTES, t->n, t->lo, t->hi, occ_rec, t, &t->first);
}

const ndd_tmpl_occ_t *ndd_occtab_find(const ndd_occtab_t *t, uint64_t g, size_t *n)
{
    if (g >= t->n || t->cnt[g] == UINT32_MAX)
        return NULL;
    *n = t->cnt[g];
    return t->v ? t->v + t->off[g] : (const ndd_tmpl_occ_t *)(const void *)t; /* (none: a valid, empty array) */
}

int ndd_occ_begin(ndd_buf_t *b)
{
    int rc = ndd_put64(b, MAGIC_OCCS);
    if (!rc)
        rc = ndd_put32(b, OCCS_VERSION);
    return rc ? rc : ndd_put64(b, 0);
}

int ndd_occ_put(ndd_buf_t *b, uint64_t g, const ndd_tmpl_occ_t *v, size_t n)
{
    if (n >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    int rc = ndd_buf_reserve(b, 12 + n * NDD_TMPL_OCC_BYTES);
    if (!rc)
        rc = ndd_put64(b, g);
    if (!rc)
        rc = ndd_put32(b, (uint32_t)n);
    for (size_t i = 0; i < n && !rc; i++) {
        char q[NDD_TMPL_OCC_BYTES];
        ndd_tmpl_occ_store(q, &v[i]);
        rc = ndd_buf_append(b, q, sizeof q);
    }
    return rc;
}

int ndd_occ_write(const char *path, const char *marker, ndd_buf_t *b, uint64_t count)
{
    if (b->len < OCCS_HEAD)
        return NDD_ERR_INVAL;
    ndd_le64_store(b->data + 12, count);
    return records_write(path, marker, b, count, OCCS_HEAD, 12, NDD_TMPL_OCC_BYTES);
}

/* ---- the index's links ---- */

#define MAGIC_LINKS 0x314B4E494C444E4Eull /* "NNDLINK1" as LE bytes */
#define LINKS_VERSION 1
#define LINKS_REST 80 /* after the 20-byte head: ndocs, 7 counters, ndropped, nfol */

int ndd_linkstate_write(const char *path, const char *marker, const ndd_linkstate_t *s)
{
    ndd_buf_t b = NDD_BUF_INIT;
    const ndd_list_counts_t *c = &s->counts;
    uint64_t head[10] = {s->ndocs,      c->keys,         c->single,        c->live,  c->drop_frequent,
                         c->drop_site,  c->drop_template, c->postings_dropped, s->ndropped, s->nfol};
    int rc = ndd_buf_reserve(&b, 20 + LINKS_REST + 8 * (s->ndropped + s->nfol) + 24 * s->nlinks);
    if (!rc)
        rc = ndd_put64(&b, MAGIC_LINKS);
    if (!rc)
        rc = ndd_put32(&b, LINKS_VERSION);
    if (!rc)
        rc = ndd_put64(&b, s->nlinks);
    if (!rc)
        rc = ndd_put64s(&b, head, 10);
    if (!rc)
        rc = ndd_put64s(&b, s->dropped, s->ndropped);
    if (!rc)
        rc = ndd_put64s(&b, s->fol, s->nfol);
    for (size_t i = 0; i < s->nlinks && !rc; i++) {
        uint64_t x[3] = {s->links[i].u, s->links[i].v, s->links[i].support};
        rc = ndd_put64s(&b, x, 3);
    }
    if (!rc)
        rc = ndd_ckpt_blob_write(path, marker, &b, s->nlinks);
    ndd_buf_free(&b);
    return rc;
}

/* n increasing u64 from the stream into *v (NDD_ERR_FORMAT: cut short or
 * not increasing); room for no more is taken ahead than the compressed
 * file's size in entries (a count is trusted only as the values come). */
static int load_increasing(ndd_blob_stream_t *s, uint64_t n, uint64_t **v)
{
    size_t cap = 0;
    uint64_t ahead = ndd_blob_file_bytes(s) + 1;
    int rc = ndd_array_grow((void **)v, &cap, (size_t)(n < ahead ? n : ahead) + 1, sizeof **v);
    for (uint64_t i = 0; i < n && !rc;) {
        const char *p;
        size_t avail;
        if ((rc = ndd_blob_need(s, 8, &p, &avail)))
            break;
        if (avail < 8)
            return NDD_ERR_FORMAT;
        size_t m = avail / 8 < n - i ? avail / 8 : (size_t)(n - i);
        if ((rc = ndd_array_grow((void **)v, &cap, (size_t)i + m, sizeof **v)))
            break;
        ndd_load64s(*v + i, p, m);
        ndd_blob_take(s, m * 8);
        for (size_t k = 0; k < m; k++, i++)
            if (i && (*v)[i] <= (*v)[i - 1])
                return NDD_ERR_FORMAT;
    }
    return rc;
}

int ndd_linkstate_load(const char *path, const char *marker, ndd_linkstate_t *st, int links)
{
    ndd_blob_stream_t *s = NULL;
    uint64_t n = 0, h[10];
    const char *p;
    size_t avail;
    memset(st, 0, sizeof *st);
    int rc = blob_head(path, marker, &s, MAGIC_LINKS, LINKS_VERSION, &n);
    if (rc)
        return rc;
    if (!(rc = ndd_blob_need(s, LINKS_REST, &p, &avail)) && avail < LINKS_REST)
        rc = NDD_ERR_FORMAT;
    if (!rc) {
        ndd_load64s(h, p, 10);
        ndd_blob_take(s, LINKS_REST);
        st->ndocs = h[0];
        st->counts = (ndd_list_counts_t){h[1], h[2], h[3], h[4], h[5], h[6], h[7]};
        st->nlinks = (size_t)n;
    }
    if (!rc && !(rc = load_increasing(s, h[8], &st->dropped)))
        st->ndropped = (size_t)h[8];
    if (!rc && !(rc = load_increasing(s, h[9], &st->fol)))
        st->nfol = (size_t)h[9];
    if (!rc && links) {
        size_t cap = 0;
        uint64_t ahead = ndd_blob_file_bytes(s) / 4 + 1; /* (links compress to about 4 bytes each; grown past) */
        rc = ndd_array_grow((void **)&st->links, &cap, (size_t)(n < ahead ? n : ahead) + 1, sizeof *st->links);
        for (uint64_t i = 0; i < n && !rc;) {
            if ((rc = ndd_blob_need(s, 24, &p, &avail)))
                break;
            if (avail < 24) {
                rc = NDD_ERR_FORMAT;
                break;
            }
            size_t m = avail / 24 < n - i ? avail / 24 : (size_t)(n - i);
            if ((rc = ndd_array_grow((void **)&st->links, &cap, (size_t)i + m, sizeof *st->links)))
                break;
            for (size_t k = 0; k < m && !rc; k++, i++) {
                uint64_t x[3];
                ndd_load64s(x, p + 24 * k, 3);
                ndd_link_t l = {x[0], x[1], x[2]}, *prev = i ? &st->links[i - 1] : NULL;
                if (l.u >= l.v || !l.support || l.support >> 63 ||
                    (prev && (prev->u > l.u || (prev->u == l.u && prev->v >= l.v))))
                    rc = NDD_ERR_FORMAT;
                st->links[i] = l;
            }
            ndd_blob_take(s, m * 24);
        }
    }
    rc = ndd_blob_close(s, rc, links);
    if (rc)
        ndd_linkstate_free(st);
    return rc;
}

void ndd_linkstate_free(ndd_linkstate_t *s)
{
    free(s->dropped);
    free(s->fol);
    free(s->links);
    memset(s, 0, sizeof *s);
}
