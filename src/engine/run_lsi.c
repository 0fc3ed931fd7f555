/* run_lsi.c - paper 001's Latent Semantic Indexing as stage drivers (ndd
 * run --verifier lsi | tlcs+lsi): right after the exact pass, while each
 * rank still holds the texts it read, TF-IDF vectors (document frequencies
 * summed over ranks), the distributed randomized SVD, each document's
 * conceptual fingerprint and textual SimHash (src/lsi); the fingerprints'
 * cosine-LSH band keys join the document's candidate keys, so documents
 * with little text in common can meet in a perhaps-similar set. After the
 * placement, every set member's fingerprint travels to its set's rank (a
 * small exchange beside shuffle 2), where the verifier reads it. */
#include "run_internal.h"
#include "ndd_wire.h"

#include <string.h>

void ndd_lsi_state_free(run_t *r)
{
    free(r->lsi_fp);
    free(r->lsi_sim);
    ndd_lsi_lsh_free(r->lsh);
    free(r->lsi_rg);
    free(r->lsi_rsim);
    free(r->lsi_rfp);
    r->lsi_fp = r->lsi_rfp = NULL;
    r->lsi_sim = r->lsi_rg = r->lsi_rsim = NULL;
    r->lsh = NULL;
    r->lsi_rn = 0;
}

void ndd_lsi_add_keys(const run_t *r, const float *fp, uint64_t *keys, size_t *n)
{
    size_t nk = 0;
    if (!r->lsh || !fp)
        return;
    ndd_lsi_lsh_keys(r->lsh, fp, keys + *n, &nk);
    *n += nk;
}

/* Every document's candidate keys followed by its fingerprint's LSH keys
 * (exact followers have no keys and get none). */
static int add_lsh_keys(run_t *r)
{
    ndd_docs_t *d = &r->d;
    size_t bands = r->cfg->lsi.lsh_bands, n = 0;
    uint64_t *keys = malloc((d->nkeys + d->n * bands + 1) * sizeof *keys);
    if (!keys)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < d->n; i++) {
        uint64_t a = d->key_off ? d->key_off[i] : 0, b = d->key_off ? d->key_off[i + 1] : 0;
        for (uint64_t k = a; k < b; k++)
            keys[n++] = d->keys[k];
        if (d->key_off)
            d->key_off[i] = n - (b - a);
        if (!ndd_exact_is_follower(r, i)) {
            size_t before = n;
            ndd_lsi_add_keys(r, r->lsi_fp + i * r->lsi_k, keys, &n);
            r->c.lsi_keys += n - before;
        }
    }
    if (!d->key_off) { /* no document had keys: nothing was reserved */
        free(keys);
        return n ? NDD_ERR_INTERNAL : NDD_OK;
    }
    d->key_off[d->n] = n;
    free(d->keys);
    d->keys = keys;
    d->nkeys = n;
    d->keys_cap = d->nkeys + d->n * bands + 1;
    return NDD_OK;
}

int ndd_stage_lsi(run_t *r)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    ndd_lsi_mat_t m = NDD_LSI_MAT_INIT;
    double *sigma = NULL, *u = NULL;
    size_t ncols = 0, n = r->d.n, k = cfg->lsi.k;
    unsigned kk = 0;
    int rc = NDD_OK;
    if (!NDD_VERIFIER_HAS_LSI(cfg->verifier))
        return NDD_OK;
    double t0 = ndd_now();
    if (!ndd_lsi_lapack_available()) {
        if (r->me == 0)
            ndd_run_log(r, 0, "--verifier %s needs LAPACK: liblapacke.so.3 could not be loaded (Debian: "
                              "apt-get install liblapacke libopenblas0)", cfg->verifier == NDD_VERIFIER_LSI ? "lsi" : "tlcs+lsi");
        rc = NDD_ERR_UNSUPPORTED;
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    /* exact followers are rows without terms: their representative stands for them */
    for (size_t i = 0; i < n && !rc; i++)
        rc = ndd_exact_is_follower(r, i) ? ndd_lsi_mat_add_row(&m, NULL, NULL, 0)
                                         : ndd_lsi_mat_add_text(&m, &cfg->lsi, ndd_docs_text(&r->d, i), r->d.text_len[i]);
    sigma = calloc(k + 1, sizeof *sigma);
    u = calloc(n * k + 1, sizeof *u);
    r->lsi_sim = calloc(n + 1, sizeof *r->lsi_sim);
    if (!rc && (!sigma || !u || !r->lsi_sim))
        rc = NDD_ERR_NOMEM;
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_lsi_tfidf(r->comm, &m, cfg->lsi.bucket_bits, &ncols));
    NDD_TRY(ndd_lsi_svd(r->comm, &m, ncols, &cfg->lsi, sigma, u, &kk));
    r->lsi_k = kk ? kk : 1;
    r->lsi_fp = calloc(n * r->lsi_k + 1, sizeof *r->lsi_fp);
    rc = r->lsi_fp ? NDD_OK : NDD_ERR_NOMEM;
    if (!rc && kk) {
        for (size_t i = 0; i < n; i++) /* U's first kk columns, packed */
            memmove(u + i * kk, u + i * k, kk * sizeof *u);
        ndd_lsi_fingerprints(u, sigma, n, kk, r->lsi_fp);
        if (cfg->lsi.lsh_bands)
            rc = ndd_lsi_lsh_create(&r->lsh, &cfg->lsi, kk);
    }
    for (size_t i = 0; i < n && !rc; i++)
        if (!ndd_exact_is_follower(r, i))
            r->lsi_sim[i] = ndd_lsi_simhash(&cfg->lsi, ndd_docs_text(&r->d, i), r->d.text_len[i]);
    if (!rc && r->lsh)
        rc = add_lsh_keys(r);
    if (r->me == 0) {
        r->c.lsi_terms = ncols;
        r->c.lsi_rank = kk;
    }
    rc = ndd_comm_agree(r->comm, rc);
    r->t[NDD_ST_SIG] += ndd_now() - t0;
    if (!rc)
        ndd_run_log(r, 2, "lsi: %zu terms, %u concepts", ncols, kk);
