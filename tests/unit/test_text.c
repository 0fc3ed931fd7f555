/* test_text.c - HTML -> visible text, plain-text normalisation, sentences. */
#include "ndd_test.h"

#include <zlib.h>

#include "ndd_text.h"
#include "ndd_text_internal.h"
#include "ndd_util.h"

static ndd_buf_t g_out = NDD_BUF_INIT;

static const char *html_opts(const char *in, size_t n, size_t max, int bp, int keep_title)
{
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    o.max_bytes = max;
    o.boilerplate = bp;
    o.keep_title = keep_title;
    assert_int_equal(ndd_text_from_html(in, n, &o, &g_out), NDD_OK);
    assert_non_null(g_out.data);
    assert_int_equal(strlen(g_out.data), g_out.len);
    return g_out.data;
}

static const char *H(const char *in) { return html_opts(in, strlen(in), 0, 0, 0); }
static const char *HB(const char *in) { return html_opts(in, strlen(in), 0, 1, 0); }

static const char *P(const char *in, int soft)
{
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    o.max_bytes = 0;
    o.soft_wrap = soft;
    assert_int_equal(ndd_text_from_plain(in, strlen(in), &o, &g_out), NDD_OK);
    return g_out.data;
}

/* The text format of ndd_text.h: valid UTF-8, blocks separated by one '\n',
 * single spaces, no leading/trailing whitespace, no control characters, no
 * NBSP / C1 / BOM. */
static void check_format(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    assert_true(ndd_utf8_valid(s, n));
    if (n == 0)
        return;
    assert_true(u[0] != ' ' && u[0] != '\n');
    assert_true(u[n - 1] != ' ' && u[n - 1] != '\n');
    for (size_t i = 0; i < n; i++) {
        assert_true(u[i] >= 0x20 || u[i] == '\n');
        assert_true(u[i] != 0x7F);
        if (i + 1 < n) {
            int ws1 = u[i] == ' ' || u[i] == '\n', ws2 = u[i + 1] == ' ' || u[i + 1] == '\n';
            assert_false(ws1 && ws2);
            if (u[i] == 0xC2)
                assert_false(u[i + 1] == 0xA0 || (u[i + 1] >= 0x80 && u[i + 1] <= 0x9F));
        }
        if (i + 2 < n)
            assert_false(u[i] == 0xEF && u[i + 1] == 0xBB && u[i + 2] == 0xBF);
    }
}

/* ---- entities ---- */
static void test_entity_table(void **state)
{
    (void)state;
    assert_true(ndd_text_nentities >= 2125); /* the whole WHATWG list */
    size_t legacy = 0;
    for (size_t k = 0; k < ndd_text_nentities; k++) {
        const ndd_text_entity_t *e = &ndd_text_entities[k];
        assert_int_equal(strlen(e->name), e->len);
        assert_int_equal(strlen(e->val), e->vlen);
        assert_true(ndd_utf8_valid(e->val, e->vlen));
        if (k)
            assert_true(strcmp(ndd_text_entities[k - 1].name, e->name) < 0);
        assert_ptr_equal(ndd_text_entity_find(e->name, e->len), e);
        legacy += e->legacy;
        /* every entity decodes through the extractor (whitespace ones to nothing) */
        char in[64], exp[16];
        snprintf(in, sizeof in, "x&%s;x", e->name);
        const char *got = H(in);
        assert_true(got[0] == 'x' && got[strlen(got) - 1] == 'x');
        snprintf(exp, sizeof exp, "x%sx", e->val);
        if (e->vlen == 1 && e->val[0] > ' ' && e->val[0] != 0x7F)
            assert_string_equal(got, exp);
    }
    assert_int_equal(legacy, 106);
    assert_null(ndd_text_entity_find("ampx", 4));
    assert_null(ndd_text_entity_find("", 0));
}

static void test_entities(void **state)
{
    (void)state;
    assert_string_equal(H("a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&#39;"), "a & b <c> \"d\" 'e'");
    assert_string_equal(H("caf&eacute; &hellip; &euro;&mdash;&rarr;"), "caf\xC3\xA9 \xE2\x80\xA6 \xE2\x82\xAC\xE2\x80\x94\xE2\x86\x92");
    assert_string_equal(H("&alpha;&Omega;&infin;&ne;"), "\xCE\xB1\xCE\xA9\xE2\x88\x9E\xE2\x89\xA0");
    assert_string_equal(H("&nvlt;"), "<\xE2\x83\x92"); /* two code points */
    assert_string_equal(H("&AMP;&Amp;"), "&&Amp;");      /* case-sensitive */
    assert_string_equal(H("&CounterClockwiseContourIntegral;"), "\xE2\x88\xB3");
    /* numeric */
    assert_string_equal(H("&#65;&#x42;&#X43;&#0068;&#x0045"), "ABCDE");
    assert_string_equal(H("&#128;&#x99;&#150;"), "\xE2\x82\xAC\xE2\x84\xA2\xE2\x80\x93"); /* cp1252 */
    assert_string_equal(H("a&#x81;b&#x8D;c"), "abc");                                /* C1 controls dropped */
    assert_string_equal(H("&#0;|&#xD800;|&#xDFFF;|&#x110000;|&#99999999999999999999;"),
                        "\xEF\xBF\xBD|\xEF\xBF\xBD|\xEF\xBF\xBD|\xEF\xBF\xBD|\xEF\xBF\xBD");
    assert_string_equal(H("&#x1F600;"), "\xF0\x9F\x98\x80");
    assert_string_equal(H("a&#32;&#x9;&#10;&#160;b"), "a b");
    assert_string_equal(H("&#; &#x; &#xg; &# 1"), "&#; &#x; &#xg; &# 1");
    /* legacy names without ';' before a non-alphanumeric character */
    assert_string_equal(H("&amp &lt, &gt. &nbsp|&copy 2020 &eacute!"), "& <, >. |\xC2\xA9 2020 \xC3\xA9!");
    assert_string_equal(H("AT&T &copy2020 ?a=1&para=2"), "AT&T &copy2020 ?a=1\xC2\xB6=2");
    assert_string_equal(H("&hellip &notit; &foo; & &"), "&hellip &notit; &foo; & &");
    assert_string_equal(H("x&amp"), "x&");
    assert_string_equal(H("x&"), "x&");
    /* not decoded inside raw text, decoded in RCDATA */
    assert_string_equal(H("<xmp>&amp;<b></xmp>"), "&amp;<b>");
    assert_string_equal(H("<textarea>&amp;<b></textarea>"), "&<b>");
}

