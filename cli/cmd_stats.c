/* cmd_stats.c - 'ndd stats DIR [--json] [--plot OUT.html]': the partition
 * statistics of a finished (or resumed) 'ndd run', read from DIR/stats.json,
 * DIR/scores.tsv and DIR/clusters.tsv.
 *
 * Local (no MPI). stats.json is read tolerantly: the small JSON tree of
 * src/out/ndd_stats.h (the reader's ndd_json.h scans only top-level keys of
 * JSONL records) keeps every member, the report prints the fields it knows in a readable layout and any
 * other member generically, so fields added to stats.json later still show.
 * --json prints {"source", "stats" (stats.json as read), "derived" (the measures
 * computed here), "scores" and "cluster_sizes" (histograms of the TSV files)}.
 * --plot writes one self-contained HTML page: that same JSON inline and a small
 * inline script that draws SVG charts (no network, no external file). */
#include "ndd_cli.h"
#include "ndd_stats.h"
#include "ndd_util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* stats.json as a tree (src/out/ndd_stats.h)                          */

typedef ndd_jv_t jnode_t;

static const jnode_t *j_get(const jnode_t *o, const char *key) { return ndd_json_member(o, key); }

/* 1 and *v when o.key is a number. */
static int j_num(const jnode_t *o, const char *key, double *v) { return ndd_json_number(j_get(o, key), v); }

static double j_numd(const jnode_t *o, const char *key, double dflt)
{
    double v;
    return j_num(o, key, &v) ? v : dflt;
}

/* The text of a string value, else dflt. */
static const char *j_str(const jnode_t *x, const char *dflt)
{
    const char *s = ndd_json_str(x);
    return s ? s : dflt;
}

static int j_is(const jnode_t *x, ndd_jv_type_t t) { return ndd_json_type(x) == t; }

/* ------------------------------------------------------------------ */
/* JSON output                                                         */

/* A JSON string that is also safe inside an HTML <script> element. */
static void out_str(ndd_buf_t *b, const char *s)
{
    ndd_buf_putc(b, '"');
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        char e[8];
        if (*u == '"' || *u == '\\') {
            e[0] = '\\';
            e[1] = (char)*u;
            ndd_buf_append(b, e, 2);
        } else if (*u < 0x20 || *u == '<' || *u == '>' || *u == '&') {
            snprintf(e, sizeof e, "\\u%04x", *u);
            ndd_buf_puts(b, e);
        } else {
            ndd_buf_putc(b, (char)*u);
        }
    }
    ndd_buf_putc(b, '"');
}

static void out_tree(ndd_buf_t *b, const jnode_t *j)
{
    int bv = 0;
    switch (ndd_json_type(j)) {
    case NDD_JV_ABSENT:
    case NDD_JV_NULL: ndd_buf_puts(b, "null"); break;
    case NDD_JV_BOOL:
        ndd_json_bool(j, &bv);
        ndd_buf_puts(b, bv ? "true" : "false");
        break;
    case NDD_JV_NUM: ndd_buf_puts(b, ndd_json_numtext(j)); break;
    case NDD_JV_STR: out_str(b, ndd_json_str(j)); break;
    case NDD_JV_ARR:
    case NDD_JV_OBJ:
        ndd_buf_putc(b, j_is(j, NDD_JV_ARR) ? '[' : '{');
        for (size_t i = 0; i < ndd_json_count(j); i++) {
            if (i)
                ndd_buf_puts(b, ", ");
            if (j_is(j, NDD_JV_OBJ)) {
                out_str(b, ndd_json_key(j, i));
                ndd_buf_puts(b, ": ");
            }
            out_tree(b, ndd_json_item(j, i));
        }
        ndd_buf_putc(b, j_is(j, NDD_JV_ARR) ? ']' : '}');
        break;
    }
}

static void out_num(ndd_buf_t *b, double v)
{
    char s[64];
    if (!isfinite(v))
        snprintf(s, sizeof s, "null");
    else if (v == floor(v) && fabs(v) < 9e15)
        snprintf(s, sizeof s, "%.0f", v);
    else
        snprintf(s, sizeof s, "%.6g", v);
    ndd_buf_puts(b, s);
}

/* "key": value with a leading comma unless first. */
static void out_kv(ndd_buf_t *b, int *first, const char *key, double v)
{
    if (!*first)
        ndd_buf_puts(b, ", ");
    *first = 0;
    out_str(b, key);
    ndd_buf_puts(b, ": ");
    out_num(b, v);
}

static void out_key(ndd_buf_t *b, int *first, const char *key)
{
    if (!*first)
        ndd_buf_puts(b, ", ");
    *first = 0;
    out_str(b, key);
    ndd_buf_puts(b, ": ");
}

/* ------------------------------------------------------------------ */
/* scores.tsv and clusters.tsv                                         */

#define SCORE_BINS 20
#define SIZE_BINS 48

/* The score histograms: TLCS resemblance and containment, SigNCD, and the
 * "score" column of the baselines' verifiers (rows without TLCS or NCD scores). */
enum { SC_RES, SC_CONT, SC_NCD, SC_SCORE, SC_N };
static const char *const score_names[SC_N] = {"resemblance", "containment", "ncd", "score"};

typedef struct {
    int present;
    uint64_t rows, accepted, malformed;
    uint64_t n[SC_N];
    uint64_t hist[SC_N][2][SCORE_BINS]; /* [metric][accepted?][bin] */
    double hi[SC_N];                    /* metric k is binned over [0, hi[k]] */
    char score_verifier[32];            /* the verifier of the "score" rows */
} scores_t;

typedef struct {
    int present;
    uint64_t clusters, docs;
    uint64_t bins[SIZE_BINS]; /* bin h: sizes 2^h .. 2^(h+1)-1 */
} csizes_t;

static int score_bin(double v, double hi)
{
    int b = (int)floor(v / hi * SCORE_BINS);
    if (b < 0)
        b = 0;
    if (b >= SCORE_BINS)
        b = SCORE_BINS - 1;
    return b;
}

/* Splits a TSV line in place; returns the number of fields (at most max). */
static size_t tsv_split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *s = line;
    while (n < max) {
        f[n++] = s;
        char *t = strchr(s, '\t');
        if (!t)
            break;
        *t = 0;
        s = t + 1;
    }
    return n;
}

static int parse_score(const char *s, double *v)
{
    if (!strcmp(s, "-") || !*s)
        return 0;
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return !errno && !*end && isfinite(*v);
}

