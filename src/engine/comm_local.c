/* comm_local.c - the in-process backend of ndd_comm.h: P ranks as threads of
 * one process (tests with sanitizers and leak detection, rank invariance,
 * one machine without mpirun).
 *
 * How a collective works. All ranks share one state (local_shared_t) guarded
 * by one mutex. The building block is a generation barrier that also agrees
 * on a return code: every rank arrives with its rc, the last to arrive
 * stores the minimum and opens the next generation (agree is exactly one
 * barrier). A data collective is two barriers:
 *   1. each rank publishes pointers to its input in its slot (its own
 *      buffers, no copy) and arrives with the rc of its local preparation
 *      (argument checks, allocations); if the agreed rc is an error every
 *      rank returns it and nobody has read anybody's data;
 *   2. each rank reads the slots of all ranks, in rank order, and builds its
 *      own result in memory it owns (a temporary for the in-place
 *      allreduce); then it arrives with the rc of that work. Only after this
 *      second barrier may a rank touch its inputs again (write the allreduce
 *      result into buf, reuse send[], post the next collective's slot).
 * So results never depend on thread timing: every rank reduces in rank
 * order 0..P-1 (the F64 sums are bit-identical on every rank and every run),
 * and concatenations are in rank order.
 * Each barrier arrival carries the call site it comes from: ranks that call
 * different collectives (a caller bug that MPI may turn into a hang or
 * garbage) get NDD_ERR_INTERNAL on every rank, before anyone reads a slot.
 *
 * Departed ranks. A rank departs when its fn returns or when it frees its
 * communicator. A barrier that has not completed by then can never complete
 * (the departed rank will not arrive), so a departure breaks the
 * communicator: ranks waiting in a barrier wake up with NDD_ERR_INTERNAL and
 * every later collective returns NDD_ERR_INTERNAL at once. A rank that has
 * already seen its barrier complete is not affected (completion is checked
 * before breakage). iallreduce rounds that a departed rank never started
 * fail the same way.
 *
 * iallreduce. Round k of rank r is the k-th request r started; rounds live
 * in a list sorted by sequence number, created by the first rank to start
 * them, completed by the last (the sum is taken in rank order), freed when
 * every rank has collected its result. Requests are slots inside their
 * round; rounds still open when the run ends are freed by the run.
 *
 * The communicators belong to ndd_comm_local_run: ops->free only marks the
 * rank as departed, the memory is released when the run returns. */
#include "ndd_comm.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define LOCAL_IAR_MAX 4

typedef struct local_shared local_shared_t;
typedef struct local_round local_round_t;

/* What one rank publishes for the collective in progress. */
typedef struct local_slot {
    const void *p; /* allreduce buf, allgather bytes, exchange send[] */
    size_t n;      /* element count / length */
    int ty, op;    /* allreduce: to check that ranks agree on the call */
} local_slot_t;

struct ndd_comm_req {
    local_shared_t *sh;
    local_round_t *round;
    int rank;
    bool live; /* started and not yet collected */
};

struct local_round {
    uint64_t seq;
    size_t n;          /* count given by the ranks (they must agree) */
    int arrived;       /* ranks that started it */
    int released;      /* ranks whose request is done with it */
    int rc;            /* NDD_ERR_INVAL if ranks disagreed on n */
    uint64_t sum[LOCAL_IAR_MAX]; /* sums mod 2^64: the order of arrival cannot matter */
    local_round_t *next;
    ndd_comm_req_t req[]; /* one per rank */
};

typedef struct local_rank {
    ndd_comm_t comm;
    local_shared_t *sh;
    int (*fn)(ndd_comm_t *c, void *arg);
    void *arg;
    pthread_t thread;
    int rc;            /* fn's return value */
    bool departed;
    uint64_t iar_next; /* sequence number of this rank's next iallreduce */
} local_rank_t;

