/* test_index.c - src/ckpt/ndd_index.c: the index manifest round trips
 * (batches, pins, options), malformed manifests are refused
 * (NDD_ERR_FORMAT), another format version is refused with NDD_ERR_VERSION
 * and the version found, a missing one is NDD_ERR_IO; the verdict cache
 * answers lookups as a brute-force search over the same verdicts does,
 * keeps every field through its file bit for bit, and a damaged or
 * other-version file is refused; the key table finds a document's keys only
 * with its text hash, through its files, and refuses damaged ones; files
 * larger than the streamed reader's pieces read whole, a table with a range
 * keeps only its documents, and late damage is refused before anything of
 * the file is used; the template occurrences likewise; the index's links round trip and
 * refuse damaged, other-version and out-of-order files. */
#include "ndd_test.h"
#include "ndd_ckpt.h"
#include "ndd_index.h"

#include <errno.h>
#include <unistd.h>
#include <xxhash.h>

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ndd-test-index-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return ndd_ckpt_remove(dir) == NDD_OK ? 0 : -1;
}

static void put_index(const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/INDEX", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static void test_manifest_roundtrip(void **state)
{
    (void)state;
    ndd_index_man_t m, r;
    memset(&m, 0, sizeof m);
    assert_int_equal(ndd_index_read(dir, &r), NDD_ERR_IO); /* no index yet */
    assert_int_equal(errno, ENOENT);
    m.opts = strdup("--min-link 3 --verifier tlcs");
    const char *p1[] = {"100 1700000000000000000 0123456789abcdef a b.jsonl", "skip c/d"};
    const char *p2[] = {"5 1 fedcba9876543210 e.jsonl"};
    assert_int_equal(ndd_index_add(&m, 1234, 2, 3, 2, p1, 2), NDD_OK);
    assert_int_equal(ndd_index_add(&m, 56, 1, 1, 4, p2, 1), NDD_OK);
    assert_int_equal(ndd_index_add(&m, 0, 0, 2, 0, NULL, 0), NDD_OK); /* an empty batch */
    assert_int_equal(ndd_index_write(dir, &m), NDD_OK);
    assert_int_equal(ndd_index_read(dir, &r), NDD_OK);
    assert_int_equal(r.version, NDD_INDEX_VERSION);
    assert_string_equal(r.opts, m.opts);
    assert_int_equal(r.nb, 3);
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(r.b[k].docs, m.b[k].docs);
        assert_int_equal(r.b[k].files, m.b[k].files);
        assert_int_equal(r.b[k].nshards, m.b[k].nshards);
        assert_int_equal(r.b[k].nverdicts, m.b[k].nverdicts);
        assert_int_equal(r.b[k].npins, m.b[k].npins);
        for (size_t i = 0; i < r.b[k].npins; i++)
            assert_string_equal(r.b[k].pins[i], m.b[k].pins[i]);
    }
    uint64_t files;
    assert_int_equal(ndd_index_docs(&r, &files), 1290);
    assert_int_equal(files, 3);
    char buf[128];
    assert_int_equal(ndd_index_batch_dir(buf, sizeof buf, "/x", 12), NDD_OK);
    assert_string_equal(buf, "/x/batch-0012");
    assert_int_equal(ndd_index_batch_dir(buf, 8, "/x", 12), NDD_ERR_INVAL);
    ndd_index_free(&r);
    /* empty options round trip too; a newline in a string is refused */
    free(m.opts);
    m.opts = strdup("");
    assert_int_equal(ndd_index_write(dir, &m), NDD_OK);
    assert_int_equal(ndd_index_read(dir, &r), NDD_OK);
    assert_string_equal(r.opts, "");
    ndd_index_free(&r);
    free(m.opts);
    m.opts = strdup("a\nb");
    assert_int_equal(ndd_index_write(dir, &m), NDD_ERR_INVAL);
    ndd_index_free(&m);
    ndd_index_free(NULL);
}

