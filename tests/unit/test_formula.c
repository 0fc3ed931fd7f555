/* test_formula.c - the formulaic-text check (src/verify/verify_formula.c):
 * known answers on real Reuters-21578 pairs labelled by reading them
 * (datasets/labels/reuters-pairs.tsv; read from ../shared/datasets, skipped
 * when absent), and synthetic cases for each rule: names and numbers
 * replaced -> different; a corrected figure, typos, an appended paragraph, a
 * cut copy, a moved paragraph, a new headline or dateline -> not different;
 * Chinese text with another publication date -> not different; symmetry. */
#include "ndd_test.h"
#include "ndd_text.h"
#include "ndd_verify.h"
#include "verify_int.h"

#include <stdio.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <ctype.h>

static ndd_tlcs_ws_t *g_ws;
static ndd_formula_ws_t *g_fws; /* one workspace for every check (the verifier's way) */

static int setup(void **state)
{
    (void)state;
    if (ndd_formula_ws_create(&g_fws))
        return -1;
    return ndd_tlcs_ws_create(&g_ws);
}

static int teardown(void **state)
{
    (void)state;
    ndd_tlcs_ws_free(g_ws);
    ndd_formula_ws_free(g_fws);
    return 0;
}

/* ndd_formula_check, and the same through the workspace every check of this
 * file reuses (grown by one pair, then read by smaller ones): the same result. */
static void formula(const ndd_formula_params_t *fp, const char *a, size_t na, const char *b, size_t nb,
                    const ndd_tlcs_result_t *r, ndd_formula_result_t *f)
{
    ndd_formula_result_t w;
    assert_int_equal(ndd_formula_check(fp, a, na, b, nb, r, f), NDD_OK);
    assert_int_equal(ndd_formula_check_ws(g_fws, fp, a, na, b, nb, r, &w), NDD_OK);
    assert_int_equal(w.aligned, f->aligned);
    assert_int_equal(w.words, f->words);
    assert_int_equal(w.keys, f->keys);
    assert_int_equal(w.numbers, f->numbers);
    assert_int_equal(w.replaced, f->replaced);
    assert_int_equal(w.keys_changed, f->keys_changed);
    assert_int_equal(w.numbers_changed, f->numbers_changed);
    assert_int_equal(w.one_line, f->one_line);
    assert_int_equal(w.different, f->different);
}

/* TLCS, then the check (both orders: the answers must agree). Returns the
 * TLCS verdict; *f is the result of (a, b). */
static int check(const char *a, size_t na, const char *b, size_t nb, ndd_formula_result_t *f)
{
    ndd_tlcs_params_t tp;
    ndd_formula_params_t fp;
    ndd_tlcs_result_t r;
    ndd_formula_result_t g;
    ndd_tlcs_params_default(&tp);
    ndd_formula_params_default(&fp);
    assert_int_equal(ndd_tlcs_compare(g_ws, &tp, a, na, b, nb, &r), NDD_OK);
    memset(f, 0, sizeof *f);
    if (!r.duplicate)
        return 0;
    formula(&fp, a, na, b, nb, &r, f);
    assert_int_equal(ndd_tlcs_compare(g_ws, &tp, b, nb, a, na, &r), NDD_OK);
    assert_true(r.duplicate);
    formula(&fp, b, nb, a, na, &r, &g);
    assert_int_equal(f->different, g.different);
    assert_int_equal(f->keys_changed, g.keys_changed);
    assert_int_equal(f->numbers_changed, g.numbers_changed);
    return 1;
}

static int checks(const char *a, const char *b, ndd_formula_result_t *f)
{
    return check(a, strlen(a), b, strlen(b), f);
}

/* ---- synthetic ---- */

#define NOTICE_BODY                                                                                                  \
    "The board of directors declared a regular quarterly dividend on the common shares of the company, "            \
    "unchanged from the prior quarter, the company said in a statement released after the close of trading.\n"