struct local_shared {
    int P;
    pthread_mutex_t mu;
    pthread_cond_t cv;     /* barrier generations and the start gate */
    pthread_cond_t iar_cv; /* iallreduce rounds */
    int gate;              /* 0 wait, 1 go, < 0 abort with that code */
    uint64_t gen;          /* barriers completed */
    int count, worst;      /* the barrier being filled */
    int tag;               /* its call site (first arrival's) */
    bool mismatch;         /* a rank arrived from another call site */
    int result;            /* agreed rc of the last completed barrier */
    bool broken;           /* a rank departed: barriers can no longer complete */
    uint64_t iar_fail;     /* rounds >= this failed to be created (NOMEM) */
    local_round_t *rounds; /* open iallreduce rounds, ascending seq */
    local_slot_t slot[NDD_LOCAL_MAX_RANKS];
    local_rank_t rank[NDD_LOCAL_MAX_RANKS];
};

/* ---- barrier with agreement ---- */

/* Call sites of the barrier: ranks that arrive from different ones called
 * different collectives (a bug in the caller); that is detected and agreed
 * as NDD_ERR_INTERNAL, and since every collective returns on a failed
 * barrier, the ranks are aligned again afterwards. */
enum {
    TAG_AGREE = 1,
    TAG_ALLREDUCE_1, TAG_ALLREDUCE_2,
    TAG_ALLGATHER_1, TAG_ALLGATHER_2,
    TAG_EXCHANGE_1, TAG_EXCHANGE_2,
    TAG_MOVE_1, TAG_MOVE_2,
    TAG_WRITE_1, TAG_WRITE_2
};

/* Collective. Returns the minimum of every rank's rc, or NDD_ERR_INTERNAL if
 * a rank departed before arriving or ranks arrived from different tags. */
static int local_barrier(local_shared_t *sh, int rc, int tag)
{
    int out;
    pthread_mutex_lock(&sh->mu);
    if (sh->broken) {
        out = NDD_ERR_INTERNAL;
    } else {
        if (sh->count == 0) {
            sh->tag = tag;
            sh->mismatch = false;
        }
        sh->mismatch |= tag != sh->tag;
        sh->worst = sh->count == 0 || rc < sh->worst ? rc : sh->worst;
        if (++sh->count == sh->P) {
            sh->result = sh->mismatch && sh->worst > NDD_ERR_INTERNAL ? NDD_ERR_INTERNAL : sh->worst;
            sh->count = 0;
            sh->gen++;
            pthread_cond_broadcast(&sh->cv);
            out = sh->result;
        } else {
            uint64_t g = sh->gen;
            while (sh->gen == g && !sh->broken)
                pthread_cond_wait(&sh->cv, &sh->mu);
            /* completion first: a rank may depart right after the barrier
             * it completed, and that must not fail the others */
            out = sh->gen != g ? sh->result : NDD_ERR_INTERNAL;
        }
    }
    pthread_mutex_unlock(&sh->mu);
    return out;
}

static void local_depart(local_shared_t *sh, int r)
{
    pthread_mutex_lock(&sh->mu);
    if (!sh->rank[r].departed) {
        sh->rank[r].departed = true;
        sh->broken = true;
        pthread_cond_broadcast(&sh->cv);
        pthread_cond_broadcast(&sh->iar_cv);
    }
    pthread_mutex_unlock(&sh->mu);
}

/* ---- the ops ---- */

static int local_agree(ndd_comm_t *c, int rc) { return local_barrier(c->impl, rc, TAG_AGREE); }

static size_t local_ty_size(ndd_ty_t ty)
{
    switch (ty) {
    case NDD_TY_U32: return 4;
    case NDD_TY_U64: return 8;
    case NDD_TY_F64: return 8;
    }
    return 0;
}

#define LOCAL_COMBINE(T, acc, src, n, op)                                        \
    do {                                                                         \
        T *a_ = (T *)(acc);                                                      \
        const T *s_ = (const T *)(src);                                          \
        for (size_t i_ = 0; i_ < (n); i_++) {                                    \
            if ((op) == NDD_RED_SUM)                                             \
                a_[i_] += s_[i_];                                                \
            else if ((op) == NDD_RED_MIN ? s_[i_] < a_[i_] : s_[i_] > a_[i_])    \
                a_[i_] = s_[i_];                                                 \
        }                                                                        \
    } while (0)