/* ---- markup ---- */
static void test_drop_script_style_comments(void **state)
{
    (void)state;
    assert_string_equal(H("a<script>var x = 1 < 2;</script>b"), "ab");
    assert_string_equal(H("a<script>s=\"</scr\"+\"ipt>\";</script>b"), "ab");
    /* the script ends at the first </script, even inside a string literal */
    assert_string_equal(H("<script>x=\"</script>\";y</script>z"), "\";yz");
    assert_string_equal(H("a<SCRIPT type=x>1</SCRIPT >b<script>2</script\t>c<script>3</scripty></script/>d"), "abcd");
    assert_string_equal(H("a<style>p{color:red} </style>b<noscript><p>enable js</p></noscript>c"), "abc");
    assert_string_equal(H("a<template><p>t</p></template>b"), "ab");
    assert_string_equal(H("a<svg><title>icon</title><text>s</text></svg>b<svg/>c"), "a b c");
    assert_string_equal(H("a<iframe>fallback</iframe>b"), "a b");
    assert_string_equal(H("<head><title>T &amp; t</title></head><body>x</body>"), "x");
    assert_string_equal(html_opts("<title>T &amp; t</title><p>x", 28, 0, 0, 1), "T & t\nx");
    assert_string_equal(H("a<!-- c -->b<!---->c<!-->d<!--->e<!-- -- -->f<!-- x --!>g"), "abcdefg");
    assert_string_equal(H("<!DOCTYPE html><?xml version=\"1.0\"?>a<![CDATA[x]]>b<!bogus>c</ 1>d</>e"), "abcde");
    /* CDATA is a bogus comment in HTML content (up to the first '>'), text in foreign content */
    assert_string_equal(H("a<![CDATA[x>y]]>b"), "ay]]>b");
    assert_string_equal(H("<math><mi>a<![CDATA[x<y>&amp;]]>b</mi></math>"), "ax<y>&amp;b");
    assert_string_equal(H("<math><![CDATA[unclosed"), "unclosed");
    /* an HTML element breaks out of svg / math (HTML5), except at integration points */
    assert_string_equal(H("a<svg><g><path>icon</path><div>visible</div>b"), "a\nvisible\nb");
    assert_string_equal(H("<svg><foreignObject><p>x</p></foreignObject></svg>y"), "y");
    assert_string_equal(H("<math><mi><div>x</div></mi><mo>+</mo></math>"), "x\n+");
    /* table parts outside a table are ignored; stray end tags close nothing */
    assert_string_equal(H("a<td>b</td>c<tr>d"), "abcd");
    assert_string_equal(H("a</div>b</li>c</textarea>d</p>e</br>f"), "abcd\ne\nf");
    /* unclosed constructs at the end of the input */
    assert_string_equal(H("a<!-- never closed"), "a");
    assert_string_equal(H("a<script>never closed"), "a");
    assert_string_equal(H("a<div class=\"x"), "a");
    assert_string_equal(H("a<div"), "a");
    assert_string_equal(H("a<"), "a<");
    assert_string_equal(H("a</"), "a</");
    assert_string_equal(H("a<title>x"), "a");
    assert_string_equal(H("a<!"), "a");
    /* '<' that does not start markup */
    assert_string_equal(H("1 < 2 <3 <= 4 a<b"), "1 < 2 <3 <= 4 a");
    assert_string_equal(H("x <plaintext><b>&amp;</b>"), "x\n<b>&amp;</b>");
}

static void test_attributes(void **state)
{
    (void)state;
    assert_string_equal(H("<a title=\"x>y\" href='a>b' data-x=>link</a>"), "link");
    assert_string_equal(H("<a title=x>y</a>z"), "yz");
    assert_string_equal(H("<img alt=\"a > b\" src=x.png>c"), "c");
    assert_string_equal(H("<p class=\"a\"title='b'/>t"), "t");
    assert_string_equal(H("<div\n  id = \"q>\"\n>t</div>"), "t");
    assert_string_equal(H("<a b=\"unterminated>text"), "");
}

static void test_blocks_inline_whitespace(void **state)
{
    (void)state;
    assert_string_equal(H("<p>a</p><p>b</p>"), "a\nb");
    assert_string_equal(H("a<b>b</b><i>c</i><span>d</span><a href=x>e</a><em>f</em><strong>g</strong>"), "abcdefg");
    assert_string_equal(H("<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>"), "a\nb\nc");
    assert_string_equal(H("a<br>b<br/>c<br><br><br>d"), "a\nb\nc\nd");
    assert_string_equal(H("<ul><li>one<li>two</ul><h1>T</h1><div><div>x</div></div>"), "one\ntwo\nT\nx");
    assert_string_equal(H("a<img src=x>b<input>c<wbr>d"), "a b cd");
    assert_string_equal(H("<div>\n   x \t y  \r\n </div>  \n <div> z </div> "), "x y\nz");
    assert_string_equal(H("  a&nbsp;&nbsp;b\xC2\xA0""c\xE3\x80\x80""d\xE2\x80\x83""e\xEF\xBB\xBF""f"), "a b c d ef");
    assert_string_equal(H("a\x01\x1b\x7f""b\xC2\x85""c\xC2\x9F""d"), "ab cd");
    assert_string_equal(H("<p> </p><div>\n</div>x"), "x");
    assert_string_equal(H(""), "");
    assert_string_equal(H("<html><body></body></html>"), "");
    /* the output buffer is cleared and reused */
    H("long long long text");
    assert_string_equal(H("s"), "s");
    assert_int_equal(ndd_text_from_html(NULL, 0, NULL, &g_out), NDD_OK);
    assert_string_equal(g_out.data, "");
    assert_int_equal(ndd_text_from_html("x", 1, NULL, NULL), NDD_ERR_INVAL);
}

static void test_invalid_utf8_repaired(void **state)
{
    (void)state;
    const char in[] = "a\xFF""b\xC3<b>c\xE4\xB8";
    const char *s = html_opts(in, sizeof in - 1, 0, 0, 0);
    assert_true(ndd_utf8_valid(s, strlen(s)));
    assert_string_equal(s, "a\xEF\xBF\xBD""b\xEF\xBF\xBD""c\xEF\xBF\xBD\xEF\xBF\xBD");
}

