/* run_sets.c - paper 002's step 1 as stage drivers: shuffle 1 (postings to
 * the owners of their keys), posting lists -> links with support (shuffled
 * again, to the owner of each pair), the dropped keys every rank learns,
 * the perhaps-similar sets as distributed connected components, their sizes,
 * and the giant-set guard. The computing is in src/sets (kernels); this file
 * only moves data. */
#include "run_internal.h"
#include "ndd_wire.h"

#include <stddef.h>
#include <string.h>

#define LINK_WIRE 24    /* u64 u, u64 v, u64 support */
#define GLINK_WIRE 32   /* u64 label, u, v, support: a giant set's link */

/* On a little-endian host the links' wire records are the structs' own
 * bytes: the received blocks become the arrays without a second copy
 * (recv_join). */
_Static_assert(sizeof(ndd_link_t) == LINK_WIRE && offsetof(ndd_link_t, v) == 8 && offsetof(ndd_link_t, support) == 16,
               "ndd_link_t is not its wire layout");
_Static_assert(sizeof(ndd_glink_t) == GLINK_WIRE, "ndd_glink_t is not its wire layout");

static int link_put(ndd_buf_t *b, const ndd_link_t *l)
{
    uint64_t x[3] = {l->u, l->v, l->support};
    return ndd_put64s(b, x, 3);
}

/* Gives back a links array's unused capacity (shrinking realloc: in place). */
static void links_fit(ndd_links_t *l)
{
    ndd_link_t *v = l->v ? realloc(l->v, (l->n ? l->n : 1) * sizeof *v) : NULL;
    if (v) {
        l->v = v;
        l->cap = l->n ? l->n : 1;
    }
}

/* The received blocks, in source order, joined into one array of *n records
 * of rec bytes, consuming recv[]: the first block's memory is kept, grown
 * when it has no room for the others (ndd_grow_block: a large array is a new
 * block in huge pages, the first block copied and freed), and the others
 * appended and freed one by one, so the peak is the array plus one block,
 * not two copies of everything. The records are still in wire form; *out is
 * NULL on NDD_ERR_NOMEM (agreed across ranks). */
static int recv_join(run_t *r, ndd_buf_t *recv, size_t rec, char **out, size_t *n)
{
    size_t bytes = 0, at = 0;
    for (int s = 0; s < r->P; s++)
        bytes += recv[s].len - recv[s].len % rec;
    size_t room = recv[0].cap;
    char *a = ndd_buf_steal(&recv[0], &at);
    at -= at % rec;
    char *g = a && room < bytes ? ndd_grow_block(a, at, bytes) : a;
    if (!g)
        free(a);
    for (int s = 1; s < r->P; s++) {
        size_t len = recv[s].len - recv[s].len % rec;
        if (g && len)
            memcpy(g + at, recv[s].data, len);
        at += len;
        ndd_buf_free(&recv[s]);
    }
    *out = g;
    *n = bytes / rec;
    return ndd_comm_agree(r->comm, g ? NDD_OK : NDD_ERR_NOMEM);
}

/* from[s] = the number of postings rank s sends this one, given to[d],
 * those this one sends rank d (8 bytes between each pair of ranks). */
static int count_from(run_t *r, const uint64_t *to, uint64_t *from)
{
    ndd_buf_t *send = ndd_bufs_new(r->P), *recv = ndd_bufs_new(r->P);
    int rc = send && recv ? NDD_OK : NDD_ERR_NOMEM;
    for (int s = 0; s < r->P && !rc; s++)
        rc = ndd_put64s(&send[s], &to[s], 1);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange(r->comm, send, recv, NULL));
    for (int s = 0; s < r->P && !rc; s++)
        if (recv[s].len != 8)
            rc = NDD_ERR_INTERNAL;
        else
            from[s] = ndd_le64_load(recv[s].data);
    rc = ndd_comm_agree(r->comm, rc);
out:
    ndd_bufs_free(send, r->P);
    ndd_bufs_free(recv, r->P);
    return rc;
}

#define TOUCH_BITS 23 /* the filter of the touched keys: 2^23 bits (1 MiB), by the keys' top bits */

/* Which of this rank's old documents post differently than in the index
 * (signed again, or a follower before and not now, or the reverse), and
 * their postings before: the key table's keys and count, or none for a
 * follower. Made before the key table goes (keep_keys). *ok = 0 when one's
 * keys before are not in the table (then every list is built). */
typedef struct {
    uint8_t *chg;   /* [n] */
    uint64_t *off;  /* [n + 1]: the keys before keys[off[i] .. off[i + 1]) */
    uint32_t *w;    /* [n]: the weight before */
    uint64_t *keys;
    size_t nkeys, cap;
} changed_t;

/* A document's postings as shuffle 1 sends them: without c, all of them,
 * unflagged; in an index batch that builds only the touched lists
 * (changed_docs), a new document's flagged new, a changed one's before
 * (flagged old) and after (flagged new) apart, the others' unflagged and
 * only when the filter of the touched keys lets them through. */
typedef struct {
    uint64_t doc; /* with its flag */
    uint32_t weight;
    const uint64_t *k;
    size_t n;
    int filtered;
} pseg_t;

static size_t doc_segs(const run_t *r, const changed_t *c, size_t i, uint64_t nold, pseg_t *sg)
{
    const ndd_docs_t *d = &r->d;
    uint64_t g = r->first + i;
    const uint64_t *K = d->keys ? d->keys + d->key_off[i] : NULL;
    size_t nK = (size_t)(d->key_off[i + 1] - d->key_off[i]);
    if (!c) { /* every list built: every posting, unflagged */
        sg[0] = (pseg_t){g, d->weight[i], K, nK, 0};
        return 1;
    }
    if (g >= nold) {
        sg[0] = (pseg_t){g | NDD_POST_NEW, d->weight[i], K, nK, 0};
        return 1;
    }
    if (c->chg[i]) {
        sg[0] = (pseg_t){g | NDD_POST_OLD, c->w[i], c->keys + c->off[i], (size_t)(c->off[i + 1] - c->off[i]), 0};
        sg[1] = (pseg_t){g | NDD_POST_NEW, d->weight[i], K, nK, 0};
        return 2;
    }
    sg[0] = (pseg_t){g, d->weight[i], K, nK, 1};
    return 1;
}

/* Round `round` of `rounds` of a key: rounds cut the keys of every owner
 * into ranges of about equal size (keys are hashes). */
static unsigned key_round(uint64_t key, int P, unsigned rounds)
{
    return rounds == 1 ? 0 : (unsigned)((key / (uint64_t)P) % rounds);
}

