/* run_ckpt.c - stage checkpoints of 'ndd run' in a work directory:
 *
 *   DIR/manifest            options that decide the map stage, and the inputs
 *   DIR/map/shard-I.zst     map task I: documents (id, url, text, site, keys),
 *                           rejects, read counters (zstd, one frame)
 *   DIR/map/shard-I.done    "docs BYTES XXH64": written after the rename, so a
 *                           shard counts only when complete and intact
 *   DIR/verify/part-R.zst   rank R's verified rows (pairs, clusters, scores,
 *                           keyed by global document number) and counters
 *   DIR/verify/done         written by rank 0 once every part is complete
 *
 * Rows and documents are keyed by global document numbers, which do not
 * depend on the rank count, so a resumed run may use any number of ranks.
 * Local functions (no MPI). */
#include "run_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#define CKPT_MAGIC_SHARD 0x3144524148534444ull /* "DDSHARD1" */
#define CKPT_MAGIC_PART 0x3154524150444444ull  /* "DDDPART1" */

/* ---- small serialisation helpers ---- */

static int put64(ndd_buf_t *b, uint64_t v) { return ndd_buf_append(b, &v, sizeof v); }
static int put32(ndd_buf_t *b, uint32_t v) { return ndd_buf_append(b, &v, sizeof v); }
static int putstr(ndd_buf_t *b, const char *s, size_t n)
{
    int rc = put32(b, (uint32_t)n);
    return rc ? rc : ndd_buf_append(b, s, n);
}

typedef struct {
    const char *p, *end;
    int bad;
} cur_t;

static uint64_t get64(cur_t *c)
{
    uint64_t v = 0;
    if (c->end - c->p < 8) {
        c->bad = 1;
        return 0;
    }
    memcpy(&v, c->p, 8);
    c->p += 8;
    return v;
}

static uint32_t get32(cur_t *c)
{
    uint32_t v = 0;
    if (c->end - c->p < 4) {
        c->bad = 1;
        return 0;
    }
    memcpy(&v, c->p, 4);
    c->p += 4;
    return v;
}

static const char *getbytes(cur_t *c, size_t n)
{
    if ((size_t)(c->end - c->p) < n) {
        c->bad = 1;
        return NULL;
    }
    const char *s = c->p;
    c->p += n;
    return s;
}

static int path_of(char *buf, size_t cap, const char *wd, const char *fmt, int idx)
{
    char name[64];
    snprintf(name, sizeof name, fmt, idx);
    int n = snprintf(buf, cap, "%s/%s", wd, name);
    return n < 0 || (size_t)n >= cap ? NDD_ERR_INVAL : NDD_OK;
}

static int mkdirs(const char *wd, const char *sub)
{
    char p[4096];
    if (mkdir(wd, 0777) && errno != EEXIST)
        return NDD_ERR_IO;
    snprintf(p, sizeof p, "%s/%s", wd, sub);
    if (mkdir(p, 0777) && errno != EEXIST)
        return NDD_ERR_IO;
    return NDD_OK;
}

/* Compresses raw and writes it to path via path.tmp + rename, then the
 * marker file (when marker != NULL) with "count bytes xxh64". */
static int write_blob(const char *path, const char *marker, const ndd_buf_t *raw, uint64_t count)
{
    int rc = NDD_OK;
    char tmp[4200];
    size_t bound = ZSTD_compressBound(raw->len);
    char *z = malloc(bound ? bound : 1);
    if (!z)
        return NDD_ERR_NOMEM;
    size_t zn = ZSTD_compress(z, bound, raw->data ? raw->data : "", raw->len, 1);
    if (ZSTD_isError(zn)) {
        free(z);
        return NDD_ERR_COMPRESS;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(z, 1, zn, f) != zn || fflush(f) || fsync(fileno(f)))
        rc = NDD_ERR_IO;
    if (f && fclose(f))
        rc = NDD_ERR_IO;
    if (!rc && rename(tmp, path))
        rc = NDD_ERR_IO;
    if (!rc && marker) {
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", marker, (long)getpid());
        f = fopen(tmp, "w");
        if (!f || fprintf(f, "%llu %zu %016llx\n", (unsigned long long)count, zn,
                          (unsigned long long)XXH3_64bits(z, zn)) < 0)
            rc = NDD_ERR_IO;
        if (f && fclose(f))
            rc = NDD_ERR_IO;
        if (!rc && rename(tmp, marker))
            rc = NDD_ERR_IO;
    }
    free(z);
    return rc;
}

