/* test_out.c - src/out: the row schema (formatting byte for byte, keyed
 * records), the counters table (pack/unpack, schema hash, stages) and
 * stats.json (the writer against a hand-written document in the layout of
 * the old mpi/run_pipeline.c write_stats(), writer -> reader round trip, the
 * JSON tree). */
#include "ndd_test.h"
#include "ndd_counters.h"
#include "ndd_rows.h"
#include "ndd_stats.h"
#include "ndd_wire.h"

/* ---- rows: formatting ---- */

static void test_fmt_pair(void **state)
{
    (void)state;
    ndd_buf_t line = NDD_BUF_INIT;
    ndd_vres_t v = {1, 0.5, 0.75, 0.0, 0.5, 123, 0, 0, 0.1, 0, 1, 0};
    ndd_buf_puts(&line, "old contents are cleared");
    assert_int_equal(ndd_rows_fmt_pair(&line, NDD_COLS_TLCS, "a\tb", 3, "c\\d", 3, "tlcs", &v), NDD_OK);
    assert_string_equal(line.data, "a\\tb\tc\\\\d\ttlcs\t0.500000\t0.750000\t-\t123\t0.500000");

    ndd_vres_t s = {0, 0.9, 0.9, 0.1234567, 0.1234567, 0, 0, 0, 0, 0, 0, 0};
    assert_int_equal(ndd_rows_fmt_pair(&line, NDD_COLS_SIGNCD, "x", 1, "y\n", 2, "signcd", &s), NDD_OK);
    assert_string_equal(line.data, "x\ty\\n\tsigncd\t-\t-\t0.123457\t0\t0.123457");

    ndd_vres_t b = {1, 0, 0, 0, 64.0, 18446744073709551615ull, 0, 0, 0, 0, 0, 0};
    assert_int_equal(ndd_rows_fmt_pair(&line, NDD_COLS_SCORE, "p", 1, "q", 1, "simhash", &b), NDD_OK);
    assert_string_equal(line.data, "p\tq\tsimhash\t-\t-\t-\t18446744073709551615\t64.000000");

    /* ids are not NUL-terminated: only idalen / idblen bytes count */
    ndd_vres_t r = {0, 1.0 / 3, 2.0 / 3, 0, 1.0 / 3, 7, 0, 0, 0, 0, 1, 0};
    assert_int_equal(ndd_rows_fmt_pair(&line, NDD_COLS_TLCS, "doc-1XYZ", 5, "doc-2XYZ", 5, "tlcs", &r), NDD_OK);
    assert_string_equal(line.data, "doc-1\tdoc-2\ttlcs\t0.333333\t0.666667\t-\t7\t0.333333");
    ndd_buf_free(&line);
}

static void test_fmt_cluster_reject(void **state)
{
    (void)state;
    ndd_buf_t line = NDD_BUF_INIT;
    assert_int_equal(ndd_rows_fmt_cluster(&line, "d\n1", 3, "c1", 2, 1, "http://x/\ty", 11), NDD_OK);
    assert_string_equal(line.data, "d\\n1\tc1\t1\thttp://x/\\ty\n");
    assert_int_equal(ndd_rows_fmt_cluster(&line, "d2", 2, "c1", 2, 0, "", 0), NDD_OK);
    assert_string_equal(line.data, "d2\tc1\t0\t\n");
    ndd_buf_free(&line);

    ndd_buf_t b = NDD_BUF_INIT;
    assert_int_equal(ndd_rows_fmt_reject(&b, "in/a.jsonl", 17, 4096, "no visible text", NULL, NULL), NDD_OK);
    assert_int_equal(ndd_rows_fmt_reject(&b, "in/b\tc.gz", UINT64_MAX, 0, "cannot\nopen", "", ""), NDD_OK);
    assert_int_equal(ndd_rows_fmt_reject(&b, "f", 0, 18446744073709551615ull, "r", "http://x/\ty", "image/png"),
                     NDD_OK);
    assert_string_equal(b.data, "in/a.jsonl\t17\t4096\tno visible text\t-\t-\n"
                                "in/b\\tc.gz\t-\t0\tcannot\\nopen\t-\t-\n"
                                "f\t0\t18446744073709551615\tr\thttp://x/\\ty\timage/png\n");
    ndd_buf_free(&b);
    assert_string_equal(NDD_HDR_PAIRS,
                        "id_a\tid_b\tverifier\tresemblance\tcontainment\tncd\ttlcs\tscore\turl_a\turl_b\n");
    assert_string_equal(NDD_HDR_SCORES, "id_a\tid_b\tverifier\tresemblance\tcontainment\tncd\ttlcs\tscore\taccepted\t"
                                        "url_a\turl_b\n");
    ndd_buf_t u = NDD_BUF_INIT;
    assert_int_equal(ndd_buf_puts(&u, "a\tb"), NDD_OK);
    assert_int_equal(ndd_rows_fmt_urls(&u, "http://x/\t1", 11, "", 0), NDD_OK);
    assert_string_equal(u.data, "a\tb\thttp://x/\\t1\t\n");
    ndd_buf_free(&u);
    assert_string_equal(NDD_HDR_CLUSTERS, "id\tcluster\tkeep\turl\n");
    assert_string_equal(NDD_HDR_REJECTS, "file\trecord\toffset\treason\turl\tcontent_type\n");
}

/* ---- rows: keyed records ---- */

static int cmp_row_ref(const void *a, const void *b)
{
    const ndd_row_t *x = a, *y = b;
    return x->k1 != y->k1 ? (x->k1 < y->k1 ? -1 : 1) : (x->k2 < y->k2 ? -1 : x->k2 > y->k2);
}