static void test_manifest_refused(void **state)
{
    (void)state;
    ndd_index_man_t r;
    static const char *const bad[] = {
        "ndd-index 2\nopts x\nbatch 1 1 1 1\n",                    /* no end: cut */
        "ndd-index 2\nopts x\nbatch 1 1 1 1\nend",                 /* cut last line */
        "ndd-index 2\nbatch 1 1 1 1\nend\n",                       /* no opts */
        "ndd-index 2\nopts x\npin 1 2 3 a\nend\n",                 /* pin outside a batch */
        "ndd-index 2\nopts x\nbatch 1 1 0 1\nend\n",               /* no shard */
        "ndd-index 2\nopts x\nbatch 1 1 1 -1\nend\n",              /* negative verdict parts */
        "ndd-index 2\nopts x\nbatch 1 1 99999999 1\nend\n",        /* too many shards */
        "ndd-index 2\nopts x\nbatch 1 1 1\nend\n",                 /* a field missing */
        "ndd-index 2\nopts x\nbatch 1 1 1 1 7\nend\n",             /* a field too many */
        "ndd-index 2\nopts x\nwhat 1\nend\n",                      /* unknown line */
        "ndd-index 2\nopts x\nend\nbatch 1 1 1 1\n",               /* after the end */
        "ndd-work 4\nshards 2\n",                                  /* a work directory's manifest */
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put_index(bad[i]);
        assert_int_equal(ndd_index_read(dir, &r), NDD_ERR_FORMAT);
        assert_null(r.b);
        assert_null(r.opts);
    }
    static const char *const other[] = {
        "ndd-index 0\nopts x\nend\n",
        "ndd-index 1\nopts x\nend\n", /* the format before the key files */
        "ndd-index 4\nsomething new\n",
    };
    for (int v = 0; v < 3; v++) {
        put_index(other[v]);
        assert_int_equal(ndd_index_read(dir, &r), NDD_ERR_VERSION);
        assert_int_equal(r.version, v == 2 ? 4 : v);
    }
    /* versions 2 (map shards of one frame) and 3 (shards with seek tables) are read */
    put_index("ndd-index 2\nopts x\nend\n"); /* an index with no batch yet */
    assert_int_equal(ndd_index_read(dir, &r), NDD_OK);
    assert_int_equal(r.nb, 0);
    assert_int_equal(r.version, 2);
    ndd_index_free(&r);
    put_index("ndd-index 3\nopts x\nbatch 1 1 1 1\npin 1 2 3 a\nend\n");
    assert_int_equal(ndd_index_read(dir, &r), NDD_OK);
    assert_int_equal(r.nb, 1);
    assert_int_equal(r.version, 3);
    ndd_index_free(&r);
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void) { return ndd_test_xorshift(&rnd_state); }

static void random_verdict(ndd_verdict_t *v)
{
    memset(v, 0, sizeof *v);
    v->a = rnd() % 50;
    v->b = rnd() % 50;
    v->ha = rnd() % 3; /* few hashes: many keys differ only in them */
    v->hb = rnd() % 3;
    v->v.duplicate = (int)(rnd() & 1);
    v->v.pruned_by_bound = (int)(rnd() & 1);
    v->v.hit_cost_limit = (int)(rnd() & 1);
    v->v.formulaic = (int)(rnd() & 1);
    v->v.sketched = (int)(rnd() & 1);
    v->v.conceptual = (int)(rnd() & 1);
    v->v.resemblance = (double)(rnd() % 1000000) / 999983.0;
    v->v.containment = -1.0 / (double)(1 + rnd() % 7);
    v->v.ncd = 1e-300 * (double)(rnd() % 5);
    v->v.score = (double)rnd();
    v->v.strain_away = 0.1 + (double)(rnd() % 100) / 3.0;
    v->v.tlcs = rnd();
}

static int same_verdict(const ndd_verdict_t *x, const ndd_verdict_t *y)
{
    return x->a == y->a && x->b == y->b && x->ha == y->ha && x->hb == y->hb && x->v.duplicate == y->v.duplicate &&
           x->v.pruned_by_bound == y->v.pruned_by_bound && x->v.hit_cost_limit == y->v.hit_cost_limit &&
           x->v.formulaic == y->v.formulaic && x->v.sketched == y->v.sketched && x->v.conceptual == y->v.conceptual &&
           !memcmp(&x->v.resemblance, &y->v.resemblance, 8) && !memcmp(&x->v.containment, &y->v.containment, 8) &&
           !memcmp(&x->v.ncd, &y->v.ncd, 8) && !memcmp(&x->v.score, &y->v.score, 8) &&
           !memcmp(&x->v.strain_away, &y->v.strain_away, 8) && x->v.tlcs == y->v.tlcs;
}

/* Lookups against brute force over the verdicts added (first one of a key). */
static void test_vcache_brute(void **state)
{
    (void)state;
    enum { N = 3000 };
    ndd_verdict_t *all = malloc(N * sizeof *all);
    ndd_vcache_t c = {0};
    assert_non_null(all);
    for (size_t i = 0; i < N; i++) {
        random_verdict(&all[i]);
        for (size_t j = 0; j < i; j++) /* equal keys hold equal verdicts, as in a run */
            if (all[j].a == all[i].a && all[j].b == all[i].b && all[j].ha == all[i].ha && all[j].hb == all[i].hb) {
                all[i] = all[j];
                break;
            }
        assert_int_equal(ndd_vcache_add(&c, &all[i]), NDD_OK);
    }
    ndd_vcache_sort(&c);
    assert_true(c.n < N); /* repeated keys were dropped */
    for (size_t i = 1; i < c.n; i++)
        assert_true(memcmp(&c.v[i - 1], &c.v[i], 32) != 0);
    for (uint64_t a = 0; a < 52; a++)
        for (uint64_t b = 0; b < 52; b++)
            for (uint64_t ha = 0; ha < 4; ha++)
                for (uint64_t hb = 0; hb < 4; hb++) {
                    const ndd_verdict_t *want = NULL;
                    for (size_t i = 0; i < N && !want; i++)
                        if (all[i].a == a && all[i].b == b && all[i].ha == ha && all[i].hb == hb)
                            want = &all[i];
                    const ndd_verdict_t *got = ndd_vcache_find(&c, a, b, ha, hb);
                    ndd_vcache_t bs = c; /* the binary search, without the hash table */
                    bs.slot = NULL;
                    const ndd_verdict_t *got2 = ndd_vcache_find(&bs, a, b, ha, hb);
                    assert_true((want == NULL) == (got == NULL) && got == got2);
                    if (want)
                        assert_true(same_verdict(want, got));
                }
    assert_non_null(c.slot); /* the lookups above went through the hash table */
    ndd_verdict_t one = all[0];
    one.a = 1000; /* a key not there: found after _add and _sort again */
    assert_int_equal(ndd_vcache_add(&c, &one), NDD_OK);
    assert_null(c.slot);
    ndd_vcache_sort(&c);
    assert_true(ndd_vcache_find(&c, 1000, one.b, one.ha, one.hb) != NULL);
    assert_true(same_verdict(&one, ndd_vcache_find(&c, 1000, one.b, one.ha, one.hb)));
    ndd_vcache_t empty = {0};
    assert_null(ndd_vcache_find(&empty, 1, 2, 0, 0));
    ndd_vcache_sort(&empty);
    ndd_vcache_free(&c);
    ndd_vcache_free(NULL);
    free(all);
}

