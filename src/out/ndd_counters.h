/* ndd_counters.h - the one table of ndd run's counters. It defines the
 * counters struct, their names in stats.json (section and key), which stage
 * owns them (the map checkpoint keeps the read-stage ones, the verify
 * checkpoint the others), their portable serialisation and the stats.json
 * reader. Adding a counter is one line here; its serialised form carries the
 * table's schema hash, so an older checkpoint is refused, never misread.
 *
 * X(field, section, key, stage): section/key is where the summed value
 * appears in stats.json (section NULL: not written as such, used by derived
 * figures); stage is NDD_CST_READ or NDD_CST_REDUCE. */
#ifndef NDD_COUNTERS_H
#define NDD_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"

enum { NDD_CST_READ = 0, NDD_CST_REDUCE = 1 };

#define NDD_COUNTERS(X)                                                                  \
    X(input_bytes, "read", "input_bytes", NDD_CST_READ)                                  \
    X(docs_read, "read", "docs_read", NDD_CST_READ)                                      \
    X(rejected, "read", "rejected", NDD_CST_READ)                                        \
    X(no_text, "read", "no_visible_text", NDD_CST_READ)                                  \
    X(text_bytes, "read", "text_bytes", NDD_CST_READ)                                    \
    X(no_sigs, "read", "docs_without_signatures", NDD_CST_REDUCE)                        \
    X(dup_ids, "read", "duplicate_ids", NDD_CST_REDUCE)                                  \
    X(tmpl_blocks, "templates", "blocks", NDD_CST_REDUCE)                                \
    X(tmpl_blocks_removed, "templates", "blocks_removed", NDD_CST_REDUCE)                \
    X(tmpl_site_blocks, "templates", "site_templates", NDD_CST_REDUCE)                   \
    X(tmpl_corpus_blocks, "templates", "corpus_templates", NDD_CST_REDUCE)               \
    X(tmpl_bytes_removed, "templates", "bytes_removed", NDD_CST_REDUCE)                  \
    X(tmpl_text_bytes, "templates", "text_bytes_after", NDD_CST_REDUCE)                  \
    X(tmpl_docs_touched, "templates", "docs_with_templates", NDD_CST_REDUCE)             \
    X(tmpl_docs_whole, "templates", "docs_all_template", NDD_CST_REDUCE)                    \
    X(exact_groups, "exact", "groups", NDD_CST_REDUCE)                                   \
    X(exact_docs, "exact", "duplicates", NDD_CST_REDUCE)                                 \
    X(signatures, "signatures", "signatures", NDD_CST_REDUCE)                            \
    X(keys_distinct, "signatures", "distinct", NDD_CST_REDUCE)                           \
    X(postings_single, "signatures", "held_by_one_doc", NDD_CST_REDUCE)                  \
    X(lists_live, "signatures", "lists_live", NDD_CST_REDUCE)                            \
    X(lists_dropped_frequent, "signatures", "dropped_frequent", NDD_CST_REDUCE)          \
    X(lists_dropped_site, "signatures", "dropped_site_concentrated", NDD_CST_REDUCE)     \
    X(lists_dropped_template, "signatures", "dropped_site_template", NDD_CST_REDUCE)     \
    X(postings_dropped, "signatures", "postings_in_dropped_lists", NDD_CST_REDUCE)       \
    X(links_all, "signatures", "links", NDD_CST_REDUCE)                                  \
    X(edges, "signatures", "links_kept", NDD_CST_REDUCE)                                 \
    X(sets, "sets", "sets", NDD_CST_REDUCE)                                              \
    X(docs_in_sets, "sets", "docs_in_sets", NDD_CST_REDUCE)                              \
    X(giant_sets, "sets", "giant_sets", NDD_CST_REDUCE)                                  \
    X(docs_in_giant_sets, "sets", "docs_in_giant_sets", NDD_CST_REDUCE)                  \
    X(giant_sets_split, "sets", "giant_sets_split", NDD_CST_REDUCE)                      \
    X(links_cut_giant, "sets", "giant_guard_links_refused", NDD_CST_REDUCE)              \
    X(cand_pairs, "verify", "candidate_pairs", NDD_CST_REDUCE)                           \
    X(pairs_skipped_joined, "verify", "skipped_already_joined", NDD_CST_REDUCE)          \
    X(pairs_exact, "verify", "identical_text", NDD_CST_REDUCE)                           \
    X(pairs_verified, "verify", "verified", NDD_CST_REDUCE)                              \
    X(pairs_pruned_bound, "verify", "pruned_by_bound", NDD_CST_REDUCE)                   \
    X(pairs_pruned_anchors, "verify", "pruned_by_anchor_bound", NDD_CST_REDUCE)          \
    X(pairs_cost_limit, "verify", "cost_limit_hits", NDD_CST_REDUCE)                     \
    X(pairs_formulaic, "verify", "rejected_formulaic", NDD_CST_REDUCE)                   \
    X(pairs_accepted, "verify", "accepted", NDD_CST_REDUCE)                              \
    X(verify_work, NULL, "verify_work", NDD_CST_REDUCE)                                  \
    X(sketch_pairs, "sketch", "pairs", NDD_CST_REDUCE)                                   \
    X(strain_away_micro, NULL, "strain_away_micro", NDD_CST_REDUCE)                      \
    X(lsi_terms, "lsi", "terms", NDD_CST_REDUCE)                                         \
    X(lsi_rank, "lsi", "concepts", NDD_CST_REDUCE)                                       \
    X(lsi_keys, "lsi", "lsh_keys", NDD_CST_REDUCE)                                       \
    X(lsi_accepted, "lsi", "conceptual_accepted", NDD_CST_REDUCE)                        \
    X(clusters, "clusters", "clusters", NDD_CST_REDUCE)                                  \
    X(docs_in_clusters, "clusters", "docs_in_clusters", NDD_CST_REDUCE)                  \
    X(docs_removed, "clusters", "docs_removed", NDD_CST_REDUCE)                          \
    X(docs_removed_exact, "clusters", "removed_exact", NDD_CST_REDUCE)                   \
    X(docs_removed_near, "clusters", "removed_near", NDD_CST_REDUCE)                     \
    X(docs_in_near_clusters, NULL, "docs_in_near_clusters", NDD_CST_REDUCE)              \
    X(tmpl_shuffle_bytes, "shuffle_bytes", "templates", NDD_CST_REDUCE)                  \
    X(exact_shuffle_bytes, "shuffle_bytes", "exact", NDD_CST_REDUCE)                     \
    X(shuffle1_bytes, "shuffle_bytes", "shuffle1_signatures", NDD_CST_REDUCE)            \
    X(shuffle2_bytes, "shuffle_bytes", "shuffle2_texts_compressed", NDD_CST_REDUCE)      \
    X(shuffle2_raw_bytes, "shuffle_bytes", "shuffle2_texts_raw", NDD_CST_REDUCE)         \
    X(shuffle3_bytes, "shuffle_bytes", "shuffle3_rows", NDD_CST_REDUCE)                  \
    X(spill_texts, "memory", "spilled_texts_bytes", NDD_CST_REDUCE)                      \
    X(spill_received, "memory", "spilled_received_texts_bytes", NDD_CST_REDUCE)          \
    X(spill_links, "memory", "spilled_link_runs_bytes", NDD_CST_REDUCE)                  \
    X(spill_peak, "memory", "spill_files_peak_bytes", NDD_CST_REDUCE)                    \
    X(sets_in_blocks, "memory", "sets_verified_in_blocks", NDD_CST_REDUCE)               \
    X(ix_batch, "index", "batch", NDD_CST_REDUCE)                                        \
    X(ix_docs_old, "index", "docs_before", NDD_CST_REDUCE)                               \
    X(ix_docs_new, "index", "docs_new", NDD_CST_REDUCE)                                  \
    X(ix_verdicts_cached, "index", "verdicts_from_cache", NDD_CST_REDUCE)                \
    X(ix_verdicts_new, "index", "verdicts_new", NDD_CST_REDUCE)                          \
    X(ix_links_incremental, "index", "links_incremental", NDD_CST_REDUCE)                \
    X(ix_lists_touched, "index", "lists_touched", NDD_CST_REDUCE)