/* ndd_rows_sort (a radix sort from 1,024 rows) against qsort: small and
 * 64-bit keys, distinct (k1, k2) as in the runs' tables. */
static void test_rows_sort_brute(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 6; round++) {
        size_t n = round < 2 ? 1000 + (size_t)round * 24 : 3000 * (size_t)round;
        ndd_row_t *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
        assert_true(v && w);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = ndd_test_xorshift(&x);
            v[i].k1 = round % 3 == 2 ? r : r % (round % 3 ? 70000 : 300);
            v[i].k2 = (round % 3 == 2 ? ndd_test_xorshift(&x) : ndd_test_xorshift(&x) % 100000) * 4096 + i % 4096;
            v[i].line = (const char *)(uintptr_t)(i + 1); /* which row it was */
            v[i].len = (uint32_t)i;
        }
        memcpy(w, v, n * sizeof *v);
        ndd_rows_sort(v, n);
        qsort(w, n, sizeof *w, cmp_row_ref);
        for (size_t i = 0; i < n; i++)
            assert_true(v[i].k1 == w[i].k1 && v[i].k2 == w[i].k2 && v[i].len == w[i].len && v[i].line == w[i].line);
        free(v);
        free(w);
    }
}

static void test_records(void **state)
{
    (void)state;
    static const struct {
        uint64_t k1, k2;
        const char *line;
    } in[] = {{5, 1, "five-one\n"}, {2, 9, "two-nine\n"}, {5, 0, "five-zero\n"}, {0x0102030405060708ull, 3, ""},
              {2, 3, "two-three\n"}, {7, UINT64_MAX, "seven\n"}};
    const size_t n = sizeof in / sizeof in[0];
    ndd_buf_t b = NDD_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ndd_row_put(&b, in[i].k1, in[i].k2, in[i].line, strlen(in[i].line)), NDD_OK);
    /* wire form: u64 k1, u64 k2, u32 len, little-endian */
    assert_memory_equal(b.data, "\x05\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\x09\0\0\0five-one\n", 29);

    ndd_row_t *v = NULL;
    size_t nv = 0, cap = 0;
    assert_int_equal(ndd_rows_parse(b.data, b.len, &v, &nv, &cap), NDD_OK);
    assert_int_equal(nv, n);
    for (size_t i = 0; i < n; i++) {
        assert_true(v[i].k1 == in[i].k1 && v[i].k2 == in[i].k2);
        assert_int_equal(v[i].len, strlen(in[i].line));
        assert_memory_equal(v[i].line, in[i].line, v[i].len);
    }
    ndd_rows_sort(v, nv);
    static const char *const sorted[] = {"two-three\n", "two-nine\n", "five-zero\n", "five-one\n", "seven\n", ""};
    for (size_t i = 0; i < n; i++)
        assert_memory_equal(v[i].line, sorted[i], strlen(sorted[i]));
    /* parse appends */
    assert_int_equal(ndd_rows_parse(b.data, b.len, &v, &nv, &cap), NDD_OK);
    assert_int_equal(nv, 2 * n);
    assert_int_equal(v[n].k1, 5);
    ndd_rows_sort(NULL, 0);

    /* filter by first key, bytes unchanged */
    ndd_buf_t f = NDD_BUF_INIT, want = NDD_BUF_INIT;
    assert_int_equal(ndd_rows_filter(&f, b.data, b.len, 2, 6), NDD_OK);
    for (size_t i = 0; i < n; i++)
        if (in[i].k1 >= 2 && in[i].k1 < 6)
            ndd_row_put(&want, in[i].k1, in[i].k2, in[i].line, strlen(in[i].line));
    assert_int_equal(f.len, want.len);
    assert_memory_equal(f.data, want.data, f.len);
    ndd_buf_clear(&f);
    assert_int_equal(ndd_rows_filter(&f, b.data, b.len, 6, 6), NDD_OK);
    assert_int_equal(f.len, 0);
    assert_int_equal(ndd_rows_filter(&f, b.data, b.len, 0, UINT64_MAX), NDD_OK);
    assert_int_equal(f.len, b.len); /* every k1 < UINT64_MAX */
    ndd_buf_clear(&f);
    assert_int_equal(ndd_rows_filter(&f, NULL, 0, 0, UINT64_MAX), NDD_OK);
    assert_int_equal(f.len, 0);

    /* every truncation is refused */
    for (size_t cut = 1; cut < b.len; cut++) {
        size_t rec = 0, at = 0;
        while (at < cut) /* is cut on a record boundary? */
            at += 20 + strlen(in[rec++].line);
        int boundary = at == cut;
        size_t nv2 = 0;
        ndd_buf_clear(&f);
        assert_int_equal(ndd_rows_parse(b.data, cut, &v, &nv2, &cap), boundary ? NDD_OK : NDD_ERR_FORMAT);
        assert_int_equal(ndd_rows_filter(&f, b.data, cut, 0, UINT64_MAX), boundary ? NDD_OK : NDD_ERR_FORMAT);
    }
    /* a length running past the end */
    char bad[24] = {0};
    ndd_le32_store(bad + 16, 5);
    nv = 0;
    assert_int_equal(ndd_rows_parse(bad, 24, &v, &nv, &cap), NDD_ERR_FORMAT);
    assert_int_equal(ndd_row_put(&f, 1, 2, "", (size_t)UINT32_MAX + 1), NDD_ERR_LIMIT);
    free(v);
    ndd_buf_free(&b);
    ndd_buf_free(&f);
    ndd_buf_free(&want);
}