/* The file keeps every field bit for bit; damage and other versions are refused. */
static void test_vcache_file(void **state)
{
    (void)state;
    enum { N = 500 };
    char path[128], marker[128];
    ndd_verdict_t v[N];
    ndd_vcache_t c = {0};
    snprintf(path, sizeof path, "%s/v.zst", dir);
    snprintf(marker, sizeof marker, "%s/v.done", dir);
    for (size_t i = 0; i < N; i++)
        random_verdict(&v[i]);
    assert_int_equal(ndd_vcache_write(path, marker, v, N), NDD_OK);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_OK);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_OK); /* appends */
    assert_int_equal(c.n, 2 * N);
    for (size_t i = 0; i < 2 * N; i++)
        assert_true(same_verdict(&c.v[i], &v[i % N]));
    ndd_vcache_free(&c);
    /* an empty file */
    assert_int_equal(ndd_vcache_write(path, marker, NULL, 0), NDD_OK);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_OK);
    assert_int_equal(c.n, 0);
    /* a flipped byte: the marker's checksum */
    assert_int_equal(ndd_vcache_write(path, marker, v, N), NDD_OK);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 20, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, 20, SEEK_SET);
    fputc(ch ^ 0x40, f);
    fclose(f);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_ERR_FORMAT);
    ndd_vcache_free(&c);
    /* another version: the blob's head (written through the blob helper) */
    ndd_buf_t b = NDD_BUF_INIT;
    const unsigned char head[20] = {'N', 'N', 'D', 'V', 'E', 'R', 'D', 'S', 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    assert_int_equal(ndd_buf_append(&b, head, sizeof head), NDD_OK);
    assert_int_equal(ndd_ckpt_blob_write(path, marker, &b, 0), NDD_OK);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_ERR_VERSION);
    /* a cut record */
    b.data[8] = 1;
    b.data[12] = 1;
    assert_int_equal(ndd_buf_append(&b, "0123456789", 10), NDD_OK);
    assert_int_equal(ndd_ckpt_blob_write(path, marker, &b, 1), NDD_OK);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_ERR_FORMAT);
    /* a missing file */
    unlink(path);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_ERR_IO);
    ndd_buf_free(&b);
    ndd_vcache_free(&c);
}

