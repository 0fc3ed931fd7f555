/* run_verify.c - paper 002's steps 2-3 as stage drivers: sets placed on
 * ranks (hash for small sets, LPT for big ones), shuffle 2 (zstd-compressed
 * texts to each set's rank), verification set by set (candidate pairs,
 * schedule, clusters: src/sets), and the output rows sent to the rank that
 * writes them (the owner of their first document). */
#include "run_internal.h"
#include "ndd_wire.h"

#include <string.h>
#include <xxhash.h>
#include <zstd.h>

/* Set statistics (the owner of each label counts it), the big sets, and
 * small[d] += the sizes of the small sets hashed to rank d. */
static int count_sets(run_t *r, ndd_buf_t *big, uint64_t *small)
{
    int rc = NDD_OK;
    for (size_t i = 0; i < r->nowned && !rc; i++) {
        uint64_t sz = r->owned[i].size;
        r->c.sets++;
        r->c.docs_in_sets += sz;
        int b = 0;
        while (b + 1 < NDD_HIST_N && (sz >> (b + 1)) > 0)
            b++;
        r->c.hist[b]++;
        if (sz >= r->cfg->giant_set) {
            r->c.giant_sets++;
            r->c.docs_in_giant_sets += sz;
        }
        if (sz >= r->cfg->big_set) {
            uint64_t x[2] = {r->owned[i].label, sz};
            rc = ndd_put64s(big, x, 2);
        } else {
            small[ndd_part_hash_dest(r->owned[i].label, r->P)] += sz;
        }
    }
    return rc;
}