static void test_names_numbers(void **state)
{
    (void)state;
    ndd_formula_result_t f;
    const char *a = "Acme Industries Inc said its board declared a quarterly dividend of 15 cts per share.\n" NOTICE_BODY
                    "The dividend is payable April 15 to holders of record March 31, Acme Industries said.\n";
    const char *b = "Zenith Holdings Corp said its board declared a quarterly dividend of 22 cts per share.\n" NOTICE_BODY
                    "The dividend is payable May 1 to holders of record April 17, Zenith Holdings said.\n";
    assert_true(checks(a, b, &f));
    assert_true(f.aligned);
    assert_true(f.different);
    assert_true(f.keys_changed >= 6);

    /* one corrected figure in a long text is a correction, not another story */
    const char *c = "Acme Industries Inc said its board declared a quarterly dividend of 16 cts per share.\n" NOTICE_BODY
                    "The dividend is payable April 15 to holders of record March 31, Acme Industries said.\n";
    assert_true(checks(a, c, &f));
    assert_false(f.different);
    assert_int_equal(f.numbers_changed, 1);

    /* typos change words, not names or numbers */
    const char *t = "Acme Industries Inc said its bord declared a quartrly dividend of 15 cts per share.\n" NOTICE_BODY
                    "The dividend is payble April 15 to holders of record March 31, Acme Industries said.\n";
    assert_true(checks(a, t, &f));
    assert_false(f.different);

    /* numbers written out are numbers: four and 4 are the same */
    const char *n1 = "The Fed added reserves via four billion dlrs of customer repurchases.\n" NOTICE_BODY;
    const char *n2 = "The Fed added reserves via 4 billion dlrs of customer repurchases.\n" NOTICE_BODY;
    assert_true(checks(n1, n2, &f));
    assert_int_equal(f.numbers_changed, 0);
    assert_false(f.different);
}

static void test_insertions_moves_lines(void **state)
{
    (void)state;
    ndd_formula_result_t f;
    const char *p1 = "Analysts at Morgan Stanley expect the Federal Reserve to hold rates at 6.5 pct in March.\n";
    const char *p2 = "The Commerce Department reported that retail sales rose 1.2 pct in January after a fall.\n";
    const char *p3 = "Economists said the Dallas and Chicago district banks reported slower growth in 1987.\n";
    const char *p4 = "Treasury Secretary James Baker will meet Japanese officials in Tokyo on Thursday.\n";
    char a[1024], b[1024];
    /* an extended copy: pure insertion */
    snprintf(a, sizeof a, "%s%s%s", p1, p2, p3);
    snprintf(b, sizeof b, "%s%s%s%s", p1, p2, p3, p4);
    assert_true(checks(a, b, &f));
    assert_false(f.different);
    assert_int_equal(f.replaced, 0);
    /* a paragraph moved: a large gap, left out */
    snprintf(a, sizeof a, "%s%s%s%s", p1, p2, p3, p4);
    snprintf(b, sizeof b, "%s%s%s%s", p1, p4, p3, p2);
    assert_true(checks(a, b, &f));
    assert_false(f.different);
    /* a new headline (one short line) over the same text */
    snprintf(a, sizeof a, "ACME SETS DIVIDEND\n%s%s%s", p1, p2, p3);
    snprintf(b, sizeof b, "ZENITH CORP RAISES PAYOUT\n%s%s%s", p1, p2, p3);
    assert_true(checks(a, b, &f));
    assert_true(f.one_line);
    assert_false(f.different);
}

static void test_chinese_dateline(void **state)
{
    (void)state;
    ndd_formula_result_t f;
    const char *body = "江山自雄丽，风露与高寒，寄声月姊，借我玉鉴此中看。幽壑鱼龙悲啸，倒影星辰摇动，海气夜漫漫。\n"
                       "涌起白银阙，危驻紫金山。表独立，飞霞佩，切云冠。漫漫倚天长剑，何处不可游。\n"
                       "战士死了的时候，苍蝇所首先发见的是他的缺点和伤痕，嘬著，营营地叫着，以为得意。\n";
    char a[2048], b[2048];
    snprintf(a, sizeof a, "发布时间：2021/07/25 11:16\n%s", body);
    snprintf(b, sizeof b, "发布时间：2021/07/21 20:57\n%s", body);
    assert_true(checks(a, b, &f));
    assert_true(f.one_line);
    assert_false(f.different);
    assert_true(f.words > 50); /* CJK characters are words */
}

/* ---- real pairs ---- */

/* The text of Reuters story newid as scripts/reuters2jsonl.py makes it
 * (title, blank line, body; SGML references decoded, Latin-1 -> UTF-8,
 * control characters dropped), normalised as ndd run --soft-wrap on|off does. */