/* ---- truncation ---- */
static void test_truncation_utf8(void **state)
{
    (void)state;
    ndd_buf_t in = NDD_BUF_INIT;
    for (int k = 0; k < 5000; k++)
        ndd_buf_puts(&in, "\xE4\xB8\xAD"); /* 中: 3 bytes */
    const char *s = html_opts(in.data, in.len, NDD_TEXT_DEFAULT_MAX_BYTES, 0, 0);
    assert_int_equal(strlen(s), 10239); /* 3413 whole characters */
    assert_true(ndd_utf8_valid(s, strlen(s)));
    for (size_t max = 1; max <= 40; max++) {
        s = html_opts(in.data, in.len, max, 0, 0);
        assert_int_equal(strlen(s), max / 3 * 3);
        s = html_opts("<p>ab</p><p>\xE4\xB8\xAD\xE4\xB8\xAD</p>", 22, max, 0, 0);
        check_format(s, strlen(s));
        assert_true(strlen(s) <= max);
    }
    /* a cut that lands after a separator does not leave trailing whitespace */
    assert_string_equal(html_opts("a b", 3, 2, 0, 0), "a");
    assert_string_equal(html_opts("<p>a</p><p>b</p>", 16, 2, 0, 0), "a");
    ndd_buf_free(&in);
}

/* With max_bytes the extractor stops early; the result must equal the
 * unlimited text cut at max_bytes (then trimmed). */
static void check_truncation_equivalence(const char *doc, size_t n, int bp)
{
    static const size_t maxes[] = {1, 7, 64, 300, 1000, 4096, 10240};
    const char *full0 = html_opts(doc, n, 0, bp, 0);
    size_t fl = strlen(full0);
    char *full = malloc(fl + 1);
    assert_non_null(full);
    memcpy(full, full0, fl + 1);
    check_format(full, fl);
    for (size_t k = 0; k < sizeof maxes / sizeof maxes[0]; k++) {
        size_t cut = ndd_utf8_cut(full, fl, maxes[k]);
        while (cut && (full[cut - 1] == ' ' || full[cut - 1] == '\n'))
            cut--;
        const char *t = html_opts(doc, n, maxes[k], bp, 0);
        assert_int_equal(strlen(t), cut);
        assert_memory_equal(t, full, cut);
    }
    free(full);
}

/* ---- boilerplate ---- */
static const char *k_page =
    "<html><head><title>Site</title></head><body>"
    "<div id=\"cookie-banner\">We use cookies. Accept all cookies to continue browsing this site.</div>"
    "<header><a href=/><img src=logo.png></a><span>My Site Slogan</span></header>"
    "<nav><ul><li><a href=/>Home</a></li><li><a href=/news>News</a></li><li><a href=/about>About</a></li></ul></nav>"
    "<div class=\"page-wrapper has-sidebar\">"
    "<main><article><header><h1>Article title here</h1></header>"
    "<p>The first paragraph of the article is long enough to be kept, and it has a <a href=/x>link</a> inside.</p>"
    "<div class=\"social-share\">Share on Facebook Share on Twitter</div>"
    "<p>The second paragraph follows. It ends the article.</p>"
    "<div class=\"subheader\">Subheader text is content.</div>"
    "</article></main>"
    "<aside><h3>Related</h3><p>Some related story teaser.</p></aside>"
    "<div id=\"sidebar\"><p>Sidebar text</p></div>"
    "<div class=\"ad-slot\">Buy now!</div>"
    "<div role=\"navigation\">Prev | Next</div>"
    "<p hidden>Hidden text.</p><p style=\"display: none\">Also hidden.</p>"
    "<ul><li><a href=/1>Popular one</a></li><li><a href=/2>Popular two</a></li></ul>"
    "<form><label>Search</label><input><button>Go</button></form>"
    "</div>"
    "<footer><p>Copyright 2024 My Site. All rights reserved.</p></footer>"
    "</body></html>";

static void test_boilerplate(void **state)
{
    (void)state;
    const char *plain = H(k_page);
    assert_non_null(strstr(plain, "Home"));
    assert_non_null(strstr(plain, "Copyright"));
    assert_non_null(strstr(plain, "Sidebar text"));
    assert_non_null(strstr(plain, "Hidden text."));
    assert_string_equal(HB(k_page),
                        "Article title here\n"
                        "The first paragraph of the article is long enough to be kept, and it has a link inside.\n"
                        "The second paragraph follows. It ends the article.\n"
                        "Subheader text is content.");
    check_truncation_equivalence(k_page, strlen(k_page), 1);
    check_truncation_equivalence(k_page, strlen(k_page), 0);
}

static void test_boilerplate_rules(void **state)
{
    (void)state;
    /* whole tokens only; guard tokens keep the element */
    assert_string_equal(HB("<div class=\"subheader\">a</div><div class=\"navigator\">b</div><div class=\"nav\">c</div>"), "a\nb");
    assert_string_equal(HB("<div class=\"entry-header\">a</div><div class=\"content-sidebar\">b</div><div class=\"menu-open\">c</div>"), "a\nb\nc");
    assert_string_equal(HB("<div id=Footer>a</div><div class=\"top_NAV\">b</div><div class=\"x:breadcrumb\">c</div>d"), "d");
    assert_string_equal(HB("<body class=\"menu\"><p>x</p></body>"), "x");
    assert_string_equal(HB("<p aria-hidden=true>a</p><p aria-hidden=false>b</p><p style=\"VISIBILITY : hidden\">c</p>"), "b");
    assert_string_equal(HB("<span class=ads>a</span>b<div role=banner>c</div><div role=main>d</div>"), "b\nd");
    /* link density: a block of mostly link text is dropped */
    assert_string_equal(HB("<p><a href=a>one two three</a> four</p><p>five <a href=b>six</a> seven</p>"), "five six seven");
    assert_string_equal(HB("<p><a name=top>anchor without href</a></p>"), "anchor without href");
    /* a site <header> is weak: short text dropped, long text kept */
    assert_string_equal(HB("<header>Short site slogan</header><p>body</p>"), "body");
    char big[1200];
    strcpy(big, "<header><h1>Hero</h1><p>");
    for (int k = 0; k < 30; k++)
        strcat(big, "hero text ");
    strcat(big, "</p></header><p>body</p>");
    const char *s = HB(big);
    assert_true(strncmp(s, "Hero\nhero text", 14) == 0);
    assert_non_null(strstr(s, "\nbody"));
    assert_string_equal(HB("<div class=masthead>Logo</div><article><div class=header>Kept</div></article>"), "Kept");
    /* an unclosed boilerplate element ends at its parent's end tag */
    assert_string_equal(HB("<div><nav>menu<ul><li>x</div>after"), "after");
    /* inline end tags do not cross block elements (HTML5) */
    assert_string_equal(HB("<span class=share><div>a</span>b</div>c"), "");
    assert_string_equal(HB("<div class=share><span>a</span>b</div>c"), "c");
}

