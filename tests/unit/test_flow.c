/* test_flow.c - flow mode (paper 003, src/flow): the q-gram measure against
 * a direct computation of doc_q on q-gram strings; the stream's verdicts
 * against a brute-force oracle that compares every pair inside the window
 * (and none outside), with the measures qgram and tlcs, in and out of time
 * order, with postings and with the paper's bitmaps; segment eviction over 3
 * days; timestamps and durations. */
#include "ndd_test.h"

#include <math.h>

#include "ndd_baselines.h"
#include "ndd_flow.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) { return ndd_test_xorshift(&rng_state); }
static size_t rndn(size_t n) { return (size_t)(rnd() % n); }

/* ---------------------------------------------------- doc_q, brute force */

static int is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct q-grams (strings) of the normal form of s (paper 003 sec. 3.3:
 * white space and punctuation removed); returns their number, *out malloc'ed. */
static size_t brute_qgrams(const char *s, unsigned q, char ***out)
{
    size_t n = strlen(s), m = 0, k = 0;
    char *w = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        if (is_alnum(s[i]))
            w[m++] = s[i];
    w[m] = 0;
    char **g = malloc((m + 1) * sizeof *g);
    for (size_t i = 0; i + q <= m; i++) {
        g[k] = malloc(q + 1);
        memcpy(g[k], w + i, q);
        g[k++][q] = 0;
    }
    qsort(g, k, sizeof *g, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < k; i++) {
        if (u && !strcmp(g[u - 1], g[i]))
            free(g[i]);
        else
            g[u++] = g[i];
    }
    free(w);
    *out = g;
    return u;
}

static double brute_docq(const char *a, const char *b, unsigned q)
{
    char **ga, **gb;
    size_t na = brute_qgrams(a, q, &ga), nb = brute_qgrams(b, q, &gb), i = 0, j = 0, c = 0;
    while (i < na && j < nb) {
        int r = strcmp(ga[i], gb[j]);
        if (r < 0)
            i++;
        else if (r > 0)
            j++;
        else {
            c++;
            i++;
            j++;
        }
    }
    for (i = 0; i < na; i++)
        free(ga[i]);
    for (j = 0; j < nb; j++)
        free(gb[j]);
    free(ga);
    free(gb);
    size_t mx = na > nb ? na : nb;
    return mx ? (double)c / (double)mx : 0.0;
}

static void rand_text(char *s, size_t len)
{
    static const char alpha[] = "abcdAB01 .,;!-";
    for (size_t i = 0; i < len; i++)
        s[i] = alpha[rndn(sizeof alpha - 1)];
    s[len] = 0;
}

/* The paper's example (sec. 3.3): "A rose is a flower", q = 3 -> 12 q-grams. */
static void test_paper_example(void **state)
{
    ndd_flow_params_t p;
    ndd_flow_t *f;
    const uint64_t *set;
    size_t n;
    (void)state;
    ndd_flow_params_default(&p);
    assert_int_equal(p.q, 4);
    assert_true(p.threshold == 0.8 && p.window == 86400);
    p.q = 3;
    assert_int_equal(ndd_flow_create(&f, &p), NDD_OK);
    assert_int_equal(ndd_flow_qgrams(f, "A rose is a flower", 18, &set, &n), NDD_OK);
    assert_int_equal(n, 12);
    ndd_flow_free(f);
}

/* doc_q of random texts through the flow (the second document's verdict
 * against the first: the segment's inverted index counts the shared
 * q-grams) equals the formula computed on the q-gram strings. */
