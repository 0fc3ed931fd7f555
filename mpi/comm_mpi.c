/* comm_mpi.c - the transport interface (src/engine/ndd_comm.h) over an MPI
 * communicator. See ndd_comm_mpi.h.
 *
 * Every MPI return code is checked (the communicators return errors instead
 * of aborting: MPI_ERRORS_RETURN), and every op ends by agreeing on the worst
 * rc of all ranks (a MIN-Allreduce), so that all ranks branch the same way.
 * A sequence of collectives is never left half way on an error: a rank that
 * sees one keeps making the remaining calls of the sequence (so that the
 * ranks stay matched) and reports it at the agreement. MPI_Abort only for
 * out of memory where the other ranks would otherwise wait forever. */
#include "ndd_comm_mpi.h"
#include "ndd_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct comm_mpi {
    MPI_Comm comm;  /* the blocking collectives */
    MPI_Comm pcomm; /* the non-blocking progress sums */
    size_t chunk;   /* bytes per pair of ranks and round */
    uint8_t *near;  /* near[p]: rank p runs on this rank's node */
} comm_mpi_t;

struct ndd_comm_req {
    MPI_Request req;
    uint64_t in[4], out[4];
    size_t n;
};

#define MPI_RC(call) ((call) == MPI_SUCCESS ? NDD_OK : NDD_ERR_INTERNAL)
#define KEEP(rc, r) ((rc) ? (rc) : (r)) /* the first error of a sequence */

static MPI_Comm comm_of(const ndd_comm_t *c) { return ((const comm_mpi_t *)c->impl)->comm; }
static size_t chunk_of(const ndd_comm_t *c) { return ((const comm_mpi_t *)c->impl)->chunk; }

/* Collective. Worst rc over the ranks; NDD_ERR_INTERNAL if MPI fails. */
static int mpi_agree(ndd_comm_t *c, int rc)
{
    int worst = rc;
    if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, comm_of(c)) != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    return worst;
}

static int mpi_type(ndd_ty_t ty, MPI_Datatype *dt, size_t *size)
{
    switch (ty) {
    case NDD_TY_U32: *dt = MPI_UINT32_T; *size = 4; return NDD_OK;
    case NDD_TY_U64: *dt = MPI_UINT64_T; *size = 8; return NDD_OK;
    case NDD_TY_F64: *dt = MPI_DOUBLE; *size = 8; return NDD_OK;
    }
    return NDD_ERR_INVAL;
}

static int mpi_op(ndd_red_t op, MPI_Op *mop)
{
    switch (op) {
    case NDD_RED_SUM: *mop = MPI_SUM; return NDD_OK;
    case NDD_RED_MIN: *mop = MPI_MIN; return NDD_OK;
    case NDD_RED_MAX: *mop = MPI_MAX; return NDD_OK;
    }
    return NDD_ERR_INVAL;
}

/* Collective. In place, in pieces of at most INT_MAX elements. */
static int mpi_allreduce(ndd_comm_t *c, void *buf, size_t n, ndd_ty_t ty, ndd_red_t op)
{
    MPI_Datatype dt;
    MPI_Op mop;
    size_t size;
    if (mpi_type(ty, &dt, &size) || mpi_op(op, &mop))
        return NDD_ERR_INVAL; /* the same arguments on every rank: the same answer */
    int rc = NDD_OK;
    char *p = buf;
    while (n) {
        size_t k = n > (size_t)INT_MAX ? (size_t)INT_MAX : n;
        rc = KEEP(rc, MPI_RC(MPI_Allreduce(MPI_IN_PLACE, p, (int)k, dt, mop, comm_of(c))));
        p += k * size;
        n -= k;
    }
    return mpi_agree(c, rc);
}

/* Collective. Lengths first (one Allgather), then the bytes with
 * MPI_Allgatherv: straight into *all when one round suffices (every rank
 * sends at most `chunk` bytes), else in rounds of at most `chunk` bytes per
 * rank through a bounce buffer. */
