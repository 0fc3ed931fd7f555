/* ndd_comm.h - the transport interface of ndd's engine: the only way data
 * crosses ranks. A communicator is an object with swappable backends (as
 * PETSc's PetscSF): the MPI one (mpi/comm_mpi.c, loaded only by the
 * subcommands that need it) and the in-process one (comm_local.c: P ranks as
 * threads of one process, for tests with sanitizers and for one machine
 * without mpirun).
 *
 * Every operation below is COLLECTIVE on the communicator: all of its ranks
 * call it, in the same order, with matching arguments, unless it is marked
 * Local. Every operation returns 0 or a negative NDD_ERR_*; the collective
 * ones return the same code on every rank (a failure on one rank is agreed
 * before returning), so all ranks branch the same way afterwards.
 *
 * Data that crosses ranks is bytes; multi-byte values in it are
 * little-endian fixed width (see ndd_wire.h in src/util). */
#ifndef NDD_COMM_H
#define NDD_COMM_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"

typedef enum { NDD_RED_SUM = 0, NDD_RED_MIN, NDD_RED_MAX } ndd_red_t;
typedef enum { NDD_TY_U32 = 0, NDD_TY_U64, NDD_TY_F64 } ndd_ty_t;

typedef struct ndd_comm ndd_comm_t;
typedef struct ndd_comm_req ndd_comm_req_t;

/* Gives the next piece of a rank's bytes for write_ordered: *p, *n (n > 0;
 * valid until the next call). NDD_OK or an NDD_ERR_*. */
typedef int (*ndd_comm_fill_fn)(void *user, const void **p, size_t *n);

typedef struct ndd_comm_ops {
    const char *name; /* "mpi", "local" */
    /* Worst (most negative) rc of all ranks. Never fails: a transport error
     * makes it return NDD_ERR_INTERNAL on every rank that sees it. */
    int (*agree)(ndd_comm_t *c, int rc);
    /* In place: buf[0..n) of type ty becomes its reduction over all ranks. */
    int (*allreduce)(ndd_comm_t *c, void *buf, size_t n, ndd_ty_t ty, ndd_red_t op);
    /* Every rank contributes len bytes; *all receives the concatenation in
     * rank order (cleared first), lens[0..P) each rank's length (may be NULL). */
    int (*allgather)(ndd_comm_t *c, const void *mine, size_t len, ndd_buf_t *all, uint64_t *lens);
    /* All-to-all of byte blocks: send[d] goes to rank d; recv[s] receives
     * what rank s sent (both arrays hold P buffers; recv[] is cleared first;
     * send[] is left as it was). Messages are chunked by the backend, so any
     * size works. *remote_bytes (may be NULL) += bytes sent to other ranks. */
    int (*exchange)(ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, uint64_t *remote_bytes);
    /* May be NULL. ndd_comm_exchange_move done by the backend: send[] is
     * consumed (left empty) and recv[s] may be rank s's very buffer (ranks
     * that share one address space hand the buffers over instead of copying
     * them). Same results as exchange. */
    int (*exchange_move)(ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, uint64_t *remote_bytes);
    /* Writes each rank's len bytes into one file, in rank order (rank r's
     * bytes at the sum of the lengths of ranks < r); the file is replaced.
     * The bytes come from fill, piece by piece, so that they need not be in
     * memory at once; a fill error, a piece past len or a fill that stops
     * short is this rank's error (agreed like the others). Every write and
     * the close are checked. */
    int (*write_ordered)(ndd_comm_t *c, const char *path, uint64_t len, ndd_comm_fill_fn fill, void *user);
    /* Non-blocking sum of n <= 4 uint64 (for progress reports): _start is
     * collective in the sense that every rank starts the same sequence of
     * requests; _test is Local and never blocks (1 = complete, out filled,
     * request freed; 0 = pending); _wait is Local and blocks until complete
     * (0, out filled, request freed). On an error (< 0) the request is freed
     * too. A backend may leave these NULL: then progress reports are off. */
    int (*iallreduce_start)(ndd_comm_t *c, const uint64_t *in, size_t n, ndd_comm_req_t **req);
    int (*iallreduce_test)(ndd_comm_req_t *req, uint64_t *out);
    int (*iallreduce_wait)(ndd_comm_req_t *req, uint64_t *out);
    /* Local: 1 when rank peer runs on this rank's node (bytes to it cross
     * no network, so compressing them only costs time), 0 when it runs on
     * another node or that is not known. May be NULL (= 0). With
     * NDD_COMM_FAR=1 in the environment every other rank counts as on
     * another node (tests of the compressed path; measurements). */
    int (*near)(const ndd_comm_t *c, int peer);
    /* Local: frees the communicator object (not collective). */
    void (*free)(ndd_comm_t *c);
} ndd_comm_ops_t;