/* acc[0..n) = reduction of every rank's slot, in rank order. */
static void local_reduce(const local_shared_t *sh, void *acc, size_t n, ndd_ty_t ty, ndd_red_t op)
{
    memcpy(acc, sh->slot[0].p, n * local_ty_size(ty));
    for (int r = 1; r < sh->P; r++) {
        const void *src = sh->slot[r].p;
        if (ty == NDD_TY_U32)
            LOCAL_COMBINE(uint32_t, acc, src, n, op);
        else if (ty == NDD_TY_U64)
            LOCAL_COMBINE(uint64_t, acc, src, n, op);
        else
            LOCAL_COMBINE(double, acc, src, n, op);
    }
}

static int local_allreduce(ndd_comm_t *c, void *buf, size_t n, ndd_ty_t ty, ndd_red_t op)
{
    local_shared_t *sh = c->impl;
    size_t w = local_ty_size(ty);
    void *tmp = NULL;
    int rc = NDD_OK;

    if (w == 0 || (op != NDD_RED_SUM && op != NDD_RED_MIN && op != NDD_RED_MAX) || (n && !buf) ||
        n > SIZE_MAX / 8)
        rc = NDD_ERR_INVAL;
    else if (n && !(tmp = malloc(n * w)))
        rc = NDD_ERR_NOMEM;
    sh->slot[c->rank] = (local_slot_t){buf, n, (int)ty, (int)op};
    NDD_TRY(local_barrier(sh, rc, TAG_ALLREDUCE_1));
    for (int r = 0; r < sh->P; r++)
        if (sh->slot[r].n != n || sh->slot[r].ty != (int)ty || sh->slot[r].op != (int)op)
            rc = NDD_ERR_INVAL;
    if (!rc && n)
        local_reduce(sh, tmp, n, ty, op);
    NDD_TRY(local_barrier(sh, rc, TAG_ALLREDUCE_2));
    if (n)
        memcpy(buf, tmp, n * w);
out:
    free(tmp);
    return rc;
}

static int local_allgather(ndd_comm_t *c, const void *mine, size_t len, ndd_buf_t *all, uint64_t *lens)
{
    local_shared_t *sh = c->impl;
    int rc = (len && !mine) || !all ? NDD_ERR_INVAL : NDD_OK;

    if (all)
        ndd_buf_clear(all);
    sh->slot[c->rank] = (local_slot_t){mine, len, 0, 0};
    NDD_TRY(local_barrier(sh, rc, TAG_ALLGATHER_1));
    size_t total = 0;
    for (int r = 0; r < sh->P; r++) {
        if (sh->slot[r].n > SIZE_MAX - 1 - total)
            rc = NDD_ERR_LIMIT;
        else
            total += sh->slot[r].n;
    }
    if (!rc && total)
        rc = ndd_buf_reserve(all, total);
    for (int r = 0; r < sh->P && !rc; r++) {
        if (sh->slot[r].n)
            ndd_buf_append(all, sh->slot[r].p, sh->slot[r].n); /* reserved: cannot fail */
        if (lens)
            lens[r] = sh->slot[r].n;
    }
    NDD_TRY(local_barrier(sh, rc, TAG_ALLGATHER_2));
out:
    if (rc && all)
        ndd_buf_clear(all);
    return rc;
}

/* exchange (move = 0): each rank copies the blocks the others addressed to
 * it between the two barriers. exchange_move (move = 1): it takes them
 * instead, without a copy (each (sender, receiver) block is touched by its
 * receiver only), and every rank's send[] is left empty (freed); on an
 * error nothing has moved and recv[] is left empty, as
 * ndd_comm_exchange_move does. */
