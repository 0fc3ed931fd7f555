/* test_comm.c - the in-process transport (comm_local.c) and the helpers of
 * ndd_comm.c, against brute-force oracles computed in the test's thread, for
 * P = 1..7 ranks.
 *
 * cmocka's assertions longjmp and must not run on a rank's thread: rank
 * functions record the first failing line in ctx->fail[rank] (each rank its
 * own element) and return RANK_FAILED; the test thread then asserts. */
#include "ndd_test.h"
#include "ndd_comm.h"
#include "ndd_util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <unistd.h>

#define MAXP 7
#define RANK_FAILED (-100)

typedef struct ctx {
    int P;
    uint64_t seed;
    int fail[NDD_LOCAL_MAX_RANKS];    /* first failing line per rank */
    int got[NDD_LOCAL_MAX_RANKS];     /* a return code a rank saw, per test */
    const char *path;
    size_t big;                       /* exchange: approximate total bytes (0: small sizes) */
    int victim;                       /* departed-rank tests */
    int what;                         /* test variant */
    sem_t sem;                        /* iallreduce: ordering between ranks */
} ctx_t;

#define CHECK(x, c, cond)                                                                         \
    do {                                                                                          \
        if (!(cond) && !(x)->fail[(c)->rank])                                                     \
            (x)->fail[(c)->rank] = __LINE__;                                                      \
    } while (0)
#define RANK_RC(x, c) ((x)->fail[(c)->rank] ? RANK_FAILED : NDD_OK)

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t h3(uint64_t seed, uint64_t a, uint64_t b) { return mix(mix(mix(seed) ^ a) ^ (b << 20 | b >> 44)); }

/* Runs fn on P ranks; asserts that every rank returned 0 (printing the line
 * of the first failed check). */
static void run_ok(int P, int (*fn)(ndd_comm_t *c, void *arg), ctx_t *x)
{
    int rcs[NDD_LOCAL_MAX_RANKS];
    memset(x->fail, 0, sizeof x->fail);
    x->P = P;
    int rc = ndd_comm_local_run(P, fn, x, rcs);
    for (int r = 0; r < P; r++)
        if (x->fail[r])
            fprintf(stderr, "P=%d rank %d: check at line %d failed\n", P, r, x->fail[r]);
    for (int r = 0; r < P; r++)
        assert_int_equal(rcs[r], NDD_OK);
    assert_int_equal(rc, NDD_OK);
}

/* ---- exchange ---- */

static size_t ex_size(const ctx_t *x, int s, int d)
{
    uint64_t h = h3(x->seed, (uint64_t)s, (uint64_t)d);
    if (x->big) {
        size_t per = x->big / ((size_t)x->P * (size_t)x->P);
        return per / 2 + (size_t)(h % (per + 1)); /* mean ~per */
    }
    if (h % 3 == 0)
        return 0;
    return (size_t)((h >> 8) % 5000);
}
static char ex_byte(const ctx_t *x, int s, int d, size_t i)
{
    return (char)(h3(x->seed, (uint64_t)s * 64 + (uint64_t)d, 7) + i * 131 + (i >> 9));
}

/* Fills send[d] with this rank's block for d (NUL-terminated); with
 * stale, puts bytes in recv[] that the exchange must clear. Returns the
 * bytes addressed to other ranks. */
static uint64_t ex_fill(ctx_t *x, ndd_comm_t *c, ndd_buf_t *send, ndd_buf_t *recv, int stale)
{
    uint64_t remote = 0;
    for (int d = 0; d < c->size; d++) {
        size_t n = ex_size(x, c->rank, d);
        CHECK(x, c, ndd_buf_reserve(&send[d], n) == NDD_OK);
        for (size_t i = 0; i < n; i++)
            send[d].data[i] = ex_byte(x, c->rank, d, i);
        send[d].len = n;
        send[d].data[n] = '\0';
        if (d != c->rank)
            remote += n;
        if (stale)
            CHECK(x, c, ndd_buf_puts(&recv[d], "stale bytes that must be cleared") == NDD_OK);
    }
    return remote;
}

/* recv[s] holds rank s's block for this rank, NUL-terminated. */
static void ex_check_recv(ctx_t *x, ndd_comm_t *c, const ndd_buf_t *recv)
{
    for (int s = 0; s < c->size; s++) {
        size_t n = ex_size(x, s, c->rank), bad = 0;
        CHECK(x, c, recv[s].len == n);
        for (size_t i = 0; i < n && i < recv[s].len; i++)
            bad += recv[s].data[i] != ex_byte(x, s, c->rank, i);
        CHECK(x, c, bad == 0);
        CHECK(x, c, !recv[s].data || recv[s].data[recv[s].len] == '\0');
    }
}

