/* test_tmpl.c - template blocks (src/tmpl) against brute force: the block
 * hash and page key normalisations, one document's occurrences, the owner's
 * decision (distinct pages per site and block, distinct sites per short
 * block) on random occurrence multisets, the strip of a text, and the whole
 * pass on a small corpus of sites with navigation, footers, re-captures of
 * one URL and an article published on several pages of one site. */
#include "ndd_test.h"
#include "ndd_tmpl.h"

#include <xxhash.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { return ndd_test_xorshift(&rng_state); }

static uint64_t H(const char *s) { return ndd_tmpl_block_hash(s, strlen(s), NDD_TMPL_DEFAULT_MAX_SHORT); }

static void test_block_hash(void **state)
{
    (void)state;
    assert_true(H("Home | News | Sport") == H("home | news | SPORT"));
    assert_true(H("Home | News") == H("  Home  |   News "));
    assert_true(H("Home | News") != H("Home | Newz"));
    assert_true(H("a") & NDD_TMPL_SHORT_BIT);
    char longb[300];
    memset(longb, 'x', sizeof longb - 1);
    longb[sizeof longb - 1] = '\0';
    assert_false(H(longb) & NDD_TMPL_SHORT_BIT);
    longb[100] = '\0'; /* exactly max_short bytes is short */
    assert_true(H(longb) & NDD_TMPL_SHORT_BIT);
    assert_true(H("") != 0);
    /* non-ASCII bytes are kept as they are (no case folding outside ASCII) */
    assert_true(H("版权所有") != H("版權所有"));
}

/* The block hash against its definition, written out: trim spaces, tabs and
 * CRs, collapse their runs to one space, lower ASCII letters, XXH3-64 of the
 * result in one call (top bit = short), 0 -> 1. Random blocks of 0..10,000
 * bytes over a small alphabet with upper case, spaces, tabs, CRs and high
 * bytes, and over letters (@ [ ` { beside A-Z and a-z) with single spaces,
 * so that the buffered and the streamed hashing, and the 8-byte and the
 * byte-by-byte paths, are all crossed. */
static uint64_t block_hash_brute(const char *s, size_t n, uint32_t max_short)
{
    char *t = malloc(n + 1);
    assert_non_null(t);
    size_t a = 0, b = n, k = 0;
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r'))
        a++;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
        b--;
    for (size_t i = a; i < b; i++) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            if (t[k - 1] != ' ')
                t[k++] = ' ';
            continue;
        }
        t[k++] = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
    }
    uint64_t h = XXH3_64bits(t, k) & ~NDD_TMPL_SHORT_BIT;
    free(t);
    if (!h)
        h = 1;
    return k <= max_short ? h | NDD_TMPL_SHORT_BIT : h;
}