/* ---- plain text ---- */
static void test_plain(void **state)
{
    (void)state;
    assert_string_equal(P("  a \t b  \n\n\n  c\r\nd\re  ", 0), "a b\nc\nd\ne");
    assert_string_equal(P("a\nb\n\nc", 1), "a b\nc");
    assert_string_equal(P("a\n \t\nb", 1), "a\nb");
    /* soft wrap: an indented line (two spaces or a tab) starts a paragraph, as in wire text */
    assert_string_equal(P("Showers continued in\nthe zone.\n    The dry period\nwill end.\n\tArrivals rose.", 1),
                        "Showers continued in the zone.\nThe dry period will end.\nArrivals rose.");
    assert_string_equal(P("one\n two", 1), "one two"); /* a single space is not indentation */
    assert_string_equal(P("\xE4\xB8\xAD\n\xE6\x96\x87 \xE5\xAD\x97\nx\n\xE4\xB8\xAD", 1),
                        "\xE4\xB8\xAD\xE6\x96\x87 \xE5\xAD\x97 x \xE4\xB8\xAD");
    assert_string_equal(P("\x1b[33m    -- Debian \x1b[32mX\x1b[m\x1b[1;35mY\x1b[;m\x1b]0;title\x07Z\x1b" "c!", 0), "-- Debian XYZ!");
    assert_string_equal(P("a\x01\x02\x7f""b\xC2\x80""c\xEF\xBB\xBF""d\xC2\xA0""e", 0), "abcd e");
    assert_string_equal(P("<p>&amp;</p>", 0), "<p>&amp;</p>");
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    o.max_bytes = 5;
    assert_int_equal(ndd_text_from_plain("abcd efgh", 9, &o, &g_out), NDD_OK);
    assert_string_equal(g_out.data, "abcd");
    assert_int_equal(ndd_text_from_plain("x", 1, &o, NULL), NDD_ERR_INVAL);
}

/* ---- sentences ---- */
static size_t split(const char *t, size_t min_len, char out[][160], size_t max)
{
    static ndd_span_t *sp;
    static size_t cap;
    size_t ns = 0;
    assert_int_equal(ndd_text_sentences(t, strlen(t), min_len, &sp, &ns, &cap), NDD_OK);
    assert_true(ns <= max);
    for (size_t k = 0; k < ns; k++) {
        assert_true(sp[k].len < 160);
        memcpy(out[k], t + sp[k].off, sp[k].len);
        out[k][sp[k].len] = '\0';
    }
    if (!t[0]) { /* free the static array once, at the final call */
        free(sp);
        sp = NULL;
        cap = 0;
    }
    return ns;
}

static void test_sentences_english(void **state)
{
    (void)state;
    char s[16][160];
    size_t n = split("Hello world. It costs 3.5 dollars at example.com today! Really?! Mr. Smith, e.g. him, "
                     "met Dr. Jones; they said \"yes.\" Then (it ended.) U.S.A is big\nnew block without end",
                     0, s, 16);
    assert_int_equal(n, 8);
    assert_string_equal(s[0], "Hello world.");
    assert_string_equal(s[1], "It costs 3.5 dollars at example.com today!");
    assert_string_equal(s[2], "Really?!");
    assert_string_equal(s[3], "Mr. Smith, e.g. him, met Dr. Jones;");
    assert_string_equal(s[4], "they said \"yes.\"");
    assert_string_equal(s[5], "Then (it ended.)");
    assert_string_equal(s[6], "U.S.A is big");
    assert_string_equal(s[7], "new block without end");
    /* min length: sentences shorter than 17 bytes are dropped */
    n = split("Short one. This sentence is long enough. Tiny!\nAnother long enough line", NDD_TEXT_DEFAULT_MIN_SENTENCE, s, 16);
    assert_int_equal(n, 2);
    assert_string_equal(s[0], "This sentence is long enough.");
    assert_string_equal(s[1], "Another long enough line");
    n = split("exactly16bytes!! exactly_17_bytes!", 17, s, 16);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "exactly_17_bytes!");
    assert_int_equal(split("   \n \n", 0, s, 16), 0);
}

static void test_sentences_chinese(void **state)
{
    (void)state;
    char s[16][160];
    /* 你好。今天天气很好！你去吗？我去；他不去。「好的。」最后 */
    size_t n = split("\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82"
                     "\xE4\xBB\x8A\xE5\xA4\xA9\xE5\xA4\xA9\xE6\xB0\x94\xE5\xBE\x88\xE5\xA5\xBD\xEF\xBC\x81"
                     "\xE4\xBD\xA0\xE5\x8E\xBB\xE5\x90\x97\xEF\xBC\x9F"
                     "\xE6\x88\x91\xE5\x8E\xBB\xEF\xBC\x9B"
                     "\xE4\xBB\x96\xE4\xB8\x8D\xE5\x8E\xBB\xE3\x80\x82"
                     "\xE3\x80\x8C\xE5\xA5\xBD\xE7\x9A\x84\xE3\x80\x82\xE3\x80\x8D"
                     "\xE6\x9C\x80\xE5\x90\x8E",
                     0, s, 16);
    assert_int_equal(n, 7);
    assert_string_equal(s[0], "\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82");
    assert_string_equal(s[1], "\xE4\xBB\x8A\xE5\xA4\xA9\xE5\xA4\xA9\xE6\xB0\x94\xE5\xBE\x88\xE5\xA5\xBD\xEF\xBC\x81");
    assert_string_equal(s[2], "\xE4\xBD\xA0\xE5\x8E\xBB\xE5\x90\x97\xEF\xBC\x9F");
    assert_string_equal(s[3], "\xE6\x88\x91\xE5\x8E\xBB\xEF\xBC\x9B");
    assert_string_equal(s[4], "\xE4\xBB\x96\xE4\xB8\x8D\xE5\x8E\xBB\xE3\x80\x82");
    assert_string_equal(s[5], "\xE3\x80\x8C\xE5\xA5\xBD\xE7\x9A\x84\xE3\x80\x82\xE3\x80\x8D"); /* closing 」 stays */
    assert_string_equal(s[6], "\xE6\x9C\x80\xE5\x90\x8E");
    n = split("\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82"
              "\xE4\xBB\x8A\xE5\xA4\xA9\xE5\xA4\xA9\xE6\xB0\x94\xE5\xBE\x88\xE5\xA5\xBD\xEF\xBC\x81",
              17, s, 16);
    assert_int_equal(n, 1); /* 9 bytes < 17 <= 21 bytes */
    split("", 0, s, 16);
}

/* Copies an entry of a fortune file without ANSI escapes, control characters
 * and whitespace (an oracle independent of the normaliser). */
