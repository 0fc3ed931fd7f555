/* test_ckpt.c - src/ckpt: manifest, map shards and verified parts round trip
 * in a temporary work directory; skip/take and the key-range filter of rows;
 * a flipped byte, a cut file or a wrong marker is detected; a checkpoint of
 * another format version (or of a build with other counters) is refused with
 * NDD_ERR_VERSION. */
#include "ndd_test.h"
#include "ndd_ckpt.h"
#include "ndd_rows.h"
#include "ndd_wire.h"

#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>


static char wd[64];

static int setup(void **state)
{
    (void)state;
    snprintf(wd, sizeof wd, "/tmp/ndd-test-ckpt-XXXXXX");
    return mkdtemp(wd) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return ndd_ckpt_remove(wd) == NDD_OK ? 0 : -1;
}

static void sub(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", wd, name); }

static void put_file(const char *name, const void *p, size_t n)
{
    char path[256];
    sub(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static char *get_file(const char *name, size_t *n)
{
    char path[256], *p = NULL;
    sub(path, sizeof path, name);
    assert_int_equal(ndd_read_file(path, 0, &p, n), NDD_OK);
    return p;
}

/* The raw (decompressed) blob of a checkpoint file (frames written
 * streamed: their sizes are not in their headers; a map shard has several,
 * and its seek table, a skippable frame, adds nothing). */
static char *raw_of(const char *name, size_t *n)
{
    size_t zn, cap = 1 << 16, len = 0, left = 1;
    char *z = get_file(name, &zn), *raw = malloc(cap);
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    ZSTD_inBuffer in = {z, zn, 0};
    while (left || in.pos < in.size) {
        if (len == cap)
            raw = realloc(raw, cap *= 2);
        ZSTD_outBuffer out = {raw + len, cap - len, 0};
        left = ZSTD_decompressStream(dc, &out, &in);
        assert_false(ZSTD_isError(left));
        len += out.pos;
        assert_true(left == 0 || out.pos > 0 || in.pos < in.size);
    }
    assert_int_equal(in.pos, zn);
    ZSTD_freeDCtx(dc);
    free(z);
    *n = len;
    return raw;
}

/* Writes raw as checkpoint file name with a valid marker (count). */
static void put_blob(const char *name, const char *marker, const char *raw, size_t n, uint64_t count)
{
    size_t bound = ZSTD_compressBound(n);
    char *z = malloc(bound), line[96];
    size_t zn = ZSTD_compress(z, bound, raw, n, 1);
    assert_false(ZSTD_isError(zn));
    put_file(name, z, zn);
    int l = snprintf(line, sizeof line, "%llu %zu %016llx\n", (unsigned long long)count, zn,
                     (unsigned long long)XXH3_64bits(z, zn));
    put_file(marker, line, (size_t)l);
    free(z);
}

/* ---- manifest ---- */

static void test_manifest(void **state)
{
    (void)state;
    const char *inputs[] = {"/data/a.jsonl", "/data/b c.warc.gz", "rel/dir"};
    const char *pins[] = {"123 1700000000000000001 00000000deadbeef /data/a.jsonl", "skip rel/dir/loop"};
    const char *opts[] = {"field.url metadata.url", "field.id doc id"};
    ndd_manifest_t m = {7, 2, 10240, 1, 0, 1, 1, 8, 2, 3, 16, 4, inputs, 3, pins, 2, opts, 2, NULL}, r;
    assert_false(ndd_ckpt_exists(wd));
    assert_int_equal(ndd_ckpt_manifest_read(wd, &r), NDD_ERR_IO);
    assert_int_equal(ndd_ckpt_manifest_write(wd, &m), NDD_OK);
    assert_true(ndd_ckpt_exists(wd));
    size_t n;
    char *text = get_file("manifest", &n);
    assert_string_equal(text, "ndd-work 4\nshards 7\nformat 2\nmax_doc_bytes 10240\nboilerplate 1\nsoft_wrap 0\n"
                              "keep_title 1\ntemplates 1\nsig_m 8\nsig_n 2\nsig_k 3\nmin_sentence 16\ncandidates 4\n"
                              "input /data/a.jsonl\ninput /data/b c.warc.gz\ninput rel/dir\n"
                              "pin 123 1700000000000000001 00000000deadbeef /data/a.jsonl\npin skip rel/dir/loop\n"
                              "opt field.url metadata.url\nopt field.id doc id\n");
    memset(&r, 0, sizeof r);
    assert_int_equal(ndd_ckpt_manifest_read(wd, &r), NDD_OK);
    assert_int_equal(r.nshards, 7);
    assert_int_equal(r.format, 2);
    assert_int_equal(r.max_doc_bytes, 10240);
    assert_true(r.boilerplate == 1 && r.soft_wrap == 0 && r.keep_title == 1);
    assert_true(r.sig_m == 8 && r.sig_n == 2 && r.sig_k == 3 && r.min_sentence == 16 && r.candidates == 4);
    assert_int_equal(r.ninputs, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(r.inputs[i], inputs[i]);
    assert_int_equal(r.npins, 2);
    for (size_t i = 0; i < 2; i++)
        assert_string_equal(r.pins[i], pins[i]);
    assert_int_equal(r.nopts, 2);
    for (size_t i = 0; i < 2; i++)
        assert_string_equal(r.opts[i], opts[i]);
    ndd_ckpt_manifest_free(&r);
    assert_null(r.inputs);
    assert_null(r.pins);
    ndd_ckpt_manifest_free(&r);
    ndd_ckpt_manifest_free(NULL);

    /* another format version is refused, a malformed manifest too */
    static const struct {
        const char *from, *to;
        int rc;
    } bad[] = {{"ndd-work 4", "ndd-work 3", NDD_ERR_VERSION}, {"ndd-work 4", "ndd-work 5", NDD_ERR_VERSION},
               {"ndd-work 4", "ndd-wurk 4", NDD_ERR_FORMAT},  {"shards 7", "shards 0", NDD_ERR_FORMAT}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *t = strdup(text), *at = strstr(t, bad[i].from);
        memcpy(at, bad[i].to, strlen(bad[i].to));
        put_file("manifest", t, n);
        memset(&r, 0, sizeof r);
        assert_int_equal(ndd_ckpt_manifest_read(wd, &r), bad[i].rc);
        assert_null(r.store_);
        free(t);
    }
    /* a shard count beyond NDD_CKPT_MAX_SHARDS (an edited manifest) is malformed, never obeyed */
    static const char *huge[] = {"ndd-work 4\nshards 65537\n", "ndd-work 4\nshards 99999999999999999999\n",
                                 "ndd-work 4\nshards -5\n"};
    for (size_t i = 0; i < 3; i++) {
        put_file("manifest", huge[i], strlen(huge[i]));
        memset(&r, 0, sizeof r);
        assert_int_equal(ndd_ckpt_manifest_read(wd, &r), NDD_ERR_FORMAT);
    }
    put_file("manifest", text, n);
    /* an input holding a newline cannot be written */
    const char *nl[] = {"a\nb"};
    ndd_manifest_t m2 = m;
    m2.inputs = nl, m2.ninputs = 1;
    assert_int_equal(ndd_ckpt_manifest_write(wd, &m2), NDD_ERR_INVAL);
    free(text);
}

/* ---- map shards ---- */

#define NDOCS 6

static void make_docs(ndd_docs_t *d)
{
    static const char *ids[NDOCS] = {"d0", "d\t1", "", "doc-3", "\xe4\xb8\xad", "d5"};
    static const char *texts[NDOCS] = {"alpha beta", "", "gamma\0delta", "x", "\xe6\x96\x87\xe6\x9c\xac", "last"};
    static const size_t tlens[NDOCS] = {10, 0, 11, 1, 6, 4};
    uint64_t keys[8];
    for (size_t i = 0; i < NDOCS; i++) {
        char url[32];
        snprintf(url, sizeof url, "http://s%zu.example/%zu", i % 2, i);
        size_t nk = i % 4; /* 0..3 keys */
        for (size_t k = 0; k < nk; k++)
            keys[k] = 0x8000000000000000ull + i * 100 + k;
        assert_int_equal(ndd_docs_add(d, ids[i], strlen(ids[i]), url, strlen(url), texts[i], tlens[i],
                                      (uint32_t)(i * 7), (uint16_t)(65535 - i), (uint32_t)nk, keys, nk),
                         NDD_OK);
    }
}

/* Document i of a equals document j of b. */
static void same_doc(const ndd_docs_t *a, size_t i, const ndd_docs_t *b, size_t j)
{
    assert_string_equal(ndd_docs_id(a, i), ndd_docs_id(b, j));
    assert_string_equal(ndd_docs_url(a, i), ndd_docs_url(b, j));
    assert_int_equal(a->text_len[i], b->text_len[j]);
    assert_memory_equal(ndd_docs_text(a, i), ndd_docs_text(b, j), a->text_len[i]);
    assert_true(a->site[i] == b->site[j] && a->urlh[i] == b->urlh[j] && a->weight[i] == b->weight[j]);
    uint64_t na = a->key_off[i + 1] - a->key_off[i], nb = b->key_off[j + 1] - b->key_off[j];
    assert_int_equal(na, nb);
    if (na)
        assert_memory_equal(a->keys + a->key_off[i], b->keys + b->key_off[j], na * 8);
}

static void fill_counters(ndd_counters_t *c, uint64_t base)
{
    for (size_t k = 0; k < NDD_NCOUNTERS; k++)
        memcpy((char *)c + 8 * k, &(uint64_t){base + 10 * k}, 8);
}

static void test_shard_roundtrip(void **state)
{
    (void)state;
    ndd_docs_t d = NDD_DOCS_INIT, e = NDD_DOCS_INIT;
    ndd_buf_t rej = NDD_BUF_INIT, rej2 = NDD_BUF_INIT;
    ndd_counters_t c, got, want;
    make_docs(&d);
    ndd_rows_fmt_reject(&rej, "in/x.jsonl", 3, 99, "no visible text", NULL, NULL);
    fill_counters(&c, 1000);
    assert_int_equal(ndd_ckpt_shard_write(wd, 4, &d, &rej, &c), NDD_OK);
    uint64_t n = 0;
    assert_int_equal(ndd_ckpt_shard_count(wd, 4, &n), NDD_OK);
    assert_int_equal(n, NDOCS);
    n = 0;
    assert_int_equal(ndd_ckpt_shard_check(wd, 4, &n), NDD_OK);
    assert_int_equal(n, NDOCS);
    assert_int_equal(ndd_ckpt_shard_check(wd, 5, &n), NDD_ERR_IO);
    char *m = get_file("map/shard-000004.done", &n);
    assert_true(!strncmp(m, "6 ", 2)); /* "docs BYTES XXH3" */
    free(m);

    /* with_meta: documents, rejects and only the read counters (added) */
    fill_counters(&got, 1);
    assert_int_equal(ndd_ckpt_shard_load(wd, 4, &e, &rej2, &got, 0, UINT64_MAX, 1), NDD_OK);
    assert_int_equal(e.n, NDOCS);
    for (size_t i = 0; i < NDOCS; i++)
        same_doc(&d, i, &e, i);
    assert_string_equal(rej2.data, rej.data);
    want = c;
    ndd_counters_keep_stage(&want, NDD_CST_READ);
    ndd_counters_t base;
    fill_counters(&base, 1);
    ndd_counters_add(&want, &base);
    assert_memory_equal(&got, &want, sizeof got);
    /* appends to what d holds */
    assert_int_equal(ndd_ckpt_shard_load(wd, 4, &e, &rej2, &got, 2, 2, 0), NDD_OK);
    assert_int_equal(e.n, NDOCS + 2);
    same_doc(&d, 2, &e, NDOCS);
    same_doc(&d, 3, &e, NDOCS + 1);
    assert_memory_equal(&got, &want, sizeof got); /* no meta: untouched */
    assert_int_equal(rej2.len, rej.len);

    /* an empty shard */
    ndd_docs_t z = NDD_DOCS_INIT;
    assert_int_equal(ndd_ckpt_shard_write(wd, 0, &z, NULL, &c), NDD_OK);
    assert_int_equal(ndd_ckpt_shard_check(wd, 0, &n), NDD_OK);
    assert_int_equal(n, 0);
    assert_int_equal(ndd_ckpt_shard_load(wd, 0, &z, &rej2, &got, 0, UINT64_MAX, 1), NDD_OK);
    assert_int_equal(z.n, 0);
    ndd_docs_free(&z);
    ndd_docs_free(&d);
    ndd_docs_free(&e);
    ndd_buf_free(&rej);
    ndd_buf_free(&rej2);
}

static void test_shard_skip_take(void **state)
{
    (void)state;
    ndd_docs_t d = NDD_DOCS_INIT;
    ndd_counters_t c;
    fill_counters(&c, 5);
    make_docs(&d);
    assert_int_equal(ndd_ckpt_shard_write(wd, 1, &d, NULL, &c), NDD_OK);
    static const uint64_t takes[] = {0, 1, 2, 5, 6, 7, UINT64_MAX};
    for (uint64_t skip = 0; skip <= NDOCS + 1; skip++)
        for (size_t t = 0; t < sizeof takes / sizeof takes[0]; t++) {
            ndd_docs_t e = NDD_DOCS_INIT;
            ndd_buf_t rej = NDD_BUF_INIT;
            ndd_counters_t got;
            memset(&got, 0, sizeof got);
            int meta = (int)(skip + t) % 2;
            assert_int_equal(ndd_ckpt_shard_load(wd, 1, &e, &rej, &got, skip, takes[t], meta), NDD_OK);
            uint64_t first = skip < NDOCS ? skip : NDOCS, want = NDOCS - first < takes[t] ? NDOCS - first : takes[t];
            assert_int_equal(e.n, want);
            for (size_t j = 0; j < e.n; j++)
                same_doc(&d, first + j, &e, j);
            assert_int_equal(got.docs_read, meta ? c.docs_read : 0);
            assert_int_equal(got.keys_distinct, 0);
            ndd_docs_free(&e);
            ndd_buf_free(&rej);
        }
    ndd_docs_free(&d);
}

/* n documents of random letters (up to maxlen; document big_at 3 MiB),
 * i % kmod random keys, weight i % wmod, ids "<c><i>", URLs on `sites` sites. */
static void random_docs(ndd_docs_t *d, size_t n, uint64_t x, size_t maxlen, size_t big_at, size_t kmod, size_t wmod,
                        char c, size_t sites)
{
    ndd_buf_t text = NDD_BUF_INIT;
    uint64_t keys[64];
    for (size_t i = 0; i < n; i++) {
        size_t len = i == big_at ? ((size_t)3 << 20) : (size_t)(ndd_test_xorshift(&x) % maxlen), nk = i % kmod;
        ndd_buf_clear(&text);
        for (size_t k = 0; k < len; k++)
            assert_int_equal(ndd_buf_putc(&text, (char)('a' + ndd_test_xorshift(&x) % 26)), NDD_OK);
        for (size_t k = 0; k < nk; k++)
            keys[k] = ndd_test_xorshift(&x);
        char id[32], url[96];
        snprintf(id, sizeof id, "%c%zu", c, i);
        snprintf(url, sizeof url, "http://%c%zu.example/%zu", c, i % sites, i);
        assert_int_equal(ndd_docs_add(d, id, strlen(id), url, strlen(url), text.data ? text.data : "", len,
                                      (uint32_t)i, (uint16_t)i, (uint32_t)(i % wmod), keys, nk),
                         NDD_OK);
    }
    ndd_buf_free(&text);
}

/* A shard of several MiB read as a stream (1 MiB pieces): documents that
 * cross piece borders, one longer than a piece, many rejects' bytes; every
 * skip / take against the documents written, and a shard cut or extended
 * inside its last documents. */
static void test_shard_stream(void **state)
{
    (void)state;
    ndd_docs_t d = NDD_DOCS_INIT;
    ndd_buf_t rej = NDD_BUF_INIT;
    ndd_counters_t c;
    fill_counters(&c, 9);
    random_docs(&d, 5000, 88172645463325252ull, 2400, 2500, 40, 9, 's', 5);
    for (int k = 0; k < 300000; k++)
        assert_int_equal(ndd_buf_putc(&rej, (char)('0' + k % 10)), NDD_OK);
    assert_int_equal(ndd_ckpt_shard_write(wd, 5, &d, &rej, &c), NDD_OK);
    static const uint64_t skips[] = {0, 1, 777, 2499, 2500, 2501, 4999, 5000, 6000};
    static const uint64_t takes[] = {0, 1, 2, 1500, 2501, 5000, UINT64_MAX};
    for (size_t si = 0; si < sizeof skips / sizeof skips[0]; si++)
        for (size_t t = 0; t < sizeof takes / sizeof takes[0]; t++) {
            ndd_docs_t e = NDD_DOCS_INIT;
            ndd_buf_t r2 = NDD_BUF_INIT;
            ndd_counters_t got;
            memset(&got, 0, sizeof got);
            assert_int_equal(ndd_ckpt_shard_load(wd, 5, &e, &r2, &got, skips[si], takes[t], 1), NDD_OK);
            uint64_t first = skips[si] < d.n ? skips[si] : d.n;
            uint64_t want = d.n - first < takes[t] ? d.n - first : takes[t];
            assert_int_equal(e.n, want);
            for (size_t j = 0; j < e.n; j++)
                same_doc(&d, first + j, &e, j);
            assert_int_equal(r2.len, rej.len);
            assert_memory_equal(r2.data, rej.data, rej.len);
            assert_int_equal(got.docs_read, c.docs_read);
            ndd_docs_free(&e);
            ndd_buf_free(&r2);
        }
    /* the blob cut inside its last documents, or with bytes after them; the
     * compressed frame cut short (valid markers): the documents before the
     * damage load, the whole shard does not */
    size_t n, zn;
    char *raw = raw_of("map/shard-000005.zst", &n), *z = get_file("map/shard-000005.zst", &zn);
    ndd_docs_t e = NDD_DOCS_INIT;
    ndd_buf_t r2 = NDD_BUF_INIT;
    put_blob("map/shard-000005.zst", "map/shard-000005.done", raw, n - 40, d.n);
    assert_int_equal(ndd_ckpt_shard_load(wd, 5, &e, &r2, &c, 0, 3000, 0), NDD_OK);
    assert_int_equal(e.n, 3000);
    assert_int_equal(ndd_ckpt_shard_load(wd, 5, &e, &r2, &c, 0, UINT64_MAX, 0), NDD_ERR_FORMAT);
    char *t = malloc(n + 1);
    memcpy(t, raw, n);
    t[n] = 'x';
    put_blob("map/shard-000005.zst", "map/shard-000005.done", t, n + 1, d.n);
    assert_int_equal(ndd_ckpt_shard_load(wd, 5, &e, &r2, &c, 4990, 10, 0), NDD_ERR_FORMAT);
    char line[96];
    int l = snprintf(line, sizeof line, "%llu %zu %016llx\n", (unsigned long long)d.n, zn / 2,
                     (unsigned long long)XXH3_64bits(z, zn / 2));
    put_file("map/shard-000005.zst", z, zn / 2);
    put_file("map/shard-000005.done", line, (size_t)l);
    assert_int_equal(ndd_ckpt_shard_load(wd, 5, &e, &r2, &c, 0, 10, 0), NDD_OK);
    assert_int_equal(ndd_ckpt_shard_load(wd, 5, &e, &r2, &c, 0, UINT64_MAX, 0), NDD_ERR_FORMAT);
    /* every byte decoded but the frame not ended: the data flushed, then an
     * empty last block (3 bytes) that is cut off */
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    size_t cap = ZSTD_compressBound(n) + 64, zl = 0;
    char *zf = malloc(cap);
    ZSTD_inBuffer ib = {raw, n, 0};
    ZSTD_outBuffer ob = {zf, cap, 0};
    assert_int_equal(ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_flush), 0);
    zl = ob.pos;
    ZSTD_inBuffer none = {"", 0, 0};
    assert_int_equal(ZSTD_compressStream2(cc, &ob, &none, ZSTD_e_end), 0);
    assert_int_equal(ob.pos, zl + 3);
    for (int whole = 1; whole >= 0; whole--) {
        size_t len = whole ? ob.pos : zl;
        l = snprintf(line, sizeof line, "%llu %zu %016llx\n", (unsigned long long)d.n, len,
                     (unsigned long long)XXH3_64bits(zf, len));
        put_file("map/shard-000005.zst", zf, len);
        put_file("map/shard-000005.done", line, (size_t)l);
        ndd_docs_free(&e);
        assert_int_equal(ndd_ckpt_shard_load(wd, 5, &e, &r2, &c, 0, UINT64_MAX, 0), whole ? NDD_OK : NDD_ERR_FORMAT);
    }
    ZSTD_freeCCtx(cc);
    free(zf);
    free(t);
    free(z);
    free(raw);
    ndd_docs_free(&e);
    ndd_buf_free(&r2);
    ndd_docs_free(&d);
    ndd_buf_free(&rej);
}

/* file z[0..zn) as shard 6 with a marker that matches it (its count n) */
static void put_shard_file(const char *z, size_t zn, uint64_t n)
{
    char line[96];
    int l = snprintf(line, sizeof line, "%llu %zu %016llx\n", (unsigned long long)n, zn,
                     (unsigned long long)XXH3_64bits(z, zn));
    put_file("map/shard-000006.zst", z, zn);
    put_file("map/shard-000006.done", line, (size_t)l);
}

/* Documents [skip, skip + take) of shard 6 against d's (the load must succeed). */
static void load_range_ok(const ndd_docs_t *d, uint64_t skip, uint64_t take)
{
    ndd_docs_t e = NDD_DOCS_INIT;
    ndd_buf_t rej = NDD_BUF_INIT;
    ndd_counters_t got;
    memset(&got, 0, sizeof got);
    assert_int_equal(ndd_ckpt_shard_load(wd, 6, &e, &rej, &got, skip, take, (int)(skip % 2)), NDD_OK);
    uint64_t first = skip < d->n ? skip : d->n, want = d->n - first < take ? d->n - first : take;
    assert_int_equal(e.n, want);
    for (size_t j = 0; j < e.n; j++)
        same_doc(d, first + j, &e, j);
    ndd_docs_free(&e);
    ndd_buf_free(&rej);
}

/* Map shards in frames with a seek table: every range loads the documents
 * written (from frames of a few documents); the frames before the one that
 * holds `skip` are not decompressed (a frame damaged there, the file's
 * marker made to match: the later documents load, the whole shard does
 * not); the same documents as one frame without a table (as ndd wrote shards
 * before) load alike; a table that does not hold together is refused. */
static void test_shard_frames(void **state)
{
    (void)state;
    ndd_docs_t d = NDD_DOCS_INIT;
    ndd_buf_t rej = NDD_BUF_INIT;
    ndd_counters_t c;
    fill_counters(&c, 3);
    random_docs(&d, 300, 0x9E3779B97F4A7C15ull, 700, SIZE_MAX, 8, 8, 'f', 3);
    ndd_rows_fmt_reject(&rej, "in/f.jsonl", 1, 7, "no visible text", NULL, NULL);
    size_t old = ndd_ckpt_shard_frame(2000); /* about 6 documents a frame */
    assert_int_equal(ndd_ckpt_shard_write(wd, 6, &d, &rej, &c), NDD_OK);
    assert_int_equal(ndd_ckpt_shard_frame(old), 2000);
    size_t zn, n;
    char *z = get_file("map/shard-000006.zst", &zn);
    /* the table: k entries, the first at document 0, offsets and documents increasing */
    uint64_t k = ndd_le64_load(z + zn - 16);
    assert_int_equal(ndd_le64_load(z + zn - 8), 0x314B454553444E4Eull);
    assert_true(k > 40 && k < 100);
    const char *tab = z + zn - 16 - 16 * k;
    assert_int_equal(ndd_le32_load(tab - 8), 0x184D2A5Eu);
    assert_int_equal(ndd_le64_load(tab + 8), 0);
    for (uint64_t e = 1; e < k; e++)
        assert_true(ndd_le64_load(tab + 16 * e) > ndd_le64_load(tab + 16 * (e - 1)) &&
                    ndd_le64_load(tab + 16 * e + 8) > ndd_le64_load(tab + 16 * (e - 1) + 8));
    static const uint64_t takes[] = {0, 1, 5, 6, 7, 150, UINT64_MAX};
    for (uint64_t skip = 0; skip <= d.n + 1; skip += skip < 20 ? 1 : 7)
        for (size_t t = 0; t < sizeof takes / sizeof takes[0]; t++)
            load_range_ok(&d, skip, takes[t]);
    load_range_ok(&d, d.n - 1, 1);
    uint64_t ndocs = 0;
    assert_int_equal(ndd_ckpt_shard_check(wd, 6, &ndocs), NDD_OK);
    assert_int_equal(ndocs, d.n);

    /* frame 3 (documents from the table's entry 2 on) damaged: its magic
     * number (a frame's content has no checksum of its own; the file's
     * marker is made to match) */
    char *bad = malloc(zn);
    memcpy(bad, z, zn);
    uint64_t f3 = ndd_le64_load(tab + 16 * 2), after = ndd_le64_load(tab + 16 * 3 + 8);
    assert_int_equal(ndd_le32_load(bad + f3), 0xFD2FB528u);
    memset(bad + f3, 0xA5, 4);
    put_shard_file(bad, zn, d.n);
    load_range_ok(&d, after, UINT64_MAX); /* from the next frame on: never decoded */
    load_range_ok(&d, after + 1, 10);
    ndd_docs_t e = NDD_DOCS_INIT;
    ndd_buf_t r2 = NDD_BUF_INIT;
    int rc = ndd_ckpt_shard_load(wd, 6, &e, &r2, &c, 0, UINT64_MAX, 0);
    assert_true(rc == NDD_ERR_FORMAT || rc == NDD_ERR_COMPRESS);
    ndd_docs_free(&e);

    /* the same documents as one frame, no table: every range alike */
    put_shard_file(z, zn, d.n);
    char *raw = raw_of("map/shard-000006.zst", &n);
    put_blob("map/shard-000006.zst", "map/shard-000006.done", raw, n, d.n);
    for (uint64_t skip = 0; skip <= d.n; skip += 37)
        load_range_ok(&d, skip, 50);
    load_range_ok(&d, 0, UINT64_MAX);

    /* tables that do not hold together (markers made to match): an entry
     * past the table, a count too large, the frame's magic or size wrong */
    static const struct {
        long at; /* from the end of the file */
        uint64_t v;
        int bytes;
    } cases[] = {
        {-(long)(16 + 16 * 1), 0xFFFFFFFFull, 8},  /* the last entry's offset beyond the table */
        {-16, 1ull << 40, 8},                      /* k */
        {-16, 0, 8},                               /* k = 0 */
        {0, 0x184D2A50u, 4},                       /* (at = 0: the frame's magic, found from k) */
        {1, 7, 4},                                 /* (at = 1: the frame's content size) */
        {2, 5, 8},                                 /* (at = 2: the first entry's document, not 0) */
        {3, 0, 8},                                 /* (at = 3: entry 2's offset that of entry 1) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, z, zn);
        long at = cases[i].at;
        char *tb = bad + zn - 16 - 16 * k; /* the entries */
        if (at == 0 || at == 1) {
            ndd_le32_store(tb - 8 + (at == 1 ? 4 : 0), (uint32_t)cases[i].v);
        } else if (at == 2) {
            ndd_le64_store(tb + 8, cases[i].v);
        } else if (at == 3) {
            memcpy(tb + 32, tb + 16, 8);
        } else {
            ndd_le64_store(bad + zn + at, cases[i].v);
        }
        put_shard_file(bad, zn, d.n);
        assert_int_equal(ndd_ckpt_shard_load(wd, 6, &e, &r2, &c, d.n - 3, 2, 0), NDD_ERR_FORMAT);
        assert_int_equal(e.n, 0);
        ndd_docs_free(&e);
    }
    put_shard_file(z, zn, d.n);
    load_range_ok(&d, d.n - 3, 2);
    free(bad);
    free(raw);
    free(z);
    ndd_buf_free(&r2);
    ndd_docs_free(&d);
    ndd_buf_free(&rej);
}

static void test_shard_corrupt(void **state)
{
    (void)state;
    ndd_docs_t d = NDD_DOCS_INIT, e = NDD_DOCS_INIT;
    ndd_buf_t rej = NDD_BUF_INIT;
    ndd_counters_t c;
    fill_counters(&c, 5);
    make_docs(&d);
    assert_int_equal(ndd_ckpt_shard_write(wd, 2, &d, NULL, &c), NDD_OK);
    size_t zn, mn;
    char *z = get_file("map/shard-000002.zst", &zn), *mk = get_file("map/shard-000002.done", &mn);
    uint64_t n;
    /* every flipped byte of the file is seen by the checksum */
    for (size_t at = 0; at < zn; at++) {
        z[at] ^= 0x20;
        put_file("map/shard-000002.zst", z, zn);
        assert_int_equal(ndd_ckpt_shard_check(wd, 2, &n), NDD_ERR_FORMAT);
        if (at % 17 == 0)
            assert_int_equal(ndd_ckpt_shard_load(wd, 2, &e, &rej, &c, 0, UINT64_MAX, 1), NDD_ERR_FORMAT);
        z[at] ^= 0x20;
    }
    put_file("map/shard-000002.zst", z, zn - 1); /* cut */
    assert_int_equal(ndd_ckpt_shard_check(wd, 2, &n), NDD_ERR_FORMAT);
    put_file("map/shard-000002.zst", z, zn);
    assert_int_equal(ndd_ckpt_shard_check(wd, 2, &n), NDD_OK);
    /* a marker that does not match: another count, or garbage */
    put_file("map/shard-000002.done", "5", 1);
    assert_int_equal(ndd_ckpt_shard_check(wd, 2, &n), NDD_ERR_FORMAT);
    char other[96];
    memcpy(other, mk, mn);
    other[0] = '7';
    put_file("map/shard-000002.done", other, mn);
    assert_int_equal(ndd_ckpt_shard_check(wd, 2, &n), NDD_ERR_FORMAT);
    assert_int_equal(ndd_ckpt_shard_load(wd, 2, &e, &rej, &c, 0, UINT64_MAX, 0), NDD_ERR_FORMAT);
    assert_int_equal(ndd_ckpt_shard_count(wd, 2, &n), NDD_OK); /* _count trusts the marker */
    assert_int_equal(n, 7);
    put_file("map/shard-000002.done", mk, mn);
    assert_int_equal(ndd_ckpt_shard_check(wd, 2, &n), NDD_OK);
    assert_int_equal(e.n, 0);
    free(z);
    free(mk);
    ndd_docs_free(&d);
    ndd_docs_free(&e);
    ndd_buf_free(&rej);
}

/* A blob rewritten with a valid marker but another version, an old magic, a
 * counters schema of another build, a bad magic or a cut document. */
static void test_shard_version(void **state)
{
    (void)state;
    ndd_docs_t d = NDD_DOCS_INIT, e = NDD_DOCS_INIT;
    ndd_buf_t rej = NDD_BUF_INIT;
    ndd_counters_t c;
    fill_counters(&c, 5);
    make_docs(&d);
    assert_int_equal(ndd_ckpt_shard_write(wd, 3, &d, NULL, &c), NDD_OK);
    size_t n;
    char *raw = raw_of("map/shard-000003.zst", &n);
    assert_memory_equal(raw, "NDDSHARD\x04\0\0\0", 12);
    static const struct {
        size_t at;
        const char *bytes;
        size_t len;
        int rc;
    } cases[] = {
        {8, "\x03", 1, NDD_ERR_VERSION},                /* format version 3 (no capture date) */
        {8, "\x02", 1, NDD_ERR_VERSION},                /* format version 2 */
        {8, "\x01", 1, NDD_ERR_VERSION},                /* format version 1 */
        {0, "DDSHARD1", 8, NDD_ERR_VERSION},            /* the magic of format 1 */
        {0, "NDDSHARX", 8, NDD_ERR_FORMAT},             /* not a shard */
        {12, "\x00\x01\x00\x00", 4, NDD_ERR_VERSION},   /* counters: another count */
        {16, "\xff", 1, NDD_ERR_VERSION},               /* counters: another schema hash */
    };
    uint64_t cnt;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *t = malloc(n);
        memcpy(t, raw, n);
        assert_memory_not_equal(t + cases[i].at, cases[i].bytes, cases[i].len); /* a change */
        memcpy(t + cases[i].at, cases[i].bytes, cases[i].len);
        put_blob("map/shard-000003.zst", "map/shard-000003.done", t, n, NDOCS);
        assert_int_equal(ndd_ckpt_shard_check(wd, 3, &cnt), cases[i].rc);
        assert_int_equal(ndd_ckpt_shard_load(wd, 3, &e, &rej, &c, 0, UINT64_MAX, 1), cases[i].rc);
        free(t);
    }
    /* cut inside the last document; trailing bytes; a count that differs */
    put_blob("map/shard-000003.zst", "map/shard-000003.done", raw, n - 3, NDOCS);
    assert_int_equal(ndd_ckpt_shard_check(wd, 3, &cnt), NDD_OK); /* the head is intact */
    assert_int_equal(ndd_ckpt_shard_load(wd, 3, &e, &rej, &c, 0, 2, 0), NDD_OK);
    assert_int_equal(ndd_ckpt_shard_load(wd, 3, &e, &rej, &c, 0, UINT64_MAX, 0), NDD_ERR_FORMAT);
    char *t = malloc(n + 1);
    memcpy(t, raw, n);
    t[n] = 'x';
    put_blob("map/shard-000003.zst", "map/shard-000003.done", t, n + 1, NDOCS);
    ndd_docs_free(&e);
    assert_int_equal(ndd_ckpt_shard_load(wd, 3, &e, &rej, &c, 0, UINT64_MAX, 0), NDD_ERR_FORMAT);
    put_blob("map/shard-000003.zst", "map/shard-000003.done", raw, n, NDOCS + 1);
    assert_int_equal(ndd_ckpt_shard_check(wd, 3, &cnt), NDD_ERR_FORMAT);
    put_blob("map/shard-000003.zst", "map/shard-000003.done", raw, n, NDOCS);
    ndd_docs_free(&e);
    assert_int_equal(ndd_ckpt_shard_load(wd, 3, &e, &rej, &c, 0, UINT64_MAX, 0), NDD_OK);
    assert_int_equal(e.n, NDOCS);
    free(t);
    free(raw);
    ndd_docs_free(&d);
    ndd_docs_free(&e);
    ndd_buf_free(&rej);
}

/* ---- verified parts ---- */

static void make_rows(ndd_buf_t rows[3], uint64_t seed)
{
    for (int r = 0; r < 3; r++)
        for (uint64_t i = 0; i < 20; i++) {
            char line[64];
            uint64_t k1 = (i * 7 + seed * 3 + (uint64_t)r) % 50;
            int l = snprintf(line, sizeof line, "row %d %llu\tpart %llu\n", r, (unsigned long long)i,
                             (unsigned long long)seed);
            assert_int_equal(ndd_row_put(&rows[r], k1, i * 11 + seed, line, (size_t)l), NDD_OK);
        }
}

static void make_top(ndd_topsets_t *t, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    t->n = 3;
    for (size_t k = 0; k < 3; k++) {
        t->v[k].size = 100 - 10 * k - seed;
        t->v[k].label = 1000 * seed + k;
        snprintf(t->v[k].first_id, sizeof t->v[k].first_id, "first-%llu-%zu", (unsigned long long)seed, k);
    }
    memset(t->v[0].first_id, 'x', sizeof t->v[0].first_id - 1); /* 119 bytes: the longest */
}

static void test_verify_roundtrip(void **state)
{
    (void)state;
    ndd_buf_t rows[2][3] = {{NDD_BUF_INIT, NDD_BUF_INIT, NDD_BUF_INIT}, {NDD_BUF_INIT, NDD_BUF_INIT, NDD_BUF_INIT}};
    ndd_topsets_t top[2];
    ndd_counters_t c[2];
    for (int p = 0; p < 2; p++) {
        make_rows(rows[p], (uint64_t)p + 1);
        make_top(&top[p], (uint64_t)p + 1);
        fill_counters(&c[p], 100 * ((uint64_t)p + 1));
        assert_int_equal(ndd_ckpt_verify_write(wd, p, &c[p], &top[p], rows[p]), NDD_OK);
    }
    int nparts = 0;
    uint64_t rounds = 0;
    assert_int_equal(ndd_ckpt_verify_done_read(wd, &nparts, &rounds), NDD_ERR_IO);
    assert_int_equal(ndd_ckpt_verify_done_write(wd, 2, 9), NDD_OK);
    assert_int_equal(ndd_ckpt_verify_done_read(wd, &nparts, &rounds), NDD_OK);
    assert_true(nparts == 2 && rounds == 9);

    /* key ranges [lo, hi) that split the documents, meta from both parts */
    static const uint64_t cuts[] = {0, 13, 13, 27, 50, UINT64_MAX};
    for (size_t q = 0; q + 1 < sizeof cuts / sizeof cuts[0]; q++) {
        uint64_t lo = cuts[q], hi = cuts[q + 1];
        ndd_buf_t got[3] = {NDD_BUF_INIT, NDD_BUF_INIT, NDD_BUF_INIT}, want[3] = {NDD_BUF_INIT, NDD_BUF_INIT, NDD_BUF_INIT};
        ndd_counters_t sum;
        ndd_topsets_t t = {.n = 0};
        memset(&sum, 0, sizeof sum);
        for (int p = 0; p < 2; p++) {
            assert_int_equal(ndd_ckpt_verify_load(wd, p, &sum, &t, got, lo, hi, 1), NDD_OK);
            for (int r = 0; r < 3; r++)
                assert_int_equal(ndd_rows_filter(&want[r], rows[p][r].data, rows[p][r].len, lo, hi), NDD_OK);
        }
        for (int r = 0; r < 3; r++) {
            assert_int_equal(got[r].len, want[r].len);
            if (got[r].len)
                assert_memory_equal(got[r].data, want[r].data, got[r].len);
            ndd_buf_free(&got[r]);
            ndd_buf_free(&want[r]);
        }
        /* the reduce counters of both parts, not the read ones */
        ndd_counters_t w0 = c[0], w1 = c[1];
        ndd_counters_keep_stage(&w0, NDD_CST_REDUCE);
        ndd_counters_keep_stage(&w1, NDD_CST_REDUCE);
        ndd_counters_add(&w0, &w1);
        assert_memory_equal(&sum, &w0, sizeof sum);
        assert_int_equal(sum.docs_read, 0);
        /* merged largest sets: sizes 99, 98, 89, 88, 79, 78 */
        assert_int_equal(t.n, 6);
        static const uint64_t sizes[] = {99, 98, 89, 88, 79, 78};
        for (size_t k = 0; k < 6; k++)
            assert_int_equal(t.v[k].size, sizes[k]);
        assert_int_equal(strlen(t.v[0].first_id), 119);
        assert_string_equal(t.v[2].first_id, "first-1-1");
    }
    /* without meta: rows only */
    ndd_buf_t got[3] = {NDD_BUF_INIT, NDD_BUF_INIT, NDD_BUF_INIT};
    ndd_counters_t sum;
    memset(&sum, 0, sizeof sum);
    ndd_topsets_t t = {.n = 0};
    assert_int_equal(ndd_ckpt_verify_load(wd, 1, &sum, &t, got, 0, UINT64_MAX, 0), NDD_OK);
    assert_int_equal(got[1].len, rows[1][1].len);
    assert_int_equal(sum.keys_distinct, 0);
    assert_int_equal(t.n, 0);
    for (int r = 0; r < 3; r++) {
        ndd_buf_free(&got[r]);
        ndd_buf_free(&rows[0][r]);
        ndd_buf_free(&rows[1][r]);
    }
}

static void test_verify_corrupt_version(void **state)
{
    (void)state;
    ndd_buf_t rows[3] = {NDD_BUF_INIT, NDD_BUF_INIT, NDD_BUF_INIT}, got[3] = {NDD_BUF_INIT, NDD_BUF_INIT, NDD_BUF_INIT};
    ndd_topsets_t top;
    ndd_counters_t c;
    make_rows(rows, 3);
    make_top(&top, 3);
    fill_counters(&c, 7);
    assert_int_equal(ndd_ckpt_verify_write(wd, 5, &c, &top, rows), NDD_OK);
    size_t zn, n;
    char *z = get_file("verify/part-000005.zst", &zn);
    for (size_t at = 0; at < zn; at += 3) {
        z[at] ^= 1;
        put_file("verify/part-000005.zst", z, zn);
        assert_int_equal(ndd_ckpt_verify_load(wd, 5, &c, &top, got, 0, UINT64_MAX, 1), NDD_ERR_FORMAT);
        z[at] ^= 1;
    }
    put_file("verify/part-000005.zst", z, zn);
    char *raw = raw_of("verify/part-000005.zst", &n);
    assert_memory_equal(raw, "NDDVPART\x04\0\0\0", 12);
    static const struct {
        size_t at;
        const char *bytes;
        size_t len;
        int rc;
    } cases[] = {{8, "\x07", 1, NDD_ERR_VERSION}, {0, "DDDPART1", 8, NDD_ERR_VERSION},
                 {0, "NDDSHARD", 8, NDD_ERR_FORMAT}, {20, "\x01", 1, NDD_ERR_VERSION}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *t = malloc(n);
        memcpy(t, raw, n);
        assert_memory_not_equal(t + cases[i].at, cases[i].bytes, cases[i].len); /* a change */
        memcpy(t + cases[i].at, cases[i].bytes, cases[i].len);
        put_blob("verify/part-000005.zst", "verify/part-000005.done", t, n, 0);
        assert_int_equal(ndd_ckpt_verify_load(wd, 5, &c, &top, got, 0, UINT64_MAX, 1), cases[i].rc);
        free(t);
    }
    /* a part cut short, or with bytes after its rows */
    put_blob("verify/part-000005.zst", "verify/part-000005.done", raw, n - 1, 0);
    assert_int_equal(ndd_ckpt_verify_load(wd, 5, &c, &top, got, 0, UINT64_MAX, 0), NDD_ERR_FORMAT);
    char *t = malloc(n + 1);
    memcpy(t, raw, n);
    t[n] = 0;
    put_blob("verify/part-000005.zst", "verify/part-000005.done", t, n + 1, 0);
    assert_int_equal(ndd_ckpt_verify_load(wd, 5, &c, &top, got, 0, UINT64_MAX, 0), NDD_ERR_FORMAT);
    free(t);
    /* the done marker: format 1, another version, garbage, no parts */
    static const struct {
        const char *text;
        int rc;
    } done[] = {{"2 5 0\n", NDD_ERR_VERSION}, {"ndd-verify 2 2 5\n", NDD_ERR_VERSION}, {"what\n", NDD_ERR_FORMAT},
                {"ndd-verify 3 2 5\n", NDD_ERR_VERSION}, {"ndd-verify 4 0 5\n", NDD_ERR_FORMAT},
                {"ndd-verify 4 4 11\n", NDD_OK}};
    for (size_t i = 0; i < sizeof done / sizeof done[0]; i++) {
        int np = -1;
        uint64_t r = 0;
        put_file("verify/done", done[i].text, strlen(done[i].text));
        assert_int_equal(ndd_ckpt_verify_done_read(wd, &np, &r), done[i].rc);
        if (!done[i].rc)
            assert_true(np == 4 && r == 11);
    }
    free(raw);
    free(z);
    for (int r = 0; r < 3; r++) {
        ndd_buf_free(&rows[r]);
        ndd_buf_free(&got[r]);
    }
}

static void test_remove(void **state)
{
    (void)state;
    char dir[128], path[256];
    snprintf(dir, sizeof dir, "%s/gone", wd);
    const char *in[] = {"x"};
    ndd_manifest_t m = {1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, in, 1, NULL, 0, NULL, 0, NULL};
    assert_int_equal(ndd_ckpt_manifest_write(dir, &m), NDD_OK);
    assert_int_equal(ndd_ckpt_verify_done_write(dir, 1, 1), NDD_OK);
    snprintf(path, sizeof path, "%s/map/extra", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_true(ndd_ckpt_exists(dir));
    /* a rank's share (rank 1 of 2): shards 1 and 3 of 5, part 1 of 2, each
     * with its marker; the others stay (files named as the writers name them) */
    static const char *const names[] = {"map/shard-%06d.zst", "map/shard-%06d.done", "verify/part-%06d.zst",
                                        "verify/part-%06d.done"};
    struct stat st;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < (k < 2 ? 5 : 2); i++) {
            char name[64];
            snprintf(name, sizeof name, names[k], i);
            snprintf(path, sizeof path, "%s/%s", dir, name);
            f = fopen(path, "w");
            assert_non_null(f);
            fclose(f);
        }
    ndd_ckpt_remove_share(dir, 1, 2, 5);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < (k < 2 ? 5 : 2); i++) {
            char name[64];
            snprintf(name, sizeof name, names[k], i);
            snprintf(path, sizeof path, "%s/%s", dir, name);
            assert_int_equal(stat(path, &st) != 0, i % 2 == 1); /* gone exactly when i is rank 1's */
        }
    ndd_ckpt_remove_share(dir, 0, 2, 5); /* rank 0's: everything else of them */
    snprintf(path, sizeof path, "%s/map/shard-000004.zst", dir);
    assert_int_not_equal(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/verify/part-000000.done", dir);
    assert_int_not_equal(stat(path, &st), 0);
    ndd_ckpt_remove_share(dir, -1, 2, 5); /* (refused: nothing happens) */
    assert_true(ndd_ckpt_exists(dir));
    assert_int_equal(ndd_ckpt_remove(dir), NDD_OK);
    assert_false(ndd_ckpt_exists(dir));
    assert_int_not_equal(stat(dir, &st), 0);
    assert_int_equal(ndd_ckpt_remove(dir), NDD_OK); /* already gone */
    /* no temporary file is left behind by a successful write */
    assert_int_equal(ndd_ckpt_manifest_write(dir, &m), NDD_OK);
    snprintf(path, sizeof path, "%s/manifest.tmp.%ld", dir, (long)getpid());
    assert_int_not_equal(stat(path, &st), 0);
    /* a work dir that cannot be created */
    snprintf(path, sizeof path, "%s/manifest/sub", dir);
    assert_int_equal(ndd_ckpt_manifest_write(path, &m), NDD_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_manifest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shard_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shard_skip_take, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shard_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shard_corrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shard_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shard_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verify_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verify_corrupt_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remove, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