static int reuters_text(const char *dir, int newid, int soft, ndd_buf_t *out)
{
    char path[1024], key[32];
    snprintf(path, sizeof path, "%s/reut2-%03d.sgm", dir, (newid - 1) / 1000);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, fp), (size_t)n);
    s[n] = '\0';
    fclose(fp);
    snprintf(key, sizeof key, "NEWID=\"%d\"", newid);
    char *st = strstr(s, key), *end = st ? strstr(st, "</REUTERS>") : NULL;
    assert_non_null(end);
    *end = '\0';
    ndd_buf_t raw = NDD_BUF_INIT;
    const char *tags[2][2] = {{"<TITLE>", "</TITLE>"}, {"<BODY>", "</BODY>"}};
    for (int t = 0; t < 2; t++) {
        char *a = strstr(st, tags[t][0]), *b = a ? strstr(a, tags[t][1]) : NULL;
        if (!a || !b)
            continue;
        a += strlen(tags[t][0]);
        if (t && raw.len)
            ndd_buf_puts(&raw, "\n\n");
        for (char *c = a; c < b; c++) {
            if (*c == '&') {
                const char *ent[][2] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&#3;", ""}};
                int hit = 0;
                for (size_t e = 0; e < 4 && !hit; e++)
                    if (!strncmp(c, ent[e][0], strlen(ent[e][0]))) {
                        ndd_buf_puts(&raw, ent[e][1]);
                        c += strlen(ent[e][0]) - 1;
                        hit = 1;
                    }
                if (hit)
                    continue;
            }
            unsigned char u = (unsigned char)*c;
            if (u >= 0x80) { /* Latin-1 -> UTF-8 */
                char two[2] = {(char)(0xC0 | (u >> 6)), (char)(0x80 | (u & 0x3F))};
                if (u >= 0xA0)
                    ndd_buf_append(&raw, two, 2);
            } else if (u >= 0x20 || u == '\n' || u == '\t') {
                ndd_buf_append(&raw, c, 1);
            }
        }
    }
    free(s);
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    o.soft_wrap = soft;
    assert_int_equal(ndd_text_from_plain(raw.data ? raw.data : "", raw.len, &o, out), NDD_OK);
    ndd_buf_free(&raw);
    return 0;
}

static void test_reuters_pairs(void **state)
{
    (void)state;
    char dir[512];
    if (!ndd_test_dataset("reuters21578", dir, sizeof dir)) {
        skip();
        return;
    }
    /* id_a, id_b, 1 = different documents (formulaic), 0 = the same story;
     * labels and reasons as in datasets/labels/reuters-pairs.tsv */
    static const struct {
        int a, b, different;
    } pairs[] = {
        {2153, 4909, 1},   /* dividend notices of Conchemco and Unum */
        {2339, 18833, 1},  /* dividend notices of Amoskeag and J.P. Stevens */
        {291, 14884, 1},   /* yen eurobonds of CAECL and Dansk Naturgas */
        {1125, 10503, 1},  /* Fed customer repurchases of two days */
        {5333, 16255, 1},  /* hog and cattle slaughter guesstimates of two days */
        {11901, 17536, 1}, /* eurobonds of McDonalds and Mercedes-Benz Credit */
        {598, 620, 0},     /* the same Arbor Drugs quarter, sales corrected by 0.1 mln */
        {12911, 12966, 0}, /* the same Enserch redemption, coupon corrected */
        {9896, 9970, 0},   /* the same Healthmate quarter, figures reformatted */
        {17613, 19197, 0}, /* identical bodies under two headlines (kept: identical-body group) */
        {5027, 5039, 0},   /* a re-send: the first three paragraphs */
        {10782, 10617, 0}, /* a re-send */
        {230, 347, 0},     /* the same Manila story reworded */
    };
    ndd_buf_t a = NDD_BUF_INIT, b = NDD_BUF_INIT;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        ndd_formula_result_t f;
        assert_int_equal(reuters_text(dir, pairs[i].a, 1, &a), 0);
        assert_int_equal(reuters_text(dir, pairs[i].b, 1, &b), 0);
        int dup = check(a.data, a.len, b.data, b.len, &f);
        fprintf(stderr, "  reuters-%d reuters-%d: tlcs %s, %zu/%zu keys and %zu/%zu numbers changed, %zu replaced%s -> %s\n",
                pairs[i].a, pairs[i].b, dup ? "duplicate" : "not duplicate", f.keys_changed, f.keys,
                f.numbers_changed, f.numbers, f.replaced, f.one_line ? ", one line" : "",
                f.different ? "different" : "same");
        assert_true(dup); /* every pair here passes the TLCS (with small substitutions) */
        assert_int_equal(f.different, pairs[i].different);
    }
    ndd_buf_free(&a);
    ndd_buf_free(&b);
}

