/* test_tlcs.c - trustable LCS: synthetic invariants, the template test on
 * real Reuters text wrapped in site templates (through the HTML text
 * extractor, as the pipeline does), edited copies, and the Clough ordering. */
#include "ndd_test.h"
#include "ndd_text.h"
#include "ndd_verify.h"
#include "verify_int.h"

#include <ctype.h>
#include <math.h>

static uint64_t rng_state = 0x13198A2E03707344ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static ndd_tlcs_ws_t *g_ws;

static int setup(void **state)
{
    (void)state;
    return ndd_tlcs_ws_create(&g_ws);
}
static int teardown(void **state)
{
    (void)state;
    ndd_tlcs_ws_free(g_ws);
    return 0;
}

static void cmp(const ndd_tlcs_params_t *p, const char *a, size_t na, const char *b, size_t nb,
                ndd_tlcs_result_t *r)
{
    assert_int_equal(ndd_tlcs_compare(g_ws, p, a, na, b, nb, r), NDD_OK);
    /* invariants that hold for every pair */
    assert_true(r->tlcs <= r->lcs_upper || r->pruned_by_bound);
    assert_true(r->sketch_a <= na && r->sketch_b <= nb);
    assert_true(r->nregions <= NDD_TLCS_MAX_REGIONS);
    size_t sum = 0;
    for (unsigned i = 0; i < r->nregions; i++) {
        const ndd_tlcs_region_t *g = &r->regions[i];
        assert_true(g->a_start < g->a_end && g->a_end <= na);
        assert_true(g->b_start < g->b_end && g->b_end <= nb);
        assert_true(g->tlcs <= g->a_end - g->a_start && g->tlcs <= g->b_end - g->b_start);
        sum += g->tlcs;
    }
    assert_int_equal(sum, r->tlcs);
    if (!r->hit_cost_limit && !r->pruned_by_bound && r->iterations > 0)
        assert_int_equal(r->d, r->sketch_a + r->sketch_b - 2 * r->lcs);
}

/* ---------------- synthetic ---------------- */

/* Pseudo-English: words of 1-4 random syllables (few accidental 16-byte matches). */
static void fill_words(char *s, size_t n)
{
    static const char *syl[] = {"ta", "ken", "mo", "ri", "sal", "vo", "de", "lin", "pra", "gu", "tor",
                                "ne", "bas", "fi", "co", "rum", "el", "sta", "wi", "dor", "pe", "lu"};
    size_t i = 0;
    while (i < n) {
        size_t ns = 1 + rndn(4);
        for (size_t q = 0; q < ns; q++) {
            const char *x = syl[rndn(sizeof syl / sizeof syl[0])];
            for (size_t k = 0; x[k] && i < n; k++)
                s[i++] = x[k];
        }
        if (i < n)
            s[i++] = rndn(12) ? ' ' : '.';
    }
}

static void test_basic(void **state)
{
    (void)state;
    ndd_tlcs_params_t p;
    ndd_tlcs_params_default(&p);
    assert_int_equal(p.window, 16);
    assert_true(p.slope == 0.1 && p.min_resemblance == 0.28 && p.min_containment == 0.7);
    ndd_tlcs_result_t r;
    char a[6000], b[6000];
    fill_words(a, sizeof a);
    /* identical */
    cmp(&p, a, sizeof a, a, sizeof a, &r);
    assert_int_equal(r.tlcs, sizeof a);
    assert_int_equal(r.d, 0);
    assert_true(r.resemblance == 1.0 && r.duplicate);
    /* empty */
    cmp(&p, a, 0, a, sizeof a, &r);
    assert_false(r.duplicate);
    assert_int_equal(r.tlcs, 0);
    cmp(&p, NULL, 0, NULL, 0, &r);
    assert_false(r.duplicate);
    /* unrelated texts over the same vocabulary: strained away, pruned */
    fill_words(b, sizeof b);
    cmp(&p, a, sizeof a, b, sizeof b, &r);
    assert_false(r.duplicate);
    assert_true(r.strain_away > 0.5);
    /* bad parameters */
    ndd_tlcs_params_t q = p;
    q.window = 0;
    assert_int_equal(ndd_tlcs_compare(g_ws, &q, a, 10, b, 10, &r), NDD_ERR_INVAL);
}

/* Small substitutions (issue 11): gaps that both sketches strained away at
 * one place. B = A with 8 segments of 40-70 bytes replaced by other words, spread
 * evenly: with the rule the region spans the whole text and the TLCS is every
 * matched byte; with the paper's curve (subst_share 0) it collapses to the
 * stretch between two substitutions. Larger gaps, too many substitutions, and
 * a moved paragraph are not absorbed. */
static void substitute(char *b, size_t n, size_t k, size_t len)
{
    for (size_t i = 0; i < k; i++) {
        size_t at = (n / (k + 1)) * (i + 1) - len / 2;
        fill_words(b + at, len);
    }
}

static void test_substitutions(void **state)
{
    (void)state;
    ndd_tlcs_params_t on, off;
    ndd_tlcs_params_default(&on);
    off = on;
    off.subst_share = 0;
    assert_true(on.subst_share > 0.33 && on.subst_share < 0.34 && on.subst_max == 0);
    enum { N = 3000 };
    static char a[N], b[N];
    ndd_tlcs_result_t r1, r0;
    for (int round = 0; round < 20; round++) {
        fill_words(a, N);
        memcpy(b, a, N);
        substitute(b, N, 8, 40 + rndn(30)); /* 8 x 40-70 bytes: like the rotating snippets of archive.org */
        cmp(&on, a, N, b, N, &r1);
        cmp(&off, a, N, b, N, &r0);
        assert_true(r1.duplicate);
        assert_true(r1.resemblance > 0.6);
        assert_true(r1.tlcs > r0.tlcs);
        assert_true(r0.tlcs < N / 2); /* the paper's curve: no region across a substitution (4 iterations) */
        assert_true(r1.tlcs <= r1.lcs_upper);
        /* never counted as TLCS: at most the matched bytes */
        assert_true(r1.tlcs <= N - 8 * 40 + 2 * 16 * 8);
    }
    /* a gap larger than max(4S, |X|/8) (375 bytes here) in the middle: the
     * main content differs, nothing is absorbed (as without the rule) */
    fill_words(a, N);
    memcpy(b, a, N);
    fill_words(b + 1000, 1000);
    cmp(&on, a, N, b, N, &r1);
    cmp(&off, a, N, b, N, &r0);
    assert_int_equal(r1.tlcs, r0.tlcs);
    /* substitutions making up more than a third of the text: no region across them */
    memcpy(b, a, N);
    for (size_t at = 20; at + 60 < N; at += 100)
        fill_words(b + at, 55);
    cmp(&on, a, N, b, N, &r1);
    assert_true(r1.tlcs < N / 4);
    assert_false(r1.duplicate);
    /* a moved paragraph is kept by both sketches: no substitution, the
     * iterative variant finds it (the same TLCS as without the rule) */
    static char c[N];
    fill_words(a, N);
    memcpy(c, a, 750);
    memcpy(c + 750, a + 1500, 750);
    memcpy(c + 1500, a + 750, 750);
    memcpy(c + 2250, a + 2250, 750);
    cmp(&on, a, N, c, N, &r1);
    cmp(&off, a, N, c, N, &r0);
    assert_int_equal(r1.tlcs, r0.tlcs);
    assert_true(r1.duplicate);
}