static int cmp_dest(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b; /* (label, dest) by label */
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Destination rank of every local document in a set: sets smaller than
 * big_set by a hash of their label; big sets by LPT over all ranks (cost =
 * size, as candidate pairs are bounded per member), from the loads the small
 * sets hashed to each rank already give it (without them a rank could get
 * its share of the big sets on top of more than its share of small ones). */
static int place_sets(run_t *r, uint32_t *dest_of)
{
    ndd_buf_t big = NDD_BUF_INIT, all = NDD_BUF_INIT;
    ndd_setsize_t *sets = NULL;
    uint32_t *dest = NULL;
    uint64_t *bydest = NULL, *small = calloc((size_t)r->P, sizeof *small);
    int rc = ndd_comm_agree(r->comm, !small ? NDD_ERR_NOMEM : count_sets(r, &big, small));
    if (rc || (rc = ndd_comm_allreduce(r->comm, small, (size_t)r->P, NDD_TY_U64, NDD_RED_SUM)) ||
        (rc = ndd_comm_allgather(r->comm, big.data ? big.data : "", big.len, &all, NULL)))
        goto out;
    size_t n = all.len / 16;
    sets = malloc((n ? n : 1) * sizeof *sets);
    dest = malloc((n ? n : 1) * sizeof *dest);
    bydest = malloc((n ? n : 1) * 2 * sizeof *bydest);
    NDD_TRY(ndd_comm_agree(r->comm, !sets || !dest || !bydest ? NDD_ERR_NOMEM : NDD_OK));
    for (size_t i = 0; i < n; i++) {
        uint64_t x[2];
        ndd_load64s(x, all.data + 16 * i, 2);
        sets[i] = (ndd_setsize_t){x[0], x[1]};
    }
    ndd_part_lpt(sets, n, r->P, small, dest);
    for (size_t i = 0; i < n; i++) {
        bydest[2 * i] = sets[i].label;
        bydest[2 * i + 1] = dest[i];
    }
    ndd_qsort(bydest, n, 2 * sizeof *bydest, cmp_dest);
    for (size_t i = 0; i < r->d.n; i++) {
        if (!r->in_set[i])
            continue;
        dest_of[i] = ndd_part_hash_dest(r->label[i], r->P);
        if (r->size_of[i] >= r->cfg->big_set) {
            uint64_t key[2] = {r->label[i], 0};
            const uint64_t *hit = bsearch(key, bydest, n, 2 * sizeof *bydest, cmp_dest);
            if (hit)
                dest_of[i] = (uint32_t)hit[1];
        }
    }
out:
    ndd_buf_free(&big);
    ndd_buf_free(&all);
    free(small);
    free(sets);
    free(dest);
    free(bydest);
    return rc;
}

typedef struct {
    uint64_t label, g;
    uint32_t dest, i;
} order_t;

static int cmp_order(const void *a, const void *b)
{
    const order_t *x = a, *y = b;
    if (x->dest != y->dest)
        return x->dest < y->dest ? -1 : 1;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->g < y->g ? -1 : x->g > y->g;
}

#define ORDER_LABEL(x) ((x).label)
#define ORDER_DEST(x) ((uint64_t)(x).dest)

/* Sorts ord[0..n) by (dest, label, g). ord is in increasing g already, so a
 * stable radix sort on label, then on dest, gives that order; small arrays
 * (or no scratch memory) take qsort. */
static void sort_order(order_t *ord, size_t n, int P)
{
    uint64_t maxl = 0;
    for (size_t k = 0; k < n; k++)
        maxl = ord[k].label > maxl ? ord[k].label : maxl;
    size_t *count;
    order_t *tmp = ndd_radix_scratch(n >= 1024, n, sizeof *tmp, &count);
    if (!tmp) {
        ndd_qsort(ord, n, sizeof *ord, cmp_order);
        return;
    }
    order_t *src = ord, *dst = tmp;
    for (unsigned shift = 0; shift < 64 && (maxl >> shift); shift += 16)
        NDD_RADIX_PASS(order_t, src, dst, n, count, shift, ORDER_LABEL);
    for (unsigned shift = 0; shift < 32 && ((uint64_t)(P - 1) >> shift); shift += 16)
        NDD_RADIX_PASS(order_t, src, dst, n, count, shift, ORDER_DEST);
    ndd_radix_done(ord, src, n, sizeof *ord, tmp, count);
}

/* A sealed block's head: the raw length, with this bit when the bytes after
 * it are the raw records (a rank of the same node) instead of a zstd frame. */
#define SEAL_STORED ((uint64_t)1 << 63)

/* One destination's records, ready to send: a rank on another node gets one
 * zstd frame after a u64 raw length, a rank of this node the records as they
 * are after the length with SEAL_STORED (its bytes cross no network:
 * compressing them only cost time, 0.1 s of the 2-rank bench-run: raw then
 * begins with 8 bytes left for the head); this rank's own block never crosses
 * the transport (ndd_comm_exchange_move) and is moved as it is. raw is freed. */
static int seal_block(ZSTD_CCtx *cctx, ndd_buf_t *raw, ndd_buf_t *out, int self, int near)
{
    ndd_buf_free(out);
    if (self || !raw->len) {
        *out = *raw;
        *raw = (ndd_buf_t)NDD_BUF_INIT;
        return NDD_OK;
    }
    if (near) { /* shuffle_texts left 8 bytes for the head */
        ndd_le64_store(raw->data, (uint64_t)(raw->len - 8) | SEAL_STORED);
        *out = *raw;
        *raw = (ndd_buf_t)NDD_BUF_INIT;
        return NDD_OK;
    }
    size_t bound = ZSTD_compressBound(raw->len);
    int rc = ndd_buf_reserve(out, bound + 8);
    if (!rc) {
        ndd_le64_store(out->data, raw->len);
        size_t z = ZSTD_compress2(cctx, out->data + 8, bound, raw->data, raw->len);
        if (ZSTD_isError(z))
            rc = NDD_ERR_COMPRESS;
        else
            out->len = 8 + z;
    }
    ndd_buf_free(raw);
    return rc;
}

/* One received block into *out, *in freed: another rank's decompressed or
 * taken from after its head (seal_block), this rank's own (self) taken as
 * it is. */
static int unseal_block(ndd_buf_t *in, ndd_buf_t *out, int self)
{
    ndd_buf_free(out);
    if (self || !in->len) {
        *out = *in;
        *in = (ndd_buf_t)NDD_BUF_INIT;
        return NDD_OK;
    }
    if (in->len < 8)
        return NDD_ERR_FORMAT;
    uint64_t head = ndd_le64_load(in->data), rawlen = head & ~SEAL_STORED;
    if (head & SEAL_STORED) { /* the records after the head: moved down, the buffer kept */
        if (rawlen != in->len - 8)
            return NDD_ERR_FORMAT;
        memmove(in->data, in->data + 8, (size_t)rawlen);
        in->len = (size_t)rawlen;
        in->data[in->len] = '\0';
        *out = *in;
        *in = (ndd_buf_t)NDD_BUF_INIT;
        return NDD_OK;
    }
    if (rawlen > SIZE_MAX - 1)
        return NDD_ERR_FORMAT;
    int rc = ndd_buf_reserve(out, (size_t)rawlen);
    if (rc)
        return rc;
    size_t z = ZSTD_decompress(out->data, (size_t)rawlen, in->data + 8, in->len - 8);
    if (ZSTD_isError(z) || z != rawlen)
        return NDD_ERR_COMPRESS;
    out->len = z;
    ndd_buf_free(in);
    return NDD_OK;
}

/* Every received block in[0..P) into out[] (unseal_block). */
static int unseal_blocks(ndd_buf_t *in, ndd_buf_t *out, int P, int me)
{
    int rc = NDD_OK;
    for (int s = 0; s < P && !rc; s++)
        rc = unseal_block(&in[s], &out[s], s == me);
    return rc;
}

/* The raw bytes of the received blocks in[0..P) (sealed by seal_block). */
static uint64_t received_raw(const ndd_buf_t *in, int P, int me)
{
    uint64_t raw = 0;
    for (int s = 0; s < P; s++)
        raw += s == me || in[s].len < 8 ? in[s].len : ndd_le64_load(in[s].data) & ~SEAL_STORED;
    return raw;
}

static int key_dropped(const run_t *r, uint64_t key)
{
    size_t i = ndd_u64_lower_bound(r->dropped, r->ndropped, key);
    return i < r->ndropped && r->dropped[i] == key;
}

/* Document i's keys without the dropped ones into *kept (grown), for its
 * shuffle-2 record h. */
static int kept_keys(const run_t *r, size_t i, uint64_t **kept, size_t *cap, ndd_docrec_t *h)
{
    const ndd_docs_t *d = &r->d;
    uint64_t ka = d->key_off[i], ke = d->key_off[i + 1];
    if (!r->ndropped) { /* none dropped (the usual case): the keys as they are, not copied */
        h->nkeys = (uint32_t)(ke - ka);
        h->keys = d->keys + ka;
        return NDD_OK;
    }
    int rc = ndd_array_grow((void **)kept, cap, (size_t)(ke - ka) + 1, sizeof **kept);
    h->nkeys = 0;
    for (uint64_t q = ka; q < ke && !rc; q++)
        if (!key_dropped(r, d->keys[q]))
            (*kept)[h->nkeys++] = d->keys[q];
    h->keys = *kept;
    return rc;
}

/* Shuffle 2: the documents of every set to the set's rank, ordered by
 * (label, g) within each destination; z receives the plain records by source.
 * Each destination's block is reserved at its exact size and sealed as soon as
 * it is complete, and the rank's texts are freed once all are in the blocks
 * (nothing after this stage reads them): the peak is the texts plus one
 * block, then the blocks. *spill: the received blocks are left sealed in
 * raw[] (they would not fit in the memory budget unpacked). */
static int shuffle_texts(run_t *r, const uint32_t *dest_of, ndd_buf_t *raw, ndd_buf_t *z, int *spill)
{
    ndd_docs_t *d = &r->d;
    size_t nord = 0;
    ndd_buf_t spilled = NDD_BUF_INIT; /* a text read back from the spill file */
    uint64_t *kept = NULL; /* a document's keys without the dropped ones (r->keys_kept) */
    size_t kept_cap = 0;
    order_t *ord = malloc((d->n ? d->n : 1) * sizeof *ord);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    int rc = ndd_comm_agree(r->comm, ord && cctx ? NDD_OK : NDD_ERR_NOMEM);
    if (rc)
        goto out;
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    for (size_t i = 0; i < d->n; i++)
        if (r->in_set[i])
            ord[nord++] = (order_t){r->label[i], r->first + i, dest_of[i], (uint32_t)i};
    sort_order(ord, nord, r->P);
    for (size_t a = 0, b; a < nord && !rc; a = b) {
        uint32_t dest = ord[a].dest;
        size_t bytes = 0;
        int self = dest == (uint32_t)r->me, near = !self && ndd_comm_near(r->comm, (int)dest);
        /* the keys go to ranks of this node only: across nodes their bytes
         * (random, they do not compress) cost more than signing again; in an
         * index batch they go everywhere (the key table is what spares the
         * signing of old documents, and it keeps each rank's own only) */
        int with_keys = r->keys_kept && (self || near || r->ix);
        for (b = a; b < nord && ord[b].dest == dest; b++) {
            size_t i = ord[b].i;
            int fol = ndd_exact_is_follower(r, i); /* travels without its text */
            ndd_docrec_t h = {.rep = fol ? 0 : UINT64_MAX,
                              .idlen = (uint32_t)strlen(ndd_docs_id(d, i)),
                              .urllen = (uint32_t)strlen(ndd_docs_url(d, i)),
                              .textlen = fol ? 0 : d->text_len[i]};
            if (with_keys && !fol) /* at most these keys (the dropped ones are left out below) */
                h.nkeys = (uint32_t)(d->key_off[i + 1] - d->key_off[i]);
            bytes += ndd_docrec_size(&h); /* (a representative only for a follower, as put below) */
        }
        rc = ndd_buf_reserve(&raw[dest], bytes + 8);
        if (!rc && near)
            rc = ndd_buf_append(&raw[dest], "\0\0\0\0\0\0\0\0", 8); /* seal_block's head */
        size_t start = raw[dest].len;
        for (size_t k = a; k < b && !rc; k++) {
            size_t i = ord[k].i;
            const char *id = ndd_docs_id(d, i), *url = ndd_docs_url(d, i), *text = "";
            int fol = ndd_exact_is_follower(r, i);
            if (!fol && (rc = ndd_budget_text(r, i, &spilled, &text))) /* from memory or the spill file */
                break;
            ndd_docrec_t h = {.g = r->first + i,
                              .label = r->label[i],
                              .rep = fol ? r->exact_rep[i] : UINT64_MAX,
                              .id = id,
                              .url = url,
                              .text = text,
                              .idlen = (uint32_t)strlen(id),
                              .urllen = (uint32_t)strlen(url),
                              .textlen = fol ? 0 : d->text_len[i]};
            /* its candidate keys: the receiver need not sign the text again */
            if (with_keys && !fol && (rc = kept_keys(r, i, &kept, &kept_cap, &h)))
                break;
            rc = ndd_docrec_put(&raw[dest], &h);
        }
        if (!self && !rc)
            r->c.shuffle2_raw_bytes += raw[dest].len - start;
        if (!rc)
            rc = seal_block(cctx, &raw[dest], &z[dest], self, near);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    ndd_docs_drop_texts(d);
    ndd_docs_drop_keys(d); /* (kept until here only when r->keys_kept) */
    r->keys_kept = 0;
    if (r->texts_spilled) {
        ndd_spill_close(&r->text_spill);
        r->texts_spilled = 0;
    }
    NDD_TRY(ndd_comm_exchange_move(r->comm, z, raw, &r->c.shuffle2_bytes));
    /* received: raw[] sealed; unsealed into z[] unless they would not fit in
     * three quarters of the budget (the rest for the rows verification
     * makes): then verify_sets_spilled takes them from raw[] */
    *spill = ndd_budget_rss(r) + received_raw(raw, r->P, r->me) > r->budget / 4 * 3;
    rc = ndd_comm_agree(r->comm, *spill ? NDD_OK : unseal_blocks(raw, z, r->P, r->me));
out:
    ZSTD_freeCCtx(cctx);
    free(ord);
    free(kept);
    ndd_buf_free(&spilled);
    return rc;
}

/* ------------------------------------------------------------------ */

/* The verification workspace of one rank: reused set after set. */
typedef struct {
    run_t *r;
    ndd_verifier_t *vf;
    ndd_sig_ctx_t *sig;
    ndd_sig_t *sigs;
    ndd_cand_ws_t *cws;
    ndd_buf_t line;
    ndd_buf_t *send[3]; /* rows to their writers: pairs, clusters, scores */
    const ndd_docrec_t *m; /* the current set's members: the verified ones, then the exact followers */
    ndd_docrec_t *mm;      /* m when the set has followers */
    uint32_t *fol_rep;     /* each follower's representative (an index into m) */
    size_t mm_cap, fr_cap;
    uint64_t *keys;
    size_t keys_cap, *off, off_cap, tl_cap, tl_cap2;
    const char **texts;
    size_t *lens;
    uint64_t *hash;     /* --index: XXH3-64 of each verified member's text */
    size_t hash_cap;
    const float **fps;  /* LSI: each verified member's fingerprint and SimHash */
    uint64_t *sims;
    size_t fp_cap, sim_cap;
    ndd_cand_t *lc;     /* --verifier lsi: the set's pairs by fingerprint cosine */
    struct lsi_pair *lp;
    size_t lc_cap, lp_cap;
    /* a set verified in blocks (its texts beyond the memory budget): the
     * members' texts are read from the spill file sp when a pair needs them
     * (hook_load) and the least recently used are dropped beyond `limit`
     * bytes; NULL sp: every text is in memory */
    const ndd_spill_t *sp;
    char **tbuf;        /* each member's loaded text (NULL: not loaded) */
    uint64_t *tused, clock;
    size_t tb_cap, tu_cap, cached, limit, nlazy;
} vws_t;

static int emit(vws_t *w, int table, uint64_t k1, uint64_t k2)
{
    run_t *r = w->r;
    return ndd_row_put(&w->send[table][ndd_part_owner_of(r->starts, r->P, k1)], k1, k2, w->line.data,
                       w->line.len);
}

static int hook_pair(void *user, uint32_t i, uint32_t j, ndd_vres_t *v)
{
    vws_t *w = user;
    int rc = w->r->ix ? ndd_index_pair(w->r, w->vf, i, j, w->m[i].g, w->m[j].g, w->hash[i], w->hash[j], v) /* --index */
                      : ndd_verifier_pair(w->vf, i, j, v);
    if (!rc && v->conceptual && v->duplicate)
        w->r->c.lsi_accepted++;
    if (!rc && (w->r->cfg->verifier == NDD_VERIFIER_TLCS || w->r->cfg->verifier == NDD_VERIFIER_TLCS_LSI) &&
        v->sketched) {
        w->r->c.sketch_pairs++;
        w->r->c.strain_away_micro += (uint64_t)(v->strain_away * 1e6 + 0.5);
    } else if (!rc && (w->r->cfg->verifier == NDD_VERIFIER_TLCS || w->r->cfg->verifier == NDD_VERIFIER_TLCS_LSI)) {
        w->r->c.pairs_pruned_anchors++; /* also counted in pairs_pruned_bound */
    }
    return rc;
}

static void hook_identical(void *user, uint32_t i, uint32_t j, ndd_vres_t *v)
{
    vws_t *w = user;
    ndd_verifier_identical(w->vf, w->m[i].textlen, v);
}

static int hook_scored(void *user, uint32_t i, uint32_t j, const ndd_vres_t *v)
{
    vws_t *w = user;
    const ndd_docrec_t *a = &w->m[i], *b = &w->m[j];
    ndd_verifier_kind_t k = w->r->cfg->verifier;
    ndd_cols_t cols = k == NDD_VERIFIER_TLCS || k == NDD_VERIFIER_TLCS_LSI ? NDD_COLS_TLCS
                      : k == NDD_VERIFIER_SIGNCD                           ? NDD_COLS_SIGNCD
                                                                           : NDD_COLS_SCORE;
    /* the combined verifier names the rule that accepted the pair */
    const char *vname = k != NDD_VERIFIER_TLCS_LSI || !v->duplicate ? ndd_verifier_name(w->vf)
                        : v->conceptual                           ? "lsi"
                                                                  : "tlcs";
    int rc = ndd_rows_fmt_pair(&w->line, cols, a->id, a->idlen, b->id, b->idlen, vname, v);
    size_t base = w->line.len;
    if (rc || (rc = ndd_buf_puts(&w->line, v->duplicate ? "\t1" : "\t0")) ||
        (rc = ndd_rows_fmt_urls(&w->line, a->url, a->urllen, b->url, b->urllen)) ||
        (rc = emit(w, NDD_ROWS_SCORES, a->g, b->g)) || !v->duplicate)
        return rc;
    w->line.len = base; /* the same row without the accepted flag */
    if ((rc = ndd_rows_fmt_urls(&w->line, a->url, a->urllen, b->url, b->urllen)))
        return rc;
    return emit(w, NDD_ROWS_PAIRS, a->g, b->g);
}

static int hook_member(void *user, uint32_t i, uint32_t root, int kept)
{
    vws_t *w = user;
    const ndd_docrec_t *m = &w->m[i], *c = &w->m[root];
    ndd_buf_clear(&w->line);
    int rc = ndd_rows_fmt_cluster(&w->line, m->id, m->idlen, c->id, c->idlen, kept, m->url, m->urllen);
    return rc ? rc : emit(w, NDD_ROWS_CLUSTERS, m->g, (uint64_t)kept);
}

/* A set in blocks: member i's text in memory (read from the spill file). */
static int text_load(vws_t *w, uint32_t i)
{
    const ndd_docrec_t *m = &w->m[i];
    w->tused[i] = ++w->clock;
    if (!m->textlen)
        w->texts[i] = ""; /* never NULL for the kernels */
    if (w->tbuf[i] || !m->textlen)
        return NDD_OK;
    if (!(w->tbuf[i] = malloc((size_t)m->textlen + 1)))
        return NDD_ERR_NOMEM;
    int rc = ndd_spill_read(w->sp, m->text_at, w->tbuf[i], m->textlen);
    if (rc) {
        free(w->tbuf[i]);
        w->tbuf[i] = NULL;
        return rc;
    }
    w->tbuf[i][m->textlen] = '\0';
    w->texts[i] = w->tbuf[i];
    w->cached += m->textlen;
    return NDD_OK;
}

/* Drops the least recently used texts (never i or j) until the loaded
 * ones fit in w->limit. */
static void text_evict(vws_t *w, size_t n, uint32_t i, uint32_t j)
{
    while (w->cached > w->limit) {
        size_t best = n;
        for (size_t k = 0; k < n; k++)
            if (w->tbuf[k] && k != i && k != j && (best == n || w->tused[k] < w->tused[best]))
                best = k;
        if (best == n)
            return;
        w->cached -= w->m[best].textlen;
        free(w->tbuf[best]);
        w->tbuf[best] = NULL;
        w->texts[best] = NULL;
    }
}

static int hook_load(void *user, uint32_t i, uint32_t j)
{
    vws_t *w = user;
    int rc = text_load(w, i);
    if (!rc)
        rc = text_load(w, j);
    text_evict(w, w->nlazy, i, j);
    return rc;
}

/* Frees the loaded texts of a set verified in blocks. */
static void texts_unload(vws_t *w)
{
    for (size_t k = 0; k < w->nlazy; k++) {
        free(w->tbuf[k]);
        w->tbuf[k] = NULL;
    }
    w->cached = 0;
    w->nlazy = 0;
}

/* Each member's candidate keys, without the globally dropped ones. */
static int member_keys(vws_t *w, const ndd_docrec_t *m, size_t n)
{
    run_t *r = w->r;
    size_t nk = 0;
    int rc = ndd_array_grow((void **)&w->off, &w->off_cap, n + 1, sizeof *w->off);
    if (rc || (rc = ndd_array_grow((void **)&w->texts, &w->tl_cap, n, sizeof *w->texts)) ||
        (rc = ndd_array_grow((void **)&w->lens, &w->tl_cap2, n, sizeof *w->lens)) ||
        (r->ix && (rc = ndd_array_grow((void **)&w->hash, &w->hash_cap, n, sizeof *w->hash))))
        return rc;
    w->off[0] = 0;
    if (w->sp) { /* a set in blocks: texts loaded as needed (hook_load) */
        if ((rc = ndd_array_grow((void **)&w->tbuf, &w->tb_cap, n, sizeof *w->tbuf)) ||
            (rc = ndd_array_grow((void **)&w->tused, &w->tu_cap, n, sizeof *w->tused)))
            return rc;
        memset(w->tbuf, 0, n * sizeof *w->tbuf);
        w->nlazy = n;
        for (size_t i = 0; i < n; i++)
            w->texts[i] = NULL;
    }
    for (size_t i = 0; i < n; i++) {
        size_t nsig = 0, nsent = 0;
        const uint64_t *mk = NULL;
        const char *text = m[i].text;
        if (w->sp && (rc = hook_load(w, (uint32_t)i, (uint32_t)i)))
            return rc;
        if (w->sp)
            text = w->texts[i] ? w->texts[i] : "";
        if (r->ix) /* --index: the text's hash keys the verdicts and the index's signature keys */
            w->hash[i] = XXH3_64bits(text, m[i].textlen);
        if (m[i].keys_le) { /* sent with the text, the dropped keys left out already */
            if ((rc = ndd_array_grow((void **)&w->keys, &w->keys_cap, nk + m[i].nkeys, sizeof *w->keys)))
                return rc;
            for (size_t s = 0; s < m[i].nkeys; s++)
                w->keys[nk++] = ndd_docrec_key(&m[i], s);
        } else {
            if (r->cfg->candidates)
                rc = ndd_method_keys(r->mctx, (ndd_method_t)r->cfg->candidates, text, m[i].textlen, &mk, &nsig);
            else if (!(mk = ndd_index_keys(r, m[i].g, r->ix ? w->hash[i] : 0, &nsig)))
                rc = ndd_sig_doc(w->sig, text, m[i].textlen, w->sigs, &nsig, &nsent);
            if (rc || (rc = ndd_array_grow((void **)&w->keys, &w->keys_cap, nk + nsig, sizeof *w->keys)))
                return rc;
            for (size_t s = 0; s < nsig; s++) {
                uint64_t k = mk ? mk[s] : ndd_sig_key(&w->sigs[s]);
                if (!key_dropped(r, k))
                    w->keys[nk++] = k;
            }
        }
        if (NDD_VERIFIER_HAS_LSI(r->cfg->verifier)) { /* the fingerprint's LSH keys (run_lsi.c) */
            uint64_t sim = 0, lk[256];
            size_t nl = 0;
            const float *fp = ndd_lsi_find(r, m[i].g, &sim);
            if ((rc = ndd_array_grow((void **)&w->fps, &w->fp_cap, i + 1, sizeof *w->fps)) ||
                (rc = ndd_array_grow((void **)&w->sims, &w->sim_cap, i + 1, sizeof *w->sims)))
                return rc;
            w->fps[i] = fp;
            w->sims[i] = sim;
            ndd_lsi_add_keys(r, fp, lk, &nl);
            if ((rc = ndd_array_grow((void **)&w->keys, &w->keys_cap, nk + nl, sizeof *w->keys)))
                return rc;
            for (size_t s = 0; s < nl; s++)
                if (!key_dropped(r, lk[s]))
                    w->keys[nk++] = lk[s];
        }
        w->off[i + 1] = nk;
        if (!w->sp)
            w->texts[i] = m[i].text;
        w->lens[i] = m[i].textlen;
    }
    return NDD_OK;
}

static int cmp_rec_g(const void *key, const void *elem)
{
    uint64_t g = *(const uint64_t *)key, h = ((const ndd_docrec_t *)elem)->g;
    return g < h ? -1 : g > h;
}

/* --verifier lsi: inside a set of at most --giant members, the candidate
 * pairs are every pair whose fingerprints' cosine reaches th4 (brute force:
 * n^2/2 cosines of k floats, no text), strongest first, then (i, j). */
typedef struct lsi_pair {
    double cos;
    uint32_t i, j;
} lsi_pair_t;

static int cmp_lsi_pair(const void *a, const void *b)
{
    const lsi_pair_t *x = a, *y = b;
    if (x->cos != y->cos)
        return x->cos > y->cos ? -1 : 1;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

static int lsi_candidates(vws_t *w, size_t n, const ndd_cand_t **out, size_t *nout)
{
    run_t *r = w->r;
    size_t nc = 0;
    int rc = NDD_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!w->fps[i])
            continue;
        for (size_t j = i + 1; j < n && !rc; j++) {
            if (!w->fps[j])
                continue;
            double c = ndd_lsi_cosine(w->fps[i], w->fps[j], r->lsi_k);
            if (c < r->cfg->lsi.th4)
                continue;
            if (!(rc = ndd_array_grow((void **)&w->lp, &w->lp_cap, nc + 1, sizeof *w->lp)))
                w->lp[nc++] = (lsi_pair_t){c, (uint32_t)i, (uint32_t)j};
        }
    }
    if (rc || (rc = ndd_array_grow((void **)&w->lc, &w->lc_cap, nc + 1, sizeof *w->lc)))
        return rc;
    ndd_qsort(w->lp, nc, sizeof *w->lp, cmp_lsi_pair);
    for (size_t q = 0; q < nc; q++)
        w->lc[q] = (ndd_cand_t){w->lp[q].i, w->lp[q].j, 0};
    *out = w->lc;
    *nout = nc;
    return NDD_OK;
}

/* Puts the verified members of m[0..n) first (in order), then the exact
 * followers with their representatives' indices; *nreal = verified ones. */
static int split_followers(vws_t *w, const ndd_docrec_t *m, size_t n, size_t *nreal, size_t *nf)
{
    size_t a = 0, f = 0;
    for (size_t i = 0; i < n; i++)
        f += m[i].rep != UINT64_MAX;
    *nreal = n - f;
    *nf = f;
    w->m = m;
    if (!f)
        return NDD_OK;
    int rc = ndd_array_grow((void **)&w->mm, &w->mm_cap, n, sizeof *w->mm);
    if (rc || (rc = ndd_array_grow((void **)&w->fol_rep, &w->fr_cap, f, sizeof *w->fol_rep)))
        return rc;
    f = *nreal;
    for (size_t i = 0; i < n; i++)
        w->mm[m[i].rep != UINT64_MAX ? f++ : a++] = m[i];
    for (size_t k = 0; k < *nf; k++) { /* the representative is in the same set (ndd_stage_exact_attach) */
        const ndd_docrec_t *rep = bsearch(&w->mm[*nreal + k].rep, w->mm, *nreal, sizeof *w->mm, cmp_rec_g);
        if (!rep)
            return NDD_ERR_INTERNAL;
        w->fol_rep[k] = (uint32_t)(rep - w->mm);
    }
    w->m = w->mm;
    return NDD_OK;
}

/* One perhaps-similar set m[0..n) (sorted by document number), with the
 * exact followers of its members. */
static int verify_set(vws_t *w, const ndd_docrec_t *m, size_t n)
{
    run_t *r = w->r;
    const ndd_cand_t *cand = NULL;
    size_t nc = 0, nreal, nf;
    int rc = split_followers(w, m, n, &nreal, &nf);
    if (rc)
        return rc;
    if (nreal >= 2) /* (a set made of one text and its exact copies is no perhaps-similar set) */
        ndd_topsets_note(&r->top, nreal, w->m[0].label, w->m[0].id, w->m[0].idlen);
    if ((rc = member_keys(w, w->m, nreal)))
        return rc;
    if (nreal >= 2 && r->cfg->verifier == NDD_VERIFIER_LSI && nreal <= r->cfg->giant_set)
        rc = lsi_candidates(w, nreal, &cand, &nc);
    else if (nreal >= 2)
        rc = ndd_cand_select(w->cws, &r->cfg->cand, nreal, w->keys, w->off, &cand, &nc);
    if (rc)
        return rc;
    r->c.cand_pairs += nc;
    r->c.verify_work += nc + nf;
    if ((rc = ndd_verifier_set_begin(w->vf, nreal, w->texts, w->lens)))
        return rc;
    if (NDD_VERIFIER_HAS_LSI(r->cfg->verifier))
        ndd_verifier_set_lsi(w->vf, w->fps, w->sims, r->lsi_k);
    ndd_set_hooks_t hooks = {w, hook_pair, hook_identical, hook_scored, hook_member, w->sp ? hook_load : NULL};
    return ndd_set_verify(cand, nc, nreal, w->texts, w->lens, w->fol_rep, nf, r->cfg->verify_all,
                          r->cfg->keep == NDD_KEEP_LONGEST, &hooks, &r->c);
}

static int cmp_member(const void *a, const void *b)
{
    const ndd_docrec_t *x = a, *y = b;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->g < y->g ? -1 : x->g > y->g;
}

static void vws_free(vws_t *w)
{
    ndd_verifier_free(w->vf);
    ndd_sig_ctx_free(w->sig);
    free(w->sigs);
    ndd_cand_ws_free(w->cws);
    ndd_buf_free(&w->line);
    free(w->mm);
    free(w->fol_rep);
    free(w->keys);
    free(w->off);
    free(w->texts);
    free(w->lens);
    free(w->hash);
    free(w->fps);
    free(w->sims);
    free(w->lc);
    free(w->lp);
    texts_unload(w);
    free(w->tbuf);
    free(w->tused);
}

/* mem[0..nm) holds P runs, each ordered by (label, g) (every source sent its
 * records in that order; run s is mem[start[s] .. start[s+1])): merges them
 * into (label, g) order. A few runs are merged by a linear scan for the
 * smallest head, many sorted. */
static int merge_runs(ndd_docrec_t **mem, size_t nm, const size_t *start, int P)
{
    int nonempty = 0;
    for (int s = 0; s < P; s++)
        nonempty += start[s + 1] > start[s];
    if (nonempty <= 1)
        return NDD_OK;
    if (P > 16) {
        ndd_qsort(*mem, nm, sizeof **mem, cmp_member);
        return NDD_OK;
    }
    ndd_docrec_t *out = malloc(nm * sizeof *out);
    size_t head[17];
    if (!out)
        return NDD_ERR_NOMEM;
    for (int s = 0; s < P; s++)
        head[s] = start[s];
    for (size_t k = 0; k < nm; k++) {
        int best = -1;
        for (int s = 0; s < P; s++)
            if (head[s] < start[s + 1] && (best < 0 || cmp_member(&(*mem)[head[s]], &(*mem)[head[best]]) < 0))
                best = s;
        out[k] = (*mem)[head[best]++];
    }
    free(*mem);
    *mem = out;
    return NDD_OK;
}

static int vws_init(vws_t *w)
{
    run_t *r = w->r;
    int rc = ndd_verifier_create(&w->vf, r->cfg, r->dfs, r->ndfs);
    if (!rc && !(rc = ndd_sig_ctx_create(&w->sig, &r->cfg->sig)) && !(rc = ndd_cand_ws_create(&w->cws)))
        rc = (w->sigs = malloc(NDD_SIG_MAX * sizeof *w->sigs)) ? NDD_OK : NDD_ERR_NOMEM;
    return rc;
}

/* ---- the last sets shared out ----
 * Sets go to ranks by size (place_sets), but a set's time per member varies
 * by about 20 % (candidate pairs, the pairs that need Myers) and a rank can
 * be slowed by other work on its machine: the first rank done used to wait
 * 0.07-0.18 s of 2.2 for the other (the bench-run corpus, 2 ranks). So each
 * rank verifies its sets largest first and, from its last 1/SHARE_TAIL of
 * members on (its smallest sets), says so in a non-blocking allreduce and
 * goes on set by set until every rank has said it. Then the sets not yet
 * verified are shared out by size: every rank gathers their sizes and makes
 * the same plan (a rank above the mean gives its smallest sets to the least
 * loaded one while that lowers the larger of the two), and the moved sets'
 * records go to their new ranks. Where a set is verified changes no output:
 * its rows go to their writers by document, its counters are summed (only
 * verify.work_max_rank and work_min_rank, which measure the distribution,
 * and shuffle_bytes.shuffle3_rows, the rows that cross ranks, depend on
 * it). Only where a set's verification reads nothing but its
 * records and the run's settings: TLCS or SigNCD without --index or
 * baseline candidates, and without progress reports (those are
 * non-blocking allreduces of their own, started by time). For tests,
 * NDD_SHARE_ALL=1 in the environment moves every set, each to the next
 * rank. */
#define SHARE_TAIL 4
#define SHARE_MAX_RANKS 256 /* (the plan scans the ranks once a moved set) */

typedef struct {
    size_t a, b; /* members mem[a..b) */
} vset_t;

static int can_share(const run_t *r)
{
    const ndd_comm_ops_t *o = r->comm->ops;
    const ndd_verifier_kind_t k = r->cfg->verifier;
    return r->P > 1 && r->P <= SHARE_MAX_RANKS && o->iallreduce_start && o->iallreduce_test &&
           o->iallreduce_wait && r->cfg->progress <= 0 && !r->ix && !r->cfg->candidates &&
           (k == NDD_VERIFIER_TLCS || k == NDD_VERIFIER_SIGNCD);
}

static int cmp_vset(const void *x, const void *y)
{
    const vset_t *a = x, *b = y;
    size_t na = a->b - a->a, nb = b->b - b->a;
    if (na != nb)
        return na > nb ? -1 : 1;
    return a->a < b->a ? -1 : a->a > b->a; /* (label order) */
}

/* The sets of mem[0..nm) received as records, each a run of one label. */
static int sets_of(const ndd_docrec_t *mem, size_t nm, vset_t **v, size_t *nv)
{
    size_t cap = 0;
    *nv = 0;
    for (size_t a = 0, b; a < nm; a = b) {
        for (b = a + 1; b < nm && mem[b].label == mem[a].label; b++)
            ;
        int rc = ndd_array_grow((void **)v, &cap, *nv + 1, sizeof **v);
        if (rc)
            return rc;
        (*v)[(*nv)++] = (vset_t){a, b};
    }
    return NDD_OK;
}

/* The sets rest[0..n) not verified yet (largest first): shared out (the
 * plan above), this rank's kept ones and the ones it receives verified. */
static int share_rest(run_t *r, vws_t *w, const ndd_docrec_t *mem, const vset_t *rest, size_t n, int all_next)
{
    const int P = r->P, me = r->me;
    ndd_buf_t mine = NDD_BUF_INIT, all = NDD_BUF_INIT, *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    uint64_t *lens = calloc((size_t)P, sizeof *lens), *load = calloc((size_t)P, sizeof *load), total = 0;
    int *dest = malloc((n ? n : 1) * sizeof *dest);
    ndd_docrec_t *got = NULL;
    vset_t *gs = NULL;
    size_t ng = 0, gcap = 0, nset = 0;
    int rc = send && recv && lens && load && dest ? NDD_OK : NDD_ERR_NOMEM;
    for (size_t i = 0; i < n && !rc; i++) {
        dest[i] = me;
        rc = ndd_put64(&mine, rest[i].b - rest[i].a);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_allgather(r->comm, mine.data, mine.len, &all, lens));
    for (size_t p = 0, off = 0; p < (size_t)P; off += (size_t)lens[p], p++) /* (the gathered lists one after another) */
        for (uint64_t j = 0; j < lens[p] / 8; j++)
            load[p] += ndd_le64_load(all.data + off + 8 * j);
    for (int p = 0; p < P; p++)
        total += load[p];
    const uint64_t mean = (total + (uint64_t)P - 1) / (uint64_t)P;
    for (size_t p = 0, off = 0; p < (size_t)P; off += (size_t)lens[p], p++)
        for (size_t j = (size_t)(lens[p] / 8); j-- > 0 && load[p] > mean;) {
            const uint64_t c = ndd_le64_load(all.data + off + 8 * j);
            int q = 0;
            for (int t = 1; t < P; t++)
                q = load[t] < load[q] ? t : q;
            if ((size_t)q == p || load[q] + c >= load[p])
                break; /* (the smallest left does not help: none does) */
            load[p] -= c;
            load[q] += c;
            if (p == (size_t)me)
                dest[j] = q;
        }
    for (size_t i = 0; i < n && all_next; i++)
        dest[i] = (me + 1) % P;
    for (size_t i = 0; i < n && !rc; i++)
        for (size_t k = rest[i].a; k < rest[i].b && dest[i] != me && !rc; k++)
            rc = ndd_docrec_put(&send[dest[i]], &mem[k]);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange(r->comm, send, recv, NULL));
    for (size_t i = 0; i < n && !rc; i++)
        if (dest[i] == me)
            rc = verify_set(w, mem + rest[i].a, rest[i].b - rest[i].a);
    for (int s = 0; s < P && !rc; s++) /* each source's moved sets, whole and in order */
        rc = s == me ? NDD_OK : ndd_docrec_parse(recv[s].data, recv[s].len, &got, &ng, &gcap);
    if (!rc)
        rc = sets_of(got, ng, &gs, &nset);
    for (size_t i = 0; i < nset && !rc; i++)
        rc = verify_set(w, got + gs[i].a, gs[i].b - gs[i].a);
out:
    ndd_buf_free(&mine);
    ndd_buf_free(&all);
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    free(lens);
    free(load);
    free(dest);
    free(got);
    free(gs);
    return rc;
}