/* The re-sends of the issue, hard-wrapped (every line a block, as ndd
 * compare reads a .txt without --soft-wrap): the re-sent story is wrapped at
 * other places, so every line end is a small substitution. The paper's
 * curve gives containment 0.377 and 0.569 (not duplicate); with small
 * substitutions both are duplicates. */
static void test_reuters_resends_hard_wrapped(void **state)
{
    (void)state;
    char dir[512];
    if (!ndd_test_dataset("reuters21578", dir, sizeof dir)) {
        skip();
        return;
    }
    static const int pairs[][2] = {{5027, 5039}, {10782, 10617}};
    ndd_tlcs_params_t on, off;
    ndd_tlcs_params_default(&on);
    off = on;
    off.subst_share = 0;
    ndd_buf_t a = NDD_BUF_INIT, b = NDD_BUF_INIT;
    for (size_t i = 0; i < 2; i++) {
        ndd_tlcs_result_t r1, r0;
        assert_int_equal(reuters_text(dir, pairs[i][0], 0, &a), 0);
        assert_int_equal(reuters_text(dir, pairs[i][1], 0, &b), 0);
        assert_int_equal(ndd_tlcs_compare(g_ws, &off, a.data, a.len, b.data, b.len, &r0), NDD_OK);
        assert_int_equal(ndd_tlcs_compare(g_ws, &on, a.data, a.len, b.data, b.len, &r1), NDD_OK);
        fprintf(stderr, "  reuters-%d reuters-%d hard-wrapped: containment %.3f (paper's curve) -> %.3f\n",
                pairs[i][0], pairs[i][1], r0.containment, r1.containment);
        assert_false(r0.duplicate);
        assert_true(r1.duplicate);
        assert_true(r1.containment >= 0.8);
    }
    ndd_buf_free(&a);
    ndd_buf_free(&b);
}

/* The check of x and y with one region each, over the whole text. */
static void check_whole(const char *x, const char *y, ndd_formula_result_t *f)
{
    ndd_formula_params_t fp;
    ndd_formula_params_default(&fp);
    ndd_tlcs_result_t r;
    memset(&r, 0, sizeof r);
    r.nregions = 1;
    r.regions[0] = (ndd_tlcs_region_t){0, strlen(x), 0, strlen(y), 0};
    formula(&fp, x, strlen(x), y, strlen(y), &r, f);
    assert_true(f->aligned);
}

/* A broken UTF-8 sequence (a lead byte without its continuation bytes)
 * is one byte: it does not swallow the line end and the next line's first
 * word. */
static void test_broken_utf8(void **state)
{
    (void)state;
    ndd_formula_result_t f;
    check_whole("lead \xe4\nq Acme Holdings said 15 cts a share\n", "lead \xe4\nq Zenith Capital said 22 cts a share\n",
                &f);
    assert_int_equal(f.words, 9); /* lead, q, Acme .. share: the lone byte is no CJK character */
    assert_int_equal(f.keys_changed, 3);
    assert_true(f.one_line); /* the names and the number changed in the second line only */
    assert_false(f.different);
}

/* The number words one..twelve, in any case, are the numbers they name;
 * words that only start or end like them are words. */
