/* ndd_eval.c - see ndd_eval.h */
#include "ndd_eval.h"
#include "ndd_util.h"

#include <stdlib.h>

static uint64_t c2(uint64_t n) { return n * (n ? n - 1 : 0) / 2; }

static int cmp_gold_pred(const void *a, const void *b)
{
    const ndd_eval_doc_t *x = a, *y = b;
    if (x->gold != y->gold)
        return x->gold < y->gold ? -1 : 1;
    return x->pred < y->pred ? -1 : x->pred > y->pred;
}

static int cmp_pred(const void *a, const void *b)
{
    const ndd_eval_doc_t *x = a, *y = b;
    return x->pred < y->pred ? -1 : x->pred > y->pred;
}

int ndd_eval_clusters(ndd_eval_doc_t *d, size_t n, uint64_t n_docs, ndd_eval_result_t *r)
{
    if (n_docs < n)
        return NDD_ERR_INVAL;
    r->n_docs = n_docs;
    r->tp = r->pred_pairs = r->gold_pairs = 0;
    r->gold_removable = r->removed = r->removed_correct = 0;
    /* predicted cluster sizes */
    ndd_qsort(d, n, sizeof *d, cmp_pred);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && d[b].pred == d[a].pred)
            b++;
        r->pred_pairs += c2(b - a);
        a = b;
    }
    /* gold cluster sizes, contingency cells, removals */
    ndd_qsort(d, n, sizeof *d, cmp_gold_pred);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        uint64_t kept = 0, removed = 0;
        while (b < n && d[b].gold == d[a].gold) {
            if (d[b].removed)
                removed++;
            else
                kept++;
            b++;
        }
        r->gold_pairs += c2(b - a);
        r->gold_removable += (b - a) - 1;
        r->removed += removed;
        /* a removed document is right when some document of its gold
         * cluster is kept (its content survives); at most size-1 can be */
        if (kept)
            r->removed_correct += removed;
        for (size_t x = a; x < b;) {
            size_t y = x;
            while (y < b && d[y].pred == d[x].pred)
                y++;
            r->tp += c2(y - x);
            x = y;
        }
        a = b;
    }
    r->precision = r->pred_pairs ? (double)r->tp / (double)r->pred_pairs : 1.0;
    r->recall = r->gold_pairs ? (double)r->tp / (double)r->gold_pairs : 1.0;
    r->f1 = r->precision + r->recall > 0 ? 2 * r->precision * r->recall / (r->precision + r->recall) : 0.0;
    double all = (double)c2(n_docs);
    double expected = all > 0 ? (double)r->pred_pairs * (double)r->gold_pairs / all : 0.0;
    double maxidx = 0.5 * ((double)r->pred_pairs + (double)r->gold_pairs);
    r->ari = maxidx - expected != 0 ? ((double)r->tp - expected) / (maxidx - expected) : 1.0;
    r->removal_recall = r->gold_removable ? (double)r->removed_correct / (double)r->gold_removable : 1.0;
    r->removal_precision = r->removed ? (double)r->removed_correct / (double)r->removed : 1.0;
    return NDD_OK;
}

static const double *g_score;
static int cmp_idx_score(const void *a, const void *b)
{
    double x = g_score[*(const size_t *)a], y = g_score[*(const size_t *)b];
    return x < y ? -1 : x > y;
}

double ndd_eval_auc(const double *score, const int *label, size_t n, size_t *idx)
{
    uint64_t pos = 0, neg = 0;
    for (size_t i = 0; i < n; i++) {
        idx[i] = i;
        if (label[i])
            pos++;
        else
            neg++;
    }
    if (!pos || !neg)
        return -1.0;
    g_score = score;
    ndd_qsort(idx, n, sizeof *idx, cmp_idx_score);
    /* rank sum of positives with average ranks for ties */
    double ranksum = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && score[idx[b]] == score[idx[a]])
            b++;
        double avg = 0.5 * ((double)a + 1 + (double)b);
        for (size_t k = a; k < b; k++)
            if (label[idx[k]])
                ranksum += avg;
        a = b;
    }
    return (ranksum - (double)pos * ((double)pos + 1) / 2) / ((double)pos * (double)neg);
}