/* Reads and checks a blob against its marker; returns the decompressed bytes. */
static int read_blob(const char *path, const char *marker, ndd_buf_t *out, uint64_t *count)
{
    char *z = NULL, *m = NULL;
    size_t zn = 0, mn = 0;
    unsigned long long cnt = 0, hash = 0;
    size_t bytes = 0;
    int rc = NDD_OK;
    if (marker) {
        if ((rc = ndd_read_file(marker, 4096, &m, &mn)))
            return rc;
        if (sscanf(m, "%llu %zu %llx", &cnt, &bytes, &hash) != 3)
            rc = NDD_ERR_FORMAT;
        free(m);
        if (rc)
            return rc;
    }
    if ((rc = ndd_read_file(path, 0, &z, &zn)))
        return rc;
    if (marker && (zn != bytes || XXH3_64bits(z, zn) != hash)) {
        free(z);
        return NDD_ERR_FORMAT;
    }
    if (count)
        *count = cnt;
    if (!out) {
        free(z);
        return NDD_OK;
    }
    /* streaming decompression: the content size is in the frame, but do not trust it */
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    ndd_buf_clear(out);
    ZSTD_inBuffer in = {z, zn, 0};
    while (!rc && in.pos < in.size) {
        if ((rc = ndd_buf_reserve(out, 1 << 20)))
            break;
        ZSTD_outBuffer o = {out->data + out->len, out->cap - out->len - 1, 0};
        size_t ret = ZSTD_decompressStream(dc, &o, &in);
        if (ZSTD_isError(ret))
            rc = NDD_ERR_COMPRESS;
        out->len += o.pos;
        if (!ret && in.pos == in.size)
            break;
    }
    if (out->data)
        out->data[out->len] = '\0';
    ZSTD_freeDCtx(dc);
    free(z);
    return rc;
}

/* ---- manifest ---- */

int ndd_ckpt_manifest_write(const char *wd, const ndd_run_cfg_t *cfg, int nshards)
{
    char path[4096];
    int rc = mkdirs(wd, "map");
    if (!rc)
        rc = mkdirs(wd, "verify");
    if (rc)
        return rc;
    ndd_buf_t b = NDD_BUF_INIT;
    char line[512];
    snprintf(line, sizeof line,
             "ndd-work 1\nshards %d\nformat %d\nmax_doc_bytes %zu\nboilerplate %d\nsoft_wrap %d\n"
             "keep_title %d\nsig_m %u\nsig_n %u\nsig_k %u\nmin_sentence %zu\ncandidates %d\n",
             nshards, (int)cfg->format, cfg->text.max_bytes, cfg->text.boilerplate, cfg->text.soft_wrap,
             cfg->text.keep_title, cfg->sig.m, cfg->sig.n, cfg->sig.k, cfg->sig.min_sentence, cfg->candidates);
    ndd_buf_puts(&b, line);
    for (size_t i = 0; i < cfg->ninputs; i++) {
        if (strchr(cfg->inputs[i], '\n')) {
            ndd_buf_free(&b);
            return NDD_ERR_INVAL;
        }
        ndd_buf_puts(&b, "input ");
        ndd_buf_puts(&b, cfg->inputs[i]);
        ndd_buf_putc(&b, '\n');
    }
    snprintf(path, sizeof path, "%s/manifest", wd);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f || fwrite(b.data, 1, b.len, f) != b.len)
        rc = NDD_ERR_IO;
    if (f && fclose(f))
        rc = NDD_ERR_IO;
    if (!rc && rename(tmp, path))
        rc = NDD_ERR_IO;
    ndd_buf_free(&b);
    return rc;
}