static void test_number_words(void **state)
{
    (void)state;
    ndd_formula_result_t f;
    check_whole("the one two three four five six seven eight nine ten eleven twelve end",
                "the 1 2 3 4 5 6 7 8 9 10 11 12 end", &f);
    assert_int_equal(f.numbers, 12);
    assert_int_equal(f.replaced, 0); /* each word is its number */
    check_whole("the One TWO Three fOUR Twelve end", "the 1 2 3 4 12 end", &f);
    assert_int_equal(f.numbers, 5);
    assert_int_equal(f.replaced, 0);
    check_whole("on tw thre tenth seventy elevens someone twelves nines end",
                "on tw thre tenth seventy elevens someone twelves nines end", &f);
    assert_int_equal(f.numbers, 0);
    check_whole("the seven end", "the 8 end", &f); /* seven is 7, not 8 */
    assert_int_equal(f.numbers, 1);
    assert_int_equal(f.numbers_changed, 1);
    /* the lookup against strcmp: every name, its prefixes, its extensions by
     * each letter, and each name with one letter changed, with whatever
     * follows in the buffer */
    static const char *const names[] = {"one", "two",   "three", "four", "five",   "six",
                                        "seven", "eight", "nine", "ten",  "eleven", "twelve"};
    char low[80];
    for (int w = 0; w < 12; w++) {
        size_t nl = strlen(names[w]);
        for (size_t cut = 1; cut <= nl + 1; cut++)
            for (int c = 'a' - 1; c <= 'z'; c++)
                for (size_t at = 0; at < cut; at++) {
                    memset(low, at % 2 ? 'x' : 0, sizeof low); /* bytes past the word: anything */
                    memcpy(low, names[w], nl < cut ? nl : cut);
                    size_t l = cut;
                    if (cut > nl)
                        low[nl] = (char)(c < 'a' ? 's' : c); /* an extension */
                    else if (c >= 'a')
                        low[at] = (char)c; /* a letter changed */
                    unsigned want = 0;
                    for (int v = 0; v < 12; v++)
                        if (strlen(names[v]) == l && !memcmp(names[v], low, l))
                            want = (unsigned)v + 1;
                    assert_int_equal(ndd_formula_number_word(low, l), want);
                }
    }
}

static void test_errors(void **state)
{
    (void)state;
    ndd_formula_params_t p;
    ndd_formula_result_t f;
    ndd_tlcs_result_t r;
    ndd_formula_params_default(&p);
    memset(&r, 0, sizeof r);
    assert_int_equal(ndd_formula_check(NULL, "a", 1, "b", 1, &r, &f), NDD_ERR_INVAL);
    assert_int_equal(ndd_formula_check(&p, NULL, 1, "b", 1, &r, &f), NDD_ERR_INVAL);
    /* no region: not judged */
    assert_int_equal(ndd_formula_check(&p, "a", 1, "b", 1, &r, &f), NDD_OK);
    assert_false(f.aligned);
    assert_false(f.different);
    /* a region outside the text */
    r.nregions = 1;
    r.regions[0] = (ndd_tlcs_region_t){0, 5, 0, 1, 1};
    assert_int_equal(ndd_formula_check(&p, "a", 1, "b", 1, &r, &f), NDD_ERR_INVAL);
    assert_int_equal(ndd_formula_check_ws(g_fws, &p, "a", 1, "b", 1, &r, &f), NDD_ERR_INVAL);
    assert_int_equal(ndd_formula_check_ws(NULL, &p, "a", 1, "b", 1, &r, &f), NDD_ERR_INVAL);
    assert_int_equal(ndd_formula_ws_create(NULL), NDD_ERR_INVAL);
    ndd_formula_ws_free(NULL);
}

/* ---- the tokenizer against the one it replaced (kept here verbatim as the
 * oracle: byte by byte, one token at a time; the UTF-8, CJK and number-word
 * helpers, unchanged, are the library's) ---- */
enum { TK_WORD = 0, TK_NAME = 1, TK_NUM = 2 };
typedef struct tok {
    uint64_t h;
    int kind;
    uint32_t blk;
    uint32_t blen;
} tok_t;

/* ASCII letters and digits */
static const uint8_t alnum_tab[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
    ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
    ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
    ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
    ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1};

static inline int is_alnum(unsigned char c) { return alnum_tab[c]; }

/* Tokens of t[0..n): runs of ASCII letters and digits with . , / - ' kept
 * between two of them (3.5, 1,411,240, 6-3/16, A-2), and each CJK
 * character. */
