/* ndd_comm_check.c - checks every op of the transport interface (ndd_comm.h)
 * on an engine, against values each rank computes on its own: the MPI plugin
 * under 'mpirun -n P ndd_comm_check mpi' (with $NDD_MPI_CHUNK small, the
 * chunked paths), the in-process engine with 'ndd_comm_check local:P'. Built
 * with cli/cli_engine.c, so that it loads the plugin exactly as ndd does.
 * Prints "ok: ..." from rank 0 and exits 0, or names the failed check and
 * exits 1. Used by tests/mpi/comm_ops.sh. */
#include "ndd_cli.h"
#include "ndd_comm.h"
#include "ndd_util.h"

#include <stdlib.h>
#include <string.h>

typedef struct check_arg {
    const char *dir; /* for the write_ordered files */
} check_arg_t;

/* Rank r's bytes for destination d (d = -1: its allgather part): a length
 * and a pattern both depend on (r, d); some are empty. */
static size_t pat_len(int r, int d, int round) { return (size_t)((r * 7919 + (d + 1) * 104729 + round * 31) % 3001) * ((r + d + round) % 4 != 0); }
static char pat_byte(int r, int d, size_t i) { return (char)(r * 31 + (d + 1) * 17 + (int)(i % 251)); }
static void pat_fill(ndd_buf_t *b, int r, int d, int round)
{
    size_t n = pat_len(r, d, round);
    ndd_buf_clear(b);
    for (size_t i = 0; i < n; i++)
        ndd_buf_putc(b, pat_byte(r, d, i));
}
static int pat_is(const ndd_buf_t *b, int r, int d, int round)
{
    size_t n = pat_len(r, d, round);
    if (b->len != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (b->data[i] != pat_byte(r, d, i))
            return 0;
    return 1;
}

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "FAIL (%s, rank %d of %d): ", c->ops->name, me, P);    \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
            bad = 1;                                                               \
        }                                                                          \
    } while (0)

/* write_ordered_fill's pieces: 777 bytes at a time. */
typedef struct {
    const char *data;
    size_t len, at;
} piece777_t;

static int piece777(void *user, const void **p, size_t *n)
{
    piece777_t *q = user;
    size_t k = q->len - q->at < 777 ? q->len - q->at : 777;
    *p = q->data + q->at;
    *n = k;
    q->at += k;
    return 0;
}

