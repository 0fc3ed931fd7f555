/* fuzz_ckpt.c - the checkpoint and index files as ndd reads them back, as
 * streams (src/ckpt: map shards, the index's key, verdict, template
 * occurrence and links files). Input: byte 0 picks the reader (0 shard, 1
 * key file, 2 verdict file, 3 occurrence file, 4 links file) and byte 1 how the rest becomes the
 * file: even, it is the file's contents, written as one zstd frame; odd, it
 * is the compressed file itself (zstd's streaming decompression over
 * arbitrary frames, cut ones, trailing bytes); with byte 1's bit 1 set, a
 * map shard's seek table (a skippable frame, docs/architecture.md) is
 * appended to the file, its 0..4 entries (frame offset, first document)
 * taken from the input's last bytes. The marker is written to
 * match (size and XXH3, so the parsers, not only the checksum, see the
 * bytes; its count is byte 2), and byte 3 sets the shard reader's skip and
 * take and the tables' range. Checked: no crash, leak or undefined
 * behaviour; a refused file leaves the verdict cache as it was; a shard
 * load adds at most `take` documents and a key or occurrence table finds
 * only documents of its range; a links file read (with its links when
 * byte 3 is odd) holds its lists in order, and a refused one leaves
 * nothing. */
#include "fuzz_common.h"
#include "ndd_ckpt.h"
#include "ndd_docs.h"
#include "ndd_index.h"
#include "ndd_wire.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

static char wd[64];

