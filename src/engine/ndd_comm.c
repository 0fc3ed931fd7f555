/* ndd_comm.c - the helpers of ndd_comm.h that are built on the ops only, so
 * they work unchanged over every backend (MPI, in-process). */
#include "ndd_comm.h"
#include "ndd_wire.h"

#include <stdlib.h>

/* Collective. Every rank's v, gathered in rank order as 8 little-endian
 * bytes each; *vals (P entries + 1 spare, caller frees) on success. */
static int gather_u64(ndd_comm_t *c, uint64_t v, uint64_t **vals)
{
    int rc = NDD_OK, P = c->size;
    ndd_buf_t all = NDD_BUF_INIT;
    char mine[8];
    uint64_t *out = malloc(((size_t)P + 1) * sizeof *out);

    *vals = NULL;
    NDD_TRY(ndd_comm_agree(c, out ? NDD_OK : NDD_ERR_NOMEM));
    ndd_le64_store(mine, v);
    NDD_TRY(ndd_comm_allgather(c, mine, sizeof mine, &all, NULL));
    /* Every rank sees the same length: a mismatch is a backend bug, agreed
     * anyway so that no rank goes on alone. */
    NDD_TRY(ndd_comm_agree(c, all.len == (size_t)P * 8 ? NDD_OK : NDD_ERR_INTERNAL));
    for (int r = 0; r < P; r++)
        out[r] = ndd_le64_load(all.data + (size_t)r * 8);
    *vals = out;
    out = NULL;
out:
    free(out);
    ndd_buf_free(&all);
    return rc;
}

typedef struct {
    const void *data;
    size_t len;
} mem_fill_t;

static int mem_fill(void *user, const void **p, size_t *n)
{
    mem_fill_t *m = user;
    *p = m->data;
    *n = m->len;
    m->len = 0; /* once */
    return NDD_OK;
}

int ndd_comm_write_ordered(ndd_comm_t *c, const char *path, const void *data, size_t len)
{
    mem_fill_t m = {data, len};
    return c->ops->write_ordered(c, path, len, mem_fill, &m);
}

int ndd_comm_exscan_u64(ndd_comm_t *c, uint64_t v, uint64_t *before, uint64_t *total)
{
    uint64_t *vals = NULL, sum = 0, mine = 0;
    int rc = gather_u64(c, v, &vals);
    if (rc)
        return rc;
    for (int r = 0; r < c->size; r++) {
        if (r == c->rank)
            mine = sum;
        sum += vals[r];
    }
    if (before)
        *before = mine;
    if (total)
        *total = sum;
    free(vals);
    return NDD_OK;
}

int ndd_comm_global_ranges(ndd_comm_t *c, uint64_t n, uint64_t *first, uint64_t **starts)
{
    uint64_t *all = NULL, sum = 0;
    *starts = NULL;
    int rc = gather_u64(c, n, &all);
    if (rc)
        return rc;
    for (int r = 0; r < c->size; r++) {
        uint64_t k = all[r];
        all[r] = sum;
        sum += k;
    }
    all[c->size] = sum;
    *first = all[c->rank];
    *starts = all;
    return NDD_OK;
}

ndd_buf_t *ndd_bufs_new(int P)
{
    if (P <= 0)
        return NULL;
    return calloc((size_t)P, sizeof(ndd_buf_t)); /* all-zero = NDD_BUF_INIT */
}

void ndd_bufs_free(ndd_buf_t *b, int P)
{
    if (!b)
        return;
    for (int i = 0; i < P; i++)
        ndd_buf_free(&b[i]);
    free(b);
}

int ndd_comm_exchange_move(ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, uint64_t *remote_bytes)
{
    if (c->ops->exchange_move)
        return c->ops->exchange_move(c, send, recv, remote_bytes);
    int me = c->rank;
    ndd_buf_t self = send[me];
    send[me] = (ndd_buf_t)NDD_BUF_INIT; /* this rank's own block never crosses the transport */
    int rc = ndd_comm_exchange(c, send, recv, remote_bytes);
    for (int d = 0; d < c->size; d++)
        ndd_buf_free(&send[d]);
    ndd_buf_free(&recv[me]);
    if (rc)
        ndd_buf_free(&self);
    else
        recv[me] = self;
    return rc;
}

int ndd_comm_far_forced(void)
{
    const char *e = getenv("NDD_COMM_FAR");
    return e && e[0] == '1' && !e[1];
}
