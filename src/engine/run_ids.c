/* run_ids.c - duplicate document ids (issue 17): two different records with
 * one id (the same crawl given twice under two names, two shards that
 * overlap) make rows such as "id id 1" that no consumer can tell apart.
 * Every document's id hash (XXH3-64, 16 bytes with its number) goes to the
 * owner of the hash; the owner counts, in number order, the documents whose
 * id an earlier document has. The count is read.duplicate_ids in stats.json,
 * and the run warns, naming the first such document. The same for any rank
 * count: the hash decides the owner and numbers decide "earlier". */
#include "run_internal.h"
#include "ndd_wire.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct {
    uint64_t h, g;
} id_rec_t;

static int id_cmp(const void *a, const void *b)
{
    const id_rec_t *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->g < y->g ? -1 : x->g > y->g;
}

/* Owner side: the documents whose id hash an earlier one has; *first the
 * smallest such number (UINT64_MAX: none). */
static int count_owned(const ndd_buf_t *recv, int P, uint64_t *dups, uint64_t *first)
{
    size_t n = 0, at = 0;
    for (int s = 0; s < P; s++)
        n += recv[s].len / 16;
    id_rec_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NDD_ERR_NOMEM;
    for (int s = 0; s < P; s++)
        for (size_t k = 0; k < recv[s].len / 16; k++) {
            v[at].h = ndd_le64_load(recv[s].data + 16 * k);
            v[at++].g = ndd_le64_load(recv[s].data + 16 * k + 8);
        }
    qsort(v, n, sizeof *v, id_cmp);
    for (size_t i = 1; i < n; i++)
        if (v[i].h == v[i - 1].h) {
            (*dups)++;
            if (v[i].g < *first)
                *first = v[i].g;
        }
    free(v);
    return NDD_OK;
}

int ndd_stage_dup_ids(run_t *r)
{
    ndd_docs_t *d = &r->d;
    int P = r->P, rc = NDD_OK;
    uint64_t dups = 0, first = UINT64_MAX;
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    NDD_TRY(ndd_comm_agree(r->comm, !send || !recv ? NDD_ERR_NOMEM : NDD_OK));
    for (size_t i = 0; i < d->n && !rc; i++) {
        const char *id = ndd_docs_id(d, i);
        uint64_t x[2] = {XXH3_64bits(id, strlen(id)), r->first + i};
        rc = ndd_put64s(&send[x[0] % (uint64_t)P], x, 2);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange(r->comm, send, recv, NULL));
    NDD_TRY(ndd_comm_agree(r->comm, count_owned(recv, P, &dups, &first)));
    r->c.dup_ids += dups;
    NDD_TRY(ndd_comm_allreduce(r->comm, &dups, 1, NDD_TY_U64, NDD_RED_SUM));
    NDD_TRY(ndd_comm_allreduce(r->comm, &first, 1, NDD_TY_U64, NDD_RED_MIN));
    if (dups && first >= r->first && first - r->first < d->n) /* the rank that holds it names it */
        ndd_run_log(r, 1, "warning: %llu document%s an id that an earlier document has (the first: '%s'); "
                    "pairs.tsv, clusters.tsv and removed.txt cannot tell them apart: give unique ids "
                    "(stats.json: read.duplicate_ids)", (unsigned long long)dups, dups == 1 ? " has" : "s have",
                    ndd_docs_id(d, (size_t)(first - r->first)));
out:
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    return rc;
}