/* Whether shuffle 1 sends the posting of key in segment sg this round. */
static inline int seg_passes(const uint64_t *filt, const pseg_t *sg, uint64_t key, int P, unsigned round,
                             unsigned rounds)
{
    uint64_t b = key >> (64 - TOUCH_BITS);
    return key_round(key, P, rounds) == round && (!sg->filtered || (int)(filt[b >> 6] >> (b & 63) & 1));
}

/* Shuffle 1 (one round of a key range): the postings doc_segs gives (key,
 * doc, site, url, weight) whose key is in the round to rank key % P, in
 * groups of a document's segment (ndd_pgroup_begin: its doc, site, URL hash
 * and weight once, not once a key: 8 bytes a posting and 20 a group,
 * instead of 24 a posting). The ranks first tell each other how many
 * postings they send, so that each makes its array of postings once, at
 * its final size, writes its own postings straight into it and expands the
 * others' groups into their places: sources in rank order, each sending its
 * documents in order, ranks holding increasing document ranges, so *post is
 * ordered by document (flags aside). c and filt: an index batch's touched
 * lists (doc_segs), else NULL. The keys are dropped after the last round. */
static int shuffle_postings(run_t *r, const changed_t *c, const uint64_t *filt, ndd_buf_t *send, ndd_buf_t *recv,
                            ndd_posting_t **post, size_t *np, unsigned round, unsigned rounds)
{
    ndd_docs_t *d = &r->d;
    const size_t P = (size_t)r->P, me = (size_t)r->me;
    uint64_t nold = c ? ndd_index_first_new(r) : 0;
    /* per destination: its postings, its bytes, the segment that has the
     * last group in its buffer (2i + q + 1; 0 none) and where that group's
     * key count is */
    uint64_t *to = calloc(P, sizeof *to), *from = calloc(P, sizeof *from);
    size_t *bytes = calloc(P, sizeof *bytes), *last = calloc(P, sizeof *last), *head = calloc(P, sizeof *head);
    ndd_posting_t *p = NULL;
    size_t n = 0, cap = 0, mine = 0;
    pseg_t sg[2];
    const ndd_fastmod_t fm = ndd_fastmod_init(P); /* key % P, once a key in each pass */
    int rc = to && from && bytes && last && head ? NDD_OK : NDD_ERR_NOMEM;
    *post = NULL;
    *np = 0;
    for (size_t i = 0; i < d->n && !rc; i++)
        for (size_t q = 0, nq = doc_segs(r, c, i, nold, sg); q < nq; q++)
            for (size_t k = 0; k < sg[q].n; k++) {
                if (!seg_passes(filt, &sg[q], sg[q].k[k], r->P, round, rounds))
                    continue;
                size_t s = (size_t)ndd_fastmod(&fm, sg[q].k[k]), id = 2 * i + q + 1;
                to[s]++;
                bytes[s] += 8 + (last[s] == id ? 0 : NDD_PGROUP_HEAD);
                last[s] = id;
            }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(count_from(r, to, from));
    for (size_t s = 0; s < P; s++) {
        n += from[s];
        mine += s < me ? from[s] : 0; /* where this rank's own postings go */
        last[s] = 0;
    }
    rc = ndd_array_grow((void **)&p, &cap, n ? n : 1, sizeof *p);
    for (size_t s = 0; s < P && !rc; s++) /* each buffer reserved at its final size: no regrowth */
        rc = s == me ? NDD_OK : ndd_buf_reserve(&send[s], bytes[s]);
    for (size_t i = 0; i < d->n && !rc; i++)
        for (size_t q = 0, nq = doc_segs(r, c, i, nold, sg); q < nq && !rc; q++)
            for (size_t k = 0; k < sg[q].n && !rc; k++) {
                uint64_t key = sg[q].k[k];
                if (!seg_passes(filt, &sg[q], key, r->P, round, rounds))
                    continue;
                size_t s = (size_t)ndd_fastmod(&fm, key), id = 2 * i + q + 1;
                uint16_t w = (uint16_t)sg[q].weight;
                if (s == me) {
                    p[mine++] = (ndd_posting_t){key, sg[q].doc, d->site[i], d->urlh[i], w};
                    continue;
                }
                if (last[s] != id) /* the segment's first key for s: its group's header */
                    rc = ndd_pgroup_begin(&send[s], sg[q].doc, d->site[i], d->urlh[i], w, &head[s]);
                last[s] = id;
                if (!rc)
                    rc = ndd_pgroup_add(&send[s], head[s], key);
            }
    if (round + 1 == rounds && !r->keys_kept)
        ndd_docs_drop_keys(d);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange_move(r->comm, send, recv, &r->c.shuffle1_bytes));
    uint64_t at = 0;
    for (size_t s = 0; s < P; s++) {
        if (s != me && !rc)
            rc = ndd_pgroups_decode(recv[s].data, recv[s].len, p + at, from[s]);
        ndd_buf_free(&recv[s]);
        at += from[s];
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    *post = p;
    *np = n;
    p = NULL;
out:
    free(p);
    free(to);
    free(from);
    free(bytes);
    free(last);
    free(head);
    return rc;
}

/* links l[0..n) into send[], each to the owner of its pair (ndd_link_dest),
 * each destination's buffer reserved at its final size. */
static int links_to_owners(run_t *r, const ndd_link_t *l, size_t n, ndd_buf_t *send)
{
    size_t *cnt = calloc((size_t)r->P, sizeof *cnt);
    int *dest = malloc((n ? n : 1) * sizeof *dest);
    int rc = cnt && dest ? NDD_OK : NDD_ERR_NOMEM;
    for (size_t e = 0; e < n && !rc; e++)
        cnt[dest[e] = ndd_link_dest(l[e].u, l[e].v, r->P)]++;
    for (int s = 0; s < r->P && !rc; s++)
        rc = ndd_buf_reserve(&send[s], cnt[s] * LINK_WIRE);
    for (size_t e = 0; e < n && !rc; e++)
        rc = link_put(&send[dest[e]], &l[e]);
    free(cnt);
    free(dest);
    return rc;
}

/* Keeps the links l[0..n) with a support of at least min, in order; returns their number. */
static size_t links_at_least(ndd_link_t *l, size_t n, uint64_t min)
{
    size_t kept = 0;
    for (size_t e = 0; e < n; e++)
        if (l[e].support >= min)
            l[kept++] = l[e];
    return kept;
}