/* ---- counters ---- */

static uint64_t *cval(ndd_counters_t *c, size_t k) { return (uint64_t *)(void *)((char *)c + 8 * k); }

static void fill(ndd_counters_t *c, uint64_t base)
{
    for (size_t k = 0; k < NDD_NCOUNTERS; k++)
        *cval(c, k) = base + 1000 * k + (k % 7);
}

static void test_counter_table(void **state)
{
    (void)state;
    assert_int_equal(ndd_counter_table_n + NDD_HIST_N, NDD_NCOUNTERS);
    for (size_t k = 0; k < ndd_counter_table_n; k++) {
        const ndd_counter_info_t *a = &ndd_counter_table[k];
        assert_true(a->stage == NDD_CST_READ || a->stage == NDD_CST_REDUCE);
        for (size_t j = 0; j < k; j++) {
            const ndd_counter_info_t *b = &ndd_counter_table[j];
            assert_string_not_equal(a->field, b->field);
            if (a->section && b->section && !strcmp(a->section, b->section))
                assert_string_not_equal(a->key, b->key);
            /* a section is contiguous (the writer opens it once) */
            if (a->section && b->section && !strcmp(a->section, b->section))
                for (size_t m = j + 1; m < k; m++)
                    assert_true(!ndd_counter_table[m].section || !strcmp(ndd_counter_table[m].section, a->section));
        }
    }
    /* the table is the struct, field by field */
    ndd_counters_t c;
    memset(&c, 0, sizeof c);
    c.docs_read = 11;
    c.shuffle3_bytes = 22;
    c.hist[3] = 33;
    for (size_t k = 0; k < ndd_counter_table_n; k++) {
        if (!strcmp(ndd_counter_table[k].field, "docs_read"))
            assert_int_equal(*cval(&c, k), 11);
        if (!strcmp(ndd_counter_table[k].field, "shuffle3_bytes"))
            assert_int_equal(*cval(&c, k), 22);
    }
    assert_int_equal(*cval(&c, ndd_counter_table_n + 3), 33);
}

static void test_counters_add_keep(void **state)
{
    (void)state;
    ndd_counters_t a, b, c;
    fill(&a, 1);
    fill(&b, 5);
    c = a;
    ndd_counters_add(&c, &b);
    for (size_t k = 0; k < NDD_NCOUNTERS; k++)
        assert_int_equal(*cval(&c, k), *cval(&a, k) + *cval(&b, k));

    /* READ: what the map stage counts (the signature counters are the
     * reduce stage's since the template pass: it computes the signatures) */
    static const char *const read_fields[] = {"docs_read", "rejected", "no_text", "input_bytes", "text_bytes"};
    c = a;
    ndd_counters_keep_stage(&c, NDD_CST_READ);
    size_t nread = 0;
    for (size_t k = 0; k < ndd_counter_table_n; k++) {
        int is_read = 0;
        for (size_t j = 0; j < 5; j++)
            is_read |= !strcmp(ndd_counter_table[k].field, read_fields[j]);
        nread += (size_t)is_read;
        assert_int_equal(*cval(&c, k), is_read ? *cval(&a, k) : 0);
    }
    assert_int_equal(nread, 5);
    for (size_t h = 0; h < NDD_HIST_N; h++)
        assert_int_equal(c.hist[h], 0);

    /* REDUCE: the rest and the histogram; READ + REDUCE = all */
    ndd_counters_t d = a;
    ndd_counters_keep_stage(&d, NDD_CST_REDUCE);
    assert_int_equal(d.docs_read, 0);
    assert_int_equal(d.text_bytes, 0);
    assert_int_equal(d.signatures, a.signatures);
    assert_int_equal(d.keys_distinct, a.keys_distinct);
    assert_int_equal(d.verify_work, a.verify_work);
    assert_memory_equal(d.hist, a.hist, sizeof a.hist);
    ndd_counters_add(&c, &d);
    assert_memory_equal(&c, &a, sizeof a);
}

static void test_counters_pack(void **state)
{
    (void)state;
    ndd_counters_t a, b;
    fill(&a, 0xfedcba9876543210ull);
    ndd_buf_t p = NDD_BUF_INIT;
    ndd_buf_puts(&p, "xyz"); /* appends */
    assert_int_equal(ndd_counters_pack(&a, &p), NDD_OK);
    assert_int_equal(p.len, 3 + 12 + 8 * NDD_NCOUNTERS);
    assert_int_equal(ndd_le32_load(p.data + 3), NDD_NCOUNTERS);
    assert_true(ndd_le64_load(p.data + 3 + 12) == a.input_bytes); /* first value, LE */
    size_t used = 0;
    memset(&b, 0x55, sizeof b);
    assert_int_equal(ndd_counters_unpack(&b, p.data + 3, p.len - 3, &used), NDD_OK);
    assert_int_equal(used, p.len - 3);
    assert_memory_equal(&a, &b, sizeof a);
    /* trailing bytes are the caller's */
    ndd_buf_puts(&p, "tail");
    assert_int_equal(ndd_counters_unpack(&b, p.data + 3, p.len - 3, &used), NDD_OK);
    assert_int_equal(used, p.len - 7);
    /* truncated */
    for (size_t cut = 0; cut < 12 + 8 * NDD_NCOUNTERS; cut += 5)
        assert_int_equal(ndd_counters_unpack(&b, p.data + 3, cut, &used), NDD_ERR_FORMAT);
    /* another build: count or schema differ */
    ndd_le32_store(p.data + 3, (uint32_t)NDD_NCOUNTERS + 1);
    assert_int_equal(ndd_counters_unpack(&b, p.data + 3, p.len - 3, &used), NDD_ERR_VERSION);
    ndd_le32_store(p.data + 3, (uint32_t)NDD_NCOUNTERS);
    p.data[3 + 4] ^= 1;
    assert_int_equal(ndd_counters_unpack(&b, p.data + 3, p.len - 3, &used), NDD_ERR_VERSION);
    p.data[3 + 4] ^= 1;
    assert_int_equal(ndd_counters_unpack(&b, p.data + 3, p.len - 3, NULL), NDD_OK);
    ndd_buf_free(&p);
}