static void test_docq_brute(void **state)
{
    char a[80], b[80];
    int hits = 0;
    (void)state;
    for (int it = 0; it < 3000; it++) {
        ndd_flow_params_t p;
        ndd_flow_t *f;
        ndd_flow_verdict_t v;
        ndd_flow_params_default(&p);
        p.q = 2 + (unsigned)rndn(4);
        p.threshold = 1e-9;
        p.index = it & 1 ? NDD_FLOW_INDEX_BITMAP : NDD_FLOW_INDEX_POSTINGS;
        rand_text(a, rndn(60));
        if (rndn(2)) { /* b: a with a few edits, or another text */
            strcpy(b, a);
            for (int e = 0; e < 3 && strlen(b); e++)
                b[rndn(strlen(b))] = "abcd ."[rndn(6)];
        } else {
            rand_text(b, rndn(60));
        }
        assert_int_equal(ndd_flow_create(&f, &p), NDD_OK);
        assert_int_equal(ndd_flow_add(f, "a", 1, 1000, a, strlen(a), &v), NDD_OK);
        assert_int_equal(v.kind, NDD_FLOW_NEW);
        assert_int_equal(ndd_flow_add(f, "b", 1, 1001, b, strlen(b), &v), NDD_OK);
        double want = brute_docq(b, a, p.q);
        if (want > 0) {
            assert_int_equal(v.kind, NDD_FLOW_DUP);
            assert_string_equal(v.of_id, "a");
            assert_true(fabs(v.score - want) < 1e-12);
            hits += want == 1.0 ? 0 : 1;
        } else {
            assert_int_equal(v.kind, NDD_FLOW_NEW);
        }
        ndd_flow_free(f);
    }
    assert_true(hits > 500); /* partial overlaps were exercised, not only 0 and 1 */
}

/* ---------------------------------------------- the stream against an oracle */

#define NW 150
static char vocab[NW][12];

static void make_vocab(void)
{
    for (int i = 0; i < NW; i++) {
        size_t l = 2 + rndn(8);
        for (size_t k = 0; k < l; k++)
            vocab[i][k] = (char)('a' + rndn(26));
        vocab[i][l] = 0;
    }
}

typedef struct tdoc {
    char id[24]; /* "d" and any size_t */
    char *text;
    int64_t t;
} tdoc_t;

/* A story of 20..80 words, or an edited copy of an earlier document. */
static char *make_text(tdoc_t *docs, size_t i)
{
    char *s = malloc(2000);
    size_t len = 0;
    if (i > 0 && rndn(2)) {
        const char *src = docs[rndn(i)].text;
        strcpy(s, src);
        len = strlen(s);
        for (size_t e = rndn(6); e > 0 && len > 4; e--) { /* a few word-level edits */
            size_t at = rndn(len);
            const char *w = vocab[rndn(NW)];
            size_t wl = strlen(w);
            if (len + wl + 2 < 2000) {
                memmove(s + at + wl + 1, s + at, len - at + 1);
                memcpy(s + at, w, wl);
                s[at + wl] = ' ';
                len += wl + 1;
            }
        }
        return s;
    }
    size_t nw = rndn(12) == 0 ? rndn(2) : 20 + rndn(60); /* a few (near) empty texts */
    s[0] = 0;
    for (size_t k = 0; k < nw; k++) {
        const char *w = vocab[rndn(NW)];
        len += (size_t)sprintf(s + len, "%s%s", k ? " " : "", w);
    }
    return s;
}

/* n documents over about 0.8 x `span` seconds (4 days: a little over 3) in arrival order: mostly increasing, some
 * equal, some exactly one window after an earlier one (the edge), and (when
 * jitter) some behind the clock by up to 2 * max_late. */