static int local_swap(ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, uint64_t *remote_bytes, int move)
{
    local_shared_t *sh = c->impl;
    int rc = !send || !recv ? NDD_ERR_INVAL : NDD_OK, me = c->rank;
    uint64_t remote = 0;
    for (int d = 0; send && d < sh->P; d++)
        remote += d != me ? send[d].len : 0;
    for (int s = 0; recv && s < sh->P; s++)
        if (move)
            ndd_buf_free(&recv[s]);
        else
            ndd_buf_clear(&recv[s]);
    sh->slot[me] = (local_slot_t){send, 0, 0, 0};
    NDD_TRY(local_barrier(sh, rc, move ? TAG_MOVE_1 : TAG_EXCHANGE_1));
    for (int s = 0; s < sh->P && !rc; s++) { /* recv[s] = send[me] of rank s */
        ndd_buf_t *from = &((ndd_buf_t *)(uintptr_t)sh->slot[s].p)[me];
        if (move) {
            recv[s] = *from;
            *from = (ndd_buf_t)NDD_BUF_INIT;
        } else if (from->len) {
            rc = ndd_buf_append(&recv[s], from->data, from->len);
        }
    }
    NDD_TRY(local_barrier(sh, rc, move ? TAG_MOVE_2 : TAG_EXCHANGE_2));
    if (remote_bytes)
        *remote_bytes += remote;
out:
    for (int s = 0; rc && !move && recv && s < sh->P; s++)
        ndd_buf_clear(&recv[s]);
    for (int d = 0; move && send && d < sh->P; d++)
        ndd_buf_free(&send[d]);
    return rc;
}

static int local_exchange(ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, uint64_t *remote_bytes)
{
    return local_swap(c, send, recv, remote_bytes, 0);
}

static int local_exchange_move(ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, uint64_t *remote_bytes)
{
    return local_swap(c, send, recv, remote_bytes, 1);
}

/* Rank 0's part of write_ordered: replace path by an empty file. */
static int local_create_file(const char *path)
{
    if (unlink(path) != 0 && errno != ENOENT)
        return NDD_ERR_IO;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return NDD_ERR_IO;
    return close(fd) != 0 ? NDD_ERR_IO : NDD_OK;
}