typedef struct {
    char *text;
    char **inputs;
} manifest_store_t;

void ndd_ckpt_manifest_free(void *store)
{
    manifest_store_t *m = store;
    if (!m)
        return;
    free(m->text);
    free(m->inputs);
    free(m);
}

int ndd_ckpt_manifest_read(const char *wd, ndd_run_cfg_t *cfg, int *nshards, void **store)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest", wd);
    manifest_store_t *m = calloc(1, sizeof *m);
    size_t n;
    if (!m)
        return NDD_ERR_NOMEM;
    int rc = ndd_read_file(path, 1 << 24, &m->text, &n);
    if (rc) {
        free(m);
        return rc;
    }
    size_t lines = 1;
    for (size_t i = 0; i < n; i++)
        lines += m->text[i] == '\n';
    m->inputs = malloc(lines * sizeof *m->inputs);
    if (!m->inputs) {
        ndd_ckpt_manifest_free(m);
        return NDD_ERR_NOMEM;
    }
    size_t nin = 0;
    int version = 0, fmt = 0;
    *nshards = 0;
    for (char *line = m->text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = '\0';
        const char *v = sp + 1;
        if (!strcmp(line, "ndd-work")) version = atoi(v);
        else if (!strcmp(line, "shards")) *nshards = atoi(v);
        else if (!strcmp(line, "format")) fmt = atoi(v);
        else if (!strcmp(line, "max_doc_bytes")) cfg->text.max_bytes = (size_t)strtoull(v, NULL, 10);
        else if (!strcmp(line, "boilerplate")) cfg->text.boilerplate = atoi(v);
        else if (!strcmp(line, "soft_wrap")) cfg->text.soft_wrap = atoi(v);
        else if (!strcmp(line, "keep_title")) cfg->text.keep_title = atoi(v);
        else if (!strcmp(line, "sig_m")) cfg->sig.m = (unsigned)atoi(v);
        else if (!strcmp(line, "sig_n")) cfg->sig.n = (unsigned)atoi(v);
        else if (!strcmp(line, "sig_k")) cfg->sig.k = (unsigned)atoi(v);
        else if (!strcmp(line, "min_sentence")) cfg->sig.min_sentence = (size_t)strtoull(v, NULL, 10);
        else if (!strcmp(line, "candidates")) cfg->candidates = atoi(v);
        else if (!strcmp(line, "input")) m->inputs[nin++] = (char *)v;
    }
    if (version != 1 || *nshards < 1) {
        ndd_ckpt_manifest_free(m);
        return NDD_ERR_FORMAT;
    }
    cfg->format = (ndd_format_t)fmt;
    cfg->inputs = (const char *const *)m->inputs;
    cfg->ninputs = nin;
    *store = m;
    return NDD_OK;
}

/* ---- map shards ---- */