/* Verifies every set whose records arrived in recs[0..P) (plain records by source). */
static int verify_sets(run_t *r, ndd_buf_t *recs, ndd_buf_t *send[3])
{
    vws_t w = {.r = r, .send = {send[0], send[1], send[2]}};
    ndd_docrec_t *mem = NULL;
    vset_t *sets = NULL;
    size_t ns = 0;
    size_t nm = 0, mcap = 0, *start = calloc((size_t)r->P + 1, sizeof *start);
    int rc = start ? NDD_OK : NDD_ERR_NOMEM;
    for (int s = 0; s < r->P && !rc; s++) {
        rc = ndd_docrec_parse(recs[s].data, recs[s].len, &mem, &nm, &mcap);
        start[s + 1] = nm;
    }
    if (!rc)
        rc = merge_runs(&mem, nm, start, r->P);
    free(start);
    if (!rc)
        rc = vws_init(&w);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    const int share = can_share(r);
    const char *test = getenv("NDD_SHARE_ALL");
    const int all_next = share && test && !strcmp(test, "1");
    NDD_TRY(ndd_comm_agree(r->comm, sets_of(mem, nm, &sets, &ns)));
    if (share) /* largest first: the last ones, the smallest, may move */
        ndd_qsort(sets, ns, sizeof *sets, cmp_vset);
    size_t tail = ns, tail_members = 0;
    while (share && tail > 0 && (all_next || (tail_members + sets[tail - 1].b - sets[tail - 1].a) * SHARE_TAIL <= nm))
        tail_members += sets[tail - 1].b - sets[tail - 1].a, tail--;
    ndd_prog_t *prog = ndd_prog_begin(r, "verify", "docs", nm);
    size_t k = 0, done = 0;
    for (; k < tail && !rc; k++) {
        rc = verify_set(&w, mem + sets[k].a, sets[k].b - sets[k].a);
        ndd_prog_update(prog, done += sets[k].b - sets[k].a);
    }
    if (share) {
        /* at the tail: said, then set by set until every rank has said it */
        const ndd_comm_ops_t *o = r->comm->ops;
        ndd_comm_req_t *req = NULL;
        uint64_t one = 1, all = 0;
        int st = o->iallreduce_start(r->comm, &one, 1, &req);
        for (; st == 0 && k < ns && !rc && !all_next; k++) {
            rc = verify_set(&w, mem + sets[k].a, sets[k].b - sets[k].a);
            if ((st = o->iallreduce_test(req, &all)) != 0) {
                k++;
                break;
            }
        }
        if (st == 0)
            st = o->iallreduce_wait(req, &all);
        rc = ndd_comm_agree(r->comm, rc ? rc : st < 0 ? NDD_ERR_IO : NDD_OK);
        if (!rc)
            rc = share_rest(r, &w, mem, sets + k, ns - k, all_next);
    } else {
        for (; k < ns && !rc; k++) {
            rc = verify_set(&w, mem + sets[k].a, sets[k].b - sets[k].a);
            ndd_prog_update(prog, done += sets[k].b - sets[k].a);
        }
    }
    ndd_prog_end(prog, nm);
    rc = ndd_comm_agree(r->comm, rc);
out:
    free(mem);
    free(sets);
    vws_free(&w);
    return rc;
}