static void test_keytab(void **state)
{
    (void)state;
    char path[2][128], marker[2][128];
    ndd_buf_t b[2] = {NDD_BUF_INIT, NDD_BUF_INIT};
    uint64_t keys[40];
    ndd_keytab_t t;
    size_t n = 99;
    for (int f = 0; f < 2; f++) {
        snprintf(path[f], sizeof path[f], "%s/k%d.zst", dir, f);
        snprintf(marker[f], sizeof marker[f], "%s/k%d.done", dir, f);
        assert_int_equal(ndd_keys_begin(&b[f]), NDD_OK);
    }
    for (size_t k = 0; k < 40; k++)
        keys[k] = k * 0x9E3779B97F4A7C15ull;
    /* documents 0..9 of 12 in two files (one rank's range each), document 3 with no key, 10 and 11 absent */
    for (uint64_t g = 0; g < 10; g++)
        assert_int_equal(ndd_keys_put(&b[g >= 6], g, 1000 + g, keys + g, g == 3 ? 0 : 4 * g % 30), NDD_OK);
    assert_int_equal(ndd_keys_write(path[0], marker[0], &b[0], 6), NDD_OK);
    assert_int_equal(ndd_keys_write(path[1], marker[1], &b[1], 4), NDD_OK);
    assert_int_equal(ndd_keytab_init(&t, 12), NDD_OK);
    assert_int_equal(ndd_keytab_load(path[1], marker[1], &t), NDD_OK); /* any order */
    assert_int_equal(t.first, 6);
    assert_int_equal(ndd_keytab_load(path[0], marker[0], &t), NDD_OK);
    assert_int_equal(t.first, 0);
    for (uint64_t g = 0; g < 12; g++) {
        const uint64_t *k = ndd_keytab_find(&t, g, 1000 + g, &n);
        if (g >= 10) {
            assert_null(k);
            continue;
        }
        assert_non_null(k);
        assert_int_equal(n, g == 3 ? 0 : 4 * g % 30);
        if (n)
            assert_memory_equal(k, keys + g, n * sizeof *k);
        assert_null(ndd_keytab_find(&t, g, 2000 + g, &n)); /* another text */
    }
    assert_null(ndd_keytab_find(&t, 12, 1012, &n));
    /* a later file's record of a document replaces the earlier one */
    ndd_buf_free(&b[0]);
    assert_int_equal(ndd_keys_begin(&b[0]), NDD_OK);
    assert_int_equal(ndd_keys_put(&b[0], 2, 5002, keys + 30, 7), NDD_OK);
    assert_int_equal(ndd_keys_write(path[0], marker[0], &b[0], 1), NDD_OK);
    assert_int_equal(ndd_keytab_load(path[0], marker[0], &t), NDD_OK);
    assert_null(ndd_keytab_find(&t, 2, 1002, &n));
    assert_non_null(ndd_keytab_find(&t, 2, 5002, &n));
    assert_int_equal(n, 7);
    assert_memory_equal(ndd_keytab_find(&t, 2, 5002, &n), keys + 30, 7 * sizeof *keys);
    assert_non_null(ndd_keytab_find(&t, 7, 1007, &n)); /* the others stay */
    ndd_keytab_free(&t);
    /* a number beyond the table */
    assert_int_equal(ndd_keytab_init(&t, 8), NDD_OK);
    assert_int_equal(ndd_keytab_load(path[1], marker[1], &t), NDD_ERR_FORMAT);
    ndd_keytab_free(&t);
    /* another version; a cut record */
    assert_int_equal(ndd_keytab_init(&t, 12), NDD_OK);
    for (int bad = 0; bad < 2; bad++) {
        ndd_buf_free(&b[0]);
        assert_int_equal(ndd_keys_begin(&b[0]), NDD_OK);
        assert_int_equal(ndd_keys_put(&b[0], 1, 1001, keys, 4), NDD_OK);
        if (bad)
            b[0].len -= 3;
        else
            b[0].data[8] = 9;
        assert_int_equal(ndd_keys_write(path[0], marker[0], &b[0], 1), NDD_OK);
        assert_int_equal(ndd_keytab_load(path[0], marker[0], &t), bad ? NDD_ERR_FORMAT : NDD_ERR_VERSION);
    }
    /* a file's records are in document order: those from the first past the
     * range on are not read (here a cut record after it: not seen) */
    ndd_buf_free(&b[0]);
    assert_int_equal(ndd_keys_begin(&b[0]), NDD_OK);
    assert_int_equal(ndd_keys_put(&b[0], 1, 1001, keys, 4), NDD_OK);
    assert_int_equal(ndd_keys_put(&b[0], 5, 1005, keys, 4), NDD_OK);
    assert_int_equal(ndd_keys_put(&b[0], 7, 1007, keys, 4), NDD_OK);
    b[0].len -= 3;
    assert_int_equal(ndd_keys_write(path[0], marker[0], &b[0], 3), NDD_OK);
    assert_int_equal(ndd_keytab_load(path[0], marker[0], &t), NDD_ERR_FORMAT); /* the whole range: read */
    ndd_keytab_free(&t);
    assert_int_equal(ndd_keytab_init(&t, 12), NDD_OK);
    ndd_keytab_range(&t, 0, 5);
    assert_int_equal(ndd_keytab_load(path[0], marker[0], &t), NDD_OK);
    assert_int_equal(t.first, 1);
    assert_non_null(ndd_keytab_find(&t, 1, 1001, &n));
    assert_null(ndd_keytab_find(&t, 5, 1005, &n));
    ndd_keytab_free(&t);
    /* an empty file: no first document */
    assert_int_equal(ndd_keytab_init(&t, 12), NDD_OK);
    ndd_buf_free(&b[0]);
    assert_int_equal(ndd_keys_begin(&b[0]), NDD_OK);
    assert_int_equal(ndd_keys_write(path[0], marker[0], &b[0], 0), NDD_OK);
    assert_int_equal(ndd_keytab_load(path[0], marker[0], &t), NDD_OK);
    assert_true(t.first == UINT64_MAX);
    unlink(path[0]);
    assert_int_equal(ndd_keytab_load(path[0], marker[0], &t), NDD_ERR_IO);
    ndd_keytab_free(&t);
    ndd_buf_free(&b[0]);
    ndd_buf_free(&b[1]);
}

/* The index's links: a state round trips bit for bit (large enough to
 * cross the streamed reader's pieces), read without its links gives the
 * rest, and a damaged, other-version or out-of-order file is refused. */
