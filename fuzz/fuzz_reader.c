/* fuzz_reader.c - the corpus readers on a file (src/reader): the first byte
 * picks the file name (so the format and compression) and whether the
 * harness compresses the rest itself (then the fuzzer explores the records,
 * not only the decompressors): JSONL plain / .gz / .zst, WARC plain /
 * .gz as one stream / .gz one member per record / .zst, WET .gz, a
 * byte-range read of plain JSONL. Every input that can be split (plain
 * JSONL of case 11, per-record gzip WARC, JSONL in zstd frames) is also read
 * as two ranges; when the whole read met no damage (no reject), the ranges
 * give the same number of documents and no reject. Every document must be valid (NUL-free
 * body, offsets inside the stream); the run must end (EOF or an error
 * code), never crash or allocate without bound (libFuzzer -rss_limit_mb). */
#include "fuzz_common.h"
#include "ndd_reader.h"

#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static char dir[64];

static int gz_append(ndd_buf_t *out, const uint8_t *p, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t bound = deflateBound(&z, n) + 32;
    if (ndd_buf_reserve(out, bound)) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)p;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)out->data + out->len;
    z.avail_out = (uInt)bound;
    int ret = deflate(&z, Z_FINISH);
    out->len += bound - z.avail_out;
    deflateEnd(&z);
    return ret == Z_STREAM_END ? 0 : -1;
}

/* Where gz_per_record began a member after the first (offsets in the
 * decompressed data). */
static uint64_t *cuts;
static size_t ncuts, cuts_cap;

/* One gzip member per WARC record: cut before every "WARC/1." at a line
 * start. That line can also be inside a record's block: then a member
 * begins inside a record, which a file with one member per record never
 * has (see cuts_at_record_starts). */
static int gz_per_record(ndd_buf_t *out, const uint8_t *p, size_t n)
{
    size_t a = 0;
    for (size_t i = 1; i + 7 <= n; i++)
        if (p[i - 1] == '\n' && !memcmp(p + i, "WARC/1.", 7)) {
            if (gz_append(out, p + a, i - a))
                return -1;
            if (ncuts == cuts_cap) {
                size_t cap = cuts_cap ? 2 * cuts_cap : 64;
                uint64_t *c = realloc(cuts, cap * sizeof *c);
                if (!c)
                    return -1;
                cuts = c;
                cuts_cap = cap;
            }
            cuts[ncuts++] = i;
            a = i;
        }
    return gz_append(out, p + a, n - a);
}

/* Is every cut the start of a record, walking p[0..n) as WARC records by
 * their Content-Length (header, blank line, block, the line ends after it)?
 * 0 when the walk fails: then nobody can say where records begin. */
static int cuts_at_record_starts(const uint8_t *p, size_t n)
{
    size_t at = 0, c = 0;
    while (at < n && c < ncuts) {
        if (c < ncuts && cuts[c] < at)
            return 0; /* a cut inside the record before */
        if (c < ncuts && cuts[c] == at)
            c++;
        size_t i = at, len = 0;
        int have_len = 0;
        for (;;) { /* header lines up to a blank one */
            size_t e = i;
            while (e < n && p[e] != '\n')
                e++;
            if (e >= n)
                return 0;
            size_t l = e - i - (e > i && p[e - 1] == '\r');
            if (l == 0) {
                i = e + 1;
                break;
            }
            if (l > 15 && !strncasecmp((const char *)p + i, "Content-Length:", 15)) {
                char num[24];
                size_t k = i + 15, m = 0;
                while (k < i + l && p[k] == ' ')
                    k++;
                while (k < i + l && m < sizeof num - 1 && p[k] >= '0' && p[k] <= '9')
                    num[m++] = (char)p[k++];
                num[m] = '\0';
                if (!m || have_len)
                    return 0;
                len = (size_t)strtoull(num, NULL, 10);
                have_len = 1;
            }
            i = e + 1;
        }
        if (!have_len || len > n - i)
            return 0;
        at = i + len;
        while (at < n && (p[at] == '\r' || p[at] == '\n'))
            at++;
    }
    return c == ncuts;
}

static int zstd_append(ndd_buf_t *out, const uint8_t *p, size_t n)
{
    size_t bound = ZSTD_compressBound(n);
    if (ndd_buf_reserve(out, bound))
        return -1;
    size_t z = ZSTD_compress(out->data + out->len, bound, p, n, 1);
    if (ZSTD_isError(z))
        return -1;
    out->len += z;
    return 0;
}