/* The posting lists this rank owns -> links with their local support, sent
 * to the owner of each pair (XXH3 of the pair), and the dropped keys. Takes
 * *post and frees it as soon as the links are made; every scratch array is
 * freed as soon as its step is done (this stage holds the rank's peak). */
static int lists_to_links(run_t *r, ndd_posting_t **post, size_t np, ndd_buf_t *send, ndd_u64s_t *dropped)
{
    ndd_posting_t *p = *post;
    uint64_t *scratch = NULL;
    ndd_links_t links = {0};
    ndd_postings_params_t pp = r->cfg->postings;
    int rc = NDD_OK;
    pp.total_docs = r->starts[r->P];
    /* in place: a second array of postings here was the run's peak. post[]
     * is in document order and a posting's site, URL hash and weight are its
     * document's, so this is the order of a stable sort by key */
    ndd_postings_sort_inplace(p, np);
    size_t longest = 1; /* classify needs scratch for one list, the longest */
    for (size_t a = 0, b; a < np; a = b) {
        for (b = a + 1; b < np && p[b].key == p[a].key; b++)
            ;
        longest = b - a > longest ? b - a : longest;
    }
    scratch = malloc(longest * sizeof *scratch);
    NDD_TRY(!scratch ? NDD_ERR_NOMEM : ndd_sets_links_from_postings(p, np, &pp, scratch, &r->c, dropped, &links.n));
    free(scratch);
    scratch = NULL;
    links.v = (ndd_link_t *)(void *)p; /* the links replace the postings in their memory */
    links.cap = np ? np : 1;
    *post = NULL;
    links_fit(&links);
    rc = links_to_owners(r, links.v, ndd_sets_links_merge(links.v, links.n, 0, NULL), send);
out:
    free(scratch);
    free(links.v);
    return rc;
}

/* The links this rank owns, gathered over shuffle 1's rounds: an array in
 * memory (acc) and, once it outgrows its share of the budget, sorted runs
 * in a spill file (each merged: one entry per pair). */
typedef struct {
    ndd_links_t acc;
    size_t merged;       /* acc[0..merged) is one merged run already */
    ndd_spill_t spill;
    uint64_t *run_end;   /* the end offset of every run in the spill file */
    size_t nruns, runs_cap;
} link_acc_t;

/* A run in the spill file, read back in order (ndd_links_next_fn). */
typedef struct {
    ndd_spill_cur_t cur;
} link_run_t;

static int link_run_next(void *run, ndd_link_t *l)
{
    link_run_t *lr = run;
    const void *p;
    int got = ndd_spill_cur_next(&lr->cur, LINK_WIRE, &p);
    if (got == 1) {
        uint64_t x[3];
        ndd_load64s(x, p, 3);
        *l = (ndd_link_t){x[0], x[1], x[2]};
    }
    return got;
}

/* The in-memory links as one run at the end of the spill file. */
static int acc_spill(run_t *r, link_acc_t *a)
{
    int rc = NDD_OK;
    a->acc.n = ndd_sets_links_merge(a->acc.v, a->acc.n, 0, NULL);
    if (!a->nruns && (rc = ndd_spill_open(&a->spill, r->wd, "links", r->me))) {
        ndd_run_log(r, 0, "cannot create the spill file %s: %s", a->spill.path, ndd_spill_error(&a->spill));
        return rc;
    }
    if ((rc = ndd_array_grow((void **)&a->run_end, &a->runs_cap, a->nruns + 1, sizeof *a->run_end)))
        return rc;
    for (size_t e = 0; e < a->acc.n && !rc; e += 4096) { /* little-endian records, 96 KiB at a time */
        char buf[4096 * LINK_WIRE];
        size_t m = a->acc.n - e < 4096 ? a->acc.n - e : 4096;
        for (size_t k = 0; k < m; k++) {
            const ndd_link_t *l = &a->acc.v[e + k];
            uint64_t x[3] = {l->u, l->v, l->support};
            for (int q = 0; q < 3; q++)
                ndd_le64_store(buf + LINK_WIRE * k + 8 * q, x[q]);
        }
        rc = ndd_spill_write(&a->spill, buf, m * LINK_WIRE, NULL);
    }
    r->c.spill_links += a->acc.n * LINK_WIRE;
    a->run_end[a->nruns++] = a->spill.len;
    a->acc.n = a->merged = 0;
    if (rc)
        ndd_run_log(r, 0, "cannot write the spill file %s: %s", a->spill.path, ndd_spill_error(&a->spill));
    return rc;
}

/* One round's received links joined to the accumulated ones; when they
 * outgrow their room they are merged (equal pairs summed), and spilled as a
 * sorted run if that is not enough. */
static int acc_add(run_t *r, link_acc_t *a, ndd_buf_t *recv)
{
    size_t nl = 0;
    char *w = NULL;
    int rc = recv_join(r, recv, LINK_WIRE, &w, &nl);
    if (rc)
        return rc;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (!a->acc.n) { /* the wire records are the structs: the block becomes the array */
        free(a->acc.v);
        a->acc = (ndd_links_t){(ndd_link_t *)(void *)w, nl, nl ? nl : 1};
        w = NULL;
        nl = 0;
    }
#endif
    rc = ndd_array_grow((void **)&a->acc.v, &a->acc.cap, a->acc.n + nl, sizeof *a->acc.v);
    for (size_t k = 0; k < nl && !rc; k++) { /* decoded (a plain copy on a little-endian host) */
        uint64_t x[3];
        ndd_load64s(x, w + LINK_WIRE * k, 3);
        a->acc.v[a->acc.n++] = (ndd_link_t){x[0], x[1], x[2]};
    }
    free(w);
    uint64_t room = ndd_budget_room(r) / 2;
    if (!rc && (a->acc.n - a->merged) * sizeof(ndd_link_t) > room) {
        a->acc.n = a->merged = ndd_sets_links_merge(a->acc.v, a->acc.n, 0, NULL);
        if (a->acc.n * sizeof(ndd_link_t) > room)
            rc = acc_spill(r, a);
    }
    return ndd_comm_agree(r->comm, rc);
}

static int links_store(run_t *r, const ndd_link_t *t, size_t n, const ndd_u64s_t *dropped);

/* Global support of every link at its owner; keeps those with at least
 * min_link_sigs supporting signatures: merged in memory, or from the sorted
 * runs in the spill file (the same links). With store (this rank's dropped
 * keys), when no rank spilled, the links of every pair, before the filter,
 * go to the index with the list counters and store (links_store; a batch
 * that spilled keeps no links, and the next one builds every list).
 * Collective. */