static void test_linkstate(void **state)
{
    (void)state;
    char path[128], marker[128];
    snprintf(path, sizeof path, "%s/links-000000.zst", dir);
    snprintf(marker, sizeof marker, "%s/links-000000.done", dir);
    ndd_linkstate_t a = {0}, b;
    uint64_t x = 0x1234567;
    a.ndocs = 37900;
    a.counts = (ndd_list_counts_t){11, 12, 13, 14, 15, 16, 17};
    a.ndropped = 3;
    a.dropped = malloc(3 * sizeof *a.dropped);
    a.dropped[0] = 5, a.dropped[1] = 77, a.dropped[2] = UINT64_MAX;
    a.nfol = 2;
    a.fol = malloc(2 * sizeof *a.fol);
    a.fol[0] = 3, a.fol[1] = 9000;
    a.nlinks = 200000;
    a.links = malloc(a.nlinks * sizeof *a.links);
    for (size_t i = 0, u = 0, v = 1; i < a.nlinks; i++) {
        x = ndd_test_xorshift(&x);
        v += 1 + x % 3;
        if (x % 7 == 0)
            u++, v = u + 1 + x % 5;
        a.links[i] = (ndd_link_t){u, v, 1 + (x >> 40) % 9};
    }
    assert_int_equal(ndd_linkstate_write(path, marker, &a), NDD_OK);
    for (int links = 1; links >= 0; links--) {
        assert_int_equal(ndd_linkstate_load(path, marker, &b, links), NDD_OK);
        assert_int_equal(b.ndocs, a.ndocs);
        assert_memory_equal(&b.counts, &a.counts, sizeof a.counts);
        assert_int_equal(b.ndropped, 3);
        assert_memory_equal(b.dropped, a.dropped, 3 * sizeof *a.dropped);
        assert_int_equal(b.nfol, 2);
        assert_memory_equal(b.fol, a.fol, 2 * sizeof *a.fol);
        assert_int_equal(b.nlinks, a.nlinks);
        if (links)
            assert_memory_equal(b.links, a.links, a.nlinks * sizeof *a.links);
        else
            assert_null(b.links);
        ndd_linkstate_free(&b);
    }
    /* out of order: a link, a dropped key, a follower; a link u >= v, one of support 0 */
    for (int bad = 0; bad < 5; bad++) {
        ndd_linkstate_t c = a;
        ndd_link_t keep = a.links[1000];
        uint64_t kd = a.dropped[1], kf = a.fol[1];
        if (bad == 0)
            a.links[1000] = a.links[999];
        else if (bad == 1)
            a.dropped[1] = 5;
        else if (bad == 2)
            a.fol[1] = 2;
        else if (bad == 3)
            a.links[1000].u = a.links[1000].v;
        else
            a.links[1000].support = 0;
        assert_int_equal(ndd_linkstate_write(path, marker, &c), NDD_OK);
        assert_int_equal(ndd_linkstate_load(path, marker, &b, 1), NDD_ERR_FORMAT);
        assert_null(b.links);
        a.links[1000] = keep, a.dropped[1] = kd, a.fol[1] = kf;
    }
    /* damaged (one byte of the file), another version, missing */
    assert_int_equal(ndd_linkstate_write(path, marker, &a), NDD_OK);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 100, SEEK_SET), 0);
    int ch = fgetc(f);
    assert_int_equal(fseek(f, 100, SEEK_SET), 0);
    fputc(ch ^ 1, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(ndd_linkstate_load(path, marker, &b, 0), NDD_ERR_FORMAT);
    ndd_buf_t raw = NDD_BUF_INIT;
    uint64_t rest[10] = {0};
    assert_int_equal(ndd_put64(&raw, 0x314B4E494C444E4Eull), NDD_OK);
    assert_int_equal(ndd_put32(&raw, 2), NDD_OK);
    assert_int_equal(ndd_put64(&raw, 0), NDD_OK);
    assert_int_equal(ndd_put64s(&raw, rest, 10), NDD_OK);
    assert_int_equal(ndd_ckpt_blob_write(path, marker, &raw, 0), NDD_OK);
    assert_int_equal(ndd_linkstate_load(path, marker, &b, 1), NDD_ERR_VERSION);
    ndd_buf_free(&raw);
    unlink(path);
    assert_int_equal(ndd_linkstate_load(path, marker, &b, 1), NDD_ERR_IO);
    ndd_linkstate_free(&a);
}

/* A file and its marker "COUNT BYTES XXH3" made to match. */
static void put_checked(const char *path, const char *marker, const char *z, size_t zn, uint64_t count)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z, 1, zn, f), zn);
    assert_int_equal(fclose(f), 0);
    char line[96];
    int l = snprintf(line, sizeof line, "%llu %zu %016llx\n", (unsigned long long)count, zn,
                     (unsigned long long)XXH3_64bits(z, zn));
    f = fopen(marker, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(line, 1, (size_t)l, f), (size_t)l);
    assert_int_equal(fclose(f), 0);
}

