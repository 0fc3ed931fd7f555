/* ndd_gumbo_text.c - reference check of ndd's HTML -> visible text extractor
 * against gumbo, a conforming HTML5 parser (test tool, not part of ndd_core).
 *
 * gumbo builds the DOM; the tool walks it with the same rules ndd applies
 * (the tag classes come from ndd_text_tag_class(): content of script, style,
 * noscript, template, svg, iframe, noembed, noframes, datalist and title is
 * dropped, block elements break blocks, replaced elements separate words), so
 * that differences come from tokenising and tree building only.
 *
 *   ndd_gumbo_text [--keep-title] --gumbo FILE     gumbo's visible text
 *   ndd_gumbo_text [--keep-title] [--boilerplate] --ndd FILE   ndd's visible text
 *   ndd_gumbo_text --bench-plain [--repeat R] FILE...
 *       speed of ndd_text_from_plain (soft_wrap 0 and 1) and of
 *       ndd_text_sentences on its output, over whole files
 *   ndd_gumbo_text --compare [--threshold T] [--min-page P] [--repeat R] [-v] FILE...
 *       per page: the agreement of the visible WORDS (multisets of
 *       whitespace-separated tokens) |common| / max(|ndd|, |gumbo|); overall
 *       (sum of common / sum of max) and the mean over pages; the speed of
 *       both extractors on the same pages; the share of text that boilerplate
 *       mode removes. Exit 1 when the overall agreement is below T or a page's
 *       agreement is below P. */
#include <errno.h>
#include <gumbo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndd_text.h"
#include "ndd_text_internal.h"
#include "ndd_util.h"

/* CPU time of this process: speeds are per core and do not depend on how
 * many other processes share the machine. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- gumbo's visible text ---- */
typedef struct gtext {
    ndd_buf_t out;
    int pend; /* 1 space, 2 block break */
    int keep_title;
} gtext_t;

static void g_put(gtext_t *g, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            if (!g->pend)
                g->pend = 1;
            continue;
        }
        if (g->pend && g->out.len)
            ndd_buf_putc(&g->out, g->pend == 2 ? '\n' : ' ');
        g->pend = 0;
        ndd_buf_putc(&g->out, (char)c);
    }
}

static void g_walk(gtext_t *g, const GumboNode *node)
{
    switch (node->type) {
    case GUMBO_NODE_TEXT:
    case GUMBO_NODE_WHITESPACE:
    case GUMBO_NODE_CDATA:
        g_put(g, node->v.text.text, strlen(node->v.text.text));
        return;
    case GUMBO_NODE_DOCUMENT:
        for (unsigned k = 0; k < node->v.document.children.length; k++)
            g_walk(g, node->v.document.children.data[k]);
        return;
    case GUMBO_NODE_TEMPLATE:
        return;
    case GUMBO_NODE_ELEMENT:
        break;
    default:
        return;
    }
    const GumboElement *el = &node->v.element;
    char lname[32];
    size_t ln = 0;
    if (el->tag != GUMBO_TAG_UNKNOWN) {
        const char *nm = gumbo_normalized_tagname(el->tag);
        ln = strlen(nm);
        if (ln >= sizeof lname)
            ln = sizeof lname - 1;
        memcpy(lname, nm, ln);
    } else {
        GumboStringPiece p = el->original_tag;
        gumbo_tag_from_original_text(&p);
        for (; ln < p.length && ln < sizeof lname - 1; ln++)
            lname[ln] = (char)((p.data[ln] >= 'A' && p.data[ln] <= 'Z') ? p.data[ln] + 32 : p.data[ln]);
    }
    int id;
    unsigned f = ndd_text_tag_class(lname, ln, &id);
    if (el->tag_namespace == GUMBO_NAMESPACE_SVG && el->tag != GUMBO_TAG_SVG)
        f = 0; /* inside svg: dropped with it */
    int drop = (f & NDD_TAG_DROP) && !(id == NDD_TAG_ID_TITLE && g->keep_title);
    int sep = (f & NDD_TAG_BLOCK) ? 2 : (f & NDD_TAG_SPACE) ? 1 : 0;
    if (sep > g->pend)
        g->pend = sep;
    if (!drop)
        for (unsigned k = 0; k < el->children.length; k++)
            g_walk(g, el->children.data[k]);
    if (sep > g->pend)
        g->pend = sep;
}