static int acc_finish(run_t *r, link_acc_t *a, const ndd_u64s_t *store)
{
    uint64_t ndistinct = 0, all_in_memory = !a->nruns;
    int rc = store ? ndd_comm_allreduce(r->comm, &all_in_memory, 1, NDD_TY_U64, NDD_RED_MIN) : NDD_OK;
    if (rc)
        return rc;
    if (store && all_in_memory) { /* an index batch: every pair's support goes to the index first */
        r->links = a->acc;
        a->acc = (ndd_links_t){0};
        r->links.n = ndd_sets_links_merge(r->links.v, r->links.n, 0, &ndistinct);
        rc = links_store(r, r->links.v, r->links.n, store);
        r->links.n = links_at_least(r->links.v, r->links.n, r->cfg->min_link_sigs);
    } else if (!a->nruns) {
        r->links = a->acc;
        a->acc = (ndd_links_t){0};
        r->links.n = ndd_sets_links_merge(r->links.v, r->links.n, r->cfg->min_link_sigs, &ndistinct);
    } else {
        link_run_t *runs = NULL;
        void **rp = NULL;
        if (a->acc.n)
            rc = acc_spill(r, a);
        free(a->acc.v);
        a->acc = (ndd_links_t){0};
        ndd_mem_release();
        runs = calloc(a->nruns, sizeof *runs);
        rp = calloc(a->nruns, sizeof *rp);
        rc = rc ? rc : !runs || !rp ? NDD_ERR_NOMEM : NDD_OK;
        for (size_t k = 0; k < a->nruns && !rc; k++) {
            ndd_spill_cur_init(&runs[k].cur, &a->spill, k ? a->run_end[k - 1] : 0, a->run_end[k]);
            rp[k] = &runs[k];
        }
        if (!rc)
            rc = ndd_sets_links_merge_runs(link_run_next, rp, a->nruns, r->cfg->min_link_sigs, &r->links, &ndistinct);
        for (size_t k = 0; runs && k < a->nruns; k++)
            ndd_spill_cur_free(&runs[k].cur);
        free(runs);
        free(rp);
    }
    if (!rc) {
        links_fit(&r->links);
        r->c.links_all += ndistinct;
        r->c.edges = r->links.n;
    }
    return ndd_comm_agree(r->comm, rc);
}

static void acc_free(link_acc_t *a)
{
    free(a->acc.v);
    free(a->run_end);
    if (a->nruns)
        ndd_spill_close(&a->spill);
}

/* Every rank learns every dropped key (the verifiers ignore them). */
static int share_dropped(run_t *r, const ndd_u64s_t *mine)
{
    ndd_buf_t w = NDD_BUF_INIT, all = NDD_BUF_INIT;
    int rc = ndd_comm_agree(r->comm, ndd_put64s(&w, mine->v, mine->n));
    if (rc || (rc = ndd_comm_allgather(r->comm, w.data ? w.data : "", w.len, &all, NULL)))
        goto out;
    r->ndropped = all.len / 8;
    r->dropped = malloc((r->ndropped ? r->ndropped : 1) * sizeof *r->dropped);
    NDD_TRY(ndd_comm_agree(r->comm, r->dropped ? NDD_OK : NDD_ERR_NOMEM));
    ndd_load64s(r->dropped, all.data, r->ndropped);
    r->ndropped = ndd_u64_sort_unique(r->dropped, r->ndropped); /* each key has one owner: no repeats */
out:
    ndd_buf_free(&w);
    ndd_buf_free(&all);
    return rc;
}

/* Whether the documents' keys stay after shuffle 1, to travel with their
 * texts in shuffle 2 (the set's rank then need not sign every member
 * again): sentence signatures (not the baselines' keys, and not with LSI,
 * whose LSH keys are in d->keys too) in one round of shuffle 1, with room in
 * the memory budget for them (8 bytes a key) beside the round's postings
 * (48), on every rank. */
static int keep_keys(run_t *r, unsigned rounds)
{
    uint64_t ok = rounds == 1 && !r->cfg->candidates && !NDD_VERIFIER_HAS_LSI(r->cfg->verifier) && !r->texts_spilled &&
                  r->d.key_off && ndd_budget_rss(r) + 56 * (uint64_t)r->d.nkeys <= r->budget;
    int rc = ndd_comm_allreduce(r->comm, &ok, 1, NDD_TY_U64, NDD_RED_MIN);
    r->keys_kept = !rc && ok;
    if (r->keys_kept) /* the template pass is over and shuffle 2 carries the keys */
        ndd_index_keys_release(r);
    return rc;
}

/* ---- an index batch's postings (docs/index.md "Postings") ----
 * A link's support is a sum over the posting lists. The postings stage of
 * an index batch keeps in the index the links of every pair (before
 * --min-link) with the list counters and dropped keys, and the exact-pass
 * followers; the next batch rebuilds only the lists it changes - those that
 * hold a key of a new document, or of an old document whose postings
 * changed (its stripped text changed and it was signed again, or it became
 * an exact-pass follower, which posts nothing, or stopped being one) - and
 * adds their links after minus before (ndd_sets_links_diff). */

/* Whether this run's links go to the index: an index batch with the
 * postings in one round (a memory budget's rounds would need the table in
 * pieces) whose lists depend on the lists alone (max_share 0: the frequent
 * rule does not look at the corpus size), with sentence signatures. */
static int links_kept(const run_t *r, unsigned rounds)
{
    return r->ix && rounds == 1 && r->cfg->postings.max_share == 0 && !r->cfg->candidates &&
           !NDD_VERIFIER_HAS_LSI(r->cfg->verifier);
}

/* This rank's links (every pair, support > 0), list counters, dropped keys
 * and followers into the batch's links file. */
static int links_store(run_t *r, const ndd_link_t *t, size_t n, const ndd_u64s_t *dropped)
{
    ndd_linkstate_t st = {.ndocs = r->starts[r->P], .links = (ndd_link_t *)t, .nlinks = n};
    uint64_t *dv = malloc((dropped->n ? dropped->n : 1) * sizeof *dv);
    uint64_t *fol = malloc((r->d.n ? r->d.n : 1) * sizeof *fol);
    int rc = dv && fol ? NDD_OK : NDD_ERR_NOMEM;
    if (!rc) {
        if (dropped->n)
            memcpy(dv, dropped->v, dropped->n * sizeof *dv);
        st.ndropped = dropped->n ? ndd_u64_sort_unique(dv, dropped->n) : 0;
        st.dropped = dv;
        for (size_t i = 0; i < r->d.n; i++)
            if (ndd_exact_is_follower(r, i))
                fol[st.nfol++] = r->first + i;
        st.fol = fol;
        ndd_list_counts_get(&r->c, &st.counts);
    }
    rc = ndd_comm_agree(r->comm, rc);
    if (!rc)
        rc = ndd_index_links_write(r, &st);
    free(dv);
    free(fol);
    return rc;
}

