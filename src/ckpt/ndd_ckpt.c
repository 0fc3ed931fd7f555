/* ndd_ckpt.c - see ndd_ckpt.h. Blob layouts (before zstd), every integer
 * little-endian:
 *
 *   shard  u64 magic "NDDSHARD", u32 version, counters (ndd_counters_pack),
 *          u64 ndocs, u64 rejects length, rejects bytes, then per document:
 *          u32+bytes id, u32+bytes url, u32+bytes text, u32 site, u32 urlh,
 *          u32 weight, u32 nkeys, nkeys x u64 key
 *   part   u64 magic "NDDVPART", u32 version, counters, u32 ntop, per set:
 *          u64 size, u64 label, u32+bytes first_id; then pairs, clusters,
 *          scores: each u64 length + keyed records (ndd_rows.h)
 *
 * Each blob is written as one zstd frame to NAME.tmp.PID, flushed, fsynced,
 * closed and renamed; then its marker NAME.done "COUNT BYTES XXH3" likewise. */
#include "ndd_ckpt.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>
#include <zstd.h>

#include "ndd_rows.h"
#include "ndd_wire.h"

#define MAGIC_SHARD 0x445241485344444Eull /* "NDDSHARD" as LE bytes */
#define MAGIC_PART 0x545241505644444Eull  /* "NDDVPART" */
#define MAGIC_SHARD_V1 0x3144524148534444ull /* "DDSHARD1": format 1 (native layout) */
#define MAGIC_PART_V1 0x3154524150444444ull  /* "DDDPART1" */
#define HEAD_BYTES 12                        /* magic + version */
#define MAGIC_SEEK 0x314B454553444E4Eull     /* "NNDSEEK1": a shard's seek table */
#define SEEK_FRAME_MAGIC 0x184D2A5Eu         /* a zstd skippable frame (0x184D2A50..5F) */
#define SEEK_TAIL 16                         /* the table's last bytes: u64 k, u64 MAGIC_SEEK */
#define SHARD_FRAME_DEFAULT ((size_t)1 << 20) /* raw bytes of documents per frame of a map shard */

static size_t shard_frame = SHARD_FRAME_DEFAULT;

size_t ndd_ckpt_shard_frame(size_t bytes)
{
    size_t old = shard_frame;
    shard_frame = bytes ? bytes : SHARD_FRAME_DEFAULT;
    return old;
}

size_t ndd_ckpt_frame_bytes(void) { return shard_frame; }
#define PATH_CAP 4096

/* ---- files ---- */

static int path_of(char *buf, const char *wd, const char *fmt, int idx)
{
    char name[64];
    snprintf(name, sizeof name, fmt, idx);
    int n = snprintf(buf, PATH_CAP, "%s/%s", wd, name);
    return n < 0 || n >= PATH_CAP ? NDD_ERR_INVAL : NDD_OK;
}

static int mkdirs(const char *wd, const char *sub)
{
    char p[PATH_CAP];
    int n = snprintf(p, sizeof p, "%s/%s", wd, sub);
    if (n < 0 || n >= (int)sizeof p)
        return NDD_ERR_INVAL;
    if (mkdir(wd, 0777) && errno != EEXIST)
        return NDD_ERR_IO;
    if (mkdir(p, 0777) && errno != EEXIST)
        return NDD_ERR_IO;
    return NDD_OK;
}

/* Writes p[0..n) to path: path.tmp.PID, fflush, fsync, fclose (all
 * checked), rename. The temporary file is removed on failure. */
static int write_atomic(const char *path, const void *p, size_t n)
{
    char tmp[PATH_CAP + 32];
    int rc = NDD_OK;
    int len = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (len < 0 || len >= (int)sizeof tmp)
        return NDD_ERR_INVAL;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return NDD_ERR_IO;
    if ((n && fwrite(p, 1, n, f) != n) || fflush(f) || fsync(fileno(f)))
        rc = NDD_ERR_IO;
    if (fclose(f))
        rc = NDD_ERR_IO;
    if (!rc && rename(tmp, path))
        rc = NDD_ERR_IO;
    if (rc)
        unlink(tmp);
    return rc;
}

/* ---- a zstd frame written as it is produced (map shards, verify parts: no
 * serialised copy of the whole file in memory) ---- */
typedef struct {
    char tmp[PATH_CAP + 32];
    FILE *f;
    ZSTD_CCtx *cc;
    XXH3_state_t x;
    char *out;
    size_t ocap;
    uint64_t written; /* bytes written to the file so far */
    int mid;          /* a frame is open (a write that did not end it) */
    int rc;
} zwriter_t;

/* A whole frame up to this size is compressed in one call into a buffer that
 * holds it: streamed, zstd copies the input into its window and compresses
 * it as an external dictionary (about 10 % slower on a map shard). */
#define ZW_ONE_SHOT ((size_t)4 << 20)

static int zw_open(zwriter_t *w, const char *path)
{
    memset(w, 0, sizeof *w);
    int len = snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld", path, (long)getpid());
    if (len < 0 || len >= (int)sizeof w->tmp)
        return NDD_ERR_INVAL;
    w->ocap = ZSTD_CStreamOutSize();
    w->out = malloc(w->ocap);
    w->cc = ZSTD_createCCtx();
    if (!w->out || !w->cc) {
        free(w->out);
        ZSTD_freeCCtx(w->cc);
        return NDD_ERR_NOMEM;
    }
    ZSTD_CCtx_setParameter(w->cc, ZSTD_c_compressionLevel, 1);
    XXH3_64bits_reset(&w->x);
    if (!(w->f = fopen(w->tmp, "wb"))) {
        free(w->out);
        ZSTD_freeCCtx(w->cc);
        return NDD_ERR_IO;
    }
    return NDD_OK;
}

/* Compresses p[0..n); end = 1 ends the frame. */
static int zw_write(zwriter_t *w, const void *p, size_t n, int end)
{
    if (end && !w->mid && n <= ZW_ONE_SHOT) { /* a frame in one call (the same frame format) */
        size_t need = ZSTD_compressBound(n);
        if (need > w->ocap) {
            char *o = realloc(w->out, need);
            if (!o)
                return w->rc = NDD_ERR_NOMEM;
            w->out = o;
            w->ocap = need;
        }
        size_t z = ZSTD_compress2(w->cc, w->out, w->ocap, p ? p : "", n);
        if (ZSTD_isError(z))
            return w->rc = NDD_ERR_COMPRESS;
        if (z && fwrite(w->out, 1, z, w->f) != z)
            return w->rc = NDD_ERR_IO;
        XXH3_64bits_update(&w->x, w->out, z);
        w->written += z;
        return NDD_OK;
    }
    w->mid = !end;
    ZSTD_inBuffer in = {p ? p : "", n, 0};
    for (;;) {
        ZSTD_outBuffer o = {w->out, w->ocap, 0};
        size_t left = ZSTD_compressStream2(w->cc, &o, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left))
            return w->rc = NDD_ERR_COMPRESS;
        if (o.pos && fwrite(w->out, 1, o.pos, w->f) != o.pos)
            return w->rc = NDD_ERR_IO;
        XXH3_64bits_update(&w->x, w->out, o.pos);
        w->written += o.pos;
        if (end ? left == 0 : in.pos == in.size)
            break;
    }
    return NDD_OK;
}