static int rank_exchange(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    int P = c->size, me = c->rank;
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    CHECK(x, c, send && recv);
    if (!send || !recv)
        goto out;
    uint64_t remote = 5, expect_remote = 5 + ex_fill(x, c, send, recv, 1);
    CHECK(x, c, ndd_comm_exchange(c, send, recv, &remote) == NDD_OK);
    CHECK(x, c, remote == expect_remote);
    ex_check_recv(x, c, recv);
    for (int s = 0; s < P; s++) { /* send[] left as it was */
        size_t bad = 0;
        CHECK(x, c, send[s].len == ex_size(x, me, s));
        for (size_t i = 0; i < send[s].len; i++)
            bad += send[s].data[i] != ex_byte(x, me, s, i);
        CHECK(x, c, bad == 0);
    }
    /* a second exchange with the same buffers (recv reused) and no counter */
    CHECK(x, c, ndd_comm_exchange(c, send, recv, NULL) == NDD_OK);
    for (int s = 0; s < P; s++)
        CHECK(x, c, recv[s].len == ex_size(x, s, me));
out:
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    return RANK_RC(x, c);
}

/* fn on 1..MAXP ranks, 6 seeds each (random block sizes, some empty). */
static void ex_seeds(int (*fn)(ndd_comm_t *c, void *arg))
{
    ctx_t x = {0};
    for (int P = 1; P <= MAXP; P++)
        for (uint64_t seed = 1; seed <= 6; seed++) {
            x.seed = seed * 1000 + (uint64_t)P;
            run_ok(P, fn, &x);
        }
}

static void test_exchange_random(void **state)
{
    (void)state;
    ex_seeds(rank_exchange);
}

/* ndd_comm_exchange_move (the local engine hands the buffers over): the
 * same blocks arrive, NUL-terminated; send[] is left empty; stale recv[]
 * bytes are gone; twice in a row. */
static int rank_exchange_move(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    int P = c->size;
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    CHECK(x, c, send && recv);
    if (!send || !recv)
        goto out;
    for (int round = 0; round < 2; round++) {
        uint64_t remote = 5, expect_remote = 5 + ex_fill(x, c, send, recv, !round);
        CHECK(x, c, ndd_comm_exchange_move(c, send, recv, &remote) == NDD_OK);
        CHECK(x, c, remote == expect_remote);
        ex_check_recv(x, c, recv);
        for (int s = 0; s < P; s++)
            CHECK(x, c, send[s].len == 0 && send[s].data == NULL); /* consumed */
    }
out:
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    return RANK_RC(x, c);
}

static void test_exchange_move(void **state)
{
    (void)state;
    ex_seeds(rank_exchange_move);
}

static void test_exchange_large(void **state)
{
    (void)state;
    ctx_t x = {0};
    x.big = (size_t)20 << 20;
    for (int P = 1; P <= MAXP; P++) {
        x.seed = 77 + (uint64_t)P;
        run_ok(P, rank_exchange, &x);
    }
}

/* ---- allreduce ---- */

