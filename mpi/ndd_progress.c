/* ndd_progress.c - see ndd_progress.h */
#include "ndd_progress.h"
#include "ndd_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ndd_progress {
    char stage[32], unit[16];
    double every, start, last;
    uint64_t total, done;
    uint64_t send[3], recv[3];
    MPI_Request req;
    int pending;
};

static MPI_Comm g_comm = MPI_COMM_NULL;

static void report(ndd_progress_t *p, int final)
{
    if (ndd_mpi_rank() != 0)
        return;
    double el = ndd_mpi_now() - p->start;
    double done = (double)p->recv[0], total = (double)p->recv[1];
    double rate = el > 0 ? done / el : 0;
    int bytes = !strcmp(p->unit, "bytes");
    double scale = bytes ? 1.0 / (1 << 20) : 1.0;
    const char *u = bytes ? "MB" : p->unit;
    char eta[32] = "-";
    if (!final && rate > 0 && total > done)
        snprintf(eta, sizeof eta, "%.0f s", (total - done) / rate);
    fprintf(stderr, "[progress] %-10s %.1f / %.1f %s (%.1f %%), %.1f %s/s, %s %s, %llu of %d ranks done\n", p->stage,
            done * scale, total * scale, u, total > 0 ? 100.0 * done / total : 100.0, rate * scale, u,
            final ? "took" : "ETA", final ? (snprintf(eta, sizeof eta, "%.1f s", el), eta) : eta,
            (unsigned long long)p->recv[2], ndd_mpi_size());
}

static void start_round(ndd_progress_t *p, int finished)
{
    p->send[0] = p->done;
    p->send[1] = p->total;
    p->send[2] = (uint64_t)finished;
    MPI_Iallreduce(p->send, p->recv, 3, MPI_UINT64_T, MPI_SUM, g_comm, &p->req);
    p->pending = 1;
    p->last = ndd_mpi_now();
}

ndd_progress_t *ndd_progress_begin(const char *stage, const char *unit, double every, uint64_t my_total)
{
    if (every <= 0)
        return NULL;
    if (g_comm == MPI_COMM_NULL) /* every rank gets here: begin is collective */
        MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
    ndd_progress_t *p = calloc(1, sizeof *p);
    if (!p)
        MPI_Abort(MPI_COMM_WORLD, 1); /* out of memory: every rank must take part in the rounds */
    snprintf(p->stage, sizeof p->stage, "%s", stage);
    snprintf(p->unit, sizeof p->unit, "%s", unit);
    p->every = every;
    p->total = my_total;
    p->start = p->last = ndd_mpi_now();
    return p;
}

void ndd_progress_update(ndd_progress_t *p, uint64_t my_done)
{
    if (!p)
        return;
    p->done = my_done;
    if (p->pending) {
        int flag = 0;
        MPI_Test(&p->req, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            p->pending = 0;
            report(p, 0);
        }
    }
    if (!p->pending && ndd_mpi_now() - p->last >= p->every)
        start_round(p, 0);
}

void ndd_progress_end(ndd_progress_t *p, uint64_t my_done)
{
    if (!p)
        return;
    p->done = my_done;
    for (;;) {
        if (p->pending) {
            MPI_Wait(&p->req, MPI_STATUS_IGNORE);
            p->pending = 0;
            if (p->recv[2] == (uint64_t)ndd_mpi_size())
                break;
        }
        start_round(p, 1);
    }
    report(p, 1);
    free(p);
}