static int check_job(ndd_comm_t *c, void *argp)
{
    const check_arg_t *arg = argp;
    const int me = c->rank, P = c->size;
    int bad = 0, checks = 0;
    ndd_buf_t all = NDD_BUF_INIT, mine = NDD_BUF_INIT;
    ndd_buf_t *send = calloc((size_t)P, sizeof *send), *recv = calloc((size_t)P, sizeof *recv);
    uint64_t *lens = calloc((size_t)P, sizeof *lens);
    if (!send || !recv || !lens)
        abort(); /* a test tool: no recovery */

    /* agree: the most negative rc wins, everywhere */
    int rc = ndd_comm_agree(c, -me);
    CHECK(rc == -(P - 1), "agree(-rank) = %d", rc);
    checks++;
    rc = ndd_comm_agree(c, 0);
    CHECK(rc == 0, "agree(0) = %d", rc);
    checks++;

    /* near: every rank of this one machine, or only this rank with NDD_COMM_FAR=1 */
    for (int d = 0; d < P; d++) {
        int want = d == me || !ndd_comm_far_forced();
        CHECK(ndd_comm_near(c, d) == want, "near(%d) = %d on rank %d", d, ndd_comm_near(c, d), me);
        checks++;
    }

    /* allreduce: every type and op */
    {
        uint32_t u32[3];
        uint64_t u64[3];
        double f64[3];
        for (int op = NDD_RED_SUM; op <= NDD_RED_MAX; op++) {
            for (int i = 0; i < 3; i++) {
                u32[i] = (uint32_t)(me * 10 + i + 1);
                u64[i] = ((uint64_t)me << 40) + (uint64_t)i;
                f64[i] = me * 0.5 + i;
            }
            rc = ndd_comm_allreduce(c, u32, 3, NDD_TY_U32, (ndd_red_t)op);
            rc |= ndd_comm_allreduce(c, u64, 3, NDD_TY_U64, (ndd_red_t)op);
            rc |= ndd_comm_allreduce(c, f64, 3, NDD_TY_F64, (ndd_red_t)op);
            CHECK(rc == 0, "allreduce rc %d", rc);
            for (int i = 0; i < 3; i++) {
                uint32_t e32 = 0;
                uint64_t e64 = 0;
                double ef = 0;
                for (int r = 0; r < P; r++) {
                    uint32_t a = (uint32_t)(r * 10 + i + 1);
                    uint64_t b = ((uint64_t)r << 40) + (uint64_t)i;
                    double x = r * 0.5 + i;
                    if (op == NDD_RED_SUM) {
                        e32 += a, e64 += b, ef += x;
                    } else if (r == 0 || (op == NDD_RED_MIN ? a < e32 : a > e32)) {
                        e32 = a, e64 = b, ef = x; /* all three grow with r */
                    }
                }
                CHECK(u32[i] == e32 && u64[i] == e64 && f64[i] == ef, "allreduce op %d element %d", op, i);
                checks++;
            }
        }
    }

    /* allgather, twice (the second reuses the buffers), and with nothing at all */
    for (int round = 0; round < 3; round++) {
        if (round < 2)
            pat_fill(&mine, me, -1, round);
        else
            ndd_buf_clear(&mine);
        rc = ndd_comm_allgather(c, mine.data, mine.len, &all, lens);
        CHECK(rc == 0, "allgather rc %d", rc);
        size_t off = 0;
        for (int r = 0; r < P && rc == 0; r++) {
            size_t n = round < 2 ? pat_len(r, -1, round) : 0;
            ndd_buf_t piece = {all.data + off, n, n};
            CHECK(lens[r] == n && off + n <= all.len && (round == 2 || pat_is(&piece, r, -1, round)),
                  "allgather round %d: part of rank %d", round, r);
            off += n;
            checks++;
        }
        CHECK(rc != 0 || off == all.len, "allgather round %d: %zu bytes, %zu expected", round, all.len, off);
    }

    /* exchange, twice (recv[] is cleared first), remote byte count */
    for (int round = 0; round < 2; round++) {
        uint64_t remote = 5, want = 5;
        for (int d = 0; d < P; d++) {
            pat_fill(&send[d], me, d, round);
            if (d != me)
                want += send[d].len;
        }
        rc = ndd_comm_exchange(c, send, recv, &remote);
        CHECK(rc == 0, "exchange rc %d", rc);
        CHECK(remote == want, "exchange remote bytes %llu, %llu expected", (unsigned long long)remote,
              (unsigned long long)want);
        for (int s = 0; s < P; s++) {
            CHECK(pat_is(&recv[s], s, me, round), "exchange round %d: from rank %d (%zu bytes)", round, s,
                  recv[s].len);
            CHECK(pat_is(&send[s], me, s, round), "exchange round %d: send[%d] changed", round, s);
            checks += 2;
        }
    }

    /* write_ordered: replaces a longer file; then an empty result; then the
     * first result again, written from pieces of 777 bytes */
    {
        char path[4096];
        snprintf(path, sizeof path, "%s/ordered-%s-%d.bin", arg->dir, c->ops->name, P);
        if (me == 0) {
            FILE *f = fopen(path, "wb");
            for (int i = 0; f && i < 100000; i++)
                fputc('x', f);
            if (f)
                fclose(f);
        }
        for (int round = 0; round < 3; round++) {
            if (round != 1)
                pat_fill(&mine, me, P, 0);
            else
                ndd_buf_clear(&mine);
            piece777_t q = {mine.data, mine.len, 0};
            rc = round == 2 ? ndd_comm_write_ordered_fill(c, path, mine.len, piece777, &q)
                            : ndd_comm_write_ordered(c, path, mine.data ? mine.data : "", mine.len);
            CHECK(rc == 0, "write_ordered rc %d", rc);
            rc = ndd_comm_agree(c, 0); /* every rank has returned */
            if (me == 0) {
                char *data = NULL;
                size_t len = 0, off = 0;
                CHECK(ndd_read_file(path, 0, &data, &len) == 0, "cannot read %s", path);
                for (int r = 0; r < P && data; r++) {
                    size_t n = round != 1 ? pat_len(r, P, 0) : 0;
                    ndd_buf_t piece = {data + off, n, n};
                    CHECK(off + n <= len && (round || pat_is(&piece, r, P, 0)), "write_ordered: part of rank %d",
                          r);
                    off += n;
                    checks++;
                }
                CHECK(off == len, "write_ordered round %d: %zu bytes, %zu expected", round, len, off);
                free(data);
            }
        }
    }

    /* progress sums: start, test until done (never blocking), and wait */
    if (c->ops->iallreduce_start) {
        for (int round = 0; round < 3; round++) {
            uint64_t in[4] = {(uint64_t)me, 1, (uint64_t)me * me, (uint64_t)round}, out[4] = {0, 0, 0, 0};
            size_t n = round == 2 ? 1 : 4;
            ndd_comm_req_t *req = NULL;
            rc = c->ops->iallreduce_start(c, in, n, &req);
            CHECK(rc == 0 && req, "iallreduce_start rc %d", rc);
            if (rc || !req)
                continue;
            if (round == 1) {
                rc = c->ops->iallreduce_wait(req, out);
            } else {
                while ((rc = c->ops->iallreduce_test(req, out)) == 0)
                    ;
                rc = rc == 1 ? 0 : rc;
            }
            uint64_t e[4] = {0, 0, 0, 0};
            for (int r = 0; r < P; r++) {
                e[0] += (uint64_t)r;
                e[1] += 1;
                e[2] += (uint64_t)r * r;
                e[3] += (uint64_t)round;
            }
            CHECK(rc == 0 && !memcmp(out, e, n * sizeof *e), "iallreduce round %d", round);
            checks++;
        }
    }

    rc = ndd_comm_agree(c, bad ? NDD_ERR_INTERNAL : 0);
    if (me == 0 && !rc)
        printf("ok: %s engine, %d ranks: %d checks%s\n", c->ops->name, P, checks,
               c->ops->iallreduce_start ? "" : " (no progress sums in this engine)");
    for (int d = 0; d < P; d++) {
        ndd_buf_free(&send[d]);
        ndd_buf_free(&recv[d]);
    }
    free(send);
    free(recv);
    free(lens);
    ndd_buf_free(&all);
    ndd_buf_free(&mine);
    return rc;
}

int main(int argc, char **argv)
{
    ndd_cli_engine_t e;
    memset(&e, 0, sizeof e);
    if (argc != 3 || ndd_cli_engine_parse(argv[1], &e)) {
        fprintf(stderr, "usage: [mpirun -n P] ndd_comm_check mpi|local:P DIR\n");
        return NDD_EXIT_USAGE;
    }
    check_arg_t arg = {argv[2]};
    return ndd_cli_engine_run(&e, "comm_check", &argc, &argv, check_job, &arg) ? NDD_EXIT_RUNTIME : NDD_EXIT_OK;
}