int ndd_ckpt_shard_write(const char *wd, int idx, const run_t *r)
{
    const docs_t *d = &r->d;
    char path[4200], marker[4200];
    ndd_buf_t b = NDD_BUF_INIT;
    int rc = mkdirs(wd, "map");
    if (!rc && !(rc = put64(&b, CKPT_MAGIC_SHARD)) && !(rc = put64(&b, d->n)))
        rc = ndd_buf_append(&b, &r->c, sizeof r->c);
    if (!rc)
        rc = putstr(&b, r->rejects.data ? r->rejects.data : "", r->rejects.len);
    for (size_t i = 0; i < d->n && !rc; i++) {
        const char *id = ndd_doc_id(r, i), *url = ndd_doc_url(r, i);
        uint64_t nk = d->key_off[i + 1] - d->key_off[i];
        if ((rc = putstr(&b, id, strlen(id))) || (rc = putstr(&b, url, strlen(url))) ||
            (rc = putstr(&b, d->texts.data + d->text_off[i], d->text_len[i])) || (rc = put32(&b, d->site[i])) ||
            (rc = put32(&b, d->urlh[i])) || (rc = put32(&b, d->weight[i])) || (rc = put32(&b, (uint32_t)nk)))
            break;
        rc = ndd_buf_append(&b, d->keys + d->key_off[i], nk * sizeof *d->keys);
    }
    if (!rc && !(rc = path_of(path, sizeof path, wd, "map/shard-%06d.zst", idx)) &&
        !(rc = path_of(marker, sizeof marker, wd, "map/shard-%06d.done", idx)))
        rc = write_blob(path, marker, &b, d->n);
    ndd_buf_free(&b);
    return rc;
}

int ndd_ckpt_shard_count(const char *wd, int idx, uint64_t *ndocs)
{
    char marker[4200];
    char *m;
    size_t n;
    unsigned long long cnt;
    int rc = path_of(marker, sizeof marker, wd, "map/shard-%06d.done", idx);
    if (!rc)
        rc = ndd_read_file(marker, 4096, &m, &n);
    if (rc)
        return rc;
    if (sscanf(m, "%llu", &cnt) != 1)
        rc = NDD_ERR_FORMAT;
    *ndocs = cnt;
    free(m);
    return rc;
}

int ndd_ckpt_shard_check(const char *wd, int idx, uint64_t *ndocs)
{
    char path[4200], marker[4200];
    int rc = path_of(path, sizeof path, wd, "map/shard-%06d.zst", idx);
    if (!rc)
        rc = path_of(marker, sizeof marker, wd, "map/shard-%06d.done", idx);
    if (!rc)
        rc = read_blob(path, marker, NULL, ndocs);
    return rc;
}

