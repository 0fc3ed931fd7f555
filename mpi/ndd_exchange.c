/* ndd_exchange.c - see ndd_exchange.h */
#include "ndd_exchange.h"
#include "ndd_mpi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t ndd_exchange_chunk(void)
{
    size_t p = (size_t)ndd_mpi_size();
    size_t c = ((size_t)256 << 20) / (p ? p : 1);
    if (c < ((size_t)64 << 10))
        c = (size_t)64 << 10;
    if (c > (size_t)INT_MAX / 2)
        c = (size_t)INT_MAX / 2;
    return c;
}

int ndd_exchange(ndd_buf_t *send, ndd_buf_t *recv, size_t chunk, uint64_t *remote_bytes)
{
    int P = ndd_mpi_size(), me = ndd_mpi_rank();
    int rc = NDD_OK;
    uint64_t *scount = calloc((size_t)P, sizeof *scount), *rcount = calloc((size_t)P, sizeof *rcount);
    size_t *sdone = calloc((size_t)P, sizeof *sdone), *rdone = calloc((size_t)P, sizeof *rdone);
    int *sc = calloc((size_t)P, sizeof *sc), *rcv = calloc((size_t)P, sizeof *rcv);
    int *sd = calloc((size_t)P, sizeof *sd), *rd = calloc((size_t)P, sizeof *rd);
    char *sbuf = NULL, *rbuf = NULL;
    if (!scount || !rcount || !sdone || !rdone || !sc || !rcv || !sd || !rd) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    if (chunk == 0 || chunk > (size_t)INT_MAX / (size_t)P)
        chunk = (size_t)INT_MAX / (size_t)P;
    for (int d = 0; d < P; d++) {
        scount[d] = send[d].len;
        if (remote_bytes && d != me)
            *remote_bytes += send[d].len;
        ndd_buf_clear(&recv[d]);
    }
    if (MPI_Alltoall(scount, 1, MPI_UINT64_T, rcount, 1, MPI_UINT64_T, MPI_COMM_WORLD) != MPI_SUCCESS) {
        rc = NDD_ERR_INTERNAL;
        goto out;
    }
    uint64_t my_rounds = 0, rounds = 0;
    for (int d = 0; d < P; d++) {
        uint64_t r1 = (scount[d] + chunk - 1) / chunk, r2 = (rcount[d] + chunk - 1) / chunk;
        if (r1 > my_rounds) my_rounds = r1;
        if (r2 > my_rounds) my_rounds = r2;
        if ((rc = ndd_buf_reserve(&recv[d], (size_t)rcount[d])))
            break;
    }
    rc = ndd_mpi_agree(rc);
    if (rc)
        goto out;
    if (MPI_Allreduce(&my_rounds, &rounds, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) {
        rc = NDD_ERR_INTERNAL;
        goto out;
    }
    if (rounds) {
        sbuf = malloc((size_t)P * chunk);
        rbuf = malloc((size_t)P * chunk);
    }
    rc = ndd_mpi_agree(rounds && (!sbuf || !rbuf) ? NDD_ERR_NOMEM : NDD_OK);
    if (rc)
        goto out;
    for (uint64_t r = 0; r < rounds; r++) {
        int so = 0, ro = 0;
        for (int d = 0; d < P; d++) {
            size_t n = send[d].len - sdone[d];
            if (n > chunk)
                n = chunk;
            if (n)
                memcpy(sbuf + so, send[d].data + sdone[d], n);
            sc[d] = (int)n;
            sd[d] = so;
            so += (int)n;
            sdone[d] += n;
            size_t m = (size_t)rcount[d] - rdone[d];
            if (m > chunk)
                m = chunk;
            rcv[d] = (int)m;
            rd[d] = ro;
            ro += (int)m;
        }
        if (MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rcv, rd, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS) {
            rc = NDD_ERR_INTERNAL;
            goto out;
        }
        for (int d = 0; d < P; d++) {
            ndd_buf_append(&recv[d], rbuf + rd[d], (size_t)rcv[d]); /* reserved above: cannot fail */
            rdone[d] += (size_t)rcv[d];
        }
    }
out:
    free(scount); free(rcount); free(sdone); free(rdone);
    free(sc); free(rcv); free(sd); free(rd);
    free(sbuf); free(rbuf);
    return rc;
}

int ndd_write_ordered(const char *path, const char *data, size_t len)
{
    uint64_t mine = len, off = 0;
    MPI_Exscan(&mine, &off, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (ndd_mpi_rank() == 0)
        off = 0;
    MPI_File fh;
    int rc = NDD_OK;
    if (ndd_mpi_rank() == 0)
        unlink(path); /* truncate: MPI_MODE_CREATE keeps old bytes */
    MPI_Barrier(MPI_COMM_WORLD);
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS)
        return ndd_mpi_agree(NDD_ERR_IO);
    size_t done = 0;
    while (done < len) {
        size_t n = len - done;
        if (n > ((size_t)1 << 30))
            n = (size_t)1 << 30;
        MPI_Status st;
        if (MPI_File_write_at(fh, (MPI_Offset)(off + done), data + done, (int)n, MPI_BYTE, &st) != MPI_SUCCESS) {
            rc = NDD_ERR_IO;
            break;
        }
        done += n;
    }
    if (MPI_File_close(&fh) != MPI_SUCCESS && !rc)
        rc = NDD_ERR_IO;
    return ndd_mpi_agree(rc);
}

int ndd_global_ranges(uint64_t n, uint64_t *first, uint64_t **starts)
{
    int P = ndd_mpi_size();
    uint64_t *all = malloc(((size_t)P + 1) * sizeof *all);
    if (ndd_mpi_agree(all ? NDD_OK : NDD_ERR_NOMEM)) {
        free(all);
        return NDD_ERR_NOMEM;
    }
    MPI_Allgather(&n, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    uint64_t sum = 0;
    for (int r = 0; r < P; r++) {
        uint64_t c = all[r];
        all[r] = sum;
        sum += c;
    }
    all[P] = sum;
    *first = all[ndd_mpi_rank()];
    *starts = all;
    return NDD_OK;
}

int ndd_owner_of(const uint64_t *starts, int nranks, uint64_t g)
{
    /* largest r with starts[r] <= g and starts[r+1] > g */
    int lo = 0, hi = nranks - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (starts[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    while (lo < nranks - 1 && starts[lo + 1] <= g)
        lo++;
    return lo;
}