static int ref_tokens(const char *t, size_t n, tok_t **v, size_t *nv, size_t *cap)
{
    int sent = 1;
    size_t i = 0, bstart = 0;
    uint32_t blk = 0;
    const char *nl = memchr(t, '\n', n);
    uint32_t blen = (uint32_t)(nl ? (size_t)(nl - t) : n);
    *nv = 0;
    while (i < n) {
        unsigned char c = (unsigned char)t[i];
        if (c == '\n') {
            blk++;
            bstart = i + 1;
            nl = memchr(t + bstart, '\n', n - bstart);
            blen = (uint32_t)(nl ? (size_t)(nl - t) - bstart : n - bstart);
        }
        if (c >= 0x80) { /* a CJK ideograph, kana or hangul syllable is a word of its own */
            uint32_t cp;
            size_t len = ndd_formula_utf8_cp(t + i, n - i, &cp);
            if (ndd_formula_is_cjk(cp)) {
                int rc = *nv < *cap ? NDD_OK : ndd_array_grow((void **)v, cap, *nv + 1, sizeof **v);
                if (rc)
                    return rc;
                (*v)[(*nv)++] = (tok_t){XXH3_64bits(t + i, len), TK_WORD, blk, blen};
                sent = 0;
            } else if (cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B || cp == 0xFF1A) {
                sent = 1; /* 。！？；： */
            }
            i += len;
            continue;
        }
        if (!is_alnum(c)) {
            if (c == '.' || c == '!' || c == '?' || c == ':' || c == ';' || c == '\n')
                sent = 1;
            i++;
            continue;
        }
        size_t j = i;
        int digit = 0;
        while (j < n) {
            unsigned char d = (unsigned char)t[j];
            if (is_alnum(d)) {
                digit |= d >= '0' && d <= '9';
                j++;
            } else if ((d == '.' || d == ',' || d == '/' || d == '-' || d == '\'') && j > i && j + 1 < n &&
                       is_alnum((unsigned char)t[j + 1])) {
                j++;
            } else {
                break;
            }
        }
        char low[64];
        size_t l = j - i < sizeof low ? j - i : sizeof low;
        for (size_t k = 0; k < l; k++) {
            char x = t[i + k];
            low[k] = (x >= 'A' && x <= 'Z') ? (char)(x + 32) : x;
        }
        int kind = digit ? TK_NUM : (c >= 'A' && c <= 'Z' && !sent) ? TK_NAME : TK_WORD;
        unsigned num = digit ? 0 : ndd_formula_number_word(low, l);
        if (num) {
            l = (size_t)snprintf(low, sizeof low, "%u", num);
            kind = TK_NUM;
        }
        int rc = *nv < *cap ? NDD_OK : ndd_array_grow((void **)v, cap, *nv + 1, sizeof **v);
        if (rc)
            return rc;
        (*v)[(*nv)++] = (tok_t){XXH3_64bits(low, l), kind, blk, blen};
        sent = 0;
        i = j;
    }
    return NDD_OK;
}


/* Random texts over letters (both cases), digits, the joiners, sentence
 * ends, spaces, newlines, number words, long words (past the 64 bytes a
 * token's hash reads), CJK characters, other UTF-8 and broken bytes, cut
 * anywhere: the same tokens, kinds, blocks and hashes. */
static uint64_t g_rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) { return ndd_test_xorshift(&g_rng); }

static void test_tokens_oracle(void **state)
{
    (void)state;
    static const char *const pieces[] = {"the", "The", "THREE", "three", "Twelve", "one", "eleven", "A-2", "3.5",
                                         "1,411,240", "6-3/16", "don't", "U.S.", "e.g.", "x", "Z9", "7",
                                         "中", "国", "。", "！", "é", "\xff", "\xe4\xb8", "\xf0\x90\x8d\x88"};
    static const char seps[] = " .,/-'!?:;\n\t()\"";
    char *t = malloc(4096);
    assert_non_null(t);
    uint64_t *h = NULL;
    ndd_ftok_t *m = NULL;
    tok_t *v = NULL;
    size_t cap = 0, vcap = 0;
    for (int round = 0; round < 4000; round++) {
        size_t n = 0, want = 1 + (size_t)rnd() % 3000;
        while (n + 200 < 4096 && n < want) {
            unsigned what = (unsigned)(rnd() % 10);
            if (what < 5) {
                const char *pc = pieces[rnd() % (sizeof pieces / sizeof *pieces)];
                memcpy(t + n, pc, strlen(pc));
                n += strlen(pc);
            } else if (what < 8) {
                t[n++] = seps[rnd() % (sizeof seps - 1)];
            } else if (what < 9) { /* a long word of letters and digits, joiners inside */
                size_t len = 1 + (size_t)rnd() % 120;
                for (size_t k = 0; k < len; k++) {
                    unsigned c = (unsigned)(rnd() % 40);
                    t[n++] = c < 26 ? (char)((rnd() % 2 ? 'a' : 'A') + c) : c < 36 ? (char)('0' + c - 26)
                                                                                   : ".,/-"[c - 36];
                }
            } else {
                t[n++] = (char)(rnd() % 256);
            }
        }
        size_t cut = round % 4 == 3 && n ? (size_t)rnd() % n : n; /* ends anywhere, even mid-sequence */
        size_t nv = 0, nr = 0;
        assert_int_equal(ndd_formula_tokens(t, cut, &h, &m, &nv, &cap), NDD_OK);
        assert_int_equal(ref_tokens(t, cut, &v, &nr, &vcap), NDD_OK);
        assert_int_equal(nv, nr);
        for (size_t k = 0; k < nv; k++) {
            assert_true(h[k] == v[k].h);
            assert_int_equal(m[k].kind, v[k].kind);
            assert_int_equal(m[k].blk, v[k].blk);
            assert_int_equal(m[k].blen, v[k].blen);
        }
    }
    free(h);
    free(m);
    free(v);
    free(t);
}