/* Symmetry, and the exact mode equals plain Myers. */
static void test_symmetry_exact(void **state)
{
    (void)state;
    ndd_tlcs_params_t p, pe;
    ndd_tlcs_params_default(&p);
    pe = p;
    pe.exact = 1;
    ndd_myers_ws_t *my;
    assert_int_equal(ndd_myers_ws_create(&my), NDD_OK);
    char a[4000], b[5000];
    for (int round = 0; round < 60; round++) {
        size_t na = 500 + rndn(3500);
        fill_words(a, na);
        /* b: pieces of a, shuffled a little, with noise */
        size_t nb = 0;
        while (nb < 4500) {
            size_t from = rndn(na), len = 50 + rndn(600);
            if (from + len > na)
                len = na - from;
            if (nb + len + 20 > sizeof b)
                break;
            memcpy(b + nb, a + from, len);
            nb += len;
            if (rndn(2)) {
                fill_words(b + nb, 20);
                nb += 20;
            }
            if (rndn(5) == 0)
                break;
        }
        ndd_tlcs_result_t r1, r2;
        cmp(&p, a, na, b, nb, &r1);
        cmp(&p, b, nb, a, na, &r2);
        assert_int_equal(r1.tlcs, r2.tlcs);
        assert_int_equal(r1.lcs, r2.lcs);
        assert_int_equal(r1.sketch_a, r2.sketch_b);
        assert_int_equal(r1.duplicate, r2.duplicate);
        assert_int_equal(r1.nregions, r2.nregions);
        for (unsigned i = 0; i < r1.nregions; i++) {
            assert_int_equal(r1.regions[i].a_start, r2.regions[i].b_start);
            assert_int_equal(r1.regions[i].b_end, r2.regions[i].a_end);
        }
        cmp(&pe, a, na, b, nb, &r1);
        assert_int_equal(r1.sketch_a, na);
        ndd_myers_out_t mo;
        assert_int_equal(ndd_myers_diff(my, a, na, b, nb, SIZE_MAX, &mo), NDD_OK);
        assert_int_equal(r1.lcs, mo.lcs);
    }
    ndd_myers_ws_free(my);
}

/* With anchors (what ndd run hands over): the same verdict, TLCS, scores
 * and regions as without; a pair the anchor bound stops is one the sketch
 * bound stops too. Pairs from near copies to unrelated texts, both orders.
 * And the whole result is the same whether the anchor bound or the
 * sketches come first (ndd_tlcs_bound_order), on pairs the anchor bound
 * stops, pairs only the sketches stop and pairs that pass. */
static void test_anchors_same(void **state)
{
    (void)state;
    ndd_tlcs_params_t p;
    ndd_tlcs_params_default(&p);
    ndd_anchors_t xa = {0}, xb = {0};
    uint64_t *scratch = NULL;
    size_t scratch_cap = 0, stopped = 0, sketch_stopped = 0, dups = 0;
    char a[3000], b[3600];
    for (int round = 0; round < 300; round++) {
        size_t na = 200 + rndn(2800), nb = 0, keep = rndn(5); /* 0: unrelated .. 4: a near copy */
        fill_words(a, na);
        while (nb + 700 < sizeof b) {
            size_t len = 20 + rndn(600);
            if (rndn(4) < keep) {
                size_t from = rndn(na);
                if (from + len > na)
                    len = na - from;
                memcpy(b + nb, a + from, len);
            } else {
                fill_words(b + nb, len);
            }
            nb += len;
            if (rndn(6) == 0)
                break;
        }
        assert_int_equal(ndd_anchors_make(&xa, a, na, p.window, &scratch, &scratch_cap), NDD_OK);
        assert_int_equal(ndd_anchors_make(&xb, b, nb, p.window, &scratch, &scratch_cap), NDD_OK);
        for (int o = 0; o < 2; o++) {
            const char *x = o ? b : a, *y = o ? a : b;
            size_t nx = o ? nb : na, ny = o ? na : nb;
            ndd_tlcs_result_t plain, anc;
            cmp(&p, x, nx, y, ny, &plain);
            ndd_tlcs_ws_anchors(g_ws, o ? &xb : &xa, o ? &xa : &xb);
            cmp(&p, x, nx, y, ny, &anc);
            assert_int_equal(anc.duplicate, plain.duplicate);
            assert_int_equal(anc.tlcs, plain.tlcs);
            assert_int_equal(anc.pruned_by_bound, plain.pruned_by_bound);
            assert_true(anc.resemblance == plain.resemblance && anc.containment == plain.containment);
            assert_int_equal(anc.nregions, plain.nregions);
            for (unsigned g = 0; g < anc.nregions; g++)
                assert_memory_equal(&anc.regions[g], &plain.regions[g], sizeof anc.regions[g]);
            if (anc.anchor_pruned)
                assert_true(anc.lcs_upper >= plain.lcs_upper); /* the looser bound stopped it first */
            else
                assert_true(anc.sketch_a == plain.sketch_a && anc.sketch_b == plain.sketch_b);
            assert_false(plain.anchor_pruned); /* used once */
            for (int order = 1; order <= 2; order++) {
                ndd_tlcs_result_t forced;
                int old = ndd_tlcs_bound_order(order);
                ndd_tlcs_ws_anchors(g_ws, o ? &xb : &xa, o ? &xa : &xb);
                cmp(&p, x, nx, y, ny, &forced);
                ndd_tlcs_bound_order(old);
                assert_memory_equal(&forced, &anc, sizeof anc); /* compare zeroes r first: no stray padding */
            }
            stopped += anc.anchor_pruned;
            sketch_stopped += anc.pruned_by_bound && !anc.anchor_pruned;
            dups += anc.duplicate;
        }
    }
    assert_true(stopped > 50 && dups > 50 && sketch_stopped > 5); /* every kind of pair was met */
    ndd_anchors_free(&xa);
    ndd_anchors_free(&xb);
    free(scratch);
}

/* An edited copy of a[0..na) into b (at most cap bytes): substituted
 * letters, words replaced, spans dropped, new spans put in, a block moved;
 * more edits for larger `level`. */
static size_t edit_copy(const char *a, size_t na, char *b, size_t cap, unsigned level)
{
    size_t nb = 0;
    for (size_t i = 0; i < na && nb < cap;) {
        size_t r = rndn(1000);
        if (r < 4 * level) { /* a letter */
            b[nb++] = (char)('A' + rndn(26));
            i++;
        } else if (r < 5 * level && nb + 40 < cap) { /* a few words instead of a few others */
            size_t nw = 1 + rndn(30);
            fill_words(b + nb, nw);
            nb += nw;
            i += 1 + rndn(30);
        } else if (r < 6 * level) { /* a span dropped */
            i += 1 + rndn(200);
        } else if (r < 7 * level && nb + 300 < cap) { /* a span put in */
            size_t nw = 1 + rndn(300);
            fill_words(b + nb, nw);
            nb += nw;
        } else {
            b[nb++] = a[i++];
        }
    }
    if (level > 1 && nb > 400) { /* a block moved to the front */
        size_t from = rndn(nb - 300), len = 50 + rndn(250);
        char tmp[300];
        memcpy(tmp, b + from, len);
        memmove(b + len, b, from);
        memcpy(b, tmp, len);
    }
    return nb;
}

/* The curve's block sums by one walk (the default) give what the searches
 * at each boundary give (ndd_tlcs_curve_walk(0), the reference): the whole
 * result, byte for byte, over edited copies of every degree, parameters
 * varied (sketched and exact, max_iter, blocks, small substitutions off). */