/* ---- received texts on disk (the memory budget) ----
 * When the received records would not fit in the budget, each source's
 * block is unpacked, indexed and written to a spill file one at a time;
 * verification then reads its sets' records back set by set. */
typedef struct {
    uint64_t label, g, off; /* off: where the record starts in the spill file */
    uint64_t size;
} recv_ent_t;

static int cmp_ent(const void *a, const void *b)
{
    const recv_ent_t *x = a, *y = b;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->g < y->g ? -1 : x->g > y->g;
}

/* Unpacks the blocks in[0..P) one by one into the spill file sp, with an
 * entry per record, sorted by (label, g). */
static int spill_received(run_t *r, ndd_buf_t *in, ndd_spill_t *sp, recv_ent_t **ents, size_t *ne)
{
    ndd_buf_t plain = NDD_BUF_INIT;
    ndd_docrec_t *v = NULL;
    size_t nv = 0, vcap = 0, ecap = 0;
    int rc = ndd_spill_open(sp, r->wd, "received", r->me);
    for (int s = 0; s < r->P && !rc; s++) {
        rc = unseal_block(&in[s], &plain, s == r->me);
        nv = 0;
        if (!rc)
            rc = ndd_docrec_parse(plain.data, plain.len, &v, &nv, &vcap);
        if (!rc)
            rc = ndd_array_grow((void **)ents, &ecap, *ne + nv, sizeof **ents);
        uint64_t at = sp->len;
        for (size_t k = 0; k < nv && !rc; k++) {
            uint64_t size = ndd_docrec_size(&v[k]);
            (*ents)[(*ne)++] = (recv_ent_t){v[k].label, v[k].g, at, size};
            at += size;
        }
        if (!rc && plain.len)
            rc = ndd_spill_write(sp, plain.data, plain.len, NULL);
        r->c.spill_received += rc ? 0 : plain.len;
        ndd_buf_free(&plain);
    }
    free(v);
    ndd_mem_release();
    if (!rc)
        ndd_qsort(*ents, *ne, sizeof **ents, cmp_ent);
    return rc;
}