int ndd_ckpt_shard_load(const char *wd, int idx, run_t *r, uint64_t skip, uint64_t take, int with_meta)
{
    char path[4200], marker[4200];
    ndd_buf_t b = NDD_BUF_INIT;
    docs_t *d = &r->d;
    int rc = path_of(path, sizeof path, wd, "map/shard-%06d.zst", idx);
    if (!rc)
        rc = path_of(marker, sizeof marker, wd, "map/shard-%06d.done", idx);
    if (!rc)
        rc = read_blob(path, marker, &b, NULL);
    if (rc)
        goto out;
    cur_t c = {b.data, b.data + b.len, 0};
    uint64_t magic = get64(&c), n = get64(&c);
    counters_t cnt;
    const char *cp = getbytes(&c, sizeof cnt);
    uint32_t rl = get32(&c);
    const char *rej = getbytes(&c, rl);
    if (c.bad || magic != CKPT_MAGIC_SHARD) {
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    if (with_meta) {
        memcpy(&cnt, cp, sizeof cnt);
        for (size_t k = 0; k < NCOUNTERS; k++)
            ((uint64_t *)&r->c)[k] += ((const uint64_t *)&cnt)[k];
        if ((rc = ndd_buf_append(&r->rejects, rej, rl)))
            goto out;
    }
    if (!d->key_off && (rc = ndd_docs_reserve(d, 1)))
        goto out;
    if (d->n == 0)
        d->key_off[0] = 0;
    for (uint64_t i = 0; i < n && i < skip + take && !rc; i++) {
        uint32_t il = get32(&c);
        const char *id = getbytes(&c, il);
        uint32_t ul = get32(&c);
        const char *url = getbytes(&c, ul);
        uint32_t tl = get32(&c);
        const char *text = getbytes(&c, tl);
        uint32_t site = get32(&c), urlh = get32(&c), weight = get32(&c), nk = get32(&c);
        const char *keys = getbytes(&c, (size_t)nk * sizeof(uint64_t));
        if (c.bad) {
            rc = NDD_ERR_FORMAT;
            break;
        }
        if (i < skip)
            continue;
        size_t j = d->n;
        if ((rc = ndd_docs_reserve(d, j + 1)) ||
            (rc = ndd_array_grow((void **)&d->keys, &d->keys_cap, d->nkeys + nk, sizeof *d->keys)))
            break;
        memcpy(d->keys + d->nkeys, keys, (size_t)nk * sizeof(uint64_t));
        d->nkeys += nk;
        d->key_off[j + 1] = d->nkeys;
        d->id_off[j] = d->strs.len;
        if ((rc = ndd_buf_append(&d->strs, id, il)) || (rc = ndd_buf_putc(&d->strs, '\0')))
            break;
        d->url_off[j] = d->strs.len;
        if ((rc = ndd_buf_append(&d->strs, url, ul)) || (rc = ndd_buf_putc(&d->strs, '\0')))
            break;
        d->text_off[j] = d->texts.len;
        d->text_len[j] = tl;
        if ((rc = ndd_buf_append(&d->texts, text, tl)))
            break;
        d->site[j] = site;
        d->urlh[j] = (uint16_t)urlh;
        d->weight[j] = weight;
        d->n++;
    }
out:
    ndd_buf_free(&b);
    return rc;
}

/* ---- verify parts ---- */

static int cmp_top_desc(const void *a, const void *b)
{
    const topset_t *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->label < y->label ? -1 : x->label > y->label;
}

static int put_rows(ndd_buf_t *b, const ndd_buf_t *rows)
{
    int rc = put64(b, rows->len);
    return rc ? rc : ndd_buf_append(b, rows->data ? rows->data : "", rows->len);
}

int ndd_ckpt_verify_write(const char *wd, int idx, const run_t *r)
{
    char path[4200], marker[4200];
    ndd_buf_t b = NDD_BUF_INIT;
    counters_t cnt = r->c;
    /* the read counters live in the shards; keep only what this stage added */
    cnt.docs_read = cnt.rejected = cnt.no_text = cnt.no_sigs = cnt.input_bytes = cnt.text_bytes = 0;
    cnt.signatures = 0;
    int rc = mkdirs(wd, "verify");
    if (!rc && !(rc = put64(&b, CKPT_MAGIC_PART)))
        rc = ndd_buf_append(&b, &cnt, sizeof cnt);
    if (!rc && !(rc = put64(&b, r->ntop)))
        rc = ndd_buf_append(&b, r->top, sizeof r->top);
    if (!rc && !(rc = put_rows(&b, &r->pair_rows)) && !(rc = put_rows(&b, &r->cluster_rows)))
        rc = put_rows(&b, &r->score_rows);
    if (!rc && !(rc = path_of(path, sizeof path, wd, "verify/part-%06d.zst", idx)) &&
        !(rc = path_of(marker, sizeof marker, wd, "verify/part-%06d.done", idx)))
        rc = write_blob(path, marker, &b, 0);
    ndd_buf_free(&b);
    return rc;
}

int ndd_ckpt_verify_done_write(const char *wd, int nparts, const run_t *r)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/verify/done", wd);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int rc = NDD_OK;
    if (!f || fprintf(f, "%d %llu %zu\n", nparts, (unsigned long long)r->cc_rounds, r->ndropped) < 0)
        rc = NDD_ERR_IO;
    if (f && fclose(f))
        rc = NDD_ERR_IO;
    if (!rc && rename(tmp, path))
        rc = NDD_ERR_IO;
    return rc;
}