static void test_curve_walk(void **state)
{
    (void)state;
    static char a[12000], b[16000];
    size_t dups = 0, iters = 0, freed = 0;
    for (int round = 0; round < 600; round++) {
        size_t na = 20 + rndn(round % 3 ? 11000 : 600);
        fill_words(a, na);
        size_t nb = edit_copy(a, na, b, sizeof b, (unsigned)rndn(8));
        if (round % 4 == 1 && na + 600 <= sizeof a) { /* A begins with words B does not have */
            size_t pre = 1 + rndn(600);
            memmove(a + pre, a, na);
            fill_words(a, pre);
            na += pre;
        } else if (round % 4 == 2 && na + 600 <= sizeof a) { /* ... or ends with them */
            size_t post = 1 + rndn(600);
            fill_words(a + na, post);
            na += post;
        }
        ndd_tlcs_params_t p;
        ndd_tlcs_params_default(&p);
        p.exact = round % 5 == 0;
        p.max_iter = 1 + (unsigned)rndn(4);
        p.blocks = round % 7 == 0 ? 2 + 2 * (unsigned)rndn(20) : 0;
        if (round % 11 == 0)
            p.subst_share = 0;
        ndd_tlcs_result_t walk, ref;
        int old = ndd_tlcs_curve_walk(1);
        cmp(&p, a, na, b, nb, &walk);
        ndd_tlcs_curve_walk(0);
        cmp(&p, a, na, b, nb, &ref);
        ndd_tlcs_curve_walk(old);
        assert_memory_equal(&walk, &ref, sizeof walk); /* compare zeroes r first: no stray padding */
        dups += walk.duplicate;
        iters += walk.iterations > 1;
        freed += walk.tlcs > 0 && walk.tlcs < walk.lcs;
    }
    assert_true(dups > 100 && iters > 100 && freed > 50); /* every kind of curve was met */
}

/* The cost limit is a reported outcome. */
static void test_cost_limit(void **state)
{
    (void)state;
    ndd_tlcs_params_t p;
    ndd_tlcs_params_default(&p);
    p.exact = 1;
    p.max_d = 10;
    char a[3000], b[3000];
    fill_words(a, sizeof a);
    memcpy(b, a, sizeof b);
    for (int i = 0; i < 40; i++)
        b[rndn(sizeof b)] = '#';
    ndd_tlcs_result_t r;
    cmp(&p, a, sizeof a, b, sizeof b, &r);
    assert_true(r.hit_cost_limit);
    assert_false(r.duplicate);
    assert_int_equal(r.tlcs, 0);
    p.max_d = 0;
    cmp(&p, a, sizeof a, b, sizeof b, &r);
    assert_false(r.hit_cost_limit);
    assert_true(r.duplicate);
}

/* Paper Fig. 4 shape: shared header/footer around different middles must
 * not count; the same middle around different header/footer must. */
static void test_template_shape(void **state)
{
    (void)state;
    ndd_tlcs_params_t p;
    ndd_tlcs_params_default(&p);
    static char h1[1500], f1[1500], h2[1500], f2[1500], m1[3000], m2[3000];
    fill_words(h1, sizeof h1);
    fill_words(f1, sizeof f1);
    fill_words(h2, sizeof h2);
    fill_words(f2, sizeof f2);
    fill_words(m1, sizeof m1);
    fill_words(m2, sizeof m2);
    static char a[6000], b[6000];
    memcpy(a, h1, 1500);
    memcpy(a + 1500, m1, 3000);
    memcpy(a + 4500, f1, 1500);
    memcpy(b, h1, 1500);
    memcpy(b + 1500, m2, 3000);
    memcpy(b + 4500, f1, 1500);
    ndd_tlcs_result_t r;
    cmp(&p, a, 6000, b, 6000, &r);
    assert_true(r.lcs >= 3000); /* the template alone is half of each */
    assert_false(r.duplicate);
    memcpy(b, h2, 1500);
    memcpy(b + 1500, m1, 3000);
    memcpy(b + 4500, f2, 1500);
    cmp(&p, a, 6000, b, 6000, &r);
    assert_true(r.duplicate);
    assert_true(r.tlcs >= 2900);
    assert_true(r.regions[0].a_start >= 1400 && r.regions[0].a_end <= 4600);
    /* paragraph swap: A = P1 P2 P3 P4, B = P1 P3 P2 P4 (every P 1500 bytes):
     * the basic TLCS keeps one side, the iterative one gets (nearly) all */
    memcpy(b, a, 1500);
    memcpy(b + 1500, a + 3000, 1500);
    memcpy(b + 3000, a + 1500, 1500);
    memcpy(b + 4500, a + 4500, 1500);
    ndd_tlcs_params_t p1 = p;
    p1.max_iter = 1;
    ndd_tlcs_result_t r1;
    cmp(&p1, a, 6000, b, 6000, &r1);
    cmp(&p, a, 6000, b, 6000, &r);
    assert_true(r.iterations >= 2);
    assert_true(r.tlcs > r1.tlcs);
    assert_true(r.tlcs >= 5800);
}

/* ---------------- real text: Reuters bodies in site templates ---------------- */

#define MAX_ART 260

typedef struct art {
    char *title;
    char **para;
    size_t npara;
    size_t len; /* plain body length */
} art_t;

static art_t g_art[MAX_ART];
static size_t g_nart;

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    assert_non_null(d);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* SGML entities of the corpus: &lt; &gt; &amp; and control marks &#N;. */
static size_t decode_sgml(char *s)
{
    size_t w = 0;
    for (size_t i = 0; s[i];) {
        if (s[i] == '&') {
            if (!strncmp(s + i, "&lt;", 4)) { s[w++] = '<'; i += 4; continue; }
            if (!strncmp(s + i, "&gt;", 4)) { s[w++] = '>'; i += 4; continue; }
            if (!strncmp(s + i, "&amp;", 5)) { s[w++] = '&'; i += 5; continue; }
            if (s[i + 1] == '#') {
                size_t j = i + 2;
                while (isdigit((unsigned char)s[j]))
                    j++;
                if (s[j] == ';') { i = j + 1; continue; }
            }
        }
        unsigned char c = (unsigned char)s[i++];
        s[w++] = c < 0x80 ? (char)c : ' '; /* Latin-1 -> keep the test ASCII */
    }
    s[w] = 0;
    return w;
}

/* Bodies of 1800..5000 bytes, paragraphs at "\n    ", distinct beginnings. */
static void load_reuters(const char *dir)
{
    for (int f = 0; f < 3 && g_nart < MAX_ART; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/reut2-%03d.sgm", dir, f);
        char *data;
        size_t n;
        if (ndd_read_file(path, 0, &data, &n))
            continue;
        const char *p = data;
        while (g_nart < MAX_ART && (p = strstr(p, "<REUTERS"))) {
            const char *end = strstr(p, "</REUTERS>");
            if (!end)
                break;
            const char *t = strstr(p, "<TITLE>"), *b = strstr(p, "<BODY>");
            if (t && b && t < end && b < end) {
                const char *te = strstr(t, "</TITLE>"), *be = strstr(b, "</BODY>");
                char *title = dup_range(t + 7, (size_t)(te - t - 7));
                char *body = dup_range(b + 6, (size_t)(be - b - 6));
                decode_sgml(title);
                size_t bl = decode_sgml(body);
                int dupe = 0;
                for (size_t i = 0; i < g_nart && !dupe; i++)
                    dupe = !strncmp(g_art[i].para[0], body, 60) || !strcmp(g_art[i].title, title);
                /* prose only: Reuters also holds price tables (letters < 80 % of
                 * the visible characters), which are not articles */
                size_t letters = 0, vis = 0;
                for (const char *c = body; *c; c++) {
                    letters += isalpha((unsigned char)*c) != 0;
                    vis += !isspace((unsigned char)*c);
                }
                if (!dupe && bl >= 1800 && bl <= 5000 && letters >= vis * 8 / 10) {
                    art_t *a = &g_art[g_nart];
                    a->title = title;
                    a->para = NULL;
                    a->npara = 0;
                    a->len = bl;
                    char *q = body;
                    for (;;) {
                        char *nx = strstr(q, "\n    ");
                        if (nx)
                            *nx = 0;
                        for (char *c = q; *c; c++)
                            if (*c == '\n')
                                *c = ' ';
                        a->para = realloc(a->para, (a->npara + 1) * sizeof *a->para);
                        a->para[a->npara++] = strdup(q);
                        if (!nx)
                            break;
                        q = nx + 5;
                    }
                    if (a->npara >= 3) {
                        g_nart++;
                    } else {
                        for (size_t i = 0; i < a->npara; i++)
                            free(a->para[i]);
                        free(a->para);
                        free(title);
                    }
                } else {
                    free(title);
                }
                free(body);
            }
            p = end;
        }
        free(data);
    }
}