static void changed_free(changed_t *c)
{
    free(c->chg);
    free(c->off);
    free(c->w);
    free(c->keys);
}

static int changed_docs(run_t *r, const ndd_linkstate_t *st, changed_t *c, uint64_t *ok)
{
    const ndd_docs_t *d = &r->d;
    uint64_t nold = ndd_index_first_new(r);
    c->chg = calloc(d->n + 1, 1);
    c->off = calloc(d->n + 1, sizeof *c->off);
    c->w = calloc(d->n + 1, sizeof *c->w);
    if (!c->chg || !c->off || !c->w)
        return NDD_ERR_NOMEM;
    for (size_t i = 0, f = 0; i < d->n; i++) {
        uint64_t g = r->first + i;
        c->off[i + 1] = c->nkeys;
        if (g >= nold)
            continue;
        while (f < st->nfol && st->fol[f] < g) /* (both increasing) */
            f++;
        size_t nk = 0;
        int again = 0, was = f < st->nfol && st->fol[f] == g, is = ndd_exact_is_follower(r, i);
        const uint64_t *k = ndd_index_keys_raw(r, g, &nk, &again);
        if (!again && was == is)
            continue;
        c->chg[i] = 1;
        if (was)
            continue; /* it posted nothing */
        if (!k) {
            *ok = 0;
            continue;
        }
        int rc = ndd_array_grow((void **)&c->keys, &c->cap, c->nkeys + nk + 1, sizeof *c->keys);
        if (rc)
            return rc;
        memcpy(c->keys + c->nkeys, k, nk * sizeof *k);
        c->nkeys += nk;
        c->w[i] = (uint32_t)nk;
        c->off[i + 1] = c->nkeys;
    }
    return NDD_OK;
}

/* The filter of the touched keys: every rank's new and changed postings'
 * keys (each rank's sorted and unique, gathered), a bit each. */
static int touch_filter(run_t *r, const changed_t *c, uint64_t **filt)
{
    const ndd_docs_t *d = &r->d;
    uint64_t nold = ndd_index_first_new(r);
    ndd_u64s_t mine = {0};
    ndd_buf_t w = NDD_BUF_INIT, all = NDD_BUF_INIT;
    pseg_t sg[2];
    int rc = NDD_OK;
    for (size_t i = 0; i < d->n && !rc; i++)
        for (size_t q = 0, nq = doc_segs(r, c, i, nold, sg); q < nq && !rc; q++)
            if (!sg[q].filtered && sg[q].n &&
                !(rc = ndd_array_grow((void **)&mine.v, &mine.cap, mine.n + sg[q].n, sizeof *mine.v))) {
                memcpy(mine.v + mine.n, sg[q].k, sg[q].n * sizeof *sg[q].k);
                mine.n += sg[q].n;
            }
    if (!rc && mine.n)
        mine.n = ndd_u64_sort_unique(mine.v, mine.n);
    rc = rc ? rc : ndd_put64s(&w, mine.v, mine.n);
    free(mine.v);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_allgather(r->comm, w.data ? w.data : "", w.len, &all, NULL));
    *filt = calloc((size_t)1 << (TOUCH_BITS - 6), sizeof **filt);
    NDD_TRY(ndd_comm_agree(r->comm, *filt ? NDD_OK : NDD_ERR_NOMEM));
    for (size_t k = 0; k < all.len / 8; k++) {
        uint64_t b = ndd_le64_load(all.data + 8 * k) >> (64 - TOUCH_BITS);
        (*filt)[b >> 6] |= 1ULL << (b & 63);
    }
out:
    ndd_buf_free(&w);
    ndd_buf_free(&all);
    return rc;
}

/* The touched lists' links after minus before, summed at the owners of the
 * pairs, added to the index's: r->links (and the index's links for the next
 * batch); *dropped: this rank's dropped keys. */
static int postings_touched(run_t *r, const changed_t *c, ndd_linkstate_t *st, ndd_buf_t *send, ndd_buf_t *recv,
                            ndd_u64s_t *dropped)
{
    uint64_t *filt = NULL;
    ndd_posting_t *p = NULL;
    ndd_links_t diff = {0}, all = {0};
    ndd_u64s_t touched = {0}, now_dropped = {0};
    ndd_list_counts_t dc = {0};
    size_t np = 0;
    int rc = NDD_OK;
    double t0 = ndd_now();
    NDD_TRY(touch_filter(r, c, &filt));
    NDD_TRY(shuffle_postings(r, c, filt, send, recv, &p, &np, 0, 1));
    free(filt);
    filt = NULL;
    r->t[NDD_ST_SHUFFLE1] += ndd_now() - t0;
    ndd_stage_rss(r, NDD_ST_SHUFFLE1);
    t0 = ndd_now();
    ndd_postings_params_t pp = r->cfg->postings;
    pp.total_docs = r->starts[r->P];
    ndd_postings_sort_inplace(p, np);
    rc = ndd_sets_links_diff(p, np, &pp, &diff, &dc, &touched, &now_dropped);
    free(p);
    p = NULL;
    r->c.ix_lists_touched += touched.n;
    /* dropped: the index's that the batch did not touch (touched: increasing),
     * and the touched ones dropped now */
    for (size_t k = 0; k < st->ndropped && !rc; k++) {
        size_t t = ndd_u64_lower_bound(touched.v, touched.n, st->dropped[k]);
        if ((t == touched.n || touched.v[t] != st->dropped[k]) &&
            !(rc = ndd_array_grow((void **)&dropped->v, &dropped->cap, dropped->n + 1, sizeof *dropped->v)))
            dropped->v[dropped->n++] = st->dropped[k];
    }
    if (!rc && now_dropped.n &&
        !(rc = ndd_array_grow((void **)&dropped->v, &dropped->cap, dropped->n + now_dropped.n, sizeof *dropped->v))) {
        memcpy(dropped->v + dropped->n, now_dropped.v, now_dropped.n * sizeof *dropped->v);
        dropped->n += now_dropped.n;
    }
    /* the differences to the owners of their pairs, summed there */
    if (!rc)
        rc = links_to_owners(r, diff.v, ndd_sets_links_merge(diff.v, diff.n, 0, NULL), send);
    free(diff.v);
    diff = (ndd_links_t){0};
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange_move(r->comm, send, recv, &r->c.shuffle1_bytes));
    char *w = NULL;
    NDD_TRY(recv_join(r, recv, LINK_WIRE, &w, &diff.n));
    diff.cap = diff.n ? diff.n : 1;
    diff.v = (ndd_link_t *)(void *)w; /* the wire records are the structs on a little-endian host */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    for (size_t e = 0; e < diff.n; e++) {
        uint64_t x[3];
        ndd_load64s(x, w + LINK_WIRE * e, 3);
        diff.v[e] = (ndd_link_t){x[0], x[1], x[2]};
    }