static int read_scores(const char *path, scores_t *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->hi[SC_RES] = sc->hi[SC_CONT] = sc->hi[SC_SCORE] = 1.0;
    sc->hi[SC_NCD] = 1.2; /* SigNCD is a compression ratio: slightly above 1 for unrelated texts */
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : NDD_ERR_IO;
    sc->present = 1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int col_res = 3, col_cont = 4, col_ncd = 5, col_acc = 7, col_score = -1, header = 1;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = 0;
        char *fld[16];
        size_t nf = tsv_split(line, fld, 16);
        if (header) { /* find the columns by name; keep the defaults otherwise */
            header = 0;
            if (!strcmp(fld[0], "id_a")) {
                for (size_t i = 0; i < nf; i++) {
                    if (!strcmp(fld[i], "resemblance")) col_res = (int)i;
                    else if (!strcmp(fld[i], "containment")) col_cont = (int)i;
                    else if (!strcmp(fld[i], "ncd")) col_ncd = (int)i;
                    else if (!strcmp(fld[i], "accepted")) col_acc = (int)i;
                    else if (!strcmp(fld[i], "score")) col_score = (int)i;
                }
                continue;
            }
        }
        if ((int)nf <= col_acc || (int)nf <= col_ncd) {
            sc->malformed++;
            continue;
        }
        int acc = !strcmp(fld[col_acc], "1"), tlcs = 0, ncd = 0;
        double r, c, d;
        sc->rows++;
        sc->accepted += (uint64_t)acc;
        if (parse_score(fld[col_res], &r) && parse_score(fld[col_cont], &c)) {
            tlcs = 1;
            sc->n[SC_RES]++;
            sc->n[SC_CONT]++;
            sc->hist[SC_RES][acc][score_bin(r, sc->hi[SC_RES])]++;
            sc->hist[SC_CONT][acc][score_bin(c, sc->hi[SC_CONT])]++;
        }
        if (parse_score(fld[col_ncd], &d)) {
            ncd = 1;
            sc->n[SC_NCD]++;
            sc->hist[SC_NCD][acc][score_bin(d, sc->hi[SC_NCD])]++;
        }
        if (!tlcs && !ncd && col_score >= 0 && col_score < (int)nf && parse_score(fld[col_score], &d)) {
            if (!sc->n[SC_SCORE]) { /* a baseline: SimHash scores agreeing bits of 64, the others [0, 1] */
                snprintf(sc->score_verifier, sizeof sc->score_verifier, "%s", nf > 2 ? fld[2] : "?");
                if (!strcmp(sc->score_verifier, "simhash"))
                    sc->hi[SC_SCORE] = 64;
            }
            sc->n[SC_SCORE]++;
            sc->hist[SC_SCORE][acc][score_bin(d, sc->hi[SC_SCORE])]++;
        }
    }
    free(line);
    int rc = ferror(f) ? NDD_ERR_IO : NDD_OK;
    fclose(f);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_cluster_sizes(const char *path, csizes_t *cs)
{
    memset(cs, 0, sizeof *cs);
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : NDD_ERR_IO;
    cs->present = 1;
    int rc = NDD_OK;
    char *line = NULL, **labels = NULL;
    size_t cap = 0, n = 0, lcap = 0;
    ssize_t len;
    int first = 1;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = 0;
        char *fld[3];
        size_t nf = tsv_split(line, fld, 3);
        if (first) {
            first = 0;
            if (!strcmp(fld[0], "id"))
                continue;
        }
        if (nf < 2)
            continue;
        if (n == lcap) {
            size_t nc = lcap ? 2 * lcap : 1024;
            char **l = realloc(labels, nc * sizeof *l);
            if (!l) {
                rc = NDD_ERR_NOMEM;
                goto out;
            }
            labels = l;
            lcap = nc;
        }
        if (!(labels[n] = strdup(fld[1]))) {
            rc = NDD_ERR_NOMEM;
            goto out;
        }
        n++;
    }
    if (ferror(f))
        rc = NDD_ERR_IO;
    if (n)
        qsort(labels, n, sizeof *labels, cmp_str);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && !strcmp(labels[j], labels[i]))
            j++;
        uint64_t size = j - i;
        int h = 0;
        while (h + 1 < SIZE_BINS && (2ull << h) <= size)
            h++;
        cs->bins[h]++;
        cs->clusters++;
        cs->docs += size;
        i = j;
    }
out:
    for (size_t i = 0; i < n; i++)
        free(labels[i]);
    free(labels);
    free(line);
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Derived measures                                                    */

typedef struct {
    const jnode_t *root, *read, *sig, *sets, *verify, *clusters, *shuffle, *stages, *per_rank, *sketch, *tmpl;
    const scores_t *sc;
    const csizes_t *cs;
} view_t;

static double ratio(double a, double b) { return b > 0 ? a / b : NAN; }

/* max/min over the ranks of per_rank[].key; NAN when absent. */
static int rank_minmax(const view_t *v, const char *key, double *mn, double *mx, double *sum)
{
    if (!j_is(v->per_rank, NDD_JV_ARR) || !ndd_json_count(v->per_rank))
        return 0;
    int any = 0;
    for (size_t i = 0; i < ndd_json_count(v->per_rank); i++) {
        double x;
        if (!j_num(ndd_json_item(v->per_rank, i), key, &x))
            continue;
        if (!any || x < *mn)
            *mn = x;
        if (!any || x > *mx)
            *mx = x;
        *sum = any ? *sum + x : x;
        any = 1;
    }
    return any;
}

static double filter_lists_dropped(const view_t *v)
{
    return j_numd(v->sig, "dropped_frequent", 0) + j_numd(v->sig, "dropped_site_concentrated", 0) +
           j_numd(v->sig, "dropped_site_template", 0);
}

static void derived_json(ndd_buf_t *b, const view_t *v)
{
    int first = 1;
    double docs = j_numd(v->read, "docs", NAN), x, mn, mx, sum;
    ndd_buf_puts(b, "{");
    out_kv(b, &first, "documents", docs);
    /* paper 002's partition measures */
    double nsets = j_numd(v->sets, "sets", NAN), inset = j_numd(v->sets, "docs_in_sets", NAN);
    out_kv(b, &first, "average_set_size", j_num(v->sets, "average_set_size", &x) ? x : ratio(inset, nsets));
    out_kv(b, &first, "share_of_documents_in_sets", ratio(inset, docs));
    out_kv(b, &first, "trustable_rate",
           j_num(v->verify, "trustable_rate", &x) ? x : ratio(j_numd(v->clusters, "docs_in_clusters", NAN), inset));
    if (j_num(v->sketch, "strain_away", &x))
        out_kv(b, &first, "sketch_strain_away", x);
    if (j_num(v->sketch, "reserve", &x))
        out_kv(b, &first, "sketch_reserve", x);
    /* the frequent-signature filter */
    double dropped = filter_lists_dropped(v), live = j_numd(v->sig, "lists_live", NAN);
    out_key(b, &first, "filter");
    {
        int f2 = 1;
        ndd_buf_puts(b, "{");
        out_kv(b, &f2, "shared_lists", live + dropped);
        out_kv(b, &f2, "dropped_lists", dropped);
        out_kv(b, &f2, "dropped_list_share", ratio(dropped, live + dropped));
        out_kv(b, &f2, "dropped_posting_share",
               ratio(j_numd(v->sig, "postings_in_dropped_lists", NAN), j_numd(v->sig, "signatures", NAN)));
        out_kv(b, &f2, "links_kept_share", ratio(j_numd(v->sig, "links_kept", NAN), j_numd(v->sig, "links", NAN)));
        ndd_buf_puts(b, "}");
    }
    /* pairs pruned at each step */
    double cand = j_numd(v->verify, "candidate_pairs", NAN);
    out_key(b, &first, "pairs");
    {
        static const char *steps[] = {"candidate_pairs", "skipped_already_joined", "identical_text", "verified",
                                      "pruned_by_bound", "cost_limit_hits", "rejected_formulaic", "accepted"};
        int f2 = 1;
        ndd_buf_puts(b, "{");
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
            if (j_num(v->verify, steps[i], &x)) {
                char k[64];
                out_kv(b, &f2, steps[i], x);
                snprintf(k, sizeof k, "%s_share", steps[i]);
                if (i)
                    out_kv(b, &f2, k, ratio(x, cand));
            }
        ndd_buf_puts(b, "}");
    }
    /* skew */
    out_key(b, &first, "skew");
    {
        int f2 = 1;
        ndd_buf_puts(b, "{");
        if (j_is(v->stages, NDD_JV_OBJ))
            for (size_t i = 0; i < ndd_json_count(v->stages); i++) {
                char k[96];
                const jnode_t *st = ndd_json_item(v->stages, i);
                snprintf(k, sizeof k, "stage_%s", ndd_json_key(v->stages, i));
                out_kv(b, &f2, k, ratio(j_numd(st, "max", NAN), j_numd(st, "min", NAN)));
            }
        out_kv(b, &f2, "verify_work",
               ratio(j_numd(v->verify, "work_max_rank", NAN), j_numd(v->verify, "work_min_rank", NAN)));
        if (rank_minmax(v, "input_bytes", &mn, &mx, &sum))
            out_kv(b, &f2, "input_bytes", ratio(mx, mn));
        if (rank_minmax(v, "peak_rss_kib", &mn, &mx, &sum))
            out_kv(b, &f2, "peak_memory", ratio(mx, mn));
        ndd_buf_puts(b, "}");
    }
    if (rank_minmax(v, "peak_rss_kib", &mn, &mx, &sum)) {
        out_kv(b, &first, "peak_rss_kib_max", mx);
        out_kv(b, &first, "peak_rss_kib_sum", sum);
    }
    if (v->shuffle) {
        double tot = j_numd(v->shuffle, "shuffle1_signatures", 0) + j_numd(v->shuffle, "shuffle2_texts_compressed", 0) +
                     j_numd(v->shuffle, "shuffle3_rows", 0);
        out_kv(b, &first, "bytes_shuffled", tot);
        out_kv(b, &first, "text_compression_ratio", ratio(j_numd(v->shuffle, "shuffle2_texts_raw", NAN),
                                                          j_numd(v->shuffle, "shuffle2_texts_compressed", NAN)));
    }
    ndd_buf_puts(b, "}");
}

