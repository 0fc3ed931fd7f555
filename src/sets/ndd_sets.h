/* ndd_sets.h - the stage kernels of paper 002's step 1 and of the
 * verification schedule, as plain C over explicit data (the engine moves the
 * data between ranks; these functions only compute):
 *
 *   posting lists -> links to the list's representative, with support
 *   links merged with their support (how many signatures link the pair)
 *   the local half of a connected-components label round
 *   set sizes from labels
 *   the giant-set guard: size-capped single linkage
 *   the largest sets (for stats)
 *   one set's verification: candidate schedule, identical-text short cut,
 *   clusters and the keep rule
 *
 * Every function is Local and deterministic: results do not depend on how
 * the data was split between ranks. */
#ifndef NDD_SETS_H
#define NDD_SETS_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_cluster.h"
#include "ndd_counters.h"
#include "ndd_part.h"
#include "ndd_rows.h"
#include "ndd_util.h"
#include "ndd_wire.h"

/* A link between documents u < v (global numbers) and its support. */
typedef struct ndd_link {
    uint64_t u, v;
    uint64_t support;
} ndd_link_t;

typedef struct ndd_links {
    ndd_link_t *v;
    size_t n, cap;
} ndd_links_t;

typedef struct ndd_u64s {
    uint64_t *v;
    size_t n, cap;
} ndd_u64s_t;

/* Posting lists -> links. post[0..np) is sorted by key, and by document
 * inside a key. For each list: entries repeating the previous entry's
 * document are dropped (a document holding a key twice counts once); the
 * list is classified (ndd_postings_classify with scratch of np entries and
 * pp); counted in c (keys_distinct, postings_single, lists_live,
 * lists_dropped_*, postings_dropped); a dropped list appends its key to
 * *dropped; a live list appends one link (min, max) with support 1 from
 * every member to the list's representative (ndd_postings_representative).
 * The links are written over the postings, which they replace: on return
 * the memory of post[] holds *nlinks ndd_link_t (the same size) at its
 * start, to be read through (ndd_link_t *)(void *)post; no other memory is
 * needed for them. */
int ndd_sets_links_from_postings(ndd_posting_t *post, size_t np, const ndd_postings_params_t *pp, uint64_t *scratch,
                                 ndd_counters_t *c, ndd_u64s_t *dropped, size_t *nlinks);

/* ---- incremental links (index batches, docs/index.md "Postings") ----
 * A link's support is a sum over the posting lists, so a batch that changes
 * only some lists (those that hold its new documents' keys, or the keys of
 * old documents whose postings changed) can add to the links of the index
 * before it each changed list's links after minus before. A posting's doc
 * may carry NDD_POST_OLD (a member of the list before the batch only) or
 * NDD_POST_NEW (after it only); an unflagged posting is in both. */
#define NDD_POST_OLD (1ULL << 63)
#define NDD_POST_NEW (1ULL << 62)
#define NDD_POST_DOC (NDD_POST_NEW - 1)

/* The counters ndd_sets_links_from_postings keeps, as a group (differences
 * are modulo 2^64). */
typedef struct ndd_list_counts {
    uint64_t keys, single, live, drop_frequent, drop_site, drop_template, postings_dropped;
} ndd_list_counts_t;

void ndd_list_counts_get(const ndd_counters_t *c, ndd_list_counts_t *x);
void ndd_list_counts_add(ndd_counters_t *c, const ndd_list_counts_t *x);
void ndd_list_counts_plus(ndd_list_counts_t *a, const ndd_list_counts_t *b); /* a += b */

/* post[0..np) sorted by key, then by doc with its flags
 * (ndd_postings_sort_inplace). For each key that has a flagged posting (a
 * touched list): the list before (unflagged + NDD_POST_OLD) and after
 * (unflagged + NDD_POST_NEW), flags cleared, a document once, each
 * classified as ndd_sets_links_from_postings does (pp); appends to *diff
 * the links after minus before - support 1, or 2^64 - 1 for -1; when both
 * are live with one representative, only the members that came or went -
 * adds the counters after minus before to *d, appends the key to *touched
 * (increasing), and to *dropped when the list after is dropped. A key
 * without a flagged posting (an unchanged list) is skipped; post[] is only
 * read. */
int ndd_sets_links_diff(const ndd_posting_t *post, size_t np, const ndd_postings_params_t *pp, ndd_links_t *diff,
                        ndd_list_counts_t *d, ndd_u64s_t *touched, ndd_u64s_t *dropped);

/* Appends base + diff to *out: base[0..nb) in (u, v) order with every pair once and a
 * support > 0 (the links of every list, before --min-link), diff[0..nd) the
 * same order, every pair once, supports modulo 2^64 (ndd_sets_links_merge
 * with min_support 0); pairs summing to 0 are left out. NDD_ERR_INTERNAL
 * when a sum is negative (the difference was not made against base). */
