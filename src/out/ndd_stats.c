/* ndd_stats.c - see ndd_stats.h. The writer walks the counters table: every
 * counter with a section is written as "section": {"key": value} in table
 * order; the values that are not counters (configuration and derived
 * figures) come from the table `extras` below, each placed after a named
 * member of its section. The layout (indentation, number formats) is that of
 * the stats.json that 'ndd run' has always written. */
#include "ndd_stats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ndd_stage_names[NDD_ST_N] = {
#define NDD_X_NAME(e, s) s,
    NDD_STAGES(NDD_X_NAME)
#undef NDD_X_NAME
};

/* ---- writer ---- */

typedef struct {
    ndd_buf_t *b;
    int rc;    /* sticky: the first failure */
    int first; /* no member written yet in the open section */
    const ndd_stats_in_t *in;
    const ndd_counters_t *sum;
    uint64_t ndocs, wmax, wmin;
} writer_t;

static void w_puts(writer_t *w, const char *s)
{
    if (!w->rc)
        w->rc = ndd_buf_puts(w->b, s);
}

static void w_printf(writer_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void w_printf(writer_t *w, const char *fmt, ...)
{
    char s[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof s)
        w->rc = w->rc ? w->rc : NDD_ERR_INTERNAL;
    w_puts(w, s);
}

static void w_string(writer_t *w, const char *s, size_t n)
{
    if (!w->rc)
        w->rc = ndd_json_append_string(w->b, s, n);
}

/* The start of member key in the open section. */
static void w_key(writer_t *w, const char *key)
{
    w_printf(w, "%s\"%s\": ", w->first ? "\n    " : ",\n    ", key);
    w->first = 0;
}

static void w_u64(writer_t *w, const char *key, uint64_t v)
{
    w_key(w, key);
    w_printf(w, "%llu", (unsigned long long)v);
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

typedef enum {
    EX_DOCS,
    EX_MIN_LINK,
    EX_ROUNDS,
    EX_AVG_SET,
    EX_GIANT_TH,
    EX_HIST,
    EX_LARGEST,
    EX_TRUSTABLE,
    EX_WORK_MAX,
    EX_WORK_MIN,
    EX_STRAIN,
    EX_RESERVE,
    EX_DUP_FRACTION,
    EX_PER_DOC,
    EX_BUDGET,
    EX_BUDGET_SRC,
    EX_S1ROUNDS
} extra_t;

/* The members of the counter sections that are not counters, in the order
 * written; `after`: the member they follow (NULL: first in the section). */
static const struct {
    const char *section, *after, *key;
    extra_t kind;
} extras[] = {
    {"read", "no_visible_text", "docs", EX_DOCS},
    {"signatures", "links_kept", "min_link_signatures", EX_MIN_LINK},
    {"sets", NULL, "components_rounds", EX_ROUNDS},
    {"sets", "docs_in_sets", "average_set_size", EX_AVG_SET},
    {"sets", "docs_in_giant_sets", "giant_threshold", EX_GIANT_TH},
    {"sets", "giant_guard_links_refused", "size_histogram", EX_HIST},
    {"sets", "giant_guard_links_refused", "largest", EX_LARGEST},
    {"verify", "accepted", "trustable_rate", EX_TRUSTABLE},
    {"verify", "accepted", "work_max_rank", EX_WORK_MAX},
    {"verify", "accepted", "work_min_rank", EX_WORK_MIN},
    {"sketch", "pairs", "strain_away", EX_STRAIN},
    {"sketch", "pairs", "reserve", EX_RESERVE},
    {"clusters", "removed_near", "duplicate_fraction", EX_DUP_FRACTION},
    {"shuffle_bytes", "shuffle3_rows", "per_doc", EX_PER_DOC},
    {"memory", NULL, "budget_per_rank_bytes", EX_BUDGET},
    {"memory", NULL, "budget_source", EX_BUDGET_SRC},
    {"memory", NULL, "shuffle1_rounds", EX_S1ROUNDS},
};
#define NEXTRAS (sizeof extras / sizeof extras[0])

static void w_histogram(writer_t *w)
{
    const uint64_t *h = w->sum->hist;
    int first = 1;
    w_puts(w, "{");
    for (int b = 1; b < NDD_HIST_N; b++) { /* bucket 0 (size 1) is not a set */
        if (!h[b])
            continue;
        w_printf(w, "%s\"%llu-%llu\": %llu", first ? "" : ", ", 1ull << b, (2ull << b) - 1, (unsigned long long)h[b]);
        first = 0;
    }
    w_puts(w, "}");
}

static void w_largest(writer_t *w)
{
    const ndd_topsets_t *t = w->in->largest;
    size_t n = t ? (t->n < NDD_TOP_N ? t->n : NDD_TOP_N) : 0;
    w_puts(w, "[");
    for (size_t k = 0; k < n; k++) {
        w_printf(w, "%s{\"size\": %llu, \"first_doc\": ", k ? ", " : "", (unsigned long long)t->v[k].size);
        w_string(w, t->v[k].first_id, strnlen(t->v[k].first_id, sizeof t->v[k].first_id));
        w_puts(w, "}");
    }
    w_puts(w, "]");
}

static void w_extra(writer_t *w, size_t e)
{
    const ndd_counters_t *s = w->sum;
    const ndd_stats_in_t *in = w->in;
    const char *key = extras[e].key;
    switch (extras[e].kind) { /* integers */
    case EX_DOCS: w_u64(w, key, w->ndocs); return;
    case EX_MIN_LINK: w_u64(w, key, in->min_link_signatures); return;
    case EX_ROUNDS: w_u64(w, key, in->components_rounds); return;
    case EX_GIANT_TH: w_u64(w, key, in->giant_threshold); return;
    case EX_WORK_MAX: w_u64(w, key, w->wmax); return;
    case EX_WORK_MIN: w_u64(w, key, w->wmin); return;
    case EX_BUDGET: w_u64(w, key, in->budget); return;
    case EX_S1ROUNDS: w_u64(w, key, in->shuffle1_rounds); return;
    default: break;
    }
    w_key(w, key);
    switch (extras[e].kind) {
    case EX_AVG_SET: w_printf(w, "%.3f", ratio(s->docs_in_sets, s->sets)); break;
    case EX_HIST: w_histogram(w); break;
    case EX_LARGEST: w_largest(w); break;
    case EX_TRUSTABLE: w_printf(w, "%.4f", ratio(s->docs_in_near_clusters, s->docs_in_sets)); break;
    case EX_STRAIN:
        if (s->sketch_pairs)
            w_printf(w, "%.4f", (double)s->strain_away_micro / 1e6 / (double)s->sketch_pairs);
        else
            w_puts(w, "null");
        break;
    case EX_RESERVE: w_puts(w, "null"); break;
    case EX_BUDGET_SRC: w_string(w, in->budget_source ? in->budget_source : "", in->budget_source ? strlen(in->budget_source) : 0); break;
    case EX_DUP_FRACTION: w_printf(w, "%.6f", ratio(s->docs_removed, w->ndocs)); break;
    case EX_PER_DOC:
        w_printf(w, "%.1f", ratio(s->tmpl_shuffle_bytes + s->exact_shuffle_bytes + s->shuffle1_bytes + s->shuffle2_bytes + s->shuffle3_bytes, w->ndocs));
        break;
    default: w->rc = w->rc ? w->rc : NDD_ERR_INTERNAL; break;
    }
}

/* The extras of section sec that follow member after (NULL: the opening ones). */
static void w_extras_after(writer_t *w, const char *sec, const char *after)
{
    for (size_t e = 0; e < NEXTRAS; e++)
        if (!strcmp(extras[e].section, sec) &&
            (after ? extras[e].after && !strcmp(extras[e].after, after) : !extras[e].after))
            w_extra(w, e);
}

/* 1 when section sec holds a counter of the table before entry k (a section
 * must be contiguous in the table, or it would be written twice). */
static int seen_before(const char *sec, size_t k)
{
    for (size_t j = 0; j < k; j++)
        if (ndd_counter_table[j].section && !strcmp(ndd_counter_table[j].section, sec))
            return 1;
    return 0;
}

/* The counter sections, "read" to "shuffle_bytes". */
static void w_sections(writer_t *w)
{
    const char *open = NULL;
    for (size_t k = 0; k < ndd_counter_table_n && !w->rc; k++) {
        const ndd_counter_info_t *ci = &ndd_counter_table[k];
        if (!ci->section)
            continue;
        if (!open || strcmp(open, ci->section)) {
            if (seen_before(ci->section, k)) {
                w->rc = NDD_ERR_INTERNAL;
                return;
            }
            if (open)
                w_puts(w, "\n  },\n");
            open = ci->section;
            w_printf(w, "  \"%s\": {", open);
            w->first = 1;
            w_extras_after(w, open, NULL);
        }
        uint64_t v;
        memcpy(&v, (const char *)w->sum + k * sizeof v, sizeof v); /* counter k (ndd_counters.h) */
        w_u64(w, ci->key, v);
        w_extras_after(w, open, ci->key);
    }
    if (open)
        w_puts(w, "\n  },\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* "stage_seconds" (min / median / max over ranks) and "per_rank". */
static void w_ranks(writer_t *w, double *col)
{
    const ndd_stats_in_t *in = w->in;
    int P = in->ranks;
    w_puts(w, "  \"stage_seconds\": {");
    for (int st = 0; st < NDD_ST_N; st++) {
        for (int q = 0; q < P; q++)
            col[q] = in->per_rank[q].seconds[st];
        ndd_qsort(col, (size_t)P, sizeof *col, cmp_double);
        double med = P % 2 ? col[P / 2] : 0.5 * (col[P / 2 - 1] + col[P / 2]);
        w_printf(w, "%s\n    \"%s\": {\"min\": %.4f, \"median\": %.4f, \"max\": %.4f}", st ? "," : "",
                 ndd_stage_names[st], col[0], med, col[P - 1]);
    }
    w_puts(w, "\n  },\n  \"per_rank\": [");
    for (int q = 0; q < P; q++) {
        const ndd_rank_stats_t *rs = &in->per_rank[q];
        w_printf(w, "%s\n    {\"rank\": %d, \"input_bytes\": %llu, \"peak_rss_kib\": %llu, \"stage_seconds\": {",
                 q ? "," : "", q, (unsigned long long)rs->input_bytes, (unsigned long long)rs->peak_rss_kib);
        for (int st = 0; st < NDD_ST_N; st++)
            w_printf(w, "%s\"%s\": %.4f", st ? ", " : "", ndd_stage_names[st], rs->seconds[st]);
        w_puts(w, "}, \"stage_peak_rss_kib\": {");
        for (int st = 0; st < NDD_ST_N; st++)
            w_printf(w, "%s\"%s\": %llu", st ? ", " : "", ndd_stage_names[st], (unsigned long long)rs->stage_rss_kib[st]);
        w_puts(w, "}}");
    }
    w_puts(w, "\n  ]\n}\n");
}

int ndd_stats_json(ndd_buf_t *out, const ndd_stats_in_t *in)
{
    if (!in || !in->sum || !in->per_rank || in->ranks < 1 || !in->version || !in->verifier || !in->candidates)
        return NDD_ERR_INVAL;
    double *col = malloc((size_t)in->ranks * sizeof *col);
    if (!col)
        return NDD_ERR_NOMEM;
    writer_t w = {out, NDD_OK, 1, in, in->sum, in->sum->docs_read - in->sum->no_text, 0, 0};
    w.wmax = w.wmin = in->per_rank[0].verify_work;
    for (int q = 1; q < in->ranks; q++) {
        uint64_t x = in->per_rank[q].verify_work;
        w.wmax = x > w.wmax ? x : w.wmax;
        w.wmin = x < w.wmin ? x : w.wmin;
    }
    w_puts(&w, "{\n  \"version\": ");
    w_string(&w, in->version, strlen(in->version));
    w_printf(&w, ",\n  \"ranks\": %d,\n  \"wall_seconds\": %.3f,\n  \"verifier\": ", in->ranks, in->wall_seconds);
    w_string(&w, in->verifier, strlen(in->verifier));
    w_puts(&w, ",\n  \"candidates\": ");
    w_string(&w, in->candidates, strlen(in->candidates));
    if (in->ncommand) {
        w_puts(&w, ",\n  \"command\": [");
        for (size_t i = 0; i < in->ncommand; i++) {
            w_puts(&w, i ? ", " : "");
            w_string(&w, in->command[i], strlen(in->command[i]));
        }
        w_puts(&w, "]");
    }
    if (in->ninputs) {
        w_puts(&w, ",\n  \"inputs\": {\"arguments\": [");
        for (size_t i = 0; i < in->ninputs; i++) {
            w_puts(&w, i ? ", " : "");
            w_string(&w, in->inputs[i], strlen(in->inputs[i]));
        }
        w_printf(&w, "], \"files\": %llu}", (unsigned long long)in->input_files);
    }
    if (in->work_dir) {
        w_puts(&w, ",\n  \"work_dir\": {\"path\": ");
        w_string(&w, in->work_dir, strlen(in->work_dir));
        w_printf(&w, ", \"bytes\": %llu, \"files\": %llu, \"removed\": %s}", (unsigned long long)in->work_dir_bytes,
                 (unsigned long long)in->work_dir_files, in->work_dir_removed ? "true" : "false");
    }
    w_puts(&w, ",\n");
    w_sections(&w);
    w_ranks(&w, col);
    free(col);
    return w.rc;
}

/* ---- reader ---- */

/* A counter's value: exact for integers (not through a double), else the
 * number rounded towards zero (negative: 0). */
static uint64_t counter_value(const ndd_jv_t *v)
{
    const char *t = ndd_json_numtext(v);
    double d = 0;
    if (t && t[0] >= '0' && t[0] <= '9' && t[strspn(t, "0123456789")] == '\0')
        return strtoull(t, NULL, 10);
    ndd_json_number(v, &d);
    return d > 0 && d < 18446744073709551616.0 ? (uint64_t)d : 0;
}

static void read_histogram(const ndd_jv_t *h, ndd_counters_t *sum)
{
    for (size_t i = 0; i < ndd_json_count(h); i++) {
        const char *k = ndd_json_key(h, i);
        const ndd_jv_t *v = ndd_json_item(h, i);
        unsigned long long lo, hi;
        int used = 0;
        if (!k || ndd_json_type(v) != NDD_JV_NUM || sscanf(k, "%llu-%llu%n", &lo, &hi, &used) != 2 ||
            k[used] != '\0')
            continue;
        for (int b = 0; b < NDD_HIST_N; b++)
            if (lo == 1ull << b && hi == (2ull << b) - 1)
                sum->hist[b] = counter_value(v);
    }
}

int ndd_stats_read_counters(const ndd_jv_t *root, ndd_counters_t *sum, size_t *found)
{
    size_t nfound = 0;
    memset(sum, 0, sizeof *sum);
    if (found)
        *found = 0;
    if (ndd_json_type(root) != NDD_JV_OBJ)
        return NDD_ERR_FORMAT;
    for (size_t k = 0; k < ndd_counter_table_n; k++) {
        const ndd_counter_info_t *ci = &ndd_counter_table[k];
        if (!ci->section)
            continue;
        const ndd_jv_t *v = ndd_json_member(ndd_json_member(root, ci->section), ci->key);
        if (ndd_json_type(v) != NDD_JV_NUM)
            continue;
        uint64_t x = counter_value(v);
        memcpy((char *)sum + k * sizeof x, &x, sizeof x); /* counter k (ndd_counters.h) */
        nfound++;
    }
    read_histogram(ndd_json_get(root, "sets.size_histogram"), sum);
    if (found)
        *found = nfound;
    return NDD_OK;
}
