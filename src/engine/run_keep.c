/* run_keep.c - '--keep newest|oldest' (issue 17): which document of a
 * cluster is kept, by capture date (WARC-Date, or --date-field), for
 * archives where the latest (or first) capture of a page should stay. After
 * the verification, every clusters.tsv row is at the owner of its document;
 * each sends (hash of its cluster's id, date key, number | kept flag) to the
 * owner of the hash, which picks the member with the newest (oldest) date,
 * ties and undated members by document number (members without a date are
 * never preferred over dated ones; a cluster without dates keeps its first
 * choice), and answers each record in the order asked. The rows' keep
 * column is rewritten. Depends on dates and numbers only: the same for any
 * rank count. */
#include "run_internal.h"
#include "ndd_wire.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define KEEP_WIRE 24 /* u64 cluster hash, u64 date key, u64 number | kept << 63 */
#define KEEP_BIT ((uint64_t)1 << 63)

typedef struct {
    uint64_t h, date, g; /* g: number | KEEP_BIT */
    size_t at;           /* position received */
} keep_rec_t;

static int keep_cmp(const void *a, const void *b)
{
    const keep_rec_t *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    uint64_t gx = x->g & ~KEEP_BIT, gy = y->g & ~KEEP_BIT;
    return gx < gy ? -1 : gx > gy;
}

/* 1 when date a is preferred over date b (0 = no date, never preferred). */
static int better(uint64_t a, uint64_t b, int newest)
{
    if (!a || !b)
        return a && !b;
    return newest ? a > b : a < b;
}

/* Owner side: each record of recv becomes one byte (1: kept) in recv, in the order received. */
static int decide(run_t *r, ndd_buf_t *recv, int newest)
{
    size_t n = 0, at = 0;
    for (int s = 0; s < r->P; s++)
        n += recv[s].len / KEEP_WIRE;
    keep_rec_t *v = malloc((n ? n : 1) * sizeof *v);
    uint8_t *kept = calloc(n ? n : 1, 1);
    int rc = !v || !kept ? NDD_ERR_NOMEM : NDD_OK;
    for (int s = 0; s < r->P && !rc; s++)
        for (size_t k = 0; k < recv[s].len / KEEP_WIRE; k++, at++) {
            uint64_t x[3];
            ndd_load64s(x, recv[s].data + k * KEEP_WIRE, 3);
            v[at] = (keep_rec_t){x[0], x[1], x[2], at};
        }
    if (!rc)
        qsort(v, n, sizeof *v, keep_cmp);
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i, win = SIZE_MAX, first = SIZE_MAX;
        for (; j < n && v[j].h == v[i].h; j++) {
            if (v[j].g & KEEP_BIT)
                first = j;
            if (v[j].date && (win == SIZE_MAX || better(v[j].date, v[win].date, newest)))
                win = j; /* ties: the smaller number, seen first */
        }
        if (win == SIZE_MAX)
            win = first != SIZE_MAX ? first : i; /* no dates: the first choice stays */
        kept[v[win].at] = 1;
        i = j;
    }
    at = 0;
    for (int s = 0; s < r->P && !rc; s++) {
        size_t m = recv[s].len / KEEP_WIRE;
        ndd_buf_clear(&recv[s]);
        rc = ndd_buf_append(&recv[s], kept + at, m);
        at += m;
    }
    free(v);
    free(kept);
    return rc;
}

int ndd_stage_keep_dates(run_t *r)
{
    int P = r->P, rc = NDD_OK, newest = r->cfg->keep == NDD_KEEP_NEWEST;
    ndd_row_t *v = NULL;
    size_t n = 0, cap = 0, *got = NULL;
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P), out = NDD_BUF_INIT, line = NDD_BUF_INIT;
    int *dest = NULL;
    NDD_TRY(ndd_comm_agree(r->comm, !send || !recv ? NDD_ERR_NOMEM : NDD_OK));
    ndd_buf_t *rows = &r->rows[NDD_ROWS_CLUSTERS];
    rc = ndd_rows_parse(rows->data, rows->len, &v, &n, &cap);
    if (!rc && !(dest = malloc((n ? n : 1) * sizeof *dest)))
        rc = NDD_ERR_NOMEM;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *t1 = memchr(v[i].line, '\t', v[i].len);
        const char *t2 = t1 ? memchr(t1 + 1, '\t', v[i].len - (size_t)(t1 + 1 - v[i].line)) : NULL;
        if (!t2 || v[i].k1 < r->first || v[i].k1 - r->first >= r->d.n) {
            rc = NDD_ERR_INTERNAL; /* a cluster row of a document this rank does not hold */
            break;
        }
        uint64_t x[3] = {XXH3_64bits(t1 + 1, (size_t)(t2 - t1 - 1)), r->d.date[v[i].k1 - r->first],
                         v[i].k1 | (v[i].k2 ? KEEP_BIT : 0)};
        dest[i] = (int)(x[0] % (uint64_t)P);
        rc = ndd_put64s(&send[dest[i]], x, 3);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange(r->comm, send, recv, NULL));
    NDD_TRY(ndd_comm_agree(r->comm, decide(r, recv, newest)));
    NDD_TRY(ndd_comm_exchange(r->comm, recv, send, NULL));
    got = calloc((size_t)P, sizeof *got);
    NDD_TRY(ndd_comm_agree(r->comm, got ? NDD_OK : NDD_ERR_NOMEM));
    for (size_t i = 0; i < n && !rc; i++) { /* the answers come back per owner in the order asked */
        int s = dest[i];
        if (got[s] >= send[s].len) {
            rc = NDD_ERR_FORMAT;
            break;
        }
        int kept = send[s].data[got[s]++] != 0;
        const char *t1 = memchr(v[i].line, '\t', v[i].len);
        const char *t2 = memchr(t1 + 1, '\t', v[i].len - (size_t)(t1 + 1 - v[i].line));
        ndd_buf_clear(&line);
        rc = ndd_buf_append(&line, v[i].line, v[i].len);
        if (!rc)
            line.data[(t2 - v[i].line) + 1] = kept ? '1' : '0';
        if (!rc)
            rc = ndd_row_put(&out, v[i].k1, (uint64_t)kept, line.data, line.len);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    ndd_buf_free(rows);
    *rows = out;
    out = (ndd_buf_t)NDD_BUF_INIT;
out:
    free(v);
    free(dest);
    free(got);
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    ndd_buf_free(&out);
    ndd_buf_free(&line);
    return rc;
}