static tdoc_t *make_stream(size_t n, int64_t span, int64_t window, int64_t max_late, int jitter)
{
    tdoc_t *d = calloc(n, sizeof *d);
    int64_t t = 1330560000; /* 2012-03-01, the paper's Fig. 3 */
    for (size_t i = 0; i < n; i++) {
        snprintf(d[i].id, sizeof d[i].id, "d%zu", i);
        d[i].text = make_text(d, i);
        size_t r = rndn(10);
        if (r == 0 && i > 0) { /* a copy of an earlier one exactly at the edge of its window
                                  (or one second inside) */
            size_t j = rndn(i);
            while (j > 0 && d[j].t + window > t) /* an old enough one: the clock does not jump */
                j--;
            d[i].t = d[j].t + window - (int64_t)rndn(2);
            free(d[i].text);
            d[i].text = strdup(d[j].text);
        } else if (r == 1 && i > 0)
            d[i].t = t; /* same second */
        else
            d[i].t = (t += (int64_t)rndn((size_t)(2 * span / (int64_t)n) + 1));
        if (d[i].t > t)
            t = d[i].t;
        if (jitter && r == 2)
            d[i].t = t - (int64_t)rndn((size_t)(2 * max_late) + 1);
        if (jitter && r == 3 && i > 0) /* a copy of an earlier one arriving behind the clock */
            d[i].t = t - max_late + (int64_t)rndn(2);
    }
    return d;
}

typedef struct oracle_v {
    int kind;
    long of;
    double score;
    uint64_t compared; /* pairs inside the window */
} oracle_v_t;

/* Brute force: every earlier accepted document with |dt| < window, none other. */
static void oracle(const ndd_flow_params_t *p, tdoc_t *d, size_t n, oracle_v_t *out)
{
    ndd_method_params_t mp;
    ndd_method_ctx_t *mc;
    ndd_tlcs_ws_t *ws;
    uint64_t **set = calloc(n, sizeof *set);
    size_t *ns = calloc(n, sizeof *ns);
    int *acc = calloc(n, sizeof *acc);
    int64_t clock = INT64_MIN;
    ndd_method_params_default(&mp);
    mp.q = p->q;
    assert_int_equal(ndd_method_ctx_create(&mc, &mp, NULL), NDD_OK);
    assert_int_equal(ndd_tlcs_ws_create(&ws), NDD_OK);
    for (size_t b = 0; b < n; b++) {
        const uint64_t *s;
        assert_int_equal(ndd_qgram_set(mc, d[b].text, strlen(d[b].text), &s, &ns[b]), NDD_OK);
        set[b] = malloc((ns[b] + 1) * sizeof **set);
        memcpy(set[b], s, ns[b] * sizeof *s);
        out[b].kind = NDD_FLOW_NEW;
        out[b].of = -1;
        if (clock != INT64_MIN && d[b].t < clock - p->max_late) {
            out[b].kind = NDD_FLOW_LATE;
            continue;
        }
        acc[b] = 1;
        if (d[b].t > clock)
            clock = d[b].t;
        for (size_t a = 0; a < b; a++) {
            int64_t dt = d[b].t > d[a].t ? d[b].t - d[a].t : d[a].t - d[b].t;
            uint64_t inter;
            double sc;
            int dup;
            if (!acc[a] || dt >= p->window)
                continue;
            out[b].compared++;
            sc = ndd_qgram_docq(set[b], ns[b], set[a], ns[a], &inter);
            dup = sc >= p->threshold;
            if (p->measure == NDD_FLOW_TLCS) {
                size_t mn = ns[a] < ns[b] ? ns[a] : ns[b];
                ndd_tlcs_result_t r;
                dup = 0;
                if (p->candidate_min == 0 || (inter > 0 && (double)inter >= p->candidate_min * (double)mn)) {
                    assert_int_equal(ndd_tlcs_compare(ws, &p->tlcs, d[b].text, strlen(d[b].text), d[a].text,
                                                      strlen(d[a].text), &r), NDD_OK);
                    dup = r.duplicate;
                    sc = r.resemblance;
                    if (dup && p->formulaic) {
                        ndd_formula_result_t fr;
                        assert_int_equal(ndd_formula_check(&p->fp, d[b].text, strlen(d[b].text), d[a].text,
                                                           strlen(d[a].text), &r, &fr), NDD_OK);
                        dup = !fr.different;
                    }
                }
            }
            if (dup && (out[b].of < 0 || sc > out[b].score)) {
                out[b].kind = NDD_FLOW_DUP;
                out[b].of = (long)a;
                out[b].score = sc;
            }
        }
    }
    for (size_t b = 0; b < n; b++)
        free(set[b]);
    free(set);
    free(ns);
    free(acc);
    ndd_method_ctx_free(mc);
    ndd_tlcs_ws_free(ws);
}