out:
    ndd_lsi_mat_free(&m);
    free(sigma);
    free(u);
    return rc;
}

/* Wire record: u64 g, u64 simhash, lsi_k x f32 (little-endian). */
static size_t rec_size(const run_t *r) { return 16 + 4 * (size_t)r->lsi_k; }

int ndd_lsi_send(run_t *r, const uint32_t *dest_of)
{
    if (!NDD_VERIFIER_HAS_LSI(r->cfg->verifier))
        return NDD_OK;
    ndd_buf_t *send = ndd_bufs_new(r->P), *recv = ndd_bufs_new(r->P);
    size_t rs = rec_size(r);
    char *x = malloc(rs);
    int rc = send && recv && x ? NDD_OK : NDD_ERR_NOMEM;
    for (size_t i = 0; i < r->d.n && !rc; i++) {
        if (!r->in_set[i] || ndd_exact_is_follower(r, i))
            continue;
        ndd_le64_store(x, r->first + i);
        ndd_le64_store(x + 8, r->lsi_sim[i]);
        for (unsigned j = 0; j < r->lsi_k; j++) {
            uint32_t b;
            memcpy(&b, &r->lsi_fp[i * r->lsi_k + j], 4);
            ndd_le32_store(x + 16 + 4 * j, b);
        }
        rc = ndd_buf_append(&send[dest_of[i]], x, rs);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange(r->comm, send, recv, &r->c.shuffle2_bytes));
    /* sources in rank order, each in increasing g: the records arrive sorted by g */
    size_t n = 0;
    for (int s = 0; s < r->P; s++)
        n += recv[s].len / rs;
    r->lsi_rg = malloc((n + 1) * sizeof *r->lsi_rg);
    r->lsi_rsim = malloc((n + 1) * sizeof *r->lsi_rsim);
    r->lsi_rfp = malloc((n * r->lsi_k + 1) * sizeof *r->lsi_rfp);
    rc = r->lsi_rg && r->lsi_rsim && r->lsi_rfp ? NDD_OK : NDD_ERR_NOMEM;
    for (int s = 0; s < r->P && !rc; s++)
        for (size_t off = 0; off + rs <= recv[s].len; off += rs) {
            const char *p = recv[s].data + off;
            size_t at = r->lsi_rn++;
            r->lsi_rg[at] = ndd_le64_load(p);
            r->lsi_rsim[at] = ndd_le64_load(p + 8);
            for (unsigned j = 0; j < r->lsi_k; j++) {
                uint32_t b = ndd_le32_load(p + 16 + 4 * j);
                memcpy(&r->lsi_rfp[at * r->lsi_k + j], &b, 4);
            }
        }
    rc = ndd_comm_agree(r->comm, rc);
out:
    ndd_bufs_free(send, r->P);
    ndd_bufs_free(recv, r->P);
    free(x);
    return rc;
}

const float *ndd_lsi_find(const run_t *r, uint64_t g, uint64_t *sim)
{
    size_t i = ndd_u64_lower_bound(r->lsi_rg, r->lsi_rn, g);
    if (i >= r->lsi_rn || r->lsi_rg[i] != g)
        return NULL;
    *sim = r->lsi_rsim[i];
    return r->lsi_rfp + i * r->lsi_k;
}