#define AR_N 257
static uint64_t ar_u64(const ctx_t *x, int r, size_t i, int ty)
{
    uint64_t h = h3(x->seed, (uint64_t)r, i * 8 + (uint64_t)ty);
    return (i % 5 == 0) ? h : h % 1000; /* some sums wrap around */
}
static double ar_f64(const ctx_t *x, int r, size_t i)
{
    uint64_t h = h3(x->seed, (uint64_t)r, i * 8 + 99);
    double m = (double)(h % 2000001) - 1000000.0;
    int e = (int)((h >> 32) % 60) - 30; /* magnitudes 2^-30..2^30: sum order matters */
    return m * ((e < 0) ? 1.0 / (double)(1ULL << -e) : (double)(1ULL << e));
}
static void ar_fill(const ctx_t *x, int r, ndd_ty_t ty, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ty == NDD_TY_U32)
            ((uint32_t *)buf)[i] = (uint32_t)ar_u64(x, r, i, ty);
        else if (ty == NDD_TY_U64)
            ((uint64_t *)buf)[i] = ar_u64(x, r, i, ty);
        else
            ((double *)buf)[i] = ar_f64(x, r, i);
    }
}
/* Brute force, in rank order (the backend's documented order). */
static void ar_expect(const ctx_t *x, ndd_ty_t ty, ndd_red_t op, void *out, size_t n)
{
    uint32_t u32[AR_N];
    uint64_t u64[AR_N];
    double f[AR_N];
    for (int r = 0; r < x->P; r++) {
        ar_fill(x, r, ty, ty == NDD_TY_U32 ? (void *)u32 : ty == NDD_TY_U64 ? (void *)u64 : (void *)f, n);
        for (size_t i = 0; i < n; i++) {
            if (ty == NDD_TY_U32) {
                uint32_t *o = out, v = u32[i];
                o[i] = r == 0 ? v : op == NDD_RED_SUM ? o[i] + v : op == NDD_RED_MIN ? (v < o[i] ? v : o[i]) : (v > o[i] ? v : o[i]);
            } else if (ty == NDD_TY_U64) {
                uint64_t *o = out, v = u64[i];
                o[i] = r == 0 ? v : op == NDD_RED_SUM ? o[i] + v : op == NDD_RED_MIN ? (v < o[i] ? v : o[i]) : (v > o[i] ? v : o[i]);
            } else {
                double *o = out, v = f[i];
                o[i] = r == 0 ? v : op == NDD_RED_SUM ? o[i] + v : op == NDD_RED_MIN ? (v < o[i] ? v : o[i]) : (v > o[i] ? v : o[i]);
            }
        }
    }
}

static int rank_allreduce(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    static const size_t ns[] = {0, 1, 3, AR_N};
    uint64_t buf[AR_N + 1], want[AR_N];
    for (int ty = NDD_TY_U32; ty <= NDD_TY_F64; ty++)
        for (int op = NDD_RED_SUM; op <= NDD_RED_MAX; op++)
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
                size_t n = ns[k], w = ty == NDD_TY_U32 ? 4 : 8;
                ar_fill(x, c->rank, (ndd_ty_t)ty, buf, n);
                memset((char *)buf + n * w, 0x5a, 8); /* guard after the n elements */
                ar_expect(x, (ndd_ty_t)ty, (ndd_red_t)op, want, n);
                CHECK(x, c, ndd_comm_allreduce(c, buf, n, (ndd_ty_t)ty, (ndd_red_t)op) == NDD_OK);
                CHECK(x, c, n == 0 || memcmp(buf, want, n * w) == 0); /* bit-identical */
                CHECK(x, c, ((unsigned char *)buf)[n * w] == 0x5a && ((unsigned char *)buf)[n * w + 7] == 0x5a);
            }
    /* ranks disagreeing on the count: refused on every rank, buffer untouched */
    uint64_t v[2] = {11, 12};
    int rc = ndd_comm_allreduce(c, v, c->size > 1 && c->rank == 1 ? 2 : 1, NDD_TY_U64, NDD_RED_SUM);
    CHECK(x, c, rc == (c->size > 1 ? NDD_ERR_INVAL : NDD_OK));
    CHECK(x, c, v[0] == 11 && v[1] == 12);
    /* an invalid type on one rank: refused on every rank */
    rc = ndd_comm_allreduce(c, v, 1, c->rank == c->size - 1 ? (ndd_ty_t)9 : NDD_TY_U64, NDD_RED_SUM);
    CHECK(x, c, rc == NDD_ERR_INVAL);
    return RANK_RC(x, c);
}

static void test_allreduce(void **state)
{
    (void)state;
    ctx_t x = {0};
    for (int P = 1; P <= MAXP; P++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            x.seed = seed * 31 + (uint64_t)P;
            run_ok(P, rank_allreduce, &x);
        }
}

/* The oracle itself must be able to tell orders apart: summing the F64 test
 * values in reverse rank order gives a different result somewhere. */
static void test_allreduce_oracle_sensitive(void **state)
{
    (void)state;
    ctx_t x = {0};
    x.P = 7;
    x.seed = 5;
    int differs = 0;
    for (size_t i = 0; i < AR_N; i++) {
        double fw = 0, bw = 0;
        for (int r = 0; r < 7; r++)
            fw += ar_f64(&x, r, i);
        for (int r = 6; r >= 0; r--)
            bw += ar_f64(&x, r, i);
        differs += fw != bw;
    }
    assert_true(differs > 0);
}