#endif
    diff.n = ndd_sets_links_merge(diff.v, diff.n, 0, NULL);
    rc = ndd_sets_links_apply(st->links, st->nlinks, diff.v, diff.n, &all);
    if (rc == NDD_ERR_INTERNAL)
        ndd_run_log(r, 0, "--index %s: the index's links and this batch's do not add up (a link below 0)",
                    r->cfg->index_dir);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    free(diff.v);
    diff = (ndd_links_t){0};
    ndd_list_counts_add(&r->c, &st->counts);
    ndd_list_counts_add(&r->c, &dc);
    NDD_TRY(links_store(r, all.v, all.n, dropped));
    r->c.links_all += all.n;
    all.n = links_at_least(all.v, all.n, r->cfg->min_link_sigs);
    r->links = all;
    all = (ndd_links_t){0};
    links_fit(&r->links);
    r->c.edges = r->links.n;
    r->t[NDD_ST_POSTINGS] += ndd_now() - t0;
out:
    free(filt);
    free(p);
    free(diff.v);
    free(all.v);
    free(touched.v);
    free(now_dropped.v);
    return rc;
}

/* An index batch whose links go to the index: with the last batch's links
 * (ndd_index_links_load), only the touched lists (*done = 1); else (the
 * first batch, a batch that kept none, an old document's keys not known)
 * the caller builds every list. keep_keys is decided here, after the key
 * table has given the changed documents' keys before. */
static int postings_indexed(run_t *r, unsigned rounds, ndd_buf_t *send, ndd_buf_t *recv, ndd_u64s_t *dropped,
                            int *done)
{
    ndd_linkstate_t st;
    changed_t c = {0};
    int have = 0;
    double t0 = ndd_now();
    *done = 0;
    int rc = ndd_index_links_load(r, &st, &have);
    uint64_t ok = (uint64_t)have;
    if (!rc && have)
        rc = ndd_comm_agree(r->comm, changed_docs(r, &st, &c, &ok));
    r->t[NDD_ST_POSTINGS] += ndd_now() - t0;
    if (!rc)
        rc = keep_keys(r, rounds);
    if (!rc)
        rc = ndd_comm_allreduce(r->comm, &ok, 1, NDD_TY_U64, NDD_RED_MIN);
    if (!rc && have && !ok && r->me == 0)
        ndd_run_log(r, 0, "--index %s: an old document's keys are not in the index: every posting list is built",
                    r->cfg->index_dir);
    if (!rc && ok) {
        rc = postings_touched(r, &c, &st, send, recv, dropped);
        if (!rc && r->me == 0)
            r->c.ix_links_incremental = 1;
        *done = 1;
    }
    changed_free(&c);
    ndd_linkstate_free(&st);
    return rc;
}

int ndd_stage_postings(run_t *r)
{
    ndd_buf_t *send = ndd_bufs_new(r->P), *recv = ndd_bufs_new(r->P);
    ndd_posting_t *post = NULL;
    ndd_u64s_t dropped = {0};
    link_acc_t acc = {.spill = NDD_SPILL_INIT};
    size_t np = 0;
    unsigned rounds = 1;
    double t0 = ndd_now();
    int rc = ndd_comm_agree(r->comm, !send || !recv ? NDD_ERR_NOMEM : NDD_OK);
    if (rc)
        goto out;
    NDD_TRY(ndd_budget_postings(r, &rounds));
    if (r->ix)
        NDD_TRY(ndd_index_links_clear(r));
    int indexed = links_kept(r, rounds), done = 0;
    if (indexed) {
        NDD_TRY(postings_indexed(r, rounds, send, recv, &dropped, &done));
        if (done) {
            t0 = ndd_now();
            NDD_TRY(share_dropped(r, &dropped));
            r->t[NDD_ST_POSTINGS] += ndd_now() - t0;
            ndd_stage_rss(r, NDD_ST_POSTINGS);
            goto out;
        }
    } else {
        NDD_TRY(keep_keys(r, rounds));
    }
    /* the memory budget's rounds: each key range's lists are complete in its
     * round, and a link's support is summed over all (acc_finish) */
    for (unsigned round = 0; round < rounds; round++) {
        t0 = ndd_now();
        NDD_TRY(shuffle_postings(r, NULL, NULL, send, recv, &post, &np, round, rounds));
        r->t[NDD_ST_SHUFFLE1] += ndd_now() - t0;
        ndd_stage_rss(r, NDD_ST_SHUFFLE1);
        t0 = ndd_now();
        rc = lists_to_links(r, &post, np, send, &dropped);
        NDD_TRY(ndd_comm_agree(r->comm, rc));
        NDD_TRY(ndd_comm_exchange_move(r->comm, send, recv, &r->c.shuffle1_bytes));
        NDD_TRY(acc_add(r, &acc, recv));
        r->t[NDD_ST_POSTINGS] += ndd_now() - t0;
        if (round + 1 < rounds)
            ndd_stage_rss(r, NDD_ST_POSTINGS);
    }
    t0 = ndd_now();
    NDD_TRY(acc_finish(r, &acc, indexed ? &dropped : NULL));
    NDD_TRY(share_dropped(r, &dropped));
    r->t[NDD_ST_POSTINGS] += ndd_now() - t0;
    ndd_stage_rss(r, NDD_ST_POSTINGS);
out:
    ndd_bufs_free(send, r->P);
    ndd_bufs_free(recv, r->P);
    free(post);
    free(dropped.v);
    acc_free(&acc);
    return rc;
}

/* ------------------------------------------------------------------ */
/* perhaps-similar sets = connected components                        */