static int mpi_allgather(ndd_comm_t *c, const void *mine, size_t len, ndd_buf_t *all, uint64_t *lens)
{
    const int P = c->size, me = c->rank;
    const size_t chunk = chunk_of(c);
    uint64_t *L = malloc((size_t)P * sizeof *L), *start = malloc((size_t)P * sizeof *start);
    int *cnt = malloc((size_t)P * sizeof *cnt), *dsp = malloc((size_t)P * sizeof *dsp);
    char *bounce = NULL;
    uint64_t my = len, total = 0, rounds = 0, round_max = 0;
    int rc = L && start && cnt && dsp ? NDD_OK : NDD_ERR_NOMEM;
    if ((rc = mpi_agree(c, rc)))
        goto out;
    rc = MPI_RC(MPI_Allgather(&my, 1, MPI_UINT64_T, L, 1, MPI_UINT64_T, comm_of(c)));
    if ((rc = mpi_agree(c, rc)))
        goto out;
    for (int s = 0; s < P; s++) { /* every rank sees the same L: the same decisions */
        if (L[s] > (uint64_t)SIZE_MAX - 1 - total) {
            rc = NDD_ERR_LIMIT;
            goto out;
        }
        start[s] = total;
        total += L[s];
        uint64_t r = (L[s] + chunk - 1) / chunk;
        if (r > rounds)
            rounds = r;
        round_max += L[s] < chunk ? L[s] : chunk;
    }
    ndd_buf_clear(all);
    rc = ndd_buf_reserve(all, (size_t)total);
    if (!rc && rounds > 1 && !(bounce = malloc((size_t)round_max)))
        rc = NDD_ERR_NOMEM;
    if ((rc = mpi_agree(c, rc)))
        goto out;
    for (uint64_t r = 0; r < rounds; r++) {
        const uint64_t off = r * chunk;
        int acc = 0;
        for (int s = 0; s < P; s++) {
            uint64_t k = L[s] > off ? L[s] - off : 0;
            if (k > chunk)
                k = chunk;
            cnt[s] = (int)k; /* k <= chunk <= INT_MAX / P */
            dsp[s] = rounds > 1 ? acc : (int)start[s];
            acc += (int)k;
        }
        char *dst = rounds > 1 ? bounce : all->data;
        const char *src = cnt[me] ? (const char *)mine + off : dst;
        rc = KEEP(rc, MPI_RC(MPI_Allgatherv(src, cnt[me], MPI_BYTE, dst, cnt, dsp, MPI_BYTE, comm_of(c))));
        if (!rc && rounds > 1)
            for (int s = 0; s < P; s++)
                if (cnt[s])
                    memcpy(all->data + start[s] + off, bounce + dsp[s], (size_t)cnt[s]);
    }
    if (!rc) {
        all->len = (size_t)total;
        all->data[all->len] = '\0';
        if (lens)
            memcpy(lens, L, (size_t)P * sizeof *L);
    }
    rc = mpi_agree(c, rc);
out:
    if (rc)
        ndd_buf_clear(all);
    free(L);
    free(start);
    free(cnt);
    free(dsp);
    free(bounce);
    return rc;
}

#define EXCHANGE_TAG 7301 /* the only point-to-point messages of this communicator */

/* Collective. Counts first (MPI_Alltoall), every receive buffer reserved at
 * its final size, then rounds of non-blocking point-to-point messages sent
 * straight from send[d] and received straight into recv[s]: in each round a
 * rank posts at most one piece of at most `chunk` bytes to and from every
 * other rank and waits for them (messages between two ranks with one tag
 * arrive in order). No bounce buffer: the memory is the blocks themselves.
 * A rank's own block is copied (ndd_comm_exchange_move moves it instead). */