static void on_reject(void *user, const ndd_reject_t *rej)
{
    FUZZ_CHECK(rej->reason && rej->reason[0]);
    ++*(uint64_t *)user;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"a.jsonl", "a.jsonl.gz", "a.jsonl.zst", "a.warc",    "a.warc.gz",
                                        "a.warc.gz", "a.warc.gz", "a.jsonl.gz", "a.jsonl.zst", "a.wet.gz",
                                        "a.warc.zst", "a.jsonl"};
    enum { NCASES = sizeof names / sizeof names[0] };
    if (size < 1)
        return 0;
    int sel = data[0] % NCASES;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/ndd-fuzz-reader-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    ndd_buf_t file = NDD_BUF_INIT;
    int bad = 0;
    ncuts = 0;
    switch (sel) {
    case 5: bad = gz_append(&file, p, n); break;      /* WARC, one gzip stream */
    case 6: bad = gz_per_record(&file, p, n); break;  /* WARC, a member per record */
    case 7: bad = gz_append(&file, p, n); break;      /* JSONL.gz */
    case 8: bad = zstd_append(&file, p, n); break;    /* JSONL.zst */
    case 9: bad = gz_per_record(&file, p, n); break;  /* WET.gz */
    case 10: bad = zstd_append(&file, p, n); break;   /* WARC.zst */
    default: bad = ndd_buf_append(&file, p, n); break; /* raw bytes: the decompressors too */
    }
    if (bad) {
        ndd_buf_free(&file);
        return 0;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, names[sel]);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(file.data ? file.data : "", 1, file.len, f) != file.len || fclose(f))
        abort();
    ndd_buf_free(&file);

    const char *paths[1] = {path}, *badp = NULL;
    ndd_input_t *in = NULL;
    size_t nin = 0;
    if (ndd_input_expand(paths, 1, NDD_FMT_AUTO, &in, &nin, &badp) == NDD_OK) {
        for (size_t k = 0; k < nin; k++) {
            /* whole, then (case 11: plain JSONL; compressed splits) as two byte ranges */
            int split = in[k].splittable && (sel == 11 || in[k].splittable >= NDD_SPLIT_GZ_RECORDS);
            uint64_t cut = in[k].size / 2, lo[3] = {0, 0, cut}, hi[3] = {UINT64_MAX, cut, UINT64_MAX};
            uint64_t wdocs = 0, wrej = 0, sdocs = 0, srej = 0;
            for (int part = 0; part < (split ? 3 : 1); part++) {
                ndd_reader_t *rd = NULL;
                uint64_t rejects = 0, docs = 0;
                if (ndd_reader_open(&rd, &in[k], lo[part], hi[part], on_reject, &rejects))
                    continue;
                ndd_reader_set_max_record(rd, (size_t)1 << 20);
                ndd_doc_t doc;
                int rc;
                while ((rc = ndd_reader_next(rd, &doc)) == NDD_OK) {
                    FUZZ_CHECK(doc.id && doc.url && doc.body);
                    FUZZ_CHECK(strlen(doc.body) == doc.body_len); /* no NUL inside a body */
                    FUZZ_CHECK(doc.body_len <= ((size_t)1 << 20));
                    docs++;
                }
                FUZZ_CHECK(rc == NDD_ERR_EOF || rc < 0);
                FUZZ_CHECK(ndd_reader_nread(rd) >= docs);
                ndd_reader_free(rd);
                *(part ? &sdocs : &wdocs) += docs;
                *(part ? &srej : &wrej) += rejects;
            }
            /* a split starts at a member; one that begins inside a record
             * (the harness cut at a "WARC/1." line of a block, of a document
             * or of a record that is skipped) is read as a record start there
             * when that line is a version line, which the whole read, blind
             * to members, is not: no file with one member per record has that */
            if (split && wrej == 0 && in[k].splittable >= NDD_SPLIT_GZ_RECORDS &&
                (!ncuts || cuts_at_record_starts(p, n)))
                FUZZ_CHECK(sdocs == wdocs && srej == 0);
        }
        ndd_input_free(in, nin);
    }
    unlink(path);
    return 0;
}