/* Reads the records of ents[0..n) (one set) into buf and parses them. */
static int read_set(const ndd_spill_t *sp, const recv_ent_t *e, size_t n, ndd_buf_t *buf, ndd_docrec_t **mem,
                    size_t *nm, size_t *mcap)
{
    uint64_t bytes = 0;
    for (size_t k = 0; k < n; k++)
        bytes += e[k].size;
    ndd_buf_clear(buf);
    int rc = bytes > SIZE_MAX - 1 ? NDD_ERR_LIMIT : ndd_buf_reserve(buf, (size_t)bytes);
    for (size_t a = 0, b; a < n && !rc; a = b) { /* records that lie together: one read */
        uint64_t len = e[a].size;
        for (b = a + 1; b < n && e[b].off == e[b - 1].off + e[b - 1].size; b++)
            len += e[b].size;
        rc = ndd_spill_read(sp, e[a].off, buf->data + buf->len, (size_t)len);
        buf->len += (size_t)len;
    }
    *nm = 0;
    return rc ? rc : ndd_docrec_parse(buf->data, buf->len, mem, nm, mcap);
}

/* A set verified in blocks: the records of ents[0..n) without their texts
 * (ids and URLs in buf, each text's place in the file in text_at). */
static int read_set_heads(const ndd_spill_t *sp, const recv_ent_t *e, size_t n, ndd_buf_t *buf, ndd_docrec_t **mem,
                          size_t *nm, size_t *mcap)
{
    uint64_t strs = 0;
    int rc = ndd_array_grow((void **)mem, mcap, n, sizeof **mem);
    for (size_t k = 0; k < n && !rc; k++) { /* the headers (ndd_docrec_head) */
        char h[48];
        size_t hl = e[k].size < sizeof h ? (size_t)e[k].size : sizeof h, head = 0;
        ndd_docrec_t *m = &(*mem)[k];
        if ((rc = ndd_spill_read(sp, e[k].off, h, hl)) || (rc = ndd_docrec_head(h, hl, m, &head)))
            break;
        if (head + m->idlen + m->urllen + m->textlen + 8 * (uint64_t)m->nkeys != e[k].size) {
            rc = NDD_ERR_FORMAT;
            break;
        }
        m->text_at = e[k].off + head + m->idlen + m->urllen;
        strs += m->idlen + m->urllen;
    }
    ndd_buf_clear(buf);
    if (!rc)
        rc = strs > SIZE_MAX - 1 ? NDD_ERR_LIMIT : ndd_buf_reserve(buf, (size_t)strs);
    for (size_t k = 0; k < n && !rc; k++) { /* ids and URLs: reserved above, the pointers stay */
        ndd_docrec_t *m = &(*mem)[k];
        size_t len = (size_t)m->idlen + m->urllen;
        rc = ndd_spill_read(sp, m->text_at - len, buf->data + buf->len, len);
        m->id = buf->data + buf->len;
        m->url = m->id + m->idlen;
        buf->len += len;
    }
    *nm = rc ? 0 : n;
    return rc;
}

