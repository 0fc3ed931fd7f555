/* run_tmpl.c - the template pass of ndd run (issue 11; kernels in
 * src/tmpl): every document's distinct blocks go to the owner of the block
 * hash (one exchange of 20-byte records), the owners decide which
 * occurrences are templates, one byte per record comes back, and each
 * document drops its template blocks, is cut to --max-doc-bytes and gets its
 * signatures. Then the signature counters of the batch, with or without the
 * pass. */
#include "run_internal.h"
#include "ndd_tmpl.h"
#include "ndd_wire.h"

#include <string.h>
#include <xxhash.h>

/* Every block's hash in text order, kept from local_occ for strip_all (which
 * hashed every block again: 1 % of a run): document i's in
 * v[off[i] .. off[i + 1]) when has[i] (not when its occurrences came from an
 * index batch's files). */
typedef struct {
    uint64_t *v;
    size_t n, cap, *off;
    uint8_t *has;
} blockseq_t;

/* The occurrences of every local document: occ[first[i] .. first[i+1]), and
 * its blocks' hashes in seq. With --index, an old document's are the index's
 * (made by the batch that added it: its stored text never changes), the
 * others' are made and noted for this batch's occurrence file. */
static int local_occ(run_t *r, ndd_tmpl_occ_t **occ, size_t *nocc, size_t **first, blockseq_t *seq)
{
    const ndd_docs_t *d = &r->d;
    size_t cap = 0;
    int rc = NDD_OK;
    *first = malloc((d->n + 1) * sizeof **first);
    seq->off = malloc((d->n + 1) * sizeof *seq->off);
    seq->has = malloc(d->n ? d->n : 1);
    if (!*first || !seq->off || !seq->has)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < d->n && !rc; i++) {
        size_t ns = 0, before = *nocc;
        const ndd_tmpl_occ_t *so = r->ix ? ndd_index_occ(r, r->first + i, &ns) : NULL;
        (*first)[i] = *nocc;
        seq->off[i] = seq->n;
        seq->has[i] = !so;
        if (so) {
            if (!(rc = ndd_array_grow((void **)occ, &cap, *nocc + ns + 1, sizeof **occ))) {
                memcpy(*occ + *nocc, so, ns * sizeof *so);
                *nocc += ns;
            }
            continue;
        }
        uint32_t page = ndd_tmpl_page_key(ndd_docs_url(d, i), ndd_docs_id(d, i));
        rc = ndd_tmpl_doc_occ_seq(ndd_docs_text(d, i), d->text_len[i], page, d->site[i], r->cfg->tmpl.max_short,
                                  occ, nocc, &cap, &seq->v, &seq->n, &seq->cap);
        if (!rc && r->ix)
            rc = ndd_index_occ_note(r, r->first + i, *occ + before, *nocc - before);
    }
    (*first)[d->n] = *nocc;
    seq->off[d->n] = seq->n;
    return rc;
}

/* Owner side: recv[s] holds rank s's records; each becomes one flag byte in
 * recv[s] (sent back in the order received). */
static int decide_owned(run_t *r, ndd_buf_t *recv)
{
    size_t n = 0, at = 0;
    for (int s = 0; s < r->P; s++)
        n += recv[s].len / NDD_TMPL_OCC_BYTES;
    ndd_tmpl_occ_t *v = malloc((n ? n : 1) * sizeof *v);
    uint8_t *flag = malloc(n ? n : 1);
    int rc = !v || !flag ? NDD_ERR_NOMEM : NDD_OK;
    size_t *m = calloc(r->P > 0 ? (size_t)r->P : 1, sizeof *m); /* each source's record count */
    rc = rc ? rc : !m ? NDD_ERR_NOMEM : NDD_OK;
    for (int s = 0; s < r->P && !rc; s++) { /* each block freed once read */
        m[s] = recv[s].len / NDD_TMPL_OCC_BYTES;
        for (size_t k = 0; k < m[s]; k++) {
            v[at++] = ndd_tmpl_occ_load(recv[s].data + k * NDD_TMPL_OCC_BYTES);
        }
        ndd_buf_free(&recv[s]);
    }
    ndd_tmpl_decided_t dec = {0, 0};
    if (!rc)
        rc = ndd_tmpl_decide(&r->cfg->tmpl, v, n, flag, &dec);
    r->c.tmpl_site_blocks += dec.site_blocks;
    r->c.tmpl_corpus_blocks += dec.corpus_blocks;
    at = 0;
    free(v);
    for (int s = 0; s < r->P && !rc; s++) {
        rc = ndd_buf_append(&recv[s], flag + at, m[s]);
        at += m[s];
    }
    free(m);
    free(flag);
    return rc;
}