/* Runs the flow over the stream and checks every verdict against the oracle;
 * returns the number of near-duplicate verdicts. */
static size_t check_stream(const ndd_flow_params_t *p, tdoc_t *d, size_t n)
{
    oracle_v_t *want = calloc(n, sizeof *want);
    ndd_flow_t *f;
    ndd_flow_stats_t st;
    size_t dups = 0;
    oracle(p, d, n, want);
    assert_int_equal(ndd_flow_create(&f, p), NDD_OK);
    for (size_t i = 0; i < n; i++) {
        ndd_flow_verdict_t v;
        assert_int_equal(ndd_flow_add(f, d[i].id, 1, d[i].t, d[i].text, strlen(d[i].text), &v), NDD_OK);
        assert_int_equal(v.compared, want[i].compared); /* every pair inside the window, none outside */
        if ((int)v.kind != want[i].kind || (v.kind == NDD_FLOW_DUP && (v.of_seq != (uint64_t)want[i].of ||
                                                                      fabs(v.score - want[i].score) > 1e-12)))
            fail_msg("doc %zu (t %lld): flow %s of %lld score %.6f, oracle %s of %ld score %.6f", i,
                     (long long)d[i].t, ndd_flow_kind_name(v.kind), v.kind == NDD_FLOW_DUP ? (long long)v.of_seq : -1LL,
                     v.score, ndd_flow_kind_name((ndd_flow_kind_t)want[i].kind), want[i].of, want[i].score);
        if (v.kind == NDD_FLOW_DUP) {
            assert_string_equal(v.of_id, d[want[i].of].id);
            dups++;
        }
    }
    ndd_flow_get_stats(f, &st);
    assert_int_equal(st.docs, n);
    assert_int_equal(st.dups, dups);
    assert_true(st.segments_dropped > 0); /* the stream outlived its window */
    ndd_flow_free(f);
    free(want);
    return dups;
}

static void free_stream(tdoc_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(d[i].text);
    free(d);
}

static void test_oracle_qgram(void **state)
{
    (void)state;
    make_vocab();
    for (int round = 0; round < 4; round++) {
        ndd_flow_params_t p;
        ndd_flow_params_default(&p);
        p.max_late = round & 1 ? 2 * 3600 : 0;
        p.threshold = round < 2 ? 0.8 : 0.5;
        tdoc_t *d = make_stream(400, 4 * 86400, p.window, p.max_late, round & 1);
        size_t dups = check_stream(&p, d, 400);
        assert_true(dups > 20 && dups < 380);
        p.index = NDD_FLOW_INDEX_BITMAP; /* the paper's bitmaps: the same verdicts */
        assert_int_equal(check_stream(&p, d, 400), dups);
        free_stream(d, 400);
    }
}

static void test_oracle_tlcs(void **state)
{
    (void)state;
    make_vocab();
    for (int round = 0; round < 2; round++) {
        ndd_flow_params_t p;
        ndd_flow_params_default(&p);
        p.measure = NDD_FLOW_TLCS;
        p.candidate_min = round ? 0.5 : 0.0; /* all pairs in the window, or the index's candidates */
        p.formulaic = !round;
        p.index = round ? NDD_FLOW_INDEX_BITMAP : NDD_FLOW_INDEX_POSTINGS;
        p.max_late = 3600;
        tdoc_t *d = make_stream(160, 4 * 86400, p.window, p.max_late, 1);
        size_t dups = check_stream(&p, d, 160);
        assert_true(dups > 10);
        free_stream(d, 160);
    }
}