static void free_reuters(void)
{
    for (size_t i = 0; i < g_nart; i++) {
        for (size_t k = 0; k < g_art[i].npara; k++)
            free(g_art[i].para[k]);
        free(g_art[i].para);
        free(g_art[i].title);
    }
    g_nart = 0;
}

static void html_esc(ndd_buf_t *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            ndd_buf_puts(o, "&lt;");
        else if (*s == '>')
            ndd_buf_puts(o, "&gt;");
        else if (*s == '&')
            ndd_buf_puts(o, "&amp;");
        else
            ndd_buf_putc(o, *s);
    }
}

/* A site template. Text is realistic boilerplate; the layouts differ: where
 * the sidebar goes (before/after the article), ads inside the article,
 * semantic tags or plain divs/tables. */
typedef struct site {
    const char *name, *tagline;
    const char *nav[20];
    const char *side_title;
    const char *side[10];
    const char *blurb;
    const char *ad;
    const char *footer[8];
    int layout; /* 0 semantic, 1 sidebar first (divs), 2 table + ad inside, 3 breadcrumbs + related after,
                   4 minimal + big footer, 5 portal: mega menu + top stories before the article */
} site_t;

static const site_t g_sites[] = {
    {"The Daily Ledger", "Independent business news since 1921",
     {"Home", "World", "Business", "Markets", "Technology", "Energy", "Commodities", "Politics",
      "Opinion", "Sports", "Weather", "Video", "Podcasts", "Subscribe", NULL},
     "Most read",
     {"Central bank signals patience on interest rates as inflation cools",
      "Shipping costs climb for a third straight month amid port congestion",
      "Five things to watch in the markets this week",
      "Why small investors are returning to bond funds",
      "Analysts split over outlook for regional lenders", NULL},
     "The Daily Ledger newsletter brings the most important business stories to your inbox every "
     "morning before the markets open. Sign up today, it only takes a minute and you can cancel at any time.",
     "Advertisement - Open a high yield savings account today and earn more on every dollar you save. "
     "Member FDIC. Terms and conditions apply.",
     {"Copyright 2024 The Daily Ledger Media Group. All rights reserved.",
      "About us | Contact the newsroom | Careers | Advertise with us | Corrections",
      "Privacy policy | Terms of use | Cookie settings | Accessibility statement",
      "Market data provided by third parties and delayed by at least 15 minutes.", NULL},
     0},
    {"GlobalWire Financial", "Markets, money and the economy",
     {"News", "Stocks", "Bonds", "Currencies", "Futures", "Funds", "ETFs", "Personal finance",
      "Retirement", "Real estate", "Economy", "Earnings", "IPOs", "Calendar", "Tools", "Log in",
      "Register", NULL},
     "Related coverage",
     {"Dollar edges higher against the yen in thin holiday trading",
      "Grain futures slip as weather forecasts improve across the plains",
      "Earnings preview: what to expect from the big banks",
      "Treasury yields steady ahead of key jobs report",
      "Copper demand outlook brightens on infrastructure spending",
      "Oil majors face pressure from shareholders over capital spending", NULL},
     "GlobalWire Financial is a registered trademark. Quotes are delayed. Information is provided "
     "for informational purposes only and is not intended for trading purposes or advice.",
     "Sponsored content - Compare the best online brokers of the year. Low fees, powerful tools "
     "and award winning research.",
     {"2024 GlobalWire Financial Inc. All rights reserved.",
      "Help center | Site map | Contact us | Press room | Investor relations",
      "Do not sell my personal information | Privacy notice | Terms of service", NULL},
     1},
    {"Midwest Farm & Trade Journal", "Serving agriculture and industry",
     {"Front page", "Agriculture", "Livestock", "Crops", "Machinery", "Trade", "Local news",
      "Obituaries", "Classifieds", "Events", "Contact", NULL},
     "Latest headlines",
     {"County fair board approves new livestock barn",
      "Soybean growers meet to discuss export opportunities",
      "Drought monitor shows improvement in western counties",
      "Co-op announces record patronage dividend for members", NULL},
     "The Journal has served farm families and rural businesses for more than a century. Our "
     "reporters cover the markets, the weather and the people who keep our region growing.",
     "ADVERTISEMENT: Johnson Implement Co. - spring service specials on all tractors and combines. "
     "Call today to schedule your appointment. Financing available with approved credit.",
     {"Midwest Farm & Trade Journal, 114 Main Street. Phone 555 0134. Fax 555 0135.",
      "All content copyright the Journal. Reproduction without permission is prohibited.",
      "Subscriptions | Place a classified ad | Submit a news tip | Letters to the editor", NULL},
     2},
    {"Eurasia Economic Review", "Analysis for decision makers",
     {"Home", "Europe", "Asia", "Americas", "Middle East", "Africa", "Economy", "Finance",
      "Energy", "Industry", "Analysis", "Interviews", "Data", "Events", "Archive", NULL},
     "Read more on this topic",
     {"How supply chains are being redrawn across the region",
      "Interview: a finance minister on debt, growth and reform",
      "Energy transition creates winners and losers among exporters",
      "The data behind the latest trade figures", NULL},
     "Comments are closed for this article. Please read our community guidelines before taking "
     "part in discussions on other stories.",
     "Partner message - Attend the annual Eurasia Investment Forum, three days of panels, networking "
     "and insights from leading economists. Early bird registration is now open.",
     {"Eurasia Economic Review is published by Meridian Publishing Ltd.",
      "Registered office: 20 Harbour Road. Company number 04821733.",
      "Editorial standards | Complaints | Syndication | Contact | Privacy and cookies",
      "All prices are indicative and subject to change without notice.", NULL},
     3},
    {"NewsNow Portal", "",
     {"Top", "National", "International", "Money", "Tech", "Health", "Science", "Entertainment",
      "Travel", "Lifestyle", NULL},
     "Trending now",
     {"Ten tips to cut your household energy bills",
      "New smartphone launch draws long lines", NULL},
     "NewsNow Portal aggregates news from hundreds of sources. We may earn a commission when you "
     "buy through links on our site. Our editorial team selects stories independently of our "
     "commercial partners. If you believe a story breaches our policies please contact us using "
     "the form on our help pages. Content on this page is provided for general information only "
     "and does not constitute professional advice of any kind.",
     "Ad - Find cheap flights and hotels with our travel partner. Book now and save up to forty "
     "percent on your next holiday.",
     {"NewsNow Portal 2024. Terms of use. Privacy policy. Cookie policy. Contact. Help. Careers.",
      "Download our app for iPhone and Android. Follow us on social media for breaking news alerts.",
      "By using this site you agree to our use of cookies for analytics, personalised content and ads.",
      "Registered in the United States. Headquarters: 500 Fifth Avenue, New York.", NULL},
     4},
    {"MetroCity Times Online", "Your city. Your news. Every hour.",
     {"Breaking", "Local", "Region", "Nation", "World", "Business", "Jobs", "Real estate", "Cars",
      "Sports", "High school sports", "Arts", "Food", "Obituaries", "Opinion", "Letters", "Puzzles",
      "Weather", "Traffic", NULL},
     "Top stories right now",
     {"City council delays vote on downtown parking plan after heated hearing",
      "Water main break closes two lanes on the riverside expressway",
      "Local bakery celebrates fifty years with free pastries for regulars",
      "School board names interim superintendent for the coming academic year",
      "Police seek witnesses after overnight fire at a vacant warehouse",
      "Transit agency announces weekend service changes on three lines",
      "High school robotics team heads to national championship",
      "New community garden opens on the east side with 40 plots",
      "Forecast: a warm and sunny weekend before rain returns on Monday", NULL},
     "Editor's picks: our reporters spent six months investigating the city's housing market, "
     "speaking with hundreds of renters, landlords and officials. Read the full series, explore the "
     "interactive maps and tell us about your own experience. Support local journalism: subscribe "
     "for unlimited digital access for just one dollar a week for the first three months.",
     "Advertisement - MetroCity Auto Mall spring sales event. Zero percent financing on selected "
     "models for qualified buyers. Visit our showroom this weekend for a free test drive and a "
     "complimentary car wash.",
     {"MetroCity Times Online is part of the MetroCity Media Network. Copyright 2024. All rights reserved.",
      "Newsroom: 1200 Harbor Boulevard, MetroCity. Main switchboard 555 0100. Newsroom tips 555 0199.",
      "Customer service | Manage your subscription | Delivery issues | E-edition | Archives | Reprints",
      "Advertise | Media kit | Classifieds | Legal notices | Contests | Events | Store",
      "Privacy policy | Your privacy choices | Terms of service | Cookie policy | Accessibility | Site map",
      "Our journalism follows the principles of accuracy, fairness and independence. Report an error.",
      "Use of this site constitutes acceptance of our user agreement and privacy policy.", NULL},
     5},
};
#define NSITES (sizeof g_sites / sizeof g_sites[0])