int ndd_request_by_owner(run_t *r, const uint64_t *ids, size_t n, ndd_answer_fn fn, uint64_t *reply)
{
    int P = r->P, rc = NDD_OK;
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    NDD_TRY(ndd_comm_agree(r->comm, !send || !recv ? NDD_ERR_NOMEM : NDD_OK));
    for (size_t i = 0; i < n && !rc; i++)
        rc = ndd_put64(&send[ndd_part_owner_of(r->starts, P, ids[i])], ids[i]);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange(r->comm, send, recv, NULL));
    /* answer in place, send back; owners hold contiguous ranges and ids are
     * sorted, so the answers come back in the order asked */
    for (int s = 0; s < P; s++)
        for (size_t k = 0; k < recv[s].len / 8; k++)
            ndd_le64_store(recv[s].data + 8 * k, fn(r, ndd_le64_load(recv[s].data + 8 * k)));
    NDD_TRY(ndd_comm_exchange(r->comm, recv, send, NULL));
    size_t at = 0;
    for (int s = 0; s < P; s++) {
        ndd_load64s(reply + at, send[s].data, send[s].len / 8);
        at += send[s].len / 8;
    }
out:
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    return rc;
}

static uint64_t answer_label(run_t *r, uint64_t g)
{
    size_t i = (size_t)(g - r->first);
    r->in_set[i] = 1;
    return r->label[i];
}

static uint64_t answer_size(run_t *r, uint64_t g) { return r->size_of[g - r->first]; }

/* Pushes decreased labels to their owners; *changed = whether any local label decreased. */
static int push_labels(run_t *r, const ndd_cc_local_t *cc, const uint64_t *lab, const uint64_t *newlab,
                       ndd_buf_t *send, ndd_buf_t *recv, uint64_t *changed)
{
    int rc = NDD_OK;
    for (int s = 0; s < r->P; s++)
        ndd_buf_clear(&send[s]);
    for (size_t i = 0; i < cc->n && !rc; i++)
        if (newlab[i] < lab[i]) {
            uint64_t upd[2] = {cc->ends[i], newlab[i]};
            rc = ndd_put64s(&send[ndd_part_owner_of(r->starts, r->P, cc->ends[i])], upd, 2);
        }
    if ((rc = ndd_comm_agree(r->comm, rc)) || (rc = ndd_comm_exchange(r->comm, send, recv, NULL)))
        return rc;
    *changed = 0;
    for (int s = 0; s < r->P; s++)
        for (size_t k = 0; k < recv[s].len / 16; k++) {
            uint64_t u[2];
            ndd_load64s(u, recv[s].data + 16 * k, 2);
            size_t i = (size_t)(u[0] - r->first);
            if (u[1] < r->label[i]) {
                r->label[i] = u[1];
                *changed = 1;
            }
        }
    return NDD_OK;
}

/* Label rounds until no rank changes a label: labels converge to the
 * smallest document number of each component. */
static int components(run_t *r)
{
    ndd_cc_local_t cc = {0};
    ndd_buf_t *send = ndd_bufs_new(r->P), *recv = ndd_bufs_new(r->P);
    uint64_t *lab = NULL, *newlab = NULL;
    for (size_t i = 0; i < r->d.n; i++) {
        r->label[i] = r->first + i;
        r->in_set[i] = 0;
    }
    int rc = !send || !recv ? NDD_ERR_NOMEM : ndd_cc_local_init(&cc, r->links.v, r->links.n);
    if (!rc) {
        lab = malloc((cc.n ? cc.n : 1) * sizeof *lab);
        newlab = malloc((cc.n ? cc.n : 1) * sizeof *newlab);
        rc = !lab || !newlab ? NDD_ERR_NOMEM : NDD_OK;
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    for (;;) {
        uint64_t changed = 0;
        r->cc_rounds++;
        NDD_TRY(ndd_request_by_owner(r, cc.ends, cc.n, answer_label, lab));
        ndd_cc_local_step(&cc, lab, newlab);
        NDD_TRY(push_labels(r, &cc, lab, newlab, send, recv, &changed));
        NDD_TRY(ndd_comm_allreduce(r->comm, &changed, 1, NDD_TY_U64, NDD_RED_MAX));
        if (!changed)
            break;
    }
out:
    ndd_cc_local_free(&cc);
    ndd_bufs_free(send, r->P);
    ndd_bufs_free(recv, r->P);
    free(lab);
    free(newlab);
    return rc;
}

static int put_setsizes(ndd_buf_t *b, const ndd_setsize_t *v, size_t n)
{
    int rc = NDD_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        uint64_t x[2] = {v[i].label, v[i].size};
        rc = ndd_put64s(b, x, 2);
    }
    return rc;
}

/* Concatenation of the (label, size) records of bufs[0..P) into *v. */
static int get_setsizes(ndd_buf_t *bufs, int P, ndd_setsize_t **v, size_t *n)
{
    size_t m = 0, at = 0;
    for (int s = 0; s < P; s++)
        m += bufs[s].len / 16;
    *v = malloc((m ? m : 1) * sizeof **v);
    if (!*v)
        return NDD_ERR_NOMEM;
    for (int s = 0; s < P; s++)
        for (size_t k = 0; k < bufs[s].len / 16; k++) {
            uint64_t x[2];
            ndd_load64s(x, bufs[s].data + 16 * k, 2);
            (*v)[at++] = (ndd_setsize_t){x[0], x[1]};
        }
    *n = m;
    return NDD_OK;
}

/* Set sizes: the owner of each label sums the counts (r->owned); every
 * local document in a set learns its set's size (r->size_of). *largest =
 * the largest set of all ranks. */