/* The alignment against the one it replaced (kept here verbatim; its
 * snakes compared one token at a time): random sequences over 2 to 40
 * hashes, copies with tokens replaced, inserted and deleted, D limits below
 * and above the one needed. */
/* Myers O(ND) with the V vector of every round kept (O(D^2) memory, D <=
 * max_d), then the path back. rep[i] for each token i of x: 0 matched, 1 in
 * a small replacement (a gap between matches with 1..gmax tokens on both
 * sides), 2 elsewhere (deleted, or in a larger gap: a moved paragraph, an
 * inserted advertisement, a rewritten passage). Returns 1 when the alignment
 * was made, 0 when D > max_d, < 0 on an error. */
static void ref_mark_gap(uint8_t *rep, long x0, long x1, long ny, long gmax)
{
    int small = x1 > x0 && ny > 0 && x1 - x0 <= gmax && ny <= gmax;
    for (long i = x0; i < x1; i++)
        rep[i] = small ? 1 : 2;
}

static int ref_align(const tok_t *x, size_t nx, const tok_t *y, size_t ny, size_t max_d, long gmax,
                          uint8_t *rep)
{
    long n = (long)nx, m = (long)ny, dmax = (long)(max_d < nx + ny ? max_d : nx + ny);
    long off = dmax + 1, w = 2 * dmax + 3;
    /* trace row d keeps V on diagonals -d-1 .. d+1 only (what the walk back
     * reads of it), at TROW(d) = d^2 + 2d: the rows grow with the D found,
     * not with max_d (a max_d x max_d table was a multi-MB allocation and
     * a copy of 2 max_d + 3 entries per round for every formulaic check) */
#define TROW(d) ((size_t)(d) * (size_t)(d) + 2 * (size_t)(d))
    int *trace = NULL, *v = malloc((size_t)w * sizeof *v);
    size_t tcap = 0;
    long dfound = -1;
    if (!v)
        return NDD_ERR_NOMEM;
    for (long i = 0; i < w; i++)
        v[i] = -1;
    v[off + 1] = 0;
    for (long d = 0; d <= dmax && dfound < 0; d++) {
        for (long k = -d; k <= d; k += 2) {
            long xx = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
            long yy = xx - k;
            while (xx < n && yy < m && x[xx].h == y[yy].h) {
                xx++;
                yy++;
            }
            v[off + k] = (int)xx;
            if (xx >= n && yy >= m)
                dfound = d;
        }
        if (ndd_array_grow((void **)&trace, &tcap, TROW(d + 1), sizeof *trace)) {
            free(trace);
            free(v);
            return NDD_ERR_NOMEM;
        }
        /* diagonals -d-1 .. d+1 (within v: d <= dmax) */
        memcpy(trace + TROW(d), v + off - d - 1, (size_t)(2 * d + 3) * sizeof *v);
    }
    if (dfound < 0) {
        free(trace);
        free(v);
        return 0;
    }
    /* walk back: matched tokens 0; each gap between matched runs: a small
     * replacement (tokens on both sides, at most gmax on each) 1, anything
     * else (pure deletion, a moved or rewritten passage) 2 */
    memset(rep, 2, nx);
    long xx = n, yy = m;
    long gap_x1 = n, gap_y1 = m; /* the current gap's end (exclusive) in x and y */
    for (long d = dfound; d >= 0; d--) {
        /* the round before (where round d came from): row d - 1 starts at
         * diagonal -d, so diagonal k is vp[k + d] */
        const int *vp = d ? trace + TROW(d - 1) : NULL;
        long k = xx - yy;
        long pk = d == 0 ? 0 : (k == -d || (k != d && vp[k - 1 + d] < vp[k + 1 + d])) ? k + 1 : k - 1;
        long px = d == 0 ? 0 : vp[pk + d], py = px - pk;
        long sx = d == 0 ? 0 : (pk == k + 1 ? px : px + 1); /* where the snake of round d starts */
        long sy = sx - k;
        if (xx > sx) { /* a snake (matches) [sx, xx): it closes the gap after it */
            ref_mark_gap(rep, xx, gap_x1, gap_y1 - yy, gmax);
            for (long i = sx; i < xx; i++)
                rep[i] = 0;
            gap_x1 = sx;
            gap_y1 = sy;
        }
        xx = px;
        yy = py;
        if (d == 0)
            break;
    }
    ref_mark_gap(rep, 0, gap_x1, gap_y1, gmax); /* the gap at the start */
    free(trace);
    free(v);
    return 1;
#undef TROW
}