/* Story k: 12 pseudo-random words (distinct stories share almost no q-gram). */
static void story(int64_t k, char *s, size_t cap)
{
    uint64_t x = (uint64_t)k * 0x9e3779b97f4a7c15ULL + 12345;
    size_t len = 0;
    for (int w = 0; w < 12 && len + 9 < cap; w++) {
        for (int c = 0; c < 6; c++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            s[len++] = (char)('a' + (x >> 33) % 26);
        }
        s[len++] = ' ';
    }
    s[len] = 0;
}

/* 4 days of documents: segments held never exceed (window + max_late) / 1h
 * + 1 and reach it, old segments are dropped, and a copy of a document
 * exactly one window later is never matched with it (while one a second
 * inside the window is). */
static void test_eviction(void **state)
{
    (void)state;
    for (int late = 0; late < 2; late++) {
        ndd_flow_params_t p;
        ndd_flow_t *f;
        ndd_flow_stats_t st;
        ndd_flow_verdict_t v;
        char text[128];
        ndd_flow_params_default(&p);
        p.max_late = late ? 2 * 3600 : 0;
        p.index = late ? NDD_FLOW_INDEX_BITMAP : NDD_FLOW_INDEX_POSTINGS;
        uint64_t cap = (uint64_t)((p.window + p.max_late) / 3600 + 1);
        int64_t t0 = 1330560000 + 1234;
        assert_int_equal(ndd_flow_create(&f, &p), NDD_OK);
        for (int64_t k = 0; k < 4 * 24 * 6; k++) { /* one story every 10 minutes for 4 days */
            int64_t t = t0 + k * 600;
            story(k, text, sizeof text);
            assert_int_equal(ndd_flow_add(f, "x", 1, t, text, strlen(text), &v), NDD_OK);
            assert_int_equal(v.kind, NDD_FLOW_NEW);
            if (k >= 144) {
                /* story k - 144 again, exactly one window after it: the original is
                 * outside (the earlier copy2 of it, 1 s before, is inside) */
                story(k - 144, text, sizeof text);
                assert_int_equal(ndd_flow_add(f, "copy", 1, t, text, strlen(text), &v), NDD_OK);
                if (k > 144) {
                    assert_int_equal(v.kind, NDD_FLOW_DUP);
                    assert_string_equal(v.of_id, "copy2");
                    assert_true(t - v.of_time < p.window);
                } else {
                    assert_int_equal(v.kind, NDD_FLOW_NEW);
                }
                /* story k - 143, one second inside its window: the original matches */
                story(k - 143, text, sizeof text);
                assert_int_equal(ndd_flow_add(f, "copy2", 1, t + 599, text, strlen(text), &v), NDD_OK);
                assert_int_equal(v.kind, NDD_FLOW_DUP);
                assert_string_equal(v.of_id, "x");
                assert_int_equal(v.of_time, t0 + (k - 143) * 600);
            }
            ndd_flow_get_stats(f, &st);
            assert_true(st.segments_held <= cap);
        }
        ndd_flow_get_stats(f, &st);
        assert_int_equal(st.segments_held_max, cap);
        assert_true(st.segments_dropped >= 4 * 24 - cap - 1);
        assert_true(st.bytes_held_max <= cap * st.segment_bytes_max);
        ndd_flow_free(f);
    }
}

/* Late and undated documents: reported with their own verdict, counted,
 * never compared nor indexed. */