/* Article edits for the edited-copy tests. */
enum { ED_NONE, ED_TYPOS, ED_DROP_SENTENCE, ED_APPEND, ED_TRUNC60, ED_SWAP, ED_COUNT };

static void put_article(ndd_buf_t *o, const art_t *a, int edit, const art_t *other, int ad_after)
{
    size_t np = a->npara;
    size_t order[64];
    for (size_t i = 0; i < np && i < 64; i++)
        order[i] = i;
    if (np > 64)
        np = 64;
    if (edit == ED_SWAP) { /* swap the second paragraph and the last one */
        size_t t = order[1];
        order[1] = order[np - 1];
        order[np - 1] = t;
    }
    size_t budget = SIZE_MAX;
    if (edit == ED_TRUNC60)
        budget = a->len * 6 / 10;
    ndd_buf_puts(o, "<h1>");
    html_esc(o, a->title);
    ndd_buf_puts(o, "</h1>\n");
    size_t used = 0;
    for (size_t k = 0; k < np && used < budget; k++) {
        const char *txt = a->para[order[k]];
        char tmp[8192];
        snprintf(tmp, sizeof tmp, "%s", txt);
        if (edit == ED_TYPOS) { /* about 1 % of the letters replaced */
            for (char *c = tmp; *c; c++)
                if (isalpha((unsigned char)*c) && rndn(100) == 0)
                    *c = (char)('a' + rndn(26));
        }
        if (edit == ED_DROP_SENTENCE && k == np / 2) { /* drop the first sentence of a middle paragraph */
            char *dot = strstr(tmp, ". ");
            if (dot)
                memmove(tmp, dot + 2, strlen(dot + 2) + 1);
        }
        size_t l = strlen(tmp);
        if (used + l > budget)
            tmp[budget - used] = 0;
        used += l;
        ndd_buf_puts(o, "<p>");
        html_esc(o, tmp);
        ndd_buf_puts(o, "</p>\n");
        if ((int)k + 1 == ad_after)
            ndd_buf_puts(o, "<div class=\"ad-inline\">Advertisement</div>\n");
    }
    if (edit == ED_APPEND) {
        ndd_buf_puts(o, "<p><b>UPDATE:</b> ");
        html_esc(o, other->para[0]);
        ndd_buf_puts(o, "</p>\n");
    }
}

static void put_list(ndd_buf_t *o, const char *const *items, const char *open, const char *close,
                     int links)
{
    for (size_t i = 0; items[i]; i++) {
        ndd_buf_puts(o, open);
        if (links)
            ndd_buf_puts(o, "<a href=\"/s/x\">");
        html_esc(o, items[i]);
        if (links)
            ndd_buf_puts(o, "</a>");
        ndd_buf_puts(o, close);
    }
}