/* verify_sets with the received records in a spill file (spill_received). */
static int verify_sets_spilled(run_t *r, ndd_buf_t *in, ndd_buf_t *send[3])
{
    vws_t w = {.r = r, .send = {send[0], send[1], send[2]}};
    ndd_spill_t sp = NDD_SPILL_INIT;
    recv_ent_t *e = NULL;
    ndd_docrec_t *mem = NULL;
    ndd_buf_t buf = NDD_BUF_INIT;
    size_t ne = 0, nm = 0, mcap = 0;
    int rc = spill_received(r, in, &sp, &e, &ne);
    if (rc == NDD_ERR_IO)
        ndd_run_log(r, 0, "cannot write the spill file %s: %s", sp.path, ndd_spill_error(&sp));
    if (!rc)
        rc = vws_init(&w);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    ndd_prog_t *prog = ndd_prog_begin(r, "verify", "docs", ne);
    for (size_t a = 0; a < ne && !rc;) {
        size_t b = a + 1;
        while (b < ne && e[b].label == e[a].label)
            b++;
        /* a set whose records pass half the room left is verified in blocks:
         * its texts read as pairs need them (not with SigNCD, whose set
         * start reads every text) */
        uint64_t bytes = 0;
        for (size_t k = a; k < b; k++)
            bytes += e[k].size;
        w.limit = (size_t)(ndd_budget_room(r) / 2);
        w.sp = bytes > w.limit && r->cfg->verifier != NDD_VERIFIER_SIGNCD ? &sp : NULL;
        r->c.sets_in_blocks += w.sp != NULL;
        rc = w.sp ? read_set_heads(&sp, e + a, b - a, &buf, &mem, &nm, &mcap)
                  : read_set(&sp, e + a, b - a, &buf, &mem, &nm, &mcap);
        if (!rc)
            rc = verify_set(&w, mem, nm);
        texts_unload(&w);
        a = b;
        ndd_prog_update(prog, a);
    }
    ndd_prog_end(prog, ne);
    rc = ndd_comm_agree(r->comm, rc);
out:
    ndd_spill_close(&sp);
    free(e);
    free(mem);
    ndd_buf_free(&buf);
    vws_free(&w);
    return rc;
}