struct ndd_comm {
    const ndd_comm_ops_t *ops;
    void *impl; /* the backend's state */
    int rank, size;
};

/* ---- thin wrappers (same contracts as the ops) ---- */
static inline int ndd_comm_agree(ndd_comm_t *c, int rc) { return c->ops->agree(c, rc); }
static inline int ndd_comm_allreduce(ndd_comm_t *c, void *buf, size_t n, ndd_ty_t ty, ndd_red_t op)
{
    return c->ops->allreduce(c, buf, n, ty, op);
}
static inline int ndd_comm_allgather(ndd_comm_t *c, const void *mine, size_t len, ndd_buf_t *all, uint64_t *lens)
{
    return c->ops->allgather(c, mine, len, all, lens);
}
static inline int ndd_comm_exchange(ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, uint64_t *remote_bytes)
{
    return c->ops->exchange(c, send, recv, remote_bytes);
}
static inline int ndd_comm_write_ordered_fill(ndd_comm_t *c, const char *path, uint64_t len, ndd_comm_fill_fn fill,
                                              void *user)
{
    return c->ops->write_ordered(c, path, len, fill, user);
}
/* write_ordered of bytes that are in memory (ndd_comm.c). */
int ndd_comm_write_ordered(ndd_comm_t *c, const char *path, const void *data, size_t len);
static inline int ndd_comm_near(const ndd_comm_t *c, int peer)
{
    return peer == c->rank || (c->ops->near && c->ops->near(c, peer));
}
/* Local: NDD_COMM_FAR=1 in the environment (see near). */
int ndd_comm_far_forced(void);
static inline void ndd_comm_free(ndd_comm_t *c)
{
    if (c)
        c->ops->free(c);
}

/* ---- helpers built on the ops (ndd_comm.c) ---- */
/* Collective. Exclusive prefix sum of v over ranks (rank 0 gets 0) and the total. */
int ndd_comm_exscan_u64(ndd_comm_t *c, uint64_t v, uint64_t *before, uint64_t *total);
/* Collective. The global numbering of items ranks hold in rank order:
 * *first = exclusive scan of n; *starts (allocated, P+1 entries, caller
 * frees) every rank's first item and the total at starts[P]. */
int ndd_comm_global_ranges(ndd_comm_t *c, uint64_t n, uint64_t *first, uint64_t **starts);
/* Collective. ndd_comm_exchange that consumes send[]: every send buffer is
 * left empty (freed), and this rank's own block send[me] becomes recv[me]
 * without being copied. For the big shuffles, whose send side is dropped
 * after the exchange anyway. */
int ndd_comm_exchange_move(ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, uint64_t *remote_bytes);
/* Local. P empty buffers (NULL on allocation failure) and their release. */
ndd_buf_t *ndd_bufs_new(int P);
void ndd_bufs_free(ndd_buf_t *b, int P);

/* ---- the in-process backend (comm_local.c) ----
 * Runs fn(comm, arg) on P ranks, each a thread of this process with its own
 * communicator; returns after every rank returned. rcs[r] (may be NULL)
 * receives rank r's return value; the result is the worst of them (or an
 * NDD_ERR_* if the threads could not start). P in 1..NDD_LOCAL_MAX_RANKS.
 * The communicators belong to the run: ndd_comm_free() only marks the rank
 * as departed. Once a rank has departed (fn returned or comm freed), ranks
 * waiting in or entering a collective get NDD_ERR_INTERNAL instead of
 * hanging. Collectives are deterministic (reductions in rank order). */
#define NDD_LOCAL_MAX_RANKS 256
int ndd_comm_local_run(int P, int (*fn)(ndd_comm_t *c, void *arg), void *arg, int *rcs);

#endif