static int gumbo_text(const char *html, size_t n, int keep_title, ndd_buf_t *out)
{
    gtext_t g = {NDD_BUF_INIT, 0, keep_title};
    GumboOptions opt = kGumboDefaultOptions;
    opt.max_errors = 0; /* do not collect parse errors: we only want the tree */
    GumboOutput *go = gumbo_parse_with_options(&opt, html, n);
    if (!go)
        return -1;
    g_walk(&g, go->document);
    gumbo_destroy_output(&opt, go);
    ndd_buf_free(out);
    *out = g.out;
    if (!out->data)
        ndd_buf_reserve(out, 0);
    return 0;
}

/* ---- words: split at Unicode whitespace, control characters and BOM ignored ---- */
typedef struct word {
    const char *p;
    size_t n;
} word_t;

static int is_space_cp(unsigned long cp)
{
    return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}

static int is_ctrl_cp(unsigned long cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFEFF; }

/* Copies the text without control characters into *clean and splits it into words. */
static size_t split_words(const char *s, size_t n, ndd_buf_t *clean, word_t **w, size_t *cap)
{
    size_t nw = 0, i = 0;
    ndd_buf_clear(clean);
    ndd_buf_reserve(clean, n + 1);
    size_t ws = 0;
    int inword = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        size_t k = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (i + k > n)
            k = 1;
        unsigned long cp = k == 1 ? c : (unsigned long)(c & (0x7F >> k));
        for (size_t t = 1; t < k; t++)
            cp = (cp << 6) | ((unsigned char)s[i + t] & 0x3F);
        if (is_space_cp(cp)) {
            if (inword) {
                if (nw == *cap) {
                    *cap = *cap ? *cap * 2 : 1024;
                    *w = realloc(*w, *cap * sizeof **w);
                }
                (*w)[nw].p = (const char *)(uintptr_t)ws; /* offset, fixed below */
                (*w)[nw].n = clean->len - ws;
                nw++;
                inword = 0;
            }
        } else if (!is_ctrl_cp(cp)) {
            if (!inword) {
                ws = clean->len;
                inword = 1;
            }
            ndd_buf_append(clean, s + i, k);
        }
        i += k;
    }
    if (inword) {
        if (nw == *cap) {
            *cap = *cap ? *cap * 2 : 1024;
            *w = realloc(*w, *cap * sizeof **w);
        }
        (*w)[nw].p = (const char *)(uintptr_t)ws;
        (*w)[nw].n = clean->len - ws;
        nw++;
    }
    for (size_t k = 0; k < nw; k++)
        (*w)[k].p = clean->data + (uintptr_t)(*w)[k].p;
    return nw;
}

static int word_cmp(const void *a, const void *b)
{
    const word_t *x = a, *y = b;
    size_t m = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->p, y->p, m);
    if (c)
        return c;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* |multiset intersection| of two word lists (sorted in place). */
static size_t common_words(word_t *a, size_t na, word_t *b, size_t nb)
{
    qsort(a, na, sizeof *a, word_cmp);
    qsort(b, nb, sizeof *b, word_cmp);
    size_t i = 0, j = 0, c = 0;
    while (i < na && j < nb) {
        int r = word_cmp(&a[i], &b[j]);
        if (r == 0) {
            c++;
            i++;
            j++;
        } else if (r < 0) {
            i++;
        } else {
            j++;
        }
    }
    return c;
}

typedef struct page {
    const char *path;
    char *data;
    size_t len;
} page_t;

static void usage(void)
{
    fprintf(stderr,
            "usage: ndd_gumbo_text [--keep-title] --gumbo FILE\n"
            "       ndd_gumbo_text [--keep-title] [--boilerplate] --ndd FILE\n"
            "       ndd_gumbo_text --bench-plain [--repeat R] FILE...\n"
            "       ndd_gumbo_text --compare [--threshold T] [--min-page P] [--repeat R] [-v] FILE...\n");
}