static void hist_json(ndd_buf_t *b, const uint64_t *h, size_t n)
{
    ndd_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            ndd_buf_puts(b, ", ");
        out_num(b, (double)h[i]);
    }
    ndd_buf_putc(b, ']');
}

static void scores_json(ndd_buf_t *b, const scores_t *sc)
{
    if (!sc->present) {
        ndd_buf_puts(b, "null");
        return;
    }
    int first = 1;
    ndd_buf_puts(b, "{");
    out_kv(b, &first, "rows", (double)sc->rows);
    out_kv(b, &first, "accepted", (double)sc->accepted);
    out_kv(b, &first, "bins", SCORE_BINS);
    for (int k = 0; k < SC_N; k++) {
        if (!sc->n[k])
            continue;
        out_key(b, &first, score_names[k]);
        ndd_buf_puts(b, "{\"lo\": 0, \"hi\": ");
        out_num(b, sc->hi[k]);
        if (k == SC_SCORE) {
            ndd_buf_puts(b, ", \"verifier\": ");
            out_str(b, sc->score_verifier);
        }
        ndd_buf_puts(b, ", \"accepted\": ");
        hist_json(b, sc->hist[k][1], SCORE_BINS);
        ndd_buf_puts(b, ", \"rejected\": ");
        hist_json(b, sc->hist[k][0], SCORE_BINS);
        ndd_buf_puts(b, "}");
    }
    ndd_buf_puts(b, "}");
}

static void csizes_json(ndd_buf_t *b, const csizes_t *cs)
{
    if (!cs->present) {
        ndd_buf_puts(b, "null");
        return;
    }
    int first = 1;
    ndd_buf_puts(b, "{");
    out_kv(b, &first, "clusters", (double)cs->clusters);
    out_kv(b, &first, "docs", (double)cs->docs);
    out_key(b, &first, "size_histogram");
    ndd_buf_puts(b, "{");
    int f2 = 1;
    for (int h = 0; h < SIZE_BINS; h++)
        if (cs->bins[h]) {
            char k[64];
            snprintf(k, sizeof k, "%llu-%llu", 1ull << h, (2ull << h) - 1);
            out_kv(b, &f2, k, (double)cs->bins[h]);
        }
    ndd_buf_puts(b, "}}");
}

static void all_json(ndd_buf_t *b, const view_t *v, const char *source)
{
    ndd_buf_puts(b, "{\"source\": ");
    out_str(b, source);
    ndd_buf_puts(b, ",\n \"stats\": ");
    out_tree(b, v->root);
    ndd_buf_puts(b, ",\n \"derived\": ");
    derived_json(b, v);
    ndd_buf_puts(b, ",\n \"scores\": ");
    scores_json(b, v->sc);
    ndd_buf_puts(b, ",\n \"cluster_sizes\": ");
    csizes_json(b, v->cs);
    ndd_buf_puts(b, "}\n");
}

/* ------------------------------------------------------------------ */
/* Text report                                                         */