/* Key and occurrence files in frames with a seek table (small frames here):
 * every range loads the records a brute force keeps, the first
 * document is known whatever the range, and the frames before the range's
 * are not decompressed (one damaged there, the marker made to match: a range
 * after it loads, the whole file does not). */
static void test_framed_tables(void **state)
{
    (void)state;
    char path[128], marker[128], opath[128], omarker[128];
    snprintf(path, sizeof path, "%s/kf.zst", dir);
    snprintf(marker, sizeof marker, "%s/kf.done", dir);
    snprintf(opath, sizeof opath, "%s/of.zst", dir);
    snprintf(omarker, sizeof omarker, "%s/of.done", dir);
    enum { N = 900, FIRST = 100 };
    uint64_t keys[24], cnt[N + FIRST], hash[N + FIRST];
    ndd_tmpl_occ_t occ[24];
    for (size_t k = 0; k < 24; k++) {
        keys[k] = (k + 1) * 0x9E3779B97F4A7C15ull;
        occ[k] = (ndd_tmpl_occ_t){keys[k], (uint32_t)k, (uint32_t)(k * 3), (uint32_t)(k * 7)};
    }
    ndd_buf_t b = NDD_BUF_INIT, o = NDD_BUF_INIT;
    assert_int_equal(ndd_keys_begin(&b), NDD_OK);
    assert_int_equal(ndd_occ_begin(&o), NDD_OK);
    memset(cnt, 0xff, sizeof cnt);
    memset(hash, 0, sizeof hash);
    uint64_t nrec = 0;
    for (uint64_t g = FIRST; g < FIRST + N; g++) { /* documents FIRST.. in order (as a rank writes them), some absent */
        uint64_t k = (g * 7) % 24;
        hash[g] = 5000 + g;
        if (g % 13 == 0 && g != FIRST)
            continue;
        assert_int_equal(ndd_keys_put(&b, g, 5000 + g, keys, k), NDD_OK);
        assert_int_equal(ndd_occ_put(&o, g, occ, k), NDD_OK);
        cnt[g] = k;
        nrec++;
    }
    size_t old = ndd_ckpt_shard_frame(300);
    assert_int_equal(ndd_keys_write(path, marker, &b, nrec), NDD_OK);
    assert_int_equal(ndd_occ_write(opath, omarker, &o, nrec), NDD_OK);
    ndd_ckpt_shard_frame(old);
    char *z = NULL, *oz = NULL;
    size_t zn, ozn;
    assert_int_equal(ndd_read_file(path, 0, &z, &zn), NDD_OK);
    assert_int_equal(ndd_read_file(opath, 0, &oz, &ozn), NDD_OK);
    assert_true(zn > 16 && !memcmp(z + zn - 8, "NNDSEEK1", 8)); /* a seek table */
    uint64_t nf = 0;
    memcpy(&nf, z + zn - 16, 8);
    assert_true(nf > 20);
    for (uint64_t lo = 0; lo <= FIRST + N + 1; lo += lo < FIRST + 10 ? 1 : 23)
        for (uint64_t span = 1; span <= 400; span *= 7) {
            uint64_t hi = lo + span;
            ndd_keytab_t t;
            ndd_occtab_t u;
            assert_int_equal(ndd_keytab_init(&t, N + FIRST), NDD_OK);
            assert_int_equal(ndd_occtab_init(&u, N + FIRST), NDD_OK);
            ndd_keytab_range(&t, lo, hi);
            ndd_occtab_range(&u, lo, hi);
            assert_int_equal(ndd_keytab_load(path, marker, &t), NDD_OK);
            assert_int_equal(ndd_occtab_load(opath, omarker, &u), NDD_OK);
            assert_int_equal(t.first, FIRST);
            assert_int_equal(u.first, FIRST);
            for (uint64_t g = 0; g < N + FIRST; g++) {
                size_t n = 99, m = 99;
                const uint64_t *k = ndd_keytab_find(&t, g, hash[g], &n);
                const ndd_tmpl_occ_t *v = ndd_occtab_find(&u, g, &m);
                int want = g >= lo && g < hi && cnt[g] != UINT64_MAX;
                assert_int_equal(k != NULL, want);
                assert_int_equal(v != NULL, want);
                if (want) {
                    assert_int_equal(n, cnt[g]);
                    assert_int_equal(m, cnt[g]);
                    if (n)
                        assert_memory_equal(k, keys, n * sizeof *k);
                    for (size_t j = 0; j < m; j++)
                        assert_true(v[j].block == occ[j].block && v[j].content == occ[j].content);
                }
            }
            ndd_keytab_free(&t);
            ndd_occtab_free(&u);
        }
    /* the third frame's magic damaged (the table's third entry) */
    char *bad = malloc(zn);
    memcpy(bad, z, zn);
    const char *tab = z + zn - 16 - 16 * nf;
    uint64_t f3, k4;
    memcpy(&f3, tab + 16 * 2, 8);
    memcpy(&k4, tab + 16 * 3 + 8, 8);
    memset(bad + f3, 0x5A, 4);
    put_checked(path, marker, bad, zn, nrec);
    ndd_keytab_t t;
    assert_int_equal(ndd_keytab_init(&t, N + FIRST), NDD_OK);
    ndd_keytab_range(&t, k4, N + FIRST);
    assert_int_equal(ndd_keytab_load(path, marker, &t), NDD_OK);
    size_t n;
    assert_non_null(ndd_keytab_find(&t, N + FIRST - 1, hash[N + FIRST - 1], &n));
    ndd_keytab_free(&t);
    assert_int_equal(ndd_keytab_init(&t, N + FIRST), NDD_OK);
    int rc = ndd_keytab_load(path, marker, &t);
    assert_true(rc == NDD_ERR_FORMAT || rc == NDD_ERR_COMPRESS);
    ndd_keytab_free(&t);
    free(bad);
    free(z);
    free(oz);
    ndd_buf_free(&b);
    ndd_buf_free(&o);
}