static void make_page(ndd_buf_t *o, const site_t *s, const art_t *a, int edit, const art_t *other)
{
    ndd_buf_clear(o);
    ndd_buf_puts(o, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
    html_esc(o, a->title);
    ndd_buf_puts(o, " - ");
    html_esc(o, s->name);
    ndd_buf_puts(o, "</title><style>body{font-family:serif}</style>"
                    "<script>var _q=window._q||[];_q.push(['track']);</script></head><body>\n");
    switch (s->layout) {
    case 0:
        ndd_buf_puts(o, "<header><div class=\"logo\">");
        html_esc(o, s->name);
        ndd_buf_puts(o, "</div><p>");
        html_esc(o, s->tagline);
        ndd_buf_puts(o, "</p></header>\n<nav><ul>");
        put_list(o, s->nav, "<li>", "</li>", 1);
        ndd_buf_puts(o, "</ul></nav>\n<main><article>");
        put_article(o, a, edit, other, 0);
        ndd_buf_puts(o, "</article></main>\n<aside><h3>");
        html_esc(o, s->side_title);
        ndd_buf_puts(o, "</h3><ol>");
        put_list(o, s->side, "<li>", "</li>", 1);
        ndd_buf_puts(o, "</ol><p>");
        html_esc(o, s->blurb);
        ndd_buf_puts(o, "</p><div class=\"ad\">");
        html_esc(o, s->ad);
        ndd_buf_puts(o, "</div></aside>\n<footer>");
        put_list(o, s->footer, "<p>", "</p>", 0);
        ndd_buf_puts(o, "</footer>\n");
        break;
    case 1:
        ndd_buf_puts(o, "<div id=\"top\"><span class=\"brand\">");
        html_esc(o, s->name);
        ndd_buf_puts(o, "</span> <span>");
        html_esc(o, s->tagline);
        ndd_buf_puts(o, "</span></div>\n<div class=\"menu\">");
        put_list(o, s->nav, "<span class=\"item\">", "</span> ", 1);
        ndd_buf_puts(o, "</div>\n<div class=\"leftcol\"><div class=\"box\"><b>");
        html_esc(o, s->side_title);
        ndd_buf_puts(o, "</b><br>");
        put_list(o, s->side, "", "<br>", 1);
        ndd_buf_puts(o, "</div><div class=\"promo\">");
        html_esc(o, s->ad);
        ndd_buf_puts(o, "</div></div>\n<div class=\"content\">");
        put_article(o, a, edit, other, 0);
        ndd_buf_puts(o, "<div class=\"disclaimer\">");
        html_esc(o, s->blurb);
        ndd_buf_puts(o, "</div></div>\n<div id=\"bottom\">");
        put_list(o, s->footer, "<div>", "</div>", 0);
        ndd_buf_puts(o, "</div>\n");
        break;
    case 2:
        ndd_buf_puts(o, "<table width=\"100%\"><tr><td colspan=\"2\"><font size=\"6\">");
        html_esc(o, s->name);
        ndd_buf_puts(o, "</font><br><i>");
        html_esc(o, s->tagline);
        ndd_buf_puts(o, "</i></td></tr>\n<tr><td colspan=\"2\">");
        put_list(o, s->nav, "", " | ", 1);
        ndd_buf_puts(o, "</td></tr>\n<tr><td valign=\"top\">");
        put_article(o, a, edit, other, 2);
        ndd_buf_puts(o, "<p>");
        html_esc(o, s->ad);
        ndd_buf_puts(o, "</p></td>\n<td valign=\"top\" width=\"200\"><b>");
        html_esc(o, s->side_title);
        ndd_buf_puts(o, "</b><ul>");
        put_list(o, s->side, "<li>", "</li>", 1);
        ndd_buf_puts(o, "</ul><p>");
        html_esc(o, s->blurb);
        ndd_buf_puts(o, "</p></td></tr>\n<tr><td colspan=\"2\">");
        put_list(o, s->footer, "<p><small>", "</small></p>", 0);
        ndd_buf_puts(o, "</td></tr></table>\n");
        break;
    case 3:
        ndd_buf_puts(o, "<div class=\"masthead\"><h2>");
        html_esc(o, s->name);
        ndd_buf_puts(o, "</h2><p>");
        html_esc(o, s->tagline);
        ndd_buf_puts(o, "</p></div>\n<ul class=\"sections\">");
        put_list(o, s->nav, "<li>", "</li>", 1);
        ndd_buf_puts(o, "</ul>\n<p class=\"crumbs\">Home &gt; Economy &gt; Markets</p>\n<div class=\"story\">");
        put_article(o, a, edit, other, 0);
        ndd_buf_puts(o, "</div>\n<div class=\"partner\">");
        html_esc(o, s->ad);
        ndd_buf_puts(o, "</div>\n<div class=\"related\"><h4>");
        html_esc(o, s->side_title);
        ndd_buf_puts(o, "</h4>");
        put_list(o, s->side, "<p>", "</p>", 1);
        ndd_buf_puts(o, "</div>\n<p class=\"comments\">");
        html_esc(o, s->blurb);
        ndd_buf_puts(o, "</p>\n<div class=\"foot\">");
        put_list(o, s->footer, "<p>", "</p>", 0);
        ndd_buf_puts(o, "</div>\n");
        break;
    case 5:
        ndd_buf_puts(o, "<div class=\"masthead\"><a href=\"/\">");
        html_esc(o, s->name);
        ndd_buf_puts(o, "</a> <em>");
        html_esc(o, s->tagline);
        ndd_buf_puts(o, "</em></div>\n<div class=\"megamenu\">");
        put_list(o, s->nav, "<div class=\"col\">", "</div>", 1);
        ndd_buf_puts(o, "</div>\n<div class=\"topstories\"><h3>");
        html_esc(o, s->side_title);
        ndd_buf_puts(o, "</h3>");
        put_list(o, s->side, "<div class=\"t\">", "</div>", 1);
        ndd_buf_puts(o, "</div>\n<div class=\"article-body\">");
        put_article(o, a, edit, other, 3);
        ndd_buf_puts(o, "</div>\n<div class=\"picks\">");
        html_esc(o, s->blurb);
        ndd_buf_puts(o, "</div>\n<div class=\"ad\">");
        html_esc(o, s->ad);
        ndd_buf_puts(o, "</div>\n<div class=\"site-footer\">");
        put_list(o, s->footer, "<p>", "</p>", 0);
        ndd_buf_puts(o, "</div>\n");
        break;
    default:
        ndd_buf_puts(o, "<div class=\"bar\">");
        html_esc(o, s->name);
        ndd_buf_puts(o, " ");
        put_list(o, s->nav, "", " ", 1);
        ndd_buf_puts(o, "</div>\n<div class=\"main\">");
        put_article(o, a, edit, other, 0);
        ndd_buf_puts(o, "</div>\n<div class=\"trending\"><b>");
        html_esc(o, s->side_title);
        ndd_buf_puts(o, "</b> ");
        put_list(o, s->side, "", " ", 1);
        ndd_buf_puts(o, "</div>\n<div class=\"ad\">");
        html_esc(o, s->ad);
        ndd_buf_puts(o, "</div>\n<div class=\"fineprint\"><p>");
        html_esc(o, s->blurb);
        ndd_buf_puts(o, "</p>");
        put_list(o, s->footer, "<p>", "</p>", 0);
        ndd_buf_puts(o, "</div>\n");
        break;
    }
    ndd_buf_puts(o, "</body></html>\n");
}

/* Visible text of a page, as the pipeline prepares it. */
static void page_text(ndd_buf_t *html, ndd_buf_t *text, int boilerplate)
{
    ndd_text_opts_t to;
    ndd_text_opts_default(&to);
    to.boilerplate = boilerplate;
    assert_int_equal(ndd_text_from_html(html->data, html->len, &to, text), NDD_OK);
}

/* Text length of the article alone (for the template fraction). */
static size_t article_text_len(const art_t *a, int edit, const art_t *other)
{
    ndd_buf_t h = NDD_BUF_INIT, t = NDD_BUF_INIT;
    ndd_buf_puts(&h, "<html><body>");
    put_article(&h, a, edit, other, 0);
    ndd_buf_puts(&h, "</body></html>");
    page_text(&h, &t, 0);
    size_t n = t.len;
    ndd_buf_free(&h);
    ndd_buf_free(&t);
    return n;
}

typedef struct tstats {
    size_t pairs, dups;
    double sum_r, sum_c, min_r, max_r, sum_plain_c;
    size_t plain_pass;
} tstats_t;

static void tstats_add(tstats_t *s, const ndd_tlcs_params_t *p, const ndd_tlcs_result_t *r,
                       size_t plain_lcs)
{
    if (s->pairs == 0) {
        s->min_r = 1e9;
        s->max_r = -1;
    }
    s->pairs++;
    s->dups += r->duplicate != 0;
    s->sum_r += r->resemblance;
    s->sum_c += r->containment;
    if (r->resemblance < s->min_r)
        s->min_r = r->resemblance;
    if (r->resemblance > s->max_r)
        s->max_r = r->resemblance;
    double pr, pc;
    ndd_tlcs_scores(plain_lcs, r->len_a, r->len_b, &pr, &pc);
    s->sum_plain_c += pc;
    s->plain_pass += ndd_tlcs_verdict(p, pr, pc);
}

static void tstats_print(const char *what, const tstats_t *s)
{
    fprintf(stderr,
            "  %-34s pairs %3zu  duplicate %3zu  mean R %.3f (min %.3f max %.3f)  mean C %.3f  "
            "plain-LCS mean C %.3f, plain-LCS verdict would accept %zu\n",
            what, s->pairs, s->dups, s->sum_r / (double)s->pairs, s->min_r, s->max_r,
            s->sum_c / (double)s->pairs, s->sum_plain_c / (double)s->pairs, s->plain_pass);
}

static int g_boilerplate; /* text mode of the template test */

static double g_frac[MAX_ART][8]; /* template fraction of article i on site s */

/* Pages used: template text 25..55 % of the visible text. */
static int fits(size_t art, size_t site) { return g_frac[art][site] >= 0.25 && g_frac[art][site] <= 0.55; }

static void template_suite(tstats_t *same_art, tstats_t *same_site, tstats_t *edited, double *fmin,
                           double *fmax, int boilerplate, const ndd_tlcs_params_t *p)
{
    ndd_buf_t h1 = NDD_BUF_INIT, h2 = NDD_BUF_INIT, t1 = NDD_BUF_INIT, t2 = NDD_BUF_INIT;
    ndd_myers_ws_t *my;
    assert_int_equal(ndd_myers_ws_create(&my), NDD_OK);
    ndd_tlcs_result_t r;
    ndd_myers_out_t mo;
    *fmin = 1;
    *fmax = 0;
    /* template fraction of a page = 1 - article text / page text (boilerplate off) */
    size_t nfit = 0;
    for (size_t i = 0; i < g_nart; i++) {
        size_t al = article_text_len(&g_art[i], ED_NONE, NULL);
        for (size_t s = 0; s < NSITES; s++) {
            make_page(&h1, &g_sites[s], &g_art[i], ED_NONE, NULL);
            page_text(&h1, &t1, 0);
            g_frac[i][s] = 1.0 - (double)al / (double)t1.len;
            nfit += fits(i, s);
        }
    }
    fprintf(stderr, "  %zu of %zu (article, template) pages have 25-55 %% template text\n", nfit,
            g_nart * NSITES);
    size_t cur = 0; /* deterministic walk over articles */
    for (size_t i = 0; i < 100; i++) {
        /* same article, two different templates (both pages 25..55 %) */
        size_t ai, s1 = 0, s2 = 0;
        for (;;) {
            ai = cur++ % g_nart;
            s1 = (i + ai) % NSITES;
            s2 = (s1 + 1 + (i / NSITES) % (NSITES - 1)) % NSITES;
            if (fits(ai, s1) && fits(ai, s2))
                break;
        }
        const art_t *a = &g_art[ai];
        for (size_t s = 0; s < 2; s++) {
            double f = g_frac[ai][s ? s2 : s1];
            *fmin = f < *fmin ? f : *fmin;
            *fmax = f > *fmax ? f : *fmax;
        }
        make_page(&h1, &g_sites[s1], a, ED_NONE, NULL);
        make_page(&h2, &g_sites[s2], a, ED_NONE, NULL);
        page_text(&h1, &t1, boilerplate);
        page_text(&h2, &t2, boilerplate);
        cmp(p, t1.data, t1.len, t2.data, t2.len, &r);
        assert_int_equal(ndd_myers_diff(my, t1.data, t1.len, t2.data, t2.len, SIZE_MAX, &mo), NDD_OK);
        tstats_add(same_art, p, &r, mo.lcs);
        if (!r.duplicate)
            fprintf(stderr, "    miss: same article %zu sites %zu/%zu (template %.2f/%.2f) R %.3f C %.3f tlcs %zu lcs %zu\n",
                    ai, s1, s2, g_frac[ai][s1], g_frac[ai][s2], r.resemblance, r.containment, r.tlcs, r.lcs);

        /* two different articles, same template (both pages 25..55 %) */
        size_t s = (i / 3) % NSITES, bj = (ai * 7 + 3 + i) % g_nart;
        while (bj == ai || !fits(bj, s) || !fits(ai, s)) {
            bj = (bj + 1) % g_nart;
            if (bj == ai && !fits(ai, s))
                s = (s + 1) % NSITES;
        }
        const art_t *b = &g_art[bj];
        make_page(&h1, &g_sites[s], a, ED_NONE, NULL);
        make_page(&h2, &g_sites[s], b, ED_NONE, NULL);
        page_text(&h1, &t1, boilerplate);
        page_text(&h2, &t2, boilerplate);
        cmp(p, t1.data, t1.len, t2.data, t2.len, &r);
        assert_int_equal(ndd_myers_diff(my, t1.data, t1.len, t2.data, t2.len, SIZE_MAX, &mo), NDD_OK);
        tstats_add(same_site, p, &r, mo.lcs);
        if (r.duplicate)
            fprintf(stderr, "    false dup: articles %zu/%zu site %zu R %.3f C %.3f tlcs %zu lcs %zu\n",
                    ai, bj, s, r.resemblance, r.containment, r.tlcs, r.lcs);

        /* edited copies: typos, dropped sentence, appended update,
         * truncation to 60 %, two paragraphs swapped; same or other site */
        int ed = 1 + (int)(i % (ED_COUNT - 1));
        size_t s3 = (i % 2) ? s1 : s2;
        make_page(&h1, &g_sites[s1], a, ED_NONE, NULL);
        make_page(&h2, &g_sites[s3], a, ed, b);
        page_text(&h1, &t1, boilerplate);
        page_text(&h2, &t2, boilerplate);
        cmp(p, t1.data, t1.len, t2.data, t2.len, &r);
        assert_int_equal(ndd_myers_diff(my, t1.data, t1.len, t2.data, t2.len, SIZE_MAX, &mo), NDD_OK);
        tstats_add(&edited[ed], p, &r, mo.lcs);
        if (!r.duplicate && getenv("TLCS_DUMP")) {
            char fn[256];
            snprintf(fn, sizeof fn, "%s/miss%zu_a.txt", getenv("TLCS_DUMP"), i);
            FILE *f = fopen(fn, "wb");
            fwrite(t1.data, 1, t1.len, f);
            fclose(f);
            snprintf(fn, sizeof fn, "%s/miss%zu_b.txt", getenv("TLCS_DUMP"), i);
            f = fopen(fn, "wb");
            fwrite(t2.data, 1, t2.len, f);
            fclose(f);
        }
        if (!r.duplicate)
            fprintf(stderr, "    miss: edit %d article %zu sites %zu/%zu R %.3f C %.3f tlcs %zu lcs %zu it %u\n",
                    ed, ai, s1, s3, r.resemblance, r.containment, r.tlcs, r.lcs, r.iterations);
    }
    ndd_buf_free(&h1);
    ndd_buf_free(&h2);
    ndd_buf_free(&t1);
    ndd_buf_free(&t2);
    ndd_myers_ws_free(my);
}

static const char *g_edit_names[ED_COUNT] = {"none", "typos 1%", "dropped sentence", "appended update",
                                             "truncated to 60%", "paragraphs swapped"};

static void test_templates_reuters(void **state)
{
    (void)state;
    char dir[512];
    if (!ndd_test_dataset("reuters21578", dir, sizeof dir)) {
        skip();
        return;
    }
    load_reuters(dir);
    fprintf(stderr, "  %zu Reuters articles of 1.8-5 KB loaded\n", g_nart);
    assert_true(g_nart >= 100);
    ndd_tlcs_params_t p;
    ndd_tlcs_params_default(&p);
    for (int bp = 0; bp <= 1; bp++) {
        tstats_t sa = {0}, ss = {0}, ed[ED_COUNT];
        memset(ed, 0, sizeof ed);
        double fmin, fmax;
        fprintf(stderr, " text mode boilerplate=%s, paper defaults (slope 0.1, R 0.28, C 0.7):\n",
                bp ? "on" : "off");
        template_suite(&sa, &ss, ed, &fmin, &fmax, bp, &p);
        fprintf(stderr, "  template text fraction of the pages: %.2f .. %.2f\n", fmin, fmax);
        tstats_print("same article, different templates", &sa);
        tstats_print("different articles, same template", &ss);
        for (int e = 1; e < ED_COUNT; e++)
            tstats_print(g_edit_names[e], &ed[e]);
        assert_true(fmin >= 0.25 && fmax <= 0.55);
        /* both text modes: every same-article pair passes, no different-article
         * pair does, although the plain LCS would accept most of them */
        assert_int_equal(sa.dups, sa.pairs);
        assert_int_equal(ss.dups, 0);
        assert_true(ss.plain_pass * 2 >= ss.pairs);
        for (int e = 1; e < ED_COUNT; e++) {
            if (bp == g_boilerplate) /* the default text mode (as ndd run): every edited copy */
                assert_int_equal(ed[e].dups, ed[e].pairs);
            else /* without boilerplate removal, heavy templates + truncation can fall short */
                assert_true(ed[e].dups * 10 >= ed[e].pairs * 9);
        }
    }
    free_reuters();
}

/* ---------------- Clough: graded reuse ---------------- */

typedef struct clough_eval {
    double sr[4], sc[4];
    size_t cnt[4], dup[4];
} clough_eval_t;

static const char *g_cats[] = {"cut", "light", "heavy", "non"};

static void clough_run(const char *dir, const ndd_tlcs_params_t *p, clough_eval_t *ev)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/file_information.csv", dir);
    char *csv;
    size_t ncsv;
    assert_int_equal(ndd_read_file(path, 0, &csv, &ncsv), NDD_OK);
    memset(ev, 0, sizeof *ev);
    ndd_text_opts_t to;
    ndd_text_opts_default(&to);
    ndd_buf_t ta = NDD_BUF_INIT, tb = NDD_BUF_INIT;
    char *save = NULL;
    for (char *l = strtok_r(csv, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char file[128], task[8], cat[16];
        if (sscanf(l, "%127[^,],%7[^,],%15[^,\r]", file, task, cat) != 3)
            continue;
        int c = -1;
        for (int i = 0; i < 4; i++)
            if (!strcmp(cat, g_cats[i]))
                c = i;
        if (c < 0)
            continue;
        char *a, *b;
        size_t na, nb;
        snprintf(path, sizeof path, "%s/%s", dir, file);
        assert_int_equal(ndd_read_file(path, 0, &a, &na), NDD_OK);
        snprintf(path, sizeof path, "%s/orig_task%s.txt", dir, task);
        assert_int_equal(ndd_read_file(path, 0, &b, &nb), NDD_OK);
        /* plain-text normalisation as ndd compare does for .txt (the few
         * Latin-1 bytes of the corpus become U+FFFD) */
        assert_int_equal(ndd_text_from_plain(a, na, &to, &ta), NDD_OK);
        assert_int_equal(ndd_text_from_plain(b, nb, &to, &tb), NDD_OK);
        ndd_tlcs_result_t r;
        cmp(p, ta.data, ta.len, tb.data, tb.len, &r);
        ev->sr[c] += r.resemblance;
        ev->sc[c] += r.containment;
        ev->cnt[c]++;
        ev->dup[c] += r.duplicate != 0;
        free(a);
        free(b);
    }
    free(csv);
    ndd_buf_free(&ta);
    ndd_buf_free(&tb);
}

static void clough_print(const char *what, const clough_eval_t *ev, double *prec, double *rec)
{
    fprintf(stderr, "  clough, %s:\n", what);
    for (int i = 0; i < 4; i++) {
        assert_true(ev->cnt[i] > 0);
        fprintf(stderr, "    %-5s n=%2zu mean R %.3f mean C %.3f duplicate %zu\n", g_cats[i], ev->cnt[i],
                ev->sr[i] / (double)ev->cnt[i], ev->sc[i] / (double)ev->cnt[i], ev->dup[i]);
    }
    size_t tp = ev->dup[0] + ev->dup[1] + ev->dup[2], fp = ev->dup[3];
    size_t pos = ev->cnt[0] + ev->cnt[1] + ev->cnt[2];
    *prec = tp + fp ? (double)tp / (double)(tp + fp) : 0;
    *rec = (double)tp / (double)pos;
    fprintf(stderr, "    verdict reuse (cut+light+heavy) vs non: precision %.3f recall %.3f (tp %zu fp %zu of %zu)\n",
            *prec, *rec, tp, fp, pos);
}

static void test_clough(void **state)
{
    (void)state;
    char dir[512];
    if (!ndd_test_dataset("clough", dir, sizeof dir)) {
        skip();
        return;
    }
    ndd_tlcs_params_t p;
    ndd_tlcs_params_default(&p);
    clough_eval_t ev;
    double prec, rec;
    clough_run(dir, &p, &ev);
    clough_print("paper defaults (R >= 0.28 or C >= 0.7)", &ev, &prec, &rec);
    for (int i = 0; i + 1 < 4; i++) { /* cut > light > heavy > non on average */
        assert_true(ev.sr[i] / (double)ev.cnt[i] > ev.sr[i + 1] / (double)ev.cnt[i + 1]);
        assert_true(ev.sc[i] / (double)ev.cnt[i] > ev.sc[i + 1] / (double)ev.cnt[i + 1]);
    }
    assert_true(prec >= 0.95);
    assert_true(rec >= 0.15);
    /* a text-reuse setting: TLCS is a near-duplicate measure, Clough answers
     * reuse parts of a longer source; lower thresholds find more of them */
    p.min_resemblance = 0.05;
    p.min_containment = 0.15;
    clough_run(dir, &p, &ev);
    clough_print("reuse setting (R >= 0.05 or C >= 0.15)", &ev, &prec, &rec);
    assert_true(prec >= 0.95);
    assert_true(rec >= 0.3);
}

/* ndd_tlcs_need against a linear search for the least passing length. */
static void test_need(void **state)
{
    (void)state;
    ndd_tlcs_params_t p;
    ndd_tlcs_params_default(&p);
    for (int round = 0; round < 3000; round++) {
        size_t na = rndn(3000), nb = rndn(3000), mn = na < nb ? na : nb, want = mn + 1;
        p.min_resemblance = (double)rndn(101) / 100;
        p.min_containment = round % 7 ? (double)rndn(101) / 100 : 2.0; /* 2: containment never enough */
        if (round % 13 == 5) /* negative (every length passes) or beyond any length */
            p.min_containment = round % 2 ? -0.5 : 3e6;
        if (round % 17 == 3)
            p.min_resemblance = (double)rndn(1000) / 7.0; /* large: only containment can pass */
        if (round % 19 == 7) /* no length meets it */
            p.min_resemblance = round % 2 ? INFINITY : NAN;
        for (size_t l = 0; l <= mn; l++) {
            double rs, cs;
            ndd_tlcs_scores(l, na, nb, &rs, &cs);
            if (ndd_tlcs_verdict(&p, rs, cs)) {
                want = l;
                break;
            }
        }
        assert_int_equal(ndd_tlcs_need(&p, na, nb), want);
    }
}

int main(void)
{
    const char *bp = getenv("NDD_TEST_BOILERPLATE"); /* default on, as ndd run and ndd compare */
    g_boilerplate = !(bp && !strcmp(bp, "0"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_need),
        cmocka_unit_test(test_substitutions),
        cmocka_unit_test(test_symmetry_exact),
        cmocka_unit_test(test_anchors_same),
        cmocka_unit_test(test_curve_walk),
        cmocka_unit_test(test_cost_limit),
        cmocka_unit_test(test_template_shape),
        cmocka_unit_test(test_templates_reuters),
        cmocka_unit_test(test_clough),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