/* Writes data[0..len) at offset off of the open file fd; checks every write. */
static int local_pwrite_all(int fd, const char *data, size_t len, uint64_t off)
{
    size_t done = 0;
    while (done < len) {
        size_t k = len - done > ((size_t)1 << 30) ? (size_t)1 << 30 : len - done;
        ssize_t w = pwrite(fd, data + done, k, (off_t)(off + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return NDD_ERR_IO;
        done += (size_t)w;
    }
    return NDD_OK;
}

/* Writes the len bytes fill gives at offset off of path (which exists);
 * checks every piece, every write and the close. */
static int local_write_at(const char *path, uint64_t len, ndd_comm_fill_fn fill, void *user, uint64_t off)
{
    const uint64_t off_max = ((uint64_t)1 << (sizeof(off_t) * 8 - 1)) - 1;
    if (off > off_max || len > off_max - off)
        return NDD_ERR_LIMIT;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return NDD_ERR_IO;
    int rc = NDD_OK;
    for (uint64_t done = 0; done < len && !rc;) {
        const void *p = NULL;
        size_t n = 0;
        if ((rc = fill(user, &p, &n)))
            break;
        if (n == 0 || n > len - done || !p) {
            rc = NDD_ERR_INTERNAL; /* the pieces must add up to len */
            break;
        }
        rc = local_pwrite_all(fd, p, n, off + done);
        done += n;
    }
    if (close(fd) != 0 && !rc)
        rc = NDD_ERR_IO;
    return rc;
}

static int local_write_ordered(ndd_comm_t *c, const char *path, uint64_t len, ndd_comm_fill_fn fill, void *user)
{
    local_shared_t *sh = c->impl;
    int rc = !path || (len && !fill) || len > SIZE_MAX ? NDD_ERR_INVAL : NDD_OK;

    sh->slot[c->rank] = (local_slot_t){NULL, rc ? 0 : (size_t)len, 0, 0};
    if (!rc && c->rank == 0)
        rc = local_create_file(path);
    NDD_TRY(local_barrier(sh, rc, TAG_WRITE_1)); /* the file exists, empty, from here on */
    uint64_t off = 0;
    for (int r = 0; r < c->rank; r++)
        off += sh->slot[r].n;
    if (len)
        rc = local_write_at(path, len, fill, user, off);
    rc = local_barrier(sh, rc, TAG_WRITE_2);
out:
    return rc;
}

/* ---- iallreduce ---- */

/* The round seq (created if absent, NULL on allocation failure). Locked. */
static local_round_t *local_round_get(local_shared_t *sh, uint64_t seq)
{
    local_round_t **pp = &sh->rounds;
    while (*pp && (*pp)->seq < seq)
        pp = &(*pp)->next;
    if (*pp && (*pp)->seq == seq)
        return *pp;
    local_round_t *nr = calloc(1, sizeof *nr + (size_t)sh->P * sizeof nr->req[0]);
    if (!nr)
        return NULL;
    nr->seq = seq;
    nr->next = *pp;
    *pp = nr;
    return nr;
}

/* Rank r is done with its request in round x. Locked. */
static void local_round_release(local_shared_t *sh, local_round_t *x, int r)
{
    x->req[r].live = false;
    if (++x->released < sh->P)
        return;
    for (local_round_t **pp = &sh->rounds; *pp; pp = &(*pp)->next) {
        if (*pp == x) {
            *pp = x->next;
            break;
        }
    }
    free(x);
}

static int local_istart(ndd_comm_t *c, const uint64_t *in, size_t n, ndd_comm_req_t **req)
{
    local_shared_t *sh = c->impl;
    int me = c->rank, rc = NDD_OK;

    if (!req)
        return NDD_ERR_INVAL; /* cannot take part at all: a caller bug */
    *req = NULL;
    pthread_mutex_lock(&sh->mu);
    uint64_t seq = sh->rank[me].iar_next++;
    local_round_t *x = seq < sh->iar_fail ? local_round_get(sh, seq) : NULL;
    if (!x) {
        /* this rank cannot take part in round seq: fail it and every later
         * round on every rank */
        if (seq < sh->iar_fail)
            sh->iar_fail = seq;
        pthread_cond_broadcast(&sh->iar_cv);
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    if (x->arrived == 0)
        x->n = n;
    if (n > LOCAL_IAR_MAX || (n && !in) || n != x->n)
        x->rc = NDD_ERR_INVAL;
    for (size_t i = 0; i < n && i < LOCAL_IAR_MAX && in; i++)
        x->sum[i] += in[i];
    if (++x->arrived == sh->P)
        pthread_cond_broadcast(&sh->iar_cv);
    if (x->rc) {
        rc = x->rc;
        local_round_release(sh, x, me);
        goto out;
    }
    x->req[me] = (ndd_comm_req_t){sh, x, me, true};
    *req = &x->req[me];
out:
    pthread_mutex_unlock(&sh->mu);
    return rc;
}

/* 1 complete, 0 pending, < 0 failed. Locked. */
static int local_round_state(const local_shared_t *sh, const local_round_t *x)
{
    if (x->rc)
        return x->rc;
    if (x->seq >= sh->iar_fail)
        return NDD_ERR_NOMEM;
    if (x->arrived == sh->P)
        return 1;
    for (int r = 0; r < sh->P; r++)
        if (sh->rank[r].departed && sh->rank[r].iar_next <= x->seq)
            return NDD_ERR_INTERNAL; /* it will never start this round */
    return 0;
}

/* test (block = false) and wait (block = true). */
static int local_icollect(ndd_comm_req_t *req, uint64_t *out, bool block)
{
    if (!req)
        return NDD_ERR_INVAL;
    local_shared_t *sh = req->sh;
    pthread_mutex_lock(&sh->mu);
    local_round_t *x = req->round;
    int st = req->live ? local_round_state(sh, x) : NDD_ERR_INVAL;
    while (block && st == 0) {
        pthread_cond_wait(&sh->iar_cv, &sh->mu);
        st = local_round_state(sh, x);
    }
    if (st == 1 && out)
        memcpy(out, x->sum, x->n * sizeof *out);
    if (st != 0 && req->live)
        local_round_release(sh, x, req->rank); /* frees req with its round */
    pthread_mutex_unlock(&sh->mu);
    return st;
}

static int local_itest(ndd_comm_req_t *req, uint64_t *out) { return local_icollect(req, out, false); }

static int local_iwait(ndd_comm_req_t *req, uint64_t *out)
{
    int rc = local_icollect(req, out, true);
    return rc == 1 ? NDD_OK : rc;
}

/* Every rank is a thread of this process. */
static int local_near(const ndd_comm_t *c, int peer)
{
    (void)c;
    (void)peer;
    return !ndd_comm_far_forced();
}

static void local_free(ndd_comm_t *c)
{
    local_depart(c->impl, c->rank);
}

static const ndd_comm_ops_t local_ops = {
    .name = "local",
    .agree = local_agree,
    .allreduce = local_allreduce,
    .allgather = local_allgather,
    .exchange = local_exchange,
    .exchange_move = local_exchange_move,
    .write_ordered = local_write_ordered,
    .iallreduce_start = local_istart,
    .iallreduce_test = local_itest,
    .iallreduce_wait = local_iwait,
    .near = local_near,
    .free = local_free,
};

/* ---- the run ---- */

static void *local_main(void *p)
{
    local_rank_t *rk = p;
    local_shared_t *sh = rk->sh;
    pthread_mutex_lock(&sh->mu);
    while (sh->gate == 0)
        pthread_cond_wait(&sh->cv, &sh->mu);
    int gate = sh->gate;
    pthread_mutex_unlock(&sh->mu);
    /* fn runs on every rank or on none */
    rk->rc = gate > 0 ? rk->fn(&rk->comm, rk->arg) : gate;
    local_depart(sh, rk->comm.rank);
    return NULL;
}

static local_shared_t *local_shared_new(int P)
{
    local_shared_t *sh = calloc(1, sizeof *sh);
    if (!sh)
        return NULL;
    if (pthread_mutex_init(&sh->mu, NULL) != 0) {
        free(sh);
        return NULL;
    }
    if (pthread_cond_init(&sh->cv, NULL) != 0) {
        pthread_mutex_destroy(&sh->mu);
        free(sh);
        return NULL;
    }
    if (pthread_cond_init(&sh->iar_cv, NULL) != 0) {
        pthread_cond_destroy(&sh->cv);
        pthread_mutex_destroy(&sh->mu);
        free(sh);
        return NULL;
    }
    sh->P = P;
    sh->iar_fail = UINT64_MAX;
    return sh;
}

static void local_shared_free(local_shared_t *sh)
{
    while (sh->rounds) {
        local_round_t *x = sh->rounds;
        sh->rounds = x->next;
        free(x);
    }
    pthread_cond_destroy(&sh->iar_cv);
    pthread_cond_destroy(&sh->cv);
    pthread_mutex_destroy(&sh->mu);
    free(sh);
}

int ndd_comm_local_run(int P, int (*fn)(ndd_comm_t *c, void *arg), void *arg, int *rcs)
{
    if (P < 1 || P > NDD_LOCAL_MAX_RANKS || !fn)
        return NDD_ERR_INVAL;
    local_shared_t *sh = local_shared_new(P);
    if (!sh)
        return NDD_ERR_NOMEM;
    int started = 0, err = 0;
    for (int r = 0; r < P; r++) {
        local_rank_t *rk = &sh->rank[r];
        rk->comm = (ndd_comm_t){&local_ops, sh, r, P};
        rk->sh = sh;
        rk->fn = fn;
        rk->arg = arg;
    }
    for (; started < P; started++)
        if ((err = pthread_create(&sh->rank[started].thread, NULL, local_main, &sh->rank[started])) != 0)
            break;
    int fail = err == EAGAIN ? NDD_ERR_LIMIT : err ? NDD_ERR_INTERNAL : NDD_OK;
    pthread_mutex_lock(&sh->mu);
    sh->gate = fail ? fail : 1;
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
    int worst = NDD_OK;
    for (int r = 0; r < P; r++) {
        int rc = fail;
        if (r < started) {
            pthread_join(sh->rank[r].thread, NULL);
            rc = fail ? fail : sh->rank[r].rc;
        }
        if (rcs)
            rcs[r] = rc;
        if (rc < worst)
            worst = rc;
    }
    local_shared_free(sh);
    return worst;
}