static int set_sizes(run_t *r, uint64_t *largest)
{
    int P = r->P, rc = NDD_OK;
    ndd_docs_t *d = &r->d;
    ndd_setsize_t *mine = malloc((d->n ? d->n : 1) * sizeof *mine), *ans = NULL;
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    size_t nm = 0, na = 0;
    NDD_TRY(ndd_comm_agree(r->comm, !mine || !send || !recv ? NDD_ERR_NOMEM : NDD_OK));
    for (size_t i = 0; i < d->n; i++)
        if (r->in_set[i])
            mine[nm++] = (ndd_setsize_t){r->label[i], 1};
    nm = ndd_setsizes_merge(mine, nm);
    for (size_t i = 0; i < nm && !rc; i++)
        rc = put_setsizes(&send[ndd_part_owner_of(r->starts, P, mine[i].label)], &mine[i], 1);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange(r->comm, send, recv, NULL));
    free(r->owned);
    r->owned = NULL;
    NDD_TRY(ndd_comm_agree(r->comm, get_setsizes(recv, P, &r->owned, &r->nowned)));
    r->nowned = ndd_setsizes_merge(r->owned, r->nowned);
    *largest = 0;
    for (size_t i = 0; i < r->nowned; i++)
        if (r->owned[i].size > *largest)
            *largest = r->owned[i].size;
    NDD_TRY(ndd_comm_allreduce(r->comm, largest, 1, NDD_TY_U64, NDD_RED_MAX));
    /* answer every source with the sizes of the labels it asked about, in
     * order; owners are monotone in label, so the answers come back sorted */
    for (int s = 0; s < P; s++)
        for (size_t k = 0; k < recv[s].len / 16; k++) {
            uint64_t label = ndd_le64_load(recv[s].data + 16 * k);
            ndd_le64_store(recv[s].data + 16 * k + 8, ndd_setsizes_find(r->owned, r->nowned, label));
        }
    NDD_TRY(ndd_comm_exchange(r->comm, recv, send, NULL));
    NDD_TRY(ndd_comm_agree(r->comm, get_setsizes(send, P, &ans, &na)));
    for (size_t i = 0; i < d->n; i++)
        r->size_of[i] = r->in_set[i] ? ndd_setsizes_find(ans, na, r->label[i]) : 1;
out:
    free(mine);
    free(ans);
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    return rc;
}

typedef struct {
    run_t *r;
    ndd_buf_t *send;
} node_ctx_t;

static int on_guarded_node(void *user, uint64_t node, uint64_t root, uint64_t size)
{
    node_ctx_t *x = user;
    uint64_t upd[3] = {node, root, size};
    return ndd_put64s(&x->send[ndd_part_owner_of(x->r->starts, x->r->P, node)], upd, 3);
}

/* The links of giant sets, tagged with their set's label, to the label's owner. */
static int route_giant_links(run_t *r, ndd_buf_t *send)
{
    ndd_u64s_t ends = {0};
    uint64_t *info = NULL;
    size_t nu = 0;
    int rc = ndd_array_grow((void **)&ends.v, &ends.cap, r->links.n + 1, sizeof *ends.v);
    for (size_t e = 0; e < r->links.n && !rc; e++)
        ends.v[nu++] = r->links.v[e].u;
    nu = ndd_u64_sort_unique(ends.v, nu);
    if (!rc && !(info = malloc((2 * nu + 1) * sizeof *info)))
        rc = NDD_ERR_NOMEM;
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    /* label and set size of every link's first end (both ends share both) */
    NDD_TRY(ndd_request_by_owner(r, ends.v, nu, answer_label, info));
    NDD_TRY(ndd_request_by_owner(r, ends.v, nu, answer_size, info + nu));
    for (size_t e = 0; e < r->links.n && !rc; e++) {
        const ndd_link_t *l = &r->links.v[e];
        size_t iu = ndd_u64_lower_bound(ends.v, nu, l->u); /* l->u is one of the ends */
        if (info[nu + iu] < r->cfg->giant_set)
            continue;
        uint64_t g[4] = {info[iu], l->u, l->v, l->support};
        rc = ndd_put64s(&send[ndd_part_owner_of(r->starts, r->P, g[0])], g, 4);
    }
    rc = ndd_comm_agree(r->comm, rc);
out:
    free(ends.v);
    free(info);
    return rc;
}

/* Giant-set guard: every giant set is split at the owner of its label by
 * size-capped single linkage (ndd_sets_capped_linkage); its nodes learn
 * their new set and whether they are still in one. */
static int split_giant_sets(run_t *r)
{
    int P = r->P, rc = NDD_OK;
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    ndd_glink_t *gl = NULL;
    size_t ng = 0;
    NDD_TRY(ndd_comm_agree(r->comm, !send || !recv ? NDD_ERR_NOMEM : NDD_OK));
    NDD_TRY(route_giant_links(r, send));
    free(r->links.v); /* routed: nothing later reads this rank's links */
    memset(&r->links, 0, sizeof r->links);
    NDD_TRY(ndd_comm_exchange_move(r->comm, send, recv, NULL));
    /* joined as received (the wire records are the structs on a
     * little-endian host): one copy of the set's links, not two */
    char *w = NULL;
    NDD_TRY(recv_join(r, recv, GLINK_WIRE, &w, &ng));
    gl = (ndd_glink_t *)(void *)w;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    for (size_t k = 0; k < ng; k++) { /* decoded in place, record by record */
        uint64_t x[4];
        ndd_load64s(x, w + GLINK_WIRE * k, 4);
        gl[k] = (ndd_glink_t){x[0], x[1], x[2], x[3]};
    }
#endif
    node_ctx_t ctx = {r, send};
    rc = ndd_sets_capped_linkage(gl, ng, r->cfg->giant_set, NDD_GIANT_SMALL, on_guarded_node, &ctx,
                                 &r->c.links_cut_giant, &r->c.giant_sets_split);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange(r->comm, send, recv, NULL));
    for (int s = 0; s < P; s++)
        for (size_t k = 0; k < recv[s].len / 24; k++) {
            uint64_t q[3];
            ndd_load64s(q, recv[s].data + 24 * k, 3);
            size_t i = (size_t)(q[0] - r->first);
            r->label[i] = q[1];
            r->in_set[i] = q[2] > 1; /* a node left alone is no longer in a set */
        }
out:
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    free(gl);
    return rc;
}

/* Perhaps-similar sets: connected components of the links, then the giant-
 * set guard when a set holds giant_set documents or more. On return
 * r->label, r->in_set, r->size_of and r->owned describe the sets. */
int ndd_stage_components(run_t *r)
{
    size_t n = r->d.n ? r->d.n : 1;
    double t0 = ndd_now();
    uint64_t largest = 0;
    r->label = malloc(n * sizeof *r->label);
    r->size_of = malloc(n * sizeof *r->size_of);
    r->in_set = calloc(n, 1);
    int rc = ndd_comm_agree(r->comm, !r->label || !r->size_of || !r->in_set ? NDD_ERR_NOMEM : NDD_OK);
    if (rc)
        goto out;
    NDD_TRY(components(r));
    NDD_TRY(set_sizes(r, &largest));
    if (largest >= r->cfg->giant_set && r->cfg->giant_guard) {
        NDD_TRY(split_giant_sets(r));
        NDD_TRY(set_sizes(r, &largest));
    }
out:
    free(r->links.v);
    memset(&r->links, 0, sizeof r->links);
    r->t[NDD_ST_CC] = ndd_now() - t0;
    ndd_stage_rss(r, NDD_ST_CC);
    return rc;
}