static const char *human_bytes(double v, char *s, size_t n)
{
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int i = 0;
    while (v >= 1024 && i < 5) {
        v /= 1024;
        i++;
    }
    snprintf(s, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
    return s;
}

static void pct_or_dash(char *s, size_t n, double part, double whole)
{
    if (whole > 0 && isfinite(part))
        snprintf(s, n, "%.1f %%", 100.0 * part / whole);
    else
        snprintf(s, n, "-");
}

static void skew_str(char *s, size_t n, double mx, double mn)
{
    if (mn > 0 && isfinite(mx))
        snprintf(s, n, "%.2f", mx / mn);
    else
        snprintf(s, n, "-");
}

/* Prints the members of o not in known[] as "  key: value". */
static void print_unknown(FILE *f, const jnode_t *o, const char *const *known, size_t nknown, const char *indent)
{
    if (!j_is(o, NDD_JV_OBJ))
        return;
    for (size_t i = 0; i < ndd_json_count(o); i++) {
        size_t k = 0;
        while (k < nknown && strcmp(known[k], ndd_json_key(o, i)))
            k++;
        if (k < nknown)
            continue;
        ndd_buf_t b = NDD_BUF_INIT;
        out_tree(&b, ndd_json_item(o, i));
        fprintf(f, "%s%s: %s\n", indent, ndd_json_key(o, i), b.data ? b.data : "");
        ndd_buf_free(&b);
    }
}

static void print_bar_hist(FILE *f, const char *label, double count, double maxcount)
{
    int w = 0;
    if (count > 0 && maxcount > 0) /* log scale: one '#' per factor ~1.4, at least one */
        w = 1 + (int)lround(30.0 * log1p(count) / log1p(maxcount));
    if (w > 31)
        w = 31;
    char bar[40];
    memset(bar, '#', (size_t)w);
    bar[w] = 0;
    fprintf(f, "    %-12s %10.0f  %s\n", label, count, bar);
}

/* The run line and the top-level members the report does not know. */
static void report_run(FILE *f, const view_t *v, const char *source)
{
    const jnode_t *r = v->root;
    const jnode_t *ver = j_get(r, "version"), *vk = j_get(r, "verifier");
    fprintf(f, "ndd stats %s\n", source);
    fprintf(f, "run: ndd %s, %.0f rank(s), %.2f s wall, verifier %s\n",
            j_str(ver, "?"), j_numd(r, "ranks", NAN), j_numd(r, "wall_seconds", NAN), j_str(vk, "?"));
    static const char *known_top[] = {"version", "ranks", "wall_seconds", "verifier", "read", "signatures", "sets",
                                      "verify", "clusters", "shuffle_bytes", "stage_seconds", "per_rank", "sketch",
                                      "templates", "exact", "work_dir", "memory"};
    print_unknown(f, r, known_top, sizeof known_top / sizeof known_top[0], "  ");
    const jnode_t *wd = j_get(r, "work_dir");
    if (j_is(wd, NDD_JV_OBJ)) { /* its checkpoints, at their largest (issue 14) */
        char s1[64];
        int removed = 0;
        fprintf(f, "work directory: %s, %s in %.0f files%s\n", j_str(j_get(wd, "path"), "?"),
                human_bytes(j_numd(wd, "bytes", NAN), s1, sizeof s1), j_numd(wd, "files", NAN),
                ndd_json_bool(j_get(wd, "removed"), &removed) && removed ? " (removed after the run)" : "");
    }
}

static void report_input(FILE *f, const view_t *v)
{
    char s1[64], s2[64];
    if (!v->read)
        return;
    fprintf(f, "\ninput: %.0f documents from %s (%s of visible text); %.0f rejected, %.0f without visible text, "
               "%.0f without signatures\n",
            j_numd(v->read, "docs", NAN), human_bytes(j_numd(v->read, "input_bytes", 0), s1, sizeof s1),
            human_bytes(j_numd(v->read, "text_bytes", 0), s2, sizeof s2), j_numd(v->read, "rejected", 0),
            j_numd(v->read, "no_visible_text", 0), j_numd(v->read, "docs_without_signatures", 0));
    static const char *known[] = {"input_bytes", "docs_read", "rejected", "no_visible_text", "docs", "text_bytes",
                                  "docs_without_signatures"};
    print_unknown(f, v->read, known, sizeof known / sizeof known[0], "  ");
}

/* The template pass (absent from runs with --templates off and from stats
 * of older runs). */
static void report_templates(FILE *f, const view_t *v)
{
    char s1[64], s2[64], s3[64];
    double blocks = j_numd(v->tmpl, "blocks", 0);
    if (!v->tmpl || blocks <= 0)
        return;
    double gone = j_numd(v->tmpl, "bytes_removed", NAN), after = j_numd(v->tmpl, "text_bytes_after", NAN);
    pct_or_dash(s3, sizeof s3, j_numd(v->tmpl, "blocks_removed", NAN), blocks);
    fprintf(f, "\ntemplates: %.0f of %.0f blocks of the documents dropped (%s); %s of text removed, %s left\n",
            j_numd(v->tmpl, "blocks_removed", NAN), blocks, s3, human_bytes(gone, s1, sizeof s1),
            human_bytes(after, s2, sizeof s2));
    fprintf(f, "  template blocks: %.0f of a site (>= the pages rule), %.0f on many sites; "
               "%.0f documents touched, %.0f all template (kept whole)\n",
            j_numd(v->tmpl, "site_templates", NAN), j_numd(v->tmpl, "corpus_templates", NAN),
            j_numd(v->tmpl, "docs_with_templates", NAN), j_numd(v->tmpl, "docs_all_template", NAN));
    static const char *known[] = {"blocks", "blocks_removed", "site_templates", "corpus_templates", "bytes_removed",
                                  "text_bytes_after", "docs_with_templates", "docs_all_template"};
    print_unknown(f, v->tmpl, known, sizeof known / sizeof known[0], "  ");
}

static void report_signatures(FILE *f, const view_t *v)
{
    char s1[64], s2[64];
    if (!v->sig)
        return;
    double sigs = j_numd(v->sig, "signatures", NAN), dropped = filter_lists_dropped(v);
    double live = j_numd(v->sig, "lists_live", NAN);
    fprintf(f, "\nsignatures: %.0f (%.0f distinct; %.0f held by one document only)\n", sigs,
            j_numd(v->sig, "distinct", NAN), j_numd(v->sig, "held_by_one_doc", NAN));
    pct_or_dash(s1, sizeof s1, dropped, live + dropped);
    pct_or_dash(s2, sizeof s2, j_numd(v->sig, "postings_in_dropped_lists", NAN), sigs);
    fprintf(f, "  frequent-signature filter: %.0f of %.0f shared lists dropped (%s), holding %s of all postings\n",
            dropped, live + dropped, s1, s2);
    fprintf(f, "    too frequent %.0f, concentrated on few sites %.0f, a site's template %.0f\n",
            j_numd(v->sig, "dropped_frequent", 0), j_numd(v->sig, "dropped_site_concentrated", 0),
            j_numd(v->sig, "dropped_site_template", 0));
    pct_or_dash(s1, sizeof s1, j_numd(v->sig, "links_kept", NAN), j_numd(v->sig, "links", NAN));
    fprintf(f, "  links document -> representative: %.0f, kept %.0f (%s; support >= %.0f signatures)\n",
            j_numd(v->sig, "links", NAN), j_numd(v->sig, "links_kept", NAN), s1,
            j_numd(v->sig, "min_link_signatures", NAN));
    static const char *known[] = {"signatures", "distinct", "held_by_one_doc", "lists_live", "dropped_frequent",
                                  "dropped_site_concentrated", "dropped_site_template",
                                  "postings_in_dropped_lists", "links", "links_kept", "min_link_signatures"};
    print_unknown(f, v->sig, known, sizeof known / sizeof known[0], "  ");
}

/* The sets' size histogram (from stats.json) and the largest sets. */
static void report_set_sizes(FILE *f, const view_t *v)
{
    const jnode_t *h = j_get(v->sets, "size_histogram");
    if (j_is(h, NDD_JV_OBJ) && ndd_json_count(h)) {
        double hmax = 0, hv;
        for (size_t i = 0; i < ndd_json_count(h); i++)
            if (ndd_json_number(ndd_json_item(h, i), &hv) && hv > hmax)
                hmax = hv;
        fprintf(f, "  set-size distribution (members: sets)\n");
        for (size_t i = 0; i < ndd_json_count(h); i++)
            if (ndd_json_number(ndd_json_item(h, i), &hv))
                print_bar_hist(f, ndd_json_key(h, i), hv, hmax);
    }
    const jnode_t *lg = j_get(v->sets, "largest");
    if (j_is(lg, NDD_JV_ARR) && ndd_json_count(lg)) {
        fprintf(f, "  largest sets:");
        for (size_t i = 0; i < ndd_json_count(lg) && i < 10; i++) {
            const jnode_t *li = ndd_json_item(lg, i);
            fprintf(f, "%s %.0f (%s)", i ? "," : "", j_numd(li, "size", NAN), j_str(j_get(li, "first_doc"), "?"));
        }
        fprintf(f, "\n");
    }
}

static void report_sets(FILE *f, const view_t *v)
{
    char s1[64];
    double x, y;
    if (!v->sets)
        return;
    double nsets = j_numd(v->sets, "sets", NAN), inset = j_numd(v->sets, "docs_in_sets", NAN);
    fprintf(f, "\nperhaps-similar sets (paper 002's partition): %.0f sets holding %.0f documents", nsets, inset);
    pct_or_dash(s1, sizeof s1, inset, j_numd(v->read, "docs", NAN));
    fprintf(f, " (%s of all)\n", s1);
    x = j_num(v->sets, "average_set_size", &y) ? y : ratio(inset, nsets);
    fprintf(f, "  average set size       %.3f\n", x);
    if (j_num(v->verify, "trustable_rate", &y))
        fprintf(f, "  trustable rate         %.4f  (share of set members verified as near-duplicates)\n", y);
    if (v->sketch) {
        if (j_num(v->sketch, "strain_away", &y))
            fprintf(f, "  sketch strain-away     %.4f\n", y);
        if (j_num(v->sketch, "reserve", &y))
            fprintf(f, "  sketch reserve rate    %.4f\n", y);
        static const char *known[] = {"strain_away", "reserve"};
        print_unknown(f, v->sketch, known, 2, "  sketch ");
    } else {
        fprintf(f, "  sketch strain-away and reserve rates: not recorded by this run\n");
    }
    fprintf(f, "  giant sets             %.0f holding %.0f documents (threshold %.0f; the guard split %.0f, "
               "refusing %.0f links)\n",
            j_numd(v->sets, "giant_sets", 0), j_numd(v->sets, "docs_in_giant_sets", 0),
            j_numd(v->sets, "giant_threshold", NAN), j_numd(v->sets, "giant_sets_split", 0),
            j_numd(v->sets, "giant_guard_links_refused", 0));
    report_set_sizes(f, v);
    static const char *known[] = {"components_rounds", "sets", "docs_in_sets", "average_set_size", "giant_sets",
                                  "docs_in_giant_sets", "giant_threshold", "giant_sets_split",
                                  "giant_guard_links_refused", "size_histogram", "largest"};
    print_unknown(f, v->sets, known, sizeof known / sizeof known[0], "  ");
}

static void report_verify(FILE *f, const view_t *v)
{
    char s1[64];
    double x;
    if (!v->verify)
        return;
    double cand = j_numd(v->verify, "candidate_pairs", NAN);
    fprintf(f, "\ncandidate pairs, step by step:\n");
    static const struct { const char *key, *label; } steps[] = {
        {"candidate_pairs", "candidate pairs"},
        {"skipped_already_joined", "- skipped: already joined by verified pairs"},
        {"identical_text", "- identical text (no verification needed)"},
        {"verified", "- verified"},
        {"pruned_by_bound", "    rejected by the sketch-size bound (no LCS)"},
        {"cost_limit_hits", "    stopped at the cost limit"},
        {"rejected_formulaic", "    rejected: formulaic (other names, numbers)"},
        {"accepted", "accepted as near-duplicates"}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (j_num(v->verify, steps[i].key, &x)) {
            pct_or_dash(s1, sizeof s1, x, cand);
            fprintf(f, "  %-46s %10.0f  %7s\n", steps[i].label, x, i ? s1 : "");
        }
    static const char *known[] = {"candidate_pairs", "skipped_already_joined", "identical_text", "verified",
                                  "pruned_by_bound", "cost_limit_hits", "rejected_formulaic", "accepted",
                                  "trustable_rate", "work_max_rank", "work_min_rank"};
    print_unknown(f, v->verify, known, sizeof known / sizeof known[0], "  ");
}

/* The score histograms of scores.tsv, accepted and rejected side by side. */
static void report_scores(FILE *f, const view_t *v)
{
    char s1[64], s2[64];
    if (!v->sc->present) {
        fprintf(f, "  (no scores.tsv: score distribution not available)\n");
        return;
    }
    if (!v->sc->rows)
        return;
    const scores_t *sc = v->sc;
    fprintf(f, "  scores.tsv: %llu scored pairs, %llu accepted\n", (unsigned long long)sc->rows,
            (unsigned long long)sc->accepted);
    for (int k = 0; k < SC_N; k++) {
        if (!sc->n[k])
            continue;
        double hi = sc->hi[k];
        if (k == SC_SCORE)
            snprintf(s2, sizeof s2, "%s score", sc->score_verifier);
        fprintf(f, "    %-16s bin        accepted   rejected\n", k == SC_SCORE ? s2 : score_names[k]);
        for (int i = 0; i < SCORE_BINS; i += 2) { /* two bins per line keeps it short */
            uint64_t a = sc->hist[k][1][i] + sc->hist[k][1][i + 1], rj = sc->hist[k][0][i] + sc->hist[k][0][i + 1];
            if (!a && !rj)
                continue;
            snprintf(s1, sizeof s1, "%.2f-%.2f", hi * i / SCORE_BINS, hi * (i + 2) / SCORE_BINS);
            fprintf(f, "                  %-10s %8llu   %8llu\n", s1, (unsigned long long)a, (unsigned long long)rj);
        }
    }
}

static void report_clusters(FILE *f, const view_t *v)
{
    char s1[64];
    if (!v->clusters)
        return;
    pct_or_dash(s1, sizeof s1, j_numd(v->clusters, "docs_removed", NAN), j_numd(v->read, "docs", NAN));
    fprintf(f, "\nclusters: %.0f verified clusters holding %.0f documents; %.0f duplicates removed (%s)\n",
            j_numd(v->clusters, "clusters", NAN), j_numd(v->clusters, "docs_in_clusters", NAN),
            j_numd(v->clusters, "docs_removed", NAN), s1);
    const jnode_t *ex = j_get(v->root, "exact");
    double xe;
    if (j_num(v->clusters, "removed_exact", &xe)) /* (stats of runs since issue 12) */
        fprintf(f, "  exact copies: %.0f removed (%.0f texts held more than once); near duplicates: %.0f removed\n", xe, ex && j_is(ex, NDD_JV_OBJ) ? j_numd(ex, "groups", NAN) : NAN,
                j_numd(v->clusters, "removed_near", NAN));
    if (v->cs->present && v->cs->clusters) {
        uint64_t hmax = 0;
        for (int h = 0; h < SIZE_BINS; h++)
            if (v->cs->bins[h] > hmax)
                hmax = v->cs->bins[h];
        fprintf(f, "  cluster-size distribution (clusters.tsv; members: clusters)\n");
        for (int h = 0; h < SIZE_BINS; h++)
            if (v->cs->bins[h]) {
                snprintf(s1, sizeof s1, "%llu-%llu", 1ull << h, (2ull << h) - 1);
                print_bar_hist(f, s1, (double)v->cs->bins[h], (double)hmax);
            }
    }
    static const char *known[] = {"clusters", "docs_in_clusters", "docs_removed", "removed_exact", "removed_near",
                                  "duplicate_fraction"};
    print_unknown(f, v->clusters, known, sizeof known / sizeof known[0], "  ");
}

static void report_shuffle(FILE *f, const view_t *v)
{
    char s1[64], s2[64], s3[64];
    if (!v->shuffle)
        return;
    double b1 = j_numd(v->shuffle, "shuffle1_signatures", 0), b2 = j_numd(v->shuffle, "shuffle2_texts_compressed", 0);
    double b2raw = j_numd(v->shuffle, "shuffle2_texts_raw", 0), b3 = j_numd(v->shuffle, "shuffle3_rows", 0);
    double bt = j_numd(v->shuffle, "templates", 0), be = j_numd(v->shuffle, "exact", 0);
    fprintf(f, "\nbytes shuffled: %s in all (%.1f B per document)\n",
            human_bytes(bt + be + b1 + b2 + b3, s1, sizeof s1), j_numd(v->shuffle, "per_doc", NAN));
    fprintf(f, "  ");
    if (bt > 0)
        fprintf(f, "template blocks %s (with the flags back); ", human_bytes(bt, s1, sizeof s1));
    if (be > 0)
        fprintf(f, "text hashes %s; ", human_bytes(be, s1, sizeof s1));
    fprintf(f, "signatures %s; texts %s", human_bytes(b1, s1, sizeof s1), human_bytes(b2, s2, sizeof s2));
    if (b2 > 0 && b2 < b2raw)
        fprintf(f, " (zstd, from %s: x%.2f)", human_bytes(b2raw, s3, sizeof s3), b2raw / b2);
    else if (b2 > 0)
        fprintf(f, " (uncompressed: ranks of one node)");
    fprintf(f, "; result rows %s\n", human_bytes(b3, s2, sizeof s2));
    static const char *known[] = {"templates", "exact", "shuffle1_signatures", "shuffle2_texts_compressed",
                                  "shuffle2_texts_raw", "shuffle3_rows", "per_doc"};
    print_unknown(f, v->shuffle, known, sizeof known / sizeof known[0], "  ");
}

/* Stage seconds over ranks: min, median, max and their skew. */
static void report_stages(FILE *f, const view_t *v)
{
    char s1[64];
    if (!j_is(v->stages, NDD_JV_OBJ) || !ndd_json_count(v->stages))
        return;
    fprintf(f, "\nstage seconds over ranks:   %9s %9s %9s   max/min\n", "min", "median", "max");
    for (size_t i = 0; i < ndd_json_count(v->stages); i++) {
        const jnode_t *st = ndd_json_item(v->stages, i);
        double smin = j_numd(st, "min", NAN), smed = j_numd(st, "median", NAN), smax = j_numd(st, "max", NAN);
        skew_str(s1, sizeof s1, smax, smin);
        fprintf(f, "  %-24s %9.4f %9.4f %9.4f   %s\n", ndd_json_key(v->stages, i), smin, smed, smax, s1);
    }
}

/* Per-rank skew, peak memory, and one line per rank (at most 64 ranks). */

/* The memory budget and what waited on disk (stats.json "memory", issue 14). */
static void report_budget(FILE *f, const view_t *v)
{
    const jnode_t *m = j_get(v->root, "memory");
    if (!j_is(m, NDD_JV_OBJ))
        return;
    char s1[64], s2[64], s3[64], s4[64];
    double rounds = j_numd(m, "shuffle1_rounds", NAN), budget = j_numd(m, "budget_per_rank_bytes", NAN);
    if (!isnan(budget) && !isnan(rounds))
        fprintf(f, "memory budget: %s per rank (%s); shuffle 1 in %.0f round%s; ", human_bytes(budget, s1, sizeof s1),
                j_str(j_get(m, "budget_source"), "?"), rounds, rounds == 1 ? "" : "s");
    fprintf(f, "spilled to the work directory: texts %s, received texts %s, link runs %s",
            human_bytes(j_numd(m, "spilled_texts_bytes", NAN), s2, sizeof s2),
            human_bytes(j_numd(m, "spilled_received_texts_bytes", NAN), s3, sizeof s3),
            human_bytes(j_numd(m, "spilled_link_runs_bytes", NAN), s4, sizeof s4));
    double peak = j_numd(m, "spill_files_peak_bytes", 0);
    if (peak > 0)
        fprintf(f, " (at most %s at once)", human_bytes(peak, s1, sizeof s1));
    double blocks = j_numd(m, "sets_verified_in_blocks", 0);
    if (blocks > 0)
        fprintf(f, "; %.0f set%s verified in blocks", blocks, blocks == 1 ? "" : "s");
    fprintf(f, "\n");
}

/* "peak memory by stage": each stage's peak RSS on its largest rank
 * (per_rank[].stage_peak_rss_kib; stats.json files before it have none). */
static void report_stage_memory(FILE *f, const view_t *v)
{
    const jnode_t *r0 = j_is(v->per_rank, NDD_JV_ARR) && ndd_json_count(v->per_rank)
                            ? j_get(ndd_json_item(v->per_rank, 0), "stage_peak_rss_kib")
                            : NULL;
    if (!j_is(r0, NDD_JV_OBJ))
        return;
    char s1[32];
    int any = 0;
    for (size_t k = 0; k < ndd_json_count(r0); k++) {
        const char *name = ndd_json_key(r0, k);
        double mx = 0, x;
        for (size_t i = 0; i < ndd_json_count(v->per_rank); i++)
            if (j_num(j_get(ndd_json_item(v->per_rank, i), "stage_peak_rss_kib"), name, &x) && x > mx)
                mx = x;
        if (mx <= 0)
            continue;
        fprintf(f, "%s %s %s", any ? "," : "peak memory by stage (largest rank):", name, human_bytes(mx * 1024, s1, sizeof s1));
        any = 1;
    }
    if (any)
        fprintf(f, "\n");
}
static void report_ranks(FILE *f, const view_t *v)
{
    char s1[64], s2[64], s3[64];
    double mn, mx, sum;
    fprintf(f, "\nper-rank skew (max/min):");
    skew_str(s1, sizeof s1, j_numd(v->verify, "work_max_rank", NAN), j_numd(v->verify, "work_min_rank", NAN));
    fprintf(f, " verification work %s", s1);
    if (rank_minmax(v, "input_bytes", &mn, &mx, &sum)) {
        skew_str(s1, sizeof s1, mx, mn);
        fprintf(f, ", input bytes %s", s1);
    }
    if (rank_minmax(v, "peak_rss_kib", &mn, &mx, &sum)) {
        skew_str(s1, sizeof s1, mx, mn);
        fprintf(f, ", peak memory %s", s1);
    }
    fprintf(f, "\n");
    if (rank_minmax(v, "peak_rss_kib", &mn, &mx, &sum))
        fprintf(f, "peak memory: %s on the largest rank, %s over all ranks\n", human_bytes(mx * 1024, s1, sizeof s1),
                human_bytes(sum * 1024, s2, sizeof s2));
    report_stage_memory(f, v);
    report_budget(f, v);
    if (!j_is(v->per_rank, NDD_JV_ARR) || !ndd_json_count(v->per_rank) || ndd_json_count(v->per_rank) > 64)
        return;
    fprintf(f, "per rank:   rank  input bytes   peak memory  stage seconds (sum)\n");
    for (size_t i = 0; i < ndd_json_count(v->per_rank); i++) {
        const jnode_t *q = ndd_json_item(v->per_rank, i), *ss = j_get(q, "stage_seconds");
        double tsum = 0, sv;
        int have = 0;
        for (size_t k = 0; j_is(ss, NDD_JV_OBJ) && k < ndd_json_count(ss); k++)
            if (ndd_json_number(ndd_json_item(ss, k), &sv)) {
                tsum += sv;
                have = 1;
            }
        snprintf(s3, sizeof s3, have ? "%.3f" : "-", tsum);
        fprintf(f, "          %6.0f  %11s  %12s  %s\n", j_numd(q, "rank", (double)i),
                human_bytes(j_numd(q, "input_bytes", NAN), s1, sizeof s1),
                human_bytes(j_numd(q, "peak_rss_kib", NAN) * 1024, s2, sizeof s2), s3);
    }
}

static void text_report(FILE *f, const view_t *v, const char *source)
{
    report_run(f, v, source);
    report_input(f, v);
    report_templates(f, v);
    report_signatures(f, v);
    report_sets(f, v);
    report_verify(f, v);
    report_scores(f, v);
    report_clusters(f, v);
    report_shuffle(f, v);
    report_stages(f, v);
    report_ranks(f, v);
}

/* ------------------------------------------------------------------ */
/* HTML page                                                           */

static const char *const html_head =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>ndd stats</title>\n<style>\n"
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}\n"
    "h1{font-size:1.3em;margin:0 0 .3em}h2{font-size:1.05em;margin:1.2em 0 .3em}\n"
    "table.kv{border-collapse:collapse}table.kv td{padding:1px 10px 1px 0}table.kv td.n{text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:12px}.chart{border:1px solid #ddd;background:#fff}\n"
    "svg text{font:11px system-ui,sans-serif;fill:#333}svg text.title{font-size:13px;font-weight:600}\n"
    "svg .grid{stroke:#e6e6e6}svg .axis{stroke:#888}#err{color:#b00}\n"
    "</style></head><body>\n";

/* The chart script: reads the JSON of 'ndd stats --json' from #ndd-data, draws
 * SVG charts into the placeholders, then sets data-ndd-charts on <html> to the
 * number of charts drawn (data-ndd-error on failure) for headless checks. */
static const char *const html_script[] = {
    "(function(){\"use strict\";",
    "var NS='http://www.w3.org/2000/svg',W=620,H=300,M={l:62,r:16,t:44,b:52},drawn=0;",
    "function el(t,a,p,x){var e=document.createElementNS(NS,t);for(var k in a)e.setAttribute(k,a[k]);",
    " if(x!==undefined)e.textContent=x;if(p)p.appendChild(e);return e;}",
    "function fmt(v){if(v>=1e9)return(v/1e9)+'G';if(v>=1e6)return(v/1e6)+'M';if(v>=1e3)return(v/1e3)+'k';return String(v);}",
    ("function chart(host,id,title){var s=el('svg',{id:id,width:W,height:H,viewBox:'0 0 '+W+' '+H,'class':'chart',"
     "role:'img','aria-label':title},document.getElementById(host));"),
    " el('text',{x:W/2,y:18,'text-anchor':'middle','class':'title'},s,title);return s;}",
    "function legend(s,items){var x=W-M.r;for(var i=items.length-1;i>=0;i--){var w=14+7*items[i][0].length;x-=w;",
    " el('rect',{x:x,y:26,width:10,height:10,fill:items[i][1]},s);el('text',{x:x+13,y:35},s,items[i][0]);}}",
    "function axes(s,xl,yl){el('line',{x1:M.l,x2:W-M.r,y1:H-M.b,y2:H-M.b,'class':'axis'},s);",
    " el('line',{x1:M.l,x2:M.l,y1:M.t,y2:H-M.b,'class':'axis'},s);",
    " el('text',{x:(M.l+W-M.r)/2,y:H-10,'text-anchor':'middle'},s,xl);",
    " el('text',{x:14,y:(M.t+H-M.b)/2,'text-anchor':'middle',transform:'rotate(-90 14 '+(M.t+H-M.b)/2+')'},s,yl);}",
    /* grouped bars on a log10 count axis; cats = labels (equal-width bins), series = [{name,color,v[]}] */
    "function bars(s,cats,series,xl,yl,tick){var mx=1;series.forEach(function(r){r.v.forEach(function(v){if(v>mx)mx=v;});});",
    " var lo=Math.log10(0.7),hi=Math.log10(mx*1.6),y=function(v){return H-M.b-(H-M.b-M.t)*(Math.log10(v)-lo)/(hi-lo);};",
    " for(var p=1;p<=mx*1.6;p*=10){var yy=y(p);el('line',{x1:M.l,x2:W-M.r,y1:yy,y2:yy,'class':'grid'},s);",
    "  el('text',{x:M.l-5,y:yy+4,'text-anchor':'end'},s,fmt(p));}",
    " axes(s,xl,yl);var bw=(W-M.l-M.r)/cats.length,gw=bw*0.8/series.length,n=0;",
    " cats.forEach(function(c,i){var x0=M.l+i*bw;",
    "  if(tick(i))el('text',{x:x0+bw/2,y:H-M.b+14,'text-anchor':'middle'},s,c);",
    "  series.forEach(function(r,k){var v=r.v[i];if(!(v>0))return;var yt=y(v);",
    "   var b=el('rect',{x:x0+bw*0.1+k*gw,y:yt,width:Math.max(gw-1,1),height:H-M.b-yt,fill:r.color,'class':'bar'},s);",
    "   el('title',{},b,r.name+' '+c+': '+v);n++;});});",
    " legend(s,series.map(function(r){return [r.name,r.color];}));return n;}",
    "function setSizes(D){var s=chart('c-sets','chart-sets','Set sizes (log-log): perhaps-similar sets and verified clusters');",
    " var st=(D.stats&&D.stats.sets&&D.stats.sets.size_histogram)||{},cl=(D.cluster_sizes&&D.cluster_sizes.size_histogram)||{};",
    " var hmax=1;[st,cl].forEach(function(h){Object.keys(h).forEach(function(k){var a=parseInt(k,10);",
    "  var e=Math.round(Math.log2(a));if(e>hmax)hmax=e;});});",
    " var cats=[],a=[],b=[];for(var e=1;e<=hmax;e++){var k=Math.pow(2,e)+'-'+(Math.pow(2,e+1)-1);",
    "  cats.push(String(Math.pow(2,e)));a.push(st[k]||0);b.push(cl[k]||0);}",
    " return bars(s,cats,[{name:'sets',color:'#4477aa',v:a},{name:'clusters',color:'#ee6677',v:b}],",
    "  'members (log2 bins: 2-3, 4-7, 8-15, ...)','count (log)',function(){return true;});}",
    "function scores(D){var sc=D.scores;if(!sc)return 0;var n=0;['resemblance','containment','ncd','score'].forEach(function(m){",
    " var h=sc[m];if(!h)return;var nm=m==='score'?h.verifier+' score':m;",
    " var s=chart('c-scores','chart-scores-'+m,'Verified pairs by '+nm+' (count, log)');",
    " var cats=[];for(var i=0;i<sc.bins;i++)cats.push(+(h.lo+(h.hi-h.lo)*i/sc.bins).toFixed(2)+'');",
    " n+=bars(s,cats,[{name:'accepted',color:'#228833',v:h.accepted},{name:'rejected',color:'#cc3311',v:h.rejected}],",
    "  nm+' (bin start)','pairs (log)',function(i){return i%2===0;});});return n;}",
    "function stages(D){var st=D.stats&&D.stats.stage_seconds;if(!st)return 0;var names=Object.keys(st);if(!names.length)return 0;",
    " var pr=(D.stats.per_rank||[]).filter(function(r){return r.stage_seconds;});",
    " var s=chart('c-stages','chart-stages','Stage seconds over ranks: bar = median, whisker = min..max'+(pr.length?', dots = ranks':''));",
    " var mx=0;names.forEach(function(k){if(st[k].max>mx)mx=st[k].max;});if(!(mx>0))mx=1;",
    " var x=function(v){return M.l+70+(W-M.r-M.l-70)*v/mx;},bh=(H-M.t-M.b)/names.length,n=0;",
    " for(var g=0;g<=4;g++){var xv=mx*g/4,xx=x(xv);el('line',{x1:xx,x2:xx,y1:M.t,y2:H-M.b,'class':'grid'},s);",
    "  el('text',{x:xx,y:H-M.b+14,'text-anchor':'middle'},s,xv.toPrecision(2));}",
    " el('text',{x:(M.l+W)/2,y:H-10,'text-anchor':'middle'},s,'seconds');",
    " names.forEach(function(k,i){var y0=M.t+i*bh,r=st[k],ym=y0+bh/2;",
    "  el('text',{x:M.l+64,y:ym+4,'text-anchor':'end'},s,k+(r.min>0?' \u00d7'+(r.max/r.min).toFixed(2):''));",
    "  var b=el('rect',{x:x(0),y:y0+bh*0.2,width:Math.max(x(r.median)-x(0),1),height:bh*0.6,fill:'#4477aa','class':'bar'},s);",
    "  el('title',{},b,k+': min '+r.min+' s, median '+r.median+' s, max '+r.max+' s'+",
    "   (r.min>0?', skew max/min '+(r.max/r.min).toFixed(2):''));n++;",
    "  [['line',x(r.min),x(r.max),ym,ym],['line',x(r.min),x(r.min),y0+bh*0.3,y0+bh*0.7],['line',x(r.max),x(r.max),y0+bh*0.3,y0+bh*0.7]]",
    "   .forEach(function(w){el(w[0],{x1:w[1],x2:w[2],y1:w[3],y2:w[4],stroke:'#111','stroke-width':1.5},s);});",
    "  pr.forEach(function(q){var v=q.stage_seconds[k];if(typeof v==='number')",
    "   el('circle',{cx:x(v),cy:ym,r:2.5,fill:'#ee6677'},s);});});",
    " return n;}",
    "try{var D=JSON.parse(document.getElementById('ndd-data').textContent);",
    " [setSizes,scores,stages].forEach(function(f){if(f(D)>0)drawn++;});",
    " document.documentElement.setAttribute('data-ndd-charts',String(drawn));",
    "}catch(e){document.documentElement.setAttribute('data-ndd-error',String(e));",
    " document.getElementById('err').textContent='charts failed: '+e;}",
    "})();",
};

static void html_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

static void html_row(FILE *f, const char *label, const char *value)
{
    fputs("<tr><td>", f);
    html_escape(f, label);
    fputs("</td><td class=\"n\">", f);
    html_escape(f, value);
    fputs("</td></tr>\n", f);
}

static int write_html(const char *path, const view_t *v, const char *source, const ndd_buf_t *json)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return NDD_ERR_IO;
    char s[128], t[64];
    double x;
    fputs(html_head, f);
    fputs("<h1>ndd stats</h1>\n<p>", f);
    html_escape(f, source);
    const jnode_t *vk = j_get(v->root, "verifier");
    snprintf(s, sizeof s, " &middot; %.0f rank(s) &middot; %.2f s wall &middot; verifier ", j_numd(v->root, "ranks", NAN),
             j_numd(v->root, "wall_seconds", NAN));
    fputs(s, f);
    html_escape(f, j_str(vk, "?"));
    fputs("</p>\n<p id=\"err\"></p>\n<h2>Partition measures (paper 002)</h2>\n<table class=\"kv\">\n", f);
    double docs = j_numd(v->read, "docs", NAN);
    snprintf(s, sizeof s, "%.0f", docs);
    html_row(f, "documents", s);
    snprintf(s, sizeof s, "%.0f", j_numd(v->sets, "sets", NAN));
    html_row(f, "perhaps-similar sets", s);
    snprintf(s, sizeof s, "%.3f", j_num(v->sets, "average_set_size", &x) ? x : NAN);
    html_row(f, "average set size", s);
    snprintf(s, sizeof s, "%.4f", j_num(v->verify, "trustable_rate", &x) ? x : NAN);
    html_row(f, "trustable rate (set members verified as near-duplicates)", s);
    if (j_num(v->sketch, "strain_away", &x)) {
        snprintf(s, sizeof s, "%.4f", x);
        html_row(f, "sketch strain-away rate", s);
    }
    if (j_num(v->sketch, "reserve", &x)) {
        snprintf(s, sizeof s, "%.4f", x);
        html_row(f, "sketch reserve rate", s);
    }
    double dropped = filter_lists_dropped(v), live = j_numd(v->sig, "lists_live", NAN);
    snprintf(s, sizeof s, "%.0f of %.0f (%.1f %%)", dropped, live + dropped, 100 * ratio(dropped, live + dropped));
    html_row(f, "shared signature lists dropped by the frequency filter", s);
    snprintf(s, sizeof s, "%.0f / %.0f / %.0f", j_numd(v->verify, "candidate_pairs", NAN),
             j_numd(v->verify, "verified", NAN), j_numd(v->verify, "accepted", NAN));
    html_row(f, "candidate / verified / accepted pairs", s);
    snprintf(s, sizeof s, "%.0f clusters, %.0f removed", j_numd(v->clusters, "clusters", NAN),
             j_numd(v->clusters, "docs_removed", NAN));
    html_row(f, "clusters", s);
    if (v->shuffle) {
        double tot = j_numd(v->shuffle, "shuffle1_signatures", 0) + j_numd(v->shuffle, "shuffle2_texts_compressed", 0) +
                     j_numd(v->shuffle, "shuffle3_rows", 0);
        html_row(f, "bytes shuffled", human_bytes(tot, t, sizeof t));
    }
    double mn, mx, sum;
    if (rank_minmax(v, "peak_rss_kib", &mn, &mx, &sum))
        html_row(f, "peak memory (largest rank)", human_bytes(mx * 1024, t, sizeof t));
    fputs("</table>\n<h2>Set sizes</h2>\n<div class=\"charts\" id=\"c-sets\"></div>\n"
          "<h2>Score distribution of verified pairs</h2>\n<div class=\"charts\" id=\"c-scores\"></div>\n"
          "<h2>Stage times over ranks</h2>\n<div class=\"charts\" id=\"c-stages\"></div>\n"
          "<noscript><p>The charts need JavaScript; the data is in the page source (id ndd-data).</p></noscript>\n"
          "<script type=\"application/json\" id=\"ndd-data\">\n",
          f);
    fwrite(json->data, 1, json->len, f);
    fputs("</script>\n<script>\n", f);
    for (size_t i = 0; i < sizeof html_script / sizeof html_script[0]; i++) {
        fputs(html_script[i], f);
        fputc('\n', f);
    }
    fputs("</script>\n</body></html>\n", f);
    int rc = ferror(f) ? NDD_ERR_IO : NDD_OK;
    if (fclose(f))
        rc = NDD_ERR_IO;
    return rc;
}