/* ---- stats.json ---- */

static void golden_input(ndd_counters_t *s, ndd_topsets_t *top, ndd_rank_stats_t pr[2], ndd_stats_in_t *in)
{
    memset(s, 0, sizeof *s);
    s->input_bytes = 1000, s->docs_read = 50, s->rejected = 3, s->no_text = 2, s->text_bytes = 800, s->no_sigs = 1;
    s->signatures = 400, s->keys_distinct = 300, s->postings_single = 250, s->lists_live = 40;
    s->lists_dropped_frequent = 5, s->lists_dropped_site = 4, s->lists_dropped_template = 3;
    s->postings_dropped = 60, s->links_all = 70, s->edges = 65;
    s->sets = 12, s->docs_in_sets = 30, s->giant_sets = 1, s->docs_in_giant_sets = 8, s->giant_sets_split = 1;
    s->links_cut_giant = 2;
    s->cand_pairs = 45, s->pairs_skipped_joined = 5, s->pairs_exact = 6, s->pairs_verified = 34;
    s->pairs_pruned_bound = 7, s->pairs_pruned_anchors = 4, s->pairs_cost_limit = 1, s->pairs_formulaic = 2, s->pairs_accepted = 20, s->verify_work = 45;
    s->sketch_pairs = 34, s->strain_away_micro = 8512345;
    s->clusters = 9, s->docs_in_clusters = 25, s->docs_removed = 16, s->docs_removed_exact = 3, s->docs_removed_near = 13;
    s->docs_in_near_clusters = 20, s->exact_groups = 2, s->exact_docs = 3, s->exact_shuffle_bytes = 1152;
    s->tmpl_blocks = 900, s->tmpl_blocks_removed = 300, s->tmpl_site_blocks = 20, s->tmpl_corpus_blocks = 2;
    s->tmpl_bytes_removed = 5000, s->tmpl_text_bytes = 700, s->tmpl_docs_touched = 40, s->tmpl_docs_whole = 1;
    s->tmpl_shuffle_bytes = 14400, s->shuffle1_bytes = 5000, s->shuffle2_bytes = 3000, s->shuffle2_raw_bytes = 9000, s->shuffle3_bytes = 1200;
    s->spill_texts = 4096, s->spill_received = 2048, s->spill_links = 48, s->spill_peak = 4144, s->sets_in_blocks = 3;
    s->hist[0] = 99, s->hist[1] = 7, s->hist[2] = 4, s->hist[3] = 1;
    memset(top, 0, sizeof *top);
    top->n = 2;
    top->v[0].size = 9, top->v[0].label = 4;
    strcpy(top->v[0].first_id, "doc\"9");
    top->v[1].size = 5, top->v[1].label = 2;
    strcpy(top->v[1].first_id, "d5");
    static const double sec0[NDD_ST_N] = {0.5, 0.2, 0.05, 0.25, 0.125, 1, 2, 0.0625, 3, 0.01, 0, 0.25};
    static const double sec1[NDD_ST_N] = {1.5, 0.4, 0.15, 0.75, 0.375, 2, 4, 0.1875, 5, 0.03, 0, 0.5};
    memset(pr, 0, 2 * sizeof *pr);
    memcpy(pr[0].seconds, sec0, sizeof sec0);
    memcpy(pr[1].seconds, sec1, sizeof sec1);
    pr[0].input_bytes = 600, pr[0].peak_rss_kib = 10240, pr[0].verify_work = 30;
    pr[1].input_bytes = 400, pr[1].peak_rss_kib = 20480, pr[1].verify_work = 15;
    static const uint64_t rss0[NDD_ST_N] = {9000, 10240, 0, 0, 8000, 7000, 6000, 5000, 4000, 3000, 0};
    static const uint64_t rss1[NDD_ST_N] = {20480, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    memcpy(pr[0].stage_rss_kib, rss0, sizeof rss0);
    memcpy(pr[1].stage_rss_kib, rss1, sizeof rss1);
    *in = (ndd_stats_in_t){"0.1.0", 2, 12.3456, "tlcs", "sentence", 1, 1000, 3, s, top, pr, NULL, 0, NULL, 0, 0, NULL, 0, 0, 0, 0, 0, NULL};
}

/* Written by hand from write_stats() in mpi/run_pipeline.c (before issue 10)
 * for golden_input(): docs = 50 - 2; average 30/12; trustable 20/30 (near
 * clusters only, since issue 12); strain 8.512345/34; duplicate 16/48;
 * per_doc 24752/48; medians of 2 ranks. The exact section, the exact stage
 * and the removed_exact/removed_near split were added by hand (issue 12),
 * pruned_by_anchor_bound (issue 13), the lsi section (issue 16) and the
 * index section (issue 15, zeros without --index) too. */
static const char golden[] =
    "{\n"
    "  \"version\": \"0.1.0\",\n"
    "  \"ranks\": 2,\n"
    "  \"wall_seconds\": 12.346,\n"
    "  \"verifier\": \"tlcs\",\n"
    "  \"candidates\": \"sentence\",\n"
    "  \"read\": {\n"
    "    \"input_bytes\": 1000,\n"
    "    \"docs_read\": 50,\n"
    "    \"rejected\": 3,\n"
    "    \"no_visible_text\": 2,\n"
    "    \"docs\": 48,\n"
    "    \"text_bytes\": 800,\n"
    "    \"docs_without_signatures\": 1,\n"
    "    \"duplicate_ids\": 0\n"
    "  },\n"
    "  \"templates\": {\n"
    "    \"blocks\": 900,\n"
    "    \"blocks_removed\": 300,\n"
    "    \"site_templates\": 20,\n"
    "    \"corpus_templates\": 2,\n"
    "    \"bytes_removed\": 5000,\n"
    "    \"text_bytes_after\": 700,\n"
    "    \"docs_with_templates\": 40,\n"
    "    \"docs_all_template\": 1\n"
    "  },\n"
    "  \"exact\": {\n"
    "    \"groups\": 2,\n"
    "    \"duplicates\": 3\n"
    "  },\n"
    "  \"signatures\": {\n"
    "    \"signatures\": 400,\n"
    "    \"distinct\": 300,\n"
    "    \"held_by_one_doc\": 250,\n"
    "    \"lists_live\": 40,\n"
    "    \"dropped_frequent\": 5,\n"
    "    \"dropped_site_concentrated\": 4,\n"
    "    \"dropped_site_template\": 3,\n"
    "    \"postings_in_dropped_lists\": 60,\n"
    "    \"links\": 70,\n"
    "    \"links_kept\": 65,\n"
    "    \"min_link_signatures\": 1\n"
    "  },\n"
    "  \"sets\": {\n"
    "    \"components_rounds\": 3,\n"
    "    \"sets\": 12,\n"
    "    \"docs_in_sets\": 30,\n"
    "    \"average_set_size\": 2.500,\n"
    "    \"giant_sets\": 1,\n"
    "    \"docs_in_giant_sets\": 8,\n"
    "    \"giant_threshold\": 1000,\n"
    "    \"giant_sets_split\": 1,\n"
    "    \"giant_guard_links_refused\": 2,\n"
    "    \"size_histogram\": {\"2-3\": 7, \"4-7\": 4, \"8-15\": 1},\n"
    "    \"largest\": [{\"size\": 9, \"first_doc\": \"doc\\\"9\"}, {\"size\": 5, \"first_doc\": \"d5\"}]\n"
    "  },\n"
    "  \"verify\": {\n"
    "    \"candidate_pairs\": 45,\n"
    "    \"skipped_already_joined\": 5,\n"
    "    \"identical_text\": 6,\n"
    "    \"verified\": 34,\n"
    "    \"pruned_by_bound\": 7,\n"
    "    \"pruned_by_anchor_bound\": 4,\n"
    "    \"cost_limit_hits\": 1,\n"
    "    \"rejected_formulaic\": 2,\n"
    "    \"accepted\": 20,\n"
    "    \"trustable_rate\": 0.6667,\n"
    "    \"work_max_rank\": 30,\n"
    "    \"work_min_rank\": 15\n"
    "  },\n"
    "  \"sketch\": {\n"
    "    \"pairs\": 34,\n"
    "    \"strain_away\": 0.2504,\n"
    "    \"reserve\": null\n"
    "  },\n"
    "  \"lsi\": {\n"
    "    \"terms\": 0,\n"
    "    \"concepts\": 0,\n"
    "    \"lsh_keys\": 0,\n"
    "    \"conceptual_accepted\": 0\n"
    "  },\n"
    "  \"clusters\": {\n"
    "    \"clusters\": 9,\n"
    "    \"docs_in_clusters\": 25,\n"
    "    \"docs_removed\": 16,\n"
    "    \"removed_exact\": 3,\n"
    "    \"removed_near\": 13,\n"
    "    \"duplicate_fraction\": 0.333333\n"
    "  },\n"
    "  \"shuffle_bytes\": {\n"
    "    \"templates\": 14400,\n"
    "    \"exact\": 1152,\n"
    "    \"shuffle1_signatures\": 5000,\n"
    "    \"shuffle2_texts_compressed\": 3000,\n"
    "    \"shuffle2_texts_raw\": 9000,\n"
    "    \"shuffle3_rows\": 1200,\n"
    "    \"per_doc\": 515.7\n"
    "  },\n"
    "  \"memory\": {\n"
    "    \"budget_per_rank_bytes\": 0,\n"
    "    \"budget_source\": \"\",\n"
    "    \"shuffle1_rounds\": 0,\n"
    "    \"spilled_texts_bytes\": 4096,\n"
    "    \"spilled_received_texts_bytes\": 2048,\n"
    "    \"spilled_link_runs_bytes\": 48,\n"
    "    \"spill_files_peak_bytes\": 4144,\n"
    "    \"sets_verified_in_blocks\": 3\n"
    "  },\n"
    "  \"index\": {\n"
    "    \"batch\": 0,\n"
    "    \"docs_before\": 0,\n"
    "    \"docs_new\": 0,\n"
    "    \"verdicts_from_cache\": 0,\n"
    "    \"verdicts_new\": 0,\n"
    "    \"links_incremental\": 0,\n"
    "    \"lists_touched\": 0\n"
    "  },\n"
    "  \"stage_seconds\": {\n"
    "    \"read\": {\"min\": 0.5000, \"median\": 1.0000, \"max\": 1.5000},\n"
    "    \"templates\": {\"min\": 0.2000, \"median\": 0.3000, \"max\": 0.4000},\n"
    "    \"exact\": {\"min\": 0.0500, \"median\": 0.1000, \"max\": 0.1500},\n"
    "    \"signatures\": {\"min\": 0.2500, \"median\": 0.5000, \"max\": 0.7500},\n"
    "    \"shuffle1\": {\"min\": 0.1250, \"median\": 0.2500, \"max\": 0.3750},\n"
    "    \"postings\": {\"min\": 1.0000, \"median\": 1.5000, \"max\": 2.0000},\n"
    "    \"components\": {\"min\": 2.0000, \"median\": 3.0000, \"max\": 4.0000},\n"
    "    \"shuffle2\": {\"min\": 0.0625, \"median\": 0.1250, \"max\": 0.1875},\n"
    "    \"verify\": {\"min\": 3.0000, \"median\": 4.0000, \"max\": 5.0000},\n"
    "    \"output\": {\"min\": 0.0100, \"median\": 0.0200, \"max\": 0.0300},\n"
    "    \"dedup\": {\"min\": 0.0000, \"median\": 0.0000, \"max\": 0.0000},\n"
    "    \"checkpoints\": {\"min\": 0.2500, \"median\": 0.3750, \"max\": 0.5000}\n"
    "  },\n"
    "  \"per_rank\": [\n"
    "    {\"rank\": 0, \"input_bytes\": 600, \"peak_rss_kib\": 10240, \"stage_seconds\": {\"read\": 0.5000, \"templates\": 0.2000, "
    "\"exact\": 0.0500, \"signatures\": 0.2500, \"shuffle1\": 0.1250, \"postings\": 1.0000, \"components\": 2.0000, \"shuffle2\": "
    "0.0625, \"verify\": 3.0000, \"output\": 0.0100, \"dedup\": 0.0000, \"checkpoints\": 0.2500}, \"stage_peak_rss_kib\": {\"read\": 9000, "
    "\"templates\": 10240, \"exact\": 0, \"signatures\": 0, \"shuffle1\": 8000, \"postings\": 7000, \"components\": 6000, "
    "\"shuffle2\": 5000, \"verify\": 4000, \"output\": 3000, \"dedup\": 0, \"checkpoints\": 0}},\n"
    "    {\"rank\": 1, \"input_bytes\": 400, \"peak_rss_kib\": 20480, \"stage_seconds\": {\"read\": 1.5000, \"templates\": 0.4000, "
    "\"exact\": 0.1500, \"signatures\": 0.7500, \"shuffle1\": 0.3750, \"postings\": 2.0000, \"components\": 4.0000, \"shuffle2\": "
    "0.1875, \"verify\": 5.0000, \"output\": 0.0300, \"dedup\": 0.0000, \"checkpoints\": 0.5000}, \"stage_peak_rss_kib\": {\"read\": 20480, "
    "\"templates\": 1, \"exact\": 2, \"signatures\": 3, \"shuffle1\": 4, \"postings\": 5, \"components\": 6, "
    "\"shuffle2\": 7, \"verify\": 8, \"output\": 9, \"dedup\": 10, \"checkpoints\": 11}}\n"
    "  ]\n"
    "}\n";

static void test_stats_golden(void **state)
{
    (void)state;
    ndd_counters_t s;
    ndd_topsets_t top;
    ndd_rank_stats_t pr[2];
    ndd_stats_in_t in;
    golden_input(&s, &top, pr, &in);
    ndd_buf_t b = NDD_BUF_INIT;
    assert_int_equal(ndd_stats_json(&b, &in), NDD_OK);
    assert_string_equal(b.data, golden);
    assert_int_equal(b.len, sizeof golden - 1);
    ndd_buf_free(&b);
    /* the stage table */
    static const char *const names[] = {"read",     "templates",  "exact",    "signatures", "shuffle1", "postings",
                                        "components", "shuffle2", "verify", "output",   "dedup",      "checkpoints"};
    assert_int_equal(NDD_ST_N, 12);
    for (int st = 0; st < NDD_ST_N; st++)
        assert_string_equal(ndd_stage_names[st], names[st]);
    assert_int_equal(NDD_ST_VERIFY, 8);
}

static int contains(const ndd_buf_t *b, const char *s) { return strstr(b->data, s) != NULL; }

/* Zero counters, three ranks (odd median), no largest sets, a baseline. */
static void test_stats_empty(void **state)
{
    (void)state;
    ndd_counters_t s;
    memset(&s, 0, sizeof s);
    ndd_rank_stats_t pr[3];
    memset(pr, 0, sizeof pr);
    for (int q = 0; q < 3; q++)
        for (int st = 0; st < NDD_ST_N; st++)
            pr[q].seconds[st] = (double)((q + st) % 3 + 1);
    pr[0].verify_work = 7, pr[1].verify_work = 2, pr[2].verify_work = 9;
    ndd_stats_in_t in = {"0.1.0", 3, 0.0004, "signcd", "simhash", 0, 0, 0, &s, NULL, pr, NULL, 0, NULL, 0, 0, NULL, 0, 0, 0, 0, 0, NULL};
    ndd_buf_t b = NDD_BUF_INIT;
    assert_int_equal(ndd_stats_json(&b, &in), NDD_OK);
    assert_true(contains(&b, "  \"ranks\": 3,\n  \"wall_seconds\": 0.000,\n  \"verifier\": \"signcd\",\n"
                             "  \"candidates\": \"simhash\",\n  \"read\": {\n    \"input_bytes\": 0,\n"));
    assert_true(contains(&b, "\"average_set_size\": 0.000,\n"));
    assert_true(contains(&b, "\"giant_guard_links_refused\": 0,\n    \"size_histogram\": {},\n"
                             "    \"largest\": []\n  },\n  \"verify\": {\n"));
    assert_true(contains(&b, "\"trustable_rate\": 0.0000,\n    \"work_max_rank\": 9,\n    \"work_min_rank\": 2\n"));
    assert_true(contains(&b, "\"pairs\": 0,\n    \"strain_away\": null,\n    \"reserve\": null\n  },\n"));
    assert_true(contains(&b, "\"duplicate_fraction\": 0.000000\n"));
    assert_true(contains(&b, "\"per_doc\": 0.0\n  },\n  \"memory\": {\n"));
    assert_true(contains(&b, "\"sets_verified_in_blocks\": 0\n  },\n  \"index\": {\n    \"batch\": 0,\n"));
    assert_true(contains(&b, "\"lists_touched\": 0\n  },\n  \"stage_seconds\": {\n"));
    assert_true(contains(&b, "\"read\": {\"min\": 1.0000, \"median\": 2.0000, \"max\": 3.0000},\n"));
    assert_true(contains(&b, "\n    {\"rank\": 2, \"input_bytes\": 0, \"peak_rss_kib\": 0, \"stage_seconds\": "
                             "{\"read\": 3.0000, \"templates\": 1.0000, \"exact\": 2.0000, \"signatures\": 3.0000,"));
    assert_true(contains(&b, "\"dedup\": 1.0000, \"checkpoints\": 2.0000}, \"stage_peak_rss_kib\": {\"read\": 0, "));
    assert_true(contains(&b, "\"output\": 0, \"dedup\": 0, \"checkpoints\": 0}}\n  ]\n}\n"));
    ndd_buf_free(&b);
    in.ranks = 0;
    assert_int_equal(ndd_stats_json(&b, &in), NDD_ERR_INVAL);
}

static void test_stats_roundtrip(void **state)
{
    (void)state;
    ndd_counters_t s, r;
    fill(&s, 3);
    s.docs_read = 1ull << 60; /* beyond a double's integers: read exactly */
    s.hist[0] = 0;            /* bucket 0 (single documents) is not written */
    ndd_rank_stats_t pr = {{0}, 1, 2, 3, {0}};
    const char *cmdl[] = {"run", "-o", "out \"x\"", "--url-field", "metadata.url", "in.jsonl"};
    const char *inp[] = {"in.jsonl"};
    ndd_stats_in_t in = {"x", 1, 1.0, "tlcs", "sentence", 4, 5, 6, &s, NULL, &pr, cmdl, 6, inp, 1, 7, "w \"d\"", 12345, 6, 1, (uint64_t)3 << 30, 4, "--mem-per-rank"};
    ndd_buf_t b = NDD_BUF_INIT;
    assert_int_equal(ndd_stats_json(&b, &in), NDD_OK);
    assert_true(contains(&b, "\"candidates\": \"sentence\",\n  \"command\": [\"run\", \"-o\", \"out \\\"x\\\"\", "
                             "\"--url-field\", \"metadata.url\", \"in.jsonl\"],\n  \"inputs\": {\"arguments\": "
                             "[\"in.jsonl\"], \"files\": 7},\n  \"work_dir\": {\"path\": \"w \\\"d\\\"\", \"bytes\": 12345, "
                             "\"files\": 6, \"removed\": true},\n  \"read\": {"));
    ndd_jv_t *root = NULL;
    assert_int_equal(ndd_json_parse(b.data, b.len, &root), NDD_OK);
    size_t found = 0, want = 0;
    memset(&r, 0x77, sizeof r);
    assert_int_equal(ndd_stats_read_counters(root, &r, &found), NDD_OK);
    for (size_t k = 0; k < ndd_counter_table_n; k++) {
        if (ndd_counter_table[k].section) {
            want++;
            assert_true(*cval(&r, k) == *cval(&s, k));
        } else {
            assert_true(*cval(&r, k) == 0); /* not in stats.json as such */
        }
    }
    assert_int_equal(found, want);
    assert_memory_equal(r.hist, s.hist, sizeof s.hist);
    double x = 0;
    assert_true(ndd_json_number(ndd_json_get(root, "sets.giant_threshold"), &x) && x == 5);
    assert_true(ndd_json_number(ndd_json_get(root, "signatures.min_link_signatures"), &x) && x == 4);
    assert_true(ndd_json_number(ndd_json_get(root, "sets.components_rounds"), &x) && x == 6);
    assert_true(ndd_json_number(ndd_json_get(root, "memory.budget_per_rank_bytes"), &x) && x == 3221225472.0);
    assert_true(ndd_json_number(ndd_json_get(root, "memory.shuffle1_rounds"), &x) && x == 4);
    assert_true(contains(&b, "\"memory\": {\n    \"budget_per_rank_bytes\": 3221225472,\n    \"budget_source\": "
                             "\"--mem-per-rank\",\n    \"shuffle1_rounds\": 4,\n    \"spilled_texts_bytes\": "));
    assert_true(ndd_json_number(ndd_json_get(root, "verify.work_max_rank"), &x) && x == 3);
    ndd_json_free(root);
    /* a document without counters */
    const char *few = "{\"read\": {\"docs_read\": 2.9}, \"sets\": 1}";
    assert_int_equal(ndd_json_parse(few, strlen(few), &root), NDD_OK);
    assert_int_equal(ndd_stats_read_counters(root, &r, &found), NDD_OK);
    assert_int_equal(found, 1);
    assert_int_equal(r.docs_read, 2);
    ndd_json_free(root);
    assert_int_equal(ndd_json_parse("[1]", 3, &root), NDD_OK);
    assert_int_equal(ndd_stats_read_counters(root, &r, &found), NDD_ERR_FORMAT);
    ndd_json_free(root);
    ndd_buf_free(&b);
}

/* ---- the JSON tree ---- */

static void test_json_tree(void **state)
{
    (void)state;
    const char *doc = " {\"a\": {\"b\": [1, 2.5e1, -0, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\\/\"]},"
                      " \"c.d\": {}, \"a\": 2} ";
    ndd_jv_t *root = NULL;
    assert_int_equal(ndd_json_parse(doc, strlen(doc), &root), NDD_OK);
    assert_int_equal(ndd_json_type(root), NDD_JV_OBJ);
    assert_int_equal(ndd_json_count(root), 3);
    assert_string_equal(ndd_json_key(root, 1), "c.d");
    assert_null(ndd_json_key(root, 3));
    const ndd_jv_t *arr = ndd_json_get(root, "a.b");
    assert_int_equal(ndd_json_type(arr), NDD_JV_ARR);
    assert_int_equal(ndd_json_count(arr), 7);
    assert_null(ndd_json_key(arr, 0));
    double x;
    assert_true(ndd_json_number(ndd_json_item(arr, 1), &x) && x == 25);
    assert_string_equal(ndd_json_numtext(ndd_json_item(arr, 1)), "2.5e1");
    assert_string_equal(ndd_json_numtext(ndd_json_item(arr, 2)), "-0");
    int bv = -1;
    assert_true(ndd_json_bool(ndd_json_item(arr, 3), &bv) && bv == 1);
    assert_true(ndd_json_bool(ndd_json_item(arr, 4), &bv) && bv == 0);
    assert_false(ndd_json_bool(ndd_json_item(arr, 5), &bv));
    assert_int_equal(ndd_json_type(ndd_json_item(arr, 5)), NDD_JV_NULL);
    assert_string_equal(ndd_json_str(ndd_json_item(arr, 6)), "x\xc3\xa9\xf0\x9f\x98\x80\n/");
    assert_null(ndd_json_str(ndd_json_item(arr, 0)));
    assert_null(ndd_json_item(arr, 7));
    assert_int_equal(ndd_json_type(NULL), NDD_JV_ABSENT);
    assert_int_equal(ndd_json_count(ndd_json_item(arr, 0)), 0);
    /* exact keys vs dotted paths; a repeated key: the first */
    assert_null(ndd_json_get(root, "c.d"));
    assert_int_equal(ndd_json_type(ndd_json_member(root, "c.d")), NDD_JV_OBJ);
    assert_int_equal(ndd_json_type(ndd_json_member(root, "a")), NDD_JV_OBJ);
    assert_null(ndd_json_get(root, "a.b.c"));
    assert_null(ndd_json_get(NULL, "a"));
    assert_false(ndd_json_number(NULL, &x));
    ndd_json_free(root);
    ndd_json_free(NULL);
}

static void test_json_errors(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        size_t at;
    } bad[] = {
        {"{\"ranks\": 2, \"read\": {\"docs\": 3", 31}, {"", 0}, {"01", 1}, {"[1,]", 3}, {"{\"a\" 1}", 5},
        {"\"\\ud800\"", 7}, {"\"\\udc00\"", 7}, {"\"a\x01\"", 3}, {"\"\\x\"", 3}, {"1.", 0}, {"1e", 0},
        {"[1] x", 4}, {"tru", 0}, {"-", 0}, {"{\"a\":1,}", 7}, {"\"abc", 4},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ndd_jv_t *root = (ndd_jv_t *)1;
        size_t at = 999;
        assert_int_equal(ndd_json_parse_at(bad[i].s, strlen(bad[i].s), &root, &at), NDD_ERR_FORMAT);
        assert_null(root);
        if (at != bad[i].at)
            fail_msg("'%s': error at %zu, expected %zu", bad[i].s, at, bad[i].at);
    }
    /* nesting: 64 levels are fine, 65 are not */
    char deep[200];
    for (int depth = 64; depth <= 65; depth++) {
        memset(deep, '[', (size_t)depth);
        memset(deep + depth, ']', (size_t)depth);
        ndd_jv_t *root = NULL;
        assert_int_equal(ndd_json_parse(deep, 2 * (size_t)depth, &root), depth == 64 ? NDD_OK : NDD_ERR_FORMAT);
        ndd_json_free(root);
    }
    ndd_jv_t *root = NULL;
    assert_int_equal(ndd_json_parse(NULL, 0, &root), NDD_ERR_FORMAT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_pair),         cmocka_unit_test(test_fmt_cluster_reject),
        cmocka_unit_test(test_records),          cmocka_unit_test(test_rows_sort_brute),
        cmocka_unit_test(test_counter_table),    cmocka_unit_test(test_counters_add_keep),
        cmocka_unit_test(test_counters_pack),
        cmocka_unit_test(test_stats_golden),     cmocka_unit_test(test_stats_empty),
        cmocka_unit_test(test_stats_roundtrip),  cmocka_unit_test(test_json_tree),
        cmocka_unit_test(test_json_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