/* ---- allgather ---- */

static size_t ag_len(const ctx_t *x, int r)
{
    uint64_t h = h3(x->seed, (uint64_t)r, 3);
    return h % 4 == 0 ? 0 : (size_t)(h >> 16) % 3000;
}

static int rank_allgather(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    int P = c->size;
    size_t n = ag_len(x, c->rank);
    char *mine = malloc(n + 1);
    ndd_buf_t all = NDD_BUF_INIT;
    uint64_t lens[MAXP + 1];
    CHECK(x, c, mine != NULL);
    if (!mine)
        return RANK_RC(x, c);
    for (size_t i = 0; i < n; i++)
        mine[i] = ex_byte(x, c->rank, 0, i);
    for (int round = 0; round < 2; round++) {
        lens[P] = 12345; /* guard */
        CHECK(x, c, ndd_buf_puts(&all, "stale") == NDD_OK);
        CHECK(x, c, ndd_comm_allgather(c, mine, n, &all, round ? NULL : lens) == NDD_OK);
        size_t off = 0, bad = 0;
        for (int r = 0; r < P; r++) {
            size_t k = ag_len(x, r);
            if (!round)
                CHECK(x, c, lens[r] == k);
            for (size_t i = 0; i < k && off + i < all.len; i++)
                bad += all.data[off + i] != ex_byte(x, r, 0, i);
            off += k;
        }
        CHECK(x, c, all.len == off && bad == 0 && lens[P] == 12345);
    }
    free(mine);
    ndd_buf_free(&all);
    return RANK_RC(x, c);
}

static void test_allgather(void **state)
{
    (void)state;
    ctx_t x = {0};
    for (int P = 1; P <= MAXP; P++)
        for (uint64_t seed = 1; seed <= 5; seed++) {
            x.seed = seed * 7 + (uint64_t)P;
            run_ok(P, rank_allgather, &x);
        }
}

/* ---- agree ---- */

static int rank_agree(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    static const int codes[] = {NDD_ERR_IO, NDD_ERR_FORMAT, NDD_ERR_NOMEM, NDD_ERR_VERSION};
    CHECK(x, c, ndd_comm_agree(c, NDD_OK) == NDD_OK);
    for (int k = 0; k < 300; k++) {
        /* round k: rank k % P fails with one code, rank (k*3) % P with another */
        int a = k % c->size, b = (k * 3) % c->size;
        int ca = codes[k % 4], cb = codes[(k / 4) % 4];
        int mine = c->rank == a ? ca : NDD_OK;
        if (c->rank == b && cb < mine)
            mine = cb;
        int want = ca < cb ? ca : cb;
        if (k % 5 == 0) {
            mine = 0;
            want = 0;
        }
        CHECK(x, c, ndd_comm_agree(c, mine) == want);
    }
    return RANK_RC(x, c);
}

static void test_agree(void **state)
{
    (void)state;
    ctx_t x = {0};
    for (int P = 1; P <= MAXP; P++)
        run_ok(P, rank_agree, &x);
}

/* ---- write_ordered ---- */

static size_t wo_len(const ctx_t *x, int r)
{
    switch (x->what) {
    case 1: return 0;                                 /* every rank empty */
    case 2: return r == x->P - 1 ? 0 : 1000 + (size_t)r; /* last rank empty */
    case 3: return r == 0 ? 0 : 10;                   /* first rank empty */
    default: {
        uint64_t h = h3(x->seed, (uint64_t)r, 11);
        return h % 3 == 0 ? 0 : (size_t)(h >> 20) % 70000;
    }
    }
}

/* write_ordered from pieces (ndd_comm_write_ordered_fill): pieces of 1 to
 * 5,000 bytes; fail: 1 = the fill fails at its second piece, 2 = a piece
 * runs past the length, 3 = pieces of 0 bytes. */
static int wo_pieces; /* the test writes through pieces */
typedef struct {
    const char *data;
    size_t n, at, calls;
    uint64_t seed;
    int fail;
} pieces_t;

static int piece_fill(void *user, const void **p, size_t *n)
{
    pieces_t *q = user;
    size_t k = 1 + (size_t)(h3(q->seed, q->calls++, 5) % 5000);
    if (q->fail == 1 && q->calls == 2)
        return NDD_ERR_NOMEM;
    k = k < q->n - q->at ? k : q->n - q->at;
    *p = q->data + q->at;
    *n = q->fail == 2 ? q->n + 1 : q->fail == 3 ? 0 : k; /* 2: more than the whole length (never read) */
    q->at += k;
    return NDD_OK;
}