static size_t squeeze(const char *s, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1B && i + 1 < n && s[i + 1] == '[') {
            i += 2;
            while (i < n && !((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')))
                i++;
            continue;
        }
        if (c <= ' ' || c == 0x7F)
            continue;
        if (c == 0xE3 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 && (unsigned char)s[i + 2] == 0x80) {
            i += 2; /* ideographic space */
            continue;
        }
        if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0xA0) {
            i += 1; /* no-break space */
            continue;
        }
        out[k++] = (char)c;
    }
    return k;
}

/* Byte length of a CJK terminator at s[i] (0 if none). */
static size_t cjk_term_len(const char *s, size_t i, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (i + 3 > n)
        return 0;
    return ((u[i] == 0xE3 && u[i + 1] == 0x80 && u[i + 2] == 0x82) ||
            (u[i] == 0xEF && u[i + 1] == 0xBC && (u[i + 2] == 0x81 || u[i + 2] == 0x9F || u[i + 2] == 0x9B))) ? 3 : 0;
}

/* Byte length of a closing quote / bracket at s[i] (0 if none). */
static size_t closer_len(const char *s, size_t i, size_t n)
{
    static const char *const cl[] = {"\"", "'", ")", "]", "}", "\xE2\x80\x99", "\xE2\x80\x9D", "\xC2\xBB",
                                     "\xE3\x80\x89", "\xE3\x80\x8B", "\xE3\x80\x8D", "\xE3\x80\x8F", "\xE3\x80\x91",
                                     "\xE3\x80\x95", "\xE3\x80\x97", "\xEF\xBC\x89", "\xEF\xBC\xBD"};
    for (size_t k = 0; k < sizeof cl / sizeof cl[0]; k++) {
        size_t l = strlen(cl[k]);
        if (i + l <= n && memcmp(s + i, cl[k], l) == 0)
            return l;
    }
    return 0;
}

/* A sentence holding a CJK terminator has it at its end, followed only by
 * more terminators or closing quotes / brackets. */
static void check_cjk_sentence(const char *s, size_t off, size_t len)
{
    size_t end = off + len;
    for (size_t i = off; i < end; i++) {
        if (!cjk_term_len(s, i, end))
            continue;
        size_t j = i, l;
        while (j < end && ((l = cjk_term_len(s, j, end)) || (l = closer_len(s, j, end))))
            j += l;
        assert_int_equal(j, end);
        return;
    }
}

static void test_zh_fortunes(void **state)
{
    (void)state;
    char path[512];
    if (!ndd_test_dataset("zh-fortunes", path, sizeof path))
        skip();
    const char *files[] = {"chinese", "tang300", "song100"};
    size_t entries = 0, sentences = 0;
    ndd_span_t *sp = NULL;
    size_t ns = 0, cap = 0;
    for (size_t f = 0; f < 3; f++) {
        char fp[600];
        snprintf(fp, sizeof fp, "%s/%s", path, files[f]);
        char *data;
        size_t len;
        assert_int_equal(ndd_read_file(fp, 0, &data, &len), NDD_OK);
        char *a = malloc(len + 1), *b = malloc(len + 1);
        assert_true(a && b);
        size_t st = 0;
        while (st < len) {
            const char *e = strstr(data + st, "\n%\n");
            size_t en = e ? (size_t)(e - data) : len;
            for (int soft = 0; soft <= 1; soft++) {
                ndd_text_opts_t o;
                ndd_text_opts_default(&o);
                o.max_bytes = 0;
                o.soft_wrap = soft;
                assert_int_equal(ndd_text_from_plain(data + st, en - st, &o, &g_out), NDD_OK);
                check_format(g_out.data, g_out.len);
                assert_null(strchr(g_out.data, 0x1B));
                assert_null(strstr(g_out.data, "[33m"));
                assert_null(strstr(g_out.data, "[m"));
                /* only whitespace and escapes differ from the source */
                size_t na = squeeze(data + st, en - st, a), nb = squeeze(g_out.data, g_out.len, b);
                assert_int_equal(na, nb);
                assert_memory_equal(a, b, na);
                if (!soft)
                    continue;
                /* sentences: nothing lost with min_len 0, terminators only at the end */
                assert_int_equal(ndd_text_sentences(g_out.data, g_out.len, 0, &sp, &ns, &cap), NDD_OK);
                size_t nc = 0;
                for (size_t k = 0; k < ns; k++) {
                    nc += squeeze(g_out.data + sp[k].off, sp[k].len, b + nc);
                    check_cjk_sentence(g_out.data, sp[k].off, sp[k].len);
                    assert_null(memchr(g_out.data + sp[k].off, '\n', sp[k].len));
                }
                assert_int_equal(nc, na);
                assert_memory_equal(a, b, na);
                assert_int_equal(ndd_text_sentences(g_out.data, g_out.len, NDD_TEXT_DEFAULT_MIN_SENTENCE, &sp, &ns, &cap), NDD_OK);
                sentences += ns;
            }
            entries++;
            st = en + 3;
        }
        free(a);
        free(b);
        free(data);
    }
    assert_true(entries > 5000);
    assert_true(sentences > entries);
    fprintf(stderr, "[  INFO    ] zh-fortunes: %zu entries, %zu sentences >= 17 bytes\n", entries, sentences);

    /* the first entry, checked by hand (soft wraps joined without spaces) */
    char fp[600];
    snprintf(fp, sizeof fp, "%s/chinese", path);
    char *data;
    size_t len;
    assert_int_equal(ndd_read_file(fp, 0, &data, &len), NDD_OK);
    const char *e = strstr(data, "\n%\n");
    assert_non_null(e);
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    o.soft_wrap = 1;
    assert_int_equal(ndd_text_from_plain(data, (size_t)(e - data), &o, &g_out), NDD_OK);
    assert_int_equal(ndd_text_sentences(g_out.data, g_out.len, NDD_TEXT_DEFAULT_MIN_SENTENCE, &sp, &ns, &cap), NDD_OK);
    assert_int_equal(ns, 4);
    static const char *exp[4] = {
        "在 Debian 这种规模的项目中，很难避免遇到与你意见不和，或者难以合作的人。",
        "请接受这一事实，并保持礼貌。",
        "意见不一致并不是糟糕举止或者人身攻击的借口，而且让人感觉受到威胁显然不是健康的社区氛围。",
        "-- Debian 《行为准则》第一条"};
    for (size_t k = 0; k < 4; k++) {
        assert_int_equal(sp[k].len, strlen(exp[k]));
        assert_memory_equal(g_out.data + sp[k].off, exp[k], sp[k].len);
    }
    /* without soft_wrap each source line is a block: the wrapped sentence is cut */
    o.soft_wrap = 0;
    assert_int_equal(ndd_text_from_plain(data, (size_t)(e - data), &o, &g_out), NDD_OK);
    assert_non_null(strstr(g_out.data, "合作\n的人。"));
    free(data);
    free(sp);
}