int ndd_sets_links_apply(const ndd_link_t *base, size_t nb, const ndd_link_t *diff, size_t nd, ndd_links_t *out);

/* Sorts links by (u, v), merges equal pairs summing their support, and keeps
 * the merged links with support >= min_support, in (u, v) order. Returns the
 * number kept (the first entries of l); *ndistinct (may be NULL) = number of
 * distinct pairs before the filter. */
size_t ndd_sets_links_merge(ndd_link_t *l, size_t n, uint64_t min_support, uint64_t *ndistinct);

/* The next link of a sorted run: 1 (*l filled), 0 at its end, or an NDD_ERR_*. */
typedef int (*ndd_links_next_fn)(void *run, ndd_link_t *l);
/* Merges nrun runs, each in (u, v) order with every pair once (as
 * ndd_sets_links_merge leaves them), summing equal pairs' support and
 * keeping those with support >= min_support, appended to out in (u, v)
 * order: the result of ndd_sets_links_merge over all the runs' links, for
 * runs spilled to disk (the memory budget). *ndistinct = distinct pairs. */
int ndd_sets_links_merge_runs(ndd_links_next_fn next, void *const *run, size_t nrun, uint64_t min_support,
                              ndd_links_t *out, uint64_t *ndistinct);

/* ---- connected components, local half of a label round ----
 * The engine keeps labels at the owners of documents; each rank holds some
 * links. A round: fetch the labels of the rank's link ends, take the minimum
 * over each local component (union-find over the rank's links), push the
 * decreased labels to the owners; repeat until no label changes anywhere.
 * Labels converge to the smallest document number of each component. */
typedef struct ndd_cc_local {
    uint64_t *ends; /* sorted distinct ends of the links */
    size_t n;
    ndd_uf_t uf;
    uint64_t *minlab; /* scratch */
} ndd_cc_local_t;

int ndd_cc_local_init(ndd_cc_local_t *cc, const ndd_link_t *l, size_t nl);
/* Index of document g in cc->ends (it must be an end). */
size_t ndd_cc_local_index(const ndd_cc_local_t *cc, uint64_t g);
/* lab[i] = current label of ends[i]; newlab[i] = the minimum label over
 * ends[i]'s local component. */
void ndd_cc_local_step(ndd_cc_local_t *cc, const uint64_t *lab, uint64_t *newlab);
void ndd_cc_local_free(ndd_cc_local_t *cc);

/* Sorts v by label and merges equal labels summing their sizes; returns the
 * new count. */
size_t ndd_setsizes_merge(ndd_setsize_t *v, size_t n);
/* The size of set label in v[0..n) (sorted by label, as _merge leaves it);
 * 1 when absent (a document in no set). */
uint64_t ndd_setsizes_find(const ndd_setsize_t *v, size_t n, uint64_t label);

/* ---- giant-set guard: size-capped single linkage ---- */
typedef struct ndd_glink {
    uint64_t label, u, v, support;
} ndd_glink_t;

/* Called for every node of a guarded set: its component's root (the
 * smallest document number in it) and the component's size. */
typedef int (*ndd_node_fn)(void *user, uint64_t node, uint64_t root, uint64_t size);

/* A giant set's component of fewer documents than this is small: a closed
 * component still takes it in (ndd_sets_capped_linkage). */
#define NDD_GIANT_SMALL 8

/* Sorts gl[0..n) by (label, support descending, u, v) (the order
 * ndd_sets_capped_linkage takes the links in), equal links in their order
 * in gl. Fastest when gl is a few runs in (u, v) order (up to 8: merged).
 * Exposed for its test. */
void ndd_sets_glinks_sort(ndd_glink_t *gl, size_t n);

/* gl[0..n): links of giant sets, each tagged with its set's label. Sorts them
 * by (label, support desc, u, v); for each set, unites the link ends
 * strongest link first and refuses a union that would make a component of
 * cap documents or more, or that joins a closed component with one of
 * `small` documents or more (*refused += 1 each). A refused union closes
 * each of its two components that holds `small` documents or more; a union
 * with a closed component is closed. Then calls fn for every node of the set
 * in increasing document order. *nsets += sets processed. small = UINT64_MAX:
 * plain size-capped single linkage (nothing closes). */
int ndd_sets_capped_linkage(ndd_glink_t *gl, size_t n, uint64_t cap, uint64_t small, ndd_node_fn fn, void *user,
                            uint64_t *refused, uint64_t *nsets);

