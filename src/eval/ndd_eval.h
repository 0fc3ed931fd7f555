/* ndd_eval.h - clustering quality against gold clusters: pairwise precision,
 * recall and F1 over same-cluster pairs, the adjusted Rand index, and the
 * share of duplicate documents correctly removed; ROC AUC for pair scores.
 * Plain C, no MPI, no printing. */
#ifndef NDD_EVAL_H
#define NDD_EVAL_H

#include <stddef.h>
#include <stdint.h>

/* One document of the evaluation: its gold cluster and predicted cluster
 * (any integers; a document alone in its cluster is a singleton), and
 * whether the prediction removes it (keep = 0). Documents of the corpus that
 * appear in neither gold nor prediction need not be listed: they are
 * singletons on both sides and only count in n_docs. */
typedef struct ndd_eval_doc {
    uint64_t gold;
    uint64_t pred;
    int removed;
} ndd_eval_doc_t;

typedef struct ndd_eval_result {
    uint64_t n_docs;          /* corpus size N used for the ARI */
    uint64_t tp, pred_pairs, gold_pairs;
    double precision, recall, f1, ari;
    uint64_t gold_removable;  /* sum over gold clusters of (size - 1) */
    uint64_t removed, removed_correct; /* removed docs; of them, those with a kept doc of their gold cluster */
    double removal_recall, removal_precision;
} ndd_eval_result_t;

/* docs may be reordered. n_docs >= n (the whole corpus). Precision is 1 when
 * nothing was predicted, recall 1 when the gold has no pairs. */
int ndd_eval_clusters(ndd_eval_doc_t *docs, size_t n, uint64_t n_docs, ndd_eval_result_t *r);

/* ROC AUC of scores (higher = more likely positive) against 0/1 labels, ties
 * counted as one half (Mann-Whitney U). Returns -1 when one class is empty.
 * scratch must hold n indices. */
double ndd_eval_auc(const double *score, const int *label, size_t n, size_t *scratch);

#endif