static int cmd_compare(page_t *pages, size_t np, double threshold, double min_page, int repeat, int verbose)
{
    ndd_text_opts_t o, ob, o10;
    ndd_text_opts_default(&o);
    o.max_bytes = 0;
    ob = o;
    ob.boilerplate = 1;
    o10 = o;
    o10.max_bytes = NDD_TEXT_DEFAULT_MAX_BYTES;
    ndd_buf_t a = NDD_BUF_INIT, g = NDD_BUF_INIT, ca = NDD_BUF_INIT, cg = NDD_BUF_INIT, bp = NDD_BUF_INIT;
    word_t *wa = NULL, *wg = NULL;
    size_t capa = 0, capg = 0;
    size_t sum_common = 0, sum_max = 0, bytes = 0, plain_bytes = 0, bp_bytes = 0;
    double sum_agree = 0;
    size_t worst = 0;
    double worst_agree = 2;
    for (size_t p = 0; p < np; p++) {
        bytes += pages[p].len;
        if (ndd_text_from_html(pages[p].data, pages[p].len, &o, &a) || gumbo_text(pages[p].data, pages[p].len, 0, &g) ||
            ndd_text_from_html(pages[p].data, pages[p].len, &ob, &bp)) {
            fprintf(stderr, "%s: extraction failed\n", pages[p].path);
            return 1;
        }
        plain_bytes += a.len;
        bp_bytes += bp.len;
        size_t na = split_words(a.data, a.len, &ca, &wa, &capa);
        size_t ng = split_words(g.data, g.len, &cg, &wg, &capg);
        size_t c = common_words(wa, na, wg, ng);
        size_t mx = na > ng ? na : ng;
        double ag = mx ? (double)c / (double)mx : 1.0;
        sum_common += c;
        sum_max += mx;
        sum_agree += ag;
        if (ag < worst_agree) {
            worst_agree = ag;
            worst = p;
        }
        printf("page %-40s bytes %8zu words ndd %6zu gumbo %6zu common %6zu agreement %.4f boilerplate-kept %.3f\n",
               strrchr(pages[p].path, '/') ? strrchr(pages[p].path, '/') + 1 : pages[p].path, pages[p].len, na, ng, c, ag,
               a.len ? (double)bp.len / (double)a.len : 1.0);
        if (verbose && ag < 1.0) {
            /* the words only one side has (both lists are sorted) */
            size_t i = 0, j = 0, shown = 0;
            while ((i < na || j < ng) && shown < 20) {
                int r = i >= na ? 1 : j >= ng ? -1 : word_cmp(&wa[i], &wg[j]);
                if (r == 0) {
                    i++;
                    j++;
                } else if (r < 0) {
                    printf("    only ndd:   %.*s\n", (int)wa[i].n, wa[i].p);
                    i++;
                    shown++;
                } else {
                    printf("    only gumbo: %.*s\n", (int)wg[j].n, wg[j].p);
                    j++;
                    shown++;
                }
            }
        }
    }
    double overall = sum_max ? (double)sum_common / (double)sum_max : 1.0;
    printf("pages %zu html-bytes %zu agreement-overall %.4f agreement-mean %.4f worst %.4f (%s)\n", np, bytes, overall,
           np ? sum_agree / (double)np : 1.0, np ? worst_agree : 1.0, np ? pages[worst].path : "-");
    printf("boilerplate mode keeps %.1f%% of the plain-mode text bytes (removes %.1f%%)\n",
           plain_bytes ? 100.0 * (double)bp_bytes / (double)plain_bytes : 100.0,
           plain_bytes ? 100.0 - 100.0 * (double)bp_bytes / (double)plain_bytes : 0.0);

    /* speeds, measured in this run on the same pages */
    const ndd_text_opts_t *os[3] = {&o, &ob, &o10};
    const char *on[3] = {"ndd plain (no limit)", "ndd boilerplate (no limit)", "ndd plain (max 10240 B)"};
    for (int m = 0; m < 3; m++) {
        double t0 = now_s();
        for (int r = 0; r < repeat; r++)
            for (size_t p = 0; p < np; p++)
                ndd_text_from_html(pages[p].data, pages[p].len, os[m], &a);
        double dt = now_s() - t0;
        printf("speed %-28s %8.1f MB/s per core\n", on[m], dt > 0 ? (double)bytes * repeat / dt / 1e6 : 0.0);
    }
    int grep = repeat / 10 > 0 ? repeat / 10 : 1;
    double t0 = now_s();
    for (int r = 0; r < grep; r++)
        for (size_t p = 0; p < np; p++)
            gumbo_text(pages[p].data, pages[p].len, 0, &g);
    double dt = now_s() - t0;
    printf("speed %-28s %8.1f MB/s per core\n", "gumbo parse + text walk", dt > 0 ? (double)bytes * grep / dt / 1e6 : 0.0);

    ndd_buf_free(&a);
    ndd_buf_free(&g);
    ndd_buf_free(&ca);
    ndd_buf_free(&cg);
    ndd_buf_free(&bp);
    free(wa);
    free(wg);
    if (overall < threshold) {
        printf("FAIL: overall agreement %.4f < threshold %.4f\n", overall, threshold);
        return 1;
    }
    if (np && worst_agree < min_page) {
        printf("FAIL: page %s agreement %.4f < %.4f\n", pages[worst].path, worst_agree, min_page);
        return 1;
    }
    return 0;
}