/* Writes p[0..n) to the file as it is (between frames: a skippable frame). */
static int zw_raw(zwriter_t *w, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, w->f) != n)
        return w->rc = NDD_ERR_IO;
    XXH3_64bits_update(&w->x, p, n);
    w->written += n;
    return NDD_OK;
}

/* Compresses b (then cleared); end = 1 ends the frame. */
static int zw_put(zwriter_t *w, ndd_buf_t *b, int end)
{
    int rc = zw_write(w, b->data, b->len, end);
    if (!rc)
        ndd_buf_clear(b);
    return rc;
}

/* Ends the file (flush, fsync, rename; removed on any failure) and writes
 * the marker "count bytes xxh3" as write_blob does. Frees w. */
static int zw_close(zwriter_t *w, int rc, const char *path, const char *marker, uint64_t count)
{
    char line[96];
    long bytes = -1;
    if (!rc && (fflush(w->f) || fsync(fileno(w->f)) || (bytes = ftell(w->f)) < 0))
        rc = NDD_ERR_IO;
    if (fclose(w->f) && !rc)
        rc = NDD_ERR_IO;
    if (!rc && rename(w->tmp, path))
        rc = NDD_ERR_IO;
    if (rc)
        unlink(w->tmp);
    free(w->out);
    ZSTD_freeCCtx(w->cc);
    if (rc)
        return rc;
    int n = snprintf(line, sizeof line, "%llu %ld %016llx\n", (unsigned long long)count, bytes,
                     (unsigned long long)XXH3_64bits_digest(&w->x));
    return write_atomic(marker, line, (size_t)n);
}

/* Decompresses the frame z[0..zn) into out; limit > 0: stops after limit
 * bytes. NDD_ERR_FORMAT when the frame is incomplete or followed by more. */
static int inflate(const char *z, size_t zn, ndd_buf_t *out, size_t limit)
{
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    ZSTD_inBuffer in = {z, zn, 0};
    size_t ret = 1;
    int rc = dc ? NDD_OK : NDD_ERR_NOMEM;
    ndd_buf_clear(out);
    /* a frame written in one piece says its size: room for it at once (no
     * regrowth); a size it does not say, or an implausible one, is streamed */
    unsigned long long fcs = ZSTD_getFrameContentSize(z, zn);
    if (!rc && fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != ZSTD_CONTENTSIZE_ERROR && fcs <= (1ULL << 34) &&
        fcs < SIZE_MAX && (!limit || fcs < limit))
        rc = ndd_buf_reserve(out, (size_t)fcs + 1);
    while (!rc && (!limit || out->len < limit)) {
        if ((rc = ndd_buf_reserve(out, limit ? limit - out->len : (size_t)1 << 20)))
            break;
        size_t room = out->cap - out->len - 1;
        if (limit && room > limit - out->len)
            room = limit - out->len;
        ZSTD_outBuffer o = {out->data + out->len, room, 0};
        ret = ZSTD_decompressStream(dc, &o, &in);
        if (ZSTD_isError(ret)) {
            rc = NDD_ERR_COMPRESS;
            break;
        }
        out->len += o.pos;
        if (ret == 0 || (in.pos == in.size && o.pos < room))
            break; /* the frame ended, or the input did */
    }
    if (!rc && (!limit || out->len < limit) && (ret != 0 || in.pos != in.size))
        rc = NDD_ERR_FORMAT;
    if (out->data)
        out->data[out->len] = '\0';
    ZSTD_freeDCtx(dc);
    return rc;
}

/* A blob's marker "COUNT BYTES XXH3" (zw_close). */
static int read_marker(const char *marker, uint64_t *count, uint64_t *bytes, uint64_t *hash)
{
    char *m = NULL;
    size_t mn = 0;
    unsigned long long c = 0, b = 0, h = 0;
    int rc = ndd_read_file(marker, 4096, &m, &mn);
    if (!rc && sscanf(m, "%llu %llu %llx", &c, &b, &h) != 3)
        rc = NDD_ERR_FORMAT;
    free(m);
    *count = c;
    *bytes = b;
    *hash = h;
    return rc;
}

/* Reads path into *z (*zn bytes, caller frees) and checks it against its
 * marker (size and XXH3); *count = the marker's count. */