/* The bucket of a row's first document: 1024 buckets per rank over the
 * document numbers. */
static size_t row_bucket(uint64_t k1, uint64_t total, size_t nb)
{
    return (size_t)((unsigned __int128)(k1 < total ? k1 : total - 1) * nb / total);
}

/* Pair and score rows are made keyed by their first document, the smaller
 * number, so the owners of the low numbers would get most of them (three
 * quarters on rank 0 of 2 on the bench-run corpus). They go instead to
 * ranks by consecutive key ranges of about equal bytes (ndd_part_balance
 * over a histogram summed over ranks): the files are the same (rank order,
 * then key order), their memory and writing are shared evenly. send[0..P)
 * is re-bucketed in place. A resumed run reads them back by document
 * owner (ndd_ckpt_verify_load): consecutive ranges too, the same files. */
static int balance_rows(run_t *r, ndd_buf_t *send)
{
    int P = r->P, rc = NDD_OK;
    uint64_t total = r->starts[P] ? r->starts[P] : 1;
    size_t nb = 1024 * (size_t)P, *first = malloc(((size_t)P + 1) * sizeof *first), n = 0, cap = 0;
    uint64_t *w = calloc(nb, sizeof *w), *mine = malloc(nb * sizeof *mine), *bytes = calloc((size_t)P, sizeof *bytes);
    int *owner = malloc(nb * sizeof *owner); /* each bucket's writer */
    ndd_buf_t *out = ndd_bufs_new(P);
    ndd_row_t *v = NULL;
    size_t *upto = calloc((size_t)P, sizeof *upto), i = 0; /* upto[s]: the rows of send[0..s] */
    rc = !first || !w || !mine || !bytes || !owner || !out || !upto ? NDD_ERR_NOMEM : NDD_OK;
    for (int s = 0; s < P && !rc; s++) { /* parsed once: the rows point into send[] */
        rc = ndd_rows_parse(send[s].data, send[s].len, &v, &n, &cap);
        upto[s] = n;
    }
    for (i = 0; i < n && !rc; i++)
        w[row_bucket(v[i].k1, total, nb)] += v[i].len + NDD_ROW_HEAD;
    i = 0;
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    memcpy(mine, w, nb * sizeof *w); /* this rank's bytes per bucket, before the sum */
    NDD_TRY(ndd_comm_allreduce(r->comm, w, nb, NDD_TY_U64, NDD_RED_SUM));
    ndd_part_balance(w, nb, P, first);
    for (size_t b = 0; b < nb; b++) {
        owner[b] = ndd_part_balance_owner(first, P, b);
        bytes[owner[b]] += mine[b];
    }
    /* each destination's buffer reserved at its final size (grown row by row, it was most of this step) */
    for (int s = 0; s < P && !rc; s++)
        rc = bytes[s] > SIZE_MAX / 2 ? NDD_ERR_NOMEM : ndd_buf_reserve(&out[s], (size_t)bytes[s]);
    for (int s = 0; s < P && !rc; s++) { /* buffer by buffer, each freed once its rows are placed */
        for (; i < upto[s] && !rc; i++)
            rc = ndd_row_put(&out[owner[row_bucket(v[i].k1, total, nb)]], v[i].k1, v[i].k2, v[i].line, v[i].len);
        ndd_buf_free(&send[s]);
    }
    for (int s = 0; s < P && !rc; s++) {
        ndd_buf_t t = send[s];
        send[s] = out[s];
        out[s] = t;
    }
    rc = ndd_comm_agree(r->comm, rc);
out:
    free(v);
    free(upto);
    free(first);
    free(w);
    free(mine);
    free(bytes);
    free(owner);
    ndd_bufs_free(out, P);
    return rc;
}