int ndd_ckpt_verify_done_read(const char *wd, int *nparts, run_t *r)
{
    char path[4200];
    char *s;
    size_t n;
    snprintf(path, sizeof path, "%s/verify/done", wd);
    int rc = ndd_read_file(path, 4096, &s, &n);
    if (rc)
        return rc;
    unsigned long long rounds = 0;
    size_t nd = 0;
    if (sscanf(s, "%d %llu %zu", nparts, &rounds, &nd) != 3 || *nparts < 1)
        rc = NDD_ERR_FORMAT;
    r->cc_rounds = rounds;
    free(s);
    return rc;
}

static int load_rows(cur_t *c, ndd_buf_t *dst, uint64_t lo, uint64_t hi)
{
    uint64_t len = get64(c);
    const char *p = getbytes(c, (size_t)len);
    if (c->bad)
        return NDD_ERR_FORMAT;
    const char *end = p + len;
    while (p < end) {
        uint64_t k1;
        uint32_t l;
        if (end - p < 20)
            return NDD_ERR_FORMAT;
        memcpy(&k1, p, 8);
        memcpy(&l, p + 16, 4);
        if ((size_t)(end - p) < 20 + (size_t)l)
            return NDD_ERR_FORMAT;
        if (k1 >= lo && k1 < hi) {
            int rc = ndd_buf_append(dst, p, 20 + (size_t)l);
            if (rc)
                return rc;
        }
        p += 20 + l;
    }
    return NDD_OK;
}

int ndd_ckpt_verify_load(const char *wd, int idx, run_t *r, uint64_t lo, uint64_t hi, int with_meta)
{
    char path[4200], marker[4200];
    ndd_buf_t b = NDD_BUF_INIT;
    int rc = path_of(path, sizeof path, wd, "verify/part-%06d.zst", idx);
    if (!rc)
        rc = path_of(marker, sizeof marker, wd, "verify/part-%06d.done", idx);
    if (!rc)
        rc = read_blob(path, marker, &b, NULL);
    if (rc)
        goto out;
    cur_t c = {b.data, b.data + b.len, 0};
    uint64_t magic = get64(&c);
    counters_t cnt;
    const char *cp = getbytes(&c, sizeof cnt);
    uint64_t ntop = get64(&c);
    const char *tp = getbytes(&c, sizeof r->top);
    if (c.bad || magic != CKPT_MAGIC_PART || ntop > TOP_N) {
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    if (with_meta) {
        memcpy(&cnt, cp, sizeof cnt);
        for (size_t k = 0; k < NCOUNTERS; k++)
            ((uint64_t *)&r->c)[k] += ((const uint64_t *)&cnt)[k];
        /* merge the part's largest sets into ours */
        topset_t all[2 * TOP_N];
        size_t na = 0;
        for (size_t k = 0; k < r->ntop; k++)
            all[na++] = r->top[k];
        memcpy(all + na, tp, (size_t)ntop * sizeof *all);
        na += (size_t)ntop;
        qsort(all, na, sizeof *all, cmp_top_desc);
        r->ntop = na < TOP_N ? na : TOP_N;
        memcpy(r->top, all, r->ntop * sizeof *all);
    }
    if (!(rc = load_rows(&c, &r->pair_rows, lo, hi)) && !(rc = load_rows(&c, &r->cluster_rows, lo, hi)))
        rc = load_rows(&c, &r->score_rows, lo, hi);
out:
    ndd_buf_free(&b);
    return rc;
}

/* ---- cleanup ---- */

static int rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st))
        return errno == ENOENT ? NDD_OK : NDD_ERR_IO;
    if (S_ISDIR(st.st_mode)) {
        DIR *dir = opendir(path);
        if (!dir)
            return NDD_ERR_IO;
        struct dirent *e;
        int rc = NDD_OK;
        while ((e = readdir(dir))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            if (rm_tree(sub))
                rc = NDD_ERR_IO;
        }
        closedir(dir);
        if (rmdir(path))
            rc = NDD_ERR_IO;
        return rc;
    }
    return unlink(path) ? NDD_ERR_IO : NDD_OK;
}

int ndd_ckpt_remove(const char *wd) { return rm_tree(wd); }