static int rank_write(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    size_t n = wo_len(x, c->rank);
    char *data = malloc(n + 1);
    CHECK(x, c, data != NULL);
    if (!data)
        return RANK_RC(x, c);
    for (size_t i = 0; i < n; i++)
        data[i] = ex_byte(x, c->rank, 1, i);
    if (wo_pieces) {
        /* a failing fill on the last rank (when it writes): every rank sees it */
        for (int fail = 1; fail <= 3 && wo_len(x, x->P - 1) > 0; fail++) {
            pieces_t q = {data, n, 0, 0, x->seed, c->rank == x->P - 1 ? fail : 0};
            int want = fail == 1 ? NDD_ERR_NOMEM : NDD_ERR_INTERNAL;
            CHECK(x, c, ndd_comm_write_ordered_fill(c, x->path, n, piece_fill, &q) == want);
        }
        pieces_t q = {data, n, 0, 0, x->seed + (uint64_t)c->rank, 0};
        CHECK(x, c, ndd_comm_write_ordered_fill(c, x->path, n, piece_fill, &q) == NDD_OK);
    } else
        CHECK(x, c, ndd_comm_write_ordered(c, x->path, data, n) == NDD_OK);
    /* a directory that does not exist: every rank sees the failure */
    CHECK(x, c, ndd_comm_write_ordered(c, "/nonexistent-ndd-dir/x/y", data, n) == NDD_ERR_IO);
    free(data);
    return RANK_RC(x, c);
}

static void test_write_ordered(void **state)
{
    (void)state;
    char path[] = "/tmp/ndd_test_comm_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    ctx_t x = {0};
    x.path = path;
    for (int P = 1; P <= MAXP; P++)
        for (int what = 0; what < 6; what++) {
            x.what = what > 3 ? 0 : what;
            x.seed = (uint64_t)(P * 10 + what);
            x.P = P;
            wo_pieces = what == 5 || what == 2; /* the same contents, written from pieces */
            /* a longer file is there before: it must be replaced, not overwritten */
            FILE *f = fopen(path, "wb");
            assert_non_null(f);
            for (int i = 0; i < 600000; i++)
                fputc('X', f);
            assert_int_equal(fclose(f), 0);
            run_ok(P, rank_write, &x);
            char *got = NULL;
            size_t glen = 0, off = 0;
            assert_int_equal(ndd_read_file(path, 0, &got, &glen), NDD_OK);
            for (int r = 0; r < P; r++) {
                size_t k = wo_len(&x, r);
                assert_true(off + k <= glen);
                for (size_t i = 0; i < k; i++)
                    if (got[off + i] != ex_byte(&x, r, 1, i))
                        fail_msg("P=%d case %d: byte %zu of rank %d differs", P, what, i, r);
                off += k;
            }
            assert_int_equal(glen, off);
            free(got);
        }
    unlink(path);
}

/* ---- exscan and global ranges (ndd_comm.c) ---- */

static uint64_t gr_n(const ctx_t *x, int r)
{
    uint64_t h = h3(x->seed, (uint64_t)r, 5);
    return h % 4 == 0 ? 0 : (h % 7 == 0 ? h >> 4 : h % 100000);
}

static int rank_ranges(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    int P = c->size;
    uint64_t before = 1, total = 1, sum = 0, want_before = 0;
    for (int r = 0; r < P; r++) {
        if (r == c->rank)
            want_before = sum;
        sum += gr_n(x, r);
    }
    CHECK(x, c, ndd_comm_exscan_u64(c, gr_n(x, c->rank), &before, &total) == NDD_OK);
    CHECK(x, c, before == want_before && total == sum);
    uint64_t first = 1, *starts = NULL;
    CHECK(x, c, ndd_comm_global_ranges(c, gr_n(x, c->rank), &first, &starts) == NDD_OK);
    CHECK(x, c, starts != NULL);
    if (starts) {
        uint64_t s = 0;
        for (int r = 0; r < P; r++) {
            CHECK(x, c, starts[r] == s);
            s += gr_n(x, r);
        }
        CHECK(x, c, starts[P] == s && first == starts[c->rank] && first == want_before);
        free(starts);
    }
    return RANK_RC(x, c);
}