/* The template flag of every local occurrence (one exchange there, one back). */
static int flags_of(run_t *r, const ndd_tmpl_occ_t *occ, size_t nocc, uint8_t *flag)
{
    int P = r->P, rc = NDD_OK;
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    size_t *cur = calloc((size_t)P, sizeof *cur);
    NDD_TRY(ndd_comm_agree(r->comm, !send || !recv || !cur ? NDD_ERR_NOMEM : NDD_OK));
    for (size_t k = 0; k < nocc && !rc; k++) {
        char rec[NDD_TMPL_OCC_BYTES];
        ndd_tmpl_occ_store(rec, &occ[k]);
        rc = ndd_buf_append(&send[ndd_part_hash_dest(occ[k].block, P)], rec, sizeof rec);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    /* both ways the sent records are not needed again: moved, not copied */
    NDD_TRY(ndd_comm_exchange_move(r->comm, send, recv, &r->c.tmpl_shuffle_bytes));
    NDD_TRY(ndd_comm_agree(r->comm, decide_owned(r, recv)));
    NDD_TRY(ndd_comm_exchange_move(r->comm, recv, send, &r->c.tmpl_shuffle_bytes));
    /* the answers of each owner come back in the order its records were sent */
    for (size_t k = 0; k < nocc && !rc; k++) {
        uint32_t dest = ndd_part_hash_dest(occ[k].block, P);
        if (cur[dest] >= send[dest].len) {
            rc = NDD_ERR_INTERNAL;
            break;
        }
        flag[k] = (uint8_t)send[dest].data[cur[dest]++];
    }
    rc = ndd_comm_agree(r->comm, rc);
out:
    free(cur);
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    return rc;
}

/* Keeps only the template occurrences (a third of them on the bench
 * corpus), in place, with first[] and flag[] to match: strip_all, which
 * runs beside the growing signature keys, needs no more. */
static void keep_templates(ndd_tmpl_occ_t *occ, size_t *first, uint8_t *flag, size_t n, size_t *nocc)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t a = first[i], b = first[i + 1];
        first[i] = at;
        for (size_t k = a; k < b; k++)
            if (flag[k]) {
                occ[at] = occ[k];
                flag[at++] = 1;
            }
    }
    first[n] = at;
    *nocc = at;
}

/* Document i's signature keys, its text after the strip and the cut being
 * text[0..len): with --index, the index's keys when that text did not
 * change since the batch that signed it (the same XXH3-64), else signed and
 * noted for this batch's key file. */
static int doc_keys(run_t *r, ndd_sig_ctx_t *sig, ndd_sig_t *sigs, uint64_t *keys, size_t i, const char *text,
                    size_t len)
{
    ndd_docs_t *d = &r->d;
    size_t nsig = 0, nsent = 0;
    uint64_t h = r->ix ? XXH3_64bits(text, len) : 0;
    const uint64_t *ks = ndd_index_keys(r, r->first + i, h, &nsig);
    int rc = NDD_OK;
    int signed_here = !ks;
    if (signed_here) {
        if ((rc = ndd_sig_doc(sig, text, len, sigs, &nsig, &nsent)))
            return rc;
        for (size_t s = 0; s < nsig; s++)
            keys[s] = ndd_sig_key(&sigs[s]);
        ks = keys;
    }
    if ((rc = ndd_array_grow((void **)&d->keys, &d->keys_cap, d->nkeys + nsig + 1, sizeof *d->keys)))
        return rc;
    memcpy(d->keys + d->nkeys, ks, nsig * sizeof *ks);
    d->nkeys += nsig;
    d->weight[i] = (uint32_t)nsig;
    return r->ix && signed_here ? ndd_index_keys_note(r, r->first + i, h, ks, nsig) : NDD_OK;
}

/* Rebuilds the batch's texts without their template blocks, cut to
 * max_bytes, and (sentence candidates) their signatures. Local. */
