/* run_output.c - the output files of ndd run: every rank sorts the rows it
 * received (they are keyed by global document numbers) and the files are
 * written in rank order through the transport (ordered write), so they are
 * identical for any rank count; then stats.json from the counters summed
 * over ranks and the per-rank figures. */
#include "run_internal.h"
#include "ndd_wire.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef NDD_VERSION
#define NDD_VERSION "dev"
#endif

static int path_join(char *buf, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(buf, cap, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= cap ? NDD_ERR_INVAL : NDD_OK;
}

/* After a failed ordered write: rank 0 removes the partial file and logs
 * its name (never leave a partial output that looks complete). */
static int output_failed(run_t *r, const char *path, int rc)
{
    if (rc && r->me == 0) {
        unlink(path);
        ndd_run_log(r, 0, "cannot write %s (%s; a full or read-only disk?): the partial file is removed", path,
                    ndd_strerror(rc));
    }
    return rc;
}

int ndd_write_output(run_t *r, const char *path, const void *data, size_t len)
{
    return output_failed(r, path, ndd_comm_write_ordered(r->comm, path, data, len));
}

/* The sorted rows' lines as pieces of about ROWS_PIECE bytes (the header
 * first on rank 0), so that a file is never held twice: rows, then text.
 * With clusters, the removed documents' ids are collected on the way. */
#define ROWS_PIECE ((size_t)4 << 20)
typedef struct {
    run_t *r;
    const char *header;
    const ndd_row_t *v;
    size_t n, i;
    int clusters;
    ndd_buf_t piece, *ids;
} rows_fill_t;

static int rows_fill(void *user, const void **p, size_t *n)
{
    rows_fill_t *f = user;
    int rc = NDD_OK;
    ndd_buf_clear(&f->piece);
    if (f->header) {
        rc = ndd_buf_puts(&f->piece, f->header);
        f->header = NULL;
    }
    for (; f->i < f->n && !rc && (!f->piece.len || f->piece.len + f->v[f->i].len <= ROWS_PIECE); f->i++) {
        const ndd_row_t *w = &f->v[f->i];
        rc = ndd_buf_append(&f->piece, w->line, w->len);
        if (!rc && f->clusters && f->r->removed[w->k1 - f->r->first]) { /* its id, as written in clusters.tsv */
            const char *tab = memchr(w->line, '\t', w->len);
            rc = ndd_buf_append(f->ids, w->line, tab ? (size_t)(tab - w->line) : w->len);
            if (!rc)
                rc = ndd_buf_putc(f->ids, '\n');
        }
    }
    *p = f->piece.data;
    *n = f->piece.len;
    return rc;
}

/* Sorts the received rows and writes them (with the header from rank 0) as
 * one file, streamed in pieces from the sorted rows. Cluster rows carry the
 * keep flag as k2: they mark the removed documents and are ordered by
 * document alone; with them, removed.txt lists the removed documents' ids
 * (as in clusters.tsv), one per line, no header, in input order: what users
 * otherwise cut out of clusters.tsv by hand. */
static int write_rows(run_t *r, const ndd_buf_t *rows, const char *name, const char *header, int clusters)
{
    char path[4096];
    ndd_row_t *v = NULL;
    size_t n = 0, cap = 0;
    ndd_buf_t ids = NDD_BUF_INIT;
    rows_fill_t f = {r, r->me == 0 ? header : NULL, NULL, 0, 0, clusters, NDD_BUF_INIT, &ids};
    uint64_t len = f.header ? strlen(f.header) : 0;
    int rc = path_join(path, sizeof path, r->cfg->outdir, name);
    if (!rc)
        rc = ndd_rows_parse(rows->data, rows->len, &v, &n, &cap);
    for (size_t i = 0; i < n && clusters && !rc; i++) {
        r->removed[v[i].k1 - r->first] = v[i].k2 == 0;
        v[i].k2 = 0;
    }
    if (!rc)
        ndd_rows_sort(v, n);
    for (size_t i = 0; i < n && !rc; i++)
        len += v[i].len;
    f.v = v;
    f.n = rc ? 0 : n;
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(output_failed(r, path, ndd_comm_write_ordered_fill(r->comm, path, len, rows_fill, &f)));
    if (clusters) {
        NDD_TRY(ndd_comm_agree(r->comm, path_join(path, sizeof path, r->cfg->outdir, "removed.txt")));
        rc = ndd_write_output(r, path, ids.data ? ids.data : "", ids.len);
    }
out:
    free(v);
    ndd_buf_free(&f.piece);
    ndd_buf_free(&ids);
    return rc;
}

/* --index: new-pairs.tsv, the rows of pairs.tsv with at least one document
 * of this batch (the second, larger number is new). */
static int write_new_pairs(run_t *r)
{
    ndd_buf_t keep = NDD_BUF_INIT;
    ndd_row_t *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t first_new = ndd_index_first_new(r);
    const ndd_buf_t *rows = &r->rows[NDD_ROWS_PAIRS];
    int rc = ndd_rows_parse(rows->data, rows->len, &v, &n, &cap);
    for (size_t i = 0; i < n && !rc; i++)
        if (v[i].k2 >= first_new)
            rc = ndd_row_put(&keep, v[i].k1, v[i].k2, v[i].line, v[i].len);
    free(v);
    rc = ndd_comm_agree(r->comm, rc);
    if (!rc)
        rc = write_rows(r, &keep, "new-pairs.tsv", NDD_HDR_PAIRS, 0);
    ndd_buf_free(&keep);
    return rc;
}

int ndd_stage_outputs(run_t *r)
{
    char path[4096];
    ndd_buf_t rej = NDD_BUF_INIT;
    double t0 = ndd_now();
    int rc;
    NDD_TRY(write_rows(r, &r->rows[NDD_ROWS_PAIRS], "pairs.tsv", NDD_HDR_PAIRS, 0));
    if (r->ix)
        NDD_TRY(write_new_pairs(r));
    NDD_TRY(write_rows(r, &r->rows[NDD_ROWS_SCORES], "scores.tsv", NDD_HDR_SCORES, 0));
    NDD_TRY(write_rows(r, &r->rows[NDD_ROWS_CLUSTERS], "clusters.tsv", NDD_HDR_CLUSTERS, 1));
    rc = r->me == 0 ? ndd_buf_puts(&rej, NDD_HDR_REJECTS) : NDD_OK;
    if (!rc)
        rc = ndd_buf_append(&rej, r->rejects.data ? r->rejects.data : "", r->rejects.len);
    if (!rc)
        rc = path_join(path, sizeof path, r->cfg->outdir, "rejects.tsv");
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    rc = ndd_write_output(r, path, rej.data ? rej.data : "", rej.len);
out:
    ndd_buf_free(&rej);
    r->t[NDD_ST_OUTPUT] += ndd_now() - t0;
    ndd_stage_rss(r, NDD_ST_OUTPUT);
    return rc;
}

/* ------------------------------------------------------------------ */
/* stats.json                                                          */


void ndd_stage_rss(run_t *r, int st)
{
    uint64_t kib = ndd_rss_peak_kib();
    r->rss[st] = kib > r->rss[st] ? kib : r->rss[st];
    /* what the stage freed goes back to the system only when the rank is at
     * half its budget or more: trimmed after every stage, the next stages
     * took every page back by a fault and its zeroing (1.6 % of a run of
     * the 500 MB benchmark, for 4 % of peak RSS; docs/BENCHMARKS.md) */
    if (!r->budget || ndd_budget_rss(r) >= r->budget / 2)
        ndd_mem_release();
    (void)ndd_rss_peak_reset();
}

#define RANK_WIRE ((2 * NDD_ST_N + 3) * 8)

static int put_rank_stats(ndd_buf_t *b, const run_t *r)
{
    uint64_t x[2 * NDD_ST_N + 3];
    uint64_t peak = ndd_rss_peak_kib(); /* since the last stage ended: the peak is the largest of all */
    for (int st = 0; st < NDD_ST_N; st++) {
        memcpy(&x[st], &r->t[st], 8);
        x[NDD_ST_N + 3 + st] = r->rss[st];
        peak = r->rss[st] > peak ? r->rss[st] : peak;
    }
    x[NDD_ST_N] = r->c.input_bytes;
    x[NDD_ST_N + 1] = peak;
    x[NDD_ST_N + 2] = r->c.verify_work;
    return ndd_put64s(b, x, 2 * NDD_ST_N + 3);
}

static void get_rank_stats(ndd_rank_stats_t *s, const char *p)
{
    uint64_t x[2 * NDD_ST_N + 3];
    ndd_load64s(x, p, 2 * NDD_ST_N + 3);
    for (int st = 0; st < NDD_ST_N; st++) {
        memcpy(&s->seconds[st], &x[st], 8);
        s->stage_rss_kib[st] = x[NDD_ST_N + 3 + st];
    }
    s->input_bytes = x[NDD_ST_N];
    s->peak_rss_kib = x[NDD_ST_N + 1];
    s->verify_work = x[NDD_ST_N + 2];
}

/* Every rank's per-rank figures and largest sets, and the summed counters. */
static int gather_stats(run_t *r, ndd_counters_t *sum, ndd_rank_stats_t **ranks, ndd_topsets_t *top)
{
    ndd_buf_t mine = NDD_BUF_INIT, all = NDD_BUF_INIT;
    *sum = r->c;
    int rc = ndd_comm_allreduce(r->comm, sum, NDD_NCOUNTERS, NDD_TY_U64, NDD_RED_SUM);
    if (rc || (rc = ndd_comm_agree(r->comm, put_rank_stats(&mine, r))) ||
        (rc = ndd_comm_allgather(r->comm, mine.data, mine.len, &all, NULL)))
        goto out;
    *ranks = calloc((size_t)r->P, sizeof **ranks);
    NDD_TRY(ndd_comm_agree(r->comm, *ranks && all.len == (size_t)r->P * RANK_WIRE ? NDD_OK : NDD_ERR_NOMEM));
    for (int q = 0; q < r->P; q++)
        get_rank_stats(&(*ranks)[q], all.data + (size_t)q * RANK_WIRE);
    ndd_buf_clear(&mine);
    NDD_TRY(ndd_comm_agree(r->comm, ndd_topsets_pack(&r->top, &mine)));
    NDD_TRY(ndd_comm_allgather(r->comm, mine.data, mine.len, &all, NULL));
    memset(top, 0, sizeof *top);
    ndd_cur_t cur = {all.data, all.data + all.len, 0};
    while (!rc && cur.p < cur.end) { /* one packed list per rank */
        ndd_topset_t tv[NDD_TOP_N];
        size_t nt = 0;
        if (!(rc = ndd_topsets_unpack(&cur, tv, &nt)))
            ndd_topsets_merge(top, tv, nt);
    }
    rc = ndd_comm_agree(r->comm, rc);
out:
    ndd_buf_free(&mine);
    ndd_buf_free(&all);
    return rc;
}

static int write_file(const char *path, const ndd_buf_t *b)
{
    FILE *f = fopen(path, "w");
    int rc = !f || fwrite(b->data, 1, b->len, f) != b->len || fflush(f) ? NDD_ERR_IO : NDD_OK;
    if (f && fclose(f))
        rc = NDD_ERR_IO;
    if (rc && f)
        unlink(path); /* no partial stats.json */
    return rc;
}

/* Rank 0: one warning naming the stages whose peak (largest rank) passed
 * the memory budget: what stays in memory whatever the budget (the map
 * stage's and the template pass's texts, every document's id and URL, the
 * rows) did not fit. */
static void budget_report(const run_t *r, const ndd_rank_stats_t *ranks)
{
    char list[1024] = "";
    size_t at = 0;
    for (int st = 0; st < NDD_ST_N; st++) {
        uint64_t mx = 0;
        for (int q = 0; q < r->P; q++)
            mx = ranks[q].stage_rss_kib[st] > mx ? ranks[q].stage_rss_kib[st] : mx;
        mx = ndd_budget_share(r, mx);
        if (mx * 1024 <= r->budget || at >= sizeof list - 64)
            continue;
        int n = snprintf(list + at, sizeof list - at, "%s%s %.0f MiB", at ? ", " : "", ndd_stage_names[st],
                         (double)mx / 1024);
        at += n > 0 ? (size_t)n : 0;
    }
    if (at)
        ndd_run_log(r, 1, "warning: stages above the memory budget of %.1f MiB per rank (peak of the largest rank): "
                    "%s; the map stage and the template pass keep the rank's texts, and every stage its documents' "
                    "ids, URLs and result rows, in memory", (double)r->budget / (1 << 20), list);
}

int ndd_stage_stats(run_t *r, double wall, ndd_run_summary_t *s)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    ndd_counters_t sum;
    ndd_rank_stats_t *ranks = NULL;
    ndd_topsets_t top;
    ndd_buf_t b = NDD_BUF_INIT;
    char path[4096];
    int rc;
    NDD_TRY(gather_stats(r, &sum, &ranks, &top));
    if (r->me == 0 && r->budget)
        budget_report(r, ranks);
    if (r->me == 0) {
        ndd_stats_in_t in = {
            NDD_VERSION, r->P, wall,
            cfg->verifier == NDD_VERIFIER_TLCS       ? "tlcs"
            : cfg->verifier == NDD_VERIFIER_SIGNCD   ? "signcd"
            : cfg->verifier == NDD_VERIFIER_LSI      ? "lsi"
            : cfg->verifier == NDD_VERIFIER_TLCS_LSI ? "tlcs+lsi"
                                                     : ndd_method_name(cfg->vmethod),
            cfg->candidates ? ndd_method_name((ndd_method_t)cfg->candidates) : "sentence",
            cfg->min_link_sigs, cfg->giant_set, r->cc_rounds, &sum, &top, ranks,
            cfg->argv, cfg->argv ? cfg->argc : 0, cfg->inputs, cfg->ninputs, r->ninputs_expanded,
            r->wd, r->wd_bytes, r->wd_files, r->wd_removed, r->budget, r->s1_rounds, r->budget_src};
        rc = ndd_stats_json(&b, &in);
        if (!rc && !(rc = path_join(path, sizeof path, cfg->outdir, "stats.json")) && (rc = write_file(path, &b)))
            ndd_run_log(r, 0, "cannot write %s (a full or read-only disk?)", path);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    if (s) {
        s->docs = sum.docs_read - sum.no_text;
        s->rejected = sum.rejected;
        s->sets = sum.sets;
        s->cand_pairs = sum.cand_pairs;
        s->accepted = sum.pairs_accepted;
        s->clusters = sum.clusters;
        s->docs_in_clusters = sum.docs_in_clusters;
        s->removed = sum.docs_removed;
        s->removed_exact = sum.docs_removed_exact;
        s->wall = wall;
        s->ranks = r->P;
    }
out:
    free(ranks);
    ndd_buf_free(&b);
    return rc;
}