/* The template occurrences: every field through the file, a later record
 * of a document replaces an earlier one, a range keeps only its documents,
 * a number beyond the table, another version and a cut record are refused. */
static void test_occtab(void **state)
{
    (void)state;
    char path[128], marker[128];
    ndd_buf_t b = NDD_BUF_INIT;
    ndd_tmpl_occ_t v[64];
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (size_t i = 0; i < 64; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = (ndd_tmpl_occ_t){x, (uint32_t)(x >> 7), (uint32_t)(x >> 19), (uint32_t)(x >> 33)};
    }
    snprintf(path, sizeof path, "%s/o.zst", dir);
    snprintf(marker, sizeof marker, "%s/o.done", dir);
    assert_int_equal(ndd_occ_begin(&b), NDD_OK);
    for (uint64_t g = 0; g < 10; g++) /* documents 0..9 of 12, document 4 without blocks */
        assert_int_equal(ndd_occ_put(&b, g, v + g, g == 4 ? 0 : 3 + g % 5), NDD_OK);
    assert_int_equal(ndd_occ_put(&b, 2, v + 40, 7), NDD_OK); /* later: replaces */
    assert_int_equal(ndd_occ_write(path, marker, &b, 11), NDD_OK);
    for (int ranged = 0; ranged < 2; ranged++) {
        ndd_occtab_t t;
        size_t n = 99;
        assert_int_equal(ndd_occtab_init(&t, 12), NDD_OK);
        if (ranged)
            ndd_occtab_range(&t, 3, 7);
        assert_int_equal(ndd_occtab_load(path, marker, &t), NDD_OK);
        assert_int_equal(t.first, 0);
        for (uint64_t g = 0; g < 12; g++) {
            const ndd_tmpl_occ_t *o = ndd_occtab_find(&t, g, &n);
            if (g >= 10 || (ranged && (g < 3 || g >= 7))) {
                assert_null(o);
                continue;
            }
            assert_non_null(o);
            const ndd_tmpl_occ_t *want = g == 2 ? v + 40 : v + g;
            size_t wn = g == 2 ? 7 : g == 4 ? 0 : 3 + g % 5;
            assert_int_equal(n, wn);
            for (size_t k = 0; k < n; k++) {
                assert_true(o[k].block == want[k].block && o[k].page == want[k].page);
                assert_true(o[k].site == want[k].site && o[k].content == want[k].content);
            }
        }
        ndd_occtab_free(&t);
    }
    ndd_occtab_t t;
    assert_int_equal(ndd_occtab_init(&t, 8), NDD_OK); /* document 9 is beyond it */
    assert_int_equal(ndd_occtab_load(path, marker, &t), NDD_ERR_FORMAT);
    ndd_occtab_free(&t);
    assert_int_equal(ndd_occtab_init(&t, 12), NDD_OK);
    for (int bad = 0; bad < 2; bad++) {
        ndd_buf_free(&b);
        assert_int_equal(ndd_occ_begin(&b), NDD_OK);
        assert_int_equal(ndd_occ_put(&b, 1, v, 4), NDD_OK);
        if (bad)
            b.len -= 3;
        else
            b.data[8] = 9;
        assert_int_equal(ndd_occ_write(path, marker, &b, 1), NDD_OK);
        assert_int_equal(ndd_occtab_load(path, marker, &t), bad ? NDD_ERR_FORMAT : NDD_ERR_VERSION);
    }
    ndd_occtab_free(&t);
    ndd_buf_free(&b);
}

/* Files larger than the streamed reader's pieces (1 MiB compressed and
 * decompressed: random keys do not compress) read whole and right; the
 * table keeps only the documents of its range (ndd_keytab_range), the others
 * are not found, as if never signed; a byte flipped anywhere in a large file
 * (in a later piece than the records parsed first) is refused and leaves a
 * verdict cache as it was. */