/* ---- fuzz ---- */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

static void fuzz_one(const char *doc, size_t n)
{
    for (int bp = 0; bp <= 1; bp++) {
        const char *s = html_opts(doc, n, 0, bp, bp);
        check_format(s, strlen(s));
        s = html_opts(doc, n, 1 + rnd() % 64, bp, 0);
        check_format(s, strlen(s));
    }
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    o.soft_wrap = (int)(rnd() & 1);
    o.max_bytes = rnd() % 2 ? 0 : 1 + rnd() % 64;
    assert_int_equal(ndd_text_from_plain(doc, n, &o, &g_out), NDD_OK);
    check_format(g_out.data, g_out.len);
    ndd_span_t *sp = NULL;
    size_t ns = 0, cap = 0;
    assert_int_equal(ndd_text_sentences(g_out.data, g_out.len, rnd() % 20, &sp, &ns, &cap), NDD_OK);
    for (size_t k = 0; k < ns; k++)
        assert_true((size_t)sp[k].off + sp[k].len <= g_out.len && sp[k].len > 0);
    /* sentences on the raw bytes too (they need not be normalised) */
    assert_int_equal(ndd_text_sentences(doc, n, 0, &sp, &ns, &cap), NDD_OK);
    free(sp);
}

static void test_fuzz(void **state)
{
    (void)state;
    static const char *const toks[] = {
        "<", ">", "</", "/>", "&", ";", "#", "x", "&amp", "&#x", "&#", "&nbsp;", "<!--", "-->", "--!>", "<!", "<?",
        "<script>", "</script>", "<style>", "</style", "<title>", "</title>", "<textarea>", "<xmp>", "<plaintext>",
        "<template>", "</template>", "<svg>", "</svg>", "<svg/>", "<p>", "</p>", "<div class=nav>", "<div class=\"x",
        "</div>", "<a href=x>", "</a>", "<li>", "<td>", "<tr>", "<table>", "</table>", "<nav>", "</nav>", "<header>",
        "</header>", "<article>", "<br>", "'", "\"", "=", " ", "\n", "\r", "\t", "a", "word", "\xE4\xB8\xAD", "\xE3\x80\x82",
        "\xC2\xA0", "\xC2", "\xFF", "\x1b[3", "\x01", "\0", ".", "!", "? ", "Mr. ", "3.5"};
    char doc[1024];
    for (int it = 0; it < 6000; it++) {
        size_t n = 0, len = rnd() % 400;
        if (it % 3 == 0) { /* random bytes */
            for (; n < len; n++)
                doc[n] = (char)rnd();
        } else { /* token soup */
            while (n < len) {
                const char *t = toks[rnd() % (sizeof toks / sizeof toks[0])];
                size_t tl = t[0] ? strlen(t) : 1;
                if (n + tl > sizeof doc)
                    break;
                memcpy(doc + n, t, tl);
                n += tl;
            }
        }
        fuzz_one(doc, n);
    }
}

/* doc[0..) = random bytes (random_bytes) or tokens of toks[0..nt) drawn at
 * random, about len bytes (at most cap); returns the length. */
static size_t random_doc_of(char *doc, size_t cap, size_t len, int random_bytes, const char *const *toks, size_t nt)
{
    size_t n = 0;
    if (random_bytes) {
        for (; n < len && n < cap; n++)
            doc[n] = (char)rnd();
        return n;
    }
    while (n < len) {
        const char *t = toks[rnd() % nt];
        size_t tl = strlen(t);
        if (n + tl > cap)
            break;
        memcpy(doc + n, t, tl);
        n += tl;
    }
    return n;
}

/* The text scan's runs 16 bytes at a time (SSE2) and 32 (AVX2) against the plain C loop:
 * the same text for pages of words with single and double spaces and links
 * (the spaces a run counts decide a block's link density), every
 * byte class next to a space or at a block's edge, entities, tags,
 * non-ASCII characters (ordinary and spaces), and random bytes, with and
 * without boilerplate removal and a length cap. */
static void test_scan_isa(void **state)
{
    (void)state;
    static const char *const toks[] = {
        "word", "Word", "a", "  ", " ", " ", " ", " ", "\n", "\t", "\r", "&amp;", "&", "&#233;", "<", "<p>", "</p>",
        "<b>", "</b>", "<div class=nav>", "</div>", "<br>", "<a href=x>", "</a>", "<a href=y>", "\x7f", "\x01", "\x1f", "!", ".", "3.5",
        "\xC2\xA0", "\xC2\xA9", "\xC2", "\xE2\x80\x83", "\xE2\x80\x94", "\xE3\x80\x80", "\xE4\xB8\xAD",
        "\xEF\xBB\xBF", "\xE1\x9A\x80", "\xFF", "supercalifragilisticexpialidocious", "0123456789abcdef"};
    /* words and single spaces, in and out of links: long runs of ordinary
     * bytes, whose spaces the 16- and 32-byte steps count whole */
    static const char *const runs[] = {"word ", "Word ", "a ", "b", " ", "supercalifragilisticexpialidocious ",
                                       "0123456789abcdef ", "<a href=x>", "</a>", "<p>", "</p>", "."};
    char *doc = malloc(4096), *a = malloc(8192);
    assert_non_null(doc);
    assert_non_null(a);
    for (int it = 0; it < 4000; it++) {
        size_t len = rnd() % 3000;
        size_t n = it % 5 == 1 ? random_doc_of(doc, 4096, len, 0, runs, sizeof runs / sizeof runs[0])
                               : random_doc_of(doc, 4096, len, it % 5 == 0, toks, sizeof toks / sizeof toks[0]);
        int bp = (int)(rnd() & 1);
        size_t max = rnd() % 4 ? 0 : 1 + rnd() % 2000;
        unsigned old = ndd_text_isa(0);
        const char *x = html_opts(doc, n, max, bp, 0);
        size_t xl = strlen(x);
        assert_true(xl < 8192);
        memcpy(a, x, xl + 1);
        for (unsigned isa = 1; isa <= 2; isa++) { /* SSE2, then AVX2 where the CPU has it */
            ndd_text_isa(isa);
            x = html_opts(doc, n, max, bp, 0);
            assert_int_equal(strlen(x), xl);
            assert_memory_equal(x, a, xl);
        }
        ndd_text_isa(old);
    }
    free(doc);
    free(a);
}