static void put(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!wd[0]) {
        snprintf(wd, sizeof wd, "/tmp/ndd-fuzz-ckpt-XXXXXX");
        char sub[96];
        snprintf(sub, sizeof sub, "%s/map", mkdtemp(wd) ? wd : "/tmp");
        if (mkdir(sub, 0700))
            abort();
    }
    if (size < 4)
        return 0;
    unsigned kind = data[0] % 5, raw = data[1] & 1, count = data[2], sel = data[3];
    const uint8_t *body = data + 4;
    size_t nbody = size - 4, nseek = data[1] & 2 ? (size_t)(data[1] >> 2) % 5 : 0;
    if (nseek && nbody < 16 * nseek)
        nseek = 0;
    const uint8_t *entries = body + nbody - 16 * nseek; /* (the table's entries, as they are) */
    nbody -= 16 * nseek;
    size_t zn = raw ? nbody : ZSTD_compressBound(nbody);
    char *z = malloc((zn ? zn : 1) + (data[1] & 2 ? 8 + 16 * nseek + 16 : 0));
    if (!z)
        abort();
    if (raw) {
        if (nbody)
            memcpy(z, body, nbody);
    } else {
        zn = ZSTD_compress(z, zn, body, nbody, 1);
        FUZZ_CHECK(!ZSTD_isError(zn));
    }
    if (data[1] & 2) { /* u32 0x184D2A5E, u32 16 k + 16, k entries, u64 k, "NNDSEEK1" */
        ndd_le32_store(z + zn, 0x184D2A5Eu);
        ndd_le32_store(z + zn + 4, (uint32_t)(16 * nseek + 16));
        if (nseek)
            memcpy(z + zn + 8, entries, 16 * nseek);
        ndd_le64_store(z + zn + 8 + 16 * nseek, nseek);
        ndd_le64_store(z + zn + 16 + 16 * nseek, 0x314B454553444E4Eull);
        zn += 8 + 16 * nseek + 16;
    }
    char path[128], marker[128], line[96];
    if (kind == 0) {
        snprintf(path, sizeof path, "%s/map/shard-000000.zst", wd);
        snprintf(marker, sizeof marker, "%s/map/shard-000000.done", wd);
    } else {
        snprintf(path, sizeof path, "%s/blob.zst", wd);
        snprintf(marker, sizeof marker, "%s/blob.done", wd);
    }
    put(path, z, zn);
    int ml = snprintf(line, sizeof line, "%u %zu %016llx\n", count, zn, (unsigned long long)XXH3_64bits(z, zn));
    put(marker, line, (size_t)ml);
    free(z);

    if (kind == 0) {
        ndd_docs_t d = NDD_DOCS_INIT;
        ndd_buf_t rej = NDD_BUF_INIT;
        ndd_counters_t c;
        uint64_t n = 0, skip = sel & 15, take = sel >> 4 == 15 ? UINT64_MAX : sel >> 4;
        memset(&c, 0, sizeof c);
        (void)ndd_ckpt_shard_check(wd, 0, &n);
        int rc = ndd_ckpt_shard_load(wd, 0, &d, &rej, &c, skip, take, sel & 1);
        FUZZ_CHECK(rc != NDD_OK || d.n <= take);
        for (size_t i = 0; rc == NDD_OK && i < d.n; i++) /* every document reads back */
            FUZZ_CHECK(ndd_docs_text(&d, i) != NULL && ndd_docs_id(&d, i) != NULL);
        ndd_docs_free(&d);
        ndd_buf_free(&rej);
    } else if (kind == 1) {
        ndd_keytab_t t;
        uint64_t lo = sel & 15, hi = lo + (sel >> 4);
        if (ndd_keytab_init(&t, 64))
            abort();
        if (sel & 0x80)
            ndd_keytab_range(&t, lo, hi);
        int rc = ndd_keytab_load(path, marker, &t);
        for (uint64_t g = 0; rc == NDD_OK && g < 64; g++) {
            size_t k = 0;
            const uint64_t *keys = t.cnt[g] == UINT32_MAX ? NULL : ndd_keytab_find(&t, g, t.hash[g], &k);
            FUZZ_CHECK(!keys || (g >= t.lo && g < t.hi));
            FUZZ_CHECK(!keys || !k || keys + k <= t.keys + t.nkeys);
        }
        ndd_keytab_free(&t);
    } else if (kind == 3) {
        ndd_occtab_t t;
        uint64_t lo = sel & 15, hi = lo + (sel >> 4);
        if (ndd_occtab_init(&t, 64))
            abort();
        if (sel & 0x80)
            ndd_occtab_range(&t, lo, hi);
        int rc = ndd_occtab_load(path, marker, &t);
        for (uint64_t g = 0; rc == NDD_OK && g < 64; g++) {
            size_t k = 0;
            const ndd_tmpl_occ_t *o = ndd_occtab_find(&t, g, &k);
            FUZZ_CHECK(!o || (g >= t.lo && g < t.hi));
            FUZZ_CHECK(!o || !k || o + k <= t.v + t.nv);
        }
        ndd_occtab_free(&t);
    } else if (kind == 4) {
        ndd_linkstate_t st;
        int rc = ndd_linkstate_load(path, marker, &st, sel & 1);
        FUZZ_CHECK(rc == NDD_OK || (!st.links && !st.dropped && !st.fol && !st.nlinks));
        FUZZ_CHECK(rc != NDD_OK || (sel & 1) || !st.links);
        for (size_t i = 0; rc == NDD_OK && st.links && i < st.nlinks; i++)
            FUZZ_CHECK(st.links[i].u < st.links[i].v && st.links[i].support &&
                       (!i || st.links[i - 1].u < st.links[i].u ||
                        (st.links[i - 1].u == st.links[i].u && st.links[i - 1].v < st.links[i].v)));
        for (size_t i = 1; rc == NDD_OK && i < st.ndropped; i++)
            FUZZ_CHECK(st.dropped[i - 1] < st.dropped[i]);
        ndd_linkstate_free(&st);
    } else {
        ndd_vcache_t v = {0};
        ndd_verdict_t one;
        memset(&one, 0, sizeof one);
        one.a = 1;
        if (ndd_vcache_add(&v, &one))
            abort();
        int rc = ndd_vcache_load(path, marker, &v);
        FUZZ_CHECK(rc == NDD_OK || v.n == 1); /* a refused file adds nothing */
        ndd_vcache_sort(&v);
        FUZZ_CHECK(ndd_vcache_find(&v, 1, 0, 0, 0) != NULL);
        ndd_vcache_free(&v);
    }
    return 0;
}