static int read_checked(const char *path, const char *marker, char **z, size_t *zn, uint64_t *count)
{
    uint64_t cnt = 0, bytes = 0, hash = 0;
    int rc;
    *z = NULL;
    NDD_TRY(read_marker(marker, &cnt, &bytes, &hash));
    NDD_TRY(ndd_read_file(path, 0, z, zn));
    if (*zn != bytes || XXH3_64bits(*z, *zn) != hash) {
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    if (count)
        *count = cnt;
out:
    if (rc) {
        free(*z);
        *z = NULL;
    }
    return rc;
}

/* read_checked, then with out: decompresses (at most limit bytes when > 0). */
static int read_blob(const char *path, const char *marker, ndd_buf_t *out, size_t limit, uint64_t *count)
{
    char *z = NULL;
    size_t zn = 0;
    int rc = read_checked(path, marker, &z, &zn, count);
    if (!rc && out)
        rc = inflate(z, zn, out, limit);
    free(z);
    return rc;
}

/* The blob head: magic and format version. */
static int get_head(ndd_cur_t *c, uint64_t magic, uint64_t magic_v1)
{
    uint64_t mg = ndd_get64(c);
    uint32_t ver = ndd_get32(c);
    if (c->bad)
        return NDD_ERR_FORMAT;
    if (mg == magic_v1)
        return NDD_ERR_VERSION;
    if (mg != magic)
        return NDD_ERR_FORMAT;
    return ver == NDD_CKPT_VERSION ? NDD_OK : NDD_ERR_VERSION;
}

/* Counters after the head: *c = them (c may be NULL to only check). */
static int get_counters(ndd_cur_t *cur, ndd_counters_t *c)
{
    ndd_counters_t tmp;
    size_t used = 0;
    int rc = ndd_counters_unpack(&tmp, cur->p, (size_t)(cur->end - cur->p), &used);
    if (rc)
        return rc;
    cur->p += used;
    if (c)
        *c = tmp;
    return NDD_OK;
}

/* ---- manifest ---- */

typedef struct {
    char *text;
    char **inputs;
    char **pins;
    char **opts;
} manifest_store_t;

int ndd_ckpt_put_line(ndd_buf_t *b, const char *key, const char *value)
{
    int rc;
    if (strchr(value, '\n'))
        return NDD_ERR_INVAL;
    if ((rc = ndd_buf_puts(b, key)) || (rc = ndd_buf_putc(b, ' ')) || (rc = ndd_buf_puts(b, value)))
        return rc;
    return ndd_buf_putc(b, '\n');
}

int ndd_ckpt_manifest_write(const char *wd, const ndd_manifest_t *m)
{
    char path[PATH_CAP], line[640];
    ndd_buf_t b = NDD_BUF_INIT;
    int rc;
    NDD_TRY(mkdirs(wd, "map"));
    NDD_TRY(mkdirs(wd, "verify"));
    snprintf(line, sizeof line,
             "ndd-work %d\nshards %d\nformat %d\nmax_doc_bytes %zu\nboilerplate %d\nsoft_wrap %d\n"
             "keep_title %d\ntemplates %d\nsig_m %u\nsig_n %u\nsig_k %u\nmin_sentence %zu\ncandidates %d\n",
             NDD_CKPT_VERSION, m->nshards, m->format, m->max_doc_bytes, m->boilerplate, m->soft_wrap, m->keep_title,
             m->templates,
             m->sig_m, m->sig_n, m->sig_k, m->min_sentence, m->candidates);
    NDD_TRY(ndd_buf_puts(&b, line));
    for (size_t i = 0; i < m->ninputs; i++)
        NDD_TRY(ndd_ckpt_put_line(&b, "input", m->inputs[i]));
    for (size_t i = 0; i < m->npins; i++)
        NDD_TRY(ndd_ckpt_put_line(&b, "pin", m->pins[i]));
    for (size_t i = 0; i < m->nopts; i++)
        NDD_TRY(ndd_ckpt_put_line(&b, "opt", m->opts[i]));
    if (snprintf(path, sizeof path, "%s/manifest", wd) >= (int)sizeof path) {
        rc = NDD_ERR_INVAL;
        goto out;
    }
    rc = write_atomic(path, b.data, b.len);
out:
    ndd_buf_free(&b);
    return rc;
}

void ndd_ckpt_manifest_free(ndd_manifest_t *m)
{
    if (!m || !m->store_)
        return;
    manifest_store_t *s = m->store_;
    free(s->text);
    free(s->inputs);
    free(s->pins);
    free(s->opts);
    free(s);
    m->store_ = NULL;
    m->opts = NULL;
    m->nopts = 0;
    m->inputs = NULL;
    m->ninputs = 0;
    m->pins = NULL;
    m->npins = 0;
}

/* One "key value" line of the manifest into m; *version for "ndd-work". */
static void manifest_line(ndd_manifest_t *m, const char *k, const char *v, int *version)
{
    if (!strcmp(k, "ndd-work")) *version = atoi(v);
    else if (!strcmp(k, "shards")) {
        long x = strtol(v, NULL, 10); /* clamped: a huge count is refused by the caller, never wrapped */
        m->nshards = x > NDD_CKPT_MAX_SHARDS ? NDD_CKPT_MAX_SHARDS + 1 : x < 0 ? 0 : (int)x;
    }
    else if (!strcmp(k, "format")) m->format = atoi(v);
    else if (!strcmp(k, "max_doc_bytes")) m->max_doc_bytes = (size_t)strtoull(v, NULL, 10);
    else if (!strcmp(k, "boilerplate")) m->boilerplate = atoi(v);
    else if (!strcmp(k, "soft_wrap")) m->soft_wrap = atoi(v);
    else if (!strcmp(k, "keep_title")) m->keep_title = atoi(v);
    else if (!strcmp(k, "templates")) m->templates = atoi(v);
    else if (!strcmp(k, "sig_m")) m->sig_m = (unsigned)atoi(v);
    else if (!strcmp(k, "sig_n")) m->sig_n = (unsigned)atoi(v);
    else if (!strcmp(k, "sig_k")) m->sig_k = (unsigned)atoi(v);
    else if (!strcmp(k, "min_sentence")) m->min_sentence = (size_t)strtoull(v, NULL, 10);
    else if (!strcmp(k, "candidates")) m->candidates = atoi(v);
}

const char *ndd_ckpt_manifest_opt(const ndd_manifest_t *m, const char *key)
{
    const char *v = NULL;
    size_t kn = strlen(key);
    for (size_t k = 0; k < m->nopts; k++)
        if (!strncmp(m->opts[k], key, kn) && m->opts[k][kn] == ' ')
            v = m->opts[k] + kn + 1;
    return v;
}

int ndd_ckpt_manifest_read(const char *wd, ndd_manifest_t *m)
{
    char path[PATH_CAP];
    size_t n = 0, nin = 0, npin = 0, nopt = 0, lines = 1;
    int version = -1, rc;
    manifest_store_t *s = calloc(1, sizeof *s);
    if (!s)
        return NDD_ERR_NOMEM;
    if (snprintf(path, sizeof path, "%s/manifest", wd) >= (int)sizeof path) {
        rc = NDD_ERR_INVAL;
        goto out;
    }
    NDD_TRY(ndd_read_file(path, 1 << 24, &s->text, &n));
    for (size_t i = 0; i < n; i++)
        lines += s->text[i] == '\n';
    if (!(s->inputs = malloc(lines * sizeof *s->inputs)) || !(s->pins = malloc(lines * sizeof *s->pins)) ||
        !(s->opts = malloc(lines * sizeof *s->opts))) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    m->nshards = 0;
    for (char *line = s->text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = '\0';
        if (!strcmp(line, "input"))
            s->inputs[nin++] = sp + 1;
        else if (!strcmp(line, "pin"))
            s->pins[npin++] = sp + 1;
        else if (!strcmp(line, "opt"))
            s->opts[nopt++] = sp + 1;
        else
            manifest_line(m, line, sp + 1, &version);
    }
    if (version < 0 || m->nshards < 1 || m->nshards > NDD_CKPT_MAX_SHARDS)
        rc = version >= 0 && version != NDD_CKPT_VERSION ? NDD_ERR_VERSION : NDD_ERR_FORMAT;
    else if (version != NDD_CKPT_VERSION)
        rc = NDD_ERR_VERSION; /* another ndd's work directory: never misread */
out:
    if (rc) {
        free(s->text);
        free(s->inputs);
        free(s->pins);
        free(s->opts);
        free(s);
        return rc;
    }
    m->inputs = (const char *const *)s->inputs;
    m->ninputs = nin;
    m->pins = (const char *const *)s->pins;
    m->npins = npin;
    m->opts = (const char *const *)s->opts;
    m->nopts = nopt;
    m->store_ = s;
    return NDD_OK;
}

/* ---- map shards ---- */

static int put_doc(ndd_buf_t *b, const ndd_docs_t *d, size_t i)
{
    const char *id = ndd_docs_id(d, i), *url = ndd_docs_url(d, i);
    uint64_t nk = d->key_off[i + 1] - d->key_off[i];
    int rc;
    if (nk > UINT32_MAX)
        return NDD_ERR_LIMIT;
    NDD_TRY(ndd_putstr(b, id, strlen(id)));
    NDD_TRY(ndd_putstr(b, url, strlen(url)));
    NDD_TRY(ndd_putstr(b, ndd_docs_text(d, i), d->text_len[i]));
    NDD_TRY(ndd_put32(b, d->site[i]));
    NDD_TRY(ndd_put32(b, d->urlh[i]));
    NDD_TRY(ndd_put32(b, d->weight[i]));
    NDD_TRY(ndd_put32(b, (uint32_t)nk));
    NDD_TRY(ndd_put64(b, d->date[i]));
    NDD_TRY(ndd_buf_reserve(b, nk * 8));
    for (uint64_t k = 0; k < nk; k++)
        NDD_TRY(ndd_put64(b, d->keys[d->key_off[i] + k]));
out:
    return rc;
}

/* The seek table, a zstd skippable frame at the end of a shard:
 *   u32 SEEK_FRAME_MAGIC, u32 content bytes (16 k + 16),
 *   k x (u64 offset of a document frame in the file, u64 its first document),
 *   u64 k, u64 MAGIC_SEEK
 * (its last 16 bytes are the file's: the reader finds it from the end).
 * entries: the k pairs, already in wire form. */
static int seek_table_write(zwriter_t *w, const ndd_buf_t *entries)
{
    char head[8], tail[16];
    uint64_t k = entries->len / 16;
    if (entries->len % 16 || k > (UINT32_MAX - 16) / 16)
        return NDD_ERR_LIMIT;
    ndd_le32_store(head, SEEK_FRAME_MAGIC);
    ndd_le32_store(head + 4, (uint32_t)(16 * k + 16));
    ndd_le64_store(tail, k);
    ndd_le64_store(tail + 8, MAGIC_SEEK);
    int rc = zw_raw(w, head, sizeof head);
    if (!rc)
        rc = zw_raw(w, entries->data, entries->len);
    return rc ? rc : zw_raw(w, tail, sizeof tail);
}

int ndd_ckpt_shard_write(const char *wd, int idx, const ndd_docs_t *d, const ndd_buf_t *rejects,
                         const ndd_counters_t *c)
{
    char path[PATH_CAP], marker[PATH_CAP];
    ndd_buf_t b = NDD_BUF_INIT, seek = NDD_BUF_INIT;
    ndd_counters_t rd = *c;
    zwriter_t w;
    int rc, opened = 0;
    ndd_counters_keep_stage(&rd, NDD_CST_READ);
    NDD_TRY(mkdirs(wd, "map"));
    NDD_TRY(path_of(path, wd, "map/shard-%06d.zst", idx));
    NDD_TRY(path_of(marker, wd, "map/shard-%06d.done", idx));
    NDD_TRY(zw_open(&w, path));
    opened = 1;
    NDD_TRY(ndd_put64(&b, MAGIC_SHARD));
    NDD_TRY(ndd_put32(&b, NDD_CKPT_VERSION));
    NDD_TRY(ndd_counters_pack(&rd, &b));
    NDD_TRY(ndd_put64(&b, d->n));
    NDD_TRY(ndd_put64(&b, rejects ? rejects->len : 0));
    if (rejects && rejects->len)
        NDD_TRY(ndd_buf_append(&b, rejects->data, rejects->len));
    /* the head and rejects are frame 0; the documents follow in frames of
     * about shard_frame bytes each (compressed as they come: the shard is
     * never held serialised), every frame starting at a document, and the
     * seek table (frame offset, first document) closes the file */
    NDD_TRY(zw_put(&w, &b, 1));
    NDD_TRY(ndd_put64(&seek, w.written));
    NDD_TRY(ndd_put64(&seek, 0));
    for (size_t i = 0; i < d->n; i++) {
        NDD_TRY(put_doc(&b, d, i));
        if (b.len >= shard_frame && i + 1 < d->n) {
            NDD_TRY(zw_put(&w, &b, 1));
            NDD_TRY(ndd_put64(&seek, w.written));
            NDD_TRY(ndd_put64(&seek, i + 1));
        }
    }
    NDD_TRY(zw_put(&w, &b, 1));
    rc = seek_table_write(&w, &seek);
out:
    if (opened)
        rc = zw_close(&w, rc, path, marker, d->n);
    ndd_buf_free(&b);
    ndd_buf_free(&seek);
    return rc;
}

int ndd_ckpt_shard_count(const char *wd, int idx, uint64_t *ndocs)
{
    char marker[PATH_CAP], *m = NULL;
    size_t n;
    unsigned long long cnt;
    int rc;
    NDD_TRY(path_of(marker, wd, "map/shard-%06d.done", idx));
    NDD_TRY(ndd_read_file(marker, 4096, &m, &n));
    if (sscanf(m, "%llu", &cnt) != 1)
        rc = NDD_ERR_FORMAT;
    else
        *ndocs = cnt;
out:
    free(m);
    return rc;
}

int ndd_ckpt_shard_check(const char *wd, int idx, uint64_t *ndocs)
{
    char path[PATH_CAP], marker[PATH_CAP];
    ndd_buf_t head = NDD_BUF_INIT;
    uint64_t cnt = 0;
    int rc;
    NDD_TRY(path_of(path, wd, "map/shard-%06d.zst", idx));
    NDD_TRY(path_of(marker, wd, "map/shard-%06d.done", idx));
    /* the whole file is checksummed; only its head is decompressed: magic,
     * version, counters (their schema) and the document count */
    NDD_TRY(read_blob(path, marker, &head, HEAD_BYTES + 12 + 8 * NDD_NCOUNTERS + 8, &cnt));
    ndd_cur_t c = {head.data, head.data + head.len, 0};
    NDD_TRY(get_head(&c, MAGIC_SHARD, MAGIC_SHARD_V1));
    NDD_TRY(get_counters(&c, NULL));
    if (ndd_get64(&c) != cnt || c.bad) {
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    *ndocs = cnt;
out:
    ndd_buf_free(&head);
    return rc;
}

/* One document of a shard: appended to d unless skip. keys is scratch. */
static int get_doc(ndd_cur_t *c, ndd_docs_t *d, int skip, uint64_t **keys, size_t *kcap)
{
    uint32_t il = ndd_get32(c);
    const char *id = ndd_getbytes(c, il);
    uint32_t ul = ndd_get32(c);
    const char *url = ndd_getbytes(c, ul);
    uint32_t tl = ndd_get32(c);
    const char *text = ndd_getbytes(c, tl);
    uint32_t site = ndd_get32(c), urlh = ndd_get32(c), weight = ndd_get32(c), nk = ndd_get32(c);
    uint64_t date = ndd_get64(c);
    const char *kp = ndd_getbytes(c, (size_t)nk * 8);
    int rc;
    if (c->bad || urlh > UINT16_MAX)
        return NDD_ERR_FORMAT;
    if (skip)
        return NDD_OK;
    if ((rc = ndd_array_grow((void **)keys, kcap, nk, sizeof **keys)))
        return rc;
    for (uint32_t k = 0; k < nk; k++)
        (*keys)[k] = ndd_le64_load(kp + 8 * (size_t)k);
    if ((rc = ndd_docs_add(d, id, il, url, ul, text, tl, site, (uint16_t)urlh, weight, *keys, nk)))
        return rc;
    ndd_docs_set_date(d, d->n - 1, date);
    return NDD_OK;
}

/* A blob read as a stream (shards, key, verdict and occurrence files): its
 * compressed file is read piece by piece into one reused buffer, its zstd
 * frame decompressed piece by piece after the bytes parsed so far are
 * dropped, so neither the file nor its contents are ever held whole (fresh
 * memory costs page faults, the slowest part of a load on some machines).
 * The file is checked against its marker (size and XXH3) in a first pass,
 * before any of it is parsed: a damaged file is NDD_ERR_FORMAT. The second
 * pass reads the same file through the descriptor opened for the first
 * (checkpoint files are replaced by rename, never written in place), and
 * stops where parsing stops (a rank that takes a shard's first documents
 * does not read the rest). */
#ifdef NDD_ZR_PIECE /* (the fuzzing build: small pieces, so that most inputs span several) */
#define ZR_PIECE ((size_t)NDD_ZR_PIECE)
#else
#define ZR_PIECE ((size_t)1 << 20)
#endif
struct ndd_blob_stream {
    ZSTD_DCtx *dc;
    int fd;
    char *zin; /* ZR_PIECE bytes of the compressed file */
    ZSTD_inBuffer in;
    uint64_t zleft; /* compressed bytes not read yet */
    uint64_t zsize; /* the file's size */
    ndd_buf_t buf;
    size_t pos;   /* buf[pos..len): decompressed, not parsed yet */
    int ended;    /* the frame ended (or its input did) */
    int complete; /* the frame ended: its input did not stop inside it */
};
typedef struct ndd_blob_stream zreader_t;

/* Reads the next piece of the compressed file into in (and into x's hash
 * when x is given: the first pass). */
static int zr_feed(zreader_t *r, XXH3_state_t *x)
{
    size_t want = r->zleft < ZR_PIECE ? (size_t)r->zleft : ZR_PIECE, got = 0;
    while (got < want) {
        ssize_t k = read(r->fd, r->zin + got, want - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? NDD_ERR_IO : NDD_ERR_FORMAT; /* shorter than its marker says */
        got += (size_t)k;
    }
    if (x)
        XXH3_64bits_update(x, r->zin, got);
    r->zleft -= got;
    r->in = (ZSTD_inBuffer){r->zin, got, 0};
    return NDD_OK;
}

/* Opens path, checked against marker "COUNT BYTES XXH3" (*count = COUNT;
 * may be NULL): a size that differs is NDD_ERR_FORMAT at once. */
static int zr_open(zreader_t *r, const char *path, const char *marker, uint64_t *count)
{
    uint64_t cnt = 0, bytes = 0, hash = 0;
    struct stat st;
    XXH3_state_t *x = NULL;
    int rc;
    memset(r, 0, sizeof *r);
    r->fd = -1;
    NDD_TRY(read_marker(marker, &cnt, &bytes, &hash));
    r->dc = ZSTD_createDCtx();
    r->zin = malloc(ZR_PIECE);
    x = XXH3_createState();
    if (!r->dc || !r->zin || !x) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    XXH3_64bits_reset(x);
    if ((r->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(r->fd, &st)) {
        rc = NDD_ERR_IO;
        goto out;
    }
    if ((uint64_t)st.st_size != bytes) {
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    /* the first pass checks the whole file (read through the same piece;
     * the second finds it in the page cache): nothing of a damaged file is
     * ever parsed */
    r->zleft = bytes;
    while (!rc && r->zleft)
        rc = zr_feed(r, x);
    if (!rc && XXH3_64bits_digest(x) != hash)
        rc = NDD_ERR_FORMAT;
    if (rc)
        goto out;
    if (lseek(r->fd, 0, SEEK_SET) != 0) {
        rc = NDD_ERR_IO;
        goto out;
    }
    r->in = (ZSTD_inBuffer){r->zin, 0, 0};
    r->zleft = r->zsize = bytes;
    if (count)
        *count = cnt;
out:
    XXH3_freeState(x);
    return rc;
}

/* Frees r's parts (after zr_open, whatever it returned); returns rc. */
static int zr_close(zreader_t *r, int rc)
{
    if (r->fd >= 0)
        close(r->fd);
    free(r->zin);
    ZSTD_freeDCtx(r->dc);
    ndd_buf_free(&r->buf);
    memset(r, 0, sizeof *r);
    r->fd = -1;
    return rc;
}

/* Decompresses at least one more byte (a piece, or more when what is not
 * parsed yet is larger, so a long record doubles the piece). NDD_ERR_FORMAT
 * when nothing more comes: the frame ended, or its input ended inside it. */
static int zr_more(zreader_t *r)
{
    if (r->ended)
        return NDD_ERR_FORMAT;
    size_t left = r->buf.len - r->pos;
    if (r->pos) {
        memmove(r->buf.data, r->buf.data + r->pos, left);
        r->buf.len = left;
        r->pos = 0;
    }
    size_t want = left < ZR_PIECE ? ZR_PIECE : left;
    int rc = ndd_buf_reserve(&r->buf, want);
    if (rc)
        return rc;
    ZSTD_outBuffer o = {r->buf.data + r->buf.len, want, 0};
    while (o.pos < o.size) {
        if (r->in.pos == r->in.size && r->zleft && (rc = zr_feed(r, NULL)))
            return rc;
        size_t before_in = r->in.pos, before_out = o.pos;
        size_t ret = ZSTD_decompressStream(r->dc, &o, &r->in);
        if (ZSTD_isError(ret))
            return NDD_ERR_COMPRESS;
        /* a frame that ends before the file does is followed by the next
         * one (a map shard is a sequence of frames, its skippable seek table
         * last, which zstd passes over); the file's end after a whole frame
         * completes the stream, inside a frame (no progress) cuts it */
        if (r->in.pos == r->in.size && !r->zleft && (ret == 0 || (r->in.pos == before_in && o.pos == before_out))) {
            r->ended = 1;
            r->complete = ret == 0;
            break;
        }
        if (ret == 0 && o.pos)
            break; /* a frame ended: the next one is decompressed when it is needed (a seek may skip it) */
    }
    r->buf.len += o.pos;
    r->buf.data[r->buf.len] = '\0';
    return o.pos ? NDD_OK : NDD_ERR_FORMAT;
}

/* Goes on decompressing from byte off of the file (the start of a frame),
 * dropping what was decompressed and not parsed. */
static int zr_seek(zreader_t *r, uint64_t off)
{
    if (off > r->zsize || lseek(r->fd, (off_t)off, SEEK_SET) != (off_t)off)
        return NDD_ERR_FORMAT;
    if (ZSTD_isError(ZSTD_DCtx_reset(r->dc, ZSTD_reset_session_only)))
        return NDD_ERR_COMPRESS;
    r->in = (ZSTD_inBuffer){r->zin, 0, 0};
    r->zleft = r->zsize - off;
    ndd_buf_clear(&r->buf);
    r->pos = 0;
    r->ended = r->complete = 0;
    return NDD_OK;
}

/* The seek table at the end of a file (the file was checked against its
 * marker), read whole: *k entries (u64 frame offset, u64 key), in wire form
 * at *e (malloc'd; NULL, *k = 0 when the file has none: one frame, as ndd
 * wrote every blob before the tables). NDD_ERR_FORMAT when the table does not
 * hold together: its frame's magic or size, or entries that are not frames
 * after the head in order with keys increasing up to max_key. */
static int zr_seek_table(zreader_t *r, uint64_t max_key, char **e, uint64_t *k)
{
    char tail[SEEK_TAIL];
    *e = NULL;
    *k = 0;
    if (r->zsize < 8 + SEEK_TAIL)
        return NDD_OK;
    if (pread(r->fd, tail, SEEK_TAIL, (off_t)(r->zsize - SEEK_TAIL)) != SEEK_TAIL)
        return NDD_ERR_IO;
    uint64_t m = ndd_le64_load(tail);
    if (ndd_le64_load(tail + 8) != MAGIC_SEEK)
        return NDD_OK; /* no table */
    if (m == 0 || m > (r->zsize - 8 - SEEK_TAIL) / 16)
        return NDD_ERR_FORMAT;
    uint64_t start = r->zsize - SEEK_TAIL - 16 * m - 8;
    char *t = malloc((size_t)(16 * m + 8));
    if (!t)
        return NDD_ERR_NOMEM;
    int rc = pread(r->fd, t, (size_t)(16 * m + 8), (off_t)start) == (ssize_t)(16 * m + 8) ? NDD_OK : NDD_ERR_IO;
    if (!rc && (ndd_le32_load(t) != SEEK_FRAME_MAGIC || ndd_le32_load(t + 4) != 16 * m + SEEK_TAIL))
        rc = NDD_ERR_FORMAT;
    for (uint64_t i = 0; i < m && !rc; i++) {
        uint64_t eo = ndd_le64_load(t + 8 + 16 * i), ek = ndd_le64_load(t + 16 + 16 * i);
        uint64_t po = i ? ndd_le64_load(t + 16 * i - 8) : 0, pk = i ? ndd_le64_load(t + 16 * i) : 0;
        if (eo == 0 || eo >= start || ek > max_key || (i && (eo <= po || ek <= pk)))
            rc = NDD_ERR_FORMAT;
    }
    if (rc) {
        free(t);
        return rc;
    }
    memmove(t, t + 8, (size_t)(16 * m));
    *e = t;
    *k = m;
    return NDD_OK;
}

/* Of a table's k entries (keys increasing), the last one whose key is at
 * most key (0 when none is). */
static uint64_t seek_entry(const char *e, uint64_t k, uint64_t key)
{
    uint64_t lo = 0, hi = k;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ndd_le64_load(e + 8 + 16 * mid) <= key)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ndd_blob_seek, with the table's keys at most max_key. */
static int zr_seek_key(zreader_t *r, uint64_t key, uint64_t max_key, uint64_t *first_key, uint64_t *at)
{
    char *e = NULL;
    uint64_t k = 0;
    int rc = zr_seek_table(r, max_key, &e, &k);
    *first_key = *at = UINT64_MAX;
    if (!rc && k) {
        uint64_t i = seek_entry(e, k, key);
        *first_key = ndd_le64_load(e + 8);
        if (ndd_le64_load(e + 16 * i + 8) <= key) {
            *at = ndd_le64_load(e + 16 * i + 8);
            rc = zr_seek(r, ndd_le64_load(e + 16 * i));
        }
    }
    free(e);
    return rc;
}

/* Makes at least n bytes not parsed yet available (or all there are). */
static int zr_need(zreader_t *r, size_t n)
{
    int rc = NDD_OK;
    while (!rc && r->buf.len - r->pos < n && !r->ended)
        rc = zr_more(r);
    return rc == NDD_ERR_FORMAT && r->ended ? NDD_OK : rc;
}

static ndd_cur_t zr_cur(const zreader_t *r) { return (ndd_cur_t){r->buf.data + r->pos, r->buf.data + r->buf.len, 0}; }

int ndd_blob_open(const char *path, const char *marker, ndd_blob_stream_t **s, uint64_t *count)
{
    zreader_t *r = malloc(sizeof *r);
    int rc = r ? zr_open(r, path, marker, count) : NDD_ERR_NOMEM;
    if (rc && r) {
        zr_close(r, rc);
        free(r);
        r = NULL;
    }
    *s = r;
    return rc;
}

int ndd_blob_need(ndd_blob_stream_t *s, size_t n, const char **p, size_t *avail)
{
    int rc = zr_need(s, n);
    *p = s->buf.data ? s->buf.data + s->pos : "";
    *avail = s->buf.len - s->pos;
    return rc;
}

uint64_t ndd_blob_file_bytes(const ndd_blob_stream_t *s) { return s->zsize; }

void ndd_blob_take(ndd_blob_stream_t *s, size_t n) { s->pos += n <= s->buf.len - s->pos ? n : s->buf.len - s->pos; }

int ndd_blob_close(ndd_blob_stream_t *s, int rc, int whole)
{
    if (!s)
        return rc;
    if (!rc && whole) { /* nothing may follow what was taken, and the frame is whole */
        rc = zr_need(s, 1);
        if (!rc && (s->pos != s->buf.len || !s->complete))
            rc = NDD_ERR_FORMAT;
    }
    rc = zr_close(s, rc);
    free(s);
    return rc;
}

/* The next document (get_doc), with more bytes decompressed while it does
 * not fit in those there are. */
static int zr_doc(zreader_t *r, ndd_docs_t *d, int skip, uint64_t **keys, size_t *kcap)
{
    for (;;) {
        ndd_cur_t cur = zr_cur(r);
        int rc = get_doc(&cur, d, skip, keys, kcap);
        if (!rc) {
            r->pos = (size_t)(cur.p - r->buf.data);
            return NDD_OK;
        }
        if (!cur.bad || r->ended)
            return rc;
        if ((rc = zr_more(r)))
            return rc;
    }
}

int ndd_ckpt_shard_load(const char *wd, int idx, ndd_docs_t *d, ndd_buf_t *rejects, ndd_counters_t *c,
                        uint64_t skip, uint64_t take, int with_meta)
{
    char path[PATH_CAP], marker[PATH_CAP];
    zreader_t zr;
    ndd_counters_t cnt;
    uint64_t *keys = NULL, count = 0;
    size_t kcap = 0;
    int rc;
    if ((rc = path_of(path, wd, "map/shard-%06d.zst", idx)) || (rc = path_of(marker, wd, "map/shard-%06d.done", idx)))
        return rc;
    NDD_TRY(zr_open(&zr, path, marker, &count));
    /* head: magic, version, counters, document count, rejects' length */
    NDD_TRY(zr_need(&zr, HEAD_BYTES + 12 + 8 * NDD_NCOUNTERS + 16));
    ndd_cur_t cur = zr_cur(&zr);
    NDD_TRY(get_head(&cur, MAGIC_SHARD, MAGIC_SHARD_V1));
    NDD_TRY(get_counters(&cur, &cnt));
    uint64_t n = ndd_get64(&cur), rl = ndd_get64(&cur);
    if (cur.bad || n != count || rl > SIZE_MAX / 2) {
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    zr.pos = (size_t)(cur.p - zr.buf.data);
    NDD_TRY(zr_need(&zr, (size_t)rl));
    cur = zr_cur(&zr);
    const char *rej = ndd_getbytes(&cur, (size_t)rl);
    if (!rej) {
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    if (with_meta) {
        ndd_counters_add(c, &cnt);
        NDD_TRY(ndd_buf_append(rejects, rej, (size_t)rl));
    }
    zr.pos = (size_t)(cur.p - zr.buf.data);
    uint64_t first = skip < n ? skip : n, last = first + (take < n - first ? take : n - first), at = 0;
    if (last > first)
        NDD_TRY(ndd_docs_reserve(d, d->n + (size_t)(last - first)));
    /* documents before `first`: the frames wholly before it are passed over
     * (a rank reads about its own range of a shard, not all that precedes it) */
    if (first > 0 && last > first) {
        uint64_t first_key;
        NDD_TRY(zr_seek_key(&zr, first, n, &first_key, &at));
        if (first_key != UINT64_MAX && first_key != 0) { /* a shard's first document frame starts at document 0 */
            rc = NDD_ERR_FORMAT;
            goto out;
        }
        at = at == UINT64_MAX ? 0 : at;
    }
    for (uint64_t i = at; i < last; i++)
        NDD_TRY(zr_doc(&zr, d, i < first, &keys, &kcap));
    if (last == n) { /* all read: nothing may follow the last document, the frame is whole */
        NDD_TRY(zr_need(&zr, 1));
        if (zr.pos != zr.buf.len || !zr.complete)
            rc = NDD_ERR_FORMAT;
    }
out:
    free(keys);
    return zr_close(&zr, rc);
}

/* ---- verify parts ---- */

int ndd_ckpt_verify_write(const char *wd, int idx, const ndd_counters_t *c, const ndd_topsets_t *top,
                          const ndd_buf_t rows[3])
{
    char path[PATH_CAP], marker[PATH_CAP];
    ndd_buf_t b = NDD_BUF_INIT;
    ndd_counters_t red = *c;
    ndd_topsets_t none = {0};
    zwriter_t w;
    int rc, opened = 0;
    /* the read counters live in the shards: keep what this stage added */
    ndd_counters_keep_stage(&red, NDD_CST_REDUCE);
    NDD_TRY(mkdirs(wd, "verify"));
    NDD_TRY(ndd_put64(&b, MAGIC_PART));
    NDD_TRY(ndd_put32(&b, NDD_CKPT_VERSION));
    NDD_TRY(ndd_counters_pack(&red, &b));
    NDD_TRY(ndd_topsets_pack(top ? top : &none, &b));
    NDD_TRY(path_of(path, wd, "verify/part-%06d.zst", idx));
    NDD_TRY(path_of(marker, wd, "verify/part-%06d.done", idx));
    NDD_TRY(zw_open(&w, path));
    opened = 1;
    /* the rows streamed from their buffers: never held twice */
    for (int r = 0; r < 3 && !rc; r++) {
        if (!(rc = ndd_put64(&b, rows[r].len)) && !(rc = zw_put(&w, &b, 0)))
            rc = zw_write(&w, rows[r].data, rows[r].len, 0);
    }
    if (!rc)
        rc = zw_put(&w, &b, 1);
out:
    if (opened)
        rc = zw_close(&w, rc, path, marker, 0);
    ndd_buf_free(&b);
    return rc;
}

int ndd_ckpt_verify_done_write(const char *wd, int nparts, uint64_t cc_rounds)
{
    char path[PATH_CAP], line[96];
    if (snprintf(path, sizeof path, "%s/verify/done", wd) >= (int)sizeof path)
        return NDD_ERR_INVAL;
    int n = snprintf(line, sizeof line, "ndd-verify %d %d %llu\n", NDD_CKPT_VERSION, nparts,
                     (unsigned long long)cc_rounds);
    return write_atomic(path, line, (size_t)n);
}

int ndd_ckpt_verify_done_read(const char *wd, int *nparts, uint64_t *cc_rounds)
{
    char path[PATH_CAP], *s = NULL;
    size_t n;
    int ver = 0, parts = 0, rc;
    unsigned long long rounds = 0, nd;
    if (snprintf(path, sizeof path, "%s/verify/done", wd) >= (int)sizeof path)
        return NDD_ERR_INVAL;
    NDD_TRY(ndd_read_file(path, 4096, &s, &n));
    if (sscanf(s, "ndd-verify %d %d %llu", &ver, &parts, &rounds) == 3)
        rc = ver != NDD_CKPT_VERSION ? NDD_ERR_VERSION : parts < 1 ? NDD_ERR_FORMAT : NDD_OK;
    else /* format 1 wrote "NPARTS ROUNDS NDROPPED" */
        rc = sscanf(s, "%d %llu %llu", &parts, &rounds, &nd) == 3 ? NDD_ERR_VERSION : NDD_ERR_FORMAT;
    if (!rc) {
        *nparts = parts;
        *cc_rounds = rounds;
    }
out:
    free(s);
    return rc;
}

int ndd_ckpt_verify_load(const char *wd, int idx, ndd_counters_t *c, ndd_topsets_t *top, ndd_buf_t rows[3],
                         uint64_t lo, uint64_t hi, int with_meta)
{
    char path[PATH_CAP], marker[PATH_CAP];
    ndd_buf_t b = NDD_BUF_INIT;
    ndd_counters_t cnt;
    ndd_topset_t tv[NDD_TOP_N];
    size_t nt = 0;
    int rc;
    NDD_TRY(path_of(path, wd, "verify/part-%06d.zst", idx));
    NDD_TRY(path_of(marker, wd, "verify/part-%06d.done", idx));
    NDD_TRY(read_blob(path, marker, &b, 0, NULL));
    ndd_cur_t cur = {b.data, b.data + b.len, 0};
    NDD_TRY(get_head(&cur, MAGIC_PART, MAGIC_PART_V1));
    NDD_TRY(get_counters(&cur, &cnt));
    NDD_TRY(ndd_topsets_unpack(&cur, tv, &nt));
    for (int r = 0; r < 3; r++) {
        uint64_t len = ndd_get64(&cur);
        const char *p = cur.bad || len > (uint64_t)(cur.end - cur.p) ? NULL : ndd_getbytes(&cur, (size_t)len);
        if (!p) {
            rc = NDD_ERR_FORMAT;
            goto out;
        }
        NDD_TRY(ndd_rows_filter(&rows[r], p, (size_t)len, lo, hi));
    }
    if (cur.p != cur.end) {
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    if (with_meta) {
        ndd_counters_add(c, &cnt);
        ndd_topsets_merge(top, tv, nt);
    }
out:
    ndd_buf_free(&b);
    return rc;
}

/* ---- the directory ---- */

int ndd_ckpt_exists(const char *wd)
{
    char path[PATH_CAP];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/manifest", wd) >= (int)sizeof path)
        return 0;
    return stat(path, &st) == 0;
}

/* Walks the tree at path depth first (symbolic links not followed): fn on
 * every entry, a directory after its contents. */
typedef int (*tree_fn)(const char *path, const struct stat *st, void *user);
static int tree_walk(const char *path, tree_fn fn, void *user)
{
    struct stat st;
    if (lstat(path, &st))
        return errno == ENOENT ? NDD_OK : NDD_ERR_IO;
    int rc = NDD_OK;
    if (S_ISDIR(st.st_mode)) {
        DIR *dir = opendir(path);
        if (!dir)
            return NDD_ERR_IO;
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[PATH_CAP];
            int n = snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            if (n < 0 || n >= (int)sizeof sub || tree_walk(sub, fn, user))
                rc = NDD_ERR_IO;
        }
        closedir(dir);
    }
    return fn(path, &st, user) ? NDD_ERR_IO : rc;
}

static int rm_entry(const char *path, const struct stat *st, void *user)
{
    (void)user;
    return S_ISDIR(st->st_mode) ? rmdir(path) : unlink(path);
}

int ndd_ckpt_remove(const char *wd) { return tree_walk(wd, rm_entry, NULL); }

/* Removes path when it is there; 1 when it was. */
static int rm_if(const char *wd, const char *fmt, int idx)
{
    char path[PATH_CAP];
    return !path_of(path, wd, fmt, idx) && !unlink(path);
}

void ndd_ckpt_remove_share(const char *wd, int first, int step, int nshards)
{
    if (first < 0 || step < 1)
        return;
    for (int i = first; i < nshards; i += step) {
        rm_if(wd, "map/shard-%06d.done", i); /* the marker first: never a marker without its file */
        rm_if(wd, "map/shard-%06d.zst", i);
        if (i > INT_MAX - step)
            break;
    }
    for (int i = first;; i += step) { /* the parts first, first + step, ... up to the first missing one */
        int marker = rm_if(wd, "verify/part-%06d.done", i);
        if (!(rm_if(wd, "verify/part-%06d.zst", i) | marker) || i > INT_MAX - step)
            break;
    }
}

static int use_entry(const char *path, const struct stat *st, void *user)
{
    uint64_t *u = user;
    (void)path;
    if (S_ISREG(st->st_mode)) {
        u[0] += (uint64_t)st->st_size;
        u[1]++;
    }
    return 0;
}

int ndd_ckpt_disk_use(const char *wd, uint64_t *bytes, uint64_t *files)
{
    uint64_t u[2] = {0, 0};
    int rc = access(wd, F_OK) ? NDD_ERR_IO : tree_walk(wd, use_entry, u);
    *bytes += u[0];
    *files += u[1];
    return rc;
}

/* ---- the blob and atomic-file helpers for other checkpoint files (the
 * index, src/ckpt/ndd_index.c) ---- */

int ndd_ckpt_write_atomic(const char *path, const void *p, size_t n) { return write_atomic(path, p, n); }

int ndd_ckpt_blob_write(const char *path, const char *marker, const ndd_buf_t *raw, uint64_t count)
{
    zwriter_t w; /* streamed as the map shards are; raw is left as it is */
    int rc = zw_open(&w, path);
    if (rc)
        return rc;
    return zw_close(&w, zw_write(&w, raw->data, raw->len, 1), path, marker, count);
}

int ndd_ckpt_blob_write_framed(const char *path, const char *marker, const ndd_buf_t *raw, uint64_t count,
                               const uint64_t *cut, const uint64_t *key, size_t ncut)
{
    for (size_t i = 0; i < ncut; i++)
        if (cut[i] == 0 || cut[i] > raw->len || (i && (cut[i] <= cut[i - 1] || key[i] <= key[i - 1])))
            return NDD_ERR_INVAL;
    zwriter_t w;
    ndd_buf_t seek = NDD_BUF_INIT;
    int rc = zw_open(&w, path);
    if (rc)
        return rc;
    for (size_t i = 0; i <= ncut && !rc; i++) { /* frame i: [cut[i - 1], cut[i]) (0 and the end outside) */
        size_t a = i ? (size_t)cut[i - 1] : 0, b = i < ncut ? (size_t)cut[i] : raw->len;
        if (i && (rc = ndd_put64(&seek, w.written)) == NDD_OK)
            rc = ndd_put64(&seek, key[i - 1]);
        if (!rc)
            rc = zw_write(&w, raw->data + a, b - a, 1);
    }
    if (!rc && ncut)
        rc = seek_table_write(&w, &seek);
    ndd_buf_free(&seek);
    return zw_close(&w, rc, path, marker, count);
}

int ndd_blob_seek(ndd_blob_stream_t *s, uint64_t key, uint64_t *first_key, uint64_t *at)
{
    return zr_seek_key(s, key, UINT64_MAX, first_key, at);
}