#define NDD_HIST_N 24 /* set sizes: bucket b holds sizes in [2^b, 2^(b+1)); stats.json sets.size_histogram */

/* Every member is a uint64_t: the struct is also an array of NDD_NCOUNTERS values. */
typedef struct ndd_counters {
#define NDD_X_FIELD(f, s, k, st) uint64_t f;
    NDD_COUNTERS(NDD_X_FIELD)
#undef NDD_X_FIELD
    uint64_t hist[NDD_HIST_N];
} ndd_counters_t;

#define NDD_NCOUNTERS (sizeof(ndd_counters_t) / sizeof(uint64_t))

typedef struct ndd_counter_info {
    const char *field, *section, *key;
    int stage;
} ndd_counter_info_t;

/* The table in field order (the scalar counters; the histogram follows them
 * in the struct and is described by NDD_HIST_N). */
extern const ndd_counter_info_t ndd_counter_table[];
extern const size_t ndd_counter_table_n;

/* Local. a += b, element-wise. */
void ndd_counters_add(ndd_counters_t *a, const ndd_counters_t *b);
/* Local. Zeroes the counters of the other stage (keeps those of stage st;
 * the histogram belongs to NDD_CST_REDUCE). */
void ndd_counters_keep_stage(ndd_counters_t *c, int st);
/* Local. Portable form: u32 count, u64 schema hash (of the table's names),
 * then each value as u64 little-endian. */
int ndd_counters_pack(const ndd_counters_t *c, ndd_buf_t *out);
/* Reads what _pack wrote from p[0..n) into c (overwrites every value);
 * *used (may be NULL) = bytes consumed. NDD_ERR_VERSION when the count or
 * schema hash differ (a checkpoint of another ndd build), NDD_ERR_FORMAT when
 * p is truncated. */
int ndd_counters_unpack(ndd_counters_t *c, const void *p, size_t n, size_t *used);

#endif