static void test_exscan_ranges(void **state)
{
    (void)state;
    ctx_t x = {0};
    for (int P = 1; P <= MAXP; P++)
        for (uint64_t seed = 1; seed <= 8; seed++) {
            x.seed = seed * 13 + (uint64_t)P;
            run_ok(P, rank_ranges, &x);
        }
}

/* ---- iallreduce ---- */

#define IAR_ROUNDS 40
static uint64_t iar_val(int r, int k, size_t i) { return (uint64_t)(r + 1) * 1000003u * (uint64_t)(k + 1) + i * 7 + (i == 3 ? UINT64_MAX / 3 : 0); }

/* Collects round k of this rank (wait or test-until-complete) and checks
 * the sums against brute force. */
static void iar_collect(ctx_t *x, ndd_comm_t *c, ndd_comm_req_t *req, int k)
{
    size_t n = k == 0 ? 4 : (size_t)(k % 4) + 1;
    uint64_t out[4] = {0};
    if ((k + c->rank) % 2 == 0) {
        CHECK(x, c, c->ops->iallreduce_wait(req, out) == NDD_OK);
    } else {
        int rc;
        while ((rc = c->ops->iallreduce_test(req, out)) == 0)
            sched_yield(); /* the test's own polling, not the backend's */
        CHECK(x, c, rc == 1);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t want = 0;
        for (int r = 0; r < c->size; r++)
            want += iar_val(r, k, i);
        CHECK(x, c, out[i] == want);
    }
    for (size_t i = n; i < 4; i++)
        CHECK(x, c, out[i] == 0); /* nothing beyond n written */
}

static int rank_iallreduce(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    const ndd_comm_ops_t *o = c->ops;
    int P = c->size, me = c->rank;
    uint64_t in[4], out[4];
    ndd_comm_req_t *req[IAR_ROUNDS] = {0};

    /* round 0: rank 0 starts alone, its test must say "pending" without
     * blocking; only then may rank 1 start (the others follow freely) */
    if (me == 1)
        sem_wait(&x->sem);
    for (size_t i = 0; i < 4; i++)
        in[i] = iar_val(me, 0, i);
    CHECK(x, c, o->iallreduce_start(c, in, 4, &req[0]) == NDD_OK);
    if (me == 0) {
        CHECK(x, c, o->iallreduce_test(req[0], out) == (P == 1 ? 1 : 0));
        if (P > 1)
            sem_post(&x->sem);
        else
            req[0] = NULL;
    }
    /* then rank r starts r+1 rounds at a time and collects them, alternating
     * wait and test-until-complete (round 0 with the first batch) */
    for (int k0 = 1; k0 < IAR_ROUNDS; k0 += me + 1) {
        int k1 = k0 + me + 1 < IAR_ROUNDS ? k0 + me + 1 : IAR_ROUNDS;
        for (int j = k0; j < k1; j++) {
            size_t n = (size_t)(j % 4) + 1;
            for (size_t i = 0; i < n; i++)
                in[i] = iar_val(me, j, i);
            CHECK(x, c, o->iallreduce_start(c, in, n, &req[j]) == NDD_OK);
        }
        for (int k = k0 == 1 ? 0 : k0; k < k1; k++)
            if (req[k])
                iar_collect(x, c, req[k], k);
    }
    /* a round where ranks disagree on n: every rank gets NDD_ERR_INVAL */
    ndd_comm_req_t *bad = NULL;
    int rc = o->iallreduce_start(c, in, me == P - 1 ? 2 : 1, &bad);
    if (rc == NDD_OK)
        rc = o->iallreduce_wait(bad, out);
    CHECK(x, c, rc == (P > 1 ? NDD_ERR_INVAL : NDD_OK));
    CHECK(x, c, o->iallreduce_start(c, in, 5, &bad) == NDD_ERR_INVAL);
    return RANK_RC(x, c);
}

static void test_iallreduce(void **state)
{
    (void)state;
    ctx_t x = {0};
    for (int P = 1; P <= MAXP; P++)
        for (int rep = 0; rep < 3; rep++) {
            assert_int_equal(sem_init(&x.sem, 0, 0), 0);
            run_ok(P, rank_iallreduce, &x);
            sem_destroy(&x.sem);
        }
}

/* ---- departed ranks ---- */

/* what: 0 agree, 1 allreduce, 2 exchange, 3 allgather, 4 write_ordered,
 * 5 iallreduce_wait, 6 the victim frees its communicator first, 7 the
 * victim departs after a few successful collectives */