static int cmd_bench_plain(page_t *pages, size_t np, int repeat)
{
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    o.max_bytes = 0;
    ndd_buf_t out = NDD_BUF_INIT;
    ndd_span_t *sp = NULL;
    size_t ns = 0, cap = 0, bytes = 0, tbytes = 0, nsent = 0;
    for (size_t p = 0; p < np; p++)
        bytes += pages[p].len;
    for (int soft = 0; soft <= 1; soft++) {
        o.soft_wrap = soft;
        double t0 = now_s();
        for (int r = 0; r < repeat; r++)
            for (size_t p = 0; p < np; p++)
                if (ndd_text_from_plain(pages[p].data, pages[p].len, &o, &out))
                    return 1;
        double dt = now_s() - t0;
        printf("speed ndd plain text (soft_wrap %d)  %8.1f MB/s per core  (%zu bytes x %d)\n", soft,
               dt > 0 ? (double)bytes * repeat / dt / 1e6 : 0.0, bytes, repeat);
    }
    /* sentences of the normalised text of each file */
    double dt = 0;
    for (size_t p = 0; p < np; p++) {
        if (ndd_text_from_plain(pages[p].data, pages[p].len, &o, &out))
            return 1;
        tbytes += out.len;
        double t0 = now_s();
        for (int r = 0; r < repeat; r++)
            if (ndd_text_sentences(out.data, out.len, NDD_TEXT_DEFAULT_MIN_SENTENCE, &sp, &ns, &cap))
                return 1;
        dt += now_s() - t0;
        nsent += ns;
    }
    printf("speed ndd sentences                 %8.1f MB/s per core  (%zu sentences >= %d bytes in %zu bytes of text)\n",
           dt > 0 ? (double)tbytes * repeat / dt / 1e6 : 0.0, nsent, NDD_TEXT_DEFAULT_MIN_SENTENCE, tbytes);
    free(sp);
    ndd_buf_free(&out);
    return 0;
}

int main(int argc, char **argv)
{
    int mode = 0, keep_title = 0, boilerplate = 0, repeat = 20, verbose = 0, rc = 0;
    double threshold = 0, min_page = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--gumbo"))
            mode = 1;
        else if (!strcmp(argv[i], "--ndd"))
            mode = 2;
        else if (!strcmp(argv[i], "--compare"))
            mode = 3;
        else if (!strcmp(argv[i], "--bench-plain"))
            mode = 4;
        else if (!strcmp(argv[i], "--keep-title"))
            keep_title = 1;
        else if (!strcmp(argv[i], "--boilerplate"))
            boilerplate = 1;
        else if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else if (!strcmp(argv[i], "--threshold") && i + 1 < argc)
            threshold = atof(argv[++i]);
        else if (!strcmp(argv[i], "--min-page") && i + 1 < argc)
            min_page = atof(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else {
            usage();
            return 2;
        }
    }
    if (!mode || i >= argc || repeat < 1) {
        usage();
        return 2;
    }
    size_t np = (size_t)(argc - i);
    page_t *pages = calloc(np, sizeof *pages);
    if (!pages)
        return 1;
    for (size_t p = 0; p < np; p++) {
        pages[p].path = argv[i + (int)p];
        int r = ndd_read_file(pages[p].path, 0, &pages[p].data, &pages[p].len);
        if (r) {
            fprintf(stderr, "%s: %s\n", pages[p].path, ndd_strerror(r));
            return 1;
        }
    }
    ndd_buf_t out = NDD_BUF_INIT;
    if (mode == 3) {
        rc = cmd_compare(pages, np, threshold, min_page, repeat, verbose);
    } else if (mode == 4) {
        rc = cmd_bench_plain(pages, np, repeat);
    } else {
        for (size_t p = 0; p < np; p++) {
            if (mode == 1) {
                rc = gumbo_text(pages[p].data, pages[p].len, keep_title, &out);
            } else {
                ndd_text_opts_t o;
                ndd_text_opts_default(&o);
                o.max_bytes = 0;
                o.boilerplate = boilerplate;
                o.keep_title = keep_title;
                rc = ndd_text_from_html(pages[p].data, pages[p].len, &o, &out);
            }
            if (rc) {
                fprintf(stderr, "%s: extraction failed\n", pages[p].path);
                return 1;
            }
            fwrite(out.data, 1, out.len, stdout);
            fputc('\n', stdout);
        }
    }
    ndd_buf_free(&out);
    for (size_t p = 0; p < np; p++)
        free(pages[p].data);
    free(pages);
    return rc;
}