static void test_block_hash_brute(void **state)
{
    (void)state;
    /* the second alphabet is mostly letters and single spaces: the 8-byte
     * path, crossed now and then by a tab, a CR or a second space */
    static const char alpha[] = "aAbZz \t\r\xe4\xb8\x80.";
    static const char text[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{  \xc3\xa9";
    char *s = malloc(10001);
    assert_non_null(s);
    for (int r = 0; r < 800; r++) {
        size_t n = r % 400 < 200 ? rnd() % 300 : rnd() % 10001;
        for (size_t i = 0; i < n; i++)
            s[i] = r < 400 ? alpha[rnd() % (sizeof alpha - 1)]
                           : rnd() % 97 == 0 ? "\t\r "[rnd() % 3] : text[rnd() % (sizeof text - 1)];
        uint32_t ms = (uint32_t)(rnd() % 200);
        assert_true(ndd_tmpl_block_hash(s, n, ms) == block_hash_brute(s, n, ms));
    }
    free(s);
}

static void test_page_key(void **state)
{
    (void)state;
    uint32_t k = ndd_tmpl_page_key("https://www.Example.org/a/b/", NULL);
    assert_int_equal(k, ndd_tmpl_page_key("http://example.org/a/b", NULL));
    assert_int_equal(k, ndd_tmpl_page_key("http://example.org:80/a/b#top", NULL));
    assert_int_equal(k, ndd_tmpl_page_key("https://example.org:443/a/b/", NULL));
    assert_int_not_equal(k, ndd_tmpl_page_key("http://example.org/a/c", NULL));
    assert_int_not_equal(k, ndd_tmpl_page_key("http://example.org/a/b?x=1", NULL));
    /* the path keeps its case; no URL: the id */
    assert_int_not_equal(k, ndd_tmpl_page_key("http://example.org/A/b", NULL));
    assert_int_equal(ndd_tmpl_page_key("", "doc-1"), ndd_tmpl_page_key(NULL, "doc-1"));
    assert_int_not_equal(ndd_tmpl_page_key("", "doc-1"), ndd_tmpl_page_key("", "doc-2"));
}

static void test_doc_occ(void **state)
{
    (void)state;
    const char *t = "Home | News\nFirst line of the story.\n\nhome | news\nFooter (c) 2024\n  \nFirst line of the story.";
    ndd_tmpl_occ_t *v = NULL;
    size_t nv = 0, cap = 0;
    assert_int_equal(ndd_tmpl_doc_occ(t, strlen(t), 7, 9, 100, &v, &nv, &cap), NDD_OK);
    assert_int_equal(nv, 3); /* three distinct non-blank blocks */
    for (size_t i = 0; i < nv; i++) {
        assert_int_equal(v[i].page, 7);
        assert_int_equal(v[i].site, 9);
        assert_int_equal(v[i].content, v[0].content);
        assert_int_not_equal(v[i].content, 0);
        if (i)
            assert_true(v[i - 1].block < v[i].block);
    }
    /* appends after what is there */
    assert_int_equal(ndd_tmpl_doc_occ("x\ny", 3, 1, 2, 100, &v, &nv, &cap), NDD_OK);
    assert_int_equal(nv, 5);
    assert_int_not_equal(v[3].content, v[0].content);
    /* the content hash is of the set of blocks: order and repeats do not matter */
    assert_int_equal(ndd_tmpl_doc_occ("y\nx\nY", 5, 3, 4, 100, &v, &nv, &cap), NDD_OK);
    assert_int_equal(nv, 7);
    assert_int_equal(v[5].content, v[3].content);
    assert_int_equal(ndd_tmpl_doc_occ("", 0, 1, 2, 100, &v, &nv, &cap), NDD_OK);
    assert_int_equal(nv, 7);
    free(v);
}

/* Brute force of ndd_tmpl_decide: counts by nested loops. */
static int brute_flag(const ndd_tmpl_params_t *p, const ndd_tmpl_occ_t *o, size_t n, size_t i)
{
    uint64_t pages = 0, contents = 0, sites = 0;
    for (size_t j = 0; j < n; j++) {
        if (o[j].block != o[i].block)
            continue;
        int first_page = 1, first_content = 1, first_site = 1;
        for (size_t k = 0; k < j; k++) {
            if (o[k].block != o[i].block)
                continue;
            if (o[k].site == o[j].site && o[k].page == o[j].page)
                first_page = 0;
            if (o[k].site == o[j].site && o[k].content == o[j].content)
                first_content = 0;
            if (o[k].site == o[j].site)
                first_site = 0;
        }
        if (o[j].site == o[i].site && first_page)
            pages++;
        if (o[j].site == o[i].site && first_content)
            contents++;
        if (o[j].site && first_site)
            sites++;
    }
    int site_t = p->min_pages && o[i].site && pages >= p->min_pages && contents >= p->min_pages;
    int corpus = p->min_sites && (o[i].block & NDD_TMPL_SHORT_BIT) && sites >= p->min_sites;
    return site_t || corpus;
}

static void test_decide_brute(void **state)
{
    (void)state;
    for (int round = 0; round < 300; round++) {
        ndd_tmpl_params_t p;
        ndd_tmpl_params_default(&p);
        p.min_pages = 1 + (uint32_t)(rnd() % 5);
        p.min_sites = (uint32_t)(rnd() % 5);
        if (round % 7 == 0)
            p.min_pages = 0;
        size_t n = (size_t)(rnd() % 200);
        ndd_tmpl_occ_t *o = malloc((n + 1) * sizeof *o);
        uint8_t *flag = malloc(n + 1);
        /* 6 blocks: small numbers, or hashes spread over the top bits (some
         * sharing their top 16 bits: the sort's buckets) */
        uint64_t blocks[6];
        for (int k = 0; k < 6; k++)
            blocks[k] = round % 2 ? (uint64_t)(1 + k) : (rnd() & 0xFFFF00000000FFFFull) | ((uint64_t)(k % 3) << 48);
        for (size_t i = 0; i < n; i++) {
            uint64_t b = blocks[rnd() % 6];
            o[i].block = (rnd() & 1) ? b | NDD_TMPL_SHORT_BIT : b;
            o[i].site = (uint32_t)(rnd() % 4); /* 0 = unknown site */
            o[i].page = (uint32_t)(rnd() % 6);
            o[i].content = (uint32_t)(rnd() % 7);
        }
        ndd_tmpl_decided_t dec = {0, 0};
        assert_int_equal(ndd_tmpl_decide(&p, o, n, flag, &dec), NDD_OK);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(flag[i], brute_flag(&p, o, n, i));
        free(o);
        free(flag);
    }
}

static void test_strip(void **state)
{
    (void)state;
    const char *vocab[] = {"Home | News | Sport", "Subscribe now", "The council met on Tuesday.", "Rates rose 2 pct.",
                           "All rights reserved", "Ölpreis steigt", "市场价格上涨"};
    ndd_buf_t out = NDD_BUF_INIT, want = NDD_BUF_INIT;
    for (int round = 0; round < 500; round++) {
        char text[2048];
        size_t tl = 0, nb = 1 + rnd() % 10;
        int is_t[7];
        uint64_t tmpl[7];
        size_t nt = 0;
        for (int v = 0; v < 7; v++)
            if ((is_t[v] = (int)(rnd() % 3 == 0)))
                tmpl[nt++] = H(vocab[v]);
        nt = ndd_u64_sort_unique(tmpl, nt);
        ndd_buf_clear(&want);
        size_t gone_want = 0;
        for (size_t b = 0; b < nb; b++) {
            int v = (int)(rnd() % 7);
            size_t l = strlen(vocab[v]);
            if (b)
                text[tl++] = '\n';
            memcpy(text + tl, vocab[v], l);
            tl += l;
            if (is_t[v]) {
                gone_want += l;
                continue;
            }
            if (want.len)
                ndd_buf_append(&want, "\n", 1);
            ndd_buf_append(&want, vocab[v], l);
        }
        size_t maxb = (round % 3) ? 0 : rnd() % 80, gone = 0;
        assert_int_equal(ndd_tmpl_strip(text, tl, tmpl, nt, 100, maxb, &out, &gone), NDD_OK);
        size_t wl = maxb && want.len > maxb ? ndd_utf8_cut(want.data, want.len, maxb) : want.len;
        if (!want.len && gone_want) { /* only template blocks: the text stays whole */
            ndd_buf_clear(&want);
            ndd_buf_append(&want, text, tl);
            wl = maxb && tl > maxb ? ndd_utf8_cut(text, tl, maxb) : tl;
            gone_want = 0;
        }
        assert_int_equal(out.len, wl);
        if (wl)
            assert_memory_equal(out.data, want.data, wl);
        assert_true(ndd_utf8_valid(out.data ? out.data : "", out.len));
        assert_int_equal(gone, gone_want);
    }
    ndd_buf_free(&out);
    ndd_buf_free(&want);
}

/* ndd_tmpl_doc_occ_seq and ndd_tmpl_strip_seq (the blocks hashed once)
 * against ndd_tmpl_doc_occ and ndd_tmpl_strip on random texts: blank and
 * whitespace-only lines, runs of spaces, tabs and CRs, capitals, lines past
 * the hash's 4 KiB buffer, leading, trailing and doubled newlines, empty
 * texts; templates drawn from the text's own blocks; a cut. A sequence of
 * another length is refused. */
static void test_strip_seq(void **state)
{
    (void)state;
    static const char *const piece[] = {"Home", "NEWS", " ", "\t", "\r", "  ", "a b", "Rates rose 2 pct.", "\n",
                                        "\n", "\n", "\n \t\n", "市场", "x"};
    ndd_buf_t text = NDD_BUF_INIT, a = NDD_BUF_INIT, b = NDD_BUF_INIT;
    ndd_tmpl_occ_t *v1 = NULL, *v2 = NULL;
    uint64_t *seq = NULL;
    size_t c1 = 0, c2 = 0, cs = 0;
    for (int round = 0; round < 3000; round++) {
        ndd_buf_clear(&text);
        size_t np = rnd() % 40;
        for (size_t k = 0; k < np; k++) {
            const char *pc = piece[rnd() % (sizeof piece / sizeof piece[0])];
            ndd_buf_puts(&text, pc);
            if (rnd() % 200 == 0) /* a line longer than the hash's buffer */
                for (int j = 0; j < 700; j++)
                    ndd_buf_puts(&text, "Word ");
        }
        uint32_t max_short = (uint32_t)(rnd() % 3 == 0 ? 3 : NDD_TMPL_DEFAULT_MAX_SHORT);
        size_t n1 = 0, n2 = 0, ns = 0;
        assert_int_equal(ndd_tmpl_doc_occ(text.data ? text.data : "", text.len, 5, 6, max_short, &v1, &n1, &c1), NDD_OK);
        assert_int_equal(ndd_tmpl_doc_occ_seq(text.data ? text.data : "", text.len, 5, 6, max_short, &v2, &n2, &c2,
                                              &seq, &ns, &cs),
                         NDD_OK);
        assert_int_equal(n1, n2);
        for (size_t k = 0; k < n1; k++) { /* (field by field: the structs have padding) */
            assert_int_equal(v1[k].block, v2[k].block);
            assert_int_equal(v1[k].page, v2[k].page);
            assert_int_equal(v1[k].site, v2[k].site);
            assert_int_equal(v1[k].content, v2[k].content);
        }
        uint64_t tmpl[64];
        size_t nt = 0;
        for (size_t k = 0; k < ns && nt < 64; k++) /* some of its own blocks are templates, and a stranger */
            if (seq[k] && rnd() % 2)
                tmpl[nt++] = seq[k];
        if (rnd() % 4 == 0)
            tmpl[nt++] = 12345;
        nt = ndd_u64_sort_unique(tmpl, nt);
        size_t maxb = rnd() % 3 ? 0 : rnd() % 60, g1 = 7, g2 = 9;
        assert_int_equal(ndd_tmpl_strip(text.data ? text.data : "", text.len, tmpl, nt, max_short, maxb, &a, &g1), NDD_OK);
        assert_int_equal(ndd_tmpl_strip_seq(text.data ? text.data : "", text.len, ns ? seq : NULL, ns, tmpl, nt, maxb,
                                            &b, &g2),
                         NDD_OK);
        assert_int_equal(a.len, b.len);
        if (a.len)
            assert_memory_equal(a.data, b.data, a.len);
        assert_int_equal(g1, g2);
        if (ns) { /* one hash short, or one too many: refused */
            assert_int_equal(ndd_tmpl_strip_seq(text.data, text.len, seq, ns - 1, tmpl, nt, maxb, &b, NULL), NDD_ERR_INVAL);
            assert_int_equal(ndd_tmpl_doc_occ_seq(text.data, text.len, 5, 6, max_short, &v2, &n2, &c2, &seq, &ns, &cs),
                             NDD_OK); /* (appended: now twice the blocks) */
            assert_int_equal(ndd_tmpl_strip_seq(text.data, text.len, seq, ns, tmpl, nt, maxb, &b, NULL), NDD_ERR_INVAL);
        }
    }
    free(v1);
    free(v2);
    free(seq);
    ndd_buf_free(&text);
    ndd_buf_free(&a);
    ndd_buf_free(&b);
}

/* The whole pass, as the engine runs it, on 3 sites x 8 pages: navigation and
 * a footer on every page of a site, a short cookie line on every site, an
 * article that one site published on 3 of its pages, and one page captured
 * 6 times (one URL). */
static void test_corpus(void **state)
{
    (void)state;
    enum { SITES = 12, PAGES = 8 };
    char *texts[SITES * PAGES + 26];
    char urls[SITES * PAGES + 26][96];
    uint32_t sites[SITES * PAGES + 26];
    size_t nd = 0;
    for (int s = 0; s < SITES; s++)
        for (int pg = 0; pg < PAGES; pg++) {
            char buf[1024];
            int shared = s == 0 && pg < 3; /* one article on 3 pages of site 0 */
            snprintf(buf, sizeof buf,
                     "Site %d home | World | Business | Contact\n"
                     "We use cookies to improve your experience.\n"
                     "%s article %d of site %d tells its own story in several words.\n"
                     "Second paragraph %d-%d with more of the story.\n"
                     "Copyright site %d, all rights reserved.",
                     s, shared ? "The shared" : "A unique", shared ? 0 : pg, shared ? 0 : s, shared ? 0 : s,
                     shared ? 0 : pg, s);
            texts[nd] = strdup(buf);
            snprintf(urls[nd], sizeof urls[nd], "https://site%d.example/%d/", s, pg);
            sites[nd] = (uint32_t)(s + 1);
            nd++;
        }
    for (int c = 0; c < 6; c++) { /* six captures of one URL of site 1 */
        char buf[1024];
        snprintf(buf, sizeof buf,
                 "Site 1 home | World | Business | Contact\nWe use cookies to improve your experience.\n"
                 "Front page of site 1 with the news of the day.\nCapture %d.\n"
                 "Copyright site 1, all rights reserved.",
                 c);
        texts[nd] = strdup(buf);
        snprintf(urls[nd], sizeof urls[nd], "http://www.site1.example/front");
        sites[nd] = 2;
        nd++;
    }
    for (int c = 0; c < 20; c++) { /* one text under 20 URLs of site 2 (say ?session=...) */
        texts[nd] = strdup("Site 2 home | World | Business | Contact\nThe same notice under twenty URLs of the site.");
        snprintf(urls[nd], sizeof urls[nd], "https://site2.example/notice?s=%d", c);
        sites[nd] = 3;
        nd++;
    }
    ndd_tmpl_params_t p;
    ndd_tmpl_params_default(&p);
    ndd_tmpl_occ_t *occ = NULL;
    size_t nocc = 0, cap = 0, *first = calloc(nd + 1, sizeof *first);
    for (size_t i = 0; i < nd; i++) {
        first[i] = nocc;
        assert_int_equal(ndd_tmpl_doc_occ(texts[i], strlen(texts[i]), ndd_tmpl_page_key(urls[i], NULL), sites[i],
                                          p.max_short, &occ, &nocc, &cap),
                         NDD_OK);
    }
    first[nd] = nocc;
    uint8_t *flag = calloc(nocc, 1);
    ndd_tmpl_decided_t dec = {0, 0};
    assert_int_equal(ndd_tmpl_decide(&p, occ, nocc, flag, &dec), NDD_OK);
    assert_int_equal(dec.corpus_blocks, 1);    /* the cookie line */
    assert_int_equal(dec.site_blocks, 3 * 12); /* navigation, cookie line, footer of each site */
    ndd_buf_t out = NDD_BUF_INIT;
    for (size_t i = 0; i < nd; i++) {
        uint64_t t[16];
        size_t nt = 0;
        for (size_t k = first[i]; k < first[i + 1]; k++)
            if (flag[k])
                t[nt++] = occ[k].block;
        assert_int_equal(ndd_tmpl_strip(texts[i], strlen(texts[i]), t, nt, p.max_short, 0, &out, NULL), NDD_OK);
        ndd_buf_append(&out, "", 1);
        assert_null(strstr(out.data, "home | World"));
        assert_null(strstr(out.data, "cookies"));
        assert_null(strstr(out.data, "Copyright"));
        if (i < (size_t)SITES * PAGES) {
            assert_non_null(strstr(out.data, "article"));          /* also the article on 3 pages of one site */
            assert_non_null(strstr(out.data, "Second paragraph")); /* (3 < min_pages) */
        } else if (i < (size_t)SITES * PAGES + 6) {
            assert_non_null(strstr(out.data, "Front page")); /* 6 captures = one page */
        } else { /* 20 URLs, one content: the notice is no template; navigation is */
            assert_string_equal(out.data, "The same notice under twenty URLs of the site.");
        }
    }
    ndd_buf_free(&out);
    for (size_t i = 0; i < nd; i++)
        free(texts[i]);
    free(first);
    free(flag);
    free(occ);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_hash),   cmocka_unit_test(test_block_hash_brute),   cmocka_unit_test(test_page_key), cmocka_unit_test(test_doc_occ),
        cmocka_unit_test(test_decide_brute), cmocka_unit_test(test_strip), cmocka_unit_test(test_strip_seq),    cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