static int rank_depart(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    int P = c->size, rc = NDD_OK;
    if (x->what == 7)
        for (int k = 0; k < 3 && !rc; k++)
            rc = ndd_comm_agree(c, NDD_OK);
    if (c->rank == x->victim) {
        if (x->what == 6)
            ndd_comm_free(c);
        x->got[c->rank] = rc;
        return NDD_ERR_FORMAT;
    }
    uint64_t v[2] = {1, 2}, out[2];
    ndd_buf_t *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P), all = NDD_BUF_INIT;
    ndd_comm_req_t *req = NULL;
    switch (x->what) {
    case 1: rc = ndd_comm_allreduce(c, v, 2, NDD_TY_U64, NDD_RED_SUM); break;
    case 2: rc = ndd_comm_exchange(c, send, recv, NULL); break;
    case 3: rc = ndd_comm_allgather(c, v, sizeof v, &all, NULL); break;
    case 4: rc = ndd_comm_write_ordered(c, x->path, v, sizeof v); break;
    case 5:
        rc = c->ops->iallreduce_start(c, v, 2, &req);
        if (!rc)
            rc = c->ops->iallreduce_wait(req, out);
        break;
    default: rc = ndd_comm_agree(c, NDD_OK); break;
    }
    /* and every later collective fails at once */
    int rc2 = ndd_comm_agree(c, NDD_OK);
    x->got[c->rank] = rc == NDD_ERR_INTERNAL && rc2 == NDD_ERR_INTERNAL ? NDD_ERR_INTERNAL : (rc ? rc : rc2);
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    ndd_buf_free(&all);
    return rc;
}

static void test_departed_rank(void **state)
{
    (void)state;
    char path[] = "/tmp/ndd_test_comm_dep_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    ctx_t x = {0};
    x.path = path;
    for (int P = 2; P <= MAXP; P++)
        for (int what = 0; what <= 7; what++)
            for (int victim = 0; victim < P; victim += P - 1) {
                int rcs[MAXP];
                x.what = what;
                x.victim = victim;
                memset(x.got, 0x7f, sizeof x.got);
                int rc = ndd_comm_local_run(P, rank_depart, &x, rcs);
                assert_int_equal(rc, NDD_ERR_INTERNAL); /* worst of FORMAT and INTERNAL */
                for (int r = 0; r < P; r++) {
                    if (r == victim) {
                        assert_int_equal(rcs[r], NDD_ERR_FORMAT);
                        assert_int_equal(x.got[r], NDD_OK); /* its own collectives before leaving worked */
                    } else {
                        assert_int_equal(rcs[r], NDD_ERR_INTERNAL);
                        assert_int_equal(x.got[r], NDD_ERR_INTERNAL);
                    }
                }
            }
    unlink(path);
}

/* A rank that leaves right after the last collective must not make the
 * others' completed collectives fail. */
static int rank_leave_after(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    uint64_t v = (uint64_t)c->rank + 1;
    for (int k = 0; k < 200; k++) {
        CHECK(x, c, ndd_comm_agree(c, NDD_OK) == NDD_OK);
        v = (uint64_t)c->rank + 1;
        CHECK(x, c, ndd_comm_allreduce(c, &v, 1, NDD_TY_U64, NDD_RED_SUM) == NDD_OK);
        CHECK(x, c, v == (uint64_t)c->size * (uint64_t)(c->size + 1) / 2);
    }
    return RANK_RC(x, c);
}

static void test_leave_after_last(void **state)
{
    (void)state;
    ctx_t x = {0};
    for (int rep = 0; rep < 10; rep++)
        for (int P = 1; P <= MAXP; P++)
            run_ok(P, rank_leave_after, &x);
}

/* Ranks calling different collectives: every rank gets NDD_ERR_INTERNAL
 * and the communicator works again afterwards. */