/* ------------------------------------------------------------------ */

static void stats_help(void)
{
    printf("usage: ndd stats DIR [--json] [--plot OUT.html]\n"
           "\n"
           "Prints the partition statistics of a finished (or resumed) 'ndd run' whose output\n"
           "directory is DIR (DIR/stats.json; DIR/scores.tsv and DIR/clusters.tsv when present):\n"
           "documents read; signatures and the coverage of the frequent-signature filter;\n"
           "paper 002's partition measures (perhaps-similar sets, average set size, the\n"
           "trustable rate = share of set members verified as near-duplicates, sketch\n"
           "strain-away and reserve rates when recorded); the set-size distribution; candidate\n"
           "pairs pruned at each step; the score distribution of verified pairs; clusters;\n"
           "bytes shuffled; stage seconds over ranks with their max/min skew; peak memory.\n"
           "Fields of stats.json this version does not know are printed as they are.\n"
           "\n"
           "  --json           print one JSON object instead: {source, stats (stats.json as\n"
           "                   read), derived (the measures above), scores, cluster_sizes}\n"
           "  --plot OUT.html  also write a self-contained HTML page (no network needed) with\n"
           "                   charts: set sizes on log axes, score distribution of verified\n"
           "                   pairs (accepted vs rejected), stage seconds over ranks\n"
           "  -h, --help       this text\n"
           "\n"
           "Exit codes: 0 ok, 1 unreadable or malformed statistics, 2 bad usage.\n");
}

