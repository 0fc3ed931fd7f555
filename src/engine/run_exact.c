/* run_exact.c - the exact-duplicate pass of ndd run (issue 12): every
 * document's text hash (XXH3-128) goes to the owner of the hash, which
 * groups identical texts (ndd_exact_reps: the smallest document number is
 * the representative); the representative of each record comes back. A
 * follower (a document whose text another, earlier document has) takes no
 * part in the near-duplicate machinery: it posts no signature, is in no
 * set size, no frequency rule and no giant-set guard; after the sets are
 * formed it travels to its representative's set without its text and joins
 * the representative's cluster there (ndd_set_verify). So identical texts
 * end in one cluster whatever their number. */
#include "run_internal.h"
#include "ndd_wire.h"

#include <string.h>
#include <xxhash.h>

#define EXACT_WIRE 24 /* u64 hash hi, u64 hash lo, u64 document */

int ndd_exact_is_follower(const run_t *r, size_t i)
{
    return r->exact_rep && (r->exact_rep[i] & ~NDD_EXACT_LEADS) != r->first + i;
}

/* Owner side: recv[s] holds rank s's records; each becomes its u64 rep in
 * recv[s] (sent back in the order received). */
static int decide_owned(run_t *r, ndd_buf_t *recv)
{
    size_t n = 0, at = 0;
    for (int s = 0; s < r->P; s++)
        n += recv[s].len / EXACT_WIRE;
    ndd_exact_rec_t *v = malloc((n ? n : 1) * sizeof *v);
    uint64_t *rep = malloc((n ? n : 1) * sizeof *rep);
    int rc = !v || !rep ? NDD_ERR_NOMEM : NDD_OK;
    for (int s = 0; s < r->P && !rc; s++)
        for (size_t k = 0; k < recv[s].len / EXACT_WIRE; k++) {
            uint64_t x[3];
            ndd_load64s(x, recv[s].data + k * EXACT_WIRE, 3);
            v[at++] = (ndd_exact_rec_t){x[0], x[1], x[2]};
        }
    if (!rc)
        rc = ndd_exact_reps(v, n, rep, &r->c.exact_groups, &r->c.exact_docs);
    at = 0;
    for (int s = 0; s < r->P && !rc; s++) {
        size_t m = recv[s].len / EXACT_WIRE;
        ndd_buf_clear(&recv[s]);
        rc = ndd_put64s(&recv[s], rep + at, m);
        at += m;
    }
    free(v);
    free(rep);
    return rc;
}

/* Drops the candidate keys of the followers (in place). */
static void drop_follower_keys(run_t *r)
{
    ndd_docs_t *d = &r->d;
    if (!d->key_off)
        return;
    uint64_t w = 0;
    for (size_t i = 0; i < d->n; i++) {
        uint64_t a = d->key_off[i], b = d->key_off[i + 1];
        d->key_off[i] = w;
        if (!ndd_exact_is_follower(r, i)) {
            memmove(d->keys + w, d->keys + a, (size_t)(b - a) * sizeof *d->keys);
            w += b - a;
        }
    }
    d->key_off[d->n] = w;
    d->nkeys = (size_t)w;
}

int ndd_stage_exact(run_t *r)
{
    ndd_docs_t *d = &r->d;
    int P = r->P, rc = NDD_OK;
    double t0 = ndd_now();
    if (!r->cfg->exact)
        return NDD_OK;
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    r->exact_rep = malloc((d->n ? d->n : 1) * sizeof *r->exact_rep);
    NDD_TRY(ndd_comm_agree(r->comm, !send || !recv || !r->exact_rep ? NDD_ERR_NOMEM : NDD_OK));
    for (size_t i = 0; i < d->n && !rc; i++) {
        XXH128_hash_t h = XXH3_128bits(ndd_docs_text(d, i), d->text_len[i]);
        uint64_t x[3] = {h.high64, h.low64, r->first + i};
        r->exact_rep[i] = h.high64 % (uint64_t)P; /* the owner asked, until its answer replaces it */
        rc = ndd_put64s(&send[r->exact_rep[i]], x, 3);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange(r->comm, send, recv, &r->c.exact_shuffle_bytes));
    NDD_TRY(ndd_comm_agree(r->comm, decide_owned(r, recv)));
    NDD_TRY(ndd_comm_exchange(r->comm, recv, send, NULL));
    /* the answers come back per owner in the order each owner was asked */
    size_t *at = calloc((size_t)P, sizeof *at);
    NDD_TRY(ndd_comm_agree(r->comm, at ? NDD_OK : NDD_ERR_NOMEM));
    for (size_t i = 0; i < d->n && !rc; i++) {
        int s = (int)r->exact_rep[i];
        if ((at[s] + 1) * 8 > send[s].len)
            rc = NDD_ERR_FORMAT;
        else
            r->exact_rep[i] = ndd_le64_load(send[s].data + 8 * at[s]++);
    }
    free(at);
    if (!rc)
        drop_follower_keys(r);
    rc = ndd_comm_agree(r->comm, rc);
out:
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    r->t[NDD_ST_EXACT] = ndd_now() - t0;
    ndd_stage_rss(r, NDD_ST_EXACT);
    return rc;
}

/* ------------------------------------------------------------------ */

static uint64_t answer_label(run_t *r, uint64_t g) { return r->label[g - r->first]; }
static uint64_t answer_size(run_t *r, uint64_t g) { return r->size_of[g - r->first]; }

typedef struct {
    uint64_t rep;
    size_t i;
} fol_t;

static int cmp_fol(const void *a, const void *b)
{
    const fol_t *x = a, *y = b;
    if (x->rep != y->rep)
        return x->rep < y->rep ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

int ndd_stage_exact_attach(run_t *r)
{
    ndd_docs_t *d = &r->d;
    size_t nf = 0;
    int rc = NDD_OK;
    if (!r->exact_rep)
        return NDD_OK;
    /* a representative in no set forms a set of its own (its label: itself,
     * which no set uses, as set labels are member numbers) */
    for (size_t i = 0; i < d->n; i++) {
        if ((r->exact_rep[i] & NDD_EXACT_LEADS) && !r->in_set[i]) {
            r->in_set[i] = 1;
            r->label[i] = r->first + i;
            r->size_of[i] = 1;
        }
        nf += ndd_exact_is_follower(r, i);
    }
    fol_t *f = malloc((nf ? nf : 1) * sizeof *f);
    uint64_t *ids = malloc((nf ? nf : 1) * sizeof *ids), *lab = malloc((nf ? nf : 1) * sizeof *lab),
             *size = malloc((nf ? nf : 1) * sizeof *size);
    NDD_TRY(ndd_comm_agree(r->comm, !f || !ids || !lab || !size ? NDD_ERR_NOMEM : NDD_OK));
    nf = 0;
    for (size_t i = 0; i < d->n; i++)
        if (ndd_exact_is_follower(r, i))
            f[nf++] = (fol_t){r->exact_rep[i], i};
    ndd_qsort(f, nf, sizeof *f, cmp_fol);
    for (size_t k = 0; k < nf; k++)
        ids[k] = f[k].rep;
    NDD_TRY(ndd_request_by_owner(r, ids, nf, answer_label, lab));
    NDD_TRY(ndd_request_by_owner(r, ids, nf, answer_size, size));
    for (size_t k = 0; k < nf; k++) {
        size_t i = f[k].i;
        r->in_set[i] = 1;
        r->label[i] = lab[k];
        r->size_of[i] = size[k];
    }
out:
    free(f);
    free(ids);
    free(lab);
    free(size);
    return rc;
}