static int mpi_exchange(ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, uint64_t *remote_bytes)
{
    const int P = c->size, me = c->rank;
    const size_t chunk = chunk_of(c);
    uint64_t *scount = calloc((size_t)P, sizeof *scount), *rcount = calloc((size_t)P, sizeof *rcount);
    size_t *sdone = calloc((size_t)P, sizeof *sdone), *rdone = calloc((size_t)P, sizeof *rdone);
    MPI_Request *req = malloc(2 * (size_t)P * sizeof *req);
    uint64_t remote = 0;
    int rc = scount && rcount && sdone && rdone && req ? NDD_OK : NDD_ERR_NOMEM;
    if ((rc = mpi_agree(c, rc)))
        goto out;
    for (int d = 0; d < P; d++) {
        scount[d] = send[d].len;
        if (d != me)
            remote += send[d].len;
        ndd_buf_clear(&recv[d]);
    }
    rc = MPI_RC(MPI_Alltoall(scount, 1, MPI_UINT64_T, rcount, 1, MPI_UINT64_T, comm_of(c)));
    if ((rc = mpi_agree(c, rc)))
        goto out;
    for (int d = 0; d < P && !rc; d++) {
        if (rcount[d] > (uint64_t)SIZE_MAX - 1)
            rc = NDD_ERR_LIMIT;
        else
            rc = ndd_buf_reserve(&recv[d], (size_t)rcount[d]);
    }
    if (!rc && send[me].len)
        rc = ndd_buf_append(&recv[me], send[me].data, send[me].len);
    rdone[me] = (size_t)rcount[me];
    sdone[me] = send[me].len;
    if ((rc = mpi_agree(c, rc)))
        goto out;
    for (;;) {
        int nreq = 0;
        for (int d = 0; d < P && !rc; d++) {
            size_t m = (size_t)rcount[d] - rdone[d], n = send[d].len - sdone[d];
            if (m) {
                m = m > chunk ? chunk : m; /* chunk <= INT_MAX */
                rc = KEEP(rc, MPI_RC(MPI_Irecv(recv[d].data + rdone[d], (int)m, MPI_BYTE, d, EXCHANGE_TAG,
                                               comm_of(c), &req[nreq++])));
                rdone[d] += m;
            }
            if (n) {
                n = n > chunk ? chunk : n;
                rc = KEEP(rc, MPI_RC(MPI_Isend(send[d].data + sdone[d], (int)n, MPI_BYTE, d, EXCHANGE_TAG,
                                               comm_of(c), &req[nreq++])));
                sdone[d] += n;
            }
        }
        if (!nreq)
            break;
        rc = KEEP(rc, MPI_RC(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE)));
        if (rc)
            break; /* MPI's errors are fatal by default: not reached in practice */
    }
    for (int d = 0; d < P && !rc; d++)
        recv[d].len = (size_t)rcount[d];
    for (int d = 0; d < P; d++)
        if (recv[d].data)
            recv[d].data[recv[d].len] = '\0';
    if ((rc = mpi_agree(c, rc)))
        goto out;
    if (remote_bytes)
        *remote_bytes += remote;
out:
    if (rc && recv)
        for (int d = 0; d < P; d++)
            ndd_buf_clear(&recv[d]);
    free(scount);
    free(rcount);
    free(sdone);
    free(rdone);
    free(req);
    return rc;
}

static int mpi_near(const ndd_comm_t *c, int peer);

/* The next piece of an ordered write from fill: *p[0..*pn), not empty and
 * within the len - done bytes left (the pieces must add up to len). */
static int next_piece(ndd_comm_fill_fn fill, void *user, uint64_t len, uint64_t done, const char **p, size_t *pn)
{
    const void *piece = NULL;
    *pn = 0;
    int rc = fill ? fill(user, &piece, pn) : NDD_ERR_INVAL;
    if (!rc && (*pn == 0 || *pn > len - done || !piece))
        rc = NDD_ERR_INTERNAL;
    *p = piece;
    return rc;
}

/* The ordered write when every rank runs on this node: each rank pwrite()s its
 * bytes at its offset in the one file (one page cache: nothing for MPI-IO to
 * coordinate). MPI_File_open's first call cost 9 ms and each later one
 * about 1 (its components loaded and set up; 13 ms for a run's five output
 * files on 2 ranks of the bench-run corpus). The file is created with mode
 * 0666 less the umask, as MPI_File_open does; every write and the close are
 * checked. */
static int posix_write_at(ndd_comm_t *c, const char *path, uint64_t off, uint64_t len, ndd_comm_fill_fn fill,
                          void *user)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    int rc = fd >= 0 ? NDD_OK : NDD_ERR_IO;
    if ((rc = mpi_agree(c, rc))) {
        if (fd >= 0)
            close(fd);
        return rc;
    }
    uint64_t done = 0;
    while (!rc && done < len) { /* each piece from fill, written whole (pwrite may write less) */
        const char *p;
        size_t pn;
        if ((rc = next_piece(fill, user, len, done, &p, &pn)))
            break;
        for (size_t at = 0; at < pn && !rc;) {
            ssize_t w = pwrite(fd, p + at, pn - at, (off_t)(off + done + at));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                rc = NDD_ERR_IO;
            else
                at += (size_t)w;
        }
        done += pn;
    }
    if (close(fd))
        rc = KEEP(rc, NDD_ERR_IO);
    return mpi_agree(c, rc);
}

/* Collective. MPI-IO: the offsets by an exclusive scan of the lengths; rank 0
 * removes the old file (MPI_MODE_CREATE would keep its bytes beyond ours);
 * the agreement after that is the barrier (no rank opens before rank 0 has
 * removed it); open, write_at in pieces of 1 GiB (each checked for its
 * count), close. All ranks on this node: posix_write_at instead of MPI-IO. */