static void test_streamed_files(void **state)
{
    (void)state;
    enum { DOCS = 3000, PER = 90, NV = 30000 };
    char path[128], marker[128];
    ndd_buf_t b = NDD_BUF_INIT;
    uint64_t *keys = malloc((size_t)DOCS * PER * sizeof *keys), x = 0x243F6A8885A308D3ull;
    assert_non_null(keys);
    for (size_t k = 0; k < (size_t)DOCS * PER; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        keys[k] = x;
    }
    snprintf(path, sizeof path, "%s/big.zst", dir);
    snprintf(marker, sizeof marker, "%s/big.done", dir);
    assert_int_equal(ndd_keys_begin(&b), NDD_OK);
    for (uint64_t g = 0; g < DOCS; g++) /* 2.1 MB: three pieces */
        assert_int_equal(ndd_keys_put(&b, g, 7000 + g, keys + g * PER, g % 7 == 3 ? 0 : PER - g % 5), NDD_OK);
    assert_int_equal(ndd_keys_write(path, marker, &b, DOCS), NDD_OK);
    for (int ranged = 0; ranged < 2; ranged++) {
        ndd_keytab_t t;
        size_t n = 0;
        uint64_t lo = ranged ? 1234 : 0, hi = ranged ? 2345 : DOCS;
        assert_int_equal(ndd_keytab_init(&t, DOCS), NDD_OK);
        if (ranged)
            ndd_keytab_range(&t, lo, hi);
        assert_int_equal(ndd_keytab_load(path, marker, &t), NDD_OK);
        for (uint64_t g = 0; g < DOCS; g++) {
            const uint64_t *k = ndd_keytab_find(&t, g, 7000 + g, &n);
            if (g < lo || g >= hi) {
                assert_null(k);
                continue;
            }
            assert_non_null(k);
            assert_int_equal(n, g % 7 == 3 ? 0 : PER - g % 5);
            if (n)
                assert_memory_equal(k, keys + g * PER, n * sizeof *k);
        }
        if (ranged) /* only the range's keys were kept */
            assert_true(t.nkeys < (size_t)(hi - lo) * PER);
        ndd_keytab_free(&t);
    }
    /* a flipped byte in the last piece: refused */
    size_t zn = 0;
    char *z = NULL;
    assert_int_equal(ndd_read_file(path, 0, &z, &zn), NDD_OK);
    assert_true(zn > (3u << 19)); /* more than one piece */
    z[zn - 100] ^= 0x10;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z, 1, zn, f), zn);
    assert_int_equal(fclose(f), 0);
    ndd_keytab_t t;
    assert_int_equal(ndd_keytab_init(&t, DOCS), NDD_OK);
    assert_int_equal(ndd_keytab_load(path, marker, &t), NDD_ERR_FORMAT);
    assert_null(ndd_keytab_find(&t, 0, 7000, &(size_t){0})); /* nothing was parsed */
    ndd_keytab_free(&t);
    free(z);
    /* verdicts: 2.5 MB, read back bit for bit; damaged late, the cache is as before */
    ndd_verdict_t *v = malloc(NV * sizeof *v);
    ndd_vcache_t c = {0};
    assert_non_null(v);
    for (size_t i = 0; i < NV; i++)
        random_verdict(&v[i]);
    assert_int_equal(ndd_vcache_write(path, marker, v, NV), NDD_OK);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_OK);
    assert_int_equal(c.n, NV);
    for (size_t i = 0; i < NV; i++)
        assert_true(same_verdict(&c.v[i], &v[i]));
    assert_int_equal(ndd_read_file(path, 0, &z, &zn), NDD_OK);
    z[zn - 10] ^= 0x01;
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z, 1, zn, f), zn);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_ERR_FORMAT);
    assert_int_equal(c.n, NV);
    /* cut short: the marker's size */
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z, 1, zn - 1, f), zn - 1);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(ndd_vcache_load(path, marker, &c), NDD_ERR_FORMAT);
    assert_int_equal(c.n, NV);
    free(z);
    free(v);
    free(keys);
    ndd_vcache_free(&c);
    ndd_buf_free(&b);
}

static void test_copy_file(void **state)
{
    (void)state;
    char a[128], b[128], *data = NULL;
    size_t n = 0;
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    assert_int_equal(ndd_ckpt_write_atomic(a, "hello index", 11), NDD_OK);
    assert_int_equal(ndd_index_copy_file(a, b), NDD_OK);
    assert_int_equal(ndd_read_file(b, 0, &data, &n), NDD_OK);
    assert_int_equal(n, 11);
    assert_memory_equal(data, "hello index", 11);
    free(data);
    assert_int_equal(ndd_index_copy_file(a, b), NDD_ERR_IO); /* exists: never overwritten */
    snprintf(b, sizeof b, "%s/none/b", dir);
    assert_int_equal(ndd_index_copy_file(a, b), NDD_ERR_IO);
    assert_int_equal(ndd_index_fsync_dir(dir), NDD_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_manifest_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_refused, setup, teardown),
        cmocka_unit_test(test_vcache_brute),
        cmocka_unit_test_setup_teardown(test_vcache_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keytab, setup, teardown),
        cmocka_unit_test_setup_teardown(test_streamed_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_occtab, setup, teardown),
        cmocka_unit_test_setup_teardown(test_framed_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_linkstate, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