/* Rows to their writers: cluster rows to the owner of their document, pair
 * and score rows by balance_rows. */
static int send_rows(run_t *r, ndd_buf_t *send[3], ndd_buf_t *recv)
{
    int rc = NDD_OK;
    for (int t = 0; t < 3 && !rc; t++) {
        if (t != NDD_ROWS_CLUSTERS && r->P > 1)
            NDD_TRY(balance_rows(r, send[t]));
        NDD_TRY(ndd_comm_exchange_move(r->comm, send[t], recv, &r->c.shuffle3_bytes));
        /* the largest block becomes the table (taken, not copied; its order
         * does not matter: the rows are sorted when written), the others are
         * appended and freed one by one */
        int big = 0;
        for (int s = 1; s < r->P; s++)
            big = recv[s].len > recv[big].len ? s : big;
        if (!r->rows[t].len) {
            ndd_buf_free(&r->rows[t]);
            r->rows[t] = recv[big];
            recv[big] = (ndd_buf_t)NDD_BUF_INIT;
        }
        for (int s = 0; s < r->P && !rc; s++) {
            rc = ndd_buf_append(&r->rows[t], recv[s].data ? recv[s].data : "", recv[s].len);
            ndd_buf_free(&recv[s]);
        }
        rc = ndd_comm_agree(r->comm, rc);
    }
out:
    return rc;
}

int ndd_stage_verify(run_t *r)
{
    int P = r->P, spill = 0;
    double t0 = ndd_now();
    uint32_t *dest_of = calloc(r->d.n ? r->d.n : 1, sizeof *dest_of);
    ndd_buf_t *raw = ndd_bufs_new(P), *z = ndd_bufs_new(P);
    ndd_buf_t *send[3] = {ndd_bufs_new(P), ndd_bufs_new(P), ndd_bufs_new(P)};
    int rc = !dest_of || !raw || !z || !send[0] || !send[1] || !send[2] ? NDD_ERR_NOMEM : NDD_OK;
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(place_sets(r, dest_of));
    if (r->ix) /* --index: the cached verdicts to the ranks that look them up */
        NDD_TRY(ndd_index_verdicts_route(r, dest_of));
    NDD_TRY(ndd_lsi_send(r, dest_of));
    NDD_TRY(shuffle_texts(r, dest_of, raw, z, &spill));
    r->t[NDD_ST_SHUFFLE2] = ndd_now() - t0;
    ndd_stage_rss(r, NDD_ST_SHUFFLE2);
    t0 = ndd_now();
    NDD_TRY(spill ? verify_sets_spilled(r, raw, send) : verify_sets(r, z, send));
    /* the spill files at their largest at once: texts and link runs live
     * together until shuffle 2, the received texts after */
    uint64_t before = r->c.spill_texts + r->c.spill_links;
    r->c.spill_peak = before > r->c.spill_received ? before : r->c.spill_received;
    for (int s = 0; s < P; s++) /* the received texts: not needed any more */
        ndd_buf_free(&z[s]);
    r->t[NDD_ST_VERIFY] = ndd_now() - t0;
    ndd_stage_rss(r, NDD_ST_VERIFY);
    t0 = ndd_now();
    rc = send_rows(r, send, raw);
    r->t[NDD_ST_OUTPUT] += ndd_now() - t0;
out:
    free(dest_of);
    ndd_bufs_free(raw, P);
    ndd_bufs_free(z, P);
    for (int t = 0; t < 3; t++)
        ndd_bufs_free(send[t], P);
    return rc;
}
