/* bench_shard_load.c - what loading a map shard costs P ranks, with the
 * documents in frames and a seek table against one frame (as shards were
 * written before the seek tables): each rank r of P takes documents
 * [r n / P, (r + 1) n / P) of the shard, as `--resume` and an index batch do
 * (ndd_shards_load).
 *
 * The shard's documents (shard I of a work directory, or of an index's
 * batch-NNNN) are written again into a temporary directory twice, with
 * frames of 1 MiB (ndd's default) and with every document in one frame;
 * then each rank's range is loaded from each, REPS times, alternated, and
 * the least CPU time of each kept. Prints per layout the slowest rank, rank 0,
 * the last rank, the sum over the ranks, and the files' sizes.
 *
 * usage: bench_shard_load [-r REPS] [-i SHARD] WORKDIR P... */
#include "ndd_ckpt.h"
#include "ndd_docs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long file_size(const char *dir, int idx)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/map/shard-%06d.zst", dir, idx);
    return stat(path, &st) ? -1 : (long)st.st_size;
}

/* CPU seconds of loading documents [lo, hi) of shard 0 of dir (rank 0 also takes the rejects and counters) */
static double load_once(const char *dir, uint64_t lo, uint64_t hi, int meta)
{
    ndd_docs_t d = NDD_DOCS_INIT;
    ndd_buf_t rej = NDD_BUF_INIT;
    ndd_counters_t c;
    memset(&c, 0, sizeof c);
    double t0 = cpu_now();
    int rc = ndd_ckpt_shard_load(dir, 0, &d, &rej, &c, lo, hi - lo, meta);
    double t = cpu_now() - t0;
    if (rc || d.n != hi - lo) {
        fprintf(stderr, "bench_shard_load: loading documents %llu..%llu of %s failed (%s)\n", (unsigned long long)lo,
                (unsigned long long)hi, dir, ndd_strerror(rc));
        exit(1);
    }
    ndd_docs_free(&d);
    ndd_buf_free(&rej);
    return t;
}

int main(int argc, char **argv)
{
    int reps = 3, idx = 0, opt;
    while ((opt = getopt(argc, argv, "r:i:")) != -1) {
        if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 'i')
            idx = atoi(optarg);
        else
            goto usage;
    }
    if (argc - optind < 2 || reps < 1 || idx < 0)
        goto usage;
    const char *src = argv[optind];
    ndd_docs_t all = NDD_DOCS_INIT;
    ndd_buf_t rej = NDD_BUF_INIT;
    ndd_counters_t c;
    memset(&c, 0, sizeof c);
    int rc = ndd_ckpt_shard_load(src, idx, &all, &rej, &c, 0, UINT64_MAX, 1);
    if (rc) {
        fprintf(stderr, "bench_shard_load: cannot load shard %d of %s (%s)\n", idx, src, ndd_strerror(rc));
        return 1;
    }
    char tmp[] = "/tmp/ndd-bench-shard-XXXXXX", dirs[2][64];
    if (!mkdtemp(tmp))
        return 1;
    static const char *names[2] = {"frames of 1 MiB", "one frame"};
    for (int v = 0; v < 2; v++) {
        snprintf(dirs[v], sizeof dirs[v], "%s/%s", tmp, v ? "one" : "framed");
        size_t old = ndd_ckpt_shard_frame(v ? SIZE_MAX : 0);
        rc = ndd_ckpt_shard_write(dirs[v], 0, &all, &rej, &c);
        ndd_ckpt_shard_frame(old);
        if (rc) {
            fprintf(stderr, "bench_shard_load: cannot write %s (%s)\n", dirs[v], ndd_strerror(rc));
            return 1;
        }
    }
    uint64_t n = all.n;
    printf("shard %d of %s: %llu documents; files: %s %ld bytes, %s %ld bytes; least CPU time of %d\n", idx, src,
           (unsigned long long)n, names[0], file_size(dirs[0], 0), names[1], file_size(dirs[1], 0), reps);
    ndd_docs_free(&all);
    ndd_buf_free(&rej);
    for (int a = optind + 1; a < argc; a++) {
        int P = atoi(argv[a]);
        if (P < 1 || P > 4096)
            goto usage;
        double *best = malloc(2 * (size_t)P * sizeof *best);
        for (int i = 0; i < 2 * P; i++)
            best[i] = 1e30;
        for (int k = 0; k < reps; k++)
            for (int r = 0; r < P; r++)
                for (int v = 0; v < 2; v++) {
                    double t = load_once(dirs[v], n * (uint64_t)r / (uint64_t)P, n * (uint64_t)(r + 1) / (uint64_t)P,
                                         r == 0);
                    best[v * P + r] = t < best[v * P + r] ? t : best[v * P + r];
                }
        for (int v = 0; v < 2; v++) {
            double sum = 0, mx = 0;
            for (int r = 0; r < P; r++) {
                sum += best[v * P + r];
                mx = best[v * P + r] > mx ? best[v * P + r] : mx;
            }
            printf("P=%-4d %-16s slowest rank %.4f s  rank 0 %.4f s  rank %d %.4f s  all ranks %.4f s\n", P, names[v],
                   mx, best[v * P], P - 1, best[v * P + P - 1], sum);
        }
        free(best);
    }
    ndd_ckpt_remove(tmp);
    return 0;
usage:
    fprintf(stderr, "usage: bench_shard_load [-r REPS] [-i SHARD] WORKDIR P...\n");
    return 2;
}