int ndd_cmd_stats(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'},
                                         {"plot", required_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int json = 0, ch, rc = NDD_EXIT_RUNTIME;
    const char *plot = NULL;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = 1; break;
        case 'p': plot = optarg; break;
        case 'h': stats_help(); return NDD_EXIT_OK;
        default:
            if (optopt == 'p')
                return ndd_cli_usage_error("stats", "--plot needs a file name");
            return ndd_cli_usage_error("stats", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return ndd_cli_usage_error("stats", optind >= argc ? "no DIR given" : "give exactly one DIR");
    const char *src = argv[optind];

    char dir[4096], path[4200];
    struct stat st;
    if (stat(src, &st)) {
        fprintf(stderr, "ndd stats: %s: %s\n", src, strerror(errno));
        return NDD_EXIT_RUNTIME;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(dir, sizeof dir, "%s", src);
    } else { /* a stats.json file: its directory holds the TSV files */
        snprintf(dir, sizeof dir, "%s", src);
        char *sl = strrchr(dir, '/');
        if (sl)
            *sl = 0;
        else
            snprintf(dir, sizeof dir, ".");
    }
    if (S_ISDIR(st.st_mode))
        snprintf(path, sizeof path, "%s/stats.json", dir);
    else
        snprintf(path, sizeof path, "%s", src);

    char *text = NULL;
    size_t len = 0, at = 0;
    ndd_jv_t *root = NULL;
    scores_t sc;
    csizes_t cs;
    ndd_buf_t out = NDD_BUF_INIT;
    int r = ndd_read_file(path, (size_t)256 << 20, &text, &len);
    if (r) {
        fprintf(stderr, "ndd stats: cannot read %s: %s%s\n", path, r == NDD_ERR_IO ? strerror(errno) : ndd_strerror(r),
                S_ISDIR(st.st_mode) ? " (not the output directory of a finished 'ndd run'?)" : "");
        goto out;
    }
    if (ndd_json_parse_at(text, len, &root, &at)) {
        fprintf(stderr, "ndd stats: %s: malformed JSON (at byte %zu)\n", path, at);
        goto out;
    }
    if (!j_is(root, NDD_JV_OBJ)) {
        fprintf(stderr, "ndd stats: %s: not a JSON object\n", path);
        goto out;
    }
    snprintf(path, sizeof path, "%s/scores.tsv", dir);
    if ((r = read_scores(path, &sc))) {
        fprintf(stderr, "ndd stats: cannot read %s: %s\n", path, ndd_strerror(r));
        goto out;
    }
    snprintf(path, sizeof path, "%s/clusters.tsv", dir);
    if ((r = read_cluster_sizes(path, &cs))) {
        fprintf(stderr, "ndd stats: cannot read %s: %s\n", path, ndd_strerror(r));
        goto out;
    }
    view_t v = {root,
                j_get(root, "read"),
                j_get(root, "signatures"),
                j_get(root, "sets"),
                j_get(root, "verify"),
                j_get(root, "clusters"),
                j_get(root, "shuffle_bytes"),
                j_get(root, "stage_seconds"),
                j_get(root, "per_rank"),
                j_get(root, "sketch"),
                j_get(root, "templates"),
                &sc,
                &cs};
    if (v.tmpl && !j_is(v.tmpl, NDD_JV_OBJ))
        v.tmpl = NULL;
    if (v.sketch && !j_is(v.sketch, NDD_JV_OBJ))
        v.sketch = NULL;
    if (json || plot)
        all_json(&out, &v, src);
    if (!out.data && (json || plot)) {
        fprintf(stderr, "ndd stats: out of memory\n");
        goto out;
    }
    if (plot && (r = write_html(plot, &v, src, &out))) {
        fprintf(stderr, "ndd stats: cannot write %s: %s\n", plot, strerror(errno));
        goto out;
    }
    if (json)
        fwrite(out.data, 1, out.len, stdout);
    else
        text_report(stdout, &v, src);
    rc = fflush(stdout) ? NDD_EXIT_RUNTIME : NDD_EXIT_OK;
out:
    free(text);
    ndd_json_free(root);
    ndd_buf_free(&out);
    return rc;
}