/* ---- the largest sets (stats.json sets.largest) ---- */
#define NDD_TOP_N 10
typedef struct ndd_topset {
    uint64_t size, label;
    char first_id[120]; /* NUL-terminated, cut at 119 bytes */
} ndd_topset_t;

typedef struct ndd_topsets {
    ndd_topset_t v[NDD_TOP_N];
    size_t n;
} ndd_topsets_t;

/* Notes a set (size, label, id of its first member), keeping the NDD_TOP_N
 * largest by (size desc, label asc); a set no larger than the smallest kept
 * one when the list is full is ignored. */
void ndd_topsets_note(ndd_topsets_t *t, uint64_t size, uint64_t label, const char *id, size_t idlen);
/* t = the NDD_TOP_N first of t and v[0..n) together by (size desc, label asc). */
void ndd_topsets_merge(ndd_topsets_t *t, const ndd_topset_t *v, size_t n);
/* Portable form (checkpoints, gathering over ranks): u32 count, then per set
 * u64 size, u64 label, u32 length + first id (little-endian). */
int ndd_topsets_pack(const ndd_topsets_t *t, ndd_buf_t *out);
/* Reads one packed list at *c into v[0..NDD_TOP_N); NDD_ERR_FORMAT when malformed. */
int ndd_topsets_unpack(ndd_cur_t *c, ndd_topset_t *v, size_t *n);

/* ---- one set's verification ----
 * Candidate pairs cand[0..nc) (from ndd_cand_select: strongest first) of a
 * set of n members with texts[i], lens[i]. In order: a pair whose members
 * are already joined by accepted pairs is skipped (unless verify_all;
 * c->pairs_skipped_joined); identical texts are not verified
 * (hooks->identical; c->pairs_exact); else hooks->pair (c->pairs_verified,
 * pairs_pruned_bound, pairs_cost_limit from the result). Every pair not
 * skipped goes to hooks->scored; an accepted one (r.duplicate) joins its
 * members (c->pairs_accepted). Then the clusters: components of the
 * accepted pairs with at least two members; root = the component's first
 * member (smallest index); kept = the longest text (ties: the first) with
 * keep_longest, else the root. hooks->member is called for every member of
 * a cluster in index order (c->clusters, docs_in_clusters, docs_removed).
 *
 * Exact followers (ndd_exact_reps): members n .. n+nf-1 are documents whose
 * text is identical to that of member fol_rep[k] < n (they carry no text of
 * their own and are never verified). Each joins its representative's
 * cluster: hooks->identical and hooks->scored for (fol_rep[k], n+k)
 * (not counted in pairs_exact or pairs_accepted), and
 * hooks->member with kept = 0 (c->docs_removed, docs_removed_exact); a
 * representative without near duplicates forms a cluster with its
 * followers. Near duplicates removed count in c->docs_removed_near;
 * c->docs_in_near_clusters counts the verified members of clusters with two
 * verified members or more (paper 002's trustable rate). */
typedef struct ndd_set_hooks {
    void *user;
    int (*pair)(void *user, uint32_t i, uint32_t j, ndd_vres_t *r);
    void (*identical)(void *user, uint32_t i, uint32_t j, ndd_vres_t *r);
    int (*scored)(void *user, uint32_t i, uint32_t j, const ndd_vres_t *r);
    int (*member)(void *user, uint32_t i, uint32_t root, int kept);
    /* NULL, or called before texts[i] and texts[j] are read (a set verified
     * in blocks: the caller loads them into the texts array it passed) */
    int (*load)(void *user, uint32_t i, uint32_t j);
} ndd_set_hooks_t;

int ndd_set_verify(const ndd_cand_t *cand, size_t nc, size_t n, const char *const *texts, const size_t *lens,
                   const uint32_t *fol_rep, size_t nf, int verify_all, int keep_longest, const ndd_set_hooks_t *hooks,
                   ndd_counters_t *c);

/* ---- exact duplicates: identical texts grouped by content hash ----
 * Records (hi, lo) = a 128-bit hash of a document's text, g = its global
 * number, in any order (each rank's share: the owner of the hash). rep[k]
 * = the smallest g among the records with the same hash (the group's
 * representative); for the representative itself of a group of two or
 * more, rep[k] = g | NDD_EXACT_LEADS. A record alone keeps rep[k] = g.
 * *groups += groups of two or more, *followers += records with rep != g.
 * Deterministic: the same records in another order give the same reps. */
#define NDD_EXACT_LEADS (UINT64_C(1) << 63)
typedef struct ndd_exact_rec {
    uint64_t hi, lo, g;
} ndd_exact_rec_t;
int ndd_exact_reps(const ndd_exact_rec_t *v, size_t n, uint64_t *rep, uint64_t *groups, uint64_t *followers);

#endif