static void test_align_oracle(void **state)
{
    (void)state;
    enum { N = 300 };
    uint64_t x[N], y[N];
    tok_t tx[N], ty[N];
    uint8_t r1[N], r2[N];
    for (int round = 0; round < 3000; round++) {
        size_t alpha = 2 + (size_t)rnd() % 39, nx = (size_t)rnd() % N, ny = 0;
        for (size_t i = 0; i < nx; i++)
            x[i] = rnd() % alpha;
        unsigned every = 2 + (unsigned)(rnd() % 30);
        for (size_t i = 0; i < nx && ny < N; i++) { /* a copy with edits */
            unsigned e = (unsigned)(rnd() % every);
            if (e == 0)
                y[ny++] = rnd() % alpha; /* replaced */
            else if (e == 1 && ny + 1 < N) {
                y[ny++] = x[i];
                y[ny++] = rnd() % alpha; /* inserted */
            } else if (e != 2)
                y[ny++] = x[i]; /* (e == 2: deleted) */
        }
        if (round % 5 == 0) /* unrelated */
            for (size_t i = 0; i < ny; i++)
                y[i] = rnd() % alpha;
        if (round % 3 == 1) /* hashes that often agree in their low halves without being equal */
            for (size_t i = 0; i < N; i++) { /* (the AVX-512 rounds compare the low halves first) */
                if (i < nx)
                    x[i] = x[i] % 5 | x[i] / 5 << 32;
                if (i < ny)
                    y[i] = y[i] % 5 | y[i] / 5 << 32;
            }
        for (size_t i = 0; i < nx; i++)
            tx[i] = (tok_t){x[i], 0, 0, 0};
        for (size_t i = 0; i < ny; i++)
            ty[i] = (tok_t){y[i], 0, 0, 0};
        size_t max_d = (size_t)rnd() % 400;
        long gmax = 1 + (long)(rnd() % 8);
        int b = ref_align(tx, nx, ty, ny, max_d, gmax, r2);
        for (unsigned isa = 0; isa <= 1; isa++) { /* plain C, AVX-512 rounds (where the CPU has them) */
            unsigned old = ndd_formula_isa(isa);
            int a = ndd_formula_align(x, nx, y, ny, max_d, gmax, r1);
            ndd_formula_isa(old);
            assert_int_equal(a, b);
            if (a == 1 && nx)
                assert_memory_equal(r1, r2, nx);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_numbers), cmocka_unit_test(test_insertions_moves_lines),
        cmocka_unit_test(test_chinese_dateline), cmocka_unit_test(test_reuters_pairs),
        cmocka_unit_test(test_reuters_resends_hard_wrapped), cmocka_unit_test(test_broken_utf8),
        cmocka_unit_test(test_errors), cmocka_unit_test(test_number_words), cmocka_unit_test(test_tokens_oracle),
        cmocka_unit_test(test_align_oracle),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