static int rank_mismatch(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    int P = c->size;
    uint64_t v = 1;
    ndd_buf_t all = NDD_BUF_INIT, *send = ndd_bufs_new(P), *recv = ndd_bufs_new(P);
    int rc = c->rank == 0 ? ndd_comm_agree(c, NDD_OK) : ndd_comm_allreduce(c, &v, 1, NDD_TY_U64, NDD_RED_SUM);
    CHECK(x, c, rc == NDD_ERR_INTERNAL && v == 1);
    CHECK(x, c, ndd_comm_agree(c, NDD_OK) == NDD_OK);
    rc = c->rank == P - 1 ? ndd_comm_exchange(c, send, recv, NULL) : ndd_comm_allgather(c, &v, 8, &all, NULL);
    CHECK(x, c, rc == NDD_ERR_INTERNAL);
    CHECK(x, c, ndd_comm_allreduce(c, &v, 1, NDD_TY_U64, NDD_RED_SUM) == NDD_OK && v == (uint64_t)P);
    ndd_buf_free(&all);
    ndd_bufs_free(send, P);
    ndd_bufs_free(recv, P);
    return RANK_RC(x, c);
}

static void test_mismatched_calls(void **state)
{
    (void)state;
    ctx_t x = {0};
    for (int P = 2; P <= MAXP; P++)
        run_ok(P, rank_mismatch, &x);
}

/* ---- the run itself ---- */

static int rank_rc(ndd_comm_t *c, void *arg)
{
    (void)arg;
    /* collectives first, then each rank returns its own code */
    if (ndd_comm_agree(c, NDD_OK) != NDD_OK)
        return RANK_FAILED;
    static const int codes[] = {NDD_OK, NDD_ERR_IO, NDD_OK, NDD_ERR_LIMIT, NDD_OK, NDD_OK, NDD_ERR_IO};
    return codes[c->rank];
}

static int rank_sum(ndd_comm_t *c, void *arg)
{
    ctx_t *x = arg;
    uint64_t v = (uint64_t)c->rank;
    CHECK(x, c, strcmp(c->ops->name, "local") == 0);
    CHECK(x, c, ndd_comm_allreduce(c, &v, 1, NDD_TY_U64, NDD_RED_SUM) == NDD_OK);
    CHECK(x, c, v == (uint64_t)c->size * (uint64_t)(c->size - 1) / 2);
    return RANK_RC(x, c);
}

static void test_run_args(void **state)
{
    (void)state;
    ctx_t x = {0};
    int rcs[MAXP];
    assert_int_equal(ndd_comm_local_run(0, rank_sum, &x, NULL), NDD_ERR_INVAL);
    assert_int_equal(ndd_comm_local_run(-3, rank_sum, &x, NULL), NDD_ERR_INVAL);
    assert_int_equal(ndd_comm_local_run(NDD_LOCAL_MAX_RANKS + 1, rank_sum, &x, NULL), NDD_ERR_INVAL);
    assert_int_equal(ndd_comm_local_run(2, NULL, &x, NULL), NDD_ERR_INVAL);
    run_ok(NDD_LOCAL_MAX_RANKS, rank_sum, &x);
    /* rcs[] and the worst code */
    assert_int_equal(ndd_comm_local_run(7, rank_rc, NULL, rcs), NDD_ERR_LIMIT);
    assert_int_equal(rcs[0], NDD_OK);
    assert_int_equal(rcs[1], NDD_ERR_IO);
    assert_int_equal(rcs[3], NDD_ERR_LIMIT);
    assert_int_equal(rcs[6], NDD_ERR_IO);
}

static void test_bufs(void **state)
{
    (void)state;
    assert_null(ndd_bufs_new(0));
    assert_null(ndd_bufs_new(-1));
    ndd_buf_t *b = ndd_bufs_new(5);
    assert_non_null(b);
    for (int i = 0; i < 5; i++) {
        assert_null(b[i].data);
        assert_int_equal(b[i].len, 0);
        assert_int_equal(ndd_buf_puts(&b[i], "x"), NDD_OK);
    }
    ndd_bufs_free(b, 5);
    ndd_bufs_free(NULL, 5);
}

int main(void)
{
    alarm(600); /* a hang is a failure, not a stuck ctest */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exchange_random), cmocka_unit_test(test_exchange_move),
        cmocka_unit_test(test_exchange_large),
        cmocka_unit_test(test_allreduce),
        cmocka_unit_test(test_allreduce_oracle_sensitive),
        cmocka_unit_test(test_allgather),
        cmocka_unit_test(test_agree),
        cmocka_unit_test(test_write_ordered),
        cmocka_unit_test(test_exscan_ranges),
        cmocka_unit_test(test_iallreduce),
        cmocka_unit_test(test_departed_rank),
        cmocka_unit_test(test_leave_after_last),
        cmocka_unit_test(test_mismatched_calls),
        cmocka_unit_test(test_run_args),
        cmocka_unit_test(test_bufs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