static void test_late_undated(void **state)
{
    ndd_flow_params_t p;
    ndd_flow_t *f;
    ndd_flow_verdict_t v;
    ndd_flow_stats_t st;
    const char *s = "the same story about the river and the bridge";
    (void)state;
    ndd_flow_params_default(&p);
    p.max_late = 600;
    assert_int_equal(ndd_flow_create(&f, &p), NDD_OK);
    assert_int_equal(ndd_flow_add(f, "a", 1, 10000, s, strlen(s), &v), NDD_OK);
    assert_int_equal(v.kind, NDD_FLOW_NEW);
    assert_int_equal(ndd_flow_add(f, "u", 0, 0, s, strlen(s), &v), NDD_OK);
    assert_int_equal(v.kind, NDD_FLOW_UNDATED);
    assert_int_equal(ndd_flow_add(f, "b", 1, 9400, s, strlen(s), &v), NDD_OK); /* 600 s behind: accepted */
    assert_int_equal(v.kind, NDD_FLOW_DUP);
    assert_string_equal(v.of_id, "a");
    assert_int_equal(ndd_flow_add(f, "c", 1, 9399, s, strlen(s), &v), NDD_OK); /* 601 s behind: late */
    assert_int_equal(v.kind, NDD_FLOW_LATE);
    ndd_flow_get_stats(f, &st);
    assert_int_equal(st.docs, 4);
    assert_int_equal(st.late, 1);
    assert_int_equal(st.undated, 1);
    assert_int_equal(st.out_of_order, 1);
    assert_int_equal(st.dups, 1);
    ndd_flow_free(f);
}

static void test_time_parse(void **state)
{
    int64_t t;
    (void)state;
    assert_int_equal(ndd_flow_parse_time("1970-01-01T00:00:00Z", &t), NDD_OK);
    assert_int_equal(t, 0);
    assert_int_equal(ndd_flow_parse_time("2012-03-01", &t), NDD_OK);
    assert_int_equal(t, 1330560000);
    assert_int_equal(ndd_flow_parse_time("2020-03-29T09:04:10Z", &t), NDD_OK);
    assert_int_equal(t, 1585472650);
    assert_int_equal(ndd_flow_parse_time("20200329090410", &t), NDD_OK);
    assert_int_equal(t, 1585472650);
    assert_int_equal(ndd_flow_parse_time("2020-03-29 11:04:10.25+02:00", &t), NDD_OK);
    assert_int_equal(t, 1585472650);
    assert_int_equal(ndd_flow_parse_time("2020-03-29T04:04:10-0500", &t), NDD_OK);
    assert_int_equal(t, 1585472650);
    assert_int_equal(ndd_flow_parse_time("1969-12-31T23:00:00Z", &t), NDD_OK);
    assert_int_equal(t, -3600);
    assert_int_equal(ndd_flow_hour(-3600), -1);
    assert_int_equal(ndd_flow_hour(-1), -1);
    assert_int_equal(ndd_flow_hour(3599), 0);
    assert_int_equal(ndd_flow_parse_time("2000-02-29T12:00Z", &t), NDD_OK);
    assert_int_equal(t, 951825600);
    const char *bad[] = {"", "abc", "2019-02-29", "2020-13-01", "2020-01-01T25:00:00Z", "2020-01-01T10:00:00X",
                         "2020-01-01x", "2020-1-01", "26-FEB-1987 15:01:01.79"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(ndd_flow_parse_time(bad[i], &t), NDD_ERR_FORMAT);
    assert_int_equal(ndd_flow_parse_duration("24h", &t), NDD_OK);
    assert_int_equal(t, 86400);
    assert_int_equal(ndd_flow_parse_duration("90m", &t), NDD_OK);
    assert_int_equal(t, 5400);
    assert_int_equal(ndd_flow_parse_duration("3d", &t), NDD_OK);
    assert_int_equal(t, 259200);
    const char *badd[] = {"24", "h", "-1h", "1.5h", "", "3 d", "99999999999999999999h"};
    for (size_t i = 0; i < sizeof badd / sizeof *badd; i++)
        assert_int_equal(ndd_flow_parse_duration(badd[i], &t), NDD_ERR_FORMAT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_example), cmocka_unit_test(test_docq_brute),
        cmocka_unit_test(test_oracle_qgram),  cmocka_unit_test(test_oracle_tlcs),
        cmocka_unit_test(test_eviction),      cmocka_unit_test(test_late_undated),
        cmocka_unit_test(test_time_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