static int mpi_write_ordered(ndd_comm_t *c, const char *path, uint64_t len, ndd_comm_fill_fn fill, void *user)
{
    uint64_t mine = len, off = 0;
    int rc = MPI_RC(MPI_Exscan(&mine, &off, 1, MPI_UINT64_T, MPI_SUM, comm_of(c)));
    if (c->rank == 0) {
        off = 0; /* MPI_Exscan leaves rank 0's result undefined */
        if (unlink(path) && errno != ENOENT)
            rc = KEEP(rc, NDD_ERR_IO);
    }
    if ((rc = mpi_agree(c, rc)))
        return rc;
    int local = 1;
    for (int p = 0; p < c->size && local; p++)
        local = mpi_near(c, p);
    if (local)
        return posix_write_at(c, path, off, len, fill, user);
    MPI_File fh = MPI_FILE_NULL;
    /* MPI_File_open takes a non-const path in MPI-2 headers */
    rc = MPI_File_open(comm_of(c), (char *)path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS
             ? NDD_OK
             : NDD_ERR_IO;
    if ((rc = mpi_agree(c, rc))) {
        /* The open failed somewhere. Closing is collective: a rank where it
         * succeeded cannot close alone, so it leaves the handle to
         * MPI_Finalize rather than wait forever. */
        return rc;
    }
    uint64_t done = 0;
    while (!rc && done < len) { /* each piece from fill, written in parts of at most 1 GiB */
        const char *p;
        size_t pn;
        if ((rc = next_piece(fill, user, len, done, &p, &pn)))
            break;
        for (size_t at = 0; at < pn && !rc;) {
            size_t n = pn - at > ((size_t)1 << 30) ? (size_t)1 << 30 : pn - at;
            MPI_Status st;
            int got = 0;
            if (MPI_File_write_at(fh, (MPI_Offset)(off + done + at), p + at, (int)n, MPI_BYTE, &st) != MPI_SUCCESS ||
                MPI_Get_count(&st, MPI_BYTE, &got) != MPI_SUCCESS || (size_t)got != n)
                rc = NDD_ERR_IO;
            at += n;
        }
        done += pn;
    }
    if (MPI_File_close(&fh) != MPI_SUCCESS)
        rc = KEEP(rc, NDD_ERR_IO);
    return mpi_agree(c, rc);
}

/* ---- progress sums: MPI_Iallreduce on the second duplicate ---- */

static int mpi_iallreduce_start(ndd_comm_t *c, const uint64_t *in, size_t n, ndd_comm_req_t **req)
{
    *req = NULL;
    if (n > 4)
        return NDD_ERR_INVAL;
    ndd_comm_req_t *r = calloc(1, sizeof *r);
    if (!r)
        MPI_Abort(comm_of(c), 1); /* out of memory: the other ranks' request would never complete */
    memcpy(r->in, in, n * sizeof *in);
    r->n = n;
    if (MPI_Iallreduce(r->in, r->out, (int)n, MPI_UINT64_T, MPI_SUM, ((comm_mpi_t *)c->impl)->pcomm, &r->req) !=
        MPI_SUCCESS) {
        free(r);
        return NDD_ERR_INTERNAL;
    }
    *req = r;
    return NDD_OK;
}

static int mpi_iallreduce_test(ndd_comm_req_t *r, uint64_t *out)
{
    int flag = 0;
    if (MPI_Test(&r->req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        free(r);
        return NDD_ERR_INTERNAL;
    }
    if (!flag)
        return 0;
    memcpy(out, r->out, r->n * sizeof *out);
    free(r);
    return 1;
}

static int mpi_iallreduce_wait(ndd_comm_req_t *r, uint64_t *out)
{
    int rc = MPI_RC(MPI_Wait(&r->req, MPI_STATUS_IGNORE));
    if (!rc)
        memcpy(out, r->out, r->n * sizeof *out);
    free(r);
    return rc;
}

/* Local in ndd's sense: every rank frees its communicator at the end, so
 * the MPI_Comm_free calls match. */
static void mpi_free(ndd_comm_t *c)
{
    comm_mpi_t *m = c->impl;
    if (m) {
        if (m->pcomm != MPI_COMM_NULL)
            MPI_Comm_free(&m->pcomm);
        if (m->comm != MPI_COMM_NULL)
            MPI_Comm_free(&m->comm);
        free(m->near);
        free(m);
    }
    free(c);
}

/* m->near: the ranks of each node's shared-memory communicator
 * (MPI_COMM_TYPE_SHARED) are near one another; the lowest of them names the
 * node. Collective on m->comm; every step agreed, so that all ranks make the
 * same calls. */
static int find_near(ndd_comm_t *c, comm_mpi_t *m)
{
    MPI_Comm node = MPI_COMM_NULL;
    int leader = c->rank, *all = malloc((size_t)c->size * sizeof *all);
    m->near = calloc((size_t)c->size, 1);
    int rc = mpi_agree(c, all && m->near ? NDD_OK : NDD_ERR_NOMEM);
    if (!rc)
        rc = mpi_agree(c, MPI_RC(MPI_Comm_split_type(m->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node)));
    if (!rc) {
        rc = MPI_RC(MPI_Allreduce(&c->rank, &leader, 1, MPI_INT, MPI_MIN, node));
        rc = mpi_agree(c, rc);
    }
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    if (!rc)
        rc = mpi_agree(c, MPI_RC(MPI_Allgather(&leader, 1, MPI_INT, all, 1, MPI_INT, m->comm)));
    for (int p = 0; !rc && p < c->size; p++)
        m->near[p] = all[p] == leader;
    free(all);
    return rc;
}

static int mpi_near(const ndd_comm_t *c, int peer)
{
    const comm_mpi_t *m = c->impl;
    return m->near && peer >= 0 && peer < c->size && m->near[peer] && !ndd_comm_far_forced();
}

static const ndd_comm_ops_t mpi_ops = {
    .name = "mpi",
    .agree = mpi_agree,
    .allreduce = mpi_allreduce,
    .allgather = mpi_allgather,
    .exchange = mpi_exchange,
    .write_ordered = mpi_write_ordered,
    .iallreduce_start = mpi_iallreduce_start,
    .iallreduce_test = mpi_iallreduce_test,
    .iallreduce_wait = mpi_iallreduce_wait,
    .near = mpi_near,
    .free = mpi_free,
};

/* Default piece per pair of ranks: max(64 KiB, 256 MiB / P), at most
 * INT_MAX / P so that a round's counts and displacements fit int. */
static size_t default_chunk(int P)
{
    size_t c = ((size_t)256 << 20) / (size_t)P;
    if (c < ((size_t)64 << 10))
        c = (size_t)64 << 10;
    if (c > (size_t)INT_MAX / (size_t)P)
        c = (size_t)INT_MAX / (size_t)P;
    return c;
}

int ndd_comm_mpi_create(MPI_Comm parent, ndd_comm_t **out)
{
    *out = NULL;
    ndd_comm_t *c = calloc(1, sizeof *c);
    comm_mpi_t *m = calloc(1, sizeof *m);
    if (!c || !m)
        MPI_Abort(parent, 1); /* out of memory before the first collective */
    m->comm = m->pcomm = MPI_COMM_NULL;
    c->ops = &mpi_ops;
    c->impl = m;
    int rc = MPI_RC(MPI_Comm_rank(parent, &c->rank));
    rc = KEEP(rc, MPI_RC(MPI_Comm_size(parent, &c->size)));
    rc = KEEP(rc, MPI_RC(MPI_Comm_dup(parent, &m->comm)));
    rc = KEEP(rc, MPI_RC(MPI_Comm_dup(parent, &m->pcomm)));
    if (!rc) {
        rc = KEEP(rc, MPI_RC(MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN)));
        rc = KEEP(rc, MPI_RC(MPI_Comm_set_errhandler(m->pcomm, MPI_ERRORS_RETURN)));
    }
    /* agree on the parent: m->comm may not exist everywhere */
    int worst = rc;
    if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, parent) != MPI_SUCCESS)
        worst = NDD_ERR_INTERNAL;
    if ((rc = worst))
        goto out;
    uint64_t chunk = default_chunk(c->size);
    const char *env = getenv("NDD_MPI_CHUNK");
    if (env && *env) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (!errno && !*end && v >= 1 && v < chunk)
            chunk = v;
    }
    /* the same piece on every rank, or the rounds would not match */
    rc = MPI_RC(MPI_Allreduce(MPI_IN_PLACE, &chunk, 1, MPI_UINT64_T, MPI_MIN, m->comm));
    m->chunk = (size_t)chunk;
    if ((rc = mpi_agree(c, rc)))
        goto out;
    if ((rc = find_near(c, m)))
        goto out;
    *out = c;
    return NDD_OK;
out:
    mpi_free(c);
    return rc;
}