static int strip_all(run_t *r, const ndd_tmpl_occ_t *occ, const size_t *first, const uint8_t *flag,
                     const blockseq_t *seq)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    ndd_docs_t *d = &r->d;
    ndd_buf_t one = NDD_BUF_INIT;
    size_t at = 0; /* the texts are compacted in place: document i's new text ends before its old one begins */
    uint64_t *tmpl = NULL;
    size_t tcap = 0;
    ndd_sig_ctx_t *sig = NULL;
    ndd_sig_t *sigs = malloc(NDD_SIG_MAX * sizeof *sigs);
    uint64_t *keys = malloc(NDD_SIG_MAX * sizeof *keys);
    int rc = !sigs || !keys ? NDD_ERR_NOMEM : NDD_OK;
    if (!rc && !cfg->candidates)
        rc = ndd_sig_ctx_create(&sig, &cfg->sig);
    double ts = 0;
    d->nkeys = 0;
    /* with --index the keys' room at once, from the key table's counts (the
     * array grew by doubling, each step a copy into fresh memory) */
    size_t want = sig ? ndd_index_keys_expected(r, r->first, d->n) : 0;
    /* else a bound: n rotations x at most min(m, sentences) classes each, a
     * kept sentence being min_sentence bytes or more of the text before its
     * strip (the pages the keys never reach are never touched) */
    for (size_t i = 0; sig && !r->ix && i < d->n; i++) {
        size_t sent = d->text_len[i] / (cfg->sig.min_sentence ? cfg->sig.min_sentence : 1);
        want += (size_t)cfg->sig.n * (sent < cfg->sig.m ? sent : cfg->sig.m);
    }
    if (!rc && want)
        rc = ndd_array_grow((void **)&d->keys, &d->keys_cap, want + 1, sizeof *d->keys);
    for (size_t i = 0; i < d->n && !rc; i++) {
        size_t nt = 0, removed = 0;
        if ((rc = ndd_array_grow((void **)&tmpl, &tcap, first[i + 1] - first[i] + 1, sizeof *tmpl)))
            break;
        for (size_t k = first[i]; k < first[i + 1]; k++)
            if (flag[k])
                tmpl[nt++] = occ[k].block; /* sorted: a document's records are */
        /* with this document's block hashes when local_occ made them */
        const char *text = ndd_docs_text(d, i);
        const size_t s0 = seq->off[i], s1 = seq->off[i + 1];
        const uint64_t *hs = seq->v ? seq->v + s0 : NULL;
        if ((rc = seq->has[i] ? ndd_tmpl_strip_seq(text, d->text_len[i], hs, s1 - s0, tmpl, nt, cfg->text.max_bytes,
                                                   &one, &removed)
                              : ndd_tmpl_strip(text, d->text_len[i], tmpl, nt, cfg->tmpl.max_short, cfg->text.max_bytes,
                                               &one, &removed)))
            break;
        if (one.len > d->text_len[i]) { /* never: stripping and cutting only shorten (in-place compaction) */
            rc = NDD_ERR_INTERNAL;
            break;
        }
        int whole = nt && !removed; /* only template blocks: kept whole */
        r->c.tmpl_blocks_removed += whole ? 0 : nt;
        r->c.tmpl_bytes_removed += removed;
        r->c.tmpl_docs_touched += nt && !whole;
        r->c.tmpl_docs_whole += (uint64_t)whole;
        r->c.tmpl_text_bytes += one.len;
        if (one.len)
            memmove(d->texts.data + at, one.data, one.len);
        d->text_off[i] = at;
        d->text_len[i] = (uint32_t)one.len;
        at += one.len;
        if (sig) {
            double t0 = ndd_now();
            if ((rc = doc_keys(r, sig, sigs, keys, i, one.data ? one.data : "", one.len)))
                break;
            ts += ndd_now() - t0;
        }
        d->key_off[i + 1] = d->nkeys;
    }
    if (!rc && d->texts.data) {
        /* the map stage kept up to 3x --max-doc-bytes per document: give back what the cut freed */
        d->texts.len = at;
        d->texts.data[at] = '\0';
        char *shrunk = realloc(d->texts.data, at + 1);
        if (shrunk) {
            d->texts.data = shrunk;
            d->texts.cap = at + 1;
        }
    }
    r->t[NDD_ST_SIG] += ts;
    ndd_sig_ctx_free(sig);
    free(sigs);
    free(keys);
    free(tmpl);
    ndd_buf_free(&one);
    return rc;
}

/* Signature counters of the batch as it goes into the postings (reduce
 * counters, so that they survive a resume from any checkpoint). */
static void count_keys(run_t *r)
{
    const ndd_docs_t *d = &r->d;
    r->c.signatures = 0;
    r->c.no_sigs = 0;
    if (r->cfg->candidates)
        return; /* the baseline stage counts its keys */
    for (size_t i = 0; i < d->n; i++) {
        uint64_t k = d->key_off ? d->key_off[i + 1] - d->key_off[i] : 0;
        r->c.signatures += k;
        r->c.no_sigs += !k;
    }
}

int ndd_stage_templates(run_t *r)
{
    ndd_tmpl_occ_t *occ = NULL;
    size_t nocc = 0, *first = NULL;
    uint8_t *flag = NULL;
    blockseq_t seq = {NULL, 0, 0, NULL, NULL};
    int rc = NDD_OK;
    if (!r->cfg->templates) {
        count_keys(r);
        return NDD_OK;
    }
    double t0 = ndd_now(), sig0 = r->t[NDD_ST_SIG];
    NDD_TRY(ndd_comm_agree(r->comm, ndd_docs_reserve(&r->d, r->d.n)));
    NDD_TRY(ndd_comm_agree(r->comm, local_occ(r, &occ, &nocc, &first, &seq)));
    r->c.tmpl_blocks += nocc;
    flag = malloc(nocc ? nocc : 1);
    NDD_TRY(ndd_comm_agree(r->comm, flag ? NDD_OK : NDD_ERR_NOMEM));
    NDD_TRY(flags_of(r, occ, nocc, flag));
    keep_templates(occ, first, flag, r->d.n, &nocc);
    ndd_tmpl_occ_t *fit = realloc(occ, (nocc ? nocc : 1) * sizeof *occ); /* shrinking: gives the rest back */
    occ = fit ? fit : occ;
    rc = ndd_comm_agree(r->comm, strip_all(r, occ, first, flag, &seq));
    count_keys(r);
    r->t[NDD_ST_TEMPLATES] = ndd_now() - t0 - (r->t[NDD_ST_SIG] - sig0);
    ndd_stage_rss(r, NDD_ST_TEMPLATES);
out:
    free(occ);
    free(first);
    free(flag);
    free(seq.v);
    free(seq.off);
    free(seq.has);
    return rc;
}