/* The sentence split's skip to the next possible end 16 bytes at a time
 * (SSE2) against the byte loop: the same spans for texts of words, spaces,
 * ASCII and CJK terminators, closers, abbreviations, newlines, other
 * non-ASCII and random bytes, at several minimum lengths. */
static void test_sentences_isa(void **state)
{
    (void)state;
    static const char *const toks[] = {"word", "Word", " ", " ", " ", ". ", ".", "!", "?", ";", "\n", "Dr.", "e.g.",
                                       "\"", ")", "\xE3\x80\x82", "\xEF\xBC\x81", "\xEF\xBC\x9F", "\xE3\x80\x8D",
                                       "\xE4\xB8\xAD", "\xC3\xA9", "\xE3", "\xFF", "0123456789abcdefghij", "3.5"};
    char *doc = malloc(4096);
    ndd_span_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0, ca = 0, cb = 0;
    assert_non_null(doc);
    for (int it = 0; it < 3000; it++) {
        size_t n = random_doc_of(doc, 4096, rnd() % 2000, it % 7 == 0, toks, sizeof toks / sizeof toks[0]);
        size_t min_len = rnd() % 3 ? NDD_TEXT_DEFAULT_MIN_SENTENCE : rnd() % 40;
        unsigned old = ndd_text_isa(0);
        assert_int_equal(ndd_text_sentences(doc, n, min_len, &a, &na, &ca), NDD_OK);
        ndd_text_isa(1);
        assert_int_equal(ndd_text_sentences(doc, n, min_len, &b, &nb, &cb), NDD_OK);
        ndd_text_isa(old);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na * sizeof *a);
    }
    free(doc);
    free(a);
    free(b);
}

/* ---- real crawl pages ---- */
/* memmem (a GNU extension; the tests stay C11 + POSIX). */
static const char *find_mem(const char *h, size_t hn, const char *nd, size_t nn)
{
    while (hn >= nn) {
        const char *p = memchr(h, nd[0], hn - nn + 1);
        if (!p)
            return NULL;
        if (memcmp(p, nd, nn) == 0)
            return p;
        hn -= (size_t)(p - h) + 1;
        h = p + 1;
    }
    return NULL;
}

/* Boilerplate removal drops a block whose link text is more than half of
 * its characters (spaces not counted): a link and a text of words with
 * single spaces (long runs, spaces at every offset of the 16-byte blocks),
 * the text's letters equal to the link's (kept) or one fewer (dropped),
 * with both scans. */
static void test_scan_link_share(void **state)
{
    (void)state;
    char page[2048], link[600], text[600];
    for (int it = 0; it < 600; it++) {
        size_t ll = 0, lc = 0, tl = 0, tc = 0, want = 20 + rnd() % 200;
        while (lc < want) { /* link words */
            size_t w = 1 + rnd() % 9;
            if (ll)
                link[ll++] = ' ';
            for (size_t k = 0; k < w; k++, lc++)
                link[ll++] = (char)('a' + rnd() % 26);
        }
        size_t target = lc - (size_t)(it & 1); /* odd: one letter fewer than the link */
        while (tc < target) {
            size_t w = 1 + rnd() % 9;
            if (w > target - tc)
                w = target - tc;
            if (tl)
                text[tl++] = ' ';
            for (size_t k = 0; k < w; k++, tc++)
                text[tl++] = (char)('A' + rnd() % 26);
        }
        int n = snprintf(page, sizeof page, "<html><body><div><p><a href=\"/x\">%.*s</a> %.*s</p></div>"
                         "<div><p>The article itself is here, kept in every case.</p></div></body></html>",
                         (int)ll, link, (int)tl, text);
        for (unsigned isa = 0; isa <= 1; isa++) {
            unsigned old = ndd_text_isa(isa);
            const char *x = html_opts(page, (size_t)n, 0, 1, 0);
            ndd_text_isa(old);
            assert_true(strstr(x, "The article itself") != NULL);
            assert_null(strstr(x, "<"));
            int kept = find_mem(x, strlen(x), text, tl) != NULL;
            assert_int_equal(kept, !(it & 1));
        }
    }
}

/* Calls fn on the payload of every response record of a .warc.gz file (raw
 * HTTP body, whatever its encoding: for robustness and invariant checks). */
static size_t for_each_warc_payload(const char *path, void (*fn)(const char *, size_t))
{
    gzFile gz = gzopen(path, "rb");
    assert_non_null(gz);
    ndd_buf_t b = NDD_BUF_INIT;
    char tmp[65536];
    int r;
    while ((r = gzread(gz, tmp, sizeof tmp)) > 0)
        ndd_buf_append(&b, tmp, (size_t)r);
    gzclose(gz);
    size_t count = 0;
    if (!b.data) {
        ndd_buf_free(&b);
        return 0;
    }
    /* payloads are binary (images...): search with memmem, not strstr */
    const char *p = b.data, *end = b.data + b.len;
    while ((p = find_mem(p, (size_t)(end - p), "WARC-Type: response", 19)) != NULL) {
        const char *http = find_mem(p, (size_t)(end - p), "\r\n\r\nHTTP/", 9);
        if (!http)
            break;
        const char *body = find_mem(http + 4, (size_t)(end - http - 4), "\r\n\r\n", 4);
        if (!body)
            break;
        body += 4;
        const char *next = find_mem(body, (size_t)(end - body), "\r\nWARC/1.", 9);
        if (!next)
            next = end;
        fn(body, (size_t)(next - body));
        count++;
        p = next;
    }
    ndd_buf_free(&b);
    return count;
}

static void real_page(const char *doc, size_t n)
{
    check_truncation_equivalence(doc, n, 0);
    check_truncation_equivalence(doc, n, 1);
    /* boilerplate mode only removes text: ignoring whitespace, its text is a
     * subsequence of the plain-mode text (words may join where an inline
     * element was dropped, as when a browser hides it) */
    const char *p0 = html_opts(doc, n, 0, 0, 0);
    char *plain = strdup(p0);
    assert_non_null(plain);
    const char *bp = html_opts(doc, n, 0, 1, 0);
    const char *q = plain;
    for (const char *w = bp; *w; w++) {
        if (*w == ' ' || *w == '\n')
            continue;
        while (*q && *q != *w)
            q++;
        assert_true(*q == *w);
        q++;
    }
    assert_true(strlen(bp) <= strlen(plain));
    free(plain);
}

static void test_real_warc(void **state)
{
    (void)state;
    char path[512];
    if (!ndd_test_dataset("warc", path, sizeof path))
        skip();
    static const char *files[] = {"sample-0000.warc.gz", "sample-0001.warc.gz", "IAH-urls-wget.warc.gz",
                                  "main-page.warc.gz", "post-blackout.warc.gz", "sopa-wikipedia-homepage.warc.gz"};
    size_t pages = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char fp[600];
        snprintf(fp, sizeof fp, "%s/%s", path, files[f]);
        pages += for_each_warc_payload(fp, real_page);
    }
    fprintf(stderr, "[  INFO    ] %zu real WARC response payloads checked\n", pages);
    assert_true(pages >= 200); /* 256 response records in these files */
}

static int teardown(void **state)
{
    (void)state;
    ndd_buf_free(&g_out);
    return 0;
}

/* The tag-class lookup (a hash table of the names) against a
 * linear scan of its table: every name, every name cut short, extended by a
 * byte or changed in one byte, the empty name, and random short names. */
static void tag_check(const char *name, size_t len)
{
    unsigned wflags = 0;
    int wid = NDD_TAG_ID_UNKNOWN, id = -1;
    for (size_t i = 0; i < ndd_text_tag_count(); i++) {
        unsigned f;
        int d;
        const char *t = ndd_text_tag_at(i, &f, &d);
        if (strlen(t) == len && memcmp(t, name, len) == 0)
            wflags = f, wid = d;
    }
    assert_int_equal(ndd_text_tag_class(name, len, &id), wflags);
    assert_int_equal(id, wid);
}

static void test_tag_lookup(void **state)
{
    (void)state;
    char b[20];
    size_t n = ndd_text_tag_count();
    assert_true(n > 100);
    for (size_t i = 0; i < n; i++) {
        unsigned f;
        int d;
        const char *t = ndd_text_tag_at(i, &f, &d);
        size_t l = strlen(t);
        if (i) { /* sorted, no name twice */
            unsigned f0;
            int d0;
            assert_true(strcmp(ndd_text_tag_at(i - 1, &f0, &d0), t) < 0);
        }
        memcpy(b, t, l);
        for (size_t k = 0; k <= l; k++)
            tag_check(b, k);
        for (int c = 0; c < 256; c += 7) {
            b[l] = (char)c;
            tag_check(b, l + 1);
            for (size_t k = 0; k < l; k++) {
                char o = b[k];
                b[k] = (char)c;
                tag_check(b, l);
                b[k] = o;
            }
        }
    }
    tag_check("", 0);
    unsigned seed = 7;
    for (int r = 0; r < 20000; r++) {
        size_t l = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % 4;
        for (size_t k = 0; k < l; k++)
            b[k] = (char)('a' + ((seed = seed * 1103515245u + 12345u) >> 16) % 26);
        tag_check(b, l);
    }
}

/* ndd_text_bp_class against a linear search of the word table (case
 * ignored, whole words only). */
static void bp_check(const char *t, size_t n)
{
    unsigned want = 0;
    for (size_t i = 0; i < ndd_text_nbp_words; i++) {
        const ndd_text_bp_word_t *w = &ndd_text_bp_words[i];
        size_t k = 0;
        while (k < n && w->n == n && (t[k] >= 'A' && t[k] <= 'Z' ? t[k] + 32 : t[k]) == w->s[k])
            k++;
        if (w->n == n && k == n)
            want = w->cls;
    }
    assert_int_equal(ndd_text_bp_class(t, n), want);
}

static void test_bp_lookup(void **state)
{
    (void)state;
    char b[NDD_BP_WORD_MAX + 4];
    assert_true(ndd_text_nbp_words > 50);
    for (size_t i = 0; i < ndd_text_nbp_words; i++) {
        const ndd_text_bp_word_t *w = &ndd_text_bp_words[i];
        assert_int_equal(strlen(w->s), w->n);
        assert_true(w->n <= NDD_BP_WORD_MAX && w->cls != 0);
        for (size_t j = 0; j < i; j++) /* each word once */
            assert_false(strcmp(ndd_text_bp_words[j].s, w->s) == 0);
        memcpy(b, w->s, w->n);
        assert_int_equal(ndd_text_bp_class(b, w->n), w->cls);
        for (size_t k = 0; k <= w->n; k++) /* its prefixes, upper case one letter at a time */
            bp_check(b, k);
        for (size_t k = 0; k < w->n; k++) {
            b[k] = (char)(b[k] - 32);
            bp_check(b, w->n);
        }
        memcpy(b, w->s, w->n);
        for (int c = 0; c < 256; c += 5) { /* one byte more, one byte changed */
            b[w->n] = (char)c;
            bp_check(b, w->n + 1);
            for (size_t k = 0; k < w->n; k++) {
                char o = b[k];
                b[k] = (char)c;
                bp_check(b, w->n);
                b[k] = o;
            }
        }
    }
    bp_check("", 0);
    memset(b, 'a', sizeof b);
    bp_check(b, NDD_BP_WORD_MAX + 1);
    unsigned seed = 11;
    for (int r = 0; r < 20000; r++) {
        size_t l = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % 5;
        for (size_t k = 0; k < l; k++)
            b[k] = "adeinorstuNOS"[((seed = seed * 1103515245u + 12345u) >> 16) % 13];
        bp_check(b, l);
    }
    /* the classes the extractor reads */
    assert_int_equal(ndd_text_bp_class("Header", 6), NDD_BP_TOKEN | NDD_BP_WEAK);
    assert_int_equal(ndd_text_bp_class("banner", 6), NDD_BP_TOKEN | NDD_BP_ROLE);
    assert_int_equal(ndd_text_bp_class("main", 4), NDD_BP_GUARD);
    assert_int_equal(ndd_text_bp_class("dialog", 6), NDD_BP_ROLE);
    assert_int_equal(ndd_text_bp_class("navigator", 9), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tag_lookup),
        cmocka_unit_test(test_bp_lookup),
        cmocka_unit_test(test_entity_table),
        cmocka_unit_test(test_entities),
        cmocka_unit_test(test_drop_script_style_comments),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_blocks_inline_whitespace),
        cmocka_unit_test(test_invalid_utf8_repaired),
        cmocka_unit_test(test_truncation_utf8),
        cmocka_unit_test(test_boilerplate),
        cmocka_unit_test(test_boilerplate_rules),
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_sentences_english),
        cmocka_unit_test(test_sentences_chinese),
        cmocka_unit_test(test_zh_fortunes),
        cmocka_unit_test(test_fuzz), cmocka_unit_test(test_scan_isa), cmocka_unit_test(test_sentences_isa), cmocka_unit_test(test_scan_link_share),
        cmocka_unit_test(test_real_warc),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
